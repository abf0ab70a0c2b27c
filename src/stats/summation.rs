//! Compensated summation: one implementation of Neumaier's algorithm for every sum of many
//! floating-point terms in shuffle-bias (Pearson's statistic over 11! cells, the Poisson
//! mixture of the noncentral χ², the exact engine's f64 fallback weights).
//!
//! A plain running sum of N terms loses up to N·ε relatively; the compensated sum keeps the
//! rounding error of each addition in a second accumulator and loses about 2ε whatever N
//! (Neumaier 1974, an improved Kahan–Babuška summation that also handles terms larger than the
//! running sum).

/// A running sum with Neumaier's compensation (Neumaier 1974, improved Kahan–Babuška).
///
/// ```
/// use shuffle_bias::stats::summation::CompensatedSum;
///
/// let mut sum = CompensatedSum::default();
/// for term in [1.0, 1e100, 1.0, -1e100] {
///     sum.add(term);
/// }
/// assert_eq!(sum.total(), 2.0);
/// assert_eq!([1.0, 1e100, 1.0, -1e100].into_iter().collect::<CompensatedSum>().total(), 2.0);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CompensatedSum {
    sum: f64,
    compensation: f64,
}

impl CompensatedSum {
    /// Adds one term.
    #[inline]
    pub fn add(&mut self, value: f64) {
        let t = self.sum + value;
        if self.sum.abs() >= value.abs() {
            self.compensation += (self.sum - t) + value;
        } else {
            self.compensation += (value - t) + self.sum;
        }
        self.sum = t;
    }

    /// The compensated total.
    #[inline]
    pub fn total(&self) -> f64 {
        self.sum + self.compensation
    }
}

impl Extend<f64> for CompensatedSum {
    fn extend<I: IntoIterator<Item = f64>>(&mut self, terms: I) {
        for term in terms {
            self.add(term);
        }
    }
}

impl FromIterator<f64> for CompensatedSum {
    fn from_iter<I: IntoIterator<Item = f64>>(terms: I) -> Self {
        let mut sum = CompensatedSum::default();
        sum.extend(terms);
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_million_tenths_add_up_to_a_hundred_thousand_to_the_last_bit() {
        let compensated: CompensatedSum = std::iter::repeat_n(0.1, 1_000_000).collect();
        assert_eq!(compensated.total(), 100_000.0);
        let plain: f64 = std::iter::repeat_n(0.1, 1_000_000).sum();
        assert_ne!(
            plain, 100_000.0,
            "the plain sum drifts, which is why this exists"
        );
    }

    #[test]
    fn a_term_larger_than_the_running_sum_keeps_the_small_ones() {
        // Kahan's algorithm loses the 1.0s here; Neumaier's keeps them.
        let sum: CompensatedSum = [1.0, 1e100, 1.0, -1e100].into_iter().collect();
        assert_eq!(sum.total(), 2.0);
    }
}
