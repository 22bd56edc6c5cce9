// Runs where the addon is built (npm test), not in the release workflow's test job, which has only
// the built binary.
// The startup snapshot every isolate deserialises: its size is what each run's start pays for
// first, so it has a budget (#21), and growing past it must be a decision, not an accident.
import { statSync } from 'node:fs'
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
