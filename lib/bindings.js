// Binding namespaces: the seam's misuse checks, and the host side of every binding call.
import { AsyncLocalStorage } from 'node:async_hooks'
import { types } from 'node:util'
import {
  DUNDER_MEMBER,
  PORTABLE_RESERVED_WORDS,
  RESERVED_BINDING_GLOBALS,
  RESERVED_ERROR_MEMBERS,
} from '@deepseek-ai/dsh-code-runtime'
import { PREFIX } from './config.js'
import { losslessJsonTextInTurns } from './lossless.js'
import { inTurn } from './turns.js'

/** The seam does not export its identifier rule; this is the same pattern. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

const misuse = (message) => new Error(`${PREFIX} ${message}`)
const usable = (name) => typeof name === 'string' && IDENTIFIER.test(name) && !PORTABLE_RESERVED_WORDS.has(name)

/**
 * Rejects caller misuse in the seam's order: every global first, then every error class.
 * @param {import('@deepseek-ai/dsh-code-runtime').CodeBindingNamespace[]} namespaces
 */
export function checkBindings(namespaces) {
  const globals = new Set()
  for (const { global } of namespaces) {
    if (!usable(global)) throw misuse(`binding global ${JSON.stringify(global)} is not a usable identifier`)
    if (RESERVED_BINDING_GLOBALS.has(global)) throw misuse(`reserved binding global ${JSON.stringify(global)}`)
    if (globals.has(global)) throw misuse(`duplicate binding global ${JSON.stringify(global)}`)
    globals.add(global)
  }
  const injected = new Set(globals)
  for (const { errorClass } of namespaces) {
    if (errorClass === undefined) continue
    const { name, memberNameProperty } = errorClass
    if (!usable(name)) throw misuse(`binding error class ${JSON.stringify(name)} is not a usable identifier`)
    if (RESERVED_BINDING_GLOBALS.has(name)) throw misuse(`reserved binding global ${JSON.stringify(name)}`)
    if (injected.has(name)) throw misuse(`duplicate injected global ${JSON.stringify(name)}`)
    injected.add(name)
    if (typeof memberNameProperty !== 'string' || memberNameProperty === '' ||
      RESERVED_ERROR_MEMBERS.has(memberNameProperty) || DUNDER_MEMBER.test(memberNameProperty)) {
      throw misuse(`binding error member property ${JSON.stringify(memberNameProperty)} is not usable`)
    }
  }
}

/** The resumption a binding call sees; set afresh for every call, so none leaks into another. */
const resumed = new AsyncLocalStorage()

/**
 * Inside a binding called again by a durable run's `resume`: `{ id, runId, payload, resolution }`
 * for the call it resumes; `undefined` anywhere else, including every binding of any run that the
 * resumed binding starts.
 */
export function resumption() {
  return resumed.getStore()
}

/** A thrown value as text: an Error's message, anything else as text; `fallback` if neither renders. */
export function describeThrown(error, fallback) {
  try {
    return error instanceof Error || types.isNativeError(error) ? String(error.message) : String(error)
  } catch {
    return fallback
  }
}

/** What a failed host call tells the program. */
export const describeFailure = (error) => describeThrown(error, 'binding failed with an unrenderable value')

const failure = (message) => 'E' + JSON.stringify(message)

/**
 * Calls the host function behind `namespaceIndex`, `nameIndex` (into `names`, each namespace's
 * function names in order) with the program's arguments: `{ returned }`, what it returned (a value
 * or a promise), or `{ failure }`, the message the program's rejection carries. The function, and
 * everything it starts, sees `resumption` (undefined but for a durable run's resumed call), never
 * the resumption of whatever called the runtime.
 */
function startBinding(namespaces, names, namespaceIndex, nameIndex, argsJson, resumption) {
  return startBindingWith(namespaces, names, namespaceIndex, nameIndex, () => JSON.parse(argsJson), resumption)
}

/** `startBinding` with the argument as a value, read by `argument()`. */
function startBindingWith(namespaces, names, namespaceIndex, nameIndex, argument, resumption) {
  try {
    const { global, functions } = namespaces[namespaceIndex]
    const name = names[namespaceIndex][nameIndex]
    const fn = Object.hasOwn(functions, name) ? functions[name] : undefined
    if (typeof fn !== 'function') return { failure: `unknown binding ${JSON.stringify(`${global}.${name}`)}` }
    const args = [argument()]
    return { returned: resumed.run(resumption, () => Reflect.apply(fn, undefined, args)) }
  } catch (error) {
    return { failure: describeFailure(error) }
  }
}

/**
 * `startBinding`, settled as `await` would settle it: `{ value }` as it resolved, or `{ failure }`;
 * a promise of either, or the failure itself when the call could not start.
 */
export function invokeBinding(namespaces, names, namespaceIndex, nameIndex, argsJson, resumption) {
  return invokeBindingWith(namespaces, names, namespaceIndex, nameIndex, () => JSON.parse(argsJson), resumption)
}

/** `invokeBinding` with the argument as a value, read by `argument()`. */
export function invokeBindingWith(namespaces, names, namespaceIndex, nameIndex, argument, resumption) {
  const started = startBindingWith(namespaces, names, namespaceIndex, nameIndex, argument, resumption)
  if ('failure' in started) return started
  try {
    return Promise.resolve(started.returned).then((value) => ({ value }), (error) => ({ failure: describeFailure(error) }))
  } catch (error) {
    // A getter of a promise's `constructor`.
    return { failure: describeFailure(error) }
  }
}

/**
 * The program side's view of the namespaces, and the host function that serves the calls of `run`
 * (a NativeRun). Each call is answered through `run.answer(call, tagged)` with tagged JSON text:
 * `V<value>` or `E<message>`. Calls to the namespace after the last, which no program sees, go to
 * `control` (a durable run's), which resolves the tagged text itself. Once `run.stopped()`, the run
 * is settled for its caller: calls still queued are dropped before their arguments are parsed (the
 * control namespace's still record what the run did). Calls are served, in order, and their answers
 * encoded within binding work's share of each turn of the event loop (turns.js); an answer is
 * abandoned once `run.ended()`, however the run ended.
 */
export function planBindings(namespaces, run, control) {
  const names = namespaces.map(({ functions }) => Object.keys(functions))
  const described = namespaces.map(({ global, errorClass }, index) =>
    [global, names[index], errorClass?.name ?? null, errorClass?.memberNameProperty ?? null])
  const params = [
    ...namespaces.map(({ global }) => global),
    ...namespaces.filter(({ errorClass }) => errorClass).map(({ errorClass }) => errorClass.name),
    'console',
  ]
  // Outside any resumption: a run started inside a resumed binding is served with none, whatever
  // its answers' getters or thenables call.
  const dispatch = (call, namespaceIndex, nameIndex, argsJson) => resumed.exit(() => inTurn(() => {
    const answer = (tagged) => run.answer(call, tagged)
    const fail = (error) => answer(failure(describeFailure(error)))
    if (namespaceIndex === namespaces.length && control) {
      // The tagged text at once, or a promise of it while a binding call is served.
      let reply
      try {
        reply = control(argsJson)
      } catch (error) {
        fail(error)
        return
      }
      if (typeof reply === 'string') answer(reply)
      else reply.then(answer, fail)
      return
    }
    if (run.stopped()) return
    const started = startBinding(namespaces, names, namespaceIndex, nameIndex, argsJson)
    if ('failure' in started) {
      answer(failure(started.failure))
      return
    }
    const encode = (value) => losslessJsonTextInTurns(value, () => run.ended(), (json) =>
      answer(json === undefined ? failure('binding resolution must be lossless JSON') : 'V' + json), fail)
    // Awaited as `await` would: a thenable is followed, and an object is read after the microtasks
    // queued before its return. A getter of a promise's `constructor` can throw here.
    let settled
    try {
      settled = Promise.resolve(started.returned)
    } catch (error) {
      fail(error)
      return
    }
    settled.then(encode, fail)
  }))
  return { params, names, described, namespacesJson: JSON.stringify(described), dispatch }
}
