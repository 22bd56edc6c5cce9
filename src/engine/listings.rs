//! What a for-in or an object spread would have V8 list in C++ (see src/js/listing_guards.js):
//! asked of every for-in subject and spread source, and of each object on a for-in subject's
//! prototype chain, so it is one fast call that needs no handle scope.

use deno_core::{op2, v8};

/// Listings longer than this are made in JavaScript, or refused (`LONG_LISTING` in polling.js).
const LONG_LISTING: usize = 1 << 16;

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
  let long = |length: usize| if length > LONG_LISTING { LONG } else { SHORT };
  if value.is_proxy() {
    PROXY
  } else if value.is_string_object() {
    STRING_OBJECT
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

/// `value` seen as the kind of value its check above found it to be. Every kind is an opaque view
/// of the same handle (the `v8` crate's own casts are made this way), so only the check matters.
/// # Safety
/// `value` must be a `T`.
unsafe fn as_kind<T>(value: &v8::Value) -> &T {
  // SAFETY: the caller has checked that `value` is a `T`.
  unsafe { &*std::ptr::from_ref(value).cast::<T>() }
}
