//! Memory the process holds: handing the allocator's freed pages back to the system, how much the
//! allocator has in use, and how much of the process is resident.

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

/// Makes glibc hand blocks of 1 MiB and more, and free space past 4 MiB at the end of a thread's
/// arena, back to the system as soon as they are freed. By default glibc raises both thresholds
/// to the largest block freed so far (up to 32 MiB and 64 MiB): after ICU's copies of a long
/// text, each isolate thread's arena then kept tens of MB that `malloc_trim` cannot reach, since
/// it trims only the main arena's end. Left as it is when the host set either threshold itself
/// (`GLIBC_TUNABLES` or glibc's `MALLOC_*_` variables); other allocators need nothing.
pub fn return_large_blocks_when_freed() {
  #[cfg(all(target_os = "linux", target_env = "gnu"))]
  {
    let tunables = std::env::var_os("GLIBC_TUNABLES").unwrap_or_default();
    let tunables = tunables.to_string_lossy();
    let host_chose = tunables.contains("mmap_threshold")
      || tunables.contains("trim_threshold")
      || std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some()
      || std::env::var_os("MALLOC_TRIM_THRESHOLD_").is_some();
    if !host_chose {
      // SAFETY: mallopt only sets allocator parameters, under malloc's own lock.
      unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 4 << 20);
      }
    }
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

/// Bytes of the process resident in memory (its working set on Windows): what the bench compares
/// isolates by. `None` only if the system refused to say.
pub fn resident_bytes() -> Option<usize> {
  #[cfg(target_os = "linux")]
  {
    // statm's second field: resident pages.
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * usize::try_from(page).ok()?)
  }
  #[cfg(target_os = "macos")]
  {
    // SAFETY: a struct of integers, for which all zeroes is a valid value.
    let mut info: libc::mach_task_basic_info = unsafe { std::mem::zeroed() };
    let mut count = libc::MACH_TASK_BASIC_INFO_COUNT;
    // SAFETY: `info` is a writable struct of the flavour's size, `count` says so.
    // libc deprecates `mach_task_self` in favour of the `mach2` crate, a dependency for one call.
    #[allow(deprecated)]
    let status = unsafe {
      libc::task_info(
        libc::mach_task_self(),
        libc::MACH_TASK_BASIC_INFO,
        (&raw mut info).cast(),
        &raw mut count,
      )
    };
    (status == libc::KERN_SUCCESS).then(|| usize::try_from(info.resident_size).unwrap_or(usize::MAX))
  }
  #[cfg(windows)]
  {
    use windows_sys::Win32::System::ProcessStatus::{K32GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
    use windows_sys::Win32::System::Threading::GetCurrentProcess;
    let mut counters = PROCESS_MEMORY_COUNTERS::default();
    let size = std::mem::size_of::<PROCESS_MEMORY_COUNTERS>() as u32;
    // SAFETY: `counters` is writable and `size` is its size; the pseudo-handle needs no closing.
    let done = unsafe { K32GetProcessMemoryInfo(GetCurrentProcess(), &raw mut counters, size) };
    (done != 0).then_some(counters.WorkingSetSize)
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  /// Tests that read the allocator's totals or the resident memory run one at a time.
  static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

  #[test]
  #[cfg(any(all(target_os = "linux", target_env = "gnu"), target_os = "macos"))]
  fn allocations_show_in_the_bytes_in_use() {
    let _alone = MEASURING.lock().unwrap();
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
  #[cfg(all(target_os = "linux", target_env = "gnu"))]
  fn large_blocks_are_mapped_of_their_own_even_after_a_larger_one_was_freed() {
    let _alone = MEASURING.lock().unwrap();
    return_large_blocks_when_freed();
    // Freeing a 16 MiB block would raise glibc's default threshold past 2 MiB.
    drop(std::hint::black_box(vec![1u8; 16 << 20]));
    let mapped = || unsafe { libc::mallinfo2() }.hblkhd;
    let before = mapped();
    let block = std::hint::black_box(vec![1u8; 2 << 20]);
    assert!(mapped() >= before + (2 << 20), "a 2 MiB block came from an arena");
    drop(block);
  }

  #[test]
  fn touched_pages_show_in_resident_memory() {
    let _alone = MEASURING.lock().unwrap();
    let before = resident_bytes().unwrap();
    let mut block = vec![0u8; 64 << 20];
    // Touch every page, so that each is resident.
    for page in block.chunks_mut(4096) {
      page[0] = 1;
    }
    std::hint::black_box(&mut block);
    let during = resident_bytes().unwrap();
    assert!(during >= before + (48 << 20), "{before} then {during}");
  }

  #[test]
  #[cfg(not(any(all(target_os = "linux", target_env = "gnu"), target_os = "macos")))]
  fn the_bytes_in_use_are_unknown_where_the_allocator_does_not_say() {
    trim_freed_memory();
    assert_eq!(allocated_bytes(), None);
  }
}
