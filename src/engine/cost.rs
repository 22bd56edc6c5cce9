//! What one isolate costs, phase by phase, on this machine: preparing it (its event loop, the
//! cppgc heap, deserialising the snapshot with the extensions' ops, the world's start, lockdown),
//! and dropping it; beside two floors, a bare deno_core runtime and one from a minimal snapshot.
//! `dsh-isolate-cost` prints it (`npm run bench:isolate`).

use std::time::{Duration, Instant};

use deno_core::{JsRuntime, JsRuntimeForSnapshot, RuntimeOptions};
use dsh_os::Thread;

use crate::engine::isolate::{PreparedIsolate, event_loop};

/// One phase's samples: wall and CPU time of the thread doing it.
pub struct Phase {
  pub name: &'static str,
  pub wall: Vec<Duration>,
  pub cpu: Vec<Duration>,
}

/// A stopwatch for the calling thread's wall and CPU time.
struct Stopwatch {
  thread: Thread,
  wall: Instant,
  cpu: Duration,
}

impl Stopwatch {
  fn start() -> Self {
    let thread = Thread::current().expect("a handle on this thread");
    let cpu = thread.cpu_time().unwrap_or_default();
    Self {
      thread,
      wall: Instant::now(),
      cpu,
    }
  }

  /// Time since the last lap, and a new lap begins.
  fn lap(&mut self) -> (Duration, Duration) {
    let cpu = self.thread.cpu_time().unwrap_or_default();
    let lap = (self.wall.elapsed(), cpu.saturating_sub(self.cpu));
    self.wall = Instant::now();
    self.cpu = cpu;
    lap
  }
}

fn record(phases: &mut Vec<Phase>, name: &'static str, (wall, cpu): (Duration, Duration)) {
  match phases.iter_mut().find(|phase| phase.name == name) {
    Some(phase) => {
      phase.wall.push(wall);
      phase.cpu.push(cpu);
    }
    None => phases.push(Phase {
      name,
      wall: vec![wall],
      cpu: vec![cpu],
    }),
  }
}

/// Initialises V8 as the addon's host thread does, with `extra_flags` after ours (to try others);
/// once per process, before `measure`.
pub fn init_v8(extra_flags: &str) {
  deno_core::v8::V8::set_flags_from_string(&format!("{} {extra_flags}", crate::engine::platform::V8_FLAGS));
  JsRuntime::init_platform(None);
  crate::engine::locale::fix_locale_and_time_zone();
}

/// Prepares and drops `isolates` isolates of `heap_bytes`, then as many of each floor, on a thread
/// started after V8 (as every isolate thread is); `init_v8` first.
pub fn measure(isolates: usize, heap_bytes: usize) -> Vec<Phase> {
  std::thread::Builder::new()
    .stack_size(64 << 20)
    .spawn(move || {
      let mut phases = Vec::new();
      // The first isolate of a process pays for lazy initialisation: not counted.
      for round in 0..=isolates {
        let mut watch = Stopwatch::start();
        let event_loop = event_loop().expect("an event loop");
        let entered = event_loop.runtime.enter();
        let lap = watch.lap();
        let mut laps = vec![("tokio runtime", lap)];
        let isolate = PreparedIsolate::new_observed(heap_bytes, &mut |name| laps.push((name, watch.lap())))
          .expect("an isolate");
        drop(isolate.discard());
        laps.push(("drop the isolate", watch.lap()));
        drop(entered);
        drop(event_loop);
        laps.push(("drop the tokio runtime", watch.lap()));
        if round > 0 {
          for (name, lap) in laps {
            record(&mut phases, name, lap);
          }
        }
      }
      let minimal: &'static [u8] = Box::leak(JsRuntimeForSnapshot::new(RuntimeOptions::default()).snapshot());
      for round in 0..=isolates {
        let event_loop = event_loop().expect("an event loop");
        let _entered = event_loop.runtime.enter();
        let mut watch = Stopwatch::start();
        drop(JsRuntime::new(RuntimeOptions::default()));
        let bare = watch.lap();
        drop(JsRuntime::new(RuntimeOptions {
          startup_snapshot: Some(minimal),
          ..Default::default()
        }));
        let from_snapshot = watch.lap();
        {
          let isolate = &mut deno_core::v8::Isolate::new(deno_core::v8::CreateParams::default());
          deno_core::v8::scope!(scope, isolate);
          let context = deno_core::v8::Context::new(scope, Default::default());
          std::hint::black_box(context);
        }
        let v8_alone = watch.lap();
        if round > 0 {
          record(
            &mut phases,
            "floor: bare deno_core runtime, made and dropped",
            bare,
          );
          record(
            &mut phases,
            "floor: deno_core runtime from a minimal snapshot, made and dropped",
            from_snapshot,
          );
          record(
            &mut phases,
            "floor: a bare V8 isolate and context, made and dropped",
            v8_alone,
          );
        }
      }
      phases
    })
    .expect("the measuring thread starts")
    .join()
    .expect("the measuring thread ends")
}
