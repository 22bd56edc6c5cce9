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

// A run's first `node:` import is where deno_core binds the ops' fast calls, and it ends the process
// if that fails for want of stack. Imported from every depth across the edge of the stack, in a
// fresh isolate each time, the module loads or the import is refused; the host lives on.
test('a first node: import from any depth of a nearly full stack loads or is refused', async () => {
  const importSpare = async (spare) => (await runtime.run({
    program: `
      function deepest(n) { try { return deepest(n + 1) } catch { return n } }
      const depth = deepest(0) - ${spare}
      function at(n) { return n < depth ? at(n + 1) : import('node:path') }
      let loading
      try { loading = at(0) } catch (error) { return 'threw ' + error.name + ': ' + error.message }
      return loading.then((path) => 'loaded ' + path.sep, (error) => 'refused ' + error.name + ': ' + error.message)`,
    bindings: [],
  })).value
  const overflow = 'RangeError: Maximum call stack size exceeded'
  const tooDeep = "refused TypeError: Cannot import 'node:path': too little of the stack is left to load it"
  // Coarsely, from a full stack up, to the first depth that loads.
  let loadsFrom = 0
  while ((await importSpare(loadsFrom)) !== 'loaded /') {
    loadsFrom += 50
    assert.ok(loadsFrom < 20_000, 'no depth loads the module')
  }
  // Then one frame at a time below it: without the loader's bound, the first import fails in the
  // process-ending way at some of the 40 depths just short of loading.
  const outcomes = new Map()
  for (let spare = Math.max(0, loadsFrom - 350); spare <= loadsFrom + 50; spare++) {
    const outcome = await importSpare(spare)
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
  }
  assert.deepStrictEqual([...outcomes.keys()].filter((kind) => ![`threw ${overflow}`, `refused ${overflow}`, tooDeep, 'loaded /'].includes(kind)), [])
  assert.ok(outcomes.get(tooDeep) > 0 && outcomes.get('loaded /') > 0, JSON.stringify([...outcomes]))
})
