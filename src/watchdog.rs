//! One thread that polls every live run every 25 ms: its busy time and wall time while it runs,
//! then, once it has ended, until its isolate thread has left it (see `RunShared::watch`). It
//! also returns freed memory: see `arena`.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crossbeam_channel::{Sender, unbounded};

use crate::run::RunShared;

const POLL_INTERVAL: Duration = Duration::from_millis(25);

static WATCHED: OnceLock<Sender<Arc<RunShared>>> = OnceLock::new();

/// Starts the watchdog; called once, from the V8 host thread.
pub fn start() {
  let (sender, incoming) = unbounded::<Arc<RunShared>>();
  if WATCHED.set(sender).is_err() {
    return;
  }
  std::thread::Builder::new()
    .name("dsh-v8-watchdog".into())
    .spawn(move || {
      let mut runs: Vec<Arc<RunShared>> = Vec::new();
      let mut last_trim = None;
      loop {
        match incoming.recv_timeout(POLL_INTERVAL) {
          Ok(run) => runs.push(run),
          Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
          Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
        }
        runs.retain(|run| run.watch());
        crate::arena::trim_if_due(&mut last_trim);
      }
    })
    .expect("the watchdog thread must start");
}

/// Puts a run under the watchdog until its isolate thread has left it.
pub fn watch(run: Arc<RunShared>) {
  if let Some(watched) = WATCHED.get() {
    let _ = watched.send(run);
  }
}
