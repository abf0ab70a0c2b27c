//! Holm's step-down adjustment of a family of p-values, so that a report testing
//! many orderings (or many statistics) at once keeps its family-wise error rate at
//! the chosen level. Works in log space: p-values below 1e−300 adjust exactly.

use super::pvalue::PValue;

/// Holm–Bonferroni step-down adjusted p-values (Holm 1979), in the input order.
///
/// With the m p-values sorted ascending, p₍₁₎ ≤ … ≤ p₍ₘ₎, the adjusted value of the
/// i-th smallest is max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎) (Holm 1979, "A simple
/// sequentially rejective multiple test procedure", *Scand. J. Statist.* 6, 65–70;
/// Wright 1992, *Biometrics* 48, eq. 4). Rejecting every hypothesis whose adjusted
/// value is ≤ alpha is exactly Holm's procedure at level alpha. The products are
/// formed in log space by [`PValue::scaled`]; ties keep their input order, and a
/// malformed input (NaN `log10`) is treated as p = 1.
pub fn holm_adjust(p: &[PValue]) -> Vec<PValue> {
    let m = p.len();
    let key = |v: &PValue| {
        if v.log10.is_nan() { 0.0 } else { v.log10 }
    };
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| key(&p[i]).total_cmp(&key(&p[j])));
    let mut adjusted = vec![PValue::ONE; m];
    let mut running = PValue::ZERO;
    for (rank, &i) in order.iter().enumerate() {
        let candidate = p[i].scaled((m - rank) as f64);
        if candidate.log10 > running.log10 {
            running = candidate;
        }
        adjusted[i] = running;
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn values(p: &[f64]) -> Vec<PValue> {
        p.iter().map(|&v| PValue::from_p(v)).collect()
    }

    #[test]
    fn holm_matches_a_hand_worked_example() {
        // m = 4, p = (0.01, 0.04, 0.03, 0.005). Sorted: 0.005, 0.01, 0.03, 0.04.
        // Multipliers 4, 3, 2, 1: 0.020, 0.030, 0.060, 0.040; running max:
        // 0.020, 0.030, 0.060, 0.060. Back in input order: 0.03, 0.06, 0.06, 0.02.
        let adjusted = holm_adjust(&values(&[0.01, 0.04, 0.03, 0.005]));
        let expected = [0.03, 0.06, 0.06, 0.02];
        for (a, e) in adjusted.iter().zip(expected) {
            assert_relative_eq!(a.p, e, max_relative = 1e-14);
            assert_relative_eq!(a.log10, e.log10(), max_relative = 1e-14);
        }
    }

    #[test]
    fn holm_matches_a_second_hand_worked_example_with_running_maximum() {
        // m = 5, p = (0.01, 0.02, 0.03, 0.04, 0.05), already sorted:
        // 5·0.01 = 0.05, 4·0.02 = 0.08, 3·0.03 = 0.09, 2·0.04 = 0.08 → 0.09 (running
        // max), 1·0.05 = 0.05 → 0.09.
        let adjusted = holm_adjust(&values(&[0.01, 0.02, 0.03, 0.04, 0.05]));
        let expected = [0.05, 0.08, 0.09, 0.09, 0.09];
        for (a, e) in adjusted.iter().zip(expected) {
            assert_relative_eq!(a.p, e, max_relative = 1e-14);
        }
    }

    #[test]
    fn holm_caps_at_one_and_keeps_monotone_order() {
        let adjusted = holm_adjust(&values(&[0.9, 0.5, 0.2]));
        assert_eq!(adjusted[0], PValue::ONE);
        assert_eq!(adjusted[1], PValue::ONE);
        assert_relative_eq!(adjusted[2].p, 0.6, max_relative = 1e-15);
    }

    #[test]
    fn holm_adjusts_p_values_below_the_f64_range_in_log_space() {
        let input = [
            PValue::from_log10(-5000.0),
            PValue::from_p(0.2),
            PValue::from_log10(-4999.5),
        ];
        let adjusted = holm_adjust(&input);
        assert_relative_eq!(
            adjusted[0].log10,
            -5000.0 + 3f64.log10(),
            max_relative = 1e-15
        );
        assert_relative_eq!(
            adjusted[2].log10,
            -4999.5 + 2f64.log10(),
            max_relative = 1e-15
        );
        assert_relative_eq!(adjusted[1].p, 0.2, max_relative = 1e-15);
        assert_eq!(adjusted[0].p, 0.0);
    }

    #[test]
    fn holm_keeps_impossible_outcomes_at_zero_and_handles_empty_input() {
        let adjusted = holm_adjust(&[PValue::ZERO, PValue::from_p(0.01)]);
        assert_eq!(adjusted[0], PValue::ZERO);
        assert_relative_eq!(adjusted[1].p, 0.01, max_relative = 1e-15);
        assert!(holm_adjust(&[]).is_empty());
    }
}
