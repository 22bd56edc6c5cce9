// PythonCodeRuntime: each run's program in a process of its own, forked from a zygote
// (processes.js): a CPython that has already imported what runs need (engine 'cpython'), or the
// helper, which runs the program on Monty (engine 'monty', src/helper/monty/). A process serves
// one run, then ends: nothing of one run is there for the next, and the zygote never runs a
// program. Here: the runtime, its runs (frames in, bindings served, logs and budgets, the result
// out) and the sandbox's check.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { availableParallelism, constants } from 'node:os'
import { CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { PREFIX } from '../config.js'
import { checkBindings, describeFailure, invokeBindingWith } from '../bindings.js'
import { checkResolutions } from '../durable.js'
import { HANDOVERS } from '../exits.js'
import { PROTOCOL } from '../helper_wire.js'
import { losslessJsonText, losslessJsonTextInTurns } from '../lossless.js'
import { readFrame } from './channel.js'
import { PythonConfig, checkPythonConfig } from './config.js'
import { MontyDurableAttempt } from './durable.js'
import { BOOTSTRAP, examineInterpreter } from './interpreter.js'
import { ProcessPool } from './processes.js'

const native = createRequire(import.meta.url)('../native.cjs')

/** The Monty the helper is built with (Cargo.toml pins it). */
const MONTY_VERSION = '1.4.0'

/** Binding calls a run may have awaiting answers, and their arguments' bytes, before the host stops
 * reading its process (the TypeScript runtime's bound on calls in flight). */
const MAX_CALLS_IN_FLIGHT = 1024
const MAX_ARGUMENT_BYTES_IN_FLIGHT = 64 << 20

/** The line that ends the logs once they reach `maxLogBytes`. */
export const logTruncationMarker = (maxLogBytes) => `[dsh-code-runtime-v8] log capture truncated at ${maxLogBytes} bytes`

/** A run's logs: an `open` line joined with the next; past the budget, the marker, and no more. */
class LogLedger {
  entries = []
  #left
  #open = false
  #stopped = false

  constructor(maxLogBytes) {
    this.maxLogBytes = maxLogBytes
    this.#left = maxLogBytes
  }

  add({ text, open, truncated }) {
    if (this.#stopped) return
    const cost = truncated ? Infinity : Buffer.byteLength(text, 'utf8')
    if (cost > this.#left) {
      this.#stopped = true
      this.entries.push(logTruncationMarker(this.maxLogBytes))
      return
    }
    this.#left -= cost
    if (this.#open) this.entries[this.entries.length - 1] += text
    else this.entries.push(text)
    this.#open = open
  }
}

/** One run: its process's frames in, the bindings served, the result out. */
class PythonRun {
  #settle
  #timers = []

  /** `durable`: a MontyDurableAttempt, for a durable run. */
  constructor(own, bindings, durable) {
    this.own = own
    this.durable = durable
    this.config = own.config
    this.bindings = bindings
    this.names = bindings.map(({ functions }) => Object.keys(functions))
    this.ledger = new LogLedger(this.config.maxLogBytes)
    this.inFlight = { calls: 0, bytes: 0 }
    this.settled = false
    this.result = new Promise((resolve) => { this.#settle = resolve })
    // From the request: waiting for a process counts, as it does for the caller.
    const { maxWallMs } = this.config
    this.#timers.push(setTimeout(() => this.stop('timeout', `wall-clock ceiling reached (${maxWallMs}ms)`), maxWallMs))
  }

  /** Runs `program` in a process from the pool; `handovers` more if processes end before taking it. */
  async begin(program, handovers = HANDOVERS) {
    let forked
    try {
      forked = await this.own.pool.acquire()
    } catch (error) {
      this.finish({ kind: 'worker-exit', message: error.message })
      return
    }
    if (this.settled) forked.kill('settled')
    else this.#start(forked, program, handovers)
  }

  /** Runs `program` in `forked`, a RunProcess. */
  #start(forked, program, handovers) {
    this.forked = forked
    this.taken = false
    this.handOver = handovers > 0 ? () => this.begin(program, handovers - 1) : undefined
    forked.onFrame = (frame) => this.#receive(frame)
    forked.ended.then((end) => this.#ended(end))
    const { cpuSeconds, maxLogBytes, maxValueBytes } = this.config
    const namespaces = this.bindings.map(({ global, errorClass }, index) =>
      [global, this.names[index], errorClass?.name ?? null, errorClass?.memberNameProperty ?? null])
    forked.send(JSON.stringify({ type: 'run', program, namespaces, cpuSeconds, maxLogBytes, maxValueBytes, durable: this.durable?.frame }))
    this.startedAt = performance.now()
  }

  #receive(frame) {
    if (this.settled) return
    switch (frame.type) {
      case 'log':
        this.ledger.add(frame)
        break
      case 'call':
        this.#call(frame)
        break
      case 'sleep':
        this.durable?.sleep(frame)
        break
      case 'wait':
        this.durable?.wait(frame)
        break
      case 'done':
        // A durable run ends only at its journal's end.
        if (this.durable === undefined || this.durable.ends()) this.#done(frame)
        break
      case 'taken':
        this.taken = true
        // Only the process that took the run is sent its events.
        this.durable?.begin(this)
        break
      case 'ready':
        break
    }
  }

  #done({ value, error, lineLength }) {
    if (error !== undefined) this.finish({ kind: error.kind, message: error.message })
    else this.finish(...this.#metered(value, lineLength))
    this.forked.kill('settled')
  }

  /** The process meters its value; a forged one is metered here, in the bytes of its compact JSON
   * (escaped on the wire, a value never takes fewer characters than it has bytes). */
  #metered(value, lineLength) {
    const { maxValueBytes } = this.config
    if (value === undefined || lineLength <= maxValueBytes) return [undefined, value]
    const text = losslessJsonText(value)
    if (text === undefined) return [{ kind: 'invalid-output', message: 'the return value is not lossless JSON' }]
    if (Buffer.byteLength(text, 'utf8') > maxValueBytes) {
      return [{ kind: 'output-limit', message: `the return value is larger than maxValueBytes (${maxValueBytes} bytes)` }]
    }
    return [undefined, value]
  }

  /** Sends `line` to the run's process, unless the run is settled. */
  send(line) {
    if (!this.settled) this.forked.send(line)
  }

  /**
   * Counts a call of `lineLength` among the calls in flight, which are bounded: past either bound
   * the host reads nothing more from the process until answers free room, and the program's next
   * call waits. Returns what frees its room, once.
   */
  #admit(lineLength) {
    this.inFlight.calls++
    this.inFlight.bytes += lineLength
    this.forked.flow(this.#hasRoom())
    let released = false
    return () => {
      if (released) return
      released = true
      this.inFlight.calls--
      this.inFlight.bytes -= lineLength
      if (!this.settled) this.forked.flow(this.#hasRoom())
    }
  }

  #call(frame) {
    const release = this.#admit(frame.lineLength)
    if (this.durable !== undefined) return this.durable.call(frame, release)
    const { id, global, name, args } = frame
    let answered = false
    const reply = (text) => {
      if (answered) return
      answered = true
      this.send(text)
      release()
    }
    const fail = (message) => reply(`{"type":"reply","id":${id},"ok":false,"message":${JSON.stringify(message)}}`)
    const answer = (outcome) => {
      if ('failure' in outcome) return fail(outcome.failure)
      losslessJsonTextInTurns(outcome.value, () => this.settled, (json) => {
        if (json === undefined) fail('binding resolution must be lossless JSON')
        else reply(`{"type":"reply","id":${id},"ok":true,"value":${json}}`)
      }, (error) => fail(describeFailure(error)), { exactIntegers: true })
    }
    const outcome = this.invoke(global, name, () => args)
    if ('failure' in outcome) answer(outcome)
    else outcome.then(answer)
  }

  /**
   * Calls binding `global.name` with `argument()`: `{ failure }` when it cannot start, or a promise
   * of `{ value }` or `{ failure }` as it settles. `resumption` is a durable run's resumed call's.
   */
  invoke(global, name, argument, resumption) {
    const namespaceIndex = this.bindings.findIndex((namespace) => namespace.global === global)
    const nameIndex = namespaceIndex === -1 ? -1 : this.names[namespaceIndex].indexOf(name)
    if (nameIndex === -1) return { failure: `unknown binding ${JSON.stringify(`${global}.${name}`)}` }
    return invokeBindingWith(this.bindings, this.names, namespaceIndex, nameIndex, argument, resumption)
  }

  #hasRoom() {
    return this.inFlight.calls < MAX_CALLS_IN_FLIGHT && this.inFlight.bytes < MAX_ARGUMENT_BYTES_IN_FLIGHT
  }

  /** Ends the run as `kind`: its process is killed, and the run settles once it is gone, or
   * `graceMs` after. */
  stop(kind, message) {
    if (this.settled || this.stopping) return
    this.stopping = { kind, message }
    // What comes after a stop is no part of the run: a durable run records none of it.
    this.durable?.end()
    // Not started yet: nothing to wait for.
    if (this.forked === undefined) return this.finish(this.stopping)
    this.forked.kill(message)
    this.#timers.push(setTimeout(() => this.finish(this.stopping), this.config.graceMs))
  }

  #ended({ signal, killedFor, cause }) {
    if (this.settled) return
    if (this.stopping) return this.finish(this.stopping)
    // It ended before it took the run (it died while prepared, and the host had not seen it yet):
    // it ran none of it, and another serves it.
    if (!this.taken && this.handOver !== undefined) {
      this.own.pool.release()
      this.forked = undefined
      return this.handOver()
    }
    // The CPU budget: SIGXCPU at the soft limit, SIGKILL at the hard one, a second later (a
    // SIGKILL sooner than the budget could be spent on every core came from elsewhere).
    const spentMs = performance.now() - this.startedAt
    const budgetSpent = signal === constants.signals.SIGXCPU ||
      (signal === constants.signals.SIGKILL && spentMs * availableParallelism() >= this.config.cpuSeconds * 1000)
    if (killedFor === undefined && budgetSpent) {
      return this.finish({ kind: 'timeout', message: `CPU budget exhausted (${this.config.cpuSeconds}s)` })
    }
    this.finish({ kind: 'worker-exit', message: killedFor ?? cause })
  }

  finish(error, value) {
    if (this.settled) return
    this.settled = true
    for (const timer of this.#timers) clearTimeout(timer)
    this.durable?.end()
    // Stopped, and not gone within graceMs: its socket is let go; the zygote still reaps it.
    if (this.stopping && this.forked !== undefined && !this.forked.gone) this.forked.abandon()
    const result = { logs: this.ledger.entries }
    if (error !== undefined) result.error = error
    else if (value !== undefined) result.value = value
    this.#settle(result)
  }
}

// cordis hands out the service through a Proxy, which private class fields do not pass.
const state = Symbol('dsh-code-runtime-v8 python state')

export class PythonCodeRuntime extends CodeRuntime {
  static Config = PythonConfig

  language = 'python'
  isolation = 'process'

  constructor(ctx, config) {
    super(ctx)
    const checked = checkPythonConfig(PythonConfig(config))
    if (process.platform === 'win32') {
      throw new Error(`${PREFIX} engine '${checked.engine}' needs a Unix kernel: its runs are processes a zygote forks`)
    }
    const addressSpace = String(checked.addressSpaceMb * 2 ** 20)
    let args
    if (checked.engine === 'monty') {
      // The helper itself is the zygote, and runs each program on the Monty it is built with.
      args = ['monty', String(PROTOCOL), String(process.pid), addressSpace]
      this.interpreter = { engine: 'monty', executable: native.helperPath(), version: MONTY_VERSION }
    } else {
      const interpreter = examineInterpreter(checked.pythonBin, checked.readablePaths)
      args = ['interpreter', String(PROTOCOL), String(process.pid), addressSpace,
        JSON.stringify(interpreter.readable), interpreter.executable, '-I', '-c', BOOTSTRAP]
      this.interpreter = { engine: 'cpython', executable: interpreter.executable, version: interpreter.version }
    }
    /** The layers of the sandbox each run's process is in, and why any is missing. */
    this.sandbox = probeSandbox(args, checked.containmentOnly)
    const own = { config: checked, pool: new ProcessPool(args, checked.prepared), live: new Set(), disposed: false }
    Object.defineProperty(this, state, { value: own })
    ctx.effect(() => () => dispose(own), 'python code-runtime teardown')
  }

  /** @param {import('@deepseek-ai/dsh-code-runtime').CodeRunRequest} request */
  async run(request) {
    return execute(this[state], request)
  }

  /**
   * Outside the seam, engine 'monty' only: a run that records a journal, and suspends where a
   * binding returns `suspend(payload)` (docs/durable-runs.md).
   */
  async runDurable(request, options) {
    return durable(this[state], request, { options })
  }

  /** Replays a suspended run's journal in a fresh process, then goes on with `resolutions`. */
  async resume(request, journal, resolutions, options) {
    return durable(this[state], request, { options, journal, resolutions, resuming: true })
  }

  /** Re-runs a recorded run from its journal alone, calling no binding. */
  async replay(request, journal, options) {
    return durable(this[state], request, { options, journal, replayOnly: true })
  }
}

/** Runs `request` to its result; a durable run's `attempt` journals or replays what it is given. */
async function execute(own, { program, bindings, signal }, attempt) {
  if (own.disposed) throw new Error(`${PREFIX} run() after disposal`)
  checkBindings(bindings)
  if (typeof program !== 'string') throw new Error(`${PREFIX} program must be a string, got ${program === null ? 'null' : typeof program}`)
  if (signal?.aborted) return { logs: [], error: { kind: 'abort', message: String(signal.reason) } }
  const run = new PythonRun(own, bindings, attempt)
  own.live.add(run)
  const onAbort = () => run.stop('abort', String(signal.reason))
  signal?.addEventListener('abort', onAbort, { once: true })
  try {
    run.begin(program)
    return await run.result
  } finally {
    signal?.removeEventListener('abort', onAbort)
    own.live.delete(run)
    own.pool.release()
  }
}

/** A durable attempt: completed, or suspended with the calls that wait. */
async function durable(own, request, { options, journal, resolutions, resuming = false, replayOnly = false }) {
  if (own.disposed) throw new Error(`${PREFIX} run() after disposal`)
  if (own.config.engine !== 'monty') throw new Error(`${PREFIX} durable runs of Python programs need engine 'monty'`)
  checkBindings(request?.bindings)
  if ((resuming || replayOnly) && journal === undefined) throw new Error(`${PREFIX} a journal is required`)
  const attempt = new MontyDurableAttempt({ request, options, journal, replayOnly })
  if (resuming) attempt.resolutions = checkResolutions(attempt.base, resolutions)
  const started = performance.now()
  const result = await execute(own, request, attempt)
  const wallMs = performance.now() - started
  return attempt.outcome(result, wallMs, { wallMs, replayMs: attempt.replayMs })
}

/**
 * Starts one confined interpreter and reads the layers it reports; throws, naming the missing
 * layers, unless `containmentOnly` accepts them.
 */
function probeSandbox(args, containmentOnly) {
  let output
  try {
    output = execFileSync(native.helperPath(), [...args, 'probe'], { env: {}, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] })
  } catch (error) {
    const said = String(error.stderr ?? '').trim().split('\n').at(-1)?.replace(/^dsh-code-runtime-v8-helper: /, '') || error.message
    throw new Error(`${PREFIX} the Python sandbox could not be set up: ${said}`)
  }
  const ready = readFrame(output.split('\n')[0])
  const missing = ready.sandbox.filter(([, why]) => why !== null)
  if (missing.length > 0 && !containmentOnly) {
    const layers = missing.map(([name, why]) => `${name} (${why})`).join(', ')
    throw new Error(`${PREFIX} Python runs would lack these layers of the sandbox: ${layers}; set containmentOnly: true to run them with only the process and its budgets between the program and the host`)
  }
  return ready.sandbox
}

async function dispose(own) {
  own.disposed = true
  for (const run of own.live) run.stop('abort', 'runtime disposed')
  await own.pool.close()
  await Promise.all([...own.live].map((run) => run.result))
}

export default PythonCodeRuntime
