// Array built-ins whose loops V8 never interrupts, kept interruptible.
//
// V8's generic paths for these methods (any receiver that is not a plain array, and arrays in
// dictionary mode) loop in C++ or Torque over every index up to `length` without ever checking
// for termination: `Array.prototype.indexOf.call({ length: 2 ** 53 - 1 })` runs for ever, and so
// does `sort()` of an array whose only element sits at index 2^32 - 2. Each method here keeps
// V8's own code for arrays of up to 2^20 elements, which is fast and ends in moments, and runs
// every other receiver through the specification's own algorithm, written in JavaScript: just as
// long, but stopped by the budgets like any loop of the program's.
// (See ../shared/docs/v8-termination-gaps.md, sections 1, 2 and 4.)

import { core } from 'ext:core/mod.js';
import { presentAsBuiltin, standInFront } from 'ext:dsh/source_text.js';
import { addPiece, finishResult, newResult } from 'ext:dsh/long_strings.js';
import { LONG_LENGTH, MAX_SAFE_LENGTH, PROXY_KIND, exoticKind, createDataProperty, hasShortLength, isObject, isProxy, plainLength, toIntegerOrInfinity, toLength, toStringStrict } from 'ext:dsh/abstract_ops.js';

const { op_dsh_array_past_heap, op_dsh_detail_string } = core.ops;
const ArrayIsArray = Array.isArray;
const MathMax = Math.max;
const MathMin = Math.min;

const ArrayCtor = Array;
const ArrayPrototypeSortNative = Array.prototype.sort;
const ArrayPrototypeForEachNative = Array.prototype.forEach;
const ArrayPrototypeJoinNative = Array.prototype.join;
const JOIN_CHUNK = 4096;
const MathTrunc = Math.trunc;
const ObjectCtorForGuards = Object;
const ObjectDefinePropertyForGuards = Object.defineProperty;
const ReflectApplyForGuards = Reflect.apply;
const ReflectDeleteProperty = Reflect.deleteProperty;
const ReflectHas = Reflect.has;
const WeakSetCtor = WeakSet;
const WeakSetPrototypeAdd = WeakSet.prototype.add;
const WeakSetPrototypeDelete = WeakSet.prototype.delete;
const SymbolSpecies = Symbol.species;
const SymbolIteratorForGuards = Symbol.iterator;
const ObjectGetPrototypeOfForGuards = Object.getPrototypeOf;
const ReflectSetPrototypeOfForGuards = Reflect.setPrototypeOf;
const ReflectConstructForGuards = Reflect.construct;
const ObjectHasOwnForGuards = Object.hasOwn;
const ArrayPrototypeForGuards = Array.prototype;
const TypeErrorCtorForGuards = TypeError;
const StringPrototypeIndexOfForGuards = String.prototype.indexOf;
const RangeErrorCtorForGuards = RangeError;

/** A relative index (`start`, `end`, `fromIndex`), clamped to `[0, length]`. */
function clampIndex(value, length, absent) {
  if (value === undefined) return absent;
  const index = toIntegerOrInfinity(value);
  return index < 0 ? MathMax(length + index, 0) : MathMin(index, length);
}

/** Throws V8's own TypeError for a callback that is not a function, in V8's words for it
 * (`number 5 is not a function`, `object is not a function`): V8's forEach of an empty array checks
 * its callback before anything else. */
function requireCallable(callback) {
  if (typeof callback !== 'function') ReflectApplyForGuards(ArrayPrototypeForEachNative, [], [callback]);
}

/** The same for a comparator, which may be undefined: V8's sort of an empty array checks it first. */
function requireComparator(comparator) {
  if (comparator !== undefined && typeof comparator !== 'function') ReflectApplyForGuards(ArrayPrototypeSortNative, [], [comparator]);
}

// V8 makes an array of up to 2^25 elements at its full length in one request, past the heap cap
// (`new Array(2 ** 24)` is 128 MB whatever the cap), which the near-limit hook must let through.
// An array of this realm longer than this starts empty instead, and grows as it is filled, so the
// cap ends a run whose result would not fit before the whole of it is asked for; its length is set
// once it is filled (`sizeCreated`).
const PRESIZED_LIMIT = 2 ** 16;
const unsized = new WeakSetCtor();

/** ArrayCreate's refusal of a length no array can have. */
function requireArrayLength(length) {
  if (length > 2 ** 32 - 1) throw new RangeErrorCtorForGuards('Invalid array length');
}

/** A new array of this realm of `length`, empty if that is past PRESIZED_LIMIT. */
function arrayCreate(length) {
  requireArrayLength(length);
  if (length <= PRESIZED_LIMIT) return new ArrayCtor(length);
  const array = [];
  ReflectApplyForGuards(WeakSetPrototypeAdd, unsized, [array]);
  return array;
}

// Past this, V8 makes an array of a length in dictionary mode, with no backing store to ask for.
const FAST_ARRAY_LIMIT = 2 ** 25;
const globalObject = globalThis;
const ObjectGetOwnPropertyDescriptorForGuards = Object.getOwnPropertyDescriptor;

/** Whether V8 would ask for the elements of a new array of `length` (past LONG_LENGTH, which the
 * callers ask first) in one request the heap limit could never hold, however much is collected;
 * the run then ends as the heap's, instead of the request, and what the program is given until its
 * termination lands is an empty array. */
function endsPastHeap(length) {
  return length <= FAST_ARRAY_LIMIT && length === MathTrunc(length) && op_dsh_array_past_heap(length);
}

/** The array guard: the program's one-argument `new Array(n)` and `Array(n)` pass `n` here first
 * (src/program/listing_guards.rs). */
export function arrayLength(length) {
  if (typeof length !== 'number' || !(length > LONG_LENGTH)) return length;
  // Only V8's own Array makes that request; a program may have put another in its place.
  const global = ObjectGetOwnPropertyDescriptorForGuards(globalObject, 'Array');
  if (global === undefined || global.value !== ArrayCtor) return length;
  return endsPastHeap(length) ? 0 : length;
}

/** Whether Array.from takes `items` as an iterable: a `Symbol.iterator` on its chain (or a proxy on
 * it, which is not asked). */
function mayIterate(items) {
  for (let link = items; link !== null; link = ObjectGetPrototypeOfForGuards(link)) {
    if (isProxy(link) || ObjectGetOwnPropertyDescriptorForGuards(link, SymbolIteratorForGuards) !== undefined) return true;
  }
  return false;
}

// Array.from of an array-like makes its result at the array-like's length first, as `new Array`.
const ArrayFromNative = ArrayCtor.from;
ObjectDefinePropertyForGuards(ArrayCtor, 'from', {
  __proto__: null,
  value: presentAsBuiltin({
    from(items) {
      if (this === ArrayCtor && typeof items === 'object') {
        const length = plainLength(items);
        const mapper = arguments.length > 1 ? arguments[1] : undefined;
        if (length > LONG_LENGTH && (mapper === undefined || typeof mapper === 'function') && !mayIterate(items) && endsPastHeap(length)) {
          return [];
        }
      }
      return ReflectApplyForGuards(ArrayFromNative, this, arguments);
    },
  }.from, ArrayFromNative),
  writable: true,
  enumerable: false,
  configurable: true,
});

/** A new array of this realm of `length`, whose element `k` is `valueAt(k)`, grown as it is filled.
 * Each element is defined as CreateDataProperty defines it, by a plain store made while the array
 * has no prototype, so that no setter of the program's on Array.prototype or Object.prototype is
 * reached: `Object.defineProperty` for each element was nine times slower. */
function filledArray(length, valueAt) {
  requireArrayLength(length);
  const array = [];
  ReflectSetPrototypeOfForGuards(array, null);
  for (let k = 0; k < length; k++) array[k] = valueAt(k);
  ReflectSetPrototypeOfForGuards(array, ArrayPrototypeForGuards);
  return array;
}

/** Gives an array `speciesCreate` made empty the length it was made for. */
function sizeCreated(array, length) {
  if (ReflectApplyForGuards(WeakSetPrototypeDelete, unsized, [array])) setLength(array, length);
}

/** ArraySpeciesCreate, for this realm. */
function speciesCreate(original, length) {
  if (!ArrayIsArray(original)) return arrayCreate(length);
  let C = original.constructor;
  if (isObject(C)) {
    C = C[SymbolSpecies];
    if (C === null) C = undefined;
  }
  if (C === undefined || C === ArrayCtor) return arrayCreate(length);
  if (typeof C !== 'function') throw new TypeErrorCtorForGuards('object.constructor[Symbol.species] is not a constructor');
  return new C(length);
}

function setLength(target, length) {
  target.length = length;
}

/** Moves `count` elements from `from` to `to`, with holes, in the direction that is safe. */
function moveElements(o, from, to, count) {
  if (from < to && to < from + count) {
    for (let k = count - 1; k >= 0; k--) moveElement(o, from + k, to + k);
  } else {
    for (let k = 0; k < count; k++) moveElement(o, from + k, to + k);
  }
}

function moveElement(o, from, to) {
  if (ReflectHas(o, from)) {
    o[to] = o[from];
  } else {
    deleteOrThrow(o, to);
  }
}

/** FlattenIntoArray: `source`'s elements into `target` from `start`, arrays `depth` levels deep. */
function flattenInto(target, source, sourceLength, start, depth, mapper, thisArg) {
  let targetIndex = start;
  for (let sourceIndex = 0; sourceIndex < sourceLength; sourceIndex++) {
    if (!ReflectHas(source, sourceIndex)) continue;
    let element = source[sourceIndex];
    if (mapper !== undefined) element = ReflectApplyForGuards(mapper, thisArg, [element, sourceIndex, source]);
    if (depth > 0 && ArrayIsArray(element)) {
      targetIndex = flattenInto(target, element, toLength(element.length), targetIndex, depth - 1);
    } else {
      if (targetIndex >= MAX_SAFE_LENGTH) throw new TypeErrorCtorForGuards('Array too long');
      createDataProperty(target, targetIndex++, element);
    }
  }
  return targetIndex;
}

/** A strict delete, refused in V8's words: the object printed without calling any of its code. */
function deleteOrThrow(o, key) {
  if (!ReflectDeleteProperty(o, key)) throw new TypeErrorCtorForGuards(`Cannot delete property '${key}' of ${op_dsh_detail_string(o)}`);
}

const generic = {
  __proto__: null,
  indexOf(o, args) {
    const search = args[0];
    const fromIndex = args[1];
    const length = toLength(o.length);
    if (length === 0) return -1;
    for (let k = clampIndex(fromIndex, length, 0); k < length; k++) {
      if (ReflectHas(o, k) && o[k] === search) return k;
    }
    return -1;
  },
  lastIndexOf(o, args) {
    const length = toLength(o.length);
    if (length === 0) return -1;
    const from = args.length > 1 ? toIntegerOrInfinity(args[1]) : length - 1;
    for (let k = from >= 0 ? MathMin(from, length - 1) : length + from; k >= 0; k--) {
      if (ReflectHas(o, k) && o[k] === args[0]) return k;
    }
    return -1;
  },
  includes(o, args) {
    const search = args[0];
    const fromIndex = args[1];
    const length = toLength(o.length);
    if (length === 0) return false;
    for (let k = clampIndex(fromIndex, length, 0); k < length; k++) {
      const element = o[k];
      if (element === search || (element !== element && search !== search)) return true;
    }
    return false;
  },
  join(o, args) {
    const separator = args[0];
    const length = toLength(o.length);
    const glue = separator === undefined ? ',' : toStringStrict(separator);
    // Joined in flat chunks by V8's own join: appended one at a time, the pieces made a rope of
    // small nodes, about 32 bytes each, whose collection kept a stopped run's thread busy.
    const chunks = [];
    let pieces = [];
    let count = 0;
    for (let k = 0; k < length; k++) {
      const element = o[k];
      createDataProperty(pieces, count++, element === undefined || element === null ? '' : toStringStrict(element));
      if (count === JOIN_CHUNK) {
        createDataProperty(chunks, chunks.length, ReflectApplyForGuards(ArrayPrototypeJoinNative, pieces, [glue]));
        pieces = [];
        count = 0;
      }
    }
    if (count > 0 || chunks.length === 0) createDataProperty(chunks, chunks.length, ReflectApplyForGuards(ArrayPrototypeJoinNative, pieces, [glue]));
    return ReflectApplyForGuards(ArrayPrototypeJoinNative, chunks, [glue]);
  },
  toLocaleString(o, args) {
    const length = toLength(o.length);
    let text = '';
    for (let k = 0; k < length; k++) {
      if (k > 0) text += ',';
      const element = o[k];
      if (element !== undefined && element !== null) {
        text += toStringStrict(ReflectApplyForGuards(element.toLocaleString, element, args));
      }
    }
    return text;
  },
  reverse(o) {
    const length = toLength(o.length);
    const middle = MathTrunc(length / 2);
    for (let lower = 0; lower !== middle; lower++) {
      const upper = length - lower - 1;
      const lowerExists = ReflectHas(o, lower);
      const lowerValue = lowerExists ? o[lower] : undefined;
      const upperExists = ReflectHas(o, upper);
      const upperValue = upperExists ? o[upper] : undefined;
      if (upperExists) o[lower] = upperValue; else if (lowerExists) deleteOrThrow(o, lower);
      if (lowerExists) o[upper] = lowerValue; else if (upperExists) deleteOrThrow(o, upper);
    }
    return o;
  },
  flat(o, args) {
    const length = toLength(o.length);
    const depth = args[0] === undefined ? 1 : toIntegerOrInfinity(args[0]);
    const result = speciesCreate(o, 0);
    flattenInto(result, o, length, 0, depth < 0 ? 0 : depth);
    return result;
  },
  flatMap(o, args) {
    const length = toLength(o.length);
    const mapper = args[0];
    requireCallable(mapper);
    const result = speciesCreate(o, 0);
    flattenInto(result, o, length, 0, 1, mapper, args[1]);
    return result;
  },
  forEach(o, args) {
    const callback = args[0];
    const thisArg = args[1];
    const length = toLength(o.length);
    requireCallable(callback);
    for (let k = 0; k < length; k++) {
      if (ReflectHas(o, k)) ReflectApplyForGuards(callback, thisArg, [o[k], k, o]);
    }
  },
  map(o, args) {
    const callback = args[0];
    const thisArg = args[1];
    const length = toLength(o.length);
    requireCallable(callback);
    const result = speciesCreate(o, length);
    for (let k = 0; k < length; k++) {
      if (ReflectHas(o, k)) createDataProperty(result, k, ReflectApplyForGuards(callback, thisArg, [o[k], k, o]));
    }
    sizeCreated(result, length);
    return result;
  },
  filter(o, args) {
    const callback = args[0];
    const thisArg = args[1];
    const length = toLength(o.length);
    requireCallable(callback);
    const result = speciesCreate(o, 0);
    let to = 0;
    for (let k = 0; k < length; k++) {
      if (!ReflectHas(o, k)) continue;
      const element = o[k];
      if (ReflectApplyForGuards(callback, thisArg, [element, k, o])) createDataProperty(result, to++, element);
    }
    return result;
  },
  some(o, args) {
    const callback = args[0];
    const thisArg = args[1];
    const length = toLength(o.length);
    requireCallable(callback);
    for (let k = 0; k < length; k++) {
      if (ReflectHas(o, k) && ReflectApplyForGuards(callback, thisArg, [o[k], k, o])) return true;
    }
    return false;
  },
  every(o, args) {
    const callback = args[0];
    const thisArg = args[1];
    const length = toLength(o.length);
    requireCallable(callback);
    for (let k = 0; k < length; k++) {
      if (ReflectHas(o, k) && !ReflectApplyForGuards(callback, thisArg, [o[k], k, o])) return false;
    }
    return true;
  },
  find(o, args) {
    const index = findFrom(o, args, false);
    return index === -1 ? undefined : o[index];
  },
  findIndex(o, args) {
    return findFrom(o, args, false);
  },
  findLast(o, args) {
    const index = findFrom(o, args, true);
    return index === -1 ? undefined : o[index];
  },
  findLastIndex(o, args) {
    return findFrom(o, args, true);
  },
  reduce(o, args) {
    return reduceFrom(o, args, false);
  },
  reduceRight(o, args) {
    return reduceFrom(o, args, true);
  },
  fill(o, args) {
    const value = args[0];
    const start = args[1];
    const end = args[2];
    const length = toLength(o.length);
    const first = clampIndex(start, length, 0);
    const last = clampIndex(end, length, length);
    for (let k = first; k < last; k++) o[k] = value;
    return o;
  },
  copyWithin(o, args) {
    const target = args[0];
    const start = args[1];
    const end = args[2];
    const length = toLength(o.length);
    const to = clampIndex(target, length, 0);
    const from = clampIndex(start, length, 0);
    const last = clampIndex(end, length, length);
    moveElements(o, from, to, MathMin(last - from, length - to));
    return o;
  },
  slice(o, args) {
    const start = args[0];
    const end = args[1];
    const length = toLength(o.length);
    const first = clampIndex(start, length, 0);
    const last = clampIndex(end, length, length);
    const result = speciesCreate(o, MathMax(last - first, 0));
    let n = 0;
    for (let k = first; k < last; k++, n++) {
      if (ReflectHas(o, k)) createDataProperty(result, n, o[k]);
    }
    setLength(result, n);
    return result;
  },
  splice(o, args) {
    const length = toLength(o.length);
    const start = clampIndex(args[0], length, 0);
    const items = args.length > 2 ? args.length - 2 : 0;
    const deleteCount = args.length === 0 ? 0 : args.length === 1 ? length - start : MathMin(MathMax(toIntegerOrInfinity(args[1]), 0), length - start);
    if (length + items - deleteCount > MAX_SAFE_LENGTH) throw new TypeErrorCtorForGuards('Invalid array length');
    const removed = speciesCreate(o, deleteCount);
    for (let k = 0; k < deleteCount; k++) {
      if (ReflectHas(o, start + k)) createDataProperty(removed, k, o[start + k]);
    }
    setLength(removed, deleteCount);
    if (items !== deleteCount) {
      moveElements(o, start + deleteCount, start + items, length - start - deleteCount);
      for (let k = length; k > length - deleteCount + items; k--) deleteOrThrow(o, k - 1);
    }
    for (let k = 0; k < items; k++) o[start + k] = args[k + 2];
    setLength(o, length - deleteCount + items);
    return removed;
  },
  shift(o) {
    const length = toLength(o.length);
    if (length === 0) {
      setLength(o, 0);
      return undefined;
    }
    const first = o[0];
    moveElements(o, 1, 0, length - 1);
    deleteOrThrow(o, length - 1);
    setLength(o, length - 1);
    return first;
  },
  unshift(o, items) {
    const length = toLength(o.length);
    if (items.length > 0) {
      if (length + items.length > MAX_SAFE_LENGTH) throw new TypeErrorCtorForGuards('Invalid array length');
      moveElements(o, 0, items.length, length);
      for (let k = 0; k < items.length; k++) o[k] = items[k];
    }
    setLength(o, length + items.length);
    return length + items.length;
  },
  sort(o, args) {
    const comparator = args[0];
    requireComparator(comparator);
    const length = toLength(o.length);
    // The present elements, in a plain array V8 sorts quickly; holes and the rest are then
    // written back as the specification's SortIndexedProperties does.
    const items = [];
    for (let k = 0; k < length; k++) {
      if (ReflectHas(o, k)) createDataProperty(items, items.length, o[k]);
    }
    ReflectApplyForGuards(ArrayPrototypeSortNative, items, comparator === undefined ? [] : [comparator]);
    let k = 0;
    for (; k < items.length; k++) o[k] = items[k];
    for (; k < length; k++) deleteOrThrow(o, k);
    return o;
  },
  // The methods that copy an array make their result at its full length (in one request past the
  // cap) and fill it in a loop V8 never interrupts. Here the result grows as it is filled.
  toReversed(o) {
    const length = toLength(o.length);
    return filledArray(length, (k) => o[length - 1 - k]);
  },
  toSorted(o, args) {
    const comparator = args[0];
    requireComparator(comparator);
    const sorted = filledArray(toLength(o.length), (k) => o[k]);
    ReflectApplyForGuards(ArrayPrototypeSortNative, sorted, comparator === undefined ? [] : [comparator]);
    return sorted;
  },
  toSpliced(o, args) {
    const length = toLength(o.length);
    const start = clampIndex(args[0], length, 0);
    const skipped = args.length === 0 ? 0
      : args.length === 1 ? length - start
        : MathMin(MathMax(toIntegerOrInfinity(args[1]), 0), length - start);
    const inserted = MathMax(args.length - 2, 0);
    const newLength = length + inserted - skipped;
    if (newLength > MAX_SAFE_LENGTH) throw new TypeErrorCtorForGuards('Invalid array length');
    return filledArray(newLength, (n) => (n < start ? o[n] : n < start + inserted ? args[2 + n - start] : o[n - inserted + skipped]));
  },
  with(o, args) {
    const length = toLength(o.length);
    const relative = toIntegerOrInfinity(args[0]);
    const index = relative >= 0 ? relative : length + relative;
    if (index < 0 || index >= length) throw new RangeErrorCtorForGuards(`Invalid index : ${op_dsh_detail_string(args[0])}`);
    const value = args[1];
    return filledArray(length, (k) => (k === index ? value : o[k]));
  },
};

function findFrom(o, args, fromEnd) {
  const predicate = args[0];
  const thisArg = args[1];
  const length = toLength(o.length);
  requireCallable(predicate);
  for (let n = 0; n < length; n++) {
    const k = fromEnd ? length - 1 - n : n;
    if (ReflectApplyForGuards(predicate, thisArg, [o[k], k, o])) return k;
  }
  return -1;
}

function reduceFrom(o, args, fromEnd) {
  const length = toLength(o.length);
  const callback = args[0];
  requireCallable(callback);
  let n = 0;
  const at = (step) => (fromEnd ? length - 1 - step : step);
  let accumulator;
  if (args.length > 1) {
    accumulator = args[1];
  } else {
    while (n < length && !ReflectHas(o, at(n))) n++;
    if (n === length) throw new TypeErrorCtorForGuards('Reduce of empty array with no initial value');
    accumulator = o[at(n++)];
  }
  for (; n < length; n++) {
    const k = at(n);
    if (ReflectHas(o, k)) accumulator = ReflectApplyForGuards(callback, undefined, [accumulator, o[k], k, o]);
  }
  return accumulator;
}

const { op_is_typed_array: isTypedArray } = core.ops;
const TypedArrayForGuards = ObjectGetPrototypeOfForGuards(Uint8Array);
const typedArrayLength = ObjectGetOwnPropertyDescriptorForGuards(TypedArrayForGuards.prototype, 'length').get;
const TYPED_ARRAY_CONSTRUCTORS = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
  Float32Array, Float64Array, BigInt64Array, BigUint64Array];
const TYPED_ARRAY_PROTOTYPES = TYPED_ARRAY_CONSTRUCTORS.map((TypedArray) => TypedArray.prototype);
const ArrayPrototypeIncludesForGuards = Array.prototype.includes;

/** Whether V8's own method loops over `o`, which is not an array, in moments: its `length`, read
 * without running any of the program's code, is at most LONG_LENGTH. A typed array's is read
 * through %TypedArray%.prototype's getter unless a program gave it, or its prototype, one of its own. */
function shortArrayLike(o) {
  const length = plainLength(o);
  if (length !== undefined) return length <= LONG_LENGTH;
  // A proxy's traps are the program's to see called, by V8 alone.
  if (!isObject(o) || isProxy(o) || !isTypedArray(o) || ObjectHasOwnForGuards(o, 'length')) return false;
  const prototype = ObjectGetPrototypeOfForGuards(o);
  if (!ReflectApplyForGuards(ArrayPrototypeIncludesForGuards, TYPED_ARRAY_PROTOTYPES, [prototype]) || ObjectHasOwnForGuards(prototype, 'length')) return false;
  const getter = ObjectGetOwnPropertyDescriptorForGuards(TypedArrayForGuards.prototype, 'length');
  return getter !== undefined && getter.get === typedArrayLength && ReflectApplyForGuards(typedArrayLength, o, []) <= LONG_LENGTH;
}

for (const name in generic) {
  const native = Array.prototype[name];
  const slow = generic[name];
  const guarded = {
    [name]() {
      // The proxy check's fast call is made here, not through isProxy: until V8 compiles the
      // caller, that was one more interpreted call, and one more function to compile, per call.
      if (ArrayIsArray(this) && (exoticKind === null ? !isProxy(this) : exoticKind(this) !== PROXY_KIND) && this.length <= LONG_LENGTH) {
        return ReflectApplyForGuards(native, this, arguments);
      }
      // V8's own method throws for no receiver, in its own words, which differ from method to
      // method (toSorted checks its comparator first).
      if (this === null || this === undefined || shortArrayLike(this)) return ReflectApplyForGuards(native, this, arguments);
      return slow(ObjectCtorForGuards(this), arguments);
    },
  }[name];
  standInFront(Array.prototype, name, guarded);
}


// String.raw reads its template's `raw` list to its `length` in C++ without checking for
// termination: `String.raw({ raw: { length: 2 ** 24 } })` took 3.7 s and 663 MB in Node 20, and a
// length of 2^32 kept a run's thread past its run for as long. A template V8 reads in moments (a
// template literal's, or any whose `raw` is an own list of at most 2^16) goes to V8; any other is
// joined here, as the specification joins it.
const StringRawNative = String.raw;
const SHORT_RAW = 2 ** 16;
const ObjectIsFrozenForGuards = Object.isFrozen;
const WeakSetPrototypeHas = WeakSet.prototype.has;
// Templates known to be short, which cannot change: a template literal's, frozen with its raw list.
const shortFrozenTemplates = new WeakSetCtor();

/** Whether V8 reads `template`'s raw list in moments, known without calling the program's code. */
function hasShortRaw(template) {
  if (typeof template !== 'object' || template === null) return false;
  if (ReflectApplyForGuards(WeakSetPrototypeHas, shortFrozenTemplates, [template])) return true;
  if (isProxy(template)) return false;
  const raw = ObjectGetOwnPropertyDescriptorForGuards(template, 'raw');
  if (raw === undefined || !hasShortLength(raw.value, SHORT_RAW)) return false;
  if (ObjectIsFrozenForGuards(template) && ObjectIsFrozenForGuards(raw.value)) {
    ReflectApplyForGuards(WeakSetPrototypeAdd, shortFrozenTemplates, [template]);
  }
  return true;
}

ObjectDefinePropertyForGuards(String, 'raw', {
  __proto__: null,
  value: presentAsBuiltin({
    raw(template) {
      // V8 refuses a missing template in its own words.
      if (template === null || template === undefined || hasShortRaw(template)) {
        return ReflectApplyForGuards(StringRawNative, this, arguments);
      }
      const literals = ObjectCtorForGuards(template).raw;
      if (literals === null || literals === undefined) throw new TypeErrorCtorForGuards('Cannot convert undefined or null to object');
      const list = ObjectCtorForGuards(literals);
      const count = toLength(list.length);
      const substitutions = arguments.length - 1;
      const text = newResult();
      for (let i = 0; i < count; i++) {
        addPiece(text, toStringStrict(list[i]));
        if (i + 1 < count && i < substitutions) addPiece(text, toStringStrict(arguments[i + 1]));
      }
      return finishResult(text);
    },
  }.raw, StringRawNative),
  writable: true,
  enumerable: false,
  configurable: true,
});

// %TypedArray%.prototype.set from an array-like, and %TypedArray%.from of one, read it in C++ to
// its length without checking for termination: 2^27 elements took about 1.3 s, however few the
// array-like held. Arrays and typed arrays, whose lengths the heap bounds, and array-likes with an
// own length of up to 2^20 still go to V8; any other is read here, as the specification reads it,
// into a typed array of V8's or of a subclass.
const TypedArrayPrototypeSetNative = TypedArrayForGuards.prototype.set;
const TypedArrayFromNative = TypedArrayForGuards.from;
const NO_ELEMENTS = [];
const SET_NAME = '%TypedArray%.prototype.set';
const StringPrototypeSliceForGuards = String.prototype.slice;
const sliceOf = (text, start, end) => ReflectApplyForGuards(StringPrototypeSliceForGuards, text, end === undefined ? [start] : [start, end]);
const constructs = function () {};

/** Whether `from` may make its result here with `new constructor(length)`, reading nothing V8's `from`
 * would not: V8's typed array constructors, and other constructors that are not proxies and have
 * `prototype` as their own data property, so that asking whether they construct runs no program code
 * (a subclass, or a function that returns a typed array: what they make is checked after). */
function isTypedArrayConstructor(constructor) {
  if (ReflectApplyForGuards(ArrayPrototypeIncludesForGuards, TYPED_ARRAY_CONSTRUCTORS, [constructor])) return true;
  if (typeof constructor !== 'function' || isProxy(constructor)) return false;
  const prototype = ObjectGetOwnPropertyDescriptorForGuards(constructor, 'prototype');
  if (prototype === undefined || !ObjectHasOwnForGuards(prototype, 'value')) return false;
  // A generator function has a `prototype` of its own and is no constructor.
  try {
    ReflectConstructForGuards(constructs, NO_ELEMENTS, constructor);
  } catch {
    return false;
  }
  return true;
}

/** TypedArrayCreate for `from`: `new constructor(length)`, refused in V8's words unless it made a
 * typed array, attached, of at least `length` elements (a subclass's constructor may make anything). */
function typedArrayCreate(constructor, length) {
  const target = new constructor(length);
  if (!isTypedArray(target)) {
    throw new TypeErrorCtorForGuards(`Method %TypedArray%.from called on incompatible receiver ${op_dsh_detail_string(target)}`);
  }
  try {
    // Refuses a detached or out-of-bounds target, in V8's words for set.
    ReflectApplyForGuards(TypedArrayPrototypeSetNative, target, [NO_ELEMENTS, 0]);
  } catch (error) {
    const message = error.message;
    const at = ReflectApplyForGuards(StringPrototypeIndexOfForGuards, message, [SET_NAME, 0]);
    throw new TypeErrorCtorForGuards(`${sliceOf(message, 0, at)}%TypedArray%.from${sliceOf(message, at + SET_NAME.length)}`);
  }
  if (ReflectApplyForGuards(typedArrayLength, target, []) < length) {
    throw new TypeErrorCtorForGuards('Derived TypedArray constructor created an array which was too small');
  }
  return target;
}

/** Whether V8 reads `source` to its length in moments: a list the heap bounds, or a short one. */
function quickToRead(source) {
  // A string is an array-like of its characters.
  if (typeof source === 'string') return source.length <= LONG_LENGTH;
  if (typeof source !== 'object' || source === null) return true;
  if (isTypedArray(source) || (ArrayIsArray(source) && !isProxy(source))) return true;
  const length = plainLength(source);
  return length !== undefined && length <= LONG_LENGTH;
}

ObjectDefinePropertyForGuards(TypedArrayForGuards.prototype, 'set', {
  __proto__: null,
  value: presentAsBuiltin({
    set(source) {
      const offsetArgument = arguments.length > 1 ? arguments[1] : undefined;
      if (quickToRead(source) || !isTypedArray(this)) return ReflectApplyForGuards(TypedArrayPrototypeSetNative, this, arguments);
      const offset = toIntegerOrInfinity(offsetArgument);
      // V8 refuses a detached target or a negative or infinite offset in its own words.
      ReflectApplyForGuards(TypedArrayPrototypeSetNative, this, [NO_ELEMENTS, offset]);
      const list = ObjectCtorForGuards(source);
      const length = toLength(list.length);
      if (length + offset > ReflectApplyForGuards(typedArrayLength, this, [])) {
        // And a source too long for it, before any element is read.
        ReflectApplyForGuards(TypedArrayPrototypeSetNative, this, [{ __proto__: null, length }, offset]);
      }
      for (let k = 0; k < length; k++) this[offset + k] = list[k];
    },
  }.set, TypedArrayPrototypeSetNative),
  writable: true,
  enumerable: false,
  configurable: true,
});

ObjectDefinePropertyForGuards(TypedArrayForGuards, 'from', {
  __proto__: null,
  value: presentAsBuiltin({
    from(source) {
      const mapper = arguments.length > 1 ? arguments[1] : undefined;
      // An iterable, or a proxy (which may be one), goes to V8, whose iteration runs JavaScript.
      if (quickToRead(source) || mayIterate(source) || (mapper !== undefined && typeof mapper !== 'function')
        || !isTypedArrayConstructor(this)) {
        return ReflectApplyForGuards(TypedArrayFromNative, this, arguments);
      }
      const thisArg = arguments.length > 2 ? arguments[2] : undefined;
      const length = toLength(source.length);
      const target = typedArrayCreate(this, length);
      for (let k = 0; k < length; k++) {
        const value = source[k];
        target[k] = mapper === undefined ? value : ReflectApplyForGuards(mapper, thisArg, [value, k]);
      }
      return target;
    },
  }.from, TypedArrayFromNative),
  writable: true,
  enumerable: false,
  configurable: true,
});
