//! The kyaml conformance vectors in `tests/conformance/<suite>/<case>/`, one named test each
//! (`cargo test --release --test conformance -- merge3-map/09` runs one), run through the
//! binary as `../shared/conformance/check.py` runs them: `merge3 --on-conflict theirs` for
//! merge3 vectors, `merge2` (with `--prepend` where the case says so) for merge2 ones. The
//! output is compared with `expected.yaml` as data with YAML 1.1 typing, as the checker's
//! PyYAML does (see `yaml11`), so no Python is needed; a case marked `expect_error` passes
//! when kmerge exits non-zero.
//!
//! `tests/conformance-deviations.md` lists the cases expected to fail, one `- suite/case
//! reason` line each: such a case passes while it fails, and fails once it passes (so the
//! list only shrinks), and a listed name that matches no case fails too.

mod common;
mod yaml11;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use libtest_mimic::{Arguments, Failed, Trial};

const DEVIATIONS: &str = "tests/conformance-deviations.md";

/// check.py's own per-case timeout: a hang guard, not a timing.
const LIMIT: Duration = Duration::from_secs(60);

fn main() {
    let args = Arguments::from_args();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.join("tests/conformance");
    let cases = cases(&root);
    let suites: Vec<String> = cases.iter().map(|c| c.suite.clone()).collect();
    let listed = expected_failures(&manifest.join(DEVIATIONS), &suites);
    let names: Vec<String> = cases.iter().map(|c| c.name()).collect();
    let names_count = names.len();
    let mut trials: Vec<Trial> = cases
        .into_iter()
        .map(|case| {
            let reason = listed.get(&case.name()).cloned();
            Trial::test(case.name(), move || check(&case, reason.as_deref()))
        })
        .collect();
    for (name, check) in yaml11::checks::ALL {
        trials.push(Trial::test(name, move || {
            check();
            Ok(())
        }));
    }
    trials.push(Trial::test(
        "deviations list only existing cases",
        move || {
            let stale: Vec<&String> = listed.keys().filter(|n| !names.contains(n)).collect();
            if stale.is_empty() {
                Ok(())
            } else {
                Err(format!("{DEVIATIONS} lists cases that do not exist: {stale:?}").into())
            }
        },
    ));
    trials.push(Trial::test("vectors are present", {
        let count = names_count;
        move || {
            if count >= 100 {
                Ok(())
            } else {
                Err(format!("only {count} vectors under {}", root.display()).into())
            }
        }
    }));
    libtest_mimic::run(&args, trials).exit();
}

struct Case {
    suite: String,
    case: String,
    dir: PathBuf,
}

impl Case {
    fn name(&self) -> String {
        format!("{}/{}", self.suite, self.case)
    }
}

/// Every folder with a `case.yaml`, sorted.
fn cases(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    for suite in sorted_dirs(root) {
        for dir in sorted_dirs(&suite) {
            if dir.join("case.yaml").is_file() {
                cases.push(Case {
                    suite: file_name(&suite),
                    case: file_name(&dir),
                    dir,
                });
            }
        }
    }
    cases
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// check.py's reading of `--expect-fail`: a line whose first word (after a `-`/`*` bullet,
/// backticks allowed) is `suite/case` for a known suite; the rest of the line is the reason.
fn expected_failures(path: &Path, suites: &[String]) -> BTreeMap<String, String> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut listed = BTreeMap::new();
    for line in text.lines() {
        let mut words: Vec<&str> = line.trim().splitn(2, char::is_whitespace).collect();
        if matches!(words.first(), Some(&"-") | Some(&"*")) {
            words = words.get(1).map_or(vec![], |rest| {
                rest.trim().splitn(2, char::is_whitespace).collect()
            });
        }
        let Some(first) = words.first() else { continue };
        let name = first
            .trim_matches('`')
            .trim_end_matches(':')
            .trim_matches('`');
        let suite = name.split('/').next().unwrap_or_default();
        if suites.iter().any(|s| s == suite) && name.contains('/') {
            let reason = words.get(1).map_or("", |r| r.trim());
            listed.insert(name.to_string(), reason.to_string());
        }
    }
    listed
}

/// Runs one vector; with `reason`, the vector is expected to fail.
fn check(case: &Case, reason: Option<&str>) -> Result<(), Failed> {
    let outcome = run(case);
    match (reason, outcome) {
        (None, outcome) => outcome.map_err(Failed::from),
        (Some(_), Ok(())) => {
            Err(format!("passes now: remove it from {DEVIATIONS} so it stays guarded").into())
        }
        (Some(reason), Err(detail)) => {
            let first = detail.lines().next().unwrap_or_default();
            common::note(&format!(
                "expected failure {}: {reason} ({first})",
                case.name()
            ));
            Ok(())
        }
    }
}

fn run(case: &Case) -> Result<(), String> {
    let meta_text =
        std::fs::read_to_string(case.dir.join("case.yaml")).map_err(|e| e.to_string())?;
    let meta: yaml_serde::Value = yaml_serde::from_str(&meta_text).map_err(|e| e.to_string())?;
    let op = meta.get("op").and_then(|v| v.as_str()).unwrap_or("merge3");
    let expect_error = meta
        .get("expect_error")
        .and_then(|v| v.as_bool())
        .unwrap_or(false);
    let prepend = meta
        .get("options")
        .and_then(|o| o.get("list_increase_direction"))
        .and_then(|d| d.as_str())
        == Some("prepend");

    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = scratch.path().join("out.yaml");
    let file = |name: &str| case.dir.join(format!("{name}.yaml"));
    let mut cmd = Command::new(common::kmerge_bin());
    match op {
        "merge3" => {
            cmd.args(
                common::Merge3::files(file("original"), file("dest"), file("updated"))
                    .policy("theirs")
                    .arguments(),
            );
        }
        "merge2" => {
            cmd.arg("merge2")
                .arg("--src")
                .arg(file("src"))
                .arg("--dest")
                .arg(file("dest"));
            if prepend {
                cmd.arg("--prepend");
            }
        }
        other => return Err(format!("unknown op {other:?} in case.yaml")),
    }
    cmd.arg("-o").arg(&out);
    let shown = format!(
        "kmerge {}",
        cmd.get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    );
    common::isolate(&mut cmd, scratch.path());
    let done = common::run_guarded(&mut cmd, LIMIT)?;
    let stderr = String::from_utf8_lossy(&done.stderr);
    if done.timed_out {
        return Err(format!("killed after {LIMIT:?}: {shown}"));
    }
    if expect_error {
        return match done.code {
            Some(0) => Err(format!(
                "expected an error (non-zero exit), exit 0: {shown}"
            )),
            _ => Ok(()),
        };
    }
    if done.code != Some(0) {
        return Err(format!("exit {:?}: {shown}\n{stderr}", done.code));
    }
    let got_text = std::fs::read_to_string(&out).map_err(|e| format!("no output written: {e}"))?;
    let expected_text = std::fs::read_to_string(file("expected")).map_err(|e| e.to_string())?;
    let got = yaml11::load_documents(&got_text)
        .map_err(|e| format!("output is not valid YAML: {e}\n--- output ---\n{got_text}"))?;
    let expected = yaml11::load_documents(&expected_text)
        .map_err(|e| format!("expected.yaml does not load: {e}"))?;
    if got == expected {
        return Ok(());
    }
    let render = |docs: &[yaml11::Value]| -> String {
        docs.iter()
            .map(|d| format!("---\n{}", d.render()))
            .collect::<String>()
    };
    Err(format!(
        "differs from expected.yaml as data:\n{}",
        common::unified_diff(
            render(&expected).as_bytes(),
            render(&got).as_bytes(),
            "expected (data, keys sorted)"
        )
    ))
}
