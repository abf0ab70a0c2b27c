//! A name from outside (a file name, a name recorded in a tally file) made safe to print.
//!
//! File names may hold newlines, tabs and terminal escape sequences: printed raw, a crafted
//! name could start a line of its own in a report, such as a false verdict in a Markdown CI
//! summary. Every name shown is passed through [`printable`] first, as bad tokens are.

/// `name` with every control character written as a Rust escape (`\n`, `\t`, `\u{1b}`), the
/// rest as it is (so `café.txt` stays readable). Applying it twice changes nothing more.
pub fn printable(name: &str) -> String {
    if !name.chars().any(char::is_control) {
        return name.to_string();
    }
    name.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A path as messages show it: [`printable`] of its lossy display, so a file name with a
/// newline or an escape sequence cannot start a line of its own in an error.
pub fn printable_path(path: &std::path::Path) -> String {
    printable(&path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlines_and_escape_sequences_in_a_name_are_escaped_and_the_rest_is_kept() {
        assert_eq!(printable("a\nNO BIAS.txt"), "a\\nNO BIAS.txt");
        assert_eq!(printable("x\u{1b}[31m"), "x\\u{1b}[31m");
        assert_eq!(printable("café 1.txt"), "café 1.txt");
        assert_eq!(printable(&printable("a\tb")), printable("a\tb"));
    }
}
