//! The part of a run or check report about the stream of deals: the repeated-decks test with
//! its estimate of the reachable decks, and the serial tests between consecutive deals (see
//! [`crate::analysis::deal_stream`] for each test's law and source). The tests join the family;
//! this part holds the figures the exporters show beside them, and says which test was not run
//! and why.

use schemars::JsonSchema;
use serde::Serialize;

use super::{Against, RunFacts};
use crate::analysis::Draft;
use crate::analysis::Question;
use crate::analysis::deal_stream::{
    CollisionLaw, CollisionNotRun, CollisionNull, CompositionLaw, CompositionWorkTooLarge,
    DealShape, MAX_COMPOSITION_WORK, MAX_SAMPLE_SHIFT, ReachableEstimate, RepeatCounts,
    SlotIndependence, collision_test, compositions_if_independent, matches_if_independent,
    matches_law, pooled_groups, reachable_estimate, repeats_seen_up_to, sampled_collision_test,
    sampled_reachable_estimate, serial_compositions_test, serial_matches_test, serial_slots_test,
    slot_independence,
};
use crate::analysis::figures::observed_mean;
use crate::analysis::mallows::{MallowsFigures, NAME as MALLOWS_NAME, serial_mallows_test};
use crate::engine::deal_stream::{
    BYTES_PER_DEAL, DealStreamTally, MAX_COMPOSITION_DECK, Repeats, RepeatsSkipped,
    fingerprints_are_hashes,
};
use crate::report::text::group;
use crate::stats::probability::ln_sum;
use crate::stats::pvalue::PValue;
use crate::theory::exact::Law;

/// The deal-stream part of a report.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DealStreamReport {
    /// Which deals count as consecutive: line order (`check`), or trial order with the blocks
    /// of a run joined at their seams (`run`, the same whatever the threads).
    pub order: &'static str,
    /// Deals in the stream.
    pub deals: u64,
    /// Consecutive pairs (deal t, deal t+1) counted.
    pub pairs: u64,
    /// Cards in the deck.
    pub deck: usize,
    /// Cards per deal (the whole deck, or K with `check --deal K`).
    pub dealt: usize,
    /// The repeated-decks test.
    pub repeats: RepeatsReport,
    /// Serial (a): matching slots between consecutive deals.
    pub matches: MatchesReport,
    /// Serial (b): independence of the card at each slot in consecutive deals.
    pub slots: SlotsReport,
    /// Serial (c): the compositions σ_{t+1}∘σ_t⁻¹ (full mode only; null otherwise).
    pub compositions: Option<CompositionsReport>,
    /// The serial Mallows MMD: the mean Mallows kernel of consecutive decks against its exact
    /// mean for independent uniform decks (whole decks beyond full mode, against uniform; null
    /// otherwise).
    pub mallows: Option<MallowsFigures>,
    /// The deal-stream tests not in the family, each with the reason.
    pub not_run: Vec<NotRun>,
}

/// A deal-stream test left out of the family, and why.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NotRun {
    /// The test's name.
    pub test: String,
    /// Why it was not run.
    pub reason: String,
}

/// The repeated-decks (collision) test's figures.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RepeatsReport {
    /// Bytes kept per deal to count repeats (0 when they come from the full tally).
    pub bytes_per_deal: u64,
    /// Distinct decks among the deals (null when not counted).
    pub distinct: Option<u64>,
    /// Pairs of identical decks, Σ C(c, 2) over the decks seen c times (null when not counted).
    pub repeated_pairs: Option<u64>,
    /// Their expectation under the hypothesis, C(N,2)·Σp² (C(N,2)/M for uniform).
    pub expected_pairs: Option<f64>,
    /// `poisson` or `normal-occupancy` (null when not tested).
    pub law: Option<CollisionLaw>,
    /// The Chen–Stein bound on the Poisson law's error (null when not tested).
    pub poisson_error_bound: Option<f64>,
    /// The estimate of the number of distinct decks the source reaches (null when not
    /// counted).
    pub reachable: Option<ReachableEstimate>,
    /// That estimate in words.
    pub reachable_summary: Option<String>,
    /// When the fingerprints passed the memory limit: the sample of the deck space the test
    /// ran on (absent otherwise: every deal's fingerprint was counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<RepeatSample>,
}

/// The sample the repeated-decks test ran on when every deal's fingerprint would not fit in
/// memory: the deals whose value falls in a sampled 1 in 2^s of the deck space (all copies of
/// a deck or none; see [`crate::engine::deal_stream`]), so the repeats among them are exactly
/// the repeats of those values.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RepeatSample {
    /// s, the sampling level.
    pub level: u32,
    /// 2^s: one deck value in this many is in the sample.
    pub one_in: u64,
    /// N_s, the deals in the sample (about N/2^s for a fair shuffle); `distinct` and
    /// `repeated_pairs` count among them.
    pub deals_sampled: u64,
    /// The power left: the most equally likely decks a source may reach for the sample to show
    /// a repeated pair with probability 0.9, C(N,2)/(2^s·ln 10).
    pub sees_repeats_up_to: f64,
    /// The same for the whole stream, C(N,2)/ln 10: what the test would see with memory for
    /// every fingerprint.
    pub unsampled_sees_repeats_up_to: f64,
}

/// Serial (a): the histogram of matching slots.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MatchesReport {
    /// `observed[m]`: consecutive pairs with m slots showing the same card.
    pub observed: Vec<u64>,
    /// The law of m under independent *uniform* deals (rencontres for whole decks): what a
    /// fair shuffle gives, shown for reference; the test does not compare with it.
    pub expected: Vec<f64>,
    /// The law of m under independent deals of the observed law of one deck, from the
    /// compositions' law q̂ (full mode up to 7 cards; null otherwise).
    pub expected_if_independent: Option<Vec<f64>>,
    /// Mean of the observed m.
    pub mean_observed: f64,
    /// Mean under independent uniform deals (K/n: 1 for whole decks).
    pub mean_expected: f64,
    /// Mean under independent deals of the observed law of one deal, Σ p(c, s)² estimated from
    /// the positions: what the test compares the observed mean with.
    pub mean_if_independent: f64,
}

/// Serial (b): one independence test per slot.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SlotsReport {
    /// Card groups of each table after pooling (cards per group ≈ n/groups).
    pub groups: usize,
    /// One test per slot.
    pub tables: Vec<SlotIndependence>,
}

/// Serial (c): the compositions' counts.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CompositionsReport {
    /// n!, the cells.
    pub orderings: u64,
    /// Compositions never seen.
    pub never_seen: u64,
    /// Expected count per composition under independent uniform decks: pairs/n!.
    pub expected_per_ordering: f64,
    /// Pairs whose composition is the identity (the deck repeated exactly).
    pub identity_observed: u64,
    /// Their expectation under independent decks of the observed law, (N − 1)·q̂(id) (null
    /// when q̂ was not computed).
    pub identity_if_independent: Option<f64>,
}

/// The deal-stream part and its tests for the family. `counts` are a full tally's counts
/// (the repeats are computed from them), `positions[card][slot]` the deals showing that card
/// at that slot (the law of one deal the serial tests condition on), `law` the exact law when
/// the hypothesis is the model in full mode.
///
/// Each test is filed under its question: the serial tests under *dependence between deals*
/// (each conditional on the observed law of one deal, so a biased but independent shuffle
/// passes them), the repeated decks under *the law of one deal* when counted from the full
/// tally (a function of the ordering counts alone) and under *reach* when counted from
/// fingerprints (a small seed space repeats decks).
pub(super) fn deal_stream_part(
    facts: &RunFacts,
    tally: DealStreamTally,
    counts: Option<&[u64]>,
    positions: &[Vec<u64>],
    law: Option<&Law>,
) -> (DealStreamReport, Vec<Draft>) {
    let shape = DealShape {
        deck: tally.deck,
        dealt: tally.dealt,
    };
    let against_model = facts.against == Against::Model;
    let mut drafts = Vec::new();
    let mut not_run = Vec::new();
    let repeats_name = format!("repeated {}s", shape.noun());

    // Repeated decks.
    let counted = match tally.repeats {
        Repeats::FromTally => counts.map(RepeatCounts::from_counts),
        Repeats::Counted {
            distinct,
            repeated_pairs,
        } => Some(RepeatCounts {
            deals: tally.deals,
            distinct,
            repeated_pairs,
        }),
        Repeats::Sampled {
            distinct,
            repeated_pairs,
            kept,
            ..
        } => Some(RepeatCounts {
            deals: kept,
            distinct,
            repeated_pairs,
        }),
        Repeats::Skipped(RepeatsSkipped::Memory { limit, deals }) => {
            not_run.push(NotRun {
                test: repeats_name.clone(),
                reason: format!(
                    "skipped: {deals} deals would need {} MiB of fingerprints ({BYTES_PER_DEAL} \
                     bytes a deal), over the limit of {limit} deals (a quarter of the memory \
                     available); {}",
                    (deals * BYTES_PER_DEAL).div_ceil(1 << 20),
                    match facts.origin {
                        super::Origin::Simulation { .. } => "run at most that many trials",
                        super::Origin::Input(_) => "check fewer deals at a time",
                    }
                ),
            });
            None
        }
        Repeats::Skipped(RepeatsSkipped::Off) => None,
    };
    let null = match (against_model, law) {
        (false, _) => Some(CollisionNull::Uniform),
        (true, Some(law)) => {
            let (s2, s3) = law
                .probabilities
                .iter()
                .fold((0.0, 0.0), |(s2, s3), &p| (s2 + p * p, s3 + p * p * p));
            Some(CollisionNull::Law {
                sum_p2: s2,
                sum_p3: s3,
            })
        }
        (true, None) => None,
    };
    let level = match tally.repeats {
        Repeats::Sampled { level, .. } => Some(level),
        _ => None,
    };
    let mut repeats = RepeatsReport {
        bytes_per_deal: match tally.repeats {
            Repeats::Counted { .. } | Repeats::Sampled { .. } => BYTES_PER_DEAL,
            _ => 0,
        },
        distinct: counted.map(|c| c.distinct),
        repeated_pairs: counted.map(|c| c.repeated_pairs),
        expected_pairs: None,
        law: None,
        poisson_error_bound: None,
        reachable: None,
        reachable_summary: None,
        sample: level.map(|level| RepeatSample {
            level,
            one_in: 1u64 << level.min(63),
            deals_sampled: counted.map_or(0, |c| c.deals),
            sees_repeats_up_to: repeats_seen_up_to(tally.deals, level),
            unsampled_sees_repeats_up_to: repeats_seen_up_to(tally.deals, 0),
        }),
    };
    if let Some(counted) = counted {
        let estimate = match level {
            None => reachable_estimate(counted, shape.ln_outcomes()),
            Some(level) => {
                sampled_reachable_estimate(counted, tally.deals, level, shape.ln_outcomes())
            }
        };
        // Once the decks seen are as many as the estimate's lower bound, the sample has
        // saturated the outcomes (every deck seen again and again): the pair count then says
        // nothing about how many exist, so no estimate is given. (A sample's distinct decks
        // stand for 2^s times as many.)
        let distinct_seen = counted.distinct as f64 * 2f64.powi(level.unwrap_or(0) as i32);
        if distinct_seen < estimate.low {
            repeats.reachable_summary = Some(reachable_words(&estimate, shape.noun()));
            repeats.reachable = Some(estimate);
        }
        match null {
            None => not_run.push(NotRun {
                test: repeats_name.clone(),
                reason: if shape.dealt == shape.deck {
                    "against the model: the model's law of whole decks is not known in \
                     marginal mode"
                        .to_string()
                } else {
                    "against the model: the model's law of whole deals is not computed (only \
                     its slots and identity are)"
                        .to_string()
                },
            }),
            Some(CollisionNull::Law { .. }) if level.is_some() => not_run.push(NotRun {
                test: repeats_name.clone(),
                reason: "against the model: the model's law of a sample of the decks is not \
                         known"
                    .to_string(),
            }),
            Some(null) => match match level {
                None => collision_test(&repeats_name, shape, counted, null),
                Some(level) => sampled_collision_test(&repeats_name, shape, counted, level),
            } {
                Ok(mut outcome) => {
                    repeats.expected_pairs = Some(outcome.expected_pairs);
                    repeats.law = Some(outcome.law);
                    // The Chen–Stein figure bounds the error of the Poisson law *under the
                    // hypothesis* (so of the p-value), not of the reachable estimate; it is
                    // reported only where the Poisson law is used, and a total variation
                    // distance is never more than 1.
                    repeats.poisson_error_bound = (outcome.law == CollisionLaw::Poisson)
                        .then_some(outcome.poisson_error_bound.min(1.0));
                    if matches!(
                        tally.repeats,
                        Repeats::Counted { .. } | Repeats::Sampled { .. }
                    ) && fingerprints_are_hashes(shape.deck, shape.dealt)
                    {
                        outcome.draft.p = with_hash_collisions(outcome.draft.p, counted);
                    }
                    drafts.push(outcome.draft.answering(match tally.repeats {
                        Repeats::FromTally => Question::OneDeal,
                        _ => Question::Reach,
                    }));
                }
                Err(CollisionNotRun::NoLawAtThisSize { bound }) => not_run.push(NotRun {
                    test: repeats_name.clone(),
                    reason: format!(
                        "against the model at this size the Poisson law is not close enough \
                         (Chen–Stein bound {bound:.3} > 0.01); the permutations test covers \
                         the counts"
                    ),
                }),
                Err(CollisionNotRun::SampleSizeUncertain { shift }) => not_run.push(NotRun {
                    test: repeats_name.clone(),
                    reason: format!(
                        "the fingerprints passed the memory limit and the sample of 1 in {} \
                         {}s is too coarse for this deal space: its uncertain size would move \
                         the test by {shift:.2} standard deviations (more than {MAX_SAMPLE_SHIFT}); \
                         run fewer trials, or on a machine with more memory",
                        group(1u64 << level.unwrap_or(0).min(63)),
                        shape.noun()
                    ),
                }),
                Err(CollisionNotRun::Saturated {
                    expected_distinct,
                    sd,
                }) => not_run.push(NotRun {
                    test: repeats_name.clone(),
                    reason: format!(
                        "every {} is expected to have been seen (expected distinct \
                         {expected_distinct:.1}, sd {sd:.2}): nothing to add to the permutations \
                         test",
                        shape.noun()
                    ),
                }),
            },
        }
    }

    // Serial (c)'s law under independence, when the full tally is small enough: it also gives
    // serial (a)'s histogram under independence.
    let composition_law: Option<Result<CompositionLaw, CompositionWorkTooLarge>> = tally
        .compositions
        .as_ref()
        .and(counts)
        .map(|counts| compositions_if_independent(shape.deck, counts));
    let law_if_independent = composition_law.as_ref().and_then(|law| law.as_ref().ok());

    // Serial (a), conditional on the positions seen.
    let law_a = matches_law(shape.deck, shape.dealt);
    let mean_if_independent = matches_if_independent(positions, tally.deals);
    drafts.push(serial_matches_test(
        &tally.matches,
        tally.pairs,
        mean_if_independent,
    ));
    let expected_if_independent = law_if_independent.map(|q| q.fixed_points(shape.deck));

    // Serial (b).
    let groups = pooled_groups(tally.groups, tally.pairs);
    let tables: Vec<SlotIndependence> = if groups >= 2 {
        let size = tally.groups;
        tally
            .slots
            .chunks(size * size)
            .enumerate()
            .map(|(slot, table)| slot_independence(slot, table, size, groups))
            .collect()
    } else {
        not_run.push(NotRun {
            test: "serial slots".to_string(),
            reason: format!(
                "{} consecutive pairs are too few for a 2×2 table expected 10 times a cell \
                 (40 needed)",
                tally.pairs
            ),
        });
        Vec::new()
    };
    if !tables.is_empty() {
        drafts.push(serial_slots_test(&tables));
    }

    // Serial (c).
    if tally.compositions.is_none() && counts.is_some() && shape.deck > MAX_COMPOSITION_DECK {
        not_run.push(NotRun {
            test: "serial compositions".to_string(),
            reason: format!(
                "counted up to {MAX_COMPOSITION_DECK} cards only ({} cells a thread would \
                 double the memory of the run)",
                crate::engine::permutation::factorial(shape.deck)
            ),
        });
    }
    let compositions = tally
        .compositions
        .as_ref()
        .map(|counts| CompositionsReport {
            orderings: counts.len() as u64,
            never_seen: counts.iter().filter(|&&c| c == 0).count() as u64,
            expected_per_ordering: tally.pairs as f64 / counts.len() as f64,
            identity_observed: counts[0],
            identity_if_independent: law_if_independent.map(|q| q.identity() * tally.pairs as f64),
        });
    if let Some(observed) = &tally.compositions {
        match &composition_law {
            Some(Ok(q)) => drafts.push(serial_compositions_test(observed, q, tally.pairs)),
            Some(Err(CompositionWorkTooLarge { distinct })) => not_run.push(NotRun {
                test: "serial compositions".to_string(),
                reason: format!(
                    "the law of a composition of two independent decks is formed from every \
                     pair of the {distinct} distinct decks seen, over the limit of {} pairs; \
                     serial matches and serial slots test dependence here",
                    sci(MAX_COMPOSITION_WORK as f64)
                ),
            }),
            None => not_run.push(NotRun {
                test: "serial compositions".to_string(),
                reason: "the law of one deck is not counted (no full tally): nothing to \
                         condition the compositions on"
                    .to_string(),
            }),
        }
    }

    // The serial Mallows MMD, against independent uniform decks.
    let mallows = match (&tally.kernel, against_model) {
        (Some(sums), false) => {
            let (figures, draft) = serial_mallows_test(shape.deck, sums);
            drafts.push(draft);
            Some(figures)
        }
        (Some(_), true) => {
            not_run.push(NotRun {
                test: MALLOWS_NAME.to_string(),
                reason: "against the model: the kernel's exact mean is known for uniform decks \
                         only"
                    .to_string(),
            });
            None
        }
        (None, _) => None,
    };

    let report = DealStreamReport {
        order: match facts.origin {
            super::Origin::Simulation { .. } => {
                "trial order (the blocks of the run joined at their seams; the same whatever \
                 the threads)"
            }
            super::Origin::Input(_) => "line order",
        },
        deals: tally.deals,
        pairs: tally.pairs,
        deck: tally.deck,
        dealt: tally.dealt,
        repeats,
        matches: MatchesReport {
            mean_observed: observed_mean(&tally.matches, tally.pairs),
            mean_expected: shape.dealt as f64 / shape.deck as f64,
            mean_if_independent,
            observed: tally.matches,
            expected: law_a.probabilities,
            expected_if_independent,
        },
        slots: SlotsReport { groups, tables },
        compositions,
        mallows,
        not_run,
    };
    (report, drafts)
}

/// The p-value of the repeated-deals test counted from 128-bit hashes: two distinct deals share
/// a hash with probability 2^−128 a pair, so the count of repeats may exceed the true one with
/// probability at most C(N,2)·2^−128 (a union bound), and P(count ≥ r) ≤ P(true ≥ r) +
/// C(N,2)·2^−128. Adding twice that to the two-sided p keeps it valid, and no p-value smaller
/// than the fingerprints can resolve is printed.
fn with_hash_collisions(p: PValue, counts: RepeatCounts) -> PValue {
    let ln_collision = counts.pairs_of_deals().ln() - 128.0 * std::f64::consts::LN_2;
    let ln = ln_sum([p.ln(), std::f64::consts::LN_2 + ln_collision].into_iter());
    PValue::from_ln(ln.min(0.0))
}

/// A large count as `4.3·10^9`, a small one in full.
pub fn sci(value: f64) -> String {
    if value < 1e6 {
        format!("{value:.0}")
    } else {
        let exponent = value.log10().floor();
        let mantissa = value / 10f64.powf(exponent);
        // 9.96 would print as 10.0: carry it.
        if format!("{mantissa:.1}") == "10.0" {
            format!("1.0·10^{}", exponent + 1.0)
        } else {
            format!("{mantissa:.1}·10^{exponent}")
        }
    }
}

/// "about 4.5·10^9 distinct decks (95% interval 2.4·10^9 – 9.4·10^9): consistent with a
/// 32- to 33-bit seed", or the lower bound when nothing repeated.
pub fn reachable_words(estimate: &ReachableEstimate, noun: &str) -> String {
    if estimate.every_outcome_possible {
        return format!(
            "every {noun} may be reachable: the repeats are as few as all of them give (95% \
             lower bound {} distinct {noun}s)",
            sci(estimate.low)
        );
    }
    match (estimate.estimate, estimate.high) {
        (Some(value), Some(high)) => {
            let seed = match estimate.seed_bits {
                Some([a, b]) if a == b => format!(": consistent with a {a}-bit seed"),
                Some([a, b]) => format!(": consistent with a seed of {a} to {b} bits"),
                None => String::new(),
            };
            format!(
                "about {} distinct {noun}s reachable (95% interval {} – {}){seed}",
                sci(value),
                sci(estimate.low),
                sci(high)
            )
        }
        _ => format!(
            "no {noun} repeated: at least {} distinct {noun}s reachable (95% lower bound)",
            sci(estimate.low)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::mapped_source::SourceSpec;
    use crate::engine::random_source::RngKind;
    use crate::report::run::Origin;

    fn facts() -> RunFacts {
        RunFacts {
            command: "run",
            shuffle: None,
            origin: Origin::Simulation {
                seed: 1,
                source: SourceSpec::chacha(RngKind::Chacha8),
                threads: 1,
            },
            trials_requested: 3,
            elapsed_seconds: 1.0,
            interrupted: false,
            alpha: 0.01,
            against: Against::Uniform,
            all_orderings: false,
        }
    }

    #[test]
    fn repeats_skipped_for_memory_are_reported_with_the_reason() {
        let tally = DealStreamTally {
            deck: 52,
            dealt: 52,
            deals: 3_000_000,
            pairs: 2_999_999,
            repeats: Repeats::Skipped(RepeatsSkipped::Memory {
                limit: 1_000_000,
                deals: 3_000_000,
            }),
            matches: vec![0; 53],
            groups: 52,
            slots: vec![0; 52 * 52 * 52],
            compositions: None,
            kernel: None,
            ends: Vec::new(),
            fingerprints: Vec::new(),
        };
        let (report, drafts) = deal_stream_part(&facts(), tally, None, &[], None);
        assert!(drafts.iter().all(|d| d.name != "repeated decks"));
        assert_eq!(report.repeats.repeated_pairs, None);
        let skipped = &report.not_run[0];
        assert_eq!(skipped.test, "repeated decks");
        assert_eq!(
            skipped.reason,
            "skipped: 3000000 deals would need 46 MiB of fingerprints (16 bytes a deal), over \
             the limit of 1000000 deals (a quarter of the memory available); run at most that \
             many trials"
        );
    }

    #[test]
    fn reachable_decks_read_in_words() {
        let estimate = reachable_estimate(
            RepeatCounts {
                deals: 300_000,
                distinct: 299_990,
                repeated_pairs: 10,
            },
            DealShape::whole(52).ln_outcomes(),
        );
        assert_eq!(
            reachable_words(&estimate, "deck"),
            "about 4.5·10^9 distinct decks reachable (95% interval 2.4·10^9 – 9.4·10^9): \
             consistent with a seed of 32 to 33 bits"
        );
        assert_eq!(sci(999_999.0), "999999");
        assert_eq!(sci(9.96e9), "1.0·10^10");
    }
}
