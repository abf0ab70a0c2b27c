//! The tests of five-card poker hands (`check --deal 5 --game poker`): the hand categories
//! against their exact probabilities, and the category of each hand against the category of
//! the hand before it.
//!
//! * **poker hands** — the nine categories' counts against the exact counts out of C(52, 5) =
//!   2,598,960 ([`Category::exact_count`]). The rare categories are pooled with their
//!   neighbours (in the order high card … straight flush) until every cell is expected at least
//!   5 times (Cochran 1954), as the permutation statistics are ([`pooled_cells`]); then
//!   Pearson's χ² with cells − 1 degrees of freedom, or, when fewer than two cells can be
//!   formed, the exact binomial test of the hands outside the likeliest category.
//! * **poker transitions** — the 9×9 table of (category of hand t, category of hand t+1) tested
//!   for independence: Pearson's χ² with expected counts r_i·c_j/N from the table's own margins
//!   and (R − 1)(C − 1) degrees of freedom. The pairs of consecutive hands of a sequence of
//!   independent hands behave, for this test, like independent pairs: the statistic is
//!   asymptotically χ² with (R − 1)(C − 1) df under independence (Anderson & Goodman 1957,
//!   the test of a zero-order against a first-order Markov chain). The margins are estimated,
//!   not taken from the exact law, so the test stays valid when the categories themselves are
//!   biased: it asks only whether a hand depends on the one before. Rare categories are pooled
//!   (from straight flush down) into classes whose count is at least √(5N), so every expected
//!   cell is about 5 or more.

use std::ops::Range;

use super::goodness_of_fit::{pooled_cells, statistic_test};
use super::test_note::TestNote;
use super::{Draft, Question, TestMethod};
use crate::stats::chi_square::chi_square_sf;
use crate::stats::pvalue::PValue;
use crate::theory::permutation_statistics::ValueLaw;
use crate::theory::poker::Category;

/// The name of the category test.
pub const CATEGORY_TEST: &str = "poker hands";

/// The name of the test of consecutive hands.
pub const TRANSITION_TEST: &str = "poker transitions";

/// The exact law of the category of a uniformly dealt five-card hand, weakest first.
pub fn category_law() -> ValueLaw {
    ValueLaw::from_probabilities(Category::ALL.iter().map(|c| c.probability()).collect())
}

/// The category test: `observed[c]` hands of category `Category::ALL[c]` out of `hands`,
/// against [`category_law`] over pooled cells. Returns the test and its cells (ranges of
/// category indices).
pub fn category_test(observed: &[u64; 9], hands: u64) -> (Draft, Vec<Range<usize>>) {
    let law = category_law();
    let cells = pooled_cells(&law, hands);
    let draft = statistic_test(CATEGORY_TEST, observed, &law, &cells, hands);
    (draft, cells)
}

/// The test of independence of consecutive hands, with the pooled table it was computed on.
#[derive(Debug, Clone, PartialEq)]
pub struct TransitionTest {
    /// The classes of categories (ranges of category indices, weakest first) the table was
    /// pooled into.
    pub classes: Vec<Range<usize>>,
    /// `pooled[a][b]`: pairs of consecutive hands whose first is of class a and second of
    /// class b.
    pub pooled: Vec<Vec<u64>>,
    /// The smallest expected cell r_i·c_j/N of the pooled table.
    pub smallest_expected: f64,
    /// The test.
    pub draft: Draft,
}

/// The classes of categories for the independence test: from the strongest category down,
/// categories are pooled until a class holds at least √(5·pairs) of the hands counted in the
/// table (the mean of its row and column sums); a last class short of that joins the one
/// before. Classes are returned weakest first.
pub fn transition_classes(table: &[[u64; 9]; 9]) -> Vec<Range<usize>> {
    let pairs: u64 = table.iter().flatten().sum();
    let threshold = (5.0 * pairs as f64).sqrt();
    let weight = |category: usize| {
        let row: u64 = table[category].iter().sum();
        let column: u64 = table.iter().map(|row| row[category]).sum();
        (row + column) as f64 / 2.0
    };
    let mut classes: Vec<Range<usize>> = Vec::new();
    let mut end = table.len();
    let mut sum = 0.0;
    for category in (0..table.len()).rev() {
        sum += weight(category);
        if sum >= threshold && sum > 0.0 {
            classes.push(category..end);
            end = category;
            sum = 0.0;
        }
    }
    if end > 0 {
        match classes.last_mut() {
            Some(last) => last.start = 0,
            None => classes.push(0..end),
        }
    }
    classes.reverse();
    classes
}

/// The independence test of consecutive hands' categories (`table[a][b]`: a hand of category
/// b right after one of category a), over the classes of [`transition_classes`].
pub fn transition_test(table: &[[u64; 9]; 9]) -> TransitionTest {
    let classes = transition_classes(table);
    let pooled: Vec<Vec<u64>> = classes
        .iter()
        .map(|rows| {
            classes
                .iter()
                .map(|columns| {
                    table[rows.clone()]
                        .iter()
                        .map(|row| row[columns.clone()].iter().sum::<u64>())
                        .sum()
                })
                .collect()
        })
        .collect();
    let pairs: u64 = pooled.iter().flatten().sum();
    let rows: Vec<u64> = pooled.iter().map(|row| row.iter().sum()).collect();
    let columns: Vec<u64> = (0..classes.len())
        .map(|b| pooled.iter().map(|row| row[b]).sum())
        .collect();
    let live_rows = rows.iter().filter(|&&r| r > 0).count();
    let live_columns = columns.iter().filter(|&&c| c > 0).count();
    let mut statistic = 0.0;
    let mut smallest_expected = f64::INFINITY;
    for (a, row) in pooled.iter().enumerate() {
        for (b, &observed) in row.iter().enumerate() {
            let expected = rows[a] as f64 * columns[b] as f64 / pairs.max(1) as f64;
            if expected > 0.0 {
                statistic += (observed as f64 - expected).powi(2) / expected;
                smallest_expected = smallest_expected.min(expected);
            }
        }
    }
    let df = (live_rows.saturating_sub(1) * live_columns.saturating_sub(1)) as f64;
    let (p, note) = if pairs == 0 {
        (PValue::ONE, Some(TestNote::NoTrials))
    } else if df == 0.0 {
        (PValue::ONE, Some(TestNote::OneCell))
    } else {
        (chi_square_sf(statistic, df), None)
    };
    TransitionTest {
        classes,
        pooled,
        smallest_expected: if smallest_expected.is_finite() {
            smallest_expected
        } else {
            0.0
        },
        draft: Draft {
            question: Question::Dependence,
            name: TRANSITION_TEST.to_string(),
            method: TestMethod::PearsonIndependence,
            statistic,
            df: Some(df),
            p,
            note,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn hands_in_their_exact_proportions_give_a_small_chi_square() {
        // 2,598,960 hands in exactly the published counts: χ² = 0 over every cell.
        let observed: [u64; 9] = std::array::from_fn(|c| Category::ALL[c].exact_count());
        let (draft, cells) = category_test(&observed, 2_598_960);
        assert_eq!(cells.len(), 9, "every category is expected ≥ 5 times");
        assert_relative_eq!(draft.statistic, 0.0, epsilon = 1e-9);
        assert_eq!(draft.df, Some(8.0));
    }

    #[test]
    fn a_table_that_is_the_product_of_its_margins_is_independent() {
        // Rows and columns in proportions 1:2:3 over three categories, 36 × 100 pairs:
        // observed = expected in every cell.
        let mut table = [[0u64; 9]; 9];
        for (a, ra) in [(0, 1), (1, 2), (2, 3)] {
            for (b, cb) in [(0, 1), (1, 2), (2, 3)] {
                table[a][b] = 100 * ra * cb;
            }
        }
        let test = transition_test(&table);
        assert_eq!(test.classes, vec![0..1, 1..2, 2..9]);
        assert_relative_eq!(test.draft.statistic, 0.0, epsilon = 1e-9);
        assert_eq!(test.draft.df, Some(4.0));
        assert_relative_eq!(test.smallest_expected, 100.0, max_relative = 1e-12);
    }

    #[test]
    fn a_two_by_two_table_gives_the_textbook_statistic() {
        // [[30, 10], [10, 30]]: margins 40/40, expected 20 everywhere, χ² = 4·10²/20 = 20.
        let mut table = [[0u64; 9]; 9];
        table[0][0] = 30;
        table[0][1] = 10;
        table[1][0] = 10;
        table[1][1] = 30;
        let test = transition_test(&table);
        assert_eq!(test.classes, vec![0..1, 1..9]);
        assert_relative_eq!(test.draft.statistic, 20.0, max_relative = 1e-12);
        assert_eq!(test.draft.df, Some(1.0));
        assert_relative_eq!(test.draft.p.p, 7.744e-6, max_relative = 1e-3);
    }

    #[test]
    fn rare_categories_are_pooled_from_the_strongest_down() {
        // 80 pairs: threshold √400 = 20. Categories 8..2 hold 1 each (7 in all), category 1
        // 30, category 0 43: classes {1..9} (37 ≥ 20) and {0} (43).
        let mut table = [[0u64; 9]; 9];
        for row in &mut table[2..9] {
            row[0] = 1;
        }
        table[0][2..9].fill(1);
        table[1][1] = 30;
        table[0][0] = 36;
        let pairs: u64 = table.iter().flatten().sum();
        assert_eq!(pairs, 80);
        assert_eq!(transition_classes(&table), vec![0..1, 1..9]);
    }
}
