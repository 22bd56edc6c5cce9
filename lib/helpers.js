// `isolation: 'process'`: each run in a helper process (src/helper/), started ahead of demand,
// confined by the kernel before it takes a run. A helper serves `runsPerHelper` runs one after
// the other (1 by default: a fresh process per run), so a crash, a fatal V8 error or a kill costs
// the one run it holds. A `HelperRun` has the addon's NativeRun interface, so the rest of the
// runtime (bindings, durable runs, disposal) cannot tell the modes apart.
import { Socket } from 'node:net'
import { HANDOVERS, STDERR_KEPT, exitCause, lastSaid, whenReaped } from './exits.js'
import { FrameReader, PROTOCOL, abortFrame, answerFrame, disposeFrame, runFrame } from './helper_wire.js'

/** A run whose helper neither settles nor ends this long after it should have is ended here, and
 * its helper killed: after its wall ceiling, or after an abort or disposal was sent. */
const BACKSTOP_MS = 1000

/** Why a helper ended: its exit status and the last line it wrote to stderr. */
function causeOf(exit, stderr) {
  const said = lastSaid(stderr)
  return `${exitCause(exit, 'the helper process')}${said ? `: ${said}` : ''}`
}

/** One helper process, from its start to its end. */
class Helper {
  #reader = new FrameReader()
  #stderr = ''
  #onReady
  #onIdle = () => {}
  #onGone
  #exit
  #launcher

  /** `launcher` starts and kills processes: the addon's spawnHelper and killHelper. */
  constructor(path, { heapMb, runs }, launcher) {
    this.#launcher = launcher
    this.runsLeft = runs
    /** The run it serves now, if any. */
    this.run = undefined
    this.gone = false
    /** Resolves with the helper's sandbox report once it is confined and warm; rejects if it ends first. */
    this.ready = new Promise((resolve, reject) => { this.#onReady = { resolve, reject } })
    this.ready.catch(() => {})
    /** Resolves once the helper has ended and everything it wrote has been read. */
    this.ended = new Promise((resolve) => { this.#onGone = resolve })
    const args = [String(PROTOCOL), String(process.pid), String(heapMb), String(runs)]
    let spawned
    try {
      spawned = launcher.spawn(path, args, (code, signal) => { this.#exit = { code, signal } })
    } catch (error) {
      queueMicrotask(() => this.#end(`the helper process could not be started: ${error.message}`))
      return
    }
    this.pid = spawned.pid
    this.stdin = new Socket({ fd: spawned.stdin, readable: false, writable: true })
    this.stdout = new Socket({ fd: spawned.stdout, readable: true, writable: false })
    this.stderr = new Socket({ fd: spawned.stderr, readable: true, writable: false })
    this.stdin.on('error', () => {})
    this.stdout.on('data', (chunk) => {
      let frames
      try {
        frames = this.#reader.push(chunk)
      } catch (error) {
        this.kill(`the helper process sent ${error.message}`)
        return
      }
      for (const frame of frames) this.#receive(frame)
    })
    this.stderr.on('data', (chunk) => { this.#stderr = (this.#stderr + chunk.toString('utf8')).slice(-STDERR_KEPT) })
    // Its end is known once its stdout has closed (whatever it wrote is read) and it has been
    // reaped (its status is known): the status comes from the reaper a moment later, if at all.
    this.stdout.on('close', () => whenReaped(() => this.#exit !== undefined, () => this.#end(this.killedFor ?? causeOf(this.#exit, this.#stderr))))
    this.hold(false)
  }


  #receive(frame) {
    switch (frame.tag) {
      case 'H':
        if (frame.protocol !== PROTOCOL) this.kill(`the helper process speaks protocol ${frame.protocol}, the addon ${PROTOCOL}`)
        else this.#onReady.resolve(frame.sandbox)
        break
      case 'T':
        this.run?.taken()
        break
      case 'C':
        this.run?.call(frame)
        break
      case 'F': {
        const run = this.run
        this.run = undefined
        this.runsLeft--
        this.hold(false)
        run?.settled(frame.settled)
        break
      }
      case 'I':
        this.#onIdle()
        break
    }
  }

  #end(cause) {
    if (this.gone) return
    this.gone = true
    this.#onReady.reject(new Error(cause))
    this.#onIdle()
    this.#onGone()
    const run = this.run
    this.run = undefined
    run?.lost(cause)
  }

  /** Keeps the host's event loop alive while it serves a run, not while it waits for one. */
  hold(held) {
    for (const pipe of [this.stdin, this.stdout, this.stderr]) {
      if (held) pipe?.ref()
      else pipe?.unref()
    }
  }

  /** Starts `run` here. */
  serve(run, requestJson) {
    this.run = run
    this.send(runFrame(requestJson))
  }

  send(bytes) {
    if (!this.gone) this.stdin.write(bytes)
  }

  /** Resolves once the helper may take another run (`true`), or has ended (`false`). */
  idle() {
    if (this.gone) return Promise.resolve(false)
    return new Promise((resolve) => { this.#onIdle = () => resolve(!this.gone) })
  }

  running() {
    return !this.gone && this.pid !== undefined && this.#launcher.running(this.pid)
  }

  /** Ends the helper now; its run, if any, ends as `worker-exit` with `why`. */
  kill(why) {
    this.killedFor ??= why
    if (this.pid !== undefined) this.#launcher.kill(this.pid)
  }

  /** Lets the helper exit by itself: it does when its stdin closes. */
  close() {
    this.stdin?.end()
  }
}

/** Helpers started ahead of demand, as the in-process pool prepares isolates. */
export class HelperPool {
  #idle = []
  /** Helpers serving a run with more to serve after it: each with, once its run has settled, the
   * promise of its being idle again (or ended). */
  #comingBack = new Map()
  #starting = 0
  #all = new Set()

  constructor(path, { prepared, heapMb, runsPerHelper }, launcher) {
    this.path = path
    this.launcher = launcher
    this.options = { heapMb, runs: runsPerHelper }
    this.prepared = prepared
    this.closed = false
    this.#fill()
  }

  #spawn() {
    const helper = new Helper(this.path, this.options, this.launcher)
    this.#all.add(helper)
    helper.ended.then(() => this.#all.delete(helper))
    helper.ready.then((sandbox) => this.#warnOnce(sandbox), () => {})
    return helper
  }

  /** Says once, for this process's first helper, which layers of the sandbox this host lacks. */
  #warnOnce(sandbox) {
    if (HelperPool.warned) return
    HelperPool.warned = true
    const missing = sandbox.filter(([, why]) => why !== null)
    if (missing.length === 0) return
    process.emitWarning(`dsh-code-runtime-v8: helper processes run without ${missing.map(([name, why]) => `${name} (${why})`).join(', ')}`,
      { code: 'DSH_SANDBOX_INCOMPLETE' })
  }

  #fill() {
    // A helper that will come back from its run counts as prepared.
    while (!this.closed && this.#idle.length + this.#starting + this.#comingBack.size < this.prepared) {
      this.#starting++
      const helper = this.#spawn()
      helper.ready.then(() => this.#keep(helper), () => {}).finally(() => { this.#starting-- })
    }
  }

  #keep(helper) {
    if (this.closed || helper.gone) {
      helper.close()
      return
    }
    this.#idle.push(helper)
    helper.ended.then(() => {
      const at = this.#idle.indexOf(helper)
      if (at >= 0) this.#idle.splice(at, 1)
    })
  }

  /** A confined, warm helper for one run: a prepared one, else one coming back from its last run
   * (within milliseconds, where a new one takes tens), else one started now. */
  async acquire() {
    let helper
    for (;;) {
      // One that ended while idle may not have said so yet.
      while ((helper = this.#idle.pop()) !== undefined && !helper.running());
      const returning = [...this.#comingBack.values()].filter((back) => back !== undefined)
      if (helper !== undefined || returning.length === 0) break
      await Promise.race(returning)
    }
    if (helper === undefined) helper = this.#spawn()
    if (helper.runsLeft > 1) {
      this.#comingBack.set(helper, undefined)
      helper.ended.then(() => {
        if (this.#comingBack.delete(helper)) this.#fill()
      })
    }
    // From here the run's wait holds the host's event loop, as its run will.
    helper.hold(true)
    // Replacements start once this run has settled (`release`) unless the pool has none left: a
    // starting helper takes tens of milliseconds of CPU, which on few cores the run would share.
    if (this.#idle.length === 0) setImmediate(() => this.#fill())
    await helper.ready
    return helper
  }

  /** After a run: the helper serves again if it may and its run has left nothing behind; meanwhile
   * it counts as prepared. */
  async release(helper) {
    // After the run's caller has its result: starting a helper holds this thread a millisecond.
    setImmediate(() => this.#fill())
    if (!this.#comingBack.has(helper)) return
    const back = helper.idle()
    this.#comingBack.set(helper, back)
    // A run may be waiting for it: until it is back, it holds the event loop as a run does.
    helper.hold(true)
    const idle = await back
    helper.hold(false)
    this.#comingBack.delete(helper)
    if (!idle || this.closed) {
      this.#fill()
      return
    }
    this.#keep(helper)
    // Past the pool's size, the helper with the fewest runs left goes.
    while (this.#idle.length > this.prepared) {
      const fewest = this.#idle.reduce((least, each) => (each.runsLeft < least.runsLeft ? each : least))
      this.#idle.splice(this.#idle.indexOf(fewest), 1)
      fewest.close()
    }
  }

  /** A helper acquired and never used (its run ended first): kept while the pool is short of
   * prepared ones. */
  giveBack(helper) {
    this.#comingBack.delete(helper)
    helper.hold(false)
    if (this.#idle.length < this.prepared) this.#keep(helper)
    else helper.close()
  }

  /** Stops starting helpers and lets the idle ones exit; resolves once every helper has ended. */
  close() {
    this.closed = true
    for (const helper of this.#idle.splice(0)) helper.close()
    return Promise.all([...this.#all].map((helper) => helper.ended))
  }
}

/**
 * One run in a helper, with the addon's NativeRun interface. `settleWithout(kind, message)`
 * settles through the ledger when the helper cannot: it ended, or stopped answering.
 */
export class HelperRun {
  #helper
  #resolve
  #dispatch
  #backstop
  #ended = false
  #stopped = false
  #waited = 0
  #taken = false
  /** Serves the run on another helper, while that is allowed. */
  #handOver
  /** Hands the helper back to its pool once the run has settled. */
  #settledHelper = () => {}

  constructor(settleWithout, maxWallMs) {
    this.settleWithout = settleWithout
    this.maxWallMs = maxWallMs
  }

  /** As NativeRun's: `requestJson` as engine::job::RunRequest reads it. */
  start(requestJson, dispatch, pool) {
    this.#dispatch = dispatch
    return new Promise((resolve) => {
      this.#resolve = resolve
      this.#serve(requestJson, pool, HANDOVERS)
    })
  }

  /** Serves the run on a helper from `pool`; `handovers` more if helpers end before taking it. */
  #serve(requestJson, pool, handovers) {
    const asked = performance.now()
    pool.acquire().then((helper) => {
      this.#waited += performance.now() - asked
      if (this.#ended) {
        pool.giveBack(helper)
        return
      }
      this.#helper = helper
      this.#taken = false
      this.#handOver = handovers > 0 ? () => this.#serve(requestJson, pool, handovers - 1) : undefined
      helper.serve(this, requestJson)
      const ceiling = this.maxWallMs + BACKSTOP_MS
      clearTimeout(this.#backstop)
      this.#backstop = setTimeout(() => this.#giveUp('timeout', `wall-clock ceiling reached (${this.maxWallMs}ms)`), ceiling)
      this.#backstop.unref()
      this.#settledHelper = () => pool.release(helper)
    }, (error) => this.failed('worker-exit', error.message))
  }

  /** The helper has read the run: from here, its end is the run's. */
  taken() {
    this.#taken = true
  }

  /** The helper ended before settling the run. One that ended before it took the run (it died
   * while idle, and the host had not seen it yet) ran none of it: another serves it. */
  lost(cause) {
    if (!this.#taken && !this.#stopped && this.#handOver !== undefined && !this.#ended) {
      this.#settledHelper()
      this.#settledHelper = () => {}
      // Until the next helper is here, a stop ends the run at once.
      this.#helper = undefined
      clearTimeout(this.#backstop)
      this.#handOver()
      return
    }
    this.failed('worker-exit', cause)
  }

  /** A binding call from the helper. */
  call({ call, namespace, member, argsJson }) {
    this.#dispatch(call, namespace, member, argsJson)
  }

  /** The helper's result: the wait for a helper counts as start-up. */
  settled(settled) {
    if (this.#ended) return
    settled.usage.startupMs += this.#waited
    settled.usage.wallMs += this.#waited
    this.#finish(settled)
    this.#settledHelper()
  }

  /** Ended without the helper's result. */
  failed(kind, message) {
    if (this.#ended) return
    this.#finish(this.settleWithout(kind, message))
    this.#settledHelper()
  }

  #finish(settled) {
    this.#ended = true
    clearTimeout(this.#backstop)
    this.#resolve(settled)
  }

  /** The helper did not settle in time: it is killed, and the run ends as the stop said. */
  #giveUp(kind, message) {
    this.#helper?.kill(message)
    this.failed(kind, message)
  }

  answer(call, tagged) {
    if (!this.#ended) this.#helper?.send(answerFrame(call, tagged))
  }

  stopped() {
    return this.#stopped || this.#ended
  }

  ended() {
    return this.#ended
  }

  abort(reason) {
    this.#stop('abort', reason, abortFrame(reason))
  }

  dispose() {
    this.#stop('abort', 'runtime disposed', disposeFrame())
  }

  #stop(kind, message, frame) {
    if (this.#ended || this.#stopped) return
    this.#stopped = true
    if (this.#helper === undefined) {
      this.failed(kind, message)
      return
    }
    this.#helper.send(frame)
    clearTimeout(this.#backstop)
    this.#backstop = setTimeout(() => this.#giveUp(kind, message), BACKSTOP_MS)
    this.#backstop.unref()
  }
}
