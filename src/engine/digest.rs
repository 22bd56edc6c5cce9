//! The hash and HMAC algorithms of Node's `createHash` and `createHmac`, and of Web Crypto's
//! `digest` over long inputs. A hash can be fed a piece at a time ([`Hasher`]), so that the
//! JavaScript side hashes a long input in pieces that a run's budgets can stop between.

use hmac::{Hmac, Mac};
use sha2::Digest;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
  Md5,
  Sha1,
  Sha224,
  Sha256,
  Sha384,
  Sha512,
}

impl Algorithm {
  /// Node's lower-case names; the JavaScript side maps aliases onto them.
  pub fn parse(name: &str) -> Option<Self> {
    Some(match name {
      "md5" => Self::Md5,
      "sha1" => Self::Sha1,
      "sha224" => Self::Sha224,
      "sha256" => Self::Sha256,
      "sha384" => Self::Sha384,
      "sha512" => Self::Sha512,
      _ => return None,
    })
  }
}

/// A hash or HMAC in progress, fed in pieces.
pub struct Hasher(Box<dyn Piecewise>);

trait Piecewise {
  fn feed(&mut self, data: &[u8]);
  fn finish(self: Box<Self>) -> Vec<u8>;
}

struct Plain<D>(D);

impl<D: Digest> Piecewise for Plain<D> {
  fn feed(&mut self, data: &[u8]) {
    self.0.update(data);
  }

  fn finish(self: Box<Self>) -> Vec<u8> {
    self.0.finalize().to_vec()
  }
}

struct Keyed<M>(M);

impl<M: Mac> Piecewise for Keyed<M> {
  fn feed(&mut self, data: &[u8]) {
    self.0.update(data);
  }

  fn finish(self: Box<Self>) -> Vec<u8> {
    self.0.finalize().into_bytes().to_vec()
  }
}

impl Hasher {
  pub fn new(algorithm: Algorithm) -> Self {
    fn plain<D: Digest + 'static>() -> Box<dyn Piecewise> {
      Box::new(Plain(D::new()))
    }
    Self(match algorithm {
      Algorithm::Md5 => plain::<md5::Md5>(),
      Algorithm::Sha1 => plain::<sha1::Sha1>(),
      Algorithm::Sha224 => plain::<sha2::Sha224>(),
      Algorithm::Sha256 => plain::<sha2::Sha256>(),
      Algorithm::Sha384 => plain::<sha2::Sha384>(),
      Algorithm::Sha512 => plain::<sha2::Sha512>(),
    })
  }

  /// An HMAC with `key`.
  pub fn keyed(algorithm: Algorithm, key: &[u8]) -> Self {
    fn keyed<M: Mac + hmac::digest::KeyInit + 'static>(key: &[u8]) -> Box<dyn Piecewise> {
      Box::new(Keyed(
        <M as hmac::digest::KeyInit>::new_from_slice(key).expect("HMAC takes keys of any length"),
      ))
    }
    Self(match algorithm {
      Algorithm::Md5 => keyed::<Hmac<md5::Md5>>(key),
      Algorithm::Sha1 => keyed::<Hmac<sha1::Sha1>>(key),
      Algorithm::Sha224 => keyed::<Hmac<sha2::Sha224>>(key),
      Algorithm::Sha256 => keyed::<Hmac<sha2::Sha256>>(key),
      Algorithm::Sha384 => keyed::<Hmac<sha2::Sha384>>(key),
      Algorithm::Sha512 => keyed::<Hmac<sha2::Sha512>>(key),
    })
  }

  pub fn update(&mut self, data: &[u8]) {
    self.0.feed(data);
  }

  pub fn finish(self) -> Vec<u8> {
    self.0.finish()
  }
}

pub fn digest(algorithm: Algorithm, data: &[u8]) -> Vec<u8> {
  let mut hasher = Hasher::new(algorithm);
  hasher.update(data);
  hasher.finish()
}

pub fn hmac(algorithm: Algorithm, key: &[u8], data: &[u8]) -> Vec<u8> {
  let mut hasher = Hasher::keyed(algorithm, key);
  hasher.update(data);
  hasher.finish()
}

/// `sha256:` and the hex digest of `data`: how a durable journal names a call's arguments.
pub fn sha256_label(data: &[u8]) -> String {
  use std::fmt::Write as _;
  let mut label = String::with_capacity(7 + 64);
  label.push_str("sha256:");
  for byte in digest(Algorithm::Sha256, data) {
    write!(label, "{byte:02x}").expect("writing to a String");
  }
  label
}

#[cfg(test)]
mod tests {
  use super::*;

  fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
  }

  #[test]
  fn a_sha256_label_is_the_prefix_and_the_hex_digest() {
    assert_eq!(
      sha256_label(b"abc"),
      "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
  }

  #[test]
  fn digests_match_the_published_test_vectors() {
    let abc = |name| hex(&digest(Algorithm::parse(name).unwrap(), b"abc"));
    assert_eq!(abc("md5"), "900150983cd24fb0d6963f7d28e17f72");
    assert_eq!(abc("sha1"), "a9993e364706816aba3e25717850c26c9cd0d89d");
    assert_eq!(
      abc("sha224"),
      "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
    );
    assert_eq!(
      abc("sha256"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
      abc("sha384"),
      "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
    );
    assert!(abc("sha512").starts_with("ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"));
  }

  #[test]
  fn hmacs_match_rfc_4231_case_2() {
    let tag = hmac(Algorithm::Sha256, b"Jefe", b"what do ya want for nothing?");
    assert_eq!(
      hex(&tag),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
  }

  #[test]
  fn a_hash_or_hmac_fed_in_pieces_equals_the_whole() {
    let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
    for name in ["md5", "sha1", "sha224", "sha256", "sha384", "sha512"] {
      let algorithm = Algorithm::parse(name).unwrap();
      // Cuts inside and across the 64- and 128-byte blocks, and empty pieces.
      for cuts in [
        &[][..],
        &[0, 0, 1000][..],
        &[1, 63, 64, 65, 127, 128, 129, 999][..],
        &[500][..],
      ] {
        let (mut hasher, mut keyed) = (Hasher::new(algorithm), Hasher::keyed(algorithm, b"key"));
        let mut from = 0;
        for &cut in cuts.iter().chain(std::iter::once(&1000)) {
          hasher.update(&data[from..cut]);
          keyed.update(&data[from..cut]);
          from = cut;
        }
        assert_eq!(
          hex(&hasher.finish()),
          hex(&digest(algorithm, &data)),
          "{name} cut at {cuts:?}"
        );
        assert_eq!(
          hex(&keyed.finish()),
          hex(&hmac(algorithm, b"key", &data)),
          "HMAC {name} cut at {cuts:?}"
        );
      }
    }
  }

  #[test]
  fn unknown_names_are_refused() {
    assert_eq!(Algorithm::parse("SHA256"), None);
    assert_eq!(Algorithm::parse("whirlpool"), None);
  }
}
