//! kmerge inside git, end to end: temporary repositories with their own identity, real `git
//! merge`, `git rebase` and `git cherry-pick` runs, asserting files byte for byte and git's
//! exit status. One test binary with a module per surface:
//!
//! - `driver`: the merge driver configured through `.gitattributes`;
//! - `install`: `kmerge install` and `--uninstall`;
//! - `review`: `kmerge review` after merges the driver took part in;
//! - `solve`: `kmerge solve` on what git left in conflict without the driver.

#[path = "../common/mod.rs"]
mod common;

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
