// The host's side of the helper's channel (src/helper/wire.rs has the format): frames of a
// little-endian u32 length, a tag byte and its fields. Frames from the helper are checked as
// untrusted input: a malformed one is an error, never a guess.

export const PROTOCOL = 2

/** The longest frame either side accepts (as the helper's MAX_FRAME_BYTES). */
const MAX_FRAME_BYTES = 2 ** 30

function frame(tag, fields) {
  const head = Buffer.allocUnsafe(5)
  head.writeUInt32LE(fields.length + 1, 0)
  head[4] = tag.charCodeAt(0)
  return Buffer.concat([head, fields])
}

/** `R`: a run, as the JSON engine::job::RunRequest reads (the addon's NativeRun takes the same). */
export const runFrame = (requestJson) => frame('R', Buffer.from(requestJson, 'utf8'))

/** `A`: the answer to binding call `call`, tagged (`V<json>` or `E<json message>`). */
export function answerFrame(call, tagged) {
  const text = Buffer.from(tagged, 'utf8')
  const fields = Buffer.allocUnsafe(4 + text.length)
  fields.writeUInt32LE(call, 0)
  text.copy(fields, 4)
  return frame('A', fields)
}

/** `S`: stop the run as `abort`, with `reason` (UTF-16, lone surrogates kept). */
export function abortFrame(reason) {
  return frame('S', Buffer.from(reason, 'utf16le'))
}

/** `D`: stop the run as `abort`, its runtime disposed of. */
export const disposeFrame = () => frame('D', Buffer.alloc(0))

/** Reads fields of one frame in order; any read past its end throws. */
class Fields {
  constructor(bytes) {
    this.bytes = bytes
    this.at = 0
  }

  take(length) {
    if (length > this.bytes.length - this.at) throw new Error('a frame shorter than its fields')
    const taken = this.bytes.subarray(this.at, this.at + length)
    this.at += length
    return taken
  }

  u32() { return this.take(4).readUInt32LE(0) }
  f64() { return this.take(8).readDoubleLE(0) }
  utf8() { return this.take(this.u32()).toString('utf8') }
  utf16() { return this.take(this.u32() * 2).toString('utf16le') }
  optional(read) { return this.take(1)[0] === 1 ? read() : undefined }
  rest() { return this.take(this.bytes.length - this.at) }

  end() {
    if (this.at !== this.bytes.length) throw new Error('a frame longer than its fields')
  }
}

const USAGE_KEYS = ['busyMs', 'wallMs', 'startupMs', 'bindingCalls', 'bindingWaitMs', 'heapPeakBytes', 'outputBytes']

/** One frame's body from the helper, as `{ tag, ... }`. */
function decode(body) {
  const tag = String.fromCharCode(body[0])
  const fields = new Fields(body.subarray(1))
  let decoded
  switch (tag) {
    case 'H': {
      decoded = { tag, ...JSON.parse(fields.rest().toString('utf8')) }
      break
    }
    case 'C':
      decoded = { tag, call: fields.u32(), namespace: fields.u32(), member: fields.u32(), argsJson: fields.rest().toString('utf8') }
      break
    case 'F': {
      const logs = Array.from({ length: fields.u32() }, () => fields.utf16())
      const settled = { logs, valueJson: fields.optional(() => fields.utf8()) }
      const failure = fields.optional(() => ({ kind: fields.utf8(), message: fields.utf16() }))
      if (failure) Object.assign(settled, failure)
      settled.usage = Object.fromEntries(USAGE_KEYS.map((key) => [key, fields.f64()]))
      decoded = { tag, settled }
      break
    }
    case 'T':
    case 'I':
      decoded = { tag }
      break
    default:
      throw new Error(`a frame tagged ${JSON.stringify(tag)}`)
  }
  fields.end()
  return decoded
}

/** Splits the helper's stdout into frames: `push(chunk)` returns the frames it completed. */
export class FrameReader {
  #pending = []
  #pendingBytes = 0

  push(chunk) {
    this.#pending.push(chunk)
    this.#pendingBytes += chunk.length
    const frames = []
    while (this.#pendingBytes >= 4) {
      if (this.#pending[0].length < 4) this.#pending = [Buffer.concat(this.#pending)]
      const length = this.#pending[0].readUInt32LE(0)
      if (length === 0 || length > MAX_FRAME_BYTES) throw new Error(`a frame of ${length} bytes`)
      // Joined only once the whole frame is here: a long frame arrives in many chunks.
      if (this.#pendingBytes < 4 + length) break
      const buffered = this.#pending.length === 1 ? this.#pending[0] : Buffer.concat(this.#pending)
      frames.push(decode(buffered.subarray(4, 4 + length)))
      const rest = buffered.subarray(4 + length)
      this.#pending = rest.length > 0 ? [rest] : []
      this.#pendingBytes = rest.length
    }
    return frames
  }
}
