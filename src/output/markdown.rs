//! Markdown: the same content as the terminal tables, as GitHub-flavoured Markdown ready for a
//! README, a blog post or a pull-request comment.
//!
//! The content is decided once, by [`super::table`]; this exporter only draws it differently
//! (pipe tables, `##`/`###` headings, the verdict in bold, never colour).

use std::io::{self, Write};

use super::table::TableExporter;
use super::{Exporter, Report, Terminal};

/// Writes GitHub-flavoured Markdown.
pub struct MarkdownExporter;

impl Exporter for MarkdownExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        let document = TableExporter {
            terminal: Terminal::default(),
        }
        .document(report);
        out.write_all(document.to_markdown().as_bytes())?;
        out.flush()
    }
}
