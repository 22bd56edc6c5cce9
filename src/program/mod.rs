//! The program's text: TypeScript stripped to JavaScript, after a reading of its nesting and
//! labels that refuses what no stack could strip safely, then its key listings guarded; and a
//! function's own text, without what the guards inserted.

mod call_site;
pub mod listing_guards;
mod nesting;
pub mod own_text;
pub mod strip;
