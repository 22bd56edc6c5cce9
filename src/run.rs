//! One run: its shared state, and the isolate thread that executes it.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use deno_core::{JsRuntime, PollEventLoopOptions, RuntimeOptions, v8};
use tokio::sync::Notify;

use crate::ledger::{Ending, FailureKind, Ledger, Settled, Text};
use crate::lossless::{Intrinsics, read_utf16};
use crate::ops::{RunContext, dsh_program};

/// The bootstrap that builds the program's world; it evaluates to its `start` function.
const WORLD_JS: &str = concat!(
  "(() => {\n'use strict';\n",
  include_str!("js/01_inspect.js"),
  include_str!("js/02_world.js"),
  "\n})()"
);

const NEVER_SETTLES: &str =
  "program awaits a promise that can never settle (no timer, binding call or other work is pending)";

/// Isolate threads alive right now, in this process.
static LIVE_ISOLATE_THREADS: AtomicUsize = AtomicUsize::new(0);

pub fn live_isolate_threads() -> usize {
  LIVE_ISOLATE_THREADS.load(Ordering::SeqCst)
}

pub type BindingFuture = Pin<Box<dyn Future<Output = Result<String, String>> + Send>>;

/// Sends one binding call to the host and resolves with its tagged JSON answer.
#[derive(Clone)]
pub struct BindingDispatch(Arc<dyn Fn(u32, u32, String) -> BindingFuture + Send + Sync>);

impl BindingDispatch {
  pub fn new(call: impl Fn(u32, u32, String) -> BindingFuture + Send + Sync + 'static) -> Self {
    Self(Arc::new(call))
  }

  pub fn call(&self, namespace: u32, name: u32, args_json: String) -> BindingFuture {
    (self.0)(namespace, name, args_json)
  }
}

/// What a run cost, reported beside its result by `runWithUsage`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
  pub busy: Duration,
  pub wall: Duration,
  /// From the run's start until its program began: isolate creation and bootstrap.
  pub startup: Duration,
  pub binding_calls: u64,
  /// Wall time during which at least one binding call was waiting on the host.
  pub binding_wait: Duration,
  /// The V8 heap's committed size at the end, plus the most ArrayBuffer memory held at once.
  pub heap_peak_bytes: usize,
  pub output_bytes: usize,
}

#[derive(Default)]
struct UsageMeter {
  usage: Usage,
  calls_in_flight: u32,
  waiting_since: Option<Instant>,
}

/// A settled run and what it cost.
pub struct Report {
  pub settled: Settled,
  pub usage: Usage,
}

/// A run's budgets, with the failure messages the caller's configuration spells out.
pub struct Limits {
  pub compute: Duration,
  pub wall: Duration,
  pub heap_bytes: usize,
  pub max_output_bytes: usize,
  pub compute_message: String,
  pub wall_message: String,
  pub heap_message: String,
}

struct RunState {
  ledger: Ledger,
  ending: Option<Ending>,
  isolate: Option<v8::IsolateHandle>,
}

/// The CPU clock of the isolate thread, valid only while that thread lives.
struct CpuClock {
  id: libc::clockid_t,
  baseline: Duration,
}

fn read_clock(id: libc::clockid_t) -> Option<Duration> {
  let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
  // SAFETY: `now` is a valid out-pointer; a stale id only makes the call fail.
  let status = unsafe { libc::clock_gettime(id, &mut now) };
  (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
}

/// What the caller's thread, the watchdog and the isolate thread share about one run.
pub struct RunShared {
  pub limits: Limits,
  started: Instant,
  state: Mutex<RunState>,
  clock: Mutex<Option<CpuClock>>,
  meter: Mutex<UsageMeter>,
  stopped: Notify,
}

impl RunShared {
  pub fn new(limits: Limits) -> Arc<Self> {
    Arc::new(Self {
      started: Instant::now(),
      state: Mutex::new(RunState {
        ledger: Ledger::new(limits.max_output_bytes),
        ending: None,
        isolate: None,
      }),
      limits,
      clock: Mutex::new(None),
      meter: Mutex::new(UsageMeter::default()),
      stopped: Notify::new(),
    })
  }

  fn state(&self) -> MutexGuard<'_, RunState> {
    self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
  }

  /// Decides how the run ends, if nothing has yet; stops its JavaScript and its event loop.
  pub fn finish(&self, ending: Ending) -> bool {
    let mut state = self.state();
    if state.ending.is_some() {
      return false;
    }
    state.ending = Some(ending);
    if let Some(isolate) = &state.isolate {
      isolate.terminate_execution();
    }
    drop(state);
    self.stopped.notify_one();
    true
  }

  pub fn is_finished(&self) -> bool {
    self.state().ending.is_some()
  }

  /// Appends a log; once one does not fit, the run ends as `output-limit`.
  pub fn admit_log(&self, entry: Text) -> bool {
    let mut state = self.state();
    if state.ending.is_some() {
      return false;
    }
    if state.ledger.admit(entry) {
      return true;
    }
    drop(state);
    // The ledger reports the overflow itself when the run settles, whatever ends it.
    self.finish(Ending::Failure(FailureKind::OutputLimit, Text::new()));
    false
  }

  pub fn remaining_output(&self) -> usize {
    self.state().ledger.remaining()
  }

  /// Lets stops reach the isolate; `false` when the run already ended before it existed.
  fn attach_isolate(&self, isolate: v8::IsolateHandle) -> bool {
    let mut state = self.state();
    state.isolate = Some(isolate);
    state.ending.is_none()
  }

  fn meter(&self) -> MutexGuard<'_, UsageMeter> {
    self.meter.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
  }

  pub fn binding_call_started(&self) {
    let mut meter = self.meter();
    meter.usage.binding_calls += 1;
    meter.calls_in_flight += 1;
    if meter.calls_in_flight == 1 {
      meter.waiting_since = Some(Instant::now());
    }
  }

  pub fn binding_call_ended(&self) {
    let mut meter = self.meter();
    meter.calls_in_flight = meter.calls_in_flight.saturating_sub(1);
    if meter.calls_in_flight == 0 {
      if let Some(since) = meter.waiting_since.take() {
        meter.usage.binding_wait += since.elapsed();
      }
    }
  }

  fn record_startup(&self) {
    self.meter().usage.startup = self.started.elapsed();
  }

  fn record_heap_peak(&self, bytes: usize) {
    self.meter().usage.heap_peak_bytes = bytes;
  }

  /// The result the caller receives, and its cost; the ledger is spent by it.
  pub fn settle(&self) -> Report {
    let mut state = self.state();
    state.isolate = None;
    let ledger = std::mem::replace(&mut state.ledger, Ledger::new(0));
    let ending = state.ending.take().unwrap_or(Ending::Failure(
      FailureKind::WorkerExit,
      "the isolate ended without an outcome".encode_utf16().collect(),
    ));
    drop(state);
    let settled = ledger.settle(ending);
    let mut meter = self.meter();
    // Calls still pending when the run ended stopped waiting then.
    if let Some(since) = meter.waiting_since.take() {
      meter.usage.binding_wait += since.elapsed();
    }
    let usage = Usage { wall: self.started.elapsed(), output_bytes: settled.output_bytes(), ..meter.usage };
    Report { settled, usage }
  }

  fn bind_clock_to_current_thread(&self) {
    let mut id: libc::clockid_t = 0;
    // SAFETY: `pthread_self` is the calling thread, `id` a valid out-pointer.
    let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
    if status == 0 {
      if let Some(baseline) = read_clock(id) {
        *self.clock.lock().unwrap_or_else(|p| p.into_inner()) = Some(CpuClock { id, baseline });
      }
    }
  }

  /// Stops reading the thread's clock (its id dies with the thread), keeping the final busy time.
  fn release_clock(&self) {
    let busy = self.busy_time().unwrap_or_default();
    self.meter().usage.busy = busy;
    self.clock.lock().unwrap_or_else(|p| p.into_inner()).take();
  }

  /// CPU time the isolate thread has spent on this run so far.
  pub fn busy_time(&self) -> Option<Duration> {
    let clock = self.clock.lock().unwrap_or_else(|p| p.into_inner());
    let clock = clock.as_ref()?;
    read_clock(clock.id).map(|now| now.saturating_sub(clock.baseline))
  }

  pub fn wall_time(&self) -> Duration {
    self.started.elapsed()
  }

  fn failure(kind: FailureKind, message: &str) -> Ending {
    Ending::Failure(kind, message.encode_utf16().collect())
  }

  /// Applies the compute and wall budgets; called by the watchdog every poll.
  pub fn enforce_budgets(&self) {
    if self.wall_time() > self.limits.wall {
      self.finish(Self::failure(FailureKind::Timeout, &self.limits.wall_message));
    } else if self.busy_time().is_some_and(|busy| busy > self.limits.compute) {
      self.finish(Self::failure(FailureKind::Timeout, &self.limits.compute_message));
    }
  }
}

/// A run handed to an isolate thread, and how its result reaches the caller.
pub struct RunJob {
  pub shared: Arc<RunShared>,
  pub program: String,
  pub params: Vec<String>,
  pub namespaces_json: String,
  pub dispatch: Option<BindingDispatch>,
  pub deliver: Box<dyn FnOnce(Report) + Send>,
}

impl RunJob {
  /// Runs on a fresh isolate thread: executes the program, then delivers the result.
  pub fn execute(self) {
    LIVE_ISOLATE_THREADS.fetch_add(1, Ordering::SeqCst);
    let RunJob { shared, program, params, namespaces_json, dispatch, deliver } = self;
    shared.bind_clock_to_current_thread();
    crate::watchdog::watch(shared.clone());
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
      execute_program(&shared, &program, &params, &namespaces_json, dispatch)
    }));
    let failure = match outcome {
      Ok(Ok(())) => None,
      Ok(Err(message)) => Some(message),
      Err(_) => Some("the isolate thread panicked".to_owned()),
    };
    if let Some(message) = failure {
      shared.finish(RunShared::failure(FailureKind::WorkerExit, &message));
    }
    shared.release_clock();
    LIVE_ISOLATE_THREADS.fetch_sub(1, Ordering::SeqCst);
    deliver(shared.settle());
  }

  /// The run could not get a thread: it ends as `worker-exit` with why.
  pub fn abandon(self, why: &str) {
    self.shared.finish(RunShared::failure(FailureKind::WorkerExit, why));
    (self.deliver)(self.shared.settle());
  }
}

fn execute_program(
  shared: &Arc<RunShared>,
  program: &str,
  params: &[String],
  namespaces_json: &str,
  dispatch: Option<BindingDispatch>,
) -> Result<(), String> {
  let tokio = tokio::runtime::Builder::new_current_thread()
    .enable_all()
    .build()
    .map_err(|error| format!("could not start the isolate's event loop: {error}"))?;
  // deno_core aborts the process if V8 posts a delayed task outside a tokio context.
  let _entered = tokio.enter();
  let buffers = crate::buffers::BufferBudget::new(shared.limits.heap_bytes);
  let create_params = v8::CreateParams::default()
    .heap_limits(0, shared.limits.heap_bytes)
    .array_buffer_allocator(crate::buffers::counting_allocator(&buffers));
  let buffers_peak = buffers.clone();
  let mut js = JsRuntime::try_new(RuntimeOptions {
    extensions: vec![dsh_program::init()],
    module_loader: Some(std::rc::Rc::new(crate::modules::NoModules)),
    create_params: Some(create_params),
    ..Default::default()
  })
  .map_err(|error| format!("could not create an isolate: {error}"))?;

  let on_heap_limit = shared.clone();
  let isolate: *mut v8::Isolate = &mut **js.v8_isolate();
  js.add_near_heap_limit_callback(move |current, _initial| {
    // SAFETY: V8 calls this on the isolate thread while the isolate (owned by `js`) is alive.
    let used = unsafe { (*isolate).get_heap_statistics() }.used_heap_size();
    if buffers.take_refusal() && used < current / 4 * 3 {
      // A refused ArrayBuffer made V8 collect as a last resort while the heap itself has room:
      // the program gets its RangeError, and the heap limit stays where it is.
      return current;
    }
    on_heap_limit.finish(RunShared::failure(FailureKind::WorkerExit, &on_heap_limit.limits.heap_message));
    // Room for V8 to unwind the terminated program instead of reaching its fatal OOM path.
    current.saturating_mul(2)
  });
  if !shared.attach_isolate(js.v8_isolate().thread_safe_handle()) {
    return Ok(());
  }
  js.v8_isolate().set_prepare_stack_trace_callback(crate::stack::prepare_stack_trace);

  let start = js
    .execute_script("ext:dsh/world.js", WORLD_JS)
    .map_err(|error| format!("could not build the program's world: {error}"))?;
  let intrinsics = capture_intrinsics(&mut js);
  js.op_state().borrow_mut().put(RunContext { shared: shared.clone(), dispatch, intrinsics });

  shared.record_startup();
  start_program(&mut js, shared, &start, program, params, namespaces_json);

  tokio.block_on(async {
    tokio::select! {
      biased;
      () = shared.stopped.notified() => {}
      polled = js.run_event_loop(PollEventLoopOptions::default()) => {
        let ending = match polled {
          Ok(()) => RunShared::failure(FailureKind::Exception, NEVER_SETTLES),
          Err(error) => RunShared::failure(FailureKind::Exception, &error.to_string()),
        };
        shared.finish(ending);
      }
    }
  });
  let heap = js.v8_isolate().get_heap_statistics().total_heap_size();
  shared.record_heap_peak(heap + buffers_peak.peak());
  drop(js);
  Ok(())
}

fn capture_intrinsics(js: &mut JsRuntime) -> Intrinsics {
  let context = js.main_context();
  v8::scope_with_context!(scope, js.v8_isolate(), context);
  let global = scope.get_current_context().global(scope);
  let prototype_of = |name: &str| -> v8::Global<v8::Object> {
    let key = v8::String::new(scope, name).expect("short name");
    let ctor: v8::Local<v8::Object> = global.get(scope, key.into()).unwrap().try_cast().unwrap();
    let key = v8::String::new(scope, "prototype").expect("short name");
    let prototype: v8::Local<v8::Object> = ctor.get(scope, key.into()).unwrap().try_cast().unwrap();
    v8::Global::new(scope, prototype)
  };
  Intrinsics { object_prototype: prototype_of("Object"), array_prototype: prototype_of("Array") }
}

/// Compiles the program as an async function whose parameters are the injected names, then
/// hands it to the world's `start`. A compile error ends the run as an `exception`.
fn start_program(
  js: &mut JsRuntime,
  shared: &RunShared,
  start: &v8::Global<v8::Value>,
  program: &str,
  params: &[String],
  namespaces_json: &str,
) {
  let context = js.main_context();
  v8::scope_with_context!(scope, js.v8_isolate(), context);
  v8::tc_scope!(let scope, scope);
  // The header has a line of its own, and the origin starts one line early, so V8 reports
  // the program's own line and column numbers.
  let source = format!("(async function ({}) {{'use strict';\n{program}\n}})", params.join(", "));
  let compiled = (|| {
    let source = v8::String::new(scope, &source)?;
    let name = v8::String::empty(scope);
    let origin = v8::ScriptOrigin::new(scope, name.into(), -1, 0, false, 0, None, false, false, false, None);
    let script = v8::Script::compile(scope, source, Some(&origin))?;
    let program = script.run(scope)?;
    let start: v8::Local<v8::Function> = v8::Local::new(scope, start).try_cast().ok()?;
    let namespaces = v8::String::new(scope, namespaces_json)?;
    let undefined = v8::undefined(scope).into();
    start.call(scope, undefined, &[program, namespaces.into()])
  })();
  if compiled.is_none() {
    let message = match scope.exception() {
      Some(exception) => thrown_text(scope, exception),
      None => "the program could not be compiled".encode_utf16().collect(),
    };
    shared.finish(Ending::Failure(FailureKind::Exception, message));
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
