//! Writing a run's raw permutations (`run --emit-permutations FILE`): one shuffle per line, in
//! the order of the blocks and of the shuffles within each block, cards 0-based.
//!
//! The writer drives the same algorithm code with the same per-block ChaCha streams as the
//! simulation, through the plain reference loop (one shuffle, one line) rather than the batched
//! hot loop. So `shuffle-bias check FILE` reproducing the run's counts exactly is also a check of
//! the optimised tally against the simplest possible one.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use rand_chacha::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};

use crate::engine::algorithms::Card;
use crate::engine::random_source::{BlockRng, FastSource, RngKind};
use crate::engine::simulate::{BLOCK_TRIALS, SimulationSpec};

/// Write every permutation of the run described by `spec` to `out`, after a `#` header line.
/// Setting `stop` ends the writing at the next block: the result is then `Ok(false)`, and what
/// was written is not the whole run.
pub fn emit_permutations(
    spec: &SimulationSpec,
    out: &mut dyn Write,
    stop: &AtomicBool,
) -> io::Result<bool> {
    let shuffle = spec.shuffle;
    let mut flags = String::new();
    if let Some(p) = shuffle.cut_probability_used() {
        flags.push_str(&format!(" --cut-probability {p}"));
    }
    if shuffle.passes != 1 {
        flags.push_str(&format!(" --passes {}", shuffle.passes));
    }
    writeln!(
        out,
        "# shuffle-bias run {}{flags} --deck {} --trials {} --seed {} --rng {}: one shuffle per \
         line, the card at each position (cards 0-based)",
        shuffle.algorithm.name(),
        spec.deck,
        spec.trials,
        spec.seed,
        spec.rng.name()
    )?;
    let mut writer = io::BufWriter::with_capacity(1 << 20, out);
    let complete = match spec.rng {
        RngKind::Chacha8 => emit_with::<ChaCha8Rng>(spec, &mut writer, stop)?,
        RngKind::Chacha12 => emit_with::<ChaCha12Rng>(spec, &mut writer, stop)?,
        RngKind::Chacha20 => emit_with::<ChaCha20Rng>(spec, &mut writer, stop)?,
    };
    writer.flush()?;
    Ok(complete)
}

/// Append the decimal digits of `value`.
fn push_decimal(line: &mut Vec<u8>, value: Card) {
    if value >= 10 {
        push_decimal(line, value / 10);
    }
    line.push(b'0' + (value % 10) as u8);
}

fn emit_with<R: BlockRng>(
    spec: &SimulationSpec,
    out: &mut dyn Write,
    stop: &AtomicBool,
) -> io::Result<bool> {
    let n = spec.deck;
    let identity: Vec<Card> = (0..n as Card).collect();
    let mut deck = identity.clone();
    let mut scratch = identity.clone();
    let mut line = Vec::with_capacity(3 * n + 1);
    for block in 0..spec.trials.div_ceil(BLOCK_TRIALS) {
        if stop.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let length = BLOCK_TRIALS.min(spec.trials - block * BLOCK_TRIALS);
        let mut source = FastSource::new(R::for_block(spec.seed, block));
        for _ in 0..length {
            deck.copy_from_slice(&identity);
            spec.shuffle.apply(&mut deck, &mut scratch, &mut source);
            line.clear();
            for (position, &card) in deck.iter().enumerate() {
                if position > 0 {
                    line.push(b' ');
                }
                push_decimal(&mut line, card);
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
    }
    Ok(true)
}
