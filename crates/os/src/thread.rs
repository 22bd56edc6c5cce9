//! A handle on one thread: its CPU clock and its scheduling priority.

use std::sync::Arc;
use std::time::Duration;

#[cfg(target_os = "linux")]
#[path = "thread/linux.rs"]
mod imp;
#[cfg(target_os = "macos")]
#[path = "thread/macos.rs"]
mod imp;
#[cfg(windows)]
#[path = "thread/windows.rs"]
mod imp;

/// A thread of this process, as the thread that made the handle: cheap to clone, usable from any
/// thread.
#[derive(Clone, Debug)]
pub struct Thread(Arc<imp::Handle>);

impl Thread {
  /// The calling thread; `None` if the OS would not give a handle on it.
  pub fn current() -> Option<Self> {
    imp::Handle::current().map(|handle| Self(Arc::new(handle)))
  }

  /// The CPU time the thread has used, user and system, since it started. `None` where the OS
  /// can no longer read it (on Linux and macOS, once the thread has exited).
  pub fn cpu_time(&self) -> Option<Duration> {
    self.0.cpu_time()
  }

  /// Lowers the thread to the least the OS schedules, so that a thread nothing can stop cannot
  /// starve the host: Linux `SCHED_IDLE` and nice 19, macOS the lowest Mach thread precedence,
  /// Windows `THREAD_PRIORITY_IDLE`. A failure leaves the thread as it was.
  pub fn demote(&self) {
    self.0.demote()
  }
}

#[cfg(test)]
mod tests {
  use std::sync::mpsc;

  use super::Thread;

  fn spin(rounds: u64) -> u64 {
    let mut x = 0u64;
    for i in 0..rounds {
      x = std::hint::black_box(x.wrapping_add(i));
    }
    x
  }

  #[test]
  fn reads_the_time_the_thread_spent() {
    let thread = Thread::current().unwrap();
    let before = thread.cpu_time().unwrap();
    // Windows counts CPU time in scheduler ticks (about 15.6 ms): spin past a few.
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(100);
    while std::time::Instant::now() < deadline {
      spin(100_000);
    }
    assert!(thread.cpu_time().unwrap() > before);
  }

  #[test]
  fn another_thread_reads_the_clock_while_the_thread_lives() {
    let (handle_out, handle_in) = mpsc::channel();
    let (done_out, done_in) = mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
      handle_out.send(Thread::current().unwrap()).unwrap();
      while done_in.try_recv().is_err() {
        spin(100_000);
      }
    });
    let thread = handle_in.recv().unwrap();
    let first = thread.cpu_time().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let later = thread.cpu_time().unwrap();
    done_out.send(()).unwrap();
    worker.join().unwrap();
    assert!(later > first, "{first:?} then {later:?}");
  }

  #[test]
  fn a_demoted_thread_runs_on_at_the_lowest_priority() {
    let (handle_out, handle_in) = mpsc::channel();
    let (demoted_out, demoted_in) = mpsc::channel::<()>();
    let worker = std::thread::spawn(move || {
      let me = Thread::current().unwrap();
      handle_out.send(me.clone()).unwrap();
      demoted_in.recv().unwrap();
      (me.0.is_demoted(), spin(1_000_000))
    });
    let thread = handle_in.recv().unwrap();
    assert!(!thread.0.is_demoted());
    thread.demote();
    demoted_out.send(()).unwrap();
    let (demoted, _) = worker.join().unwrap();
    assert!(demoted);
  }
}
