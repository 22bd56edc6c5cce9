// Runs where the addon is built (npm test), not in the release workflow's test job, which has only
// the built binary.
// The startup snapshot every isolate deserialises: its size is what each run's start pays for
// first, so it has a budget (#21), and growing past it must be a decision, not an accident.
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import assert from 'node:assert/strict'

// deno_core's snapshot is V8's startup data, then a sidecar, then the startup data's length (8
// bytes, little-endian). Every isolate deserialises the startup data: that part is what a run's
// start pays for, about 3 ms for 1.2 MB here (docs/isolates.md). The sidecar is mostly the world's
// JavaScript source text, which V8's heap refers to in place as external strings: shared by every
// isolate, never copied into one, so it has a budget of its own.
const STARTUP_DATA_BUDGET_BYTES = 1.25 * 1024 * 1024
const SIDECAR_BUDGET_BYTES = 1024 * 1024

test('the startup snapshot stays within its budgets', () => {
  const snapshot = readFileSync(new URL('../target/dsh-snapshot.release.bin', import.meta.url))
  const startupData = Number(snapshot.readBigUInt64LE(snapshot.length - 8))
  const sidecar = snapshot.length - 8 - startupData
  assert.ok(startupData > 100_000 && sidecar > 0, `${startupData} bytes of startup data: not a snapshot of the world`)
  assert.ok(startupData <= STARTUP_DATA_BUDGET_BYTES, `V8's startup data is ${startupData} bytes, past its budget of ${STARTUP_DATA_BUDGET_BYTES}`)
  assert.ok(sidecar <= SIDECAR_BUDGET_BYTES, `the sidecar (the world's source text) is ${sidecar} bytes, past its budget of ${SIDECAR_BUDGET_BYTES}`)
})

// The build is deterministic (README): the snapshot step, run again, writes the bytes the addon
// embeds: no clock of the builder's (deno_web's time origin) is written into them.
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
