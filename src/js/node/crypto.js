// node:crypto: hashes and HMACs over the runtime's digest ops (a long input taken a piece at a time),
// randomness from Web Crypto, and Web Crypto itself. Ciphers, signatures, key pairs and key
// derivation are not offered.

import { core, primordials } from 'ext:core/mod.js';
import { inspect } from 'ext:dsh/inspect.js';
import { getCrypto, hashInPieces } from 'ext:dsh/web.js';
import { setImmediate } from 'ext:dsh/world.js';
import { Buffer } from 'node:buffer';
import { invalidArgType, nodeError } from 'ext:dsh/node_errors.js';

const {
  ArrayPrototypePush,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  Error,
  MathAbs,
  MathMin,
  NumberIsInteger,
  NumberIsNaN,
  NumberIsSafeInteger,
  RangeError,
  ReflectApply,
  SafeSet,
  StringPrototypeReplace,
  StringPrototypeSlice,
  StringPrototypeToLowerCase,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeSlice,
  TypedArrayPrototypeSubarray,
  TypeError,
  Uint8Array,
} = primordials;
const {
  op_is_any_array_buffer: isAnyArrayBuffer,
  op_is_array_buffer_view: isArrayBufferView,
  op_is_data_view: isDataView,
} = core.ops;

// This module is evaluated on its first import, in a run, where the Web Crypto object exists.
const webcrypto = getCrypto();
const { getRandomValues: webGetRandomValues, randomUUID: webRandomUUID } = webcrypto;
// A durable run refuses `crypto.subtle`: its refusal then comes with the first use of node:crypto's.
let subtle;
try {
  subtle = webcrypto.subtle;
} catch (refusal) {
  subtle = new Proxy({}, { get() { throw refusal; } });
}
const kMaxLength = 2147483647;
const kMaxRandomRange = 2 ** 48 - 1;

// The errors Node's C++ layer throws carry the code without naming it in the header.
function withCode(error, code) {
  error.code = code;
  return error;
}

// '281474976710657' as '281_474_976_710_657'.
function withSeparators(digits) {
  const stop = digits[0] === '-' ? 4 : 3;
  let grouped = '';
  let end = digits.length;
  for (; end > stop; end -= 3) grouped = `_${StringPrototypeSlice(digits, end - 3, end)}${grouped}`;
  return `${StringPrototypeSlice(digits, 0, end)}${grouped}`;
}

function outOfRange(name, range, value) {
  const shown = NumberIsInteger(value) && MathAbs(value) > 2 ** 32 ? withSeparators(`${value}`) : inspect(value);
  return nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "${name}" is out of range. It must be ${range}. Received ${shown}`);
}

function validateString(value, name) {
  if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value);
}

function validateFunction(value, name) {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
}

function validateNumber(value, name, min, max) {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value);
  if (value < min || value > max || NumberIsNaN(value)) throw outOfRange(name, `>= ${min} && <= ${max}`, value);
}

// OpenSSL's spellings of the six digests the runtime has: any case, 'SHA-256', 'SHA2-256',
// 'RSA-SHA256', 'sha256WithRSAEncryption', 'ssl3-md5'.
const digests = new SafeSet(['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512']);
function digestName(algorithm) {
  let name = StringPrototypeToLowerCase(algorithm);
  name = StringPrototypeReplace(name, /^(?:rsa-|ssl3-)/, '');
  name = StringPrototypeReplace(name, /withrsaencryption$/, '');
  name = StringPrototypeReplace(name, /^sha2?-(?=\d)/, 'sha');
  return digests.has(name) ? name : undefined;
}

// A Uint8Array over the memory of a view of any kind.
function bytesOf(view) {
  if (isDataView(view)) {
    return new Uint8Array(DataViewPrototypeGetBuffer(view), DataViewPrototypeGetByteOffset(view), DataViewPrototypeGetByteLength(view));
  }
  return new Uint8Array(TypedArrayPrototypeGetBuffer(view), TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetByteLength(view));
}

// A copy of `data`'s bytes: a string in `encoding` (UTF-8 when Node would not know the name),
// or a Buffer, TypedArray or DataView.
function copyInput(data, encoding, name) {
  if (typeof data === 'string') {
    const bytes = Buffer.from(data, Buffer.isEncoding(encoding) ? encoding : 'utf8');
    return new Uint8Array(TypedArrayPrototypeGetBuffer(bytes), TypedArrayPrototypeGetByteOffset(bytes), bytes.length);
  }
  if (isArrayBufferView(data)) return TypedArrayPrototypeSlice(bytesOf(data));
  throw invalidArgType(name, 'of type string or an instance of Buffer, TypedArray, or DataView', data);
}

function toBuffer(bytes) {
  return Buffer.from(TypedArrayPrototypeGetBuffer(bytes), TypedArrayPrototypeGetByteOffset(bytes), bytes.length);
}

// A Buffer, or a string when `encoding` is one Buffer knows, as Node's digest() returns.
function encodeOutput(bytes, encoding) {
  const buffer = toBuffer(bytes);
  return encoding !== 'buffer' && Buffer.isEncoding(encoding) ? buffer.toString(encoding) : buffer;
}

function finalized() {
  return nodeError(Error, 'ERR_CRYPTO_HASH_FINALIZED', 'Digest already called');
}

class Hash {
  #algorithm;
  #chunks = [];
  #finalized = false;

  constructor(algorithm) {
    validateString(algorithm, 'algorithm');
    this.#algorithm = digestName(algorithm);
    if (this.#algorithm === undefined) throw new Error('Digest method not supported');
  }

  update(data, inputEncoding) {
    if (this.#finalized) throw finalized();
    const bytes = copyInput(data, inputEncoding, 'data');
    ArrayPrototypePush(this.#chunks, bytes);
    return this;
  }

  digest(outputEncoding) {
    if (this.#finalized) throw finalized();
    this.#finalized = true;
    return encodeOutput(hashInPieces(this.#algorithm, this.#chunks), outputEncoding);
  }

  copy() {
    if (this.#finalized) throw finalized();
    const copy = new Hash(this.#algorithm);
    for (let i = 0; i < this.#chunks.length; i++) ArrayPrototypePush(copy.#chunks, this.#chunks[i]);
    return copy;
  }
}

class Hmac {
  #algorithm;
  #key;
  #chunks = [];
  #finalized = false;

  constructor(algorithm, key) {
    validateString(algorithm, 'hmac');
    this.#algorithm = digestName(algorithm);
    if (this.#algorithm === undefined) {
      throw withCode(new TypeError(`Invalid digest: ${algorithm}`), 'ERR_CRYPTO_INVALID_DIGEST');
    }
    if (isAnyArrayBuffer(key)) this.#key = TypedArrayPrototypeSlice(new Uint8Array(key));
    else if (typeof key === 'string' || isArrayBufferView(key)) this.#key = copyInput(key, 'utf8', 'key');
    else {
      throw invalidArgType('key', 'of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, ' +
        'KeyObject, or CryptoKey', key);
    }
  }

  update(data, inputEncoding) {
    if (this.#finalized) throw finalized();
    const bytes = copyInput(data, inputEncoding, 'data');
    ArrayPrototypePush(this.#chunks, bytes);
    return this;
  }

  // As Node's, a second digest() gives an empty result.
  digest(outputEncoding) {
    if (this.#finalized) return encodeOutput(new Uint8Array(0), outputEncoding);
    this.#finalized = true;
    return encodeOutput(hashInPieces(this.#algorithm, this.#chunks, this.#key), outputEncoding);
  }
}

function createHash(algorithm) {
  return new Hash(algorithm);
}

function createHmac(hmac, key) {
  return new Hmac(hmac, key);
}

function hash(algorithm, data, outputEncoding = 'hex') {
  validateString(algorithm, 'algorithm');
  if (typeof data !== 'string' && !isArrayBufferView(data)) {
    throw invalidArgType('input', 'of type string or an instance of Buffer, TypedArray, or DataView', data);
  }
  if (outputEncoding !== 'buffer' && !Buffer.isEncoding(outputEncoding)) {
    throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The argument 'outputEncoding' is invalid. Received ${inspect(outputEncoding)}`);
  }
  const name = digestName(algorithm);
  if (name === undefined) throw new Error(`Digest method ${algorithm} is not supported`);
  return encodeOutput(hashInPieces(name, [copyInput(data, 'utf8', 'input')]), outputEncoding);
}

function getHashes() {
  return ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'];
}

// Web Crypto fills at most 65536 bytes a call.
function fillRandom(bytes) {
  for (let start = 0; start < bytes.length; start += 65536) {
    ReflectApply(webGetRandomValues, webcrypto, [TypedArrayPrototypeSubarray(bytes, start, MathMin(start + 65536, bytes.length))]);
  }
}

function randomBytes(size, callback) {
  validateNumber(size, 'size', 0, kMaxLength);
  if (callback !== undefined) validateFunction(callback, 'callback');
  const buffer = Buffer.allocUnsafe(size);
  fillRandom(buffer);
  if (callback === undefined) return buffer;
  setImmediate(callback, null, buffer);
}

function randomFillSync(buf, offset = 0, size) {
  let bytes;
  if (isAnyArrayBuffer(buf)) bytes = new Uint8Array(buf);
  else if (isArrayBufferView(buf)) bytes = bytesOf(buf);
  else throw invalidArgType('buf', 'an instance of ArrayBuffer or ArrayBufferView', buf);
  // Offset and size count elements of a typed array; the checks are on bytes.
  const elementSize = buf.BYTES_PER_ELEMENT || 1;
  validateNumber(offset, 'offset', 0, kMaxLength);
  const start = offset * elementSize;
  if (start > bytes.length) throw outOfRange('offset', `>= 0 && <= ${bytes.length}`, start);
  let length = bytes.length - start;
  if (size !== undefined) {
    validateNumber(size, 'size', 0, kMaxLength);
    length = size * elementSize;
    if (start + length > bytes.length) throw outOfRange('size + offset', `<= ${bytes.length}`, start + length);
  }
  fillRandom(TypedArrayPrototypeSubarray(bytes, start, start + length));
  return buf;
}

// Uniform on [min, max): 48 random bits, redrawn past the largest multiple of the range.
function randomInt(min, max, callback) {
  if (max === undefined || typeof max === 'function') {
    callback = max;
    max = min;
    min = 0;
  }
  if (callback !== undefined) validateFunction(callback, 'callback');
  if (!NumberIsSafeInteger(min)) throw invalidArgType('min', 'a safe integer', min);
  if (!NumberIsSafeInteger(max)) throw invalidArgType('max', 'a safe integer', max);
  if (max <= min) throw outOfRange('max', `greater than the value of "min" (${min})`, max);
  const range = max - min;
  if (!(range <= kMaxRandomRange)) throw outOfRange('max - min', `<= ${kMaxRandomRange}`, range);
  const limit = 2 ** 48 - (2 ** 48 % range);
  const bytes = new Uint8Array(6);
  let draw;
  do {
    fillRandom(bytes);
    draw = 0;
    for (let i = 0; i < 6; i++) draw = draw * 256 + bytes[i];
  } while (draw >= limit);
  const value = min + (draw % range);
  if (callback === undefined) return value;
  setImmediate(callback, null, value);
}

function randomUUID() {
  return ReflectApply(webRandomUUID, webcrypto, []);
}

function getRandomValues(typedArray) {
  return ReflectApply(webGetRandomValues, webcrypto, [typedArray]);
}

function timingSafeEqual(buf1, buf2) {
  const bytes = [buf1, buf2];
  for (let i = 0; i < 2; i++) {
    const buf = bytes[i];
    if (isAnyArrayBuffer(buf)) bytes[i] = new Uint8Array(buf);
    else if (isArrayBufferView(buf)) bytes[i] = bytesOf(buf);
    else {
      const message = `The "buf${i + 1}" argument must be an instance of ArrayBuffer, Buffer, TypedArray, or DataView.`;
      throw withCode(new TypeError(message), 'ERR_INVALID_ARG_TYPE');
    }
  }
  const a = bytes[0];
  const b = bytes[1];
  if (a.length !== b.length) {
    throw withCode(new RangeError('Input buffers must have the same byte length'), 'ERR_CRYPTO_TIMING_SAFE_EQUAL_LENGTH');
  }
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

export default {
  createHash,
  createHmac,
  hash,
  getHashes,
  randomBytes,
  randomFillSync,
  randomInt,
  randomUUID,
  getRandomValues,
  timingSafeEqual,
  webcrypto,
  subtle,
};
export {
  createHash,
  createHmac,
  getHashes,
  getRandomValues,
  hash,
  randomBytes,
  randomFillSync,
  randomInt,
  randomUUID,
  subtle,
  timingSafeEqual,
  webcrypto,
};
