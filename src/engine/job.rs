//! A run handed to an isolate thread: stripped, executed and delivered there.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use deno_core::JsRuntime;

use crate::engine::isolate::{EventLoop, PreparedIsolate};
use crate::limits::budgets::Limits;
use crate::limits::run::{BindingDispatch, Deliver, RunShared};
use crate::output::ledger::FailureKind;

/// A run handed to an isolate thread, and how its result reaches the caller.
pub struct RunJob {
  pub shared: Arc<RunShared>,
  /// TypeScript or JavaScript, as the caller gave it.
  pub program: String,
  pub params: Vec<String>,
  pub namespaces_json: String,
  pub dispatch: Option<BindingDispatch>,
}

/// A run as its caller asks for it, read from the JSON the JavaScript side writes (for the addon's
/// `NativeRun.start`, or a helper's run frame): `{ program, params, namespacesJson, computeMs,
/// maxWallMs, maxOutputBytes, maxOldGenerationSizeMb }`, its program well-formed UTF-16.
#[derive(Debug, PartialEq)]
pub struct RunRequest {
  /// TypeScript or JavaScript: the body of an async function.
  pub program: String,
  /// The program function's parameters: namespace globals, error-class names, `console`.
  pub params: Vec<String>,
  /// `JSON.stringify` of `[[global, memberNames, errorClassName?, memberNameProperty?], ...]`.
  pub namespaces_json: String,
  pub compute_ms: f64,
  pub max_wall_ms: f64,
  pub max_output_bytes: f64,
  pub max_old_generation_size_mb: f64,
}

impl RunRequest {
  /// Reads a request; `Err` says what is missing or malformed.
  pub fn from_json(json: &[u8]) -> Result<Self, String> {
    let json: serde_json::Value = serde_json::from_slice(json).map_err(|error| format!("a run request: {error}"))?;
    let missing = |key: &str| format!("a run request without {key}");
    let text = |key: &str| json[key].as_str().map(str::to_owned).ok_or_else(|| missing(key));
    let number = |key: &str| json[key].as_f64().ok_or_else(|| missing(key));
    let params = json["params"]
      .as_array()
      .and_then(|params| params.iter().map(|param| param.as_str().map(str::to_owned)).collect())
      .ok_or_else(|| missing("params"))?;
    Ok(Self {
      program: text("program")?,
      params,
      namespaces_json: text("namespacesJson")?,
      compute_ms: number("computeMs")?,
      max_wall_ms: number("maxWallMs")?,
      max_output_bytes: number("maxOutputBytes")?,
      max_old_generation_size_mb: number("maxOldGenerationSizeMb")?,
    })
  }
}

impl RunJob {
  /// The job of `request`, with its run's shared state; `deliver` hands its result over.
  pub fn new(request: RunRequest, deliver: Deliver, dispatch: Option<BindingDispatch>) -> Self {
    let limits = Limits::new(
      request.compute_ms,
      request.max_wall_ms,
      request.max_old_generation_size_mb,
      request.max_output_bytes,
    );
    Self {
      shared: RunShared::new(limits, deliver),
      program: request.program,
      params: request.params,
      namespaces_json: request.namespaces_json,
      dispatch,
    }
  }

  /// Runs the program on this (isolate) thread, in `isolate` if one could be prepared inside
  /// `event_loop`, delivers the result, then drops the isolate and the event loop. `false` when
  /// the thread was demoted while it ran, and so must not serve another run.
  pub fn execute(self, event_loop: EventLoop, isolate: Result<PreparedIsolate, String>) -> bool {
    let RunJob {
      shared,
      program,
      params,
      namespaces_json,
      dispatch,
    } = self;
    let EventLoop { runtime, blocking } = event_loop;
    shared.bind_clock_to_current_thread(blocking.clone());
    crate::limits::watchdog::watch(shared.clone());
    let entered = runtime.enter();
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<JsRuntime, String> {
      let isolate = isolate?;
      // Stripped here, not on the caller's thread: a huge program must not block Node's event
      // loop, and its time counts against the run's budgets.
      let stripped =
        crate::program::strip::strip_program(&program, &params, &|helper| shared.helper_started(helper));
      shared.helper_ended(
        stripped
          .as_ref()
          .map_or(Duration::ZERO, |stripped| stripped.helper_cpu),
      );
      Ok(match stripped {
        Ok(stripped) => isolate.run(&runtime, &shared, stripped, &params, &namespaces_json, dispatch),
        Err(message) => {
          shared.finish(RunShared::failure(FailureKind::Exception, &message));
          isolate.discard()
        }
      })
    }));
    let spent = match outcome {
      Ok(Ok(spent)) => Some(spent),
      Ok(Err(message)) => {
        shared.finish(RunShared::failure(FailureKind::WorkerExit, &message));
        None
      }
      Err(_) => {
        shared.finish(RunShared::failure(
          FailureKind::WorkerExit,
          "the isolate thread panicked",
        ));
        None
      }
    };
    shared.leave();
    shared.release_clock();
    shared.deliver();
    // The caller's thread, woken by the delivery, may have been queued behind this one, which
    // goes on to dispose of its isolate (and prepare the next): the scheduler places a woken
    // thread on its waker's core. Yielding lets it run now; this thread finds a core of its own.
    std::thread::yield_now();
    // Disposing an isolate takes a while: the caller already has its result. Disposal of the
    // runtime waits for this thread (see `Pool::close`).
    drop(spent);
    drop(entered);
    // Shutting the event loop down drops Web Crypto work still queued, unstarted; the piece in
    // progress, which nothing can stop (each is bounded before it starts, in web.js), is waited
    // for and counted as a runaway until it is done.
    if blocking.running() > 0 {
      crate::limits::run::running_away(|| {
        runtime.shutdown_background();
        blocking.wait_until_done(crate::limits::run::RUNAWAY_AFTER);
      });
    } else {
      drop(runtime);
    }
    crate::limits::arena::isolate_disposed();
    !shared.was_demoted()
  }

  /// The run could not get a thread: it ends as `worker-exit` with why.
  pub fn abandon(self, why: &str) {
    self
      .shared
      .finish(RunShared::failure(FailureKind::WorkerExit, why));
    self.shared.leave();
    self.shared.deliver();
  }
}

#[cfg(test)]
mod tests {
  use super::RunRequest;

  #[test]
  fn reads_a_request_and_says_what_a_broken_one_lacks() {
    let json = br#"{"program":"return 1","params":["tools","console"],"namespacesJson":"[]","computeMs":100,"maxWallMs":200,"maxOutputBytes":300,"maxOldGenerationSizeMb":64}"#;
    assert_eq!(
      RunRequest::from_json(json),
      Ok(RunRequest {
        program: "return 1".into(),
        params: vec!["tools".into(), "console".into()],
        namespaces_json: "[]".into(),
        compute_ms: 100.0,
        max_wall_ms: 200.0,
        max_output_bytes: 300.0,
        max_old_generation_size_mb: 64.0,
      })
    );
    assert_eq!(RunRequest::from_json(br#"{"program":"x"}"#), Err("a run request without params".into()));
    assert_eq!(
      RunRequest::from_json(br#"{"program":1,"params":[]}"#),
      Err("a run request without program".into())
    );
    assert!(RunRequest::from_json(b"{").unwrap_err().starts_with("a run request: EOF"));
  }
}
