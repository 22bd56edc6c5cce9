// The bench workloads. Each `measure` runs once on one side and returns its sample(s).
import { performance } from 'node:perf_hooks'

const tools = (functions) => [{ global: 'tools', functions, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }]
const ms = (start) => performance.now() - start
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const RETURN_1 = { program: 'return 1', bindings: [] }
// What an agent's program typically does: one tool call, a filter and a map over its answer, a line
// logged with an object in it, and a small result. Unlike `return 1`, it touches the world.
const AGENT_PROGRAM = {
  program: `const found = await tools.search({ q: 'billing' })
const top = found.hits.filter((hit) => hit.score > 0.5).map((hit) => ({ id: hit.id, page: hit.url.split('/').pop() }))
console.log('top hits:', top.length, top[0])
return { count: top.length, ids: top.map((hit) => hit.id).join(',') }`,
  bindings: tools({
    search: async ({ q }) => ({ q, hits: Array.from({ length: 10 }, (_, i) => ({ id: `d${i}`, url: `https://docs.example.com/${q}/${i}`, score: i / 10 })) }),
  }),
}
const ROWS = Array.from({ length: 20_000 }, (_, i) => ({ id: i, name: `row ${i}`, tags: ['a', 'b'], score: i / 3, ok: true }))

/** One `return 1`, `gapMs` after the last round: how long the pool and its threads sat idle. */
const returnOneAfter = (gapMs) => async ({ runtime }) => {
  await sleep(gapMs)
  return { value: await timed(runtime, RETURN_1) }
}

/** The time of one run of `program`, which calls no binding. */
const timedProgram = (program) => async ({ runtime }) => ({ value: await timed(runtime, { program, bindings: [] }) })

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

// Timed inside the engine, so neither side's start-up counts: this compares V8 with V8.
const CPU_BOUND = `
  const started = Date.now()
  function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2) }
  const sorted = Array.from({ length: 200000 }, (_, i) => (i * 7919) % 200003).sort((a, b) => a - b)
  let s = 0
  for (let i = 0; i < 2e7; i++) s = (s + i * 7) % 1000003
  return [fib(28) + sorted[100] + s, Date.now() - started]
`

export const WORKLOADS = [
  {
    name: 'return 1 (prepared isolate)',
    unit: 'ms',
    rounds: 150,
    measure: ({ runtime }) => timed(runtime, RETURN_1).then((value) => ({ value })),
  },
  {
    name: 'return 1, cold (no prepared isolate)',
    unit: 'ms',
    rounds: 60,
    versus: 'reference',
    measure: async ({ runtime, native }, side) => {
      // The peers have no prepared-isolate pool to bypass: their ordinary run is their cold one.
      if (side !== 'ours') return { value: await timed(runtime, RETURN_1) }
      const start = performance.now()
      await new native.NativeRun().start(JSON.stringify({
        program: 'return 1', params: ['console'], namespacesJson: '[]', computeMs: 60_000, maxWallMs: 600_000,
        maxOutputBytes: 67_108_864, maxOldGenerationSizeMb: 512,
      }), () => {})
      return { value: ms(start) }
    },
  },
  {
    name: 'return 1, runs 5 ms apart',
    unit: 'ms',
    rounds: 60,
    measure: returnOneAfter(5),
  },
  {
    // The pool cannot refill between runs: each waits for an isolate being prepared.
    name: 'return 1, back to back (10 in a row)',
    unit: 'ms',
    rounds: 15,
    measure: async ({ runtime }) => {
      const values = []
      for (let i = 0; i < 10; i++) values.push(await timed(runtime, RETURN_1))
      return { value: values }
    },
  },
  {
    // Threads idle for 30 ms take about a millisecond to wake on this VM.
    name: 'return 1, idle host (30 ms gaps)',
    unit: 'ms',
    rounds: 40,
    measure: returnOneAfter(30),
  },
  {
    name: 'burst of 20 concurrent return 1',
    unit: 'ms',
    rounds: 15,
    measure: async ({ runtime }) => {
      await sleep(30)
      const start = performance.now()
      await Promise.all(Array.from({ length: 20 }, () => timed(runtime, RETURN_1)))
      return { value: ms(start) }
    },
  },
  {
    name: 'an agent program: a tool call, filter, map, a logged object (5 ms apart)',
    unit: 'ms',
    rounds: 60,
    measure: async ({ runtime }) => {
      await sleep(5)
      return { value: await timed(runtime, AGENT_PROGRAM) }
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
    // A tool's large result crossing to the program: checked lossless and encoded on the host.
    name: 'binding answer of 20 000 rows (1.2 MB of JSON)',
    unit: 'ms',
    rounds: 10,
    measure: async ({ runtime }) => ({
      value: await timed(runtime, { program: 'const rows = await tools.rows({}); return rows.length', bindings: tools({ rows: async () => ROWS }) }),
    }),
  },
  {
    name: '1000 console lines',
    unit: 'ms',
    rounds: 20,
    // `run` prints a program's console on the host's stdout instead of returning it.
    skip: ['run'],
    measure: timedProgram('for (let i = 0; i < 1000; i++) console.log("line", i, { i }); return 1'),
  },
  {
    // A program that yields to the event loop between pieces of work, as chunked processing does.
    name: '1000 turns of setImmediate',
    unit: 'ms',
    rounds: 20,
    // `run` has no setImmediate.
    skip: ['run'],
    measure: timedProgram('for (let i = 0; i < 1000; i++) await new Promise((r) => setImmediate(r)); return 1'),
  },
  {
    name: 'CPU-bound, in-engine time (fib, sort, loop)',
    unit: 'ms',
    rounds: 8,
    // `run`'s clock does not advance inside a run (its Date.now() gave 1 ms here), and QuickJS is an
    // interpreter: this row compares V8 with V8.
    skip: ['run'],
    measure: async ({ runtime }) => ({ value: (await runtime.run({ program: CPU_BOUND, bindings: [] })).value[1] }),
  },
  {
    name: '3000-line TypeScript program',
    unit: 'ms',
    rounds: 20,
    measure: timedProgram(TS_3000),
  },
  {
    name: '100 concurrent runs awaiting a 50 ms binding',
    unit: 'ms',
    rounds: 3,
    measure: async ({ runtime }) => {
      const start = performance.now()
      await Promise.all(Array.from({ length: 100 }, () =>
        timed(runtime, { program: 'return await tools.wait({})', bindings: tools({ wait: () => sleep(50).then(() => 1) }) })))
      return { value: ms(start) }
    },
  },
  {
    name: 'peak RSS growth, 100 concurrent runs',
    unit: 'MB',
    rounds: 3,
    measure: async ({ fresh }) => {
      const { runtime, dispose } = await fresh()
      globalThis.gc?.()
      await sleep(300)
      const baseline = process.memoryUsage().rss
      let peak = baseline
      const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 2)
      await Promise.all(Array.from({ length: 100 }, () =>
        timed(runtime, { program: 'return await tools.wait({})', bindings: tools({ wait: () => sleep(50).then(() => 1) }) })))
      clearInterval(sampler)
      const grown = Math.max(peak, process.memoryUsage().rss) - baseline
      await dispose()
      return { value: grown / 2 ** 20 }
    },
  },
  {
    // What #21 asks for: resident memory while 200 runs all await a binding, once they all do, in a
    // runtime loaded for the round (its pool at its idle size).
    // `run` refuses more than its 128 workers at once, and with 128 its resident memory fell below
    // the baseline while they waited (its pool of workers outlives runs): it is left out.
    name: 'resident memory per run, 200 concurrent runs awaiting a binding',
    unit: 'MB',
    rounds: 3,
    skip: ['run'],
    measure: async ({ fresh }) => {
      const { runtime, dispose } = await fresh()
      globalThis.gc?.()
      await sleep(300)
      const baseline = process.memoryUsage().rss
      const runs = 200
      let arrived = 0
      let release
      const released = new Promise((resolve) => { release = resolve })
      let allAwaiting
      const awaiting = new Promise((resolve) => { allAwaiting = resolve })
      const wait = () => { if (++arrived === runs) allAwaiting(); return released.then(() => 1) }
      const settled = Promise.all(Array.from({ length: runs }, () =>
        timed(runtime, { program: 'return await tools.wait({})', bindings: tools({ wait }) })))
      await awaiting
      await sleep(200)
      const resident = process.memoryUsage().rss
      release()
      await settled
      await dispose()
      return { value: (resident - baseline) / 2 ** 20 / runs }
    },
  },
  {
    // The time between one host invocation and the next is one whole round trip: the answer back
    // to the program, and its next call out. Every interval is a sample.
    name: 'binding round trip (10 000 sequential calls)',
    unit: 'us',
    rounds: 2,
    measure: async ({ runtime }) => {
      const intervals = []
      let last
      await timed(runtime, {
        program: 'for (let i = 0; i < 10000; i++) await tools.echo({ i }); return 1',
        bindings: tools({ echo: async (x) => { const now = performance.now(); if (last !== undefined) intervals.push((now - last) * 1000); last = now; return x } }),
      })
      return { value: intervals }
    },
  },
]
