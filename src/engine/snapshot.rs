//! The startup snapshot: deno_core's runtime and the program's world, already built and compiled.
//!
//! Creating a snapshot changes V8's flags for the whole process (`--predictable`, a fixed random
//! seed), so it is made by a separate tool at build time (`src/bin/dsh-snapshot.rs`), never
//! in the addon's process; the addon embeds the bytes.

use deno_core::{Extension, JsRuntimeForSnapshot, PollEventLoopOptions, RuntimeOptions, op2, v8};

use crate::engine::buffers::BufferBudget;

/// Builds the world in a snapshotting runtime and returns the snapshot's bytes.
pub fn create() -> Box<[u8]> {
  // Functions compile lazily, as V8's default: compiled ahead (`--no-lazy`), deno_web's code made
  // the snapshot so large that restoring it took 7.5 ms. The world's `start`, which every run
  // calls, is compiled with its module (see world.js). Without a fixed GC schedule (V8 otherwise
  // times its collections), the random numbers V8 draws for symbol hashes came in a different
  // order in about one run in five: different bytes. The platform starts here, before the runtime
  // (the native-object heap needs it), so deno_core does not add its own snapshot flags: they are
  // given here with ours. No function gets feedback here: one that did (it ran often while the
  // world was built) was queued for Sparkplug on its first call in every isolate, about 0.25 ms
  // on a run's first console line. V8 multiplies the count by a function's bytecode length in an
  // `int`: 10 000 stays within it up to 214 KB of bytecode.
  v8::V8::set_flags_from_string(&format!(
    "{} --predictable-gc-schedule --predictable --random-seed=42 --invocation-count-for-feedback-allocation=10000",
    crate::engine::platform::V8_FLAGS
  ));
  deno_core::JsRuntime::init_platform(None);
  // The builder's own TZ and LANG must not reach the snapshot either.
  crate::engine::locale::fix_locale_and_time_zone();
  let event_loop = crate::engine::isolate::event_loop().expect("a tokio runtime");
  let _entered = event_loop.runtime.enter();
  let mut extensions = crate::engine::world::extensions(BufferBudget::new(usize::MAX));
  stand_in_for_a_run(extensions.last_mut().expect("the world's own extension"));
  let mut js = JsRuntimeForSnapshot::new(RuntimeOptions {
    // The world's entry module runs here and keeps its `start` function on the global object.
    extensions,
    create_params: Some(v8::CreateParams::default().cpp_heap(crate::engine::isolate::cpp_heap())),
    ..Default::default()
  });
  // The world's warm-up called a binding and set a timer: both end through deno_core's event
  // loop, whose code is then compiled too. Before the buffers below are replaced: until then they
  // are the ones through which deno_core's Rust side sees the pending timer.
  event_loop
    .runtime
    .block_on(js.run_event_loop(PollEventLoopOptions::default()))
    .expect("the world's warm-up settles");
  {
    let context = js.main_context();
    v8::scope_with_context!(scope, js.v8_isolate(), context);
    let global = scope.get_current_context().global(scope);
    replace_rust_owned_buffers(scope, global);
  }
  js.snapshot()
}

/// While the snapshot is made there is no run: the world's warm-up (world.js, warm_up.js), which
/// compiles the code every run uses into the snapshot by calling it once, runs only then (the
/// stand-in for `op_dsh_snapshotting` says so) and meets these stand-ins for the ops that belong to
/// a run. They read no clock and keep nothing, so the snapshot's bytes stay the same.
fn stand_in_for_a_run(world: &mut Extension) {
  let world_middleware = world.middleware_fn.take();
  world.middleware_fn = Some(Box::new(move |op| {
    let op = match &world_middleware {
      Some(middleware) => middleware(op),
      None => op,
    };
    match op.name {
      "op_dsh_snapshotting" => op.with_implementation_from(&op_dsh_snapshotting_now()),
      "op_time_origin" => op.with_implementation_from(&op_dsh_no_time_origin()),
      "op_dsh_log" => op.with_implementation_from(&op_dsh_no_log()),
      "op_dsh_log_simple" => op.with_implementation_from(&op_dsh_no_log_simple()),
      "op_dsh_args_json" => op.with_implementation_from(&op_dsh_no_args_json()),
      "op_dsh_binding_admit" => op.with_implementation_from(&op_dsh_no_binding_admit()),
      "op_dsh_binding_call" => op.with_implementation_from(&op_dsh_no_binding_call()),
      _ => op,
    }
  }));
}

#[op2(fast)]
fn op_dsh_snapshotting_now() -> bool {
  true
}

#[op2(fast)]
fn op_dsh_no_time_origin(#[buffer] _time: &mut [u8]) {}

#[op2(fast)]
fn op_dsh_no_log(#[string] _text: &str) -> bool {
  true
}

/// Leaves every line to inspect.js, so that the warm-up compiles it into the snapshot.
#[op2(fast)]
fn op_dsh_no_log_simple(_args: v8::Local<v8::Array>) -> bool {
  false
}

#[op2]
#[string]
fn op_dsh_no_args_json(_value: v8::Local<v8::Value>) -> Option<String> {
  Some("null".to_owned())
}

#[op2(nofast)]
fn op_dsh_no_binding_admit(_args_json: v8::Local<v8::String>, _forced: bool) -> f64 {
  0.0
}

/// Answers `null` after a turn of the event loop, as a host's answer comes.
#[op2]
#[string]
async fn op_dsh_no_binding_call(
  _namespace: u32,
  _name: u32,
  #[string] _args_json: String,
  _admitted_bytes: f64,
) -> String {
  tokio::task::yield_now().await;
  "Vnull".to_owned()
}

/// deno_core hands its JavaScript three small ArrayBuffers over memory that its Rust state owns
/// (tick, immediate and timer counters), and frees that state before V8 writes the snapshot: V8
/// then copied freed memory into the snapshot, bytes that changed from one build to the next.
/// Zeroed arrays that V8 owns take their place first; every runtime restored from the snapshot
/// installs its own again before any JavaScript runs.
fn replace_rust_owned_buffers<'s>(scope: &mut v8::PinScope<'s, '_>, global: v8::Local<'s, v8::Object>) {
  let get = |scope: &mut v8::PinScope<'s, '_>, object: v8::Local<'s, v8::Object>, name: &str| {
    let key = v8::String::new(scope, name).expect("a short name");
    object.get(scope, key.into())
  };
  let core: v8::Local<v8::Object> = get(scope, global, "Deno")
    .and_then(|deno| deno.try_cast::<v8::Object>().ok())
    .and_then(|deno| get(scope, deno, "core"))
    .and_then(|core| core.try_cast().ok())
    .expect("deno_core's Deno.core exists while a snapshot is made");
  let tick = v8::ArrayBuffer::new(scope, 2);
  let immediate = v8::ArrayBuffer::new(scope, 12);
  let timer = v8::ArrayBuffer::new(scope, 4);
  let replacements: [(&str, v8::Local<v8::Value>); 3] = [
    (
      "__setTickInfo",
      v8::Uint8Array::new(scope, tick, 0, 2).expect("2 bytes").into(),
    ),
    (
      "__setImmediateInfo",
      v8::Uint32Array::new(scope, immediate, 0, 3)
        .expect("12 bytes")
        .into(),
    ),
    (
      "__setTimerInfo",
      v8::Int32Array::new(scope, timer, 0, 1).expect("4 bytes").into(),
    ),
  ];
  for (setter, array) in replacements {
    let function: v8::Local<v8::Function> = get(scope, core, setter)
      .and_then(|function| function.try_cast().ok())
      .unwrap_or_else(|| {
        panic!("deno_core's Deno.core.{setter} is gone: the snapshot would copy freed memory")
      });
    function
      .call(scope, core.into(), &[array])
      .unwrap_or_else(|| panic!("Deno.core.{setter} threw"));
  }
}
