//! `JSON.stringify`'s string form, measured and written from UTF-16 code units.
//!
//! Program text is UTF-16 and may hold lone surrogates, which a Rust `String` cannot; these
//! helpers let the ledger meter such text exactly and the bridge carry it as valid JSON.

const HIGH: std::ops::RangeInclusive<u16> = 0xD800..=0xDBFF;
const LOW: std::ops::RangeInclusive<u16> = 0xDC00..=0xDFFF;

/// One code point of a UTF-16 string: how many units it spans and what its JSON form costs.
fn next_code_point(units: &[u16], at: usize) -> (usize, usize) {
  let unit = units[at];
  if HIGH.contains(&unit) && units.get(at + 1).is_some_and(|next| LOW.contains(next)) {
    return (2, 4);
  }
  let bytes = match unit {
    0x22 | 0x5C | 0x08 | 0x09 | 0x0A | 0x0C | 0x0D => 2,
    0x00..=0x1F => 6,
    0x20..=0x7F => 1,
    0x80..=0x7FF => 2,
    0xD800..=0xDFFF => 6,
    _ => 3,
  };
  (1, bytes)
}

/// Units counted a chunk at a time while they are plain (see `fit`).
const CHUNK: usize = 32;

/// The most one UTF-16 unit costs in JSON: a control character or a lone surrogate, `\u001f`.
const MAX_UNIT_BYTES: usize = 6;

/// Printable ASCII other than `"` and `\`: one byte each in JSON.
fn is_plain(unit: u16) -> bool {
  (0x20..=0x7F).contains(&unit) && unit != 0x22 && unit != 0x5C
}

/// Whether the `CHUNK` units from `at` are all plain; checked without a branch per unit, so that
/// the check vectorises.
fn is_plain_chunk(units: &[u16], at: usize) -> bool {
  units
    .get(at..at + CHUNK)
    .is_some_and(|chunk| chunk.iter().fold(true, |plain, &unit| plain & is_plain(unit)))
}

/// Bytes of `JSON.stringify(s)` (quotes included), or `None` once they pass `budget`.
pub fn string_cost_up_to(units: &[u16], budget: usize) -> Option<usize> {
  let (end, cost) = fit(units, budget)?;
  (end == units.len()).then_some(cost)
}

/// Bytes of `JSON.stringify(s)`, quotes included.
pub fn string_cost(units: &[u16]) -> usize {
  string_cost_up_to(units, usize::MAX).unwrap_or(usize::MAX)
}

/// The longest prefix of `units` (ending on a code point boundary) whose JSON form, quotes
/// included, fits `budget` bytes; `None` when not even `""` fits.
pub fn fitting_prefix(units: &[u16], budget: usize) -> Option<usize> {
  fit(units, budget).map(|(end, _)| end)
}

/// The end of the longest prefix that fits `budget` (as `fitting_prefix`) and the bytes of its
/// JSON form; it stops at the first code point that does not fit, so a long text past the budget
/// is not read to its end.
fn fit(units: &[u16], budget: usize) -> Option<(usize, usize)> {
  let mut cost = 2;
  if cost > budget {
    return None;
  }
  let mut at = 0;
  while at < units.len() {
    // Most text is plain ASCII: a chunk of it is checked without a branch per unit (the checks
    // vectorise). Unit by unit, metering a 64 MB log took 170 ms, and cutting it to the cap 110 ms.
    // A chunk that is not plain, or does not fit whole, goes a code point at a time.
    if cost + CHUNK <= budget && is_plain_chunk(units, at) {
      cost += CHUNK;
      at += CHUNK;
      continue;
    }
    // A chunk that fits even at the most a unit can cost (6 bytes, `\u001f`), with a pair's low
    // half past its end, is counted without a check per code point.
    let unchecked = cost + MAX_UNIT_BYTES * (CHUNK + 1) <= budget;
    let chunk_end = (at + CHUNK).min(units.len());
    while at < chunk_end {
      let (width, bytes) = next_code_point(units, at);
      if !unchecked && cost + bytes > budget {
        return Some((at, cost));
      }
      cost += bytes;
      at += width;
    }
  }
  Some((at, cost))
}

/// Appends `JSON.stringify(s)` to `out`: the escapes V8 writes, lone surrogates as `\udxxx`.
pub fn push_json_string(out: &mut String, units: &[u16]) {
  out.push('"');
  for decoded in char::decode_utf16(units.iter().copied()) {
    match decoded {
      Ok('"') => out.push_str("\\\""),
      Ok('\\') => out.push_str("\\\\"),
      Ok('\u{8}') => out.push_str("\\b"),
      Ok('\t') => out.push_str("\\t"),
      Ok('\n') => out.push_str("\\n"),
      Ok('\u{c}') => out.push_str("\\f"),
      Ok('\r') => out.push_str("\\r"),
      Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
      Ok(c) => out.push(c),
      Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
    }
  }
  out.push('"');
}

#[cfg(test)]
mod tests {
  use super::*;

  fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
  }

  #[test]
  fn costs_each_escape_class() {
    let cases: [(&[u16], usize); 9] = [
      (&utf16("fits"), 6),
      (&utf16("\"\\"), 6),
      (&utf16("\u{8}\t\n\u{c}\r"), 12),
      (&utf16("\u{0}\u{1f}"), 14),
      (&utf16("\u{7f}"), 3),
      (&utf16("€"), 5),
      (&utf16("😀"), 6),
      (&[0xD800], 8),
      (&utf16("\u{2028}\u{2029}"), 8),
    ];
    for (units, cost) in cases {
      assert_eq!(string_cost(units), cost, "{units:?}");
    }
  }

  #[test]
  fn gives_up_past_the_budget_without_scanning_everything() {
    let quotes = vec![u16::from(b'"'); 10_000];
    assert_eq!(string_cost_up_to(&quotes, 32), None);
    assert_eq!(fitting_prefix(&quotes, 32), Some(15));
    assert_eq!(string_cost_up_to(&utf16("fits"), 6), Some(6));
    assert_eq!(string_cost_up_to(&utf16("fits"), 5), None);
  }

  #[test]
  fn truncates_between_whole_code_points() {
    assert_eq!(fitting_prefix(&utf16("x"), 1), None);
    assert_eq!(fitting_prefix(&utf16("x"), 2), Some(0));
    assert_eq!(fitting_prefix(&utf16("a😀"), 6), Some(1));
    assert_eq!(fitting_prefix(&utf16("a😀"), 7), Some(3));
    let mut gauntlet = utf16("\"\\\u{8}\t\n\u{c}\r\u{0}😀");
    gauntlet.push(0xD800);
    gauntlet.extend(utf16("€a"));
    let mut with_z = gauntlet.clone();
    with_z.push(u16::from(b'z'));
    assert_eq!(
      fitting_prefix(&with_z, string_cost(&gauntlet)),
      Some(gauntlet.len())
    );
  }

  #[test]
  fn an_astral_pair_across_a_chunk_edge_is_kept_or_cut_whole() {
    let mut units = vec![u16::from(b'a'); 31];
    units.extend(utf16("😀"));
    units.extend(vec![u16::from(b'a'); 40]);
    // `""` and 31 plain units cost 33 bytes; the pair's 4 bytes fit only from 37 on.
    for (budget, end) in [(33, 31), (36, 31), (37, 33), (40, 36)] {
      assert_eq!(fitting_prefix(&units, budget), Some(end), "budget {budget}");
    }
  }

  #[test]
  fn writes_what_json_stringify_writes() {
    let mut out = String::new();
    let mut units = utf16("a\"\\\u{1}\n😀");
    units.push(0xDC00);
    push_json_string(&mut out, &units);
    assert_eq!(out, "\"a\\\"\\\\\\u0001\\n😀\\udc00\"");
    assert_eq!(out.len(), string_cost(&units));
  }
}

#[cfg(test)]
mod properties {
  use proptest::prelude::*;

  use super::*;

  fn any_utf16() -> impl Strategy<Value = Vec<u16>> {
    // Biased towards the interesting classes: controls, quotes, surrogates, astral pairs.
    let unit = prop_oneof![
      0u16..0x20,
      Just(u16::from(b'"')),
      Just(u16::from(b'\\')),
      0x20u16..0x7f,
      0x80u16..0x800,
      0xD800u16..0xE000,
      0xE000u16..=0xFFFF,
    ];
    proptest::collection::vec(unit, 0..64)
  }

  /// Long runs of plain ASCII, broken now and then by any other class: whole chunks and partial ones.
  fn mostly_plain_utf16() -> impl Strategy<Value = Vec<u16>> {
    let unit = prop_oneof![
      30 => 0x20u16..0x7f,
      1 => 0u16..0x20,
      1 => Just(u16::from(b'"')),
      1 => 0x80u16..0x800,
      1 => 0xD800u16..0xE000,
      1 => 0xE000u16..=0xFFFF,
    ];
    proptest::collection::vec(unit, 0..400)
  }

  /// Runs of plain units up to several chunks long, between single units of any class and astral
  /// pairs, which then straddle a chunk's edge as often as not.
  fn plain_runs_utf16() -> impl Strategy<Value = Vec<u16>> {
    let piece = prop_oneof![
      3 => proptest::collection::vec(0x61u16..0x7b, 0..100),
      1 => (0u16..=0xFFFF).prop_map(|unit| vec![unit]),
      1 => Just(vec![0xD83D, 0xDE00]),
    ];
    proptest::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
  }

  proptest! {
    #[test]
    fn cost_is_the_length_of_the_text_written(units in any_utf16()) {
      let mut text = String::new();
      push_json_string(&mut text, &units);
      prop_assert_eq!(string_cost(&units), text.len());
    }

    #[test]
    fn plain_runs_cost_the_length_of_the_text_written(units in prop_oneof![mostly_plain_utf16(), plain_runs_utf16()], budget in 0usize..500) {
      let mut text = String::new();
      push_json_string(&mut text, &units);
      prop_assert_eq!(string_cost(&units), text.len());
      prop_assert_eq!(string_cost_up_to(&units, budget), (text.len() <= budget).then_some(text.len()));
    }

    #[test]
    fn well_formed_strings_are_written_as_serde_json_writes_them(text in "\\PC*") {
      let units: Vec<u16> = text.encode_utf16().collect();
      let mut ours = String::new();
      push_json_string(&mut ours, &units);
      prop_assert_eq!(ours, serde_json::to_string(&text).unwrap());
    }

    #[test]
    fn the_fitting_prefix_is_the_longest_that_fits(units in prop_oneof![any_utf16(), mostly_plain_utf16(), plain_runs_utf16()], budget in 0usize..500) {
      match fitting_prefix(&units, budget) {
        None => prop_assert!(budget < 2),
        Some(end) => {
          prop_assert!(string_cost(&units[..end]) <= budget);
          // Never inside a surrogate pair.
          prop_assert!(end == 0 || end == units.len() || !(HIGH.contains(&units[end - 1]) && LOW.contains(&units[end])));
          if end < units.len() {
            let (width, _) = next_code_point(&units, end);
            prop_assert!(string_cost(&units[..end + width]) > budget);
          }
        }
      }
    }
  }
}
