//! Build script, two jobs:
//! - the Kubernetes list-key table (`src/resource/k8s-list-keys.json`) compiled into Rust, so
//!   the binary parses no JSON at run time and a broken table fails the build instead of being
//!   silently ignored;
//! - `KMERGE_VERSION` for `kmerge --version`: the package version followed by the git commit
//!   it was built from when the crate is built inside its own git checkout, so a bug report
//!   names the exact code (`0.1.0 (fc33c04 2025-11-23)`). Outside a checkout (a crate
//!   tarball, no git installed) it is the package version alone.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    list_key_table();
    version();
}

/// `OUT_DIR/list_keys_table.rs`: the Kubernetes list-key table as a sorted static slice.
fn list_key_table() {
    let source = "src/resource/k8s-list-keys.json";
    println!("cargo:rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("reading {source}: {e}"));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{source} is not JSON: {e}"));
    let kinds = json
        .get("kinds")
        .and_then(|k| k.as_object())
        .unwrap_or_else(|| panic!("{source}: no \"kinds\" object"));
    // Sorted by kind, then path, for binary search.
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for (kind, fields) in kinds {
        let fields = fields
            .as_object()
            .unwrap_or_else(|| panic!("{source}: {kind} is not an object"));
        for (path, info) in fields {
            let list_type = info
                .get("list_type")
                .and_then(|t| t.as_str())
                .unwrap_or_else(|| panic!("{source}: {kind} {path} has no list_type"));
            let keys: Vec<&str> = match info.get("keys") {
                None => Vec::new(),
                Some(keys) => keys
                    .as_array()
                    .unwrap_or_else(|| panic!("{source}: {kind} {path}: keys is not a list"))
                    .iter()
                    .map(|k| {
                        k.as_str()
                            .unwrap_or_else(|| panic!("{source}: {kind} {path}: a key is not text"))
                    })
                    .collect(),
            };
            let value = match (list_type, keys.is_empty()) {
                ("map", false) => format!("Entry::Keyed(&{keys:?})"),
                ("map", true) => panic!("{source}: {kind} {path} is a map list without keys"),
                ("set", _) => "Entry::Set".to_string(),
                ("atomic", _) => "Entry::Atomic".to_string(),
                (other, _) => panic!("{source}: {kind} {path}: unknown list_type {other}"),
            };
            rows.push((kind.clone(), path.clone(), value));
        }
    }
    rows.sort();
    let mut out =
        String::from("/// (group/Kind, list path, how its elements are identified), sorted.\n");
    out.push_str("pub(super) static TABLE: &[(&str, &str, Entry)] = &[\n");
    for (kind, path, value) in rows {
        writeln!(out, "    ({kind:?}, {path:?}, {value}),").unwrap_or_default();
    }
    out.push_str("];\n");
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_else(|| panic!("no OUT_DIR")));
    std::fs::write(dir.join("list_keys_table.rs"), out)
        .unwrap_or_else(|e| panic!("writing the list-key table: {e}"));
}

/// `KMERGE_VERSION` for `kmerge --version`.
fn version() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    // Rebuilt when this script changes, and below when HEAD or the branch it names moves;
    // without any such line cargo would rerun it after every edit of the sources.
    println!("cargo:rerun-if-changed=build.rs");
    let commit = own_checkout(&dir).and_then(|()| {
        for watched in watched_git_files(&dir) {
            println!("cargo:rerun-if-changed={}", watched.display());
        }
        git(&dir, &["log", "-1", "--format=%h %cs"])
    });
    match commit {
        Some(commit) => println!("cargo:rustc-env=KMERGE_VERSION={version} ({commit})"),
        None => println!("cargo:rustc-env=KMERGE_VERSION={version}"),
    }
}

/// Output of a git command run in `dir`, trimmed; `None` if git is missing or fails.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// `Some` when `dir` is the top of a git work tree: a crate vendored into another
/// repository must not report that repository's commit.
fn own_checkout(dir: &Path) -> Option<()> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = std::fs::canonicalize(top).ok()? == std::fs::canonicalize(dir).ok()?;
    same.then_some(())
}

/// The files whose change means another commit: HEAD, the branch ref it points to, and
/// packed-refs (where a ref lives after `git gc`). Only existing files are named, since cargo
/// reruns the script on every build for a missing one.
fn watched_git_files(dir: &Path) -> Vec<PathBuf> {
    let mut names = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
        names.push(branch);
    }
    names
        .iter()
        .filter_map(|name| git(dir, &["rev-parse", "--git-path", name]))
        .map(|path| dir.join(path))
        .filter(|path| path.is_file())
        .collect()
}
