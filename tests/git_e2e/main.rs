//! kmerge inside git, end to end: temporary repositories with their own identity, real `git
//! merge`, `git rebase` and `git cherry-pick` runs, asserting files byte for byte and git's
//! exit status. One test binary with a module per surface:
//!
//! - `driver`: the merge driver configured through `.gitattributes`;
//! - `install`: `kmerge install` and `--uninstall`;
//! - `doctor`: `kmerge doctor` on set-ups that work and ones that do not;
//! - `review`: `kmerge review` after merges the driver took part in;
//! - `solve`: `kmerge solve` on what git left in conflict without the driver.

#[path = "../common/mod.rs"]
mod common;

mod doctor;
mod driver;
mod install;
mod review;
mod solve;

/// The file the install and solve tests merge, and its base version.
pub(crate) const FILE: &str = "deploy/web.yaml";

pub(crate) const BASE: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: web
          image: web:1.0
";

/// The test runner's PATH without any folder that holds a `kmerge` (a developer's
/// `cargo install`ed one, say): what a git started outside the user's shell may have.
#[cfg(unix)]
pub(crate) fn path_without_kmerge() -> std::ffi::OsString {
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(
        std::env::split_paths(&inherited).filter(|dir| !dir.join("kmerge").exists()),
    )
    .expect("PATH's own folders join again")
}
