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
pub use spawn::{Exit, Spawned, kill, receive_descriptor, running, send_descriptor, spawn};

#[cfg(unix)]
mod spawn {
  use std::collections::HashSet;
  use std::io;
  use std::os::fd::{IntoRawFd, OwnedFd, RawFd};
  use std::os::unix::net::UnixStream;
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
    socket_stdin: bool,
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
            let Request { path, args, socket_stdin, on_exit, reply } = request;
            let _ = reply.send(start(&path, &args, socket_stdin, on_exit));
          }
        })
        .expect("the helper spawner thread must start");
      requests
    })
  }

  /// Starts `path` with `args`, an empty environment and three pipes; `on_exit` runs on a thread
  /// of its own once the child has ended. With `socket_stdin`, its stdin is a Unix socket instead
  /// of a pipe, over which it can send descriptors back (`receive_descriptor`).
  pub fn spawn(
    path: &str,
    args: &[String],
    socket_stdin: bool,
    on_exit: impl FnOnce(Exit) + Send + 'static,
  ) -> io::Result<Spawned> {
    let (reply, answer) = bounded(1);
    spawner()
      .send(Request {
        path: path.to_owned(),
        args: args.to_vec(),
        socket_stdin,
        on_exit: Box::new(on_exit),
        reply,
      })
      .map_err(|_| io::Error::other("the helper spawner thread is gone"))?;
    answer
      .recv()
      .map_err(|_| io::Error::other("the helper spawner thread is gone"))?
  }

  fn start(path: &str, args: &[String], socket_stdin: bool, on_exit: OnExit) -> io::Result<Spawned> {
    let mut command = Command::new(path);
    command.args(args).env_clear().stdout(Stdio::piped()).stderr(Stdio::piped());
    let ours = if socket_stdin {
      let (ours, theirs) = UnixStream::pair()?;
      command.stdin(Stdio::from(OwnedFd::from(theirs)));
      Some(ours)
    } else {
      command.stdin(Stdio::piped());
      None
    };
    let mut child = command.spawn()?;
    let pid = child.id();
    let pipe = |fd: Option<RawFd>| fd.ok_or_else(|| io::Error::other("a child without its pipes"));
    let stdin = match ours {
      Some(socket) => socket.into_raw_fd(),
      None => pipe(child.stdin.take().map(IntoRawFd::into_raw_fd))?,
    };
    let spawned = Spawned {
      pid,
      stdin,
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

  /// One descriptor a child sent over its socket stdin (`SCM_RIGHTS`, one byte of data with it),
  /// now this process's; `None` when none is waiting. Never blocks.
  pub fn receive_descriptor(socket: RawFd) -> io::Result<Option<RawFd>> {
    // SAFETY: recvmsg into buffers owned here, sized for one descriptor's control message; the
    // descriptor read from it is new to this process.
    with_descriptor_message(|message| unsafe {
      #[cfg(target_os = "linux")]
      let flags = libc::MSG_DONTWAIT | libc::MSG_CMSG_CLOEXEC;
      #[cfg(not(target_os = "linux"))]
      let flags = libc::MSG_DONTWAIT;
      let received = libc::recvmsg(socket, message, flags);
      if received < 0 {
        let error = io::Error::last_os_error();
        return if error.kind() == io::ErrorKind::WouldBlock { Ok(None) } else { Err(error) };
      }
      let header = libc::CMSG_FIRSTHDR(message);
      if received == 0 || header.is_null() || (*header).cmsg_level != libc::SOL_SOCKET || (*header).cmsg_type != libc::SCM_RIGHTS {
        return Err(io::Error::other("a message without a descriptor"));
      }
      // Only one fits the buffer; a second sent with it was truncated away, and closed.
      let fd = std::ptr::read_unaligned(libc::CMSG_DATA(header).cast::<RawFd>());
      // Without MSG_CMSG_CLOEXEC (macOS), close-on-exec is set just after: a process the spawner
      // thread starts in between inherits the descriptor.
      #[cfg(not(target_os = "linux"))]
      libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
      Ok(Some(fd))
    })
  }

  /// Calls `use_message` with a message of one byte whose control buffer holds one descriptor's
  /// control message, both owned here, as sending and receiving a descriptor need it.
  fn with_descriptor_message<T>(use_message: impl FnOnce(&mut libc::msghdr) -> T) -> T {
    let mut byte = 0u8;
    let mut data = libc::iovec {
      iov_base: (&raw mut byte).cast(),
      iov_len: 1,
    };
    // SAFETY: CMSG_SPACE only computes a size.
    let mut control = vec![0u8; unsafe { libc::CMSG_SPACE(size_of::<RawFd>() as u32) } as usize];
    // SAFETY: a zeroed msghdr is a valid empty one; its pointers are the buffers above, which
    // outlive the call.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &raw mut data;
    message.msg_iovlen = 1;
    message.msg_control = control.as_mut_ptr().cast();
    message.msg_controllen = control.len() as _;
    use_message(&mut message)
  }

  /// Sends `fd` over the Unix socket `socket` (`SCM_RIGHTS`, with one zero byte of data), as
  /// `receive_descriptor` reads it: a zygote sends each run process's socket so.
  pub fn send_descriptor(socket: RawFd, fd: RawFd) -> io::Result<()> {
    // SAFETY: sendmsg from the buffers `with_descriptor_message` owns, its control message filled
    // in here with the one descriptor it has room for.
    with_descriptor_message(|message| unsafe {
      let header = libc::CMSG_FIRSTHDR(message);
      (*header).cmsg_level = libc::SOL_SOCKET;
      (*header).cmsg_type = libc::SCM_RIGHTS;
      (*header).cmsg_len = libc::CMSG_LEN(size_of::<RawFd>() as u32) as _;
      std::ptr::write_unaligned(libc::CMSG_DATA(header).cast::<RawFd>(), fd);
      if libc::sendmsg(socket, message, 0) != 1 {
        return Err(io::Error::last_os_error());
      }
      Ok(())
    })
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
