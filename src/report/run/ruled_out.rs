//! What a run report's sample rules out ([`crate::analysis::ruled_out`]), and the `--max-bias`
//! gate decided on it.

use super::{Against, ModePart, RunReport};
use crate::analysis::Question;
use crate::analysis::ruled_out::{BiasSize, Evidence, Gate, GateOutcome, RuledOut};

impl RunReport {
    /// The report with what its sample rules out (against uniform only: a pass against a model
    /// is not a claim of fairness): fixed-sample bounds, or confidence sequences valid at a
    /// stop the data chose when `anytime` (`--until-decided`).
    pub(super) fn ruling_out(mut self, anytime: bool) -> RunReport {
        self.ruled_out = (self.header.against == Against::Uniform && self.header.trials > 0)
            .then(|| RuledOut::of(&self.evidence(anytime)));
        self
    }

    /// The counts the statements are computed from.
    fn evidence(&self, anytime: bool) -> Evidence<'_> {
        let statistics = self
            .statistics()
            .iter()
            .map(|statistic| {
                let uniform_mean = statistic
                    .uniform
                    .iter()
                    .enumerate()
                    .map(|(v, p)| v as f64 * p)
                    .sum::<f64>();
                let range = (statistic.uniform.len().max(statistic.observed.len()) - 1) as f64;
                (
                    statistic.name,
                    statistic.observed.as_slice(),
                    uniform_mean,
                    range,
                )
            })
            .collect();
        Evidence {
            trials: self.header.trials,
            orderings: match &self.part {
                ModePart::Full(full) => Some(full.permutations.counts()),
                _ => None,
            },
            positions: &self.positions.counts,
            // A deal's "identity" is the top cards dealt in order, not a deck left unchanged.
            identity: match &self.part {
                ModePart::Deal(_) => None,
                _ => Some((self.identity.count, self.identity.expected_frequency)),
            },
            statistics,
            family_size: self.tests.len(),
            alpha: self.header.alpha,
            anytime,
        }
    }

    /// The questions on which the family rejected: its tests', and the law of one deal when
    /// the sequential test (whose e-processes test one deal) stopped the run.
    pub fn rejected_questions(&self) -> Vec<Question> {
        let sequential = self.sequential.as_ref().is_some_and(|s| s.decided);
        Question::ALL
            .into_iter()
            .filter(|&q| {
                self.tests.iter().any(|t| t.rejected && t.question == q)
                    || (sequential && q == Question::OneDeal)
            })
            .collect()
    }

    /// The report with the gate `--max-bias size` decided (see `Gate::decide`). A report
    /// without bounds (against a model) or without a bound of `size`'s kind is returned as it
    /// is; the commands refuse those combinations before running.
    pub fn with_gate(mut self, size: BiasSize) -> RunReport {
        if let Some(ruled_out) = &self.ruled_out {
            let fixed = self
                .tests
                .iter()
                .filter(|t| t.rejected && t.question == Question::OneDeal)
                .map(|t| t.name.as_str());
            let sequential = self
                .sequential
                .iter()
                .flat_map(|s| &s.tests)
                .filter(|t| t.rejected)
                .map(|t| t.name.as_str());
            let rejected_tests: Vec<&str> = fixed.chain(sequential).collect();
            self.gate = Gate::decide(
                size,
                ruled_out,
                &self.rejected_questions(),
                &rejected_tests,
                self.header.trials,
                self.header.deck,
            );
        }
        self
    }

    /// The headline: the gate's when `--max-bias` was given, otherwise `BIAS DETECTED` or
    /// `NO BIAS DETECTED`; and whether it reads as a failure (painted red).
    pub fn headline(&self) -> (String, bool) {
        match &self.gate {
            Some(gate) => (gate.headline(), gate.outcome != GateOutcome::FairWithin),
            None if self.bias_detected => ("BIAS DETECTED".to_string(), true),
            None => ("NO BIAS DETECTED".to_string(), false),
        }
    }

    /// Whether the report prints what its sample rules out: after a pass, and whenever a gate
    /// was asked for.
    pub fn shows_ruled_out(&self) -> bool {
        self.ruled_out.is_some() && (!self.bias_detected || self.gate.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::super::full::build_run_report;
    use super::super::tests::facts;
    use crate::analysis::ruled_out::{BiasSize, GateOutcome};
    use crate::engine::simulate::Tally;

    /// A full tally of 3 cards with every ordering `each` times.
    fn even(each: u64) -> Tally {
        Tally {
            deck: 3,
            counts: vec![each; 6],
            trials: 6 * each,
        }
    }

    #[test]
    fn a_pass_on_one_shuffle_rules_out_almost_nothing() {
        let one = Tally {
            deck: 3,
            counts: vec![1, 0, 0, 0, 0, 0],
            trials: 1,
        };
        let report = build_run_report(&facts(), one, None);
        assert!(!report.bias_detected);
        let ruled_out = report.ruled_out.as_ref().unwrap();
        // One trial: the TV bound is capped at its largest value, 1 − 1/6.
        assert!(ruled_out.total_variation.unwrap().at_most > 0.8);
        assert!(ruled_out.position_chances.unwrap().within > 0.6);
        assert!(report.shows_ruled_out());
    }

    #[test]
    fn the_gate_says_fair_within_on_a_large_even_tally_and_inconclusive_on_a_small_one() {
        let size = BiasSize::Positions(0.01);
        // 100,000 shuffles of 3 cards with a fair sample's spread (χ² = 1.04 on 5 degrees of
        // freedom). A perfectly even tally would be rejected as too regular by the permutations
        // test's lower tail, which no bound in points of a position measures: it fails the gate.
        let fair = Tally {
            deck: 3,
            counts: vec![16_600, 16_750, 16_690, 16_620, 16_710, 16_630],
            trials: 100_000,
        };
        let large = build_run_report(&facts(), fair, None).with_gate(size);
        assert_eq!(
            large.gate.as_ref().unwrap().outcome,
            GateOutcome::FairWithin
        );
        assert_eq!(large.headline(), ("FAIR WITHIN 1pp".to_string(), false));
        // A small tally with the spread of a fair sample.
        let noisy = Tally {
            deck: 3,
            counts: vec![95, 105, 100, 92, 108, 100],
            trials: 600,
        };
        let small = build_run_report(&facts(), noisy, None).with_gate(size);
        let gate = small.gate.as_ref().unwrap();
        assert_eq!(gate.outcome, GateOutcome::Inconclusive);
        assert!(gate.trials_needed.unwrap() > 600);
        assert_eq!(small.headline(), ("INCONCLUSIVE".to_string(), true));
        let even = build_run_report(&facts(), even(100_000), None).with_gate(size);
        let gate = even.gate.as_ref().unwrap();
        assert_eq!(gate.outcome, GateOutcome::BiasDetected, "{}", gate.reason);
        assert!(gate.reason.contains("permutations"), "{}", gate.reason);
    }

    #[test]
    fn the_gate_says_bias_detected_when_the_family_rejects_a_large_bias() {
        let mut tally = even(10_000);
        tally.counts[0] += 5_000;
        tally.trials += 5_000;
        let report = build_run_report(&facts(), tally, None).with_gate(BiasSize::Positions(0.01));
        assert!(report.bias_detected);
        assert_eq!(report.gate.unwrap().outcome, GateOutcome::BiasDetected);
    }
}
