//! Input: permutations and dealt hands produced by other programs, read and tallied (`check`),
//! and the card names the reader knows.

pub mod cards;
pub mod content_digest;
pub mod line_format;
pub mod permutation_reader;
pub mod producer;
pub mod source_name;
pub mod avx2_line_parser;
pub mod wide_line_parser;

/// The CPU-specific paths of the input, for `--version` (beside [`crate::engine::fast_paths`]):
/// they change speed, never results.
pub fn fast_paths() -> [crate::engine::FastPath; 2] {
    let built = cfg!(target_arch = "x86_64");
    [
        crate::engine::FastPath {
            name: "lines of one- or two-digit cards, 64 bytes per vector",
            needs: "AVX-512F/BW/VBMI/VBMI2",
            built,
            runs: wide_line_parser::available(),
        },
        crate::engine::FastPath {
            name: "lines of one- or two-digit cards, 32 bytes per vector",
            needs: "AVX2",
            built,
            runs: avx2_line_parser::available(),
        },
    ]
}
