//! The parsers of the command line's values: counts, seeds, levels and the whole numbers of
//! the flags, each refusing a bad value with what the flag takes.

use super::MAX_PASSES_RANGE;
use crate::engine::algorithms::CutProbability;

/// Parse `--cut-probability`: a decimal or a fraction strictly between 0 and 1, kept exact.
pub fn parse_cut_probability(text: &str) -> Result<CutProbability, String> {
    CutProbability::parse(text)
}

/// Parse `--seed`: any whole number from 0 to 2^64 − 1, written as a count is (`42`, `1e3`,
/// `1_000`, `10k`).
pub fn parse_seed(text: &str) -> Result<u64, String> {
    let cleaned: String = text.trim().chars().filter(|&c| c != '_').collect();
    if !cleaned.is_empty() && cleaned.bytes().all(|b| b.is_ascii_digit()) {
        return cleaned
            .parse()
            .map_err(|_| format!("'{text}' is larger than 2^64 − 1, the largest seed"));
    }
    if let Some(seed) = exact_scientific(&cleaned) {
        return seed;
    }
    parse_count(text).map_err(|_| {
        format!("'{text}' is not a seed; write a whole number from 0 to 2^64 − 1 (e.g. 42)")
    })
}

/// A seed written `D.DDDeN` (`1e19`, `1.5e19`), read exactly rather than through a double,
/// so that every whole number up to 2^64 − 1 can be written so; None when the text is not of
/// that form.
fn exact_scientific(text: &str) -> Option<Result<u64, String>> {
    let (mantissa, exponent) = text.split_once(['e', 'E'])?;
    let exponent: u32 = exponent
        .strip_prefix('+')
        .unwrap_or(exponent)
        .parse()
        .ok()?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let too_large = || {
        Err(format!(
            "'{text}' is larger than 2^64 − 1, the largest seed"
        ))
    };
    let Some(shift) = exponent.checked_sub(fraction.len() as u32) else {
        // Fewer powers of ten than decimals: whole only if the extra decimals are zeros.
        let extra = fraction.len() - exponent as usize;
        let (kept, dropped) = digits.split_at(digits.len() - extra);
        if !dropped.bytes().all(|b| b == b'0') {
            return Some(Err(format!("'{text}' is not a whole number")));
        }
        return Some(kept.parse::<u64>().or_else(|_| too_large()));
    };
    let value = digits
        .parse::<u128>()
        .ok()
        .zip(10u128.checked_pow(shift))
        .and_then(|(digits, power)| digits.checked_mul(power))
        .and_then(|value| u64::try_from(value).ok());
    Some(value.map_or_else(too_large, Ok))
}

/// Parse `--alpha`: a probability strictly between 0 and 1, echoed as written when it is not
/// (`1e-400` is below the smallest double and is refused, not read as 0).
pub fn parse_alpha(text: &str) -> Result<f64, String> {
    let refuse = || {
        format!(
            "'{text}' is not a significance level; write a number strictly between 0 and 1 \
             (e.g. 0.001 or 1e-6)"
        )
    };
    let alpha: f64 = text.trim().parse().map_err(|_| refuse())?;
    if alpha > f64::MIN_POSITIVE && alpha < 1.0 {
        Ok(alpha)
    } else if (0.0..=f64::MIN_POSITIVE).contains(&alpha)
        && text
            .trim()
            .split(['e', 'E'])
            .next()
            .is_some_and(|mantissa| mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)))
    {
        // Between 0 and 1, but below what the p-values are computed with.
        Err(format!(
            "'{text}' is below the smallest level this tool computes with (about 2.2e-308, \
             the smallest normal double); write 1e-300 or more"
        ))
    } else {
        Err(refuse())
    }
}

/// Parse `--deck`: a whole number of cards (the command checks the range).
pub fn parse_deck(text: &str) -> Result<usize, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number of cards; write it like 4 or 52"))
}

/// Parse `--threads`: a whole number of worker threads (the command checks the range).
pub fn parse_threads(text: &str) -> Result<usize, String> {
    text.trim().parse().map_err(|_| {
        format!("'{text}' is not a number of threads; write it like 2, or leave it out")
    })
}

/// A whole number for a flag, read as `T`; otherwise the message says what `what` is and what
/// to write (`takes`), as the other flags' messages do. The command checks the range; a number
/// too large for `T` gets the same message.
fn whole_number<T: std::str::FromStr>(text: &str, what: &str, takes: &str) -> Result<T, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("'{text}' is not {what}; write {takes}"))
}

/// Parse `--passes` of `run` and `check`: a whole number of passes (the command checks the
/// range).
pub fn parse_pass_count(text: &str) -> Result<u32, String> {
    whole_number(
        text,
        "a number of passes",
        &format!("a whole number from 1 to {MAX_PASSES_RANGE} (e.g. 7)"),
    )
}

/// Parse `--shelves`: a whole number of shelves (the command checks the range).
pub fn parse_shelves(text: &str) -> Result<u16, String> {
    whole_number(
        text,
        "a number of shelves",
        &format!(
            "a whole number from 1 to {} (e.g. 10)",
            crate::engine::algorithms::shelf::MAX_SHELVES
        ),
    )
}

/// Parse `--bits`: the width of the words the mapping sees (the command checks the range).
pub fn parse_word_bits(text: &str) -> Result<u32, String> {
    whole_number(
        text,
        "a word width",
        "a whole number of bits from 8 to 64 (e.g. 32)",
    )
}

/// Parse `--seed-bits`: the bits of each seed (the command checks the range).
pub fn parse_seed_bits(text: &str) -> Result<u32, String> {
    whole_number(
        text,
        "a number of seed bits",
        "a whole number from 1 to 64 (e.g. 32 for a 32-bit seed)",
    )
}

/// Parse `--state-bits`: the bits of state (or seed) of a generator (the command checks that
/// there is at least one).
pub fn parse_state_bits(text: &str) -> Result<u32, String> {
    whole_number(
        text,
        "a number of bits",
        "a whole number of at least 1 (e.g. 32 for a 32-bit seed)",
    )
}

/// Parse a count such as `240000`, `240k`, `10M`, `2.5G`, `1e6` or `1_000_000`.
///
/// Suffixes are decimal (k = 10³, M = 10⁶, G or B = 10⁹, T = 10¹²); the value must be a whole
/// number from 0 to 2^63.
pub fn parse_count(text: &str) -> Result<u64, String> {
    let cleaned: String = text.trim().chars().filter(|&c| c != '_').collect();
    if cleaned.is_empty() {
        return Err("expected a number such as 240000, 240k, 10M or 1e6".to_string());
    }
    let (number, multiplier) = match cleaned.chars().last() {
        Some('k' | 'K') => (&cleaned[..cleaned.len() - 1], 1e3),
        Some('M') => (&cleaned[..cleaned.len() - 1], 1e6),
        Some('G' | 'B') => (&cleaned[..cleaned.len() - 1], 1e9),
        Some('T') => (&cleaned[..cleaned.len() - 1], 1e12),
        _ => (cleaned.as_str(), 1.0),
    };
    let invalid =
        || format!("'{text}' is not a count; write it like 240000, 240k, 10M, 1e6 or 1_000_000");
    if multiplier == 1.0 && number.bytes().all(|b| b.is_ascii_digit()) {
        let value: u64 = number
            .parse()
            .map_err(|_| format!("'{text}' is larger than 2^63"))?;
        return if value <= 1 << 63 {
            Ok(value)
        } else {
            Err(format!("'{text}' is larger than 2^63"))
        };
    }
    if !number
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+'))
    {
        return Err(invalid());
    }
    let value: f64 = number.parse().map_err(|_| invalid())?;
    let value = value * multiplier;
    if !value.is_finite() || value > 9.223_372_036_854_776e18 {
        return Err(format!("'{text}' is larger than 2^63"));
    }
    if value.fract() != 0.0 {
        return Err(format!("'{text}' is not a whole number"));
    }
    Ok(value as u64)
}
