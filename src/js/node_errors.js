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

export function invalidArgType(name, expected, value) {
  let shown;
  if (value == null) shown = `${value}`;
  else if (typeof value === 'function') shown = `function ${value.name}`;
  else if (typeof value === 'object') {
    const constructor = value.constructor?.name;
    shown = constructor ? `an instance of ${constructor}` : inspect(value, { depth: -1 });
  } else {
    shown = inspect(value);
    if (shown.length > 25) shown = `${StringPrototypeSlice(shown, 0, 25)}...`;
    shown = `type ${typeof value} (${shown})`;
  }
  const kind = StringPrototypeIncludes(name, '.') ? 'property' : 'argument';
  return nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "${name}" ${kind} must be ${expected}. Received ${shown}`);
}
