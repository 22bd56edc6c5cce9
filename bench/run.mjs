#!/usr/bin/env node
// `npm run bench`: each workload on our runtime, on the reference worker-thread backend and on `run`
// (npm; QuickJS in pooled worker threads, the sandbox under the AI SDK's code mode), in one process,
// in turn. Prints medians, p99s and ratios to both; writes bench/results.json and bench/chart.svg.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { nodeBinary } from '../scripts/node-major.mjs'
import { drawChart } from './chart.mjs'
import { quantile } from './stats.mjs'
import { WORKLOADS } from './workloads.mjs'

// The reference backend needs Node >= 22.19: re-run under a Node 24 from the registry if older.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  const node = nodeBinary(24)
  execFileSync(node, ['--expose-gc', fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' })
  process.exit(0)
}

const { Context } = await import('@deepseek-ai/cordis')
const { default: V8CodeRuntime } = await import('dsh-code-runtime-v8')
const { default: WorkerThreadCodeRuntime } = await import('@deepseek-ai/dsh-code-runtime-worker-thread')
const native = createRequire(import.meta.url)('../lib/native.cjs')

async function load(Plugin) {
  const ctx = new Context()
  const fiber = ctx.plugin(Plugin, { computeMs: 120_000, maxWallMs: 600_000 })
  await fiber
  return { runtime: ctx.get('codeRuntime'), dispose: () => fiber.dispose() }
}

/** `run` behind the seam's shape: namespaces become host-function groups of the same names. */
async function loadRun() {
  const { createRunner, setMaxWorkers } = await import('run')
  // Its defaults: 32 workers at once and 256 host calls a run; the workloads go past both.
  setMaxWorkers(128)
  const runner = createRunner({ limits: { maxBridgeRequests: 20_000, timeoutMs: 120_000 } })
  const runtime = {
    async run({ program, bindings }) {
      const hostFunctions = Object.fromEntries(bindings.map(({ global, functions }) => [global, functions]))
      const result = await runner.run({ source: program, hostFunctions })
      if (result.status === 'completed') return { logs: result.logs ?? [], value: result.value }
      return { logs: [], error: { kind: result.status, message: String(result.error?.message ?? result.status) } }
    },
  }
  return { runtime, dispose: async () => {} }
}

const ours = await load(V8CodeRuntime)
const reference = await load(WorkerThreadCodeRuntime)
// `fresh()`: a runtime of the side's own, loaded for one round, for the rows whose figures a warm
// runtime's state would move (our pool grows with demand, and its prepared isolates would be in
// the baseline).
const sides = {
  ours: { ...ours, native, fresh: () => load(V8CodeRuntime) },
  reference: { ...reference, fresh: () => load(WorkerThreadCodeRuntime) },
  run: { ...await loadRun(), fresh: loadRun },
}
const SIDES = Object.keys(sides)


const quick = process.argv.includes('--quick')
// `--only <text>`: the workloads whose names contain it, printed and not written to results.json.
const onlyAt = process.argv.indexOf('--only')
const only = onlyAt === -1 ? undefined : process.argv[onlyAt + 1]
const results = []
for (const workload of WORKLOADS.filter(({ name }) => only === undefined || name.includes(only))) {
  const samples = Object.fromEntries(SIDES.map((side) => [side, []]))
  const extra = Object.fromEntries(SIDES.map((side) => [side, {}]))
  const rounds = quick ? Math.max(2, Math.ceil(workload.rounds / 10)) : workload.rounds
  for (let round = 0; round < rounds + 1; round++) {
    // Each side goes first in turn.
    for (const side of SIDES.map((_, i) => SIDES[(i + round) % SIDES.length])) {
      if ((workload.only && workload.only !== side) || workload.skip?.includes(side)) continue
      const measured = await workload.measure(sides[side], side)
      // The first round warms up both sides and is not kept.
      if (round === 0) continue
      samples[side].push(...[].concat(measured.value))
      Object.assign(extra[side], measured.extra)
    }
  }
  const summary = (side) => samples[side].length === 0 ? undefined : {
    median: quantile(samples[side], 0.5), p99: quantile(samples[side], 0.99), n: samples[side].length, ...extra[side],
  }
  const row = { name: workload.name, unit: workload.unit, ours: summary('ours'), reference: summary(workload.versus ?? 'reference'), run: summary('run') }
  if (row.ours && row.reference) row.ratio = row.ours.median / row.reference.median
  if (row.ours && row.run) row.ratioRun = row.ours.median / row.run.median
  results.push(row)
  const show = (s) => (s ? `median ${s.median.toFixed(3)} p99 ${s.p99.toFixed(3)}` : '-')
  console.log(`${workload.name.padEnd(44)} ${workload.unit.padEnd(6)} ours ${show(row.ours).padEnd(32)} reference ${show(row.reference).padEnd(32)} run ${show(row.run).padEnd(32)} ours/reference ${row.ratio?.toFixed(4) ?? '-'} ours/run ${row.ratioRun?.toFixed(4) ?? '-'}`)
}

for (const side of SIDES) await sides[side].dispose()
if (only !== undefined) process.exit(0)

const machine = { node: process.version, cpus: os.cpus().length, cpu: os.cpus()[0]?.model, loadavg: os.loadavg(), date: new Date().toISOString() }
writeFileSync(new URL('./results.json', import.meta.url), JSON.stringify({ machine, results }, null, 2) + '\n')
writeFileSync(new URL('./chart.svg', import.meta.url), drawChart(results, machine))
console.log('wrote bench/results.json and bench/chart.svg')
