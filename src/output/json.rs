//! JSON: the whole report as one document (schema: the report model's fields, see the README).
//!
//! Non-finite numbers never appear: the model uses null for "not available" and for infinite
//! ratios, and p-values below 1e-300 are given by their log10.

use std::io::{self, Write};

use super::{Exporter, Report, entries};

/// Writes pretty-printed JSON followed by a newline.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, report: &Report, out: &mut dyn Write) -> io::Result<()> {
        let mut writer = io::BufWriter::new(out);
        match report {
            Report::Run(run) => serde_json::to_writer_pretty(&mut writer, run),
            Report::Compare(compare) => serde_json::to_writer_pretty(&mut writer, compare),
            Report::Theory(theory) => serde_json::to_writer_pretty(&mut writer, theory),
            Report::Mixing(mixing) => serde_json::to_writer_pretty(&mut writer, mixing),
            Report::Single(single) => serde_json::to_writer_pretty(&mut writer, single),
            Report::List(algorithms) => {
                serde_json::to_writer_pretty(&mut writer, &entries(algorithms))
            }
            Report::Cases(cases) => serde_json::to_writer_pretty(&mut writer, cases),
        }
        .map_err(io::Error::from)?;
        writeln!(writer)?;
        writer.flush()
    }
}
