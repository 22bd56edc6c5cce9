// What a program's for-in loops, object spreads and object rests call (src/program/listing_guards.rs
// puts a loop around `for (k in v)` that takes `v` through `forInSubject` and what it gave through
// `forInNext` after each pass, rewrites a for-in whose left side has an object rest to
// `for (k of forInKeys(v))`, `{a, ...v, b: 1}` to `copied({a, ...spreadable(v, 3), b: 1}, '["b"]')`
// when the members after a literal's last spread run no code, any other spread `{...v, b: f()}` to
// `{...spreadable(v), b: f()}`, and routes each object rest's source through `spreadable` too, by
// `spreadableEach` and `parameterKey` in for-of heads and parameters).
//
// V8 lists a for-in subject's keys, and copies a spread's source, in C++: one string per element,
// past the heap cap, with no way to stop it (`for (k in new Uint8Array(2 ** 25))` grew the host by
// 1.3 GB at a 64 MB cap, and kept its thread 3 s past its run). Here the keys of a value whose
// prototype chain holds a long string, array or typed array are listed lazily, in JavaScript, in
// V8's order, and handed to V8's own for-in a part at a time; any other value is V8's to list. A
// spread or rest copy of a value past 2^18 elements is refused: V8 would make it in one step that
// cannot be stopped, and no copy made here could be handed to it without V8 listing it again. Only
// a literal's last spread, with nothing after it that runs code, is copied here instead, into the
// object V8 made.

import { core } from 'ext:core/mod.js';
import { JSONParse, createDataProperty, exoticKind, isObject, isProxy, list } from 'ext:dsh/abstract_ops.js';
import { LONG_LISTING, longTypedArrayLength } from 'ext:dsh/polling.js';
import { standInFront } from 'ext:dsh/source_text.js';

const {
  op_dsh_proxied_long_length: proxiedLongLength,
  op_get_non_index_property_names: nonIndexKeys,
} = core.ops;
// Replaced in every isolate by the same check with a fast call (src/engine/listings.rs), which the
// snapshot cannot keep.
let listingKind = core.ops.op_dsh_listing_kind;

export function useFastListingKind(fastListingKind) {
  listingKind = fastListingKind;
}
const ArrayIsArray = Array.isArray;
const ArrayPrototype = Array.prototype;
const ArrayPrototypeIndexOf = Array.prototype.indexOf;
const ArrayPrototypeSplice = Array.prototype.splice;
const ObjectCtor = Object;
const ObjectFreeze = Object.freeze;
const MathMin = Math.min;
const ObjectSetPrototypeOf = Object.setPrototypeOf;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectKeys = Object.keys;
const ObjectPrototype = Object.prototype;
const ObjectPrototypeHasOwnProperty = Object.prototype.hasOwnProperty;
const ObjectPrototypeLookupGetter = Object.prototype.__lookupGetter__;
const ObjectPrototypePropertyIsEnumerable = Object.prototype.propertyIsEnumerable;
const ReflectApply = Reflect.apply;
const ReflectDeleteProperty = Reflect.deleteProperty;
const ReflectGetOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
const ReflectGet = Reflect.get;
const ReflectGetPrototypeOf = Reflect.getPrototypeOf;
const ProxyCtor = Proxy;
const WeakMapCtor = WeakMap;
const WeakMapPrototypeGet = WeakMap.prototype.get;
const WeakMapPrototypeSet = WeakMap.prototype.set;
const ReflectOwnKeys = Reflect.ownKeys;
const SetCtor = Set;
const SetPrototypeAdd = Set.prototype.add;
const SetPrototypeHas = Set.prototype.has;
const RangeErrorCtor = RangeError;
const StringCtor = String;
const StringPrototypeValueOf = String.prototype.valueOf;
const SymbolCtor = Symbol;
const SymbolIterator = Symbol.iterator;
const SymbolAsyncIterator = Symbol.asyncIterator;
const TypeErrorCtor = TypeError;
const ArrayBufferIsView = ArrayBuffer.isView;
// V8's property filter for own enumerable string keys, as the op takes it.
const ENUMERABLE_STRINGS = 2 | 16;
// And for own enumerable symbols.
const ENUMERABLE_SYMBOLS = 2 | 8;
// Consecutive holes after which a long array's indices are listed by V8: a sparse array of length
// 2^32 - 1 holds few elements, and V8 lists only those.
const HOLES_BEFORE_LISTING = 2 ** 16;

// What listing a value's own keys means, as op_dsh_listing_kind answers (src/engine/listings.rs).
const SHORT = 0;
const LONG = 1;
const PROXY = 2;
const STRING_OBJECT = 3;

/** How many indices `value` lists as its own when that is more than LONG_LISTING, else 0; `kind`
 * is its listing kind (a proxy lists none here). */
function ownLongLength(value, kind) {
  if (kind === LONG) return typeof value === 'string' || ArrayIsArray(value) ? value.length : longTypedArrayLength(value);
  if (kind !== STRING_OBJECT) return 0;
  const length = ReflectApply(StringPrototypeValueOf, value, []).length;
  return length > LONG_LISTING ? length : 0;
}

/** A proxy of a long value, or of a value with a long one on its chain: V8 would list its keys in
 * C++ unless the handler's traps list them, and asking the handler is the program's business. */
function refuseProxyOfLong(proxy) {
  const length = proxiedLongLength(proxy);
  if (length > 0) {
    throw new RangeErrorCtor(`a for-in or object spread or rest over a proxy of a value of ${length} elements is refused: ` +
      `past ${LONG_LISTING}, V8 lists them in one step that cannot be stopped`);
  }
}

// What a for-in over a value would have V8 list, as `chainHolds` tells it.
const NOTHING_LONG = 0;
const SOMETHING_LONG = 1;
const A_PROXY = 2;

/** Whether a for-in over `value` would have V8 list a long value of its chain (SOMETHING_LONG), or
 * reach a proxy first (A_PROXY), whose getPrototypeOf trap may answer with one. A proxy of a long
 * value is refused. */
function chainHolds(value) {
  if (value === null || value === undefined) return NOTHING_LONG;
  for (let link = value; ;) {
    // Most links are ordinary objects, told here without a call to kindOf, which an interpreted
    // for-in would make for each of its subject's links.
    if (typeof link !== 'object' || exoticKind(link) !== SHORT || ArrayIsArray(link) || ArrayBufferIsView(link)) {
      const kind = kindOf(link);
      if (kind === PROXY) {
        refuseProxyOfLong(link);
        return A_PROXY;
      }
      if (kind === LONG || (kind === STRING_OBJECT && ownLongLength(link, kind) > 0)) return SOMETHING_LONG;
    }
    link = ObjectGetPrototypeOf(link);
    // Object.prototype lists no indices, and its prototype is null for good: most chains end here
    // without another call.
    if (link === null || link === ObjectPrototype) return NOTHING_LONG;
  }
}

/** `listingKind(value)`, as fast as it can be told where it is asked of every for-in subject and
 * spread or rest source: each of the op's checks is a call into V8, where V8's compiler inlines the
 * array check and the view check that the rare typed array passes made here. */
function kindOf(value) {
  if (typeof value !== 'object' && typeof value !== 'function') return listingKind(value);
  const kind = exoticKind(value);
  if (kind !== SHORT) return kind;
  if (ArrayIsArray(value)) return value.length > LONG_LISTING ? LONG : SHORT;
  // A DataView lists no indices, and longTypedArrayLength tells it from a typed array.
  return ArrayBufferIsView(value) && longTypedArrayLength(value) > 0 ? LONG : SHORT;
}

const hasOwn = (object, key) => ReflectApply(ObjectPrototypeHasOwnProperty, object, [key]);

/** The keys a for-in loop over `object` visits, in V8's order: each object's indices, then its
 * other keys, along the prototype chain. A key is visited once the object still has it (V8's filter
 * for keys deleted during the loop), and is not one an object before it on the chain has. */
function ForInKeys(object, segments) {
  this.object = object;
  this.segments = segments;
  // A proxy, which ends the chain's last segment, is asked as V8 asks it.
  this.proxied = segments[segments.length - 1].proxied === true;
  this.segment = 0;
  this.index = 0;
  this.holes = 0;
}
ForInKeys.prototype = {
  __proto__: null,
  [SymbolIterator]() {
    return this;
  },
  next() {
    const segments = this.segments;
    while (this.segment < segments.length) {
      const { owner, depth, keys, length, array } = segments[this.segment];
      const index = this.index++;
      if (keys === undefined ? index >= length : index >= keys.length) {
        this.segment++;
        this.index = 0;
        this.holes = 0;
        continue;
      }
      if (keys === undefined && array && !hasOwn(owner, index)) {
        // A long run of holes: the rest of this array's indices come from V8, which lists only those
        // it holds.
        if (++this.holes === HOLES_BEFORE_LISTING) {
          segments[this.segment] = heldIndices(owner, depth, index);
          this.index = 0;
        }
        continue;
      }
      this.holes = 0;
      const key = keys === undefined ? StringCtor(index) : keys[index];
      if (array && !ReflectApply(ObjectPrototypePropertyIsEnumerable, owner, [key])) continue;
      if (!(this.proxied ? forInHas(this.object, key) : key in this.object) || shadowed(segments, depth, key)) continue;
      return { value: key, done: false };
    }
    return { value: undefined, done: true };
  },
  /** Whether the next key comes from a string's or a typed array's indices, which stay. */
  fixedIndices() {
    const segment = this.segments[this.segment];
    return segment !== undefined && segment.keys === undefined && !segment.array && this.index < segment.length;
  },
  /** How many of those indices are there now: a typed array whose buffer was detached has none. */
  fixedLength() {
    const { owner, length } = this.segments[this.segment];
    return listingKind(owner) === STRING_OBJECT ? length : MathMin(length, longTypedArrayLength(owner));
  },
  /** The next of those indices below `length` that the loop visits, or `undefined` past the last. */
  nextFixedIndex(length) {
    const depth = this.segments[this.segment].depth;
    while (this.index < length) {
      const index = this.index++;
      if (depth === 0 || !shadowed(this.segments, depth, StringCtor(index))) return index;
    }
    return undefined;
  },
};

/** The indices an array holds from `from` on, as a segment of keys (for an array after a long run
 * of holes: V8 lists only the elements it holds). */
function heldIndices(array, depth, from) {
  const held = list();
  const keys = ObjectKeys(array);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const index = +key;
    // Array indices only, at or past `from` (the others come in the array's next segment).
    if (StringCtor(index) === key && index >= from && index < 2 ** 32 - 1) held[held.length] = key;
  }
  return { owner: array, depth, keys: held, length: 0, array: false };
}

/** Whether an object before `depth` on the chain has `key` as its own (an own key, enumerable or
 * not, hides the same key further down). */
function shadowed(segments, depth, key) {
  if (depth === 0) return false;
  for (let i = 0; i < segments.length; i++) {
    const { owner, depth: before } = segments[i];
    if (before < depth && hasOwn(owner, key)) return true;
  }
  return false;
}

/** The keys V8's for-in lists for the chain from `start`, which holds a proxy, in V8's order and
 * with the traps V8 calls (each proxy's `ownKeys`, then its `getPrototypeOf`), listed here so that a
 * long value a trap answers with is refused rather than listed by V8 in one step. A key is listed
 * once, at its first object; a key not enumerable there hides it further on. A proxy's keys are
 * all listed: whether they are enumerable is asked as the loop reaches them (`forInHas`). */
function chainKeys(start) {
  const keys = list();
  const seen = new SetCtor();
  for (let link = start; link !== null; link = ReflectGetPrototypeOf(link)) {
    const kind = listingKind(link);
    if (kind === PROXY) {
      refuseProxyOfLong(link);
    } else {
      const length = ownLongLength(link, kind);
      if (length > 0) {
        throw new RangeErrorCtor(`a for-in over a proxy whose prototype chain holds a value of ${length} elements is refused: ` +
          `past ${LONG_LISTING}, V8 lists them in one step that cannot be stopped`);
      }
    }
    const own = ReflectOwnKeys(link);
    for (let i = 0; i < own.length; i++) {
      const key = own[i];
      if (typeof key !== 'string' || ReflectApply(SetPrototypeHas, seen, [key])) continue;
      ReflectApply(SetPrototypeAdd, seen, [key]);
      if (kind === PROXY || ReflectApply(ObjectPrototypePropertyIsEnumerable, link, [key])) keys[keys.length] = key;
    }
  }
  return keys;
}

/** V8's check, as a for-in over a chain with a proxy reaches `key`, that `object` still has it:
 * found on an object, or found enumerable by a proxy's `getOwnPropertyDescriptor` (a proxy that
 * lacks it is asked for its prototype). */
function forInHas(object, key) {
  for (let link = object; link !== null;) {
    if (listingKind(link) === PROXY) {
      const descriptor = ReflectGetOwnPropertyDescriptor(link, key);
      if (descriptor !== undefined) return !!descriptor.enumerable;
      link = ReflectGetPrototypeOf(link);
    } else {
      if (hasOwn(link, key)) return true;
      link = ObjectGetPrototypeOf(link);
    }
  }
  return false;
}

/** V8's own for-in, live, for a value with nothing long on its chain: keys deleted while the
 * program's loop runs are skipped, and a proxy's traps are called, as V8 does it. (An iterator
 * over the keys listed at the start, each checked as the loop reaches it, took twice as long.) */
function* liveKeys(object) {
  for (const key in object) yield key;
}
// V8's own methods, as its own properties, so that a program that replaces a generator or iterator
// method does not reach these: the loop calls them with no frame of ours between.
const GeneratorPrototype = ObjectGetPrototypeOf(liveKeys.prototype);
liveKeys.prototype.next = GeneratorPrototype.next;
liveKeys.prototype.return = GeneratorPrototype.return;
liveKeys.prototype[SymbolIterator] = ObjectGetPrototypeOf(GeneratorPrototype)[SymbolIterator];

/** The segments of a chain that holds a long value. A proxy ends the walk: its keys, and those of
 * the chain behind it, are `chainKeys`'s. */
function segmentsOf(object) {
  const segments = list();
  let depth = 0;
  for (let link = object; link !== null; link = ObjectGetPrototypeOf(link), depth++) {
    const kind = listingKind(link);
    if (kind === PROXY) {
      segments[segments.length] = { owner: link, depth, keys: chainKeys(link), length: 0, array: false, proxied: true };
      break;
    }
    const length = ownLongLength(link, kind);
    if (length > 0) {
      // String and typed array indices are always enumerable; an array's may not be.
      segments[segments.length] = { owner: link, depth, keys: undefined, length, array: ArrayIsArray(link) };
      segments[segments.length] = { owner: link, depth, keys: nonIndexKeys(link, ENUMERABLE_STRINGS), length: 0, array: false };
    } else {
      segments[segments.length] = { owner: link, depth, keys: ObjectKeys(link), length: 0, array: false };
    }
  }
  return segments;
}

/** `for (key in value)`'s keys, as an iterable; each passed through `spreadable` with `shape`
 * when the loop's left side destructures it with an object rest. */
export function forInKeys(value, shape) {
  const keys = forInKeysOf(value);
  return shape === undefined ? keys : new MirroredValues(keys, keys[SymbolIterator], shape, -1);
}

function forInKeysOf(value) {
  const holds = chainHolds(value);
  return holds === NOTHING_LONG ? liveKeys(value) : listedKeys(value, holds);
}

/** The keys of a for-in over `value`, listed here, for a chain that `holds` a long value or a proxy. */
function listedKeys(value, holds) {
  const object = ObjectCtor(value);
  if (holds === A_PROXY) return new ForInKeys(object, [{ owner: object, depth: 0, keys: chainKeys(object), length: 0, array: false, proxied: true }]);
  return new ForInKeys(object, segmentsOf(object));
}

// A for-in over a value whose chain holds a long value or a proxy iterates stand-ins, a part of the
// value's keys (ForInKeys, from the value's chain as V8 would list it) at a time, each followed by an
// end marker that only a proxy lists, and that V8 asks that proxy's `getOwnPropertyDescriptor` for
// only when the pass was not broken off; `forInNext` then gives the next part for another pass.
// Indices of a long string or typed array, which no program can delete, are a plain object's own
// keys, V8's to list; any other key is listed by the proxy, whose `getOwnPropertyDescriptor` V8 asks
// for each key as the loop reaches it, and which says whether the value still has it.

// The keys a pass holds: listed ahead, which is invisible unless the chain holds a proxy, whose
// traps V8 calls as each key is reached (one key a pass, then).
const STAND_IN_KEYS = 1024;
const END_MARKER = '\0dsh: no keys after this one';
// Prototypeless, so that no getter of the program's on Object.prototype is read as a field of it;
// made with a prototype first, so that V8 reads it as a fast object.
const ENUMERABLE = ObjectFreeze(ObjectSetPrototypeOf({ value: undefined, writable: true, enumerable: true, configurable: true }, null));

/** What the stand-ins of one for-in stand for: the value's keys, and what a pass lists. */
function StandInState(keys) {
  this.keys = keys;
  // What the proxy lists: the pass's keys that it answers for, then the end marker.
  this.part = null;
  this.end = END_MARKER;
  this.finished = false;
  this.proxy = new ProxyCtor(this, STAND_IN_TRAPS);
}

/** What the next pass iterates: the proxy or a plain object over it, with the next keys; `null`
 * when none is left. */
function nextPass(state) {
  const keys = state.keys;
  const part = list();
  let fixed = null;
  if (!keys.proxied && keys.fixedIndices()) {
    fixed = { __proto__: null };
    const length = keys.fixedLength();
    let key;
    for (let i = 0; i < STAND_IN_KEYS && (key = keys.nextFixedIndex(length)) !== undefined; i++) fixed[key] = 0;
    // Detached since it was listed: the rest of its indices are gone.
    if (key === undefined) keys.index = keys.segments[keys.segment].length;
  } else {
    const count = keys.proxied ? 1 : STAND_IN_KEYS;
    for (let i = 0; i < count; i++) {
      const step = keys.next();
      if (step.done) break;
      part[part.length] = step.value;
    }
    if (part.length === 0) return null;
  }
  let end = END_MARKER;
  for (let i = 0; i < part.length; i++) {
    if (part[i] === end) {
      end += '_';
      i = -1;
    }
  }
  part[part.length] = end;
  state.part = part;
  state.end = end;
  state.finished = false;
  if (fixed === null) return state.proxy;
  ObjectSetPrototypeOf(fixed, state.proxy);
  ReflectApply(WeakMapPrototypeSet, standIns, [fixed, state]);
  return fixed;
}

const STAND_IN_TRAPS = {
  __proto__: null,
  ownKeys: (state) => state.part,
  getPrototypeOf: () => null,
  getOwnPropertyDescriptor(state, key) {
    if (key === state.end) {
      state.finished = true;
      return undefined;
    }
    const keys = state.keys;
    // Asked again as the loop reaches it, as V8 does (one listed ahead may have been deleted); a
    // proxy's key was asked for just now.
    if (keys.proxied || key in keys.object) return ENUMERABLE;
    return undefined;
  },
};

const standIns = new WeakMapCtor();
// How many stand-ins a loop may still pass to `forInNext`: with none, it has nothing to look up. A
// loop left by a `return`, a `throw` or a `break` to an outer label never does, so this only ever
// overcounts.
let standInsOut = 0;

/** A for-in's subject as V8's for-in takes it: `value` itself when V8 may list its keys, else a
 * stand-in (or `null`, for no keys). */
export function forInSubject(value) {
  const holds = chainHolds(value);
  if (holds === NOTHING_LONG) return value;
  const state = new StandInState(listedKeys(value, holds));
  const first = nextPass(state);
  if (first === null) return null;
  ReflectApply(WeakMapPrototypeSet, standIns, [state.proxy, state]);
  standInsOut++;
  return first;
}

/** After a pass of a for-in over `subject` (what `forInSubject` or this gave): the next stand-in,
 * when the pass went through all of its keys and more are left; else `forInNext` itself, which
 * ends the loop around the for-in. */
export function forInNext(subject) {
  if (standInsOut === 0 || subject === null || typeof subject !== 'object') return forInNext;
  const state = ReflectApply(WeakMapPrototypeGet, standIns, [subject]);
  if (state === undefined) return forInNext;
  const next = state.finished ? nextPass(state) : null;
  if (next !== null) return next;
  standInsOut--;
  return forInNext;
}

/** `value`, as the pattern of `shape` (src/program/listing_guards.rs) may destructure it: refused
 * where an object rest would copy a string, array or typed array of more than LONG_COPY elements
 * in one step that cannot be stopped, and mirrored where the pattern holds object rests further
 * in. Without a shape, `value` is a spread's source or an object rest's, checked. */
export function spreadable(value, shape, message) {
  // A message's fourth element: `undefined` is a default's to take.
  if (message !== undefined && (value === null || (value === undefined && message[3] !== 1))) {
    throw new TypeErrorCtor(destructureError(message, value));
  }
  if (shape === undefined || shape === 1 || shape === COPIED_LATER) return checked(value, shape === COPIED_LATER);
  if (value === null || value === undefined) return value;
  const text = message === undefined || typeof message[2] !== 'string' ? null : message[2];
  return shape[0] === OBJECT_PATTERN ? objectMirror(value, shape, text) : iterableMirror(value, shape, message);
}

/** `value` as the pattern of `shape` takes it inside a mirrored one: V8's messages for a value an
 * array pattern cannot iterate there name the outermost value's expression (`text`) under an
 * object pattern's property, the value itself elsewhere. */
function spreadableWithin(value, shape, text) {
  if (shape === 1) return checked(value);
  if (shape[0] === OBJECT_PATTERN) return value === null || value === undefined ? value : objectMirror(value, shape, text);
  if (value === null || value === undefined) {
    if (text === null) throw new TypeErrorCtor(destructureError(VALUE_NOT_ITERABLE_MESSAGE, value));
    throw new TypeErrorCtor(`Cannot destructure property 'Symbol(Symbol.iterator)' of '${text}' as it is ${value}.`);
  }
  return iterableMirror(value, shape, text === null ? VALUE_NOT_ITERABLE_MESSAGE : [VALUE_NOT_ITERABLE_NAMED, null, text]);
}

// The forms of V8's messages for a value a pattern or a for-of cannot take, as
// src/program/call_site.rs gives them: [form, key, text].
const DESTRUCTURE = 0;
const READING = 1;
const NOT_ITERABLE = 2;
const CALL_NOT_ITERABLE = 3;
const VALUE_NOT_ITERABLE_MESSAGE = [4];
// `text is not iterable (cannot read property Symbol(Symbol.iterator))`, under an object pattern.
const VALUE_NOT_ITERABLE_NAMED = 5;

/** V8's message for `value`, which the pattern or loop `message` describes cannot take (without a
 * text, V8 names the value by its type). */
function destructureError(message, value) {
  const form = message[0];
  const key = message[1];
  const text = message[2] === undefined || message[2] === null ? valueNamed(value) : message[2];
  if (form === DESTRUCTURE) {
    return key === null ? `Cannot destructure '${text}' as it is ${value}.` : `Cannot destructure property '${key}' of '${text}' as it is ${value}.`;
  }
  if (form === READING) return `Cannot read properties of ${value} (reading '${key}')`;
  if (form === NOT_ITERABLE) return `${text} is not iterable`;
  if (form === CALL_NOT_ITERABLE) return `${text} is not a function or its return value is not iterable`;
  if (form === VALUE_NOT_ITERABLE_NAMED) return `${text} is not iterable (cannot read property Symbol(Symbol.iterator))`;
  return `${valueNamed(value)} is not iterable (cannot read property Symbol(Symbol.iterator))`;
}

/** A value as V8 names it where no expression does: its type, and a primitive's value. */
function valueNamed(value) {
  if (value === undefined) return 'undefined';
  if (value === null) return 'object null';
  const type = typeof value;
  if (type === 'string') return `string "${value}"`;
  if (type === 'number' || type === 'boolean') return `${type} ${value}`;
  return type;
}

/** A spread's or rest's source, as V8 may copy it: refused when long, unless `later`, for a spread
 * whose literal's object `copied` takes, which then gets an object that leaves the source in it
 * under LEFT. */
function checked(value, later) {
  const kind = kindOf(value);
  if (kind === PROXY) refuseProxyOfLong(value);
  // Asked first: every spread comes here, and most sources are short.
  if (kind !== LONG && kind !== STRING_OBJECT) return value;
  const length = ownLongLength(value, kind);
  if (length <= LONG_COPY) return value;
  if (!later) refuseLongCopy(length);
  sourcesLeft++;
  return { __proto__: null, [LEFT]: value };
}

function refuseLongCopy(length) {
  throw new RangeErrorCtor(`an object spread or rest of a value of ${length} elements is refused: past ${LONG_COPY}, ` +
    'V8 copies them in one step that cannot be stopped (copy them in a loop instead)');
}

// The most elements a spread or rest copies: V8 takes about 80 ms for 2^18 here, in one step that
// cannot be stopped, which ends well within the 250 ms in which a run's thread leaves after it
// settles.
const LONG_COPY = 2 ** 18;

// A literal's last spread, when the members after it run none of the program's code, comes with
// this shape, and the literal's object then passes through `copied` with the keys those members
// define, so that a long source can be copied here, in JavaScript, a run can stop: V8's spread copies
// one property, LEFT, whose value is the source, and `copied` copies the source's own enumerable
// properties into the object V8 made of the literal, leaving the keys after the spread as those
// members defined them.
const COPIED_LATER = 3;
// The key under which a spread leaves its long source in its literal's object: there for `copied`
// alone, as nothing of the program runs between the two.
const LEFT = SymbolCtor('dsh spread source');
// How many sources spreads have left: `copied` looks in its object only when some are. A literal
// whose later member threw never reaches `copied`, and keeps this above 0 for good, which costs
// each `copied` an own-property check.
let sourcesLeft = 0;

/** A literal's object, once V8 has made it: with the long source its last spread left in it, if
 * any, copied in, in V8's order, except for the keys in `after` (a JSON list), which the members
 * after the spread defined. */
export function copied(object, after) {
  return sourcesLeft === 0 || !hasOwn(object, LEFT) ? object : copyLeft(object, after);
}

function copyLeft(object, after) {
  sourcesLeft--;
  const source = object[LEFT];
  ReflectDeleteProperty(object, LEFT);
  const defined = after === undefined ? null : keySet(JSONParse(after));
  // A named key of the source's that no member of the literal defines would come before the keys
  // after the spread in V8's order, which a copy made after them cannot give it: refused.
  if (defined !== null && typeof source !== 'string') {
    const named = nonIndexKeys(source, ENUMERABLE_STRINGS);
    for (let i = 0; i < named.length; i++) {
      if (!hasOwn(object, named[i])) refuseLongCopy(ownLongLength(source, listingKind(source)));
    }
  }
  copyOwnEnumerable(object, source, defined);
  return object;
}

function keySet(keys) {
  const set = { __proto__: null };
  for (let i = 0; i < keys.length; i++) set[keys[i]] = true;
  return set;
}

/** Whether `key` is one of `skipped`'s (none when it is null). */
const skips = (skipped, key) => skipped !== null && key in skipped;

// One descriptor for every property `copyOwnEnumerable` defines; nothing of the program reads it.
const COPIED_PROPERTY = { __proto__: null, value: undefined, writable: true, enumerable: true, configurable: true };

function defineCopied(target, key, value) {
  COPIED_PROPERTY.value = value;
  ObjectDefineProperty(target, key, COPIED_PROPERTY);
  COPIED_PROPERTY.value = undefined;
}

/** What V8's copy of a spread does (CopyDataProperties): each own key of `source` in order (indices,
 * other strings, symbols), copied when it is still there and enumerable as it is reached, unless it
 * is one of `skipped`'s keys. An array's run of HOLES_BEFORE_LISTING holes hands its remaining
 * indices to V8 to list, as a for-in over it does. */
function copyOwnEnumerable(target, source, skipped) {
  if (typeof source === 'string') {
    for (let i = 0; i < source.length; i++) {
      if (!skips(skipped, i)) defineCopied(target, i, source[i]);
    }
    return;
  }
  const array = ArrayIsArray(source);
  const length = ArrayBufferIsView(source) ? longTypedArrayLength(source) : source.length;
  let holes = 0;
  for (let i = 0; i < length; i++) {
    if (array && !hasOwn(source, i)) {
      if (++holes < HOLES_BEFORE_LISTING) continue;
      copyKeys(target, source, heldIndices(source, 0, i + 1).keys, skipped);
      break;
    }
    holes = 0;
    if (!skips(skipped, i) && (!array || ReflectApply(ObjectPrototypePropertyIsEnumerable, source, [i]))) {
      defineCopied(target, i, source[i]);
    }
  }
  copyKeys(target, source, nonIndexKeys(source, ENUMERABLE_STRINGS), skipped);
  // The members after a copied spread have no computed keys, so they define no symbol.
  copyKeys(target, source, nonIndexKeys(source, ENUMERABLE_SYMBOLS), null);
}

function copyKeys(target, source, keys, skipped) {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (!skips(skipped, key) && ReflectApply(ObjectPrototypePropertyIsEnumerable, source, [key])) {
      defineCopied(target, key, source[key]);
    }
  }
}

// The kinds of pattern a shape mirrors, and where its children's shapes begin.
const OBJECT_PATTERN = 0;
const OWN_REST = 1;
const CHILDREN = 2;
// An array pattern's element with no shape whose destructuring may run the program's code.
const RUNS_CODE = 2;

/** An object pattern's value, as a proxy whose `get` passes the value of the pattern's property at
 * each position through `spreadable` with that property's shape. V8's destructuring reads each of
 * the pattern's properties once, in order, before its rest copies the rest: the Nth read is the Nth
 * property's. Everything else reaches `value` as V8 would reach it (getters see `value`). */
function objectMirror(value, shape, text) {
  if (shape[OWN_REST] === 1) checked(value);
  let position = CHILDREN;
  return new ProxyCtor(ObjectCtor(value), {
    __proto__: null,
    get(target, key) {
      const read = ReflectGet(target, key, value);
      const child = shape[position++];
      return child === undefined || child === 0 ? read : spreadableWithin(read, child, text);
    },
  });
}

/** An array pattern's value, as an iterable whose iterator passes each element through
 * `spreadable` with the shape of the pattern at its position. `value`'s own iterator is called as
 * V8 would call it (its method once, its `next` once, `return` when the pattern ends early). A
 * value with no iterator method is left to V8 to refuse. */
function iterableMirror(value, shape, message) {
  if (checkedInPlace(value, shape)) return value;
  const method = value[SymbolIterator];
  if (typeof method !== 'function') {
    if (message !== undefined) throw new TypeErrorCtor(destructureError(message, value));
    return value;
  }
  return {
    __proto__: null,
    [SymbolIterator]: () => new MirroredValues(value, method, shape, CHILDREN),
  };
}

/** Whether an array pattern of `shape` with one element whose rest copies it and none further in
 * (`[k, { id, ...rest }]`) may take `value` as it is, once that element has been checked: `value`
 * is an array that V8 iterates with its own iterator, the element is a data property of its own,
 * and no element before it runs the program's code, so that nothing of the program runs between
 * the check and V8's read. Anything else is mirrored. */
function checkedInPlace(value, shape) {
  if (shape[OWN_REST] !== 0) return false;
  if (!ArrayIsArray(value) || isProxy(value) || !arrayIterationIsNative(value)) return false;
  // One element to check, with no code of the program's to run before V8 reads it (which could
  // put another value in its place); elements after it may run code.
  let at = -1;
  for (let position = CHILDREN; position < shape.length; position++) {
    const child = shape[position];
    if (child === 0 || (child === RUNS_CODE && at !== -1)) continue;
    if (child !== 1 || at !== -1) return false;
    at = position - CHILDREN;
  }
  // An own property with no getter, read without calling any code (a descriptor is an object to
  // make, which took longer).
  if (!hasOwn(value, at) || ReflectApply(ObjectPrototypeLookupGetter, value, [at]) !== undefined) return false;
  checked(value[at]);
  return true;
}

const ArrayIteratorPrototype = ObjectGetPrototypeOf([][SymbolIterator]());
const ArrayValues = ArrayPrototype[SymbolIterator];
const ArrayIteratorNext = ArrayIteratorPrototype.next;

/** Whether V8 iterates `array` with its own array iterator, which runs none of the program's code. */
function arrayIterationIsNative(array) {
  return ObjectGetPrototypeOf(array) === ArrayPrototype && !hasOwn(array, SymbolIterator) && arrayIterationIntact();
}

const REST_ITERATION_REPLACED = "an array pattern inside an array pattern's rest element, with an object rest in it, is not supported " +
  "while Array.prototype's iterator is replaced: V8 would iterate the rest's array with the program's code";

/** Whether an array's iteration is V8's own: Array.prototype's iterator method and the array
 * iterator's `next`. */
function arrayIterationIntact() {
  // Read as descriptors: a getter of the program's is not called.
  const values = ReflectGetOwnPropertyDescriptor(ArrayPrototype, SymbolIterator);
  const next = ReflectGetOwnPropertyDescriptor(ArrayIteratorPrototype, 'next');
  return values !== undefined && values.value === ArrayValues && next !== undefined && next.value === ArrayIteratorNext;
}

// What V8 names a for-of's value by in its messages.
const FOR_OF = '.for';
const FOR_OF_NOT_ITERABLE = [NOT_ITERABLE, null, FOR_OF];

/** For `for (const { a, ...rest } of iterable)`: the values of `iterable`, each passed through
 * `spreadable` with the head's shape. Iterated as V8 iterates a for-of's iterable (its method
 * once, its `next` once, its `return` when the loop ends early). */
export function spreadableEach(iterable, shape, message) {
  const method = iterable === null || iterable === undefined ? undefined : iterable[SymbolIterator];
  if (typeof method !== 'function') throw new TypeErrorCtor(destructureError(message, iterable));
  return new MirroredValues(iterable, method, shape, -1);
}

/** For `for await (const { a, ...rest } of iterable)`: the values of `iterable`'s async iterator,
 * or of its iterator made async, each passed through `spreadable` with the head's shape once it has
 * settled. Iterated as V8 iterates a for-await's iterable; the loop gets each value one turn of the
 * microtask queue later than it would from the iterator itself. */
export function spreadableEachAsync(iterable, shape, message) {
  if (iterable === null || iterable === undefined) {
    throw new TypeErrorCtor(`Cannot read properties of ${iterable} (reading 'Symbol(Symbol.asyncIterator)')`);
  }
  let method = iterable[SymbolAsyncIterator];
  const sync = method === undefined || method === null;
  if (sync) method = iterable[SymbolIterator];
  if (typeof method !== 'function') throw new TypeErrorCtor(notAsyncIterable(message, iterable));
  const iterator = ReflectApply(method, iterable, []);
  if (!isObject(iterator)) {
    throw new TypeErrorCtor(`Result of the Symbol.${sync ? 'iterator' : 'asyncIterator'} method is not an object`);
  }
  return new MirroredAsyncValues(iterator, sync, shape);
}

/** V8's message for a for-await's `value` that is not async iterable. */
function notAsyncIterable(message, value) {
  if (message[0] === NOT_ITERABLE) return `${message[2]} is not async iterable`;
  if (message[0] === CALL_NOT_ITERABLE) return `${message[2]}(...) is not a function or its return value is not async iterable`;
  return `${valueNamed(value)} is not async iterable`;
}

/** A for-of's or a for-await's value, as its head destructures it. */
function forOfHead(value, shape) {
  return shape !== 1 && shape[0] !== OBJECT_PATTERN ? spreadable(value, shape, FOR_OF_NOT_ITERABLE) : spreadableWithin(value, shape, FOR_OF);
}

const PromiseCtor = Promise;
const PromiseResolveMethod = Promise.resolve;
const PromisePrototypeThen = Promise.prototype.then;
const settle = (value) => ReflectApply(PromiseResolveMethod, PromiseCtor, [value]);
const then = (promise, fulfilled, rejected) => ReflectApply(PromisePrototypeThen, promise, [fulfilled, rejected]);

/** An async iterator over `iterator` (a sync one, made async as V8 makes it, when `sync`) whose
 * values go through the head's shape. */
function MirroredAsyncValues(iterator, sync, shape) {
  this.iterator = iterator;
  this.nextMethod = iterator.next;
  this.sync = sync;
  this.shape = shape;
}
MirroredAsyncValues.prototype = {
  __proto__: null,
  [SymbolAsyncIterator]() {
    return this;
  },
  next() {
    const shape = this.shape;
    if (!this.sync) {
      return then(settle(ReflectApply(this.nextMethod, this.iterator, [])), (result) => {
        if (!isObject(result)) throw new TypeErrorCtor(`Iterator result ${StringCtor(result)} is not an object`);
        if (result.done) return { __proto__: null, value: undefined, done: true };
        return { __proto__: null, value: forOfHead(result.value, shape), done: false };
      });
    }
    const result = ReflectApply(this.nextMethod, this.iterator, []);
    if (!isObject(result)) throw new TypeErrorCtor(`Iterator result ${StringCtor(result)} is not an object`);
    const done = !!result.done;
    // A value that is a promise is awaited; a rejected one closes the iterator, as V8's does.
    return then(settle(result.value), (value) => ({ __proto__: null, value: done ? value : forOfHead(value, shape), done }), (error) => {
      if (!done) {
        const close = this.iterator.return;
        if (close !== undefined && close !== null) ReflectApply(close, this.iterator, []);
      }
      throw error;
    });
  },
  return(value) {
    const close = this.iterator.return;
    if (close === undefined || close === null) return settle({ __proto__: null, value, done: true });
    const result = ReflectApply(close, this.iterator, [value]);
    if (!this.sync) return result;
    if (!isObject(result)) throw new TypeErrorCtor(`Iterator result ${StringCtor(result)} is not an object`);
    const done = !!result.done;
    return then(settle(result.value), (settled) => ({ __proto__: null, value: settled, done }));
  },
};

/** The values of `iterable`'s iterator, each passed through `spreadable` with the shape at its
 * position in `shapes` (counted from `position`), or with `shapes` itself when `position` is -1. */
function MirroredValues(iterable, method, shapes, position) {
  const iterator = ReflectApply(method, iterable, []);
  if (!isObject(iterator)) throw new TypeErrorCtor(`Result of the Symbol.iterator method is not an object`);
  this.iterator = iterator;
  this.nextMethod = iterator.next;
  this.shapes = shapes;
  this.position = position;
  // An array pattern's rest element that makes an array V8 copies or iterates again:
  // `[at, copied, iterated]` (src/program/listing_guards.rs).
  this.rest = position === -1 ? 0 : shapes[OWN_REST];
}
MirroredValues.prototype = {
  __proto__: null,
  [SymbolIterator]() {
    return this;
  },
  next() {
    const result = ReflectApply(this.nextMethod, this.iterator, []);
    if (!isObject(result)) throw new TypeErrorCtor(`Iterator result ${StringCtor(result)} is not an object`);
    const rest = this.rest;
    if (result.done) {
      // V8 iterates the rest's array next, with nothing of the program's in between.
      if (rest !== 0 && rest[2] === 1 && !arrayIterationIntact()) throw new TypeErrorCtor(REST_ITERATION_REPLACED);
      return { value: undefined, done: true };
    }
    const value = result.value;
    if (this.position === -1) return { value: forOfHead(value, this.shapes), done: false };
    if (rest !== 0 && rest[1] === 1 && this.position - CHILDREN - rest[0] >= LONG_COPY) {
      throw new RangeErrorCtor(`an object rest of an array pattern's rest element of more than ${LONG_COPY} elements is refused: ` +
        'V8 copies them in one step that cannot be stopped (copy them in a loop instead)');
    }
    const shape = this.shapes[this.position++];
    return { value: shape === undefined || shape === 0 || shape === RUNS_CODE ? value : spreadableWithin(value, shape, null), done: false };
  },
  return(value) {
    const method = this.iterator.return;
    if (method === undefined || method === null) return { value, done: true };
    return ReflectApply(method, this.iterator, [value]);
  },
};

// A function with an object rest among its parameters (`({ id, ...rest }) => rest`) takes its
// parameters from that one on as the properties of an object pattern over a rest parameter,
// `(...{ [parameterKey(2, 0, void 0, 1)]: { id, ...rest } })`: the key's getter, on
// Array.prototype where the lookup on a rest parameter's array ends, hands the pattern each
// argument, passed through `spreadable` with the pattern's shape where it has an object rest. No
// code of the program runs between the key and its getter. The flags are
// src/program/listing_guards.rs's.
const FROM_ARGUMENTS = 2;
const REST = 4;
const PENDING = 8;
const PARAMETER = SymbolCtor('dsh parameter');
let pendingFlags = 0;
let pendingAt = 0;
let pendingValue;
let pendingShape;
let pendingMessage;

/** The key whose getter reads the next parameter: argument `at` of the rest parameter's array
 * (FROM_ARGUMENTS), the arguments from `at` on (REST), or `value`; passed through `spreadable`
 * with `shape` when there is one. */
export function parameterKey(flags, at, value, shape, message) {
  pendingFlags = flags | PENDING;
  pendingAt = at;
  pendingValue = value;
  pendingShape = shape;
  pendingMessage = message;
  return PARAMETER;
}

ObjectDefineProperty(ArrayPrototype, PARAMETER, {
  __proto__: null,
  get: function parameter() {
    const flags = pendingFlags;
    const value = pendingValue;
    const shape = pendingShape;
    const message = pendingMessage;
    pendingFlags = 0;
    pendingValue = undefined;
    pendingShape = undefined;
    pendingMessage = undefined;
    if (!(flags & PENDING) || !ArrayIsArray(this)) return undefined;
    if (flags & REST) return argumentsFrom(this, pendingAt);
    const read = !(flags & FROM_ARGUMENTS) ? value : hasOwn(this, pendingAt) ? this[pendingAt] : undefined;
    return shape === undefined ? read : spreadable(read, shape, message);
  },
  enumerable: false,
  configurable: false,
});

// The listings of own keys leave the parameter key out, so that Array.prototype's keys read as in
// Node. It stays Array.prototype's own, and not configurable: the lookup on a rest parameter's
// array finds it there before any prototype a program gives Array.prototype, and no program can
// put a getter of its own in its place.
function withoutParameter(keys) {
  const at = ReflectApply(ArrayPrototypeIndexOf, keys, [PARAMETER]);
  if (at !== -1) ReflectApply(ArrayPrototypeSplice, keys, [at, 1]);
  return keys;
}
/** Whether a listing of `target`'s own keys may hold the parameter key. */
const mayList = (target) => target === ArrayPrototype || listingKind(target) === PROXY;
function hideParameter(namespace, key, leaveOut) {
  const native = namespace[key];
  standInFront(namespace, key, {
    [key](target) {
      const listed = ReflectApply(native, this, arguments);
      return mayList(target) ? leaveOut(listed) : listed;
    },
  }[key]);
}
hideParameter(Reflect, 'ownKeys', withoutParameter);
hideParameter(ObjectCtor, 'getOwnPropertySymbols', withoutParameter);
hideParameter(ObjectCtor, 'getOwnPropertyDescriptors', (descriptors) => {
  delete descriptors[PARAMETER];
  return descriptors;
});

/** A new array of `args` from `from` on, made without the program's setters on Array.prototype. */
function argumentsFrom(args, from) {
  const rest = [];
  for (let index = from; index < args.length; index++) {
    createDataProperty(rest, index - from, args[index]);
  }
  return rest;
}

/** Called first in every loop body of a program: a loop whose body only throws from V8's runtime,
 * or calls a built-in that never enters JavaScript, polls for termination only when its tiering
 * budget runs out (never, in a function past 60 KB of bytecode). Entering a function polls. In
 * parentheses, so that V8 compiles it into the snapshot, not at each run's first loop; its name is
 * the one V8's flags keep it from optimizing (src/engine/platform.rs). */
export const poll = (function __dsh_loop_poll() {});
