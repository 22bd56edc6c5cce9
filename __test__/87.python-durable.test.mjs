// Durable runs of Python programs (engine 'monty'): the V8 runtime's API, journal and semantics
// (75.durable), with the run's clock and randomness the journal's.
import { createHash } from 'node:crypto'
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { Context } from '@deepseek-ai/cordis'
import PythonCodeRuntime, { resumption, suspend } from 'dsh-code-runtime-v8/python'
import { setup as setupV8 } from './helpers.mjs'
import { assertDivergences, resumeInTurns } from './fixtures/durable-cases.mjs'

let runtime
let dispose

before(async () => {
  const ctx = new Context()
  const fiber = await ctx.plugin(PythonCodeRuntime, { engine: 'monty', maxWallMs: 60_000 })
  runtime = ctx.get('codeRuntime')
  dispose = () => fiber.dispose()
})

after(() => dispose())

/** `tools`: each call noted in `calls`; `wrap(name, compute)` may make a binding suspend. */
function hostBindings(calls, wrap = (name, compute) => compute) {
  const functions = {
    echo: (value) => value,
    double: (n) => n * 2,
    fail: (message) => {
      throw new Error(message)
    },
    later: async (value) => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      return value
    },
  }
  const noted = Object.fromEntries(Object.entries(functions).map(([name, compute]) => [name, wrap(name, (args) => {
    calls.push(name)
    return compute(args)
  })]))
  return [{ global: 'tools', errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' }, functions: noted }]
}

/**
 * A program of the kind a model writes, from `index`: calls, gathers, failures, sleeps, randomness,
 * and, unless `timeless`, the clock (which reads when answers came).
 */
function generate(index, timeless = false) {
  let state = index * 7919 + 17
  const next = () => (state = (state * 48271) % 2147483647) / 2147483647
  const n = () => Math.floor(next() * 50)
  const statements = [
    () => `out.append(await tools.echo("a${n()}"))`,
    () => `out.append(await tools.double(${n()}))`,
    () => `out.append(await tools.later({"k": ${n()}}))`,
    () => `out.extend(await asyncio.gather(tools.later(${n()}), tools.double(${n()}), tools.echo("g")))`,
    () => `try:\n    await tools.fail("no ${n()}")\nexcept ToolCallError as e:\n    out.append([str(e), e.toolName])`,
    () => `await asyncio.sleep(0.00${1 + (n() % 9)})${timeless ? '' : '\nout.append(round(time.time() - t0, 3))'}`,
    () => `out.append(random.randint(0, 1000))`,
    () => `print("line", ${n()}, random.random() < 2)`,
  ]
  const body = Array.from({ length: 3 + Math.floor(next() * 6) }, () => statements[Math.floor(next() * statements.length)]())
  return `import asyncio, random, time\nout = []\nt0 = time.time()\n${body.join('\n')}\nreturn out`
}

test('recorded Python runs replay with identical logs, values and failures, and call no binding', async () => {
  for (let index = 0; index < 16; index++) {
    const program = generate(index)
    const calls = []
    const recorded = await runtime.runDurable({ program, bindings: hostBindings(calls) })
    assert.equal(recorded.status, 'completed', program)
    assert.equal(recorded.result.error, undefined, program)
    assert.equal(recorded.journal.engine, 'monty')
    const made = calls.length
    const replayed = await runtime.replay({ program, bindings: hostBindings(calls) }, recorded.journal)
    assert.equal(calls.length, made, 'a replay called a binding')
    assert.equal(JSON.stringify(replayed.result), JSON.stringify(recorded.result), program)
    assert.deepStrictEqual(replayed.journal, recorded.journal)
  }
  const failing = 'x = await tools.echo(1)\nprint("before")\nraise ValueError("late")'
  const recorded = await runtime.runDurable({ program: failing, bindings: hostBindings([]) })
  assert.match(recorded.result.error.message, /ValueError: late$/)
  const replayed = await runtime.replay({ program: failing, bindings: hostBindings([]) }, recorded.journal)
  assert.deepStrictEqual(replayed.result, recorded.result)
})

test('a Python run suspended at every binding call, resumed one, some or all at a time, ends as the run without suspensions', async () => {
  const seed = '0123456789abcdef0123456789abcdef'
  for (let index = 0; index < 9; index++) {
    const program = generate(index, true)
    const reference = await runtime.runDurable({ program, bindings: hostBindings([]) }, { seed })
    assert.equal(reference.status, 'completed')
    const bindings = hostBindings([], (name, compute) => (args) => (resumption() === undefined ? suspend({ name, args }) : compute(args)))
    const strategy = ['one', 'some', 'all'][index % 3]
    const { attempt, attempts } = await resumeInTurns(runtime, program, bindings, seed, strategy)
    assert.equal(JSON.stringify(attempt.result), JSON.stringify(reference.result), `${strategy}: ${program}`)
    assert.ok(attempts > 1)
  }
})

test('gathered approvals are pending at once; a resumed binding sees its resumption, and nothing else does', async () => {
  const seen = []
  let plainRun
  const bindings = [{
    global: 'tools',
    functions: {
      pay: async ({ amount }) => {
        const resumed = resumption()
        seen.push([amount, resumed?.resolution ?? null])
        if (resumed === undefined) return suspend({ amount })
        // A run the approved binding starts meets no approval of its own caller's.
        plainRun = await runtime.run({ program: 'return await tools.probe(0)', bindings: [{ global: 'tools', functions: { probe: () => resumption() ?? 'none' } }] })
        return { paid: amount, by: resumed.resolution, id: resumed.id, payload: resumed.payload }
      },
    },
  }]
  const program = 'import asyncio\nprint("asking")\nr = await asyncio.gather(tools.pay({"amount": 5}), tools.pay({"amount": 7}))\nreturn r'
  const first = await runtime.runDurable({ program, bindings })
  assert.equal(first.status, 'suspended')
  assert.deepStrictEqual(first.logs, ['asking'])
  assert.deepStrictEqual(first.pending.map(({ id, global, name, args, payload }) => [id, global, name, args, payload]), [
    [1, 'tools', 'pay', { amount: 5 }, { amount: 5 }],
    [2, 'tools', 'pay', { amount: 7 }, { amount: 7 }],
  ])
  const second = await runtime.resume({ program, bindings }, first.journal, { 2: 'bob' })
  assert.equal(second.status, 'suspended')
  assert.deepStrictEqual(second.pending.map(({ id }) => id), [1])
  const third = await runtime.resume({ program, bindings }, second.journal, { 1: 'ann' })
  assert.equal(third.status, 'completed')
  assert.deepStrictEqual(third.result, {
    logs: ['asking'],
    value: [{ paid: 5, by: 'ann', id: 1, payload: { amount: 5 } }, { paid: 7, by: 'bob', id: 2, payload: { amount: 7 } }],
  })
  assert.deepStrictEqual(plainRun, { logs: [], value: 'none' })
  // Each binding ran once per attempt that met it live, and again only once resolved.
  assert.deepStrictEqual(seen, [[5, null], [7, null], [7, 'bob'], [5, 'ann']])
  assert.equal(third.journal.runId, first.journal.runId)
  await assert.rejects(runtime.resume({ program, bindings }, third.journal, { 1: 'x' }), /^Error: dsh-code-runtime-v8: the journal has no pending calls to resume$/)
  // A suspended journal replays to the same suspension.
  const replayed = await runtime.replay({ program, bindings }, second.journal)
  assert.equal(replayed.status, 'suspended')
  assert.deepStrictEqual(replayed.pending, second.pending)
})

test('the clock is the journal\'s: sleeps end at their due time, live and on replay, and a replay does not wait', async () => {
  const program = [
    'import asyncio, time',
    'from datetime import datetime, timezone',
    't0 = time.time()',
    'await asyncio.sleep(1)',
    'a = time.time() - t0',
    'time.sleep(0.5)',
    'b = time.time() - t0',
    'x = await tools.echo(1)',
    'return [round(a, 6), round(b, 6), round(t0 * 1000), datetime.now(timezone.utc).timestamp() * 1000 >= t0 * 1000]',
  ].join('\n')
  const recorded = await runtime.runDurable({ program, bindings: hostBindings([]) })
  const [a, b, start, later] = recorded.result.value
  assert.deepStrictEqual([a, b, start, later], [1, 1.5, recorded.journal.startTime, true])
  assert.deepStrictEqual(recorded.journal.events.map(({ type, id, t }) => [type, id, t]).slice(0, 2), [['timer', 1, 1000], ['timer', 2, 1500]])
  const started = performance.now()
  const replayed = await runtime.replay({ program, bindings: hostBindings([]) }, recorded.journal)
  // The replay gives the sleeps' ends from the journal: it does not wait their 1.5 s.
  assert.ok(performance.now() - started < 1400, 'the replay waited for its sleeps')
  assert.deepStrictEqual(replayed.result, recorded.result)
})

test('randomness draws from the seed: the same seed gives the same values, os.urandom\'s included', async () => {
  const program = 'import random, os\nreturn [random.random(), random.randint(0, 10**12), list(os.urandom(6)), random.choice("abcdefgh")]'
  const run = async (seed) => (await runtime.runDurable({ program, bindings: [] }, { seed })).result.value
  const first = await run('0123456789abcdef0123456789abcdef')
  assert.deepStrictEqual(await run('0123456789abcdef0123456789abcdef'), first)
  assert.notDeepStrictEqual(await run('fedcba9876543210fedcba9876543210'), first)
  // In a plain run, os.urandom is the kernel's, as CPython's.
  const plain = await runtime.run({ program: 'import os\nb = os.urandom(32)\nreturn [len(b), len(set(b)) > 8]', bindings: [] })
  assert.deepStrictEqual(plain, { logs: [], value: [32, true] })
})

test('a Python replay that meets another behaviour fails naming the event, what it expected and what it found', async () => {
  const program = 'a = await tools.echo(1)\nb = await tools.echo(2)\nreturn [a, b]'
  await assertDivergences(runtime, program, hostBindings)
})

test('a journal is replayed only by the runtime that recorded it; signed journals are checked', async () => {
  const secret = 's'.repeat(32)
  const program = 'return await tools.echo(1)'
  const { journal } = await runtime.runDurable({ program, bindings: hostBindings([]) }, { secret })
  await assert.rejects(runtime.replay({ program, bindings: hostBindings([]) }, journal), /journal refused: it is signed, and no secret was given to check it$/)
  await assert.rejects(runtime.replay({ program, bindings: hostBindings([]) }, { ...journal, events: journal.events.slice(0, 1) }, { secret }), /journal refused: its signature does not match$/)
  const v8 = await setupV8()
  try {
    await assert.rejects(v8.runtime.replay({ program, bindings: hostBindings([]) }, journal, { secret }), /^Error: dsh-code-runtime-v8: journal refused: it records a run of engine "monty"$/)
    const recorded = await v8.runtime.runDurable({ program, bindings: hostBindings([]) })
    await assert.rejects(runtime.replay({ program, bindings: hostBindings([]) }, recorded.journal), /^Error: dsh-code-runtime-v8: journal refused: it records a run of the V8 runtime$/)
  } finally {
    await v8.dispose()
  }
})

test('a Python journal past its caps ends the run with a clear message, calling no further binding', async () => {
  const calls = []
  const program = 'for i in range(10):\n    await tools.echo(i)\nreturn 1'
  const capped = await runtime.runDurable({ program, bindings: hostBindings(calls) }, { maxEvents: 5 })
  assert.deepStrictEqual(capped.result.error, { kind: 'exception', message: 'the durable journal passed its cap of 5 events' })
  // The fifth event is the third call; its answer passes the cap, and no fourth call is made.
  assert.equal(calls.length, 3)
  assert.equal(capped.journal.events.length, 6)
})

test('durable Python runs: caller misuse rejects with a precise message', async () => {
  const cpython = new Context()
  const fiber = await cpython.plugin(PythonCodeRuntime, { engine: 'cpython', containmentOnly: true })
  try {
    await assert.rejects(cpython.get('codeRuntime').runDurable({ program: 'return 1', bindings: [] }),
      /^Error: dsh-code-runtime-v8: durable runs of Python programs need engine 'monty'$/)
  } finally {
    await fiber.dispose()
  }
  const request = { program: 'return await tools.echo(1)', bindings: hostBindings([], () => () => suspend()) }
  const { journal } = await runtime.runDurable(request)
  await assert.rejects(runtime.resume(request, journal, { 9: 1 }), /^Error: dsh-code-runtime-v8: no pending call has id "9"$/)
  await assert.rejects(runtime.resume(request, undefined, {}), /^Error: dsh-code-runtime-v8: a journal is required$/)
  await assert.rejects(runtime.runDurable(request, { seed: 'x' }), /^Error: dsh-code-runtime-v8: options.seed must be 32 lower-case hex digits$/)
})

test('past 1024 calls in flight, a durable Python run records what it sent, and resumes and replays to the same result', async () => {
  const program = 'import asyncio\nr = await asyncio.gather(*[tools.echo(i) for i in range(3000)])\nok = await tools.approve("go")\nreturn [len(r), sum(r), ok]'
  const bindings = [{ global: 'tools', functions: { echo: (n) => n, approve: () => resumption()?.resolution ?? suspend('ask') } }]
  const options = { maxEvents: 20_000 }
  const first = await runtime.runDurable({ program, bindings }, options)
  assert.equal(first.status, 'suspended')
  assert.equal(first.journal.events.length, 6002)
  const done = await runtime.resume({ program, bindings }, first.journal, { 3001: 'yes' }, options)
  assert.deepStrictEqual(done.result, { logs: [], value: [3000, 4498500, 'yes'] })
  const replayed = await runtime.replay({ program, bindings }, done.journal, options)
  assert.deepStrictEqual(replayed.result, done.result)
  // Short frames from an answer that comes later: the host has read past the bound before any
  // answer, and a replay reads them again to reach their answers.
  const short = 'import asyncio\nr = await asyncio.gather(*[tools.later(0) for _ in range(1500)])\nok = await tools.approve("go")\nreturn [len(r), ok]'
  const later = [{ global: 'tools', functions: { later: async (n) => { await new Promise((resolve) => setTimeout(resolve, 1)); return n }, approve: bindings[0].functions.approve } }]
  const waiting = await runtime.runDurable({ program: short, bindings: later }, options)
  assert.equal(waiting.status, 'suspended')
  const resumed = await runtime.resume({ program: short, bindings: later }, waiting.journal, { 1501: 'yes' }, options)
  assert.deepStrictEqual(resumed.result, { logs: [], value: [1500, 'yes'] })
  assert.deepStrictEqual((await runtime.replay({ program: short, bindings: later }, resumed.journal, options)).result, resumed.result)
})

test('a durable Python run reads integers past 2^53 as a plain run does', async () => {
  const request = { program: 'n = await tools.big({})\nreturn [n == 2**60, n % 1000]', bindings: [{ global: 'tools', functions: { big: () => 2 ** 60 } }] }
  const plain = await runtime.run(request)
  assert.deepStrictEqual(plain, { logs: [], value: [true, 976] })
  const recorded = await runtime.runDurable(request)
  assert.deepStrictEqual(recorded.result, plain)
  assert.deepStrictEqual((await runtime.replay(request, recorded.journal)).result, plain)
})

test('a replay whose program sleeps where its journal ends diverges at once, for either sleep', async () => {
  const { journal } = await runtime.runDurable({ program: 'return 1', bindings: [] })
  for (const sleep of ['import time\ntime.sleep(100)', 'import asyncio\nawait asyncio.sleep(100)']) {
    const program = `${sleep}\nreturn 1`
    const edited = { ...journal, programHash: `sha256:${createHash('sha256').update(program).digest('hex')}` }
    const replayed = await runtime.replay({ program, bindings: [] }, edited)
    assert.deepStrictEqual(replayed.result, { logs: [], error: { kind: 'exception', message: 'the run diverged from its journal at event 0: expected the end of the journal, found sleep 1 due' } })
  }
})
