//! `shuffle-bias check` reads what programs print: Python's `print(deck)`,
//! `print(json.dumps(deck))` and `print(tuple(deck))`, NumPy 2's scalars and `repr` of an array,
//! Python's `array`, Node's `console.log(deck)` (over several lines for a long deck) of an array
//! or a typed array and `JSON.stringify(deck)`, R's `print(deck)`, labels in either quotes. The
//! fixtures in
//! `fixtures/check/formats/` are exactly what those programs printed (`make.sh` there wrote them;
//! each file's first lines give its command), each beside a twin written `print(*deck)` or
//! `deck.join(" ")`: both must read to the same report. A mix of formats, an unreadable line and
//! a file of only unreadable lines say where, what was expected and how to print it.

mod common;

use predicates::prelude::*;
use serde_json::Value;

fn fixture(name: &str) -> String {
    format!(
        "{}/fixtures/check/formats/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// The JSON report of `check --format json ARGS`, which must exit 0 or 1.
fn check_json(args: &[&str]) -> Value {
    let output = common::shuffle_bias()
        .args(["check", "--quiet", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The report without what depends on how the input was written or on the clock.
fn counts_only(mut report: Value) -> Value {
    let object = report.as_object_mut().unwrap();
    for key in ["input", "elapsed_seconds", "shuffles_per_second"] {
        object.remove(key);
    }
    report
}

/// Read `printed` and its twin `plain` (with `args`): the format of `printed` is `format`, the
/// twin's `plain`, and the reports agree on everything else.
fn reads_like_its_plain_twin(printed: &str, plain: &str, args: &[&str], format: &str) {
    let mut printed_args = vec![printed];
    printed_args.extend_from_slice(args);
    let mut plain_args = vec![plain];
    plain_args.extend_from_slice(args);
    let printed_report = check_json(&printed_args);
    let plain_report = check_json(&plain_args);
    assert_eq!(printed_report["input"]["format"], format, "{printed}");
    assert_eq!(plain_report["input"]["format"], "plain", "{plain}");
    assert_eq!(
        printed_report["input"]["permutations"],
        plain_report["input"]["permutations"]
    );
    assert_eq!(
        counts_only(printed_report),
        counts_only(plain_report),
        "{printed}"
    );
}

#[test]
fn python_print_of_a_list_reads_as_print_star_deck() {
    let plain = fixture("python-print-plain.txt");
    reads_like_its_plain_twin(&fixture("python-print.txt"), &plain, &[], "brackets");
    reads_like_its_plain_twin(&fixture("python-json-dumps.txt"), &plain, &[], "brackets");
}

#[test]
fn python_lists_of_quoted_labels_and_escaped_suits_read_as_plain_labels() {
    reads_like_its_plain_twin(
        &fixture("python-print-labels.txt"),
        &fixture("python-print-labels-plain.txt"),
        &["--labels", "As,Kd,Qh,10c"],
        "quoted-brackets",
    );
}

#[test]
fn python_json_dumps_of_suit_symbols_reads_its_unicode_escapes() {
    reads_like_its_plain_twin(
        &fixture("python-json-dumps-suits.txt"),
        &fixture("python-print-suits-plain.txt"),
        &["--labels", "A♠,K♥,Q♦,10♣"],
        "quoted-brackets",
    );
}

#[test]
fn node_console_log_and_json_stringify_read_as_join() {
    let plain = fixture("node-log-plain.txt");
    reads_like_its_plain_twin(&fixture("node-log.txt"), &plain, &[], "brackets");
    reads_like_its_plain_twin(&fixture("node-json-stringify.txt"), &plain, &[], "brackets");
}

#[test]
fn node_console_log_of_labels_reads_its_single_quotes() {
    let report = check_json(&[&fixture("node-log-labels.txt"), "--labels", "As,Kd,Qh,10c"]);
    assert_eq!(report["input"]["format"], "quoted-brackets");
    assert_eq!(report["input"]["numbering"], "labels");
    assert_eq!(report["trials"], 240);
}

#[test]
fn node_console_log_of_a_52_card_deck_over_several_lines_is_one_permutation() {
    reads_like_its_plain_twin(
        &fixture("node-log-52.txt"),
        &fixture("node-log-52-plain.txt"),
        &[],
        "brackets",
    );
    let report = check_json(&[&fixture("node-log-52.txt")]);
    assert_eq!(report["deck"], 52);
    assert_eq!(report["trials"], 40);
}

#[test]
fn the_table_states_the_format_of_the_lines() {
    // Markdown: the title is the table's, on one line.
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--format",
            "markdown",
            &fixture("python-print.txt"),
        ])
        .assert()
        .stdout(predicate::str::contains(
            "240 permutations of 4 cards (cards 0..n-1, lists in brackets) from",
        ));
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--format",
            "markdown",
            &fixture("python-print-plain.txt"),
        ])
        .assert()
        .stdout(predicate::str::contains("(cards 0..n-1, plain lines) from"));
}

#[test]
fn a_plain_line_after_a_list_is_an_error_naming_both_lines() {
    common::shuffle_bias()
        .args(["check", "-"])
        .write_stdin("[3, 0, 1, 2]\n[0, 1, 2, 3]\n0 1 2 3\n")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "<stdin>:3: this line is a plain line but <stdin>:1 was a list in brackets; a mix \
             of formats is an error",
        ));
    common::shuffle_bias()
        .args(["check", "-"])
        .write_stdin("0 1 2 3\n[3, 0, 1, 2]\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "<stdin>:2: this line is a list in brackets but <stdin>:1 was a plain line",
        ));
    common::shuffle_bias()
        .args(["check", "--labels", "A,B,C", "-"])
        .write_stdin("['A', 'B', 'C']\n[A, B, C]\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "<stdin>:2: this line is a list in brackets but <stdin>:1 was a list of quoted labels",
        ));
}

#[test]
fn an_unreadable_line_is_shown_with_the_format_expected_and_how_to_print_one() {
    // Regression: `[1` was "not a card number" and the error suggested --labels.
    common::shuffle_bias()
        .args(["check", "-"])
        .write_stdin("deck: 3 0 1 2\n")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(
                "<stdin>:1: 'deck:' is not a card number (use integers, or give --labels for \
                 named cards); the line is 'deck: 3 0 1 2'; expected one permutation per line",
            )
            .and(predicate::str::contains(
                "or a list in brackets (`[3, 0, 1, 2]`",
            ))
            .and(predicate::str::contains("print(*deck)"))
            .and(predicate::str::contains("print(json.dumps(deck))"))
            .and(predicate::str::contains("console.log(deck.join(\" \"))"))
            .and(predicate::str::contains("JSON.stringify(deck)"))
            .and(predicate::str::contains("--skip-invalid").not()),
        );
    // After valid lines, an unreadable one may be a stray line: --skip-invalid is offered.
    common::shuffle_bias()
        .args(["check", "-"])
        .write_stdin("0 1 2\n2 1 0\nDone.\n")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("<stdin>:3: 'Done.' is not a card number").and(
                predicate::str::contains(
                    "expected plain numbers or labels (`3 0 1 2`, `3,0,1,2`) as on <stdin>:1",
                )
                .and(predicate::str::contains(
                    "pass --skip-invalid to count and skip them",
                )),
            ),
        );
    // Once a line has fixed the format, that format is the one expected.
    common::shuffle_bias()
        .args(["check", "-"])
        .write_stdin("[3, 0, 1, 2]\n[3, 0, 1\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "<stdin>:2: the list in brackets has no closing ']' before the end of <stdin>; the \
             line is '[3, 0, 1'; expected a list in brackets (`[3, 0, 1, 2]`) as on <stdin>:1",
        ));
}

#[test]
fn skip_invalid_with_every_line_rejected_keeps_the_first_reason() {
    // Regression: "all 3 non-blank lines were rejected" said no more.
    common::shuffle_bias()
        .args(["check", "--skip-invalid", "-"])
        .write_stdin("{3, 0, 1, 2}\n{0, 1, 2, 3}\n{1, 0, 2, 3}\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no valid permutation: all 3 non-blank lines were rejected; the first: <stdin>:1: \
             '{3' is not a card number (use integers, or give --labels for named cards); the \
             line is '{3, 0, 1, 2}'; expected one permutation per line",
        ));
}

#[test]
fn a_shortened_node_array_is_refused_with_how_to_print_it_whole() {
    let deck: Vec<String> = (0..100).map(|card| card.to_string()).collect();
    let printed = format!("[\n  {},\n  ... 20 more items\n]\n", deck.join(", "));
    common::shuffle_bias()
        .args(["check", "--deck", "120", "-"])
        .write_stdin(printed)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("<stdin>:1: the list was shortened ('...')")
                .and(predicate::str::contains("the line is '[ 0, 1, 2, 3,")),
        );
}

#[test]
fn python_tuples_numpy_scalars_and_arrays_read_as_print_star_deck() {
    let plain = fixture("python-print-plain.txt");
    for printed in [
        "python-tuple.txt",
        "numpy-scalars.txt",
        "numpy-repr.txt",
        "python-array.txt",
    ] {
        reads_like_its_plain_twin(&fixture(printed), &plain, &[], "brackets");
    }
    reads_like_its_plain_twin(
        &fixture("numpy-scalars-labels.txt"),
        &fixture("python-print-labels-plain.txt"),
        &["--labels", "As,Kd,Qh,10c"],
        "quoted-brackets",
    );
}

#[test]
fn numpy_repr_of_a_long_array_over_several_lines_is_one_permutation() {
    // 52 cards over four lines; 15 cards of dtype int8, whose dtype NumPy prints on a line of
    // its own.
    for (printed, plain, decks) in [
        ("numpy-repr-52.txt", "python-print-52-plain.txt", 240),
        ("numpy-repr-15.txt", "python-print-15-plain.txt", 240),
    ] {
        reads_like_its_plain_twin(&fixture(printed), &fixture(plain), &[], "brackets");
        assert_eq!(check_json(&[&fixture(printed)])["trials"], decks);
    }
}

#[test]
fn node_typed_arrays_read_as_join_even_over_several_lines() {
    let plain = fixture("node-log-plain.txt");
    reads_like_its_plain_twin(&fixture("node-typed.txt"), &plain, &[], "brackets");
    reads_like_its_plain_twin(&fixture("node-typed-bigint.txt"), &plain, &[], "brackets");
    reads_like_its_plain_twin(
        &fixture("node-typed-52.txt"),
        &fixture("node-log-52-plain.txt"),
        &[],
        "brackets",
    );
}

#[test]
fn r_print_of_a_vector_reads_as_its_cards_even_wrapped_over_lines() {
    // R numbers the cards 1..n: the same decks as Python's 0..n-1.
    reads_like_its_plain_twin(
        &fixture("r-print.txt"),
        &fixture("python-print-plain.txt"),
        &[],
        "brackets",
    );
    reads_like_its_plain_twin(
        &fixture("r-print-52.txt"),
        &fixture("python-print-52-plain.txt"),
        &[],
        "brackets",
    );
    let report = check_json(&[&fixture("r-print-52.txt")]);
    assert_eq!(report["input"]["numbering"], "one-based");
    assert_eq!(report["trials"], 240);
}

#[test]
fn a_wrapper_read_loosely_or_mixed_with_another_is_an_error_naming_the_line() {
    for (input, message) in [
        (
            "(3, 0, 1, 2)\n[3, 0, 1, 2]\n",
            "<stdin>:2: this line is a list in brackets but <stdin>:1 was a Python tuple; a mix \
             of formats is an error",
        ),
        (
            "[foo(3), foo(0), foo(1), foo(2)]\n",
            "<stdin>:1: 'foo(3)' is not a card number",
        ),
        (
            "[np.int64(3), np.int64(0), np.int64(1), np.int64(2]\n",
            "<stdin>:1: the NumPy scalar 'np.int64(2' has no closing ')'",
        ),
        ("(3, 0, 1, 2]\n", "<stdin>:1: the tuple has no closing ')'"),
        (
            "Uint8Array(5) [ 3, 0, 1, 2 ]\n",
            "<stdin>:1: Uint8Array(5) holds 4 items: print the whole array",
        ),
        (
            "[1] 1 2\n[4] 3\n",
            "<stdin>:1: a line of the R vector starts at [4] after 2 items, not [3]",
        ),
    ] {
        common::shuffle_bias()
            .args(["check", "-"])
            .write_stdin(input)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicate::str::contains(message));
    }
}

/// A Python producer of `copies` copies printing 4-card decks of `random.Random(seed)` the way
/// `print_deck` (Python code over `deck`) does.
fn producer_counts(print_deck: &str) -> Value {
    let script = format!(
        "import os, random\n\
         r = random.Random(int(os.environ['SHUFFLE_BIAS_SEED']))\n\
         deck = list(range(4))\n\
         for _ in range(3000):\n    r.shuffle(deck)\n    {print_deck}\n"
    );
    let report = check_json(&[
        "--seed",
        "5",
        "--threads",
        "2",
        "--",
        "python3",
        "-c",
        &script,
    ]);
    assert_eq!(report["input"]["copies"], 2);
    assert_eq!(report["input"]["invalid_lines"], 0, "{report}");
    assert_eq!(report["trials"], 6000, "{report}");
    report["permutations"].clone()
}

/// `check --threads 2 -- PROGRAM`: two copies printing each deck over two lines, as R prints a
/// vector wider than its `width` (`[1] 4 1` / `[3] 3 2`) or NumPy the `dtype=` of an array
/// that does not fit; 1024 lines end inside a deck whenever the copy's batch does not wait for
/// its end. The counts are those of the same decks printed plainly.
#[test]
fn copies_printing_r_vectors_or_numpy_arrays_over_two_lines_are_read_whole() {
    let plain = producer_counts("print(*deck)");
    // A comment line first, so that the batches' 1024 lines fall inside a deck.
    for wrapped in [
        "print('# R') if _ == 0 else None; print('[1]', deck[0] + 1, deck[1] + 1); \
         print('[3]', deck[2] + 1, deck[3] + 1)",
        "print('# NumPy') if _ == 0 else None; print(f'array({deck},'); \
         print('      dtype=int8)')",
    ] {
        assert_eq!(producer_counts(wrapped), plain, "{wrapped}");
    }
}
