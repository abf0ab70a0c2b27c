//! Progress on stderr: one small factory that shows an indicatif bar only when stderr is a
//! terminal and `--quiet` is not given, and otherwise does nothing at all.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// A progress bar that may be hidden.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar counting to `total` `unit`s (e.g. "shuffles"), or nothing when quiet or off a terminal.
    pub fn new(total: u64, unit: &str, quiet: bool) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let template = format!(
            "{{bar:30.cyan/blue}} {{human_pos}}/{{human_len}} {unit} · {{rate}} · ETA {{eta}}"
        );
        if let Ok(style) = ProgressStyle::with_template(&template) {
            let style = style
                .with_key(
                    "rate",
                    |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                        let _ = write!(out, "{:.1} M/s", state.per_sec() / 1e6);
                    },
                )
                .progress_chars("█▉▊▋▌▍▎▏ ");
            bar.set_style(style);
        }
        Progress { bar: Some(bar) }
    }

    /// A running count of `unit`s with their rate, for work of unknown size (reading a pipe),
    /// or nothing when quiet or off a terminal.
    pub fn counter(unit: &str, quiet: bool) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let template = format!("{{spinner}} {{human_pos}} {unit} · {{rate}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style.with_key(
                "rate",
                |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{:.1} M/s", state.per_sec() / 1e6);
                },
            ));
        }
        Progress { bar: Some(bar) }
    }

    /// A spinner with the time spent, for a phase of unknown length that has nothing to count
    /// (computing an exact law), or nothing when quiet or off a terminal.
    pub fn phase(message: &str, quiet: bool) -> Self {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} · {elapsed}") {
            bar.set_style(style);
        }
        bar.set_message(message.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Progress { bar: Some(bar) }
    }

    /// Set the number of units done.
    pub fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// Remove the bar before the report is written.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
