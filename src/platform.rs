//! Our V8, initialised once per process on a thread of ours that spawns every isolate thread.
//!
//! With memory protection keys, a thread created before `V8::Initialize` faults the first time
//! it runs JavaScript, so no Node thread (main, libuv pool, workers) ever runs an isolate.

use std::sync::{Mutex, OnceLock};

use crossbeam_channel::{Sender, unbounded};

use crate::run::RunJob;

/// Flags for our V8 only (Node's own V8 is untouched); they must be set before initialisation.
///
/// Once Turboshaft unrolls a loop, the stack check that delivers `terminate_execution` is no
/// longer reached and a program can outlive every budget, so unrolling is off.
pub const V8_FLAGS: &str = "--no-turboshaft-loop-unrolling --stack-size=984";

/// Stack of each isolate thread: V8's own limit (984 KiB) ends deep recursion with a
/// `RangeError` well before the thread's native stack runs out.
const ISOLATE_THREAD_STACK_BYTES: usize = 8 << 20;

struct Host {
  jobs: Sender<RunJob>,
}

static HOST: OnceLock<Host> = OnceLock::new();

fn host() -> &'static Host {
  HOST.get_or_init(|| {
    let (jobs, incoming) = unbounded::<RunJob>();
    std::thread::Builder::new()
      .name("dsh-v8-host".into())
      .spawn(move || {
        deno_core::v8::V8::set_flags_from_string(V8_FLAGS);
        deno_core::JsRuntime::init_platform(None);
        crate::watchdog::start();
        for job in incoming {
          spawn_isolate_thread(job);
        }
      })
      .expect("the V8 host thread must start");
    Host { jobs }
  })
}

fn spawn_isolate_thread(job: RunJob) {
  let slot = std::sync::Arc::new(Mutex::new(Some(job)));
  let for_thread = slot.clone();
  let spawned = std::thread::Builder::new()
    .name("dsh-v8-isolate".into())
    .stack_size(ISOLATE_THREAD_STACK_BYTES)
    .spawn(move || {
      if let Some(job) = for_thread.lock().ok().and_then(|mut job| job.take()) {
        job.execute();
      }
    });
  if let Err(error) = spawned {
    if let Some(job) = slot.lock().ok().and_then(|mut job| job.take()) {
      job.abandon(&format!("could not start an isolate thread: {error}"));
    }
  }
}

/// Initialises our V8 (once) without starting a run.
pub fn ensure_initialised() {
  host();
}

/// Hands a run to a fresh isolate thread.
pub fn submit(job: RunJob) {
  if let Err(unsent) = host().jobs.send(job) {
    unsent.into_inner().abandon("the V8 host thread is gone");
  }
}
