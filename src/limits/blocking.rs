//! The threads tokio starts for one isolate's blocking work (Web Crypto's key generation,
//! derivation, signing, digests): their CPU time is the run's busy time, and they are demoted
//! with the run's own thread if the watchdog demotes it. Nothing can stop such work part-way, so
//! the isolate's event loop runs at most one piece at a time, and work still queued when the run
//! ends is dropped unstarted (see `engine::isolate::event_loop`).

use std::sync::{Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use dsh_os::Thread;

/// Shared by an isolate's event loop, whose threads register here, and its run's clock.
#[derive(Clone, Default)]
pub struct BlockingThreads(Arc<Mutex<Threads>>);

#[derive(Default)]
struct Threads {
  running: Vec<(ThreadId, Thread)>,
  /// CPU time of the threads that have exited.
  finished: Duration,
  /// Set once the run's thread is demoted: threads that start later are demoted too.
  demoted: bool,
}

impl BlockingThreads {
  /// Called on a thread tokio has just started.
  pub fn thread_started(&self) {
    let Some(thread) = Thread::current() else {
      return;
    };
    let mut threads = crate::lock(&self.0);
    if threads.demoted {
      thread.demote();
    }
    threads.running.push((std::thread::current().id(), thread));
  }

  /// Called on a thread tokio is about to end: its clock is still readable.
  pub fn thread_stopping(&self) {
    let me = std::thread::current().id();
    let mut threads = crate::lock(&self.0);
    if let Some(at) = threads.running.iter().position(|(id, _)| *id == me) {
      let (_, thread) = threads.running.swap_remove(at);
      threads.finished += thread.cpu_time().unwrap_or_default();
    }
  }

  /// The CPU time all of them have spent (each started for this isolate, so all of it counts).
  pub fn cpu_time(&self) -> Duration {
    let threads = crate::lock(&self.0);
    threads.finished
      + threads
        .running
        .iter()
        .filter_map(|(_, thread)| thread.cpu_time())
        .sum::<Duration>()
  }

  /// How many are alive.
  pub fn running(&self) -> usize {
    crate::lock(&self.0).running.len()
  }

  pub fn demote(&self) {
    let mut threads = crate::lock(&self.0);
    threads.demoted = true;
    for (_, thread) in &threads.running {
      thread.demote();
    }
  }
}

#[cfg(test)]
mod tests {
  use super::BlockingThreads;
  use std::time::{Duration, Instant};

  #[test]
  fn counts_the_time_of_running_and_exited_threads() {
    let threads = BlockingThreads::default();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let worker = {
      let threads = threads.clone();
      std::thread::spawn(move || {
        threads.thread_started();
        let deadline = Instant::now() + Duration::from_millis(60);
        while Instant::now() < deadline {
          std::hint::black_box(0u64);
        }
        started_tx.send(()).unwrap();
        stop_rx.recv().unwrap();
        threads.thread_stopping();
      })
    };
    started_rx.recv().unwrap();
    assert_eq!(threads.running(), 1);
    let while_running = threads.cpu_time();
    assert!(while_running >= Duration::from_millis(40), "{while_running:?}");
    stop_tx.send(()).unwrap();
    worker.join().unwrap();
    assert_eq!(threads.running(), 0);
    assert!(threads.cpu_time() >= while_running);
  }
}
