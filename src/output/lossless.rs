//! The lossless-JSON check, decided with V8's own type tests, writing `JSON.stringify`'s text.
//!
//! Each property is read exactly once, against prototypes captured before the program ran, so a
//! program that rewrites `Object`, `Array`, `JSON` or `Reflect` cannot change the verdict.

use std::collections::HashMap;

use deno_core::v8;

use crate::output::json_text::push_json_string;

/// Values visited between two checks whether the run has ended.
const STOP_CHECK_INTERVAL: u32 = 4096;

/// Arrays up to this length have their indices counted in one uninterruptible listing.
const SHORT_ARRAY: u32 = 1 << 16;

/// Why a value could not be written.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
  /// Not lossless JSON (or a getter threw while it was read).
  NotLossless,
  /// Lossless, but its text is longer than the budget.
  TooLarge,
}

/// The intrinsic prototypes a lossless container may have, and the listing of its keys, captured
/// before the program runs.
pub struct JsonIntrinsics {
  pub object_prototype: v8::Global<v8::Object>,
  pub array_prototype: v8::Global<v8::Object>,
  /// `Object.keys`: V8 lists an object's enumerable string keys in one step there, where its API
  /// adds every key to a hash set first (2M indices: 0.2 s against 0.66 s, uninterruptible).
  pub object_keys: v8::Global<v8::Function>,
}

/// The intrinsics, as handles of the walk's scope.
#[derive(Clone, Copy)]
struct Captured<'s> {
  object_prototype: v8::Local<'s, v8::Object>,
  array_prototype: v8::Local<'s, v8::Object>,
  object_keys: v8::Local<'s, v8::Function>,
}

enum Frame<'s> {
  Array {
    array: v8::Local<'s, v8::Array>,
    length: u32,
    next: u32,
    /// Whether each index is to be checked as it is written (a long array: see `write_value`).
    check_each: bool,
  },
  Object {
    object: v8::Local<'s, v8::Object>,
    keys: v8::Local<'s, v8::Array>,
    next: u32,
  },
}

impl<'s> Frame<'s> {
  fn container(&self) -> v8::Local<'s, v8::Object> {
    match self {
      Frame::Array { array, .. } => (*array).into(),
      Frame::Object { object, .. } => *object,
    }
  }
}

/// Text of at most `budget` bytes; past it only validation goes on.
struct Output {
  text: String,
  budget: usize,
  over: bool,
}

impl Output {
  fn push(&mut self, piece: &str) {
    if self.over {
      return;
    }
    if self.text.len() + piece.len() > self.budget {
      self.over = true;
    } else {
      self.text.push_str(piece);
    }
  }
}

/// Writes `value` as JSON text of at most `budget` bytes, refusing anything that is not lossless.
/// Gives up (as `NotLossless`) once `stopped` says the run has ended.
pub fn to_json_text<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  intrinsics: &JsonIntrinsics,
  value: v8::Local<'s, v8::Value>,
  budget: usize,
  stopped: &dyn Fn() -> bool,
) -> Result<String, Refusal> {
  v8::tc_scope!(let scope, scope);
  let captured = Captured {
    object_prototype: v8::Local::new(scope, &intrinsics.object_prototype),
    array_prototype: v8::Local::new(scope, &intrinsics.array_prototype),
    object_keys: v8::Local::new(scope, &intrinsics.object_keys),
  };
  let mut out = Output {
    text: String::new(),
    budget,
    over: false,
  };
  let mut stack: Vec<Frame> = Vec::new();
  // The containers being written (the value's ancestors), chained by identity hash: a repeat is a
  // cycle. Hashes collide, so a match is confirmed along its chain only (a scan of every ancestor
  // made a million-deep value quadratic). `latest` holds each hash's innermost open container,
  // `links[i]` the next one out for `stack[i]`: flat tables, freed at once when a walk ends.
  let mut latest: HashMap<i32, usize> = HashMap::new();
  let mut links: Vec<Option<usize>> = Vec::new();
  let mut pending = Some(value);
  let mut steps: u32 = 0;

  loop {
    steps = steps.wrapping_add(1);
    // Nothing here runs JavaScript for plain data, so a termination cannot stop this loop.
    if steps.is_multiple_of(STOP_CHECK_INTERVAL) && stopped() {
      return Err(Refusal::NotLossless);
    }
    if let Some(value) = pending.take() {
      let opened = write_value(scope, &mut out, value, captured)?;
      if let Some(frame) = opened {
        let container = frame.container();
        let hash = container.get_identity_hash().get();
        let mut ancestor = latest.get(&hash).copied();
        while let Some(index) = ancestor {
          if stack[index].container() == container {
            return Err(Refusal::NotLossless);
          }
          ancestor = links[index];
        }
        links.push(latest.insert(hash, stack.len()));
        stack.push(frame);
      }
    }
    let Some(frame) = stack.last_mut() else { break };
    let next_value = match frame {
      Frame::Array {
        array,
        length,
        next,
        check_each,
      } => {
        if *next == *length {
          None
        } else {
          if *next > 0 {
            out.push(",");
          }
          if *check_each && !has_own_index(scope, *array, *next) {
            return Err(Refusal::NotLossless);
          }
          let element = array.get_index(scope, *next);
          *next += 1;
          Some(element)
        }
      }
      Frame::Object { object, keys, next } => {
        if *next == keys.length() {
          None
        } else {
          if *next > 0 {
            out.push(",");
          }
          let key = keys.get_index(scope, *next).ok_or(Refusal::NotLossless)?;
          let key: v8::Local<v8::String> = key.try_cast().map_err(|_| Refusal::NotLossless)?;
          write_string(scope, &mut out, key);
          out.push(":");
          let property = object.get(scope, key.into());
          *next += 1;
          Some(property)
        }
      }
    };
    match next_value {
      Some(Some(value)) if !scope.has_caught() => pending = Some(value),
      Some(_) => return Err(Refusal::NotLossless),
      None => {
        let done = stack.pop().expect("a frame is open");
        out.push(if matches!(done, Frame::Array { .. }) {
          "]"
        } else {
          "}"
        });
        // Containers close innermost first, so the closing one heads its hash's chain.
        let hash = done.container().get_identity_hash().get();
        match links.pop().flatten() {
          Some(outer) => latest.insert(hash, outer),
          None => latest.remove(&hash),
        };
      }
    }
  }
  if out.over {
    Err(Refusal::TooLarge)
  } else {
    Ok(out.text)
  }
}

/// Writes a scalar, or opens a container and returns its frame.
fn write_value<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  out: &mut Output,
  value: v8::Local<'s, v8::Value>,
  captured: Captured<'s>,
) -> Result<Option<Frame<'s>>, Refusal> {
  if value.is_null() {
    out.push("null");
  } else if value.is_true() {
    out.push("true");
  } else if value.is_false() {
    out.push("false");
  } else if value.is_number() {
    let number = value.number_value(scope).ok_or(Refusal::NotLossless)?;
    if !number.is_finite() || (number == 0.0 && number.is_sign_negative()) {
      return Err(Refusal::NotLossless);
    }
    let text = value.to_rust_string_lossy(scope);
    out.push(&text);
  } else if value.is_string() {
    let string: v8::Local<v8::String> = value.try_cast().map_err(|_| Refusal::NotLossless)?;
    write_string(scope, out, string);
  } else if value.is_proxy() || !value.is_object() || is_exotic(&value) {
    return Err(Refusal::NotLossless);
  } else if value.is_array() {
    let array: v8::Local<v8::Array> = value.try_cast().map_err(|_| Refusal::NotLossless)?;
    if array.get_prototype(scope) != Some(captured.array_prototype.into()) {
      return Err(Refusal::NotLossless);
    }
    let length = array.length();
    // Dense and undecorated: exactly the indices and `length`, nothing else, hidden or not. A short
    // array's own keys are counted in one listing. A long one's are listed without its indices,
    // which are checked one by one as they are written, between the walk's checks for the run's
    // end: V8 lists 2M indices in a second that nothing can interrupt.
    let check_each = length > SHORT_ARRAY;
    let (index_filter, own_key_count) = if check_each {
      (v8::IndexFilter::SkipIndices, 1)
    } else {
      (v8::IndexFilter::IncludeIndices, length + 1)
    };
    if own_key_count_of(
      scope,
      array.into(),
      v8::PropertyFilter::ALL_PROPERTIES,
      index_filter,
    )? != own_key_count
    {
      return Err(Refusal::NotLossless);
    }
    out.push("[");
    return Ok(Some(Frame::Array {
      array,
      length,
      next: 0,
      check_each,
    }));
  } else {
    let object: v8::Local<v8::Object> = value.try_cast().map_err(|_| Refusal::NotLossless)?;
    let prototype = object.get_prototype(scope).ok_or(Refusal::NotLossless)?;
    if !prototype.is_null() && prototype != v8::Local::<v8::Value>::from(captured.object_prototype) {
      return Err(Refusal::NotLossless);
    }
    // A plain object, not a proxy: listing its keys runs none of the program's code.
    let receiver = v8::undefined(scope).into();
    let keys: v8::Local<v8::Array> = captured
      .object_keys
      .call(scope, receiver, &[object.into()])
      .and_then(|keys| keys.try_cast().ok())
      .ok_or(Refusal::NotLossless)?;
    // A symbol or non-enumerable key would be silently dropped by JSON: refuse instead. V8 lists
    // every own key one by one into a hash set, which for 2M indices took 0.66 s that nothing could
    // interrupt: an object with more than SHORT_ARRAY enumerable keys has only its names (keys
    // that are not indices) compared (docs/differences.md).
    let short = keys.length() <= SHORT_ARRAY;
    let index_filter = if short {
      v8::IndexFilter::IncludeIndices
    } else {
      v8::IndexFilter::SkipIndices
    };
    let all = own_key_count_of(scope, object, v8::PropertyFilter::ALL_PROPERTIES, index_filter)?;
    let enumerable = if short {
      keys.length()
    } else {
      own_key_count_of(
        scope,
        object,
        v8::PropertyFilter::ONLY_ENUMERABLE | v8::PropertyFilter::SKIP_SYMBOLS,
        v8::IndexFilter::SkipIndices,
      )?
    };
    if all != enumerable {
      return Err(Refusal::NotLossless);
    }
    out.push("{");
    return Ok(Some(Frame::Object {
      object,
      keys,
      next: 0,
    }));
  }
  Ok(None)
}

/// How many own keys of `object` `property_filter` and `index_filter` let through (listed with
/// indices kept as numbers: strings made for them would only be counted).
fn own_key_count_of<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  object: v8::Local<'s, v8::Object>,
  property_filter: v8::PropertyFilter,
  index_filter: v8::IndexFilter,
) -> Result<u32, Refusal> {
  // `get_property_names`: the `own` variant's binding drops the mode and index filter.
  object
    .get_property_names(
      scope,
      v8::GetPropertyNamesArgs {
        mode: v8::KeyCollectionMode::OwnOnly,
        property_filter,
        index_filter,
        key_conversion: v8::KeyConversionMode::KeepNumbers,
      },
    )
    .map(|keys| keys.length())
    .ok_or(Refusal::NotLossless)
}

/// Whether `array` has an own element at `index` (a hole reads through to the prototypes).
fn has_own_index<'s>(scope: &mut v8::PinScope<'s, '_>, array: v8::Local<'s, v8::Array>, index: u32) -> bool {
  let key = v8::Integer::new_from_unsigned(scope, index);
  key
    .to_string(scope)
    .and_then(|key| array.has_own_property(scope, key.into()))
    == Some(true)
}

/// Containers whose state JSON cannot carry, whatever their prototype says.
fn is_exotic(value: &v8::Value) -> bool {
  value.is_function()
    || value.is_date()
    || value.is_reg_exp()
    || value.is_map()
    || value.is_set()
    || value.is_weak_map()
    || value.is_weak_set()
    || value.is_promise()
    || value.is_array_buffer()
    || value.is_shared_array_buffer()
    || value.is_array_buffer_view()
    || value.is_number_object()
    || value.is_string_object()
    || value.is_boolean_object()
    || value.is_big_int_object()
    || value.is_symbol_object()
    || value.is_native_error()
    || value.is_generator_object()
    || value.is_map_iterator()
    || value.is_set_iterator()
    || value.is_module_namespace_object()
    || value.is_arguments_object()
    || value.is_external()
    || value.is_wasm_module_object()
}

/// Reads a string as UTF-16 (lone surrogates kept) and writes its JSON form.
fn write_string(scope: &mut v8::PinScope<'_, '_>, out: &mut Output, string: v8::Local<v8::String>) {
  if out.over {
    return;
  }
  let length = string.length();
  // Every code unit costs at least one byte, so a longer string cannot fit: skip the copy.
  if out.text.len() + length + 2 > out.budget {
    out.over = true;
    return;
  }
  let units = read_utf16(scope, string);
  let mut piece = String::with_capacity(length + 2);
  push_json_string(&mut piece, &units);
  out.push(&piece);
}

/// The UTF-16 code units of a V8 string.
pub fn read_utf16(scope: &v8::Isolate, string: v8::Local<v8::String>) -> Vec<u16> {
  read_utf16_prefix(scope, string, usize::MAX)
}

/// The first `limit` UTF-16 units of `string`, or all of it when shorter; V8 copies them out of a
/// string of any shape without flattening it.
pub fn read_utf16_prefix(scope: &v8::Isolate, string: v8::Local<v8::String>, limit: usize) -> Vec<u16> {
  let mut units = vec![0u16; string.length().min(limit)];
  string.write_v2(scope, 0, &mut units, v8::WriteFlags::empty());
  units
}
