//! The napi surface: start a run, cancel it, and settle runs that never need an isolate.

use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi_derive::napi;

use crate::engine::job::{RunJob, RunRequest};
use crate::limits::budgets::{Limit, heap_bytes};
use crate::limits::run::{BindingDispatch, EndFlag, Report, RunShared, Usage};
use crate::output::ledger::{Ending, FailureKind, Ledger, Settled};

/// What a run cost, in the units the JavaScript side reports.
#[napi(object)]
pub struct NativeUsage {
  pub busy_ms: f64,
  pub wall_ms: f64,
  pub startup_ms: f64,
  pub binding_calls: f64,
  pub binding_wait_ms: f64,
  pub heap_peak_bytes: f64,
  pub output_bytes: f64,
}

impl From<Usage> for NativeUsage {
  fn from(usage: Usage) -> Self {
    let ms = |duration: Duration| duration.as_secs_f64() * 1000.0;
    Self {
      busy_ms: ms(usage.busy),
      wall_ms: ms(usage.wall),
      startup_ms: ms(usage.startup),
      binding_calls: usage.binding_calls as f64,
      binding_wait_ms: ms(usage.binding_wait),
      heap_peak_bytes: usage.heap_peak_bytes as f64,
      output_bytes: usage.output_bytes as f64,
    }
  }
}

/// A settled run: strings cross as UTF-16 so lone surrogates survive; the value as JSON text.
#[napi(object, object_from_js = false)]
pub struct NativeSettled {
  pub logs: Vec<Utf16String>,
  /// The completion value as JSON text; absent when the program returned nothing or failed.
  pub value_json: Option<String>,
  /// The failure kind (`exception`, `timeout`, ...); absent when the program completed.
  pub kind: Option<String>,
  pub message: Option<Utf16String>,
  pub usage: NativeUsage,
}

impl From<Report> for NativeSettled {
  fn from(report: Report) -> Self {
    let Report {
      settled: Settled { logs, value, error },
      usage,
    } = report;
    let (kind, message) = match error {
      Some((kind, message)) => (Some(kind.as_str().to_owned()), Some(message.into())),
      None => (None, None),
    };
    Self {
      logs: logs.into_iter().map(Utf16String::from).collect(),
      value_json: value,
      kind,
      message,
      usage: usage.into(),
    }
  }
}

type DeliverToJs = Box<dyn FnOnce(Env) -> Result<NativeSettled>>;
type CallArgs = FnArgs<(u32, u32, u32, String)>;
type DispatchFn = ThreadsafeFunction<CallArgs, (), CallArgs, Status, false>;

/// Settles a run through the ledger without its isolate: a pre-aborted signal, or a helper
/// process that ended or stopped answering before the run settled (`isolation: 'process'`).
#[napi]
pub fn settle_without_run(
  max_output_bytes: f64,
  kind: String,
  message: Utf16String,
) -> Result<NativeSettled> {
  let kind = match kind.as_str() {
    "abort" => FailureKind::Abort,
    "exception" => FailureKind::Exception,
    "timeout" => FailureKind::Timeout,
    "worker-exit" => FailureKind::WorkerExit,
    other => {
      return Err(Error::new(
        Status::InvalidArg,
        format!("unexpected failure kind {other:?}"),
      ));
    }
  };
  let settled = Ledger::new(max_output_bytes as usize).settle(Ending::Failure(kind, message.to_vec()));
  let usage = Usage {
    output_bytes: settled.output_bytes(),
    ..Usage::default()
  };
  Ok(Report { settled, usage }.into())
}

/// Isolate threads alive in this process: zero once every run has settled.
#[napi]
pub fn live_isolate_threads() -> u32 {
  crate::engine::live_isolate_threads() as u32
}

/// Bytes malloc has handed out and not had back, process-wide; null where the allocator does
/// not say (see dsh-os).
#[napi]
pub fn malloc_in_use_bytes() -> Option<f64> {
  dsh_os::memory::allocated_bytes().map(|bytes| bytes as f64)
}

/// Threads held past their run's ending: isolate threads the watchdog demoted to idle scheduling
/// (inside V8 built-ins that never check for termination), and Web Crypto work, which nothing can
/// stop, waited for.
#[napi(object)]
pub struct RunawayThreads {
  /// Held past their run since the process started.
  pub total: u32,
  /// Still held; each releases its isolate when its built-in or its piece of work returns.
  pub running: u32,
}

#[napi]
pub fn runaway_threads() -> RunawayThreads {
  let (total, running) = crate::limits::run::runaway_threads();
  RunawayThreads {
    total: total as u32,
    running: running as u32,
  }
}

/// Runs whose native state still exists: zero once every run has settled and its isolate is gone.
#[napi]
pub fn live_runs() -> u32 {
  crate::limits::run::live_runs() as u32
}

/// Isolates prepared ahead of demand for one runtime (they share its heap cap).
#[napi]
pub struct NativePool {
  pool: Arc<crate::engine::pool::Pool>,
}

#[napi]
impl NativePool {
  /// A pool that keeps `min` isolates prepared and grows to `max` while runs find none; an
  /// isolate unused for `idle_ms` leaves while the pool holds more than `min`.
  #[napi(constructor)]
  pub fn new(min: u32, max: u32, max_old_generation_size_mb: f64, idle_ms: u32) -> Self {
    Self {
      pool: crate::engine::pool::Pool::new(
        min as usize,
        max as usize,
        Duration::from_millis(u64::from(idle_ms)),
        heap_bytes(max_old_generation_size_mb),
        crate::engine::platform::SPAWNER,
      ),
    }
  }

  /// Stops preparing isolates; resolves once every thread of the pool has exited.
  #[napi(ts_return_type = "Promise<void>")]
  pub fn close<'env>(&self, env: &'env Env) -> Result<Object<'env>> {
    let (deferred, promise) = env.create_deferred::<(), Box<dyn FnOnce(Env) -> Result<()>>>()?;
    self
      .pool
      .close(Box::new(move || deferred.resolve(Box::new(|_| Ok(())))));
    Ok(promise)
  }
}

/// One program run on its own isolate thread.
#[napi]
pub struct NativeRun {
  /// Weak: the run's state lives as long as its isolate, not as long as this wrapper.
  shared: Mutex<Weak<RunShared>>,
  end: OnceLock<Arc<EndFlag>>,
}

#[napi]
impl NativeRun {
  #[napi(constructor)]
  #[allow(clippy::new_without_default, reason = "a JavaScript constructor")]
  pub fn new() -> Self {
    Self {
      shared: Mutex::new(Weak::new()),
      end: OnceLock::new(),
    }
  }

  /// Starts the program (its types are stripped on its isolate thread); resolves once it has ended.
  /// `requestJson` is a run request as `engine::job::RunRequest` reads it (limits validated by the
  /// JavaScript wrapper).
  #[napi(ts_return_type = "Promise<NativeSettled>")]
  pub fn start<'env>(
    &self,
    env: &'env Env,
    request_json: String,
    #[napi(ts_arg_type = "(call: number, namespace: number, member: number, argsJson: string) => void")]
    dispatch: Function<'env, CallArgs, ()>,
    pool: Option<&NativePool>,
  ) -> Result<Object<'env>> {
    let request = RunRequest::from_json(request_json.as_bytes())
      .map_err(|why| Error::new(Status::InvalidArg, format!("NativeRun.start got {why}")))?;
    let (deferred, promise) = env.create_deferred::<NativeSettled, DeliverToJs>()?;
    let deliver = Box::new(move |report: Report| {
      deferred.resolve(Box::new(move |_| Ok(report.into())));
    });
    // A run without namespaces never calls the host: it holds no threadsafe function.
    let dispatch = if request.namespaces_json == "[]" {
      None
    } else {
      let tsfn: DispatchFn = dispatch
        .build_threadsafe_function()
        .callee_handled::<false>()
        .build()?;
      Some(BindingDispatch::new(move |call, namespace, name, args_json| {
        tsfn.call(
          (call, namespace, name, args_json).into(),
          ThreadsafeFunctionCallMode::NonBlocking,
        ) == Status::Ok
      }))
    };
    let job = RunJob::new(request, deliver, dispatch);
    *crate::lock(&self.shared) = Arc::downgrade(&job.shared);
    let _ = self.end.set(job.shared.end_flag());
    crate::engine::platform::start(job, pool.map(|native| &native.pool));
    Ok(promise)
  }

  /// The host's answer to binding call `call`: `V<json>` or `E<json message>`.
  #[napi]
  pub fn answer(&self, call: u32, tagged: String) {
    if let Some(shared) = crate::lock(&self.shared).upgrade() {
      shared.answer(call, tagged);
    }
  }

  /// Whether a stop (a budget, a cap, an abort, disposal) has ended the run: its binding calls
  /// still queued for the host are then dropped unparsed.
  #[napi]
  pub fn stopped(&self) -> bool {
    self.end.get().is_some_and(|end| end.stopped())
  }

  /// Whether the run has ended, however: an answer still being encoded is then abandoned.
  #[napi]
  pub fn ended(&self) -> bool {
    self.end.get().is_some_and(|end| end.ended())
  }

  /// Stops the run at once as `abort`, with the abort signal's reason.
  #[napi]
  pub fn abort(&self, reason: Utf16String) {
    self.stop(Limit::Abort(reason.to_vec()));
  }

  /// Stops the run at once as `abort`: its runtime is being disposed of.
  #[napi]
  pub fn dispose(&self) {
    self.stop(Limit::Disposal);
  }

  fn stop(&self, limit: Limit) {
    if let Some(shared) = crate::lock(&self.shared).upgrade() {
      shared.stop(limit);
    }
  }
}

/// A helper process started for `isolation: 'process'`: its id and the host's ends of its pipes,
/// which the caller now owns.
#[napi(object)]
pub struct SpawnedHelper {
  pub pid: u32,
  pub stdin: i32,
  pub stdout: i32,
  pub stderr: i32,
}

type ExitArgs = FnArgs<(Option<i32>, Option<i32>)>;

/// Starts a helper process with no environment and three pipes (stdin a Unix socket with
/// `socketStdin`), without forking Node (see dsh-os's `process`); `onExit(code, signal)` is called
/// once it has ended. The callback holds
/// the event loop only while the caller holds the pipes' sockets.
#[cfg(unix)]
#[napi]
pub fn spawn_helper(
  path: String,
  args: Vec<String>,
  #[napi(ts_arg_type = "(code: number | null, signal: number | null) => void")] on_exit: Function<
    '_,
    ExitArgs,
    (),
  >,
  socket_stdin: Option<bool>,
) -> Result<SpawnedHelper> {
  let tsfn: ThreadsafeFunction<ExitArgs, (), ExitArgs, Status, false, true> = on_exit
    .build_threadsafe_function()
    .callee_handled::<false>()
    .weak::<true>()
    .build()?;
  let spawned = dsh_os::process::spawn(&path, &args, socket_stdin.unwrap_or(false), move |exit| {
    let args = match exit {
      dsh_os::process::Exit::Code(code) => (Some(code), None),
      dsh_os::process::Exit::Signal(signal) => (None, Some(signal)),
    };
    tsfn.call(args.into(), ThreadsafeFunctionCallMode::NonBlocking);
  })
  .map_err(|error| Error::from_reason(format!("{path}: {error}")))?;
  Ok(SpawnedHelper {
    pid: spawned.pid,
    stdin: spawned.stdin,
    stdout: spawned.stdout,
    stderr: spawned.stderr,
  })
}

/// A descriptor a helper started with `socketStdin` sent over it, now this process's; -1 when none
/// is waiting.
#[cfg(unix)]
#[napi]
pub fn receive_descriptor(socket: i32) -> Result<i32> {
  dsh_os::process::receive_descriptor(socket)
    .map(|fd| fd.unwrap_or(-1))
    .map_err(|error| Error::from_reason(format!("receiving a descriptor: {error}")))
}

/// Kills a helper `spawnHelper` started, unless it has already ended: `false` then.
#[cfg(unix)]
#[napi]
pub fn kill_helper(pid: u32) -> bool {
  dsh_os::process::kill(pid)
}

/// Whether a helper `spawnHelper` started is still running (it may have ended before its
/// `onExit` has been called).
#[cfg(unix)]
#[napi]
pub fn helper_running(pid: u32) -> bool {
  dsh_os::process::running(pid)
}
