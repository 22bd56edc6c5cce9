// The host's side of an interpreter's channel: JSON lines, each read as hostile. A line is parsed
// only when it is short enough and every number in it is one JavaScript holds exactly; a frame is
// rebuilt field by field, and anything else ends the interpreter.
import { isAscii } from 'node:buffer'
import { nextTurn } from '../turns.js'
import { MAX_FRAME_BYTES } from './config.js'

/** A decimal's significant digits and the power of ten just past its first: `-0.0120e1` and `0.12`
 * both give `12 0`. */
function decimal(text) {
  let digits = ''
  let point = -1
  let exponentAt = text.length
  let leadingZeros = 0
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at)
    if (code === 101 || code === 69) {
      exponentAt = at
      break
    }
    if (code === 46) point = digits.length + leadingZeros
    else if (code >= 48 && code <= 57) {
      if (digits === '' && code === 48) leadingZeros++
      else digits += text[at]
    }
  }
  const wholeLength = point === -1 ? digits.length + leadingZeros : point
  let end = digits.length
  while (end > 0 && digits.charCodeAt(end - 1) === 48) end--
  const exponent = exponentAt < text.length ? Number(text.slice(exponentAt + 1)) : 0
  return `${digits.slice(0, end)} ${wholeLength - leadingZeros + exponent}`
}

/** Whether `code` (a UTF-16 unit) may continue a JSON number: a digit, `.`, `e`, `E`, `+`, `-`. */
const inNumber = (code) => (code >= 48 && code <= 57) || code === 46 || code === 101 || code === 69 || code === 43 || code === 45

/** Why `line` holds a number JSON.parse would change (rounded, infinite, or -0), or undefined. An
 * honest process writes each float as its shortest form, which is JavaScript's shortest form of
 * the same double; any other digits were rounded. A decimal of at most 15 significant digits is
 * its double's shortest form (IEEE 754's 15-digit round trip), so only longer ones are compared.
 * One pass, left to right: a string is skipped to its closing quote (an unclosed one ends the
 * scan, and JSON.parse refuses the line). */
export function inexactNumber(line) {
  const steps = inexactNumberSteps(line)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/** Characters `inexactNumberSteps` checks between two pauses. */
const CHECKED_PER_STEP = 1 << 20

/** `inexactNumber`, pausing (yielding) every CHECKED_PER_STEP characters. */
function* inexactNumberSteps(line) {
  let pauseAt = CHECKED_PER_STEP
  for (let at = 0; at < line.length; at++) {
    if (at >= pauseAt) {
      pauseAt = at + CHECKED_PER_STEP
      yield
    }
    const char = line.charCodeAt(at)
    if (char === 34) {
      for (at++; at < line.length && line.charCodeAt(at) !== 34; at++) {
        if (line.charCodeAt(at) === 92) at++
      }
      continue
    }
    if (char !== 45 && (char < 48 || char > 57)) continue
    let end = at
    let significant = 0
    let leading = true
    let integral = true
    let exponent = false
    for (; end < line.length && inNumber(line.charCodeAt(end)); end++) {
      const code = line.charCodeAt(end)
      if (code === 101 || code === 69) exponent = true
      if (code === 46 || code === 101 || code === 69) integral = false
      if (exponent || code < 48 || code > 57) continue
      if (code !== 48) leading = false
      if (!leading) significant++
    }
    const token = line.slice(at, end)
    at = end - 1
    const number = Number(token)
    if (!Number.isFinite(number)) return `a number out of range (${token.slice(0, 40)})`
    if (Object.is(number, -0)) return 'a negative zero'
    if (significant <= 15) continue
    if (integral) {
      if (!Number.isSafeInteger(number) && BigInt(token) !== BigInt(number)) {
        return `an integer a JavaScript number cannot hold exactly (${token.slice(0, 40)})`
      }
    } else if (decimal(token) !== decimal(String(number))) {
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
  return frameOf(line)
}

/** `readFrame` for a long line: its numbers are checked a piece at a time, between turns of the
 * event loop, so that a line made to be slow to check holds the host a moment at a time. */
export async function readFrameInTurns(line) {
  const steps = inexactNumberSteps(line)
  for (;;) {
    const step = steps.next()
    if (step.done) {
      if (step.value !== undefined) throw new Error(`a frame with ${step.value}`)
      return frameOf(line)
    }
    await nextTurn()
  }
}

/** The frame `line` holds, its numbers checked. */
function frameOf(line) {
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
    case 'taken':
      return { type: 'taken' }
    case 'log':
      if (raw.truncated === true) return { type: 'log', truncated: true }
      if (!isText(raw.text)) break
      return { type: 'log', text: raw.text, open: raw.open === true }
    case 'call':
      if (!Number.isSafeInteger(raw.id) || !isText(raw.global) || !isText(raw.name) || !Object.hasOwn(raw, 'args')) break
      return { type: 'call', id: raw.id, global: raw.global, name: raw.name, args: raw.args, lineLength: line.length }
    // A durable run's (engine 'monty'): a sleep for the host to end at `due` on the run's
    // clock, and how many lines it has taken when it has nothing left to run.
    case 'sleep':
      if (!Number.isSafeInteger(raw.id) || raw.id <= 0 || typeof raw.due !== 'number' || !(raw.due >= 0)) break
      return { type: 'sleep', id: raw.id, due: raw.due }
    case 'wait':
      if (!Number.isSafeInteger(raw.taken) || raw.taken < 0) break
      return { type: 'wait', taken: raw.taken }
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
  const frame = JSON.parse(line) ?? {}
  switch (frame.type) {
    // Its layers were read when the runtime was made (the probe's `ready`, through readFrame).
    case 'ready':
      return { type: 'ready' }
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
