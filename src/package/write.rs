//! Writing a merged package: never half done. Every new file is first written in full to a
//! staging folder inside the destination (same file system, so a rename moves it), and only
//! when all are there does anything in the package change: files are removed, then each new
//! one renamed into place (atomic per file). A failure before that point leaves the package
//! as it was.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::snapshot::{Entry, Snapshot};
use crate::git::FileMode;

/// What turns the files at the destination into the result.
#[derive(Debug, Default)]
pub struct Changes<'a> {
    /// Files to write (new, or with other bytes or mode), with their new entry.
    pub write: Vec<(&'a str, &'a Entry)>,
    /// Files to remove.
    pub remove: Vec<&'a str>,
    /// How many of the writes are new files.
    pub added: usize,
}

impl<'a> Changes<'a> {
    /// From `current` (what the destination holds now) to `result`.
    pub fn between(current: &'a Snapshot, result: &'a BTreeMap<String, Entry>) -> Changes<'a> {
        let mut changes = Changes::default();
        for (path, entry) in result {
            match current.files.get(path) {
                Some(now) if now == entry => {}
                Some(_) => changes.write.push((path, entry)),
                None => {
                    changes.added += 1;
                    changes.write.push((path, entry));
                }
            }
        }
        changes.remove = current
            .files
            .keys()
            .filter(|p| !result.contains_key(*p))
            .map(String::as_str)
            .collect();
        changes
    }

    pub fn is_empty(&self) -> bool {
        self.write.is_empty() && self.remove.is_empty()
    }
}

/// Applies `changes` under `root`, creating `root` if it does not exist.
pub fn apply(root: &Path, changes: &Changes) -> anyhow::Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    preflight(root, changes)?;
    let created_root = !root.exists();
    if created_root {
        fs::create_dir_all(root).with_context(|| format!("creating {}", root.display()))?;
    }
    let staged = match stage(root, changes) {
        Ok(staged) => staged,
        Err(e) => {
            if created_root {
                let _ = fs::remove_dir_all(root);
            }
            return Err(e);
        }
    };
    commit(root, changes, &staged)
}

/// Everything that would stop the writes half way, found before the first one: a folder
/// where a file goes, or a file where a folder must be made (and stays).
fn preflight(root: &Path, changes: &Changes) -> anyhow::Result<()> {
    let removed: BTreeSet<&str> = changes.remove.iter().copied().collect();
    if root.exists() && !root.is_dir() {
        bail!("{} is not a folder", root.display());
    }
    for (path, _) in &changes.write {
        let target = root.join(path);
        if fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
            bail!(
                "{}: a folder stands where the merge writes a file",
                target.display()
            );
        }
        let mut at = 0;
        while let Some(slash) = path[at..].find('/') {
            let folder = &path[..at + slash];
            at += slash + 1;
            let place = root.join(folder);
            match fs::metadata(&place) {
                Ok(m) if m.is_dir() => {}
                Ok(_) if removed.contains(folder) => {}
                Ok(_) => bail!(
                    "{}: a file stands where the merge needs a folder (for {path})",
                    place.display()
                ),
                Err(_) => {}
            }
        }
    }
    Ok(())
}

/// The staging folder and, for each write, the staged file's path.
struct Staged {
    /// Held until the commit is done; dropping it removes the (then empty) folder.
    _dir: tempfile::TempDir,
    files: Vec<PathBuf>,
}

/// Writes every new file in full into a staging folder under `root`, each flushed to disk
/// before any of them replaces a file, so a crash never leaves a renamed file without its
/// bytes. Creating a file and flushing it wait on the file system, not the processor: many
/// run at once, which lets the file system commit them together.
fn stage(root: &Path, changes: &Changes) -> anyhow::Result<Staged> {
    const AT_ONCE: usize = 16;
    let dir = tempfile::Builder::new()
        .prefix(".kmerge-stage-")
        .tempdir_in(root)
        .with_context(|| format!("creating a staging folder in {}", root.display()))?;
    let files: Vec<PathBuf> = (0..changes.write.len())
        .map(|i| dir.path().join(i.to_string()))
        .collect();
    let chunk = files.len().div_ceil(AT_ONCE).max(1);
    let work: Vec<(&(&str, &Entry), &PathBuf)> = changes.write.iter().zip(&files).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = work
            .chunks(chunk)
            .map(|part| {
                let dir = dir.path();
                scope.spawn(move || -> anyhow::Result<()> {
                    for &(&(path, entry), staged) in part {
                        write_staged(staged, entry, &root.join(path)).with_context(|| {
                            format!("writing {path} (staged in {})", dir.display())
                        })?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().try_for_each(|w| {
            w.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    })?;
    Ok(Staged { _dir: dir, files })
}

/// One staged file: the bytes flushed to disk, and the mode (the current file's permissions
/// where it has the same kind, else the usual ones less the umask).
fn write_staged(staged: &Path, entry: &Entry, current: &Path) -> anyhow::Result<()> {
    if entry.mode == FileMode::Symlink {
        return make_link(staged, &entry.bytes);
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if entry.mode == FileMode::Executable {
            0o777
        } else {
            0o666
        });
    }
    let mut file = options.open(staged)?;
    file.write_all(&entry.bytes)?;
    // The current file's permissions carry over, its executable bits following the mode.
    #[cfg(unix)]
    if let Ok(meta) = fs::symlink_metadata(current) {
        use std::os::unix::fs::PermissionsExt;
        let now = meta.permissions().mode() & 0o7777;
        let want = match entry.mode {
            FileMode::Executable if now & 0o111 != 0 => now,
            // Executable where readable, as git checks a file out.
            FileMode::Executable => now | (now & 0o444) >> 2,
            _ => now & !0o111,
        };
        if meta.is_file() {
            file.set_permissions(fs::Permissions::from_mode(want))?;
        }
    }
    #[cfg(not(unix))]
    let _ = current;
    file.sync_all().context("flushing it to disk")?;
    Ok(())
}

#[cfg(unix)]
fn make_link(at: &Path, target: &[u8]) -> anyhow::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(target), at)?;
    Ok(())
}

#[cfg(not(unix))]
fn make_link(_: &Path, _: &[u8]) -> anyhow::Result<()> {
    bail!("symbolic links are not supported on this platform")
}

/// Removes the files the result does not have, then renames each staged file into place.
fn commit(root: &Path, changes: &Changes, staged: &Staged) -> anyhow::Result<()> {
    let mut emptied = BTreeSet::new();
    for path in &changes.remove {
        let target = root.join(path);
        fs::remove_file(&target).with_context(|| format!("removing {}", target.display()))?;
        let mut folder = Path::new(path).parent();
        while let Some(f) = folder.filter(|f| !f.as_os_str().is_empty()) {
            emptied.insert(f.to_path_buf());
            folder = f.parent();
        }
    }
    for ((path, _), file) in changes.write.iter().zip(&staged.files) {
        let target = root.join(path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)
                .with_context(|| format!("creating folder {}", parent.display()))?;
        }
        fs::rename(file, &target).with_context(|| format!("replacing {}", target.display()))?;
    }
    // Folders the removals emptied go too, deepest first; a folder still holding anything
    // (an untracked file of the user's) stays.
    for folder in emptied.iter().rev() {
        let _ = fs::remove_dir(root.join(folder));
    }
    if let Ok(d) = fs::File::open(root) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A unified diff of every file `changes` touches, as `git diff` prints it.
pub fn diff(current: &Snapshot, changes: &Changes) -> String {
    let mut paths: BTreeMap<&str, Option<&Entry>> = BTreeMap::new();
    for &(path, entry) in &changes.write {
        paths.insert(path, Some(entry));
    }
    for &path in &changes.remove {
        paths.insert(path, None);
    }
    let mut out = String::new();
    for (path, new) in paths {
        let old = current.files.get(path);
        out.push_str(&format!("diff --git a/{path} b/{path}\n"));
        match (old, new) {
            (None, Some(n)) => out.push_str(&format!("new file mode {}\n", n.mode.git_octal())),
            (Some(o), None) => out.push_str(&format!("deleted file mode {}\n", o.mode.git_octal())),
            (Some(o), Some(n)) if o.mode != n.mode => out.push_str(&format!(
                "old mode {}\nnew mode {}\n",
                o.mode.git_octal(),
                n.mode.git_octal()
            )),
            _ => {}
        }
        let (a, b) = (
            old.map(|e| e.bytes.as_slice()),
            new.map(|e| e.bytes.as_slice()),
        );
        if a.unwrap_or_default() == b.unwrap_or_default() {
            continue;
        }
        let (from, to) = (
            if a.is_some() {
                format!("a/{path}")
            } else {
                "/dev/null".into()
            },
            if b.is_some() {
                format!("b/{path}")
            } else {
                "/dev/null".into()
            },
        );
        fn text(bytes: Option<&[u8]>) -> Option<&str> {
            std::str::from_utf8(bytes.unwrap_or_default()).ok()
        }
        let binary = [a, b]
            .iter()
            .flatten()
            .any(|bytes| crate::git::line_merge::is_binary(bytes));
        match (text(a), text(b)) {
            (Some(x), Some(y)) if !binary => {
                out.push_str(
                    &similar::TextDiff::from_lines(x, y)
                        .unified_diff()
                        .context_radius(3)
                        .header(&from, &to)
                        .to_string(),
                );
            }
            _ => out.push_str(&format!("Binary files {from} and {to} differ\n")),
        }
    }
    out
}
