// `isolation: 'process'`: every run in a sandboxed helper process. The seam's suite and the crash
// corpus pass in it; the sandbox holds as /proc shows it from outside (crates/os/tests/sandbox.rs
// proves it from inside); a helper's death costs its run alone, and the host's death, or the
// runtime's disposal, leaves no helper behind.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync, readdirSync, readlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { setup, sleep, tools, until } from './helpers.mjs'
import { alive, helperPids, startHost } from './fixtures/helper-processes.mjs'
import { HelperPool, HelperRun } from '../lib/helpers.js'

const native = createRequire(import.meta.url)('../lib/native.cjs')

/** The helpers this process has while `runtime` runs `program` awaiting `tools.wait`. */
async function helpersDuring(runtime) {
  let release
  const bindings = tools({ wait: () => new Promise((resolve) => { release = resolve }) })
  const settled = runtime.run({ program: 'return await tools.wait({})', bindings })
  await until(() => release !== undefined, 10_000)
  return { pids: helperPids(process.pid), settled, release }
}

/** Runs a test file of this suite in a child `node --test` with every run in a helper process. */
async function inHelpers(file) {
  const suite = fileURLToPath(new URL(file, import.meta.url))
  const { code, stdout } = await new Promise((resolve) => {
    // Without this runner's context, the child reports in TAP, not to this runner.
    const { NODE_TEST_CONTEXT, ...env } = process.env
    execFile(process.execPath, ['--test', '--test-reporter=tap', suite], { env: { ...env, DSH_TEST_ISOLATION: 'process' }, maxBuffer: 16 << 20 },
      (error, stdout) => resolve({ code: error?.code ?? 0, stdout }))
  })
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout)?.[1])
  return { code, pass: count('pass'), fail: count('fail') }
}

test("the reference backend's own suite passes with every run in a helper process", async () => {
  assert.deepStrictEqual(await inHelpers('./70.reference-spec.test.mjs'), { code: 0, pass: 46, fail: 0 })
})

test('the crash corpus passes with every run in a helper process', async () => {
  assert.deepStrictEqual(await inHelpers('./55.crash-corpus.test.mjs'), { code: 0, pass: 120, fail: 0 })
})

test('runtime.isolation says where runs execute', async () => {
  const { runtime, dispose } = await setup({ isolation: 'process' })
  assert.equal(runtime.isolation, 'process')
  await dispose()
  const inProcess = await setup({})
  assert.equal(inProcess.runtime.isolation, 'v8-isolate')
  await inProcess.dispose()
})

test('disposal ends every helper of the runtime: the prepared ones exit as their channel closes', async () => {
  const others = new Set(helperPids(process.pid))
  const { runtime, dispose } = await setup({ isolation: 'process', isolatePool: 3 })
  assert.deepStrictEqual(await runtime.run({ program: 'return 1', bindings: [] }), { logs: [], value: 1 })
  await sleep(300)
  const own = helperPids(process.pid).filter((pid) => !others.has(pid))
  assert.equal(own.length, 3)
  await dispose()
  assert.ok(await until(() => own.every((pid) => !alive(pid)), 1000), `alive a second after disposal: ${own.filter(alive)}`)
})

test('a helper is confined before it runs anything: no capabilities, no new privileges, seccomp, no environment, only pipes', async () => {
  const { runtime, dispose } = await setup({ isolation: 'process', isolatePool: 1 })
  const { pids, settled, release } = await helpersDuring(runtime)
  assert.ok(pids.length >= 1, 'a helper serves the run')
  for (const pid of pids) {
    const status = Object.fromEntries(readFileSync(`/proc/${pid}/status`, 'utf8').trim().split('\n')
      .map((line) => line.split(':\t')).map(([key, value]) => [key, value.trim()]))
    assert.deepStrictEqual([status.NoNewPrivs, status.Seccomp], ['1', '2'])
    // None, even for a host run as root.
    assert.deepStrictEqual([status.CapEff, status.CapPrm], ['0000000000000000', '0000000000000000'])
    assert.equal(readFileSync(`/proc/${pid}/environ`, 'utf8'), '')
    const descriptors = readdirSync(`/proc/${pid}/fd`).map((fd) => [Number(fd), readlinkSync(`/proc/${pid}/fd/${fd}`)])
    // Its channel (0, 1, 2) and what the engine made for itself after start: no file, no directory.
    assert.deepStrictEqual(descriptors.filter(([fd]) => fd <= 2).map(([, target]) => target.startsWith('pipe:')), [true, true, true])
    const opened = descriptors.map(([, target]) => target).filter((target) => !/^(pipe|socket|anon_inode):/.test(target))
    assert.deepStrictEqual(opened, [])
  }
  release(1)
  assert.deepStrictEqual(await settled, { logs: [], value: 1 })
  await dispose()
})

test('a helper killed with SIGKILL while its run awaits a binding ends that run as worker-exit within a second, and the next run is served', async () => {
  const { runtime, dispose } = await setup({ isolation: 'process', isolatePool: 1 })
  const { pids, settled } = await helpersDuring(runtime)
  const serving = pids.filter((pid) => readFileSync(`/proc/${pid}/status`, 'utf8').includes('Threads'))
  // The one whose run awaits: the others (prepared ahead) are killed too, which costs nothing.
  const killedAt = performance.now()
  for (const pid of serving) process.kill(pid, 'SIGKILL')
  const result = await settled
  assert.ok(performance.now() - killedAt < 1000, `settled ${Math.round(performance.now() - killedAt)} ms after the kill`)
  assert.deepStrictEqual(result, { logs: [], error: { kind: 'worker-exit', message: 'the helper process was killed by SIGKILL' } })
  assert.deepStrictEqual(await runtime.run({ program: 'console.log("next"); return 2', bindings: [] }), { logs: ['next'], value: 2 })
  await dispose()
})

test('a run given a helper that died while idle, before the host saw it end, is served by another', async () => {
  // `running` answers as it does when the kernel has not yet ended a helper sent SIGKILL.
  const launcher = { spawn: native.spawnHelper, kill: native.killHelper, running: () => true }
  const others = new Set(helperPids(process.pid))
  const own = () => helperPids(process.pid).filter((pid) => !others.has(pid))
  const pool = new HelperPool(native.helperPath(), { prepared: 1, heapMb: 64, runsPerHelper: 1 }, launcher)
  const settleWithout = (kind, message) => native.settleWithoutRun(1000, kind, message)
  const request = (value) => JSON.stringify({ program: `console.log('ran'); return ${value}`, params: [], namespacesJson: '[]',
    computeMs: 1000, maxWallMs: 10_000, maxOutputBytes: 1000, maxOldGenerationSizeMb: 64 })
  const first = await new HelperRun(settleWithout, 10_000).start(request(1), () => {}, pool)
  assert.deepStrictEqual([first.logs, first.valueJson], [['ran'], '1'])
  // The replacement the first run's end started, once it is confined and warm.
  await sleep(500)
  const [idle, ...more] = own()
  assert.deepStrictEqual(more, [])
  process.kill(idle, 'SIGKILL')
  const second = await new HelperRun(settleWithout, 10_000).start(request(2), () => {}, pool)
  assert.deepStrictEqual([second.logs, second.valueJson, second.kind], [['ran'], '2', undefined])
  assert.equal(alive(idle), false)
  // The pool's pipes do not hold the event loop: the wait for its helpers' ends does.
  pool.close()
  assert.ok(await until(() => own().length === 0, 2000), `alive after the pool closed: ${own()}`)
})

test("the host's death leaves no helper behind: each ends within a second", async () => {
  const { host, printed: pids } = await startHost('./host-with-helpers.mjs')
  assert.ok(pids.length >= 3, `${pids.length} helpers for three runs`)
  host.kill('SIGKILL')
  assert.ok(await until(() => pids.every((pid) => !alive(pid)), 1000), `alive a second after the host: ${pids.filter(alive)}`)
})

test('what a run leaves running when it settles ends with its helper, within 250 ms', async () => {
  const others = new Set(helperPids(process.pid))
  const { runtime, dispose } = await setup({ isolation: 'process', isolatePool: 1, computeMs: 100 })
  // Once a first run is over and its replacement is warm, one helper is prepared: the next run's.
  await runtime.run({ program: 'return 0', bindings: [] })
  await sleep(500)
  const prepared = helperPids(process.pid).filter((pid) => !others.has(pid))
  assert.equal(prepared.length, 1)
  // A key listing that no termination reaches (in-process, its thread is demoted and held).
  const result = await runtime.run({ program: "return Object.assign({}, 'a,'.repeat(2 ** 20))", bindings: [] })
  assert.deepStrictEqual(result.error, { kind: 'timeout', message: 'compute budget exhausted (100ms busy)' })
  assert.ok(await until(() => !alive(prepared[0]), 250), 'the helper that ran it is still alive')
  await dispose()
})

test('a heap flood, a stack overflow and a deep graph end their run as in-process mode does, and the host serves the next', async () => {
  const programs = [
    'const a = []; for (;;) a.push({ x: a.length })',
    'const f = () => f(); f()',
    'let v = []; for (let i = 0; i < 1e6; i++) v = [v]; return v',
  ]
  const results = {}
  for (const isolation of ['v8-isolate', 'process']) {
    const { runtime, dispose } = await setup({ isolation, maxOldGenerationSizeMb: 64 })
    results[isolation] = []
    for (const program of programs) results[isolation].push(await runtime.run({ program, bindings: [] }))
    results[isolation].push(await runtime.run({ program: 'return 40 + 2', bindings: [] }))
    await dispose()
  }
  assert.deepStrictEqual(results.process, results['v8-isolate'])
  assert.deepStrictEqual(results.process.map((result) => result.error?.kind ?? result.value), ['worker-exit', 'exception', 'worker-exit', 42])
})

test('runsPerHelper: helpers serve that many runs each, so fewer of them serve the same runs', async () => {
  const others = new Set(helperPids(process.pid))
  /** Every helper seen while six runs, one after another, await a binding. */
  const seen = async (runsPerHelper) => {
    const { runtime, dispose } = await setup({ isolation: 'process', isolatePool: 1, runsPerHelper })
    const pids = new Set()
    for (let i = 0; i < 6; i++) {
      const during = await helpersDuring(runtime)
      for (const pid of during.pids) if (!others.has(pid)) pids.add(pid)
      during.release(i)
      assert.deepStrictEqual(await during.settled, { logs: [], value: i })
    }
    await dispose()
    for (const pid of pids) others.add(pid)
    return pids.size
  }
  const single = await seen(1)
  const paired = await seen(2)
  // One helper per run (six) and one prepared beside the last; with two runs each, at least three.
  assert.ok(single >= 7, `${single} helpers for six runs, one each`)
  assert.ok(paired >= 3 && paired < single, `${paired} helpers for six runs, two each (${single} for one each)`)
})

test('runs back to back on reused helpers hold the event loop until each settles: a script ends only when done', () => {
  // A run that waits for a helper coming back from its last run must keep Node alive meanwhile.
  const script = `
    import { Context } from '@deepseek-ai/cordis'
    import V8CodeRuntime from 'dsh-code-runtime-v8'
    const ctx = new Context()
    await ctx.plugin(V8CodeRuntime, { isolation: 'process', runsPerHelper: 100 })
    const runtime = ctx.get('codeRuntime')
    let sum = 0
    for (let i = 0; i < 30; i++) sum += (await runtime.run({ program: 'return ' + i, bindings: [] })).value
    console.log(sum)
  `
  const done = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8', timeout: 60_000 })
  assert.deepStrictEqual([done.status, done.stdout.trim()], [0, '435'])
})

test('durable runs suspend, resume and replay in helper processes as in-process', async () => {
  const { suspend, resumption } = await import('dsh-code-runtime-v8')
  const bindings = tools({ approve: async () => resumption() ? `approved: ${resumption().resolution}` : suspend({ ask: 'pay?' }) })
  const program = 'const answer = await tools.approve({}); console.log(answer); return answer'
  const outcomes = {}
  for (const isolation of ['v8-isolate', 'process']) {
    const { runtime, dispose } = await setup({ isolation })
    const suspended = await runtime.runDurable({ program, bindings })
    const [pending] = suspended.pending
    const resumed = await runtime.resume({ program, bindings }, suspended.journal, { [pending.id]: 'yes' })
    const replayed = await runtime.replay({ program, bindings }, resumed.journal)
    outcomes[isolation] = [suspended.status, resumed.status, resumed.result, replayed.result]
    await dispose()
  }
  assert.deepStrictEqual(outcomes.process, outcomes['v8-isolate'])
  assert.deepStrictEqual(outcomes.process.slice(0, 2), ['suspended', 'completed'])
})

test('a helper that cannot be found is a clear error when the runtime is made, and one of another protocol refuses to start', async () => {
  const saved = process.env.DSH_CODE_RUNTIME_V8_HELPER
  process.env.DSH_CODE_RUNTIME_V8_HELPER = '/nonexistent/helper'
  try {
    await assert.rejects(setup({ isolation: 'process' }), {
      message: "dsh-code-runtime-v8: isolation 'process' needs the helper process at /nonexistent/helper, which cannot be executed (ENOENT); set DSH_CODE_RUNTIME_V8_HELPER to point at another",
    })
  } finally {
    if (saved === undefined) delete process.env.DSH_CODE_RUNTIME_V8_HELPER
    else process.env.DSH_CODE_RUNTIME_V8_HELPER = saved
  }
  const skewed = spawnSync(native.helperPath(), ['0', String(process.pid), '64', '1'], { env: {}, encoding: 'utf8' })
  assert.deepStrictEqual([skewed.status, skewed.stderr.trim()], [2,
    'dsh-code-runtime-v8-helper: the host speaks protocol 0, this helper 2: the addon and its helper come from different builds'])
})
