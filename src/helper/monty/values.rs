//! Values across a Monty run's channel, as the CPython engine's bootstrap (py/bootstrap.py) takes
//! and gives them: a binding's answer, lossless JSON the host wrote, read into a Monty value
//! (integers past 64 bits exact); a returned value written as ASCII JSON and metered in the bytes
//! of its compact UTF-8 form, or refused with the same reasons. Neither recurses: values nest as
//! deep as the host's or the program's.

use std::fmt::Write;
use std::str::FromStr;

use monty_types::{MontyObject, ObjectRef};
use monty_types::unstable::{MontyGraph, MontyNode, NodeId, node, object_from_graph};
use num_bigint::BigInt;

/// Why a value cannot be the run's.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
  /// Not lossless JSON, and why (the bootstrap's words).
  NotLossless(String),
  /// Its compact JSON is past the byte budget.
  TooLarge,
}

/// The largest integer a JavaScript number holds with every smaller one.
const SAFE: i64 = 1 << 53;

/// What `encode` writes next: a value, a piece of punctuation, or a dict's key with its colon.
enum Step<'a> {
  Value(ObjectRef<'a>),
  Text(&'static str),
  Key(&'a str),
}

/// The string `step` writes, a key's or a value's.
fn string_of<'a>(step: &Step<'a>) -> Option<&'a str> {
  match step {
    Step::Key(key) => Some(key),
    Step::Value(item) => match node(*item) {
      MontyNode::String(string) => Some(string),
      _ => None,
    },
    Step::Text(_) => None,
  }
}

/// `value` as ASCII JSON, with the UTF-8 bytes of its compact form, refused past `limit` bytes.
pub fn encode(value: ObjectRef<'_>, limit: Option<usize>) -> Result<(String, usize), Refused> {
  let mut text = String::new();
  let size = encode_into(value, limit, &mut text)?;
  Ok((text, size))
}

/// `encode`, written at the end of `text` (a frame being made: a long value is not copied into it
/// again); the UTF-8 bytes of its compact form.
pub fn encode_into(value: ObjectRef<'_>, limit: Option<usize>, text: &mut String) -> Result<usize, Refused> {
  let mut size = 0usize;
  let mut steps = vec![Step::Value(value)];
  while let Some(step) = steps.pop() {
    // A string too long for what is left is refused before it is copied: its compact form takes at
    // least its UTF-8 bytes and two quotes, and a copy of a long one could pass the memory bound.
    if let (Some(limit), Some(string)) = (limit, string_of(&step))
      && size + string.len() + 2 > limit
    {
      return Err(Refused::TooLarge);
    }
    // A string's escapes are ASCII on the wire, where its compact form holds UTF-8.
    size += match step {
      Step::Text(piece) => {
        text.push_str(piece);
        piece.len()
      }
      Step::Key(key) => {
        let quoted = write_quoted(key, text);
        text.push(':');
        quoted + 1
      }
      Step::Value(item) => match node(item) {
        MontyNode::String(string) => write_quoted(string, text),
        _ => {
          let start = text.len();
          write_value(item, text, &mut steps)?;
          text.len() - start
        }
      },
    };
    if limit.is_some_and(|limit| size > limit) {
      return Err(Refused::TooLarge);
    }
  }
  Ok(size)
}

/// Writes `item`, no string, as far as it is not its members, which go on `steps`.
fn write_value<'a>(item: ObjectRef<'a>, text: &mut String, steps: &mut Vec<Step<'a>>) -> Result<(), Refused> {
  match node(item) {
    MontyNode::None => text.push_str("null"),
    MontyNode::Bool(flag) => text.push_str(if *flag { "true" } else { "false" }),
    MontyNode::Int(number) => write_integer(&BigInt::from(*number), *number, text)?,
    MontyNode::BigInt(number) => write_integer(number, 0, text)?,
    MontyNode::Float(number) => write_float(*number, text)?,
    MontyNode::Cycle(_) => return Err(Refused::NotLossless("it contains itself".into())),
    MontyNode::Dict(_) => {
      text.push('{');
      steps.push(Step::Text("}"));
      for (index, (key, member)) in item.pairs().unwrap_or_default().into_iter().enumerate().rev() {
        let MontyNode::String(key) = node(key) else {
          return Err(Refused::NotLossless(format!("a dict key is {}, not str", key.type_name())));
        };
        steps.push(Step::Value(member));
        steps.push(Step::Key(key));
        if index > 0 {
          steps.push(Step::Text(","));
        }
      }
    }
    MontyNode::List(_) | MontyNode::Tuple(_) => {
      text.push('[');
      steps.push(Step::Text("]"));
      for (index, member) in item.items().unwrap_or_default().into_iter().enumerate().rev() {
        steps.push(Step::Value(member));
        if index > 0 {
          steps.push(Step::Text(","));
        }
      }
    }
    _ => return Err(Refused::NotLossless(format!("{} is not a JSON value", item.type_name()))),
  }
  Ok(())
}

/// An integer's digits, when a JavaScript number holds it exactly (`small` is it, when it fits).
fn write_integer(number: &BigInt, small: i64, text: &mut String) -> Result<(), Refused> {
  if number.bits() < 64 && (-SAFE..=SAFE).contains(&small) && BigInt::from(small) == *number {
    let _ = write!(text, "{small}");
    return Ok(());
  }
  let exact = num_traits::ToPrimitive::to_f64(number)
    .filter(|float| float.is_finite())
    .and_then(<BigInt as num_traits::FromPrimitive>::from_f64)
    .is_some_and(|back| back == *number);
  if !exact {
    let shown = if number.bits() < 4000 { number.to_string() } else { format!("of {} bits", number.bits()) };
    return Err(Refused::NotLossless(format!(
      "the integer {shown} is beyond what a JSON number carries exactly (2**53)"
    )));
  }
  let _ = write!(text, "{number}");
  Ok(())
}

/// A float as JavaScript writes it, which reads back as the same double.
fn write_float(number: f64, text: &mut String) -> Result<(), Refused> {
  if !number.is_finite() {
    let shown = if number.is_nan() { "nan" } else if number > 0.0 { "inf" } else { "-inf" };
    return Err(Refused::NotLossless(format!("{shown} is not a finite number")));
  }
  if number == 0.0 && number.is_sign_negative() {
    return Err(Refused::NotLossless("-0.0 has no JSON form".into()));
  }
  text.push_str(ryu_js::Buffer::new().format_finite(number));
  Ok(())
}

/// `text` as an ASCII JSON string, for the run's frames.
pub fn quote(text: &str) -> String {
  let mut quoted = String::with_capacity(text.len() + 2);
  write_quoted(text, &mut quoted);
  quoted
}

/// Writes `string` quoted, ASCII only; returns the bytes its compact UTF-8 JSON form takes.
fn write_quoted(string: &str, text: &mut String) -> usize {
  let mut size = 2;
  text.push('"');
  for character in string.chars() {
    match character {
      '"' => text.push_str("\\\""),
      '\\' => text.push_str("\\\\"),
      '\n' => text.push_str("\\n"),
      '\r' => text.push_str("\\r"),
      '\t' => text.push_str("\\t"),
      '\u{8}' => text.push_str("\\b"),
      '\u{c}' => text.push_str("\\f"),
      ' '..='~' => text.push(character),
      _ => {
        let mut units = [0u16; 2];
        for unit in character.encode_utf16(&mut units) {
          let _ = write!(text, "\\u{unit:04x}");
        }
      }
    }
    size += match character {
      '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
      '\0'..='\u{1f}' => 6,
      _ => character.len_utf8(),
    };
  }
  text.push('"');
  size
}

/// The Monty value of lossless JSON `text` (a binding's answer, as the host wrote it), built in
/// one arena. A lone surrogate, which a Python `str` holds and a Rust one cannot, reads as U+FFFD.
pub fn decode(text: &str) -> Result<MontyObject, String> {
  enum Open {
    List(Vec<NodeId>),
    Dict(Vec<(NodeId, NodeId)>, Option<NodeId>),
  }
  let bytes = text.as_bytes();
  let mut graph = MontyGraph::new();
  let mut at = 0;
  let mut open: Vec<Open> = Vec::new();
  loop {
    skip_space(bytes, &mut at);
    // A dict's key comes first.
    if let Some(Open::Dict(_, key @ None)) = open.last_mut() {
      if bytes.get(at) == Some(&b'}') {
        at += 1;
        let Some(Open::Dict(pairs, _)) = open.pop() else { unreachable!() };
        let value = graph.push(MontyNode::Dict(pairs));
        if let Some(root) = close(&mut graph, &mut open, value, bytes, &mut at)? {
          return object_from_graph(graph, root).map_err(|error| error.to_string());
        }
        continue;
      }
      let (read, next) = string_at(text, at)?;
      *key = Some(graph.push(MontyNode::String(read)));
      at = next;
      skip_space(bytes, &mut at);
      if bytes.get(at) != Some(&b':') {
        return Err(format!("a ':' expected at {at}"));
      }
      at += 1;
      skip_space(bytes, &mut at);
    }
    let value = match bytes.get(at) {
      Some(b'[') => {
        at += 1;
        skip_space(bytes, &mut at);
        if bytes.get(at) == Some(&b']') {
          at += 1;
          MontyNode::List(Vec::new())
        } else {
          open.push(Open::List(Vec::new()));
          continue;
        }
      }
      Some(b'{') => {
        at += 1;
        open.push(Open::Dict(Vec::new(), None));
        continue;
      }
      Some(b'"') => {
        let (read, next) = string_at(text, at)?;
        at = next;
        MontyNode::String(read)
      }
      Some(b'n') if text[at..].starts_with("null") => {
        at += 4;
        MontyNode::None
      }
      Some(b't') if text[at..].starts_with("true") => {
        at += 4;
        MontyNode::Bool(true)
      }
      Some(b'f') if text[at..].starts_with("false") => {
        at += 5;
        MontyNode::Bool(false)
      }
      Some(b'-' | b'0'..=b'9') => {
        let end = at + bytes[at..].iter().take_while(|byte| matches!(byte, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')).count();
        let token = &text[at..end];
        at = end;
        number(token)?
      }
      _ => return Err(format!("a value expected at {at}")),
    };
    let value = graph.push(value);
    if let Some(root) = close(&mut graph, &mut open, value, bytes, &mut at)? {
      return object_from_graph(graph, root).map_err(|error| error.to_string());
    }
  }

  /// Puts `value` in the innermost container and closes what it completes; the root once nothing
  /// is open.
  fn close(graph: &mut MontyGraph, open: &mut Vec<Open>, mut value: NodeId, bytes: &[u8], at: &mut usize) -> Result<Option<NodeId>, String> {
    loop {
      let Some(container) = open.last_mut() else {
        skip_space(bytes, at);
        return if *at == bytes.len() { Ok(Some(value)) } else { Err(format!("text after the value at {at}")) };
      };
      match container {
        Open::List(items) => items.push(value),
        Open::Dict(pairs, key) => pairs.push((key.take().expect("a key before its value"), value)),
      }
      skip_space(bytes, at);
      match (bytes.get(*at), &*container) {
        (Some(b','), _) => {
          *at += 1;
          return Ok(None);
        }
        (Some(b']'), Open::List(_)) | (Some(b'}'), Open::Dict(..)) => {
          *at += 1;
          value = match open.pop() {
            Some(Open::List(items)) => graph.push(MontyNode::List(items)),
            Some(Open::Dict(pairs, _)) => graph.push(MontyNode::Dict(pairs)),
            None => unreachable!(),
          };
        }
        _ => return Err(format!("a ',' or the container's end expected at {at}")),
      }
    }
  }
}

fn skip_space(bytes: &[u8], at: &mut usize) {
  while *at < bytes.len() && matches!(bytes[*at], b' ' | b'\t' | b'\n' | b'\r') {
    *at += 1;
  }
}

/// A JSON number: an integer (exact, past 64 bits too) or a float.
fn number(token: &str) -> Result<MontyNode, String> {
  if !token.contains(['.', 'e', 'E']) {
    if let Ok(small) = token.parse::<i64>() {
      return Ok(MontyNode::Int(small));
    }
    if let Ok(big) = BigInt::from_str(token) {
      return Ok(MontyNode::BigInt(big));
    }
  }
  token.parse::<f64>().map(MontyNode::Float).map_err(|_| format!("a malformed number {token:?}"))
}

/// The JSON string starting at `at` (its quote), and where it ends.
fn string_at(text: &str, at: usize) -> Result<(String, usize), String> {
  let bytes = text.as_bytes();
  if bytes.get(at) != Some(&b'"') {
    return Err(format!("a string expected at {at}"));
  }
  let mut read = String::new();
  let mut units: Vec<u16> = Vec::new();
  let mut index = at + 1;
  loop {
    let Some(&byte) = bytes.get(index) else {
      return Err("an unterminated string".into());
    };
    if byte != b'\\' || bytes.get(index + 1) != Some(&b'u') {
      read.extend(char::decode_utf16(units.drain(..)).map(|unit| unit.unwrap_or('\u{fffd}')));
    }
    match byte {
      b'"' => return Ok((read, index + 1)),
      b'\\' => {
        let escaped = *bytes.get(index + 1).ok_or("an unterminated escape")?;
        index += 2;
        match escaped {
          b'u' => {
            let hex = text.get(index..index + 4).ok_or("a short \\u escape")?;
            units.push(u16::from_str_radix(hex, 16).map_err(|_| format!("a malformed \\u escape {hex:?}"))?);
            index += 4;
          }
          b'n' => read.push('\n'),
          b'r' => read.push('\r'),
          b't' => read.push('\t'),
          b'b' => read.push('\u{8}'),
          b'f' => read.push('\u{c}'),
          b'"' | b'\\' | b'/' => read.push(escaped as char),
          _ => return Err(format!("a malformed escape at {index}")),
        }
      }
      _ => {
        let character = text[index..].chars().next().ok_or("a string cut short")?;
        read.push(character);
        index += character.len_utf8();
      }
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn round_trip(json: &str) -> String {
    encode(decode(json).expect("it decodes").as_ref(), None).expect("it encodes").0
  }

  #[test]
  fn json_values_cross_both_ways_unchanged() {
    assert_eq!(round_trip(r#"{"a":[1,-2.5,"x",true,false,null],"b":{}}"#), r#"{"a":[1,-2.5,"x",true,false,null],"b":{}}"#);
    assert_eq!(round_trip("  [ [] , [ {} ] ]  "), "[[],[{}]]");
    assert_eq!(round_trip(r#""caf\u00e9 \ud83d\ude00 \"q\" \\ \n""#), r#""caf\u00e9 \ud83d\ude00 \"q\" \\ \n""#);
  }

  #[test]
  fn integers_past_64_bits_stay_exact_and_past_2_53_only_when_a_double_holds_them() {
    assert_eq!(round_trip("9007199254740992"), "9007199254740992");
    assert_eq!(round_trip("1152921504606846976"), "1152921504606846976");
    assert_eq!(
      encode(decode("9007199254740993").unwrap().as_ref(), None),
      Err(Refused::NotLossless("the integer 9007199254740993 is beyond what a JSON number carries exactly (2**53)".into()))
    );
    assert_eq!(round_trip("1267650600228229401496703205376"), "1267650600228229401496703205376");
  }

  #[test]
  fn what_is_not_lossless_json_is_refused_with_the_bootstraps_reasons() {
    let refused = |value: MontyObject| match encode(value.as_ref(), None) {
      Err(Refused::NotLossless(why)) => why,
      other => panic!("{other:?}"),
    };
    assert_eq!(refused(MontyObject::float(f64::NAN)), "nan is not a finite number");
    assert_eq!(refused(MontyObject::float(-0.0)), "-0.0 has no JSON form");
    assert_eq!(refused(MontyObject::set([MontyObject::int(1)])), "set is not a JSON value");
    assert_eq!(refused(MontyObject::dict([(MontyObject::int(1), MontyObject::none())])), "a dict key is int, not str");
  }

  #[test]
  fn a_frames_text_is_quoted_in_ascii_with_every_control_character_escaped() {
    assert_eq!(quote("a\"b\\c\u{1}\u{7f}é😀\n"), r#""a\"b\\c\u0001\u007f\u00e9\ud83d\ude00\n""#);
  }

  #[test]
  fn the_size_is_the_compact_utf8_form_and_the_limit_refuses_past_it() {
    let value = decode(r#"{"k":"é\n"}"#).unwrap();
    // {"k":"é\n"}: the é is two bytes, the escaped newline two.
    assert_eq!(encode(value.as_ref(), None).unwrap().1, 12);
    assert_eq!(encode(value.as_ref(), Some(12)).unwrap().1, 12);
    assert_eq!(encode(value.as_ref(), Some(11)), Err(Refused::TooLarge));
  }

  #[test]
  fn values_nested_deeper_than_a_stack_would_hold_cross_without_recursion() {
    let depth = 100_000;
    let json = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    assert_eq!(round_trip(&json), json);
  }

  #[test]
  fn malformed_text_is_refused() {
    for text in ["", "[1,", "{\"a\" 1}", "[1] 2", "\"abc", "tru", "[1}"] {
      assert!(decode(text).is_err(), "{text:?}");
    }
  }
}
