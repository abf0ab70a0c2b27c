//! The n! tables of numerators that the stages of a law write, kept from one stage for the
//! next ([`Spare`]) rather than each allocated afresh.

/// A table of numerators that a stage has finished with (the law it read, or a thread's part
/// once added in), for the next stage to write into.
///
/// A fresh table costs the kernel a page fault and a zeroed page every 4 KiB it touches:
/// 14,000 faults for the 58 MB of a 10-card table, about 30 ms of processor time, so that the
/// stages of `theory naive -n 10` spent a sixth of their time in the kernel. A pulled stage
/// overwrites every cell, so a kept table serves it as it is; a pushed one adds into its
/// table, which is zeroed first (a sweep of memory at its bandwidth, no faults). At most one
/// table is kept, so that a law never holds more tables than it did without: the one a stage
/// reads and the ones it writes.
use crate::system::pages;

#[derive(Debug, Default)]
pub(super) struct Spare(Option<Vec<u128>>);

impl Spare {
    /// `len` numerators, every one zero.
    pub(super) fn zeroed(&mut self, len: usize) -> Vec<u128> {
        match self.0.take() {
            Some(mut table) => {
                table.clear();
                table.resize(len, 0);
                table
            }
            None => pages::zeroed(len),
        }
    }

    /// `len` numerators, each to be overwritten.
    pub(super) fn overwritten(&mut self, len: usize) -> Vec<u128> {
        match self.0.take() {
            Some(mut table) => {
                table.truncate(len);
                table.resize(len, 0);
                table
            }
            None => pages::zeroed(len),
        }
    }

    /// Keeps `table` for the next stage (in place of the one kept before, if any).
    pub(super) fn keep(&mut self, table: Vec<u128>) {
        self.0 = Some(table);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_table_is_given_back_zeroed_or_of_the_length_asked() {
        let mut spare = Spare::default();
        assert_eq!(spare.zeroed(3), vec![0; 3]);
        spare.keep(vec![7; 5]);
        assert_eq!(spare.zeroed(4), vec![0; 4]);
        spare.keep(vec![7; 5]);
        assert_eq!(spare.overwritten(3).len(), 3);
        assert_eq!(spare.overwritten(6), vec![0; 6]);
        spare.keep(vec![7; 2]);
        assert_eq!(spare.overwritten(4).len(), 4);
    }
}
