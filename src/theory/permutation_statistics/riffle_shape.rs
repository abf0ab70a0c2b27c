//! The laws of the descents and the valleys of a deck after K Gilbert–Shannon–Reeds riffles,
//! for decks of any size up to [`MAX_SHAPE_DECK`].
//!
//! K riffles make one a-shuffle with a = 2^K (Bayer & Diaconis 1992), and an a-shuffle is the
//! same as giving each position of the new deck a packet 1 … a, independently and uniformly
//! (the a^n packet sequences are equally likely), then filling the positions of packet 1 with
//! the top cards of the old deck in order, those of packet 2 with the next ones, and so on. Two
//! neighbouring positions p, p + 1 hold a falling pair of cards exactly when the packet of p is
//! above the packet of p + 1 (a card of the same packet or of a later one is higher). So the
//! descents of the deck are the strict descents of a uniform sequence over 1 … a, and its valleys
//! the positions whose packet is below the one before and not above the one after: both are
//! counted by a walk over the sequence that keeps, for each last packet (and whether the last
//! step fell), the law of the count so far. Prefix sums over the packets make a step
//! O(a · values), the whole walk O(n · a · values) in f64, each step's probabilities exact to
//! rounding (sums of positive terms).

use super::ValueLaw;

/// The largest deck the walk takes: beyond it the least likely value can fall below f64's range
/// (1/150! is about 10^−263).
pub const MAX_SHAPE_DECK: usize = 150;

/// The most work (positions × packets × values) the walk is given: a fraction of a second.
const MAX_WORK: u128 = 400_000_000;

/// The packets of K riffles, 2^K, when the walk over n cards stays within its budget.
fn packets(n: usize, passes: u32, values: usize) -> Option<usize> {
    if n == 0 || n > MAX_SHAPE_DECK || passes >= 32 {
        return None;
    }
    let a = 1usize << passes;
    let work = n as u128 * a as u128 * values as u128 * 2;
    (work <= MAX_WORK).then_some(a)
}

/// For each packet e and count k: Σ_{d ≤ e} law\[d\]\[k\] and Σ_{d > e} law\[d\]\[k\], each a
/// sum of non-negative terms (no subtraction, so that a small probability keeps its digits).
fn split_sums(law: &[Vec<f64>]) -> (Vec<Vec<f64>>, Vec<Vec<f64>>) {
    let values = law.first().map_or(0, Vec::len);
    let mut at_most = Vec::with_capacity(law.len());
    let mut running = vec![0.0f64; values];
    for row in law {
        running.iter_mut().zip(row).for_each(|(sum, p)| *sum += p);
        at_most.push(running.clone());
    }
    let mut above = vec![Vec::new(); law.len()];
    let mut running = vec![0.0f64; values];
    for (e, row) in law.iter().enumerate().rev() {
        above[e] = running.clone();
        running.iter_mut().zip(row).for_each(|(sum, p)| *sum += p);
    }
    (at_most, above)
}

/// The law of the descents (positions whose card is above the next one's) after `passes`
/// riffles of n cards, values 0 … n − 1; None beyond [`MAX_SHAPE_DECK`] cards or the budget.
pub fn riffle_descent_law(n: usize, passes: u32) -> Option<ValueLaw> {
    let values = n.max(1);
    let a = packets(n, passes, values)?;
    let share = 1.0 / a as f64;
    // law[d][k]: P(the last packet is d and k descents so far).
    let mut law = vec![vec![0.0f64; values]; a];
    for row in &mut law {
        row[0] = share;
    }
    for _ in 1..n {
        let (at_most, above) = split_sums(&law);
        for (e, row) in law.iter_mut().enumerate() {
            for k in 0..values {
                let falling = if k > 0 { above[e][k - 1] } else { 0.0 };
                row[k] = share * (at_most[e][k] + falling);
            }
        }
    }
    let probabilities = (0..values)
        .map(|k| law.iter().map(|row| row[k]).sum())
        .collect();
    Some(ValueLaw::from_probabilities(probabilities))
}

/// The law of the valleys (positions whose card is below both neighbours') after `passes`
/// riffles of n cards, values 0 … ⌊(n − 1)/2⌋; None beyond [`MAX_SHAPE_DECK`] cards or the
/// budget.
pub fn riffle_valley_law(n: usize, passes: u32) -> Option<ValueLaw> {
    let values = n.saturating_sub(1) / 2 + 1;
    let a = packets(n, passes, values)?;
    let share = 1.0 / a as f64;
    // steady[d][v], fell[d][v]: P(the last packet is d, v valleys so far, and the last step did
    // not fall / fell).
    let mut steady = vec![vec![0.0f64; values]; a];
    let mut fell = vec![vec![0.0f64; values]; a];
    for row in &mut steady {
        row[0] = share;
    }
    for _ in 1..n {
        let (steady_at_most, steady_above) = split_sums(&steady);
        let (fell_at_most, fell_above) = split_sums(&fell);
        for e in 0..a {
            for v in 0..values {
                // A step onto e from d ≤ e does not fall, and ends a valley if the step before
                // fell; a step from d > e falls.
                let after_fall = if v > 0 { fell_at_most[e][v - 1] } else { 0.0 };
                steady[e][v] = share * (steady_at_most[e][v] + after_fall);
                fell[e][v] = share * (steady_above[e][v] + fell_above[e][v]);
            }
        }
    }
    let probabilities = (0..values)
        .map(|v| {
            steady.iter().map(|row| row[v]).sum::<f64>() + fell.iter().map(|row| row[v]).sum::<f64>()
        })
        .collect();
    Some(ValueLaw::from_probabilities(probabilities))
}
