//! Card names: `--cards standard` reads the usual notations of the 52 playing cards.
//!
//! A card is a rank then a suit, in any case: the rank `A`, `2` … `9`, `10` or `T`, `J`, `Q`,
//! `K`; the suit a letter `s` `h` `d` `c` or a symbol `♠` `♥` `♦` `♣` (the white symbols `♤` `♡`
//! `♢` `♧` and an emoji variation selector after a symbol are accepted too). So `As`, `AS`,
//! `a♠`, `10h`, `Th`, `tH` and `2c` all name cards. The identity — card 0 to 51 — is the
//! standard order of [`crate::theory::poker`]: A♠ 2♠ … K♠, A♥ … K♥, A♦ … K♦, A♣ … K♣.
//!
//! The reader looks names up in a table of every accepted spelling (about 500 of them, each at
//! most 16 bytes), so a card name costs one hash lookup, as a `--labels` label does.

use std::sync::OnceLock;

use crate::engine::algorithms::Card;
use crate::theory::poker::{RANK_NAMES, RANKS, STANDARD_DECK, SUITS, card_name};

/// A set of card names the reader knows (`--cards`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CardNames {
    /// The 52 cards of the standard deck: `As`, `10h`, `Th`, `Q♦`, any case.
    Standard,
}

impl CardNames {
    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CardNames::Standard => "standard",
        }
    }

    /// Cards in the set.
    pub fn deck(self) -> usize {
        match self {
            CardNames::Standard => STANDARD_DECK,
        }
    }

    /// Every accepted spelling and the card it names.
    pub fn spellings(self) -> &'static [(String, Card)] {
        match self {
            CardNames::Standard => standard_spellings(),
        }
    }

    /// A card's name as messages show it (`As`, `10h`).
    pub fn card_name(self, card: Card) -> String {
        match self {
            CardNames::Standard => card_name(card),
        }
    }

    /// How a card is written, for a message about a token that is none.
    pub fn how_to_write(self) -> &'static str {
        match self {
            CardNames::Standard => {
                "write a rank A, 2–10 (or T), J, Q, K then a suit s, h, d, c or ♠, ♥, ♦, ♣, \
                 in any case: As, 10h, Th, Q♦"
            }
        }
    }
}

/// The suit symbols beside the letters of [`SUITS`]: black then white.
const WHITE_SUITS: [char; 4] = ['♤', '♡', '♢', '♧'];

/// The emoji variation selector that may follow a suit symbol (`♥️`).
const VARIATION_SELECTOR: char = '\u{FE0F}';

/// Every spelling of every standard card.
fn standard_spellings() -> &'static [(String, Card)] {
    static SPELLINGS: OnceLock<Vec<(String, Card)>> = OnceLock::new();
    SPELLINGS.get_or_init(|| {
        let mut spellings = Vec::new();
        for (suit, &(letter, symbol)) in SUITS.iter().enumerate() {
            let mut suits = vec![letter.to_string(), letter.to_ascii_uppercase().to_string()];
            for symbol in [symbol, WHITE_SUITS[suit]] {
                suits.push(symbol.to_string());
                suits.push(format!("{symbol}{VARIATION_SELECTOR}"));
            }
            for (rank, name) in RANK_NAMES.iter().enumerate() {
                let card = (suit * RANKS + rank) as Card;
                let mut ranks = vec![name.to_string(), name.to_ascii_lowercase()];
                if *name == "10" {
                    ranks.extend(["T".to_string(), "t".to_string()]);
                }
                ranks.dedup();
                for rank in &ranks {
                    for suit in &suits {
                        spellings.push((format!("{rank}{suit}"), card));
                    }
                }
            }
        }
        spellings
    })
}

/// The standard card that `token` names, if any (case-insensitive).
pub fn standard_card(token: &str) -> Option<Card> {
    standard_spellings()
        .iter()
        .find(|(spelling, _)| spelling == token)
        .map(|&(_, card)| card)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_notation_of_the_issue_names_the_right_card_in_any_case() {
        for (token, card) in [
            ("As", 0),
            ("AS", 0),
            ("as", 0),
            ("aS", 0),
            ("A♠", 0),
            ("a♠", 0),
            ("A♤", 0),
            ("10h", 22),
            ("10H", 22),
            ("Th", 22),
            ("tH", 22),
            ("T♥", 22),
            ("T♥\u{FE0F}", 22),
            ("2c", 40),
            ("2C", 40),
            ("Kc", 51),
            ("Qd", 37),
            ("q♦", 37),
        ] {
            assert_eq!(standard_card(token), Some(card), "{token}");
        }
        for bad in [
            "", "1s", "11h", "Ax", "A", "s", "AsA", "10", "TT", "0c", "♠A",
        ] {
            assert_eq!(standard_card(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_spellings_name_each_of_the_52_cards_and_are_short_and_distinct() {
        let spellings = standard_spellings();
        let mut named = [false; 52];
        for (spelling, card) in spellings {
            named[usize::from(*card)] = true;
            assert!(spelling.len() <= 16, "{spelling}");
            // The canonical name is a spelling of the same card.
            assert_eq!(standard_card(&card_name(*card)), Some(*card));
        }
        assert!(named.iter().all(|&n| n));
        let mut sorted: Vec<&String> = spellings.iter().map(|(s, _)| s).collect();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), spellings.len());
    }
}
