//! Input: permutations and dealt hands produced by other programs, read and tallied (`check`),
//! and the card names the reader knows.

pub mod cards;
pub mod content_digest;
pub mod line_format;
pub mod permutation_reader;
pub mod producer;
pub mod source_name;
pub mod wide_line_parser;
