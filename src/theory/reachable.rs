//! Reachable orderings: a generator with b bits of state (or seeded from b bits) can produce at
//! most 2^b different streams, so at most 2^b of the n! orderings of a deck, whatever the
//! algorithm. A 52-card deck has log2(52!) ≈ 225.58 bits of orderings: xorshift128+ reaches at
//! most 2^128 of its 8.07·10^67 orderings, about 4·10^-30 of them, and a shuffle seeded from 32
//! bits at most 2^32.

use serde::Serialize;

/// log2(n!), summed term by term (exact to a few ulps for any deck this tool handles).
pub fn log2_factorial(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).log2()).sum()
}

/// What a source of `state_bits` bits can reach of the orderings of `deck` cards.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Reachable {
    /// Bits of state (or of seed) of the source.
    pub state_bits: u32,
    /// log2(n!): the bits needed to tell every ordering apart.
    pub ordering_bits: f64,
    /// Whether some orderings can never come out: 2^state_bits < n!.
    pub limited: bool,
    /// log10 of the largest fraction of the orderings the source can reach: min(0,
    /// (state_bits − log2 n!)·log10 2).
    pub log10_fraction: f64,
}

impl Reachable {
    /// The orderings of `deck` cards that `state_bits` bits of state can reach.
    pub fn of(state_bits: u32, deck: usize) -> Self {
        let ordering_bits = log2_factorial(deck);
        let spare = f64::from(state_bits) - ordering_bits;
        Reachable {
            state_bits,
            ordering_bits,
            limited: spare < 0.0,
            log10_fraction: (spare * std::f64::consts::LOG10_2).min(0.0),
        }
    }

    /// One line for a report, e.g. "xorshift128+ has 128 bits of state; 52 cards have 225.6
    /// bits of orderings: it reaches at most 10^-29.4 of them".
    pub fn sentence(&self, source: &str, deck: usize) -> String {
        if self.limited {
            format!(
                "{source} has {} bits of state and {deck} cards have {:.1} bits of orderings \
                 (log2 {deck}!): it can produce at most 2^{} of them, a fraction 10^{:.1}",
                self.state_bits, self.ordering_bits, self.state_bits, self.log10_fraction
            )
        } else {
            format!(
                "{source} has {} bits of state, more than the {:.1} bits of orderings of {deck} \
                 cards (log2 {deck}!): every ordering is reachable",
                self.state_bits, self.ordering_bits
            )
        }
    }
}

impl Reachable {
    /// The same in one short clause for a report's header, e.g. "32 bits of state < 225.6 bits
    /// of orderings (log2 52!): at most 10^-58.3 of them reachable". It speaks of the random
    /// *source*; what the algorithm reaches is the exact law's note.
    /// `of` is what the bits are of: `state`, or `seed` for a source re-seeded every shuffle.
    pub fn clause(&self, deck: usize, of: &str) -> String {
        if self.limited {
            format!(
                "{} bits of {of} < {:.1} bits of orderings (log2 {deck}!): at most 10^{:.1} of \
                 them reachable",
                self.state_bits, self.ordering_bits, self.log10_fraction
            )
        } else {
            format!(
                "{} bits of {of} ≥ {:.1} bits of orderings (log2 {deck}!): the source can \
                 reach every ordering",
                self.state_bits, self.ordering_bits
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    #[test]
    fn log2_of_52_factorial_matches_the_exact_integer() {
        // 52! = 80658175170943878571660636856403766975289505440883277824000000000000, an
        // independent check: its bit length is 226, and its top 53 bits give log2 to ~1e-15.
        let exact: BigUint = (1..=52u32).map(BigUint::from).product();
        assert_eq!(
            exact.to_string(),
            "80658175170943878571660636856403766975289505440883277824000000000000"
        );
        let bits = exact.bits();
        let top = (&exact >> (bits - 53)).to_u64_digits()[0] as f64;
        let log2 = (bits - 53) as f64 + top.log2();
        assert!(
            (log2_factorial(52) - log2).abs() < 1e-9,
            "{}",
            log2_factorial(52)
        );
        assert!((log2_factorial(52) - 225.581).abs() < 1e-3);
    }

    #[test]
    fn xorshift128_plus_reaches_about_four_in_ten_to_the_thirty_of_a_full_deck() {
        let reach = Reachable::of(128, 52);
        assert!(reach.limited);
        // 2^128 / 52! = 3.4028e38 / 8.0658e67 = 4.2188e-30.
        let fraction = 10f64.powf(reach.log10_fraction);
        assert!((fraction / 4.2188e-30 - 1.0).abs() < 1e-3, "{fraction:e}");
        assert!(reach.sentence("xorshift128+", 52).contains("2^128"));
        assert_eq!(
            reach.clause(52, "state"),
            "128 bits of state < 225.6 bits of orderings (log2 52!): at most 10^-29.4 of them \
             reachable"
        );
    }

    #[test]
    fn a_32_bit_seed_reaches_every_ordering_of_12_cards_but_not_of_13() {
        // 12! = 479,001,600 < 2^32 = 4,294,967,296 < 13! = 6,227,020,800.
        assert!(!Reachable::of(32, 12).limited);
        assert!(Reachable::of(32, 13).limited);
        assert_eq!(Reachable::of(32, 12).log10_fraction, 0.0);
        // log2 12! = log2 479001600 = 28.84.
        assert_eq!(
            Reachable::of(32, 12).clause(12, "state"),
            "32 bits of state ≥ 28.8 bits of orderings (log2 12!): the source can reach every \
             ordering"
        );
    }
}
