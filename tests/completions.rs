//! `completions` and `man` through the binary: the bash script is accepted by `bash -n`, every
//! shell's script names every subcommand, and the manual page has the structure of a man page
//! (checked in the test, so it fails without groff too) and, where groff is installed, renders
//! with `groff -man -Tutf8` without a warning.

mod common;

use std::process::Command;

use clap::CommandFactory;
use common::shuffle_bias;
use predicates::prelude::*;
use shuffle_bias::cli::Cli;

/// The subcommands the binary has (from the clap definition itself).
fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect()
}

fn stdout_of(args: &[&str]) -> String {
    let output = shuffle_bias().args(args).output().unwrap();
    assert!(output.status.success(), "{args:?}: {output:?}");
    assert!(
        output.stderr.is_empty(),
        "{args:?} writes nothing to stderr"
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Whether `program` can be run here.
fn installed(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn the_bash_completion_script_is_accepted_by_bash_n() {
    let script = stdout_of(&["completions", "bash"]);
    assert!(
        script.contains("complete -F _shuffle__bias") && script.contains(" shuffle-bias\n"),
        "{script}"
    );
    if !installed("bash") {
        println!("note: bash is not installed; only the script's contents were checked");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shuffle-bias.bash");
    std::fs::write(&path, &script).unwrap();
    let output = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(
        output.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// What the bash script completes for the words typed so far (the last one being completed),
/// as bash calls a completion function: `COMP_WORDS`, `COMP_CWORD`, then the command, the
/// word and the word before it.
fn bash_completes(script: &std::path::Path, words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\n_shuffle__bias shuffle-bias '{}' '{}'\n\
         echo \"${{COMPREPLY[*]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1,
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let output = Command::new("bash")
        .arg("-c")
        .arg(program)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

#[test]
fn bash_completes_subcommands_their_flags_and_the_choices_of_a_flag() {
    if !installed("bash") {
        println!("note: bash is not installed; completion was not exercised");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shuffle-bias.bash");
    std::fs::write(&path, stdout_of(&["completions", "bash"])).unwrap();
    assert_eq!(
        bash_completes(&path, &["shuffle-bias", "c"]),
        "compare check completions case"
    );
    // After a subcommand (broken by clap_complete for hyphenated names, fixed by the binary).
    assert_eq!(
        bash_completes(&path, &["shuffle-bias", "check", "--sk"]),
        "--skip-invalid"
    );
    assert_eq!(
        bash_completes(&path, &["shuffle-bias", "run", "--format", ""]),
        "table csv json markdown"
    );
    assert_eq!(
        bash_completes(&path, &["shuffle-bias", "completions", "p"]),
        "powershell"
    );
}

#[test]
fn the_bash_script_offers_the_values_of_rng_map_and_against() {
    let script = stdout_of(&["completions", "bash"]);
    let run = Cli::command();
    let run = run.find_subcommand("run").unwrap();
    for flag in ["rng", "map", "against"] {
        let arg = run
            .get_arguments()
            .find(|arg| arg.get_long() == Some(flag))
            .unwrap();
        let values: Vec<String> = arg
            .get_possible_values()
            .iter()
            .filter(|value| !value.is_hide_set())
            .map(|value| value.get_name().to_string())
            .collect();
        assert!(values.len() >= 5, "--{flag}: {values:?}");
        // The list bash is given for the flag, as clap_complete writes it.
        let list = format!("compgen -W \"{}\"", values.join(" "));
        assert!(script.contains(&list), "--{flag}: {list}");
    }
    for value in [
        "mt19937",
        "xorshift128+",
        "lemire",
        "modulo",
        "uniform",
        "sattolo",
    ] {
        assert!(script.contains(value), "{value}");
    }
    if !installed("bash") {
        println!("note: bash is not installed; completion was not exercised");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shuffle-bias.bash");
    std::fs::write(&path, &script).unwrap();
    assert_eq!(
        bash_completes(&path, &["shuffle-bias", "run", "--map", ""]),
        "lemire rejection bitmask modulo multiply float native"
    );
    assert_eq!(
        bash_completes(&path, &["shuffle-bias", "run", "--rng", "xo"]),
        "xorshift128+ xorshift128+-legacy xoshiro256++"
    );
    assert_eq!(
        bash_completes(
            &path,
            &["shuffle-bias", "check", "--against", "comparator-"]
        ),
        "comparator-insertion comparator-merge comparator-quick comparator-timsort"
    );
    // compare offers only the generators it runs on.
    assert_eq!(
        bash_completes(&path, &["shuffle-bias", "compare", "--rng", ""]),
        "chacha8 chacha12 chacha20"
    );
}

#[test]
fn every_shell_script_names_every_subcommand_and_a_flag_of_check() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout_of(&["completions", shell]);
        for sub in subcommands() {
            assert!(script.contains(&sub), "{shell}: {sub}");
        }
        assert!(script.contains("skip-invalid"), "{shell}: check's flags");
    }
}

#[test]
fn the_zsh_and_fish_scripts_parse_where_those_shells_are_installed() {
    for (shell, check) in [("zsh", "-n"), ("fish", "--no-execute")] {
        if !installed(shell) {
            println!("note: {shell} is not installed; its script was checked for contents only");
            continue;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script");
        std::fs::write(&path, stdout_of(&["completions", shell])).unwrap();
        let output = Command::new(shell).arg(check).arg(&path).output().unwrap();
        assert!(output.status.success(), "{shell} {check}: {output:?}");
    }
}

#[test]
fn an_unknown_shell_is_refused_with_the_choices() {
    shuffle_bias()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("'tcsh'").and(predicate::str::contains("bash")));
}

#[test]
fn the_man_page_has_a_title_the_usual_sections_and_a_section_per_subcommand() {
    let page = stdout_of(&["man"]);
    assert!(
        page.is_ascii(),
        "the page is plain ASCII (other characters escaped)"
    );
    let lines: Vec<&str> = page.lines().collect();
    let title = lines.iter().find(|l| l.starts_with(".TH ")).unwrap();
    assert!(title.starts_with(".TH SHUFFLE-BIAS 1 "), "{title}");
    let sections: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix(".SH "))
        .collect();
    let mut expected = vec!["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "SUBCOMMANDS"];
    let named: Vec<String> = subcommands()
        .iter()
        .filter(|sub| *sub != "help")
        .map(|sub| format!("\"SHUFFLE-BIAS {}\"", sub.to_uppercase()))
        .collect();
    expected.extend(named.iter().map(String::as_str));
    expected.extend(["\"EXIT STATUS\"", "\"EXAMPLES\"", "VERSION"]);
    assert_eq!(sections, expected);
    // Every flag of every subcommand is documented, written as roff writes a hyphen.
    let command = Cli::command();
    for sub in command.get_subcommands() {
        for arg in sub.get_arguments() {
            if let Some(long) = arg.get_long() {
                let roff = format!("\\fB\\-\\-{}\\fR", long.replace('-', "\\-"));
                assert!(page.contains(&roff), "{} --{long}", sub.get_name());
            }
        }
    }
    // The exit codes are kept one per line.
    let status = page.split(".SH \"EXIT STATUS\"").nth(1).unwrap();
    assert!(status.starts_with("\n.nf\n"), "{status}");
    assert!(status.contains("  1  bias detected"), "{status}");
    assert_eq!(
        page.matches("\n.nf\n").count(),
        page.matches("\n.fi\n").count()
    );
}

#[test]
fn the_man_page_renders_with_groff_without_a_warning() {
    if !installed("groff") {
        println!("note: groff is not installed; the page was checked for structure only");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shuffle-bias.1");
    std::fs::write(&path, stdout_of(&["man"])).unwrap();
    // -P-cbou: plain text, without bold, underline or overstriking, to read it back.
    let output = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert!(
        output.stderr.is_empty(),
        "groff warned: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout);
    // groff writes the heading's hyphen as a Unicode hyphen on a UTF-8 terminal.
    assert!(text.contains("BIAS CHECK\n"), "{text}");
    assert!(text.contains("EXIT STATUS\n"), "{text}");
    // Justified lines may stretch the spaces between words: compare words, not spacing.
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(words.contains("shuffle-bias check [-n|--deck]"), "{text}");
}

#[test]
fn man_dash_o_writes_the_same_page_to_a_file_and_a_bad_path_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shuffle-bias.1");
    shuffle_bias()
        .arg("man")
        .arg("-o")
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), stdout_of(&["man"]));
    shuffle_bias()
        .arg("man")
        .arg("-o")
        .arg(dir.path().join("missing").join("shuffle-bias.1"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("-o"));
}
