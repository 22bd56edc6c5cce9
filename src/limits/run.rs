//! One run: its shared state, and the isolate thread that executes it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use deno_core::{OpState, v8};
use tokio::sync::{Notify, oneshot};

use crate::limits::answer_wait::AnswerWait;
use crate::limits::blocking::BlockingThreads;
use crate::limits::budgets::{Limit, Limits};
use crate::limits::calls_in_flight::{Admission, CallsInFlight};
use crate::output::ledger::{Ending, FailureKind, Ledger, Settled, Text};
use dsh_os::Thread;

/// Sends one binding call `(call id, namespace, member, JSON arguments)` to the host, which
/// answers through `RunShared::answer`; `false` when it could not be sent.
#[derive(Clone)]
pub struct BindingDispatch(Arc<dyn Fn(u32, u32, u32, String) -> bool + Send + Sync>);

impl BindingDispatch {
  pub fn new(send: impl Fn(u32, u32, u32, String) -> bool + Send + Sync + 'static) -> Self {
    Self(Arc::new(send))
  }

  pub fn send(&self, call: u32, namespace: u32, name: u32, args_json: String) -> bool {
    (self.0)(call, namespace, name, args_json)
  }
}

/// Binding calls waiting for the host's answer.
#[derive(Default)]
struct WaitingCalls {
  next: u32,
  waiting: HashMap<u32, oneshot::Sender<String>>,
  in_flight: CallsInFlight,
}

/// What a run cost, reported beside its result by `runWithUsage`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
  pub busy: Duration,
  pub wall: Duration,
  /// From the run's start until its program began: isolate creation and bootstrap.
  pub startup: Duration,
  pub binding_calls: u64,
  /// Wall time during which at least one binding call was waiting on the host.
  pub binding_wait: Duration,
  /// The V8 heap's committed size at the end, plus the most ArrayBuffer memory held at once.
  pub heap_peak_bytes: usize,
  pub output_bytes: usize,
}

#[derive(Default)]
struct UsageMeter {
  usage: Usage,
  calls_in_flight: u32,
  waiting_since: Option<Instant>,
}

/// A settled run and what it cost.
pub struct Report {
  pub settled: Settled,
  pub usage: Usage,
}

struct RunState {
  ledger: Ledger,
  phase: Phase,
  /// When the ending was claimed: the watchdog delivers by how long ago that was.
  ended_at: Option<Instant>,
  /// The run's busy time when its ending was claimed: the watchdog demotes a thread by how much
  /// it has worked since, not by wall time, which a starved thread on a busy host also spends.
  busy_at_end: Option<Duration>,
  /// Kept until the isolate thread has left the run, so that stops can be repeated.
  isolate: Option<AttachedIsolate>,
  /// While the `node:` modules are being loaded, a stop leaves the isolate's JavaScript running
  /// until they are (see `hold_stops`).
  stops_held: bool,
}

/// A check made on the isolate's thread at an interrupt (V8's `InterruptCallback`, which the
/// `v8` crate does not export by name).
pub type InterruptCheck = unsafe extern "C" fn(v8::UnsafeRawIsolatePtr, *mut std::ffi::c_void);

/// The run's isolate, as other threads reach it.
struct AttachedIsolate {
  handle: v8::IsolateHandle,
  /// Made on the isolate's thread when the watchdog asks (see `request_heap_check`).
  heap_check: InterruptCheck,
}

/// A run's life, in order; each step happens once.
enum Phase {
  Running,
  Ended(Ending),
  /// The ending has gone to the caller. Still finished: the watchdog must let go of it.
  Settled,
}

impl Phase {
  fn is_running(&self) -> bool {
    matches!(self, Phase::Running)
  }
}

/// The CPU clock of the isolate thread, valid only while that thread lives.
struct CpuClock {
  thread: Thread,
  baseline: Duration,
  /// CPU time the run spent on helper threads that have finished (stripping).
  helpers: Duration,
  /// A helper thread still at work: its CPU time counts as it goes.
  helper: Option<Thread>,
  /// The isolate's blocking threads (Web Crypto).
  blocking: BlockingThreads,
}

static LIVE_RUNS: AtomicUsize = AtomicUsize::new(0);

/// How long after its ending a run's own thread has to deliver the result before the
/// watchdog delivers it instead.
const DELIVERY_GRACE: Duration = Duration::from_millis(25);

/// How much busy time a thread may spend inside the run after its ending before it is demoted
/// to idle scheduling: V8 built-ins whose loops never check for termination can hold it for
/// minutes. Web Crypto's threads are given as much (see `BlockingThreads::wait_until_done`).
pub(crate) const RUNAWAY_AFTER: Duration = Duration::from_millis(100);

/// Threads held past their run's ending since the process started (isolate threads the watchdog
/// demoted, and Web Crypto work waited for), and those still held.
static RUNAWAYS_TOTAL: AtomicUsize = AtomicUsize::new(0);
static RUNAWAYS_NOW: AtomicUsize = AtomicUsize::new(0);

/// `(held past their ending so far, still held)`.
pub fn runaway_threads() -> (usize, usize) {
  (
    RUNAWAYS_TOTAL.load(Ordering::SeqCst),
    RUNAWAYS_NOW.load(Ordering::SeqCst),
  )
}

/// Counts work of a run that goes on past its ending while `wait` waits for it.
pub(crate) fn running_away(wait: impl FnOnce()) {
  RUNAWAYS_TOTAL.fetch_add(1, Ordering::SeqCst);
  RUNAWAYS_NOW.fetch_add(1, Ordering::SeqCst);
  wait();
  RUNAWAYS_NOW.fetch_sub(1, Ordering::SeqCst);
}

/// Hands a run's result to its caller.
pub type Deliver = Box<dyn FnOnce(Report) + Send>;

/// Runs whose shared state still exists: once every run has settled and its isolate is gone,
/// nothing may hold one (the watchdog least of all).
pub fn live_runs() -> usize {
  LIVE_RUNS.load(Ordering::SeqCst)
}

/// Whether a run has ended, and whether a stop ended it, read without a lock. The caller settles a
/// stopped run at once: binding calls it sent before then and not yet dispatched are never
/// dispatched (nor are the reference backend's), while those a run sent before its own ending are.
/// An answer to a run that has ended, however, is wanted by no one.
#[derive(Default)]
pub struct EndFlag(AtomicU8);

impl EndFlag {
  const RUNNING: u8 = 0;
  const ENDED: u8 = 1;
  const STOPPED: u8 = 2;

  fn set(&self, by_stop: bool) {
    self.0.store(
      if by_stop { Self::STOPPED } else { Self::ENDED },
      Ordering::SeqCst,
    );
  }

  pub fn ended(&self) -> bool {
    self.0.load(Ordering::SeqCst) != Self::RUNNING
  }

  pub fn stopped(&self) -> bool {
    self.0.load(Ordering::SeqCst) == Self::STOPPED
  }
}

/// What the caller's thread, the watchdog and the isolate thread share about one run.
pub struct RunShared {
  pub limits: Limits,
  started: Instant,
  state: Mutex<RunState>,
  clock: Mutex<Option<CpuClock>>,
  meter: Mutex<UsageMeter>,
  calls: Mutex<WaitingCalls>,
  pub answer_wait: AnswerWait,
  pub(crate) stopped: Notify,
  /// Hands the result to the caller; taken by whichever side delivers first.
  deliver: Mutex<Option<Deliver>>,
  /// The isolate thread, for demotion.
  thread: Mutex<Option<Thread>>,
  /// Set once the isolate thread has left the run (it may still be disposing of the isolate).
  left: AtomicBool,
  demoted: AtomicBool,
  /// Set while a heap check waits for the isolate to run JavaScript, so that an idle isolate
  /// gathers one request, not one a poll.
  heap_check_pending: AtomicBool,
  /// Shared with the caller's handle, which outlives the run.
  end: Arc<EndFlag>,
}

impl RunShared {
  pub fn new(limits: Limits, deliver: Deliver) -> Arc<Self> {
    LIVE_RUNS.fetch_add(1, Ordering::SeqCst);
    Arc::new(Self {
      started: Instant::now(),
      state: Mutex::new(RunState {
        ledger: Ledger::new(limits.max_output_bytes),
        phase: Phase::Running,
        ended_at: None,
        busy_at_end: None,
        isolate: None,
        stops_held: false,
      }),
      limits,
      clock: Mutex::new(None),
      meter: Mutex::new(UsageMeter::default()),
      calls: Mutex::new(WaitingCalls::default()),
      answer_wait: AnswerWait::default(),
      stopped: Notify::new(),
      deliver: Mutex::new(Some(deliver)),
      thread: Mutex::new(None),
      left: AtomicBool::new(false),
      demoted: AtomicBool::new(false),
      heap_check_pending: AtomicBool::new(false),
      end: Arc::default(),
    })
  }

  fn state(&self) -> MutexGuard<'_, RunState> {
    crate::lock(&self.state)
  }

  /// Decides how the run ends, if nothing has yet; stops its JavaScript and its event loop.
  pub fn finish(&self, ending: Ending) -> bool {
    self.end(ending, false)
  }

  /// `finish`, saying whether a stop (a budget, a cap, an abort, disposal) ends the run.
  fn end(&self, ending: Ending, by_stop: bool) -> bool {
    let busy = self.busy_time();
    let mut state = self.state();
    if !state.phase.is_running() {
      return false;
    }
    state.phase = Phase::Ended(ending);
    // Before the isolate learns of it: its last calls may reach the host only after this is set.
    self.end.set(by_stop);
    state.ended_at = Some(Instant::now());
    state.busy_at_end = busy;
    // A held stop is made when the hold is released.
    if let Some(isolate) = &state.isolate
      && !state.stops_held
    {
      isolate.handle.terminate_execution();
    }
    drop(state);
    self.stopped.notify_one();
    true
  }

  /// Holds every stop until `release_stops`, while the isolate thread does what a termination
  /// must not reach: deno_core loads a `node:` module inside V8's import callback, where one ends
  /// the whole process (see `engine::modules`). `false`, holding nothing, once the run has ended.
  pub fn hold_stops(&self) -> bool {
    let mut state = self.state();
    if !state.phase.is_running() {
      return false;
    }
    state.stops_held = true;
    true
  }

  /// Ends a hold; a stop that came during it is made now.
  pub fn release_stops(&self) {
    let mut state = self.state();
    state.stops_held = false;
    if state.ended_at.is_some()
      && let Some(isolate) = &state.isolate
    {
      isolate.handle.terminate_execution();
    }
  }

  /// Whether stops are being held (see `hold_stops`).
  pub fn stops_held(&self) -> bool {
    self.state().stops_held
  }

  /// Whether the run has ended (or settled); read from the end flag, without the state's lock.
  pub fn is_finished(&self) -> bool {
    self.end.ended()
  }

  /// Whether the run kept in an isolate's `OpState` has ended (false before it has one).
  pub fn has_ended_in(state: &OpState) -> bool {
    state
      .try_borrow::<Arc<RunShared>>()
      .is_some_and(|run| run.is_finished())
  }

  /// Whether the run kept in an isolate's `OpState` holds its stops for a module being loaded.
  pub fn stops_held_in(state: &OpState) -> bool {
    state
      .try_borrow::<Arc<RunShared>>()
      .is_some_and(|run| run.stops_held())
  }

  /// How many UTF-16 units of a log entry to read (see `Ledger::entry_units_worth_reading`).
  pub fn log_units_worth_reading(&self) -> usize {
    self.state().ledger.entry_units_worth_reading()
  }

  /// Appends a log entry of `whole_units` units, of which `entry` holds the first
  /// `log_units_worth_reading` or all; once one does not fit, the run ends as `output-limit`.
  /// `false` once the run is over.
  pub fn admit_log(&self, entry: Text, whole_units: usize) -> bool {
    let mut state = self.state();
    if !state.phase.is_running() {
      return false;
    }
    if whole_units > entry.len() {
      state.ledger.refuse(entry);
    } else if state.ledger.admit(entry) {
      return true;
    }
    drop(state);
    // The ledger reports the overflow itself when the run settles, whatever ends it.
    self.end(Ending::Failure(FailureKind::OutputLimit, Text::new()), true);
    false
  }

  pub fn remaining_output(&self) -> usize {
    self.state().ledger.remaining()
  }

  /// Lets stops reach the isolate, and the watchdog ask it for `heap_check` while the run goes
  /// on; `false` when the run already ended before it existed.
  pub(crate) fn attach_isolate(&self, handle: v8::IsolateHandle, heap_check: InterruptCheck) -> bool {
    let mut state = self.state();
    state.isolate = Some(AttachedIsolate { handle, heap_check });
    state.phase.is_running()
  }

  /// Asks the isolate for its heap check at its next interrupt check, unless a request waits.
  fn request_heap_check(&self) {
    if self.heap_check_pending.swap(true, Ordering::SeqCst) {
      return;
    }
    let state = self.state();
    let requested = state.isolate.as_ref().is_some_and(|isolate| {
      isolate
        .handle
        .request_interrupt(isolate.heap_check, std::ptr::null_mut())
    });
    if !requested {
      self.heap_check_pending.store(false, Ordering::SeqCst);
    }
  }

  /// The isolate has made the heap check requested of it.
  pub fn heap_checked(&self) {
    self.heap_check_pending.store(false, Ordering::SeqCst);
  }

  fn meter(&self) -> MutexGuard<'_, UsageMeter> {
    crate::lock(&self.meter)
  }

  /// Counts a call with `argument_bytes` of JSON against the bounds on calls awaiting answers,
  /// if they have room for it (`forced`: whatever they say).
  pub fn admit_binding_call(&self, argument_bytes: usize, forced: bool) -> Admission {
    crate::lock(&self.calls)
      .in_flight
      .admit(argument_bytes, self.limits.heap_bytes, forced)
  }

  /// A call admitted with `argument_bytes` no longer awaits its answer.
  pub fn release_binding_call(&self, argument_bytes: usize) {
    crate::lock(&self.calls).in_flight.release(argument_bytes);
  }

  /// Registers a call; its answer arrives on the receiver (or it closes when the run settles).
  pub fn wait_for_answer(&self) -> (u32, oneshot::Receiver<String>) {
    let (sender, receiver) = oneshot::channel();
    let mut calls = crate::lock(&self.calls);
    calls.next = calls.next.wrapping_add(1);
    let id = calls.next;
    calls.waiting.insert(id, sender);
    (id, receiver)
  }

  /// The host's answer to a call; dropped without harm once the run has settled.
  pub fn answer(&self, call: u32, tagged: String) {
    let sender = crate::lock(&self.calls).waiting.remove(&call);
    if let Some(sender) = sender {
      let _ = sender.send(tagged);
      self.answer_wait.answered();
    }
  }

  /// Binding calls awaiting the host's answer.
  pub fn calls_awaiting(&self) -> usize {
    crate::lock(&self.calls).waiting.len()
  }

  pub fn binding_call_started(&self) {
    let mut meter = self.meter();
    meter.usage.binding_calls += 1;
    meter.calls_in_flight += 1;
    if meter.calls_in_flight == 1 {
      meter.waiting_since = Some(Instant::now());
    }
  }

  pub fn binding_call_ended(&self) {
    let mut meter = self.meter();
    meter.calls_in_flight = meter.calls_in_flight.saturating_sub(1);
    if meter.calls_in_flight == 0
      && let Some(since) = meter.waiting_since.take()
    {
      meter.usage.binding_wait += since.elapsed();
    }
  }

  pub(crate) fn record_startup(&self) {
    self.meter().usage.startup = self.started.elapsed();
  }

  pub(crate) fn record_heap_peak(&self, bytes: usize) {
    self.meter().usage.heap_peak_bytes = bytes;
  }

  /// Settles the run and hands the result to the caller, unless that already happened.
  pub fn deliver(&self) {
    let deliver = crate::lock(&self.deliver).take();
    if let Some(deliver) = deliver {
      deliver(self.settle());
    }
  }

  /// The result the caller receives, and its cost; the ledger is spent by it.
  fn settle(&self) -> Report {
    // A thread still inside the run (the watchdog delivers for it) has not yet kept its busy time:
    // what the run cost is its busy time when it ended.
    let still_inside = crate::lock(&self.clock).is_some();
    let mut state = self.state();
    let busy_at_end = state.busy_at_end;
    let ledger = std::mem::replace(&mut state.ledger, Ledger::new(0));
    let ending = match std::mem::replace(&mut state.phase, Phase::Settled) {
      Phase::Ended(ending) => ending,
      Phase::Running | Phase::Settled => {
        // Settled for the caller all the same, as a stop would be.
        self.end.set(true);
        Self::failure(FailureKind::WorkerExit, "the isolate ended without an outcome")
      }
    };
    drop(state);
    // Calls still waiting are the caller's to settle; their answers are no longer wanted.
    crate::lock(&self.calls).waiting.clear();
    let settled = ledger.settle(ending);
    let mut meter = self.meter();
    // Calls still pending when the run ended stopped waiting then.
    if let Some(since) = meter.waiting_since.take() {
      meter.usage.binding_wait += since.elapsed();
    }
    let busy = match busy_at_end {
      Some(busy) if still_inside => busy,
      _ => meter.usage.busy,
    };
    let usage = Usage {
      busy,
      wall: self.started.elapsed(),
      output_bytes: settled.output_bytes(),
      ..meter.usage
    };
    Report { settled, usage }
  }

  pub(crate) fn bind_clock_to_current_thread(&self, blocking: BlockingThreads) {
    let Some(thread) = Thread::current() else {
      return;
    };
    *crate::lock(&self.thread) = Some(thread.clone());
    if let Some(baseline) = thread.cpu_time() {
      *crate::lock(&self.clock) = Some(CpuClock {
        thread,
        baseline,
        helpers: Duration::ZERO,
        helper: None,
        blocking,
      });
    }
  }

  /// Stops reading the thread's clock (its id dies with the thread), keeping the final busy time.
  pub(crate) fn release_clock(&self) {
    let busy = self.busy_time().unwrap_or_default();
    self.meter().usage.busy = busy;
    crate::lock(&self.clock).take();
  }

  /// CPU time the isolate thread has spent on this run so far.
  pub fn busy_time(&self) -> Option<Duration> {
    let clock = crate::lock(&self.clock);
    let clock = clock.as_ref()?;
    let helper = clock
      .helper
      .as_ref()
      .and_then(Thread::cpu_time)
      .unwrap_or_default();
    let own = clock.thread.cpu_time()?;
    Some(own.saturating_sub(clock.baseline) + clock.helpers + helper + clock.blocking.cpu_time())
  }

  /// A helper thread started working for this run.
  pub(crate) fn helper_started(&self, helper: Thread) {
    if let Some(clock) = crate::lock(&self.clock).as_mut() {
      clock.helper = Some(helper);
    }
  }

  /// The helper thread, if any, has finished, having spent `spent`: from now on that counts.
  pub(crate) fn helper_ended(&self, spent: Duration) {
    if let Some(clock) = crate::lock(&self.clock).as_mut() {
      clock.helper = None;
      clock.helpers += spent;
    }
  }

  pub fn wall_time(&self) -> Duration {
    self.started.elapsed()
  }

  /// A failure ending with a message given as Rust text.
  pub(crate) fn failure(kind: FailureKind, message: &str) -> Ending {
    Ending::Failure(kind, message.encode_utf16().collect())
  }

  /// One watchdog poll: applies the budgets while the run is running; once it has ended,
  /// repeats the stop, delivers the result if the run's thread has not, and demotes a thread
  /// that stays inside the run. `false` once there is nothing left to watch.
  fn watch(&self) -> bool {
    if self.left.load(Ordering::SeqCst) {
      return false;
    }
    let (ended_at, busy_at_end, isolate, held) = {
      let state = self.state();
      (
        state.ended_at,
        state.busy_at_end,
        state.isolate.as_ref().map(|isolate| isolate.handle.clone()),
        state.stops_held,
      )
    };
    let Some(ended_at) = ended_at else {
      self.enforce_budgets();
      self.request_heap_check();
      return true;
    };
    // Again: deno_core cancels a termination to build its error object, which can run a
    // program's stack formatter after the ending was claimed. A held stop waits for its release.
    if let Some(isolate) = isolate
      && !held
    {
      isolate.terminate_execution();
    }
    let overdue = ended_at.elapsed();
    if overdue >= DELIVERY_GRACE {
      self.deliver();
    }
    let worked_since = match (busy_at_end, self.busy_time()) {
      (Some(then), Some(now)) => now.saturating_sub(then),
      // Ended before its thread came to it (a disposal while the thread was still starting): all of
      // the thread's time in the run comes after the ending, and the wait before it is not work.
      (None, Some(now)) => now,
      _ => overdue,
    };
    if worked_since >= RUNAWAY_AFTER {
      // Under the thread lock, which `leave` takes too: a thread that has left is never demoted,
      // and one demoted is counted back exactly once.
      let thread = crate::lock(&self.thread);
      if !self.left.load(Ordering::SeqCst) && !self.demoted.swap(true, Ordering::SeqCst) {
        RUNAWAYS_TOTAL.fetch_add(1, Ordering::SeqCst);
        RUNAWAYS_NOW.fetch_add(1, Ordering::SeqCst);
        if let Some(thread) = thread.as_ref() {
          thread.demote();
        }
        // A helper still stripping for the run, and blocking work, go down with it.
        if let Some(clock) = crate::lock(&self.clock).as_ref() {
          if let Some(helper) = &clock.helper {
            helper.demote();
          }
          clock.blocking.demote();
        }
      }
    }
    true
  }

  /// Whether the watchdog demoted this run's thread: it must then serve no other run.
  pub(crate) fn was_demoted(&self) -> bool {
    self.demoted.load(Ordering::SeqCst)
  }

  /// The isolate thread is done with the run: no stop may reach its isolate any more.
  pub(crate) fn leave(&self) {
    self.state().isolate = None;
    let _thread = crate::lock(&self.thread);
    self.left.store(true, Ordering::SeqCst);
    if self.demoted.load(Ordering::SeqCst) {
      RUNAWAYS_NOW.fetch_sub(1, Ordering::SeqCst);
    }
  }

  /// Applies the compute and wall budgets.
  fn enforce_budgets(&self) {
    if let Some(limit) = self.limits.reached(self.busy_time(), self.wall_time()) {
      self.stop(limit);
    }
  }

  /// Ends the run because `limit` was reached, unless it has already ended.
  pub fn stop(&self, limit: Limit) -> bool {
    let (kind, message) = self.limits.failure(&limit);
    self.end(Ending::Failure(kind, message), true)
  }

  /// Whether the run has ended, and how, for the caller's handle.
  pub fn end_flag(&self) -> Arc<EndFlag> {
    self.end.clone()
  }
}

impl crate::limits::watchdog::Watched for RunShared {
  fn poll(&self) -> bool {
    self.watch()
  }
}

impl Drop for RunShared {
  fn drop(&mut self) {
    LIVE_RUNS.fetch_sub(1, Ordering::SeqCst);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  /// A second of busy time, no wall time at all, and 1000 bytes of output.
  fn limits() -> Limits {
    Limits::new(1000.0, 0.0, 1.0, 1000.0)
  }

  /// A run whose delivered reports land in the returned list.
  fn run_with_deliveries() -> (Arc<RunShared>, Arc<Mutex<Vec<Report>>>) {
    let delivered = Arc::new(Mutex::new(Vec::new()));
    let sink = delivered.clone();
    let run = RunShared::new(limits(), Box::new(move |report| crate::lock(&sink).push(report)));
    (run, delivered)
  }

  #[test]
  fn stops_are_held_only_while_the_run_runs_and_until_released() {
    let (run, _) = run_with_deliveries();
    assert!(run.hold_stops());
    assert!(run.stops_held());
    // A stop during the hold still ends the run at once: only the termination waits.
    assert!(run.stop(Limit::Disposal));
    assert!(run.is_finished());
    run.release_stops();
    assert!(!run.stops_held());
    // Nothing more may be loaded once the run has ended.
    assert!(!run.hold_stops());
    assert!(!run.stops_held());
  }

  #[test]
  fn a_settled_run_keeps_its_first_ending_and_is_delivered_once() {
    let (run, delivered) = run_with_deliveries();
    assert!(!run.is_finished());
    assert!(run.finish(RunShared::failure(FailureKind::Abort, "stopped")));
    run.deliver();
    run.deliver();
    let reports = crate::lock(&delivered);
    assert_eq!(reports.len(), 1);
    assert_eq!(
      reports[0].settled.error,
      Some((FailureKind::Abort, "stopped".encode_utf16().collect()))
    );
    assert!(run.is_finished());
    // The wall budget (zero here) is long past; a settled run takes no second ending.
    run.enforce_budgets();
    assert!(!run.finish(RunShared::failure(FailureKind::Timeout, "late")));
    assert!(!run.admit_log("late".encode_utf16().collect(), 4));
  }

  #[test]
  fn a_stop_the_output_cap_or_no_outcome_marks_the_run_stopped_and_its_own_ending_only_ended() {
    let (stopped, _) = run_with_deliveries();
    let flag = stopped.end_flag();
    assert!(!flag.ended());
    assert!(stopped.stop(Limit::Disposal));
    assert!(flag.ended() && flag.stopped());
    let (flooded, _) = run_with_deliveries();
    assert!(!flooded.admit_log("x".repeat(2000).encode_utf16().collect(), 2000));
    assert!(flooded.end_flag().stopped());
    let (completed, _) = run_with_deliveries();
    assert!(completed.finish(RunShared::failure(FailureKind::Exception, "thrown")));
    assert!(!completed.stop(Limit::Disposal), "a run ends once");
    assert!(completed.end_flag().ended() && !completed.end_flag().stopped());
    // Settled without an outcome (its isolate thread gave none): settled for the caller as a stop.
    let (orphaned, delivered) = run_with_deliveries();
    orphaned.deliver();
    assert_eq!(crate::lock(&delivered).len(), 1);
    assert!(orphaned.is_finished() && orphaned.end_flag().stopped());
  }

  #[test]
  fn a_thread_that_reaches_its_run_after_the_ending_is_not_demoted_for_the_wait() {
    let (run, delivered) = run_with_deliveries();
    assert!(run.stop(Limit::Disposal));
    std::thread::sleep(RUNAWAY_AFTER + DELIVERY_GRACE);
    // The thread arrives late, as a thread starting under load does, and has done no work yet.
    run.bind_clock_to_current_thread(crate::limits::blocking::BlockingThreads::default());
    assert!(run.watch());
    assert!(!run.was_demoted());
    assert_eq!(
      crate::lock(&delivered).len(),
      1,
      "delivered by the watchdog all the same"
    );
    run.leave();
    assert!(!run.watch());
  }

  #[test]
  fn a_run_the_watchdog_delivers_for_its_thread_costs_its_busy_time_at_the_ending() {
    let (run, delivered) = run_with_deliveries();
    run.bind_clock_to_current_thread(crate::limits::blocking::BlockingThreads::default());
    let worked = Duration::from_millis(30);
    while run.busy_time().is_some_and(|busy| busy < worked) {
      std::hint::spin_loop();
    }
    assert!(run.stop(Limit::Disposal));
    let after_the_ending = run.busy_time().expect("the thread's clock");
    // The thread stays inside the run, as one inside a long op does.
    std::thread::sleep(DELIVERY_GRACE);
    assert!(run.watch());
    let busy = crate::lock(&delivered)[0].usage.busy;
    assert!(busy >= worked && busy <= after_the_ending, "{busy:?}");
    run.leave();
  }

  #[test]
  fn the_watchdog_delivers_an_ended_run_whose_thread_does_not_come_back() {
    let (run, delivered) = run_with_deliveries();
    assert!(run.admit_log("kept".encode_utf16().collect(), 4));
    // The wall budget is zero: the first poll ends the run, and nothing is delivered yet.
    assert!(run.watch());
    assert!(run.is_finished());
    assert!(crate::lock(&delivered).is_empty());
    std::thread::sleep(DELIVERY_GRACE);
    assert!(run.watch());
    let reports = crate::lock(&delivered);
    assert_eq!(reports.len(), 1);
    assert_eq!(
      reports[0].settled.logs,
      vec!["kept".encode_utf16().collect::<Vec<_>>()]
    );
    assert_eq!(
      reports[0].settled.error,
      Some((
        FailureKind::Timeout,
        "wall-clock ceiling reached (0ms)".encode_utf16().collect()
      ))
    );
    drop(reports);
    // Watched until its thread leaves; then let go.
    run.leave();
    assert!(!run.watch());
  }
}
