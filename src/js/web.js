// The web platform as a Node worker has it, from Deno's own implementations (deno_web,
// deno_webidl, deno_crypto), which their authors test against the web platform tests.
// Loaded into the snapshot; the world puts these on the global object.

import { core, primordials } from 'ext:core/mod.js';

const load = (name) => core.loadExtScript(`ext:${name}.js`);

const {
  Number: NumberCtor,
  ObjectDefineProperty,
  PromiseReject,
  ReflectApply,
  StringPrototypeStartsWith,
  StringPrototypeToLowerCase,
} = primordials;

const { DOMException } = load('deno_web/01_dom_exception');
const { Event, EventTarget, CustomEvent, ErrorEvent } = load('deno_web/02_event');
const { structuredClone } = load('deno_web/02_structured_clone');
const { AbortController, AbortSignal } = load('deno_web/03_abort_signal');
const { atob, btoa } = load('deno_web/05_base64');
const { TextEncoder, TextDecoder, TextEncoderStream, TextDecoderStream } = load('deno_web/08_text_encoding');
const { Blob, File } = load('deno_web/09_file');
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
// Loaded here so that it is in the snapshot: deno_web loads it on first use otherwise (events of
// message ports), and its source is not kept for later.
load('deno_web/13_message_port');

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

// Web Crypto runs its costly work on tokio's blocking threads, outside the run's busy time and
// beyond the reach of termination, and Argon2 allocates outside the heap cap. What an algorithm
// may cost is bounded here, before any work starts; the checked members are copied, so a getter
// cannot answer differently when deno_crypto reads them again.
const MAX_PBKDF2_ITERATIONS = 1_000_000;
const MAX_RSA_MODULUS_BITS = 4096;

const isArgon2 = (name) => StringPrototypeStartsWith(StringPrototypeToLowerCase(name), 'argon2');

function bounded(algorithm) {
  if (algorithm === null || typeof algorithm !== 'object') {
    if (isArgon2(`${algorithm}`)) throw refusedAlgorithm('Argon2');
    return algorithm;
  }
  const name = `${algorithm.name}`;
  const lower = StringPrototypeToLowerCase(name);
  if (isArgon2(name)) throw refusedAlgorithm('Argon2');
  if (lower === 'pbkdf2') {
    const copy = { name, hash: algorithm.hash, salt: algorithm.salt, iterations: algorithm.iterations };
    if (NumberCtor(copy.iterations) > MAX_PBKDF2_ITERATIONS) {
      throw new DOMException(`PBKDF2 is limited to ${MAX_PBKDF2_ITERATIONS} iterations here: its work would escape the run's budgets`, 'NotSupportedError');
    }
    return copy;
  }
  if (StringPrototypeStartsWith(lower, 'rsa')) {
    const copy = { name, modulusLength: algorithm.modulusLength, publicExponent: algorithm.publicExponent, hash: algorithm.hash };
    if (NumberCtor(copy.modulusLength) > MAX_RSA_MODULUS_BITS) {
      throw new DOMException(`RSA keys are limited to ${MAX_RSA_MODULUS_BITS} bits here: generating larger ones would escape the run's budgets`, 'NotSupportedError');
    }
    return copy;
  }
  return algorithm;
}

function refusedAlgorithm(name) {
  return new DOMException(`${name} is not available: its memory would escape the run's heap cap`, 'NotSupportedError');
}

for (const method of ['deriveBits', 'deriveKey', 'generateKey']) {
  const native = SubtleCrypto.prototype[method];
  ObjectDefineProperty(SubtleCrypto.prototype, method, {
    __proto__: null,
    value: { [method](algorithm, ...rest) {
      try {
        algorithm = bounded(algorithm);
      } catch (error) {
        return PromiseReject(error);
      }
      return ReflectApply(native, this, [algorithm, ...rest]);
    } }[method],
  });
}

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
