// What a program sees and what comes back from it: TypeScript, its world, console, completion, exceptions.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { inspect } from 'node:util'
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { setup, sleep, tools } from './helpers.mjs'
import { CASES, LITERAL_CASES, PRELUDE } from './fixtures/inspect-corpus.mjs'

let runtime, dispose
before(async () => ({ runtime, dispose } = await setup({ computeMs: 10_000 })))
after(() => dispose())

const run = (program, bindings = []) => runtime.run({ program, bindings })
const runOne = fileURLToPath(new URL('./fixtures/run-one.mjs', import.meta.url))
const exception = (message, logs = []) => ({ logs, error: { kind: 'exception', message } })

describe('TypeScript', () => {
  test('erasable syntax runs, with logs from console and process.stdout', async () => {
    const result = await run(`
      interface Point { x: number; y: number }
      type Id = string
      const p: Point = { x: 1, y: 2 }
      const id: Id = 'raw-out\\n'
      console.log('point', p)
      process.stdout.write(id)
      console.warn('careful')
      return (p.x + p.y) as number
    `)
    assert.deepStrictEqual(result, { logs: ['point { x: 1, y: 2 }', 'raw-out\n', 'careful'], value: 3 })
  })

  test('unsupported syntax fails with Node\'s own messages and starts no isolate', async () => {
    const cases = [
      ['enum E { A }\nreturn 1', 'TypeScript enum is not supported in strip-only mode'],
      ['namespace N { export const x = 1 }', 'TypeScript namespace declaration is not supported in strip-only mode'],
      ['class A { constructor(private x: number) {} }', 'TypeScript parameter property is not supported in strip-only mode'],
      ['const v = <any>1', 'The angle-bracket syntax for type assertions, `<T>expr`, is not supported in type strip mode. Instead, use the \'as\' syntax: `expr as T`.'],
      ['const x = ;', 'Expression expected'],
    ]
    for (const [program, message] of cases) assert.deepStrictEqual(await run(program), exception(message))
  })

  test('the program is an async function body in strict mode, with the injected names as parameters', async () => {
    const result = await run('return [this === undefined, arguments.length, typeof tools, typeof ToolCallError, typeof console, (() => { try { undeclared = 1 } catch (e) { return e.name } })()]', tools({}))
    assert.deepStrictEqual(result.value, [true, 3, 'object', 'function', 'object', 'ReferenceError'])
    const redeclared = await run('const tools = 1', tools({}))
    assert.deepStrictEqual(redeclared, exception("SyntaxError: Identifier 'tools' has already been declared"))
  })

  test('stack traces point at the program\'s own lines and columns, and nothing else', async () => {
    assert.deepStrictEqual(await run('throw new Error("kaboom")'), exception('Error: kaboom\n    at <anonymous>:1:7'))
    const typed = await run('const n: number = 1\nfunction inner(x: number): never {\n  throw new TypeError("deep " + x)\n}\ninner(n)')
    assert.deepStrictEqual(typed, exception('TypeError: deep 1\n    at inner (<anonymous>:3:9)\n    at <anonymous>:5:1'))
    const later = await run('await null\n  ;(() => { throw new RangeError("later") })()')
    assert.deepStrictEqual(later, exception('RangeError: later\n    at <anonymous>:2:19\n    at <anonymous>:2:45'))
  })

  test('a stack is made of the error\'s own name and message, whatever their length or surrogates', async () => {
    const long = await run(`const e = new Error('a'.repeat(2 ** 24) + 'z'); const s = e.stack
return [s.length, s.slice(0, 8), s.slice(2 ** 24 + 6)]`)
    assert.deepStrictEqual(long.value, [2 ** 24 + 32, 'Error: a', 'az\n    at <anonymous>:1:11'])
    const named = await run(`class Odd extends Error {}; Odd.prototype.name = '\\ud800'
return [new Odd('m\\udc00').stack.split('\\n')[0], Object.assign(new Error('x'), { name: '' }).stack.split('\\n')[0],
  Object.assign(new Error(''), { name: 'N' }).stack.split('\\n')[0]]`)
    assert.deepStrictEqual(named.value, ['\ud800: m\udc00', 'x', 'N'])
  })
})

describe('the program\'s world', () => {
  test('ticks queued in the first turn run before an immediate whose time has come, as in Node', async () => {
    // The busy wait lets the immediate's zero-delay timer expire before the event loop's first turn.
    const program = `await null; const order = []; setImmediate(() => order.push('immediate'))
process.nextTick(() => order.push('nextTick')); Promise.resolve().then(() => order.push('promise'))
const t = Date.now(); while (Date.now() - t < 5); order.push('sync'); await new Promise((r) => setTimeout(r, 20)); return order`
    assert.deepStrictEqual(await run(program), { logs: [], value: ['sync', 'promise', 'nextTick', 'immediate'] })
  })

  test('an immediate does not wait for the clock: a chain of 200 settles before a 200 ms timer, as in Node', async () => {
    // An immediate made as a zero-delay timer waited for the next millisecond of the run's clock:
    // the chain took 400 ms or more and the timer came first.
    const program = `const order = []; setTimeout(() => order.push('timer'), 200)
let n = 0; await new Promise((resolve) => { const step = () => ++n === 200 ? resolve() : setImmediate(step); setImmediate(step) })
order.push('chain of ' + n); await new Promise((r) => setTimeout(r, 250)); return order`
    assert.deepStrictEqual(await run(program), { logs: [], value: ['chain of 200', 'timer'] })
  })

  test('clearImmediate and clearTimeout cancel an immediate by its id; arguments reach its callback', async () => {
    // The queue's entries are deno_core's: what it reads of them, a program's Object.prototype cannot answer.
    const program = `const read = []; for (const key of ['_idleNext', '_idlePrev', '_onImmediate', '_argv', '_destroyed', 'asyncId', 'head', 'tail'])
  Object.defineProperty(Object.prototype, key, { get() { read.push(key); throw new Error(key) }, set() { read.push('set ' + key) }, configurable: true })
const log = []; const a = setImmediate(() => log.push('a')); const b = setImmediate((x, y) => log.push('b' + x + y), 1, 2)
const c = setImmediate(() => log.push('c')); clearImmediate(a); clearTimeout(c); clearImmediate(12345)
await new Promise((r) => setImmediate(r)); return [log, typeof b, read]`
    assert.deepStrictEqual(await run(program), { logs: [], value: [['b12'], 'number', []] })
  })

  test('nothing survives from one run to the next', async () => {
    assert.deepStrictEqual(await run('globalThis.leak = 1; Array.prototype.polluted = 1; return typeof leak'), { logs: [], value: 'number' })
    assert.deepStrictEqual(await run('return [typeof leak, typeof [].polluted]'), { logs: [], value: ['undefined', 'undefined'] })
  })

  test('the global object holds the language, the web platform, Buffer, console, timers and process', async () => {
    const result = await run('return Object.getOwnPropertyNames(globalThis).filter((k) => !/^[A-Z]/.test(k)).sort()')
    assert.deepStrictEqual(result.value, ['atob', 'btoa', 'clearImmediate', 'clearInterval', 'clearTimeout', 'console',
      'crypto', 'decodeURI', 'decodeURIComponent', 'encodeURI', 'encodeURIComponent', 'escape', 'eval', 'global',
      'globalThis', 'isFinite', 'isNaN', 'parseFloat', 'parseInt', 'performance', 'process', 'queueMicrotask',
      'setImmediate', 'setInterval', 'setTimeout', 'structuredClone', 'undefined', 'unescape'])
    const classes = await run('return Object.getOwnPropertyNames(globalThis).filter((k) => /^[A-Z]/.test(k) && !(k in Object.getOwnPropertyDescriptors(Math)) && typeof globalThis[k] === "function" && ["AbortController","AbortSignal","Blob","Buffer","Crypto","CryptoKey","CustomEvent","DOMException","Event","EventTarget","File","Performance","PerformanceEntry","PerformanceMark","PerformanceMeasure","SubtleCrypto","TextDecoder","TextEncoder","URL","URLSearchParams"].includes(k)).length')
    assert.equal(classes.value, 20)
    const hidden = await run('return [typeof Deno, typeof __bootstrap, typeof require, typeof module, typeof Buffer, typeof fetch, typeof WebAssembly, globalThis.console === console, global === globalThis]')
    assert.deepStrictEqual(hidden.value, ['undefined', 'undefined', 'undefined', 'undefined', 'function', 'undefined', 'undefined', true, true])
  })

  test('Intl works with ICU data', async () => {
    const result = await run('return [new Intl.NumberFormat("de-DE").format(1234567.891), new Intl.DateTimeFormat("en-US", { timeZone: "UTC" }).format(new Date(0)), "ß".localeCompare("ss", "de")]')
    assert.deepStrictEqual(result.value, ['1.234.567,891', '1/1/1970', 1])
  })

  test('process: env is empty, writes are log entries with an asynchronous callback, exit ends the run', async () => {
    assert.deepStrictEqual(await run('return JSON.stringify(process.env)'), { logs: [], value: '{}' })
    const writes = await run(`
      const order = []
      const returned = process.stdout.write('a', () => order.push('cb1'))
      process.stderr.write(42, 'utf8', (err) => order.push('cb2:' + err))
      process.stdout.write('b\\n')
      order.push('sync')
      await new Promise((resolve) => process.stdout.write('flushed', resolve))
      return [returned, order]
    `)
    assert.deepStrictEqual(writes, { logs: ['a', '42', 'b\n', 'flushed'], value: [true, ['sync', 'cb1', 'cb2:null']] })
    assert.deepStrictEqual(await run('console.log("bye"); process.exit(7)'), { logs: ['bye'], error: { kind: 'worker-exit', message: 'worker exited with code 7 before completing' } })
    assert.deepStrictEqual(await run('process.exit()'), { logs: [], error: { kind: 'worker-exit', message: 'worker exited with code 0 before completing' } })
  })

  test('timers and microtasks', async () => {
    const result = await run(`
      const order = []
      const t = setTimeout(() => order.push('cancelled'), 5)
      clearTimeout(t)
      let ticks = 0
      await new Promise((resolve) => { const i = setInterval(() => { if (++ticks === 3) { clearInterval(i); resolve() } }, 1) })
      queueMicrotask(() => order.push('micro'))
      await new Promise((resolve) => setTimeout(resolve, 10, 'arg'))
      order.push('timer')
      return [ticks, order]
    `)
    assert.deepStrictEqual(result.value, [3, ['micro', 'timer']])
  })

  // The snapshot step warms the world up with a binding call, a log and a timer (world.js): none of
  // it may show in a run.
  test('a run starts with nothing of the world\'s warm-up: no log, and its first timer is number 1', async () => {
    assert.deepStrictEqual(
      await run('const ids = [setTimeout(() => {}, 1), setInterval(() => {}, 1), setImmediate(() => {})]; clearInterval(ids[1]); return ids'),
      { logs: [], value: [1, 2, 3] },
    )
  })

  test('timers left running after the program returns do not hold the run open', async () => {
    const started = Date.now()
    const result = await run('setInterval(() => console.log("tick"), 1); setTimeout(() => {}, 60_000); return "done"')
    assert.deepStrictEqual(result, { logs: [], value: 'done' })
    assert.ok(Date.now() - started < 5000)
  })

  test('import() of a module with authority, a package, a path or a URL rejects with a TypeError that says why', async () => {
    const refusal = async (name) => (await run(`try { await import(${JSON.stringify(name)}) } catch (e) { return String(e) }`)).value
    const authority = 'it would give the program authority over the host (files, processes, network, threads or host facts)'
    assert.equal(await refusal('node:fs'), `TypeError: Cannot import 'node:fs': ${authority}`)
    assert.equal(await refusal('child_process'), `TypeError: Cannot import 'child_process': ${authority}`)
    assert.equal(await refusal('node:worker_threads'), `TypeError: Cannot import 'node:worker_threads': ${authority}`)
    assert.equal(await refusal('lodash'), "TypeError: Cannot import 'lodash': programs run without packages; only Node's built-in modules that need no authority load")
    for (const name of ['./local.js', '/abs.js', 'https://example.com/x.js', 'data:text/javascript,export default 1']) {
      assert.equal(await refusal(name), `TypeError: Cannot import '${name}': programs run without files or network, so relative paths and URLs load nothing`)
    }
    assert.match(await refusal('node:zlib'), /^TypeError: Cannot import 'node:zlib': this runtime provides only the built-in modules that need no authority: node:/)
    assert.match(await refusal('ext:dsh/world.js'), /^TypeError: Cannot import 'ext:dsh\/world.js'/)
  })

  test('a promise that can never settle ends the run at once', async () => {
    assert.deepStrictEqual(await run('await new Promise(() => {})'),
      exception('program awaits a promise that can never settle (no timer, binding call or other work is pending)'))
  })

  test('the time zone is UTC and the locale en-US, whatever the host\'s TZ and LANG', () => {
    const program = `return [Intl.DateTimeFormat().resolvedOptions().timeZone, new Date(0).getTimezoneOffset(),
      Intl.NumberFormat().resolvedOptions().locale, new Intl.Collator().resolvedOptions().locale, new Date(0).toString(),
      (1234.5).toLocaleString(), new Date(0).toLocaleString()]`
    const output = execFileSync(process.execPath, [runOne, '{}', program], {
      encoding: 'utf8',
      env: { ...process.env, TZ: 'America/New_York', LANG: 'de_DE.UTF-8', LC_ALL: 'de_DE.UTF-8' },
    })
    assert.deepStrictEqual(JSON.parse(output).value, ['UTC', 0, 'en-US', 'en-US',
      'Thu Jan 01 1970 00:00:00 GMT+0000 (Coordinated Universal Time)', '1,234.5', '1/1/1970, 12:00:00 AM'])
  })

  test('an exception in an event listener ends the run as an uncaught exception, after the dispatching code', async () => {
    const result = await run(`const target = new EventTarget()
target.addEventListener('ping', () => { throw new RangeError('from the listener') })
console.log('dispatched', target.dispatchEvent(new Event('ping')))
await new Promise((resolve) => setTimeout(resolve, 10))
return 'not reached'`)
    assert.deepStrictEqual(result.logs, ['dispatched true'])
    assert.equal(result.error.kind, 'exception')
    assert.match(result.error.message, /^RangeError: from the listener\n    at EventTarget\.<anonymous> \(<anonymous>:2:/)
  })

  test('structuredClone detaches what its transfer list names, with Node 24\'s checks and messages', async () => {
    const result = await run(`const out = []
const buffer = new ArrayBuffer(8)
const clone = structuredClone({ buffer }, { transfer: [buffer] })
out.push(buffer.byteLength, buffer.detached, clone.buffer.byteLength)
const bytes = new Uint8Array([1, 2])
const copied = structuredClone(bytes, { transfer: [bytes.buffer] })
out.push(bytes.length, [...copied])
const detached = new ArrayBuffer(1)
detached.transfer()
const twice = new ArrayBuffer(1)
for (const options of [{ transfer: [{}] }, { transfer: [twice, twice] }, { transfer: [detached] }, { transfer: 5 }, 5,
  { transfer: [new Uint8Array(1)] }, { transfer: null }]) {
  try { structuredClone(1, options); out.push('cloned') } catch (error) { out.push([error.name, error.message]) }
}
out.push(twice.byteLength, structuredClone(2, null), structuredClone(3, {}))
return out`)
    assert.deepStrictEqual(result, { logs: [], value: [0, true, 8, 0, [1, 2],
      ['DataCloneError', 'Found invalid value in transferList.'],
      ['DataCloneError', 'Transfer list contains duplicate ArrayBuffer'],
      ['DataCloneError', 'Cannot transfer object of unsupported type.'],
      ['TypeError', "Failed to execute 'structuredClone': transfer in Options cannot be converted to sequence."],
      ['TypeError', "Failed to execute 'structuredClone': Options cannot be converted to a dictionary"],
      ['DataCloneError', 'Found invalid value in transferList.'],
      ['TypeError', "Failed to execute 'structuredClone': transfer in Options cannot be converted to sequence."],
      1, 2, 3] })
  })
})

describe('console', () => {
  test('exactly five methods, one entry per call, strings as is, no format substitution', async () => {
    const result = await run(`
      console.log('%d', 5); console.info('info'); console.warn(); console.error('a', 'b'); console.debug('x', 1, { b: [2] })
      return [Object.keys(console), typeof console.table, Object.getPrototypeOf(console)]
    `)
    assert.deepStrictEqual(result, {
      logs: ['%d 5', 'info', '', 'a b', 'x 1 { b: [ 2 ] }'],
      value: [['log', 'info', 'warn', 'error', 'debug'], 'undefined', null],
    })
    assert.equal((await run('console.table([1])')).error.message.split('\n')[0], 'TypeError: console.table is not a function')
  })

  test(`renders ${CASES.length} values exactly as Node's util.inspect does`, async () => {
    assert.ok(CASES.length >= 80)
    const program = `${PRELUDE}\n${CASES.map((expression) => `console.log(${expression})`).join('\n')}`
    const result = await run(program)
    assert.equal(result.error, undefined, result.error?.message)
    const options = { depth: 4, maxArrayLength: 100, maxStringLength: 10_000, breakLength: 80, colors: false }
    CASES.forEach((expression, index) => {
      const value = new Function(`${PRELUDE}\nreturn (${expression})`)()
      assert.equal(result.logs[index], inspect(value, options), expression)
    })
  })

  test('a line of primitives and flat objects, written natively, reads as inspect writes it', async () => {
    const result = await run(`
      console.log('line', 1, { i: 1 }, -0, 2n, null, undefined, true, Symbol('s'), Symbol(), 1e21, 'raw\\nstring', {})
      console.log({ a: 1 }, [2], { b: { c: 3 } })
    `)
    assert.deepStrictEqual(result.logs, [
      "line 1 { i: 1 } -0 2n null undefined true Symbol(s) Symbol() 1e+21 raw\nstring {}",
      '{ a: 1 } [ 2 ] { b: { c: 3 } }',
    ])
  })

  test('a program that changes how plain objects are named gets the renderer\'s text, natively or not', async () => {
    const changes = [
      "Object.defineProperty(Object.prototype, 'constructor', { value: function Thing() {}, configurable: true, writable: true })",
      "Object.defineProperty(Object.prototype, 'constructor', { get() { return Object }, configurable: true })",
      "Object.prototype[Symbol.toStringTag] = 'Tagged'",
      "Object.prototype[Symbol.iterator] = function* () {}",
      "Object.prototype[Symbol.for('nodejs.util.inspect.custom')] = function () { return 'custom' }",
      "Object.defineProperty(Object, 'name', { value: 'Obj' })",
      "Object.defineProperty(Object, Symbol.hasInstance, { value: () => false })",
      'Object.setPrototypeOf(Object, null)',
      "Object.defineProperty(Object.prototype, 'value', { get() { throw new Error('read') } })",
      "Object.defineProperty(Object.prototype, 'enumerable', { get() { throw new Error('read') } })",
    ]
    for (const change of changes) {
      const result = await run(`
        const { inspect } = await import('node:util')
        ${change}
        const value = { a: 1, b: 'x' }
        console.log(value)
        console.log('x', value, 1)
        return [inspect(value), 'x ' + inspect(value) + ' 1']
      `)
      assert.equal(result.error, undefined, change)
      assert.deepStrictEqual(result.logs, result.value, change)
    }
  })

  test('promises and buffers render as on the reference', async () => {
    const program = `${PRELUDE}\n${LITERAL_CASES.map(([expression]) => `console.log(${expression})`).join('\n')}`
    const result = await run(program)
    assert.deepStrictEqual(result.logs, LITERAL_CASES.map(([, expected]) => expected))
  })

  test('logging after the program rewrites every intrinsic still renders faithfully', async () => {
    const result = await run(`
      const define = Object.defineProperty
      const targets = []
      for (const C of [Array, Object, String, Number, Map, Set, Reflect, RegExp, Math, Symbol, Function]) {
        for (const key of Object.getOwnPropertyNames(C)) targets.push([C, key])
        if (C.prototype) for (const key of Object.getOwnPropertyNames(C.prototype)) targets.push([C.prototype, key])
      }
      const value = { a: [1, 'two'], m: new Map([['k', new Set([1])]]) }
      for (let i = 0; i < targets.length; i++) {
        if (targets[i][1] === 'constructor' || targets[i][1] === 'prototype') continue
        try { targets[i][0][targets[i][1]] = () => { throw new Error('mutated') } } catch {}
      }
      define(Object.prototype, 'get', { get() { throw new Error('get') } })
      console.log('value', value)
    `)
    assert.deepStrictEqual(result, { logs: ["value { a: [ 1, 'two' ], m: Map(1) { 'k' => Set(1) { 1 } } }"] })
  })
})

describe('completion', () => {
  test('lossless values come back exactly', async () => {
    const result = await run(`
      const shared = { s: 1 }
      return { n: null, t: true, f: false, s: 'a\\ud800b', num: [0, -1.5, 1e21, 5e-324], arr: [[], {}], shared: [shared, shared],
        nullProto: Object.assign(Object.create(null), { k: 'v' }), proto: JSON.parse('{"__proto__": 1}'), toJSON: { toJSON() { return 1 } }.toJSON === undefined }
    `)
    assert.deepStrictEqual(result.value, { n: null, t: true, f: false, s: 'a\ud800b', num: [0, -1.5, 1e21, 5e-324], arr: [[], {}],
      shared: [{ s: 1 }, { s: 1 }], nullProto: { k: 'v' }, proto: JSON.parse('{"__proto__": 1}'), toJSON: false })
  })

  test('a long array comes back exactly', async () => {
    const result = await run('return Array.from({ length: 70000 }, (_, i) => i % 7)')
    assert.deepStrictEqual(result, { logs: [], value: Array.from({ length: 70000 }, (_, i) => i % 7) })
  })

  test('toJSON is ignored: a value is read, never converted', async () => {
    assert.deepStrictEqual(await run('return { a: 1, toJSON: undefined }'), { logs: [], error: { kind: 'invalid-output', message: 'program completion must be lossless JSON' } })
    assert.deepStrictEqual(await run('return { a: 1, toJSON() { return 2 } }'), { logs: [], error: { kind: 'invalid-output', message: 'program completion must be lossless JSON' } })
  })

  test('every kind of lossy value is refused', async () => {
    const lossy = ['undefined', '[undefined]', '{ a: undefined }', 'NaN', 'Infinity', '-Infinity', '-0', '1n', 'Symbol("s")',
      '() => 1', '{ f: () => 1 }', 'new (class Foo {})()', 'new Date(0)', 'new Map()', 'new Set()', 'new Uint8Array(1)',
      'new Number(1)', 'new (class A extends Array {})()', '[1, , 3]', 'Object.assign([1], { x: 1 })',
      'Object.defineProperty([1], "y", { value: 1 })', '{ [Symbol("k")]: 1 }', 'Object.defineProperty({}, "h", { value: 1 })',
      'new Proxy({}, {})', 'new Proxy([], {})', '(() => { const a = []; a.push(a); return a })()',
      '(() => { const o = {}; o.o = { o }; return o })()', 'Object.setPrototypeOf({}, Array.prototype)',
      'Object.setPrototypeOf([], Object.prototype)', 'Object.setPrototypeOf({}, Object.create(Object.prototype))',
      '{ get boom() { throw new Error("getter") } }', 'new Error("e")', '/x/', '{ p: Promise.resolve(1) }',
      // Past 2^16 elements an array's indices are checked one by one: a hole, even one its prototype
      // fills, and a decoration, hidden or not, are still refused.
      '(() => { const a = Array(70000).fill(1); delete a[69999]; return a })()',
      '(() => { const a = Array(70000).fill(1); delete a[5]; Array.prototype[5] = 1; return a })()',
      'Object.assign(Array(70000).fill(1), { x: 1 })', 'Object.defineProperty(Array(70000).fill(1), "y", { value: 1 })',
      '[...Array(69999).fill(1), undefined]']
    for (const expression of lossy.slice(1)) {
      const result = await run(`return ${expression}`)
      assert.deepStrictEqual(result, { logs: [], error: { kind: 'invalid-output', message: 'program completion must be lossless JSON' } }, expression)
    }
  })

  test('a spoofed prototype cannot pass, even with every intrinsic rewritten', async () => {
    const result = await run(`
      const fake = Object.create(null)
      Object.defineProperty(fake, 'constructor', { value: function Object() {} })
      Function.prototype.toString = () => 'function Object() { [native code] }'
      globalThis.Object = undefined; globalThis.Array = undefined; globalThis.JSON = undefined; globalThis.Reflect = undefined
      return Object_setPrototypeOf_workaround(fake)
      function Object_setPrototypeOf_workaround(proto) { const o = { a: 1 }; o.__proto__ = proto; return o }
    `)
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'invalid-output', message: 'program completion must be lossless JSON' } })
  })

  test('5000-deep nesting is accepted, iteratively', async () => {
    const result = await run('let v = null; for (let i = 0; i < 5000; i++) v = [v]; return v')
    let depth = 0
    for (let x = result.value; x !== null; x = x[0]) depth++
    assert.equal(depth, 5000)
  })
})

describe('built-ins kept interruptible: array-likes, long arrays, long patterns, long replacements', () => {
  // These run through our interruptible JavaScript versions; each must give what Node's own V8
  // gives for the same program.
  const programs = {
    searches: "const o = { length: 6, 0: 'a', 2: 'c', 3: NaN, 5: 'c' }; const P = Array.prototype; " +
      "return [P.indexOf.call(o, 'c'), P.indexOf.call(o, 'c', 3), P.indexOf.call(o, 'c', -2), P.indexOf.call(o, undefined), " +
      "P.lastIndexOf.call(o, 'c'), P.lastIndexOf.call(o, 'c', 4), P.lastIndexOf.call(o, 'a', -7), P.includes.call(o, NaN), " +
      "P.includes.call(o, undefined), P.join.call(o, '-'), P.join.call(o), P.toLocaleString.call({ length: 2, 0: 1, 1: 'x' })]",
    callbacks: "const o = { length: 5, 0: 1, 2: 3, 4: 5 }; const P = Array.prototype; const seen = []; " +
      "P.forEach.call(o, (v, i) => seen.push([v, i])); " +
      "return [seen, P.map.call(o, (v) => v * 2), P.filter.call(o, (v) => v > 1), P.some.call(o, (v) => v > 4), " +
      "P.every.call(o, (v) => v > 0), P.find.call(o, (v) => v === undefined), P.findIndex.call(o, (v) => v === undefined), " +
      "P.findLast.call(o, (v) => v > 1), P.findLastIndex.call(o, (v) => v > 1), P.reduce.call(o, (a, v) => a + v), " +
      "P.reduceRight.call(o, (a, v) => a + ',' + v, 'x')]",
    mutations: "const make = () => ({ length: 5, 0: 'd', 1: 'b', 3: 'a' }); const P = Array.prototype; " +
      "const r = (f) => { const x = make(); const out = f(x); return [out === x ? 'self' : out, Object.entries(x)] }; " +
      "return [r((x) => P.reverse.call(x)), r((x) => P.sort.call(x)), r((x) => P.sort.call(x, (p, q) => p < q ? 1 : -1)), " +
      "r((x) => P.fill.call(x, 'z', 1, 3)), r((x) => P.copyWithin.call(x, 0, 2)), r((x) => P.copyWithin.call(x, 2, 0)), " +
      "r((x) => P.splice.call(x, 1, 2, 'p', 'q', 'r')), r((x) => P.splice.call(x, 1)), r((x) => P.splice.call(x, 0, 4, 'one')), " +
      "r((x) => P.shift.call(x)), r((x) => P.unshift.call(x, 'u', 'v')), r((x) => P.slice.call(x, 1, -1))]",
    flattening: "const o = { length: 5, 0: [1, [2, [3, [4]]]], 2: 'x', 3: [[5]], 4: { length: 1, 0: 9 } }; const P = Array.prototype; " +
      "return [P.flat.call(o), P.flat.call(o, 2), P.flat.call(o, Infinity), P.flat.call(o, -1), P.flat.call(o, '1'), " +
      "P.flatMap.call(o, (v, i) => [i, v]), P.flatMap.call({ length: 2, 0: 1, 1: 2 }, (v) => [[v]]), " +
      "P.flat.call({ length: 2 ** 20 + 2, 0: [1], [2 ** 20 + 1]: [2] }), P.flat.length, P.flatMap.length]",
    'long strings listed': "const s = 'a\ud83d\ude00b'.repeat(400000) + '\\ud800'; const it = s[Symbol.iterator](); " +
      'return [Object.keys(s).length, Object.keys(s)[7], Object.values(s).slice(-3), Object.entries(s)[4], ' +
      'Object.getOwnPropertyNames(s).at(-1), Object.keys(new String(s)).length, [...s].length, Array.from(s).slice(0, 4), [...s].at(-1), ' +
      'Object.prototype.toString.call(it), Object.keys(it), it.next(), it.next(), it[Symbol.iterator]() === it, ' +
      // Elements are defined, not set: a setter on Array.prototype is never called.
      "(() => { Object.defineProperty(Array.prototype, 100, { set() { throw new Error('setter') }, configurable: true }); " +
      'try { return [Object.keys(s)[100], Object.values(s)[100], Object.entries(s)[100], Object.getOwnPropertyNames(s)[100]] } ' +
      'finally { delete Array.prototype[100] } })()]',
    'long arrays': 'const a = Array.from({ length: 2 ** 20 + 3 }, (_, i) => i % 7); ' +
      "return [a.indexOf(6, 10), a.lastIndexOf(5), a.includes(7), a.slice(-3), a.map((x) => x + 1).length, " +
      "a.filter((x) => x === 6).length, a.reduce((s, x) => s + x, 0), a.join('').length, a.findLast((x) => x === 3), " +
      'a.splice(2, 3), a.length, a.sort().slice(0, 3), a.reverse().slice(0, 2), a.unshift(9), a.shift(), a.length]',
    'lastIndexOf of long patterns': "const s = 'ab'.repeat(500) + 'x'.repeat(300) + 'ab'.repeat(500); const p = 'x'.repeat(300); " +
      "const q = 'ab'.repeat(200); return [s.lastIndexOf(p), s.lastIndexOf(p, 999), s.lastIndexOf(p, 1000), s.lastIndexOf(q), " +
      "s.lastIndexOf(q, 10), s.lastIndexOf(q, -5), s.lastIndexOf(q, NaN), s.lastIndexOf(q, Infinity), " +
      "'short'.lastIndexOf('x'.repeat(300)), String.prototype.lastIndexOf.call(12345, '3'), String.prototype.lastIndexOf.length, " +
      // A long pattern that occurs at every other position of a long text: found from the end.
      "'ab'.repeat(2 ** 22).lastIndexOf('ba'.repeat(200)), 'ab'.repeat(2 ** 22).lastIndexOf('ba'.repeat(200), 2 ** 20)]",
    'replacement over long strings': "const base = 'The quick brown fox jumps over the lazy dog; \u00c4\u00d6 \ud83d\ude00 x1y22z333. '; " +
      'const s = base.repeat(Math.ceil((2 ** 20 + 7) / base.length)); ' +
      'const sum = (t) => { let h = 0; for (let i = 0; i < t.length; i += 97) h = (h * 31 + t.charCodeAt(i)) | 0; return h }; ' +
      'const d = (t) => [t.length, t.slice(0, 60), t.slice(-60), sum(t)]; ' +
      'const re = /o/g; re.lastIndex = 5; const viaRe = d(s.replace(re, "")); ' +
      'const custom = /o/g; let calls = 0; custom.exec = function (t) { calls++; return calls > 3 ? null : RegExp.prototype.exec.call(this, t) }; ' +
      'const fail = (f) => { try { return f() } catch (e) { return `${e.constructor.name}: ${e.message}` } }; ' +
      "return [d(s.replace(/o/g, '0')), d(s.replace(/(\\w)(\\w)?/g, '[$2$1]')), " +
      "d(s.replace(/(?<word>[a-z]+)/g, '<$<word>|$<nope>|$<word')), d(s.replace(/lazy/, '[$`|$&|$$]')), d(s.replace(/lazy/, \"$'\")), " +
      "d(s.replace(/(o)(u)?/g, '$1$2$3$01$10$00$0$')), d(s.replace(/o/g, '$<x>')), d(s.replace(/(?:)/g, '-')), d(s.replace(/(?:)/gu, '-')), " +
      'd(s.replace(/\\w+/g, (m, i) => (i % 7 === 0 ? m.toUpperCase() : ""))), ' +
      'd(s.replace(/(?<a>\\d)(\\d)?/g, (...args) => JSON.stringify(args.slice(0, 3)) + typeof args.at(-1))), ' +
      "d(s.replace(/DOG/gi, '$&$&')), d(s.replace(/T/y, 't')), d(s.replace(/T/gy, 't')), viaRe, re.lastIndex, d(s.replace(custom, '#')), calls, " +
      "d(s.replaceAll('o', '0')), d(s.replaceAll('', '_')), d(s.replaceAll('the', (m, i, str) => (i % 3) + m + (str === s))), " +
      "d(s.replaceAll('fox', '$&-$$-$1')), d(s.replaceAll(/o/g, '0')), fail(() => s.replaceAll(/o/, 'x')), " +
      'RegExp.prototype[Symbol.replace].name, RegExp.prototype[Symbol.replace].length, String.prototype.replaceAll.length]',
    'match and split over long strings': "const base = 'The quick brown fox jumps over the lazy dog; \u00c4\u00d6 \ud83d\ude00 x1y22z333. '; " +
      'const s = base.repeat(Math.ceil((2 ** 20 + 7) / base.length)); ' +
      'const d = (a) => a === null ? null : [a.length, a.slice(0, 8), a.slice(-8), Array.isArray(a)]; ' +
      'const custom = /o/g; let calls = 0; custom.exec = function (t) { calls++; return calls > 3 ? null : RegExp.prototype.exec.call(this, t) }; ' +
      "return [d(s.match(/o/g)), d(s.match(/(?:)/g)), d(s.match(/(?:)/gu)), d(s.match(/zzz/g)), d(s.match(/(o)(x)?/)), s.match(/(?<w>fox)/).groups.w, " +
      "d(s.match(custom)), calls, d(s.match(/\\d+/gy)), d(s.split(' ')), d(s.split(' ', 5)), d(s.split('', 10)), d(s.split('')), d(s.split('dog;')), " +
      "d(s.split('nope')), d(s.split(' ', 0)), d(s.split(' ', -1)), d(s.split(' ', 2 ** 32 + 3)), d(s.split(/ /)), d(s.split()), " +
      'RegExp.prototype[Symbol.match].name, RegExp.prototype[Symbol.match].length, String.prototype.split.length, ' +
      // Elements are defined, not stored: a setter on Array.prototype is never called.
      "(() => { Object.defineProperty(Array.prototype, 2, { set() { throw new Error('setter') }, configurable: true }); " +
      "try { return [d(s.split(' ')), d(s.match(/o/g)), d(s.split(''))] } finally { delete Array.prototype[2] } })(), " +
      // Receivers, patterns and subjects that are not strings are converted once, then take the same path.
      "d(s.split(/(o)(x)?/, 20)), d(s.split(/(?:)/u, 50)), d(s.split(/\\d+/y)), d(new String(s).split(' ')), d(s.split(1)), " +
      "new String(s).replaceAll('o', '0').length, s.replaceAll(1, 'one').length, /o/g[Symbol.replace]({ toString: () => s }, '0').length, " +
      "d(/o/g[Symbol.match]({ toString: () => s })), d(RegExp.prototype[Symbol.split].call(/ /, { toString: () => s }, 7)), " +
      "(() => { try { return s.split(' ', 1n) } catch (e) { return `${e.constructor.name}: ${e.message}` } })(), " +
      'RegExp.prototype[Symbol.split].name, RegExp.prototype[Symbol.split].length]',
    errors: 'const P = Array.prototype; const fail = (f) => { try { f() } catch (e) { return `${e.constructor.name}: ${e.message}` } }; ' +
      'return [fail(() => P.reduce.call({ length: 2 }, (a, b) => a)), fail(() => P.indexOf.call(null)), ' +
      'fail(() => P.map.call({ length: 2 ** 32 }, String))]',
  }
  for (const [name, body] of Object.entries(programs)) {
    test(name, async () => {
      // As JSON text: holes and undefined are part of what must match.
      const program = `return JSON.stringify((() => { ${body} })())`
      const expected = new Function(program)()
      assert.deepStrictEqual(await run(program), { logs: [], value: expected })
    })
  }
})

describe('exceptions', () => {
  test('thrown values render as the contract says', async () => {
    assert.deepStrictEqual(await run('throw "xy"'), exception('xy'))
    assert.deepStrictEqual(await run('throw null'), exception('null'))
    assert.deepStrictEqual(await run('throw { toString() { return "custom" } }'), exception('custom'))
    assert.deepStrictEqual(await run('const e = new Error("bare"); e.stack = undefined; throw e'), exception('bare'))
    assert.deepStrictEqual(await run('const e = new Error("n"); e.stack = 42; throw e'), exception('42'))
    assert.deepStrictEqual(await run('throw { toString() { throw new Error("no") } }'), exception('program threw an unrenderable value'))
    assert.deepStrictEqual(await run('throw Symbol("s")'), exception('Symbol(s)'))
  })

  test('lone surrogates in an error message survive, as in logs and values', async () => {
    assert.deepStrictEqual(await run('throw new Error("\\ud800 and \\udc00")'), exception('Error: \ud800 and \udc00\n    at <anonymous>:1:7'))
    assert.deepStrictEqual(await run('throw "\\udfff"'), exception('\udfff'))
  })

  test('a program\'s Error.prepareStackTrace that captures the stack it runs on sees no frame of ours', async () => {
    const hook = 'Error.prepareStackTrace = () => { const o = {}; Error.captureStackTrace(o); return o.stack }; '
    const expected = exception('Error\n    at Error.prepareStackTrace (<anonymous>:1:55)')
    assert.deepStrictEqual(await run(`${hook}throw new Error("x")`), expected)
    assert.deepStrictEqual(await run(`${hook}setTimeout(() => { throw new Error("x") }); await new Promise(() => {})`), expected)
    assert.deepStrictEqual(await run(`${hook}Promise.reject(new Error("x")); await new Promise(() => {})`), expected)
  })

  test('logs printed before a throw are kept', async () => {
    assert.deepStrictEqual(await run('console.log("before"); throw "after"'), exception('after', ['before']))
  })

  test('an error from a timer or an unhandled rejection ends an unsettled run', async () => {
    assert.deepStrictEqual(await run('setTimeout(() => { throw new Error("in timer") }, 1); await new Promise((r) => setTimeout(r, 200))'),
      exception('Error: in timer\n    at <anonymous>:1:26'))
    assert.deepStrictEqual(await run('Promise.reject(new Error("unhandled")); await new Promise((r) => setTimeout(r, 200))'),
      exception('Error: unhandled\n    at <anonymous>:1:16'))
    assert.deepStrictEqual(await run('queueMicrotask(() => { throw "micro" }); await new Promise((r) => setTimeout(r, 200))'), exception('micro'))
  })

  test('after the program settles, a late error changes nothing', async () => {
    const result = await run('setTimeout(() => { throw new Error("late") }, 0); Promise.reject(new Error("late too")); return "settled"')
    assert.deepStrictEqual(result, { logs: [], value: 'settled' })
  })
})
