//! What Monty would run to another result than CPython's, visible in the program's text, refused
//! before the run starts (so before any binding is called): a special method Monty never calls,
//! defined in a class or set on one. Monty calls a class's `__repr__`, `__eq__`, `__add__`, `__iter__` and the
//! rest of `CALLED`, as CPython does (each compared on both engines); it ignores `__bool__` and
//! `__len__` in a truth test (an empty collection of the program's is true), `__ne__` and
//! `__setattr__`, and raises its own `TypeError` where CPython would call `__lt__`, `__len__`,
//! `__format__` and the others, which a program catching `TypeError` would take for its own.

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, Stmt, StmtClassDef};
use ruff_text_size::Ranged;

use monty_types::{CodeLoc, ExcType, MontyException, StackFrame};

use super::shim::parsed;

/// The special methods Monty calls as CPython does.
const CALLED: &[&str] = &[
  "__init__", "__repr__", "__str__", "__eq__", "__hash__", "__call__", "__getitem__", "__setitem__", "__contains__", "__iter__",
  "__next__", "__enter__", "__exit__", "__post_init__", "__copy__", "__int__", "__float__", "__index__", "__round__", "__floor__",
  "__ceil__", "__trunc__", "__neg__", "__pos__", "__abs__", "__invert__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__",
  "__rmul__", "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
  "__matmul__", "__rmatmul__", "__divmod__", "__rdivmod__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__",
  "__lshift__", "__rlshift__", "__rshift__", "__rrshift__",
];

/// Names of that form that are data, which a program may set.
const DATA: &[&str] = &["__name__", "__doc__", "__slots__", "__dict__", "__module__", "__qualname__", "__annotations__", "__match_args__", "__all__"];

fn uncalled(name: &str) -> bool {
  name.len() > 4 && name.starts_with("__") && name.ends_with("__") && !CALLED.contains(&name) && !DATA.contains(&name)
}

/// The exception a run of `program` ends with before it starts, or `None` when it may run: a class
/// that defines such a method in its body (`def __len__`, `__lt__ = ...`), or a program that sets
/// one on a class (`Box.__len__ = ...`, `setattr(Box, "__len__", ...)`).
pub fn refused(program: &str, filename: &str) -> Option<MontyException> {
  // Parsed only when its text names such a method: most programs name none.
  let identifier = |c: char| c.is_alphanumeric() || c == '_';
  let names_one = program.match_indices("__").any(|(at, _)| {
    let name = &program[at..];
    let end = name.find(|c: char| !identifier(c)).unwrap_or(name.len());
    !program[..at].ends_with(identifier) && uncalled(&name[..end])
  });
  if !names_one {
    return None;
  }
  let parsed = parsed(program)?;
  struct First<'p> {
    program: &'p str,
    found: Option<(usize, String)>,
  }
  impl First<'_> {
    fn refuse(&mut self, at: usize, method: &str, whose: String) {
      self.found.get_or_insert_with(|| (at, format!("Monty does not support the special method '{method}' ({whose})")));
    }
  }
  impl<'a> Visitor<'a> for First<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
      if self.found.is_some() {
        return;
      }
      if let Stmt::ClassDef(StmtClassDef { name: class, body, .. }) = stmt {
        for member in body {
          let defined = match member {
            Stmt::FunctionDef(function) => Some(function.name.as_str()),
            Stmt::Assign(assign) => assign.targets.iter().find_map(|target| target.as_name_expr()).map(|name| name.id.as_str()),
            Stmt::AnnAssign(assign) => assign.target.as_name_expr().map(|name| name.id.as_str()),
            _ => None,
          };
          if let Some(method) = defined.filter(|method| uncalled(method)) {
            self.refuse(member.start().to_usize(), method, format!("class '{class}' defines it"));
            return;
          }
        }
      }
      let targets: &[Expr] = match stmt {
        Stmt::Assign(assign) => &assign.targets,
        Stmt::AnnAssign(assign) => std::slice::from_ref(&*assign.target),
        Stmt::AugAssign(assign) => std::slice::from_ref(&*assign.target),
        _ => &[],
      };
      for target in targets {
        if let Expr::Attribute(set) = target
          && uncalled(set.attr.id.as_str())
        {
          let owner = &self.program[set.value.range()];
          self.refuse(stmt.start().to_usize(), set.attr.id.as_str(), format!("the program sets it on '{owner}'"));
          return;
        }
      }
      walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
      if let Expr::Call(call) = expr
        && let Expr::Name(callee) = &*call.func
        && callee.id.as_str() == "setattr"
        && let [owner, Expr::StringLiteral(method), _] = &*call.arguments.args
        && uncalled(method.value.to_str())
      {
        let owner = &self.program[owner.range()];
        self.refuse(expr.start().to_usize(), method.value.to_str(), format!("the program sets it on '{owner}'"));
      }
      walk_expr(self, expr);
    }
  }
  let mut first = First { program, found: None };
  first.visit_body(&parsed.syntax().body);
  let (at, message) = first.found?;
  let line_start = program[..at].rfind('\n').map_or(0, |newline| newline + 1);
  let line = program[..at].matches('\n').count() as u32;
  let text = program[line_start..].lines().next().unwrap_or_default();
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
    assert!(refusal("class A:\n    def __gt__(self, o): return True\n    __lt__ = __gt__\n").unwrap().contains("line 2"));
    assert!(refusal("class A:\n    __lt__ = lambda self, o: True\n").unwrap().contains("'__lt__' (class 'A' defines it)"));
    // Set on a class once it is made.
    let set = refusal("class Box:\n    pass\nBox.__len__ = lambda self: 0\n").unwrap();
    assert!(set.contains("line 3, in <module>\n    Box.__len__ = lambda self: 0\n") && set.ends_with("'__len__' (the program sets it on 'Box')"), "{set}");
    assert!(refusal("x = 1\nif x:\n    setattr(Box, \"__bool__\", f)\n").unwrap().contains("line 3, in <module>\n    setattr(Box, \"__bool__\", f)"));
  }

  #[test]
  fn what_monty_calls_as_cpython_does_and_text_outside_a_class_run() {
    assert_eq!(refusal("class P:\n    def __init__(self, x): self.x = x\n    def __repr__(self): return 'P'\n    def __eq__(self, o): return True\n"), None);
    assert_eq!(refusal("def __len__(x):\n    return 0\nreturn __len__(1)"), None);
    assert_eq!(refusal("s = 'def __len__(self)'\nreturn s"), None);
    assert_eq!(refusal("class A:\n    def __len__(self) return 0"), None);
    assert_eq!(refusal("class A:\n    __slots__ = ('x',)\n    __hash__ = None\nreturn type(e).__name__"), None);
  }
}
