// Durable runs: recorded runs replay byte for byte, suspended runs resume to the result of the run
// without suspensions, and a journal that is not the one recorded is refused before anything runs.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { setup, sleep } from './helpers.mjs'
import { resumption, suspend } from 'dsh-code-runtime-v8'
import { assertDivergences, resumeInTurns } from './fixtures/durable-cases.mjs'

let runtime, dispose
before(async () => ({ runtime, dispose } = await setup({ computeMs: 10_000, maxWallMs: 20_000 })))
after(() => dispose())

/** A small PRNG (mulberry32), so that every generated program comes back from its number. */
function random(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Host functions that answer after a random few milliseconds, so live arrival orders vary. */
function hostBindings(calls, wrap = (name, compute) => compute) {
  const later = (value, fail) => new Promise((resolve, reject) => setTimeout(() => (fail ? reject(new Error(fail)) : resolve(value)), Math.random() * 6))
  const functions = {
    echo: wrap('echo', (x) => later(x)),
    double: wrap('double', (x) => later(typeof x === 'number' ? x * 2 : [x, x])),
    fail: wrap('fail', (x) => later(undefined, `no ${JSON.stringify(x)}`)),
  }
  for (const [name, fn] of Object.entries(functions)) {
    functions[name] = (args) => {
      calls.push(name)
      return fn(args)
    }
  }
  return [{ global: 'tools', functions, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }]
}

/**
 * Program `index`: binding calls (sequential, concurrent, failing), timers, randomness and clocks,
 * console output. `orderFree` programs give a result that no arrival order or clock reading can change.
 */
function generate(index, orderFree) {
  const next = random(index * 7919 + (orderFree ? 1 : 0))
  const pick = (list) => list[Math.floor(next() * list.length)]
  const n = () => Math.floor(next() * 100)
  const statements = [
    () => `out.push(await tools.echo(${n()}))`,
    () => `out.push(await tools.double(${n()}))`,
    () => `out.push(await Promise.all([tools.echo(${n()}), tools.double(${n()}), tools.echo('s${n()}')]))`,
    () => `out.push((await Promise.allSettled([tools.fail(${n()}), tools.echo(${n()})])).map((r) => r.status + ':' + (r.value ?? r.reason.message)))`,
    () => `try { await tools.fail('x${n()}') } catch (e) { console.log(e.name, e.toolName, e.message) }`,
    () => `await new Promise((r) => setTimeout(r, ${1 + Math.floor(next() * 20)}))`,
    () => `console.log('random', Math.random(), crypto.getRandomValues(new Uint8Array(3)).join(','), crypto.randomUUID().length)`,
    () => `out.push(await tools.echo(String(Math.floor(Math.random() * 1000))))`,
    () => `await (async () => { let ticks = 0; await new Promise((r) => { const t = setInterval(() => { if (++ticks === 3) { clearInterval(t); r() } }, ${2 + n() % 5}) }) ; out.push('ticks' + ticks) })()`,
  ]
  const ordered = [
    () => `out.push(await Promise.race([tools.echo('a${n()}'), tools.double(${n()})]))`,
    () => `setTimeout(() => console.log('timer', Date.now() - t0), ${n() % 10})`,
    () => `console.log('clock', Date.now() - t0, Math.round(performance.now()), process.hrtime()[0])`,
    () => `tools.echo(${n()}).then((v) => console.log('late', v))`,
  ]
  const pool = orderFree ? statements : [...statements, ...ordered]
  const body = Array.from({ length: 3 + Math.floor(next() * 6) }, () => pick(pool)())
  return `const out = [], t0 = Date.now()\n${body.join('\n')}\nawait new Promise((r) => setTimeout(r, 1))\nreturn out`
}

test('recorded runs replay with byte-identical logs, values and failures, and call no binding', async () => {
  for (let index = 0; index < 40; index++) {
    const program = generate(index, false)
    const calls = []
    const recorded = await runtime.runDurable({ program, bindings: hostBindings(calls) })
    assert.equal(recorded.status, 'completed', program)
    const made = calls.length
    const replayed = await runtime.replay({ program, bindings: hostBindings(calls) }, recorded.journal)
    assert.equal(calls.length, made, 'a replay called a binding')
    assert.equal(replayed.status, 'completed')
    assert.equal(JSON.stringify(replayed.result), JSON.stringify(recorded.result), program)
  }
})

test('a run suspended at every binding call, resumed one, some or all at a time, ends as the run without suspensions', async () => {
  const seed = '0123456789abcdef0123456789abcdef'
  for (let index = 0; index < 24; index++) {
    const program = generate(index, true)
    const reference = await runtime.runDurable({ program, bindings: hostBindings([]) }, { seed })
    assert.equal(reference.status, 'completed')
    // Every call first asks to wait, with its arguments as payload; resumed, it computes its answer.
    const calls = []
    const bindings = hostBindings(calls, (name, compute) => (args) => (resumption() === undefined ? suspend({ name, args }) : compute(args)))
    const strategy = ['one', 'some', 'all'][index % 3]
    const { attempt, attempts } = await resumeInTurns(runtime, program, bindings, seed, strategy)
    assert.equal(JSON.stringify(attempt.result), JSON.stringify(reference.result), `${strategy}: ${program}`)
    assert.ok(attempts > 1 || !program.includes('tools.'))
  }
})

test('suspended calls are all pending at once, and their bindings run again only when resolved', async () => {
  const calls = []
  const bindings = [{
    global: 'tools',
    functions: {
      pay: ({ amount }) => {
        calls.push(['pay', amount, resumption() ?? null])
        const resumed = resumption()
        return resumed === undefined ? suspend({ ask: `pay ${amount}?` }) : resumed.resolution ? `paid ${amount}` : `refused ${amount}`
      },
      balance: () => {
        calls.push(['balance'])
        return 100
      },
    },
  }]
  const program = `console.log('balance', await tools.balance({}))
const paid = await Promise.all([tools.pay({ amount: 5 }), tools.pay({ amount: 7 })])
console.log(paid.join(', '))
return paid`
  const first = await runtime.runDurable({ program, bindings })
  assert.equal(first.status, 'suspended')
  assert.deepStrictEqual(first.pending, [
    { id: 2, global: 'tools', name: 'pay', args: { amount: 5 }, payload: { ask: 'pay 5?' } },
    { id: 3, global: 'tools', name: 'pay', args: { amount: 7 }, payload: { ask: 'pay 7?' } },
  ])
  assert.deepStrictEqual(first.logs, ['balance 100'])
  calls.length = 0
  const second = await runtime.resume({ program, bindings }, JSON.parse(JSON.stringify(first.journal)), { 3: false })
  assert.equal(second.status, 'suspended')
  assert.deepStrictEqual(second.pending.map(({ id }) => id), [2])
  const { runId } = first.journal
  assert.match(runId, /^[0-9a-f]{32}$/)
  assert.deepStrictEqual(calls, [['pay', 7, { id: 3, runId, payload: { ask: 'pay 7?' }, resolution: false }]])
  calls.length = 0
  const third = await runtime.resume({ program, bindings }, second.journal, { 2: true })
  assert.deepStrictEqual(calls, [['pay', 5, { id: 2, runId, payload: { ask: 'pay 5?' }, resolution: true }]])
  assert.deepStrictEqual(third.result, { logs: ['balance 100', 'paid 5, refused 7'], value: ['paid 5', 'refused 7'] })
  assert.equal(first.usage.replayMs, 0)
  assert.ok(third.usage.replayMs > 0 && third.usage.replayMs <= third.usage.wallMs, JSON.stringify(third.usage))
  assert.equal(third.status, 'completed')
  await assert.rejects(runtime.resume({ program, bindings }, third.journal, { 2: true }),
    { message: 'dsh-code-runtime-v8: the journal has no pending calls to resume' })
  await assert.rejects(runtime.resume({ program, bindings }, second.journal, { 9: true }),
    { message: 'dsh-code-runtime-v8: no pending call has id "9"' })
  await assert.rejects(runtime.resume({ program, bindings }, second.journal, { '02': true }),
    { message: 'dsh-code-runtime-v8: no pending call has id "02"' })
})

test('the clock is virtual: timers fire at their due time, live and on replay', async () => {
  const program = `const t0 = Date.now(), p0 = performance.now()
await new Promise((r) => setTimeout(r, 1000))
const [s] = process.hrtime()
return [Date.now() - t0, performance.now() - p0, s, new Date().getTime() - t0]`
  const recorded = await runtime.runDurable({ program, bindings: [] })
  assert.deepStrictEqual(recorded.result, { logs: [], value: [1000, 1000, 1, 1000] })
  const started = performance.now()
  const replayed = await runtime.replay({ program, bindings: [] }, recorded.journal)
  assert.deepStrictEqual(replayed.result, recorded.result)
  // The replay delivers the timer from the journal: it does not wait its second.
  assert.ok(performance.now() - started < 900)
  assert.deepStrictEqual(recorded.journal.events.map(({ type, t }) => [type, t]), [['timer', 1000]])
})

test('the durable clock, randomness and refusals read as the built-ins they stand in front of', async () => {
  const program = `const f = new Intl.DateTimeFormat()
return [Date, Date.now, Math.random, Intl.DateTimeFormat.prototype.formatToParts, f.format,
  Object.getOwnPropertyDescriptor(Intl.DateTimeFormat.prototype, 'format').get, WeakRef, FinalizationRegistry,
  Atomics.waitAsync].map(String)`
  const { result } = await runtime.runDurable({ program, bindings: [] })
  assert.deepStrictEqual(result, { logs: [], value: ['function Date() { [native code] }', 'function now() { [native code] }',
    'function random() { [native code] }', 'function formatToParts() { [native code] }', 'function () { [native code] }',
    'function get format() { [native code] }', 'function WeakRef() { [native code] }',
    'function FinalizationRegistry() { [native code] }', 'function waitAsync() { [native code] }'] })
})

test('randomness draws from the seed: the same seed gives the same values, node:crypto\'s included', async () => {
  const program = `const c = await import('node:crypto')
return [Math.random(), crypto.getRandomValues(new Uint32Array(2)).join(','), crypto.randomUUID(), c.randomBytes(4).toString('hex'), c.randomInt(1000)]`
  const seed = 'fedcba9876543210fedcba9876543210'
  const [a, b, other] = await Promise.all([runtime.runDurable({ program, bindings: [] }, { seed }), runtime.runDurable({ program, bindings: [] }, { seed }),
    runtime.runDurable({ program, bindings: [] }, { seed: seed.replace('f', '0') })])
  assert.deepStrictEqual(a.result, b.result)
  assert.notDeepStrictEqual(a.result.value, other.result.value)
  assert.equal(a.result.value[2][14], '4')
  assert.deepStrictEqual((await runtime.replay({ program, bindings: [] }, other.journal)).result, other.result)
})

test('what no journal can replay is refused in a durable run, and only there', async () => {
  const program = `const out = []
for (const f of [() => new WeakRef({}), () => new FinalizationRegistry(() => {}), () => crypto.subtle, () => new Blob(['x']).text()]) {
  try { f(); out.push('ran') } catch (e) { out.push(e.name + ': ' + e.message) }
}
return out`
  const durable = await runtime.runDurable({ program, bindings: [] })
  const gc = 'what it sees depends on when garbage is collected, which no journal can replay'
  const thread = 'its work completes on another thread, at a time, which no journal can replay'
  assert.deepStrictEqual(durable.result.value, [
    `TypeError: WeakRef is not available in a durable run: ${gc}`,
    `TypeError: FinalizationRegistry is not available in a durable run: ${gc}`,
    `TypeError: crypto.subtle is not available in a durable run: ${thread}`,
    `TypeError: Blob.prototype.text is not available in a durable run: ${thread}`,
  ])
  assert.deepStrictEqual((await runtime.run({ program, bindings: [] })).value, ['ran', 'ran', 'ran', 'ran'])
})

test('a replay that meets another program behaviour fails naming the event, what it expected and what it found', async () => {
  const program = 'const a = await tools.echo(1); const b = await tools.echo(2); return [a, b]'
  await assertDivergences(runtime, program, hostBindings)
})

test('hostile journals are refused before anything runs or any binding is called', async () => {
  const program = 'return await tools.echo(1)'
  const calls = []
  const bindings = hostBindings(calls)
  const options = { secret: 'a server-side secret of 32 bytes or more', scope: { tenant: 'a', user: 7 } }
  const { journal } = await runtime.runDurable({ program, bindings }, options)
  assert.match(journal.signature, /^hmac-sha256:[0-9a-f]{64}$/)
  calls.length = 0
  const deep = (() => { let v = 1; for (let i = 0; i < 100_000; i++) v = [v]; return v })()
  const refusals = [
    [{ ...journal, signature: journal.signature.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }, options, 'its signature does not match'],
    [{ ...journal, events: [{ ...journal.events[0] }, { ...journal.events[1], value: 2 }] }, options, 'its signature does not match'],
    [journal, { ...options, scope: { tenant: 'b', user: 7 } }, 'its scope does not match'],
    [journal, { scope: options.scope }, 'it is signed, and no secret was given to check it'],
    [journal, { ...options, secret: 'another server-side secret of 32 bytes' }, 'its signature does not match'],
    [{ ...journal, version: 2 }, options, 'unknown format or version'],
    [{ ...journal, runtime: '0.0.1' }, options, 'recorded by runtime "0.0.1", this is 0.1.0'],
    [{ ...journal, events: journal.events.slice(0, 1) }, options, 'its signature does not match'],
    [{ ...journal, events: Array.from({ length: 10_001 }, (_, i) => ({ t: 0, type: 'timer', id: i + 1 })) }, options, 'it has more than 10000 events'],
    [{ ...journal, events: [{ t: 0, type: 'answer', id: 1, value: 'x'.repeat(17 << 20) }] }, options, 'its events pass 16777216 bytes'],
    // Read at any depth, without recursion: refused for what it is, a journal nobody signed.
    [{ ...journal, events: [{ t: 0, type: 'answer', id: 1, value: deep }] }, options, 'its signature does not match'],
    [{ ...journal, note: 'x'.repeat(64) }, options, 'it has an unknown field "note"'],
    [{ ...journal, seed: 10n }, options, 'it cannot be read as JSON'],
    [{ ...journal, events: [{ t: 5, type: 'timer', id: 1 }, { t: 4, type: 'timer', id: 2 }] }, { scope: options.scope }, 'event 1 has no valid time'],
    [null, options, 'not a journal object'],
  ]
  for (const [hostile, given, why] of refusals) {
    const unsigned = given.secret === undefined && hostile?.signature && why !== 'it is signed, and no secret was given to check it'
    const candidate = unsigned ? { ...hostile, signature: undefined } : hostile
    await assert.rejects(runtime.replay({ program, bindings }, candidate, given), { message: `dsh-code-runtime-v8: journal refused: ${why}` })
    await assert.rejects(runtime.resume({ program, bindings }, candidate, {}, given), { message: `dsh-code-runtime-v8: journal refused: ${why}` })
  }
  await assert.rejects(runtime.replay({ program: `${program};`, bindings }, journal, options), { message: 'dsh-code-runtime-v8: journal refused: it records another program' })
  await assert.rejects(runtime.replay({ program, bindings: [{ global: 'tools', functions: { other() {} } }] }, journal, options),
    { message: 'dsh-code-runtime-v8: journal refused: it records other binding names' })
  // The error classes are part of what a program sees.
  await assert.rejects(runtime.replay({ program, bindings: [{ ...bindings[0], errorClass: { name: 'OtherError', memberNameProperty: 'toolName' } }] }, journal, options),
    { message: 'dsh-code-runtime-v8: journal refused: it records other binding names' })
  assert.deepStrictEqual(calls, [])
  assert.deepStrictEqual((await runtime.replay({ program, bindings }, journal, options)).result, { logs: [], value: 1 })
})

test('a journal past its caps ends the run with a clear message', async () => {
  const program = 'for (let i = 0; i < 20; i++) console.log(await tools.echo(i)); return "done"'
  const capped = await runtime.runDurable({ program, bindings: hostBindings([]) }, { maxEvents: 10 })
  assert.equal(capped.status, 'completed')
  assert.deepStrictEqual(capped.result.error, { kind: 'exception', message: 'the durable journal passed its cap of 10 events' })
  // The sixth call's sync carries events 11 and 12: the fifth answer was printed.
  assert.deepStrictEqual(capped.result.logs, ['0', '1', '2', '3', '4'])
  const bytes = await runtime.runDurable({ program: 'return (await tools.echo("x".repeat(5000))).length', bindings: hostBindings([]) }, { maxBytes: 4096 })
  assert.deepStrictEqual(bytes.result.error, { kind: 'exception', message: 'the durable journal passed its cap of 4096 bytes' })
})

test('caller misuse of the durable API rejects with a precise message', async () => {
  const bindings = hostBindings([])
  await assert.rejects(runtime.runDurable({ program: 'return 1', bindings }, { seed: 'x' }), { message: 'dsh-code-runtime-v8: options.seed must be 32 lower-case hex digits' })
  await assert.rejects(runtime.runDurable({ program: 'return 1', bindings }, { secret: 'short' }), { message: 'dsh-code-runtime-v8: options.secret must be a string or bytes of at least 32 bytes' })
  await assert.rejects(runtime.runDurable({ program: 'return 1', bindings }, { maxEvents: 0 }), { message: 'dsh-code-runtime-v8: options.maxEvents must be a positive whole number' })
  await assert.rejects(runtime.runDurable({ program: 'return 1', bindings }, { scope: { f() {} } }), { message: 'dsh-code-runtime-v8: options.scope must be JSON' })
  await assert.rejects(runtime.replay({ program: 'return 1', bindings }), { message: 'dsh-code-runtime-v8: a journal is required' })
  await assert.rejects(runtime.resume({ program: 'return 1', bindings }, (await runtime.runDurable({ program: 'return 1', bindings })).journal, []),
    { message: 'dsh-code-runtime-v8: resolutions must be an object from pending call id to value' })
  assert.throws(() => suspend(() => {}), { message: 'dsh-code-runtime-v8: suspend() takes a JSON payload' })
  assert.equal(resumption(), undefined)
  await sleep(0)
})

test('the README\'s approval example runs as it says', async () => {
  const { execFileSync } = await import('node:child_process')
  const output = execFileSync(process.execPath, [new URL('../examples/approval.mjs', import.meta.url).pathname], { encoding: 'utf8', timeout: 30_000 })
  assert.equal(output, `status: suspended
  waiting: call 2: Pay 40 to alice?
  waiting: call 3: Pay 500 to mallory?
  printed so far: [ 'balance 120' ]
status: completed
${JSON.stringify({ logs: ['balance 120'], value: [{ paid: 40, to: 'alice' }, 'BankError: payment refused by ops'] }, null, 2)}
ledger: [{"to":"alice","amount":40}]
replay gives the same result: true
`)
})

test('every way a durable run ends leaves a journal that replays to the same result', async () => {
  const programs = [
    "const a = await tools.echo(3); console.log('got', a); process.exit(0)",
    "const a = await tools.echo(3); console.log('got', a); queueMicrotask(() => { throw new Error('late') }); await new Promise(() => {})",
    "const a = await tools.echo(3); setTimeout(() => { throw new Error('in a timer ' + a) }, 5); await new Promise(() => {})",
    "await tools.echo(1); throw new Error('thrown')",
    "const p = Object.getPrototypeOf(performance); const t = p.now.call(performance); await tools.echo(1); return [t, performance.timeOrigin === Date.now() - performance.now()]",
  ]
  for (const program of programs) {
    const recorded = await runtime.runDurable({ program, bindings: hostBindings([]) })
    const replayed = await runtime.replay({ program, bindings: hostBindings([]) }, recorded.journal)
    assert.equal(JSON.stringify(replayed.result), JSON.stringify(recorded.result), program)
  }
  const refused = await runtime.runDurable({ program: "try { Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2) } catch (e) { return e.message }", bindings: [] })
  assert.equal(refused.result.value, "Atomics.waitAsync is not available in a durable run: it resolves on the host's clock, which no journal can replay")
})

test('the event cap holds between binding calls, and a capped attempt calls no further binding', async () => {
  const ticks = await runtime.runDurable({ program: 'for (;;) await new Promise((r) => setImmediate(r))', bindings: [] }, { maxEvents: 100 })
  assert.deepStrictEqual(ticks.result.error, { kind: 'exception', message: 'the durable journal passed its cap of 100 events' })
  const calls = []
  const capped = await runtime.runDurable({ program: 'for (let i = 0; i < 5; i++) await tools.echo(i); return 1', bindings: hostBindings(calls) }, { maxEvents: 2 })
  assert.deepStrictEqual(capped.result.error, { kind: 'exception', message: 'the durable journal passed its cap of 2 events' })
  assert.deepStrictEqual(calls, ['echo'])
})

test('a replayed timer must be the one that was due, at its time', async () => {
  const program = 'const t0 = Date.now(); await tools.echo(1); await new Promise((r) => setTimeout(r, 50)); return Date.now() - t0'
  const { journal, result } = await runtime.runDurable({ program, bindings: hostBindings([]) })
  assert.equal(result.value >= 50, true)
  const moved = structuredClone(journal)
  const timer = moved.events.findIndex(({ type }) => type === 'timer')
  moved.events[timer].t = moved.events[timer - 1].t
  const replayed = await runtime.replay({ program, bindings: hostBindings([]) }, moved)
  assert.match(replayed.result.error.message, new RegExp(`^the run diverged from its journal at event ${timer}: expected timer 1, found timer 1, due at `))
})

test('a completed run cannot be resumed, even if it left a call waiting', async () => {
  const bindings = [{ global: 'tools', functions: { approve: () => suspend({}) } }]
  const program = "return await Promise.race([tools.approve({}), new Promise((r) => setTimeout(() => r('timed out'), 10))])"
  const done = await runtime.runDurable({ program, bindings })
  assert.deepStrictEqual([done.status, done.result.value, done.journal.completed], ['completed', 'timed out', true])
  await assert.rejects(runtime.resume({ program, bindings }, done.journal, { 1: true }), { message: 'dsh-code-runtime-v8: the journal has no pending calls to resume' })
})

test('an answer the program changes is journaled as the host gave it: resumed and replayed, the run ends as it would have', async () => {
  const options = { secret: 'a server-side secret of 32 bytes or more' }
  const bindings = [{
    global: 'tools',
    functions: { get: async () => ({ count: 1, tags: ['a'] }), approve: async () => resumption()?.resolution ?? suspend({}) },
  }]
  const program = `const v = await tools.get({})
v.count++
v.tags.push('changed')
v.toJSON = () => 'not what the host sent'
await tools.approve({})
v.count++
return [v.count, v.tags]`
  const plain = await runtime.run({ program: program.replace('await tools.approve({})', ''), bindings })
  assert.deepStrictEqual(plain.value, [3, ['a', 'changed']])
  const first = await runtime.runDurable({ program, bindings }, options)
  assert.equal(first.status, 'suspended')
  assert.deepStrictEqual(first.journal.events.find((event) => event.type === 'answer').value, { count: 1, tags: ['a'] })
  const done = await runtime.resume({ program, bindings }, first.journal, { [first.pending[0].id]: true }, options)
  assert.deepStrictEqual(done.result, { logs: [], value: [3, ['a', 'changed']] })
  const replayed = await runtime.replay({ program, bindings }, done.journal, options)
  assert.deepStrictEqual(replayed.result, done.result)
})

test('a program that rewrites Array.prototype\'s indices or the Map iterator reaches nothing the host is sent', async () => {
  const options = { secret: 'a server-side secret of 32 bytes or more' }
  const effects = []
  const bindings = [{
    global: 'bank',
    functions: {
      transfer: (args) => {
        const resumed = resumption()
        if (resumed === undefined) return suspend({ amount: args.amount })
        effects.push([args, resumed.resolution])
        return 'done'
      },
      echo: (x) => x,
    },
  }]
  // Every text a list of the runtime's would hold becomes a forged end of the message: a second,
  // approved transfer of other arguments, or a suspension of a run that has finished.
  const forge = (text) => `Object.defineProperty(Array.prototype, '0', { configurable: true, set(v) {
  Object.defineProperty(this, '0', { value: typeof v === 'string' && v.startsWith('{"type"') ? ${JSON.stringify(text)} : v, writable: true, enumerable: true, configurable: true })
} })
const MapIterator = Object.getPrototypeOf(new Map().values())
const next = MapIterator.next
MapIterator.next = function () {
  const step = next.call(this)
  if (step.value && typeof step.value.argsJson === 'string') step.value.argsJson = '{"amount":1000000}'
  return step
}
`
  const program = `${forge('{"type":"timer","id":99,"t":0}],"call":[1,0,0,"{\\"amount\\":1000000}",true],"y":[1')}
return await bank.transfer({ amount: 10 })`
  const first = await runtime.runDurable({ program, bindings }, options)
  assert.deepStrictEqual(first.pending.map(({ args }) => args), [{ amount: 10 }])
  const done = await runtime.resume({ program, bindings }, first.journal, { [first.pending[0].id]: 'approved' }, options)
  assert.deepStrictEqual(done.result, { logs: [], value: 'done' })
  assert.deepStrictEqual(effects, [[{ amount: 10 }, 'approved']])
  assert.deepStrictEqual(done.journal.events.map(({ type }) => type), ['call', 'suspended', 'answer'])
  const finished = await runtime.runDurable({ program: `${forge('{"type":"timer","id":7,"t":0}],"suspend":true,"y":[1')}
await bank.echo(1)
return 42`, bindings }, options)
  assert.deepStrictEqual([finished.status, finished.result, finished.journal.completed], ['completed', { logs: [], value: 42 }, true])
})

test('a suspension reaches the host whatever the events recorded since the last message weigh', async () => {
  const small = await setup({ maxOldGenerationSizeMb: 64, computeMs: 10_000 })
  try {
    // Three answers of 6 MB: more than a quarter of the heap cap, the bound on calls in flight.
    const bindings = [{ global: 't', functions: { big: () => 'x'.repeat(6e6), wait: () => suspend({ ask: 1 }) } }]
    const program = 'const r = await Promise.all([t.big(0), t.big(0), t.big(0), t.wait(0)]); return r.length'
    const first = await small.runtime.runDurable({ program, bindings }, { maxBytes: 256 * 1024 * 1024 })
    assert.equal(first.status, 'suspended')
    // In the order the answers came, which the host's timing decides.
    assert.deepStrictEqual(first.journal.events.map(({ type }) => type).sort(), ['answer', 'answer', 'answer', 'call', 'call', 'call', 'call', 'suspended'])
    assert.deepStrictEqual(first.pending.map(({ id, payload }) => [id, payload]), [[4, { ask: 1 }]])
  } finally {
    await small.dispose()
  }
})

test('an answer past a quarter of the heap cap is journaled, and the next call still goes out', async () => {
  const small = await setup({ maxOldGenerationSizeMb: 64, computeMs: 10_000 })
  try {
    const bindings = [{ global: 't', functions: { big: () => 'x'.repeat(2e7), echo: (x) => x, wait: () => resumption()?.resolution ?? suspend({}) } }]
    const program = 'const b = await t.big(0); const e = await t.echo(b.length); const w = await t.wait(0); return [e, w]'
    const options = { maxBytes: 256 * 1024 * 1024 }
    const first = await small.runtime.runDurable({ program, bindings }, options)
    assert.equal(first.status, 'suspended')
    assert.deepStrictEqual(first.journal.events.map(({ type }) => type), ['call', 'answer', 'call', 'answer', 'call', 'suspended'])
    const done = await small.runtime.resume({ program, bindings }, first.journal, { [first.pending[0].id]: 'ok' }, options)
    assert.deepStrictEqual(done.result, { logs: [], value: [20_000_000, 'ok'] })
  } finally {
    await small.dispose()
  }
})

test('an answer\'s keys come in the same order live, resumed and replayed', async () => {
  const bindings = [{ global: 't', functions: { obj: () => ({ b: 1, a: { d: 1, c: 2 } }) } }]
  const program = 'const o = await t.obj(0); return [Object.keys(o), Object.keys(o.a)]'
  const live = await runtime.runDurable({ program, bindings })
  const replayed = await runtime.replay({ program, bindings }, JSON.parse(JSON.stringify(live.journal)))
  assert.deepStrictEqual(live.result, { logs: [], value: [['a', 'b'], ['c', 'd']] })
  assert.deepStrictEqual(replayed.result, live.result)
})

test('an approval never leaks into a run, durable or plain, that the approved binding starts', async () => {
  const options = { secret: 'a server-side secret of 32 bytes or more' }
  const seen = []
  const inner = [{ global: 'bank', functions: { pay: async () => (resumption() ? 'INNER PAID WITHOUT APPROVAL' : suspend({ inner: true })) } }]
  const plain = [{ global: 'bank', functions: { pay: async () => { seen.push(resumption()); return 'plain' } } }]
  const outer = [{
    global: 'bank',
    functions: {
      pay: async () => {
        if (!resumption()) return suspend({ amount: 999 })
        const sub = await runtime.runDurable({ program: 'return await bank.pay({ amount: 999 })', bindings: inner }, options)
        const run = await runtime.run({ program: 'return await bank.pay({})', bindings: plain })
        // The resumed call itself still sees its resumption after its own awaits.
        return [sub.status, sub.pending?.[0]?.payload, run.value, resumption().resolution]
      },
    },
  }]
  const program = 'return await bank.pay({ amount: 999 })'
  const first = await runtime.runDurable({ program, bindings: outer }, options)
  assert.equal(first.status, 'suspended')
  const done = await runtime.resume({ program, bindings: outer }, first.journal, { [first.pending[0].id]: 'ok' }, options)
  assert.deepStrictEqual(done.result, { logs: [], value: ['suspended', { inner: true }, 'plain', 'ok'] })
  assert.deepStrictEqual(seen, [undefined])
})

test('a value nested thousands deep is journaled, signed, resumed and replayed', async () => {
  const options = { secret: 'a server-side secret of 32 bytes or more' }
  const calls = []
  const tools = {
    echo: async (x) => { calls.push('echo'); return x },
    charge: async () => { calls.push('charge'); return resumption() ? 'charged' : suspend({ deep: true }) },
  }
  const program = `let v = []; for (let i = 1; i < 20000; i++) v = [v]
let depth = 0; for (let a = await tools.echo(v); a.length; a = a[0]) depth++
const charged = await tools.charge({})
return [depth, charged]`
  const first = await runtime.runDurable({ program, bindings: [{ global: 'tools', functions: tools }] }, options)
  assert.equal(first.status, 'suspended')
  assert.deepStrictEqual(calls, ['echo', 'charge'])
  const done = await runtime.resume({ program, bindings: [{ global: 'tools', functions: tools }] }, first.journal, { [first.pending[0].id]: true }, options)
  assert.deepStrictEqual(done.result, { logs: [], value: [19999, 'charged'] })
  assert.deepStrictEqual(calls, ['echo', 'charge', 'charge'])
  const again = await runtime.replay({ program, bindings: [{ global: 'tools', functions: tools }] }, done.journal, options)
  assert.deepStrictEqual(again.result, done.result)
  assert.equal(again.journal.signature, done.journal.signature)
})

test('secrets shorter than 32 bytes and unreadable resolutions are refused with the package prefix', async () => {
  const bindings = [{ global: 'tools', functions: { approve: async () => resumption()?.resolution ?? suspend(null) } }]
  const program = 'return await tools.approve({})'
  const short = 'x'.repeat(31)
  for (const secret of [short, new TextEncoder().encode(short), 'é'.repeat(15)]) {
    await assert.rejects(runtime.runDurable({ program, bindings }, { secret }),
      { message: 'dsh-code-runtime-v8: options.secret must be a string or bytes of at least 32 bytes' })
  }
  // 16 characters of two bytes each are 32 bytes of secret.
  const options = { secret: 'é'.repeat(16) }
  const { journal, pending } = await runtime.runDurable({ program, bindings }, options)
  const throwing = { get [pending[0].id]() { throw new Error('no store') } }
  await assert.rejects(runtime.resume({ program, bindings }, journal, throwing, options),
    { message: 'dsh-code-runtime-v8: resolutions could not be read: no store' })
  const trapped = new Proxy({}, { ownKeys() { throw new TypeError('trap') } })
  await assert.rejects(runtime.resume({ program, bindings }, journal, trapped, options),
    { message: 'dsh-code-runtime-v8: resolutions could not be read: trap' })
  const revoked = Proxy.revocable({}, {})
  revoked.revoke()
  await assert.rejects(runtime.resume({ program, bindings }, journal, revoked.proxy, options),
    { message: 'dsh-code-runtime-v8: resolutions could not be read: Cannot perform \'IsArray\' on a proxy that has been revoked' })
  const done = await runtime.resume({ program, bindings }, journal, { [pending[0].id]: 'yes' }, options)
  assert.deepStrictEqual(done.result, { logs: [], value: 'yes' })
})

test('past 1024 calls in flight, a durable run records what it sent, and resumes and replays to the same result', async () => {
  const options = { secret: 'a server-side secret of 32 bytes or more' }
  const calls = []
  const functions = {
    get: ({ i }) => new Promise((resolve) => setTimeout(() => resolve(i), Math.random() * 3)),
    approve: async () => { calls.push('approve'); return resumption()?.resolution ?? suspend({ asked: true }) },
  }
  const bindings = [{ global: 'tools', functions }]
  const program = `const all = await Promise.all(Array.from({ length: 2500 }, (_, i) => tools.get({ i })))
const approved = await tools.approve({})
// Calls still waiting for room when the program returns are never made, live or replayed.
for (let i = 0; i < 1500; i++) tools.get({ i: -1 })
return [all.reduce((sum, x) => sum + x, 0), approved]`
  const first = await runtime.runDurable({ program, bindings }, options)
  assert.equal(first.status, 'suspended')
  assert.equal(first.journal.events.filter((event) => event.type === 'call').length, 2501)
  const done = await runtime.resume({ program, bindings }, first.journal, { [first.pending[0].id]: 'yes' }, options)
  assert.deepStrictEqual(done.result, { logs: [], value: [3123750, 'yes'] })
  assert.deepStrictEqual(calls, ['approve', 'approve'])
  const again = await runtime.replay({ program, bindings }, done.journal, options)
  assert.deepStrictEqual(again.result, done.result)
  assert.deepStrictEqual(calls, ['approve', 'approve'])
})

test('a call refused for its arguments while calls wait for room leaves the events before it in the journal', async () => {
  // A quarter of a 64 MB heap cap, 16 MiB, bounds the arguments in flight: 17 MiB alone are refused.
  const small = await setup({ maxOldGenerationSizeMb: 64, computeMs: 10_000 })
  const functions = { get: ({ i }) => new Promise((resolve) => setTimeout(() => resolve(i), 2)), big: () => 'never called' }
  const bindings = [{ global: 'tools', functions }]
  const program = `const all = Promise.all(Array.from({ length: 1100 }, (_, i) => tools.get({ i })))
let refused
try { await tools.big({ s: 'x'.repeat(17 << 20) }) } catch (e) { refused = [e.name, e.message.slice(0, 40)] }
return [(await all).length, refused]`
  const first = await small.runtime.runDurable({ program, bindings }, {})
  assert.deepStrictEqual(first.result, { logs: [], value: [1100, ['Error', "a binding call's arguments (17825800 byt"]] })
  assert.equal(first.journal.events.filter((event) => event.type === 'call').length, 1101)
  const again = await small.runtime.replay({ program, bindings }, first.journal, {})
  assert.deepStrictEqual(again.result, first.result)
  await small.dispose()
})

test('a journal past maxBytes is refused while it is read, with no copy of it', async () => {
  // In a process of its own, so that its peak resident memory is this refusal's.
  const script = `
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime from 'dsh-code-runtime-v8'
const ctx = new Context()
await ctx.plugin(V8CodeRuntime, {})
const bindings = [{ global: 'tools', functions: { echo: async (x) => x } }]
const request = { program: 'return await tools.echo(1)', bindings }
const options = { secret: 'a server-side secret of 32 bytes or more' }
const { journal } = await ctx.codeRuntime.runDurable(request, options)
const huge = { ...journal, events: [{ t: 0, type: 'answer', id: 1, value: 'x'.repeat(50 << 20) }] }
const many = { ...journal, events: Array.from({ length: 5000 }, (_, i) => ({ t: 0, type: 'answer', id: i + 1, value: 'y'.repeat(10 << 10) })) }
const before = process.memoryUsage().rss
const messages = []
for (const given of [huge, many]) {
  await ctx.codeRuntime.replay(request, given, options).catch((error) => messages.push(error.message))
}
const peak = process.resourceUsage().maxRSS * 1024
console.log(JSON.stringify({ messages, aboveMiB: Math.round((peak - before) / (1 << 20)) }))
await ctx.registry.delete(V8CodeRuntime)
`
  const { execFileSync } = await import('node:child_process')
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('..', import.meta.url), encoding: 'utf8' })
  const { messages, aboveMiB } = JSON.parse(out.trim().split('\n').at(-1))
  assert.deepStrictEqual(messages, [
    'dsh-code-runtime-v8: journal refused: its events pass 16777216 bytes',
    'dsh-code-runtime-v8: journal refused: its events pass 16777216 bytes',
  ])
  // The journals hold 50 MiB each; refusing one may cost at most twice that (what is read before the
  // cap, 16 MiB, and the garbage of reading it).
  assert.ok(aboveMiB <= 100, `the refusals peaked ${aboveMiB} MiB above the journals`)
})
