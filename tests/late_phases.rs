//! Ctrl-C late in a run, twice, and the memory a large run will take: exit 130 whichever phase
//! the signal lands in, a word on stderr when a second Ctrl-C drops the report, and a warning
//! before a run whose fingerprints will take hundreds of MB; an interrupted `compare` gives no
//! verdict (issue #33, items 7, 10 and 11).

mod common;

#[test]
fn a_large_marginal_run_warns_of_its_fingerprint_memory_before_it_starts() {
    // 20 million 52-card shuffles keep 320 MB of fingerprints for the repeated-decks test.
    // The warning comes before the simulation: the run is stopped after 1 s.
    let output = common::interrupted_after(
        &[
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "20M",
            "--seed",
            "1",
            "-q",
            "-o",
            "/dev/null",
        ],
        1000,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("warning: the repeated-decks test keeps 16 bytes a shuffle: 320 MB"),
        "{stderr}"
    );
    assert!(stderr.contains("--no-deal-tests"), "{stderr}");
    // Without the deal tests there is nothing to warn of.
    let quiet = common::interrupted_after(
        &[
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "20M",
            "--seed",
            "1",
            "-q",
            "-o",
            "/dev/null",
            "--no-deal-tests",
        ],
        1000,
    );
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("warning: the repeated-decks"));
}

#[test]
fn two_ctrl_c_close_together_say_on_stderr_that_the_report_was_lost() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "1T",
            "--seed",
            "1",
            "-q",
        ])
        .args(["--format", "json", "-o"])
        .arg(&report)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(800));
    let pid = child.id() as libc::pid_t;
    // SAFETY: signalling our own child, which is still running (it was asked for 10^12
    // shuffles and has not been signalled yet).
    unsafe {
        libc::kill(pid, libc::SIGINT);
        libc::kill(pid, libc::SIGINT);
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    if !report.exists() {
        // The second Ctrl-C stopped it before the report: it says so.
        assert!(stderr.contains("interrupted again"), "{stderr}");
        assert!(stderr.contains("without a report"), "{stderr}");
    }
}

#[test]
fn ctrl_c_at_any_moment_of_a_run_exits_130_even_while_the_report_is_built() {
    // 11 cards: the exact law, 2 million shuffles and a report over 39,916,800 orderings take
    // a few seconds in all; Ctrl-C at each of these moments must end in exit 130, whichever
    // phase it lands in (after the last shuffle it used to give exit 0).
    for millis in [300, 900, 1500, 2500, 3500] {
        let output = common::interrupted_after(
            &[
                "run",
                "fisher-yates",
                "-n",
                "11",
                "-t",
                "2M",
                "--seed",
                "1",
                "-q",
                "-o",
                "/dev/null",
            ],
            millis,
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.code() == Some(0) || output.status.code() == Some(1) {
            // Finished before the signal: nothing was interrupted.
            assert!(!stderr.contains("interrupted"), "{millis} ms: {stderr}");
            continue;
        }
        assert_eq!(output.status.code(), Some(130), "{millis} ms: {stderr}");
        assert!(stderr.contains("interrupted"), "{millis} ms: {stderr}");
    }
}

#[test]
fn an_interrupted_compare_headlines_interrupted_not_a_verdict() {
    let output = common::interrupted_after(
        &[
            "compare", "--all", "-n", "5", "-t", "1T", "--seed", "1", "-q",
        ],
        800,
    );
    let table = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(130), "{table}");
    assert!(table.contains("INTERRUPTED"), "{table}");
    assert!(!table.contains("NOT AS EXPECTED"), "{table}");
}

#[test]
fn theory_riffle_passes_over_a_long_range_stops_at_the_first_ctrl_c() {
    // 1,000 riffle passes of 1,000 cards by the closed form take many minutes; the first Ctrl-C
    // used to be ignored. It must end the computation with exit 130 within a few seconds (one
    // point of the curve, a fraction of a second at this size, is the most it may finish).
    let started = std::time::Instant::now();
    let output = common::interrupted_after(
        &[
            "theory",
            "riffle",
            "-n",
            "1000",
            "--passes",
            "1..1000",
            "-o",
            "/dev/null",
        ],
        1000,
    );
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        elapsed < std::time::Duration::from_secs(5),
        "{elapsed:?} after a Ctrl-C at 1 s"
    );
}

/// Start `run` with `args` (stdout piped), wait until `started` says the report is being
/// written (polled every 20 ms, for at most 60 s), send SIGINT, and return how long the process
/// took to end after it, with its output.
fn interrupted_while_writing(
    args: &[&str],
    mut started: impl FnMut(&mut std::process::Child) -> bool,
) -> (std::time::Duration, std::process::Output) {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let waiting = Instant::now();
    while !started(&mut child) {
        assert!(
            waiting.elapsed() < Duration::from_secs(60),
            "the report was not being written after 60 s"
        );
        assert!(child.try_wait().unwrap().is_none(), "ended before writing");
        std::thread::sleep(Duration::from_millis(20));
    }
    let signalled = Instant::now();
    let output = common::interrupt(child, 0);
    (signalled.elapsed(), output)
}

#[test]
fn ctrl_c_while_a_large_json_report_is_written_stops_it_and_leaves_no_file() {
    // Regression: the 15 GB JSON of every ordering of 11 cards went on being written for
    // tens of seconds after Ctrl-C. Ctrl-C once 1 MB of it is in its temporary file: the
    // writing stops at the next buffer, nothing is put in place, and the temporary file goes.
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let partial_size = |dir: &std::path::Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|entry| entry.ok()?.metadata().ok())
            .map(|metadata| metadata.len())
            .max()
            .unwrap_or(0)
    };
    let (took, output) = interrupted_while_writing(
        &[
            "run",
            "fisher-yates",
            "-n",
            "11",
            "-t",
            "2M",
            "--seed",
            "1",
            "-q",
            "--format",
            "json",
            "--all-orderings",
            "-o",
            report.to_str().unwrap(),
        ],
        |_| partial_size(dir.path()) > 1 << 20,
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    // A liveness bound, far above the time of one buffer, far below the minute of the write.
    assert!(
        took < std::time::Duration::from_secs(5),
        "{took:?}: {stderr}"
    );
    assert!(
        stderr.contains("interrupted while writing -o") && stderr.contains("not put in place"),
        "{stderr}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn ctrl_c_while_every_ordering_goes_to_stdout_as_csv_stops_the_writing() {
    use std::io::Read;
    // The same on stdout: the CSV of 39,916,800 orderings stops soon after Ctrl-C, with 130.
    let mut read = 0usize;
    let mut buffer = vec![0u8; 1 << 16];
    let (took, output) = interrupted_while_writing(
        &[
            "run",
            "fisher-yates",
            "-n",
            "11",
            "-t",
            "2M",
            "--seed",
            "1",
            "-q",
            "--format",
            "csv",
            "--table",
            "permutations",
            "--all-orderings",
        ],
        |child| {
            // Read (and so unblock) the report until 1 MB of it has come.
            let stdout = child.stdout.as_mut().unwrap();
            read += stdout.read(&mut buffer).unwrap();
            read > 1 << 20
        },
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        took < std::time::Duration::from_secs(5),
        "{took:?}: {stderr}"
    );
    assert!(
        stderr.contains("interrupted while writing the report to stdout"),
        "{stderr}"
    );
}

#[test]
fn theory_passes_with_a_raised_path_budget_stops_within_a_stage_at_ctrl_c() {
    // Regression: the mixing curve of a comparator merge sort on 8 cards carries the law
    // through a convolution stage of 40,320 × 40,320 compositions, about a minute, and Ctrl-C
    // was looked at only between stages (65 s late). It is now looked at for every ordering
    // carried: exit 130 within a liveness bound far below the stage.
    let started = std::time::Instant::now();
    let output = common::interrupted_after(
        &[
            "theory",
            "comparator-merge",
            "-n",
            "8",
            "--passes",
            "1..3",
            "--max-paths",
            "1e13",
            "-q",
            "-o",
            "/dev/null",
        ],
        3000,
    );
    let late = started
        .elapsed()
        .saturating_sub(std::time::Duration::from_secs(3));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("interrupted while computing the mixing curve"),
        "{stderr}"
    );
    assert!(late < std::time::Duration::from_secs(5), "{late:?} late");
}

/// The memory the system reports available now (bytes).
fn available_memory() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap();
    let line = meminfo
        .lines()
        .find_map(|line| line.strip_prefix("MemAvailable:"))
        .unwrap();
    line.trim()
        .trim_end_matches("kB")
        .trim()
        .parse::<u64>()
        .unwrap()
        * 1024
}

#[test]
fn a_run_sizes_its_fingerprints_from_what_other_runs_on_the_host_have_not_taken_yet() {
    use std::os::unix::fs::DirBuilderExt;
    use std::os::unix::io::AsRawFd;
    // Regression: shards started together on one host each sized their fingerprints from all
    // of the same free memory. Another live run (played by this test: a reservation file it
    // holds locked, as a run does) has reserved all but 512 MiB of the available memory; a
    // 20M-shuffle run of 52 cards wants 320 MB of fingerprints, more than a quarter of 80% of
    // what is left (about 107 MB), so it samples the decks for the repeated-decks test (it
    // skipped the test before issue #32) and says so.
    let runtime = tempfile::tempdir().unwrap();
    let ledger = runtime.path().join("shuffle-bias");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&ledger)
        .unwrap();
    let entry = ledger.join("run-1.reservation");
    let reserved = available_memory().saturating_sub(512 << 20);
    std::fs::write(&entry, format!("{reserved}\n")).unwrap();
    let held = std::fs::File::open(&entry).unwrap();
    // SAFETY: the descriptor is open for the call.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let args = [
        "run",
        "fisher-yates",
        "-n",
        "52",
        "-t",
        "20M",
        "--seed",
        "1",
        "-q",
        "--format",
        "json",
    ];
    let run = |args: &[&str]| {
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("shuffle-bias"))
            .args(args)
            .env("XDG_RUNTIME_DIR", runtime.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        common::interrupt(child, 1500)
    };
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.contains("note: 1 other run on this host reserved"),
        "{stderr}"
    );
    // Said before the run starts: the decks are sampled (not the warning of a large memory).
    assert!(
        stderr.contains("warning: the repeated-decks test keeps at most"),
        "{stderr}"
    );
    assert!(
        stderr.contains("beyond that it samples the decks by value"),
        "{stderr}"
    );
    assert!(!stderr.contains("held to the end of the run"), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(report["deal_stream"]["repeats"].is_object(), "{report}");
    // The other run ends (its lock goes): its file is removed by the next run, which keeps
    // its fingerprints and reserves them while it runs.
    drop(held);
    let output = run(&args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("note:"), "{stderr}");
    assert!(
        stderr.contains("keeps 16 bytes a shuffle: 320 MB"),
        "{stderr}"
    );
    assert!(!entry.exists(), "the ended run's reservation is removed");
    let left: Vec<_> = std::fs::read_dir(&ledger)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|name| name != "ledger.lock")
        .collect();
    assert!(
        left.is_empty(),
        "a run removes its own reservation: {left:?}"
    );
}

#[test]
fn a_run_refused_for_memory_others_reserved_says_so_and_how_to_wait() {
    use std::os::unix::fs::DirBuilderExt;
    use std::os::unix::io::AsRawFd;
    // Another live run has reserved more than the host has: this one cannot even keep its
    // position tallies. The refusal said "more than the 0.0 GiB this machine can give", as if
    // the machine had no memory; it names the other runs' reservations.
    let runtime = tempfile::tempdir().unwrap();
    let ledger = runtime.path().join("shuffle-bias");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&ledger)
        .unwrap();
    let entry = ledger.join("run-1.reservation");
    std::fs::write(&entry, format!("{}\n", u64::MAX)).unwrap();
    let held = std::fs::File::open(&entry).unwrap();
    // SAFETY: the descriptor is open for the call.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
    let output = common::shuffle_bias()
        .args([
            "run",
            "fisher-yates",
            "-n",
            "52",
            "-t",
            "1000",
            "--seed",
            "1",
        ])
        .env("XDG_RUNTIME_DIR", runtime.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("other runs on this host have reserved and not taken yet"),
        "{stderr}"
    );
    drop(held);
}

#[test]
fn ctrl_c_while_explain_fits_its_models_still_reports_the_whole_tally() {
    // 100,000 naive shuffles of 9 cards are tallied in well under a second here; fitting the
    // models' exact laws on 9 cards then takes about 25 s. Ctrl-C 3 s in lands in the fitting:
    // the tally is whole, so the report is written (with the signatures only) and the exit
    // code says that Ctrl-C was pressed.
    let output = common::interrupted_after(
        &[
            "run",
            "naive",
            "-n",
            "9",
            "-t",
            "100k",
            "--seed",
            "1",
            "-q",
            "--explain",
            "--format",
            "json",
        ],
        3000,
    );
    let report = whole_report_after_the_fitting_stopped(&output);
    assert_eq!(report["bias_detected"], true);
}

/// The JSON report of 100,000 shuffles written after Ctrl-C stopped `--explain`'s fitting,
/// with exit 130.
fn whole_report_after_the_fitting_stopped(output: &std::process::Output) -> serde_json::Value {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("a report on stdout; stderr: {stderr}"));
    assert_eq!(report["trials"], 100_000);
    let diagnosis = report["diagnosis"].to_string();
    assert!(
        diagnosis.contains("Ctrl-C stopped the fitting"),
        "{diagnosis}"
    );
    report
}

#[test]
fn ctrl_c_while_check_explain_fits_its_models_still_exits_130_with_the_whole_report() {
    // As for run: 100,000 naive 9-card decks are read in well under a second, the fitting takes
    // about 25 s, and Ctrl-C 3 s in lands in it.
    let dir = tempfile::tempdir().unwrap();
    let decks = dir.path().join("naive9.txt");
    common::shuffle_bias()
        .args(["run", "naive", "-n", "9", "-t", "100k", "--seed", "1"])
        .arg("--emit-permutations")
        .arg(&decks)
        .args(["-q", "-o", "/dev/null"])
        .assert()
        .code(1);
    let output = common::interrupted_after(
        &[
            "check",
            decks.to_str().unwrap(),
            "-q",
            "--explain",
            "--format",
            "json",
        ],
        3000,
    );
    let report = whole_report_after_the_fitting_stopped(&output);
    assert_eq!(report["interrupted"], false, "the input was read whole");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("interrupted after the input was read"),
        "{stderr}"
    );
}
