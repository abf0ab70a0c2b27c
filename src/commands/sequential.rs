//! `--until-decided` in `run`, `check` and `compare`: the family of e-processes fed with the
//! shuffles in trial order (or the permutations in input order), and the stop it asks for.
//!
//! A simulation is visited shuffle by shuffle in trial order
//! ([`crate::engine::trial_order::visit_in_trial_order`]), so the stopping point for a seed is
//! the same on any number of threads; `check` shows each permutation read to the family and stops
//! reading once it decides (a producer writing into the pipe then gets SIGPIPE).

use std::ops::ControlFlow;
use std::sync::atomic::AtomicBool;

use super::{Counted, Failure};
use crate::analysis::ruled_out::BiasSize;
use crate::analysis::sequential::{SequentialFamily, SequentialOutcome, SequentialTally};
use crate::engine::algorithms::Card;
use crate::engine::deal_stream::{DealStream, DealStreamOptions, DealStreamTally};
use crate::engine::mapped_source::SourceSpec;
use crate::engine::simulate::SimulationSpec;
use crate::engine::trial_order::visit_in_trial_order;
use crate::judge::{Theory, family_for};
use crate::report::run::Against;

/// Simulate `spec` in trial order until the family decides, `spec.trials` are done or `stop`
/// is set: the tally of the shuffles used, the deal stream of the same shuffles when `deals`
/// asks for one, and the sequential test's outcome.
///
/// Every shuffle goes to the deal stream before the family sees it, so the stream holds exactly
/// the shuffles tallied, paired in trial order: at the planned end the same counts as the plain
/// run's stream, whose blocks are joined at their seams. Its tests join the fixed-sample family,
/// which decides at the planned end (see [`crate::analysis::sequential`] for why there and not
/// at a stop).
pub(super) fn simulate_until_decided(
    spec: &SimulationSpec,
    source: &SourceSpec,
    mut family: SequentialFamily,
    deals: Option<DealStreamOptions>,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(u64),
) -> (Counted, Option<DealStreamTally>, SequentialOutcome) {
    let mut stream = deals.map(DealStream::new);
    visit_in_trial_order(spec, source, stop, progress, &mut |deck| {
        if let Some(stream) = &mut stream {
            stream.add(deck);
        }
        family.observe(deck)
    });
    let (outcome, tally) = family.finish();
    let counted = match tally {
        SequentialTally::Full(tally) => Counted::Full(tally),
        SequentialTally::Marginal(tally) => Counted::Marginal(tally),
    };
    (counted, stream.map(DealStream::finish), outcome)
}

/// `check --until-decided`: the family is made at the first permutation, once the deck size
/// (and so the theory) is known, and fed every permutation after it.
pub(super) struct CheckSequential<'c> {
    /// Makes the theory of a deck of n cards, for every ordering when the flag is true.
    make_theory: Box<dyn FnMut(usize, bool) -> Result<Theory, Failure> + 'c>,
    /// Whether decks of n cards are tallied in full mode.
    full: Box<dyn Fn(usize) -> bool + 'c>,
    /// The hypothesis.
    against: Against,
    /// The family-wise level.
    alpha: f64,
    /// `--max-bias`: the size the run may stop within.
    max_bias: Option<BiasSize>,
    /// The theory computed for the family, kept for the report.
    theory: Option<Theory>,
    family: Option<SequentialFamily>,
    /// Why the family could not be made (no law for the model, Ctrl-C while computing it).
    failure: Option<Failure>,
}

impl<'c> CheckSequential<'c> {
    /// Nothing made yet: `make_theory` will make the theory of the first deck (full mode when
    /// `full` says so for its size).
    pub(super) fn new(
        make_theory: impl FnMut(usize, bool) -> Result<Theory, Failure> + 'c,
        full: impl Fn(usize) -> bool + 'c,
        against: Against,
        alpha: f64,
        max_bias: Option<BiasSize>,
    ) -> Self {
        CheckSequential {
            make_theory: Box::new(make_theory),
            full: Box::new(full),
            against,
            alpha,
            max_bias,
            theory: None,
            family: None,
            failure: None,
        }
    }

    /// Observe one permutation read; break when the family decides (or cannot be made).
    pub(super) fn observe(&mut self, deck: &[Card]) -> ControlFlow<()> {
        if self.family.is_none() {
            let n = deck.len();
            match (self.make_theory)(n, (self.full)(n)) {
                Ok(theory) => {
                    let family = family_for(&theory, n, self.against, self.alpha);
                    self.family = Some(match self.max_bias {
                        Some(size) => family.with_size_gate(size),
                        None => family,
                    });
                    self.theory = Some(theory);
                }
                Err(failure) => {
                    self.failure = Some(failure);
                    return ControlFlow::Break(());
                }
            }
        }
        self.family.as_mut().expect("made above").observe(deck)
    }

    /// The theory computed, and the outcome (None when nothing was read), or the failure.
    pub(super) fn finish(self) -> Result<(Option<Theory>, Option<SequentialOutcome>), Failure> {
        if let Some(failure) = self.failure {
            return Err(failure);
        }
        let outcome = self.family.map(|family| family.finish().0);
        Ok((self.theory, outcome))
    }
}
