//! Paths as the user gave them: an output named by a symbolic link is written through the link
//! (a loop of links is refused), an output that names a directory is refused by every command,
//! and a file name with control characters is escaped in error messages (issue #33, small
//! messages).

mod common;

use std::path::Path;

use common::shuffle_bias;

#[test]
fn output_to_a_symlink_writes_through_it_and_the_link_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("report.txt");
    let link = dir.path().join("link");
    std::fs::write(&target, "old report\n").unwrap();
    std::os::unix::fs::symlink("report.txt", &link).unwrap();
    shuffle_bias()
        .current_dir(dir.path())
        .args(["run", "naive", "-n", "3", "-t", "100", "--seed", "1", "-q"])
        .args(["-o", "link"])
        .assert()
        .code(predicates::ord::lt(2));
    let link_metadata = std::fs::symlink_metadata(&link).unwrap();
    assert!(
        link_metadata.file_type().is_symlink(),
        "the link was replaced"
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), Path::new("report.txt"));
    let report = std::fs::read_to_string(&target).unwrap();
    assert_ne!(report, "old report\n");
    assert!(report.contains("naive"), "{report}");
    // No temporary file is left beside the link or its target.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn file_and_tally_file_errors_escape_a_newline_in_the_file_name() {
    // A crafted name must not start a line of its own in an error: the newline is shown as
    // `\n`, as in reports.
    let dir = tempfile::tempdir().unwrap();
    let crafted = dir.path().join("x\nNO BIAS DETECTED");
    std::fs::create_dir(&crafted).unwrap();
    // An output that cannot be created (its directory does not exist).
    let output = shuffle_bias()
        .args([
            "run", "naive", "-n", "3", "-t", "100", "--seed", "1", "-q", "-o",
        ])
        .arg(crafted.join("missing\ndir").join("report.txt"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("x\\nNO BIAS DETECTED"), "{stderr}");
    assert!(stderr.contains("missing\\ndir"), "{stderr}");
    assert!(
        !stderr.lines().any(|line| line.starts_with("NO BIAS")),
        "{stderr}"
    );
    // A file that is not a tally, given to merge.
    let not_a_tally = crafted.join("not\na tally");
    std::fs::write(&not_a_tally, "hello\n").unwrap();
    let output = shuffle_bias()
        .arg("merge")
        .arg(&not_a_tally)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not\\na tally"), "{stderr}");
    assert!(
        !stderr.lines().any(|line| line.starts_with("NO BIAS")),
        "{stderr}"
    );
    assert!(
        !stderr.lines().any(|line| line.starts_with("a tally")),
        "{stderr}"
    );
}

/// Run `args` in `dir`: it must be refused, exit 2 with nothing on stdout (no half report);
/// its stderr.
fn refused_in(dir: &Path, args: &[&str]) -> String {
    let output = shuffle_bias().current_dir(dir).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(output.stdout.is_empty(), "{args:?}: no half report");
    stderr
}

#[test]
fn an_output_that_names_a_directory_is_refused_by_every_command_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("reports")).unwrap();
    // `man`, `list` and `case --list` said "writing failed: Is a directory (os error 21)".
    let commands: [&[&str]; 5] = [
        &["man", "-o", "reports"],
        &["list", "-o", "reports"],
        &["case", "--list", "-o", "reports"],
        &["run", "naive", "-n", "3", "-t", "100", "-o", "reports"],
        &["theory", "naive", "-n", "3", "-o", "reports"],
    ];
    for args in commands {
        let stderr = refused_in(dir.path(), args);
        assert!(
            stderr.contains("-o reports: this is a directory; name a file in it"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn an_output_name_ending_in_a_slash_is_refused_before_any_report_is_written() {
    let dir = tempfile::tempdir().unwrap();
    // `--plot picture.svg/` printed the whole report, then "writing failed: Not a directory".
    let commands: [(&[&str], &str, &str); 4] = [
        (
            &["theory", "naive", "-n", "3", "--plot", "picture.svg/"],
            "--plot picture.svg/: a name that ends in / is a directory's; name a file",
            "(e.g. --plot picture.svg)",
        ),
        (
            &[
                "run",
                "naive",
                "-n",
                "3",
                "-t",
                "100",
                "--plot",
                "picture.svg/",
            ],
            "--plot picture.svg/: a name that ends in / is a directory's; name a file",
            "(e.g. --plot picture.svg)",
        ),
        (
            &["list", "-o", "new/"],
            "-o new/: a name that ends in / is a directory's; name a file",
            "(e.g. -o new)",
        ),
        (
            &["man", "-o", "."],
            "-o .: this is a directory; name a file in it",
            "",
        ),
    ];
    for (args, message, suggestion) in commands {
        let stderr = refused_in(dir.path(), args);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(stderr.contains(suggestion), "{args:?}: {stderr}");
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing was created"
    );
}

#[test]
fn an_output_that_is_a_loop_of_symbolic_links_is_refused_and_the_links_stay() {
    let dir = tempfile::tempdir().unwrap();
    // A link to itself was replaced by the report; two links that point to each other too.
    std::os::unix::fs::symlink("loop", dir.path().join("loop")).unwrap();
    std::os::unix::fs::symlink("b.svg", dir.path().join("a.svg")).unwrap();
    std::os::unix::fs::symlink("a.svg", dir.path().join("b.svg")).unwrap();
    let commands: [(&[&str], &str); 4] = [
        (
            &["run", "fisher-yates", "-n", "4", "-t", "100", "-o", "loop"],
            "-o loop: a symbolic link that points to itself",
        ),
        (
            &["man", "-o", "loop"],
            "-o loop: a symbolic link that points to itself",
        ),
        (
            &["list", "-o", "loop"],
            "-o loop: a symbolic link that points to itself",
        ),
        (
            &["theory", "naive", "-n", "3", "--plot", "a.svg"],
            "--plot a.svg: a symbolic link that points to itself",
        ),
    ];
    for (args, message) in commands {
        let stderr = refused_in(dir.path(), args);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(
            stderr.contains("remove the link or name another file"),
            "{args:?}: {stderr}"
        );
    }
    for (link, points_to) in [("loop", "loop"), ("a.svg", "b.svg"), ("b.svg", "a.svg")] {
        let path = dir.path().join(link);
        assert!(
            std::fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_symlink(),
            "{link} was replaced"
        );
        assert_eq!(std::fs::read_link(&path).unwrap(), Path::new(points_to));
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        3,
        "no stray file"
    );
}
