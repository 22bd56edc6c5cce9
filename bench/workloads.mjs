// The bench workloads. Each `measure` runs once on one side and returns its sample(s).
import { performance } from 'node:perf_hooks'

const tools = (functions) => [{ global: 'tools', functions, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }]
const ms = (start) => performance.now() - start
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function timed(runtime, request) {
  const start = performance.now()
  const result = await runtime.run(request)
  if (result.error) throw new Error(`bench run failed: ${JSON.stringify(result.error)}`)
  return ms(start)
}

/** A 3000-line TypeScript program: typed helpers, interfaces and a loop over them. */
function typescriptProgram(lines) {
  const out = ['interface Item { id: number; label: string; tags: string[] }', 'const items: Item[] = []']
  for (let i = 0; out.length < lines - 2; i++) {
    out.push(`function make${i}(id: number): Item { return { id, label: 'item-' + id, tags: ['t${i % 7}'] } as Item }`)
    out.push(`items.push(make${i}(${i}))`)
  }
  out.push('return items.length')
  return out.join('\n')
}
const TS_3000 = typescriptProgram(3000)

const CPU_BOUND = `
  function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
  const sorted = Array.from({ length: 200000 }, (_, i) => (i * 7919) % 200003).sort((a, b) => a - b)
  return fib(27) + sorted[100]
`

export const WORKLOADS = [
  {
    name: 'return 1 (prepared isolate)',
    unit: 'ms',
    rounds: 150,
    measure: ({ runtime }) => timed(runtime, { program: 'return 1', bindings: [] }).then((value) => ({ value })),
  },
  {
    name: 'return 1, cold (no prepared isolate)',
    unit: 'ms',
    rounds: 60,
    versus: 'reference',
    measure: async ({ runtime, native }, side) => {
      if (side === 'reference') return { value: await timed(runtime, { program: 'return 1', bindings: [] }) }
      const start = performance.now()
      await new native.NativeRun().start({
        program: 'return 1', params: ['console'], namespacesJson: '[]', computeMs: 60_000, maxWallMs: 600_000,
        maxOutputBytes: 67_108_864, maxOldGenerationSizeMb: 512, computeMessage: '', wallMessage: '', heapMessage: '',
      }, async () => 'Vnull')
      return { value: ms(start) }
    },
  },
  {
    name: 'binding round trip (1000 sequential calls)',
    unit: 'us',
    rounds: 6,
    measure: async ({ runtime }) => {
      const start = performance.now()
      await timed(runtime, { program: 'for (let i = 0; i < 1000; i++) await tools.echo({ i }); return 1', bindings: tools({ echo: async (x) => x }) })
      return { value: (ms(start) * 1000) / 1000 }
    },
  },
  {
    name: '100 parallel binding calls',
    unit: 'ms',
    rounds: 20,
    measure: async ({ runtime }) => ({
      value: await timed(runtime, { program: 'await Promise.all(Array.from({ length: 100 }, (_, i) => tools.echo({ i }))); return 1', bindings: tools({ echo: async (x) => x }) }),
    }),
  },
  {
    name: '1000 console lines',
    unit: 'ms',
    rounds: 20,
    measure: async ({ runtime }) => ({
      value: await timed(runtime, { program: 'for (let i = 0; i < 1000; i++) console.log("line", i, { i }); return 1', bindings: [] }),
    }),
  },
  {
    name: 'CPU-bound (fib 27 + sort 200k)',
    unit: 'ms',
    rounds: 8,
    measure: async ({ runtime }) => ({ value: await timed(runtime, { program: CPU_BOUND, bindings: [] }) }),
  },
  {
    name: '3000-line TypeScript program',
    unit: 'ms',
    rounds: 20,
    measure: async ({ runtime }) => ({ value: await timed(runtime, { program: TS_3000, bindings: [] }) }),
  },
  {
    name: '100 concurrent runs awaiting a 50 ms binding',
    unit: 'ms',
    rounds: 3,
    measure: async ({ runtime }) => {
      globalThis.gc?.()
      await sleep(50)
      const baseline = process.memoryUsage().rss
      let peak = baseline
      const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 2)
      const start = performance.now()
      await Promise.all(Array.from({ length: 100 }, () =>
        timed(runtime, { program: 'return await tools.wait({})', bindings: tools({ wait: () => sleep(50).then(() => 1) }) })))
      const total = ms(start)
      clearInterval(sampler)
      peak = Math.max(peak, process.memoryUsage().rss)
      return { value: total, extra: { peakRssGrowthMb: (peak - baseline) / 2 ** 20 } }
    },
  },
]
