//! Advice to the kernel on the pages of large tables: tables backed by huge pages where the
//! kernel offers them ([`zeroed`]), and pages faulted in ahead of their first write
//! ([`advise_whole_pages`]).
//!
//! A fresh table costs the kernel a page fault and a zeroed page at every 4 KiB first touched:
//! 14,000 faults for a 58 MB table of 10! u128 numerators. With transparent huge pages in
//! `madvise` mode (the common default), a table advised before its first touch is faulted in
//! 2 MiB at a time instead, 512 times fewer faults for the same zeroing.

/// Tables smaller than this are left to the allocator as they are: a huge page would be most of
/// such a table, and the faults it saves few.
const ADVISED_FROM_BYTES: usize = 8 << 20;

/// The size of a huge page on x86-64 and most 64-bit Linux machines.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// `len` zeros, in memory advised for huge pages before any of it is touched (when the table is
/// large, on Linux).
pub fn zeroed<T: Copy + Default>(len: usize) -> Vec<T> {
    // A zero of a primitive integer is allocated zeroed, untouched (from fresh pages for a
    // large table), so that the advice comes before the first fault.
    let table = vec![T::default(); len];
    advise(&table);
    table
}

/// Advises the huge pages wholly inside `table` (an allocation's contents are unchanged by it;
/// a refusal, such as an older kernel's, is harmless and ignored).
#[cfg(target_os = "linux")]
fn advise<T>(table: &[T]) {
    if std::mem::size_of_val(table) >= ADVISED_FROM_BYTES {
        advise_whole_pages(table, HUGE_PAGE, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise<T>(_table: &[T]) {
    let _ = ADVISED_FROM_BYTES;
}

/// Gives `advice` (`madvise`) for the pages of size `page` wholly inside `table`, if any. The
/// advice must be one that leaves the contents as they are (huge pages, populating for
/// writing); its result is ignored, since a refusal (an older kernel) only leaves the pages as
/// they were.
#[cfg(target_os = "linux")]
pub(crate) fn advise_whole_pages<T>(table: &[T], page: usize, advice: libc::c_int) {
    let start = table.as_ptr() as usize;
    let first = start.next_multiple_of(page);
    let end = (start + std::mem::size_of_val(table)) / page * page;
    if end <= first {
        return;
    }
    // SAFETY: the advice covers whole pages inside the table's own allocation, and the caller
    // gives one that changes how they are backed, never their contents.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, advice);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_is_zeros_of_the_length_asked_whether_advised_or_not() {
        // Below the advised size, at it, and past it by a part of a huge page: every cell zero
        // and writable (an advice that changed contents, or covered memory outside the table,
        // would show here or fault).
        for len in [0, 3, ADVISED_FROM_BYTES / 4, ADVISED_FROM_BYTES / 4 + 12_345] {
            let mut table: Vec<u32> = zeroed(len);
            assert_eq!(table.len(), len);
            assert!(table.iter().all(|&x| x == 0), "{len} cells");
            for (i, cell) in table.iter_mut().enumerate() {
                *cell = i as u32;
            }
            assert!(table.iter().enumerate().all(|(i, &x)| x == i as u32));
        }
        let wide: Vec<u128> = zeroed(ADVISED_FROM_BYTES / 16 + 1);
        assert!(wide.iter().all(|&x| x == 0));
    }
}
