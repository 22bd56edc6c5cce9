// The specification's conversions, for the built-ins written here in JavaScript
// (interruptible.js, long_strings.js, polling.js, listing_guards.js, durable.js). Evaluated into the snapshot
// before any program runs, so what they call are the intrinsics.

import { core } from 'ext:core/mod.js';

const { op_dsh_is_proxy } = core.ops;
const ArrayIsArray = Array.isArray;
const MathMin = Math.min;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectHasOwn = Object.hasOwn;
const ObjectSetPrototypeOf = Object.setPrototypeOf;
const MathTrunc = Math.trunc;
const StringCtor = String;
const TypeErrorCtor = TypeError;

export const MAX_SAFE_LENGTH = 2 ** 53 - 1;

/** V8's own JSON.parse, taken before polling.js puts its entry in front: the world parses only
 * texts the host made, and a run that called the entry compiled it again (0.14 ms). */
export const JSONParse = JSON.parse;

/** CreateDataProperty: an own, writable, enumerable, configurable `key` on `target`, defined
 * without the setters a program may have put on its prototypes. */
export function createDataProperty(target, key, value) {
  ObjectDefineProperty(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
}

/** An empty list with no prototype: setters a program puts on Array.prototype's indices never see
 * what the runtime keeps in it. */
export function list() {
  return ObjectSetPrototypeOf([], null);
}

/** Whether `value` is an Object in the specification's sense: an object or a function. */
export function isObject(value) {
  return value !== null && (typeof value === 'object' || typeof value === 'function');
}

/** Lengths past which the built-ins written here take over from V8's own: up to 2^20 elements or
 * characters, V8's code is fast and ends in moments. */
export const LONG_LENGTH = 2 ** 20;

export function toIntegerOrInfinity(value) {
  const number = +value;
  return number !== number || number === 0 ? 0 : MathTrunc(number);
}

export function toLength(value) {
  const length = toIntegerOrInfinity(value);
  return length <= 0 ? 0 : MathMin(length, MAX_SAFE_LENGTH);
}

/** ToString, which refuses a symbol where `String()` would describe it. */
export function toStringStrict(value) {
  if (typeof value === 'symbol') throw new TypeErrorCtor('Cannot convert a Symbol value to a string');
  return StringCtor(value);
}

// Whether an object is a proxy or a string object (src/engine/listings.rs): a fast call made in every
// isolate as it is locked down, before any program runs. The snapshot cannot keep a fast call, and
// through the op it took each proxy check took about 17 ns, a tenth of a short array's `includes`.
export let exoticKind = null;
// What `exoticKind` answers for a proxy.
export const PROXY_KIND = 2;

export function useFastExoticKind(fastExoticKind) {
  exoticKind = fastExoticKind;
}

/** Whether `value` is a proxy, asked of V8 without calling any trap. */
export function isProxy(value) {
  return exoticKind === null ? op_dsh_is_proxy(value) : exoticKind(value) === PROXY_KIND;
}

/** The length V8 reads of `value`, an object with `length` as its own data property, or undefined
 * where reading it could call a getter or trap of the program's. Read without running program code. */
export function plainLength(value) {
  if (value === null || isProxy(value)) return undefined;
  // An array's length is its own data property: read as it is, it runs nothing.
  if (ArrayIsArray(value)) return value.length;
  // Asked first, as most objects have no length of their own: it makes no descriptor.
  if (!ObjectHasOwn(value, 'length')) return undefined;
  const own = ObjectGetOwnPropertyDescriptor(value, 'length');
  return typeof own.value !== 'number' ? undefined : toLength(own.value);
}

/** Whether `list` is an object whose length V8's own loop over it reads as at most `limit`, so that
 * the loop ends in moments. */
export function hasShortLength(list, limit) {
  if (typeof list !== 'object') return false;
  const length = plainLength(list);
  return length !== undefined && length <= limit;
}
