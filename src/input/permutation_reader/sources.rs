//! The sources of permutations: checked before reading, opened one at a time by a reading thread
//! that hands their chunks to the parser, and the lines assembled from those chunks.

use super::{CHUNK, CHUNKS, InputError, InputProblem, InputSource};
use crate::input::content_digest::{ContentDigest, ContentHasher};
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender};

/// One source's lines, assembled from the chunks it arrives in.
pub(super) struct Lines {
    /// The source's name in messages.
    pub(super) name: String,
    /// The start of a line that goes on in the next chunk (at most [`MAX_LINE`] bytes).
    pub(super) carry: Vec<u8>,
    /// The number of lines ended so far.
    pub(super) number: u64,
    /// The line being read passed [`MAX_LINE`] and was rejected: skip to its newline.
    pub(super) skipping: bool,
}

impl Lines {
    pub(super) fn new(name: &str) -> Self {
        Lines {
            name: name.to_string(),
            carry: Vec::new(),
            number: 0,
            skipping: false,
        }
    }
}

/// What the reading thread sends to the parser, in order.
pub(super) enum Delivery {
    /// The next bytes of the current source: `buffer[..length]` (the buffer is sent back).
    Chunk(Vec<u8>, usize),
    /// The current source is read to its end (its size and digest, when asked for); the next
    /// one follows.
    End(Option<ContentDigest>),
    /// The current source could not be opened or read; nothing follows.
    Failed(InputError),
}

/// The reading thread: open each input in turn, read it in chunks into the buffers that the
/// parser sends back (at most [`CHUNKS`] of them exist), and send them in order, each source
/// digested if `digest`. It ends after the last input, at the first failure, or as soon as the
/// parser has gone.
pub(super) fn feed(
    inputs: Vec<(String, Input)>,
    digest: bool,
    chunks: &SyncSender<Delivery>,
    reusable: &Receiver<Vec<u8>>,
) {
    let mut made = 0;
    let mut spare: Option<Vec<u8>> = None;
    for (name, input) in inputs {
        let mut source = match input.open(&name) {
            Ok(source) => source,
            Err(error) => {
                let _ = chunks.send(Delivery::Failed(error));
                return;
            }
        };
        let mut content = digest.then(ContentHasher::new);
        loop {
            let mut buffer = match spare.take().or_else(|| reusable.try_recv().ok()) {
                Some(buffer) => buffer,
                None if made < CHUNKS => {
                    made += 1;
                    vec![0; CHUNK]
                }
                None => match reusable.recv() {
                    Ok(buffer) => buffer,
                    Err(_) => return,
                },
            };
            let delivery = match source.read(&mut buffer) {
                Ok(0) => {
                    spare = Some(buffer);
                    Delivery::End(content.as_ref().map(ContentHasher::finish))
                }
                Ok(length) => {
                    if let Some(content) = &mut content {
                        content.update(&buffer[..length]);
                    }
                    Delivery::Chunk(buffer, length)
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {
                    spare = Some(buffer);
                    continue;
                }
                Err(error) => Delivery::Failed(InputError::new(
                    name.clone(),
                    InputProblem::CannotRead(error),
                )),
            };
            let last = !matches!(delivery, Delivery::Chunk(..));
            let failed = matches!(delivery, Delivery::Failed(_));
            if chunks.send(delivery).is_err() || failed {
                return;
            }
            if last {
                break;
            }
        }
    }
}

/// One source of permutations, opened only when the reading reaches it, so that one file is
/// open at a time however many are given.
pub struct Input(Opening);

/// How an [`Input`] is opened.
pub(super) enum Opening {
    Stdin,
    File(PathBuf),
    Reader(Box<dyn Read + Send>),
}

impl Input {
    /// Bytes at hand (a test's text, say), read as one source.
    pub fn from_reader(reader: impl Read + Send + 'static) -> Self {
        Input(Opening::Reader(Box::new(reader)))
    }

    /// Open the source, in the reading thread (this may block, on a FIFO say).
    fn open(self, name: &str) -> Result<Box<dyn Read>, InputError> {
        match self.0 {
            Opening::Stdin => Ok(Box::new(io::stdin().lock())),
            Opening::File(path) => File::open(&path)
                .map(|file| Box::new(file) as Box<dyn Read>)
                .map_err(|error| cannot_open(name, error)),
            Opening::Reader(reader) => Ok(reader),
        }
    }
}

/// The error of a file that cannot be opened.
pub(super) fn cannot_open(name: &str, error: io::Error) -> InputError {
    InputError::new(name, InputProblem::CannotOpen(error))
}

/// Check every source before reading any, so that a missing or unreadable file fails at once,
/// and return them to be opened one at a time as the reading reaches them. A regular file is
/// opened and closed again here; a FIFO or a device is only looked at, since opening it may
/// block until something writes to it.
pub fn open_sources(sources: &[InputSource]) -> Result<Vec<Input>, InputError> {
    sources
        .iter()
        .map(|source| match source {
            InputSource::Stdin => Ok(Input(Opening::Stdin)),
            InputSource::Command(name) => Err(InputError::new(
                name.clone(),
                InputProblem::CannotStart(io::Error::other(
                    "a command is started with its seed by check --exec, not opened",
                )),
            )),
            InputSource::File(path) => {
                let name = source.name();
                let metadata = std::fs::metadata(path).map_err(|e| cannot_open(&name, e))?;
                if metadata.is_dir() {
                    return Err(InputError::new(name, InputProblem::Directory));
                }
                if metadata.is_file() {
                    File::open(path).map_err(|e| cannot_open(&name, e))?;
                }
                Ok(Input(Opening::File(path.clone())))
            }
        })
        .collect()
}
