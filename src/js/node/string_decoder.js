// node:string_decoder. A multi-byte character split across writes is held back until it is
// complete, as Node's decoder holds it: UTF-8 by its lead byte, UTF-16LE by code unit and
// surrogate pair, base64 by 3-byte group.

import { core, primordials } from 'ext:core/mod.js';
import { TextDecoder } from 'ext:dsh/web.js';
import { Buffer } from 'node:buffer';
import { invalidArgType, nodeError } from 'ext:dsh/node_errors.js';

const {
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  MathMin,
  ReflectApply,
  StringPrototypeToLowerCase,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeSet,
  TypedArrayPrototypeSlice,
  TypedArrayPrototypeSubarray,
  TypeError,
  Uint8Array,
} = primordials;
const { op_is_array_buffer_view: isArrayBufferView, op_is_data_view: isDataView } = core.ops;

const encodings = {
  __proto__: null,
  'utf8': 'utf8',
  'utf-8': 'utf8',
  'ucs2': 'utf16le',
  'ucs-2': 'utf16le',
  'utf16le': 'utf16le',
  'utf-16le': 'utf16le',
  'latin1': 'latin1',
  'binary': 'latin1',
  'base64': 'base64',
  'base64url': 'base64url',
  'hex': 'hex',
  'ascii': 'ascii',
};

function normalizeEncoding(encoding) {
  if (encoding == null || encoding === '') return 'utf8';
  const name = encodings[StringPrototypeToLowerCase(`${encoding}`)];
  if (name === undefined) throw nodeError(TypeError, 'ERR_UNKNOWN_ENCODING', `Unknown encoding: ${encoding}`);
  return name;
}

function bytesOf(view) {
  if (!isArrayBufferView(view)) throw invalidArgType('buf', 'an instance of Buffer, TypedArray, or DataView', view);
  if (isDataView(view)) {
    return new Uint8Array(DataViewPrototypeGetBuffer(view), DataViewPrototypeGetByteOffset(view), DataViewPrototypeGetByteLength(view));
  }
  return new Uint8Array(TypedArrayPrototypeGetBuffer(view), TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetByteLength(view));
}

function concat(first, second) {
  const joined = new Uint8Array(first.length + second.length);
  TypedArrayPrototypeSet(joined, first, 0);
  TypedArrayPrototypeSet(joined, second, first.length);
  return joined;
}

const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const { decode } = TextDecoder.prototype;
const decodeUtf8 = (bytes) => ReflectApply(decode, utf8Decoder, [bytes]);
const toText = (bytes, encoding) =>
  Buffer.from(TypedArrayPrototypeGetBuffer(bytes), TypedArrayPrototypeGetByteOffset(bytes), bytes.length).toString(encoding);

// How long a UTF-8 character starting with `byte` is, or 0 for a byte that starts none.
function utf8Length(byte) {
  if ((byte & 0xe0) === 0xc0) return 2;
  if ((byte & 0xf0) === 0xe0) return 3;
  if ((byte & 0xf8) === 0xf0) return 4;
  return 0;
}

const EMPTY = new Uint8Array(0);

class StringDecoder {
  // The bytes of an incomplete character, and (UTF-8, UTF-16LE) how many more it needs.
  #held = EMPTY;
  #missing = 0;

  constructor(encoding) {
    this.encoding = normalizeEncoding(encoding);
  }

  write(buf) {
    if (typeof buf === 'string') return buf;
    const bytes = bytesOf(buf);
    switch (this.encoding) {
      case 'utf8':
        return this.#writeUtf8(bytes);
      case 'utf16le':
        return this.#writeUtf16(bytes);
      case 'base64':
      case 'base64url':
        return this.#writeBase64(bytes);
      default:
        return toText(bytes, this.encoding);
    }
  }

  end(buf) {
    const head = buf === undefined ? '' : this.write(buf);
    const held = this.#held;
    this.#held = EMPTY;
    this.#missing = 0;
    if (held.length === 0) return head;
    // UTF-16LE drops a lone trailing byte.
    if (this.encoding === 'utf16le') return head + toText(TypedArrayPrototypeSubarray(held, 0, held.length & ~1), 'utf16le');
    if (this.encoding === 'utf8') return head + decodeUtf8(held);
    return head + toText(held, this.encoding);
  }

  #writeUtf8(bytes) {
    let text = '';
    let start = 0;
    if (this.#missing > 0) {
      // The held character takes the continuation bytes that lead this chunk; a byte of any
      // other kind breaks it off, to be decoded (as malformed) on its own.
      while (start < this.#missing && start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
      this.#held = concat(this.#held, TypedArrayPrototypeSubarray(bytes, 0, start));
      if (start < this.#missing && start === bytes.length) {
        this.#missing -= start;
        return '';
      }
      text = decodeUtf8(this.#held);
      this.#held = EMPTY;
      this.#missing = 0;
    }
    // Hold back the chunk's last character if its lead byte, at most three bytes from the end
    // and within this chunk, asks for more bytes than follow it.
    let end = bytes.length;
    let lead = end - 1;
    while (lead >= start && end - lead < 4 && (bytes[lead] & 0xc0) === 0x80) lead--;
    if (lead >= start) {
      const length = utf8Length(bytes[lead]);
      if (length > end - lead) {
        this.#held = TypedArrayPrototypeSlice(bytes, lead, end);
        this.#missing = length - (end - lead);
        end = lead;
      }
    }
    return text + decodeUtf8(TypedArrayPrototypeSubarray(bytes, start, end));
  }

  // A held odd byte is completed by the next byte, whatever unit that makes; of the rest, an odd
  // last byte is held, or else a last high surrogate, for its pair.
  #writeUtf16(bytes) {
    let text = '';
    let start = 0;
    if (this.#missing > 0) {
      start = MathMin(this.#missing, bytes.length);
      this.#held = concat(this.#held, TypedArrayPrototypeSubarray(bytes, 0, start));
      this.#missing -= start;
      if (this.#missing > 0) return '';
      text = toText(this.#held, 'utf16le');
      this.#held = EMPTY;
    }
    let end = bytes.length;
    if ((end - start) % 2 === 1) this.#missing = 1;
    else if (end > start && (bytes[end - 1] & 0xfc) === 0xd8) this.#missing = 2;
    if (this.#missing > 0) {
      end -= this.#missing;
      this.#held = TypedArrayPrototypeSlice(bytes, end);
    }
    return text + toText(TypedArrayPrototypeSubarray(bytes, start, end), 'utf16le');
  }

  #writeBase64(bytes) {
    const joined = this.#held.length === 0 ? bytes : concat(this.#held, bytes);
    const end = joined.length - (joined.length % 3);
    this.#held = TypedArrayPrototypeSlice(joined, end);
    return toText(TypedArrayPrototypeSubarray(joined, 0, end), this.encoding);
  }
}

export default { StringDecoder };
export { StringDecoder };
