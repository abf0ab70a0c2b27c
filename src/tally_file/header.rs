//! The header of a tally file: what was tallied and how, as plain JSON.
//!
//! Names are those of the command line (`naive`, `chacha8`, `lemire`, `every-shuffle`), so a
//! header reads like the command that made it. [`TallyHeader::settings`] lists every setting
//! that must be equal for two files to be parts of one experiment; [`TallyHeader::mismatch`]
//! names the first that is not.

use serde::{Deserialize, Serialize};

use crate::config::MAX_TRIALS;
use crate::engine::algorithms::{Algorithm, CutProbability, DEFAULT_SHELVES, MAX_SHELVES, Shuffle};
use crate::engine::deal_stream::kernel::{KernelSums, WideSum, counts_kernel};
use crate::engine::deal_stream::{DealStreamTally, Repeats, RepeatsSkipped, StreamEnd};
use crate::engine::generators::GeneratorKind;
use crate::engine::mapped_source::{Generator, Reseed, SeedSequence, SourceSpec};
use crate::engine::mapping::Mapping;
use crate::engine::permutation::factorial;
use crate::engine::random_source::RngKind;
use crate::engine::shard::BlockCoverage;
use crate::engine::tally::TallyMode;
use crate::input::content_digest::{ContentDigest, PREFIX_LENGTHS};

/// What a tally file says of itself (format version 5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TallyHeader {
    /// Always `shuffle-bias`.
    pub tool: String,
    /// The version of the tool that wrote the file.
    pub version: String,
    /// `run` or `check`.
    pub command: String,
    /// `full` or `marginal`.
    pub mode: String,
    /// Number of cards.
    pub deck: usize,
    /// Shuffles (or permutations) tallied in this file.
    pub trials: u64,
    /// Whether Ctrl-C cut the run or the reading short: the file covers less than it was asked.
    pub interrupted: bool,
    /// Wall-clock seconds of the simulation or of the reading.
    pub elapsed_seconds: f64,
    /// The hypothesis the report tests: `uniform` or `model`.
    pub against: String,
    /// The family-wise level of the report.
    pub alpha: f64,
    /// The budget of choice paths for the exact law.
    pub max_paths: u64,
    /// What `run` simulated (absent for `check`).
    pub run: Option<RunPart>,
    /// What `check` read (absent for `run`).
    pub check: Option<CheckPart>,
    /// Counters of the tally (the first section of the body).
    pub cells: u64,
    /// How the tally's counters are written: `u8`, `u16`, `u32`, `u64` (fixed-width
    /// little-endian words) or `leb128` (varints), whichever is smallest for this file.
    pub encoding: String,
    /// Bytes of the tally's counters.
    pub counts_bytes: u64,
    /// The deal-stream tests' accumulator, when the run or check kept it (else null: saved with
    /// `--no-deal-tests`, or an `--until-decided` run).
    pub deal_stream: Option<DealStreamPart>,
    /// Bytes of the whole body: the tally's counters, then the deal stream's counters and
    /// fingerprints.
    pub body_bytes: u64,
}

/// What a tally file keeps of the stream of deals (the unfinished state of the deal-stream
/// tests): its counts are in the body after the tally's, its seams here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealStreamPart {
    /// K, cards per deal.
    pub dealt: usize,
    /// G, the card groups of the slot tables.
    pub groups: usize,
    /// Deals seen.
    pub deals: u64,
    /// Consecutive pairs counted.
    pub pairs: u64,
    /// How the repeated deals are counted: `from-tally` (full mode: from the counts),
    /// `fingerprints` (16 bytes a deal in the body), `memory` (skipped: the fingerprints would
    /// pass `repeats_limit` deals) or `off`.
    pub repeats: String,
    /// The fingerprint limit, for `memory`.
    pub repeats_limit: Option<u64>,
    /// The sampling level s of the fingerprints: those of the deals whose value falls in the
    /// sampled 1/2^s of the deal space (see `engine::deal_stream::repeats`). Left out when 0
    /// (every deal's fingerprint), as in files written before sampling, which read as 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub sample_level: u32,
    /// Whether the compositions σ_{t+1}∘σ_t⁻¹ are counted (n! counters in the body).
    pub compositions: bool,
    /// The Mallows kernel's sums over the pairs (whole decks beyond full mode; else null).
    pub kernel: Option<KernelPart>,
    /// The runs of consecutive blocks (a run's file), for pairing the seams between shards.
    pub ends: Vec<EndPart>,
    /// Fingerprints in the body (16 bytes each).
    pub fingerprints: u64,
    /// How the deal stream's counters are written (as `encoding`).
    pub encoding: String,
    /// Bytes of the deal stream's counters.
    pub counts_bytes: u64,
}

/// The Mallows kernel's sums (see [`crate::engine::deal_stream::kernel`]): integers of 256
/// bits, written in hexadecimal so that any JSON reader keeps them exact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelPart {
    /// Pairs summed.
    pub pairs: u64,
    /// Σ floor(exp(λ(μ − d))·2^64) over the pairs, 64 hexadecimal digits.
    pub sum: String,
    /// Σ floor(exp(2λ(μ − d))·2^64), 64 hexadecimal digits.
    pub squares: String,
}

impl KernelPart {
    /// The header's form of `sums`.
    pub fn of(sums: &KernelSums) -> KernelPart {
        KernelPart {
            pairs: sums.pairs,
            sum: sums.sum.to_hex(),
            squares: sums.squares.to_hex(),
        }
    }

    /// The sums, if both are 1 to 64 hexadecimal digits.
    pub fn sums(&self) -> Option<KernelSums> {
        Some(KernelSums {
            pairs: self.pairs,
            sum: WideSum::from_hex(&self.sum)?,
            squares: WideSum::from_hex(&self.squares)?,
        })
    }
}

/// The ends of a run of consecutive blocks: see [`crate::engine::deal_stream::StreamEnd`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndPart {
    /// The first block of the run.
    pub first_block: u64,
    /// Its first deal (0-based cards).
    pub first: Vec<u16>,
    /// The last block of the run.
    pub last_block: u64,
    /// Its last deal.
    pub last: Vec<u16>,
    /// Whether the last block was made whole.
    pub complete: bool,
}

/// What `run` simulated, and which of its blocks this file covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunPart {
    /// The algorithm's name.
    pub algorithm: String,
    /// Passes per shuffle.
    pub passes: u32,
    /// The overhand shuffle's cut probability as written (`1/2`), absent for the others.
    pub cut_probability: Option<String>,
    /// The shelf shuffler's shelves, absent for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shelves: Option<u16>,
    /// `--trials` of the whole run (all shards together).
    pub trials: u64,
    /// The seed.
    pub seed: u64,
    /// The generator (`--rng`).
    pub rng: String,
    /// The mapping of words into ranges (`--map`).
    pub map: String,
    /// `--bits`, if given.
    pub bits: Option<u32>,
    /// `--seed-bits` with `--reseed every-shuffle`, if re-seeded.
    pub reseed_seed_bits: Option<u32>,
    /// `--seeds` with `--reseed every-shuffle`, if re-seeded.
    pub reseed_seeds: Option<String>,
    /// Worker threads of this process.
    pub threads: usize,
    /// Shuffles per block (every block but the last).
    pub block_trials: u64,
    /// Blocks of the whole run.
    pub blocks: u64,
    /// `--shard I/K`: `[I, K]` (`[0, 1]` for a whole run).
    pub shard: [u64; 2],
    /// The blocks this process was asked for, `[first, end)`.
    pub asked: [u64; 2],
    /// The blocks begun, `[first, end)`.
    pub taken: [u64; 2],
    /// `[block, shuffles done]` of each block a stop cut short.
    pub partial: Vec<[u64; 2]>,
}

/// What `check` read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckPart {
    /// The files read, in order (`<stdin>` for standard input).
    pub sources: Vec<String>,
    /// Lines read.
    pub lines: u64,
    /// `zero-based`, `one-based` or `labels`.
    pub numbering: String,
    /// `--labels`, if given.
    pub labels: Option<Vec<String>>,
    /// Lines rejected under `--skip-invalid`.
    pub invalid_lines: u64,
    /// The first rejected lines: `[location, problem]`.
    pub invalid_examples: Vec<[String; 2]>,
    /// `--state-bits`, if given.
    pub state_bits: Option<u32>,
    /// `--against ALGORITHM`, if given.
    pub model: Option<ModelPart>,
    /// What each source read to its end was (its size and digest), in order: what identifies
    /// an input to `merge`, whatever it was called. Absent from files of earlier builds.
    #[serde(default)]
    pub contents: Vec<ContentPart>,
    /// How each source opened begins (the digests of its first 4 to 64 KiB, as far as it was
    /// read), in order: what identifies an input read only in part, or one that grew between
    /// two reads. Absent from files of earlier builds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prefixes: Vec<PrefixPart>,
}

/// An input of `check` by its content: see [`crate::input::content_digest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentPart {
    /// The source's name as given (`<stdin>` for standard input).
    pub source: String,
    /// Bytes read.
    pub bytes: u64,
    /// SipHash-1-3 (128-bit) of those bytes, 32 hexadecimal digits.
    pub digest: String,
}

impl ContentPart {
    /// The part of the source `source` whose bytes were `content`.
    pub fn new(source: &str, content: &ContentDigest) -> ContentPart {
        ContentPart {
            source: source.to_string(),
            bytes: content.bytes,
            digest: content.hex(),
        }
    }

    /// The size and digest, or None if the digest is not 32 hexadecimal digits.
    pub fn content(&self) -> Option<ContentDigest> {
        ContentDigest::parse(self.bytes, &self.digest)
    }
}

/// How an input of `check` begins: see [`crate::input::content_digest::PrefixHasher`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrefixPart {
    /// The source's name as given (`<stdin>` for standard input).
    pub source: String,
    /// The digests (32 hexadecimal digits each) of its first 4, 8, 16, 32 and 64 KiB
    /// ([`PREFIX_LENGTHS`]), as far as it was read: `digests[k]` is of the first
    /// `PREFIX_LENGTHS[k]` bytes.
    pub digests: Vec<String>,
}

impl PrefixPart {
    /// The prefixes `digests` of the source `source`.
    pub fn new(source: &str, digests: &[u128]) -> PrefixPart {
        PrefixPart {
            source: source.to_string(),
            digests: digests.iter().map(|d| format!("{d:032x}")).collect(),
        }
    }

    /// The digests in order, up to the first that is not 32 hexadecimal digits, at most one
    /// for each of [`PREFIX_LENGTHS`].
    pub fn digests(&self) -> Vec<u128> {
        self.digests
            .iter()
            .take(PREFIX_LENGTHS.len())
            .map_while(|hex| ContentDigest::parse(0, hex).map(|d| d.digest))
            .collect()
    }
}

/// The algorithm `check --against` tests the input against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelPart {
    /// The algorithm's name.
    pub algorithm: String,
    /// `--passes`.
    pub passes: u32,
    /// `--cut-probability` as written, for the overhand shuffle.
    pub cut_probability: Option<String>,
    /// `--shelves`, for the shelf shuffler.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shelves: Option<u16>,
}

/// Two files that disagree on a setting of the experiment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The setting, named as its flag is (`seed`, `rng`, `passes`, …).
    pub setting: &'static str,
    /// Its value in the first file.
    pub first: String,
    /// Its value in the other.
    pub second: String,
}

impl TallyHeader {
    /// Every setting that must be equal in all the files of one experiment, by name: the
    /// tool and its version, the command, mode and deck, then for `run` the shuffle, `--trials`,
    /// the seed and the whole random source (and the block size), for `check` how the input was
    /// written and what it is tested against.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let mut settings = vec![
            ("tool", self.tool.clone()),
            ("version", self.version.clone()),
            ("command", self.command.clone()),
            ("mode", self.mode.clone()),
            ("deck", self.deck.to_string()),
            ("against", self.against.clone()),
        ];
        let optional = |value: &Option<String>| value.clone().unwrap_or_else(|| "none".into());
        if let Some(run) = &self.run {
            settings.extend([
                ("algorithm", run.algorithm.clone()),
                ("passes", run.passes.to_string()),
                ("cut-probability", optional(&run.cut_probability)),
                ("shelves", optional(&run.shelves.map(|m| m.to_string()))),
                ("trials", run.trials.to_string()),
                ("seed", run.seed.to_string()),
                ("rng", run.rng.clone()),
                ("map", run.map.clone()),
                ("bits", optional(&run.bits.map(|b| b.to_string()))),
                (
                    "seed-bits",
                    optional(&run.reseed_seed_bits.map(|b| b.to_string())),
                ),
                ("seeds", optional(&run.reseed_seeds)),
                ("block size", run.block_trials.to_string()),
            ]);
        }
        if let Some(check) = &self.check {
            let model = check.model.as_ref();
            settings.extend([
                ("numbering", check.numbering.clone()),
                (
                    "labels",
                    optional(&check.labels.as_ref().map(|labels| labels.join(","))),
                ),
                (
                    "state-bits",
                    optional(&check.state_bits.map(|b| b.to_string())),
                ),
                (
                    "against algorithm",
                    optional(&model.map(|m| m.algorithm.clone())),
                ),
                ("passes", optional(&model.map(|m| m.passes.to_string()))),
                (
                    "cut-probability",
                    optional(&model.and_then(|m| m.cut_probability.clone())),
                ),
                (
                    "shelves",
                    optional(&model.and_then(|m| m.shelves.map(|m| m.to_string()))),
                ),
            ]);
        }
        settings
    }

    /// The first setting of the experiment on which `other` differs from this header.
    pub fn mismatch(&self, other: &TallyHeader) -> Option<Mismatch> {
        let theirs = other.settings();
        let ours = self.settings();
        // Different commands have different settings: compare the command first.
        for (name, value) in &ours {
            let their = theirs
                .iter()
                .find(|(n, _)| n == name)
                .map_or_else(|| "none".to_string(), |(_, v)| v.clone());
            if *value != their {
                return Some(Mismatch {
                    setting: name,
                    first: value.clone(),
                    second: their,
                });
            }
        }
        None
    }

    /// What is wrong with a header's values, checked with the rules of the flags that set
    /// them (a file is input from another machine): the level, the budget, the passes, the
    /// shard, the random source's widths, the labels, the times and the deal stream's counts
    /// and seams. Called before anything the header sizes is allocated.
    pub fn problem(&self) -> Option<String> {
        let problem = |text: String| Some(text);
        if !(2..=crate::engine::marginal::MAX_MARGINAL_DECK).contains(&self.deck) {
            return problem(format!(
                "deck {}: 2 to {} cards, as --deck",
                self.deck,
                crate::engine::marginal::MAX_MARGINAL_DECK
            ));
        }
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return problem(format!(
                "alpha {}: the significance level must be strictly between 0 and 1, as \
                 --alpha (merge --alpha chooses another)",
                self.alpha
            ));
        }
        if self.max_paths == 0 {
            return problem(
                "max_paths 0: the exact engine needs at least 1 path, as --max-paths".into(),
            );
        }
        if self.trials > MAX_TRIALS {
            return problem(format!(
                "trials {}: more than 2^53 = {MAX_TRIALS}, the most one run or check counts \
                 (every count must stay exact)",
                self.trials
            ));
        }
        if !(self.elapsed_seconds.is_finite()
            && (0.0..=MAX_ELAPSED_SECONDS).contains(&self.elapsed_seconds))
        {
            return problem(format!(
                "elapsed_seconds {}: not a duration of a run (0 to {MAX_ELAPSED_SECONDS:e} s)",
                self.elapsed_seconds
            ));
        }
        if !["uniform", "model"].contains(&self.against.as_str()) {
            return problem(format!(
                "against '{}': neither uniform nor model",
                self.against
            ));
        }
        if let Some(run) = &self.run
            && let Some(problem) = run.problem()
        {
            return Some(problem);
        }
        if let Some(check) = &self.check
            && let Some(problem) = check.problem(self.deck, self.trials)
        {
            return Some(problem);
        }
        if let Some(stream) = &self.deal_stream {
            if stream.deals != self.trials {
                return problem(format!(
                    "its deal stream saw {} deals, but the tally holds {} shuffles",
                    stream.deals, self.trials
                ));
            }
            if stream.kernel.is_some() != counts_kernel(self.deck, stream.dealt) {
                return problem(format!(
                    "its deal stream {} the Mallows kernel's sums, which are kept for whole \
                     decks of more than {} cards only",
                    if stream.kernel.is_some() {
                        "has"
                    } else {
                        "lacks"
                    },
                    crate::engine::permutation::MAX_FULL_DECK
                ));
            }
            if let Some(kernel) = &stream.kernel {
                if kernel.sums().is_none() {
                    return problem(
                        "its deal stream's Mallows kernel sums are not 1 to 64 hexadecimal \
                         digits"
                            .to_string(),
                    );
                }
                if kernel.pairs > stream.pairs {
                    return problem(format!(
                        "its deal stream's Mallows kernel sums {} pairs, more than its {} pairs",
                        kernel.pairs, stream.pairs
                    ));
                }
            }
            let blocks = self.run.as_ref().map_or(0, |run| run.blocks);
            for end in &stream.ends {
                for deal in [&end.first, &end.last] {
                    if let Some(problem) = deal_problem(deal, self.deck) {
                        return Some(format!("a deal at the seams of its deal stream {problem}"));
                    }
                }
                if end.first_block > end.last_block || end.last_block >= blocks {
                    return problem(format!(
                        "its deal stream's seams name blocks {}–{}, not blocks of this run",
                        end.first_block, end.last_block
                    ));
                }
            }
        }
        None
    }

    /// The tally mode.
    pub fn tally_mode(&self) -> Option<TallyMode> {
        match self.mode.as_str() {
            "full" => Some(TallyMode::Full),
            "marginal" => Some(TallyMode::Marginal),
            _ => None,
        }
    }
}

/// The name of a tally mode in a header.
pub fn mode_name(mode: TallyMode) -> &'static str {
    match mode {
        TallyMode::Full => "full",
        TallyMode::Marginal => "marginal",
    }
}

/// Whether a level is 0 (left out of a header).
fn is_zero(level: &u32) -> bool {
    *level == 0
}

impl DealStreamPart {
    /// The header's part of the deal stream `tally`, whose counters take `counts_bytes` bytes
    /// in `encoding`.
    pub fn of(tally: &DealStreamTally, encoding: &str, counts_bytes: u64) -> DealStreamPart {
        let (repeats, repeats_limit) = match tally.repeats {
            Repeats::FromTally => ("from-tally", None),
            Repeats::Counted { .. } | Repeats::Sampled { .. } => ("fingerprints", None),
            Repeats::Skipped(RepeatsSkipped::Memory { limit, .. }) => ("memory", Some(limit)),
            Repeats::Skipped(RepeatsSkipped::Off) => ("off", None),
        };
        DealStreamPart {
            dealt: tally.dealt,
            groups: tally.groups,
            deals: tally.deals,
            pairs: tally.pairs,
            repeats: repeats.to_string(),
            repeats_limit,
            sample_level: match tally.repeats {
                Repeats::Sampled { level, .. } => level,
                _ => 0,
            },
            compositions: tally.compositions.is_some(),
            kernel: tally.kernel.as_ref().map(KernelPart::of),
            ends: tally
                .ends
                .iter()
                .map(|end| EndPart {
                    first_block: end.first_block,
                    first: end.first.clone(),
                    last_block: end.last_block,
                    last: end.last.clone(),
                    complete: end.complete,
                })
                .collect(),
            fingerprints: tally.fingerprints.iter().map(|l| l.len() as u64).sum(),
            encoding: encoding.to_string(),
            counts_bytes,
        }
    }

    /// A tally of this shape with every counter zero and no fingerprints (the body's are read
    /// into it), and the Mallows kernel's sums, which the header holds.
    pub fn empty_tally(&self, deck: usize) -> DealStreamTally {
        let repeats = match (self.repeats.as_str(), self.repeats_limit) {
            ("from-tally", _) => Repeats::FromTally,
            // The counts are recounted from the fingerprints when the parts are merged.
            ("fingerprints", _) => Repeats::to_count(self.sample_level, self.fingerprints),
            ("memory", limit) => Repeats::Skipped(RepeatsSkipped::Memory {
                limit: limit.unwrap_or(0),
                deals: self.deals,
            }),
            _ => Repeats::Skipped(RepeatsSkipped::Off),
        };
        DealStreamTally {
            deck,
            dealt: self.dealt,
            deals: self.deals,
            pairs: self.pairs,
            repeats,
            matches: vec![0; self.dealt + 1],
            groups: self.groups,
            slots: vec![0; self.dealt * self.groups * self.groups],
            compositions: self.compositions.then(|| vec![0; factorial(deck) as usize]),
            // `problem` checked the digits before anything was read.
            kernel: self
                .kernel
                .as_ref()
                .map(|kernel| kernel.sums().unwrap_or_default()),
            ends: self
                .ends
                .iter()
                .map(|end| StreamEnd {
                    first_block: end.first_block,
                    first: end.first.clone(),
                    last_block: end.last_block,
                    last: end.last.clone(),
                    complete: end.complete,
                })
                .collect(),
            fingerprints: Vec::new(),
        }
    }
}

impl RunPart {
    /// The run's part of a header: `shuffle` on the random source `source` seeded with `seed`,
    /// `trials` in all, shard `shard` = `[I, K]` asked for the blocks `asked`, which `coverage`
    /// says were done.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        shuffle: Shuffle,
        source: &SourceSpec,
        seed: u64,
        trials: u64,
        threads: usize,
        shard: [u64; 2],
        asked: std::ops::Range<u64>,
        coverage: &BlockCoverage,
    ) -> RunPart {
        RunPart {
            algorithm: shuffle.algorithm.name().to_string(),
            passes: shuffle.passes,
            cut_probability: shuffle.cut_probability_used().map(|p| p.to_string()),
            shelves: shuffle.shelves_used(),
            trials,
            seed,
            rng: source.generator.name().to_string(),
            map: source.mapping.name().to_string(),
            bits: source.bits,
            reseed_seed_bits: source.reseed.map(|r| r.bits),
            reseed_seeds: source.reseed.map(|r| r.seeds.name().to_string()),
            threads,
            block_trials: crate::engine::random_source::BLOCK_TRIALS,
            blocks: crate::engine::shard::block_count(trials),
            shard,
            asked: [asked.start, asked.end],
            taken: [coverage.taken.start, coverage.taken.end],
            partial: coverage
                .partial
                .iter()
                .map(|&(block, done)| [block, done])
                .collect(),
        }
    }

    /// The blocks covered.
    pub fn coverage(&self) -> BlockCoverage {
        BlockCoverage {
            taken: self.taken[0]..self.taken[1],
            partial: self.partial.iter().map(|&[b, d]| (b, d)).collect(),
        }
    }

    /// The shuffle, or why the names are unknown.
    pub fn shuffle(&self) -> Result<Shuffle, String> {
        shuffle_of(
            &self.algorithm,
            self.passes,
            self.cut_probability.as_deref(),
            self.shelves,
        )
    }

    /// The random source, or why a name is unknown.
    pub fn source(&self) -> Result<SourceSpec, String> {
        let generator = generator_named(&self.rng)?;
        let mapping = Mapping::ALL
            .into_iter()
            .find(|m| m.name() == self.map)
            .ok_or_else(|| format!("unknown mapping '{}'", self.map))?;
        let reseed = match (self.reseed_seed_bits, &self.reseed_seeds) {
            (None, None) => None,
            (Some(bits), Some(seeds)) => Some(Reseed {
                bits,
                seeds: [SeedSequence::Random, SeedSequence::Counter]
                    .into_iter()
                    .find(|s| s.name() == seeds)
                    .ok_or_else(|| format!("unknown seed sequence '{seeds}'"))?,
            }),
            _ => return Err("re-seeding is half described".to_string()),
        };
        Ok(SourceSpec {
            generator,
            mapping,
            bits: self.bits,
            reseed,
        })
    }
}

impl ModelPart {
    /// The model of `shuffle`.
    pub fn new(shuffle: Shuffle) -> ModelPart {
        ModelPart {
            algorithm: shuffle.algorithm.name().to_string(),
            passes: shuffle.passes,
            cut_probability: shuffle.cut_probability_used().map(|p| p.to_string()),
            shelves: shuffle.shelves_used(),
        }
    }

    /// The shuffle, or why the names are unknown.
    pub fn shuffle(&self) -> Result<Shuffle, String> {
        shuffle_of(
            &self.algorithm,
            self.passes,
            self.cut_probability.as_deref(),
            self.shelves,
        )
    }
}

/// The longest run a header may say it took: 10^10 s (three centuries of machine time).
const MAX_ELAPSED_SECONDS: f64 = 1e10;

/// What is wrong with a deal of `deck`'s cards (0-based): a card beyond the deck, or a card
/// twice.
fn deal_problem(deal: &[u16], deck: usize) -> Option<String> {
    if let Some(card) = deal.iter().find(|&&card| usize::from(card) >= deck) {
        return Some(format!("holds card {card}, beyond a deck of {deck} cards"));
    }
    let mut sorted = deal.to_vec();
    sorted.sort_unstable();
    sorted
        .windows(2)
        .find(|pair| pair[0] == pair[1])
        .map(|pair| format!("holds card {} twice", pair[0]))
}

impl RunPart {
    /// What is wrong with the run's values, by the rules of its flags.
    fn problem(&self) -> Option<String> {
        if !(1..=MAX_TRIALS).contains(&self.trials) {
            return Some(format!(
                "run trials {}: a run has 1 to 2^53 = {MAX_TRIALS} shuffles, as --trials",
                self.trials
            ));
        }
        let [index, count] = self.shard;
        let blocks = crate::engine::shard::block_count(self.trials);
        if count == 0 || index >= count || count > blocks {
            return Some(format!(
                "shard [{index}, {count}]: not shard I/K of a run of {blocks} block{} (I from 0 \
                 to K − 1, K at most the blocks), as --shard",
                if blocks == 1 { "" } else { "s" }
            ));
        }
        let asked = crate::engine::shard::shard_blocks(self.trials, index, count);
        if self.asked != [asked.start, asked.end] {
            return Some(format!(
                "asked for blocks {:?}, but shard {index}/{count} is blocks [{}, {})",
                self.asked, asked.start, asked.end
            ));
        }
        if self.block_trials != crate::engine::random_source::BLOCK_TRIALS {
            return Some(format!(
                "block_trials {}: this build's blocks hold {}",
                self.block_trials,
                crate::engine::random_source::BLOCK_TRIALS
            ));
        }
        if self.threads == 0 || self.threads > crate::config::MAX_THREADS {
            return Some(format!(
                "threads {}: 1 to {} worker threads, as --threads",
                self.threads,
                crate::config::MAX_THREADS
            ));
        }
        if let Some(bits) = self.bits {
            let widest = generator_named(&self.rng).map_or(64, |g| g.bits());
            if !crate::config::WORD_BITS.contains(&bits) || bits > widest {
                return Some(format!(
                    "bits {bits}: words of 8 to {widest} bits of {}, as --bits",
                    self.rng
                ));
            }
        }
        if let Some(bits) = self.reseed_seed_bits
            && !(1..=64).contains(&bits)
        {
            return Some(format!(
                "seed bits {bits}: a seed has 1 to 64 bits, as --seed-bits"
            ));
        }
        None
    }
}

impl CheckPart {
    /// What is wrong with the check's values for `trials` permutations of `deck` cards, by
    /// the rules of its flags.
    fn problem(&self, deck: usize, trials: u64) -> Option<String> {
        if self.state_bits == Some(0) {
            return Some(
                "state_bits 0: a source has at least 1 bit of state, as --state-bits".into(),
            );
        }
        if let Some(labels) = &self.labels {
            if labels.len() != deck {
                return Some(format!(
                    "{} labels for a deck of {deck} cards, as --labels",
                    labels.len()
                ));
            }
            let mut sorted: Vec<&String> = labels.iter().collect();
            sorted.sort();
            if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
                return Some(format!(
                    "label '{}' twice: each card has its own label, as --labels",
                    crate::input::source_name::printable(pair[0])
                ));
            }
        }
        if !["zero-based", "one-based", "labels"].contains(&self.numbering.as_str()) {
            return Some(format!("numbering '{}' is unknown", self.numbering));
        }
        if self.lines < trials.saturating_add(self.invalid_lines) {
            return Some(format!(
                "{} lines cannot hold {trials} permutations and {} rejected lines",
                self.lines, self.invalid_lines
            ));
        }
        if self.sources.is_empty() {
            return Some("it names no input".into());
        }
        None
    }
}

/// A shuffle from its names.
fn shuffle_of(
    algorithm: &str,
    passes: u32,
    cut: Option<&str>,
    shelves: Option<u16>,
) -> Result<Shuffle, String> {
    let algorithm = Algorithm::ALL
        .into_iter()
        .find(|a| a.name() == algorithm)
        .ok_or_else(|| format!("unknown algorithm '{algorithm}'"))?;
    if passes == 0 || passes > crate::config::MAX_PASSES {
        return Err(format!(
            "passes {passes}: 1 to {} passes, as --passes",
            crate::config::MAX_PASSES
        ));
    }
    let cut_probability = match cut {
        None => CutProbability::default(),
        Some(text) => CutProbability::parse(text)?,
    };
    if let Some(m) = shelves
        && !(1..=MAX_SHELVES).contains(&m)
    {
        return Err(format!(
            "shelves {m}: 1 to {MAX_SHELVES} shelves, as --shelves"
        ));
    }
    Ok(Shuffle {
        algorithm,
        passes,
        cut_probability,
        shelves: shelves.unwrap_or(DEFAULT_SHELVES),
    })
}

/// A generator from its `--rng` name.
fn generator_named(name: &str) -> Result<Generator, String> {
    [RngKind::Chacha8, RngKind::Chacha12, RngKind::Chacha20]
        .into_iter()
        .map(Generator::ChaCha)
        .chain(GeneratorKind::ALL.into_iter().map(Generator::Other))
        .find(|g| g.name() == name)
        .ok_or_else(|| format!("unknown generator '{name}'"))
}
