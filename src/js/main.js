// The world's entry: puts the program's globals in place and hands `start` to the runtime.
// Evaluated once, into the snapshot; lockdown.js's function is then called in every isolate.

import { core } from 'ext:core/mod.js';
// long_strings.js first: it keeps V8's own Array.prototype.join, which interruptible.js then guards.
import 'ext:dsh/long_strings.js';
import 'ext:dsh/interruptible.js';
import 'ext:dsh/polling.js';
import 'ext:dsh/intl_memory.js';
// Evaluated here so that the node: modules, loaded later, find it in the snapshot.
import 'ext:dsh/node_errors.js';
import * as web from 'ext:dsh/web.js';
import * as world from 'ext:dsh/world.js';
import { Buffer } from 'ext:dsh/buffer.js';
import { lockdown } from 'ext:dsh/lockdown.js';
import { ownCallSites } from 'ext:dsh/source_text.js';
// Last: it calls into all of the above (see warm_up.js).
import 'ext:dsh/warm_up.js';

const { op_dsh_keep_world, op_lazy_load_esm } = core.ops;
const ObjectDefineProperty = Object.defineProperty;

// As a Node worker has them: writable, configurable, not enumerable.
function install(name, value) {
  ObjectDefineProperty(globalThis, name, { __proto__: null, value, enumerable: false, writable: true, configurable: true });
}

for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'clearTimeout', 'clearInterval', 'clearImmediate',
  'queueMicrotask', 'console', 'process']) {
  install(name, world[name]);
}
for (const name of ['AbortController', 'AbortSignal', 'atob', 'Blob', 'btoa', 'Crypto', 'CryptoKey', 'CustomEvent',
  'DOMException', 'Event', 'EventTarget', 'File', 'Performance', 'PerformanceEntry', 'PerformanceMark',
  'PerformanceMeasure', 'structuredClone', 'SubtleCrypto', 'TextDecoder', 'TextEncoder', 'URL', 'URLSearchParams']) {
  install(name, web[name]);
}
for (const name in web.streams) install(name, web.streams[name]);
install('performance', web.performance);
// A getter, as on Node's global object: the object is made on first use.
ObjectDefineProperty(globalThis, 'crypto', {
  __proto__: null,
  get: web.getCrypto,
  set(value) {
    install('crypto', value);
  },
  enumerable: false,
  configurable: true,
});
install('global', globalThis);
install('Buffer', Buffer);


// Called by the module loader (modules.rs) for each `node:` module a program imports, while no stop
// can reach the isolate.
const loadNodeModule = (function loadNodeModule(specifier) {
  op_lazy_load_esm(specifier);
});
op_dsh_keep_world(world.start, lockdown, core.hasTickScheduled, core.runNextTicks, loadNodeModule, ownCallSites);
// Every run asks it after its first turn: called once here, it is compiled into the snapshot.
core.hasTickScheduled();
