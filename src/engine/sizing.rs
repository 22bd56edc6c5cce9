//! How many isolates a pool holds, and when it prepares the next: plain bookkeeping, apart from
//! the threads that follow it.
//!
//! - The pool grows by demand: a run that found no isolate prepared shows the pool too small, and
//!   the thread that ran it stays on as a member, up to `max`.
//! - It shrinks by disuse: an isolate unused for `shrink_after` leaves while more than `min`
//!   members remain.
//! - Refills give way to runs. Preparing an isolate costs milliseconds of CPU, which runs starting
//!   at the same moment need: while isolates remain prepared, a refill waits until no run has
//!   started for `QUIET`; and no more isolates are prepared at once than there are cores.

use std::time::{Duration, Instant};

/// How long after the last run started a refill waits, while isolates remain prepared.
pub const QUIET: Duration = Duration::from_millis(2);

/// How long a member waits for a free preparation before it looks again; the end of a preparation
/// wakes it sooner.
const SLOT_WAIT: Duration = Duration::from_millis(100);

/// When a member may prepare its next isolate.
#[derive(Debug, PartialEq, Eq)]
pub enum Refill {
  Now,
  /// Look again after this long, or when a preparation ends.
  After(Duration),
}

#[derive(Debug)]
pub struct Sizing {
  min: usize,
  max: usize,
  /// How long an isolate may sit unused before it leaves a pool larger than `min`.
  shrink_after: Duration,
  /// The most preparations at once.
  cores: usize,
  /// Threads serving the pool: each prepares, holds or runs one isolate.
  members: usize,
  preparing: usize,
  last_run_started: Option<Instant>,
}

impl Sizing {
  pub fn new(min: usize, max: usize, shrink_after: Duration, cores: usize) -> Self {
    Self {
      min,
      max: max.max(min),
      shrink_after,
      cores: cores.max(1),
      members: 0,
      preparing: 0,
      last_run_started: None,
    }
  }

  pub fn member_joined(&mut self) {
    self.members += 1;
  }

  pub fn member_left(&mut self) {
    self.members = self.members.saturating_sub(1);
  }

  /// A run found no isolate prepared: its thread joins, if the pool may grow.
  pub fn try_grow(&mut self) -> bool {
    let grows = self.members < self.max;
    if grows {
      self.members += 1;
    }
    grows
  }

  /// An isolate has sat unused for `idle`: its thread leaves, if the pool may shrink.
  pub fn try_shrink(&mut self, idle: Duration) -> bool {
    let shrinks = idle >= self.shrink_after && self.members > self.min;
    if shrinks {
      self.members -= 1;
    }
    shrinks
  }

  pub fn run_started(&mut self, now: Instant) {
    self.last_run_started = Some(now);
  }

  /// Whether a member may start preparing now, with `ready` isolates prepared and idle.
  pub fn refill(&self, ready: usize, now: Instant) -> Refill {
    if self.preparing >= self.cores {
      return Refill::After(SLOT_WAIT);
    }
    if ready > 0
      && let Some(started) = self.last_run_started
    {
      let since = now.saturating_duration_since(started);
      if since < QUIET {
        return Refill::After(QUIET - since);
      }
    }
    Refill::Now
  }

  pub fn preparation_started(&mut self) {
    self.preparing += 1;
  }

  pub fn preparation_ended(&mut self) {
    self.preparing = self.preparing.saturating_sub(1);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  const SHRINK_AFTER: Duration = Duration::from_secs(30);

  #[test]
  fn grows_by_demand_up_to_its_maximum() {
    let mut sizing = Sizing::new(2, 4, SHRINK_AFTER, 2);
    sizing.member_joined();
    sizing.member_joined();
    assert!(sizing.try_grow());
    assert!(sizing.try_grow());
    assert!(!sizing.try_grow());
    sizing.member_left();
    assert!(sizing.try_grow());
  }

  #[test]
  fn shrinks_by_disuse_down_to_its_minimum() {
    let mut sizing = Sizing::new(1, 3, SHRINK_AFTER, 2);
    for _ in 0..3 {
      sizing.member_joined();
    }
    assert!(!sizing.try_shrink(SHRINK_AFTER - Duration::from_millis(1)));
    assert!(sizing.try_shrink(SHRINK_AFTER));
    assert!(sizing.try_shrink(SHRINK_AFTER * 2));
    assert!(!sizing.try_shrink(SHRINK_AFTER * 2));
  }

  #[test]
  fn a_maximum_below_the_minimum_is_the_minimum() {
    let mut sizing = Sizing::new(3, 1, SHRINK_AFTER, 2);
    for _ in 0..3 {
      sizing.member_joined();
    }
    assert!(!sizing.try_grow());
  }

  #[test]
  fn refills_wait_while_runs_start_and_isolates_remain() {
    let mut sizing = Sizing::new(2, 4, SHRINK_AFTER, 2);
    let start = Instant::now();
    assert_eq!(sizing.refill(1, start), Refill::Now);
    sizing.run_started(start);
    let later = start + Duration::from_micros(500);
    assert_eq!(
      sizing.refill(1, later),
      Refill::After(QUIET - Duration::from_micros(500))
    );
    // None left prepared: the next run needs one now.
    assert_eq!(sizing.refill(0, later), Refill::Now);
    assert_eq!(sizing.refill(3, start + QUIET), Refill::Now);
  }

  #[test]
  fn prepares_no_more_at_once_than_there_are_cores() {
    let mut sizing = Sizing::new(2, 4, SHRINK_AFTER, 2);
    let now = Instant::now();
    sizing.preparation_started();
    assert_eq!(sizing.refill(0, now), Refill::Now);
    sizing.preparation_started();
    assert_eq!(sizing.refill(0, now), Refill::After(SLOT_WAIT));
    sizing.preparation_ended();
    assert_eq!(sizing.refill(0, now), Refill::Now);
  }
}
