//! The library's front door: testing a shuffle function in-process ([`ShuffleTest`]) and
//! judging permutations produced elsewhere ([`PermutationTally`]), both with the judging path
//! that `check` runs ([`crate::judge`]). The crate root re-exports what is public here.

mod shuffle_test;

pub use shuffle_test::{
    PermutationTally, ShuffleRng, ShuffleTest, ShuffleTestError, algorithm_named, fair_within,
    report_json, report_text, verdict_summary,
};
