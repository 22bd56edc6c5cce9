//! Programs load no modules: every `import()` rejects with one clear message.

use deno_core::{
  ModuleLoadOptions, ModuleLoadReferrer, ModuleLoadResponse, ModuleLoader, ModuleResolveResponse,
  ModuleSpecifier, ResolutionKind,
};
use deno_error::JsErrorBox;

const NO_MODULES: &str = "import() is not available: programs run without modules, files or network";

pub struct NoModules;

impl ModuleLoader for NoModules {
  fn resolve(&self, _specifier: &str, _referrer: &str, _kind: ResolutionKind) -> ModuleResolveResponse {
    Err(JsErrorBox::type_error(NO_MODULES))
  }

  fn load(
    &self,
    _specifier: &ModuleSpecifier,
    _referrer: Option<&ModuleLoadReferrer>,
    _options: ModuleLoadOptions,
  ) -> ModuleLoadResponse {
    ModuleLoadResponse::Sync(Err(JsErrorBox::type_error(NO_MODULES)))
  }
}
