//! The helper's channel: frames of a little-endian u32 length, then a tag byte and the frame's
//! fields. The host writes to the helper's stdin, the helper to its stdout; `lib/helper_wire.js`
//! is the host's side. Strings cross as UTF-8 where napi would convert them (program, answers,
//! arguments), as UTF-16 where lone surrogates must survive (logs, messages, abort reasons).
//!
//! Host to helper: `R` run (JSON request), `A` answer (call, tagged text), `S` abort (reason),
//! `D` disposal. Helper to host: `H` ready (JSON: protocol, sandbox layers), `C` binding call
//! (call, namespace, member, arguments' JSON), `T` run taken (read, before its program starts: a
//! helper that ends before saying so ran nothing of it), `F` settled (logs, value, failure, usage),
//! `I` idle again (its run and anything the run started are gone).

use std::io::{self, Read};

use crate::engine::job::RunRequest;
use crate::limits::run::{Report, Usage};
use crate::output::ledger::Settled;

/// Bumped whenever a frame changes: a helper refuses to start for a host of another protocol.
pub const PROTOCOL: u32 = 2;

/// The longest frame either side accepts: a program or an answer is bounded by the host's
/// memory, not by the channel, but a length past this is a broken stream.
pub const MAX_FRAME_BYTES: usize = 1 << 30;

/// A frame from the host.
#[derive(Debug, PartialEq)]
pub enum ToHelper {
  Run(RunRequest),
  Answer { call: u32, tagged: String },
  Abort(Vec<u16>),
  Dispose,
}

/// Reads one frame; `None` at the end of the stream (the host has closed it, or is gone).
pub fn read_frame(input: &mut impl Read) -> io::Result<Option<ToHelper>> {
  let mut length = [0u8; 4];
  match input.read_exact(&mut length) {
    Ok(()) => {}
    Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
    Err(error) => return Err(error),
  }
  let length = u32::from_le_bytes(length) as usize;
  if length == 0 || length > MAX_FRAME_BYTES {
    return Err(invalid(format!("a frame of {length} bytes")));
  }
  let mut body = vec![0u8; length];
  input.read_exact(&mut body)?;
  decode(&body).map(Some)
}

fn decode(body: &[u8]) -> io::Result<ToHelper> {
  let (&tag, fields) = body.split_first().ok_or_else(|| invalid("an empty frame".into()))?;
  match tag {
    b'R' => RunRequest::from_json(fields).map(ToHelper::Run).map_err(invalid),
    b'A' if fields.len() >= 4 => Ok(ToHelper::Answer {
      call: u32::from_le_bytes(fields[..4].try_into().expect("four bytes")),
      tagged: utf8(&fields[4..])?,
    }),
    b'S' if fields.len() % 2 == 0 => Ok(ToHelper::Abort(
      fields.chunks_exact(2).map(|unit| u16::from_le_bytes([unit[0], unit[1]])).collect(),
    )),
    b'D' if fields.is_empty() => Ok(ToHelper::Dispose),
    _ => Err(invalid(format!("a malformed frame tagged {tag:#04x}"))),
  }
}

fn utf8(bytes: &[u8]) -> io::Result<String> {
  String::from_utf8(bytes.to_vec()).map_err(|_| invalid("text that is not UTF-8".into()))
}

fn invalid(what: String) -> io::Error {
  io::Error::new(io::ErrorKind::InvalidData, format!("the host sent {what}"))
}

/// A frame to the host, built field by field.
struct Frame(Vec<u8>);

impl Frame {
  fn new(tag: u8) -> Self {
    Self(vec![0, 0, 0, 0, tag])
  }

  fn u32(mut self, value: u32) -> Self {
    self.0.extend_from_slice(&value.to_le_bytes());
    self
  }

  fn f64(mut self, value: f64) -> Self {
    self.0.extend_from_slice(&value.to_le_bytes());
    self
  }

  fn bytes(mut self, bytes: &[u8]) -> Self {
    self.0.extend_from_slice(bytes);
    self
  }

  /// A length-prefixed UTF-8 string.
  fn utf8(self, text: &str) -> Self {
    self.u32(text.len() as u32).bytes(text.as_bytes())
  }

  /// A length-prefixed UTF-16 string (its length in code units).
  fn utf16(mut self, text: &[u16]) -> Self {
    self = self.u32(text.len() as u32);
    self.0.reserve(text.len() * 2);
    for unit in text {
      self.0.extend_from_slice(&unit.to_le_bytes());
    }
    self
  }

  /// An optional field: a presence byte, then the field.
  fn optional<T>(mut self, value: Option<T>, write: impl FnOnce(Self, T) -> Self) -> Self {
    self.0.push(u8::from(value.is_some()));
    match value {
      Some(value) => write(self, value),
      None => self,
    }
  }

  fn finish(mut self) -> Vec<u8> {
    let length = (self.0.len() - 4) as u32;
    self.0[..4].copy_from_slice(&length.to_le_bytes());
    self.0
  }
}

/// `H`: the helper is confined and has an isolate prepared. `details_json` is a JSON object.
pub fn ready(details_json: &str) -> Vec<u8> {
  Frame::new(b'H').bytes(details_json.as_bytes()).finish()
}

/// `T`: the run the host sent is read, and its program about to start.
pub fn taken() -> Vec<u8> {
  Frame::new(b'T').finish()
}

/// `C`: binding call `call` of member `member` of namespace `namespace`, with its arguments.
pub fn binding_call(call: u32, namespace: u32, member: u32, args_json: &str) -> Vec<u8> {
  Frame::new(b'C').u32(call).u32(namespace).u32(member).bytes(args_json.as_bytes()).finish()
}

/// `F`: the run's result and what it cost.
pub fn settled(report: &Report) -> Vec<u8> {
  let Settled { logs, value, error } = &report.settled;
  let Usage {
    busy,
    wall,
    startup,
    binding_calls,
    binding_wait,
    heap_peak_bytes,
    output_bytes,
  } = &report.usage;
  let ms = |duration: &std::time::Duration| duration.as_secs_f64() * 1000.0;
  let mut frame = Frame::new(b'F').u32(logs.len() as u32);
  for entry in logs {
    frame = frame.utf16(entry);
  }
  frame
    .optional(value.as_deref(), Frame::utf8)
    .optional(error.as_ref(), |frame, (kind, message)| frame.utf8(kind.as_str()).utf16(message))
    .f64(ms(busy))
    .f64(ms(wall))
    .f64(ms(startup))
    .f64(*binding_calls as f64)
    .f64(ms(binding_wait))
    .f64(*heap_peak_bytes as f64)
    .f64(*output_bytes as f64)
    .finish()
}

/// `I`: ready for another run.
pub fn idle() -> Vec<u8> {
  Frame::new(b'I').finish()
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::output::ledger::FailureKind;

  fn frame(tag: u8, fields: &[u8]) -> Vec<u8> {
    let mut bytes = ((fields.len() + 1) as u32).to_le_bytes().to_vec();
    bytes.push(tag);
    bytes.extend_from_slice(fields);
    bytes
  }

  #[test]
  fn reads_each_frame_the_host_sends_and_then_the_end() {
    let request = br#"{"program":"return 1","params":["tools","console"],"namespacesJson":"[]","computeMs":100,"maxWallMs":200,"maxOutputBytes":300,"maxOldGenerationSizeMb":64}"#;
    let mut answer = 7u32.to_le_bytes().to_vec();
    answer.extend_from_slice("V\"é\"".as_bytes());
    let stream = [
      frame(b'R', request),
      frame(b'A', &answer),
      frame(b'S', &[0x3d, 0xd8, b'x', 0]),
      frame(b'D', &[]),
    ]
    .concat();
    let mut input = stream.as_slice();
    // The request itself is read as engine::job's tests show.
    assert_eq!(
      read_frame(&mut input).unwrap(),
      Some(ToHelper::Run(RunRequest::from_json(request).unwrap()))
    );
    assert_eq!(
      read_frame(&mut input).unwrap(),
      Some(ToHelper::Answer { call: 7, tagged: "V\"é\"".into() })
    );
    // A lone surrogate survives.
    assert_eq!(read_frame(&mut input).unwrap(), Some(ToHelper::Abort(vec![0xd83d, 0x78])));
    assert_eq!(read_frame(&mut input).unwrap(), Some(ToHelper::Dispose));
    assert_eq!(read_frame(&mut input).unwrap(), None);
  }

  #[test]
  fn refuses_a_broken_stream_with_what_was_wrong() {
    let message = |bytes: Vec<u8>| read_frame(&mut bytes.as_slice()).unwrap_err().to_string();
    assert_eq!(message(vec![0, 0, 0, 0]), "the host sent a frame of 0 bytes");
    assert_eq!(message(vec![0, 0, 0, 0x41]), "the host sent a frame of 1090519040 bytes");
    assert_eq!(message(frame(b'Q', &[])), "the host sent a malformed frame tagged 0x51");
    assert_eq!(message(frame(b'S', &[1])), "the host sent a malformed frame tagged 0x53");
    assert_eq!(message(frame(b'A', &[1, 0, 0, 0, 0xff])), "the host sent text that is not UTF-8");
    assert_eq!(message(frame(b'R', b"{}")), "the host sent a run request without params");
    // Cut short inside a frame: an error, not the end of the stream.
    assert_eq!(message(vec![5, 0, 0, 0, b'D']), "failed to fill whole buffer");
  }

  #[test]
  fn writes_a_settled_run_field_by_field() {
    let report = Report {
      settled: Settled {
        logs: vec![vec![0x61], vec![0xdc00]],
        value: None,
        error: Some((FailureKind::Timeout, vec![0x62])),
      },
      usage: Usage {
        binding_calls: 3,
        output_bytes: 9,
        ..Usage::default()
      },
    };
    let mut expected = vec![b'F'];
    expected.extend_from_slice(&2u32.to_le_bytes());
    expected.extend_from_slice(&[1, 0, 0, 0, 0x61, 0, 1, 0, 0, 0, 0x00, 0xdc]);
    expected.push(0);
    expected.push(1);
    expected.extend_from_slice(&7u32.to_le_bytes());
    expected.extend_from_slice(b"timeout");
    expected.extend_from_slice(&[1, 0, 0, 0, 0x62, 0]);
    for value in [0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 9.0f64] {
      expected.extend_from_slice(&value.to_le_bytes());
    }
    let mut framed = (expected.len() as u32).to_le_bytes().to_vec();
    framed.extend_from_slice(&expected);
    assert_eq!(settled(&report), framed);
    assert_eq!(binding_call(1, 2, 3, "[]"), frame(b'C', &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, b'[', b']']));
    assert_eq!(idle(), frame(b'I', &[]));
    assert_eq!(taken(), frame(b'T', &[]));
  }
}
