//! `structuredClone`, in place of deno_core's `op_structured_clone`: the same V8 serializer round
//! trip, with every value a program controls checked before use. deno_core's version casts the
//! deserializer it looks up by a host object's `type` without checking, and a program can forge a
//! host object (the brand is a registered symbol): a `type` with no deserializer then aborted the
//! whole process.

use deno_core::{op2, v8};
use deno_error::JsErrorBox;
use v8::{ValueDeserializerHelper as _, ValueSerializerHelper as _};

/// deno_core's brand for objects that serialise themselves (Blob): a function under this symbol
/// returns the data to clone, and the `type` of that data names the deserializer.
const HOST_OBJECT_BRAND: &str = "Deno.core.hostObject";
/// The tag written before a branded object's data.
const BRANDED: u32 = u32::MAX;

struct Delegate<'s> {
  brand: v8::Local<'s, v8::Symbol>,
  deserializers: Option<v8::Local<'s, v8::Object>>,
}

fn throw_error(scope: &mut v8::PinScope<'_, '_>, message: &str) {
  let message = v8::String::new(scope, message).expect("a short message");
  let error = v8::Exception::error(scope, message);
  scope.throw_exception(error);
}

impl v8::ValueSerializerImpl for Delegate<'_> {
  fn throw_data_clone_error<'s>(&self, scope: &mut v8::PinScope<'s, '_>, message: v8::Local<'s, v8::String>) {
    let error = v8::Exception::type_error(scope, message);
    scope.throw_exception(error);
  }

  fn has_custom_host_object(&self, _isolate: &v8::Isolate) -> bool {
    true
  }

  fn is_host_object<'s>(
    &self,
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Object>,
  ) -> Option<bool> {
    object.has(scope, self.brand.into())
  }

  fn write_host_object<'s>(
    &self,
    scope: &mut v8::PinScope<'s, '_>,
    object: v8::Local<'s, v8::Object>,
    serializer: &dyn v8::ValueSerializerHelper,
  ) -> Option<bool> {
    let serialize = object.get(scope, self.brand.into())?;
    let Ok(serialize) = serialize.try_cast::<v8::Function>() else {
      let message = v8::String::new(scope, "Unsupported object type").expect("a short message");
      self.throw_data_clone_error(scope, message);
      return None;
    };
    let data = serialize.call(scope, object.into(), &[])?;
    serializer.write_uint32(BRANDED);
    serializer.write_value(scope.get_current_context(), data)
  }
}

impl v8::ValueDeserializerImpl for Delegate<'_> {
  fn read_host_object<'s>(
    &self,
    scope: &mut v8::PinScope<'s, '_>,
    deserializer: &dyn v8::ValueDeserializerHelper,
  ) -> Option<v8::Local<'s, v8::Object>> {
    let mut tag = 0;
    if deserializer.read_uint32(&mut tag)
      && tag == BRANDED
      && let Some(deserializers) = self.deserializers
      && let Some(data) = deserializer.read_value(scope.get_current_context())
    {
      // V8 forbids JavaScript while it deserialises; the lookup may run some (a `type` key's
      // conversion to a property key) and the deserializer is JavaScript.
      let scope = std::pin::pin!(v8::AllowJavascriptExecutionScope::new(scope));
      let scope = &mut scope.init();
      let object = data.to_object(scope)?;
      let key = v8::String::new(scope, "type").expect("a short key");
      let kind = object.get(scope, key.into())?;
      let deserializers = v8::Local::new(scope, deserializers);
      if let Ok(deserialize) = deserializers.get(scope, kind)?.try_cast::<v8::Function>() {
        let receiver = v8::null(scope).into();
        return deserialize.call(scope, receiver, &[data])?.to_object(scope);
      }
    }
    throw_error(scope, "Failed to deserialize host object");
    None
  }
}

/// The structured clone of `value`; branded objects are rebuilt by `deserializers[type]`.
#[op2(reentrant)]
pub fn op_dsh_structured_clone<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  value: v8::Local<'s, v8::Value>,
  deserializers: Option<v8::Local<'s, v8::Object>>,
) -> Result<v8::Local<'s, v8::Value>, JsErrorBox> {
  let key = v8::String::new(scope, HOST_OBJECT_BRAND).expect("a short key");
  let brand = v8::Symbol::for_key(scope, key);
  let serializer = v8::ValueSerializer::new(scope, Box::new(Delegate { brand, deserializers }));
  serializer.write_header();
  v8::tc_scope!(let scope, scope);
  let written = serializer.write_value(scope.get_current_context(), value);
  if scope.has_caught() || scope.has_terminated() {
    scope.rethrow();
    return Ok(v8::undefined(scope).into());
  }
  if written != Some(true) {
    return Err(JsErrorBox::type_error("Failed to serialize response"));
  }
  let bytes = serializer.release();
  let deserializer = v8::ValueDeserializer::new(scope, Box::new(Delegate { brand, deserializers }), &bytes);
  if deserializer.read_header(scope.get_current_context()) != Some(true) {
    return Err(JsErrorBox::range_error("could not deserialize value"));
  }
  match deserializer.read_value(scope.get_current_context()) {
    Some(value) => Ok(value),
    None if scope.has_caught() || scope.has_terminated() => {
      scope.rethrow();
      Ok(v8::undefined(scope).into())
    }
    None => Err(JsErrorBox::range_error("could not deserialize value")),
  }
}
