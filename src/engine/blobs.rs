//! Blob parts a program creates, counted against its run's ArrayBuffer cap.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use deno_web::{BlobPart, BlobStore, BlobStoreTrait, InMemoryBlobPart};
use uuid::Uuid;

use crate::engine::buffers::{BufferBudget, CountedBytes};

/// deno_web's in-memory blob store, with every part the program creates counted against the
/// run's ArrayBuffer cap until the Blob is collected.
#[derive(Debug)]
pub struct CountedBlobStore {
  parts: BlobStore,
  counted: Mutex<HashMap<Uuid, usize>>,
  buffers: Arc<BufferBudget>,
}

impl CountedBlobStore {
  pub fn new(buffers: Arc<BufferBudget>) -> Self {
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

/// A part over bytes that count against the cap themselves, until the part and every other
/// holder drop them.
#[derive(Debug)]
struct CountedPart(Arc<CountedBytes>);

#[async_trait::async_trait]
impl BlobPart for CountedPart {
  async fn read<'a>(&'a self) -> &'a [u8] {
    self.0.as_slice()
  }

  fn size(&self) -> usize {
    self.0.as_slice().len()
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
  /// Stores `bytes` as they are: they count against the cap already.
  pub fn insert_counted(&self, bytes: Arc<CountedBytes>) -> Uuid {
    self.parts.insert_part(Arc::new(CountedPart(bytes)))
  }

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
