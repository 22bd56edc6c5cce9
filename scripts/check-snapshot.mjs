#!/usr/bin/env node
// `npm run check:snapshot [-- runs]`: runs the snapshot step many times in a row (200 unless
// told) and fails unless every run succeeds and writes the same bytes as the first.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CARGO_FLAGS, cargoEnv, hostTarget, root, run } from './cargo.mjs'

const runs = Number(process.argv[2] ?? 200)
const target = hostTarget()
if (run('cargo', ['build', '--bin', 'dsh-snapshot', '--release', '--target', target, ...CARGO_FLAGS]) !== 0) process.exit(1)
const tool = join(root, 'target', target, 'release', 'dsh-snapshot')
const dir = mkdtempSync(join(tmpdir(), 'dsh-snapshot-'))
const output = join(dir, 'snapshot.bin')
const env = cargoEnv()
let failures = 0
const digests = new Map()
try {
  for (let index = 1; index <= runs; index++) {
    const done = spawnSync(tool, [output], { env, encoding: 'utf8' })
    if (done.status !== 0) {
      failures++
      const why = done.signal ?? `exit ${done.status}`
      console.log(`run ${index}: ${why}: ${(done.stderr ?? '').trim().split('\n').slice(-3).join(' | ')}`)
      continue
    }
    const digest = createHash('sha256').update(readFileSync(output)).digest('hex')
    digests.set(digest, (digests.get(digest) ?? 0) + 1)
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
for (const [digest, count] of digests) console.log(`${count} run(s) wrote sha256 ${digest}`)
console.log(`${runs - failures} passed, ${failures} failed`)
if (failures > 0 || digests.size !== 1) {
  if (digests.size > 1) console.log(`snapshots differ: ${digests.size} distinct outputs`)
  process.exit(1)
}
