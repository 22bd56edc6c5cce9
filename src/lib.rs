//! dsh-code-runtime-v8: runs one model-written TypeScript program per call in its own V8
//! isolate, inside Node, and gives back only what it printed and returned.

// Unit tests reach the pure modules only; the napi exports are called from JavaScript.
#![cfg_attr(
  test,
  allow(dead_code, reason = "napi exports are exercised by the Node tests")
)]

mod arena;
mod bridge;
mod buffers;
mod isolate;
pub mod json_text;
pub mod ledger;
mod lossless;
mod modules;
mod ops;
pub(crate) mod platform;
mod pool;
mod run;
pub mod snapshot;
mod stack;
pub mod strip;
mod watchdog;
