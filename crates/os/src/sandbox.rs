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

/// What to confine a process to that is about to become an interpreter (`execve`), which reads
/// its own files and loads its own libraries.
#[derive(Clone, Debug)]
pub struct InterpreterConfinement {
  /// The process that must outlive this one.
  pub parent: u32,
  /// Bytes of address space the process may map, in all (`RLIMIT_AS`).
  pub address_space_bytes: u64,
  /// Files and directories the process may read (and execute) beneath; nothing else.
  pub readable: Vec<std::path::PathBuf>,
}

/// A process confined for an interpreter: its layers, and the seccomp filter each process it
/// starts to run a program must install itself (refusing new programs and processes, and
/// signals), when the platform has one.
#[derive(Clone, Debug)]
pub struct Confined {
  pub layers: Vec<Layer>,
  /// `struct sock_filter`s in native byte order, for `prctl(PR_SET_SECCOMP)`.
  pub deferred_filter: Option<Vec<u8>>,
}

/// Confines the calling process before it executes an interpreter: every layer of `confine`,
/// with the file system readable beneath `readable`, the address space capped instead of the
/// writable memory, and the refusal of new processes and signals left to the processes the
/// interpreter starts.
pub fn confine_interpreter(confinement: &InterpreterConfinement) -> Result<Confined, String> {
  imp::confine_interpreter(confinement)
}

/// Confines the calling process; `Err` only when a layer that must hold could not be put in
/// place (the parent is gone). The layers are applied in the order of the report.
pub fn confine(confinement: &Confinement) -> Result<Vec<Layer>, String> {
  imp::confine(confinement)
}

/// Installs a `Confined::deferred_filter` on the calling thread, for good.
pub fn install_filter(bytes: &[u8]) -> Result<(), String> {
  imp::install_filter(bytes)
}
