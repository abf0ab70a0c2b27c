//! The CI recipes of `ci/` (shown in docs/ci.md): both YAML files parse, have the jobs, steps and
//! artifacts they promise, and their shuffle-bias commands, run as the CI would run them (the
//! GitHub step scripts in bash with `-e` and `GITHUB_STEP_SUMMARY` set, the GitLab script lines
//! one by one), pass on a fair input, fail on a biased one, and leave the Markdown report behind
//! either way.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::shuffle_bias;
use yaml_rust2::{Yaml, YamlLoader};

fn recipe(name: &str) -> (String, Yaml) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("ci").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut documents = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    assert_eq!(documents.len(), 1, "{name} holds one document");
    (text, documents.remove(0))
}

fn text(yaml: &Yaml) -> &str {
    yaml.as_str()
        .unwrap_or_else(|| panic!("expected a string: {yaml:?}"))
}

/// The steps of a GitHub Actions job.
fn steps<'a>(workflow: &'a Yaml, job: &str) -> &'a [Yaml] {
    workflow["jobs"][job]["steps"]
        .as_vec()
        .unwrap_or_else(|| panic!("job {job} has steps"))
}

/// The `run` scripts of a job's steps that call shuffle-bias (the install step aside).
fn shuffle_bias_scripts(steps: &[Yaml]) -> Vec<String> {
    steps
        .iter()
        .filter_map(|step| step["run"].as_str())
        .filter(|run| run.contains("shuffle-bias ") && !run.contains("cargo install"))
        .map(str::to_string)
        .collect()
}

/// The directory of the binary under test, to put first on PATH.
fn binary_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin("shuffle-bias")
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A working directory holding `deals.txt`: 240,000 shuffles of 5 cards by `algorithm`, as
/// the project's own program would write them.
fn workspace(algorithm: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    shuffle_bias()
        .current_dir(dir.path())
        .args([
            "run", algorithm, "-n", "5", "-t", "240k", "--seed", "3", "--quiet",
        ])
        .args(["--emit-permutations", "deals.txt", "-o", "/dev/null"])
        .assert()
        .code(if algorithm == "fisher-yates" { 0 } else { 1 });
    dir
}

/// Run `script` in bash with `-e` in `dir`, the binary on PATH; returns the exit code.
fn bash(script: &str, dir: &Path, summary: &Path) -> i32 {
    let path = format!(
        "{}:{}",
        binary_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let status = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env("GITHUB_STEP_SUMMARY", summary)
        .status()
        .unwrap();
    status.code().unwrap()
}

#[test]
fn the_github_workflow_has_a_self_test_and_a_check_job_that_publish_the_report() {
    let (_, workflow) = recipe("github-actions.yml");
    assert!(workflow["on"]["push"] != Yaml::BadValue, "runs on push");
    assert!(
        workflow["on"]["pull_request"] != Yaml::BadValue,
        "runs on pull requests"
    );
    assert!(text(&workflow["env"]["SHUFFLE_BIAS_GIT"]).starts_with("https://"));
    for (job, command, report) in [
        ("self-test", "shuffle-bias compare --all", "compare.md"),
        ("check", "shuffle-bias check deals.txt", "check.md"),
    ] {
        assert_eq!(text(&workflow["jobs"][job]["runs-on"]), "ubuntu-latest");
        let steps = steps(&workflow, job);
        let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
        assert!(
            runs.iter()
                .any(|r| r.contains("cargo install --locked --git")),
            "{job} installs shuffle-bias"
        );
        let script = runs
            .iter()
            .find(|r| r.contains(command))
            .unwrap_or_else(|| panic!("{job} runs {command}"));
        assert!(script.contains(&format!("--format markdown -o {report}")));
        assert!(script.contains("GITHUB_STEP_SUMMARY"), "{job}: job summary");
        assert!(
            script.contains("exit $code"),
            "{job}: the exit code is kept"
        );
        let upload = steps
            .iter()
            .find(|s| {
                s["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
            })
            .unwrap_or_else(|| panic!("{job} uploads the report"));
        assert_eq!(
            text(&upload["if"]),
            "always()",
            "uploaded whatever the verdict"
        );
        assert_eq!(text(&upload["with"]["path"]), report);
        for step in steps {
            if let Some(action) = step["uses"].as_str() {
                assert!(action.contains('@'), "{action} is pinned to a version");
            }
        }
    }
}

#[test]
fn the_gitlab_jobs_run_the_self_test_and_the_check_and_keep_the_report() {
    let (_, pipeline) = recipe("gitlab-ci.yml");
    assert!(text(&pipeline["variables"]["SHUFFLE_BIAS_GIT"]).starts_with("https://"));
    let template = &pipeline[".shuffle-bias"];
    let install = template["before_script"].as_vec().unwrap();
    assert!(text(&install[0]).starts_with("cargo install --locked --git"));
    for (job, command, report) in [
        (
            "shuffle-bias-self-test",
            "shuffle-bias compare --all",
            "compare.md",
        ),
        (
            "shuffle-bias-check",
            "shuffle-bias check deals.txt",
            "check.md",
        ),
    ] {
        let job_yaml = &pipeline[job];
        assert_eq!(text(&job_yaml["extends"]), ".shuffle-bias");
        let script: Vec<&str> = job_yaml["script"]
            .as_vec()
            .unwrap_or_else(|| panic!("{job} has a script"))
            .iter()
            .map(text)
            .collect();
        assert!(script.iter().any(|line| line.contains(command)), "{job}");
        assert_eq!(text(&job_yaml["artifacts"]["when"]), "always");
        let paths: Vec<&str> = job_yaml["artifacts"]["paths"]
            .as_vec()
            .unwrap()
            .iter()
            .map(text)
            .collect();
        assert_eq!(paths, [report]);
    }
}

#[test]
fn the_ci_guide_shows_both_recipes_as_they_are() {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ci.md")).unwrap();
    for name in ["github-actions.yml", "gitlab-ci.yml"] {
        let (text, _) = recipe(name);
        assert!(
            guide.contains(&format!("```yaml\n{text}```")),
            "docs/ci.md shows ci/{name} verbatim in a yaml block"
        );
    }
}

#[test]
fn the_github_steps_pass_on_a_fair_shuffle_and_fail_on_a_biased_one_with_the_summary_written() {
    let (_, workflow) = recipe("github-actions.yml");
    for (algorithm, expected) in [("fisher-yates", 0), ("naive", 1)] {
        let dir = workspace(algorithm);
        let summary = dir.path().join("summary.md");
        let scripts = shuffle_bias_scripts(steps(&workflow, "check"));
        assert_eq!(scripts.len(), 1);
        assert_eq!(
            bash(&scripts[0], dir.path(), &summary),
            expected,
            "{algorithm}"
        );
        let written = std::fs::read_to_string(&summary).unwrap();
        assert!(written.starts_with("## shuffle-bias check: 240,000 permutations"));
        let verdict = if expected == 0 {
            "FAIR WITHIN 1pp"
        } else {
            "BIAS DETECTED"
        };
        assert!(written.contains(&format!("**{verdict}**")), "{written}");
        assert!(dir.path().join("check.md").is_file(), "the artifact exists");
    }
    // 3,000 fair deals of 5 cards pass every test, but cannot bound the positions within 1pp
    // (`theory fisher-yates -n 5 --max-bias 1pp` asks for about 65,600): the gate fails the job
    // with 3, where a plain "no bias detected" would have passed it.
    let dir = workspace("fisher-yates");
    let deals = dir.path().join("deals.txt");
    let text = std::fs::read_to_string(&deals).unwrap();
    let few: String = text
        .lines()
        .take(3000)
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&deals, few).unwrap();
    let summary = dir.path().join("summary.md");
    let scripts = shuffle_bias_scripts(steps(&workflow, "check"));
    assert_eq!(bash(&scripts[0], dir.path(), &summary), 3);
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.contains("**INCONCLUSIVE**"), "{written}");
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let scripts = shuffle_bias_scripts(steps(&workflow, "self-test"));
    assert_eq!(scripts.len(), 1);
    assert_eq!(bash(&scripts[0], dir.path(), &summary), 0);
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(written.contains("**ALL AS EXPECTED**"), "{written}");
    assert!(dir.path().join("compare.md").is_file());
}

#[test]
fn the_gitlab_script_lines_pass_on_a_fair_shuffle_and_fail_on_a_biased_one() {
    let (_, pipeline) = recipe("gitlab-ci.yml");
    let lines = |job: &str| -> Vec<String> {
        pipeline[job]["script"]
            .as_vec()
            .unwrap()
            .iter()
            .map(|line| text(line).to_string())
            .filter(|line| line.starts_with("shuffle-bias "))
            .collect()
    };
    for (algorithm, expected) in [("fisher-yates", 0), ("naive", 1)] {
        let dir = workspace(algorithm);
        let summary = dir.path().join("unused.md");
        let check = lines("shuffle-bias-check");
        assert_eq!(check.len(), 1);
        assert_eq!(
            bash(&check[0], dir.path(), &summary),
            expected,
            "{algorithm}"
        );
        assert!(dir.path().join("check.md").is_file(), "the artifact exists");
    }
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("unused.md");
    let self_test = lines("shuffle-bias-self-test");
    assert_eq!(self_test.len(), 1);
    assert_eq!(bash(&self_test[0], dir.path(), &summary), 0);
    assert!(dir.path().join("compare.md").is_file());
}
