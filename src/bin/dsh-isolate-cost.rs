//! Prints what one isolate costs here, phase by phase, as a Markdown table of medians, then the
//! memory a live isolate keeps resident, each beside its floors:
//! `dsh-isolate-cost [isolates] [V8 flags to add]` (`npm run bench:isolate` builds and runs it).

use std::time::Duration;

use dsh_code_runtime_v8::engine::cost::{init_v8, measure, measure_resident};

fn median(samples: &[Duration]) -> f64 {
  let mut sorted = samples.to_vec();
  sorted.sort();
  sorted[sorted.len() / 2].as_secs_f64() * 1000.0
}

fn main() {
  let isolates = std::env::args()
    .nth(1)
    .and_then(|n| n.parse().ok())
    .unwrap_or(200);
  let extra_flags = std::env::args().nth(2).unwrap_or_default();
  init_v8(&extra_flags);
  let phases = measure(isolates, 64 << 20);
  println!(
    "| phase ({isolates} isolates, 64 MB cap{}) | wall ms (median) | CPU ms (median) |",
    if extra_flags.is_empty() {
      String::new()
    } else {
      format!(", with {extra_flags}")
    }
  );
  println!("| --- | --- | --- |");
  let (mut wall, mut cpu) = (0.0, 0.0);
  for phase in &phases {
    let (w, c) = (median(&phase.wall), median(&phase.cpu));
    if !phase.name.starts_with("floor") {
      wall += w;
      cpu += c;
    }
    println!("| {} | {w:.3} | {c:.3} |", phase.name);
  }
  println!("| one isolate, prepared and dropped (sum of medians) | {wall:.3} | {cpu:.3} |");
  println!();
  // Fewer at once: a batch of each kind lives together.
  let held = isolates.clamp(1, 100);
  match measure_resident(held, 64 << 20) {
    Some(kinds) => {
      println!("| resident memory of a live isolate ({held} held at once) | MiB |");
      println!("| --- | --- |");
      for (name, mib) in kinds {
        println!("| {name} | {mib:.3} |");
      }
    }
    None => println!("resident memory: not readable here"),
  }
}
