// node:timers/promises, on the world's timers. An abort rejects with Node's AbortError, the
// signal's reason as its cause.

import { primordials } from 'ext:core/mod.js';
import { AbortSignal, EventTarget } from 'ext:dsh/web.js';
import { clearImmediate, clearInterval, clearTimeout, setImmediate, setInterval, setTimeout } from 'ext:dsh/world.js';
import { invalidArgType } from 'ext:dsh/node_errors.js';

const {
  Error,
  ObjectPrototypeIsPrototypeOf,
  Promise,
  PromiseReject,
  ReflectApply,
  TypeError,
} = primordials;
const { addEventListener, removeEventListener } = EventTarget.prototype;

class AbortError extends Error {
  constructor(message = 'The operation was aborted', options = undefined) {
    super(message, options);
    this.code = 'ABORT_ERR';
    this.name = 'AbortError';
  }
}

const aborted = (signal) => new AbortError(undefined, { cause: signal.reason });

// The options' signal, after Node's checks of the options.
function signalOf(options) {
  if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
  const { signal, ref } = options;
  if (signal !== undefined && !ObjectPrototypeIsPrototypeOf(AbortSignal.prototype, signal)) {
    throw invalidArgType('options.signal', 'an instance of AbortSignal', signal);
  }
  if (ref !== undefined && typeof ref !== 'boolean') throw invalidArgType('options.ref', 'of type boolean', ref);
  return signal;
}

// Resolves with `value` when `schedule` fires, unless `signal` aborts first; Node rejects rather
// than throws for bad options.
function settle(options, value, schedule, cancel) {
  let signal;
  try {
    signal = signalOf(options);
  } catch (error) {
    return PromiseReject(error);
  }
  if (signal?.aborted) return PromiseReject(aborted(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      cancel(id);
      reject(aborted(signal));
    };
    const id = schedule(() => {
      if (signal !== undefined) ReflectApply(removeEventListener, signal, ['abort', onAbort]);
      resolve(value);
    });
    if (signal !== undefined) ReflectApply(addEventListener, signal, ['abort', onAbort, { once: true }]);
  });
}

function setTimeoutPromise(delay, value, options = {}) {
  return settle(options, value, (fire) => setTimeout(fire, delay), clearTimeout);
}

function setImmediatePromise(value, options = {}) {
  return settle(options, value, (fire) => setImmediate(fire), clearImmediate);
}

// Yields `value` once per tick of the interval, ticks missed while the consumer was busy included.
async function* setIntervalIterator(delay, value, options = {}) {
  const signal = signalOf(options);
  if (signal?.aborted) throw aborted(signal);
  let pending = 0;
  let wake;
  const id = setInterval(() => {
    pending++;
    wake?.();
  }, delay);
  const onAbort = () => wake?.();
  if (signal !== undefined) ReflectApply(addEventListener, signal, ['abort', onAbort, { once: true }]);
  try {
    while (!signal?.aborted) {
      if (pending === 0) {
        await new Promise((resolve) => {
          wake = resolve;
        });
        wake = undefined;
        continue;
      }
      pending--;
      yield value;
    }
    throw aborted(signal);
  } finally {
    clearInterval(id);
    if (signal !== undefined) ReflectApply(removeEventListener, signal, ['abort', onAbort]);
  }
}

const scheduler = {
  wait(delay, options) {
    return setTimeoutPromise(delay, undefined, options);
  },
  yield() {
    return setImmediatePromise();
  },
};

export default {
  setTimeout: setTimeoutPromise,
  setImmediate: setImmediatePromise,
  setInterval: setIntervalIterator,
  scheduler,
};
export { scheduler, setImmediatePromise as setImmediate, setIntervalIterator as setInterval, setTimeoutPromise as setTimeout };
