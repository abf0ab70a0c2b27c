//! The random source's flags checked once: `--rng`, `--map`, `--bits` (and for `run`,
//! `--reseed`, `--seed-bits`, `--seeds`), against each other and against the deck.

use super::UsageError;
use crate::cli::{ReseedArgs, ReseedWhen, SeedsChoice, SourceArgs};
use crate::engine::generators::GeneratorKind;
use crate::engine::mapped_source::{Generator, Reseed, SeedSequence, SourceSpec};
use crate::engine::mapping::{Mapping, NativeDraw};
use crate::theory::exact::ChoiceLaw;

/// The narrowest and widest words `--bits` accepts.
pub const WORD_BITS: std::ops::RangeInclusive<u32> = 8..=64;

/// The source of `--rng`, `--map` and `--bits` (no re-seeding), checked for a deck of `deck`
/// cards (the largest `k` any algorithm draws below).
pub fn source_spec(
    generator: Generator,
    args: &SourceArgs,
    deck: usize,
) -> Result<SourceSpec, UsageError> {
    let mapping = args.map.unwrap_or(Mapping::Lemire);
    if let Some(bits) = args.bits {
        if !WORD_BITS.contains(&bits) {
            return Err(UsageError::out_of_range(
                "--bits",
                bits,
                "words of 8 to 64 bits can be mapped (e.g. --bits 8 to see modulo bias at once)",
            ));
        }
        if bits > generator.bits() {
            return Err(UsageError::out_of_range(
                "--bits",
                bits,
                format!(
                    "{} gives {}-bit words; use --bits {} or fewer, or another --rng",
                    generator.name(),
                    generator.bits(),
                    generator.bits()
                ),
            ));
        }
    }
    if mapping == Mapping::Native {
        let Some(native) = generator.native_draw() else {
            return Err(UsageError::conflict(
                "--map",
                "native",
                format!(
                    "--rng {} has no bounded draw of its own language; --map native is offered \
                     by --rng {}",
                    generator.name(),
                    NativeDraw::generators().join(", ")
                ),
            ));
        };
        if let Some(bits) = args.bits {
            return Err(UsageError::conflict(
                "--bits",
                bits,
                format!(
                    "--map native draws from {}'s own words, as {} does; drop --bits",
                    generator.name(),
                    native.call()
                ),
            ));
        }
        if deck as u64 > native.max_range() {
            return Err(UsageError::conflict(
                "--map",
                "native",
                format!(
                    "{} draws below at most {}, not {deck}",
                    native.call(),
                    native.max_range()
                ),
            ));
        }
    }
    let spec = SourceSpec {
        generator,
        mapping,
        bits: args.bits,
        reseed: None,
    };
    let law = choice_law(&spec);
    law.mapping
        .check(deck as u64, law.bits)
        .map_err(|error| UsageError::conflict("--map", mapping.name(), error.to_string()))?;
    Ok(spec)
}

/// `run`'s source: [`source_spec`] and the re-seeding flags.
pub fn run_source_spec(
    generator: Generator,
    args: &SourceArgs,
    reseed: &ReseedArgs,
    deck: usize,
) -> Result<SourceSpec, UsageError> {
    let mut spec = source_spec(generator, args, deck)?;
    match (reseed.reseed, reseed.seed_bits) {
        (None, None) => {
            if let Some(seeds) = reseed.seeds {
                return Err(UsageError::conflict(
                    "--seeds",
                    seeds_name(seeds),
                    "seeds belong to --reseed every-shuffle --seed-bits B; add them, or drop \
                     --seeds",
                ));
            }
        }
        (None, Some(bits)) => {
            return Err(UsageError::conflict(
                "--seed-bits",
                bits,
                "seed bits belong to --reseed every-shuffle; add it, or drop --seed-bits",
            ));
        }
        (Some(ReseedWhen::EveryShuffle), None) => {
            return Err(UsageError::Conflict {
                flag: "--reseed",
                value: Some("every-shuffle".to_string()),
                hint: "say how many bits each seed has, e.g. --seed-bits 32 (a 32-bit seed) or \
                       --seed-bits 27 (a millisecond clock over a day)"
                    .to_string(),
            });
        }
        (Some(ReseedWhen::EveryShuffle), Some(_))
            if generator == Generator::Other(GeneratorKind::Os) =>
        {
            return Err(UsageError::Conflict {
                flag: "--reseed",
                value: Some("every-shuffle".to_string()),
                hint: "the os generator takes no seed; re-seed a reproducible --rng instead"
                    .to_string(),
            });
        }
        (Some(ReseedWhen::EveryShuffle), Some(bits)) => {
            if !(1..=64).contains(&bits) {
                return Err(UsageError::out_of_range(
                    "--seed-bits",
                    bits,
                    "a seed has 1 to 64 bits",
                ));
            }
            spec.reseed = Some(Reseed {
                bits,
                seeds: match reseed.seeds.unwrap_or(SeedsChoice::Random) {
                    SeedsChoice::Random => SeedSequence::Random,
                    SeedsChoice::Counter => SeedSequence::Counter,
                },
            });
        }
    }
    Ok(spec)
}

fn seeds_name(seeds: SeedsChoice) -> &'static str {
    match seeds {
        SeedsChoice::Random => "random",
        SeedsChoice::Counter => "counter",
    }
}

/// The law of one `below(k)` under the source, for the exact engine: the mapping's weights over
/// uniform words of the width it sees (for `float`, the precision of the doubles; for `native`,
/// the law of the generator's own draw, [`NativeDraw::law`]).
pub fn choice_law(spec: &SourceSpec) -> ChoiceLaw {
    if spec.mapping == Mapping::Native {
        let native = spec
            .generator
            .native_draw()
            .expect("--map native is refused for a generator without a native draw");
        let (mapping, bits) = native.law(spec.generator.double_bits());
        return ChoiceLaw { mapping, bits };
    }
    let bits = match (spec.mapping, spec.bits) {
        (Mapping::Float, Some(bits)) => bits.min(53),
        (Mapping::Float, None) => match spec.generator {
            Generator::ChaCha(_) => 32,
            Generator::Other(kind) => kind.double_bits(),
        },
        (_, bits) => bits.unwrap_or_else(|| spec.generator.bits()),
    };
    ChoiceLaw {
        mapping: spec.mapping,
        bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::random_source::RngKind;

    fn args(map: Option<Mapping>, bits: Option<u32>) -> SourceArgs {
        SourceArgs { map, bits }
    }

    #[test]
    fn bits_beyond_the_generator_or_the_range_are_refused_with_the_fix() {
        let msvc = Generator::Other(GeneratorKind::Msvc);
        let error = source_spec(msvc, &args(None, Some(16)), 4)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("--bits 16: msvc gives 15-bit words"),
            "{error}"
        );
        let chacha = Generator::ChaCha(RngKind::Chacha8);
        let error = source_spec(chacha, &args(None, Some(4)), 4)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("--bits 4: words of 8 to 64 bits"),
            "{error}"
        );
        assert!(source_spec(chacha, &args(Some(Mapping::Modulo), Some(8)), 52).is_ok());
    }

    #[test]
    fn reseed_flags_come_together_or_not_at_all() {
        let chacha = Generator::ChaCha(RngKind::Chacha8);
        let reseed = |reseed, seed_bits, seeds| ReseedArgs {
            reseed,
            seed_bits,
            seeds,
        };
        let plain = args(None, None);
        let missing_bits = run_source_spec(
            chacha,
            &plain,
            &reseed(Some(ReseedWhen::EveryShuffle), None, None),
            4,
        );
        assert!(
            missing_bits
                .unwrap_err()
                .to_string()
                .contains("--seed-bits 32")
        );
        let lone_bits = run_source_spec(chacha, &plain, &reseed(None, Some(32), None), 4);
        assert!(
            lone_bits
                .unwrap_err()
                .to_string()
                .starts_with("--seed-bits 32:")
        );
        let spec = run_source_spec(
            chacha,
            &plain,
            &reseed(
                Some(ReseedWhen::EveryShuffle),
                Some(32),
                Some(SeedsChoice::Counter),
            ),
            4,
        )
        .unwrap();
        assert_eq!(
            spec.reseed,
            Some(Reseed {
                bits: 32,
                seeds: SeedSequence::Counter
            })
        );
    }

    #[test]
    fn the_float_law_counts_the_generators_doubles() {
        let java = Generator::Other(GeneratorKind::Java);
        let spec = source_spec(java, &args(Some(Mapping::Float), None), 52).unwrap();
        assert_eq!(choice_law(&spec).bits, 53);
        let spec = source_spec(java, &args(Some(Mapping::Float), Some(16)), 52).unwrap();
        assert_eq!(choice_law(&spec).bits, 16);
        let spec = source_spec(java, &args(Some(Mapping::Modulo), None), 52).unwrap();
        assert_eq!(choice_law(&spec).bits, 32);
    }
}
