//! Linux: the descriptors it inherited closed; killed with its parent; its private writable
//! memory capped (`RLIMIT_DATA`, which since Linux 4.7 counts anonymous mappings: V8's heap,
//! malloc, thread stacks); no capabilities; no new privileges; Landlock with no file system access
//! at all, no TCP, no abstract Unix sockets and no signals out of its domain; and a seccomp filter
//! that refuses the system calls an attacker holding the process would want and the engine never
//! makes.
//!
//! The filter is a deny list, not an allow list: V8, glibc and tokio make many system calls,
//! which differ by version, and a call an allow list forgot would kill a legitimate run. What it
//! refuses is what would reach past the process: new processes and programs, sockets, other
//! processes' memory, limits and scheduling, files written or created, the kernel's own state.

use std::collections::BTreeMap;

use std::path::PathBuf;

use landlock::{
  ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
  RulesetCreatedAttr, RulesetStatus, Scope,
};
use seccompiler::{
  BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
  SeccompRule, TargetArch,
};

use super::{Confined, Confinement, InterpreterConfinement, Layer};

pub fn confine(confinement: &Confinement) -> Result<Vec<Layer>, String> {
  let layer = |name, outcome: Result<(), String>| Layer {
    name,
    missing: outcome.err(),
  };
  let descriptors = layer("descriptors", close_inherited_descriptors());
  crate::forks::die_with(confinement.parent)?;
  Ok(vec![
    descriptors,
    layer("parent-death", Ok(())),
    layer("memory", limit_data(confinement.data_bytes)),
    layer("capabilities", drop_capabilities()),
    layer("no-new-privs", no_new_privs()),
    layer("landlock", landlock(&[])),
    layer("seccomp", seccomp(Refusing::All)),
  ])
}

pub fn confine_interpreter(confinement: &InterpreterConfinement) -> Result<Confined, String> {
  let layer = |name, outcome: Result<(), String>| Layer {
    name,
    missing: outcome.err(),
  };
  let descriptors = layer("descriptors", close_inherited_descriptors());
  crate::forks::die_with(confinement.parent)?;
  let mut layers = vec![
    descriptors,
    layer("parent-death", Ok(())),
    layer("memory", limit_address_space(confinement.address_space_bytes)),
    layer("capabilities", drop_capabilities()),
    layer("no-new-privs", no_new_privs()),
    layer("landlock", landlock(&confinement.readable)),
  ];
  // The interpreter is still to be started, and starts the processes that run programs: what
  // would refuse that (new programs and processes, signals) is compiled here and installed by
  // each of those processes, before it reads a program.
  let seccomp = seccomp(Refusing::AllButProcesses);
  let deferred = match &seccomp {
    Ok(()) => run_process_rules().map(|program| filter_bytes(&program)),
    Err(why) => Err(why.clone()),
  };
  layers.push(layer("seccomp", seccomp));
  Ok(Confined { layers, deferred_filter: deferred.ok() })
}

fn close_inherited_descriptors() -> Result<(), String> {
  crate::forks::close_from(3);
  Ok(())
}

fn limit_data(bytes: u64) -> Result<(), String> {
  let limit = libc::rlimit {
    rlim_cur: bytes as libc::rlim_t,
    rlim_max: bytes as libc::rlim_t,
  };
  // SAFETY: `limit` is a valid rlimit for this process.
  if unsafe { libc::setrlimit(libc::RLIMIT_DATA, &limit) } != 0 {
    return Err(format!("RLIMIT_DATA: {}", std::io::Error::last_os_error()));
  }
  Ok(())
}

/// `RLIMIT_AS`, for an interpreter whose allocator maps what it needs; no core dumps either (the
/// CPU budget's signal would write one).
fn limit_address_space(bytes: u64) -> Result<(), String> {
  for (resource, value, what) in [(libc::RLIMIT_AS, bytes, "RLIMIT_AS"), (libc::RLIMIT_CORE, 0, "RLIMIT_CORE")] {
    let limit = libc::rlimit {
      rlim_cur: value as libc::rlim_t,
      rlim_max: value as libc::rlim_t,
    };
    // SAFETY: `limit` is a valid rlimit for this process.
    if unsafe { libc::setrlimit(resource, &limit) } != 0 {
      return Err(format!("{what}: {}", std::io::Error::last_os_error()));
    }
  }
  Ok(())
}

/// No capability at all, none regained by `execve` (no new privileges then keeps the permitted set
/// empty), for a host run as root: its helpers would otherwise hold every capability it has, and
/// raise their own limits or read the kernel's log.
fn drop_capabilities() -> Result<(), String> {
  let mut header = [LINUX_CAPABILITY_VERSION_3, 0];
  // Two `__user_cap_data_struct`s: effective, permitted and inheritable, low and high words.
  let mut data = [0u32; 6];
  // SAFETY: capget, prctl and capset on this process, with buffers laid out as the kernel's.
  unsafe {
    if libc::syscall(libc::SYS_capget, header.as_mut_ptr(), data.as_mut_ptr()) != 0 {
      return Err(format!("capget: {}", std::io::Error::last_os_error()));
    }
    if data.iter().all(|&word| word == 0) {
      return Ok(());
    }
    // Best effort, for a root with CAP_SETPCAP: the bounding set emptied, root's exec rule off.
    for capability in 0..64 {
      libc::prctl(PR_CAPBSET_DROP, capability, 0, 0, 0);
    }
    libc::prctl(PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0);
    let none = [0u32; 6];
    if libc::syscall(libc::SYS_capset, header.as_mut_ptr(), none.as_ptr()) != 0 {
      return Err(format!("capset: {}", std::io::Error::last_os_error()));
    }
  }
  Ok(())
}

fn no_new_privs() -> Result<(), String> {
  // SAFETY: a plain prctl on this process.
  if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
    return Err(format!("PR_SET_NO_NEW_PRIVS: {}", std::io::Error::last_os_error()));
  }
  Ok(())
}

/// Every access right the kernel knows of handled, and none granted but reading (and executing)
/// what lies beneath `readable`: with none, the process opens no file at all. Newer rights than
/// the kernel's are left out (best effort), and said.
fn landlock(readable: &[PathBuf]) -> Result<(), String> {
  let abi = ABI::V6;
  let mut created = Ruleset::default()
    .set_compatibility(CompatLevel::BestEffort)
    .handle_access(AccessFs::from_all(abi))
    .and_then(|ruleset| ruleset.handle_access(AccessNet::from_all(abi)))
    .and_then(|ruleset| ruleset.scope(Scope::from_all(abi)))
    .and_then(|ruleset| ruleset.create())
    .map_err(|error| format!("Landlock: {error}"))?;
  for path in readable {
    // A path that does not exist grants nothing, and is no reason to refuse the rest.
    let Ok(fd) = PathFd::new(path) else { continue };
    let rights = if path.is_dir() { AccessFs::from_read(abi) } else { AccessFs::from_file(abi) & AccessFs::from_read(abi) };
    created = created
      .add_rule(PathBeneath::new(fd, rights))
      .map_err(|error| format!("Landlock: {}: {error}", path.display()))?;
  }
  let status = created
    .restrict_self()
    .map_err(|error| format!("Landlock: {error}"))?;
  match status.ruleset {
    RulesetStatus::FullyEnforced => Ok(()),
    RulesetStatus::PartiallyEnforced => Err(format!(
      "Landlock is only partly enforced by this kernel ({:?}): the file system is closed, but not every network or signal scope",
      status.landlock
    )),
    RulesetStatus::NotEnforced => Err(format!("this kernel does not enforce Landlock ({:?})", status.landlock)),
  }
}

/// New programs and processes, refused with `EPERM` (threads are `clone` with CLONE_THREAD, below).
const NEW_PROCESSES: &[libc::c_long] = &[
  libc::SYS_execve,
  libc::SYS_execveat,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_fork,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_vfork,
];

/// Refused outright, with `EPERM`.
const REFUSED: &[libc::c_long] = &[
  // Sockets. A socketpair stays allowed: it reaches nothing outside the process (tokio's signal
  // driver makes one for itself).
  libc::SYS_socket,
  libc::SYS_connect,
  libc::SYS_bind,
  libc::SYS_listen,
  libc::SYS_accept,
  libc::SYS_accept4,
  // Other processes and their memory.
  libc::SYS_ptrace,
  libc::SYS_process_vm_readv,
  libc::SYS_process_vm_writev,
  libc::SYS_pidfd_open,
  libc::SYS_pidfd_getfd,
  libc::SYS_kcmp,
  libc::SYS_tkill,
  // The file system changed (Landlock refuses these too; this holds on kernels without it).
  #[cfg(target_arch = "x86_64")]
  libc::SYS_creat,
  libc::SYS_openat2,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_unlink,
  libc::SYS_unlinkat,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_rename,
  libc::SYS_renameat,
  libc::SYS_renameat2,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_mkdir,
  libc::SYS_mkdirat,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_rmdir,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_link,
  libc::SYS_linkat,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_symlink,
  libc::SYS_symlinkat,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_chmod,
  libc::SYS_fchmodat,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_chown,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_lchown,
  libc::SYS_fchownat,
  libc::SYS_truncate,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_mknod,
  libc::SYS_mknodat,
  libc::SYS_name_to_handle_at,
  libc::SYS_open_by_handle_at,
  // Metadata changed, which Landlock leaves alone: modes (of any file, through a descriptor
  // opened to read too), owners, times, extended attributes.
  libc::SYS_fchmod,
  SYS_FCHMODAT2,
  libc::SYS_fchown,
  libc::SYS_utimensat,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_utime,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_utimes,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_futimesat,
  libc::SYS_setxattr,
  libc::SYS_lsetxattr,
  libc::SYS_fsetxattr,
  libc::SYS_removexattr,
  libc::SYS_lremovexattr,
  libc::SYS_fremovexattr,
  SYS_SETXATTRAT,
  SYS_REMOVEXATTRAT,
  SYS_FILE_SETATTR,
  // Inter-process communication outside the file system, which Landlock does not see: System V
  // shared memory, message queues and semaphores (the host's namespace: other processes' segments,
  // and memory that outlives every process), and POSIX message queues.
  libc::SYS_shmget,
  libc::SYS_shmat,
  libc::SYS_shmctl,
  libc::SYS_shmdt,
  libc::SYS_msgget,
  libc::SYS_msgsnd,
  libc::SYS_msgrcv,
  libc::SYS_msgctl,
  libc::SYS_semget,
  libc::SYS_semop,
  libc::SYS_semtimedop,
  libc::SYS_semctl,
  libc::SYS_mq_open,
  libc::SYS_mq_unlink,
  // Names of files anywhere, as they change.
  libc::SYS_inotify_add_watch,
  libc::SYS_fanotify_init,
  libc::SYS_fanotify_mark,
  // The kernel's and the machine's state.
  libc::SYS_mount,
  libc::SYS_umount2,
  libc::SYS_mount_setattr,
  libc::SYS_quotactl_fd,
  SYS_STATMOUNT,
  SYS_LISTMOUNT,
  SYS_LSM_SET_SELF_ATTR,
  libc::SYS_memfd_secret,
  libc::SYS_pivot_root,
  libc::SYS_chroot,
  libc::SYS_setns,
  libc::SYS_unshare,
  libc::SYS_open_tree,
  libc::SYS_move_mount,
  libc::SYS_fsopen,
  libc::SYS_fsconfig,
  libc::SYS_fsmount,
  libc::SYS_fspick,
  libc::SYS_bpf,
  libc::SYS_perf_event_open,
  libc::SYS_userfaultfd,
  libc::SYS_io_uring_setup,
  libc::SYS_io_uring_enter,
  libc::SYS_io_uring_register,
  libc::SYS_keyctl,
  libc::SYS_add_key,
  libc::SYS_request_key,
  libc::SYS_init_module,
  libc::SYS_finit_module,
  libc::SYS_delete_module,
  libc::SYS_kexec_load,
  libc::SYS_kexec_file_load,
  libc::SYS_reboot,
  libc::SYS_swapon,
  libc::SYS_swapoff,
  libc::SYS_acct,
  libc::SYS_quotactl,
  libc::SYS_settimeofday,
  libc::SYS_clock_settime,
  libc::SYS_clock_adjtime,
  libc::SYS_adjtimex,
  libc::SYS_sethostname,
  libc::SYS_setdomainname,
  libc::SYS_personality,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_iopl,
  #[cfg(target_arch = "x86_64")]
  libc::SYS_ioperm,
  libc::SYS_setuid,
  libc::SYS_setgid,
  libc::SYS_setreuid,
  libc::SYS_setregid,
  libc::SYS_setresuid,
  libc::SYS_setresgid,
  libc::SYS_setgroups,
  libc::SYS_setfsuid,
  libc::SYS_setfsgid,
];

/// Flags of `open`/`openat` that write or create.
const WRITING_OPEN_FLAGS: &[libc::c_int] = &[
  libc::O_WRONLY,
  libc::O_RDWR,
  libc::O_CREAT,
  libc::O_TRUNC,
  libc::O_APPEND,
  libc::O_TMPFILE,
];

/// What the filter installed now refuses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Refusing {
  All,
  /// Everything but new programs and processes, and signals: the process is yet to start its
  /// interpreter, which starts (and kills) the processes that run programs, each of which then
  /// installs the rest (`run_process_rules`). Landlock's signal scope keeps its signals within.
  AllButProcesses,
}

fn target_arch() -> Result<TargetArch, String> {
  TargetArch::try_from(std::env::consts::ARCH).map_err(|error| format!("seccomp: {error}"))
}

fn compile(rules: BTreeMap<i64, Vec<SeccompRule>>, action: SeccompAction) -> Result<BpfProgram, String> {
  SeccompFilter::new(rules, SeccompAction::Allow, action, target_arch()?)
    .and_then(BpfProgram::try_from)
    .map_err(|error| format!("seccomp: {error}"))
}

fn condition(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
  SeccompCondition::new(arg, SeccompCmpArgLen::Qword, op, value).map_err(|error| format!("seccomp: {error}"))
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
  SeccompRule::new(conditions).map_err(|error| format!("seccomp: {error}"))
}

/// Matches a call whose argument `arg` names another process than this one (0).
fn not_self(arg: u8) -> Result<SeccompRule, String> {
  rule(vec![condition(arg, SeccompCmpOp::Ne, 0)?])
}

/// New programs, and `clone` without CLONE_THREAD (a process, not a thread).
fn new_process_rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
  let mut refused: BTreeMap<i64, Vec<SeccompRule>> = NEW_PROCESSES.iter().map(|&call| (call, Vec::new())).collect();
  let thread = libc::CLONE_THREAD as u64;
  refused.insert(libc::SYS_clone, vec![rule(vec![condition(0, SeccompCmpOp::MaskedEq(thread), 0)?])?]);
  Ok(refused)
}

// System calls newer than the libc crate knows on every target; numbered alike on every
// architecture since 5.1.
const SYS_FCHMODAT2: libc::c_long = 452;
const SYS_STATMOUNT: libc::c_long = 457;
const SYS_LISTMOUNT: libc::c_long = 458;
const SYS_LSM_SET_SELF_ATTR: libc::c_long = 460;
const SYS_SETXATTRAT: libc::c_long = 463;
const SYS_REMOVEXATTRAT: libc::c_long = 466;
const SYS_FILE_SETATTR: libc::c_long = 469;

// Linux ABI numbers that the libc crate does not export on every target.
const F_SETSIG: u64 = 10;
const F_SETOWN_EX: u64 = 15;
const FIOSETOWN: u64 = 0x8901;
const SIOCSPGRP: u64 = 0x8902;
const PR_CAPBSET_DROP: libc::c_int = 24;
const PR_SET_SECUREBITS: libc::c_int = 28;
/// SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_KEEP_CAPS_LOCKED, each locked.
const SECURE_BITS: libc::c_ulong = 0b10_1111;
const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// What reaches another process without a signal: its resource limits (`prlimit64` of a pid, which
/// a thread id of the host's is enough for), its memory placement and I/O priority, the kernel's
/// log, and a descriptor's owner, whom the kernel signals as its data comes (`F_SETOWN`,
/// `F_SETSIG`, `FIOSETOWN`, `SIOCSPGRP`). Each is refused unless it names this process (0).
fn other_process_rules() -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
  let one_of = |arg, values: &[u64]| -> Result<Vec<SeccompRule>, String> {
    values
      .iter()
      .map(|&value| {
        let equal = SeccompCondition::new(arg, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, value)
          .map_err(|error| format!("seccomp: {error}"))?;
        rule(vec![equal])
      })
      .collect()
  };
  Ok(BTreeMap::from([
    (libc::SYS_prlimit64, vec![not_self(0)?]),
    (libc::SYS_migrate_pages, vec![not_self(0)?]),
    (libc::SYS_move_pages, vec![not_self(0)?]),
    (libc::SYS_ioprio_set, vec![not_self(1)?]),
    (libc::SYS_syslog, Vec::new()),
    (libc::SYS_fcntl, one_of(1, &[libc::F_SETOWN as u64, F_SETSIG, F_SETOWN_EX])?),
    (libc::SYS_ioctl, one_of(1, &[FIOSETOWN, SIOCSPGRP])?),
  ]))
}

/// Signals to any process but this one (`own`).
fn signal_rules(own: u64) -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
  let mut refused = BTreeMap::new();
  for call in [libc::SYS_kill, libc::SYS_tgkill, libc::SYS_rt_sigqueueinfo, libc::SYS_rt_tgsigqueueinfo] {
    refused.insert(call, vec![rule(vec![condition(0, SeccompCmpOp::Ne, own)?])?]);
  }
  Ok(refused)
}

/// What a process that runs a program installs itself: no new programs or processes, no signals
/// at all (its own id is not known when this is compiled), no change to its parent-death signal,
/// no scheduling of another process (the zygote's own threads are not demoted), and no file in
/// memory.
fn run_process_rules() -> Result<BpfProgram, String> {
  let mut refused = new_process_rules()?;
  for call in [libc::SYS_sched_setscheduler, libc::SYS_sched_setparam, libc::SYS_sched_setaffinity, libc::SYS_sched_setattr] {
    refused.insert(call, vec![not_self(0)?]);
  }
  // Memory written to a file in memory counts against no limit of the process's.
  refused.insert(libc::SYS_memfd_create, Vec::new());
  // PRIO_PGRP and PRIO_USER with 0 mean the caller's group and user: the host's too.
  refused.insert(libc::SYS_setpriority, vec![not_self(0)?, not_self(1)?]);
  refused.insert(
    libc::SYS_prctl,
    vec![rule(vec![condition(0, SeccompCmpOp::Eq, libc::PR_SET_PDEATHSIG as u64)?])?],
  );
  for call in [
    libc::SYS_kill,
    libc::SYS_tkill,
    libc::SYS_tgkill,
    libc::SYS_rt_sigqueueinfo,
    libc::SYS_rt_tgsigqueueinfo,
    libc::SYS_pidfd_send_signal,
  ] {
    refused.insert(call, Vec::new());
  }
  compile(refused, SeccompAction::Errno(libc::EPERM as u32))
}

/// A filter as the kernel reads it (`struct sock_filter` after `struct sock_filter`), for a
/// process that installs it itself.
fn filter_bytes(program: &BpfProgram) -> Vec<u8> {
  let mut bytes = Vec::with_capacity(program.len() * 8);
  for instruction in program {
    bytes.extend_from_slice(&instruction.code.to_ne_bytes());
    bytes.push(instruction.jt);
    bytes.push(instruction.jf);
    bytes.extend_from_slice(&instruction.k.to_ne_bytes());
  }
  bytes
}

/// Installs on the calling thread a filter `filter_bytes` wrote (a deferred filter, which a
/// process the interpreter started installs before it reads a program).
pub fn install_filter(bytes: &[u8]) -> Result<(), String> {
  if bytes.is_empty() || !bytes.len().is_multiple_of(8) {
    return Err(format!("a filter of {} bytes is not whole instructions", bytes.len()));
  }
  let program: BpfProgram = bytes
    .chunks_exact(8)
    .map(|at| seccompiler::sock_filter {
      code: u16::from_ne_bytes([at[0], at[1]]),
      jt: at[2],
      jf: at[3],
      k: u32::from_ne_bytes([at[4], at[5], at[6], at[7]]),
    })
    .collect();
  seccompiler::apply_filter(&program).map_err(|error| format!("seccomp: {error}"))
}

fn seccomp(refusing: Refusing) -> Result<(), String> {
  // SAFETY: getpid has no preconditions.
  let own = unsafe { libc::getpid() } as u64;
  let mut refused: BTreeMap<i64, Vec<SeccompRule>> = REFUSED.iter().map(|&call| (call, Vec::new())).collect();
  if refusing == Refusing::All {
    refused.extend(new_process_rules()?);
  }
  // Opened to write or create, whatever else the flags say.
  let writing = |flags_arg| -> Result<Vec<SeccompRule>, String> {
    WRITING_OPEN_FLAGS
      .iter()
      .map(|&flag| rule(vec![condition(flags_arg, SeccompCmpOp::MaskedEq(flag as u64), flag as u64)?]))
      .collect()
  };
  #[cfg(target_arch = "x86_64")]
  refused.insert(libc::SYS_open, writing(1)?);
  refused.insert(libc::SYS_openat, writing(2)?);
  refused.extend(other_process_rules()?);
  if refusing == Refusing::All {
    refused.extend(signal_rules(own)?);
  }
  let refusing = compile(refused, SeccompAction::Errno(libc::EPERM as u32))?;
  // clone3 passes its flags in memory, where a filter cannot read them: ENOSYS makes glibc
  // start its threads with clone instead.
  let clone3 = compile(
    BTreeMap::from([(libc::SYS_clone3, Vec::new())]),
    SeccompAction::Errno(libc::ENOSYS as u32),
  )?;
  for program in [&refusing, &clone3] {
    seccompiler::apply_filter_all_threads(program).map_err(|error| format!("seccomp: {error}"))?;
  }
  Ok(())
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_deferred_filter_reads_as_the_kernel_reads_sock_filters() {
    let program = run_process_rules().expect("the run process filter compiles");
    let bytes = filter_bytes(&program);
    assert_eq!(bytes.len(), program.len() * 8);
    // The first instruction loads the architecture (`BPF_LD | BPF_W | BPF_ABS`, offset 4 of
    // `struct seccomp_data`), as every seccompiler filter starts.
    assert_eq!(u16::from_ne_bytes([bytes[0], bytes[1]]), 0x20);
    assert_eq!(u32::from_ne_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]), 4);
    for (index, instruction) in program.iter().enumerate() {
      let at = index * 8;
      assert_eq!(u16::from_ne_bytes([bytes[at], bytes[at + 1]]), instruction.code);
      assert_eq!((bytes[at + 2], bytes[at + 3]), (instruction.jt, instruction.jf));
      assert_eq!(u32::from_ne_bytes(bytes[at + 4..at + 8].try_into().unwrap()), instruction.k);
    }
  }

  #[test]
  fn a_filter_of_broken_instructions_is_refused_before_the_kernel_sees_it() {
    assert_eq!(install_filter(&[0; 12]), Err("a filter of 12 bytes is not whole instructions".to_owned()));
    assert_eq!(install_filter(&[]), Err("a filter of 0 bytes is not whole instructions".to_owned()));
  }
}
