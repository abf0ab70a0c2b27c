//! `completions` and `man`: the shell completion scripts and the manual page, both generated
//! from the clap definition in [`crate::cli`], so that they can never disagree with the flags
//! the binary accepts.
//!
//! The manual page is one page, `shuffle-bias(1)`: the command's synopsis and subcommands, then
//! a section per subcommand with its synopsis, description, options and the examples and exit
//! codes of its `--help`, then the exit status and the examples. clap_mangen renders each piece; the pieces of a
//! subcommand have their section headings turned into subsection headings (`.SH` → `.SS`) under
//! one section named after the subcommand. The page is plain ASCII (other characters are
//! escaped), so `groff -man -Tutf8` and `man -l` render it without a locale.

use std::io::Write;

use clap::CommandFactory;

use super::{Failure, Sink};
use crate::cli::{Cli, CompletionsArgs, ManArgs};
use crate::commands::exit_code::ExitCode;
use crate::output::files::Target;

/// The name the scripts complete and the page documents.
const BIN: &str = "shuffle-bias";

pub(super) fn completions(args: &CompletionsArgs) -> Result<ExitCode, Failure> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, BIN, &mut script);
    if args.shell == clap_complete::Shell::Bash {
        script = bash_states_fixed(&script);
    }
    let mut out = Sink::Stdout;
    out.write_with(|writer| writer.write_all(&script))?;
    Ok(ExitCode::NoBiasDetected)
}

pub(super) fn man(args: &ManArgs) -> Result<ExitCode, Failure> {
    let target = Target::or_stdout(args.output.as_deref());
    // Opened first, so that a bad path fails before the page is made.
    let mut out = Sink::open("-o", &target)?;
    let page = man_page().map_err(Failure::Export)?;
    out.write_with(|writer| writer.write_all(&page))?;
    out.commit()?;
    Ok(ExitCode::NoBiasDetected)
}

/// The bash script with its subcommand states spelt one way. clap_complete (4.6) names the
/// state of `shuffle-bias check` `shuffle__bias__subcmd__check` where it walks the words, but
/// `shuffle__subcmd__bias__subcmd__check` in the case arm that lists check's options, whenever
/// the binary's name has a hyphen (clap-rs/clap issue 6421, open): no arm matched, so nothing
/// after a subcommand was completed. The arms are renamed to the walk's spelling.
fn bash_states_fixed(script: &[u8]) -> Vec<u8> {
    let misspelt = format!("{}__subcmd__", BIN.replace('-', "__subcmd__"));
    let spelt = format!("{}__subcmd__", BIN.replace('-', "__"));
    String::from_utf8_lossy(script)
        .replace(&misspelt, &spelt)
        .into_bytes()
}

/// The whole manual page, as roff (ASCII only: other characters are written as groff's
/// `\[uXXXX]` escapes, which groff and mandoc read whatever the locale).
pub fn man_page() -> std::io::Result<Vec<u8>> {
    let mut command = Cli::command();
    command.build();
    let man = clap_mangen::Man::new(command.clone()).title(BIN.to_uppercase());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    let subcommands: Vec<&clap::Command> = command
        .get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
        .collect();
    writeln!(page, ".SH SUBCOMMANDS")?;
    writeln!(
        page,
        "Each subcommand has a section of its own below; \\fB{} help\\fR \\fISUBCOMMAND\\fR \
         prints the same.",
        escape(BIN)
    )?;
    for sub in &subcommands {
        let about = sub.get_about().map(ToString::to_string).unwrap_or_default();
        writeln!(
            page,
            ".TP\n\\fB{}\\fR\n{}",
            escape(sub.get_name()),
            escape(&about)
        )?;
    }
    for sub in subcommands {
        writeln!(
            page,
            ".SH \"{} {}\"",
            BIN.to_uppercase(),
            sub.get_name().to_uppercase()
        )?;
        let man = clap_mangen::Man::new(sub.clone());
        let mut pieces = Vec::new();
        man.render_synopsis_section(&mut pieces)?;
        man.render_description_section(&mut pieces)?;
        man.render_options_section(&mut pieces)?;
        page.extend_from_slice(&demoted(&pieces));
        if sub.get_after_help().is_some() {
            let mut notes = Vec::new();
            man.render_extra_section(&mut notes)?;
            page.extend_from_slice(&demoted(&verbatim(&notes, "EXTRA", "NOTES")));
        }
    }
    // The top level's `--help` ends with its exit codes, then its examples: a section each.
    let after = command
        .get_after_long_help()
        .map(ToString::to_string)
        .unwrap_or_default();
    let (status, examples) = after
        .split_once("\n\nExamples:\n")
        .unwrap_or((after.as_str(), ""));
    for (heading, text) in [("EXIT STATUS", status), ("EXAMPLES", examples)] {
        if !text.is_empty() {
            writeln!(page, ".SH \"{heading}\"\n.nf")?;
            for line in text.lines() {
                writeln!(page, "{}", escape(line))?;
            }
            writeln!(page, ".fi")?;
        }
    }
    man.render_version_section(&mut page)?;
    Ok(ascii(&page))
}

/// Text escaped for roff: backslashes doubled, hyphens as `\-`, and a leading `.` or `'`
/// (which would start a request) protected by `\&`.
fn escape(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

/// `roff` with every section heading (`.SH X`) made a subsection heading (`.SS X`).
fn demoted(roff: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(roff);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        match line.strip_prefix(".SH ") {
            Some(heading) => {
                out.push_str(".SS ");
                out.push_str(heading);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// A section of `--help` text (examples, exit codes) whose line breaks and indentation matter:
/// its heading `.SH from` renamed `.SH "to"`, and its lines kept as they are (`.nf` … `.fi`).
fn verbatim(roff: &[u8], from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8_lossy(roff);
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.lines() {
        if line == format!(".SH {from}") {
            out.push_str(&format!(".SH \"{to}\"\n.nf"));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str(".fi\n");
    out.into_bytes()
}

/// The page with every character outside ASCII written as groff's `\[uXXXX]` escape.
fn ascii(roff: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(roff);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.push_str(&format!("\\[u{:04X}]", u32::from(c)));
        }
    }
    out.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bash_case_arms_take_the_spelling_of_the_word_walk() {
        let script =
            b"cmd=\"shuffle__bias__subcmd__check\"\n shuffle__subcmd__bias__subcmd__check)\n";
        assert_eq!(
            String::from_utf8(bash_states_fixed(script)).unwrap(),
            "cmd=\"shuffle__bias__subcmd__check\"\n shuffle__bias__subcmd__check)\n"
        );
    }

    #[test]
    fn demoted_sections_become_subsections() {
        let roff = b".SH SYNOPSIS\nx\n\\&.SH not a heading\n";
        assert_eq!(
            String::from_utf8(demoted(roff)).unwrap(),
            ".SS SYNOPSIS\nx\n\\&.SH not a heading\n"
        );
    }

    #[test]
    fn verbatim_sections_keep_their_lines_and_are_renamed() {
        let roff = b".SH EXTRA\nExit codes:\n  0  fine\n";
        assert_eq!(
            String::from_utf8(verbatim(roff, "EXTRA", "EXIT STATUS")).unwrap(),
            ".SH \"EXIT STATUS\"\n.nf\nExit codes:\n  0  fine\n.fi\n"
        );
    }

    #[test]
    fn characters_beyond_ascii_become_groff_escapes() {
        assert_eq!(
            String::from_utf8(ascii("a – b · 2⁶⁴".as_bytes())).unwrap(),
            "a \\[u2013] b \\[u00B7] 2\\[u2076]\\[u2074]"
        );
        assert_eq!(escape(".x-y"), "\\&.x\\-y");
    }
}
