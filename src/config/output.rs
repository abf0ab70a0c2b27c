//! The output flags every command shares (`--format`, `--table`, `-o`, `--plot`, and
//! `--brief` and `--color` where a report has a verdict), checked once: `--table` only with `--format
//! csv`, `--plot` only to an SVG file (or `-`), and the terminal the report meets.

use std::io::IsTerminal;

use super::UsageError;
use crate::cli::{ColorChoice, OutputArgs, VerdictArgs};
use crate::output::files::{Target, is_special};
use crate::output::{CsvTable, Format, Terminal};

/// Where and how the report is written.
#[derive(Debug, Clone)]
pub struct OutputConfig {
    /// The format.
    pub format: Format,
    /// The CSV table.
    pub table: CsvTable,
    /// Where the report goes: `-o FILE`, or stdout (also `-o -`).
    pub report: Target,
    /// Where to draw the picture, if anywhere (`--plot -` is stdout).
    pub plot: Option<Target>,
    /// Colour (`--color`; by default, when the report goes to a terminal and NO_COLOR is not
    /// set) and the terminal's width, for the table format.
    pub terminal: Terminal,
    /// `--brief`: one line instead of the report.
    pub brief: bool,
}

impl OutputConfig {
    /// The outputs with the flags that name them, for [`check_outputs`](crate::output::files::check_outputs).
    pub fn targets(&self) -> Vec<(&'static str, &Target)> {
        let mut targets = vec![("-o", &self.report)];
        targets.extend(self.plot.as_ref().map(|plot| ("--plot", plot)));
        targets
    }
}

/// The output flags, checked: `--table` only with `--format csv`, `--plot` only to an SVG file
/// (or `-`); `verdict` holds `--brief` and `--color`, of the commands that have them.
pub fn output_config(
    args: &OutputArgs,
    verdict: Option<&VerdictArgs>,
) -> Result<OutputConfig, UsageError> {
    if let Some(table) = args.table
        && args.format != Format::Csv
    {
        return Err(UsageError::conflict(
            "--table",
            table.name(),
            format!(
                "tables are chosen for --format csv only (the {} format holds every table); add \
                 --format csv or drop --table",
                args.format.name()
            ),
        ));
    }
    if let Some(plot) = &args.plot
        && plot.as_os_str() != "-"
        // A device such as /dev/null takes whatever it is given, whatever its name.
        && !is_special(plot)
        && !plot
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Err(UsageError::malformed(
            "--plot",
            plot.display(),
            format!(
                "pictures are written as SVG; name the file with .svg (e.g. --plot {})",
                plot.with_extension("svg").display()
            ),
        ));
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let report = Target::or_stdout(args.output.as_deref());
    let on_terminal = report == Target::Stdout && std::io::stdout().is_terminal();
    Ok(OutputConfig {
        format: args.format,
        table: args.table.unwrap_or_default(),
        brief: verdict.is_some_and(|v| v.brief),
        terminal: Terminal {
            colour: colour(
                verdict.map_or(ColorChoice::Auto, |v| v.color),
                on_terminal,
                no_color,
            ),
            width: on_terminal
                .then(|| terminal_size::terminal_size_of(std::io::stdout()))
                .flatten()
                .map(|(terminal_size::Width(width), _)| width),
        },
        report,
        plot: args.plot.as_deref().map(Target::from_path),
    })
}

/// Whether to colour: `--color always` forces it and `never` refuses it; `auto` colours a
/// report shown on a terminal unless NO_COLOR is set (no-color.org: a flag given on the
/// command line outranks the variable).
fn colour(choice: ColorChoice, on_terminal: bool, no_color: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => on_terminal && !no_color,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn color_always_forces_colour_and_never_and_no_color_refuse_it() {
        for (on_terminal, no_color) in [(false, false), (false, true), (true, false), (true, true)]
        {
            assert!(colour(ColorChoice::Always, on_terminal, no_color));
            assert!(!colour(ColorChoice::Never, on_terminal, no_color));
            assert_eq!(
                colour(ColorChoice::Auto, on_terminal, no_color),
                on_terminal && !no_color
            );
        }
    }
}
