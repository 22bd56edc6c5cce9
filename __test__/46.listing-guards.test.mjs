// for-in loops and object spreads go through the world's guards (src/program/listing_guards.rs,
// src/js/listing_guards.js): a long value's keys are listed lazily in JavaScript, a long value's
// spread is copied in JavaScript when it is its literal's last spread and the members after it run
// no code, and refused elsewhere, and everything else is exactly what Node's V8 does.
import { createRequire } from 'node:module'
import { runInNewContext } from 'node:vm'
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { msUntilNoRunIsLeft, setup } from './helpers.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')

let runtime, dispose
before(async () => ({ runtime, dispose } = await setup({ computeMs: 500, isolatePool: 1 })))
after(() => dispose())

/** What Node gives for `program`, run as an async function body in a realm of its own, as JSON. */
async function inNode(program) {
  return JSON.parse(JSON.stringify(await runInNewContext(`(async () => {\n${program}\n})()`)))
}

// Each returns what its loops saw, as JSON-friendly values.
const SAME_AS_NODE = {
  'a spread of a long array that is its literal\'s only member': `const a = Array.from({ length: 270000 }, (_, i) => i)
a.extra = 'x'; a[Symbol('s')] = 1; Object.defineProperty(a, 7, { value: 'hidden', enumerable: false })
const copy = { .../* one */ a }, keys = Object.keys(copy)
return [keys.length, keys.slice(0, 8), keys.slice(-3), Object.getOwnPropertySymbols(copy).map(String), 7 in copy, copy[269999]]`,
  'a long value\'s spread beside other members, the last spread with members after it that run no code': `const a = Array.from({ length: 270000 }, (_, i) => i)
const x = 'X', of = (copy) => { const keys = Object.keys(copy); return [keys.length, keys.slice(0, 3), keys.slice(-4), copy[1], copy[5], copy[269999]] }
return [of({ x: 1, ...a }), of({ 0: 'a', 1: 'b', ...a, 1: 'c', z: 2 }),
  of({ ...a, get g() { return 1 }, set h(v) {}, x, 'y-z': \`t\`, 7: -1, 1e21: null, 0x10: 10, m() {}, f: function () {}, r: /r/g }),
  of({ ...a, meta: { n: [1, , x], t: typeof x, b: !x, u: void 0 } })]`,
  'a long value\'s spread beside other members: its own named keys, a prototype, a method\'s super': `const t = new Uint8Array(270000).fill(3), named = Array.from({ length: 270000 }, (_, i) => -i); named.q = 'Q'
const of = (copy) => { const keys = Object.keys(copy); return [keys.length, keys.slice(0, 3), keys.slice(-4), copy[1], copy[5], copy[269999]] }
const proto = { p: 1 }, withProto = { ...t, __proto__: proto, k: 1 }, withMethod = { ...t, m() { return super.p } }
Object.setPrototypeOf(withMethod, proto)
return [of({ q: 0, ...named, b: 2 }), of({ a: 1, ...named }), [of(withProto), Object.getPrototypeOf(withProto) === proto], [of(withMethod), withMethod.m()]]`,
  'a long string\'s spread beside other members, and after short spreads': `const t = new Uint8Array(270000).fill(3)
const of = (copy) => { const keys = Object.keys(copy); return [keys.length, keys.slice(0, 3), keys.slice(-4), copy[1], copy[5], copy[269999]] }
return [of({ ...'ab'.repeat(135000), length: 5, 3: 'three' }), of({ ...[1, 2], ...{ y: 2 }, ...t })]`,
  'a spread of a long string or string object that is its literal\'s only member': `const text = new String('z'.repeat(270000)); text.p = 1
const of = (copy) => { const keys = Object.keys(copy); return [keys.length, keys.slice(0, 2), keys.slice(-2), copy[269999]] }
return [of({ ...'y'.repeat(270001) }), of({ ...text })]`,
  'a spread of a long typed array, sparse array or holey array that is its literal\'s only member': `const sparse = []; sparse[5] = 1; sparse[2 ** 32 - 2] = 2
const holey = new Array(270000); holey[0] = 'first'; holey[150000] = 'mid'; holey[269999] = 'last'
const of = (copy) => { const keys = Object.keys(copy); return [keys.length, keys.slice(0, 3), keys.slice(-3), copy[keys[keys.length - 1]]] }
return [of({ ...new Uint8Array(270002).fill(7) }), of({ ...sparse }), of({ ...holey })]`,
  'the getters of a long array spread that is its literal\'s only member, called in V8\'s order': `const calls = []
const a = new Array(270000).fill(0)
Object.defineProperty(a, 3, { get() { calls.push(3); delete a[5]; a[270001] = 'added'; return 'three' }, enumerable: true })
Object.defineProperty(a, 'named', { get() { calls.push('named'); return 'n' }, enumerable: true })
const copy = { ...a }
return [calls, copy[3], 5 in copy, 270001 in copy, copy.named, Object.keys(copy).length]`,
  'a plain object, its prototype chain and shadowing': `const base = { a: 1, shadowed: 2 }
const o = Object.create(base); o.z = 1; o[2] = 1; o[1] = 1; o.b = 1
Object.defineProperty(o, 'shadowed', { value: 3, enumerable: false })
const keys = []; for (const k in o) keys.push(k); return keys`,
  'keys deleted or added while the loop runs': `const o = { a: 1, b: 2, c: 3 }; const keys = []
for (const k in o) { keys.push(k); delete o.b; o.d = 4 } return keys`,
  'left sides that are a name called async, a member and a pattern': `let async; const seen = { keys: [] }, keys = []
for (async in { a: 1 }) keys.push(async); for (seen.last in { b: 1, c: 2 }) seen.keys.push(seen.last)
for (const [first] in { xy: 1 }) keys.push(first); return [keys, seen]`,
  'null, undefined, a number and a short string': `const keys = []
for (const k in null) keys.push(k); for (const k in undefined) keys.push(k); for (const k in 5) keys.push(k)
for (const k in 'abc') keys.push(k); return keys`,
  'a proxy, whose traps are called as V8 calls them': `const calls = []
const p = new Proxy({ a: 1, b: 2 }, {
  ownKeys(t) { calls.push('ownKeys'); return Reflect.ownKeys(t) },
  getOwnPropertyDescriptor(t, k) { calls.push('gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k) },
  has(t, k) { calls.push('has ' + String(k)); return Reflect.has(t, k) },
})
const keys = []; for (const k in p) keys.push(k); return [keys, calls]`,
  'proxies on a chain, their traps interleaved with the loop as V8 calls them': `const calls = []
const handler = {
  ownKeys(t) { calls.push('ownKeys'); return Reflect.ownKeys(t) },
  getOwnPropertyDescriptor(t, k) { calls.push('gopd ' + String(k)); return Reflect.getOwnPropertyDescriptor(t, k) },
  getPrototypeOf(t) { calls.push('proto'); return Reflect.getPrototypeOf(t) },
  has(t, k) { calls.push('has ' + String(k)); return Reflect.has(t, k) },
}
const target = { a: 1, b: 2, [Symbol('s')]: 3 }; Object.defineProperty(target, 'hidden', { value: 1, enumerable: false })
const p = new Proxy(target, handler)
const o = Object.create(p); o.own = 1; o.a = 2
for (const k in p) calls.push('body ' + k)
for (const k in o) { calls.push('body ' + k); delete target.b }
const q = new Proxy(Object.create({ inherited: 1 }), handler)
for (const k in q) calls.push('body ' + k)
return calls`,
  'a long typed array with an own key and an enumerable key on its prototype chain': `const t = new Uint8Array(2 ** 17); t.own = 1
Uint8Array.prototype.inherited = 1
let n = 0, last = []; for (const k in t) { n++; if (n <= 2 || n > 2 ** 17 - 1) last.push(k) } return [n, last]`,
  'a long array with holes, a deletion, a non-enumerable index and a truncation': `const a = Array.from({ length: 2 ** 17 }, (_, i) => i)
delete a[3]; Object.defineProperty(a, 7, { value: 1, enumerable: false }); a.x = 1; Array.prototype.foo = 1
const keys = []; for (const k in a) { keys.push(k); if (k === '10') a.length = 12 } return keys`,
  'loops broken off, continued by label and left by return, over long values and proxies': `const log = []
const long = Array.from({ length: 70000 }, (_, i) => i), typed = new Uint8Array(70000)
const p = new Proxy({ a: 1, b: 2, c: 3 }, { getOwnPropertyDescriptor(t, k) { log.push('gopd ' + k); return Reflect.getOwnPropertyDescriptor(t, k) } })
const counts = []
for (const v of [long, typed, 'ab'.repeat(35000), p, { x: 1, y: 2 }]) {
  let n = 0
  for (const k in v) { n++; if (n === 1500 || k === 'b') break }
  outer: for (const r of [1, 2]) inner: for (const k in v) { n++; if (n > 2100 * r) continue outer; if (k === '2') continue inner }
  const first = () => { for (const k in v) if (k === '3' || k === 'c' || k === 'y') return k }
  counts.push(n, first())
}
for (const k in long) { if (k === '0') { delete long[1]; delete long[69999]; long.length = 60000 } counts.push(k); if (counts.length > 10) break }
let n = 0; for (const k in long) n++
return [counts, n, log]`,
  'object rests in setters\' parameters: this, super, arguments, defaults, private setters and errors': `class B { set w(x) { this.base = x } }
class C extends B {
  #x
  set v({ a, ...r } = { a: 0, d: 4 }) { super.w = r; this.got = [a, arguments.length] }
  set #p([k, { ...r }]) { this.#x = [k, r] }
  put(v) { this.#p = v; return this.#x }
}
const c = new C(); c.v = undefined; const first = [c.base, c.got]; c.v = { a: 1, b: 2 }
const setter = Object.getOwnPropertyDescriptor(C.prototype, 'v').set
const o = { set v({ a, ...r }) { var a; function f() { return [a, r] } this.f = f } }; o.v = { a: 1, z: 3 }
let message; try { o.v = null } catch (e) { message = e.message }
return [first, c.base, c.got, c.put(['k', { q: 1 }]), setter.length, setter.name, String(setter), o.f(), message]`,
  'object rests in for-await heads: async and sync iterables, promises, early exits and messages': `const out = []
async function* g() { yield { a: 1, b: 2 }; yield { a: 3, c: 4 } }
for await (const { a, ...r } of g()) out.push(r)
for await (const { a, ...r } of [Promise.resolve({ a: 1, p: 2 }), { a: 3, c: 4 }]) out.push(r)
let closed = 0
const it = { [Symbol.asyncIterator]() { let i = 0; return { next: async () => ({ value: { i: i++, x: 1 }, done: i > 5 }), return: async () => { closed++; return {} } } } }
for await (const { i, ...r } of it) { out.push(i, r); if (i === 2) break }
for await (const [k, { id, ...rest }] of new Map([['a', { id: 1, n: 2 }]])) out.push([k, rest])
const foo = 5, f = () => 5
for (const run of [async () => { for await (const { ...r } of foo) ; }, async () => { for await (const { ...r } of f()) ; },
  async () => { for await (const { ...r } of null) ; }]) {
  try { await run() } catch (e) { out.push(e.message) }
}
return [out, closed]`,
  'object rests in and under array patterns\' rest elements': `const [x, ...[{ a, ...r }]] = [0, { a: 1, b: 2 }]
const [a2, ...{ length, ...r2 }] = [1, 2, 3]
const [p, ...[b, ...{ 0: z, ...c }]] = 'wxyz'
function* g() { yield 1; yield { k: 1, m: 2 }; yield 3 }
const [q, ...[{ k, ...r3 }, ...more]] = g()
let r4; [, ...[{ ...r4 }]] = [0, { s: 1 }]
const f = ([h, ...[{ ...t }]]) => t
const out = []; for (const [k2, ...{ ...rest }] of [['a', 1, 2]]) out.push(k2, rest)
const [y, ...[w, { ...r5 }]] = Array.from({ length: 200000 }, (_, i) => i === 2 ? { z: 1 } : i)
return [r, a2, length, r2, p, b, z, c, q, r3, more, r4, f([1, { u: 2 }]), out, [y, w, r5]]`,
  'a sparse array of length 2^32 - 1': `const a = []; a[2 ** 32 - 2] = 1; a[5] = 2; a[70000] = 3; a.x = 3
const keys = []; for (const k in a) keys.push(k); return keys`,
  'a long string, and an object whose prototype is a long typed array': `let n = 0, last
for (const k in 'ab'.repeat(2 ** 16)) { n++; last = k }
const o = Object.create(new Uint16Array(2 ** 17)); o.own = 1
const keys = []; for (const k in o) { if (keys.length < 3) keys.push(k); last = k } return [n, keys, last]`,
  'a long string object with an own key, and a number': `const s = new String('ab'.repeat(2 ** 16)); s.own = 1
let n = 0, last; for (const k in s) { n++; last = k } for (const k in 5) n++
return [n, last]`,
  'a long typed array while Array.prototype has a setter at index 0': `Object.defineProperty(Array.prototype, '0', { set() {}, configurable: true })
let n = 0; for (const k in new Uint8Array(2 ** 17)) n++; return n`,
  'spreads and rests of short values': `const o = { a: 1, ...{ b: 2, c: 3 }, ...'xy', ...[7, 8], ...null, ...5, ...new Uint8Array(3) }
const { a, ...rest } = o; let r2; ({ b: r2, ...r2 } = o)
return [o, rest, r2]`,
  'spreads and rests of values up to 2^18 elements, copied as in Node': `const t = new Uint8Array(2 ** 18).fill(7), s = 'x'.repeat(65537)
const a = Array(70000).fill(1); a[69999] = 2; delete a[5]
const { 0: first, ...fromTyped } = t, { length, ...fromString } = new String(s)
const [{ ...nested }] = [a], spread = { ...a, ...s }
return [Object.keys({ ...t }).length, Object.keys(fromTyped).length, first, fromTyped[262143], Object.keys(fromString).length,
  Object.keys(nested).length, nested[69999], 5 in nested, Object.keys(spread).length, spread[69999], spread[65536]]`,
  'object rests in parameters, with defaults, later parameters and a rest parameter': `const f = ({ a, ...r }) => r
function g(x, { y, ...z } = { y: 0, w: 1 }, q = x + 1, ...more) { return [x, y, z, q, more, arguments.length] }
class C { constructor(p, { a, ...r }, s) { this.v = [p, r, s] } m({ ...t }, u = t) { return [t, u] } static async s({ ...t }) { return t } }
const o = { m({ a, ...r }, ...[b, c]) { return [r, b, c] }, *gen({ ...r }) { yield r } }
return [f({ a: 1, b: 2 }), f('xy'), f([7, 8]), g(1), g(1, undefined, undefined, 4, 5), g(1, { y: 5, k: 6 }, 7, 8, 9),
  new C(1, { a: 1, b: 2 }, 3).v, new C(1, {}).m({ z: 1 }), await C.s({ t: 1 }), o.m({ a: 1, b: 2 }, 3, 4), [...o.gen({ g: 1 })],
  [f.length, g.length, C.length, C.prototype.m.length, o.m.length, ((a, { ...b }, c = 1, d) => 0).length],
  (() => { try { f() } catch (e) { return e.name } })(), (() => { try { f(null) } catch (e) { return e.name } })()]`,
  'object rests in for-of heads': `const out = []; let rr
for (const { a, ...r } of [{ a: 1, b: 2 }, { a: 3, c: 4 }]) out.push(r)
for ({ ...rr } of new Set([{ z: 1 }])) out.push(rr)
const it = { i: 0, closed: 0, [Symbol.iterator]() { return this }, next() { return { value: { n: this.i++ }, done: this.i > 5 } }, return() { this.closed++; return {} } }
for (const { ...r } of it) { out.push(r); if (r.n === 1) break }
label: for (const x of [1, 2]) for (const { ...r } of [{ x }]) { out.push(r); continue label }
return [out, it.closed]`,
  'object rests inside other patterns: declarations, assignments, parameters and for-of heads': `const out = []
const entries = Object.entries({ a: { id: 1, n: 'x' }, b: { id: 2, n: 'y' } })
out.push(entries.map(([key, { id, ...rest }]) => ({ key, ...rest })))
for (const [k, { a, ...r }] of new Map([['x', { a: 1, b: 2 }]])) out.push([k, r])
const { a: { b, ...inner } = { b: 1, c: 2 }, d: [, { ...second } = { s: 1 }] = [] } = { d: [0] }
let r1, r2, t = {}; ({ a: { ...r1 }, b: [r2, { ...t.out }] } = { a: { x: 1 }, b: [7, { k: 1 }] })
const [{ a: a1, ...first }, ...more] = [{ a: 1, b: 2 }, 3, 4]
const { a: { b: { c, ...deep } } } = { a: { b: { c: 1, d: 2, e: 3 } } }
const sym = Symbol('s'), key = 'dyn'
const { [sym]: { ...bySymbol }, [key]: { x, ...byKey }, ...others } = { [sym]: { v: 1 }, dyn: { x: 1, y: 2 }, other: 3 }
const f = (a, [k, { id, ...rest }] = ['d', { id: 0, z: 1 }], q = rest, ...xs) => [a, k, id, rest, q, xs]
const g = ({ ...r }, ...x) => [r, x]
const { length, ...chars } = 'abc', [s1, { length: l2, ...chars2 }] = ['x', 'yz']
out.push(inner, second, r1, r2, t, first, more, deep, bySymbol, byKey, others, f(1), f(1, ['k', { id: 5, w: 2 }], 3, 4),
  g({ q: 1 }, 1, 2), [f.length, g.length], [length, chars, l2, chars2])
return out`,
  'object rests inside other patterns read their values as V8 does: getters, iterators and proxies': `const log = []
const o = { get a() { log.push('a'); return { x: 1, y: 2 } }, get b() { log.push('b'); return 2 } }
const { a: { x, ...r }, b } = o
function* gen() { try { log.push('y1'); yield { a: 1, b: 2 }; log.push('y2'); yield 2; log.push('y3'); yield 3 } finally { log.push('fin') } }
const [{ a, ...fromGen }, two] = gen()
const p = new Proxy({ k: { m: 1, n: 2 } }, { get(target, key, receiver) { log.push('get ' + String(key)); return Reflect.get(target, key, receiver) } })
const { k: { m, ...fromProxy } } = p
const it = { [Symbol.iterator]() { log.push('iterator'); return { next() { log.push('next'); return { value: { z: 1 }, done: false } }, return() { log.push('return'); return {} } } } }
const [{ ...once }] = it
return [r, b, fromGen, two, fromProxy, once, log]`,
  'object rests in catch clauses and for-in heads': `const out = []
try { throw { e: { code: 1, msg: 'x' }, at: 2 } } catch ({ e: { code, ...others }, ...rest }) { out.push(code, others, rest) }
try { throw Object.assign(new Error('boom'), { status: 404 }) } catch ({ message, ...rest }) { out.push(message, rest) } finally { out.push('finally') }
for (const { length, ...chars } in { ab: 1, c: 2 }) out.push(length, chars)
return out`,
  'a value an object rest cannot take fails with V8\'s message, not one naming a guard': `const m = (f) => { try { f(); return 'no error' } catch (e) { return e.constructor.name + ': ' + e.message } }
const x = { k: null, y: { f() { return null } } }, n = null, f = () => 5
return [m(() => { const { a, ...r } = null }), m(() => { const { a, ...r } = x.k }), m(() => { const { ...r } = undefined }),
  m(() => { const { 'a-b': a, ...r } = x['k'] }), m(() => { const { a, ...r } = x.y.f() }), m(() => { const { a = 1, ...r } = n }),
  m(() => { const { [n]: a, ...r } = n }), m(() => { let a, r; ({ a, ...r } = n) }), m(() => (({ a, ...r }) => r)()),
  m(() => (function (q, { a, ...r }) {})(1, null)), m(() => { for (const { a, ...r } of 5); }), m(() => { for (const { a, ...r } of f()); }),
  m(() => { for (const { a, ...r } of x.k); }), m(() => { for (const { a, ...r } of [null]); }), m(() => { const [a, { ...r }] = n }),
  m(() => { const [a, { ...r }] = f() }), m(() => { const [a, { ...r }] = x.k }), m(() => { let a, r; [a, { ...r }] = 5 }),
  m(() => (([a, { ...r }]) => r)()), m(() => { const { a: [b, { ...r }] } = { a: 5 } }), m(() => { const o = { a: 5 }; const { a: [b, { ...r }] } = o }),
  m(() => { const { a, ...r } = typeof n === 'x' || null }), m(() => { const { a, ...r } = ({ y: null }).y }),
  m(() => { const { a: { b, ...r } } = {} }), m(() => { const [{ b, ...r }] = [null] }), m(() => { for (const [b, { ...r }] of [5]); }),
  m(() => { try { throw null } catch ({ message, ...rest }) {} })]`,
  'the expression a message names, printed as V8 prints it: literals it folded, arrays, templates, functions': `const m = (f) => { try { f(); return 'no error' } catch (e) { return e.message } }
let x = null; const o = { p: null, q: 5 }, f = () => null
class C { #p = null; get() { const { a, ...r } = this.#p } }
return [m(() => { const { a, ...r } = [1, null][1] }), m(() => { const { a, ...r } = [, f()][1] }), m(() => { const { a, ...r } = \`a\${'b'}c\`.x }),
  m(() => { const { a, ...r } = \`\${x}\${o.p}\`.y }), m(() => { const { a, ...r } = (function () { 1; return null })() }),
  m(() => { const { a, ...r } = (({ p }) => null)({}) }), m(() => { const { a, ...r } = (class { a() {} b() {} }).x }),
  m(() => { const { a, ...r } = o[-1 >>> 0] }), m(() => { const { a, ...r } = o[1e21] }), m(() => { const { a, ...r } = [2 ** 53, !0, 1 + 2 + x][9] }),
  m(() => { const { a, ...r } = [x + x + x, x * 2 + 1][9] }), m(() => { const { a, ...r } = (x = null) }), m(() => { const { a, ...r } = o[\`q\`].z }),
  m(() => { const { a, ...r } = f\`t\` }), m(() => { const { a, ...r } = /a/ysmig.x }), m(() => new C().get()),
  m(() => { for (const { ...r } of [f()][0]); }), m(() => { for (const { ...r } of 1 + 2); }), m(() => { const [{ ...r }] = x++ }),
  m(() => { const [{ ...r }] = 1n }), m(() => { for (const { ...r } of f\`t\`); })]`,
  'a function\'s source text, with nothing the guards inserted': `function outer(o, { a, ...r }) {
  for (const k in o) { while (false); }
  do { } while (false)
  return { ...r, ...o }
}
const arrow = ({ ...p }) => { for (;;) break; return p }\r\nlet async; const loop = () => { for (async in { a: 1 }); for (const [x] in{ xy: 1 }); }\u2028const s = '\u{1F600}', h = (n) => { while (n) n--; return n }
class C { static *['m' + (1)](x) { for (const y of x) yield y } get g() { for (const k in this); return 1 } }
const o = { async m(q) { for await (const z of q); }, 'k\u00e9\u{1F600}y'(v) { while (v) v--; } }
const made = new Function('n', 'while (n) n--; return n')
return [String(outer), arrow.toString(), Function.prototype.toString.call(loop), '' + C, String(h),
  String(Object.getOwnPropertyDescriptor(C, 'm1').value), String(Object.getOwnPropertyDescriptor(C.prototype, 'g').get),
  String(o.m), String(o['k\u00e9\u{1F600}y']), String(made), String(outer) === String(outer)]`,
  'the call sites a program\'s Error.prepareStackTrace receives, at the program\'s own columns': `const columnsOf = (error) => {
  Error.prepareStackTrace = (_, sites) => sites.slice(0, 1).map((s) => [s.getColumnNumber(), s.getEnclosingColumnNumber(),
    String(s).replace(/.*:/, ''), s.toString().replace(/.*:/, '')])
  try { return error.stack } finally { Error.prepareStackTrace = undefined }
}
function f(o) { for (const k in o) { while (true) { return columnsOf(new Error('x')) } } }
const g = () => { for (;;) { const e = new Error('y'); return { ...{ a: 1 }, c: columnsOf(e) } } }
return [f({ a: 1 }), g()]`,
  'built-ins the runtime stands in front of read as native code': `const fns = [''.normalize, ''.toUpperCase,
  ''.localeCompare, ''.lastIndexOf, ''.replaceAll, ''.split, [].join, [].includes, new Uint8Array(1).fill, JSON.parse,
  JSON.stringify, Object.assign, Object.keys, Reflect.ownKeys, Intl.DateTimeFormat, Intl.Segmenter,
  Intl.DateTimeFormat.prototype.formatRange, Date.prototype.toLocaleString, RegExp.prototype[Symbol.replace],
  Object.getOwnPropertyDescriptor(Intl.Collator.prototype, 'compare').get, new Intl.Collator().compare,
  String.prototype[Symbol.iterator], Function.prototype.toString]
let error; try { Function.prototype.toString.call({}) } catch (e) { error = [e.name, e.message] }
const d = Object.getOwnPropertyDescriptor(Function.prototype, 'toString')
return [fns.map(String), error, d.value.name, d.value.length, d.writable, d.enumerable, d.configurable,
  Intl.DateTimeFormat.name, Intl.DateTimeFormat.length]`,
  'an object rest inside an array pattern, of an element that is a getter, a setter alone, a hole or inherited': `let reads = 0
const got = ['k']; Object.defineProperty(got, 1, { get() { reads++; return { id: 1, n: reads } }, enumerable: true, configurable: true })
const [, { id, ...fromGetter }] = got
const setOnly = ['k']; Object.defineProperty(setOnly, 1, { set(v) {}, enumerable: true, configurable: true })
const errors = []
for (const a of [setOnly, ['k', , 3]]) try { const [, { ...r }] = a } catch (e) { errors.push(e.message) }
const inherits = ['k']; inherits.length = 2; Array.prototype[1] = { id: 9, q: 1 }
const [, { id: inheritedId, ...inherited }] = inherits; delete Array.prototype[1]
return [id, fromGetter, reads, errors, inheritedId, inherited]`,
  'spreads of strings, arrays, typed arrays and a DataView': `return [{ ...'abc', ...[1, 2], ...new Uint8Array(2) }, { ...new DataView(new ArrayBuffer(4)) },
  { ...Object.assign(new Float64Array(2), { x: 1 }) }]`,
}

// The language's own globals, which Node gives as V8 makes them.
const ES_GLOBALS = ['Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'Math', 'JSON',
  'Reflect', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry', 'Proxy', 'Date', 'RegExp',
  'Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError',
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array',
  'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Intl',
  'Atomics', 'Iterator', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'encodeURI', 'encodeURIComponent', 'decodeURI',
  'decodeURIComponent', 'escape', 'unescape', 'eval']

describe('for-in and object spread give what Node gives', () => {
  for (const [name, program] of Object.entries(SAME_AS_NODE)) {
    test(name, async () => {
      const expected = await inNode(program)
      assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: expected })
    })
  }
})

test('every function of the language\'s own objects reads as native code', async () => {
  const program = `const seen = new Set(), found = []
const visit = (holder, path) => {
  for (const key of Reflect.ownKeys(holder)) {
    const d = Object.getOwnPropertyDescriptor(holder, key)
    for (const [kind, fn] of [['', d.value], ['get ', d.get], ['set ', d.set]]) {
      if (typeof fn !== 'function' || seen.has(fn)) continue
      seen.add(fn)
      const name = kind + path + '.' + String(key)
      if (!Function.prototype.toString.call(fn).endsWith('{ [native code] }')) found.push(name)
      if (kind === '' && typeof fn.prototype === 'object' && fn.prototype !== null) visit(fn.prototype, name + '.prototype')
    }
  }
}
for (const name of ${JSON.stringify(ES_GLOBALS)}) {
  const value = globalThis[name]
  if (value === undefined) found.push('missing ' + name)
  else if (typeof value === 'function') visit({ [name]: value }, 'globalThis')
  else visit(value, name)
}
const TypedArray = Object.getPrototypeOf(Uint8Array)
visit({ TypedArray }, '')
return [seen.size > 400, found]`
  // What the runtime adds to the language's objects, which Node does not have (docs/differences.md).
  const added = []
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [true, added] })
})

test('a typed array has no toJSON, and JSON.stringify calls a toJSON of the program\'s further up its chain, as Node does', async () => {
  const programs = [
    "return ['toJSON' in new Uint8Array(3), JSON.stringify({ u: new Uint8Array([1, 2]) }, null, 1)]",
    `Object.prototype.toJSON = function (key) { return this instanceof Uint8Array ? 'u8 ' + key + ' ' + this.length : this }
const long = new Uint8Array(2 ** 17)
return [JSON.stringify({ a: new Uint8Array(2), long }), JSON.stringify(long), delete Object.prototype.toJSON, JSON.stringify({ a: new Uint8Array(2) })]`,
    // A prototype put between %TypedArray%.prototype and Object.prototype is where V8 looks next.
    `new Uint8Array(2 ** 17)
Object.setPrototypeOf(Object.getPrototypeOf(Uint8Array.prototype), { __proto__: Object.prototype, toJSON: (key) => 'between ' + key })
return JSON.stringify({ a: new Uint8Array(2) })`,
  ]
  for (const program of programs) {
    assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: await inNode(program) })
  }
  // Once a program could hold a long typed array, %TypedArray%.prototype has a toJSON, which reads
  // as a built-in (docs/differences.md).
  const after = "new Uint8Array(2 ** 17); JSON.stringify(1); const { toJSON } = Object.getPrototypeOf(Uint8Array.prototype); return [String(toJSON), toJSON.length, toJSON.name]"
  assert.deepStrictEqual(await runtime.run({ program: after, bindings: [] }), { logs: [], value: ['function toJSON() { [native code] }', 1, 'toJSON'] })
})

test('a call site whose columns moved has every method V8\'s call sites have, and the string iterator\'s next reads as native', async () => {
  const program = `for (const k in {}) {}
let names
Error.prepareStackTrace = (e, sites) => {
  const own = Object.getPrototypeOf(sites[0])
  names = [Object.getOwnPropertyNames(own), Object.getOwnPropertyNames(Object.getPrototypeOf(own))]
  return sites[0].getColumnNumber()
}
function f() { for (;;) { return new Error('x').stack } }
return [f(), names[0].length > 20 && names[0].join() === names[1].join(), String('x'.repeat(2 ** 21)[Symbol.iterator]().next)]`
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }),
    { logs: [], value: [34, true, 'function next() { [native code] }'] })
})

test('a for-in beside a using declaration, which Node 20 cannot parse, is guarded too', async () => {
  const program = `{ using d = null } const keys = []; for (const k in { a: 1 }) keys.push(k)
try { ({ ...new Uint8Array(2 ** 19), a: String(1) }) } catch (e) { return [keys, e.name] }`
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [['a'], 'RangeError'] })
})

const refusal = (length) => `RangeError: an object spread or rest of a value of ${length} elements is refused: past 262144, `
  + 'V8 copies them in one step that cannot be stopped (copy them in a loop instead)'

test('a spread or rest of a long value is refused, at the program\'s own line and column of the value', async () => {
  const lines = ['const m = (f) => { try { f() } catch (e) { return e.stack } }',
    "return [m(() => ({ ...new Uint8Array(2 ** 19), n: String(1) })), m(() => { const { length, ...r } = 'ab'.repeat(2 ** 18) }),",
    '  m(() => { let r; ({ ...r } = Array(300000).fill(0)) }), m(() => ({ ...{ length: 2 ** 20 } })) === undefined,',
    "  m(() => ({ s: 1, ...new String('x'.repeat(300000)), ...{} }))]"]
  const at = (line, text) => `${line}:${lines[line - 1].indexOf(text) + 1}`
  const frames = (value, call) => `\n    at <anonymous>:${value}\n    at m (<anonymous>:${at(1, 'f()')})\n    at <anonymous>:${call}`
  const result = await runtime.run({ program: lines.join('\n'), bindings: [] })
  assert.deepStrictEqual(result, {
    logs: [],
    value: [
      refusal(2 ** 19) + frames(at(2, 'new'), at(2, 'm(')),
      refusal(2 ** 19) + frames(at(2, "'ab'"), at(2, 'm(() => {')),
      refusal(300000) + frames(at(3, 'Array'), at(3, 'm(')),
      true,
      refusal(300000) + frames(at(4, 'new'), at(4, 'm(')),
    ],
  })
})

test('a long value\'s spread is refused where members after it run code, or its own named keys would come before theirs', async () => {
  const program = `const m = (f) => { try { return Object.keys(f()).length } catch (e) { return e.message } }
const a = new Array(300000).fill(0), named = new Array(300000).fill(0), key = 'k', calls = []
named.q = 1
return [m(() => ({ ...a, n: calls.push(1) })), m(() => ({ ...a, ...[1] })), m(() => ({ ...a, [key]: 1 })), m(() => ({ ...a, c: class {} })),
  m(() => ({ p: 1, ...named, r: 2 })), m(() => ({ q: 1, ...named, r: 2 })), m(() => ({ p: 1, ...named })), calls.length]`
  const refused = refusal(300000).slice('RangeError: '.length)
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), {
    logs: [],
    value: [refused, refused, refused, refused, refused, 300002, 300002, 0],
  })
})

test('a for-in, spread or rest over a proxy of a long value is refused', async () => {
  const program = `const m = (f) => { try { f(); return 'ran' } catch (e) { return e.message } }
const long = new Proxy(new Proxy(new Uint8Array(2 ** 17), {}), { ownKeys: (t) => Reflect.ownKeys(t) })
const behind = Object.create(new Uint8Array(2 ** 17)); Object.setPrototypeOf(Object.getPrototypeOf(behind), new Proxy(new Uint8Array(2 ** 17), {}))
return [m(() => { for (const k in long) break }), m(() => ({ ...long })), m(() => { const { ...r } = long }),
  m(() => { for (const k in Object.create(long)) break }), m(() => { for (const k in behind) break }),
  m(() => { for (const k in new Proxy(Object.create(new Uint8Array(2 ** 17)), {})) break }),
  m(() => { for (const k in new Proxy([1, 2], {})) break })]`
  const refused = 'a for-in or object spread or rest over a proxy of a value of 131072 elements is refused: past 65536, '
    + 'V8 lists them in one step that cannot be stopped'
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [refused, refused, refused, refused, refused, refused, 'ran'] })
})

test('an object rest in a parameter or a for-of head refuses a long value', async () => {
  const program = `const m = (f) => { try { f() } catch (e) { return e.message === ${JSON.stringify(refusal(2 ** 19).slice('RangeError: '.length))} } }
const t = new Uint8Array(2 ** 19)
return [m(() => (({ ...r }) => r)(t)), m(() => (function (a, { b, ...r } = t) {})(1)), m(() => { for (const { ...r } of [1, t]) ; }),
  m(() => (({ a, ...r }, b) => r)({ a: 1 }, t)) === undefined]`
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [true, true, true, true] })
})

test('an object rest inside another pattern, in a catch clause or in a for-in head refuses a long value', async () => {
  const program = `const m = (f) => { try { return f() ?? 'no error' } catch (e) { return e.message } }
const t = new Uint8Array(2 ** 19)
return [m(() => { const { a: { ...r } } = { a: t } }), m(() => { const [k, { ...r }] = ['k', t] }),
  m(() => [['k', t]].map(([k, { ...r }]) => r)), m(() => { for (const [k, { ...r }] of [['k', t]]); }),
  m(() => { try { throw t } catch ({ message, ...r }) { return [message, r] } }), m(() => { let r; ({ a: [{ ...r } = t] } = { a: [] }) }),
  m(() => { for (const { ...r } in { ['x'.repeat(2 ** 19)]: 1 }); }),
  m(() => { const e = [{ get a() { e[1] = t; return 1 } }, {}]; const [{ a }, { ...r }] = e })]`
  const refused = (length) => `an object spread or rest of a value of ${length} elements is refused: past 262144, V8 copies them in one step that cannot be stopped (copy them in a loop instead)`
  // The catch clause's refusal is thrown from the try block: the clause destructures it, and its rest holds no copy.
  // A getter that puts a long value in place of an element a rest copies, before V8 reads it, is no way past the check.
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), {
    logs: [],
    value: [refused(524288), refused(524288), refused(524288), refused(524288), [refused(524288), {}], refused(524288), refused(524288), refused(524288)],
  })
})

test('an object rest no guard reaches (in an object pattern that is an array pattern\'s rest element) is refused before the program runs', async () => {
  const message = 'an object rest pattern inside an object pattern that is an array pattern\'s rest element is not supported here: V8 would '
    + 'copy its source in one step that cannot be stopped (destructure the value in a statement of its own)'
  for (const program of ["console.log('ran'); const [...{ a: { ...r } }] = [1]", 'const [a, ...[...{ 0: [{ ...r }] }]] = [1, []]']) {
    assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], error: { kind: 'exception', message } }, program)
  }
})

test('an object rest in a setter\'s parameter or a for-await head refuses a long value', async () => {
  const program = `const m = async (f) => { try { return (await f()) ?? 'no error' } catch (e) { return e.message } }
const t = new Uint8Array(2 ** 19)
const o = { set v({ a, ...r }) {}, set w([{ ...r }] = [t]) {} }
return [await m(() => { o.v = t }), await m(() => { o.w = undefined }), await m(async () => { for await (const { ...r } of [t]) ; }),
  await m(async () => { for await (const [{ ...r }] of (async function* () { yield [t] })()) ; })]`
  const refused = `an object spread or rest of a value of 524288 elements is refused: past 262144, V8 copies them in one step that cannot be stopped (copy them in a loop instead)`
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [refused, refused, refused, refused] })
})

test('an object rest under an array pattern\'s rest element refuses a long value, and a rest array past 2^18 values it copies', async () => {
  const program = `const m = (f) => { try { return f() ?? 'no error' } catch (e) { return e.message } }
const t = new Uint8Array(2 ** 19)
return [m(() => { const [...[{ ...r }]] = [t] }), m(() => { const [a, ...{ ...r }] = new Uint8Array(2 ** 18 + 2) }),
  m(() => { const [a, ...{ ...r }] = new Uint8Array(2 ** 18 + 1) }),
  m(() => { const own = { *[Symbol.iterator]() { yield {} } }; Array.prototype[Symbol.iterator] = function* () { yield t }; const [...[{ ...r }]] = own })]`
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [
    'an object spread or rest of a value of 524288 elements is refused: past 262144, V8 copies them in one step that cannot be stopped (copy them in a loop instead)',
    "an object rest of an array pattern's rest element of more than 262144 elements is refused: V8 copies them in one step that cannot be stopped (copy them in a loop instead)",
    'no error',
    "an array pattern inside an array pattern's rest element, with an object rest in it, is not supported while Array.prototype's iterator is replaced: V8 would iterate the rest's array with the program's code",
  ] })
})

test('a for-in over a proxy whose getPrototypeOf trap answers with a long value is refused, as a proxy of one is', async () => {
  const program = `const t = new Uint8Array(2 ** 17)
const p = new Proxy({ a: 1 }, { getPrototypeOf: () => t })
const m = (f) => { try { f() } catch (e) { return e.message } }
return [m(() => { for (const k in p) ; }), m(() => { for (const k in Object.create(p)) ; })]`
  const message = 'a for-in over a proxy whose prototype chain holds a value of 131072 elements is refused: past 65536, V8 lists them in one step that cannot be stopped'
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [message, message] })
})

test('an error after a guard on its line is reported at the program\'s own column', async () => {
  const program = 'const o = { a: 1 }; for (const k in o) { const c = { ...o }; null.x }'
  const result = await runtime.run({ program, bindings: [] })
  assert.deepStrictEqual(result, {
    logs: [],
    error: { kind: 'exception', message: "TypeError: Cannot read properties of null (reading 'x')\n    at <anonymous>:1:67" },
  })
})

test('the guards cannot be seen or replaced by the program', async () => {
  const program = `const __dsh_forIn = (v) => [v], __dsh_spread = () => ({ replaced: true })
const keys = []; for (const k in { a: 1 }) keys.push(k)
return [keys, { ...{ b: 2 } }, typeof __dsh_forIn_, typeof __dsh_spread_]`
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: [['a'], { b: 2 }, 'undefined', 'undefined'] })
  // Not even by a direct eval, whose code may assign to the bindings around the program.
  const replaced = `const thrown = []
for (const name of ['__dsh_spread', '__dsh_copied']) try { eval(name + ' = (v) => v') } catch (e) { thrown.push(e.name) }
const copy = { ...new Uint8Array(2 ** 19) }
try { ({ ...new Uint8Array(2 ** 19), a: String(1) }) } catch (e) { return [thrown, e.name, Object.keys(copy).length] }`
  assert.deepStrictEqual(await runtime.run({ program: replaced, bindings: [] }), { logs: [], value: [['TypeError', 'TypeError'], 'RangeError', 2 ** 19] })
})

test('code made from a string at run time compiles unless it holds a listing, which is refused with an EvalError', async () => {
  const program = `const m = (f) => { try { return f() } catch (e) { return e.name + ': ' + e.message } }
const AsyncFunction = (async () => {}).constructor
return [eval('1 + 1'), new Function('a', 'return a * 2')(4), (0, eval)('typeof globalThis'), eval({ x: 1 }),
  await new AsyncFunction('return [..."ab"]')(), eval('"in" + " o"'),
  m(() => eval('for (const k in { a: 1 }) ;')), m(() => new Function('o', 'return { ...o }')),
  m(() => (0, eval)('const { a, ...r } = {}')), m(() => new AsyncFunction('with (p) for (k in q) ;'))]`
  const refused = 'EvalError: code made from a string at run time (eval, Function) may not contain a for-in loop or an object '
    + 'spread or rest here: their keys would be listed in one step that cannot be stopped; write them in the program itself'
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }),
    { logs: [], value: [2, 8, 'object', { x: 1 }, ['a', 'b'], 'in o', refused, refused, refused, refused] })
})

test('code made from a string longer than any program may be is refused unread', async () => {
  const program = "try { eval('1;'.repeat(2 ** 18) + ' ') } catch (e) { return [e.name, e.message, eval('1;'.repeat(2 ** 17))] }"
  assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), {
    logs: [],
    value: ['EvalError', 'code made from a string at run time (eval, Function) longer than 524288 characters is refused, as a program that long would be', 1],
  })
})

// Before, each of these kept its thread 1 to more than 30 s past its run, at up to 2.9 GB.
const LOOPS = {
  'for-in over a long typed array': 'const t = new Uint8Array(2 ** 25); for (;;) for (const k in t) {}',
  'for-in over a long string': "const s = 'x'.repeat(2 ** 24); for (;;) for (const k in s) {}",
  // A no-break space before `in` is white space to JavaScript, not part of a word.
  'for-in over a long typed array, with a no-break space before in': 'const t = new Uint8Array(2 ** 25); for (;;) for (const k\u00a0in t) {}',
  'for-in over a long array': 'const a = new Array(2 ** 22).fill(1); for (;;) for (const k in a) {}',
  'for-in over a proxy whose getPrototypeOf trap answers with a long typed array': 'const t = new Uint8Array(2 ** 24); const p = new Proxy({}, { getPrototypeOf: () => t }); for (;;) { try { for (const k in p) {} } catch {} }',
  'for-in over an object whose prototype is a long typed array': 'const o = Object.create(new Uint8Array(2 ** 25)); for (;;) for (const k in o) {}',
  'refused spreads of a long typed array': 'const t = new Uint8Array(2 ** 21); for (;;) { try { ({ ...t, a: 1 }) } catch {} }',
  'spreads of a long typed array, copied in JavaScript': 'const t = new Uint8Array(2 ** 21); for (;;) ({ ...t })',
  'spreads of a long string, copied in JavaScript': "const s = 'x'.repeat(2 ** 24); for (;;) ({ ...s })",
  'refused rests of a long typed array in a parameter': 'const t = new Uint8Array(2 ** 21); const f = ({ ...r }) => r; for (;;) { try { f(t) } catch {} }',
  'refused rests of a long typed array in a for-of head': 'const t = [new Uint8Array(2 ** 21)]; for (;;) { try { for (const { ...r } of t) ; } catch {} }',
  'refused spreads of a long typed array in code made at run time': "const t = new Uint8Array(2 ** 21); for (;;) { try { eval('({ ...t })') } catch {} }",
}

for (const [name, program] of Object.entries(LOOPS)) {
  test(`a loop of ${name} ends by its budget and its thread leaves within 250 ms`, async () => {
    const result = await runtime.run({ program, bindings: [] })
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'timeout', message: 'compute budget exhausted (500ms busy)' } })
    const left = await msUntilNoRunIsLeft(250)
    assert.notEqual(left, null, `the run's thread was still inside it 250 ms after it settled: ${JSON.stringify(native.runawayThreads())}`)
  })
}
