#!/usr/bin/env node
// `npm run differential -- [--seed N] [--count N]`: a differential campaign of legitimate programs
// (bench/differential/generate.mjs), each run in our runtime and in plain Node 24
// (bench/differential/peer.mjs), their outcomes compared. Prints the tally; findings, with the
// seed and index that reproduce them, go to bench/differential-findings.json. Exits non-zero on
// a finding.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { nodeBinary } from '../scripts/node-major.mjs'
import { generate } from './differential/generate.mjs'

const peer = fileURLToPath(new URL('./differential/peer.mjs', import.meta.url))
const BATCH = 50

/** Runs programs `from`..`from + count - 1` of campaign `seed` in `runtime` and in Node 24;
 * resolves `{ ran, findings }`. */
export async function campaign(runtime, { seed = 1, from = 0, count = 200, onProgress = () => {} } = {}) {
  const node = nodeBinary(24)
  const findings = []
  for (let start = from; start < from + count; start += BATCH) {
    const cases = []
    for (let index = start; index < Math.min(start + BATCH, from + count); index++) cases.push({ index, ...generate(seed, index) })
    const expected = JSON.parse(execFileSync(node, [peer], { input: JSON.stringify(cases.map((c) => c.program)), maxBuffer: 1 << 28 }).toString())
    for (let i = 0; i < cases.length; i++) {
      const result = await runtime.run({ program: cases[i].program, bindings: [] })
      const outcome = result.error ? { error: `${result.error.kind}: ${result.error.message.split('\n')[0]}` } : { value: result.value }
      if (JSON.stringify(outcome) !== JSON.stringify(expected[i])) {
        const { index, value, size, operation } = cases[i]
        findings.push({ seed, index, value, size, operation, ours: outcome, node: expected[i] })
      }
    }
    onProgress(Math.min(start + BATCH, from + count) - from, findings.length)
  }
  return { ran: count, findings }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`)
    return at === -1 ? fallback : Number(process.argv[at + 1])
  }
  const { Context } = await import('@deepseek-ai/cordis')
  const { default: V8CodeRuntime } = await import('dsh-code-runtime-v8')
  const ctx = new Context()
  const fiber = ctx.plugin(V8CodeRuntime, { computeMs: 20_000 })
  await fiber
  const seed = option('seed', 1)
  const started = Date.now()
  const { ran, findings } = await campaign(ctx.get('codeRuntime'), {
    seed,
    from: option('from', 0),
    count: option('count', 1000),
    onProgress: (done, found) => process.stderr.write(`\r${done} programs, ${found} findings`),
  })
  await fiber.dispose()
  process.stderr.write('\n')
  console.log(`seed ${seed}: ${ran} programs in ${((Date.now() - started) / 1000).toFixed(0)} s, ${findings.length} findings`)
  writeFileSync(new URL('./differential-findings.json', import.meta.url), `${JSON.stringify(findings, null, 2)}\n`)
  process.exit(findings.length === 0 ? 0 : 1)
}
