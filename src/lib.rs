//! dsh-code-runtime-v8: runs one model-written TypeScript program per call in its own V8
//! isolate, inside Node, and gives back only what it printed and returned.

mod bridge;
mod buffers;
pub mod json_text;
pub mod ledger;
mod lossless;
mod modules;
mod ops;
mod platform;
mod run;
mod stack;
pub mod strip;
mod watchdog;
