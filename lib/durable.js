// Durable runs, the host's side: the journal of everything a run was given, checked before it is
// replayed, and the calls a run makes through its control namespace (src/js/durable.js is the
// isolate's side). A binding asks its run to wait by returning `suspend(payload)`; `resume` replays
// the journal in a fresh isolate and calls the suspended bindings again, where `resumption()`
// tells them how the caller resolved them.
import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { PREFIX } from './config.js'
import { invokeBinding } from './bindings.js'
import { losslessJsonText } from './lossless.js'

export const JOURNAL_FORMAT = 'dsh-durable-journal'
export const JOURNAL_VERSION = 1
export const RUNTIME_VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version
export const DEFAULT_MAX_EVENTS = 10_000
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024

const SEED = /^[0-9a-f]{32}$/
const EVENT_TYPES = new Set(['call', 'answer', 'rejection', 'timer', 'suspended'])

const misuse = (message) => new Error(`${PREFIX} ${message}`)
const refused = (why) => misuse(`journal refused: ${why}`)

/** What a binding returns to make its call wait; only `suspend` makes one. */
class Suspension {
  constructor(payload) {
    this.payload = payload
  }
}

/**
 * Returned by a binding, makes the durable run's call wait for the caller's resolution:
 * `payload` (JSON) goes to the caller with the pending call.
 */
export function suspend(payload = null) {
  if (losslessJsonText(payload) === undefined) throw new TypeError(`${PREFIX} suspend() takes a JSON payload`)
  return new Suspension(payload)
}

const resumed = new AsyncLocalStorage()

/**
 * Inside a binding called again by `resume`: `{ id, runId, payload, resolution }` for the call it
 * resumes (`runId` and `id` together name the call across attempts); `undefined` anywhere else.
 */
export function resumption() {
  return resumed.getStore()
}

const sha256 = (text) => `sha256:${createHash('sha256').update(text).digest('hex')}`

/** JSON with every object's keys in order, so a journal signs the same after any JSON store. */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

function bindingsHash(namespaces) {
  // The error classes too: a program sees their names.
  const shape = namespaces.map(({ global, functions, errorClass }) =>
    [global, Object.keys(functions).sort(), errorClass?.name ?? null, errorClass?.memberNameProperty ?? null])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return sha256(JSON.stringify(shape))
}

function sign(body, secret) {
  return `hmac-sha256:${createHmac('sha256', secret).update(canonical(body)).digest('hex')}`
}

/** Options of runDurable, resume and replay, checked. */
function checkOptions(options = {}) {
  if (options === null || typeof options !== 'object') throw misuse('durable options must be an object')
  const { secret, scope, seed, maxEvents = DEFAULT_MAX_EVENTS, maxBytes = DEFAULT_MAX_BYTES } = options
  if (secret !== undefined && !((typeof secret === 'string' || secret instanceof Uint8Array) && secret.length >= 16)) {
    throw misuse('options.secret must be a string or bytes of at least 16')
  }
  if (scope !== undefined && losslessJsonText(scope) === undefined) throw misuse('options.scope must be JSON')
  if (seed !== undefined && !(typeof seed === 'string' && SEED.test(seed))) throw misuse('options.seed must be 32 lower-case hex digits')
  for (const [name, value] of [['maxEvents', maxEvents], ['maxBytes', maxBytes]]) {
    if (!Number.isSafeInteger(value) || value <= 0) throw misuse(`options.${name} must be a positive whole number`)
  }
  return { secret, seed, scopeHash: scope === undefined ? null : sha256(canonical(scope)), maxEvents, maxBytes }
}

function checkEvent(event, index, previousTime) {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) throw refused(`event ${index} is not an object`)
  if (!EVENT_TYPES.has(event.type)) throw refused(`event ${index} has no known type`)
  if (!Number.isSafeInteger(event.id) || event.id <= 0) throw refused(`event ${index} has no valid id`)
  if (typeof event.t !== 'number' || !Number.isFinite(event.t) || event.t < previousTime) {
    throw refused(`event ${index} has no valid time`)
  }
  const fields = {
    call: () => typeof event.global === 'string' && typeof event.name === 'string' && typeof event.argsHash === 'string',
    answer: () => 'value' in event,
    rejection: () => typeof event.message === 'string',
    suspended: () => 'args' in event && 'payload' in event,
    timer: () => true,
  }
  if (!fields[event.type]()) throw refused(`event ${index} (${event.type}) lacks its fields`)
}

/**
 * Checks a journal given back by a caller against this request and these options, before anything
 * runs: its format, version, runtime, program, binding names, scope, signature, caps and events.
 * Returns it as read, without its signature, and the bytes of its events.
 */
function checkJournal(given, request, checked) {
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw refused('not a journal object')
  // Read once, as JSON: what is checked and signed is what the isolate is given.
  let journal
  try {
    journal = JSON.parse(JSON.stringify(given))
  } catch {
    throw refused('it cannot be read as JSON')
  }
  if (journal.format !== JOURNAL_FORMAT || journal.version !== JOURNAL_VERSION) throw refused('unknown format or version')
  if (journal.runtime !== RUNTIME_VERSION) throw refused(`recorded by runtime ${JSON.stringify(journal.runtime)}, this is ${RUNTIME_VERSION}`)
  if (journal.programHash !== sha256(request.program)) throw refused('it records another program')
  if (journal.bindingsHash !== bindingsHash(request.bindings)) throw refused('it records other binding names')
  if ((journal.scopeHash ?? null) !== checked.scopeHash) throw refused('its scope does not match')
  if (!Array.isArray(journal.events)) throw refused('it has no events')
  if (journal.events.length > checked.maxEvents) throw refused(`it has more than ${checked.maxEvents} events`)
  let text
  try {
    text = canonical(journal.events)
  } catch {
    throw refused('its events cannot be read')
  }
  const eventBytes = Buffer.byteLength(text)
  if (eventBytes > checked.maxBytes) throw refused(`its events pass ${checked.maxBytes} bytes`)
  const { signature, ...body } = journal
  if (checked.secret !== undefined) {
    const expected = Buffer.from(sign(body, checked.secret))
    const presented = Buffer.from(typeof signature === 'string' ? signature : '')
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw refused('its signature does not match')
  } else if (signature !== undefined) {
    throw refused('it is signed, and no secret was given to check it')
  }
  if (typeof journal.seed !== 'string' || !SEED.test(journal.seed)) throw refused('its seed is not valid')
  if (typeof journal.runId !== 'string' || !SEED.test(journal.runId)) throw refused('its run id is not valid')
  if (typeof journal.completed !== 'boolean') throw refused('it does not say whether its run completed')
  if (!Number.isSafeInteger(journal.startTime)) throw refused('its start time is not valid')
  if (typeof journal.spentMs !== 'number' || !(journal.spentMs >= 0)) throw refused('its spent time is not valid')
  let previousTime = 0
  body.events.forEach((event, index) => {
    checkEvent(event, index, previousTime)
    previousTime = event.t
  })
  return { journal: body, eventBytes }
}

/** The calls a journal leaves waiting for a resolution: `{ id, global, name, args, payload }`. */
export function pendingOf(journal) {
  if (journal.completed) return []
  const calls = new Map()
  const pending = new Map()
  for (const event of journal.events) {
    if (event.type === 'call') calls.set(event.id, event)
    else if (event.type === 'suspended') pending.set(event.id, event)
    else if (event.type === 'answer' || event.type === 'rejection') pending.delete(event.id)
  }
  return [...pending.values()].map(({ id, args, payload }) => {
    const call = calls.get(id)
    return { id, global: call?.global, name: call?.name, args, payload }
  })
}

/** The control namespace's answer to a call the program's binding rejects with `message`. */
const rejection = (message) => `V${JSON.stringify({ e: message })}`

/**
 * One attempt of a durable run: the plan for the isolate's start, the host's end of the control
 * namespace, and the journal it grows.
 */
export class DurableAttempt {
  constructor({ request, options, journal, replayOnly }) {
    const checked = checkOptions(options)
    const given = journal === undefined ? undefined : checkJournal(journal, request, checked)
    this.checked = checked
    this.request = request
    this.replayOnly = replayOnly
    /** Pending id to the caller's resolution, set by `resume` once they are checked. */
    this.resolutions = new Map()
    this.base = given?.journal ?? {
      format: JOURNAL_FORMAT,
      version: JOURNAL_VERSION,
      runtime: RUNTIME_VERSION,
      programHash: sha256(request.program),
      bindingsHash: bindingsHash(request.bindings),
      scopeHash: checked.scopeHash,
      seed: checked.seed ?? randomBytes(16).toString('hex'),
      // The same in every attempt of one logical run: with a call's id, a key for its effect.
      runId: randomBytes(16).toString('hex'),
      startTime: Date.now(),
      spentMs: 0,
      completed: false,
      events: [],
    }
    this.events = [...this.base.events]
    this.bytes = given?.eventBytes ?? 2
    this.payloads = new Map(pendingOf(this.base).map(({ id, payload }) => [id, payload]))
    this.suspended = false
    this.failure = undefined
    this.run = undefined
    this.names = undefined
    this.startedAt = performance.now()
    /** Wall time until the isolate had replayed the whole journal; 0 for a fresh run. */
    this.replayMs = 0
  }

  /** The start JSON for the isolate: its namespaces, and the journal to replay. */
  namespacesJson(described, names) {
    this.names = names
    return JSON.stringify({
      namespaces: described,
      durable: {
        seed: this.base.seed,
        startTime: this.base.startTime,
        events: this.base.events,
        replayOnly: this.replayOnly,
        control: described.length,
        maxEvents: this.checked.maxEvents,
      },
    })
  }

  attach(run) {
    this.run = run
  }

  /** Ends the attempt early, keeping what the program printed. */
  stop(failure) {
    this.failure ??= failure
    this.run?.abort(failure ?? 'suspended')
  }

  /** The control namespace: `{ events, call?, done?, suspend?, replayed? }` from the isolate. */
  control = async (argsJson) => {
    let message
    try {
      message = JSON.parse(argsJson)
      const texts = message.events.map((event) => JSON.stringify(event))
      for (let i = 0; i < texts.length; i++) {
        this.events.push(message.events[i])
        this.bytes += Buffer.byteLength(texts[i]) + 1
      }
    } catch (error) {
      this.stop(`the durable journal could not record an event: ${error.message}`)
    }
    if (this.events.length > this.checked.maxEvents) {
      this.stop(`the durable journal passed its cap of ${this.checked.maxEvents} events`)
    } else if (this.bytes > this.checked.maxBytes) {
      this.stop(`the durable journal passed its cap of ${this.checked.maxBytes} bytes`)
    }
    if (message?.replayed) this.replayMs = performance.now() - this.startedAt
    if (message?.suspend && this.failure === undefined) {
      this.suspended = true
      this.stop()
    }
    if (message?.call === undefined) return 'Vnull'
    // An attempt that has failed calls no more bindings.
    if (this.failure !== undefined) return rejection(this.failure)
    return this.serve(message.call)
  }

  async serve([id, namespaceIndex, nameIndex, argsJson, again]) {
    if (this.replayOnly) return rejection('a replay calls no binding')
    let outcome
    if (again) {
      // A call that waited for approval: called again only once the caller has resolved it.
      if (!this.resolutions.has(id)) return `V${JSON.stringify({ s: this.payloads.get(id) ?? null })}`
      const context = { id, runId: this.base.runId, payload: this.payloads.get(id) ?? null, resolution: this.resolutions.get(id) }
      outcome = await resumed.run(context, () => invokeBinding(this.request.bindings, this.names, namespaceIndex, nameIndex, argsJson))
    } else {
      outcome = await invokeBinding(this.request.bindings, this.names, namespaceIndex, nameIndex, argsJson)
    }
    if ('failure' in outcome) return rejection(outcome.failure)
    if (outcome.value instanceof Suspension) {
      this.payloads.set(id, outcome.value.payload)
      return `V{"s":${losslessJsonText(outcome.value.payload)}}`
    }
    const json = losslessJsonText(outcome.value)
    if (json === undefined) return rejection('binding resolution must be lossless JSON')
    return `V{"v":${json}}`
  }

  /** The journal as it stands after this attempt, which spent `spentMs` and `completed` or not. */
  journal(spentMs, completed) {
    const body = { ...this.base, events: this.events, spentMs, completed }
    return this.checked.secret === undefined ? body : { ...body, signature: sign(body, this.checked.secret) }
  }
}

/** Checks `resolutions` (pending id to JSON value) against the journal's pending calls. */
export function checkResolutions(journal, resolutions) {
  if (resolutions === null || typeof resolutions !== 'object' || Array.isArray(resolutions)) {
    throw misuse('resolutions must be an object from pending call id to value')
  }
  const pending = new Set(pendingOf(journal).map(({ id }) => id))
  if (journal.completed || pending.size === 0) throw misuse('the journal has no pending calls to resume')
  const checked = new Map()
  for (const [key, value] of Object.entries(resolutions)) {
    const id = Number(key)
    if (!pending.has(id) || String(id) !== key) throw misuse(`no pending call has id ${JSON.stringify(key)}`)
    if (losslessJsonText(value) === undefined) throw misuse(`the resolution of call ${key} must be JSON`)
    checked.set(id, value)
  }
  return checked
}
