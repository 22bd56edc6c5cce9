// node:util, on the runtime's inspect. Its deep equality is assert's too: assert reads the
// comparison, loose or strict, from this module's object under the registered symbol
// 'dsh.node.util.isDeepEqual', a property neither enumerable nor writable.

import { core, primordials } from 'ext:core/mod.js';
import { inspect as render } from 'ext:dsh/inspect.js';
import { TextDecoder, TextEncoder, URL } from 'ext:dsh/web.js';
import { queueMicrotask, setImmediate, setTimeout } from 'ext:dsh/world.js';
import timersPromises from 'node:timers/promises';
import { describeReceived, nodeError } from 'ext:dsh/node_errors.js';

const {
  ArrayBufferPrototypeGetByteLength,
  ArrayIsArray,
  ArrayPrototypePop,
  ArrayPrototypePush,
  BigIntPrototypeValueOf,
  BooleanPrototypeValueOf,
  DataViewPrototypeGetBuffer,
  DataViewPrototypeGetByteLength,
  DataViewPrototypeGetByteOffset,
  DatePrototypeGetTime,
  Error,
  JSONStringify,
  MapPrototypeGet,
  MapPrototypeGetSize,
  MapPrototypeHas,
  NumberIsNaN,
  NumberParseFloat,
  NumberParseInt,
  NumberPrototypeValueOf,
  ObjectDefineProperties,
  ObjectDefineProperty,
  ObjectGetOwnPropertyDescriptor,
  ObjectGetOwnPropertyDescriptors,
  ObjectGetOwnPropertySymbols,
  ObjectGetPrototypeOf,
  ObjectIs,
  ObjectKeys,
  ObjectPrototypeHasOwnProperty,
  ObjectPrototypeIsPrototypeOf,
  ObjectPrototypePropertyIsEnumerable,
  ObjectPrototypeToString,
  ObjectSetPrototypeOf,
  Promise,
  PromisePrototypeThen,
  PromiseResolve,
  ReflectApply,
  RegExpPrototypeGetFlags,
  RegExpPrototypeGetSource,
  SafeMap,
  SafeMapIterator,
  SafeSet,
  SafeSetIterator,
  SetPrototypeGetSize,
  SetPrototypeHas,
  String,
  StringPrototypeCharCodeAt,
  StringPrototypeEndsWith,
  StringPrototypeIncludes,
  StringPrototypeReplace,
  StringPrototypeSlice,
  StringPrototypeToWellFormed,
  StringPrototypeValueOf,
  SymbolFor,
  SymbolPrototypeValueOf,
  SymbolToPrimitive,
  TypeError,
  TypedArrayPrototypeGetBuffer,
  TypedArrayPrototypeGetByteLength,
  TypedArrayPrototypeGetByteOffset,
  TypedArrayPrototypeGetSymbolToStringTag,
  Uint8Array,
} = primordials;
// deno_core's type checks: V8's own, as Node's util.types are.
const ops = core.ops;

function invalidArgType(name, expected, value) {
  let subject;
  if (StringPrototypeEndsWith(name, ' argument')) subject = name;
  else subject = `"${name}" ${StringPrototypeIncludes(name, '.') ? 'property' : 'argument'}`;
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The ${subject} must be ${expected}. Received ${describeReceived(value)}`);
}

function validateFunction(value, name) {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value);
}

function validateObject(value, name) {
  if (value === null || typeof value !== 'object') throw invalidArgType(name, 'of type object', value);
}

// ---- inspect ----------------------------------------------------------------------------------

const customInspectSymbol = SymbolFor('nodejs.util.inspect.custom');
const inspectDefaults = {
  showHidden: false,
  depth: 2,
  colors: false,
  customInspect: true,
  showProxy: false,
  maxArrayLength: 100,
  maxStringLength: 10000,
  breakLength: 80,
  compact: 3,
  sorted: false,
  getters: false,
  numericSeparator: false,
};
const inspectOptionNames = ObjectKeys(inspectDefaults);

// The caller's options over the defaults; the runtime's inspect reads those it implements.
function inspect(value, options) {
  // Node's legacy form: inspect(value, showHidden, depth).
  if (typeof options !== 'object' || options === null) options = { showHidden: options, depth: arguments[2] };
  const effective = {};
  for (let i = 0; i < inspectOptionNames.length; i++) {
    const key = inspectOptionNames[i];
    effective[key] = options[key] !== undefined ? options[key] : inspectDefaults[key];
  }
  return render(value, effective);
}
ObjectDefineProperty(inspect, 'custom', { __proto__: null, value: customInspectSymbol, enumerable: false });
ObjectDefineProperty(inspect, 'defaultOptions', {
  __proto__: null,
  get() {
    return inspectDefaults;
  },
  set(options) {
    validateObject(options, 'options');
    const keys = ObjectKeys(options);
    for (let i = 0; i < keys.length; i++) {
      if (ObjectPrototypeHasOwnProperty(inspectDefaults, keys[i])) inspectDefaults[keys[i]] = options[keys[i]];
    }
  },
  enumerable: false,
});

// ---- format -----------------------------------------------------------------------------------

// The constructors Node counts as built in when %s decides between String() and inspect().
const builtInConstructors = new SafeSet(['Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol',
  'BigInt', 'Date', 'RegExp', 'Error', 'AggregateError', 'EvalError', 'RangeError', 'ReferenceError', 'SyntaxError',
  'TypeError', 'URIError', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry',
  'ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Proxy']);

// Whether `value` converts to a string only by a built-in toString (or toPrimitive): then %s
// inspects it rather than calling String().
function hasBuiltInToString(value) {
  if (ops.op_is_proxy(value)) return true;
  if (typeof value.toString !== 'function' && typeof value[SymbolToPrimitive] !== 'function') return true;
  let owner = value;
  while (owner !== null && !ObjectPrototypeHasOwnProperty(owner, 'toString') &&
    !ObjectPrototypeHasOwnProperty(owner, SymbolToPrimitive)) {
    owner = ObjectGetPrototypeOf(owner);
  }
  if (owner === null) return true;
  if (owner === value) return false;
  const constructor = ObjectGetOwnPropertyDescriptor(owner, 'constructor')?.value;
  return typeof constructor === 'function' && builtInConstructors.has(constructor.name);
}

const numberText = (number) => (ObjectIs(number, -0) ? '-0' : `${number}`);

const formatters = {
  __proto__: null,
  s(value, options) {
    if (typeof value === 'number') return numberText(value);
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value !== 'object' || value === null || !hasBuiltInToString(value)) return String(value);
    return inspect(value, { ...options, depth: 0, compact: 3 });
  },
  d(value) {
    if (typeof value === 'bigint') return `${value}n`;
    return typeof value === 'symbol' ? 'NaN' : numberText(+value);
  },
  i(value) {
    if (typeof value === 'bigint') return `${value}n`;
    return typeof value === 'symbol' ? 'NaN' : numberText(NumberParseInt(value));
  },
  f(value) {
    return typeof value === 'symbol' ? 'NaN' : numberText(NumberParseFloat(value));
  },
  j(value) {
    try {
      return `${JSONStringify(value)}`;
    } catch (error) {
      if (ObjectPrototypeIsPrototypeOf(TypeError.prototype, error) && StringPrototypeIncludes(error.message, 'circular')) {
        return '[Circular]';
      }
      throw error;
    }
  },
  o(value, options) {
    return inspect(value, { ...options, showHidden: true, showProxy: true, depth: 4 });
  },
  O(value, options) {
    return inspect(value, options);
  },
  c() {
    return '';
  },
};

function formatArguments(options, args) {
  const first = args[0];
  let text = '';
  let next = 0;
  let join = '';
  if (typeof first === 'string' && args.length > 1) {
    next = 1;
    // The end of the part of `first` already copied into `text`.
    let copied = 0;
    for (let i = 0; i < first.length - 1; i++) {
      if (StringPrototypeCharCodeAt(first, i) !== 37) continue;
      const directive = first[++i];
      let replacement;
      if (directive === '%') replacement = '%';
      else if (formatters[directive] !== undefined && next < args.length) {
        replacement = formatters[directive](args[next++], options);
      }
      if (replacement === undefined) continue;
      text += StringPrototypeSlice(first, copied, i - 1) + replacement;
      copied = i + 1;
    }
    if (copied === 0) {
      // No directive was replaced: the format string is appended like any other argument.
      next = 0;
    } else {
      text += StringPrototypeSlice(first, copied);
      join = ' ';
    }
  }
  for (; next < args.length; next++) {
    const value = args[next];
    text += join + (typeof value === 'string' ? value : inspect(value, options));
    join = ' ';
  }
  return text;
}

function format(...args) {
  return formatArguments({}, args);
}

function formatWithOptions(inspectOptions, ...args) {
  validateObject(inspectOptions, 'inspectOptions');
  return formatArguments(inspectOptions, args);
}

// ---- functions --------------------------------------------------------------------------------

const promisifyCustom = SymbolFor('nodejs.util.promisify.custom');
// The world's timers have Node's promisified forms.
const promisifiedTimers = new SafeMap([[setTimeout, timersPromises.setTimeout], [setImmediate, timersPromises.setImmediate]]);

function promisify(original) {
  validateFunction(original, 'original');
  const custom = original[promisifyCustom];
  if (custom !== undefined) {
    validateFunction(custom, 'util.promisify.custom');
    return custom;
  }
  if (promisifiedTimers.has(original)) return promisifiedTimers.get(original);
  function promisified(...args) {
    return new Promise((resolve, reject) => {
      ArrayPrototypePush(args, (error, value) => (error ? reject(error) : resolve(value)));
      ReflectApply(original, this, args);
    });
  }
  ObjectSetPrototypeOf(promisified, ObjectGetPrototypeOf(original));
  ObjectDefineProperty(promisified, promisifyCustom, { __proto__: null, value: promisified, configurable: true });
  return ObjectDefineProperties(promisified, ObjectGetOwnPropertyDescriptors(original));
}
promisify.custom = promisifyCustom;

function callbackify(original) {
  validateFunction(original, 'original');
  function callbackified(...args) {
    const callback = ArrayPrototypePop(args);
    validateFunction(callback, 'last argument');
    const fulfilled = (value) => queueMicrotask(() => callback(null, value));
    const rejected = (reason) => {
      if (!reason) {
        const error = nodeError(Error, 'ERR_FALSY_VALUE_REJECTION', 'Promise was rejected with falsy value');
        error.reason = reason;
        reason = error;
      }
      queueMicrotask(() => callback(reason));
    };
    PromisePrototypeThen(PromiseResolve(ReflectApply(original, this, args)), fulfilled, rejected);
  }
  const descriptors = ObjectGetOwnPropertyDescriptors(original);
  if (typeof descriptors.length?.value === 'number') descriptors.length.value++;
  if (typeof descriptors.name?.value === 'string') descriptors.name.value += 'Callbackified';
  ObjectSetPrototypeOf(callbackified, ObjectGetPrototypeOf(original));
  return ObjectDefineProperties(callbackified, descriptors);
}

// `fn` itself: the warning Node writes to stderr on the first call is no output of the program's.
function deprecate(fn) {
  validateFunction(fn, 'fn');
  return fn;
}

function debuglog() {
  const logger = function debug() {};
  ObjectDefineProperty(logger, 'enabled', { __proto__: null, value: false });
  return logger;
}

function inherits(ctor, superCtor) {
  validateFunction(ctor, 'ctor');
  validateFunction(superCtor, 'superCtor');
  if (superCtor.prototype === undefined) {
    throw invalidArgType('superCtor.prototype', 'of type object', superCtor.prototype);
  }
  ObjectDefineProperty(ctor, 'super_', { __proto__: null, value: superCtor, writable: true, configurable: true });
  ObjectSetPrototypeOf(ctor.prototype, superCtor.prototype);
}

// ---- strings ----------------------------------------------------------------------------------

// CSI sequences (7- and 8-bit), OSC strings ended by BEL or ST, and the other escapes (an
// unfinished CSI or OSC stays).
const controlSequences = /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[ -/]*[0-Z\\^-~]/g;

function stripVTControlCharacters(str) {
  if (typeof str !== 'string') throw invalidArgType('str', 'of type string', str);
  return StringPrototypeReplace(str, controlSequences, '');
}

function toUSVString(string) {
  return StringPrototypeToWellFormed(`${string}`);
}

// ---- types ------------------------------------------------------------------------------------

// Named as Node's are: each check is its own function.
const types = {
  isDate: (value) => ops.op_is_date(value),
  isArgumentsObject: (value) => ops.op_is_arguments_object(value),
  isBigIntObject: (value) => ops.op_is_big_int_object(value),
  isBooleanObject: (value) => ops.op_is_boolean_object(value),
  isNumberObject: (value) => ops.op_is_number_object(value),
  isStringObject: (value) => ops.op_is_string_object(value),
  isSymbolObject: (value) => ops.op_is_symbol_object(value),
  isNativeError: (value) => ops.op_is_native_error(value),
  isRegExp: (value) => ops.op_is_reg_exp(value),
  isAsyncFunction: (value) => ops.op_is_async_function(value),
  isGeneratorFunction: (value) => ops.op_is_generator_function(value),
  isGeneratorObject: (value) => ops.op_is_generator_object(value),
  isPromise: (value) => ops.op_is_promise(value),
  isMap: (value) => ops.op_is_map(value),
  isSet: (value) => ops.op_is_set(value),
  isMapIterator: (value) => ops.op_is_map_iterator(value),
  isSetIterator: (value) => ops.op_is_set_iterator(value),
  isWeakMap: (value) => ops.op_is_weak_map(value),
  isWeakSet: (value) => ops.op_is_weak_set(value),
  isArrayBuffer: (value) => ops.op_is_array_buffer(value),
  isDataView: (value) => ops.op_is_data_view(value),
  isSharedArrayBuffer: (value) => ops.op_is_shared_array_buffer(value),
  isProxy: (value) => ops.op_is_proxy(value),
  isModuleNamespaceObject: (value) => ops.op_is_module_namespace_object(value),
  isAnyArrayBuffer: (value) => ops.op_is_any_array_buffer(value),
  isBoxedPrimitive: (value) => ops.op_is_boxed_primitive(value),
  isArrayBufferView: (value) => ops.op_is_array_buffer_view(value),
  isTypedArray: (value) => ops.op_is_typed_array(value),
  isUint8Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint8Array',
  isUint8ClampedArray: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint8ClampedArray',
  isUint16Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint16Array',
  isUint32Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Uint32Array',
  isInt8Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Int8Array',
  isInt16Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Int16Array',
  isInt32Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Int32Array',
  isFloat32Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Float32Array',
  isFloat64Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'Float64Array',
  isBigInt64Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'BigInt64Array',
  isBigUint64Array: (value) => TypedArrayPrototypeGetSymbolToStringTag(value) === 'BigUint64Array',
};

// ---- deep equality ----------------------------------------------------------------------------

// Whether `key` is an array index, which arrays and typed arrays compare by position.
function isIndex(key) {
  const number = +key;
  return number >>> 0 === number && number !== 4294967295 && `${number}` === key;
}

function bytesOf(view) {
  if (ops.op_is_data_view(view)) {
    return new Uint8Array(DataViewPrototypeGetBuffer(view), DataViewPrototypeGetByteOffset(view), DataViewPrototypeGetByteLength(view));
  }
  return new Uint8Array(TypedArrayPrototypeGetBuffer(view), TypedArrayPrototypeGetByteOffset(view), TypedArrayPrototypeGetByteLength(view));
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameBoxedValue(a, b) {
  if (types.isNumberObject(a)) return types.isNumberObject(b) && ObjectIs(NumberPrototypeValueOf(a), NumberPrototypeValueOf(b));
  if (types.isStringObject(a)) return types.isStringObject(b) && StringPrototypeValueOf(a) === StringPrototypeValueOf(b);
  if (types.isBooleanObject(a)) return types.isBooleanObject(b) && BooleanPrototypeValueOf(a) === BooleanPrototypeValueOf(b);
  if (types.isBigIntObject(a)) return types.isBigIntObject(b) && BigIntPrototypeValueOf(a) === BigIntPrototypeValueOf(b);
  return types.isSymbolObject(b) && SymbolPrototypeValueOf(a) === SymbolPrototypeValueOf(b);
}

const isError = (value) => ops.op_is_native_error(value) || ObjectPrototypeIsPrototypeOf(Error.prototype, value);

// Own enumerable keys (strict: symbols too) must match, and their values compare deep-equal.
function sameKeys(a, b, strict, pairs, skipIndices) {
  const keys = ObjectKeys(a);
  let count = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (skipIndices && isIndex(key)) continue;
    if (!ObjectPrototypePropertyIsEnumerable(b, key)) return false;
    count++;
  }
  const otherKeys = ObjectKeys(b);
  let otherCount = 0;
  for (let i = 0; i < otherKeys.length; i++) if (!skipIndices || !isIndex(otherKeys[i])) otherCount++;
  if (count !== otherCount) return false;
  if (strict) {
    const symbols = ObjectGetOwnPropertySymbols(a);
    let symbolCount = 0;
    for (let i = 0; i < symbols.length; i++) {
      if (!ObjectPrototypePropertyIsEnumerable(a, symbols[i])) continue;
      if (!ObjectPrototypePropertyIsEnumerable(b, symbols[i])) return false;
      if (!compare(a[symbols[i]], b[symbols[i]], strict, pairs)) return false;
      symbolCount++;
    }
    const otherSymbols = ObjectGetOwnPropertySymbols(b);
    for (let i = 0; i < otherSymbols.length; i++) {
      if (ObjectPrototypePropertyIsEnumerable(b, otherSymbols[i])) symbolCount--;
    }
    if (symbolCount !== 0) return false;
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (skipIndices && isIndex(key)) continue;
    if (!compare(a[key], b[key], strict, pairs)) return false;
  }
  return true;
}

// Entries of `a` without an identical counterpart in `b` must each find a deep-equal partner
// among the entries of `b` left over; a strict comparison can match no primitive that way.
function matchLeftovers(leftovers, rest, strict, pairs, sameEntry) {
  const taken = new SafeSet();
  for (let i = 0; i < leftovers.length; i++) {
    let found = false;
    for (let j = 0; j < rest.length && !found; j++) {
      if (taken.has(j) || !sameEntry(leftovers[i], rest[j])) continue;
      taken.add(j);
      found = true;
    }
    if (!found) return false;
  }
  return true;
}

const isPrimitive = (value) => value === null || (typeof value !== 'object' && typeof value !== 'function');

function sameMaps(a, b, strict, pairs) {
  if (MapPrototypeGetSize(a) !== MapPrototypeGetSize(b)) return false;
  const leftovers = [];
  const matched = new SafeSet();
  for (const entry of new SafeMapIterator(a)) {
    const key = entry[0];
    if (MapPrototypeHas(b, key) && compare(entry[1], MapPrototypeGet(b, key), strict, pairs)) {
      matched.add(key);
    } else if (strict && isPrimitive(key)) {
      return false;
    } else {
      ArrayPrototypePush(leftovers, entry);
    }
  }
  if (leftovers.length === 0) return true;
  const rest = [];
  for (const entry of new SafeMapIterator(b)) if (!matched.has(entry[0])) ArrayPrototypePush(rest, entry);
  return matchLeftovers(leftovers, rest, strict, pairs,
    (x, y) => compare(x[0], y[0], strict, pairs) && compare(x[1], y[1], strict, pairs));
}

function sameSets(a, b, strict, pairs) {
  if (SetPrototypeGetSize(a) !== SetPrototypeGetSize(b)) return false;
  const leftovers = [];
  for (const value of new SafeSetIterator(a)) {
    if (SetPrototypeHas(b, value)) continue;
    if (strict && isPrimitive(value)) return false;
    ArrayPrototypePush(leftovers, value);
  }
  if (leftovers.length === 0) return true;
  const rest = [];
  for (const value of new SafeSetIterator(b)) if (!SetPrototypeHas(a, value)) ArrayPrototypePush(rest, value);
  return matchLeftovers(leftovers, rest, strict, pairs, (x, y) => compare(x, y, strict, pairs));
}

// Two objects of the same type tag (and, strict, the same prototype).
function sameObjects(a, b, strict, pairs) {
  if (ArrayIsArray(a)) {
    if (!ArrayIsArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const present = ObjectPrototypeHasOwnProperty(a, i);
      if (present !== ObjectPrototypeHasOwnProperty(b, i)) return false;
      if (present && !compare(a[i], b[i], strict, pairs)) return false;
    }
    return sameKeys(a, b, strict, pairs, true);
  }
  if (ops.op_is_array_buffer_view(a)) {
    if (!ops.op_is_array_buffer_view(b)) return false;
    const tag = TypedArrayPrototypeGetSymbolToStringTag(a);
    if (tag !== TypedArrayPrototypeGetSymbolToStringTag(b)) return false;
    // Loose comparison reads floats by value: 0 and -0 are equal, NaN is not.
    if (!strict && (tag === 'Float32Array' || tag === 'Float64Array')) {
      if (a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    } else if (!sameBytes(bytesOf(a), bytesOf(b))) {
      return false;
    }
    return sameKeys(a, b, strict, pairs, tag !== undefined);
  }
  if (ops.op_is_any_array_buffer(a)) {
    if (!ops.op_is_any_array_buffer(b)) return false;
    if (ArrayBufferPrototypeGetByteLength(a) !== ArrayBufferPrototypeGetByteLength(b)) return false;
    if (!sameBytes(new Uint8Array(a), new Uint8Array(b))) return false;
  } else if (ops.op_is_date(a)) {
    if (!ops.op_is_date(b) || DatePrototypeGetTime(a) !== DatePrototypeGetTime(b)) return false;
  } else if (ops.op_is_reg_exp(a)) {
    if (!ops.op_is_reg_exp(b) || RegExpPrototypeGetSource(a) !== RegExpPrototypeGetSource(b) ||
      RegExpPrototypeGetFlags(a) !== RegExpPrototypeGetFlags(b) || a.lastIndex !== b.lastIndex) {
      return false;
    }
  } else if (isError(a)) {
    // Name, message, cause and errors count even when not enumerable.
    if (!isError(b) || a.message !== b.message || a.name !== b.name) return false;
    for (let i = 0; i < 2; i++) {
      const key = i === 0 ? 'cause' : 'errors';
      const present = ObjectPrototypeHasOwnProperty(a, key);
      if (present !== ObjectPrototypeHasOwnProperty(b, key)) return false;
      if (present && !compare(a[key], b[key], strict, pairs)) return false;
    }
  } else if (ops.op_is_boxed_primitive(a)) {
    if (!ops.op_is_boxed_primitive(b) || !sameBoxedValue(a, b)) return false;
  } else if (ops.op_is_map(a)) {
    if (!ops.op_is_map(b) || !sameMaps(a, b, strict, pairs)) return false;
  } else if (ops.op_is_set(a)) {
    if (!ops.op_is_set(b) || !sameSets(a, b, strict, pairs)) return false;
  } else if (ObjectPrototypeIsPrototypeOf(URL.prototype, a)) {
    // A URL keeps its state private.
    if (!ObjectPrototypeIsPrototypeOf(URL.prototype, b) || a.href !== b.href) return false;
  }
  return sameKeys(a, b, strict, pairs, ops.op_is_string_object(a));
}

// `pairs` maps each object under comparison to those it is being compared with: a pair met again
// further down is a cycle on both sides, and counts as equal.
function compare(a, b, strict, pairs) {
  if (a === b) return !strict || a !== 0 || ObjectIs(a, b);
  if (strict) {
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
      return typeof a === 'number' && typeof b === 'number' && NumberIsNaN(a) && NumberIsNaN(b);
    }
    if (ObjectGetPrototypeOf(a) !== ObjectGetPrototypeOf(b)) return false;
  } else {
    if (a === null || typeof a !== 'object') {
          return (b === null || typeof b !== 'object') && (a == b || (NumberIsNaN(a) && NumberIsNaN(b)));
    }
    if (b === null || typeof b !== 'object') return false;
  }
  if (ObjectPrototypeToString(a) !== ObjectPrototypeToString(b)) return false;
  let partners = pairs.get(a);
  if (partners === undefined) {
    partners = new SafeSet();
    pairs.set(a, partners);
  } else if (partners.has(b)) {
    return true;
  }
  partners.add(b);
  const same = sameObjects(a, b, strict, pairs);
  partners.delete(b);
  return same;
}

function isDeepEqual(a, b, strict) {
  return compare(a, b, strict, new SafeMap());
}

function isDeepStrictEqual(a, b) {
  return compare(a, b, true, new SafeMap());
}

const util = {
  format,
  formatWithOptions,
  inspect,
  promisify,
  callbackify,
  deprecate,
  debuglog,
  debug: debuglog,
  inherits,
  isArray: ArrayIsArray,
  isDeepStrictEqual,
  stripVTControlCharacters,
  toUSVString,
  types,
  TextDecoder,
  TextEncoder,
};
ObjectDefineProperty(util, SymbolFor('dsh.node.util.isDeepEqual'), { __proto__: null, value: isDeepEqual });

export default util;
export {
  callbackify,
  debuglog as debug,
  debuglog,
  deprecate,
  format,
  formatWithOptions,
  inherits,
  inspect,
  isDeepStrictEqual,
  promisify,
  stripVTControlCharacters,
  TextDecoder,
  TextEncoder,
  toUSVString,
  types,
};
export const isArray = ArrayIsArray;
