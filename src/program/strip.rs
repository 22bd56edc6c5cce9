//! TypeScript type erasure with swc's strip-only eraser, the code behind Node's `stripTypeScriptTypes`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use swc_common::errors::{DiagnosticBuilder, Emitter, HANDLER, Handler};
use swc_common::sync::Lrc;
use swc_common::{GLOBALS, SourceMap};

use crate::program::listing_guards::{Guards, guard_listings};
use crate::program::nesting::{MAX_DUPLICATE_LABELS, MAX_LABEL_PAIRS, MAX_READINGS, Unbounded, depth_bound};
use dsh_os::Thread;

/// The program is parsed as the body of an async function so top-level `return` and `await` parse.
const PREFIX: &str = "async function __dsh_program__() {\n";
const SUFFIX: &str = "\n}";

/// Keeps every diagnostic message swc emits: the returned error alone only says "Syntax error".
#[derive(Clone, Default)]
struct Diagnostics(Arc<Mutex<Vec<String>>>);

impl Emitter for Diagnostics {
  fn emit(&mut self, db: &mut DiagnosticBuilder<'_>) {
    if let Ok(mut seen) = self.0.lock() {
      seen.push(db.message());
    }
  }
}

/// The most stack swc can need per byte of program: nesting costs it up to about 3.2 KiB a level
/// (measured: nested parentheses), and a level can take a single byte (an unclosed `(`, a `!`).
/// Twice that, so that a stack this size per byte holds any program of that length.
const STACK_PER_BYTE: usize = 8 << 10;

/// Stack an isolate thread leaves to swc (see `platform`'s isolate stack): programs up to 7 KiB
/// strip where they run.
const CALLING_THREAD_STACK: usize = 56 << 20;

/// The largest stack a stripping thread gets. Only the pages a parse touches are ever committed,
/// and they go with the thread; up to 512 KiB of program, it holds any nesting at all. A helper
/// process's memory limit, which counts address space made writable, leaves room for it.
pub const MAX_STRIP_STACK: usize = 4 << 30;

/// The longest program stripped: past it no stack this runtime gives is safe by the program's
/// length alone, and a reading of the text before parsing cannot stand in for that (a hostile
/// hunt found eleven ways past one, each of which took the host down).
pub const MAX_PROGRAM_BYTES: usize = MAX_STRIP_STACK / STACK_PER_BYTE;

/// Below this many colons a program cannot hold enough labels to matter (every label has one:
/// 140 stacked labels make 9 730 pairs).
const COLONS_READ_FOR_LABELS: usize = 140;

/// Programs whose nesting a reading of their text (see `nesting`) bounds past this many levels
/// are refused: swc's parse of some shapes that deep takes minutes, and V8 refuses to compile any
/// program nested more than a few thousand levels deep.
pub const MAX_NESTING: usize = 100_000;

/// A stripped program with its listings guarded, and the CPU time that spent on a thread other
/// than the caller's.
pub struct Stripped {
  pub code: String,
  pub guards: Option<Guards>,
  pub helper_cpu: Duration,
}

/// Erases the types of `program`, then guards its listings (`taken`: names bound around it).
fn prepare(program: &str, taken: &[String]) -> Result<(String, Option<Guards>), String> {
  let code = strip_types(program)?;
  Ok(match guard_listings(&code, taken)? {
    Some((guarded, guards)) => (guarded, Some(guards)),
    None => (code, None),
  })
}

/// Erases the types of `program` and guards its listings on a stack deep enough for any program
/// of its length (see `on_a_safe_stack`).
pub fn strip_program(
  program: &str,
  taken: &[String],
  started: &(dyn Fn(Thread) + Sync),
) -> Result<Stripped, String> {
  let ((code, guards), helper_cpu) = on_a_safe_stack(program, started, || prepare(program, taken))?;
  Ok(Stripped {
    code,
    guards,
    helper_cpu,
  })
}

/// Runs `parse`, a parse of `program` by swc, on a stack deep enough for any program of its
/// length (on a helper thread past 7 KiB, which `started` is told of, so that its CPU time counts
/// at once), with the CPU time the helper spent. Refused: a program longer than
/// `MAX_PROGRAM_BYTES`; past 7 KiB, one whose nesting `nesting` bounds above `MAX_NESTING` levels
/// (on a stack sized by length alone, swc's parse of some shapes that deep takes minutes); and one
/// whose labels would cost swc quadratic time and memory.
pub fn on_a_safe_stack<T: Send>(
  program: &str,
  started: &(dyn Fn(Thread) + Sync),
  parse: impl FnOnce() -> Result<T, String> + Send,
) -> Result<(T, Duration), String> {
  if program.len() > MAX_PROGRAM_BYTES {
    return Err(format!(
      "the program is {} bytes long; programs longer than {MAX_PROGRAM_BYTES} bytes are refused, \
       since no stack can be sized to strip their types safely",
      program.len()
    ));
  }
  let stack = program.len().saturating_mul(STACK_PER_BYTE);
  // Labels are read in any program with enough colons for them to matter (every label has one).
  let colons = program.bytes().filter(|&byte| byte == b':').count();
  if stack > CALLING_THREAD_STACK || colons > COLONS_READ_FOR_LABELS {
    match depth_bound(program) {
      Ok(depth) if depth > MAX_NESTING => {
        return Err(format!(
          "Maximum call stack size exceeded: the program nests more than {MAX_NESTING} levels deep"
        ));
      }
      Err(Unbounded::Labels) => {
        return Err(format!(
          "the program's labels nest too deeply to strip its types safely (more than \
           {MAX_DUPLICATE_LABELS} pairs of equal labels, one enclosing the other, or more than \
           {MAX_LABEL_PAIRS} label comparisons)"
        ));
      }
      // Not read to its end, so neither its labels nor its nesting are bounded.
      Err(Unbounded::Readings) => {
        return Err(format!(
          "the program cannot be read before parsing: its slashes and comments read more than \
           {MAX_READINGS} ways at once"
        ));
      }
      Ok(_) => {}
    }
  }
  if stack <= CALLING_THREAD_STACK {
    return parse().map(|parsed| (parsed, Duration::ZERO));
  }
  std::thread::scope(|scope| {
    let parsing = std::thread::Builder::new()
      .name("dsh-strip".into())
      .stack_size(stack + (1 << 20))
      .spawn_scoped(scope, || {
        let thread = Thread::current();
        if let Some(thread) = &thread {
          started(thread.clone());
        }
        let parsed = parse();
        (
          parsed,
          thread.and_then(|thread| thread.cpu_time()).unwrap_or_default(),
        )
      })
      .map_err(|error| format!("could not start a thread to strip the program: {error}"))?;
    let (parsed, helper_cpu) = parsing
      .join()
      .map_err(|_| "TypeScript stripping failed".to_owned())?;
    parsed.map(|parsed| (parsed, helper_cpu))
  })
}

/// Erases the types of `program`, keeping every line and column where it was.
///
/// `Err` carries the message Node's stripper would report for the same input.
fn strip_types(program: &str) -> Result<String, String> {
  let wrapped = format!("{PREFIX}{program}{SUFFIX}");
  // Deserialising the options gives Node's defaults (decorators on); `Options::default()` does not.
  let options: swc_ts_fast_strip::Options =
    serde_json::from_value(serde_json::json!({ "mode": "strip-only" }))
      .expect("strip-only options are well formed");
  let source_map: Lrc<SourceMap> = Default::default();
  let diagnostics = Diagnostics::default();
  let handler = Handler::with_emitter(true, false, Box::new(diagnostics.clone()));
  let outcome = GLOBALS.set(&Default::default(), || {
    HANDLER.set(&handler, || {
      swc_ts_fast_strip::operate(&source_map, &handler, wrapped, options)
    })
  });
  match outcome {
    Ok(output) => {
      let code = output.code;
      // Erasure may shrink the UTF-8 length, so slice by the ASCII wrapper measured on the output.
      match (code.starts_with(PREFIX), code.ends_with(SUFFIX)) {
        (true, true) => Ok(code[PREFIX.len()..code.len() - SUFFIX.len()].to_owned()),
        _ => Err("TypeScript stripping changed the program wrapper".to_owned()),
      }
    }
    Err(error) => {
      let first = diagnostics.0.lock().ok().and_then(|seen| seen.first().cloned());
      Err(first.unwrap_or(error.message))
    }
  }
}

#[cfg(test)]
mod tests {
  use super::strip_types;

  #[test]
  fn erases_annotations_in_place() {
    let stripped = strip_types("const p: { x: number } = { x: 1 }\nreturn p.x as number").unwrap();
    assert_eq!(
      stripped,
      "const p                = { x: 1 }\nreturn p.x          "
    );
  }

  #[test]
  fn keeps_utf16_columns_for_non_ascii_types() {
    let stripped = strip_types("let a: 'é' = 'é'; return a").unwrap();
    assert_eq!(stripped, "let a      = 'é'; return a");
  }

  #[test]
  fn reports_node_messages_for_unsupported_syntax() {
    let cases = [
      (
        "enum E { A }\nreturn 1",
        "TypeScript enum is not supported in strip-only mode",
      ),
      (
        "namespace N { export const x = 1 }",
        "TypeScript namespace declaration is not supported in strip-only mode",
      ),
      (
        "class A { constructor(private x: number) {} }",
        "TypeScript parameter property is not supported in strip-only mode",
      ),
      (
        "const v = <any>1",
        "The angle-bracket syntax for type assertions, `<T>expr`, is not supported in type strip mode. Instead, use the 'as' syntax: `expr as T`.",
      ),
      ("const x = ;", "Expression expected"),
    ];
    for (program, message) in cases {
      assert_eq!(strip_types(program), Err(message.to_owned()), "{program}");
    }
  }

  #[test]
  fn accepts_type_only_declarations() {
    let program =
      "interface P { x: number }\ntype T = string\ndeclare namespace D { const y: number }\nreturn 1";
    assert!(strip_types(program).unwrap().ends_with("return 1"));
  }
}

#[cfg(test)]
mod depth {
  use super::{MAX_NESTING, MAX_PROGRAM_BYTES, strip_program};

  /// Deep shapes, each well past what an 8 MiB stack holds, and short enough to be held by
  /// their length alone.
  fn deep_shapes(n: usize) -> Vec<String> {
    vec![
      format!("return {}1{}", "(".repeat(n), ")".repeat(n)),
      format!("return {}1", "(".repeat(n)),
      format!("{}{}", "{".repeat(n), "}".repeat(n)),
      format!("return {}x", "!".repeat(n)),
      format!("return 1{}", "+1".repeat(n)),
      format!("return a{}", ".b".repeat(n)),
      format!("return {}1", "x => ".repeat(n)),
      format!("return {}x{}", "`${".repeat(n), "}`".repeat(n)),
      format!("type T = {}", "A<x, ".repeat(n)),
      format!("{}x", "if (a)\n".repeat(n)),
      format!("return a++ / {}1{} / 2", "(".repeat(n), ")".repeat(n)),
    ]
  }

  #[test]
  fn deep_programs_strip_on_a_stack_their_length_calls_for() {
    for shape in deep_shapes(20_000) {
      // A stack overflow would abort this test process instead of failing it.
      let outcome = strip_program(&shape, &[], &|_| {});
      if let Ok(stripped) = outcome {
        assert_eq!(stripped.code.encode_utf16().count(), shape.encode_utf16().count());
        assert!(!stripped.helper_cpu.is_zero(), "{}", &shape[..20]);
      }
    }
  }

  #[test]
  fn deep_programs_are_refused_by_reading_them_and_long_ones_by_their_length() {
    let program = format!("return {}1{}", "(".repeat(200_000), ")".repeat(200_000));
    assert_eq!(
      strip_program(&program, &[], &|_| {}).err(),
      Some(format!(
        "Maximum call stack size exceeded: the program nests more than {MAX_NESTING} levels deep"
      ))
    );
    // Long and flat: stripped up to the limit, refused past it.
    let flat = "const x: number = 1;\n".repeat(MAX_PROGRAM_BYTES / 21);
    assert_eq!(strip_program(&flat, &[], &|_| {}).unwrap().code.len(), flat.len());
    let longer = format!("{flat}{}", "\n".repeat(MAX_PROGRAM_BYTES + 1 - flat.len()));
    assert_eq!(
      strip_program(&longer, &[], &|_| {}).err(),
      Some(format!(
        "the program is {} bytes long; programs longer than {MAX_PROGRAM_BYTES} bytes are refused, since no \
         stack can be sized to strip their types safely",
        MAX_PROGRAM_BYTES + 1
      ))
    );
  }
}

#[cfg(test)]
mod properties {
  use proptest::prelude::*;

  use super::strip_types;

  /// Token soup that looks like TypeScript often enough to reach the eraser's interesting paths.
  fn token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
      "const ",
      "let ",
      "x",
      "y",
      ": number",
      ": string[]",
      " as any",
      "<T>",
      "interface I { a: T }",
      "type T = 1",
      "enum E { A }",
      "namespace N { }",
      "declare ",
      "function f(a?: number): void { }",
      "class C { constructor(private p: number) {} }",
      "=",
      " ",
      "\n",
      ";",
      "(",
      ")",
      "{",
      "}",
      "[",
      "]",
      "1",
      "'s'",
      "\"€\"",
      "`t${x}`",
      "return ",
      "await ",
      "=>",
      "?.",
      "!",
      "//c\n",
      "/*c*/",
      "é",
      "😀",
      "\u{2028}",
    ])
  }

  proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn stripping_never_panics_and_keeps_every_utf16_position(tokens in proptest::collection::vec(token(), 0..30)) {
      let program: String = tokens.concat();
      match strip_types(&program) {
        Ok(code) => {
          prop_assert_eq!(code.encode_utf16().count(), program.encode_utf16().count());
          let lines = |s: &str| s.matches(['\n', '\u{2028}']).count();
          prop_assert_eq!(lines(&code), lines(&program));
        }
        Err(message) => prop_assert!(!message.is_empty()),
      }
    }
  }
}
