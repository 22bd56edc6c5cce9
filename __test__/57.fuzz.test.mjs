// A slice of the fuzzing campaign (bench/fuzz.mjs) with a fixed seed: 1000 hostile programs in a pool
// of two host processes. Every program leaves its host alive, settles by its stop plus 150 ms, has
// its thread out of it 250 ms later and stays within 2 x cap + 100 MB of idle, or is one of the
// findings #23 leaves open (bench/fuzz/known-open.mjs). A finding that does not come back when its
// program runs again alone, in a host of its own, was the machine's timing and is only reported.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { campaign } from '../bench/fuzz.mjs'

test('1000 hostile programs of seed 7: no finding but the known open ones', { timeout: 600_000 }, async (t) => {
  const tally = await campaign({ seed: 7, count: 1000, workers: 2 })
  assert.equal(tally.ran, 1000)
  for (const finding of tally.findings) t.diagnostic(`${finding.index}: ${finding.known ?? 'new'}${finding.reproduced === false ? ', not reproduced alone' : ''}: ${finding.problems.join('; ')}`)
  const fresh = tally.findings.filter((finding) => finding.known === undefined && finding.reproduced !== false)
  assert.deepStrictEqual(fresh, [])
  assert.ok(tally.clean >= 970, `only ${tally.clean} of 1000 ran clean`)
})
