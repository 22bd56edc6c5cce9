//! A run's limits: what they are, which one a run has reached, and what each says when it ends
//! the run. Every failure text of a limit is shaped here, from the configured numbers.

use std::time::Duration;

use crate::output::ledger::{FailureKind, Text, output_message};

/// The limit that ended a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Limit {
  /// Busy time: the isolate thread's CPU time (`computeMs`).
  Compute,
  /// Wall time since the run started (`maxWallMs`).
  Wall,
  /// The V8 heap (`maxOldGenerationSizeMb`).
  Heap,
  /// Output (`maxOutputBytes`); the ledger reports it when the run settles.
  Output,
  /// The caller's abort signal, with its reason.
  Abort(Text),
  /// The runtime was disposed of with the run in flight.
  Disposal,
}

/// The limits of one run, as configured.
#[derive(Clone, Debug)]
pub struct Limits {
  pub compute: Duration,
  pub wall: Duration,
  pub heap_bytes: usize,
  pub max_output_bytes: usize,
  /// The configured numbers, as the caller wrote them, for the messages.
  compute_ms: f64,
  wall_ms: f64,
  heap_mb: f64,
}

impl Limits {
  /// Limits from a configuration the JavaScript wrapper has already validated.
  pub fn new(compute_ms: f64, wall_ms: f64, heap_mb: f64, max_output_bytes: f64) -> Self {
    // Past what a Duration holds (`computeMs: 1e30`), a limit is as good as none.
    let duration = |ms: f64| Duration::try_from_secs_f64(ms / 1000.0).unwrap_or(Duration::MAX);
    Self {
      compute: duration(compute_ms),
      wall: duration(wall_ms),
      heap_bytes: heap_bytes(heap_mb),
      max_output_bytes: max_output_bytes as usize,
      compute_ms,
      wall_ms,
      heap_mb,
    }
  }

  /// The limit a run has reached after `busy` CPU time (unknown before its thread starts) and
  /// `wall` time, if any. The wall ceiling is checked first: it never pauses.
  pub fn reached(&self, busy: Option<Duration>, wall: Duration) -> Option<Limit> {
    if wall > self.wall {
      Some(Limit::Wall)
    } else if busy.is_some_and(|busy| busy > self.compute) {
      Some(Limit::Compute)
    } else {
      None
    }
  }

  /// How `limit` ends a run: the seam's failure kind and the message.
  pub fn failure(&self, limit: &Limit) -> (FailureKind, Text) {
    let (kind, message) = match limit {
      Limit::Compute => (
        FailureKind::Timeout,
        format!("compute budget exhausted ({}ms busy)", js_number(self.compute_ms)),
      ),
      Limit::Wall => (
        FailureKind::Timeout,
        format!("wall-clock ceiling reached ({}ms)", js_number(self.wall_ms)),
      ),
      Limit::Heap => (
        FailureKind::WorkerExit,
        format!(
          "JS heap out of memory: the program exceeded maxOldGenerationSizeMb ({} MB)",
          js_number(self.heap_mb)
        ),
      ),
      Limit::Output => return (FailureKind::OutputLimit, output_message(self.max_output_bytes)),
      Limit::Abort(reason) => return (FailureKind::Abort, reason.clone()),
      Limit::Disposal => (FailureKind::Abort, "runtime disposed".to_owned()),
    };
    (kind, message.encode_utf16().collect())
  }
}

/// `maxOldGenerationSizeMb` in bytes.
pub fn heap_bytes(mb: f64) -> usize {
  (mb * 1024.0 * 1024.0) as usize
}

/// A number as JavaScript's `String(n)` writes it, as the reference's messages show it.
fn js_number(value: f64) -> String {
  ryu_js::Buffer::new().format(value).to_owned()
}

#[cfg(test)]
mod tests {
  use super::*;

  fn text(message: &str) -> Text {
    message.encode_utf16().collect()
  }

  #[test]
  fn the_wall_ceiling_is_reached_first_and_busy_time_only_once_known() {
    let limits = Limits::new(500.0, 1500.0, 64.0, 1000.0);
    let ms = Duration::from_millis;
    assert_eq!(limits.reached(None, ms(1400)), None);
    assert_eq!(limits.reached(Some(ms(500)), ms(1400)), None);
    assert_eq!(limits.reached(Some(ms(501)), ms(1400)), Some(Limit::Compute));
    assert_eq!(limits.reached(None, ms(1501)), Some(Limit::Wall));
    assert_eq!(limits.reached(Some(ms(2000)), ms(1501)), Some(Limit::Wall));
  }

  #[test]
  fn limits_past_what_a_duration_holds_are_as_good_as_none() {
    let limits = Limits::new(1e30, 1e300, 1.0, 10.0);
    assert_eq!(limits.compute, Duration::MAX);
    assert_eq!(
      limits.reached(Some(Duration::from_secs(1 << 40)), Duration::from_secs(1 << 40)),
      None
    );
  }

  #[test]
  fn messages_show_the_numbers_as_javascript_writes_them() {
    let limits = Limits::new(0.5, 1e21, 1.5, 64.0);
    assert_eq!(
      limits.failure(&Limit::Compute),
      (
        FailureKind::Timeout,
        text("compute budget exhausted (0.5ms busy)")
      )
    );
    assert_eq!(
      limits.failure(&Limit::Wall),
      (FailureKind::Timeout, text("wall-clock ceiling reached (1e+21ms)"))
    );
    assert_eq!(
      limits.failure(&Limit::Heap),
      (
        FailureKind::WorkerExit,
        text("JS heap out of memory: the program exceeded maxOldGenerationSizeMb (1.5 MB)")
      )
    );
    assert_eq!(
      limits.failure(&Limit::Output),
      (FailureKind::OutputLimit, text("outer output exceeded 64 bytes"))
    );
    assert_eq!(
      limits.failure(&Limit::Abort(text("stop"))),
      (FailureKind::Abort, text("stop"))
    );
    assert_eq!(
      limits.failure(&Limit::Disposal),
      (FailureKind::Abort, text("runtime disposed"))
    );
    let defaults = Limits::new(60_000.0, 600_000.0, 512.0, 67_108_864.0);
    assert_eq!(
      defaults.failure(&Limit::Compute).1,
      text("compute budget exhausted (60000ms busy)")
    );
    assert_eq!(defaults.heap_bytes, 512 << 20);
  }
}
