//! Confines the calling process for good, before it runs anything it was sent: what the kernel
//! will refuse it from now on, layer by layer. Called by a helper process on its main thread
//! before any other thread exists, so that every thread it starts later inherits every layer.
//!
//! Linux applies all of them (see sandbox/linux.rs); macOS and Windows apply none yet, and say
//! so in the report, which the runtime passes on to its caller once.

#[cfg(target_os = "linux")]
#[path = "sandbox/linux.rs"]
mod imp;
#[cfg(not(target_os = "linux"))]
#[path = "sandbox/none.rs"]
mod imp;

/// One layer of the sandbox, and whether the kernel enforces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layer {
  /// `descriptors`, `parent-death`, `memory`, `no-new-privs`, `landlock`, `seccomp`.
  pub name: &'static str,
  /// `None` when enforced; otherwise why not (an old kernel, an unsupported platform).
  pub missing: Option<String>,
}

/// What to confine the process to.
#[derive(Clone, Debug)]
pub struct Confinement {
  /// The process that must outlive this one: if it is already gone, confinement fails.
  pub parent: u32,
  /// Bytes of private writable memory the process may map, in all (`RLIMIT_DATA`).
  pub data_bytes: u64,
}

/// Confines the calling process; `Err` only when a layer that must hold could not be put in
/// place (the parent is gone). The layers are applied in the order of the report.
pub fn confine(confinement: &Confinement) -> Result<Vec<Layer>, String> {
  imp::confine(confinement)
}
