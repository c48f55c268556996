//! Git's own line merge, through libgit2's `merge_file` (byte-identical to `git merge-file`).
//!
//! It is both the fallback for anything the structural merge cannot handle and the first
//! attempt in `mark` mode: a merge git gets right must stay right, byte for byte.

use anyhow::{anyhow, Context};

use crate::options::{ConflictStyle, MergeOptions};

/// The result of git's line merge.
#[derive(Clone, Debug)]
pub struct LineMerge {
    pub bytes: Vec<u8>,
    /// Whether git left conflict markers in `bytes`.
    pub conflicted: bool,
}

/// Runs git's 3-way line merge with the labels, marker size and conflict style of `opts`.
pub fn line_merge(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
) -> anyhow::Result<LineMerge> {
    if [base, ours, theirs].into_iter().any(is_binary) {
        // libgit2 answers a binary merge with an empty result; git keeps ours and reports a
        // conflict, and so does kmerge.
        return Ok(LineMerge {
            bytes: ours.to_vec(),
            conflicted: true,
        });
    }
    let mut o = git2::MergeFileOptions::new();
    o.ancestor_label(&opts.labels.base)
        .our_label(&opts.labels.ours)
        .their_label(&opts.labels.theirs)
        .marker_size(u16::try_from(opts.marker_size).unwrap_or(u16::MAX));
    match opts.style {
        ConflictStyle::Merge => {}
        ConflictStyle::Diff3 => {
            o.style_diff3(true);
        }
        ConflictStyle::ZDiff3 => {
            o.style_zdiff3(true);
        }
    }
    let result = merge_file([base, ours, theirs], &mut o)
        .map_err(|e| anyhow!("{e}"))
        .context("git's line merge failed")?;
    let conflicted = !result.is_automergeable();
    let mut bytes = result.content().to_vec();
    if conflicted && ours.is_empty() {
        label_first_opening(&mut bytes, opts.marker_size, &opts.labels.ours);
    }
    Ok(LineMerge { bytes, conflicted })
}

/// libgit2 writes the opening marker of a conflict whose ours side is empty without ours'
/// label (`<<<<<<<` where `git merge-file` writes `<<<<<<< ours`: a file ours deleted that
/// theirs changed, in a package update). With ours empty, nothing precedes that conflict, so
/// its marker is the first line: the label goes there, as git writes it.
fn label_first_opening(bytes: &mut Vec<u8>, size: usize, label: &str) {
    let bare = bytes.len() > size
        && bytes[..size].iter().all(|&b| b == b'<')
        && matches!(bytes[size], b'\n' | b'\r');
    if bare && !label.is_empty() {
        let labelled: Vec<u8> = std::iter::once(b' ').chain(label.bytes()).collect();
        bytes.splice(size..size, labelled);
    }
}

/// Git's line merge of three texts where it is clean, each hunk both sides changed taken
/// from ours (git's `--ours`): `None` where libgit2 fails. For reading a sequence as git
/// would merge it, one element a line.
pub fn favouring_ours(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Vec<u8>> {
    let mut o = git2::MergeFileOptions::new();
    o.favor(git2::FileFavor::Ours);
    merge_file([base, ours, theirs], &mut o)
        .ok()
        .map(|merged| merged.content().to_vec())
}

/// libgit2's `merge_file` of three texts with options `o`.
fn merge_file(
    [base, ours, theirs]: [&[u8]; 3],
    o: &mut git2::MergeFileOptions,
) -> Result<git2::MergeFileResult, git2::Error> {
    // git2's free `merge_file` does not initialise libgit2 itself; any other entry point does.
    let _ = git2::Config::new();
    let mut ancestor = git2::MergeFileInput::new();
    ancestor.content(base);
    let mut our = git2::MergeFileInput::new();
    our.content(ours);
    let mut their = git2::MergeFileInput::new();
    their.content(theirs);
    git2::merge_file(&ancestor, &our, &their, Some(o))
}

/// Git's test for a binary file: a NUL byte among the first 8000.
pub fn is_binary(bytes: &[u8]) -> bool {
    bytes[..bytes.len().min(8000)].contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conflict_against_an_empty_ours_carries_ours_label_as_git_writes_it() {
        let opts = MergeOptions::default();
        let merged = line_merge(b"x\n", b"", b"y\n", &opts).expect("merge");
        assert!(merged.conflicted);
        assert_eq!(
            String::from_utf8_lossy(&merged.bytes),
            "<<<<<<< ours\n=======\ny\n>>>>>>> theirs\n"
        );
    }
}
