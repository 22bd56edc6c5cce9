// PythonCodeRuntime: each run's program in a CPython process of its own, forked from a zygote
// that the kernel confined before the interpreter started (src/helper/interpreter.rs) and that
// has already imported what runs need. A process serves one run, then ends: nothing of one run is
// there for the next, and the zygote never runs a program.
import { execFileSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { Socket } from 'node:net'
import { availableParallelism, constants } from 'node:os'
import { CodeRuntime } from '@deepseek-ai/dsh-code-runtime'
import { PREFIX } from '../config.js'
import { checkBindings, describeFailure, startBindingWith } from '../bindings.js'
import { PROTOCOL } from '../helper_wire.js'
import { losslessJsonText, losslessJsonTextInTurns } from '../lossless.js'
import { LineReader, readFrame, readZygoteFrame } from './channel.js'
import { PythonConfig, checkPythonConfig } from './config.js'
import { BOOTSTRAP, examineInterpreter } from './interpreter.js'

const native = createRequire(import.meta.url)('../native.cjs')

/** How much of the zygote's stderr is kept: it writes there only before it is ready. */
const STDERR_KEPT = 4096

const SIGNAL_NAMES = Object.fromEntries(Object.entries(constants.signals).map(([name, number]) => [number, name]))

/** Binding calls a run may have awaiting answers, and their arguments' bytes, before the host stops
 * reading its process (the TypeScript runtime's bound on calls in flight). */
const MAX_CALLS_IN_FLIGHT = 1024
const MAX_ARGUMENT_BYTES_IN_FLIGHT = 64 << 20

/** Answers queued for a process that does not read them, past which the host stops reading it. */
const MAX_QUEUED_ANSWER_BYTES = 64 << 20

/** The line that ends the logs once they reach `maxLogBytes`. */
export const logTruncationMarker = (maxLogBytes) => `[dsh-code-runtime-v8] log capture truncated at ${maxLogBytes} bytes`

const launcher = () => {
  if (typeof native.spawnHelper !== 'function') throw new Error(`${PREFIX} Python runs are not available on ${process.platform}`)
  return { spawn: native.spawnHelper, kill: native.killHelper, running: native.helperRunning }
}

/** Why a process ended, in words. */
function causeOf({ code, signal }, what) {
  return signal !== undefined && signal !== null
    ? `${what} was killed by ${SIGNAL_NAMES[signal] ?? `signal ${signal}`}`
    : `${what} exited with code ${code}`
}

/**
 * The zygote: one confined interpreter that has imported what runs need and forks a process per
 * run on request, sending back that process's socket (received here with `receiveDescriptor`).
 * It never runs a program; it kills and reaps the processes it forked, and says how they ended.
 */
class Zygote {
  #reader = new LineReader()
  #stderr = ''
  #exit
  #launcher
  #forks = []
  #processes = new Map()
  #onEnded

  constructor(launch, args) {
    this.#launcher = launch
    this.gone = false
    this.ended = new Promise((resolve) => { this.#onEnded = resolve })
    let spawned
    try {
      spawned = launch.spawn(native.helperPath(), args, (code, signal) => { this.#exit = { code, signal } }, true)
    } catch (error) {
      queueMicrotask(() => this.#end(`the Python zygote could not be started: ${error.message}`))
      return
    }
    this.pid = spawned.pid
    this.controlFd = spawned.stdin
    this.control = new Socket({ fd: spawned.stdin, readable: false, writable: true })
    this.stdout = new Socket({ fd: spawned.stdout, readable: true, writable: false })
    this.stderr = new Socket({ fd: spawned.stderr, readable: true, writable: false })
    this.control.on('error', () => {})
    this.stdout.on('data', (chunk) => this.#receive(chunk))
    this.stderr.on('data', (chunk) => { this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_KEPT) })
    this.stdout.on('close', () => this.#whenExited(() => this.#end()))
    this.#hold()
  }

  #receive(chunk) {
    try {
      for (const line of this.#reader.push(chunk)) {
        const frame = readZygoteFrame(line)
        // Its sandbox was read when the runtime was made (probeSandbox).
        if (frame.type === 'forked') this.#forked(frame.pid)
        else if (frame.type === 'exit') this.#processes.get(frame.pid)?.exited(frame)
      }
    } catch (error) {
      this.#launcher.kill(this.pid)
      this.#end(`the Python zygote sent ${error.message}`)
    }
  }

  #forked(pid) {
    const fd = native.receiveDescriptor(this.controlFd)
    if (fd < 0) throw new Error(`a forked process (${pid}) without its socket`)
    const forked = new RunProcess(this, pid, fd)
    this.#processes.set(pid, forked)
    forked.ended.then(() => this.#processes.delete(pid))
    this.#forks.shift()?.resolve(forked)
    this.#hold()
  }

  // The status comes from the reaper thread, a moment after the pipes close.
  #whenExited(then, tries = 0) {
    if (this.#exit !== undefined || tries === 100) then()
    else setTimeout(() => this.#whenExited(then, tries + 1), 1)
  }

  #end(why) {
    if (this.gone) return
    this.gone = true
    const said = this.#stderr.trim().split('\n').at(-1)?.replace(/^dsh-code-runtime-v8-helper: /, '')
    const how = why ?? (this.#exit ? causeOf(this.#exit, 'the Python zygote') : 'the Python zygote ended')
    const cause = said ? `${how}: ${said}` : how
    for (const fork of this.#forks.splice(0)) fork.reject(new Error(cause))
    // Its processes die with it (PR_SET_PDEATHSIG); none can say how.
    for (const forked of this.#processes.values()) forked.exited({ cause })
    this.#onEnded()
  }

  /** Holds the host's event loop only while a fork is awaited, or its end once it is closed. */
  #hold() {
    const held = this.#forks.length > 0 || this.closing === true
    // A closed socket would queue the call until it connects, which it never does.
    for (const pipe of [this.control, this.stdout, this.stderr]) {
      if (pipe === undefined || pipe.destroyed) continue
      if (held) pipe.ref()
      else pipe.unref()
    }
  }

  /** A new process, confined, waiting for its run. Asked at once: the zygote reads its requests
   * once it is ready. */
  fork() {
    return new Promise((resolve, reject) => {
      if (this.gone) {
        reject(new Error('the Python zygote has ended'))
        return
      }
      this.#forks.push({ resolve, reject })
      this.#hold()
      this.control.write('fork\n')
    })
  }

  kill(pid) {
    if (!this.gone) this.control.write(`kill ${pid}\n`)
  }

  /** Ends the zygote, and with it every process it forked. */
  close() {
    this.closing = true
    this.#hold()
    if (this.pid !== undefined) this.#launcher.kill(this.pid)
    return this.ended
  }
}

/** A process the zygote forked for one run: its socket, and how it ended. */
class RunProcess {
  #reader = new LineReader()
  #closed = false
  #paused = false
  #runReads = true
  #answersQueued = false
  #drain = false
  #status
  #onEnded

  constructor(zygote, pid, fd) {
    this.zygote = zygote
    this.pid = pid
    this.gone = false
    /** Set by the run it serves. */
    this.onFrame = () => {}
    /** Resolves with how it ended, once it has and everything it wrote is read. */
    this.ended = new Promise((resolve) => { this.#onEnded = resolve })
    this.socket = new Socket({ fd, readable: true, writable: true })
    this.socket.on('error', () => {})
    this.socket.on('data', (chunk) => this.#receive(chunk))
    this.socket.on('close', () => {
      this.#closed = true
      this.#end()
    })
    this.hold(false)
  }

  #receive(chunk) {
    if (this.killedFor !== undefined) return
    try {
      for (const line of this.#reader.push(chunk)) {
        this.onFrame(readFrame(line))
        if (this.killedFor !== undefined) return
      }
    } catch (error) {
      this.kill(`the Python process sent ${error.message}`)
    }
  }

  /** Its exit status, from the zygote (`{ code }` or `{ signal }`), or `{ cause }` when unknown. */
  exited(status) {
    this.#status ??= status
    // Read to its end, even while its run had stopped reading: its close is how the end is known.
    this.#drain = true
    this.#flow()
    this.#end()
  }

  #end() {
    if (this.gone || !this.#closed || this.#status === undefined) return
    this.gone = true
    const status = this.#status
    this.#onEnded({ signal: status.signal ?? null, killedFor: this.killedFor, cause: status.cause ?? causeOf(status, 'the Python process') })
  }

  hold(held) {
    if (this.socket.destroyed) return
    if (held) this.socket.ref()
    else this.socket.unref()
  }

  send(frame) {
    if (this.#closed) return
    this.socket.write(frame + '\n')
    // A process that does not read its answers is not read either, until it has taken them.
    if (!this.#answersQueued && this.socket.writableLength > MAX_QUEUED_ANSWER_BYTES) {
      this.#answersQueued = true
      this.#flow()
      this.socket.once('drain', () => {
        this.#answersQueued = false
        this.#flow()
      })
    }
  }

  /** Reads what the process sends (`true`), or leaves it in the socket, where the process waits. */
  flow(reading) {
    this.#runReads = reading
    this.#flow()
  }

  #flow() {
    const reading = this.#drain || this.killedFor !== undefined || (this.#runReads && !this.#answersQueued)
    if (this.#closed || reading !== this.#paused) return
    this.#paused = !reading
    if (reading) this.socket.resume()
    else this.socket.pause()
  }

  /** Lets go of the socket of a process that was killed and is not yet known to be gone. */
  abandon() {
    this.socket.destroy()
  }

  /** Ends the process now; `why` is what its run is told, unless it settled already. */
  kill(why) {
    this.killedFor ??= why
    this.#flow()
    this.zygote.kill(this.pid)
  }
}

/** Processes forked ahead of demand, from a zygote started when first needed. */
class ProcessPool {
  #idle = []
  #starting = 0
  #zygote

  constructor(args, prepared) {
    this.args = args
    this.prepared = prepared
    this.launcher = launcher()
    this.closed = false
    this.#fill()
  }

  #fork() {
    if (this.#zygote === undefined || this.#zygote.gone) this.#zygote = new Zygote(this.launcher, this.args)
    return this.#zygote.fork()
  }

  #fill() {
    while (!this.closed && this.#idle.length + this.#starting < this.prepared) {
      this.#starting++
      this.#fork().then((forked) => {
        if (this.closed) forked.kill('runtime disposed')
        else this.#idle.push(forked)
      }, () => {}).finally(() => { this.#starting-- })
    }
  }

  /** A confined process, ready for one run: a prepared one, else one forked now. */
  async acquire() {
    let forked
    while ((forked = this.#idle.pop()) !== undefined && forked.gone);
    forked ??= await this.#fork()
    forked.hold(true)
    // Replacements are forked once this run has settled (`release`), unless none is left: a fork
    // and its setup take a millisecond of CPU, which on few cores the run would share.
    if (this.#idle.length === 0) setImmediate(() => this.#fill())
    return forked
  }

  /** After a run: the pool forks what it is short of. */
  release() {
    setImmediate(() => this.#fill())
  }

  /** Ends the zygote, and every process it forked; resolves once it is gone. */
  close() {
    this.closed = true
    return this.#zygote?.close()
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

/** One run: its process's frames in, the bindings served, the result out. */
class PythonRun {
  #settle
  #timers = []

  constructor(own, bindings) {
    this.own = own
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

  /** Runs `program` in `forked`, a RunProcess. */
  start(forked, program) {
    this.forked = forked
    forked.onFrame = (frame) => this.#receive(frame)
    forked.ended.then((end) => this.#ended(end))
    const { cpuSeconds, maxLogBytes, maxValueBytes } = this.config
    const namespaces = this.bindings.map(({ global, errorClass }, index) =>
      [global, this.names[index], errorClass?.name ?? null, errorClass?.memberNameProperty ?? null])
    forked.send(JSON.stringify({ type: 'run', program, namespaces, cpuSeconds, maxLogBytes, maxValueBytes }))
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
      case 'done':
        this.#done(frame)
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

  #call({ id, global, name, args, lineLength }) {
    // Calls in flight, and their arguments' bytes, are bounded: past either bound the host reads
    // nothing more from the process until answers free room, and the program's next call waits.
    this.inFlight.calls++
    this.inFlight.bytes += lineLength
    this.forked.flow(this.#hasRoom())
    let answered = false
    const reply = (text) => {
      if (answered) return
      answered = true
      this.inFlight.calls--
      this.inFlight.bytes -= lineLength
      if (this.settled) return
      this.forked.send(text)
      this.forked.flow(this.#hasRoom())
    }
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

  #hasRoom() {
    return this.inFlight.calls < MAX_CALLS_IN_FLIGHT && this.inFlight.bytes < MAX_ARGUMENT_BYTES_IN_FLIGHT
  }

  /** Ends the run as `kind`: its process is killed, and the run settles once it is gone, or
   * `graceMs` after. */
  stop(kind, message) {
    if (this.settled || this.stopping) return
    this.stopping = { kind, message }
    // Not started yet: nothing to wait for.
    if (this.forked === undefined) return this.finish(this.stopping)
    this.forked.kill(message)
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
    const own = { config: checked, pool: new ProcessPool(args, checked.prepared), live: new Set(), disposed: false }
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
      let forked
      try {
        forked = await own.pool.acquire()
      } catch (error) {
        run.finish({ kind: 'worker-exit', message: error.message })
      }
      if (forked !== undefined) {
        if (run.settled) forked.kill('settled')
        else run.start(forked, program)
      }
      return await run.result
    } finally {
      signal?.removeEventListener('abort', onAbort)
      own.live.delete(run)
      own.pool.release()
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
