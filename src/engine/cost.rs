//! What one isolate costs, phase by phase, on this machine: preparing it (its event loop, the
//! cppgc heap, deserialising the snapshot with the extensions' ops, the world's start, lockdown),
//! and dropping it; and the memory it keeps resident while it lives. Each beside the floors: a
//! bare deno_core runtime, one from a minimal snapshot, a bare V8 isolate. `dsh-isolate-cost`
//! prints both (`npm run bench:isolate`).

use std::time::{Duration, Instant};

use deno_core::{JsRuntime, JsRuntimeForSnapshot, RuntimeOptions, v8};
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

/// Runs `measure` on a thread started after V8 (as every isolate thread is), with room for the
/// isolates' stacks.
fn on_isolate_thread<T: Send + 'static>(measure: impl FnOnce() -> T + Send + 'static) -> T {
  std::thread::Builder::new()
    .stack_size(64 << 20)
    .spawn(measure)
    .expect("the measuring thread starts")
    .join()
    .expect("the measuring thread ends")
}

/// deno_core's own runtime from a snapshot of nothing but itself: the floor of a runtime from a
/// snapshot.
fn minimal_snapshot() -> &'static [u8] {
  Box::leak(JsRuntimeForSnapshot::new(RuntimeOptions::default()).snapshot())
}

fn runtime_from(snapshot: &'static [u8]) -> JsRuntime {
  JsRuntime::new(RuntimeOptions {
    startup_snapshot: Some(snapshot),
    ..Default::default()
  })
}

/// A bare V8 isolate with one context, which `drop_bare` drops.
fn bare_isolate() -> (v8::OwnedIsolate, v8::Global<v8::Context>) {
  let mut isolate = v8::Isolate::new(v8::CreateParams::default());
  let context = {
    v8::scope!(scope, &mut isolate);
    let context = v8::Context::new(scope, Default::default());
    v8::Global::new(scope, context)
  };
  (isolate, context)
}

/// The context's handle goes before its isolate.
fn drop_bare((isolate, context): (v8::OwnedIsolate, v8::Global<v8::Context>)) {
  drop(context);
  drop(isolate);
}

/// Prepares and drops `isolates` isolates of `heap_bytes`, then as many of each floor; `init_v8`
/// first.
pub fn measure(isolates: usize, heap_bytes: usize) -> Vec<Phase> {
  on_isolate_thread(move || {
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
    let minimal = minimal_snapshot();
    for round in 0..=isolates {
      let event_loop = event_loop().expect("an event loop");
      let _entered = event_loop.runtime.enter();
      let mut watch = Stopwatch::start();
      drop(JsRuntime::new(RuntimeOptions::default()));
      let bare = watch.lap();
      drop(runtime_from(minimal));
      let from_snapshot = watch.lap();
      drop_bare(bare_isolate());
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
}

/// The growth of resident memory, in MiB, for each of `count` values of `make` held at once; they
/// go in the reverse order of their making, as V8 requires of isolates on one thread.
fn resident_each<T>(count: usize, mut make: impl FnMut() -> T, mut unmake: impl FnMut(T)) -> f64 {
  let resident = || dsh_os::memory::resident_bytes().unwrap_or_default();
  // What malloc freed before goes back to the system first, so that the batch's own use of it
  // shows as resident memory it adds.
  dsh_os::memory::trim_freed_memory();
  let before = resident();
  let mut held: Vec<T> = (0..count).map(|_| make()).collect();
  let grown = resident().saturating_sub(before);
  while let Some(value) = held.pop() {
    unmake(value);
  }
  grown as f64 / count as f64 / f64::from(1 << 20)
}

/// Resident memory per live isolate, in MiB, by kind: ours prepared, deno_core's from a minimal
/// snapshot, a bare V8 isolate with a context, each kind held `isolates` at a time on one thread.
/// One of each kind lives throughout, so that V8's read-only heap is shared as it is in a pool, and
/// a first round of batches, not counted, makes what is made once a process. Not counted: the
/// thread and event loop each run also has. `None` where the resident memory is unknown.
pub fn measure_resident(isolates: usize, heap_bytes: usize) -> Option<Vec<(&'static str, f64)>> {
  dsh_os::memory::resident_bytes()?;
  Some(on_isolate_thread(move || {
    let event_loop = event_loop().expect("an event loop");
    let _entered = event_loop.runtime.enter();
    let prepared = || {
      PreparedIsolate::new_observed(heap_bytes, &mut |_| {})
        .expect("an isolate")
        .discard()
    };
    // Dropped in reverse order too. Ours comes before the snapshot creator: made on this thread
    // after one, with none of ours alive, it crashed in V8.
    let kept_ours = prepared();
    let minimal = minimal_snapshot();
    let kept = (kept_ours, runtime_from(minimal), bare_isolate());
    let mut measured = Vec::new();
    for _ in 0..2 {
      measured = vec![
        (
          "one of our isolates, prepared",
          resident_each(isolates, prepared, drop),
        ),
        (
          "floor: deno_core runtime from a minimal snapshot",
          resident_each(isolates, || runtime_from(minimal), drop),
        ),
        (
          "floor: a bare V8 isolate and context",
          resident_each(isolates, bare_isolate, drop_bare),
        ),
      ];
    }
    let (ours, floor, bare) = kept;
    drop_bare(bare);
    drop(floor);
    drop(ours);
    measured
  }))
}
