//! A function's source text as the program wrote it.
//!
//! The listing guards insert calls into the program's text (see `listing_guards`), and V8 gives a
//! function's source (`Function.prototype.toString`) from the text it compiled, so without this a
//! program would read its own function as `for (k of __dsh_forIn(o)) {__dsh_poll();…}`.

use std::cell::OnceCell;

/// The longest stretch V8 records between a function's first character and its parameters (a
/// 16-bit offset, 0xFFFF meaning out of range); past it, V8 gives `[native code]` for the
/// function's source. A class's text is V8's from its own start, however far before.
const MAX_HEADER_UNITS: usize = 0xFFFE;

/// `class`, in UTF-16 units.
const CLASS: [u16; 5] = [b'c' as u16, b'l' as u16, b'a' as u16, b's' as u16, b's' as u16];

/// Past this many UTF-16 units compared to find a function in the program, its text is left as V8
/// gives it: only a contrived, self-similar header gets near it, and the search runs in one op.
const MAX_COMPARED_UNITS: usize = 1 << 24;

/// What the listing guards changed, at a UTF-16 offset of the guarded text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
  /// Text the program never had, this many UTF-16 units long.
  Inserted(u32),
  /// A for-in's `in`, written as `of`.
  In,
}

/// The guarded text of a program and what the guards changed in it, in order.
#[derive(Debug)]
pub struct GuardedText {
  code: String,
  changes: Vec<(u32, Change)>,
  /// The text in UTF-16 units, and where each of its lines begins, made on first use: most
  /// programs never read a function's source.
  units: OnceCell<(Vec<u16>, Vec<u32>)>,
}

impl GuardedText {
  pub fn new(code: String, changes: Vec<(u32, Change)>) -> Self {
    Self {
      code,
      changes,
      units: OnceCell::new(),
    }
  }

  /// The program's own text of a function whose source V8 gives as `text` and whose parameters
  /// begin at `line` and `column` of the guarded text (0-based, in UTF-16 units, as V8 counts
  /// them). `None` when the guards changed nothing in it, or it is not found where V8 puts it.
  pub fn own_text(&self, line: u32, column: u32, text: &[u16]) -> Option<Vec<u16>> {
    let (units, line_starts) = self.units.get_or_init(|| {
      let units: Vec<u16> = self.code.encode_utf16().collect();
      let line_starts = line_starts(&units);
      (units, line_starts)
    });
    let parameters = *line_starts.get(line as usize)? as usize + column as usize;
    let start = find_start(units, parameters, text)?;
    without_changes(units, &self.changes, start, start + text.len())
  }
}

/// `units[start..end]` of a guarded text, with `changes` taken out; `None` when none falls in it, or
/// one does not end inside it (text V8 gives for a function never ends inside what was inserted).
pub fn without_changes(
  units: &[u16],
  changes: &[(u32, Change)],
  start: usize,
  end: usize,
) -> Option<Vec<u16>> {
  let first = changes.partition_point(|&(at, _)| (at as usize) < start);
  let inside = &changes[first..changes.partition_point(|&(at, _)| (at as usize) < end)];
  if inside.is_empty() {
    return None;
  }
  let mut own = Vec::with_capacity(end - start);
  let mut copied = start;
  for &(at, change) in inside {
    let at = at as usize;
    own.extend_from_slice(&units[copied..at]);
    copied = match change {
      Change::Inserted(length) => at + length as usize,
      Change::In => {
        own.extend("in".encode_utf16());
        at + 2
      }
    };
    if copied > end {
      return None;
    }
  }
  own.extend_from_slice(&units[copied..end]);
  Some(own)
}

/// Where each line of `units` begins, with V8's line terminators (`\r\n` is one).
fn line_starts(units: &[u16]) -> Vec<u32> {
  let mut starts = vec![0];
  for (at, &unit) in units.iter().enumerate() {
    let ends_line = match unit {
      0x0A | 0x2028 | 0x2029 => true,
      0x0D => units.get(at + 1) != Some(&0x0A),
      _ => false,
    };
    if ends_line {
      starts.push(at as u32 + 1);
    }
  }
  starts
}

/// Where `text` begins in `units`, given that the function's parameters begin at `parameters`:
/// the nearest start at most `MAX_HEADER_UNITS` before them at which `units` reads `text`.
fn find_start(units: &[u16], parameters: usize, text: &[u16]) -> Option<usize> {
  let first = *units.get(parameters)?;
  if text.is_empty() {
    return None;
  }
  let is_class = text.starts_with(&CLASS);
  let max_header = if is_class {
    parameters
  } else {
    MAX_HEADER_UNITS.min(parameters)
  };
  let mut compared = 0;
  for header in 0..=max_header.min(text.len() - 1) {
    if text[header] != first {
      continue;
    }
    let start = parameters - header;
    let Some(candidate) = units.get(start..start + text.len()) else {
      continue;
    };
    let same = candidate.iter().zip(text).take_while(|(a, b)| a == b).count();
    if same == text.len() {
      return Some(start);
    }
    compared += same + 1;
    if compared > MAX_COMPARED_UNITS {
      return None;
    }
  }
  None
}

#[cfg(test)]
mod tests {
  use super::*;

  fn utf16(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
  }

  fn own(guarded: &GuardedText, line: u32, column: u32, text: &str) -> Option<String> {
    guarded
      .own_text(line, column, &utf16(text))
      .map(|own| String::from_utf16(&own).unwrap())
  }

  #[test]
  fn insertions_inside_a_function_are_taken_out_and_its_in_restored() {
    // `function f(o) { for (k in o) {} }`, guarded.
    let code = "let x = 1;\nfunction f(o) { for (k of __dsh_forIn(o)) {__dsh_poll();{}} }\n";
    let line = "function f(o) { for (k of __dsh_forIn(o)) {__dsh_poll();{}} }";
    let at = |needle: &str| (code.find(needle).unwrap()) as u32;
    let guarded = GuardedText::new(
      code.to_owned(),
      vec![
        (at("of __dsh"), Change::In),
        (at("__dsh_forIn("), Change::Inserted(12)),
        (at("))"), Change::Inserted(1)),
        (at("{__dsh_poll"), Change::Inserted(14)),
        (at("}} }") + 1, Change::Inserted(1)),
      ],
    );
    assert_eq!(
      own(&guarded, 1, 10, line).as_deref(),
      Some("function f(o) { for (k in o) {} }")
    );
  }

  #[test]
  fn a_function_the_guards_left_alone_is_not_rewritten() {
    let code = "function g() { return 1 }\nwhile (x) {__dsh_poll();;}\n";
    let poll = code.find("{__dsh").unwrap() as u32;
    let guarded = GuardedText::new(
      code.to_owned(),
      vec![(poll, Change::Inserted(14)), (poll + 15, Change::Inserted(1))],
    );
    assert_eq!(own(&guarded, 0, 10, "function g() { return 1 }"), None);
  }

  #[test]
  fn lines_count_as_v8_counts_them_and_columns_in_utf16_units() {
    // An astral character (two units) before the function on its line, and `\r\n`, `\r` and
    // U+2028 line breaks before it.
    let code = "a\r\nb\rc\u{2028}'\u{1F600}'; () => {__dsh_poll();}";
    let units = utf16(code);
    let arrow = units.len() - utf16("() => {__dsh_poll();}").len();
    let poll = arrow + 7;
    let guarded = GuardedText::new(code.to_owned(), vec![(poll as u32, Change::Inserted(13))]);
    assert_eq!(
      own(&guarded, 3, 6, "() => {__dsh_poll();}").as_deref(),
      Some("() => {}")
    );
  }

  #[test]
  fn a_class_is_found_however_far_its_constructor_is_from_its_start() {
    let member = format!("m() {{ return '{}' }} ", "x".repeat(70_000));
    let code = format!("class C {{ {member}constructor(a) {{ while (a) {{__dsh_poll();a--}} }} }}");
    let parameters = code.find("(a)").unwrap() as u32;
    let poll = code.find("__dsh").unwrap() as u32;
    let guarded = GuardedText::new(code.clone(), vec![(poll, Change::Inserted(13))]);
    assert_eq!(
      own(&guarded, 0, parameters, &code),
      Some(format!(
        "class C {{ {member}constructor(a) {{ while (a) {{a--}} }} }}"
      ))
    );
  }

  #[test]
  fn the_nearest_start_that_reads_as_the_text_is_taken() {
    // A method's text begins at its name, some units before its parameters.
    let code = "({ aaa(q) { while (q) {__dsh_poll();} } })";
    let guarded = GuardedText::new(
      code.to_owned(),
      vec![(code.find("{__dsh").unwrap() as u32 + 1, Change::Inserted(13))],
    );
    assert_eq!(
      own(&guarded, 0, 6, "aaa(q) { while (q) {__dsh_poll();} }").as_deref(),
      Some("aaa(q) { while (q) {} }")
    );
    // Text that is not where V8 says is left as it is.
    assert_eq!(own(&guarded, 0, 6, "bbb(q) { while (q) {__dsh_poll();} }"), None);
  }
}
