//! Small text helpers every printer (and the report's sentences) share: grouped thousands,
//! singular and plural nouns, word wrap. A leaf: it imports nothing of the crate.

/// 1234567 → `1,234,567`.
pub fn group(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `count` grouped, with `noun` in the singular for one and the plural (`noun` + s) otherwise:
/// `1 permutation`, `1,000 permutations`.
pub fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", group(count))
    }
}

/// Word-wrap `text` to `width` columns; lines after the first start with `indent`.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    let mut line_length = 0;
    for word in text.split_whitespace() {
        let word_length = word.chars().count();
        if line_length > 0 && line_length + 1 + word_length > width {
            out.push('\n');
            out.push_str(indent);
            line_length = indent.chars().count();
        } else if line_length > 0 {
            out.push(' ');
            line_length += 1;
        }
        out.push_str(word);
        line_length += word_length;
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_sentences_wrap_at_the_width_with_an_indent() {
        let text = wrap("aaa bbb ccc ddd", 9, "  ");
        assert_eq!(text, "aaa bbb\n  ccc ddd\n");
        assert!(
            wrap(&"word ".repeat(50), 80, "  ")
                .lines()
                .all(|l| l.chars().count() <= 80)
        );
    }

    #[test]
    fn thousands_are_grouped_with_commas() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(240_000), "240,000");
        assert_eq!(group(39_916_800), "39,916,800");
    }

    #[test]
    fn one_takes_the_singular_and_every_other_count_the_plural() {
        assert_eq!(plural(1, "permutation"), "1 permutation");
        assert_eq!(plural(0, "permutation"), "0 permutations");
        assert_eq!(plural(1234, "shuffle"), "1,234 shuffles");
    }
}
