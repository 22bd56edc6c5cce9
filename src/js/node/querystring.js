// node:querystring, its leniency and quirks as Node has them.

import { primordials } from 'ext:core/mod.js';
import { split } from 'ext:dsh/long_strings.js';
import { Buffer } from 'node:buffer';

const {
  ArrayIsArray,
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  decodeURIComponent,
  encodeURIComponent,
  NumberIsFinite,
  NumberIsInteger,
  ObjectDefineProperty,
  ObjectKeys,
  RegExpPrototypeExec,
  String,
  StringPrototypeCharCodeAt,
  StringPrototypeIndexOf,
  StringPrototypeReplace,
  StringPrototypeSlice,
  URIError,
} = primordials;

const PLUS = 43;
const PERCENT = 37;

function hexValue(code) {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

// Decodes the valid %XX escapes of `text` (and '+' as a space when asked) and keeps the rest;
// a character past Latin-1 keeps only its low byte, as Node's does.
function unescapeBuffer(text, decodeSpaces) {
  const bytes = Buffer.allocUnsafe(text.length);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = StringPrototypeCharCodeAt(text, i);
    if (code === PLUS && decodeSpaces) {
      bytes[length++] = 32;
      continue;
    }
    if (code === PERCENT && i + 2 < text.length) {
      const high = hexValue(StringPrototypeCharCodeAt(text, i + 1));
      const low = hexValue(StringPrototypeCharCodeAt(text, i + 2));
      if (high !== -1 && low !== -1) {
        bytes[length++] = high * 16 + low;
        i += 2;
        continue;
      }
    }
    bytes[length++] = code & 0xff;
  }
  return bytes.subarray(0, length);
}

function unescape(text, decodeSpaces) {
  try {
    return decodeURIComponent(text);
  } catch {
    return unescapeBuffer(text, decodeSpaces).toString();
  }
}

function escape(text) {
  if (typeof text !== 'string') text = typeof text === 'object' ? String(text) : `${text}`;
  try {
    return encodeURIComponent(text);
  } catch {
    const error = new URIError('URI malformed');
    ObjectDefineProperty(error, 'name', { __proto__: null, value: 'URIError [ERR_INVALID_URI]', configurable: true });
    error.stack;
    delete error.name;
    error.code = 'ERR_INVALID_URI';
    throw error;
  }
}

function primitiveText(value) {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return NumberIsFinite(value) ? `${value}` : '';
  if (typeof value === 'bigint') return `${value}`;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return '';
}

function stringify(object, sep, eq, options) {
  if (object === null || typeof object !== 'object') return '';
  sep = sep ? `${sep}` : '&';
  eq = eq ? `${eq}` : '=';
  const encode = typeof options?.encodeURIComponent === 'function' ? options.encodeURIComponent : escape;
  const fields = [];
  const keys = ObjectKeys(object);
  for (let i = 0; i < keys.length; i++) {
    const prefix = `${encode(keys[i])}${eq}`;
    const value = object[keys[i]];
    if (ArrayIsArray(value)) {
      for (let j = 0; j < value.length; j++) ArrayPrototypePush(fields, `${prefix}${encode(primitiveText(value[j]))}`);
    } else {
      ArrayPrototypePush(fields, `${prefix}${encode(primitiveText(value))}`);
    }
  }
  return ArrayPrototypeJoin(fields, sep);
}

// How many valid %XX escapes Node's parse sees in `text` (up to two); in a value it looks past
// each '+', in a key it does not.
function escapesSeen(text, isValue) {
  const plain = isValue ? StringPrototypeReplace(text, /\+/g, '') : text;
  if (RegExpPrototypeExec(/%[0-9a-fA-F]{2}[^]*%[0-9a-fA-F]{2}/, plain) !== null) return 2;
  return RegExpPrototypeExec(/%[0-9a-fA-F]{2}/, plain) !== null ? 1 : 0;
}

// As Node's parse: by default '+' is a space and only text with a valid %XX escape is decoded
// (or, Node's quirk, a value whose key has two); a custom decoder gets all non-empty text, with
// '+' as '%20'. Text a decoder throws on is unescaped leniently.
function decodeText(text, decode, isValue, force) {
  if (decode === undefined) {
    const escaped = force || escapesSeen(text, isValue) > 0;
    text = StringPrototypeReplace(text, /\+/g, ' ');
    return escaped ? unescape(text, true) : text;
  }
  if (text.length === 0) return text;
  text = StringPrototypeReplace(text, /\+/g, '%20');
  try {
    return decode(text);
  } catch {
    return unescape(text, true);
  }
}

function parse(query, sep, eq, options) {
  const result = { __proto__: null };
  if (typeof query !== 'string' || query.length === 0) return result;
  sep = sep ? `${sep}` : '&';
  eq = eq ? `${eq}` : '=';
  const decode = typeof options?.decodeURIComponent === 'function' ? options.decodeURIComponent : undefined;
  const maxKeys = typeof options?.maxKeys === 'number' ? options.maxKeys : 1000;
  const pairs = split(query, sep);
  // Node counts empty pairs too, and only a positive whole number limits.
  const count = maxKeys > 0 && NumberIsInteger(maxKeys) && maxKeys < pairs.length ? maxKeys : pairs.length;
  for (let i = 0; i < count; i++) {
    const pair = pairs[i];
    if (pair.length === 0) continue;
    const at = StringPrototypeIndexOf(pair, eq);
    const rawKey = at === -1 ? pair : StringPrototypeSlice(pair, 0, at);
    const key = decodeText(rawKey, decode, false, false);
    const rawValue = at === -1 ? '' : StringPrototypeSlice(pair, at + eq.length);
    const value = decodeText(rawValue, decode, true, escapesSeen(rawKey, false) === 2);
    const existing = result[key];
    if (existing === undefined) result[key] = value;
    else if (ArrayIsArray(existing)) ArrayPrototypePush(existing, value);
    else result[key] = [existing, value];
  }
  return result;
}

export default {
  unescapeBuffer,
  unescape,
  escape,
  stringify,
  encode: stringify,
  parse,
  decode: parse,
};
export { escape, parse as decode, parse, stringify as encode, stringify, unescape, unescapeBuffer };
