//! Ctrl-C, the same way in every phase of every command.
//!
//! The first Ctrl-C sets one process-wide flag. Every engine polls it at its own natural
//! boundary (a chunk of shuffles, a stage of the exact engine, a wait for input), stops there,
//! and the command writes the report of what was done and exits 130. A second Ctrl-C ends the
//! process at once, also with 130, after removing the temporary files of outputs that were not
//! finished (see [`crate::output::files`]), so an impatient user never waits and never finds
//! half-written files.
//!
//! The flag is global because a signal is: there is one per process. Engines that take a
//! `stop: &AtomicBool` (the simulations, the reader) are handed [`flag`]; tests hand them a flag
//! of their own.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

/// The exit code of a process ended by Ctrl-C (128 + SIGINT), as shells report it.
pub const EXIT_CODE: i32 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);
static INSTALL: Once = Once::new();
/// Temporary files to remove if the process is ended by a second Ctrl-C.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Install the Ctrl-C handler (once per process; later calls do nothing). Should the handler
/// not be installable, Ctrl-C keeps its default effect: the process ends at once.
pub fn install() {
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if REQUESTED.swap(true, Ordering::SeqCst) {
                let removed = remove_pending();
                // Say what the second Ctrl-C lost: the report, and any file half written.
                stderr_line!(
                    "shuffle-bias: interrupted again: stopped at once, without a report{}",
                    if removed.is_empty() {
                        String::new()
                    } else {
                        format!("; unfinished output removed: {}", removed.join(", "))
                    }
                );
                std::process::exit(EXIT_CODE);
            }
        });
    });
}

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// The flag itself, for engines that take a `stop` flag.
pub fn flag() -> &'static AtomicBool {
    &REQUESTED
}

/// Remember a temporary file to remove if a second Ctrl-C ends the process.
pub fn register_pending(path: PathBuf) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.push(path);
    }
}

/// Forget a temporary file (it was renamed into place or removed).
pub fn forget_pending(path: &std::path::Path) {
    if let Ok(mut pending) = PENDING.lock() {
        pending.retain(|p| p != path);
    }
}

fn remove_pending() -> Vec<String> {
    let mut removed = Vec::new();
    if let Ok(pending) = PENDING.lock() {
        for path in pending.iter() {
            if std::fs::remove_file(path).is_ok() {
                removed.push(path.display().to_string());
            }
        }
    }
    removed
}
