//! The git program itself, for what only it does as the user's git does: the histogram line
//! merge `git merge` runs, and the work tree's form of a file (its filters and line endings).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context};
use git2::{Oid, Repository};
use tempfile::TempDir;

use crate::options::{ConflictStyle, MergeOptions};

/// The git program, run on one repository.
pub(crate) struct Git {
    git_dir: PathBuf,
    work_tree: PathBuf,
    /// A temporary object store for the blobs git converts, so that checking a file adds no
    /// object to the user's repository; made on first use.
    scratch: Option<(Repository, TempDir)>,
}

impl Git {
    pub fn new(repo: &Repository, work_tree: &Path) -> Git {
        Git {
            git_dir: repo.path().to_path_buf(),
            work_tree: work_tree.to_path_buf(),
            scratch: None,
        }
    }

    /// `git` on this repository, from the top of its work tree (paths are relative to it).
    fn command(&self) -> Command {
        let mut cmd = Command::new("git");
        cmd.current_dir(&self.work_tree)
            .arg("--git-dir")
            .arg(&self.git_dir)
            .arg("--work-tree")
            .arg(&self.work_tree);
        cmd
    }

    /// Git's line merge of the three blobs with the histogram diff, as `git merge` runs it.
    pub fn histogram_merge(&self, ids: &[Oid; 3], opts: &MergeOptions) -> anyhow::Result<Vec<u8>> {
        let [base, ours, theirs] = ids.map(|id| id.to_string());
        let labels = &opts.labels;
        let mut cmd = self.command();
        cmd.args([
            "merge-file",
            "-p",
            "--object-id",
            "--diff-algorithm=histogram",
        ])
        .arg(format!("--marker-size={}", opts.marker_size))
        // Given explicitly: merge-file would read merge.conflictStyle itself.
        .arg(match opts.style {
            ConflictStyle::Merge => "--no-diff3",
            ConflictStyle::Diff3 => "--diff3",
            ConflictStyle::ZDiff3 => "--zdiff3",
        })
        .args(["-L", &labels.ours, "-L", &labels.base, "-L", &labels.theirs])
        .args([ours, base, theirs]);
        // The exit code is the number of conflicts, up to 127; above is an error.
        run(cmd, |code| (0..=127).contains(&code)).context(
            "running git's histogram merge (`git merge-file --diff-algorithm`, git 2.44 or later)",
        )
    }

    /// `bytes` as git writes them into the work tree at `path`: `git cat-file --filters` on a
    /// blob of them in the scratch store, lent to git as an alternate object directory.
    pub fn work_tree_form(&mut self, path: &Path, bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
        let (store, dir) = match &mut self.scratch {
            Some(scratch) => scratch,
            none => none.insert(scratch_store()?),
        };
        let id = store
            .blob(bytes)
            .map_err(|e| anyhow!("{}", e.message()))
            .context("writing a blob to the temporary object store")?;
        let theirs = std::env::var_os("GIT_ALTERNATE_OBJECT_DIRECTORIES").unwrap_or_default();
        let alternates = std::env::join_paths(
            std::iter::once(dir.path().join("objects")).chain(std::env::split_paths(&theirs)),
        )
        .context("naming the temporary object store to git")?;
        let mut path_arg = OsString::from("--path=");
        path_arg.push(path);
        let mut cmd = self.command();
        cmd.env("GIT_ALTERNATE_OBJECT_DIRECTORIES", alternates)
            .args(["cat-file", "--filters"])
            .arg(path_arg)
            .arg(id.to_string());
        run(cmd, |code| code == 0)
            .context("converting to the work tree's form (git cat-file --filters)")
    }
}

/// An empty bare repository in a temporary folder, whose object store holds the blobs git is
/// asked to convert.
fn scratch_store() -> anyhow::Result<(Repository, TempDir)> {
    let dir = tempfile::tempdir().context("creating a temporary object store")?;
    let store = Repository::init_bare(dir.path())
        .map_err(|e| anyhow!("{}", e.message()))
        .context("creating a temporary object store")?;
    Ok((store, dir))
}

/// Runs `cmd` and returns its stdout, failing with git's message unless `ok` accepts the exit
/// code.
fn run(mut cmd: Command, ok: impl Fn(i32) -> bool) -> anyhow::Result<Vec<u8>> {
    cmd.stdin(Stdio::null());
    let out = cmd.output().context("running git (it must be on PATH)")?;
    match out.status.code() {
        Some(code) if ok(code) => Ok(out.stdout),
        _ => bail!(
            "git failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
}
