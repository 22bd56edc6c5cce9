#!/usr/bin/env node
// `npm run bench:python`: PythonCodeRuntime beside what the seam's Python backend does per run,
// spawning `python3 -I` (bare, and importing what a run needs), in turns in one process: `return 1`
// with a prepared process, with none (forked from the zygote) and back to back; a binding round
// trip, one after another (beside the floor asyncio and a socket set) and gathered; 100 runs
// awaiting a binding at once, with the memory of their processes; and CPU-bound code, against the
// same interpreter spawned. Engine 'monty' is a peer in each row it can run. Writes
// bench/python.json with the date, commit and machine.
import { execFile, execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Socket } from 'node:net'
import os from 'node:os'
import { promisify } from 'node:util'
import { Context } from '@deepseek-ai/cordis'
import PythonCodeRuntime from 'dsh-code-runtime-v8/python'
import { childPids } from '../__test__/fixtures/helper-processes.mjs'
import { median, quantile } from './stats.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')
const run = promisify(execFile)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const ROUNDS = process.argv.includes('--quick') ? 10 : 30

async function load(config) {
  const ctx = new Context()
  const fiber = ctx.plugin(PythonCodeRuntime, { cpuSeconds: 600, ...config })
  await fiber
  return { runtime: ctx.get('codeRuntime'), dispose: () => fiber.dispose() }
}

const prepared = await load({ prepared: 2 })
const unprepared = await load({ prepared: 0 })
const monty = await load({ engine: 'monty', prepared: 2 })
const python = prepared.runtime.interpreter.executable
const tools = (functions) => [{ global: 'tools', functions }]
/** Proportional set size of a process, in KiB: its share of the pages it shares with the zygote. */
const pssKb = (pid) => Number(/Pss:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0)

const spawned = (program) => async () => {
  const started = performance.now()
  await run(python, ['-I', '-c', program], { env: {} })
  return performance.now() - started
}
const timedRun = (runtime, program, bindings = []) => async () => {
  const started = performance.now()
  const result = await runtime.run({ program, bindings })
  if (result.error) throw new Error(JSON.stringify(result.error))
  return performance.now() - started
}
const reported = (runtime, program, bindings = []) => async () => {
  const result = await runtime.run({ program, bindings })
  if (result.error) throw new Error(JSON.stringify(result.error))
  return result.value
}
/** The floor under a round trip: an asyncio loop awaiting a future per line over a Unix socket,
 * which Node echoes as raw bytes (no JSON, no checks, no bindings, no sandbox). */
const FLOOR = `
import asyncio, os, time
loop = asyncio.new_event_loop()
os.set_blocking(0, False)
waiting = []
def readable():
    for _ in os.read(0, 65536).split(b'\\n')[:-1]:
        waiting.pop(0).set_result(None)
loop.add_reader(0, readable)
async def main():
    started = time.perf_counter()
    for _ in range(500):
        future = loop.create_future()
        waiting.append(future)
        os.write(0, b'x\\n')
        await future
    os.write(2, b'%f' % ((time.perf_counter() - started) * 2000))
loop.run_until_complete(main())
`
function asyncioFloor() {
  return new Promise((resolve) => {
    const spawned = native.spawnHelper(python, ['-I', '-c', FLOOR], () => {}, true)
    const socket = new Socket({ fd: spawned.stdin, readable: true, writable: true })
    const stderr = new Socket({ fd: spawned.stderr, readable: true })
    new Socket({ fd: spawned.stdout, readable: true }).resume()
    socket.on('data', (chunk) => socket.write(chunk))
    let said = ''
    stderr.on('data', (chunk) => { said += chunk })
    stderr.on('close', () => { socket.destroy(); resolve(Number(said)) })
  })
}
const CPU_BOUND = 'sum(i * i for i in range(3_000_000))'

const ROWS = {
  'return 1, prepared (ms)': {
    ours: async () => { await sleep(30); return timedRun(prepared.runtime, 'return 1')() },
    'spawn python3 -I': spawned('pass'),
    'spawn python3 -I, importing asyncio and json': spawned('import asyncio, json'),
    "engine 'monty'": async () => { await sleep(30); return timedRun(monty.runtime, 'return 1')() },
  },
  'return 1, no prepared process (ms)': {
    ours: timedRun(unprepared.runtime, 'return 1'),
  },
  'return 1, back to back (ms per run)': {
    ours: async () => {
      const started = performance.now()
      for (let i = 0; i < 20; i++) await timedRun(prepared.runtime, 'return 1')()
      return (performance.now() - started) / 20
    },
    "engine 'monty'": async () => {
      const started = performance.now()
      for (let i = 0; i < 20; i++) await timedRun(monty.runtime, 'return 1')()
      return (performance.now() - started) / 20
    },
  },
  'binding round trip, one after another (µs)': {
    ours: reported(prepared.runtime, 'import time\nt = time.perf_counter()\nfor i in range(500):\n    await tools.echo({"i": i})\nreturn (time.perf_counter() - t) * 2000', tools({ echo: (value) => value })),
    'asyncio and a raw echo, unconfined (the floor)': asyncioFloor,
    "engine 'monty'": reported(monty.runtime, 'import time\nt = time.perf_counter()\nfor i in range(500):\n    await tools.echo({"i": i})\nreturn (time.perf_counter() - t) * 2000', tools({ echo: (value) => value })),
  },
  'binding round trip, 500 gathered (µs per call)': {
    ours: reported(prepared.runtime, 'import asyncio, time\nt = time.perf_counter()\nawait asyncio.gather(*[tools.echo({"i": i}) for i in range(500)])\nreturn (time.perf_counter() - t) * 2000', tools({ echo: (value) => value })),
    "engine 'monty'": reported(monty.runtime, 'import asyncio, time\nt = time.perf_counter()\nawait asyncio.gather(*[tools.echo({"i": i}) for i in range(500)])\nreturn (time.perf_counter() - t) * 2000', tools({ echo: (value) => value })),
  },
  'CPU-bound, sum of 3e6 squares (ms)': {
    ours: reported(prepared.runtime, `import time\nt = time.perf_counter()\n${CPU_BOUND}\nreturn (time.perf_counter() - t) * 1000`),
    'spawn python3 -I': async () => {
      const { stdout } = await run(python, ['-I', '-c', `import time\nt = time.perf_counter()\n${CPU_BOUND}\nprint((time.perf_counter() - t) * 1000)`], { env: {} })
      return Number(stdout)
    },
    "engine 'monty'": reported(monty.runtime, `import time\nt = time.perf_counter()\n${CPU_BOUND}\nreturn (time.perf_counter() - t) * 1000`),
  },
}

/** 100 runs of `runtime` at once, each awaiting a binding: until all have called it, then until all
 * settle; the PSS of their processes, the zygote's children while they wait. */
async function concurrent(runtime, extra) {
  let release
  const gate = new Promise((resolve) => { release = resolve })
  let called = 0
  const bindings = tools({ wait: async () => { called++; await gate; return 1 } })
  const started = performance.now()
  const runs = Array.from({ length: 100 }, () => runtime.run({ program: 'return await tools.wait({})', bindings }))
  while (called < 100) await sleep(1)
  extra.untilAllCalledMs = performance.now() - started
  // The runtime's zygote: the one child of this process with a hundred of its own.
  const zygote = childPids(process.pid).find((pid) => childPids(pid).length >= 100)
  const pids = childPids(zygote)
  extra.pssPerRunKb = pids.reduce((sum, pid) => sum + pssKb(pid), 0) / pids.length
  release()
  const results = await Promise.all(runs)
  if (results.some((result) => result.value !== 1)) throw new Error('a concurrent run failed')
  return performance.now() - started
}

await sleep(500)
const rows = []
for (const [name, peers] of Object.entries(ROWS)) {
  const samples = Object.fromEntries(Object.keys(peers).map((peer) => [peer, []]))
  for (let round = 0; round <= ROUNDS; round++) {
    // Each peer goes first in turn; the first round warms up and is not kept.
    const order = Object.keys(peers)
    for (const peer of order.map((_, i) => order[(i + round) % order.length])) {
      const value = await peers[peer]()
      if (round > 0) samples[peer].push(value)
    }
  }
  const row = { name, peers: {} }
  for (const peer of Object.keys(peers)) {
    row.peers[peer] = { median: median(samples[peer]), p99: quantile(samples[peer], 0.99) }
    if (peer !== 'ours') row.peers[peer].ratioToOurs = row.peers[peer].median / median(samples.ours)
  }
  rows.push(row)
  console.log(name)
  for (const [peer, stats] of Object.entries(row.peers)) {
    console.log(`  ${peer.padEnd(46)} median ${stats.median.toFixed(3)} p99 ${stats.p99.toFixed(3)}${stats.ratioToOurs ? `  ${stats.ratioToOurs.toFixed(1)}x ours` : ''}`)
  }
}
for (const [engine, runtime] of [['cpython', prepared.runtime], ['monty', monty.runtime]]) {
  const extra = {}
  const concurrentMs = []
  for (let round = 0; round <= Math.ceil(ROUNDS / 6); round++) {
    const value = await concurrent(runtime, extra)
    if (round > 0) concurrentMs.push(value)
  }
  const name = `100 concurrent runs awaiting a binding, engine '${engine}' (ms)`
  rows.push({ name, peers: { ours: { median: median(concurrentMs), p99: quantile(concurrentMs, 0.99), ...extra } } })
  console.log(`${name}: median ${median(concurrentMs).toFixed(1)}; all called after ${extra.untilAllCalledMs.toFixed(1)} ms; ${extra.pssPerRunKb.toFixed(0)} KiB PSS per run process`)
}
await prepared.dispose()
await unprepared.dispose()
await monty.dispose()

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim()
const machine = { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, kernel: os.release() }
const interpreter = `${python} (Python ${prepared.runtime.interpreter.version})`
writeFileSync(new URL('./python.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), commit, machine, node: process.version, interpreter, rows }, null, 2)}\n`)
console.log('wrote bench/python.json')
