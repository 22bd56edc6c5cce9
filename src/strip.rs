//! TypeScript type erasure with swc's strip-only eraser, the code behind Node's `stripTypeScriptTypes`.

use std::sync::{Arc, Mutex};

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

/// Erases the types of `program`, keeping every line and column where it was.
///
/// `Err` carries the message Node's stripper would report for the same input.
pub fn strip_types(program: &str) -> Result<String, String> {
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
