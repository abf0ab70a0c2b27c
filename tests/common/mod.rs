//! What the command-line test files share.

use assert_cmd::Command;

/// The binary, with NO_COLOR removed from the environment so that tests control it.
pub fn shuffle_bias() -> Command {
    let mut command = Command::cargo_bin("shuffle-bias").unwrap();
    command.env_remove("NO_COLOR");
    command
}
