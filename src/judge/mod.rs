//! Judging: a tally, and what theory knows of it, become the report model and its verdict.
//!
//! Every way in ends here — `run`, `check`, `merge` and `compare`, the library's
//! [`ShuffleTest`](crate::ShuffleTest) and the Python package — so that the same counts give
//! the same report whoever asks. Simulating or reading produces a tally (and a deal stream);
//! [`theory`] says what the tally is compared with; [`judge`] builds the report, adds the
//! sequential test's outcome and decides the `--max-bias` gate. Nothing here prints: a long
//! computation and a warning are told to a [`Watch`], which the commands show on the terminal
//! and the library ignores.

mod error;
mod explain;
mod theory;

pub use error::{JudgeError, NoLaw};
pub use explain::{diagnose, explain_stream};
pub use theory::{Theory, check_theory, exact_law, family_for, marginal_theory, run_theory};

use crate::analysis::dealt_hand::model_deal_identity;
use crate::analysis::ruled_out::BiasSize;
use crate::analysis::sequential::SequentialOutcome;
use crate::config::UsageError;
use crate::engine::algorithms::Shuffle;
use crate::engine::deal::DealTally;
use crate::engine::deal_stream::DealStreamTally;
use crate::engine::marginal::MarginalTally;
use crate::engine::simulate::Tally;
use crate::engine::tally::TallyMode;
use crate::input::permutation_reader::{InputCounts, InputTally};
use crate::report::notes::Note;
use crate::report::run::build_run_report_with_deals;
use crate::report::run::{Against, Origin, RunFacts, RunReport};
use crate::report::run::{DealTheory, InputSummary};
use crate::report::run::{build_deal_report, build_marginal_report_with_deals};
use crate::stats::probability::Probability;

/// What judging says while it works: the start and end of a long computation (an exact law),
/// and warnings. The commands show them on stderr; the library says nothing ([`Silent`]).
pub trait Watch {
    /// A long phase begins; `what` says what is being done.
    fn phase_started(&self, what: &str) {
        let _ = what;
    }
    /// The phase begun last is over.
    fn phase_finished(&self) {}
    /// Something the user should know that is not part of the report.
    fn warning(&self, message: &str) {
        let _ = message;
    }
}

/// A [`Watch`] that keeps everything to itself.
pub struct Silent;

impl Watch for Silent {}

/// A tally of any mode, as simulated, read or merged.
pub enum Tallied {
    /// Every ordering's count.
    Full(Tally),
    /// Positions, identity and permutation statistics.
    Marginal(MarginalTally),
    /// Dealt hands (`--deal K`).
    Deal(DealTally),
}

impl From<crate::tally_file::Counts> for Tallied {
    fn from(counts: crate::tally_file::Counts) -> Self {
        match counts {
            crate::tally_file::Counts::Full(tally) => Tallied::Full(tally),
            crate::tally_file::Counts::Marginal(tally) => Tallied::Marginal(tally),
        }
    }
}

/// Judge `tally` against `theory` (which follows the tally's mode): the report model of
/// `facts`, with the deal-stream tests of `deals`, the outcome of `--until-decided` when there
/// was one, and the `--max-bias` gate decided when a size is given (an error when the report
/// has no bound of that size's kind).
pub fn judge(
    facts: &RunFacts,
    tally: Tallied,
    theory: Theory,
    deals: Option<DealStreamTally>,
    sequential: Option<SequentialOutcome>,
    max_bias: Option<BiasSize>,
) -> Result<RunReport, JudgeError> {
    let report = match (tally, theory) {
        (Tallied::Full(tally), Theory::Full(law)) => {
            build_run_report_with_deals(facts, tally, law, deals)
        }
        (Tallied::Marginal(tally), Theory::Marginal(theory)) => {
            build_marginal_report_with_deals(facts, tally, theory, deals)
        }
        (Tallied::Deal(tally), Theory::Deal(theory)) => {
            build_deal_report(facts, tally, theory, deals)
        }
        _ => unreachable!("the tally and the theory follow the same mode"),
    };
    let report = match sequential {
        Some(outcome) => report.with_sequential(facts, outcome),
        None => report,
    };
    gated(report, max_bias)
}

/// The report with the gate of `--max-bias size` decided, when asked for; an error when the
/// report has no bound of that kind (a total variation size on a deck read to be too large for
/// every ordering, or files saved against a model).
fn gated(report: RunReport, size: Option<BiasSize>) -> Result<RunReport, JudgeError> {
    let Some(size) = size else {
        return Ok(report);
    };
    let report = report.with_gate(size);
    if report.gate.is_none() {
        let hint = if report.ruled_out.is_none() {
            "a size of bias is a distance from uniform, and this report tests a model's law; \
             drop --max-bias"
        } else {
            "a total variation distance needs every ordering tallied (at most 11 cards); use \
             a size in position points such as 1pp"
        };
        return Err(UsageError::conflict("--max-bias", size.label(), hint).into());
    }
    Ok(report)
}

/// What judging a tally of permutations read from elsewhere needs besides the tally: `check`'s
/// settings, or the library API's.
#[derive(Debug, Clone)]
pub struct Judging {
    /// With `--against ALGORITHM`: the shuffle whose exact law the input should follow.
    pub model: Option<Shuffle>,
    /// Family-wise level.
    pub alpha: f64,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// `--labels`, if given.
    pub labels: Option<Vec<String>>,
    /// `--state-bits`, if given.
    pub state_bits: Option<u32>,
    /// `--max-bias SIZE`: the equivalence gate.
    pub max_bias: Option<BiasSize>,
    /// `--explain`: add the diagnosis of which bug the tally looks like.
    pub explain: bool,
}

/// Judge a tally of permutations read from elsewhere: the theory of the model (if any) for the
/// tally's mode, then [`judge`] against uniform or that model. This is all of `check` after the
/// reading, and all of the library API after its shuffles. `known` is the theory when it was
/// already computed (by `--until-decided` at the first permutation), and `sequential` that
/// test's outcome.
pub fn judge_input(
    input: InputTally,
    settings: &Judging,
    elapsed_seconds: f64,
    (known, sequential): (Option<Theory>, Option<SequentialOutcome>),
    watch: &dyn Watch,
) -> Result<RunReport, JudgeError> {
    let model = settings.model;
    let max_paths = (settings.max_paths, settings.max_paths_given);
    // The theory can only be computed once the deck size is known (possibly from the input).
    let theory = match (known, &input.counts, model) {
        (Some(theory), _, _) => theory,
        (None, InputCounts::Deal(_), None) => Theory::Deal(DealTheory::default()),
        (None, InputCounts::Deal(tally), Some(shuffle)) => {
            let law =
                exact_law(shuffle, input.deck, max_paths, None, watch)?.map_err(|source| {
                    NoLaw::CheckModel {
                        shuffle: shuffle.label(),
                        deck: input.deck,
                        source,
                    }
                })?;
            Theory::Deal(DealTheory {
                positions: Some(law.position_matrix()),
                identity: Some(Probability::from_p(model_deal_identity(&law, tally.deal))),
            })
        }
        (None, InputCounts::Full(_), _) => {
            check_theory(TallyMode::Full, input.deck, model, max_paths, watch)?
        }
        (None, InputCounts::Marginal(_), _) => {
            check_theory(TallyMode::Marginal, input.deck, model, max_paths, watch)?
        }
    };
    let facts = RunFacts {
        command: "check",
        shuffle: model,
        origin: Origin::Input(InputSummary {
            sources: input.sources.clone(),
            lines: input.lines,
            permutations: input.permutations,
            numbering: input.numbering,
            format: input.format,
            command: None,
            seed: None,
            copies: None,
            labels: settings.labels.clone(),
            invalid_lines: input.invalid,
            invalid_examples: input.invalid_examples.clone(),
            state_bits: settings.state_bits,
        }),
        trials_requested: input.permutations,
        elapsed_seconds,
        interrupted: input.interrupted,
        alpha: settings.alpha,
        against: if model.is_some() {
            Against::Model
        } else {
            Against::Uniform
        },
        all_orderings: settings.all_orderings,
    };
    let tally = match input.counts {
        InputCounts::Full(counts) => Tallied::Full(Tally {
            deck: input.deck,
            counts,
            trials: input.permutations,
        }),
        InputCounts::Marginal(tally) => Tallied::Marginal(tally),
        InputCounts::Deal(tally) => Tallied::Deal(tally),
    };
    let dealt = matches!(tally, Tallied::Deal(_));
    let diagnosis = if settings.explain {
        diagnose(&tally, settings.alpha, settings.max_paths, watch)
    } else {
        None
    };
    let mut report = judge(&facts, tally, theory, input.deals, sequential, None)?;
    report.diagnosis = diagnosis;
    explain_stream(&mut report);
    if dealt && input.numbering_assumed > 0 {
        report.notes.push(Note::NumberingAssumed {
            deals: input.numbering_assumed,
            deck: input.deck,
        });
    }
    gated(report, settings.max_bias)
}
