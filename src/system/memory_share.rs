//! The memory the runs on one host share: each large run says what it will hold at its peak,
//! and every run sizes its own memory from what the system has available *less what the other
//! runs have promised themselves but not yet taken*.
//!
//! Without it, shards started together on one host each read the same free memory and each
//! sized its fingerprints from all of it (a quarter of 80% of it each), so four shards could
//! take four times what was there. The system's available memory already counts what the
//! other runs hold; what it cannot know is how far they will still grow (the fingerprints of
//! the repeated-decks test grow 16 bytes a shuffle to the end of a run). So:
//!
//! - a run whose planned peak is at least [`RESERVE_FROM_BYTES`] writes that peak to a file of
//!   its own in a per-user directory ([`ledger_dir`]) and holds an exclusive `flock` on the file
//!   for as long as it lives. The kernel drops the lock when the process ends, however it ends
//!   (Ctrl-C, `kill -9`, the OOM killer), so a file whose lock can be taken is a dead run's
//!   and is removed by whoever finds it;
//! - a run's memory budget is the available memory less the *outstanding* part of every live
//!   reservation: its planned peak less what that process holds now (its resident size, from
//!   `/proc/PID/statm`), never below zero. What a run already holds is counted once, by the
//!   system; what it will still take is counted once, by the ledger;
//! - the decision and the registration are made under an exclusive lock on the directory's
//!   `ledger.lock`, so that shards started at the same instant decide one after the other: the
//!   second sees the first's reservation.
//!
//! Where no such directory can be made safely (not ours, open to others, a symlink), runs size
//! their memory alone, as before. The ledger is advice between cooperating runs of one user;
//! other programs are seen only through the available memory.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// Planned peak from which a run registers (smaller runs are lost in the 20% margin that
/// every budget keeps).
pub const RESERVE_FROM_BYTES: u64 = 64 << 20;

/// What the live runs of this user on this host have promised themselves and not yet taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Outstanding {
    /// Live runs with a reservation.
    pub runs: usize,
    /// Bytes reserved and not yet held, summed over them.
    pub bytes: u64,
}

/// One live reservation: the file is removed and its lock released when this is dropped (or
/// the lock alone when the process ends without dropping it).
#[derive(Debug)]
pub struct Reservation {
    path: PathBuf,
    _file: File,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// The directory of the ledger: `$XDG_RUNTIME_DIR/shuffle-bias` where that is set (a per-user
/// directory by definition), else `shuffle-bias-UID` in the temporary directory; created with
/// mode 0700. None when it cannot be made, or is not a directory of ours closed to others.
pub fn ledger_dir() -> Option<PathBuf> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    let dir = match std::env::var_os("XDG_RUNTIME_DIR") {
        Some(runtime) if Path::new(&runtime).is_absolute() => {
            PathBuf::from(runtime).join("shuffle-bias")
        }
        _ => std::env::temp_dir().join(format!("shuffle-bias-{uid}")),
    };
    let _ = fs::DirBuilder::new().mode(0o700).create(&dir);
    let metadata = fs::symlink_metadata(&dir).ok()?;
    let ours = metadata.is_dir() && metadata.uid() == uid && metadata.mode() & 0o077 == 0;
    ours.then_some(dir)
}

/// What the other live runs have reserved and not yet taken (nothing without a ledger).
/// Files of runs that have ended are removed on the way.
pub fn outstanding() -> Outstanding {
    ledger_dir().map_or_else(Outstanding::default, |dir| outstanding_in(&dir))
}

/// Decide under the ledger's lock: `decide` sizes the run (reading [`outstanding`] through
/// whatever budget it consults) and returns its result and the run's planned peak in bytes;
/// a peak of at least [`RESERVE_FROM_BYTES`] is then registered before the lock is released,
/// so that the next run to decide counts it. Without a ledger, `decide` alone.
pub fn decide_and_reserve<T>(decide: impl FnOnce() -> (T, u64)) -> (T, Option<Reservation>) {
    let Some(dir) = ledger_dir() else {
        return (decide().0, None);
    };
    let lock = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(dir.join("ledger.lock"));
    // Without the lock file the run still decides (as if alone) and still registers.
    let locked = lock.as_ref().is_ok_and(|file| flock(file, libc::LOCK_EX));
    let (decided, peak) = decide();
    let reservation = (peak >= RESERVE_FROM_BYTES)
        .then(|| register(&dir, peak))
        .flatten();
    if locked && let Ok(file) = &lock {
        flock(file, libc::LOCK_UN);
    }
    (decided, reservation)
}

/// `flock(file, operation)`; whether it succeeded.
fn flock(file: &File, operation: libc::c_int) -> bool {
    // SAFETY: the descriptor is open for the duration of the call.
    unsafe { libc::flock(file.as_raw_fd(), operation) == 0 }
}

/// The file name of this process's reservation.
fn entry_name(pid: u32) -> String {
    format!("run-{pid}.reservation")
}

/// Write `peak` bytes for this process in `dir`, holding the file's lock.
fn register(dir: &Path, peak: u64) -> Option<Reservation> {
    let path = dir.join(entry_name(std::process::id()));
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(&path)
        .ok()?;
    if !flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
        return None;
    }
    writeln!(file, "{peak}").ok()?;
    Some(Reservation { path, _file: file })
}

/// [`outstanding`] in `dir`.
fn outstanding_in(dir: &Path) -> Outstanding {
    let mut total = Outstanding::default();
    let Ok(entries) = fs::read_dir(dir) else {
        return total;
    };
    let me = std::process::id();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix("run-"))
            .and_then(|n| n.strip_suffix(".reservation"))
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let path = entry.path();
        let Ok(mut file) = File::open(&path) else {
            continue;
        };
        if flock(&file, libc::LOCK_EX | libc::LOCK_NB) {
            // Nobody holds it: its run has ended.
            let _ = fs::remove_file(&path);
            continue;
        }
        let mut text = String::new();
        let Some(peak) = file
            .read_to_string(&mut text)
            .ok()
            .and_then(|_| text.trim().parse::<u64>().ok())
        else {
            continue;
        };
        total.runs += 1;
        total.bytes = total
            .bytes
            .saturating_add(outstanding_bytes(peak, resident_bytes(pid)));
    }
    total
}

/// What a run planning `peak` bytes will still take when it holds `resident` now.
pub fn outstanding_bytes(peak: u64, resident: u64) -> u64 {
    peak.saturating_sub(resident)
}

/// The resident size of process `pid` (`/proc/PID/statm`), or 0 where it cannot be read
/// (then all of its reservation counts as still to come: the safe side).
fn resident_bytes(pid: u32) -> u64 {
    let Ok(statm) = fs::read_to_string(format!("/proc/{pid}/statm")) else {
        return 0;
    };
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    let pages = statm
        .split_whitespace()
        .nth(1)
        .and_then(|field| field.parse::<u64>().ok())
        .unwrap_or(0);
    pages.saturating_mul(u64::try_from(page).unwrap_or(4096))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_run_already_holds_is_not_counted_again() {
        assert_eq!(outstanding_bytes(1000, 0), 1000);
        assert_eq!(outstanding_bytes(1000, 400), 600);
        assert_eq!(outstanding_bytes(1000, 5000), 0);
    }

    #[test]
    fn a_live_reservation_counts_and_an_ended_one_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        // A reservation of a live process (this one, seen from "another" pid's file name: the
        // lock is what makes it live) of far more than this process holds.
        let live = dir.path().join(entry_name(1));
        let file = File::create(&live).unwrap();
        assert!(flock(&file, libc::LOCK_EX | libc::LOCK_NB));
        fs::write(&live, "1000000000000000\n").unwrap();
        let ended = dir.path().join(entry_name(2));
        fs::write(&ended, "5000\n").unwrap();
        let found = outstanding_in(dir.path());
        assert_eq!(found.runs, 1);
        // pid 1's resident size is small (or unreadable): most of the 10^15 bytes are to come.
        assert!(found.bytes > 999_000_000_000_000, "{found:?}");
        assert!(live.exists());
        assert!(!ended.exists(), "the file of an ended run is removed");
        drop(file);
        assert_eq!(outstanding_in(dir.path()), Outstanding::default());
    }

    #[test]
    fn a_registered_reservation_holds_its_peak_and_is_removed_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let small = register(dir.path(), 10).unwrap();
        let path = dir.path().join(entry_name(std::process::id()));
        assert_eq!(fs::read_to_string(&path).unwrap(), "10\n");
        drop(small);
        assert!(!path.exists());
    }
}
