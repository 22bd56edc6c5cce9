//! The engine: V8's platform and the isolate threads, the isolates prepared ahead of their runs,
//! the startup snapshot, and the program's world (extensions, ops, modules, stack traces,
//! structured clone, counted buffers and blobs).

mod blobs;
mod buffers;
mod code_from_strings;
mod console_line;
pub mod cost;
pub mod digest;
mod heap_cap;
mod intrinsics;
mod isolate;
pub(crate) mod job;
mod listings;
pub(crate) mod locale;
mod modules;
mod op_errors;
mod ops;
pub(crate) mod platform;
pub(crate) mod pool;
mod sizing;
pub mod snapshot;
mod stack;
mod stack_room;
mod structured_clone;
mod url;
mod world;
mod world_functions;

pub(crate) use isolate::live_isolate_threads;
