//! Everything kmerge asks of git: its line merge (libgit2's `merge_file`, the fallback and
//! the first attempt), its configuration as git itself reads it, the index's conflict stages
//! (`kmerge solve`), trees and blobs named by `REV:PATH` (package updates), and the git
//! program for what only it does. No merge rule lives here; every caller imports its git from
//! this one place.

pub(crate) mod config;
mod config_parameters;
pub(crate) mod index;
pub mod line_merge;
pub(crate) mod program;
pub(crate) mod tree;

pub use tree::FileMode;

/// libgit2's errors carry their class and code in `Display`; the message alone reads better.
pub(crate) fn error(e: git2::Error) -> anyhow::Error {
    anyhow::anyhow!("{}", e.message())
}
