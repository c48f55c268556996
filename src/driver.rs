//! The policy that makes kmerge safe to run inside `git merge`: never worse than git, never
//! lose data.
//!
//! In `mark` mode git's line merge runs first; when it is clean (and adds no duplicate that no
//! input had) its bytes are the answer, since git's text carries both sides' edits verbatim.
//! Otherwise the structural merge decides. Anything the structural merge cannot handle — an
//! input it does not take, a bug, a panic — ends in git's line merge with a one-line reason.

use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::Result;

use crate::fallback::{Reason, Side};
use crate::line_merge::{is_binary, line_merge};
pub use crate::merge::Conflict;
use crate::options::{MergeOptions, Mode, Policy};
use crate::parse::Versions;
use crate::text::markers::{has_marker_lines, marked_lines};
use crate::verify::{line_result_is_sound, reads_back};
use crate::{merge, render};

/// The merged bytes, whether conflicts remain in them, and the lines for stderr.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub bytes: Vec<u8>,
    pub conflicted: bool,
    /// Why git's line merge was used instead of the structural merge, if it was.
    pub fallback: Option<Reason>,
    /// One line each: why the line fallback was used, or a conflict and where it is.
    pub messages: Vec<String>,
}

/// Merges three versions of a file. Fails only if git's own line merge fails.
pub fn merge_bytes(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
) -> Result<Outcome> {
    let sides = [
        (Side::Base, base),
        (Side::Ours, ours),
        (Side::Theirs, theirs),
    ];
    if let Some((side, _)) = sides.iter().find(|(_, bytes)| is_binary(bytes)) {
        return fallback(base, ours, theirs, opts, Reason::Binary(*side));
    }
    let (Ok(base_text), Ok(ours_text), Ok(theirs_text)) = (
        std::str::from_utf8(base),
        std::str::from_utf8(ours),
        std::str::from_utf8(theirs),
    ) else {
        return fallback(base, ours, theirs, opts, Reason::NotUtf8);
    };
    if let Some((side, bytes)) = sides.iter().find(|(_, b)| b.len() > opts.max_size) {
        let reason = Reason::TooLarge {
            side: *side,
            bytes: bytes.len(),
            limit: opts.max_size,
        };
        return fallback(base, ours, theirs, opts, reason);
    }
    if let Some((side, _)) = sides.iter().find(|(_, bytes)| has_marker_lines(bytes)) {
        return fallback(base, ours, theirs, opts, Reason::Markers(*side));
    }
    // Parsing can panic on hostile input as much as merging can: both are caught.
    let attempt = catch_unwind(AssertUnwindSafe(|| {
        by_structure(base_text, ours_text, theirs_text, opts)
    }));
    match attempt {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(Attempt::Refused(reason))) => fallback(base, ours, theirs, opts, reason),
        Ok(Err(Attempt::LineMerge(e))) => Err(e),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let reason = Reason::Internal(format!("a panic: {what}"));
            fallback(base, ours, theirs, opts, reason)
        }
    }
}

/// Why a structural attempt ended without an outcome.
enum Attempt {
    /// The structural merge stood aside: git's line merge, with this reason.
    Refused(Reason),
    /// Git's own line merge failed: nothing can merge the file.
    LineMerge(anyhow::Error),
}

impl From<Reason> for Attempt {
    fn from(reason: Reason) -> Attempt {
        Attempt::Refused(reason)
    }
}

/// Git's clean result where it stands, else the structural merge, with git's markers kept
/// where they are much narrower than the structural ones.
fn by_structure(
    base: &str,
    ours: &str,
    theirs: &str,
    opts: &MergeOptions,
) -> Result<Outcome, Attempt> {
    let mut git_conflicts = None;
    if opts.policy == Policy::Mark {
        let line = line_merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), opts)
            .map_err(Attempt::LineMerge)?;
        // Git's clean result stands unless it breaks the YAML or duplicates something.
        let sound = || {
            std::str::from_utf8(&line.bytes)
                .is_ok_and(|t| line_result_is_sound(base, ours, theirs, t))
        };
        if !line.conflicted && sound() {
            return Ok(Outcome {
                bytes: line.bytes,
                conflicted: false,
                fallback: None,
                messages: Vec::new(),
            });
        }
        git_conflicts = line.conflicted.then_some(line);
    }
    let versions = Versions::parse(base, ours, theirs)?;
    let merged = structural(&versions, opts)?;
    let mut messages: Vec<String> = merged
        .conflicts
        .iter()
        .map(|c| format!("conflict in {} at {}: {}", c.resource, c.path, c.what))
        .collect();
    // Never worse than git: where both leave conflicts and git's markers enclose less than
    // half as many lines (a list both sides reshuffled can be narrower line by line than
    // element by element), git's result is kept; otherwise the field-shaped markers are.
    if let Some(line) = git_conflicts.filter(|_| !merged.conflicts.is_empty()) {
        let size = opts.marker_size;
        if 2 * marked_lines(&line.bytes, size) < marked_lines(merged.text.as_bytes(), size) {
            messages.push(
                "git's line merge marks under half the lines the structural merge would: its markers are kept"
                    .into(),
            );
            return Ok(Outcome {
                bytes: line.bytes,
                conflicted: true,
                fallback: None,
                messages,
            });
        }
    }
    Ok(Outcome {
        bytes: merged.text.into_bytes(),
        conflicted: !merged.conflicts.is_empty(),
        fallback: None,
        messages,
    })
}

/// Git's line merge, with the reason the structural merge was not used.
fn fallback(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
    reason: Reason,
) -> Result<Outcome> {
    let line = line_merge(base, ours, theirs, opts)?;
    Ok(Outcome {
        bytes: line.bytes,
        conflicted: line.conflicted,
        messages: vec![format!("line merge used: {reason}")],
        fallback: Some(reason),
    })
}

/// The structural result: the merged text and the conflicts marked in it.
#[derive(Clone, Debug)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Conflict>,
}

/// Plans the merge of the parsed versions and writes it into ours' text.
pub(crate) fn structural(versions: &Versions, opts: &MergeOptions) -> Result<Merged, Reason> {
    let plan = merge::plan(versions, opts)?;
    let text = render::render(versions, &plan, opts)?;
    if plan.conflicts.is_empty() {
        reads_back(&text)?;
    }
    Ok(Merged {
        text,
        conflicts: plan.conflicts,
    })
}

/// merge2: lays the patch `src` onto `dest` (seeds 002/003), by structure: merge3's rules
/// with no base and the patch winning, plus its directives (see [`Mode::TwoWay`]). There is
/// no line merge to fall back on without a base: input it cannot merge is an error.
pub fn merge2(src: &str, dest: &str, opts: &MergeOptions) -> Result<Merged, Reason> {
    let versions = Versions::parse("", dest, src)?;
    let mode = match opts.mode {
        Mode::ThreeWay => Mode::TwoWay { prepend: false },
        two_way => two_way,
    };
    let opts = MergeOptions {
        policy: Policy::Theirs,
        mode,
        ..opts.clone()
    };
    structural(&versions, &opts)
}
