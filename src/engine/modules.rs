//! What `import()` finds: the built-in `node:` modules that need no authority (see `world`), by
//! either name. Everything else rejects with a `TypeError` that names the module and says why.
//!
//! deno_core evaluates a `node:` module on its first import inside V8's import callback, and ends
//! the whole process if a termination reaches it there (`evaluate(..).unwrap()` in its lazy
//! loader). So the loader loads the module itself while it resolves the import, with every stop
//! held (`RunShared::hold_stops`), and deno_core then finds it loaded; once the run has ended,
//! nothing more is loaded.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use deno_core::v8;
use deno_core::{
  ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleResolveResponse,
  ModuleSpecifier, ResolutionKind,
};
use deno_error::JsErrorBox;

use crate::engine::world_functions::WorldFunction;

use crate::limits::run::RunShared;

/// The stack a `node:` import needs left. A run's first import is where deno_core binds the ops'
/// fast calls (see `isolate`), calling into JavaScript, and it ends the process if such a call
/// fails, as it does on a nearly full stack. Loading `node:path` needs about 50 KiB.
const IMPORT_STACK_ROOM: usize = 128 << 10;

/// The module loader of one isolate, which knows the run it serves.
pub struct NodeModules {
  current: Rc<RefCell<Option<Arc<RunShared>>>>,
}

impl NodeModules {
  pub fn new(current: Rc<RefCell<Option<Arc<RunShared>>>>) -> Self {
    Self { current }
  }
}

/// Why `specifier` cannot be imported.
fn refusal(specifier: &str) -> String {
  let name = specifier.strip_prefix("node:").unwrap_or(specifier);
  let reason = if crate::engine::world::is_authority_module(name) {
    "it would give the program authority over the host (files, processes, network, threads or host facts)"
      .to_owned()
  } else if specifier.starts_with("node:") {
    format!(
      "this runtime provides only the built-in modules that need no authority: {}",
      crate::engine::world::node_module_names()
    )
  } else if specifier.starts_with('.') || specifier.starts_with('/') || specifier.contains(':') {
    "programs run without files or network, so relative paths and URLs load nothing".to_owned()
  } else {
    "programs run without packages; only Node's built-in modules that need no authority load".to_owned()
  };
  format!("Cannot import '{specifier}': {reason}")
}

impl ModuleLoader for NodeModules {
  fn resolve(&self, specifier: &str, _referrer: &str, _kind: ResolutionKind) -> ModuleResolveResponse {
    match crate::engine::world::node_module(specifier) {
      Some(known) => ModuleSpecifier::parse(known).map_err(|error| JsErrorBox::type_error(error.to_string())),
      None => Err(JsErrorBox::type_error(refusal(specifier))),
    }
  }

  fn resolve_with_scope(
    &self,
    scope: &mut v8::PinScope,
    specifier: &str,
    referrer: &str,
    kind: ResolutionKind,
    _import_attributes: &HashMap<String, String>,
  ) -> ModuleResolveResponse {
    let resolved = self.resolve(specifier, referrer, kind)?;
    let Some(run) = self.current.borrow().clone() else {
      return Ok(resolved);
    };
    if crate::engine::stack_room::room().is_some_and(|room| room < IMPORT_STACK_ROOM) {
      return Err(JsErrorBox::type_error(format!(
        "Cannot import '{specifier}': too little of the stack is left to load it"
      )));
    }
    if !run.hold_stops() {
      return Err(JsErrorBox::type_error(format!(
        "Cannot import '{specifier}': the run has ended"
      )));
    }
    let loaded = load_node_module(scope, resolved.as_str());
    run.release_stops();
    if loaded {
      Ok(resolved)
    } else {
      Err(JsErrorBox::type_error(format!(
        "Cannot import '{specifier}': it could not be loaded here"
      )))
    }
  }

  fn load(
    &self,
    specifier: &ModuleSpecifier,
    _referrer: Option<&ModuleLoadReferrer>,
    _options: ModuleLoadOptions,
  ) -> ModuleLoadResponse {
    ModuleLoadResponse::Sync(Err(JsErrorBox::type_error(refusal(specifier.as_str()))))
  }
}

/// Loads and evaluates the `node:` module `specifier` through the world (main.js), unless it is
/// already; `false` if that threw (a module evaluated on a nearly full stack, say).
fn load_node_module(scope: &mut v8::PinScope, specifier: &str) -> bool {
  v8::tc_scope!(let scope, scope);
  let Some(load) = WorldFunction::LoadNodeModule.function(scope) else {
    return false;
  };
  let Some(specifier) = v8::String::new(scope, specifier) else {
    return false;
  };
  let undefined = v8::undefined(scope).into();
  load.call(scope, undefined, &[specifier.into()]).is_some()
}

#[cfg(test)]
mod tests {
  use super::refusal;

  #[test]
  fn refusals_name_the_module_and_the_reason() {
    assert_eq!(
      refusal("node:fs"),
      "Cannot import 'node:fs': it would give the program authority over the host (files, processes, network, threads or host facts)"
    );
    assert_eq!(
      refusal("child_process"),
      "Cannot import 'child_process': it would give the program authority over the host (files, processes, network, threads or host facts)"
    );
    assert_eq!(
      refusal("./local.js"),
      "Cannot import './local.js': programs run without files or network, so relative paths and URLs load nothing"
    );
    assert_eq!(
      refusal("lodash"),
      "Cannot import 'lodash': programs run without packages; only Node's built-in modules that need no authority load"
    );
  }
}
