// A function's source text as Node gives it: a program's own text for its functions, without the
// calls the runtime inserted into it (src/program/own_text.rs), and `[native code]` for the
// built-ins the runtime put a wrapper in front of.

import { core } from 'ext:core/mod.js';

const { op_dsh_own_source } = core.ops;
const FunctionPrototypeToString = Function.prototype.toString;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ReflectApply = Reflect.apply;
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
