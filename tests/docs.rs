//! The documents run: every command shown with its output in README.md and the guide in docs/
//! (a ```console block) is run by trycmd and its output compared with the text, byte for byte
//! apart from `[..]` (any text on a line: timings, speeds, thread counts) and `...` (any lines).
//! A changed output fails here until the document is updated:
//! `TRYCMD=overwrite cargo test --release --test docs` rewrites the blocks from the binary,
//! keeping their wildcards, and `git diff` shows what changed.
//!
//! Commands shown without their output are ```sh blocks, not claimed to be pasted. A document
//! whose commands write files has a `NAME.out/` directory beside it: its commands then run in a
//! fresh temporary directory, and the files of `NAME.out/` must be there at the end with that
//! content. `shuffle-bias` is on the `PATH` of the commands, so that `check --exec` can run it.

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

#[test]
fn every_command_shown_with_its_output_prints_that_output() {
    let binary = trycmd::cargo::cargo_bin("shuffle-bias");
    let mut path: Vec<PathBuf> = vec![binary.parent().unwrap().to_path_buf()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(path).unwrap();
    trycmd::TestCases::new()
        .register_bin("shuffle-bias", binary)
        .env("PATH", path.to_string_lossy())
        .case("README.md")
        .case("docs/*.md");
}

/// The text of the fenced block whose opening line is exactly `fence` (e.g. "```text
/// panic-message"), without the fences.
fn block<'a>(document: &'a str, fence: &str) -> &'a str {
    let start = document
        .find(&format!("{fence}\n"))
        .unwrap_or_else(|| panic!("no block opened by {fence}"))
        + fence.len()
        + 1;
    let end = start + document[start..].find("```\n").unwrap();
    &document[start..end]
}

#[test]
fn the_library_guide_shows_the_panic_message_of_a_failing_assert_no_bias_word_for_word() {
    fn naive(deck: &mut [usize], rng: &mut shuffle_bias::ShuffleRng) {
        use shuffle_bias::rand::RngExt;
        let n = deck.len();
        for i in 0..n {
            deck.swap(i, rng.random_range(0..n));
        }
    }
    let panic = std::panic::catch_unwind(|| {
        shuffle_bias::ShuffleTest::new(4)
            .trials(24_000)
            .seed(7)
            .assert_no_bias(naive);
    })
    .expect_err("the naive shuffle is detected");
    let message = panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|text| text.to_string()))
        .unwrap();
    let guide = read("docs/library.md");
    let shown = block(&guide, "```text panic-message");
    assert_eq!(
        shown,
        format!("{message}\n"),
        "docs/library.md shows another panic message: paste this one"
    );
}

#[test]
fn the_filter_that_nudges_poker_hands_is_shown_as_it_is() {
    let script = read("examples/filters/nudge.py");
    assert!(
        read("docs/deal-streams.md").contains(&format!("```python\n{script}```\n")),
        "docs/deal-streams.md does not show examples/filters/nudge.py as it is"
    );
}
