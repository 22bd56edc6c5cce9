// Host side of the lossless-JSON rule, for binding resolutions: the JSON text of a value that
// JSON carries exactly, or undefined. Iterative, and each property is read exactly once.
import { types } from 'node:util'

const exotic = [
  types.isProxy, types.isBoxedPrimitive, types.isDate, types.isRegExp, types.isMap, types.isSet,
  types.isWeakMap, types.isWeakSet, types.isPromise, types.isAnyArrayBuffer, types.isArrayBufferView,
  types.isNativeError, types.isGeneratorObject, types.isMapIterator, types.isSetIterator,
  types.isModuleNamespaceObject, types.isArgumentsObject, types.isExternal,
]
const nativeObjectSource = Function.prototype.toString.call(Object)

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

function scalarText(value) {
  switch (typeof value) {
    case 'string': return JSON.stringify(value)
    case 'boolean': return value ? 'true' : 'false'
    case 'number': return Number.isFinite(value) && !Object.is(value, -0) ? String(value) : undefined
    default: return value === null ? 'null' : undefined
  }
}

/** One open container: its keys (or length) and how far the walk has come. */
function open(value) {
  if (exotic.some((test) => test(value))) return undefined
  const proto = Object.getPrototypeOf(value)
  const keys = Reflect.ownKeys(value)
  if (Array.isArray(value)) {
    if (!isArrayPrototype(proto) || keys.length !== value.length + 1) return undefined
    return { value, array: true, keys: undefined, length: value.length, next: 0 }
  }
  if (proto !== null && !isObjectPrototype(proto)) return undefined
  for (const key of keys) {
    if (typeof key !== 'string' || !Object.getOwnPropertyDescriptor(value, key).enumerable) return undefined
  }
  return { value, array: false, keys, length: keys.length, next: 0 }
}

export function losslessJsonText(root) {
  try {
    const out = []
    const stack = []
    const ancestors = new Set()
    let pending = root
    let hasPending = true
    for (;;) {
      if (hasPending) {
        hasPending = false
        if (pending !== null && (typeof pending === 'object' || typeof pending === 'function')) {
          if (typeof pending === 'function' || ancestors.has(pending)) return undefined
          const frame = open(pending)
          if (frame === undefined) return undefined
          out.push(frame.array ? '[' : '{')
          ancestors.add(pending)
          stack.push(frame)
        } else {
          const text = scalarText(pending)
          if (text === undefined) return undefined
          out.push(text)
        }
      }
      const frame = stack.at(-1)
      if (frame === undefined) return out.join('')
      if (frame.next === frame.length) {
        stack.pop()
        ancestors.delete(frame.value)
        out.push(frame.array ? ']' : '}')
        continue
      }
      if (frame.next > 0) out.push(',')
      const key = frame.array ? frame.next : frame.keys[frame.next]
      if (!frame.array) out.push(JSON.stringify(key), ':')
      frame.next += 1
      pending = frame.value[key]
      hasPending = true
    }
  } catch {
    // A getter threw while the value was read.
    return undefined
  }
}
