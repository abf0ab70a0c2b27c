//! The house's plan, checked: no module imports a module that imports it back (directly or
//! through others), and the leaves stay leaves.
//!
//! A module is a file of `src/` (a `mod.rs` is its folder's module); it imports every module
//! its code names with a `crate::` path, tests and comments excepted. A module naming its own
//! ancestor or descendant is not counted (a folder and its files are one unit of the plan).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`engine::simulate`) → the source text that counts (no tests, no comments).
fn modules() -> BTreeMap<String, String> {
    let mut modules = BTreeMap::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let relative = path
                .strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
                .unwrap()
                .with_extension("");
            let mut parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let name = match parts.as_slice() {
                [only] if only == "lib" || only == "main" => String::new(),
                _ => parts.join("::"),
            };
            if test_only(&path) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let code: Vec<&str> = code
                .lines()
                .filter(|line| !line.trim_start().starts_with("//"))
                .collect();
            modules.insert(name, code.join("\n"));
        }
    }
    modules
}

/// Whether the file at `path` is a module of tests: its parent declares it after a
/// `#[cfg(test)]` (a folder's `tests.rs`, say), so none of it counts.
fn test_only(path: &Path) -> bool {
    let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
        return false;
    };
    let folder = path.parent().unwrap();
    let parents = [
        folder.join("mod.rs"),
        folder.with_extension("rs"),
        folder.join("lib.rs"),
    ];
    parents
        .iter()
        .filter(|parent| parent.as_path() != path)
        .filter_map(|parent| std::fs::read_to_string(parent).ok())
        .any(|text| {
            text.split("#[cfg(test)]").skip(1).any(|after| {
                // The declaration follows the attribute, past other attributes and comments.
                after
                    .lines()
                    .map(str::trim)
                    .find(|line| {
                        !line.is_empty() && !line.starts_with("#[") && !line.starts_with("//")
                    })
                    .is_some_and(|line| line == format!("mod {stem};"))
            })
        })
}

/// Every `crate::a::b::…` path in `code`, as its segments; a group `crate::a::{b::c, d}`
/// gives `a::b::c` and `a::d`.
fn crate_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for (start, _) in code.match_indices("crate::") {
        expand(&code[start + "crate::".len()..], Vec::new(), &mut paths);
    }
    paths
}

/// Read the path at the start of `text` after `prefix`, pushing each full path to `paths`;
/// returns the length of `text` consumed.
fn expand(text: &str, prefix: Vec<String>, paths: &mut Vec<Vec<String>>) -> usize {
    let mut segments = prefix;
    let mut at = 0;
    loop {
        let rest = &text[at..];
        if let Some(group) = rest.strip_prefix('{') {
            // Items separated by commas up to the matching brace.
            let mut used = 1;
            let mut inner = group;
            loop {
                let skipped = inner.len() - inner.trim_start().len();
                inner = &inner[skipped..];
                used += skipped;
                if let Some(after) = inner.strip_prefix('}') {
                    return at + used + (inner.len() - after.len());
                }
                if let Some(after) = inner.strip_prefix(',') {
                    used += 1;
                    inner = after;
                    continue;
                }
                let consumed = expand(inner, segments.clone(), paths);
                if consumed == 0 {
                    // Not a path (a glob `*` or `self`): skip one character.
                    used += inner.chars().next().map_or(0, char::len_utf8);
                    inner = &inner[inner.chars().next().map_or(0, char::len_utf8)..];
                    if inner.is_empty() {
                        return at + used;
                    }
                } else {
                    used += consumed;
                    inner = &inner[consumed..];
                }
            }
        }
        let end = rest
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        segments.push(rest[..end].to_string());
        at += end;
        match text[at..].strip_prefix("::") {
            Some(_) => at += 2,
            None => break,
        }
    }
    if !segments.is_empty() {
        paths.push(segments);
    }
    at
}

/// Whether `module` is `area` or inside it.
fn within(module: &str, area: &str) -> bool {
    module == area || module.starts_with(&format!("{area}::"))
}

fn related(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
}

/// Module → the modules it imports.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = modules();
    let mut graph = BTreeMap::new();
    for (name, code) in &modules {
        let mut imports = BTreeSet::new();
        // `super::x` in module `a::b` is `a::x` (in a folder's mod.rs too: its module is `a`,
        // whose parent is the crate).
        let parent: Vec<String> = name.rsplit_once("::").map_or(Vec::new(), |(parent, _)| {
            parent.split("::").map(String::from).collect()
        });
        let mut paths = crate_paths(code);
        for (start, _) in code.match_indices("super::") {
            let before = code[..start].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            expand(&code[start + "super::".len()..], parent.clone(), &mut paths);
        }
        for path in paths {
            // The longest prefix that is a module is the module imported.
            if let Some(target) = (1..=path.len())
                .rev()
                .map(|k| path[..k].join("::"))
                .find(|candidate| modules.contains_key(candidate))
                && !related(name, &target)
            {
                imports.insert(target);
            }
        }
        graph.insert(name.clone(), imports);
    }
    graph
}

/// Whether `to` can be reached from `from`.
fn reaches(graph: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(module) = stack.pop() {
        for next in graph.get(&module).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    let graph = import_graph();
    assert!(graph.len() > 20, "the source tree was found: {graph:?}");
    let mut cycles = Vec::new();
    for (module, imports) in &graph {
        for imported in imports {
            if reaches(&graph, imported, module) {
                cycles.push(format!("{module} → {imported} → … → {module}"));
            }
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_statistics_and_the_text_helpers_are_leaves() {
    let graph = import_graph();
    for leaf in ["stats", "report::text"] {
        let imports: Vec<&String> = graph
            .iter()
            .filter(|(module, _)| within(module, leaf))
            .flat_map(|(_, imports)| imports)
            .filter(|imported| !within(imported, leaf))
            .collect();
        assert!(imports.is_empty(), "{leaf} imports {imports:?}");
    }
}

#[test]
fn the_engine_and_the_theory_never_see_the_command_line_or_the_output() {
    let graph = import_graph();
    for layer in ["engine", "theory", "stats", "input"] {
        for (module, imports) in graph.iter().filter(|(m, _)| within(m, layer)) {
            for imported in imports {
                assert!(
                    !["cli", "config", "commands", "output", "report"]
                        .iter()
                        .any(|upper| within(imported, upper)),
                    "{module} imports {imported}"
                );
            }
        }
    }
}

#[test]
fn the_analysis_of_a_tally_imports_only_the_statistics_the_theory_and_the_engine() {
    // analysis/ is what report/ calls to test a tally; it never sees a report or an exporter.
    let graph = import_graph();
    assert!(graph.contains_key("analysis"), "analysis/ was found");
    for (module, imports) in graph.iter().filter(|(m, _)| within(m, "analysis")) {
        for imported in imports {
            assert!(
                ["analysis", "stats", "theory", "engine"]
                    .iter()
                    .any(|lower| within(imported, lower)),
                "{module} imports {imported}"
            );
        }
    }
}

#[test]
fn nothing_outside_the_commands_and_main_imports_the_commands() {
    let graph = import_graph();
    for (module, imports) in graph
        .iter()
        .filter(|(m, _)| !within(m, "commands") && !m.is_empty())
    {
        for imported in imports {
            assert!(!within(imported, "commands"), "{module} imports {imported}");
        }
    }
}

#[test]
fn judging_and_the_library_never_see_a_command_the_command_line_or_the_terminal() {
    // One judging path below the commands: `judge/` builds reports and never prints (the
    // progress on the terminal is the commands' job); the library's front door (`library`)
    // calls it, and may render a report into memory with an exporter, but runs no command.
    let graph = import_graph();
    assert!(graph.contains_key("judge"), "judge/ was found");
    for (area, above) in [
        ("judge", &["commands", "cli", "output"][..]),
        ("library", &["commands", "cli"][..]),
    ] {
        for (module, imports) in graph.iter().filter(|(m, _)| within(m, area)) {
            for imported in imports {
                assert!(
                    !above.iter().any(|upper| within(imported, upper)),
                    "{module} imports {imported}"
                );
            }
        }
    }
}

#[test]
fn data_flows_down_the_engine_never_uses_the_theory_and_a_report_never_an_exporter() {
    // The exact engine drives the engine's algorithms, so the engine sits below the theory;
    // the report models are what the exporters print, so they sit below `output/`.
    let graph = import_graph();
    for (lower, upper) in [
        ("engine", "theory"),
        ("report", "output"),
        ("report", "judge"),
    ] {
        for (module, imports) in graph.iter().filter(|(m, _)| within(m, lower)) {
            for imported in imports {
                assert!(!within(imported, upper), "{module} imports {imported}");
            }
        }
    }
}

#[test]
fn the_path_finder_sees_through_groups_and_nesting() {
    let paths = crate_paths(
        "use crate::engine::{simulate::Tally, tally::{self, TallyMode}};\nx = crate::stats::pvalue::PValue::ONE;",
    );
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert!(
        joined.contains(&"engine::simulate".to_string()),
        "{joined:?}"
    );
    assert!(joined.contains(&"engine::tally".to_string()), "{joined:?}");
    assert!(joined.contains(&"stats::pvalue".to_string()), "{joined:?}");
}

/// The source files under `src/`, each with its number of lines.
fn source_lengths() -> Vec<(String, usize)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut lengths = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let lines = std::fs::read_to_string(&path).unwrap().lines().count();
                let name = path.strip_prefix(&root).unwrap().display().to_string();
                lengths.push((name, lines));
            }
        }
    }
    lengths
}

#[test]
fn no_source_file_is_longer_than_1500_lines() {
    // Rooms of a size a person can hold (issue #27): a file past this is split by what it does.
    const MAX_LINES: usize = 1_500;
    let lengths = source_lengths();
    assert!(lengths.len() > 20, "the source tree was found: {lengths:?}");
    let long: Vec<String> = lengths
        .iter()
        .filter(|(_, lines)| *lines > MAX_LINES)
        .map(|(name, lines)| format!("src/{name} has {lines} lines (at most {MAX_LINES})"))
        .collect();
    assert!(long.is_empty(), "files to split:\n{}", long.join("\n"));
}

#[test]
fn a_module_of_tests_declared_after_cfg_test_is_not_counted_as_code() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let tests: Vec<_> = std::fs::read_dir(src.join("engine/deal_stream"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.file_stem()
                .is_some_and(|s| s.to_string_lossy().ends_with("tests"))
        })
        .collect();
    assert!(!tests.is_empty(), "engine/deal_stream holds its tests");
    assert!(tests.iter().all(|path| test_only(path)), "{tests:?}");
    assert!(!test_only(&src.join("engine/deal_stream/mod.rs")));
    assert!(!test_only(&src.join("engine/simulate.rs")));
    let graph = import_graph();
    assert!(!graph.contains_key("engine::deal_stream::tests"));
    assert!(graph.contains_key("engine::deal_stream"));
}
