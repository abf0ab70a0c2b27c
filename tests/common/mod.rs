//! What the command-line test files share.

use assert_cmd::Command;

/// The binary, with NO_COLOR removed from the environment so that tests control it.
pub fn shuffle_bias() -> Command {
    let mut command = Command::cargo_bin("shuffle-bias").unwrap();
    command.env_remove("NO_COLOR");
    command
}

/// Start the binary with `args`, send it SIGINT (Ctrl-C) after `millis` milliseconds, and wait
/// for it to end.
#[allow(dead_code)] // not every test file that shares this module interrupts a run
pub fn interrupted_after(args: &[&str], millis: u64) -> std::process::Output {
    use std::process::{Command as Process, Stdio};
    let child = Process::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(millis));
    let status = Process::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    child.wait_with_output().unwrap()
}
