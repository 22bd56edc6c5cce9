//! The helper as an interpreter's launcher (`PythonCodeRuntime`): it confines itself for an
//! interpreter (dsh-os's sandbox: only the interpreter's own files readable, the address space
//! capped), then becomes that interpreter with `execve`. The interpreter inherits every layer.
//! It forks the processes that run programs; what they must refuse and it may not (new programs
//! and processes, signals) it receives as a compiled filter among its arguments, which each of
//! them installs before it reads a program.

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use super::exit_with;

/// What the host passes after `interpreter`.
struct Arguments {
  parent: u32,
  address_space_bytes: u64,
  readable: Vec<PathBuf>,
  program: String,
  program_args: Vec<String>,
}

fn arguments() -> Result<Arguments, String> {
  let args: Vec<String> = std::env::args().skip(2).collect();
  let [protocol, parent, address_space_bytes, readable, program, program_args @ ..] = args.as_slice() else {
    return Err(
      "usage: dsh-code-runtime-v8-helper interpreter <protocol> <parent pid> <address space bytes> <readable paths, JSON> <program> [args...]".into(),
    );
  };
  super::check_protocol(protocol)?;
  fn number<T: std::str::FromStr>(text: &str, what: &str) -> Result<T, String> {
    text.parse().map_err(|_| format!("{what} must be a whole number, got {text:?}"))
  }
  let readable: Vec<String> =
    serde_json::from_str(readable).map_err(|_| format!("the readable paths must be a JSON array of strings, got {readable:?}"))?;
  Ok(Arguments {
    parent: number(parent, "the parent pid")?,
    address_space_bytes: number(address_space_bytes, "the address space")?,
    readable: readable.into_iter().map(PathBuf::from).collect(),
    program: program.clone(),
    program_args: program_args.to_vec(),
  })
}

/// Confines this process and becomes the interpreter; returns only to exit with why not.
pub fn main() -> ! {
  let arguments = arguments().unwrap_or_else(|why| exit_with(2, &why));
  let confinement = dsh_os::sandbox::InterpreterConfinement {
    parent: arguments.parent,
    address_space_bytes: arguments.address_space_bytes,
    readable: arguments.readable,
  };
  let confined = dsh_os::sandbox::confine_interpreter(&confinement).unwrap_or_else(|why| exit_with(3, &why));
  let layers = serde_json::Value::Array(
    confined
      .layers
      .iter()
      .map(|layer| serde_json::json!([layer.name, layer.missing]))
      .collect(),
  );
  let filter: String = confined
    .deferred_filter
    .unwrap_or_default()
    .iter()
    .map(|byte| format!("{byte:02x}"))
    .collect();
  let error = Command::new(&arguments.program)
    .args(&arguments.program_args)
    .arg(filter)
    .arg(layers.to_string())
    .env_clear()
    .exec();
  exit_with(5, &format!("{}: {error}", arguments.program))
}
