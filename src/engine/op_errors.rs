//! Keeps a run's termination alive through the ops that fail after the run has ended.
//!
//! deno_core turns an op's error into an exception by calling a JavaScript builder inside a
//! `TryCatch`, and resets that `TryCatch` when the call fails. A termination requested while the
//! op ran ends exactly there: the builder's entry takes it, and the reset drops it. In a loop around
//! an op that is slow and fails (`atob` of a long text that is not base64 spends 1.2 ms converting
//! its argument, then fails), most of the watchdog's repeated requests landed inside the op, and the
//! run's thread went on for up to 3 s after its ending. After an op fails in a run that has ended,
//! the request is made again, and the next JavaScript entry takes it.

use std::rc::Rc;

use deno_core::{OpMetricsEvent, OpMetricsFactoryFn, OpMetricsFn, v8};

use crate::limits::run::RunShared;

/// Ops that cannot fail and are called on hot paths (every for-in and object spread, every
/// typed-array method the world wraps): a metrics hook costs each call two dynamic dispatches in
/// deno_core, for events that never come.
const INFALLIBLE: &[&str] = &[
  "op_dsh_listing_kind",
  "op_dsh_is_proxy",
  "op_is_proxy",
  "op_is_typed_array",
  "op_is_string_object",
  "op_is_number_object",
];

/// For `RuntimeOptions::op_metrics_factory_fn`: every op of the isolate that can fail reports its
/// failures here.
pub fn terminations_kept() -> OpMetricsFactoryFn {
  let on_event: OpMetricsFn = Rc::new(|ctx, event, _source| {
    if !matches!(event, OpMetricsEvent::Error | OpMetricsEvent::ErrorAsync) {
      return;
    }
    if ctx
      .state()
      .try_borrow()
      .is_ok_and(|state| RunShared::has_ended_in(&state) && !RunShared::stops_held_in(&state))
    {
      // SAFETY: an op's events are dispatched on the isolate's own thread while it is alive; the
      // `Isolate` made here only borrows it (it has no destructor).
      let isolate = unsafe { v8::Isolate::from_raw_isolate_ptr(ctx.isolate()) };
      isolate.terminate_execution();
    }
  });
  Box::new(move |_id, _count, decl| (!INFALLIBLE.contains(&decl.name)).then(|| on_event.clone()))
}
