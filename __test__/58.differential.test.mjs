// A slice of the differential campaign (bench/differential.mjs) with a fixed seed: legitimate
// programs built around every guard, rewrite and replaced built-in, each run in the runtime and in
// plain Node 24, whose outcomes must be the same.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { campaign } from '../bench/differential.mjs'
import { setup } from './helpers.mjs'

let runtime, dispose
before(async () => ({ runtime, dispose } = await setup({ computeMs: 20_000 })))
after(() => dispose())

test('150 legitimate programs around the guards give what Node 24 gives', async () => {
  const { ran, findings } = await campaign(runtime, { seed: 1, count: 150 })
  assert.equal(ran, 150)
  assert.deepStrictEqual(findings, [])
})
