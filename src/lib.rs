//! dsh-code-runtime-v8: runs one model-written TypeScript program per call in its own V8
//! isolate, inside Node, and gives back only what it printed and returned.
//!
//! The rooms follow a run's data (docs/architecture.md): `bridge` is the napi surface, `helper`
//! the process that runs programs outside the host (`isolation: 'process'`); `engine`
//! prepares isolates and runs programs in them; `limits` holds a run's shared state and what
//! enforces its budgets; `output` is the ledger and the reading of values out of V8; `program`
//! turns the program's text into JavaScript. `bridge` may import `engine`, `limits` and `output`,
//! `helper` those and `program`;
//! `engine` may import `limits`, `output` and `program`; `limits` may import `output`; `output`
//! and `program` import no other room (`__test__/01.rooms.test.mjs` holds them to it).

// Unit tests reach the pure modules only; the napi exports are called from JavaScript.
#![cfg_attr(
  test,
  allow(dead_code, reason = "napi exports are exercised by the Node tests")
)]

use std::sync::{Mutex, MutexGuard};

mod bridge;
pub mod engine;
pub mod helper;
pub mod limits;
pub mod output;
pub mod program;

/// Locks `mutex` even if a thread panicked while holding it: every lock here guards state that
/// stays consistent between statements, and a run must still settle after a panic.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
  mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
