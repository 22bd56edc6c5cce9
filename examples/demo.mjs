// A real run: a TypeScript program calls two host bindings and returns a value; then the same in
// Python.
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime, { PythonCodeRuntime } from 'dsh-code-runtime-v8'

const ctx = new Context()
await ctx.plugin(V8CodeRuntime, { computeMs: 5_000 })

const weather = { paris: 18, oslo: 4 }
const bindings = [{
  global: 'tools',
  functions: {
    async temperature({ city }) {
      if (!(city in weather)) throw new Error(`no station in ${city}`)
      return { city, celsius: weather[city] }
    },
  },
  errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
}]
const result = await ctx.codeRuntime.run({
  program: `
    interface Reading { city: string; celsius: number }
    const cities = ['paris', 'oslo']
    const readings: Reading[] = await Promise.all(cities.map((city) => tools.temperature({ city })))
    console.log('readings', readings)
    try {
      await tools.temperature({ city: 'atlantis' })
    } catch (error) {
      console.log(\`\${error.name} from \${error.toolName}: \${error.message}\`)
    }
    return { warmest: readings.reduce((a, b) => (a.celsius >= b.celsius ? a : b)).city }
  `,
  bindings,
})
console.log(JSON.stringify(result, null, 2))

// The same task in Python: a process per run, confined by the kernel, on CPython, or on Monty with
// `--monty` (which has no class a host can define: its ToolCallError is a RuntimeError).
const engine = process.argv.includes('--monty') ? 'monty' : 'cpython'
const pythonCtx = new Context()
try {
  await pythonCtx.plugin(PythonCodeRuntime, { engine, cpuSeconds: 5 })
} catch (error) {
  console.log(`The Python example needs a Python 3.9+ interpreter on PATH, or --monty: ${error.message}`)
  process.exit(0)
}
const pythonResult = await pythonCtx.codeRuntime.run({
  program: `
import asyncio
readings = await asyncio.gather(*[tools.temperature({"city": city}) for city in ["paris", "oslo"]])
print("readings", readings)
try:
    await tools.temperature({"city": "atlantis"})
except ToolCallError as error:
    print(f"{type(error).__name__} from {error.toolName}: {error}")
return {"warmest": max(readings, key=lambda reading: reading["celsius"])["city"]}
`,
  bindings,
})
console.log(JSON.stringify(pythonResult, null, 2))
