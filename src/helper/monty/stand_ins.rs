//! The stand-ins for what Monty lacks, in Python Monty runs (`stand_ins/`), and how a program's
//! imports of them are rewritten: the prelude's pieces, the names of Monty's modules that stand-ins
//! give (`asyncio.create_task`), and whole modules Monty lacks (`statistics`), each a `module`
//! object. shim.rs includes the pieces a program uses.

use std::collections::BTreeSet;

use ruff_python_ast::visitor::{Visitor, walk_except_handler, walk_expr, walk_parameter, walk_pattern, walk_stmt};
use ruff_python_ast::{Alias, ExceptHandler, Expr, ExprContext, Parameter, Pattern, Stmt};

/// The prelude's pieces a program may need, each included once, after the pieces it uses. Each
/// takes the built-ins it uses first, as `__dsh_<name>`: a namespace may be named as one of them,
/// and the program may rebind them.
pub const PIECES: [(Piece, &str); 23] = [
  (Piece::Bindings, include_str!("stand_ins/bindings.py")),
  (Piece::Round, include_str!("stand_ins/round.py")),
  (Piece::Asyncio, include_str!("stand_ins/asyncio.py")),
  (Piece::Task, include_str!("stand_ins/task.py")),
  (Piece::Gather, include_str!("stand_ins/gather.py")),
  (Piece::AsCompleted, include_str!("stand_ins/as_completed.py")),
  (Piece::Dataclasses, include_str!("stand_ins/dataclasses.py")),
  (Piece::Module, include_str!("stand_ins/module.py")),
  (Piece::Statistics, include_str!("stand_ins/statistics.py")),
  (Piece::Uuid, include_str!("stand_ins/uuid.py")),
  (Piece::Operator, include_str!("stand_ins/operator.py")),
  (Piece::Heapq, include_str!("stand_ins/heapq.py")),
  (Piece::String, include_str!("stand_ins/string.py")),
  (Piece::Secrets, include_str!("stand_ins/secrets.py")),
  (Piece::Html, include_str!("stand_ins/html.py")),
  (Piece::Contextlib, include_str!("stand_ins/contextlib.py")),
  (Piece::Textwrap, include_str!("stand_ins/textwrap.py")),
  (Piece::Callable, include_str!("stand_ins/callable.py")),
  (Piece::Re, include_str!("stand_ins/re.py")),
  (Piece::StrMethod, include_str!("stand_ins/str_method.py")),
  (Piece::Json, include_str!("stand_ins/json.py")),
  (Piece::AsyncioRun, include_str!("stand_ins/asyncio_run.py")),
  (Piece::Timedelta, include_str!("stand_ins/timedelta.py")),
];

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub enum Piece {
  Bindings,
  Round,
  Asyncio,
  Task,
  Gather,
  AsCompleted,
  Dataclasses,
  Module,
  Statistics,
  Uuid,
  Operator,
  Heapq,
  String,
  Secrets,
  Html,
  Contextlib,
  Textwrap,
  Callable,
  Re,
  StrMethod,
  Json,
  AsyncioRun,
  Timedelta,
}

impl Piece {
  /// The pieces this one uses.
  pub fn uses(self) -> &'static [Piece] {
    match self {
      Piece::Bindings | Piece::Round | Piece::Asyncio | Piece::Task | Piece::Dataclasses | Piece::Module | Piece::Callable | Piece::StrMethod | Piece::Json | Piece::AsyncioRun | Piece::Timedelta => &[],
      Piece::Re => &[Piece::Callable],
      Piece::Gather | Piece::AsCompleted => &[Piece::Asyncio],
      // Each of the rest is a module.
      _ => &[Piece::Module],
    }
  }
}

/// Names a module of Monty's lacks, or has otherwise than CPython (Monty's `re.sub` takes no
/// function; its `asyncio.run` runs a coroutine inside the program's, where CPython's refuses):
/// the module, the name, and the stand-in's name and piece.
pub const EXTENSIONS: [(&str, &str, &str, Piece); 9] = [
  ("asyncio", "create_task", "__dsh_task", Piece::Task),
  ("asyncio", "ensure_future", "__dsh_task", Piece::Task),
  ("asyncio", "as_completed", "__dsh_as_completed", Piece::AsCompleted),
  ("asyncio", "run", "__dsh_asyncio_run", Piece::AsyncioRun),
  ("dataclasses", "asdict", "__dsh_asdict", Piece::Dataclasses),
  ("dataclasses", "astuple", "__dsh_astuple", Piece::Dataclasses),
  ("dataclasses", "fields", "__dsh_fields", Piece::Dataclasses),
  ("re", "sub", "__dsh_re_sub", Piece::Re),
  ("re", "subn", "__dsh_re_subn", Piece::Re),
];

/// Calls with a keyword that Monty's function does not take: the module, the function, the keyword,
/// and the stand-in's name and piece, which a call with that keyword is made (and the function
/// itself, where the program imports it by name: the stand-in calls Monty's without the keyword).
pub const KEYWORD_CALLS: [(&str, &str, &str, &str, Piece); 2] = [
  ("asyncio", "gather", "return_exceptions", "__dsh_gather", Piece::Gather),
  ("json", "dumps", "default", "__dsh_json_dumps", Piece::Json),
];

/// Calls of a module's class that Monty's takes in part (its `timedelta` takes no float): the
/// module, the class, and the stand-in's name and piece, which calls of the class are made (as
/// `module.name(...)`, or under the name a `from` import binds, when nothing else binds it). The
/// class itself stays the program's, for `isinstance` and its attributes.
pub const CALLS: [(&str, &str, &str, Piece); 1] = [("datetime", "timedelta", "__dsh_timedelta", Piece::Timedelta)];

/// The methods of Monty's `str` (1.4.0), which its type does not give as functions (`str.lower`):
/// each read of one from the type is made a function of the `StrMethod` piece.
pub const STR_METHODS: [&str; 44] = [
  "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format", "index", "isalnum",
  "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower", "isnumeric", "isprintable", "isspace", "istitle",
  "isupper", "join", "ljust", "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex",
  "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "upper",
  "zfill",
];

/// The names of a module that a `from` import binds to a stand-in, which `EXTENSIONS` and
/// `KEYWORD_CALLS` give: the module, the name, and the stand-in's name and piece.
fn imported_stand_ins() -> impl Iterator<Item = (&'static str, &'static str, &'static str, Piece)> {
  let extensions = EXTENSIONS.iter().map(|(module, name, stand_in, piece)| (*module, *name, *stand_in, *piece));
  extensions.chain(KEYWORD_CALLS.iter().map(|(module, name, _, stand_in, piece)| (*module, *name, *stand_in, *piece)))
}

/// The public names of Monty's `math` module (1.4.0, which Cargo.toml pins).
const MATH_NAMES: [&str; 62] = [
  "pi", "e", "tau", "inf", "nan", "floor", "ceil", "trunc", "sqrt", "isqrt", "cbrt", "pow", "exp", "exp2", "expm1", "log",
  "log1p", "log2", "log10", "fabs", "isnan", "isinf", "isfinite", "copysign", "isclose", "nextafter", "ulp", "sin", "cos",
  "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "degrees", "radians",
  "factorial", "gcd", "lcm", "comb", "perm", "fmod", "remainder", "modf", "frexp", "ldexp", "gamma", "lgamma", "erf",
  "erfc", "hypot", "dist", "fsum", "prod", "sumprod", "fma",
];

/// Modules Monty lacks: each a `module` object, `__dsh_<name>`, whose attributes its piece assigns
/// as `__dsh_<name>.<attribute> = ...` at the start of a line.
pub const MODULES: [(&str, Piece); 9] = [
  ("statistics", Piece::Statistics),
  ("uuid", Piece::Uuid),
  ("operator", Piece::Operator),
  ("heapq", Piece::Heapq),
  ("string", Piece::String),
  ("secrets", Piece::Secrets),
  ("html", Piece::Html),
  ("contextlib", Piece::Contextlib),
  ("textwrap", Piece::Textwrap),
];

fn source_of(piece: Piece) -> &'static str {
  PIECES.iter().find(|(each, _)| *each == piece).map_or("", |(_, source)| source)
}

/// The attributes the piece of module `name` gives it.
fn module_attributes(name: &str, piece: Piece) -> impl Iterator<Item = &'static str> {
  let prefix = format!("__dsh_{name}.");
  source_of(piece).lines().filter_map(move |line| line.strip_prefix(prefix.as_str())?.split(" = ").next())
}

/// The program's names for the modules of `EXTENSIONS`, `KEYWORD_CALLS` and `CALLS`: each import of
/// one binds a name to it.
pub fn module_names(body: &[Stmt]) -> Vec<(String, &'static str)> {
  #[derive(Default)]
  struct Imports(Vec<(String, &'static str)>);
  impl<'a> Visitor<'a> for Imports {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
      if let Stmt::Import(import) = stmt {
        for alias in &import.names {
          let module = imported_stand_ins()
            .map(|(module, ..)| module)
            .chain(CALLS.iter().map(|(module, ..)| *module))
            .find(|module| *module == alias.name.as_str());
          if let Some(module) = module {
            self.0.push((alias.asname.as_ref().unwrap_or(&alias.name).to_string(), module));
          }
        }
      }
      walk_stmt(self, stmt);
    }
  }
  let mut imports = Imports::default();
  imports.visit_body(body);
  imports.0
}

/// The names a `from` import binds to a class of `CALLS` that nothing else in the program binds,
/// with the stand-in's name and piece.
pub fn called_names(body: &[Stmt]) -> Vec<(String, &'static str, Piece)> {
  #[derive(Default)]
  struct Imports(Vec<(String, &'static str, Piece)>);
  impl<'a> Visitor<'a> for Imports {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
      if let Stmt::ImportFrom(from) = stmt
        && from.level == 0
        && let Some(module) = &from.module
      {
        for alias in &from.names {
          if let Some((.., stand_in, piece)) = CALLS.iter().find(|(of, name, ..)| *of == module.as_str() && *name == alias.name.as_str()) {
            self.0.push((alias.asname.as_ref().unwrap_or(&alias.name).to_string(), stand_in, *piece));
          }
        }
      }
      walk_stmt(self, stmt);
    }
  }
  let mut imports = Imports::default();
  imports.visit_body(body);
  imports.0.retain(|(bound, ..)| bindings(body, bound) == 1);
  imports.0
}

/// How many times the program binds `name` (an assignment, a parameter, a definition, an import, a
/// handler's name, a pattern's capture); none, and a built-in of that name is the built-in.
pub fn bindings(body: &[Stmt], name: &str) -> usize {
  struct Binds<'n> {
    name: &'n str,
    found: usize,
  }
  impl<'a> Visitor<'a> for Binds<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
      match stmt {
        Stmt::FunctionDef(function) if function.name.as_str() == self.name => self.found += 1,
        Stmt::ClassDef(class) if class.name.as_str() == self.name => self.found += 1,
        _ => {}
      }
      walk_stmt(self, stmt);
    }
    fn visit_expr(&mut self, expr: &'a Expr) {
      if let Expr::Name(bound) = expr
        && bound.ctx != ExprContext::Load
        && bound.id.as_str() == self.name
      {
        self.found += 1;
      }
      walk_expr(self, expr);
    }
    fn visit_parameter(&mut self, parameter: &'a Parameter) {
      self.found += usize::from(parameter.name.as_str() == self.name);
      walk_parameter(self, parameter);
    }
    fn visit_alias(&mut self, alias: &'a Alias) {
      let bound = alias.asname.as_ref().unwrap_or(&alias.name);
      self.found += usize::from(bound.as_str() == self.name);
    }
    fn visit_except_handler(&mut self, handler: &'a ExceptHandler) {
      let ExceptHandler::ExceptHandler(handler_) = handler;
      self.found += usize::from(handler_.name.as_ref().is_some_and(|bound| bound.as_str() == self.name));
      walk_except_handler(self, handler);
    }
    fn visit_pattern(&mut self, pattern: &'a Pattern) {
      let captured = match pattern {
        Pattern::MatchAs(capture) => capture.name.as_ref(),
        Pattern::MatchStar(star) => star.name.as_ref(),
        Pattern::MatchMapping(mapping) => mapping.rest.as_ref(),
        _ => None,
      };
      self.found += usize::from(captured.is_some_and(|bound| bound.as_str() == self.name));
      walk_pattern(self, pattern);
    }
  }
  let mut binds = Binds { name, found: 0 };
  binds.visit_body(body);
  binds.found
}

/// What an import becomes when it names a module the runtime provides or a name a stand-in gives:
/// assignments of their objects, with the statement's other names imported as they were; `None`
/// for an import of neither.
pub fn import_replacement(stmt: &Stmt, pieces: &mut BTreeSet<Piece>) -> Option<String> {
  let mut replaced = false;
  let mut pieces_of_statement = Vec::new();
  match stmt {
    Stmt::Import(import) => {
      for alias in &import.names {
        let bound = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
        match MODULES.iter().find(|(name, _)| *name == alias.name.as_str()) {
          Some((name, piece)) => {
            replaced = true;
            pieces.insert(*piece);
            pieces_of_statement.push(format!("{bound} = __dsh_{name}"));
          }
          None => pieces_of_statement.push(match &alias.asname {
            Some(asname) => format!("import {} as {asname}", alias.name.as_str()),
            None => format!("import {}", alias.name.as_str()),
          }),
        }
      }
    }
    Stmt::ImportFrom(from) if from.level == 0 => {
      let module = from.module.as_ref()?.as_str();
      // Monty takes no `*`: for `math`, the names its module has, spelt out.
      if module == "math" && from.names.iter().any(|alias| alias.name.as_str() == "*") && from.names.len() == 1 {
        return Some(format!("from math import {}", MATH_NAMES.join(", ")));
      }
      if let Some((name, piece)) = MODULES.iter().find(|(name, _)| *name == module) {
        replaced = true;
        pieces.insert(*piece);
        for alias in &from.names {
          let attribute = alias.name.as_str();
          let bound = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
          pieces_of_statement.push(if module_attributes(name, *piece).any(|known| known == attribute) {
            format!("{bound} = __dsh_{name}.{attribute}")
          } else {
            // As CPython words it; `*` too, which a provided module does not take.
            format!("raise __dsh_ImportError(\"cannot import name '{attribute}' from '{name}' (unknown location)\")")
          });
        }
      } else {
        let mut kept = Vec::new();
        for alias in &from.names {
          let bound = alias.asname.as_ref().unwrap_or(&alias.name).as_str();
          match imported_stand_ins().find(|(of, name, ..)| *of == module && *name == alias.name.as_str()) {
            Some((_, _, stand_in, piece)) => {
              replaced = true;
              pieces.insert(piece);
              pieces_of_statement.push(format!("{bound} = {stand_in}"));
            }
            None => kept.push(match &alias.asname {
              Some(asname) => format!("{} as {asname}", alias.name.as_str()),
              None => alias.name.to_string(),
            }),
          }
        }
        if !kept.is_empty() {
          pieces_of_statement.insert(0, format!("from {module} import {}", kept.join(", ")));
        }
      }
    }
    _ => {}
  }
  replaced.then(|| pieces_of_statement.join("; "))
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_star_import_of_math_names_each_of_its_names() {
    let parsed = ruff_python_parser::parse_module("from math import *").expect("parses");
    let mut pieces = BTreeSet::new();
    let replacement = import_replacement(&parsed.syntax().body[0], &mut pieces).expect("replaced");
    assert!(replacement.starts_with("from math import pi, e, tau, inf, nan, floor, ") && replacement.ends_with(", fma"));
    assert!(pieces.is_empty());
  }

  #[test]
  fn a_built_in_a_piece_replaces_is_kept_under_its_own_name_by_that_piece_alone() {
    // `round.py` keeps the built-in as `__dsh_round`, then defines `round`: a piece after it that
    // took `round` as `__dsh_round` too would make the stand-in call itself.
    let replaced: Vec<&str> = PIECES
      .iter()
      .flat_map(|(_, source)| source.lines())
      .filter_map(|line| line.strip_prefix("def ")?.split('(').next())
      .filter(|name| !name.starts_with("__dsh_"))
      .collect();
    assert_eq!(replaced, ["round"]);
    for (piece, source) in PIECES {
      for name in &replaced {
        let keeps = source.lines().any(|line| line.starts_with("__dsh_") && line.contains(&format!("__dsh_{name}")) && line.contains(" = "));
        assert!(!keeps || piece == Piece::Round, "{piece:?} keeps {name} as __dsh_{name}");
      }
    }
  }

  #[test]
  fn a_modules_attributes_are_those_its_piece_assigns() {
    let attributes: Vec<&str> = module_attributes("statistics", Piece::Statistics).collect();
    assert!(attributes.contains(&"mean") && attributes.contains(&"pstdev") && attributes.contains(&"StatisticsError"));
    assert!(!attributes.contains(&"geometric_mean"));
    // Every module's piece gives it something, and every piece is in the prelude's list.
    for (name, piece) in MODULES {
      assert!(module_attributes(name, piece).count() > 0, "{name}");
    }
    for piece in imported_stand_ins().map(|(.., piece)| piece).chain(CALLS.iter().map(|(.., piece)| *piece)) {
      assert!(PIECES.iter().any(|(each, _)| *each == piece), "{piece:?}");
    }
  }
}
