import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import * as entry from 'dsh-code-runtime-v8'
import { settledAt, setup, threadCount } from './helpers.mjs'

const native = createRequire(import.meta.url)('../lib/native.cjs')

test('the ESM entry exports the plugin by name and as default', () => {
  assert.equal(entry.default, entry.V8CodeRuntime)
  assert.ok(entry.V8CodeRuntime.prototype instanceof CodeRuntime)
})

test('loading the plugin registers ctx.codeRuntime with its descriptors', async () => {
  const { ctx, runtime, dispose } = await setup()
  assert.ok(runtime instanceof entry.V8CodeRuntime)
  assert.equal(runtime.language, 'typescript')
  assert.equal(runtime.isolation, 'v8-isolate')
  await dispose()
  assert.equal(ctx.get('codeRuntime'), undefined)
})

test('a program logs and returns a value', async () => {
  const { runtime, dispose } = await setup()
  const result = await runtime.run({ program: 'console.log("hi"); return 1 + 1', bindings: [] })
  assert.deepStrictEqual(result, { logs: ['hi'], value: 2 })
  await dispose()
})

test('a program that returns nothing has no value key', async () => {
  const { runtime, dispose } = await setup()
  const result = await runtime.run({ program: 'const x = 1', bindings: [] })
  assert.deepStrictEqual(result, { logs: [] })
  assert.equal('value' in result, false)
  await dispose()
})

test('top-level await works', async () => {
  const { runtime, dispose } = await setup()
  const result = await runtime.run({ program: 'const v = await Promise.resolve(41); return v + 1', bindings: [] })
  assert.deepStrictEqual(result, { logs: [], value: 42 })
  await dispose()
})

test('the built addon leaves no V8 or Chromium libc++ symbol for Node to bind', () => {
  const binary = readdirSync(new URL('..', import.meta.url)).find((name) => name.endsWith('.node'))
  assert.ok(binary, 'a built .node file is next to the package')
  const undefinedSymbols = execFileSync('nm', ['-D', '--undefined-only', new URL(`../${binary}`, import.meta.url).pathname], { encoding: 'utf8' })
  const leaked = undefinedSymbols.split('\n').filter((line) => /_ZN2v8|_ZNSt4__Cr/.test(line))
  assert.deepStrictEqual(leaked, [])
})

test('1000 runs in a row leave the process healthy and the thread count at its baseline', async () => {
  const baseline = await threadCount()
  const { runtime, dispose } = await setup()
  for (let i = 0; i < 1000; i++) {
    const result = await runtime.run({ program: `return ${i} * 2`, bindings: [] })
    assert.equal(result.value, i * 2)
  }
  // Disposal waits for every isolate thread, prepared ones included.
  await dispose()
  assert.equal(native.liveIsolateThreads(), 0)
  assert.equal(await settledAt(threadCount, baseline), baseline)
  // Nothing native outlives its run: not the watchdog's hold, not the JS wrapper's.
  assert.equal(await settledAt(native.liveRuns, 0), 0)
})
