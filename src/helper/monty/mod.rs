//! The helper as the zygote of `PythonCodeRuntime`'s engine 'monty' (Unix): it confines itself
//! as the CPython engine's launcher confines an interpreter (dsh-os's sandbox, no file readable),
//! says so, then forks one process per run when the host asks, sends back that process's socket,
//! and kills and reaps them: the CPython engine's zygote wire (py/bootstrap.py), so the host
//! drives both engines alike. A forked process installs the deferred seccomp filter (no new
//! programs or processes, no signals), then runs the ONE program the host sends it on Monty
//! (`run`) and exits. The zygote never runs a program.

mod refusals;
mod run;
mod shim;
mod stand_ins;
mod values;
mod world;

use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};

use dsh_os::forks::{self, Ended, Forked};

use super::exit_with;

/// The host's control socket (fork and kill requests in, descriptors out) and the frame pipe.
const CONTROL: RawFd = 0;
const FRAMES: RawFd = 1;
/// Descriptors a run's process may hold: its socket and little else.
const RUN_DESCRIPTORS: u64 = 16;

struct Arguments {
  parent: u32,
  address_space_bytes: u64,
  probe: bool,
}

fn arguments() -> Result<Arguments, String> {
  let args: Vec<String> = std::env::args().skip(2).collect();
  let (protocol, parent, address_space_bytes, probe) = match args.as_slice() {
    [protocol, parent, bytes] => (protocol, parent, bytes, false),
    [protocol, parent, bytes, probe] if probe == "probe" => (protocol, parent, bytes, true),
    _ => return Err("usage: dsh-code-runtime-v8-helper monty <protocol> <parent pid> <address space bytes> [probe]".into()),
  };
  super::check_protocol(protocol)?;
  let number = |text: &str, what: &str| text.parse::<u64>().map_err(|_| format!("{what} must be a whole number, got {text:?}"));
  Ok(Arguments {
    parent: number(parent, "the parent pid")? as u32,
    address_space_bytes: number(address_space_bytes, "the address space")?,
    probe,
  })
}

fn send(frame: &str) {
  if forks::write_all(FRAMES, format!("{frame}\n").as_bytes()).is_err() {
    exit_with(0, "");
  }
}

/// Confines this process, says how, and serves the host's requests; never returns.
pub fn main() -> ! {
  let arguments = arguments().unwrap_or_else(|why| exit_with(2, &why));
  let confinement = dsh_os::sandbox::InterpreterConfinement {
    parent: arguments.parent,
    address_space_bytes: arguments.address_space_bytes,
    readable: Vec::new(),
  };
  let confined = dsh_os::sandbox::confine_interpreter(&confinement).unwrap_or_else(|why| exit_with(3, &why));
  let filter = confined.deferred_filter;
  let installs = match &filter {
    None => Some("the launcher compiled no seccomp filter for this platform".to_owned()),
    Some(filter) => filter_installs(filter),
  };
  let layers: Vec<serde_json::Value> = confined
    .layers
    .iter()
    .map(|layer| {
      let missing = if layer.name == "seccomp" && layer.missing.is_none() { installs.clone() } else { layer.missing.clone() };
      serde_json::json!([layer.name, missing])
    })
    .collect();
  send(&serde_json::json!({ "type": "ready", "sandbox": layers }).to_string());
  if arguments.probe {
    exit_with(0, "");
  }
  serve(filter.as_deref(), arguments.address_space_bytes)
}

/// Why a forked process could not install the filter, or `None`: tried once, in a process of
/// its own.
fn filter_installs(filter: &[u8]) -> Option<String> {
  match forks::fork_with_socket() {
    Ok(Forked::Child { .. }) => dsh_os::process::exit_now(i32::from(dsh_os::sandbox::install_filter(filter).is_err())),
    Ok(Forked::Parent { pid, .. }) => loop {
      match forks::reap_children().into_iter().find(|(child, _)| *child == pid) {
        Some((_, Ended::Code(0))) => return None,
        Some(_) => return Some("a forked process could not install the seccomp filter".into()),
        None => std::thread::sleep(std::time::Duration::from_millis(1)),
      }
    },
    Err(error) => Some(format!("a process could not be forked to try the seccomp filter: {error}")),
  }
}

/// Forks, kills and reaps on the host's word, until its control socket closes.
fn serve(filter: Option<&[u8]>, address_space_bytes: u64) -> ! {
  let exits = forks::child_exits().unwrap_or_else(|error| exit_with(4, &format!("SIGCHLD: {error}")));
  let zygote = std::process::id();
  let mut children: Vec<u32> = Vec::new();
  let mut pending = Vec::new();
  loop {
    let ready = forks::wait_readable(&[CONTROL, exits.as_raw_fd()], None).unwrap_or_else(|error| exit_with(4, &error.to_string()));
    if ready.contains(&1) {
      forks::drain(&exits);
      for (pid, ended) in forks::reap_children() {
        children.retain(|child| *child != pid);
        match ended {
          Ended::Signal(signal) => send(&format!(r#"{{"type":"exit","pid":{pid},"signal":{signal}}}"#)),
          Ended::Code(code) => send(&format!(r#"{{"type":"exit","pid":{pid},"code":{code}}}"#)),
        }
      }
    }
    if !ready.contains(&0) {
      continue;
    }
    let mut chunk = [0u8; 4096];
    let read = forks::read_some(CONTROL, &mut chunk).unwrap_or(0);
    if read == 0 {
      exit_with(0, "");
    }
    pending.extend_from_slice(&chunk[..read]);
    while let Some(end) = pending.iter().position(|&byte| byte == b'\n') {
      let line: Vec<u8> = pending.drain(..=end).collect();
      match &line[..end] {
        b"fork" => children.push(fork(zygote, filter, address_space_bytes)),
        kill if kill.starts_with(b"kill ") => {
          // Only an unreaped child: its id cannot have been taken by another process.
          let pid = std::str::from_utf8(&kill[5..]).ok().and_then(|pid| pid.parse().ok());
          if let Some(pid) = pid.filter(|pid| children.contains(pid)) {
            forks::kill_child(pid);
          }
        }
        _ => {}
      }
    }
  }
}

/// Forks a run's process, sends the host its socket, and says so; the child never returns.
fn fork(zygote: u32, filter: Option<&[u8]>, address_space_bytes: u64) -> u32 {
  match forks::fork_with_socket() {
    Ok(Forked::Parent { pid, socket }) => {
      if let Err(error) = dsh_os::process::send_descriptor(CONTROL, socket.as_raw_fd()) {
        exit_with(4, &format!("a forked process's socket could not be sent: {error}"));
      }
      drop(socket);
      send(&format!(r#"{{"type":"forked","pid":{pid}}}"#));
      pid
    }
    // The SIGCHLD pipe it inherited is closed with every descriptor but its socket.
    Ok(Forked::Child { socket }) => become_run_process(socket, zygote, filter, address_space_bytes),
    Err(error) => exit_with(4, &format!("fork: {error}")),
  }
}

/// In a forked process: only its own socket left, confined, its program run; never returns.
fn become_run_process(socket: OwnedFd, zygote: u32, filter: Option<&[u8]>, address_space_bytes: u64) -> ! {
  forks::forget_child_exits();
  let socket = socket.into_raw_fd();
  // SAFETY: dup2 onto the run's channel number, then every other descriptor closed.
  if unsafe { libc::dup2(socket, run::CHANNEL) } != run::CHANNEL {
    dsh_os::process::exit_now(4);
  }
  forks::close_from(run::CHANNEL + 1);
  if forks::detach_input_and_output().is_err() || forks::die_with(zygote).is_err() || forks::limit_descriptors(RUN_DESCRIPTORS).is_err() {
    dsh_os::process::exit_now(4);
  }
  if let Some(filter) = filter
    && dsh_os::sandbox::install_filter(filter).is_err()
  {
    dsh_os::process::exit_now(4);
  }
  run::run(address_space_bytes)
}
