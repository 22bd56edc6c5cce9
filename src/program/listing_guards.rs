//! Routes the three places where V8 lists a value's keys in C++, with no way to stop it, through
//! guards of the world: a `for-in` loop's subject, an object spread's source and the value an
//! object rest pattern copies from.
//!
//! For a long string, array or typed array those listings make one string per element, past the
//! heap cap and for seconds after the run has ended (`for (k in new Uint8Array(2 ** 25))` grew the
//! host by 1.3 GB at a 64 MB cap). No function of the world is called there, so the program's text
//! is changed: `for (k in v)` stays V8's own, inside a loop put before it that passes `v` through a
//! guard once; the guard gives back `v` itself when V8 may list it, and otherwise a stand-in whose
//! keys the world lists in JavaScript a part at a time, the loop running the for-in once per part (a
//! for-in whose left side has an object rest becomes `for (k of forIn(v))`). A literal's last spread,
//! when what follows it runs none of the program's code, copies a long value in JavaScript:
//! `{a, ...v, b: 1}` becomes `copied({a, ...spread(v, 3), b: 1}, '["b"]')`, given the keys after it.
//! Any other spread, `{...v, b: f()}`, becomes `{...spread(v), b: f()}`, which refuses a long value.
//! An object rest's source
//! goes through the same refusal: a declaration's or an assignment's value, each value of a for-of
//! whose head has one, and a parameter, read through the parameter guard. An object rest no rewrite
//! reaches (inside another pattern, in a catch clause or a setter) makes the program refused. The
//! guards are bound around the program's function under names no identifier of the program uses, so
//! the program can neither see nor replace them.
//!
//! Every loop's body also calls a poll first. A loop whose body only throws from V8's runtime (which
//! names the call site by parsing the function again) or calls a built-in that never enters
//! JavaScript polls for termination only when its tiering budget runs out, and never in a function
//! past 60 KB of bytecode; entering the poll's function polls.
//!
//! A one-argument `new Array(n)` or `Array(n)` passes `n` to a guard first: V8 gives an array of up
//! to 2^25 elements its whole backing store in one request (`new Array(2 ** 24)` is 128 MB whatever
//! the heap cap), which the near-limit hook must let through; the guard ends the run as the heap's
//! before a request the cap could never hold. Left alone where the program binds the name `Array`.
//!
//! Insertions move the columns after them on their line; `ColumnShifts` moves a stack frame's
//! column back to the program's own.

use std::collections::{HashMap, HashSet};

use swc_common::sync::Lrc;
use swc_common::{BytePos, FileName, SourceMap, Span, Spanned};
use swc_ecma_ast::{
  ArrayPat, ArrowExpr, AssignExpr, AssignTarget, AssignTargetPat, BindingIdent, CallExpr, Callee, ClassDecl,
  ClassExpr, ClassMethod, Constructor, DoWhileStmt, EsVersion, Expr, ExprOrSpread, FnDecl, FnExpr, ForHead,
  ForInStmt, ForOfStmt, ForStmt, Function, Ident, LabeledStmt, Lit, MethodKind, NewExpr, ObjectLit,
  ObjectPat, ObjectPatProp, ParamOrTsParamProp, Pat, PrivateMethod, Prop, PropName, PropOrSpread, SetterProp,
  Stmt, TryStmt, UnaryOp, VarDeclarator, WhileStmt,
};
use swc_ecma_parser::{EsSyntax, Syntax, parse_file_as_script};
use swc_ecma_visit::{Visit, VisitWith};

use crate::program::call_site::{
  Source, array_message, destructure_message, for_of_message, number_text, object_message,
};
use crate::program::own_text::Change;

/// Parsed as the body of an async function, as the eraser parses it, so top-level `return` and
/// `await` parse.
const PREFIX: &str = "async function __dsh_program__() {\n";
const SUFFIX: &str = "\n}";

/// How the guards' names begin.
const NAME_PREFIX: &str = "__dsh_";

/// The guards' names, as the program's text calls them.
#[derive(Debug, PartialEq, Eq)]
pub struct GuardNames {
  /// Lists the keys of a for-in whose left side destructures them with an object rest.
  pub for_in: String,
  /// Takes any other for-in's subject, and then the stand-in it gave, if any, after each pass.
  pub for_in_subject: String,
  pub for_in_next: String,
  /// The variable of the loop around such a for-in that holds what it iterates.
  pub for_in_value: String,
  pub spread: String,
  /// Guards each value a for-of with an object rest in its head destructures.
  pub each: String,
  /// The same for a for-await.
  pub each_async: String,
  /// Reads a parameter for a function with an object rest among its parameters.
  pub parameter: String,
  /// How the parameters that keep such a function's `length` begin (a number follows).
  pub argument: String,
  /// Called first in every loop's body.
  pub poll: String,
  /// The value a try block throws, passed to the spread guard before a catch clause with an object
  /// rest destructures it.
  pub thrown: String,
  /// A setter's one argument, when its parameter's object rest is reached through the spread guard.
  pub setter_value: String,
  /// Takes the length a one-argument `new Array` or `Array` call is given.
  pub array_length: String,
  /// Takes the object of a literal whose last spread's long source is copied into it.
  pub copied: String,
}

/// How a program's listings were guarded: the names its text calls, where its columns moved, and
/// what changed at which UTF-16 offset of the guarded text (for a function's own source).
#[derive(Debug, PartialEq, Eq)]
pub struct Guards {
  pub names: GuardNames,
  pub shifts: ColumnShifts,
  pub changes: Vec<(u32, Change)>,
}

/// Text inserted into the program: on each line (1-based, as V8 counts), the program's own column
/// (0-based, in UTF-16 units) where it went and how many units it took, in order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ColumnShifts(Vec<(u32, Vec<(u32, u32)>)>);

impl ColumnShifts {
  /// The program's own 1-based column for V8's `column` on `line`; a column inside inserted text
  /// reads as the place it was inserted.
  pub fn original_column(&self, line: u32, column: u32) -> u32 {
    let Ok(at) = self.0.binary_search_by_key(&line, |(line, _)| *line) else {
      return column;
    };
    let mut moved = 0;
    for &(inserted_at, length) in &self.0[at].1 {
      let shifted = inserted_at + moved;
      if column <= shifted {
        break;
      }
      if column <= shifted + length {
        return inserted_at + 1;
      }
      moved += length;
    }
    column - moved
  }
}

/// Whether `word` is in the text as a word. A false positive costs only a parse, so only ASCII
/// letters, digits, `_` and `$` bound it (a non-ASCII neighbour may be a space, as U+00A0 and U+FEFF
/// are in JavaScript).
fn has_word(code: &str, word: &str) -> bool {
  let identifier = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'$';
  let bytes = code.as_bytes();
  code.match_indices(word).any(|(at, _)| {
    (at == 0 || !identifier(bytes[at - 1]))
      && bytes.get(at + word.len()).is_none_or(|&next| !identifier(next))
  })
}

/// Whether the text can hold a listing to guard: a `...`, or the word `in`.
fn may_list(code: &str) -> bool {
  code.contains("...") || has_word(code, "in")
}

/// Whether the text can hold a loop.
fn may_loop(code: &str) -> bool {
  ["for", "while", "do"].iter().any(|word| has_word(code, word))
}

/// The global constructor whose one-argument calls the array guard takes.
const ARRAY: &str = "Array";

/// The syntax of what V8 15 takes that the eraser lets through (decorators, which V8 then refuses in
/// its own words; `using` declarations).
fn syntax() -> Syntax {
  Syntax::Es(EsSyntax {
    decorators: true,
    explicit_resource_management: true,
    ..EsSyntax::default()
  })
}

/// `code` with its listings guarded, or `None` when it has none. `taken` are names bound around the
/// program too. A program that can list but cannot be read again, or whose for-in the rewrite
/// cannot find the `in` of, is refused: left as it is, its listings would go unguarded.
pub fn guard_listings(code: &str, taken: &[String]) -> Result<Option<(String, Guards)>, String> {
  let must_guard = may_list(code) || may_loop(code);
  if !must_guard && !has_word(code, ARRAY) {
    return Ok(None);
  }
  let source_map: Lrc<SourceMap> = Default::default();
  let file = source_map.new_source_file(Lrc::new(FileName::Anon), format!("{PREFIX}{code}{SUFFIX}"));
  let mut recovered = Vec::new();
  let script = parse_file_as_script(&file, syntax(), EsVersion::latest(), None, &mut recovered);
  let unreadable = |error: &swc_ecma_parser::error::Error| {
    format!(
      "the program could not be read again to guard its for-in loops and object spreads: {}",
      error.kind().msg()
    )
  };
  let script = match (script, recovered.first()) {
    (Ok(script), None) => script,
    // Only arrays' lengths would have been guarded: V8 makes the array as it always has.
    _ if !must_guard => return Ok(None),
    (Ok(_), Some(error)) => return Err(unreadable(error)),
    (Err(error), _) => return Err(unreadable(&error)),
  };
  let mut finder = Finder::default();
  script.visit_with(&mut finder);
  if !finder.binds_array {
    finder.edits.append(&mut finder.array_lengths);
  }
  if finder
    .rests
    .iter()
    .any(|rest| !finder.guarded_rests.contains(rest))
  {
    return Err(UNGUARDED_REST.to_owned());
  }
  if finder.edits.is_empty() && finder.loop_bodies.is_empty() {
    return Ok(None);
  }
  let mut used: HashSet<&str> = finder.identifiers.iter().map(String::as_str).collect();
  used.extend(taken.iter().map(String::as_str));
  let names = GuardNames {
    for_in: unused_name(&format!("{NAME_PREFIX}forIn"), &used),
    for_in_subject: unused_name(&format!("{NAME_PREFIX}forInSubject"), &used),
    for_in_next: unused_name(&format!("{NAME_PREFIX}forInNext"), &used),
    for_in_value: unused_name(&format!("{NAME_PREFIX}forInValue"), &used),
    spread: unused_name(&format!("{NAME_PREFIX}spread"), &used),
    each: unused_name(&format!("{NAME_PREFIX}spreadEach"), &used),
    each_async: unused_name(&format!("{NAME_PREFIX}spreadEachAsync"), &used),
    parameter: unused_name(&format!("{NAME_PREFIX}parameter"), &used),
    argument: unused_prefix(&format!("{NAME_PREFIX}argument"), &used),
    poll: unused_name(&format!("{NAME_PREFIX}poll"), &used),
    thrown: unused_name(&format!("{NAME_PREFIX}thrown"), &used),
    setter_value: unused_name(&format!("{NAME_PREFIX}setterValue"), &used),
    array_length: unused_name(&format!("{NAME_PREFIX}arrayLength"), &used),
    copied: unused_name(&format!("{NAME_PREFIX}copied"), &used),
  };
  let mut edits = finder.edits;
  edits.extend(finder.loop_bodies.into_iter().map(|body| Edit::Poll { body }));
  let base = file.start_pos.0 as usize + PREFIX.len();
  apply(code, names, base, edits).map(Some)
}

/// Whether code made from a string at run time (`eval`, `Function`) holds a for-in, an object
/// spread or an object rest pattern, which no rewrite guards there; code swc cannot read counts as
/// holding one when its text could (V8 and swc may read it differently).
pub fn lists_keys(code: &str) -> bool {
  if !may_list(code) {
    return false;
  }
  let source_map: Lrc<SourceMap> = Default::default();
  let file = source_map.new_source_file(Lrc::new(FileName::Anon), code.to_owned());
  let mut recovered = Vec::new();
  let Ok(script) = parse_file_as_script(&file, syntax(), EsVersion::latest(), None, &mut recovered) else {
    return true;
  };
  let mut finder = Finder::default();
  script.visit_with(&mut finder);
  !recovered.is_empty() || !finder.edits.is_empty() || !finder.rests.is_empty()
}

/// The spread guard's shape for a spread whose long source is copied into its literal's object
/// once V8 has made it (COPIED_LATER in src/js/listing_guards.js).
const COPIED_LATER: &str = "3";

/// Why a program with an object rest the rewrite cannot reach is refused.
const UNGUARDED_REST: &str = "an object rest pattern inside an object pattern that is an array pattern's rest element \
  is not supported here: V8 would copy its source in one step that cannot be stopped (destructure the value in a \
  statement of its own)";

fn unused_name(wanted: &str, used: &HashSet<&str>) -> String {
  let mut name = wanted.to_owned();
  while used.contains(name.as_str()) {
    name.push('_');
  }
  name
}

/// A prefix that begins no name in `used`, so that it can be followed by anything.
fn unused_prefix(wanted: &str, used: &HashSet<&str>) -> String {
  let mut prefix = wanted.to_owned();
  while used.iter().any(|name| name.starts_with(prefix.as_str())) {
    prefix.push('_');
  }
  prefix
}

/// What to insert where, by byte offset in the parsed text.
enum Edit {
  /// A for-in stays V8's own, inside a loop put before it (and its labels, at `start`) that takes
  /// its subject through the subject guard once: the loop runs once over a value V8 may list, and
  /// once for each part of a stand-in the guard gives for any other (see src/js/listing_guards.js).
  NativeForIn {
    start: BytePos,
    subject: Span,
    sequence: bool,
  },
  /// `in` at `keyword` becomes `of`, and the subject is passed to the for-in guard: for a left side
  /// that destructures each key with an object rest.
  ForIn {
    keyword: BytePos,
    subject: Span,
    sequence: bool,
    /// A left side that is the bare name `async`, put in parentheses: `for (async of` cannot start
    /// a for-of.
    bare_async: Option<Span>,
    /// The shape of a left side with an object rest, which destructures each key.
    shape: Option<String>,
  },
  /// The value is passed to the spread guard, with the shape of the pattern that destructures it
  /// when that has an object rest.
  Copied {
    value: Span,
    sequence: bool,
    /// The guard's further arguments, for a pattern's value: its shape, and for a declaration's or
    /// an assignment's value the message argument (src/program/call_site.rs).
    more: Option<String>,
  },
  /// A for-of's iterable, whose values its head's object rests copy, is passed to the guard of
  /// each (of a for-await's, for one), with the head's shape and the message argument for a value
  /// that is not iterable.
  Each { iterable: Span, more: String, awaited: bool },
  /// A try statement whose catch clause destructures with an object rest: the try block is put in
  /// one of its own whose catch passes the thrown value to the spread guard and throws what the
  /// guard gives.
  Catch { block: Span, shape: String },
  /// A function with an object rest in a parameter: from that parameter on, the parameters become
  /// the properties of an object pattern over a rest parameter, each read by the parameter guard,
  /// which checks the value the object rest copies. Parameters that count in the function's
  /// `length` are kept as plain names in front of it.
  Parameters {
    /// Each parameter's span from the first with an object rest, with how it is read.
    read: Vec<(Span, Read)>,
    /// The index of the first, and the function's `length`.
    first: usize,
    length: usize,
    /// The end of the last parameter; the list's `)` follows.
    end: BytePos,
  },
  /// A setter whose parameter has an object rest (it may not become a rest parameter): its body
  /// becomes an arrow function that takes the parameter's pattern, called with the setter's one
  /// argument as the spread guard gives it back: `set v(p) { return ((PATTERN) => BODY)(guard(p)) }`.
  Setter {
    param: Span,
    /// Where the parameter list's `)` is searched for from, and where the body ends.
    end: BytePos,
    body_end: BytePos,
    /// The guard's further arguments: the pattern's shape and the message argument.
    more: String,
    /// The pattern has a default: the setter's parameter gets one too, so that `length` stays 0.
    defaulted: bool,
  },
  /// An object literal whose last spread's source the spread guard (given the shape
  /// `COPIED_LATER`) may leave in it is passed to the guard that copies a long source into it, with
  /// the keys the members after that spread define, which the copy leaves as they are.
  CopiedLiteral { literal: Span, after: Vec<String> },
  /// A loop's body becomes a block that calls the poll first.
  Poll { body: Span },
  /// The one argument of `new Array(…)` or `Array(…)` (never a bare sequence) is passed to the
  /// array guard.
  ArrayLength { value: Span },
}

/// How a rewritten parameter is read.
#[derive(Clone, PartialEq, Eq)]
enum Read {
  Plain,
  /// A pattern with an object rest: the value is passed to the spread guard first, with the
  /// pattern's shape and the message argument for a value it cannot destructure.
  Checked(String, String),
  /// The rest parameter.
  Rest,
}

#[derive(Default)]
struct Finder {
  edits: Vec<Edit>,
  identifiers: Vec<String>,
  /// Where every object pattern with a rest starts, and those of them a guard reaches.
  rests: Vec<BytePos>,
  guarded_rests: HashSet<BytePos>,
  /// The next function visited is a setter's, whose one parameter cannot become a rest parameter.
  setter: bool,
  /// Every loop's body, in the order visited (inner loops first).
  loop_bodies: Vec<Span>,
  /// The array guard's edits, kept apart: made only if no binding of the program is named `Array`.
  array_lengths: Vec<Edit>,
  binds_array: bool,
  /// Where each labelled for-in's first label starts, by where the for-in starts.
  labelled_for_ins: HashMap<BytePos, BytePos>,
}

fn is_sequence(expr: &Expr) -> bool {
  matches!(expr, Expr::Seq(_))
}

fn has_rest(pattern: &ObjectPat) -> bool {
  pattern
    .props
    .iter()
    .any(|prop| matches!(prop, ObjectPatProp::Rest(_)))
}

/// The keys that `members`, which follow a literal's last spread, define, when evaluating them runs
/// none of the program's code: the spread's source is then copied after them as it would have
/// been before them. `None` for a spread, a computed key, or a value that may run code (a call, a
/// member read, a class).
fn quiet_keys(members: &[PropOrSpread]) -> Option<Vec<String>> {
  let mut keys = Vec::new();
  for member in members {
    let PropOrSpread::Prop(member) = member else {
      return None;
    };
    let key = match &**member {
      Prop::Shorthand(name) => name.sym.to_string(),
      // `__proto__: v` sets the prototype and defines no key.
      Prop::KeyValue(pair) if is_proto(&pair.key) => {
        if !is_quiet(&pair.value) {
          return None;
        }
        continue;
      }
      Prop::KeyValue(pair) if is_quiet(&pair.value) => defined_key(&pair.key)?,
      Prop::Getter(getter) => defined_key(&getter.key)?,
      Prop::Setter(setter) => defined_key(&setter.key)?,
      Prop::Method(method) => defined_key(&method.key)?,
      Prop::KeyValue(_) | Prop::Assign(_) => return None,
    };
    keys.push(key);
  }
  Some(keys)
}

fn is_proto(key: &PropName) -> bool {
  match key {
    PropName::Ident(name) => &*name.sym == "__proto__",
    PropName::Str(text) => text.value.as_str() == Some("__proto__"),
    _ => false,
  }
}

/// The property key a non-computed member's name defines.
fn defined_key(key: &PropName) -> Option<String> {
  match key {
    PropName::Ident(name) => Some(name.sym.to_string()),
    PropName::Str(text) => text.value.as_str().map(str::to_owned),
    PropName::Num(number) => Some(number_text(number.value)),
    PropName::BigInt(number) => Some(number.value.to_string()),
    PropName::Computed(_) => None,
  }
}

/// Whether evaluating `value` runs none of the program's code: a literal, a name, `this`, a
/// template with no substitutions, a function or arrow, `!`, `typeof` or `void` of such a value, and
/// object and array literals of them with no spread. (A name bound to an accessor of the global
/// object would run its getter, as a name does anywhere.)
fn is_quiet(value: &Expr) -> bool {
  match value {
    Expr::Lit(_) | Expr::Ident(_) | Expr::This(_) | Expr::Fn(_) | Expr::Arrow(_) => true,
    Expr::Tpl(template) => template.exprs.is_empty(),
    // `-` of anything but a number would convert it, which may call its `valueOf`.
    Expr::Unary(unary) => match unary.op {
      UnaryOp::Minus => matches!(&*unary.arg, Expr::Lit(Lit::Num(_) | Lit::BigInt(_))),
      UnaryOp::Bang | UnaryOp::TypeOf | UnaryOp::Void => is_quiet(&unary.arg),
      _ => false,
    },
    Expr::Object(object) => quiet_keys(&object.props).is_some(),
    Expr::Array(array) => array
      .elems
      .iter()
      .flatten()
      .all(|element| element.spread.is_none() && is_quiet(&element.expr)),
    Expr::Paren(inner) => is_quiet(&inner.expr),
    _ => false,
  }
}

impl Finder {
  /// Passes the argument of a call of `callee` with `args` to the array guard, if that is a
  /// one-argument call of `Array`.
  fn guard_array_length(&mut self, callee: &Expr, args: &[ExprOrSpread]) {
    if let (Expr::Ident(name), [argument]) = (callee, args)
      && &*name.sym == ARRAY
      && argument.spread.is_none()
    {
      self.array_lengths.push(Edit::ArrayLength {
        value: argument.expr.span(),
      });
    }
  }

  fn binds(&mut self, name: &Ident) {
    self.binds_array |= &*name.sym == ARRAY;
  }

  /// How the spread guard reaches the object rests of `pattern` (src/js/listing_guards.js), or
  /// `None` when it has none. `1`: the value is checked, as an object rest copies it. `[0,own,…]`:
  /// an object pattern's value is mirrored, so that the value of its property at each position is
  /// passed on with the shape of the pattern that destructures it (`own` is 1 when the pattern has
  /// a rest of its own, which copies the value). `[1,0,…]`: the same for an array pattern's
  /// elements. A default of a pattern with a shape passes through the guard too. The rests found
  /// are marked guarded, except those under an array pattern's rest element, whose array V8 makes
  /// and copies itself: left unguarded, they make the program refused.
  fn shape_of(&mut self, pattern: &Pat) -> Option<String> {
    match pattern {
      Pat::Object(object) => self.object_shape(object),
      Pat::Array(array) => self.array_shape(array),
      Pat::Assign(assign) => {
        let shape = self.shape_of(&assign.left)?;
        self.edits.push(Edit::Copied {
          value: assign.right.span(),
          sequence: is_sequence(&assign.right),
          more: Some(shape.clone()),
        });
        Some(shape)
      }
      _ => None,
    }
  }

  fn object_shape(&mut self, object: &ObjectPat) -> Option<String> {
    let own = has_rest(object);
    if own {
      self.guarded_rests.insert(object.span.lo);
    }
    let children: Vec<Option<String>> = object
      .props
      .iter()
      .filter_map(|prop| match prop {
        ObjectPatProp::KeyValue(property) => Some(self.shape_of(&property.value)),
        ObjectPatProp::Assign(_) => Some(None),
        ObjectPatProp::Rest(_) => None,
      })
      .collect();
    match mirrored(0, own, children) {
      None if own => Some("1".to_owned()),
      shape => shape,
    }
  }

  /// An array pattern's shape marks with `2` each element without one whose destructuring may run
  /// the program's code (a pattern's getters, a default, a setter of an assignment's target): the
  /// guard checks an element in place only where nothing of the program runs before V8 reads it.
  ///
  /// A rest element's array is V8's own, made of the values from its position on: an array pattern
  /// there takes them as if they followed in the outer pattern (their shapes follow on), and an
  /// object pattern there copies the array with its own rest. The shape's second field then says
  /// `[at, copied, iterated]`: the values from position `at` make the array, which an object rest
  /// copies (the guard lets through at most LONG_COPY of them) or V8 iterates again (the guard
  /// checks, after the last value, that V8's array iteration is still its own).
  fn array_shape(&mut self, array: &ArrayPat) -> Option<String> {
    let (children, rest) = self.array_children(array);
    let Some(RestArray { at, copied, iterated }) = rest else {
      return mirrored(1, false, children);
    };
    let children: Vec<String> = children
      .into_iter()
      .map(|child| child.unwrap_or_else(|| "0".to_owned()))
      .collect();
    Some(format!(
      "[1,[{at},{},{}]{}{}]",
      u8::from(copied),
      u8::from(iterated),
      if children.is_empty() { "" } else { "," },
      children.join(",")
    ))
  }

  /// The shapes of an array pattern's elements, followed by those of an array pattern in its rest
  /// element, and what V8 does with the array its rest element makes, if the guard must know.
  fn array_children(&mut self, array: &ArrayPat) -> (Vec<Option<String>>, Option<RestArray>) {
    let mut children = Vec::new();
    let mut rest = None;
    for element in &array.elems {
      let shape = match element {
        Some(Pat::Rest(element)) => {
          let at = children.len();
          match &*element.arg {
            Pat::Array(inner) => {
              let (inner_children, inner_rest) = self.array_children(inner);
              let guarded = inner_rest.is_some() || inner_children.iter().any(Option::is_some);
              children.extend(inner_children);
              if guarded {
                rest = Some(RestArray {
                  at: at + inner_rest.as_ref().map_or(0, |inner| inner.at),
                  copied: inner_rest.as_ref().is_some_and(|inner| inner.copied),
                  iterated: true,
                });
              }
            }
            // Only its own rest, which the guard bounds: a rest further in, whose value V8 reads
            // from the array by key, is left to the refusal.
            Pat::Object(object) if has_rest(object) && !object.props.iter().any(|prop| match prop {
              ObjectPatProp::KeyValue(property) => holds_object_rest(&property.value),
              _ => false,
            }) =>
            {
              self.guarded_rests.insert(object.span.lo);
              rest = Some(RestArray { at, copied: true, iterated: false });
            }
            _ => {}
          }
          continue;
        }
        None => None,
        Some(element) => {
          let shape = self.shape_of(element);
          match element {
            Pat::Ident(_) => shape,
            _ => shape.or_else(|| Some(RUNS_CODE.to_owned())),
          }
        }
      };
      children.push(shape);
    }
    // Elements that only run code are no one's concern unless a shape or a rest follows them.
    if rest.is_none() && children.iter().all(|child| child.is_none() || child.as_deref() == Some(RUNS_CODE)) {
      children.clear();
    }
    (children, rest)
  }

  /// Routes a parameter list with an object rest through the parameter guard.
  fn guard_parameters<'a>(&mut self, params: impl Iterator<Item = &'a Pat>) {
    let params: Vec<&Pat> = params.collect();
    let mut shapes: Vec<Option<String>> = params.iter().map(|param| self.shape_of(param)).collect();
    let Some(first) = shapes.iter().position(Option::is_some) else {
      return;
    };
    let length = params
      .iter()
      .position(|param| matches!(param, Pat::Assign(_) | Pat::Rest(_)))
      .unwrap_or(params.len());
    let mut read = Vec::new();
    for (param, shape) in params[first..].iter().zip(shapes.drain(first..)) {
      let how = match (shape, param) {
        (Some(shape), _) => Read::Checked(
          shape,
          destructure_message(param, Source::Argument).unwrap_or_else(|| "void 0".to_owned()),
        ),
        (None, Pat::Rest(_)) => Read::Rest,
        (None, _) => Read::Plain,
      };
      // An arrow's rest parameter starts at its name, after the `...`.
      let span = match param {
        Pat::Rest(rest) => Span::new(rest.dot3_token.lo.min(rest.span.lo), rest.span.hi),
        _ => param.span(),
      };
      read.push((span, how));
    }
    self.edits.push(Edit::Parameters {
      read,
      first,
      length,
      end: params[params.len() - 1].span().hi,
    });
  }
}

/// The pattern a for-in's or for-of's left side destructures each value with.
fn head_pattern(head: &ForHead) -> Option<&Pat> {
  match head {
    ForHead::VarDecl(declaration) => declaration.decls.first().map(|declarator| &declarator.name),
    ForHead::Pat(pattern) => Some(pattern),
    ForHead::UsingDecl(_) => None,
  }
}

/// The shape of an array pattern's element that has none but may run the program's code.
const RUNS_CODE: &str = "2";

/// The array a rest element makes of the values from position `at` on: copied by an object rest,
/// iterated by V8 for an array pattern.
struct RestArray {
  at: usize,
  copied: bool,
  iterated: bool,
}

/// Whether `pattern` holds an object rest anywhere.
fn holds_object_rest(pattern: &Pat) -> bool {
  match pattern {
    Pat::Object(object) => object.props.iter().any(|prop| match prop {
      ObjectPatProp::Rest(_) => true,
      ObjectPatProp::KeyValue(property) => holds_object_rest(&property.value),
      ObjectPatProp::Assign(_) => false,
    }),
    Pat::Array(array) => array.elems.iter().flatten().any(holds_object_rest),
    Pat::Rest(rest) => holds_object_rest(&rest.arg),
    Pat::Assign(assign) => holds_object_rest(&assign.left),
    _ => false,
  }
}

/// A mirrored pattern's shape, `[kind,own,…children]` with `0` for a child without one, or `None`
/// when no child has one.
fn mirrored(kind: u8, own: bool, mut children: Vec<Option<String>>) -> Option<String> {
  while let Some(None) = children.last() {
    children.pop();
  }
  if children.is_empty() {
    return None;
  }
  let children: Vec<String> = children
    .into_iter()
    .map(|child| child.unwrap_or_else(|| "0".to_owned()))
    .collect();
  Some(format!("[{kind},{},{}]", u8::from(own), children.join(",")))
}

impl Visit for Finder {
  fn visit_ident(&mut self, ident: &Ident) {
    // Only these could be a guard's name.
    if ident.sym.starts_with(NAME_PREFIX) {
      self.identifiers.push(ident.sym.to_string());
    }
  }

  fn visit_binding_ident(&mut self, binding: &BindingIdent) {
    binding.visit_children_with(self);
    self.binds(&binding.id);
  }

  fn visit_fn_decl(&mut self, declaration: &FnDecl) {
    declaration.visit_children_with(self);
    self.binds(&declaration.ident);
  }

  fn visit_class_decl(&mut self, declaration: &ClassDecl) {
    declaration.visit_children_with(self);
    self.binds(&declaration.ident);
  }

  // A function or class expression's name is bound inside it.
  fn visit_fn_expr(&mut self, expression: &FnExpr) {
    expression.visit_children_with(self);
    if let Some(name) = &expression.ident {
      self.binds(name);
    }
  }

  fn visit_class_expr(&mut self, expression: &ClassExpr) {
    expression.visit_children_with(self);
    if let Some(name) = &expression.ident {
      self.binds(name);
    }
  }

  fn visit_new_expr(&mut self, expression: &NewExpr) {
    expression.visit_children_with(self);
    if let Some(args) = &expression.args {
      self.guard_array_length(&expression.callee, args);
    }
  }

  fn visit_call_expr(&mut self, expression: &CallExpr) {
    expression.visit_children_with(self);
    if let Callee::Expr(callee) = &expression.callee {
      self.guard_array_length(callee, &expression.args);
    }
  }

  fn visit_for_stmt(&mut self, stmt: &ForStmt) {
    stmt.visit_children_with(self);
    self.loop_bodies.push(stmt.body.span());
  }

  fn visit_while_stmt(&mut self, stmt: &WhileStmt) {
    stmt.visit_children_with(self);
    self.loop_bodies.push(stmt.body.span());
  }

  fn visit_do_while_stmt(&mut self, stmt: &DoWhileStmt) {
    stmt.visit_children_with(self);
    self.loop_bodies.push(stmt.body.span());
  }

  // Visited before the statement it labels: the first label of a chain is seen first.
  fn visit_labeled_stmt(&mut self, stmt: &LabeledStmt) {
    let mut body = &*stmt.body;
    while let Stmt::Labeled(inner) = body {
      body = &inner.body;
    }
    if let Stmt::ForIn(for_in) = body {
      self.labelled_for_ins.entry(for_in.span.lo).or_insert(stmt.span.lo);
    }
    stmt.visit_children_with(self);
  }

  fn visit_for_in_stmt(&mut self, stmt: &ForInStmt) {
    stmt.visit_children_with(self);
    self.loop_bodies.push(stmt.body.span());
    let shape = head_pattern(&stmt.left).and_then(|head| self.shape_of(head));
    if shape.is_none() {
      // The labels stay on the for-in: `continue label` goes on to its next key.
      self.edits.push(Edit::NativeForIn {
        start: *self.labelled_for_ins.get(&stmt.span.lo).unwrap_or(&stmt.span.lo),
        subject: stmt.right.span(),
        sequence: is_sequence(&stmt.right),
      });
      return;
    }
    let bare_async = match &stmt.left {
      ForHead::Pat(pattern) => match &**pattern {
        Pat::Ident(name) if &*name.id.sym == "async" => Some(name.span),
        _ => None,
      },
      _ => None,
    };
    self.edits.push(Edit::ForIn {
      keyword: stmt.left.span().hi,
      subject: stmt.right.span(),
      sequence: is_sequence(&stmt.right),
      bare_async,
      shape,
    });
  }

  fn visit_object_lit(&mut self, literal: &ObjectLit) {
    let last = literal.props.iter().rposition(|prop| matches!(prop, PropOrSpread::Spread(_)));
    let after = last.and_then(|at| quiet_keys(&literal.props[at + 1..]));
    for (at, prop) in literal.props.iter().enumerate() {
      match prop {
        PropOrSpread::Spread(spread) => {
          spread.expr.visit_with(self);
          let later = after.is_some() && Some(at) == last;
          self.edits.push(Edit::Copied {
            value: spread.expr.span(),
            sequence: is_sequence(&spread.expr),
            more: later.then(|| COPIED_LATER.to_owned()),
          });
        }
        PropOrSpread::Prop(prop) => prop.visit_with(self),
      }
    }
    if let Some(after) = after {
      self.edits.push(Edit::CopiedLiteral {
        literal: literal.span,
        after,
      });
    }
  }

  fn visit_object_pat(&mut self, pattern: &ObjectPat) {
    pattern.visit_children_with(self);
    if has_rest(pattern) {
      self.rests.push(pattern.span.lo);
    }
  }

  fn visit_for_of_stmt(&mut self, stmt: &ForOfStmt) {
    stmt.visit_children_with(self);
    self.loop_bodies.push(stmt.body.span());
    if let Some(head) = head_pattern(&stmt.left)
      && let Some(shape) = self.shape_of(head)
    {
      self.edits.push(Edit::Each {
        iterable: stmt.right.span(),
        more: format!("{shape}, {}", for_of_message(&stmt.right)),
        awaited: stmt.is_await,
      });
    }
  }

  fn visit_try_stmt(&mut self, stmt: &TryStmt) {
    stmt.visit_children_with(self);
    if let Some(param) = stmt.handler.as_ref().and_then(|handler| handler.param.as_ref())
      && let Some(shape) = self.shape_of(param)
    {
      self.edits.push(Edit::Catch {
        block: stmt.block.span,
        shape,
      });
    }
  }

  // A computed key comes first: the flag is for the method's own function.
  fn visit_setter_prop(&mut self, setter: &SetterProp) {
    setter.key.visit_with(self);
    self.setter = true;
    setter.function.visit_with(self);
  }

  fn visit_class_method(&mut self, method: &ClassMethod) {
    method.key.visit_with(self);
    self.setter = method.kind == MethodKind::Setter;
    method.function.visit_with(self);
  }

  fn visit_private_method(&mut self, method: &PrivateMethod) {
    self.setter = method.kind == MethodKind::Setter;
    method.function.visit_with(self);
  }

  fn visit_function(&mut self, function: &Function) {
    let setter = std::mem::take(&mut self.setter);
    function.visit_children_with(self);
    if !setter {
      self.guard_parameters(function.params.iter().map(|param| &param.pat));
      return;
    }
    if let ([param], Some(body)) = (function.params.as_slice(), &function.body)
      && let Some(shape) = self.shape_of(&param.pat)
    {
      let message = destructure_message(&param.pat, Source::Argument).unwrap_or_else(|| "void 0".to_owned());
      self.edits.push(Edit::Setter {
        param: param.pat.span(),
        end: param.pat.span().hi,
        body_end: body.span.hi,
        more: format!("{shape}, {message}"),
        defaulted: matches!(param.pat, Pat::Assign(_)),
      });
    }
  }

  fn visit_arrow_expr(&mut self, arrow: &ArrowExpr) {
    arrow.visit_children_with(self);
    self.guard_parameters(arrow.params.iter());
  }

  fn visit_constructor(&mut self, constructor: &Constructor) {
    constructor.visit_children_with(self);
    let params: Vec<&Pat> = constructor
      .params
      .iter()
      .filter_map(|param| match param {
        ParamOrTsParamProp::Param(param) => Some(&param.pat),
        ParamOrTsParamProp::TsParamProp(_) => None,
      })
      .collect();
    // A parameter property (stripped types let none through) would shift the indices: refused.
    if params.len() == constructor.params.len() {
      self.guard_parameters(params.into_iter());
    }
  }

  fn visit_var_declarator(&mut self, declarator: &VarDeclarator) {
    declarator.visit_children_with(self);
    if let Some(init) = &declarator.init
      && let Some(shape) = self.shape_of(&declarator.name)
    {
      let message = destructure_message(&declarator.name, Source::Declared(init)).unwrap_or_else(|| "void 0".to_owned());
      self.edits.push(Edit::Copied {
        value: init.span(),
        sequence: is_sequence(init),
        more: Some(format!("{shape}, {message}")),
      });
    }
  }

  fn visit_assign_expr(&mut self, assign: &AssignExpr) {
    assign.visit_children_with(self);
    let source = Source::Assigned(&assign.right);
    let more = match &assign.left {
      AssignTarget::Pat(AssignTargetPat::Object(pattern)) => self
        .object_shape(pattern)
        .map(|shape| format!("{shape}, {}", object_message(pattern, source))),
      AssignTarget::Pat(AssignTargetPat::Array(pattern)) => self
        .array_shape(pattern)
        .map(|shape| format!("{shape}, {}", array_message(source))),
      _ => None,
    };
    if more.is_some() {
      self.edits.push(Edit::Copied {
        value: assign.right.span(),
        sequence: is_sequence(&assign.right),
        more,
      });
    }
  }
}

/// After the left side of a for-in, the offset of its `in`: past JavaScript's white space and line
/// breaks, its comments (HTML-like ones included: the program is a script) and the closing
/// parentheses of a parenthesised left side. `None` for anything else.
fn keyword_in(code: &str, from: usize) -> Option<usize> {
  let line_end = |at: usize| {
    code[at..]
      .find(['\n', '\r', '\u{2028}', '\u{2029}'])
      .map(|end| at + end)
  };
  let mut at = from;
  // `-->` opens a comment only first on its line (after white space or comments).
  let mut line_start = false;
  loop {
    let rest = &code[at..];
    if rest.starts_with("in") {
      return Some(at);
    } else if rest.starts_with("//") || rest.starts_with("<!--") || (line_start && rest.starts_with("-->")) {
      at = line_end(at)?;
    } else if rest.starts_with("/*") {
      let end = at + rest.find("*/")? + 2;
      line_start |= code[at..end].contains(['\n', '\r', '\u{2028}', '\u{2029}']);
      at = end;
    } else {
      let next = rest.chars().next()?;
      match next {
        ')' => line_start = false,
        '\n' | '\r' | '\u{2028}' | '\u{2029}' => line_start = true,
        // JavaScript's white space: Rust's, less U+0085 (not JavaScript's), and U+FEFF.
        _ if (next.is_whitespace() && next != '\u{85}') || next == '\u{feff}' => {}
        _ => return None,
      }
      at += next.len_utf8();
    }
  }
}

/// The parameter guard's flags (src/js/listing_guards.js): the value is the rest parameter's element
/// at the index given; the rest from that index on is wanted.
const FROM_ARGUMENTS: u8 = 2;
const REST: u8 = 4;

/// After a parameter list's last parameter, the offset of its `)`: past white space, comments and
/// a trailing comma.
fn closing_paren(code: &str, from: usize) -> Option<usize> {
  let mut at = from;
  let mut comma = false;
  loop {
    let rest = &code[at..];
    if rest.starts_with(')') {
      return Some(at);
    } else if rest.starts_with("//") {
      at += rest.find(['\n', '\r', '\u{2028}', '\u{2029}'])?;
    } else if rest.starts_with("/*") {
      at += rest.find("*/")? + 2;
    } else {
      let next = rest.chars().next()?;
      match next {
        ',' if !comma => comma = true,
        _ if (next.is_whitespace() && next != '\u{85}') || next == '\u{feff}' => {}
        _ => return None,
      }
      at += next.len_utf8();
    }
  }
}

/// One change to the text at a byte offset.
enum Piece {
  Open(String),
  Close(String),
  /// The two bytes of a for-in's `in`, written as `of`.
  Of,
}

fn apply(code: &str, names: GuardNames, base: usize, edits: Vec<Edit>) -> Result<(String, Guards), String> {
  let offset = |pos: BytePos| (pos.0 as usize).saturating_sub(base);
  // (offset, rank at that offset, piece): a guard's call closes before another's opens at the same
  // offset; of two opens the outer one, pushed later (the finder pushes children first), goes first.
  let mut pieces: Vec<(usize, isize, Piece)> = Vec::new();
  // A guard's call around `value`, with `more` arguments after it.
  let call = |name: &str, value: Span, sequence: bool, more: Option<&str>, pieces: &mut Vec<(usize, isize, Piece)>| {
    let (open, close) = if sequence { ("((", ")") } else { ("(", "") };
    let more = more.map_or_else(String::new, |more| format!(", {more}"));
    let rank = pieces.len() as isize;
    pieces.push((offset(value.lo), -rank, Piece::Open(format!("{name}{open}"))));
    pieces.push((offset(value.hi), isize::MIN + rank, Piece::Close(format!("{close}{more})"))));
  };
  for edit in edits {
    match edit {
      Edit::NativeForIn { start, subject, sequence } => {
        let (first, next, value) = (&names.for_in_subject, &names.for_in_next, &names.for_in_value);
        let rank = pieces.len() as isize;
        pieces.push((
          offset(start),
          -rank,
          Piece::Open(format!("for (let {value} = {first}; {value} !== {next}; {value} = {next}({value})) ")),
        ));
        let (open, close) = if sequence { ("(", ")") } else { ("", "") };
        let rank = pieces.len() as isize;
        pieces.push((
          offset(subject.lo),
          -rank,
          Piece::Open(format!("({value} === {first} ? {value} = {first}({open}")),
        ));
        pieces.push((
          offset(subject.hi),
          isize::MIN + rank,
          Piece::Close(format!("{close}) : {value})")),
        ));
      }
      Edit::ForIn {
        keyword,
        subject,
        sequence,
        bare_async,
        shape,
      } => {
        // Left as it is, the loop would list unguarded.
        let at = keyword_in(code, offset(keyword)).ok_or(
          "the program could not be read again to guard its for-in loops: a for-in's `in` was not found",
        )?;
        pieces.push((at, 0, Piece::Of));
        if let Some(name) = bare_async {
          let rank = pieces.len() as isize;
          pieces.push((offset(name.lo), -rank, Piece::Open("(".to_owned())));
          pieces.push((offset(name.hi), isize::MIN + rank, Piece::Close(")".to_owned())));
        }
        call(&names.for_in, subject, sequence, shape.as_deref(), &mut pieces);
      }
      Edit::Copied { value, sequence, more } => call(&names.spread, value, sequence, more.as_deref(), &mut pieces),
      Edit::Each { iterable, more, awaited } => {
        let guard = if awaited { &names.each_async } else { &names.each };
        call(guard, iterable, false, Some(&more), &mut pieces);
      }
      Edit::ArrayLength { value } => call(&names.array_length, value, false, None, &mut pieces),
      Edit::CopiedLiteral { literal, after } => {
        // The keys as JSON in a string literal, which the guard parses only for a long source.
        let keys = (!after.is_empty()).then(|| {
          serde_json::to_string(&serde_json::to_string(&after).expect("strings serialize")).expect("a string serializes")
        });
        call(&names.copied, literal, false, keys.as_deref(), &mut pieces)
      }
      Edit::Catch { block, shape } => {
        let rank = pieces.len() as isize;
        let thrown = &names.thrown;
        pieces.push((offset(block.lo), -rank, Piece::Open("{try ".to_owned())));
        pieces.push((
          offset(block.hi),
          isize::MIN + rank,
          Piece::Close(format!(" catch ({thrown}) {{throw {}({thrown}, {shape})}}}}", names.spread)),
        ));
      }
      Edit::Setter {
        param,
        end,
        body_end,
        more,
        defaulted,
      } => {
        let value = &names.setter_value;
        let default = if defaulted { " = void 0" } else { "" };
        let close = closing_paren(code, offset(end)).ok_or(
          "the program could not be read again to guard its object rests: a setter's `)` was not found",
        )?;
        let rank = pieces.len() as isize;
        pieces.push((offset(param.lo), -rank, Piece::Open(format!("{value}{default}) {{ return ((")))); 
        pieces.push((close + 1, isize::MIN + rank, Piece::Close(" =>".to_owned())));
        pieces.push((
          offset(body_end),
          isize::MIN + rank,
          Piece::Close(format!(")({}({value}, {more})) }}", names.spread)),
        ));
      }
      Edit::Poll { body } => {
        let rank = pieces.len() as isize;
        pieces.push((
          offset(body.lo),
          -rank,
          Piece::Open(format!("{{{}();", names.poll)),
        ));
        pieces.push((offset(body.hi), isize::MIN + rank, Piece::Close("}".to_owned())));
      }
      Edit::Parameters {
        read,
        first,
        length,
        end,
      } => {
        // The rest parameter takes the arguments from the last kept name on.
        let start = first.max(length);
        let parameter = &names.parameter;
        let mut kept = String::new();
        for index in first..start {
          kept.push_str(&format!("{}{index}, ", names.argument));
        }
        let rank = pieces.len() as isize;
        for (at, (span, how)) in read.into_iter().enumerate() {
          let index = first + at;
          let rest = how == Read::Rest;
          let shape = match &how {
            Read::Checked(shape, message) => format!(", {shape}, {message}"),
            _ => String::new(),
          };
          let key = match how {
            Read::Rest => format!("[{parameter}({REST}, {})]: [", index - start),
            _ if index < start => format!("[{parameter}(0, 0, {}{index}{shape})]: ", names.argument),
            _ if shape.is_empty() => format!("[{parameter}({FROM_ARGUMENTS}, {})]: ", index - start),
            _ => format!("[{parameter}({FROM_ARGUMENTS}, {}, void 0{shape})]: ", index - start),
          };
          let text = if at == 0 { format!("{kept}...{{{key}") } else { key };
          pieces.push((offset(span.lo), -rank, Piece::Open(text)));
          if rest {
            pieces.push((offset(span.hi), isize::MIN + rank, Piece::Close("]".to_owned())));
          }
        }
        let close = closing_paren(code, offset(end)).ok_or(
          "the program could not be read again to guard its object rests: a parameter list's `)` was not found",
        )?;
        pieces.push((close, isize::MIN + pieces.len() as isize, Piece::Close("}".to_owned())));
      }
    }
  }
  pieces.sort_by_key(|&(at, rank, _)| (at, rank));
  let mut out = String::with_capacity(code.len() + pieces.len() * 8);
  let mut shifts: Vec<(u32, Vec<(u32, u32)>)> = Vec::new();
  let mut changes: Vec<(u32, Change)> = Vec::new();
  let mut position = Position::default();
  // Where the guarded text is, in UTF-16 units.
  let mut units = 0u32;
  let mut copied = 0;
  for (at, _, piece) in pieces {
    position.advance(&code[copied..at]);
    units += code[copied..at].encode_utf16().count() as u32;
    out.push_str(&code[copied..at]);
    copied = at;
    let inserted = match piece {
      Piece::Of => {
        out.push_str("of");
        position.advance("in");
        changes.push((units, Change::In));
        units += 2;
        copied += 2;
        continue;
      }
      // `in(v)` becomes `of (…)`, not `of…`.
      Piece::Open(text)
        if code[..at].ends_with(|ch: char| ch.is_alphanumeric() || ch == '_' || ch == '$') =>
      {
        format!(" {text}")
      }
      Piece::Open(text) => text,
      Piece::Close(text) => text,
    };
    out.push_str(&inserted);
    // Inserted text is ASCII: its bytes are its UTF-16 units.
    changes.push((units, Change::Inserted(inserted.len() as u32)));
    units += inserted.len() as u32;
    let entry = (position.column, inserted.len() as u32);
    match shifts.last_mut() {
      Some((line, on_line)) if *line == position.line => on_line.push(entry),
      _ => shifts.push((position.line, vec![entry])),
    }
  }
  out.push_str(&code[copied..]);
  Ok((
    out,
    Guards {
      names,
      shifts: ColumnShifts(shifts),
      changes,
    },
  ))
}

/// A place in the program's own text as V8 numbers it: 1-based line, 0-based UTF-16 column.
struct Position {
  line: u32,
  column: u32,
  after_cr: bool,
}

impl Default for Position {
  fn default() -> Self {
    Self {
      line: 1,
      column: 0,
      after_cr: false,
    }
  }
}

impl Position {
  fn advance(&mut self, text: &str) {
    for ch in text.chars() {
      match ch {
        // `\r\n` is one line break.
        '\n' if self.after_cr => {}
        '\n' | '\r' | '\u{2028}' | '\u{2029}' => {
          self.line += 1;
          self.column = 0;
        }
        _ => self.column += ch.len_utf16() as u32,
      }
      self.after_cr = ch == '\r';
    }
  }
}

#[cfg(test)]
mod tests {
  use super::{ColumnShifts, guard_listings};

  fn guarded(code: &str) -> String {
    guard_listings(code, &[])
      .unwrap()
      .map_or_else(|| code.to_owned(), |(code, _)| code)
  }

  /// The loop a for-in is put in, with `labels` in front of it and `subject` as the guard takes it.
  fn around(labels: &str, head: &str, subject: &str, rest: &str) -> String {
    format!(
      "for (let __dsh_forInValue = __dsh_forInSubject; __dsh_forInValue !== __dsh_forInNext; \
       __dsh_forInValue = __dsh_forInNext(__dsh_forInValue)) {labels}{head}(__dsh_forInValue === __dsh_forInSubject ? \
       __dsh_forInValue = __dsh_forInSubject({subject}) : __dsh_forInValue){rest}"
    )
  }

  #[test]
  fn a_for_in_stays_v8s_own_in_a_loop_that_takes_its_subject_through_the_guard() {
    assert_eq!(
      guarded("for (const k in o) f(k)"),
      around("", "for (const k in ", "o", ") {__dsh_poll();f(k)}")
    );
    assert_eq!(
      guarded("for(k in(a.b))g()"),
      around("", "for(k in ", "(a.b)", "){__dsh_poll();g()}")
    );
    assert_eq!(
      guarded("for(k in{...a});"),
      around(
        "",
        "for(k in ",
        " __dsh_copied({...__dsh_spread(a, 3)})",
        "){__dsh_poll();;}"
      )
    );
    // A sequence stays one argument; the left side is left as it is.
    assert_eq!(
      guarded("for (k /* in */ in // in\n a, b) {}"),
      around("", "for (k /* in */ in // in\n ", "(a, b)", ") {__dsh_poll();{}}")
    );
    assert_eq!(
      guarded("for (async in o);"),
      around("", "for (async in ", "o", "){__dsh_poll();;}")
    );
    // Labels stay on the for-in (`continue l` goes on to its next key), and the loop goes before
    // the first of them.
    assert_eq!(
      guarded("a: b: for (k in o) continue a"),
      around("a: b: ", "for (k in ", "o", ") {__dsh_poll();continue a}")
    );
    // What swc reads and V8 takes, beside a for-in.
    assert_eq!(
      guarded("{ using d = null } for (k in o);"),
      format!("{{ using d = null }} {}", around("", "for (k in ", "o", "){__dsh_poll();;}"))
    );
  }

  #[test]
  fn a_for_in_whose_keys_an_object_rest_destructures_becomes_a_for_of_over_the_guard() {
    assert_eq!(
      guarded("for (const { ...r } in o) ;"),
      "for (const { ...r } of __dsh_forIn(o, 1)) {__dsh_poll();;}"
    );
    assert_eq!(
      guarded("for ({ a, ...r } /* in */ in // in\n a, b) {}"),
      "for ({ a, ...r } /* in */ of // in\n __dsh_forIn((a, b), 1)) {__dsh_poll();{}}"
    );
    // JavaScript's own white space and comments, HTML-like ones too, before `in`.
    assert_eq!(
      guarded("for ({ ...k }\u{feff}in o);"),
      "for ({ ...k }\u{feff}of __dsh_forIn(o, 1)){__dsh_poll();;}"
    );
    assert_eq!(
      guarded("for ({ ...k }\u{a0}in o);"),
      "for ({ ...k }\u{a0}of __dsh_forIn(o, 1)){__dsh_poll();;}"
    );
    assert_eq!(
      guarded("for ({ ...k } <!-- c\n--> d\n in o);"),
      "for ({ ...k } <!-- c\n--> d\n of __dsh_forIn(o, 1)){__dsh_poll();;}"
    );
  }

  #[test]
  fn spreads_and_rests_pass_their_value_to_the_guard() {
    assert_eq!(
      guarded("const o = { a: 1, ...p, ...{ ...q }, b }"),
      "const o = __dsh_copied({ a: 1, ...__dsh_spread(p), ...__dsh_spread(__dsh_copied({ ...__dsh_spread(q, 3) }), 3), b }, \"[\\\"b\\\"]\")"
    );
    assert_eq!(
      guarded("const { a, ...rest } = v; ({ b, ...rest } = w)"),
      "const { a, ...rest } = __dsh_spread(v, 1, [0,\"a\",\"v\"]); ({ b, ...rest } = __dsh_spread(w, 1, [0,\"b\",\"w\"]))"
    );
    assert_eq!(
      guarded("return { ...(a, b) }"),
      "return __dsh_copied({ ...__dsh_spread((a, b), 3) })"
    );
    // A spread that is the whole of its literal hands the literal's object to the guard that
    // copies a long source into it.
    assert_eq!(
      guarded("f({ /* all */ ...v }, { ...w, x: f() }, { ...(a, b) })"),
      "f(__dsh_copied({ /* all */ ...__dsh_spread(v, 3) }), { ...__dsh_spread(w), x: f() }, __dsh_copied({ ...__dsh_spread((a, b), 3) }))"
    );
    // So does a literal whose last spread has members after it that run no code, with the keys they
    // define, as the property keys they are.
    assert_eq!(
      guarded("({ ...v, a, 'b': 1, 0x10: -1, 1e21: `t`, 2n: null, get g() {}, set s(x) {}, m() {}, f: () => 0, __proto__: p })"),
      r#"(__dsh_copied({ ...__dsh_spread(v, 3), a, 'b': 1, 0x10: -1, 1e21: `t`, 2n: null, get g() {}, set s(x) {}, m() {}, f: () => 0, __proto__: p }, "[\"a\",\"b\",\"16\",\"1e+21\",\"2\",\"g\",\"s\",\"m\",\"f\"]"))"#
    );
    assert_eq!(
      guarded("({ ...v, a: { b: [1, , x, { c: !y }], d: typeof z, e: void 0 } })"),
      r#"(__dsh_copied({ ...__dsh_spread(v, 3), a: { b: [1, , x, { c: !y }], d: typeof z, e: void 0 } }, "[\"a\"]"))"#
    );
    // Members that may run code, a computed key, or a spread after it: the spread refuses a long value.
    for member in ["a: f()", "a: o.p", "[k]: 1", "a: class {}", "a: `${x}`", "a: [...x]", "a: { [k]: 1 }", "a: +x", "__proto__: f()"] {
      assert_eq!(guarded(&format!("({{ ...v, {member} }})")), format!("({{ ...__dsh_spread(v), {member} }})"));
    }
    assert_eq!(
      guarded("({ ...v, ...w })"),
      "(__dsh_copied({ ...__dsh_spread(v), ...__dsh_spread(w, 3) }))"
    );
    // Array spreads, call spreads and array rests iterate, in JavaScript: left alone.
    assert_eq!(
      guard_listings("f(...a, [...b]); const [c, ...d] = e", &[]),
      Ok(None)
    );
  }

  #[test]
  fn one_argument_array_calls_pass_their_length_to_the_array_guard() {
    assert_eq!(
      guarded("const a = new Array(2 ** 24), b = Array(n).fill(0), c = new Array((x, y))"),
      "const a = new Array(__dsh_arrayLength(2 ** 24)), b = Array(__dsh_arrayLength(n)).fill(0), \
       c = new Array(__dsh_arrayLength((x, y)))"
    );
    assert_eq!(
      guarded("f(new Array(new Array(n).length))"),
      "f(new Array(__dsh_arrayLength(new Array(__dsh_arrayLength(n)).length)))"
    );
    // Other arities, spreads and other callees make no array of a length: left alone.
    assert_eq!(
      guard_listings(
        "new Array; new Array(); Array(1, 2); new Array(...a); A.Array(n); new (Array)(n)",
        &[]
      ),
      Ok(None)
    );
    // Text that cannot be read is left to V8 when only arrays' lengths would have been guarded.
    assert_eq!(guard_listings("new Array(n) +", &[]), Ok(None));
  }

  #[test]
  fn a_program_that_binds_the_name_array_keeps_its_calls() {
    for code in [
      "const Array = A; new Array(n)",
      "function f(Array) { return Array(n) }",
      "function Array() {} new Array(n)",
      "class Array {} new Array(n)",
      "(function Array() { return new Array(n) })",
      "Array = A; new Array(n)",
      "try {} catch (Array) {} Array(n)",
      "const { Array } = o; new Array(n)",
    ] {
      assert_eq!(guard_listings(code, &[]), Ok(None), "{code}");
    }
    // The array guard goes; the others stay.
    assert_eq!(
      guarded("let Array = A; for (;;) new Array(n)"),
      "let Array = A; for (;;) {__dsh_poll();new Array(n)}"
    );
  }

  #[test]
  fn nested_guards_close_inside_out() {
    assert_eq!(
      guarded("for (k in { ...o }) for (j in k) ;"),
      around(
        "",
        "for (k in ",
        "__dsh_copied({ ...__dsh_spread(o, 3) })",
        &format!(") {{__dsh_poll();{}}}", around("", "for (j in ", "k", ") {__dsh_poll();;}"))
      )
    );
    assert_eq!(
      guarded("({ ...r } = { ...s } = v)"),
      "({ ...r } = __dsh_spread({ ...s } = __dsh_spread(v, 1, [0,null,\"v\"]), 1, [0,null,\"(intermediate value)\"]))"
    );
  }

  #[test]
  fn names_avoid_every_identifier_of_the_program_and_the_bound_names() {
    let (code, guards) = guard_listings(
      "let __dsh_forIn = 1, __dsh_spread_ = 2; for (k in o) {}",
      &["__dsh_spread".to_owned()],
    )
    .unwrap()
    .unwrap();
    assert_eq!(guards.names.for_in, "__dsh_forIn_");
    assert_eq!(guards.names.spread, "__dsh_spread__");
    assert!(code.contains("for (k in (__dsh_forInValue === "), "{code}");
    // A name spelled with an escape is the same identifier.
    let (_, guards) = guard_listings("let \\u005f_dsh_forIn; for (k in o) {}", &[])
      .unwrap()
      .unwrap();
    assert_eq!(guards.names.for_in, "__dsh_forIn_");
  }

  #[test]
  fn programs_without_listings_are_left_alone_and_those_that_cannot_be_read_refused() {
    assert_eq!(guard_listings("return 'in' + x.in", &[]), Ok(None));
    assert_eq!(guard_listings("return 1", &[]), Ok(None));
    // Top-level return and await parse, as in the program's function.
    assert!(
      guard_listings("await f(); for (k in o) {} return", &[])
        .unwrap()
        .is_some()
    );
    assert_eq!(
      guard_listings("for (k in ) {}", &[]),
      Err("the program could not be read again to guard its for-in loops and object spreads: Expression expected".to_owned())
    );
  }

  #[test]
  fn code_made_at_run_time_is_told_apart_by_its_listings() {
    use super::lists_keys;
    assert!(lists_keys("for (var k in o) ;"));
    assert!(lists_keys("(function anonymous(a\n) {\nreturn { ...a }\n})"));
    assert!(lists_keys("var { x, ...r } = o"));
    // Rests no guard reaches count too.
    assert!(lists_keys("(function anonymous({ ...r }\n) {\n})"));
    assert!(lists_keys("for (const [{ ...r }] of l) ;"));
    assert!(lists_keys("for (k\u{a0}in o) ;"));
    assert!(!lists_keys("x in o && f(...a, [...b])"));
    assert!(!lists_keys("var with_ = 1; 'in'"));
    // Sloppy code parses as such.
    assert!(lists_keys("with (o) for (k in p) ;"));
    // What swc cannot read counts when its text could list.
    assert!(lists_keys("for (k in o) {"));
    assert!(!lists_keys("1 +"));
  }

  #[test]
  fn columns_map_back_to_the_program_text() {
    let program = "x;\nfor (k in o) { throw new E({ ...p }) }\r\n  é({...q})";
    let (code, guards) = guard_listings(program, &[]).unwrap().unwrap();
    let shifts: &ColumnShifts = &guards.shifts;
    let lines: Vec<&str> = code.split(['\n']).collect();
    // Where `throw` and `new` are in each text (1-based, as V8 reports).
    let column_of = |text: &str, what: &str| text.find(what).unwrap() as u32 + 1;
    let original: Vec<&str> = program.split('\n').collect();
    for what in ["throw", "new", "}"] {
      assert_eq!(
        shifts.original_column(2, column_of(lines[1], what)),
        column_of(original[1], what),
        "{what}"
      );
    }
    // A column inside inserted text reads as where it was inserted.
    assert_eq!(
      shifts.original_column(2, column_of(lines[1], "__dsh_forInNext") + 3),
      column_of(original[1], "for")
    );
    assert_eq!(
      shifts.original_column(2, column_of(lines[1], "? __dsh_forInValue") + 3),
      column_of(original[1], "o)")
    );
    // Line 3 follows `\r\n` as one break; `é` is one UTF-16 unit: `q` is at 35 after the guards'
    // 26 units, at 9 in the program.
    assert_eq!(lines[2], "  é(__dsh_copied({...__dsh_spread(q, 3)}))");
    assert_eq!(shifts.original_column(3, 35), 9);
    assert_eq!(shifts.original_column(1, 1), 1);
  }

  #[test]
  fn undoing_the_changes_gives_back_the_program() {
    use crate::program::own_text::{Change, without_changes};
    // Every kind of edit, after text of two and four bytes a character, on lines `\r\n` ends.
    let program = "const s = 'é😀';\r\nlet async; for ({ ...async } in o) for (const k in{ ...p }) ;\n\
      function f(a, { b, ...r }, ...more) { while (a) a--; return { ...r } }\n\
      for (const { x, ...y } of list) do ; while (0)\nl: for ({ ...k } in(v)) ;\nnew Array(Array(n).length);";
    let (code, guards) = guard_listings(program, &[]).unwrap().unwrap();
    let units: Vec<u16> = code.encode_utf16().collect();
    let own = without_changes(&units, &guards.changes, 0, units.len()).unwrap();
    assert_eq!(String::from_utf16(&own).unwrap(), program);
    for &(at, change) in &guards.changes {
      if change == Change::In {
        assert_eq!(
          String::from_utf16(&units[at as usize..at as usize + 2]).unwrap(),
          "of"
        );
      }
    }
    assert_eq!(
      guards
        .changes
        .iter()
        .filter(|(_, change)| *change == Change::In)
        .count(),
      2
    );
  }

  #[test]
  fn object_rests_in_parameters_are_read_through_the_parameter_guard() {
    // `length` stays 1: the parameter it counts is kept as a name.
    assert_eq!(
      guarded("const f = ({ a, ...r }) => r"),
      "const f = (__dsh_argument0, ...{[__dsh_parameter(0, 0, __dsh_argument0, 1, [0,\"a\",null])]: { a, ...r }}) => r"
    );
    // A default passes through the spread guard; later parameters, defaults and the rest
    // parameter are read from the rest parameter's array.
    assert_eq!(
      guarded("function g(x, { y, ...z } = d, q = 3, ...more) {}"),
      "function g(x, ...{[__dsh_parameter(2, 0, void 0, 1, [0,\"y\",\"(intermediate value)(intermediate value)(intermediate value)\",1])]: \
       { y, ...z } = __dsh_spread(d, 1), \
       [__dsh_parameter(2, 1)]: q = 3, [__dsh_parameter(4, 2)]: [...more]}) {}"
    );
    // A trailing comma and a comment stay inside; a setter's computed key is a function of its
    // own, and the setter keeps its one parameter.
    assert_eq!(
      guarded("class A { constructor(p, { a, ...r }, ) {} set [function () {}.name](v) {} }"),
      "class A { constructor(p, __dsh_argument1, ...{[__dsh_parameter(0, 0, __dsh_argument1, 1, [0,\"a\",null])]: { a, ...r }, }) {} \
       set [function () {}.name](v) {} }"
    );
    assert_eq!(
      guarded("async ({ ...r }/* c */, b) => r"),
      "async (__dsh_argument0, __dsh_argument1, ...{[__dsh_parameter(0, 0, __dsh_argument0, 1, [0,null,null])]: { ...r }/* c */, \
       [__dsh_parameter(0, 0, __dsh_argument1)]: b}) => r"
    );
    // The kept names start with a prefix no name of the program starts with.
    let (code, guards) = guard_listings("let __dsh_argument7; (({ ...r }) => r)", &[])
      .unwrap()
      .unwrap();
    assert_eq!(guards.names.argument, "__dsh_argument_");
    assert!(code.contains("(__dsh_argument_0, ...{"), "{code}");
    // An arrow's rest parameter after one, with its `...` (swc's span of it starts at the name).
    assert_eq!(
      guarded("({ ...r }, ...x) => x"),
      "(__dsh_argument0, ...{[__dsh_parameter(0, 0, __dsh_argument0, 1, [0,null,null])]: { ...r }, \
       [__dsh_parameter(4, 0)]: [...x]}) => x"
    );
    // Object rests further in: the parameter's value is mirrored with the pattern's shape.
    assert_eq!(
      guarded("([k, { id, ...rest }]) => rest"),
      "(__dsh_argument0, ...{[__dsh_parameter(0, 0, __dsh_argument0, [1,0,0,1], [4])]: [k, { id, ...rest }]}) => rest"
    );
  }

  #[test]
  fn every_loop_body_calls_the_poll_first() {
    assert_eq!(
      guarded("for (;;) x++\nwhile (a) b(); do c(); while (d)\nl: for (const e of f) { continue l }"),
      "for (;;) {__dsh_poll();x++}\nwhile (a) {__dsh_poll();b();} do {__dsh_poll();c();} while (d)\n\
       l: for (const e of f) {__dsh_poll();{ continue l }}"
    );
    // Inner loops too, and a body right after a keyword stays apart from it.
    assert_eq!(
      guarded("for (k in o) do{}while(0)"),
      around("", "for (k in ", "o", ") {__dsh_poll();do {__dsh_poll();{}}while(0)}")
    );
    let (code, guards) = guard_listings("let __dsh_poll; while (1);", &[])
      .unwrap()
      .unwrap();
    assert_eq!(guards.names.poll, "__dsh_poll_");
    assert_eq!(code, "let __dsh_poll; while (1){__dsh_poll_();;}");
    assert_eq!(guard_listings("return 'for' + o.while + do_", &[]), Ok(None));
  }

  #[test]
  fn object_rests_in_for_of_heads_take_each_value_through_a_guard() {
    assert_eq!(
      guarded("for (const { a, ...r } of list) ;"),
      "for (const { a, ...r } of __dsh_spreadEach(list, 1, [2,null,\"list\"])) {__dsh_poll();;}"
    );
    assert_eq!(
      guarded("for ({ ...r } of f()) ;"),
      "for ({ ...r } of __dsh_spreadEach(f(), 1, [3,null,\"f\"])) {__dsh_poll();;}"
    );
    // A for-await's values, once they have settled.
    assert_eq!(
      guarded("for await (const { a, ...r } of f()) ;"),
      "for await (const { a, ...r } of __dsh_spreadEachAsync(f(), 1, [3,null,\"f\"])) {__dsh_poll();;}"
    );
    assert_eq!(
      guarded("for (const [k, { a, ...r }] of o) ;"),
      "for (const [k, { a, ...r }] of __dsh_spreadEach(o, [1,0,0,1], [2,null,\"o\"])) {__dsh_poll();;}"
    );
  }

  #[test]
  fn object_rests_inside_other_patterns_are_reached_through_a_mirror_of_the_value() {
    assert_eq!(
      guarded("const { a: { b, ...r }, c } = v"),
      "const { a: { b, ...r }, c } = __dsh_spread(v, [0,0,1], [0,\"a\",\"v\"])"
    );
    assert_eq!(
      guarded("const { x, ...o } = v, [p, , { ...q } = d] = w"),
      "const { x, ...o } = __dsh_spread(v, 1, [0,\"x\",\"v\"]), [p, , { ...q } = __dsh_spread(d, 1)] = \
       __dsh_spread(w, [1,0,0,0,1], [2,null,\"w\"])"
    );
    // An element whose destructuring runs code before one a rest copies is marked.
    assert_eq!(
      guarded("const [{ a }, { ...r }, b = 1] = v"),
      "const [{ a }, { ...r }, b = 1] = __dsh_spread(v, [1,0,2,1,2], [2,null,\"v\"])"
    );
    assert_eq!(
      guarded("({ a: [{ ...r }] } = v)"),
      "({ a: [{ ...r }] } = __dsh_spread(v, [0,0,[1,0,1]], [0,\"a\",\"v\"]))"
    );
  }

  #[test]
  fn a_catch_clause_with_an_object_rest_takes_the_thrown_value_through_the_guard() {
    assert_eq!(
      guarded("try { f() } catch ({ message, ...rest }) { g(rest) } finally { h() }"),
      "try {try { f() } catch (__dsh_thrown) {throw __dsh_spread(__dsh_thrown, 1)}} catch ({ message, ...rest }) { g(rest) } \
       finally { h() }"
    );
  }

  #[test]
  fn a_setters_object_rest_is_reached_through_an_arrow_function_its_body_becomes() {
    assert_eq!(
      guarded("({ set v({ a, ...r }) { this.r = r } })"),
      "({ set v(__dsh_setterValue) { return (({ a, ...r }) => { this.r = r })(__dsh_spread(__dsh_setterValue, 1, [0,\"a\",null])) } })"
    );
    // A default keeps `length` 0, and passes through the guard as a parameter's does.
    assert_eq!(
      guarded("class C { static set #v([{ ...r }] = d /* c */ ) {} }"),
      "class C { static set #v(__dsh_setterValue = void 0) { return (([{ ...r }] = __dsh_spread(d, [1,0,1]) /* c */ ) => {})(__dsh_spread(__dsh_setterValue, [1,0,1], void 0)) } }"
    );
  }

  #[test]
  fn a_rest_elements_array_says_where_its_values_begin_and_what_v8_does_with_it() {
    // Its own rest copies the array: at most LONG_COPY values from position 1 on.
    assert_eq!(
      guarded("const [a, ...{ length, ...r }] = v"),
      "const [a, ...{ length, ...r }] = __dsh_spread(v, [1,[1,1,0],0], [2,null,\"v\"])"
    );
    // An array pattern there takes the values that follow, with their shapes; V8 iterates the
    // array again, and a rest further in copies what it makes.
    assert_eq!(
      guarded("const [a, ...[{ ...b }, ...{ ...c }]] = v"),
      "const [a, ...[{ ...b }, ...{ ...c }]] = __dsh_spread(v, [1,[2,1,1],0,1], [2,null,\"v\"])"
    );
    assert_eq!(guarded("const [a, ...[b, c]] = v"), "const [a, ...[b, c]] = v");
  }

  #[test]
  fn object_rests_no_guard_reaches_are_refused() {
    for code in [
      "const [...{ a: { ...r } }] = v",
      "const [x, ...[...{ 0: [{ ...r }] }]] = v",
    ] {
      assert_eq!(
        guard_listings(code, &[]),
        Err(super::UNGUARDED_REST.to_owned()),
        "{code}"
      );
    }
  }
}
