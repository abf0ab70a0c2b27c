//! `check`'s config, in named steps: the labels, the card names and the deal (`--cards`,
//! `--deal`, `--game`), the sources (and the files they must not share with the outputs), the
//! tally mode, and the model the input is tested against.

use std::path::PathBuf;

use super::simulation::deal_fingerprint_limit;
use super::{
    OutputConfig, UsageError, check_alpha, check_listed_orderings, check_max_paths, check_shuffle,
    output_config,
};
use crate::cli::{CheckAgainst, CheckArgs, Game, Hypothesis, ModeChoice};
use crate::engine::algorithms::Shuffle;
use crate::engine::marginal::MAX_MARGINAL_DECK;
use crate::engine::permutation::MAX_FULL_DECK;
use crate::engine::tally::TallyMode;
use crate::input::cards::CardNames;
use crate::input::permutation_reader::{DealsRequest, InputSource, ReaderOptions};
use crate::input::producer::{MAX_COPIES, ProducerCommand, SEED_VARIABLE};
use crate::output::files::{FileError, Target, check_inputs, check_outputs, same_file, stdin_file};
use crate::output::{CsvTable, Format};
use crate::theory::poker::{HAND, STANDARD_DECK};

/// A validated `check`.
#[derive(Debug, Clone)]
pub struct CheckConfig {
    /// Where to read.
    pub sources: Vec<InputSource>,
    /// `--state-bits`: the input's source's bits of state, if given.
    pub state_bits: Option<u32>,
    /// What to accept.
    pub reader: ReaderOptions,
    /// The hypothesis.
    pub against: CheckAgainst,
    /// With `--against ALGORITHM`: that algorithm as a shuffle (passes, cut probability).
    pub model: Option<Shuffle>,
    /// List every ordering in JSON and CSV whatever the deck.
    pub all_orderings: bool,
    /// Family-wise level.
    pub alpha: f64,
    /// Exact-law budget.
    pub max_paths: u64,
    /// Whether `--max-paths` was given (to say when the exact engine had no use for it).
    pub max_paths_given: bool,
    /// `--until-decided`: stop as soon as the sequential test decides.
    pub until_decided: bool,
    /// `--max-bias SIZE`: the equivalence gate.
    pub max_bias: Option<crate::analysis::ruled_out::BiasSize>,
    /// `--explain`: add the diagnosis of which bug the tally looks like.
    pub explain: bool,
    /// No progress display.
    pub quiet: bool,
    /// Output.
    pub output: OutputConfig,
    /// `--save-tally FILE`: where to save the tally as well.
    pub save_tally: Option<PathBuf>,
    /// `--exec COMMAND`: the command whose standard output is read, and its seed.
    pub exec: Option<ExecConfig>,
    /// `--single`: the input is one permutation, judged on its own.
    pub single: bool,
}

/// The command of `--exec COMMAND` or `-- PROGRAM ARGS…`, its seed and how many copies run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecConfig {
    /// The command, for the shell or started directly.
    pub command: ProducerCommand,
    /// `--seed`, else a random one below 2^53 (exact in JSON); copy i gets `seed + i`.
    pub seed: u64,
    /// `--threads`: copies run side by side (1 by default).
    pub copies: usize,
}

impl CheckConfig {
    /// Validate `check`'s flags, in the order their errors are reported: the deck, the labels,
    /// the sources, the outputs, the mode (with the table it allows), the model, the level and
    /// the path budget.
    pub fn from_args(args: &CheckArgs) -> Result<Self, UsageError> {
        let largest = match args.mode {
            ModeChoice::Full => MAX_FULL_DECK,
            ModeChoice::Auto | ModeChoice::Marginal => MAX_MARGINAL_DECK,
        };
        if args.deal.is_some() && args.mode != ModeChoice::Auto {
            return Err(UsageError::conflict(
                "--mode",
                format!("{:?}", args.mode).to_lowercase(),
                "deals are tallied by slot, neither full nor marginal; drop --mode",
            ));
        }
        check_deck(args.deck, args.mode, largest)?;
        let labels = match &args.labels {
            None => None,
            Some(text) => Some(labels(text, args.deck, largest)?),
        };
        check_cards(args)?;
        let known_deck = labels
            .as_ref()
            .map(Vec::len)
            .or(args.cards.map(CardNames::deck))
            .or(args.deck);
        check_deal(args, known_deck)?;
        let command = match (&args.exec, args.program.is_empty()) {
            (Some(line), _) => Some(ProducerCommand::Shell(line.clone())),
            (None, false) => Some(ProducerCommand::Program(args.program.clone())),
            (None, true) => None,
        };
        for (flag, given) in [
            ("--seed", args.seed.is_some()),
            ("--threads", args.threads.is_some()),
        ] {
            if given && command.is_none() {
                return Err(UsageError::Conflict {
                    flag,
                    value: None,
                    hint: "check reads permutations already made; the seed and the copies are \
                           for a command it starts: --exec COMMAND or -- PROGRAM ARGS…"
                        .to_string(),
                });
            }
        }
        let copies = args.threads.unwrap_or(1);
        if !(1..=MAX_COPIES).contains(&copies) {
            return Err(UsageError::out_of_range(
                "--threads",
                copies,
                format!("run 1 to {MAX_COPIES} copies of the command"),
            ));
        }
        let exec = command.map(|command| ExecConfig {
            command,
            seed: args.seed.unwrap_or_else(super::random_seed),
            copies,
        });
        let sources = match &exec {
            Some(exec) if exec.copies > 1 => vec![InputSource::Command(format!(
                "`{}` ×{} ({SEED_VARIABLE}={}..{})",
                exec.command.display(),
                exec.copies,
                exec.seed,
                exec.seed.wrapping_add(exec.copies as u64 - 1)
            ))],
            Some(exec) => vec![InputSource::Command(format!(
                "`{}` ({SEED_VARIABLE}={})",
                exec.command.display(),
                exec.seed
            ))],
            None => sources(&args.files)?,
        };
        let output = output_config(&args.output, Some(&args.verdict))?;
        check_files(&sources, &output, args.save_tally.as_deref())?;
        if args.deal.is_some() && args.sequential.until_decided {
            return Err(UsageError::Conflict {
                flag: "--until-decided",
                value: None,
                hint: "the sequential test reads whole decks; drop --until-decided with --deal"
                    .to_string(),
            });
        }
        // Whether every ordering is tallied is known only from the input's deck size: a total
        // variation size is refused with --deal here, and on a larger deck after reading.
        super::run::check_max_bias(
            args.gate.max_bias,
            !matches!(check_against(args)?, CheckAgainst::Uniform),
            args.deal.is_none(),
        )?;
        if args.sequential.until_decided && args.save_tally.is_some() {
            return Err(UsageError::Conflict {
                flag: "--until-decided",
                value: None,
                hint: "a sequential check stops at a line not known in advance, and a saved \
                       tally of that early stop would be judged by merge as a fixed sample, \
                       which it is not; drop --until-decided, or --save-tally"
                    .to_string(),
            });
        }
        if args.deal.is_some() && args.save_tally.is_some() {
            return Err(UsageError::Conflict {
                flag: "--save-tally",
                value: None,
                hint: "a tally file holds orderings or marginals, not dealt hands; drop \
                       --save-tally with --deal"
                    .to_string(),
            });
        }
        if args.single && args.against != Hypothesis::Uniform {
            return Err(UsageError::Conflict {
                flag: "--single",
                value: None,
                hint: "one permutation is judged against a uniform shuffle; drop --against"
                    .to_string(),
            });
        }
        if args.single && args.mode == ModeChoice::Full {
            return Err(UsageError::conflict(
                "--mode",
                "full",
                "--single reads one permutation, whose orderings are not tallied; drop --mode",
            ));
        }
        let (mode, marginal_if_large) = match args.deal {
            // A deal tally is neither mode's; the reader is told the deck (up to 1000 cards).
            Some(_) => (TallyMode::Marginal, false),
            // One permutation is read back from its position matrix.
            None if args.single => (TallyMode::Marginal, false),
            None => mode(args.mode, known_deck),
        };
        check_table(args, mode, marginal_if_large)?;
        if let Some(deck) = known_deck
            && args.deal.is_none()
        {
            check_listed_orderings(&args.output, deck, args.all_orderings)?;
        }
        let model = model(args)?;
        if args.state_bits == Some(0) {
            return Err(UsageError::out_of_range(
                "--state-bits",
                0,
                "a source has at least 1 bit of state (e.g. --state-bits 32 for a 32-bit seed)",
            ));
        }
        if args.trials == Some(0) {
            return Err(UsageError::out_of_range(
                "--trials",
                0,
                "check stops after --trials permutations, and at least one is needed to judge \
                 (e.g. --trials 1M, or leave it out to read the whole input)",
            ));
        }
        Ok(CheckConfig {
            sources,
            state_bits: args.state_bits,
            reader: ReaderOptions {
                deck: args.deck,
                labels,
                skip_invalid: args.skip_invalid,
                mode,
                marginal_if_large,
                deal: args.deal,
                cards: args.cards,
                poker: args.game == Some(Game::Poker),
                deals: (!args.no_deal_tests && !args.single).then(|| DealsRequest {
                    fingerprint_limit: deal_fingerprint_limit(),
                    thread: true,
                }),
                limit: args.trials,
                digest: args.save_tally.is_some(),
            },
            against: check_against(args)?,
            model,
            all_orderings: args.all_orderings,
            alpha: check_alpha(args.alpha)?,
            max_paths: check_max_paths(args.max_paths)?,
            max_paths_given: args.max_paths.is_some(),
            until_decided: args.sequential.until_decided,
            max_bias: args.gate.max_bias,
            explain: args.explain,
            quiet: args.quiet,
            output,
            save_tally: args.save_tally.clone(),
            exec,
            single: args.single,
        })
    }
}

/// `--deck`, if given: 2 to `largest` cards for the mode asked for.
fn check_deck(deck: Option<usize>, mode: ModeChoice, largest: usize) -> Result<(), UsageError> {
    match deck {
        Some(deck) if !(2..=largest).contains(&deck) => Err(UsageError::out_of_range(
            "--deck",
            deck,
            if mode == ModeChoice::Full {
                format!(
                    "--mode full tallies all n! orderings, which is possible for 2 to \
                     {MAX_FULL_DECK} cards; use --mode marginal for up to {MAX_MARGINAL_DECK}"
                )
            } else {
                format!("decks of 2 to {MAX_MARGINAL_DECK} cards can be checked")
            },
        )),
        _ => Ok(()),
    }
}

/// `--labels A,K,Q,J,10`: 2 to `largest` distinct, non-empty labels, as many as `--deck`
/// says if it is given.
fn labels(text: &str, deck: Option<usize>, largest: usize) -> Result<Vec<String>, UsageError> {
    let labels: Vec<String> = text.split(',').map(|l| l.trim().to_string()).collect();
    if labels.iter().any(String::is_empty) {
        return Err(UsageError::malformed(
            "--labels",
            text,
            "a label is empty; write them like A,K,Q,J,10",
        ));
    }
    if !(2..=largest).contains(&labels.len()) {
        return Err(UsageError::out_of_range(
            "--labels",
            text,
            format!(
                "{} label{} given; give 2 to {largest}",
                labels.len(),
                if labels.len() == 1 { "" } else { "s" }
            ),
        ));
    }
    if let Some(repeated) = labels
        .iter()
        .enumerate()
        .find(|(i, l)| labels[..*i].contains(l))
        .map(|(_, l)| l)
    {
        return Err(UsageError::malformed(
            "--labels",
            text,
            format!("the label '{repeated}' is given twice; labels must be distinct"),
        ));
    }
    if let Some(deck) = deck
        && deck != labels.len()
    {
        return Err(UsageError::DeckAndLabels {
            deck,
            labels: labels.len(),
        });
    }
    Ok(labels)
}

/// The sources of the FILE arguments: stdin when there are none, `-` for stdin at most once.
fn sources(files: &[PathBuf]) -> Result<Vec<InputSource>, UsageError> {
    let sources = if files.is_empty() {
        vec![InputSource::Stdin]
    } else {
        files
            .iter()
            .map(|path| {
                if path.as_os_str() == "-" {
                    InputSource::Stdin
                } else {
                    InputSource::File(path.clone())
                }
            })
            .collect()
    };
    if sources.iter().filter(|s| **s == InputSource::Stdin).count() > 1 {
        return Err(UsageError::Repeated {
            argument: "FILE",
            hint: "`-` (stdin) can be given only once".to_string(),
        });
    }
    Ok(sources)
}

/// No input file twice, and no output that is an input (stdin's file included, when stdin is
/// redirected from one).
fn check_files(
    sources: &[InputSource],
    output: &OutputConfig,
    save_tally: Option<&std::path::Path>,
) -> Result<(), UsageError> {
    let mut input_files: Vec<PathBuf> = sources
        .iter()
        .filter_map(|source| match source {
            InputSource::File(path) => Some(path.clone()),
            InputSource::Stdin | InputSource::Command(_) => None,
        })
        .collect();
    check_inputs(&input_files)?;
    if sources.contains(&InputSource::Stdin)
        && let Some(stdin) = stdin_file()
    {
        // `check f.txt - < f.txt` would count f.txt twice.
        if let Some(file) = input_files.iter().find(|file| same_file(&stdin, file)) {
            return Err(FileError::InputTwice {
                first: file.clone(),
                again: PathBuf::from("- (standard input, redirected from it)"),
            }
            .into());
        }
        input_files.push(stdin);
    }
    let save_tally = save_tally.map(Target::from_path);
    if save_tally == Some(Target::Stdout) {
        return Err(UsageError::malformed(
            "--save-tally",
            "-",
            "a tally is binary and goes to a file; name one (e.g. --save-tally day1.tally)",
        ));
    }
    let mut outputs = output.targets();
    outputs.extend(save_tally.as_ref().map(|target| ("--save-tally", target)));
    check_outputs(&outputs, &input_files)?;
    Ok(())
}

/// The tally mode, and whether the reader is to switch to marginal once the first permutation
/// shows a deck too large for full mode. Auto is full up to 11 cards, marginal above; when the
/// deck size is only known from the first permutation, the reader decides then.
fn mode(choice: ModeChoice, known_deck: Option<usize>) -> (TallyMode, bool) {
    match choice {
        ModeChoice::Full => (TallyMode::Full, false),
        ModeChoice::Marginal => (TallyMode::Marginal, false),
        ModeChoice::Auto => match known_deck {
            Some(n) if n > MAX_FULL_DECK => (TallyMode::Marginal, false),
            Some(_) => (TallyMode::Full, false),
            None => (TallyMode::Full, true),
        },
    }
}

/// `--cards standard`: the 52 standard cards, so no `--labels` beside it and no other deck.
fn check_cards(args: &CheckArgs) -> Result<(), UsageError> {
    let Some(names) = args.cards else {
        return Ok(());
    };
    if args.labels.is_some() {
        return Err(UsageError::conflict(
            "--cards",
            names.name(),
            "the cards are named either by --labels or by --cards; drop one",
        ));
    }
    match args.deck {
        Some(deck) if deck != names.deck() => Err(UsageError::conflict(
            "--deck",
            deck,
            format!(
                "--cards {} names {} cards; drop --deck or give --deck {}",
                names.name(),
                names.deck(),
                names.deck()
            ),
        )),
        _ => Ok(()),
    }
}

/// `--deal K` and `--game`: a deal of 1 to n cards from a deck the flags give (it cannot be
/// read off a line of K cards), no `--mode`, no picture; poker hands are five of the 52
/// standard cards, tested against a uniform deal.
fn check_deal(args: &CheckArgs, known_deck: Option<usize>) -> Result<(), UsageError> {
    if let Some(game) = args.game {
        let Game::Poker = game;
        if args.deal != Some(HAND) {
            return Err(UsageError::conflict(
                "--game",
                "poker",
                match args.deal {
                    None => "poker hands are dealt hands of five cards: add --deal 5".to_string(),
                    Some(k) => format!(
                        "poker hands are five cards, not {k}: use --deal 5 (or drop --game)"
                    ),
                },
            ));
        }
        if args.labels.is_some() || known_deck != Some(STANDARD_DECK) {
            return Err(UsageError::conflict(
                "--game",
                "poker",
                "poker hands are drawn from the 52 standard cards: give --cards standard, or \
                 --deck 52 with cards numbered 0..51 (or 1..52) in the standard order A♠ 2♠ … \
                 K♠ A♥ … K♥ A♦ … K♦ A♣ … K♣",
            ));
        }
        if let CheckAgainst::Algorithm(algorithm) = check_against(args)? {
            return Err(UsageError::conflict(
                "--against",
                algorithm.name(),
                "the poker categories are tested against a uniform deal, whose exact counts are \
                 known; no exact law of an algorithm is known at 52 cards: drop --against",
            ));
        }
    }
    let Some(deal) = args.deal else {
        return Ok(());
    };
    let Some(deck) = known_deck else {
        return Err(UsageError::conflict(
            "--deal",
            deal,
            "a line of a deal does not show the size of the deck: give --deck N (or --cards \
             standard, or --labels)",
        ));
    };
    if !(1..=deck).contains(&deal) {
        return Err(UsageError::out_of_range(
            "--deal",
            deal,
            format!("a deal holds 1 to {deck} cards of a deck of {deck}"),
        ));
    }
    if let Some(plot) = &args.output.plot {
        return Err(UsageError::conflict(
            "--plot",
            plot.display(),
            "deal reports have no picture; drop --plot (the slot matrix is in --format json and \
             csv --table positions)",
        ));
    }
    Ok(())
}

/// The CSV table must be one the mode tallies.
fn check_table(
    args: &CheckArgs,
    mode: TallyMode,
    marginal_if_large: bool,
) -> Result<(), UsageError> {
    if args.output.format != Format::Csv {
        return Ok(());
    }
    if args.single {
        return match args.output.table {
            Some(table) if table != CsvTable::Tests => Err(UsageError::conflict(
                "--table",
                table.name(),
                "--single judges one permutation, and its CSV is the table of its tests; drop \
                 --table or write --table tests",
            )),
            _ => Ok(()),
        };
    }
    let table = args.output.table.unwrap_or_default();
    if table == CsvTable::Hands && args.game.is_none() {
        return Err(UsageError::conflict(
            "--table",
            "hands",
            "the hands table lists poker hand categories; add --deal 5 --game poker",
        ));
    }
    if args.deal.is_some() {
        return match table {
            CsvTable::Permutations | CsvTable::Statistics => Err(UsageError::conflict(
                "--table",
                table.name(),
                "a deal report tallies slots, not orderings or permutation statistics; use \
                 --table summary, tests, positions (the slot matrix) or hands (--game poker)",
            )),
            _ => Ok(()),
        };
    }
    if mode == TallyMode::Marginal && table == CsvTable::Permutations {
        return Err(UsageError::conflict(
            "--table",
            "permutations",
            "marginal mode does not tally orderings; use --table summary, tests, positions or \
             statistics",
        ));
    }
    if mode == TallyMode::Full && !marginal_if_large && table == CsvTable::Statistics {
        return Err(UsageError::conflict(
            "--table",
            "statistics",
            "the permutation statistics are tallied in marginal mode; add --mode marginal",
        ));
    }
    Ok(())
}

/// `--against`: uniform or an algorithm, in the vocabulary `run` shares; `model` (`run`'s
/// name for the algorithm it runs) has no algorithm to stand for here.
fn check_against(args: &CheckArgs) -> Result<CheckAgainst, UsageError> {
    match args.against {
        Hypothesis::Uniform => Ok(CheckAgainst::Uniform),
        Hypothesis::Algorithm(algorithm) => Ok(CheckAgainst::Algorithm(algorithm)),
        Hypothesis::OwnAlgorithm => Err(UsageError::conflict(
            "--against",
            "model",
            "`check` reads permutations made by a program it does not know; name the \
             algorithm whose law they should follow (e.g. --against fisher-yates; see \
             `shuffle-bias list`)",
        )),
    }
}

/// With `--against ALGORITHM`, that algorithm as a shuffle; with `--against uniform`, no
/// `--passes`, `--cut-probability` or `--shelves`, which belong to an algorithm.
fn model(args: &CheckArgs) -> Result<Option<Shuffle>, UsageError> {
    match check_against(args)? {
        CheckAgainst::Algorithm(algorithm) => Ok(Some(check_shuffle(
            algorithm,
            args.passes.unwrap_or(1),
            args.cut_probability,
            args.shelves,
        )?)),
        CheckAgainst::Uniform => {
            if let Some(passes) = args.passes {
                return Err(UsageError::conflict(
                    "--passes",
                    passes,
                    "passes belong to an algorithm; give one with --against ALGORITHM, or drop \
                     --passes",
                ));
            }
            if let Some(p) = args.cut_probability {
                return Err(UsageError::conflict(
                    "--cut-probability",
                    p,
                    "only the overhand shuffle cuts with a probability; use it with --against \
                     overhand, or drop it",
                ));
            }
            if let Some(m) = args.shelves {
                return Err(UsageError::conflict(
                    "--shelves",
                    m,
                    "only the shelf shuffler has shelves; use it with --against shelf, or drop it",
                ));
            }
            Ok(None)
        }
    }
}
