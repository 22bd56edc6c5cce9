//! A console line of strings, other primitives and flat plain objects, written without JavaScript.
//!
//! Each isolate serves one run, so the world's renderer (inspect.js) rarely runs compiled: it took
//! about 3.5 µs to render a `{ i }`, most of a line's cost. Lines of anything else, and objects a
//! program has made unusual (a rewritten `Object.prototype.constructor`, a symbol on
//! `Object.prototype`), are left to it, so its text stays the only reference.

use deno_core::{JsRuntime, op2, v8};

use crate::engine::intrinsics::Intrinsics;
use crate::engine::ops::RunContext;
use crate::output::inspect_text::{LONGEST_FLAT_STRING, push_flat_object, push_key, push_quoted};
use crate::output::lossless::{read_utf16, read_utf16_prefix};

/// Objects with more own keys are left to inspect.js: such an object prints one key a line anyway.
const MOST_FLAT_KEYS: u32 = 64;

/// The line's text so far: only its first `limit` units are kept (what the ledger can still take),
/// all are counted.
struct Line {
  units: Vec<u16>,
  whole_units: usize,
  limit: usize,
}

impl Line {
  fn push(&mut self, piece: &[u16]) {
    self.whole_units += piece.len();
    let room = self.limit.saturating_sub(self.units.len());
    self.units.extend_from_slice(&piece[..piece.len().min(room)]);
  }

  fn push_string(&mut self, scope: &v8::Isolate, string: v8::Local<v8::String>) {
    let room = self.limit.saturating_sub(self.units.len());
    self.units.extend(read_utf16_prefix(scope, string, room));
    self.whole_units += string.length();
  }
}

/// Names and symbols the checks below read, made at a run's first console line (none of them is
/// something a program can change).
struct ConsoleNames {
  value: v8::Global<v8::String>,
  enumerable: v8::Global<v8::String>,
  constructor: v8::Global<v8::String>,
  name: v8::Global<v8::String>,
  object_name: v8::Global<v8::String>,
  inspect_custom: v8::Global<v8::Symbol>,
}

impl ConsoleNames {
  fn new(scope: &mut v8::PinScope<'_, '_>) -> Option<Self> {
    let name = |text: &str| {
      let string = v8::String::new_from_one_byte(scope, text.as_bytes(), v8::NewStringType::Internalized)?;
      Some(v8::Global::new(scope, string))
    };
    let (value, enumerable, constructor) = (name("value")?, name("enumerable")?, name("constructor")?);
    let (name_key, object_name) = (name("name")?, name("Object")?);
    let description = v8::String::new(scope, "nodejs.util.inspect.custom")?;
    let inspect_custom = v8::Symbol::for_key(scope, description);
    Some(Self {
      value,
      enumerable,
      constructor,
      name: name_key,
      object_name,
      inspect_custom: v8::Global::new(scope, inspect_custom),
    })
  }
}

/// What the checks hold as handles of the op's scope.
#[derive(Clone, Copy)]
struct Names<'s> {
  value: v8::Local<'s, v8::String>,
  enumerable: v8::Local<'s, v8::String>,
  constructor: v8::Local<'s, v8::String>,
  name: v8::Local<'s, v8::String>,
  object_name: v8::Local<'s, v8::String>,
  inspect_custom: v8::Local<'s, v8::Symbol>,
}

impl<'s> Names<'s> {
  fn of(scope: &mut v8::PinScope<'s, '_>, names: &ConsoleNames) -> Self {
    Self {
      value: v8::Local::new(scope, &names.value),
      enumerable: v8::Local::new(scope, &names.enumerable),
      constructor: v8::Local::new(scope, &names.constructor),
      name: v8::Local::new(scope, &names.name),
      object_name: v8::Local::new(scope, &names.object_name),
      inspect_custom: v8::Local::new(scope, &names.inspect_custom),
    }
  }
}

/// Admits `args` as one console line when each is simple (see the module's note) and says whether
/// it did; `false` leaves the line to inspect.js, with nothing of it admitted.
#[op2(nofast)]
pub fn op_dsh_log_simple<'s>(scope: &mut v8::PinScope<'s, '_>, args: v8::Local<'s, v8::Array>) -> bool {
  let state = JsRuntime::op_state_from(scope);
  if !state.borrow().has::<ConsoleNames>() {
    let Some(names) = ConsoleNames::new(scope) else {
      return false;
    };
    state.borrow_mut().put(names);
  }
  let state = state.borrow();
  let run = state.borrow::<RunContext>();
  let names = Names::of(scope, state.borrow::<ConsoleNames>());
  let mut line = Line {
    units: Vec::new(),
    whole_units: 0,
    limit: run.shared.log_units_worth_reading(),
  };
  let mut world_is_plain = None;
  for index in 0..args.length() {
    if index > 0 {
      line.push(&[u16::from(b' ')]);
    }
    let Some(arg) = args.get_index(scope, index) else {
      return false;
    };
    if let Ok(string) = arg.try_cast::<v8::String>() {
      line.push_string(scope, string);
    } else if let Some(text) = primitive_text(scope, arg) {
      line.push(&text);
    } else {
      if !*world_is_plain.get_or_insert_with(|| objects_print_plainly(scope, &run.intrinsics, names)) {
        return false;
      }
      let Some(text) = flat_object_text(scope, &run.intrinsics, names, arg) else {
        return false;
      };
      line.push(&text);
    }
  }
  run.shared.admit_log(line.units, line.whole_units);
  true
}

/// A primitive other than a string as inspect writes it, or `None` for an object or a symbol
/// with a long description.
fn primitive_text<'s>(scope: &mut v8::PinScope<'s, '_>, value: v8::Local<'s, v8::Value>) -> Option<Vec<u16>> {
  let ascii = |text: &str| Some(text.encode_utf16().collect());
  if value.is_null() {
    ascii("null")
  } else if value.is_undefined() {
    ascii("undefined")
  } else if value.is_true() {
    ascii("true")
  } else if value.is_false() {
    ascii("false")
  } else if value.is_number() {
    let number = value.number_value(scope)?;
    if number == 0.0 && number.is_sign_negative() {
      return ascii("-0");
    }
    // V8's own number-to-text, exactly what `'' + number` gives.
    Some(read_utf16(scope, value.to_string(scope)?))
  } else if value.is_big_int() {
    let mut text = read_utf16(scope, value.to_string(scope)?);
    text.push(u16::from(b'n'));
    Some(text)
  } else if value.is_symbol() {
    let symbol: v8::Local<v8::Symbol> = value.try_cast().ok()?;
    let description = symbol.description(scope);
    let mut text: Vec<u16> = "Symbol(".encode_utf16().collect();
    if !description.is_undefined() {
      let description = description.to_string(scope)?;
      if description.length() > LONGEST_FLAT_STRING {
        return None;
      }
      text.extend(read_utf16(scope, description));
    }
    text.push(u16::from(b')'));
    Some(text)
  } else {
    None
  }
}

/// Whether a plain object's inspect text is decided by its own properties alone: inspect names an
/// object by `Object.prototype.constructor` and its `name`, asks it `instanceof`, and reads
/// `Symbol.toStringTag`, `Symbol.iterator` and its custom-inspect symbol through the prototype.
fn objects_print_plainly<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  intrinsics: &Intrinsics,
  names: Names<'s>,
) -> bool {
  let object_prototype = v8::Local::new(scope, &intrinsics.json.object_prototype);
  let object = v8::Local::new(scope, &intrinsics.object_constructor);
  let function_prototype = v8::Local::new(scope, &intrinsics.function_prototype);
  let looked_up: [v8::Local<v8::Name>; 3] = [
    v8::Symbol::get_to_string_tag(scope).into(),
    v8::Symbol::get_iterator(scope).into(),
    names.inspect_custom.into(),
  ];
  let has_instance = v8::Symbol::get_has_instance(scope);
  looked_up
    .into_iter()
    .all(|symbol| object_prototype.has_own_property(scope, symbol) == Some(false))
    && own_data(scope, object_prototype, names.constructor.into(), names).is_some_and(|value| value == object)
    && own_data(scope, object.into(), names.name.into(), names)
      .is_some_and(|name| name.strict_equals(names.object_name.into()))
    && object.has_own_property(scope, has_instance.into()) == Some(false)
    && object.get_prototype(scope) == Some(function_prototype.into())
}

/// The value of `object`'s own data property `key`; `None` for an accessor or no such property.
fn own_data<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  object: v8::Local<'s, v8::Object>,
  key: v8::Local<'s, v8::Name>,
  names: Names<'s>,
) -> Option<v8::Local<'s, v8::Value>> {
  own_descriptor(scope, object, key, names)?.value
}

/// What inspect needs of an own property's descriptor.
struct Descriptor<'s> {
  /// `None` for an accessor.
  value: Option<v8::Local<'s, v8::Value>>,
  enumerable: bool,
}

fn own_descriptor<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  object: v8::Local<'s, v8::Object>,
  key: v8::Local<'s, v8::Name>,
  names: Names<'s>,
) -> Option<Descriptor<'s>> {
  let descriptor: v8::Local<v8::Object> = object.get_own_property_descriptor(scope, key)?.try_cast().ok()?;
  // V8's own descriptor: `enumerable` is always its own data property, and `value` is one when it
  // describes data, so reading them runs nothing of the program's.
  let value = if descriptor.has_own_property(scope, names.value.into())? {
    Some(descriptor.get(scope, names.value.into())?)
  } else {
    None
  };
  let enumerable = descriptor.get(scope, names.enumerable.into())?.is_true();
  Some(Descriptor { value, enumerable })
}

/// A plain object of data properties holding primitives, as inspect writes it at the top of a
/// line; `None` for anything else. As inspect.js, it reads the own properties of an object with
/// internal slots (a `Map` given `Object.prototype`) as any other's.
fn flat_object_text<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  intrinsics: &Intrinsics,
  names: Names<'s>,
  value: v8::Local<'s, v8::Value>,
) -> Option<Vec<u16>> {
  if value.is_proxy() || value.is_function() || value.is_arguments_object() {
    return None;
  }
  let object: v8::Local<v8::Object> = value.try_cast().ok()?;
  let object_prototype: v8::Local<v8::Value> =
    v8::Local::new(scope, &intrinsics.json.object_prototype).into();
  if object.get_prototype(scope)? != object_prototype {
    return None;
  }
  let args = v8::GetPropertyNamesArgs {
    mode: v8::KeyCollectionMode::OwnOnly,
    property_filter: v8::PropertyFilter::ALL_PROPERTIES,
    index_filter: v8::IndexFilter::IncludeIndices,
    key_conversion: v8::KeyConversionMode::ConvertToString,
  };
  let keys = object.get_property_names(scope, args)?;
  if keys.length() > MOST_FLAT_KEYS {
    return None;
  }
  let mut entries = Vec::with_capacity(keys.length() as usize);
  for index in 0..keys.length() {
    let key: v8::Local<v8::String> = keys.get_index(scope, index)?.try_cast().ok()?;
    // Node does not split a long key, but such keys are rare: they share the strings' bound.
    if key.length() > LONGEST_FLAT_STRING {
      return None;
    }
    let descriptor = own_descriptor(scope, object, key.into(), names)?;
    let property = descriptor.value.filter(|_| descriptor.enumerable)?;
    let mut entry = Vec::new();
    push_key(&mut entry, &read_utf16(scope, key));
    entry.extend(": ".encode_utf16());
    if let Ok(string) = property.try_cast::<v8::String>() {
      if string.length() > LONGEST_FLAT_STRING {
        return None;
      }
      push_quoted(&mut entry, &read_utf16(scope, string));
    } else {
      entry.extend(primitive_text(scope, property)?);
    }
    entries.push(entry);
  }
  let mut text = Vec::new();
  push_flat_object(&mut text, &entries);
  Some(text)
}
