// PythonCodeRuntime: each run's program in a CPython process of its own, confined by the kernel
// before the interpreter starts (src/helper/interpreter.rs) and prepared ahead of demand, so that
// a run finds an interpreter that has already imported what it needs. A process serves one run,
// then ends: nothing of one run is there for the next.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { Socket } from 'node:net'
import { availableParallelism, constants } from 'node:os'
import { CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { PREFIX } from '../config.js'
import { checkBindings, describeFailure, startBindingWith } from '../bindings.js'
import { PROTOCOL } from '../helper_wire.js'
import { losslessJsonTextInTurns } from '../lossless.js'
import { LineReader, readFrame } from './channel.js'
import { PythonConfig, checkPythonConfig } from './config.js'
import { BOOTSTRAP, examineInterpreter } from './interpreter.js'

const native = createRequire(import.meta.url)('../native.cjs')

/** How much of an interpreter's stderr is kept: it writes there only before it is ready. */
const STDERR_KEPT = 4096

const SIGNAL_NAMES = Object.fromEntries(Object.entries(constants.signals).map(([name, number]) => [number, name]))

/** The line that ends the logs once they reach `maxLogBytes`. */
export const logTruncationMarker = (maxLogBytes) => `[dsh-code-runtime-v8] log capture truncated at ${maxLogBytes} bytes`

const launcher = () => {
  if (typeof native.spawnHelper !== 'function') throw new Error(`${PREFIX} Python runs are not available on ${process.platform}`)
  return { spawn: native.spawnHelper, kill: native.killHelper, running: native.helperRunning }
}

/** One interpreter process, from its start to its end. */
class Interpreter {
  #reader = new LineReader()
  #stderr = ''
  #exit
  #launcher
  #onReady
  #onEnded

  constructor(launch, args) {
    this.#launcher = launch
    this.gone = false
    /** Set by the run it serves. */
    this.onFrame = () => {}
    this.ready = new Promise((resolve, reject) => { this.#onReady = { resolve, reject } })
    this.ready.catch(() => {})
    /** Resolves with why it ended, once it has and everything it wrote is read. */
    this.ended = new Promise((resolve) => { this.#onEnded = resolve })
    let spawned
    try {
      spawned = launch.spawn(native.helperPath(), args, (code, signal) => { this.#exit = { code, signal } })
    } catch (error) {
      queueMicrotask(() => this.#end({ cause: `the Python process could not be started: ${error.message}` }))
      return
    }
    this.pid = spawned.pid
    this.stdin = new Socket({ fd: spawned.stdin, readable: false, writable: true })
    this.stdout = new Socket({ fd: spawned.stdout, readable: true, writable: false })
    this.stderr = new Socket({ fd: spawned.stderr, readable: true, writable: false })
    this.stdin.on('error', () => {})
    this.stdout.on('data', (chunk) => this.#receive(chunk))
    this.stderr.on('data', (chunk) => { this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_KEPT) })
    this.stdout.on('close', () => this.#whenExited(() => this.#end(this.#exit ?? {})))
    this.hold(false)
  }

  #receive(chunk) {
    if (this.gone) return
    try {
      for (const line of this.#reader.push(chunk)) {
        const frame = readFrame(line)
        if (frame.type === 'ready') this.#onReady.resolve(frame.sandbox)
        else this.onFrame(frame)
        if (this.killedFor !== undefined) return
      }
    } catch (error) {
      this.kill(`the Python process sent ${error.message}`)
    }
  }

  // The status comes from the reaper thread, a moment after the pipes close.
  #whenExited(then, tries = 0) {
    if (this.#exit !== undefined || tries === 100) then()
    else setTimeout(() => this.#whenExited(then, tries + 1), 1)
  }

  #end({ code, signal, cause }) {
    if (this.gone) return
    this.gone = true
    const how = cause ?? (signal !== undefined && signal !== null
      ? `the Python process was killed by ${SIGNAL_NAMES[signal] ?? `signal ${signal}`}`
      : `the Python process exited with code ${code}`)
    const said = this.#stderr.trim().split('\n').at(-1)?.replace(/^dsh-code-runtime-v8-helper: /, '')
    this.#onReady.reject(new Error(said ? `${how}: ${said}` : how))
    this.#onEnded({ signal: signal ?? null, killedFor: this.killedFor, cause: said ? `${how}: ${said}` : how })
  }

  hold(held) {
    for (const pipe of [this.stdin, this.stdout, this.stderr]) {
      if (held) pipe?.ref()
      else pipe?.unref()
    }
  }

  send(frame) {
    if (!this.gone) this.stdin.write(frame + '\n')
  }

  running() {
    return !this.gone && this.pid !== undefined && this.#launcher.running(this.pid)
  }

  /** Ends the process now; `why` is what its run is told, unless it settled already. */
  kill(why) {
    this.killedFor ??= why
    if (this.pid !== undefined) this.#launcher.kill(this.pid)
  }
}

/** Interpreters started ahead of demand. */
class InterpreterPool {
  #idle = []
  #starting = 0
  #all = new Set()

  constructor(args, prepared) {
    this.args = args
    this.prepared = prepared
    this.launcher = launcher()
    this.closed = false
    this.#fill()
  }

  #spawn() {
    const interpreter = new Interpreter(this.launcher, this.args)
    this.#all.add(interpreter)
    interpreter.ended.then(() => this.#all.delete(interpreter))
    return interpreter
  }

  #fill() {
    while (!this.closed && this.#idle.length + this.#starting < this.prepared) {
      this.#starting++
      const interpreter = this.#spawn()
      interpreter.ready.then(() => {
        if (this.closed) interpreter.kill('runtime disposed')
        else this.#idle.push(interpreter)
      }, () => {}).finally(() => { this.#starting-- })
    }
  }

  /** A confined interpreter, ready for one run: a prepared one, else one started now. */
  async acquire() {
    let interpreter
    while ((interpreter = this.#idle.pop()) !== undefined && !interpreter.running());
    interpreter ??= this.#spawn()
    interpreter.hold(true)
    // After this run has started: a starting interpreter takes tens of milliseconds of CPU.
    setImmediate(() => this.#fill())
    await interpreter.ready
    return interpreter
  }

  /** Ends every interpreter; resolves once they are gone. */
  close() {
    this.closed = true
    for (const interpreter of this.#all) interpreter.kill('runtime disposed')
    return Promise.all([...this.#all].map((interpreter) => interpreter.ended))
  }
}

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

/** One run: its interpreter's frames in, the bindings served, the result out. */
class PythonRun {
  #settle
  #timers = []

  constructor(own, bindings) {
    this.own = own
    this.config = own.config
    this.bindings = bindings
    this.names = bindings.map(({ functions }) => Object.keys(functions))
    this.ledger = new LogLedger(this.config.maxLogBytes)
    this.settled = false
    this.result = new Promise((resolve) => { this.#settle = resolve })
  }

  /** Runs `program` on `interpreter`. */
  start(interpreter, program) {
    this.interpreter = interpreter
    interpreter.onFrame = (frame) => this.#receive(frame)
    interpreter.ended.then((end) => this.#ended(end))
    const { cpuSeconds, maxLogBytes, maxValueBytes, maxWallMs } = this.config
    const namespaces = this.bindings.map(({ global, errorClass }, index) =>
      [global, this.names[index], errorClass?.name ?? null, errorClass?.memberNameProperty ?? null])
    interpreter.send(JSON.stringify({ type: 'run', program, namespaces, cpuSeconds, maxLogBytes, maxValueBytes }))
    this.startedAt = performance.now()
    this.#timers.push(setTimeout(() => this.stop('timeout', `wall-clock ceiling reached (${maxWallMs}ms)`), maxWallMs))
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
      case 'done':
        this.#done(frame)
        break
      case 'ready':
        break
    }
  }

  #done({ value, error }) {
    if (error !== undefined) this.finish({ kind: error.kind, message: error.message })
    else this.finish(undefined, value)
    this.interpreter.kill('settled')
  }

  #call({ id, global, name, args }) {
    const reply = (text) => { if (!this.settled) this.interpreter.send(text) }
    const fail = (message) => reply(`{"type":"reply","id":${id},"ok":false,"message":${JSON.stringify(message)}}`)
    const namespaceIndex = this.bindings.findIndex((namespace) => namespace.global === global)
    const nameIndex = namespaceIndex === -1 ? -1 : this.names[namespaceIndex].indexOf(name)
    if (nameIndex === -1) {
      fail(`unknown binding ${JSON.stringify(`${global}.${name}`)}`)
      return
    }
    const started = startBindingWith(this.bindings, this.names, namespaceIndex, nameIndex, () => args)
    if ('failure' in started) {
      fail(started.failure)
      return
    }
    const encode = (resolved) => losslessJsonTextInTurns(resolved, () => this.settled, (json) => {
      if (json === undefined) fail('binding resolution must be lossless JSON')
      else reply(`{"type":"reply","id":${id},"ok":true,"value":${json}}`)
    }, (error) => fail(describeFailure(error)), { exactIntegers: true })
    let settled
    try {
      settled = Promise.resolve(started.returned)
    } catch (error) {
      fail(describeFailure(error))
      return
    }
    settled.then(encode, (error) => fail(describeFailure(error)))
  }

  /** Ends the run as `kind`: its process is killed, and the run settles once it is gone, or
   * `graceMs` after. */
  stop(kind, message) {
    if (this.settled || this.stopping) return
    this.stopping = { kind, message }
    this.interpreter?.kill(message)
    this.#timers.push(setTimeout(() => this.finish(this.stopping), this.config.graceMs))
  }

  #ended({ signal, killedFor, cause }) {
    if (this.settled) return
    if (this.stopping) return this.finish(this.stopping)
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
    if (process.platform === 'win32') {
      throw new Error(`${PREFIX} engine 'cpython' needs a Unix kernel; on Windows, use engine 'monty'`)
    }
    const checked = checkPythonConfig(PythonConfig(config))
    const interpreter = examineInterpreter(checked.pythonBin, checked.readablePaths)
    const args = ['interpreter', String(PROTOCOL), String(process.pid), String(checked.addressSpaceMb * 2 ** 20),
      JSON.stringify(interpreter.readable), interpreter.executable, '-I', '-c', BOOTSTRAP]
    /** The layers of the sandbox each run's process is in, and why any is missing. */
    this.sandbox = probeSandbox(args, checked.containmentOnly)
    this.interpreter = { executable: interpreter.executable, version: interpreter.version }
    const own = { config: checked, pool: new InterpreterPool(args, checked.prepared), live: new Set(), disposed: false }
    Object.defineProperty(this, state, { value: own })
    ctx.effect(() => () => dispose(own), 'python code-runtime teardown')
  }

  /** @param {import('@deepseek-ai/dsh-code-runtime').CodeRunRequest} request */
  async run({ program, bindings, signal }) {
    const own = this[state]
    if (own.disposed) throw new Error(`${PREFIX} run() after disposal`)
    checkBindings(bindings)
    if (typeof program !== 'string') throw new Error(`${PREFIX} program must be a string, got ${program === null ? 'null' : typeof program}`)
    if (signal?.aborted) return { logs: [], error: { kind: 'abort', message: String(signal.reason) } }
    const run = new PythonRun(own, bindings)
    own.live.add(run)
    const onAbort = () => run.stop('abort', String(signal.reason))
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      let interpreter
      try {
        interpreter = await own.pool.acquire()
      } catch (error) {
        run.finish({ kind: 'worker-exit', message: error.message })
      }
      if (interpreter !== undefined) {
        if (run.settled) interpreter.kill('settled')
        else run.start(interpreter, program)
      }
      return await run.result
    } finally {
      signal?.removeEventListener('abort', onAbort)
      own.live.delete(run)
    }
  }
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
