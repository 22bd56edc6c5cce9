// `inspect(value, options)`: Node's util.inspect, by default with { depth: 4, maxArrayLength: 100,
// maxStringLength: 10000, breakLength: 80, compact: 3 } and no colours, written against the
// intrinsics captured here so a program that rewrites built-ins still logs faithfully.

import { core } from 'ext:core/mod.js';
import { isObject } from 'ext:dsh/abstract_ops.js';

const inspectOps = core.ops;
const {
  op_is_any_array_buffer: isAnyArrayBuffer,
  op_is_arguments_object: isArgumentsObject,
  op_is_async_function: isAsyncFunction,
  op_is_boxed_primitive: isBoxedPrimitive,
  op_is_big_int_object: isBigIntObject,
  op_is_boolean_object: isBooleanObject,
  op_is_data_view: isDataView,
  op_is_date: isDate,
  op_is_generator_function: isGeneratorFunction,
  op_is_map: isMap,
  op_is_map_iterator: isMapIterator,
  op_is_native_error: isNativeError,
  op_is_number_object: isNumberObject,
  op_is_promise: isPromise,
  op_is_reg_exp: isRegExp,
  op_is_set: isSet,
  op_is_set_iterator: isSetIterator,
  op_is_string_object: isStringObject,
  op_is_typed_array: isTypedArray,
  op_is_weak_map: isWeakMap,
  op_is_weak_set: isWeakSet,
  op_get_proxy_details: getProxyDetails,
  op_get_promise_details: getPromiseDetails,
  op_get_non_index_property_names: getNonIndexPropertyNames,
} = inspectOps;

const InspectReflectApply = Reflect.apply;
// `fn` with its receiver as first argument, bound once to the original `call` (as primordials
// do): V8 calls through it without the array a rest parameter makes on every call.
const FunctionPrototypeCall = Function.prototype.call;
const uncurry = (fn) => InspectReflectApply(Function.prototype.bind, FunctionPrototypeCall, [fn]);
const ArrayIsArray = Array.isArray;
const ArrayPrototypeSlice = uncurry(Array.prototype.slice);
const ArrayPrototypeSort = uncurry(Array.prototype.sort);
const ArrayPrototypeSplice = uncurry(Array.prototype.splice);
const DatePrototypeGetTime = uncurry(Date.prototype.getTime);
const DatePrototypeToISOString = uncurry(Date.prototype.toISOString);
const DatePrototypeToString = uncurry(Date.prototype.toString);
const ErrorPrototypeToString = uncurry(Error.prototype.toString);
const FunctionPrototypeToString = uncurry(Function.prototype.toString);
const MapCtorForInspect = Map;
const MapPrototypeEntries = uncurry(Map.prototype.entries);
const MapPrototypeGetSize = uncurry(Object.getOwnPropertyDescriptor(Map.prototype, 'size').get);
const MapPrototypeGetSizeForInspect = MapPrototypeGetSize;
const MapPrototypeGetForInspect = uncurry(Map.prototype.get);
const MapPrototypeSetForInspect = uncurry(Map.prototype.set);
const MapIteratorNext = uncurry(Object.getPrototypeOf(new Map().entries()).next);
const MathFloor = Math.floor;
const MathMax = Math.max;
const MathMin = Math.min;
const MathRound = Math.round;
const MathSqrt = Math.sqrt;
const NumberIsNaN = Number.isNaN;
const NumberPrototypeToString = uncurry(Number.prototype.toString);
const NumberPrototypeValueOf = uncurry(Number.prototype.valueOf);
const BigIntPrototypeValueOf = uncurry(BigInt.prototype.valueOf);
const BooleanPrototypeValueOf = uncurry(Boolean.prototype.valueOf);
const StringPrototypeValueOf = uncurry(String.prototype.valueOf);
const SymbolPrototypeValueOf = uncurry(Symbol.prototype.valueOf);
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetOwnPropertySymbols = Object.getOwnPropertySymbols;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectKeys = Object.keys;
const ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
const ObjectPrototypeHasOwnProperty = uncurry(Object.prototype.hasOwnProperty);
const ObjectPrototypePropertyIsEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
const RegExpPrototypeExec = uncurry(RegExp.prototype.exec);
const RegExpPrototypeToString = uncurry(RegExp.prototype.toString);
const SetPrototypeGetSize = uncurry(Object.getOwnPropertyDescriptor(Set.prototype, 'size').get);
const SetPrototypeValues = uncurry(Set.prototype.values);
const SetIteratorNext = uncurry(Object.getPrototypeOf(new Set().values()).next);
const StringCtorForInspect = String;
const StringPrototypeCharCodeAt = uncurry(String.prototype.charCodeAt);
const StringPrototypeEndsWith = uncurry(String.prototype.endsWith);
const StringPrototypeIncludes = uncurry(String.prototype.includes);
const StringPrototypeIndexOf = uncurry(String.prototype.indexOf);
const StringPrototypeRepeat = uncurry(String.prototype.repeat);
const StringPrototypeSliceForInspect = uncurry(String.prototype.slice);
const StringPrototypeToUpperCase = uncurry(String.prototype.toUpperCase);
const StringPrototypeStartsWith = uncurry(String.prototype.startsWith);
const SymbolPrototypeToString = uncurry(Symbol.prototype.toString);
const SymbolToStringTag = Symbol.toStringTag;
const SymbolIterator = Symbol.iterator;
const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
const TypedArrayPrototypeGetLength = uncurry(Object.getOwnPropertyDescriptor(TypedArrayPrototype, 'length').get);
const dataViewGetter = (name) => uncurry(Object.getOwnPropertyDescriptor(DataView.prototype, name).get);
const DataViewPrototypeGetByteLength = dataViewGetter('byteLength');
const DataViewPrototypeGetByteOffset = dataViewGetter('byteOffset');
const DataViewPrototypeGetBuffer = dataViewGetter('buffer');
const TypedArrayPrototypeGetSymbolToStringTag = uncurry(
  Object.getOwnPropertyDescriptor(TypedArrayPrototype, Symbol.toStringTag).get,
);
const Uint8ArrayCtor = Uint8Array;
const customInspectSymbol = Symbol.for('nodejs.util.inspect.custom');

const kObjectType = 0;
const kArrayType = 1;
const kArrayExtrasType = 2;
const kMinLineWidth = 16;
const classRegExp = /^(\s+[^(]*?)\s*{/;
const stripCommentsRegExp = /(\/\/.*?\n)|(\/\*(.|\n)*?\*\/)/g;

const meta = [
  '\\x00', '\\x01', '\\x02', '\\x03', '\\x04', '\\x05', '\\x06', '\\x07',
  '\\b', '\\t', '\\n', '\\x0B', '\\f', '\\r', '\\x0E', '\\x0F',
  '\\x10', '\\x11', '\\x12', '\\x13', '\\x14', '\\x15', '\\x16', '\\x17',
  '\\x18', '\\x19', '\\x1A', '\\x1B', '\\x1C', '\\x1D', '\\x1E', '\\x1F',
];

// Reads a descriptor field without consulting Object.prototype, which a program may have rewritten.
function ownValue(record, key) {
  return ObjectPrototypeHasOwnProperty(record, key) ? record[key] : undefined;
}

function push(list, item) {
  list[list.length] = item;
}

function join(list, separator) {
  let text = '';
  for (let i = 0; i < list.length; i++) text = i === 0 ? list[i] : text + separator + list[i];
  return text;
}

function includes(list, item) {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return true;
  return false;
}

function indexOf(list, item) {
  for (let i = 0; i < list.length; i++) if (list[i] === item) return i;
  return -1;
}

function escapeMeta(point) {
  if (point < 32) return meta[point];
  if (point === 39) return "\\'";
  if (point === 92) return '\\\\';
  return '\\x' + StringPrototypeToUpperCase(NumberPrototypeToString(point, 16));
}

function strEscape(str) {
  let quote = 39;
  if (StringPrototypeIncludes(str, "'")) {
    if (!StringPrototypeIncludes(str, '"')) quote = -2;
    else if (!StringPrototypeIncludes(str, '`') && !StringPrototypeIncludes(str, '${')) quote = -1;
  }
  let result = '';
  let last = 0;
  for (let i = 0; i < str.length; i++) {
    const point = StringPrototypeCharCodeAt(str, i);
    if (point === quote || point === 92 || point < 32 || (point > 126 && point < 160)) {
      result += StringPrototypeSliceForInspect(str, last, i) + escapeMeta(point);
      last = i + 1;
    } else if (point >= 0xd800 && point <= 0xdfff) {
      if (point <= 0xdbff && i + 1 < str.length) {
        const next = StringPrototypeCharCodeAt(str, i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          i++;
          continue;
        }
      }
      result += StringPrototypeSliceForInspect(str, last, i) + '\\u' + NumberPrototypeToString(point, 16);
      last = i + 1;
    }
  }
  if (last !== str.length) result += StringPrototypeSliceForInspect(str, last);
  if (quote === -2) return '"' + result + '"';
  if (quote === -1) return '`' + result + '`';
  return "'" + result + "'";
}

function formatNumber(number) {
  if (number === 0 && 1 / number < 0) return '-0';
  return '' + number;
}

function formatPrimitive(value, ctx) {
  switch (typeof value) {
    case 'string': {
      let trailer = '';
      if (value.length > ctx.maxStringLength) {
        const remaining = value.length - ctx.maxStringLength;
        value = StringPrototypeSliceForInspect(value, 0, ctx.maxStringLength);
        trailer = '... ' + remaining + ' more character' + (remaining > 1 ? 's' : '');
      }
      if (value.length > kMinLineWidth && value.length > ctx.breakLength - ctx.indentationLvl - 4) {
        // Long strings are split after each line break and joined with ` +`.
        const lines = [];
        let start = 0;
        for (let i = 0; i < value.length; i++) {
          if (StringPrototypeCharCodeAt(value, i) === 10) {
            push(lines, strEscape(StringPrototypeSliceForInspect(value, start, i + 1)));
            start = i + 1;
          }
        }
        if (start < value.length) push(lines, strEscape(StringPrototypeSliceForInspect(value, start)));
        return join(lines, ' +\n' + StringPrototypeRepeat(' ', ctx.indentationLvl + 2)) + trailer;
      }
      return strEscape(value) + trailer;
    }
    case 'number':
      return formatNumber(value);
    case 'bigint':
      return '' + value + 'n';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
      return 'undefined';
    default:
      return SymbolPrototypeToString(value);
  }
}

function isInstanceof(object, ctor) {
  try {
    return object instanceof ctor;
  } catch {
    return false;
  }
}

function getConstructorName(obj, ctx, recurseTimes) {
  let firstProto;
  const original = obj;
  while (obj) {
    const descriptor = ObjectGetOwnPropertyDescriptor(obj, 'constructor');
    const ctor = descriptor !== undefined ? ownValue(descriptor, 'value') : undefined;
    if (typeof ctor === 'function' && ctor.name !== '' && isInstanceof(original, ctor)) {
      return StringCtorForInspect(ctor.name);
    }
    obj = ObjectGetPrototypeOf(obj);
    if (firstProto === undefined) firstProto = obj;
  }
  if (firstProto === null) return null;
  const fallback = typeof original === 'function' ? 'Function' : 'Object';
  if (recurseTimes > ctx.depth) return fallback + ' <Complex prototype>';
  const protoName = getConstructorName(firstProto, ctx, recurseTimes + 1);
  if (protoName === null) return fallback + ' <[Object: null prototype] {}>';
  return fallback + ' <' + protoName + '>';
}

function getPrefix(constructor, tag, fallback, size = '') {
  if (constructor === null) {
    if (tag !== '' && fallback !== tag) return '[' + fallback + size + ': null prototype] [' + tag + '] ';
    return '[' + fallback + size + ': null prototype] ';
  }
  if (tag !== '' && constructor !== tag) return constructor + size + ' [' + tag + '] ';
  return constructor + size + ' ';
}

// With `showHidden`, non-enumerable keys too (rendered in brackets by formatProperty).
function getKeys(value, ctx) {
  const keys = ctx.showHidden ? ObjectGetOwnPropertyNames(value) : ObjectKeys(value);
  const symbols = ObjectGetOwnPropertySymbols(value);
  for (let i = 0; i < symbols.length; i++) {
    if (ctx.showHidden || ObjectPrototypePropertyIsEnumerable(value, symbols[i])) push(keys, symbols[i]);
  }
  return keys;
}

// V8's property filters: every property, or only the enumerable ones.
const ALL_PROPERTIES = 0;
const ONLY_ENUMERABLE = 2;

function getFunctionBase(value, constructor, tag) {
  const stringified = FunctionPrototypeToString(value);
  if (StringPrototypeStartsWith(stringified, 'class') && StringPrototypeEndsWith(stringified, '}')) {
    const slice = StringPrototypeSliceForInspect(stringified, 5, -1);
    const bracketIndex = StringPrototypeIndexOf(slice, '{');
    if (bracketIndex !== -1 &&
      (!StringPrototypeIncludes(StringPrototypeSliceForInspect(slice, 0, bracketIndex), '(') ||
        RegExpPrototypeExec(classRegExp, stripComments(slice)) !== null)) {
      return getClassBase(value, constructor, tag);
    }
  }
  let type = 'Function';
  if (isGeneratorFunction(value)) type = 'Generator' + type;
  if (isAsyncFunction(value)) type = 'Async' + type;
  let base = '[' + type;
  if (constructor === null) base += ' (null prototype)';
  if (value.name === '') base += ' (anonymous)';
  else base += ': ' + value.name;
  base += ']';
  if (constructor !== type && constructor !== null) base += ' ' + constructor;
  if (tag !== '' && constructor !== tag) base += ' [' + tag + ']';
  return base;
}

function stripComments(text) {
  let result = '';
  let last = 0;
  stripCommentsRegExp.lastIndex = 0;
  let match;
  while ((match = RegExpPrototypeExec(stripCommentsRegExp, text)) !== null) {
    result += StringPrototypeSliceForInspect(text, last, match.index);
    last = match.index + match[0].length;
  }
  return result + StringPrototypeSliceForInspect(text, last);
}

function getClassBase(value, constructor, tag) {
  const hasName = ObjectPrototypeHasOwnProperty(value, 'name');
  const name = (hasName && value.name) || '(anonymous)';
  let base = 'class ' + name;
  if (constructor !== 'Function' && constructor !== null) base += ' [' + constructor + ']';
  if (tag !== '' && constructor !== tag) base += ' [' + tag + ']';
  if (constructor !== null) {
    const superName = ObjectGetPrototypeOf(value).name;
    if (superName) base += ' extends ' + superName;
  } else {
    base += ' extends [null prototype]';
  }
  return '[' + base + ']';
}

function improveStack(stack, constructor, name, tag) {
  let len = name.length;
  if (constructor === null ||
    (StringPrototypeEndsWith(name, 'Error') && StringPrototypeStartsWith(stack, name) &&
      (stack.length === len || stack[len] === ':' || stack[len] === '\n'))) {
    let fallback = 'Error';
    if (constructor === null) {
      const start = RegExpPrototypeExec(/^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n\s+at)/, stack) ||
        RegExpPrototypeExec(/^([a-z_A-Z0-9-]*Error)$/, stack);
      fallback = (start && start[1]) || '';
      len = fallback.length;
      fallback = fallback || 'Error';
    }
    const prefix = StringPrototypeSliceForInspect(getPrefix(constructor, tag, fallback), 0, -1);
    if (name !== prefix) {
      if (StringPrototypeIncludes(prefix, name)) {
        stack = len === 0 ? prefix + ': ' + stack : prefix + StringPrototypeSliceForInspect(stack, len);
      } else {
        stack = prefix + ' [' + name + ']' + StringPrototypeSliceForInspect(stack, len);
      }
    }
  }
  return stack;
}

function formatError(err, constructor, tag, ctx, keys) {
  const name = err.name != null ? StringCtorForInspect(err.name) : 'Error';
  let stack = err.stack ? StringCtorForInspect(err.stack) : ErrorPrototypeToString(err);
  // Hide name, message and stack where the stack already shows them.
  if (keys.length !== 0) {
    const hidden = ['name', 'message', 'stack'];
    for (let h = 0; h < hidden.length; h++) {
      const index = indexOf(keys, hidden[h]);
      if (index !== -1 && StringPrototypeIncludes(stack, err[hidden[h]])) ArrayPrototypeSplice(keys, index, 1);
    }
  }
  if ('cause' in err && (keys.length === 0 || !includes(keys, 'cause'))) push(keys, 'cause');
  if (ArrayIsArray(err.errors) && (keys.length === 0 || !includes(keys, 'errors'))) push(keys, 'errors');
  stack = improveStack(stack, constructor, name, tag);
  let pos = (err.message && StringPrototypeIndexOf(stack, err.message)) || -1;
  if (pos !== -1) pos += err.message.length;
  const stackStart = StringPrototypeIndexOf(stack, '\n    at', pos);
  if (stackStart === -1) stack = '[' + stack + ']';
  if (ctx.indentationLvl !== 0) {
    const indentation = StringPrototypeRepeat(' ', ctx.indentationLvl);
    let indented = '';
    let last = 0;
    for (let i = 0; i < stack.length; i++) {
      if (StringPrototypeCharCodeAt(stack, i) === 10) {
        indented += StringPrototypeSliceForInspect(stack, last, i + 1) + indentation;
        last = i + 1;
      }
    }
    stack = indented + StringPrototypeSliceForInspect(stack, last);
  }
  return stack;
}

function getBoxedBase(value, ctx, keys, constructor, tag) {
  let type;
  let primitive;
  if (isNumberObject(value)) {
    type = 'Number';
    primitive = NumberPrototypeValueOf(value);
  } else if (isStringObject(value)) {
    type = 'String';
    primitive = StringPrototypeValueOf(value);
    ArrayPrototypeSplice(keys, 0, value.length);
  } else if (isBooleanObject(value)) {
    type = 'Boolean';
    primitive = BooleanPrototypeValueOf(value);
  } else if (isBigIntObject(value)) {
    type = 'BigInt';
    primitive = BigIntPrototypeValueOf(value);
  } else {
    type = 'Symbol';
    primitive = SymbolPrototypeValueOf(value);
  }
  let base = '[' + type;
  if (type !== constructor) base += constructor === null ? ' (null prototype)' : ' (' + constructor + ')';
  base += ': ' + formatPrimitive(primitive, { ...ctx, indentationLvl: 0, breakLength: Infinity }) + ']';
  if (tag !== '' && tag !== constructor) base += ' [' + tag + ']';
  return base;
}

function remainingText(remaining) {
  return '... ' + remaining + ' more item' + (remaining > 1 ? 's' : '');
}

function formatArray(ctx, value, recurseTimes) {
  const valLen = value.length;
  const len = MathMin(MathMax(0, ctx.maxArrayLength), valLen);
  const remaining = valLen - len;
  const output = [];
  for (let i = 0; i < len; i++) {
    if (!ObjectPrototypeHasOwnProperty(value, i)) return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
    push(output, formatProperty(ctx, value, recurseTimes, i, kArrayType));
  }
  if (remaining > 0) push(output, remainingText(remaining));
  return output;
}

// Arrays with holes: runs of missing indices print as `<N empty items>`.
function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
  const keys = ObjectKeys(value);
  let index = i;
  for (; i < keys.length && output.length < maxLength; i++) {
    const key = keys[i];
    const tmp = +key;
    if (tmp > 2 ** 32 - 2) break;
    if ('' + index !== key) {
      if (RegExpPrototypeExec(/^\d+$/, key) === null) break;
      const emptyItems = tmp - index;
      const ending = emptyItems > 1 ? 's' : '';
      push(output, '<' + emptyItems + ' empty item' + ending + '>');
      index = tmp;
      if (output.length === maxLength) break;
    }
    push(output, formatProperty(ctx, value, recurseTimes, key, kArrayType));
    index++;
  }
  const remaining = value.length - index;
  if (output.length !== maxLength) {
    if (remaining > 0) {
      push(output, '<' + remaining + ' empty item' + (remaining > 1 ? 's' : '') + '>');
    }
  } else if (remaining > 0) {
    push(output, remainingText(remaining));
  }
  return output;
}

function formatTypedArray(value, length, ctx) {
  const maxLength = MathMin(MathMax(0, ctx.maxArrayLength), length);
  const remaining = length - maxLength;
  const output = [];
  for (let i = 0; i < maxLength; ++i) {
    const element = value[i];
    push(output, typeof element === 'number' ? formatNumber(element) : '' + element + 'n');
  }
  if (remaining > 0) push(output, remainingText(remaining));
  return output;
}

function formatArrayBuffer(ctx, value) {
  const bytes = new Uint8ArrayCtor(value);
  const shown = MathMin(ctx.maxArrayLength, bytes.length);
  let contents = '';
  for (let i = 0; i < shown; i++) {
    const hex = NumberPrototypeToString(bytes[i], 16);
    contents += (i === 0 ? '' : ' ') + (hex.length === 1 ? '0' + hex : hex);
  }
  const remaining = bytes.length - shown;
  if (remaining > 0) contents += ' ... ' + remaining + ' more byte' + (remaining > 1 ? 's' : '');
  return ['[Uint8Contents]: <' + contents + '>', '[byteLength]: ' + formatValue(ctx, bytes.length, 0)];
}

// Node 22 and later show a DataView's view of its buffer, in brackets as hidden values.
function formatDataView(ctx, value, recurseTimes) {
  return [
    '[byteLength]: ' + formatValue(ctx, DataViewPrototypeGetByteLength(value), recurseTimes),
    '[byteOffset]: ' + formatValue(ctx, DataViewPrototypeGetByteOffset(value), recurseTimes),
    '[buffer]: ' + formatValue(ctx, DataViewPrototypeGetBuffer(value), recurseTimes),
  ];
}

function formatIterated(ctx, iterator, next, size, recurseTimes, entries) {
  const maxLength = MathMin(MathMax(0, ctx.maxArrayLength), size);
  const output = [];
  ctx.indentationLvl += 2;
  for (let i = 0; i < maxLength; i++) {
    const step = next(iterator);
    if (step.done) break;
    push(output, entries
      ? formatValue(ctx, step.value[0], recurseTimes) + ' => ' + formatValue(ctx, step.value[1], recurseTimes)
      : formatValue(ctx, step.value, recurseTimes));
  }
  if (size > maxLength) push(output, remainingText(size - maxLength));
  ctx.indentationLvl -= 2;
  return output;
}

function formatPromise(ctx, value, recurseTimes) {
  const details = getPromiseDetails(value);
  const state = details[0];
  const result = details[1];
  if (state === 0) return ['<pending>'];
  ctx.indentationLvl += 2;
  const str = formatValue(ctx, result, recurseTimes);
  ctx.indentationLvl -= 2;
  return [state === 2 ? '<rejected> ' + str : str];
}

function formatProperty(ctx, value, recurseTimes, key, type) {
  let name;
  let str;
  const desc = ObjectGetOwnPropertyDescriptor(value, key) || { value: value[key], enumerable: true };
  const data = ownValue(desc, 'value');
  const getter = ownValue(desc, 'get');
  const setter = ownValue(desc, 'set');
  if (data !== undefined) {
    ctx.indentationLvl += 2;
    str = formatValue(ctx, data, recurseTimes);
    ctx.indentationLvl -= 2;
  } else if (getter !== undefined) {
    str = setter !== undefined ? '[Getter/Setter]' : '[Getter]';
  } else if (setter !== undefined) {
    str = '[Setter]';
  } else {
    str = 'undefined';
  }
  if (type === kArrayType) return str;
  if (typeof key === 'symbol') {
    name = '[' + SymbolPrototypeToString(key) + ']';
  } else if (key !== '__proto__' && ownValue(desc, 'enumerable') === false) {
    name = '[' + key + ']';
  } else {
    name = formatKey(key);
  }
  return name + ': ' + str;
}

// Whether `key` matches /^[a-zA-Z_][a-zA-Z_0-9]*$/, tested without a regular expression: V8 compiles
// one anew in every isolate (about 70 us), and most objects a run logs have keys.
function isPlainKey(key) {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const point = StringPrototypeCharCodeAt(key, i);
    const letter = (point >= 65 && point <= 90) || (point >= 97 && point <= 122) || point === 95;
    if (!letter && (i === 0 || point < 48 || point > 57)) return false;
  }
  return true;
}

// An enumerable string key as it reads before its value.
function formatKey(key) {
  if (key === '__proto__') return "['__proto__']";
  if (isPlainKey(key)) return key;
  return strEscape(key);
}

function groupArrayElements(ctx, output, value) {
  let totalLength = 0;
  let maxLength = 0;
  let i = 0;
  let outputLength = output.length;
  if (ctx.maxArrayLength < output.length) outputLength--;
  const separatorSpace = 2;
  const dataLen = [];
  for (; i < outputLength; i++) {
    const len = output[i].length;
    dataLen[i] = len;
    totalLength += len + separatorSpace;
    if (maxLength < len) maxLength = len;
  }
  const actualMax = maxLength + separatorSpace;
  if (actualMax * 3 + ctx.indentationLvl < ctx.breakLength &&
    (totalLength / actualMax > 5 || maxLength <= 6)) {
    const approxCharHeights = 2.5;
    const averageBias = MathSqrt(actualMax - totalLength / output.length);
    const biasedMax = MathMax(actualMax - 3 - averageBias, 1);
    const columns = MathMin(
      MathRound(MathSqrt(approxCharHeights * biasedMax * outputLength) / biasedMax),
      MathFloor((ctx.breakLength - ctx.indentationLvl) / actualMax),
      ctx.compact * 4,
      15,
    );
    if (columns <= 1) return output;
    const tmp = [];
    const maxLineLength = [];
    for (let c = 0; c < columns; c++) {
      let lineLength = 0;
      for (let j = c; j < output.length; j += columns) {
        if (dataLen[j] > lineLength) lineLength = dataLen[j];
      }
      push(maxLineLength, lineLength + separatorSpace);
    }
    let padStart = true;
    if (value !== undefined) {
      for (let k = 0; k < output.length; k++) {
        if (typeof value[k] !== 'number' && typeof value[k] !== 'bigint') {
          padStart = false;
          break;
        }
      }
    }
    for (let r = 0; r < outputLength; r += columns) {
      const max = MathMin(r + columns, outputLength);
      let str = '';
      let j = r;
      for (; j < max - 1; j++) {
        str += pad(output[j] + ', ', maxLineLength[j - r], padStart);
      }
      if (padStart) {
        str += pad(output[j], maxLineLength[j - r] - separatorSpace, true);
      } else {
        str += output[j];
      }
      push(tmp, str);
    }
    if (ctx.maxArrayLength < output.length) push(tmp, output[outputLength]);
    output = tmp;
  }
  return output;
}

function pad(text, width, atStart) {
  const fill = width > text.length ? StringPrototypeRepeat(' ', width - text.length) : '';
  return atStart ? fill + text : text + fill;
}

function isBelowBreakLength(ctx, output, start, base) {
  let totalLength = output.length + start;
  if (totalLength + output.length > ctx.breakLength) return false;
  for (let i = 0; i < output.length; i++) {
    totalLength += output[i].length;
    if (totalLength > ctx.breakLength) return false;
  }
  return base === '' || !StringPrototypeIncludes(base, '\n');
}

function reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value) {
  const entries = output.length;
  if (extrasType === kArrayExtrasType && entries > 6) output = groupArrayElements(ctx, output, value);
  if (ctx.currentDepth - recurseTimes < ctx.compact && entries === output.length) {
    const start = output.length + ctx.indentationLvl + braces[0].length + base.length + 10;
    if (isBelowBreakLength(ctx, output, start, base)) {
      const joined = join(output, ', ');
      if (!StringPrototypeIncludes(joined, '\n')) {
        return (base ? base + ' ' : '') + braces[0] + ' ' + joined + ' ' + braces[1];
      }
    }
  }
  const indentation = '\n' + StringPrototypeRepeat(' ', ctx.indentationLvl);
  return (base ? base + ' ' : '') + braces[0] + indentation + '  ' +
    join(output, ',' + indentation + '  ') + indentation + braces[1];
}

// The commonest thing a program logs, an object of the Object constructor whose own properties are
// all enumerable data properties holding primitives: rendered to the text formatRaw gives it, but
// without formatRaw's search for the kind of value, which in a fresh isolate (every line runs
// cold) was most of a line's cost. `undefined` for anything else, before any of it is rendered.
function formatFlatObject(ctx, value, recurseTimes) {
  if (typeof value !== 'object' || ctx.showHidden || ctx.sorted || recurseTimes > ctx.depth ||
    isArgumentsObject(value) || ObjectGetOwnPropertySymbols(value).length !== 0) {
    return undefined;
  }
  const keys = ObjectGetOwnPropertyNames(value);
  if (keys.length === 0) return '{}';
  const output = [];
  for (let i = 0; i < keys.length; i++) {
    const desc = ObjectGetOwnPropertyDescriptor(value, keys[i]);
    if (!ObjectPrototypeHasOwnProperty(desc, 'value') || ownValue(desc, 'enumerable') !== true) return undefined;
    const data = ownValue(desc, 'value');
    if (isObject(data)) return undefined;
    // Rendering a primitive runs none of the program's code, so giving up after it loses nothing.
    ctx.indentationLvl += 2;
    const str = data === null ? 'null' : formatPrimitive(data, ctx);
    ctx.indentationLvl -= 2;
    push(output, formatKey(keys[i]) + ': ' + str);
  }
  ctx.currentDepth = recurseTimes + 1;
  return reduceToSingleString(ctx, output, '', ['{', '}'], kObjectType, recurseTimes + 1, value);
}

// What kind of value it is, as far as both renderers need to know: they share these reads, which a
// program's getters can observe, so each happens once.
function formatObject(ctx, value, recurseTimes) {
  const constructor = getConstructorName(value, ctx, recurseTimes);
  let tag = value[SymbolToStringTag];
  if (typeof tag !== 'string' || (tag !== '' && ObjectPrototypePropertyIsEnumerable(value, SymbolToStringTag))) {
    tag = '';
  }
  const iterable = value[SymbolIterator];
  if (!iterable && constructor === 'Object' && tag === '') {
    const flat = formatFlatObject(ctx, value, recurseTimes);
    if (flat !== undefined) return flat;
  }
  return formatRaw(ctx, value, recurseTimes, constructor, tag, iterable);
}

function formatRaw(ctx, value, recurseTimes, constructor, tag, iterable) {
  let keys;
  let base = '';
  let formatter = () => [];
  let braces;
  let noIterator = true;
  let extrasType = kObjectType;
  if (iterable || constructor === null) {
    noIterator = false;
    if (ArrayIsArray(value)) {
      const prefix = constructor !== 'Array' || tag !== '' ? getPrefix(constructor, tag, 'Array', '(' + value.length + ')') : '';
      keys = getNonIndexPropertyNames(value, ctx.showHidden ? ALL_PROPERTIES : ONLY_ENUMERABLE);
      braces = [prefix + '[', ']'];
      if (value.length === 0 && keys.length === 0) return braces[0] + ']';
      extrasType = kArrayExtrasType;
      formatter = formatArray;
    } else if (isSet(value)) {
      const size = SetPrototypeGetSize(value);
      const prefix = getPrefix(constructor, tag, 'Set', '(' + size + ')');
      keys = getKeys(value, ctx);
      formatter = (ctx, _value, recurseTimes) => formatIterated(ctx, SetPrototypeValues(value), SetIteratorNext, size, recurseTimes, false);
      if (size === 0 && keys.length === 0) return prefix + '{}';
      braces = [prefix + '{', '}'];
    } else if (isMap(value)) {
      const size = MapPrototypeGetSize(value);
      const prefix = getPrefix(constructor, tag, 'Map', '(' + size + ')');
      keys = getKeys(value, ctx);
      formatter = (ctx, _value, recurseTimes) => formatIterated(ctx, MapPrototypeEntries(value), MapIteratorNext, size, recurseTimes, true);
      if (size === 0 && keys.length === 0) return prefix + '{}';
      braces = [prefix + '{', '}'];
    } else if (isTypedArray(value)) {
      keys = getNonIndexPropertyNames(value, ctx.showHidden ? ALL_PROPERTIES : ONLY_ENUMERABLE);
      const fallback = constructor === null ? TypedArrayPrototypeGetSymbolToStringTag(value) : '';
      const size = TypedArrayPrototypeGetLength(value);
      const prefix = getPrefix(constructor, tag, fallback, '(' + size + ')');
      braces = [prefix + '[', ']'];
      if (size === 0 && keys.length === 0) return braces[0] + ']';
      formatter = (ctx) => formatTypedArray(value, size, ctx);
      extrasType = kArrayExtrasType;
    } else if (isMapIterator(value) || isSetIterator(value)) {
      keys = getKeys(value, ctx);
      const kind = isMapIterator(value) ? 'Map Iterator' : 'Set Iterator';
      braces = ['[' + (tag || kind) + '] {', '}'];
      formatter = () => [];
    } else {
      noIterator = true;
    }
  }
  if (noIterator) {
    keys = getKeys(value, ctx);
    braces = ['{', '}'];
    if (typeof value === 'function') {
      base = getFunctionBase(value, constructor, tag);
      if (keys.length === 0) return base;
    } else if (constructor === 'Object') {
      if (isArgumentsObject(value)) {
        braces[0] = '[Arguments] {';
      } else if (tag !== '') {
        braces[0] = getPrefix(constructor, tag, 'Object') + '{';
      }
      if (keys.length === 0) return braces[0] + '}';
    } else if (isRegExp(value)) {
      base = RegExpPrototypeToString(value);
      const prefix = getPrefix(constructor, tag, 'RegExp');
      if (prefix !== 'RegExp ') base = prefix + base;
      if (keys.length === 0 || recurseTimes > ctx.depth) return base;
    } else if (isDate(value)) {
      base = NumberIsNaN(DatePrototypeGetTime(value)) ? DatePrototypeToString(value) : DatePrototypeToISOString(value);
      const prefix = getPrefix(constructor, tag, 'Date');
      if (prefix !== 'Date ') base = prefix + base;
      if (keys.length === 0) return base;
    } else if (isNativeError(value)) {
      base = formatError(value, constructor, tag, ctx, keys);
      if (keys.length === 0) return base;
    } else if (isAnyArrayBuffer(value)) {
      const prefix = getPrefix(constructor, tag, 'ArrayBuffer');
      formatter = (ctx) => formatArrayBuffer(ctx, value);
      braces[0] = prefix + '{';
    } else if (isDataView(value)) {
      braces[0] = getPrefix(constructor, tag, 'DataView') + '{';
      formatter = formatDataView;
    } else if (isPromise(value)) {
      braces[0] = getPrefix(constructor, tag, 'Promise') + '{';
      formatter = formatPromise;
    } else if (isWeakSet(value)) {
      braces[0] = getPrefix(constructor, tag, 'WeakSet') + '{';
      formatter = () => ['<items unknown>'];
    } else if (isWeakMap(value)) {
      braces[0] = getPrefix(constructor, tag, 'WeakMap') + '{';
      formatter = () => ['<items unknown>'];
    } else if (isBoxedPrimitive(value)) {
      base = getBoxedBase(value, ctx, keys, constructor, tag);
      if (keys.length === 0) return base;
    } else {
      if (keys.length === 0) return getPrefix(constructor, tag, 'Object') + '{}';
      braces[0] = getPrefix(constructor, tag, 'Object') + '{';
    }
  }
  if (recurseTimes > ctx.depth) {
    let constructorName = StringPrototypeSliceForInspect(getPrefix(constructor, tag, 'Object'), 0, -1);
    if (constructor !== null) constructorName = '[' + constructorName + ']';
    return constructorName;
  }
  recurseTimes += 1;
  push(ctx.seen, value);
  ctx.currentDepth = recurseTimes;
  let output = formatter(ctx, value, recurseTimes);
  for (let i = 0; i < keys.length; i++) {
    push(output, formatProperty(ctx, value, recurseTimes, keys[i], kObjectType));
  }
  if (ctx.sorted) {
    // Node sorts a plain object's entries, and of anything else only its extra keys.
    const comparator = ctx.sorted === true ? undefined : ctx.sorted;
    if (extrasType === kObjectType) {
      output = ArrayPrototypeSort(output, comparator);
    } else if (keys.length > 1) {
      const extras = ArrayPrototypeSort(ArrayPrototypeSlice(output, output.length - keys.length), comparator);
      ArrayPrototypeSplice(output, output.length - keys.length, keys.length, ...extras);
    }
  }
  if (ctx.circular !== undefined) {
    const index = MapPrototypeGetForInspect(ctx.circular, value);
    if (index !== undefined) {
      const reference = '<ref *' + index + '>';
      base = base === '' ? reference : reference + ' ' + base;
    }
  }
  ctx.seen.length -= 1;
  return reduceToSingleString(ctx, output, base, braces, extrasType, recurseTimes, value);
}

function formatValue(ctx, value, recurseTimes) {
  if (typeof value !== 'object' && typeof value !== 'function') return formatPrimitive(value, ctx);
  if (value === null) return 'null';
  const context = value;
  const proxy = getProxyDetails(value);
  if (proxy !== null) {
    if (proxy[0] === null) return '<Revoked Proxy>';
    value = proxy[0];
  }
  const custom = proxy === null ? value[customInspectSymbol] : undefined;
  if (typeof custom === 'function' && custom !== inspect) {
    const depth = ctx.depth - recurseTimes;
    const result = InspectReflectApply(custom, context, [depth, { depth, breakLength: ctx.breakLength }, inspect]);
    if (result !== context) {
      if (typeof result !== 'string') return formatValue(ctx, result, recurseTimes);
      return result;
    }
  }
  if (includes(ctx.seen, value)) {
    let index = 1;
    if (ctx.circular === undefined) {
      ctx.circular = new MapCtorForInspect();
      MapPrototypeSetForInspect(ctx.circular, value, index);
    } else {
      index = MapPrototypeGetForInspect(ctx.circular, value);
      if (index === undefined) {
        index = MapPrototypeGetSizeForInspect(ctx.circular) + 1;
        MapPrototypeSetForInspect(ctx.circular, value, index);
      }
    }
    return '[Circular *' + index + ']';
  }
  return formatObject(ctx, value, recurseTimes);
}

const DEFAULTS = {
  depth: 4,
  maxArrayLength: 100,
  maxStringLength: 10000,
  breakLength: 80,
  compact: 3,
};

// What formatPrimitive reads, with the console's defaults: a number logged needs no other context.
const PRIMITIVE_CTX = {
  indentationLvl: 0,
  maxStringLength: DEFAULTS.maxStringLength,
  breakLength: DEFAULTS.breakLength,
};

/** Renders `value` as Node's util.inspect does; `options` overrides the console's defaults. */
export function inspect(value, options) {
  if (options === undefined && typeof value !== 'object' && typeof value !== 'function') {
    return formatPrimitive(value, PRIMITIVE_CTX);
  }
  const ctx = {
    seen: [],
    circular: undefined,
    indentationLvl: 0,
    currentDepth: 0,
    depth: DEFAULTS.depth,
    maxArrayLength: DEFAULTS.maxArrayLength,
    maxStringLength: DEFAULTS.maxStringLength,
    breakLength: DEFAULTS.breakLength,
    compact: DEFAULTS.compact,
    showHidden: false,
    sorted: false,
  };
  if (options !== null && typeof options === 'object') {
    // The first three take null for no limit.
    const keys = ['depth', 'maxArrayLength', 'maxStringLength', 'breakLength', 'compact', 'showHidden', 'sorted'];
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const option = options[key];
      if (option !== undefined) ctx[key] = option === null && i < 3 ? Infinity : option;
    }
  }
  return formatValue(ctx, value, 0);
}

// Rendered once while the snapshot is made, so that the renderer is in it already compiled: the
// first console line of every run parsed and compiled it (about 1.4 ms here).
class Warm {}
inspect([{ a: 1, b: 'x', c: [1, 2.5, -0], d: null, e: undefined, f: true, g: 1n, h: Symbol('s'), i() {} }, new Warm(),
  new MapCtorForInspect([[1, { k: 'v' }]]), new Set(['s']), new Error('e'), new Date(0), /r/g, new Uint8Array(2), 'q\n']);
