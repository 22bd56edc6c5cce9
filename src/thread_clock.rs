//! A thread's CPU clock and kernel id: read from any thread while that thread lives (busy time),
//! and the id to demote it by.

use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub struct ThreadClock {
  clock: libc::clockid_t,
  pub id: libc::pid_t,
}

impl ThreadClock {
  /// The calling thread's clock.
  pub fn current() -> Option<Self> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: `pthread_self` is the calling thread, `clock` a valid out-pointer; `gettid` has
    // no preconditions.
    let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    (status == 0).then(|| Self {
      clock,
      // SAFETY: as above.
      id: unsafe { libc::gettid() },
    })
  }

  /// CPU time the thread has used; `None` once it has exited (its clock id then dies with it).
  pub fn read(&self) -> Option<Duration> {
    let mut now = libc::timespec {
      tv_sec: 0,
      tv_nsec: 0,
    };
    // SAFETY: `now` is a valid out-pointer; a stale id only makes the call fail.
    let status = unsafe { libc::clock_gettime(self.clock, &mut now) };
    (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
  }
}

#[cfg(test)]
mod tests {
  use super::ThreadClock;

  #[test]
  fn reads_the_time_the_thread_spent() {
    let clock = ThreadClock::current().unwrap();
    let before = clock.read().unwrap();
    let mut x = 0u64;
    for i in 0..5_000_000u64 {
      x = std::hint::black_box(x.wrapping_add(i));
    }
    assert!(clock.read().unwrap() > before, "{x}");
  }
}
