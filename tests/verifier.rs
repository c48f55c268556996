//! The verifier on wrong results built by hand: every folder under `tests/verifier/` is one
//! named test.
//!
//! A case is `tests/verifier/<case>/` holding `base.yaml`, `ours.yaml`, `theirs.yaml`, a
//! hand-built `wrong.yaml` (a result some merge could write: git's clean line merge, or a
//! structural merge with the bug the case is named for), `right.yaml` (the right result of
//! the same merge: clean, or conflicted) and `expect.toml`:
//!
//! ```toml
//! description = "the class of wrong merge and how wrong.yaml shows it"
//! policy = "theirs"            # "mark" (default), "theirs" or "ours"
//! rejects = "spec.template"    # a part of the violation the verifier must report
//! conflicted = true            # wrong.yaml is a conflicted result: a side of it must not
//!                               # parse, or must lose data
//! ```
//!
//! The test checks that the verifier rejects `wrong.yaml` naming `rejects` (for a conflicted
//! result: that taking one side of every conflict gives invalid YAML or loses data), and that
//! it accepts `right.yaml` (for a conflicted right result: that both sides parse and hold) —
//! so a verifier that rejects everything fails too.

use std::fs;
use std::path::{Path, PathBuf};

use kmerge::options::Policy;
use kmerge::testing::{sides_hold, violations};
use libtest_mimic::{Arguments, Failed, Trial};

struct Expect {
    policy: Policy,
    rejects: String,
    conflicted: bool,
}

fn parse_expect(text: &str) -> Result<Expect, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("expect.toml: {e}"))?;
    let mut expect = Expect {
        policy: Policy::Mark,
        rejects: String::new(),
        conflicted: false,
    };
    for (key, value) in &table {
        match (key.as_str(), value) {
            ("description", toml::Value::String(_)) => {}
            ("policy", toml::Value::String(p)) => {
                expect.policy = match p.as_str() {
                    "mark" => Policy::Mark,
                    "theirs" => Policy::Theirs,
                    "ours" => Policy::Ours,
                    other => return Err(format!("expect.toml: unknown policy {other:?}")),
                }
            }
            ("rejects", toml::Value::String(r)) => expect.rejects = r.clone(),
            ("conflicted", toml::Value::Boolean(c)) => expect.conflicted = *c,
            _ => return Err(format!("expect.toml: unknown or mistyped key {key:?}")),
        }
    }
    if expect.rejects.is_empty() && !expect.conflicted {
        return Err("expect.toml: `rejects` names what the verifier must report".into());
    }
    Ok(expect)
}

fn read(dir: &Path, name: &str) -> Result<String, String> {
    fs::read_to_string(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()))
}

fn run(dir: &Path) -> Result<(), Failed> {
    let expect = parse_expect(&read(dir, "expect.toml")?)?;
    let [base, ours, theirs, wrong, right] = [
        "base.yaml",
        "ours.yaml",
        "theirs.yaml",
        "wrong.yaml",
        "right.yaml",
    ]
    .map(|f| read(dir, f));
    let (base, ours, theirs, wrong, right) = (base?, ours?, theirs?, wrong?, right?);
    let has_markers = |t: &str| t.lines().any(|l| l.starts_with("<<<<<<< "));
    if expect.conflicted {
        if sides_hold(&base, &ours, &theirs, &wrong).is_ok() {
            return Err(
                "both sides of wrong.yaml parse and hold: the check would let it through".into(),
            );
        }
    } else {
        let found = violations(&base, &ours, &theirs, &wrong, expect.policy)?;
        if !found.iter().any(|v| v.contains(&expect.rejects)) {
            return Err(format!(
                "the verifier did not reject wrong.yaml at {:?}; it found {found:?}",
                expect.rejects
            )
            .into());
        }
    }
    if has_markers(&right) {
        sides_hold(&base, &ours, &theirs, &right).map_err(|e| format!("right.yaml: {e}"))?;
    } else {
        let found = violations(&base, &ours, &theirs, &right, expect.policy)?;
        if !found.is_empty() {
            return Err(format!("the verifier rejects right.yaml: {found:?}").into());
        }
    }
    Ok(())
}

fn cases(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| p.is_dir());
    out.sort();
    out
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/verifier");
    let found = cases(&root);
    let mut trials = vec![Trial::test("cases are present", {
        let n = found.len();
        move || {
            if n == 0 {
                Err("no case under tests/verifier".into())
            } else {
                Ok(())
            }
        }
    })];
    for dir in found {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        trials.push(Trial::test(name, move || run(&dir)));
    }
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
