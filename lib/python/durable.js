// Durable runs of engine 'monty', the host's side: the same journal, caps and signature as the V8
// runtime's (../durable.js), kept here rather than in the run. The run's process takes every line
// the host sends at a point where its program has nothing else to run, in the order they were
// sent, and its clock and randomness are the journal's (src/helper/monty/world.rs): so the order
// of the lines is all that can differ between two runs of one program. Live, each line is
// recorded as it is sent; on replay, the journal's lines are sent again in their order, each
// once the calls recorded before it have been made again.
import { performance } from 'node:perf_hooks'
import { canonicalText } from '../canonical.js'
import { DurableJournal, Suspension, describeEvent, divergence, sha256 } from '../durable.js'
import { losslessJsonText } from '../lossless.js'

/** setTimeout's longest delay. */
const MAX_DELAY_MS = 2 ** 31 - 1

export class MontyDurableAttempt extends DurableJournal {
  constructor(args) {
    super({ ...args, engine: 'monty' })
    /** The next event of the journal given to replay. */
    this.cursor = 0
    this.live = false
    /** Calls made and not answered: id to `{ global, name, argsText, suspended, release }`. */
    this.calls = new Map()
    /** Sleeps not over: id to `{ due, timer }`, `due` on the run's clock. */
    this.timers = new Map()
    /** The run's clock, in ms since its start: the time of the latest event. */
    this.now = 0
    /** Lines sent to the run since it started, and how many it had taken when it last waited. */
    this.sent = 0
    this.taken = -1
    this.finished = false
    this.run = undefined
  }

  /** What the run frame says of the run: its clock's start and its seed. */
  get frame() {
    return { startTime: this.base.startTime, seed: this.base.seed }
  }

  /** Starts with `run` (a PythonRun), once its process has the run. */
  begin(run) {
    this.run = run
    this.startedAt = performance.now()
    if (this.base.events.length === 0) this.#goLive()
    else this.#replay()
  }

  abort(failure) {
    this.end()
    this.run?.stop('exception', failure)
  }

  /** The run has settled, or is being stopped: nothing more is sent or recorded. */
  end() {
    this.finished = true
    for (const { timer } of this.timers.values()) clearTimeout(timer)
  }

  /** The run's clock, read live for an event it records: it moves with the host's once the journal is spent. */
  #clock() {
    if (this.live) this.now = Math.max(this.now, this.#hostTime())
    return this.now
  }

  /** The host's time on the run's clock, which moves it only when an event is recorded at it. */
  #hostTime() {
    return this.liveOffset + performance.now() - this.liveStart
  }

  /**
   * Records a live event; false once the attempt stops, past a cap, or for an event the journal
   * refuses (a process's forged frame may make one), which it never throws into the host.
   */
  #journal(event) {
    try {
      this.record(event)
    } catch (error) {
      this.stop(`the durable journal could not record an event: ${error.message}`)
      return false
    }
    return this.withinCaps()
  }

  #diverge(expected, found) {
    if (!this.finished) this.stop(divergence(this.cursor, expected, found))
  }

  /** The program called a binding; `release` frees its room among the calls in flight. */
  call({ id, global, name, args }, release) {
    if (this.finished) return release()
    const argsText = canonicalText(args).text
    const argsHash = sha256(argsText)
    const made = { type: 'call', id, global, name, argsHash }
    if (!this.live) {
      const expected = this.base.events[this.cursor]
      if (expected?.type !== 'call' || expected.id !== id || expected.global !== global || expected.name !== name || expected.argsHash !== argsHash) {
        return this.#diverge(expected, describeEvent(made))
      }
      this.cursor++
      this.now = Math.max(this.now, expected.t)
      // Room is freed at once: the journal bounds a replay's calls, and the lines the host had
      // read past the bound live (a chunk's worth) must be read again to reach their answers.
      release()
      this.calls.set(id, { global, name, argsText, suspended: false, release: () => {} })
      return this.#replay()
    }
    if (this.replayOnly) return this.#diverge(undefined, describeEvent(made))
    this.calls.set(id, { global, name, argsText, suspended: false, release })
    // The clock stands still while the program runs: a call is made at the time of the latest event.
    if (this.#journal({ ...made, t: this.now })) this.#invoke(id)
  }

  /** Calls call `id`'s binding: `resumption` for a call resumed with the caller's resolution. */
  #invoke(id, resumption) {
    const { global, name, argsText } = this.calls.get(id)
    const outcome = this.run.invoke(global, name, () => JSON.parse(argsText), resumption)
    if ('failure' in outcome) this.#answered(id, outcome)
    else outcome.then((settled) => this.#answered(id, settled), (error) => this.stop(`a binding's answer could not be journaled: ${error?.message}`))
  }

  /** Call `id`'s binding settled as `outcome`: its answer goes to the run, or the call waits. */
  #answered(id, outcome) {
    const call = this.calls.get(id)
    if (this.finished || call === undefined) return
    if ('failure' in outcome) return this.#deliver(id, { type: 'rejection', message: outcome.failure })
    if (outcome.value instanceof Suspension) {
      call.suspended = true
      call.release()
      const payload = JSON.parse(outcome.value.text)
      this.payloads.set(id, payload)
      if (this.#journal({ type: 'suspended', id, args: JSON.parse(call.argsText), payload, t: this.now })) this.#settleIfIdle()
      return
    }
    let json
    try {
      json = losslessJsonText(outcome.value)
    } catch {
      // Past what a text can hold.
    }
    if (json === undefined) return this.#deliver(id, { type: 'rejection', message: 'binding resolution must be lossless JSON' })
    this.#deliver(id, { type: 'answer', value: JSON.parse(json) })
  }

  /** Records `event` (an answer or a rejection) and sends it to the run. */
  #deliver(id, event) {
    const t = this.#clock()
    if (this.#journal({ ...event, id, t })) this.#sendAnswer(id, event, t)
  }

  #sendAnswer(id, { type, value, message }, t) {
    const call = this.calls.get(id)
    this.calls.delete(id)
    call.release()
    // With its keys in canonical order, as a replay gives it from the journal, and its integers
    // exact, as a plain run's.
    const rest = type === 'answer' ? `"ok":true,"value":${canonicalText(value, Infinity, { exactIntegers: true }).text}` : `"ok":false,"message":${JSON.stringify(message)}`
    this.#send(`{"type":"reply","id":${id},"t":${t},${rest}}`)
  }

  #send(line) {
    this.sent++
    this.run.send(line)
  }

  /** The program sleeps until `due` on its clock. */
  sleep({ id, due }) {
    if (this.finished) return
    clearTimeout(this.timers.get(id)?.timer)
    this.timers.set(id, { due, timer: undefined })
    if (!this.live) this.#replay()
    else if (!this.replayOnly) this.#schedule(id)
  }

  #schedule(id) {
    const sleep = this.timers.get(id)
    // Node fires a longer delay at once; the wall ceiling ends a run long before such a sleep.
    sleep.timer = setTimeout(() => this.#fire(id), Math.min(MAX_DELAY_MS, Math.max(0, sleep.due - Math.max(this.now, this.#hostTime()))))
  }

  /** Sleep `id` is over, at its due time (or now, if that has passed: the clock never goes back). */
  #fire(id) {
    const sleep = this.timers.get(id)
    if (this.finished || sleep === undefined) return
    const { due } = sleep
    this.timers.delete(id)
    this.now = Math.max(this.now, due)
    if (this.#journal({ type: 'timer', id, t: this.now })) this.#send(`{"type":"fire","id":${id},"t":${this.now}}`)
  }

  /** The run has taken `taken` lines and has nothing else to run. */
  wait({ taken }) {
    this.taken = taken
    if (this.finished || taken !== this.sent) return
    if (this.live) return this.#settleIfIdle()
    // Everything sent is taken, and the program waits: for nothing the journal holds next.
    const expected = this.base.events[this.cursor]
    this.#diverge(expected, expected.type === 'call' ? 'a program waiting for nothing the journal holds' : `no sleep ${expected.id} set`)
  }

  /** Whether the run may end now that its program has: only at the journal's end. */
  ends() {
    if (this.live || this.finished) return true
    this.#diverge(this.base.events[this.cursor], 'the end of the program')
    return false
  }

  /** Sends the journal's events, in order, up to the next call the program is to make again. */
  #replay() {
    while (!this.live && !this.finished) {
      const event = this.base.events[this.cursor]
      if (event === undefined) return this.#goLive()
      if (event.type === 'call') return
      if (event.type === 'timer') {
        // A sleep is the program's to ask for, in its own time; it ends when it ended live.
        const sleep = this.timers.get(event.id)
        if (sleep === undefined) return
        if (event.t !== Math.max(this.now, sleep.due)) return this.#diverge(event, `sleep ${event.id}, due at ${Math.max(this.now, sleep.due)}`)
        this.timers.delete(event.id)
        this.cursor++
        this.now = Math.max(this.now, event.t)
        this.#send(`{"type":"fire","id":${event.id},"t":${event.t}}`)
        continue
      }
      const call = this.calls.get(event.id)
      if (call === undefined) return this.#diverge(event, `no call ${event.id} waiting`)
      this.cursor++
      this.now = Math.max(this.now, event.t)
      if (event.type === 'suspended') {
        call.suspended = true
        call.release()
      } else {
        this.#sendAnswer(event.id, event, event.t)
      }
    }
  }

  /** The journal is spent: from here on, events are live, and the calls it left waiting are resumed. */
  #goLive() {
    this.live = true
    this.liveOffset = this.now
    this.liveStart = performance.now()
    if (this.base.events.length > 0) this.replayMs = performance.now() - this.startedAt
    if (!this.replayOnly) {
      for (const id of this.timers.keys()) this.#schedule(id)
      for (const [id, call] of this.calls) {
        if (!call.suspended || !this.resolutions.has(id)) continue
        // Called again once, with the arguments the program gave again (the journal's, by their hash).
        call.suspended = false
        call.release = () => {}
        this.#invoke(id, { id, runId: this.base.runId, payload: this.payloads.get(id) ?? null, resolution: this.resolutions.get(id) })
      }
    }
    this.#settleIfIdle()
  }

  /** With everything sent taken and the program waiting only for approvals, the attempt suspends. */
  #settleIfIdle() {
    if (!this.live || this.finished || this.taken !== this.sent) return
    const calls = [...this.calls.values()]
    const waiting = calls.some((call) => !call.suspended)
    if (this.replayOnly && (waiting || this.timers.size > 0)) {
      return this.#diverge(undefined, waiting ? 'calls waiting for answers the journal does not have' : `sleep ${this.timers.keys().next().value} due`)
    }
    if (waiting || this.timers.size > 0 || !calls.some((call) => call.suspended)) return
    this.suspended = true
    this.end()
    this.run.stop('suspended', 'the run waits for approval')
  }
}
