// Host side of the lossless-JSON rule, for binding resolutions: the JSON text of a value that
// JSON carries exactly, or undefined. Iterative, and each property is read exactly once.
import { types } from 'node:util'
import { nextTurn, turnUsed } from './turns.js'

const exotic = [
  types.isProxy, types.isBoxedPrimitive, types.isDate, types.isRegExp, types.isMap, types.isSet,
  types.isWeakMap, types.isWeakSet, types.isPromise, types.isAnyArrayBuffer, types.isArrayBufferView,
  types.isNativeError, types.isGeneratorObject, types.isMapIterator, types.isSetIterator,
  types.isModuleNamespaceObject, types.isArgumentsObject, types.isExternal,
]
const nativeObjectSource = Function.prototype.toString.call(Object)
const isEnumerable = Function.prototype.call.bind(Object.prototype.propertyIsEnumerable)

/** Object.prototype of this realm, or of another one (values made with `vm` are fine). */
function isObjectPrototype(proto) {
  if (proto === Object.prototype) return true
  if (proto === null || typeof proto !== 'object' || Object.getPrototypeOf(proto) !== null) return false
  const ctor = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value
  return typeof ctor === 'function' && ctor.prototype === proto &&
    Function.prototype.toString.call(ctor) === nativeObjectSource
}

/** Array.prototype of any realm: itself an array, whose prototype is an Object.prototype. */
function isArrayPrototype(proto) {
  return proto === Array.prototype ||
    (Array.isArray(proto) && !types.isProxy(proto) && isObjectPrototype(Object.getPrototypeOf(proto)))
}

/** An integer past 2^53 as the digits of the double it is (`String` rounds them: 2^60 reads
 * `1152921504606847000`), for a reader whose integers are exact (Python). */
export const exactIntegerText = (value) => Number.isInteger(value) && !Number.isSafeInteger(value) ? BigInt(value).toString() : String(value)

function scalarText(value, exactIntegers) {
  switch (typeof value) {
    case 'string': return JSON.stringify(value)
    case 'boolean': return value ? 'true' : 'false'
    case 'number':
      if (!Number.isFinite(value) || Object.is(value, -0)) return undefined
      return exactIntegers ? exactIntegerText(value) : String(value)
    default: return value === null ? 'null' : undefined
  }
}

/** One open container: its keys (or length) and how far the walk has come. */
function open(value) {
  // An array has no other internal slots: only a proxy can pass for one.
  const array = Array.isArray(value)
  if (array ? types.isProxy(value) : exotic.some((test) => test(value))) return undefined
  const proto = Object.getPrototypeOf(value)
  const keys = Reflect.ownKeys(value)
  if (array) {
    if (!isArrayPrototype(proto) || keys.length !== value.length + 1) return undefined
    return { value, array: true, keys: undefined, length: value.length, next: 0 }
  }
  if (proto !== null && !isObjectPrototype(proto)) return undefined
  for (const key of keys) {
    if (typeof key !== 'string' || !isEnumerable(value, key)) return undefined
  }
  return { value, array: false, keys, length: keys.length, next: 0 }
}

const isContainer = (value) => value !== null && (typeof value === 'object' || typeof value === 'function')

/** Values walked between two pauses of the walk. */
const PAUSE_INTERVAL = 1024

/**
 * The JSON text of `root`, or undefined if JSON cannot carry it exactly. Throws a RangeError if
 * the text would be longer than a string can hold.
 */
export function losslessJsonText(root) {
  const walk = walkLossless(root)
  for (;;) {
    const step = walk.next()
    if (step.done) return step.value
  }
}

/**
 * `losslessJsonText` for answers, within binding work's share of each turn of the event loop (see
 * turns.js; a caller's abort timer waited 400 ms behind 32 answers of 100 000-deep arrays): hands
 * `done` the text, or undefined once `abandoned()`, asked at each pause, says nobody wants it any
 * more; or `failed` the RangeError of a text too long. At once, when the turn has room for the walk.
 * With `exactIntegers`, an integer past 2^53 is written as its exact digits.
 */
export function losslessJsonTextInTurns(root, abandoned, done, failed, { exactIntegers = false } = {}) {
  const walk = walkLossless(root, exactIntegers)
  const resume = () => {
    let text
    try {
      for (;;) {
        if (turnUsed()) {
          nextTurn().then(resume)
          return
        }
        const step = walk.next()
        if (step.done) {
          text = step.value
          break
        }
        if (abandoned()) break
      }
    } catch (error) {
      failed(error)
      return
    }
    done(text)
  }
  resume()
}

/** The walk behind both: pauses (yields) every PAUSE_INTERVAL values, returns the text. */
function* walkLossless(root, exactIntegers = false) {
  try {
    if (!isContainer(root)) return scalarText(root, exactIntegers)
    if (typeof root === 'function') return undefined
    let frame = open(root)
    if (frame === undefined) return undefined
    let text = frame.array ? '[' : '{'
    const outer = []
    const ancestors = new Set([root])
    let walked = 0
    for (;;) {
      if (frame.next === frame.length) {
        text += frame.array ? ']' : '}'
        ancestors.delete(frame.value)
        frame = outer.pop()
        if (frame === undefined) return text
        continue
      }
      if (++walked % PAUSE_INTERVAL === 0) yield
      const index = frame.next++
      if (index > 0) text += ','
      let child
      if (frame.array) {
        child = frame.value[index]
      } else {
        const key = frame.keys[index]
        text += JSON.stringify(key) + ':'
        child = frame.value[key]
      }
      if (isContainer(child)) {
        if (typeof child === 'function' || ancestors.has(child)) return undefined
        const inner = open(child)
        if (inner === undefined) return undefined
        ancestors.add(child)
        text += inner.array ? '[' : '{'
        outer.push(frame)
        frame = inner
      } else {
        const scalar = scalarText(child, exactIntegers)
        if (scalar === undefined) return undefined
        text += scalar
      }
    }
  } catch (error) {
    // Past the longest string V8 makes (2^29 - 24 characters): the value may be JSON, but its text
    // cannot be; said as such, not as a lossy value.
    if (error instanceof RangeError && error.message === 'Invalid string length') {
      throw new RangeError('the value\'s JSON text would be longer than a string can hold (2^29 - 24 characters)')
    }
    // A getter threw while the value was read.
    return undefined
  }
}
