//! What Monty lacks of the contract the model is told, made in Python it runs, before the
//! program: each namespace is an object of a class of its name, whose attributes and subscripts
//! give the bindings (a Monty module has no subscript); a binding is a coroutine around the host's
//! function that notes which binding a failure came from; the error class is RuntimeError under
//! its name (Monty takes an exception class only from the program's text, and has no class a host
//! can define). Monty's exceptions take no attributes, so the program's reads of the member name
//! (`e.toolName`) become calls that look the failure up, found with the parser Monty itself uses.
//!
//! Where Monty would give another value than CPython, or lacks a piece of the standard library an
//! agent's program commonly uses, the prelude stands in, in Python Monty runs (`stand_ins/`):
//! `round` of a float to some digits rounds its exact value, as CPython's does (Monty's rounds its
//! shortest decimal form: 2.675 would be 2.68); names a module of Monty's lacks
//! (`asyncio.create_task`, `dataclasses.asdict`, ...) and modules it lacks (`statistics`) are
//! included when the program uses them, and its reads and imports of them are rewritten to the
//! stand-ins; so are calls with a keyword Monty's function lacks (`json.dumps(x, default=str)`)
//! and methods read from `str` (`key=str.lower`), which Monty's type does not give.

use std::collections::BTreeSet;

use ruff_python_ast::visitor::{Visitor, walk_expr, walk_stmt};
use ruff_python_ast::{Arguments, Expr, ExprAttribute, ExprCall, ExprContext, ModModule, Stmt};
use ruff_python_parser::Parsed;
use ruff_text_size::Ranged;

use super::stand_ins::{CALLS, EXTENSIONS, KEYWORD_CALLS, MODULES, PIECES, Piece, STR_METHODS, bindings, called_names, import_replacement, module_names};
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

/// The program as Monty runs it, how many lines come before the program's own, and the program as
/// rewritten, when the shim changed it.
pub struct Shimmed {
  pub source: String,
  pub prelude_lines: u32,
  pub rewritten: Option<String>,
}


/// The prelude for `namespaces`, then `program` rewritten to the stand-ins it uses, then the
/// `return None` a function body ends with (Monty's module would give its last expression's value).
pub fn shim(program: &str, namespaces: &[Namespace]) -> Shimmed {
  let mut prelude = String::new();
  let mut members = Vec::new();
  for namespace in namespaces {
    if let Some((_, member)) = &namespace.error_class {
      members.push(member.as_str());
    }
  }
  members.sort_unstable();
  members.dedup();
  let Rewritten { source: rewritten, mut pieces, str_methods } = rewrite(program, &members);
  if !namespaces.is_empty() {
    pieces.insert(Piece::Bindings);
  }
  // A program that never names `round` cannot call it: the stand-in is left out, as every piece
  // it does not use is, since each costs the run its parse.
  if program.contains("round") {
    pieces.insert(Piece::Round);
  }
  loop {
    let used: Vec<Piece> = pieces.iter().flat_map(|piece| piece.uses().iter().copied()).filter(|piece| !pieces.contains(piece)).collect();
    if used.is_empty() {
      break;
    }
    pieces.extend(used);
  }
  for (piece, source) in PIECES {
    if pieces.contains(&piece) {
      prelude.push_str(source);
    }
  }
  // In the prelude, so that a traceback through one leaves its frames out.
  for method in str_methods {
    prelude.push_str(&format!(
      "__dsh_str_{method} = __dsh_str_method(\"{method}\", lambda __dsh_self, *__dsh_args, **__dsh_kwargs: __dsh_self.{method}(*__dsh_args, **__dsh_kwargs))\n"
    ));
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
  let source = format!("{prelude}{}\nreturn None\n", rewritten.as_deref().unwrap_or(program));
  Shimmed { source, prelude_lines, rewritten }
}

/// `program`'s syntax, read by the parser Monty parses with; `None` when it does not parse, or nests
/// past what Monty's parser takes (Monty then refuses it in its own words; ruff's parser recurses).
pub fn parsed(program: &str) -> Option<Parsed<ModModule>> {
  if !monty::source_within_nesting_bound(program, 0) {
    return None;
  }
  ruff_python_parser::parse_module(program).ok()
}

/// The program as the prelude serves it (`None`: as it is), the pieces of the prelude it uses, and
/// the methods it reads from `str`, each made a function of the prelude's.
struct Rewritten {
  source: Option<String>,
  pieces: BTreeSet<Piece>,
  str_methods: BTreeSet<&'static str>,
}

/// Whether `program` holds `word` where a name starts, and ends unless `word` ends with a
/// punctuation mark (`json`, not `jsonify`; `str.`, not `substr.`).
fn names(program: &str, word: &str) -> bool {
  let identifier = |c: char| c.is_alphanumeric() || c == '_';
  let open_ended = !word.ends_with(identifier);
  program.match_indices(word).any(|(at, _)| {
    !program[..at].ends_with(identifier) && (open_ended || !program[at + word.len()..].starts_with(identifier))
  })
}

/// `program` with each read of an attribute named in `members` (`x.toolName`) made a call of
/// `__dsh_member(x, "toolName")`, each read of a name `EXTENSIONS` stands in for made the stand-in,
/// each call of `KEYWORD_CALLS` with its keyword (`json.dumps(x, default=str)`) and each call of a
/// class of `CALLS` (`timedelta(hours=1.5)`) made a call of its stand-in, each read of `callable`
/// made the stand-in's, each read of a method from `str` made a function, and each import of a
/// provided module or stand-in made assignments; as it is when it has no `parsed` syntax.
fn rewrite(program: &str, members: &[&str]) -> Rewritten {
  let unchanged = || Rewritten { source: None, pieces: Default::default(), str_methods: Default::default() };
  if !members.iter().any(|member| program.contains(member))
    && !EXTENSIONS.iter().any(|(module, ..)| names(program, module))
    && !MODULES.iter().any(|(name, _)| names(program, name))
    && !program.contains("import *")
    && !names(program, "str.")
    && !names(program, "callable")
    && !KEYWORD_CALLS.iter().any(|(module, _, keyword, ..)| names(program, module) && names(program, keyword))
    && !CALLS.iter().any(|(module, name, ..)| names(program, module) && names(program, name))
  {
    return unchanged();
  }
  let Some(parsed) = parsed(program) else {
    return unchanged();
  };
  struct Found<'m> {
    members: &'m [&'m str],
    modules: Vec<(String, &'static str)>,
    /// Whether `str` is the built-in type, which the program does not bind.
    builtin_str: bool,
    /// Whether `callable` is the built-in CPython has (Monty has none), which the program does not bind.
    builtin_callable: bool,
    /// The names bound to a class of `CALLS`, with the stand-in's name and piece.
    called: Vec<(String, &'static str, Piece)>,
    str_methods: BTreeSet<&'static str>,
    /// Member reads: (where the read starts, where its value ends, where it ends, the member).
    reads: Vec<(usize, usize, usize, &'m str)>,
    /// Spans to replace, and what replaces them.
    replaced: Vec<(usize, usize, String)>,
    pieces: BTreeSet<Piece>,
  }
  impl<'a> Found<'_> {
    /// The module of `EXTENSIONS` or `KEYWORD_CALLS` that `value` names, under the name the program
    /// imported it as.
    fn module_of(&self, value: &Expr) -> Option<&'static str> {
      let Expr::Name(module) = value else { return None };
      Some(self.modules.iter().find(|(bound, _)| bound == module.id.as_str())?.1)
    }

    /// The stand-in for `read`, when it reads a name a module of `EXTENSIONS` lacks.
    fn extension(&self, read: &ExprAttribute) -> Option<(&'static str, Piece)> {
      let module = self.module_of(&read.value)?;
      EXTENSIONS
        .iter()
        .find(|(of, name, ..)| *of == module && *name == read.attr.id.as_str())
        .map(|(_, _, stand_in, piece)| (*stand_in, *piece))
    }

    /// The stand-in for `call`, when it calls a function of `KEYWORD_CALLS` with its keyword.
    fn keyword_call(&self, call: &ExprCall) -> Option<(&'static str, Piece)> {
      let Expr::Attribute(callee) = &*call.func else { return None };
      let module = self.module_of(&callee.value)?;
      let (.., stand_in, piece) = KEYWORD_CALLS.iter().find(|(of, name, keyword, ..)| {
        *of == module
          && *name == callee.attr.id.as_str()
          && call.arguments.keywords.iter().any(|given| given.arg.as_ref().is_some_and(|arg| arg.as_str() == *keyword))
      })?;
      Some((stand_in, *piece))
    }

    /// The stand-in for `call`, when it calls a class of `CALLS`.
    fn class_call(&self, call: &ExprCall) -> Option<(&'static str, Piece)> {
      match &*call.func {
        Expr::Name(name) => self.called.iter().find(|(bound, ..)| bound == name.id.as_str()).map(|(_, stand_in, piece)| (*stand_in, *piece)),
        Expr::Attribute(read) => {
          let module = self.module_of(&read.value)?;
          CALLS.iter().find(|(of, name, ..)| *of == module && *name == read.attr.id.as_str()).map(|(.., stand_in, piece)| (*stand_in, *piece))
        }
        _ => None,
      }
    }

    /// Walks a call's arguments, whose callee is replaced.
    fn visit_arguments(&mut self, arguments: &'a Arguments) {
      for argument in &arguments.args {
        self.visit_expr(argument);
      }
      for keyword in &arguments.keywords {
        self.visit_expr(&keyword.value);
      }
    }
  }
  impl<'a> Visitor<'a> for Found<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
      if let Some(replacement) = import_replacement(stmt, &mut self.pieces) {
        // An import holds no other edit.
        self.replaced.push((stmt.start().to_usize(), stmt.end().to_usize(), replacement));
        return;
      }
      // A task the program does not keep would never start: refused, rather than left undone.
      if let Stmt::Expr(statement) = stmt
        && let Expr::Call(call) = &*statement.value
        && let Expr::Attribute(callee) = &*call.func
        && self.extension(callee).is_some_and(|(_, piece)| piece == Piece::Task)
      {
        self.pieces.insert(Piece::Task);
        self.replaced.push((callee.start().to_usize(), callee.end().to_usize(), "__dsh_task_unkept".to_owned()));
        self.visit_arguments(&call.arguments);
        return;
      }
      walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
      match expr {
        Expr::Attribute(read) if read.ctx == ExprContext::Load => {
          if let Some(member) = self.members.iter().find(|member| read.attr.id.as_str() == **member) {
            self.reads.push((read.start().to_usize(), read.value.end().to_usize(), read.end().to_usize(), member));
          } else if let Some((stand_in, piece)) = self.extension(read) {
            self.pieces.insert(piece);
            self.replaced.push((read.start().to_usize(), read.end().to_usize(), stand_in.to_owned()));
          } else if let Expr::Name(of) = &*read.value
            && of.id.as_str() == "str"
            && self.builtin_str
            && let Some(method) = STR_METHODS.iter().find(|method| **method == read.attr.id.as_str())
          {
            self.pieces.insert(Piece::StrMethod);
            self.str_methods.insert(method);
            self.replaced.push((read.start().to_usize(), read.end().to_usize(), format!("__dsh_str_{method}")));
            return;
          }
        }
        Expr::Name(read) if self.builtin_callable && read.ctx == ExprContext::Load && read.id.as_str() == "callable" => {
          self.pieces.insert(Piece::Callable);
          self.replaced.push((read.start().to_usize(), read.end().to_usize(), "__dsh_callable".to_owned()));
        }
        Expr::Call(call) if let Some((stand_in, piece)) = self.keyword_call(call).or_else(|| self.class_call(call)) => {
          self.pieces.insert(piece);
          self.replaced.push((call.func.start().to_usize(), call.func.end().to_usize(), stand_in.to_owned()));
          // The callee is a read of the module, and its arguments are the program's.
          self.visit_arguments(&call.arguments);
          return;
        }
        _ => {}
      }
      walk_expr(self, expr);
    }
  }
  let body = &parsed.syntax().body;
  let builtin_str = names(program, "str.") && bindings(body, "str") == 0;
  let mut found = Found {
    members,
    modules: module_names(body),
    builtin_str,
    builtin_callable: names(program, "callable") && bindings(body, "callable") == 0,
    called: called_names(body),
    str_methods: Default::default(),
    reads: Vec::new(),
    replaced: Vec::new(),
    pieces: Default::default(),
  };
  found.visit_body(body);
  // Edits from the end, so that each one's offsets still hold; an inner read starts where its
  // outer one does, and is found after it. A replaced span holds no other edit.
  let mut edits: Vec<(usize, usize, String)> = Vec::new();
  for (start, value_end, end, member) in found.reads {
    edits.push((value_end, end, format!(", {})", quote(member))));
    edits.push((start, start, "__dsh_member(".to_owned()));
  }
  for (start, end, replacement) in found.replaced {
    // A replaced statement keeps its lines, so that the program's line numbers hold: continued, so
    // that what follows it on its last line stays in the same statement line.
    let lines = program[start..end].matches('\n').count();
    edits.push((start, end, format!("{replacement}{}", " \\\n".repeat(lines))));
  }
  if edits.is_empty() {
    return Rewritten { source: None, pieces: found.pieces, str_methods: found.str_methods };
  }
  edits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
  let mut source = program.to_owned();
  for (from, to, text) in edits {
    source.replace_range(from..to, &text);
  }
  Rewritten { source: Some(source), pieces: found.pieces, str_methods: found.str_methods }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn rewrite_member_reads(program: &str, members: &[&str]) -> String {
    rewrite(program, members).source.unwrap_or_else(|| program.to_owned())
  }

  #[test]
  fn names_monty_lacks_become_the_preludes_stand_ins() {
    let rewritten = rewrite(
      "import asyncio, dataclasses as dc\nfrom dataclasses import dataclass, asdict as ad\nt = asyncio.create_task(f())\nu = asyncio.ensure_future(g())\nr = await asyncio.gather(t, u, return_exceptions=True)\nasyncio.gather(t)\nfor x in asyncio.as_completed([t]):\n    dc.fields(x)",
      &[],
    );
    assert_eq!(
      rewritten.source.as_deref(),
      Some("import asyncio, dataclasses as dc\nfrom dataclasses import dataclass; ad = __dsh_asdict\nt = __dsh_task(f())\nu = __dsh_task(g())\nr = await __dsh_gather(t, u, return_exceptions=True)\nasyncio.gather(t)\nfor x in __dsh_as_completed([t]):\n    __dsh_fields(x)")
    );
    assert_eq!(rewritten.pieces.into_iter().collect::<Vec<_>>(), [Piece::Task, Piece::Gather, Piece::AsCompleted, Piece::Dataclasses]);
    let unkept = rewrite("import asyncio\nasyncio.create_task(f(1))\nawait asyncio.create_task(f(2))", &[]);
    assert_eq!(unkept.source.as_deref(), Some("import asyncio\n__dsh_task_unkept(f(1))\nawait __dsh_task(f(2))"));
    let dumped = rewrite("import json as j\na = j.dumps(x)\nb = j.dumps(x, default=str, indent=2)", &[]);
    assert_eq!(dumped.source.as_deref(), Some("import json as j\na = j.dumps(x)\nb = __dsh_json_dumps(x, default=str, indent=2)"));
    assert_eq!(dumped.pieces.into_iter().collect::<Vec<_>>(), [Piece::Json]);
    // A name the program binds otherwise is its own.
    let untouched = rewrite("import trio as asyncio\nasyncio.create_task(f())\naio.create_task(f())", &[]);
    assert_eq!(untouched.source, None);
    assert!(untouched.pieces.is_empty());
  }

  #[test]
  fn reads_of_str_methods_from_the_type_become_functions_unless_the_program_binds_str() {
    let rewritten = rewrite("words.sort(key=str.lower)\nx = str.nope\ny = 'str.lower'", &[]);
    assert_eq!(
      rewritten.source.as_deref(),
      Some("words.sort(key=__dsh_str_lower)\nx = str.nope\ny = 'str.lower'")
    );
    assert_eq!(rewritten.pieces.into_iter().collect::<Vec<_>>(), [Piece::StrMethod]);
    assert_eq!(rewritten.str_methods.into_iter().collect::<Vec<_>>(), ["lower"]);
    let shimmed = shim("return str.upper('a')", &[]);
    assert!(shimmed.source.contains("\n__dsh_str_upper = __dsh_str_method(\"upper\", lambda __dsh_self, *__dsh_args, **__dsh_kwargs: __dsh_self.upper(*__dsh_args, **__dsh_kwargs))\nreturn __dsh_str_upper('a')\n"));
    for binding in ["str = bytes", "def f(str): pass", "import os as str", "for str in []: pass", "try:\n  pass\nexcept E as str:\n  pass", "class str: pass", "match x:\n  case [*str]: pass"] {
      assert_eq!(rewrite(&format!("{binding}\nreturn str.lower('A')"), &[]).source, None, "{binding}");
    }
  }

  #[test]
  fn calls_of_timedelta_become_the_stand_ins_and_the_class_stays() {
    let rewritten = rewrite("import datetime as dt\nfrom datetime import timedelta as td, date\na = td(hours=1.5)\nb = dt.timedelta(0.5)\nc = isinstance(a, td)", &[]);
    assert_eq!(
      rewritten.source.as_deref(),
      Some("import datetime as dt\nfrom datetime import timedelta as td, date\na = __dsh_timedelta(hours=1.5)\nb = __dsh_timedelta(0.5)\nc = isinstance(a, td)")
    );
    assert_eq!(rewritten.pieces.into_iter().collect::<Vec<_>>(), [Piece::Timedelta]);
    // A name bound again is the program's.
    assert_eq!(rewrite("from datetime import timedelta\ntimedelta = f\nx = timedelta(1)", &[]).source, None);
  }

  #[test]
  fn reads_of_callable_become_the_stand_ins_unless_the_program_binds_it() {
    let rewritten = rewrite("ok = [callable(f), list(filter(callable, xs))]", &[]);
    assert_eq!(rewritten.source.as_deref(), Some("ok = [__dsh_callable(f), list(filter(__dsh_callable, xs))]"));
    assert_eq!(rewritten.pieces.into_iter().collect::<Vec<_>>(), [Piece::Callable]);
    assert_eq!(rewrite("def callable(x):\n    return 1\nreturn callable(2)", &[]).source, None);
  }

  #[test]
  fn a_module_is_named_only_where_a_name_starts_and_ends() {
    assert!(!names("return result", "re"));
    assert!(names("import re\nx = re.sub", "re"));
    assert!(names("x = (str.lower)", "str."));
    assert!(!names("x = substr.lower", "str."));
    let imported = rewrite("from json import dumps, loads\nfrom asyncio import gather as g", &[]);
    assert_eq!(imported.source.as_deref(), Some("from json import loads; dumps = __dsh_json_dumps\ng = __dsh_gather"));
  }

  #[test]
  fn imports_of_provided_modules_become_assignments_and_keep_their_lines() {
    let rewritten = rewrite(
      "import json, statistics as st\nfrom statistics import (mean,\n  median as m, nope)\nimport math\ndef f():\n    import statistics\n",
      &[],
    );
    assert_eq!(
      rewritten.source.as_deref(),
      Some("import json; st = __dsh_statistics\nmean = __dsh_statistics.mean; m = __dsh_statistics.median; raise __dsh_ImportError(\"cannot import name 'nope' from 'statistics' (unknown location)\") \\\n\nimport math\ndef f():\n    statistics = __dsh_statistics\n")
    );
    assert_eq!(rewritten.pieces.into_iter().collect::<Vec<_>>(), [Piece::Statistics]);
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
  fn a_program_that_uses_no_stand_in_runs_with_no_prelude() {
    let shimmed = shim("return 1", &[]);
    assert_eq!((shimmed.source.as_str(), shimmed.prelude_lines), ("return 1\nreturn None\n", 0));
    assert!(shim("return round(2.5)", &[]).source.starts_with("__dsh_float, __dsh_int, __dsh_format, __dsh_type = float, int, format, type\n__dsh_round = round\n"));
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
