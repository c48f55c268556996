//! Never worse than git on real clean merges: each case is a real merge of a YAML file where
//! git's line merge is clean and is byte for byte what the person committed, so kmerge's
//! result must be that file byte for byte — except where git's result repeats a mapping key,
//! a resource identity or a list element's key, which `tests/realworld-clean-deviations.md`
//! lists, one `- case: reason` line each (a list that only shrinks).
//!
//! A sample lives in `tests/realworld-clean/` (at most 300 KB: the cases kmerge once got
//! wrong where they fit, and a spread of the rest), so every clone checks the same way. When
//! `../shared/realworld-clean.tar.xz` sits beside the repository, its 815 cases run too,
//! unpacked once into `target/realworld-clean/`. Each case is one named test:
//! `cargo test --release --test realworld_clean -- <case>`.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{note, run_guarded};
use libtest_mimic::{Arguments, Failed, Trial};

/// A hang guard: the largest case (a 45,000-line CRD file) takes a fraction of a second.
const LIMIT: Duration = Duration::from_secs(120);

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The listed deviations: case name → reason.
fn deviations() -> Result<BTreeMap<String, String>, String> {
    let path = manifest().join("tests/realworld-clean-deviations.md");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("- ")) {
        let Some((case, reason)) = line[2..].split_once(": ") else {
            return Err(format!(
                "{}: `{line}` is not `- case: reason`",
                path.display()
            ));
        };
        out.insert(case.trim().to_string(), reason.trim().to_string());
    }
    Ok(out)
}

/// The shared corpus, unpacked into `target/` once (a stamp file marks a whole unpacking).
fn shared_cases() -> Option<PathBuf> {
    let archive = manifest().join("../shared/realworld-clean.tar.xz");
    if !archive.is_file() {
        return None;
    }
    let into = manifest().join("target/realworld-clean");
    let root = into.join("realworld-clean");
    let stamp = into.join("unpacked");
    if !stamp.is_file() {
        let _ = fs::remove_dir_all(&into);
        fs::create_dir_all(&into).expect("creating target/realworld-clean");
        let status = Command::new("tar")
            .arg("-xJf")
            .arg(&archive)
            .arg("-C")
            .arg(&into)
            .status()
            .expect("running tar to unpack ../shared/realworld-clean.tar.xz");
        assert!(status.success(), "tar -xJf {} failed", archive.display());
        fs::write(&stamp, b"").expect("writing the unpacking's stamp");
    }
    Some(root)
}

/// Every case folder under `root`.
fn cases_in(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(root)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    out.retain(|p| p.join("merged.yaml").is_file());
    out.sort();
    out
}

/// Runs one case: the result must be git's (what was committed) byte for byte, or, for a
/// listed deviation, anything but git's bytes that parses with no repeated key, or a
/// conflict.
fn run(dir: &Path, deviation: Option<&str>) -> Result<(), Failed> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = scratch.path().join("out.yaml");
    let mut cmd = common::Merge3::new()
        .output(&out)
        .command(dir, scratch.path());
    let run = run_guarded(&mut cmd, LIMIT)?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    let merged = fs::read(dir.join("merged.yaml")).map_err(|e| e.to_string())?;
    let result = fs::read(&out).unwrap_or_default();
    match deviation {
        None if run.code == Some(0) && result == merged => Ok(()),
        None => Err(format!(
            "exit {:?}, {}; git's clean result is right here and must be kept byte for byte; \
             stderr:\n{stderr}",
            run.code,
            if result == merged {
                "git's bytes"
            } else {
                "other bytes than git's"
            }
        )
        .into()),
        Some(why) if result == merged => Err(format!(
            "listed as a deviation ({why}), yet the result is git's: take the case off \
             tests/realworld-clean-deviations.md"
        )
        .into()),
        Some(_) if run.code == Some(1) => Ok(()),
        Some(why) if run.code == Some(0) => match common::yaml_documents(&result) {
            Ok(_) => Ok(()),
            Err(e) => Err(format!(
                "listed as a deviation ({why}); the clean result must load without a repeated \
                 key: {e}"
            )
            .into()),
        },
        Some(_) => Err(format!("exit {:?}; stderr:\n{stderr}", run.code).into()),
    }
}

fn main() {
    let deviations = match deviations() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut dirs = cases_in(&manifest().join("tests/realworld-clean"));
    let in_repo = dirs.len();
    let names = |dirs: &[PathBuf]| -> Vec<String> {
        dirs.iter()
            .map(|d| {
                d.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    match shared_cases() {
        Some(root) => {
            let have = names(&dirs);
            let shared: Vec<PathBuf> = cases_in(&root)
                .into_iter()
                .filter(|d| {
                    !have.contains(&d.file_name().unwrap_or_default().to_string_lossy().into())
                })
                .collect();
            note(&format!(
                "realworld-clean: {in_repo} cases in tests/realworld-clean, and {} more from \
                 ../shared/realworld-clean.tar.xz: ran",
                shared.len()
            ));
            dirs.extend(shared);
        }
        None => note(&format!(
            "realworld-clean: {in_repo} cases in tests/realworld-clean; \
             ../shared/realworld-clean.tar.xz: not present, not run"
        )),
    }
    let listed: Vec<String> = deviations.keys().cloned().collect();
    let known = names(&dirs);
    let mut trials = vec![Trial::test("deviations name cases that are present", {
        let unknown: Vec<String> = listed.into_iter().filter(|c| !known.contains(c)).collect();
        let shared = shared_cases().is_some();
        move || match (unknown.is_empty(), shared) {
            (true, _) | (false, false) => Ok(()),
            (false, true) => Err(format!("no such case: {unknown:?}").into()),
        }
    })];
    for dir in dirs {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let deviation = deviations.get(&name).cloned();
        trials.push(Trial::test(name, move || run(&dir, deviation.as_deref())));
    }
    libtest_mimic::run(&Arguments::from_args(), trials).exit();
}
