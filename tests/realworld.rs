//! Real merges from public Kubernetes config repositories: the regression guard that kmerge
//! is never worse than git, and the same score `../shared/tools/realworld.py` prints.
//!
//! The cases live in `tests/realworld/` (the 101 of the shared corpus whose four files total
//! at most 200,000 bytes), so every clone runs them; the larger ones in
//! `../shared/realworld/` run too when that folder sits beside the repository, and each test
//! says in one line whether they did.
//!
//! Class `b` cases are merges git's line merge got right byte for byte; kmerge must too.
//! Class `a` cases are where git conflicts; one by one they are scored, not asserted, since
//! the person's result there is often a third value, but the score as a whole has a floor
//! (cases resolved exactly, lines left inside conflict markers) that a worse figure fails.
//! The Helm chart merges of `../shared/templates/`, when present, are scored against theirs
//! too. Every case's files also feed invariants that hold for any merge: taking nothing from
//! one side returns the other.

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
    /// One of `tests/realworld/`, which every clone has.
    in_repo: bool,
}

/// The in-repository cases, then those of `../shared/realworld/` that are not copied here,
/// with a line saying which ran.
fn cases() -> (Vec<Case>, String) {
    let mut cases = cases_in(&in_repo_root(), true);
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
        let larger: Vec<Case> = cases_in(&shared, false)
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

fn cases_in(root: &Path, in_repo: bool) -> Vec<Case> {
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
            in_repo,
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

/// realworld.py's `norm_text`: equal but for each line's trailing whitespace and the blank
/// lines at the end.
fn same_text(a: &[u8], b: &[u8]) -> bool {
    let norm = |t: &[u8]| -> String {
        let text = String::from_utf8_lossy(t);
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        lines.join("\n").trim_end_matches('\n').to_string()
    };
    norm(a) == norm(b)
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

/// What a scoring run found: counts by class, the class a counts of the in-repository cases
/// alone, and the cases that broke a rule.
#[derive(Default)]
struct Score {
    counts: BTreeMap<String, Counts>,
    in_repo: BTreeMap<String, Counts>,
    failures: Vec<String>,
}

/// How a clean result is compared with the person's: as data (realworld.py), or as text
/// with each line's trailing whitespace and the blank lines at the end ignored
/// (realworld.py --text, for templates, which are not YAML data).
#[derive(Clone, Copy, PartialEq)]
enum Compare {
    Data,
    Text,
}

/// Runs `kmerge merge3` on every case and scores it as realworld.py does; the rules of
/// class b (git's bytes kept) and of class a cases where the sides changed different fields
/// are checked where `guard` is set.
fn score(cases: Vec<Case>, compare: Compare, guard: bool) -> Score {
    let mut score = Score::default();
    for case in cases {
        let scratch = tempfile::tempdir().expect("temporary directory");
        let out = scratch.path().join("out.yaml");
        let mut cmd = common::Merge3::new()
            .output(&out)
            .command(&case.dir, scratch.path());
        let run = run_guarded(&mut cmd, LIMIT).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let result = fs::read(&out).ok();
        let merged = read(&case.dir, "merged.yaml");
        let mut c = Counts::default();
        let identical = result.as_deref() == Some(merged.as_slice());
        let failures = &mut score.failures;
        let verdict = match (run.code, &result) {
            (Some(0), Some(result)) => {
                let equal = match compare {
                    Compare::Text => same_text(result, &merged),
                    Compare::Data if identical => parses_like_pyyaml(result),
                    Compare::Data => same_as_data(result, &merged),
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
                if guard
                    && git_conflicts
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
        if guard && case.class.starts_with('b') {
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
        if guard
            && case.class.starts_with('a')
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
        score.counts.entry(case.class.clone()).or_default().add(&c);
        if case.in_repo {
            score.in_repo.entry(case.class.clone()).or_default().add(&c);
        }
    }
    score
}

/// The counts of class a and of class b, each over its `-k8s` half too.
fn by_class(counts: &BTreeMap<String, Counts>) -> (Counts, Counts) {
    let (mut a_all, mut b_all) = (Counts::default(), Counts::default());
    for (class, c) in counts {
        if class.starts_with('a') {
            a_all.add(c);
        } else if class.starts_with('b') {
            b_all.add(c);
        }
    }
    (a_all, b_all)
}

/// Prints a line per class and the summary line realworld.py prints.
fn report(what: &str, counts: &BTreeMap<String, Counts>) {
    for (class, c) in counts {
        note(&format!(
            "{what} class {class}: {} cases: exact {}, differs {}, conflict {} ({} lines inside \
             markers, git's merge {} in the same cases), error {}",
            c.total(),
            c.exact,
            c.differs,
            c.conflict,
            c.marked_lines,
            c.git_marked_lines,
            c.error
        ));
    }
    let (a_all, b_all) = by_class(counts);
    note(&format!(
        "{what} summary: class a exact {}/{}, differs {}; class b exact {}/{}; class a conflicts {} with {} \
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
}

/// A score's floor, as measured when it was set: the cases resolved exactly (class a, where
/// git conflicts; and class b, where git was right) and the lines left inside conflict
/// markers in class a. A worse figure fails, so a drop cannot pass CI unseen; a better one
/// passes with a note asking to raise the floor.
struct Floor {
    cases: usize,
    a_exact: usize,
    b_exact: usize,
    a_marked_lines: usize,
}

/// Checks `counts` against `floor`: `Err` for a worse figure, notes for better ones.
fn hold_floor(what: &str, floor: &Floor, counts: &BTreeMap<String, Counts>) -> Result<(), String> {
    let (a, b) = by_class(counts);
    let cases = a.total() + b.total();
    if cases != floor.cases {
        return Err(format!(
            "{what}: {cases} cases, the floor was measured on {}: measure it again",
            floor.cases
        ));
    }
    let mut worse = Vec::new();
    let mut better = Vec::new();
    for (name, got, want, higher_is_better) in [
        ("class a exact", a.exact, floor.a_exact, true),
        ("class b exact", b.exact, floor.b_exact, true),
        (
            "class a lines inside markers",
            a.marked_lines,
            floor.a_marked_lines,
            false,
        ),
    ] {
        let line = format!("{name} {got} (floor {want})");
        if got == want {
            continue;
        }
        if (got > want) == higher_is_better {
            better.push(line);
        } else {
            worse.push(line);
        }
    }
    if !better.is_empty() {
        note(&format!(
            "{what}: better than the floor, raise it in tests/realworld.rs: {}",
            better.join(", ")
        ));
    }
    if worse.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{what}: worse than the floor: {}",
            worse.join(", ")
        ))
    }
}

/// The 101 cases of `tests/realworld/`, which every clone has.
const REALWORLD_IN_REPO: Floor = Floor {
    cases: 101,
    a_exact: 19,
    b_exact: 34,
    a_marked_lines: 235,
};

/// Those and the 20 larger ones of `../shared/realworld/`.
const REALWORLD_ALL: Floor = Floor {
    cases: 121,
    a_exact: 21,
    b_exact: 43,
    a_marked_lines: 654,
};

/// The 47 Helm chart merges of `../shared/templates/`, compared as text. The marked lines
/// rose from 814 to 1101 in one case (argo-cd applicationset deployment): git's 26 marked
/// lines there have an ours side that repeats `nodeSelector` (the adversary's oracle finds it
/// unloadable too), and theirs' `args` lost on ours' side; the conflict now takes in the
/// container both sides changed and the stretch that theirs' moved `nodeSelector` crosses.
/// They fell to 1097 in opentelemetry-demo's jaeger.yaml (38 to 34, git's 38): the data merges
/// clean there and only where the control lines go is open, so the conflict is between the
/// structural merge placed as ours and as theirs place them, each half holding both changes.
/// They rose to 1139 where git's markers leave a block open on one side (Helm would not
/// render it): kube-state-metrics' deployment (16, git's 10: theirs' side of each probe's
/// conflict lacks the `{{- end }}` of the `if`/`else` theirs moved, so each conflict takes in
/// the `scheme` and `end` lines after it) and promtail's daemonset (155, git's 119: theirs
/// wrapped the document in an `if` git merges cleanly, its `end` only on theirs' side, and
/// no conflict short of the whole file holds). They fell to 1137 where a comment line (an
/// include line, to the skeleton) indented into the block above a conflict stays with that
/// block, outside the markers, instead of being claimed by the key below it too.
const TEMPLATES: Floor = Floor {
    cases: 47,
    a_exact: 7,
    b_exact: 14,
    a_marked_lines: 1137,
};

#[test]
fn realworld_score_and_class_b_guard() {
    let (cases, said) = cases();
    let shared = cases.iter().any(|c| !c.in_repo);
    note(&format!("realworld score: {said}"));
    let score = score(cases, Compare::Data, true);
    report("realworld", &score.counts);
    report("realworld (tests/realworld alone)", &score.in_repo);
    let mut failures = score.failures;
    failures.extend(hold_floor("tests/realworld", &REALWORLD_IN_REPO, &score.in_repo).err());
    if shared {
        failures
            .extend(hold_floor("realworld with ../shared", &REALWORLD_ALL, &score.counts).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The Helm chart merges of `../shared/templates/`, when present, scored as
/// `realworld.py ../templates --text` scores them, against their floor.
#[test]
fn templates_score() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/templates");
    if !root.is_dir() {
        note("templates score: ../shared/templates not present, not run");
        return;
    }
    let mut cases = cases_in(&root, false);
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    note(&format!(
        "templates score: {} cases from ../shared/templates: ran",
        cases.len()
    ));
    let score = score(cases, Compare::Text, false);
    report("templates", &score.counts);
    if let Err(e) = hold_floor("templates", &TEMPLATES, &score.counts) {
        panic!("{e}");
    }
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
