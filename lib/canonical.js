// Canonical JSON: every object's keys in sorted order, no white space, so that a journal signs and
// hashes the same after a store that reorders keys. Written without recursion, and as pieces, so
// that a value of any depth or size is measured, hashed or signed without a call stack or a copy
// of its whole text: a binding may answer an array nested 100 000 deep, which JSON.stringify and
// a recursive writer cannot turn into text.

import { exactIntegerText } from './lossless.js'

/** Text is handed to the sink in pieces of about this many characters. */
const PIECE = 1 << 16

const isObject = (value) => value !== null && typeof value === 'object'

/** A scalar's JSON text; a value JSON has no text for is refused rather than dropped. */
function scalarText(value) {
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
    case 'bigint':
      throw new TypeError(`a ${typeof value} is not JSON`)
    default:
      return JSON.stringify(value)
  }
}

/** `scalarText`, with an integer past 2^53 written as the exact digits of its double (Python's reading). */
const exactScalarText = (value) => (typeof value === 'number' ? exactIntegerText(value) : scalarText(value))

/**
 * Writes `value`'s canonical JSON to `sink(piece)` in order. Stops early, returning false, once
 * `sink` returns false, or before a string would take the text past `maxUnits` characters (so that
 * a long string past a budget is never copied); returns true when all of it was written. Throws a
 * TypeError for a value JSON cannot carry (undefined, a function, a symbol, a bigint).
 */
export function writeCanonical(value, sink, maxUnits = Infinity, scalar = scalarText) {
  let out = ''
  let units = 0
  const fits = (scalar) => typeof scalar !== 'string' || units + out.length + scalar.length + 2 <= maxUnits
  const emit = (text) => {
    out += text
    if (out.length < PIECE) return true
    const piece = out
    units += piece.length
    out = ''
    return sink(piece) !== false
  }
  // Each frame: the container, its keys (objects) or undefined (arrays), and the next index.
  const stack = []
  let frame
  const enter = (container) => {
    if (Array.isArray(container)) {
      frame = { container, keys: undefined, length: container.length, next: 0 }
      return emit('[')
    }
    const keys = Object.keys(container).sort()
    frame = { container, keys, length: keys.length, next: 0 }
    return emit('{')
  }
  if (!isObject(value)) {
    if (!fits(value) || !emit(scalar(value))) return false
  } else if (!enter(value)) {
    return false
  }
  while (frame !== undefined) {
    if (frame.next === frame.length) {
      if (!emit(frame.keys === undefined ? ']' : '}')) return false
      frame = stack.pop()
      continue
    }
    const index = frame.next++
    let prefix = index > 0 ? ',' : ''
    let child
    if (frame.keys === undefined) {
      child = frame.container[index]
    } else {
      const key = frame.keys[index]
      prefix += `${JSON.stringify(key)}:`
      child = frame.container[key]
    }
    if (isObject(child)) {
      if (!emit(prefix)) return false
      stack.push(frame)
      if (!enter(child)) return false
    } else if (!fits(child) || !emit(prefix + scalar(child))) {
      return false
    }
  }
  return out === '' || sink(out) !== false
}

/**
 * `value`'s canonical JSON `{ text, bytes }` (its UTF-8 bytes), or undefined once it passes
 * `maxBytes` bytes. With `exactIntegers`, an integer past 2^53 is written as its exact digits.
 */
export function canonicalText(value, maxBytes = Infinity, { exactIntegers = false } = {}) {
  const pieces = []
  let bytes = 0
  // A text's UTF-8 bytes are at least its UTF-16 units: a string too long is refused uncopied.
  const whole = writeCanonical(value, (piece) => {
    bytes += Buffer.byteLength(piece)
    if (bytes > maxBytes) return false
    pieces.push(piece)
    return true
  }, maxBytes, exactIntegers ? exactScalarText : scalarText)
  return whole ? { text: pieces.join(''), bytes } : undefined
}

/** The UTF-8 bytes of `value`'s JSON text, which canonical order does not change. */
export function jsonBytes(value) {
  try {
    // Native and fast for every value but the deepest.
    return Buffer.byteLength(JSON.stringify(value))
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
  }
  let bytes = 0
  writeCanonical(value, (piece) => {
    bytes += Buffer.byteLength(piece)
  })
  return bytes
}

/** Feeds `value`'s canonical JSON to `hash` (a node:crypto Hash or Hmac), piece by piece. */
export function updateCanonical(hash, value) {
  writeCanonical(value, (piece) => {
    hash.update(piece)
  })
  return hash
}
