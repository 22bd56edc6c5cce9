//! Windows: a handle opened on the thread, for `GetThreadTimes` and `SetThreadPriority`. The
//! kernel adds CPU time at each scheduler tick (about 15.6 ms), so busy time is that coarse. The
//! handle keeps the thread's object, so its times stay readable after it exits.

use std::time::Duration;

use windows_sys::Win32::Foundation::{CloseHandle, FILETIME, HANDLE};
use windows_sys::Win32::System::Threading::{
  GetCurrentThreadId, GetThreadTimes, OpenThread, SetThreadPriority, THREAD_PRIORITY_IDLE,
  THREAD_QUERY_LIMITED_INFORMATION, THREAD_SET_LIMITED_INFORMATION,
};

#[derive(Debug)]
pub struct Handle {
  thread: HANDLE,
}

// SAFETY: a thread handle may be used from any thread; it is closed once, on drop.
unsafe impl Send for Handle {}
// SAFETY: the calls made with it do not mutate the handle.
unsafe impl Sync for Handle {}

impl Handle {
  pub fn current() -> Option<Self> {
    // SAFETY: opens a new handle on the calling thread, closed on drop.
    let thread = unsafe {
      OpenThread(
        THREAD_QUERY_LIMITED_INFORMATION | THREAD_SET_LIMITED_INFORMATION,
        0,
        GetCurrentThreadId(),
      )
    };
    (!thread.is_null()).then_some(Self { thread })
  }

  pub fn cpu_time(&self) -> Option<Duration> {
    let zero = || FILETIME {
      dwLowDateTime: 0,
      dwHighDateTime: 0,
    };
    let (mut created, mut exited, mut kernel, mut user) = (zero(), zero(), zero(), zero());
    // SAFETY: four valid out-pointers and a handle with query rights.
    let ok = unsafe { GetThreadTimes(self.thread, &mut created, &mut exited, &mut kernel, &mut user) };
    // FILETIME counts 100-nanosecond intervals.
    let ticks = |time: FILETIME| (u64::from(time.dwHighDateTime) << 32) | u64::from(time.dwLowDateTime);
    (ok != 0).then(|| Duration::from_nanos((ticks(kernel) + ticks(user)).saturating_mul(100)))
  }

  pub fn demote(&self) {
    // SAFETY: a handle with set rights; failure leaves the thread as it was.
    unsafe {
      SetThreadPriority(self.thread, THREAD_PRIORITY_IDLE);
    }
  }

  #[cfg(test)]
  pub fn is_demoted(&self) -> bool {
    // SAFETY: a handle with query rights.
    unsafe { windows_sys::Win32::System::Threading::GetThreadPriority(self.thread) == THREAD_PRIORITY_IDLE }
  }
}

impl Drop for Handle {
  fn drop(&mut self) {
    // SAFETY: the handle was opened by `current` and is closed only here.
    unsafe {
      CloseHandle(self.thread);
    }
  }
}
