//! Returning the memory disposed isolates freed to the system.
//!
//! The allocator keeps freed pages for reuse (glibc in each thread's arena): after 50 concurrent
//! isolates that is tens of MB no later run may need, and arenas of long-lived pool threads creep
//! up too.
//! Trimming after every disposal cost a third of a concurrent burst's throughput, so the
//! watchdog trims at most once a second, and only when an isolate has been disposed since.
//! Large blocks (ICU's copies of a long text among them) go back to the system when freed,
//! without waiting for a trim (`start`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const TRIM_INTERVAL: Duration = Duration::from_secs(1);

static FREED_SINCE_TRIM: AtomicBool = AtomicBool::new(false);

/// Called once, before the first isolate, on the JavaScript thread: reading the environment
/// there does not race the program's own changes to it (`process.env`).
pub fn start() {
  dsh_os::memory::return_large_blocks_when_freed();
}

/// Called once an isolate has been disposed.
pub fn isolate_disposed() {
  FREED_SINCE_TRIM.store(true, Ordering::SeqCst);
}

/// Trims malloc's arenas if an isolate was disposed since the last trim, at `last`, and that
/// was at least a second ago.
pub fn trim_if_due(last: &mut Option<Instant>) {
  if last.is_some_and(|at| at.elapsed() < TRIM_INTERVAL) || !FREED_SINCE_TRIM.swap(false, Ordering::SeqCst) {
    return;
  }
  *last = Some(Instant::now());
  dsh_os::memory::trim_freed_memory();
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn trims_after_a_disposal_at_most_once_a_second() {
    let mut last = None;
    isolate_disposed();
    trim_if_due(&mut last);
    let first = last.expect("an isolate was disposed");
    isolate_disposed();
    trim_if_due(&mut last);
    assert_eq!(last, Some(first), "within the interval");
    // A second on, the disposal made during the interval is still owed its trim...
    let a_second_ago = Instant::now() - TRIM_INTERVAL;
    last = Some(a_second_ago);
    trim_if_due(&mut last);
    assert!(last > Some(a_second_ago));
    // ...and with nothing disposed since, none is due.
    last = Some(a_second_ago);
    trim_if_due(&mut last);
    assert_eq!(last, Some(a_second_ago));
  }
}
