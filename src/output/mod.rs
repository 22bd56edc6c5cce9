//! The output: the byte-exact ledger of what a run printed and returned, JSON text's byte
//! arithmetic, and the lossless reading of a program's values out of V8.

pub mod inspect_text;
pub mod json_text;
pub mod ledger;
pub(crate) mod lossless;
