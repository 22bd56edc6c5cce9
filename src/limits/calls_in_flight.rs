//! The binding calls of one run that await the host's answers, bounded in count and in argument
//! bytes. Each call's arguments cross to the host as JSON, outside the run's heap cap, and live in
//! Node's heap until answered: unbounded, a loop of calls with a large argument to a slow binding
//! filled Node's heap and ended the host. A call past a bound waits in the isolate, its arguments
//! still under the heap cap, until answers free room (src/js/binding_calls.js).

/// Calls one run may have awaiting answers at once.
pub const MAX_CALLS_IN_FLIGHT: usize = 1024;

/// The argument bytes one run may have awaiting answers: a quarter of its heap cap.
pub fn max_argument_bytes(heap_bytes: usize) -> usize {
  heap_bytes / 4
}

/// Whether a call may be sent to the host now.
#[derive(Debug, PartialEq, Eq)]
pub enum Admission {
  /// Counted as awaiting its answer.
  Sent,
  /// Not now: the calls awaiting answers have no room for it until some are answered.
  Wait,
  /// Never: its arguments alone pass the bound; the message says so.
  Refused(String),
}

#[derive(Debug, Default)]
pub struct CallsInFlight {
  count: usize,
  argument_bytes: usize,
}

impl CallsInFlight {
  /// Admits a call with `bytes` of argument JSON if both bounds leave room for it; `forced`, it is
  /// counted whatever they say (a durable run's last message, which nothing may hold back).
  pub fn admit(&mut self, bytes: usize, heap_bytes: usize, forced: bool) -> Admission {
    let max = max_argument_bytes(heap_bytes);
    if !forced {
      if bytes > max {
        return Admission::Refused(format!(
          "a binding call's arguments ({bytes} bytes of JSON) are more than a run may have awaiting answers: \
           {max} bytes (a quarter of maxOldGenerationSizeMb)"
        ));
      }
      if self.count >= MAX_CALLS_IN_FLIGHT || self.argument_bytes.saturating_add(bytes) > max {
        return Admission::Wait;
      }
    }
    self.count += 1;
    self.argument_bytes = self.argument_bytes.saturating_add(bytes);
    Admission::Sent
  }

  /// A call admitted with `bytes` has been answered.
  pub fn release(&mut self, bytes: usize) {
    self.count = self.count.saturating_sub(1);
    self.argument_bytes = self.argument_bytes.saturating_sub(bytes);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  const MB: usize = 1 << 20;

  #[test]
  fn argument_bytes_past_a_quarter_of_the_heap_cap_wait_for_answers_to_free_them() {
    let mut calls = CallsInFlight::default();
    assert_eq!(calls.admit(50 * MB, 512 * MB, false), Admission::Sent);
    assert_eq!(calls.admit(50 * MB, 512 * MB, false), Admission::Sent);
    assert_eq!(calls.admit(50 * MB, 512 * MB, false), Admission::Wait);
    calls.release(50 * MB);
    assert_eq!(calls.admit(50 * MB, 512 * MB, false), Admission::Sent);
  }

  #[test]
  fn arguments_that_alone_pass_the_bound_are_refused() {
    let mut calls = CallsInFlight::default();
    assert_eq!(
      calls.admit(128 * MB + 1, 512 * MB, false),
      Admission::Refused(
        "a binding call's arguments (134217729 bytes of JSON) are more than a run may have awaiting answers: \
         134217728 bytes (a quarter of maxOldGenerationSizeMb)"
          .to_owned()
      )
    );
    assert_eq!(calls.admit(128 * MB, 512 * MB, false), Admission::Sent);
  }

  #[test]
  fn at_most_1024_calls_await_answers_and_the_next_waits() {
    let mut calls = CallsInFlight::default();
    for _ in 0..MAX_CALLS_IN_FLIGHT {
      assert_eq!(calls.admit(2, 512 * MB, false), Admission::Sent);
    }
    assert_eq!(calls.admit(2, 512 * MB, false), Admission::Wait);
    calls.release(2);
    assert_eq!(calls.admit(2, 512 * MB, false), Admission::Sent);
    assert_eq!(calls.admit(2, 512 * MB, false), Admission::Wait);
  }

  #[test]
  fn a_forced_call_is_counted_past_both_bounds() {
    let mut calls = CallsInFlight::default();
    for _ in 0..MAX_CALLS_IN_FLIGHT {
      assert_eq!(calls.admit(2, 512 * MB, false), Admission::Sent);
    }
    assert_eq!(calls.admit(200 * MB, 512 * MB, true), Admission::Sent);
    calls.release(200 * MB);
    assert_eq!(calls.admit(2, 512 * MB, false), Admission::Wait);
    calls.release(2);
    assert_eq!(calls.admit(2, 512 * MB, false), Admission::Sent);
  }
}
