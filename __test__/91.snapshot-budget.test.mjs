// Runs where the addon is built (npm test), not in the release workflow's test job, which has only
// the built binary.
// The startup snapshot every isolate deserialises: its size is what each run's start pays for
// first, so it has a budget (#21), and growing past it must be a decision, not an accident.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import assert from 'node:assert/strict'

// 1.87 MB at the time of writing (the world, the web platform and durable runs); 0.75 MB before
// the web platform.
const SNAPSHOT_BUDGET_BYTES = 2 * 1024 * 1024

test('the startup snapshot stays within its budget', () => {
  const { size } = statSync(new URL('../target/dsh-snapshot.release.bin', import.meta.url))
  assert.ok(size > 100_000, `${size} bytes: not a snapshot of the world`)
  assert.ok(size <= SNAPSHOT_BUDGET_BYTES, `the snapshot is ${size} bytes, past its budget of ${SNAPSHOT_BUDGET_BYTES}`)
})

// The build is deterministic (README): the snapshot step, run again, writes the bytes the addon
// embeds. It once wrote the builder's clock into them (deno_web's time origin).
test('the snapshot step writes the same bytes every time, those the addon embeds', () => {
  const triple = /^host: (\S+)$/m.exec(spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout)[1]
  const tool = fileURLToPath(new URL(`../target/${triple}/release/dsh-snapshot`, import.meta.url))
  const embedded = digest(readFileSync(new URL('../target/dsh-snapshot.release.bin', import.meta.url)))
  const dir = mkdtempSync(join(tmpdir(), 'dsh-snapshot-'))
  try {
    for (let run = 0; run < 4; run++) {
      const output = join(dir, `snapshot-${run}.bin`)
      const done = spawnSync(tool, [output], { encoding: 'utf8' })
      assert.equal(done.status, 0, done.stderr)
      assert.equal(digest(readFileSync(output)), embedded, `run ${run} wrote other bytes`)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

const digest = (bytes) => createHash('sha256').update(bytes).digest('hex')
