// What a program reads of its own text as Node gives it, without the calls the runtime inserted
// into it (src/program/listing_guards.rs): its functions' source text (src/program/own_text.rs) and
// the columns of the call sites its `Error.prepareStackTrace` receives. Also `[native code]` for
// the source of the built-ins the runtime put a wrapper in front of.

import { core } from 'ext:core/mod.js';

const { op_dsh_own_column, op_dsh_own_source } = core.ops;
const FunctionPrototypeToString = Function.prototype.toString;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectCreate = Object.create;
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectPrototypeHasOwnProperty = Object.prototype.hasOwnProperty;
const ReflectApply = Reflect.apply;
const ReflectOwnKeys = Reflect.ownKeys;
const ReflectSetPrototypeOf = Reflect.setPrototypeOf;
const StringPrototypeLastIndexOf = String.prototype.lastIndexOf;
const StringPrototypeSlice = String.prototype.slice;
const WeakMapCtor = WeakMap;
const WeakMapPrototypeGet = WeakMap.prototype.get;
const WeakMapPrototypeSet = WeakMap.prototype.set;

// A wrapper, to the built-in it stands in front of.
const builtins = new WeakMapCtor();
// A function, to its text once read: a program's function is looked for in the program once.
const texts = new WeakMapCtor();

/** Gives `wrapper` the source text of `builtin`, the built-in it stands in front of (or that
 * built-in's, when `builtin` is a wrapper too). */
export function presentAsBuiltin(wrapper, builtin) {
  const inner = ReflectApply(WeakMapPrototypeGet, builtins, [builtin]);
  ReflectApply(WeakMapPrototypeSet, builtins, [wrapper, inner ?? builtin]);
  return wrapper;
}

/** Puts `wrapper` in place of the built-in method `target[key]`, with the property's attributes, and
 * gives it the built-in's `length` and source text. */
export function standInFront(target, key, wrapper) {
  const descriptor = ObjectGetOwnPropertyDescriptor(target, key);
  const builtin = descriptor.value;
  ObjectDefineProperty(wrapper, 'length', { __proto__: null, value: builtin.length, configurable: true });
  ObjectDefineProperty(target, key, { __proto__: null, ...descriptor, value: presentAsBuiltin(wrapper, builtin) });
}

const toString = {
  toString() {
    const builtin = ReflectApply(WeakMapPrototypeGet, builtins, [this]);
    if (builtin !== undefined) return ReflectApply(FunctionPrototypeToString, builtin, []);
    let text = ReflectApply(WeakMapPrototypeGet, texts, [this]);
    if (text === undefined) {
      // V8's own TypeError for anything that is not a function.
      text = ReflectApply(FunctionPrototypeToString, this, []);
      text = op_dsh_own_source(this, text) ?? text;
      ReflectApply(WeakMapPrototypeSet, texts, [this, text]);
    }
    return text;
  },
}.toString;
ObjectDefineProperty(Function.prototype, 'toString', {
  __proto__: null,
  ...ObjectGetOwnPropertyDescriptor(Function.prototype, 'toString'),
  value: presentAsBuiltin(toString, FunctionPrototypeToString),
});

// In front of V8's call-site prototype, for the sites whose columns the inserted calls moved: V8's
// own methods there can be neither replaced nor redefined.
let ownCallSitePrototype;
// Whether a site's column, or its function's, is not the program's own.
let columnsMoved;

function ownCallSitePrototypeOver(native) {
  const { getFileName, getLineNumber, getColumnNumber, getEnclosingLineNumber, getEnclosingColumnNumber } = native;
  const callSiteToString = native.toString;
  // The program's own column for V8's `column` of `site` (run at a stack's making, so nothing here
  // iterates: a program may have replaced the array iterator).
  const ownColumn = (site, lineOf, column) => {
    if (typeof column !== 'number' || column < 1 || ReflectApply(getFileName, site, []) !== '') return column;
    // The program's lines are 1 and on; its header, V8's line 0 here, had nothing inserted.
    const line = ReflectApply(lineOf, site, []);
    return typeof line === 'number' && line >= 1 ? op_dsh_own_column(line, column) : column;
  };
  const movedColumn = (site, lineOf, columnOf) => {
    const column = ReflectApply(columnOf, site, []);
    return ownColumn(site, lineOf, column) !== column;
  };
  columnsMoved = (site) => movedColumn(site, getLineNumber, getColumnNumber) ||
    movedColumn(site, getEnclosingLineNumber, getEnclosingColumnNumber);
  const own = {
    getColumnNumber() {
      return ownColumn(this, getLineNumber, ReflectApply(getColumnNumber, this, []));
    },
    getEnclosingColumnNumber() {
      return ownColumn(this, getEnclosingLineNumber, ReflectApply(getEnclosingColumnNumber, this, []));
    },
    toString() {
      const text = ReflectApply(callSiteToString, this, []);
      const column = ReflectApply(getColumnNumber, this, []);
      const columnOwn = ownColumn(this, getLineNumber, column);
      const position = ':' + ReflectApply(getLineNumber, this, []) + ':';
      const written = position + column;
      const at = ReflectApply(StringPrototypeLastIndexOf, text, [written]);
      if (column === columnOwn || at === -1) return text;
      return ReflectApply(StringPrototypeSlice, text, [0, at]) + position + columnOwn +
        ReflectApply(StringPrototypeSlice, text, [at + written.length]);
    },
  };
  // Every method V8's prototype has, so that listing them lists the same names.
  const prototype = ObjectCreate(native);
  const keys = ReflectOwnKeys(native);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const descriptor = { __proto__: null, ...ObjectGetOwnPropertyDescriptor(native, key) };
    if (ReflectApply(ObjectPrototypeHasOwnProperty, own, [key])) {
      descriptor.value = presentAsBuiltin(own[key], descriptor.value);
    }
    ObjectDefineProperty(prototype, key, descriptor);
  }
  return prototype;
}

/** Makes each of `sites`, the call sites a program's `Error.prepareStackTrace` is about to receive,
 * give the program's own columns: a site whose columns the inserted calls moved reads them through
 * a prototype in front of V8's. Called by the runtime (src/engine/stack.rs) for guarded programs. */
export function ownCallSites(sites) {
  for (let i = 0; i < sites.length; i++) {
    const site = sites[i];
    const prototype = ObjectGetPrototypeOf(site);
    if (prototype === ownCallSitePrototype) continue;
    ownCallSitePrototype ??= ownCallSitePrototypeOver(prototype);
    if (ObjectGetPrototypeOf(ownCallSitePrototype) === prototype && columnsMoved(site)) {
      ReflectSetPrototypeOf(site, ownCallSitePrototype);
    }
  }
}
