// `npm run bench:durable`: what durable runs cost, side by side with a fresh run of the same program
// and with `run` (npm; QuickJS in worker threads), which resumes by replaying its recorded host calls.
// A program makes N sequential binding calls, then one that waits for approval; it is suspended,
// resumed, and its journal replayed. Medians of REPEATS, wall time as the caller sees it, each
// operation after a short pause, so that each finds an isolate prepared, as a host's runs do.
import { Context } from '@deepseek-ai/cordis'
import { createRunner, getHostFunctionContext } from 'run'
import V8CodeRuntime, { resumption, suspend } from 'dsh-code-runtime-v8'
import { median } from './stats.mjs'

const REPEATS = 7
const CALLS = [2, 10, 100, 1000]

const pause = () => new Promise((resolve) => setTimeout(resolve, 20))
async function timed(fn) {
  await pause()
  const start = performance.now()
  const value = await fn()
  return { ms: performance.now() - start, value }
}

const program = (n) => `let total = 0
for (let i = 0; i < ${n}; i++) total += await tools.add(i)
const approved = await tools.approve(total)
return [total, approved]`

const ctx = new Context()
await ctx.plugin(V8CodeRuntime, { computeMs: 60_000 })
const ours = ctx.codeRuntime
const oursBindings = (suspending) => [{
  global: 'tools',
  functions: {
    add: async (i) => i,
    approve: async (total) => (suspending ? (resumption()?.resolution ?? suspend({ total })) : true),
  },
}]

// run allows 256 host calls per run by default.
const runner = createRunner({ continuationSecret: 'a bench secret of at least 32 bytes!', limits: { maxBridgeRequests: 10_000, timeoutMs: 60_000 } })
const theirHostFunctions = (suspending) => ({
  tools: {
    add: (i) => i,
    approve: () => {
      if (!suspending) return true
      const { interrupt, resume } = getHostFunctionContext()
      if (resume === undefined) interrupt({ kind: 'approval' })
      return resume.resolution
    },
  },
})

const rows = []
for (const n of CALLS) {
  const source = program(n)
  const samples = { fresh: [], suspend: [], resume: [], replay: [], theirFresh: [], theirSuspend: [], theirResume: [] }
  let journalBytes = 0
  let events = 0
  let continuationBytes = 0
  for (let r = 0; r < REPEATS; r++) {
    samples.fresh.push((await timed(() => ours.run({ program: source, bindings: oursBindings(false) }))).ms)
    const first = await timed(() => ours.runDurable({ program: source, bindings: oursBindings(true) }, { secret: 'a bench secret of at least 32 bytes!' }))
    samples.suspend.push(first.ms)
    const { journal, pending } = first.value
    journalBytes = Buffer.byteLength(JSON.stringify(journal))
    const resumed = await timed(() => ours.resume({ program: source, bindings: oursBindings(true) }, journal, { [pending[0].id]: true }, { secret: 'a bench secret of at least 32 bytes!' }))
    samples.resume.push(resumed.ms)
    events = resumed.value.journal.events.length
    if (JSON.stringify(resumed.value.result.value) !== JSON.stringify([(n * (n - 1)) / 2, true])) throw new Error('ours resumed to a wrong result')
    samples.replay.push((await timed(() => ours.replay({ program: source, bindings: oursBindings(true) }, resumed.value.journal, { secret: 'a bench secret of at least 32 bytes!' }))).ms)

    samples.theirFresh.push((await timed(() => runner.run({ source, hostFunctions: theirHostFunctions(false) }))).ms)
    const theirs = await timed(() => runner.run({ source, hostFunctions: theirHostFunctions(true) }))
    samples.theirSuspend.push(theirs.ms)
    const { continuation, interruptions } = theirs.value
    continuationBytes = Buffer.byteLength(typeof continuation === 'string' ? continuation : JSON.stringify(continuation))
    const done = await timed(() => runner.run({
      source,
      hostFunctions: theirHostFunctions(true),
      continuation,
      resolutions: interruptions.map((interruption) => ({ interruptionId: interruption.id, value: true })),
    }))
    samples.theirResume.push(done.ms)
    if (JSON.stringify(done.value.value) !== JSON.stringify([(n * (n - 1)) / 2, true])) throw new Error('run resumed to a wrong result')
  }
  const m = Object.fromEntries(Object.entries(samples).map(([key, values]) => [key, median(values)]))
  rows.push({ calls: n, events, journalBytes, bytesPerEvent: journalBytes / events, continuationBytes, ...m, replayUsPerEvent: (m.replay * 1000) / events })
}

const fmt = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2))
console.log(`Node ${process.version}; medians of ${REPEATS}; ms unless marked`)
console.log('| calls | events | journal bytes (per event) | run() fresh | runDurable to suspension (/ run()) | resume to completion (/ run()) | replay (us/event) | run: fresh | run: to interruption | run: resume | run: continuation bytes | resume, run / ours |')
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const row of rows) {
  console.log(`| ${row.calls} | ${row.events} | ${row.journalBytes} (${fmt(row.bytesPerEvent)}) | ${fmt(row.fresh)} | ${fmt(row.suspend)} (${fmt(row.suspend / row.fresh)}) | ${fmt(row.resume)} (${fmt(row.resume / row.fresh)}) | ${fmt(row.replay)} (${fmt(row.replayUsPerEvent)}) | ${fmt(row.theirFresh)} | ${fmt(row.theirSuspend)} | ${fmt(row.theirResume)} | ${row.continuationBytes} | ${fmt(row.theirResume / row.resume)} |`)
}
await ctx.registry.delete(V8CodeRuntime)
process.exit(0)
