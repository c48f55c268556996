//! The fixtures too large to copy into the repository, read from `../shared/` beside it: the
//! multi-megabyte release manifests of `perf/` and the package update of `packages/`. Each
//! test runs when its folder is present and says in one line whether it ran; a fresh clone
//! alone passes without them.
//!
//! The package fixture is merged twice: file by file on the paths all three versions share
//! (the file merge alone), and as a package by `kmerge merge3` on the folders (renamed files,
//! resources moving between files, theirs' layout).

mod common;
mod yaml11;

use std::path::{Path, PathBuf};

use common::{note, Merge3};
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

/// Runs `kmerge merge3` on a fixture's folders, updating a copy of `ours/` in place.
fn merge_package(fixture: &Path, ours: &Path) -> std::process::Output {
    let home = tempfile::tempdir().expect("a temporary home");
    Merge3::files(fixture.join("base"), ours, fixture.join("theirs"))
        .command(home.path(), home.path())
        .output()
        .unwrap_or_else(|e| panic!("running kmerge: {e}"))
}

fn copy_folder(from: &Path, to: &Path) {
    let mut files = Vec::new();
    collect_files(from, Path::new(""), &mut files);
    for rel in files {
        let target = to.join(&rel);
        std::fs::create_dir_all(target.parent().unwrap_or(to)).expect("creating a folder");
        std::fs::write(&target, read(&from.join(&rel))).expect("copying a file");
    }
}

/// Every file under `dir` with its bytes.
fn tree(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = Vec::new();
    collect_files(dir, Path::new(""), &mut files);
    files
        .into_iter()
        .map(|rel| {
            let bytes = read(&dir.join(&rel));
            (rel, bytes)
        })
        .collect()
}

/// The real package update as a package: the result has `expected/`'s layout (theirs' file
/// names plus the local-only file: no old file left, emptied or not, none missing) and each
/// file equals `expected/`'s as data; the `-conflict` variant exits 1 with just the pinned
/// image marked; the update run again on its own result changes nothing (on the conflicted
/// one it refuses, exit 2). The fixture's own
/// checker runs too where Python with PyYAML is there.
#[test]
fn package_update_merges_as_a_package() {
    let Some(root) = shared("packages") else {
        note("package update: ../shared/packages not present, not run");
        return;
    };
    let mut failures = Vec::new();
    let mut checker_ran = false;
    for fixture in [
        "kube-prometheus-v0.7-v0.8",
        "kube-prometheus-v0.7-v0.8-conflict",
    ] {
        let dir = root.join(fixture);
        let with_conflict = fixture.ends_with("-conflict");
        let scratch = tempfile::tempdir().expect("a temporary folder");
        let work = scratch.path().join("merged");
        copy_folder(&dir.join("ours"), &work);
        let out = merge_package(&dir, &work);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        if code != Some(i32::from(with_conflict)) || stderr.contains("a bug in kmerge") {
            failures.push(format!("{fixture}: exit {code:?}; stderr:\n{stderr}"));
            continue;
        }
        let result = tree(&work);
        let expected = tree(&dir.join("expected"));
        let names = |t: &std::collections::BTreeMap<PathBuf, Vec<u8>>| {
            t.keys().cloned().collect::<Vec<_>>()
        };
        if names(&result) != names(&expected) {
            failures.push(format!(
                "{fixture}: files {:?}, expected {:?}",
                names(&result),
                names(&expected)
            ));
            continue;
        }
        let mut blocks = 0;
        for (rel, bytes) in &result {
            let text = String::from_utf8_lossy(bytes);
            let here = text.lines().filter(|l| l.starts_with("<<<<<<<")).count();
            blocks += here;
            if here > 0
                && !(rel == Path::new("kube-state-metrics-deployment.yaml")
                    && here == 1
                    && side_of_conflicts(&text, false)
                        .contains("image: quay.io/coreos/kube-state-metrics:v1.9.8"))
            {
                failures.push(format!(
                    "{fixture}/{}: marked otherwise:\n{text}",
                    rel.display()
                ));
            }
            let got = yaml11::load_documents(&side_of_conflicts(&text, true));
            let want = yaml11::load_documents(&String::from_utf8_lossy(&expected[rel]));
            match (got, want) {
                (Ok(g), Ok(w)) if g == w => {}
                (g, w) => failures.push(format!(
                    "{fixture}/{}: differs from expected/ as data ({:?} {:?})",
                    rel.display(),
                    g.err(),
                    w.err()
                )),
            }
        }
        if blocks != usize::from(with_conflict) {
            failures.push(format!("{fixture}: {blocks} conflict blocks"));
        }
        // Run again on its own result, the update changes nothing: clean, it has nothing
        // left to do; with the conflict still marked, it refuses (exit 2) rather than nest
        // new markers around it.
        let again = merge_package(&dir, &work);
        let want = if with_conflict { 2 } else { 0 };
        if again.status.code() != Some(want) || tree(&work) != result {
            failures.push(format!(
                "{fixture}: a second run changed the result or did not exit {want}: {}",
                String::from_utf8_lossy(&again.stderr)
            ));
        }
        let checker = std::process::Command::new("python3")
            .arg(root.join("check.py"))
            .arg(&dir)
            .arg(&work)
            .arg("--rc")
            .arg(i32::from(with_conflict).to_string())
            .output();
        let has_yaml = std::process::Command::new("python3")
            .args(["-c", "import yaml"])
            .output()
            .is_ok_and(|o| o.status.success());
        if let (Ok(check), true) = (checker, has_yaml) {
            checker_ran = true;
            if !check.status.success() {
                failures.push(format!(
                    "{fixture}: check.py: {}{}",
                    String::from_utf8_lossy(&check.stdout),
                    String::from_utf8_lossy(&check.stderr)
                ));
            }
        }
    }
    // A side that changed nothing gives the other's tree byte for byte; both changing the
    // same way, that tree; and ours and theirs swapped, the same resources in the same layout
    // (upstream's, which both ways is the layout the two releases differ in).
    let dir = root.join("kube-prometheus-v0.7-v0.8");
    for (b, o, t, want) in [
        ("base", "base", "theirs", "theirs"),
        ("base", "ours", "base", "ours"),
        ("theirs", "theirs", "theirs", "theirs"),
        ("ours", "ours", "theirs", "theirs"),
        ("base", "theirs", "ours", "expected"),
    ] {
        let scratch = tempfile::tempdir().expect("a temporary folder");
        let out = scratch.path().join("out");
        let run = Merge3::files(dir.join(b), dir.join(o), dir.join(t))
            .output(&out)
            .command(scratch.path(), scratch.path())
            .output()
            .expect("running kmerge");
        let what = format!("merge3 --base {b} --ours {o} --theirs {t}");
        if run.status.code() != Some(0) {
            failures.push(format!("{what}: {}", String::from_utf8_lossy(&run.stderr)));
            continue;
        }
        let (got, expected) = (tree(&out), tree(&dir.join(want)));
        if want != "expected" {
            if got != expected {
                failures.push(format!("{what}: not {want}/ byte for byte"));
            }
            continue;
        }
        let same = got.keys().eq(expected.keys())
            && got.iter().all(|(rel, bytes)| {
                yaml11::load_documents(&String::from_utf8_lossy(bytes)).ok()
                    == yaml11::load_documents(&String::from_utf8_lossy(&expected[rel])).ok()
            });
        if !same {
            failures.push(format!("{what}: not expected/ in files and data"));
        }
    }
    note(&format!(
        "package update: 2 fixtures from ../shared/packages merged as packages: ran (check.py {})",
        if checker_ran {
            "ran"
        } else {
            "not run: no python3 with PyYAML"
        }
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
