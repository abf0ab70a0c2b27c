//! Paths as the user gave them: an output named by a symbolic link is written through the link,
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
