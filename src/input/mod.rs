//! Input: permutations produced by other programs, read and tallied (`check`).

pub mod permutation_reader;
