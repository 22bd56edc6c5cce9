//! The heap cap, decided after each full collection instead of when V8 has run out of room.
//!
//! V8 calls its near-limit hook only once a failing allocation has had two full collections, as
//! its last resort starts, and that last resort then makes at least two more. Over a heap full of
//! small objects each takes 25-100 ms, and none can be stopped, so a run that reached its cap kept its
//! thread 200-400 ms past its ending (`--trace-gc`). Here the run is stopped as soon as a full
//! collection leaves more live than the cap, while V8's own limit stands `headroom` higher: the
//! allocation in flight then succeeds, and the program meets its termination at its next check.
//! The near-limit hook stays for a single request larger than the headroom.
//!
//! V8 also gives a young large object (a growing array's new backing store, say) its room
//! whatever the limit, with no collection: a loop of `a[k] = 0` at a 64 MB cap held a 51 MB store
//! and a new 77 MB one, filled the new one without allocating, and only then, asking for 115 MB,
//! met a collection and its stop (192 MB of heap). So between collections the watchdog has the
//! isolate check its heap (`check_between_collections`), and a heap past its limit gets a full
//! collection, which decides as any other.

use std::cell::RefCell;
use std::ffi::c_void;
use std::sync::Arc;

use deno_core::v8;

use crate::limits::budgets::Limit;
use crate::limits::run::RunShared;

/// The run on this thread's isolate, and the most it may hold after a full collection.
struct Watched {
  run: Arc<RunShared>,
  cap: usize,
}

thread_local! {
  // An isolate thread runs one run at a time; V8 calls the hook on the isolate's own thread.
  static WATCHED: RefCell<Option<Watched>> = const { RefCell::new(None) };
}

/// Room above a cap of `cap_bytes` for what a stopped program allocates before its next check:
/// a quarter of the cap, from 8 to 64 MiB.
pub fn headroom(cap_bytes: usize) -> usize {
  (cap_bytes / 4).clamp(8 << 20, 64 << 20)
}

/// Makes V8 call the hook after each full collection of `isolate`.
pub fn watch(isolate: &mut v8::Isolate) {
  isolate.add_gc_epilogue_callback(
    after_full_collection,
    std::ptr::null_mut(),
    v8::GCType::kGCTypeMarkSweepCompact,
  );
}

/// Stops the watched run once a full collection leaves more than its cap live.
unsafe extern "C" fn after_full_collection(
  isolate: v8::UnsafeRawIsolatePtr,
  _type: v8::GCType,
  _flags: v8::GCCallbackFlags,
  _data: *mut c_void,
) {
  WATCHED.with_borrow(|watched| {
    let Some(watched) = watched else { return };
    // SAFETY: V8 calls this on the isolate's thread while the isolate lives; the `Isolate`
    // made here only borrows it.
    let mut isolate = unsafe { v8::Isolate::from_raw_isolate_ptr(isolate) };
    if isolate.get_heap_statistics().used_heap_size() > watched.cap {
      watched.run.stop(Limit::Heap);
    }
  });
}

/// The watchdog's check, made on the isolate's thread at an interrupt while a run goes on: a heap
/// holding more than its limit is collected now, so that the hook above sees what is live.
///
/// # Safety
/// For V8 to call, as an interrupt of the isolate `isolate` on its own thread.
pub unsafe extern "C" fn check_between_collections(isolate: v8::UnsafeRawIsolatePtr, _data: *mut c_void) {
  let Some(run) = WATCHED.with_borrow(|watched| watched.as_ref().map(|watched| watched.run.clone())) else {
    return;
  };
  run.heap_checked();
  if run.is_finished() {
    return;
  }
  // SAFETY: V8 runs interrupts on the isolate's thread while the isolate lives; the `Isolate`
  // made here only borrows it.
  let mut isolate = unsafe { v8::Isolate::from_raw_isolate_ptr(isolate) };
  if over_cap(&mut isolate) {
    // On the isolate's own thread V8 collects in this call, with the hook above after it.
    isolate.memory_pressure_notification(v8::MemoryPressureLevel::Critical);
  }
}

/// Watches `run` on this thread until dropped; `cap` is the most its isolate's heap may hold after
/// a full collection, with V8's limit `headroom(cap)` above it.
pub struct Watch(());

impl Watch {
  pub fn new(run: &Arc<RunShared>, cap: usize) -> Self {
    WATCHED.set(Some(Watched {
      run: run.clone(),
      cap,
    }));
    Watch(())
  }
}

impl Drop for Watch {
  fn drop(&mut self) {
    WATCHED.set(None);
  }
}

/// V8's heap limit without the headroom: what the heap may hold while the run goes on.
pub fn limit(isolate: &mut v8::Isolate) -> usize {
  let headroom = WATCHED.with_borrow(|watched| watched.as_ref().map_or(0, |watched| headroom(watched.cap)));
  isolate
    .get_heap_statistics()
    .heap_size_limit()
    .saturating_sub(headroom)
}

/// Whether `isolate`'s heap holds more than its limit without the headroom. V8 checks its limit
/// as it allocates, and one built-in's result can take the heap past it without the near-limit
/// hook being called: a program that returned `'a'.repeat(6e7).match(/a/g).length` at once, under
/// a 64 MB cap, settled with its value and 500 MB more resident. A program that settles so ends as
/// the heap failure its next allocation would have met.
pub fn over_cap(isolate: &mut v8::Isolate) -> bool {
  isolate.get_heap_statistics().used_heap_size() > limit(isolate)
}
