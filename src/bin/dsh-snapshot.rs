//! Writes the startup snapshot the addon embeds: `dsh-snapshot <output path>`.
//!
//! The same inputs give the same bytes. deno_core lists the snapshot's modules in the order of
//! a `HashMap`, whose keys Rust seeds from `getrandom`; this tool answers that call itself with
//! a fixed sequence, so the order, and the snapshot, stay the same from run to run. Nothing in
//! this process needs unpredictable numbers: it runs only our own world's code, once.

use std::sync::atomic::{AtomicU64, Ordering};

fn main() {
  let Some(output) = std::env::args_os().nth(1) else {
    eprintln!("usage: dsh-snapshot <output path>");
    std::process::exit(2);
  };
  let snapshot = dsh_code_runtime_v8::engine::snapshot::create();
  std::fs::write(&output, snapshot).expect("the snapshot is written");
}

/// `getrandom(2)` for this process: a fixed sequence (splitmix64) instead of the kernel's.
///
/// # Safety
/// `buffer` must be valid for `length` bytes of writes, as for the system call.
#[cfg(target_os = "linux")]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn getrandom(buffer: *mut u8, length: usize, _flags: u32) -> isize {
  static STATE: AtomicU64 = AtomicU64::new(0x5eed);
  for offset in 0..length {
    let mut z = STATE.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    // SAFETY: the caller gave `length` writable bytes.
    unsafe { buffer.add(offset).write((z ^ (z >> 31)) as u8) };
  }
  length as isize
}
