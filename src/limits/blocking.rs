//! The threads tokio starts for one isolate's blocking work (Web Crypto's key generation,
//! derivation, signing, digests): their CPU time is the run's busy time, and they are demoted
//! with the run's own thread if the watchdog demotes it. Nothing can stop such work part-way, so
//! the isolate's event loop runs at most one piece at a time, and work still queued when the run
//! ends is dropped unstarted (see `engine::isolate::event_loop`); the piece in progress is waited
//! for ([`BlockingThreads::wait_until_done`]).

use std::sync::{Arc, Condvar, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

use dsh_os::Thread;

/// How often a wait for the threads reads their CPU time.
const CPU_READ_INTERVAL: Duration = Duration::from_millis(5);

/// Shared by an isolate's event loop, whose threads register here, and its run's clock.
#[derive(Clone, Default)]
pub struct BlockingThreads(Arc<Shared>);

#[derive(Default)]
struct Shared {
  threads: Mutex<Threads>,
  /// Signalled as each thread ends.
  ended: Condvar,
}

#[derive(Default)]
struct Threads {
  running: Vec<(ThreadId, Thread)>,
  /// CPU time of the threads that have exited.
  finished: Duration,
  /// Set once they are demoted: threads that start later are demoted too.
  demoted: bool,
}

impl Threads {
  fn cpu_time(&self) -> Duration {
    self.finished
      + self
        .running
        .iter()
        .filter_map(|(_, thread)| thread.cpu_time())
        .sum::<Duration>()
  }

  fn demote(&mut self) {
    self.demoted = true;
    for (_, thread) in &self.running {
      thread.demote();
    }
  }
}

impl BlockingThreads {
  /// Called on a thread tokio has just started.
  pub fn thread_started(&self) {
    let Some(thread) = Thread::current() else {
      return;
    };
    let mut threads = crate::lock(&self.0.threads);
    if threads.demoted {
      thread.demote();
    }
    threads.running.push((std::thread::current().id(), thread));
  }

  /// Called on a thread tokio is about to end: its clock is still readable.
  pub fn thread_stopping(&self) {
    let me = std::thread::current().id();
    let mut threads = crate::lock(&self.0.threads);
    if let Some(at) = threads.running.iter().position(|(id, _)| *id == me) {
      let (_, thread) = threads.running.swap_remove(at);
      threads.finished += thread.cpu_time().unwrap_or_default();
    }
    self.0.ended.notify_all();
  }

  /// The CPU time all of them have spent (each started for this isolate, so all of it counts).
  pub fn cpu_time(&self) -> Duration {
    crate::lock(&self.0.threads).cpu_time()
  }

  /// How many are alive.
  pub fn running(&self) -> usize {
    crate::lock(&self.0.threads).running.len()
  }

  pub fn demote(&self) {
    crate::lock(&self.0.threads).demote();
  }

  /// Waits until every thread has ended, once the run has ended and its event loop is shut down.
  /// They keep their priority until they have spent `demote_after` of CPU time from now, and are
  /// then demoted, as a run's own thread is past its ending: demoted at once, a 15 ms digest
  /// waited seconds for a core on a busy host, while a key generation may take a second.
  pub fn wait_until_done(&self, demote_after: Duration) {
    let mut threads = crate::lock(&self.0.threads);
    let at_start = threads.cpu_time();
    while !threads.running.is_empty() {
      if !threads.demoted && threads.cpu_time().saturating_sub(at_start) >= demote_after {
        threads.demote();
      }
      threads = match self.0.ended.wait_timeout(threads, CPU_READ_INTERVAL) {
        Ok((threads, _)) => threads,
        Err(poisoned) => poisoned.into_inner().0,
      };
    }
  }
}

#[cfg(test)]
mod tests {
  use super::BlockingThreads;
  use std::time::{Duration, Instant};

  /// A thread registered with `threads` that spends `cpu` of CPU time, then ends.
  fn worker(threads: &BlockingThreads, cpu: Duration) -> std::thread::JoinHandle<()> {
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let threads = threads.clone();
    let worker = std::thread::spawn(move || {
      threads.thread_started();
      started_tx.send(()).unwrap();
      let clock = dsh_os::Thread::current().unwrap();
      while clock.cpu_time().unwrap() < cpu {
        std::hint::black_box(0u64);
      }
      threads.thread_stopping();
    });
    started_rx.recv().unwrap();
    worker
  }

  #[test]
  fn a_wait_ends_with_the_last_thread_and_demotes_only_past_its_cpu_time() {
    for (cpu, demote_after, demoted) in [
      (Duration::from_millis(10), Duration::from_millis(100), false),
      (Duration::from_millis(120), Duration::from_millis(20), true),
    ] {
      let threads = BlockingThreads::default();
      let worker = worker(&threads, cpu);
      threads.wait_until_done(demote_after);
      assert_eq!(threads.running(), 0);
      assert!(threads.cpu_time() >= cpu);
      assert_eq!(
        crate::lock(&threads.0.threads).demoted,
        demoted,
        "{cpu:?} of work"
      );
      worker.join().unwrap();
    }
  }

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
