// Hostile programs from a seed: a value shaped to hurt (huge lengths, sparse arrays, array-likes,
// proxies, getters and toStrings that loop or throw, species, revoked proxies, deep nesting, long
// strings) handed to a boundary where the runtime or a built-in touches it (built-ins, the web
// platform, node: modules, binding calls, console, completion), under one stop (compute, wall,
// abort, disposal). The same seed and index always give the same program.

/** A small, fast PRNG (mulberry32): reproducible across runs and machines. */
export function random(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export const pick = (next, list) => list[Math.floor(next() * list.length)]

/** Expressions for the hostile value, bound to `v`. */
const VALUES = [
  "'x'.repeat(2 ** 22)",
  "'\\u0101'.repeat(2 ** 21)",
  "'a,'.repeat(2 ** 20)",
  '{ length: 2 ** 53 - 1 }',
  '{ length: 2 ** 32, 0: 1, [2 ** 32 - 2]: 2 }',
  '(() => { const a = []; a[2 ** 32 - 2] = 1; return a })()',
  'new Array(2 ** 24)',
  'Array.from({ length: 2 ** 24 })',
  'Array.from({ length: 2 ** 16 }, (_, i) => ({ i, s: String(i) }))',
  'new Uint8Array(2 ** 24)',
  'new Float64Array(2 ** 20)',
  "new Proxy({}, { get() { for (;;) {} } })",
  "new Proxy([], { get(t, k) { if (k === 'length') return 2 ** 32 - 1; throw new Error('trap') } })",
  "(() => { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy })()",
  "{ toString() { for (;;) {} } }",
  "{ toString() { throw new Error('no') }, valueOf() { return 1 } }",
  "{ get x() { for (;;) {} }, y: 1 }",
  "(() => { let o = {}; for (let i = 0; i < 1e5; i++) o = { o }; return o })()",
  "(() => { let a = []; for (let i = 0; i < 1e5; i++) a = [a]; return a })()",
  "(() => { const a = [1, 2, 3]; a.constructor = { [Symbol.species]: function () { for (;;) {} } }; return a })()",
  "(() => { const o = {}; o.self = o; return o })()",
  'Symbol("s")',
  '123456789n ** 1000n',
  "new Map(Array.from({ length: 2 ** 16 }, (_, i) => [i, i]))",
  "{ [Symbol.toPrimitive]() { return 'p'.repeat(2 ** 20) } }",
]

/** Statements that touch `v`; each may throw, which the program catches. */
const USES = [
  'v.length', 'String(v)', 'JSON.stringify(v)', "JSON.parse(JSON.stringify(v) ?? 'null')", 'structuredClone(v)',
  'Array.from(v)', '[...v]', 'Object.keys(v).length', 'Object.fromEntries(Object.entries(v))',
  'Reflect.ownKeys(v).length', 'Object.assign({}, v)', 'for (const k in v) {}', '({ ...v })',
  'Array.prototype.join.call(v)', 'Array.prototype.indexOf.call(v, 7)', 'Array.prototype.includes.call(v, 7)',
  'Array.prototype.sort.call(v)', 'Array.prototype.reverse.call(v)', 'Array.prototype.fill.call(v, 0)',
  'Array.prototype.lastIndexOf.call(v, 7)', 'Array.prototype.map.call(v, (x) => x)', 'Array.prototype.flat.call(v, Infinity)',
  'Array.prototype.concat.call([], v)', 'Array.prototype.slice.call(v)', 'Array.prototype.splice.call(v, 0, 1)',
  'Array.prototype.toReversed.call(v)', 'Array.prototype.with.call(v, 0, 1)',
  'String(v).normalize("NFD")', 'String(v).toUpperCase()', 'String(v).localeCompare("b")', 'String(v).split("")',
  'String(v).replace(/a/g, "bb")', 'String(v).match(/x/g)', 'String(v).padStart(2 ** 24)', 'String(v).repeat(64)',
  'new Intl.Segmenter().segment(String(v))', 'new Intl.Collator().compare(String(v), "a")',
  'new Intl.DateTimeFormat("ja-JP-u-ca-japanese", { dateStyle: "full" }).formatRange(0, String(v).length)',
  'Function.prototype.toString.call(v)', 'String((o) => { for (const k in o) while (0); return { ...v } })',
  '(() => { let n = 0; for (const k in v) if (++n > 3) break })()', '(() => { const o = { set s({ ...r }) {} }; o.s = v })()',
  '(async () => { for await (const { ...r } of [v]) ; })().catch(() => {})', '(() => { const [a, ...[{ ...r }]] = [0, v] })()',
  '(() => { const [...{ ...r }] = v })()',
  '(Error.prepareStackTrace = (e, s) => s.map((c) => [c.getColumnNumber(), String(c)]), new Error(String(v)).stack)',
  'new TextEncoder().encode(String(v))', 'new TextDecoder().decode(new TextEncoder().encode(String(v)))',
  'new URLSearchParams(String(v))', 'new URL("http://h/?" + String(v))', 'btoa(String(v))', 'atob(String(v))',
  'Buffer.from(String(v)).toString("base64")', 'new Blob([String(v)]).size',
  'crypto.subtle.digest("SHA-256", new TextEncoder().encode(String(v)))',
  'console.log(v)', 'console.log(String(v))', 'tools.echo(v)', 'tools.slow(v)',
  '(await import("node:util")).inspect(v)', '(await import("node:querystring")).parse(String(v))',
  '(await import("node:path")).join(String(v), "x")', 'new Uint8Array(v).fill(1)', 'new Uint8Array(v).sort()',
  'Object.getPrototypeOf(Uint8Array.prototype).copyWithin.call(new Uint8Array(2 ** 24), 0, 1)',
  // Lists V8 reads to their length: of locales, of raw strings, of properties, of captures.
  'Intl.getCanonicalLocales(v)', '(1).toLocaleString(v)', 'String.raw({ raw: v })', 'JSON.stringify({ a: 1 }, v)',
  "'a'.replace(Object.assign(/a/, { exec: () => v }), 'b')",
  // A list ICU formats in one step.
  'new Intl.ListFormat().format(v)',
]

const SHAPES = [
  (use) => `try { ${use} } catch {}`,
  (use) => `for (;;) { try { ${use} } catch {} }`,
  (use) => `for (let i = 0; i < 64; i++) { try { ${use} } catch {} }`,
  (use) => `await Promise.all(Array.from({ length: 8 }, async () => { try { ${use} } catch {} }))`,
  (use) => `setTimeout(() => { ${use} }, 1); await new Promise((r) => setTimeout(r, 50))`,
  (use) => `await new Promise((r) => setImmediate(() => { try { ${use} } catch {} r() }))`,
  (use) => `for (let i = 0; i < 16; i++) setImmediate(() => { try { ${use} } catch {} }); await new Promise((r) => setTimeout(r, 50))`,
  (use) => `return ${use}`,
  // A use made about `spare` frames short of V8's stack limit (the same function recurses to the
  // limit, then to `spare` short of it), where what the runtime does for the use (a first node:
  // import, an op, a conversion) may find too little stack left.
  (use, spare) => `{ let frames = 0; const deep = (n, f) => { if (n === 0) return f(); frames++; return deep(n - 1, f) }
try { deep(-1) } catch {} const room = frames; try { await deep(Math.max(room - ${spare}, 0), async () => { try { ${use} } catch {} }) } catch {} }`,
]

const STOPS = ['compute', 'wall', 'abort', 'dispose']

/** Program number `index` of campaign `seed`: its text, its config and how it is stopped. */
export function generate(seed, index) {
  const next = random(seed * 1_000_003 + index)
  const value = pick(next, VALUES)
  const uses = Array.from({ length: 1 + Math.floor(next() * 2) }, () => pick(next, USES))
  const shape = pick(next, SHAPES)
  // Spare frames for the deep shape, log-uniform in 1 to 8192 so that every depth class is tried.
  const spare = Math.floor(2 ** (next() * 13))
  const body = uses.map((use) => shape(use, spare)).join('\n')
  const program = `const v = (() => { try { return ${value} } catch (e) { return e } })()\n${body}`
  const stop = pick(next, STOPS)
  const config = {
    computeMs: stop === 'compute' ? 200 + Math.floor(next() * 300) : 5_000,
    maxWallMs: stop === 'wall' ? 300 + Math.floor(next() * 300) : 3_000,
    maxOldGenerationSizeMb: pick(next, [16, 64]),
    maxOutputBytes: pick(next, [1024, 1 << 20]),
    isolatePool: 1,
  }
  const stopAtMs = stop === 'abort' || stop === 'dispose' ? 50 + Math.floor(next() * 250) : undefined
  return { seed, index, program, config, stop, stopAtMs }
}
