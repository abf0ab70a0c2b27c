//! The engine: shuffle algorithms, the random source they draw from, permutations, the tallies
//! and the simulations that fill them. It never sees the command line and never prints.

pub mod algorithms;
pub mod blocks;
pub mod byte_columns;
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
pub mod poker;
pub mod random_source;
pub mod shard;
pub mod simulate;
pub mod simulate_marginal;
pub mod statistics;
pub mod tally;
pub mod trial_order;

/// A CPU-specific path of this build: its name, whether the build has it (x86-64 only) and
/// whether this machine runs it (asked of the CPU at run time, as the engine does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastPath {
    /// What the path speeds up.
    pub name: &'static str,
    /// The CPU features it needs.
    pub needs: &'static str,
    /// Compiled into this build.
    pub built: bool,
    /// Compiled in and this CPU has the features.
    pub runs: bool,
}

/// The CPU-specific paths, for `--version`: every one computes the same counts as the portable
/// code it replaces, so they change speed, never results.
pub fn fast_paths() -> [FastPath; 8] {
    let built = cfg!(target_arch = "x86_64");
    #[cfg(target_arch = "x86_64")]
    let popcnt = std::arch::is_x86_feature_detected!("popcnt");
    #[cfg(not(target_arch = "x86_64"))]
    let popcnt = false;
    [
        FastPath {
            name: "ChaCha keystream, sixteen blocks at once",
            needs: "AVX-512F",
            built,
            runs: chacha::available(),
        },
        FastPath {
            name: "ChaCha keystream, eight blocks at once where sixteen are not",
            needs: "AVX2",
            built,
            runs: chacha::avx2_available(),
        },
        FastPath {
            name: "marginal statistics, 64 cards per vector",
            needs: "AVX-512F/BW/VBMI",
            built,
            runs: marginal::wide_statistics_available(),
        },
        FastPath {
            name: "marginal statistics, 64 cards in two vectors where one is not",
            needs: "AVX2/POPCNT",
            built,
            runs: marginal::avx2_statistics_available(),
        },
        FastPath {
            name: "marginal order statistics, four decks per vector",
            needs: "AVX2",
            built,
            runs: marginal::avx2_order_statistics_available(),
        },
        FastPath {
            name: "marginal statistics, decks of 65 to 256 cards, eight decks per vector",
            needs: "AVX-512F/BW/VBMI/VPOPCNTDQ",
            built,
            runs: marginal::word_statistics_available(),
        },
        FastPath {
            name: "inversions and the guessing game, decks of 65 to 1,024 cards",
            needs: "POPCNT/LZCNT/BMI1/BMI2",
            built,
            runs: statistics::multiword_bits_available(),
        },
        FastPath {
            name: "ordering tally",
            needs: "POPCNT",
            built,
            runs: popcnt,
        },
    ]
}
