// The world grew (the web platform, Buffer, node: modules) and still gives no authority: nothing
// a program can reach leads to an op, to deno_core or to the host.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { setup, tools } from './helpers.mjs'

// Visits every object reachable from the global object and from every importable module, through
// own properties (values and accessors, never calling a getter), prototypes and the internal
// slots a program can read (Map and Set contents, bound targets are not reachable). Reports
// anything that looks like deno_core: an `ops` object, a function named `op_*`, `Deno`,
// `__bootstrap`, or `core`/`primordials`/`internals` members.
const WALK = `
  const modules = ['node:assert', 'node:assert/strict', 'node:buffer', 'node:crypto', 'node:events', 'node:path',
    'node:querystring', 'node:string_decoder', 'node:timers', 'node:timers/promises', 'node:url', 'node:util']
  const roots = [globalThis]
  for (const name of modules) roots.push(await import(name))
  // Lazily made objects, made now so that they are walked too.
  roots.push(crypto, crypto.subtle, performance, new AbortController(), new Blob(['x']), new URL('https://a.b/?c=d'))
  const seen = new Set()
  const found = []
  const queue = [...roots]
  const suspicious = /^(op_|ops$|Deno$|__bootstrap$|core$|primordials$|internals$)/
  while (queue.length) {
    const value = queue.pop()
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue
    seen.add(value)
    if (typeof value === 'function' && /^op_/.test(value.name)) found.push('function ' + value.name)
    queue.push(Object.getPrototypeOf(value))
    for (const key of Reflect.ownKeys(value)) {
      const name = typeof key === 'symbol' ? String(key.description) : key
      if (suspicious.test(name)) found.push(name)
      const descriptor = Object.getOwnPropertyDescriptor(value, key)
      queue.push(descriptor.value, descriptor.get, descriptor.set)
    }
  }
  return { objects: seen.size, found }
`

test('nothing reachable from the global object or any importable module leads to an op or to deno_core', async () => {
  const { runtime, dispose } = await setup({ computeMs: 20_000 })
  const result = await runtime.run({ program: WALK, bindings: tools({ echo: async (x) => x }) })
  await dispose()
  assert.equal(result.error, undefined, JSON.stringify(result.error))
  assert.deepStrictEqual(result.value.found, [])
  // The walk really walked: the web platform and the modules hold over a thousand objects.
  assert.ok(result.value.objects > 1000, `walked ${result.value.objects} objects`)
})

test('the ops the web platform uses are unreachable, and those it does not use are gone or disabled', async () => {
  const { runtime, dispose } = await setup()
  // Blob URLs would reach a store shared with nothing, but the API is refused all the same.
  const program = `
    const refused = []
    try { URL.createObjectURL(new Blob(['x'])) } catch (e) { refused.push(e.name) }
    return { refused, fetch: typeof fetch, worker: typeof Worker, port: typeof MessageChannel, broadcast: typeof BroadcastChannel, wasm: typeof WebAssembly }
  `
  const result = await runtime.run({ program, bindings: [] })
  await dispose()
  assert.deepStrictEqual(result.value, { refused: ['TypeError'], fetch: 'undefined', worker: 'undefined', port: 'undefined', broadcast: 'undefined', wasm: 'undefined' })
})

test('Web Crypto work that would escape the budgets or the heap cap is refused before it starts', async () => {
  const { runtime, dispose } = await setup()
  const refusal = async (call) => (await runtime.run({ program: `try { await ${call}; return 'ran' } catch (e) { return [e.name, e.message] }`, bindings: [] })).value
  const key = "await crypto.subtle.importKey('raw', new Uint8Array(8), 'PBKDF2', false, ['deriveBits'])"
  assert.deepStrictEqual(await refusal(`crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: new Uint8Array(8), iterations: 1e9 }, ${key}, 256)`),
    ['NotSupportedError', 'PBKDF2 is limited to 1000000 iterations of 160 output bits (a quarter of that with SHA-384 or SHA-512), and to 65536 bits, here: nothing can stop its work part-way'])
  assert.equal(await refusal(`crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-512', salt: new Uint8Array(8), iterations: 250000 }, ${key}, 160)`), 'ran')
  assert.equal((await refusal(`crypto.subtle.deriveBits({ name: 'PBKDF2', hash: { name: 'SHA-512' }, salt: new Uint8Array(8), iterations: 250001 }, ${key}, 160)`))[0], 'NotSupportedError')
  // A getter cannot answer one thing to the check and another to the work.
  const sly = "{ name: 'PBKDF2', hash: 'SHA-256', salt: new Uint8Array(8), get iterations() { return (this.n = (this.n ?? 0) + 1) === 1 ? 10 : 1e9 } }"
  assert.equal(await refusal(`crypto.subtle.deriveBits(${sly}, ${key}, 256)`), 'ran')
  assert.deepStrictEqual(await refusal("crypto.subtle.generateKey({ name: 'RSA-PSS', modulusLength: 4096, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign'])"),
    ['NotSupportedError', 'generated RSA keys are limited to 2048 bits here: a larger one takes seconds of CPU that nothing can stop (keys of any size can be imported)'])
  // SLH-DSA's small-signature sets take seconds per signature; the fast ones stay.
  assert.deepStrictEqual(await refusal("crypto.subtle.generateKey('SLH-DSA-SHA2-128s', false, ['sign'])"),
    ['NotSupportedError', "SLH-DSA-SHA2-128s keys and signatures are not available here: each takes seconds of CPU that nothing can stop; the fast parameter sets (ending in 'f') are"])
  assert.equal(await refusal("crypto.subtle.generateKey('SLH-DSA-SHA2-128f', false, ['sign', 'verify']).then((k) => crypto.subtle.sign('SLH-DSA-SHA2-128f', k.privateKey, new Uint8Array(4)))"), 'ran')
  assert.deepStrictEqual(await refusal(`crypto.subtle.deriveBits({ name: 'Argon2id', memory: 4e9, passes: 1, parallelism: 1, nonce: new Uint8Array(16) }, ${key}, 256)`),
    ['NotSupportedError', "Argon2 is not available: its memory would escape the run's heap cap"])
  assert.equal(await refusal(`crypto.subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: new Uint8Array(8), iterations: 1000 }, ${key}, 256)`), 'ran')
  // Extendable outputs and KMAC: a 2^32 - 8 bit output was a 512 MB buffer outside the cap.
  for (const name of ['cSHAKE128', 'cSHAKE256', 'TurboSHAKE128', 'TurboSHAKE256', 'KT128', 'KT256']) {
    assert.deepStrictEqual(await refusal(`crypto.subtle.digest({ name: '${name}', outputLength: 2 ** 32 - 8 }, new Uint8Array(1))`),
      ['NotSupportedError', `${name} is limited to 65536 bits of output here: a longer one would escape the run's heap cap`], name)
  }
  const kmacKey = "await crypto.subtle.importKey('raw', new Uint8Array(32), { name: 'KMAC128' }, false, ['sign'])"
  assert.deepStrictEqual(await refusal(`crypto.subtle.sign({ name: 'KMAC128', length: 2 ** 32 - 8 }, ${kmacKey}, new Uint8Array(1))`),
    ['NotSupportedError', "KMAC128 is limited to 65536 bits of output here: a longer one would escape the run's heap cap"])
  const sized = await runtime.run({ program: "return (await crypto.subtle.digest({ name: 'cSHAKE256', outputLength: 65536 }, new Uint8Array(1))).byteLength", bindings: [] })
  assert.deepStrictEqual(sized, { logs: [], value: 8192 })
  await dispose()
})

test('Blob bytes count against the ArrayBuffer cap', async () => {
  const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 16 })
  const program = `
    const chunk = new Uint8Array(4 << 20)
    const kept = []
    try { for (let i = 0; i < 64; i++) kept.push(new Blob([chunk])) } catch (e) { return [kept.length < 16, e.name, e.message] }
    return 'all kept'
  `
  const result = await runtime.run({ program, bindings: [] })
  await dispose()
  assert.deepStrictEqual(result.value, [true, 'RangeError', "a Blob part of 4194304 bytes does not fit the run's ArrayBuffer memory cap"])
})

test('a Blob\'s text parts count against the ArrayBuffer cap once, in UTF-8 as the web platform encodes them', async () => {
  const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 64 })
  // Each part's UTF-8 is the part: 15 of 4 MiB fit a 64 MB cap beside the world's own buffers.
  // deno_core encoded each outside the cap and the store copied it, counted: the copies filled the
  // cap while the encodings waited, uncounted, for a collection.
  const kept = await runtime.run({
    program: `
      const text = ','.repeat(4 << 20)
      const kept = []
      try { for (let i = 0; i < 64; i++) kept.push(new Blob([text])) } catch (e) { return [kept.length, e.name, e.message] }
      return 'all kept'`,
    bindings: [],
  })
  const exact = await runtime.run({
    program: `
      const blob = new Blob(['h\\u00e9\\ud800x', '\\u{1F600}', new Uint8Array([1, 2]), 'z'])
      return [blob.size, [...new Uint8Array(await blob.arrayBuffer())], [...new Uint8Array(await blob.slice(1, 4).arrayBuffer())], await new Blob(['ab', 'cd']).text()]`,
    bindings: [],
  })
  await dispose()
  assert.deepStrictEqual(kept.value, [15, 'RangeError', "the 4194304 bytes of a text's UTF-8 do not fit the run's ArrayBuffer memory cap"])
  assert.deepStrictEqual(exact.value, [14, [104, 195, 169, 239, 191, 189, 120, 240, 159, 152, 128, 1, 2, 122], [195, 169, 239], 'abcd'])
})

test('a Blob\'s stream keeps its bytes after the Blob itself is collected', async () => {
  const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 64, computeMs: 5000 })
  // Only the reader holds the Blob; the garbage makes V8 collect it, the timer lets its finaliser run.
  const program = `
    const reader = new Blob([new Uint8Array(1 << 20).fill(7), 'ab']).stream().getReader()
    let sum = 0
    for (let i = 0; i < 300; i++) sum += new Array(1e5).fill(i).length
    await new Promise((resolve) => setTimeout(resolve, 50))
    const chunks = []
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return chunks
      chunks.push([value.length, value[0]])
    }
  `
  const result = await runtime.run({ program, bindings: [] })
  await dispose()
  assert.deepStrictEqual(result, { logs: [], value: [[1048576, 7], [2, 97]] })
})

test('TextEncoder output counts against the ArrayBuffer cap', async () => {
  const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 64, computeMs: 5000 })
  const program = `
    const kept = []
    try { for (let i = 0; i < 100; i++) kept.push(new TextEncoder().encode('a'.repeat(1 << 24))) } catch (e) { return [kept.length, e.name] }
    return 'all kept'
  `
  const result = await runtime.run({ program, bindings: [] })
  const exact = await runtime.run({ program: "const e = new TextEncoder(); return [[...e.encode('ab😀c')], e.encode('é'.repeat(10)).buffer.byteLength]", bindings: [] })
  await dispose()
  assert.deepStrictEqual(result.value, [3, 'RangeError'])
  assert.deepStrictEqual(exact.value, [[97, 98, 240, 159, 152, 128, 99], 20])
})

test('TextEncoderStream output counts against the ArrayBuffer cap, chunk by chunk as in Node', async () => {
  const { runtime, dispose } = await setup({ maxOldGenerationSizeMb: 64, computeMs: 5000 })
  const encode = (chunks) => `(async () => {
    const stream = new TextEncoderStream()
    const writer = stream.writable.getWriter()
    for (const chunk of ${chunks}) writer.write(chunk)
    writer.close()
    const out = []
    for await (const bytes of stream.readable) out.push(bytes)
    return out
  })()`
  const program = `
    const text = 'a'.repeat(1 << 24)
    const kept = []
    try { for (let i = 0; i < 100; i++) kept.push(...await ${encode('[text]')}) } catch (e) { return [kept.length, e.name] }
    return 'all kept'
  `
  const result = await runtime.run({ program, bindings: [] })
  // Surrogate pairs split across chunks, a lone one before a non-string chunk, one left at the end.
  const exact = await runtime.run({
    program: `return (await ${encode("['a€\\ud83d', '', '\\ude00b\\ud800', 7, '\\ud800']")}).map((bytes) => [...bytes])`,
    bindings: [],
  })
  await dispose()
  assert.deepStrictEqual(result.value, [3, 'RangeError'])
  // Node 20's own TextEncoderStream gives these chunks.
  assert.deepStrictEqual(exact.value, [[97, 226, 130, 172], [240, 159, 152, 128, 98], [239, 191, 189, 55], [239, 191, 189]])
})
