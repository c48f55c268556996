//! Package updates: `kmerge merge3` on three directories or git trees (a vendored upstream
//! package, its local copy, the new upstream release).
//!
//! ```text
//!  base, ours, theirs (directories or REV:PATH)       snapshot
//!     ▼   every YAML file parsed, on all cores          pairing
//!  resources paired across files by identity, then by the file merge's rename rules
//!     ▼                                                 layout
//!  each resource placed in its output file (theirs' when upstream moved it, ours' when only
//!  ours did), in the file's final order; the file's three versions assembled from them
//!     ▼   each output file through the file merge       file_merge
//!  driver::merge_bytes: git's line merge, the structural merge, the verifier, the fallbacks
//!     ▼                                                 write
//!  the whole result computed before anything is written, then written file by file
//!  atomically (or shown as a diff)
//! ```
//!
//! One engine: the field rules, conflict policies and verifier are the file merge's, which
//! sees each output file as three texts. Files other than YAML merge at their path as git
//! would merge them.

mod file_merge;
mod layout;
mod pairing;
mod parallel;
mod snapshot;
mod write;

pub use snapshot::{Entry, Snapshot, Source};
pub use write::{apply, diff, Changes};

use std::collections::{BTreeMap, HashMap, HashSet};

use anyhow::bail;

use crate::options::{MergeOptions, Policy};
use crate::outcome::Message;
use crate::resource::Identity;
use crate::text::markers::holds_conflict;

use crate::sides::{OURS, THEIRS};
use file_merge::FileOutcome;
use pairing::{Group, Package, PathId, PathKind};

/// The merged package.
#[derive(Debug)]
pub struct Outcome {
    /// Every file of the result by path.
    pub files: BTreeMap<String, Entry>,
    pub conflicted: bool,
    /// One per conflict (`path: conflict in <resource> at <field>: ...`) and per file the line
    /// merge took (`path: line merge used: <why>`).
    pub messages: Vec<Message>,
    /// The files left with conflicts.
    pub conflicted_files: Vec<String>,
    /// Each resource now in another file than ours had it in: `<resource>: <from> → <to>`.
    pub moves: Vec<String>,
    pub resources: ResourceCounts,
}

/// What the merge did to ours' resources, read from the merged files (ours' side of any
/// conflict), for the summary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResourceCounts {
    /// In the result, not in ours.
    pub added: usize,
    /// In both, with other data.
    pub updated: usize,
    /// In ours, not in the result.
    pub deleted: usize,
    /// In another file than ours had it in.
    pub moved: usize,
}

impl ResourceCounts {
    fn add(&mut self, other: ResourceCounts) {
        self.added += other.added;
        self.updated += other.updated;
        self.deleted += other.deleted;
        self.moved += other.moved;
    }
}

/// When the summary's resource counts are wanted: counting a file taken whole from one side
/// ([`PathKind::Settled`]) means parsing it, which nothing else needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    Always,
    /// Only where the merge leaves a conflict (a quiet run shows the summary then).
    IfConflicted,
}

/// One piece of work: an output file of resources, or a path merged whole.
enum Job {
    Resources { path: PathId, order: Vec<usize> },
    Path(PathId),
}

/// Merges theirs' changes since base into ours, file by file and resource by resource.
/// Nothing is written: the caller writes [`Outcome::files`].
pub fn merge(
    base: &Snapshot,
    ours: &Snapshot,
    theirs: &Snapshot,
    opts: &MergeOptions,
    counting: Counting,
) -> anyhow::Result<Outcome> {
    let pkg = Package::read([base, ours, theirs], opts.policy != Policy::Theirs);
    let (groups, collisions) = pairing::group(&pkg, opts.policy == Policy::Theirs);
    let owners = layout::owners(&groups);
    let mut jobs: Vec<Job> = layout::files(&pkg, &groups, &owners)
        .into_iter()
        .map(|(path, order)| Job::Resources { path, order })
        .collect();
    jobs.extend(
        (0..pkg.paths.len())
            .filter(|&p| pkg.kinds[p] != PathKind::Resources)
            .map(Job::Path),
    );
    let path_of = |job: &Job| match job {
        Job::Resources { path, .. } | Job::Path(path) => *path,
    };
    // In path order, so the messages are too.
    jobs.sort_by_key(path_of);
    let cost = |job: &Job| {
        let p = pkg.paths[path_of(job)];
        pkg.sides
            .iter()
            .filter_map(|s| s.files.get(p))
            .map(|e| e.bytes.len())
            .sum::<usize>()
    };
    let results = parallel::map_parallel(&jobs, cost, |job| match job {
        Job::Resources { path, order } => {
            let collided = collisions.contains(path);
            file_merge::merge_resources(&pkg, &groups, &owners, (*path, collided), order, opts)
        }
        Job::Path(path) => file_merge::merge_path(&pkg, *path, opts),
    });
    let mut outcome = Outcome {
        files: BTreeMap::new(),
        conflicted: false,
        messages: Vec::new(),
        conflicted_files: Vec::new(),
        moves: moves(&pkg, &groups),
        resources: ResourceCounts::default(),
    };
    let mut holders: HashMap<Identity, Vec<&str>> = HashMap::new();
    for (job, result) in jobs.iter().zip(results) {
        let path = pkg.paths[path_of(job)];
        let FileOutcome {
            entry,
            conflicted,
            messages,
            counts,
            identities,
        } = result.map_err(|e| e.context(format!("merging {path}")))?;
        outcome.resources.add(counts);
        // A file merged whole is not read back by its merge: read here, once per file.
        let identities = match (identities, job, &entry) {
            (Some(ids), _, _) => ids,
            (None, Job::Path(p), Some(e))
                if !conflicted && pkg.kinds[*p] == PathKind::WholeYaml =>
            {
                whole_identities(&e.bytes)
                    .into_iter()
                    .collect::<HashSet<_>>()
                    .into_iter()
                    .collect()
            }
            _ => Vec::new(),
        };
        for id in identities {
            holders.entry(id).or_default().push(path);
        }
        outcome.conflicted |= conflicted;
        if conflicted {
            outcome.conflicted_files.push(path.to_string());
            if !messages.iter().any(|m| matches!(m, Message::Conflict(_))) {
                outcome.messages.push(Message::Conflict(format!(
                    "{path}: conflict: marked by git's line merge"
                )));
            }
        }
        let prefix = format!("{path}: ");
        outcome
            .messages
            .extend(messages.into_iter().map(|m| m.prefixed(&prefix)));
        if let Some(entry) = entry {
            outcome.files.insert(path.to_string(), entry);
        }
    }
    check_layout(&outcome.files)?;
    check_leftover_conflicts(base, ours, &outcome.files, opts.marker_size)?;
    // Each resource is placed in one file by construction; a resource the inputs held once
    // and the result holds twice would be a bug, and must not pass as a clean merge.
    let once = unique_identities(&pkg);
    let mut twice: Vec<String> = holders
        .into_iter()
        .filter(|(id, files)| files.len() > 1 && once.contains(id))
        .map(|(id, files)| format!("{}: in {}", id, files.join(" and ")))
        .collect();
    twice.sort();
    for t in twice {
        outcome.conflicted = true;
        outcome.messages.push(Message::Note(format!(
            "{t}: the result holds a resource twice, a bug in kmerge (please report it)"
        )));
    }
    if counting == Counting::Always || outcome.conflicted {
        let settled: Vec<PathId> = (0..pkg.paths.len())
            .filter(|&p| pkg.kinds[p] == PathKind::Settled)
            .collect();
        let cost = |&p: &PathId| {
            pkg.sides
                .iter()
                .filter_map(|s| s.files.get(pkg.paths[p]))
                .map(|e| e.bytes.len())
                .sum::<usize>()
        };
        for counts in
            parallel::map_parallel(&settled, cost, |&p| file_merge::settled_counts(&pkg, p))
        {
            outcome.resources.add(counts);
        }
    }
    Ok(outcome)
}

/// The identities no version holds in more than one file.
/// The identities each version holds in one document at most, over the files the package
/// took apart and the YAML files it merges whole (read here: the pairing does not take them
/// apart). A whole file's resources count too: where the pairing missed a move of one, the
/// result held a resource in a whole file and again in another file, clean, and this check
/// did not see it (adversary packages-theirs-1202-335).
fn unique_identities(pkg: &Package) -> HashSet<Identity> {
    let mut held: HashMap<Identity, [usize; 3]> = pairing::files_holding(pkg)
        .into_iter()
        .map(|(id, n)| (id.clone(), n))
        .collect();
    for (p, path) in pkg.paths.iter().enumerate() {
        if pkg.kinds[p] != PathKind::WholeYaml {
            continue;
        }
        for (side, snapshot) in pkg.sides.iter().enumerate() {
            let Some(entry) = snapshot.files.get(*path) else {
                continue;
            };
            for id in whole_identities(&entry.bytes) {
                held.entry(id).or_default()[side] += 1;
            }
        }
    }
    held.into_iter()
        .filter(|(_, n)| n.iter().all(|&n| n <= 1))
        .map(|(id, _)| id)
        .collect()
}

/// The identities of a YAML file the package merges whole ([`pairing::whole_documents`]),
/// repeats included; none where it is not text or does not parse.
fn whole_identities(bytes: &[u8]) -> Vec<Identity> {
    pairing::whole_documents(bytes)
        .into_iter()
        .flatten()
        .flatten()
        .collect()
}

/// A path cannot be a file and a folder at once: theirs made a folder of a file ours kept,
/// or the other way round. Refused before anything is written.
fn check_layout(files: &BTreeMap<String, Entry>) -> anyhow::Result<()> {
    for path in files.keys() {
        let mut at = 0;
        while let Some(slash) = path[at..].find('/') {
            let folder = &path[..at + slash];
            if files.contains_key(folder) {
                bail!(
                    "the merge would make {folder} a file and a folder (holding {path}): one \
                     side turned the file into a folder and the other changed it; move the file \
                     aside in ours and run the update again"
                );
            }
            at += slash + 1;
        }
    }
    Ok(())
}

/// A conflict an earlier update left unresolved in ours would be merged again, its markers
/// nested inside new ones (the file merge takes git's line merge for a file holding markers):
/// refused, as git refuses to merge over unmerged files, before anything is written. Markers
/// base holds too are content (a package can ship them), and a file the merge leaves as ours
/// has it is no harm.
fn check_leftover_conflicts(
    base: &Snapshot,
    ours: &Snapshot,
    files: &BTreeMap<String, Entry>,
    marker_size: usize,
) -> anyhow::Result<()> {
    let left: Vec<&str> = ours
        .files
        .iter()
        .filter(|(path, entry)| {
            holds_conflict(&entry.bytes, marker_size)
                && files.get(*path) != Some(*entry)
                && !base
                    .files
                    .get(*path)
                    .is_some_and(|b| holds_conflict(&b.bytes, marker_size))
        })
        .map(|(path, _)| path.as_str())
        .collect();
    if !left.is_empty() {
        bail!(
            "ours still holds conflict markers in {}, which this update would merge again: \
             resolve them (or restore the files) and run the update again",
            left.join(", ")
        );
    }
    Ok(())
}

/// The resources that end up in another file than ours has them in.
fn moves(pkg: &Package, groups: &[Group]) -> Vec<String> {
    let mut moves: Vec<String> = groups
        .iter()
        .filter_map(|g| {
            let from = g.locs[OURS]?.path;
            let to = layout::target(g)?;
            (g.locs[THEIRS].is_some() && from != to)
                .then(|| format!("{}: {} → {}", g.label(), pkg.paths[from], pkg.paths[to]))
        })
        .collect();
    moves.sort();
    moves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::git::FileMode;

    fn snapshot(files: &[(&str, &str)]) -> Snapshot {
        let mut s = Snapshot::default();
        for (path, text) in files {
            s.files.insert(
                path.to_string(),
                Entry {
                    bytes: text.as_bytes().to_vec(),
                    mode: FileMode::Regular,
                },
            );
        }
        s
    }

    const WEB: &str = "kind: Deployment\nmetadata:\n  name: web\n";

    /// A resource a side holds in a file merged whole (it repeats another identity) and again
    /// in a file taken apart is held twice by that side: not one the result may hold once
    /// only. Read from the parsed files alone, the whole file's copy went unseen.
    #[test]
    fn a_whole_files_resources_count_as_held() {
        let copies = "kind: Deployment\nmetadata:\n  name: copy\n---\n\
                      kind: Deployment\nmetadata:\n  name: copy\n---\n";
        let base = snapshot(&[("web.yaml", WEB)]);
        let ours_web = format!("{WEB}spec:\n  replicas: 2\n");
        let ours = snapshot(&[
            ("web.yaml", &ours_web),
            ("all.yaml", &format!("{copies}{WEB}")),
        ]);
        // Both sides change web.yaml, so it is not settled (taken whole) but taken apart.
        let theirs = snapshot(&[("web.yaml", &format!("{WEB}  labels: {{a: b}}\n"))]);
        let pkg = Package::read([&base, &ours, &theirs], true);
        let web = crate::resource::Identity {
            group: "".into(),
            kind: "Deployment".into(),
            namespace: "".into(),
            name: "web".into(),
        };
        assert_eq!(
            pkg.kinds[pkg.paths.iter().position(|p| *p == "all.yaml").unwrap()],
            PathKind::WholeYaml
        );
        assert!(!unique_identities(&pkg).contains(&web));
        let alone = snapshot(&[("all.yaml", &format!("{copies}{WEB}"))]);
        let pkg = Package::read([&base, &alone, &theirs], true);
        assert!(unique_identities(&pkg).contains(&web));
    }
}
