//! `check --exec COMMAND` and `check -- PROGRAM ARGS…`: the program that shuffles, started by
//! the tool, its standard output read as the input. `--exec` runs the command in the system's
//! shell (`sh -c` on Unix, `cmd /C` on Windows); after `--` the program is started directly
//! with its arguments, no shell quoting involved ([`ProducerCommand`]). It gets
//! [`SEED_VARIABLE`] set to the seed so that a run can be repeated, its standard input closed,
//! and its standard error kept (the last [`STDERR_TAIL`] bytes) for the message if it fails.
//!
//! `--threads K` starts K copies, copy i with the seed + i (and [`COPY_VARIABLE`] = i,
//! [`COPIES_VARIABLE`] = K), and reads them as one input, [`BATCH_LINES`] lines from each in
//! turn ([`Producers`]): the pooled order depends only on what each copy prints, so a run with
//! a seed repeats exactly whatever the copies' speeds. Within a batch consecutive lines come from
//! one copy, so the deal-stream tests see each copy's own pairs; the pair at a seam between two
//! copies' batches is a pair of independent decks, counted like any other (under the null it
//! has the law of every pair; a copy repeating another's decks shows as repeated decks).
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

use super::line_format;
use super::permutation_reader::Input;

/// The environment variable that holds the seed given to the command.
pub const SEED_VARIABLE: &str = "SHUFFLE_BIAS_SEED";

/// With `--threads K`: the environment variable that numbers the copy, 0 to K − 1.
pub const COPY_VARIABLE: &str = "SHUFFLE_BIAS_COPY";

/// With `--threads K`: the environment variable that holds K.
pub const COPIES_VARIABLE: &str = "SHUFFLE_BIAS_COPIES";

/// With several copies, how many lines of one copy are read before the next copy's turn.
pub const BATCH_LINES: usize = 1024;

/// The most copies of a command `--threads` starts.
pub const MAX_COPIES: usize = 64;

/// The program that shuffles, as the user gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProducerCommand {
    /// `--exec COMMAND`: a command line for the system's shell.
    Shell(String),
    /// `-- PROGRAM ARGS…`: a program and its arguments, started directly.
    Program(Vec<String>),
}

impl ProducerCommand {
    /// The command as reports show it: a shell command as given; a program and its arguments
    /// joined by spaces, each quoted for a POSIX shell when it needs to be, so that the text
    /// can be pasted to repeat the run.
    pub fn display(&self) -> String {
        match self {
            ProducerCommand::Shell(command) => command.clone(),
            ProducerCommand::Program(words) => words
                .iter()
                .map(|word| shell_quoted(word))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }

    /// The process to start, not yet started; on Unix in a process group of its own, so that
    /// [`stop`] reaches every process of a pipeline, not only the first.
    fn command(&self) -> Command {
        let mut command = match self {
            ProducerCommand::Shell(line) => shell(line),
            ProducerCommand::Program(words) => {
                let mut command = Command::new(&words[0]);
                command.args(&words[1..]);
                command
            }
        };
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        command
    }
}

/// `word` as a POSIX shell reads it back: as is when it holds only characters no shell treats
/// specially, else in single quotes (a quote inside written `'\''`).
fn shell_quoted(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

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
    /// Start `command` with [`SEED_VARIABLE`] = `seed`; its standard output is the [`Input`]
    /// returned.
    pub fn start(command: &ProducerCommand, seed: u64) -> Result<(Producer, Input), ProducerError> {
        let (producer, stdout) = Producer::spawn(command, seed, None)?;
        Ok((producer, Input::from_reader(stdout)))
    }

    /// Start `command` with its seed and, for one of several copies, its number and the number
    /// of copies.
    fn spawn(
        command: &ProducerCommand,
        seed: u64,
        copy: Option<(usize, usize)>,
    ) -> Result<(Producer, Box<dyn Read + Send>), ProducerError> {
        let display = command.display();
        let mut process = command.command();
        process.env(SEED_VARIABLE, seed.to_string());
        if let Some((copy, copies)) = copy {
            process
                .env(COPY_VARIABLE, copy.to_string())
                .env(COPIES_VARIABLE, copies.to_string());
        }
        let mut child = process
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ProducerError::CannotStart {
                command: display.clone(),
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
            (
                Box::new(std::fs::File::from(stdout)) as Box<dyn Read + Send>,
                pipe,
            )
        };
        #[cfg(not(unix))]
        let input: Box<dyn Read + Send> = Box::new(stdout);
        let producer = Producer {
            command: display,
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

/// Every copy of the command that `--threads` started, read as one input.
pub struct Producers(Vec<Producer>);

impl Producers {
    /// Start `copies` copies of `command` (one: as [`Producer::start`], with no copy
    /// variables), copy i with the seed `seed + i`; their standard outputs are read as one
    /// [`Input`], [`BATCH_LINES`] lines of each in turn. A copy that cannot start stops the
    /// ones already started.
    pub fn start(
        command: &ProducerCommand,
        seed: u64,
        copies: usize,
    ) -> Result<(Producers, Input), ProducerError> {
        if copies <= 1 {
            let (producer, input) = Producer::start(command, seed)?;
            return Ok((Producers(vec![producer]), input));
        }
        let mut producers = Vec::with_capacity(copies);
        let mut outputs = Vec::with_capacity(copies);
        for copy in 0..copies {
            let (producer, output) = Producer::spawn(
                command,
                seed.wrapping_add(copy as u64),
                Some((copy, copies)),
            )?;
            producers.push(producer);
            outputs.push(output);
        }
        Ok((
            Producers(producers),
            Input::from_reader(TakingTurns::new(outputs)),
        ))
    }

    /// End every copy as [`Producer::finish`] does; the first failure, in copy order, is the
    /// one reported (every copy is ended first).
    pub fn finish(self, stopped: bool, interrupted: bool) -> Result<(), ProducerError> {
        let mut first = Ok(());
        for producer in self.0 {
            let result = producer.finish(stopped, interrupted);
            if first.is_ok() {
                first = result;
            }
        }
        first
    }
}

/// Several outputs read as one: batches of [`BATCH_LINES`] whole lines from each in turn,
/// each output read ahead by a thread of its own (a few batches at most, so memory stays
/// bounded), so that the copies run side by side. An output that ends leaves the turns; its last
/// line, if unterminated, is ended so that it does not run into the next copy's first.
struct TakingTurns {
    turns: Vec<Option<Receiver<Vec<u8>>>>,
    next: usize,
    batch: Vec<u8>,
    offset: usize,
}

/// Batches a copy's thread may read ahead of the turns.
const BATCHES_AHEAD: usize = 4;

impl TakingTurns {
    fn new(outputs: Vec<Box<dyn Read + Send>>) -> Self {
        let turns = outputs
            .into_iter()
            .enumerate()
            .map(|(copy, output)| {
                let (sender, receiver) = mpsc::sync_channel(BATCHES_AHEAD);
                let started = thread::Builder::new()
                    .name(format!("shuffle-bias copy {copy}"))
                    .spawn(move || read_batches(output, |batch| sender.send(batch).is_ok()));
                started.ok().map(|_| receiver)
            })
            .collect();
        TakingTurns {
            turns,
            next: 0,
            batch: Vec::new(),
            offset: 0,
        }
    }
}

/// Read `output` in batches of [`BATCH_LINES`] whole lines, handing each to `send` until it
/// refuses (the reading ended) or the output ends; a read error ends the output too (the
/// copy's exit status tells the rest). A batch ends only where no list is open (in brackets, or
/// NumPy's `array(` whose `dtype=` may come on a line of its own) and before a line that does
/// not go on with an R vector (headed by `[k]`, k > 1), so that a deck printed over several
/// lines (Node's `console.log` of a long array, NumPy's `repr`, R's `print`) is never cut
/// between two copies' batches; a byte-order mark at the start of the output is dropped, as it
/// is at the start of a file (a copy's mark would otherwise land in the middle of the input).
fn read_batches(mut output: impl Read, mut send: impl FnMut(Vec<u8>) -> bool) {
    let mut pending: Vec<u8> = Vec::new();
    // `pending[..searched]` is searched for newlines; `lines` of them end there, and the open
    // lists of `pending[..searched]` are `open`.
    let (mut searched, mut lines, mut open) = (0usize, 0usize, OpenLists::default());
    let mut buffer = vec![0u8; 64 * 1024];
    let mut first = true;
    loop {
        let read = match output.read(&mut buffer) {
            Ok(0) | Err(_) => 0,
            Ok(read) => read,
        };
        let end = read == 0;
        let mut bytes = &buffer[..read];
        if first {
            first = false;
            bytes = bytes.strip_prefix(BYTE_ORDER_MARK).unwrap_or(bytes);
        }
        pending.extend_from_slice(bytes);
        if end && pending.len() > searched && pending.last() != Some(&b'\n') {
            // The last line, unterminated, is ended: it may take a batch of its own.
            pending.push(b'\n');
        }
        // A batch is cut before a line once that line is whole, so that what it begins with
        // is known.
        while let Some(at) = memchr::memchr(b'\n', &pending[searched..]) {
            let newline = searched + at;
            let line = &pending[searched..=newline];
            // A list left open past many batches' lines is no list the reader will take: the
            // batch ends anyway, so memory stays bounded.
            let between_decks = open.depth == 0 && !goes_on_r_vector(line);
            if lines >= BATCH_LINES && (between_decks || lines >= 8 * BATCH_LINES) {
                let rest = pending.split_off(searched);
                if !send(std::mem::replace(&mut pending, rest)) {
                    return;
                }
                (searched, lines, open) = (0, 0, OpenLists::default());
                continue;
            }
            open.scan(line);
            searched = newline + 1;
            lines += 1;
        }
        if end {
            if !pending.is_empty() {
                send(pending);
            }
            return;
        }
    }
}

/// Whether a whole line (with its newline) goes on with an R vector begun on the lines before:
/// headed by `[k]`, k > 1, the index of its first item.
fn goes_on_r_vector(line: &[u8]) -> bool {
    let start = line.iter().position(|&b| !matches!(b, b' ' | b'\t'));
    start.is_some_and(|start| line_format::r_vector_index(&line[start..]).is_some_and(|k| k > 1))
}

/// The UTF-8 byte-order mark.
const BYTE_ORDER_MARK: &[u8] = b"\xEF\xBB\xBF";

/// The lists left open by the lines scanned, in brackets or parentheses (NumPy's `array(…)`,
/// whose `dtype=` may come on a line of its own); those inside quotes do not count, and a quote
/// never goes on past its line, as Python, Node and JSON print strings.
#[derive(Debug, Default, Clone, Copy)]
struct OpenLists {
    depth: usize,
}

impl OpenLists {
    /// Scan one whole line (with its newline).
    fn scan(&mut self, line: &[u8]) {
        if self.depth == 0 && memchr::memchr2(b'[', b'(', line).is_none() {
            return;
        }
        let mut quote: Option<u8> = None;
        let mut escaped = false;
        for &byte in line {
            match quote {
                Some(_) if escaped => escaped = false,
                Some(_) if byte == b'\\' => escaped = true,
                Some(q) if byte == q => quote = None,
                Some(_) => {}
                None => match byte {
                    b'\'' | b'"' => quote = Some(byte),
                    b'[' | b'(' => self.depth += 1,
                    b']' | b')' => self.depth = self.depth.saturating_sub(1),
                    _ => {}
                },
            }
        }
    }
}

impl Read for TakingTurns {
    fn read(&mut self, into: &mut [u8]) -> io::Result<usize> {
        while self.offset == self.batch.len() {
            if self.turns.iter().all(Option::is_none) {
                return Ok(0);
            }
            let turn = self.next;
            self.next = (self.next + 1) % self.turns.len();
            let Some(receiver) = &self.turns[turn] else {
                continue;
            };
            match receiver.recv() {
                Ok(batch) => {
                    self.batch = batch;
                    self.offset = 0;
                }
                Err(_) => self.turns[turn] = None,
            }
        }
        let count = into.len().min(self.batch.len() - self.offset);
        into[..count].copy_from_slice(&self.batch[self.offset..self.offset + count]);
        self.offset += count;
        Ok(count)
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

/// `command` run by the system's shell.
fn shell(command: &str) -> Command {
    #[cfg(unix)]
    {
        let mut shell = Command::new("sh");
        shell.arg("-c").arg(command);
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

    /// Node prints a 13-card array over three lines (`[\n  0, 1, …,\n  12\n]`, say): 4 lines a
    /// deck, so 1024 lines end inside a deck whenever 4 does not divide the count of lines
    /// before. Each batch must end where no list is open, a bracket in a quoted label not
    /// counting, and a copy's byte-order mark is dropped.
    #[test]
    fn batches_end_only_between_lists_printed_over_several_lines() {
        let mut text = String::from("\u{feff}# a comment line shifts the decks by one\n");
        for deck in 0..2000 {
            text.push_str(&format!("[\n  'a]{deck}', 1, 2,\n  3, 4\n]\n"));
        }
        let mut batches = Vec::new();
        read_batches(io::Cursor::new(text.clone().into_bytes()), |batch| {
            batches.push(batch);
            true
        });
        assert!(batches.len() > 2);
        let mut joined = Vec::new();
        for batch in &batches {
            let batch = std::str::from_utf8(batch).unwrap();
            assert!(batch.ends_with("]\n"), "{batch:?}");
            let mut open = OpenLists::default();
            for line in batch.split_inclusive('\n') {
                open.scan(line.as_bytes());
            }
            assert_eq!(open.depth, 0);
            joined.extend_from_slice(batch.as_bytes());
        }
        // Every byte comes through once, in order, but the mark.
        assert_eq!(joined, text.as_bytes()[3..]);
    }

    /// R prints a long vector over lines headed by `[k]`, NumPy the `dtype=` of a long array on
    /// a line of its own: no batch ends inside either (3 lines a deck, so 1024 lines end inside
    /// one unless the cut waits).
    #[test]
    fn batches_end_only_between_r_vectors_and_numpy_arrays_printed_over_several_lines() {
        let r_vector = |deck: usize| format!(" [1] {deck} 1 2\n [4] 3 4 5\n [7] 6\n");
        let numpy = |deck: usize| format!("array([{deck}, 1,\n       2],\n      dtype=int8)\n");
        for (print, first) in [
            (&r_vector as &dyn Fn(usize) -> String, " [1] "),
            (&numpy, "array(["),
        ] {
            let mut text = String::from("# a comment line shifts the decks by one\n");
            for deck in 0..2000 {
                text.push_str(&print(deck));
            }
            let mut batches = Vec::new();
            read_batches(io::Cursor::new(text.clone().into_bytes()), |batch| {
                batches.push(batch);
                true
            });
            assert!(batches.len() > 2);
            for batch in &batches[1..] {
                let batch = std::str::from_utf8(batch).unwrap();
                assert!(batch.starts_with(first), "{batch:?}");
            }
            assert_eq!(batches.concat(), text.as_bytes());
        }
    }

    /// Three outputs of different lengths, one ending without a newline, taken in turns: the
    /// batches alternate in copy order whatever the lengths, every line comes through once, and
    /// the unterminated last line stays a line of its own.
    #[test]
    fn outputs_taking_turns_give_batches_in_copy_order_and_every_line_once() {
        let output = |copy: usize, lines: usize, ending: &str| -> Box<dyn Read + Send> {
            let text: String = (0..lines).map(|line| format!("{copy} {line}\n")).collect();
            let text = format!("{}{ending}", text);
            Box::new(io::Cursor::new(text.into_bytes()))
        };
        let outputs = vec![
            output(0, 2 * BATCH_LINES + 5, ""),
            output(1, BATCH_LINES, "1 last"),
            output(2, 3, ""),
        ];
        let mut text = String::new();
        TakingTurns::new(outputs).read_to_string(&mut text).unwrap();
        let copies: Vec<&str> = text.lines().map(|line| &line[..1]).collect();
        let mut expected = Vec::new();
        expected.extend(std::iter::repeat_n("0", BATCH_LINES));
        expected.extend(std::iter::repeat_n("1", BATCH_LINES));
        expected.extend(std::iter::repeat_n("2", 3));
        expected.extend(std::iter::repeat_n("0", BATCH_LINES));
        expected.push("1");
        expected.extend(std::iter::repeat_n("0", 5));
        assert_eq!(copies, expected);
        assert!(
            text.contains("\n1 last\n"),
            "the unterminated line stays whole"
        );
    }

    #[test]
    fn a_program_is_shown_quoted_so_that_it_can_be_pasted() {
        let command = ProducerCommand::Program(vec![
            "python3".into(),
            "-c".into(),
            "print('x y')".into(),
            "a=b".into(),
        ]);
        assert_eq!(command.display(), r#"python3 -c 'print('\''x y'\'')' a=b"#);
        assert_eq!(
            ProducerCommand::Shell("node s.js | head".into()).display(),
            "node s.js | head"
        );
    }

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
