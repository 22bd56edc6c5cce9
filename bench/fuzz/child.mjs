// Runs programs of one fuzzing campaign in this host process, one after another, and says of each
// what a host must be able to say: it settled by its stop plus 150 ms, its thread was out of it
// 250 ms later (`runawayThreads().running`) and its state gone 2 s later, and its memory stayed
// within 2 x cap + 100 MB of the host's idle. Prints `{"start":i}` before each program and its
// verdict after, so that a parent knows which program took the host down.
//   node child.mjs <seed> <first index> <step> <count>
import { createRequire } from 'node:module'
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime from 'dsh-code-runtime-v8'
import { generate } from './generate.mjs'

const native = createRequire(import.meta.url)('../../lib/native.cjs')
const [seed, first, step, count] = process.argv.slice(2).map(Number)
const SETTLE_GRACE_MS = 150
const LINGER_MS = 250
const RELEASE_MS = 2_000
const MEMORY_ALLOWANCE = 100 << 20
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`)

function bindings() {
  return [{
    global: 'tools',
    functions: {
      echo: async (value) => value,
      slow: () => new Promise((resolve) => setTimeout(resolve, 10_000, 'late').unref()),
    },
    errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
  }]
}

async function runOne(fuzzCase) {
  const { program, stop, stopAtMs } = fuzzCase
  // `npm run fuzz -- --process`: every run in a helper process.
  const config = process.env.DSH_FUZZ_ISOLATION ? { ...fuzzCase.config, isolation: process.env.DSH_FUZZ_ISOLATION } : fuzzCase.config
  // A thread an earlier program left behind is that program's finding, not this one's.
  const before = { runs: native.liveRuns(), running: native.runawayThreads().running }
  const ctx = new Context()
  const fiber = await ctx.plugin(V8CodeRuntime, config)
  const runtime = ctx.get('codeRuntime')
  const idle = process.memoryUsage.rss()
  let peak = idle
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()) }, 5)
  const abort = new AbortController()
  const started = performance.now()
  let disposed = false
  const stopper = stopAtMs === undefined ? undefined : setTimeout(() => {
    if (stop === 'abort') abort.abort()
    else { disposed = true; fiber.dispose() }
  }, stopAtMs)
  const result = await runtime.run({ program, bindings: bindings(), signal: abort.signal }).catch((error) => ({ rejected: String(error) }))
  const settledMs = performance.now() - started
  clearTimeout(stopper)
  const settleBy = (stopAtMs ?? config.maxWallMs) + SETTLE_GRACE_MS
  // Once a run's state is gone its thread has dropped the isolate and all its work, so it can no
  // longer be running inside it: the verdict need not wait out the rest of the 250 ms.
  const lingerEnds = started + settledMs + LINGER_MS
  while (native.liveRuns() > before.runs && performance.now() < lingerEnds) await sleep(Math.min(5, lingerEnds - performance.now()))
  const stillRunning = native.runawayThreads().running - before.running
  // A run's state goes once its thread has also disposed of its isolate, which for a large heap
  // takes longer than the 250 ms a thread has to leave the run.
  for (let waited = 0; native.liveRuns() > before.runs && waited < RELEASE_MS; waited += 10) await sleep(10)
  const runsLeft = native.liveRuns() - before.runs
  peak = Math.max(peak, process.memoryUsage.rss())
  clearInterval(sampler)
  if (!disposed) await fiber.dispose()
  const problems = []
  if (settledMs > settleBy) problems.push(`settled at ${Math.round(settledMs)} ms, past its stop plus grace (${settleBy} ms)`)
  if (stillRunning > 0) problems.push(`${LINGER_MS} ms after settling, its thread was still running inside it`)
  if (runsLeft > 0) problems.push(`${LINGER_MS + RELEASE_MS} ms after settling, its state was still alive`)
  const bound = 2 * config.maxOldGenerationSizeMb * (1 << 20) + MEMORY_ALLOWANCE
  if (peak - idle > bound) problems.push(`peak ${Math.round((peak - idle) / 2 ** 20)} MB above idle, past ${Math.round(bound / 2 ** 20)} MB`)
  const outcome = result.rejected ? `rejected: ${result.rejected}` : result.error?.kind ?? 'value'
  return { settledMs: Math.round(settledMs), peakMb: Math.round((peak - idle) / 2 ** 20), outcome, problems }
}

for (let n = 0, index = first; n < count; n++, index += step) {
  print({ start: index })
  // Wait for any thread of the last program to leave, so that a verdict is the program's own.
  for (let waited = 0; (native.liveRuns() > 0 || native.runawayThreads().running > 0) && waited < 5_000; waited += 10) await sleep(10)
  print({ done: index, ...(await runOne(generate(seed, index))) })
}
process.exit(0)
