//! TypeScript type erasure with swc's strip-only eraser, the code behind Node's `stripTypeScriptTypes`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use swc_common::errors::{DiagnosticBuilder, Emitter, HANDLER, Handler};
use swc_common::sync::Lrc;
use swc_common::{GLOBALS, SourceMap};

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

/// Programs whose syntax tree may nest deeper than this are refused before parsing (see
/// `nesting`): V8's own parser gives up far earlier (about 2 500 nested parentheses), so only
/// very long operator chains that V8 would accept are refused.
pub const MAX_NESTING: usize = 10_000;

/// Up to this bound, stripping runs on the calling thread: swc needs at most about 3 KiB of
/// stack per level (nested parentheses), and isolate threads have 8 MiB.
const NESTING_ON_CALLING_THREAD: usize = 500;

/// The stack of the thread that strips deeper programs: 25 KiB per level at `MAX_NESTING`.
/// Only the pages a parse touches are ever committed, and they go with the thread.
const DEEP_STRIP_STACK_BYTES: usize = 256 << 20;

/// A stripped program, and the CPU time stripping spent on a thread other than the caller's.
pub struct Stripped {
  pub code: String,
  pub helper_cpu: Duration,
}

/// Erases the types of `program` where the stack is deep enough for it, or refuses a program that
/// nests too deep for any stack we would give it.
pub fn strip_program(program: &str) -> Result<Stripped, String> {
  let depth = crate::nesting::depth_bound(program);
  if depth > MAX_NESTING {
    return Err(format!(
      "Maximum call stack size exceeded: the program nests more than {MAX_NESTING} levels deep"
    ));
  }
  if depth <= NESTING_ON_CALLING_THREAD {
    return strip_types(program).map(|code| Stripped {
      code,
      helper_cpu: Duration::ZERO,
    });
  }
  std::thread::scope(|scope| {
    let stripping = std::thread::Builder::new()
      .name("dsh-strip".into())
      .stack_size(DEEP_STRIP_STACK_BYTES)
      .spawn_scoped(scope, || (strip_types(program), thread_cpu_time()))
      .map_err(|error| format!("could not start a thread to strip the program: {error}"))?;
    let (stripped, helper_cpu) = stripping
      .join()
      .map_err(|_| "TypeScript stripping failed".to_owned())?;
    stripped.map(|code| Stripped { code, helper_cpu })
  })
}

/// CPU time the calling thread has used.
fn thread_cpu_time() -> Duration {
  let mut now = libc::timespec {
    tv_sec: 0,
    tv_nsec: 0,
  };
  // SAFETY: `now` is a valid out-pointer.
  let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
  if status == 0 {
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
  } else {
    Duration::ZERO
  }
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
  use super::{MAX_NESTING, NESTING_ON_CALLING_THREAD, strip_program};

  #[test]
  fn deep_programs_strip_on_a_thread_with_room_and_count_its_time() {
    let program = format!("return {}1{}", "(".repeat(2_000), ")".repeat(2_000));
    let stripped = strip_program(&program).unwrap();
    assert_eq!(stripped.code, program);
    assert!(!stripped.helper_cpu.is_zero());
  }

  #[test]
  fn programs_past_the_bound_are_refused_before_parsing() {
    let program = format!("return {}1{}", "(".repeat(1_000_000), ")".repeat(1_000_000));
    assert_eq!(
      strip_program(&program).err(),
      Some(format!(
        "Maximum call stack size exceeded: the program nests more than {MAX_NESTING} levels deep"
      ))
    );
  }

  #[test]
  fn every_shape_at_the_bound_strips_without_exhausting_the_stack() {
    let n = MAX_NESTING;
    let shapes = [
      format!("return {}1{}", "(".repeat(n / 2), ")".repeat(n / 2)),
      format!("{}{}", "{".repeat(n), "}".repeat(n)),
      format!("return {}1{}", "[".repeat(n / 2), "]".repeat(n / 2)),
      format!("return {}x{}", "`${".repeat(n / 3), "}`".repeat(n / 3)),
      format!("return {}x", "!".repeat(n)),
      format!("return {}1", "x => ".repeat(n / 3)),
      format!("return {}1", "a ? 1 : ".repeat(n / 5)),
      format!("type T = {}1{}", "A<".repeat(n / 2), ">".repeat(n / 2)),
      format!("return a{}", ".b".repeat(n)),
      format!("return 1{}", "+1".repeat(n)),
      format!("return f{}", "()".repeat(n / 2)),
      format!("{}x", "if (a)\n".repeat(n / 4)),
    ];
    for shape in shapes {
      let depth = crate::nesting::depth_bound(&shape);
      // Deep enough to need the deep thread; a stack overflow would abort this test process.
      assert!(depth > NESTING_ON_CALLING_THREAD, "{} bounds {depth}", &shape[..20]);
      match strip_program(&shape) {
        Ok(stripped) => {
          assert!(depth <= MAX_NESTING);
          assert_eq!(stripped.code.encode_utf16().count(), shape.encode_utf16().count());
        }
        Err(message) => {
          assert!(depth > MAX_NESTING, "{}: {message}", &shape[..20]);
        }
      }
    }
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
