//! The byte-exact output ledger: `bytes(JSON(logs)) + bytes(JSON(value or message)) <= max`.

use crate::output::json_text::{fitting_prefix, string_cost, string_cost_up_to};

/// A log entry or message as UTF-16 code units, so lone surrogates survive.
pub type Text = Vec<u16>;

/// The six ways a run can fail, as the seam names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
  Exception,
  Timeout,
  Abort,
  WorkerExit,
  InvalidOutput,
  OutputLimit,
}

impl FailureKind {
  pub fn as_str(self) -> &'static str {
    match self {
      Self::Exception => "exception",
      Self::Timeout => "timeout",
      Self::Abort => "abort",
      Self::WorkerExit => "worker-exit",
      Self::InvalidOutput => "invalid-output",
      Self::OutputLimit => "output-limit",
    }
  }
}

/// How a run ended, before the ledger has had its say.
#[derive(Debug, PartialEq)]
pub enum Ending {
  /// The program returned `undefined`.
  NoValue,
  /// The program returned a lossless value, as its `JSON.stringify` text.
  Value(String),
  /// The value or failure message is longer than the budget it was measured against.
  TooLarge,
  Failure(FailureKind, Text),
}

/// What the caller receives: `value` is JSON text.
#[derive(Debug, PartialEq)]
pub struct Settled {
  pub logs: Vec<Text>,
  pub value: Option<String>,
  pub error: Option<(FailureKind, Text)>,
}

impl Settled {
  /// The bytes this result spends of the cap.
  pub fn output_bytes(&self) -> usize {
    let logs =
      2 + self.logs.len().saturating_sub(1) + self.logs.iter().map(|entry| string_cost(entry)).sum::<usize>();
    let tail = match (&self.value, &self.error) {
      (Some(json), _) => json.len(),
      (None, Some((_, message))) => string_cost(message),
      (None, None) => 0,
    };
    logs + tail
  }
}

#[derive(Debug)]
pub struct Ledger {
  max: usize,
  logs: Vec<Text>,
  /// Bytes of `JSON.stringify(logs)`, brackets and commas included.
  used: usize,
  /// The first entry that did not fit, cut to what a repack could ever keep of it.
  overflow: Option<Text>,
}

impl Ledger {
  pub fn new(max: usize) -> Self {
    Self {
      max,
      logs: Vec::new(),
      used: 2,
      overflow: None,
    }
  }

  /// Bytes left for the completion value or failure message.
  pub fn remaining(&self) -> usize {
    self.max.saturating_sub(self.used)
  }

  /// Whether a log has already failed to fit: the run's outcome is then `output-limit`.
  pub fn is_spent(&self) -> bool {
    self.overflow.is_some()
  }

  /// How many UTF-16 units of a log entry are worth reading: a longer entry cannot fit (each unit
  /// costs at least a byte), and of one that overflows, no more is kept than fits the whole cap.
  pub fn entry_units_worth_reading(&self) -> usize {
    self.max.saturating_add(2)
  }

  /// Appends a log entry if it fits; returns `false` once the budget is spent.
  pub fn admit(&mut self, entry: Text) -> bool {
    if self.is_spent() {
      return false;
    }
    let comma = usize::from(!self.logs.is_empty());
    let budget = self.remaining().checked_sub(comma);
    match budget.and_then(|budget| string_cost_up_to(&entry, budget)) {
      Some(cost) => {
        self.used += comma + cost;
        self.logs.push(entry);
        true
      }
      None => {
        self.refuse(entry);
        false
      }
    }
  }

  /// Refuses a log entry that does not fit, given whole or as at least its first
  /// `entry_units_worth_reading` units: the budget is spent, and the prefix that fits is kept.
  pub fn refuse(&mut self, entry: Text) {
    if !self.is_spent() {
      let mut kept = entry;
      kept.truncate(fitting_prefix(&kept, self.max).unwrap_or(0));
      self.overflow = Some(kept);
    }
  }

  /// Applies the cap to how the run ended and gives the caller's result.
  pub fn settle(mut self, ending: Ending) -> Settled {
    if let Some(entry) = self.overflow.take() {
      self.logs.push(entry);
      return self.limit();
    }
    let remaining = self.remaining();
    match ending {
      Ending::NoValue => Settled {
        logs: self.logs,
        value: None,
        error: None,
      },
      Ending::Value(json) if json.len() <= remaining => Settled {
        logs: self.logs,
        value: Some(json),
        error: None,
      },
      Ending::Value(_) | Ending::TooLarge => self.limit(),
      Ending::Failure(kind, message) => match string_cost_up_to(&message, remaining) {
        Some(_) => Settled {
          logs: self.logs,
          value: None,
          error: Some((kind, message)),
        },
        None => self.limit(),
      },
    }
  }

  /// `output-limit`: the logs repacked under the message, then the message cut to what is left.
  fn limit(self) -> Settled {
    let message = output_message(self.max);
    let log_budget = self.max.saturating_sub(message.len() + 2);
    let mut kept = Vec::new();
    let mut used = 2;
    for entry in self.logs {
      let comma = usize::from(!kept.is_empty());
      let Some(budget) = log_budget.checked_sub(used + comma) else {
        break;
      };
      match string_cost_up_to(&entry, budget) {
        Some(cost) => {
          used += comma + cost;
          kept.push(entry);
        }
        None => {
          let mut prefix = entry;
          prefix.truncate(fitting_prefix(&prefix, budget).unwrap_or(0));
          if !prefix.is_empty() {
            kept.push(prefix);
          }
          break;
        }
      }
    }
    let mut message = message;
    message.truncate(fitting_prefix(&message, self.max.saturating_sub(used)).unwrap_or(0));
    Settled {
      logs: kept,
      value: None,
      error: Some((FailureKind::OutputLimit, message)),
    }
  }
}

/// What a run that outgrew `maxOutputBytes` says (the ledger then cuts it to what fits).
pub fn output_message(max_output_bytes: usize) -> Text {
  format!("outer output exceeded {max_output_bytes} bytes")
    .encode_utf16()
    .collect()
}

#[cfg(test)]
mod tests {
  use super::*;

  fn text(s: &str) -> Text {
    s.encode_utf16().collect()
  }

  fn failure(kind: FailureKind, message: &str) -> Option<(FailureKind, Text)> {
    Some((kind, text(message)))
  }

  #[test]
  fn fits_a_value_exactly_at_the_cap() {
    let settled = Ledger::new(7).settle(Ending::Value("\"€\"".into()));
    assert_eq!(
      settled,
      Settled {
        logs: vec![],
        value: Some("\"€\"".into()),
        error: None
      }
    );
    let over = Ledger::new(6).settle(Ending::Value("\"€\"".into()));
    assert_eq!(over.error, failure(FailureKind::OutputLimit, "ou"));
  }

  #[test]
  fn combines_logs_and_value() {
    let mut ledger = Ledger::new(11);
    assert!(ledger.admit(text("abc")));
    let settled = ledger.settle(Ending::Value("\"xy\"".into()));
    assert_eq!(settled.logs, vec![text("abc")]);
    assert_eq!(settled.value.as_deref(), Some("\"xy\""));

    let mut ledger = Ledger::new(10);
    assert!(ledger.admit(text("abc")));
    let settled = ledger.settle(Ending::Value("\"xy\"".into()));
    assert_eq!(
      settled,
      Settled {
        logs: vec![],
        value: None,
        error: failure(FailureKind::OutputLimit, "outer ")
      }
    );
  }

  #[test]
  fn failure_messages_obey_the_cap() {
    let mut ledger = Ledger::new(11);
    ledger.admit(text("abc"));
    let settled = ledger.settle(Ending::Failure(FailureKind::Exception, text("xy")));
    assert_eq!(settled.error, failure(FailureKind::Exception, "xy"));
    let pre_aborted = Ledger::new(64).settle(Ending::Failure(FailureKind::Abort, text(&"A".repeat(1000))));
    assert_eq!(pre_aborted.logs, Vec::<Text>::new());
    assert_eq!(
      pre_aborted.error,
      failure(FailureKind::OutputLimit, "outer output exceeded 64 bytes")
    );
    let tiny = Ledger::new(4).settle(Ending::Failure(FailureKind::Exception, text("enum")));
    assert_eq!(tiny.error, failure(FailureKind::OutputLimit, ""));
  }

  #[test]
  fn repacks_an_overflowing_log_under_the_message() {
    let mut ledger = Ledger::new(4096);
    assert!(!ledger.admit(text(&"x".repeat(10_000))));
    assert!(!ledger.admit(text("later")));
    let settled = ledger.settle(Ending::NoValue);
    assert_eq!(settled.logs, vec![text(&"x".repeat(4058))]);
    assert_eq!(
      settled.error,
      failure(FailureKind::OutputLimit, "outer output exceeded 4096 bytes")
    );
    assert_eq!(settled.output_bytes(), 4096);
  }

  #[test]
  fn keeps_the_fitting_prefix_once() {
    let mut ledger = Ledger::new(15);
    assert!(ledger.admit(text("12345")));
    assert!(!ledger.admit(text("123456")));
    assert!(!ledger.admit(text("dropped")));
    assert!(ledger.is_spent());
    assert_eq!(ledger.logs, vec![text("12345")]);
    // The first entry that did not fit is kept for the repack, and nothing after it.
    assert_eq!(ledger.overflow, Some(text("123456")));
    // A cap of 15 cannot hold the 32-byte message: the repack keeps no log, and the message
    // gets the 13 bytes left after the brackets' 2 (11 characters and their quotes).
    let settled = ledger.settle(Ending::NoValue);
    assert!(settled.logs.is_empty());
    assert_eq!(settled.error, failure(FailureKind::OutputLimit, "outer outpu"));
    assert_eq!(settled.output_bytes(), 15);

    let mut ledger = Ledger::new(6);
    assert!(ledger.admit(text("12")));
    assert_eq!(ledger.remaining(), 0);
    assert!(!ledger.admit(text("no-prefix-fits")));
    assert_eq!(ledger.logs, vec![text("12")]);
  }

  #[test]
  fn an_entry_refused_from_its_first_units_keeps_what_the_whole_would() {
    let whole = text(&"é".repeat(5000));
    let mut read_whole = Ledger::new(4096);
    assert!(read_whole.admit(text("a")));
    assert!(!read_whole.admit(whole.clone()));
    let mut read_prefix = Ledger::new(4096);
    assert!(read_prefix.admit(text("a")));
    let worth = read_prefix.entry_units_worth_reading();
    read_prefix.refuse(whole[..worth].to_vec());
    assert!(!read_prefix.admit(text("later")));
    assert_eq!(
      read_prefix.settle(Ending::NoValue),
      read_whole.settle(Ending::NoValue)
    );
  }

  #[test]
  fn default_cap_takes_a_value_of_exactly_its_size() {
    let max = 67_108_864;
    let fits = format!("\"{}\"", "x".repeat(67_108_860));
    assert!(Ledger::new(max).settle(Ending::Value(fits)).error.is_none());
    let over = Ledger::new(max).settle(Ending::TooLarge);
    assert_eq!(
      over.error,
      failure(FailureKind::OutputLimit, "outer output exceeded 67108864 bytes")
    );
  }
}

#[cfg(test)]
mod properties {
  use proptest::prelude::*;

  use super::*;

  /// `JSON.stringify(logs)` by a simple model: serde_json writes JSON strings as V8 does.
  fn logs_bytes(logs: &[String]) -> usize {
    serde_json::to_string(logs).unwrap().len()
  }

  proptest! {
    #[test]
    fn a_result_never_exceeds_the_cap_and_keeps_a_prefix_of_the_logs(
      logs in proptest::collection::vec("\\PC{0,40}", 0..12),
      value in proptest::option::of("\\PC{0,60}"),
      max in 4usize..400,
    ) {
      let mut ledger = Ledger::new(max);
      let mut admitted = Vec::new();
      for log in &logs {
        if !ledger.admit(log.encode_utf16().collect()) { break }
        admitted.push(log.clone());
      }
      // The model: what was admitted always fits.
      prop_assert!(logs_bytes(&admitted) <= max);
      let ending = match &value {
        Some(text) => Ending::Value(serde_json::to_string(text).unwrap()),
        None => Ending::NoValue,
      };
      let settled = ledger.settle(ending);
      prop_assert!(settled.output_bytes() <= max);
      let kept: Vec<String> = settled.logs.iter().map(|units| String::from_utf16(units).unwrap()).collect();
      prop_assert_eq!(settled.output_bytes(), logs_bytes(&kept) + match (&settled.value, &settled.error) {
        (Some(json), _) => json.len(),
        (None, Some((_, message))) => serde_json::to_string(&String::from_utf16(message).unwrap()).unwrap().len(),
        (None, None) => 0,
      });
      for (index, entry) in kept.iter().enumerate() {
        let original = &logs[index];
        if index + 1 < kept.len() { prop_assert_eq!(entry, original) } else { prop_assert!(original.starts_with(entry.as_str())) }
      }
      let everything_fits = admitted.len() == logs.len()
        && logs_bytes(&logs) + value.as_ref().map_or(0, |v| serde_json::to_string(v).unwrap().len()) <= max;
      prop_assert_eq!(settled.error.is_none(), everything_fits);
    }
  }
}
