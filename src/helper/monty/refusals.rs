//! What Monty would run to another result than CPython's, visible in the program's text, refused
//! before the run starts (so before any binding is called): a class that defines a special method
//! Monty never calls. Monty calls a class's `__repr__`, `__eq__`, `__add__`, `__iter__` and the
//! rest of `CALLED`, as CPython does (each compared on both engines); it ignores `__bool__` and
//! `__len__` in a truth test (an empty collection of the program's is true), `__ne__` and
//! `__setattr__`, and raises its own `TypeError` where CPython would call `__lt__`, `__len__`,
//! `__format__` and the others, which a program catching `TypeError` would take for its own.

use ruff_python_ast::visitor::{Visitor, walk_stmt};
use ruff_python_ast::{Stmt, StmtClassDef};
use ruff_text_size::Ranged;

use monty_types::{CodeLoc, ExcType, MontyException, StackFrame};

/// The special methods Monty calls as CPython does.
const CALLED: &[&str] = &[
  "__init__", "__repr__", "__str__", "__eq__", "__hash__", "__call__", "__getitem__", "__setitem__", "__contains__", "__iter__",
  "__next__", "__enter__", "__exit__", "__post_init__", "__copy__", "__int__", "__float__", "__index__", "__round__", "__floor__",
  "__ceil__", "__trunc__", "__neg__", "__pos__", "__abs__", "__invert__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
  "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
  "__matmul__", "__rmatmul__", "__divmod__", "__rdivmod__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
  "__lshift__", "__rlshift__", "__rshift__", "__rrshift__",
];

fn uncalled(name: &str) -> bool {
  name.len() > 4 && name.starts_with("__") && name.ends_with("__") && !CALLED.contains(&name)
}

/// The exception a run of `program` ends with before it starts, or `None` when it may run.
pub fn refused(program: &str, filename: &str) -> Option<MontyException> {
  // Parsed only when its text defines such a method: most programs define none.
  let defines_one = program.match_indices("def __").any(|(at, _)| {
    let name = &program[at + 4..];
    let end = name.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(name.len());
    uncalled(&name[..end])
  });
  if !defines_one || !monty::source_within_nesting_bound(program, 0) {
    return None;
  }
  let parsed = ruff_python_parser::parse_module(program).ok()?;
  struct First {
    found: Option<(usize, String)>,
  }
  impl<'a> Visitor<'a> for First {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
      if self.found.is_some() {
        return;
      }
      if let Stmt::ClassDef(StmtClassDef { name: class, body, .. }) = stmt {
        for method in body {
          if let Stmt::FunctionDef(function) = method
            && uncalled(function.name.as_str())
          {
            let message = format!("Monty does not support the special method '{}' (class '{class}' defines it)", function.name.as_str());
            self.found = Some((method.start().to_usize(), message));
            return;
          }
        }
      }
      walk_stmt(self, stmt);
    }
  }
  let mut first = First { found: None };
  first.visit_body(&parsed.syntax().body);
  let (at, message) = first.found?;
  let line = program[..at].matches('\n').count() as u32;
  let text = program[at..].lines().next().unwrap_or_default();
  let frame = StackFrame {
    filename: filename.to_owned(),
    start: CodeLoc::new(line, 0),
    end: CodeLoc::new(line, text.len() as u32),
    frame_name: None,
    preview_line: Some(text.into()),
    hide_caret: true,
    hide_frame_name: false,
  };
  Some(MontyException::with_traceback(ExcType::NotImplementedError, Some(message), vec![frame]))
}

#[cfg(test)]
mod tests {
  use super::*;

  fn refusal(program: &str) -> Option<String> {
    refused(program, "<program>").map(|error| error.to_string())
  }

  #[test]
  fn a_class_defining_a_method_monty_never_calls_is_refused_at_its_definition() {
    assert_eq!(
      refusal("x = 1\nclass Box:\n    def __init__(self): self.items = []\n    def __len__(self):\n        return 0\n").as_deref(),
      Some(
        "Traceback (most recent call last):\n  File \"<program>\", line 4, in <module>\n    def __len__(self):\nNotImplementedError: Monty does not support the special method '__len__' (class 'Box' defines it)"
      )
    );
    // Nested in a function, and the first in the text.
    let nested = refusal("def f():\n    class A:\n        def __bool__(self): return False\n        def __lt__(self, o): return True\n");
    assert!(nested.unwrap().contains("'__bool__' (class 'A' defines it)"));
    assert!(refusal("class A:\n    async def __anext__(self): pass\n").unwrap().contains("'__anext__'"));
  }

  #[test]
  fn what_monty_calls_as_cpython_does_and_text_outside_a_class_run() {
    assert_eq!(refusal("class P:\n    def __init__(self, x): self.x = x\n    def __repr__(self): return 'P'\n    def __eq__(self, o): return True\n"), None);
    assert_eq!(refusal("def __len__(x):\n    return 0\nreturn __len__(1)"), None);
    assert_eq!(refusal("s = 'def __len__(self)'\nreturn s"), None);
    assert_eq!(refusal("class A:\n    def __len__(self) return 0"), None);
  }
}
