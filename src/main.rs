//! The `shuffle-bias` binary: the library's command line, run with the process's arguments.

fn main() -> std::process::ExitCode {
    shuffle_bias::command_line()
}
