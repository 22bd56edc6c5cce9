//! The startup snapshot: deno_core's runtime and the program's world, already built and compiled.
//!
//! Creating a snapshot changes V8's flags for the whole process (`--predictable`, a fixed random
//! seed), so it is made by a separate tool at build time (`src/bin/dsh-snapshot.rs`), never
//! in the addon's process; the addon embeds the bytes.

use deno_core::{JsRuntimeForSnapshot, RuntimeOptions, v8};

use crate::isolate::{WORLD_JS, start_key};
use crate::ops::dsh_program;

/// Builds the world in a snapshotting runtime and returns the snapshot's bytes.
pub fn create() -> Box<[u8]> {
  // Compile every function of the world now, so isolates start with its code ready.
  v8::V8::set_flags_from_string(&format!("{} --no-lazy", crate::platform::V8_FLAGS));
  let tokio = crate::isolate::event_loop().expect("a tokio runtime");
  let _entered = tokio.enter();
  let mut js = JsRuntimeForSnapshot::new(RuntimeOptions {
    extensions: vec![dsh_program::init()],
    ..Default::default()
  });
  let start = js
    .execute_script("ext:dsh/world.js", WORLD_JS)
    .expect("the world builds");
  {
    let context = js.main_context();
    v8::scope_with_context!(scope, js.v8_isolate(), context);
    let global = scope.get_current_context().global(scope);
    let start = v8::Local::new(scope, start);
    let key = start_key(scope);
    global.set_private(scope, key, start);
  }
  js.snapshot()
}
