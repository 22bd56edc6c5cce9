#!/usr/bin/env node
// `npm run soak`: 10 000 runs in a row, then 1 000 runs at concurrency 50, reporting resident
// memory, thread count and open file descriptors at start and end; then 1 500 runs that each
// exhaust their heap. The test suite runs a reduced form of the same functions.
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { collectGarbage, settledAt, setup, sleep, tools } from '../__test__/helpers.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')

const count = (dir) => readdirSync(dir).length
const rssMb = () => process.memoryUsage().rss / 2 ** 20
/** Resident memory and malloc's bytes in use (KB), after a full collection of Node's heap. */
const sample = async () => {
  collectGarbage()
  // Finalisers of collected native wrappers run from Node's next loop turn.
  await sleep(20)
  return { rssMb: Math.round(rssMb()), mallocKb: Math.round(native.mallocInUseBytes() / 1024) }
}

/**
 * A pool that cannot grow: a leak shows as a climb of a few MB, and an elastic pool's isolates,
 * prepared or not at each sample, would move the series by 2.8 MB each (the pool has tests of its own).
 */
const FIXED_POOL = { isolatePool: 2, isolatePoolMax: 2 }

/** Awaits `once(i)` for `runs` runs in a row, sampling memory every tenth: a leak shows as a climb. */
async function inARow(runs, once) {
  const samples = []
  for (let i = 0; i < runs; i++) {
    await once(i)
    if ((i + 1) % Math.ceil(runs / 10) === 0) samples.push(await sample())
  }
  return { rssSeries: samples.map((at) => at.rssMb), mallocKbSeries: samples.map((at) => at.mallocKb) }
}

export async function soak({ sequential, concurrent, concurrency }) {
  const { runtime, dispose } = await setup({ computeMs: 5000, ...FIXED_POOL })
  // One warm-up run so start figures include the addon and V8's own threads.
  await runtime.run({ program: 'return 0', bindings: [] })
  collectGarbage()
  const start = { rssMb: rssMb(), threads: count('/proc/self/task'), fds: count('/proc/self/fd') }
  let failures = 0
  const bindings = tools({ echo: async (x) => x })
  const once = async (i) => {
    const result = await runtime.run({ program: `console.log('run', ${i}); return (await tools.echo({ i: ${i} })).i`, bindings })
    if (result.value !== i) failures++
  }
  const series = await inARow(sequential, once)
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < concurrent) await once(next++)
  }))
  const rssAfterBurstMb = rssMb()
  // After isolates are disposed, the watchdog hands freed memory back, at most once a second.
  await sleep(1500)
  const rssIdleMb = rssMb()
  await dispose()
  collectGarbage()
  const end = { rssMb: rssMb(), threads: count('/proc/self/task'), fds: count('/proc/self/fd') }
  const liveRunsEnd = await settledAt(native.liveRuns, 0)
  return {
    failures,
    rssStartMb: start.rssMb, rssAfterBurstMb, rssIdleMb, rssEndMb: end.rssMb, rssGrowthMb: end.rssMb - start.rssMb,
    threadsStart: start.threads, threadsEnd: end.threads, fdsStart: start.fds, fdsEnd: end.fds, liveRunsEnd, ...series,
  }
}

/**
 * Runs that each exhaust a 16 MB heap, in a row: the limit's path (terminate, unwind, dispose)
 * must leave nothing behind either.
 */
export async function soakExhausting({ runs }) {
  const heapMb = 16
  const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: heapMb, ...FIXED_POOL })
  const expected = { kind: 'worker-exit', message: `JS heap out of memory: the program exceeded maxOldGenerationSizeMb (${heapMb} MB)` }
  let failures = 0
  const series = await inARow(runs, async () => {
    const result = await runtime.run({ program: 'const a = []; for (;;) a.push(new Array(1000).fill(a.length))', bindings: [] })
    if (result.error?.kind !== expected.kind || result.error.message !== expected.message) failures++
  })
  await dispose()
  return { failures, liveRunsEnd: await settledAt(native.liveRuns, 0), ...series }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = await soak({ sequential: 10_000, concurrent: 1_000, concurrency: 50 })
  console.log(JSON.stringify(report, null, 2))
  const exhausting = await soakExhausting({ runs: 1_500 })
  console.log(JSON.stringify({ heapExhaustingRuns: exhausting }, null, 2))
  if (report.failures || exhausting.failures) process.exit(1)
}
