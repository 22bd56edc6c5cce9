// A slice of the fuzzing campaign against engine 'monty' (bench/fuzz-monty.mjs) with a fixed seed:
// hostile Python programs four at a time, each settling within its wall ceiling and grace with a
// result of the seam's shape, the host within its memory bound and no run process left after.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { campaign } from '../bench/fuzz-monty.mjs'

test('120 hostile Python programs on engine monty: every run settles in shape, the host lives, nothing is left', async () => {
  const tally = await campaign({ seed: 7, count: 120 })
  assert.deepStrictEqual(tally.findings, [])
  // No run process died, as one did for a long string in a returned value before it was mended.
  assert.deepStrictEqual(tally.exits, [])
  assert.equal(tally.ran, 120)
  // The slice reaches every way a run ends but worker-exit.
  for (const kind of ['value', 'exception', 'timeout', 'invalid-output']) assert.ok(tally.kinds[kind] > 0, `no ${kind} in ${JSON.stringify(tally.kinds)}`)
})
