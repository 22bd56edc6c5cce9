//! What Monty lacks of the contract the model is told, made in Python it runs, before the
//! program: each namespace is an object of a class of its name, whose attributes and subscripts
//! give the bindings (a Monty module has no subscript); a binding is a coroutine around the host's
//! function that notes which binding a failure came from; the error class is RuntimeError under
//! its name (Monty takes an exception class only from the program's text, and has no class a host
//! can define). Monty's exceptions take no attributes, so the program's reads of the member name
//! (`e.toolName`) become calls that look the failure up, found with the parser Monty itself uses.
//!
//! Where Monty would give another value than CPython, or lacks a piece of asyncio an agent's
//! program commonly uses, the prelude stands in: `round` of a float to some digits rounds its exact
//! value, as CPython's does (Monty's rounds its shortest decimal form: 2.675 would be 2.68);
//! `asyncio.create_task` and `ensure_future` give the awaitable itself, which starts when it is
//! awaited or gathered; `asyncio.gather(..., return_exceptions=...)` settles each awaitable first.
//! Modules Monty lacks that the runtime provides, in Python Monty runs (`modules/`), are included
//! when the program imports them, and its imports of them become assignments.

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Expr, ExprAttribute, ExprContext, Stmt};
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
__dsh_round, __dsh_float, __dsh_int, __dsh_format, __dsh_type = round, float, int, format, type
def round(number, ndigits=None):
    if __dsh_type(number) is __dsh_float and __dsh_type(ndigits) is __dsh_int and 0 <= ndigits <= 400 and number - number == 0:
        return __dsh_float(__dsh_format(number, f\".{ndigits}f\"))
    if ndigits is None:
        return __dsh_round(number)
    return __dsh_round(number, ndigits)
";

/// The modules the runtime provides: each a `module` object, `__dsh_<name>`, whose attributes its
/// source assigns as `__dsh_<name>.<attribute> = ...` at the start of a line.
const MODULES: [(&str, &str); 1] = [("statistics", include_str!("modules/statistics.py"))];

/// What the modules' sources share: what makes their objects, of a class named as CPython names a
/// module's (made in a function, so that the program has no such name).
const MODULE_CLASS: &str = "\
def __dsh_module():
    class module:
        pass
    return module()
__dsh_list, __dsh_ImportError = list, ImportError
";

/// The attributes `source` gives module `name`.
fn module_attributes<'s>(name: &str, source: &'s str) -> impl Iterator<Item = &'s str> {
  let prefix = format!("__dsh_{name}.");
  source.lines().filter_map(move |line| line.strip_prefix(prefix.as_str())?.split(" = ").next())
}

/// `asyncio.create_task(awaitable)` and `ensure_future`: the awaitable, started where it is awaited.
const TASK: &str = "\
def __dsh_task(awaitable):
    return awaitable
";

/// `asyncio.gather` with `return_exceptions`: an exception is the awaitable's result.
const GATHER: &str = "\
import asyncio as __dsh_asyncio
async def __dsh_settled(awaitable):
    try:
        return await awaitable
    except Exception as error:
        return error
def __dsh_gather(*awaitables, return_exceptions=False):
    if return_exceptions:
        return __dsh_asyncio.gather(*[__dsh_settled(awaitable) for awaitable in awaitables])
    return __dsh_asyncio.gather(*awaitables)
";

/// The prelude for `namespaces`, then `program` with its member reads rewritten, then the
/// `return None` a function body ends with (Monty's module would give its last expression's value).
pub fn shim(program: &str, namespaces: &[Namespace]) -> Shimmed {
  let mut prelude = String::from(COMMON);
  let mut members = Vec::new();
  for namespace in namespaces {
    if let Some((_, member)) = &namespace.error_class {
      members.push(member.as_str());
    }
  }
  members.sort_unstable();
  members.dedup();
  let Rewritten { source: program, tasks, gathers, modules } = rewrite(program, &members);
  if !modules.is_empty() {
    prelude.push_str(MODULE_CLASS);
  }
  for (name, source) in MODULES {
    if modules.contains(&name) {
      prelude.push_str(source);
    }
  }
  if tasks {
    prelude.push_str(TASK);
  }
  if gathers {
    prelude.push_str(GATHER);
  }
  for (index, namespace) in namespaces.iter().enumerate() {
    let global = &namespace.global;
    let raw = raw_name(index);
    let names = format!("[{}]", namespace.names.iter().map(|name| quote(name)).collect::<Vec<_>>().join(", "));
    if let Some((class, _)) = &namespace.error_class {
      prelude.push_str(&format!("{class} = __dsh_RuntimeError\n"));
    }
    prelude.push_str(&format!(
      "class {global}:\n    def __getitem__(self, name):\n        if name not in {names}:\n            raise __dsh_KeyError(name)\n        return __dsh_binding(__dsh_getattr({raw}, name), name)\n{global} = {global}()\nfor __dsh_name in {names}:\n    __dsh_setattr({global}, __dsh_name, __dsh_binding(__dsh_getattr({raw}, __dsh_name), __dsh_name))\n"
    ));
  }
  let prelude_lines = prelude.lines().count() as u32;
  Shimmed { source: format!("{prelude}{program}\nreturn None\n"), prelude_lines }
}

/// The program as the prelude serves it, and which of the prelude's stand-ins it uses.
struct Rewritten {
  source: String,
  tasks: bool,
  gathers: bool,
  /// The provided modules it imports.
  modules: Vec<&'static str>,
}

/// The provided module named `name`, and its source.
fn provided(name: &str) -> Option<(&'static str, &'static str)> {
  MODULES.into_iter().find(|(provided, _)| *provided == name)
}

/// What an import of provided modules becomes: assignments of their objects (and of their
/// attributes, for `from`), with the statement's other modules imported as they were; `None` for
/// an import of no provided module.
fn import_replacement(stmt: &Stmt, used: &mut Vec<&'static str>) -> Option<String> {
  let mut pieces = Vec::new();
  match stmt {
    Stmt::Import(import) => {
      if !import.names.iter().any(|alias| provided(alias.name.as_str()).is_some()) {
        return None;
      }
      for alias in &import.names {
        let bound = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
        match provided(alias.name.as_str()) {
          Some((name, _)) => {
            used.push(name);
            pieces.push(format!("{bound} = __dsh_{name}"));
          }
          None => pieces.push(match &alias.asname {
            Some(asname) => format!("import {} as {asname}", alias.name.as_str()),
            None => format!("import {}", alias.name.as_str()),
          }),
        }
      }
    }
    Stmt::ImportFrom(from) if from.level == 0 => {
      let (name, source) = provided(from.module.as_ref()?.as_str())?;
      used.push(name);
      for alias in &from.names {
        let attribute = alias.name.as_str();
        let bound = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
        if module_attributes(name, source).any(|known| known == attribute) {
          pieces.push(format!("{bound} = __dsh_{name}.{attribute}"));
        } else {
          // As CPython words it; `*` too, which a provided module does not take.
          pieces.push(format!("raise __dsh_ImportError(\"cannot import name '{attribute}' from '{name}' (unknown location)\")"));
        }
      }
    }
    _ => return None,
  }
  Some(pieces.join("; "))
}

/// Whether `attribute` is `asyncio.<name>` for one of `names`.
fn is_asyncio(attribute: &ExprAttribute, names: &[&str]) -> bool {
  matches!(&*attribute.value, Expr::Name(module) if module.id.as_str() == "asyncio") && names.contains(&attribute.attr.id.as_str())
}

/// `program` with each read of an attribute named in `members` (`x.toolName`) made a call of
/// `__dsh_member(x, "toolName")`, each `asyncio.create_task` or `ensure_future` made
/// `__dsh_task`, and each `asyncio.gather` called with `return_exceptions` made `__dsh_gather`; as
/// it is when it does not parse, or nests past what Monty's parser takes (Monty then refuses it in
/// its own words).
fn rewrite(program: &str, members: &[&str]) -> Rewritten {
  let unchanged = || Rewritten { source: program.to_owned(), tasks: false, gathers: false, modules: Vec::new() };
  if !program.contains("asyncio.")
    && !members.iter().any(|member| program.contains(member))
    && !MODULES.iter().any(|(name, _)| program.contains(name))
  {
    return unchanged();
  }
  if !monty::source_within_nesting_bound(program, 0) {
    return unchanged();
  }
  let Ok(parsed) = ruff_python_parser::parse_module(program) else {
    return unchanged();
  };
  #[derive(Default)]
  struct Found<'m> {
    members: &'m [&'m str],
    /// Member reads: (where the read starts, where its value ends, where it ends, the member).
    reads: Vec<(usize, usize, usize, &'m str)>,
    /// Spans to replace with a stand-in's name.
    names: Vec<(usize, usize, &'static str)>,
    /// Imports of provided modules: their spans, and what each becomes.
    imports: Vec<(usize, usize, String)>,
    modules: Vec<&'static str>,
  }
  impl<'a> Visitor<'a> for Found<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
      if let Some(replacement) = import_replacement(stmt, &mut self.modules) {
        self.imports.push((stmt.start().to_usize(), stmt.end().to_usize(), replacement));
      }
      walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
      match expr {
        Expr::Attribute(read) if read.ctx == ExprContext::Load => {
          if let Some(member) = self.members.iter().find(|member| read.attr.id.as_str() == **member) {
            self.reads.push((read.start().to_usize(), read.value.end().to_usize(), read.end().to_usize(), member));
          } else if is_asyncio(read, &["create_task", "ensure_future"]) {
            self.names.push((read.start().to_usize(), read.end().to_usize(), "__dsh_task"));
          }
        }
        Expr::Call(call)
          if matches!(&*call.func, Expr::Attribute(callee) if is_asyncio(callee, &["gather"]))
            && call.arguments.keywords.iter().any(|keyword| keyword.arg.as_ref().is_some_and(|arg| arg.as_str() == "return_exceptions")) =>
        {
          self.names.push((call.func.start().to_usize(), call.func.end().to_usize(), "__dsh_gather"));
        }
        _ => {}
      }
      walk_expr(self, expr);
    }
  }
  let mut found = Found { members, ..Found::default() };
  found.visit_body(&parsed.syntax().body);
  // Edits from the end, so that each one's offsets still hold; an inner read starts where its
  // outer one does, and is found after it. A stand-in's span holds no other edit.
  let mut edits: Vec<(usize, usize, String)> = Vec::new();
  for (start, value_end, end, member) in found.reads {
    edits.push((value_end, end, format!(", {})", quote(member))));
    edits.push((start, start, "__dsh_member(".to_owned()));
  }
  let tasks = found.names.iter().any(|(_, _, name)| *name == "__dsh_task");
  let gathers = found.names.iter().any(|(_, _, name)| *name == "__dsh_gather");
  // The callee of a gather is also an attribute read of `asyncio`, never a task's.
  edits.extend(found.names.into_iter().map(|(start, end, name)| (start, end, name.to_owned())));
  // An import holds no other edit; it keeps its lines, so that the program's line numbers hold.
  for (start, end, replacement) in found.imports {
    let lines = program[start..end].matches('\n').count();
    edits.push((start, end, format!("{replacement}{}", "\n".repeat(lines))));
  }
  let mut modules = found.modules;
  modules.sort_unstable();
  modules.dedup();
  edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
  let mut source = program.to_owned();
  for (from, to, text) in edits {
    source.replace_range(from..to, &text);
  }
  Rewritten { source, tasks, gathers, modules }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn rewrite_member_reads(program: &str, members: &[&str]) -> String {
    rewrite(program, members).source
  }

  #[test]
  fn asyncio_tasks_and_gathers_of_settled_results_become_the_preludes_stand_ins() {
    let rewritten = rewrite("t = asyncio.create_task(f())\nu = asyncio.ensure_future(g())\nr = await asyncio.gather(t, u, return_exceptions=True)\nasyncio.gather(t)", &[]);
    assert_eq!(rewritten.source, "t = __dsh_task(f())\nu = __dsh_task(g())\nr = await __dsh_gather(t, u, return_exceptions=True)\nasyncio.gather(t)");
    assert!(rewritten.tasks && rewritten.gathers);
    let untouched = rewrite("aio.create_task(f())\nasyncio.sleep(1)", &[]);
    assert_eq!(untouched.source, "aio.create_task(f())\nasyncio.sleep(1)");
    assert!(!untouched.tasks && !untouched.gathers);
  }

  #[test]
  fn imports_of_provided_modules_become_assignments_and_keep_their_lines() {
    let rewritten = rewrite(
      "import json, statistics as st\nfrom statistics import (mean,\n  median as m, nope)\nimport math\ndef f():\n    import statistics\n",
      &[],
    );
    assert_eq!(
      rewritten.source,
      "import json; st = __dsh_statistics\nmean = __dsh_statistics.mean; m = __dsh_statistics.median; raise __dsh_ImportError(\"cannot import name 'nope' from 'statistics' (unknown location)\")\n\nimport math\ndef f():\n    statistics = __dsh_statistics\n"
    );
    assert_eq!(rewritten.modules, ["statistics"]);
    let attributes: Vec<&str> = module_attributes("statistics", MODULES[0].1).collect();
    assert!(attributes.contains(&"mean") && attributes.contains(&"pstdev") && attributes.contains(&"StatisticsError"));
  }

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
