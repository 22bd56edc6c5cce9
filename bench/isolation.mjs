#!/usr/bin/env node
// `npm run bench:isolation` (and the end of `npm run bench`): what `isolation: 'process'` costs
// against in-process runs, side by side in one process, in turns: `return 1` with a prepared
// helper and back to back, a binding round trip, 100 runs awaiting a binding at once (with the
// memory of the helpers), and a helper's cold start. Writes bench/isolation.json with the date,
// commit and machine.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime from 'dsh-code-runtime-v8'
import { HelperPool } from '../lib/helpers.js'
import { helperPids } from '../__test__/fixtures/helper-processes.mjs'
import { median, quantile } from './stats.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const ROUNDS = process.argv.includes('--quick') ? 10 : 40

const MODES = {
  'in-process': { isolation: 'v8-isolate' },
  'process, a helper per run': { isolation: 'process' },
  'process, 100 runs per helper': { isolation: 'process', runsPerHelper: 100 },
}

async function load(config) {
  const ctx = new Context()
  const fiber = ctx.plugin(V8CodeRuntime, { computeMs: 120_000, maxWallMs: 600_000, ...config })
  await fiber
  return { runtime: ctx.get('codeRuntime'), dispose: () => fiber.dispose() }
}

const tools = (functions) => [{ global: 'tools', functions }]
const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)

const WORKLOADS = {
  /** `return 1`, host-side, after a pause in which the pool prepares its next isolate or helper. */
  'return 1, prepared (ms)': async (runtime) => {
    await sleep(60)
    const started = performance.now()
    await runtime.run({ program: 'return 1', bindings: [] })
    return performance.now() - started
  },
  /** `return 1` twenty times back to back, per run: replacements are prepared meanwhile. */
  'return 1, back to back (ms per run)': async (runtime) => {
    const started = performance.now()
    for (let i = 0; i < 20; i++) await runtime.run({ program: 'return 1', bindings: [] })
    return (performance.now() - started) / 20
  },
  /** One binding call awaited after another, per call, measured inside the run. */
  'binding round trip (µs)': async (runtime) => {
    const result = await runtime.run({
      program: 'const t = performance.now(); for (let i = 0; i < 200; i++) await tools.echo(i); return (performance.now() - t) * 5',
      bindings: tools({ echo: async (value) => value }),
    })
    return result.value
  },
  /** 100 runs at once, each awaiting a binding: until all have called it, then until all settle. */
  '100 concurrent runs awaiting a binding (ms)': async (runtime, extra) => {
    let called = 0
    let release
    const gate = new Promise((resolve) => { release = resolve })
    const bindings = tools({ wait: async () => { called++; await gate; return 1 } })
    const started = performance.now()
    const runs = Array.from({ length: 100 }, () => runtime.run({ program: 'return await tools.wait({})', bindings }))
    let settled = false
    const all = Promise.all(runs).finally(() => { settled = true })
    while (called < 100) {
      if (settled) throw new Error(`a run settled before all had called: ${JSON.stringify((await all).find((result) => result.error))}`)
      await sleep(1)
    }
    const helpers = helperPids(process.pid)
    extra.helpers = helpers.length
    extra.helpersRssMb = helpers.reduce((sum, pid) => sum + rssKb(pid), 0) / 1024
    extra.hostRssMb = process.memoryUsage().rss / 2 ** 20
    release()
    await all
    return performance.now() - started
  },
}

const runtimes = Object.fromEntries(await Promise.all(Object.entries(MODES).map(async ([mode, config]) => [mode, await load(config)])))
await sleep(500)
const rows = []
for (const [name, measure] of Object.entries(WORKLOADS)) {
  const samples = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, []]))
  const extras = Object.fromEntries(Object.keys(MODES).map((mode) => [mode, {}]))
  const rounds = name.startsWith('100') ? Math.ceil(ROUNDS / 8) : ROUNDS
  for (let round = 0; round <= rounds; round++) {
    // Each mode goes first in turn; the first round warms up and is not kept.
    const modes = Object.keys(MODES)
    for (const mode of modes.map((_, i) => modes[(i + round) % modes.length])) {
      const value = await measure(runtimes[mode].runtime, extras[mode])
      if (round > 0) samples[mode].push(value)
    }
  }
  const row = { name, modes: {} }
  for (const mode of Object.keys(MODES)) {
    row.modes[mode] = { median: median(samples[mode]), p99: quantile(samples[mode], 0.99), ...extras[mode] }
    if (mode !== 'in-process') row.modes[mode].ratio = row.modes[mode].median / median(samples['in-process'])
  }
  rows.push(row)
  console.log(name)
  for (const [mode, stats] of Object.entries(row.modes)) {
    const rest = Object.entries(stats).filter(([key]) => !['median', 'p99'].includes(key)).map(([key, value]) => `${key} ${value.toFixed(2)}`).join(', ')
    console.log(`  ${mode.padEnd(30)} median ${stats.median.toFixed(3)} p99 ${stats.p99.toFixed(3)}${rest ? `  ${rest}` : ''}`)
  }
}
for (const { dispose } of Object.values(runtimes)) await dispose()

// A helper's cold start: from spawning it to its report that it is confined and warm.
const cold = []
for (let i = 0; i < ROUNDS / 2; i++) {
  const pool = new HelperPool(native.helperPath(), { prepared: 0, heapMb: 512, runsPerHelper: 1 }, { spawn: native.spawnHelper, kill: native.killHelper, running: native.helperRunning })
  const started = performance.now()
  const helper = await pool.acquire()
  cold.push(performance.now() - started)
  helper.close()
  await pool.close()
}
rows.push({ name: 'helper cold start, spawn to confined and warm (ms)', modes: { process: { median: median(cold), p99: quantile(cold, 0.99) } } })
console.log(`helper cold start (ms): median ${median(cold).toFixed(2)} p99 ${quantile(cold, 0.99).toFixed(2)}`)

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim()
const machine = { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, kernel: os.release() }
writeFileSync(new URL('./isolation.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), commit, machine, node: process.version, rows }, null, 2)}\n`)
console.log('wrote bench/isolation.json')
