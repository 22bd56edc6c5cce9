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
const ReflectApply = Reflect.apply;
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
  // V8's column, and the program's own for it.
  const columns = (site, lineOf, columnOf) => {
    const column = ReflectApply(columnOf, site, []);
    if (typeof column !== 'number' || column < 1 || ReflectApply(getFileName, site, []) !== '') return [column, column];
    // The program's lines are 1 and on; its header, V8's line 0 here, had nothing inserted.
    const line = ReflectApply(lineOf, site, []);
    return [column, typeof line === 'number' && line >= 1 ? op_dsh_own_column(line, column) : column];
  };
  const moved = ([column, own]) => column !== own;
  columnsMoved = (site) => moved(columns(site, getLineNumber, getColumnNumber)) ||
    moved(columns(site, getEnclosingLineNumber, getEnclosingColumnNumber));
  const methods = {
    getColumnNumber() {
      return columns(this, getLineNumber, getColumnNumber)[1];
    },
    getEnclosingColumnNumber() {
      return columns(this, getEnclosingLineNumber, getEnclosingColumnNumber)[1];
    },
    toString() {
      const text = ReflectApply(callSiteToString, this, []);
      const [column, own] = columns(this, getLineNumber, getColumnNumber);
      const position = ':' + ReflectApply(getLineNumber, this, []) + ':';
      const written = position + column;
      const at = ReflectApply(StringPrototypeLastIndexOf, text, [written]);
      if (column === own || at === -1) return text;
      return ReflectApply(StringPrototypeSlice, text, [0, at]) + position + own +
        ReflectApply(StringPrototypeSlice, text, [at + written.length]);
    },
  };
  const prototype = ObjectCreate(native);
  for (const key of ['getColumnNumber', 'getEnclosingColumnNumber', 'toString']) {
    ObjectDefineProperty(prototype, key, {
      __proto__: null,
      ...ObjectGetOwnPropertyDescriptor(native, key),
      value: presentAsBuiltin(methods[key], native[key]),
    });
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
