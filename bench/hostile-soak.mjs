#!/usr/bin/env node
// `npm run hostile-soak [-- runs]`: 1 000 hostile-matrix runs in a row in one host (every value at
// every boundary, in turn, each stopped by a 150 ms compute budget), with resident memory,
// threads, file descriptors and idle CPU sampled every 100 runs. Fails if they climb.
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime from 'dsh-code-runtime-v8'
import { BOUNDARIES, HOSTILE_VALUES } from '../__test__/fixtures/hostile-matrix.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')
const runs = Number(process.argv[2] ?? 1000)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const bindings = [{
  global: 'tools',
  functions: { echo: async (value) => value, fail: async () => { throw new Error('refused') } },
  errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
}]
const cells = Object.values(HOSTILE_VALUES).flatMap((value) => Object.values(BOUNDARIES).map((boundary) => boundary.replace('V', value)))

const ctx = new Context()
const fiber = await ctx.plugin(V8CodeRuntime, { computeMs: 150, maxWallMs: 5_000 })
const runtime = ctx.get('codeRuntime')
const sample = async () => {
  // Threads that a built-in held past their run come back when it returns.
  while (native.runawayThreads().running > 0) await sleep(50)
  globalThis.gc?.()
  await sleep(1100)
  const cpu = process.cpuUsage()
  await sleep(300)
  const idle = process.cpuUsage(cpu)
  return {
    rssMb: Math.round(process.memoryUsage.rss() / 2 ** 20),
    mallocMb: Math.round((native.mallocInUseBytes() ?? 0) / 2 ** 20),
    nodeHeapMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    externalMb: Math.round(process.memoryUsage().external / 2 ** 20),
    threads: readdirSync('/proc/self/task').length,
    fds: readdirSync('/proc/self/fd').length,
    idleCpuMs: Math.round((idle.user + idle.system) / 1000),
  }
}
const samples = [await sample()]
console.log(`start: ${JSON.stringify(samples[0])}`)
for (let run = 1; run <= runs; run++) {
  await runtime.run({ program: cells[run % cells.length], bindings })
  if (run % 100 === 0) {
    samples.push(await sample())
    console.log(`${run} runs: ${JSON.stringify(samples.at(-1))}, runaway threads so far ${native.runawayThreads().total}`)
  }
}
await fiber.dispose()
const half = samples.slice(Math.floor(samples.length / 2))
const rise = (key) => half.at(-1)[key] - half[0][key]
const flat = rise('rssMb') < 20 && rise('threads') <= 0 && rise('fds') <= 0 && half.every((s) => s.idleCpuMs < 50)
console.log(flat ? 'flat over the second half' : `climbing over the second half: rss +${rise('rssMb')} MB, threads +${rise('threads')}, fds +${rise('fds')}`)
process.exit(flat ? 0 : 1)
