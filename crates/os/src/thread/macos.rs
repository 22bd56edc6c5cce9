//! macOS: the thread's Mach port, for `thread_info(THREAD_BASIC_INFO)` (microseconds) and the
//! precedence policy. A background QoS class would demote further, but only the thread itself
//! can take one, and a runaway thread runs no code of ours.

use std::time::Duration;

/// Far below any base priority: the kernel clamps a thread's priority to the lowest it allows.
const LOWEST_IMPORTANCE: libc::integer_t = -127;

#[derive(Debug)]
pub struct Handle {
  port: libc::mach_port_t,
}

impl Handle {
  pub fn current() -> Option<Self> {
    // SAFETY: names the calling thread's port without taking a reference, valid while it lives.
    let port = unsafe { libc::pthread_mach_thread_np(libc::pthread_self()) };
    (port != 0).then_some(Self { port })
  }

  pub fn cpu_time(&self) -> Option<Duration> {
    // SAFETY: an all-zero `thread_basic_info` is a valid value of the plain C struct.
    let mut info: libc::thread_basic_info = unsafe { std::mem::zeroed() };
    let mut count = libc::THREAD_BASIC_INFO_COUNT;
    // SAFETY: `info` holds `count` words; a port whose thread has exited makes the call fail.
    let status = unsafe {
      libc::thread_info(
        self.port,
        libc::THREAD_BASIC_INFO as libc::thread_flavor_t,
        (&mut info as *mut libc::thread_basic_info).cast(),
        &mut count,
      )
    };
    (status == libc::KERN_SUCCESS).then(|| {
      let micros = |time: libc::time_value_t| time.seconds as u64 * 1_000_000 + time.microseconds as u64;
      Duration::from_micros(micros(info.user_time) + micros(info.system_time))
    })
  }

  pub fn demote(&self) {
    let mut policy = libc::thread_precedence_policy {
      importance: LOWEST_IMPORTANCE,
    };
    // SAFETY: `policy` holds the count of words the flavor reads; failure leaves the thread as it was.
    unsafe {
      libc::thread_policy_set(
        self.port,
        libc::THREAD_PRECEDENCE_POLICY as libc::thread_policy_flavor_t,
        (&mut policy as *mut libc::thread_precedence_policy).cast(),
        libc::THREAD_PRECEDENCE_POLICY_COUNT,
      );
    }
  }

  #[cfg(test)]
  pub fn is_demoted(&self) -> bool {
    let mut policy = libc::thread_precedence_policy { importance: 0 };
    let mut count = libc::THREAD_PRECEDENCE_POLICY_COUNT;
    let mut get_default: libc::boolean_t = 0;
    // SAFETY: `policy` holds `count` words.
    let status = unsafe {
      libc::thread_policy_get(
        self.port,
        libc::THREAD_PRECEDENCE_POLICY as libc::thread_policy_flavor_t,
        (&mut policy as *mut libc::thread_precedence_policy).cast(),
        &mut count,
        &mut get_default,
      )
    };
    status == libc::KERN_SUCCESS && policy.importance < 0
  }
}
