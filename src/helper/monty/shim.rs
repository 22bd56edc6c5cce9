//! What Monty lacks of the contract the model is told, made in Python it runs, before the
//! program: each namespace is an object of a class of its name, whose attributes and subscripts
//! give the bindings (a Monty module has no subscript); a binding is a coroutine around the host's
//! function that notes which binding a failure came from; the error class is RuntimeError under
//! its name (Monty takes an exception class only from the program's text, and has no class a host
//! can define). Monty's exceptions take no attributes, so the program's reads of the member name
//! (`e.toolName`) become calls that look the failure up, found with the parser Monty itself uses.

use ruff_python_ast::visitor::{Visitor, walk_expr};
use ruff_python_ast::{Expr, ExprContext};
use ruff_text_size::Ranged;

use super::values::quote;

/// One namespace of the run's request.
pub struct Namespace {
  pub global: String,
  pub names: Vec<String>,
  /// The error class and its member name property (`ToolCallError`, `toolName`).
  pub error_class: Option<(String, String)>,
}

/// The name the host's module of a namespace is given (its functions are the host's).
pub fn raw_name(index: usize) -> String {
  format!("__dsh_raw_{index}")
}

/// The program as Monty runs it, and how many lines come before the program's own.
pub struct Shimmed {
  pub source: String,
  pub prelude_lines: u32,
}

// The built-ins it uses are taken first: a namespace may be named as one of them.
const COMMON: &str = "\
__dsh_getattr, __dsh_setattr, __dsh_len = getattr, setattr, len
__dsh_KeyError, __dsh_RuntimeError, __dsh_TypeError = KeyError, RuntimeError, TypeError
__dsh_failures = []
def __dsh_binding(function, name):
    async def call(*args):
        if __dsh_len(args) != 1:
            if args:
                raise __dsh_TypeError(f\"{name}() takes 1 positional argument but {__dsh_len(args)} were given\")
            raise __dsh_TypeError(f\"{name}() missing 1 required positional argument: 'args'\")
        try:
            return await function(args[0])
        except __dsh_RuntimeError as error:
            __dsh_failures.append((error, name))
            raise
    return call
def __dsh_member(value, member):
    for error, name in __dsh_failures:
        if error is value:
            return name
    return __dsh_getattr(value, member)
";

/// The prelude for `namespaces`, then `program` with its member reads rewritten, then the
/// `return None` a function body ends with (Monty's module would give its last expression's value).
pub fn shim(program: &str, namespaces: &[Namespace]) -> Shimmed {
  let mut prelude = String::from(COMMON);
  let mut members = Vec::new();
  for (index, namespace) in namespaces.iter().enumerate() {
    let global = &namespace.global;
    let raw = raw_name(index);
    let names = format!("[{}]", namespace.names.iter().map(|name| quote(name)).collect::<Vec<_>>().join(", "));
    if let Some((class, member)) = &namespace.error_class {
      prelude.push_str(&format!("{class} = __dsh_RuntimeError\n"));
      members.push(member.as_str());
    }
    prelude.push_str(&format!(
      "class {global}:\n    def __getitem__(self, name):\n        if name not in {names}:\n            raise __dsh_KeyError(name)\n        return __dsh_binding(__dsh_getattr({raw}, name), name)\n{global} = {global}()\nfor __dsh_name in {names}:\n    __dsh_setattr({global}, __dsh_name, __dsh_binding(__dsh_getattr({raw}, __dsh_name), __dsh_name))\n"
    ));
  }
  let prelude_lines = prelude.lines().count() as u32;
  members.sort_unstable();
  members.dedup();
  let program = rewrite_member_reads(program, &members);
  Shimmed { source: format!("{prelude}{program}\nreturn None\n"), prelude_lines }
}

/// `program` with each read of an attribute named in `members` (`x.toolName`) made a call of
/// `__dsh_member(x, "toolName")`; as it is when it does not parse, or nests past what Monty's
/// parser takes (Monty then refuses it in its own words).
fn rewrite_member_reads(program: &str, members: &[&str]) -> String {
  if members.is_empty() || !members.iter().any(|member| program.contains(member)) {
    return program.to_owned();
  }
  if !monty::source_within_nesting_bound(program, 0) {
    return program.to_owned();
  }
  let Ok(parsed) = ruff_python_parser::parse_module(program) else {
    return program.to_owned();
  };
  struct Reads<'m> {
    members: &'m [&'m str],
    /// (where the read starts, where its value ends, where it ends, the member)
    found: Vec<(usize, usize, usize, &'m str)>,
  }
  impl<'a> Visitor<'a> for Reads<'_> {
    fn visit_expr(&mut self, expr: &'a Expr) {
      if let Expr::Attribute(read) = expr
        && read.ctx == ExprContext::Load
        && let Some(member) = self.members.iter().find(|member| read.attr.id.as_str() == **member)
      {
        self.found.push((read.start().to_usize(), read.value.end().to_usize(), read.end().to_usize(), member));
      }
      walk_expr(self, expr);
    }
  }
  let mut reads = Reads { members, found: Vec::new() };
  reads.visit_body(&parsed.syntax().body);
  // Edits from the end, so that each one's offsets still hold; an inner read starts where its
  // outer one does, and is found after it.
  let mut edits: Vec<(usize, usize, String)> = Vec::new();
  for (start, value_end, end, member) in reads.found {
    edits.push((value_end, end, format!(", {})", quote(member))));
    edits.push((start, start, "__dsh_member(".to_owned()));
  }
  edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
  let mut source = program.to_owned();
  for (from, to, text) in edits {
    source.replace_range(from..to, &text);
  }
  source
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn member_reads_become_lookups_and_nothing_else_changes() {
    let members = ["toolName"];
    assert_eq!(
      rewrite_member_reads("print(e.toolName, e .toolName)\nx = 'e.toolName'", &members),
      "print(__dsh_member(e, \"toolName\"), __dsh_member(e, \"toolName\"))\nx = 'e.toolName'"
    );
    assert_eq!(rewrite_member_reads("a.b.toolName.toolName", &members), "__dsh_member(__dsh_member(a.b, \"toolName\"), \"toolName\")");
    // An assignment to it is the program's own error to meet, as Monty gives it.
    assert_eq!(rewrite_member_reads("e.toolName = 1", &members), "e.toolName = 1");
    assert_eq!(rewrite_member_reads("def f(:\n  e.toolName", &members), "def f(:\n  e.toolName");
  }

  #[test]
  fn the_prelude_counts_its_lines_and_the_program_follows_it() {
    let namespace = Namespace {
      global: "tools".to_owned(),
      names: vec!["a".to_owned(), "b-c".to_owned()],
      error_class: Some(("ToolCallError".to_owned(), "toolName".to_owned())),
    };
    let shimmed = shim("return e.toolName", &[namespace]);
    let lines: Vec<&str> = shimmed.source.lines().collect();
    assert_eq!(lines[shimmed.prelude_lines as usize], "return __dsh_member(e, \"toolName\")");
    assert!(shimmed.source.contains("ToolCallError = __dsh_RuntimeError\nclass tools:\n"));
    assert!(shimmed.source.contains("for __dsh_name in [\"a\", \"b-c\"]:\n"));
    assert!(shimmed.source.ends_with("\nreturn None\n"));
  }
}
