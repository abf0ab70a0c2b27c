//! Diagnosis (`--explain`): which bug does a shuffle have?
//!
//! Two kinds of evidence, both pure functions of a tally (and, for the first, of exact laws):
//!
//! * **Model fits** (full mode only): the tally against the exact law of every built-in
//!   algorithm at that deck size, each by Pearson's χ² goodness-of-fit test of the null "the
//!   decks follow this model's exact law". Orderings whose expected count is below 5 are pooled
//!   into one cell (Cochran 1954); a deck the model cannot produce at all rules it out (p = 0).
//!   The families with a parameter are tried on a small grid ([`model_grid`]). The models are
//!   ranked by p-value, then by the mean log-likelihood ratio against uniform.
//! * **Signatures** (any mode, from the position matrix and the identity count): the tell-tale
//!   patterns of the classic bugs, each a one-sided test against uniform at α / 6 (Bonferroni
//!   over the six kinds), with the counts that show it.
//!
//! Nothing here knows where the counts came from or prints anything; the judge computes the laws
//! and the report holds the [`Diagnosis`].

use serde::Serialize;

use crate::engine::algorithms::{Algorithm, CutProbability, Shuffle};
use crate::engine::mapping::Mapping;
use crate::engine::permutation::{factorial, for_each_in_rank_order};
use crate::stats::binomial::binomial_two_sided;
use crate::stats::chi_square::chi_square_sf;
use crate::stats::normal::normal_cdf;
use crate::theory::exact::ChoiceLaw;

use super::decision::{TestResult, format_p};
use super::{MIN_EXPECTED_COUNT, Question};

/// How many kinds of signature are tested; each is tested at α / this (Bonferroni).
const SIGNATURE_KINDS: f64 = 6.0;

/// The word widths of the modulo-mapped Fisher–Yates models: 8 bits is the narrowest word a
/// mapping takes, and beyond 12 bits the bias at ten cards or fewer is under 0.25% per draw.
pub const MODULO_BITS: [u32; 5] = [8, 9, 10, 11, 12];

/// The grid of the families with a parameter, as the report states it.
pub const GRID: &str = "riffle 1–3 passes; overhand cut probability 1/4, 1/2, 3/4 × 1–2 \
                        passes; shelf 2, 4, 10 shelves; fisher-yates with word mod k on \
                        8–12-bit words";

/// One model the tally is fitted against: a shuffle, fed by uniform choices or by a biased
/// range mapping's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    /// The shuffle (its passes, cut probability and shelves).
    pub shuffle: Shuffle,
    /// The law of each `below(k)`, when a biased mapping feeds it.
    pub choices: Option<ChoiceLaw>,
}

impl Model {
    /// One pass of `algorithm` with uniform choices.
    fn of(algorithm: Algorithm) -> Self {
        Model {
            shuffle: Shuffle::once(algorithm),
            choices: None,
        }
    }

    /// Whether this model's law is the uniform law (Fisher–Yates with uniform choices).
    pub fn is_uniform(&self) -> bool {
        self.choices.is_none() && self.shuffle.algorithm.meant_uniform()
    }

    /// The model as the report names it: `uniform (fisher-yates)`, `riffle · 2 passes`,
    /// `fisher-yates · word mod k, 8-bit words`.
    pub fn label(&self) -> String {
        if self.is_uniform() {
            return "uniform (fisher-yates)".to_string();
        }
        match self.choices {
            None => self.shuffle.label(),
            Some(law) => format!(
                "{} · {} k, {}-bit words",
                self.shuffle.label(),
                match law.mapping {
                    Mapping::Modulo => "word mod",
                    _ => law.mapping.name(),
                },
                law.bits
            ),
        }
    }
}

/// Every model the tally is fitted against: the uniform law (Fisher–Yates; its forward and
/// inside-out twins have the same law), each biased built-in algorithm (the unshuffled deck
/// included), the families with a parameter on [`GRID`], and Fisher–Yates fed by `word mod k`
/// on [`MODULO_BITS`]-bit words.
pub fn model_grid() -> Vec<Model> {
    let mut models = vec![Model::of(Algorithm::FisherYates)];
    for algorithm in [
        Algorithm::Naive,
        Algorithm::NaiveOffByOne,
        Algorithm::Sattolo,
        Algorithm::ComparatorInsertion,
        Algorithm::ComparatorMerge,
        Algorithm::ComparatorQuick,
        Algorithm::ComparatorTimsort,
        Algorithm::ZendSort,
        Algorithm::ZendSortCoin,
        Algorithm::ZendSortStable,
        Algorithm::Unshuffled,
    ] {
        models.push(Model::of(algorithm));
    }
    for passes in 1..=3 {
        models.push(Model {
            shuffle: Shuffle::once(Algorithm::Riffle).with_passes(passes),
            choices: None,
        });
    }
    for (numerator, denominator) in [(1, 4), (1, 2), (3, 4)] {
        let cut = CutProbability::new(numerator, denominator).expect("a valid cut probability");
        for passes in 1..=2 {
            let shuffle = Shuffle {
                cut_probability: cut,
                ..Shuffle::once(Algorithm::Overhand).with_passes(passes)
            };
            models.push(Model {
                shuffle,
                choices: None,
            });
        }
    }
    for shelves in [2, 4, 10] {
        models.push(Model {
            shuffle: Shuffle::once(Algorithm::Shelf).with_shelves(shelves),
            choices: None,
        });
    }
    for bits in MODULO_BITS {
        models.push(Model {
            shuffle: Shuffle::once(Algorithm::FisherYates),
            choices: Some(ChoiceLaw {
                mapping: Mapping::Modulo,
                bits,
            }),
        });
    }
    models
}

/// How well a tally fits one model's exact law.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ModelFit {
    /// The model, e.g. `naive`, `riffle · 2 passes`, `uniform (fisher-yates)`.
    pub model: String,
    /// Whether this is the uniform law.
    pub uniform: bool,
    /// Pearson's χ² of the tally against the model's law, over the cells left after pooling.
    pub chi_square: f64,
    /// Its degrees of freedom (cells − 1).
    pub df: u64,
    /// The p-value of the null "the decks follow this model's exact law" (0 when a deck was
    /// one the model cannot produce).
    pub p_value: f64,
    /// log10 of the p-value (null when it is exactly 0).
    pub log10_p: Option<f64>,
    /// Decks the model cannot produce (probability 0) that the tally holds.
    pub impossible_decks: u64,
    /// The mean log-likelihood ratio per deck of this model against uniform, in nats (null
    /// when the model cannot produce a deck of the tally): how much likelier the model makes
    /// the tally, a ranking among models that all fail.
    pub log_likelihood_ratio: Option<f64>,
    /// Whether the model fits: its p-value is at least α.
    pub fits: bool,
}

impl ModelFit {
    fn rank_key(&self) -> (f64, f64) {
        (
            self.log10_p.unwrap_or(f64::NEG_INFINITY),
            self.log_likelihood_ratio.unwrap_or(f64::NEG_INFINITY),
        )
    }
}

/// Fit `counts` (by lexicographic rank, `trials` decks) against `law` (probabilities by rank):
/// Pearson's χ² with the cells whose expected count is below 5 pooled into one, and a model that
/// cannot produce a deck of the tally ruled out. `fits` says whether p ≥ `alpha`.
pub fn fit_model(label: String, uniform: bool, counts: &[u64], law: &[f64], alpha: f64) -> ModelFit {
    let trials: u64 = counts.iter().sum();
    let n_factorial = law.len() as f64;
    let mut impossible = 0;
    let (mut statistic, mut cells) = (0.0, 0u64);
    let (mut pooled_observed, mut pooled_expected) = (0u64, 0.0);
    let mut log_likelihood = 0.0;
    for (&observed, &p) in counts.iter().zip(law) {
        if p <= 0.0 {
            impossible += observed;
            continue;
        }
        if observed > 0 {
            log_likelihood += observed as f64 * (p * n_factorial).ln();
        }
        let expected = p * trials as f64;
        if expected < MIN_EXPECTED_COUNT {
            pooled_observed += observed;
            pooled_expected += expected;
        } else {
            let difference = observed as f64 - expected;
            statistic += difference * difference / expected;
            cells += 1;
        }
    }
    if pooled_expected > 0.0 {
        let difference = pooled_observed as f64 - pooled_expected;
        statistic += difference * difference / pooled_expected;
        cells += 1;
    }
    let df = cells.saturating_sub(1);
    let p_value = if impossible > 0 {
        crate::stats::pvalue::PValue::ZERO
    } else if df == 0 {
        crate::stats::pvalue::PValue::ONE
    } else {
        chi_square_sf(statistic, df as f64)
    };
    ModelFit {
        model: label,
        uniform,
        chi_square: statistic,
        df,
        p_value: p_value.p,
        log10_p: p_value.log10.is_finite().then_some(p_value.log10),
        impossible_decks: impossible,
        log_likelihood_ratio: (impossible == 0 && trials > 0)
            .then(|| log_likelihood / trials as f64),
        fits: !p_value.is_below(alpha),
    }
}

/// The models ranked, best fit first: by p-value, then by log-likelihood ratio.
pub fn rank_fits(fits: &mut [ModelFit]) {
    fits.sort_by(|a, b| {
        let (a, b) = (a.rank_key(), b.rank_key());
        b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1))
    });
}

/// A model whose exact law could not be had at this deck size, and why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Unfitted {
    /// The model.
    pub model: String,
    /// Why it was not fitted (the exact engine's reason).
    pub reason: String,
}

/// The kinds of tell-tale pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SignatureKind {
    /// No card ever stayed in its place: Sattolo's algorithm, or `j < i` for `j ≤ i`.
    NoFixedPoint,
    /// The last card never ended in the last place: the swap partner drawn below n − 1.
    LastNeverLast,
    /// The first card never ended in the first place: the swap partner drawn from [1, n − 1].
    FirstNeverFirst,
    /// Each card lands one place before its own more often than uniform, and the first place
    /// takes card 1 more often than the last card: the naive swap-with-any-card shuffle.
    NaiveTilt,
    /// The unshuffled order far likelier than 1/n!: a comparator sort or too few passes of a
    /// physical shuffle.
    IdentityHeavy,
    /// At the first or last place the low cards come more often, evenly within each group: the
    /// draw `word mod k`, whose 2^W mod k smallest residues get one word more.
    ModuloPattern,
}

/// One tell-tale pattern seen in the tally, with its evidence.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Signature {
    /// What kind of pattern.
    pub kind: SignatureKind,
    /// The pattern in a few words.
    pub title: String,
    /// The counts that show it, against what uniform gives.
    pub evidence: String,
    /// The bugs that leave this pattern.
    pub suggests: String,
    /// log10 of the one-sided p-value of the pattern under uniform (null when it is
    /// impossible under uniform).
    pub log10_p: Option<f64>,
}

/// What the signatures are computed from: a position matrix and the identity count (every
/// tally mode has both).
#[derive(Debug, Clone)]
pub struct Marginals<'a> {
    /// Number of cards.
    pub deck: usize,
    /// Decks tallied.
    pub trials: u64,
    /// `positions[card * deck + position]`: decks that left `card` at `position`.
    pub positions: &'a [u64],
    /// Decks left unchanged.
    pub identity: u64,
}

/// The position matrix and identity count of a full tally (counts by lexicographic rank).
pub fn marginals_of_full(deck: usize, counts: &[u64]) -> (Vec<u64>, u64) {
    let mut positions = vec![0; deck * deck];
    for_each_in_rank_order(deck, |rank, permutation| {
        let count = counts[rank];
        if count == 0 {
            return;
        }
        for (position, &card) in permutation.iter().enumerate() {
            positions[usize::from(card) * deck + position] += count;
        }
    });
    let identity = counts.first().copied().unwrap_or(0);
    (positions, identity)
}

/// ln of the probability that a uniform deck of n cards has no fixed point: ln(D_n / n!),
/// with D_n / n! = Σ_{k=0..n} (−1)^k / k! (the derangements).
fn ln_derangement_share(n: usize) -> f64 {
    let (mut sum, mut term) = (0.0f64, 1.0f64);
    for k in 0..=n {
        if k > 0 {
            term /= k as f64;
        }
        sum += if k % 2 == 0 { term } else { -term };
    }
    sum.ln()
}

/// log10 of the upper tail of a standard normal at `z` (Mills' ratio beyond z = 8, where the
/// tail underflows 1 − Φ).
fn log10_normal_upper(z: f64) -> f64 {
    if z < 8.0 {
        (1.0 - normal_cdf(z)).max(f64::MIN_POSITIVE).log10()
    } else {
        let ln = -z * z / 2.0 - z.ln() - 0.5 * (2.0 * std::f64::consts::PI).ln();
        ln / std::f64::consts::LN_10
    }
}

/// The signatures the marginals show at family level `alpha` (each kind at α / 6).
pub fn signatures(m: &Marginals, alpha: f64) -> Vec<Signature> {
    let level = (alpha / SIGNATURE_KINDS).log10();
    let mut found = Vec::new();
    if m.trials == 0 || m.deck < 2 {
        return found;
    }
    let no_fixed_point = no_fixed_point(m, level);
    let has_no_fixed_point = no_fixed_point.is_some();
    found.extend(no_fixed_point);
    if !has_no_fixed_point {
        found.extend(end_never_at_end(m, level, true));
        found.extend(end_never_at_end(m, level, false));
        found.extend(naive_tilt(m, level));
    }
    found.extend(identity_heavy(m, level));
    found.extend(modulo_pattern(m, level));
    found
}

fn cell(m: &Marginals, card: usize, position: usize) -> u64 {
    m.positions[card * m.deck + position]
}

fn percent(count: u64, trials: u64) -> String {
    format!("{:.2}%", 100.0 * count as f64 / trials as f64)
}

/// No deck left any card in its own place (the diagonal is empty). Under uniform a deck has no
/// fixed point with probability D_n / n! ≈ 1/e, so all N decks: (D_n / n!)^N.
fn no_fixed_point(m: &Marginals, level: f64) -> Option<Signature> {
    let n = m.deck;
    if (0..n).any(|card| cell(m, card, card) > 0) {
        return None;
    }
    let ln_share = ln_derangement_share(n);
    let log10_p = m.trials as f64 * ln_share / std::f64::consts::LN_10;
    (log10_p < level).then(|| Signature {
        kind: SignatureKind::NoFixedPoint,
        title: "no card ever stays in its place".to_string(),
        evidence: format!(
            "0 of {} decks left any card where it started; a uniform shuffle leaves at least \
             one card in place in {:.1}% of decks",
            m.trials,
            100.0 * (1.0 - ln_share.exp())
        ),
        suggests: "Sattolo's algorithm, or Fisher–Yates with j < i where j ≤ i was meant (j \
                   drawn below i)"
            .to_string(),
        log10_p: Some(log10_p),
    })
}

/// The last (or first) card never ended in its own end place; uniform puts it there in 1/n of
/// decks, so N decks without it: (1 − 1/n)^N.
fn end_never_at_end(m: &Marginals, level: f64, last: bool) -> Option<Signature> {
    let n = m.deck;
    let end = if last { n - 1 } else { 0 };
    if cell(m, end, end) > 0 {
        return None;
    }
    let log10_p = m.trials as f64 * (1.0 - 1.0 / n as f64).log10();
    (log10_p < level).then(|| {
        if last {
            Signature {
                kind: SignatureKind::LastNeverLast,
                title: "the last card never ends in the last place".to_string(),
                evidence: format!(
                    "card {end} was never at place {end} in {} decks; uniform puts it there in \
                     1 deck in {n}",
                    m.trials
                ),
                suggests: "an off-by-one range: the swap partner drawn from [0, n−2] instead of \
                           [0, n−1] (planet-poker's random(51)+1 on 52 cards)"
                    .to_string(),
                log10_p: Some(log10_p),
            }
        } else {
            Signature {
                kind: SignatureKind::FirstNeverFirst,
                title: "the first card never ends in the first place".to_string(),
                evidence: format!(
                    "card 0 was never at place 0 in {} decks; uniform puts it there in 1 deck \
                     in {n}",
                    m.trials
                ),
                suggests: "an off-by-one range: the swap partner drawn from [1, n−1] instead of \
                           [0, n−1]"
                    .to_string(),
                log10_p: Some(log10_p),
            }
        }
    })
}

/// The naive shuffle's tilt: card c ends one place early (at c − 1) more often than 1/n, the
/// first place takes card 1 more often than card n − 1 (the first row of its position matrix
/// leans to the low cards: 24% against 16% at 5 cards), and cards do not stay home more than
/// uniform (which sets the comparator sorts and physical shuffles apart). Under uniform
/// the count of cards c ≥ 1 at c − 1 in one deck has mean (n−1)/n and variance (n² − n − 1)/n²
/// (the n − 1 indicators, each 1/n, pairwise covariance 1/(n(n−1)) − 1/n²); z over N decks.
fn naive_tilt(m: &Marginals, level: f64) -> Option<Signature> {
    let n = m.deck;
    if n < 3 {
        return None;
    }
    let (nf, trials) = (n as f64, m.trials as f64);
    let ridge: u64 = (1..n).map(|card| cell(m, card, card - 1)).sum();
    let home: u64 = (0..n).map(|card| cell(m, card, card)).sum();
    let first_place: Vec<u64> = (0..n).map(|card| cell(m, card, 0)).collect();
    let mean = trials * (nf - 1.0) / nf;
    let variance = trials * (nf * nf - nf - 1.0) / (nf * nf);
    let z = (ridge as f64 - mean) / variance.sqrt();
    let log10_p = log10_normal_upper(z);
    let leans_low = first_place[1] > first_place[n - 1];
    (log10_p < level && home as f64 <= trials && leans_low).then(|| Signature {
        kind: SignatureKind::NaiveTilt,
        title: "cards end one place early, and the first place leans to the low cards"
            .to_string(),
        evidence: format!(
            "a card c ≥ 1 ended at place c−1 in {:.2}% of cases (uniform {:.2}%); the first \
             place took card 1 in {} of decks and card {} in {} (uniform {:.2}% each); cards \
             stayed home no more than uniform",
            100.0 * ridge as f64 / (trials * (nf - 1.0)),
            100.0 / nf,
            percent(first_place[1], m.trials),
            n - 1,
            percent(first_place[n - 1], m.trials),
            100.0 / nf
        ),
        suggests: "the naive shuffle: every card swapped with a card drawn from the whole deck \
                   (j uniform in [0, n−1] instead of [0, i])"
            .to_string(),
        log10_p: Some(log10_p),
    })
}

/// The unshuffled order far likelier than 1/n! (two-sided exact binomial test, counted only
/// above uniform, which is conservative for the one-sided question).
fn identity_heavy(m: &Marginals, level: f64) -> Option<Signature> {
    let orderings = (1..=m.deck).map(|k| k as f64).product::<f64>();
    let p0 = 1.0 / orderings;
    let expected = m.trials as f64 * p0;
    if (m.identity as f64) <= expected {
        return None;
    }
    let p = binomial_two_sided(m.identity, m.trials, p0);
    let log10_p = p.log10;
    (log10_p < level).then(|| Signature {
        kind: SignatureKind::IdentityHeavy,
        title: "the unshuffled order comes out far too often".to_string(),
        evidence: format!(
            "the starting order came out {} times ({}), {:.1} times uniform's 1/{}",
            m.identity,
            percent(m.identity, m.trials),
            m.identity as f64 / expected,
            if m.deck <= 20 {
                factorial(m.deck).to_string()
            } else {
                format!("{}!", m.deck)
            }
        ),
        suggests: "a sort with a random comparator (insertion sort keeps the order with \
                   probability 2^−(n−1)), or too few passes of a riffle, overhand or shelf \
                   shuffle"
            .to_string(),
        log10_p: log10_p.is_finite().then_some(log10_p),
    })
}

/// Modulo bias at the place filled by the first draw (the last place for Fisher–Yates
/// downwards, the first for upwards): that place's card is the draw `word mod n` itself, so
/// cards 0..r−1 (r = 2^W mod n) come (q+1)/q times as often as the others, q = ⌊2^W / n⌋ ≥ 1.
/// For each place and split r, a one-sided z test of the low group's share against r/n
/// (Bonferroni over the 2(n − 1) splits); the pattern is named when that is significant, the
/// ratio of the groups' rates is in (1, 2] (the most a residue can gain is one word in q ≥ 1),
/// and neither group is uneven within (Pearson's χ² at α / 6).
fn modulo_pattern(m: &Marginals, level: f64) -> Option<Signature> {
    let n = m.deck;
    if n < 3 {
        return None;
    }
    let trials = m.trials as f64;
    let splits = 2.0 * (n as f64 - 1.0);
    let mut best: Option<(f64, usize, usize, f64)> = None;
    for place in [n - 1, 0] {
        let column: Vec<u64> = (0..n).map(|card| cell(m, card, place)).collect();
        for r in 1..n {
            let low: u64 = column[..r].iter().sum();
            let high: u64 = column[r..].iter().sum();
            if column[r..].contains(&0) || high == 0 {
                continue;
            }
            let share = r as f64 / n as f64;
            let z = (low as f64 - trials * share) / (trials * share * (1.0 - share)).sqrt();
            let log10_p = log10_normal_upper(z) + splits.log10();
            let ratio = (low as f64 / r as f64) / (high as f64 / (n - r) as f64);
            if log10_p >= level || ratio <= 1.0 || ratio > 2.0 {
                continue;
            }
            if uneven(&column[..r], level) || uneven(&column[r..], level) {
                continue;
            }
            if best.is_none_or(|(best_p, ..)| log10_p < best_p) {
                best = Some((log10_p, place, r, ratio));
            }
        }
    }
    let (log10_p, place, r, ratio) = best?;
    let place_name = if place == 0 { "first" } else { "last" };
    let low = if r == 1 {
        "card 0".to_string()
    } else {
        format!("cards 0–{}", r - 1)
    };
    Some(Signature {
        kind: SignatureKind::ModuloPattern,
        title: format!("small cards favoured at the {place_name} place, in two even steps"),
        evidence: format!(
            "at place {place}, {low} came {:.2}% more often each than the other {} cards, \
             each group even within: the step that word mod {n} leaves when 2^W mod {n} = {r}",
            100.0 * (ratio - 1.0),
            n - r
        ),
        suggests: "a biased range mapping: the random word reduced with % (modulo) and no \
                   rejection, so the smallest 2^W mod k outcomes get one word more"
            .to_string(),
        log10_p: Some(log10_p),
    })
}

/// Whether `counts` are uneven among themselves: Pearson's χ² against equal shares rejects at
/// log10 level `level`.
fn uneven(counts: &[u64], level: f64) -> bool {
    if counts.len() < 2 {
        return false;
    }
    let total: u64 = counts.iter().sum();
    let expected = total as f64 / counts.len() as f64;
    if expected <= 0.0 {
        return false;
    }
    let statistic: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    chi_square_sf(statistic, (counts.len() - 1) as f64).log10 < level
}

/// The diagnosis of a tally: the models that fit (full mode), the signatures, and the finding.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Diagnosis {
    /// One sentence: the bug named, none seen, or none of the models.
    pub finding: String,
    /// The model that fits best when the uniform law does not fit (null otherwise).
    pub suspect: Option<String>,
    /// How the models were fitted and what null each fit tests (null in marginal mode).
    pub method: Option<String>,
    /// The families with a parameter and the grid tried (null in marginal mode).
    pub grid: Option<String>,
    /// Every model fitted, best fit first (empty in marginal mode).
    pub fits: Vec<ModelFit>,
    /// The models whose exact law could not be had at this deck size.
    pub unfitted: Vec<Unfitted>,
    /// The tell-tale patterns seen, each tested against uniform at α / 6.
    pub signatures: Vec<Signature>,
    /// What this diagnosis could not do (model fitting in marginal mode).
    pub limitation: Option<String>,
    /// The bug between deals, when a test of the stream of deals rejected: repeated decks (a
    /// seed space too small, or the same seed reused) or consecutive deals alike (seeds from a
    /// counter or a clock). Null when the stream was not tested or showed neither.
    pub between_deals: Option<String>,
}

/// What the stream of deals shows, for [`Diagnosis::add_stream_findings`].
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StreamFacts {
    /// Deals in the stream.
    pub deals: u64,
    /// Distinct decks among them, when counted.
    pub distinct_decks: Option<u64>,
    /// Consecutive pairs whose decks are equal, and their expectation for independent uniform
    /// deals (whole decks only).
    pub repeated_in_a_row: Option<(u64, f64)>,
}

impl Diagnosis {
    /// Add what the tests of the stream of deals found (see [`Diagnosis::between_deals`]) to
    /// the diagnosis of the law of one deal, and say it in the finding; `stream` gives the
    /// counts the sentences quote.
    pub fn add_stream_findings(&mut self, tests: &[TestResult], stream: &StreamFacts) {
        let failed = |question: Question| -> Vec<&str> {
            tests
                .iter()
                .filter(|test| test.question == question && test.rejected && !test.descriptive)
                .map(|test| test.name.as_str())
                .collect()
        };
        // The repeated decks of a whole-deck tally ask the law of one deal; counted by
        // fingerprints they ask the source's reach. Either way, repeats are a seeding bug.
        let repeats: Vec<&str> = [Question::Reach, Question::OneDeal]
            .into_iter()
            .flat_map(&failed)
            .filter(|name| name.starts_with("repeated"))
            .collect();
        let dependent = failed(Question::Dependence);
        let mut found = Vec::new();
        // One deck for every deal, and no model explains it: a seed used for every deal.
        if stream.distinct_decks == Some(1) && stream.deals > 1 && self.suspect.is_none() {
            found.push(format!(
                "every one of the {} deals is the same deck: one seed used for every deal (a \
                 generator seeded with a constant at start-up)",
                stream.deals
            ));
        }
        if !repeats.is_empty() {
            found.push(format!(
                "the same decks come back far more often than chance allows ({}): a seed space \
                 too small, or one seed used again (a constant seed, a clock that ticks slower \
                 than the deals)",
                repeats.join(", ")
            ));
        }
        if !dependent.is_empty() {
            let again = match stream.repeated_in_a_row {
                Some((observed, expected)) if observed as f64 > 2.0 * expected + 10.0 => {
                    format!(
                        "; {observed} deals repeat the deck before them ({expected:.0} expected): \
                         a clock that ticks slower than the deals"
                    )
                }
                _ => String::new(),
            };
            found.push(format!(
                "consecutive deals depend on each other ({}): seeds that follow each other (a \
                 counter, a clock) into a generator whose first outputs barely differ{again}",
                dependent.join(", ")
            ));
        }
        if found.is_empty() {
            return;
        }
        let sentence = found.join("; and ");
        let one_deal = match self.finding.strip_prefix("No bug seen: ") {
            Some(rest) => format!("No bug in the law of one deal: {rest}"),
            None => self.finding.clone(),
        };
        self.finding = format!("{one_deal}. Between deals: {sentence}");
        self.between_deals = Some(sentence);
    }
}

/// The method sentence of a full-mode diagnosis.
pub const METHOD: &str = "Pearson's χ² goodness of fit of the tally against each model's exact \
                          law (null: the decks follow that model), orderings expected fewer \
                          than 5 times pooled; a model fits when p ≥ α; ranked by p, then by \
                          likelihood";

/// What a full tally of `trials` decks of `deck` cards cannot do: with fewer than 5 decks
/// expected per ordering under uniform, the fits pool most orderings into one cell and have
/// little power (the signatures, read from the positions, keep theirs).
pub fn sparse_limitation(deck: usize, trials: u64) -> Option<String> {
    let orderings = factorial(deck);
    (trials < 5 * orderings).then(|| {
        format!(
            "{trials} decks over {deck}! = {orderings} orderings is fewer than 5 per ordering, \
             so the fits pool the rarer orderings into one cell and have little power; {} \
             trials or more let every ordering count",
            5 * orderings
        )
    })
}

/// The diagnosis of a full tally from its model `fits` (any order, each already judged at α),
/// the models that could not be fitted, the signatures and what limits the fits.
pub fn diagnose_full(
    mut fits: Vec<ModelFit>,
    unfitted: Vec<Unfitted>,
    signatures: Vec<Signature>,
    limitation: Option<String>,
) -> Diagnosis {
    rank_fits(&mut fits);
    let uniform = fits.iter().find(|fit| fit.uniform);
    let uniform_fits = uniform.is_some_and(|fit| fit.fits);
    let best = fits.iter().find(|fit| fit.fits && !fit.uniform);
    let (finding, suspect) = if uniform_fits {
        let p = uniform.map_or("1".to_string(), fit_p);
        if signatures.is_empty() {
            (
                format!(
                    "No bug seen: the tally fits the uniform law (p = {p}) and shows none of \
                     the signatures"
                ),
                None,
            )
        } else {
            (
                format!(
                    "The tally fits the uniform law (p = {p}), but shows {}",
                    signature_list(&signatures)
                ),
                None,
            )
        }
    } else if let Some(best) = best {
        let also: Vec<&str> = fits
            .iter()
            .filter(|fit| fit.fits && !fit.uniform && fit.model != best.model)
            .map(|fit| fit.model.as_str())
            .collect();
        let also = if also.is_empty() {
            String::new()
        } else {
            format!("; also fitting: {}", also.join(", "))
        };
        (
            format!(
                "Looks like {}: its exact law fits (p = {}) and the uniform law does not{also}",
                best.model,
                fit_p(best)
            ),
            Some(best.model.clone()),
        )
    } else {
        let closest = fits
            .iter()
            .find(|fit| !fit.uniform)
            .map_or("none".to_string(), |fit| fit.model.clone());
        let signs = if signatures.is_empty() {
            String::new()
        } else {
            format!("; it shows {}", signature_list(&signatures))
        };
        (
            format!(
                "Biased, but like none of the {} models fitted (closest: {closest}){signs}",
                fits.len()
            ),
            None,
        )
    };
    Diagnosis {
        finding,
        suspect,
        method: Some(METHOD.to_string()),
        grid: Some(GRID.to_string()),
        fits,
        unfitted,
        signatures,
        limitation,
        between_deals: None,
    }
}

/// The diagnosis of a tally without every ordering's exact law (a marginal tally, or a deck
/// beyond the exact engine): signatures only, with `limitation` saying why.
pub fn diagnose_signatures_only(signatures: Vec<Signature>, limitation: String) -> Diagnosis {
    let finding = if signatures.is_empty() {
        "None of the signatures is seen".to_string()
    } else {
        format!("The tally shows {}", signature_list(&signatures))
    };
    Diagnosis {
        finding,
        suspect: None,
        method: None,
        grid: None,
        fits: Vec::new(),
        unfitted: Vec::new(),
        signatures,
        limitation: Some(limitation),
        between_deals: None,
    }
}

fn signature_list(signatures: &[Signature]) -> String {
    signatures
        .iter()
        .map(|s| s.title.as_str())
        .collect::<Vec<_>>()
        .join("; ")
}

/// A fit's p-value for humans.
fn fit_p(fit: &ModelFit) -> String {
    format_p(fit.log10_p.unwrap_or(f64::NEG_INFINITY))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theory::exact::{Law, exact_law, exact_law_under, uniform_law};

    const ALPHA: f64 = 0.001;

    /// The counts a law gives `trials` decks, each rounded: a tally with no sampling noise.
    fn expected_counts(law: &Law, trials: u64) -> Vec<u64> {
        law.probabilities
            .iter()
            .map(|p| (p * trials as f64).round() as u64)
            .collect()
    }

    /// The signatures of `law` at `trials` decks without sampling noise.
    fn signatures_of(law: &Law, trials: u64) -> Vec<SignatureKind> {
        let counts = expected_counts(law, trials);
        let (positions, identity) = marginals_of_full(law.deck, &counts);
        let marginals = Marginals {
            deck: law.deck,
            trials: counts.iter().sum(),
            positions: &positions,
            identity,
        };
        signatures(&marginals, ALPHA)
            .into_iter()
            .map(|s| s.kind)
            .collect()
    }

    fn law_of(algorithm: Algorithm) -> Law {
        exact_law(algorithm, 5, u64::MAX).unwrap()
    }

    #[test]
    fn a_tally_equal_to_the_law_fits_with_chi_square_zero() {
        let law = law_of(Algorithm::Naive);
        let counts: Vec<u64> = law
            .exact
            .as_ref()
            .unwrap()
            .numerators
            .iter()
            .map(|&n| n as u64)
            .collect();
        let fit = fit_model("naive".into(), false, &counts, law.probabilities.as_slice(), ALPHA);
        assert!(fit.chi_square < 1e-9, "{}", fit.chi_square);
        assert_eq!(fit.df, 119);
        assert!(fit.fits);
        assert_eq!(fit.impossible_decks, 0);
    }

    #[test]
    fn a_deck_the_model_cannot_produce_rules_the_model_out() {
        // Sattolo never yields the identity (rank 0); one identity deck rules it out.
        let law = law_of(Algorithm::Sattolo);
        let mut counts = expected_counts(&law, 24_000);
        counts[0] = 1;
        let fit = fit_model("sattolo".into(), false, &counts, law.probabilities.as_slice(), ALPHA);
        assert_eq!(fit.impossible_decks, 1);
        assert_eq!(fit.p_value, 0.0);
        assert_eq!(fit.log10_p, None);
        assert_eq!(fit.log_likelihood_ratio, None);
        assert!(!fit.fits);
    }

    #[test]
    fn cells_expected_fewer_than_five_times_are_pooled_into_one() {
        // 120 orderings, 240 decks: every cell expects 2, so all pool into one cell (df 0).
        let law = uniform_law(5);
        let counts = vec![2; 120];
        let fit = fit_model("uniform".into(), true, &counts, law.probabilities.as_slice(), ALPHA);
        assert_eq!(fit.df, 0);
        assert_eq!(fit.p_value, 1.0);
    }

    #[test]
    fn models_rank_by_p_value_then_by_likelihood() {
        let fit = |model: &str, log10_p: Option<f64>, llr: Option<f64>| ModelFit {
            model: model.into(),
            uniform: false,
            chi_square: 0.0,
            df: 1,
            p_value: log10_p.map_or(0.0, |l| 10f64.powf(l)),
            log10_p,
            impossible_decks: 0,
            log_likelihood_ratio: llr,
            fits: false,
        };
        let mut fits = vec![
            fit("impossible", None, None),
            fit("far", Some(-300.0), Some(0.1)),
            fit("near", Some(-2.0), Some(0.0)),
            fit("far but likelier", Some(-300.0), Some(0.2)),
        ];
        rank_fits(&mut fits);
        let order: Vec<&str> = fits.iter().map(|f| f.model.as_str()).collect();
        assert_eq!(order, ["near", "far but likelier", "far", "impossible"]);
    }

    #[test]
    fn a_tally_with_fewer_than_five_decks_per_ordering_says_its_fits_are_weak() {
        assert!(sparse_limitation(5, 599).is_some());
        assert_eq!(sparse_limitation(5, 600), None);
    }

    #[test]
    fn the_uniform_law_shows_no_signature() {
        assert_eq!(signatures_of(&uniform_law(5), 1_000_000), []);
    }

    #[test]
    fn sattolo_shows_no_fixed_point() {
        let seen = signatures_of(&law_of(Algorithm::Sattolo), 10_000);
        assert!(seen.contains(&SignatureKind::NoFixedPoint), "{seen:?}");
        // The empty diagonal is one finding, not also "last card never last".
        assert!(!seen.contains(&SignatureKind::LastNeverLast), "{seen:?}");
    }

    #[test]
    fn no_fixed_point_needs_enough_decks_to_be_unlikely_under_uniform() {
        // A uniform 5-card deck has no fixed point with probability 44/120: 10 such decks in a
        // row have probability 4.4e-5 < α/6 ≈ 1.7e-4 and are named; 5 (6.6e-3) are not.
        let mut positions = vec![0; 25];
        for card in 0..5 {
            positions[card * 5 + (card + 1) % 5] = 5;
        }
        let five = Marginals {
            deck: 5,
            trials: 5,
            positions: &positions,
            identity: 0,
        };
        assert!(no_fixed_point(&five, (ALPHA / SIGNATURE_KINDS).log10()).is_none());
        let positions: Vec<u64> = positions.iter().map(|c| c * 2).collect();
        let ten = Marginals {
            trials: 10,
            positions: &positions,
            ..five
        };
        assert!(no_fixed_point(&ten, (ALPHA / SIGNATURE_KINDS).log10()).is_some());
    }

    /// A position matrix of `trials` decks, every cell even, but for `empty` (card, place) cells.
    fn even_matrix_without(n: usize, trials: u64, empty: &[(usize, usize)]) -> Vec<u64> {
        let mut positions = vec![trials / n as u64; n * n];
        for &(card, place) in empty {
            positions[card * n + place] = 0;
        }
        positions
    }

    #[test]
    fn a_last_card_never_last_is_named_as_an_off_by_one_range() {
        let positions = even_matrix_without(5, 10_000, &[(4, 4)]);
        let m = Marginals {
            deck: 5,
            trials: 10_000,
            positions: &positions,
            identity: 0,
        };
        let kinds: Vec<SignatureKind> = signatures(&m, ALPHA).into_iter().map(|s| s.kind).collect();
        assert_eq!(kinds, [SignatureKind::LastNeverLast]);
    }

    #[test]
    fn a_first_card_never_first_is_named_too() {
        let positions = even_matrix_without(5, 10_000, &[(0, 0)]);
        let m = Marginals {
            deck: 5,
            trials: 10_000,
            positions: &positions,
            identity: 0,
        };
        let kinds: Vec<SignatureKind> = signatures(&m, ALPHA).into_iter().map(|s| s.kind).collect();
        assert_eq!(kinds, [SignatureKind::FirstNeverFirst]);
    }

    #[test]
    fn the_naive_shuffle_shows_its_tilt() {
        let seen = signatures_of(&law_of(Algorithm::Naive), 100_000);
        assert_eq!(seen, [SignatureKind::NaiveTilt]);
    }

    #[test]
    fn insertion_sort_shows_the_identity_too_often_and_not_the_naive_tilt() {
        let seen = signatures_of(&law_of(Algorithm::ComparatorInsertion), 100_000);
        assert!(seen.contains(&SignatureKind::IdentityHeavy), "{seen:?}");
        assert!(!seen.contains(&SignatureKind::NaiveTilt), "{seen:?}");
    }

    #[test]
    fn a_modulo_mapping_shows_its_step_at_the_last_place() {
        // Fisher–Yates on 8-bit words mod k: at 5 cards the last place takes card 0 with
        // probability 52/256 against 51/256 for each other card.
        let law = exact_law_under(
            Shuffle::once(Algorithm::FisherYates),
            5,
            u64::MAX,
            Some(ChoiceLaw {
                mapping: Mapping::Modulo,
                bits: 8,
            }),
        )
        .unwrap();
        let seen = signatures_of(&law, 2_000_000);
        assert_eq!(seen, [SignatureKind::ModuloPattern]);
    }

    #[test]
    fn sattolo_s_empty_cell_is_not_taken_for_a_modulo_step() {
        let seen = signatures_of(&law_of(Algorithm::Sattolo), 1_000_000);
        assert!(!seen.contains(&SignatureKind::ModuloPattern), "{seen:?}");
    }

    #[test]
    fn the_grid_holds_every_biased_built_in_algorithm_and_the_uniform_law() {
        let grid = model_grid();
        for algorithm in Algorithm::ALL {
            assert!(
                grid.iter().any(|m| m.shuffle.algorithm == algorithm
                    || (algorithm.meant_uniform() && m.is_uniform())),
                "{algorithm:?}"
            );
        }
        assert_eq!(grid.iter().filter(|m| m.is_uniform()).count(), 1);
    }

    #[test]
    fn a_uniform_fit_without_signatures_is_no_bug_seen() {
        let law = uniform_law(4);
        let counts = expected_counts(&law, 24_000);
        let fit = fit_model(Model::of(Algorithm::FisherYates).label(), true, &counts, law.probabilities.as_slice(), ALPHA);
        let diagnosis = diagnose_full(vec![fit], Vec::new(), Vec::new(), None);
        assert!(diagnosis.finding.starts_with("No bug seen"), "{}", diagnosis.finding);
        assert_eq!(diagnosis.suspect, None);
    }
}
