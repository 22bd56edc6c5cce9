//! Everything dsh-code-runtime-v8 asks of the operating system, behind one small interface, so
//! that the addon itself has no OS-specific code: a thread's CPU clock, read from another thread
//! while it lives; demoting a thread so it cannot starve the host; handing freed memory back; and,
//! for a helper process, the sandbox it confines itself to and ending it at once.
//!
//! Linux, macOS and Windows each have their own implementation; what differs between them (clock
//! resolution, how strong a demotion is, whether memory can be trimmed) is said where it is done.

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
compile_error!("dsh-os supports Linux, macOS and Windows");

#[cfg(unix)]
pub mod forks;
pub mod memory;
pub mod process;
pub mod sandbox;
mod thread;

pub use thread::Thread;
