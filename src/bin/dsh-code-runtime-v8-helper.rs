//! The helper process of `isolation: 'process'`, and the launcher of `PythonCodeRuntime`'s
//! interpreters: shipped beside the addon, started by it.

// Counts the bytes live in the process, which Monty's memory limit reads (a run's process is one
// program's alone); it limits nothing by itself.
#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: monty_alloc::LimitedAllocator = monty_alloc::LimitedAllocator;

fn main() {
  #[cfg(unix)]
  match std::env::args().nth(1).as_deref() {
    Some("interpreter") => dsh_code_runtime_v8::helper::interpreter::main(),
    Some("monty") => dsh_code_runtime_v8::helper::monty::main(),
    _ => {}
  }
  dsh_code_runtime_v8::helper::main()
}
