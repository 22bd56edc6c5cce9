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
//! Where the text alone cannot tell a regular expression from a division (`if (a) /re/` against
//! `(a) / b`), the reading forks and follows both, since what one takes for a regex the other
//! reads as code. Readings that meet at one point in the same state merge, keeping the larger
//! counts, and the bound is the deepest any reading went: it holds whichever one swc takes.

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

/// Words after which a `/` may begin a regular expression or divide: `await /re/` and `yield /re/`
/// in one function, an identifier `await` or `yield` divided in another.
const CONTEXTUAL_WORDS: &[&str] = &["of", "default"];

/// Readings alive at once past which the text is called unreadable (no program a person or a
/// model writes comes near: a reading ends at most a line after the `/` that forked it).
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
  outer: Option<Rc<Level>>,
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
  /// A regex scan from before this point met the end of its line while inside a character class
  /// (see `regex_end`).
  no_regex_before: usize,
}

/// An upper bound on the syntax-tree depth of `program`, in units of roughly one tree level;
/// `None` when the text forks into more readings than `MAX_READINGS`.
pub fn depth_bound(program: &str) -> Option<usize> {
  let text: Vec<u16> = program.encode_utf16().collect();
  let mut readings = vec![Reading {
    text: &text,
    at: 0,
    level: Rc::new(Level {
      kind: b'{',
      chain: 0,
      angled: false,
      control: false,
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
        return None;
      }
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
  Some(deepest)
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

  fn reset_chain(&mut self) {
    let chain = std::mem::take(&mut self.top().chain);
    self.depth -= chain;
  }

  /// Takes in `other`, a reading at the same point in the same state but for its counts, when
  /// there is one: its open levels must be of the same kinds. The counts kept are the larger.
  fn merge(&mut self, other: &Reading<'a>) -> bool {
    let state = |reading: &Reading| {
      let flags = (reading.line_broke, reading.after_dot, reading.after_control);
      (reading.open, reading.previous, reading.slash, flags)
    };
    if state(self) != state(other) {
      return false;
    }
    // The levels either reading changed since they parted, innermost first.
    let mut changed = Vec::new();
    let (mut mine, mut theirs) = (Some(&self.level), Some(&other.level));
    while let (Some(a), Some(b)) = (mine, theirs) {
      if Rc::ptr_eq(a, b) {
        break;
      }
      if (a.kind, a.control) != (b.kind, b.control) {
        return false;
      }
      changed.push((a, a.chain.max(b.chain), a.angled || b.angled));
      (mine, theirs) = (a.outer.as_ref(), b.outer.as_ref());
    }
    let mut merged = mine.cloned();
    for &(level, chain, angled) in changed.iter().rev() {
      self.depth += chain - level.chain;
      merged = Some(Rc::new(Level {
        kind: level.kind,
        chain,
        angled,
        control: level.control,
        outer: merged,
      }));
    }
    self.level = merged.expect("the outermost level stays");
    self.deepest = self.deepest.max(other.deepest).max(self.depth);
    self.no_regex_before = self.no_regex_before.min(other.no_regex_before);
    true
  }

  fn open(&mut self, kind: u8) {
    let control = kind == b'(' && self.after_control;
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
    let outer = self.level.outer.clone().expect("an open level has an outer one");
    self.level = outer;
    self.open -= 1;
    self.depth -= 1;
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
    let after_control = self.after_control;
    self.line_broke = false;
    self.after_dot = false;
    self.after_control = false;
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
            self.operator(unit, false);
            return Some(fork);
          }
          _ => self.operator(unit, false),
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
      }
      0x29 => {
        self.at += 1;
        let slash = if self.level.control {
          Slash::Regex
        } else {
          Slash::Division
        };
        self.close(slash);
      }
      0x5d => {
        self.at += 1;
        self.close(Slash::Division);
      }
      0x7d => {
        self.at += 1;
        let in_template = self.level.kind == b'$';
        if self.close(Slash::Either) && in_template {
          self.template();
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
        self.previous = Previous::Operator;
        self.slash = Slash::Regex;
      }
      _ if is_identifier_unit(unit) => self.word(after_dot, after_control),
      0x2b | 0x2d
        if self.peek(1) == Some(unit) && self.previous == Previous::Operand && !line_broke =>
      {
        // A postfix `++` or `--`: an operand still, so a `/` after it divides. (After a line
        // break it is a prefix one, of the next statement.)
        self.at += 2;
        self.add(2);
        self.slash = Slash::Division;
      }
      _ => {
        let operand_before = self.previous == Previous::Operand;
        self.operator(unit, operand_before);
      }
    }
    None
  }

  /// An operator or punctuator character: each may add a level (`===` counts three).
  fn operator(&mut self, unit: u16, operand_before: bool) {
    if unit == 0x3c {
      self.top().angled = true;
    }
    // A lone `.` (not the last of a spread's three) makes the next word a property name.
    self.after_dot = unit == 0x23 || unit == 0x2e && self.at.checked_sub(1).and_then(|before| self.text.get(before)) != Some(&0x2e);
    self.at += 1;
    self.add(1);
    self.previous = Previous::Operator;
    self.slash = match unit {
      // `>` may close type arguments (`f<T>`), and `x!` asserts non-null: an operand either way.
      0x3e => Slash::Either,
      0x21 if operand_before => Slash::Either,
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
    }
  }

  fn word(&mut self, after_dot: bool, after_control: bool) {
    let start = self.at;
    while self.peek(0).is_some_and(is_identifier_unit) {
      // `\u{...}` escapes in identifiers: step over the braces with the escape.
      if self.peek(0) == Some(0x5c) && self.peek(2) == Some(0x7b) {
        while self.peek(0).is_some_and(|unit| unit != 0x7d) {
          self.at += 1;
        }
      }
      self.at += 1;
    }
    let word = String::from_utf16_lossy(&self.text[start..self.at]);
    let chaining = CHAINING_WORDS.contains(&word.as_str());
    let before_regex = BEFORE_REGEX.contains(&word.as_str());
    if chaining {
      self.add(1);
    }
    self.after_control = !after_dot
      && (matches!(word.as_str(), "if" | "while" | "for" | "with") || after_control && word == "await");
    self.slash = match (chaining || before_regex, after_dot) {
      // A keyword spelled as a name (`a.return`) divides; reading it both ways costs nothing.
      (true, true) => Slash::Either,
      (true, false) if before_regex => Slash::Regex,
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

  fn skip_string(&mut self, quote: u16) {
    self.at += 1;
    while let Some(unit) = self.peek(0) {
      self.at += 1;
      match unit {
        // A line continuation may be CR LF: one escape, two units.
        0x5c if self.peek(0) == Some(0x0d) && self.peek(1) == Some(0x0a) => self.at += 2,
        0x5c => self.at += 1,
        _ if unit == quote || is_line_break(unit) => break,
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
  use super::depth_bound;

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
      format!("{}x", "a: ".repeat(n)),
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
      (format!("{blocks}if (a) /{ends}/.test(s)\n{blocks}{ends}{ends}"), 2 * n),
      (format!("{blocks}{{}}\n/{ends}/.test(s)\n{blocks}{ends}{ends}"), 2 * n),
      // A type, a line break, then a regex statement.
      (format!("{blocks}type A = B\n/{ends}/.test(s)\n{blocks}{ends}{ends}"), 2 * n),
      (format!("{blocks}let x: string[]\n/{ends}/.test(s)\n{blocks}{ends}{ends}"), 2 * n),
      (format!("{blocks}while (a) {{ break\n/{ends}/.test(s) }}\n{blocks}{ends}{ends}"), 2 * n),
      (format!("{blocks}x = await /{ends}/\n{blocks}{ends}{ends}"), 2 * n),
      (format!("{blocks}for (const m of /{ends}/g.exec(s)) {{}}\n{blocks}{ends}{ends}"), 2 * n),
      (format!("{blocks}class A extends /{ends}/.constructor {{}}\n{blocks}{ends}{ends}"), 2 * n),
      // A regex whose backtick, read as code, would open a template over the real nesting.
      (format!("if (a) /`/.test(s)\nreturn {open}1{close}\nconst t = ``"), n),
      // Divisions whose brackets, read as a regex, would be skipped.
      (format!("return x! / {open}1{close} / 2"), n),
      (format!("return a.return / {open}1{close} / 2"), n),
      (format!("class A {{ #delete = 1; f() {{ return this.#delete / {open}1{close} / 2 }} }}"), n),
      (format!("return f<T> / {open}1{close} / 2"), n),
      // A prefix `++` on the line after an operand, then a regex.
      (format!("{blocks}a\n++/{ends}/.lastIndex\n{blocks}{ends}{ends}"), 2 * n),
    ];
    for (program, real) in cases {
      let bound = depth_bound(&program).unwrap();
      assert!(bound >= real, "{} counts {bound}", &program[n.min(program.len() - 40)..][..40]);
    }
  }

  #[test]
  fn ordinary_divisions_and_regexes_stay_cheap_and_shallow() {
    let program = "x = (a + b) / 2; y = (c) / (d) / e\nif (x) /re/.test(s)\nz = [1] / 2 / 3\n".repeat(50_000);
    assert!(depth_bound(&program).unwrap() < 10);
    // One long line of slashes inside unclosed character classes: one pass, not one per slash.
    let classes = format!("x = a{}", " [ / ".repeat(200_000));
    assert!(depth_bound(&classes).is_some());
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
}
