//! Isolates prepared ahead of demand: each serves exactly one run and is then dropped, so
//! isolation between runs stays total while a run skips creating its runtime and world. The
//! pool's threads live on: each prepares its next isolate as soon as its run is over. Each
//! isolate gets a tokio runtime of its own, dropped with it: V8 posts delayed tasks (GC timers)
//! to it, and on a runtime that outlived its isolate they piled up, a few KB per run.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, bounded, unbounded};

use crate::engine::isolate::{EventLoop, LiveThread, PreparedIsolate, event_loop};
use crate::engine::job::RunJob;

/// How often an idle prepared isolate checks whether its pool was closed.
const IDLE_CHECK: Duration = Duration::from_millis(100);

/// How a pool gets its threads: from the V8 host thread, which must spawn every isolate thread
/// (see `platform`).
#[derive(Clone, Copy)]
pub struct Spawner {
  /// Starts a thread that prepares an isolate and serves the pool (`Pool::serve`).
  pub prepare: fn(Arc<Pool>),
  /// Starts a thread for one run that found no prepared isolate; it calls `thread_exited`.
  pub run_cold: fn(RunJob, Arc<Pool>),
}

pub struct Pool {
  pub heap_bytes: usize,
  spawner: Spawner,
  /// Idle prepared isolates, each as the sender that hands it its run.
  ready_tx: Sender<Sender<RunJob>>,
  ready_rx: Receiver<Sender<RunJob>>,
  closed: AtomicBool,
  /// Threads asked for and not yet exited.
  threads: AtomicUsize,
  on_empty: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

impl Pool {
  pub fn new(capacity: usize, heap_bytes: usize, spawner: Spawner) -> Arc<Self> {
    let (ready_tx, ready_rx) = unbounded();
    let pool = Arc::new(Self {
      heap_bytes,
      spawner,
      ready_tx,
      ready_rx,
      closed: AtomicBool::new(false),
      threads: AtomicUsize::new(0),
      on_empty: Mutex::new(Vec::new()),
    });
    for _ in 0..capacity {
      pool.prepare_one();
    }
    pool
  }

  fn prepare_one(self: &Arc<Self>) {
    if !self.closed.load(Ordering::SeqCst) {
      self.threads.fetch_add(1, Ordering::SeqCst);
      (self.spawner.prepare)(self.clone());
    }
  }

  /// Hands the run to a prepared isolate (whose thread then prepares the next one), else to a
  /// fresh thread that the pool counts.
  pub fn submit(self: &Arc<Self>, job: RunJob) {
    let job = match self.ready_rx.try_recv() {
      Ok(isolate) => match isolate.send(job) {
        Ok(()) => return,
        Err(unsent) => unsent.into_inner(),
      },
      Err(_) => job,
    };
    self.threads.fetch_add(1, Ordering::SeqCst);
    (self.spawner.run_cold)(job, self.clone());
  }

  /// Stops preparing; idle isolates exit. `on_empty` runs once every pool thread has exited.
  pub fn close(&self, on_empty: Box<dyn FnOnce() + Send>) {
    self.closed.store(true, Ordering::SeqCst);
    while self.ready_rx.try_recv().is_ok() {}
    let mut waiting = crate::lock(&self.on_empty);
    if self.threads.load(Ordering::SeqCst) == 0 {
      drop(waiting);
      on_empty();
    } else {
      waiting.push(on_empty);
    }
  }

  /// A thread the host could not start.
  pub fn thread_not_started(&self) {
    self.thread_exited();
  }

  /// Called as each thread of the pool (prepared or cold) ends.
  pub fn thread_exited(&self) {
    let mut waiting = crate::lock(&self.on_empty);
    let left = self.threads.fetch_sub(1, Ordering::SeqCst) - 1;
    let done = if left == 0 && self.closed.load(Ordering::SeqCst) {
      std::mem::take(&mut *waiting)
    } else {
      Vec::new()
    };
    drop(waiting);
    for callback in done {
      callback();
    }
  }

  /// The body of a pool thread: prepare an isolate, wait for its run, run it; again, until the
  /// pool closes.
  pub fn serve(self: Arc<Self>) {
    let live = LiveThread::enter();
    let mut demoted = false;
    while let Ok(event_loop) = event_loop() {
      match self.serve_one(event_loop) {
        Served::Again => {}
        Served::Demoted => {
          demoted = true;
          break;
        }
        Served::Done => break,
      }
    }
    drop(live);
    if demoted {
      // The watchdog lowered this thread's priority for good: another takes its place.
      self.prepare_one();
    }
    self.thread_exited();
  }

  /// Prepares one isolate and serves one run with it.
  fn serve_one(&self, event_loop: EventLoop) -> Served {
    // An isolate is made, and dropped unused, inside its event loop.
    let entered = event_loop.runtime.enter();
    let Ok(isolate) = PreparedIsolate::new(self.heap_bytes) else {
      return Served::Done;
    };
    let (job_tx, job_rx) = bounded::<RunJob>(1);
    if self.closed.load(Ordering::SeqCst) || self.ready_tx.send(job_tx).is_err() {
      return Served::Done;
    }
    loop {
      match job_rx.recv_timeout(IDLE_CHECK) {
        Ok(job) => {
          drop(entered);
          return if !job.execute(event_loop, Ok(isolate)) {
            Served::Demoted
          } else if self.closed.load(Ordering::SeqCst) {
            Served::Done
          } else {
            Served::Again
          };
        }
        Err(crossbeam_channel::RecvTimeoutError::Timeout) if !self.closed.load(Ordering::SeqCst) => {}
        Err(_) => return Served::Done,
      }
    }
  }
}

/// How a pool thread's turn ended.
enum Served {
  /// It may prepare the next isolate.
  Again,
  /// The watchdog demoted it while it ran: it leaves the pool.
  Demoted,
  /// The pool closed, or no isolate could be prepared.
  Done,
}
