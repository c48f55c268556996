//! `kmerge merge3` on folders and git trees: a package update. Reads the three versions,
//! merges them (nothing written yet), reports, then writes the result in place, into `-o`, or
//! shows it as a diff (`--dry-run`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::{one_line, Merge3Args, EXIT_CLEAN, EXIT_CONFLICT};
use crate::options::MergeOptions;
use crate::outcome::Message;
use crate::package::{self, Changes, Counting, Snapshot, Source};

pub(super) fn merge3(
    a: &Merge3Args,
    [base, ours, theirs]: [Source; 3],
    opts: &MergeOptions,
) -> anyhow::Result<i32> {
    let ours_dir = match &ours {
        Source::Dir(p) => Some(p.clone()),
        _ => None,
    };
    // Reading a folder waits on the file system more than the processor: the three are read
    // at once.
    let (base, ours, theirs) = std::thread::scope(|s| {
        let base = s.spawn(|| snapshot(base, "base"));
        let theirs = s.spawn(|| snapshot(theirs, "theirs"));
        let ours = snapshot(ours, "ours");
        let join = |side: std::thread::ScopedJoinHandle<'_, anyhow::Result<Snapshot>>| {
            side.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        (join(base), ours, join(theirs))
    });
    let (base, ours, theirs) = (base?, ours?, theirs?);
    let destination = match (&a.output, &ours_dir) {
        (Some(out), _) => out.clone(),
        (None, Some(dir)) => dir.clone(),
        (None, None) if a.dry_run => PathBuf::new(),
        (None, None) => bail!("--ours names a git tree: give -o DIR for the result"),
    };
    let in_place = ours_dir
        .as_deref()
        .is_some_and(|dir| same_folder(dir, &destination));
    // What the destination holds now: the changes are made against it.
    let elsewhere;
    let current = if in_place || a.output.is_none() {
        &ours
    } else if destination.exists() {
        let now = Snapshot::from_dir(&destination)
            .with_context(|| format!("reading output folder {}", destination.display()))?;
        if !now.files.is_empty() {
            bail!(
                "output folder {} is not empty: give a new or empty folder, or leave -o out to \
                 update --ours in place",
                destination.display()
            );
        }
        elsewhere = now;
        &elsewhere
    } else {
        elsewhere = Snapshot::default();
        &elsewhere
    };
    let quiet = a.merge.quiet;
    let counting = if quiet {
        Counting::IfConflicted
    } else {
        Counting::Always
    };
    let outcome = package::merge(&base, &ours, &theirs, opts, counting).context("merging")?;
    // As for a file: `--quiet` keeps a clean merge silent, and says all of a conflicted one.
    if !quiet || outcome.conflicted {
        for message in &outcome.messages {
            eprintln!("kmerge: {}", one_line(message.text()));
        }
    }
    if !quiet {
        for m in &outcome.moves {
            eprintln!("kmerge: moved {m}");
        }
    }
    let against_ours = Changes::between(&ours, &outcome.files);
    if !quiet || outcome.conflicted {
        eprintln!("kmerge: {}", summary(&outcome, &against_ours));
    }
    let changes = Changes::between(current, &outcome.files);
    if a.dry_run {
        let mut stdout = std::io::stdout().lock();
        stdout
            .write_all(package::diff(current, &changes).as_bytes())
            .and_then(|()| stdout.flush())
            .context("writing the diff to stdout")?;
    } else {
        package::apply(&destination, &changes)
            .with_context(|| format!("writing the result into {}", destination.display()))?;
    }
    Ok(if outcome.conflicted {
        EXIT_CONFLICT
    } else {
        EXIT_CLEAN
    })
}

/// A version as a package: a folder read from disk or a tree read from git.
fn snapshot(source: Source, role: &str) -> anyhow::Result<Snapshot> {
    match source {
        Source::Dir(path) => Snapshot::from_dir(&path)
            .with_context(|| format!("reading {role} folder {}", path.display())),
        Source::GitTree { snapshot, .. } => Ok(snapshot),
        other => bail!(
            "--{role} {} is a file, but --ours is a folder: give three folders (or git trees)",
            other.name()
        ),
    }
}

fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// `merged 79 files: 21 added, 6 removed, 48 changed; resources: 17 added, 59 updated, 2
/// deleted, 5 moved; 1 conflict in 1 file`.
fn summary(outcome: &package::Outcome, changes: &Changes) -> String {
    let r = &outcome.resources;
    let conflicts = outcome
        .messages
        .iter()
        .filter(|m| matches!(m, Message::Conflict(_)))
        .count();
    let files = outcome.conflicted_files.len();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let conflicts = if conflicts == 0 {
        "no conflict".to_string()
    } else {
        format!(
            "{} in {}",
            plural(conflicts, "conflict"),
            plural(files, "file")
        )
    };
    format!(
        "merged {}: {} added, {} removed, {} changed; resources: {} added, {} updated, {} \
         deleted, {} moved; {conflicts}",
        plural(outcome.files.len(), "file"),
        changes.added,
        changes.remove.len(),
        changes.write.len() - changes.added,
        r.added,
        r.updated,
        r.deleted,
        r.moved
    )
}
