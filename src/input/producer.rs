//! `check --exec COMMAND`: the program that shuffles, started by the tool, its standard output
//! read as the input. The command runs in the system's shell (`sh -c` on Unix, `cmd /C` on
//! Windows), with [`SEED_VARIABLE`] set to the seed so that a run can be repeated, its standard
//! input closed, and its standard error kept (the last [`STDERR_TAIL`] bytes) for the message
//! if it fails.
//!
//! How it ends: read to the end of its output, the tool waits for it, and a non-zero exit (or a
//! death by a signal) is a failure naming the status and showing the end of its standard error.
//! Stopped early — `--trials` reached, `--until-decided` decided, Ctrl-C, a bad line — the tool
//! stops it, unless it exits of its own within `GRACE` (a failure then, if it failed). The
//! [`Producer`] holds a second reading end of the pipe until then, so that the command never
//! sees a broken pipe when the reading ends (it would print a traceback for it, and exit with
//! an error that is not its own); it is killed (on Unix its whole process group) before that end
//! is closed. A [`Producer`] dropped without [`Producer::finish`] is killed too, so no error path
//! leaves it running.

use std::io::{self, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread;
use std::time::{Duration, Instant};

use super::permutation_reader::Input;

/// The environment variable that holds the seed given to the command.
pub const SEED_VARIABLE: &str = "SHUFFLE_BIAS_SEED";

/// How much of the end of the command's standard error a failure shows, in bytes.
pub const STDERR_TAIL: usize = 2000;

/// How long a command that the tool stops may take to show an exit of its own first (its
/// output ended, so it is ending): then that exit is the one reported.
const GRACE: Duration = Duration::from_millis(200);

/// How long the end of the standard error of a failed command is waited for.
const STDERR_WAIT: Duration = Duration::from_secs(1);

/// Why the command failed.
#[derive(Debug, thiserror::Error)]
pub enum ProducerError {
    /// It could not be started.
    #[error("--exec: cannot start `{command}`: {source}")]
    CannotStart {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// Waiting for it failed.
    #[error("--exec: cannot wait for `{command}`: {source}")]
    CannotWait {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: io::Error,
    },
    /// It exited with a failure.
    #[error(
        "--exec: `{command}` failed ({status}){}; nothing is reported, since its output may be \
         incomplete",
        if stderr.is_empty() {
            ", with nothing on its standard error".to_string()
        } else {
            format!("; the end of its standard error:\n{stderr}")
        }
    )]
    Failed {
        /// The command.
        command: String,
        /// Its exit status, in words.
        status: String,
        /// The end of its standard error.
        stderr: String,
    },
}

/// A running command whose standard output is being read.
pub struct Producer {
    command: String,
    /// None once waited for.
    child: Option<Child>,
    /// The end of its standard error, sent by the thread that reads it when it closes.
    stderr: Option<Receiver<Vec<u8>>>,
    /// A second reading end of its standard output, closed only after it has ended.
    #[cfg(unix)]
    _pipe: Option<std::os::fd::OwnedFd>,
}

impl Producer {
    /// Start `command` in the shell with [`SEED_VARIABLE`] = `seed`; its standard output is
    /// the [`Input`] returned.
    pub fn start(command: &str, seed: u64) -> Result<(Producer, Input), ProducerError> {
        let mut child = shell(command)
            .env(SEED_VARIABLE, seed.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ProducerError::CannotStart {
                command: command.to_string(),
                source,
            })?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr = child.stderr.take().expect("stderr is piped");
        let (sender, receiver) = mpsc::channel();
        let stderr = thread::Builder::new()
            .name("shuffle-bias --exec stderr".to_string())
            .spawn(move || {
                let _ = sender.send(tail(stderr));
            })
            .ok()
            .map(|_| receiver);
        #[cfg(unix)]
        let (input, pipe) = {
            let stdout = std::os::fd::OwnedFd::from(stdout);
            let pipe = stdout.try_clone().ok();
            (Input::from_reader(std::fs::File::from(stdout)), pipe)
        };
        #[cfg(not(unix))]
        let input = Input::from_reader(stdout);
        let producer = Producer {
            command: command.to_string(),
            child: Some(child),
            stderr,
            #[cfg(unix)]
            _pipe: pipe,
        };
        Ok((producer, input))
    }

    /// End the command after the reading: `stopped` when the reading ended before its output
    /// did, at `--trials`, `--until-decided` or a bad line (then it is stopped, unless it exits
    /// within `GRACE`: its output may have ended because it died), `interrupted` after Ctrl-C
    /// (then it is stopped at once, and its exit is no failure). Otherwise it is waited for.
    /// Anything but a success of its own is a failure.
    pub fn finish(mut self, stopped: bool, interrupted: bool) -> Result<(), ProducerError> {
        let mut child = self.child.take().expect("finished once");
        let waited = |source| ProducerError::CannotWait {
            command: self.command.clone(),
            source,
        };
        if interrupted {
            stop(&mut child);
            child.wait().map_err(waited)?;
            return Ok(());
        }
        let status = if stopped {
            match exited_within(&mut child, GRACE).map_err(waited)? {
                Some(status) => status,
                None => {
                    stop(&mut child);
                    child.wait().map_err(waited)?;
                    return Ok(());
                }
            }
        } else {
            child.wait().map_err(waited)?
        };
        if status.success() {
            return Ok(());
        }
        // A process it started may still hold its standard error open: not waited for long.
        let stderr = self
            .stderr
            .take()
            .and_then(|receiver| receiver.recv_timeout(STDERR_WAIT).ok())
            .unwrap_or_default();
        Err(ProducerError::Failed {
            command: self.command.clone(),
            status: describe(status),
            stderr: String::from_utf8_lossy(&stderr).trim_end().to_string(),
        })
    }
}

impl Drop for Producer {
    /// A command left running on an error path is stopped.
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            stop(&mut child);
            let _ = child.wait();
        }
    }
}

/// `command` run by the system's shell; on Unix in a process group of its own, so that
/// [`stop`] reaches every process of a pipeline, not only the shell.
fn shell(command: &str) -> Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let mut shell = Command::new("sh");
        shell.arg("-c").arg(command).process_group(0);
        shell
    }
    #[cfg(not(unix))]
    {
        let mut shell = Command::new("cmd");
        shell.arg("/C").arg(command);
        shell
    }
}

/// Kill the command: on Unix its whole process group.
fn stop(child: &mut Child) {
    #[cfg(unix)]
    {
        if let Ok(group) = libc::pid_t::try_from(child.id()) {
            // SAFETY: a plain system call; the group is the child's own (`process_group(0)`).
            unsafe {
                libc::kill(-group, libc::SIGKILL);
            }
        }
    }
    let _ = child.kill();
}

/// The exit status of `child` if it exits within `grace`.
fn exited_within(child: &mut Child, grace: Duration) -> io::Result<Option<ExitStatus>> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if start.elapsed() >= grace {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// An exit status in words: "exit status 3", "killed by signal 11".
fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    status.to_string()
}

/// Everything `source` gives, of which the last [`STDERR_TAIL`] bytes are kept (from the start
/// of a line when one begins in them).
fn tail(mut source: impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        match source.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => {
                kept.extend_from_slice(&buffer[..read]);
                if kept.len() > 2 * STDERR_TAIL {
                    kept.drain(..kept.len() - STDERR_TAIL);
                }
            }
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if kept.len() > STDERR_TAIL {
        kept.drain(..kept.len() - STDERR_TAIL);
        if let Some(newline) = memchr::memchr(b'\n', &kept) {
            kept.drain(..=newline);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_of_a_long_stream_keeps_its_last_whole_lines() {
        let text: String = (0..1000).map(|line| format!("line {line}\n")).collect();
        let kept = String::from_utf8(tail(text.as_bytes())).unwrap();
        assert!(kept.len() <= STDERR_TAIL);
        assert!(kept.starts_with("line "), "{kept}");
        assert!(kept.ends_with("line 999\n"));
        assert_eq!(tail(&b"short"[..]), b"short");
    }
}
