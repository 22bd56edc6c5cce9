//! One run of a Python program on Monty, in a process the zygote forked for it, speaking the run
//! wire of the CPython engine's bootstrap (py/bootstrap.py): `run`, then a `reply` per call, in;
//! `taken`, `log`, `call` and `done` out, JSON lines on its socket.
//!
//! The program is the body of an async function: `await` and `return` at its top level. Each
//! binding namespace is a module of functions; a call sends `call` and gives the program a future,
//! which the host's `reply` settles, so calls under `asyncio.gather` overlap.
//!
//! A durable run (the run frame's `durable`) reads the world of its journal (world.rs), and takes
//! everything that can happen to it from the host, which journals or replays it
//! (lib/python/durable.js): a sleep sends `sleep` and ends at the host's `fire`. The program's
//! course then depends only on the order of the lines the host sends, each taken when the program
//! has nothing else to run; `wait` tells the host how many it has taken when it has nothing to do.

use std::borrow::Cow;
use std::os::fd::RawFd;
use std::time::Instant;

use dsh_os::forks::{read_some, write_all};
use monty::{MontyRun, RunProgress};
use monty_types::{
  AssertMessageAnnotations, CompileOptions, ExcType, ExtFunctionResult, MontyException, MontyObject, MontyUuid, OsFunctionCall, PrintWriter,
  PrintWriterCallback, ResourceLimits, ResourceTracker,
};
use serde_json::Value;

use super::refusals::refused;
use super::shim::{Namespace, Shimmed, raw_name, shim};
use super::values::{Refused, decode, encode, encode_into, quote};
use super::world::{Journaled, World};

/// The run's socket, once the process has only it.
pub const CHANNEL: RawFd = 3;
/// What the program's frames are named in its tracebacks, as the CPython engine names them.
const PROGRAM: &str = "<program>";
/// The part of the address space the program's live values may take.
const MEMORY_SHARE: u64 = 4;
/// A read's buffer.
const READ_SIZE: usize = 1 << 16;

/// The run the host sent, as the bootstrap reads it.
struct Request {
  program: String,
  namespaces: Vec<Namespace>,
  cpu_seconds: u64,
  max_log_bytes: usize,
  max_value_bytes: usize,
  journaled: Option<Journaled>,
}

/// A durable run's `{"startTime": epoch ms, "seed": 32 hex digits}`.
fn journaled(raw: &Value) -> Result<Option<Journaled>, String> {
  if raw.is_null() {
    return Ok(None);
  }
  let start_ms = raw["startTime"].as_i64().ok_or("a durable run without its start time")?;
  let hex = raw["seed"].as_str().filter(|hex| hex.len() == 32).ok_or("a durable run without its seed")?;
  let mut seed = [0u8; 16];
  for (index, byte) in seed.iter_mut().enumerate() {
    *byte = u8::from_str_radix(&hex[index * 2..index * 2 + 2], 16).map_err(|_| "a durable run's seed is not hex")?;
  }
  Ok(Some(Journaled { start_ms, seed }))
}

fn request(line: &str) -> Result<Request, String> {
  let raw: Value = serde_json::from_str(line).map_err(|error| format!("a run frame that is not JSON: {error}"))?;
  let text = |key: &str| raw[key].as_str().map(str::to_owned).ok_or(format!("a run frame without {key}"));
  let whole = |key: &str| raw[key].as_u64().ok_or(format!("a run frame without {key}"));
  let namespaces = raw["namespaces"]
    .as_array()
    .ok_or("a run frame without namespaces")?
    .iter()
    .map(|namespace| {
      let global = namespace[0].as_str().ok_or("a namespace without its global")?.to_owned();
      let names = namespace[1]
        .as_array()
        .ok_or("a namespace without names")?
        .iter()
        .map(|name| name.as_str().map(str::to_owned).ok_or("a binding name that is not a string"))
        .collect::<Result<_, _>>()?;
      let error_class = namespace[2].as_str().zip(namespace[3].as_str()).map(|(class, member)| (class.to_owned(), member.to_owned()));
      Ok(Namespace { global, names, error_class })
    })
    .collect::<Result<_, &str>>()?;
  Ok(Request {
    program: text("program")?,
    namespaces,
    cpu_seconds: whole("cpuSeconds")?,
    max_log_bytes: whole("maxLogBytes")? as usize,
    max_value_bytes: whole("maxValueBytes")? as usize,
    journaled: journaled(&raw["durable"])?,
  })
}

/// Past this, a frame and its newline are written apart rather than copied into one line.
const COPIED_FRAME: usize = 1 << 16;

fn send(frame: &str) {
  let written = if frame.len() < COPIED_FRAME {
    let mut line = String::with_capacity(frame.len() + 1);
    line.push_str(frame);
    line.push('\n');
    write_all(CHANNEL, line.as_bytes())
  } else {
    write_all(CHANNEL, frame.as_bytes()).and_then(|()| write_all(CHANNEL, b"\n"))
  };
  if written.is_err() {
    // The host is gone: nothing is left to tell.
    dsh_os::process::exit_now(0);
  }
}

/// Sends the run's last frame and ends the process.
fn settle(frame: &str) -> ! {
  send(frame);
  dsh_os::process::exit_now(0)
}

/// The program's printed text: one log frame per line, an unterminated one sent `open` before
/// the run waits on the host; stopped at the byte budget, as the bootstrap's `Log`.
struct Log {
  pending: String,
  left: usize,
  stopped: bool,
}

impl Log {
  /// Takes `text` line by line: nothing past the budget is copied, however long the text.
  fn write(&mut self, text: &str) {
    let mut rest = text;
    while !self.stopped {
      let Some(end) = rest.find('\n') else { break };
      let line = &rest[..end];
      rest = &rest[end + 1..];
      if self.pending.is_empty() {
        self.emit(line, false);
      } else if self.pending.len() + line.len() > self.left {
        self.stop();
      } else {
        let mut joined = std::mem::take(&mut self.pending);
        joined.push_str(line);
        self.emit(&joined, false);
      }
    }
    if self.stopped {
      return;
    }
    if self.pending.len() + rest.len() > self.left {
      self.stop();
    } else {
      self.pending.push_str(rest);
    }
  }

  /// The budget is spent: the marker goes, and nothing more.
  fn stop(&mut self) {
    self.stopped = true;
    self.pending = String::new();
    send(r#"{"type":"log","truncated":true}"#);
  }

  /// Sends what is pending as an open line (the host joins it with what follows), before the run
  /// waits on the host.
  fn flush(&mut self) {
    self.send_pending(true);
  }

  /// Sends what is pending as the last line.
  fn finish(&mut self) {
    self.send_pending(false);
  }

  fn send_pending(&mut self, open: bool) {
    if !self.pending.is_empty() {
      let pending = std::mem::take(&mut self.pending);
      self.emit(&pending, open);
    }
  }

  fn emit(&mut self, text: &str, open: bool) {
    if self.stopped {
      return;
    }
    if text.len() > self.left {
      self.stop();
      return;
    }
    self.left -= text.len();
    let open = if open { r#","open":true"# } else { "" };
    send(&format!(r#"{{"type":"log","text":{}{open}}}"#, quote(text)));
  }
}

impl PrintWriterCallback for Log {
  fn stdout_write(&mut self, output: Cow<'_, str>) -> Result<(), MontyException> {
    self.write(&output);
    Ok(())
  }

  fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
    self.write(end.encode_utf8(&mut [0; 4]));
    Ok(())
  }
}

/// What the host sends, read off the socket: the run, then the answers to its calls.
struct Channel {
  buffer: Vec<u8>,
}

impl Channel {
  /// The next line; `None` once `until` has passed with none. The run's process ends when the
  /// host closes the socket.
  fn line(&mut self, until: Option<Instant>) -> Option<String> {
    loop {
      if let Some(end) = self.buffer.iter().position(|&byte| byte == b'\n') {
        let line: Vec<u8> = self.buffer.drain(..=end).collect();
        return Some(String::from_utf8_lossy(&line[..end]).into_owned());
      }
      if let Some(until) = until
        && !dsh_os::forks::wait_readable(&[CHANNEL], Some(until.saturating_duration_since(Instant::now()))).is_ok_and(|ready| !ready.is_empty())
      {
        return None;
      }
      let mut chunk = vec![0; READ_SIZE];
      match read_some(CHANNEL, &mut chunk) {
        Ok(0) | Err(_) => dsh_os::process::exit_now(0),
        Ok(read) => self.buffer.extend_from_slice(&chunk[..read]),
      }
    }
  }

  /// The host's next line after the run: `None` once `until` has passed with none.
  fn next(&mut self, until: Option<Instant>) -> Option<Inbound> {
    let line = self.line(until)?;
    Some(inbound(&line).unwrap_or_else(|why| {
      let _ = write_all(2, format!("a line the run cannot read: {why}\n").as_bytes());
      dsh_os::process::exit_now(4)
    }))
  }
}

/// What the host sends once the run has started.
enum Inbound {
  /// The answer to the call the host numbered `id`.
  Reply { id: u64, result: ExtFunctionResult, t: Option<f64> },
  /// A durable run's sleep `id` is over.
  Fire { id: u64, t: f64 },
}

/// `{"type":"reply","id":N,"ok":true,"value":V}` or `{..."ok":false,"message":M}`, with `"t":T`
/// before `ok` in a durable run; or `{"type":"fire","id":N,"t":T}`. A failure is a RuntimeError,
/// the namespaces' error class in the prelude (shim.rs).
fn inbound(line: &str) -> Result<Inbound, String> {
  // The value is read by `decode` (exact integers, no recursion); the rest is short.
  let value_at = line.find(r#","value":"#);
  let head = match value_at {
    Some(at) => format!("{}}}", &line[..at]),
    None => line.to_owned(),
  };
  let raw: Value = serde_json::from_str(&head).map_err(|error| error.to_string())?;
  let id = raw["id"].as_u64().ok_or("a line without its id")?;
  let t = raw["t"].as_f64();
  if raw["type"] == "fire" {
    return Ok(Inbound::Fire { id, t: t.ok_or("a fire without its time")? });
  }
  if raw["ok"] == Value::Bool(true) {
    let at = value_at.ok_or("a reply without its value")?;
    let value = &line[at + r#","value":"#.len()..line.len() - 1];
    return Ok(Inbound::Reply { id, result: ExtFunctionResult::Return(decode(value)?), t });
  }
  let message = raw["message"].as_str().unwrap_or_default().to_owned();
  Ok(Inbound::Reply { id, result: ExtFunctionResult::Error(MontyException::new(ExcType::RuntimeError, Some(message))), t })
}

/// Runs the run the host sends on the channel, then ends the process; never returns.
pub fn run(address_space_bytes: u64) -> ! {
  warm();
  let mut channel = Channel { buffer: Vec::new() };
  let line = channel.line(None).unwrap_or_default();
  // Before anything of the run: a process that ends before saying so ran none of it.
  send(r#"{"type":"taken"}"#);
  let mut request = request(&line).unwrap_or_else(|why| {
    let _ = write_all(2, format!("{why}\n").as_bytes());
    dsh_os::process::exit_now(4)
  });
  if dsh_os::forks::limit_cpu(request.cpu_seconds).is_err() {
    dsh_os::process::exit_now(4);
  }
  let mut log = Log { pending: String::new(), left: request.max_log_bytes, stopped: false };
  let outcome = execute(&mut request, &mut log, &mut channel, address_space_bytes);
  log.finish();
  settle(&outcome)
}

/// Runs what a run runs, on a constant program of ours, before the process reads its own: the
/// pages a run writes (its allocator's, Monty's lazily made state, the symbols it resolves) are
/// copied from the zygote then, not during the run (a `return 1` took about 0.25 ms less). A
/// process forked ahead of its run does this while it waits; one forked for a run already waiting
/// does it first.
fn warm() {
  let Shimmed { source, .. } = shim(WARM, &[]);
  let Ok(runner) = MontyRun::new(source, PROGRAM, Vec::new(), CompileOptions::default()) else { return };
  if let Ok(RunProgress::Complete(value)) = runner.start(Vec::new(), ResourceTracker::new(ResourceLimits::default()), PrintWriter::Disabled) {
    done(&value, usize::MAX);
  }
}

const WARM: &str = r#"return [1, "a", {"b": None}]"#;

/// The frame that settles the run: its value, or why it has none.
fn execute(request: &mut Request, log: &mut Log, channel: &mut Channel, address_space_bytes: u64) -> String {
  // Each namespace is the host's module of functions, under a name of the prelude's, which makes
  // the namespace the program sees of it (shim.rs).
  let mut names = Vec::new();
  let mut inputs = Vec::new();
  let mut functions = Vec::new();
  for (index, namespace) in request.namespaces.iter().enumerate() {
    let attrs = namespace.names.iter().map(|name| {
      let qualified = format!("{}.{name}", namespace.global);
      functions.push(qualified.clone());
      (MontyObject::string(name.clone()), MontyObject::function(qualified, None))
    });
    let module = MontyObject::module(namespace.global.clone(), MontyUuid::from_u128(index as u128 + 1), attrs.collect::<Vec<_>>());
    names.push(raw_name(index));
    inputs.push(module);
  }
  if let Some(error) = refused(&request.program, PROGRAM) {
    return exception(&error, 0, &request.program, None);
  }
  let Shimmed { source: code, prelude_lines, rewritten } = shim(&request.program, &request.namespaces);
  let raised = |error: &MontyException| exception(error, prelude_lines, &request.program, rewritten.as_deref());
  // A failed `assert` says what CPython's says, not Monty's pytest-style account of its operands.
  let options = CompileOptions { assert_message_annotations: AssertMessageAnnotations::Off, ..CompileOptions::default() };
  let runner = match MontyRun::new(code, PROGRAM, names, options) {
    Ok(runner) => runner,
    Err(error) => return raised(&error),
  };
  // Past this, the program gets a MemoryError, as CPython's does where its allocations meet the
  // address space: a quarter of it, since a list that doubles asks for twice what it holds, and
  // the process's own code and stacks take their share.
  let max_memory = (address_space_bytes / MEMORY_SHARE) as usize;
  // The allocator's own ceiling, past Monty's, is what makes Monty check its own; the run's own
  // copies (a frame of a long argument) have half the address space beyond it.
  let ceiling = monty_types::memory_limit_with_headroom(Some(max_memory), false).map(|bytes| bytes + (address_space_bytes / 2) as usize);
  if monty_alloc::set_hard_limit(ceiling).is_err() {
    dsh_os::process::exit_now(4);
  }
  let limits = ResourceLimits { max_memory: Some(max_memory), ..ResourceLimits::default() };
  let mut world = World::new(request.journaled.take());
  let runner = runner.with_os_policy(world.policy());
  let mut progress = runner.start(inputs, ResourceTracker::new(limits), PrintWriter::Callback(log));
  let mut inbox = Inbox::default();
  // A plain run's awaitable sleeps in flight: when each ends, and its call id.
  let mut sleeps: Vec<(Instant, u32)> = Vec::new();
  loop {
    let step = match progress {
      Err(error) => return raised(&error),
      Ok(step) => step,
    };
    progress = match step {
      RunProgress::Complete(value) => return done(&value, request.max_value_bytes),
      RunProgress::FunctionCall(call) => {
        if !functions.contains(&call.function_name) {
          let error = MontyException::new(ExcType::NameError, Some(format!("name '{}' is not defined", call.function_name)));
          call.resume(ExtFunctionResult::Error(error), PrintWriter::Callback(log))
        } else {
          let (global, name) = call.function_name.split_once('.').unwrap_or_default();
          // The frame is made around the argument, which is written into it once.
          let id = inbox.next_call + 1;
          let mut frame = format!(r#"{{"type":"call","id":{id},"global":{},"name":{},"args":"#, quote(global), quote(name));
          let argument = match (call.args.arg(0), call.args.args().len() + call.args.kwargs().len()) {
            (Some(argument), 1) => encode_into(argument, None, &mut frame),
            _ => Err(Refused::NotLossless(format!("{global}.{name}() takes one argument"))),
          };
          match argument {
            Ok(_) => {
              inbox.call(call.call_id);
              frame.push('}');
              log.flush();
              send(&frame);
              // Freed before the program goes on, which a long argument's frame would hold back.
              drop(frame);
              call.resume_pending(PrintWriter::Callback(log))
            }
            Err(refused) => {
              let why = match refused {
                Refused::NotLossless(why) => why,
                Refused::TooLarge => unreachable!("no limit was set"),
              };
              let message = format!("{global}.{name}: the argument must be lossless JSON: {why}");
              call.resume(ExtFunctionResult::Error(MontyException::new(ExcType::TypeError, Some(message))), PrintWriter::Callback(log))
            }
          }
        }
      }
      RunProgress::ResolveFutures(pending) => {
        log.flush();
        let wanted = pending.pending_call_ids().to_vec();
        let mut results = Vec::new();
        while results.is_empty() {
          if let Some(at) = inbox.stash.iter().position(|(call_id, _)| wanted.contains(call_id)) {
            results.push(inbox.stash.remove(at));
            continue;
          }
          let settles = if world.is_durable() {
            inbox.take_waiting(channel, &mut world)
          } else {
            // A sleep whose time has come settles first; otherwise the host's next reply, waited
            // for until the next sleep ends.
            sleeps.sort_by_key(|(deadline, _)| *deadline);
            if let Some(&(deadline, call_id)) = sleeps.first()
              && deadline <= Instant::now()
            {
              sleeps.remove(0);
              results.push((call_id, ExtFunctionResult::Return(MontyObject::none())));
              continue;
            }
            inbox.take(channel, &mut world, sleeps.first().map(|(deadline, _)| *deadline))
          };
          if let Some(Settles::Call(call_id, result)) = settles {
            if wanted.contains(&call_id) {
              results.push((call_id, result));
            } else {
              inbox.stash.push((call_id, result));
            }
          }
        }
        pending.resume(results, PrintWriter::Callback(log))
      }
      RunProgress::OsCall(call) => {
        let answer = match &call.function_call {
          asked if let Some(answer) = world.answer(asked) => answer,
          OsFunctionCall::Sleep(delay) | OsFunctionCall::SystemSleep(delay) => {
            log.flush();
            if world.is_durable() {
              // The host's to end: what comes meanwhile waits for the program's next await.
              let timer = inbox.sleep(&world, *delay, None);
              loop {
                match inbox.take_waiting(channel, &mut world) {
                  Some(Settles::Sleep(over)) if over == timer => break,
                  Some(Settles::Call(call_id, result)) => inbox.stash.push((call_id, result)),
                  _ => {}
                }
              }
            } else {
              std::thread::sleep(*delay);
            }
            ExtFunctionResult::Return(MontyObject::none())
          }
          // An awaitable sleep lets the program's other tasks run meanwhile, as asyncio's does.
          OsFunctionCall::AsyncSleep(delay) | OsFunctionCall::AsyncSystemSleep(delay) => {
            if world.is_durable() {
              inbox.sleep(&world, *delay, Some(call.call_id));
            } else {
              sleeps.push((Instant::now() + *delay, call.call_id));
            }
            ExtFunctionResult::Future(call.call_id)
          }
          // The run's environment is empty, as the CPython engine's is.
          OsFunctionCall::Getenv(args) => ExtFunctionResult::Return(args.default.clone()),
          OsFunctionCall::GetEnviron => ExtFunctionResult::Return(MontyObject::dict(Vec::new())),
          OsFunctionCall::Import(module) => ExtFunctionResult::NotFound(module.clone()),
          other => ExtFunctionResult::Error(MontyException::new(
            ExcType::PermissionError,
            Some(format!("[Errno 13] Permission denied: {other} is not available in the sandbox")),
          )),
        };
        call.resume(answer, PrintWriter::Callback(log))
      }
      RunProgress::NameLookup(lookup) => lookup.resume(monty_types::NameLookupResult::Undefined, PrintWriter::Callback(log)),
    };
  }
}

/// What one line from the host settles.
enum Settles {
  /// Monty's call, with its result.
  Call(u32, ExtFunctionResult),
  /// The `time.sleep` the host numbered so.
  Sleep(u64),
  /// Nothing this run waits for.
  Nothing,
}

/// The run's side of what the host answers: which of Monty's calls each of the host's ids
/// stands for, and the answers Monty was not yet waiting for when they came.
#[derive(Default)]
struct Inbox {
  /// The host's call id, and Monty's.
  calls: Vec<(u64, u32)>,
  next_call: u64,
  /// A durable run's sleeps in flight: the host's id, and Monty's call id (none for `time.sleep`).
  timers: Vec<(u64, Option<u32>)>,
  next_timer: u64,
  stash: Vec<(u32, ExtFunctionResult)>,
  /// Lines taken since the run (a durable run's count, which `wait` tells the host).
  taken: u64,
}

impl Inbox {
  /// The host's id for Monty's call `call_id`.
  fn call(&mut self, call_id: u32) -> u64 {
    self.next_call += 1;
    self.calls.push((self.next_call, call_id));
    self.next_call
  }

  /// Asks the host to end a durable run's sleep of `delay` from now on its clock; its id.
  fn sleep(&mut self, world: &World, delay: std::time::Duration, call_id: Option<u32>) -> u64 {
    self.next_timer += 1;
    self.timers.push((self.next_timer, call_id));
    let due = world.clock_ms() + delay.as_secs_f64() * 1000.0;
    send(&format!(r#"{{"type":"sleep","id":{},"due":{due}}}"#, self.next_timer));
    self.next_timer
  }

  /// A durable run's next line, once the program waits for it: the host is told how many lines
  /// were taken, and so may find the program waiting for what its journal lacks.
  fn take_waiting(&mut self, channel: &mut Channel, world: &mut World) -> Option<Settles> {
    send(&format!(r#"{{"type":"wait","taken":{}}}"#, self.taken));
    self.take(channel, world, None)
  }

  /// The host's next line, and what it settles; `None` once `until` has passed with none. A
  /// durable run's clock moves to the line's time.
  fn take(&mut self, channel: &mut Channel, world: &mut World, until: Option<Instant>) -> Option<Settles> {
    let line = channel.next(until)?;
    self.taken += 1;
    Some(match line {
      Inbound::Reply { id, result, t } => {
        if let Some(t) = t {
          world.advance(t);
        }
        match self.calls.iter().position(|(host_id, _)| *host_id == id) {
          Some(at) => Settles::Call(self.calls.remove(at).1, result),
          None => Settles::Nothing,
        }
      }
      Inbound::Fire { id, t } => {
        world.advance(t);
        match self.timers.iter().position(|(host_id, _)| *host_id == id).map(|at| self.timers.remove(at).1) {
          Some(Some(call_id)) => Settles::Call(call_id, ExtFunctionResult::Return(MontyObject::none())),
          Some(None) => Settles::Sleep(id),
          None => Settles::Nothing,
        }
      }
    })
  }
}

/// The `done` frame of a program that raised `error`: the frames of the program's own lines, less
/// the `prelude` lines before them (the prelude's frames are the runtime's, and left out). A line
/// the shim rewrote (`rewritten`, the program as Monty ran it, when the shim changed it) is shown
/// as the program wrote it (`program`), with no marker under it, whose columns were the rewritten
/// line's.
fn exception(error: &MontyException, prelude: u32, program: &str, rewritten: Option<&str>) -> String {
  let written: Vec<&str> = program.lines().collect();
  let ran: Vec<&str> = rewritten.map(|text| text.lines().collect()).unwrap_or_default();
  let frames = error
    .traceback()
    .iter()
    .filter(|frame| frame.filename != PROGRAM || frame.start.line > prelude)
    .cloned()
    .map(|mut frame| {
      if frame.filename == PROGRAM {
        frame.start.line -= prelude;
        frame.end.line = frame.end.line.saturating_sub(prelude).max(frame.start.line);
        let at = frame.start.line as usize - 1;
        if let (Some(own), Some(rewritten)) = (written.get(at), ran.get(at))
          && own != rewritten
        {
          frame.preview_line = Some(std::sync::Arc::from(own.trim()));
          frame.hide_caret = true;
        }
      }
      frame
    })
    .collect();
  let error = MontyException::with_traceback(error.exc_type(), error.message().map(str::to_owned), frames);
  format!(r#"{{"type":"done","error":{{"kind":"exception","message":{}}}}}"#, quote(error.to_string().trim_end()))
}

fn done(value: &MontyObject, max_value_bytes: usize) -> String {
  if value.as_ref().type_name() == "NoneType" {
    return r#"{"type":"done"}"#.into();
  }
  match encode(value.as_ref(), Some(max_value_bytes)) {
    Ok((text, _)) => format!(r#"{{"type":"done","value":{text}}}"#),
    Err(Refused::NotLossless(why)) => format!(
      r#"{{"type":"done","error":{{"kind":"invalid-output","message":{}}}}}"#,
      quote(&format!("the return value is not lossless JSON: {why}"))
    ),
    Err(Refused::TooLarge) => format!(
      r#"{{"type":"done","error":{{"kind":"output-limit","message":{}}}}}"#,
      quote(&format!("the return value is larger than maxValueBytes ({max_value_bytes} bytes)"))
    ),
  }
}

