//! What a tally is compared with: the exact law of every ordering, what is known of the
//! marginals, or a model's law of dealt hands — computed once the deck is known, with the long
//! computation announced to a [`Watch`] rather than printed.

use std::sync::Arc;

use super::{JudgeError, NoLaw, Watch};
use crate::analysis::sequential::SequentialFamily;
use crate::config::choice_law;
use crate::engine::algorithms::{Algorithm, Shuffle};
use crate::engine::mapped_source::SourceSpec;
use crate::engine::tally::TallyMode;
use crate::report::run::{Against, DealTheory, MarginalTheory};
use crate::theory::exact::MAX_EXACT_DECK;
use crate::theory::exact::{ChoiceLaw, ExactError, Law, STEP_PROPAGATION, exact_law_under};

/// What a run compares its tally with: the exact law of every ordering, or what is known of
/// the marginals.
pub enum Theory {
    /// Every ordering: the exact law, when it was asked for (or why it is unavailable).
    Full(Option<Result<Arc<Law>, ExactError>>),
    /// What is known of the marginals.
    Marginal(MarginalTheory),
    /// Dealt hands: the model's slot marginals and identity, if any.
    Deal(DealTheory),
}

/// The exact law of `shuffle` on `deck` cards (fed by `law` when a biased mapping drives it),
/// with the computation announced to `watch`. Ctrl-C meanwhile is an error (there is nothing to
/// report yet); a law that cannot be had is the inner error. A `max_paths` budget that was
/// `given` but that the chosen method does not consult is said to `watch`, rather than
/// silently ignored.
pub fn exact_law(
    shuffle: Shuffle,
    deck: usize,
    (max_paths, given): (u64, bool),
    law: Option<ChoiceLaw>,
    watch: &dyn Watch,
) -> Result<Result<Law, ExactError>, JudgeError> {
    watch.phase_started(&format!(
        "computing the exact law of {} on {deck} cards",
        shuffle.label()
    ));
    let law = exact_law_under(shuffle, deck, max_paths, law);
    watch.phase_finished();
    match law {
        Err(ExactError::Interrupted) => Err(JudgeError::Interrupted {
            shuffle: shuffle.label(),
            deck,
        }),
        Ok(law) => {
            if given && law.method == STEP_PROPAGATION && shuffle.passes == 1 {
                watch.warning(&format!(
                    "--max-paths {max_paths} was not used: the exact law of {} is \
                     propagated step by step (one sweep of the {deck}! orderings per choice), \
                     which no path budget limits",
                    shuffle.label()
                ));
            }
            Ok(Ok(law))
        }
        law => Ok(law),
    }
}

/// What theory knows of the marginals of `shuffle` on `deck` cards: everything, from the exact
/// law, on a deck small enough for one; the rising sequences of the riffle, from its closed
/// form, on any deck; nothing otherwise.
pub fn marginal_theory(
    shuffle: Shuffle,
    deck: usize,
    max_paths: (u64, bool),
    law: Option<ChoiceLaw>,
    watch: &dyn Watch,
) -> Result<MarginalTheory, JudgeError> {
    if deck <= MAX_EXACT_DECK
        && let Ok(law) = exact_law(shuffle, deck, max_paths, law, watch)?
    {
        Ok(MarginalTheory::from_law(&law))
    } else if shuffle.algorithm == Algorithm::Riffle && law.is_none() {
        // The closed form assumes fair coins, not a biased mapping's.
        Ok(MarginalTheory::riffle(deck, shuffle.passes))
    } else if shuffle.algorithm == Algorithm::Shelf && law.is_none() {
        Ok(MarginalTheory::shelf(deck, shuffle.shelves, shuffle.passes))
    } else {
        Ok(MarginalTheory::default())
    }
}

/// What a simulation of `shuffle` from `source` compares its tally with, computed before the
/// long run so that an impossible `--against model` fails at once (and again by `merge`, from a
/// tally file's settings). Under a biased mapping it is the law of the algorithm fed by that
/// mapping. `max_paths` is the budget and whether it was given.
pub fn run_theory(
    shuffle: Shuffle,
    deck: usize,
    mode: TallyMode,
    source: &SourceSpec,
    against: Against,
    max_paths: (u64, bool),
    watch: &dyn Watch,
) -> Result<Theory, JudgeError> {
    // `native` takes the law of its generator's draw, which choice_law resolves.
    let run_law = Some(choice_law(source)).filter(|law| law.mapping.has_biased_law());
    Ok(match mode {
        TallyMode::Full => {
            let law = exact_law(shuffle, deck, max_paths, run_law, watch)?.map(Arc::new);
            if let (Against::Model, Err(error)) = (against, &law) {
                return Err(NoLaw::RunModel {
                    shuffle: shuffle.label(),
                    deck,
                    source: error.clone(),
                }
                .into());
            }
            Theory::Full(Some(law))
        }
        TallyMode::Marginal => {
            let theory = marginal_theory(shuffle, deck, max_paths, run_law, watch)?;
            if against == Against::Model && theory.source.is_none() {
                return Err(NoLaw::RunModelMarginal {
                    shuffle: shuffle.label(),
                    deck,
                }
                .into());
            }
            Theory::Marginal(theory)
        }
    })
}

/// What permutations read from elsewhere, tallied in `mode` on `deck` cards, are compared
/// with: uniform, or the exact law of `model` (`--against ALGORITHM`), which must exist.
/// `max_paths` is the budget and whether it was given. `merge` of check tallies asks the same.
pub fn check_theory(
    mode: TallyMode,
    deck: usize,
    model: Option<Shuffle>,
    max_paths: (u64, bool),
    watch: &dyn Watch,
) -> Result<Theory, JudgeError> {
    Ok(match (mode, model) {
        (TallyMode::Full, None) => Theory::Full(None),
        (TallyMode::Full, Some(shuffle)) => Theory::Full(Some(Ok(Arc::new(
            exact_law(shuffle, deck, max_paths, None, watch)?.map_err(|source| {
                NoLaw::CheckModel {
                    shuffle: shuffle.label(),
                    deck,
                    source,
                }
            })?,
        )))),
        (TallyMode::Marginal, None) => Theory::Marginal(MarginalTheory::default()),
        (TallyMode::Marginal, Some(shuffle)) => {
            let theory = marginal_theory(shuffle, deck, max_paths, None, watch)?;
            if theory.source.is_none() {
                return Err(NoLaw::CheckModelMarginal {
                    shuffle: shuffle.label(),
                    deck,
                }
                .into());
            }
            Theory::Marginal(theory)
        }
    })
}

/// The family of e-processes for `--until-decided` on a tally in `theory`'s mode on `deck`
/// cards, against `against` (the exact law or the marginal laws the theory knows, for `model`).
pub fn family_for(theory: &Theory, deck: usize, against: Against, alpha: f64) -> SequentialFamily {
    match theory {
        Theory::Full(law) => {
            let hypothesis = match (against, law) {
                (Against::Model, Some(Ok(law))) => Some(Arc::clone(law)),
                _ => None,
            };
            SequentialFamily::full(deck, hypothesis, alpha)
        }
        Theory::Marginal(theory) => {
            SequentialFamily::marginal(deck, theory.sequential_null(deck, against), alpha)
        }
        Theory::Deal(_) => unreachable!("--until-decided is refused with --deal"),
    }
}
