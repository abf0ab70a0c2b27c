//! Outputs that never destroy anything.
//!
//! Every file a command writes (`-o`, `--plot`, `--emit-permutations`) is checked before any
//! work starts and written so that nothing is lost on the way:
//! - `-` means stdout, and at most one output may go there;
//! - an output may not be one of the inputs, nor the same file as another output (compared by
//!   device and inode where the file exists, by normalised path where it does not);
//! - a regular file is written to a temporary file beside it and renamed into place only when
//!   the command succeeds (or was interrupted with a report to write), so a failed run leaves
//!   an existing file as it was; the new file gets the old one's permissions, or those a plain
//!   `create` would give;
//! - a symbolic link is written through, as a shell's `>` would: the temporary file is made
//!   beside the link's final target and renamed onto it, so the link stays a link;
//! - a special file (`/dev/null`, a FIFO, a terminal) is written directly: it cannot be
//!   replaced by a rename, and there is nothing in it to lose.
//!
//! The input side of the same checks: a file given twice to `check` (`a.txt ./a.txt`) would be
//! counted twice, so it is refused too.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

use crate::input::source_name::printable_path;
use crate::system::interrupt;

/// Why an output or an input file cannot be used: the `Display` is the user's message, naming
/// the flag and the file and saying how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// More than one output goes to stdout (`-o -` and `--emit-permutations -`, say).
    #[error(
        "{} would {} write to stdout; send all but one to a file (e.g. -o report.txt)",
        flags.join(" and "),
        if flags.len() == 2 { "both" } else { "all" }
    )]
    SeveralToStdout {
        /// The flags that name stdout, in order.
        flags: Vec<&'static str>,
    },
    /// An output names a directory.
    #[error(
        "{flag} {}: this is a directory; name a file in it",
        printable_path(path)
    )]
    Directory {
        /// The flag.
        flag: &'static str,
        /// The directory.
        path: PathBuf,
    },
    /// An output's name can only be a directory's (`out/`, `..`), existing or not.
    #[error(
        "{flag} {}: a name that ends in {} is a directory's; name a file{}",
        printable_path(path),
        directory_ending(path),
        suggested_file(path).map_or_else(String::new, |file| format!(
            " (e.g. {flag} {})",
            printable_path(&file)
        ))
    )]
    DirectoryName {
        /// The flag.
        flag: &'static str,
        /// The name given.
        path: PathBuf,
    },
    /// An output is a symbolic link that leads back to itself (directly or through others).
    #[error(
        "{flag} {}: a symbolic link that points to itself (a loop of links, which no file is \
         at the end of); remove the link or name another file",
        printable_path(path)
    )]
    LinkLoop {
        /// The flag.
        flag: &'static str,
        /// The link.
        path: PathBuf,
    },
    /// Two outputs name one file.
    #[error(
        "{first_flag} {} and {flag} {} name the same file; give each output its own file",
        printable_path(first),
        printable_path(path)
    )]
    SameOutput {
        /// The flag of the first output.
        first_flag: &'static str,
        /// Its file.
        first: PathBuf,
        /// The flag of the second.
        flag: &'static str,
        /// Its file, under another name perhaps.
        path: PathBuf,
    },
    /// An output is also an input of the command.
    #[error(
        "{flag} {}: this file is also an input ({}); writing it would destroy what is read — \
         name another file",
        printable_path(path),
        if input.as_os_str() == "/dev/stdin" {
            "stdin is redirected from it".to_string()
        } else {
            printable_path(input)
        }
    )]
    OutputIsInput {
        /// The output's flag.
        flag: &'static str,
        /// The output.
        path: PathBuf,
        /// The input it is (`/dev/stdin` when stdin is redirected from it).
        input: PathBuf,
    },
    /// An input given twice (under any name).
    #[error(
        "FILE {} and {} are the same file, which would be counted twice; give each input once",
        printable_path(first),
        printable_path(again)
    )]
    InputTwice {
        /// The first name.
        first: PathBuf,
        /// The second.
        again: PathBuf,
    },
    /// The file (or its temporary file beside it) cannot be created.
    #[error(
        "{flag} {}: cannot create the file ({source}); check the directory exists and is \
         writable",
        printable_path(path)
    )]
    CannotCreate {
        /// The flag.
        flag: &'static str,
        /// The target.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// Writing, flushing or renaming the file into place failed.
    #[error("{flag} {}: writing failed: {source}", printable_path(path))]
    WriteFailed {
        /// The flag.
        flag: &'static str,
        /// The target.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// Where one output goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Standard output (`-`).
    Stdout,
    /// A file.
    File(PathBuf),
}

impl Target {
    /// `-` is stdout; anything else is a file.
    pub fn from_path(path: &Path) -> Self {
        if path.as_os_str() == "-" {
            Target::Stdout
        } else {
            Target::File(path.to_path_buf())
        }
    }

    /// The target of an optional `-o FILE`: stdout when absent.
    pub fn or_stdout(path: Option<&Path>) -> Self {
        path.map_or(Target::Stdout, Target::from_path)
    }

    /// The file, if this is one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Target::Stdout => None,
            Target::File(path) => Some(path),
        }
    }
}

/// What identifies a file on disk: (device, inode) when it exists.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// The path made absolute through its existing directory, for files that do not exist yet.
fn normalised(path: &Path) -> PathBuf {
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let directory = fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
    match path.file_name() {
        Some(name) => directory.join(name),
        None => directory,
    }
}

/// Whether the two paths name one file (by inode where both exist, else by normalised path).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (file_id(a), file_id(b)) {
        (Some(a), Some(b)) => a == b,
        (None, None) => normalised(a) == normalised(b),
        _ => false,
    }
}

/// Whether writing to `path` twice, or reading it while writing it, is harmless: a special file
/// such as `/dev/null` (not a regular file, not a directory, and existing).
pub fn is_special(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The regular file behind standard input, if stdin was redirected from one.
pub fn stdin_file() -> Option<PathBuf> {
    let path = PathBuf::from("/dev/stdin");
    fs::metadata(&path)
        .ok()
        .filter(|m| m.is_file())
        .map(|_| path)
}

/// Check a command's outputs against each other and against its inputs, before anything is
/// created. `outputs` pairs each flag (`-o`, `--plot`, …) with its target; `inputs` are the
/// files read (stdin's file included, if stdin was redirected from one). The message names the
/// flags and says how to fix it. Each input is looked at once, however many there are.
pub fn check_outputs(
    outputs: &[(&'static str, &Target)],
    inputs: &[PathBuf],
) -> Result<(), FileError> {
    let to_stdout: Vec<&'static str> = outputs
        .iter()
        .filter(|(_, target)| **target == Target::Stdout)
        .map(|(flag, _)| *flag)
        .collect();
    if to_stdout.len() > 1 {
        return Err(FileError::SeveralToStdout { flags: to_stdout });
    }
    let files: Vec<(&'static str, &Path)> = outputs
        .iter()
        .filter_map(|(flag, target)| target.file().map(|path| (*flag, path)))
        .collect();
    let mut input_keys: HashMap<FileKey, usize> = HashMap::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        input_keys.entry(file_key(input)).or_insert(i);
    }
    for (i, &(flag, path)) in files.iter().enumerate() {
        check_file_name(flag, path)?;
        if is_special(path) {
            continue;
        }
        for &(other_flag, other) in &files[..i] {
            if same_file(path, other) {
                return Err(FileError::SameOutput {
                    first_flag: other_flag,
                    first: other.to_path_buf(),
                    flag,
                    path: path.to_path_buf(),
                });
            }
        }
        if let Some(&input) = input_keys.get(&file_key(path)) {
            return Err(FileError::OutputIsInput {
                flag,
                path: path.to_path_buf(),
                input: inputs[input].clone(),
            });
        }
    }
    Ok(())
}

/// Refuse an output that cannot be a file: a directory, a name that only a directory can have
/// (`out/`, `..`), or a symbolic link that leads back to itself (which writing through would
/// not reach, and renaming onto would destroy).
fn check_file_name(flag: &'static str, path: &Path) -> Result<(), FileError> {
    let path_buf = || path.to_path_buf();
    if fs::metadata(path).is_err_and(|error| error.raw_os_error() == Some(libc::ELOOP)) {
        return Err(FileError::LinkLoop {
            flag,
            path: path_buf(),
        });
    }
    if path.is_dir() {
        return Err(FileError::Directory {
            flag,
            path: path_buf(),
        });
    }
    if names_a_directory(path) {
        return Err(FileError::DirectoryName {
            flag,
            path: path_buf(),
        });
    }
    Ok(())
}

/// Whether `path` can only name a directory: it ends in `/`, or its last part is `.` or `..`.
fn names_a_directory(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    bytes.ends_with(b"/")
        || bytes.ends_with(b"/.")
        || bytes == b"."
        || path.file_name().is_none()
}

/// How a name that only a directory can have ends: `/`, `.` or `..`.
fn directory_ending(path: &Path) -> &'static str {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    if bytes.ends_with(b"/") {
        "/"
    } else if bytes.ends_with(b"..") {
        ".."
    } else {
        "."
    }
}

/// The file a name ending in `/` was probably meant to be (`plot.svg/` → `plot.svg`), if any.
fn suggested_file(path: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let mut bytes = path.as_os_str().as_bytes();
    while let Some(trimmed) = bytes.strip_suffix(b"/") {
        bytes = trimmed;
    }
    let file = PathBuf::from(std::ffi::OsStr::from_bytes(bytes));
    (bytes.len() < path.as_os_str().len() && !bytes.is_empty() && !names_a_directory(&file))
        .then_some(file)
}

/// What [`same_file`] compares, as a key: (device, inode) of an existing file, else the
/// normalised path; two paths name one file exactly when their keys are equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileKey {
    Inode(u64, u64),
    Path(PathBuf),
}

fn file_key(path: &Path) -> FileKey {
    match file_id(path) {
        Some((device, inode)) => FileKey::Inode(device, inode),
        None => FileKey::Path(normalised(path)),
    }
}

/// The first item whose key an earlier item has: `(earlier, later)` indices. Items without a
/// key are never repeats. `key` is called once per item, and the items are looked up in a map:
/// linear in their number (10,000 files are checked in the time of 10,000 `stat` calls).
fn first_repeat<T, K: std::hash::Hash + Eq>(
    items: &[T],
    mut key: impl FnMut(&T) -> Option<K>,
) -> Option<(usize, usize)> {
    let mut seen: HashMap<K, usize> = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(key) = key(item) else {
            continue;
        };
        if let Some(&j) = seen.get(&key) {
            return Some((j, i));
        }
        seen.insert(key, i);
    }
    None
}

/// Refuse an input file given twice (under any name): it would be counted twice.
pub fn check_inputs(inputs: &[PathBuf]) -> Result<(), FileError> {
    let repeat = first_repeat(inputs, |path| (!is_special(path)).then(|| file_key(path)));
    match repeat {
        Some((first, again)) => Err(FileError::InputTwice {
            first: inputs[first].clone(),
            again: inputs[again].clone(),
        }),
        None => Ok(()),
    }
}

/// Where writing `path` really goes: `path` itself, or, when it is a symbolic link, the file at
/// the end of its chain of links (which need not exist yet, as with a shell's `>`). None for a
/// chain longer than 40 links (the system's own limit): a loop, which has no end to write to.
fn link_target(path: &Path) -> Option<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..=40 {
        let is_link = fs::symlink_metadata(&current).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return Some(current);
        }
        let Ok(target) = fs::read_link(&current) else {
            return Some(current);
        };
        current = match current.parent() {
            Some(parent) if target.is_relative() => parent.join(target),
            _ => target,
        };
    }
    None
}

/// A file being written: a temporary file beside its target, renamed into place by
/// [`OutputFile::commit`]; dropped without a commit, it is removed and the target is untouched.
pub struct OutputFile {
    flag: &'static str,
    path: PathBuf,
    /// The file renamed into place: `path`, or the final target when `path` is a symlink.
    destination: PathBuf,
    /// Always present, until [`OutputFile::commit`] takes it.
    sink: Option<Sink>,
}

enum Sink {
    /// A regular file (or a new one): written aside, renamed on commit.
    Temporary(io::BufWriter<NamedTempFile>),
    /// A special file: written in place.
    Direct(io::BufWriter<File>),
}

impl OutputFile {
    /// Start writing `path` for `flag`; fails at once if the file cannot be created.
    pub fn create(flag: &'static str, path: &Path) -> Result<Self, FileError> {
        let cannot = |source: io::Error| FileError::CannotCreate {
            flag,
            path: path.to_path_buf(),
            source,
        };
        if is_special(path) {
            let file = OpenOptions::new().write(true).open(path).map_err(cannot)?;
            return Ok(OutputFile {
                flag,
                path: path.to_path_buf(),
                destination: path.to_path_buf(),
                sink: Some(Sink::Direct(io::BufWriter::new(file))),
            });
        }
        // Checked here too, for the outputs no command checked before creating them: a
        // directory gets its own message, and a loop of links is never renamed over.
        check_file_name(flag, path)?;
        let destination = link_target(path).ok_or_else(|| FileError::LinkLoop {
            flag,
            path: path.to_path_buf(),
        })?;
        let directory = match destination.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        // The replaced file keeps its permissions; a new one gets what `create` would give.
        let permissions = fs::metadata(&destination)
            .map(|m| m.permissions())
            .unwrap_or_else(|_| Permissions::from_mode(0o666));
        let name = destination
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        let temporary = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".partial")
            .permissions(permissions)
            .tempfile_in(directory)
            .map_err(cannot)?;
        interrupt::register_pending(temporary.path().to_path_buf());
        Ok(OutputFile {
            flag,
            path: path.to_path_buf(),
            destination,
            sink: Some(Sink::Temporary(io::BufWriter::with_capacity(
                1 << 16,
                temporary,
            ))),
        })
    }

    /// The flag that named the target.
    pub fn flag(&self) -> &'static str {
        self.flag
    }

    /// The target's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Put the finished file in place of its target.
    pub fn commit(mut self) -> Result<(), FileError> {
        match self.sink.take() {
            None => Ok(()),
            Some(Sink::Direct(mut writer)) => writer.flush().map_err(|e| self.write_failed(e)),
            Some(Sink::Temporary(writer)) => {
                let temporary = writer
                    .into_inner()
                    .map_err(|e| self.write_failed(e.into_error()))?;
                let temporary_path = temporary.path().to_path_buf();
                let result = temporary.persist(&self.destination).map(drop);
                interrupt::forget_pending(&temporary_path);
                result.map_err(|e| self.write_failed(e.error))
            }
        }
    }

    /// The error of a failed write to this file.
    pub fn write_failed(&self, source: io::Error) -> FileError {
        FileError::WriteFailed {
            flag: self.flag,
            path: self.path.clone(),
            source,
        }
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if let Some(Sink::Temporary(writer)) = &self.sink {
            interrupt::forget_pending(writer.get_ref().path());
        }
    }
}

impl OutputFile {
    fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Some(Sink::Temporary(writer)) => writer,
            Some(Sink::Direct(writer)) => writer,
            None => unreachable!("an OutputFile is written only before its commit"),
        }
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer().write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn repeated_inputs_are_found_looking_at_each_file_once_however_many_there_are() {
        // 20,000 names, the repeat at the end: each key is asked for once (a pairwise check
        // asked 2·n²/2 times, 33 s for 10,000 files), and the pair found is the first one.
        let mut names: Vec<u32> = (0..20_000).collect();
        names.push(7);
        let mut asked = 0;
        let repeat = first_repeat(&names, |&name| {
            asked += 1;
            Some(name)
        });
        assert_eq!(repeat, Some((7, 20_000)));
        assert_eq!(asked, names.len());
        // Items without a key (special files such as /dev/null) are never repeats.
        assert_eq!(first_repeat(&[1, 1], |_| None::<u32>), None);
    }

    #[test]
    fn a_file_given_twice_under_two_names_is_refused_and_a_missing_name_is_kept_apart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("deals.txt");
        fs::write(&path, "0 1 2\n").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        let refused = check_inputs(&[path.clone(), dir.path().join("other.txt"), link.clone()]);
        assert!(
            matches!(refused, Err(FileError::InputTwice { .. })),
            "{refused:?}"
        );
        let missing = dir.path().join("missing.txt");
        assert!(check_inputs(&[path, missing.clone()]).is_ok());
        assert!(matches!(
            check_inputs(&[missing.clone(), missing]),
            Err(FileError::InputTwice { .. })
        ));
    }

    #[test]
    fn a_committed_file_replaces_the_target_and_an_abandoned_one_leaves_it_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.txt");
        fs::write(&path, "old report").unwrap();
        {
            let mut file = OutputFile::create("-o", &path).unwrap();
            file.write_all(b"half a report").unwrap();
            // Dropped without a commit: as when a run fails.
        }
        assert_eq!(fs::read_to_string(&path).unwrap(), "old report");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no stray file"
        );
        let mut file = OutputFile::create("-o", &path).unwrap();
        file.write_all(b"new report").unwrap();
        file.commit().unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new report");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no stray file"
        );
    }

    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.txt");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        let mut file = OutputFile::create("-o", &path).unwrap();
        file.write_all(b"new").unwrap();
        file.commit().unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    #[test]
    fn special_files_are_written_in_place_and_may_be_named_twice() {
        let null = Target::File(PathBuf::from("/dev/null"));
        assert!(check_outputs(&[("-o", &null), ("--plot", &null)], &[]).is_ok());
        let mut file = OutputFile::create("-o", Path::new("/dev/null")).unwrap();
        file.write_all(b"nothing").unwrap();
        file.commit().unwrap();
        assert!(
            fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }

    #[test]
    fn an_output_that_is_an_input_under_another_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("deals.txt");
        fs::write(&input, "0 1 2\n").unwrap();
        let other_name = dir.path().join(".").join("deals.txt");
        let target = Target::File(other_name);
        let error = check_outputs(&[("-o", &target)], std::slice::from_ref(&input))
            .unwrap_err()
            .to_string();
        assert!(error.contains("also an input"), "{error}");
    }

    #[test]
    fn two_outputs_naming_one_new_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = Target::File(dir.path().join("out.svg"));
        let b = Target::File(dir.path().join("./out.svg"));
        let error = check_outputs(&[("-o", &a), ("--plot", &b)], &[])
            .unwrap_err()
            .to_string();
        assert!(error.contains("same file"), "{error}");
    }

    #[test]
    fn only_one_output_may_go_to_stdout() {
        let error = check_outputs(
            &[
                ("-o", &Target::Stdout),
                ("--emit-permutations", &Target::Stdout),
            ],
            &[],
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("stdout"), "{error}");
    }

    #[test]
    fn an_input_given_twice_under_two_names_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.txt");
        fs::write(&a, "0 1\n").unwrap();
        let b = dir.path().join(".").join("a.txt");
        assert!(check_inputs(&[a.clone(), b]).is_err());
        assert!(check_inputs(&[a]).is_ok());
    }
}
