// Called in every isolate before its program, after the snapshot was restored: V8 installs
// SharedArrayBuffer and WebAssembly only then, and deno_core needs `Deno` until then. Compiled
// into the snapshot (in parentheses, as world.js's `start`): run as a script of its own, it was
// compiled again in every isolate.
//
// Memory that bypasses the counting ArrayBuffer allocator cannot be capped, so the program's
// world has none: no WebAssembly (its memories), and no resizable or growable buffers.

import { isObject, useFastExoticKind } from 'ext:dsh/abstract_ops.js';
import { presentAsBuiltin } from 'ext:dsh/source_text.js';
import { useFastListingKind } from 'ext:dsh/listing_guards.js';

export const lockdown = (function lockdown(listingKind, exoticKind) {
  useFastListingKind(listingKind);
  useFastExoticKind(exoticKind);
  const ObjectDefineProperty = Object.defineProperty;
  const ProxyCtor = Proxy;
  const RangeErrorCtor = RangeError;
  const ReflectConstruct = Reflect.construct;
  // deno_core reads these while it restores a snapshot; the world captured what it needs.
  delete globalThis.Deno;
  delete globalThis.__bootstrap;
  delete globalThis.WebAssembly;
  for (const BufferCtor of [ArrayBuffer, SharedArrayBuffer]) {
    const guarded = new ProxyCtor(BufferCtor, {
      __proto__: null,
      construct(target, args, newTarget) {
        const options = args[1];
        if (isObject(options) && options.maxByteLength !== undefined) {
          throw new RangeErrorCtor(`resizable ${target.name}s are not available: their memory would escape the run's heap cap`);
        }
        return ReflectConstruct(target, [args[0]], newTarget === guarded ? target : newTarget);
      },
    });
    const slot = { __proto__: null, value: presentAsBuiltin(guarded, BufferCtor), enumerable: false, writable: true, configurable: true };
    ObjectDefineProperty(BufferCtor.prototype, 'constructor', slot);
    ObjectDefineProperty(globalThis, BufferCtor.name, slot);
  }
});
