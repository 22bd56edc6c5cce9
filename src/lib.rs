//! dsh-code-runtime-v8: runs one model-written TypeScript program per call in its own V8
//! isolate, inside Node, and gives back only what it printed and returned.

// Unit tests reach the pure modules only; the napi exports are called from JavaScript.
#![cfg_attr(
  test,
  allow(dead_code, reason = "napi exports are exercised by the Node tests")
)]

use std::sync::{Mutex, MutexGuard};

mod arena;
mod bridge;
mod buffers;
pub mod digest;
mod isolate;
mod job;
pub mod json_text;
pub mod ledger;
pub mod limits;
mod lossless;
mod modules;
mod nesting;
mod ops;
pub(crate) mod platform;
mod pool;
mod run;
pub mod snapshot;
mod stack;
pub mod strip;
mod structured_clone;
mod thread_clock;
mod watchdog;
mod world;

/// Locks `mutex` even if a thread panicked while holding it: every lock here guards state that
/// stays consistent between statements, and a run must still settle after a panic.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
  mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
