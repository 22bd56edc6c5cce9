//! What `import()` finds: the built-in `node:` modules that need no authority (see `world`), by
//! either name. Everything else rejects with a `TypeError` that names the module and says why.

use deno_core::{
  ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleResolveResponse,
  ModuleSpecifier, ResolutionKind,
};
use deno_error::JsErrorBox;

pub struct NodeModules;

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
      // Lazily loaded extension modules: deno_core evaluates them without calling `load`.
      Some(known) => ModuleSpecifier::parse(known).map_err(|error| JsErrorBox::type_error(error.to_string())),
      None => Err(JsErrorBox::type_error(refusal(specifier))),
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
