//! A run handed to an isolate thread: stripped, executed and delivered there.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use deno_core::JsRuntime;

use crate::engine::isolate::PreparedIsolate;
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
  /// Runs the program on this (isolate) thread, in `isolate` if one could be prepared, delivers
  /// the result, then drops the isolate. `false` when the thread was demoted while it ran, and
  /// so must not serve another run.
  pub fn execute(self, tokio: &tokio::runtime::Runtime, isolate: Result<PreparedIsolate, String>) -> bool {
    let RunJob {
      shared,
      program,
      params,
      namespaces_json,
      dispatch,
    } = self;
    shared.bind_clock_to_current_thread();
    crate::limits::watchdog::watch(shared.clone());
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| -> Result<JsRuntime, String> {
      let isolate = isolate?;
      // Stripped here, not on the caller's thread: a huge program must not block Node's event
      // loop, and its time counts against the run's budgets.
      let stripped = crate::program::strip::strip_program(&program, &|helper| shared.helper_started(helper));
      shared.helper_ended(
        stripped
          .as_ref()
          .map_or(Duration::ZERO, |stripped| stripped.helper_cpu),
      );
      Ok(match stripped {
        Ok(stripped) => isolate.run(
          tokio,
          &shared,
          &stripped.code,
          &params,
          &namespaces_json,
          dispatch,
        ),
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
