//! How an isolate thread waits for its binding calls' answers. On a virtual machine, waking a
//! thread that sleeps costs both threads tens of microseconds of CPU (the wake crosses to another
//! virtual CPU through the hypervisor), more than a fast binding takes to answer. So while calls
//! await answers and recent answers came quickly, the thread spins a short, bounded while before
//! it parks; a slow binding is waited for asleep, as before.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The longest spin, and the slowest recent answer worth spinning for.
pub const MAX_SPIN: Duration = Duration::from_micros(100);

#[derive(Debug, Default)]
pub struct AnswerWait {
  /// Answers received so far: a change ends a spin.
  answers: AtomicU64,
  /// A moving average of how long the host took to answer, in nanoseconds (0 before any answer:
  /// the first call is spun for).
  recent_nanos: AtomicU64,
}

impl AnswerWait {
  /// The count that `spin` compares against: read before the event loop is polled, so that an
  /// answer arriving while it is polled ends the spin at once.
  pub fn answers(&self) -> u64 {
    self.answers.load(Ordering::Acquire)
  }

  /// An answer was handed to its call.
  pub fn answered(&self) {
    self.answers.fetch_add(1, Ordering::Release);
  }

  /// A call took `round_trip` from being sent to its answer: weighs a quarter in the average.
  pub fn observe(&self, round_trip: Duration) {
    let nanos = u64::try_from(round_trip.as_nanos()).unwrap_or(u64::MAX);
    let recent = self.recent_nanos.load(Ordering::Relaxed);
    let next = if recent == 0 {
      nanos
    } else {
      (recent / 4) * 3 + nanos / 4
    };
    self.recent_nanos.store(next.max(1), Ordering::Relaxed);
  }

  /// Whether to spin for an answer now: while recent answers came within `MAX_SPIN`.
  pub fn worth_spinning(&self) -> bool {
    Duration::from_nanos(self.recent_nanos.load(Ordering::Relaxed)) <= MAX_SPIN
  }

  /// Spins until an answer arrives after `seen` answers (`true`) or `limit` has passed (`false`),
  /// yielding its CPU between checks to any thread that needs it.
  pub fn spin(&self, seen: u64, limit: Duration) -> bool {
    let started = Instant::now();
    loop {
      for _ in 0..32 {
        if self.answers() != seen {
          return true;
        }
        std::hint::spin_loop();
      }
      if started.elapsed() >= limit {
        return false;
      }
      std::thread::yield_now();
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::sync::Arc;

  #[test]
  fn spins_for_the_first_call_and_while_answers_stay_fast() {
    let wait = AnswerWait::default();
    assert!(wait.worth_spinning());
    wait.observe(Duration::from_micros(40));
    assert!(wait.worth_spinning());
  }

  #[test]
  fn stops_spinning_after_a_slow_answer_and_resumes_as_fast_ones_pull_the_average_down() {
    let wait = AnswerWait::default();
    wait.observe(Duration::from_micros(400));
    assert!(!wait.worth_spinning());
    // 400 -> 310 -> 242.5 -> 191.9 -> 153.9 -> 125.4 -> 104 -> 88 microseconds.
    for expected in [false, false, false, false, false, false, true] {
      wait.observe(Duration::from_micros(40));
      assert_eq!(wait.worth_spinning(), expected);
    }
  }

  #[test]
  fn a_spin_ends_when_an_answer_arrives_or_at_its_limit() {
    let wait = Arc::new(AnswerWait::default());
    let seen = wait.answers();
    assert!(!wait.spin(seen, Duration::from_micros(50)));
    let answering = {
      let wait = wait.clone();
      std::thread::spawn(move || wait.answered())
    };
    assert!(wait.spin(seen, Duration::from_secs(10)));
    answering.join().unwrap();
    assert!(!wait.spin(wait.answers(), Duration::ZERO));
  }
}
