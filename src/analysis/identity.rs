//! The identity test: how often the deck came back in its starting order, against the
//! hypothesis' probability of that — an exact binomial test that stays valid when the
//! probability is far below f64's range (1/200! is).

use num_bigint::BigUint;

use super::test_note::TestNote;
use super::{Draft, Question, TestMethod};
use crate::stats::binomial::binomial_two_sided_at;
use crate::stats::probability::Probability;
use crate::stats::pvalue::PValue;
use crate::theory::permutation_statistics::{big_factorial, ratio_to_f64, ratio_to_ln};

/// The identity test: two-sided exact binomial test (doubling rule, Fay 2010) of the identity
/// count, from the hypothesis' probability of the identity with its logarithm (1/n! is below
/// f64's range from 171 cards on, yet the identity is possible: only an exact 0 makes it
/// impossible, and then one sighting rejects outright).
pub fn identity_test(count: u64, trials: u64, p0: Probability) -> Draft {
    let (p, note) = if p0.is_impossible() && count > 0 {
        (PValue::ZERO, Some(TestNote::ImpossibleIdentity { count }))
    } else if trials == 0 {
        (PValue::ONE, Some(TestNote::NoTrials))
    } else {
        (binomial_two_sided_at(count, trials, p0), None)
    };
    Draft {
        question: Question::OneDeal,
        name: "identity".to_string(),
        method: TestMethod::ExactBinomialTwoSided,
        statistic: count as f64,
        df: None,
        p,
        note,
    }
}

/// 1/n! as the nearest f64 (subnormal from n = 171 on and 0 from 178 on, below the f64 range)
/// with its logarithm −ln n!, which the identity test uses.
pub fn uniform_ordering_probability(n: usize) -> Probability {
    let (one, total) = (BigUint::from(1u8), big_factorial(n));
    Probability::from_parts(ratio_to_f64(&one, &total), ratio_to_ln(&one, &total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn the_uniform_identity_of_200_cards_is_possible() {
        // 1/200! is 0 as an f64; its log is −ln 200! (log10 200! = 374.8968886400402524).
        let p0 = uniform_ordering_probability(200);
        assert_eq!(p0.p, 0.0);
        assert_relative_eq!(p0.log10(), -374.896_888_640_040_25, max_relative = 1e-13);
        let seen_once = identity_test(1, 1000, p0);
        assert!(seen_once.note.is_none());
        assert_relative_eq!(
            seen_once.p.log10,
            2f64.log10() + 3.0 - 374.896_888_640_040_25,
            max_relative = 1e-12
        );
        assert_eq!(identity_test(0, 1000, p0).p, PValue::ONE);
        assert_eq!(identity_test(1, 1000, Probability::ZERO).p, PValue::ZERO);
    }

    #[test]
    fn the_identity_test_of_a_small_deck_is_the_exact_binomial_test() {
        // 3 cards, p0 = 1/6, 10 trials, 5 identities: P(K ≥ 5) for Bin(10, 1/6) is
        // Σ_{k≥5} C(10,k)(1/6)^k(5/6)^(10−k) = 0.015461966703...; doubled, 0.030923933...
        let draft = identity_test(5, 10, Probability::from_p(1.0 / 6.0));
        assert_eq!(draft.method, TestMethod::ExactBinomialTwoSided);
        assert_eq!(draft.statistic, 5.0);
        let tail: f64 = (5..=10u32)
            .map(|k| {
                let c = (0..k).fold(1.0, |c, i| c * f64::from(10 - i) / f64::from(i + 1));
                c * (1.0f64 / 6.0).powi(k as i32) * (5.0f64 / 6.0).powi(10 - k as i32)
            })
            .sum();
        assert_relative_eq!(draft.p.p, 2.0 * tail, max_relative = 1e-12);
        assert_relative_eq!(draft.p.p, 0.030_923_933_4, max_relative = 1e-8);
        assert_eq!(
            identity_test(0, 0, Probability::from_p(0.5)).note,
            Some(TestNote::NoTrials)
        );
    }
}
