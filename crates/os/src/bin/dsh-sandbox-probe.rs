//! Confines itself as a helper process does, then asks for what the sandbox must refuse, and
//! prints what each request got, one line each: `name errno` (`name 0` when it was allowed).
//! Built for crates/os/tests/sandbox.rs only; it runs no program and is not shipped.

#[cfg(target_os = "linux")]
fn main() {
  use std::ffi::CString;

  let data_bytes = 256 << 20;
  // SAFETY: getppid has no preconditions.
  let parent = unsafe { libc::getppid() } as u32;
  let layers = dsh_os::sandbox::confine(&dsh_os::sandbox::Confinement { parent, data_bytes })
    .expect("the probe's parent is alive");
  for layer in &layers {
    println!("layer {} {}", layer.name, layer.missing.as_deref().unwrap_or("enforced"));
  }
  // The error of the call just made: read before the next call can change it.
  let errno = |result: i64| {
    if result < 0 { std::io::Error::last_os_error().raw_os_error().unwrap_or(-1) } else { 0 }
  };
  let path = |text: &str| CString::new(text).expect("no NUL");
  let readable = path("/etc/hostname");
  let writable = path("/tmp/dsh-sandbox-probe");
  let program = path("/bin/true");
  let argv = [program.as_ptr(), std::ptr::null()];
  let envp = [std::ptr::null()];
  // SAFETY: each call gets valid pointers or plain integers; a call the sandbox allows by mistake
  // is undone below or harmless (a child that exits at once, a socket closed by exit).
  let asked: Vec<(&str, i32)> = unsafe {
    vec![
      ("socket-inet", errno(libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) as i64)),
      ("socket-unix", errno(libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) as i64)),
      ("fork", {
        let pid = libc::fork();
        if pid == 0 {
          libc::_exit(0);
        }
        errno(pid as i64)
      }),
      ("execve", errno(libc::execve(program.as_ptr(), argv.as_ptr(), envp.as_ptr()) as i64)),
      ("open-read", errno(libc::open(readable.as_ptr(), libc::O_RDONLY) as i64)),
      ("open-write", errno(libc::open(writable.as_ptr(), libc::O_WRONLY | libc::O_CREAT, 0o600) as i64)),
      ("ptrace-parent", errno(libc::ptrace(libc::PTRACE_ATTACH, parent as libc::pid_t, 0, 0) as i64)),
      ("kill-parent", errno(libc::kill(parent as libc::pid_t, 0) as i64)),
      ("kill-self", errno(libc::kill(libc::getpid(), 0) as i64)),
      ("unshare", errno(libc::unshare(libc::CLONE_NEWUSER) as i64)),
      ("prlimit-parent", {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        errno(libc::prlimit(parent as libc::pid_t, libc::RLIMIT_NOFILE, std::ptr::null(), &mut limit) as i64)
      }),
      ("prlimit-self", {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        errno(libc::prlimit(0, libc::RLIMIT_NOFILE, std::ptr::null(), &mut limit) as i64)
      }),
      ("fcntl-setown", errno(libc::fcntl(1, libc::F_SETOWN, parent as libc::c_int) as i64)),
      ("syslog", errno(libc::klogctl(10, std::ptr::null_mut(), 0) as i64)),
      ("mmap-past-data-limit", {
        let length = 512 << 20;
        let mapped = libc::mmap(
          std::ptr::null_mut(),
          length,
          libc::PROT_READ | libc::PROT_WRITE,
          libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
          -1,
          0,
        );
        if mapped == libc::MAP_FAILED {
          errno(-1)
        } else {
          libc::munmap(mapped, length);
          0
        }
      }),
    ]
  };
  let thread = std::thread::spawn(|| 7).join().map_or(-1, |value| value);
  for (name, code) in asked {
    println!("{name} {code}");
  }
  println!("thread {}", if thread == 7 { 0 } else { -1 });
}

#[cfg(not(target_os = "linux"))]
fn main() {
  eprintln!("the sandbox probe runs on Linux only");
  std::process::exit(2);
}
