//! Each case's published figures beside the tool's: from the exact law of the case's own loop,
//! from the run just made, from the seeds enumerated, or from the emulated generator itself.
//!
//! A figure published for the case's deck (52 cards for planet-poker, 5 for the ballot) is
//! compared only when the run has that deck; at another `--deck` it is listed, not compared.

use std::sync::atomic::AtomicBool;

use super::Case;
use crate::analysis::Question;
use crate::analysis::predictability::{self, PredictabilityMethod};
use crate::engine::algorithms::{Algorithm, Card, Shuffle};
use crate::engine::generators::{DotnetRandom, JavaRandom, Mwc1616, PhpMtRandLegacy, WordSource};
use crate::engine::mapped_source::{MappedSource, Reseed, SeedSequence, SourceSpec, TypedSource};
use crate::engine::mapping::{View, Words};
use crate::engine::permutation::unrank;
use crate::engine::random_source::RandomSource;
use crate::report::case::{Agreement, Figure};
use crate::report::run::RunReport;
use crate::report::text::{group, plural};
use crate::stats::chi_square::chi_square_sf;
use crate::theory::exact::{exact_law, first_path};
use crate::theory::reachable::log2_factorial;

/// What the figures are computed from.
pub struct FigureContext<'a> {
    /// The case.
    pub case: &'static Case,
    /// The report of the run just made.
    pub report: &'a RunReport,
    /// The exact engine's budget of paths.
    pub max_paths: u64,
    /// Threads for an enumeration of seeds.
    pub threads: usize,
    /// Ctrl-C.
    pub stop: &'a AtomicBool,
}

impl FigureContext<'_> {
    fn deck(&self) -> usize {
        self.report.header.deck
    }

    fn trials(&self) -> u64 {
        self.report.header.trials
    }
}

/// A figure compared: reproduced or not.
fn compared(
    claim: &str,
    source: &'static str,
    published: impl Into<String>,
    tool: impl Into<String>,
    how: impl Into<String>,
    agrees: bool,
) -> Figure {
    Figure {
        claim: claim.to_string(),
        source,
        published: published.into(),
        tool: tool.into(),
        how: how.into(),
        agreement: if agrees {
            Agreement::Reproduced
        } else {
            Agreement::NotReproduced
        },
    }
}

/// A figure shown beside the published ones.
fn beside(claim: &str, tool: impl Into<String>, how: impl Into<String>) -> Figure {
    Figure {
        claim: claim.to_string(),
        source: "shuffle-bias",
        published: String::new(),
        tool: tool.into(),
        how: how.into(),
        agreement: Agreement::Beside,
    }
}

/// The published figures of `cx.case` beside the tool's.
pub fn figures(cx: &FigureContext) -> Vec<Figure> {
    if cx.deck() != cx.case.deck {
        return vec![Figure {
            claim: format!(
                "the published figures are of {} cards; this run has {}",
                cx.case.deck,
                cx.deck()
            ),
            source: cx.case.reference,
            published: String::new(),
            tool: String::new(),
            how: format!("run `case {}` without --deck to compare them", cx.case.name),
            agreement: Agreement::NotCompared,
        }];
    }
    match cx.case.name {
        "planet-poker" => planet_poker(cx),
        "browser-ballot" => browser_ballot(cx),
        "laravel-shuffle" => laravel_shuffle(cx),
        "dotnet-random" => dotnet_random(cx),
        "php-mt-rand" => php_mt_rand(cx),
        "v8-mwc1616" => v8_mwc1616(cx),
        "go-seed-1" => go_seed_1(cx),
        "java-counter-seed" => java_counter_seed(cx),
        "sql-order-by-rand" => sql_order_by_rand(cx),
        "pokerstars" => pokerstars(cx),
        _ => Vec::new(),
    }
}

/// `a/b` reduced.
fn reduce(a: u128, b: u128) -> (u128, u128) {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    match (a.checked_div(x), b.checked_div(x)) {
        (Some(a), Some(b)) => (a, b),
        _ => (0, 1),
    }
}

fn fraction((a, b): (u128, u128)) -> String {
    if b == 1 {
        a.to_string()
    } else {
        format!("{a}/{b}")
    }
}

/// The exact position law, `[card][position]` as reduced fractions: each ordering's exact
/// weight added to the cells it fills, the engine's law walked once (None when the exact engine
/// cannot give exact fractions within `max_paths`).
fn position_law(algorithm: Algorithm, n: usize, max_paths: u64) -> Option<Vec<Vec<(u128, u128)>>> {
    let law = exact_law(Shuffle::once(algorithm), n, max_paths).ok()?;
    let exact = law.exact?;
    let mut numerators = vec![vec![0u128; n]; n];
    for (rank, &weight) in exact.numerators.iter().enumerate() {
        if weight > 0 {
            for (position, &card) in unrank(rank, n).iter().enumerate() {
                numerators[usize::from(card)][position] += weight;
            }
        }
    }
    Some(
        numerators
            .into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|numerator| reduce(numerator, exact.denominator))
                    .collect()
            })
            .collect(),
    )
}

/// The exact law of which card ends up first, as reduced fractions.
fn first_place_law(algorithm: Algorithm, n: usize, max_paths: u64) -> Option<Vec<(u128, u128)>> {
    position_law(algorithm, n, max_paths).map(|law| law.iter().map(|row| row[0]).collect())
}

fn fractions(law: &[(u128, u128)]) -> String {
    law.iter()
        .zip('a'..)
        .map(|(&p, name)| format!("{name} {}", fraction(p)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a test asking `question` rejected.
fn rejected(report: &RunReport, question: Question) -> bool {
    report
        .tests
        .iter()
        .any(|test| test.question == question && test.rejected && !test.descriptive)
}

fn planet_poker(cx: &FigureContext) -> Vec<Figure> {
    const ARKIN: &str = "Arkin et al. 1999";
    let n = cx.deck();
    let positions = &cx.report.positions;
    let never = positions.counts[n - 1][n - 1];
    let theory = positions.theory.as_ref().map(|theory| theory[n - 1][n - 1]);
    let mut figures = vec![compared(
        "the 52nd card never ends in the 52nd place",
        ARKIN,
        "never",
        format!(
            "{} of {} deals{}",
            group(never),
            group(cx.trials()),
            match theory {
                Some(p) => format!("; exact law {p}"),
                None => String::new(),
            }
        ),
        if theory.is_some() {
            "this run's position counts, and the exact position law"
        } else {
            "this run's position counts (the exact law, tested up to 8 cards, gives 0)"
        },
        never == 0 && theory.is_none_or(|p| p == 0.0),
    )];
    let decks = "86,400,000 possible decks (one per millisecond of a day)";
    figures.push(match &cx.report.predictability {
        Some(p) if p.method == PredictabilityMethod::Enumerated => compared(
            decks,
            ARKIN,
            "86,400,000",
            format!(
                "{} distinct decks{}",
                group(p.distinct_decks.unwrap_or(0)),
                if p.distinct_exact { "" } else { " at least" }
            ),
            format!(
                "every one of the {} seeds shuffled, the first {} cards compared",
                group(p.seeds),
                p.compared_cards
            ),
            p.distinct_exact && p.distinct_decks == Some(super::MILLISECONDS_A_DAY),
        ),
        Some(p) => Figure {
            agreement: Agreement::NotCompared,
            ..compared(
                decks,
                ARKIN,
                "86,400,000",
                "not enumerated",
                p.why_estimated.clone().unwrap_or_default(),
                false,
            )
        },
        None => Figure {
            agreement: Agreement::NotCompared,
            ..compared(
                decks,
                ARKIN,
                "86,400,000",
                "not enumerated",
                "interrupted",
                false,
            )
        },
    });
    // The attack: the server's clock, synchronised, leaves about 200,000 seeds; the player's
    // two hole cards and the flop are 5 visible cards.
    let window = 200_000;
    let source = cx.case.source();
    let claim = "the two hole cards and the flop (5 cards) identify the deck among the \
                 ~200,000 seeds left once the server's clock is known";
    figures.push(
        match predictability::enumerate(
            cx.case.shuffle(),
            n,
            &source,
            window,
            cx.threads,
            cx.stop,
            &mut |_| {},
        ) {
            Ok(Some(found)) => {
                let visible = found.visible;
                let share = |k: usize| visible.get(k - 1).map_or(0.0, |row| row.identified);
                compared(
                    claim,
                    ARKIN,
                    "5 cards",
                    format!(
                        "5 cards identify {:.2}% of the decks (4 cards {:.1}%)",
                        100.0 * share(5),
                        100.0 * share(4)
                    ),
                    format!("{} consecutive seeds shuffled", group(window)),
                    share(5) >= 0.99,
                )
            }
            _ => Figure {
                agreement: Agreement::NotCompared,
                ..compared(
                    claim,
                    ARKIN,
                    "5 cards",
                    "not enumerated",
                    "interrupted",
                    false,
                )
            },
        },
    );
    figures
}

fn browser_ballot(cx: &FigureContext) -> Vec<Figure> {
    const WEIR: &str = "DSL.sk and R. Weir, 2010";
    let n = cx.deck();
    let last = n - 1;
    let observed = cx.report.positions.counts[last][last] as f64 / cx.trials().max(1) as f64;
    let insertion = position_law(Algorithm::ComparatorInsertion, n, cx.max_paths);
    let merge = position_law(Algorithm::ComparatorMerge, n, cx.max_paths);
    let at = |law: &Option<Vec<Vec<(u128, u128)>>>, card: usize, position: usize| {
        law.as_ref().map(|law| law[card][position])
    };
    let exact = at(&insertion, last, last);
    // Within 4 standard errors of 1/2 (a false alarm once in 16,000 runs).
    let within = (observed - 0.5).abs() <= 4.0 * (0.25 / cx.trials().max(1) as f64).sqrt();
    let mut figures = vec![compared(
        "the browser last in the list ends last about half of the time (Internet Explorer, \
         last on the ballot's list, was last in about 50% of the ballots)",
        WEIR,
        "about 50%",
        format!(
            "exact law {}; this run {:.2}%",
            exact.map_or("not computed".to_string(), fraction),
            100.0 * observed
        ),
        "the exact law of V8's insertion sort with a coin, and this run",
        exact == Some((1, 2)) && within,
    )];
    let merge_last = at(&merge, last, last);
    let merge_first = at(&merge, 0, 0);
    let insertion_first = at(&insertion, 0, 0);
    let uniform = (1, n as u128);
    figures.push(compared(
        "under Firefox's merge sort the ballot was non-uniform too, with another law",
        WEIR,
        "non-uniform, different",
        format!(
            "merge model: last browser last {}, first browser first {}; insertion sort: \
             first browser first {}",
            merge_last.map_or("?".to_string(), fraction),
            merge_first.map_or("?".to_string(), fraction),
            insertion_first.map_or("?".to_string(), fraction),
        ),
        "the exact laws of the comparator-merge model and of insertion sort",
        merge_last.is_some_and(|p| p != uniform && Some(p) != exact)
            || merge_first.is_some_and(|p| p != uniform && Some(p) != insertion_first),
    ));
    figures
}

/// Laravel's published first-place law and counts.
const LARAVEL_LAW: [(u128, u128); 5] = [
    (33280, 59049),
    (2080, 19683),
    (16640, 59049),
    (80, 2187),
    (1, 81),
];
const LARAVEL_COUNTS: [u64; 5] = [564_137, 105_554, 281_362, 36_514, 12_433];
const LARAVEL_COIN_LAW: [(u128, u128); 5] =
    [(315, 1024), (105, 512), (315, 1024), (15, 128), (1, 16)];

/// Pearson's χ² p-value of `counts` against the law `law`.
fn fit(counts: &[u64], law: &[(u128, u128)]) -> f64 {
    let total: u64 = counts.iter().sum();
    let statistic: f64 = counts
        .iter()
        .zip(law)
        .map(|(&count, &(a, b))| {
            let expected = total as f64 * a as f64 / b as f64;
            (count as f64 - expected).powi(2) / expected
        })
        .sum();
    chi_square_sf(statistic, (counts.len() - 1) as f64).p
}

fn laravel_shuffle(cx: &FigureContext) -> Vec<Figure> {
    const PR: &str = "illuminate/support PR 72, 2019";
    let n = cx.deck();
    let published = fractions(&LARAVEL_LAW);
    let php7 = first_place_law(Algorithm::ZendSort, n, cx.max_paths);
    let mut figures = vec![compared(
        "which element ends up first, PHP 7, rand(-1, 1): the exact law",
        PR,
        published,
        php7.as_deref()
            .map_or("not computed".to_string(), fractions),
        "the exact law of zend-sort (every comparison path walked)",
        php7.as_deref() == Some(&LARAVEL_LAW[..]),
    )];
    let firsts: Vec<u64> = (0..n)
        .map(|card| cx.report.positions.counts[card][0])
        .collect();
    let (p_published, p_run) = (
        fit(&LARAVEL_COUNTS, &LARAVEL_LAW),
        fit(&firsts, &LARAVEL_LAW),
    );
    figures.push(compared(
        "which element ends up first in 1,000,000 runs, PHP 7, rand(-1, 1)",
        PR,
        LARAVEL_COUNTS
            .iter()
            .zip('a'..)
            .map(|(&count, name)| format!("{name} {}", group(count)))
            .collect::<Vec<_>>()
            .join(", "),
        format!(
            "{} (this run)",
            firsts
                .iter()
                .zip('a'..)
                .map(|(&count, name)| format!("{name} {}", group(count)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!(
            "each sample against the exact law by Pearson's χ² (4 df): published p = \
             {p_published:.3}, this run p = {p_run:.3}; reproduced when both exceed 0.001"
        ),
        p_published > 0.001 && p_run > 0.001,
    ));
    let coin = first_place_law(Algorithm::ZendSortCoin, n, cx.max_paths);
    figures.push(compared(
        "which element ends up first, PHP 7, rand(0, 1): the exact law",
        PR,
        fractions(&LARAVEL_COIN_LAW),
        coin.as_deref()
            .map_or("not computed".to_string(), fractions),
        "the exact law of zend-sort-coin",
        coin.as_deref() == Some(&LARAVEL_COIN_LAW[..]),
    ));
    let php8 = first_place_law(Algorithm::ZendSortStable, n, cx.max_paths);
    figures.push(beside(
        "which element ends up first, PHP 8 (stable sort: a 0 keeps the original order), \
         rand(-1, 1)",
        php8.as_deref()
            .map_or("not computed".to_string(), fractions),
        "the exact law of zend-sort-stable",
    ));
    figures
}

/// .NET's `new Random(0).Next()`, the first three (dotnet/runtime's RandomTests).
const DOTNET_SEED_0: [u64; 3] = [1_559_595_546, 1_755_192_844, 1_649_316_166];

fn dotnet_random(cx: &FigureContext) -> Vec<Figure> {
    const MICROSOFT: &str = "Microsoft, System.Random documentation";
    let mut figures = Vec::new();
    let claim = "Random objects created in close succession get the same seed from the \
                 clock and deal identical decks";
    figures.push(match &cx.report.deal_stream {
        Some(stream) => {
            let distinct = stream.repeats.distinct;
            let tick = match cx.case.reseed.map(|reseed| reseed.seeds) {
                Some(SeedSequence::Clock { tick }) => tick,
                _ => 1,
            };
            let expected = cx.trials().div_ceil(tick);
            compared(
                claim,
                MICROSOFT,
                "identical sequences",
                format!(
                    "{} distinct decks in {} ({} expected: one per clock tick); the \
                     repeated-decks test {}",
                    distinct.map_or("?".to_string(), group),
                    plural(cx.trials(), "deal"),
                    group(expected),
                    if rejected(cx.report, Question::Reach)
                        || rejected(cx.report, Question::OneDeal)
                    {
                        "rejects"
                    } else {
                        "does not reject"
                    }
                ),
                "this run's stream of deals",
                distinct == Some(expected),
            )
        }
        None => Figure {
            agreement: Agreement::NotCompared,
            ..compared(
                claim,
                MICROSOFT,
                "identical sequences",
                "not tested",
                "--no-deal-tests",
                false,
            )
        },
    });
    let mut dotnet = DotnetRandom::new(0);
    let words: Vec<u64> = (0..3).map(|_| dotnet.next_word()).collect();
    let show = |values: &[u64]| {
        values
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    figures.push(compared(
        "new Random(0).Next(), three times",
        "dotnet/runtime, RandomTests.ExpectedValues",
        show(&DOTNET_SEED_0),
        show(&words),
        "the emulated generator",
        words == DOTNET_SEED_0,
    ));
    figures
}

/// `mt_srand(12345678, MT_RAND_PHP)` then `mt_rand()` three times (mt_rand_value.phpt).
const PHP_LEGACY_12345678: [u32; 3] = [1_614_640_687, 1_711_027_313, 857_485_497];

fn php_mt_rand(cx: &FigureContext) -> Vec<Figure> {
    let mut php = PhpMtRandLegacy::new(12_345_678);
    let values: Vec<u32> = (0..3).map(|_| php.php_mt_rand() >> 1).collect();
    let show = |values: &[u32]| {
        values
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut figures = vec![compared(
        "mt_srand(12345678, MT_RAND_PHP); mt_rand(), three times: the legacy twist",
        "php-src, ext/standard/tests/math/mt_rand_value.phpt",
        show(&PHP_LEGACY_12345678),
        show(&values),
        "the emulated generator",
        values == PHP_LEGACY_12345678,
    )];
    let seeds = 1u64 << 32;
    figures.push(match &cx.report.predictability {
        Some(p) => compared(
            "mt_srand takes a 32-bit seed: at most 2^32 decks of the 52! ≈ 2^225.6",
            "PHP manual, mt_srand",
            group(seeds),
            format!("{} seeds; {}", group(p.seeds), p.sentence),
            "the seed space of the emulation",
            p.seeds == seeds,
        ),
        None => Figure {
            agreement: Agreement::NotCompared,
            ..compared(
                "mt_srand takes a 32-bit seed",
                "PHP manual, mt_srand",
                group(seeds),
                "not computed",
                "interrupted",
                false,
            )
        },
    });
    // RAND_RANGE on 31-bit words: outcome j of k gets the words x with floor(x·k / 2^31) = j,
    // ceil((j+1)·2^31/k) − ceil(j·2^31/k) of them: ⌊2^31/k⌋ or one more.
    let k = cx.deck() as u64;
    let words = |j: u64| ((j + 1) << 31).div_ceil(k) - (j << 31).div_ceil(k);
    let (fewest, most) = (0..k)
        .map(words)
        .fold((u64::MAX, 0), |(lo, hi), w| (lo.min(w), hi.max(w)));
    figures.push(beside(
        "PHP 7.0's float scaling (RAND_RANGE) of mt_rand(0, 51), against 7.2's rejection",
        format!(
            "each of the 52 outcomes gets {} or {} of the 2^31 words: a bias of {:.1e}, \
             invisible in any run; 7.2+ rejects to make them equal",
            group(fewest),
            group(most),
            (most - fewest) as f64 / fewest as f64
        ),
        "the mapping's word counts",
    ));
    figures
}

fn v8_mwc1616(cx: &FigureContext) -> Vec<Figure> {
    // One million consecutive Math.random() values of the emulation, each times 2^32.
    let mut view = View::native(Mwc1616::from_u64(cx.report.header.seed.unwrap_or(0)));
    let draws = 1_000_000;
    let whole = (0..draws).all(|_| {
        let scaled = view.next_unit() * 4_294_967_296.0;
        scaled.fract() == 0.0 && scaled < 4_294_967_296.0
    });
    vec![
        compared(
            "Math.random() takes at most 2^32 values: each double is one 32-bit word",
            "V8 blog, 2015",
            "2^32 values",
            format!(
                "{} of {} consecutive values are a whole number of 2^-32",
                if whole { "all" } else { "not all" },
                group(draws)
            ),
            "the emulated generator",
            whole,
        ),
        beside(
            "the 5-card law of a Fisher-Yates on it",
            if cx.report.bias_detected {
                "bias detected in this run".to_string()
            } else {
                format!("no bias detected in {}", plural(cx.trials(), "deal"))
            },
            "this run: the floor(u·k) draw on 32-bit doubles favours no card by more than \
             k/2^32",
        ),
    ]
}

/// Go's regress_test.go, from Seed(0): Perm(0), Perm(1), then Perm(5).
const GO_PERM_5: [Card; 5] = [0, 4, 1, 3, 2];

fn go_seed_1(cx: &FigureContext) -> Vec<Figure> {
    const GO: &str = "Go 1.20 release notes";
    let mut figures = Vec::new();
    let claim = "seeded with 1 at start-up, every run deals the same deck: a stream of runs \
                 is caught at the second deck";
    figures.push(match &cx.report.deal_stream {
        Some(stream) => {
            // One repeat among two deals of a uniform 52-card shuffle has probability 1/52!.
            let log10_p = -log2_factorial(cx.deck()) * std::f64::consts::LOG10_2;
            compared(
                claim,
                GO,
                "the same deck every run",
                format!(
                    "{} distinct deck in {}; two equal decks have probability \
                     10^{log10_p:.1} if fair, below α = {} at the second deck",
                    stream.repeats.distinct.map_or("?".to_string(), group),
                    plural(cx.trials(), "deal"),
                    cx.report.header.alpha
                ),
                "this run's stream of deals",
                stream.repeats.distinct == Some(1) && log10_p < cx.report.header.alpha.log10(),
            )
        }
        None => Figure {
            agreement: Agreement::NotCompared,
            ..compared(
                claim,
                GO,
                "the same deck every run",
                "not tested",
                "--no-deal-tests",
                false,
            )
        },
    });
    // rand.Perm is the inside-out loop on Intn: the published Perm(5) from Seed(0), after
    // Perm(0) and Perm(1), drawn through the case's own algorithm and source.
    let spec = SourceSpec {
        reseed: Some(Reseed {
            bits: 64,
            seeds: SeedSequence::Fixed(0),
        }),
        ..cx.case.source()
    };
    let mut source = MappedSource::for_block(&spec, 0, 0).expect("Go's source has native words");
    source.start_shuffle();
    let mut scratch = [0 as Card; 5];
    let mut one = [0 as Card];
    cx.case
        .algorithm
        .shuffle(&mut one, &mut scratch[..1], &mut source);
    let mut five: [Card; 5] = [0, 1, 2, 3, 4];
    cx.case
        .algorithm
        .shuffle(&mut five, &mut scratch, &mut source);
    figures.push(compared(
        "rand.New(rand.NewSource(0)): Perm(0), Perm(1), then Perm(5)",
        "golang/go, src/math/rand/regress_test.go",
        format!("{GO_PERM_5:?}"),
        format!("{five:?}"),
        "the case's inside-out loop on the emulated source",
        five == GO_PERM_5,
    ));
    figures
}

fn java_counter_seed(cx: &FigureContext) -> Vec<Figure> {
    let n = cx.deck();
    let last = n - 1;
    // The first thousand counter seeds, k = 0 … 999, whatever the run's --seed: where the card
    // in the last place comes from the first nextInt(8), the top bits of a state that a unit
    // step of k barely moves.
    let seeds = 1000u64;
    let source = SourceSpec {
        reseed: None,
        ..cx.case.source()
    };
    let mut lasts = vec![0u64; n];
    let identity: Vec<Card> = (0..n as Card).collect();
    let (mut deck, mut scratch) = (identity.clone(), identity.clone());
    for k in 0..seeds {
        let mut words =
            TypedSource::<JavaRandom>::seeded(&source, k).expect("java has native words");
        deck.copy_from_slice(&identity);
        cx.case.shuffle().apply(&mut deck, &mut scratch, &mut words);
        lasts[usize::from(deck[last])] += 1;
    }
    let card = 5;
    vec![
        compared(
            "with new Random(k) for k = 0, 1, 2, …, card 5 lands last at 8 cards, as Java 17 \
             does",
            "issue 29, measured on Java 17",
            "card 5 last",
            format!(
                "card 5 last in {} of the first {} deals (k = 0 … {}); 1/8 if fair",
                lasts[card],
                seeds,
                seeds - 1
            ),
            "the emulation from k = 0 (its decks equal Java's: tests/native_map.rs)",
            lasts[card] * 2 > seeds,
        ),
        compared(
            "consecutive deals are dependent",
            "issue 29",
            "dependent",
            if rejected(cx.report, Question::Dependence) {
                "a test of dependence between deals rejects"
            } else {
                "no test of dependence between deals rejects"
            },
            "this run's tests of the stream of deals",
            rejected(cx.report, Question::Dependence),
        ),
    ]
}

fn sql_order_by_rand(cx: &FigureContext) -> Vec<Figure> {
    let n = cx.deck() as f64;
    let identity = cx.report.identity.count;
    vec![
        compared(
            "ORDER BY RAND() returns the rows in the same order every time",
            "Microsoft, RAND (Transact-SQL)",
            "every time",
            format!(
                "the identity in {} of {} runs",
                group(identity),
                group(cx.trials())
            ),
            "this run",
            identity == cx.trials(),
        ),
        beside(
            "ORDER BY NEWID(): each row a random 122-bit key",
            format!(
                "every order equally likely but for ties among the keys, which have \
                 probability at most C(n, 2)/2^122 = {:.1e}",
                n * (n - 1.0) / 2.0 / 2f64.powi(122)
            ),
            "sorting independent keys: each order of distinct keys is equally likely",
        ),
    ]
}

fn pokerstars(cx: &FigureContext) -> Vec<Figure> {
    const STARS: &str = "PokerStars, Shuffling";
    let n = cx.deck();
    // The bounds the Fisher–Yates draws below, read from the algorithm's own first path.
    let (bounds, _) = first_path(cx.case.shuffle(), n);
    let bits_of = |k: usize| (usize::BITS - (k - 1).leading_zeros()) as u64;
    let bits: u64 = bounds.iter().map(|&k| bits_of(k)).sum();
    let expected: f64 = bounds
        .iter()
        .map(|&k| bits_of(k) as f64 * (1u64 << bits_of(k)) as f64 / k as f64)
        .sum();
    let needed = log2_factorial(n);
    vec![
        compared(
            "249 random bits per shuffle",
            STARS,
            "249",
            format!(
                "{bits} (Σ ceil(log2 k) over the draws); {expected:.1} expected with the rejections"
            ),
            "the Fisher-Yates's draws at 52 cards",
            bits == 249,
        ),
        compared(
            "more than log2(52!) ≈ 225.58 bits: every deck reachable",
            STARS,
            "225.58",
            format!("{needed:.2}"),
            "log2(52!) summed term by term",
            (needed - 225.58).abs() < 0.005 && (bits as f64) > needed,
        ),
        compared(
            "the shuffle passes every test",
            STARS,
            "fair",
            if cx.report.bias_detected {
                "bias detected".to_string()
            } else {
                format!("no bias detected in {}", plural(cx.trials(), "deal"))
            },
            "this run",
            !cx.report.bias_detected,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduce_and_fraction_write_what_reports_show() {
        assert_eq!(reduce(6, 8), (3, 4));
        assert_eq!(reduce(0, 8), (0, 1));
        assert_eq!(fraction((1, 1)), "1");
    }

    #[test]
    fn the_published_laravel_counts_fit_the_published_law() {
        // The PR's own sample against its exact law: a fair sample, so p is not small.
        assert!(fit(&LARAVEL_COUNTS, &LARAVEL_LAW) > 0.001);
        // And not against the rand(0, 1) law.
        assert!(fit(&LARAVEL_COUNTS, &LARAVEL_COIN_LAW) < 1e-100);
    }
}
