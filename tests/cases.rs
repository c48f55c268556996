//! The data-driven merge cases: one runner for every folder under `tests/cases/`.
//!
//! A case is `tests/cases/<group>/<case>/` holding `base.yaml`, `ours.yaml`, `theirs.yaml`,
//! `expected.yaml` and `expect.toml`:
//!
//! ```toml
//! description = "what the case shows"
//! exit = 1                      # default 0
//! compare = "data"              # "bytes" (default) or "data": documents compared as YAML values
//! args = ["--on-conflict", "theirs"]
//! stderr_contains = ["line merge used"]
//! ```
//!
//! The real binary runs `kmerge merge3 --base base.yaml --ours ours.yaml --theirs theirs.yaml
//! -o <tmp> <args>` inside the case folder. Cases under `tests/cases/pending/<group>/<case>/`
//! are known gaps: they run, a failure is only reported, and one that passes fails the run
//! so it gets moved out and stays guarded. All failures are collected before the test fails.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{kmerge_bin, run_guarded, unified_diff, yaml_documents};

/// A hang guard: every case takes milliseconds.
const LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug)]
enum Compare {
    Bytes,
    Data,
}

/// The parsed `expect.toml`.
#[derive(Debug)]
struct Expect {
    exit: i32,
    compare: Compare,
    args: Vec<String>,
    stderr_contains: Vec<String>,
}

fn parse_expect(text: &str) -> Result<Expect, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("expect.toml: {e}"))?;
    let mut expect = Expect {
        exit: 0,
        compare: Compare::Bytes,
        args: Vec::new(),
        stderr_contains: Vec::new(),
    };
    let strings = |key: &str, v: &toml::Value| -> Result<Vec<String>, String> {
        v.as_array()
            .ok_or_else(|| format!("expect.toml: {key} must be an array of strings"))?
            .iter()
            .map(|s| {
                s.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("expect.toml: {key} must be an array of strings"))
            })
            .collect()
    };
    for (key, value) in &table {
        match key.as_str() {
            "description" => {
                value
                    .as_str()
                    .ok_or("expect.toml: description must be a string")?;
            }
            "exit" => {
                let n = value
                    .as_integer()
                    .ok_or("expect.toml: exit must be an integer")?;
                expect.exit = i32::try_from(n).map_err(|_| "expect.toml: exit out of range")?;
            }
            "compare" => {
                expect.compare = match value.as_str() {
                    Some("bytes") => Compare::Bytes,
                    Some("data") => Compare::Data,
                    _ => return Err("expect.toml: compare must be \"bytes\" or \"data\"".into()),
                }
            }
            "args" => expect.args = strings(key, value)?,
            "stderr_contains" => expect.stderr_contains = strings(key, value)?,
            // A misspelt key would silently weaken a case.
            other => return Err(format!("expect.toml: unknown key {other:?}")),
        }
    }
    if !table.contains_key("description") {
        return Err("expect.toml: description is missing".into());
    }
    Ok(expect)
}

/// Runs one case; `Err` says why it does not pass.
fn run_case(dir: &Path) -> Result<(), String> {
    let expect_text = fs::read_to_string(dir.join("expect.toml"))
        .map_err(|e| format!("reading expect.toml: {e}"))?;
    let expect = parse_expect(&expect_text)?;
    for name in ["base.yaml", "ours.yaml", "theirs.yaml"] {
        if !dir.join(name).is_file() {
            return Err(format!("{name} is missing"));
        }
    }
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out_path = scratch.path().join("out.yaml");
    let mut cmd = std::process::Command::new(kmerge_bin());
    cmd.current_dir(dir)
        .args([
            "merge3",
            "--base",
            "base.yaml",
            "--ours",
            "ours.yaml",
            "--theirs",
            "theirs.yaml",
            "-o",
        ])
        .arg(&out_path)
        .args(&expect.args);
    // Keep the developer's git config (merge.conflictStyle) out of the result.
    common::isolate(&mut cmd, scratch.path());
    let run = run_guarded(&mut cmd, LIMIT)?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    if run.timed_out {
        return Err(format!("still running after {LIMIT:?}"));
    }
    if run.code != Some(expect.exit) {
        return Err(format!(
            "exit {:?}, expected {}; stderr:\n{stderr}",
            run.code, expect.exit
        ));
    }
    for needle in &expect.stderr_contains {
        if !stderr.contains(needle.as_str()) {
            return Err(format!("stderr lacks {needle:?}; stderr:\n{stderr}"));
        }
    }
    let expected_path = dir.join("expected.yaml");
    if !expected_path.is_file() {
        // Only an error case may leave the output unspecified.
        return if expect.exit == 2 {
            Ok(())
        } else {
            Err("expected.yaml is missing".into())
        };
    }
    let expected = fs::read(&expected_path).map_err(|e| format!("reading expected.yaml: {e}"))?;
    let actual = fs::read(&out_path).map_err(|e| format!("no output written: {e}"))?;
    match expect.compare {
        Compare::Bytes if actual != expected => Err(format!(
            "output differs from expected.yaml:\n{}",
            unified_diff(&expected, &actual, "expected.yaml")
        )),
        Compare::Data => {
            let want = yaml_documents(&expected).map_err(|e| format!("expected.yaml: {e}"))?;
            let got = yaml_documents(&actual).map_err(|e| {
                format!(
                    "output does not parse: {e}\n{}",
                    unified_diff(&expected, &actual, "expected.yaml")
                )
            })?;
            if want == got {
                Ok(())
            } else {
                Err(format!(
                    "output differs from expected.yaml as data:\n{}",
                    unified_diff(&expected, &actual, "expected.yaml")
                ))
            }
        }
        Compare::Bytes => Ok(()),
    }
}

/// The case folders two levels below `root` (`<group>/<case>`), sorted, skipping `skip`.
fn case_dirs(root: &Path, skip: Option<&str>) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(groups) = fs::read_dir(root) else {
        return found;
    };
    for group in groups.filter_map(|e| e.ok()).map(|e| e.path()) {
        if !group.is_dir() || skip.is_some_and(|s| group.file_name() == Some(s.as_ref())) {
            continue;
        }
        if let Ok(cases) = fs::read_dir(&group) {
            found.extend(
                cases
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.is_dir()),
            );
        }
    }
    found.sort();
    found
}

/// Prints past the test harness's capture (it only captures the print macros), so the counts
/// show in every `cargo test` run, not just failing ones.
fn note(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn name(root: &Path, dir: &Path) -> String {
    dir.strip_prefix(root)
        .unwrap_or(dir)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn cases() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let pending_root = root.join("pending");
    let mut failures = Vec::new();
    let (mut passed, mut pending) = (0, 0);

    let active = case_dirs(&root, Some("pending"));
    assert!(
        !active.is_empty(),
        "no cases found under {}",
        root.display()
    );
    for dir in &active {
        match run_case(dir) {
            Ok(()) => passed += 1,
            Err(why) => failures.push(format!("FAIL {}: {why}", name(&root, dir))),
        }
    }
    for dir in case_dirs(&pending_root, None) {
        let case = name(&pending_root, &dir);
        match run_case(&dir) {
            Ok(()) => failures.push(format!(
                "pending case {case} now passes: move it to tests/cases/{case}"
            )),
            Err(why) => {
                pending += 1;
                let first = why.lines().next().unwrap_or_default();
                note(&format!("pending: still fails: {case}: {first}"));
            }
        }
    }
    note(&format!("cases: {passed} passed, {pending} pending"));
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn expect_toml_is_strict() {
    let e = parse_expect("description = \"x\"\nexit = 1\ncompare = \"data\"\nargs = [\"--diff3\"]\nstderr_contains = [\"a\"]\n")
        .unwrap();
    assert_eq!(e.exit, 1);
    assert!(matches!(e.compare, Compare::Data));
    assert_eq!(e.args, ["--diff3"]);
    assert_eq!(e.stderr_contains, ["a"]);
    assert!(parse_expect("description = \"x\"\nexpect = 1\n").is_err());
    assert!(parse_expect("exit = 1\n").is_err());
    assert!(parse_expect("description = \"x\"\ncompare = \"text\"\n").is_err());
}
