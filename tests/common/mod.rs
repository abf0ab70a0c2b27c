//! What the command-line test files share.

use assert_cmd::Command;

/// The binary, with NO_COLOR removed from the environment so that tests control it.
#[allow(dead_code)] // not every test file that shares this module runs it this way
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
    interrupt(child, millis)
}

/// Send a started child (stdout and stderr piped) SIGINT (Ctrl-C) after `millis` milliseconds,
/// and wait for it to end; fail the test if it has not ended 10 s after the signal, rather than
/// hang (a liveness bound, not a speed test).
#[allow(dead_code)] // not every test file that shares this module interrupts a run
pub fn interrupt(mut child: std::process::Child, millis: u64) -> std::process::Output {
    use std::io::Read;
    use std::process::Command as Process;
    use std::time::{Duration, Instant};
    // Drain the pipes while waiting, so that a long report cannot block the child.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                pipe.read_to_end(&mut bytes).unwrap();
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    std::thread::sleep(Duration::from_millis(millis));
    let status = Process::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("still running 10 s after Ctrl-C");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}
