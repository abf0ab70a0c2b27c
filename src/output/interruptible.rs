//! A writer that stops at Ctrl-C, so that a long report (39,916,800 orderings of 11 cards as
//! JSON is 15 GB) is not still being written tens of seconds after the user asked to stop.
//!
//! Only a Ctrl-C that comes *while* the report is written stops it: one that came before (it
//! stopped the simulation or the reading, and the report is of what was done) must not throw
//! that report away. A second Ctrl-C ends the process at once in any case ([`crate::system::interrupt`]).
//! The writer checks the flag on every write it is given; the exporters write through buffers,
//! so that is once a buffer (8 KB or so), a cost too small to measure.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Why a write was refused: Ctrl-C came while writing. The command that sees it ends with 130
/// and puts no file in place.
#[derive(Debug, thiserror::Error)]
#[error("interrupted while writing")]
pub struct WritingInterrupted;

/// Writes to `inner` until a Ctrl-C that comes after it was made.
pub struct Interruptible<'a, W: Write + ?Sized> {
    inner: &'a mut W,
    stop: &'a AtomicBool,
    /// Whether a Ctrl-C stops the writing: false when the flag was already set at the start.
    armed: bool,
    /// Whether it did stop.
    stopped: bool,
}

impl<'a, W: Write + ?Sized> Interruptible<'a, W> {
    /// Write to `inner`, stopping when `stop` is set, unless it is set already.
    pub fn new(inner: &'a mut W, stop: &'a AtomicBool) -> Self {
        let armed = !stop.load(Ordering::Relaxed);
        Interruptible {
            inner,
            stop,
            armed,
            stopped: false,
        }
    }

    /// Whether the writing was stopped by Ctrl-C (every write since has failed).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    fn check(&mut self) -> io::Result<()> {
        if self.stopped || (self.armed && self.stop.load(Ordering::Relaxed)) {
            self.stopped = true;
            return Err(io::Error::other(WritingInterrupted));
        }
        Ok(())
    }
}

impl<W: Write + ?Sized> Write for Interruptible<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check()?;
        self.inner.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.check()?;
        self.inner.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.check()?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ctrl_c_while_writing_stops_every_later_write() {
        let stop = AtomicBool::new(false);
        let mut bytes = Vec::new();
        let mut writer = Interruptible::new(&mut bytes, &stop);
        writer.write_all(b"first ").unwrap();
        stop.store(true, Ordering::Relaxed);
        assert!(writer.write_all(b"second").is_err());
        assert!(writer.stopped());
        assert!(writer.flush().is_err());
        assert_eq!(bytes, b"first ");
    }

    #[test]
    fn a_ctrl_c_before_the_writing_began_does_not_stop_it() {
        // The report of an interrupted run is written in full.
        let stop = AtomicBool::new(true);
        let mut bytes = Vec::new();
        let mut writer = Interruptible::new(&mut bytes, &stop);
        writer.write_all(b"the report of what was done").unwrap();
        writer.flush().unwrap();
        assert!(!writer.stopped());
        assert_eq!(bytes, b"the report of what was done");
    }
}
