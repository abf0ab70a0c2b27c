//! The JSON schema of `--format json` (docs/report.schema.json): the checked-in file is the one
//! generated from the report types (`UPDATE_SCHEMA=1 cargo test --release --test json_schema`
//! rewrites it), and real reports of every kind validate against it — run and check in full,
//! marginal and deal mode, merge, compare, theory, the mixing curve, check --single,
//! `--until-decided` and `--max-bias`.

mod common;

use std::path::Path;

fn schema_file() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.schema.json")
}

#[test]
fn the_checked_in_schema_is_the_one_the_report_types_generate() {
    let generated = shuffle_bias::report::json_schema();
    let path = schema_file();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "docs/report.schema.json is not the schema the report types generate: run \
         `UPDATE_SCHEMA=1 cargo test --release --test json_schema` to regenerate it, and say in \
         CHANGELOG.md what changed in the JSON"
    );
}

/// The JSON report of `shuffle-bias ARGS --format json` (in `dir`), whatever its verdict.
fn report(dir: &Path, args: &[&str]) -> serde_json::Value {
    let output = common::shuffle_bias()
        .current_dir(dir)
        .args(args)
        .args(["--format", "json", "--quiet"])
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1 | 3)),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn real_reports_of_every_kind_validate_against_the_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&shuffle_bias::report::json_schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema is a valid schema");
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    // 520 five-card deals of 52 cards, each 5 distinct cards, for check --deal.
    let deals = dir.path().join("deals.txt");
    let lines: Vec<String> = (0..520)
        .map(|i| {
            let cards: Vec<String> = (0..5).map(|j| ((5 * i + j) % 52).to_string()).collect();
            cards.join(" ")
        })
        .collect();
    std::fs::write(&deals, lines.join("\n") + "\n").unwrap();
    // Two shards of one run, for merge.
    for shard in ["0/2", "1/2"] {
        let file = format!("naive.{}.tally", &shard[..1]);
        common::shuffle_bias()
            .current_dir(dir.path())
            .args(["run", "naive", "-n", "4", "-t", "200k", "--seed", "3"])
            .args(["--shard", shard, "--save-tally", &file, "--quiet"])
            .assert()
            .code(0);
    }
    // One command line a line; FIXTURES is the fixtures folder.
    let cases = "\
        run naive -n 4 -t 24k --seed 1
        run fisher-yates -n 5 -t 24k --seed 1 --all-orderings
        run sattolo -n 4 -t 24k --seed 1 --against model
        run riffle -n 20 -t 2000 --seed 1 --passes 3
        run overhand -n 5 -t 24k --seed 1 --cut-probability 0.25
        run shelf -n 6 -t 24k --seed 1 --shelves 3
        run fisher-yates -n 52 -t 2000 --seed 1 --reseed every-shuffle --seed-bits 16
        run fisher-yates -n 4 -t 24k --seed 1 --no-deal-tests
        run fisher-yates -n 4 -t 200k --seed 1 --max-bias 1pp
        run comparator-timsort -n 4 --seed 1 --until-decided
        run fisher-yates -n 12 -t 5000 --seed 1 --until-decided
        check FIXTURES/check/zero-based.txt
        check FIXTURES/check/labels.txt --labels A,K,Q,J --against naive --state-bits 16
        check deals.txt --deal 5 --deck 52 --game poker
        check --single FIXTURES/single/draft-lottery-1969.txt
        merge naive.0.tally naive.1.tally
        compare fisher-yates naive -n 4 -t 24k --seed 1
        compare --all -n 4 --seed 1 --until-decided
        theory naive -n 4
        theory fisher-yates -n 5 --map modulo --bits 8 --state-bits 32 --max-bias 1pp
        theory riffle -n 8 --passes 1..4
        theory shelf -n 52 --passes 1..2";
    let fixtures = fixtures.to_str().unwrap();
    let mut failures = Vec::new();
    for line in cases.lines() {
        let line = line.trim().replace("FIXTURES", fixtures);
        let args: Vec<&str> = line.split_whitespace().collect();
        let report = report(dir.path(), &args);
        if validator.is_valid(&report) {
            continue;
        }
        // Say why against the report's own kind, not only "none of the kinds".
        let kind = match (
            args[0],
            args.contains(&"--single"),
            args.contains(&"--passes"),
        ) {
            ("compare", ..) => "CompareReport",
            (_, true, _) => "SingleReport",
            ("theory", _, true) => "MixingReport",
            ("theory", ..) => "TheoryReport",
            _ => "RunReport",
        };
        let mut one_kind = schema.clone();
        let root = one_kind.as_object_mut().unwrap();
        root.remove("anyOf");
        root.insert("$ref".into(), format!("#/$defs/{kind}").into());
        let one_kind = jsonschema::validator_for(&one_kind).unwrap();
        for error in one_kind.iter_errors(&report) {
            let mut message = error.to_string();
            message.truncate(300);
            failures.push(format!("{line} at {}: {message}", error.instance_path()));
        }
        if failures.is_empty() {
            failures.push(format!("{line}: no kind of report matches it"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_report_with_a_field_the_schema_does_not_know_fails_it() {
    // The schema of run reports lists every key (no additional properties), so a key added to
    // the JSON but not to the schema is caught by the test above.
    let schema: serde_json::Value =
        serde_json::from_str(&shuffle_bias::report::json_schema()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut report = report(
        dir.path(),
        &["run", "naive", "-n", "3", "-t", "6000", "--seed", "1"],
    );
    assert!(validator.is_valid(&report));
    report["a_new_key"] = serde_json::json!(1);
    assert!(!validator.is_valid(&report));
}
