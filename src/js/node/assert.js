// node:assert. Messages start as Node's do; a failed strict comparison shows a line diff of the
// two values as Node's "+ actual - expected" diff does, without Node's elision of long runs.

import { core, primordials } from 'ext:core/mod.js';
import { isObject } from 'ext:dsh/abstract_ops.js';
import { inspect } from 'ext:dsh/inspect.js';
import util from 'node:util';
import { describeReceived, invalidArgType, nodeError } from 'ext:dsh/node_errors.js';

const {
  ArrayPrototypeJoin,
  ArrayPrototypePush,
  ArrayPrototypeSort,
  Error,
  ErrorCaptureStackTrace,
  MathMax,
  NumberIsNaN,
  ObjectAssign,
  ObjectDefineProperty,
  ObjectIs,
  ObjectKeys,
  ObjectPrototypeIsPrototypeOf,
  ReflectApply,
  RegExpPrototypeExec,
  String,
  StringPrototypeSlice,
  StringPrototypeSplit,
  SymbolFor,
  TypeError,
} = primordials;
const { op_is_native_error: isNativeError, op_is_promise: isPromise, op_is_reg_exp: isRegExp } = core.ops;

const isDeepEqual = util[SymbolFor('dsh.node.util.isDeepEqual')];

const isError = (value) => isNativeError(value) || ObjectPrototypeIsPrototypeOf(Error.prototype, value);

// ---- messages ---------------------------------------------------------------------------------

const headers = {
  __proto__: null,
  deepStrictEqual: 'Expected values to be strictly deep-equal:',
  strictEqual: 'Expected values to be strictly equal:',
  strictEqualObject: 'Expected "actual" to be reference-equal to "expected":',
  deepEqual: 'Expected values to be loosely deep-equal:',
  notDeepStrictEqual: 'Expected "actual" not to be strictly deep-equal to:',
  notStrictEqual: 'Expected "actual" to be strictly unequal to:',
  notStrictEqualObject: 'Expected "actual" not to be reference-equal to "expected":',
  notDeepEqual: 'Expected "actual" not to be loosely deep-equal to:',
  notIdentical: 'Values have same structure but are not reference-equal:',
};

// Values as assertion messages show them: every key on its own line, keys sorted, nothing elided
// (the runtime's inspect reads the options it implements).
const show = (value) => inspect(value, {
  compact: false,
  customInspect: false,
  depth: 1000,
  maxArrayLength: Infinity,
  maxStringLength: Infinity,
  breakLength: Infinity,
  sorted: true,
  getters: true,
});

// The lines of `actual` and `expected`, each kept ('  '), only in actual ('+ ') or only in
// expected ('- '), by their longest common subsequence; past a size, all of one then the other.
function lineDiff(actual, expected) {
  const lines = [];
  const rows = actual.length;
  const columns = expected.length;
  if (rows * columns > 1e6) {
    for (let i = 0; i < rows; i++) ArrayPrototypePush(lines, `+ ${actual[i]}`);
    for (let j = 0; j < columns; j++) ArrayPrototypePush(lines, `- ${expected[j]}`);
    return lines;
  }
  // common[i * (columns + 1) + j]: the longest common subsequence of actual[i..] and expected[j..].
  const common = [];
  for (let k = 0; k < (rows + 1) * (columns + 1); k++) common[k] = 0;
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      common[i * (columns + 1) + j] = actual[i] === expected[j]
        ? common[(i + 1) * (columns + 1) + j + 1] + 1
        : MathMax(common[(i + 1) * (columns + 1) + j], common[i * (columns + 1) + j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && actual[i] === expected[j]) {
      ArrayPrototypePush(lines, `  ${actual[i++]}`);
      j++;
    } else if (j === columns || (i < rows && common[(i + 1) * (columns + 1) + j] >= common[i * (columns + 1) + j + 1])) {
      ArrayPrototypePush(lines, `+ ${actual[i++]}`);
    } else {
      ArrayPrototypePush(lines, `- ${expected[j++]}`);
    }
  }
  return lines;
}

// strictEqual and deepStrictEqual failures; a message of the caller's heads the diff.
function diffMessage(actual, expected, operator, message) {
  if (operator === 'strictEqual' && isObject(actual) && isObject(expected)) operator = 'strictEqualObject';
  const header = message ?? headers[operator];
  const shownActual = show(actual);
  const shownExpected = show(expected);
  if (shownActual === shownExpected) return `${headers.notIdentical}\n\n${shownActual}\n`;
  const actualLines = StringPrototypeSplit(shownActual, '\n');
  const expectedLines = StringPrototypeSplit(shownExpected, '\n');
  // Two short values, neither an object, on one line; but 0 and -0 are shown apart.
  const notObject = (value) => typeof value !== 'object' || value === null;
  if (actualLines.length === 1 && expectedLines.length === 1 && notObject(actual) && notObject(expected) &&
    shownActual.length + shownExpected.length <= 12 && !(actual === 0 && expected === 0)) {
    return `${header}\n\n${shownActual} !== ${shownExpected}\n`;
  }
  return `${header}\n+ actual - expected\n\n${ArrayPrototypeJoin(lineDiff(actualLines, expectedLines), '\n')}`;
}

// notStrictEqual and notDeepStrictEqual failures.
function sameValueMessage(actual, operator) {
  let header = headers[operator];
  if (operator === 'notStrictEqual' && isObject(actual)) header = headers.notStrictEqualObject;
  const lines = StringPrototypeSplit(show(actual), '\n');
  if (lines.length === 1) return `${header}${lines[0].length > 5 ? '\n\n' : ' '}${lines[0]}`;
  return `${header}\n\n${ArrayPrototypeJoin(lines, '\n')}\n`;
}

const clip = (text, length) => (text.length > length ? `${StringPrototypeSlice(text, 0, length - 3)}...` : text);

function generatedMessage(actual, expected, operator) {
  if (operator === 'notStrictEqual' || operator === 'notDeepStrictEqual') return sameValueMessage(actual, operator);
  const shownActual = show(actual);
  const shownExpected = show(expected);
  if (operator === 'notDeepEqual') {
    if (shownActual === shownExpected) return clip(`${headers.notDeepEqual}\n\n${shownActual}`, 1024);
    return `Expected values not to be loosely deep-equal:\n\n${clip(shownActual, 512)}\n\n` +
      `should not loosely deep-equal\n\n${clip(shownExpected, 512)}`;
  }
  if (operator === 'deepEqual') {
    return `${headers.deepEqual}\n\n${clip(shownActual, 512)}\n\nshould loosely deep-equal\n\n${clip(shownExpected, 512)}`;
  }
  return `${clip(shownActual, 512)} ${operator} ${clip(shownExpected, 512)}`;
}

class AssertionError extends Error {
  constructor(options) {
    if (options === null || typeof options !== 'object') throw invalidArgType('options', 'of type object', options);
    const { message, actual, expected, operator, stackStartFn } = options;
    let text;
    if (operator === 'strictEqual' || operator === 'deepStrictEqual') {
      text = diffMessage(actual, expected, operator, message != null ? String(message) : undefined);
    } else {
      text = message != null ? String(message) : generatedMessage(actual, expected, operator);
    }
    super(text);
    this.generatedMessage = message == null;
    this.code = 'ERR_ASSERTION';
    this.actual = actual;
    this.expected = expected;
    this.operator = operator;
    // The stack, from the caller of the assertion, is headed `AssertionError [ERR_ASSERTION]`.
    ObjectDefineProperty(this, 'name', { __proto__: null, value: 'AssertionError [ERR_ASSERTION]', writable: true, configurable: true });
    ErrorCaptureStackTrace(this, stackStartFn || AssertionError);
    this.stack;
    this.name = 'AssertionError';
  }

  toString() {
    return `${this.name} [${this.code}]: ${this.message}`;
  }
}

// A failure with `message` (an Error is thrown as it is) or a generated one.
function throwFailure(fields) {
  if (ObjectPrototypeIsPrototypeOf(Error.prototype, fields.message)) throw fields.message;
  throw new AssertionError(fields);
}

function requireTwo(count) {
  if (count < 2) throw nodeError(TypeError, 'ERR_MISSING_ARGS', 'The "actual" and "expected" arguments must be specified');
}

// ---- assertions -------------------------------------------------------------------------------

function innerOk(stackStartFn, count, value, message) {
  if (value) return;
  if (ObjectPrototypeIsPrototypeOf(Error.prototype, message)) throw message;
  const generated = message == null || count === 0;
  if (count === 0) message = 'No value argument passed to `assert.ok()`';
  // Without the program's source to quote, Node's message is `${actual} == true`.
  const error = new AssertionError({ actual: value, expected: true, message, operator: '==', stackStartFn });
  error.generatedMessage = generated;
  throw error;
}

function ok(...args) {
  innerOk(ok, args.length, args[0], args[1]);
}

function equal(actual, expected, message) {
  requireTwo(arguments.length);
  if (actual != expected && !(NumberIsNaN(actual) && NumberIsNaN(expected))) {
    throwFailure({ actual, expected, message, operator: '==', stackStartFn: equal });
  }
}

function notEqual(actual, expected, message) {
  requireTwo(arguments.length);
  if (actual == expected || (NumberIsNaN(actual) && NumberIsNaN(expected))) {
    throwFailure({ actual, expected, message, operator: '!=', stackStartFn: notEqual });
  }
}

function strictEqual(actual, expected, message) {
  requireTwo(arguments.length);
  if (!ObjectIs(actual, expected)) {
    throwFailure({ actual, expected, message, operator: 'strictEqual', stackStartFn: strictEqual });
  }
}

function notStrictEqual(actual, expected, message) {
  requireTwo(arguments.length);
  if (ObjectIs(actual, expected)) {
    throwFailure({ actual, expected, message, operator: 'notStrictEqual', stackStartFn: notStrictEqual });
  }
}

function deepEqual(actual, expected, message) {
  requireTwo(arguments.length);
  if (!isDeepEqual(actual, expected, false)) {
    throwFailure({ actual, expected, message, operator: 'deepEqual', stackStartFn: deepEqual });
  }
}

function notDeepEqual(actual, expected, message) {
  requireTwo(arguments.length);
  if (isDeepEqual(actual, expected, false)) {
    throwFailure({ actual, expected, message, operator: 'notDeepEqual', stackStartFn: notDeepEqual });
  }
}

function deepStrictEqual(actual, expected, message) {
  requireTwo(arguments.length);
  if (!isDeepEqual(actual, expected, true)) {
    throwFailure({ actual, expected, message, operator: 'deepStrictEqual', stackStartFn: deepStrictEqual });
  }
}

function notDeepStrictEqual(actual, expected, message) {
  requireTwo(arguments.length);
  if (isDeepEqual(actual, expected, true)) {
    throwFailure({ actual, expected, message, operator: 'notDeepStrictEqual', stackStartFn: notDeepStrictEqual });
  }
}

function assertFail(message) {
  if (ObjectPrototypeIsPrototypeOf(Error.prototype, message)) throw message;
  const error = new AssertionError({ message: message === undefined ? 'Failed' : message, operator: 'fail', stackStartFn: assertFail });
  error.generatedMessage = message === undefined;
  throw error;
}

function ifError(value) {
  if (value === null || value === undefined) return;
  let message = 'ifError got unwanted exception: ';
  if (typeof value === 'object' && typeof value.message === 'string') {
    message += value.message.length === 0 && value.constructor ? value.constructor.name : value.message;
  } else {
    message += inspect(value);
  }
  const error = new AssertionError({ actual: value, expected: null, operator: 'ifError', message, stackStartFn: ifError });
  error.generatedMessage = false;
  throw error;
}

function match(string, regexp, message) {
  matching(string, regexp, message, match, true);
}

function doesNotMatch(string, regexp, message) {
  matching(string, regexp, message, doesNotMatch, false);
}

function matching(string, regexp, message, stackStartFn, expectMatch) {
  if (!isRegExp(regexp)) throw invalidArgType('regexp', 'an instance of RegExp', regexp);
  if (typeof string === 'string' && (RegExpPrototypeExec(regexp, string) !== null) === expectMatch) return;
  if (ObjectPrototypeIsPrototypeOf(Error.prototype, message)) throw message;
  let generated;
  if (typeof string !== 'string') {
    generated = `The "string" argument must be of type string. Received type ${typeof string} (${inspect(string)})`;
  } else {
    const verb = expectMatch ? 'The input did not match' : 'The input was expected to not match';
    generated = `${verb} the regular expression ${inspect(regexp)}. Input:\n\n${inspect(string)}\n`;
  }
  const error = new AssertionError({
    actual: string,
    expected: regexp,
    message: message ?? generated,
    operator: stackStartFn.name,
    stackStartFn,
  });
  error.generatedMessage = message == null;
  throw error;
}

// ---- throws and rejects -----------------------------------------------------------------------

const NO_EXCEPTION = {};

function thrownBy(fn) {
  if (typeof fn !== 'function') throw invalidArgType('fn', 'of type function', fn);
  try {
    fn();
  } catch (error) {
    return error;
  }
  return NO_EXCEPTION;
}

const isThenable = (value) =>
  isPromise(value) || (isObject(value) && typeof value.then === 'function' && typeof value.catch === 'function');

async function rejectionOf(promiseFn) {
  let promise;
  if (typeof promiseFn === 'function') {
    promise = promiseFn();
    if (!isThenable(promise)) {
      throw nodeError(TypeError, 'ERR_INVALID_RETURN_VALUE',
        `Expected instance of Promise to be returned from the "promiseFn" function but got ${describeReceived(promise)}.`);
    }
  } else if (isThenable(promiseFn)) {
    promise = promiseFn;
  } else {
    throw invalidArgType('promiseFn', 'of type function or an instance of Promise', promiseFn);
  }
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return NO_EXCEPTION;
}

function failWith(actual, expected, message, generated, stackStartFn) {
  const error = new AssertionError({ actual, expected, message: message ?? generated, operator: stackStartFn.name, stackStartFn });
  error.generatedMessage = message == null;
  throw error;
}

// Checks an error against throws()'s `expected`: a RegExp over its string, a class it must be an
// instance of, a validation function that must return true, or an object whose keys it must
// match (strings may be matched by RegExps).
function checkExpected(actual, expected, message, stackStartFn) {
  if (isRegExp(expected)) {
    const text = String(actual);
    if (RegExpPrototypeExec(expected, text) !== null) return;
    failWith(actual, expected, message,
      `The input did not match the regular expression ${inspect(expected)}. Input:\n\n${inspect(text)}\n`, stackStartFn);
  }
  if (typeof expected === 'function') {
    if (expected.prototype !== undefined && ObjectPrototypeIsPrototypeOf(expected.prototype, actual)) return;
    if (ObjectPrototypeIsPrototypeOf(Error, expected)) {
      let generated = `The error is expected to be an instance of "${expected.name}". Received `;
      if (isError(actual)) {
        const name = actual.constructor?.name || actual.name;
        generated += expected.name === name ? 'an error with identical name but a different prototype.' : `"${name}"`;
        if (actual.message) generated += `\n\nError message:\n\n${actual.message}`;
      } else {
        generated += `"${inspect(actual, { depth: -1 })}"`;
      }
      failWith(actual, expected, message, generated, stackStartFn);
    }
    const result = ReflectApply(expected, {}, [actual]);
    if (result === true) return;
    const name = expected.name ? `"${expected.name}" ` : '';
    let generated = `The ${name}validation function is expected to return "true". Received ${inspect(result)}`;
    if (isError(actual)) generated += `\n\nCaught error:\n\n${actual}`;
    failWith(actual, expected, message, generated, stackStartFn);
  }
  if (!isObject(actual)) {
    const error = new AssertionError({ actual, expected, message, operator: 'deepStrictEqual', stackStartFn });
    error.operator = stackStartFn.name;
    throw error;
  }
  const keys = ObjectKeys(expected);
  if (isError(expected)) ArrayPrototypePush(keys, 'name', 'message');
  else if (keys.length === 0) {
    throw nodeError(TypeError, 'ERR_INVALID_ARG_VALUE',
      `The argument 'error' may not be an empty object. Received ${inspect(expected)}`);
  }
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const wanted = expected[key];
    if (typeof actual[key] === 'string' && isRegExp(wanted) && RegExpPrototypeExec(wanted, actual[key]) !== null) continue;
    if (key in actual && isDeepEqual(actual[key], wanted, true)) continue;
    // The generated message compares only the expected keys, sorted, as Node's does.
    const shownActual = new Comparison();
    const shownExpected = new Comparison();
    ArrayPrototypeSort(keys);
    for (let k = 0; k < keys.length; k++) {
      if (keys[k] in actual) shownActual[keys[k]] = actual[keys[k]];
      shownExpected[keys[k]] = expected[keys[k]];
    }
    const error = new AssertionError({ actual: shownActual, expected: shownExpected, message, operator: 'deepStrictEqual', stackStartFn });
    error.actual = actual;
    error.expected = expected;
    error.operator = stackStartFn.name;
    throw error;
  }
}

class Comparison {}

function missing(kind, expected, message, stackStartFn) {
  const name = expected?.name ? ` (${expected.name})` : '';
  const text = `Missing expected ${kind}${name}${message ? `: ${message}` : '.'}`;
  const error = new AssertionError({ actual: undefined, expected, operator: stackStartFn.name, message: text, stackStartFn });
  error.generatedMessage = false;
  throw error;
}

// Whether an error thrown where none was wanted is of the kind doesNotThrow() names.
function isExpected(actual, expected) {
  if (typeof expected !== 'function') {
    if (isRegExp(expected)) return RegExpPrototypeExec(expected, String(actual)) !== null;
    throw invalidArgType('expected', 'of type function or an instance of RegExp', expected);
  }
  if (expected.prototype !== undefined && ObjectPrototypeIsPrototypeOf(expected.prototype, actual)) return true;
  if (ObjectPrototypeIsPrototypeOf(Error, expected)) return false;
  return ReflectApply(expected, {}, [actual]) === true;
}

function unwanted(kind, actual, expected, message, stackStartFn) {
  if (expected !== undefined && !isExpected(actual, expected)) throw actual;
  const details = message ? `: ${message}` : '.';
  const error = new AssertionError({ actual, expected, operator: stackStartFn.name,
    message: `Got unwanted ${kind}${details}\nActual message: "${actual?.message}"`, stackStartFn });
  error.generatedMessage = false;
  throw error;
}

function throws(fn, expected, message) {
  if (typeof expected === 'string') {
    message = expected;
    expected = undefined;
  }
  const actual = thrownBy(fn);
  if (actual === NO_EXCEPTION) missing('exception', expected, message, throws);
  if (expected !== undefined) checkExpected(actual, expected, message, throws);
}

function doesNotThrow(fn, expected, message) {
  if (typeof expected === 'string') {
    message = expected;
    expected = undefined;
  }
  const actual = thrownBy(fn);
  if (actual !== NO_EXCEPTION) unwanted('exception', actual, expected, message, doesNotThrow);
}

async function rejects(promiseFn, expected, message) {
  if (typeof expected === 'string') {
    message = expected;
    expected = undefined;
  }
  const actual = await rejectionOf(promiseFn);
  if (actual === NO_EXCEPTION) missing('rejection', expected, message, rejects);
  if (expected !== undefined) checkExpected(actual, expected, message, rejects);
}

async function doesNotReject(promiseFn, expected, message) {
  if (typeof expected === 'string') {
    message = expected;
    expected = undefined;
  }
  const actual = await rejectionOf(promiseFn);
  if (actual !== NO_EXCEPTION) unwanted('rejection', actual, expected, message, doesNotReject);
}

// ---- the module -------------------------------------------------------------------------------

const members = {
  fail: assertFail,
  AssertionError,
  ok,
  equal,
  notEqual,
  deepEqual,
  notDeepEqual,
  deepStrictEqual,
  notDeepStrictEqual,
  strictEqual,
  notStrictEqual,
  throws,
  rejects,
  doesNotThrow,
  doesNotReject,
  ifError,
  match,
  doesNotMatch,
};

function assert(...args) {
  innerOk(assert, args.length, args[0], args[1]);
}
ObjectAssign(assert, members);

function strict(...args) {
  innerOk(strict, args.length, args[0], args[1]);
}
ObjectAssign(strict, members, {
  equal: strictEqual,
  notEqual: notStrictEqual,
  deepEqual: deepStrictEqual,
  notDeepEqual: notDeepStrictEqual,
});
assert.strict = strict;
strict.strict = strict;

export default assert;
export {
  AssertionError,
  deepEqual,
  deepStrictEqual,
  doesNotMatch,
  doesNotReject,
  doesNotThrow,
  equal,
  assertFail as fail,
  ifError,
  match,
  notDeepEqual,
  notDeepStrictEqual,
  notEqual,
  notStrictEqual,
  ok,
  rejects,
  strict,
  strictEqual,
  throws,
};
