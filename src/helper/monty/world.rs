//! What a Monty run reads that its program does not make: the clock, and random bytes. A plain
//! run reads the process's own, as the CPython engine's does. A durable run reads its journal's
//! (lib/python/durable.js keeps the journal): a virtual clock that stands still while the program
//! runs and moves to the time of each event the host gives it, and randomness drawn from the
//! journal's seed, so that a replay reads exactly what the recorded run read.

use chrono::{DateTime, Datelike, Timelike};
use monty_types::{
  DateTimeSource, ExcType, ExtFunctionResult, MontyDate, MontyDateTime, MontyException, MontyObject, MontyTimeZone, OsFunctionCall,
  OsPolicy, RandomSeed, RandomStart, SleepMode,
};

/// A durable run's start: the virtual clock's zero (epoch ms) and the journal's 128-bit seed.
pub struct Journaled {
  pub start_ms: i64,
  pub seed: [u8; 16],
}

pub enum World {
  Plain,
  Durable { start_ms: i64, clock_ms: f64, bytes: SeededBytes },
}

impl World {
  pub fn new(journaled: Option<Journaled>) -> Self {
    match journaled {
      None => World::Plain,
      Some(Journaled { start_ms, seed }) => World::Durable { start_ms, clock_ms: 0.0, bytes: SeededBytes::new(seed) },
    }
  }

  /// Monty's policies: sleeps are always the run's to wait in full (CPython's `time.sleep` has no
  /// cap); a durable run's clock and first random state are the journal's.
  pub fn policy(&self) -> OsPolicy {
    match self {
      World::Plain => OsPolicy { sleep: SleepMode::CallHost, ..OsPolicy::default() },
      World::Durable { bytes, .. } => OsPolicy {
        sleep: SleepMode::CallHost,
        datetime: DateTimeSource::CallHost,
        random_start: RandomStart::Seed(RandomSeed::Bytes(bytes.seed.to_vec())),
        ..OsPolicy::default()
      },
    }
  }

  pub fn is_durable(&self) -> bool {
    matches!(self, World::Durable { .. })
  }

  /// A durable run's clock, in ms since its start.
  pub fn clock_ms(&self) -> f64 {
    match self {
      World::Plain => 0.0,
      World::Durable { clock_ms, .. } => *clock_ms,
    }
  }

  /// The host gave the program an event recorded at `t` (ms since the start): the clock moves
  /// to it, never back.
  pub fn advance(&mut self, t: f64) {
    if let World::Durable { clock_ms, .. } = self
      && t > *clock_ms
    {
      *clock_ms = t;
    }
  }

  /// The answer to a call for the clock or for random bytes; `None` for any other call.
  pub fn answer(&mut self, call: &OsFunctionCall) -> Option<ExtFunctionResult> {
    match (call, self) {
      (OsFunctionCall::Urandom(args), world) => Some(match zeroed(args.size) {
        None => ExtFunctionResult::Error(MontyException::new(ExcType::MemoryError, None)),
        Some(mut buffer) => match world {
          World::Plain => os_random(buffer),
          World::Durable { bytes, .. } => {
            bytes.fill(&mut buffer);
            ExtFunctionResult::Return(MontyObject::bytes(buffer))
          }
        },
      }),
      (OsFunctionCall::Time(_), World::Durable { start_ms, clock_ms, .. }) => {
        Some(ExtFunctionResult::Return(MontyObject::float((*start_ms as f64 + *clock_ms) / 1000.0)))
      }
      (OsFunctionCall::DateTimeNow(zone), World::Durable { start_ms, clock_ms, .. }) => Some(now(*start_ms, *clock_ms, zone.as_ref(), true)),
      (OsFunctionCall::DateToday, World::Durable { start_ms, clock_ms, .. }) => Some(now(*start_ms, *clock_ms, None, false)),
      _ => None,
    }
  }
}

/// `datetime.now(zone)` (or `date.today()`, without `with_time`) at the virtual clock: the
/// session's zone is UTC, as Monty's is by default.
fn now(start_ms: i64, clock_ms: f64, zone: Option<&MontyTimeZone>, with_time: bool) -> ExtFunctionResult {
  let micros = start_ms.saturating_mul(1000).saturating_add((clock_ms * 1000.0) as i64);
  let offset = zone.map_or(0, |zone| zone.offset_seconds);
  let Some(local) = DateTime::from_timestamp_micros(micros.saturating_add(i64::from(offset) * 1_000_000)).map(|at| at.naive_utc()) else {
    return ExtFunctionResult::Error(MontyException::new(ExcType::OverflowError, Some("date value out of range".into())));
  };
  let (year, month, day) = (local.year(), local.month() as u8, local.day() as u8);
  if !with_time {
    return ExtFunctionResult::Return(MontyObject::date(MontyDate { year, month, day }));
  }
  ExtFunctionResult::Return(MontyObject::datetime(MontyDateTime {
    year,
    month,
    day,
    hour: local.hour() as u8,
    minute: local.minute() as u8,
    second: local.second() as u8,
    microsecond: local.nanosecond() / 1000 % 1_000_000,
    offset_seconds: zone.map(|zone| zone.offset_seconds),
    timezone_name: zone.and_then(|zone| zone.name.clone()),
  }))
}

/// `size` zero bytes; `None` if the allocator refuses them (a `MemoryError`, as CPython's).
fn zeroed(size: u64) -> Option<Vec<u8>> {
  let size = usize::try_from(size).ok()?;
  let mut bytes = Vec::new();
  bytes.try_reserve_exact(size).ok()?;
  bytes.resize(size, 0);
  Some(bytes)
}

/// `os.urandom` from the system, as CPython's.
fn os_random(mut bytes: Vec<u8>) -> ExtFunctionResult {
  match getrandom::fill(&mut bytes) {
    Ok(()) => ExtFunctionResult::Return(MontyObject::bytes(bytes)),
    Err(error) => ExtFunctionResult::Error(MontyException::new(ExcType::OSError, Some(error.to_string()))),
  }
}

/// Bytes drawn from a 128-bit seed (SplitMix64 over each half in turn): the same on every
/// machine, for a replay to read what was read live. Not secret from whoever holds the journal.
pub struct SeededBytes {
  seed: [u8; 16],
  state: [u64; 2],
  turn: usize,
}

impl SeededBytes {
  pub fn new(seed: [u8; 16]) -> Self {
    let half = |range: std::ops::Range<usize>| u64::from_le_bytes(seed[range].try_into().unwrap_or_default());
    SeededBytes { seed, state: [half(0..8), half(8..16)], turn: 0 }
  }

  fn next(&mut self) -> u64 {
    let state = &mut self.state[self.turn];
    self.turn ^= 1;
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut mixed = *state;
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    mixed ^ (mixed >> 31)
  }

  pub fn fill(&mut self, bytes: &mut [u8]) {
    for chunk in bytes.chunks_mut(8) {
      chunk.copy_from_slice(&self.next().to_le_bytes()[..chunk.len()]);
    }
  }
}

#[cfg(test)]
mod tests {
  use monty_types::unstable::{MontyNode, node};

  use super::*;

  #[test]
  fn seeded_bytes_are_the_seeds_alone() {
    let seed = *b"0123456789abcdef";
    let draw = |source: &mut SeededBytes| {
      let mut bytes = [0u8; 13];
      source.fill(&mut bytes);
      bytes
    };
    let (mut first, mut second) = (SeededBytes::new(seed), SeededBytes::new(seed));
    let drawn = draw(&mut first);
    assert_eq!(drawn, draw(&mut second));
    assert_ne!(draw(&mut first), drawn);
    assert_ne!(draw(&mut SeededBytes::new(*b"0123456789abcdeg")), drawn);
  }

  #[test]
  fn random_bytes_past_what_can_be_allocated_are_a_memory_error() {
    let mut world = World::new(None);
    let answer = world.answer(&OsFunctionCall::Urandom(monty_types::UrandomArgs { size: u64::MAX }));
    assert!(matches!(answer, Some(ExtFunctionResult::Error(error)) if error.exc_type() == ExcType::MemoryError));
    let Some(ExtFunctionResult::Return(bytes)) = world.answer(&OsFunctionCall::Urandom(monty_types::UrandomArgs { size: 5 })) else {
      panic!("no bytes")
    };
    assert!(matches!(node(bytes.as_ref()), MontyNode::Bytes(bytes) if bytes.len() == 5));
  }

  #[test]
  fn the_durable_clock_reads_its_start_plus_the_latest_event() {
    let mut world = World::new(Some(Journaled { start_ms: 1_700_000_000_000, seed: [7; 16] }));
    world.advance(1500.0);
    world.advance(1000.0);
    let Some(ExtFunctionResult::Return(seconds)) = world.answer(&OsFunctionCall::Time(monty_types::TimeCaller::Time)) else {
      panic!("no clock")
    };
    assert!(matches!(node(seconds.as_ref()), MontyNode::Float(seconds) if *seconds == 1_700_000_001.5));
    let zone = MontyTimeZone { offset_seconds: 3600, name: Some("CET".into()) };
    let Some(ExtFunctionResult::Return(now)) = world.answer(&OsFunctionCall::DateTimeNow(Some(zone))) else {
      panic!("no datetime")
    };
    let MontyNode::DateTime(at) = node(now.as_ref()) else { panic!("not a datetime") };
    // 2023-11-14T22:13:21.5Z, an hour east.
    assert_eq!((at.year, at.month, at.day, at.hour, at.minute, at.second, at.microsecond), (2023, 11, 14, 23, 13, 21, 500_000));
    assert_eq!(at.offset_seconds, Some(3600));
  }
}
