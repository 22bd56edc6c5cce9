//! A bound on how deep a program's syntax tree can be, read from its text before anything parses
//! it: swc's parser, its visitors and the tree's destructor all recurse once per level, and a
//! thread that runs out of stack takes the whole process down.
//!
//! The bound must never be lower than the real depth, so every token that can add a level to the
//! tree counts one: each open bracket, `${` and call or index, and each operator, keyword or
//! type-level token that could chain into the expression before it. A level's count restarts
//! where no chain can continue: at `,` and `;`, and at a line break between two operands that
//! cannot be one expression (the break is then a statement boundary).
//!
//! A statement nested in `if`, `else`, `while`, `for`, `with`, `do` or a label adds a level that
//! lasts until that statement ends: at `;`, a block's `}` or a line break that ends a statement,
//! unless `else`, `while`, `catch` or `finally` carries it on (`if (a) b; else while (a) …`).
//!
//! Where the text alone cannot tell a regular expression from a division (`if (a) /re/` against
//! `(a) / b`), or a comment from code (`<!--` and a line-leading `-->` are comments in a script,
//! as is a line swc skips after a merge-conflict marker), the reading forks and follows both,
//! since what one takes for a regex or a comment the other reads as code. Readings that meet at
//! one point in the same state merge, keeping the larger counts, and the bound is the deepest any
//! reading went: it holds whichever one swc takes.
//!
//! Labels are counted too: swc compares each label with every label enclosing it and records an
//! error for each equal one, so stacked labels (`l: l: l: …`, 3 bytes each) cost it quadratic time
//! and memory (2 GB for 15 KB of them).

use std::rc::Rc;

/// Words after which a `/` begins a regular expression: always reserved, never an operand
/// (unless spelled as a property name, `a.return`).
const BEFORE_REGEX: &[&str] = &[
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "instanceof",
  "new",
  "delete",
  "void",
  "throw",
];

/// Words that continue or nest the construct before them, so each adds a level.
const CHAINING_WORDS: &[&str] = &[
  "if",
  "else",
  "for",
  "while",
  "do",
  "with",
  "new",
  "typeof",
  "void",
  "delete",
  "await",
  "yield",
  "in",
  "instanceof",
  "as",
  "satisfies",
  "keyof",
  "extends",
  "infer",
  "is",
  "asserts",
  "readonly",
  "unique",
  "catch",
  "finally",
];

/// Words that nest the statement after them: their level lasts until the enclosing bracket closes.
const STATEMENT_WORDS: &[&str] = &["if", "else", "while", "for", "with", "do"];

/// Pairs of equal labels, one enclosing the other, past which a program is refused: swc keeps an
/// error for each pair (about 200 bytes).
pub const MAX_DUPLICATE_LABELS: usize = 10_000;

/// Label comparisons swc makes (each label against every label enclosing it) past which a
/// program is refused: about 150 ms of its time. (An object literal's first key, and any key at
/// the start of a line, count as labels here: one of 14 000 keys on their own lines still passes.)
pub const MAX_LABEL_PAIRS: usize = 100_000_000;

/// Words after which a `/` may begin a regular expression or divide: `await /re/` and `yield /re/`
/// in one function, an identifier `await` or `yield` divided in another.
const CONTEXTUAL_WORDS: &[&str] = &["of", "default"];

/// Readings alive at once past which the text is called unreadable, and refused (a program a
/// person or a model writes rarely has two: a reading ends a line or a statement after its fork).
pub const MAX_READINGS: usize = 64;

/// What the previous significant token was.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Previous {
  /// Start of text, an operator or punctuator: an operand may follow.
  Operator,
  /// An identifier, literal or closing bracket: it can end an expression.
  Operand,
  /// A word in `CHAINING_WORDS` or `BEFORE_REGEX`: what follows may continue it.
  Keyword,
}

/// What a `/` at this point can be.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slash {
  /// After an operator: only a regular expression can start here.
  Regex,
  /// After an operand on the same line: only a division.
  Division,
  /// The text alone cannot tell: after `}` (a block, or an object), `>` (type arguments), a
  /// non-null `!`, a keyword used as a name, or an operand and a line break (a type ends there).
  Either,
}

/// One open level, in a list shared between readings: a fork copies only what it changes.
#[derive(Clone)]
struct Level {
  /// `b'{'`, `b'('`, `b'['` or `b'$'` (a template substitution).
  kind: u8,
  /// The count of chaining tokens since the level's last boundary.
  chain: usize,
  /// Whether a `<` opened a type argument list in it, where `,` ends no chain.
  angled: bool,
  /// A `(` after `if`, `while`, `for` or `with`: after its `)` only a regex can start, after any
  /// other `)` only a division (`if (a) /re/` against `(a) / b`).
  control: bool,
  /// Statements nested in this level by `STATEMENT_WORDS` and labels, never reset inside it.
  statements: usize,
  /// For a `(`, `[` or `${`, the labels open outside it: a label inside an expression can only
  /// be in a function's body, where swc starts a fresh set, so it pairs with none of these.
  outside_labels: Option<(Option<Rc<Label>>, usize)>,
  outer: Option<Rc<Level>>,
}

/// One label that may enclose what follows, in a list shared between readings.
struct Label {
  name: u64,
  /// The number of levels open when it was read: it ends when that level closes.
  open: usize,
  outer: Option<Rc<Label>>,
}

impl Drop for Label {
  fn drop(&mut self) {
    let mut outer = self.outer.take();
    while let Some(label) = outer {
      match Rc::try_unwrap(label) {
        Ok(mut label) => outer = label.outer.take(),
        Err(_) => break,
      }
    }
  }
}

/// Why a text was not bounded.
#[derive(Debug, PartialEq, Eq)]
pub enum Unbounded {
  /// It forks into more than `MAX_READINGS` readings at once.
  Readings,
  /// Its labels would cost swc more than `MAX_DUPLICATE_LABELS` or `MAX_LABEL_PAIRS`.
  Labels,
}

impl Drop for Level {
  /// Unlinks outward in a loop: dropping a list of a million levels one frame per level would
  /// overflow the very stack this module protects.
  fn drop(&mut self) {
    let mut outer = self.outer.take();
    while let Some(level) = outer {
      match Rc::try_unwrap(level) {
        Ok(mut level) => outer = level.outer.take(),
        Err(_) => break,
      }
    }
  }
}

/// One way of reading the text: where it is and what it has seen.
#[derive(Clone)]
struct Reading<'a> {
  text: &'a [u16],
  at: usize,
  /// The innermost open level; the outermost (the program) is never closed.
  level: Rc<Level>,
  /// Levels open inside the outermost one.
  open: usize,
  /// Levels open plus chains: the depth bound at this point.
  depth: usize,
  deepest: usize,
  previous: Previous,
  slash: Slash,
  /// A line break since the last token.
  line_broke: bool,
  /// The last token was a `.` or `#`, so a word now is a name (`a.return`), not a keyword.
  after_dot: bool,
  /// The last token was `if`, `while`, `for` (or `for await`) or `with`.
  after_control: bool,
  /// A statement may start at the next token (after `;`, `{`, `}`, `:`, a control `)`, `else`,
  /// `do`, or a line break), so a word followed by `:` may be a label.
  statement_start: bool,
  /// Labels that may enclose this point, innermost first.
  labels: Option<Rc<Label>>,
  open_labels: usize,
  label_pairs: usize,
  duplicate_labels: usize,
  /// A regex scan from before this point met the end of its line while inside a character class
  /// (see `regex_end`).
  no_regex_before: usize,
}

/// An upper bound on the syntax-tree depth of `program`, in units of roughly one tree level.
pub fn depth_bound(program: &str) -> Result<usize, Unbounded> {
  let text: Vec<u16> = program.encode_utf16().collect();
  let mut readings = vec![Reading {
    text: &text,
    at: 0,
    level: Rc::new(Level {
      kind: b'{',
      chain: 0,
      angled: false,
      control: false,
      statements: 0,
      outside_labels: None,
      outer: None,
    }),
    open: 0,
    depth: 0,
    deepest: 0,
    previous: Previous::Operator,
    slash: Slash::Regex,
    line_broke: false,
    after_dot: false,
    after_control: false,
    statement_start: true,
    labels: None,
    open_labels: 0,
    label_pairs: 0,
    duplicate_labels: 0,
    no_regex_before: 0,
  }];
  let mut deepest = 0;
  // The reading furthest behind goes next, so that readings which meet again are at one point.
  while let Some(index) = (0..readings.len()).min_by_key(|&index| readings[index].at) {
    let reading = &mut readings[index];
    if reading.at >= text.len() {
      deepest = deepest.max(reading.deepest);
      readings.swap_remove(index);
      continue;
    }
    if let Some(fork) = reading.step() {
      readings.push(fork);
      if readings.len() > MAX_READINGS {
        return Err(Unbounded::Readings);
      }
    }
    let reading = &readings[index];
    if reading.duplicate_labels > MAX_DUPLICATE_LABELS || reading.label_pairs > MAX_LABEL_PAIRS {
      return Err(Unbounded::Labels);
    }
    let at = readings[index].at;
    for other in 0..readings.len() {
      if other == index || readings[other].at != at {
        continue;
      }
      let (reading, other_reading) = if index < other {
        let (before, after) = readings.split_at_mut(other);
        (&mut before[index], &after[0])
      } else {
        let (before, after) = readings.split_at_mut(index);
        (&mut after[0], &before[other])
      };
      if reading.merge(other_reading) {
        readings.swap_remove(other);
        break;
      }
    }
  }
  Ok(deepest)
}

fn is_identifier_unit(unit: u16) -> bool {
  matches!(unit, 0x30..=0x39 | 0x41..=0x5a | 0x61..=0x7a | 0x24 | 0x5f | 0x5c)
    || unit >= 0x80 && !is_line_break(unit)
}

fn is_line_break(unit: u16) -> bool {
  matches!(unit, 0x0a | 0x0d | 0x2028 | 0x2029)
}

fn is_space(unit: u16) -> bool {
  matches!(
    unit,
    0x09 | 0x0b | 0x0c | 0x20 | 0xa0 | 0xfeff | 0x1680 | 0x2000..=0x200a | 0x202f | 0x205f | 0x3000
  )
}

impl<'a> Reading<'a> {
  fn peek(&self, offset: usize) -> Option<u16> {
    self.text.get(self.at + offset).copied()
  }

  fn top(&mut self) -> &mut Level {
    Rc::make_mut(&mut self.level)
  }

  fn add(&mut self, units: usize) {
    self.top().chain += units;
    self.depth += units;
    self.deepest = self.deepest.max(self.depth);
  }

  fn add_statement(&mut self) {
    self.top().statements += 1;
    self.depth += 1;
    self.deepest = self.deepest.max(self.depth);
  }

  /// A label: swc compares it with every label that may enclose it.
  fn label(&mut self, word: &str) {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    word.hash(&mut hasher);
    let name = hasher.finish();
    self.label_pairs += self.open_labels;
    let mut enclosing = self.labels.as_ref();
    while let Some(label) = enclosing {
      self.duplicate_labels += usize::from(label.name == name);
      enclosing = label.outer.as_ref();
    }
    self.labels = Some(Rc::new(Label {
      name,
      open: self.open,
      outer: self.labels.take(),
    }));
    self.open_labels += 1;
    self.add_statement();
  }

  /// A statement ended here: the levels of the statements it was nested in end with it, unless
  /// the next word carries them on.
  fn end_statement(&mut self) {
    if matches!(
      self.next_word().as_deref(),
      Some("else" | "while" | "catch" | "finally")
    ) {
      return;
    }
    let statements = std::mem::take(&mut self.top().statements);
    self.depth -= statements;
    while let Some(label) = self.labels.as_ref().filter(|label| label.open == self.open) {
      self.labels = label.outer.clone();
      self.open_labels -= 1;
    }
  }

  /// The word that comes next, past spaces, line breaks and comments, if a word does.
  fn next_word(&self) -> Option<String> {
    let start = self.skip_blanks(self.at);
    let end = (start..self.text.len())
      .find(|&index| !is_identifier_unit(self.text[index]))
      .unwrap_or(self.text.len());
    (end > start).then(|| String::from_utf16_lossy(&self.text[start..end]))
  }

  fn reset_chain(&mut self) {
    let chain = std::mem::take(&mut self.top().chain);
    self.depth -= chain;
  }

  /// Takes in `other`, a reading at the same point in the same state but for its counts, when
  /// there is one: its open levels must be of the same kinds. The counts kept are the larger.
  fn merge(&mut self, other: &Reading<'a>) -> bool {
    let state = |reading: &Reading| {
      let flags = (
        reading.line_broke,
        reading.after_dot,
        reading.after_control,
        reading.statement_start,
      );
      (reading.open, reading.previous, reading.slash, flags)
    };
    let same_labels = match (&self.labels, &other.labels) {
      (Some(mine), Some(theirs)) => Rc::ptr_eq(mine, theirs),
      (mine, theirs) => mine.is_none() && theirs.is_none(),
    };
    if state(self) != state(other) || !same_labels {
      return false;
    }
    // The levels either reading changed since they parted, innermost first.
    let mut changed = Vec::new();
    let (mut mine, mut theirs) = (Some(&self.level), Some(&other.level));
    while let (Some(a), Some(b)) = (mine, theirs) {
      if Rc::ptr_eq(a, b) {
        break;
      }
      let same_outside = match (&a.outside_labels, &b.outside_labels) {
        (Some((Some(mine), _)), Some((Some(theirs), _))) => Rc::ptr_eq(mine, theirs),
        (Some((None, _)), Some((None, _))) | (None, None) => true,
        _ => false,
      };
      if (a.kind, a.control) != (b.kind, b.control) || !same_outside {
        return false;
      }
      changed.push((
        a,
        a.chain.max(b.chain),
        a.statements.max(b.statements),
        a.angled || b.angled,
      ));
      (mine, theirs) = (a.outer.as_ref(), b.outer.as_ref());
    }
    let mut merged = mine.cloned();
    for &(level, chain, statements, angled) in changed.iter().rev() {
      self.depth += chain - level.chain + statements - level.statements;
      merged = Some(Rc::new(Level {
        kind: level.kind,
        chain,
        angled,
        control: level.control,
        statements,
        outside_labels: level.outside_labels.clone(),
        outer: merged,
      }));
    }
    self.level = merged.expect("the outermost level stays");
    self.deepest = self.deepest.max(other.deepest).max(self.depth);
    self.no_regex_before = self.no_regex_before.min(other.no_regex_before);
    self.label_pairs = self.label_pairs.max(other.label_pairs);
    self.duplicate_labels = self.duplicate_labels.max(other.duplicate_labels);
    true
  }

  fn open(&mut self, kind: u8) {
    let control = kind == b'(' && self.after_control;
    let outside_labels =
      matches!(kind, b'(' | b'[' | b'$').then(|| (self.labels.take(), std::mem::take(&mut self.open_labels)));
    if matches!(kind, b'(' | b'[') && self.previous == Previous::Operand {
      // A call or an index nests the expression before it.
      self.add(1);
    }
    self.depth += 1;
    self.deepest = self.deepest.max(self.depth);
    self.open += 1;
    let outer = self.level.clone();
    self.level = Rc::new(Level {
      kind,
      chain: 0,
      angled: false,
      control,
      statements: 0,
      outside_labels,
      outer: Some(outer),
    });
    self.previous = Previous::Operator;
    self.slash = Slash::Regex;
  }

  /// Closes the innermost level; `false` for a stray closer at the outermost level.
  fn close(&mut self, slash: Slash) -> bool {
    if self.open == 0 {
      return false;
    }
    self.reset_chain();
    let statements = self.level.statements;
    let outside_labels = self.level.outside_labels.clone();
    let outer = self.level.outer.clone().expect("an open level has an outer one");
    self.level = outer;
    if let Some((labels, open_labels)) = outside_labels {
      (self.labels, self.open_labels) = (labels, open_labels);
    }
    while let Some(label) = self.labels.as_ref().filter(|label| label.open == self.open) {
      self.labels = label.outer.clone();
      self.open_labels -= 1;
    }
    self.open -= 1;
    self.depth -= 1 + statements;
    self.previous = Previous::Operand;
    self.slash = slash;
    true
  }

  /// Reads one token. At a `/` the text cannot decide, it goes on reading a division and
  /// returns the reading that took a regular expression.
  fn step(&mut self) -> Option<Reading<'a>> {
    let unit = self.peek(0)?;
    match unit {
      _ if is_space(unit) => {
        self.at += 1;
        return None;
      }
      _ if is_line_break(unit) => {
        self.at += 1;
        self.line_broke = true;
        self.line_break();
        return None;
      }
      0x2f if self.peek(1) == Some(0x2f) => {
        self.skip_line_comment();
        return None;
      }
      0x2f if self.peek(1) == Some(0x2a) => {
        self.skip_block_comment();
        return None;
      }
      _ => {}
    }
    let (line_broke, after_dot) = (self.line_broke, self.after_dot);
    let (after_control, statement_start) = (self.after_control, self.statement_start || line_broke);
    let forked = self.comment_fork(statement_start);
    self.line_broke = false;
    self.after_dot = false;
    self.after_control = false;
    self.statement_start = false;
    match unit {
      0x2f => {
        let slash = match self.slash {
          Slash::Division if line_broke => Slash::Either,
          slash => slash,
        };
        let regex = if slash == Slash::Division {
          None
        } else {
          self.regex_end()
        };
        match (slash, regex) {
          (Slash::Regex, Some(end)) => self.regex(end),
          (Slash::Either, Some(end)) => {
            let mut fork = self.clone();
            fork.regex(end);
            self.operator(unit);
            return Some(fork);
          }
          _ => self.operator(unit),
        }
      }
      0x27 | 0x22 => self.skip_string(unit),
      0x60 => {
        self.at += 1;
        if self.previous == Previous::Operand {
          // A tagged template nests the expression before it.
          self.add(1);
        }
        self.template();
      }
      0x28 => {
        self.at += 1;
        self.after_control = after_control;
        self.open(b'(');
        self.after_control = false;
      }
      0x5b => {
        self.at += 1;
        self.open(b'[');
      }
      0x7b => {
        self.at += 1;
        self.open(b'{');
        self.statement_start = true;
      }
      0x29 => {
        self.at += 1;
        let control = self.level.control;
        self.close(if control { Slash::Regex } else { Slash::Division });
        if control {
          // A statement follows, perhaps on the next line: no line break ends anything here.
          self.previous = Previous::Keyword;
        }
        self.statement_start = control;
      }
      0x5d => {
        self.at += 1;
        self.close(Slash::Division);
      }
      0x7d => {
        self.at += 1;
        let kind = self.level.kind;
        if self.close(Slash::Either) && kind == b'$' {
          self.template();
        } else {
          if kind == b'{' {
            self.end_statement();
          }
          self.statement_start = true;
        }
      }
      0x2c if self.level.angled => {
        // A comma between type arguments: `A<x, A<x, …` nests all the same.
        self.at += 1;
        self.previous = Previous::Operator;
        self.slash = Slash::Regex;
      }
      0x2c | 0x3b => {
        self.at += 1;
        if unit == 0x3b {
          self.top().angled = false;
        }
        self.reset_chain();
        if unit == 0x3b {
          self.end_statement();
        }
        self.previous = Previous::Operator;
        self.slash = Slash::Regex;
        self.statement_start = unit == 0x3b;
      }
      _ if is_identifier_unit(unit) => self.word(after_dot, after_control, statement_start),
      0x2b | 0x2d if self.peek(1) == Some(unit) && self.previous == Previous::Operand && !line_broke => {
        // A postfix `++` or `--`: an operand still, so a `/` after it divides. (After a line
        // break it is a prefix one, of the next statement.)
        self.at += 2;
        self.add(2);
        self.slash = Slash::Division;
      }
      _ => self.operator(unit),
    }
    forked
  }

  /// `<!--` anywhere, and `-->` or a merge-conflict marker at the start of a line: swc reads the
  /// rest of the line as a comment (or skips it) in a script, and as code in a module. Returns
  /// the reading that skips it; this one reads it as code.
  fn comment_fork(&self, line_start: bool) -> Option<Reading<'a>> {
    let starts = |marker: &str| {
      marker
        .encode_utf16()
        .enumerate()
        .all(|(offset, unit)| self.peek(offset) == Some(unit))
    };
    let markers = ["-->", "<<<<<<<", "=======", ">>>>>>>", "|||||||"];
    if !(starts("<!--") || line_start && markers.into_iter().any(starts)) {
      return None;
    }
    let mut fork = self.clone();
    fork.skip_line_comment();
    Some(fork)
  }

  /// An operator or punctuator character: each may add a level (`===` counts three).
  fn operator(&mut self, unit: u16) {
    if unit == 0x3c {
      self.top().angled = true;
    }
    let before = self.at.checked_sub(1).and_then(|at| self.text.get(at)).copied();
    // After `.` (or `#`) a word is a name; after `...` a keyword is not, but reading it both
    // ways costs nothing.
    self.after_dot = matches!(unit, 0x2e | 0x23);
    self.statement_start = unit == 0x3a;
    self.at += 1;
    self.add(1);
    self.previous = Previous::Operator;
    self.slash = match unit {
      // `=>`: an arrow's body follows.
      0x3e if before == Some(0x3d) => Slash::Regex,
      // `>` may close type arguments (`f<T>`), `!` may assert non-null (`x!`, `x!!`), and the
      // second of `++` or `--` may be a postfix one (`x!++`): an operand, each of them, then.
      0x3e | 0x21 => Slash::Either,
      0x2b | 0x2d if before == Some(unit) => Slash::Either,
      _ => Slash::Regex,
    };
  }

  /// A line break ends the chain only between two operands: `a` then `b` on the next line are
  /// two statements, while an operator on either side joins the lines into one expression.
  fn line_break(&mut self) {
    if self.previous != Previous::Operand {
      return;
    }
    let mut ahead = self.at;
    while self
      .text
      .get(ahead)
      .is_some_and(|&unit| is_space(unit) || is_line_break(unit))
    {
      ahead += 1;
    }
    // Decided once for the whole run of blank lines (scanning it again per line was quadratic).
    self.at = ahead;
    let starts_word = self
      .text
      .get(ahead)
      .is_some_and(|&unit| is_identifier_unit(unit) || matches!(unit, 0x27 | 0x22));
    if !starts_word {
      return;
    }
    let word_end = (ahead..self.text.len())
      .find(|&index| !is_identifier_unit(self.text[index]))
      .unwrap_or(self.text.len());
    let word = String::from_utf16_lossy(&self.text[ahead..word_end]);
    if !CHAINING_WORDS.contains(&word.as_str()) {
      self.reset_chain();
      self.end_statement();
    }
  }

  fn word(&mut self, after_dot: bool, after_control: bool, statement_start: bool) {
    let start = self.at;
    while self.peek(0).is_some_and(is_identifier_unit) {
      // `\u{...}` escapes in identifiers: step over the braces with the escape.
      if self.peek(0) == Some(0x5c) && self.peek(2) == Some(0x7b) {
        while self.peek(0).is_some_and(|unit| unit != 0x7d) {
          self.at += 1;
        }
      }
      // An escape left open runs to the end of the text, and no further.
      self.at = (self.at + 1).min(self.text.len());
    }
    let word = String::from_utf16_lossy(&self.text[start..self.at]);
    let chaining = CHAINING_WORDS.contains(&word.as_str());
    let before_regex = BEFORE_REGEX.contains(&word.as_str());
    if !after_dot && STATEMENT_WORDS.contains(&word.as_str()) {
      self.add_statement();
    } else if chaining {
      self.add(1);
    }
    if !after_dot && statement_start && self.colon_follows() {
      self.label(&word);
    }
    self.statement_start = !after_dot && matches!(word.as_str(), "else" | "do");
    self.after_control = !after_dot
      && (matches!(word.as_str(), "if" | "while" | "for" | "with") || after_control && word == "await");
    self.slash = match (chaining || before_regex, after_dot) {
      // A keyword spelled as a name (`a.return`) divides; reading it both ways costs nothing.
      (true, true) => Slash::Either,
      // `void` is also a type (`x as void / 2`).
      (true, false) if before_regex && word != "void" => Slash::Regex,
      (true, false) => Slash::Either,
      (false, false) if CONTEXTUAL_WORDS.contains(&word.as_str()) => Slash::Either,
      (false, _) => Slash::Division,
    };
    self.previous = if chaining || before_regex {
      Previous::Keyword
    } else {
      Previous::Operand
    };
  }

  /// Whether a `:` comes next, past spaces, line breaks and comments.
  fn colon_follows(&self) -> bool {
    self.text.get(self.skip_blanks(self.at)) == Some(&0x3a)
  }

  /// Where the next token starts, from `at`: past spaces, line breaks and comments.
  fn skip_blanks(&self, mut at: usize) -> usize {
    loop {
      match self.text.get(at).copied() {
        Some(unit) if is_space(unit) || is_line_break(unit) => at += 1,
        Some(0x2f) if self.text.get(at + 1) == Some(&0x2f) => {
          while self.text.get(at).is_some_and(|&unit| !is_line_break(unit)) {
            at += 1;
          }
        }
        Some(0x2f) if self.text.get(at + 1) == Some(&0x2a) => {
          at += 2;
          while at < self.text.len() && !(self.text[at] == 0x2a && self.text.get(at + 1) == Some(&0x2f)) {
            at += 1;
          }
          at += 2;
        }
        _ => return at,
      }
    }
  }

  fn skip_string(&mut self, quote: u16) {
    self.at += 1;
    while let Some(unit) = self.peek(0) {
      self.at += 1;
      match unit {
        // A line continuation may be CR LF: one escape, two units.
        0x5c if self.peek(0) == Some(0x0d) && self.peek(1) == Some(0x0a) => self.at += 2,
        0x5c => self.at += 1,
        // Only LF and CR end a string: U+2028 and U+2029 are part of it.
        0x0a | 0x0d => break,
        _ if unit == quote => break,
        _ => {}
      }
    }
    self.previous = Previous::Operand;
    self.slash = Slash::Division;
  }

  /// Template text up to its end or its next `${`, which opens a level.
  fn template(&mut self) {
    while let Some(unit) = self.peek(0) {
      self.at += 1;
      match unit {
        0x5c => self.at += 1,
        0x60 => {
          self.previous = Previous::Operand;
          self.slash = Slash::Division;
          return;
        }
        0x24 if self.peek(0) == Some(0x7b) => {
          self.at += 1;
          self.open(b'$');
          return;
        }
        _ => {}
      }
    }
  }

  fn skip_line_comment(&mut self) {
    while self.peek(0).is_some_and(|unit| !is_line_break(unit)) {
      self.at += 1;
    }
  }

  fn skip_block_comment(&mut self) {
    self.at += 2;
    let mut broke_line = false;
    while let Some(unit) = self.peek(0) {
      if unit == 0x2a && self.peek(1) == Some(0x2f) {
        self.at += 2;
        break;
      }
      broke_line |= is_line_break(unit);
      self.at += 1;
    }
    if broke_line {
      self.line_broke = true;
      self.line_break();
    }
  }

  /// Reads a regular expression literal ending at `end` (its flags included).
  fn regex(&mut self, end: usize) {
    self.at = end;
    self.previous = Previous::Operand;
    self.slash = Slash::Division;
  }

  /// Where a regular expression literal starting at this `/` would end, flags included; `None`
  /// when its line ends first.
  ///
  /// A scan that failed from an earlier `/` on this line passed here inside a character class
  /// (outside one, this `/` would have closed it). A scan from here meets that one at the first
  /// `[` or `]`, and fails with it from then on, so it stops there: a line full of such slashes
  /// costs one pass, not one per slash.
  fn regex_end(&mut self) -> Option<usize> {
    let behind_failed_scan = self.at < self.no_regex_before;
    let mut index = self.at + 1;
    let mut in_class = false;
    while let Some(&unit) = self.text.get(index) {
      index += 1;
      match unit {
        _ if is_line_break(unit) => break,
        0x5c => index += 1,
        0x5b | 0x5d if behind_failed_scan => return None,
        0x5b => in_class = true,
        0x5d => in_class = false,
        0x2f if !in_class => {
          while self.text.get(index).copied().is_some_and(is_identifier_unit) {
            index += 1;
          }
          return Some(index);
        }
        _ => {}
      }
    }
    self.no_regex_before = self.no_regex_before.max(index);
    None
  }
}

#[cfg(test)]
mod tests {
  use super::{Unbounded, depth_bound};

  #[test]
  fn ordinary_programs_stay_shallow() {
    let program = "const xs = [1, 2, 3]\nconst total = xs.map((x) => x * 2).reduce((a, b) => a + b, 0)\n\
                   if (total > 3) {\n  console.log(`total ${total}`)\n} else {\n  console.log('small')\n}\nreturn total";
    assert!(depth_bound(program).unwrap() < 20, "{:?}", depth_bound(program));
  }

  #[test]
  fn statements_without_semicolons_do_not_add_up() {
    let program = "x.y = 1\n".repeat(10_000);
    assert!(depth_bound(&program).unwrap() < 10);
    let calls = "console.log(a.b)\n".repeat(10_000);
    assert!(depth_bound(&calls).unwrap() < 10);
  }

  #[test]
  fn every_nesting_shape_counts_at_least_one_per_level() {
    let n = 1_000;
    let shapes = [
      format!("return {}1{}", "(".repeat(n), ")".repeat(n)),
      format!("{}{}", "{".repeat(n), "}".repeat(n)),
      format!("return {}1{}", "[".repeat(n), "]".repeat(n)),
      format!("return {}x", "!".repeat(n)),
      format!("return 1{}", "+1".repeat(n)),
      format!("return a{}", ".b".repeat(n)),
      format!("return a{}", "\n.b".repeat(n)),
      format!("return f{}", "()".repeat(n)),
      format!("return f{}", "\n()".repeat(n)),
      format!("return a{}", "[0]".repeat(n)),
      format!("type T = {}1{}", "A<".repeat(n), ">".repeat(n)),
      format!("return {}1", "a ? 1 : ".repeat(n)),
      format!("return {}1", "x => ".repeat(n)),
      format!("return {}1", "x =>\n".repeat(n)),
      format!("return {}x{}", "`${".repeat(n), "}`".repeat(n)),
      format!("return f{}", "`t`".repeat(n)),
      format!("return f{}", "\n`t`".repeat(n)),
      format!("return x{}", "\nas T".repeat(n)),
      format!(
        "let await = 2\nreturn await / {}1{}/ 2",
        "(".repeat(n),
        ")".repeat(n)
      ),
      format!("return a++ / {}1{} / 2", "(".repeat(n), ")".repeat(n)),
      format!("type T = {}", "A<x, ".repeat(n)),
      format!("{}x = '\\\r\n{}'\n", "{".repeat(n), "}".repeat(n)),
      format!("{}x", "if (a)\n".repeat(n)),
      format!("if (a) {{}}{}", "\nelse if (a) {}".repeat(n)),
      format!("return {}x", "new ".repeat(n)),
      format!("return {}x", "typeof\n".repeat(n)),
      format!("return {}x", "await ".repeat(n)),
      format!("return {}1", "a = ".repeat(n)),
      format!("return {}1", "-".repeat(n)),
      format!("return {}", "<a>".repeat(n)),
      format!("return x{}", " as T".repeat(n)),
    ];
    for shape in shapes {
      let bound = depth_bound(&shape).unwrap();
      assert!(bound >= n, "{} counts {bound}", &shape[..40.min(shape.len())]);
    }
  }

  #[test]
  fn strings_comments_and_regexes_hide_no_brackets_and_invent_none() {
    let hidden = "(".repeat(1_000);
    for program in [
      format!("const s = '{hidden}'"),
      format!("const s = \"{hidden}\""),
      format!("const s = `{hidden}`"),
      format!("// {hidden}\nreturn 1"),
      format!("/* {hidden} */ return 1"),
      format!("return /{}/.test(s)", "\\(".repeat(1_000)),
    ] {
      assert!(depth_bound(&program).unwrap() < 10, "{}", &program[..30]);
    }
    // A division is never read as a regex that could hide real nesting.
    let division = format!(
      "let of = 4\nreturn of / {}1{}/ 2",
      "(".repeat(1_000),
      ")".repeat(1_000)
    );
    assert!(depth_bound(&division).unwrap() >= 1_000);
  }

  /// Programs whose regular expressions the text alone cannot tell from divisions, each built
  /// so that reading it the wrong way hides `n` real levels: real brackets read as a regex, a
  /// regex's closers read as code, or a backtick in a regex read as a template that swallows
  /// code. The bound must count them in every case.
  #[test]
  fn a_slash_read_either_way_hides_no_levels() {
    let n = 1_000;
    let (open, close) = ("(".repeat(n), ")".repeat(n));
    let (blocks, ends) = ("{".repeat(n), "}".repeat(n));
    let cases = [
      // A regex after `)` or `}`, whose closers, read as code, would close real levels.
      (
        format!("{blocks}if (a) /{ends}/.test(s)\n{blocks}{ends}{ends}"),
        2 * n,
      ),
      (
        format!("{blocks}{{}}\n/{ends}/.test(s)\n{blocks}{ends}{ends}"),
        2 * n,
      ),
      // A type, a line break, then a regex statement.
      (
        format!("{blocks}type A = B\n/{ends}/.test(s)\n{blocks}{ends}{ends}"),
        2 * n,
      ),
      (
        format!("{blocks}let x: string[]\n/{ends}/.test(s)\n{blocks}{ends}{ends}"),
        2 * n,
      ),
      (
        format!("{blocks}while (a) {{ break\n/{ends}/.test(s) }}\n{blocks}{ends}{ends}"),
        2 * n,
      ),
      (format!("{blocks}x = await /{ends}/\n{blocks}{ends}{ends}"), 2 * n),
      (
        format!("{blocks}for (const m of /{ends}/g.exec(s)) {{}}\n{blocks}{ends}{ends}"),
        2 * n,
      ),
      (
        format!("{blocks}class A extends /{ends}/.constructor {{}}\n{blocks}{ends}{ends}"),
        2 * n,
      ),
      // A regex whose backtick, read as code, would open a template over the real nesting.
      (
        format!("if (a) /`/.test(s)\nreturn {open}1{close}\nconst t = ``"),
        n,
      ),
      // Divisions whose brackets, read as a regex, would be skipped.
      (format!("return x! / {open}1{close} / 2"), n),
      (format!("return a.return / {open}1{close} / 2"), n),
      (
        format!("class A {{ #delete = 1; f() {{ return this.#delete / {open}1{close} / 2 }} }}"),
        n,
      ),
      (format!("return f<T> / {open}1{close} / 2"), n),
      // A prefix `++` on the line after an operand, then a regex.
      (
        format!("{blocks}a\n++/{ends}/.lastIndex\n{blocks}{ends}{ends}"),
        2 * n,
      ),
    ];
    for (program, real) in cases {
      let bound = depth_bound(&program).unwrap();
      assert!(
        bound >= real,
        "{} counts {bound}",
        &program[n.min(program.len() - 40)..][..40]
      );
    }
  }

  #[test]
  fn ordinary_divisions_and_regexes_stay_cheap_and_shallow() {
    let program = "x = (a + b) / 2; y = (c) / (d) / e\nif (x) /re/.test(s)\nz = [1] / 2 / 3\n".repeat(50_000);
    assert!(depth_bound(&program).unwrap() < 10);
    // One long line of slashes inside unclosed character classes: one pass, not one per slash.
    let classes = format!("x = a{}", " [ / ".repeat(200_000));
    assert!(depth_bound(&classes).is_ok());
    let parens = "x = (a) / (b) / c; ".repeat(200_000);
    assert!(depth_bound(&parens).unwrap() < 10);
  }

  #[test]
  fn a_million_levels_drop_without_recursing() {
    let program = format!("{}{}", "{".repeat(1_000_000), "}".repeat(1_000_000));
    assert!(depth_bound(&program).unwrap() >= 1_000_000);
    let unclosed = "(".repeat(1_000_000);
    assert!(depth_bound(&unclosed).unwrap() >= 1_000_000);
  }

  /// Shapes a hostile hunt found hiding levels from a reading of the text (each crashed the host
  /// at 1.6 million levels), all counted.
  #[test]
  fn comments_strings_and_statements_swc_reads_its_own_way_hide_no_levels() {
    let n = 1_000;
    let deep = format!("{}1{}", "(".repeat(n), ")".repeat(n));
    let cases = [
      (format!("let x = 1\n<!-- `\nreturn {deep}\n"), n),
      (format!("let x = 1\n--> `\nreturn {deep}\n"), n),
      (format!("let x = 1\n<<<<<<< `\nreturn {deep}\n"), n),
      (format!("let x = 1\n======= `\nreturn {deep}\n"), n),
      (format!("let x = 1\n>>>>>>> `\nreturn {deep}\n"), n),
      (format!("let x = '\u{2028}`'\nreturn {deep}\n"), n),
      (format!("let x = \"\u{2029}`\"\nreturn {deep}\n"), n),
      (format!("let x = 1\nreturn x as void / {deep} / 2\n"), n),
      (format!("let x = 1\nreturn x!! / {deep} / 2\n"), n),
      (format!("let x = 1\nreturn x!++ / {deep} / 2\n"), n),
      (format!("return 1..return / {deep} / 2\n"), n),
      (
        format!("let a = 0, b = 0\n{}b;\n", "if(a)b;else while(a)".repeat(n)),
        2 * n,
      ),
      (format!("{}b;", "if (a) b; else ".repeat(n)), n),
      (format!("{}b;", "if (a) b, b\nelse ".repeat(n)), n),
      (
        (0..n).map(|i| format!("if (a)\nl{i}: ")).collect::<String>() + "a",
        2 * n,
      ),
    ];
    for (program, real) in cases {
      let bound = depth_bound(&program).unwrap();
      assert!(
        bound >= real,
        "{:?} counts {bound}",
        &program[..40.min(program.len())]
      );
    }
  }

  #[test]
  fn labels_that_would_cost_swc_quadratic_memory_are_refused() {
    // 200 stacked equal labels: 19 900 pairs of equal labels, each an error swc keeps.
    assert_eq!(
      depth_bound(&format!("{}x", "l: ".repeat(200))),
      Err(Unbounded::Labels)
    );
    assert_eq!(
      depth_bound(&format!("{}x{}", "l: { ".repeat(200), " }".repeat(200))),
      Err(Unbounded::Labels)
    );
    // Distinct labels, siblings with equal names, and a big multi-line object pass.
    let distinct: String = (0..2_000).map(|i| format!("l{i}: ")).collect();
    assert!(depth_bound(&(distinct + "x")).is_ok());
    assert!(depth_bound(&"{ l: x }\n".repeat(20_000)).is_ok());
    let object: String = (0..5_000).map(|i| format!("\n  key{i}: {i},")).collect();
    assert!(depth_bound(&format!("const o = {{{object}\n}}")).is_ok());
  }

  #[test]
  fn regexes_after_arrows_and_unbalanced_brackets_in_them_stay_one_reading() {
    let program = "const f = (s) => /\\(/.test(s)\nconst g = (s) => /[{]/.test(s)\n".repeat(500);
    assert!(depth_bound(&program).unwrap() < 10);
  }

  #[test]
  fn an_identifier_escape_left_open_reads_to_the_end_and_no_further() {
    assert!(depth_bound("return 1 + a\\u{").is_ok());
    assert!(depth_bound(&format!("/*{}*/ return 1 + a\\u{{", " ".repeat(8_000))).is_ok());
  }

  #[test]
  fn keys_inside_brackets_pair_with_no_label_outside_them() {
    let rows = "{ id: 1 },".repeat(20_000);
    assert!(
      depth_bound(&format!(
        "const d = {{ id: 0, rows: [{rows}] }}; return d.rows.length"
      ))
      .is_ok()
    );
    // Fresh inside a function's parentheses too; stacked equal labels still pair.
    assert!(depth_bound(&format!("l: f(() => {{ {} }})", "l: x;".repeat(300))).is_ok());
    assert_eq!(
      depth_bound(&format!("f(() => {{ {}x }})", "l: ".repeat(200))),
      Err(Unbounded::Labels)
    );
  }
}
