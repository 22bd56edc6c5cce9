//! The program's world as deno_core extensions: Deno's web platform, our own modules (console,
//! timers, process, the binding namespaces), the `node:` modules programs may import, and the
//! ops none of them needs, refused by name.

use std::sync::Arc;

use deno_core::{Extension, ExtensionFileSource};

use crate::engine::blobs::CountedBlobStore;
use crate::engine::buffers::BufferBudget;
use crate::engine::{console_line, listings, ops, structured_clone, url};

/// The extensions of every isolate and of the snapshot, in the order they load.
pub fn extensions(buffers: Arc<BufferBudget>) -> Vec<Extension> {
  let blobs = Arc::new(CountedBlobStore::new(buffers.clone()));
  let mut program = dsh::init(blobs.clone(), buffers);
  program.esm_files.to_mut().push(ExtensionFileSource::new_computed(
    "ext:dsh/vendor.js",
    Arc::from(include_str!(concat!(env!("OUT_DIR"), "/vendor.js"))),
  ));
  program.lazy_loaded_esm_files = NODE_MODULES
    .iter()
    .map(|(specifier, source)| ExtensionFileSource::new_computed(specifier, Arc::from(*source)))
    .collect();
  let mut web = deno_web::deno_web::init(blobs, None, false, Default::default());
  // Left out, not merely disabled: every op and native class costs each isolate at start-up.
  web.ops.to_mut().retain(|op| !is_refused_op(op.name));
  web
    .objects
    .to_mut()
    .retain(|object| !UNUSED_CLASSES.contains(&object.name.0));
  vec![
    deno_webidl::deno_webidl::init(),
    web,
    deno_crypto::deno_crypto::init(None),
    program,
  ]
}

// The world's own ops and modules, with deno_web's ops that it replaces or refuses.
deno_core::extension!(
  dsh,
  deps = [deno_webidl, deno_web, deno_crypto],
  ops = [
    ops::op_dsh_log,
    console_line::op_dsh_log_simple,
    ops::op_dsh_args_json,
    ops::op_dsh_settle_value,
    ops::op_dsh_settle_thrown,
    ops::op_dsh_settle_thrown_later,
    ops::op_dsh_exit,
    ops::op_dsh_binding_admit,
    ops::op_dsh_binding_call,
    ops::op_dsh_is_proxy,
    ops::op_dsh_array_past_heap,
    ops::op_dsh_detail_string,
    listings::op_dsh_listing_kind,
    listings::op_dsh_proxied_long_length,
    ops::op_dsh_keep_world,
    ops::op_dsh_snapshotting,
    ops::op_dsh_digest,
    ops::op_dsh_text_sha256,
    ops::op_dsh_hmac,
    ops::op_dsh_hasher,
    ops::op_dsh_keyed_hasher,
    ops::op_dsh_hasher_update,
    ops::op_dsh_hasher_finish,
    ops::op_dsh_blob_create_part,
    ops::op_dsh_blob_slice_part,
    ops::op_dsh_blob_part_size,
    ops::op_dsh_blob_read_part_into,
    ops::op_dsh_icu_share,
    ops::op_dsh_long_buffer_made,
    ops::op_dsh_own_source,
    ops::op_dsh_own_column,
    structured_clone::op_dsh_structured_clone,
  ],
  esm_entry_point = "ext:dsh/main.js",
  esm = [dir "src/js", "source_text.js", "inspect.js", "abstract_ops.js", "interruptible.js", "long_strings.js", "polling.js", "intl_memory.js", "locale_list.js", "listing_guards.js", "web.js", "binding_calls.js", "immediates.js", "durable.js", "buffer.js", "world.js", "node_errors.js", "lockdown.js", "warm_up.js", "main.js"],
  options = { blobs: Arc<CountedBlobStore>, buffers: Arc<BufferBudget> },
  middleware = |op| match op.name {
    "op_blob_create_part" => op.with_implementation_from(&ops::op_dsh_blob_create_part()),
    "op_blob_slice_part" => op.with_implementation_from(&ops::op_dsh_blob_slice_part()),
    "op_url_parse" => op.with_implementation_from(&url::op_dsh_url_parse()),
    "op_url_parse_with_base" => op.with_implementation_from(&url::op_dsh_url_parse_with_base()),
    "op_url_reparse" => op.with_implementation_from(&url::op_dsh_url_reparse()),
    "op_url_get_serialization" => op.with_implementation_from(&url::op_dsh_url_get_serialization()),
    "op_url_parse_search_params" => op.with_implementation_from(&url::op_dsh_url_parse_search_params()),
    "op_url_stringify_search_params" => op.with_implementation_from(&url::op_dsh_url_stringify_search_params()),
    "op_encode" => op.with_implementation_from(&ops::op_dsh_encode()),
    "op_structured_clone" => op.with_implementation_from(&structured_clone::op_dsh_structured_clone()),
    name if is_refused_op(name) => op.disable(),
    _ => op,
  },
  state = |state, options| {
    state.put(options.blobs);
    state.put(options.buffers);
    state.put(ops::LastEncoded::default());
  },
);

/// deno_web's native classes that no part of the world uses: geometry, image data and CSS.
const UNUSED_CLASSES: &[&str] = &[
  "CSSRule",
  "CSSStyleSheet",
  "DOMPointReadOnly",
  "DOMPoint",
  "DOMRectReadOnly",
  "DOMRect",
  "DOMQuad",
  "DOMMatrixReadOnly",
  "DOMMatrix",
  "ImageData",
];

/// Node's built-in modules that need no authority, by specifier; each is evaluated on its first
/// import. `import('util')` finds `node:util` too, as Node allows.
const NODE_MODULES: &[(&str, &str)] = &[
  ("node:assert", include_str!("../js/node/assert.js")),
  ("node:assert/strict", include_str!("../js/node/assert_strict.js")),
  ("node:buffer", include_str!("../js/node/buffer.js")),
  ("node:crypto", include_str!("../js/node/crypto.js")),
  ("node:events", include_str!("../js/node/events.js")),
  ("node:path", include_str!("../js/node/path.js")),
  ("node:querystring", include_str!("../js/node/querystring.js")),
  (
    "node:string_decoder",
    include_str!("../js/node/string_decoder.js"),
  ),
  ("node:timers", include_str!("../js/node/timers.js")),
  (
    "node:timers/promises",
    include_str!("../js/node/timers_promises.js"),
  ),
  ("node:url", include_str!("../js/node/url.js")),
  ("node:util", include_str!("../js/node/util.js")),
];

/// The `node:` specifier a program's import names, if it names one of `NODE_MODULES`.
pub fn node_module(specifier: &str) -> Option<&'static str> {
  let name = specifier.strip_prefix("node:").unwrap_or(specifier);
  NODE_MODULES
    .iter()
    .map(|(known, _)| *known)
    .find(|known| known.strip_prefix("node:") == Some(name))
}

/// The importable modules, for messages.
pub fn node_module_names() -> String {
  NODE_MODULES
    .iter()
    .map(|(name, _)| *name)
    .collect::<Vec<_>>()
    .join(", ")
}

/// Ops that the world does not use: deno_core's printing, panicking, evaluation and resource
/// ops, and deno_web's messaging, locks, streams backed by resources, blob URLs, compression,
/// geometry and CSS.
pub fn is_refused_op(name: &str) -> bool {
  const REFUSED: &[&str] = &[
    "op_print",
    "op_panic",
    "op_import_sync",
    "op_eval_context",
    "op_serialize",
    "op_deserialize",
    "op_read",
    "op_write",
    "op_close",
    "op_try_close",
    "op_blob_create_object_url",
    "op_blob_revoke_object_url",
    "op_blob_from_object_url",
  ];
  const REFUSED_FAMILIES: &[&str] = &[
    "op_message_port_",
    "op_broadcast_",
    "op_lock_manager_",
    "op_readable_stream_resource_",
    "op_compression_",
    "op_geometry_",
    "op_console_parse_css",
    "op_console_css_to_ansi",
    "op_urlpattern_",
  ];
  REFUSED.contains(&name) || REFUSED_FAMILIES.iter().any(|family| name.starts_with(family))
}

/// Node's built-in modules that are refused because they would give a program authority over
/// the host, by bare name: named so that `import('fs')` says why, not "no packages".
pub fn is_authority_module(name: &str) -> bool {
  const AUTHORITY: &[&str] = &[
    "fs",
    "fs/promises",
    "child_process",
    "net",
    "http",
    "https",
    "http2",
    "dgram",
    "dns",
    "dns/promises",
    "tls",
    "worker_threads",
    "cluster",
    "os",
    "process",
    "vm",
    "v8",
    "module",
    "inspector",
    "repl",
    "tty",
    "readline",
    "readline/promises",
    "wasi",
    "sqlite",
    "trace_events",
  ];
  AUTHORITY.contains(&name)
}
