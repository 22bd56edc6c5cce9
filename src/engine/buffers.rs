//! ArrayBuffer memory counted against the run's cap: V8's heap limit does not include it.

use std::alloc::{Layout, alloc, alloc_zeroed, dealloc};
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use deno_core::v8;

use crate::engine::listings::LONG_LISTING;

/// The bytes backing stores may hold, and how many they hold now.
#[derive(Debug)]
pub struct BufferBudget {
  limit: usize,
  used: AtomicUsize,
  /// The most `used` has been.
  peak: AtomicUsize,
  /// Set when a request was refused: V8 then runs last-resort collections that reach the
  /// near-heap-limit callback, which must not mistake them for the heap being full.
  refused: AtomicBool,
  /// Set once a program could hold bytes enough for a typed array past `LONG_LISTING` elements:
  /// until then, no guard for long typed arrays need be in its way.
  long_made: AtomicBool,
}


impl BufferBudget {
  pub fn new(limit: usize) -> Arc<Self> {
    Arc::new(Self {
      limit,
      used: AtomicUsize::new(0),
      peak: AtomicUsize::new(0),
      refused: AtomicBool::new(false),
      long_made: AtomicBool::new(false),
    })
  }

  /// Reserves `len` bytes a program may reach; `false` (and nothing reserved) when they would pass
  /// the limit.
  pub(crate) fn reserve(&self, len: usize) -> bool {
    // A typed array the runtime lists, not V8, needs more bytes than it has elements.
    if len > LONG_LISTING {
      self.long_made.store(true, Ordering::Relaxed);
    }
    self.reserve_unreachable(len)
  }

  /// Reserves `len` bytes no program can reach, as `reserve` does.
  fn reserve_unreachable(&self, len: usize) -> bool {
    self
      .used
      .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |used| {
        used.checked_add(len).filter(|total| *total <= self.limit)
      })
      .map(|before| self.peak.fetch_max(before + len, Ordering::SeqCst))
      .is_ok()
  }

  /// Whether a program has been given, or asked for, bytes enough for a long typed array.
  pub fn long_made(&self) -> bool {
    self.long_made.load(Ordering::Relaxed)
  }

  /// The most backing-store memory held at once.
  pub fn peak(&self) -> usize {
    self.peak.load(Ordering::SeqCst)
  }

  /// Whether a request was refused since the last call.
  pub fn take_refusal(&self) -> bool {
    self.refused.swap(false, Ordering::SeqCst)
  }

  pub(crate) fn release(&self, len: usize) {
    self.used.fetch_sub(len, Ordering::SeqCst);
  }
}

fn layout(len: usize) -> Option<Layout> {
  // Zero-length buffers still get a distinct allocation; `free` rebuilds the same layout.
  Layout::from_size_align(len.max(1), 16).ok()
}

unsafe fn allocate_with(budget: &BufferBudget, len: usize, zeroed: bool) -> *mut c_void {
  let Some(layout) = layout(len) else {
    return std::ptr::null_mut();
  };
  if !budget.reserve(len) {
    // V8 turns a null backing store into a catchable `RangeError`.
    budget.refused.store(true, Ordering::SeqCst);
    return std::ptr::null_mut();
  }
  // SAFETY: `layout` has a non-zero size.
  let data = unsafe {
    if zeroed {
      alloc_zeroed(layout)
    } else {
      alloc(layout)
    }
  };
  if data.is_null() {
    budget.release(len);
  }
  data.cast()
}

unsafe extern "C" fn allocate(budget: &BufferBudget, len: usize) -> *mut c_void {
  // SAFETY: forwarded from V8's allocator contract.
  unsafe { allocate_with(budget, len, true) }
}

unsafe extern "C" fn allocate_uninitialized(budget: &BufferBudget, len: usize) -> *mut c_void {
  // SAFETY: forwarded from V8's allocator contract.
  unsafe { allocate_with(budget, len, false) }
}

unsafe extern "C" fn free(budget: &BufferBudget, data: *mut c_void, len: usize) {
  if data.is_null() {
    return;
  }
  if let Some(layout) = layout(len) {
    // SAFETY: V8 frees with the length it allocated, so this is the allocation's own layout.
    unsafe { dealloc(data.cast(), layout) };
    budget.release(len);
  }
}

unsafe extern "C" fn drop_budget(budget: *const BufferBudget) {
  // SAFETY: the handle came from `Arc::into_raw` in `counting_allocator`, dropped once by V8.
  drop(unsafe { Arc::from_raw(budget) });
}

static VTABLE: v8::RustAllocatorVtable<BufferBudget> = v8::RustAllocatorVtable {
  allocate,
  allocate_uninitialized,
  free,
  drop: drop_budget,
};

/// An ArrayBuffer allocator that refuses to hold more than the budget's limit at once.
pub fn counting_allocator(budget: &Arc<BufferBudget>) -> v8::UniqueRef<v8::Allocator> {
  // SAFETY: the handle stays valid until V8 calls `drop_budget`; the vtable is 'static.
  unsafe { v8::new_rust_allocator(Arc::into_raw(budget.clone()), &VTABLE) }
}

/// Bytes native code made for the program, counted against the run's cap until dropped.
pub struct CountedBytes {
  bytes: Box<[u8]>,
  budget: Arc<BufferBudget>,
}

impl CountedBytes {
  /// `bytes`, whose length must already be reserved from `budget`.
  pub fn new(budget: &Arc<BufferBudget>, bytes: Box<[u8]>) -> Arc<Self> {
    Arc::new(Self {
      bytes,
      budget: budget.clone(),
    })
  }

  pub fn as_slice(&self) -> &[u8] {
    &self.bytes
  }
}

impl std::fmt::Debug for CountedBytes {
  fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    write!(formatter, "CountedBytes({} bytes)", self.bytes.len())
  }
}

impl Drop for CountedBytes {
  fn drop(&mut self) {
    self.budget.release(self.bytes.len());
  }
}

/// A backing store over `bytes`, which holds them until V8 frees it. JavaScript may write to it:
/// only for bytes no program can reach.
pub fn backing_store_of(bytes: &Arc<CountedBytes>) -> v8::UniqueRef<v8::BackingStore> {
  let data = bytes.bytes.as_ptr().cast_mut().cast::<c_void>();
  let holder = Arc::into_raw(bytes.clone()).cast_mut().cast::<c_void>();
  // SAFETY: the bytes stay where they are while `holder` is alive; V8 calls `release_holder`
  // once, when it frees the store.
  unsafe { v8::ArrayBuffer::new_backing_store_from_ptr(data, bytes.bytes.len(), release_holder, holder) }
}

unsafe extern "C" fn release_holder(_data: *mut c_void, _len: usize, holder: *mut c_void) {
  // SAFETY: leaked by `backing_store_of` for this store, which V8 frees once.
  drop(unsafe { Arc::from_raw(holder.cast_const().cast::<CountedBytes>()) });
}

/// The most an unwritten share may stand for (see `unwritten_share`).
pub const MAX_UNWRITTEN_SHARE: usize = 192 << 10;

/// What every unwritten share points at.
static UNWRITTEN: [u8; MAX_UNWRITTEN_SHARE] = [0; MAX_UNWRITTEN_SHARE];

/// A backing store of `len` bytes, reserved from `budget` until V8 frees it, over no memory of its
/// own: it stands for memory native code holds elsewhere (ICU's, for an Intl object), so that the
/// run's cap and V8's collector, which weighs backing stores, count it. `None` when `len` would
/// pass the budget or `MAX_UNWRITTEN_SHARE`. Its bytes read as zeros and must never be written:
/// only for buffers no program can reach.
pub fn unwritten_share(budget: &Arc<BufferBudget>, len: usize) -> Option<v8::UniqueRef<v8::BackingStore>> {
  if len > MAX_UNWRITTEN_SHARE || !budget.reserve_unreachable(len) {
    return None;
  }
  let data = UNWRITTEN.as_ptr().cast_mut().cast::<c_void>();
  let holder = Arc::into_raw(budget.clone()).cast_mut().cast::<c_void>();
  // SAFETY: `UNWRITTEN` lives as long as the process and is at least `len` long; V8 calls
  // `release_share` once, when it frees the store.
  Some(unsafe { v8::ArrayBuffer::new_backing_store_from_ptr(data, len, release_share, holder) })
}

unsafe extern "C" fn release_share(_data: *mut c_void, len: usize, holder: *mut c_void) {
  // SAFETY: leaked by `unwritten_share` for this store, which V8 frees once.
  let budget = unsafe { Arc::from_raw(holder.cast_const().cast::<BufferBudget>()) };
  budget.release(len);
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn reserves_up_to_the_limit_and_releases() {
    let budget = BufferBudget::new(100);
    assert!(budget.reserve(60));
    assert!(!budget.reserve(41));
    assert!(budget.reserve(40));
    assert!(!budget.take_refusal(), "reserve alone does not record refusals");
    budget.release(60);
    assert!(budget.reserve(60));
    assert_eq!(budget.peak(), 100);
    assert!(!budget.reserve(usize::MAX));
  }

  #[test]
  fn says_once_a_program_may_hold_a_long_typed_array() {
    let budget = BufferBudget::new(1 << 20);
    assert!(unwritten_share(&budget, 100 << 10).is_some());
    assert!(budget.reserve(LONG_LISTING));
    assert!(!budget.long_made(), "neither a share no program reaches nor 2^16 bytes");
    assert!(!budget.reserve(2 << 20));
    assert!(budget.long_made(), "asked for, even if refused");
  }

  #[test]
  fn counted_bytes_release_their_reservation_when_the_last_holder_drops_them() {
    let budget = BufferBudget::new(100);
    assert!(budget.reserve(60));
    let bytes = CountedBytes::new(&budget, vec![7; 60].into_boxed_slice());
    let part = bytes.clone();
    drop(bytes);
    assert!(!budget.reserve(41), "still held by the part");
    assert_eq!(part.as_slice(), &[7; 60][..]);
    drop(part);
    assert!(budget.reserve(100));
  }

  #[test]
  fn an_unwritten_share_holds_its_reservation_until_v8_frees_its_store() {
    let budget = BufferBudget::new(100 << 10);
    let share = unwritten_share(&budget, 60 << 10).expect("fits");
    assert_eq!(share.byte_length(), 60 << 10);
    assert!(unwritten_share(&budget, 41 << 10).is_none(), "past the budget");
    assert!(
      unwritten_share(&budget, MAX_UNWRITTEN_SHARE + 1).is_none(),
      "past the largest share"
    );
    drop(share);
    assert!(budget.reserve(100 << 10), "released with the store");
  }
}
