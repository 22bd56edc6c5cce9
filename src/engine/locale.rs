//! The program's locale and time zone: en-US and UTC, whatever the host's environment (`TZ`,
//! `LANG`) says, as every other fact a program can read of its host is fixed. Both live in the
//! ICU that V8 carries (compiled into the V8 archive, apart from Node's own), so they are set
//! there, once per process, before any isolate exists: V8 reads both when an isolate first needs
//! them.

use deno_core::v8;

const LOCALE: &str = "en-US";
const TIME_ZONE: &str = "UTC";

unsafe extern "C" {
  /// ICU's C API, with the version suffix of the ICU (77) inside the V8 that deno_core's pinned
  /// `v8` crate links: a V8 with another ICU fails to link here rather than run in the host's zone.
  fn ucal_setDefaultTimeZone_77(zone_id: *const u16, status: *mut i32);
}

pub fn fix_locale_and_time_zone() {
  v8::icu::set_default_locale(LOCALE);
  let zone: Vec<u16> = TIME_ZONE.encode_utf16().chain([0]).collect();
  let mut status = 0;
  // SAFETY: `zone` is a NUL-terminated UTF-16 string that outlives the call (ICU copies it), and
  // `status` a valid out-pointer; this runs before any isolate reads the default zone.
  unsafe { ucal_setDefaultTimeZone_77(zone.as_ptr(), &mut status) };
  // ICU's failure codes are positive; "UTC" is always known.
  debug_assert!(status <= 0, "ICU refused the time zone: {status}");
}
