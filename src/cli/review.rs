//! `kmerge review`: what the driver did in the last merge, rebase or cherry-pick, for a user
//! whose git client or IDE hides what the driver prints.
//!
//! The driver records each file it merged by structure or left in conflict ([`record`]) in
//! `kmerge/log` in the git folder of the work tree it runs in (a linked worktree has its own,
//! as it has its own merges); `kmerge review` prints the last operation of that log, or every
//! operation it keeps with `--all` ([`log`] says what an operation is).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use git2::{Oid, Repository};

use super::{said, short, ReviewArgs, EXIT_CLEAN};
use crate::driver::Outcome;
use crate::options::Labels;

mod log;

use log::{Entry, Status};

/// The log of the git folder `repo` opened.
fn log_path(repo: &Repository) -> PathBuf {
    repo.path().join("kmerge").join("log")
}

/// Records what the driver did with `path` when it merged it by structure (where git's line
/// merge would have stopped, or was wrong) or left it in conflict; a file git's line merge
/// settled alone is not recorded. Outside a repository (the driver run by hand) there is no
/// log to keep. Never fails the merge: a log that cannot be written is one line on stderr.
pub(super) fn record(path: &Path, labels: &Labels, outcome: &Outcome) {
    let status = if outcome.conflicted {
        Status::Conflict
    } else if outcome.fallback.is_none()
        && (outcome.resolved_hunks > 0 || !outcome.messages.is_empty())
    {
        Status::Merged
    } else {
        return;
    };
    let Ok(repo) = Repository::open_from_env() else {
        return;
    };
    let head = repo.head().ok().and_then(|h| h.target());
    let entry = Entry {
        time: log::now(),
        head: head.map_or_else(|| "unborn".to_string(), |id| id.to_string()),
        ours: labels.ours.clone(),
        theirs: labels.theirs.clone(),
        path: path.to_string_lossy().into_owned(),
        status,
        said: said(outcome),
    };
    if let Err(e) = log::append(&log_path(&repo), &entry) {
        eprintln!(
            "kmerge: warning: {}: not recorded for kmerge review: {e:#}",
            path.display()
        );
    }
}

pub(super) fn review(a: ReviewArgs) -> anyhow::Result<i32> {
    let repo = Repository::open_from_env()
        .map_err(|e| anyhow!("not inside a git repository ({})", e.message()))?;
    let log = log_path(&repo);
    let text = match std::fs::read_to_string(&log) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", log.display())),
    };
    let lines: Vec<&str> = text.lines().collect();
    let operations = log::operations(&lines);
    let Some(last) = operations.last() else {
        eprintln!(
            "kmerge review: nothing recorded yet (the driver records each file it merges by \
             structure or leaves in conflict)"
        );
        return Ok(EXIT_CLEAN);
    };
    let shown = if a.all {
        operations.as_slice()
    } else {
        std::slice::from_ref(last)
    };
    let mut out = String::new();
    for range in shown {
        let mut entries = lines[range.clone()]
            .iter()
            .zip(range.clone())
            .map(|(line, i)| {
                Entry::parse(line).with_context(|| format!("{} line {}", log.display(), i + 1))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        // Git merges the files in an order of its own; a list reads best by path.
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&described(&repo, &entries));
    }
    print!("{out}");
    Ok(EXIT_CLEAN)
}

/// One operation as `kmerge review` shows it: a line naming it and counting its files, then
/// each line the driver printed, after what became of the file, the files in `entries`'
/// order.
///
/// ```text
/// feature into HEAD at 1a2b3c4, 2025-06-01T10:20:30Z: 1 merged by structure, 1 left in conflict
///   merged    deploy/api.yaml: merged 1 conflicting hunk by structure
///   conflict  deploy/web.yaml: conflict in apps/Deployment web at spec.replicas: ...
/// ```
fn described(repo: &Repository, entries: &[Entry]) -> String {
    let Some(first) = entries.first() else {
        return String::new();
    };
    let count = |status| entries.iter().filter(|e| e.status == status).count();
    let head = Oid::from_str(&first.head).map_or_else(|_| first.head.clone(), |id| short(repo, id));
    let mut out = format!(
        "{} into {} at {head}, {}: {} merged by structure, {} left in conflict\n",
        first.theirs,
        first.ours,
        first.time,
        count(Status::Merged),
        count(Status::Conflict)
    );
    for entry in entries {
        let status = match entry.status {
            Status::Merged => "merged  ",
            Status::Conflict => "conflict",
        };
        if entry.said.is_empty() {
            out.push_str(&format!("  {status}  {}\n", entry.path));
        }
        for line in &entry.said {
            out.push_str(&format!("  {status}  {}: {line}\n", entry.path));
        }
    }
    out
}
