//! The overhand shuffle, in Pemantle's model (R. Pemantle, "Randomization time for the overhand
//! shuffle", J. Theoret. Probab. 2 (1989) 37–49; J. Jonasson, "The overhand shuffle mixes in
//! Θ(n² log n) steps", Ann. Appl. Probab. 16 (2006) 231–243).
//!
//! The shuffler slides small packets off the top of the deck in one hand onto the other hand, so
//! the packets come out in reverse order while each keeps its own order. In the model each of the
//! n − 1 gaps between neighbouring cards is a cut point independently with probability p. One
//! pass moves cards little, and the mixing time is of order n² log n passes (Pemantle's upper
//! bound, Jonasson's matching lower bound), against 1.5 log₂ n for the riffle: thousands of
//! passes for 52 cards.
//!
//! Pemantle and Jonasson describe a pass as reversing each packet in place; that is the pass
//! here followed by turning the whole deck over, a fixed permutation, so the two have the same
//! distance from uniform after any number of passes.

use std::fmt;

use super::Card;
use crate::engine::random_source::RandomSource;

/// `overhand`: one overhand pass of `deck` (any length), using `scratch` (at least as long) to
/// hold the original order.
///
/// The draws, in order: for each gap from the top of the deck down (between positions g − 1 and
/// g, for g = 1 … n − 1), `bernoulli(p)` says whether it is a cut point. The packet between two
/// cut points, positions s … e − 1, lands at positions n − e … n − s − 1: the top packet at the
/// bottom, the bottom packet on top.
pub fn overhand<R: RandomSource>(
    deck: &mut [Card],
    scratch: &mut [Card],
    cut: CutProbability,
    rng: &mut R,
) {
    let n = deck.len();
    let held = &mut scratch[..n];
    held.copy_from_slice(deck);
    let (numerator, denominator) = (cut.numerator as usize, cut.denominator as usize);
    let mut start = 0;
    for gap in 1..=n {
        if gap == n || rng.bernoulli(numerator, denominator) {
            deck[n - gap..n - start].copy_from_slice(&held[start..gap]);
            start = gap;
        }
    }
}

/// The probability p that a gap of the overhand shuffle is a cut point: an exact fraction
/// strictly between 0 and 1 (so that the exact engine stays exact), in lowest terms, with a
/// denominator below 2^32 (the simulation draws it with one 32-bit bounded integer).
///
/// The default is p = 1/2. Pemantle's model and Jonasson's analysis hold for any fixed p, and
/// Jonasson's worked figures take p = 1/2; it is also the well-practised shuffle of Wicklin's
/// "Shuffling smackdown" (SAS blog, 2018): packets of 1, 2 or 3 cards (their size is geometric
/// with mean 1/p = 2). A clumsier shuffler drops bigger packets (p = 0.25 or 0.1: packets of 4 or
/// 10 cards on average), which mixes even more slowly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CutProbability {
    numerator: u32,
    denominator: u32,
}

impl Default for CutProbability {
    fn default() -> Self {
        CutProbability::HALF
    }
}

impl CutProbability {
    /// p = 1/2, the default of `--cut-probability`.
    pub const HALF: CutProbability = CutProbability {
        numerator: 1,
        denominator: 2,
    };

    /// numerator / denominator in lowest terms, if strictly between 0 and 1 with a denominator
    /// (once reduced) below 2^32.
    pub fn new(numerator: u64, denominator: u64) -> Result<Self, String> {
        if numerator == 0 || numerator >= denominator {
            return Err(
                "the cut probability must be strictly between 0 and 1 (e.g. 0.5, 0.25 or 1/3)"
                    .to_string(),
            );
        }
        let divisor = gcd(numerator, denominator);
        let (numerator, denominator) = (numerator / divisor, denominator / divisor);
        match (u32::try_from(numerator), u32::try_from(denominator)) {
            (Ok(numerator), Ok(denominator)) => Ok(CutProbability {
                numerator,
                denominator,
            }),
            _ => Err(format!(
                "the cut probability {numerator}/{denominator} needs a denominator below 2^32 \
                 (use at most 9 decimal places)"
            )),
        }
    }

    /// Parse a decimal (`0.5`, `.25`, `0.1`) or a fraction (`1/3`) into an exact fraction.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let invalid = || {
            format!(
                "'{text}' is not a probability; write a decimal such as 0.5 or 0.25, or a \
                 fraction such as 1/3"
            )
        };
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if let Some((numerator, denominator)) = text.split_once('/') {
            let (numerator, denominator) = (numerator.trim(), denominator.trim());
            if !digits(numerator) || !digits(denominator) {
                return Err(invalid());
            }
            let parse = |s: &str| s.parse::<u64>().map_err(|_| invalid());
            return CutProbability::new(parse(numerator)?, parse(denominator)?);
        }
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        if !(whole.is_empty() || digits(whole)) || !(fraction.is_empty() || digits(fraction)) {
            return Err(invalid());
        }
        if whole.is_empty() && fraction.is_empty() {
            return Err(invalid());
        }
        let fraction = fraction.trim_end_matches('0');
        if fraction.len() > 9 {
            return Err(format!(
                "'{text}' has more than 9 decimal places; write it with fewer, or as a fraction"
            ));
        }
        if whole.bytes().any(|b| b != b'0') {
            return CutProbability::new(1, 1);
        }
        let numerator = if fraction.is_empty() {
            0
        } else {
            fraction.parse::<u64>().map_err(|_| invalid())?
        };
        CutProbability::new(numerator, 10u64.pow(fraction.len() as u32))
    }

    /// The numerator in lowest terms.
    pub fn numerator(self) -> u32 {
        self.numerator
    }

    /// The denominator in lowest terms.
    pub fn denominator(self) -> u32 {
        self.denominator
    }

    /// The probability as a float.
    pub fn value(self) -> f64 {
        f64::from(self.numerator) / f64::from(self.denominator)
    }
}

/// A decimal when it terminates within 9 places (`0.5`, `0.125`), otherwise the fraction (`1/3`).
impl fmt::Display for CutProbability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.denominator;
        let (mut twos, mut fives) = (0u32, 0u32);
        while rest.is_multiple_of(2) {
            rest /= 2;
            twos += 1;
        }
        while rest.is_multiple_of(5) {
            rest /= 5;
            fives += 1;
        }
        let places = twos.max(fives);
        if rest != 1 || places > 9 {
            return write!(f, "{}/{}", self.numerator, self.denominator);
        }
        let scaled = u64::from(self.numerator) * (10u64.pow(places) / u64::from(self.denominator));
        write!(f, "0.{scaled:0>width$}", width = places as usize)
    }
}

/// Serialised as a plain number (e.g. 0.5).
impl serde::Serialize for CutProbability {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.value())
    }
}

/// In the JSON schema as the number it serialises to.
impl schemars::JsonSchema for CutProbability {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CutProbability".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        f64::json_schema(generator)
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_and_fractions_parse_to_exact_reduced_fractions() {
        let parsed = |text: &str| {
            let p = CutProbability::parse(text).unwrap();
            (p.numerator(), p.denominator())
        };
        assert_eq!(parsed("0.5"), (1, 2));
        assert_eq!(parsed(".25"), (1, 4));
        assert_eq!(parsed("0.1"), (1, 10));
        assert_eq!(parsed("0.50"), (1, 2));
        assert_eq!(parsed("0.123456789"), (123_456_789, 1_000_000_000));
        assert_eq!(parsed("1/3"), (1, 3));
        assert_eq!(parsed(" 2/6 "), (1, 3));
    }

    #[test]
    fn probabilities_outside_zero_one_and_junk_are_refused() {
        for text in [
            "0",
            "0.0",
            "1",
            "1.0",
            "1.5",
            "2/2",
            "3/2",
            "0/5",
            "-0.5",
            "abc",
            "",
            ".",
            "0.5.1",
            "1/0",
            "1e-1",
            "0.1234567891",
        ] {
            assert!(CutProbability::parse(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn probabilities_print_as_decimals_when_they_terminate() {
        let shown = |text: &str| CutProbability::parse(text).unwrap().to_string();
        assert_eq!(shown("1/2"), "0.5");
        assert_eq!(shown("0.25"), "0.25");
        assert_eq!(shown("1/8"), "0.125");
        assert_eq!(shown("0.1"), "0.1");
        assert_eq!(shown("0.05"), "0.05");
        assert_eq!(shown("1/3"), "1/3");
    }
}
