// dsh-code-runtime-v8: a `ctx.codeRuntime` backend that runs each program in its own V8 isolate.
import { createRequire } from 'node:module'
import { CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { Config, PREFIX, checkConfig } from './lib/config.js'
import { checkBindings, planBindings } from './lib/bindings.js'
import { DurableAttempt, checkResolutions, resumption, suspend } from './lib/durable.js'
import { HelperPool, HelperRun } from './lib/helpers.js'

export { resumption, suspend }
export { PythonCodeRuntime, logTruncationMarker } from './lib/python/runtime.js'

const native = createRequire(import.meta.url)('./lib/native.cjs')

/** Shapes the native result as the seam's `CodeRunResult`: no `value` key unless there is one. */
function present(settled) {
  const result = { logs: settled.logs }
  if (settled.valueJson !== undefined) result.value = JSON.parse(settled.valueJson)
  if (settled.kind !== undefined) result.error = { kind: settled.kind, message: settled.message }
  return result
}

/** The longest disposal waits for the pool's threads to exit. */
const DISPOSAL_WAIT_MS = 750

/** How long an isolate the pool grew by may sit unused before it goes. */
const POOL_IDLE_MS = 30_000

// cordis hands out the service through a Proxy, which private class fields do not pass.
const state = Symbol('dsh-code-runtime-v8 state')

export class V8CodeRuntime extends CodeRuntime {
  static Config = Config

  language = 'typescript'
  isolation = 'v8-isolate'

  constructor(ctx, config) {
    super(ctx)
    const checked = checkConfig(Config(config))
    this.isolation = checked.isolation
    const own = {
      config: checked,
      ...(checked.isolation === 'process' ? helpers(checked) : isolates(checked)),
      disposed: false,
      /** Runs in flight, each with the promise of its result. */
      live: new Map(),
    }
    Object.defineProperty(this, state, { value: own })
    ctx.effect(() => () => dispose(own), 'v8 code-runtime teardown')
  }

  /** @param {import('@deepseek-ai/dsh-code-runtime').CodeRunRequest} request */
  async run(request) {
    return present(await settle(this[state], request))
  }

  /**
   * Outside the seam: the same run, with what it cost.
   * @param {import('@deepseek-ai/dsh-code-runtime').CodeRunRequest} request
   */
  async runWithUsage(request) {
    const settled = await settle(this[state], request)
    return { result: present(settled), usage: settled.usage }
  }

  /**
   * Outside the seam: a run that records a journal, and suspends where a binding returns
   * `suspend(payload)`.
   */
  async runDurable(request, options) {
    return durable(this[state], request, { options })
  }

  /** Replays a suspended run's journal in a fresh isolate, then goes on with `resolutions`. */
  async resume(request, journal, resolutions, options) {
    return durable(this[state], request, { options, journal, resolutions, resuming: true })
  }

  /** Re-runs a recorded run from its journal alone, calling no binding. */
  async replay(request, journal, options) {
    return durable(this[state], request, { options, journal, replayOnly: true })
  }
}

/** In-process runs: isolates prepared ahead of demand, and a NativeRun for each run. */
function isolates(config) {
  const pool = new native.NativePool(config.isolatePool, config.isolatePoolMax, config.maxOldGenerationSizeMb, POOL_IDLE_MS)
  return { pool, newRun: () => new native.NativeRun() }
}

/** Runs in helper processes: helpers started ahead of demand, and a HelperRun for each run. */
function helpers(config) {
  if (typeof native.spawnHelper !== 'function') throw new Error(`${PREFIX} isolation 'process' is not available on ${process.platform}`)
  const pool = new HelperPool(native.helperPath(), {
    prepared: config.isolatePool,
    heapMb: config.maxOldGenerationSizeMb,
    runsPerHelper: config.runsPerHelper,
  }, { spawn: native.spawnHelper, kill: native.killHelper, running: native.helperRunning })
  const settleWithout = (kind, message) => native.settleWithoutRun(config.maxOutputBytes, kind, message)
  return { pool, newRun: () => new HelperRun(settleWithout, config.maxWallMs) }
}

/** A durable attempt: completed, or suspended with the calls that wait. */
async function durable(own, request, { options, journal, resolutions, resuming = false, replayOnly = false }) {
  if (own.disposed) throw new Error(`${PREFIX} run() after disposal`)
  checkBindings(request.bindings)
  if ((resuming || replayOnly) && journal === undefined) throw new Error(`${PREFIX} a journal is required`)
  const attempt = new DurableAttempt({ request, options, journal, replayOnly })
  if (resuming) attempt.resolutions = checkResolutions(attempt.base, resolutions)
  const settled = await settle(own, request, attempt)
  // What the isolate sent just before it ended (process.exit) may still be on its way.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve))
  const usage = settled.usage && { ...settled.usage, replayMs: attempt.replayMs }
  return attempt.outcome(present(settled), replayOnly ? 0 : settled.usage.busyMs, usage)
}

/**
 * Runs one request to its native settled form; rejects only for caller misuse. A durable
 * `attempt` serves the control namespace and plans the isolate's start.
 */
async function settle(own, { program, bindings, signal }, attempt) {
  if (own.disposed) throw new Error(`${PREFIX} run() after disposal`)
  checkBindings(bindings)
  if (typeof program !== 'string') throw new Error(`${PREFIX} program must be a string, got ${program === null ? 'null' : typeof program}`)
  const { config, live } = own
  if (signal?.aborted) return native.settleWithoutRun(config.maxOutputBytes, 'abort', String(signal.reason))
  const run = own.newRun()
  const plan = planBindings(bindings, run, attempt?.control)
  const { params, dispatch } = plan
  const namespacesJson = attempt ? attempt.namespacesJson(plan.described, plan.names) : plan.namespacesJson
  attempt?.attach(run)
  // One text for either mode, read in Rust (engine::job::RunRequest); lone surrogates in the
  // program become U+FFFD, as a napi string would make them.
  const requestJson = JSON.stringify({
    program: program.toWellFormed(),
    params,
    namespacesJson,
    computeMs: config.computeMs,
    maxWallMs: config.maxWallMs,
    maxOutputBytes: config.maxOutputBytes,
    maxOldGenerationSizeMb: config.maxOldGenerationSizeMb,
  })
  const settled = run.start(requestJson, dispatch, own.pool)
  live.set(run, settled)
  const onAbort = () => run.abort(String(signal.reason))
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    return await settled
  } finally {
    signal?.removeEventListener('abort', onAbort)
    live.delete(run)
  }
}

/** Settles every run in flight as `runtime disposed` and waits for their isolates to end. */
async function dispose(own) {
  own.disposed = true
  // Closed first, so that a thread whose run ends below exits instead of preparing another isolate.
  const emptied = own.pool.close()
  const pending = [...own.live]
  for (const [run] of pending) run.dispose()
  await Promise.all(pending.map(([, settled]) => settled))
  // A thread still inside a V8 built-in that ignores termination (demoted to idle scheduling by
  // the watchdog) exits when the built-in returns; disposal does not wait for it.
  let timer
  const bounded = new Promise((resolve) => { timer = setTimeout(resolve, DISPOSAL_WAIT_MS) })
  await Promise.race([emptied, bounded])
  clearTimeout(timer)
}

export default V8CodeRuntime
