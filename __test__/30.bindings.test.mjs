// Host bindings: calls from the isolate to host functions, and what crosses in each direction.
import { spawnSync } from 'node:child_process'
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { setup, sleep, tools } from './helpers.mjs'

let runtime, dispose
before(async () => ({ runtime, dispose } = await setup({ computeMs: 20_000 })))
after(() => dispose())

const run = (program, bindings = []) => runtime.run({ program, bindings })
const sleepSync = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

describe('the program side', () => {
  test('a namespace is a null-prototype object of sealed own functions; names are plain keys', async () => {
    const result = await run(`
      const d = Object.getOwnPropertyDescriptor(tools, 'echo')
      return [Object.getPrototypeOf(tools) === null, typeof d.value, d.enumerable, d.writable, d.configurable,
        typeof tools.hasOwnProperty, Object.keys(tools),
        await tools.__proto__({}), await tools.constructor({}), await tools.toString({})]
    `, tools({
      echo: async (x) => x,
      ['__proto__']: async () => 'proto-ok',
      constructor: async () => 'ctor-ok',
      toString: async () => 'tostring-ok',
    }))
    assert.deepStrictEqual(result.value, [true, 'function', true, false, false, 'undefined',
      ['echo', '__proto__', 'constructor', 'toString'], 'proto-ok', 'ctor-ok', 'tostring-ok'])
  })

  test('a host Error becomes the namespace error class, with its member name', async () => {
    const result = await run(`
      try { await tools.fail({}) } catch (e) {
        const own = (k) => { const d = Object.getOwnPropertyDescriptor(e, k); return [d.value, d.enumerable, d.writable, d.configurable] }
        return { isTyped: e instanceof ToolCallError, isError: e instanceof Error, ctorName: ToolCallError.name,
          name: own('name'), toolName: own('toolName'), message: e.message, text: String(e) }
      }
    `, tools({ fail: async () => { throw new Error('nope') } }))
    assert.deepStrictEqual(result.value, {
      isTyped: true, isError: true, ctorName: 'BindingCallError',
      name: ['ToolCallError', true, false, false], toolName: ['fail', true, false, false],
      message: 'nope', text: 'ToolCallError: nope',
    })
  })

  test('a thrown non-Error and a synchronous throw reject with String(x)', async () => {
    const result = await run(`
      const out = []
      for (const name of ['failRaw', 'failSync']) {
        try { await tools[name]({}) } catch (e) { out.push([e.name, e.toolName, e.message]) }
      }
      return out
    `, tools({ failRaw: async () => { throw 'raw-nope' }, failSync: () => { throw new TypeError('sync-nope') } }))
    assert.deepStrictEqual(result.value, [['ToolCallError', 'failRaw', 'raw-nope'], ['ToolCallError', 'failSync', 'sync-nope']])
  })

  test('a generic descriptor names its own class and member', async () => {
    const result = await run(`
      try { await helpers.fail({}) } catch (e) {
        return { isTyped: e instanceof HelperCallError, name: e.name, helperName: e.helperName, message: e.message }
      }
    `, [{ global: 'helpers', functions: { fail: async () => { throw new Error('nope') } }, errorClass: { name: 'HelperCallError', memberNameProperty: 'helperName' } }])
    assert.deepStrictEqual(result.value, { isTyped: true, name: 'HelperCallError', helperName: 'fail', message: 'nope' })
  })

  test('a program may construct the error class itself', async () => {
    const result = await run('const e = new ToolCallError("search", "made"); return [e.name, e.toolName, e.message, e instanceof ToolCallError]', tools({}))
    assert.deepStrictEqual(result.value, ['ToolCallError', 'search', 'made', true])
  })

  test('without an errorClass, rejections are plain Errors', async () => {
    const result = await run(`
      try { await api.fail({}) } catch (e) { return [e.constructor === Error, e.name, 'toolName' in e, e.message] }
    `, [{ global: 'api', functions: { fail: async () => { throw new Error('plain') } } }])
    assert.deepStrictEqual(result.value, [true, 'Error', false, 'plain'])
  })
})

describe('arguments and answers are lossless JSON', () => {
  test('the host sees a fresh plain copy of the first argument, with this undefined', async () => {
    const seen = []
    const result = await run('return await tools.echo({ n: 1, nested: [true, null, "s"] }, "ignored")', tools({
      echo: function (args) { seen.push([this, args, Object.getPrototypeOf(args) === Object.prototype]); return { echoed: args } },
    }))
    assert.deepStrictEqual(result.value, { echoed: { n: 1, nested: [true, null, 's'] } })
    assert.deepStrictEqual(seen, [[undefined, { n: 1, nested: [true, null, 's'] }, true]])
  })

  test('a lossy argument rejects and the host function is never called', async () => {
    let calls = 0
    const result = await run(`
      const lossy = [undefined, () => tools.x(), () => tools.x(undefined), () => tools.x(new Date(0)), () => tools.x(-0),
        () => tools.x(NaN), () => tools.x(1n), () => tools.x([1, , 3]), () => { const a = []; a.push(a); return tools.x(a) },
        () => tools.x(new Proxy({}, {})), () => tools.x(Object.assign([1], { extra: 1 })), () => tools.x(new Map()),
        () => tools.x({ get boom() { throw new Error('getter') } }), () => tools.x({ [Symbol('s')]: 1 }),
        () => tools.x(Object.defineProperty({}, 'hidden', { value: 1 })), () => tools.x(new (class Foo {})())]
      const out = []
      for (const call of lossy.slice(1)) {
        try { await call(); out.push('resolved') } catch (e) { out.push(e instanceof ToolCallError && e.toolName === 'x' ? e.message : 'wrong') }
      }
      return out
    `, tools({ x: async () => { calls++; return 1 } }))
    assert.deepStrictEqual(result.value, new Array(15).fill('binding arguments must be lossless JSON'))
    assert.equal(calls, 0)
  })

  test('shared references are copied and an own __proto__ key survives as data', async () => {
    const result = await run(`
      const shared = { v: 1 }
      const arg = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')
      arg.left = shared; arg.right = shared
      return await tools.echo(arg)
    `, tools({ echo: async (args) => ({ keys: Object.keys(args), own: Object.hasOwn(args, '__proto__'), args }) }))
    const expected = JSON.parse('{"keys":["__proto__","a","left","right"],"own":true,"args":{"__proto__":{"polluted":true},"a":1,"left":{"v":1},"right":{"v":1}}}')
    assert.deepStrictEqual(result.value, expected)
    assert.equal(({}).polluted, undefined)
  })

  test('a lossy resolution or a throwing getter rejects the call', async () => {
    const result = await run(`
      const out = []
      for (const name of ['nothing', 'date', 'getter', 'nan']) {
        try { await tools[name]({}); out.push('resolved') } catch (e) { out.push(e.message) }
      }
      return out
    `, tools({
      nothing: async () => {},
      date: async () => new Date(0),
      getter: async () => ({ get boom() { throw new Error('getter') } }),
      nan: async () => [NaN],
    }))
    assert.deepStrictEqual(result.value, new Array(4).fill('binding resolution must be lossless JSON'))
  })

  test('a resolution whose JSON text no string can hold rejects the call with that reason', async () => {
    // Two references to one string of 2^28 characters: 2^29 + 5 characters of JSON text.
    const half = 'a'.repeat(2 ** 28)
    const result = await run('try { await tools.big({}) } catch (e) { return [e.name, e.message] }', tools({ big: async () => [half, half] }))
    assert.deepStrictEqual(result.value, ['ToolCallError', "the value's JSON text would be longer than a string can hold (2^29 - 24 characters)"])
  })

  test('an unknown member rejects with its quoted name', async () => {
    const result = await run('try { await tools.x({}) } catch (e) { return [e.toolName, e.message] }', tools({ x: 42 }))
    assert.deepStrictEqual(result.value, ['x', 'unknown binding "tools.x"'])
  })

  test('lone surrogates, __proto__ keys and every finite number cross both ways exactly', async () => {
    const payload = { s: 'a\ud800b\udc00c😀', n: [5e-324, 1e21, 1.5, -2, 0, 123456789.123], '__proto__': [1] }
    const result = await run(`
      const back = await tools.echo(JSON.parse(${JSON.stringify(JSON.stringify(payload))}))
      return [back, back.s.length, back.s.charCodeAt(1)]
    `, tools({ echo: async (x) => x }))
    assert.deepStrictEqual(result.value, [JSON.parse(JSON.stringify(payload)), 7, 0xd800])
  })

  test('5000-deep nesting crosses both ways and completes', async () => {
    const result = await run(`
      let v = null
      for (let i = 0; i < 5000; i++) v = [v]
      const back = await tools.echo(v)
      let depth = 0
      for (let x = back; x !== null; x = x[0]) depth++
      return [depth, back]
    `, tools({ echo: async (x) => x }))
    assert.equal(result.value[0], 5000)
    let depth = 0
    for (let x = result.value[1]; x !== null; x = x[0]) {
      assert.ok(Array.isArray(x) && x.length === 1)
      depth++
    }
    assert.equal(depth, 5000)
  })
})

describe('the bridge', () => {
  test('100 parallel calls overlap on the host', async () => {
    let inFlight = 0
    let peak = 0
    const result = await run('return (await Promise.all(Array.from({ length: 100 }, (_, i) => tools.slow({ i })))).length', tools({
      slow: async ({ i }) => { inFlight++; peak = Math.max(peak, inFlight); await sleep(20); inFlight--; return i },
    }))
    assert.deepStrictEqual(result, { logs: [], value: 100 })
    assert.equal(peak, 100)
  })

  test('calls still work after the program rewrites every boundary intrinsic', async () => {
    const result = await run(`
      const define = Object.defineProperty
      const targets = []
      for (const C of [Array, Object, Number, Reflect, Set, String, JSON, Map]) {
        for (const key of Object.getOwnPropertyNames(C)) targets.push([C, key])
        if (C.prototype) for (const key of Object.getOwnPropertyNames(C.prototype)) targets.push([C.prototype, key])
      }
      for (let i = 0; i < targets.length; i++) {
        try { targets[i][0][targets[i][1]] = () => { throw new Error('mutated') } } catch {}
      }
      Function.prototype.toString = () => 'function Object() { [native code] }'
      define(Object.prototype, 'get', { get() { throw new Error('get') }, configurable: true })
      for (const name of ['Array', 'Object', 'Number', 'Reflect', 'Set', 'String', 'JSON', 'Error', 'Function', 'Map']) globalThis[name] = undefined
      const echoed = await tools.echo({ n: 1 })
      let failure
      try { await tools.fail({}) } catch (e) { failure = { typed: e instanceof ToolCallError, name: e.name, toolName: e.toolName, message: e.message } }
      return { echoed, failure }
    `, tools({ echo: async (x) => ({ echoed: x }), fail: async () => { throw new Error('denied') } }))
    assert.deepStrictEqual(result, { logs: [], value: {
      echoed: { echoed: { n: 1 } },
      failure: { typed: true, name: 'ToolCallError', toolName: 'fail', message: 'denied' },
    } })
  })

  test('a run makes 100 000 calls', async () => {
    const result = await run('let sum = 0; for (let i = 0; i < 100000; i++) sum += await tools.one({}); return sum', tools({ one: async () => 1 }))
    assert.deepStrictEqual(result, { logs: [], value: 100000 })
  })

  test('calls still queued for the host when a stop ends the run are never dispatched', async () => {
    const controller = new AbortController()
    const seen = []
    const result = await runtime.run({
      program: 'for (let i = 0; ; i++) tools.note(i)',
      // The first call holds the host's event loop while the program queues more, then aborts.
      bindings: tools({ note: async (i) => {
        seen.push(i)
        if (i === 0) {
          sleepSync(50)
          controller.abort('enough')
        }
        return true
      } }),
      signal: controller.signal,
    })
    await sleep(100)
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'abort', message: 'enough' } })
    assert.deepStrictEqual(seen, [0])
  })

  test('an answer still being encoded when the run ends is abandoned', async () => {
    const { runtime: limited, dispose: disposeLimited } = await setup({ maxWallMs: 200 })
    const rows = Array.from({ length: 1_000_000 }, (_, i) => ({ i, tags: ['a'] }))
    const started = performance.now()
    const result = await limited.run({
      program: 'tools.rows({}); for (;;) {}',
      // Answered 80 ms in: encoding a million rows holds the host's thread for seconds.
      bindings: tools({ rows: () => sleep(80).then(() => rows) }),
    })
    const settledMs = performance.now() - started
    await disposeLimited()
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'timeout', message: 'wall-clock ceiling reached (200ms)' } })
    assert.ok(settledMs < 1500, `settled ${settledMs.toFixed(0)} ms after the start`)
  })

  test('binding work runs in order, within a share of each turn of the event loop', async () => {
    const { inTurn } = await import('../lib/turns.js')
    const order = []
    let doneWhenTimerRan
    setTimeout(() => { doneWhenTimerRan = order.length }, 0)
    await new Promise((resolve) => {
      for (let i = 0; i < 40; i++) {
        inTurn(() => {
          const end = performance.now() + 2
          while (performance.now() < end);
          order.push(i)
          if (i === 39) resolve()
        })
      }
    })
    assert.deepStrictEqual(order, Array.from({ length: 40 }, (_, i) => i))
    // 40 tasks of 2 ms in one turn would have held the timer for 80 ms.
    assert.ok(doneWhenTimerRan < 10, `the timer ran after ${doneWhenTimerRan} of 40 tasks`)
  })

  test('a queued binding task that throws is reported uncaught, and the tasks after it still run', () => {
    // In a process of its own: the test runner treats an uncaught exception as its own failure.
    const script = `
      const { inTurn } = await import(${JSON.stringify(new URL('../lib/turns.js', import.meta.url).href)})
      const events = []
      process.on('uncaughtException', (error) => events.push('uncaught ' + error.message))
      // The first task uses up the turn, so the rest wait in the queue.
      for (let i = 0; i < 6; i++) {
        inTurn(() => {
          if (i === 0) { const end = performance.now() + 10; while (performance.now() < end); }
          if (i === 3) throw new Error('boom')
          events.push(i)
        })
      }
      setTimeout(() => inTurn(() => { events.push('later'); setTimeout(() => console.log(JSON.stringify(events)), 20) }), 50)
    `
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 10_000 })
    assert.strictEqual(child.stderr, '')
    // Reported once the tasks sharing its turn have run; the queue serves later tasks too.
    assert.deepStrictEqual(JSON.parse(child.stdout), [0, 1, 2, 4, 5, 'uncaught boom', 'later'])
  })

  test('long answers are encoded in turns, so a caller\'s abort timer runs while they are', async () => {
    let deep = []
    for (let i = 0; i < 1e5; i++) deep = [deep]
    const controller = new AbortController()
    let abortedAt
    const started = performance.now()
    setTimeout(() => { abortedAt = performance.now(); controller.abort('stopped by the caller') }, 100)
    const result = await runtime.run({
      // 64 answers of 100 000-deep arrays: one turn of the event loop held them all (the timer ran
      // at 439-497 ms with 32 of them).
      program: 'const calls = []; for (let i = 0; i < 64; i++) calls.push(tools.deep({}).catch(() => 0)); await Promise.all(calls); await new Promise((resolve) => setTimeout(resolve, 10_000))',
      bindings: tools({ deep: () => deep }),
      signal: controller.signal,
    })
    const settledMs = performance.now() - started
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'abort', message: 'stopped by the caller' } })
    // Room for a collection of the host's own heap, which no turn can shorten.
    assert.ok(abortedAt - started < 400, `the abort timer ran ${(abortedAt - started).toFixed(0)} ms after the start, for 100 ms`)
    assert.ok(settledMs < 650, `settled ${settledMs.toFixed(0)} ms after the start`)
  })

  test('a script that only loads the plugin exits at once', () => {
    const script = `
      import { Context } from '@deepseek-ai/cordis'
      import V8CodeRuntime from 'dsh-code-runtime-v8'
      const ctx = new Context()
      await ctx.plugin(V8CodeRuntime)
      const result = await ctx.codeRuntime.run({ program: 'return 1', bindings: [] })
      console.log(JSON.stringify(result))
    `
    const started = Date.now()
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('.', import.meta.url), encoding: 'utf8', timeout: 20_000 })
    assert.equal(child.status, 0, child.stderr)
    assert.equal(child.stdout, '{"logs":[],"value":1}\n')
    assert.ok(Date.now() - started < 10_000)
  })
})

describe('calls past the bounds on calls awaiting answers wait in the run, in order, and none fails', () => {
  test('past a quarter of the heap cap in argument bytes, a call waits for answers to free room', async () => {
    const { runtime: small, dispose: disposeSmall } = await setup({ computeMs: 20_000, maxOldGenerationSizeMb: 16 })
    let release
    const answered = new Promise((resolve) => { release = resolve })
    const arrived = []
    const settled = small.run({
      program: `const big = 'x'.repeat(1_500_000)
const alone = await tools.hold({ i: 0, big: 'x'.repeat(4_500_000) }).catch((error) => [error.name, error.toolName, error.message])
const calls = [1, 2, 3].map((i) => tools.hold({ i, big }))
return [alone, await Promise.all(calls), await tools.hold({ i: 4, big: '' })]`,
      bindings: tools({ hold: ({ i }) => { arrived.push(i); return answered.then(() => i) } }),
    })
    while (arrived.length < 2) await sleep(5)
    await sleep(200)
    // Two calls of 1.5 MB hold 3 MB of the 4 MB a run may have awaiting answers: the third waits.
    assert.deepStrictEqual(arrived, [1, 2])
    release()
    const result = await settled
    await disposeSmall()
    assert.deepStrictEqual(result, { logs: [], value: [['ToolCallError', 'hold',
      'a binding call\'s arguments (4500016 bytes of JSON) are more than a run may have awaiting answers: 4194304 bytes (a quarter of maxOldGenerationSizeMb)'],
    [1, 2, 3], 4] })
    assert.deepStrictEqual(arrived, [1, 2, 3, 4])
  })

  test('past 1024 calls awaiting answers, calls wait and are sent in the order they were made', async () => {
    let open
    const gate = new Promise((resolve) => { open = resolve })
    const order = []
    const settled = run(`const calls = Array.from({ length: 3000 }, (_, i) => tools.hold(i))
return (await Promise.all(calls)).every((value, i) => value === i)`, tools({
      hold: async (i) => {
        order.push(i)
        await gate
        return i
      },
    }))
    while (order.length < 1024) await sleep(5)
    await sleep(200)
    assert.equal(order.length, 1024)
    open()
    assert.deepStrictEqual(await settled, { logs: [], value: true })
    assert.deepStrictEqual(order, Array.from({ length: 3000 }, (_, i) => i))
  })

  test('Promise.all over 20 000 calls completes, as in the worker-thread backend', async () => {
    const result = await run(`const all = await Promise.all(Array.from({ length: 20000 }, (_, i) => tools.get({ i })))
return all.reduce((sum, x) => sum + x, 0)`, tools({ get: async ({ i }) => i }))
    assert.deepStrictEqual(result, { logs: [], value: 199990000 })
  })
})
