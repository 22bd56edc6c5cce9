// The web platform as a Node worker has it, from Deno's own implementations (deno_web,
// deno_webidl, deno_crypto), which their authors test against the web platform tests.
// Loaded into the snapshot; the world puts these on the global object.

import { core, primordials } from 'ext:core/mod.js';

const load = (name) => core.loadExtScript(`ext:${name}.js`);

const {
  ArrayBuffer,
  ArrayBufferIsView,
  ArrayBufferPrototypeGetByteLength,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  JSONParse,
  JSONStringify,
  MathCeil,
  MathMin,
  Number: NumberCtor,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  ObjectPrototypeIsPrototypeOf,
  StringPrototypeCharCodeAt,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  TypedArrayPrototypeSet,
  TypedArrayPrototypeSlice,
  TypedArrayPrototypeSubarray,
  Promise,
  PromisePrototypeThen,
  PromiseReject,
  PromiseResolve,
  RegExpPrototypeTest,
  ReflectApply,
  SafeSet,
  SafeWeakMap,
  SetPrototypeAdd,
  SetPrototypeHas,
  StringPrototypeEndsWith,
  StringPrototypeStartsWith,
  StringPrototypeToLowerCase,
  SymbolToStringTag,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  Uint8Array,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
} = primordials;
const { op_dsh_digest, op_dsh_hasher, op_dsh_hasher_finish, op_dsh_hasher_update, op_dsh_hmac, op_dsh_keyed_hasher } = core.ops;

const { DOMException } = load('deno_web/01_dom_exception');
const { Event, EventTarget, CustomEvent, ErrorEvent, saveGlobalThisReference } = load('deno_web/02_event');
const { structuredClone: cloneWithoutTransfer } = load('deno_web/02_structured_clone');
const { AbortController, AbortSignal } = load('deno_web/03_abort_signal');
const { atob: atobWhole, btoa } = load('deno_web/05_base64');
const { TextEncoder, TextDecoder, TextDecoderStream } = load('deno_web/08_text_encoding');
const { Blob, File, getParts } = load('deno_web/09_file');
const { URL, URLSearchParams } = load('deno_web/00_url');
const {
  performance,
  Performance,
  PerformanceEntry,
  PerformanceMark,
  PerformanceMeasure,
  setTimeOrigin,
} = load('deno_web/15_performance');
const webCrypto = load('deno_crypto/00_crypto');

// The stream classes are plain JavaScript over the heap, so they fit the run's bounds.
// CompressionStream is left out: its zlib state lives outside the heap, uncounted.
const {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
  TransformStream,
  TransformStreamDefaultController,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
} = load('deno_web/06_streams');

// `Blob#stream` reads each part into a buffer of the program's heap, which the run's cap counts:
// deno_web's reads each part into a buffer made outside it.
const BlobPrototypeGetSize = ObjectGetOwnPropertyDescriptor(Blob.prototype, 'size').get;
ObjectDefineProperty(Blob.prototype, 'stream', {
  __proto__: null,
  ...ObjectGetOwnPropertyDescriptor(Blob.prototype, 'stream'),
  value: {
    stream() {
      // The size getter's brand check, and its TypeError for anything not a Blob.
      ReflectApply(BlobPrototypeGetSize, this, []);
      // Held until the stream ends: a part is dropped from the store once no Blob holds it.
      let blob = this;
      // The ids of its parts, nested Blobs' flattened in order.
      const parts = getParts(blob);
      let next = 0;
      return new ReadableStream({
        __proto__: null,
        type: 'bytes',
        pull(controller) {
          while (next < parts.length) {
            const id = parts[next++];
            const size = core.ops.op_dsh_blob_part_size(id);
            if (size === 0) continue;
            const bytes = new Uint8Array(size);
            core.ops.op_dsh_blob_read_part_into(id, bytes);
            return controller.enqueue(bytes);
          }
          blob = undefined;
          controller.close();
          controller.byobRequest?.respond(0);
        },
      }, { __proto__: null });
    },
  }.stream,
});

// deno_web decodes base64 in one op: 256 MB took about 0.3 s, and a stop that landed in it waited.
// A long text with no whitespace, and '=' only in its last two places, is decoded a slice of 4 MiB
// (a multiple of four) at a time: each slice is then valid exactly where the whole is, and the last
// one carries the padding. Others are decoded whole.
const BASE64_SLICE = 2 ** 22;
const BASE64_WHITESPACE = /[\t\n\f\r ]/;
function atob(data) {
  if (arguments.length < 1 || typeof data !== 'string' || data.length <= BASE64_SLICE) return ReflectApply(atobWhole, undefined, arguments);
  const padding = StringPrototypeIndexOf(data, '=');
  if ((padding !== -1 && padding < data.length - 2) || RegExpPrototypeTest(BASE64_WHITESPACE, data)) return atobWhole(data);
  let text = '';
  for (let at = 0; at < data.length; at += BASE64_SLICE) text += atobWhole(StringPrototypeSlice(data, at, at + BASE64_SLICE));
  return text;
}

// Loaded here so that it is in the snapshot: deno_web loads it on first use otherwise (events of
// message ports), and its source is not kept for later.
load('deno_web/13_message_port');

// Encoding and decoding each run in one op that nothing interrupts: 128 MB took 130-770 ms to decode
// (UTF-8 to ISO-2022-JP), so a stop that landed in one waited for it. Texts and inputs longer than a
// slice go through the op a slice at a time, which the budgets stop between slices.
const CODING_SLICE = 2 ** 22;
const nativeEncodeInto = TextEncoder.prototype.encodeInto;
const encoder = new TextEncoder();
const isHighSurrogate = (unit) => unit >= 0xd800 && unit <= 0xdbff;

/** `encodeInto` of `text` (a string) into `bytes` (a Uint8Array), a slice at a time. */
function encodeIntoInSlices(text, bytes) {
  let read = 0;
  let written = 0;
  while (read < text.length) {
    let end = MathMin(read + CODING_SLICE, text.length);
    // A surrogate pair stays whole, or each half would be encoded as U+FFFD.
    if (end < text.length && isHighSurrogate(StringPrototypeCharCodeAt(text, end - 1))) end--;
    const slice = end - read === text.length ? text : StringPrototypeSlice(text, read, end);
    const done = ReflectApply(nativeEncodeInto, encoder, [slice, TypedArrayPrototypeSubarray(bytes, written)]);
    read += done.read;
    written += done.written;
    if (done.read < slice.length) break;
  }
  return { read, written };
}

// deno_core's encode returns a buffer made outside the run's counting allocator; encoding into one
// the program's heap accounts for keeps the ArrayBuffer cap whole. A byte per UTF-16 unit holds
// ASCII; what does not fit takes at most three bytes a unit.
function encodeInHeap(text) {
  let bytes = new Uint8Array(text.length);
  let { read, written } = encodeIntoInSlices(text, bytes);
  if (read < text.length) {
    const rest = StringPrototypeSlice(text, read);
    const larger = new Uint8Array(written + rest.length * 3);
    TypedArrayPrototypeSet(larger, TypedArrayPrototypeSubarray(bytes, 0, written));
    written += encodeIntoInSlices(rest, TypedArrayPrototypeSubarray(larger, written)).written;
    bytes = larger;
  }
  return written === bytes.length ? bytes : TypedArrayPrototypeSlice(bytes, 0, written);
}
ObjectDefineProperty(TextEncoder.prototype, 'encode', {
  __proto__: null,
  value: function encode(input = '') {
    if (!ObjectPrototypeIsPrototypeOf(TextEncoderPrototype, this)) throw new TypeError('Illegal invocation');
    return encodeInHeap(`${input}`);
  },
});
ObjectDefineProperty(TextEncoder.prototype, 'encodeInto', {
  __proto__: null,
  value: function encodeInto(source, destination) {
    if (typeof source !== 'string' || source.length <= CODING_SLICE || !ObjectPrototypeIsPrototypeOf(TextEncoderPrototype, this) ||
      TypedArrayPrototypeGetSymbolToStringTag(destination) !== 'Uint8Array') {
      // Argument checks and conversions, as deno_web makes them.
      return ReflectApply(nativeEncodeInto, this, arguments);
    }
    return encodeIntoInSlices(source, destination);
  },
});
const TextEncoderPrototype = TextEncoder.prototype;

const nativeDecode = TextDecoder.prototype.decode;
const TextDecoderPrototype = TextDecoder.prototype;
const TextDecoderPrototypeGetFatal = ObjectGetOwnPropertyDescriptor(TextDecoderPrototype, 'fatal').get;
ObjectDefineProperty(TextDecoderPrototype, 'decode', {
  __proto__: null,
  value: function decode(input = undefined, options = undefined) {
    const bytes = ArrayBufferIsView(input) && ObjectPrototypeIsPrototypeOf(TextDecoderPrototype, this) ? bytesOf(input) : null;
    if (bytes === null || bytes.length <= CODING_SLICE) return ReflectApply(nativeDecode, this, arguments);
    // The options are read once, as deno_web reads them.
    const stream = options === undefined || options === null ? false : !!options.stream;
    let text = '';
    for (let at = 0; at < bytes.length; at += CODING_SLICE) {
      const last = at + CODING_SLICE >= bytes.length;
      const slice = TypedArrayPrototypeSubarray(bytes, at, at + CODING_SLICE);
      try {
        text += ReflectApply(nativeDecode, this, [slice, { __proto__: null, stream: last ? stream : true }]);
      } catch (error) {
        // A fatal error in a slice before the last: the decoder starts afresh, as after one call.
        if (!last && !stream && ReflectApply(TextDecoderPrototypeGetFatal, this, [])) {
          try {
            ReflectApply(nativeDecode, this, []);
          } catch {}
        }
        throw error;
      }
    }
    return text;
  },
});

// deno_web's TextEncoderStream encodes each chunk with deno_core's `encode` too (frozen, so not
// replaceable): 40 kept chunks of 8 MiB held 359 MB at a 64 MB cap. This one follows the Encoding
// Standard's steps, with each chunk encoded into the program's heap.
const TransformStreamPrototypeGetReadable = ObjectGetOwnPropertyDescriptor(TransformStream.prototype, 'readable').get;
const TransformStreamPrototypeGetWritable = ObjectGetOwnPropertyDescriptor(TransformStream.prototype, 'writable').get;
const TransformStreamDefaultControllerPrototypeEnqueue = TransformStreamDefaultController.prototype.enqueue;
class TextEncoderStream {
  /** A high surrogate that ended the last chunk, waiting for the low one that may begin the next. */
  #pendingHighSurrogate = '';
  #stream;

  constructor() {
    const enqueue = (controller, bytes) => ReflectApply(TransformStreamDefaultControllerPrototypeEnqueue, controller, [bytes]);
    this.#stream = new TransformStream({
      __proto__: null,
      transform: (chunk, controller) => {
        let text = this.#pendingHighSurrogate + `${chunk}`;
        this.#pendingHighSurrogate = '';
        const last = StringPrototypeCharCodeAt(text, text.length - 1);
        if (last >= 0xd800 && last <= 0xdbff) {
          this.#pendingHighSurrogate = StringPrototypeSlice(text, -1);
          text = StringPrototypeSlice(text, 0, -1);
        }
        if (text !== '') enqueue(controller, encodeInHeap(text));
      },
      flush: (controller) => {
        // A high surrogate that no low one followed: U+FFFD.
        if (this.#pendingHighSurrogate === '') return;
        const replacement = new Uint8Array(3);
        replacement[0] = 0xef;
        replacement[1] = 0xbf;
        replacement[2] = 0xbd;
        enqueue(controller, replacement);
      },
    });
  }

  static #streamOf(receiver) {
    if (receiver === null || typeof receiver !== 'object' || !(#stream in receiver)) throw new TypeError('Illegal invocation');
    return receiver.#stream;
  }

  get encoding() {
    TextEncoderStream.#streamOf(this);
    return 'utf-8';
  }

  get readable() {
    return ReflectApply(TransformStreamPrototypeGetReadable, TextEncoderStream.#streamOf(this), []);
  }

  get writable() {
    return ReflectApply(TransformStreamPrototypeGetWritable, TextEncoderStream.#streamOf(this), []);
  }
}
// As Web IDL defines them: enumerable attributes, and the class's tag.
for (const name of ['encoding', 'readable', 'writable']) {
  ObjectDefineProperty(TextEncoderStream.prototype, name, { __proto__: null, enumerable: true });
}
ObjectDefineProperty(TextEncoderStream.prototype, SymbolToStringTag, { __proto__: null, value: 'TextEncoderStream', configurable: true });

// An exception a listener throws is reported, as Node reports it, as an uncaught exception: it
// ends the run as an error escaping a timer does. deno_web reports it by dispatching an
// ErrorEvent on the global object it was given, which our world never gave it (the program's
// global object is no EventTarget), and the message became "null".
const errorEventError = ObjectGetOwnPropertyDescriptor(ErrorEvent.prototype, 'error').get;
saveGlobalThisReference({
  __proto__: null,
  dispatchEvent(event) {
    core.ops.op_dsh_settle_thrown_later(ReflectApply(errorEventError, event, []));
    // Handled: deno_core's own report of an unhandled exception is not wanted.
    return false;
  },
});

// structuredClone with a transfer list, as Node 22 and later do it: each ArrayBuffer listed is
// checked first, then detached once the value is cloned (the clone has its bytes).
const ArrayBufferPrototypeTransfer = ArrayBuffer.prototype.transfer;
const ArrayBufferPrototypeGetDetached = ObjectGetOwnPropertyDescriptor(ArrayBuffer.prototype, 'detached').get;
const SymbolIterator = Symbol.iterator;
const dataCloneError = (message) => new DOMException(message, 'DataCloneError');
// A primitive is its own clone: V8's serializer would copy a long string out of the heap and back,
// in one step nothing stops (a 256 MB string kept its thread past its run).
const cloneOf = (value) => value === null || (typeof value !== 'object' && typeof value !== 'function' && typeof value !== 'symbol')
  ? value
  : ReflectApply(cloneWithoutTransfer, undefined, [value]);
function structuredClone(value, options = undefined) {
  if (arguments.length < 2 || options === undefined || options === null) return cloneOf(value);
  if (typeof options !== 'object' && typeof options !== 'function') {
    throw new TypeError("Failed to execute 'structuredClone': Options cannot be converted to a dictionary");
  }
  const list = options.transfer;
  if (list === undefined) return cloneOf(value);
  if (list === null || (typeof list !== 'object' && typeof list !== 'function') || typeof list[SymbolIterator] !== 'function') {
    throw new TypeError("Failed to execute 'structuredClone': transfer in Options cannot be converted to sequence.");
  }
  const buffers = new SafeSet();
  for (const item of list) {
    if (!core.isArrayBuffer(item)) throw dataCloneError('Found invalid value in transferList.');
    if (SetPrototypeHas(buffers, item)) throw dataCloneError('Transfer list contains duplicate ArrayBuffer');
    if (ReflectApply(ArrayBufferPrototypeGetDetached, item, [])) throw dataCloneError('Cannot transfer object of unsupported type.');
    SetPrototypeAdd(buffers, item);
  }
  const clone = cloneOf(value);
  // Moved to an empty buffer, the bytes are freed at once.
  for (const buffer of buffers) ReflectApply(ArrayBufferPrototypeTransfer, buffer, [0]);
  return clone;
}

// Errors that ops raise as DOMExceptions carry their name in the error class (web crypto,
// base64, random values); each becomes the DOMException it names.
for (const name of ['AbortError', 'DataError', 'EncodingError', 'IndexSizeError', 'InvalidAccessError', 'InvalidCharacterError',
  'InvalidStateError', 'NotFoundError', 'NotSupportedError', 'OperationError', 'QuotaExceededError', 'SyntaxError',
  'TimeoutError', 'TypeMismatchError']) {
  core.registerErrorBuilder(`DOMException${name}`, function (message) {
    return new DOMException(message, name);
  });
}

// Node's message for an abort without a reason; Deno words it differently.
function abortedReason() {
  return new DOMException('This operation was aborted', 'AbortError');
}
const abortController = AbortController.prototype.abort;
ObjectDefineProperty(AbortController.prototype, 'abort', {
  __proto__: null,
  value: function abort(reason = abortedReason()) {
    return ReflectApply(abortController, this, [reason]);
  },
});
const abortSignal = AbortSignal.abort;
ObjectDefineProperty(AbortSignal, 'abort', {
  __proto__: null,
  value: function abort(reason = abortedReason()) {
    return ReflectApply(abortSignal, this, [reason]);
  },
});

const { Crypto, CryptoKey, SubtleCrypto } = webCrypto;

/** The Web Crypto object, made on first use: it wraps native state a snapshot cannot hold. */
function getCrypto() {
  return webCrypto.crypto;
}

// Web Crypto runs its work on a thread of its own, one piece at a time (see `event_loop` in
// isolate.rs): its CPU time counts as the run's, but nothing can stop a piece part-way, and Argon2
// allocates outside the heap cap. What one piece may cost is bounded here, before it starts, to
// about 0.4 s of CPU on the machine the bounds were measured on. Every member a bound depends on
// is read once and passed on as a plain value, so a getter cannot answer differently when
// deno_crypto reads it again.
const MAX_PBKDF2_WORK = 1_000_000; // iterations x 160-bit blocks of output, SHA-384/512 count 4
const MAX_DERIVED_BITS = 65_536;
// Generating an RSA-4096 key took from 1 to 19 s here; RSA-2048 about 0.4 s.
const MAX_RSA_MODULUS_BITS = 2048;
// Work handed to that thread runs to its end even after the run has ended, so a run hands over
// one costly operation (RSA keys, PBKDF2, SLH-DSA signatures) at a time, and at most this many
// bytes of input at a time (each call copies its input outside the heap cap until its work is
// done). Calls past either bound copy their input into the heap and wait their turn, in order;
// they are forgotten if the run ends first.
const MAX_INPUT_IN_FLIGHT = 16 * 1024 * 1024;
// Extendable outputs and KMAC, by lower-case name, with the member that sets their length in bits:
// an output of 2^32 - 8 bits was a 512 MB buffer made outside the heap cap.
const LENGTH_MEMBERS = {
  __proto__: null,
  cshake128: 'outputLength',
  cshake256: 'outputLength',
  turboshake128: 'outputLength',
  turboshake256: 'outputLength',
  kt128: 'outputLength',
  kt256: 'outputLength',
  kangarootwelve: 'outputLength',
  kmac128: 'length',
  kmac256: 'length',
};
function notSupported(message) {
  return new DOMException(message, 'NotSupportedError');
}

/** `algorithm` with its name read once; `null` for a name given as a string. */
function named(algorithm) {
  if (algorithm === null || typeof algorithm !== 'object') return { name: `${algorithm}`, own: null };
  return { name: `${algorithm.name}`, own: algorithm };
}

/** The algorithm to pass on, and whether the operation is costly; throws past a bound. */
function bounded(operation, algorithm, bits) {
  const { name, own } = named(algorithm);
  const lower = StringPrototypeToLowerCase(name);
  if (StringPrototypeStartsWith(lower, 'argon2')) {
    throw notSupported("Argon2 is not available: its memory would escape the run's heap cap");
  }
  if (StringPrototypeStartsWith(lower, 'slh-dsa')) {
    // The small-signature sets ('s') take 0.4 to 4 s of CPU per signature here, the fast ones
    // ('f') at most a tenth of that.
    if (StringPrototypeEndsWith(lower, 's') && operation !== 'verify') {
      throw notSupported(`${name} keys and signatures are not available here: each takes seconds of CPU that nothing can stop; the fast parameter sets (ending in 'f') are`);
    }
    return { algorithm: own === null ? name : { __proto__: own, name }, costly: true };
  }
  if (own === null) return { algorithm: name, costly: false };
  const lengthMember = LENGTH_MEMBERS[lower];
  if (lengthMember !== undefined) {
    const length = own[lengthMember] === undefined ? undefined : NumberCtor(own[lengthMember]);
    if (length !== undefined && !(length <= MAX_DERIVED_BITS)) {
      throw notSupported(`${name} is limited to ${MAX_DERIVED_BITS} bits of output here: a longer one would escape the run's heap cap`);
    }
    return { algorithm: { __proto__: own, name, [lengthMember]: length }, costly: false };
  }
  if (lower === 'pbkdf2') {
    const iterations = NumberCtor(own.iterations);
    const length = bits === undefined ? 0 : NumberCtor(bits);
    const blocks = MathCeil(length / 160) || 1;
    const hash = own.hash !== null && typeof own.hash === 'object' ? { __proto__: null, name: `${own.hash.name}` } : own.hash;
    const hashName = `${hash?.name ?? hash}`;
    const weight = StringPrototypeEndsWith(hashName, '384') || StringPrototypeEndsWith(hashName, '512') ? 4 : 1;
    if (!(iterations >= 1 && length <= MAX_DERIVED_BITS && iterations * blocks * weight <= MAX_PBKDF2_WORK)) {
      throw notSupported(`PBKDF2 is limited to ${MAX_PBKDF2_WORK} iterations of 160 output bits (a quarter of that with SHA-384 or SHA-512), and to ${MAX_DERIVED_BITS} bits, here: nothing can stop its work part-way`);
    }
    return { algorithm: { name, hash, salt: own.salt, iterations }, costly: true };
  }
  if (StringPrototypeStartsWith(lower, 'rsa') && own.modulusLength !== undefined) {
    const modulusLength = NumberCtor(own.modulusLength);
    if (!(modulusLength > 0 && modulusLength <= MAX_RSA_MODULUS_BITS)) {
      throw notSupported(`generated RSA keys are limited to ${MAX_RSA_MODULUS_BITS} bits here: a larger one takes seconds of CPU that nothing can stop (keys of any size can be imported)`);
    }
    return { algorithm: { name, modulusLength, publicExponent: own.publicExponent, hash: own.hash }, costly: true };
  }
  // Every other member is read through, but the name is now fixed.
  return { algorithm: { __proto__: own, name }, costly: false };
}

/** The output length a deriveKey's target key type asks for, read once. */
function derivedKeyType(type) {
  const { name, own } = named(type);
  if (own === null) return { type: name, bits: undefined };
  const bits = own.length === undefined ? undefined : NumberCtor(own.length);
  // An HMAC key without a length is as long as its hash's block: at most 1024 bits.
  return { type: { __proto__: own, name, length: bits }, bits: bits ?? 1024 };
}

let costlyInFlight = 0;
let inputInFlight = 0;
/** Calls waiting for input bytes in flight to fall, first to last: `{ bytes, start, next }`. */
let waitingFirst = null;
let waitingLast = null;

/** A Uint8Array over an ArrayBuffer's or a view's bytes; null for anything else. */
function bytesOf(value) {
  if (value === null || typeof value !== 'object') return null;
  try {
    if (!ArrayBufferIsView(value)) return new Uint8Array(value, 0, ArrayBufferPrototypeGetByteLength(value));
    try {
      return new Uint8Array(TypedArrayPrototypeGetBuffer(value), TypedArrayPrototypeGetByteOffset(value), TypedArrayPrototypeGetByteLength(value));
    } catch {
      return new Uint8Array(DataViewPrototypeGetBuffer(value), DataViewPrototypeGetByteOffset(value), DataViewPrototypeGetByteLength(value));
    }
  } catch {
    return null;
  }
}

function fits(bytes, costly) {
  return (!costly || costlyInFlight === 0) && (inputInFlight === 0 || inputInFlight + bytes <= MAX_INPUT_IN_FLIGHT);
}

function startWaiting() {
  while (waitingFirst !== null && fits(waitingFirst.bytes, waitingFirst.costly)) {
    const call = waitingFirst;
    waitingFirst = call.next;
    if (waitingFirst === null) waitingLast = null;
    call.start();
  }
}

// deno_crypto makes its results outside the counting allocator: a program that kept 100
// encryptions of 16 MiB held 1.65 GB at a 64 MB cap. Each result that is an ArrayBuffer is copied
// into one the run's buffer budget counts (past the cap, the copy's RangeError rejects the call; the
// original goes with the next collection), and a key's material, which lives natively as long as
// its CryptoKey, is shadowed by an unwritten buffer of its size (60 kept imports of an 8 MiB key held
// 900 MB); V8's collector weighs the shadow, which goes with the key.

/** `result` if it is not an ArrayBuffer; else a copy of it in a counted buffer. */
function counted(result) {
  let length;
  try {
    length = ArrayBufferPrototypeGetByteLength(result);
  } catch {
    return result;
  }
  const copy = new ArrayBuffer(length);
  TypedArrayPrototypeSet(new Uint8Array(copy), new Uint8Array(result));
  return copy;
}

/** An encapsulation's result, its `sharedKey` and `ciphertext` copied if they are ArrayBuffers. */
function countedMembers(result) {
  result.sharedKey = counted(result.sharedKey);
  result.ciphertext = counted(result.ciphertext);
  return result;
}

const keyShadows = new SafeWeakMap();
/** `key`, given a shadow of `bytes`. */
function shadowed(key, bytes) {
  WeakMapPrototypeSet(keyShadows, key, new ArrayBuffer(bytes));
  return key;
}

// The length of each JWK's text, taken when `importKey` read it into plain data.
const jwkTextLengths = new SafeWeakMap();

/** The bytes of key material `keyData` holds, in `format`: its buffer's, or a JWK's text's. */
function keyBytes(format, keyData) {
  if (format === 'jwk') return WeakMapPrototypeGet(jwkTextLengths, keyData) ?? 0;
  const bytes = bytesOf(keyData);
  return bytes === null ? 0 : TypedArrayPrototypeGetByteLength(bytes);
}

/**
 * Puts `method` under the bounds above. `prepare(args)` checks and fixes the arguments and says
 * whether the call is costly; `transform(result, args)`, if given, maps the result.
 */
function guard(method, prepare, transform) {
  const native = SubtleCrypto.prototype[method];
  const wrapper = { [method](...args) {
      let costly;
      try {
        costly = prepare(args);
      } catch (error) {
        return PromiseReject(error);
      }
      // No prototype: a setter a program put on Array.prototype never sees these.
      const buffers = { __proto__: null };
      let bytes = 0;
      for (let i = 0; i < args.length; i++) {
        buffers[i] = bytesOf(args[i]);
        if (buffers[i] !== null) bytes += TypedArrayPrototypeGetByteLength(buffers[i]);
      }
      const call = () => {
        if (costly) costlyInFlight++;
        inputInFlight += bytes;
        const done = () => {
          if (costly) costlyInFlight--;
          inputInFlight -= bytes;
          startWaiting();
        };
        let promise;
        try {
          promise = ReflectApply(native, this, args);
        } catch (error) {
          done();
          return PromiseReject(error);
        }
        PromisePrototypeThen(promise, done, done);
        return transform === undefined ? promise : PromisePrototypeThen(promise, (result) => transform(result, args));
      };
      if (waitingFirst === null && fits(bytes, costly)) return call();
      // A copy in the heap, as deno_crypto would take it now.
      for (let i = 0; i < args.length; i++) {
        const length = buffers[i] === null ? 0 : TypedArrayPrototypeGetByteLength(buffers[i]);
        if (length === 0) continue;
        args[i] = new Uint8Array(length);
        TypedArrayPrototypeSet(args[i], buffers[i]);
      }
      return new Promise((resolve) => {
        const waiting = { __proto__: null, bytes, costly, start: () => resolve(call()), next: null };
        if (waitingLast === null) waitingFirst = waiting;
        else waitingLast.next = waiting;
        waitingLast = waiting;
      });
    } }[method];
  ObjectDefineProperty(wrapper, 'length', { __proto__: null, value: native.length, configurable: true });
  ObjectDefineProperty(SubtleCrypto.prototype, method, {
    __proto__: null,
    value: wrapper,
  });
}

guard('generateKey', (args) => {
  const { algorithm, costly } = bounded('generateKey', args[0]);
  args[0] = algorithm;
  return costly;
});
guard('deriveBits', (args) => {
  const bits = args[2] === undefined || args[2] === null ? args[2] : NumberCtor(args[2]);
  args[2] = bits;
  const { algorithm, costly } = bounded('deriveBits', args[0], bits);
  args[0] = algorithm;
  return costly;
}, counted);
guard('deriveKey', (args) => {
  const { type, bits } = derivedKeyType(args[2]);
  args[2] = type;
  const { algorithm, costly } = bounded('deriveKey', args[0], bits);
  args[0] = algorithm;
  return costly;
});
for (const method of ['digest', 'sign', 'verify']) {
  guard(method, (args) => {
    const { algorithm, costly } = bounded(method, args[0]);
    args[0] = algorithm;
    return costly;
  }, method === 'verify' ? undefined : counted);
}

// Hashing runs on Web Crypto's thread in one piece that nothing stops, however long the input:
// 256 MB of SHA-256 ran on 140 ms past its run's ending. An input past what a run may hand over at
// once is hashed here instead, a piece at a time on the run's own thread, so the budgets stop it
// between pieces. The names deno_crypto hashes, by lower-case name, as the runtime's hash ops call them.
const PIECE_HASHES = { __proto__: null, 'sha-1': 'sha1', 'sha-256': 'sha256', 'sha-384': 'sha384', 'sha-512': 'sha512' };
const HASH_PIECE = 2 ** 22;

/** The hash (a runtime hash op's name) of the bytes of `views`, or their HMAC with `key`, in pieces
 * of HASH_PIECE bytes. */
export function hashInPieces(name, views, key) {
  if (views.length === 1 && TypedArrayPrototypeGetByteLength(views[0]) <= HASH_PIECE) {
    return key === undefined ? op_dsh_digest(name, views[0]) : op_dsh_hmac(name, key, views[0]);
  }
  const hasher = key === undefined ? op_dsh_hasher(name) : op_dsh_keyed_hasher(name, key);
  for (let i = 0; i < views.length; i++) {
    const buffer = TypedArrayPrototypeGetBuffer(views[i]);
    const offset = TypedArrayPrototypeGetByteOffset(views[i]);
    const length = TypedArrayPrototypeGetByteLength(views[i]);
    for (let at = 0; at < length; at += HASH_PIECE) {
      op_dsh_hasher_update(hasher, new Uint8Array(buffer, offset + at, MathMin(HASH_PIECE, length - at)));
    }
  }
  return op_dsh_hasher_finish(hasher);
}

const guardedDigest = SubtleCrypto.prototype.digest;
ObjectDefineProperty(SubtleCrypto.prototype, 'digest', {
  __proto__: null,
  value: { digest(algorithm, data) {
    if (arguments.length < 2 || !ObjectPrototypeIsPrototypeOf(SubtleCrypto.prototype, this)) {
      return ReflectApply(guardedDigest, this, arguments);
    }
    let name;
    let own;
    try {
      ({ name, own } = named(algorithm));
    } catch (error) {
      return PromiseReject(error);
    }
    const view = bytesOf(data);
    const hash = PIECE_HASHES[StringPrototypeToLowerCase(name)];
    if (hash !== undefined && view !== null && TypedArrayPrototypeGetByteLength(view) > MAX_INPUT_IN_FLIGHT) {
      try {
        return PromiseResolve(counted(TypedArrayPrototypeGetBuffer(hashInPieces(hash, [view]))));
      } catch (error) {
        return PromiseReject(error);
      }
    }
    // The name is read once: what goes on is the name as read.
    return ReflectApply(guardedDigest, this, [own === null ? name : { __proto__: own, name }, data]);
  } }.digest,
});

// Bounded only by their input, which is inside the heap cap.
for (const method of ['encrypt', 'decrypt', 'exportKey', 'wrapKey', 'decapsulateBits']) guard(method, () => false, counted);
guard('encapsulateBits', () => false, countedMembers);
guard('encapsulateKey', () => false, countedMembers);
// A JWK is read once, into plain data: deno_crypto reads some members twice and unwraps the
// second read.
guard('importKey', (args) => {
  const format = args[0];
  const keyData = args[1];
  if (format === 'jwk' && keyData !== null && typeof keyData === 'object') {
    const text = JSONStringify(keyData);
    args[1] = JSONParse(text);
    WeakMapPrototypeSet(jwkTextLengths, args[1], text.length);
  }
  return false;
}, (key, args) => shadowed(key, keyBytes(args[0], args[1])));
// An unwrapped key holds at most what was wrapped.
guard('unwrapKey', () => false, (key, args) => shadowed(key, keyBytes('raw', args[1])));

// deno_crypto's static methods for its own glue and for Node's KeyObject interop: with them a
// program could forge keys of any shape (which reach an `unreachable!()` that aborts the process)
// or leave symbols of its isolate in a thread-local that later isolates on the thread use.
// deno_crypto calls `Crypto.create` and `SubtleCrypto.create` once, lazily, and
// `registerSymbols` with a symbol this world lacks (so it registers nothing, as now for anyone);
// the others it calls only for Node interop and for cloning keys, which this world does without.
for (const name of ['fromCloneData', 'exportNodeMaterial', 'importSync']) {
  ObjectDefineProperty(CryptoKey, name, {
    __proto__: null,
    value: function unavailable() {
      throw new TypeError(`CryptoKey.${name} is not available`);
    },
  });
}
ObjectDefineProperty(Crypto, 'registerSymbols', { __proto__: null, value: function registerSymbols() { return false; } });

/** The stream classes, by global name. */
const streams = {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
  TextDecoderStream,
  TextEncoderStream,
  TransformStream,
  TransformStreamDefaultController,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
};

export {
  AbortController,
  AbortSignal,
  atob,
  Blob,
  btoa,
  getCrypto,
  Crypto,
  CryptoKey,
  CustomEvent,
  DOMException,
  ErrorEvent,
  Event,
  EventTarget,
  File,
  performance,
  Performance,
  PerformanceEntry,
  PerformanceMark,
  PerformanceMeasure,
  setTimeOrigin,
  streams,
  structuredClone,
  SubtleCrypto,
  TextDecoder,
  TextEncoder,
  URL,
  URLSearchParams,
};
