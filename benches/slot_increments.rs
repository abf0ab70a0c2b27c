//! What holds the deal stream's slot tables (issue #32): a model of
//! `DealStream::drain_pending`'s loop (for each of 52 slots, 256 pending 52-card deals, a
//! 16-bit counter of 64 × 64 incremented at (card in one deal, card in the next)) against the
//! floor of its one operation, increments of 16-bit counters at indices computed beforehand
//! (random cells of one 4096-counter table, no loads of cards, no chain between steps). The
//! cards and indices are SplitMix64 values, as random as a fair shuffle's. Each figure is the
//! best of REPS runs, the two loops taking turns, in ns per increment.
//!
//! Usage: `cargo bench --bench slot_increments -- [REPS]` (default 5).

use std::hint::black_box;
use std::time::Instant;

/// Slots (and cards) of a 52-card deal.
const SLOTS: usize = 52;
/// Deals kept before they are counted (the stream's `PENDING_DEALS`).
const PENDING: usize = 256;
/// Counters of one slot's table (64 × 64, the stream's `TABLE`).
const TABLE: usize = 64 * 64;
/// Batches of pending deals counted per run.
const BATCHES: usize = 2000;

/// SplitMix64 (Steele, Lea and Flood 2014): seeded test values.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        shuffle_bias::engine::random_source::splitmix64(&mut self.0)
    }
}

/// The slot tables' loop: slot by slot, each pending deal's card after the previous deal's.
#[inline(never)]
fn slot_tables(deals: &[u8], tables: &mut [u16]) {
    for (slot, table) in tables.chunks_exact_mut(TABLE).enumerate() {
        let mut before = usize::from(deals[slot]);
        for deal in deals[SLOTS..].chunks_exact(SLOTS) {
            let after = usize::from(deal[slot]);
            let cell = &mut table[(before * 64 + after) % TABLE];
            *cell = cell.wrapping_add(1);
            before = after;
        }
    }
}

/// The floor: one increment per index, the indices ready.
#[inline(never)]
fn increments(indices: &[u16], table: &mut [u16]) {
    for &index in indices {
        let cell = &mut table[usize::from(index) % TABLE];
        *cell = cell.wrapping_add(1);
    }
}

fn main() {
    // `cargo bench` passes `--bench`; the first other argument is REPS.
    let reps: usize = std::env::args()
        .skip(1)
        .find(|a| a != "--bench")
        .map(|r| r.parse().expect("REPS is a number"))
        .unwrap_or(5);
    let mut random = SplitMix(0x5eed);
    let deals: Vec<u8> = (0..PENDING * SLOTS)
        .map(|_| (random.next() % SLOTS as u64) as u8)
        .collect();
    // As many increments as the slot tables make, at cells of a 52 × 52 corner of the table.
    let per_batch = SLOTS * (PENDING - 1);
    let indices: Vec<u16> = (0..per_batch)
        .map(|_| {
            let pair = random.next() % (SLOTS * SLOTS) as u64;
            ((pair / SLOTS as u64) * 64 + pair % SLOTS as u64) as u16
        })
        .collect();
    let mut tables = vec![0u16; SLOTS * TABLE];
    let mut table = vec![0u16; TABLE];
    let mut best = [f64::MAX; 2];
    for _ in 0..reps {
        let start = Instant::now();
        for _ in 0..BATCHES {
            slot_tables(black_box(&deals), &mut tables);
        }
        best[0] = best[0].min(start.elapsed().as_secs_f64());
        let start = Instant::now();
        for _ in 0..BATCHES {
            increments(black_box(&indices), &mut table);
        }
        best[1] = best[1].min(start.elapsed().as_secs_f64());
    }
    let total = (BATCHES * per_batch) as f64;
    println!(
        "slot tables (52 slots x 255 pairs a batch): {:.2} ns per increment",
        best[0] / total * 1e9
    );
    println!(
        "increments at indices ready (the floor):    {:.2} ns per increment",
        best[1] / total * 1e9
    );
    // Every increment was made: each 16-bit counter wraps, so the counters of each loop sum,
    // modulo 2^16, to the increments it made (which also keeps both loops from being dropped).
    let made = (reps as u64 * total as u64) % (1 << 16);
    for counters in [&tables, &table] {
        let sum: u64 = counters.iter().map(|&c| u64::from(c)).sum();
        assert_eq!(sum % (1 << 16), made);
    }
}
