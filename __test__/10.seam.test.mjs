// The seam's caller-visible rules: misuse rejections, config, abort, wall ceiling, disposal.
import { symlinkSync, lstatSync } from 'node:fs'
import { createRequire } from 'node:module'
import { describe, test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { Context } from '@deepseek-ai/cordis'
import Loader from '@deepseek-ai/cordis-plugin-loader'
import Include from '@deepseek-ai/cordis-plugin-include'
import { V8CodeRuntime, setup, sleep, tools } from './helpers.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')
const P = 'dsh-code-runtime-v8: '

describe('caller misuse rejects, in the seam order', () => {
  let runtime, dispose
  before(async () => ({ runtime, dispose } = await setup()))
  after(() => dispose())

  const rejects = (bindings, message, signal) =>
    assert.rejects(runtime.run({ program: 'return 1', bindings, signal }), { message: P + message })

  test('unusable globals', async () => {
    for (const global of ['not valid!', 'await', '$tools', 'a$b', 'lambda', 'None', '_', '']) {
      await rejects([{ global, functions: {} }], `binding global ${JSON.stringify(global)} is not a usable identifier`)
    }
  })

  test('reserved and duplicate globals', async () => {
    await rejects([{ global: 'console', functions: {} }], 'reserved binding global "console"')
    await rejects([{ global: '__dsh_main__', functions: {} }], 'reserved binding global "__dsh_main__"')
    await rejects([{ global: 'tools', functions: {} }, { global: 'tools', functions: {} }], 'duplicate binding global "tools"')
  })

  test('every global is checked before any error class', async () => {
    await rejects([
      { global: 'tools', functions: {}, errorClass: { name: 'await', memberNameProperty: 'toolName' } },
      { global: 'console', functions: {} },
    ], 'reserved binding global "console"')
  })

  test('error classes', async () => {
    const ns = (errorClass, global = 'tools') => [{ global, functions: {}, errorClass }]
    await rejects(ns({ name: 'not valid!', memberNameProperty: 'x' }), 'binding error class "not valid!" is not a usable identifier')
    await rejects(ns({ name: 'await', memberNameProperty: 'x' }), 'binding error class "await" is not a usable identifier')
    await rejects(ns({ name: 'console', memberNameProperty: 'x' }), 'reserved binding global "console"')
    await rejects(ns({ name: 'tools', memberNameProperty: 'x' }), 'duplicate injected global "tools"')
    await rejects([
      { global: 'a', functions: {}, errorClass: { name: 'CallError', memberNameProperty: 'x' } },
      { global: 'b', functions: {}, errorClass: { name: 'CallError', memberNameProperty: 'x' } },
    ], 'duplicate injected global "CallError"')
    await rejects([
      { global: 'a', functions: {}, errorClass: { name: 'b', memberNameProperty: 'x' } },
      { global: 'b', functions: {} },
    ], 'duplicate injected global "b"')
    for (const member of ['', 'message', 'args', 'name', 'stack', '__dict__', '__x__']) {
      await rejects(ns({ name: 'ToolCallError', memberNameProperty: member }), `binding error member property ${JSON.stringify(member)} is not usable`)
    }
  })

  test('member properties outside the exclusions are accepted', async () => {
    for (const member of ['toolName', 'code', 'not an identifier!', '__', '____', '__mid', '_private']) {
      const result = await runtime.run({
        program: 'return 1',
        bindings: [{ global: 'tools', functions: {}, errorClass: { name: 'ToolCallError', memberNameProperty: member } }],
      })
      assert.deepStrictEqual(result, { logs: [], value: 1 })
    }
  })

  test('misuse rejects even with an already-aborted signal', async () => {
    const controller = new AbortController()
    controller.abort('too-late')
    await rejects([{ global: 'await', functions: {} }], 'binding global "await" is not a usable identifier', controller.signal)
  })

  test('a global named like an undeclared error class is fine', async () => {
    const result = await runtime.run({ program: 'return typeof ToolCallError', bindings: [{ global: 'ToolCallError', functions: {} }] })
    assert.deepStrictEqual(result, { logs: [], value: 'object' })
  })
})

describe('config', () => {
  // A fiber is awaitable but not a promise: wrap it so assert.rejects can take it.
  const load = async (config) => {
    const fiber = new Context().plugin(V8CodeRuntime, config)
    await fiber
    return { dispose: () => fiber.dispose() }
  }

  test('no config uses every default', async () => {
    const { runtime, dispose } = await setup()
    const result = await runtime.run({ program: 'return 1', bindings: [] })
    assert.deepStrictEqual(result, { logs: [], value: 1 })
    await dispose()
  })

  test('a non-number fails schema validation', async () => {
    await assert.rejects(load({ computeMs: '5' }), /expected number but got 5/)
  })

  test('null takes the default', async () => {
    assert.equal(V8CodeRuntime.Config({ computeMs: null }).computeMs, 60_000)
    assert.deepStrictEqual(V8CodeRuntime.Config({ computeMs: null }), V8CodeRuntime.Config({}))
    const { runtime, dispose } = await setup({ computeMs: null })
    // A second of busy time: well inside the 60 s default.
    const program = 'const end = Date.now() + 1000; let n = 0; while (Date.now() < end) n++; return n > 0'
    assert.deepStrictEqual(await runtime.run({ program, bindings: [] }), { logs: [], value: true })
    await dispose()
  })

  test('every resolved entry must be a finite positive number', async () => {
    for (const [value, shown] of [[-1, '-1'], [0, '0'], [NaN, 'NaN'], [Infinity, 'Infinity']]) {
      await assert.rejects(load({ computeMs: value }), { message: `${P}config.computeMs must be a positive number, got ${shown}` })
    }
    await assert.rejects(load({ extra: 'x' }), { message: `${P}config.extra must be a positive number, got x` })
    await (await load({ extra: 5 })).dispose()
  })

  test('maxOutputBytes is a safe integer of at least 4', async () => {
    for (const value of [3, 4.5]) {
      await assert.rejects(load({ maxOutputBytes: value }), { message: `${P}config.maxOutputBytes must be a safe integer of at least 4, got ${value}` })
    }
    await (await load({ maxOutputBytes: 4 })).dispose()
  })

  test('maxWallMs is at most 2147483647', async () => {
    await assert.rejects(load({ maxWallMs: 2147483648 }), {
      message: `${P}config.maxWallMs must be at most 2147483647 (Node clamps a longer setTimeout delay to 1ms), got 2147483648`,
    })
    await (await load({ maxWallMs: 2147483647 })).dispose()
  })

  test('isolatePool is a whole number, and isolatePoolMax a whole number at least as large', async () => {
    await assert.rejects(load({ isolatePool: 1.5 }), { message: `${P}config.isolatePool must be a whole number, got 1.5` })
    await assert.rejects(load({ isolatePool: 33 }), {
      message: `${P}config.isolatePoolMax must be a whole number of at least config.isolatePool (33), got 32`,
    })
    await assert.rejects(load({ isolatePoolMax: 2.5 }), {
      message: `${P}config.isolatePoolMax must be a whole number of at least config.isolatePool (2), got 2.5`,
    })
    await (await load({ isolatePool: 3, isolatePoolMax: 3 })).dispose()
  })

  test('a second codeRuntime provider in one context fails to load', async () => {
    const ctx = new Context()
    const first = await ctx.plugin(V8CodeRuntime)
    await assert.rejects(async () => { await ctx.plugin(V8CodeRuntime) }, /registered/)
    await first.dispose()
  })
})

describe('abort', () => {
  let runtime, dispose
  before(async () => ({ runtime, dispose } = await setup({ maxOutputBytes: 64 })))
  after(() => dispose())

  test('an already-aborted signal resolves without starting an isolate', async () => {
    const cases = [[undefined, 'AbortError: This operation was aborted'], [new Error('x'), 'Error: x'], [null, 'null'], ['too-late', 'too-late']]
    for (const [reason, message] of cases) {
      const controller = new AbortController()
      reason === undefined ? controller.abort() : controller.abort(reason)
      const result = await runtime.run({ program: 'for(;;){}', bindings: [], signal: controller.signal })
      assert.deepStrictEqual(result, { logs: [], error: { kind: 'abort', message } })
    }
  })

  test('a pre-aborted reason that does not fit the cap is output-limit', async () => {
    const controller = new AbortController()
    controller.abort('A'.repeat(1000))
    const result = await runtime.run({ program: 'return 1', bindings: [], signal: controller.signal })
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'output-limit', message: 'outer output exceeded 64 bytes' } })
  })

  test('an abort stops a synchronous loop at once and keeps the logs', async () => {
    const controller = new AbortController()
    setTimeout(() => controller.abort('user-cancel'), 150)
    const result = await runtime.run({ program: 'console.log("started"); for(;;){}', bindings: [], signal: controller.signal })
    assert.deepStrictEqual(result, { logs: ['started'], error: { kind: 'abort', message: 'user-cancel' } })
  })

  test('a late binding answer after an abort is dropped without harm', async () => {
    const controller = new AbortController()
    let answered
    const result = await runtime.run({
      program: 'return await tools.slow({})',
      bindings: tools({
        slow: () => {
          setTimeout(() => controller.abort('cancel-now'), 100)
          return new Promise((resolve) => setTimeout(() => { answered = true; resolve('late') }, 400))
        },
      }),
      signal: controller.signal,
    })
    assert.deepStrictEqual(result, { logs: [], error: { kind: 'abort', message: 'cancel-now' } })
    await sleep(500)
    assert.equal(answered, true)
    assert.deepStrictEqual(await runtime.run({ program: 'return "after"', bindings: [] }), { logs: [], value: 'after' })
  })
})

test('the wall ceiling counts waiting time and never pauses', async () => {
  const { runtime, dispose } = await setup({ maxWallMs: 400 })
  const result = await runtime.run({ program: 'await tools.never({})', bindings: tools({ never: () => new Promise(() => {}) }) })
  assert.deepStrictEqual(result, { logs: [], error: { kind: 'timeout', message: 'wall-clock ceiling reached (400ms)' } })
  await dispose()
})

describe('disposal', () => {
  test('settles in-flight runs as runtime disposed, waits for their threads, and refuses new runs', async () => {
    const { ctx, runtime, dispose } = await setup()
    const hot = runtime.run({ program: 'for(;;){}', bindings: [] })
    const waiting = runtime.run({ program: 'await tools.never({})', bindings: tools({ never: () => new Promise(() => {}) }) })
    await sleep(100)
    await dispose()
    assert.equal(native.liveIsolateThreads(), 0)
    assert.deepStrictEqual(await hot, { logs: [], error: { kind: 'abort', message: 'runtime disposed' } })
    assert.deepStrictEqual(await waiting, { logs: [], error: { kind: 'abort', message: 'runtime disposed' } })
    await assert.rejects(runtime.run({ program: 'return 1', bindings: [] }), { message: `${P}run() after disposal` })
    assert.equal(ctx.get('codeRuntime'), undefined)
  })

  test('a new context loads the plugin again after disposal', async () => {
    const first = await setup()
    await first.dispose()
    const second = await setup()
    assert.deepStrictEqual(await second.runtime.run({ program: 'return 2', bindings: [] }), { logs: [], value: 2 })
    await second.dispose()
  })
})

test('the package mounts by name from a composition YAML through the real loader', async () => {
  // The loader imports bare names from its own install, as a bundle would: link this package there.
  const link = new URL('../node_modules/dsh-code-runtime-v8', import.meta.url)
  try { lstatSync(link) } catch { symlinkSync('..', link) }
  const root = new Context()
  await root.plugin(Loader, { baseUrl: import.meta.url })
  await root.plugin(Include, { path: new URL('./fixtures/cordis.yml', import.meta.url).href })
  await root.loader.await()
  const runtime = root.get('codeRuntime')
  assert.ok(runtime instanceof V8CodeRuntime)
  const result = await runtime.run({ program: 'const n: number = 40\nreturn n + 2', bindings: [] })
  assert.deepStrictEqual(result, { logs: [], value: 42 })
  await root.registry.get(Include)?.dispose?.()
})
