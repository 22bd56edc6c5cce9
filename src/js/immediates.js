// deno_core's immediate queue, drained in its event loop's check phase as Node's is: after the
// turn's ops have resolved and its microtasks have run (a zero-delay timer waits for the next
// millisecond of tokio's clock, about 2 ms here, and a deferred op for another whole turn).

import { core } from 'ext:core/mod.js';

const { queueImmediate, immediateRefCount, kRefed } = core;

/**
 * Queues `fire` as an immediate: the entry has every field deno_core reads as its own and no
 * prototype, so a program's Object.prototype reaches none. Returns the entry, for `clearImmediate`.
 */
export const queueImmediateCall = (function queueImmediateCall(fire) {
  const entry = {
    __proto__: null,
    _idleNext: null,
    _idlePrev: null,
    _onImmediate: fire,
    _argv: undefined,
    _destroyed: false,
    asyncId: undefined,
    triggerAsyncId: undefined,
    [kRefed]: true,
  };
  immediateRefCount(true);
  queueImmediate(entry);
  return entry;
});
