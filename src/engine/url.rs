//! deno_web's URL ops, bounded. deno_web parses and serialises URLs and queries in ops that nothing
//! interrupts, on copies made outside the heap: here a 32 MB URL took 0.9 s to parse, and a 256 MB
//! query kept its run's thread 1 s past the run while the process grew by 795 MB. These ops take
//! the place of deno_web's (see `world.rs`) and refuse a text past its bound before copying it out of
//! the heap; within the bound they give what deno_web's give, from the same `url` crate.

use deno_core::url::{Url, form_urlencoded, quirks};
use deno_core::{JsBuffer, OpState, op2, v8};
use deno_error::JsErrorBox;

/// The longest URL parsed here, with its base or the value set into it, in UTF-16 units: a URL of
/// 2 MiB parses in about 20 ms, one of 8 MiB took 75 ms.
pub const MAX_URL_LENGTH: usize = 1 << 21;

/// The most parameters a query may have here. deno_web's parser builds every pair in Rust and then
/// in the heap in one op: `new URLSearchParams('a=1&'.repeat(5e6))` kept a core busy 3.5 s after
/// its run had ended, at 927 MB.
pub const MAX_QUERY_PARAMS: usize = 1 << 16;

/// The longest query parsed (in bytes) or serialised (in UTF-16 units of its names and values)
/// here: 8 MB took 73 ms to parse and 26-146 ms to serialise (ASCII to two-byte text), one
/// parameter of 32 MB 0.26-0.33 s to parse (fuzzer's seed 23).
pub const MAX_QUERY_LENGTH: usize = 1 << 23;

/// deno_web's status for a parse: the serialisation is the input, is another text (taken next by
/// `op_url_get_serialization`), or there is no URL.
const SAME: u32 = 0;
const CHANGED: u32 = 1;
const INVALID: u32 = 2;

/// The port deno_web's URL reads as "none" after a setter.
const NO_PORT: u32 = 1 << 16;

/// What a parse left for `op_url_get_serialization`.
struct Serialization(String);

fn refuse_long_url(units: usize) -> Result<(), String> {
  if units > MAX_URL_LENGTH {
    return Err(format!(
      "a URL of {units} characters is refused here: at most {MAX_URL_LENGTH} are parsed, since parsing runs where no budget reaches"
    ));
  }
  Ok(())
}

/// A URL's components as deno_web's URL keeps them, and its serialisation if that differs from
/// `href`; `None` when there is no URL.
#[derive(Debug, PartialEq)]
struct Described {
  components: [u32; 8],
  serialization: Option<String>,
}

/// `port_if_none` is what deno_web expects when the URL has no port: 0 from a parse, `NO_PORT`
/// from a setter.
fn describe(url: Url, href: &str, port_if_none: u32) -> Described {
  let parts = quirks::internal_components(&url);
  let components = [
    parts.scheme_end,
    parts.username_end,
    parts.host_start,
    parts.host_end,
    parts.port.map_or(port_if_none, u32::from),
    parts.path_start,
    parts.query_start.unwrap_or(0),
    parts.fragment_start.unwrap_or(0),
  ];
  let serialization = String::from(url);
  Described {
    components,
    serialization: (serialization != href).then_some(serialization),
  }
}

fn parse(href: &str, base: Option<&str>) -> Option<Described> {
  let base = match base {
    Some(base) => Some(Url::parse(base).ok()?),
    None => None,
  };
  let url = Url::options().base_url(base.as_ref()).parse(href).ok()?;
  Some(describe(url, href, 0))
}

/// deno_web's setters, by the number its URL passes.
fn reparse(href: &str, setter: u8, value: &str) -> Option<Described> {
  let mut url = Url::parse(href).ok()?;
  let set = match setter {
    0 => {
      quirks::set_hash(&mut url, value);
      Ok(())
    }
    1 => quirks::set_host(&mut url, value),
    2 => quirks::set_hostname(&mut url, value),
    3 => quirks::set_password(&mut url, value),
    4 => {
      quirks::set_pathname(&mut url, value);
      Ok(())
    }
    5 => quirks::set_port(&mut url, value),
    6 => quirks::set_protocol(&mut url, value),
    7 => {
      quirks::set_search(&mut url, value);
      Ok(())
    }
    8 => quirks::set_username(&mut url, value),
    _ => Err(()),
  };
  set.ok()?;
  Some(describe(url, href, NO_PORT))
}

/// Hands a parse's outcome to deno_web's URL: the status, the components written into its buffer.
fn answer(state: &mut OpState, described: Option<Described>, buffer: &mut [u32]) -> u32 {
  let Some(Described {
    components,
    serialization,
  }) = described
  else {
    return INVALID;
  };
  for (slot, component) in buffer.iter_mut().zip(components) {
    *slot = component;
  }
  match serialization {
    Some(serialization) => {
      state.put(Serialization(serialization));
      CHANGED
    }
    None => SAME,
  }
}

fn string<'s>(value: v8::Local<'s, v8::Value>) -> Result<v8::Local<'s, v8::String>, JsErrorBox> {
  v8::Local::<v8::String>::try_from(value).map_err(|_| JsErrorBox::type_error("invalid parameters"))
}

/// The texts of a URL op (a URL, with its base or the value set into it), refused together past
/// `MAX_URL_LENGTH` before any is copied out of the heap.
fn url_texts<'s, const N: usize>(
  scope: &mut v8::PinScope<'s, '_>,
  values: [v8::Local<'s, v8::Value>; N],
) -> Result<[String; N], JsErrorBox> {
  let mut units = 0;
  for value in values {
    units += string(value)?.length();
  }
  refuse_long_url(units).map_err(JsErrorBox::range_error)?;
  Ok(values.map(|value| {
    let text = v8::Local::<v8::String>::try_from(value).expect("a string, checked above");
    text.to_rust_string_lossy(scope)
  }))
}

#[op2(fast)]
#[smi]
pub fn op_dsh_url_parse<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  state: &mut OpState,
  href: v8::Local<'s, v8::Value>,
  #[buffer] components: &mut [u32],
) -> Result<u32, JsErrorBox> {
  let [href] = url_texts(scope, [href])?;
  Ok(answer(state, parse(&href, None), components))
}

#[op2(fast)]
#[smi]
pub fn op_dsh_url_parse_with_base<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  state: &mut OpState,
  href: v8::Local<'s, v8::Value>,
  base: v8::Local<'s, v8::Value>,
  #[buffer] components: &mut [u32],
) -> Result<u32, JsErrorBox> {
  let [href, base] = url_texts(scope, [href, base])?;
  Ok(answer(state, parse(&href, Some(&base)), components))
}

#[op2(fast)]
#[smi]
pub fn op_dsh_url_reparse<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  state: &mut OpState,
  href: v8::Local<'s, v8::Value>,
  #[smi] setter: u8,
  value: v8::Local<'s, v8::Value>,
  #[buffer] components: &mut [u32],
) -> Result<u32, JsErrorBox> {
  let [href, value] = url_texts(scope, [href, value])?;
  Ok(answer(state, reparse(&href, setter, &value), components))
}

#[op2]
#[string]
pub fn op_dsh_url_get_serialization(state: &mut OpState) -> Result<String, JsErrorBox> {
  state
    .try_take::<Serialization>()
    .map(|Serialization(text)| text)
    .ok_or_else(|| JsErrorBox::type_error("no URL was parsed"))
}

/// Parses `application/x-www-form-urlencoded` text as deno_web's op does, refusing a query of more
/// than `MAX_QUERY_LENGTH` bytes or `MAX_QUERY_PARAMS` parameters before any is built.
#[op2]
pub fn op_dsh_url_parse_search_params(
  #[string] text: Option<String>,
  #[buffer] bytes: Option<JsBuffer>,
) -> Result<Vec<(String, String)>, JsErrorBox> {
  let input: &[u8] = match (&text, &bytes) {
    (Some(text), None) => text.as_bytes(),
    (None, Some(bytes)) => bytes,
    _ => return Err(JsErrorBox::type_error("invalid parameters")),
  };
  parse_search_params(input).map_err(JsErrorBox::range_error)
}

fn parse_search_params(input: &[u8]) -> Result<Vec<(String, String)>, String> {
  if input.len() > MAX_QUERY_LENGTH {
    return Err(format!(
      "a query of {} bytes is refused here: at most {MAX_QUERY_LENGTH} are parsed, since parsing runs where no budget reaches",
      input.len()
    ));
  }
  let parameters = input.iter().filter(|&&byte| byte == b'&').count() + 1;
  if parameters > MAX_QUERY_PARAMS {
    return Err(format!(
      "a query of {parameters} parameters is refused here: at most {MAX_QUERY_PARAMS} are parsed, since parsing runs where no budget reaches"
    ));
  }
  Ok(
    form_urlencoded::parse(input)
      .map(|(key, value)| (key.into_owned(), value.into_owned()))
      .collect(),
  )
}

fn refuse_long_query(units: usize) -> Result<(), String> {
  if units > MAX_QUERY_LENGTH {
    return Err(format!(
      "a query of {units} characters is refused here: at most {MAX_QUERY_LENGTH} are serialised, since serialising runs where no budget reaches"
    ));
  }
  Ok(())
}

fn stringify_search_params(pairs: &[(String, String)]) -> String {
  form_urlencoded::Serializer::new(String::new())
    .extend_pairs(pairs)
    .finish()
}

/// Serialises a URLSearchParams' list (`[name, value]` pairs, as deno_web keeps it), measured in the
/// heap before any text is copied out of it.
#[op2]
#[string]
pub fn op_dsh_url_stringify_search_params<'s>(
  scope: &mut v8::PinScope<'s, '_>,
  list: v8::Local<'s, v8::Value>,
) -> Result<String, JsErrorBox> {
  let invalid = || JsErrorBox::type_error("invalid parameters");
  let list = v8::Local::<v8::Array>::try_from(list).map_err(|_| invalid())?;
  let mut pairs = Vec::with_capacity(list.length() as usize);
  let mut units = 0usize;
  for index in 0..list.length() {
    let pair = list.get_index(scope, index).ok_or_else(invalid)?;
    let pair = v8::Local::<v8::Array>::try_from(pair).map_err(|_| invalid())?;
    let name = string(pair.get_index(scope, 0).ok_or_else(invalid)?)?;
    let value = string(pair.get_index(scope, 1).ok_or_else(invalid)?)?;
    units += name.length() + value.length();
    pairs.push((name, value));
  }
  refuse_long_query(units).map_err(JsErrorBox::range_error)?;
  let pairs: Vec<(String, String)> = pairs
    .into_iter()
    .map(|(name, value)| {
      (
        name.to_rust_string_lossy(scope),
        value.to_rust_string_lossy(scope),
      )
    })
    .collect();
  Ok(stringify_search_params(&pairs))
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn a_parse_gives_deno_webs_components_and_a_serialisation_only_when_it_differs() {
    let same = parse("https://user:pw@example.com:8080/a/b?q=1#f", None).unwrap();
    assert_eq!(same.components, [5, 12, 16, 27, 8080, 32, 36, 40]);
    assert_eq!(same.serialization, None);
    let changed = parse("HTTP://Example.COM", None).unwrap();
    assert_eq!(changed.components, [4, 7, 7, 18, 0, 18, 0, 0]);
    assert_eq!(changed.serialization.as_deref(), Some("http://example.com/"));
    let relative = parse("../c?x", Some("http://h/a/b/")).unwrap();
    assert_eq!(relative.serialization.as_deref(), Some("http://h/a/c?x"));
    assert_eq!(parse("not a url", None), None);
    assert_eq!(parse("a", Some("not a base")), None);
  }

  #[test]
  fn setters_follow_the_url_standard_and_report_no_port_as_deno_web_expects() {
    let search = reparse("http://h/p", 7, "a b").unwrap();
    assert_eq!(search.serialization.as_deref(), Some("http://h/p?a%20b"));
    assert_eq!(search.components[4], NO_PORT);
    let port = reparse("http://h/p", 5, "81").unwrap();
    assert_eq!(port.serialization.as_deref(), Some("http://h:81/p"));
    assert_eq!(port.components[4], 81);
    let hash = reparse("http://h/p", 0, "x").unwrap();
    assert_eq!(hash.serialization.as_deref(), Some("http://h/p#x"));
    assert_eq!(reparse("http://h/p", 1, "bad host^"), None);
    assert_eq!(reparse("http://h/p", 9, "x"), None);
  }

  #[test]
  fn urls_past_the_bound_are_refused_with_why() {
    assert_eq!(refuse_long_url(MAX_URL_LENGTH), Ok(()));
    assert_eq!(
      refuse_long_url(MAX_URL_LENGTH + 1),
      Err("a URL of 2097153 characters is refused here: at most 2097152 are parsed, since parsing runs where no budget reaches".to_owned())
    );
  }

  #[test]
  fn queries_parse_as_form_urlencoded_up_to_the_bound() {
    assert_eq!(
      parse_search_params(b"a=1&b=%20x+y&c").unwrap(),
      [("a", "1"), ("b", " x y"), ("c", "")].map(|(k, v)| (k.to_owned(), v.to_owned()))
    );
    let at_bound = "a=1&".repeat(MAX_QUERY_PARAMS - 1) + "a=1";
    assert_eq!(
      parse_search_params(at_bound.as_bytes()).unwrap().len(),
      MAX_QUERY_PARAMS
    );
    let past = "a=1&".repeat(MAX_QUERY_PARAMS);
    assert_eq!(
      parse_search_params(past.as_bytes()),
      Err("a query of 65537 parameters is refused here: at most 65536 are parsed, since parsing runs where no budget reaches".to_owned())
    );
  }

  #[test]
  fn a_query_longer_than_the_byte_bound_is_refused_whatever_its_parameters() {
    let at_bound = format!("a={}", "x".repeat(MAX_QUERY_LENGTH - 2));
    let parsed = parse_search_params(at_bound.as_bytes()).unwrap();
    assert_eq!((parsed.len(), parsed[0].1.len()), (1, MAX_QUERY_LENGTH - 2));
    let past = format!("{at_bound}x");
    assert_eq!(
      parse_search_params(past.as_bytes()),
      Err("a query of 8388609 bytes is refused here: at most 8388608 are parsed, since parsing runs where no budget reaches".to_owned())
    );
  }

  #[test]
  fn queries_serialise_as_form_urlencoded_and_past_the_bound_are_refused() {
    let pairs = [("a b", "c&d"), ("é", "=")].map(|(k, v)| (k.to_owned(), v.to_owned()));
    assert_eq!(stringify_search_params(&pairs), "a+b=c%26d&%C3%A9=%3D");
    assert_eq!(refuse_long_query(MAX_QUERY_LENGTH), Ok(()));
    assert_eq!(
      refuse_long_query(MAX_QUERY_LENGTH + 1),
      Err("a query of 8388609 characters is refused here: at most 8388608 are serialised, since serialising runs where no budget reaches".to_owned())
    );
  }
}
