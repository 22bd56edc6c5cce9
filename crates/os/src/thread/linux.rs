//! Linux: the thread's CPU clock from `pthread_getcpuclockid` (nanoseconds), its kernel id for
//! `SCHED_IDLE`.

use std::time::Duration;

#[derive(Debug)]
pub struct Handle {
  clock: libc::clockid_t,
  id: libc::pid_t,
}

impl Handle {
  pub fn current() -> Option<Self> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: `pthread_self` is the calling thread, `clock` a valid out-pointer; `gettid` has no
    // preconditions.
    let status = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    (status == 0).then(|| Self {
      clock,
      // SAFETY: as above.
      id: unsafe { libc::gettid() },
    })
  }

  pub fn cpu_time(&self) -> Option<Duration> {
    let mut now = libc::timespec {
      tv_sec: 0,
      tv_nsec: 0,
    };
    // SAFETY: `now` is a valid out-pointer; the clock of a thread that has exited only makes the
    // call fail.
    let status = unsafe { libc::clock_gettime(self.clock, &mut now) };
    (status == 0).then(|| Duration::new(now.tv_sec as u64, now.tv_nsec as u32))
  }

  pub fn demote(&self) {
    let idle = libc::sched_param { sched_priority: 0 };
    // SAFETY: plain system calls on a thread id of this process; failure leaves it as it was.
    unsafe {
      libc::sched_setscheduler(self.id, libc::SCHED_IDLE, &idle);
      libc::setpriority(libc::PRIO_PROCESS, self.id as libc::id_t, 19);
    }
  }

  #[cfg(test)]
  pub fn is_demoted(&self) -> bool {
    // SAFETY: reads the scheduling policy of a thread of this process.
    unsafe { libc::sched_getscheduler(self.id) == libc::SCHED_IDLE }
  }
}
