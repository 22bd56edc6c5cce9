//! How much of V8's stack is left on an isolate thread. V8 sets its limit a fixed distance
//! (`--stack-size`, see `platform`) below the top of the thread's stack and does not say where;
//! each isolate thread notes where its own frames begin, a few frames below that top, so the room
//! measured from there errs high by those frames only.

use std::cell::Cell;

/// V8's stack, in KiB: the `--stack-size` of `platform::V8_FLAGS` (a test there checks).
pub const V8_STACK_KIB: usize = 984;

thread_local! {
  static THREAD_TOP: Cell<usize> = const { Cell::new(0) };
}

fn stack_address() -> usize {
  let marker = 0u8;
  std::hint::black_box(&marker) as *const u8 as usize
}

/// Called first thing on an isolate thread.
pub fn note_thread_top() {
  THREAD_TOP.set(stack_address());
}

/// Bytes left above V8's stack limit here, or `None` on a thread that noted no top.
pub fn room() -> Option<usize> {
  let top = THREAD_TOP.get();
  if top == 0 {
    return None;
  }
  let used = top.saturating_sub(stack_address());
  Some((V8_STACK_KIB << 10).saturating_sub(used))
}

#[cfg(test)]
mod tests {
  use super::*;

  #[inline(never)]
  fn room_deeper(levels: usize) -> usize {
    let padding = std::hint::black_box([0u8; 4096]);
    let room = if levels == 0 {
      room().expect("a noted top")
    } else {
      room_deeper(levels - 1)
    };
    room + usize::from(padding[0])
  }

  #[test]
  fn room_shrinks_as_frames_are_added_and_is_unknown_without_a_top() {
    std::thread::spawn(|| {
      assert_eq!(room(), None);
      note_thread_top();
      let shallow = room().expect("a noted top");
      assert!(
        shallow <= V8_STACK_KIB << 10 && shallow > (V8_STACK_KIB - 16) << 10,
        "{shallow}"
      );
      let deep = room_deeper(8);
      assert!(shallow - deep >= 8 * 4096, "{shallow} {deep}");
    })
    .join()
    .expect("the test thread ends");
  }
}
