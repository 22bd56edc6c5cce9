//! The helper process of `isolation: 'process'`: shipped beside the addon, started by it.

fn main() {
  dsh_code_runtime_v8::helper::main()
}
