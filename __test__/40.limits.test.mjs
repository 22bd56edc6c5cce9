// Budgets and the output ledger: every stop holds for every loop shape, and output is byte-exact.
import { describe, test, before, after } from 'node:test'
import { runInNewContext } from 'node:vm'
import assert from 'node:assert/strict'
import { outputBytes, setup, sleep, tools } from './helpers.mjs'

// Loops that V8 may optimise until termination is never delivered (embedding notes §12.1).
const LOOP_SHAPES = {
  'empty for': 'for (;;) {}',
  'map with an inlined callback': 'let n = 0; for (;;) { [1, 2, 3].map((x) => x + n++) }',
  'Array fill': 'let n = 0; for (;;) { new Array(1000).fill(n++) }',
  'sort with a comparator': 'let n = 0; for (;;) { [3, 1, 2].sort((a, b) => a - b + (n++ & 0)) }',
  'push and truncate': 'const a = []; let i = 0; for (;;) { a.push(i++); if (a.length > 1000) a.length = 0 }',
  'String of a number': 'let n = 0; for (;;) { n += String(n).length }',
  'JSON round trip': 'let n = 0; for (;;) { JSON.parse(JSON.stringify({ a: n++ })) }',
  'RegExp test': 'let n = 0; for (;;) { /a+b/.test("aaaa" + n++) }',
  'String methods': 'for (;;) { "abc".repeat(10).split("").join("-").toUpperCase() }',
  'TypedArray map and sort': 'const t = new Float64Array(1000); for (;;) { t.map((x) => x + 1).sort() }',
  'TypedArray fill': 'const t = new Int32Array(1000); let n = 0; for (;;) { t.fill(n++) }',
  'generator': 'function* g() { for (;;) yield 1 } let s = 0; for (const x of g()) { s += x }',
  'reduce, filter and some': 'const a = Array.from({ length: 100 }, (_, i) => i); for (;;) { a.filter((x) => x & 1).reduce((s, x) => s + x, 0); a.some((x) => x < 0) }',
  'throw and catch': 'for (;;) { try { throw 1 } catch {} }',
  'Map and Set': 'const m = new Map(); const s = new Set(); let n = 0; for (;;) { m.set(n & 1023, n); s.add(n++ & 1023) }',
  'recursion in a loop': 'function f(n) { return n ? f(n - 1) : 0 } for (;;) { f(100) }',
  'spread and Math.max': 'const a = [1, 2, 3]; for (;;) { Math.max(...a, ...[..."abc"].map(Number)) }',
  'labelled nested loops': 'outer: for (let i = 0; ; i++) { for (let j = 0; j < 10; j++) { if (j === 5) continue outer } }',
  'async loop': 'for (;;) { await null }',
  'promise chain flood': 'const spin = () => { Promise.resolve().then(spin) }; spin(); await new Promise(() => {})',
  'hot interval': 'setInterval(() => { for (let i = 0; i < 1e6; i++); }, 0); await new Promise(() => {})',
}

describe('every stop reason ends every loop shape', () => {
  test('compute budget', async () => {
    const { runtime, dispose } = await setup({ computeMs: 250, maxWallMs: 30_000 })
    for (const [shape, program] of Object.entries(LOOP_SHAPES)) {
      const result = await runtime.run({ program, bindings: [] })
      assert.deepStrictEqual(result, { logs: [], error: { kind: 'timeout', message: 'compute budget exhausted (250ms busy)' } }, shape)
    }
    await dispose()
  })

  test('wall ceiling', async () => {
    const { runtime, dispose } = await setup({ maxWallMs: 250 })
    for (const [shape, program] of Object.entries(LOOP_SHAPES)) {
      const result = await runtime.run({ program, bindings: [] })
      assert.deepStrictEqual(result, { logs: [], error: { kind: 'timeout', message: 'wall-clock ceiling reached (250ms)' } }, shape)
    }
    await dispose()
  })

  test('abort', async () => {
    const { runtime, dispose } = await setup()
    for (const [shape, program] of Object.entries(LOOP_SHAPES)) {
      const controller = new AbortController()
      setTimeout(() => controller.abort('stop-now'), 250)
      const result = await runtime.run({ program, bindings: [], signal: controller.signal })
      assert.deepStrictEqual(result, { logs: [], error: { kind: 'abort', message: 'stop-now' } }, shape)
    }
    await dispose()
  })

  test('disposal', async () => {
    const { runtime, dispose } = await setup()
    const runs = Object.values(LOOP_SHAPES).map((program) => runtime.run({ program, bindings: [] }))
    await sleep(300)
    await dispose()
    for (const [index, result] of (await Promise.all(runs)).entries()) {
      assert.deepStrictEqual(result, { logs: [], error: { kind: 'abort', message: 'runtime disposed' } }, Object.keys(LOOP_SHAPES)[index])
    }
  })
})

describe('compute budget', () => {
  test('waiting on a binding costs nothing', async () => {
    const { runtime, dispose } = await setup({ computeMs: 1000 })
    const result = await runtime.run({
      program: 'return await tools.slow({})',
      bindings: tools({ slow: () => new Promise((resolve) => setTimeout(() => resolve('slow-done'), 1500)) }),
    })
    assert.deepStrictEqual(result, { logs: [], value: 'slow-done' })
    await dispose()
  })

  test('a hot loop counts while a decoy binding call is pending', async () => {
    const { runtime, dispose } = await setup({ computeMs: 300, maxWallMs: 30_000 })
    const result = await runtime.run({
      program: 'console.log("before"); void tools.never({}); for (;;) {}',
      bindings: tools({ never: () => new Promise(() => {}) }),
    })
    assert.deepStrictEqual(result, { logs: ['before'], error: { kind: 'timeout', message: 'compute budget exhausted (300ms busy)' } })
    await dispose()
  })
})

/** `program`'s result, and the most resident memory the process held above where it was before the
 * run, in MiB, sampled every millisecond until `settledMs` after the run settled. */
async function peakOfRun(runtime, program, settledMs = 0) {
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 1)
  const result = await runtime.run({ program, bindings: [] })
  if (settledMs > 0) await sleep(settledMs)
  clearInterval(sampler)
  return { result, peakMiB: (peak - before) / 2 ** 20 }
}

describe('heap cap', () => {
  const GROWTH = {
    'arrays of arrays (fatal for Node itself)': 'const a = []; for (;;) a.push(new Array(1000).fill(a.length))',
    'objects': 'const a = []; for (;;) a.push({ i: a.length, s: "v" + a.length })',
    'strings': 'const a = []; for (;;) a.push("x".repeat(1000) + a.length)',
    'maps': 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i })',
    'closures': 'const f = []; for (let i = 0; ; i++) f.push(() => i)',
    'one big array': 'const a = []; for (let i = 0; ; i++) a[i] = i + 0.5',
  }
  const exhausted = { logs: [], error: { kind: 'worker-exit', message: 'JS heap out of memory: the program exceeded maxOldGenerationSizeMb (32 MB)' } }

  test('every growth pattern ends as worker-exit and the next run works', async () => {
    const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 32, computeMs: 30_000 })
    for (const [pattern, program] of Object.entries(GROWTH)) {
      assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), exhausted, pattern)
      assert.deepStrictEqual(await runtime.run({ program: 'return "alive"', bindings: [] }), { logs: [], value: 'alive' })
    }
    await dispose()
  })

  test('an array whose elements could never fit the cap ends the run as the heap\'s before V8 asks for them', async () => {
    const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 16, computeMs: 30_000 })
    const atSixteen = { logs: [], error: { ...exhausted.error, message: exhausted.error.message.replace('32', '16') } }
    // The runtime's first isolates are made before the resident memory is read.
    assert.deepStrictEqual(await runtime.run({ program: 'return 1', bindings: [] }), { logs: [], value: 1 })
    // V8 gives an array of up to 2^25 elements its whole backing store in one request: 128 MiB
    // for 2^24, which the near-limit hook would have to let through, whatever the cap.
    for (const program of [
      'const v = new Array(2 ** 24); return v.length',
      'return Array(3e7).fill(0).length',
      'const make = (n) => new Array(n); for (let i = 20; ; i++) make(2 ** i)',
      'try { new Array(2 ** 25) } catch { } return "caught"',
      // Array.from of an array-like makes its result at the array-like's length first. So do V8's
      // methods that copy an array; past 2^20 elements the world's grow theirs as they fill it
      // (here an array of 2^24 elements holding a single one).
      'return Array.from({ length: 2 ** 24 }, (_, i) => i).length',
      ...['toReversed()', 'toSorted()', 'toSpliced(0, 0, 1)', 'with(0, 1)'].map((call) => `const a = []; a[2 ** 24 - 1] = 1; return a.${call}.length`),
      "return Array.prototype.toReversed.call({ length: 2 ** 24 }).length",
    ]) {
      const { result, peakMiB } = await peakOfRun(runtime, program)
      assert.deepStrictEqual(result, atSixteen, program)
      // Within four times the cap (the arrays that fit, their garbage, the pool's next isolate),
      // where the one request took the process 128-280 MB above where it was.
      assert.ok(peakMiB < 64, `${program}: ${peakMiB.toFixed(0)} MB above the process before it`)
    }
    await dispose()
    // Arrays that fit, lengths V8 keeps in dictionary mode, and another Array, are as V8 makes them.
    const roomy = await setup({ maxOldGenerationSizeMb: 64 })
    const result = await roomy.runtime.run({
      program: `const fits = new Array(2 ** 21).fill(1).reduce((a, b) => a + b, 0)
const sparse = Array(2 ** 26).length
let Mine = class { constructor(n) { this.n = n } }
const own = (() => { const Array = Mine; return new Array(2 ** 24).n })()
let errors = []
for (const n of [-1, 2 ** 32, 1.5]) try { new Array(n) } catch (e) { errors.push(String(e)) }
const iterable = { length: 2 ** 24, *[Symbol.iterator]() { yield 1 } }
class Small extends Array {}
const from = [Array.from({ length: 3 }, (_, i) => i * 2), Array.from(iterable), Array.from('ab'), Small.from({ length: 2 }).length]
try { Array.from({ length: 2 ** 24 }, 5) } catch (e) { from.push(e.name) }
return [fits, sparse, own, new Array('3'), errors, from, Array.from.name, Array.from.length]`,
      bindings: [],
    })
    assert.deepStrictEqual(result, { logs: [], value: [2 ** 21, 2 ** 26, 2 ** 24, ['3'], Array(3).fill('RangeError: Invalid array length'),
      [[0, 2, 4], [1], ['a', 'b'], 2, 'TypeError'], 'from', 1] })
    // The copying methods keep V8's results and errors, on arrays, array-likes and strings.
    const copies = `const a = [3, 1, , 2]
const m = (f) => { try { return f() } catch (e) { return String(e) } }
// Node 20's V8 words the comparison function's TypeError otherwise: its name only.
const named = (f) => { try { return f() } catch (e) { return e.name } }
return JSON.stringify([a.toReversed(), a.toSorted(), a.toSorted((x, y) => y - x), a.toSpliced(1, 1, 'p', 'q'), a.toSpliced(),
  a.toSpliced(2), a.toSpliced(-1, 5), a.with(-1, 9), m(() => a.with(4, 1)), m(() => a.with(-5, 1)), named(() => a.toSorted(5)),
  a.with({ valueOf() { return 1 } }, 7), Array.prototype.toReversed.call('abc'), Array.prototype.with.call({ length: 2, 0: 'a' }, 1, 'b'),
  Array.prototype.toSpliced.call({ length: 3, 0: 1, 1: 2, 2: 3 }, { valueOf: () => 1 }, undefined),
  [[].toReversed, [].toSorted, [].toSpliced, [].with].map((f) => [f.name, f.length, String(f)])])`
    assert.deepStrictEqual(await roomy.runtime.run({ program: copies, bindings: [] }), { logs: [], value: runInNewContext(`(() => { ${copies} })()`) })
    await roomy.dispose()
  })

  test('a growing array is stopped while it fills a backing store V8 gave room past the limit, before it asks for the next', async () => {
    const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 64, computeMs: 30_000 })
    const atSixtyFour = { logs: [], error: { ...exhausted.error, message: exhausted.error.message.replace('32', '64') } }
    assert.deepStrictEqual(await runtime.run({ program: 'return 1', bindings: [] }), { logs: [], value: 1 })
    // V8 grows an array's store by half as it fills, and gives a young store its room whatever
    // the limit, with no collection: at this cap the 77 MB store comes beside the 51 MB one, and
    // filling it allocates nothing. Unstopped, the next request (115 MB) met the first collection
    // and its stop, with the 77 MB store still live: 190-200 MB above the process before.
    for (const program of [
      'const a = []; for (let k = 0; k < 2 ** 24; k++) a[k] = 0; return a.length',
      'const v = new Uint8Array(2 ** 24); return Array.prototype.with.call(v, 0, 1).length',
    ]) {
      // The run settles at its stop; V8 still makes the request it was collecting for.
      const { result, peakMiB } = await peakOfRun(runtime, program, 500)
      assert.deepStrictEqual(result, atSixtyFour, program)
      // The two stores, the typed array and the pool's next isolate: 130-140 MB.
      assert.ok(peakMiB < 160, `${program}: ${peakMiB.toFixed(0)} MB above the process before it`)
    }
    await dispose()
  })

  test('50 out-of-memory runs in a row leave the host healthy', async () => {
    const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 32, computeMs: 30_000 })
    const before = process.memoryUsage().rss
    for (let i = 0; i < 50; i++) {
      assert.deepStrictEqual(await runtime.run({ program: GROWTH['arrays of arrays (fatal for Node itself)'], bindings: [] }), exhausted)
    }
    assert.deepStrictEqual(await runtime.run({ program: 'return "alive"', bindings: [] }), { logs: [], value: 'alive' })
    const grown = process.memoryUsage().rss - before
    assert.ok(grown < 200 * 1024 * 1024, `resident memory grew by ${grown} bytes`)
    await dispose()
  })

  test('ArrayBuffers count against the cap and an over-ask is a catchable RangeError', async () => {
    const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 32 })
    const result = await runtime.run({
      program: `
        const out = []
        try { new ArrayBuffer(33 * 1024 * 1024) } catch (e) { out.push(String(e)) }
        const kept = []
        try { for (;;) kept.push(new Uint8Array(1024 * 1024)) } catch (e) { out.push(kept.length < 32, String(e)) }
        kept.length = 0
        return out
      `,
      bindings: [],
    })
    assert.deepStrictEqual(result, { logs: [], value: [
      'RangeError: Array buffer allocation failed', true, 'RangeError: Array buffer allocation failed',
    ] })
    await dispose()
  })

  test('Web Crypto results, keys and Blob stream chunks count against the cap', async () => {
    const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 32 })
    const keep = (read) => `
      const kept = []
      try { for (let i = 0; i < 40; i++) kept.push(await ${read}) } catch (e) { return [kept.length, String(e)] }
      return [kept.length]`
    const encryptions = await runtime.run({
      program: `const key = await crypto.subtle.generateKey({ name: 'AES-CTR', length: 128 }, false, ['encrypt'])
        const input = new Uint8Array(4 << 20)
        const first = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-CTR', counter: new Uint8Array(16), length: 64 }, key, new Uint8Array(3)))
        if (first.length !== 3) throw new Error('encrypt gave ' + first.length + ' bytes')
        ${keep("crypto.subtle.encrypt({ name: 'AES-CTR', counter: new Uint8Array(16), length: 64 }, key, input)")}`,
      bindings: [],
    })
    const exports = await runtime.run({
      program: `const key = await crypto.subtle.importKey('raw', new Uint8Array(4 << 20), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign'])
        ${keep("crypto.subtle.exportKey('raw', key)")}`,
      bindings: [],
    })
    const imports = await runtime.run({
      program: `const material = new Uint8Array(4 << 20)
        ${keep("crypto.subtle.importKey('raw', material, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])")}`,
      bindings: [],
    })
    const jwkImports = await runtime.run({
      program: `const jwk = { kty: 'oct', k: 'A'.repeat(4 << 20), alg: 'HS256' }
        ${keep("crypto.subtle.importKey('jwk', jwk, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])")}`,
      bindings: [],
    })
    // An encapsulation's buffers are copied into the heap, and still agree with the decapsulation.
    const encapsulated = await runtime.run({
      program: `const { publicKey, privateKey } = await crypto.subtle.generateKey({ name: 'ML-KEM-768' }, false, ['encapsulateBits', 'decapsulateBits'])
        const { sharedKey, ciphertext } = await crypto.subtle.encapsulateBits({ name: 'ML-KEM-768' }, publicKey)
        const decapsulated = new Uint8Array(await crypto.subtle.decapsulateBits({ name: 'ML-KEM-768' }, privateKey, ciphertext))
        return [sharedKey.byteLength, ciphertext.byteLength, new Uint8Array(sharedKey).every((byte, i) => byte === decapsulated[i])]`,
      bindings: [],
    })
    const streamed = await runtime.run({
      program: `const blob = new Blob([new Uint8Array(4 << 20)])
        ${keep('blob.stream().getReader().read().then(({ value }) => value)')}`,
      bindings: [],
    })
    await dispose()
    // 40 results of 4 MiB are 160 MiB: each run is refused part-way, as every ArrayBuffer is.
    assert.deepStrictEqual(encapsulated, { logs: [], value: [32, 1088, true] })
    for (const result of [encryptions, exports, imports, jwkImports, streamed]) {
      assert.equal(result.value.length, 2, JSON.stringify(result))
      assert.ok(result.value[0] >= 4 && result.value[0] < 10, JSON.stringify(result))
      assert.equal(result.value[1], 'RangeError: Array buffer allocation failed')
    }
  })

  test('memory that would bypass the cap is not available', async () => {
    const { runtime, dispose } = await setup()
    const result = await runtime.run({
      program: `
        const out = [typeof WebAssembly]
        for (const C of [ArrayBuffer, SharedArrayBuffer]) {
          try { new C(8, { maxByteLength: 2 ** 32 }) } catch (e) { out.push(String(e)) }
        }
        const plain = new ArrayBuffer(8)
        out.push(plain instanceof ArrayBuffer, plain.constructor === ArrayBuffer, plain.slice(2).byteLength)
        return out
      `,
      bindings: [],
    })
    assert.deepStrictEqual(result.value, [
      'undefined',
      "RangeError: resizable ArrayBuffers are not available: their memory would escape the run's heap cap",
      "RangeError: resizable SharedArrayBuffers are not available: their memory would escape the run's heap cap",
      true, true, 6,
    ])
    await dispose()
  })
})

describe('output ledger', () => {
  const withCap = (maxOutputBytes) => setup({ maxOutputBytes })
  const limit = (max, logs = []) => ({ logs, error: { kind: 'output-limit', message: `outer output exceeded ${max} bytes` } })

  test('UTF-8 boundary: "€" fits at 7 and not at 6', async () => {
    let { runtime, dispose } = await withCap(7)
    assert.deepStrictEqual(await runtime.run({ program: 'return "€"', bindings: [] }), { logs: [], value: '€' })
    await dispose();
    ({ runtime, dispose } = await withCap(6))
    assert.deepStrictEqual(await runtime.run({ program: 'return "€"', bindings: [] }), { logs: [], error: { kind: 'output-limit', message: 'ou' } })
    await dispose()
  })

  test('logs and value share the cap', async () => {
    let { runtime, dispose } = await withCap(11)
    assert.deepStrictEqual(await runtime.run({ program: 'console.log("abc"); return "xy"', bindings: [] }), { logs: ['abc'], value: 'xy' })
    assert.deepStrictEqual(await runtime.run({ program: 'console.log("abc"); throw "xy"', bindings: [] }), { logs: ['abc'], error: { kind: 'exception', message: 'xy' } })
    await dispose();
    ({ runtime, dispose } = await withCap(10))
    const cut = { logs: [], error: { kind: 'output-limit', message: 'outer ' } }
    assert.deepStrictEqual(await runtime.run({ program: 'console.log("abc"); return "xy"', bindings: [] }), cut)
    assert.deepStrictEqual(await runtime.run({ program: 'console.log("abc"); throw "xy"', bindings: [] }), cut)
    await dispose()
  })

  test('an overflowing log is repacked under the full message', async () => {
    const { runtime, dispose } = await withCap(4096)
    const result = await runtime.run({ program: 'console.log("x".repeat(10000)); return 1', bindings: [] })
    assert.deepStrictEqual(result, limit(4096, ['x'.repeat(4058)]))
    assert.equal(outputBytes(result), 4096)
    await dispose()
  })

  test('a flood of logs stops at the cap', async () => {
    const { runtime, dispose } = await withCap(300)
    const result = await runtime.run({ program: 'for (let i = 0; i < 1000; i++) console.log("spam line", i); return 1', bindings: [] })
    assert.deepStrictEqual(result.error, { kind: 'output-limit', message: 'outer output exceeded 300 bytes' })
    assert.equal('value' in result, false)
    // The message takes 33 bytes, leaving 267 for the logs: 18 whole lines take 261, then the
    // comma and quotes leave 3 characters of the next.
    const whole = Array.from({ length: 18 }, (_, i) => `spam line ${i}`)
    assert.deepStrictEqual(result.logs, [...whole, 'spa'])
    assert.equal(outputBytes(result), 300)
    await dispose()
  })

  test('a flood of lines with objects, written natively, stops at the cap as strings do', async () => {
    const { runtime, dispose } = await withCap(300)
    const result = await runtime.run({ program: 'for (let i = 0; i < 1000; i++) console.log("row", { i, name: "n" + i }); return 1', bindings: [] })
    assert.deepStrictEqual(result.error, { kind: 'output-limit', message: 'outer output exceeded 300 bytes' })
    // 267 bytes for the logs: 9 whole lines of 24 characters take 244, then the comma and quotes
    // leave 20 characters of the next.
    const whole = Array.from({ length: 9 }, (_, i) => `row { i: ${i}, name: 'n${i}' }`)
    assert.deepStrictEqual(result.logs, [...whole, "row { i: 9, name: 'n"])
    assert.equal(outputBytes(result), 300)
    await dispose()
  })

  test('escapes are metered: one log of emoji, quotes and backslashes at 96', async () => {
    const { runtime, dispose } = await withCap(96)
    const result = await runtime.run({ program: 'console.log("start-" + "😀\\"\\\\\\n".repeat(100)); return 1', bindings: [] })
    assert.deepStrictEqual(result.error, { kind: 'output-limit', message: 'outer output exceeded 96 bytes' })
    // 64 bytes for the log: brackets and quotes 4, `start-` 6, then 10 bytes per `😀"\\\n`
    // (4 + 2 + 2 + 2 escaped), five of them, and a last 😀 in the 4 bytes left.
    assert.deepStrictEqual(result.logs, ['start-' + '😀"\\\n'.repeat(5) + '😀'])
    assert.equal(outputBytes(result), 96)
    await dispose()
  })

  test('oversized values and messages never cross', async () => {
    const { runtime, dispose } = await withCap(64)
    assert.deepStrictEqual(await runtime.run({ program: 'return "y".repeat(10000)', bindings: [] }), limit(64))
    assert.deepStrictEqual(await runtime.run({ program: 'throw new Error("x".repeat(1e6))', bindings: [] }), limit(64))
    await dispose()
  })

  test('a strip failure obeys a cap of 4', async () => {
    const { runtime, dispose } = await withCap(4)
    const result = await runtime.run({ program: 'enum E { A }\nreturn 1', bindings: [] })
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'output-limit', message: '' } })
    await dispose()
  })

  test('lone surrogates are metered at 6 bytes and survive', async () => {
    const { runtime, dispose } = await withCap(2 + 8 + 8)
    const result = await runtime.run({ program: 'console.log("\\ud800"); return "\\udc00"', bindings: [] })
    assert.deepStrictEqual(result, { logs: ['\ud800'], value: '\udc00' })
    assert.equal(outputBytes(result), 18)
    await dispose()
  })

  test('the default cap takes a value of exactly its size, and not one byte more', async () => {
    const { runtime, dispose } = await setup()
    const fits = await runtime.run({ program: 'return "x".repeat(67108860)', bindings: [] })
    assert.equal(fits.error, undefined)
    assert.equal(fits.value.length, 67108860)
    assert.deepStrictEqual(await runtime.run({ program: 'return "x".repeat(67108861)', bindings: [] }), limit(67108864))
    assert.deepStrictEqual(await runtime.run({ program: 'return new Array(50000).fill(7)', bindings: [] }), { logs: [], value: new Array(50000).fill(7) })
    await dispose()
  })

  test('a run killed by a budget still shows what it printed', async () => {
    const { runtime, dispose } = await setup({ computeMs: 200 })
    const result = await runtime.run({ program: 'console.log("one"); console.log("two"); for (;;) {}', bindings: [] })
    assert.deepStrictEqual(result, { logs: ['one', 'two'], error: { kind: 'timeout', message: 'compute budget exhausted (200ms busy)' } })
    await dispose()
  })
})

describe('usage report', () => {
  const fields = ['busyMs', 'wallMs', 'startupMs', 'bindingCalls', 'bindingWaitMs', 'heapPeakBytes', 'outputBytes']

  test('runWithUsage reports what a run cost, beside the seam result', async () => {
    const { runtime, dispose } = await setup()
    const { result, usage } = await runtime.runWithUsage({
      program: 'console.log("abc"); await tools.wait({}); await Promise.all([tools.wait({}), tools.wait({})]); let x = 0; for (let i = 0; i < 3e6; i++) x += i; return "xy"',
      bindings: tools({ wait: () => sleep(50) .then(() => null) }),
    })
    assert.deepStrictEqual(result, { logs: ['abc'], value: 'xy' })
    assert.deepStrictEqual(Object.keys(usage), fields)
    assert.equal(usage.bindingCalls, 3)
    assert.equal(usage.outputBytes, 11)
    assert.ok(usage.bindingWaitMs >= 90 && usage.bindingWaitMs < usage.wallMs, `bindingWaitMs ${usage.bindingWaitMs}`)
    assert.ok(usage.busyMs > 0 && usage.busyMs < usage.wallMs, `busyMs ${usage.busyMs}`)
    assert.ok(usage.startupMs > 0 && usage.startupMs < usage.wallMs)
    assert.ok(usage.heapPeakBytes > 0)
    await dispose()
  })

  test('heapPeakBytes counts the ArrayBuffer memory a run held at once', async () => {
    const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 64 })
    const program = 'const held = [new ArrayBuffer(8 * 2 ** 20), new ArrayBuffer(4 * 2 ** 20)]; return held.length'
    const { result, usage } = await runtime.runWithUsage({ program, bindings: [] })
    assert.deepStrictEqual(result, { logs: [], value: 2 })
    // 12 MiB of buffers plus the heap's committed size, which stays far below the 64 MiB cap.
    assert.ok(usage.heapPeakBytes >= 12 * 2 ** 20 && usage.heapPeakBytes < 12 * 2 ** 20 + 32 * 2 ** 20, `heapPeakBytes ${usage.heapPeakBytes}`)
    await dispose()
  })

  test('every outcome has a usage report', async () => {
    const { runtime, dispose } = await setup({ computeMs: 100 })
    const controller = new AbortController()
    controller.abort('early')
    for (const [program, signal] of [['for (;;) {}'], ['throw "x"'], ['return 1', controller.signal], ['enum E { A }']]) {
      const { result, usage } = await runtime.runWithUsage({ program, bindings: [], signal })
      assert.deepStrictEqual(Object.keys(usage), fields)
      assert.equal(usage.outputBytes, outputBytes(result))
    }
    assert.equal('usage' in await runtime.run({ program: 'return 1', bindings: [] }), false)
    await dispose()
  })
})
