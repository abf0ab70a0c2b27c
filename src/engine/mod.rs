//! The engine: shuffle algorithms, the random source they draw from, permutations, the tallies
//! and the simulations that fill them. It never sees the command line and never prints.

pub mod algorithms;
pub mod chacha;
pub mod choice_table;
pub mod counters;
pub mod deal;
pub mod deal_stream;
pub mod emit;
pub mod fingerprint_sort;
pub mod full_stream;
pub mod generators;
pub mod mapped_source;
pub mod mapping;
pub mod marginal;
pub mod permutation;
pub mod random_source;
pub mod shard;
pub mod simulate;
pub mod simulate_marginal;
pub mod tally;
pub mod trial_order;
