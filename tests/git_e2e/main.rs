//! kmerge inside git, end to end: temporary repositories with their own identity, real `git
//! merge`, `git rebase` and `git cherry-pick` runs, asserting files byte for byte and git's
//! exit status. One test binary with a module per surface:
//!
//! - `driver`: the merge driver configured through `.gitattributes`;
//! - `install`: `kmerge install` and `--uninstall`;
//! - `solve`: `kmerge solve` on what git left in conflict without the driver.

#[path = "../common/mod.rs"]
mod common;

mod driver;
mod install;
mod solve;
