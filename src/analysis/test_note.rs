//! Why a test of the family failed outright or could not be run: typed, worded once by its
//! `Display`, and serialised as that sentence (JSON and CSV show the same strings as ever).

use std::fmt;

use serde::Serialize;

use super::MIN_EXPECTED_COUNT;
use crate::stats::probability::Probability;

/// Why a test failed outright or could not be run, or how it was run instead.
#[derive(Debug, Clone, PartialEq)]
pub enum TestNote {
    /// Shuffles fell on cells of probability 0: the test rejects outright.
    ImpossibleCells {
        /// Shuffles on those cells.
        shuffles: u64,
    },
    /// Only one cell has positive probability: nothing to test.
    OneCell,
    /// No shuffles were tallied.
    NoTrials,
    /// A statistic took values of probability 0: the test rejects outright.
    ImpossibleValues {
        /// Those values, increasing.
        values: Vec<usize>,
        /// Shuffles on them.
        seen: u64,
    },
    /// χ² does not apply; the exact binomial test of the shuffles outside the likeliest value
    /// was run instead.
    OutsideMode {
        /// Shuffles outside the likeliest value.
        outside: u64,
        /// The likeliest value.
        mode: usize,
        /// The probability of being outside it under the hypothesis.
        p0: Probability,
    },
    /// The deck came back unchanged though the hypothesis makes that impossible.
    ImpossibleIdentity {
        /// Times seen.
        count: u64,
    },
    /// Against the model, the model gave no law at all.
    NoLawToTest,
    /// Some cell of a χ² test is expected fewer than 5 times: the p-value is approximate.
    FewExpected {
        /// The smallest expected count.
        smallest: f64,
    },
    /// A position's cards were expected fewer than 5 times each on average: consecutive cards
    /// were pooled into groups expected at least 5 times each, and χ² tests the groups.
    PooledCards {
        /// The groups.
        groups: usize,
        /// The cards.
        cards: usize,
    },
}

/// "s" unless `count` is 1.
fn plural_s(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

impl fmt::Display for TestNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TestNote::ImpossibleCells { shuffles } => write!(
                f,
                "{shuffles} shuffle{} fell on cells the hypothesis gives probability 0",
                plural_s(*shuffles)
            ),
            TestNote::OneCell => f.write_str("only one cell is possible: nothing to test"),
            TestNote::NoTrials => f.write_str("no trials"),
            TestNote::ImpossibleValues { values, seen } => write!(
                f,
                "{} impossible under the hypothesis but {} seen {seen} time{}",
                match values.as_slice() {
                    [one] => format!("the value {one} is"),
                    _ => format!("the values {} are", value_list(values)),
                },
                if values.len() == 1 { "was" } else { "were" },
                plural_s(*seen)
            ),
            TestNote::OutsideMode { outside, mode, p0 } => write!(
                f,
                "no two cells can be expected at least {MIN_EXPECTED_COUNT} times each, so χ² \
                 does not apply: exact binomial test of the {outside} shuffle{} outside the \
                 likeliest value {mode} (probability {} under the hypothesis)",
                plural_s(*outside),
                format_probability(*p0)
            ),
            TestNote::ImpossibleIdentity { count } => write!(
                f,
                "the identity is impossible under the hypothesis but was seen {count} time{}",
                plural_s(*count)
            ),
            TestNote::NoLawToTest => f.write_str("the model gives no law to test against"),
            TestNote::FewExpected { smallest } => write!(
                f,
                "some cells are expected only {smallest:.2} times (fewer than \
                 {MIN_EXPECTED_COUNT}): the χ² p-value is approximate"
            ),
            TestNote::PooledCards { groups: 1, cards } => write!(
                f,
                "the cards are expected here fewer than {MIN_EXPECTED_COUNT} times each on \
                 average, and the {cards} cards pooled make a single group: too few shuffles \
                 for χ² to test anything here"
            ),
            TestNote::PooledCards { groups, cards } => write!(
                f,
                "the cards are expected here fewer than {MIN_EXPECTED_COUNT} times each on \
                 average, so χ² tests the {cards} cards pooled into {groups} groups of \
                 consecutive cards, each expected at least {MIN_EXPECTED_COUNT} times"
            ),
        }
    }
}

impl Serialize for TestNote {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// In the JSON schema as the sentence it serialises to.
impl schemars::JsonSchema for TestNote {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "TestNote".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "description": "A sentence." })
    }
}

/// A probability for a note: `0.0312`, `3.1e-12`, `10^-1085.3`.
fn format_probability(p: Probability) -> String {
    if p.p >= 1e-4 {
        format!("{:.4}", p.p)
    } else if p.log10() >= -300.0 {
        format!("{:.2e}", p.p)
    } else {
        format!("10^{:.1}", p.log10())
    }
}

/// Increasing values as runs, e.g. `3, 19–34`, the first eight runs then `and N more`.
fn value_list(values: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &value in values {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == value => *end = value,
            _ => runs.push((value, value)),
        }
    }
    const SHOWN: usize = 8;
    let text: Vec<String> = runs
        .iter()
        .take(SHOWN)
        .map(|&(start, end)| match end - start {
            0 => start.to_string(),
            1 => format!("{start}, {end}"),
            _ => format!("{start}–{end}"),
        })
        .collect();
    let more: usize = runs.iter().skip(SHOWN).map(|(s, e)| e - s + 1).sum();
    match more {
        0 => text.join(", "),
        _ => format!("{} and {more} more", text.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_values_are_listed_as_runs() {
        assert_eq!(value_list(&[3, 19, 20, 21, 22, 40, 41]), "3, 19–22, 40, 41");
        assert_eq!(
            value_list(&[0, 2, 4, 6, 8, 10, 12, 14, 16, 17, 18, 30]),
            "0, 2, 4, 6, 8, 10, 12, 14 and 4 more"
        );
        let note = TestNote::ImpossibleValues {
            values: vec![2, 3],
            seen: 1,
        };
        assert_eq!(
            note.to_string(),
            "the values 2, 3 are impossible under the hypothesis but were seen 1 time"
        );
    }

    #[test]
    fn probabilities_in_notes_read_as_decimals_then_scientific_then_powers_of_ten() {
        assert_eq!(format_probability(Probability::from_p(0.25)), "0.2500");
        assert_eq!(format_probability(Probability::from_p(3.1e-12)), "3.10e-12");
        assert_eq!(
            format_probability(Probability::from_ln(-2500.0)),
            "10^-1085.7"
        );
    }
}
