//! Exact theory: the exact engine (the algorithms' own code driven over every choice path), the
//! exact laws of permutation statistics and of riffles, mixing curves, and the exact law of poker
//! hands.

pub mod exact;
pub mod mallows;
pub mod mean_kernel_law;
pub mod mixing;
pub mod permutation_statistics;
pub mod poker;
pub mod rank_statistics;
pub mod reachable;
pub mod shelf;
