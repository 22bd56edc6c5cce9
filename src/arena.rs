//! Returning what cold isolate threads freed to the system.
//!
//! glibc keeps each thread arena's freed pages for reuse: after 50 concurrent cold runs that is
//! tens of MB that no later run may need. Trimming after every cold run cost a third of a
//! burst's throughput, so the watchdog trims once no cold run is live, at most once a second.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const TRIM_INTERVAL: Duration = Duration::from_secs(1);

static COLD_THREADS: AtomicUsize = AtomicUsize::new(0);
static FREED_SINCE_TRIM: AtomicBool = AtomicBool::new(false);

/// Held by a thread for the length of a cold run.
pub struct ColdThread(());

impl ColdThread {
  pub fn enter() -> Self {
    COLD_THREADS.fetch_add(1, Ordering::SeqCst);
    Self(())
  }
}

impl Drop for ColdThread {
  fn drop(&mut self) {
    FREED_SINCE_TRIM.store(true, Ordering::SeqCst);
    COLD_THREADS.fetch_sub(1, Ordering::SeqCst);
  }
}

/// Trims malloc's arenas when cold runs have ended and none is live; `last` is when it last did.
pub fn trim_when_idle(last: &mut Option<Instant>) {
  if COLD_THREADS.load(Ordering::SeqCst) != 0
    || last.is_some_and(|at| at.elapsed() < TRIM_INTERVAL)
    || !FREED_SINCE_TRIM.swap(false, Ordering::SeqCst)
  {
    return;
  }
  *last = Some(Instant::now());
  #[cfg(all(target_os = "linux", target_env = "gnu"))]
  // SAFETY: malloc_trim only hands free pages of malloc's own arenas back to the kernel.
  unsafe {
    libc::malloc_trim(0);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn trims_only_after_cold_runs_and_once_none_is_live() {
    let mut last = None;
    trim_when_idle(&mut last);
    assert!(last.is_none(), "nothing was freed yet");
    let first = ColdThread::enter();
    let second = ColdThread::enter();
    drop(first);
    trim_when_idle(&mut last);
    assert!(last.is_none(), "a cold run is still live");
    drop(second);
    trim_when_idle(&mut last);
    let trimmed = last.expect("the last cold run ended");
    let third = ColdThread::enter();
    drop(third);
    trim_when_idle(&mut last);
    assert_eq!(last, Some(trimmed), "at most once per interval");
  }
}
