//! The data-driven merge cases: every folder under `tests/cases/` is one named test.
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
//! stderr_lacks = ["not taken"]  # none of these may appear on stderr
//! pending = "why it does not pass yet"   # required under pending/, refused elsewhere
//! ```
//!
//! A conflict case may also hold `resolved-ours.yaml` and `resolved-theirs.yaml`: the output
//! with every conflict taken from ours' side (base sections dropped), and from theirs', must
//! be that file as data (a Helm template, which does not load as YAML, as text). A person
//! resolves a conflict by taking a side, and must lose nothing doing so.
//!
//! The real binary runs `kmerge merge3 --base base.yaml --ours ours.yaml --theirs theirs.yaml
//! -o <tmp> <args>` inside the case folder, and the test named `<group>/<case>` checks its exit
//! code, stderr and output. Adding a case needs no code, and one case runs by name:
//! `cargo test --release --test cases -- lists-plain/some-case` (a filter matches a part of the
//! name; `--exact` the whole of it).
//!
//! Known gaps are visible, with a reason: `tests/cases/pending/<group>/<case>/` holds a case
//! that does not pass yet, its `expect.toml` says why in `pending`, and `expected.yaml` holds
//! the right result. Its test, `pending/<group>/<case>`, passes while the case still fails (it
//! prints the reason and the mismatch) and fails once the case passes, so that the fixed case
//! moves out of `pending/` and stays guarded. A case that cannot run at all (a missing file, a
//! bad `expect.toml`) fails wherever it lives.

mod common;

use std::fs;
use std::path::Path;
use std::time::Duration;

use common::case_files::{
    check_run, read_case_file, refuses_each, string, strings, subfolders, CaseKeys,
};
use common::{run_guarded, unified_diff, yaml_documents};
use libtest_mimic::{Arguments, Failed, Trial};

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
    /// `exit`, `args` and `stderr_contains`, as every case file has them.
    keys: CaseKeys,
    compare: Compare,
    stderr_lacks: Vec<String>,
    /// Why a pending case does not pass yet.
    pending: Option<String>,
}

fn parse_expect(text: &str) -> Result<Expect, String> {
    const FILE: &str = "expect.toml";
    let (mut compare, mut stderr_lacks, mut pending) = (Compare::Bytes, Vec::new(), None);
    let keys = read_case_file(FILE, text, |key, value| {
        match key {
            "compare" => {
                compare = match value.as_str() {
                    Some("bytes") => Compare::Bytes,
                    Some("data") => Compare::Data,
                    _ => return Err("expect.toml: compare must be \"bytes\" or \"data\"".into()),
                }
            }
            "stderr_lacks" => stderr_lacks = strings(FILE, key, value)?,
            "pending" => {
                let why = string(FILE, key, value)?;
                if why.trim().is_empty() {
                    return Err("expect.toml: pending must say why the case does not pass".into());
                }
                pending = Some(why);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(Expect {
        keys,
        compare,
        stderr_lacks,
        pending,
    })
}

/// The strictness of `expect.toml` itself.
fn expect_toml_is_strict() -> Result<(), Failed> {
    let e = parse_expect(
        "description = \"x\"\nexit = 1\ncompare = \"data\"\nargs = [\"--diff3\"]\n\
         stderr_contains = [\"a\"]\npending = \"b\"\n",
    )?;
    let ok = e.keys.exit == 1
        && matches!(e.compare, Compare::Data)
        && e.keys.args == ["--diff3"]
        && e.keys.stderr_contains == ["a"]
        && e.pending.as_deref() == Some("b");
    if !ok {
        return Err(format!("parsed wrongly: {e:?}").into());
    }
    Ok(refuses_each(
        parse_expect,
        &[
            "description = \"x\"\ncompare = \"text\"\n",
            "description = \"x\"\npending = \"\"\n",
            "description = \"x\"\npending = true\n",
        ],
    )?)
}

/// A case that ran: `Err` is the mismatch, why its output is not the expected one.
type Verdict = Result<(), String>;

/// Reads a case and runs it. The outer `Err` means the case itself is broken (files, config),
/// the inner one that kmerge's answer is not the expected one.
fn run_case(dir: &Path, pending: bool) -> Result<(Expect, Verdict), String> {
    let expect_text = fs::read_to_string(dir.join("expect.toml"))
        .map_err(|e| format!("reading expect.toml: {e}"))?;
    let expect = parse_expect(&expect_text)?;
    match (pending, &expect.pending) {
        (true, None) => {
            return Err(
                "a pending case needs `pending = \"why it does not pass yet\"` \
                        in its expect.toml"
                    .into(),
            )
        }
        (false, Some(_)) => {
            return Err("`pending` belongs to cases under tests/cases/pending/ only".into())
        }
        _ => {}
    }
    for name in ["base.yaml", "ours.yaml", "theirs.yaml"] {
        if !dir.join(name).is_file() {
            return Err(format!("{name} is missing"));
        }
    }
    let expected_path = dir.join("expected.yaml");
    // Only an error case may leave the output unspecified.
    if expect.keys.exit != 2 && !expected_path.is_file() {
        return Err("expected.yaml is missing".into());
    }
    // A conflict does not load as YAML: compared as data it could never match, and a pending
    // case holding one would "still fail" forever, however kmerge came to merge it.
    if matches!(expect.compare, Compare::Data)
        && fs::read_to_string(&expected_path)
            .is_ok_and(|text| text.lines().any(|l| l.starts_with("<<<<<<<")))
    {
        return Err("expected.yaml holds conflict markers: compare it as \"bytes\"".into());
    }
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out_path = scratch.path().join("out.yaml");
    // Isolated: the developer's git config (merge.conflictStyle) stays out of the result.
    let mut cmd = common::Merge3::new()
        .output(&out_path)
        .args(&expect.keys.args)
        .command(dir, scratch.path());
    let run = run_guarded(&mut cmd, LIMIT)?;
    let verdict = check(&expect, &run, &expected_path, &out_path);
    Ok((expect, verdict))
}

/// Compares one run with what `expect.toml` and `expected.yaml` ask for.
fn check(
    expect: &Expect,
    run: &common::Finished,
    expected_path: &Path,
    out_path: &Path,
) -> Verdict {
    if run.timed_out {
        return Err(format!("still running after {LIMIT:?}"));
    }
    check_run(run, &expect.keys)?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    for needle in &expect.stderr_lacks {
        if stderr.contains(needle.as_str()) {
            return Err(format!("stderr holds {needle:?}; stderr:\n{stderr}"));
        }
    }
    if !expected_path.is_file() {
        return Ok(());
    }
    let expected = fs::read(expected_path).map_err(|e| format!("reading expected.yaml: {e}"))?;
    let actual = fs::read(out_path).map_err(|e| format!("no output written: {e}"))?;
    let dir = expected_path.parent().unwrap_or(Path::new("."));
    for (i, name) in ["resolved-ours.yaml", "resolved-theirs.yaml"]
        .iter()
        .enumerate()
    {
        let Ok(want) = fs::read(dir.join(name)) else {
            continue;
        };
        let side = sides(&String::from_utf8_lossy(&actual))[i].clone();
        // A Helm template does not load as YAML: its resolution is compared as text.
        let same = match yaml_documents(&want) {
            Ok(want) => {
                let got = yaml_documents(side.as_bytes())
                    .map_err(|e| format!("the output resolved as {name} does not parse: {e}"))?;
                want == got
            }
            Err(_) if String::from_utf8_lossy(&want).contains("{{") => want == side.as_bytes(),
            Err(e) => return Err(format!("{name}: {e}")),
        };
        if !same {
            return Err(format!(
                "the output with every conflict taken from one side differs from {name}:\n{}",
                unified_diff(
                    &fs::read(dir.join(name)).unwrap_or_default(),
                    side.as_bytes(),
                    name
                )
            ));
        }
    }
    let diff = || unified_diff(&expected, &actual, "expected.yaml");
    match expect.compare {
        Compare::Bytes if actual != expected => {
            Err(format!("output differs from expected.yaml:\n{}", diff()))
        }
        Compare::Bytes => Ok(()),
        Compare::Data => {
            let want = yaml_documents(&expected).map_err(|e| format!("expected.yaml: {e}"))?;
            let got = yaml_documents(&actual)
                .map_err(|e| format!("output does not parse: {e}\n{}", diff()))?;
            if want == got {
                Ok(())
            } else {
                Err(format!(
                    "output differs from expected.yaml as data:\n{}",
                    diff()
                ))
            }
        }
    }
}

/// The texts a conflicted output gives with every conflict taken from ours' side, and from
/// theirs' (git's default marker size, base sections dropped): written here apart from
/// kmerge's own reading of markers.
fn sides(text: &str) -> [String; 2] {
    let (mut ours, mut theirs) = (String::new(), String::new());
    // 0 outside a conflict, 1 in ours' part, 2 in base's, 3 in theirs'.
    let mut part = 0;
    for line in text.split_inclusive('\n') {
        let marker = |c: &str| line.starts_with(&c.repeat(7)) && !line[7..].starts_with(c);
        match part {
            0 if marker("<") => part = 1,
            1 if marker("|") => part = 2,
            1 | 2 if marker("=") => part = 3,
            3 if marker(">") => part = 0,
            0 => {
                ours.push_str(line);
                theirs.push_str(line);
            }
            1 => ours.push_str(line),
            3 => theirs.push_str(line),
            _ => {}
        }
    }
    [ours, theirs]
}

/// An active case: it must pass.
fn active(dir: &Path) -> Result<(), Failed> {
    let (_, verdict) = run_case(dir, false)?;
    Ok(verdict?)
}

/// A pending case: it must still fail, and says how.
fn pending(dir: &Path, name: &str) -> Result<(), Failed> {
    let (expect, verdict) = run_case(dir, true)?;
    let why = expect.pending.unwrap_or_default();
    match verdict {
        Ok(()) => Err(format!(
            "passes now: move it out of pending/ (to tests/cases/{}) so it stays guarded, and \
             drop its `pending` key (it was: {why})",
            name.trim_start_matches("pending/")
        )
        .into()),
        Err(mismatch) => {
            // One write, so parallel trials do not interleave their lines.
            eprintln!("{name}: pending: {why}\n{mismatch}");
            Ok(())
        }
    }
}

/// One trial per case folder `<root>/<group>/<case>`, named `<prefix><group>/<case>`. A file
/// directly in a group folder (a case written one level too high) is a failing trial rather
/// than a case that silently never runs.
fn trials(root: &Path, prefix: &'static str, skip: Option<&str>) -> Vec<Trial> {
    let mut out = Vec::new();
    for group in subfolders(root) {
        let group_name = group
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if skip == Some(group_name.as_str()) {
            continue;
        }
        let stray: Vec<String> = fs::read_dir(&group)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        if !stray.is_empty() {
            let name = format!("{prefix}{group_name}");
            out.push(Trial::test(name, move || {
                Err(format!(
                    "files {stray:?} stand in a group folder: a case is a folder \
                     <group>/<case>/ of its own"
                )
                .into())
            }));
        }
        for case in subfolders(&group) {
            let case_name = case
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let name = format!("{prefix}{group_name}/{case_name}");
            out.push(if prefix.is_empty() {
                Trial::test(name, move || active(&case))
            } else {
                let label = name.clone();
                Trial::test(name, move || pending(&case, &label))
            });
        }
    }
    out
}

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut all = trials(&root, "", Some("pending"));
    assert!(!all.is_empty(), "no cases found under {}", root.display());
    all.extend(trials(&root.join("pending"), "pending/", None));
    all.push(Trial::test("expect_toml_is_strict", expect_toml_is_strict));
    libtest_mimic::run(&args, all).exit();
}
