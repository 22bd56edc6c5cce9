//! One thread that polls every live run every 25 ms: its busy time and wall time while it runs,
//! then, once it has ended, until its isolate thread has left it (what a poll does is the run's
//! own: see `RunShared`'s `Watched`). It also returns freed memory: see `arena`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crossbeam_channel::{Sender, unbounded};

const POLL_INTERVAL: Duration = Duration::from_millis(25);

/// What the watchdog polls: a run, from its start until its thread has left it.
pub trait Watched: Send + Sync {
  /// One poll; `false` once there is nothing left to watch.
  fn poll(&self) -> bool;
}

static WATCHED: OnceLock<Sender<Arc<dyn Watched>>> = OnceLock::new();

/// Starts the watchdog; called once, from the V8 host thread.
pub fn start() {
  let (sender, incoming) = unbounded::<Arc<dyn Watched>>();
  if WATCHED.set(sender).is_err() {
    return;
  }
  std::thread::Builder::new()
    .name("dsh-v8-watchdog".into())
    .spawn(move || {
      let mut runs: Vec<Arc<dyn Watched>> = Vec::new();
      let mut last_trim = None;
      loop {
        match incoming.recv_timeout(POLL_INTERVAL) {
          Ok(run) => runs.push(run),
          Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
          Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
        }
        runs.retain(|run| run.poll());
        crate::limits::arena::trim_if_due(&mut last_trim);
      }
    })
    .expect("the watchdog thread must start");
}

/// Puts a run under the watchdog until its isolate thread has left it.
pub fn watch(run: Arc<dyn Watched>) {
  if let Some(watched) = WATCHED.get() {
    let _ = watched.send(run);
  }
}
