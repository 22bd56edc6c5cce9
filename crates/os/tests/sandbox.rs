//! The sandbox proven from inside: a process confined as a helper is asks for what an attacker
//! holding it would want, and the kernel refuses each (crates/os/src/bin/dsh-sandbox-probe.rs).
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::process::Command;

#[test]
fn a_confined_process_is_refused_what_would_reach_past_it() {
  let probe = Command::new(env!("CARGO_BIN_EXE_dsh-sandbox-probe"))
    .env_clear()
    .output()
    .expect("the probe starts");
  assert!(probe.status.success(), "{}", String::from_utf8_lossy(&probe.stderr));
  let text = String::from_utf8(probe.stdout).expect("the probe prints text");
  let layers: Vec<&str> = text.lines().filter_map(|line| line.strip_prefix("layer ")).collect();
  assert_eq!(
    layers,
    [
      "descriptors enforced",
      "parent-death enforced",
      "memory enforced",
      "capabilities enforced",
      "no-new-privs enforced",
      "landlock enforced",
      "seccomp enforced",
    ]
  );
  let answers: BTreeMap<&str, i32> = text
    .lines()
    .filter(|line| !line.starts_with("layer "))
    .map(|line| {
      let (name, code) = line.split_once(' ').expect("`name errno`");
      (name, code.parse().expect("an errno"))
    })
    .collect();
  let expected = BTreeMap::from([
    ("socket-inet", libc::EPERM),
    ("socket-unix", libc::EPERM),
    ("fork", libc::EPERM),
    ("execve", libc::EPERM),
    // Landlock's answer: the process may open no file at all, not even to read.
    ("open-read", libc::EACCES),
    ("open-write", libc::EPERM),
    ("ptrace-parent", libc::EPERM),
    ("kill-parent", libc::EPERM),
    ("kill-self", 0),
    ("unshare", libc::EPERM),
    // Another process's limits (a thread id of the host's reaches its whole process) and its
    // signals by a descriptor's owner; the kernel's log.
    ("prlimit-parent", libc::EPERM),
    ("prlimit-self", 0),
    ("fcntl-setown", libc::EPERM),
    ("syslog", libc::EPERM),
    ("mmap-past-data-limit", libc::ENOMEM),
    ("thread", 0),
  ]);
  assert_eq!(answers, expected);
}
