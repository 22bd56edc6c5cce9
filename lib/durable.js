// Durable runs, the host's side: the journal of everything a run was given, checked before it is
// replayed, and the calls a run makes through its control namespace (src/js/durable.js is the
// isolate's side). A binding asks its run to wait by returning `suspend(payload)`; `resume` replays
// the journal in a fresh isolate and calls the suspended bindings again, where `resumption()`
// tells them how the caller resolved them.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { PREFIX } from './config.js'
import { describeThrown, invokeBinding, resumption } from './bindings.js'
import { canonicalText, jsonBytes, updateCanonical } from './canonical.js'
import { losslessJsonText } from './lossless.js'

export { resumption }

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
export class Suspension {
  /** `text`: the payload's JSON when `suspend` was called, which later changes to it do not reach. */
  constructor(text) {
    this.text = text
  }
}

/**
 * Returned by a binding, makes the durable run's call wait for the caller's resolution:
 * `payload` (JSON) goes to the caller with the pending call.
 */
export function suspend(payload = null) {
  const text = losslessJsonText(payload)
  if (text === undefined) throw new TypeError(`${PREFIX} suspend() takes a JSON payload`)
  return new Suspension(text)
}

export const sha256 = (text) => `sha256:${createHash('sha256').update(text).digest('hex')}`

function bindingsHash(namespaces) {
  // The error classes too: a program sees their names.
  const shape = namespaces.map(({ global, functions, errorClass }) =>
    [global, Object.keys(functions).sort(), errorClass?.name ?? null, errorClass?.memberNameProperty ?? null])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return sha256(JSON.stringify(shape))
}

/**
 * The signature of `body`: HMAC-SHA-256 of its canonical JSON, written piece by piece. `eventsText`,
 * when given, is the canonical text of `body.events`, already made.
 */
function sign(body, secret, eventsText) {
  const hmac = createHmac('sha256', secret)
  hmac.update('{')
  Object.keys(body).sort().forEach((key, index) => {
    hmac.update(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`)
    if (key === 'events' && eventsText !== undefined) hmac.update(eventsText)
    else updateCanonical(hmac, body[key])
  })
  hmac.update('}')
  return `hmac-sha256:${hmac.digest('hex')}`
}

/** HMAC-SHA-256's output size: a shorter secret would make a signature weaker than its hash. */
const MIN_SECRET_BYTES = 32

const secretBytes = (secret) => (typeof secret === 'string' ? Buffer.byteLength(secret) : secret.byteLength)

/** Options of runDurable, resume and replay, checked. */
function checkOptions(options = {}) {
  if (options === null || typeof options !== 'object') throw misuse('durable options must be an object')
  let read
  try {
    const { secret, scope, seed, maxEvents = DEFAULT_MAX_EVENTS, maxBytes = DEFAULT_MAX_BYTES } = options
    read = { secret, scope, seed, maxEvents, maxBytes }
  } catch (error) {
    throw misuse(`durable options could not be read: ${describeThrown(error, 'an unrenderable value')}`)
  }
  const { secret, scope, seed, maxEvents, maxBytes } = read
  if (secret !== undefined && !((typeof secret === 'string' || secret instanceof Uint8Array) && secretBytes(secret) >= MIN_SECRET_BYTES)) {
    throw misuse(`options.secret must be a string or bytes of at least ${MIN_SECRET_BYTES} bytes`)
  }
  if (scope !== undefined && losslessJsonText(scope) === undefined) throw misuse('options.scope must be JSON')
  if (seed !== undefined && !(typeof seed === 'string' && SEED.test(seed))) throw misuse('options.seed must be 32 lower-case hex digits')
  for (const [name, value] of [['maxEvents', maxEvents], ['maxBytes', maxBytes]]) {
    if (!Number.isSafeInteger(value) || value <= 0) throw misuse(`options.${name} must be a positive whole number`)
  }
  const scopeHash = scope === undefined ? null : `sha256:${updateCanonical(createHash('sha256'), scope).digest('hex')}`
  return { secret, seed, scopeHash, maxEvents, maxBytes }
}

/** Whether `event`, of a known type, has the fields of its type. */
function hasItsFields(event) {
  switch (event.type) {
    case 'call': return typeof event.global === 'string' && typeof event.name === 'string' && typeof event.argsHash === 'string'
    case 'answer': return 'value' in event
    case 'rejection': return typeof event.message === 'string'
    case 'suspended': return 'args' in event && 'payload' in event
    default: return true
  }
}

function checkEvent(event, index, previousTime) {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) throw refused(`event ${index} is not an object`)
  if (!EVENT_TYPES.has(event.type)) throw refused(`event ${index} has no known type`)
  if (!Number.isSafeInteger(event.id) || event.id <= 0) throw refused(`event ${index} has no valid id`)
  if (typeof event.t !== 'number' || !Number.isFinite(event.t) || event.t < previousTime) {
    throw refused(`event ${index} has no valid time`)
  }
  if (!hasItsFields(event)) throw refused(`event ${index} (${event.type}) lacks its fields`)
}

/** The fields a message of the isolate's control namespace may have, and what each holds. */
const MESSAGE_FIELDS = {
  events: Array.isArray,
  call: (call) => Array.isArray(call) && call.length === 5 && Number.isSafeInteger(call[0]) &&
    Number.isSafeInteger(call[1]) && Number.isSafeInteger(call[2]) && typeof call[3] === 'string' && typeof call[4] === 'boolean',
  done: (flag) => flag === true,
  suspend: (flag) => flag === true,
  replayed: (ms) => typeof ms === 'number' && ms >= 0,
}

/** Throws unless `message` has only the control namespace's fields, each as it should be. */
function checkMessage(message) {
  if (message === null || typeof message !== 'object' || Array.isArray(message) || !('events' in message)) {
    throw new TypeError('a message without events')
  }
  for (const [key, value] of Object.entries(message)) {
    if (!Object.hasOwn(MESSAGE_FIELDS, key) || !MESSAGE_FIELDS[key](value)) throw new TypeError(`a message with a bad field ${quoted(key)}`)
  }
}

/** Every field a journal has; a journal with any other is refused before its size is known. */
const JOURNAL_FIELDS = new Set([
  'format', 'version', 'runtime', 'engine', 'programHash', 'bindingsHash', 'scopeHash', 'seed', 'runId', 'startTime',
  'spentMs', 'completed', 'events', 'signature',
])

/** A caller's text, short enough to quote in a message. */
const quoted = (text) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)

/**
 * Checks a journal given back by a caller against this request and these options, before anything
 * runs: its format, version, runtime, program, binding names, scope, caps, signature and events.
 * Every field is read once; the events are read once, into their canonical text, which is what is
 * measured, signed and given to the isolate. Nothing past `maxBytes` is copied: a journal too large
 * is refused while its events are measured. Returns the journal as read, without its signature,
 * and its events' text and bytes.
 */
function checkJournal(given, request, checked, engine) {
  if (given === null || typeof given !== 'object' || Array.isArray(given)) throw refused('not a journal object')
  const fields = {}
  let unknown
  try {
    for (const key of Object.keys(given)) {
      if (!JOURNAL_FIELDS.has(key)) {
        unknown = key
        break
      }
      // As JSON reads it: a field holding undefined is no field.
      const value = given[key]
      if (value !== undefined) fields[key] = value
    }
  } catch {
    throw refused('it cannot be read as JSON')
  }
  if (unknown !== undefined) throw refused(`it has an unknown field ${quoted(unknown)}`)
  const { signature, events, ...header } = fields
  if (header.format !== JOURNAL_FORMAT || header.version !== JOURNAL_VERSION) throw refused('unknown format or version')
  if (header.runtime !== RUNTIME_VERSION) {
    const runtime = typeof header.runtime === 'string' ? quoted(header.runtime) : 'no version'
    throw refused(`recorded by runtime ${runtime}, this is ${RUNTIME_VERSION}`)
  }
  if ((header.engine ?? null) !== engine) {
    throw refused(`it records a run of ${header.engine === undefined ? 'the V8 runtime' : `engine ${quoted(String(header.engine))}`}`)
  }
  if (header.programHash !== sha256(request.program)) throw refused('it records another program')
  if (header.bindingsHash !== bindingsHash(request.bindings)) throw refused('it records other binding names')
  if ((header.scopeHash ?? null) !== checked.scopeHash) throw refused('its scope does not match')
  if (!Array.isArray(events)) throw refused('it has no events')
  if (events.length > checked.maxEvents) throw refused(`it has more than ${checked.maxEvents} events`)
  let measured
  try {
    measured = canonicalText(events, checked.maxBytes)
  } catch {
    throw refused('its events cannot be read')
  }
  if (measured === undefined) throw refused(`its events pass ${checked.maxBytes} bytes`)
  const { text: eventsText, bytes: eventBytes } = measured
  if (checked.secret !== undefined) {
    let expected
    try {
      expected = sign({ ...header, events }, checked.secret, eventsText)
    } catch {
      throw refused('it cannot be read as JSON')
    }
    if (typeof signature !== 'string' || signature.length !== expected.length ||
      !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
      throw refused('its signature does not match')
    }
  } else if (signature !== undefined) {
    throw refused('it is signed, and no secret was given to check it')
  }
  if (typeof header.seed !== 'string' || !SEED.test(header.seed)) throw refused('its seed is not valid')
  if (typeof header.runId !== 'string' || !SEED.test(header.runId)) throw refused('its run id is not valid')
  if (typeof header.completed !== 'boolean') throw refused('it does not say whether its run completed')
  if (!Number.isSafeInteger(header.startTime)) throw refused('its start time is not valid')
  if (typeof header.spentMs !== 'number' || !(header.spentMs >= 0)) throw refused('its spent time is not valid')
  const read = JSON.parse(eventsText)
  let previousTime = 0
  read.forEach((event, index) => {
    checkEvent(event, index, previousTime)
    previousTime = event.t
  })
  return { journal: { ...header, events: read }, eventsText, eventBytes }
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

/** Why a run no longer does what its journal recorded, as the run's exception says it. */
export const divergence = (index, expected, found) =>
  `the run diverged from its journal at event ${index}: expected ${describeEvent(expected)}, found ${found}`

/** An event, as a divergence names it; `undefined` is the journal's end. */
export function describeEvent(event) {
  if (event === undefined) return 'the end of the journal'
  switch (event.type) {
    case 'call': return `call ${event.id}, ${event.global}.${event.name} with arguments ${event.argsHash}`
    case 'timer': return `timer ${event.id}`
    default: return `${event.type} to call ${event.id}`
  }
}

/**
 * One attempt of a durable run, whatever runs it: its options and the journal it was given,
 * checked; the journal it grows, within its caps; and that journal, signed, when it ends.
 * `engine` names what runs a run when it is not the V8 runtime: a journal records it, and only
 * its own engine replays it.
 */
export class DurableJournal {
  constructor({ request, options, journal, replayOnly, engine = null }) {
    const checked = checkOptions(options)
    const given = journal === undefined ? undefined : checkJournal(journal, request, checked, engine)
    this.checked = checked
    this.request = request
    this.replayOnly = replayOnly
    /** Pending id to the caller's resolution, set by `resume` once they are checked. */
    this.resolutions = new Map()
    /** The canonical text of the events given, as checked: what is replayed. */
    this.eventsText = given?.eventsText ?? '[]'
    this.base = given?.journal ?? {
      format: JOURNAL_FORMAT,
      version: JOURNAL_VERSION,
      runtime: RUNTIME_VERSION,
      ...(engine === null ? {} : { engine }),
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
    /**
     * With a secret, the canonical text of each event this attempt recorded, made as it came (the
     * host waits on the run meanwhile): what is signed.
     */
    this.eventTexts = []
    this.bytes = given?.eventBytes ?? 2
    this.payloads = new Map(pendingOf(this.base).map(({ id, payload }) => [id, payload]))
    this.suspended = false
    this.failure = undefined
    /** Wall time from the program's start until the whole journal was replayed; 0 for a fresh run. */
    this.replayMs = 0
  }

  /** Ends the attempt early as `failure`, keeping what the program printed. */
  stop(failure) {
    this.failure ??= failure
    this.abort(failure)
  }

  /** Ends the run that makes this attempt: the engine's own. */
  abort() {}

  /** Records `event`, checked against the journal so far; throws if it is malformed. */
  record(event) {
    checkEvent(event, this.events.length, this.events.at(-1)?.t ?? 0)
    if (this.checked.secret === undefined) {
      this.bytes += jsonBytes(event) + 1
    } else {
      const { text, bytes } = canonicalText(event)
      this.bytes += bytes + 1
      this.eventTexts.push(text)
    }
    this.events.push(event)
  }

  /** Whether the journal is within its caps; past one, the attempt stops. */
  withinCaps() {
    if (this.events.length > this.checked.maxEvents) {
      this.stop(`the durable journal passed its cap of ${this.checked.maxEvents} events`)
    } else if (this.bytes > this.checked.maxBytes) {
      this.stop(`the durable journal passed its cap of ${this.checked.maxBytes} bytes`)
    } else {
      return true
    }
    return false
  }

  /**
   * What the attempt gives once its run settled as `result` (`{ logs, value?, error? }`), having
   * spent `spentMs`: completed, or suspended with the calls that wait; `usage` as the engine counts it.
   */
  outcome(result, spentMs, usage) {
    const completed = !(this.suspended && this.failure === undefined)
    // A replay gives its journal back as it was given (re-signed to the same signature).
    const journal = this.replayOnly ? this.journal(this.base.spentMs, this.base.completed) : this.journal(spentMs, completed)
    if (!completed) return { status: 'suspended', journal, pending: pendingOf(journal), logs: result.logs, usage }
    const settled = this.failure === undefined ? result : { logs: result.logs, error: { kind: 'exception', message: this.failure } }
    return { status: 'completed', result: settled, journal, usage }
  }

  /** The journal as it stands after this attempt, which spent `spentMs` and `completed` or not. */
  journal(spentMs, completed) {
    const body = { ...this.base, events: this.events, spentMs, completed }
    if (this.checked.secret === undefined) return body
    const recorded = this.eventTexts.join(',')
    const given = this.eventsText.slice(1, -1)
    const eventsText = `[${given}${given !== '' && recorded !== '' ? ',' : ''}${recorded}]`
    return { ...body, signature: sign(body, this.checked.secret, eventsText) }
  }
}

/**
 * One attempt of a durable run in the V8 runtime: the plan for the isolate's start, and the
 * host's end of the control namespace.
 */
export class DurableAttempt extends DurableJournal {
  constructor(args) {
    super(args)
    /** Calls that waited for approval and were called again in this attempt: never twice. */
    this.calledAgain = new Set()
    this.run = undefined
    this.names = undefined
  }

  /** The start JSON for the isolate: its namespaces, and the journal to replay. */
  namespacesJson(described, names) {
    this.names = names
    const head = JSON.stringify({
      namespaces: described,
      durable: {
        seed: this.base.seed,
        startTime: this.base.startTime,
        replayOnly: this.replayOnly,
        control: described.length,
        maxEvents: this.checked.maxEvents,
      },
    })
    // The events' text as it was checked and signed, spliced in rather than written again.
    return `${head.slice(0, -2)},"events":${this.eventsText}}}`
  }

  attach(run) {
    this.run = run
  }

  abort(failure) {
    this.run?.abort(failure)
  }

  /**
   * The control namespace: `{ events, call?, done?, suspend?, replayed? }` from the isolate. Its
   * tagged answer, or a promise of it while a binding call is served.
   */
  control = (argsJson) => {
    let message
    try {
      message = JSON.parse(argsJson)
      checkMessage(message)
      for (const event of message.events) this.record(event)
    } catch (error) {
      this.stop(`the durable journal could not record an event: ${error.message}`)
    }
    this.withinCaps()
    if (message?.replayed !== undefined) this.replayMs = message.replayed
    // The isolate ends the attempt itself once this is answered.
    if (message?.suspend && this.failure === undefined) this.suspended = true
    if (message?.call === undefined) return 'Vnull'
    // An attempt that has failed calls no more bindings.
    if (this.failure !== undefined) return rejection(this.failure)
    return this.serve(message.call)
  }

  /** A binding call's tagged answer, or a promise of it. */
  serve([id, namespaceIndex, nameIndex, argsJson, again]) {
    if (this.replayOnly) return rejection('a replay calls no binding')
    let context
    if (again) {
      // A call that waited for approval: called again once, only once the caller has resolved it, and
      // only with the arguments its journal records.
      // Only a call the given journal left waiting is asked for again.
      const recorded = this.base.events.find((event) => event.type === 'call' && event.id === id)
      if (!this.payloads.has(id) || this.calledAgain.has(id) || recorded?.argsHash !== sha256(argsJson)) {
        this.stop(`the durable run asked again for call ${id}, which is not waiting for approval with these arguments`)
        return rejection(this.failure)
      }
      if (!this.resolutions.has(id)) return `V${JSON.stringify({ s: this.payloads.get(id) ?? null })}`
      this.calledAgain.add(id)
      context = { id, runId: this.base.runId, payload: this.payloads.get(id) ?? null, resolution: this.resolutions.get(id) }
    }
    const outcome = invokeBinding(this.request.bindings, this.names, namespaceIndex, nameIndex, argsJson, context)
    return 'failure' in outcome ? rejection(outcome.failure) : outcome.then((settled) => this.answerOf(id, settled))
  }

  /** The tagged answer to call `id`, whose binding settled as `outcome`. */
  answerOf(id, outcome) {
    if ('failure' in outcome) return rejection(outcome.failure)
    if (outcome.value instanceof Suspension) {
      this.payloads.set(id, JSON.parse(outcome.value.text))
      return `V{"s":${outcome.value.text}}`
    }
    const json = losslessJsonText(outcome.value)
    if (json === undefined) return rejection('binding resolution must be lossless JSON')
    // With its keys in canonical order, as a replay gives it from the journal.
    return `V{"v":${canonicalText(JSON.parse(json)).text}}`
  }
}

/** Checks `resolutions` (pending id to JSON value) against the journal's pending calls. */
export function checkResolutions(journal, resolutions) {
  const notAnObject = () => misuse('resolutions must be an object from pending call id to value')
  if (resolutions === null || typeof resolutions !== 'object') throw notAnObject()
  const pending = new Set(pendingOf(journal).map(({ id }) => id))
  let isArray
  let entries
  try {
    isArray = Array.isArray(resolutions)
    // Read once: a getter or a proxy's trap runs here, and what it gave is what is checked.
    if (!isArray) entries = Object.entries(resolutions)
  } catch (error) {
    throw misuse(`resolutions could not be read: ${describeThrown(error, 'an unrenderable value')}`)
  }
  if (isArray) throw notAnObject()
  if (journal.completed || pending.size === 0) throw misuse('the journal has no pending calls to resume')
  const checked = new Map()
  for (const [key, value] of entries) {
    const id = Number(key)
    if (!pending.has(id) || String(id) !== key) throw misuse(`no pending call has id ${quoted(key)}`)
    if (losslessJsonText(value) === undefined) throw misuse(`the resolution of call ${key} must be JSON`)
    checked.set(id, value)
  }
  return checked
}
