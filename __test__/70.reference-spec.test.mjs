// PORT of the reference backend's own integration suite, run against OUR plugin.
//
// Source: github.com/deepseek-ai/deepseek-harness,
//   packages/code-runtime/code-runtime-worker-thread/tests/runtime.spec.ts
//   at tag dsh-v0.1.0-rc.8 = commit 141eb6fef83422698aef7a981029e843e8161534
//   (merge of the release PR; release commit f1f7dc36faa4a1548b742fb3f63cac8651c166cb "release(dsh): 0.1.0-rc.8",
//   which sets the package to 0.1.0-rc.8; file blob 4f02fb818ead00e99eaa5d6973c626b7c996a46d, last changed in
//   a2d0f7f41121ee81911dd1badbf248edd3f2ab70; unchanged through dsh-v0.1.1-rc.2).
//
// This is a port: vitest → node:test + node:assert/strict, TypeScript → plain ESM JavaScript. Test and
// describe names, programs, configs, assertions and expected values are the reference's, unchanged but for
// one value: the descriptor test expects `isolation === 'v8-isolate'`, the seam's descriptor for this
// backend (seam-contract §1 and §21), where the reference names itself 'worker-thread'. Differences:
//   - `setup()` comes from ./helpers.mjs and loads OUR plugin (V8CodeRuntime); where the spec names
//     `WorkerThreadCodeRuntime` directly, `V8CodeRuntime` is used.
//   - vitest matchers are replaced by small helpers below with vitest's semantics (`toEqual` ignores
//     undefined-valued properties and does not compare prototypes; `rejects.toThrow(re)` tests the
//     rejection's `.message`; `toMatchObject` is a subset match).
//   - `it(name, fn, timeout)` keeps vitest's per-test timeouts and vitest's default of 5000 ms.
//   - Housekeeping only: plugin fibers loaded by a test are disposed after it (the reference leaves them).
//
// Left out (12 of 58): these tests forge worker-port traffic — the program imports `node:worker_threads`
// and posts raw messages on `parentPort` to the host. An isolate backend has no worker MessagePort the
// program can reach, so there is nothing to forge (seam-contract §21/§22.3, tag [N]):
//   budgets and containment:
//     - 'drains pipe output queued before terminal worker teardown completes' (posts a forged `done` on parentPort)
//   hostile programs:
//     - 'survives forged port traffic: unknown binding names, duplicate ids, junk shapes'
//     - 'survives arbitrary junk on the port: non-objects, junk types, malformed calls, logs, and dones'
//     - 'fails forged log floods and forged done values through the same outer cap'
//     - 're-caps an oversized forged done value at the host boundary'
//     - 'bounds one oversized forged log while retaining its fitting escaped prefix'
//     - 'drops a malformed forged done carrying both value and error'
//     - 'contains a deeply nested forged completion without overflowing the host meter'
//     - 'turns forged over-limit error text into output-limit at the host'
//     - 'rejects forged lossy binding arguments again at the host boundary'
//     - 'revalidates a forged lossy completion at the host boundary'
//     - 'honors a forged worker-side output-limit signal'
import { describe, test, afterEach } from 'node:test'
import assert from 'node:assert/strict'
import { inspect } from 'node:util'
import { Context } from '@deepseek-ai/cordis'
import { V8CodeRuntime, setup as loadPlugin } from './helpers.mjs'

// ---- harness: vitest shapes over node:test --------------------------------------------------------

/** vitest's `it(name, fn, timeout?)`; vitest's default test timeout is 5000 ms. */
const it = (name, fn, timeout = 5_000) => test(name, { timeout }, fn)

/** Fibers loaded during the current test, disposed after it. */
const fibers = []
afterEach(async () => {
  for (const fiber of fibers.splice(0)) await fiber.dispose()
})

/** Where runs execute: this suite runs as it is, and again with `DSH_TEST_ISOLATION=process`
 * (80.process.test.mjs). */
const ISOLATION = process.env.DSH_TEST_ISOLATION ?? 'v8-isolate'

/** The reference's `setup(config)`: a fresh context with the plugin loaded. */
async function setup(config = {}) {
  const { ctx, fiber, runtime } = await loadPlugin({ isolation: ISOLATION, ...config })
  fibers.push(fiber)
  return { ctx, runtime }
}

/** Convenience: one namespace `tools` with the given functions. */
function tools(functions) {
  return [{
    global: 'tools',
    functions,
    errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
  }]
}

// vitest's `equals(a, b)` as used by `toEqual` (jasmine-derived, non-strict): Object.is for primitives,
// same Object.prototype.toString class, equal array lengths, and own enumerable keys compared with
// undefined-valued keys ignored; prototypes/constructors are NOT compared.
function vitestEquals(a, b, aStack = [], bStack = []) {
  if (a instanceof Error && b instanceof Error) return a.message === b.message
  if (Object.is(a, b)) return true
  if (a === null || b === null) return a === b
  const className = Object.prototype.toString.call(a)
  if (className !== Object.prototype.toString.call(b)) return false
  switch (className) {
    case '[object Boolean]':
    case '[object String]':
    case '[object Number]':
      if (typeof a !== typeof b) return false
      if (typeof a !== 'object' && typeof b !== 'object') return Object.is(a, b)
      return Object.is(a.valueOf(), b.valueOf())
    case '[object Date]': {
      const numA = +a
      const numB = +b
      return numA === numB || (Number.isNaN(numA) && Number.isNaN(numB))
    }
    case '[object RegExp]':
      return a.source === b.source && a.flags === b.flags
  }
  if (typeof a !== 'object' || typeof b !== 'object') return false
  let length = aStack.length
  while (length--) {
    if (aStack[length] === a) return bStack[length] === b
    if (bStack[length] === b) return false
  }
  aStack.push(a)
  bStack.push(b)
  if (className === '[object Array]' && a.length !== b.length) return false
  const hasDefinedKey = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== undefined
  const keys = (obj) => {
    const out = []
    for (const key in obj) if (hasDefinedKey(obj, key)) out.push(key)
    return out.concat(Object.getOwnPropertySymbols(obj).filter(s => Object.getOwnPropertyDescriptor(obj, s).enumerable))
  }
  const aKeys = keys(a)
  let size = aKeys.length
  if (keys(b).length !== size) return false
  while (size--) {
    const key = aKeys[size]
    if (!(hasDefinedKey(b, key) && vitestEquals(a[key], b[key], aStack, bStack))) return false
  }
  aStack.pop()
  bStack.pop()
  return true
}

const show = (value) => inspect(value, { depth: 6, maxArrayLength: 20, maxStringLength: 200 })

/** `expect(actual).toEqual(expected)`. */
function toEqual(actual, expected) {
  if (vitestEquals(actual, expected)) return
  assert.deepStrictEqual(actual, expected) // fails with node's diff
  assert.fail(`expected ${show(actual)} to deeply equal ${show(expected)}`)
}

/** `expect(actual).toContain(item)`: string inclusion or strict-equal array membership. */
function toContain(actual, item) {
  assert.ok(typeof actual === 'string' || Array.isArray(actual), `toContain: ${show(actual)} is neither a string nor an array`)
  assert.ok(actual.includes(item), `expected ${show(actual)} to contain ${show(item)}`)
}

/** `expect(actual).toHaveLength(n)`. */
function toHaveLength(actual, n) {
  assert.ok(typeof actual === 'string' || (actual != null && 'length' in Object(actual)), `toHaveLength: ${show(actual)} has no length`)
  assert.strictEqual(actual.length, n, `expected length ${n}, got ${actual.length}`)
}

const isNumber = (x) => typeof x === 'number' || typeof x === 'bigint'
function toBeGreaterThan(actual, n) {
  assert.ok(isNumber(actual) && actual > n, `expected ${show(actual)} to be greater than ${n}`)
}
function toBeLessThan(actual, n) {
  assert.ok(isNumber(actual) && actual < n, `expected ${show(actual)} to be less than ${n}`)
}
function toBeLessThanOrEqual(actual, n) {
  assert.ok(isNumber(actual) && actual <= n, `expected ${show(actual)} to be less than or equal to ${n}`)
}

/** `await expect(promise).rejects.toThrow(pattern)`: the rejection's `.message` must match. */
async function rejectsToThrow(promise, pattern) {
  let outcome
  try {
    outcome = { value: await promise }
  } catch (error) {
    outcome = { error }
  }
  assert.ok('error' in outcome, `expected a rejection matching ${pattern}, but the promise resolved ${show(outcome.value)}`)
  const { error } = outcome
  assert.ok(error, `expected a rejection matching ${pattern}, got ${show(error)}`)
  assert.match(String(error.message), pattern)
}

/** `expect(actual).toMatchObject(subset)` for a flat subset. */
function toMatchObject(actual, subset) {
  assert.ok(typeof actual === 'object' && actual !== null, `toMatchObject: ${show(actual)} is not an object`)
  for (const key of Object.keys(subset)) {
    assert.ok(key in actual && vitestEquals(actual[key], subset[key]), `expected ${show(actual)} to match object ${show(subset)}`)
  }
}

// ---- the suite --------------------------------------------------------------------------------------

/**
 * Integration suite over REAL worker threads (no mocks — workers are cheap
 * and local, per docs/testing.md's real-over-mock policy). Each test builds
 * a fresh context so budgets can be tuned per case.
 */

describe('WorkerThreadCodeRuntime — programs and bindings (real workers)', () => {
  it('registers with the seam descriptors', async () => {
    const { runtime } = await setup()
    assert.strictEqual(runtime.language, 'typescript')
    assert.strictEqual(runtime.isolation, ISOLATION) // the reference: 'worker-thread'
  })

  it('runs TypeScript (erasable syntax), captures output in order, returns the value', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: `
        interface Point { x: number; y: number }
        const p: Point = { x: 1, y: 2 } as Point;
        console.log('point', p);
        process.stdout.write('raw-out\\n');
        console.warn('careful');
        return p.x + p.y;
      `,
      bindings: [],
    })
    assert.strictEqual(result.error, undefined)
    assert.strictEqual(result.value, 3)
    toEqual(result.logs, ['point { x: 1, y: 2 }', 'raw-out\n', 'careful'])
  })

  it('bridges binding calls both ways and rejects the program-side call on a host rejection', async () => {
    const { runtime } = await setup()
    const calls = []
    const result = await runtime.run({
      program: `
        const first = await tools.echo({ n: 1 });
        let caught = {};
        try { await tools.fail({}) } catch (error) { caught = { isTyped: error instanceof ToolCallError, name: error.name, toolName: error.toolName, message: error.message } }
        let caughtRaw = {};
        try { await tools.failRaw({}) } catch (error) { caughtRaw = { name: error.name, toolName: error.toolName, message: error.message } }
        return { first, caught, caughtRaw };
      `,
      bindings: tools({
        echo: async (args) => { calls.push(args); return { echoed: args } },
        fail: async () => { throw new Error('nope') },
        // A non-Error throw: the host renders it, the program still catches.
        failRaw: async () => { throw 'raw-nope' },
      }),
    })
    assert.strictEqual(result.error, undefined)
    toEqual(result.value, {
      first: { echoed: { n: 1 } },
      caught: { isTyped: true, name: 'ToolCallError', toolName: 'fail', message: 'nope' },
      caughtRaw: { name: 'ToolCallError', toolName: 'failRaw', message: 'raw-nope' },
    })
    toEqual(calls, [{ n: 1 }])
  })

  it('materializes a typed rejection from a generic namespace descriptor', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: `
        try { await helpers.fail({}) } catch (error) {
          return {
            isTyped: error instanceof HelperCallError,
            name: error.name,
            helperName: error.helperName,
            message: error.message,
          };
        }
      `,
      bindings: [{
        global: 'helpers',
        functions: { fail: async () => { throw new Error('nope') } },
        errorClass: { name: 'HelperCallError', memberNameProperty: 'helperName' },
      }],
    })
    toEqual(result.value, {
      isTyped: true,
      name: 'HelperCallError',
      helperName: 'fail',
      message: 'nope',
    })
  })

  it('bridges a deeply nested lossless JSON argument, resolution, and completion', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: `
        let value = 'leaf';
        for (let depth = 0; depth < 3_000; depth++) value = [value];
        return await tools.echo(value);
      `,
      bindings: tools({ echo: async args => args }),
    })

    assert.strictEqual(result.error, undefined)
    let cursor = result.value
    for (let depth = 0; depth < 3_000; depth++) {
      assert.strictEqual(Array.isArray(cursor), true)
      cursor = Array.isArray(cursor) ? cursor[0] : undefined
    }
    assert.strictEqual(cursor, 'leaf')
  }, 15_000)

  it('reports non-erasable syntax as an exception without spawning a worker', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'enum E { A }\nreturn 1', bindings: [] })
    assert.strictEqual(result.error?.kind, 'exception')
    assert.match(result.error?.message, /enum|strip/i)
  })

  it('reports a runtime throw as an exception with the message', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'throw new Error("kaboom")', bindings: [] })
    assert.strictEqual(result.error?.kind, 'exception')
    toContain(result.error?.message, 'kaboom')
  })

  it('gives the program an EMPTY environment', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'return JSON.stringify(process.env)', bindings: [] })
    assert.strictEqual(result.value, '{}')
  })

  it('rejects a non-lossless completion instead of replacing it with rendered text', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'return { f: () => 1 }', bindings: [] })
    assert.strictEqual(result.value, undefined)
    toEqual(result.error, { kind: 'invalid-output', message: 'program completion must be lossless JSON' })
  })

  it('completes a program that returns nothing with no value at all', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'const x = 1', bindings: [] })
    assert.strictEqual(result.error, undefined)
    assert.strictEqual('value' in result, false)
  })

  it('keeps logs streamed before a failure', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: 'console.log("before"); throw new Error("after-log")',
      bindings: [],
    })
    assert.strictEqual(result.error?.kind, 'exception')
    toContain(result.logs, 'before')
  })
})

describe('WorkerThreadCodeRuntime — budgets and containment (real workers)', () => {
  it('ends a hot loop at the compute budget — including behind a pending decoy dispatch', async () => {
    const { runtime } = await setup({ computeMs: 300, maxWallMs: 30_000 })
    const result = await runtime.run({
      // The decoy: fire a call at a never-resolving binding WITHOUT awaiting,
      // then spin. Host-side pending-call bookkeeping would pause a naive
      // budget here; measured busy time cannot be fooled.
      program: 'void tools.slow({}); for (;;) {}',
      bindings: tools({ slow: () => new Promise(() => {}) }),
    })
    assert.strictEqual(result.error?.kind, 'timeout')
    toContain(result.error?.message, 'compute budget')
  }, 15_000)

  it('does not charge time spent awaiting a slow binding against the compute budget', async () => {
    // Keep the binding delay above the compute allowance while leaving enough
    // headroom for worker bootstrap on loaded CI hosts.
    const { runtime } = await setup({ computeMs: 1_000, maxWallMs: 30_000 })
    const result = await runtime.run({
      program: 'return await tools.slow({})',
      bindings: tools({ slow: () => new Promise(resolve => setTimeout(() => { resolve('slow-done') }, 1_500)) }),
    })
    assert.strictEqual(result.error, undefined)
    assert.strictEqual(result.value, 'slow-done')
  }, 15_000)

  it('ends an idle-forever run at the wall-clock ceiling', async () => {
    const { runtime } = await setup({ computeMs: 30_000, maxWallMs: 400 })
    const result = await runtime.run({
      program: 'await tools.never({}); return 1',
      bindings: tools({ never: () => new Promise(() => {}) }),
    })
    assert.strictEqual(result.error?.kind, 'timeout')
    toContain(result.error?.message, 'wall-clock ceiling')
  }, 15_000)

  it('reports an abort mid-run and stops the worker', async () => {
    const { runtime } = await setup()
    const controller = new AbortController()
    setTimeout(() => { controller.abort('user-cancel') }, 150)
    const result = await runtime.run({ program: 'for (;;) {}', bindings: [], signal: controller.signal })
    toEqual(result.error, { kind: 'abort', message: 'user-cancel' })
  }, 15_000)

  it('reports a pre-aborted signal without spawning', async () => {
    const { runtime } = await setup()
    const controller = new AbortController()
    controller.abort('too-late')
    const result = await runtime.run({ program: 'return 1', bindings: [], signal: controller.signal })
    toEqual(result.error, { kind: 'abort', message: 'too-late' })
  })

  it('applies the outer-output cap to failures before worker startup', async () => {
    const capped = await setup({ maxOutputBytes: 64 })
    const controller = new AbortController()
    controller.abort('A'.repeat(1_000))
    const aborted = await capped.runtime.run({ program: 'return 1', bindings: [], signal: controller.signal })
    toEqual(aborted, { logs: [], error: { kind: 'output-limit', message: 'outer output exceeded 64 bytes' } })

    const minimal = await setup({ maxOutputBytes: 4 })
    const invalid = await minimal.runtime.run({ program: 'enum E { A }\nreturn 1', bindings: [] })
    assert.strictEqual(invalid.error?.kind, 'output-limit')
    toBeLessThanOrEqual(Buffer.byteLength(JSON.stringify(invalid.logs), 'utf8') + Buffer.byteLength(JSON.stringify(invalid.error?.message), 'utf8'), 4)
  })

  it('drops a binding resolution that lands after the run settled', async () => {
    const { runtime } = await setup()
    const controller = new AbortController()
    let replyDelivered
    const result = await runtime.run({
      program: 'void tools.late({}); for (;;) {}',
      bindings: tools({
        // Anchored on invocation: abort 100ms after the call reaches the
        // host, resolve 400ms after — by then the run has settled, so the
        // resolution's reply hits the post-settlement drop.
        late: () => new Promise((resolve) => {
          setTimeout(() => { controller.abort('cancel-now') }, 100)
          replyDelivered = new Promise(done => setTimeout(() => { resolve('too-late'); done() }, 400))
        }),
      }),
      signal: controller.signal,
    })
    toEqual(result.error, { kind: 'abort', message: 'cancel-now' })
    // Let the late resolution actually fire so its reply executes instead of
    // being cancelled with the test.
    await replyDelivered
  }, 15_000)

  it('contains an OOM under resourceLimits as worker-exit, host process healthy', async () => {
    const { runtime } = await setup({ maxOldGenerationSizeMb: 32 })
    const result = await runtime.run({
      program: 'const hog = []; for (;;) hog.push(new Array(1e6).fill(1));',
      bindings: [],
    })
    assert.strictEqual(result.error?.kind, 'worker-exit')
    // And the host is fine: run something else.
    const after = await runtime.run({ program: 'return "alive"', bindings: [] })
    assert.strictEqual(after.value, 'alive')
  }, 30_000)

  it('reports a worker that exits before publishing a completion', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'process.exit(7)', bindings: [] })
    toEqual(result, {
      logs: [],
      error: { kind: 'worker-exit', message: 'worker exited with code 7 before completing' },
    })
  })

  it('fails runaway log output explicitly while retaining a bounded prefix', async () => {
    const { runtime } = await setup({ maxOutputBytes: 300 })
    const result = await runtime.run({
      program: 'for (let i = 0; i < 1000; i++) console.log("spam line", i); return 1',
      bindings: [],
    })
    toEqual(result.error, { kind: 'output-limit', message: 'outer output exceeded 300 bytes' })
    assert.strictEqual(result.value, undefined)
    toBeGreaterThan(result.logs.length, 0)
    toBeLessThan(Buffer.byteLength(JSON.stringify(result.logs), 'utf8'), 300)
  })

  it('retains a fitting prefix when one oversized log is the first output', async () => {
    const { runtime } = await setup({ maxOutputBytes: 96 })
    const result = await runtime.run({
      program: 'console.log(`start-${`😀"\\\\\\n`.repeat(100)}`); return null',
      bindings: [],
    })
    toEqual(result.error, { kind: 'output-limit', message: 'outer output exceeded 96 bytes' })
    toHaveLength(result.logs, 1)
    assert.strictEqual(result.logs[0]?.startsWith('start-'), true)
    toBeLessThanOrEqual(Buffer.byteLength(JSON.stringify(result.logs), 'utf8')
      + Buffer.byteLength(JSON.stringify(result.error?.message), 'utf8'), 96)
  })

  it('fails an oversized return value without substituting a string', async () => {
    const { runtime } = await setup({ maxOutputBytes: 64 })
    const result = await runtime.run({ program: 'return "y".repeat(10_000)', bindings: [] })
    assert.strictEqual(result.value, undefined)
    toEqual(result.error, { kind: 'output-limit', message: 'outer output exceeded 64 bytes' })
  })

  it('uses UTF-8 serialized bytes at the exact completion boundary', async () => {
    const exact = await setup({ maxOutputBytes: 7 })
    const exactResult = await exact.runtime.run({ program: 'return "€"', bindings: [] })
    // [] costs two bytes and JSON serialization of "€" costs five.
    toEqual(exactResult, { logs: [], value: '€' })

    const over = await setup({ maxOutputBytes: 6 })
    const overResult = await over.runtime.run({ program: 'return "€"', bindings: [] })
    assert.strictEqual(overResult.error?.kind, 'output-limit')
  })

  it('accounts logs and completion in one exact combined ledger', async () => {
    // JSON(["abc"]) is seven bytes and JSON("xy") is four.
    const exact = await setup({ maxOutputBytes: 11 })
    toEqual(await exact.runtime.run({ program: 'console.log("abc"); return "xy"', bindings: [] }),
      { logs: ['abc'], value: 'xy' })

    const over = await setup({ maxOutputBytes: 10 })
    const result = await over.runtime.run({ program: 'console.log("abc"); return "xy"', bindings: [] })
    assert.strictEqual(result.value, undefined)
    assert.strictEqual(result.error?.kind, 'output-limit')
    toBeLessThanOrEqual(Buffer.byteLength(JSON.stringify(result.logs), 'utf8') + Buffer.byteLength(JSON.stringify(result.error?.message), 'utf8'), 10)
  })

  it('accounts logs and exception diagnostics before the worker port boundary', async () => {
    // JSON(["abc"]) is seven bytes and JSON("xy") is four.
    const exact = await setup({ maxOutputBytes: 11 })
    toEqual(await exact.runtime.run({ program: 'console.log("abc"); throw "xy"', bindings: [] }),
      { logs: ['abc'], error: { kind: 'exception', message: 'xy' } })

    const over = await setup({ maxOutputBytes: 10 })
    const result = await over.runtime.run({ program: 'console.log("abc"); throw "xy"', bindings: [] })
    assert.strictEqual(result.error?.kind, 'output-limit')
    toBeLessThanOrEqual(Buffer.byteLength(JSON.stringify(result.logs), 'utf8')
      + Buffer.byteLength(JSON.stringify(result.error?.message), 'utf8'), 10)
  })

  it('does not send a giant Error stack across the worker port', async () => {
    const { runtime } = await setup({ maxOutputBytes: 64 })
    const result = await runtime.run({
      program: 'throw new Error("x".repeat(1_000_000))',
      bindings: [],
    })
    toEqual(result, {
      logs: [],
      error: { kind: 'output-limit', message: 'outer output exceeded 64 bytes' },
    })
  })

  it('completes a program that awaits its write callback, capturing the chunk', async () => {
    // Node's write(chunk[, encoding][, callback]) contract: dropping the
    // callback would leave this promise pending until the wall ceiling and
    // misreport a completed program as a timeout.
    const { runtime } = await setup({ maxWallMs: 2_000 })
    const result = await runtime.run({
      program: 'await new Promise(resolve => process.stdout.write("flushed", resolve)); return "done"',
      bindings: [],
    })
    assert.strictEqual(result.error, undefined)
    assert.strictEqual(result.value, 'done')
    toContain(result.logs, 'flushed')
  })

  it('returns a large JSON container exactly when the outer cap permits it', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'return new Array(50_000).fill(7)', bindings: [] })
    assert.strictEqual(result.error, undefined)
    toEqual(result.value, new Array(50_000).fill(7))
  })

  it('returns an exact completion at the default 64 MiB combined boundary', async () => {
    const { runtime } = await setup()
    // [] costs two bytes and the JSON string contributes two quotes, leaving
    // exactly this many payload bytes under the 67_108_864-byte default.
    const result = await runtime.run({ program: 'return "x".repeat(67_108_860)', bindings: [] })
    assert.strictEqual(result.error, undefined)
    toEqual(result.logs, [])
    toHaveLength(result.value, 67_108_860)
  }, 60_000)

  it('fails one byte over the default 64 MiB combined boundary', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({ program: 'return "x".repeat(67_108_861)', bindings: [] })
    assert.strictEqual(result.value, undefined)
    toEqual(result.error, { kind: 'output-limit', message: 'outer output exceeded 67108864 bytes' })
  }, 60_000)

  it('accounts pipe writes that bypass the patched write slot in the same outer ledger', async () => {
    const { runtime } = await setup({ maxOutputBytes: 80 })
    const result = await runtime.run({
      // The prototype write bypasses the patched instance and reaches the real pipe. Pauses keep
      // writes in separate chunks and let both reach the host before settlement.
      program: `
        const write = (text) => Object.getPrototypeOf(process.stdout).write.call(process.stdout, text);
        write('a'.repeat(20));
        await new Promise(resolve => setTimeout(resolve, 150));
        write('b'.repeat(100));
        await new Promise(resolve => setTimeout(resolve, 100));
        return 1;
      `,
      bindings: [],
    })
    assert.strictEqual(result.error?.kind, 'output-limit')
    toContain(result.logs, 'a'.repeat(20))
    toBeGreaterThan(result.logs[1]?.length, 0)
    assert.strictEqual('b'.repeat(100).startsWith(result.logs[1] ?? ''), true)
  }, 15_000)

  // Left out: 'drains pipe output queued before terminal worker teardown completes' (forges a
  // `done` message on the worker's parentPort; see the header).
})

describe('WorkerThreadCodeRuntime — hostile programs (real workers)', () => {
  // Left out: the eight forged-port tests that open this group in the reference (see the header).

  it('answers a binding whose resolution is not lossless JSON with a typed failure reply', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: 'try { await tools.bad({}) } catch (error) { return { name: error.name, toolName: error.toolName, message: error.message } }',
      bindings: tools({ bad: async () => (() => 1) }),
    })
    toEqual(result.value, { name: 'ToolCallError', toolName: 'bad', message: 'binding resolution must be lossless JSON' })
  })

  it('rejects lossy binding arguments in the worker before invoking the host binding', async () => {
    const { runtime } = await setup()
    let calls = 0
    const result = await runtime.run({
      program: `
        const decorated = [1]; Object.defineProperty(decorated, 'extra', { value: true });
        const values = [new Date(), decorated, () => 1];
        const failures = [];
        for (const value of values) {
          try { await tools.never(value) } catch (error) {
            failures.push({ typed: error instanceof ToolCallError, name: error.name, toolName: error.toolName, message: error.message });
          }
        }
        return failures;
      `,
      bindings: tools({ never: async () => { calls += 1; return null } }),
    })
    assert.strictEqual(calls, 0)
    toEqual(result.value, new Array(3).fill({
      typed: true,
      name: 'ToolCallError',
      toolName: 'never',
      message: 'binding arguments must be lossless JSON',
    }))
  })

  it('rejects intrinsic-looking exotic objects as arguments and completions', async () => {
    const { runtime } = await setup()
    let calls = 0
    const forgeObject = `
      const prototype = Object.create(null);
      const SpoofedObject = function Object() {};
      SpoofedObject.prototype = prototype;
      Object.defineProperty(prototype, 'constructor', { value: SpoofedObject });
      const forged = Object.assign(Object.create(prototype), { value: 1 });
      Function.prototype.toString = () => 'function Object() { [native code] }';
    `
    const argument = await runtime.run({
      program: `${forgeObject}
        try { await tools.never(forged) } catch (error) {
          return { typed: error instanceof ToolCallError, name: error.name, toolName: error.toolName, message: error.message };
        }
      `,
      bindings: tools({ never: async () => { calls += 1; return null } }),
    })
    assert.strictEqual(calls, 0)
    toEqual(argument.value, {
      typed: true,
      name: 'ToolCallError',
      toolName: 'never',
      message: 'binding arguments must be lossless JSON',
    })

    const completion = await runtime.run({ program: `${forgeObject}\nreturn forged`, bindings: [] })
    toEqual(completion, {
      logs: [],
      error: { kind: 'invalid-output', message: 'program completion must be lossless JSON' },
    })
  })

  it('preserves binding and completion JSON after model code mutates boundary globals', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: `
        const arrayPrototype = Array.prototype;
        const objectPrototype = Object.prototype;
        const setPrototype = Set.prototype;
        const stringPrototype = String.prototype;
        Array.isArray = () => false;
        arrayPrototype.at = arrayPrototype.includes = arrayPrototype.pop = arrayPrototype.push = () => { throw new Error('mutated array method') };
        Object.defineProperty = Object.getOwnPropertyDescriptor = Object.getPrototypeOf = Object.keys = () => { throw new Error('mutated object method') };
        Object.hasOwn = () => false;
        Object.is = () => true;
        objectPrototype.propertyIsEnumerable = () => false;
        Number.isFinite = Number.isSafeInteger = () => false;
        Reflect.apply = Reflect.ownKeys = () => { throw new Error('mutated reflect method') };
        setPrototype.add = setPrototype.delete = setPrototype.has = () => { throw new Error('mutated set method') };
        stringPrototype.charCodeAt = stringPrototype.codePointAt = stringPrototype.slice = () => { throw new Error('mutated string method') };
        Buffer.byteLength = () => 0;
        Function.prototype.toString = () => 'mutated';
        objectPrototype.get = () => undefined;
        objectPrototype.constructor = arrayPrototype.constructor = null;
        globalThis.Array = globalThis.Buffer = globalThis.Error = globalThis.Function = globalThis.Number = globalThis.Object = globalThis.Reflect = globalThis.Set = globalThis.String = undefined;
        const echoed = await tools.echo({ request: ['€', 1] });
        let failure;
        try { await tools.fail({}) } catch (error) {
          failure = { typed: error instanceof ToolCallError, name: error.name, toolName: error.toolName, message: error.message };
        }
        return { echoed, failure, completion: { ok: true, amount: 42 } };
      `,
      bindings: tools({ echo: async args => args, fail: async () => { throw new Error('nope') } }),
    })
    toEqual(result, {
      logs: [],
      value: {
        echoed: { request: ['€', 1] },
        failure: { typed: true, name: 'ToolCallError', toolName: 'fail', message: 'nope' },
        completion: { ok: true, amount: 42 },
      },
    })
  })

  // Left out: 'rejects forged lossy binding arguments again at the host boundary' (forged port traffic).

  it('contains throwing getters while snapshotting binding resolutions', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: 'try { await tools.bad({}) } catch (error) { return { name: error.name, toolName: error.toolName, message: error.message } }',
      bindings: tools({ bad: async () => Object.defineProperty({}, 'bad', { enumerable: true, get() { throw new Error('getter exploded') } }) }),
    })
    toEqual(result.value, { name: 'ToolCallError', toolName: 'bad', message: 'binding resolution must be lossless JSON' })
  })

  // Left out: 'revalidates a forged lossy completion at the host boundary' and
  // 'honors a forged worker-side output-limit signal' (forged port traffic).

  it('exposes binding names that collide with Object.prototype as ordinary functions', async () => {
    const { runtime } = await setup()
    const result = await runtime.run({
      program: 'return [await tools["__proto__"]({}), await tools["constructor"]({}), typeof tools["hasOwnProperty"]]',
      // Computed keys: a literal `'__proto__': …` entry would SET the record's
      // prototype instead of declaring a binding of that name.
      bindings: tools({ ['__proto__']: async () => 'proto-ok', ['constructor']: async () => 'ctor-ok' }),
    })
    toEqual(result.value, ['proto-ok', 'ctor-ok', 'undefined'])
  })
})

describe('WorkerThreadCodeRuntime — seam misuse and lifecycle', () => {
  it('rejects invalid and duplicate binding globals loudly', async () => {
    const { runtime } = await setup()
    const cases = [
      ['not valid!', /not a usable identifier/],
      ['await', /not a usable identifier/],
      // `$tools` is legal JS but outside the seam's language-portable subset:
      // the same namespace list must work against every backend's language.
      ['$tools', /not a usable identifier/],
      // `a$b` pins the second character class too: an identifier regex of
      // `[A-Za-z0-9_$]*` for the rest would accept a `$` after the first character.
      ['a$b', /not a usable identifier/],
      // `lambda` is a Python keyword, refused here directly (not just
      // transitively) so the worker's adoption of PORTABLE_RESERVED_WORDS is
      // its own regression, symmetric with the `$tools` case.
      ['lambda', /not a usable identifier/],
      ['console', /reserved binding global/],
    ]
    for (const [global, message] of cases) {
      await rejectsToThrow(runtime.run({ program: 'return 1', bindings: [{ global, functions: {} }] }), message)
    }
    await rejectsToThrow(runtime.run({
      program: 'return 1',
      bindings: [{ global: 'tools', functions: {} }, { global: 'tools', functions: {} }],
    }), /duplicate binding global/)

    toMatchObject(await runtime.run({
      program: 'return typeof ToolCallError',
      bindings: [{ global: 'ToolCallError', functions: {} }],
    }), { value: 'object' })
  })

  it('rejects malformed or colliding binding error-class declarations', async () => {
    const { runtime } = await setup()
    const run = async (bindings) => await runtime.run({ program: 'return 1', bindings })
    const namespace = (global, name, memberNameProperty = 'memberName') => ({
      global,
      functions: {},
      errorClass: { name, memberNameProperty },
    })

    await rejectsToThrow(run([namespace('tools', 'not valid!')]), /error class.*not a usable identifier/)
    await rejectsToThrow(run([namespace('tools', 'await')]), /error class.*not a usable identifier/)
    await rejectsToThrow(run([namespace('tools', 'console')]), /reserved binding global/)
    await rejectsToThrow(run([namespace('tools', 'tools')]), /duplicate injected global/)
    await rejectsToThrow(run([
      namespace('tools', 'CallError'),
      namespace('helpers', 'CallError'),
    ]), /duplicate injected global/)
    await rejectsToThrow(run([namespace('tools', 'CallError', '')]), /member property.*not usable/)
    await rejectsToThrow(run([namespace('tools', 'CallError', 'message')]), /member property.*not usable/)
    // The shared exclusion set covers Python's exception-protocol members and
    // dunders too, so the same errorClass is valid (or not) on every backend.
    await rejectsToThrow(run([namespace('tools', 'CallError', 'args')]), /member property.*not usable/)
    await rejectsToThrow(run([namespace('tools', 'CallError', '__dict__')]), /member property.*not usable/)
    // The Python backend's owned globals are refused here too (shared
    // RESERVED_BINDING_GLOBALS), keeping namespace lists backend-portable.
    await rejectsToThrow(runtime.run({ program: 'return 1', bindings: [{ global: '__dsh_main__', functions: {} }] }),
      /reserved binding global/)
  })

  it('rejects config values that are not positive numbers', async () => {
    const ctx = new Context()
    await rejectsToThrow(ctx.plugin(V8CodeRuntime, { computeMs: -1 }), /positive number/)
  })

  it('rejects a maxWallMs above Node\'s maximum timer delay', async () => {
    // setTimeout clamps a delay past 2^31-1 ms to 1 ms, so the positivity check
    // alone would accept a 25-day ceiling that expires on the first tick.
    const ctx = new Context()
    await rejectsToThrow(ctx.plugin(V8CodeRuntime, { maxWallMs: 2_147_483_648 }),
      /maxWallMs must be at most 2147483647/)
    // The boundary itself is usable.
    const fiber = await ctx.plugin(V8CodeRuntime, { maxWallMs: 2_147_483_647 })
    fibers.push(fiber)
    assert.ok(fiber)
  })

  it('requires maxOutputBytes to fit the smallest counted outer payloads', async () => {
    const ctx = new Context()
    await rejectsToThrow(ctx.plugin(V8CodeRuntime, { maxOutputBytes: 3 }), /safe integer of at least 4/)
    await rejectsToThrow(ctx.plugin(V8CodeRuntime, { maxOutputBytes: 4.5 }), /safe integer of at least 4/)
  })

  it('keeps runs isolated: no state survives from one run to the next', async () => {
    const { runtime } = await setup()
    await runtime.run({ program: 'globalThis.leak = "value"; return 1', bindings: [] })
    const second = await runtime.run({ program: 'return typeof globalThis.leak', bindings: [] })
    assert.strictEqual(second.value, 'undefined')
  })

  it('disposal aborts in-flight runs, awaits worker exit, and rejects later runs', async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(V8CodeRuntime)
    const runtime = ctx.codeRuntime
    const inflight = runtime.run({ program: 'for (;;) {}', bindings: [] })
    // Give the worker a moment to actually start spinning.
    await new Promise(resolve => setTimeout(resolve, 200))
    await fiber.dispose()
    const result = await inflight
    toEqual(result.error, { kind: 'abort', message: 'runtime disposed' })
    await rejectsToThrow(runtime.run({ program: 'return 1', bindings: [] }), /after disposal/)
  }, 15_000)

  it('removes ctx.codeRuntime when the providing fiber disposes (HMR safety)', async () => {
    const ctx = new Context()
    const fiber = await ctx.plugin(V8CodeRuntime)
    assert.ok(ctx.get('codeRuntime') instanceof V8CodeRuntime)
    await fiber.dispose()
    assert.strictEqual(ctx.get('codeRuntime'), undefined)
  })
})
