//! Trees and blobs of git named by `REV:PATH`, read from the repository's objects (no
//! checkout): a package version or one file from any commit.

use std::fs;

use anyhow::{anyhow, bail, Context};

/// What git records of a file besides its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileMode {
    Regular,
    Executable,
    /// A symbolic link; its bytes are the path it points to.
    Symlink,
}

impl FileMode {
    /// Git's octal mode, as `git diff` prints it.
    pub fn git_octal(self) -> &'static str {
        match self {
            FileMode::Regular => "100644",
            FileMode::Executable => "100755",
            FileMode::Symlink => "120000",
        }
    }
}

/// What a `REV:PATH` names.
pub(crate) enum Object {
    /// One file's bytes.
    Blob(Vec<u8>),
    /// Every file below a folder, in git's walk order.
    Tree(Vec<TreeFile>),
}

/// One file of a tree: its path below the tree, `/`-separated.
pub(crate) struct TreeFile {
    pub path: String,
    pub mode: FileMode,
    pub bytes: Vec<u8>,
}

/// `REV:PATH` read through git2 from the repository of the current directory (or the one
/// `GIT_DIR` names). `REV:./PATH` is relative to the current directory, as in git.
pub(crate) fn read(spec: &str) -> anyhow::Result<Object> {
    let repo = git2::Repository::open_from_env()
        .map_err(|e| anyhow!("no git repository here: {}", e.message()))?;
    let spec_here = relative_to_cwd(&repo, spec)?;
    let object = repo
        .revparse_single(&spec_here)
        .map_err(|e| anyhow!("{}", e.message()))?;
    match object.kind() {
        Some(git2::ObjectType::Blob) => {
            let blob = object
                .peel_to_blob()
                .map_err(|e| anyhow!("{}", e.message()))?;
            Ok(Object::Blob(blob.content().to_vec()))
        }
        _ => {
            let tree = object
                .peel_to_tree()
                .map_err(|e| anyhow!("{}", e.message()))?;
            Ok(Object::Tree(files_of(&repo, &tree)?))
        }
    }
}

/// Every file of a git tree, read from the repository's objects.
fn files_of(repo: &git2::Repository, tree: &git2::Tree) -> anyhow::Result<Vec<TreeFile>> {
    let mut files = Vec::new();
    let mut failure = None;
    tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
        let Ok(name) = entry.name() else {
            failure = Some(anyhow!("{root}: a file name that is not UTF-8"));
            return git2::TreeWalkResult::Abort;
        };
        let path = format!("{root}{name}");
        let mode = match entry.filemode() {
            0o040000 => return git2::TreeWalkResult::Ok,
            0o100755 => FileMode::Executable,
            0o120000 => FileMode::Symlink,
            0o160000 => {
                failure = Some(anyhow!("{path} is a submodule: not merged by kmerge"));
                return git2::TreeWalkResult::Abort;
            }
            _ => FileMode::Regular,
        };
        match repo.find_blob(entry.id()) {
            Ok(blob) => {
                files.push(TreeFile {
                    path,
                    mode,
                    bytes: blob.content().to_vec(),
                });
                git2::TreeWalkResult::Ok
            }
            Err(e) => {
                failure = Some(anyhow!("reading {path} from git: {}", e.message()));
                git2::TreeWalkResult::Abort
            }
        }
    })
    .map_err(|e| anyhow!("walking a git tree: {}", e.message()))?;
    match failure {
        Some(e) => Err(e),
        None => Ok(files),
    }
}

/// Git reads `REV:./PATH` and `REV:../PATH` relative to the current directory; libgit2 only
/// knows paths from the top of the work tree, so such a path is rewritten into one.
fn relative_to_cwd(repo: &git2::Repository, spec: &str) -> anyhow::Result<String> {
    let Some((rev, path)) = spec.split_once(':') else {
        return Ok(spec.to_string());
    };
    if !(path == "." || path == ".." || path.starts_with("./") || path.starts_with("../")) {
        return Ok(spec.to_string());
    }
    let workdir = repo
        .workdir()
        .ok_or_else(|| anyhow!("a relative path in {spec} needs a work tree"))?;
    let cwd = std::env::current_dir().context("reading the current folder")?;
    let (workdir, cwd) = (
        fs::canonicalize(workdir).unwrap_or_else(|_| workdir.to_path_buf()),
        fs::canonicalize(&cwd).unwrap_or(cwd),
    );
    let prefix = cwd
        .strip_prefix(&workdir)
        .map_err(|_| anyhow!("the current folder is outside the work tree of {spec}"))?;
    let mut parts: Vec<String> = prefix
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    bail!("{spec} leaves the repository");
                }
            }
            p => parts.push(p.to_string()),
        }
    }
    Ok(format!("{rev}:{}", parts.join("/")))
}
