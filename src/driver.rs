//! The policy that makes kmerge safe to run inside `git merge`: never worse than git, never
//! lose data.
//!
//! In `mark` mode git's line merge runs first; when it is clean (and adds no duplicate that no
//! input had) its bytes are the answer, since git's text carries both sides' edits verbatim.
//! Otherwise the structural merge decides. Anything the structural merge cannot handle — an
//! error, a panic — ends in git's line merge with a one-line reason.

use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::Result;

use crate::line_merge::{is_binary, line_merge};
use crate::merge::Conflict;
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
    if let Some(side) = [("base", base), ("ours", ours), ("theirs", theirs)]
        .into_iter()
        .find(|(_, bytes)| is_binary(bytes))
    {
        let reason = format!("{} is a binary file: ours is kept as it is", side.0);
        return fallback(base, ours, theirs, opts, reason);
    }
    let texts = (
        std::str::from_utf8(base),
        std::str::from_utf8(ours),
        std::str::from_utf8(theirs),
    );
    let (base_text, ours_text, theirs_text) = match texts {
        (Ok(b), Ok(o), Ok(t)) => (b, o, t),
        _ => {
            return fallback(
                base,
                ours,
                theirs,
                opts,
                "a version is not valid UTF-8 text".into(),
            )
        }
    };
    let largest = base.len().max(ours.len()).max(theirs.len());
    if largest > opts.max_size {
        let reason = format!(
            "a version is {largest} bytes, over the {} byte limit (--max-size)",
            opts.max_size
        );
        return fallback(base, ours, theirs, opts, reason);
    }
    if let Some((side, _)) = [("base", base), ("ours", ours), ("theirs", theirs)]
        .into_iter()
        .find(|(_, bytes)| has_marker_lines(bytes))
    {
        return fallback(
            base,
            ours,
            theirs,
            opts,
            format!("{side} already holds conflict markers"),
        );
    }
    // Parsing can panic on hostile input as much as merging can: both are caught.
    let structural = catch_unwind(AssertUnwindSafe(|| -> Result<Outcome> {
        let mut git_conflicts = None;
        if opts.policy == Policy::Mark {
            let line = line_merge(base, ours, theirs, opts)?;
            // Git's clean result stands unless it breaks the YAML or duplicates something.
            let sound = || {
                std::str::from_utf8(&line.bytes)
                    .is_ok_and(|t| line_result_is_sound(base_text, ours_text, theirs_text, t))
            };
            if !line.conflicted && sound() {
                return Ok(Outcome {
                    bytes: line.bytes,
                    conflicted: false,
                    messages: Vec::new(),
                });
            }
            git_conflicts = line.conflicted.then_some(line);
        }
        let versions = Versions::parse(base_text, ours_text, theirs_text)?;
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
                messages.push("git's line merge marks under half the lines the structural merge would: its markers are kept".into());
                return Ok(Outcome {
                    bytes: line.bytes,
                    conflicted: true,
                    messages,
                });
            }
        }
        Ok(Outcome {
            bytes: merged.text.into_bytes(),
            conflicted: !merged.conflicts.is_empty(),
            messages,
        })
    }));
    match structural {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(e)) => fallback(base, ours, theirs, opts, format!("{e:#}")),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            fallback(base, ours, theirs, opts, format!("internal error: {what}"))
        }
    }
}

/// Git's line merge, with the reason the structural merge was not used.
fn fallback(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
    reason: String,
) -> Result<Outcome> {
    let line = line_merge(base, ours, theirs, opts)?;
    Ok(Outcome {
        bytes: line.bytes,
        conflicted: line.conflicted,
        messages: vec![format!("line merge used: {reason}")],
    })
}

/// The structural result: the merged text and the conflicts marked in it.
#[derive(Clone, Debug)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Conflict>,
}

/// Plans the merge of the parsed versions and writes it into ours' text.
pub(crate) fn structural(versions: &Versions, opts: &MergeOptions) -> Result<Merged> {
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
pub fn merge2(src: &str, dest: &str, opts: &MergeOptions) -> Result<Merged> {
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
