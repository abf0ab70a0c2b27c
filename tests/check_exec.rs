//! `shuffle-bias check --exec COMMAND`: the tool starts the program that shuffles, gives it a
//! seed in `SHUFFLE_BIAS_SEED`, reads its standard output, and stops it at `--trials`, when
//! `--until-decided` decides, or at Ctrl-C (exit 130), without the broken pipe that a producer
//! would otherwise complain of; a command that fails is an error (exit 2) showing its exit
//! status and the end of its standard error. Producers are `python3 -c` (Python's own
//! `print(deck)`, as users write them) and `sh -c`.

mod common;

use std::path::PathBuf;
use std::time::Duration;

use predicates::prelude::*;
use serde_json::Value;

/// A Python producer: `count` shuffles (forever when None) of a `deck`-card deck with
/// `random.Random(SHUFFLE_BIAS_SEED)`, each printed with `print(deck)`.
fn python_shuffles(deck: usize, count: Option<u64>) -> String {
    let each = count.map_or("while True".to_string(), |count| {
        format!("for _ in range({count})")
    });
    format!(
        "python3 -c 'import os, random\n\
         r = random.Random(int(os.environ[\"SHUFFLE_BIAS_SEED\"]))\n\
         deck = list(range({deck}))\n\
         {each}:\n    r.shuffle(deck); print(deck)'"
    )
}

/// The JSON report of `check --quiet --format json ARGS`, and the exit code (0 or 1).
fn check_json(args: &[&str]) -> (Value, i32) {
    let output = common::shuffle_bias()
        .args(["check", "--quiet", "--format", "json"])
        .args(args)
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let code = output.status.code().unwrap();
    assert!(
        code == 0 || code == 1,
        "{args:?}: exit {code}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (serde_json::from_slice(&output.stdout).unwrap(), code)
}

/// An empty directory of this test's own, under Cargo's scratch directory for tests.
fn scratch(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("check_exec")
        .join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_python_producer_is_read_to_its_end_and_the_same_seed_repeats_the_counts() {
    let command = python_shuffles(4, Some(2400));
    let (first, _) = check_json(&["--exec", &command, "--seed", "7"]);
    let (again, _) = check_json(&["--exec", &command, "--seed", "7"]);
    let (other, _) = check_json(&["--exec", &command, "--seed", "8"]);
    assert_eq!(first["trials"], 2400);
    assert_eq!(first["input"]["format"], "brackets");
    assert_eq!(first["input"]["command"], command.as_str());
    assert_eq!(first["input"]["seed"], 7);
    assert_eq!(first["permutations"], again["permutations"]);
    assert_ne!(first["permutations"], other["permutations"]);
}

#[test]
fn the_csv_summary_carries_the_seed_the_command_was_given() {
    // The `seed` column was empty for `check --exec`.
    let output = common::shuffle_bias()
        .args([
            "check", "--quiet", "--format", "csv", "--seed", "42", "--exec",
        ])
        .arg("sh -c 'for i in 1 2 3; do echo 0 1 2; echo 2 1 0; done'")
        .timeout(Duration::from_secs(120))
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let seed = rows
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "seed")
        .unwrap();
    let row = rows.records().next().unwrap().unwrap();
    assert_eq!(&row[seed], "42", "{text}");
}

#[test]
fn without_seed_a_random_one_below_2_to_the_53_is_given_and_reported() {
    let (report, _) = check_json(&[
        "--exec",
        "sh -c 'echo \"$SHUFFLE_BIAS_SEED\" >&2; for i in 1 2 3; do echo 0 1 2; echo 2 1 0; done'",
    ]);
    let seed = report["input"]["seed"].as_u64().unwrap();
    assert!(seed < 1 << 53, "{seed}");
    assert_eq!(report["trials"], 6);
    let sources = report["input"]["sources"][0].as_str().unwrap();
    assert!(
        sources.ends_with(&format!("(SHUFFLE_BIAS_SEED={seed})")),
        "{sources}"
    );
}

#[test]
fn trials_stops_an_endless_producer_without_a_broken_pipe() {
    // Regression guard: a producer that gets EPIPE prints a traceback and exits 1, which would
    // be reported as its failure; it is stopped before the pipe closes.
    let (report, _) = check_json(&[
        "--exec",
        &python_shuffles(5, None),
        "--seed",
        "1",
        "--trials",
        "5000",
    ]);
    assert_eq!(report["trials"], 5000);
    assert_eq!(report["interrupted"], false);
}

#[test]
fn trials_also_limits_a_file() {
    let (report, _) = check_json(&[
        &format!(
            "{}/fixtures/check/zero-based.txt",
            env!("CARGO_MANIFEST_DIR")
        ),
        "--trials",
        "3",
    ]);
    assert_eq!(report["trials"], 3);
}

#[test]
fn until_decided_stops_an_endless_biased_producer_with_bias_detected() {
    let (report, code) = check_json(&["--exec", "yes '[0, 1, 2, 3]'", "--until-decided"]);
    assert_eq!(code, 1);
    assert_eq!(report["sequential"]["decided"], true);
}

#[test]
fn a_failing_producer_is_exit_2_with_its_status_and_the_end_of_its_stderr() {
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--exec",
            "echo '0 1 2'; echo '2 1 0'; echo 'Traceback: boom' >&2; exit 3",
        ])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains(
                "--exec: `echo '0 1 2'; echo '2 1 0'; echo 'Traceback: boom' >&2; exit 3` \
                 failed (exit status 3)",
            )
            .and(predicate::str::contains("Traceback: boom")),
        );
}

#[test]
fn a_producer_that_cannot_be_found_is_exit_2_naming_it() {
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--exec",
            "no-such-shuffler-program --deck 4",
        ])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("failed (exit status 127)")
                .and(predicate::str::contains("not found")),
        );
}

#[test]
fn a_producer_that_dies_mid_line_is_reported_as_failed_not_as_a_bad_line() {
    common::shuffle_bias()
        .args([
            "check",
            "--quiet",
            "--exec",
            "printf '0 1 2\\n2 1 0\\n2 1'; kill -SEGV $$",
        ])
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("failed (killed by signal 11)"));
}

#[test]
fn ctrl_c_stops_the_producer_and_exits_130_with_what_was_read() {
    let dir = scratch("ctrl_c");
    let pid_file = dir.join("producer.pid");
    let command = format!(
        "echo $$ > '{}'; while true; do echo 0 1 2 3; echo 3 2 1 0; sleep 0.01; done",
        pid_file.display()
    );
    let output = common::interrupted_after(
        &["check", "--quiet", "--format", "json", "--exec", &command],
        1500,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["interrupted"], true);
    assert!(report["trials"].as_u64().unwrap() > 0);
    // The producer is gone: no process has its id any more.
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let alive = std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!alive.success(), "the producer {pid} still runs");
}

#[test]
fn exec_with_files_or_seed_without_exec_is_refused() {
    common::shuffle_bias()
        .args(["check", "--exec", "true", "decks.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--exec"));
    common::shuffle_bias()
        .args(["check", "--seed", "3", "decks.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--exec"));
}

/// A naive swap in Python: every card swapped with a card drawn from the whole deck.
const PYTHON_NAIVE: &str = "import os, random
r = random.Random(int(os.environ['SHUFFLE_BIAS_SEED']))
deck = list(range(4))
while True:
    for i in range(4):
        j = r.randrange(4)
        deck[i], deck[j] = deck[j], deck[i]
    print(deck)";

/// `check -- PROGRAM ARGS…` starts the program without a shell: the Python source is one
/// argument, quotes, newlines and all. Python's `random.shuffle` passes and the naive swap is
/// caught at 24,000 decks of 4 (its law is far from uniform: the most likely ordering has
/// chance 8/256 against 1/24, a χ² effect that 24,000 decks detect with power ≈ 1 at
/// α = 0.001), each judged from Python's own `print(deck)` lines.
#[test]
fn a_program_after_double_dash_runs_without_a_shell_and_is_judged_right() {
    let fair = "import os, random
r = random.Random(int(os.environ['SHUFFLE_BIAS_SEED']))
deck = list(range(4))
while True:
    r.shuffle(deck); print(deck)";
    let (report, code) = check_json(&["-t", "24k", "--seed", "5", "--", "python3", "-c", fair]);
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["input"]["format"], "brackets");
    assert_eq!(report["input"]["seed"], 5);
    let shown = report["input"]["command"].as_str().unwrap();
    assert!(
        shown.starts_with("python3 -c 'import os, random"),
        "{shown}"
    );
    let (report, code) = check_json(&[
        "-t",
        "24k",
        "--seed",
        "5",
        "--",
        "python3",
        "-c",
        PYTHON_NAIVE,
    ]);
    assert_eq!(code, 1, "{report}");
}

/// `--threads 2`: copy i gets SHUFFLE_BIAS_SEED = seed + i, SHUFFLE_BIAS_COPY = i and
/// SHUFFLE_BIAS_COPIES = 2, and the copies are read 1024 lines each in turn: each copy prints
/// its seed's parity as a deck, so 4096 lines are exactly 2048 of each; and the pooled order
/// depends only on what the copies print, so a seeded run of the naive Python swap in three
/// copies repeats its counts exactly.
#[test]
fn copies_run_side_by_side_with_their_own_seeds_and_repeat_exactly() {
    let script = r#"if [ "$SHUFFLE_BIAS_COPIES" != 2 ] || [ "$((SHUFFLE_BIAS_SEED - 10))" != "$SHUFFLE_BIAS_COPY" ]; then exit 7; fi
if [ "$SHUFFLE_BIAS_COPY" = 0 ]; then yes '0 1 2'; else yes '2 1 0'; fi"#;
    let (report, _) = check_json(&[
        "-t",
        "4096",
        "--seed",
        "10",
        "--threads",
        "2",
        "--",
        "sh",
        "-c",
        script,
    ]);
    assert_eq!(report["input"]["copies"], 2);
    assert_eq!(report["trials"], 4096);
    let count = |ordering: [u64; 3]| {
        report["permutations"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["permutation"] == serde_json::json!(ordering))
            .map_or(0, |row| row["count"].as_u64().unwrap())
    };
    assert_eq!(
        (count([0, 1, 2]), count([2, 1, 0])),
        (2048, 2048),
        "{report}"
    );
    let run = || {
        check_json(&[
            "-t",
            "30k",
            "--seed",
            "3",
            "--threads",
            "3",
            "--",
            "python3",
            "-c",
            PYTHON_NAIVE,
        ])
    };
    let ((first, code), (again, _)) = (run(), run());
    assert_eq!(code, 1);
    assert_eq!(first["permutations"], again["permutations"]);
    assert!(
        first["input"]["sources"][0]
            .as_str()
            .unwrap()
            .ends_with("×3 (SHUFFLE_BIAS_SEED=3..5)")
    );
}

/// Node's `console.log` prints a long array over several lines, and a copy may begin with a
/// byte-order mark: with `--threads 2` the copies' batches end only between decks, so every
/// deck arrives whole and the mark of the second copy is not read as a card. Each copy prints
/// 13-card decks over three lines (`[ 0, 1, 2, 3, 4, 5, 6,` / `7, 8, 9,` / `10, 11, 12 ]`), 3
/// lines a deck, so 1024 lines would end inside one.
#[test]
fn copies_printing_decks_over_several_lines_or_a_byte_order_mark_are_read_whole() {
    let producer = r#"import os, random, sys
r = random.Random(int(os.environ["SHUFFLE_BIAS_SEED"]))
sys.stdout.write("\ufeff")
deck = list(range(13))
for _ in range(3000):
    r.shuffle(deck)
    print("[ " + ", ".join(map(str, deck[:7])) + ",")
    print("  " + ", ".join(map(str, deck[7:10])) + ",")
    print("  " + ", ".join(map(str, deck[10:])) + " ]")"#;
    let (report, _) = check_json(&[
        "--seed",
        "5",
        "--threads",
        "2",
        "--",
        "python3",
        "-c",
        producer,
    ]);
    assert_eq!(report["trials"], 6000, "{report}");
    assert_eq!(report["input"]["invalid_lines"], 0, "{report}");
}

#[test]
fn threads_without_a_command_to_start_is_refused_naming_the_flag() {
    common::shuffle_bias()
        .args(["check", "--threads", "2", "decks.txt"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--threads").and(predicate::str::contains("-- PROGRAM")));
    common::shuffle_bias()
        .args(["check", "--exec", "true", "--", "true"])
        .assert()
        .code(2);
}

/// The producers the guide shows (docs/test-a-shuffle.md) are the files in
/// `examples/producers/`, word for word; the Python one (seeded) and the Node one (V8's
/// `--random_seed` fixes `Math.random`) pass `check` as the README's first screen runs them: both
/// are uniform shuffles, so each passes unless a false alarm of probability at most alpha = 0.001
/// happens, and the seeds fix the outcome. The guide's pytest example is the Python package's,
/// word for word (the package's tests run it).
#[test]
fn the_documented_producers_are_the_example_files_and_pass_as_shown() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let guide = std::fs::read_to_string(root.join("docs/test-a-shuffle.md")).unwrap();
    for (file, fence) in [
        ("shuffle.py", "```python\n"),
        ("shuffle.js", "```js\n"),
        ("shuffle.php", "```php\n"),
        ("Program.cs", "```csharp\n"),
    ] {
        let text = std::fs::read_to_string(root.join("examples/producers").join(file)).unwrap();
        assert!(
            guide.contains(&format!("{fence}{text}```\n")),
            "docs/test-a-shuffle.md does not show examples/producers/{file} as it is"
        );
    }
    for line in [
        "shuffle-bias check -t 100k -- python3 examples/producers/shuffle.py",
        "shuffle-bias check -t 100k -- node examples/producers/shuffle.js",
    ] {
        assert!(
            readme.contains(line),
            "the README's first screen shows `{line}`"
        );
    }
    let package = std::fs::read_to_string(root.join("python/README.md")).unwrap();
    let start = package.find("```python\n").unwrap();
    let end = start + package[start..].find("\n```\n").unwrap();
    assert!(
        guide.contains(&package[start..end + 5]),
        "the pytest example of docs/test-a-shuffle.md differs from python/README.md's"
    );
    let producer = root.join("examples/producers/shuffle.py");
    let (report, code) = check_json(&[
        "-t",
        "100k",
        "--seed",
        "1",
        "--",
        "python3",
        producer.to_str().unwrap(),
    ]);
    assert_eq!(
        (code, report["trials"].as_u64()),
        (0, Some(100_000)),
        "{report}"
    );
    let node = std::process::Command::new("node").arg("--version").output();
    if node.is_ok_and(|output| output.status.success()) {
        let producer = root.join("examples/producers/shuffle.js");
        let (report, code) = check_json(&[
            "-t",
            "100k",
            "--",
            "node",
            "--random_seed=42",
            producer.to_str().unwrap(),
        ]);
        assert_eq!(
            (code, report["input"]["format"].as_str()),
            (0, Some("brackets")),
            "{report}"
        );
    }
}
