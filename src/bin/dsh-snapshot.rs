//! Writes the startup snapshot the addon embeds: `dsh-snapshot <output path>`.

fn main() {
  let Some(output) = std::env::args_os().nth(1) else {
    eprintln!("usage: dsh-snapshot <output path>");
    std::process::exit(2);
  };
  let snapshot = dsh_code_runtime_v8::snapshot::create();
  std::fs::write(&output, snapshot).expect("the snapshot is written");
}
