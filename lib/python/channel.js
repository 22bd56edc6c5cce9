// The host's side of an interpreter's channel: JSON lines, each read as hostile. A line is parsed
// only when it is short enough and every number in it is one JavaScript holds exactly; a frame is
// rebuilt field by field, and anything else ends the interpreter.
import { isAscii } from 'node:buffer'
import { MAX_FRAME_BYTES } from './config.js'

/** A decimal's significant digits and the power of ten just past its first: `-0.0120e1` and `0.12`
 * both give `12 0`. */
function decimal(text) {
  const [mantissa, exponent = '0'] = text.replace(/^-/, '').split(/[eE]/)
  const [whole, fraction = ''] = mantissa.split('.')
  const all = whole + fraction
  const digits = all.replace(/^0+/, '')
  return `${digits.replace(/0+$/, '')} ${whole.length - (all.length - digits.length) + Number(exponent)}`
}

/** Why `line` holds a number JSON.parse would change (rounded, infinite, or -0), or undefined. An
 * honest process writes each float as its shortest form, which is JavaScript's shortest form of
 * the same double; any other digits were rounded. */
export function inexactNumber(line) {
  const numbers = /"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*/g
  for (let match; (match = numbers.exec(line)) !== null;) {
    const token = match[0]
    if (token.startsWith('"')) continue
    const number = Number(token)
    if (!Number.isFinite(number)) return `a number out of range (${token.slice(0, 40)})`
    if (Object.is(number, -0)) return 'a negative zero'
    if (/^-?\d+$/.test(token)) {
      if (!Number.isSafeInteger(number) && BigInt(token) !== BigInt(number)) {
        return `an integer a JavaScript number cannot hold exactly (${token.slice(0, 40)})`
      }
    } else if (number !== 0 && decimal(token) !== decimal(String(number))) {
      return `a number a JavaScript number cannot hold exactly (${token.slice(0, 40)})`
    }
  }
  return undefined
}

const isText = (value) => typeof value === 'string'

/** One frame from `line`, rebuilt; throws with what is wrong. */
export function readFrame(line) {
  const inexact = inexactNumber(line)
  if (inexact !== undefined) throw new Error(`a frame with ${inexact}`)
  let raw
  try {
    raw = JSON.parse(line)
  } catch {
    throw new Error('a frame that is not JSON')
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error('a frame that is not an object')
  switch (raw.type) {
    case 'ready':
      if (!Array.isArray(raw.sandbox) || !raw.sandbox.every((layer) => Array.isArray(layer) && isText(layer[0]) && (layer[1] === null || isText(layer[1])))) break
      return { type: 'ready', sandbox: raw.sandbox.map(([name, missing]) => [name, missing]) }
    case 'log':
      if (raw.truncated === true) return { type: 'log', truncated: true }
      if (!isText(raw.text)) break
      return { type: 'log', text: raw.text, open: raw.open === true }
    case 'call':
      if (!Number.isSafeInteger(raw.id) || !isText(raw.global) || !isText(raw.name) || !Object.hasOwn(raw, 'args')) break
      return { type: 'call', id: raw.id, global: raw.global, name: raw.name, args: raw.args, lineLength: line.length }
    case 'done': {
      // `null` is Python's None, which an honest process never sends; the line's length bounds
      // the value's bytes.
      if (raw.error === undefined) {
        return raw.value === undefined || raw.value === null ? { type: 'done' } : { type: 'done', value: raw.value, lineLength: line.length }
      }
      const { kind, message } = raw.error ?? {}
      if (!['exception', 'invalid-output', 'output-limit'].includes(kind) || !isText(message)) break
      return { type: 'done', error: { kind, message } }
    }
  }
  throw new Error(`a malformed ${isText(raw.type) ? JSON.stringify(raw.type.slice(0, 40)) : ''} frame`.replace('  ', ' '))
}

/** One frame from the zygote's `line`: `ready`, `forked` or `exit`; throws with what is wrong. */
export function readZygoteFrame(line) {
  const frame = line.startsWith('{"type":"ready"') ? readFrame(line) : JSON.parse(line)
  switch (frame.type) {
    case 'ready':
      return frame
    case 'forked':
      if (Number.isSafeInteger(frame.pid)) return { type: 'forked', pid: frame.pid }
      break
    case 'exit':
      if (Number.isSafeInteger(frame.pid) && (Number.isSafeInteger(frame.code) || Number.isSafeInteger(frame.signal))) {
        return { type: 'exit', pid: frame.pid, code: frame.code ?? null, signal: frame.signal ?? null }
      }
      break
  }
  throw new Error('a malformed frame')
}

/** Splits what an interpreter writes into lines, refusing one longer than a frame may be. */
export class LineReader {
  #pending = []
  #pendingBytes = 0

  /** The complete lines in `chunk` (a Buffer), with what came before it. An honest process
   * writes ASCII only: anything else is refused, never decoded. */
  push(chunk) {
    const lines = []
    let start = 0
    for (let end; (end = chunk.indexOf(10, start)) !== -1; start = end + 1) {
      this.#pending.push(chunk.subarray(start, end))
      const line = Buffer.concat(this.#pending)
      if (!isAscii(line)) throw new Error('a frame that is not ASCII')
      lines.push(line.toString('latin1'))
      this.#pending = []
      this.#pendingBytes = 0
    }
    if (start < chunk.length) {
      this.#pending.push(chunk.subarray(start))
      this.#pendingBytes += chunk.length - start
    }
    if (this.#pendingBytes > MAX_FRAME_BYTES) throw new Error(`a frame longer than ${MAX_FRAME_BYTES} bytes`)
    return lines
  }
}
