// The web platform as a Node worker has it, from Deno's own implementations (deno_web,
// deno_webidl, deno_crypto), which their authors test against the web platform tests.
// Loaded into the snapshot; the world puts these on the global object.

import { core } from 'ext:core/mod.js';

const load = (name) => core.loadExtScript(`ext:${name}.js`);

const { DOMException } = load('deno_web/01_dom_exception');
const { Event, EventTarget, CustomEvent, ErrorEvent } = load('deno_web/02_event');
const { structuredClone } = load('deno_web/02_structured_clone');
const { AbortController, AbortSignal } = load('deno_web/03_abort_signal');
const { atob, btoa } = load('deno_web/05_base64');
const { TextEncoder, TextDecoder } = load('deno_web/08_text_encoding');
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

const { Crypto, CryptoKey, SubtleCrypto } = webCrypto;

/** The Web Crypto object, made on first use: it wraps native state a snapshot cannot hold. */
function getCrypto() {
  return webCrypto.crypto;
}

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
  structuredClone,
  SubtleCrypto,
  TextDecoder,
  TextEncoder,
  URL,
  URLSearchParams,
};
