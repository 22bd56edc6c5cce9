//! The binding calls of one run that await the host's answers, bounded in count and in argument
//! bytes. Each call's arguments cross to the host as JSON, outside the run's heap cap, and live in
//! Node's heap until answered: unbounded, a loop of calls with a large argument to a slow binding
//! filled Node's heap and ended the host. A call past a bound gets the binding's own rejection.

/// Calls one run may have awaiting answers at once.
pub const MAX_CALLS_IN_FLIGHT: usize = 1024;

/// The argument bytes one run may have awaiting answers: a quarter of its heap cap.
pub fn max_argument_bytes(heap_bytes: usize) -> usize {
  heap_bytes / 4
}

#[derive(Debug, Default)]
pub struct CallsInFlight {
  count: usize,
  argument_bytes: usize,
}

impl CallsInFlight {
  /// Counts a call with `bytes` of argument JSON, or says which bound it would pass.
  pub fn admit(&mut self, bytes: usize, heap_bytes: usize) -> Result<(), String> {
    if self.count >= MAX_CALLS_IN_FLIGHT {
      return Err(format!(
        "a run may have at most {MAX_CALLS_IN_FLIGHT} binding calls awaiting answers; this call would be one more"
      ));
    }
    let max = max_argument_bytes(heap_bytes);
    let total = self.argument_bytes.saturating_add(bytes);
    if total > max {
      return Err(format!(
        "binding calls awaiting answers would hold {total} bytes of arguments; a run may have at most {max} \
         (a quarter of maxOldGenerationSizeMb)"
      ));
    }
    self.count += 1;
    self.argument_bytes = total;
    Ok(())
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
  fn argument_bytes_are_bounded_by_a_quarter_of_the_heap_cap_and_freed_by_answers() {
    let mut calls = CallsInFlight::default();
    assert_eq!(calls.admit(50 * MB, 512 * MB), Ok(()));
    assert_eq!(calls.admit(50 * MB, 512 * MB), Ok(()));
    assert_eq!(
      calls.admit(50 * MB, 512 * MB),
      Err(
        "binding calls awaiting answers would hold 157286400 bytes of arguments; a run may have at most 134217728 \
         (a quarter of maxOldGenerationSizeMb)"
          .to_owned()
      )
    );
    calls.release(50 * MB);
    assert_eq!(calls.admit(50 * MB, 512 * MB), Ok(()));
  }

  #[test]
  fn at_most_1024_calls_await_answers() {
    let mut calls = CallsInFlight::default();
    for _ in 0..MAX_CALLS_IN_FLIGHT {
      assert_eq!(calls.admit(2, 512 * MB), Ok(()));
    }
    assert_eq!(
      calls.admit(2, 512 * MB),
      Err(
        "a run may have at most 1024 binding calls awaiting answers; this call would be one more".to_owned()
      )
    );
    calls.release(2);
    assert_eq!(calls.admit(2, 512 * MB), Ok(()));
  }
}
