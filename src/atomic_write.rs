//! Writing a result file so that a crash or a full disk never leaves it half written.
//!
//! Git reads `%A` back after the driver exits, and `kmerge merge3 -o` may overwrite a file
//! the user cares about: either must hold the old bytes or the new ones, never a prefix.
//! So the bytes go to a temporary file in the same directory (a rename is atomic only
//! within one file system), are flushed to disk, take the old file's permissions (a driver
//! must not drop an executable bit git recorded), and are renamed over the destination.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Whether a write waits for the disk before it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// The file and the rename are flushed to disk (fsync): a result the user named, which
    /// must survive a power loss once kmerge has exited.
    Synced,
    /// Atomic against a kill, not flushed: git's own temporary `%A`, which git reads back
    /// right away and itself writes without an fsync. The flush would cost a tiny merge
    /// several times its whole run.
    Unsynced,
}

/// Replaces the contents of `path` with `bytes` atomically, keeping the file's permissions,
/// and flushes it to disk.
///
/// If `path` is a symbolic link, the file it points to is replaced and the link kept, as an
/// in-place write would do. On error the destination is untouched and the temporary file is
/// removed.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomically_as(path, bytes, Durability::Synced)
}

/// [`write_atomically`], flushed to disk or not as `durability` says; atomic either way.
pub fn write_atomically_as(
    path: &Path,
    bytes: &[u8],
    durability: Durability,
) -> anyhow::Result<()> {
    // A device or a pipe (`-o /dev/null`, `-o /dev/stdout`) is written to, not replaced: a
    // file renamed over it would stand where the device was (as root, /dev/null for the
    // whole machine). Nothing is there to be left half written.
    //
    // So is a name for one of the process's open files (`/dev/stdout`, `/dev/fd/1`,
    // `/proc/self/fd/1`) where that file is a regular one (`-o /dev/stdout > out.txt`):
    // renamed over, the file would be a new one the shell no longer writes to, and once that
    // left the descriptor pointing at a deleted file, the next run, unable to follow the
    // link, replaced `/dev/stdout` itself. Appended to, as the process's own output is.
    let descriptor = names_a_descriptor(path);
    if descriptor || fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut device = fs::OpenOptions::new()
            .write(true)
            .append(descriptor)
            .open(path)
            .with_context(|| format!("opening {}", path.display()))?;
        return device
            .write_all(bytes)
            .with_context(|| format!("writing {}", path.display()));
    }
    let target = resolve_link(path);
    let dir = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    // A name that says whose it is, should a kill leave it behind: `.web.yaml.kmerge-XXXXXX`.
    let name = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy());
    let prefix = format!(".{name}.kmerge-");
    builder.prefix(&prefix).rand_bytes(6);
    // A new file gets the usual mode (0666 less the umask), not a temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder
        .tempfile_in(&dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    tmp.write_all(bytes)
        .with_context(|| format!("writing a temporary file in {}", dir.display()))?;
    // The old file's mode wins over the temporary file's private 0600.
    if let Ok(meta) = fs::metadata(&target) {
        if meta.is_file() {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .with_context(|| format!("copying the permissions of {}", target.display()))?;
        }
    }
    if durability == Durability::Synced {
        tmp.as_file()
            .sync_all()
            .with_context(|| format!("flushing a temporary file in {}", dir.display()))?;
    }
    tmp.persist(&target)
        .map_err(|e| e.error)
        .with_context(|| format!("replacing {}", target.display()))?;
    if durability == Durability::Synced {
        sync_dir(&dir);
    }
    Ok(())
}

/// Whether `path` names an open file descriptor: it is, or leads by symbolic links to, a
/// path under `/proc/` or `/dev/fd/` (Linux's `/dev/stdout` is a link to `/proc/self/fd/1`).
fn names_a_descriptor(path: &Path) -> bool {
    let mut at = path.to_path_buf();
    // A bound on the links followed: a loop of links names no descriptor.
    for _ in 0..16 {
        if at.starts_with("/proc") || at.starts_with("/dev/fd") {
            return true;
        }
        let Ok(next) = fs::read_link(&at) else {
            return false;
        };
        at = match at.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
    }
    false
}

/// The file a symbolic link points to, so the rename replaces that file and not the link.
/// A dangling or unreadable link is replaced itself.
fn resolve_link(path: &Path) -> PathBuf {
    let is_link = fs::symlink_metadata(path)
        .map(|m| m.file_type().is_symlink())
        .unwrap_or(false);
    if is_link {
        if let Ok(real) = fs::canonicalize(path) {
            return real;
        }
    }
    path.to_path_buf()
}

/// Makes the rename itself durable. Best effort: some file systems refuse to sync a
/// directory, and the data is already safe in the file by then.
fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_pipe_is_written_to_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo made no pipe");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"merged\n").unwrap();
        // Checked first: replaced, the pipe would leave its reader waiting for ever.
        let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "the pipe is still a pipe");
        assert_eq!(reader.join().unwrap(), b"merged\n");
    }

    /// `-o /dev/stdout` with the output going to a file: a link to the process's descriptor
    /// (as `/dev/stdout` is to `/proc/self/fd/1`) is written through and stays a link, and
    /// what the descriptor's file held before stays, the result after it.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_link_to_an_open_descriptor_is_appended_to_not_replaced() {
        use std::os::unix::io::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.txt");
        fs::write(&out, b"before\n").unwrap();
        let open = fs::OpenOptions::new().append(true).open(&out).unwrap();
        let link = dir.path().join("stdout");
        std::os::unix::fs::symlink(format!("/proc/self/fd/{}", open.as_raw_fd()), &link).unwrap();
        write_atomically(&link, b"merged\n").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&out).unwrap(), b"before\nmerged\n");
        drop(open);
    }

    #[test]
    fn replaces_contents() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.yaml");
        fs::write(&path, b"old\n").unwrap();
        write_atomically(&path, b"new\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn an_unsynced_write_replaces_contents_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ours.yaml");
        fs::write(&path, b"old\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        write_atomically_as(&path, b"new\n", Durability::Unsynced).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[test]
    fn creates_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fresh.yaml");
        write_atomically(&path, b"a: 1\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"a: 1\n");
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("script.yaml");
        fs::write(&path, b"old\n").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o751)).unwrap();
        write_atomically(&path, b"new\n").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o751);
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.yaml");
        let link = dir.path().join("link.yaml");
        fs::write(&real, b"old\n").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, b"new\n").unwrap();
        assert!(fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(fs::read(&real).unwrap(), b"new\n");
    }

    #[test]
    fn a_directory_target_fails_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("sub");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), b"kept\n").unwrap();
        let err = write_atomically(&target, b"new\n").unwrap_err();
        assert!(format!("{err:#}").contains("replacing"), "{err:#}");
        assert_eq!(fs::read(target.join("keep")).unwrap(), b"kept\n");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_usual_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.yaml");
        write_atomically(&path, b"a: 1\n").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        // The process umask, as Linux reports it; 022 is the usual one elsewhere.
        let umask = fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("Umask:"))?;
                u32::from_str_radix(line.trim_start_matches("Umask:").trim(), 8).ok()
            })
            .unwrap_or(0o022);
        assert_eq!(mode, 0o666 & !umask, "mode {mode:o}, umask {umask:o}");
    }
}
