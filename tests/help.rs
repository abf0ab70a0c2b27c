//! The help teaches: flags under headings with the common ones first, one paragraph under `-h`
//! and the detail under `--help`, and an Examples block ending every help, each example a
//! real command that this file runs; and the mistakes the help used to lead into stay fixed.

mod common;

use std::path::Path;
use std::process::Command;

use clap::{CommandFactory, Parser};
use common::shuffle_bias;
use predicates::prelude::*;
use shuffle_bias::cli::Cli;

/// The subcommands, without clap's `help`.
fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .filter(|name| name != "help")
        .collect()
}

/// The help `args` print (e.g. `["run", "--help"]`), at a fixed width.
fn help(args: &[&str]) -> String {
    let output = shuffle_bias()
        .args(args)
        .env("COLUMNS", "100")
        .output()
        .unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The examples that end a help: the lines under `Examples…:` up to a blank line, a line
/// ending in `\` joined to the next.
fn examples(help: &str) -> Vec<String> {
    let mut examples = Vec::new();
    let mut lines = help
        .lines()
        .skip_while(|line| !line.starts_with("Examples"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty());
    while let Some(line) = lines.next() {
        let mut example = line.trim().to_string();
        while let Some(start) = example.strip_suffix('\\') {
            example = format!("{} {}", start.trim_end(), lines.next().unwrap_or("").trim());
        }
        examples.push(example);
    }
    examples
}

/// Every help the binary prints, as (what, the `--help` text).
fn every_long_help() -> Vec<(String, String)> {
    let mut helps = vec![("shuffle-bias".to_string(), help(&["--help"]))];
    for sub in subcommands() {
        helps.push((sub.clone(), help(&[&sub, "--help"])));
    }
    helps
}

/// Whether `program` can be run here.
fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|output| output.status.success())
}

/// The files the examples name, made in `dir`: permutations of 5 cards (`deals.txt`), the
/// same written with labels (`logs/day-1.txt`), poker hands by card name (`hands.txt`), a
/// Python shuffle (`my_shuffle.py`), and the folders the completion examples write into
/// (`dir` is the examples' HOME).
fn make_fixtures(dir: &Path) {
    let deals = dir.join("deals.txt");
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "5",
            "-t",
            "20k",
            "--seed",
            "1",
            "-q",
        ])
        .arg("--emit-permutations")
        .arg(&deals)
        .arg("-o")
        .arg(dir.join("deals-report.txt"))
        .assert()
        .code(0);
    let labels = ["A", "K", "Q", "J", "10"];
    let labelled: String = std::fs::read_to_string(&deals)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| {
            let cards: Vec<&str> = line
                .split_whitespace()
                .map(|card| labels[card.parse::<usize>().unwrap()])
                .collect();
            format!("{}\n", cards.join(","))
        })
        .collect();
    std::fs::create_dir(dir.join("logs")).unwrap();
    std::fs::write(dir.join("logs/day-1.txt"), labelled).unwrap();
    // Poker hands: the top five cards of decks shuffled by Fisher–Yates on a xorshift64
    // stream (any fair-enough deal serves: the example must run, whatever its verdict).
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % bound as u64) as usize
    };
    let ranks = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ];
    let mut hands = String::new();
    for _ in 0..2000 {
        let mut deck: Vec<usize> = (0..52).collect();
        for i in (1..52).rev() {
            deck.swap(i, next(i + 1));
        }
        let hand: Vec<String> = deck[..5]
            .iter()
            .map(|&card| format!("{}{}", ranks[card % 13], ["s", "h", "d", "c"][card / 13]))
            .collect();
        hands.push_str(&hand.join(" "));
        hands.push('\n');
    }
    std::fs::write(dir.join("hands.txt"), hands).unwrap();
    std::fs::write(
        dir.join("my_shuffle.py"),
        "import os, random\n\
         random.seed(int(os.environ.get('SHUFFLE_BIAS_SEED', '1')))\n\
         for _ in range(20000):\n    \
             deck = list(range(5))\n    \
             random.shuffle(deck)\n    \
             print(*deck)\n",
    )
    .unwrap();
    for folder in [
        ".local/share/bash-completion/completions",
        ".zfunc",
        ".config/fish/completions",
    ] {
        std::fs::create_dir_all(dir.join(folder)).unwrap();
    }
}

/// The programs other than shuffle-bias an example runs, among those a machine may lack.
fn other_programs(example: &str) -> Vec<&'static str> {
    ["python3", "man"]
        .into_iter()
        .filter(|program| {
            example
                .split(['|', '&', ';', '\''])
                .any(|part| part.split_whitespace().next() == Some(program))
        })
        .collect()
}

/// Run `example` with `sh` in `dir` (also its HOME), the binary under test first on PATH. Ok
/// when it ends with a verdict (0 no bias, 1 bias: the examples show both), an error naming
/// the exit code and stderr otherwise. Where a program it needs is missing, each shuffle-bias
/// command in it is parsed by clap instead.
fn run_example(dir: &Path, example: &str) -> Result<(), String> {
    let missing: Vec<&str> = other_programs(example)
        .into_iter()
        .filter(|program| !installed(program))
        .collect();
    if !missing.is_empty() {
        println!("note: {missing:?} not installed; `{example}` is only parsed");
        for part in example.split(['|', ';']).flat_map(|p| p.split("&&")) {
            let words: Vec<String> = part
                .split_whitespace()
                .map(|word| word.trim_matches('\'').replace("$i", "0"))
                .collect();
            if words.first().map(String::as_str) == Some("shuffle-bias") {
                Cli::try_parse_from(&words).map_err(|error| format!("`{example}`: {error}"))?;
            }
        }
        return Ok(());
    }
    let binary = assert_cmd::cargo::cargo_bin("shuffle-bias");
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("sh")
        .args(["-c", &format!("set -e; {example}")])
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", dir)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    match output.status.code() {
        Some(0 | 1) => Ok(()),
        code => Err(format!(
            "`{example}` ended with {code:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

#[test]
fn every_help_ends_with_examples_and_the_short_help_shows_the_same() {
    for (what, long) in every_long_help() {
        let shown = examples(&long);
        assert!(!shown.is_empty(), "{what} --help has no examples:\n{long}");
        let last = long.trim_end().lines().last().unwrap().trim();
        assert!(
            shown.last().unwrap().ends_with(last),
            "{what} --help ends with its examples:\n{long}"
        );
        let args: Vec<&str> = if what == "shuffle-bias" {
            vec!["-h"]
        } else {
            vec![what.as_str(), "-h"]
        };
        assert_eq!(examples(&help(&args)), shown, "{what} -h");
        for example in &shown {
            assert!(
                example.contains("shuffle-bias "),
                "{what}: an example is a shuffle-bias command: {example}"
            );
        }
    }
}

#[test]
fn every_example_in_the_help_runs() {
    let dir = tempfile::tempdir().unwrap();
    make_fixtures(dir.path());
    let mut ran = 0;
    for (_, long) in every_long_help() {
        for example in examples(&long) {
            if let Err(error) = run_example(dir.path(), &example) {
                panic!("{error}");
            }
            ran += 1;
        }
    }
    assert!(ran >= 20, "{ran} examples");
}

#[test]
fn the_example_runner_fails_on_an_example_that_became_invalid() {
    let dir = tempfile::tempdir().unwrap();
    for broken in [
        // A refused value and a refused combination, each an exit 2.
        "shuffle-bias compare fisher-yates --rng mt19937",
        "shuffle-bias compare fisher-yates -n 52",
        "shuffle-bias run naive --no-such-flag",
        "shuffle-bias check missing.txt",
    ] {
        assert!(run_example(dir.path(), broken).is_err(), "{broken}");
    }
    assert!(run_example(dir.path(), "shuffle-bias list").is_ok());
}

#[test]
fn flags_are_grouped_under_headings_with_the_common_ones_first() {
    let order = [
        "The test:",
        "The source:",
        "Output:",
        "Performance:",
        "Advanced:",
    ];
    for sub in ["run", "check", "compare", "merge", "theory"] {
        let text = help(&[sub, "--help"]);
        let positions: Vec<usize> = order
            .iter()
            .filter_map(|heading| text.lines().position(|line| line == *heading))
            .collect();
        assert!(positions.len() >= 3, "{sub}: {text}");
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{sub}: {text}");
    }
    let run = help(&["run", "--help"]);
    for heading in order {
        assert!(run.lines().any(|line| line == heading), "run: {heading}");
    }
    // The deck, under the test, comes before the generator, under the source.
    assert!(run.find("--deck").unwrap() < run.find("--rng").unwrap());
}

#[test]
fn short_help_gives_each_flag_one_paragraph_and_long_help_the_detail() {
    let short = help(&["run", "-h"]);
    let long = help(&["run", "--help"]);
    // Details of --cut-probability and --rng are under --help only.
    for detail in ["Pemantle", "java.util.Random", "Exit codes"] {
        assert!(!short.contains(detail), "-h: {detail}\n{short}");
        assert!(long.contains(detail), "--help: {detail}");
    }
    assert!(short.lines().count() * 2 < long.lines().count());
    // Every long flag of run is in both.
    for arg in Cli::command()
        .find_subcommand("run")
        .unwrap()
        .get_arguments()
    {
        if let Some(flag) = arg.get_long() {
            assert!(short.contains(&format!("--{flag}")), "-h: --{flag}");
        }
    }
}

#[test]
fn defaults_are_written_one_way() {
    for sub in subcommands() {
        let text = help(&[&sub, "--help"]);
        for old in ["Default:", "by default)", "(default "] {
            assert!(!text.contains(old), "{sub}: '{old}' in\n{text}");
        }
    }
    let run = help(&["run", "-h"]);
    for default in [
        "[default: the number of CPUs]",
        "[default: 1e8]",
        "[default: chacha8]",
        "[default: uniform]",
    ] {
        assert!(run.contains(default), "{default}");
    }
}

#[test]
fn short_help_gives_each_flag_one_line() {
    for sub in subcommands() {
        let text = help(&[&sub, "-h"]);
        let options = text
            .lines()
            .skip_while(|line| *line != "Options:")
            .take_while(|line| !line.starts_with("Examples"));
        for line in options {
            assert!(
                line.is_empty() || line.ends_with(':') || line.trim_start().starts_with('-'),
                "{sub} -h: a flag's help wraps at 100 columns: '{line}'\n{text}"
            );
        }
    }
}

#[test]
fn run_help_lists_every_algorithm_generator_and_mapping() {
    let long = help(&["run", "--help"]);
    for sub in ["run", "theory", "compare"] {
        let text = help(&[sub, "--help"]);
        for algorithm in shuffle_bias::engine::algorithms::Algorithm::ALL {
            assert!(
                text.contains(algorithm.name()),
                "{sub}: {}",
                algorithm.name()
            );
        }
    }
    let rng = Cli::command()
        .find_subcommand("run")
        .unwrap()
        .get_arguments()
        .find(|arg| arg.get_long() == Some("rng"))
        .unwrap()
        .get_possible_values();
    assert!(rng.len() >= 13);
    for value in rng {
        assert!(long.contains(value.get_name()), "{}", value.get_name());
    }
    for mapping in shuffle_bias::engine::mapping::Mapping::ALL {
        assert!(long.contains(mapping.name()), "{}", mapping.name());
    }
}

#[test]
fn compare_with_a_deck_too_large_does_not_suggest_a_mode_compare_lacks() {
    shuffle_bias()
        .args(["compare", "fisher-yates", "-n", "52"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("--deck 52")
                .and(predicate::str::contains("`run ALGORITHM --mode marginal`"))
                .and(predicate::str::contains("use --mode marginal").not()),
        );
}

#[test]
fn compare_offers_only_the_generators_it_runs_on() {
    let long = help(&["compare", "--help"]);
    assert!(!long.contains("mt19937"), "{long}");
    shuffle_bias()
        .args(["compare", "fisher-yates", "--rng", "mt19937"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("chacha8, chacha12, chacha20"));
    shuffle_bias()
        .args([
            "compare",
            "fisher-yates",
            "naive",
            "--rng",
            "chacha20",
            "-t",
            "50k",
            "-q",
        ])
        .assert()
        .code(0);
}

#[test]
fn list_offers_no_plot_it_would_refuse() {
    let long = help(&["list", "--help"]);
    assert!(
        !long.contains("--plot") && !long.contains("--table <"),
        "{long}"
    );
    shuffle_bias()
        .args(["list", "--plot", "list.svg"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--plot"));
}

#[test]
fn against_takes_uniform_or_an_algorithm_in_run_and_check_alike() {
    // The algorithm run, by name or by the older `model`: the same report.
    let json = |against: &str| {
        let output = shuffle_bias()
            .args([
                "run", "sattolo", "-n", "4", "-t", "50k", "--seed", "3", "-q",
            ])
            .args(["--against", against, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    let by_name = json("sattolo");
    assert_eq!(by_name["against"], "model");
    assert_eq!(by_name["tests"], json("model")["tests"]);
    // Another algorithm's law: refused, with the command that tests it.
    shuffle_bias()
        .args(["run", "naive", "--against", "sattolo"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("check --against sattolo"));
    // `check` has no algorithm of its own for `model` to name.
    shuffle_bias()
        .args(["check", "--against", "model"])
        .write_stdin("0 1 2\n")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--against model")
                .and(predicate::str::contains("name the algorithm")),
        );
    // Both helps show the one vocabulary.
    for sub in ["run", "check"] {
        assert!(
            help(&[sub, "-h"]).contains("--against <uniform|ALGORITHM>"),
            "{sub}"
        );
    }
}

#[test]
fn check_table_statistics_of_a_full_tally_is_refused_rather_than_a_bare_header() {
    let lines = "0 1 2 3\n1 0 3 2\n3 2 1 0\n2 3 0 1\n".repeat(50);
    shuffle_bias()
        .args(["check", "--format", "csv", "--table", "statistics", "-q"])
        .write_stdin(lines.clone())
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("--table statistics")
                .and(predicate::str::contains("--mode marginal")),
        );
    // In marginal mode the table has rows.
    let output = shuffle_bias()
        .args(["check", "--format", "csv", "--table", "statistics", "-q"])
        .args(["--mode", "marginal"])
        .write_stdin(lines)
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.lines().count() > 1, "{text}");
}

#[test]
fn table_lists_only_the_tables_each_command_writes() {
    let tables = |sub: &str| -> Vec<String> {
        Cli::command()
            .find_subcommand(sub)
            .unwrap()
            .get_arguments()
            .find(|arg| arg.get_long() == Some("table"))
            .unwrap()
            .get_possible_values()
            .iter()
            .map(|value| value.get_name().to_string())
            .collect()
    };
    assert_eq!(tables("compare"), ["summary"]);
    assert_eq!(tables("theory"), ["summary", "permutations", "positions"]);
    assert!(!tables("run").contains(&"hands".to_string()));
    assert!(tables("check").contains(&"hands".to_string()));
    shuffle_bias()
        .args(["compare", "naive", "--format", "csv", "--table", "tests"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("[possible values: summary]"));
}
