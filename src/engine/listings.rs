//! What a for-in or an object spread would have V8 list in C++ (see src/js/listing_guards.js). A
//! value's kind is asked of every for-in subject and spread source, and of each object on a for-in
//! subject's prototype chain, so it is one fast call that needs no handle scope; what stands behind
//! a proxy is asked only of proxies.

use deno_core::{op2, v8};

/// Listings longer than this are made in JavaScript, or refused (`LONG_LISTING` in polling.js).
pub(crate) const LONG_LISTING: usize = 1 << 16;

/// Nothing long: V8's own listing is safe.
const SHORT: u32 = 0;
/// A string, array or typed array with more than `LONG_LISTING` indices.
const LONG: u32 = 1;
/// A proxy: its traps are the program's, and a walk of the chain must not ask it for more.
const PROXY: u32 = 2;
/// A string object, whose length the caller reads (it takes a handle scope).
const STRING_OBJECT: u32 = 3;

/// What listing `value`'s own keys would mean: `SHORT`, `LONG`, `PROXY` or `STRING_OBJECT`.
#[op2(fast)]
pub fn op_dsh_listing_kind(value: &v8::Value) -> u32 {
  listing_kind(value)
}

/// A function of the world that answers `$kind(value)` with a fast call, made again in every
/// isolate: the world's modules took their ops while the snapshot was made, where V8 cannot keep a
/// fast call, and through those every call took the slow path (about 20 ns here, against 12). The
/// world takes them when it is locked down.
macro_rules! fast_kind_function {
  ($scope:expr, $kind:path) => {{
    fn slow(_scope: &mut v8::PinScope, args: v8::FunctionCallbackArguments, mut returned: v8::ReturnValue<v8::Value>) {
      returned.set_uint32($kind(&args.get(0)));
    }
    extern "C" fn fast(_receiver: v8::Local<v8::Value>, value: v8::Local<v8::Value>) -> u32 {
      $kind(&value)
    }
    const FAST: v8::fast_api::CFunction = v8::fast_api::CFunction::new(
      fast as _,
      &v8::fast_api::CFunctionInfo::new(
        v8::fast_api::Type::Uint32.as_info(),
        &[v8::fast_api::Type::V8Value.as_info(), v8::fast_api::Type::V8Value.as_info()],
        v8::fast_api::Int64Representation::Number,
      ),
    );
    v8::FunctionTemplate::builder(slow).build_fast($scope, &[FAST]).get_function($scope)
  }};
}

/// `op_dsh_listing_kind` with a fast call.
pub fn fast_listing_kind<'s>(scope: &mut v8::PinScope<'s, '_>) -> Option<v8::Local<'s, v8::Function>> {
  fast_kind_function!(scope, listing_kind)
}

/// What only the engine can tell of an object: `PROXY`, `STRING_OBJECT` or `SHORT`, with a fast
/// call. Each check is a call into V8 of about 2.4 ns; a for-in asks this of each object on its
/// subject's chain and tells arrays and typed arrays itself, with checks V8's compiler inlines.
pub fn fast_exotic_kind<'s>(scope: &mut v8::PinScope<'s, '_>) -> Option<v8::Local<'s, v8::Function>> {
  fast_kind_function!(scope, exotic_kind)
}

fn exotic_kind(value: &v8::Value) -> u32 {
  if value.is_proxy() {
    PROXY
  } else if value.is_string_object() {
    STRING_OBJECT
  } else {
    SHORT
  }
}

fn listing_kind(value: &v8::Value) -> u32 {
  let long = |length: usize| if length > LONG_LISTING { LONG } else { SHORT };
  let exotic = exotic_kind(value);
  if exotic != SHORT {
    exotic
  } else if value.is_string() {
    // SAFETY: each kind is checked just before it is taken.
    long(unsafe { as_kind::<v8::String>(value) }.length())
  } else if value.is_typed_array() {
    long(unsafe { as_kind::<v8::TypedArray>(value) }.length())
  } else if value.is_array() {
    long(unsafe { as_kind::<v8::Array>(value) }.length() as usize)
  } else {
    SHORT
  }
}

/// How many indices a long value behind `value`'s proxies lists, else 0: the proxies' targets and
/// their prototype chains, followed without calling any trap. V8 lists a proxy's target's own keys
/// when it has no `ownKeys` trap, and goes on down the target's chain when it has no
/// `getPrototypeOf` trap.
#[op2(fast)]
pub fn op_dsh_proxied_long_length<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  value: v8::Local<'s, v8::Value>,
) -> f64 {
  let mut link = Some(value);
  while let Some(value) = link {
    if let Ok(proxy) = value.try_cast::<v8::Proxy>() {
      // A revoked proxy's target is null, where V8 throws without listing.
      link = Some(proxy.get_target(scope));
      continue;
    }
    let length = own_long_length(scope, value);
    if length > 0 {
      return length as f64;
    }
    link = value
      .try_cast::<v8::Object>()
      .ok()
      .and_then(|object| object.get_prototype(scope));
  }
  0.0
}

/// How many indices `value` (not a proxy) lists as its own, when that is more than `LONG_LISTING`.
fn own_long_length<'s>(scope: &mut v8::PinScope<'s, '_>, value: v8::Local<'s, v8::Value>) -> usize {
  let length = match listing_kind(&value) {
    LONG if value.is_string() => value.try_cast::<v8::String>().map_or(0, |text| text.length()),
    LONG if value.is_typed_array() => value
      .try_cast::<v8::TypedArray>()
      .map_or(0, |array| array.length()),
    LONG => value
      .try_cast::<v8::Array>()
      .map_or(0, |array| array.length() as usize),
    STRING_OBJECT => value.try_cast::<v8::Object>().map_or(0, |object| {
      // Its own `length`, a data property that is neither writable nor configurable.
      let key = v8::String::new(scope, "length").expect("a short key");
      object
        .get(scope, key.into())
        .and_then(|length| length.uint32_value(scope))
        .unwrap_or(0) as usize
    }),
    _ => 0,
  };
  if length > LONG_LISTING { length } else { 0 }
}

/// `value` seen as the kind of value its check found it to be. Every kind is an opaque view of the
/// same handle (the `v8` crate's own casts are made this way), so only the check matters.
///
/// # Safety
/// `value` must be a `T`.
unsafe fn as_kind<T>(value: &v8::Value) -> &T {
  // SAFETY: the caller has checked that `value` is a `T`.
  unsafe { &*std::ptr::from_ref(value).cast::<T>() }
}
