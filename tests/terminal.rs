//! What the terminal shows: tables within 80 columns with every number whole, `--brief`'s one
//! line, and `--color` beside NO_COLOR.

mod common;

use common::shuffle_bias;
use predicates::prelude::*;

/// The columns a line takes on a terminal (colour codes take none).
fn shown_width(line: &str) -> usize {
    let mut width = 0;
    let mut in_escape = false;
    for c in line.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => width += 1,
        }
    }
    width
}

#[test]
fn tiny_p_values_are_printed_whole_in_tables_within_80_columns() {
    // 3,000,000 identical decks: p-values near 10^-15,000,000, whose table was just over 80
    // columns wide and had its numbers cut, `10^-1498308` above a lone `6.3`.
    let output = shuffle_bias()
        .args(["check", "--deck", "4", "-q"])
        .env("COLUMNS", "80")
        .write_stdin("0 1 2 3\n".repeat(3_000_000))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    for line in text.lines() {
        assert!(shown_width(line) <= 80, "{line}\n{text}");
    }
    let tiny: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '│' || c == '┆')
        .filter(|word| word.starts_with("10^-"))
        .collect();
    assert!(!tiny.is_empty(), "{text}");
    for number in tiny {
        // Whole: 10^-DIGITS.D (one decimal), as format_p writes it.
        let digits = number
            .trim_start_matches("10^-")
            .trim_end_matches([')', ';', ',']);
        let (whole, decimal) = digits.split_once('.').unwrap_or_else(|| panic!("{number}"));
        assert!(
            whole.len() >= 6 && whole.bytes().all(|b| b.is_ascii_digit()) && decimal.len() == 1,
            "{number} in\n{text}"
        );
    }
    // The column left out to make room is named.
    assert!(text.contains("left out to fit 80 columns: p;"), "{text}");
}

/// The stdout and exit code of `args`.
fn run(args: &[&str], stdin: Option<String>) -> (String, Option<i32>) {
    let mut command = shuffle_bias();
    command.args(args);
    if let Some(stdin) = stdin {
        command.write_stdin(stdin);
    }
    let output = command.output().unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        output.status.code(),
    )
}

#[test]
fn brief_says_verdict_strongest_test_and_what_was_ruled_out_in_one_line() {
    let (fair, code) = run(
        &[
            "run",
            "fisher-yates",
            "-n",
            "4",
            "-t",
            "500k",
            "--seed",
            "7",
            "-q",
            "--brief",
        ],
        None,
    );
    assert_eq!(code, Some(0));
    assert_eq!(fair.lines().count(), 1, "{fair}");
    assert!(fair.starts_with("NO BIAS DETECTED · 500,000 shuffles of 4 cards · strongest test: "));
    assert!(
        fair.contains(" · rules out (99% each): TV distance above "),
        "{fair}"
    );

    let (biased, code) = run(
        &[
            "run", "naive", "-n", "4", "-t", "200k", "--seed", "7", "-q", "--brief",
        ],
        None,
    );
    assert_eq!(code, Some(1));
    assert_eq!(biased.lines().count(), 1, "{biased}");
    assert!(biased.starts_with("BIAS DETECTED · "), "{biased}");
    assert!(
        biased.contains("strongest test: permutations (Holm p 10^-"),
        "{biased}"
    );
    assert!(biased.contains("rejected by "), "{biased}");
    assert!(!biased.contains("guessing game"), "full mode: {biased}");
}

#[test]
fn brief_carries_the_guessing_game_in_marginal_mode() {
    // A shelf shuffler with few shelves leaves long rising and falling runs, which the
    // guessing game's player follows (27.1 cards at this seed). Under a uniform deck the score
    // is a sum of independent Bernoulli(1/k), k = 1..52: mean H_52 = 4.54, variance
    // Σ (1/k)(1 − 1/k) = 4.54 − 1.62 = 2.92, so the mean of 2,000 decks has sd
    // √(2.92/2000) = 0.038, and 10 cards is 140 sd above chance: a line showing it carries the
    // shuffle's own figure, not chance's.
    let (shelf, code) = run(
        &[
            "run",
            "shelf",
            "-n",
            "52",
            "--shelves",
            "2",
            "-t",
            "2000",
            "--seed",
            "7",
            "-q",
            "--brief",
            "--no-deal-tests",
        ],
        None,
    );
    assert_eq!(code, Some(1));
    assert_eq!(shelf.lines().count(), 1, "{shelf}");
    let (_, game) = shelf
        .split_once(" · guessing game: ")
        .expect("the game's clause");
    let (guessed, rest) = game.split_once(" of 52 cards guessed, ").expect("guessed");
    assert_eq!(rest.trim_end(), "4.54 by chance", "{shelf}");
    let guessed: f64 = guessed.parse().unwrap();
    assert!(guessed > 10.0, "{shelf}");
}

#[test]
fn brief_works_for_check_merge_and_compare_with_their_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let deals = dir.path().join("deals.txt");
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "3",
            "-t",
            "600",
            "--seed",
            "5",
            "-q",
        ])
        .arg("--emit-permutations")
        .arg(&deals)
        .arg("-o")
        .arg(dir.path().join("report.txt"))
        .assert()
        .code(0);
    let tally = dir.path().join("day.tally");
    let (check, code) = run(
        &[
            "check",
            deals.to_str().unwrap(),
            "-q",
            "--brief",
            "--save-tally",
            tally.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, Some(0));
    assert_eq!(check.lines().count(), 1, "{check}");
    assert!(
        check.starts_with("NO BIAS DETECTED · 600 permutations of 3 cards"),
        "{check}"
    );

    let (merged, code) = run(&["merge", "-q", "--brief", tally.to_str().unwrap()], None);
    assert_eq!(code, Some(0));
    assert_eq!(merged, check);

    let (compare, code) = run(
        &[
            "compare",
            "fisher-yates",
            "naive",
            "-t",
            "100k",
            "--seed",
            "7",
            "-q",
            "--brief",
        ],
        None,
    );
    assert_eq!(code, Some(0));
    assert_eq!(
        compare,
        "ALL AS EXPECTED · 4 cards, 100,000 shuffles each · fisher-yates fair ✓, naive biased ✓\n"
    );
}

#[test]
fn brief_with_a_format_is_refused() {
    shuffle_bias()
        .args(["run", "naive", "--brief", "--format", "json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--brief").and(predicate::str::contains("--format")));
}

/// The table report of a small biased run, under `--color WHEN` (if given) and NO_COLOR (if
/// set), written to a pipe.
fn coloured(when: Option<&str>, no_color: bool) -> String {
    coloured_run("naive", &[], when, no_color)
}

/// [`coloured`] of a run of `algorithm` with `extra` arguments (`--brief`).
fn coloured_run(algorithm: &str, extra: &[&str], when: Option<&str>, no_color: bool) -> String {
    let mut command = shuffle_bias();
    command.args([
        "run", algorithm, "-n", "3", "-t", "30k", "--seed", "1", "-q",
    ]);
    command.args(extra);
    if let Some(when) = when {
        command.args(["--color", when]);
    }
    if no_color {
        command.env("NO_COLOR", "1");
    }
    String::from_utf8(command.output().unwrap().stdout).unwrap()
}

#[test]
fn color_is_off_in_a_pipe_forced_by_always_and_refused_by_never() {
    let red = "\x1b[1;31mBIAS DETECTED\x1b[0m";
    assert!(
        !coloured(None, false).contains('\x1b'),
        "auto: no colour in a pipe"
    );
    assert!(!coloured(Some("auto"), false).contains('\x1b'));
    assert!(coloured(Some("always"), false).contains(red));
    // A flag on the command line outranks the variable (no-color.org).
    assert!(coloured(Some("always"), true).contains(red));
    assert!(!coloured(Some("never"), false).contains('\x1b'));
    assert!(!coloured(Some("never"), true).contains('\x1b'));
}

#[test]
fn the_brief_line_colours_its_verdict_as_the_table_does() {
    // `--brief --color always` was never coloured.
    let brief = |when, no_color| coloured_run("naive", &["--brief"], when, no_color);
    assert!(brief(Some("always"), false).starts_with("\x1b[1;31mBIAS DETECTED\x1b[0m · 30,000"));
    assert!(brief(Some("always"), true).starts_with("\x1b[1;31mBIAS DETECTED\x1b[0m · "));
    assert!(
        !brief(None, false).contains('\x1b'),
        "auto: no colour in a pipe"
    );
    assert!(!brief(Some("never"), false).contains('\x1b'));
    let fair = coloured_run("fisher-yates", &["--brief"], Some("always"), false);
    assert!(
        fair.starts_with("\x1b[1;32mNO BIAS DETECTED\x1b[0m · "),
        "{fair}"
    );
}

#[test]
fn brief_counts_one_in_the_singular_and_deals_as_deals_of_k_cards() {
    // "1 permutations of 52 cards" was the brief line of one five-card deal.
    let one_deal = "As 2s 3s 4s 5s\n".to_string();
    let two_deals = format!("{one_deal}6s 7s 8s 9s Ts\n");
    let deal = [
        "check", "--deal", "5", "--cards", "standard", "-q", "--brief",
    ];
    let cases: [(&[&str], Option<String>, &str); 5] = [
        (&deal, Some(one_deal), " · 1 deal of 5 cards from 52 · "),
        (&deal, Some(two_deals), " · 2 deals of 5 cards from 52 · "),
        (
            &["check", "-q", "--brief"],
            Some("0 1 2\n".to_string()),
            " · 1 permutation of 3 cards · ",
        ),
        (
            &[
                "run",
                "fisher-yates",
                "-n",
                "3",
                "-t",
                "1",
                "--seed",
                "1",
                "-q",
                "--brief",
            ],
            None,
            " · 1 shuffle of 3 cards · ",
        ),
        (
            &[
                "compare",
                "fisher-yates",
                "-n",
                "3",
                "-t",
                "1",
                "--seed",
                "1",
                "-q",
                "--brief",
            ],
            None,
            " · 3 cards, 1 shuffle each · ",
        ),
    ];
    for (args, stdin, expected) in cases {
        let (line, code) = run(args, stdin);
        assert!(matches!(code, Some(0 | 1)), "{args:?}: exit {code:?}");
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.contains(expected), "{args:?}: {line}");
        assert!(!line.contains("permutations of 52"), "{line}");
    }
    // The table's title and its line of how the reading went say it the same way.
    let (table, _) = run(&["check", "-q"], Some("0 1 2\n".to_string()));
    assert!(
        table.starts_with("shuffle-bias check: 1 permutation of 3 cards"),
        "{table}"
    );
    assert!(table.contains("\n1 line read · "), "{table}");
}

#[test]
fn a_closed_standard_error_never_turns_a_report_into_a_panic() {
    // Standard error is a pipe whose reader is gone before the tool starts, so every warning
    // and message written there fails with EPIPE (`2>&1 | true` in a shell, without the race).
    // The report still goes to its file, the exit code is still the verdict's or the error's,
    // never 101.
    let dir = tempfile::tempdir().unwrap();
    let closed = |args: &[&std::ffi::OsStr]| {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        std::process::Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
            .args(args)
            .env_remove("NO_COLOR")
            .stdout(std::process::Stdio::null())
            .stderr(writer)
            .status()
            .unwrap()
            .code()
    };
    let os = |text: &'static str| std::ffi::OsStr::new(text);
    // 10 shuffles of 4 cards: the too-few-trials warning goes to standard error.
    let report = dir.path().join("r.txt");
    let code = closed(&[
        os("run"),
        os("naive"),
        os("-n"),
        os("4"),
        os("-t"),
        os("10"),
        os("--seed"),
        os("1"),
        os("-o"),
        report.as_os_str(),
    ]);
    assert!(matches!(code, Some(0 | 1)), "{code:?}");
    assert!(std::fs::read_to_string(&report).unwrap().contains("naive"));
    // An error: exit 2 with its message lost, not a panic.
    assert_eq!(
        closed(&[os("run"), os("naive"), os("-n"), os("0")]),
        Some(2)
    );
    assert_eq!(closed(&[os("run"), os("--no-such-flag")]), Some(2));
    // check, whose summary of the input goes to standard error too.
    let decks = dir.path().join("decks.txt");
    std::fs::write(&decks, "0 1 2\n2 1 0\n1 0 2\n").unwrap();
    let checked = dir.path().join("c.txt");
    let code = closed(&[
        os("check"),
        decks.as_os_str(),
        os("-o"),
        checked.as_os_str(),
    ]);
    assert!(matches!(code, Some(0 | 1)), "{code:?}");
    assert!(checked.exists());
}
