// String built-ins over long strings, kept interruptible.
//
// `RegExp.prototype[Symbol.replace]` and `[Symbol.match]`, and `String.prototype.replaceAll` and
// `split` (with a string pattern), collect every match and build their result in one V8 loop, in
// C++ or Torque, that never checks for termination: `'a'.repeat(3e7).replace(/a/g, 'bb')` went on
// for four seconds after its run had ended, growing to 1 GB, and `'a'.repeat(6e7).match(/a/g)`
// made an array eight times a 64 MB heap cap before anything could stop it. Subjects of up to
// 2^20 characters keep V8's code; longer ones run the specification's algorithm here, one `exec`
// or `indexOf` per match, which the budgets stop like any loop of the program's, while the heap
// cap counts what the loop has built.
//
// A search (`indexOf`, `lastIndexOf`, `includes`, and those of `split` and `replaceAll`) is one step
// of V8's too, and on a periodic needle a quadratic one: `'a'.repeat(2 ** 17)` looked for in a text of
// its length with one other character took 8 s. A search whose worst case passes 2^24 comparisons,
// with a needle of 32 characters or more, runs Knuth-Morris-Pratt here, linear and stopped by the
// budgets; other texts longer than 2^20 characters are searched by V8 a window of 2^20 start
// positions at a time.

import { core, primordials } from 'ext:core/mod.js';
import { standInFront } from 'ext:dsh/source_text.js';
import { LONG_LENGTH, isObject, isProxy, toIntegerOrInfinity, toLength, toStringStrict } from 'ext:dsh/abstract_ops.js';

const PIECES_PER_CHUNK = 4096;
// The longest chunk made flat: past it, a chunk's pieces average 4 KiB or more.
const FLAT_CHUNK_LENGTH = PIECES_PER_CHUNK * 4096;
// V8's longest string (String::kMaxLength on 64-bit platforms).
const MAX_STRING_LENGTH = 2 ** 29 - 24;

// V8's own join: main.js evaluates this module before interruptible.js guards it.
const ArrayPrototypeJoin = Array.prototype.join;
const ArrayPrototype = Array.prototype;
const MathMax = Math.max;
const MathMin = Math.min;
const ObjectCtor = Object;
const ObjectSetPrototypeOf = Object.setPrototypeOf;
const ReflectApply = Reflect.apply;
const StringPrototypeCharCodeAt = String.prototype.charCodeAt;
const StringPrototypeIncludes = String.prototype.includes;
const StringPrototypeIndexOf = String.prototype.indexOf;
const StringPrototypeLastIndexOf = String.prototype.lastIndexOf;
const StringPrototypeReplace = String.prototype.replace;
const Uint16ArrayCtor = Uint16Array;
const Int32ArrayCtor = Int32Array;
const StringPrototypeReplaceAll = String.prototype.replaceAll;
const StringPrototypeSplit = String.prototype.split;
const SymbolMatch = Symbol.match;
const SymbolSplit = Symbol.split;
const StringPrototypeSlice = String.prototype.slice;
const SymbolReplace = Symbol.replace;
const TypeErrorCtor = TypeError;
const RangeErrorCtor = RangeError;
const RegExpPrototypeExec = RegExp.prototype.exec;
const RegExpPrototypeReplace = RegExp.prototype[SymbolReplace];
const RegExpPrototypeMatch = RegExp.prototype[SymbolMatch];
const RegExpPrototypeSplit = RegExp.prototype[SymbolSplit];
const RegExpCtor = RegExp;
const RegExpPrototype = RegExp.prototype;
const SymbolSpecies = Symbol.species;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectHasOwn = Object.hasOwn;

const NO_CAPTURES = { __proto__: null, length: 0 };

const slice = (text, start, end) => ReflectApply(StringPrototypeSlice, text, end === undefined ? [start] : [start, end]);
const SEARCH_WINDOW = LONG_LENGTH;

const QUADRATIC_WORK = 2 ** 24;
const QUADRATIC_NEEDLE = 32;
/** Whether V8's search for a needle this long, over this much text, may take seconds. */
const quadraticRisk = (textLength, needleLength) => needleLength >= QUADRATIC_NEEDLE && textLength * needleLength > QUADRATIC_WORK;
/** Whether V8's own search may take `text` and `search` as they are: both strings, and quick. */
const nativeSearch = (text, search) => typeof text === 'string' && typeof search === 'string'
  && text.length <= LONG_LENGTH && !quadraticRisk(text.length, search.length);

/** The needle's code units, last first if `reversed`, and its prefix function. */
function kmpNeedle(search, reversed) {
  const m = search.length;
  const units = new Uint16ArrayCtor(m);
  for (let i = 0; i < m; i++) units[i] = codeAt(search, reversed ? m - 1 - i : i);
  const table = new Int32ArrayCtor(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && units[k] !== units[i]) k = table[k - 1];
    if (units[k] === units[i]) k++;
    table[i] = k;
  }
  return { units, table };
}

function kmpForward(text, search, from) {
  const { units, table } = kmpNeedle(search, false);
  const m = search.length;
  for (let i = from, k = 0; i < text.length; i++) {
    const unit = codeAt(text, i);
    while (k > 0 && units[k] !== unit) k = table[k - 1];
    if (units[k] === unit && ++k === m) return i - m + 1;
  }
  return -1;
}

/** The needle read backwards, over the text read backwards from the last place a match may end. */
function kmpBackward(text, search, from) {
  const { units, table } = kmpNeedle(search, true);
  const m = search.length;
  for (let i = MathMin(from + m, text.length) - 1, k = 0; i >= 0; i--) {
    const unit = codeAt(text, i);
    while (k > 0 && units[k] !== unit) k = table[k - 1];
    if (units[k] === unit && ++k === m) return i;
  }
  return -1;
}

/** The first match of `search` in `text` at or after `from` (in `[0, text.length]`), a window at a time. */
function searchForward(text, search, from) {
  if (search.length === 0) return from;
  if (quadraticRisk(text.length - from, search.length)) return kmpForward(text, search, from);
  const last = text.length - search.length;
  for (let at = from; at <= last; at += SEARCH_WINDOW) {
    const window = slice(text, at, MathMin(text.length, at + SEARCH_WINDOW + search.length - 1));
    const found = ReflectApply(StringPrototypeIndexOf, window, [search]);
    if (found !== -1) return at + found;
  }
  return -1;
}

/** The last match of `search` in `text` at or before `from` (in `[0, text.length]`), a window at a time. */
function searchBackward(text, search, from) {
  if (quadraticRisk(MathMin(from + search.length, text.length), search.length)) return kmpBackward(text, search, from);
  let end = MathMin(from, text.length - search.length);
  while (end >= 0) {
    const start = MathMax(0, end - SEARCH_WINDOW + 1);
    const found = ReflectApply(StringPrototypeLastIndexOf, slice(text, start, end + search.length), [search]);
    if (found !== -1) return start + found;
    end = start - 1;
  }
  return -1;
}

/** `text.indexOf(search, from)` for a string `search` and an integer `from`. */
const indexOf = (text, search, from) => nativeSearch(text, search)
  ? ReflectApply(StringPrototypeIndexOf, text, [search, from])
  : searchForward(text, search, MathMin(MathMax(from, 0), text.length));
const codeAt = (text, index) => ReflectApply(StringPrototypeCharCodeAt, text, [index]);

function isDigit(unit) {
  return unit >= 0x30 && unit <= 0x39;
}

/** GetSubstitution: expands `$$`, `$&`, `` $` ``, `$'`, `$n`, `$nn` and `$<name>` in `template`. */
function getSubstitution(matched, text, position, captures, namedCaptures, template) {
  let result = '';
  let at = 0;
  while (at < template.length) {
    const dollar = indexOf(template, '$', at);
    if (dollar === -1) return result + slice(template, at);
    result += slice(template, at, dollar);
    at = dollar;
    const next = codeAt(template, at + 1);
    if (next === 0x24) {
      result += '$';
      at += 2;
    } else if (next === 0x60) {
      result += slice(text, 0, position);
      at += 2;
    } else if (next === 0x26) {
      result += matched;
      at += 2;
    } else if (next === 0x27) {
      result += slice(text, MathMin(position + matched.length, text.length));
      at += 2;
    } else if (isDigit(next)) {
      const second = codeAt(template, at + 2);
      let digits = isDigit(second) ? 2 : 1;
      let index = digits === 2 ? (next - 0x30) * 10 + (second - 0x30) : next - 0x30;
      if (index > captures.length && digits === 2) {
        digits = 1;
        index = next - 0x30;
      }
      if (index >= 1 && index <= captures.length) {
        const capture = captures[index - 1];
        if (capture !== undefined) result += capture;
      } else {
        result += slice(template, at, at + 1 + digits);
      }
      at += 1 + digits;
    } else if (next === 0x3c) {
      const close = indexOf(template, '>', at);
      if (close === -1 || namedCaptures === undefined) {
        result += '$<';
        at += 2;
      } else {
        const capture = namedCaptures[slice(template, at + 2, close)];
        if (capture !== undefined) result += toStringStrict(capture);
        at = close + 1;
      }
    } else {
      result += '$';
      at += 1;
    }
  }
  return result;
}

/**
 * Builds the result from its pieces in flat chunks of up to 4 096 pieces, each joined by V8:
 * concatenating piece by piece made a rope of about 60 bytes a match, thirty times the text. A
 * chunk of long pieces (slices of the text, which share its characters) is concatenated instead:
 * flat, it would hold as many bytes as it has characters. Past V8's longest string, a
 * `RangeError`, as V8's own methods throw, before the characters are held.
 */
export function newResult() {
  return { __proto__: null, text: '', length: 0, pending: 0, pieces: { __proto__: null, length: 0 } };
}

export function addPiece(result, piece) {
  const length = result.length + piece.length;
  if (length > MAX_STRING_LENGTH) throw new RangeErrorCtor('Invalid string length');
  result.length = length;
  result.pending += piece.length;
  const pieces = result.pieces;
  pieces[pieces.length++] = piece;
  if (pieces.length === PIECES_PER_CHUNK) flushPieces(result);
}

function flushPieces(result) {
  const pieces = result.pieces;
  if (result.pending > FLAT_CHUNK_LENGTH) {
    for (let i = 0; i < pieces.length; i++) result.text += pieces[i];
  } else {
    result.text += ReflectApply(ArrayPrototypeJoin, pieces, ['']);
  }
  result.pieces = { __proto__: null, length: 0 };
  result.pending = 0;
}

export function finishResult(result) {
  flushPieces(result);
  return result.text;
}

/**
 * A list of results: an array without a prototype while it grows, so that a plain store never
 * meets a setter a program put on Array.prototype, and its elements stay packed.
 */
function newList() {
  return ObjectSetPrototypeOf([], null);
}

/**
 * The array a list becomes: the same object, given Array.prototype. Copying it (V8's `Array.from`
 * over an array-like) was one loop that nothing interrupts: `split('')` of 2M characters, in a
 * loop, went on 400 ms past its run's end.
 */
function toArray(list) {
  return ObjectSetPrototypeOf(list, ArrayPrototype);
}

function advanceStringIndex(text, index, fullUnicode) {
  if (!fullUnicode || index + 1 >= text.length) return index + 1;
  const lead = codeAt(text, index);
  const trail = codeAt(text, index + 1);
  return lead >= 0xd800 && lead <= 0xdbff && trail >= 0xdc00 && trail <= 0xdfff ? index + 2 : index + 1;
}

/** RegExpExec: the regexp's own callable `exec`, else the built-in one. */
function regExpExec(rx, text) {
  const exec = rx.exec;
  return typeof exec === 'function' ? regExpExecResult(ReflectApply(exec, rx, [text])) : ReflectApply(RegExpPrototypeExec, rx, [text]);
}

/** What a program's own `exec` returned, if it may be a match result. */
function regExpExecResult(result) {
  if (result !== null && typeof result !== 'object' && typeof result !== 'function') {
    throw new TypeErrorCtor('RegExp exec method returned something other than an Object or null');
  }
  return result;
}

/** RegExp.prototype[Symbol.match], as the specification writes it. */
function regExpMatch(rx, text) {
  const flags = toStringStrict(rx.flags);
  if (!ReflectApply(StringPrototypeIncludes, flags, ['g'])) return regExpExec(rx, text);
  const fullUnicode = ReflectApply(StringPrototypeIncludes, flags, ['u']) || ReflectApply(StringPrototypeIncludes, flags, ['v']);
  rx.lastIndex = 0;
  const matches = newList();
  for (;;) {
    const result = regExpExec(rx, text);
    if (result === null) return matches.length === 0 ? null : toArray(matches);
    const matched = toStringStrict(result[0]);
    matches[matches.length++] = matched;
    if (matched === '') rx.lastIndex = advanceStringIndex(text, toLength(rx.lastIndex), fullUnicode);
  }
}

/** String.prototype.split for a string separator and a limit both converted. */
function splitByString(text, separator, lim) {
  const parts = newList();
  if (separator.length === 0) {
    const end = MathMin(lim, text.length);
    for (let at = 0; at < end; at++) parts[parts.length++] = slice(text, at, at + 1);
    return toArray(parts);
  }
  let start = 0;
  for (let at = indexOf(text, separator, 0); at !== -1; at = indexOf(text, separator, start)) {
    parts[parts.length++] = slice(text, start, at);
    if (parts.length === lim) return toArray(parts);
    start = at + separator.length;
  }
  parts[parts.length++] = slice(text, start);
  return toArray(parts);
}

/** RegExp.prototype[Symbol.split], as the specification writes it, for the regexp's own species. */
function regExpSplit(rx, text, limit) {
  const flags = toStringStrict(rx.flags);
  const unicodeMatching = ReflectApply(StringPrototypeIncludes, flags, ['u']) || ReflectApply(StringPrototypeIncludes, flags, ['v']);
  const splitter = new RegExpCtor(rx, ReflectApply(StringPrototypeIncludes, flags, ['y']) ? flags : `${flags}y`);
  const lim = limit === undefined ? 2 ** 32 - 1 : (+limit) >>> 0;
  const parts = newList();
  if (lim === 0) return toArray(parts);
  let p = 0;
  let q = 0;
  while (q < text.length) {
    splitter.lastIndex = q;
    const match = regExpExec(splitter, text);
    const end = match === null ? p : MathMin(toLength(splitter.lastIndex), text.length);
    if (end === p) {
      q = advanceStringIndex(text, q, unicodeMatching);
      continue;
    }
    parts[parts.length++] = slice(text, p, q);
    if (parts.length === lim) return toArray(parts);
    p = end;
    const captureCount = MathMax(toLength(match.length) - 1, 0);
    for (let n = 1; n <= captureCount; n++) {
      parts[parts.length++] = match[n];
      if (parts.length === lim) return toArray(parts);
    }
    q = p;
  }
  parts[parts.length++] = slice(text, p, text.length);
  return toArray(parts);
}

/** The count of arguments (the receiver among them) at which V8's replace refuses to call a replacer. */
const MAX_REPLACER_ARGUMENTS = 65535;

/** RegExp.prototype[Symbol.replace], as the specification writes it. */
function regExpReplace(rx, text, replaceValue) {
  const functional = typeof replaceValue === 'function';
  if (!functional) replaceValue = toStringStrict(replaceValue);
  const flags = toStringStrict(rx.flags);
  const global = ReflectApply(StringPrototypeIncludes, flags, ['g']);
  let fullUnicode = false;
  if (global) {
    fullUnicode = ReflectApply(StringPrototypeIncludes, flags, ['u']) || ReflectApply(StringPrototypeIncludes, flags, ['v']);
    rx.lastIndex = 0;
  }
  const accumulated = newResult();
  let nextSourcePosition = 0;
  // A template without `$` is its own replacement, whatever the match captured.
  const literal = !functional && !ReflectApply(StringPrototypeIncludes, replaceValue, ['$']);
  const append = (result) => {
    const captureCount = MathMax(toLength(result.length) - 1, 0);
    const matched = toStringStrict(result[0]);
    const position = MathMax(MathMin(toIntegerOrInfinity(result.index), text.length), 0);
    if (literal && captureCount === 0) {
      if (result.groups === null) throw new TypeErrorCtor('Cannot convert undefined or null to object');
      if (position >= nextSourcePosition) {
        addPiece(accumulated, slice(text, nextSourcePosition, position));
        addPiece(accumulated, replaceValue);
        nextSourcePosition = position + matched.length;
      }
      return;
    }
    // Every capture is read and converted, as the specification does, but only those that can be
    // used are kept: a program's exec may answer a length of 2^32, and keeping them all would fill
    // the heap where V8 throws.
    const kept = functional ? (captureCount + 3 < MAX_REPLACER_ARGUMENTS ? captureCount : 0) : MathMin(captureCount, 99);
    const captures = { __proto__: null, length: captureCount };
    for (let n = 1; n <= captureCount; n++) {
      const capture = result[n];
      const converted = capture === undefined ? undefined : toStringStrict(capture);
      if (n <= kept) captures[n - 1] = converted;
    }
    let namedCaptures = result.groups;
    let replacement;
    if (functional) {
      if (captureCount + 3 + (namedCaptures !== undefined) >= MAX_REPLACER_ARGUMENTS) {
        throw new RangeErrorCtor('Too many arguments in function call (only 65535 allowed)');
      }
      const args = { __proto__: null, 0: matched, length: captureCount + 1 };
      for (let n = 0; n < captureCount; n++) args[1 + n] = captures[n];
      args[args.length++] = position;
      args[args.length++] = text;
      if (namedCaptures !== undefined) args[args.length++] = namedCaptures;
      replacement = toStringStrict(ReflectApply(replaceValue, undefined, args));
    } else {
      if (namedCaptures === null) throw new TypeErrorCtor('Cannot convert undefined or null to object');
      if (namedCaptures !== undefined) namedCaptures = ObjectCtor(namedCaptures);
      replacement = getSubstitution(matched, text, position, captures, namedCaptures, replaceValue);
    }
    if (position >= nextSourcePosition) {
      addPiece(accumulated, slice(text, nextSourcePosition, position));
      addPiece(accumulated, replacement);
      nextSourcePosition = position + matched.length;
    }
  };
  // The specification finds every match before it builds anything. Where building runs no code
  // of the program's (a template, and a match from the built-in `exec`), doing both as it goes
  // looks the same from inside, and keeps one string instead of an array per match.
  let building = !functional;
  // A list of ours is prototype-less: an array would meet setters a program put on Array.prototype.
  const results = { __proto__: null, length: 0 };
  for (;;) {
    const exec = rx.exec;
    const builtIn = typeof exec !== 'function' || exec === RegExpPrototypeExec;
    const result = builtIn ? ReflectApply(RegExpPrototypeExec, rx, [text]) : regExpExecResult(ReflectApply(exec, rx, [text]));
    if (result === null) break;
    building &&= builtIn;
    if (building) append(result);
    else results[results.length++] = result;
    if (!global) break;
    if (toStringStrict(result[0]) === '') rx.lastIndex = advanceStringIndex(text, toLength(rx.lastIndex), fullUnicode);
  }
  for (let r = 0; r < results.length; r++) append(results[r]);
  if (nextSourcePosition < text.length) addPiece(accumulated, slice(text, nextSourcePosition));
  return finishResult(accumulated);
}

/** String.prototype.replaceAll for a string pattern, once any `Symbol.replace` it has is ruled out. */
function replaceAllOfString(text, search, replaceValue) {
  const functional = typeof replaceValue === 'function';
  if (!functional) replaceValue = toStringStrict(replaceValue);
  const advanceBy = MathMax(1, search.length);
  const positions = { __proto__: null, length: 0 };
  // StringIndexOf finds nothing from past the end, where String.prototype.indexOf would clamp.
  for (let at = indexOf(text, search, 0); at !== -1; at = at + advanceBy > text.length ? -1 : indexOf(text, search, at + advanceBy)) {
    positions[positions.length++] = at;
  }
  const result = newResult();
  let endOfLastMatch = 0;
  for (let p = 0; p < positions.length; p++) {
    const position = positions[p];
    const replacement = functional
      ? toStringStrict(ReflectApply(replaceValue, undefined, [search, position, text]))
      : getSubstitution(search, text, position, NO_CAPTURES, undefined, replaceValue);
    addPiece(result, slice(text, endOfLastMatch, position));
    addPiece(result, replacement);
    endOfLastMatch = position + search.length;
  }
  if (endOfLastMatch < text.length) addPiece(result, slice(text, endOfLastMatch));
  return finishResult(result);
}

// Each wrapper converts its arguments once, in the specification's order, and then chooses by
// the length of the text: V8's code gets the converted values, so nothing is converted twice.
// A pattern that is an object (other than a regexp, which comes back through the methods on
// RegExp.prototype) goes to V8's code as it is.

/** Whether V8's replace takes its matches from V8's exec: `rx` is no proxy, has no exec of its own
 * and RegExp.prototype's is V8's, all known without calling the program's code. A program's exec
 * may answer any `length`, and V8's replace reads that many captures in C++ that never checks for
 * termination (2^32 kept a run's thread past it for minutes); regExpReplace reads them here. */
function execIsBuiltIn(rx) {
  if (isProxy(rx) || ObjectHasOwn(rx, 'exec') || ObjectGetPrototypeOf(rx) !== RegExpPrototype) return false;
  const exec = ObjectGetOwnPropertyDescriptor(RegExpPrototype, 'exec');
  return exec !== undefined && exec.value === RegExpPrototypeExec;
}

standInFront(RegExp.prototype, SymbolReplace, {
  [SymbolReplace](string, replaceValue) {
    if (!isObject(this)) return ReflectApply(RegExpPrototypeReplace, this, arguments);
    const text = toStringStrict(string);
    if (text.length <= LONG_LENGTH && execIsBuiltIn(this)) return ReflectApply(RegExpPrototypeReplace, this, [text, replaceValue]);
    return regExpReplace(this, text, replaceValue);
  },
}[SymbolReplace]);

standInFront(RegExp.prototype, SymbolMatch, {
  [SymbolMatch](string) {
    if (!isObject(this)) return ReflectApply(RegExpPrototypeMatch, this, arguments);
    const text = toStringStrict(string);
    if (text.length <= LONG_LENGTH) return ReflectApply(RegExpPrototypeMatch, this, [text]);
    return regExpMatch(this, text);
  },
}[SymbolMatch]);

standInFront(RegExp.prototype, SymbolSplit, {
  [SymbolSplit](string, limit) {
    if (!isObject(this)) return ReflectApply(RegExpPrototypeSplit, this, arguments);
    const text = toStringStrict(string);
    // A species of the program's own makes the splitter: V8's code runs it (reading it again).
    const species = this.constructor;
    if (text.length <= LONG_LENGTH || (species !== undefined && species !== RegExpCtor)
      || (species !== undefined && species[SymbolSpecies] !== RegExpCtor)) {
      return ReflectApply(RegExpPrototypeSplit, this, [text, limit]);
    }
    return regExpSplit(this, text, limit);
  },
}[SymbolSplit]);

// V8's own methods, called as functions of their receiver: in a program's hot loop, each call through
// a wrapper costs less so than through Reflect.apply.
const {
  StringPrototypeSplit: nativeSplit,
  StringPrototypeIndexOf: nativeIndexOf,
  StringPrototypeIncludes: nativeIncludes,
  StringPrototypeLastIndexOf: nativeLastIndexOf,
} = primordials;

const splitMethod = {
  split(separator, limit) {
    // A short text and separator are V8's to split in moments; it looks up a splitter as the steps
    // below do.
    if (nativeSearch(this, separator)) return nativeSplit(this, separator, limit);
    if (this === null || this === undefined || isObject(separator)) return ReflectApply(StringPrototypeSplit, this, arguments);
    if (separator !== undefined && separator !== null) {
      const splitter = separator[SymbolSplit];
      if (splitter !== undefined && splitter !== null) {
        return typeof splitter === 'function'
          ? ReflectApply(splitter, separator, [this, limit])
          : ReflectApply(StringPrototypeSplit, this, arguments);
      }
    }
    const text = toStringStrict(this);
    const lim = limit === undefined ? 2 ** 32 - 1 : (+limit) >>> 0;
    const pattern = toStringStrict(separator);
    if (nativeSearch(text, pattern)) {
      return ReflectApply(StringPrototypeSplit, text, [separator === undefined ? undefined : pattern, lim]);
    }
    const parts = newList();
    if (lim === 0) return toArray(parts);
    if (separator === undefined) {
      parts[0] = text;
      return toArray(parts);
    }
    return splitByString(text, pattern, lim);
  },
}.split;
standInFront(String.prototype, 'split', splitMethod);

/** `String.prototype.split` as installed here, for the world's own modules: V8's own splits a long
 * text in one step that nothing stops (a query of 4M parameters took 0.7 s). */
export const split = (text, separator, limit) => ReflectApply(splitMethod, text, [separator, limit]);

standInFront(String.prototype, 'indexOf', {
  indexOf(searchString, position) {
    if (nativeSearch(this, searchString) || this === null || this === undefined) return nativeIndexOf(this, searchString, position);
    const text = toStringStrict(this);
    const search = toStringStrict(searchString);
    return indexOf(text, search, toIntegerOrInfinity(position));
  },
}.indexOf);

standInFront(String.prototype, 'includes', {
  includes(searchString, position) {
    // A regexp is refused by V8's code, which asks any object whether it is one.
    if (nativeSearch(this, searchString) || this === null || this === undefined || isObject(searchString)) {
      return nativeIncludes(this, searchString, position);
    }
    const text = toStringStrict(this);
    const search = toStringStrict(searchString);
    return indexOf(text, search, toIntegerOrInfinity(position)) !== -1;
  },
}.includes);

standInFront(String.prototype, 'lastIndexOf', {
  lastIndexOf(searchString, position) {
    if (nativeSearch(this, searchString) || this === null || this === undefined) {
      return nativeLastIndexOf(this, searchString, position);
    }
    const text = toStringStrict(this);
    const search = toStringStrict(searchString);
    const number = +position;
    const from = number !== number ? text.length : toIntegerOrInfinity(number);
    if (!nativeSearch(text, search)) return searchBackward(text, search, MathMin(MathMax(from, 0), text.length));
    return ReflectApply(StringPrototypeLastIndexOf, text, [search, from]);
  },
}.lastIndexOf);

standInFront(String.prototype, 'replace', {
  replace(searchValue, replaceValue) {
    if (this === null || this === undefined || isObject(searchValue)) return ReflectApply(StringPrototypeReplace, this, arguments);
    if (searchValue !== undefined && searchValue !== null) {
      const replacer = searchValue[SymbolReplace];
      if (replacer !== undefined && replacer !== null) {
        return typeof replacer === 'function'
          ? ReflectApply(replacer, searchValue, [this, replaceValue])
          : ReflectApply(StringPrototypeReplace, this, arguments);
      }
    }
    const text = toStringStrict(this);
    const search = toStringStrict(searchValue);
    if (nativeSearch(text, search)) return ReflectApply(StringPrototypeReplace, text, [search, replaceValue]);
    const functional = typeof replaceValue === 'function';
    if (!functional) replaceValue = toStringStrict(replaceValue);
    const position = indexOf(text, search, 0);
    if (position === -1) return text;
    const replacement = functional
      ? toStringStrict(ReflectApply(replaceValue, undefined, [search, position, text]))
      : getSubstitution(search, text, position, NO_CAPTURES, undefined, replaceValue);
    return slice(text, 0, position) + replacement + slice(text, position + search.length);
  },
}.replace);

standInFront(String.prototype, 'replaceAll', {
  replaceAll(searchValue, replaceValue) {
    if (this === null || this === undefined || isObject(searchValue)) {
      return ReflectApply(StringPrototypeReplaceAll, this, arguments);
    }
    if (searchValue !== undefined && searchValue !== null) {
      const replacer = searchValue[SymbolReplace];
      if (replacer !== undefined && replacer !== null) {
        return typeof replacer === 'function'
          ? ReflectApply(replacer, searchValue, [this, replaceValue])
          : ReflectApply(StringPrototypeReplaceAll, this, arguments);
      }
    }
    const text = toStringStrict(this);
    const search = toStringStrict(searchValue);
    if (nativeSearch(text, search)) return ReflectApply(StringPrototypeReplaceAll, text, [search, replaceValue]);
    return replaceAllOfString(text, search, replaceValue);
  },
}.replaceAll);

// The global URI and escape functions walk their whole text in one C++ loop: encodeURIComponent of
// 2^28 characters ran on for 0.8 s after its run had ended, unescape of 2^26 escapes for 1.3 s.
// Past 2^20 characters the text goes to V8's function a piece at a time, cut where no escape
// sequence (`%XX`, `%uXXXX`) and no surrogate pair or UTF-8 sequence spans the cut, so the pieces'
// results join to the whole's and a malformed text throws the same URIError.

const PERCENT = 0x25;

function hexDigit(unit) {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  const lower = unit | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** Whether a cut at `at` leaves every escape and encoded sequence whole on one side. */
function cutsCleanly(text, at) {
  const before = codeAt(text, at - 1);
  if (before >= 0xd800 && before <= 0xdbff) return false;
  if (before === PERCENT || codeAt(text, at - 2) === PERCENT) return false;
  for (let back = 3; back <= 5; back++) {
    if (codeAt(text, at - back) === PERCENT && codeAt(text, at - back + 1) === 0x75) return false;
  }
  if (codeAt(text, at) !== PERCENT) return true;
  // An escaped UTF-8 continuation byte belongs with the bytes before it.
  const high = hexDigit(codeAt(text, at + 1));
  const low = hexDigit(codeAt(text, at + 2));
  return high < 0 || low < 0 || (high >> 2) !== 2;
}

/** `native(text)`, in pieces of about LONG_LENGTH characters for a long text. */
function inPieces(native, text) {
  if (text.length <= LONG_LENGTH) return native(text);
  let result = '';
  let start = 0;
  while (start < text.length) {
    let end = start + LONG_LENGTH;
    // A text with no clean cut near the mark (no such text is well formed) goes whole.
    const last = MathMin(text.length, end + 4096);
    while (end < last && !cutsCleanly(text, end)) end++;
    if (end >= last) end = text.length;
    result += native(slice(text, start, end));
    start = end;
  }
  return result;
}

for (const name of ['encodeURI', 'encodeURIComponent', 'decodeURI', 'decodeURIComponent', 'escape', 'unescape']) {
  const native = globalThis[name];
  const callNative = (text) => native(text);
  standInFront(globalThis, name, {
    [name](value) {
      return inPieces(callNative, toStringStrict(value));
    },
  }[name]);
}
