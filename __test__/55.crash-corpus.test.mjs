// No program and no binding answer can crash the host or outlive its budgets. Every case runs in
// a child process of its own; the reduced corpus is here, `npm run crash-corpus` runs the full one.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { LABELS_REFUSED, MAX_PROGRAM_BYTES, NESTING_REFUSED, NESTING_SHAPES, READINGS_REFUSED, lengthRefused, answerRefused, heapMessage, runInChild } from './fixtures/crash-corpus.mjs'
import { setup, tools } from './helpers.mjs'

// Budgets are busy time, settling is wall time: on two shared cores a run's thread may get half of
// one, so the suite allows this much past a budget.
const SLACK_MS = 500

/** Where the runs execute: this corpus runs as it is, and again with `DSH_TEST_ISOLATION=process`
 * (80.process.test.mjs). */
const ISOLATION = process.env.DSH_TEST_ISOLATION ?? 'v8-isolate'

/** Each child must live, print its outcome, and dispose within a second. */
async function lives(config, program, answerBytes) {
  const { outcome, status, signal } = await runInChild({ isolation: ISOLATION, ...config }, program, answerBytes)
  assert.deepStrictEqual({ status, signal }, { status: 0, signal: null }, program.slice(0, 80))
  assert.ok(outcome.disposedMs <= 1000, `disposal took ${outcome.disposedMs} ms`)
  return outcome
}

describe('nesting cannot crash the stripper', () => {
  for (const [shape, make] of Object.entries(NESTING_SHAPES)) {
    test(`${shape}: 100 000 levels end cleanly`, async () => {
      const outcome = await lives({}, make(100_000))
      // Refused when longer than a stack sized by length holds, else stripped; then V8 refuses to
      // compile most of them (its own stack limit), or they run.
      assert.ok(['exception', 'value', 'invalid-output'].includes(outcome.kind), JSON.stringify(outcome))
    })
    test(`${shape}: 200 000 levels are refused before parsing`, async () => {
      const program = make(200_000)
      const bytes = Buffer.byteLength(program)
      const outcome = await lives({}, program)
      // Within the length limit the reading of the text refuses it; past the limit, its length.
      const expected = bytes > MAX_PROGRAM_BYTES ? lengthRefused(bytes) : NESTING_REFUSED
      assert.deepStrictEqual([outcome.kind, outcome.message], ['exception', expected])
    })
  }
  test('a text that forks into too many readings is refused, not let through unread', async () => {
    // Each line leaves a reading that took the regex's ')' for a real one open; past 64 readings
    // the labels after them went unread once, and swc's quadratic label errors came back.
    const program = `${'{'.repeat(70)}${"{}\n/\\)/.test('')\n".repeat(66)}${'}'.repeat(70)}${'l: '.repeat(200)}x`
    const outcome = await lives({}, program)
    assert.deepStrictEqual([outcome.kind, outcome.message], ['exception', READINGS_REFUSED])
  })
  test(`a program of ${MAX_PROGRAM_BYTES} bytes runs, and one byte more is refused`, async () => {
    const line = 'x = x + 1;\n'
    const count = Math.floor((MAX_PROGRAM_BYTES - 40) / line.length)
    const program = `let x = 0\n${line.repeat(count)}return x`
    const fits = program + ' '.repeat(MAX_PROGRAM_BYTES - Buffer.byteLength(program))
    assert.equal((await lives({}, fits)).value, count)
    const outcome = await lives({}, `${fits} `)
    assert.deepStrictEqual([outcome.kind, outcome.message], ['exception', lengthRefused(MAX_PROGRAM_BYTES + 1)])
  })
  test('labels that would cost swc quadratic memory are refused: 5 000 stacked in 15 KB', async () => {
    // swc keeps an error for every pair of equal labels enclosing one another: 2 GB for these.
    const outcome = await lives({}, `${'l: '.repeat(5_000)}x`)
    assert.deepStrictEqual([outcome.kind, outcome.message], ['exception', LABELS_REFUSED])
  })
  test('programs that V8 parses still run: 3 000 chained sums, 500 nested parentheses', async () => {
    assert.equal((await lives({}, NESTING_SHAPES.sums(3_000))).value, 3_001)
    assert.equal((await lives({}, NESTING_SHAPES.parentheses(500))).value, 1)
  })
})

describe('a cap smaller than the world still runs programs', () => {
  // The world restored from the snapshot holds about 2 MB of heap; at caps of 6 MB and below, V8
  // once ran out of heap while creating the isolate, where no hook can catch it.
  for (const mb of [1, 4]) {
    test(`${mb} MB: a program runs, and one that outgrows the cap ends as a heap worker-exit`, async () => {
      assert.equal((await lives({ maxOldGenerationSizeMb: mb }, 'return 1')).value, 1)
      for (const program of ['const a = []; for (;;) a.push({ n: a.length })', 'return new Array(2 ** 23).fill(0).length']) {
        const outcome = await lives({ maxOldGenerationSizeMb: mb, computeMs: 10_000 }, program)
        assert.deepStrictEqual([outcome.kind, outcome.message], ['worker-exit', heapMessage(mb)])
      }
    })
  }
})

describe('no single allocation reaches V8\'s fatal out-of-memory path', () => {
  // ICU's services refuse texts past 2^24 code units (45.nothing-lingers): these stay under it.
  const cases = [
    [16, "return 'a'.repeat(2 ** 24).toUpperCase().length"],
    [16, "return 'ß'.repeat(2 ** 24).toUpperCase().length"],
    [16, "return 'ẛ'.repeat(2 ** 24).normalize('NFKD').length"],
  ]
  for (const [mb, program] of cases) {
    test(`${program} at ${mb} MB`, async () => {
      const outcome = await lives({ maxOldGenerationSizeMb: mb, computeMs: 10_000 }, program)
      assert.deepStrictEqual([outcome.kind, outcome.message], ['worker-exit', heapMessage(mb)])
    })
  }
  // The regexp flattens its 100 MB subject first. Made in the young generation, where V8 lets the
  // first large object through whatever its size, the copy fits and the match backtracks until the
  // budget ends it; made in the old one, it is past the cap. Which one depends on when V8 last
  // collected, and so on the snapshot: either ending is an orderly one.
  test("return /a*b/.test('a'.repeat(1e8)) at 16 MB", async () => {
    const outcome = await lives({ maxOldGenerationSizeMb: 16, computeMs: 2_000 }, "return /a*b/.test('a'.repeat(1e8))")
    const ending = [outcome.kind, outcome.message]
    assert.ok(
      [['worker-exit', heapMessage(16)], ['timeout', 'compute budget exhausted (2000ms busy)']].some((orderly) => orderly.join() === ending.join()),
      JSON.stringify(ending),
    )
  })
})

describe('built-ins that built past the cap', () => {
  // V8's own loops for these never check for termination: left to them, the replacements went on
  // for seconds after their run had ended, growing to 1 GB, and the match and split returned their
  // value with the heap several times over its cap. Each ends as the heap failure, and leaves no
  // thread behind (a thread still busy 100 ms after its run's end is demoted and counted).
  const cases = [
    [16, "return 'a'.repeat(3e7).replace(/a/g, 'bb').length"],
    [16, "return 'a'.repeat(3e7).replace(/a/g, () => 'bb').length"],
    [16, "return 'a'.repeat(3e7).replaceAll('a', 'bb').length"],
    [64, "return 'a'.repeat(6e7).match(/a/g).length"],
    [64, "return 'a,'.repeat(3e7).split(',').length"],
    [64, "return 'a,'.repeat(3e7).split(/,/).length"],
    // Receivers, patterns and subjects that are not strings, each of which would take V8's loop.
    [16, "return new String('a'.repeat(3e7)).replaceAll('a', 'bb').length"],
    [16, "return '1'.repeat(3e7).replaceAll(1, '22').length"],
    [16, "const s = 'a'.repeat(3e7); return /a/g[Symbol.replace]({ toString: () => s }, 'bb').length"],
    [64, "const s = 'a'.repeat(6e7); return /a/g[Symbol.match]({ toString: () => s }).length"],
    [64, "return Object('a,'.repeat(3e7)).split(',').length"],
  ]
  for (const [mb, program] of cases) {
    test(`${program} at ${mb} MB`, async () => {
      const outcome = await lives({ maxOldGenerationSizeMb: mb, computeMs: 30_000 }, program)
      assert.deepStrictEqual([outcome.kind, outcome.message, outcome.runaways.total], ['worker-exit', heapMessage(mb), 0])
    })
  }
})

describe('a forged host object cannot crash structuredClone', () => {
  // deno_core's brand for self-serialising objects is a registered symbol, so a program can forge one.
  const brand = "const brand = Symbol.for('Deno.core.hostObject'); "
  const cases = {
    'data that names no deserializer': `${brand}try { structuredClone({ [brand]() { return 1 } }) } catch (e) { return [e.name, e.message] }`,
    'a type that is an inherited key': `${brand}try { structuredClone({ a: { [brand]() { return { type: '__proto__' } } } }) } catch (e) { return [e.name, e.message] }`,
  }
  for (const [name, program] of Object.entries(cases)) {
    test(name, async () => {
      const outcome = await lives({}, program)
      assert.deepStrictEqual(outcome.value, ['Error', 'Failed to deserialize host object'])
    })
  }
  test('a type whose key conversion runs program code: the named deserializer refuses the data', async () => {
    const program = `${brand}Object.prototype.toString = () => 'Blob'; try { structuredClone({ [brand]() { return { type: {} } } }) } catch (e) { return [e.name, e.message] }`
    const outcome = await lives({}, program)
    assert.deepStrictEqual(outcome.value, ['DataCloneError', "Cannot read properties of undefined (reading 'length')"])
  })
  test('a real Blob still clones', async () => {
    const outcome = await lives({}, "const b = structuredClone(new Blob(['abc'], { type: 'text/x' })); return [b.type, await b.text()]")
    assert.deepStrictEqual(outcome.value, ['text/x', 'abc'])
  })
})

describe('the web platform\'s native parts cannot be turned against the host', () => {
  const key = "const key = await crypto.subtle.importKey('raw', new Uint8Array(8), 'PBKDF2', false, ['deriveBits']); "
  const cases = {
    // The slice's bounds overflowed in deno_web's check, then panicked where it cannot unwind.
    'a Blob part sliced at 2^64': ["const blob = new Blob([new Uint8Array(8192)]); const ref = blob[Object.getOwnPropertySymbols(blob).find((s) => s.description === 'Parts')][0]; try { await ref.slice(2 ** 64, 2 ** 64 + 4096).stream().next(); return 'read' } catch (e) { return [e.name, e.message] }",
      ['TypeError', 'the Blob slice is outside its part']],
    // deno_crypto read the member twice and unwrapped the second read.
    'a JWK whose getter answers once': ["let n = 0; const jwk = { kty: 'RSA', n: 'AQAB', e: 'AQAB', p: 'AQ', q: 'AQ', dp: 'AQ', dq: 'AQ', qi: 'AQ', get d() { return n++ ? undefined : 'AQ' } }; try { await crypto.subtle.importKey('jwk', jwk, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['sign']); return n } catch (e) { return [e.name, n] }",
      1],
    // A forged key of a shape deno_crypto never makes reached `unreachable!()` on the isolate thread.
    'a key forged from clone data': ["try { CryptoKey.fromCloneData({ keyType: 'secret', extractable: true, usages: ['sign'], algorithm: { name: 'HMAC', hash: { name: 'SHA-256' }, length: 256 }, keyData: { privateKey: new Uint8Array(32) } }) } catch (e) { return [e.name, e.message] }",
      ['TypeError', 'CryptoKey.fromCloneData is not available']],
    // Symbols of this isolate left in a thread-local would be used by the thread's next isolate.
    'symbols registered for the next isolate': ["return Crypto.registerSymbols(Symbol('a'), Symbol('b'))", false],
    'PBKDF2 iterations that answer small, then large': [`let n = 0; ${key}await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: new Uint8Array(8), iterations: { valueOf() { return n++ ? 4294967295 : 1 } } }, key, 256); return n`,
      1],
    'an RSA modulus that wraps to 16384 bits': ["try { await crypto.subtle.generateKey({ name: 'RSA-PSS', modulusLength: -4294950912, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign']) } catch (e) { return e.name }",
      'NotSupportedError'],
    'an algorithm name that turns into Argon2': [`let n = 0; ${key}try { await crypto.subtle.deriveBits({ name: { toString() { return n++ ? 'Argon2id' : 'x' } }, memory: 2097152, passes: 1, parallelism: 1, nonce: new Uint8Array(16) }, key, 256) } catch (e) { return [e.name, n] }`,
      ['NotSupportedError', 1]],
    'half a gigabyte of PBKDF2 output': [`${key}try { await crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-1', salt: new Uint8Array(8), iterations: 1 }, key, 2 ** 32 - 8) } catch (e) { return e.name }`,
      'NotSupportedError'],
    // They run one at a time, in order.
    'six RSA key generations at once': ["const runs = []; for (let i = 0; i < 6; i++) runs.push(crypto.subtle.generateKey({ name: 'RSA-PSS', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign']).then(() => 'ok', (e) => e.name)); return await Promise.all(runs)",
      ['ok', 'ok', 'ok', 'ok', 'ok', 'ok']],
  }
  for (const [name, [program, expected]] of Object.entries(cases)) {
    test(name, async () => {
      const outcome = await lives({ computeMs: 5000 }, program)
      assert.deepStrictEqual(outcome.value, expected, JSON.stringify(outcome))
    })
  }
})

describe('binding answers: one that cannot fit is the binding\'s own rejection, one that fits arrives', () => {
  test('100 MB under a 16 MB cap is refused, naming the cap', async () => {
    const outcome = await lives({ maxOldGenerationSizeMb: 16 }, 'return (await tools.answer({})).length', 100_000_000)
    assert.equal(outcome.kind, 'exception')
    assert.ok(outcome.message.startsWith(answerRefused(100_000_000, 16)), outcome.message)
  })
  test('the refusal is catchable as the namespace\'s error class', async () => {
    const program = 'try { await tools.answer({}) } catch (e) { return [e.name, e.toolName] }'
    const outcome = await lives({ maxOldGenerationSizeMb: 16 }, program, 40_000_000)
    assert.deepStrictEqual(outcome.value, ['ToolCallError', 'answer'])
  })
  test('4 MB under a 16 MB cap is delivered', async () => {
    const outcome = await lives({ maxOldGenerationSizeMb: 16 }, 'return (await tools.answer({})).length', 4_000_000)
    assert.equal(outcome.value, 4_000_000)
  })
})

describe('runs settle by their budgets whatever the program does, and disposal is never held up', () => {
  const config = { computeMs: 500, maxWallMs: 1500 }
  const budget = 'compute budget exhausted (500ms busy)'
  const cases = {
    'a stack formatter that never returns, for a thrown error': "Error.prepareStackTrace = () => { for (;;) {} }; throw new Error('x')",
    'the same, for an error thrown in a timer': "Error.prepareStackTrace = () => { for (;;) {} }; setTimeout(() => { throw new Error('x') }); await new Promise(() => {})",
    'the same, for an unhandled rejection': "Error.prepareStackTrace = () => { for (;;) {} }; Promise.reject(new Error('x')); await new Promise(() => {})",
  }
  for (const [name, program] of Object.entries(cases)) {
    test(name, async () => {
      const outcome = await lives(config, program)
      assert.deepStrictEqual([outcome.kind, outcome.message], ['timeout', budget])
      // The budget is polled every 25 ms, and a run whose thread does not come back is
      // delivered by the watchdog 25 ms after its ending.
      assert.ok(outcome.settledMs < 500 + SLACK_MS, `settled after ${outcome.settledMs} ms`)
    })
  }
  for (const [name, program] of Object.entries({
    'a completion value nested a million deep': 'let v = []; for (let i = 0; i < 1e6; i++) v = [v]; return v',
    'a binding argument nested a million deep': 'let v = []; for (let i = 0; i < 1e6; i++) v = [v]; await tools.answer(v)',
    'JSON.parse of a million nested arrays': "return JSON.parse('['.repeat(1e6) + ']'.repeat(1e6))",
  })) {
    test(`${name} ends at the budget, and no thread of ours runs on`, async () => {
      const outcome = await lives(config, program)
      assert.deepStrictEqual([outcome.kind, outcome.message], ['timeout', budget])
      assert.ok(outcome.settledMs < 500 + SLACK_MS, `settled after ${outcome.settledMs} ms`)
      // The walk stops within 4 096 values of the ending. On a loaded machine, busy time inflates
      // (page faults, a collection of the million-deep value): once, in CI beside other heavy
      // processes, the thread passed 100 ms and was demoted. It must come back.
      assert.equal(outcome.runaways.running, 0)
    })
  }
  test('a value nested 100 000 deep that fits the budget is returned whole, not refused', async () => {
    const { runtime, dispose } = await setup({ computeMs: 10_000 })
    const program = 'let v = [1]; for (let i = 0; i < 1e5; i++) v = [v]; return await tools.echo(v)'
    const result = await runtime.run({ program, bindings: tools({ echo: async (v) => v }) })
    await dispose()
    let depth = 0
    for (let v = result.value; Array.isArray(v); v = v[0]) depth++
    assert.equal(depth, 100_001)
  })
  // V8's own loops for these never check for termination; ours run them in JavaScript.
  const sparse = 'const a = []; a[2 ** 32 - 2] = 1; '
  const builtins = {
    'indexOf over a huge array-like': 'Array.prototype.indexOf.call({ length: 2 ** 53 - 1 }, 1)',
    'includes over a huge array-like': 'Array.prototype.includes.call({ length: 2 ** 53 - 1 }, 1)',
    'sort over a huge array-like': 'Array.prototype.sort.call({ length: 2 ** 53 - 1 })',
    'find with a built-in callback': 'Array.prototype.find.call({ length: 2 ** 53 - 1 }, Object.prototype.hasOwnProperty, {})',
    ...Object.fromEntries(['sort()', 'indexOf(2)', 'lastIndexOf(2)', 'reverse()', 'reduce((x, y) => x)', 'forEach(() => {})', 'join()',
      'copyWithin(0, 1)', 'splice(0, 1)', 'shift()', 'unshift(0)', 'map(String)', 'filter(Boolean)', 'slice(1)', 'every(() => true)', 'fill(0, 1)']
      .map((call) => [`${call} of a sparse array of length 2^32 - 1`, `${sparse}a.${call}`])),
  }
  for (const [name, program] of Object.entries(builtins)) {
    test(`${name}: ends at the budget, and no thread of ours runs on`, async () => {
      const outcome = await lives(config, program)
      assert.deepStrictEqual([outcome.kind, outcome.message], ['timeout', budget])
      assert.ok(outcome.settledMs < 500 + SLACK_MS, `settled after ${outcome.settledMs} ms`)
      // join's string grows towards V8's limit, and V8 flattens it in one uninterruptible step;
      // fill writes every index, so by the budget its array's dictionary holds millions of
      // entries, and one V8 step over it (growing it, or collecting the heap) can outlast 100 ms
      // (measured: 3 runs of 8). Those threads may be demoted, briefly,
      // and must come back.
      const mayBeDemoted = name.startsWith('join()') || name.startsWith('fill(')
      if (mayBeDemoted) assert.equal(outcome.runaways.running, 0)
      else assert.deepStrictEqual(outcome.runaways, { total: 0, running: 0 })
    })
  }
  test('quadratic String.prototype.lastIndexOf ends at the budget, and no thread of ours runs on', async () => {
    const outcome = await lives(config, "const s = 'a'.repeat(2e5); for (;;) s.lastIndexOf('a'.repeat(1e5) + 'b')")
    assert.deepStrictEqual([outcome.kind, outcome.message], ['timeout', budget])
    assert.deepStrictEqual(outcome.runaways, { total: 0, running: 0 })
  })
  test('a thread held by a built-in V8 cannot stop is demoted and counted, and the run settles on time', async () => {
    // A typed array's sort without a comparator is one std::sort call, never interrupted (about 4 s
    // here). The array is filled with 32-bit arithmetic, about 0.1 s: filled with a modulo of doubles it
    // took 0.35 s, and in a slow phase of the machine the budget ended before the sort began.
    const program = 'const n = 2 ** 24, t = new Float64Array(n); for (let i = 0; i < n; i++) t[i] = Math.imul(i, 2654435761) >>> 8; t.sort()'
    const outcome = await lives({ ...config, maxOldGenerationSizeMb: 512 }, program)
    assert.deepStrictEqual([outcome.kind, outcome.message], ['timeout', budget])
    assert.ok(outcome.settledMs < 500 + SLACK_MS, `settled after ${outcome.settledMs} ms`)
    // In a helper process the thread is held there, and ends with the helper as the run settles.
    const held = ISOLATION === 'process' ? { total: 0, running: 0 } : { total: 1, running: 1 }
    assert.deepStrictEqual(outcome.runaways, held)
  })
})
