//! Processes: ending the calling one at once, and, on Unix, starting helper processes without
//! forking the host.
//!
//! A host such as Node forks its whole address space to start a child (2.6-2.8 ms for an 83 MB
//! Node here, on its event loop's thread); `std::process::Command` uses `posix_spawn`, whose
//! vfork-style clone copies nothing. Children are started from one thread that lives as long as
//! the process, since on Linux a child's parent-death signal follows the thread that started it,
//! and each is reaped by a thread of its own, since the host's event loop reaps only its own.

/// Ends the process with `code` without running its exit handlers or destructors: for a process
/// whose threads may be anywhere, inside V8 among them, when it must end.
pub fn exit_now(code: i32) -> ! {
  #[cfg(unix)]
  // SAFETY: `_exit` ends the process and touches none of its state.
  unsafe {
    libc::_exit(code)
  }
  #[cfg(windows)]
  // SAFETY: terminates this process; nothing of it runs afterwards.
  unsafe {
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, TerminateProcess};
    TerminateProcess(GetCurrentProcess(), code as u32);
    unreachable!("TerminateProcess of the current process does not return")
  }
}

#[cfg(unix)]
pub use spawn::{Exit, Spawned, kill, running, spawn};

#[cfg(unix)]
mod spawn {
  use std::collections::HashSet;
  use std::io;
  use std::os::fd::{IntoRawFd, RawFd};
  use std::process::{Command, Stdio};
  use std::sync::{Mutex, OnceLock};

  use crossbeam_channel::{Sender, bounded, unbounded};

  /// A started child: its process id and this process's ends of its stdin, stdout and stderr,
  /// which the caller owns from now on.
  #[derive(Debug)]
  pub struct Spawned {
    pub pid: u32,
    pub stdin: RawFd,
    pub stdout: RawFd,
    pub stderr: RawFd,
  }

  /// How a child ended.
  #[derive(Clone, Copy, Debug, PartialEq, Eq)]
  pub enum Exit {
    Code(i32),
    Signal(i32),
  }

  type OnExit = Box<dyn FnOnce(Exit) + Send>;

  struct Request {
    path: String,
    args: Vec<String>,
    on_exit: OnExit,
    reply: Sender<io::Result<Spawned>>,
  }

  /// Children started and not yet reaped: only those may be signalled, so that a signal never
  /// reaches a process that took a reaped child's id.
  static UNREAPED: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

  fn unreaped() -> std::sync::MutexGuard<'static, Option<HashSet<u32>>> {
    UNREAPED.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
  }

  fn spawner() -> &'static Sender<Request> {
    static SPAWNER: OnceLock<Sender<Request>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
      let (requests, incoming) = unbounded::<Request>();
      std::thread::Builder::new()
        .name("dsh-helper-spawner".into())
        .spawn(move || {
          for request in incoming {
            let Request { path, args, on_exit, reply } = request;
            let _ = reply.send(start(&path, &args, on_exit));
          }
        })
        .expect("the helper spawner thread must start");
      requests
    })
  }

  /// Starts `path` with `args`, an empty environment and three pipes; `on_exit` runs on a thread
  /// of its own once the child has ended.
  pub fn spawn(path: &str, args: &[String], on_exit: impl FnOnce(Exit) + Send + 'static) -> io::Result<Spawned> {
    let (reply, answer) = bounded(1);
    spawner()
      .send(Request {
        path: path.to_owned(),
        args: args.to_vec(),
        on_exit: Box::new(on_exit),
        reply,
      })
      .map_err(|_| io::Error::other("the helper spawner thread is gone"))?;
    answer
      .recv()
      .map_err(|_| io::Error::other("the helper spawner thread is gone"))?
  }

  fn start(path: &str, args: &[String], on_exit: OnExit) -> io::Result<Spawned> {
    let mut child = Command::new(path)
      .args(args)
      .env_clear()
      .stdin(Stdio::piped())
      .stdout(Stdio::piped())
      .stderr(Stdio::piped())
      .spawn()?;
    let pid = child.id();
    let pipe = |fd: Option<RawFd>| fd.ok_or_else(|| io::Error::other("a child without its pipes"));
    let spawned = Spawned {
      pid,
      stdin: pipe(child.stdin.take().map(IntoRawFd::into_raw_fd))?,
      stdout: pipe(child.stdout.take().map(IntoRawFd::into_raw_fd))?,
      stderr: pipe(child.stderr.take().map(IntoRawFd::into_raw_fd))?,
    };
    unreaped().get_or_insert_with(HashSet::new).insert(pid);
    std::thread::Builder::new()
      .name("dsh-helper-reaper".into())
      .stack_size(64 << 10)
      .spawn(move || on_exit(reap(pid)))
      .inspect_err(|_| {
        let _ = child.kill();
      })?;
    Ok(spawned)
  }

  /// Waits for the child to end, forgets it as signallable, then reaps it.
  fn reap(pid: u32) -> Exit {
    // SAFETY: plain waitid/waitpid calls on our own child; `info` is a valid out-pointer.
    unsafe {
      let mut info: libc::siginfo_t = std::mem::zeroed();
      while libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT) != 0 {
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
          break;
        }
      }
      unreaped().get_or_insert_with(HashSet::new).remove(&pid);
      let mut status = 0;
      while libc::waitpid(pid as libc::pid_t, &mut status, 0) < 0 {
        if io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
          return Exit::Code(-1);
        }
      }
      if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
      } else {
        Exit::Code(libc::WEXITSTATUS(status))
      }
    }
  }

  /// Whether a child `spawn` started is still running: `false` from the moment it has ended, even
  /// before its `on_exit` has run.
  pub fn running(pid: u32) -> bool {
    let unreaped = unreaped();
    if !unreaped.as_ref().is_some_and(|pids| pids.contains(&pid)) {
      return false;
    }
    // Asked of the kernel, not of the reaper thread, which may not have run yet: the lock keeps
    // the child unreaped, so `pid` is still ours.
    // SAFETY: `info` is a valid out-pointer; WNOWAIT leaves the child to its reaper.
    unsafe {
      let mut info: libc::siginfo_t = std::mem::zeroed();
      let asked = libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOHANG | libc::WNOWAIT);
      #[cfg(target_os = "linux")]
      let exited = info.si_pid();
      #[cfg(not(target_os = "linux"))]
      let exited = info.si_pid;
      asked == 0 && exited == 0
    }
  }

  /// Kills a child `spawn` started, unless it has been reaped; `false` when it had.
  pub fn kill(pid: u32) -> bool {
    let unreaped = unreaped();
    if !unreaped.as_ref().is_some_and(|pids| pids.contains(&pid)) {
      return false;
    }
    // SAFETY: the child is not reaped (the lock holds that), so `pid` is still ours.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) == 0 }
  }
}
