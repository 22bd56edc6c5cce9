//! The ops the program's world calls: logs, completion, exit and binding calls.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use deno_core::futures::FutureExt;
use deno_core::{JsRuntime, OpState, op2, v8};
use deno_error::JsErrorBox;
use deno_web::BlobStoreTrait;

use crate::engine::blobs::CountedBlobStore;
use crate::engine::buffers::{BufferBudget, CountedBytes, backing_store_of, unwritten_share};
use crate::engine::digest;
use crate::engine::heap_cap;
use crate::engine::intrinsics::Intrinsics;
use crate::engine::stack::render_thrown;
use crate::engine::world_functions::WorldFunction;
use crate::limits::budgets::Limit;
use crate::limits::calls_in_flight::Admission;
use crate::limits::run::{BindingDispatch, RunShared};
use crate::output::ledger::{Ending, FailureKind};
use crate::output::lossless::{Refusal, read_utf16, read_utf16_prefix, to_json_text};
use crate::program::listing_guards::ColumnShifts;
use crate::program::own_text::GuardedText;

/// What the ops of one run share, kept in its `OpState`.
pub struct RunContext {
  pub shared: Arc<RunShared>,
  pub dispatch: Option<BindingDispatch>,
  pub intrinsics: Intrinsics,
}

fn with_context<R>(scope: &v8::Isolate, f: impl FnOnce(&RunContext) -> R) -> R {
  let state = JsRuntime::op_state_from(scope);
  let state = state.borrow();
  f(state.borrow::<RunContext>())
}

/// Admits one log entry; `false` once the output budget is spent (the run is then over).
#[op2(nofast)]
pub fn op_dsh_log(scope: &mut v8::PinScope<'_, '_>, text: v8::Local<v8::String>) -> bool {
  // Of an entry longer than the whole cap, only what the ledger keeps is read: copying a string
  // near V8's limit took a second, with the run's budgets passed and termination unchecked.
  let worth_reading = with_context(scope, |run| run.shared.log_units_worth_reading());
  let whole_units = text.length();
  let units = read_utf16_prefix(scope, text, worth_reading);
  with_context(scope, |run| run.shared.admit_log(units, whole_units))
}

/// The lossless JSON text of a binding argument, or `undefined` when it is not lossless.
// Getters run while the value is read, so these two re-enter JavaScript.
#[op2(reentrant)]
#[string]
pub fn op_dsh_args_json<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  value: v8::Local<'s, v8::Value>,
) -> Option<String> {
  let state = JsRuntime::op_state_from(scope);
  let state = state.borrow();
  let run = state.borrow::<RunContext>();
  to_json_text(scope, &run.intrinsics.json, value, usize::MAX, &|| {
    run.shared.is_finished()
  })
  .ok()
}

/// The program's promise fulfilled with `value`.
#[op2(nofast, reentrant)]
pub fn op_dsh_settle_value<'s>(scope: &mut v8::PinScope<'s, '_>, value: v8::Local<'s, v8::Value>) {
  let state = JsRuntime::op_state_from(scope);
  let state = state.borrow();
  let run = state.borrow::<RunContext>();
  if heap_cap::over_cap(scope) {
    run.shared.stop(Limit::Heap);
    return;
  }
  let ending = if value.is_undefined() {
    Ending::NoValue
  } else {
    let stopped = || run.shared.is_finished();
    match to_json_text(
      scope,
      &run.intrinsics.json,
      value,
      run.shared.remaining_output(),
      &stopped,
    ) {
      Ok(json) => Ending::Value(json),
      Err(Refusal::TooLarge) => Ending::TooLarge,
      Err(Refusal::NotLossless) => RunShared::failure(
        FailureKind::InvalidOutput,
        "program completion must be lossless JSON",
      ),
    }
  };
  run.shared.finish(ending);
}

/// The program threw: the world passes this op to V8 as the program promise's rejection reaction,
/// so no frame of ours sits below a program's `Error.prepareStackTrace` while it runs.
#[op2(nofast, reentrant)]
pub fn op_dsh_settle_thrown<'s>(scope: &mut v8::PinScope<'s, '_>, thrown: v8::Local<'s, v8::Value>) {
  settle_thrown(scope, thrown);
}

/// An error escaped a timer, a microtask or an unhandled rejection: it is rendered in a microtask
/// of its own, queued by V8, which runs with no frame of ours (or deno_core's) below it.
#[op2(nofast)]
pub fn op_dsh_settle_thrown_later<'s>(scope: &mut v8::PinScope<'s, '_>, thrown: v8::Local<'s, v8::Value>) {
  if let Some(task) = v8::Function::builder(settle_thrown_task)
    .data(thrown)
    .build(scope)
  {
    scope.enqueue_microtask(task);
  }
}

fn settle_thrown_task<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  args: v8::FunctionCallbackArguments<'s>,
  _rv: v8::ReturnValue,
) {
  settle_thrown(scope, args.data());
}

/// Renders `thrown` (its stack, message or `String()`) and ends the run with it as `exception`.
fn settle_thrown<'s>(scope: &mut v8::PinScope<'s, '_>, thrown: v8::Local<'s, v8::Value>) {
  let state = JsRuntime::op_state_from(scope);
  let state = state.borrow();
  let run = state.borrow::<RunContext>();
  if heap_cap::over_cap(scope) {
    run.shared.stop(Limit::Heap);
    return;
  }
  let error_prototype = v8::Local::new(scope, &run.intrinsics.error_prototype);
  let Some(text) = render_thrown(scope, error_prototype, thrown) else {
    // Terminated while rendering: the run's ending is already decided.
    return;
  };
  // Every code unit costs at least a byte: a longer text cannot fit, so it is never copied.
  let ending = if text.length() > run.shared.remaining_output() {
    Ending::TooLarge
  } else {
    Ending::Failure(FailureKind::Exception, read_utf16(scope, text))
  };
  run.shared.finish(ending);
}

/// Whether the world is being built into the startup snapshot: never in a run's isolate. While the
/// snapshot is made, a stand-in says yes (`snapshot::stand_in_for_a_run`), and the world warms up.
#[op2(fast)]
pub fn op_dsh_snapshotting() -> bool {
  false
}

/// Whether `value` is a proxy: the array built-ins keep V8's own code only for real arrays, whose
/// `length` a trap cannot change between our read and V8's.
#[op2(fast)]
pub fn op_dsh_is_proxy(value: v8::Local<v8::Value>) -> bool {
  value.is_proxy()
}

/// The bytes an element of an array's backing store takes: a tagged pointer, 8 bytes with the
/// pointer compression this V8 is built without (with it, 4: the guess would only be cautious).
const ARRAY_ELEMENT_BYTES: f64 = 8.0;

/// For the array guard (src/js/interruptible.js): whether the backing store of an array of
/// `length` elements is past the heap limit however much is collected; the run then ends as the
/// heap's, before V8 asks for that store in one request the near-limit hook must let through.
#[op2(nofast)]
pub fn op_dsh_array_past_heap(scope: &mut v8::PinScope<'_, '_>, length: f64) -> bool {
  let limit = heap_cap::limit(scope) as f64;
  if length * ARRAY_ELEMENT_BYTES <= limit {
    return false;
  }
  let state = JsRuntime::op_state_from(scope);
  let state = state.borrow();
  if let Some(run) = state.try_borrow::<RunContext>() {
    run.shared.stop(Limit::Heap);
  }
  true
}

/// `value` as V8 prints it in its own error messages, without calling any of the program's code
/// (`#<Object>` for an object), for the array built-ins the world writes in JavaScript; a V8 string,
/// so that a lone surrogate in it stays as it is.
#[op2]
pub fn op_dsh_detail_string<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  value: v8::Local<'s, v8::Value>,
) -> v8::Local<'s, v8::String> {
  value
    .to_detail_string(scope)
    .unwrap_or_else(|| v8::String::empty(scope))
}

/// `process.exit(code)`.
#[op2(nofast)]
pub fn op_dsh_exit(scope: &mut v8::PinScope<'_, '_>, code: i32) {
  let message = format!("worker exited with code {code} before completing");
  with_context(scope, |run| {
    run
      .shared
      .finish(RunShared::failure(FailureKind::WorkerExit, &message))
  });
}

/// Counts a binding call whose arguments' JSON is `args_json` as awaiting its answer, if the run's
/// calls in flight have room for it (`forced`: whatever they say): its bytes, to be given back to
/// `op_dsh_binding_call`, or -1 when it must wait for answers to free room. Throws, with the
/// message its rejection carries, for arguments that could never fit.
#[op2(nofast)]
pub fn op_dsh_binding_admit(
  scope: &mut v8::PinScope<'_, '_>,
  args_json: v8::Local<v8::String>,
  forced: bool,
) -> Result<f64, JsErrorBox> {
  let bytes = args_json.utf8_length(scope);
  with_context(scope, |run| match run.shared.admit_binding_call(bytes, forced) {
    Admission::Sent => Ok(bytes as f64),
    Admission::Wait => Ok(-1.0),
    Admission::Refused(message) => Err(JsErrorBox::generic(message)),
  })
}

/// Sends a binding call admitted by `op_dsh_binding_admit` with `admitted_bytes` to the host;
/// resolves with `V<json>` or `E<json message>` from the host wrapper.
#[op2]
#[string]
pub async fn op_dsh_binding_call(
  state: Rc<RefCell<OpState>>,
  namespace: u32,
  name: u32,
  #[string] args_json: String,
  admitted_bytes: f64,
) -> Result<String, JsErrorBox> {
  let (dispatch, shared) = {
    let state = state.borrow();
    let run = state.borrow::<RunContext>();
    (run.dispatch.clone(), run.shared.clone())
  };
  // Only the world calls this op, with what the admission returned.
  let admitted_bytes = admitted_bytes as usize;
  let Some(dispatch) = dispatch else {
    shared.release_binding_call(admitted_bytes);
    return Err(JsErrorBox::generic("no host bindings are available to this run"));
  };
  let (call, answer) = shared.wait_for_answer();
  let sent = Instant::now();
  if !dispatch.send(call, namespace, name, args_json) {
    shared.release_binding_call(admitted_bytes);
    return Err(JsErrorBox::generic("the host is no longer taking binding calls"));
  }
  shared.binding_call_started();
  let answer = answer.await;
  shared.answer_wait.observe(sent.elapsed());
  shared.binding_call_ended();
  shared.release_binding_call(admitted_bytes);
  let answer = answer.map_err(|_| JsErrorBox::generic("the binding call was dropped"))?;
  Ok(refuse_if_too_large(answer, shared.limits.heap_bytes))
}

/// The binding's own rejection with `message`, as the host wrapper tags one.
fn rejection(message: String) -> String {
  format!("E{}", serde_json::Value::String(message))
}

/// An answer whose text alone outgrows the run's heap cap could never become a value in it: it
/// reaches the program as the binding's own rejection, naming the cap, instead of a heap failure.
fn refuse_if_too_large(tagged: String, heap_bytes: usize) -> String {
  if tagged.len() <= heap_bytes {
    return tagged;
  }
  let message = format!(
    "the binding's answer ({} bytes of JSON) does not fit the run's heap cap (maxOldGenerationSizeMb: {} MB)",
    tagged.len() - 1,
    heap_bytes as f64 / (1024.0 * 1024.0)
  );
  rejection(message)
}

#[cfg(test)]
mod tests {
  use super::refuse_if_too_large;

  #[test]
  fn answers_that_fit_the_heap_cap_pass_and_larger_ones_become_rejections() {
    let fits = format!("V\"{}\"", "a".repeat(1000));
    assert_eq!(refuse_if_too_large(fits.clone(), fits.len()), fits);
    assert_eq!(refuse_if_too_large(fits.clone(), 1 << 10), fits);
    let large = format!("V\"{}\"", "a".repeat(2 << 20));
    assert_eq!(
      refuse_if_too_large(large, 1 << 20),
      "E\"the binding's answer (2097154 bytes of JSON) does not fit the run's heap cap (maxOldGenerationSizeMb: 1 MB)\""
    );
  }
}

/// Keeps the functions of the world the runtime calls where it finds them (`WorldFunction`). Only
/// the world's entry module calls it, once.
#[op2(nofast)]
pub fn op_dsh_keep_world<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  start: v8::Local<'s, v8::Function>,
  lockdown: v8::Local<'s, v8::Function>,
  has_tick_scheduled: v8::Local<'s, v8::Function>,
  run_next_ticks: v8::Local<'s, v8::Function>,
  load_node_module: v8::Local<'s, v8::Function>,
  own_call_sites: v8::Local<'s, v8::Function>,
) {
  let global = scope.get_current_context().global(scope);
  for (which, function) in [
    (WorldFunction::Start, start),
    (WorldFunction::Lockdown, lockdown),
    (WorldFunction::HasTickScheduled, has_tick_scheduled),
    (WorldFunction::RunNextTicks, run_next_ticks),
    (WorldFunction::LoadNodeModule, load_node_module),
    (WorldFunction::OwnCallSites, own_call_sites),
  ] {
    let key = which.key(scope);
    if global.has_private(scope, key) != Some(true) {
      global.set_private(scope, key, function.into());
    }
  }
}

/// node:crypto's `createHash(...).digest()` over all the data given to `update`.
#[op2]
#[buffer]
pub fn op_dsh_digest(#[string] algorithm: &str, #[buffer] data: &[u8]) -> Result<Vec<u8>, JsErrorBox> {
  Ok(digest::digest(hash_algorithm(algorithm)?, data))
}

/// `sha256:<hex>` of a text's UTF-8: a durable run's name for a call's arguments.
#[op2]
#[string]
pub fn op_dsh_text_sha256(#[string] text: &str) -> String {
  digest::sha256_label(text.as_bytes())
}

/// node:crypto's `createHmac(...).digest()`.
#[op2]
#[buffer]
pub fn op_dsh_hmac(
  #[string] algorithm: &str,
  #[buffer] key: &[u8],
  #[buffer] data: &[u8],
) -> Result<Vec<u8>, JsErrorBox> {
  Ok(digest::hmac(hash_algorithm(algorithm)?, key, data))
}

/// A hash or HMAC fed a piece at a time, by a loop in JavaScript that the budgets stop between pieces.
/// It lives only while one input is hashed, so a program cannot hold many.
pub struct PieceHasher(RefCell<Option<digest::Hasher>>);

// SAFETY: it holds plain hash state and no reference into the V8 heap.
unsafe impl deno_core::GarbageCollected for PieceHasher {
  fn trace(&self, _visitor: &mut v8::cppgc::Visitor) {}

  fn get_name(&self) -> &'static std::ffi::CStr {
    c"PieceHasher"
  }
}

#[op2]
#[cppgc]
pub fn op_dsh_hasher(#[string] algorithm: &str) -> Result<PieceHasher, JsErrorBox> {
  Ok(PieceHasher(RefCell::new(Some(digest::Hasher::new(
    hash_algorithm(algorithm)?,
  )))))
}

/// An HMAC, fed as [`op_dsh_hasher`]'s hash is.
#[op2]
#[cppgc]
pub fn op_dsh_keyed_hasher(
  #[string] algorithm: &str,
  #[buffer] key: &[u8],
) -> Result<PieceHasher, JsErrorBox> {
  Ok(PieceHasher(RefCell::new(Some(digest::Hasher::keyed(
    hash_algorithm(algorithm)?,
    key,
  )))))
}

#[op2(fast)]
pub fn op_dsh_hasher_update(#[cppgc] hasher: &PieceHasher, #[buffer] data: &[u8]) -> Result<(), JsErrorBox> {
  match hasher.0.borrow_mut().as_mut() {
    Some(state) => {
      state.update(data);
      Ok(())
    }
    None => Err(JsErrorBox::generic("the hash was already finished")),
  }
}

#[op2]
#[buffer]
pub fn op_dsh_hasher_finish(#[cppgc] hasher: &PieceHasher) -> Result<Vec<u8>, JsErrorBox> {
  match hasher.0.borrow_mut().take() {
    Some(state) => Ok(state.finish()),
    None => Err(JsErrorBox::generic("the hash was already finished")),
  }
}

fn hash_algorithm(name: &str) -> Result<digest::Algorithm, JsErrorBox> {
  digest::Algorithm::parse(name).ok_or_else(|| JsErrorBox::generic("Digest method not supported"))
}

/// A Blob's bytes, copied out of the program's heap: counted against the run's ArrayBuffer cap
/// like any backing store, and refused as a `RangeError` past it. Takes the place of deno_web's
/// `op_blob_create_part`, which has no limit.
#[op2]
pub fn op_dsh_blob_create_part(state: &mut OpState, #[buffer] data: &[u8]) -> Result<uuid::Uuid, JsErrorBox> {
  let encoded = state.borrow_mut::<LastEncoded>().0.take();
  let blobs = state.borrow::<Arc<CountedBlobStore>>();
  if let Some(encoded) = encoded.filter(|encoded| std::ptr::eq(encoded.as_slice(), data)) {
    return Ok(blobs.insert_counted(encoded));
  }
  blobs.insert_copy(data).ok_or_else(|| {
    JsErrorBox::range_error(format!(
      "a Blob part of {} bytes does not fit the run's ArrayBuffer memory cap",
      data.len()
    ))
  })
}

/// An ArrayBuffer standing for `bytes` of ICU's memory behind an Intl object (intl_memory.js),
/// counted against the run's cap while it lives; `null` when they would pass the cap.
#[op2]
pub fn op_dsh_icu_share<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  state: Rc<RefCell<OpState>>,
  bytes: u32,
) -> Option<v8::Local<'s, v8::ArrayBuffer>> {
  let budget = state.borrow().borrow::<Arc<BufferBudget>>().clone();
  let store = match unwritten_share(&budget, bytes as usize) {
    Some(store) => store,
    None => {
      // As V8 does when an ArrayBuffer does not fit: collect, then try once more. Shares of
      // objects a program dropped (a loop formatting dates) hold the budget until a collection,
      // which V8 would not start for them before the cap.
      scope.low_memory_notification();
      unwritten_share(&budget, bytes as usize)?
    }
  };
  Some(v8::ArrayBuffer::with_backing_store(scope, &store.make_shared()))
}

/// Whether the program has been given, or asked for, an ArrayBuffer long enough for a typed array
/// the runtime lists itself: JSON.stringify's guard for them (polling.js) is in place only then.
#[op2(fast)]
pub fn op_dsh_long_buffer_made(state: &OpState) -> bool {
  state.borrow::<Arc<BufferBudget>>().long_made()
}

/// The program's own 1-based column for V8's `column` on `line` of the program's script: where the
/// listing guards inserted text before it, V8's is further right.
// Shared, not taken: a call site is read while V8 builds a stack, and an op may hold the state.
#[op2(fast)]
pub fn op_dsh_own_column(state: Rc<RefCell<OpState>>, line: u32, column: u32) -> u32 {
  let Ok(state) = state.try_borrow() else {
    return column;
  };
  state
    .try_borrow::<Rc<ColumnShifts>>()
    .map_or(column, |shifts| shifts.original_column(line, column))
}

/// The guarded program of a run, and the id of the script V8 compiled it in.
pub struct ProgramSource {
  pub script: i32,
  pub text: GuardedText,
}

/// The program's own source text of `function`, given V8's `text` of it; `null` unless it is a
/// function of the program whose text holds something the listing guards inserted.
#[op2]
pub fn op_dsh_own_source<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  function: v8::Local<'s, v8::Value>,
  text: v8::Local<'s, v8::String>,
) -> Option<v8::Local<'s, v8::String>> {
  let state = JsRuntime::op_state_from(scope);
  let program = state
    .try_borrow()
    .ok()?
    .try_borrow::<Rc<ProgramSource>>()?
    .clone();
  let function = function.try_cast::<v8::Function>().ok()?;
  if function.script_id() != program.script {
    return None;
  }
  let line = function.get_script_line_number()?;
  let column = function.get_script_column_number()?;
  let own = program.text.own_text(line, column, &read_utf16(scope, text))?;
  v8::String::new_from_two_byte(scope, &own, v8::NewStringType::Normal)
}

/// The bytes of the last `core.encode`, which deno_web hands straight to `op_blob_create_part`
/// for each string part of a Blob: the part keeps them, instead of a copy.
#[derive(Default)]
pub struct LastEncoded(Option<Arc<CountedBytes>>);

/// deno_core's `core.encode`, with its bytes counted against the run's ArrayBuffer cap: deno_core
/// makes them outside it, and a Blob of a long text held them uncounted until a collection.
#[op2]
pub fn op_dsh_encode<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  state: &mut OpState,
  text: v8::Local<'s, v8::Value>,
) -> Result<v8::Local<'s, v8::Uint8Array>, JsErrorBox> {
  let text =
    v8::Local::<v8::String>::try_from(text).map_err(|_| JsErrorBox::type_error("Invalid argument"))?;
  // The last encoding is no longer wanted for a Blob part.
  state.borrow_mut::<LastEncoded>().0 = None;
  let budget = state.borrow::<Arc<BufferBudget>>();
  let len = text.utf8_length(scope);
  if !budget.reserve(len) {
    return Err(JsErrorBox::range_error(format!(
      "the {len} bytes of a text's UTF-8 do not fit the run's ArrayBuffer memory cap"
    )));
  }
  // Written straight into the reserved length: a Rust `String` of a long text is made with twice
  // its length, outside the cap. Lone surrogates become U+FFFD, as `encode` makes them.
  let mut bytes = Box::<[u8]>::new_uninit_slice(len);
  let written = text.write_utf8_uninit_v2(scope, &mut bytes, v8::WriteFlags::kReplaceInvalidUtf8, None);
  if written != len {
    budget.release(len);
    return Err(JsErrorBox::generic(
      "a text's UTF-8 came out shorter than V8 measured it",
    ));
  }
  // SAFETY: V8 wrote all `len` bytes.
  let bytes = CountedBytes::new(budget, unsafe { bytes.assume_init() });
  let store = backing_store_of(&bytes).make_shared();
  state.borrow_mut::<LastEncoded>().0 = Some(bytes);
  let buffer = v8::ArrayBuffer::with_backing_store(scope, &store);
  v8::Uint8Array::new(scope, buffer, 0, len)
    .ok_or_else(|| JsErrorBox::range_error("a text's UTF-8 is too long for a Uint8Array"))
}

/// The size of a stored Blob part, for `Blob#stream` to make the buffer it reads it into.
#[op2]
#[number]
pub fn op_dsh_blob_part_size(state: &OpState, #[scoped] id: uuid::Uuid) -> Result<usize, JsErrorBox> {
  Ok(stored_part(state, &id)?.size())
}

fn stored_part(
  state: &OpState,
  id: &uuid::Uuid,
) -> Result<Arc<dyn deno_web::BlobPart + Send + Sync>, JsErrorBox> {
  state
    .borrow::<Arc<CountedBlobStore>>()
    .get_part(id)
    .ok_or_else(|| JsErrorBox::type_error("the Blob part is no longer stored"))
}

/// Copies a Blob part into `target`, a buffer the program's heap made (and the run's cap counts),
/// for `Blob#stream`: deno_web's `op_blob_read_part` returns a copy made outside the counting
/// allocator, and a program that kept 40 reads of a 16 MiB Blob's stream held 687 MB at a 64 MB cap.
#[op2]
pub fn op_dsh_blob_read_part_into(
  state: &OpState,
  #[scoped] id: uuid::Uuid,
  #[buffer] target: &mut [u8],
) -> Result<(), JsErrorBox> {
  let part = stored_part(state, &id)?;
  // Every part a program can make here is in memory: its read is ready at once.
  let bytes = part
    .read()
    .now_or_never()
    .ok_or_else(|| JsErrorBox::type_error("the Blob part is not in memory"))?;
  target
    .get_mut(..bytes.len())
    .ok_or_else(|| JsErrorBox::range_error("the buffer is shorter than the Blob part"))?
    .copy_from_slice(bytes);
  Ok(())
}

/// What deno_web's Blob asks of `op_blob_slice_part`.
#[derive(deno_core::FromV8)]
pub struct SliceOptions {
  start: usize,
  len: usize,
}

/// A slice of a Blob part, in place of deno_web's `op_blob_slice_part`, whose bounds check could
/// overflow (see `world::SlicedPart`).
#[op2]
pub fn op_dsh_blob_slice_part(
  state: &mut OpState,
  #[scoped] id: uuid::Uuid,
  #[scoped] options: SliceOptions,
) -> Result<uuid::Uuid, JsErrorBox> {
  state
    .borrow::<Arc<CountedBlobStore>>()
    .insert_slice(&id, options.start, options.len)
    .ok_or_else(|| JsErrorBox::type_error("the Blob slice is outside its part"))
}
