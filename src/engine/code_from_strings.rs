//! Code a program makes from a string at run time (`eval`, `Function` and its async and generator
//! forms) is not rewritten as the program's own text is (`program::listing_guards`): its scope is
//! the program's to shape (a `with` over a proxy can answer any name), so no guard could be named
//! there safely. Such code is compiled only when it holds no for-in and no object spread or rest;
//! otherwise V8 throws an `EvalError` that says why.
//!
//! V8 asks an embedder about code from strings only in a context that refuses it, through a
//! callback the `v8` crate does not bind; it is set through its C++ symbol, declared below by its
//! Itanium name and, for the Windows targets, by its MSVC name (the same rules name the `v8` crate's
//! own `Function::SetName`, `?SetName@Function@v8@@QEAAXV?$Local@VString@v8@@@2@@Z`).

use std::ffi::c_void;

use deno_core::{JsRuntime, v8};

use crate::program::listing_guards::lists_keys;
use crate::program::strip::{MAX_PROGRAM_BYTES, on_a_safe_stack};

/// The `EvalError`'s message for code that holds a listing.
const LISTS: &str = "code made from a string at run time (eval, Function) may not contain a for-in loop \
  or an object spread or rest here: their keys would be listed in one step that cannot be stopped; write \
  them in the program itself";

/// V8's `ModifyCodeGenerationFromStringsResult`: `modified_source` is a `MaybeLocal<String>`, one
/// handle pointer, null when empty.
#[repr(C)]
struct CodeFromStrings {
  codegen_allowed: bool,
  modified_source: *const v8::String,
}

type CodeFromStringsCallback =
  unsafe extern "C" fn(v8::Local<v8::Context>, v8::Local<v8::Value>, bool) -> CodeFromStrings;

unsafe extern "C" {
  /// `void v8::Isolate::SetModifyCodeGenerationFromStringsCallback(ModifyCodeGenerationFromStringsCallback2)`
  #[cfg_attr(
    not(target_env = "msvc"),
    link_name = "_ZN2v87Isolate42SetModifyCodeGenerationFromStringsCallbackEPFNS_37ModifyCodeGenerationFromStringsResultENS_5LocalINS_7ContextEEENS2_INS_5ValueEEEbE"
  )]
  #[cfg_attr(
    target_env = "msvc",
    link_name = "?SetModifyCodeGenerationFromStringsCallback@Isolate@v8@@QEAAXP6A?AUModifyCodeGenerationFromStringsResult@2@V?$Local@VContext@v8@@@2@V?$Local@VValue@v8@@@2@_N@Z@Z"
  )]
  fn set_code_from_strings_callback(isolate: *mut c_void, callback: CodeFromStringsCallback);
  /// `void v8::Context::SetErrorMessageForCodeGenerationFromStrings(Local<String>)`
  #[cfg_attr(
    not(target_env = "msvc"),
    link_name = "_ZN2v87Context43SetErrorMessageForCodeGenerationFromStringsENS_5LocalINS_6StringEEE"
  )]
  #[cfg_attr(
    target_env = "msvc",
    link_name = "?SetErrorMessageForCodeGenerationFromStrings@Context@v8@@QEAAXV?$Local@VString@v8@@@2@@Z"
  )]
  fn set_code_from_strings_message(context: *const v8::Context, message: *const v8::String);
}

/// Has every string V8 is asked to compile at run time in `js`'s main context checked first.
pub fn check_code_from_strings(js: &mut JsRuntime) {
  let context = js.main_context();
  {
    v8::scope_with_context!(scope, js.v8_isolate(), context);
    scope
      .get_current_context()
      .set_allow_generation_from_strings(false);
  }
  // SAFETY: the pointer is the isolate's own, and the callback is a plain function.
  unsafe {
    let isolate: *mut c_void = std::mem::transmute(js.v8_isolate().as_raw_isolate_ptr());
    set_code_from_strings_callback(isolate, allow_code_without_listings);
  }
}

/// V8's callback: compiles `source` as it is unless it holds a listing. A panic must not unwind
/// into V8: it refuses the code instead.
unsafe extern "C" fn allow_code_without_listings(
  context: v8::Local<v8::Context>,
  source: v8::Local<v8::Value>,
  _is_code_like: bool,
) -> CodeFromStrings {
  std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(context, source))).unwrap_or(
    CodeFromStrings {
      codegen_allowed: false,
      modified_source: std::ptr::null(),
    },
  )
}

fn check(context: v8::Local<v8::Context>, source: v8::Local<v8::Value>) -> CodeFromStrings {
  v8::callback_scope!(unsafe scope, context);
  let Ok(text) = source.try_cast::<v8::String>() else {
    // Not a string: `eval` gives it back without compiling anything.
    return CodeFromStrings {
      codegen_allowed: true,
      modified_source: std::ptr::null(),
    };
  };
  let refused = |scope: &mut v8::PinScope<'_, '_>, message: &str| {
    if let Some(message) = v8::String::new(scope, message) {
      // SAFETY: both are live handles of this isolate, in the layout V8's API takes them; V8 reads
      // the message when the callback has refused the code.
      unsafe { set_code_from_strings_message(&*context, &*message) };
    }
    CodeFromStrings {
      codegen_allowed: false,
      modified_source: std::ptr::null(),
    }
  };
  // Every UTF-16 unit takes at least a byte: a text past the bound is refused unread (a copy of a
  // string near V8's limit would take more than a gigabyte outside the heap cap).
  if text.length() > MAX_PROGRAM_BYTES {
    return refused(scope, &too_long());
  }
  // Lossy only inside literals and comments, where a lone surrogate can be: the syntax read is the same.
  let code = text.to_rust_string_lossy(scope);
  let run = JsRuntime::op_state_from(scope)
    .try_borrow()
    .ok()
    .and_then(|state| {
      state
        .try_borrow::<std::sync::Arc<crate::limits::run::RunShared>>()
        .cloned()
    });
  let started = |helper| {
    if let Some(run) = &run {
      run.helper_started(helper);
    }
  };
  let checked = on_a_safe_stack(&code, &started, || Ok(lists_keys(&code)));
  if let (Some(run), Ok((_, helper_cpu))) = (&run, &checked) {
    run.helper_ended(*helper_cpu);
  }
  match checked {
    Ok((false, _)) => CodeFromStrings {
      codegen_allowed: true,
      modified_source: &*text,
    },
    Ok((true, _)) => refused(scope, LISTS),
    // Too long, or too deep to read safely: the program's own bounds, in their words.
    Err(message) => refused(scope, &message),
  }
}

/// The `EvalError`'s message for code longer than any program may be.
fn too_long() -> String {
  format!(
    "code made from a string at run time (eval, Function) longer than {MAX_PROGRAM_BYTES} characters is \
     refused, as a program that long would be"
  )
}
