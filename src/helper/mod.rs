//! The helper process: a run's isolate outside the host (`isolation: 'process'`). It confines
//! itself first (dsh-os's sandbox), prepares an isolate, says so, then serves the runs the host
//! sends over its stdin, one at a time, answering over its stdout (`wire`). Runs go through the
//! same engine, limits and ledger as in the host's own process, so a program cannot tell the
//! modes apart.
//!
//! It exits as soon as its last run has settled, with no wait: whatever of that run is still
//! running (a V8 built-in that ignores termination, Web Crypto work) ends with the process. It
//! exits too when its stdin closes (the host is gone, or done with it) and, on Linux, when the
//! thread that started it exits.

#[cfg(unix)]
pub mod interpreter;
#[cfg(unix)]
pub mod monty;
pub mod wire;

use std::io::{self, Write};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use crate::engine::job::{RunJob, RunRequest};
use crate::engine::pool::Pool;
use crate::limits::budgets::{Limit, heap_bytes};
use crate::limits::run::{BindingDispatch, Report, RunShared};
use wire::ToHelper;

/// How long a helper that serves several runs waits, after one settles, for everything that run
/// started to end before it takes another; past it, it exits instead.
const SETTLE_GRACE: Duration = Duration::from_millis(250);

/// The longest a new helper waits for its first isolate before it says it is ready: one that
/// cannot be prepared leaves the run to start on a thread of its own, and fail there with why.
const PREPARE_WAIT: Duration = Duration::from_secs(10);

/// What the host passes on the command line.
struct Arguments {
  parent: u32,
  heap_mb: f64,
  /// How many runs this helper serves, one after the other.
  runs: u32,
}

/// The host's protocol, as it passes it first: refused unless it is this helper's.
pub(crate) fn check_protocol(protocol: &str) -> Result<(), String> {
  if protocol.parse::<u32>().ok() == Some(wire::PROTOCOL) {
    return Ok(());
  }
  Err(format!(
    "the host speaks protocol {protocol}, this helper {}: the addon and its helper come from different builds",
    wire::PROTOCOL
  ))
}

fn arguments() -> Result<Arguments, String> {
  let args: Vec<String> = std::env::args().skip(1).collect();
  let [protocol, parent, heap_mb, runs] = args.as_slice() else {
    return Err("usage: dsh-code-runtime-v8-helper <protocol> <parent pid> <heap MiB> <runs>".into());
  };
  check_protocol(protocol)?;
  let number = |text: &str, what: &str| text.parse().map_err(|_| format!("{what} must be a number, got {text:?}"));
  Ok(Arguments {
    parent: number(parent, "the parent pid")?,
    heap_mb: heap_mb.parse::<f64>().map_err(|_| format!("the heap cap must be a number, got {heap_mb:?}"))?,
    runs: number(runs, "the run count")?,
  })
}

/// The helper's whole life; never returns.
pub fn main() -> ! {
  let arguments = arguments().unwrap_or_else(|why| exit_with(2, &why));
  // RLIMIT_DATA counts address space made writable: the run's heap cap and its ArrayBuffers
  // (counted against the same cap), the stack the stripper reserves for the longest program (most
  // of it never touched), and what the process needs besides: other thread stacks, V8's young
  // generation and code, malloc's arenas.
  let heap = heap_bytes(arguments.heap_mb) as u64;
  let confinement = dsh_os::sandbox::Confinement {
    parent: arguments.parent,
    data_bytes: 2 * heap + crate::program::strip::MAX_STRIP_STACK as u64 + (1 << 30),
  };
  let layers = dsh_os::sandbox::confine(&confinement).unwrap_or_else(|why| exit_with(3, &why));
  let pool = Pool::new(1, 1, Duration::from_secs(3600), heap as usize, crate::engine::platform::SPAWNER);
  pool.wait_until_prepared(PREPARE_WAIT);
  let layers_json = serde_json::Value::Array(
    layers
      .iter()
      .map(|layer| serde_json::json!([layer.name, layer.missing]))
      .collect(),
  );
  let output = Output::default();
  output.send(&wire::ready(
    &serde_json::json!({ "protocol": wire::PROTOCOL, "sandbox": layers_json }).to_string(),
  ));
  serve(&output, &pool, arguments.runs);
  exit_with(0, "")
}

/// The frames the host sends, until its stdin ends.
fn serve(output: &Output, pool: &Arc<Pool>, runs: u32) {
  let mut input = io::stdin().lock();
  // Weak: a run's state lives as long as its isolate, and the helper is idle again only once
  // it is gone.
  let mut current: Weak<RunShared> = Weak::new();
  let mut started = 0;
  loop {
    let frame = match wire::read_frame(&mut input) {
      Ok(Some(frame)) => frame,
      Ok(None) => return,
      Err(error) => exit_with(4, &error.to_string()),
    };
    match frame {
      ToHelper::Run(request) => {
        if started == runs || current.upgrade().is_some_and(|run| !run.is_finished()) {
          exit_with(4, "the host sent a run this helper may not take");
        }
        started += 1;
        output.send(&wire::taken());
        current = Arc::downgrade(&start(output.clone(), pool, request, started == runs));
      }
      ToHelper::Answer { call, tagged } => {
        if let Some(run) = current.upgrade() {
          run.answer(call, tagged);
        }
      }
      ToHelper::Abort(reason) => stop(&current, Limit::Abort(reason)),
      ToHelper::Dispose => stop(&current, Limit::Disposal),
    }
  }
}

fn stop(current: &Weak<RunShared>, limit: Limit) {
  if let Some(run) = current.upgrade() {
    run.stop(limit);
  }
}

/// Starts one run on the prepared isolate; `last` when the helper exits once it settles.
fn start(output: Output, pool: &Arc<Pool>, request: RunRequest, last: bool) -> Arc<RunShared> {
  let for_settled = output.clone();
  let next = pool.clone();
  let deliver = Box::new(move |report: Report| {
    for_settled.send(&wire::settled(&report));
    if last {
      exit_with(0, "");
    }
    // Another run may come once this one, and all it started, is gone, and the next isolate is
    // prepared.
    std::thread::spawn(move || {
      let deadline = Instant::now() + SETTLE_GRACE;
      while crate::limits::run::live_runs() > 0 || crate::limits::run::runaway_threads().1 > 0 {
        if Instant::now() >= deadline {
          exit_with(0, "");
        }
        std::thread::sleep(Duration::from_millis(1));
      }
      next.wait_until_prepared(PREPARE_WAIT);
      for_settled.send(&wire::idle());
    });
  });
  let dispatch = (request.namespaces_json != "[]").then(|| {
    BindingDispatch::new(move |call, namespace, member, args_json| {
      output.send(&wire::binding_call(call, namespace, member, &args_json));
      true
    })
  });
  let job = RunJob::new(request, deliver, dispatch);
  let shared = job.shared.clone();
  crate::engine::platform::start(job, Some(pool));
  shared
}

/// The helper's stdout, shared by the threads that write frames: one frame at a time, whole.
#[derive(Clone, Default)]
struct Output(Arc<Mutex<()>>);

impl Output {
  fn send(&self, frame: &[u8]) {
    let _turn = crate::lock(&self.0);
    let mut stdout = io::stdout().lock();
    if stdout.write_all(frame).and_then(|()| stdout.flush()).is_err() {
      // The host is gone: nothing is left to serve.
      exit_with(0, "");
    }
  }
}

/// Ends the process at once, with no destructors or exit handlers: V8 and the run's threads
/// may be anywhere.
pub(crate) fn exit_with(code: i32, why: &str) -> ! {
  if !why.is_empty() {
    let _ = writeln!(io::stderr(), "dsh-code-runtime-v8-helper: {why}");
  }
  dsh_os::process::exit_now(code)
}
