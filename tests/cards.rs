//! `--cards standard`: the usual names of the 52 cards, in any notation and any case, read as
//! the same cards as their numbers in the standard order (A♠ 2♠ … K♠ A♥ … K♥ A♦ … K♦ A♣ … K♣),
//! in whole decks (the ordinary check) and in dealt hands; a bad name exits 2 with `FILE:LINE`
//! and the token.

use std::sync::atomic::AtomicBool;

use assert_cmd::Command;
use serde_json::Value;
use shuffle_bias::engine::algorithms::{Algorithm, Card};
use shuffle_bias::engine::emit::emit_permutations;
use shuffle_bias::engine::random_source::RngKind;
use shuffle_bias::engine::simulate::SimulationSpec;
use shuffle_bias::input::cards::standard_card;

/// `trials` fair 52-card decks from `seed` (the crate's own ChaCha Fisher–Yates).
fn decks(trials: u64, seed: u64) -> Vec<Vec<Card>> {
    let spec = SimulationSpec {
        shuffle: Algorithm::FisherYates.into(),
        deck: 52,
        trials,
        seed,
        rng: RngKind::Chacha8,
        threads: 1,
    };
    let mut text = Vec::new();
    emit_permutations(&spec, &mut text, &AtomicBool::new(false)).unwrap();
    String::from_utf8(text)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('#'))
        .map(|line| line.split(' ').map(|t| t.parse().unwrap()).collect())
        .collect()
}

/// Card `card` of the standard order written in one of eight notations, chosen by `style`.
fn written(card: Card, style: usize) -> String {
    let rank = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ][usize::from(card) % 13];
    let suit = usize::from(card) / 13;
    let rank = match (rank, style % 4) {
        ("10", 1) => "T".to_string(),
        ("10", 2) => "t".to_string(),
        (rank, 3) => rank.to_lowercase(),
        (rank, _) => rank.to_string(),
    };
    let suit = match style % 8 / 2 {
        0 => ["s", "h", "d", "c"][suit].to_string(),
        1 => ["S", "H", "D", "C"][suit].to_string(),
        2 => ["♠", "♥", "♦", "♣"][suit].to_string(),
        _ => ["♤", "♡", "♢", "♧"][suit].to_string(),
    };
    format!("{rank}{suit}")
}

fn check(input: &str, args: &[&str]) -> (String, String, i32) {
    let output = Command::cargo_bin("shuffle-bias")
        .unwrap()
        .args(["check", "--quiet"])
        .args(args)
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
        output.status.code().unwrap(),
    )
}

fn json(input: &str, args: &[&str]) -> (Value, i32) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let (stdout, stderr, code) = check(input, &all);
    (
        serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("no JSON: {stderr}")),
        code,
    )
}

#[test]
fn every_written_form_names_the_card_of_its_place_in_the_standard_order() {
    for card in 0..52 {
        for style in 0..8 {
            assert_eq!(
                standard_card(&written(card, style)),
                Some(card),
                "{}",
                written(card, style)
            );
        }
    }
    for (token, card) in [
        ("As", 0),
        ("AS", 0),
        ("A♠", 0),
        ("10h", 22),
        ("Th", 22),
        ("2c", 40),
    ] {
        assert_eq!(standard_card(token), Some(card), "{token}");
    }
}

#[test]
fn whole_decks_by_name_give_the_same_report_as_the_same_decks_by_number() {
    // The ordinary check (K = n = 52, marginal mode): positions, identity and statistics of
    // named decks equal those of the numbered ones, line for line.
    let decks = decks(3_000, 51);
    let numbers: String = decks
        .iter()
        .map(|deck| {
            let cards: Vec<String> = deck.iter().map(Card::to_string).collect();
            cards.join(" ") + "\n"
        })
        .collect();
    let names: String = decks
        .iter()
        .enumerate()
        .map(|(line, deck)| {
            let cards: Vec<String> = deck
                .iter()
                .enumerate()
                .map(|(i, &card)| written(card, line + i))
                .collect();
            cards.join(if line % 2 == 0 { " " } else { ", " }) + "\n"
        })
        .collect();
    let (by_number, number_code) = json(&numbers, &[]);
    let (by_name, name_code) = json(&names, &["--cards", "standard"]);
    assert_eq!(number_code, 0);
    assert_eq!(name_code, 0);
    assert_eq!(by_name["input"]["numbering"], "standard-cards");
    assert_eq!(by_name["mode"], "marginal");
    assert_eq!(by_name["deck"], 52);
    for key in ["positions", "identity", "statistics", "tests"] {
        assert_eq!(by_name[key], by_number[key], "{key}");
    }
}

#[test]
fn dealt_hands_by_name_give_the_same_poker_tally_as_by_number() {
    let decks = decks(2_000, 52);
    let hands = |write: &dyn Fn(Card, usize) -> String| -> String {
        decks
            .iter()
            .enumerate()
            .map(|(line, deck)| {
                let cards: Vec<String> = deck[..5]
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| write(c, line * 5 + i))
                    .collect();
                cards.join(" ") + "\n"
            })
            .collect()
    };
    let poker = ["--deal", "5", "--game", "poker"];
    let (by_number, _) = json(
        &hands(&|card, _| (card + 1).to_string()),
        &[&poker[..], &["--deck", "52"]].concat(),
    );
    let (by_name, code) = json(
        &hands(&written),
        &[&poker[..], &["--cards", "standard"]].concat(),
    );
    assert_eq!(code, 0);
    assert_eq!(by_number["input"]["numbering"], "one-based");
    assert_eq!(by_name["deal"], by_number["deal"]);
    assert_eq!(by_name["positions"], by_number["positions"]);
    // The table names the cards.
    let (table, _, _) = check(
        &hands(&written),
        &[&poker[..], &["--cards", "standard"]].concat(),
    );
    assert!(table.contains("(card names, plain lines)"), "{table}");
}

#[test]
fn a_bad_card_name_exits_two_with_its_file_line_and_token() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deals.txt");
    for (text, message) in [
        ("As Kd 10h Th 2c\n", "deals.txt:1: card '10h' appears twice"),
        (
            "As Kd 10h Qh 2c\nAS a♠ 3c 4c 5c\n",
            "deals.txt:2: card 'As' appears twice",
        ),
        (
            "As Kd 10h Qh 2c\nAs Kd 11h Qh 2c\n",
            "deals.txt:2: '11h' is not a card name",
        ),
        ("As Kd 10h Qh 1c\n", "deals.txt:1: '1c' is not a card name"),
        ("As Kd 10h Qh Xs\n", "deals.txt:1: 'Xs' is not a card name"),
        ("As Kd 10h Qh\n", "deals.txt:1: expected 5 cards, found 4"),
        ("As Kd 10h Qh 2 c\n", "deals.txt:1: '2' is not a card name"),
    ] {
        std::fs::write(&file, text).unwrap();
        let (stdout, stderr, code) = check(
            "",
            &["--deal", "5", "--cards", "standard", file.to_str().unwrap()],
        );
        assert_eq!(code, 2, "{text}");
        assert!(stdout.is_empty());
        assert!(stderr.contains(message), "{text}: {stderr}");
        assert!(
            stderr.contains("As, 10h, Th, Q♦") || !message.contains("not a card name"),
            "{stderr}"
        );
    }
}
