//! `kmerge solve`: re-merges files git already left in conflict, for a merge, rebase or
//! cherry-pick run before kmerge was installed, or without it.
//!
//! Git keeps the three versions of a conflicted file in the index (stages 1, 2 and 3: base,
//! ours, theirs). Each is read from there and merged exactly as the driver would have merged
//! it — the same labels git would pass, the `conflict-marker-size` attribute, the repository's
//! `merge.conflictStyle` — and the result replaces the work-tree file. A clean result is staged
//! as `git add` would (unless `--no-add`); one with conflicts left keeps kmerge's narrower
//! markers for the user to finish.
//!
//! A file is replaced only while it is exactly what a merge wrote there ([`written`]): one a
//! person has started to resolve is named and left alone, unless `--force`, which first copies
//! it under `.git/kmerge/solve-backup/`.

use std::path::{Component, Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use git2::{AttrCheckFlags, AttrValue, IndexEntry, Oid, Repository};

use super::{one_line, resolved, short, SolveArgs, EXIT_CLEAN, EXIT_CONFLICT};
use crate::atomic_write::write_atomically;
use crate::git;
use crate::git::config::{config_of, conflict_style};
use crate::options::{Labels, MergeOptions};

mod written;

use crate::git::program::Git;
use written::{remerge, remerge_if_as_written, Remerge, Versions};

/// What became of the files asked for.
#[derive(Default)]
struct Tally {
    solved: usize,
    conflicted: usize,
    untouched: usize,
}

pub(super) fn solve(a: SolveArgs) -> anyhow::Result<i32> {
    let repo = Repository::open_from_env()
        .map_err(|e| anyhow!("not inside a git repository ({})", e.message()))?;
    // Git's configuration, `git -c` included, for the attributes lookups too: libgit2's own
    // would miss a `core.attributesFile` given on git's command line.
    let config = config_of(Some(&repo))?;
    repo.set_config(&config)
        .map_err(git::error)
        .context("reading git's configuration")?;
    let workdir = repo
        .workdir()
        .ok_or_else(|| anyhow!("{} is a bare repository", repo.path().display()))?
        .to_path_buf();
    let mut index = repo
        .index()
        .map_err(git::error)
        .context("reading the index")?;
    let conflicts = git::index::conflicts(&index)?;
    let paths: Vec<PathBuf> = if a.files.is_empty() {
        conflicts
            .keys()
            .filter(|path| sent_to_kmerge(&repo, path))
            .cloned()
            .collect()
    } else {
        let cwd = std::env::current_dir().context("reading the current directory")?;
        a.files
            .iter()
            .map(|file| in_repository(&workdir, &cwd, file))
            .collect::<anyhow::Result<_>>()?
    };
    if paths.is_empty() {
        if !a.merge.quiet {
            eprintln!("kmerge: no conflicted YAML file to solve");
        }
        return Ok(EXIT_CLEAN);
    }
    let labels = git_labels(&repo);
    let style = conflict_style(&config);
    let mut git_program = Git::new(&repo, &workdir);
    let mut tally = Tally::default();
    let mut staged = false;
    for path in &paths {
        let shown = path.display();
        let Some(stages) = conflicts.get(path) else {
            if !a.merge.quiet {
                eprintln!("kmerge: {shown}: not in conflict: nothing to solve");
            }
            continue;
        };
        let (Some(base), Some(ours), Some(theirs)) = (&stages.base, &stages.ours, &stages.theirs)
        else {
            let what = match (&stages.base, &stages.ours, &stages.theirs) {
                (None, _, _) => "added on both sides, with no common version",
                (_, None, _) => "deleted on our side",
                _ => "deleted on their side",
            };
            eprintln!("kmerge: {shown}: {what}: not touched, for you to decide");
            tally.untouched += 1;
            continue;
        };
        let file = workdir.join(path);
        let opts = MergeOptions {
            policy: a.merge.on_conflict.into(),
            marker_size: marker_size(&repo, path),
            style,
            labels: labels.clone(),
            max_size: a.merge.max_size,
            file_name: super::files::file_name(path),
            ..MergeOptions::default()
        };
        let blob = |entry: &IndexEntry| git::index::blob(&repo, entry);
        let versions = Versions {
            ids: [base.id, ours.id, theirs.id],
            texts: [blob(base)?, blob(ours)?, blob(theirs)?],
        };
        let current = match std::fs::read(&file) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("reading {}", file.display())),
        };
        let Some(Remerge { outcome, work_tree }) = merge_to_write(
            &repo,
            &mut git_program,
            path,
            &versions,
            current.as_deref(),
            &opts,
            a.force,
        )?
        else {
            tally.untouched += 1;
            continue;
        };
        if current.as_deref() != Some(work_tree.as_slice()) {
            write_atomically(&file, &work_tree)
                .with_context(|| format!("writing {}", file.display()))?;
        }
        for message in &outcome.messages {
            eprintln!("kmerge: {shown}: {}", one_line(message.text()));
        }
        if outcome.conflicted {
            tally.conflicted += 1;
            continue;
        }
        tally.solved += 1;
        let how = match outcome.resolved_hunks {
            0 => "merged cleanly".to_string(),
            n => resolved(n),
        };
        let action = if a.no_add {
            "left unstaged (--no-add)"
        } else {
            index
                .add_path(path)
                .map_err(git::error)
                .with_context(|| format!("staging {shown}"))?;
            staged = true;
            "staged"
        };
        if !a.merge.quiet {
            eprintln!("kmerge: {shown}: {how}; {action}");
        }
    }
    if staged {
        index
            .write()
            .map_err(git::error)
            .context("writing the index")?;
    }
    let all_solved = tally.conflicted == 0 && tally.untouched == 0;
    if !(a.merge.quiet && all_solved) {
        let added = if a.no_add { "" } else { " and staged" };
        eprintln!(
            "kmerge solve: {} solved{added}, {} with conflicts left, {} not touched",
            tally.solved, tally.conflicted, tally.untouched
        );
    }
    Ok(if all_solved {
        EXIT_CLEAN
    } else {
        EXIT_CONFLICT
    })
}

/// Whether a conflicted file is kmerge's to solve when no file is named: `.gitattributes`
/// sends it to kmerge, or it is `*.yaml`/`*.yml` with no merge attribute at all (kmerge not
/// installed yet). A file whose attributes choose another merge is left alone.
fn sent_to_kmerge(repo: &Repository, path: &Path) -> bool {
    let value = repo
        .get_attr_bytes(path, "merge", AttrCheckFlags::FILE_THEN_INDEX)
        .ok()
        .flatten();
    match AttrValue::from_bytes(value) {
        AttrValue::Bytes(b"kmerge") | AttrValue::String("kmerge") => true,
        AttrValue::Unspecified => path
            .extension()
            .is_some_and(|ext| ext == "yaml" || ext == "yml"),
        _ => false,
    }
}

/// Git's `%L`: the `conflict-marker-size` attribute, 7 unless set.
fn marker_size(repo: &Repository, path: &Path) -> usize {
    repo.get_attr(
        path,
        "conflict-marker-size",
        AttrCheckFlags::FILE_THEN_INDEX,
    )
    .ok()
    .flatten()
    .and_then(|v| v.parse::<usize>().ok())
    .filter(|&n| n > 0)
    .unwrap_or(7)
}

/// kmerge's merge of a conflicted file, to write over `current` (the work-tree file, `None`
/// if it is gone), or `None` when `current` is a person's work, which is left as it is and
/// named on stderr. Only what a merge wrote is replaced, unless `force`, which first copies it
/// away ([`back_up`]).
fn merge_to_write(
    repo: &Repository,
    git_program: &mut Git,
    path: &Path,
    versions: &Versions,
    current: Option<&[u8]>,
    opts: &MergeOptions,
    force: bool,
) -> anyhow::Result<Option<Remerge>> {
    let shown = path.display();
    let checked = match current {
        Some(text) => remerge_if_as_written(git_program, path, versions, text, opts)
            .with_context(|| format!("checking whether {shown} is as the merge wrote it")),
        None => Ok(None),
    };
    let why = match (checked, force) {
        (Ok(Some(remerged)), _) => return Ok(Some(remerged)),
        (Ok(None), false) => {
            let (what, hint) = match current {
                Some(_) => ("edited", "--force re-merges it, keeping a copy of yours"),
                None => ("deleted", "--force re-merges it"),
            };
            eprintln!("kmerge: {shown}: {what} since the merge wrote it: not touched ({hint})");
            return Ok(None);
        }
        (Err(e), false) => return Err(e),
        (Ok(None), true) => "edited since the merge wrote it".to_string(),
        // The check failed (git too old for the histogram merge, say): --force needs no
        // verdict, since the copy keeps the file either way.
        (Err(e), true) => format!("not known to be as the merge wrote it ({e:#})"),
    };
    if let Some(text) = current {
        let backup =
            back_up(repo, path, text).with_context(|| format!("keeping a copy of {shown}"))?;
        eprintln!(
            "kmerge: {shown}: {why}: your version is copied to {}",
            backup.display()
        );
    }
    let remerged =
        remerge(git_program, path, versions, opts).with_context(|| format!("merging {shown}"))?;
    Ok(Some(remerged))
}

/// Copies a person's version of `path` to `.git/kmerge/solve-backup/<path>` before `--force`
/// replaces it, in the git folder of this work tree (a linked worktree has its own). An
/// earlier copy that differs is kept: the new one is numbered `<path>.1`, `<path>.2`, ...
fn back_up(repo: &Repository, path: &Path, text: &[u8]) -> anyhow::Result<PathBuf> {
    let root = repo.path().join("kmerge").join("solve-backup");
    let mut backup = root.join(path);
    let mut n = 0;
    while let Ok(earlier) = std::fs::read(&backup) {
        if earlier == text {
            return Ok(backup);
        }
        n += 1;
        let mut numbered = path.as_os_str().to_owned();
        numbered.push(format!(".{n}"));
        backup = root.join(numbered);
    }
    if let Some(folder) = backup.parent() {
        std::fs::create_dir_all(folder)
            .with_context(|| format!("creating {}", folder.display()))?;
    }
    write_atomically(&backup, text).with_context(|| format!("writing {}", backup.display()))?;
    Ok(backup)
}

/// The labels git gives the driver for the operation in progress: `HEAD` for ours; for a
/// merge, the branch at `MERGE_HEAD` (or its commit) and the merge base's short id; for a
/// rebase or cherry-pick, the commit being replayed as `<short id> (<subject>)` and its
/// parent. Git's own defaults name nothing better when no such operation is under way.
fn git_labels(repo: &Repository) -> Labels {
    let mut labels = Labels {
        ours: "HEAD".into(),
        ..Labels::default()
    };
    let head_file = |name: &str| -> Option<Oid> {
        let text = std::fs::read_to_string(repo.path().join(name)).ok()?;
        Oid::from_str(text.lines().next()?.trim()).ok()
    };
    if let Some(theirs) = head_file("MERGE_HEAD") {
        labels.theirs = branch_at(repo, theirs).unwrap_or_else(|| short(repo, theirs));
        if let Some(head) = repo.head().ok().and_then(|h| h.target()) {
            labels.base = match repo.merge_bases(head, theirs) {
                Ok(bases) if bases.len() == 1 => short(repo, bases[0]),
                Ok(bases) if bases.len() > 1 => "merged common ancestors".into(),
                _ => "empty tree".into(),
            };
        }
    } else if let Some(picked) = head_file("REBASE_HEAD").or_else(|| head_file("CHERRY_PICK_HEAD"))
    {
        let subject = repo
            .find_commit(picked)
            .ok()
            .and_then(|c| c.summary().ok().flatten().map(str::to_string));
        let commit = match subject {
            Some(subject) => format!("{} ({subject})", short(repo, picked)),
            None => short(repo, picked),
        };
        labels.base = format!("parent of {commit}");
        labels.theirs = commit;
    }
    labels
}

/// A branch other than the current one whose tip is `id`: local branches first, then
/// remote-tracking ones, then tags, each in name order.
fn branch_at(repo: &Repository, id: Oid) -> Option<String> {
    let current = repo
        .head()
        .ok()
        .and_then(|h| h.name().ok().map(str::to_string));
    let refs = repo.references().ok()?;
    let mut found: Vec<(usize, String)> = refs
        .flatten()
        .filter(|r| r.name().ok() != current.as_deref())
        .filter(|r| r.peel_to_commit().is_ok_and(|c| c.id() == id))
        .filter_map(|r| {
            let name = r.name().ok()?;
            [("refs/heads/", 0), ("refs/remotes/", 1), ("refs/tags/", 2)]
                .into_iter()
                .find_map(|(prefix, rank)| Some((rank, name.strip_prefix(prefix)?.to_string())))
        })
        .collect();
    found.sort();
    found.into_iter().next().map(|(_, name)| name)
}

/// A file named on the command line as a path inside the work tree.
fn in_repository(workdir: &Path, cwd: &Path, file: &Path) -> anyhow::Result<PathBuf> {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let absolute = normalise(&canonical(cwd).join(file));
    let root = canonical(workdir);
    match absolute.strip_prefix(&root) {
        Ok(inside) if inside.as_os_str().is_empty() => {
            bail!("{} is the work tree itself, not a file", file.display())
        }
        Ok(inside) => Ok(inside.to_path_buf()),
        Err(_) => bail!("{} is outside the repository", file.display()),
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system (the file may be gone).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_files_become_paths_in_the_work_tree() {
        let root = Path::new("/nowhere/repo");
        let inside = |cwd: &str, file: &str| in_repository(root, Path::new(cwd), Path::new(file));
        assert_eq!(
            inside("/nowhere/repo/deploy", "web.yaml").unwrap(),
            Path::new("deploy/web.yaml")
        );
        assert_eq!(
            inside("/nowhere/repo/deploy", "../base/./a.yaml").unwrap(),
            Path::new("base/a.yaml")
        );
        assert_eq!(
            inside("/elsewhere", "/nowhere/repo/a.yaml").unwrap(),
            Path::new("a.yaml")
        );
        assert!(inside("/nowhere/repo", "../other/a.yaml").is_err());
        assert!(inside("/nowhere/repo", ".").is_err());
    }
}
