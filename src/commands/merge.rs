//! `merge FILE...`: add tallies saved by `run --save-tally` (the shards of one run) or by
//! `check --save-tally` (the inputs of one source) and publish the report a single run or
//! check of everything would have given: the same counts, tests, verdict and exit code.
//!
//! Before any count is read, every header is checked: one experiment (the settings listed by
//! [`TallyHeader::settings`] are equal), no shard overlapping another, no input read twice, no
//! block missing and no file cut short (unless `--allow-partial`). Then the exact law is
//! computed (as `run` does before simulating), and the files are added one at a time, each
//! checked against its CRC-32 as it streams in; their deal-stream accumulators are added too
//! ([`DealStreamMerger`]: the seams between shards paired, the fingerprints pooled), so the
//! merged report has the single run's deal-stream tests. `elapsed_seconds` of the report is the
//! sum of the files' own times (machine time, not wall time), `threads` the largest of theirs,
//! and `merged` lists every file (its shard, or its inputs and their lines) with the merge's
//! own wall time; the table says so in words.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{Counted, Failure, Interruption, OnTerminal, open_output, publish};
use crate::config::{MAX_TRIALS, MergeConfig};
use crate::config::{check_listed_orderings_of, deal_fingerprint_limit};
use crate::engine::deal_stream::{DealStreamMerger, DealStreamOptions, RepeatSource};
use crate::engine::shard::{Combined, block_count, combine, describe_blocks, shard_blocks};
use crate::engine::tally::TallyMode;
use crate::commands::exit_code::ExitCode;
use crate::input::content_digest::{ContentDigest, PREFIX_LENGTHS};
use crate::input::permutation_reader::{INVALID_EXAMPLES, InvalidLine, Numbering};
use crate::input::source_name::printable;
use crate::system::interrupt;
use crate::judge::{check_theory, judge, run_theory};
use crate::output::progress::Progress;
use crate::output::{CsvTable, Format};
use crate::report::notes::{Note, Warning};
use crate::report::run::{Against, InputSummary, MergedFile, MergedFrom, Origin, RunFacts};
use crate::report::text::group;
use crate::tally_file::{
    CheckPart, ContentPart, PrefixPart, TallyFileError, TallyHeader, add_counts_split, open_tally, read_header, read_tally_into,
    splittable,
};

/// Tally files a merge holds open at once (their counts are read together, each thread its own
/// range of cells in every file); more are merged a group at a time.
const OPEN_FILES: usize = 64;

/// Tally files that are not the parts of one experiment, or not all of them.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A setting of the experiment differs.
    #[error(
        "{}: {setting} {value}, but {} has {setting} {first_value}: only the tallies of one \
         experiment can be merged (same command, shuffle, deck, mode, trials, seed and random \
         source); merge these separately",
        .file.display(), .first.display()
    )]
    Mismatch {
        /// The file that differs.
        file: PathBuf,
        /// The setting.
        setting: &'static str,
        /// Its value there.
        value: String,
        /// The first file.
        first: PathBuf,
        /// Its value in the first file.
        first_value: String,
    },
    /// A report setting differs and no flag chooses it.
    #[error(
        "{}: {flag} {value}, but {} has {first_value}; choose the level of the merged report \
         with merge {flag}",
        .file.display(), .first.display()
    )]
    ReportSetting {
        /// The file that differs.
        file: PathBuf,
        /// The flag that would choose it.
        flag: &'static str,
        /// Its value there.
        value: String,
        /// The first file.
        first: PathBuf,
        /// Its value in the first file.
        first_value: String,
    },
    /// Two shards share blocks.
    #[error(
        "{} and {} both cover block{} {blocks}: shards must not overlap (the same shard twice, \
         or shards of different splits); drop one",
        .file.display(), .other.display(), if *.several { "s" } else { "" }
    )]
    Overlap {
        /// One file.
        file: PathBuf,
        /// The other.
        other: PathBuf,
        /// The blocks both cover.
        blocks: String,
        /// Whether that is more than one block.
        several: bool,
    },
    /// Two check tallies read the same input.
    #[error(
        "{} and {} both tallied {input}: it would be counted twice; drop one",
        .file.display(), .other.display()
    )]
    SameInput {
        /// One file.
        file: PathBuf,
        /// The other.
        other: PathBuf,
        /// The input.
        input: String,
    },
    /// The same tally twice (a copy).
    #[error(
        "{} and {} are the same tally (a copy?): it would be counted twice; drop one",
        .file.display(), .other.display()
    )]
    SameTally {
        /// One file.
        file: PathBuf,
        /// The other.
        other: PathBuf,
    },
    /// More shuffles in all than one tally may hold.
    #[error(
        "these files hold {trials} shuffles in all, more than 2^53 = {most}, the most one \
         tally counts exactly; merge fewer files at a time and compare the reports"
    )]
    TooMany {
        /// The files' trials added up (saturating).
        trials: u64,
        /// The most one tally holds.
        most: u64,
    },
    /// `--table statistics` for full tallies.
    #[error(
        "--table statistics: {} holds a full tally; the permutation statistics are tallied in \
         marginal mode (run the shards with --mode marginal), or choose another --table",
        .file.display()
    )]
    NoStatistics {
        /// The first file.
        file: PathBuf,
    },
    /// Blocks missing or files cut short, without `--allow-partial`.
    #[error("{what}; give the missing files, or --allow-partial to report on what is here")]
    Incomplete {
        /// What is missing.
        what: String,
    },
}

/// `merge`.
pub(super) fn merge(config: MergeConfig) -> Result<ExitCode, Failure> {
    let out = open_output(&config.output)?;
    let headers = config
        .files
        .iter()
        .map(|path| read_header(path))
        .collect::<Result<Vec<_>, _>>()?;
    let files = &config.files;
    one_experiment(files, &headers)?;
    // Each header holds at most 2^53 shuffles (read_header); their sum must too, so that no
    // counter can wrap when the files' counts are added (a file's counters add up to its
    // shuffles) and every count in the report stays exact.
    let total = headers
        .iter()
        .fold(0u64, |total, header| total.saturating_add(header.trials));
    if total > MAX_TRIALS {
        return Err(MergeError::TooMany {
            trials: total,
            most: MAX_TRIALS,
        }
        .into());
    }
    let alpha = report_setting(files, &headers, "--alpha", config.alpha, |h| h.alpha)?;
    let max_paths = report_setting(files, &headers, "--max-paths", config.max_paths, |h| {
        h.max_paths
    })?;
    let missing = missing(files, &headers)?;
    if let Some(what) = &missing
        && !config.allow_partial
    {
        return Err(MergeError::Incomplete { what: what.clone() }.into());
    }

    let first = &headers[0];
    let mode = first.tally_mode().expect("read_header checked the mode");
    if mode == TallyMode::Full
        && config.output.format == Format::Csv
        && config.output.table == CsvTable::Statistics
    {
        return Err(MergeError::NoStatistics {
            file: files[0].clone(),
        }
        .into());
    }
    let deck = first.deck;
    // As `run` refuses it before the simulation: before the theory and the reading.
    check_listed_orderings_of(
        config.output.format,
        config.output.table,
        deck,
        config.all_orderings,
    )?;
    let against = if first.against == "model" {
        Against::Model
    } else {
        Against::Uniform
    };
    let elapsed_seconds: f64 = headers.iter().map(|h| h.elapsed_seconds).sum();
    let trials: u64 = headers.iter().map(|h| h.trials).sum();
    let paths = (max_paths, config.max_paths.is_some());
    let named = |problem: String| MergeError::Incomplete {
        what: format!("{}: {problem}", display(&files[0])),
    };
    let (facts, theory) = if let Some(run) = &first.run {
        let shuffle = run.shuffle().map_err(named)?;
        let source = run.source().map_err(named)?;
        let theory = run_theory(
            shuffle,
            deck,
            mode,
            &source,
            against,
            paths,
            &OnTerminal::new(config.quiet),
        )?;
        let facts = RunFacts {
            command: "run",
            shuffle: Some(shuffle),
            origin: Origin::Simulation {
                seed: run.seed,
                source,
                threads: headers
                    .iter()
                    .filter_map(|h| h.run.as_ref().map(|r| r.threads))
                    .max()
                    .unwrap_or(1),
            },
            trials_requested: run.trials,
            elapsed_seconds,
            interrupted: missing.is_some(),
            alpha,
            against,
            all_orderings: config.all_orderings,
        };
        (facts, theory)
    } else {
        let check = first
            .check
            .as_ref()
            .expect("read_header checked the command");
        let model = match &check.model {
            None => None,
            Some(model) => Some(model.shuffle().map_err(named)?),
        };
        let theory = check_theory(mode, deck, model, paths, &OnTerminal::new(config.quiet))?;
        let parts: Vec<_> = headers.iter().filter_map(|h| h.check.as_ref()).collect();
        let facts = RunFacts {
            command: "check",
            shuffle: model,
            origin: Origin::Input(InputSummary {
                sources: parts
                    .iter()
                    .flat_map(|c| c.sources.iter().map(|s| printable(s)))
                    .collect(),
                lines: parts.iter().map(|c| c.lines).sum(),
                permutations: trials,
                numbering: numbering(&check.numbering),
                format: None,
                command: None,
                seed: None,
                copies: None,
                labels: check.labels.clone(),
                invalid_lines: parts.iter().map(|c| c.invalid_lines).sum(),
                invalid_examples: parts
                    .iter()
                    .flat_map(|c| c.invalid_examples.iter())
                    .take(INVALID_EXAMPLES)
                    .map(|[location, problem]| InvalidLine {
                        location: printable(location),
                        problem: printable(problem),
                    })
                    .collect(),
                state_bits: check.state_bits,
            }),
            trials_requested: trials,
            elapsed_seconds,
            interrupted: missing.is_some(),
            alpha,
            against,
            all_orderings: config.all_orderings,
        };
        (facts, theory)
    };

    // The deal-stream tests, when every file kept the stream: the options the single run (or
    // check) would have used, the parts added file by file, the seams between shards paired.
    let stream_kept = headers.iter().all(|h| h.deal_stream.is_some());
    let mut merger = stream_kept.then(|| {
        let part = first
            .deal_stream
            .as_ref()
            .expect("every file kept the stream");
        // What the saving process decided, so that the report says what the single run's
        // says; fingerprints are pooled up to this machine's limit.
        let repeats = match (part.repeats.as_str(), part.repeats_limit) {
            ("from-tally", _) => RepeatSource::FullTally,
            ("fingerprints", _) => RepeatSource::Fingerprints {
                limit: deal_fingerprint_limit(),
            },
            ("memory", Some(limit)) => RepeatSource::TooMany { limit },
            _ => RepeatSource::Off,
        };
        let options = DealStreamOptions {
            deck,
            dealt: part.dealt,
            repeats,
            compositions: part.compositions,
        };
        DealStreamMerger::new(options)
    });

    // The merge's own time: the total's allocation (and first touch) too.
    let reading = Instant::now();
    // Large full tallies of fixed-width words are read by every thread at once, each thread
    // its own range of cells in every file (`add_counts_split`), a group of files at a time so
    // that the open files stay few; the others (varints, marginal tallies) one file at a time.
    let split = headers.iter().any(splittable);
    let mut counts = if split {
        Counted::empty_unpopulated(mode, deck)
    } else {
        Counted::empty(mode, deck)
    };
    let progress = Progress::new(files.len() as u64, "tally files", config.quiet);
    let interrupted = |progress: &Progress| {
        progress.finish();
        Err(Failure::Interrupted(Interruption::Merge))
    };
    let entries: Vec<(&PathBuf, &TallyHeader)> = files.iter().zip(&headers).collect();
    let mut done = 0u64;
    for (index, group) in entries.chunks(OPEN_FILES).enumerate() {
        if interrupt::requested() {
            return interrupted(&progress);
        }
        let mut opened = group
            .iter()
            .filter(|(_, header)| splittable(header))
            .map(|(path, header)| open_tally(path, header))
            .collect::<Result<Vec<_>, _>>()?;
        let sums = if opened.is_empty() {
            Vec::new()
        } else {
            let total = counts
                .full_counters_mut()
                .expect("split files are full tallies");
            match add_counts_split(
                &mut opened,
                total,
                index == 0,
                config.threads,
                interrupt::flag(),
            )? {
                Some(sums) => sums,
                None => return interrupted(&progress),
            }
        };
        let mut split_files = opened.into_iter().zip(sums);
        for &(path, header) in group {
            if interrupt::requested() {
                return interrupted(&progress);
            }
            let budget = merger
                .as_ref()
                .and_then(DealStreamMerger::fingerprint_budget);
            let deals = if splittable(header) {
                let (open, sum) = split_files.next().expect("one per split file");
                open.finish(&[sum], &mut counts, budget)?
            } else {
                read_tally_into(path, header, &mut counts, budget)?
            };
            if let (Some(merger), Some(deals)) = (&mut merger, deals) {
                merger
                    .add(deals)
                    .map_err(|problem| TallyFileError::BadCounts {
                        path: path.clone(),
                        problem,
                    })?;
            }
            done += 1;
            progress.set(done);
        }
    }
    progress.finish();
    let merge_seconds = reading.elapsed().as_secs_f64();
    if !config.quiet {
        let bytes: u64 = files
            .iter()
            .filter_map(|path| std::fs::metadata(path).ok())
            .map(|m| m.len())
            .sum();
        stderr_line!(
            "merged {} tally file{}: {} {} ({} bytes read in {merge_seconds:.2} s)",
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            group(trials),
            if first.run.is_some() {
                "shuffles"
            } else {
                "permutations"
            },
            group(bytes),
        );
    }

    let deals = merger.map(DealStreamMerger::finish);
    let merged_from = MergedFrom {
        files: files
            .iter()
            .zip(&headers)
            .map(|(path, header)| MergedFile {
                file: display(path),
                trials: header.trials,
                elapsed_seconds: header.elapsed_seconds,
                shard: header.run.as_ref().map(|run| run.shard),
                threads: header.run.as_ref().map(|run| run.threads),
                sources: header
                    .check
                    .as_ref()
                    .map(|check| check.sources.iter().map(|s| printable(s)).collect()),
                lines: header.check.as_ref().map(|check| check.lines),
                interrupted: header.interrupted,
            })
            .collect(),
        merge_seconds,
    };
    let mut report = judge(&facts, counts.into(), theory, deals, None, config.max_bias)?;
    report.header.merged = Some(merged_from);
    if !stream_kept {
        report.notes.push(Note::NoDealStream);
    }
    if let Some(what) = missing {
        report.warnings.push(Warning::PartialMerge {
            covered: trials,
            asked: facts.trials_requested,
            missing: what,
        });
    }
    let code = publish(&config.output, &report, out)?;
    if interrupt::requested() && code != ExitCode::Interrupted {
        // Ctrl-C after the last file was added, while the report was built or written.
        stderr_line!("shuffle-bias: interrupted after the last file; the report is of every file");
        return Ok(ExitCode::Interrupted);
    }
    Ok(code)
}

/// Check that the files are the parts of one experiment: equal settings, no copy of a file,
/// no input of `check` in two files, no block of `run` in two shards. Each check looks at each
/// file once (a map of what was seen), so that thousands of files are checked at once.
fn one_experiment(files: &[PathBuf], headers: &[TallyHeader]) -> Result<(), MergeError> {
    let first = &headers[0];
    for (path, header) in files.iter().zip(headers).skip(1) {
        if let Some(mismatch) = first.mismatch(header) {
            return Err(MergeError::Mismatch {
                file: path.clone(),
                setting: mismatch.setting,
                value: mismatch.second,
                first: files[0].clone(),
                first_value: mismatch.first,
            });
        }
    }
    // Equal headers are equal as JSON text (the fields in one order).
    let mut tallies: HashMap<String, usize> = HashMap::with_capacity(headers.len());
    for (i, header) in headers.iter().enumerate() {
        let text = serde_json::to_string(header).unwrap_or_default();
        if let Some(&j) = tallies.get(&text) {
            return Err(MergeError::SameTally {
                file: files[j].clone(),
                other: files[i].clone(),
            });
        }
        tallies.insert(text, i);
    }
    if first.check.is_some() {
        same_input(files, headers)?;
    }
    Ok(())
}

/// No input of `check` tallied in two files. An input is what it holds, not what it was
/// called: `fair.txt`, `./fair.txt`, a symlink, a copy or a pipe of the same bytes are one
/// input, and two files that share a name are two. Two inputs read to their ends are one when
/// their sizes and digests are; any two are when they begin with the same bytes (the largest
/// prefix both records reach, from 4 to 64 KiB), which catches a source read in part
/// (`--trials`, Ctrl-C) and one that grew between two reads. Inputs too short for a prefix and
/// not both read to their end, and those of files from earlier builds, are compared by name,
/// standard input excepted. An empty input adds nothing and is never counted twice.
fn same_input(files: &[PathBuf], headers: &[TallyHeader]) -> Result<(), MergeError> {
    let mut seen: Vec<RecordedInput> = Vec::new();
    for (i, header) in headers.iter().enumerate() {
        let Some(check) = &header.check else {
            continue;
        };
        let inputs = RecordedInput::of(i, check);
        for input in &inputs {
            if let Some(earlier) = seen.iter().find_map(|earlier| {
                earlier
                    .shared_with(input)
                    .map(|shared| (earlier.file, shared))
            }) {
                return Err(MergeError::SameInput {
                    file: files[earlier.0].clone(),
                    other: files[i].clone(),
                    input: earlier.1,
                });
            }
        }
        seen.extend(inputs);
    }
    Ok(())
}

/// One input of `check` as its tally file recorded it.
struct RecordedInput<'a> {
    /// The tally file's place among the files merged.
    file: usize,
    /// Its name as given.
    name: &'a str,
    /// Its size and digest, when it was read to its end.
    content: Option<ContentDigest>,
    /// The digests of its first 4, 8, … KiB, as far as it was read.
    prefixes: Vec<u128>,
}

impl<'a> RecordedInput<'a> {
    /// The inputs that file `file` tallied, empty ones left out. A file that records prefixes
    /// records one for every source it opened, so the sources after those were never read.
    fn of(file: usize, check: &'a CheckPart) -> Vec<RecordedInput<'a>> {
        let opened = if check.prefixes.is_empty() {
            check.sources.len()
        } else {
            check.prefixes.len()
        };
        check
            .sources
            .iter()
            .take(opened)
            .enumerate()
            .map(|(s, name)| RecordedInput {
                file,
                name,
                content: check.contents.get(s).and_then(ContentPart::content),
                prefixes: check.prefixes.get(s).map_or_else(Vec::new, PrefixPart::digests),
            })
            .filter(|input| input.content.is_none_or(|content| content.bytes > 0))
            .collect()
    }

    /// What `self` and `other`, of another file, have in common in words, or None if they are
    /// two inputs.
    fn shared_with(&self, other: &RecordedInput) -> Option<String> {
        if self.file == other.file {
            return None;
        }
        if let (Some(content), Some(theirs)) = (self.content, other.content)
            && content == theirs
        {
            return Some(if self.name == other.name {
                printable(self.name)
            } else {
                format!(
                    "the same data ({} and {}, both {} bytes with digest {})",
                    printable(self.name),
                    printable(other.name),
                    group(content.bytes),
                    content.hex()
                )
            });
        }
        let reached = self.prefixes.len().min(other.prefixes.len());
        if reached > 0 {
            if self.prefixes[reached - 1] != other.prefixes[reached - 1] {
                return None;
            }
            let bytes = group(PREFIX_LENGTHS[reached - 1]);
            return Some(if self.name == other.name {
                format!("the same first {bytes} bytes of {}", printable(self.name))
            } else {
                format!(
                    "the same first {bytes} bytes ({} and {} begin alike)",
                    printable(self.name),
                    printable(other.name)
                )
            });
        }
        let both_whole = self.content.is_some() && other.content.is_some();
        (!both_whole && self.name == other.name && self.name != "<stdin>")
            .then(|| printable(self.name))
    }
}

/// A report setting: the flag's value if given, else the files' own, which must agree.
fn report_setting<T: PartialEq + ToString + Copy>(
    files: &[PathBuf],
    headers: &[TallyHeader],
    flag: &'static str,
    given: Option<T>,
    of: impl Fn(&TallyHeader) -> T,
) -> Result<T, MergeError> {
    if let Some(value) = given {
        return Ok(value);
    }
    let first = of(&headers[0]);
    for (path, header) in files.iter().zip(headers).skip(1) {
        if of(header) != first {
            return Err(MergeError::ReportSetting {
                file: path.clone(),
                flag,
                value: of(header).to_string(),
                first: files[0].clone(),
                first_value: first.to_string(),
            });
        }
    }
    Ok(first)
}

/// What the files do not cover, in words, or None when they cover the whole experiment; an
/// error when two shards overlap.
fn missing(files: &[PathBuf], headers: &[TallyHeader]) -> Result<Option<String>, MergeError> {
    let cut_short: Vec<String> = files
        .iter()
        .zip(headers)
        .filter(|(_, h)| h.interrupted)
        .map(|(path, _)| display(path))
        .collect();
    let mut parts = Vec::new();
    if let Some(run) = &headers[0].run {
        let coverages: Vec<_> = headers
            .iter()
            .filter_map(|h| h.run.as_ref().map(|r| r.coverage()))
            .collect();
        let blocks = block_count(run.trials);
        let combined = combine(blocks, &coverages.iter().collect::<Vec<_>>()).map_err(|o| {
            MergeError::Overlap {
                file: files[o.first].clone(),
                other: files[o.second].clone(),
                blocks: describe_blocks(&o.blocks),
                several: o.blocks.end - o.blocks.start > 1,
            }
        })?;
        if !combined.missing.is_empty() {
            parts.push(missing_blocks(&combined, headers, blocks, run.trials));
        }
    }
    if !cut_short.is_empty() {
        parts.push(format!(
            "{} {} cut short by Ctrl-C (marked partial)",
            cut_short.join(", "),
            if cut_short.len() == 1 { "was" } else { "were" }
        ));
    }
    Ok((!parts.is_empty()).then(|| parts.join("; ")))
}

/// The blocks no file covers, with the shards that hold them when every file is a shard of
/// one split.
fn missing_blocks(
    combined: &Combined,
    headers: &[TallyHeader],
    blocks: u64,
    trials: u64,
) -> String {
    let ranges: Vec<String> = combined.missing.iter().map(describe_blocks).collect();
    let missing_count: u64 = combined.missing.iter().map(|r| r.end - r.start).sum();
    let mut text = format!(
        "block{} {} of the run's {blocks} {} missing",
        if missing_count == 1 { "" } else { "s" },
        listed(&ranges),
        if missing_count == 1 { "is" } else { "are" }
    );
    let counts: Vec<u64> = headers
        .iter()
        .filter_map(|h| h.run.as_ref().map(|r| r.shard[1]))
        .collect();
    if let Some(&count) = counts.first()
        && counts.iter().all(|&c| c == count)
    {
        text.push_str(&shards_missing(&combined.missing, trials, count));
    }
    text
}

/// ` (shards 0–2/4, 7/8)`: the shards of a split into `count` that hold the `missing` block
/// ranges (sorted), consecutive ones as one range. Both lists are sorted, so one walk along
/// them finds every shard that meets a gap.
fn shards_missing(missing: &[std::ops::Range<u64>], trials: u64, count: u64) -> String {
    {
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut gaps = missing.iter().peekable();
        for i in 0..count {
            let range = shard_blocks(trials, i, count);
            while gaps.next_if(|gap| gap.end <= range.start).is_some() {}
            if gaps
                .peek()
                .is_some_and(|gap| gap.start < range.end && range.start < gap.end)
            {
                match runs.last_mut() {
                    Some((_, last)) if *last + 1 == i => *last = i,
                    _ => runs.push((i, i)),
                }
            }
        }
        let shards: Vec<String> = runs
            .iter()
            .map(|&(first, last)| {
                if first == last {
                    format!("{first}/{count}")
                } else {
                    format!("{first}–{last}/{count}")
                }
            })
            .collect();
        let missing_shards: u64 = runs.iter().map(|(first, last)| last - first + 1).sum();
        format!(
            " (shard{} {})",
            if missing_shards == 1 { "" } else { "s" },
            listed(&shards)
        )
    }
}

/// Items of a message joined with commas, the first [`LISTED`] of them and then how many more:
/// a warning stays a few lines long however many shards are missing.
fn listed(items: &[String]) -> String {
    if items.len() <= LISTED {
        return items.join(", ");
    }
    format!(
        "{} and {} more",
        items[..LISTED].join(", "),
        group((items.len() - LISTED) as u64)
    )
}

/// Items a message lists before it counts the rest.
const LISTED: usize = 8;

/// How the cards were written, from its name in a header.
fn numbering(name: &str) -> Numbering {
    match name {
        "one-based" => Numbering::OneBased,
        "labels" => Numbering::Labels,
        _ => Numbering::ZeroBased,
    }
}

/// A file's name as the report shows it (control characters escaped).
fn display(path: &Path) -> String {
    printable(&path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::random_source::BLOCK_TRIALS;

    #[test]
    fn the_missing_shards_of_a_large_split_are_listed_as_ranges_in_a_few_words() {
        // 2,000 shards of one block each; every odd shard from 1 to 1,749 and shards
        // 1,750–1,999 are missing: 875 ranges (1,749 runs on into 1,750–1,999), of which 8
        // are listed.
        let trials = 2_000 * BLOCK_TRIALS;
        let mut missing: Vec<std::ops::Range<u64>> =
            (1..1_750).step_by(2).map(|i| i..i + 1).collect();
        missing.push(1_750..2_000);
        let text = shards_missing(&missing, trials, 2_000);
        assert!(
            text.starts_with(" (shards 1/2000, 3/2000, 5/2000,"),
            "{text}"
        );
        assert!(text.ends_with(" and 867 more)"), "{text}");
        assert!(text.len() < 200, "{text}");
        let gap = [std::ops::Range {
            start: 1_750,
            end: 2_000,
        }];
        let tail = shards_missing(&gap, trials, 2_000);
        assert_eq!(tail, " (shards 1750–1999/2000)");
        let one = [std::ops::Range { start: 3, end: 4 }];
        assert_eq!(shards_missing(&one, trials, 2_000), " (shard 3/2000)");
    }
}
