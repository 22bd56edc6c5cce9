// A durable run's side of the isolate: everything the program can observe that does not come from
// its own code arrives here as an event, one per turn of the event loop, once the program has
// nothing else to run. Live, events are binding answers and timer firings, taken in the order they
// became ready and recorded with their virtual time; in a replay they are taken from the journal,
// so the program sees the same answers, at the same points, at the same clock readings. The clock,
// `Math.random` and Web Crypto's random values are the journal's too; what cannot be replayed
// (garbage collection's timing, work finishing on other threads) is refused with a TypeError.
//
// The host's side (lib/durable.js) keeps the journal: every binding call and every event recorded
// here reaches it through the control namespace, `sync`, with the calls it must make.

import { core } from 'ext:core/mod.js';
import { presentAsBuiltin } from 'ext:dsh/source_text.js';
import { AbortController, AbortSignal, Blob, Crypto, DOMException, performance } from 'ext:dsh/web.js';
import { JSONParse, list } from 'ext:dsh/abstract_ops.js';
import { send as sendCall, takeWaiting, waiting as callsWait } from 'ext:dsh/binding_calls.js';
import { queueImmediateCall } from 'ext:dsh/immediates.js';

const { op_dsh_text_sha256 } = core.ops;
const { createTimer, cancelTimer } = core;

const DateCtor = Date;
const DateNow = Date.now;
const JSONStringify = JSON.stringify;
const DatePrototypeToString = Date.prototype.toString;
const MapCtor = Map;
const MapPrototypeDelete = Map.prototype.delete;
const MapPrototypeGet = Map.prototype.get;
const MapPrototypeSet = Map.prototype.set;
const MapPrototypeValues = Map.prototype.values;
const MapIteratorPrototypeNext = Object.getPrototypeOf(new Map().values()).next;
const MapPrototypeGetSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get;
const MathFloor = Math.floor;
const MathMax = Math.max;
const MathRandom = Math.random;
const NumberCtor = Number;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const PromiseCtor = Promise;
const PromisePrototypeThen = Promise.prototype.then;
const RealNow = performance.now.bind(performance);
const ReflectApply = Reflect.apply;
const ReflectConstruct = Reflect.construct;
const StringPrototypePadStart = String.prototype.padStart;
const StringPrototypeSlice = String.prototype.slice;
const TypeErrorCtor = TypeError;
const Uint8ArrayCtor = Uint8Array;
const TypedArrayPrototypeGetBuffer = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'buffer').get;
const TypedArrayPrototypeGetByteOffset = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteOffset').get;
const TypedArrayPrototypeGetByteLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), 'byteLength').get;
const NumberPrototypeToString = Number.prototype.toString;

/** Turns a replay waits for the program to make the call its journal expects next. */
const IDLE_TURNS = 3;

/** Node's longest timer delay; longer (or shorter than 1, or NaN) is 1. */
const TIMEOUT_MAX = 2 ** 31 - 1;

/** The durable run in this isolate, once `begin` has found one. */
let run = null;

export const isDurable = (function isDurable() {
  return run !== null;
});

const describe = (function describe(event) {
  if (event === undefined) return 'the end of the journal';
  switch (event.type) {
    case 'call': return `call ${event.id}, ${event.global}.${event.name} with arguments ${event.argsHash}`;
    case 'timer': return `timer ${event.id}`;
    default: return `${event.type} to call ${event.id}`;
  }
});

/** Ends the run as an exception: the program no longer does what its journal recorded. */
const diverge = (function diverge(expected, found) {
  if (run.finished) return;
  run.finished = true;
  run.failWith(`the run diverged from its journal at event ${run.cursor}: expected ${describe(expected)}, found ${found}`);
});

// Everything the runtime keeps for itself after the program has started is out of the program's
// reach: a list has no prototype (a setter a program puts on Array.prototype's indices would see what
// is pushed), a Map is walked with its iterator's own method, and the journal is read within its length.

/** `map`'s values, in order, as a list. */
const valuesOf = (function valuesOf(map) {
  const values = list();
  const iterator = ReflectApply(MapPrototypeValues, map, []);
  for (let step = ReflectApply(MapIteratorPrototypeNext, iterator, []); !step.done; step = ReflectApply(MapIteratorPrototypeNext, iterator, [])) {
    values[values.length] = step.value;
  }
  return values;
});

/** The journal's event at `index`, or undefined past its end. */
const journalAt = (function journalAt(index) {
  return index < run.journal.length ? run.journal[index] : undefined;
});

const hexByte = (byte) => ReflectApply(StringPrototypePadStart, ReflectApply(NumberPrototypeToString, byte, [16]), [2, '0']);


// sfc32 from the journal's 128-bit seed: small, fast, and the same on every machine.
const randomSource = (function randomSource(seedHex) {
  let a = NumberCtor(`0x${ReflectApply(StringPrototypeSlice, seedHex, [0, 8])}`) | 0;
  let b = NumberCtor(`0x${ReflectApply(StringPrototypeSlice, seedHex, [8, 16])}`) | 0;
  let c = NumberCtor(`0x${ReflectApply(StringPrototypeSlice, seedHex, [16, 24])}`) | 0;
  let d = NumberCtor(`0x${ReflectApply(StringPrototypeSlice, seedHex, [24, 32])}`) | 0;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next();
  return next;
});

/**
 * Starts durable mode for this isolate's run, before the program: `config` is the host's
 * `{ seed, startTime, events, replayOnly, control, maxEvents }`; `end()` ends the run with no value
 * (once the host knows it is suspended); `failWith(message)` ends the run as an
 * exception with that message.
 */
export const begin = (function begin(config, end, failWith) {
  run = {
    journal: config.events,
    cursor: 0,
    replayOnly: config.replayOnly,
    control: config.control,
    startTime: config.startTime,
    now: 0,
    live: false,
    liveOffset: 0,
    liveStart: 0,
    random: randomSource(config.seed),
    /** The events recorded since the last message, as JSON text joined by commas. */
    recorded: '',
    calls: new MapCtor(),
    /** Of `calls`, those that wait for the caller's resolution. */
    suspendedCalls: 0,
    nextCallId: 1,
    timers: new MapCtor(),
    nextTimerId: 1,
    timerSequence: 0,
    /** Answers not yet delivered, in the order they came: `arrivals[firstArrival]` on. */
    arrivals: list(),
    firstArrival: 0,
    pump: null,
    pumpSoon: false,
    idleTurns: 0,
    pumpAt: Infinity,
    finished: false,
    end,
    failWith,
    events: config.events.length,
    maxEvents: config.maxEvents,
  };
  installWorld();
  if (run.journal.length === 0) goLive();
  // The program's first turn runs before any event, as it did live.
  else schedulePump(0);
});

// ---- the clock and randomness ----

/** Milliseconds since the run's start on the virtual clock. */
export const elapsed = (function elapsed() {
  return run.now;
});

const liveNow = (function liveNow() {
  return run.liveOffset + (RealNow() - run.liveStart);
});

const randomBytes = (function randomBytes(bytes) {
  for (let i = 0; i < bytes.length; i += 4) {
    let word = run.random();
    for (let j = 0; j < 4 && i + j < bytes.length; j++) {
      bytes[i + j] = word & 0xff;
      word >>>= 8;
    }
  }
});

const installWorld = (function installWorld() {
  const VirtualDate = function Date(...args) {
    if (new.target === undefined) return ReflectApply(DatePrototypeToString, new DateCtor(run.startTime + run.now), []);
    return ReflectConstruct(DateCtor, args.length === 0 ? [run.startTime + run.now] : args, new.target);
  };
  ObjectDefineProperty(VirtualDate, 'length', { __proto__: null, value: 7, configurable: true });
  ObjectDefineProperty(VirtualDate, 'prototype', { __proto__: null, value: DateCtor.prototype });
  for (const name of ['parse', 'UTC']) {
    ObjectDefineProperty(VirtualDate, name, { __proto__: null, ...ObjectGetOwnPropertyDescriptor(DateCtor, name) });
  }
  const now = { now() { return run.startTime + MathFloor(run.now); } }.now;
  ObjectDefineProperty(VirtualDate, 'now', { __proto__: null, value: presentAsBuiltin(now, DateNow), writable: true, configurable: true });
  ObjectDefineProperty(DateCtor.prototype, 'constructor', { __proto__: null, value: VirtualDate, writable: true, configurable: true });
  ObjectDefineProperty(globalThis, 'Date', { __proto__: null, value: presentAsBuiltin(VirtualDate, DateCtor), writable: true, configurable: true });

  // Formatting "now" reads the host's clock inside ICU.
  const DateTimeFormatPrototype = Intl.DateTimeFormat.prototype;
  const format = ObjectGetOwnPropertyDescriptor(DateTimeFormatPrototype, 'format');
  ObjectDefineProperty(DateTimeFormatPrototype, 'format', {
    __proto__: null,
    ...format,
    get: presentAsBuiltin(ObjectGetOwnPropertyDescriptor({ get format() {
      const bound = ReflectApply(format.get, this, []);
      return presentAsBuiltin((date) => bound(date === undefined ? run.startTime + run.now : date), bound);
    } }, 'format').get, format.get),
  });
  const formatToParts = ObjectGetOwnPropertyDescriptor(DateTimeFormatPrototype, 'formatToParts');
  ObjectDefineProperty(DateTimeFormatPrototype, 'formatToParts', {
    __proto__: null,
    ...formatToParts,
    value: presentAsBuiltin({ formatToParts(date) {
      return ReflectApply(formatToParts.value, this, [date === undefined ? run.startTime + run.now : date]);
    } }.formatToParts, formatToParts.value),
  });

  const PerformancePrototype = ObjectGetPrototypeOf(performance);
  ObjectDefineProperty(PerformancePrototype, 'now', {
    __proto__: null,
    ...ObjectGetOwnPropertyDescriptor(PerformancePrototype, 'now'),
    value: { now() { return run.now; } }.now,
  });
  ObjectDefineProperty(PerformancePrototype, 'timeOrigin', {
    __proto__: null,
    ...ObjectGetOwnPropertyDescriptor(PerformancePrototype, 'timeOrigin'),
    get: ObjectGetOwnPropertyDescriptor({ get timeOrigin() { return run.startTime; } }, 'timeOrigin').get,
  });

  ObjectDefineProperty(Math, 'random', {
    __proto__: null,
    value: presentAsBuiltin({ random() { return (run.random() * 2 ** 21 + (run.random() >>> 11)) / 2 ** 53; } }.random, MathRandom),
    writable: true,
    configurable: true,
  });

  // The host's generator checks the array exactly as Web Crypto does; the bytes are then the seed's.
  const nativeGetRandomValues = Crypto.prototype.getRandomValues;
  ObjectDefineProperty(Crypto.prototype, 'getRandomValues', {
    __proto__: null,
    ...ObjectGetOwnPropertyDescriptor(Crypto.prototype, 'getRandomValues'),
    value: { getRandomValues(array) {
      const checked = ReflectApply(nativeGetRandomValues, this, [array]);
      randomBytes(new Uint8ArrayCtor(ReflectApply(TypedArrayPrototypeGetBuffer, checked, []),
        ReflectApply(TypedArrayPrototypeGetByteOffset, checked, []), ReflectApply(TypedArrayPrototypeGetByteLength, checked, [])));
      return checked;
    } }.getRandomValues,
  });
  ObjectDefineProperty(Crypto.prototype, 'randomUUID', {
    __proto__: null,
    ...ObjectGetOwnPropertyDescriptor(Crypto.prototype, 'randomUUID'),
    value: { randomUUID() {
      const bytes = new Uint8ArrayCtor(16);
      randomBytes(bytes);
      bytes[6] = (bytes[6] & 0x0f) | 0x40;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      let text = '';
      for (let i = 0; i < 16; i++) {
        if (i === 4 || i === 6 || i === 8 || i === 10) text += '-';
        text += hexByte(bytes[i]);
      }
      return text;
    } }.randomUUID,
  });

  const refuse = (what, why) => {
    throw new TypeErrorCtor(`${what} is not available in a durable run: ${why}, which no journal can replay`);
  };
  const offThread = 'its work completes on another thread, at a time';
  ObjectDefineProperty(Crypto.prototype, 'subtle', {
    __proto__: null,
    get: ObjectGetOwnPropertyDescriptor({ get subtle() { return refuse('crypto.subtle', offThread); } }, 'subtle').get,
    configurable: true,
  });
  for (const name of ['arrayBuffer', 'bytes', 'text', 'stream']) {
    ObjectDefineProperty(Blob.prototype, name, {
      __proto__: null,
      value: { [name]() { return refuse(`Blob.prototype.${name}`, offThread); } }[name],
      writable: true,
      configurable: true,
    });
  }
  ObjectDefineProperty(Atomics, 'waitAsync', {
    __proto__: null,
    value: presentAsBuiltin({ waitAsync() { return refuse('Atomics.waitAsync', 'it resolves on the host\'s clock'); } }.waitAsync, Atomics.waitAsync),
    writable: true,
    configurable: true,
  });
  for (const name of ['WeakRef', 'FinalizationRegistry']) {
    // A plain function, so that `new` reaches the refusal.
    const refused = { [name]: function () { return refuse(name, 'what it sees depends on when garbage is collected'); } }[name];
    ObjectDefineProperty(globalThis, name, { __proto__: null, value: presentAsBuiltin(refused, globalThis[name]), writable: true, configurable: true });
  }
  ObjectDefineProperty(AbortSignal, 'timeout', {
    __proto__: null,
    value: { timeout(millis) {
      const delay = NumberCtor(millis);
      if (arguments.length === 0 || !(delay >= 0 && delay <= Number.MAX_SAFE_INTEGER)) {
        throw new TypeErrorCtor("Failed to execute 'AbortSignal.timeout': Argument 1 is outside the 'unsigned long long' value range");
      }
      const controller = new AbortController();
      schedule(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), delay, [], false, true);
      return controller.signal;
    } }.timeout,
    writable: true,
    configurable: true,
  });
});

// ---- the host ----

/**
 * Sends what was recorded since the last sync, with `extra` (the text of the message's other
 * fields, each with its leading comma); resolves the host's tagged answer. Messages reach the host
 * in the order they were made, each after those waiting for room before it.
 */
const sync = (function sync(extra, forced = false, counted = '') {
  const events = run.recorded;
  run.recorded = '';
  return sendCall(run.control, 0, `{"events":[${events}]${extra}}`, forced, events, counted);
});

/** Past this many characters of recorded events or of a call's arguments, the events go ahead. */
const EVENTS_AHEAD = 1 << 16;

/**
 * The run's last message, sent at once: the events of every message still waiting for room go
 * with it, in order, and their calls are never made, as a plain run's waiting calls are not.
 */
const syncLast = (function syncLast() {
  let events = '';
  const waiting = takeWaiting();
  for (let m = 0; m < waiting.length; m++) events = joined(events, waiting[m]);
  events = joined(events, run.recorded);
  run.recorded = '';
  return sendCall(run.control, 0, `{"events":[${events}],"done":true}`, true);
});

/** Two texts of events joined by a comma, either of which may be empty. */
const joined = (function joined(before, after) {
  if (before === '') return after;
  return after === '' ? before : `${before},${after}`;
});

/**
 * Records an event: `fields` is its JSON text without the closing brace, to which its time is
 * added. Kept as text, written when it happened: a value the program is given and then changes
 * is journaled as it was given.
 */
const record = (function record(fields) {
  run.recorded = joined(run.recorded, `${fields},"t":${run.now}}`);
  // Counted here too: events between two syncs (timers, say) must not pile up past the cap.
  if (++run.events > run.maxEvents && !run.finished) {
    run.finished = true;
    run.failWith(`the durable journal passed its cap of ${run.maxEvents} events`);
  }
});

const ignore = () => {};

/** The run ends at once (`process.exit`): what was recorded is sent on its way first. */
export const flushNow = (function flushNow() {
  if (run.finished) return;
  run.finished = true;
  ReflectApply(PromisePrototypeThen, syncLast(), [ignore, ignore]);
});

/** Before the run ends by its program, what was recorded reaches the host. */
export const flushThen = (function flushThen(settle) {
  if (run.finished) return;
  if (run.cursor < run.journal.length) {
    diverge(journalAt(run.cursor), 'the end of the program');
    return;
  }
  run.finished = true;
  ReflectApply(PromisePrototypeThen, syncLast(), [settle, settle]);
});

// ---- binding calls ----

/** A binding call of the program: `makeError(message)` makes its rejection. */
export const call = (function call(namespaceIndex, nameIndex, global, name, argsJson, makeError) {
  const id = run.nextCallId++;
  const argsHash = op_dsh_text_sha256(argsJson);
  let resolve;
  let reject;
  const promise = new PromiseCtor((yes, no) => {
    resolve = yes;
    reject = no;
  });
  const pending = { id, namespaceIndex, nameIndex, global, name, argsJson, makeError, resolve, reject, suspended: false };
  if (!run.live) {
    const expected = journalAt(run.cursor);
    if (expected === undefined || expected.type !== 'call' || expected.id !== id || expected.global !== global
      || expected.name !== name || expected.argsHash !== argsHash) {
      diverge(expected, describe({ type: 'call', id, global, name, argsHash }));
      return promise;
    }
    run.cursor++;
    ReflectApply(MapPrototypeSet, run.calls, [id, pending]);
    afterReplayStep();
    return promise;
  }
  if (run.replayOnly) {
    diverge(undefined, describe({ type: 'call', id, global, name, argsHash }));
    return promise;
  }
  ReflectApply(MapPrototypeSet, run.calls, [id, pending]);
  record(`{"type":"call","id":${id},"global":${JSONStringify(global)},"name":${JSONStringify(name)},"argsHash":"${argsHash}"`);
  send(pending, false);
  return promise;
});

const send = (function send(pending, resumed) {
  // The bounds on calls in flight count a call's arguments only. Long events, or events with long
  // arguments that the bounds may refuse, go ahead in a message of their own, so that the journal
  // has them whatever becomes of the call: sent at once, or, with calls waiting for room, in their
  // place among them.
  if (run.recorded !== '' && (run.recorded.length > EVENTS_AHEAD || pending.argsJson.length > EVENTS_AHEAD)) {
    ReflectApply(PromisePrototypeThen, sync('', !callsWait()), [ignore, ignore]);
  }
  const answer = sync(`,"call":[${pending.id},${pending.namespaceIndex},${pending.nameIndex},${JSONStringify(pending.argsJson)},${resumed}]`, false, pending.argsJson);
  // The host's envelope, `V{"v":value}`, `V{"e":"message"}` or `V{"s":payload}`, whose JSON is
  // kept as text; or a rejection of the call itself (`E"message"`: a bound on calls in flight);
  // or the op's failure.
  ReflectApply(PromisePrototypeThen, answer, [
    (tagged) => {
      if (tagged[0] === 'V') arrived(pending, tagged[3], ReflectApply(StringPrototypeSlice, tagged, [6, -1]));
      else arrived(pending, 'e', ReflectApply(StringPrototypeSlice, tagged, [1]));
    },
    (error) => arrived(pending, 'e', JSONStringify(`${error?.message ?? error}`)),
  ]);
});

/**
 * The host's answer to a live call (`kind` 'v', 'e' or 's', and the JSON text of its value,
 * message or payload), taken when the program next has nothing else to run.
 */
const arrived = (function arrived(pending, kind, text) {
  if (run.finished) return;
  if (kind === 's') {
    markSuspended(pending);
    record(`{"type":"suspended","id":${pending.id},"args":${pending.argsJson},"payload":${text}`);
  } else {
    run.arrivals[run.arrivals.length] = { __proto__: null, pending, kind, text, at: liveNow() };
  }
  schedulePump(0);
});

/** A call that waits for the caller's resolution (a replay may say so of it twice). */
const markSuspended = (function markSuspended(pending) {
  if (pending.suspended) return;
  pending.suspended = true;
  run.suspendedCalls++;
});

/** A call that no longer waits for anything. */
const forget = (function forget(pending) {
  ReflectApply(MapPrototypeDelete, run.calls, [pending.id]);
  if (pending.suspended) run.suspendedCalls--;
});

const deliver = (function deliver(pending, kind, text) {
  forget(pending);
  if (kind === 'e') {
    record(`{"type":"rejection","id":${pending.id},"message":${text}`);
    pending.reject(pending.makeError(JSONParse(text)));
  } else {
    record(`{"type":"answer","id":${pending.id},"value":${text}`);
    pending.resolve(JSONParse(text));
  }
});

// ---- timers ----

export const schedule = (function schedule(callback, delay, args, repeat, immediate) {
  let ms = NumberCtor(delay);
  if (immediate) ms = 0;
  else if (!(ms >= 1 && ms <= TIMEOUT_MAX)) ms = 1;
  const id = run.nextTimerId++;
  ReflectApply(MapPrototypeSet, run.timers, [id, { id, callback, args, repeat, delay: ms, due: run.now + ms, sequence: run.timerSequence++ }]);
  if (run.live) schedulePump(0);
  return id;
});

export const unschedule = (function unschedule(id) {
  ReflectApply(MapPrototypeDelete, run.timers, [id]);
});

const earliestTimer = (function earliestTimer() {
  let earliest;
  if (ReflectApply(MapPrototypeGetSize, run.timers, []) === 0) return earliest;
  const timers = valuesOf(run.timers);
  for (let i = 0; i < timers.length; i++) {
    const timer = timers[i];
    if (earliest === undefined || timer.due < earliest.due || (timer.due === earliest.due && timer.sequence < earliest.sequence)) earliest = timer;
  }
  return earliest;
});

const fire = (function fire(timer, live) {
  if (live) record(`{"type":"timer","id":${timer.id}`);
  if (timer.repeat) {
    timer.due = run.now + timer.delay;
    timer.sequence = run.timerSequence++;
  } else {
    ReflectApply(MapPrototypeDelete, run.timers, [timer.id]);
  }
  try {
    ReflectApply(timer.callback, undefined, timer.args);
  } catch (error) {
    reportTimerError(error);
  }
});

// ---- the pump: one event per turn ----

let reportTimerError = null;

/** How an error thrown by a timer's callback ends the run (world.js's). */
export const onTimerError = (function onTimerError(report) {
  reportTimerError = report;
});

// The pump runs in a turn of its own: at once as an immediate, which the event loop runs only after
// the program's microtasks (and one queued by the pump itself in the next turn), or as a timer when
// it waits for one.
const schedulePump = (function schedulePump(delay) {
  if (run.finished) return;
  if (delay === 0) {
    if (run.pumpSoon) return;
    if (run.pump !== null) {
      cancelTimer(run.pump);
      run.pump = null;
      run.pumpAt = Infinity;
    }
    run.pumpSoon = true;
    queueImmediateCall(pumpSoon);
    return;
  }
  if (run.pumpSoon) return;
  const at = RealNow() + delay;
  if (run.pump !== null) {
    if (run.pumpAt <= at) return;
    cancelTimer(run.pump);
  }
  run.pumpAt = at;
  run.pump = createTimer(pump, delay, undefined, false, true);
});

const pumpSoon = (function pumpSoon() {
  run.pumpSoon = false;
  pump();
});

const afterReplayStep = (function afterReplayStep() {
  run.idleTurns = 0;
  // The next event, or the end of the journal, is the pump's to take; a call the program's to
  // make (the pump then counts the turns it waits).
  schedulePump(0);
});

const pump = (function pump() {
  run.pump = null;
  run.pumpAt = Infinity;
  if (run.finished) return;
  if (!run.live) {
    replayStep();
    return;
  }
  liveStep();
});

const replayStep = (function replayStep() {
  const event = journalAt(run.cursor);
  if (event === undefined) {
    goLive();
    return;
  }
  // A call is the program's to make, in its own time (see `call`); a program that has had a few
  // turns with nothing to run (a dynamic import takes one) waits for what no journal holds.
  if (event.type === 'call') {
    if (++run.idleTurns > IDLE_TURNS) {
      diverge(event, 'a program waiting for nothing the journal holds');
      return;
    }
    schedulePump(1);
    return;
  }
  if (event.type === 'timer') {
    const timer = ReflectApply(MapPrototypeGet, run.timers, [event.id]);
    // Live, the earliest timer fires, at its due time (or now, if that has passed).
    const earliest = earliestTimer();
    if (timer === undefined || timer !== earliest || event.t !== MathMax(run.now, timer.due)) {
      diverge(event, earliest === undefined ? 'no timer set' : `timer ${earliest.id}, due at ${MathMax(run.now, earliest.due)}`);
      return;
    }
    run.cursor++;
    run.now = event.t;
    // Replayed events are the journal's already: they are not recorded again.
    fire(timer, false);
    afterReplayStep();
    return;
  }
  const pending = ReflectApply(MapPrototypeGet, run.calls, [event.id]);
  if (pending === undefined || !(event.type === 'suspended' || event.type === 'answer' || event.type === 'rejection')) {
    diverge(event, pending === undefined ? `no call ${event.id} waiting` : 'an event of no known type');
    return;
  }
  run.cursor++;
  run.now = MathMax(run.now, event.t);
  if (event.type === 'suspended') {
    markSuspended(pending);
  } else {
    forget(pending);
    if (event.type === 'answer') pending.resolve(event.value);
    else pending.reject(pending.makeError(event.message));
  }
  afterReplayStep();
});

/** The journal is spent: from here on, events are live. */
const goLive = (function goLive() {
  run.live = true;
  run.liveOffset = run.now;
  run.liveStart = RealNow();
  // How long the replay took, from the program's start, for the host to report.
  if (run.journal.length > 0) ReflectApply(PromisePrototypeThen, sync(`,"replayed":${RealNow()}`), [ignore, ignore]);
  if (!run.replayOnly) {
    // Calls that were waiting for approval are made again: the host answers them if it has a
    // resolution, or says they still wait.
    const calls = valuesOf(run.calls);
    for (let i = 0; i < calls.length; i++) {
      const pending = calls[i];
      if (pending.suspended) {
        pending.suspended = false;
        run.suspendedCalls--;
        send(pending, true);
      }
    }
  }
  schedulePump(0);
});

/** The host's answer to the suspending message: once it has the journal, the attempt ends. */
const endOnceJournaled = (function endOnceJournaled(tagged) {
  if (typeof tagged === 'string' && tagged[0] === 'V') {
    run.end();
  } else if (typeof tagged === 'string') {
    run.failWith(`the durable journal could not reach the host: ${JSONParse(ReflectApply(StringPrototypeSlice, tagged, [1]))}`);
  }
  // Otherwise the op failed: the run has ended already.
});

const liveStep = (function liveStep() {
  const timer = earliestTimer();
  const arrival = run.firstArrival < run.arrivals.length ? run.arrivals[run.firstArrival] : undefined;
  // A replay has nothing but the journal: once it is spent, no timer waits for its time.
  const now = run.replayOnly ? Infinity : liveNow();
  if (arrival !== undefined && (timer === undefined || arrival.at <= timer.due)) {
    if (++run.firstArrival === run.arrivals.length) {
      run.arrivals = list();
      run.firstArrival = 0;
    } else {
      run.arrivals[run.firstArrival - 1] = undefined;
    }
    run.now = MathMax(run.now, arrival.at);
    deliver(arrival.pending, arrival.kind, arrival.text);
    // A turn of its own only when the next step may have something to do: an arrival, a timer
    // (each schedules the pump as it comes), or a suspension to decide once the program has run.
    if (run.firstArrival < run.arrivals.length || run.suspendedCalls > 0 || run.replayOnly
      || ReflectApply(MapPrototypeGetSize, run.timers, []) > 0) schedulePump(0);
    return;
  }
  if (timer !== undefined && timer.due <= now) {
    if (run.replayOnly) {
      diverge(undefined, `timer ${timer.id} due`);
      return;
    }
    run.now = MathMax(run.now, timer.due);
    fire(timer, true);
    schedulePump(0);
    return;
  }
  const suspended = run.suspendedCalls > 0;
  const waiting = ReflectApply(MapPrototypeGetSize, run.calls, []) > run.suspendedCalls;
  if (timer !== undefined) {
    schedulePump(MathMax(0, timer.due - now));
  } else if (run.replayOnly && waiting) {
    diverge(undefined, 'calls waiting for answers the journal does not have');
  } else if (!waiting && suspended) {
    // Nothing but approvals left to wait for: once the host has the journal, the attempt ends.
    run.finished = true;
    // Sent whatever the bounds say, as the last message is: the host must have it.
    ReflectApply(PromisePrototypeThen, sync(',"suspend":true', true), [endOnceJournaled, endOnceJournaled]);
  }
});
