//! The random source as deployed, through the binary: a real generator (`--rng`), a range
//! mapping (`--map`), a word width (`--bits`) and re-seeding before every shuffle.

mod common;

use common::shuffle_bias;
use predicates::prelude::*;

fn run(args: &[&str]) -> (i32, String) {
    let output = shuffle_bias()
        .args(["run", "fisher-yates", "-q", "--seed", "1"])
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

#[test]
fn modulo_bias_on_bytes_is_detected_and_fits_its_exact_law() {
    // `theory fisher-yates -n 6 --map modulo --bits 8` gives w² = 0.000214 per trial and 99%
    // power at 1,214,163 trials; 10M trials detect it with probability 1 − 10^-many. Against
    // its own exact law the family rejects with probability at most alpha = 0.001 (Holm), and
    // with the fixed seed the outcome is fixed.
    let (code, _) = run(&["-n", "6", "--map", "modulo", "--bits", "8", "-t", "10M"]);
    assert_eq!(code, 1, "modulo bias flagged against uniform");
    let (code, report) = run(&[
        "-n",
        "6",
        "--map",
        "modulo",
        "--bits",
        "8",
        "-t",
        "10M",
        "--against",
        "model",
    ]);
    assert_eq!(code, 0, "the exact law under modulo fits: {report}");
    // Lemire's reduction on the same bytes is unbiased: nothing to find.
    let (code, _) = run(&["-n", "6", "--map", "lemire", "--bits", "8", "-t", "10M"]);
    assert_eq!(code, 0);
}

#[test]
fn the_report_names_the_generator_the_mapping_and_the_reachable_orderings() {
    let (_, json) = run(&[
        "-n", "5", "--rng", "msvc", "--map", "modulo", "-t", "10k", "--format", "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["rng"], "msvc");
    assert_eq!(report["map"], "modulo");
    assert_eq!(report["bits"], 15);
    assert_eq!(report["state_bits"], 31);
    let (_, table) = run(&["-n", "52", "--rng", "xorshift128+", "-t", "1000"]);
    assert!(table.contains("seed 1 · xorshift128+"), "{table}");
    let flat = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("at most 2^128 of them, a fraction 10^-29.4"),
        "{flat}"
    );
}

#[test]
fn a_generator_reseeded_from_few_bits_makes_few_decks() {
    // 4-bit seeds before every shuffle: at most 16 of the 720 orderings of 6 cards can appear.
    let (_, json) = run(&[
        "-n",
        "6",
        "-t",
        "20k",
        "--reseed",
        "every-shuffle",
        "--seed-bits",
        "4",
        "--seeds",
        "counter",
        "--format",
        "json",
        "--rng",
        "mt19937",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let seen = report["permutations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["count"].as_u64().unwrap() > 0)
        .count();
    assert!(seen <= 16, "{seen} orderings from 16 seeds");
    assert_eq!(report["reseed"], "every-shuffle");
    assert_eq!(report["seed_bits"], 4);
    assert_eq!(report["seeds"], "counter");
}

#[test]
fn bad_source_flags_exit_2_naming_the_flag_and_the_fix() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--rng", "dice"],
            "'dice' for '--rng <NAME>'\n  [possible values: chacha8, chacha12, chacha20, mt19937",
        ),
        (
            &["--map", "round"],
            "[possible values: lemire, rejection, bitmask, modulo, multiply, float, native]",
        ),
        (&["--bits", "4"], "--bits 4: words of 8 to 64 bits"),
        (
            &["--rng", "msvc", "--bits", "16"],
            "--bits 16: msvc gives 15-bit words",
        ),
        (&["--reseed", "every-shuffle"], "--seed-bits 32"),
        (
            &["--seed-bits", "32"],
            "--seed-bits 32: seed bits belong to --reseed",
        ),
        (
            &["--seeds", "counter"],
            "--seeds counter: seeds belong to --reseed",
        ),
    ];
    for (args, message) in cases {
        shuffle_bias()
            .args(["run", "fisher-yates", "-t", "1000"])
            .args(*args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*message));
    }
    shuffle_bias()
        .args(["compare", "naive", "--rng", "java"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "'java' for '--rng <NAME>'\n  [possible values: chacha8, chacha12, chacha20]",
        ));
}

#[test]
fn theory_prints_the_exact_law_under_a_biased_mapping() {
    let output = shuffle_bias()
        .args([
            "theory",
            "fisher-yates",
            "-n",
            "6",
            "--map",
            "modulo",
            "--bits",
            "8",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    // By hand: the deck stays unchanged iff every draw below k = i + 1 gives j = i (i = 5..1).
    // With bytes and `% k`, 256 = q·k + r and residue i gets q + [i < r] of the 256 words:
    // k=6: 42, k=5: 51, k=4: 64, k=3: 85, k=2: 128, so P = 42·51·64·85·128 / 256^5
    // = 1491517440 / 1099511627776 = 91035 / 67108864 (dividing by 2^14), not 1/720.
    assert!(text.contains("91035/67108864"), "{text}");
}

#[test]
fn check_told_the_sources_state_bits_says_how_few_orderings_it_can_reach() {
    let dir = tempfile::tempdir().unwrap();
    let deals = dir.path().join("deals.txt");
    shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "500",
            "--seed",
            "2",
            "-q",
        ])
        .arg("--emit-permutations")
        .arg(&deals)
        .args(["-o", "/dev/null"])
        .assert()
        .code(0);
    let output = shuffle_bias()
        .arg("check")
        .arg(&deals)
        .args(["--state-bits", "32", "--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["input"]["state_bits"], 32);
    // log2(52!) = 225.58, so 2^32 decks are 10^((32 − 225.58)·log10 2) = 10^-58.3 of them.
    assert!(
        report["notes"].to_string().contains("a fraction 10^-58.3"),
        "{}",
        report["notes"]
    );
    shuffle_bias()
        .arg("check")
        .arg(&deals)
        .args(["--state-bits", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--state-bits 0"));
}

#[test]
fn every_run_report_states_its_sources_bits_beside_log2_n_factorial() {
    // The default source on 10 cards: ChaCha8's state is 320 bits (256-bit key, 64-bit
    // counter), far more than log2 10! = log2 3,628,800 = 21.79 bits.
    let (_, json) = run(&["-n", "10", "-t", "10k", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["rng"], "chacha8");
    assert_eq!(report["map"], "lemire");
    assert_eq!(report["state_bits"], 320);
    assert_eq!(report["reseed"], serde_json::Value::Null);
    let reach = &report["reachable"];
    assert_eq!(reach["bits_of"], "state");
    assert_eq!(reach["limited"], false);
    let log2_10_factorial = 3_628_800f64.log2();
    assert!((reach["ordering_bits"].as_f64().unwrap() - log2_10_factorial).abs() < 1e-9);
    let (_, table) = run(&["-n", "10", "-t", "10k"]);
    assert!(
        table.contains(
            "reach: 320 bits of state ≥ 21.8 bits of orderings (log2 10!): the source can \
             reach every ordering"
        ),
        "{table}"
    );
    // Re-seeded from 20 bits on 52 cards: the seed, not the state, bounds the decks; the
    // fraction is 2^20 / 52! = 10^((20 − 225.58)·log10 2) = 10^-61.9.
    let (_, csv) = run(&[
        "-n",
        "52",
        "-t",
        "1000",
        "--reseed",
        "every-shuffle",
        "--seed-bits",
        "20",
        "--format",
        "csv",
    ]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let field = |name: &str| row[header.iter().position(|h| *h == name).unwrap()];
    assert_eq!(field("reseed"), "every-shuffle");
    assert_eq!(field("seed_bits"), "20");
    assert_eq!(field("seeds"), "random");
    assert_eq!(field("reachable_bits"), "20");
    let fraction: f64 = field("log10_reachable_fraction").parse().unwrap();
    assert!(
        (fraction - (20.0 - 225.581_003) * 2f64.log10()).abs() < 1e-4,
        "{fraction}"
    );
}

#[test]
fn theory_states_the_bits_of_orderings_and_what_state_bits_reach() {
    // log2 9! = log2 362,880 = 18.47; 16 bits reach at most 65,536 / 362,880 = 10^-0.74.
    let output = shuffle_bias()
        .args(["theory", "fisher-yates", "-n", "9", "--state-bits", "16"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!((report["ordering_bits"].as_f64().unwrap() - 362_880f64.log2()).abs() < 1e-9);
    let fraction = report["reachable"]["log10_fraction"].as_f64().unwrap();
    assert!(
        (fraction - (65_536f64 / 362_880.0).log10()).abs() < 1e-9,
        "{fraction}"
    );
    shuffle_bias()
        .args(["theory", "fisher-yates", "-n", "9", "--state-bits", "16"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("reachable by 16 bits of state"))
        .stdout(predicate::str::contains("at most 10^-0.7"));
    shuffle_bias()
        .args(["theory", "fisher-yates", "--state-bits", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--state-bits"));
}
