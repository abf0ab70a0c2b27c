//! The library API for test suites: test your own shuffle function in-process, from `cargo
//! test`, with the statistics and the verdict of `shuffle-bias check`.
//!
//! [`ShuffleTest`] runs a shuffle function on a deck of `0..n` many times with a seeded
//! generator ([`ShuffleRng`]), checks that every result is a permutation, and tallies it in the
//! tally `check` fills from its input. The tally is then judged by the very function `check`
//! calls after its reading (the same exact laws, the same family of tests with Holm's
//! adjustment, the same verdict), so the [`RunReport`] returned here equals the report of
//! `shuffle-bias check --format json` on the same permutations, field for field, except the
//! input's name and the timings. Nothing here prints, installs a Ctrl-C handler or touches a
//! file: the host test suite owns the process.
//!
//! [`ShuffleTest::assert_no_bias`] and [`ShuffleTest::assert_bias`] panic with
//! [`verdict_summary`]: the verdict line and the strongest failing tests (and, after a pass,
//! what the sample rules out). [`ShuffleTest::assert_fair_within`] is the size gate of
//! `--max-bias`: it passes only when the 99% bounds show the bias within a size.

use std::fmt::Write as _;
use std::time::Instant;

use rand_core::SeedableRng;

use crate::analysis::ruled_out::{BiasSize, GateOutcome};

use crate::analysis::decision::format_p;
use crate::config::deal_fingerprint_limit;
use crate::config::{MAX_PASSES, default_trials};
use crate::engine::algorithms::{
    Algorithm, Card, CutProbability, DEFAULT_SHELVES, MAX_SHELVES, Shuffle,
};
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::MAX_FULL_DECK;
use crate::engine::tally::TallyMode;
use crate::input::permutation_reader::{
    DealsRequest, InputCounts, InputTally, Numbering, ReaderOptions, deal_stream_for,
};
use crate::judge::{JudgeError, Judging, Silent, judge_input};
use crate::report::run::{RunReport, TestResult};
use crate::theory::exact::DEFAULT_MAX_PATHS;

/// The generator handed to the shuffle under test: ChaCha with 8 rounds (the `run` command's
/// default generator), seeded from [`ShuffleTest::seed`]. It implements `rand_core` 0.10's
/// `Rng`, so `rand::RngExt::random_range` works on it (this crate re-exports [`rand`]).
pub type ShuffleRng = rand_chacha::ChaCha8Rng;

/// How many failing tests [`verdict_summary`] lists at most.
const SHOWN_TESTS: usize = 5;

/// Why a [`ShuffleTest`] could not give a verdict. Its `Display` says which setting or which
/// shuffle went wrong and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum ShuffleTestError {
    /// A setting of the builder is out of range.
    #[error("ShuffleTest::{setting}({value}): {fix}")]
    Setting {
        /// The builder method, e.g. `new` or `alpha`.
        setting: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        fix: String,
    },
    /// The shuffle under test returned something that is not a permutation of the deck.
    #[error(
        "shuffle {trial} (counting from 1) did not return a permutation of 0..{deck}: {problem}; \
         got [{shown}]"
    )]
    NotAPermutation {
        /// Which call, counting from 1.
        trial: u64,
        /// Number of cards.
        deck: usize,
        /// What is wrong, e.g. `card 2 appears twice`.
        problem: String,
        /// The start of what was returned.
        shown: String,
    },
    /// The hypothesis has no law that can be had (an exact law beyond its path budget, or no
    /// law of the marginals of that algorithm on a large deck).
    #[error("{0}")]
    NoLaw(String),
}

impl From<JudgeError> for ShuffleTestError {
    fn from(error: JudgeError) -> Self {
        ShuffleTestError::NoLaw(error.to_string())
    }
}

/// A test of a shuffle function: the deck size, the number of shuffles, the seed, the level and
/// the hypothesis, set with a builder, then run with [`ShuffleTest::check_shuffle`] (a shuffle
/// in place) or [`ShuffleTest::check_permutations`] (a function that deals a permutation).
///
/// Defaults are those of `check`: `alpha` 0.001, against uniform; and those of `run` for the
/// number of shuffles (the larger of 1,000,000 and 20·n! up to 11 cards, 1,000,000 above);
/// the seed is fixed ([`ShuffleTest::DEFAULT_SEED`]) so that a test gives the same verdict on
/// every run. Decks of up to 11 cards tally every ordering; larger ones (up to 1000) tally
/// positions and permutation statistics, as `check --mode auto` does.
#[derive(Debug, Clone)]
pub struct ShuffleTest {
    deck: usize,
    trials: Option<u64>,
    seed: u64,
    alpha: f64,
    against: Option<Algorithm>,
    passes: Option<u32>,
    cut_probability: Option<CutProbability>,
    shelves: Option<u16>,
}

impl ShuffleTest {
    /// The seed used unless [`ShuffleTest::seed`] gives another.
    pub const DEFAULT_SEED: u64 = 0;

    /// The family-wise level used unless [`ShuffleTest::alpha`] gives another (`check`'s
    /// default).
    pub const DEFAULT_ALPHA: f64 = 0.001;

    /// A test of shuffles of a deck of `deck` cards, 2 to 1000.
    pub fn new(deck: usize) -> Self {
        ShuffleTest {
            deck,
            trials: None,
            seed: Self::DEFAULT_SEED,
            alpha: Self::DEFAULT_ALPHA,
            against: None,
            passes: None,
            cut_probability: None,
            shelves: None,
        }
    }

    /// How many times the shuffle is run (at least 1).
    pub fn trials(mut self, trials: u64) -> Self {
        self.trials = Some(trials);
        self
    }

    /// The seed of the [`ShuffleRng`] handed to the shuffle: the same seed gives the same
    /// permutations, hence the same report.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The family-wise significance level of the verdict, strictly between 0 and 1.
    pub fn alpha(mut self, alpha: f64) -> Self {
        self.alpha = alpha;
        self
    }

    /// Test against the exact law of a built-in algorithm instead of uniform (`check
    /// --against ALGORITHM`): a verdict of bias then says that the shuffle does not behave like
    /// that algorithm.
    pub fn against(mut self, algorithm: Algorithm) -> Self {
        self.against = Some(algorithm);
        self
    }

    /// With [`ShuffleTest::against`]: the shuffle should be this many passes of the algorithm
    /// (`check --passes`, default 1).
    pub fn passes(mut self, passes: u32) -> Self {
        self.passes = Some(passes);
        self
    }

    /// With [`ShuffleTest::against`] `Algorithm::Overhand`: the probability that a gap is cut
    /// (`check --cut-probability`, default 1/2).
    pub fn cut_probability(mut self, probability: CutProbability) -> Self {
        self.cut_probability = Some(probability);
        self
    }

    /// With [`ShuffleTest::against`] `Algorithm::Shelf`: the number of shelves
    /// (`check --shelves`, default 10).
    pub fn shelves(mut self, shelves: u16) -> Self {
        self.shelves = Some(shelves);
        self
    }

    /// Run `shuffle` on a fresh deck `[0, 1, …, n−1]` for every trial and judge the results.
    /// After the call, `deck[position]` is the card at `position`, as on a line of `check`'s
    /// input.
    ///
    /// A generic shuffle such as `fn my_shuffle<T>(deck: &mut [T], rng: &mut impl Rng)` can be
    /// passed as it is: its types are inferred.
    pub fn check_shuffle<F>(&self, mut shuffle: F) -> Result<RunReport, ShuffleTestError>
    where
        F: FnMut(&mut [usize], &mut ShuffleRng),
    {
        let n = self.deck;
        self.run(|rng, deck| {
            deck.clear();
            deck.extend(0..n);
            shuffle(deck, rng);
        })
    }

    /// Call `deal` once per trial and judge the permutations it returns: each a permutation of
    /// `0..n` written as `check` reads a line (`permutation[position] = card`).
    pub fn check_permutations<F, P>(&self, mut deal: F) -> Result<RunReport, ShuffleTestError>
    where
        F: FnMut(&mut ShuffleRng) -> P,
        P: AsRef<[usize]>,
    {
        self.run(|rng, permutation| {
            permutation.clear();
            permutation.extend_from_slice(deal(rng).as_ref());
        })
    }

    /// [`ShuffleTest::check_shuffle`], then panic unless no bias is detected. The panic message
    /// is [`verdict_summary`] of the report (or the error, if there is no report). Returns the
    /// report for further assertions.
    #[track_caller]
    pub fn assert_no_bias<F>(&self, shuffle: F) -> RunReport
    where
        F: FnMut(&mut [usize], &mut ShuffleRng),
    {
        let report = self.expect_report(self.check_shuffle(shuffle));
        if report.bias_detected {
            panic!("{}", self.failure_message(&report));
        }
        report
    }

    /// [`ShuffleTest::check_shuffle`], then panic unless bias is detected: for a test that
    /// pins a known-bad shuffle (or shows that the test has the power to catch one).
    #[track_caller]
    pub fn assert_bias<F>(&self, shuffle: F) -> RunReport
    where
        F: FnMut(&mut [usize], &mut ShuffleRng),
    {
        let report = self.expect_report(self.check_shuffle(shuffle));
        if !report.bias_detected {
            panic!("{}", self.failure_message(&report));
        }
        report
    }

    /// [`ShuffleTest::check_shuffle`], then panic unless the bias is shown to be at most `size`
    /// with 99% confidence: an equivalence test, the gate of `--max-bias`. `size` is written as
    /// on the command line: `"1pp"` (every card's chance of each position within 1 percentage
    /// point of 1/n) or `"0.02tv"` (total variation distance from uniform, up to 11 cards). A
    /// sample too small to show it panics too, saying about how many shuffles would
    /// ([`ShuffleTest::trials`]). The panic message gives the gate's reason and what the
    /// sample rules out.
    ///
    /// ```
    /// use shuffle_bias::rand::RngExt;
    /// use shuffle_bias::ShuffleTest;
    ///
    /// // Fisher–Yates on 4 cards: 200,000 shuffles bound every position within 1 point.
    /// ShuffleTest::new(4).trials(200_000).assert_fair_within("1pp", |deck, rng| {
    ///     for i in (1..deck.len()).rev() {
    ///         deck.swap(i, rng.random_range(0..=i));
    ///     }
    /// });
    /// ```
    #[track_caller]
    pub fn assert_fair_within<F>(&self, size: &str, shuffle: F) -> RunReport
    where
        F: FnMut(&mut [usize], &mut ShuffleRng),
    {
        if let Err(message) = parse_size(size) {
            panic!("{message}");
        }
        let report = self.expect_report(self.check_shuffle(shuffle));
        match fair_within(report, size, self.seed, self.alpha) {
            (report, Ok(())) => report,
            (_, Err(message)) => panic!("{message}"),
        }
    }

    /// The report, or a panic with the error.
    #[track_caller]
    fn expect_report(&self, result: Result<RunReport, ShuffleTestError>) -> RunReport {
        match result {
            Ok(report) => report,
            Err(error) => panic!("shuffle-bias: {error}"),
        }
    }

    /// The panic message of an assertion: the summary and the settings that reproduce it.
    fn failure_message(&self, report: &RunReport) -> String {
        failure_message(report, self.seed, self.alpha)
    }

    /// The settings, checked: the shuffle to test against (if any) and the number of trials.
    fn validated(&self) -> Result<(Option<Shuffle>, u64), ShuffleTestError> {
        let setting = |setting, value: &dyn std::fmt::Display, fix: &str| {
            Err(ShuffleTestError::Setting {
                setting,
                value: value.to_string(),
                fix: fix.to_string(),
            })
        };
        if !(2..=MAX_MARGINAL_DECK).contains(&self.deck) {
            return setting(
                "new",
                &self.deck,
                &format!("decks of 2 to {MAX_MARGINAL_DECK} cards can be tested"),
            );
        }
        if self.trials == Some(0) {
            return setting("trials", &0, "at least one shuffle is needed");
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return setting(
                "alpha",
                &self.alpha,
                "the significance level must be strictly between 0 and 1 (e.g. 0.001)",
            );
        }
        let model = match self.against {
            None => {
                if let Some(passes) = self.passes {
                    return setting(
                        "passes",
                        &passes,
                        "passes belong to an algorithm: give one with .against(ALGORITHM)",
                    );
                }
                if let Some(p) = self.cut_probability {
                    return setting(
                        "cut_probability",
                        &p,
                        "only the overhand shuffle cuts with a probability: use \
                         .against(Algorithm::Overhand)",
                    );
                }
                if let Some(m) = self.shelves {
                    return setting(
                        "shelves",
                        &m,
                        "only the shelf shuffler has shelves: use .against(Algorithm::Shelf)",
                    );
                }
                None
            }
            Some(algorithm) => {
                let passes = self.passes.unwrap_or(1);
                if !(1..=MAX_PASSES).contains(&passes) {
                    return setting("passes", &passes, &format!("give 1 to {MAX_PASSES} passes"));
                }
                if let Some(p) = self.cut_probability
                    && algorithm != Algorithm::Overhand
                {
                    return setting(
                        "cut_probability",
                        &p,
                        &format!(
                            "only the overhand shuffle cuts with a probability, not {}",
                            algorithm.name()
                        ),
                    );
                }
                if let Some(m) = self.shelves
                    && (algorithm != Algorithm::Shelf || !(1..=MAX_SHELVES).contains(&m))
                {
                    return setting(
                        "shelves",
                        &m,
                        &format!(
                            "only the shelf shuffler has shelves, 1 to {MAX_SHELVES}, not {}",
                            algorithm.name()
                        ),
                    );
                }
                Some(Shuffle {
                    algorithm,
                    passes,
                    cut_probability: self.cut_probability.unwrap_or_default(),
                    shelves: self.shelves.unwrap_or(DEFAULT_SHELVES),
                })
            }
        };
        let trials = self
            .trials
            .unwrap_or_else(|| default_trials(self.deck, self.mode()));
        Ok((model, trials))
    }

    /// What is tallied: every ordering up to 11 cards, the marginals above (`--mode auto`).
    fn mode(&self) -> TallyMode {
        if self.deck <= MAX_FULL_DECK {
            TallyMode::Full
        } else {
            TallyMode::Marginal
        }
    }

    /// Deal `trials` permutations with `deal` (which writes each into the buffer it is given),
    /// check and tally each, and judge the tally as `check` does.
    fn run(
        &self,
        mut deal: impl FnMut(&mut ShuffleRng, &mut Vec<usize>),
    ) -> Result<RunReport, ShuffleTestError> {
        let (_, trials) = self.validated()?;
        let mut tally = self.tally()?;
        let mut rng = ShuffleRng::seed_from_u64(self.seed);
        let mut permutation: Vec<usize> = Vec::with_capacity(self.deck);
        for _ in 0..trials {
            deal(&mut rng, &mut permutation);
            tally.add(&permutation)?;
        }
        tally.finish()
    }

    /// How many shuffles [`ShuffleTest::check_shuffle`] runs: [`ShuffleTest::trials`], or the
    /// default for the deck (the larger of 1,000,000 and 20·n! up to 11 cards, 1,000,000
    /// above).
    pub fn planned_trials(&self) -> u64 {
        self.trials
            .unwrap_or_else(|| default_trials(self.deck, self.mode()))
    }

    /// An empty tally with this test's settings, for permutations made elsewhere — by a
    /// binding to another language, say, whose shuffle runs in its own loop — and fed with
    /// [`PermutationTally::add`]; [`PermutationTally::finish`] judges them as
    /// [`ShuffleTest::check_shuffle`] judges its own. [`ShuffleTest::trials`] and
    /// [`ShuffleTest::seed`] are not used: the caller decides how many permutations to add and
    /// how they are made.
    ///
    /// ```
    /// use shuffle_bias::ShuffleTest;
    ///
    /// let mut tally = ShuffleTest::new(3).tally().unwrap();
    /// for _ in 0..600 {
    ///     tally.add(&[0, 1, 2]).unwrap(); // a "shuffle" that never moves a card
    /// }
    /// assert!(tally.finish().unwrap().bias_detected);
    /// ```
    pub fn tally(&self) -> Result<PermutationTally, ShuffleTestError> {
        let (model, _) = self.validated()?;
        let n = self.deck;
        // The tests of the stream of deals, fed as `check`'s reader feeds them.
        let stream = deal_stream_for(
            &ReaderOptions {
                mode: self.mode(),
                deals: Some(DealsRequest {
                    fingerprint_limit: deal_fingerprint_limit(),
                    // The tally feeds the stream itself, deal by deal, as it is given them.
                    thread: false,
                }),
                ..Default::default()
            },
            n,
        );
        Ok(PermutationTally {
            model,
            alpha: self.alpha,
            seed: self.seed,
            counts: InputCounts::empty(self.mode(), n),
            stream,
            cards: vec![0; n],
            seen: vec![0; n],
            trials: 0,
            started: Instant::now(),
        })
    }
}

/// Permutations tallied one at a time, then judged as `check` judges its input: the tally
/// inside [`ShuffleTest::check_shuffle`], open for permutations made elsewhere
/// ([`ShuffleTest::tally`]).
#[derive(Debug)]
pub struct PermutationTally {
    model: Option<Shuffle>,
    alpha: f64,
    seed: u64,
    counts: InputCounts,
    stream: Option<crate::engine::deal_stream::DealStream>,
    cards: Vec<Card>,
    /// Stamps of the cards met in the current permutation: `seen[card] == trial` when met.
    seen: Vec<u64>,
    trials: u64,
    started: Instant,
}

impl PermutationTally {
    /// Check that `permutation` is a permutation of `0..n` (`permutation[position] = card`)
    /// and tally it; an error names the permutation (counting from 1) and what is wrong, and
    /// leaves the tally as it was.
    pub fn add(&mut self, permutation: &[usize]) -> Result<(), ShuffleTestError> {
        let trial = self.trials + 1;
        if let Err(problem) = to_cards(permutation, trial, &mut self.seen, &mut self.cards) {
            return Err(ShuffleTestError::NotAPermutation {
                trial,
                deck: self.cards.len(),
                problem,
                shown: shown(permutation),
            });
        }
        self.trials = trial;
        self.counts.add(&self.cards);
        if let Some(stream) = &mut self.stream {
            stream.add(&self.cards);
        }
        Ok(())
    }

    /// The permutations tallied so far.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Judge the permutations tallied, as `check` judges its input; at least one is needed.
    pub fn finish(self) -> Result<RunReport, ShuffleTestError> {
        if self.trials == 0 {
            return Err(ShuffleTestError::Setting {
                setting: "tally",
                value: "no permutation".to_string(),
                fix: "add at least one permutation before judging".to_string(),
            });
        }
        let n = self.cards.len();
        let elapsed_seconds = self.started.elapsed().as_secs_f64();
        let input = InputTally {
            deck: n,
            counts: self.counts,
            permutations: self.trials,
            lines: self.trials,
            invalid: 0,
            invalid_examples: Vec::new(),
            numbering: Numbering::ZeroBased,
            format: None,
            sources: vec![format!("a shuffle function (seed {})", self.seed)],
            contents: Vec::new(),
            prefixes: Vec::new(),
            interrupted: false,
            stopped_early: false,
            numbering_assumed: 0,
            deals: self.stream.map(|stream| stream.finish()),
        };
        let settings = Judging {
            model: self.model,
            alpha: self.alpha,
            max_paths: DEFAULT_MAX_PATHS,
            max_paths_given: false,
            all_orderings: false,
            max_bias: None,
            explain: false,
            labels: None,
            state_bits: None,
        };
        Ok(judge_input(
            input,
            &settings,
            elapsed_seconds,
            (None, None),
            &Silent,
        )?)
    }
}

/// Check that `permutation` is a permutation of `0..cards.len()` and copy it into `cards`;
/// `seen` holds the stamp of the trial in which each card was last met.
fn to_cards(
    permutation: &[usize],
    trial: u64,
    seen: &mut [u64],
    cards: &mut [Card],
) -> Result<(), String> {
    let n = cards.len();
    if permutation.len() != n {
        return Err(format!("expected {n} cards, found {}", permutation.len()));
    }
    for (slot, &card) in cards.iter_mut().zip(permutation) {
        if card >= n {
            return Err(format!(
                "card {card} is out of range: cards are 0..{}",
                n - 1
            ));
        }
        if seen[card] == trial {
            return Err(format!("card {card} appears twice"));
        }
        seen[card] = trial;
        *slot = card as Card;
    }
    Ok(())
}

/// The first cards of a bad result, for its message.
fn shown(permutation: &[usize]) -> String {
    const SHOWN: usize = 20;
    let mut text: Vec<String> = permutation
        .iter()
        .take(SHOWN)
        .map(ToString::to_string)
        .collect();
    if permutation.len() > SHOWN {
        text.push(format!("… ({} cards)", permutation.len()));
    }
    text.join(", ")
}

/// A failure message: [`verdict_summary`], then the settings that reproduce the test.
fn failure_message(report: &RunReport, seed: u64, alpha: f64) -> String {
    format!(
        "{}\n(ShuffleTest: {} cards, {} shuffles, seed {seed}, alpha {alpha})",
        verdict_summary(report),
        report.header.deck,
        report.header.trials,
    )
}

/// `size` read as `--max-bias` reads it, or the message of a bad one.
fn parse_size(size: &str) -> Result<BiasSize, String> {
    BiasSize::parse(size).map_err(|fix| {
        format!(
            "shuffle-bias: {}",
            ShuffleTestError::Setting {
                setting: "assert_fair_within",
                value: format!("{size:?}"),
                fix,
            }
        )
    })
}

/// The size gate of `--max-bias` on a judged report: the report, with its gate when one
/// applies, and `Ok` when the 99% bounds show the bias within `size` (`"1pp"`, `"0.02tv"`);
/// otherwise the message an assertion fails with — the gate's reason and what the sample rules
/// out, a bad size, or a gate that cannot apply (a test against an algorithm's law; a total
/// variation size beyond 11 cards). The message ends with the seed and level that reproduce
/// the test ([`ShuffleTest::assert_fair_within`], and the Python package's
/// `assert_fair_within`).
pub fn fair_within(
    report: RunReport,
    size: &str,
    seed: u64,
    alpha: f64,
) -> (RunReport, Result<(), String>) {
    let size = match parse_size(size) {
        Ok(size) => size,
        Err(message) => return (report, Err(message)),
    };
    let report = report.with_gate(size);
    let verdict = match &report.gate {
        None => Err(format!(
            "shuffle-bias: assert_fair_within({:?}) measures the distance from uniform{}",
            size.label(),
            if report.ruled_out.is_none() {
                ", and this test is against an algorithm's law: drop .against()"
            } else {
                ": a total variation size needs every ordering tallied (at most 11 cards); \
                 use a size in points such as \"1pp\""
            }
        )),
        Some(gate) if gate.outcome != GateOutcome::FairWithin => Err(format!(
            "shuffle-bias: {}: {}\n{}",
            gate.headline(),
            gate.sentence(),
            failure_message(&report, seed, alpha)
        )),
        Some(_) => Ok(()),
    };
    (report, verdict)
}

/// The report as `check --format json` writes it (the same document, pretty-printed).
pub fn report_json(report: &RunReport) -> String {
    serde_json::to_string_pretty(report).expect("a report serialises to JSON")
}

/// The report as `check` prints it on a terminal 100 columns wide, without colour.
pub fn report_text(report: &RunReport) -> String {
    use crate::output::{CsvTable, Format, Report, Terminal, exporter};
    let terminal = Terminal {
        colour: false,
        width: Some(100),
    };
    let mut text = Vec::new();
    exporter(Format::Table, CsvTable::default(), terminal)
        .export(&Report::Run(report), &mut text)
        .expect("writing to memory does not fail");
    String::from_utf8_lossy(&text).into_owned()
}

/// The algorithm named `name` as on the command line (`fisher-yates`, `naive`, …), or the
/// message listing the names.
pub fn algorithm_named(name: &str) -> Result<Algorithm, String> {
    Algorithm::ALL
        .into_iter()
        .find(|algorithm| algorithm.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
            format!(
                "'{name}' is not an algorithm; choose one of {}",
                names.join(", ")
            )
        })
}

/// The verdict line of a report, then its strongest failing tests (at most five, smallest
/// Holm-adjusted p first, each with its statistic — Pearson's χ² and its degrees of freedom,
/// or the count the exact binomial test saw — and its raw and Holm-adjusted p-values); when
/// nothing fails, the test closest to failing. This is the panic message of the assertions.
pub fn verdict_summary(report: &RunReport) -> String {
    let mut text = format!("shuffle-bias: {}", report.verdict);
    if let Some(ruled_out) = report.ruled_out.as_ref().filter(|_| !report.bias_detected) {
        let _ = write!(text, "\n{}:", ruled_out.heading());
        for sentence in ruled_out.sentences() {
            let _ = write!(text, "\n  - {sentence}");
        }
    }
    let mut ranked: Vec<&TestResult> = report.tests.iter().collect();
    ranked.sort_by(|a, b| {
        a.log10_adjusted_p_value
            .total_cmp(&b.log10_adjusted_p_value)
    });
    let failing: Vec<&TestResult> = ranked.iter().copied().filter(|t| t.rejected).collect();
    let (heading, shown) = if failing.is_empty() {
        (
            "the test closest to failing",
            &ranked[..ranked.len().min(1)],
        )
    } else {
        (
            "strongest failing tests",
            &failing[..failing.len().min(SHOWN_TESTS)],
        )
    };
    let _ = write!(
        text,
        "\n{heading} (of {} in the family, alpha = {}):",
        report.tests.len(),
        report.header.alpha
    );
    let width = shown.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for test in shown {
        let statistic = if test.method.is_binomial() {
            format!("{:.0} seen", test.statistic)
        } else {
            match test.df {
                Some(df) => format!("χ² {:.2}, df {df}", test.statistic),
                None => format!("χ² {:.2}", test.statistic),
            }
        };
        let _ = write!(
            text,
            "\n  {:<width$}  {statistic}  p = {}  Holm-adjusted p = {}",
            test.name,
            format_p(test.log10_p_value),
            format_p(test.log10_adjusted_p_value),
        );
        if let Some(note) = &test.note {
            let _ = write!(text, "  ({note})");
        }
    }
    if failing.len() > SHOWN_TESTS {
        let _ = write!(text, "\n  … and {} more", failing.len() - SHOWN_TESTS);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity(_: &mut [usize], _: &mut ShuffleRng) {}

    #[test]
    fn settings_out_of_range_name_the_builder_method_and_the_fix() {
        let error = |test: ShuffleTest| test.check_shuffle(identity).unwrap_err().to_string();
        assert_eq!(
            error(ShuffleTest::new(1)),
            "ShuffleTest::new(1): decks of 2 to 1000 cards can be tested"
        );
        assert!(error(ShuffleTest::new(4).trials(0)).starts_with("ShuffleTest::trials(0)"));
        assert!(error(ShuffleTest::new(4).alpha(1.5)).starts_with("ShuffleTest::alpha(1.5)"));
        assert!(error(ShuffleTest::new(4).passes(2)).contains(".against(ALGORITHM)"));
        assert!(
            error(
                ShuffleTest::new(4)
                    .against(Algorithm::Riffle)
                    .cut_probability(CutProbability::HALF)
            )
            .contains("not riffle")
        );
    }

    #[test]
    fn a_result_that_is_no_permutation_is_an_error_naming_the_trial() {
        let mut calls = 0;
        let error = ShuffleTest::new(3)
            .trials(10)
            .check_permutations(|_| {
                calls += 1;
                if calls == 4 {
                    vec![0, 0, 2]
                } else {
                    vec![2, 1, 0]
                }
            })
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "shuffle 4 (counting from 1) did not return a permutation of 0..3: card 0 appears \
             twice; got [0, 0, 2]"
        );
        let short = ShuffleTest::new(3)
            .trials(1)
            .check_permutations(|_| vec![0, 1])
            .unwrap_err()
            .to_string();
        assert!(short.contains("expected 3 cards, found 2"), "{short}");
        let large = ShuffleTest::new(3)
            .trials(1)
            .check_permutations(|_| vec![0, 1, 3])
            .unwrap_err()
            .to_string();
        assert!(large.contains("card 3 is out of range"), "{large}");
    }

    #[test]
    fn the_identity_shuffle_is_flagged_and_the_summary_names_its_strongest_tests() {
        let report = ShuffleTest::new(3)
            .trials(600)
            .check_shuffle(identity)
            .unwrap();
        assert!(report.bias_detected);
        let summary = verdict_summary(&report);
        assert!(
            summary.starts_with("shuffle-bias: bias detected"),
            "{summary}"
        );
        assert!(summary.contains("strongest failing tests"), "{summary}");
        assert!(summary.contains("permutations"), "{summary}");
    }
}
