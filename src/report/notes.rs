//! Every note and warning a report carries, in one place: typed, each worded once by its
//! `Display`, and serialised as that sentence (so JSON shows the same strings as ever).
//!
//! A note is a fact worth reading beside the verdict; a warning is a condition that weakens the
//! tests (printed on stderr as well).

use crate::theory::reachable::Reachable;
use std::fmt;

use serde::Serialize;

use crate::analysis::MIN_EXPECTED_COUNT;
use crate::engine::permutation::factorial;
use crate::theory::mixing::riffle_note;

/// The largest deck whose orderings JSON and CSV list one by one unless `--all-orderings` asks
/// for every deck: 8! = 40,320 rows (a few MB); 9! is 362,880 rows and 11! about 40 million
/// (15 GB of JSON).
pub const MAX_LISTED_DECK: usize = 8;

/// What a marginal report compares with, for its note.
#[derive(Debug, Clone, PartialEq)]
pub enum MarginalLaws {
    /// Laws from a named source (e.g. "the exact law", "Bayer & Diaconis").
    From(String),
    /// No algorithm (`check` against uniform): nothing to compare with.
    NoAlgorithm,
    /// An algorithm whose exact law is not known at this deck.
    Unknown {
        /// The algorithm's label.
        algorithm: String,
    },
}

/// A fact worth reading beside the verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// What theory says of `passes` riffles of `deck` cards (Bayer & Diaconis 1992).
    Riffle {
        /// Cards.
        deck: usize,
        /// Riffles per shuffle.
        passes: u32,
    },
    /// Some orderings have probability 0 under the algorithm's exact law.
    Unreachable {
        /// The algorithm's label.
        algorithm: String,
        /// Orderings of positive probability.
        support: u64,
        /// n!.
        orderings: u64,
    },
    /// The exact law could not be computed.
    NoExactLaw {
        /// The algorithm's label.
        algorithm: String,
        /// Cards.
        deck: usize,
        /// Why not.
        reason: String,
    },
    /// Lines skipped under `--skip-invalid`.
    SkippedLines {
        /// How many.
        count: u64,
        /// The first ones, `location: problem`.
        first: Vec<String>,
    },
    /// The orderings are not listed one by one (more than [`MAX_LISTED_DECK`] cards).
    UnlistedOrderings {
        /// Cards.
        deck: usize,
    },
    /// Statistics whose exact law is not computed at this deck size, and so not tallied.
    UntalliedStatistics {
        /// Cards.
        deck: usize,
        /// Each one's name and largest deck, e.g. `inversions (up to 300 cards)`.
        statistics: Vec<String>,
    },
    /// The tally is marginal: what it holds and what it compares with.
    MarginalMode {
        /// Cards.
        deck: usize,
        /// Permutation statistics tallied.
        statistics: usize,
        /// Where the theory columns come from.
        laws: MarginalLaws,
    },
    /// The random source has fewer bits of state (or of seed) than the deck has orderings.
    Reachable {
        /// The source, e.g. `xorshift128+` or `a 32-bit seed before every shuffle`.
        source: String,
        /// What it can reach.
        reach: Reachable,
        /// Cards.
        deck: usize,
    },
    /// A merged report of tally files some of which were saved without the deal-stream
    /// accumulator (`--no-deal-tests`): the deal-stream tests are left out.
    NoDealStream,
    /// Against the model, parts the model gives no law for were not tested.
    LeftOut {
        /// Those parts, e.g. `the positions`, `cycles`.
        parts: Vec<String>,
    },
    /// Deal mode: what a deal is and what is tested of it.
    DealMode {
        /// Cards per deal (K).
        deal: usize,
        /// The deck they are drawn from (n).
        deck: usize,
        /// Whether the five-card poker categories are tested.
        poker: bool,
        /// Whether the deal-stream tests (repeated deals, serial matches and slots) are in the
        /// family.
        stream: bool,
    },
    /// Numbered deals none of which held 0 or n, so that the numbering was not decided by the
    /// input: they were read as 0-based.
    NumberingAssumed {
        /// Deals read so.
        deals: u64,
        /// The deck.
        deck: usize,
    },
    /// `--until-decided`: the sequential test decided, and the run stopped there.
    SequentialStopped {
        /// Shuffles or permutations used.
        used: u64,
        /// The most that could have been used (`--trials`; for `check`, none).
        most: Option<u64>,
        /// What they are called.
        unit: TrialUnit,
    },
    /// `--until-decided --max-bias`: the run stopped once the bounds showed the bias within the
    /// size, or beyond it.
    SequentialGateStop {
        /// Shuffles or permutations used.
        used: u64,
        /// What they are called.
        unit: TrialUnit,
        /// The size, as written.
        size: String,
        /// Within the size (else beyond it).
        within: bool,
    },
    /// `--until-decided --max-bias SIZEpp`: a test the size does not measure rejected, which
    /// stopped the run.
    SequentialUnmeasuredStop {
        /// Shuffles or permutations used.
        used: u64,
        /// What they are called.
        unit: TrialUnit,
        /// The test that rejected.
        test: String,
    },
    /// `--until-decided --max-bias`: the family rejected on what the size measures, which does
    /// not stop a gated run, and the bounds did not decide before the run ended.
    SequentialDecidedGated {
        /// Shuffles or permutations used.
        used: u64,
        /// What they are called.
        unit: TrialUnit,
    },
    /// `--until-decided`: the sequential test did not decide; the fixed-sample tests do.
    SequentialUndecided {
        /// Shuffles or permutations used.
        used: u64,
        /// What they are called.
        unit: TrialUnit,
        /// The largest e-value, as `10^x`.
        largest: String,
        /// The threshold 2K/alpha.
        threshold: f64,
        /// The family-wise level.
        alpha: f64,
        /// The share of it the fixed-sample tests spend.
        fixed_sample_alpha: f64,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::Riffle { deck, passes } => f.write_str(&riffle_note(*deck, *passes)),
            Note::Unreachable {
                algorithm,
                support,
                orderings,
            } => write!(
                f,
                "the algorithm reaches only {support} of the {orderings} orderings (its exact \
                 law, whatever the source): the other {} have probability 0 under {algorithm}",
                orderings - support
            ),
            Note::NoExactLaw {
                algorithm,
                deck,
                reason,
            } => write!(
                f,
                "no exact law for {algorithm} at {deck} cards: {reason}; theory columns are \
                 empty and only the uniform hypothesis can be tested"
            ),
            Note::Reachable {
                source,
                reach,
                deck,
            } => f.write_str(&reach.sentence(source, *deck)),
            Note::SkippedLines { count, first } => write!(
                f,
                "{count} invalid lines were skipped (--skip-invalid); the first: {}",
                first.join("; ")
            ),
            Note::UnlistedOrderings { deck } => write!(
                f,
                "the {} orderings of {deck} cards are not listed one by one in JSON and CSV \
                 (more than {MAX_LISTED_DECK} cards); add --all-orderings to list every one",
                factorial(*deck)
            ),
            Note::MarginalMode {
                deck,
                statistics,
                laws,
            } => {
                write!(
                    f,
                    "marginal mode: positions, identity and {statistics} statistics are tallied \
                     instead of the {deck}! orderings"
                )?;
                match laws {
                    MarginalLaws::From(source) => write!(f, "; theory from {source}"),
                    MarginalLaws::NoAlgorithm => Ok(()),
                    MarginalLaws::Unknown { algorithm } => write!(
                        f,
                        "; no exact law of {algorithm} is known at {deck} cards, so theory \
                         columns are empty"
                    ),
                }
            }
            Note::UntalliedStatistics { deck, statistics } => write!(
                f,
                "not tallied at {deck} cards, beyond the decks whose exact law is computed: {}",
                statistics.join(", ")
            ),
            Note::NoDealStream => f.write_str(
                "the tests of the stream of deals (repeated decks, serial tests) are not run: \
                 some tally files were saved without them (--no-deal-tests); save them all with \
                 the deal tests to get them",
            ),
            Note::LeftOut { parts } => write!(
                f,
                "against the model, {} could not be tested: the model gives no law for them",
                parts.join(", ")
            ),
            Note::DealMode {
                deal,
                deck,
                poker,
                stream,
            } => {
                write!(
                    f,
                    "deal mode: each line is {deal} of the {deck} cards in the order dealt \
                     (slot k is position k of the shuffled deck); the family tests each slot's \
                     card and the identity (the top {deal} cards in their starting order)"
                )?;
                if *poker {
                    f.write_str(
                        ", the poker hand categories against their exact counts out of \
                         2,598,960, and each hand's category against the previous hand's",
                    )?;
                }
                if *stream {
                    f.write_str(
                        "; the stream of deals is tested for repeated deals and for dependence \
                         between consecutive deals (serial matches and slots)",
                    )?;
                }
                Ok(())
            }
            Note::NumberingAssumed { deals, deck } => write!(
                f,
                "{deals} deal{} held neither 0 nor {deck}, and no line decided whether the \
                 cards are 0-based or 1-based before {}: read as 0-based (cards 0..{})",
                if *deals == 1 { "" } else { "s" },
                if *deals == 1 { "it" } else { "them" },
                deck - 1
            ),
            Note::SequentialStopped { used, most, unit } => {
                write!(
                    f,
                    "--until-decided: stopped as soon as the sequential test decided, after {}",
                    unit.count(*used)
                )?;
                if let Some(most) = most {
                    write!(f, " of at most {most}")?;
                }
                write!(
                    f,
                    "; the fixed-sample tests below describe those {unit}, but their p-values \
                     are not valid on data stopped this way and do not enter the verdict"
                )
            }
            Note::SequentialGateStop {
                used,
                unit,
                size,
                within,
            } => write!(
                f,
                "--until-decided --max-bias {size}: stopped after {}, once the 99% \
                 confidence sequences showed the bias {} {size} (a rejection alone does not \
                 stop a gated run); the fixed-sample tests below are computed on those {unit}, \
                 a stop the data chose, and a rejection of dependence or reach among them \
                 still counts, so stopping early never turns such a bias into a pass",
                unit.count(*used),
                if *within { "within" } else { "beyond" }
            ),
            Note::SequentialUnmeasuredStop { used, unit, test } => write!(
                f,
                "--until-decided --max-bias: stopped after {}, as soon as the sequential test of \
                 {test} rejected: a bias that a size in position points does not measure, so the \
                 verdict is bias whatever the positions show; the fixed-sample tests below \
                 describe those {unit}, but their p-values are not valid on data stopped this \
                 way and do not enter the verdict",
                unit.count(*used)
            ),
            Note::SequentialDecidedGated { used, unit } => write!(
                f,
                "--until-decided --max-bias: the sequential test rejected, which alone does not \
                 stop a gated run, and the confidence sequences had not decided when the run \
                 ended after {}; the fixed-sample tests below describe those {unit}, but their \
                 p-values are not valid on data chosen this way and do not enter the verdict",
                unit.count(*used)
            ),
            Note::SequentialUndecided {
                used,
                unit,
                largest,
                threshold,
                alpha,
                fixed_sample_alpha,
            } => write!(
                f,
                "--until-decided: the sequential test did not decide within {} \
                 (largest e-value {largest}, threshold 2K/alpha = {threshold}); the fixed-sample \
                 tests decide, at alpha = {fixed_sample_alpha}: the half of alpha = {alpha} \
                 that the sequential test did not spend",
                unit.count(*used)
            ),
        }
    }
}

/// What the trials are called in advice: `trials` for `run`, `permutations` for `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialUnit {
    /// Simulated shuffles.
    Trials,
    /// Permutations read.
    Permutations,
    /// Deals read (`check --deal`).
    Deals,
}

impl TrialUnit {
    /// `count` of them, singular for one: `1 trial`, `2000 permutations`.
    pub fn count(self, count: u64) -> String {
        let plural = self.to_string();
        match count {
            1 => format!("1 {}", plural.trim_end_matches('s')),
            _ => format!("{count} {plural}"),
        }
    }
}

impl fmt::Display for TrialUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TrialUnit::Trials => "trials",
            TrialUnit::Permutations => "permutations",
            TrialUnit::Deals => "deals",
        })
    }
}

/// A condition that weakens the tests.
#[derive(Debug, Clone, PartialEq)]
pub enum Warning {
    /// Some ordering is expected fewer than [`MIN_EXPECTED_COUNT`] times (Cochran 1954).
    FewPerOrdering {
        /// The smallest expected count of a possible ordering.
        smallest_expected: f64,
        /// The trials that would lift it to 5.
        needed: u64,
        /// What the trials are called.
        unit: TrialUnit,
    },
    /// Each card is expected fewer than [`MIN_EXPECTED_COUNT`] times at each position.
    FewPerPosition {
        /// trials / n.
        per_cell: f64,
        /// The trials that would lift it to 5.
        needed: u64,
        /// What the trials are called.
        unit: TrialUnit,
    },
    /// `merge --allow-partial`: the tallies merged do not cover the whole experiment.
    PartialMerge {
        /// Shuffles (or permutations) the files hold.
        covered: u64,
        /// Shuffles the experiment asked for (for `check`, the permutations read).
        asked: u64,
        /// What is missing: blocks no file covers, files cut short by Ctrl-C.
        missing: String,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::FewPerOrdering {
                smallest_expected,
                needed,
                unit,
            } => write!(
                f,
                "the smallest expected count per ordering is {smallest_expected:.3} (< 5): the χ² \
                 p-value of the permutations test is unreliable; use at least {needed} {unit}"
            ),
            Warning::FewPerPosition {
                per_cell,
                needed,
                unit,
            } => {
                // A deal's slots are the positions of the deck its cards came from.
                let (at, tests) = match unit {
                    TrialUnit::Deals => ("in each slot", "slot"),
                    _ => ("at each position", "position"),
                };
                write!(
                    f,
                    "each card is expected {per_cell:.2} times {at} (< 5): the {tests} tests \
                     pool consecutive cards into groups expected 5 times each, and test only \
                     the groups; use at least {needed} {unit} to test every card"
                )
            }
            Warning::PartialMerge {
                covered,
                asked,
                missing,
            } => write!(
                f,
                "partial merge (--allow-partial): the tallies hold {covered} of the {asked} \
                 trials asked for; {missing}; the tests judge what is here only"
            ),
        }
    }
}

impl Warning {
    /// The warning of the permutations test when `smallest_p` (the smallest positive
    /// probability of an ordering) times `trials` is below [`MIN_EXPECTED_COUNT`].
    pub fn per_ordering(smallest_p: f64, trials: u64, unit: TrialUnit) -> Option<Warning> {
        let smallest_expected = smallest_p * trials as f64;
        (trials > 0 && smallest_expected < MIN_EXPECTED_COUNT).then(|| {
            let smallest_p = smallest_expected / trials as f64;
            // The 1e-12 keeps a ratio like 5 / (1/24) = 120.00000000000001 from rounding up
            // to 121.
            let needed = (MIN_EXPECTED_COUNT / smallest_p * (1.0 - 1e-12)).ceil() as u64;
            Warning::FewPerOrdering {
                smallest_expected,
                needed,
                unit,
            }
        })
    }

    /// The warning of the position tests when trials / `deck` is below [`MIN_EXPECTED_COUNT`].
    pub fn per_position(deck: usize, trials: u64, unit: TrialUnit) -> Option<Warning> {
        let per_cell = trials as f64 / deck as f64;
        (trials > 0 && per_cell < MIN_EXPECTED_COUNT).then(|| Warning::FewPerPosition {
            per_cell,
            needed: (MIN_EXPECTED_COUNT * deck as f64).ceil() as u64,
            unit,
        })
    }
}

/// A warning of one algorithm of `compare`, prefixed with its name.
#[derive(Debug, Clone, PartialEq)]
pub struct AlgorithmWarning {
    /// The algorithm whose run it weakens.
    pub algorithm: &'static str,
    /// The warning.
    pub warning: Warning,
}

impl fmt::Display for AlgorithmWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.algorithm, self.warning)
    }
}

/// Notes and warnings serialise as their sentence.
macro_rules! serialize_as_sentence {
    ($($kind:ty),*) => {$(
        impl Serialize for $kind {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl schemars::JsonSchema for $kind {
            fn inline_schema() -> bool {
                true
            }

            fn schema_name() -> std::borrow::Cow<'static, str> {
                "Sentence".into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "description": "A sentence." })
            }
        }
    )*};
}
serialize_as_sentence!(Note, Warning, AlgorithmWarning);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_permutations_warning_asks_for_the_trials_that_make_every_ordering_expected_5_times() {
        // 3 cards, 60 trials: each ordering expected 10 times, no warning; 24 trials: 4 times,
        // and 5 / (1/6) = 30 trials are needed.
        assert_eq!(
            Warning::per_ordering(1.0 / 6.0, 60, TrialUnit::Trials),
            None
        );
        let warning = Warning::per_ordering(1.0 / 6.0, 24, TrialUnit::Permutations).unwrap();
        assert_eq!(
            warning.to_string(),
            "the smallest expected count per ordering is 4.000 (< 5): the χ² p-value of the \
             permutations test is unreliable; use at least 30 permutations"
        );
        // 4 cards: 5 / (1/24) is 120.00000000000001 in f64, yet 120 trials suffice.
        let four = Warning::per_ordering(1.0 / 24.0, 100, TrialUnit::Trials).unwrap();
        assert!(four.to_string().ends_with("use at least 120 trials"));
        assert_eq!(Warning::per_ordering(1.0 / 6.0, 0, TrialUnit::Trials), None);
    }

    #[test]
    fn notes_serialise_as_their_sentence() {
        let note = Note::LeftOut {
            parts: vec!["the positions".to_string(), "cycles".to_string()],
        };
        assert_eq!(
            serde_json::to_string(&note).unwrap(),
            "\"against the model, the positions, cycles could not be tested: the model gives \
             no law for them\""
        );
        let marginal = Note::MarginalMode {
            deck: 52,
            statistics: 4,
            laws: MarginalLaws::NoAlgorithm,
        };
        assert_eq!(
            marginal.to_string(),
            "marginal mode: positions, identity and 4 statistics are tallied instead of the 52! \
             orderings"
        );
    }

    #[test]
    fn a_sequential_note_counts_one_trial_in_the_singular() {
        let one = Note::SequentialUndecided {
            used: 1,
            unit: TrialUnit::Trials,
            largest: "10^0".to_string(),
            threshold: 20.0,
            alpha: 0.01,
            fixed_sample_alpha: 0.005,
        };
        assert!(one.to_string().contains("did not decide within 1 trial ("));
        let stopped = |used| Note::SequentialStopped {
            used,
            most: None,
            unit: TrialUnit::Permutations,
        };
        assert!(stopped(1).to_string().contains("after 1 permutation;"));
        assert!(stopped(2000).to_string().contains("after 2000 permutations;"));
    }
}
