//! The n! tables that the stages of a law write (numerators, and the counters of a pushed
//! stage's threads), kept from one stage for the next ([`Spare`]) rather than each allocated
//! afresh, and filled by threads range by range ([`fill_in_parts`]).

/// Tables that a stage has finished with (the law it read, a thread's counters once added in),
/// for the next stage to write into.
///
/// A fresh table costs the kernel a zeroed page at every page it touches, on the thread that
/// first touches it: at 10 cards, where a stage takes about a tenth of a second, each fresh
/// 58 MB table of u128 numerators cost `theory naive` about 70 ms of processor time in the
/// kernel, a third of the command's. A pulled stage overwrites every cell, so a kept table
/// serves it as it is; a pushed one adds into its tables, which are zeroed first (a sweep of
/// memory at its bandwidth, no faults).
///
/// Tables are kept by width. So that a law never holds more memory than it did without, a
/// stage that asks for a width of which none is kept is given a fresh table, and the tables of
/// narrower widths (counters, which the next stages would not ask for in that width) are
/// released first.
#[derive(Debug, Default)]
pub(super) struct Spare {
    narrow: Vec<Vec<u32>>,
    middle: Vec<Vec<u64>>,
    wide: Vec<Vec<u128>>,
}

/// An integer whose tables [`Spare`] keeps.
pub(super) trait Kept: Copy + Default {
    /// The tables of this width kept.
    fn kept(spare: &mut Spare) -> &mut Vec<Vec<Self>>;
}

impl Kept for u32 {
    fn kept(spare: &mut Spare) -> &mut Vec<Vec<u32>> {
        &mut spare.narrow
    }
}

impl Kept for u64 {
    fn kept(spare: &mut Spare) -> &mut Vec<Vec<u64>> {
        &mut spare.middle
    }
}

impl Kept for u128 {
    fn kept(spare: &mut Spare) -> &mut Vec<Vec<u128>> {
        &mut spare.wide
    }
}

impl Spare {
    /// `len` zeros.
    pub(super) fn zeroed<T: Kept>(&mut self, len: usize) -> Vec<T> {
        match T::kept(self).pop() {
            Some(mut table) => {
                table.clear();
                table.resize(len, T::default());
                table
            }
            None => self.fresh(len),
        }
    }

    /// `len` cells, each to be overwritten.
    pub(super) fn overwritten<T: Kept>(&mut self, len: usize) -> Vec<T> {
        match T::kept(self).pop() {
            Some(mut table) => {
                table.truncate(len);
                table.resize(len, T::default());
                table
            }
            None => self.fresh(len),
        }
    }

    /// Keeps `table` for a later stage.
    pub(super) fn keep<T: Kept>(&mut self, table: Vec<T>) {
        T::kept(self).push(table);
    }

    /// A fresh table of `len` zeros, once the counters kept are released.
    fn fresh<T: Kept>(&mut self, len: usize) -> Vec<T> {
        self.narrow = Vec::new();
        self.middle = Vec::new();
        crate::system::pages::zeroed(len)
    }
}

/// A table filled range by range of ranks, each range by a thread of its own.
pub(super) trait FillRange<X>: Sync {
    /// Writes the cells of ranks `start..start + chunk.len()` into `chunk`.
    fn fill(&self, start: usize, chunk: &mut [X]);
}

/// A closure of the range's first rank and its cells fills it.
impl<X, F: Fn(usize, &mut [X]) + Sync> FillRange<X> for F {
    #[inline(always)]
    fn fill(&self, start: usize, chunk: &mut [X]) {
        self(start, chunk);
    }
}

/// Fills `table` by `threads` threads (the calling one among them), each taking the next of
/// [`PIECES_PER_THREAD`] ranges of ranks a thread until none is left (a thread also faults in
/// and zeroes the pages of the ranges it takes, when the table is fresh), compiled with POPCNT
/// (which ranks count with) where the CPU has it. Every cell is written by one `fill` of the
/// range it is in, whichever thread takes it: a thread slowed (by the kernel's page faults, by
/// another process) takes fewer ranges rather than holding back the others at the end.
pub(super) fn fill_in_parts<X: Send, F: FillRange<X>>(table: &mut [X], threads: usize, filler: &F) {
    let threads = threads.max(1);
    #[cfg(target_arch = "x86_64")]
    let popcnt = std::arch::is_x86_feature_detected!("popcnt");
    let fill = move |start: usize, chunk: &mut [X]| {
        #[cfg(target_arch = "x86_64")]
        if popcnt {
            // SAFETY: the CPU has popcnt (checked above).
            unsafe { fill_with_popcnt(filler, start, chunk) };
            return;
        }
        filler.fill(start, chunk);
    };
    let piece = range_length(table.len(), threads * PIECES_PER_THREAD);
    if threads == 1 || table.len() <= piece {
        // One thread: the whole table filled here, without a thread to start.
        fill(0, table);
        return;
    }
    let pieces = Pieces::new(table.chunks_mut(piece).enumerate());
    let work = || {
        while let Some((index, chunk)) = pieces.next() {
            fill(index * piece, chunk);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(work);
        }
        work();
    });
}

/// Ranges a thread of [`fill_in_parts`] and of a pushed stage ([`super::push`]) are split in:
/// enough that the threads end together, few enough that each range's start (an unranking,
/// the tables of its first ordering) costs nothing beside it.
pub(super) const PIECES_PER_THREAD: usize = 8;

/// The pieces of work that threads take one at a time, in order.
pub(super) struct Pieces<I>(std::sync::Mutex<I>);

impl<I: Iterator> Pieces<I> {
    pub(super) fn new(pieces: I) -> Self {
        Pieces(std::sync::Mutex::new(pieces))
    }

    /// The next piece, if any is left (a thread that panicked holding the lock left the
    /// iterator whole: the scope reports its panic).
    pub(super) fn next(&self) -> Option<I::Item> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .next()
    }
}

/// The length of each range but the last when `len` cells are split in `threads` ranges (at
/// least one cell, so that an empty table is one empty range).
pub(super) fn range_length(len: usize, threads: usize) -> usize {
    len.div_ceil(threads.max(1)).max(1)
}

/// `read(start, range)` of each of `threads` ranges of `table` ([`range_length`] cells each
/// but the last), each on its own thread (a single range on the calling thread), in the order
/// of the ranges: a sweep of a table shared by the threads rather than made by one.
pub(super) fn read_in_parts<X: Sync, R: Send>(
    table: &[X],
    threads: usize,
    read: impl Fn(usize, &[X]) -> R + Sync,
) -> Vec<R> {
    let share = range_length(table.len(), threads);
    if table.len() <= share {
        return vec![read(0, table)];
    }
    let read = &read;
    std::thread::scope(|scope| {
        let parts: Vec<_> = table
            .chunks(share)
            .enumerate()
            .map(|(part, chunk)| scope.spawn(move || read(part * share, chunk)))
            .collect();
        parts
            .into_iter()
            .map(|part| part.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
            .collect()
    })
}

/// [`FillRange::fill`] compiled with the POPCNT instruction (each `fill` is inlined here).
///
/// # Safety
/// The CPU must support `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn fill_with_popcnt<X, F: FillRange<X>>(filler: &F, start: usize, chunk: &mut [X]) {
    filler.fill(start, chunk);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_filled_and_read_range_by_range_once_each() {
        // Each cell filled is given its own rank, whichever thread takes its range; each range
        // read gives its first rank and length, and together, in order, they cover the table.
        for (len, threads) in [(0, 2), (1, 3), (10, 1), (10, 3), (10, 4), (11, 2)] {
            let table: Vec<usize> = (0..len).collect();
            let read = read_in_parts(&table, threads, |start, cells| (start, cells.to_vec()));
            let mut filled = vec![usize::MAX; len];
            fill_in_parts(&mut filled, threads, &|start: usize, chunk: &mut [usize]| {
                for (offset, cell) in chunk.iter_mut().enumerate() {
                    *cell = start + offset;
                }
            });
            assert_eq!(filled, table, "{len} cells, {threads} threads");
            assert!(read.len() <= threads.max(1));
            let mut next = 0;
            for (start, cells) in read {
                assert_eq!(start, next);
                assert_eq!(cells, table[start..start + cells.len()]);
                next += cells.len();
            }
            assert_eq!(next, len, "{len} cells, {threads} threads");
        }
    }

    #[test]
    fn a_kept_table_is_given_back_zeroed_or_of_the_length_asked() {
        let mut spare = Spare::default();
        assert_eq!(spare.zeroed::<u128>(3), vec![0; 3]);
        spare.keep(vec![7u128; 5]);
        assert_eq!(spare.zeroed::<u128>(4), vec![0; 4]);
        spare.keep(vec![7u128; 5]);
        assert_eq!(spare.overwritten::<u128>(3).len(), 3);
        assert_eq!(spare.overwritten::<u128>(6), vec![0; 6]);
        spare.keep(vec![7u128; 2]);
        assert_eq!(spare.overwritten::<u128>(4).len(), 4);
    }

    #[test]
    fn tables_are_kept_by_width_and_counters_released_for_a_fresh_table() {
        let mut spare = Spare::default();
        spare.keep(vec![1u32; 4]);
        spare.keep(vec![2u32; 4]);
        spare.keep(vec![3u64; 4]);
        spare.keep(vec![4u128; 4]);
        assert_eq!(spare.zeroed::<u32>(4), vec![0; 4]);
        assert_eq!(spare.narrow.len(), 1);
        assert_eq!(spare.overwritten::<u128>(4).len(), 4);
        assert_eq!(spare.middle.len(), 1, "a kept table asked for releases nothing");
        assert_eq!(spare.zeroed::<u128>(2), vec![0; 2]);
        assert!(
            spare.narrow.is_empty() && spare.middle.is_empty(),
            "a fresh table releases the counters kept"
        );
    }
}
