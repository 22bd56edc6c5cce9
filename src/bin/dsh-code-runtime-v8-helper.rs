//! The helper process of `isolation: 'process'`, and the launcher of `PythonCodeRuntime`'s
//! interpreters: shipped beside the addon, started by it.

fn main() {
  #[cfg(unix)]
  if std::env::args().nth(1).as_deref() == Some("interpreter") {
    dsh_code_runtime_v8::helper::interpreter::main()
  }
  dsh_code_runtime_v8::helper::main()
}
