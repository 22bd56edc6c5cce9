// node:events: the `events` package (vendored) for EventEmitter, with Node's errorMonitor and
// ERR_UNHANDLED_ERROR added to our copy's emit, and Node's once() and on(), which take an
// AbortSignal, written here.

import { primordials } from 'ext:core/mod.js';
import { inspect } from 'ext:dsh/inspect.js';
import { AbortSignal, EventTarget } from 'ext:dsh/web.js';
import { require } from 'ext:dsh/vendor.js';
import { invalidArgType, nodeError } from 'ext:dsh/node_errors.js';

const {
  ArrayPrototypePush,
  ArrayPrototypeShift,
  ArrayPrototypeSlice,
  Error,
  ObjectGetPrototypeOf,
  ObjectPrototypeIsPrototypeOf,
  ObjectSetPrototypeOf,
  Promise,
  PromiseReject,
  PromiseResolve,
  ReflectApply,
  Symbol,
  TypeError,
} = primordials;
const { addEventListener, removeEventListener } = EventTarget.prototype;
const AsyncIteratorPrototype = ObjectGetPrototypeOf(ObjectGetPrototypeOf(async function* () {}).prototype);

class AbortError extends Error {
  constructor(message = 'The operation was aborted', options = undefined) {
    super(message, options);
    this.code = 'ABORT_ERR';
    this.name = 'AbortError';
  }
}

const EventEmitter = require('events');
const errorMonitor = Symbol('events.errorMonitor');
const vendoredEmit = EventEmitter.prototype.emit;

EventEmitter.prototype.emit = function emit(type) {
  if (type === 'error') {
    const events = this._events;
    if (events !== undefined && events[errorMonitor] !== undefined) {
      const args = ArrayPrototypeSlice(arguments);
      args[0] = errorMonitor;
      ReflectApply(vendoredEmit, this, args);
    }
    const error = arguments[1];
    // The vendored emit rethrows an unhandled Error itself; anything else Node wraps like this.
    if ((events === undefined || events.error === undefined) && !ObjectPrototypeIsPrototypeOf(Error.prototype, error)) {
      const wrapped = nodeError(Error, 'ERR_UNHANDLED_ERROR', `Unhandled error. (${inspect(error, { depth: 2 })})`);
      wrapped.context = error;
      throw wrapped;
    }
  }
  return ReflectApply(vendoredEmit, this, arguments);
};

// The signal of once()'s and on()'s options; Node ignores options that are not an object.
function signalOf(options) {
  const signal = options?.signal;
  if (signal !== undefined && !ObjectPrototypeIsPrototypeOf(AbortSignal.prototype, signal)) {
    throw invalidArgType('options.signal', 'an instance of AbortSignal', signal);
  }
  return signal;
}

// Listening on an EventEmitter or, as Node allows, an EventTarget; only an emitter has 'error'.
function listener(emitter) {
  if (typeof emitter?.on === 'function') {
    return {
      add: (name, fn) => emitter.on(name, fn),
      remove: (name, fn) => emitter.removeListener(name, fn),
      errors: true,
    };
  }
  if (typeof emitter?.addEventListener === 'function') {
    return {
      add: (name, fn) => emitter.addEventListener(name, fn),
      remove: (name, fn) => emitter.removeEventListener(name, fn),
      errors: false,
    };
  }
  throw invalidArgType('emitter', 'an instance of EventEmitter', emitter);
}

function once(emitter, name, options = {}) {
  return new Promise((resolve, reject) => {
    const signal = signalOf(options);
    const target = listener(emitter);
    if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
    const watchErrors = target.errors && name !== 'error';
    const settle = () => {
      target.remove(name, onEvent);
      if (watchErrors) target.remove('error', onError);
      if (signal !== undefined) ReflectApply(removeEventListener, signal, ['abort', onAbort]);
    };
    const onEvent = (...args) => {
      settle();
      resolve(args);
    };
    const onError = (error) => {
      settle();
      reject(error);
    };
    const onAbort = () => onError(new AbortError(undefined, { cause: signal.reason }));
    target.add(name, onEvent);
    if (watchErrors) target.add('error', onError);
    if (signal !== undefined) ReflectApply(addEventListener, signal, ['abort', onAbort, { once: true }]);
  });
}

// An async iterator of the argument lists of `name`'s events, queued until read; an 'error'
// event or an abort ends it by throwing, and any of `options.close` ends it quietly.
function on(emitter, name, options = {}) {
  const signal = signalOf(options);
  const target = listener(emitter);
  if (signal?.aborted) throw new AbortError(undefined, { cause: signal.reason });
  const closers = options?.close ?? [];
  const queued = [];
  const waiting = [];
  let failure;
  let failed = false;
  let finished = false;
  const onEvent = (...args) => {
    if (waiting.length > 0) ArrayPrototypeShift(waiting).resolve({ value: args, done: false });
    else ArrayPrototypePush(queued, args);
  };
  const close = () => {
    if (finished) return;
    finished = true;
    target.remove(name, onEvent);
    if (target.errors && name !== 'error') target.remove('error', onError);
    for (let i = 0; i < closers.length; i++) target.remove(closers[i], close);
    if (signal !== undefined) ReflectApply(removeEventListener, signal, ['abort', onAbort]);
    while (waiting.length > 0) ArrayPrototypeShift(waiting).resolve({ value: undefined, done: true });
  };
  const onError = (error) => {
    if (waiting.length > 0) {
      ArrayPrototypeShift(waiting).reject(error);
    } else {
      failure = error;
      failed = true;
    }
    close();
  };
  const onAbort = () => onError(new AbortError(undefined, { cause: signal.reason }));
  target.add(name, onEvent);
  if (target.errors && name !== 'error') target.add('error', onError);
  for (let i = 0; i < closers.length; i++) target.add(closers[i], close);
  if (signal !== undefined) ReflectApply(addEventListener, signal, ['abort', onAbort, { once: true }]);
  const iterator = {
    next() {
      if (queued.length > 0) return PromiseResolve({ value: ArrayPrototypeShift(queued), done: false });
      if (failed) {
        failed = false;
        return PromiseReject(failure);
      }
      if (finished) return PromiseResolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => ArrayPrototypePush(waiting, { resolve, reject }));
    },
    return() {
      close();
      return PromiseResolve({ value: undefined, done: true });
    },
  };
  return ObjectSetPrototypeOf(iterator, AsyncIteratorPrototype);
}

EventEmitter.errorMonitor = errorMonitor;
EventEmitter.once = once;
EventEmitter.on = on;

export default EventEmitter;
export { EventEmitter, errorMonitor, on, once };
export const { defaultMaxListeners, listenerCount } = EventEmitter;
