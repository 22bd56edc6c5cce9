// The pool of prepared isolates: it grows by the runs that find none prepared, up to its maximum,
// and shrinks back to its minimum as isolates sit unused.
import { createRequire } from 'node:module'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setup, sleep, tools } from './helpers.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')

/** What `read()` gives once it has equalled `target` for 100 ms, or after 3 s, whatever it is then. */
async function steadyAt(read, target) {
  let steadySince
  for (let waited = 0; waited < 3000; waited += 10) {
    if (read() !== target) steadySince = undefined
    else if ((steadySince ??= waited) + 100 <= waited) break
    await sleep(10)
  }
  return read()
}

test('runs that find no isolate prepared grow the pool, up to isolatePoolMax', async () => {
  const { runtime, dispose } = await setup({ isolatePool: 1, isolatePoolMax: 3 })
  assert.equal(await steadyAt(native.liveIsolateThreads, 1), 1)
  // Six runs at once, each held by its binding call until all have started: one finds the
  // prepared isolate, five start cold.
  let release
  const released = new Promise((resolve) => { release = resolve })
  let waiting = 0
  const bindings = tools({ hold: async () => { if (++waiting === 6) release(); await released; return waiting } })
  const results = await Promise.all(Array.from({ length: 6 }, (_, i) =>
    runtime.run({ program: `return [${i}, await tools.hold({})]`, bindings })))
  assert.deepStrictEqual(results.map(({ value }) => value), [0, 1, 2, 3, 4, 5].map((i) => [i, 6]))
  // Two of the cold threads stayed on: three isolates prepared, and the other three threads gone.
  assert.equal(await steadyAt(native.liveIsolateThreads, 3), 3)
  for (let i = 0; i < 5; i++) {
    assert.deepStrictEqual(await runtime.run({ program: `return ${i}`, bindings: [] }), { logs: [], value: i })
  }
  await dispose()
  assert.equal(native.liveIsolateThreads(), 0)
})

test('isolates unused for the pool\'s idle time go, down to its minimum', async () => {
  const pool = new native.NativePool(1, 4, 64, 300)
  assert.equal(await steadyAt(native.liveIsolateThreads, 1), 1)
  // Four runs submitted together: one prepared isolate, three cold threads, which all stay on.
  const request = (i) => JSON.stringify({
    program: `const end = Date.now() + 200; while (Date.now() < end); return ${i}`,
    params: ['console'], namespacesJson: '[]', computeMs: 10_000, maxWallMs: 10_000,
    maxOutputBytes: 1024, maxOldGenerationSizeMb: 64,
  })
  const settled = await Promise.all([0, 1, 2, 3].map((i) => new native.NativeRun().start(request(i), () => {}, pool)))
  assert.deepStrictEqual(settled.map(({ valueJson }) => valueJson), ['0', '1', '2', '3'])
  assert.equal(await steadyAt(native.liveIsolateThreads, 4), 4)
  // Unused for 300 ms, the three the pool grew by leave; its minimum stays.
  await sleep(400)
  assert.equal(await steadyAt(native.liveIsolateThreads, 1), 1)
  const again = await new native.NativeRun().start(request(4), () => {}, pool)
  assert.equal(again.valueJson, '4')
  await pool.close()
  assert.equal(native.liveIsolateThreads(), 0)
})
