//! `theory`'s config: one exact law, or a mixing curve over a range of passes.

use super::{
    OutputConfig, UsageError, WORD_BITS, check_alpha, check_listed_orderings, check_max_paths,
    check_shuffle, output_config,
};
use crate::cli::{PassesRange, TheoryArgs};
use crate::engine::algorithms::{Algorithm, DEFAULT_SHELVES, Shuffle};
use crate::engine::mapping::Mapping;
use crate::output::files::check_outputs;
use crate::output::{CsvTable, Format};
use crate::theory::exact::ChoiceLaw;
use crate::theory::exact::{DEFAULT_MAX_PATHS, MAX_EXACT_DECK};
use crate::theory::mixing::max_mixing_deck;

/// A validated `theory`.
#[derive(Debug, Clone)]
pub struct TheoryConfig {
    /// The shuffle: algorithm, passes, cut probability.
    pub shuffle: Shuffle,
    /// `--passes A..B`: print the mixing curve over this range instead of one law.
    pub mixing: Option<PassesRange>,
    /// Cards.
    pub deck: usize,
    /// Level for the power figures.
    pub alpha: f64,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
    /// `--map` and `--bits`: how each `below(k)` is distributed, when not uniformly (a biased
    /// mapping on ideal words of the given width, 32 bits by default).
    pub law: Option<ChoiceLaw>,
    /// `--state-bits`: the bits of state of a generator, to say what it can reach.
    pub state_bits: Option<u32>,
    /// `--quiet`: no progress display.
    pub quiet: bool,
    /// `--max-bias SIZE`: print the trials a run needs to show the law within it.
    pub max_bias: Option<crate::analysis::ruled_out::BiasSize>,
    /// Output.
    pub output: OutputConfig,
}

impl TheoryConfig {
    /// Validate `theory`'s flags.
    pub fn from_args(args: &TheoryArgs) -> Result<Self, UsageError> {
        let deck = args.deck;
        let passes = args.passes;
        // A range, or the riffle on a deck too large for its full law, gives the mixing curve.
        let mixing = (passes.first != passes.last
            || (args.algorithm == Algorithm::Riffle && deck > MAX_EXACT_DECK)
            || (args.algorithm == Algorithm::Shelf
                && shelf_beyond_the_path_walk(args.shelves, deck, args.max_paths)))
        .then_some(passes);
        let largest = if mixing.is_some() {
            max_mixing_deck(args.algorithm)
        } else {
            MAX_EXACT_DECK
        };
        if !(2..=largest).contains(&deck) {
            return Err(UsageError::out_of_range(
                "--deck",
                deck,
                if mixing.is_some() {
                    format!(
                        "the mixing curve of {} is computed for 2 to {largest} cards",
                        args.algorithm.name()
                    )
                } else {
                    format!(
                        "exact laws are computed for 2 to {MAX_EXACT_DECK} cards (the distance \
                         to uniform of the riffle and the shelf shuffler, for up to {} cards)",
                        max_mixing_deck(Algorithm::Riffle)
                    )
                },
            ));
        }
        if mixing.is_some()
            && args.output.format == Format::Csv
            && args.output.table.unwrap_or_default() != CsvTable::Summary
        {
            return Err(UsageError::Conflict {
                flag: "--table",
                value: None,
                hint: "a mixing curve is one CSV table, a row per number of passes; use --table \
                       summary (the default)"
                    .to_string(),
            });
        }
        if mixing.is_none() {
            check_listed_orderings(&args.output, deck, args.all_orderings)?;
        }
        let law = theory_law(args, deck)?;
        if let (Some(law), Some(range)) = (law, mixing) {
            return Err(UsageError::conflict(
                "--map",
                law.mapping.name(),
                format!(
                    "the mixing curve (--passes {}..{}) is computed for fair coins only, not \
                     through a biased mapping; drop --map and --bits, or give one number of \
                     passes for the mapped law (up to {MAX_EXACT_DECK} cards)",
                    range.first, range.last
                ),
            ));
        }
        let output = output_config(&args.output, None)?;
        check_outputs(&output.targets(), &[])?;
        if args.state_bits == Some(0) {
            return Err(UsageError::out_of_range(
                "--state-bits",
                0,
                "a source has at least 1 bit of state (e.g. --state-bits 32 for a 32-bit seed)",
            ));
        }
        Ok(TheoryConfig {
            state_bits: args.state_bits,
            quiet: args.quiet,
            max_bias: args.max_bias,
            shuffle: check_shuffle(
                args.algorithm,
                passes.first,
                args.cut_probability,
                args.shelves,
            )?,
            mixing,
            deck,
            alpha: check_alpha(args.alpha)?,
            all_orderings: args.all_orderings,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            law,
            output,
        })
    }
}

/// The law of `--map` on ideal `--bits`-bit words (32 by default), or None when the mapping is
/// unbiased and every choice is uniform.
/// Whether one pass of the shelf shuffler on `deck` cards takes more choice paths, (2m)^n, than
/// the exact engine may walk: its distance to uniform then comes from the closed form of
/// Diaconis, Fulman & Holmes (any deck size), as for a deck beyond [`MAX_EXACT_DECK`].
fn shelf_beyond_the_path_walk(shelves: Option<u16>, deck: usize, max_paths: Option<u64>) -> bool {
    let choices = 2.0 * f64::from(shelves.unwrap_or(DEFAULT_SHELVES).max(1));
    let budget = max_paths.unwrap_or(DEFAULT_MAX_PATHS);
    deck > MAX_EXACT_DECK || choices.powi(deck as i32) > budget as f64
}

fn theory_law(args: &TheoryArgs, deck: usize) -> Result<Option<ChoiceLaw>, UsageError> {
    let mapping = args.source.map.unwrap_or(Mapping::Lemire);
    if mapping == Mapping::Native {
        return Err(UsageError::conflict(
            "--map",
            "native",
            "native is the draw of a generator's own language, and theory has no --rng; use \
             run ALGORITHM --rng NAME --map native --against model for its exact law",
        ));
    }
    let bits = args.source.bits.unwrap_or(32);
    if !WORD_BITS.contains(&bits) {
        return Err(UsageError::out_of_range(
            "--bits",
            bits,
            "words of 8 to 64 bits can be mapped (e.g. --bits 8 to see modulo bias at once)",
        ));
    }
    let law = ChoiceLaw {
        mapping,
        bits: if mapping == Mapping::Float {
            bits.min(53)
        } else {
            bits
        },
    };
    mapping
        .check(deck as u64, law.bits)
        .map_err(|error| UsageError::conflict("--map", mapping.name(), error.to_string()))?;
    Ok(matches!(
        mapping,
        Mapping::Modulo | Mapping::Multiply | Mapping::Float
    )
    .then_some(law))
}
