//! Text fidelity of clean merges on real merges: no comment line a side wrote is missing from
//! a clean result, and no line of ours is re-indented although no side re-indented it.
//!
//! Every case of `tests/realworld/` (and, when they sit beside the repository, of
//! `../shared/realworld/` and `../shared/templates/`) is merged with `kmerge merge3`; each
//! clean result is measured the way `../shared/tools/fidelity.py` measures it, with a 3-way
//! count of lines: a line is expected `ours` times if ours and theirs hold it equally often,
//! else `base + (ours - base) + (theirs - base)` times (at least 0), and the result is compared
//! with that count
//! - on stripped lines: a `#` line the result lacks is a comment line lost (any line, a line
//!   lost);
//! - on whole lines: a line of ours the result lacks although its stripped text is there is a
//!   re-indented line.
//!
//! A comment line kmerge names on stderr as theirs' edit not taken (both sides changed the
//! same comment lines, and ours' stay) is not lost: the user was told. Each case is one named
//! test, `realworld/<case>` or `templates/<case>`, which fails on a comment line lost or a
//! re-indented line; the cases that still do are listed, each with its reason, in
//! `tests/fidelity-pending.md`, and a listed case that no longer drifts fails until its line
//! goes. Lines lost are counted, not asserted: a change both sides made alike but wrote
//! differently loses one side's lines by design (the result keeps ours' text). The totals are
//! printed at the end, in the shared tool's words.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{note, run_guarded};
use libtest_mimic::{Arguments, Failed, Trial};

/// A hang guard: the largest case takes a fraction of a second.
const LIMIT: Duration = Duration::from_secs(120);

/// The list of cases that still drift, with reasons.
const PENDING: &str = "tests/fidelity-pending.md";

/// What one clean result lost.
#[derive(Clone, Debug, Default)]
struct Drift {
    comment_lines_lost: usize,
    lines_lost: usize,
    reindented: usize,
    /// The comment lines lost and the lines re-indented, for the failure message.
    examples: Vec<String>,
}

/// One case's outcome: `None` when the result is not clean (not measured).
type Measured = Option<Drift>;

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pending = read_pending(&root.join(PENDING));
    let (cases, said) = cases(root);
    note(&format!("fidelity: {said}"));
    // A listed case must exist, unless it comes from a shared folder that is not present
    // (a fresh clone with nothing beside it runs only the copies in tests/realworld).
    let shared_present = |name: &str| {
        let set = name.split('/').next().unwrap_or_default();
        root.join("../shared").join(set).is_dir()
    };
    for name in pending.keys() {
        assert!(
            cases.iter().any(|(n, _)| n == name) || !shared_present(name),
            "{PENDING} lists {name}, which is no case here"
        );
    }
    let results: Arc<Mutex<Vec<(String, Measured)>>> = Arc::default();
    let trials = cases
        .into_iter()
        .map(|(name, dir)| {
            let reason = pending.get(&name).cloned();
            let results = Arc::clone(&results);
            Trial::test(name.clone(), move || {
                let measured = measure(&dir)?;
                results
                    .lock()
                    .map_err(|_| "a test panicked")?
                    .push((name.clone(), measured.clone()));
                verdict(measured.as_ref(), reason.as_deref())
            })
        })
        .collect();
    let conclusion = libtest_mimic::run(&args, trials);
    if let Ok(results) = results.lock() {
        if !results.is_empty() {
            summarise(&results);
        }
    }
    conclusion.exit();
}

/// Whether a case holds fidelity, or (pending) still fails to with its reason.
fn verdict(drift: Option<&Drift>, pending: Option<&str>) -> Result<(), Failed> {
    let drifts = drift.is_some_and(|d| d.comment_lines_lost > 0 || d.reindented > 0);
    match (drifts, pending) {
        (false, None) => Ok(()),
        (true, Some(why)) => {
            note(&format!("pending, still drifts: {why}"));
            Ok(())
        }
        (false, Some(_)) => Err(format!(
            "listed in {PENDING}, but its result no longer drifts: remove its line"
        )
        .into()),
        (true, None) => {
            let d = drift.cloned().unwrap_or_default();
            Err(format!(
                "{} comment lines lost, {} lines re-indented:\n{}",
                d.comment_lines_lost,
                d.reindented,
                d.examples.join("\n")
            )
            .into())
        }
    }
}

/// The totals, as `fidelity.py` prints them.
fn summarise(results: &[(String, Measured)]) {
    let mut by_set: BTreeMap<&str, (usize, usize, usize, usize, usize, usize)> = BTreeMap::new();
    for (name, m) in results {
        let set = name.split('/').next().unwrap_or("");
        let t = by_set.entry(set).or_default();
        t.0 += 1;
        if let Some(d) = m {
            t.1 += 1;
            if d.comment_lines_lost + d.lines_lost + d.reindented > 0 {
                t.2 += 1;
            }
            t.3 += d.comment_lines_lost;
            t.4 += d.lines_lost;
            t.5 += d.reindented;
        }
    }
    for (set, (cases, clean, drift, comments, lines, reindented)) in by_set {
        note(&format!(
            "fidelity {set}: {clean} clean results of {cases} cases; {drift} with drift; comment \
             lines lost {comments}, lines lost {lines}, re-indented lines {reindented}"
        ));
    }
}

/// `- <set>/<case> reason` lines of the pending list.
fn read_pending(path: &Path) -> HashMap<String, String> {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| {
            let (name, why) = l.split_once(' ').unwrap_or((l, ""));
            assert!(
                !why.trim().is_empty(),
                "{}: {name} needs a reason",
                path.display()
            );
            (name.to_string(), why.trim().to_string())
        })
        .collect()
}

/// The cases: `realworld/<name>` from the repository and the shared corpus, and
/// `templates/<name>` from the shared templates, with a line saying what ran.
fn cases(root: &Path) -> (Vec<(String, PathBuf)>, String) {
    let mut cases: BTreeMap<String, PathBuf> = BTreeMap::new();
    let in_repo = case_dirs(&root.join("tests/realworld"));
    let copied = in_repo.len();
    assert!(
        copied >= 100,
        "only {copied} real merges in tests/realworld"
    );
    for dir in in_repo {
        cases.insert(format!("realworld/{}", file_name(&dir)), dir);
    }
    let mut said = vec![format!("{copied} cases in tests/realworld")];
    for (set, folder) in [
        ("realworld", "../shared/realworld"),
        ("templates", "../shared/templates"),
    ] {
        let shared = root.join(folder);
        if !shared.is_dir() {
            said.push(format!("{folder}: not present, not run"));
            continue;
        }
        let mut added = 0;
        for dir in case_dirs(&shared) {
            let name = format!("{set}/{}", file_name(&dir));
            if let std::collections::btree_map::Entry::Vacant(e) = cases.entry(name) {
                e.insert(dir);
                added += 1;
            }
        }
        said.push(format!("{added} more from {folder}: ran"));
    }
    (cases.into_iter().collect(), said.join("; "))
}

fn case_dirs(root: &Path) -> Vec<PathBuf> {
    let entries = fs::read_dir(root).unwrap_or_else(|e| panic!("reading {}: {e}", root.display()));
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|d| d.join("case.yaml").is_file())
        .collect();
    dirs.sort();
    dirs
}

fn file_name(dir: &Path) -> String {
    dir.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// Merges one case and measures its result, if clean.
fn measure(dir: &Path) -> Result<Measured, Failed> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = scratch.path().join("out.yaml");
    let mut cmd = common::Merge3::new()
        .output(&out)
        .command(dir, scratch.path());
    let run = run_guarded(&mut cmd, LIMIT)?;
    if run.timed_out {
        return Err(format!("still running after {LIMIT:?}").into());
    }
    if run.code != Some(0) {
        return Ok(None);
    }
    let read = |path: &Path| -> Result<String, Failed> {
        let bytes = fs::read(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    let [base, ours, theirs] =
        ["base", "ours", "theirs"].map(|v| read(&dir.join(format!("{v}.yaml"))));
    let (base, ours, theirs) = (base?, ours?, theirs?);
    let result = read(&out)?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    let announced = announced_lines(&stderr, &theirs);
    Ok(Some(drift(&base, &ours, &theirs, &result, &announced)))
}

/// The stripped text of theirs' lines kmerge named on stderr as an edit not taken.
fn announced_lines(stderr: &str, theirs: &str) -> Vec<String> {
    let lines: Vec<&str> = theirs.lines().collect();
    let mut out = Vec::new();
    for message in stderr
        .lines()
        .filter(|l| l.contains("theirs' edit not taken"))
    {
        let Some(list) = message
            .rsplit_once('(')
            .and_then(|(_, l)| l.strip_suffix(" of theirs)"))
        else {
            continue;
        };
        for part in list.split(", ") {
            let numbers = part
                .trim_start_matches("lines ")
                .trim_start_matches("line ");
            let (from, to) = numbers.split_once('-').unwrap_or((numbers, numbers));
            let (Ok(from), Ok(to)) = (from.parse::<usize>(), to.parse::<usize>()) else {
                continue;
            };
            for n in from..=to {
                if let Some(l) = lines.get(n.wrapping_sub(1)) {
                    out.push(l.trim().to_string());
                }
            }
        }
    }
    out
}

/// Non-blank lines of a text and how often each occurs, stripped or with their indentation.
fn counts(text: &str, strip: bool) -> HashMap<&str, usize> {
    let mut c = HashMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let key = if strip { line.trim() } else { line.trim_end() };
        *c.entry(key).or_insert(0) += 1;
    }
    c
}

/// The lines the result holds fewer times than the 3-way count expects, and how many fewer.
fn missing<'a>(
    [b, o, t]: [&HashMap<&'a str, usize>; 3],
    r: &HashMap<&str, usize>,
) -> BTreeMap<&'a str, usize> {
    let get = |m: &HashMap<&str, usize>, l: &str| m.get(l).copied().unwrap_or(0) as isize;
    let mut lost = BTreeMap::new();
    for &line in b.keys().chain(o.keys()).chain(t.keys()) {
        let (bn, on, tn) = (get(b, line), get(o, line), get(t, line));
        let expected = if on == tn {
            on
        } else {
            (bn + (on - bn) + (tn - bn)).max(0)
        };
        let have = get(r, line);
        if have < expected {
            lost.insert(line, (expected - have) as usize);
        }
    }
    lost
}

/// fidelity.py's measure of one clean result (comment lines named on stderr left out).
fn drift(base: &str, ours: &str, theirs: &str, result: &str, announced: &[String]) -> Drift {
    let (b, o, t, r) = (
        counts(base, true),
        counts(ours, true),
        counts(theirs, true),
        counts(result, true),
    );
    let lost = missing([&b, &o, &t], &r);
    let (bx, ox, tx, rx) = (
        counts(base, false),
        counts(ours, false),
        counts(theirs, false),
        counts(result, false),
    );
    let lost_whole = missing([&bx, &ox, &tx], &rx);
    let mut d = Drift::default();
    let mut excused: HashMap<&str, usize> = HashMap::new();
    for a in announced {
        *excused.entry(a.as_str()).or_default() += 1;
    }
    for (line, &n) in &lost {
        d.lines_lost += n;
        if line.starts_with('#') {
            let told = excused.get(line).copied().unwrap_or(0).min(n);
            if n > told {
                d.comment_lines_lost += n - told;
                d.examples.push(format!("  comment lost: {line}"));
            }
        }
    }
    for (line, &n) in &lost_whole {
        if !lost.contains_key(line.trim()) && ox.contains_key(line) {
            d.reindented += n;
            if d.examples.len() < 40 {
                d.examples.push(format!("  re-indented: {line}"));
            }
        }
    }
    d
}
