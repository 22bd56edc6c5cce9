//! The world's functions the runtime calls, kept where programs cannot reach them.

use deno_core::v8;

/// A function of the world that the runtime calls, kept under a private key of the global
/// object: invisible to programs, and kept by the snapshot too.
#[derive(Clone, Copy)]
pub enum WorldFunction {
  /// world.js's `start`, called in every run with its program.
  Start,
  /// lockdown.js's `lockdown`, called in every isolate as it is prepared.
  Lockdown,
  /// deno_core's `hasTickScheduled`: whether `process.nextTick` has queued anything.
  HasTickScheduled,
  /// deno_core's `runNextTicks`: runs what `process.nextTick` queued, and the microtasks after.
  RunNextTicks,
  /// main.js's `loadNodeModule`: loads and evaluates a `node:` module, if it is not yet.
  LoadNodeModule,
  /// source_text.js's `ownCallSites`: makes the call sites a program's `Error.prepareStackTrace`
  /// receives give the program's own columns.
  OwnCallSites,
}

impl WorldFunction {
  pub fn key<'s>(self, scope: &v8::PinScope<'s, '_>) -> v8::Local<'s, v8::Private> {
    let name = match self {
      WorldFunction::Start => "dsh-code-runtime-v8#start",
      WorldFunction::Lockdown => "dsh-code-runtime-v8#lockdown",
      WorldFunction::HasTickScheduled => "dsh-code-runtime-v8#hasTickScheduled",
      WorldFunction::RunNextTicks => "dsh-code-runtime-v8#runNextTicks",
      WorldFunction::LoadNodeModule => "dsh-code-runtime-v8#loadNodeModule",
      WorldFunction::OwnCallSites => "dsh-code-runtime-v8#ownCallSites",
    };
    let name = v8::String::new(scope, name).expect("a short key");
    v8::Private::for_api(scope, Some(name))
  }

  /// The function kept under this key in `scope`'s context, if the world kept it.
  pub fn function<'s>(self, scope: &mut v8::PinScope<'s, '_>) -> Option<v8::Local<'s, v8::Function>> {
    let global = scope.get_current_context().global(scope);
    let key = self.key(scope);
    global.get_private(scope, key)?.try_cast().ok()
  }
}
