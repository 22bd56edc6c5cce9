// Built-ins written in C++ that a loop may call, given a JavaScript entry that polls for
// termination, and ICU's text services bounded in length.
//
// V8 checks for termination on entry to every JavaScript function that is not inlined, but a loop
// whose body is one call to a C++ built-in polls only when its tiering budget runs out: a loop
// around `normalize` ran on for more than 20 s after its run had ended, around `toUpperCase` for
// 14 s, around `copyWithin` for 7 s. Each method here is replaced by a wrapper that calls V8's
// own, so every call enters JavaScript first and a terminated run stops at its next call. A
// wrapper is padded past V8's inlining limits (Maglev 100, Turbofan 460 bytes of bytecode), since
// an inlined wrapper has no entry of its own. (See ../shared/docs/v8-termination-gaps.md, §3-4.)
//
// ICU works on its own copies of a text, outside the run's heap cap: one `normalize` of 10^8
// characters took more than 1 GB. Its services refuse texts longer than MAX_ICU_TEXT, and the
// copies a Segments object keeps count against the cap.
//
// A long string's keys, values, entries and code points, and a long typed array's keys, values and
// entries, are listed here in JavaScript, for the same reason as the wrappers: V8 lists them in
// C++, one per character or element, without polling.

import { core } from 'ext:core/mod.js';
import { presentAsBuiltin } from 'ext:dsh/source_text.js';
import { boundedLocales } from 'ext:dsh/locale_list.js';
import { LONG_LENGTH, createDataProperty, hasShortLength, isObject, toIntegerOrInfinity, toLength, toStringStrict } from 'ext:dsh/abstract_ops.js';

const ArrayBufferCtor = ArrayBuffer;
const ArrayIsArray = Array.isArray;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const MathMax = Math.max;
const MathMin = Math.min;
const ReflectApply = Reflect.apply;
const RangeErrorCtor = RangeError;
const StringCtor = String;
const TypeErrorCtor = TypeError;
const WeakMapCtor = WeakMap;
const WeakMapPrototypeGet = WeakMap.prototype.get;
const WeakMapPrototypeSet = WeakMap.prototype.set;

/** The longest text ICU's services take here, in UTF-16 code units (2^24). */
const MAX_ICU_TEXT = 2 ** 24;

// Read only in the padding, which never runs: module variables V8 cannot fold away.
let neverTrue = false;
let sink = 0;

/** `call(native, receiver, args)` behind an entry of its own, named and sized as `native`. */
function polled(native, name, call) {
  const wrapper = {
    [name](...args) {
      if (neverTrue) {
        // Padding past the inlining limits (about 600 bytes of bytecode); never executed.
        sink = sink + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + 25;
        sink = sink + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + 25;
        sink = sink + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + 25;
        sink = sink + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + 25;
        sink = sink + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + 25;
        sink = sink + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + 25;
        sink = sink + 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 11 + 12 + 13 + 14 + 15 + 16 + 17 + 18 + 19 + 20 + 21 + 22 + 23 + 24 + 25;
      }
      return call(native, this, args);
    },
  }[name];
  ObjectDefineProperty(wrapper, 'length', { __proto__: null, value: native.length, configurable: true });
  return presentAsBuiltin(wrapper, native);
}

const passThrough = (native, receiver, args) => ReflectApply(native, receiver, args);

/** Replaces `target[key]` by its polled wrapper, keeping the property's attributes. */
function replace(target, key, call = passThrough) {
  const descriptor = ObjectGetOwnPropertyDescriptor(target, key);
  ObjectDefineProperty(target, key, { __proto__: null, ...descriptor, value: polled(descriptor.value, key, call) });
}

function refuseLongText(service, text) {
  if (text.length > MAX_ICU_TEXT) {
    throw new RangeErrorCtor(`${service} is limited to ${MAX_ICU_TEXT} characters here: ICU's copies of a longer text would escape the run's heap cap`);
  }
  return text;
}

/** A String.prototype method on ICU: its receiver, and its string arguments, bounded, and its
 * list of locales (argument `localesAt`, if it takes one) read so that it ends (locale_list.js). */
function icuStringMethod(key, stringArguments, localesAt) {
  const service = `String.prototype.${key}`;
  replace(String.prototype, key, (native, receiver, args) => {
    // V8's own method throws its own TypeError for these.
    if (receiver === null || receiver === undefined) return ReflectApply(native, receiver, args);
    const text = refuseLongText(service, toStringStrict(receiver));
    for (let i = 0; i < stringArguments && i < args.length; i++) {
      if (args[i] !== undefined) args[i] = refuseLongText(service, toStringStrict(args[i]));
    }
    if (localesAt < args.length) args[localesAt] = boundedLocales(args[localesAt]);
    return ReflectApply(native, text, args);
  });
}

icuStringMethod('toUpperCase', 0);
icuStringMethod('toLowerCase', 0);
icuStringMethod('toLocaleUpperCase', 0, 0);
icuStringMethod('toLocaleLowerCase', 0, 0);

// ICU normalises a text in one step: 2^24 characters took 340-425 ms. A text past 2^20 characters is
// normalised in pieces of about that length, each ending before an ASCII character: no ASCII
// character composes with, or is reordered among, what precedes it in any form, so the pieces'
// results join into the whole's.
const NORMALIZE_PIECE = 2 ** 20;
replace(String.prototype, 'normalize', (native, receiver, args) => {
  if (receiver === null || receiver === undefined) return ReflectApply(native, receiver, args);
  const text = refuseLongText('String.prototype.normalize', toStringStrict(receiver));
  const form = args[0] === undefined ? [] : [toStringStrict(args[0])];
  let result = '';
  let start = 0;
  while (text.length - start > NORMALIZE_PIECE) {
    let end = start + NORMALIZE_PIECE;
    while (end < text.length && ReflectApply(StringPrototypeCharCodeAt, text, [end]) >= 0x80) end++;
    result += ReflectApply(native, ReflectApply(StringPrototypeSlice, text, [start, end]), form);
    start = end;
  }
  return result + ReflectApply(native, start === 0 ? text : ReflectApply(StringPrototypeSlice, text, [start]), form);
});
icuStringMethod('localeCompare', 1, 1);

// Intl.Collator's `compare` is a getter for a function bound to its collator, the same one each
// time: the polled one is made once per collator too.
const collatorCompare = ObjectGetOwnPropertyDescriptor(Intl.Collator.prototype, 'compare');
const polledCompares = new WeakMapCtor();
ObjectDefineProperty(Intl.Collator.prototype, 'compare', {
  __proto__: null,
  ...collatorCompare,
  get: presentAsBuiltin(ObjectGetOwnPropertyDescriptor({
    get compare() {
      const native = ReflectApply(collatorCompare.get, this, []);
      let compare = ReflectApply(WeakMapPrototypeGet, polledCompares, [native]);
      if (compare === undefined) {
        compare = polled(native, '', (bound, _receiver, args) => ReflectApply(bound, undefined, [
          refuseLongText('Intl.Collator.prototype.compare', toStringStrict(args[0])),
          refuseLongText('Intl.Collator.prototype.compare', toStringStrict(args[1])),
        ]));
        ReflectApply(WeakMapPrototypeSet, polledCompares, [native, compare]);
      }
      return compare;
    },
  }, 'compare').get, collatorCompare.get),
});

// A Segments object keeps ICU's copy of its text (two bytes a code unit, and a break iterator of
// its own) for as long as it lives, where neither the heap cap nor V8's collector sees it: 64 of
// them over 4M characters held 445 MB at a 64 MB cap. Each gets an ArrayBuffer of that size,
// never written, that lives exactly as long as it does: the run's buffer budget counts it against
// the cap, and V8's collector, which weighs buffers, frees both.
const ICU_BREAK_ITERATOR_BYTES = 4096;
const segmentsCopies = new WeakMapCtor();
replace(Intl.Segmenter.prototype, 'segment', (native, receiver, args) => {
  const text = refuseLongText('Intl.Segmenter.prototype.segment', toStringStrict(args[0]));
  let copy;
  try {
    copy = new ArrayBufferCtor(text.length * 2 + ICU_BREAK_ITERATOR_BYTES);
  } catch {
    throw new RangeErrorCtor("Intl.Segmenter.prototype.segment: ICU's copies of the texts being segmented would pass the run's heap cap");
  }
  const segments = ReflectApply(native, receiver, [text]);
  ReflectApply(WeakMapPrototypeSet, segmentsCopies, [segments, copy]);
  return segments;
});

// ICU formats a list in one step, over its own copies of the strings: 2^22 strings took 1.6 s in
// Node 20 (2^16 took 25 ms), a step no termination stops. The list is read here, as V8 reads it,
// and refused past MAX_ICU_LIST strings or MAX_ICU_TEXT characters in all (an array of three strings:
// 460 ns a call before, 1.1-1.2 µs after).
const MAX_ICU_LIST = 2 ** 16;
const SymbolIterator = Symbol.iterator;

function refuseLongList(service) {
  return new RangeErrorCtor(`${service} is limited to ${MAX_ICU_LIST} strings of ${MAX_ICU_TEXT} characters in all here: ICU formats a list in one step, outside the run's heap cap`);
}

/** How V8 names a value it cannot iterate, where no source text names it: its type, and for a
 * string, number, boolean or null its value. */
function notIterable(value) {
  if (value === null) return 'object null';
  const type = typeof value;
  if (type === 'string') return `string "${value}"`;
  return type === 'number' || type === 'boolean' ? `${type} ${StringCtor(value)}` : type;
}

/** The program's iterator, stepped for V8 as V8 would step it (next read once; done, then value, of
 * each result), counted. V8 still checks each value, and closes the program's iterator through this
 * one when a value is not a string. */
class BoundedList {
  #service;
  #iterator;
  #next;
  #strings = 0;
  #characters = 0;

  constructor(service, iterator, next) {
    this.#service = service;
    this.#iterator = iterator;
    this.#next = next;
  }

  [SymbolIterator]() {
    return this;
  }

  next() {
    const result = ReflectApply(this.#next, this.#iterator, []);
    // V8 refuses a result that is not an object, in its own words.
    if (!isObject(result)) return result;
    if (result.done) return { done: true, value: undefined };
    const value = result.value;
    this.#strings += 1;
    if (typeof value === 'string') this.#characters += value.length;
    if (this.#strings > MAX_ICU_LIST || this.#characters > MAX_ICU_TEXT) {
      try {
        this.return();
      } catch {}
      throw refuseLongList(this.#service);
    }
    return { done: false, value };
  }

  return() {
    const close = this.#iterator.return;
    if (close !== undefined && close !== null) ReflectApply(close, this.#iterator, []);
    return {};
  }
}

for (const key of ['format', 'formatToParts']) {
  const service = `Intl.ListFormat.prototype.${key}`;
  replace(Intl.ListFormat.prototype, key, (native, receiver, args) => {
    const list = args[0];
    // V8 checks its receiver before it reads the list: an empty list asks it to, and costs nothing.
    if (list === undefined) return ReflectApply(native, receiver, args);
    ReflectApply(native, receiver, [undefined]);
    const method = list === null ? undefined : list[SymbolIterator];
    // V8 would read the method again, and might find one the second time.
    if (typeof method !== 'function') throw new TypeErrorCtor(`${notIterable(list)} is not iterable (cannot read property Symbol(Symbol.iterator))`);
    const iterator = ReflectApply(method, list, []);
    if (!isObject(iterator)) throw new TypeErrorCtor('Result of the Symbol.iterator method is not an object');
    const next = iterator.next;
    // V8 calls what it read as `next`, and says in its own words that it cannot.
    if (typeof next !== 'function') return ReflectApply(native, receiver, [{ [SymbolIterator]: () => ({ next }) }]);
    return ReflectApply(native, receiver, [new BoundedList(service, iterator, next)]);
  });
}

// JSON.stringify is replaced below, with a long typed array's text built here.
replace(JSON, 'parse');

const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const TypedArrayPrototypeSet = TypedArrayPrototype.set;
for (const key of ['fill', 'copyWithin', 'indexOf', 'lastIndexOf', 'includes']) replace(TypedArrayPrototype, key);

// A long string's keys, entries and characters, listed in JavaScript: V8 lists them in C++, one
// per character, and `Object.keys('x'.repeat(2 ** 22))` in a loop ran on past its run's end.
// Listings longer than this are built here: at a 16 MB cap, V8's `Object.entries` of 2^20
// elements already allocated far past the cap before it could be stopped.
export const LONG_LISTING = 2 ** 16;
const StringPrototypeCodePointAt = String.prototype.codePointAt;

// Built by V8's Array.from, whose elements are defined, not set: a setter a program put on
// Array.prototype is never called. The array-like has no prototype for the same reason.
const ArrayCtor = Array;
const ArrayFrom = Array.from;
const listOf = (length, element) => ReflectApply(ArrayFrom, ArrayCtor, [{ __proto__: null, length }, (_, i) => element(i)]);

// A typed array's own keys are listed in C++ too, one string per element, allocating past the heap
// cap without polling: `Object.entries` of a 2^24-element array grew the host by 2.5 GB at a 64 MB
// cap. Past LONG_LISTING elements its indices are listed here, and its other own keys by V8 with
// indices skipped. `for-in` and object spread, which no function reaches, still list in C++.
const typedArrayLength = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'length').get;
const { op_get_non_index_property_names: nonIndexKeys, op_is_typed_array: isTypedArray } = core.ops;
// V8's property filters, as the op takes them.
const ENUMERABLE_STRINGS = 2 | 16;
const STRINGS = 16;
const ALL_KEYS = 0;

/** The length of a typed array longer than LONG_LISTING; 0 for anything else. */
export function longTypedArrayLength(value) {
  // Asked first: the getter throws for anything else, and a throw on every Object.keys (inspect
  // lists every object it prints) made 1000 console lines three times slower.
  if (value === null || typeof value !== 'object' || !isTypedArray(value)) return 0;
  const length = ReflectApply(typedArrayLength, value, []);
  return length > LONG_LISTING ? length : 0;
}

/** `value`'s own keys, indices `0..length` first, then those `filter` lets through. */
function typedArrayKeys(value, length, filter, element) {
  const others = nonIndexKeys(value, filter);
  return listOf(length + others.length, (i) => element(i < length ? StringCtor(i) : others[i - length]));
}

/** `Object[key](value)`, built in JavaScript for a long string or a long typed array. */
function listLong(key, string, typed) {
  replace(Object, key, (native, _receiver, args) => {
    const value = args[0];
    if (typeof value === 'string') return value.length > LONG_LISTING ? string(value) : ReflectApply(native, Object, args);
    const length = longTypedArrayLength(value);
    return length === 0 ? ReflectApply(native, Object, args) : typed(value, length);
  });
}

listLong('keys', (text) => listOf(text.length, StringCtor),
  (array, length) => typedArrayKeys(array, length, ENUMERABLE_STRINGS, (key) => key));
listLong('getOwnPropertyNames', (text) => listOf(text.length + 1, (i) => (i < text.length ? StringCtor(i) : 'length')),
  (array, length) => typedArrayKeys(array, length, STRINGS, (key) => key));
listLong('values', (text) => listOf(text.length, (i) => text[i]),
  (array, length) => typedArrayKeys(array, length, ENUMERABLE_STRINGS, (key) => array[key]));
listLong('entries', (text) => listOf(text.length, (i) => [StringCtor(i), text[i]]),
  (array, length) => typedArrayKeys(array, length, ENUMERABLE_STRINGS, (key) => [key, array[key]]));
replace(Reflect, 'ownKeys', (native, _receiver, args) => {
  const length = longTypedArrayLength(args[0]);
  return length === 0 ? ReflectApply(native, Reflect, args) : typedArrayKeys(args[0], length, ALL_KEYS, (key) => key);
});
replace(Object, 'getOwnPropertyDescriptors', (native, _receiver, args) => {
  const length = longTypedArrayLength(args[0]);
  if (length === 0) return ReflectApply(native, Object, args);
  const descriptors = {};
  const keys = typedArrayKeys(args[0], length, ALL_KEYS, (key) => key);
  for (let i = 0; i < keys.length; i++) {
    const descriptor = ObjectGetOwnPropertyDescriptor(args[0], keys[i]);
    if (descriptor !== undefined) createDataProperty(descriptors, keys[i], descriptor);
  }
  return descriptors;
});
replace(Object, 'assign', (native, _receiver, args) => {
  const target = ReflectApply(native, Object, [args[0]]);
  for (let i = 1; i < args.length; i++) {
    const source = args[i];
    // A string source's characters are its own enumerable keys (`Object.assign({}, 'x'.repeat(2 ** 22))`
    // copied them in C++ past the cap).
    if (typeof source === 'string' && source.length > LONG_LISTING) {
      for (let k = 0; k < source.length; k++) target[StringCtor(k)] = source[k];
      continue;
    }
    const length = longTypedArrayLength(source);
    if (length === 0) {
      ReflectApply(native, Object, [target, source]);
      continue;
    }
    const keys = typedArrayKeys(source, length, ENUMERABLE_STRINGS, (key) => key);
    for (let k = 0; k < keys.length; k++) target[keys[k]] = source[keys[k]];
  }
  return target;
});

// Object.fromEntries over an array defines every entry's property in one Torque loop that does
// not poll: over the 2M entries of a long string's `Object.entries`, it ran on past its run's end
// (fuzzer's seed 12). Past LONG_LISTING entries it runs here, by the specification's steps.
const SymbolPrototypeToString = Symbol.prototype.toString;
replace(Object, 'fromEntries', (native, _receiver, args) => {
  const iterable = args[0];
  if (!ArrayIsArray(iterable) || iterable.length <= LONG_LISTING) return ReflectApply(native, Object, args);
  const object = {};
  for (const entry of iterable) {
    if (entry === null || (typeof entry !== 'object' && typeof entry !== 'function')) {
      const shown = typeof entry === 'symbol' ? ReflectApply(SymbolPrototypeToString, entry, []) : StringCtor(entry);
      throw new TypeErrorCtor(`Iterator value ${shown} is not an entry object`);
    }
    const key = entry[0];
    const value = entry[1];
    createDataProperty(object, key, value);
  }
  return object;
});

// A long typed array's join (and so its toString and String()) in chunks of V8's own join: V8's
// loop over every element does not poll. Each chunk is a view made by the array's own intrinsic
// constructor (`subarray` would ask the program's species, which V8's join never does).
const typedArrayTag = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get;
const typedArrayBuffer = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'buffer').get;
const typedArrayByteOffset = ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'byteOffset').get;
const TYPED_ARRAYS = { __proto__: null };
for (const TypedArray of [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array]) {
  TYPED_ARRAYS[TypedArray.name] = TypedArray;
}

/** Takes in a typed array kind V8 installs only in a run's context, after the snapshot was made
 * (Float16Array): `start` hands it over before the program can reach it. In parentheses, so that
 * it is compiled into the snapshot, not in every run (as `start`). */
export const adoptTypedArrayKind = (function adoptTypedArrayKind(TypedArray) {
  if (typeof TypedArray === 'function') TYPED_ARRAYS[TypedArray.name] = TypedArray;
});
const JOIN_CHUNK = 2 ** 16;
replace(TypedArrayPrototype, 'join', (native, receiver, args) => {
  const length = longTypedArrayLength(receiver);
  if (length === 0) return ReflectApply(native, receiver, args);
  const separator = args[0] === undefined ? ',' : toStringStrict(args[0]);
  const TypedArray = TYPED_ARRAYS[ReflectApply(typedArrayTag, receiver, [])];
  // A kind this V8 had no constructor for when the world was built: V8's own join, whole.
  if (TypedArray === undefined) return ReflectApply(native, receiver, args);
  const buffer = ReflectApply(typedArrayBuffer, receiver, []);
  const offset = ReflectApply(typedArrayByteOffset, receiver, []);
  let text = '';
  for (let start = 0; start < length; start += JOIN_CHUNK) {
    const chunk = new TypedArray(buffer, offset + start * TypedArray.BYTES_PER_ELEMENT, MathMin(JOIN_CHUNK, length - start));
    text += (start === 0 ? '' : separator) + ReflectApply(native, chunk, [separator]);
  }
  return text;
});

// V8 reverses a typed array in one step: 256 MB took 346 ms. A long one has blocks of 2^20 elements
// swapped from both ends, each reversed by V8 in a copy, and its middle reversed in place.
const REVERSE_BLOCK = 2 ** 20;
replace(TypedArrayPrototype, 'reverse', (native, receiver, args) => {
  const length = longTypedArrayLength(receiver);
  const TypedArray = length > 4 * REVERSE_BLOCK ? TYPED_ARRAYS[ReflectApply(typedArrayTag, receiver, [])] : undefined;
  if (TypedArray === undefined) return ReflectApply(native, receiver, args);
  const buffer = ReflectApply(typedArrayBuffer, receiver, []);
  const offset = ReflectApply(typedArrayByteOffset, receiver, []);
  const view = (start, count) => new TypedArray(buffer, offset + start * TypedArray.BYTES_PER_ELEMENT, count);
  let lower = 0;
  let upper = length;
  while (upper - lower > 2 * REVERSE_BLOCK) {
    const low = view(lower, REVERSE_BLOCK);
    const high = view(upper - REVERSE_BLOCK, REVERSE_BLOCK);
    const lowCopy = ReflectApply(native, new TypedArray(low), []);
    ReflectApply(TypedArrayPrototypeSet, low, [ReflectApply(native, new TypedArray(high), [])]);
    ReflectApply(TypedArrayPrototypeSet, high, [lowCopy]);
    lower += REVERSE_BLOCK;
    upper -= REVERSE_BLOCK;
  }
  ReflectApply(native, view(lower, upper - lower), []);
  return receiver;
});

// JSON.stringify writes a typed array as an object, listing its indices in C++ first, one string
// per element, past the heap cap (a 2^24-element array grew the host by 650 MB at a 64 MB cap, and
// nested in an object its thread stayed 1.3-3 s past its run's end). Once the program could hold a
// long typed array (the run's buffer budget says when: before, none exists), %TypedArray%.prototype
// is given a toJSON of ours, which V8 asks every typed array it writes for: in a call with no
// replacer, a long one answers with a placeholder string, replaced here by the array's text, written
// element by element; otherwise it answers as if ours were not there. It stays: put in place and
// taken away around each call, it cost every call about 10 µs. A replacer sees every element, so
// calls with one stay V8's.
const NumberIsFinite = Number.isFinite;
const MathRandom = Math.random;
const NumberPrototypeToString = Number.prototype.toString;
const { op_is_number_object: isNumberObject, op_is_string_object: isStringObject, op_dsh_long_buffer_made: longBufferMade } = core.ops;
const ObjectHasOwn = Object.hasOwn;
const ReflectGet = Reflect.get;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const DatePrototypeToJSON = Date.prototype.toJSON;
const StringPrototypeCharCodeAt = String.prototype.charCodeAt;
const StringPrototypeIndexOf = String.prototype.indexOf;
const StringPrototypeRepeat = String.prototype.repeat;
const StringPrototypeSlice = String.prototype.slice;
const BigIntPrototype = BigInt.prototype;
const ArrayPrototypePush = Array.prototype.push;

/** The gap `space` makes, by the specification's steps: up to ten spaces, or a string's first ten code units. */
function jsonGap(space) {
  if (isNumberObject(space)) space = +space;
  else if (isStringObject(space)) space = toStringStrict(space);
  if (typeof space === 'number') return ReflectApply(StringPrototypeRepeat, ' ', [MathMin(10, MathMax(0, toIntegerOrInfinity(space)))]);
  return typeof space === 'string' ? ReflectApply(StringPrototypeSlice, space, [0, 10]) : '';
}

/** The text V8 writes for a long typed array, `indent` deep, each chunk made flat before the next
 * (as a rope, a 2^24-element array held 730 MB at a 512 MB cap). */
function typedArrayJson(array, length, gap, indent) {
  const open = gap === '' ? '"' : `\n${indent}${gap}"`;
  const separator = gap === '' ? ',"' : `,\n${indent}${gap}"`;
  const colon = gap === '' ? '":' : '": ';
  let text = '{';
  for (let start = 0; start < length; start += JOIN_CHUNK) {
    const end = MathMin(start + JOIN_CHUNK, length);
    let chunk = '';
    for (let i = start; i < end; i++) {
      const element = array[i];
      chunk += (i === 0 ? open : separator) + i + colon + (NumberIsFinite(element) ? '' + element : 'null');
    }
    ReflectApply(StringPrototypeCharCodeAt, chunk, [0]);
    text += chunk;
  }
  return text + (gap === '' ? '}' : `\n${indent}}`);
}

/** How many objects and arrays are open at `end` in JSON text, counted on from `depth` at `start`. */
function jsonDepth(text, start, end, depth) {
  let inString = false;
  for (let i = start; i < end; i++) {
    const unit = ReflectApply(StringPrototypeCharCodeAt, text, [i]);
    if (inString) {
      if (unit === 0x5c) i++;
      else if (unit === 0x22) inString = false;
    } else if (unit === 0x22) inString = true;
    else if (unit === 0x7b || unit === 0x5b) depth++;
    else if (unit === 0x7d || unit === 0x5d) depth--;
  }
  return depth;
}

// The call being written, innermost first: a getter or toJSON of the program's may call
// JSON.stringify again while V8 writes.
let jsonCall = null;

const typedArrayToJSON = {
  toJSON(key) {
    // What V8 would call were ours not there: a toJSON of the program's, further up.
    const inherited = ReflectGet(ObjectGetPrototypeOf(TypedArrayPrototype), 'toJSON', this);
    if (typeof inherited === 'function') return ReflectApply(inherited, this, [key]);
    const call = jsonCall;
    const length = longTypedArrayLength(this);
    // A typed array with keys of its own besides its indices is V8's to write.
    if (call === null || length === 0 || nonIndexKeys(this, ENUMERABLE_STRINGS).length > 0) return this;
    const tag = ReflectApply(typedArrayTag, this, []);
    if (tag === 'BigInt64Array' || tag === 'BigUint64Array') {
      if (typeof BigIntPrototype.toJSON === 'function') return this;
      throw new TypeErrorCtor('Do not know how to serialize a BigInt');
    }
    const TypedArray = TYPED_ARRAYS[tag];
    if (TypedArray === undefined) return this;
    // Random, so that no string of the program's can pass for one.
    if (call.arrays === null) {
      const random = () => ReflectApply(NumberPrototypeToString, MathRandom() * 2 ** 52, [36]);
      call.mark = `dsh-typed-array-${random()}${random()}-`;
      call.arrays = [];
    }
    // Its elements as they are now: a getter V8 calls later in this call may change them. The copy
    // is smaller than the text to come, so a copy past the cap means the text would be too.
    let copy;
    try {
      copy = new TypedArray(this);
    } catch {
      throw new RangeErrorCtor(`JSON.stringify: the text of a ${tag} of ${length} elements would pass the run's heap cap`);
    }
    ReflectApply(ArrayPrototypePush, call.arrays, [copy]);
    return call.mark + (call.arrays.length - 1);
  },
}.toJSON;

/** `text` with each placeholder of `call` replaced by its typed array's text. */
function withTypedArrays(text, call, gap) {
  let out = '';
  let from = 0;
  let depth = 0;
  for (let i = 0; i < call.arrays.length; i++) {
    const placeholder = `"${call.mark}${i}"`;
    const at = ReflectApply(StringPrototypeIndexOf, text, [placeholder, from]);
    // Asked for by the program itself, and not written.
    if (at < 0) continue;
    if (gap !== '') depth = jsonDepth(text, from, at, depth);
    const array = call.arrays[i];
    out += ReflectApply(StringPrototypeSlice, text, [from, at])
      + typedArrayJson(array, ReflectApply(typedArrayLength, array, []), gap, ReflectApply(StringPrototypeRepeat, gap, [depth]));
    from = at + placeholder.length;
  }
  return out + ReflectApply(StringPrototypeSlice, text, [from]);
}


/** Whether our toJSON has been put in place (or the program had one of its own there first). */
let typedArrayToJSONPlaced = false;

function placeTypedArrayToJSON() {
  typedArrayToJSONPlaced = true;
  if (ObjectHasOwn(TypedArrayPrototype, 'toJSON')) return;
  // Its source text reads as a built-in's, as Date.prototype.toJSON's does.
  ObjectDefineProperty(TypedArrayPrototype, 'toJSON', { __proto__: null, value: presentAsBuiltin(typedArrayToJSON, DatePrototypeToJSON), writable: true, enumerable: false, configurable: true });
}

// V8 quotes a string in one step: 2^28 characters took 0.9 s. A long string given alone is quoted a
// slice at a time, a surrogate pair kept whole; one inside another value is still V8's, whole.
const JSON_STRING_SLICE = 2 ** 20;
function longStringJson(native, text) {
  let json = '"';
  for (let start = 0; start < text.length;) {
    let end = MathMin(start + JSON_STRING_SLICE, text.length);
    const last = ReflectApply(StringPrototypeCharCodeAt, text, [end - 1]);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    const quoted = ReflectApply(native, JSON, [ReflectApply(StringPrototypeSlice, text, [start, end])]);
    json += ReflectApply(StringPrototypeSlice, quoted, [1, quoted.length - 1]);
    start = end;
  }
  return `${json}"`;
}

// A replacer array is read to its length in C++ that never checks for termination (2^32 - 1 kept
// a run's thread past it for minutes). Past 2^16 entries, or through a proxy, it is read here as
// the specification reads it, and V8 is given the property list it makes.
const SHORT_REPLACER = 2 ** 16;
const SetCtor = Set;
const SetPrototypeAdd = Set.prototype.add;
const SetPrototypeHas = Set.prototype.has;
const StringPrototypeValueOf = String.prototype.valueOf;
const NumberPrototypeValueOf = Number.prototype.valueOf;

/** Whether `value` is a String or Number object, told by its internal slot, not by its code. */
function isStringOrNumberObject(value) {
  for (const valueOf of [StringPrototypeValueOf, NumberPrototypeValueOf]) {
    try {
      ReflectApply(valueOf, value, []);
      return true;
    } catch {}
  }
  return false;
}

function replacerPropertyList(replacer) {
  const length = toLength(replacer.length);
  const list = [];
  const seen = new SetCtor();
  for (let k = 0; k < length; k++) {
    const value = replacer[k];
    let item;
    if (typeof value === 'string') item = value;
    else if (typeof value === 'number') item = StringCtor(value);
    else if (typeof value === 'object' && value !== null && isStringOrNumberObject(value)) item = toStringStrict(value);
    if (item !== undefined && !ReflectApply(SetPrototypeHas, seen, [item])) {
      ReflectApply(SetPrototypeAdd, seen, [item]);
      createDataProperty(list, list.length, item);
    }
  }
  return list;
}

replace(JSON, 'stringify', (native, _receiver, args) => {
  const replacer = args[1];
  if (ArrayIsArray(replacer) && !hasShortLength(replacer, SHORT_REPLACER)) args[1] = replacerPropertyList(replacer);
  if (typeof replacer === 'function' || ArrayIsArray(replacer)) return ReflectApply(native, JSON, args);
  if (typeof args[0] === 'string' && args[0].length > JSON_STRING_SLICE) return longStringJson(native, args[0]);
  // A Number or String object's valueOf or toString is called once, here, and V8 is given the gap
  // it made; other values V8 reads as they are (and given as they are, V8 keeps its fast path).
  const space = args[2];
  const spaceObject = typeof space === 'object' && space !== null;
  const gap = spaceObject ? jsonGap(space) : '';
  const nativeArgs = spaceObject ? [args[0], undefined, gap] : args;
  if (!typedArrayToJSONPlaced) {
    if (!longBufferMade()) return ReflectApply(native, JSON, nativeArgs);
    placeTypedArrayToJSON();
  }
  const call = { mark: '', arrays: null };
  const outer = jsonCall;
  jsonCall = call;
  let text;
  try {
    text = ReflectApply(native, JSON, nativeArgs);
  } finally {
    jsonCall = outer;
  }
  return call.arrays === null ? text : withTypedArrays(text, call, spaceObject ? gap : jsonGap(space));
});

// Spreading a long string, or Array.from of one, walks it code point by code point through an
// iterator whose `next` is a JavaScript method, so every step enters JavaScript and polls (a
// generator's steps do not: they resume where they left off); short strings keep V8's.
const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
class LongStringIterator {
  #text;
  #index = 0;

  constructor(text) {
    this.#text = text;
  }

  next() {
    const text = this.#text;
    const i = this.#index;
    if (i >= text.length) return { value: undefined, done: true };
    const width = ReflectApply(StringPrototypeCodePointAt, text, [i]) > 0xffff ? 2 : 1;
    this.#index = i + width;
    return { value: width === 2 ? text[i] + text[i + 1] : text[i], done: false };
  }
}
// Shaped as V8's string iterators are: `next` on a prototype under %IteratorPrototype%.
presentAsBuiltin(LongStringIterator.prototype.next, Object.getPrototypeOf(''[Symbol.iterator]()).next);
delete LongStringIterator.prototype.constructor;
Object.setPrototypeOf(LongStringIterator.prototype, IteratorPrototype);
ObjectDefineProperty(LongStringIterator.prototype, Symbol.toStringTag, { __proto__: null, value: 'String Iterator', configurable: true });
ObjectDefineProperty(LongStringIterator.prototype, 'next', { __proto__: null, enumerable: false });
replace(String.prototype, Symbol.iterator, (native, receiver, args) => {
  if (receiver === null || receiver === undefined) return ReflectApply(native, receiver, args);
  const text = toStringStrict(receiver);
  return text.length <= LONG_LENGTH ? ReflectApply(native, text, args) : new LongStringIterator(text);
});
