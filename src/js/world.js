// The program's world: console, process, timers, binding namespaces and error classes.
// Evaluated once, into the snapshot; every intrinsic it uses later is captured here, so a
// program that rewrites globals cannot change how its results are delivered.

import { core } from 'ext:core/mod.js';
import { inspect } from 'ext:dsh/inspect.js';
import { performance, setTimeOrigin } from 'ext:dsh/web.js';
import * as durable from 'ext:dsh/durable.js';
import { send } from 'ext:dsh/binding_calls.js';
import { queueImmediateCall } from 'ext:dsh/immediates.js';
import { adoptTypedArrayKind } from 'ext:dsh/polling.js';
import { JSONParse } from 'ext:dsh/abstract_ops.js';
import { copied, forInKeys, forInNext, forInSubject, parameterKey, poll, spreadable, spreadableEach, spreadableEachAsync } from 'ext:dsh/listing_guards.js';
import { arrayLength } from 'ext:dsh/interruptible.js';
const {
  op_dsh_log,
  op_dsh_log_simple,
  op_dsh_snapshotting,
  op_dsh_args_json,
  op_dsh_settle_value,
  op_dsh_settle_thrown,
  op_dsh_settle_thrown_later,
  op_dsh_exit,
} = core.ops;
const {
  createTimer,
  cancelTimer,
  getAsyncContext,
  queueNextTick,
  clearImmediate: dequeueImmediate,
} = core;
const nativeQueueMicrotask = globalThis.queueMicrotask;

const BigIntCtor = BigInt;
const ErrorCtor = Error;
const MathFloor = Math.floor;
const MathRound = Math.round;
const RealPerformanceNow = performance.now.bind(performance);
// A durable run reads its journal's clock.
const PerformanceNow = () => (durable.isDurable() ? durable.elapsed() : RealPerformanceNow());
const TypeErrorCtor = TypeError;
const MapCtor = Map;
const MapPrototypeGet = Map.prototype.get;
const MapPrototypeSet = Map.prototype.set;
const MapPrototypeDelete = Map.prototype.delete;
const NumberCtor = Number;
const ObjectCreate = Object.create;
const ObjectDefineProperty = Object.defineProperty;
const PromiseCtor = Promise;
const PromisePrototypeThen = Promise.prototype.then;
const ReflectApply = Reflect.apply;
const StringCtor = String;
const StringPrototypeSlice = String.prototype.slice;

// Descriptors have no prototype: a program may define `get` or `set` on Object.prototype.
const sealed = { __proto__: null, enumerable: true, writable: false, configurable: false };

function rejected(error) {
  return new PromiseCtor((_, reject) => reject(error));
}

// An error escaping a timer, a microtask or an unhandled rejection ends an unsettled run (the op
// renders it in a microtask of its own); a durable run's journal reaches its host first.
function settleThrownLater(error) {
  if (durable.isDurable()) durable.flushThen(() => op_dsh_settle_thrown_later(error));
  else op_dsh_settle_thrown_later(error);
}
core.setReportExceptionCallback(settleThrownLater);
core.setUnhandledPromiseRejectionHandler((_promise, reason) => {
  settleThrownLater(reason);
  return true;
});
durable.onTimerError(settleThrownLater);

function emit(args) {
  // Lines of strings, other primitives and flat plain objects are written natively (console_line.rs).
  if (op_dsh_log_simple(args)) return;
  let text = '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const part = typeof arg === 'string' ? arg : inspect(arg);
    text = i === 0 ? part : text + ' ' + part;
  }
  op_dsh_log(text);
}

const console = ObjectCreate(null);
for (const level of ['log', 'info', 'warn', 'error', 'debug']) {
  ObjectDefineProperty(console, level, {
    __proto__: null,
    value: { [level](...args) { emit(args); } }[level],
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function checkCallback(callback) {
  if (typeof callback !== 'function') {
    throw new TypeErrorCtor('The "callback" argument must be of type function');
  }
}

// process.stdout and process.stderr: `write` lives on the prototype, as on Node's streams, so a
// call through the prototype lands in the same ledger.
class WriteStream {
  write(chunk, encoding, callback) {
    op_dsh_log(typeof chunk === 'string' ? chunk : StringCtor(chunk));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') nativeQueueMicrotask(() => done(null));
    return true;
  }
}
ObjectDefineProperty(WriteStream.prototype, 'isTTY', { __proto__: null, value: false });

/** Seconds and nanoseconds since the run's time origin, as Node's process.hrtime gives them. */
function hrtime(previous) {
  const nanos = MathRound(PerformanceNow() * 1e6);
  let seconds = MathFloor(nanos / 1e9);
  let rest = nanos - seconds * 1e9;
  if (previous !== undefined) {
    seconds -= previous[0];
    rest -= previous[1];
    if (rest < 0) {
      seconds--;
      rest += 1e9;
    }
  }
  return [seconds, rest];
}
hrtime.bigint = function bigint() {
  return BigIntCtor(MathRound(PerformanceNow() * 1e6));
};

// Read-only facts a program checks to know it runs on Node. None of them is the host's: they are
// the same on every machine (see the README).
const process = {
  title: 'node',
  version: 'v24.0.0',
  versions: { __proto__: null, node: '24.0.0' },
  release: { __proto__: null, name: 'node' },
  platform: 'linux',
  arch: 'x64',
  pid: 1,
  ppid: 0,
  argv: ['node'],
  execArgv: [],
  env: {},
  exitCode: undefined,
  stdout: new WriteStream(),
  stderr: new WriteStream(),
  cwd() {
    return '/';
  },
  uptime() {
    return PerformanceNow() / 1000;
  },
  hrtime,
  // deno_core's own tick queue, drained after the current callback and its microtasks, before
  // timers: Node's order.
  nextTick(callback, ...args) {
    checkCallback(callback);
    queueNextTick({ callback, args, snapshot: getAsyncContext() });
  },
  exit(code) {
    const status = code === undefined ? 0 : NumberCtor(code) | 0;
    // A durable run's journal goes to its host first; the exit itself stays immediate.
    if (durable.isDurable()) durable.flushNow();
    op_dsh_exit(status);
  },
};

const timers = new MapCtor();
const immediates = new MapCtor();
let nextTimerId = 1;

function schedule(callback, delay, args, repeat, immediate = false) {
  checkCallback(callback);
  if (durable.isDurable()) return durable.schedule(callback, delay, args, repeat, immediate);
  const id = nextTimerId++;
  const scheduled = immediate ? immediates : timers;
  const fire = () => {
    if (!repeat) ReflectApply(MapPrototypeDelete, scheduled, [id]);
    try {
      ReflectApply(callback, undefined, args);
    } catch (error) {
      op_dsh_settle_thrown_later(error);
    }
  };
  const entry = immediate ? queueImmediateCall(fire) : createTimer(fire, delay, undefined, repeat, true);
  ReflectApply(MapPrototypeSet, scheduled, [id, entry]);
  return id;
}

function unschedule(id) {
  if (durable.isDurable()) {
    durable.unschedule(id);
    return;
  }
  const timer = ReflectApply(MapPrototypeGet, timers, [id]);
  if (timer !== undefined) {
    ReflectApply(MapPrototypeDelete, timers, [id]);
    cancelTimer(timer);
    return;
  }
  const entry = ReflectApply(MapPrototypeGet, immediates, [id]);
  if (entry !== undefined) {
    ReflectApply(MapPrototypeDelete, immediates, [id]);
    dequeueImmediate(entry);
  }
}

export function setTimeout(callback, delay, ...args) {
  return schedule(callback, delay, args, false);
}
export function setInterval(callback, delay, ...args) {
  return schedule(callback, delay, args, true);
}
// In the event loop's check phase, as Node's are; its id is a timer id like any other.
export function setImmediate(callback, ...args) {
  return schedule(callback, 0, args, false, true);
}
export function clearTimeout(id) {
  unschedule(id);
}
export function clearInterval(id) {
  unschedule(id);
}
export function clearImmediate(id) {
  unschedule(id);
}
export function queueMicrotask(callback) {
  checkCallback(callback);
  nativeQueueMicrotask(() => {
    try {
      callback();
    } catch (error) {
      settleThrownLater(error);
    }
  });
}

export { console, process };

// One constructor per namespace with an errorClass, built as (memberName, message).
function makeErrorClass(name, memberNameProperty) {
  const BindingCallError = class extends ErrorCtor {
    constructor(memberName, message) {
      super(message);
      ObjectDefineProperty(this, 'name', { __proto__: null, ...sealed, value: name });
      ObjectDefineProperty(this, memberNameProperty, { __proto__: null, ...sealed, value: memberName });
    }
  };
  return BindingCallError;
}

// Every run calls it first: called once here, it is compiled into the snapshot, not in each run.
// While the snapshot is made it reads no clock (snapshot.rs), so the snapshot's bytes stay the same.
setTimeOrigin();

// How a namespace's bindings make their errors: of its errorClass (`undefined` for none), by member.
function errorMaker(ErrorClass) {
  if (ErrorClass === undefined) return () => (message) => new ErrorCtor(message);
  return (member) => (message) => new ErrorClass(member, message);
}

function makeBinding(namespaceIndex, nameIndex, global, name, makeError) {
  const settle = (tagged) => {
    const body = ReflectApply(StringPrototypeSlice, tagged, [1]);
    if (tagged[0] === 'V') return JSONParse(body);
    throw makeError(JSONParse(body));
  };
  return (args) => {
    const json = op_dsh_args_json(args);
    if (!json) return rejected(makeError('binding arguments must be lossless JSON'));
    if (durable.isDurable()) return durable.call(namespaceIndex, nameIndex, global, name, json, makeError);
    return ReflectApply(PromisePrototypeThen, send(namespaceIndex, nameIndex, json), [settle]);
  };
}

// Builds the program's arguments from the namespaces, calls it and reports how it settles.
// `namespaces` is [[global, names, errorClassName?, memberNameProperty?], ...].
// In parentheses, so that V8 compiles it with the module (and into the snapshot) rather than in
// every run: every run calls it, and the snapshot compiles lazily.
export const start = (function start(program, namespacesJson, guarded) {
  // A program whose listings are guarded comes as a function that binds the guards around it.
  if (guarded) program = program(forInKeys, spreadable, spreadableEach, parameterKey, poll, arrayLength, forInSubject, forInNext, spreadableEachAsync, copied);
  setTimeOrigin();
  adoptTypedArrayKind(globalThis.Float16Array);
  let namespaces = JSONParse(namespacesJson);
  // A durable run's host sends `{ namespaces, durable }`.
  const durableRun = namespaces.durable;
  if (durableRun !== undefined) {
    namespaces = namespaces.namespaces;
    durable.begin(durableRun, () => op_dsh_settle_value(undefined), op_dsh_settle_thrown);
  }
  const objects = [];
  const errorClasses = [];
  for (let n = 0; n < namespaces.length; n++) {
    const [global, names, errorName, memberNameProperty] = namespaces[n];
    const object = ObjectCreate(null);
    let ErrorClass;
    if (errorName) {
      ErrorClass = makeErrorClass(errorName, memberNameProperty);
      errorClasses[errorClasses.length] = ErrorClass;
    }
    const makeError = errorMaker(ErrorClass);
    for (let i = 0; i < names.length; i++) {
      ObjectDefineProperty(object, names[i], { __proto__: null, ...sealed, value: makeBinding(n, i, global, names[i], makeError(names[i])) });
    }
    objects[objects.length] = object;
  }
  const args = [...objects, ...errorClasses, console];
  // The ops themselves are the reactions: V8 calls them with no frame of ours below.
  const settled = ReflectApply(program, undefined, args);
  if (durableRun === undefined) {
    ReflectApply(PromisePrototypeThen, settled, [op_dsh_settle_value, op_dsh_settle_thrown]);
  } else {
    ReflectApply(PromisePrototypeThen, settled, [
      (value) => durable.flushThen(() => op_dsh_settle_value(value)),
      (error) => durable.flushThen(() => op_dsh_settle_thrown(error)),
    ]);
  }
});

// Nearly every run makes a binding namespace, calls a binding and logs, and many set a timer: done
// once while the snapshot is made, so that this code is compiled into it rather than in each run.
// Then the ops of a run are stand-ins that keep nothing (snapshot.rs), and the call's answer comes as
// a host's would. Only deno_core's own counters (promise and timer ids) move on, which no program sees.
if (op_dsh_snapshotting()) {
  for (const ErrorClass of [makeErrorClass('WarmError', 'member'), undefined]) {
    const makeError = errorMaker(ErrorClass);
    makeBinding(0, 0, 'warm', 'call', makeError('call'))({});
    makeError('call')('warm');
  }
  console.log('warm', 1, { a: 1 });
  // It fires before the snapshot is written; a program's first timer is still number 1.
  setTimeout(() => {}, 0);
  nextTimerId = 1;
}
