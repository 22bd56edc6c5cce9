//! Node's `util.inspect` text for what the console writes without JavaScript
//! (`engine::console_line`): quoted strings, property keys and one flat object, in UTF-16 units.
//! `src/js/inspect.js` renders everything else and is the reference for every rule here.

/// The console's line width (`breakLength`).
const BREAK_LENGTH: usize = 80;

/// Longer strings, as values in an object the console prints, are split on their line breaks
/// (`breakLength` less the value's indentation, 2, and 4); those lines are left to inspect.js.
pub const LONGEST_FLAT_STRING: usize = BREAK_LENGTH - 2 - 4;

const HIGH: std::ops::RangeInclusive<u16> = 0xD800..=0xDBFF;
const LOW: std::ops::RangeInclusive<u16> = 0xDC00..=0xDFFF;

fn ascii(text: &str) -> impl Iterator<Item = u16> + '_ {
  text.bytes().map(u16::from)
}

fn push_ascii(out: &mut Vec<u16>, text: &str) {
  out.extend(ascii(text));
}

/// One unit escaped as inspect's `escapeMeta` does.
fn push_meta(out: &mut Vec<u16>, unit: u16) {
  match unit {
    0x08 => push_ascii(out, "\\b"),
    0x09 => push_ascii(out, "\\t"),
    0x0A => push_ascii(out, "\\n"),
    0x0C => push_ascii(out, "\\f"),
    0x0D => push_ascii(out, "\\r"),
    0x27 => push_ascii(out, "\\'"),
    0x5C => push_ascii(out, "\\\\"),
    _ => push_ascii(out, &format!("\\x{unit:02X}")),
  }
}

fn contains_pair(text: &[u16], first: u8, second: u8) -> bool {
  text
    .windows(2)
    .any(|pair| pair[0] == u16::from(first) && pair[1] == u16::from(second))
}

/// `text` quoted: in single quotes, or in double quotes or backticks when that saves escaping a
/// single quote; control characters, backslashes and lone surrogates escaped.
pub fn push_quoted(out: &mut Vec<u16>, text: &[u16]) {
  let has = |unit: u8| text.contains(&u16::from(unit));
  let (wrap, escaped_quote) = if !has(b'\'') {
    (b'\'', Some(u16::from(b'\'')))
  } else if !has(b'"') {
    (b'"', None)
  } else if !has(b'`') && !contains_pair(text, b'$', b'{') {
    (b'`', None)
  } else {
    (b'\'', Some(u16::from(b'\'')))
  };
  out.push(u16::from(wrap));
  let mut at = 0;
  while at < text.len() {
    let unit = text[at];
    if Some(unit) == escaped_quote || unit == 0x5C || unit < 0x20 || (0x7F..0xA0).contains(&unit) {
      push_meta(out, unit);
    } else if HIGH.contains(&unit) && text.get(at + 1).is_some_and(|next| LOW.contains(next)) {
      out.extend_from_slice(&text[at..at + 2]);
      at += 1;
    } else if HIGH.contains(&unit) || LOW.contains(&unit) {
      push_ascii(out, &format!("\\u{unit:x}"));
    } else {
      out.push(unit);
    }
    at += 1;
  }
  out.push(u16::from(wrap));
}

/// An identifier of ASCII letters, digits and `_`, not starting with a digit: written bare.
fn is_plain_key(key: &[u16]) -> bool {
  let letter = |unit: u16| u8::try_from(unit).is_ok_and(|byte| byte.is_ascii_alphabetic() || byte == b'_');
  let digit = |unit: u16| u8::try_from(unit).is_ok_and(|byte| byte.is_ascii_digit());
  key.first().is_some_and(|&first| letter(first)) && key.iter().all(|&unit| letter(unit) || digit(unit))
}

/// A property key as inspect writes it before `: `.
pub fn push_key(out: &mut Vec<u16>, key: &[u16]) {
  if key.iter().copied().eq(ascii("__proto__")) {
    push_ascii(out, "['__proto__']");
  } else if is_plain_key(key) {
    out.extend_from_slice(key);
  } else {
    push_quoted(out, key);
  }
}

/// An object of `entries` (each `key: value`, none holding a line break) printed at the top of a
/// console line: on one line when it fits `BREAK_LENGTH` by inspect's reckoning, else one entry a line.
pub fn push_flat_object(out: &mut Vec<u16>, entries: &[Vec<u16>]) {
  if entries.is_empty() {
    push_ascii(out, "{}");
    return;
  }
  // inspect's `isBelowBreakLength`: the entries, a unit of separator each, and 11 for the braces
  // and indentation, with a first test that counts the separators twice.
  let count = entries.len();
  let reckoned = 2 * count + 11;
  let one_line = reckoned + count <= BREAK_LENGTH
    && reckoned + entries.iter().map(Vec::len).sum::<usize>() <= BREAK_LENGTH;
  let (open, separator, close) = if one_line {
    ("{ ", ", ", " }")
  } else {
    ("{\n  ", ",\n  ", "\n}")
  };
  push_ascii(out, open);
  for (index, entry) in entries.iter().enumerate() {
    if index > 0 {
      push_ascii(out, separator);
    }
    out.extend_from_slice(entry);
  }
  push_ascii(out, close);
}

#[cfg(test)]
mod tests {
  use super::*;

  fn utf16(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
  }

  fn quoted(units: &[u16]) -> String {
    let mut out = Vec::new();
    push_quoted(&mut out, units);
    String::from_utf16(&out).unwrap()
  }

  fn key(text: &str) -> String {
    let mut out = Vec::new();
    push_key(&mut out, &utf16(text));
    String::from_utf16(&out).unwrap()
  }

  fn object(entries: &[&str]) -> String {
    let entries: Vec<Vec<u16>> = entries.iter().map(|entry| utf16(entry)).collect();
    let mut out = Vec::new();
    push_flat_object(&mut out, &entries);
    String::from_utf16(&out).unwrap()
  }

  // Every expected text is what Node 24's `util.inspect` gives for the same value.
  #[test]
  fn quotes_as_node_does() {
    assert_eq!(quoted(&utf16("plain")), "'plain'");
    assert_eq!(quoted(&utf16("it's")), "\"it's\"");
    assert_eq!(quoted(&utf16("it's \"q\"")), "`it's \"q\"`");
    assert_eq!(quoted(&utf16("it's \"q\" `b`")), "'it\\'s \"q\" `b`'");
    assert_eq!(quoted(&utf16("it's \"q\" ${x}")), "'it\\'s \"q\" ${x}'");
    assert_eq!(
      quoted(&utf16("a\nb\tc\\d\u{0}\u{b}\u{1f}")),
      "'a\\nb\\tc\\\\d\\x00\\x0B\\x1F'"
    );
    assert_eq!(
      quoted(&utf16("\u{7f}\u{85}\u{9f}\u{a0}é")),
      "'\\x7F\\x85\\x9F\u{a0}é'"
    );
  }

  #[test]
  fn keeps_pairs_and_escapes_lone_surrogates() {
    assert_eq!(quoted(&utf16("😀")), "'😀'");
    assert_eq!(quoted(&[0xD83D, 0x61, 0xDE00]), "'\\ud83da\\ude00'");
    assert_eq!(quoted(&[0x61, 0xD800]), "'a\\ud800'");
  }

  #[test]
  fn writes_keys_bare_only_when_plain() {
    assert_eq!(key("i"), "i");
    assert_eq!(key("_a9"), "_a9");
    assert_eq!(key("9a"), "'9a'");
    assert_eq!(key("0"), "'0'");
    assert_eq!(key("a-b"), "'a-b'");
    assert_eq!(key("$"), "'$'");
    assert_eq!(key(""), "''");
    assert_eq!(key("é"), "'é'");
    assert_eq!(key("__proto__"), "['__proto__']");
  }

  #[test]
  fn lays_out_as_node_does() {
    assert_eq!(object(&[]), "{}");
    assert_eq!(object(&["i: 0"]), "{ i: 0 }");
    assert_eq!(object(&["a: 1", "b: 'x'"]), "{ a: 1, b: 'x' }");
    // One entry fits up to 67 units (2 + 11 + 67 = 80): `k` and a string of 62.
    let entry = |key: &str, length: usize| format!("{key}: '{}'", "x".repeat(length));
    assert_eq!(object(&[&entry("k", 62)]), format!("{{ {} }}", entry("k", 62)));
    assert_eq!(
      object(&[&entry("k", 63)]),
      format!("{{\n  {}\n}}", entry("k", 63))
    );
    // Two fit up to 65 units together.
    let (a, b) = (entry("a", 28), entry("b", 27));
    assert_eq!(object(&[&a, &b]), format!("{{ {a}, {b} }}"));
    let (a, b) = (entry("a", 28), entry("b", 28));
    assert_eq!(object(&[&a, &b]), format!("{{\n  {a},\n  {b}\n}}"));
    // Five entries of 13 units reckon 21 + 65 = 86; four reckon 19 + 52 = 71.
    let long = ["aaaaaaaaa: 10"; 5];
    assert_eq!(object(&long), format!("{{\n  {}\n}}", long.join(",\n  ")));
    assert_eq!(object(&long[..4]), format!("{{ {} }}", long[..4].join(", ")));
  }
}
