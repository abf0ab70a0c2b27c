//! Five-card poker hands as cards: the standard 52-card order, the nine hand categories, and
//! the category of a hand ([`classify`]). How many hands each category holds is theory
//! ([`crate::theory::poker`]).
//!
//! The standard order (the identity of `--cards standard`, and how `--game poker` reads numbered
//! cards): card c has suit c / 13 in the order ♠ ♥ ♦ ♣ and rank c mod 13 in the order A, 2, …,
//! 10, J, Q, K — so card 0 is A♠, 12 is K♠, 13 is A♥ and 51 is K♣.

use crate::engine::algorithms::Card;

/// Cards in the standard deck.
pub const STANDARD_DECK: usize = 52;

/// Cards in a poker hand.
pub const HAND: usize = 5;

/// Ranks per suit.
pub const RANKS: usize = 13;

/// Five-card hands: C(52, 5).
pub const HANDS: u64 = 2_598_960;

/// The suits in the standard order, as letters and as symbols.
pub const SUITS: [(char, char); 4] = [('s', '♠'), ('h', '♥'), ('d', '♦'), ('c', '♣')];

/// The ranks in the standard order, as written in card names.
pub const RANK_NAMES: [&str; RANKS] = [
    "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
];

/// The rank of a card of the standard order: 0 = ace, 1 = two, …, 12 = king.
#[inline(always)]
pub fn rank_of(card: Card) -> usize {
    usize::from(card) % RANKS
}

/// The suit of a card of the standard order: 0 = ♠, 1 = ♥, 2 = ♦, 3 = ♣.
#[inline(always)]
pub fn suit_of(card: Card) -> usize {
    usize::from(card) / RANKS
}

/// A card's name in the standard order, rank then suit letter: `As`, `10h`, `Kc`.
pub fn card_name(card: Card) -> String {
    format!("{}{}", RANK_NAMES[rank_of(card)], SUITS[suit_of(card)].0)
}

/// The nine categories of a five-card poker hand, from the weakest to the strongest (the order
/// of [`Category::ALL`] and of the value of [`Category::index`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// Five ranks, no straight, no flush.
    HighCard,
    /// Two cards of one rank, three other ranks.
    OnePair,
    /// Two pairs and a fifth rank.
    TwoPair,
    /// Three cards of one rank, two other ranks.
    ThreeOfAKind,
    /// Five consecutive ranks (A-2-3-4-5 to 10-J-Q-K-A), not all of one suit.
    Straight,
    /// Five cards of one suit, not a straight.
    Flush,
    /// Three of one rank and two of another.
    FullHouse,
    /// Four cards of one rank.
    FourOfAKind,
    /// A straight in one suit (the royal flush 10-J-Q-K-A included).
    StraightFlush,
}

impl Category {
    /// Every category, weakest first.
    pub const ALL: [Category; 9] = [
        Category::HighCard,
        Category::OnePair,
        Category::TwoPair,
        Category::ThreeOfAKind,
        Category::Straight,
        Category::Flush,
        Category::FullHouse,
        Category::FourOfAKind,
        Category::StraightFlush,
    ];

    /// The category's place in [`Category::ALL`] (0 = high card).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The name reports use: `high card`, `one pair`, …, `straight flush`.
    pub fn name(self) -> &'static str {
        match self {
            Category::HighCard => "high card",
            Category::OnePair => "one pair",
            Category::TwoPair => "two pair",
            Category::ThreeOfAKind => "three of a kind",
            Category::Straight => "straight",
            Category::Flush => "flush",
            Category::FullHouse => "full house",
            Category::FourOfAKind => "four of a kind",
            Category::StraightFlush => "straight flush",
        }
    }
}

/// The category of five distinct cards of the standard order (in any order). Aces are high
/// and low: A-2-3-4-5 and 10-J-Q-K-A are both straights.
pub fn classify(hand: &[Card; HAND]) -> Category {
    let mut counts = [0u8; RANKS];
    let mut ranks = 0u16;
    let first_suit = suit_of(hand[0]);
    let mut flush = true;
    for &card in hand {
        let rank = rank_of(card);
        counts[rank] += 1;
        ranks |= 1 << rank;
        flush &= suit_of(card) == first_suit;
    }
    if ranks.count_ones() == 5 {
        // Ace low: bits 0..=4 set; otherwise five consecutive bits, or 10-J-Q-K with the ace.
        let low = ranks.trailing_zeros();
        let straight = ranks >> low == 0b1_1111 || ranks == 0b1_1110_0000_0001;
        return match (straight, flush) {
            (true, true) => Category::StraightFlush,
            (true, false) => Category::Straight,
            (false, true) => Category::Flush,
            (false, false) => Category::HighCard,
        };
    }
    let largest = counts.iter().copied().max().unwrap_or(0);
    match (largest, ranks.count_ones()) {
        (4, _) => Category::FourOfAKind,
        (3, 2) => Category::FullHouse,
        (3, _) => Category::ThreeOfAKind,
        (2, 3) => Category::TwoPair,
        _ => Category::OnePair,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hand(names: [&str; 5]) -> [Card; 5] {
        names.map(|name| {
            (0..52u16)
                .find(|&card| card_name(card) == name)
                .unwrap_or_else(|| panic!("{name}"))
        })
    }

    #[test]
    fn hands_of_every_category_are_recognised_with_aces_high_and_low() {
        let cases = [
            (["10s", "Js", "Qs", "Ks", "As"], Category::StraightFlush),
            (["As", "2s", "3s", "4s", "5s"], Category::StraightFlush),
            (["9h", "9s", "9d", "9c", "2h"], Category::FourOfAKind),
            (["Kh", "Ks", "Kd", "2c", "2h"], Category::FullHouse),
            (["2d", "7d", "9d", "Jd", "Kd"], Category::Flush),
            (["Ah", "2s", "3d", "4c", "5h"], Category::Straight),
            (["10h", "Js", "Qd", "Kc", "Ah"], Category::Straight),
            (["Jh", "Qs", "Kd", "Ac", "2h"], Category::HighCard),
            (["7h", "7s", "7d", "2c", "Kh"], Category::ThreeOfAKind),
            (["7h", "7s", "2d", "2c", "Kh"], Category::TwoPair),
            (["7h", "7s", "3d", "2c", "Kh"], Category::OnePair),
            (["7h", "8s", "3d", "2c", "Kh"], Category::HighCard),
        ];
        for (names, category) in cases {
            assert_eq!(classify(&hand(names)), category, "{names:?}");
        }
    }

    #[test]
    fn the_standard_order_starts_with_the_ace_of_spades_and_ends_with_the_king_of_clubs() {
        assert_eq!(card_name(0), "As");
        assert_eq!(card_name(9), "10s");
        assert_eq!(card_name(12), "Ks");
        assert_eq!(card_name(13), "Ah");
        assert_eq!(card_name(51), "Kc");
    }
}
