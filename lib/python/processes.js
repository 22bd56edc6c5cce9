// The processes of PythonCodeRuntime: one zygote per runtime, confined by the kernel before its
// interpreter started (src/helper/interpreter.rs), that forks a process per run on request and sends
// back its socket; the run processes, read as hostile; and the pool that forks them ahead of demand.
import { createRequire } from 'node:module'
import { Socket } from 'node:net'
import { PREFIX } from '../config.js'
import { STDERR_KEPT, exitCause, lastSaid, whenReaped } from '../exits.js'
import { LineReader, readFrame, readFrameInTurns, readZygoteFrame } from './channel.js'

const native = createRequire(import.meta.url)('../native.cjs')

/** Lines longer than this are checked in turns of the event loop. */
const LONG_LINE = 1 << 20

/** Answers queued for a process that does not read them, past which the host stops reading it. */
const MAX_QUEUED_ANSWER_BYTES = 64 << 20

const launcher = () => {
  if (typeof native.spawnHelper !== 'function') throw new Error(`${PREFIX} Python runs are not available on ${process.platform}`)
  return { spawn: native.spawnHelper, kill: native.killHelper, running: native.helperRunning }
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
    this.stdout.on('close', () => whenReaped(() => this.#exit !== undefined, () => this.#end()))
    this.#hold()
  }

  #receive(chunk) {
    try {
      for (const line of this.#reader.push(chunk)) {
        const frame = readZygoteFrame(line)
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

  #end(why) {
    if (this.gone) return
    this.gone = true
    const said = lastSaid(this.#stderr)
    const how = why ?? exitCause(this.#exit, 'the Python zygote')
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
  /** Lines received and not yet read, from `#nextLine` on; a long one's check under way. */
  #lines = []
  #nextLine = 0
  #checking
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
    let lines
    try {
      lines = this.#reader.push(chunk)
    } catch (error) {
      this.kill(`the Python process sent ${error.message}`)
      return
    }
    for (const line of lines) this.#lines.push(line)
    this.#readLines()
  }

  /** Reads the lines received, in order; a long one in turns (readFrameInTurns), during which the
   * process is not read. */
  #readLines() {
    while (this.#checking === undefined && this.#nextLine < this.#lines.length && this.killedFor === undefined) {
      const line = this.#lines[this.#nextLine]
      this.#lines[this.#nextLine++] = undefined
      if (line.length <= LONG_LINE) {
        try {
          this.onFrame(readFrame(line))
        } catch (error) {
          this.kill(`the Python process sent ${error.message}`)
        }
        continue
      }
      this.#checking = readFrameInTurns(line)
      this.#flow()
      this.#checking.then((frame) => {
        this.#checking = undefined
        this.#flow()
        if (this.killedFor === undefined) this.onFrame(frame)
        this.#readLines()
      }, (error) => {
        this.#checking = undefined
        this.kill(`the Python process sent ${error.message}`)
        this.#end()
      })
      return
    }
    if (this.#nextLine === this.#lines.length) {
      this.#lines = []
      this.#nextLine = 0
    }
    if (this.#checking === undefined) this.#end()
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
    // Its end is known once it is closed, its status is known and every line it sent is read.
    const unread = this.#checking !== undefined || (this.#nextLine < this.#lines.length && this.killedFor === undefined)
    if (this.gone || !this.#closed || this.#status === undefined || unread) return
    this.gone = true
    const status = this.#status
    this.#onEnded({ signal: status.signal ?? null, killedFor: this.killedFor, cause: status.cause ?? exitCause(status, 'the Python process') })
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
    const reading = this.#drain || this.killedFor !== undefined ||
      (this.#runReads && !this.#answersQueued && this.#checking === undefined)
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
export class ProcessPool {
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
