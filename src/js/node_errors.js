// Node's internal errors for the `node:` modules: `code` own and enumerable, and named in the
// stack's header; ERR_INVALID_ARG_TYPE with Node's description of the value received.

import { primordials } from 'ext:core/mod.js';
import { inspect } from 'ext:dsh/inspect.js';

const { ObjectDefineProperty, StringPrototypeIncludes, StringPrototypeSlice } = primordials;

export function nodeError(Base, code, message) {
  const error = new Base(message);
  ObjectDefineProperty(error, 'name', { __proto__: null, value: `${error.name} [${code}]`, configurable: true });
  error.stack;
  delete error.name;
  error.code = code;
  return error;
}

/** How Node's ERR_INVALID_ARG_TYPE describes the value received. */
export function describeReceived(value) {
  if (value == null) return `${value}`;
  if (typeof value === 'function') return `function ${value.name}`;
  if (typeof value === 'object') {
    const constructor = value.constructor?.name;
    return constructor ? `an instance of ${constructor}` : inspect(value, { depth: -1 });
  }
  const shown = inspect(value);
  return `type ${typeof value} (${shown.length > 25 ? `${StringPrototypeSlice(shown, 0, 25)}...` : shown})`;
}

export function invalidArgType(name, expected, value) {
  const kind = StringPrototypeIncludes(name, '.') ? 'property' : 'argument';
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "${name}" ${kind} must be ${expected}. Received ${describeReceived(value)}`);
}
