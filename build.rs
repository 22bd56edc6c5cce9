//! Links the addon for Node, and embeds the startup snapshot named by `DSH_SNAPSHOT` (written by
//! the `dsh-snapshot` tool; `scripts/build.mjs` runs it first). Without it, isolates build their
//! world at start-up instead.

use std::path::PathBuf;

fn main() {
  napi_build::setup();
  println!("cargo:rerun-if-env-changed=DSH_SNAPSHOT");
  let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("snapshot.bin");
  let snapshot = match std::env::var_os("DSH_SNAPSHOT") {
    Some(path) => {
      println!("cargo:rerun-if-changed={}", PathBuf::from(&path).display());
      std::fs::read(&path)
        .unwrap_or_else(|error| panic!("DSH_SNAPSHOT {}: {error}", PathBuf::from(&path).display()))
    }
    None => Vec::new(),
  };
  std::fs::write(out, snapshot).expect("OUT_DIR is writable");
}
