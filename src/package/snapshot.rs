//! A package version as a set of files: read from a directory or from a git tree (`REV:PATH`),
//! with each file's bytes and mode, so the merge sees the three versions alike whatever they
//! came from.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

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

/// One file of a package version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub bytes: Vec<u8>,
    pub mode: FileMode,
}

/// The files of a package version by path relative to its root, `/`-separated.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub files: BTreeMap<String, Entry>,
}

impl Snapshot {
    /// Every file under `root`, symbolic links as links (never followed). A `.git` folder or
    /// file is not part of a package, nor is a temporary file a killed kmerge left behind.
    pub fn from_dir(root: &Path) -> anyhow::Result<Snapshot> {
        let mut snapshot = Snapshot::default();
        let mut stack = vec![(root.to_path_buf(), String::new())];
        while let Some((dir, prefix)) = stack.pop() {
            let entries =
                fs::read_dir(&dir).with_context(|| format!("reading folder {}", dir.display()))?;
            for entry in entries {
                let entry = entry.with_context(|| format!("reading folder {}", dir.display()))?;
                let path = entry.path();
                let name = entry.file_name();
                let name = name
                    .to_str()
                    .ok_or_else(|| anyhow!("{} is not a UTF-8 file name", path.display()))?;
                if name == ".git" || is_leftover(name) {
                    continue;
                }
                let rel = format!("{prefix}{name}");
                let meta = fs::symlink_metadata(&path)
                    .with_context(|| format!("reading {}", path.display()))?;
                let kind = meta.file_type();
                if kind.is_dir() {
                    stack.push((path, format!("{rel}/")));
                } else if kind.is_symlink() {
                    let target = fs::read_link(&path)
                        .with_context(|| format!("reading link {}", path.display()))?;
                    let bytes = target
                        .to_str()
                        .ok_or_else(|| anyhow!("link {} is not UTF-8", path.display()))?
                        .as_bytes()
                        .to_vec();
                    snapshot.files.insert(
                        rel,
                        Entry {
                            bytes,
                            mode: FileMode::Symlink,
                        },
                    );
                } else if kind.is_file() {
                    let bytes =
                        fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
                    snapshot.files.insert(
                        rel,
                        Entry {
                            bytes,
                            mode: mode_of(&meta),
                        },
                    );
                } else {
                    bail!("{} is not a file, folder or link", path.display());
                }
            }
        }
        Ok(snapshot)
    }

    /// Every file of a git tree, read from the repository's objects (no checkout).
    pub fn from_git_tree(repo: &git2::Repository, tree: &git2::Tree) -> anyhow::Result<Snapshot> {
        let mut snapshot = Snapshot::default();
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
                    snapshot.files.insert(
                        path,
                        Entry {
                            bytes: blob.content().to_vec(),
                            mode,
                        },
                    );
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
            None => Ok(snapshot),
        }
    }

    /// The total size of the files, for messages.
    pub fn bytes(&self) -> usize {
        self.files.values().map(|e| e.bytes.len()).sum()
    }
}

/// A temporary file or staging folder of an interrupted kmerge: `.name.kmerge-XXXXXX`,
/// `.kmerge-stage-XXXXXX`.
fn is_leftover(name: &str) -> bool {
    name.starts_with('.') && name.contains(".kmerge-") || name.starts_with(".kmerge-stage-")
}

#[cfg(unix)]
fn mode_of(meta: &fs::Metadata) -> FileMode {
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 != 0 {
        FileMode::Executable
    } else {
        FileMode::Regular
    }
}

#[cfg(not(unix))]
fn mode_of(_: &fs::Metadata) -> FileMode {
    FileMode::Regular
}

/// A command-line argument naming a version: a path if one exists by that name, otherwise
/// git's `REV:PATH` in the repository of the current directory.
#[derive(Debug)]
pub enum Source {
    File(PathBuf),
    Dir(PathBuf),
    /// A blob of git: one file.
    GitFile {
        spec: String,
        bytes: Vec<u8>,
    },
    /// A tree of git: a package version.
    GitTree {
        spec: String,
        snapshot: Snapshot,
    },
}

impl Source {
    /// Resolves `arg` for the version `role` (base, ours, theirs).
    pub fn resolve(arg: &Path, role: &str) -> anyhow::Result<Source> {
        if let Ok(meta) = fs::metadata(arg) {
            return Ok(if meta.is_dir() {
                Source::Dir(arg.to_path_buf())
            } else {
                Source::File(arg.to_path_buf())
            });
        }
        let spec = arg.to_str().filter(|s| s.contains(':'));
        let Some(spec) = spec else {
            // Not a path and not REV:PATH: the error the file commands have always given.
            let e = fs::metadata(arg)
                .err()
                .map_or_else(|| "not found".to_string(), |e| e.to_string());
            bail!("reading {role} file {}: {e}", arg.display());
        };
        read_git(spec).with_context(|| {
            format!(
                "{role} {spec}: no such file or folder, and not a REV:PATH of the git \
                 repository here"
            )
        })
    }

    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Source::File(p) | Source::Dir(p) => p.display().to_string(),
            Source::GitFile { spec, .. } | Source::GitTree { spec, .. } => spec.clone(),
        }
    }
}

/// `REV:PATH` read through git2 from the repository of the current directory (or the one
/// `GIT_DIR` names). `REV:./PATH` is relative to the current directory, as in git.
fn read_git(spec: &str) -> anyhow::Result<Source> {
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
            Ok(Source::GitFile {
                spec: spec.to_string(),
                bytes: blob.content().to_vec(),
            })
        }
        _ => {
            let tree = object
                .peel_to_tree()
                .map_err(|e| anyhow!("{}", e.message()))?;
            let snapshot = Snapshot::from_git_tree(&repo, &tree)?;
            Ok(Source::GitTree {
                spec: spec.to_string(),
                snapshot,
            })
        }
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
