//! How Node's thread waits for a run's next binding call after answering one. Once Node's thread
//! has gone back to its event loop with nothing to do, it sleeps, and the next call must wake it:
//! on a virtual machine that wake costs both threads tens of microseconds. So when a run that was
//! answered has no other call awaiting, nothing else is queued for Node's thread, and the run's
//! recent calls followed their answers quickly, the answering thread waits a short, bounded while
//! for anything to be posted to it (that run's next call, any run's call or settlement) before
//! returning to the event loop, which then finds it at once.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest wait, and the slowest recent gap between an answer and the next call worth it.
pub const MAX_WAIT: Duration = Duration::from_micros(50);

/// What runs have handed to Node's thread (binding calls, settlements) that it has not yet taken.
static QUEUED: AtomicUsize = AtomicUsize::new(0);

/// Something is about to be handed to Node's thread: a wait in progress ends.
pub fn posting() {
  QUEUED.fetch_add(1, Ordering::AcqRel);
}

/// What `posting` announced was not handed over after all, or Node's thread has taken it.
pub fn taken() {
  QUEUED.fetch_sub(1, Ordering::AcqRel);
}

/// One run's record of how soon its calls follow their answers.
#[derive(Debug)]
pub struct NextCallWait {
  started: Instant,
  /// When the last answer was handed to the run, in nanoseconds since `started` (0: none yet).
  answered_at: AtomicU64,
  /// A moving average of the gap from an answer to the next call, in nanoseconds (0 before any
  /// gap was seen: the first answer is waited after).
  recent_nanos: AtomicU64,
}

impl Default for NextCallWait {
  fn default() -> Self {
    Self {
      started: Instant::now(),
      answered_at: AtomicU64::new(0),
      recent_nanos: AtomicU64::new(0),
    }
  }
}

impl NextCallWait {
  fn now_nanos(&self) -> u64 {
    u64::try_from(self.started.elapsed().as_nanos())
      .unwrap_or(u64::MAX)
      .max(1)
  }

  /// An answer was handed to the run.
  pub fn answered(&self) {
    self.answered_at.store(self.now_nanos(), Ordering::Relaxed);
  }

  /// The run made a call: the gap since the last answer weighs a quarter in the average.
  pub fn called(&self) {
    let answered_at = self.answered_at.swap(0, Ordering::Relaxed);
    if answered_at == 0 {
      return;
    }
    let gap = self.now_nanos().saturating_sub(answered_at).max(1);
    let recent = self.recent_nanos.load(Ordering::Relaxed);
    let next = if recent == 0 {
      gap
    } else {
      (recent / 4) * 3 + gap / 4
    };
    self.recent_nanos.store(next.max(1), Ordering::Relaxed);
  }

  /// Whether to wait for the run's next call now: while recent calls came within `MAX_WAIT`.
  pub fn worth_waiting(&self) -> bool {
    Duration::from_nanos(self.recent_nanos.load(Ordering::Relaxed)) <= MAX_WAIT
  }
}

fn queued() -> bool {
  QUEUED.load(Ordering::Acquire) != 0
}

/// Waits until something is queued for Node's thread (`true`, at once if it already is) or `limit`
/// has passed (`false`), yielding its CPU between checks to any thread that needs it.
pub fn wait_for_post(limit: Duration) -> bool {
  let started = Instant::now();
  loop {
    for _ in 0..32 {
      if queued() {
        return true;
      }
      std::hint::spin_loop();
    }
    if started.elapsed() >= limit {
      return false;
    }
    // Runs' threads that share this core go first.
    std::thread::yield_now();
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn waits_after_the_first_answer_and_while_calls_follow_answers_quickly() {
    let wait = NextCallWait::default();
    assert!(wait.worth_waiting());
    wait.answered();
    wait.called();
    assert!(wait.worth_waiting());
  }

  #[test]
  fn a_call_without_an_answer_before_it_is_no_gap() {
    let wait = NextCallWait::default();
    wait.called();
    wait.called();
    assert_eq!(wait.recent_nanos.load(Ordering::Relaxed), 0);
  }

  #[test]
  fn stops_waiting_after_a_slow_call_and_resumes_as_fast_ones_pull_the_average_down() {
    let wait = NextCallWait::default();
    wait.answered();
    std::thread::sleep(Duration::from_millis(2));
    wait.called();
    assert!(!wait.worth_waiting());
    // From at least 2 ms, each fast gap takes a quarter off: 1.5, 1.125, ... ms, below 50 µs
    // after 12 or more.
    let mut fast = 0;
    while !wait.worth_waiting() {
      wait.answered();
      wait.called();
      fast += 1;
      assert!(fast <= 40, "the average never came down");
    }
    assert!(fast >= 12, "came down after {fast} fast calls");
  }

  #[test]
  fn a_wait_ends_when_something_is_queued_or_at_its_limit() {
    // Only this test posts.
    let started = Instant::now();
    assert!(!wait_for_post(Duration::from_micros(200)));
    assert!(started.elapsed() >= Duration::from_micros(200));
    let post = std::thread::spawn(posting);
    assert!(wait_for_post(Duration::from_secs(10)));
    post.join().unwrap();
    assert!(wait_for_post(Duration::ZERO), "still queued until taken");
    taken();
    assert!(!wait_for_post(Duration::ZERO));
  }
}
