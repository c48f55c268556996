//! The fixtures too large to copy into the repository, read from `../shared/` beside it: the
//! multi-megabyte release manifests of `perf/` and the package update of `packages/`. Each
//! test runs when its folder is present and says in one line whether it ran; a fresh clone
//! alone passes without them.
//!
//! The package fixture is merged file by file here, on the paths all three versions share;
//! the directory merge (renamed files, resources moving between files) is the package-update
//! command's own test.

mod common;
mod yaml11;

use std::path::{Path, PathBuf};

use common::note;
use kmerge::driver::merge_bytes;
use kmerge::options::MergeOptions;

fn shared(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(name);
    dir.is_dir().then_some(dir)
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// On real multi-megabyte manifests, a side that changed nothing contributes nothing, byte
/// for byte, through whichever path (git's bytes, the structural merge) the driver takes.
#[test]
fn perf_manifests_keep_the_invariants() {
    let Some(root) = shared("perf") else {
        note("perf fixtures: ../shared/perf not present, not run");
        return;
    };
    let opts = MergeOptions::default();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("reading {}: {e}", root.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|d| d.join("base.yaml").is_file() && d.join("theirs.yaml").is_file())
        .collect();
    dirs.sort();
    let mut failures = Vec::new();
    let mut bytes = 0;
    for dir in &dirs {
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        let base = read(&dir.join("base.yaml"));
        let theirs = read(&dir.join("theirs.yaml"));
        bytes += base.len() + theirs.len();
        for (what, b, o, t) in [
            ("merge(base, base, theirs)", &base, &base, &theirs),
            ("merge(base, theirs, base)", &base, &theirs, &base),
            ("merge(theirs, theirs, theirs)", &theirs, &theirs, &theirs),
        ] {
            match merge_bytes(b, o, t, &opts) {
                Ok(out) if !out.conflicted && out.bytes == theirs => {}
                Ok(out) => failures.push(format!(
                    "{name}: {what}: {} instead of theirs' bytes; {:?}",
                    if out.conflicted {
                        "conflicts"
                    } else {
                        "other bytes"
                    },
                    out.messages
                )),
                Err(e) => failures.push(format!("{name}: {what}: error {e:#}")),
            }
        }
    }
    assert!(
        dirs.len() >= 5,
        "only {} manifests in {}",
        dirs.len(),
        root.display()
    );
    note(&format!(
        "perf fixtures: {} release pairs ({:.1} MB) from ../shared/perf: ran",
        dirs.len(),
        bytes as f64 / 1e6
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One side of every conflict block: the lines between `<<<<<<<` and `=======` for ours,
/// between `=======` and `>>>>>>>` for theirs (the `|||||||` base section dropped).
fn side_of_conflicts(text: &str, theirs: bool) -> String {
    #[derive(PartialEq)]
    enum At {
        Outside,
        Ours,
        Base,
        Theirs,
    }
    let mut at = At::Outside;
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let next = match line {
            l if l.starts_with("<<<<<<<") => Some(At::Ours),
            l if l.starts_with("|||||||") => Some(At::Base),
            l if l.starts_with("=======") => Some(At::Theirs),
            l if l.starts_with(">>>>>>>") => Some(At::Outside),
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => {
                let keep = match at {
                    At::Outside => true,
                    At::Ours => !theirs,
                    At::Theirs => theirs,
                    At::Base => false,
                };
                if keep {
                    out.push_str(line);
                }
            }
        }
    }
    out
}

/// The real package update (kube-prometheus v0.7 → v0.8 with local customisations), merged
/// file by file on the paths base, ours and theirs share: each result equals `expected/` as
/// data; in the `-conflict` variant the one file with the true conflict marks just that
/// image, ours' value on ours' side and theirs' on theirs'.
#[test]
fn package_update_merges_file_by_file() {
    let Some(root) = shared("packages") else {
        note("package fixtures: ../shared/packages not present, not run");
        return;
    };
    let opts = MergeOptions::default();
    let mut failures = Vec::new();
    let mut merged = 0;
    let conflict_file = "kube-state-metrics-deployment.yaml";
    for fixture in [
        "kube-prometheus-v0.7-v0.8",
        "kube-prometheus-v0.7-v0.8-conflict",
    ] {
        let dir = root.join(fixture);
        let with_conflict = fixture.ends_with("-conflict");
        let mut files = Vec::new();
        collect_files(&dir.join("ours"), Path::new(""), &mut files);
        files.sort();
        for rel in files {
            let [base, ours, theirs, expected] =
                ["base", "ours", "theirs", "expected"].map(|side| dir.join(side).join(&rel));
            if !(base.is_file() && theirs.is_file() && expected.is_file()) {
                continue;
            }
            merged += 1;
            let name = format!("{fixture}/{}", rel.display());
            let out = match merge_bytes(&read(&base), &read(&ours), &read(&theirs), &opts) {
                Ok(out) => out,
                Err(e) => {
                    failures.push(format!("{name}: error {e:#}"));
                    continue;
                }
            };
            let text = String::from_utf8_lossy(&out.bytes).into_owned();
            let expect_conflict = with_conflict && rel == Path::new(conflict_file);
            if out.conflicted != expect_conflict {
                failures.push(format!(
                    "{name}: conflicted {} (expected {expect_conflict}): {:?}",
                    out.conflicted, out.messages
                ));
                continue;
            }
            if expect_conflict {
                let blocks = text.lines().filter(|l| l.starts_with("<<<<<<<")).count();
                let ours_side = side_of_conflicts(&text, false);
                if blocks != 1
                    || !ours_side.contains("image: quay.io/coreos/kube-state-metrics:v1.9.8")
                {
                    failures.push(format!("{name}: not just the image marked:\n{text}"));
                }
            }
            let result = yaml11::load_documents(&side_of_conflicts(&text, true));
            let want = yaml11::load_documents(&String::from_utf8_lossy(&read(&expected)));
            match (result, want) {
                (Ok(r), Ok(w)) if r == w => {}
                (Ok(_), Ok(_)) => failures.push(format!("{name}: differs from expected/ as data")),
                (r, w) => failures.push(format!(
                    "{name}: does not load: {:?} {:?}",
                    r.err(),
                    w.err()
                )),
            }
        }
    }
    assert!(
        merged >= 100,
        "only {merged} files merged under {}",
        root.display()
    );
    note(&format!(
        "package fixtures: {merged} files of 2 fixtures from ../shared/packages, merged file by \
         file: ran"
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every file under `dir`, as paths relative to it.
fn collect_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir.join(rel))
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.join(rel).display()));
    for entry in entries.flatten() {
        let path = rel.join(entry.file_name());
        if entry.path().is_dir() {
            collect_files(dir, &path, out);
        } else {
            out.push(path);
        }
    }
}
