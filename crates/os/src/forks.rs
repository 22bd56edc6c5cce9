//! A zygote's processes (Unix): one forked per run, with a socket of its own whose other end the
//! zygote sends to the host; killed, reaped, and heard of through a pipe the moment one ends.
//! Also what such a process sets on itself before it runs a program: its CPU budget, few
//! descriptors, and death with the zygote.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// Which side of a `fork` this is.
pub enum Forked {
  /// The zygote, with its child's id and its own end of the child's socket.
  Parent { pid: u32, socket: OwnedFd },
  /// The child, with its end of the socket.
  Child { socket: OwnedFd },
}

/// Forks the calling process (which must hold no other thread), with a connected Unix socket
/// between the two sides.
pub fn fork_with_socket() -> io::Result<Forked> {
  let mut pair = [0; 2];
  // SAFETY: socketpair writes two descriptors into `pair`, owned here from then on.
  if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, pair.as_mut_ptr()) } != 0 {
    return Err(io::Error::last_os_error());
  }
  // SAFETY: both are new, open descriptors of this process.
  let (parent_end, child_end) = unsafe { (OwnedFd::from_raw_fd(pair[0]), OwnedFd::from_raw_fd(pair[1])) };
  // SAFETY: the caller holds no other thread, so the child holds no lock another thread took.
  match unsafe { libc::fork() } {
    -1 => Err(io::Error::last_os_error()),
    0 => {
      drop(parent_end);
      Ok(Forked::Child { socket: child_end })
    }
    pid => {
      drop(child_end);
      Ok(Forked::Parent { pid: pid as u32, socket: parent_end })
    }
  }
}

/// How a child ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
  Code(i32),
  Signal(i32),
}

/// The children that have ended since the last call, reaped; never blocks.
pub fn reap_children() -> Vec<(u32, Ended)> {
  let mut ended = Vec::new();
  loop {
    let mut status = 0;
    // SAFETY: waitpid writes the status of one of this process's children.
    let pid = unsafe { libc::waitpid(-1, &raw mut status, libc::WNOHANG) };
    if pid <= 0 {
      return ended;
    }
    let how = if libc::WIFSIGNALED(status) {
      Ended::Signal(libc::WTERMSIG(status))
    } else {
      Ended::Code(libc::WEXITSTATUS(status))
    };
    ended.push((pid as u32, how));
  }
}

/// SIGKILLs a child this process forked and has not reaped (its id is still its own).
pub fn kill_child(pid: u32) {
  // SAFETY: a signal to a process id the caller vouches for.
  unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
}

/// The write end of the pipe the SIGCHLD handler writes to.
static CHILD_EXITS: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn child_exited(_: libc::c_int) {
  let fd = CHILD_EXITS.load(std::sync::atomic::Ordering::Relaxed);
  // SAFETY: write is async-signal-safe; a full pipe already says a child ended.
  unsafe { libc::write(fd, [0u8].as_ptr().cast(), 1) };
}

/// A pipe that becomes readable whenever a child ends (a SIGCHLD handler writes to it), for a
/// loop that waits on it beside its other descriptors. Once per process.
pub fn child_exits() -> io::Result<OwnedFd> {
  let mut pipe = [0; 2];
  // SAFETY: pipe writes two descriptors, set non-blocking and close-on-exec here; the handler is
  // installed once they are.
  unsafe {
    if libc::pipe(pipe.as_mut_ptr()) != 0 {
      return Err(io::Error::last_os_error());
    }
    for fd in pipe {
      libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK);
      libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
    }
    CHILD_EXITS.store(pipe[1], std::sync::atomic::Ordering::Relaxed);
    let mut action: libc::sigaction = std::mem::zeroed();
    action.sa_sigaction = child_exited as *const () as usize;
    action.sa_flags = libc::SA_RESTART | libc::SA_NOCLDSTOP;
    if libc::sigaction(libc::SIGCHLD, &raw const action, std::ptr::null_mut()) != 0 {
      return Err(io::Error::last_os_error());
    }
    Ok(OwnedFd::from_raw_fd(pipe[0]))
  }
}

/// In a forked child: SIGCHLD back to its default, and the pipe's write end closed.
pub fn forget_child_exits() {
  // SAFETY: restores the default disposition; closes a descriptor only the handler used.
  unsafe {
    libc::signal(libc::SIGCHLD, libc::SIG_DFL);
    let fd = CHILD_EXITS.swap(-1, std::sync::atomic::Ordering::Relaxed);
    if fd >= 0 {
      libc::close(fd);
    }
  }
}

/// Empties a non-blocking descriptor of what is waiting in it.
pub fn drain(fd: &OwnedFd) {
  let mut buffer = [0u8; 256];
  // SAFETY: reads into a buffer owned here.
  while unsafe { libc::read(fd.as_raw_fd(), buffer.as_mut_ptr().cast(), buffer.len()) } > 0 {}
}

/// This process's CPU budget from now: SIGXCPU once it has spent `seconds` more, SIGKILL a
/// second later.
pub fn limit_cpu(seconds: u64) -> io::Result<()> {
  // SAFETY: getrusage and setrlimit on this process, with structures owned here.
  unsafe {
    let mut usage: libc::rusage = std::mem::zeroed();
    libc::getrusage(libc::RUSAGE_SELF, &raw mut usage);
    let spent = usage.ru_utime.tv_sec as u64 + usage.ru_stime.tv_sec as u64 + 1;
    let limit = libc::rlimit {
      rlim_cur: (spent + seconds) as libc::rlim_t,
      rlim_max: (spent + seconds + 1) as libc::rlim_t,
    };
    if libc::setrlimit(libc::RLIMIT_CPU, &raw const limit) != 0 {
      return Err(io::Error::last_os_error());
    }
  }
  Ok(())
}

/// At most `count` descriptors open: each holds kernel memory no limit of the process counts.
pub fn limit_descriptors(count: u64) -> io::Result<()> {
  let limit = libc::rlimit {
    rlim_cur: count as libc::rlim_t,
    rlim_max: count as libc::rlim_t,
  };
  // SAFETY: setrlimit on this process.
  if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raw const limit) } != 0 {
    return Err(io::Error::last_os_error());
  }
  Ok(())
}

/// Killed when `parent` (the thread that started this process) ends, on Linux; already orphaned
/// is an error, since the signal would then never come. Elsewhere a run's process ends when its
/// socket closes.
pub fn die_with(parent: u32) -> Result<(), String> {
  #[cfg(target_os = "linux")]
  // SAFETY: plain prctl and getppid calls on this process.
  unsafe {
    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
      return Err(format!("PR_SET_PDEATHSIG failed: {}", io::Error::last_os_error()));
    }
  }
  // SAFETY: getppid has no preconditions.
  if unsafe { libc::getppid() } as u32 != parent {
    return Err("the process that started the helper is gone".into());
  }
  Ok(())
}

/// Standard input reads end of file and standard output refuses writes, so that a forked process
/// holds neither the zygote's control socket nor its frame pipe.
pub fn detach_input_and_output() -> io::Result<()> {
  for (kept, target) in [(0usize, 0), (1, 1)] {
    let mut pipe = [0; 2];
    // SAFETY: a new pipe; one end moved onto `target`, both originals closed.
    unsafe {
      if libc::pipe(pipe.as_mut_ptr()) != 0 {
        return Err(io::Error::last_os_error());
      }
      libc::dup2(pipe[kept], target);
      libc::close(pipe[0]);
      libc::close(pipe[1]);
    }
  }
  Ok(())
}

/// Closes every descriptor from `first` up.
pub fn close_from(first: RawFd) {
  #[cfg(target_os = "linux")]
  // SAFETY: closes descriptors this process no longer uses.
  if unsafe { libc::syscall(libc::SYS_close_range, first as u32, u32::MAX, 0u32) } == 0 {
    return;
  }
  // Before Linux 5.9, and elsewhere: one by one, up to the process's limit.
  // SAFETY: as above; closing one that is not open only fails.
  let open_max = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) }.clamp(0, 1 << 20) as RawFd;
  for fd in first..open_max {
    unsafe { libc::close(fd) };
  }
}

/// Writes all of `bytes` to `fd`, waiting while it is full.
pub fn write_all(fd: RawFd, mut bytes: &[u8]) -> io::Result<()> {
  while !bytes.is_empty() {
    // SAFETY: writes from a slice owned by the caller.
    let written = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
    if written < 0 {
      let error = io::Error::last_os_error();
      if error.kind() == io::ErrorKind::Interrupted {
        continue;
      }
      return Err(error);
    }
    bytes = &bytes[written as usize..];
  }
  Ok(())
}

/// Reads what `fd` has (blocking until something, or its end: `Ok(0)`).
pub fn read_some(fd: RawFd, buffer: &mut [u8]) -> io::Result<usize> {
  loop {
    // SAFETY: reads into a buffer owned by the caller.
    let read = unsafe { libc::read(fd, buffer.as_mut_ptr().cast(), buffer.len()) };
    if read >= 0 {
      return Ok(read as usize);
    }
    let error = io::Error::last_os_error();
    if error.kind() != io::ErrorKind::Interrupted {
      return Err(error);
    }
  }
}

/// Waits until one of `fds` is readable (or closed), or `timeout` passes; the indices of those
/// that are, in order: none when the time passed, or a signal came first while it was set.
pub fn wait_readable(fds: &[RawFd], timeout: Option<std::time::Duration>) -> io::Result<Vec<usize>> {
  let mut polled: Vec<libc::pollfd> = fds.iter().map(|&fd| libc::pollfd { fd, events: libc::POLLIN, revents: 0 }).collect();
  let millis = timeout.map_or(-1, |timeout| timeout.as_millis().min(i32::MAX as u128) as i32);
  loop {
    // SAFETY: poll over an array owned here.
    let ready = unsafe { libc::poll(polled.as_mut_ptr(), polled.len() as libc::nfds_t, millis) };
    if ready >= 0 {
      return Ok(polled.iter().enumerate().filter(|(_, fd)| fd.revents != 0).map(|(index, _)| index).collect());
    }
    let error = io::Error::last_os_error();
    if error.kind() != io::ErrorKind::Interrupted {
      return Err(error);
    }
    if timeout.is_some() {
      return Ok(Vec::new());
    }
  }
}
