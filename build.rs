//! Build script: `KMERGE_VERSION` for `kmerge --version`, the package version followed by the
//! git commit it was built from when the crate is built inside its own git checkout, so a bug
//! report names the exact code (`0.1.0 (fc33c04 2025-11-23)`). Outside a checkout (a crate
//! tarball, no git installed) it is the package version alone.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
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
