//! The world's objects the runtime's own code compares a program's values with, captured from a
//! prepared isolate before any program runs: a program that rewrites `Object`, `Array` or `Error`
//! cannot change what they are.

use deno_core::{JsRuntime, v8};

use crate::output::lossless::JsonIntrinsics;

pub struct Intrinsics {
  /// What the lossless check of a completion or a binding's arguments compares with.
  pub json: JsonIntrinsics,
  /// For telling errors from other thrown values (see `stack::render_thrown`).
  pub error_prototype: v8::Global<v8::Object>,
  /// `Object` and `Function.prototype`: the console's native lines check that inspect would name a
  /// plain object `Object` (see `console_line`).
  pub object_constructor: v8::Global<v8::Function>,
  pub function_prototype: v8::Global<v8::Object>,
}

impl Intrinsics {
  /// Reads them from `js`'s global object, as the world left it.
  pub fn capture(js: &mut JsRuntime) -> Self {
    let context = js.main_context();
    v8::scope_with_context!(scope, js.v8_isolate(), context);
    let global = scope.get_current_context().global(scope);
    // `global[name][member]`, read before the program runs.
    let member_of = |name: &str, member: &str| -> v8::Local<v8::Value> {
      let key = v8::String::new(scope, name).expect("short name");
      let owner: v8::Local<v8::Object> = global.get(scope, key.into()).unwrap().try_cast().unwrap();
      let key = v8::String::new(scope, member).expect("short name");
      owner.get(scope, key.into()).unwrap()
    };
    let object_prototype: v8::Local<v8::Object> = member_of("Object", "prototype").try_cast().unwrap();
    let array_prototype: v8::Local<v8::Object> = member_of("Array", "prototype").try_cast().unwrap();
    let error_prototype: v8::Local<v8::Object> = member_of("Error", "prototype").try_cast().unwrap();
    let object_keys: v8::Local<v8::Function> = member_of("Object", "keys").try_cast().unwrap();
    let function_prototype: v8::Local<v8::Object> = member_of("Function", "prototype").try_cast().unwrap();
    let key = v8::String::new(scope, "constructor").expect("short name");
    let object_constructor: v8::Local<v8::Function> = object_prototype
      .get(scope, key.into())
      .unwrap()
      .try_cast()
      .unwrap();
    Intrinsics {
      json: JsonIntrinsics {
        object_prototype: v8::Global::new(scope, object_prototype),
        array_prototype: v8::Global::new(scope, array_prototype),
        object_keys: v8::Global::new(scope, object_keys),
      },
      error_prototype: v8::Global::new(scope, error_prototype),
      object_constructor: v8::Global::new(scope, object_constructor),
      function_prototype: v8::Global::new(scope, function_prototype),
    }
  }
}
