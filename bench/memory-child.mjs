// One case of the memory corpus (bench/memory.mjs), in a process of its own: resident memory at
// idle, its peak while `copies` runs of the program run at once, and one second after they settle.
//   node memory-child.mjs '<config json>' '<program>' <copies>
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime from 'dsh-code-runtime-v8'
import { setTimeout as sleep } from 'node:timers/promises'

const [config, program, copies] = [JSON.parse(process.argv[2]), process.argv[3], Number(process.argv[4])]
const MB = 2 ** 20
const ctx = new Context()
const fiber = await ctx.plugin(V8CodeRuntime, config)
const runtime = ctx.get('codeRuntime')
await runtime.run({ program: 'return 1', bindings: [] })
await sleep(300)
const baseline = process.memoryUsage.rss()
let peak = baseline
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 2)
const started = performance.now()
const results = await Promise.all(Array.from({ length: copies }, () => runtime.run({ program, bindings: [] })))
const settledMs = performance.now() - started
peak = Math.max(peak, process.memoryUsage.rss())
clearInterval(sampler)
await sleep(1000)
const after = process.memoryUsage.rss()
await fiber.dispose()
console.log(JSON.stringify({
  kinds: [...new Set(results.map((result) => result.error?.kind ?? 'value'))],
  baselineMb: baseline / MB,
  peakAboveMb: (peak - baseline) / MB,
  afterAboveMb: (after - baseline) / MB,
  settledMs,
}))
process.exit(0)
