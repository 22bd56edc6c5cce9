//! A bound on how deep a program's syntax tree can be, read from its text before anything parses
//! it: swc's parser, its visitors and the tree's destructor all recurse once per level, and a
//! thread that runs out of stack takes the whole process down.
//!
//! The bound must never be lower than the real depth, so every token that can add a level to the
//! tree counts one: each open bracket, `${` and call or index, and each operator, keyword or
//! type-level token that could chain into the expression before it. A level's count restarts
//! where no chain can continue: at `,` and `;`, and at a line break between two operands that
//! cannot be one expression (the break is then a statement boundary).

/// Words after which a `/` begins a regular expression: always reserved, never an operand.
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

/// What the previous significant token was.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Previous {
  /// Start of text, an operator or punctuator: an operand may follow, a `/` starts a regex.
  Operator,
  /// An identifier, literal or closing bracket: it can end an expression.
  Operand,
  /// A word in `CHAINING_WORDS` or `BEFORE_REGEX`: what follows may continue it.
  Keyword,
}

struct Scanner<'a> {
  text: &'a [u16],
  at: usize,
  /// Per open level: the count of chaining tokens since the level's last boundary.
  chains: Vec<usize>,
  /// The kind of each open level: `b'{'`, `b'('`, `b'['` or `b'$'` (a template substitution).
  kinds: Vec<u8>,
  /// Levels open plus chains: the depth bound at this point.
  depth: usize,
  deepest: usize,
  previous: Previous,
  /// Whether a `/` here starts a regular expression: after an operator or a word in
  /// `BEFORE_REGEX`, never after anything that could be an operand (a division).
  regex_may_follow: bool,
  /// A regex scan that met the end of its line before closing: none is tried again before it.
  no_regex_before: usize,
  /// Per open level: whether a `<` opened a type argument list in it, where `,` ends no chain.
  angled: Vec<bool>,
}

/// An upper bound on the syntax-tree depth of `program`, in units of roughly one tree level.
pub fn depth_bound(program: &str) -> usize {
  let text: Vec<u16> = program.encode_utf16().collect();
  let mut scanner = Scanner {
    text: &text,
    at: 0,
    chains: vec![0],
    kinds: vec![b'{'],
    depth: 0,
    deepest: 0,
    previous: Previous::Operator,
    regex_may_follow: true,
    no_regex_before: 0,
    angled: vec![false],
  };
  scanner.scan();
  scanner.deepest
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

impl Scanner<'_> {
  fn peek(&self, offset: usize) -> Option<u16> {
    self.text.get(self.at + offset).copied()
  }

  fn add(&mut self, units: usize) {
    *self.chains.last_mut().expect("the outermost level stays") += units;
    self.depth += units;
    self.deepest = self.deepest.max(self.depth);
  }

  fn reset_chain(&mut self) {
    let chain = std::mem::take(self.chains.last_mut().expect("the outermost level stays"));
    self.depth -= chain;
  }

  fn open(&mut self, kind: u8) {
    if matches!(kind, b'(' | b'[') && self.previous == Previous::Operand {
      // A call or an index nests the expression before it.
      self.add(1);
    }
    self.depth += 1;
    self.deepest = self.deepest.max(self.depth);
    self.chains.push(0);
    self.kinds.push(kind);
    self.angled.push(false);
    self.previous = Previous::Operator;
    self.regex_may_follow = true;
  }

  /// Closes the innermost level; `false` for a stray closer at the outermost level.
  fn close(&mut self) -> bool {
    if self.kinds.len() == 1 {
      return false;
    }
    self.reset_chain();
    self.chains.pop();
    self.kinds.pop();
    self.angled.pop();
    self.depth -= 1;
    self.previous = Previous::Operand;
    self.regex_may_follow = false;
    true
  }

  fn scan(&mut self) {
    while let Some(unit) = self.peek(0) {
      match unit {
        _ if is_space(unit) => self.at += 1,
        _ if is_line_break(unit) => {
          self.at += 1;
          self.line_break();
        }
        0x2f if self.peek(1) == Some(0x2f) => self.skip_line_comment(),
        0x2f if self.peek(1) == Some(0x2a) => self.skip_block_comment(),
        0x2f if self.regex_may_follow && self.at >= self.no_regex_before && self.skip_regex() => {}
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
          self.open(b'(');
        }
        0x5b => {
          self.at += 1;
          self.open(b'[');
        }
        0x7b => {
          self.at += 1;
          self.open(b'{');
        }
        0x29 | 0x5d => {
          self.at += 1;
          self.close();
        }
        0x7d => {
          self.at += 1;
          let in_template = self.kinds.last() == Some(&b'$');
          if self.close() && in_template {
            self.template();
          }
        }
        0x2c if *self.angled.last().expect("the outermost level stays") => {
          // A comma between type arguments: `A<x, A<x, …` nests all the same.
          self.at += 1;
          self.previous = Previous::Operator;
          self.regex_may_follow = true;
        }
        0x2c | 0x3b => {
          self.at += 1;
          if unit == 0x3b {
            *self.angled.last_mut().expect("the outermost level stays") = false;
          }
          self.reset_chain();
          self.previous = Previous::Operator;
          self.regex_may_follow = true;
        }
        _ if is_identifier_unit(unit) => self.word(),
        0x2b | 0x2d if self.peek(1) == Some(unit) && self.previous == Previous::Operand => {
          // A postfix `++` or `--`: an operand still, so a `/` after it divides.
          self.at += 2;
          self.add(2);
          self.regex_may_follow = false;
        }
        _ => {
          // An operator or punctuator character: each may add a level (`===` counts three).
          if unit == 0x3c {
            *self.angled.last_mut().expect("the outermost level stays") = true;
          }
          self.at += 1;
          self.add(1);
          self.previous = Previous::Operator;
          self.regex_may_follow = true;
        }
      }
    }
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

  fn word(&mut self) {
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
    if CHAINING_WORDS.contains(&word.as_str()) {
      self.add(1);
    }
    self.regex_may_follow = BEFORE_REGEX.contains(&word.as_str());
    self.previous = if self.regex_may_follow || CHAINING_WORDS.contains(&word.as_str()) {
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
    self.regex_may_follow = false;
  }

  /// Template text up to its end or its next `${`, which opens a level.
  fn template(&mut self) {
    while let Some(unit) = self.peek(0) {
      self.at += 1;
      match unit {
        0x5c => self.at += 1,
        0x60 => {
          self.previous = Previous::Operand;
          self.regex_may_follow = false;
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
      self.line_break();
    }
  }

  /// Skips a regular expression literal; `false` (and nothing skipped) when the line ends first,
  /// so the `/` is read as an operator: reading too little as a regex only counts more.
  fn skip_regex(&mut self) -> bool {
    let mut index = self.at + 1;
    let mut in_class = false;
    while let Some(&unit) = self.text.get(index) {
      index += 1;
      match unit {
        _ if is_line_break(unit) => {
          self.no_regex_before = index;
          return false;
        }
        0x5c => index += 1,
        0x5b => in_class = true,
        0x5d => in_class = false,
        0x2f if !in_class => {
          while self.text.get(index).copied().is_some_and(is_identifier_unit) {
            index += 1;
          }
          self.at = index;
          self.previous = Previous::Operand;
          self.regex_may_follow = false;
          return true;
        }
        _ => {}
      }
    }
    false
  }
}

#[cfg(test)]
mod tests {
  use super::depth_bound;

  #[test]
  fn ordinary_programs_stay_shallow() {
    let program = "const xs = [1, 2, 3]\nconst total = xs.map((x) => x * 2).reduce((a, b) => a + b, 0)\n\
                   if (total > 3) {\n  console.log(`total ${total}`)\n} else {\n  console.log('small')\n}\nreturn total";
    assert!(depth_bound(program) < 20, "{}", depth_bound(program));
  }

  #[test]
  fn statements_without_semicolons_do_not_add_up() {
    let program = "x.y = 1\n".repeat(10_000);
    assert!(depth_bound(&program) < 10);
    let calls = "console.log(a.b)\n".repeat(10_000);
    assert!(depth_bound(&calls) < 10);
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
      let bound = depth_bound(&shape);
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
      assert!(depth_bound(&program) < 10, "{}", &program[..30]);
    }
    // A division is never read as a regex that could hide real nesting.
    let division = format!(
      "let of = 4\nreturn of / {}1{}/ 2",
      "(".repeat(1_000),
      ")".repeat(1_000)
    );
    assert!(depth_bound(&division) >= 1_000);
  }
}
