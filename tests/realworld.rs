//! Real merges from public Kubernetes config repositories: the regression guard that kmerge
//! is never worse than git, and the same score `../shared/tools/realworld.py` prints.
//!
//! The cases live in `tests/realworld/` (the 101 of the shared corpus whose four files total
//! at most 200,000 bytes), so every clone runs them; the larger ones in
//! `../shared/realworld/` run too when that folder sits beside the repository, and each test
//! says in one line whether they did.
//!
//! Class `b` cases are merges git's line merge got right byte for byte; kmerge must too.
//! Class `a` cases are where git conflicts; they are scored, not asserted, since the person's
//! result there is often a third value. Every case's files also feed invariants that hold for
//! any merge: taking nothing from one side returns the other.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{note, run_guarded, yaml_documents};
use kmerge::driver::merge_bytes;
use kmerge::options::MergeOptions;
use kmerge::testing::sides_hold;
use yaml_serde::Value;

/// A clean git merge whose result has a duplicate `serviceName:` key that no input had (both
/// sides added it): the person committed broken YAML, and a conflict is the right answer.
const DUPLICATE_KEY_CASE: &str = "prometheus-community+helm-charts__ba9556d__charts__kube-prometheus-stack__charts__crds__crds__crd-prometheusagents.yaml";

/// A hang guard: the largest case takes milliseconds.
const LIMIT: Duration = Duration::from_secs(60);

/// The cases every clone has.
fn in_repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/realworld")
}

/// The full shared corpus, when it sits beside the repository.
fn shared_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld")
}

struct Case {
    name: String,
    dir: PathBuf,
    /// `a` or `b`, with `-k8s` when every document is a Kubernetes resource (realworld.py's
    /// grouping).
    class: String,
    /// The mining script's naive estimate; `disjoint_matches_human` marks a case where the
    /// sides changed different fields and the person kept both.
    estimate: String,
}

/// The in-repository cases, then those of `../shared/realworld/` that are not copied here,
/// with a line saying which ran.
fn cases() -> (Vec<Case>, String) {
    let mut cases = cases_in(&in_repo_root());
    let copied = cases.len();
    assert!(
        copied >= 100,
        "only {copied} cases under {}",
        in_repo_root().display()
    );
    let shared = shared_root();
    let said = if shared.is_dir() {
        let names: std::collections::HashSet<String> =
            cases.iter().map(|c| c.name.clone()).collect();
        let larger: Vec<Case> = cases_in(&shared)
            .into_iter()
            .filter(|c| !names.contains(&c.name))
            .collect();
        let line = format!(
            "{copied} cases in tests/realworld, and {} larger ones from ../shared/realworld: ran",
            larger.len()
        );
        cases.extend(larger);
        line
    } else {
        format!(
            "{copied} cases in tests/realworld; the larger ones in ../shared/realworld: not \
             present, not run"
        )
    };
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    (cases, said)
}

fn cases_in(root: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let entries = fs::read_dir(root).unwrap_or_else(|e| panic!("reading {}: {e}", root.display()));
    for dir in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        let meta_path = dir.join("case.yaml");
        let Ok(meta_text) = fs::read_to_string(&meta_path) else {
            continue;
        };
        let meta: Value = yaml_serde::from_str(&meta_text)
            .unwrap_or_else(|e| panic!("{}: {e}", meta_path.display()));
        let class = match meta.get("class") {
            Some(Value::String(c)) => c.clone(),
            other => panic!("{}: class is {other:?}", meta_path.display()),
        };
        let k8s = meta.get("k8s").and_then(Value::as_bool).unwrap_or(false);
        let estimate = match meta.get("structural_estimate") {
            Some(Value::String(e)) => e.clone(),
            _ => String::new(),
        };
        cases.push(Case {
            name: dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned(),
            class: if k8s { format!("{class}-k8s") } else { class },
            estimate,
            dir,
        });
    }
    cases
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join(name)).unwrap_or_else(|e| panic!("reading {}: {e}", dir.join(name).display()))
}

/// The identity realworld.py matches documents by: (API group, kind, namespace, name) for a
/// resource, the position for anything else.
fn doc_key(doc: &Value, index: usize) -> String {
    let metadata = doc.get("metadata").filter(|m| m.is_mapping());
    match (doc.as_mapping(), metadata, doc.get("kind")) {
        (Some(_), Some(metadata), Some(kind)) => {
            let api_version = doc.get("apiVersion").map(scalar_text).unwrap_or_default();
            let group = api_version
                .split_once('/')
                .map_or("", |(g, _)| g)
                .to_string();
            let namespace = metadata
                .get("namespace")
                .filter(|n| truthy(n))
                .cloned()
                .unwrap_or_else(|| Value::String(String::new()));
            let name = metadata.get("name").map_or("None".to_string(), scalar_text);
            format!("{group:?} {kind:?} {namespace:?} {name:?}")
        }
        _ => format!("# {index}"),
    }
}

/// Python's `str()` of a scalar, near enough for identities.
fn scalar_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        other => format!("{other:?}"),
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Sequence(s) => !s.is_empty(),
        Value::Mapping(m) => !m.is_empty(),
        _ => true,
    }
}

/// Whether PyYAML (with libyaml, as realworld.py loads it) accepts the text, so that a text
/// byte-identical to the human's counts as equal data. yaml_serde also runs on libyaml but
/// rejects duplicate keys, which PyYAML accepts (the last one wins).
fn parses_like_pyyaml(text: &[u8]) -> bool {
    match yaml_documents(text) {
        Ok(_) => true,
        Err(e) => e.contains("duplicate entry"),
    }
}

/// realworld.py's `same`: the documents of both, keyed by identity, are equal as data.
fn same_as_data(a: &[u8], b: &[u8]) -> bool {
    let (Ok(da), Ok(db)) = (yaml_documents(a), yaml_documents(b)) else {
        return false;
    };
    let keyed = |docs: &[Value]| -> HashMap<String, Value> {
        docs.iter()
            .enumerate()
            .map(|(i, d)| (doc_key(d, i), d.clone()))
            .collect()
    };
    da.len() == db.len() && keyed(&da) == keyed(&db)
}

#[derive(Default)]
struct Counts {
    exact: usize,
    differs: usize,
    conflict: usize,
    error: usize,
    marked_lines: usize,
    /// The lines git's own merge marks in the same cases.
    git_marked_lines: usize,
    bytes: usize,
}

impl Counts {
    fn total(&self) -> usize {
        self.exact + self.differs + self.conflict + self.error
    }

    fn add(&mut self, other: &Counts) {
        self.exact += other.exact;
        self.differs += other.differs;
        self.conflict += other.conflict;
        self.error += other.error;
        self.marked_lines += other.marked_lines;
        self.git_marked_lines += other.git_marked_lines;
        self.bytes += other.bytes;
    }
}

/// The lines conflicts enclose, as git's own count goes: those between `<<<<<<<` and
/// `>>>>>>>` (ours', base's in diff3 style, theirs'), the marker lines left out.
fn marked_lines(text: &[u8]) -> usize {
    // 0 outside a conflict, else inside one.
    let mut inside = false;
    let mut n = 0;
    for line in String::from_utf8_lossy(text).lines() {
        let marker = |c: &str| line.starts_with(&c.repeat(7));
        if !inside && marker("<") {
            inside = true;
        } else if inside && marker(">") {
            inside = false;
        } else if inside && !marker("=") && !marker("|") {
            n += 1;
        }
    }
    n
}

/// `git merge-file`'s result of a case (ours, base, theirs), and whether it conflicts.
fn git_merge(dir: &Path) -> (Vec<u8>, bool) {
    let out = Command::new("git")
        .current_dir(dir)
        .args(["merge-file", "-p", "ours.yaml", "base.yaml", "theirs.yaml"])
        .output()
        .expect("running git merge-file");
    (out.stdout, out.status.code() != Some(0))
}

#[test]
fn realworld_score_and_class_b_guard() {
    let mut counts: BTreeMap<String, Counts> = BTreeMap::new();
    let mut failures = Vec::new();
    let (cases, said) = cases();
    note(&format!("realworld score: {said}"));
    for case in cases {
        let scratch = tempfile::tempdir().expect("temporary directory");
        let out = scratch.path().join("out.yaml");
        let mut cmd = common::Merge3::new()
            .output(&out)
            .command(&case.dir, scratch.path());
        let run = run_guarded(&mut cmd, LIMIT).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let result = fs::read(&out).ok();
        let merged = read(&case.dir, "merged.yaml");
        let c = counts.entry(case.class.clone()).or_default();
        let identical = result.as_deref() == Some(merged.as_slice());
        let verdict = match (run.code, &result) {
            (Some(0), Some(result)) => {
                let equal = if identical {
                    parses_like_pyyaml(result)
                } else {
                    same_as_data(result, &merged)
                };
                if identical {
                    c.bytes += 1;
                }
                if equal {
                    c.exact += 1;
                    "exact"
                } else {
                    c.differs += 1;
                    "differs"
                }
            }
            (Some(1), _) => {
                c.conflict += 1;
                let mine = result.as_deref().map_or(0, marked_lines);
                c.marked_lines += mine;
                // Never more lines than git's own conflict, where git's markers hold
                // whichever side is taken.
                let (git, git_conflicts) = git_merge(&case.dir);
                let theirs = marked_lines(&git);
                c.git_marked_lines += theirs;
                let text =
                    |name: &str| String::from_utf8_lossy(&read(&case.dir, name)).into_owned();
                if git_conflicts
                    && mine > theirs
                    && sides_hold(
                        &text("base.yaml"),
                        &text("ours.yaml"),
                        &text("theirs.yaml"),
                        &String::from_utf8_lossy(&git),
                    )
                    .is_ok()
                {
                    failures.push(format!(
                        "case {}: kmerge marks {mine} lines, git {theirs}, and git's markers hold                          whichever side is taken",
                        case.name
                    ));
                }
                "conflict"
            }
            _ => {
                c.error += 1;
                "error"
            }
        };
        if case.class.starts_with('b') {
            let accepted = if case.name == DUPLICATE_KEY_CASE {
                run.code == Some(1)
            } else {
                run.code == Some(0) && identical
            };
            if !accepted {
                failures.push(format!(
                    "class b case {}: {verdict} (exit {:?}), expected a clean merge byte-identical \
                     to merged.yaml; stderr: {}",
                    case.name,
                    run.code,
                    String::from_utf8_lossy(&run.stderr).trim()
                ));
            }
        }
        // Where git conflicts only because the two sides' edits sit close together, the
        // structural merge must do what the person did.
        if case.class.starts_with('a')
            && case.estimate == "disjoint_matches_human"
            && verdict != "exact"
        {
            failures.push(format!(
                "class a case {} (the sides changed different fields): {verdict} (exit {:?}), \
                 expected a clean merge equal to merged.yaml; stderr: {}",
                case.name,
                run.code,
                String::from_utf8_lossy(&run.stderr).trim()
            ));
        }
    }
    let (mut a_all, mut b_all) = (Counts::default(), Counts::default());
    for (class, c) in &counts {
        note(&format!(
            "class {class}: {} cases: exact {}, differs {}, conflict {} ({} lines inside markers, \
             git's merge {} in the same cases), error {}",
            c.total(),
            c.exact,
            c.differs,
            c.conflict,
            c.marked_lines,
            c.git_marked_lines,
            c.error
        ));
        if class.starts_with('a') {
            a_all.add(c);
        } else if class.starts_with('b') {
            b_all.add(c);
        }
    }
    note(&format!(
        "summary: class a exact {}/{}, differs {}; class b exact {}/{}; class a conflicts {} with {} \
         lines inside markers (git's merge: {}), errors {}; byte-identical to the human's file: \
         class b {}/{}, class a {}",
        a_all.exact,
        a_all.total(),
        a_all.differs,
        b_all.exact,
        b_all.total(),
        a_all.conflict,
        a_all.marked_lines,
        a_all.git_marked_lines,
        a_all.error,
        b_all.bytes,
        b_all.total(),
        a_all.bytes
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Invariants on every real file: a side that changed nothing contributes nothing.
#[test]
fn realworld_invariants() {
    let opts = MergeOptions::default();
    let mut failures = Vec::new();
    let mut checked = 0;
    let (cases, said) = cases();
    note(&format!("realworld invariants: {said}"));
    for case in cases {
        let base = read(&case.dir, "base.yaml");
        let ours = read(&case.dir, "ours.yaml");
        let theirs = read(&case.dir, "theirs.yaml");
        let mut check = |what: &str, b: &[u8], o: &[u8], t: &[u8], want: &[u8], as_data: bool| {
            checked += 1;
            let outcome = match merge_bytes(b, o, t, &opts) {
                Ok(outcome) => outcome,
                Err(e) => {
                    failures.push(format!("{}: {what}: error {e:#}", case.name));
                    return;
                }
            };
            // Where yaml_serde cannot load the file (duplicate keys), bytes must match.
            let same = if as_data && yaml_documents(want).is_ok() {
                same_docs(&outcome.bytes, want)
            } else {
                outcome.bytes == want
            };
            if outcome.conflicted || !same {
                failures.push(format!(
                    "{}: {what}: {}",
                    case.name,
                    if outcome.conflicted {
                        "conflict".to_string()
                    } else {
                        common::unified_diff(want, &outcome.bytes, "expected")
                    }
                ));
            }
        };
        check(
            "merge(base, ours, base) == ours",
            &base,
            &ours,
            &base,
            &ours,
            false,
        );
        check(
            "merge(base, base, theirs) == theirs as data",
            &base,
            &base,
            &theirs,
            &theirs,
            true,
        );
        for (name, x) in [("base", &base), ("ours", &ours), ("theirs", &theirs)] {
            check(&format!("merge({name} x3) == {name}"), x, x, x, x, false);
        }
    }
    note(&format!(
        "realworld invariants: {checked} merges checked, {} failed",
        failures.len()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn same_docs(a: &[u8], b: &[u8]) -> bool {
    matches!((yaml_documents(a), yaml_documents(b)), (Ok(x), Ok(y)) if x == y)
}
