// Legitimate programs from a seed, built around what the runtime changes to stop hostile ones: the
// rewritten for-in loops, object spreads and rests (every pattern position), and the built-ins it
// stands in front of (Array.prototype's methods on array-likes and typed arrays, toLocaleString,
// the long-string methods, JSON). Each takes a value at a size around a threshold (2^16, 2^18,
// 2^20 characters), an exotic receiver (arguments, a proxy that logs its traps, getters, a
// sparse array), and an operation, sometimes one that fails; it returns a digest of what it saw,
// errors included, so that the runtime and plain Node can be compared. The same seed and index
// always give the same program. Values past what the runtime documents as refused are not
// generated: past 2^18 elements, a rest, or a spread with a named key of its own before members that
// do not define it.
import { pick, random } from '../fuzz/generate.mjs'

// Sizes at the guards' thresholds.
const SIZES = [0, 1, 3, 2 ** 16 - 1, 2 ** 16, 2 ** 16 + 1, 70_000, 2 ** 18]

const SPARSE = 'a sparse array of length 2^32 - 1'

/** Each gives an expression for a value of about `n` elements. */
const VALUES = {
  'a plain object': () => "({ a: 1, b: 'two', c: [3], 10: 'ten', 2: 'two' })",
  'an object with an inherited, a shadowed and a hidden key': () =>
    "Object.create({ inherited: 1, shadow: 0 }, { own: { value: 1, enumerable: true }, shadow: { value: 2, enumerable: false } })",
  'an array': (n) => `Array.from({ length: ${n} }, (_, i) => i % 7)`,
  'an array with holes and an extra key': (n) => `(() => { const a = Array.from({ length: ${n} }, (_, i) => i); delete a[1]; a.extra = 'x'; return a })()`,
  'a Uint8Array': (n) => `new Uint8Array(${n}).map((_, i) => i & 255)`,
  'a Float64Array': (n) => `new Float64Array(${n}).map((_, i) => i / 4)`,
  'a string': (n) => `'ab'.repeat(${Math.ceil(n / 2)})`,
  'a string object': (n) => `new String('xy'.repeat(${Math.ceil(n / 2)}))`,
  'an arguments object': () => "(function () { return arguments })(1, 'b', [3], { d: 4 })",
  'an array-like': () => "({ length: 5, 0: 'a', 1: 'b', 3: 'd', 4: null })",
  'a proxy that logs its traps': () => `new Proxy({ a: 1, b: 2 }, Object.fromEntries(['get', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'getPrototypeOf']
    .map((trap) => [trap, (...args) => (log.push(trap + ' ' + String(args[1])), Reflect[trap](...args))])))`,
  'an object with getters that log': () => "({ get a() { log.push('get a'); return { x: 1, y: 2 } }, get b() { log.push('get b'); return 2 }, c: 3 })",
  [SPARSE]: () => '(() => { const a = []; a[2 ** 32 - 2] = 1; a[5] = 2; return a })()',
  'null': () => 'null',
  'undefined': () => 'undefined',
  'a number': () => '5',
}

/** Each is a body that reads `v` (and may push to `log`) and returns what it saw. */
const OPERATIONS = [
  'const keys = []; for (const k in v) keys.push(k); return keys',
  'const keys = []; for (const k in v) { keys.push(k); if (keys.length === 1 && v && typeof v === "object") { delete v.b; delete v[3] } } return keys',
  'const keys = []; for (const { length, ...r } in v) keys.push([length, r]); return keys',
  'return { ...v }',
  'return { first: 1, ...v, last: 2 }',
  'const { 0: first, a, ...rest } = v; return [first, a, rest]',
  'const [x, { 1: second, ...rest }] = [0, v]; return [x, second, rest]',
  'const { inner: { a, ...rest } } = { inner: v }; return [a, rest]',
  'return [[0, v]].map(([k, { length, ...rest }]) => [k, length, rest])',
  'const out = []; for (const [k, { a, ...rest }] of [["k", v]]) out.push(k, a, rest); return out',
  'try { throw { value: v } } catch ({ value: { a, ...rest } }) { return [a, rest] }',
  'try { throw v } catch ({ message, ...rest }) { return [message, rest] }',
  'const f = (p, { a, ...rest } = {}, ...more) => [p, a, rest, more, f.length]; return f(1, v, 3)',
  'let a, rest; ({ a, ...rest } = v); return [a, rest]',
  'return Array.prototype.slice.call(v, 1, 6)',
  'return Array.prototype.map.call(v, (x, i) => i < 8 ? x : 0).slice(0, 8)',
  'return Array.prototype.filter.call(v, (x, i) => i % 5000 === 1)',
  "return Array.prototype.join.call(v, ';').length",
  'return [Array.prototype.indexOf.call(v, 3), Array.prototype.includes.call(v, 6), Array.prototype.lastIndexOf.call(v, 1)]',
  'return Array.prototype.toLocaleString.call(v).slice(0, 200)',
  'return [Array.prototype.at.call(v, -1), Array.prototype.findLast.call(v, (x) => x === 2)]',
  'return Array.prototype.reduce.call(v, (s, x) => s + (typeof x === "number" ? x : 1), 0)',
  'return typeof v === "number" ? [v.toLocaleString(), v.toLocaleString("de-DE"), (v * 1234.5).toLocaleString()] : String(v).length',
  'return JSON.stringify(v)',
  "return String(v).replace(/b/g, '[$`]').length",
  "const s = String(v); return [s.lastIndexOf('ab'.repeat(150)), s.lastIndexOf(s.slice(-300)), s.indexOf('ba', 5)]",
  'return Object.keys(v).length',
  'return Object.getOwnPropertySymbols(Array.prototype).map(String)',
  'const keys = []; outer: for (const r of [1, 2]) for (const k in v) { keys.push(r + k); if (keys.length % 3 === 0) continue outer } return keys',
  'let n = 0, last; for (const k in v) { last = k; if (++n === 70001) break } return [n, last]',
  'const o = { set s({ 0: first, ...rest }) { this.got = [first, Object.keys(rest).length] } }; o.s = v; return o.got',
  'const out = []; for await (const { 0: first, ...rest } of [v]) out.push(first, Object.keys(rest).length); return out',
  'const [x, ...[{ 0: first, ...rest }]] = [0, v]; return [first, Object.keys(rest).length]',
  "return ['toJSON' in new Uint8Array(1), JSON.stringify({ v }).length]",
]

/** Program `index` of campaign `seed`: `{ program, value, size, operation }`. */
export function generate(seed, index) {
  const next = random(seed * 1_000_003 + index)
  const valueName = pick(next, Object.keys(VALUES))
  let size = pick(next, SIZES)
  let operation = pick(next, OPERATIONS)
  // A sparse array's length is 2^32 - 1: only a for-in lists it in moments, in Node too.
  if (valueName === SPARSE) operation = pick(next, OPERATIONS.filter((body) => body.includes(' in v)')))
  // Node takes seconds to destructure 2^18 keys with a rest each.
  if (operation.includes('...r } in v')) size = Math.min(size, 2 ** 16 + 1)
  // A literal's last spread, with members after it that run no code, is copied at any length: one
  // element past the bound.
  const copied = operation === 'return { ...v }' || (operation === 'return { first: 1, ...v, last: 2 }' && valueName !== 'an array with holes and an extra key')
  if (copied && size === 2 ** 18) size = 2 ** 18 + 1
  const program = `const log = []
const v = ${VALUES[valueName](size)}
const seen = await (async () => { try { return { value: await (async () => { ${operation} })() } } catch (e) { return { error: e?.constructor?.name + ': ' + e?.message } } })()
return { log, digest: digest(seen) }
${DIGEST}`
  return { program, value: valueName, size, operation }
}

// The same in both: a short text for any result (sizes, heads, tails and a hash of the whole).
const DIGEST = `function digest(value) {
  let hash = 0, count = 0
  const mix = (text) => { for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0; count++ }
  const walk = (x, depth) => {
    if (typeof x === 'bigint') return mix(x + 'n')
    if (typeof x !== 'object' || x === null) return mix(typeof x + ':' + String(x))
    if (depth > 4) return mix('deep')
    const keys = Reflect.ownKeys(x)
    mix((Array.isArray(x) ? 'array ' : 'object ') + keys.length)
    for (const key of keys) { mix(String(key)); walk(x[key], depth + 1) }
  }
  walk(value, 0)
  const text = JSON.stringify(value, (k, x) => typeof x === 'bigint' ? x + 'n' : x === undefined ? 'undefined' : x)
  return (text === undefined ? 'undefined' : text.length > 300 ? text.slice(0, 200) + '…' + text.slice(-60) : text) + ' #' + count + ':' + hash
}`
