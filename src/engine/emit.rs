//! Writing a run's raw permutations (`run --emit-permutations FILE`): one shuffle per line, in
//! the order of the blocks and of the shuffles within each block, cards 0-based.
//!
//! The writer drives the same algorithm code with the same per-block ChaCha streams as the
//! simulation, through the plain reference loop (one shuffle, one line) rather than the batched
//! hot loop. So `shuffle-bias check FILE` reproducing the run's counts exactly is also a check of
//! the optimised tally against the simplest possible one.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::engine::algorithms::Card;
use crate::engine::choice_table::dispatch_run;
use crate::engine::mapped_source::{SourceSpec, SourcesVisitor};
use crate::engine::random_source::{BlockSources, RandomSource};
use crate::engine::simulate::{BLOCK_TRIALS, SimulationSpec};

/// Write every permutation of the run described by `spec` to `out`, after a `#` header line.
/// Setting `stop` ends the writing at the next block: the result is then `Ok(false)`, and what
/// was written is not the whole run.
pub fn emit_permutations(
    spec: &SimulationSpec,
    out: &mut dyn Write,
    stop: &AtomicBool,
) -> io::Result<bool> {
    emit_permutations_from(spec, &SourceSpec::chacha(spec.rng), out, stop)
}

/// [`emit_permutations`] with the random source `source` instead of `spec.rng` (the same
/// shuffles as [`crate::engine::simulate::simulate`] tallies).
pub fn emit_permutations_from(
    spec: &SimulationSpec,
    source: &SourceSpec,
    out: &mut dyn Write,
    stop: &AtomicBool,
) -> io::Result<bool> {
    emit_permutations_headed(spec, source, None, out, stop)
}

/// [`emit_permutations_from`] with `header` as the first line instead of the `run` command
/// that makes the same file (a `case` names itself: its seeding has no `run` flags).
pub fn emit_permutations_headed(
    spec: &SimulationSpec,
    source: &SourceSpec,
    header: Option<&str>,
    out: &mut dyn Write,
    stop: &AtomicBool,
) -> io::Result<bool> {
    let shuffle = spec.shuffle;
    let mut flags = String::new();
    if let Some(p) = shuffle.cut_probability_used() {
        flags.push_str(&format!(" --cut-probability {p}"));
    }
    if let Some(m) = shuffle.shelves_used() {
        flags.push_str(&format!(" --shelves {m}"));
    }
    if shuffle.passes != 1 {
        flags.push_str(&format!(" --passes {}", shuffle.passes));
    }
    let mut generator = format!("--rng {}", source.generator.name());
    if !source.is_fast_path() {
        generator.push_str(&format!(" --map {}", source.mapping.name()));
        if let Some(bits) = source.bits {
            generator.push_str(&format!(" --bits {bits}"));
        }
    }
    // The header is the command that makes the same file again: the re-seeding too.
    if let Some(reseed) = source.reseed {
        generator.push_str(&format!(
            " --reseed every-shuffle --seed-bits {} --seeds {}",
            reseed.bits,
            reseed.seeds.name()
        ));
    }
    match header {
        Some(header) => writeln!(out, "{header}")?,
        None => writeln!(
            out,
            "# shuffle-bias run {}{flags} --deck {} --trials {} --seed {} {generator}: one \
             shuffle per line, the card at each position (cards 0-based)",
            shuffle.algorithm.name(),
            spec.deck,
            spec.trials,
            spec.seed,
        )?,
    }
    struct Emit<'a, 'w> {
        spec: &'a SimulationSpec,
        out: &'a mut io::BufWriter<&'w mut dyn Write>,
        stop: &'a AtomicBool,
    }
    impl SourcesVisitor for Emit<'_, '_> {
        type Output = io::Result<bool>;
        fn visit<B: BlockSources>(self, sources: &B) -> io::Result<bool> {
            emit_with(self.spec, sources, self.out, self.stop)
        }
    }
    let mut writer = io::BufWriter::with_capacity(1 << 20, out);
    let complete = dispatch_run(
        spec.shuffle,
        spec.deck,
        source,
        Emit {
            spec,
            out: &mut writer,
            stop,
        },
    )?;
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

fn emit_with<B: BlockSources>(
    spec: &SimulationSpec,
    sources: &B,
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
        let mut source = sources.for_block(spec.seed, block);
        for _ in 0..length {
            deck.copy_from_slice(&identity);
            if B::Source::STARTS_SHUFFLES {
                source.start_shuffle();
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::algorithms::Algorithm;
    use crate::engine::generators::GeneratorKind;
    use crate::engine::mapped_source::Generator;
    use crate::engine::mapping::Mapping;
    use crate::engine::permutation::rank;
    use crate::engine::random_source::RngKind;
    use crate::engine::simulate::{Simulation, simulate};

    #[test]
    fn the_permutations_written_are_the_shuffles_tallied_for_any_source() {
        let spec = SimulationSpec {
            shuffle: Algorithm::FisherYates.into(),
            deck: 4,
            trials: BLOCK_TRIALS + 500,
            seed: 11,
            rng: RngKind::Chacha8,
            threads: 2,
        };
        let stop = AtomicBool::new(false);
        for source in [
            SourceSpec::chacha(RngKind::Chacha8),
            SourceSpec {
                generator: Generator::Other(GeneratorKind::AnsiC),
                mapping: Mapping::Modulo,
                bits: Some(8),
                reseed: None,
            },
        ] {
            let mut text = Vec::new();
            assert!(emit_permutations_from(&spec, &source, &mut text, &stop).unwrap());
            let text = String::from_utf8(text).unwrap();
            let mut lines = text.lines();
            let header = lines.next().unwrap();
            assert!(header.contains(&format!("--rng {}", source.generator.name())));
            let mut counts = vec![0u64; 24];
            for line in lines {
                let deck: Vec<Card> = line.split(' ').map(|t| t.parse().unwrap()).collect();
                counts[rank(&deck)] += 1;
            }
            let tally =
                simulate(&spec, &Simulation::from_source(&source), &stop, &mut |_| {}).into_full();
            assert_eq!(counts, tally.counts, "{header}");
        }
    }
}
