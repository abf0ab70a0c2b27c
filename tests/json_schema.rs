//! The JSON schema of `--format json` (docs/report.schema.json): the checked-in file is the one
//! generated from the report types (`UPDATE_SCHEMA=1 cargo test --release --test json_schema`
//! rewrites it), and real reports of every kind validate against it — run and check in full,
//! marginal and deal mode, merge, compare, theory, the mixing curve, check --single,
//! `--until-decided`, `--max-bias` and `--explain`.
//!
//! The validator is the small one below, for the keywords the generated schema uses (draft
//! 2020-12: `$ref` into `$defs`, `anyOf`, `oneOf`, `type`, `const`, `properties`, `required`,
//! `additionalProperties`, `items`, `minItems`, `maxItems`, `minimum`, `maximum`; `format`,
//! `title` and `description` are annotations). A schema with any other keyword fails the test
//! rather than pass unchecked. (A validator crate would do, but the one tried switches on
//! serde_json's `float_roundtrip` for every test through feature unification, which changes
//! the last digit of floats that other tests parse.)

use serde_json::Value;

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
        run sattolo -n 5 -t 20k --seed 1 --explain
        run naive -n 20 -t 2000 --seed 1 --explain
        run comparator-timsort -n 4 --seed 1 --until-decided
        run fisher-yates -n 12 -t 5000 --seed 1 --until-decided
        check FIXTURES/check/zero-based.txt
        check FIXTURES/check/zero-based.txt --explain
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
        if errors(&schema, &report).is_empty() {
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
        let why = errors(&one_kind, &report);
        if why.is_empty() {
            failures.push(format!("{line}: no kind of report matches it"));
        }
        failures.extend(why.into_iter().map(|error| format!("{line}: {error}")));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_report_with_a_key_too_many_or_too_few_or_of_the_wrong_type_fails_the_schema() {
    // The run report's schema lists every key (no additional properties) and requires the keys
    // always written, so a key added to the JSON but not to the schema, or one left out, is
    // caught by the test above; so is a value of another type.
    let schema: Value = serde_json::from_str(&shuffle_bias::report::json_schema()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let report = report(
        dir.path(),
        &["run", "naive", "-n", "3", "-t", "6000", "--seed", "1"],
    );
    assert_eq!(errors(&schema, &report), Vec::<String>::new());
    let mut added = report.clone();
    added["a_new_key"] = serde_json::json!(1);
    let mut removed = report.clone();
    removed.as_object_mut().unwrap().remove("verdict");
    let mut retyped = report.clone();
    retyped["trials"] = serde_json::json!("many");
    let mut nested = report;
    nested["tests"][0]["rejected"] = serde_json::json!("yes");
    for wrong in [added, removed, retyped, nested] {
        assert!(!errors(&schema, &wrong).is_empty());
    }
}

/// Why `instance` does not validate against `schema` (the root, whose `$defs` the `$ref`s
/// name): one line per failed keyword, empty when it validates.
fn errors(schema: &Value, instance: &Value) -> Vec<String> {
    let mut found = Vec::new();
    check(schema, schema, instance, "", &mut found);
    found
}

fn check(root: &Value, schema: &Value, instance: &Value, at: &str, found: &mut Vec<String>) {
    let Some(keywords) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            found.push(format!("{at}: no value is allowed here"));
        }
        return;
    };
    for (keyword, value) in keywords {
        match keyword.as_str() {
            "$schema" | "$defs" | "title" | "description" | "format" => {}
            "$ref" => {
                let name = value.as_str().and_then(|r| r.strip_prefix("#/$defs/"));
                let target = name.and_then(|name| root["$defs"].get(name));
                match target {
                    Some(target) => check(root, target, instance, at, found),
                    None => found.push(format!("{at}: unknown $ref {value}")),
                }
            }
            "anyOf" | "oneOf" => {
                let branches = value.as_array().unwrap();
                let matching = branches
                    .iter()
                    .filter(|branch| {
                        let mut inner = Vec::new();
                        check(root, branch, instance, at, &mut inner);
                        inner.is_empty()
                    })
                    .count();
                let fine = if keyword == "anyOf" {
                    matching > 0
                } else {
                    matching == 1
                };
                if !fine {
                    found.push(format!(
                        "{at}: {matching} of the {keyword} branches match {}",
                        short(instance)
                    ));
                }
            }
            "type" => {
                let types: Vec<&str> = match value {
                    Value::String(one) => vec![one.as_str()],
                    Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !types.iter().any(|kind| is_of_type(instance, kind)) {
                    found.push(format!("{at}: {} is not of type {value}", short(instance)));
                }
            }
            "const" => {
                if instance != value {
                    found.push(format!("{at}: {} is not {value}", short(instance)));
                }
            }
            "minimum" | "maximum" => {
                if let (Some(number), Some(bound)) = (instance.as_f64(), value.as_f64()) {
                    let fine = if keyword == "minimum" {
                        number >= bound
                    } else {
                        number <= bound
                    };
                    if !fine {
                        found.push(format!("{at}: {number} is beyond the {keyword} {bound}"));
                    }
                }
            }
            "properties" | "required" | "additionalProperties" => {
                let Some(object) = instance.as_object() else {
                    continue;
                };
                let properties = keywords.get("properties").and_then(Value::as_object);
                match keyword.as_str() {
                    "properties" => {
                        for (key, property) in properties.unwrap() {
                            if let Some(field) = object.get(key) {
                                check(root, property, field, &format!("{at}/{key}"), found);
                            }
                        }
                    }
                    "required" => {
                        for key in value.as_array().unwrap() {
                            if !object.contains_key(key.as_str().unwrap()) {
                                found.push(format!("{at}: the required key {key} is missing"));
                            }
                        }
                    }
                    _ => {
                        for (key, field) in object {
                            if properties.is_some_and(|known| known.contains_key(key)) {
                                continue;
                            }
                            check(root, value, field, &format!("{at}/{key}"), found);
                            if value == &Value::Bool(false) {
                                found.push(format!("{at}: the key {key:?} is not in the schema"));
                            }
                        }
                    }
                }
            }
            "items" => {
                if let Some(items) = instance.as_array() {
                    for (index, item) in items.iter().enumerate() {
                        check(root, value, item, &format!("{at}/{index}"), found);
                    }
                }
            }
            "minItems" | "maxItems" => {
                if let (Some(items), Some(bound)) = (instance.as_array(), value.as_u64()) {
                    let length = items.len() as u64;
                    let fine = if keyword == "minItems" {
                        length >= bound
                    } else {
                        length <= bound
                    };
                    if !fine {
                        found.push(format!(
                            "{at}: {length} items, against the {keyword} {bound}"
                        ));
                    }
                }
            }
            other => found.push(format!(
                "{at}: the schema uses {other:?}, which this test does not check"
            )),
        }
    }
}

fn is_of_type(instance: &Value, kind: &str) -> bool {
    match kind {
        "null" => instance.is_null(),
        "boolean" => instance.is_boolean(),
        "object" => instance.is_object(),
        "array" => instance.is_array(),
        "string" => instance.is_string(),
        "number" => instance.is_number(),
        "integer" => {
            instance.is_i64()
                || instance.is_u64()
                || instance.as_f64().is_some_and(|x| x.fract() == 0.0)
        }
        _ => false,
    }
}

/// A value for a message, cut to a readable length.
fn short(instance: &Value) -> String {
    let mut text = instance.to_string();
    if text.len() > 120 {
        let mut end = 120;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}
