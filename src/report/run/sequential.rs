//! The anytime-valid sequential test (`--until-decided`) in a run report: its outcome beside
//! the fixed-sample family, and the verdict it gives when it decided.
//!
//! The family-wise alpha is split between the two parts (see [`crate::analysis::sequential`]):
//! when the family of e-processes crossed its threshold K/(alpha/2), the run stopped there: the
//! verdict is "bias detected" from the sequential test, and the fixed-sample tests, computed on
//! the same stopped tally, are shown but do not enter the verdict — their p-values assume a
//! sample size fixed in advance. When it did not decide, the run reached its planned end and the
//! fixed-sample family decides there at what is left of alpha, and a note says so.

use super::{Against, MarginalTheory, RunFacts, RunReport, TestResult};
use crate::analysis::decision::{bias_detected, verdict_sentence};
use crate::analysis::identity::uniform_ordering_probability;
use crate::analysis::sequential::{MarginalNull, SequentialOutcome};
use crate::report::notes::Note;
use crate::theory::permutation_statistics::Statistic;

/// An e-value for humans from its log10: `10^3.21`, or `∞` (an impossible outcome was seen).
pub fn format_e_value(log10: Option<f64>) -> String {
    match log10 {
        None => "∞".to_string(),
        Some(log10) => format!("10^{log10:.2}"),
    }
}

impl RunReport {
    /// Put the sequential test's outcome into the report of the tally it filled: its verdict
    /// when it decided (bias detected; the fixed-sample tests are marked descriptive and their
    /// count warnings, which concern a decision they no longer make, are dropped); otherwise the fixed-sample family decided again at
    /// `outcome.fixed_sample_alpha`, the share of alpha the sequential test left; a note either
    /// way.
    pub fn with_sequential(mut self, facts: &RunFacts, outcome: SequentialOutcome) -> RunReport {
        let unit = facts.trial_unit();
        let gate_stop = match (&outcome.shown_within, &outcome.shown_beyond) {
            (Some(size), _) => Some((size.clone(), true)),
            (None, Some(size)) => Some((size.clone(), false)),
            (None, None) => None,
        };
        if outcome.decided {
            self.bias_detected = true;
            self.verdict = format!(
                "bias detected: the anytime-valid sequential test rejects {} at alpha = {} \
                 {} {} {unit} (strongest: {}, e-value {} ≥ 2K/alpha = {})",
                facts.hypothesis_name(),
                outcome.alpha,
                if gate_stop.is_some() {
                    "within the"
                } else {
                    "after"
                },
                outcome.trials_used,
                outcome.strongest,
                format_e_value(outcome.log10_strongest),
                outcome.threshold
            );
            self.warnings.clear();
            for test in &mut self.tests {
                test.rejected = false;
                test.descriptive = true;
            }
            let used = outcome.trials_used;
            self.notes.push(match (&gate_stop, &outcome.unmeasured) {
                (Some((size, within)), _) => Note::SequentialGateStop {
                    used,
                    unit,
                    size: size.clone(),
                    within: *within,
                },
                (None, Some(test)) => Note::SequentialUnmeasuredStop {
                    used,
                    unit,
                    test: test.clone(),
                },
                (None, None) if outcome.gated => Note::SequentialDecidedGated { used, unit },
                (None, None) => Note::SequentialStopped {
                    used,
                    most: (facts.command != "check").then_some(facts.trials_requested),
                    unit,
                },
            });
        } else {
            let alpha = outcome.fixed_sample_alpha;
            for test in &mut self.tests {
                test.rejected = holm_rejects(test, alpha);
            }
            self.bias_detected = bias_detected(&self.tests);
            self.verdict = verdict_sentence(&self.tests, alpha, &facts.hypothesis_name());
            if let Some((size, within)) = &gate_stop {
                self.notes.push(Note::SequentialGateStop {
                    used: outcome.trials_used,
                    unit,
                    size: size.clone(),
                    within: *within,
                });
            }
            self.notes.push(Note::SequentialUndecided {
                used: outcome.trials_used,
                unit,
                largest: format_e_value(outcome.log10_strongest),
                threshold: outcome.threshold,
                alpha: outcome.alpha,
                fixed_sample_alpha: alpha,
            });
        }
        self.sequential = Some(outcome);
        // The stop was chosen by the data: the bounds become confidence sequences.
        self.ruling_out(true)
    }
}

/// Whether `test`'s Holm-adjusted p-value is at most `alpha` (its logarithm is read when the
/// p-value is below f64's plain range), as [`crate::analysis::decision::decide`] decides.
fn holm_rejects(test: &TestResult, alpha: f64) -> bool {
    match test.adjusted_p_value {
        Some(p) => p <= alpha,
        None => test.log10_adjusted_p_value <= alpha.log10(),
    }
}

impl MarginalTheory {
    /// The laws the sequential family of a marginal run tests, as the fixed-sample family
    /// does: against uniform every part with its uniform law; against the model the parts
    /// whose law the theory gives.
    pub fn sequential_null(&self, deck: usize, against: Against) -> MarginalNull {
        match against {
            Against::Uniform => MarginalNull {
                positions: Some(vec![vec![1.0 / deck as f64; deck]; deck]),
                identity: Some(uniform_ordering_probability(deck)),
                statistics: Statistic::tallied(deck)
                    .map(|s| (s, s.uniform_value_law(deck)))
                    .collect(),
            },
            Against::Model => MarginalNull {
                positions: self.positions.clone(),
                identity: self.identity,
                statistics: Statistic::ALL
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.tallied_at(deck))
                    .filter_map(|(index, &s)| self.statistic(index).map(|law| (s, law.clone())))
                    .collect(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::sequential::SequentialFamily;
    use crate::engine::mapped_source::SourceSpec;
    use crate::engine::random_source::RngKind;
    use crate::report::run::{Origin, build_run_report};

    fn facts() -> RunFacts {
        RunFacts {
            command: "run",
            shuffle: None,
            origin: Origin::Simulation {
                seed: 1,
                source: SourceSpec::chacha(RngKind::Chacha8),
                threads: 1,
            },
            trials_requested: 1000,
            elapsed_seconds: 1.0,
            interrupted: false,
            alpha: 0.01,
            against: Against::Uniform,
            all_orderings: false,
        }
    }

    #[test]
    fn a_decided_sequential_test_gives_the_verdict_and_appears_in_json() {
        let mut family = SequentialFamily::full(3, None, 0.01);
        while family.observe(&[0, 1, 2]).is_continue() {}
        let (outcome, tally) = family.finish();
        let crate::analysis::sequential::SequentialTally::Full(tally) = tally else {
            panic!("full mode")
        };
        let report = build_run_report(&facts(), tally, None).with_sequential(&facts(), outcome);
        assert!(report.bias_detected);
        assert!(
            report
                .verdict
                .starts_with("bias detected: the anytime-valid sequential test rejects uniform"),
            "{}",
            report.verdict
        );
        assert!(report.warnings.is_empty());
        assert!(report.tests.iter().all(|t| t.descriptive && !t.rejected));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["tests"][0]["descriptive"], true);
        assert_eq!(json["sequential"]["decided"], true);
        assert_eq!(json["sequential"]["family_size"], 1 + 1 + 3);
        assert_eq!(json["sequential"]["threshold"], 1000.0);
        let without = serde_json::to_value(build_run_report(
            &facts(),
            crate::engine::simulate::Tally {
                deck: 3,
                counts: vec![1; 6],
                trials: 6,
            },
            None,
        ))
        .unwrap();
        assert!(without.get("sequential").is_none());
    }

    #[test]
    fn an_undecided_sequential_run_leaves_the_fixed_sample_family_only_the_rest_of_alpha() {
        // A 3-card tally whose smallest Holm-adjusted p is q: a fixed-sample run at alpha = 1.5 q
        // rejects. Under --until-decided the same alpha is shared with the sequential part, so
        // the fixed-sample family at the planned end may spend only what is left of it, and q
        // is more than that: the run that did not decide says "no bias detected".
        let counts = vec![22, 10, 10, 10, 10, 10];
        let tally = |counts: &Vec<u64>| crate::engine::simulate::Tally {
            deck: 3,
            counts: counts.clone(),
            trials: counts.iter().sum(),
        };
        let mut at = facts();
        at.alpha = 1.0;
        let q = build_run_report(&at, tally(&counts), None)
            .tests
            .iter()
            .map(|t| t.adjusted_p_value.unwrap())
            .fold(1.0, f64::min);
        at.alpha = 1.5 * q;
        assert!(build_run_report(&at, tally(&counts), None).bias_detected);
        let mut family = SequentialFamily::full(3, None, at.alpha);
        let decks: [[crate::engine::algorithms::Card; 3]; 6] = [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ];
        let mut left = counts.clone();
        while left.iter().any(|&c| c > 0) {
            for (rank, deck) in decks.iter().enumerate() {
                if left[rank] > 0 {
                    left[rank] -= 1;
                    assert!(family.observe(deck).is_continue());
                }
            }
        }
        let (outcome, _) = family.finish();
        assert!(!outcome.decided);
        let report = build_run_report(&at, tally(&counts), None).with_sequential(&at, outcome);
        assert!(!report.bias_detected, "{}", report.verdict);
        assert!(
            report.verdict.starts_with("no bias detected"),
            "{}",
            report.verdict
        );
        assert!(report.tests.iter().all(|t| !t.rejected));
    }
}
