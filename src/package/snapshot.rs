//! A package version as a set of files: read from a directory or from a git tree (`REV:PATH`),
//! with each file's bytes and mode, so the merge sees the three versions alike whatever they
//! came from.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};

use crate::git::tree::{self, Object, TreeFile};
use crate::git::FileMode;

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

    /// Every file of a git tree.
    fn from_git_tree(files: Vec<TreeFile>) -> Snapshot {
        let files = files
            .into_iter()
            .map(|f| {
                let entry = Entry {
                    bytes: f.bytes,
                    mode: f.mode,
                };
                (f.path, entry)
            })
            .collect();
        Snapshot { files }
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

/// `REV:PATH` read from the repository of the current directory: a blob is one file, a
/// tree a package version.
fn read_git(spec: &str) -> anyhow::Result<Source> {
    Ok(match tree::read(spec)? {
        Object::Blob(bytes) => Source::GitFile {
            spec: spec.to_string(),
            bytes,
        },
        Object::Tree(files) => Source::GitTree {
            spec: spec.to_string(),
            snapshot: Snapshot::from_git_tree(files),
        },
    })
}
