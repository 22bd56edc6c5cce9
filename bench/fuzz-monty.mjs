#!/usr/bin/env node
// `npm run fuzz:monty -- [--seed N] [--count N] [--minutes M] [--concurrency C]`: a fuzzing campaign
// of hostile Python programs against engine 'monty', in this process. Each program is a few
// fragments (runaway loops and recursion, memory and output floods, values JSON cannot carry, deep
// nesting, binding floods and misuse, sleeps, the stand-ins misused), each built from the campaign's
// seed and the program's index. Every run must settle within its wall ceiling plus its grace, with a
// result of the seam's shape; the host must live, stay within its memory bound, and have no run
// process left once the runtime is disposed. Prints programs per minute and the result kinds; a
// finding names its seed and index. Exits non-zero on any finding.
import { Context } from '@deepseek-ai/cordis'
import PythonCodeRuntime from 'dsh-code-runtime-v8/python'
import { random } from './fuzz/generate.mjs'

const WALL_MS = 4000
const GRACE_MS = 1000
/** A run's settling may come this late past its wall ceiling and grace on a busy machine. */
const SETTLE_SLACK_MS = 1500
/** The host's resident memory may grow this much over a campaign. */
const HOST_GROWTH_BYTES = 256 * 2 ** 20
const KINDS = new Set(['exception', 'timeout', 'invalid-output', 'output-limit', 'worker-exit'])

/** The hostile fuzzer's generator, for `seed` and `index`. */
const randomOf = (seed, index) => random((seed * 0x9e3779b1 + index * 0x85ebca6b) >>> 0)

/** Fragments of Python, each a function of a random source to its text. */
const FRAGMENTS = [
  (r) => `def down(n):\n    return down(n + 1)\ndown(${Math.floor(r() * 10)})`,
  (r) => `x = []\nfor i in range(${[10, 1000, 100000, 1000000][Math.floor(r() * 4)]}):\n    x = [x]\nout.append(x)`,
  (r) => `out.append(10 ** (10 ** ${Math.floor(r() * 8)}))`,
  (r) => `out.append("a" * (1 << ${Math.floor(r() * 34)}))`,
  (r) => `grow = []\nwhile len(grow) < ${10 ** Math.floor(r() * 8)}:\n    grow.append(len(grow))`,
  (r) => `for i in range(${10 ** Math.floor(r() * 6)}):\n    print("line", i, "x" * ${Math.floor(r() * 200)})`,
  () => 'while True:\n    pass',
  (r) => `raise ${['ValueError', 'KeyError', 'RuntimeError', 'ZeroDivisionError', 'MemoryError', 'RecursionError'][Math.floor(r() * 6)]}("boom")`,
  (r) => `out.append(${['float("nan")', 'float("inf")', '{1, 2}', 'b"bytes"', '2 ** 64', '{1: 2}', '(1, [2, {"k": 3}])', 'lambda: 1', 'None', '-0.0', '"\\ud800"', '"\\x00"'][Math.floor(r() * 12)]})`,
  (r) => `import asyncio\nout.append(await asyncio.gather(*[tools.echo({"i": i}) for i in range(${10 ** Math.floor(r() * 4)})]))`,
  (r) => `out.append(await tools.echo(${['{1, 2}', '2 ** 70', 'float("nan")', '"x" * 100000', '[[[[[]]]]]', 'None', 'tools'][Math.floor(r() * 7)]}))`,
  () => 'try:\n    await tools.fail({"why": "no"})\nexcept ToolCallError as e:\n    out.append([str(e), e.toolName])',
  () => 'await tools.fail({})',
  (r) => `out.append(await tools.slow(${Math.floor(r() * 300)}))`,
  (r) => `import asyncio\nawait asyncio.sleep(${[0, 0.001, -1, 0.2, 10][Math.floor(r() * 5)]})`,
  (r) => `import time\ntime.sleep(${[0, 0.001, 0.05, 10][Math.floor(r() * 4)]})`,
  (r) => `import json\nout.append(json.loads("[" * ${10 ** Math.floor(r() * 6)} + "]" * ${10 ** Math.floor(r() * 6)}))`,
  () => 'import re\nout.append(bool(re.match(r"(a+)+$", "a" * 40 + "b")))',
  (r) => `out.append(f"{1:>{${10 ** Math.floor(r() * 10)}}}"[:3])`,
  () => 'out.append(sorted([1, "a", None]))',
  (r) => `import statistics\nout.append(statistics.${['mean', 'median', 'stdev', 'mode'][Math.floor(r() * 4)]}(${['[]', '["a", "b"]', '[1e308, 1e308]', '[True, 2.5, 10**30]', '[float("nan"), 1]'][Math.floor(r() * 5)]}))`,
  () => 'import uuid\nout.append(str(uuid.UUID("nothex")))',
  () => 'import heapq\nh = [3, "a"]\nheapq.heapify(h)',
  (r) => `out.append(${'('.repeat(Math.floor(r() * 300))}1${')'.repeat(Math.floor(r() * 300))})`,
  () => 'def f(:\n    pass',
  (r) => `import os\nout.append(len(os.urandom(${[0, 16, 1 << 20, 1 << 40][Math.floor(r() * 4)]})))`,
  () => 'open("/etc/passwd").read()',
  () => 'import os\nout.append(os.getenv("HOME"))',
  (r) => `out.append(round(${(r() * 1000).toFixed(4)}, ${Math.floor(r() * 5)}))`,
  (r) => `return ${['1', '"done"', 'out', 'None', '[out, out]'][Math.floor(r() * 5)]}`,
]

/** Program `index` of campaign `seed`: one to four fragments, each in a try unless it is the last. */
export function generate(seed, index) {
  const random = randomOf(seed, index)
  const count = 1 + Math.floor(random() * 4)
  const parts = []
  for (let i = 0; i < count; i++) {
    const fragment = FRAGMENTS[Math.floor(random() * FRAGMENTS.length)](random)
    const indented = fragment.split('\n').map((line) => `    ${line}`).join('\n')
    parts.push(i < count - 1 && random() < 0.7 ? `try:\n${indented}\nexcept Exception as e:\n    out.append(type(e).__name__)` : fragment)
  }
  return `out = []\n${parts.join('\n')}\nreturn out`
}

const bindings = [{
  global: 'tools',
  errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
  functions: {
    echo: (value) => value,
    fail: () => { throw new Error('refused') },
    slow: (ms) => new Promise((resolve) => setTimeout(() => resolve(ms), ms)),
  },
}]

/** What is wrong with `result`, which settled `elapsed` ms after its run began. */
function problemsOf(result, elapsed) {
  const problems = []
  if (elapsed > WALL_MS + GRACE_MS + SETTLE_SLACK_MS) problems.push(`settled ${Math.round(elapsed)} ms after it began`)
  if (!Array.isArray(result?.logs) || !result.logs.every((line) => typeof line === 'string')) problems.push('logs are not strings')
  if (result?.error !== undefined && ('value' in result || !KINDS.has(result.error.kind) || typeof result.error.message !== 'string')) {
    problems.push(`a malformed error ${JSON.stringify(result.error).slice(0, 200)}`)
  }
  return problems
}

/** The pids of the processes whose parent is `pid`. */
async function childrenOf(pid) {
  const { readFileSync, readdirSync } = await import('node:fs')
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).filter((name) => {
    try {
      return readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid)
    } catch {
      return false
    }
  }).map(Number)
}

/** Runs `count` programs of campaign `seed` (or as many as fit in `minutes`); resolves the tally. */
export async function campaign({ seed = 1, count = Infinity, minutes = Infinity, concurrency = 4 } = {}) {
  const ctx = new Context()
  const fiber = await ctx.plugin(PythonCodeRuntime, { engine: 'monty', cpuSeconds: 1, maxWallMs: WALL_MS, graceMs: GRACE_MS, addressSpaceMb: 512, maxLogBytes: 4096 })
  const runtime = ctx.get('codeRuntime')
  const deadline = Date.now() + minutes * 60_000
  const kinds = {}
  const findings = []
  const exits = []
  let next = 0
  let ran = 0
  const startRss = process.memoryUsage().rss
  const started = performance.now()
  const worker = async () => {
    while (next < count && Date.now() < deadline) {
      const index = next++
      const program = generate(seed, index)
      const began = performance.now()
      let result
      try {
        result = await runtime.run({ program, bindings })
      } catch (error) {
        findings.push({ seed, index, problems: [`run() rejected: ${error.message}`] })
        continue
      }
      ran++
      const kind = result.error?.kind ?? 'value'
      kinds[kind] = (kinds[kind] ?? 0) + 1
      // A run process that died is no finding (its run settles, the host lives), and is listed.
      if (kind === 'worker-exit') exits.push({ index, message: result.error.message })
      const problems = problemsOf(result, performance.now() - began)
      if (problems.length > 0) findings.push({ seed, index, problems })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const minutesTaken = (performance.now() - started) / 60_000
  const growth = process.memoryUsage().rss - startRss
  if (growth > HOST_GROWTH_BYTES) findings.push({ seed, problems: [`the host grew ${Math.round(growth / 2 ** 20)} MiB`] })
  const helpers = await childrenOf(process.pid)
  await fiber.dispose()
  // The zygote reaps its runs as it goes, and is gone itself once the runtime is disposed.
  let left = []
  for (let wait = 0; wait < 50; wait++) {
    left = (await childrenOf(process.pid)).filter((pid) => helpers.includes(pid))
    if (left.length === 0) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  if (left.length > 0) findings.push({ seed, problems: [`${left.length} processes left after disposal`] })
  return { ran, kinds, findings, exits, perMinute: Math.round(ran / minutesTaken), growthMiB: Math.round(growth / 2 ** 20) }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').at(-1))) {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`)
    return at === -1 ? fallback : Number(process.argv[at + 1])
  }
  const tally = await campaign({
    seed: option('seed', 1),
    count: option('count', Infinity),
    minutes: option('minutes', option('count', 0) ? Infinity : 5),
    concurrency: option('concurrency', 4),
  })
  console.log(JSON.stringify(tally, null, 2))
  process.exit(tally.findings.length > 0 ? 1 : 0)
}
