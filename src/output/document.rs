//! The shape of a human-readable report — title, headline, headings, sentences, tables — kept
//! apart from how it is drawn, so that the terminal tables and the Markdown export say exactly
//! the same things.
//!
//! [`super::table`] decides the content once; [`Document::to_terminal`] draws it with
//! comfy-table in a fixed width, and [`Document::to_markdown`] writes GitHub-flavoured Markdown
//! (pipe tables, `###` headings) for a README, a blog post or a pull-request comment.

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{CellAlignment, ColumnConstraint, ContentArrangement, Table, Width};

use super::text::wrap;

/// The width terminal text and tables are drawn to.
pub const TERMINAL_WIDTH: u16 = 80;

/// A table: a header row, data rows, and which columns hold numbers (right-aligned).
#[derive(Debug, Clone)]
pub struct TableBlock {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns from this index on are right-aligned...
    right_from: usize,
    /// ...up to this one (exclusive), if set.
    right_until: Option<usize>,
    /// The terminal width this table may take.
    width: u16,
    /// Columns that may be left out, in this order, when the table cannot fit `width`
    /// without cutting a word (a number) in two.
    droppable: Vec<usize>,
}

impl TableBlock {
    /// An empty table with this header, 80 columns wide on a terminal, all columns left-aligned.
    pub fn new(header: &[&str]) -> Self {
        TableBlock {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            right_from: header.len(),
            right_until: None,
            width: TERMINAL_WIDTH,
            droppable: Vec::new(),
        }
    }

    /// Let the columns `columns` be left out, in this order, when the table cannot fit its
    /// width otherwise without cutting a number in two.
    pub fn droppable(&mut self, columns: &[usize]) {
        self.droppable = columns.to_vec();
    }

    /// Append a row (a cell may hold several lines).
    pub fn add_row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    /// Right-align the columns from `first` on.
    pub fn align_right_from(&mut self, first: usize) {
        self.right_from = first;
    }

    /// Left-align the columns from `first` on again (after right-aligning from an earlier one).
    pub fn align_left_from(&mut self, first: usize) {
        self.right_until = Some(first);
    }

    /// Let the table take `width` columns on a terminal.
    pub fn set_width(&mut self, width: u16) {
        self.width = width;
    }

    /// The width the table takes on a terminal when nothing is wrapped (colour codes do not
    /// count).
    pub fn natural_width(&self) -> usize {
        let mut wide = self.clone();
        wide.width = u16::MAX;
        wide.to_terminal()
            .column_max_content_widths()
            .iter()
            .map(|&width| usize::from(width) + 3)
            .sum::<usize>()
            + 1
    }

    /// The table of the columns `keep` only (in that order), aligned as they were.
    pub fn columns(&self, keep: &[usize]) -> TableBlock {
        let pick = |cells: &[String]| keep.iter().map(|&i| cells[i].clone()).collect();
        let right = keep
            .iter()
            .position(|&i| self.right_aligned(i))
            .unwrap_or(keep.len());
        TableBlock {
            header: pick(&self.header),
            rows: self.rows.iter().map(|row| pick(row)).collect(),
            right_from: right,
            right_until: None,
            width: self.width,
            droppable: self
                .droppable
                .iter()
                .filter_map(|d| keep.iter().position(|k| k == d))
                .collect(),
        }
    }

    /// Each column's longest word (what a cell can be wrapped to without cutting a word), in
    /// the columns a terminal shows (colour codes take none).
    fn longest_words(&self) -> Vec<usize> {
        (0..self.header.len())
            .map(|column| {
                std::iter::once(&self.header[column])
                    .chain(self.rows.iter().filter_map(|row| row.get(column)))
                    .flat_map(|cell| cell.split_whitespace())
                    .map(shown_width)
                    .max()
                    .unwrap_or(0)
            })
            .collect()
    }

    /// The width of each column's content in a table `width` wide: each starts at its natural
    /// width and, while the table is too wide, the widest column above its longest word loses
    /// one character (so no word is ever cut; a table that cannot fit stays wider).
    fn fitted_widths(&self, table: &Table) -> Vec<usize> {
        let lower = self.longest_words();
        let mut widths: Vec<usize> = table
            .column_max_content_widths()
            .iter()
            .map(|&width| usize::from(width))
            .collect();
        let borders = 3 * widths.len() + 1;
        let room = usize::from(self.width).saturating_sub(borders);
        while widths.iter().sum::<usize>() > room {
            let widest = (0..widths.len())
                .filter(|&index| widths[index] > lower.get(index).copied().unwrap_or(0))
                .max_by_key(|&index| (widths[index], std::cmp::Reverse(index)));
            match widest {
                Some(index) => widths[index] -= 1,
                None => break,
            }
        }
        widths
    }

    /// The narrowest the table can be drawn without cutting a word: each column its longest
    /// word, plus a border and a space each side.
    fn narrowest_width(&self) -> usize {
        self.longest_words().iter().map(|w| w + 3).sum::<usize>() + 1
    }

    /// The table as it fits its width: left as it is when it fits unwrapped or with whole
    /// words wrapped, else with its droppable columns left out, in order, until it does (or
    /// none is left: then it is drawn wider than its width rather than cut a number in two).
    /// Also the headers of the columns left out.
    pub fn fitted(&self) -> (TableBlock, Vec<String>) {
        let mut kept: Vec<usize> = (0..self.header.len()).collect();
        let mut dropped = Vec::new();
        let mut table = self.clone();
        for &column in &self.droppable {
            if table.narrowest_width() <= usize::from(self.width) {
                break;
            }
            kept.retain(|&k| k != column);
            dropped.push(self.header[column].clone());
            table = self.columns(&kept);
        }
        (table, dropped)
    }

    fn right_aligned(&self, column: usize) -> bool {
        column >= self.right_from && self.right_until.is_none_or(|until| column < until)
    }

    fn to_terminal(&self) -> Table {
        let mut table = Table::new();
        table
            .load_style(UTF8_FULL_CONDENSED.with_rounded_corners())
            .set_content_arrangement(ContentArrangement::Dynamic)
            .set_width(self.width)
            .set_header(self.header.clone());
        for row in &self.rows {
            table.add_row(row.clone());
        }
        // When cells must be wrapped, a column is never narrower than its longest word: comfy
        // table would otherwise cut a number such as 10^-14983086.3 across two lines.
        // The widths are chosen here, not by comfy table's dynamic arrangement (which can
        // leave a long header unwrapped and squeeze another column below its longest word):
        // from each column's natural width, the widest column still above its longest word
        // gives up a character until the table fits.
        if self.width < u16::MAX && self.natural_width() > usize::from(self.width) {
            let widths = self.fitted_widths(&table);
            for (index, width) in widths.into_iter().enumerate() {
                if let Some(column) = table.column_mut(index) {
                    // An absolute width counts the padding, a space each side.
                    let width = u16::try_from(width + 2).unwrap_or(u16::MAX);
                    column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(width)));
                }
            }
        }
        let until = self.right_until.unwrap_or(usize::MAX);
        for index in self.right_from..table.column_count().min(until) {
            if let Some(column) = table.column_mut(index) {
                column.set_cell_alignment(CellAlignment::Right);
            }
        }
        table
    }

    fn to_markdown(&self) -> String {
        let cell = |text: &str| {
            text.trim()
                .replace('|', "\\|")
                .replace('\n', "<br>")
                .to_string()
        };
        let mut out = String::new();
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        out.push_str(&line(self.header.iter().map(|h| cell(h)).collect()));
        out.push_str(&line(
            (0..self.header.len())
                .map(|i| self.right_aligned(i))
                .map(|right| if right { "---:" } else { "---" }.to_string())
                .collect(),
        ));
        for row in &self.rows {
            out.push_str(&line(row.iter().map(|c| cell(c)).collect()));
        }
        out
    }
}

/// One piece of a report.
#[derive(Debug, Clone)]
enum Block {
    /// The first line: what was run.
    Title(String),
    /// A line kept as it is (terminal) or a paragraph (Markdown).
    Line(String),
    /// A sentence wrapped at the terminal width, continuation lines indented.
    Text { text: String, indent: &'static str },
    /// The verdict in capitals.
    Headline(String),
    /// The title of the table that follows.
    Heading(String),
    /// An empty line on the terminal (Markdown separates its blocks anyway).
    Blank,
    /// A table.
    Table(TableBlock),
}

/// A report as a sequence of blocks.
#[derive(Debug, Clone, Default)]
pub struct Document {
    blocks: Vec<Block>,
}

impl Document {
    /// The first line (wrapped on the terminal).
    pub fn title(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Title(text.into()));
    }

    /// A line kept as it is on the terminal.
    pub fn line(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Line(text.into()));
    }

    /// A sentence, wrapped on the terminal with `indent` before continuation lines.
    pub fn text(&mut self, text: impl Into<String>, indent: &'static str) {
        self.blocks.push(Block::Text {
            text: text.into(),
            indent,
        });
    }

    /// The verdict headline (already coloured by the caller on a terminal).
    pub fn headline(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Headline(text.into()));
    }

    /// A table's title.
    pub fn heading(&mut self, text: impl Into<String>) {
        self.blocks.push(Block::Heading(text.into()));
    }

    /// An empty line on the terminal.
    pub fn blank(&mut self) {
        self.blocks.push(Block::Blank);
    }

    /// A table.
    pub fn table(&mut self, table: TableBlock) {
        self.blocks.push(Block::Table(table));
    }

    /// Drawn for a terminal (or a plain-text file): wrapped at 80 columns, boxed tables.
    pub fn to_terminal(&self) -> String {
        let mut out = String::new();
        for block in &self.blocks {
            match block {
                Block::Title(text) | Block::Heading(text) => {
                    out.push_str(&wrap(text, usize::from(TERMINAL_WIDTH), "  "));
                }
                Block::Line(text) | Block::Headline(text) => {
                    out.push_str(text);
                    out.push('\n');
                }
                Block::Text { text, indent } => {
                    out.push_str(&wrap(text, usize::from(TERMINAL_WIDTH), indent));
                }
                Block::Blank => out.push('\n'),
                Block::Table(table) => {
                    let (table, dropped) = table.fitted();
                    out.push_str(&table.to_terminal().to_string());
                    out.push('\n');
                    if !dropped.is_empty() {
                        out.push_str(&wrap(
                            &format!(
                                "(left out to fit {} columns: {}; --format json, csv or \
                                 markdown has every column)",
                                table.width,
                                dropped.join(", ")
                            ),
                            usize::from(TERMINAL_WIDTH),
                            " ",
                        ));
                    }
                }
            }
        }
        out
    }

    /// GitHub-flavoured Markdown: the title as a `##` heading, the verdict in bold, each table
    /// under a `###` heading, sentences as paragraphs.
    pub fn to_markdown(&self) -> String {
        let mut parts: Vec<String> = Vec::new();
        for block in &self.blocks {
            match block {
                Block::Title(text) => parts.push(format!("## {}\n", text.trim())),
                Block::Line(text) | Block::Text { text, .. } => {
                    parts.push(format!("{}\n", text.trim()));
                }
                Block::Headline(text) => parts.push(format!("**{}**\n", text.trim())),
                Block::Heading(text) => parts.push(format!("### {}\n", text.trim())),
                Block::Blank => {}
                Block::Table(table) => parts.push(table.to_markdown()),
            }
        }
        parts.join("\n")
    }
}

/// The columns `text` takes on a terminal: its characters, less colour codes (`ESC [ … m`).
fn shown_width(text: &str) -> usize {
    let mut width = 0;
    let mut in_escape = false;
    for c in text.chars() {
        match (in_escape, c) {
            (false, '\x1b') => in_escape = true,
            (true, 'm') => in_escape = false,
            (true, _) => {}
            (false, _) => width += 1,
        }
    }
    width
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tiny_p_value_in_a_table_too_wide_for_80_columns_is_never_cut_across_lines() {
        // The tests table of `check` on 3,000,000 identical lines of 4 cards: its natural
        // width is just over 80, and comfy-table cut 10^-14983086.3 into `10^-1498308` and a
        // lone `6.3` below.
        let mut table = TableBlock::new(&["test", "statistic", "df", "p", "Holm p", "result"]);
        table.add_row(
            [
                "permutations",
                "6.9000e7",
                "23",
                "10^-14983087.3",
                "10^-14983086.3",
                "REJECTED",
            ]
            .map(String::from)
            .to_vec(),
        );
        table.add_row(
            [
                "identity",
                "3,000,000\nseen",
                "binom.",
                "10^-4140633.4",
                "10^-4140632.5",
                "REJECTED",
            ]
            .map(String::from)
            .to_vec(),
        );
        table.align_right_from(1);
        table.droppable(&[3]);
        let mut document = Document::default();
        document.table(table);
        let text = document.to_terminal();
        assert!(text.lines().all(|l| shown_width(l) <= 80), "{text}");
        for number in ["10^-14983086.3", "10^-4140632.5"] {
            assert!(text.contains(number), "{number} whole: {text}");
        }
        assert!(text.contains("left out to fit 80 columns: p;"), "{text}");
    }

    /// Regression: with a long header in one column and long words in another, comfy table's
    /// own arrangement kept the header on one line and cut `mean longest-increasing` into
    /// `mean longest-inc` / `reasing`; the widths chosen here wrap the header instead.
    #[test]
    fn a_long_header_wraps_before_another_column_loses_a_word() {
        let mut table = TableBlock::new(&[
            "figure",
            "observed",
            "theory (riffle · 7 passes)",
            "uniform",
        ]);
        for (figure, value) in [
            ("mean longest-increasing", "11.8495"),
            ("identity frequency", "0.000% (0)"),
        ] {
            table.add_row(
                [figure, value, "1.222e-62%", "1.240e-66%"]
                    .map(String::from)
                    .to_vec(),
            );
        }
        table.align_right_from(1);
        let mut document = Document::default();
        document.table(table);
        let text = document.to_terminal();
        assert!(text.lines().all(|l| shown_width(l) <= 80), "{text}");
        assert!(text.contains("mean longest-increasing"), "{text}");
        assert!(text.contains("identity frequency"), "{text}");
        assert!(text.contains("passes)"), "the header wraps: {text}");
    }

    #[test]
    fn a_table_that_fits_keeps_every_column() {
        let mut table = TableBlock::new(&["test", "p"]);
        table.add_row(vec!["permutations".to_string(), "0.5000".to_string()]);
        table.droppable(&[1]);
        let (fitted, dropped) = table.fitted();
        assert!(dropped.is_empty());
        assert_eq!(fitted.header.len(), 2);
    }

    #[test]
    fn markdown_tables_escape_pipes_and_join_cell_lines_with_breaks() {
        let mut table = TableBlock::new(&["name", "value"]);
        table.add_row(vec!["a|b".to_string(), "1\n(2)".to_string()]);
        table.align_right_from(1);
        let mut document = Document::default();
        document.heading("Figures".to_string());
        document.table(table);
        assert_eq!(
            document.to_markdown(),
            "### Figures\n\n| name | value |\n| --- | ---: |\n| a\\|b | 1<br>(2) |\n"
        );
    }

    #[test]
    fn terminal_text_wraps_sentences_but_keeps_lines() {
        let mut document = Document::default();
        document.line("x ".repeat(50));
        document.text("word ".repeat(30), "  ");
        let text = document.to_terminal();
        assert_eq!(text.lines().next().unwrap().len(), 100);
        assert!(text.lines().skip(1).all(|l| l.chars().count() <= 80));
    }
}
