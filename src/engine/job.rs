//! A run handed to an isolate thread: stripped, executed and delivered there.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use deno_core::JsRuntime;

use crate::engine::isolate::{EventLoop, PreparedIsolate};
use crate::limits::run::{BindingDispatch, RunShared};
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

impl RunJob {
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
