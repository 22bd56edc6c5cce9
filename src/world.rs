//! The program's world as deno_core extensions: Deno's web platform, our own modules (console,
//! timers, process, the binding namespaces), the `node:` modules programs may import, and the
//! ops none of them needs, refused by name.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use deno_core::{Extension, ExtensionFileSource};
use deno_web::{BlobPart, BlobStore, BlobStoreTrait, InMemoryBlobPart};
use uuid::Uuid;

use crate::buffers::BufferBudget;
use crate::ops::dsh;

/// The extensions of every isolate and of the snapshot, in the order they load.
pub fn extensions(buffers: Arc<BufferBudget>) -> Vec<Extension> {
  let blobs = Arc::new(CountedBlobStore::new(buffers));
  let mut program = dsh::init(blobs.clone());
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
  ("node:assert", include_str!("js/node/assert.js")),
  ("node:assert/strict", include_str!("js/node/assert_strict.js")),
  ("node:buffer", include_str!("js/node/buffer.js")),
  ("node:crypto", include_str!("js/node/crypto.js")),
  ("node:events", include_str!("js/node/events.js")),
  ("node:path", include_str!("js/node/path.js")),
  ("node:querystring", include_str!("js/node/querystring.js")),
  ("node:string_decoder", include_str!("js/node/string_decoder.js")),
  ("node:timers", include_str!("js/node/timers.js")),
  ("node:timers/promises", include_str!("js/node/timers_promises.js")),
  ("node:url", include_str!("js/node/url.js")),
  ("node:util", include_str!("js/node/util.js")),
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

/// deno_web's in-memory blob store, with every part the program creates counted against the
/// run's ArrayBuffer cap until the Blob is collected.
#[derive(Debug)]
pub struct CountedBlobStore {
  parts: BlobStore,
  counted: Mutex<HashMap<Uuid, usize>>,
  buffers: Arc<BufferBudget>,
}

impl CountedBlobStore {
  fn new(buffers: Arc<BufferBudget>) -> Self {
    Self {
      parts: BlobStore::default(),
      counted: Mutex::default(),
      buffers,
    }
  }

  /// Stores a copy of `data`; `None` when it would pass the cap.
  pub fn insert_copy(&self, data: &[u8]) -> Option<Uuid> {
    if !self.buffers.reserve(data.len()) {
      return None;
    }
    let id = self
      .parts
      .insert_part(Arc::new(InMemoryBlobPart::from(data.to_vec())));
    crate::lock(&self.counted).insert(id, data.len());
    Some(id)
  }
}

/// A slice of a stored part, validated with checked arithmetic: deno_web's own check adds the
/// program's `start` and `len` unchecked, and the sum wrapped past a 2^64 offset, passed, and
/// panicked later where it cannot unwind.
#[derive(Debug)]
struct SlicedPart {
  part: Arc<dyn BlobPart + Send + Sync>,
  start: usize,
  len: usize,
}

#[async_trait::async_trait]
impl BlobPart for SlicedPart {
  async fn read<'a>(&'a self) -> &'a [u8] {
    let whole = self.part.read().await;
    // Checked when the slice was made; an empty slice if a part ever shrank.
    whole.get(self.start..self.start + self.len).unwrap_or_default()
  }

  fn size(&self) -> usize {
    self.len
  }
}

impl CountedBlobStore {
  /// A slice of `len` bytes from `start` of part `id`; `None` if the part is gone or too short.
  pub fn insert_slice(&self, id: &Uuid, start: usize, len: usize) -> Option<Uuid> {
    let part = self.parts.get_part(id)?;
    let end = start.checked_add(len)?;
    if end > part.size() {
      return None;
    }
    Some(self.parts.insert_part(Arc::new(SlicedPart { part, start, len })))
  }
}

impl BlobStoreTrait for CountedBlobStore {
  fn insert_part(&self, part: Arc<dyn BlobPart + Send + Sync>) -> Uuid {
    self.parts.insert_part(part)
  }

  fn get_part(&self, id: &Uuid) -> Option<Arc<dyn BlobPart + Send + Sync>> {
    self.parts.get_part(id)
  }

  fn remove_part(&self, id: &Uuid) -> Option<Arc<dyn BlobPart + Send + Sync>> {
    if let Some(len) = crate::lock(&self.counted).remove(id) {
      self.buffers.release(len);
    }
    self.parts.remove_part(id)
  }

  fn get_object_url(&self, url: deno_core::url::Url) -> Option<Arc<deno_web::Blob>> {
    self.parts.get_object_url(url)
  }

  fn insert_object_url(
    &self,
    blob: deno_web::Blob,
    location: Option<deno_core::url::Url>,
  ) -> deno_core::url::Url {
    self.parts.insert_object_url(blob, location)
  }

  fn remove_object_url(&self, url: &deno_core::url::Url) {
    self.parts.remove_object_url(url)
  }

  fn clear(&self) {
    let counted: usize = crate::lock(&self.counted).drain().map(|(_, len)| len).sum();
    self.buffers.release(counted);
    self.parts.clear()
  }
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
