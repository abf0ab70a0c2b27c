//! The human-readable report: a few compact tables that fit in 80 columns.
//!
//! Observed figures stand beside the algorithm's exact theory and the uniform expectation, so a
//! reader sees at once *how* a shuffle is biased, not only *that* it is. Colour (the verdict
//! line) is used only when the caller says stdout is a terminal and NO_COLOR is unset.

use std::io::{self, Write};

use super::document::Document;
use super::{Exporter, Report, Terminal, entries};

mod cells;
mod compare;
mod deals;
mod documents;
mod figures;
mod run;

use cells::new_table;
use documents::{mixing_document, single_document, theory_document};

/// Writes the tables.
pub struct TableExporter {
    /// Colour and width of the terminal shown on, if any.
    pub terminal: Terminal,
}

impl Exporter for TableExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(self.document(report).to_terminal().as_bytes())?;
        out.flush()
    }
}

impl TableExporter {
    /// The report's content, ready to draw for a terminal or as Markdown.
    pub fn document(&self, report: &Report) -> Document {
        match report {
            Report::Run(run) => self.run(run),
            Report::Compare(compare) => self.compare(compare),
            Report::Theory(theory) => theory_document(theory),
            Report::Mixing(mixing) => mixing_document(mixing),
            Report::Single(single) => single_document(single),
            Report::List(algorithms) => {
                let mut table = new_table(&["algorithm", "meant uniform", "exact definition"]);
                for entry in entries(algorithms) {
                    table.add_row(vec![
                        entry.name.to_string(),
                        if entry.meant_uniform { "yes" } else { "no" }.to_string(),
                        entry.definition.to_string(),
                    ]);
                }
                let mut doc = Document::default();
                doc.table(table);
                doc
            }
            Report::Cases(cases) => {
                let mut table = new_table(&["case", "year", "the shuffle", "deck", "finds"]);
                for case in *cases {
                    table.add_row(vec![
                        case.name.to_string(),
                        case.year.to_string(),
                        case.title.to_string(),
                        case.deck.to_string(),
                        case.expect.to_string(),
                    ]);
                }
                let mut doc = Document::default();
                doc.table(table);
                doc
            }
        }
    }

    /// `text` in bold red if `biased`, else bold green, on a terminal that shows colour.
    fn paint(&self, text: &str, biased: bool) -> String {
        if self.terminal.colour {
            painted(text, biased)
        } else {
            text.to_string()
        }
    }
}

/// `text` in bold red if `biased`, else bold green (ANSI escapes; for a terminal that shows
/// colour only).
pub(crate) fn painted(text: &str, biased: bool) -> String {
    let code = if biased { "1;31" } else { "1;32" };
    format!("\x1b[{code}m{text}\x1b[0m")
}

#[cfg(test)]
mod tests;
