//! Stack traces that show only the program's own frames, at its own lines and columns, and the
//! text of what a program throws. Text stays UTF-16 throughout, so lone surrogates survive.

use std::rc::Rc;

use deno_core::{JsRuntime, v8};

use crate::engine::world_functions::WorldFunction;
use crate::limits::run::RunShared;
use crate::output::lossless::read_utf16;
use crate::program::listing_guards::ColumnShifts;

/// Scripts of ours (and deno_core's) carry `ext:` names; the program's script has none.
const INTERNAL_SCRIPT_PREFIX: &str = "ext:";

fn call_method<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  object: v8::Local<'s, v8::Object>,
  name: &str,
  args: &[v8::Local<'s, v8::Value>],
) -> Option<v8::Local<'s, v8::Value>> {
  let key = v8::String::new(scope, name)?;
  let method: v8::Local<v8::Function> = object.get(scope, key.into())?.try_cast().ok()?;
  method.call(scope, object.into(), args)
}

fn is_internal<'s>(scope: &mut v8::PinScope<'s, '_>, site: v8::Local<'s, v8::Object>) -> bool {
  call_method(scope, site, "getFileName", &[])
    .filter(|name| name.is_string())
    .is_some_and(|name| {
      name
        .to_rust_string_lossy(scope)
        .starts_with(INTERNAL_SCRIPT_PREFIX)
    })
}

/// `left` then `right`, as V8 joins strings: a long part is referred to, not copied. `None` past
/// V8's longest string.
fn join<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  left: v8::Local<'s, v8::String>,
  right: &str,
) -> Option<v8::Local<'s, v8::String>> {
  let right = v8::String::new(scope, right)?;
  v8::String::concat(scope, left, right)
}

/// `Name: message`, as `Error.prototype.toString` would read it at the time the stack is built.
/// Made of the error's own strings: a message of hundreds of megabytes is not copied.
fn header<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  error: v8::Local<'s, v8::Value>,
) -> Option<v8::Local<'s, v8::String>> {
  let Ok(object) = error.try_cast::<v8::Object>() else {
    return Some(error.to_string(scope).unwrap_or_else(|| v8::String::empty(scope)));
  };
  let read = |key: &str, fallback: &str| {
    let key = v8::String::new(scope, key).expect("short key");
    match object.get(scope, key.into()) {
      Some(value) if !value.is_undefined() => {
        value.to_string(scope).unwrap_or_else(|| v8::String::empty(scope))
      }
      _ => v8::String::new(scope, fallback).expect("short text"),
    }
  };
  let name = read("name", "Error");
  let message = read("message", "");
  match (name.length(), message.length()) {
    (0, _) => Some(message),
    (_, 0) => Some(name),
    _ => {
      let name = join(scope, name, ": ")?;
      v8::String::concat(scope, name, message)
    }
  }
}

/// The text of a thrown value: an error's `stack` (else its `message`), anything else as
/// `String(thrown)`; `None` once the run is being terminated. A value whose rendering throws
/// reads as `program threw an unrenderable value`.
pub fn render_thrown<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  error_prototype: v8::Local<'s, v8::Object>,
  thrown: v8::Local<'s, v8::Value>,
) -> Option<v8::Local<'s, v8::String>> {
  v8::tc_scope!(let scope, scope);
  let rendered = (|| {
    let mut text = thrown;
    if let Ok(object) = thrown.try_cast::<v8::Object>()
      && inherits(scope, object, error_prototype)?
    {
      let key = v8::String::new(scope, "stack")?;
      text = object.get(scope, key.into())?;
      if text.is_null_or_undefined() {
        let key = v8::String::new(scope, "message")?;
        text = object.get(scope, key.into())?;
      }
    }
    string_of(scope, text)
  })();
  if scope.has_terminated() || scope.is_execution_terminating() {
    return None;
  }
  rendered.or_else(|| v8::String::new(scope, "program threw an unrenderable value"))
}

/// `String(value)`: as `ToString`, except that a symbol reads as `Symbol(description)`.
fn string_of<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  value: v8::Local<'s, v8::Value>,
) -> Option<v8::Local<'s, v8::String>> {
  let Ok(symbol) = value.try_cast::<v8::Symbol>() else {
    return value.to_string(scope);
  };
  let description = symbol.description(scope);
  let mut text: Vec<u16> = "Symbol(".encode_utf16().collect();
  if let Ok(description) = description.try_cast::<v8::String>() {
    text.extend(read_utf16(scope, description));
  }
  text.push(u16::from(b')'));
  v8::String::new_from_two_byte(scope, &text, v8::NewStringType::Normal)
}

/// Whether `prototype` is on `object`'s prototype chain, as V8 stores it (a proxy's
/// `getPrototypeOf` trap is not called: a proxy of an error renders through `String()`).
fn inherits<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  object: v8::Local<'s, v8::Object>,
  prototype: v8::Local<'s, v8::Object>,
) -> Option<bool> {
  let mut current = object.get_prototype(scope)?;
  loop {
    let Ok(link) = current.try_cast::<v8::Object>() else {
      return Some(false);
    };
    if link == prototype {
      return Some(true);
    }
    current = link.get_prototype(scope)?;
  }
}

/// Moves a frame of the program's script back to the program's own column, where the listing
/// guards inserted text before it: its text ends with `:line:column`, then `)` if it names a
/// function.
fn own_column<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  site: v8::Local<'s, v8::Object>,
  shifts: &ColumnShifts,
  frame: v8::Local<'s, v8::String>,
) -> v8::Local<'s, v8::String> {
  let number = |scope: &mut v8::PinScope<'s, '_>, method| {
    call_method(scope, site, method, &[]).and_then(|value| value.uint32_value(scope))
  };
  let in_program = call_method(scope, site, "getFileName", &[])
    .and_then(|name| name.try_cast::<v8::String>().ok())
    .is_some_and(|name| name.length() == 0);
  let (Some(line), Some(column)) = (number(scope, "getLineNumber"), number(scope, "getColumnNumber")) else {
    return frame;
  };
  let own = shifts.original_column(line, column);
  if !in_program || own == column {
    return frame;
  }
  let mut text = read_utf16(scope, frame);
  let written: Vec<u16> = format!(":{line}:{column}").encode_utf16().collect();
  let Some(at) = text.windows(written.len()).rposition(|window| window == written) else {
    return frame;
  };
  text.splice(at..at + written.len(), format!(":{line}:{own}").encode_utf16());
  v8::String::new_from_two_byte(scope, &text, v8::NewStringType::Normal).unwrap_or(frame)
}

/// V8's prepare-stack-trace hook: drops our frames, then defers to a program's own
/// `Error.prepareStackTrace` or writes V8's usual format.
pub fn prepare_stack_trace<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  error: v8::Local<'s, v8::Value>,
  sites: v8::Local<'s, v8::Array>,
) -> v8::Local<'s, v8::Value> {
  if RunShared::has_ended_in(&JsRuntime::op_state_from(scope).borrow()) {
    // Nobody reads this stack, and building it could call the program's getters or its
    // `Error.prepareStackTrace` (deno_core builds an error after a termination).
    return v8::String::empty(scope).into();
  }
  v8::tc_scope!(let scope, scope);
  let mut kept = Vec::new();
  for index in 0..sites.length() {
    let Some(site) = sites
      .get_index(scope, index)
      .and_then(|site| site.try_cast::<v8::Object>().ok())
    else {
      continue;
    };
    if !is_internal(scope, site) {
      kept.push(site);
    }
  }
  let global = scope.get_current_context().global(scope);
  let user_hook = v8::String::new(scope, "Error")
    .and_then(|key| global.get(scope, key.into()))
    .and_then(|error_ctor| error_ctor.try_cast::<v8::Object>().ok())
    .and_then(|error_ctor| {
      let key = v8::String::new(scope, "prepareStackTrace")?;
      let hook = error_ctor
        .get(scope, key.into())?
        .try_cast::<v8::Function>()
        .ok()?;
      Some((error_ctor, hook))
    });
  // Shared, not taken: V8 can build a stack while an op holds the state (an op's own error).
  let shifts = JsRuntime::op_state_from(scope)
    .try_borrow()
    .ok()
    .and_then(|state| state.try_borrow::<Rc<ColumnShifts>>().cloned());
  if let Some((error_ctor, hook)) = user_hook {
    let elements: Vec<v8::Local<v8::Value>> = kept.iter().map(|site| (*site).into()).collect();
    let array = v8::Array::new_with_elements(scope, &elements);
    if shifts.is_some()
      && let Some(own_call_sites) = WorldFunction::OwnCallSites.function(scope)
    {
      // The columns the hook reads must be the program's own.
      let undefined = v8::undefined(scope).into();
      if own_call_sites.call(scope, undefined, &[array.into()]).is_none() {
        if scope.has_caught() {
          scope.rethrow();
        }
        return v8::undefined(scope).into();
      }
    }
    if let Some(result) = hook.call(scope, error_ctor.into(), &[error, array.into()]) {
      return result;
    }
    if scope.has_caught() {
      scope.rethrow();
    }
    return v8::undefined(scope).into();
  }
  let mut text = header(scope, error);
  for site in kept {
    if let Some(frame) = call_method(scope, site, "toString", &[]).and_then(|frame| frame.to_string(scope)) {
      let frame = match &shifts {
        Some(shifts) => own_column(scope, site, shifts, frame),
        None => frame,
      };
      text = text
        .and_then(|text| join(scope, text, "\n    at "))
        .and_then(|text| v8::String::concat(scope, text, frame));
    }
  }
  scope.reset();
  text.map_or_else(|| v8::undefined(scope).into(), Into::into)
}
