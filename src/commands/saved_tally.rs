//! `--save-tally` and `--shard`: saving a run's or a check's tally for `merge`, and running one
//! shard of a run (its blocks only, its tally saved, no report).

use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use super::{Counted, Failure};
use crate::config::{CheckConfig, RunConfig};
use crate::config::{deal_fingerprint_limit, marginal_memory_bytes, run_memory_bytes};
use crate::engine::deal_stream::{
    BYTES_PER_DEAL, DealStreamOptions, DealStreamTally, RepeatSource,
};
use crate::engine::shard::{BlockCoverage, describe_blocks, range_trials, shard_blocks};
use crate::engine::simulate::Tally;
use crate::engine::simulate::{Simulated, Simulation, SimulationSpec, simulate};
use crate::engine::tally::TallyMode;
use crate::commands::exit_code::ExitCode;
use crate::input::permutation_reader::{InputCounts, InputTally};
use crate::input::source_name::printable_path;
use crate::system::interrupt;
use crate::system::memory_share::{self, Reservation};
use crate::output::files::OutputFile;
use crate::output::progress::Progress;
use crate::report::run::Against;
use crate::report::text::group;
use crate::tally_file::header::mode_name;
use crate::tally_file::{
    CheckPart, ContentPart, ModelPart, PrefixPart, RunPart, TallyHeader, write_tally,
};

/// The tally file of `--save-tally`, created before any long work so that a bad path fails at
/// once.
pub(super) fn open_saved_tally(path: Option<&Path>) -> Result<Option<OutputFile>, Failure> {
    Ok(match path {
        None => None,
        Some(path) => Some(OutputFile::create("--save-tally", path)?),
    })
}

/// Write `counts` (and the deal stream `deals`, if kept) with `header` to `file` and put it in
/// place.
fn save(
    mut file: OutputFile,
    header: &TallyHeader,
    counts: &Counted,
    deals: Option<&DealStreamTally>,
) -> Result<(), Failure> {
    if let Err(error) = write_tally(header, counts, deals, &mut file) {
        return Err(file.write_failed(error).into());
    }
    Ok(file.commit()?)
}

/// The header's name of a hypothesis.
fn against_name(against: Against) -> &'static str {
    match against {
        Against::Uniform => "uniform",
        Against::Model => "model",
    }
}

/// The header of a run's tally (its `cells` and `body_bytes` are filled in when written).
fn run_header(
    config: &RunConfig,
    counts: &Counted,
    asked: Range<u64>,
    coverage: &BlockCoverage,
    elapsed_seconds: f64,
) -> TallyHeader {
    let settings = &config.settings;
    let shard = config.shard.map_or([0, 1], |s| [s.index, s.count]);
    TallyHeader {
        tool: "shuffle-bias".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        command: "run".to_string(),
        mode: mode_name(counts.mode()).to_string(),
        deck: settings.deck,
        trials: counts.trials(),
        interrupted: !coverage.covers(&asked),
        elapsed_seconds,
        against: against_name(config.against).to_string(),
        alpha: settings.alpha,
        max_paths: config.max_paths,
        run: Some(RunPart::new(
            config.shuffle,
            &config.source,
            settings.seed,
            settings.trials,
            settings.threads,
            shard,
            asked,
            coverage,
        )),
        check: None,
        cells: 0,
        encoding: String::new(),
        counts_bytes: 0,
        deal_stream: None,
        body_bytes: 0,
    }
}

/// Save a run's tally: the blocks `asked`, of which `coverage` were done, and the deal stream
/// `deals` when the run kept it.
pub(super) fn save_run_tally(
    file: OutputFile,
    config: &RunConfig,
    counted: (&Counted, Option<&DealStreamTally>),
    asked: Range<u64>,
    coverage: &BlockCoverage,
    elapsed_seconds: f64,
) -> Result<(), Failure> {
    let (counts, deals) = counted;
    let header = run_header(config, counts, asked, coverage, elapsed_seconds);
    save(file, &header, counts, deals)
}

/// `run --shard I/K --save-tally FILE`: simulate the shard's blocks and save their tally; no
/// report (the exact law is left to `merge`). Exit 0 when saved, 130 when Ctrl-C cut it short
/// (the blocks done are saved, marked partial).
pub(super) fn run_shard(config: RunConfig) -> Result<ExitCode, Failure> {
    let shard = config.shard.expect("a shard run has --shard");
    let path = config
        .save_tally
        .as_deref()
        .expect("the config requires --save-tally with --shard");
    let file = OutputFile::create("--save-tally", path)?;
    let settings = &config.settings;
    let blocks = shard_blocks(settings.trials, shard.index, shard.count);
    let shard_trials = range_trials(settings.trials, &blocks);
    let spec = SimulationSpec {
        shuffle: config.shuffle,
        deck: settings.deck,
        trials: settings.trials,
        seed: settings.seed,
        rng: settings.rng,
        threads: settings.threads,
    };
    let progress = Progress::new(shard_trials, "shuffles", config.quiet);
    let stop = interrupt::flag();
    let started = Instant::now();
    let mut show = |done| progress.set(done);
    // The deal-stream accumulator of the shard's blocks, kept as the single run keeps it, so
    // that `merge` gives the single run's deal-stream tests.
    let (deal_options, _reservation) =
        plan_memory(&spec, settings.mode, config.deal_tests, shard_trials);
    warn_of_fingerprint_memory(deal_options.as_ref(), shard_trials, settings.threads);
    let how = Simulation {
        mode: settings.mode,
        source: Some(config.source),
        blocks: Some(blocks.clone()),
        deals: deal_options,
    };
    let Simulated {
        counts,
        coverage,
        deals,
    } = simulate(&spec, &how, stop, &mut show);
    let elapsed_seconds = started.elapsed().as_secs_f64();
    progress.finish();
    let header = run_header(&config, &counts, blocks.clone(), &coverage, elapsed_seconds);
    let saving = Instant::now();
    save(file, &header, &counts, deals.as_ref())?;
    let saved = format!(
        "{} bytes in {:.2} s",
        group(std::fs::metadata(path).map_or(0, |m| m.len())),
        saving.elapsed().as_secs_f64()
    );
    let what = format!(
        "shard {}/{}: blocks {} of {} ({} of {} shuffles)",
        shard.index,
        shard.count,
        describe_blocks(&blocks),
        crate::engine::shard::block_count(settings.trials),
        group(shard_trials),
        group(settings.trials)
    );
    if header.interrupted {
        stderr_line!(
            "shuffle-bias: interrupted: {what}: {} shuffles done, saved to {} marked partial \
             (merge refuses it unless --allow-partial)",
            group(counts.trials()),
            printable_path(path)
        );
        return Ok(ExitCode::Interrupted);
    }
    if !config.quiet {
        stderr_line!("{what} saved to {} ({saved})", printable_path(path));
    }
    Ok(ExitCode::NoBiasDetected)
}

/// Save a check's tally (what was read, marked partial if Ctrl-C stopped the reading). The
/// counts are lent to the writer and put back.
pub(super) fn save_check_tally(
    file: OutputFile,
    config: &CheckConfig,
    input: &mut InputTally,
    elapsed_seconds: f64,
) -> Result<(), Failure> {
    let counts = match std::mem::replace(&mut input.counts, InputCounts::Full(Vec::new())) {
        InputCounts::Full(counts) => Counted::Full(Tally {
            deck: input.deck,
            counts,
            trials: input.permutations,
        }),
        InputCounts::Marginal(tally) => Counted::Marginal(tally),
        // The config refuses --save-tally with --deal: a tally file holds no dealt hands.
        InputCounts::Deal(tally) => {
            input.counts = InputCounts::Deal(tally);
            return Ok(());
        }
    };
    let saved = save_check_counts(file, config, input, &counts, elapsed_seconds);
    input.counts = match counts {
        Counted::Full(tally) => InputCounts::Full(tally.counts),
        Counted::Marginal(tally) => InputCounts::Marginal(tally),
    };
    saved
}

fn save_check_counts(
    file: OutputFile,
    config: &CheckConfig,
    input: &InputTally,
    counts: &Counted,
    elapsed_seconds: f64,
) -> Result<(), Failure> {
    let numbering = serde_json::to_value(input.numbering)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    let header = TallyHeader {
        tool: "shuffle-bias".to_string(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        command: "check".to_string(),
        mode: mode_name(counts.mode()).to_string(),
        deck: input.deck,
        trials: counts.trials(),
        interrupted: input.interrupted,
        elapsed_seconds,
        against: against_name(if config.model.is_some() {
            Against::Model
        } else {
            Against::Uniform
        })
        .to_string(),
        alpha: config.alpha,
        max_paths: config.max_paths,
        run: None,
        check: Some(CheckPart {
            sources: input.sources.clone(),
            lines: input.lines,
            numbering,
            labels: config.reader.labels.clone(),
            invalid_lines: input.invalid,
            invalid_examples: input
                .invalid_examples
                .iter()
                .map(|line| [line.location.clone(), line.problem.clone()])
                .collect(),
            state_bits: config.state_bits,
            model: config.model.map(ModelPart::new),
            contents: input
                .sources
                .iter()
                .zip(&input.contents)
                .map(|(source, content)| ContentPart::new(source, content))
                .collect(),
            prefixes: input
                .sources
                .iter()
                .zip(&input.prefixes)
                .map(|(source, digests)| PrefixPart::new(source, digests))
                .collect(),
        }),
        cells: 0,
        encoding: String::new(),
        counts_bytes: 0,
        deal_stream: None,
        body_bytes: 0,
    };
    save(file, &header, counts, input.deals.as_ref())
}

/// What the deal-stream tests keep in a run: in full mode the repeated decks come from the
/// tally and the compositions are counted; in marginal mode every deal's fingerprint is kept
/// when the trials are at most [`deal_fingerprint_limit`] (the exact count), else each worker
/// keeps at most its share of the limit and the decks are sampled by value (the report says
/// so).
pub(super) fn deal_stream_options(mode: TallyMode, spec: &SimulationSpec) -> DealStreamOptions {
    deal_stream_options_for(mode, spec.deck, spec.trials, spec.threads)
}

/// The deal-stream options of a run whose own share is `own_trials` shuffles (a shard's, or
/// all of them), decided together with the other runs on this host ([`memory_share`]): the
/// fingerprint limit counts what they have reserved and not yet taken, and this run's planned
/// peak (its tally, and its own fingerprints) is reserved in turn, until the returned
/// reservation is dropped at the end of the run. A large run, or one whose fingerprints do
/// not fit, says on stderr when others have reserved memory before it.
pub(super) fn plan_memory(
    spec: &SimulationSpec,
    mode: TallyMode,
    deal_tests: bool,
    own_trials: u64,
) -> (Option<DealStreamOptions>, Option<Reservation>) {
    let mut others = memory_share::Outstanding::default();
    let (deals, reservation) = memory_share::decide_and_reserve(|| {
        others = memory_share::outstanding();
        let deals = deal_tests.then(|| deal_stream_options(mode, spec));
        let fingerprints = match &deals {
            // Each worker keeps at most `limit`.
            Some(DealStreamOptions {
                repeats: RepeatSource::Fingerprints { limit },
                ..
            }) => own_trials
                .min(limit.saturating_mul(spec.threads as u64))
                .saturating_mul(BYTES_PER_DEAL),
            _ => 0,
        };
        let tally = match mode {
            TallyMode::Full => run_memory_bytes(spec.deck, spec.trials, spec.threads),
            TallyMode::Marginal => marginal_memory_bytes(spec.deck, spec.threads),
        };
        (deals, fingerprints.saturating_add(tally))
    });
    let sampled = matches!(
        deals,
        Some(DealStreamOptions {
            repeats: RepeatSource::Fingerprints { limit },
            ..
        }) if own_trials > limit
    );
    if others.runs > 0 && (reservation.is_some() || sampled) {
        stderr_line!(
            "note: {} other run{} on this host reserved {} MB {} not taken yet; this run's \
             memory is sized from what is left",
            others.runs,
            if others.runs == 1 { "" } else { "s" },
            group(others.bytes.div_ceil(1_000_000)),
            if others.runs == 1 {
                "it has"
            } else {
                "they have"
            },
        );
    }
    (deals, reservation)
}

/// Fingerprint memory above which a run says so before it starts.
const FINGERPRINT_WARNING_BYTES: u64 = 256 << 20;

/// Warn, before a run of `shuffles` on `threads` workers starts, when the repeated-decks test
/// will keep more than [`FINGERPRINT_WARNING_BYTES`] of fingerprints (16 bytes a shuffle in
/// marginal mode), and when it will sample the decks because they pass its limit: the memory
/// grows with the run and nothing else would say so until the end. (Shards on one host each
/// keep their own, and share the host's memory through [`plan_memory`].)
pub(super) fn warn_of_fingerprint_memory(
    options: Option<&DealStreamOptions>,
    shuffles: u64,
    threads: usize,
) {
    let Some(DealStreamOptions {
        repeats: RepeatSource::Fingerprints { limit },
        ..
    }) = options
    else {
        return;
    };
    if shuffles > *limit {
        // Distinct decks (any fair shuffle's) halve at each level: the level reached is the
        // smallest s with shuffles·2^−s ≤ limit.
        let level = u64::BITS - (shuffles.div_ceil(*limit).max(1) - 1).leading_zeros();
        let most = limit.saturating_mul(threads as u64);
        stderr_line!(
            "warning: the repeated-decks test keeps at most {} MB of fingerprints ({} shuffles a \
             thread, {BYTES_PER_DEAL} bytes each); beyond that it samples the decks by value: \
             about 1 in {} deck values for these {} shuffles (1 in 2^{level})",
            group(most.saturating_mul(BYTES_PER_DEAL).div_ceil(1_000_000)),
            group(*limit),
            group(1u64 << level.min(63)),
            group(shuffles)
        );
        return;
    }
    let bytes = shuffles.saturating_mul(BYTES_PER_DEAL);
    if bytes > FINGERPRINT_WARNING_BYTES {
        stderr_line!(
            "warning: the repeated-decks test keeps {BYTES_PER_DEAL} bytes a shuffle: {} MB \
             for these {} shuffles, held to the end of the run; --no-deal-tests leaves it \
             out",
            group(bytes.div_ceil(1_000_000)),
            group(shuffles)
        );
    }
}

/// [`deal_stream_options`] of a run of `trials` shuffles of `deck` cards on `threads` workers.
/// Up to the limit, each worker may keep the whole limit (the run's deals cannot pass it:
/// every deal's fingerprint is kept, as before sampling); beyond, each keeps a share, so that
/// they keep at most the limit together, and the whole stream's sample is capped at a share
/// too (the level reached must not depend on how the blocks fell to the workers: see
/// `engine::deal_stream::repeats`).
fn deal_stream_options_for(
    mode: TallyMode,
    deck: usize,
    trials: u64,
    threads: usize,
) -> DealStreamOptions {
    let repeats = match mode {
        TallyMode::Full => RepeatSource::FullTally,
        TallyMode::Marginal => {
            let limit = deal_fingerprint_limit();
            RepeatSource::Fingerprints {
                limit: if trials <= limit {
                    limit
                } else {
                    (limit / threads.max(1) as u64).max(1)
                },
            }
        }
    };
    DealStreamOptions {
        deck,
        dealt: deck,
        repeats,
        compositions: mode == TallyMode::Full,
    }
}
