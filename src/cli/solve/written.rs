//! Whether a conflicted file is still exactly what a merge wrote into the work tree: the only
//! file `kmerge solve` may replace, since any other holds a person's work.
//!
//! A merge leaves one of two texts there, and each is computed and compared byte for byte:
//!
//! - git's own line merge of the three index stages, as `git merge`, `git rebase` or `git
//!   cherry-pick` wrote it: the operation's labels, the repository's conflict style and marker
//!   size, diffed by the histogram algorithm git's merges use or by Myers (`git merge -X
//!   diff-algorithm=myers`, `git merge-file`, kmerge's own fallback), then passed through git's
//!   work-tree conversion (CRLF line endings, `ident`, filter drivers);
//! - kmerge's result for the same stages: a conflict the driver left, or an earlier `kmerge
//!   solve`, so that solving twice is harmless.
//!
//! libgit2 diffs with Myers or patience only, and git2 offers no way to run the work-tree
//! filters; both are asked of the git program itself, which is there wherever a merge left a
//! conflict to solve.

use std::path::Path;

use git2::Oid;

use crate::driver::{merge_bytes, Outcome};
use crate::git::line_merge::{is_binary, line_merge};
use crate::git::program::Git;
use crate::options::{Labels, MergeOptions};
use crate::text::markers::{first_label, Marker};

/// The three versions of a conflicted file, from the index: their ids (for git) and their
/// contents (for kmerge and libgit2).
pub(super) struct Versions {
    /// Base, ours, theirs.
    pub ids: [Oid; 3],
    /// Base, ours, theirs.
    pub texts: [Vec<u8>; 3],
}

/// kmerge's merge of a conflicted file, and its bytes as git would write them into the work
/// tree (so a CRLF work tree gets CRLF, as from the driver).
pub(super) struct Remerge {
    pub outcome: Outcome,
    pub work_tree: Vec<u8>,
}

/// kmerge's merge of the versions with `opts`, in the work tree's form.
pub(super) fn remerge(
    git: &mut Git,
    path: &Path,
    versions: &Versions,
    opts: &MergeOptions,
) -> anyhow::Result<Remerge> {
    let [base, ours, theirs] = &versions.texts;
    let outcome = merge_bytes(base, ours, theirs, opts)?;
    let work_tree = git.work_tree_form(path, &outcome.bytes)?;
    Ok(Remerge { outcome, work_tree })
}

/// kmerge's merge of the versions, if `current` is what a merge wrote from them, else `None`.
///
/// The labels tried first are `opts`' (git's for the operation under way, as kmerge works them
/// out); then those `current`'s own markers carry, since git's label for theirs is whatever
/// the user named (`git merge feature~1`, a full commit id for `git pull`) and cannot always
/// be worked out, and `git checkout -m` recreates a conflict labelled `ours` and `theirs`.
/// Labels read from the file change nothing about the comparison: the whole file must still
/// be the merge of the index's versions byte for byte, and the re-merge then marks its
/// conflicts with those same labels, as the driver would have.
pub(super) fn remerge_if_as_written(
    git: &mut Git,
    path: &Path,
    versions: &Versions,
    current: &[u8],
    opts: &MergeOptions,
) -> anyhow::Result<Option<Remerge>> {
    if let Some(remerged) = as_written(git, path, versions, current, opts)? {
        return Ok(Some(remerged));
    }
    match labels_in(current, opts.marker_size, &opts.labels) {
        Some(labels) if labels != opts.labels => {
            let opts = MergeOptions {
                labels,
                ..opts.clone()
            };
            as_written(git, path, versions, current, &opts)
        }
        _ => Ok(None),
    }
}

/// kmerge's merge of the versions, if `current` is what a merge wrote from them with `opts`'
/// labels, else `None`.
fn as_written(
    git: &mut Git,
    path: &Path,
    versions: &Versions,
    current: &[u8],
    opts: &MergeOptions,
) -> anyhow::Result<Option<Remerge>> {
    let remerged = remerge(git, path, versions, opts)?;
    if remerged.work_tree == current {
        return Ok(Some(remerged));
    }
    let [base, ours, theirs] = &versions.texts;
    let myers = line_merge(base, ours, theirs, opts)?.bytes;
    let mut compared = vec![remerged.outcome.bytes.clone()];
    let mut matches = |text: Vec<u8>, git: &mut Git| -> anyhow::Result<bool> {
        if compared.contains(&text) {
            return Ok(false);
        }
        let same = git.work_tree_form(path, &text)? == current;
        compared.push(text);
        Ok(same)
    };
    if matches(myers, git)? {
        return Ok(Some(remerged));
    }
    // Git merges a binary file by keeping ours, which the line merge above already gives.
    if versions.texts.iter().any(|t| is_binary(t)) {
        return Ok(None);
    }
    let histogram = git.histogram_merge(&versions.ids, opts)?;
    Ok(matches(histogram, git)?.then_some(remerged))
}

/// The labels of the first conflict markers of `size` in `text` (a work-tree file, so a line
/// may end in CRLF); the base label, absent outside diff3 style, is `default`'s.
fn labels_in(text: &[u8], size: usize, default: &Labels) -> Option<Labels> {
    Some(Labels {
        ours: first_label(text, size, Marker::Open)?,
        base: first_label(text, size, Marker::Base).unwrap_or_else(|| default.base.clone()),
        theirs: first_label(text, size, Marker::Close)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_read_from_the_first_markers() {
        let default = Labels::default();
        let text = b"a\r\n<<<<<<< HEAD\r\nb\r\n||||||| parent of 1a2b (x)\r\n=======\r\nc\r\n\
                     >>>>>>> 1a2b (x)\r\n<<<<<<< other\r\n";
        let found = labels_in(text, 7, &default).unwrap();
        assert_eq!(found.ours, "HEAD");
        assert_eq!(found.base, "parent of 1a2b (x)");
        assert_eq!(found.theirs, "1a2b (x)");
        let found = labels_in(b"<<<<<<<<<< a\n=\n>>>>>>>>>> b\n", 10, &default).unwrap();
        assert_eq!((found.ours.as_str(), found.base.as_str()), ("a", "base"));
        assert_eq!(found.theirs, "b");
        assert!(labels_in(b"<<<<<<<< a\n>>>>>>>> b\n", 7, &default).is_none());
        assert!(labels_in(b"a: 1\n", 7, &default).is_none());
    }
}
