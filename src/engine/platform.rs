//! Our V8, initialised once per process on a thread of ours that spawns every isolate thread.
//!
//! With memory protection keys, a thread created before `V8::Initialize` faults the first time
//! it runs JavaScript, so no Node thread (main, libuv pool, workers) ever runs an isolate.

use std::sync::{Arc, Mutex, OnceLock};

use crossbeam_channel::{Sender, unbounded};

use crate::engine::isolate::{LiveThread, PreparedIsolate, event_loop};
use crate::engine::job::RunJob;
use crate::engine::pool::{Pool, Spawner};

/// Flags for our V8 only (Node's own V8 is untouched); they must be set before initialisation.
///
/// Once Turboshaft unrolls a loop, the stack check that delivers `terminate_execution` is no
/// longer reached and a program can outlive every budget, so unrolling is off.
/// `--no-memory-pool-share-memory-on-teardown`: V8 pools a disposed isolate's heap pages for other
/// isolates and releases the pool by a task posted to those isolates' task runners, eight seconds
/// on; ours live for one run, so that task would never run (after 1 000 hostile runs the process held
/// 1.9 GB). Pages go back to the system when their isolate is disposed, which makes back-to-back
/// runs about a quarter slower (1.7 to 2.2 ms each in a row, on 2 cores).
/// `--single-threaded` keeps all of a run's work (compilation, garbage collection) on its own
/// thread, so busy time counts all of it, and no background thread of V8 ever asks for a
/// collection: in this V8, a background request of one kind while another kind is pending trips
/// `CHECK(GetTimerForCollectionRequest(kind).IsStarted())` and aborts the host (seen once here
/// with 16 MB heap caps; fixed upstream in `CollectionBarrier::TryRequestGC`). Background
/// compilers allocate through `LocalFactory`, so concurrent recompilation stays off too.
/// `--no-maglev-osr`: without concurrent recompilation, a loop that entered Maglev by on-stack
/// replacement never moves on to Turbofan, and runs 40% slower than Node's V8; so a hot loop goes
/// to Turbofan, whose loops poll for termination on every iteration.
/// `--no-maglev-inlining --no-maglev-loop-peeling`: every isolate compiles the world's hot
/// functions again, on the run's own thread; in 1000 console lines Maglev's compiles were half of
/// the run's time (perf), most of it inlining and peeling loops. Without them the lines took 12%
/// less busy time (paired runs) and CPU-bound code is unchanged: what stays hot goes on to
/// Turbofan, which inlines.
/// `--maglev-filter` and `--turbo-filter` keep V8 from compiling the loop poll every program loop
/// calls (src/js/listing_guards.js) on its own: Maglev did, at its 400th call, for 0.3 ms of the
/// run's time. Turbofan still inlines it into the loops it compiles, which poll on every
/// iteration anyway.
/// `--invocation-count-for-maglev=2000 --invocation-count-for-turbofan=6000` (V8's are 400 and 3000):
/// an isolate lives for one run, so every run compiles the world's hot functions again on its own
/// thread. In 1000 console lines Maglev's compiles were about 8 ms of a 15 ms run (`--trace-opt`);
/// waiting longer before compiling, those lines take 5.8 ms instead of 10.3, 1000 binding calls
/// 33.6 instead of 38.8 ms and a JSON round trip of 2000 rows 3.0 instead of 4.5 ms (medians of
/// five alternating runs), with CPU-bound code unchanged: what stays hot is still compiled. The
/// budget also spaces V8's own polls in interpreted loops; program loops poll on every iteration
/// (src/js/listing_guards.js).
pub const V8_FLAGS: &str = "--no-turboshaft-loop-unrolling --stack-size=984 --single-threaded --no-maglev-osr --no-memory-pool-share-memory-on-teardown --no-maglev-inlining --no-maglev-loop-peeling --maglev-filter=-__dsh_loop_poll --turbo-filter=-__dsh_loop_poll --invocation-count-for-maglev=2000 --invocation-count-for-turbofan=6000";

/// Stack of each isolate thread: V8's own limit (984 KiB) ends deep recursion with a
/// `RangeError` well before the thread's native stack runs out; the rest (only the pages used are
/// committed) lets swc strip short programs here, whatever they nest (see `strip`).
const ISOLATE_THREAD_STACK_BYTES: usize = 64 << 20;

/// What the host thread starts a thread for.
enum HostTask {
  /// A run with no prepared isolate: the thread makes one. A pool, if any, counts the thread, and
  /// may keep it on as a member.
  Run(RunJob, Option<Arc<Pool>>),
  /// A pool thread, which prepares an isolate and waits for its run.
  Prepare(Arc<Pool>),
}

struct Host {
  tasks: Sender<HostTask>,
}

/// Started by the first pool or run, never at load: a load-time constructor also runs in every
/// binary that links this crate, where it raced the `dsh-snapshot` tool's own initialisation and
/// set V8's flags after they were frozen (`Check failed: !IsFrozen()`).
static HOST: OnceLock<Host> = OnceLock::new();

fn host() -> &'static Host {
  HOST.get_or_init(|| {
    crate::limits::arena::start();
    let (tasks, incoming) = unbounded::<HostTask>();
    std::thread::Builder::new()
      .name("dsh-v8-host".into())
      .spawn(move || {
        deno_core::v8::V8::set_flags_from_string(V8_FLAGS);
        deno_core::JsRuntime::init_platform(None);
        crate::engine::locale::fix_locale_and_time_zone();
        crate::limits::watchdog::start();
        for task in incoming {
          spawn_isolate_thread(task);
        }
      })
      .expect("the V8 host thread must start");
    Host { tasks }
  })
}

fn spawn_isolate_thread(task: HostTask) {
  let slot = Arc::new(Mutex::new(Some(task)));
  let for_thread = slot.clone();
  let spawned = std::thread::Builder::new()
    .name("dsh-v8-isolate".into())
    .stack_size(ISOLATE_THREAD_STACK_BYTES)
    .spawn(move || {
      crate::engine::stack_room::note_thread_top();
      match for_thread.lock().ok().and_then(|mut task| task.take()) {
        Some(HostTask::Run(job, pool)) => {
          let demoted = !run_cold(job);
          // A run that found no prepared isolate: its thread may stay on to serve the pool.
          if let Some(pool) = pool
            && pool.cold_run_ended(demoted)
          {
            pool.serve();
          }
        }
        Some(HostTask::Prepare(pool)) => pool.serve(),
        None => {}
      }
    });
  if let Err(error) = spawned {
    match slot.lock().ok().and_then(|mut task| task.take()) {
      Some(HostTask::Run(job, pool)) => {
        abandon(job, pool, &format!("could not start an isolate thread: {error}"))
      }
      Some(HostTask::Prepare(pool)) => pool.member_not_started(),
      None => {}
    }
  }
}

/// A run on a thread of its own, whose isolate is created for it; `false` when the watchdog
/// demoted the thread while it ran.
fn run_cold(job: RunJob) -> bool {
  let _live = LiveThread::enter();
  // Stopped while it waited for this thread (a disposal, an abort): it has its ending already,
  // and an isolate made now would only delay its delivery and the disposal waiting for it.
  if job.shared.is_finished() {
    job.abandon("the run ended before its thread started");
    return true;
  }
  match event_loop() {
    Ok(event_loop) => {
      let entered = event_loop.runtime.enter();
      let isolate = PreparedIsolate::new(job.shared.limits.heap_bytes);
      drop(entered);
      job.execute(event_loop, isolate)
    }
    Err(why) => {
      job.abandon(&why);
      true
    }
  }
}

/// How pools get their threads.
pub const SPAWNER: Spawner = Spawner {
  prepare,
  run_cold: submit_cold,
};

/// Hands a run to a fresh isolate thread.
/// Hands the run to a prepared isolate of `pool` when the pool's heap cap is the run's own,
/// else to a thread of its own.
pub fn start(job: RunJob, pool: Option<&Arc<Pool>>) {
  match pool {
    Some(pool) if pool.heap_bytes == job.shared.limits.heap_bytes => pool.submit(job),
    _ => submit(job),
  }
}

fn submit(job: RunJob) {
  send_run(job, None);
}

/// Hands a run of `pool` to a fresh isolate thread, which the pool counts until it exits.
fn submit_cold(job: RunJob, pool: Arc<Pool>) {
  send_run(job, Some(pool));
}

fn send_run(job: RunJob, pool: Option<Arc<Pool>>) {
  if let Err(unsent) = host().tasks.send(HostTask::Run(job, pool))
    && let HostTask::Run(job, pool) = unsent.into_inner()
  {
    abandon(job, pool, "the V8 host thread is gone");
  }
}

/// A run whose thread never started: it ends as `worker-exit`, and its pool stops counting it.
fn abandon(job: RunJob, pool: Option<Arc<Pool>>, why: &str) {
  job.abandon(why);
  if let Some(pool) = pool {
    pool.thread_not_started();
  }
}

/// Starts a pool thread that prepares one isolate.
fn prepare(pool: Arc<Pool>) {
  if let Err(unsent) = host().tasks.send(HostTask::Prepare(pool))
    && let HostTask::Prepare(pool) = unsent.into_inner()
  {
    pool.thread_not_started();
  }
}

#[cfg(test)]
mod tests {
  use super::V8_FLAGS;
  use crate::engine::stack_room::V8_STACK_KIB;

  #[test]
  fn the_stack_size_given_to_v8_is_the_one_stack_room_measures_against() {
    assert!(V8_FLAGS.contains(&format!("--stack-size={V8_STACK_KIB} ")));
  }
}
