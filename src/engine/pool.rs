//! Isolates prepared ahead of demand: each serves exactly one run and is then dropped, so
//! isolation between runs stays total while a run skips creating its runtime and world. The
//! pool's threads live on: each prepares its next isolate once its run is over. Each isolate gets
//! a tokio runtime of its own, dropped with it: V8 posts delayed tasks (GC timers) to it, and on
//! a runtime that outlived its isolate they piled up, a few KB per run.
//!
//! The pool is elastic (see `sizing`): it grows by each run that found no isolate prepared (the
//! thread that ran it stays on to serve), and shrinks back as isolates sit unused.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};

use crate::engine::isolate::{EventLoop, LiveThread, PreparedIsolate, event_loop};
use crate::engine::job::RunJob;
use crate::engine::sizing::{Refill, Sizing};

/// The longest an idle prepared isolate waits before it checks whether it has been unused long
/// enough to leave (a quarter of the pool's idle time, when that is shorter).
const IDLE_CHECK: Duration = Duration::from_secs(1);

/// How a pool gets its threads: from the V8 host thread, which must spawn every isolate thread
/// (see `platform`).
#[derive(Clone, Copy)]
pub struct Spawner {
  /// Starts a thread that prepares an isolate and serves the pool (`Pool::serve`).
  pub prepare: fn(Arc<Pool>),
  /// Starts a thread for one run that found no prepared isolate; it calls `cold_run_ended`.
  pub run_cold: fn(RunJob, Arc<Pool>),
}

/// An idle prepared isolate, as the sender that hands it its run.
struct Ready {
  id: u64,
  job: Sender<RunJob>,
}

struct State {
  sizing: Sizing,
  /// Idle prepared isolates, oldest first: a run takes the newest, so that isolates a lighter
  /// load no longer needs stay unused and leave.
  ready: Vec<Ready>,
  next_id: u64,
}

pub struct Pool {
  pub heap_bytes: usize,
  spawner: Spawner,
  state: Mutex<State>,
  /// How often an idle prepared isolate checks whether it has been unused long enough to leave.
  idle_check: Duration,
  /// Signalled when a preparation ends, an isolate is ready, or the pool closes: members waiting
  /// to prepare, and `wait_until_prepared`, look again.
  refill: Condvar,
  closed: AtomicBool,
  /// Threads asked for and not yet exited, members and cold runs alike.
  threads: AtomicUsize,
  on_empty: Mutex<Vec<Box<dyn FnOnce() + Send>>>,
}

impl Pool {
  /// A pool that keeps `min` isolates prepared and grows to at most `max` under demand; an
  /// isolate unused for `shrink_after` leaves while it holds more than `min`.
  pub fn new(
    min: usize,
    max: usize,
    shrink_after: Duration,
    heap_bytes: usize,
    spawner: Spawner,
  ) -> Arc<Self> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let pool = Arc::new(Self {
      heap_bytes,
      spawner,
      state: Mutex::new(State {
        sizing: Sizing::new(min, max, shrink_after, cores),
        ready: Vec::new(),
        next_id: 0,
      }),
      idle_check: IDLE_CHECK.min(shrink_after / 4).max(Duration::from_millis(1)),
      refill: Condvar::new(),
      closed: AtomicBool::new(false),
      threads: AtomicUsize::new(0),
      on_empty: Mutex::new(Vec::new()),
    });
    for _ in 0..min {
      pool.add_member();
    }
    pool
  }

  fn add_member(self: &Arc<Self>) {
    if self.closed.load(Ordering::SeqCst) {
      return;
    }
    crate::lock(&self.state).sizing.member_joined();
    self.threads.fetch_add(1, Ordering::SeqCst);
    (self.spawner.prepare)(self.clone());
  }

  /// Hands the run to the newest prepared isolate (whose thread then prepares the next one), else
  /// to a fresh thread that the pool counts.
  pub fn submit(self: &Arc<Self>, job: RunJob) {
    let mut job = job;
    loop {
      let ready = {
        let mut state = crate::lock(&self.state);
        state.sizing.run_started(Instant::now());
        state.ready.pop()
      };
      let Some(ready) = ready else { break };
      match ready.job.send(job) {
        Ok(()) => return,
        Err(unsent) => job = unsent.into_inner(),
      }
    }
    self.threads.fetch_add(1, Ordering::SeqCst);
    (self.spawner.run_cold)(job, self.clone());
  }

  /// Waits until an isolate is prepared, the pool has closed, or `timeout` has passed (an
  /// isolate that cannot be prepared leaves no member to wait for).
  pub fn wait_until_prepared(&self, timeout: Duration) {
    let deadline = Instant::now() + timeout;
    let mut state = crate::lock(&self.state);
    while state.ready.is_empty() && !self.closed.load(Ordering::SeqCst) {
      let Some(left) = deadline.checked_duration_since(Instant::now()) else { return };
      state = self.refill.wait_timeout(state, left).unwrap_or_else(std::sync::PoisonError::into_inner).0;
    }
  }

  /// Stops preparing; idle isolates exit. `on_empty` runs once every pool thread has exited.
  pub fn close(&self, on_empty: Box<dyn FnOnce() + Send>) {
    self.closed.store(true, Ordering::SeqCst);
    // Dropping the senders wakes every idle isolate's thread, which then exits.
    crate::lock(&self.state).ready.clear();
    self.refill.notify_all();
    let mut waiting = crate::lock(&self.on_empty);
    if self.threads.load(Ordering::SeqCst) == 0 {
      drop(waiting);
      on_empty();
    } else {
      waiting.push(on_empty);
    }
  }

  /// A thread the host could not start for a cold run.
  pub fn thread_not_started(&self) {
    self.thread_exited();
  }

  /// A member's thread the host could not start.
  pub fn member_not_started(&self) {
    crate::lock(&self.state).sizing.member_left();
    self.thread_exited();
  }

  /// Called on a cold run's thread once its run is over: `true` when the thread stays on as a
  /// member (the pool was short of isolates) and must go on to `serve`; otherwise it has left.
  pub fn cold_run_ended(&self, demoted: bool) -> bool {
    let joined =
      !demoted && !self.closed.load(Ordering::SeqCst) && crate::lock(&self.state).sizing.try_grow();
    if !joined {
      self.thread_exited();
    }
    joined
  }

  fn thread_exited(&self) {
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

  /// The body of a member's thread: prepare an isolate, wait for its run, run it; again, until
  /// the pool closes or no longer needs it.
  pub fn serve(self: Arc<Self>) {
    let live = LiveThread::enter();
    let mut ended = Served::Done;
    while self.wait_to_prepare() {
      let served = match event_loop() {
        Ok(event_loop) => self.serve_one(event_loop),
        Err(_) => {
          self.preparation_ended();
          Served::Done
        }
      };
      if !matches!(served, Served::Again) {
        ended = served;
        break;
      }
    }
    drop(live);
    // The memory its last isolate freed, used or not, is trimmed like a run's.
    crate::limits::arena::isolate_disposed();
    match ended {
      // `try_shrink` has counted it out already.
      Served::Left => {}
      Served::Demoted => {
        crate::lock(&self.state).sizing.member_left();
        // The watchdog lowered this thread's priority for good: another takes its place.
        self.add_member();
      }
      Served::Again | Served::Done => crate::lock(&self.state).sizing.member_left(),
    }
    self.thread_exited();
  }

  /// Waits until this member may prepare an isolate and counts its preparation; `false` once the
  /// pool has closed.
  fn wait_to_prepare(&self) -> bool {
    let mut state = crate::lock(&self.state);
    loop {
      if self.closed.load(Ordering::SeqCst) {
        return false;
      }
      let ready = state.ready.len();
      match state.sizing.refill(ready, Instant::now()) {
        Refill::Now => {
          state.sizing.preparation_started();
          return true;
        }
        Refill::After(wait) => {
          state = self
            .refill
            .wait_timeout(state, wait)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0;
        }
      }
    }
  }

  fn preparation_ended(&self) {
    crate::lock(&self.state).sizing.preparation_ended();
    self.refill.notify_all();
  }

  /// Prepares one isolate and serves one run with it.
  fn serve_one(&self, event_loop: EventLoop) -> Served {
    // An isolate is made, and dropped unused, inside its event loop.
    let entered = event_loop.runtime.enter();
    let prepared = PreparedIsolate::new(self.heap_bytes);
    self.preparation_ended();
    let Ok(isolate) = prepared else {
      return Served::Done;
    };
    let (job_tx, job_rx) = bounded::<RunJob>(1);
    let id = {
      let mut state = crate::lock(&self.state);
      if self.closed.load(Ordering::SeqCst) {
        return Served::Done;
      }
      let id = state.next_id;
      state.next_id += 1;
      state.ready.push(Ready { id, job: job_tx });
      id
    };
    self.refill.notify_all();
    let job = match self.wait_for_run(id, &job_rx) {
      Waited::Run(job) => job,
      Waited::Closed => return Served::Done,
      Waited::Unused => return Served::Left,
    };
    drop(entered);
    if !job.execute(event_loop, Ok(isolate)) {
      Served::Demoted
    } else if self.closed.load(Ordering::SeqCst) {
      Served::Done
    } else {
      Served::Again
    }
  }

  /// Waits for a run for the isolate `id`, until the pool closes or the isolate has sat unused
  /// long enough to leave.
  fn wait_for_run(&self, id: u64, job_rx: &Receiver<RunJob>) -> Waited {
    let idle_since = Instant::now();
    loop {
      match job_rx.recv_timeout(self.idle_check) {
        Ok(job) => return Waited::Run(job),
        Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
          let mut state = crate::lock(&self.state);
          // Once taken from `ready`, its run is on the way: it stays for it.
          if let Some(position) = state.ready.iter().position(|ready| ready.id == id)
            && state.sizing.try_shrink(idle_since.elapsed())
          {
            state.ready.remove(position);
            return Waited::Unused;
          }
        }
        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return Waited::Closed,
      }
    }
  }
}

/// How a prepared isolate's wait for its run ended.
enum Waited {
  Run(RunJob),
  Closed,
  /// Unused for long enough: its thread has left the pool's members.
  Unused,
}

/// How a member's turn ended.
enum Served {
  /// It may prepare the next isolate.
  Again,
  /// The watchdog demoted it while it ran: it leaves the pool.
  Demoted,
  /// The pool closed, or no isolate could be prepared.
  Done,
  /// It was not needed, and has left the pool's members already.
  Left,
}
