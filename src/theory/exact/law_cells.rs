//! The n! cells of a law (a probability, or an exact numerator, per ordering), held as a table,
//! or as one value repeated when every cell is the same: the uniform law, which every run of
//! Fisher–Yates and every `check` is compared with.
//!
//! At 10 cards the uniform law's two tables are 87 MB (29 MB of `f64` probabilities, 58 MB of
//! `u128` numerators), and a fresh page costs the kernel a fault and a zeroing on first touch:
//! writing them was most of the fixed cost of a 10-card run, for tables whose cells a run reads
//! one at a time ([`LawCells::get`], indexing) or sweeps ([`LawCells::iter`]), neither of which
//! needs them written out. A reader that does need a slice asks for one
//! ([`LawCells::as_slice`]); the repeated value is then written out once, on that first call,
//! and kept.

use std::ops::Index;
use std::sync::OnceLock;

/// The cells of a law: a table, or one value in every cell (see the module documentation).
#[derive(Clone)]
pub struct LawCells<T> {
    len: usize,
    /// The value of every cell, when they are all the same (the table then written out only
    /// when a slice is asked for).
    every: Option<T>,
    /// The cells written out: set from the start unless `every` is.
    cells: OnceLock<Vec<T>>,
}

impl<T: Copy + Default> LawCells<T> {
    /// `len` cells, each `value`, not written out.
    pub fn repeated(value: T, len: usize) -> Self {
        LawCells {
            len,
            every: Some(value),
            cells: OnceLock::new(),
        }
    }

    /// The number of cells (n!).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no cells.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of every cell, when the table was made as one value repeated.
    pub fn every(&self) -> Option<T> {
        self.every
    }

    /// The cell of rank `rank`, if there is one.
    pub fn get(&self, rank: usize) -> Option<&T> {
        match &self.every {
            Some(value) => (rank < self.len).then_some(value),
            None => self.written().get(rank),
        }
    }

    /// The cells in rank order, without writing out a repeated value.
    pub fn iter(&self) -> CellIter<'_, T> {
        match &self.every {
            Some(value) => CellIter::Repeated(std::iter::repeat_n(value, self.len)),
            None => CellIter::Written(self.written().iter()),
        }
    }

    /// The cells as a slice: a repeated value is written out on the first call (into a table
    /// kept for the next), n! cells of memory.
    pub fn as_slice(&self) -> &[T] {
        match self.every {
            Some(value) => self.cells.get_or_init(|| filled(value, self.len)),
            None => self.written(),
        }
    }

    /// The cells as a vector (written out, if they were one value repeated).
    pub fn into_vec(mut self) -> Vec<T> {
        match self.cells.take() {
            Some(cells) => cells,
            None => filled(self.every.unwrap_or_default(), self.len),
        }
    }

    fn written(&self) -> &[T] {
        self.cells
            .get()
            .map(Vec::as_slice)
            .expect("a table not made as one value repeated is written out from the start")
    }
}

/// `len` cells of `value`, written out (in memory advised for huge pages when large).
fn filled<T: Copy + Default>(value: T, len: usize) -> Vec<T> {
    let mut cells: Vec<T> = crate::system::pages::zeroed(len);
    cells.fill(value);
    cells
}

impl<T> From<Vec<T>> for LawCells<T> {
    fn from(cells: Vec<T>) -> Self {
        LawCells {
            len: cells.len(),
            every: None,
            cells: OnceLock::from(cells),
        }
    }
}

impl<T: Copy + Default> Index<usize> for LawCells<T> {
    type Output = T;

    /// The cell of rank `rank` (panics past the last, as a slice does).
    fn index(&self, rank: usize) -> &T {
        match &self.every {
            Some(value) => {
                assert!(
                    rank < self.len,
                    "rank {rank} out of a law of {} cells",
                    self.len
                );
                value
            }
            None => &self.written()[rank],
        }
    }
}

impl<'a, T: Copy + Default> IntoIterator for &'a LawCells<T> {
    type Item = &'a T;
    type IntoIter = CellIter<'a, T>;

    fn into_iter(self) -> CellIter<'a, T> {
        self.iter()
    }
}

impl<T: Copy + Default + PartialEq> PartialEq for LawCells<T> {
    /// Equal cells, however each table holds them.
    fn eq(&self, other: &Self) -> bool {
        match (self.every, other.every) {
            (Some(a), Some(b)) => self.len == other.len && (self.len == 0 || a == b),
            _ => self.len == other.len && self.iter().eq(other.iter()),
        }
    }
}

impl<T: Copy + Default + Eq> Eq for LawCells<T> {}

impl<T: Copy + Default + std::fmt::Debug> std::fmt::Debug for LawCells<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.every {
            Some(value) => write!(f, "LawCells([{value:?}; {}])", self.len),
            None => f.debug_list().entries(self.written()).finish(),
        }
    }
}

/// The cells of a [`LawCells`] in rank order.
#[derive(Clone)]
pub enum CellIter<'a, T> {
    /// A table written out.
    Written(std::slice::Iter<'a, T>),
    /// One value repeated.
    Repeated(std::iter::RepeatN<&'a T>),
}

impl<'a, T> Iterator for CellIter<'a, T> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        match self {
            CellIter::Written(cells) => cells.next(),
            CellIter::Repeated(cells) => cells.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            CellIter::Written(cells) => cells.size_hint(),
            CellIter::Repeated(cells) => cells.size_hint(),
        }
    }
}

impl<T> ExactSizeIterator for CellIter<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_value_reads_as_the_table_written_out() {
        // Every way to read the cells gives the same as the same cells in a Vec, and writing
        // them out (as_slice) changes none of it.
        for len in [0, 1, 5, 24] {
            let repeated = LawCells::repeated(0.25f64, len);
            let written = LawCells::from(vec![0.25f64; len]);
            assert_eq!(repeated, written, "{len} cells");
            assert_eq!(repeated.len(), len);
            assert_eq!(repeated.every(), Some(0.25));
            assert_eq!(written.every(), None);
            assert_eq!(repeated.iter().len(), len);
            assert_eq!(repeated.iter().copied().sum::<f64>(), 0.25 * len as f64);
            for rank in 0..len {
                assert_eq!(repeated[rank], written[rank]);
                assert_eq!(repeated.get(rank), Some(&0.25));
            }
            assert_eq!(repeated.get(len), None);
            assert_eq!(written.get(len), None);
            assert_eq!(repeated.as_slice(), written.as_slice());
            assert_eq!(repeated.as_slice().len(), len);
            assert_eq!(repeated.clone().into_vec(), vec![0.25; len]);
            assert_eq!(repeated, written, "{len} cells, written out");
        }
        // Different cells, or a different length, are unequal however held.
        assert_ne!(LawCells::repeated(1u128, 3), LawCells::from(vec![1, 2, 1]));
        assert_ne!(LawCells::repeated(1u128, 3), LawCells::repeated(1, 4));
        assert_ne!(LawCells::repeated(1u128, 3), LawCells::repeated(2, 3));
        assert_eq!(LawCells::from(vec![1u128, 2]).into_vec(), vec![1, 2]);
    }

    #[test]
    #[should_panic(expected = "out of a law of 3 cells")]
    fn a_repeated_value_has_no_cell_past_the_last() {
        let _ = LawCells::repeated(1u128, 3)[3];
    }
}
