//! One isolate: prepared (runtime, world, hooks) before its run is known, then used for exactly
//! one run and dropped on the thread that made it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::Poll;
use std::time::Duration;

use deno_core::{JsRuntime, PollEventLoopOptions, RuntimeOptions, v8};

use crate::engine::buffers::{BufferBudget, counting_allocator};
use crate::engine::heap_cap;
use crate::engine::intrinsics::Intrinsics;
use crate::engine::ops::{ProgramSource, RunContext};
use crate::engine::world_functions::WorldFunction;
use crate::limits::answer_wait::MAX_SPIN;
use crate::limits::blocking::BlockingThreads;
use crate::limits::budgets::Limit;
use crate::limits::run::{BindingDispatch, RunShared};
use crate::output::ledger::{Ending, FailureKind, Text};
use crate::output::lossless::read_utf16;
use crate::program::listing_guards::{GuardNames, Guards};
use crate::program::own_text::{Change, GuardedText};
use crate::program::strip::Stripped;

/// The snapshot embedded at build time (see `build.rs`); empty when built without one.
static SNAPSHOT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/snapshot.bin"));

const NEVER_SETTLES: &str =
  "program awaits a promise that can never settle (no timer, binding call or other work is pending)";

/// The largest single request V8 makes of its heap, with room to spare: a string of at most
/// 2^29 - 24 two-byte characters, or a FixedArray of at most 2^27 eight-byte elements.
const LARGEST_ALLOCATION: usize = 1 << 30 | 1 << 28;

/// Room in the old generation for the world a program starts in: the snapshot's heap and the
/// world's own objects take about 2 MB before any program runs. V8 gets it on top of its share of
/// the program's cap, because the snapshot is restored before a near-limit hook can exist: a cap
/// too small for the world (6 MB and below, where V8 gives most of a small heap to the young
/// generation) ended on V8's fatal out-of-memory path while the isolate was being created.
const WORLD_HEAP: usize = 4 << 20;

/// Isolate threads alive right now, in this process (prepared ones included).
static LIVE_ISOLATE_THREADS: AtomicUsize = AtomicUsize::new(0);

pub fn live_isolate_threads() -> usize {
  LIVE_ISOLATE_THREADS.load(Ordering::SeqCst)
}

/// Counts an isolate thread for as long as it is held.
pub struct LiveThread;

impl LiveThread {
  pub fn enter() -> Self {
    LIVE_ISOLATE_THREADS.fetch_add(1, Ordering::SeqCst);
    Self
  }
}

impl Drop for LiveThread {
  fn drop(&mut self) {
    LIVE_ISOLATE_THREADS.fetch_sub(1, Ordering::SeqCst);
  }
}

/// The heap for deno_crypto's native objects (keys, `crypto` itself). Marked and swept on the
/// isolate's own thread, as V8 runs everything else here (`--single-threaded`).
pub fn cpp_heap() -> v8::UniqueRef<v8::cppgc::Heap> {
  v8::cppgc::Heap::create(
    v8::V8::get_current_platform(),
    v8::cppgc::HeapCreateParams {
      marking_support: v8::cppgc::MarkingType::Incremental,
      sweeping_support: v8::cppgc::SweepingType::Incremental,
    },
  )
}

/// A current-thread tokio runtime: deno_core aborts the process if V8 posts a delayed task
/// for an isolate created outside one. Every isolate is created inside a runtime of its own,
/// dropped right after it, so V8's delayed tasks for it go too (see `pool`).
pub struct EventLoop {
  pub runtime: tokio::runtime::Runtime,
  /// Web Crypto's work, off the isolate thread: one piece at a time, each on a thread that ends
  /// with it, counted in the run's busy time. Dropping the runtime drops the work still queued
  /// and waits for the piece in progress.
  pub blocking: BlockingThreads,
}

pub fn event_loop() -> Result<EventLoop, String> {
  let blocking = BlockingThreads::default();
  let (started, stopping) = (blocking.clone(), blocking.clone());
  let runtime = tokio::runtime::Builder::new_current_thread()
    .enable_all()
    .max_blocking_threads(1)
    .thread_keep_alive(Duration::ZERO)
    .on_thread_start(move || started.thread_started())
    .on_thread_stop(move || stopping.thread_stopping())
    .build()
    .map_err(|error| format!("could not start the isolate's event loop: {error}"))?;
  Ok(EventLoop { runtime, blocking })
}

/// The functions of the world a run calls, taken once per isolate.
struct WorldEntry {
  start: v8::Global<v8::Function>,
  has_tick_scheduled: v8::Global<v8::Function>,
  run_next_ticks: v8::Global<v8::Function>,
}

pub struct PreparedIsolate {
  js: JsRuntime,
  world: WorldEntry,
  intrinsics: Intrinsics,
  /// The run the heap-limit hook reports to, once there is one.
  current: Rc<RefCell<Option<Arc<RunShared>>>>,
  buffers: Arc<BufferBudget>,
  /// What the heap may hold after a full collection (see `heap_cap`).
  heap_cap: usize,
}

impl PreparedIsolate {
  /// Creates the runtime and the program's world; call inside the thread's tokio context.
  pub fn new(heap_bytes: usize) -> Result<Self, String> {
    Self::new_observed(heap_bytes, &mut |_| {})
  }

  /// `new`, calling `phase(name)` as each step of preparing the isolate ends (for
  /// `dsh-isolate-cost`, which times them).
  pub fn new_observed(heap_bytes: usize, phase: &mut dyn FnMut(&'static str)) -> Result<Self, String> {
    let buffers = BufferBudget::new(heap_bytes);
    let cpp_heap = cpp_heap();
    phase("cppgc heap");
    let create_params = v8::CreateParams::default()
      .cpp_heap(cpp_heap)
      .heap_limits(0, heap_bytes)
      .array_buffer_allocator(counting_allocator(&buffers));
    let heap_cap = create_params.max_old_generation_size_in_bytes() + WORLD_HEAP;
    let create_params =
      create_params.set_max_old_generation_size_in_bytes(heap_cap + heap_cap::headroom(heap_cap));
    let current: Rc<RefCell<Option<Arc<RunShared>>>> = Rc::default();
    let mut js = JsRuntime::try_new(RuntimeOptions {
      extensions: crate::engine::world::extensions(buffers.clone()),
      module_loader: Some(Rc::new(crate::engine::modules::NodeModules::new(current.clone()))),
      create_params: Some(create_params),
      op_metrics_factory_fn: Some(crate::engine::op_errors::terminations_kept()),
      startup_snapshot: (!SNAPSHOT.is_empty()).then_some(SNAPSHOT),
      // The world took its ops while the snapshot was made, and those functions come back with
      // it; binding every op again was a fifth of a millisecond an isolate, for functions only
      // a later lookup of `core.ops` would see. deno_core still binds the fast calls of every op
      // on the first node: module a run loads, which needs room on the stack (see `modules`).
      skip_op_registration: !SNAPSHOT.is_empty(),
      ..Default::default()
    })
    .map_err(|error| format!("could not create an isolate: {error}"))?;
    phase("isolate from the snapshot, with the extensions' ops");

    let hook_run = current.clone();
    let hook_buffers = buffers.clone();
    // The raw V8 pointer stays put while `js` moves; a `&mut v8::Isolate` would not.
    // SAFETY: only read back inside the callback below, which V8 calls while the isolate lives.
    let raw_isolate = unsafe { js.v8_isolate().as_raw_isolate_ptr() };
    js.add_near_heap_limit_callback(move |limit, initial| {
      // SAFETY: V8 calls this on the isolate thread while the isolate (owned by `js`) is alive;
      // the `Isolate` made here only borrows it (it has no destructor).
      let mut isolate = unsafe { v8::Isolate::from_raw_isolate_ptr(raw_isolate) };
      let used = isolate.get_heap_statistics().used_heap_size();
      if hook_buffers.take_refusal() && used < heap_cap / 4 * 3 {
        // A refused ArrayBuffer made V8 collect as a last resort while the heap itself has
        // room: the program gets its RangeError, and the heap limit stays where it is.
        return limit;
      }
      if let Some(run) = hook_run.borrow().as_ref() {
        run.stop(Limit::Heap);
      } else {
        // No run yet (the bootstrap itself ran out): stop here all the same.
        isolate.terminate_execution();
      }
      // Room for V8 to finish the allocation that failed, then unwind the terminated program,
      // instead of reaching its fatal out-of-memory path: a built-in that ignores termination
      // can still make one more request of up to `LARGEST_ALLOCATION`. Each call adds that room
      // again, no more: V8 calls again only if such a built-in keeps allocating, and refusing
      // it would abort the process.
      limit.saturating_add(initial.max(LARGEST_ALLOCATION))
    });
    heap_cap::watch(js.v8_isolate());
    js.v8_isolate()
      .set_prepare_stack_trace_callback(crate::engine::stack::prepare_stack_trace);
    crate::engine::code_from_strings::check_code_from_strings(&mut js);
    let mut kept = |which| world_function(&mut js, which).ok_or("the program's world did not build");
    let world = WorldEntry {
      start: kept(WorldFunction::Start)?,
      has_tick_scheduled: kept(WorldFunction::HasTickScheduled)?,
      run_next_ticks: kept(WorldFunction::RunNextTicks)?,
    };
    phase("hooks and the world's start");
    lock_down(&mut js)?;
    phase("lockdown");
    let intrinsics = Intrinsics::capture(&mut js);
    phase("intrinsics");
    warm_up_compiler(&mut js);
    phase("compiler warm-up");
    Ok(Self {
      js,
      world,
      intrinsics,
      current,
      buffers,
      heap_cap,
    })
  }

  /// The runtime, unused, for the caller to drop on this thread.
  pub fn discard(self) -> JsRuntime {
    self.js
  }

  /// Runs one program to its end; returns the spent runtime for the caller to drop on this
  /// thread once the result is on its way.
  pub fn run(
    self,
    tokio: &tokio::runtime::Runtime,
    shared: &Arc<RunShared>,
    program: Stripped,
    params: &[String],
    namespaces_json: &str,
    dispatch: Option<BindingDispatch>,
  ) -> JsRuntime {
    let PreparedIsolate {
      mut js,
      world,
      intrinsics,
      current,
      buffers,
      heap_cap,
    } = self;
    *current.borrow_mut() = Some(shared.clone());
    if !shared.attach_isolate(
      js.v8_isolate().thread_safe_handle(),
      heap_cap::check_between_collections,
    ) {
      return js;
    }
    let _watch = heap_cap::Watch::new(shared, heap_cap);
    {
      let op_state = js.op_state();
      let mut op_state = op_state.borrow_mut();
      op_state.put(RunContext {
        shared: shared.clone(),
        dispatch,
        intrinsics,
      });
      // For stack traces, which must not run program code once the run has ended.
      op_state.put(shared.clone());
      // `performance` and `process.hrtime` count from the run's start, not the isolate's.
      op_state.put(deno_web::StartTime::default());
    }
    shared.record_startup();
    let Stripped { code, guards, .. } = program;
    let guards = guards.map(
      |Guards {
         names,
         shifts,
         changes,
       }| {
        // For stack traces, whose columns must be the program's own.
        js.op_state().borrow_mut().put(Rc::new(shifts));
        (names, changes)
      },
    );
    start_program(&mut js, shared, &world, code, guards, params, namespaces_json);

    tokio.block_on(async {
      tokio::select! {
        biased;
        () = shared.stopped.notified() => {}
        polled = spin_for_answers(shared, js.run_event_loop(PollEventLoopOptions::default())) => {
          let ending = match polled {
            Ok(()) => RunShared::failure(FailureKind::Exception, NEVER_SETTLES),
            Err(error) => RunShared::failure(FailureKind::Exception, &error.to_string()),
          };
          shared.finish(ending);
        }
      }
    });
    let heap = js.v8_isolate().get_heap_statistics().total_heap_size();
    shared.record_heap_peak(heap + buffers.peak());
    js
  }
}

/// Polls `event_loop`; when it waits on one binding call whose answer should come soon, spins for it
/// before letting the thread park (see `AnswerWait`). Calls made together are not spun for: their
/// answers come in a batch, and a spinning thread would take a core from the host answering them.
async fn spin_for_answers<T>(shared: &RunShared, event_loop: impl Future<Output = T>) -> T {
  let mut event_loop = std::pin::pin!(event_loop);
  std::future::poll_fn(|cx| {
    loop {
      let seen = shared.answer_wait.answers();
      if let Poll::Ready(done) = event_loop.as_mut().poll(cx) {
        return Poll::Ready(done);
      }
      let wait = &shared.answer_wait;
      if !wait.worth_spinning()
        || shared.is_finished()
        || shared.calls_awaiting() != 1
        || !wait.spin(seen, MAX_SPIN)
      {
        return Poll::Pending;
      }
    }
  })
  .await
}

/// Compiles, and drops, a function shaped as every program is: an isolate's first compile also
/// sets up V8's parser and compiler for it, about 45 µs here, which the run would otherwise pay.
/// Nothing runs, and no program can reach the function.
fn warm_up_compiler(js: &mut JsRuntime) {
  let context = js.main_context();
  v8::scope_with_context!(scope, js.v8_isolate(), context);
  if let Some(source) = v8::String::new(scope, "(async function () {'use strict';\n})") {
    let _ = v8::Script::compile(scope, source, None);
  }
}

/// A function of the world, as its entry module (or the snapshot) left it.
fn world_function(js: &mut JsRuntime, which: WorldFunction) -> Option<v8::Global<v8::Function>> {
  let context = js.main_context();
  v8::scope_with_context!(scope, js.v8_isolate(), context);
  let function = which.function(scope)?;
  Some(v8::Global::new(scope, function))
}

/// Closes what a snapshot cannot (lockdown.js), in every isolate, snapshot or not.
fn lock_down(js: &mut JsRuntime) -> Result<(), String> {
  let lockdown = world_function(js, WorldFunction::Lockdown).ok_or("the program's world did not build")?;
  let context = js.main_context();
  v8::scope_with_context!(scope, js.v8_isolate(), context);
  v8::tc_scope!(let scope, scope);
  let lockdown = v8::Local::new(scope, &lockdown);
  let undefined = v8::undefined(scope).into();
  let (Some(listing_kind), Some(exotic_kind)) = (
    crate::engine::listings::fast_listing_kind(scope),
    crate::engine::listings::fast_exotic_kind(scope),
  ) else {
    return Err("could not make the world's fast calls".to_owned());
  };
  if lockdown.call(scope, undefined, &[listing_kind.into(), exotic_kind.into()]).is_some() {
    return Ok(());
  }
  let thrown = match scope.exception() {
    Some(exception) => String::from_utf16_lossy(&thrown_text(scope, exception)),
    None => "terminated".to_owned(),
  };
  Err(format!("could not lock the program's world down: {thrown}"))
}

/// Compiles the program as an async function whose parameters are the injected names (inside a
/// function that binds its listing guards, if it calls them), then hands it to the world's
/// `start`. A compile error ends the run as an `exception`.
fn start_program(
  js: &mut JsRuntime,
  shared: &RunShared,
  world: &WorldEntry,
  code: String,
  guards: Option<(GuardNames, Vec<(u32, Change)>)>,
  params: &[String],
  namespaces_json: &str,
) {
  let context = js.main_context();
  v8::scope_with_context!(scope, js.v8_isolate(), context);
  v8::tc_scope!(let scope, scope);
  // The header has a line of its own, and the origin starts one line early, so V8 reports
  // the program's own line and column numbers.
  let function = format!(
    "async function ({}) {{'use strict';\n{code}\n}}",
    params.join(", ")
  );
  let source = match &guards {
    // Constants, so that not even a direct eval in the program can assign to them.
    Some((
      GuardNames {
        for_in,
        for_in_subject,
        for_in_next,
        spread,
        each,
        each_async,
        parameter,
        poll,
        array_length,
        copied,
        ..
      },
      _,
    )) => format!(
      "(function () {{ const {for_in} = arguments[0], {spread} = arguments[1], {each} = arguments[2], \
       {parameter} = arguments[3], {poll} = arguments[4], {array_length} = arguments[5], \
       {for_in_subject} = arguments[6], {for_in_next} = arguments[7], {each_async} = arguments[8], \
       {copied} = arguments[9]; \
       return {function} }})"
    ),
    None => format!("({function})"),
  };
  let guarded = guards.is_some();
  let compiled = (|| {
    let source = v8::String::new(scope, &source)?;
    let name = v8::String::empty(scope);
    let origin = v8::ScriptOrigin::new(
      scope,
      name.into(),
      -1,
      0,
      false,
      0,
      None,
      false,
      false,
      false,
      None,
    );
    let script = v8::Script::compile(scope, source, Some(&origin))?;
    let program = script.run(scope)?;
    if let Some((_, changes)) = guards {
      // For the source text of its functions, which must be the program's own.
      let script = program.try_cast::<v8::Function>().ok()?.script_id();
      let text = GuardedText::new(code, changes);
      JsRuntime::op_state_from(scope)
        .borrow_mut()
        .put(Rc::new(ProgramSource { script, text }));
    }
    let start = v8::Local::new(scope, &world.start);
    let namespaces = v8::String::new(scope, namespaces_json)?;
    let undefined = v8::undefined(scope).into();
    let guarded = v8::Boolean::new(scope, guarded).into();
    start.call(scope, undefined, &[program, namespaces.into(), guarded])
  })();
  if compiled.is_none() {
    let message = match scope.exception() {
      Some(exception) => thrown_text(scope, exception),
      None => "the program could not be compiled".encode_utf16().collect(),
    };
    shared.finish(Ending::Failure(FailureKind::Exception, message));
    return;
  }
  settle_first_turn(scope, shared, world);
}

/// Runs the program's microtasks and then what it queued with `process.nextTick`, as deno_core's
/// event loop begins its turn, but before its timers: there, a zero-delay timer that has expired
/// by then (`setImmediate`) would run before the ticks, where Node runs it after them. The checkpoint is
/// V8's own, so no frame of the world is below the program's microtasks. A tick's exception is
/// reported by the drain itself; a stop ends the run by its own path. A run that has settled asks
/// nothing more: V8 would only unwind the call as terminated, which costs a `return 1` about 30 µs.
fn settle_first_turn(scope: &mut v8::PinScope<'_, '_>, shared: &RunShared, world: &WorldEntry) {
  let undefined: v8::Local<v8::Value> = v8::undefined(scope).into();
  let has_tick_scheduled = v8::Local::new(scope, &world.has_tick_scheduled);
  let ticks_scheduled = |scope: &mut v8::PinScope<'_, '_>| {
    has_tick_scheduled
      .call(scope, undefined, &[])
      .is_some_and(|scheduled| scheduled.is_true())
  };
  if !ticks_scheduled(scope) {
    scope.perform_microtask_checkpoint();
  }
  if !shared.is_finished() && ticks_scheduled(scope) {
    let run_next_ticks = v8::Local::new(scope, &world.run_next_ticks);
    let _ = run_next_ticks.call(scope, undefined, &[]);
  }
}

/// A compile-time exception's stack (V8's own SyntaxError), else its string form.
fn thrown_text<'s>(scope: &mut v8::PinScope<'s, '_>, exception: v8::Local<'s, v8::Value>) -> Text {
  let stack = exception.try_cast::<v8::Object>().ok().and_then(|error| {
    let key = v8::String::new(scope, "stack")?;
    error.get(scope, key.into())?.try_cast::<v8::String>().ok()
  });
  match stack.or_else(|| exception.to_string(scope)) {
    Some(text) => read_utf16(scope, text),
    None => "program threw an unrenderable value".encode_utf16().collect(),
  }
}
