//! Memory the process's allocator holds: handing freed pages back to the system, and how much
//! is in use.

/// Hands the allocator's free pages back to the system: glibc's `malloc_trim`, macOS's
/// `malloc_zone_pressure_relief` on every zone, Windows's `HeapCompact` on the process heap.
/// A no-op under other C libraries (musl holds little).
pub fn trim_freed_memory() {
  #[cfg(all(target_os = "linux", target_env = "gnu"))]
  // SAFETY: only hands free pages of malloc's own arenas back to the kernel.
  unsafe {
    libc::malloc_trim(0);
  }
  #[cfg(target_os = "macos")]
  // SAFETY: a null zone asks every zone to release what it can; a goal of 0 means all of it.
  unsafe {
    malloc_zone_pressure_relief(std::ptr::null_mut(), 0);
  }
  #[cfg(windows)]
  // SAFETY: compacts the process heap, which every thread of the process may use meanwhile.
  unsafe {
    windows_sys::Win32::System::Memory::HeapCompact(windows_sys::Win32::System::Memory::GetProcessHeap(), 0);
  }
}

#[cfg(target_os = "macos")]
unsafe extern "C" {
  /// libmalloc's own call, in the system library every program links (no binding crate has it).
  fn malloc_zone_pressure_relief(zone: *mut libc::malloc_zone_t, goal: libc::size_t) -> libc::size_t;
}

/// Bytes the allocator has handed out and not had back, across all its arenas or zones: a
/// leak's measure without the noise of resident memory. `None` where the allocator does not say
/// (Windows, and C libraries other than glibc).
pub fn allocated_bytes() -> Option<usize> {
  #[cfg(all(target_os = "linux", target_env = "gnu"))]
  {
    // SAFETY: only reads malloc's own statistics.
    let info = unsafe { libc::mallinfo2() };
    Some(info.uordblks + info.hblkhd)
  }
  #[cfg(target_os = "macos")]
  {
    // SAFETY: a null zone sums every zone's statistics into a valid out-pointer.
    let mut stats: libc::malloc_statistics_t = unsafe { std::mem::zeroed() };
    unsafe { libc::malloc_zone_statistics(std::ptr::null_mut(), &mut stats) };
    Some(stats.size_in_use)
  }
  #[cfg(not(any(all(target_os = "linux", target_env = "gnu"), target_os = "macos")))]
  None
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  #[cfg(any(all(target_os = "linux", target_env = "gnu"), target_os = "macos"))]
  fn allocations_show_in_the_bytes_in_use() {
    let before = allocated_bytes().unwrap();
    let block = std::hint::black_box(vec![1u8; 64 << 20]);
    let during = allocated_bytes().unwrap();
    drop(block);
    trim_freed_memory();
    let after = allocated_bytes().unwrap();
    assert!(during >= before + (64 << 20), "{before} then {during}");
    assert!(after < during, "{during} then {after}");
  }

  #[test]
  #[cfg(not(any(all(target_os = "linux", target_env = "gnu"), target_os = "macos")))]
  fn the_bytes_in_use_are_unknown_where_the_allocator_does_not_say() {
    trim_freed_memory();
    assert_eq!(allocated_bytes(), None);
  }
}
