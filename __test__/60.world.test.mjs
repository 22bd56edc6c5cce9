// A corpus of realistic agent programs (tools, Buffer, URL, crypto.subtle, Intl, node:* modules ...)
// ends exactly as it does on the reference backend. The expected results are pinned from the
// reference on Node 24 by fixtures/pin-world.mjs; see the top of that file to re-pin.
import { readFileSync } from 'node:fs'
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { setup } from './helpers.mjs'
import { REFUSED_IMPORT_PROGRAMS, WORLD_CONFIG, WORLD_PROGRAMS, runWorldProgram } from './fixtures/world-corpus.mjs'

const pinned = JSON.parse(readFileSync(new URL('./fixtures/world-expected.json', import.meta.url), 'utf8'))

/** What the corpus must use, each at least once: [label, text that shows it is used]. */
const COVERAGE = [
  ...['Buffer', 'atob', 'btoa', 'TextEncoder', 'TextDecoder', 'URL', 'URLSearchParams', 'structuredClone', 'EventTarget',
    'CustomEvent', 'AbortController', 'AbortSignal.timeout', 'AbortSignal.any', 'DOMException', 'Blob', 'performance.now',
    'crypto.getRandomValues', 'crypto.randomUUID', 'crypto.subtle', 'setImmediate', 'clearImmediate', 'process.nextTick',
    'process.hrtime', 'process.hrtime.bigint', 'process.stdout.write', 'Intl.NumberFormat', 'Intl.DateTimeFormat',
    'Intl.PluralRules', 'Intl.RelativeTimeFormat', 'Intl.Collator', 'Promise.all', 'Promise.allSettled', 'setTimeout',
  ].map((name) => [name, name]),
  ['Event', 'new Event('],
  ['global', 'global.'],
  ['Object.getPrototypeOf(process.stdout).write', 'Object.getPrototypeOf(process.stdout).write.call(process.stdout'],
  ...['node:buffer', 'node:util', 'node:crypto', 'node:url', 'node:path', 'node:querystring', 'node:string_decoder',
    'node:events', 'node:timers', 'node:timers/promises', 'node:assert', 'node:assert/strict', 'util', 'events',
  ].map((specifier) => [specifier, `import('${specifier}')`]),
]

let runtime, dispose
before(async () => ({ runtime, dispose } = await setup(WORLD_CONFIG)))
after(() => dispose())

test(`the corpus has at least 64 programs, all of them pinned`, () => {
  assert.ok(Object.keys(WORLD_PROGRAMS).length >= 64, `only ${Object.keys(WORLD_PROGRAMS).length} programs`)
  assert.deepStrictEqual(Object.keys(pinned), Object.keys(WORLD_PROGRAMS))
})

test('the corpus uses every API on the list', () => {
  const sources = Object.values(WORLD_PROGRAMS)
  const missing = COVERAGE.filter(([, text]) => !sources.some((source) => source.includes(text))).map(([label]) => label)
  assert.deepStrictEqual(missing, [])
})

for (const [name, program] of Object.entries(WORLD_PROGRAMS)) {
  test(`as on the reference: ${name}`, async () => {
    assert.deepStrictEqual(await runWorldProgram(runtime, program), pinned[name])
  })
}

// Not pinned: the reference, a real Node worker, imports node:fs and node:child_process; ours
// refuses every module outside the allowed set, with a TypeError.
test('importing a refused module rejects with a TypeError', async () => {
  for (const [specifier, program] of Object.entries(REFUSED_IMPORT_PROGRAMS)) {
    const result = await runWorldProgram(runtime, program)
    assert.deepStrictEqual(result.logs, [], specifier)
    assert.ok(Array.isArray(result.value) && result.value[0] === true, `${specifier}: ${JSON.stringify(result)}`)
  }
})
