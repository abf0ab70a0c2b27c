//! Tally files are input from other machines: whatever is done to a valid one — a header
//! field set to a value of the wrong kind or beyond what its flag accepts, a byte of its
//! counters flipped with the CRC-32 recomputed, the file cut at any offset — `merge` refuses
//! it with a message (exit 2), never panics and never writes a report.
//!
//! The merges run in this process (`commands::execute`, as `main` calls it) so that thousands
//! of cases take seconds; a panic is caught and fails the property.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap::Parser;
use proptest::prelude::*;
use serde_json::Value;
use shuffle_bias::cli::Cli;
use shuffle_bias::commands::execute;

use common::shuffle_bias;

/// Valid tally files made once by the binary: a full run of 4 cards (one-byte counters, a
/// deal stream with compositions and seams) and a check with labels.
struct Valid {
    _dir: tempfile::TempDir,
    run: PathBuf,
    check: PathBuf,
}

fn valid() -> &'static Valid {
    static VALID: OnceLock<Valid> = OnceLock::new();
    VALID.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run.tally");
        shuffle_bias()
            .args([
                "run",
                "fisher-yates",
                "-n",
                "4",
                "-t",
                "3000",
                "--seed",
                "5",
            ])
            .arg("--save-tally")
            .arg(&run)
            .args(["-q", "-o", "/dev/null"])
            .assert()
            .code(predicates::ord::lt(2));
        let input = dir.path().join("labels.txt");
        std::fs::write(
            &input,
            "A K Q\nK Q A\nQ A K\nA Q K\nK A Q\nQ K A\n".repeat(20),
        )
        .unwrap();
        let check = dir.path().join("check.tally");
        shuffle_bias()
            .arg("check")
            .arg(&input)
            .args(["--labels", "A,K,Q", "--state-bits", "8", "--save-tally"])
            .arg(&check)
            .args(["-q", "-o", "/dev/null"])
            .assert()
            .code(predicates::ord::lt(2));
        Valid {
            _dir: dir,
            run,
            check,
        }
    })
}

/// The header's JSON and where it ends in `bytes`.
fn header_of(bytes: &[u8]) -> (Value, usize) {
    let length = u32::from_le_bytes(bytes[21..25].try_into().unwrap()) as usize;
    (
        serde_json::from_slice(&bytes[25..25 + length]).unwrap(),
        25 + length,
    )
}

/// The file with `header` in place of its own and the CRC-32 recomputed.
fn with_header(bytes: &[u8], header: &Value) -> Vec<u8> {
    let (_, end) = header_of(bytes);
    let json = serde_json::to_vec(header).unwrap();
    let mut out = bytes[..21].to_vec();
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&bytes[end..bytes.len() - 4]);
    with_crc(out)
}

fn with_crc(mut body: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    body
}

/// Merge `bytes` written to a file in a temporary directory: refused (exit 2, no report), or
/// the property fails naming what happened.
fn assert_refused(bytes: &[u8], what: &str) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mutated.tally");
    std::fs::write(&file, bytes).unwrap();
    let report = dir.path().join("report.json");
    let outcome = merge_in_process(&file, &report);
    match outcome {
        Err(panic) => Err(TestCaseError::fail(format!("{what}: panicked: {panic}"))),
        Ok(Ok(code)) => Err(TestCaseError::fail(format!(
            "{what}: accepted (exit {code:?}), report written: {}",
            report.exists()
        ))),
        Ok(Err(message)) => {
            prop_assert!(!report.exists(), "{}: a report was written", what);
            prop_assert!(
                message.contains("mutated.tally"),
                "{}: the message does not name the file: {}",
                what,
                message
            );
            Ok(())
        }
    }
}

/// `merge FILE -o REPORT --format json -q` in this process: the exit code, or the failure's
/// message; Err if it panicked.
#[allow(clippy::type_complexity)]
fn merge_in_process(file: &Path, report: &Path) -> Result<Result<i32, String>, String> {
    let cli = Cli::try_parse_from([
        "shuffle-bias".as_ref(),
        "merge".as_ref(),
        file.as_os_str(),
        "-o".as_ref(),
        report.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "-q".as_ref(),
    ])
    .unwrap();
    std::panic::catch_unwind(|| match execute(cli) {
        Ok(code) => Ok(code as i32),
        Err(failure) => Err(failure.to_string()),
    })
    .map_err(|panic| {
        panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

/// Every leaf of the header (numbers, strings, booleans; nulls of optional fields) as a JSON
/// pointer, with its value.
fn leaves(value: &Value, at: String, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                leaves(value, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, value) in items.iter().enumerate() {
                leaves(value, format!("{at}/{i}"), out);
            }
            out.push((at, value.clone()));
        }
        _ => out.push((at, value.clone())),
    }
}

/// A value of another kind than `value` (never null: null is a valid value of an optional
/// field): every such replacement makes the header unreadable.
fn other_kind(value: &Value, pick: usize) -> Value {
    let choices = [
        Value::from("x"),
        Value::from(-1),
        Value::from(true),
        serde_json::json!([]),
        serde_json::json!({}),
    ];
    let differs = |c: &&Value| {
        !matches!(
            (value, *c),
            (Value::String(_), Value::String(_))
                | (Value::Number(_), Value::Number(_))
                | (Value::Bool(_), Value::Bool(_))
                | (Value::Array(_), Value::Array(_))
                | (Value::Object(_), Value::Object(_))
        )
    };
    let others: Vec<&Value> = choices.iter().filter(differs).collect();
    others[pick % others.len()].clone()
}

/// Values beyond what the flag that sets each field accepts (or beyond what the file can
/// hold), by JSON pointer.
fn out_of_range() -> Vec<(&'static str, Value)> {
    use serde_json::json;
    vec![
        ("/alpha", json!(-0.5)),
        ("/alpha", json!(0.0)),
        ("/alpha", json!(1.0)),
        ("/alpha", json!(1e308)),
        ("/max_paths", json!(0)),
        ("/elapsed_seconds", json!(-1.0)),
        ("/elapsed_seconds", json!(1e308)),
        ("/deck", json!(0)),
        ("/deck", json!(1)),
        ("/deck", json!(1001)),
        ("/deck", json!(u64::MAX)),
        ("/trials", json!(0)),
        ("/trials", json!(u64::MAX)),
        ("/trials", json!(1u64 << 63)),
        ("/trials", json!((1u64 << 53) + 1)),
        ("/cells", json!(0)),
        ("/cells", json!(u64::MAX)),
        ("/counts_bytes", json!(0)),
        ("/counts_bytes", json!(u64::MAX)),
        ("/body_bytes", json!(u64::MAX)),
        ("/mode", json!("")),
        ("/command", json!("merge")),
        ("/encoding", json!("u128")),
        ("/against", json!("nothing")),
        ("/run/passes", json!(0)),
        ("/run/passes", json!(u32::MAX)),
        ("/run/trials", json!(0)),
        ("/run/trials", json!(u64::MAX)),
        ("/run/trials", json!((1u64 << 53) + 1)),
        ("/run/shard", json!([5, 2])),
        ("/run/shard", json!([0, 0])),
        ("/run/shard", json!([0, u64::MAX])),
        ("/run/asked", json!([0, u64::MAX])),
        ("/run/taken", json!([u64::MAX, 0])),
        ("/run/taken", json!([0, u64::MAX])),
        ("/run/blocks", json!(u64::MAX)),
        ("/run/block_trials", json!(0)),
        ("/run/threads", json!(0)),
        ("/run/bits", json!(0)),
        ("/run/bits", json!(65)),
        ("/run/reseed_seed_bits", json!(0)),
        ("/run/algorithm", json!("bogo")),
        ("/run/rng", json!("dice")),
        ("/run/map", json!("")),
        ("/run/partial", json!([[0, u64::MAX]])),
        ("/check/state_bits", json!(0)),
        ("/check/labels", json!(["A", "A", "Q"])),
        ("/check/labels", json!(["A"])),
        ("/check/labels", json!([])),
        ("/check/numbering", json!("two-based")),
        ("/check/lines", json!(0)),
        ("/check/sources", json!([])),
        ("/deal_stream/deals", json!(u64::MAX)),
        ("/deal_stream/deals", json!(1u64 << 63)),
        ("/deal_stream/pairs", json!(u64::MAX)),
        ("/deal_stream/dealt", json!(0)),
        ("/deal_stream/dealt", json!(u64::MAX)),
        ("/deal_stream/groups", json!(0)),
        ("/deal_stream/groups", json!(u64::MAX)),
        ("/deal_stream/fingerprints", json!(u64::MAX)),
        ("/deal_stream/counts_bytes", json!(u64::MAX)),
        ("/deal_stream/repeats", json!("sometimes")),
        ("/deal_stream/ends/0/first", json!([0, 0, 0, 0])),
        ("/deal_stream/ends/0/first", json!([0, 1, 2, 60])),
        ("/deal_stream/ends/0/last", json!([u16::MAX, 1, 2, 3])),
        ("/deal_stream/ends/0/last", json!([])),
        ("/deal_stream/ends/0/first_block", json!(u64::MAX)),
        ("/deal_stream/ends/0/last_block", json!(u64::MAX)),
    ]
}

fn file(run: bool) -> Vec<u8> {
    let valid = valid();
    std::fs::read(if run { &valid.run } else { &valid.check }).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_header_field_of_the_wrong_kind_is_refused(run in any::<bool>(), field in any::<usize>(), pick in any::<usize>()) {
        let bytes = file(run);
        let (header, _) = header_of(&bytes);
        let mut fields = Vec::new();
        leaves(&header, String::new(), &mut fields);
        let (pointer, value) = &fields[field % fields.len()];
        let mut mutated = header.clone();
        *mutated.pointer_mut(pointer).unwrap() = other_kind(value, pick);
        assert_refused(&with_header(&bytes, &mutated), &format!("{pointer} = {}", other_kind(value, pick)))?;
    }

    #[test]
    fn a_header_field_beyond_its_flag_is_refused(run in any::<bool>(), pick in any::<usize>(), second in any::<usize>(), both in any::<bool>()) {
        let bytes = file(run);
        let (header, _) = header_of(&bytes);
        let edits: Vec<(&str, Value)> = out_of_range()
            .into_iter()
            .filter(|(pointer, _)| header.pointer(pointer).is_some_and(|v| !v.is_null()))
            .collect();
        let mut mutated = header.clone();
        let mut what = String::new();
        for index in [pick, second].iter().take(if both { 2 } else { 1 }) {
            let (pointer, value) = &edits[index % edits.len()];
            *mutated.pointer_mut(pointer).unwrap() = value.clone();
            what.push_str(&format!("{pointer} = {value}; "));
        }
        assert_refused(&with_header(&bytes, &mutated), &what)?;
    }

    #[test]
    fn a_counter_byte_flipped_with_the_crc_recomputed_is_refused(offset in any::<usize>(), bit in 0u8..8) {
        // The run's body is its counters (one byte each) and its deal stream's counters; it
        // keeps no fingerprints (full mode counts repeats from the tally).
        let bytes = file(true);
        let (header, end) = header_of(&bytes);
        assert_eq!(header["deal_stream"]["fingerprints"], 0);
        let body = bytes.len() - 4 - end;
        let at = end + offset % body;
        let mut body_bytes = bytes[..bytes.len() - 4].to_vec();
        body_bytes[at] ^= 1 << bit;
        assert_refused(&with_crc(body_bytes), &format!("byte {at} bit {bit} flipped"))?;
    }
}

#[test]
fn a_tally_file_cut_at_any_offset_is_refused() {
    for run in [true, false] {
        let bytes = file(run);
        for length in 0..bytes.len() {
            assert_refused(&bytes[..length], &format!("cut at {length}")).unwrap();
        }
    }
}

#[test]
fn the_valid_files_themselves_merge() {
    for run in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let file_path = dir.path().join("valid.tally");
        std::fs::write(&file_path, file(run)).unwrap();
        let report = dir.path().join("report.json");
        let outcome = merge_in_process(&file_path, &report).unwrap();
        assert!(matches!(outcome, Ok(0 | 1)), "{outcome:?}");
        assert!(report.exists());
    }
}
