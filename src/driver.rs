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
use crate::merge::{line_result_is_sound, MergeOptions, Policy, Versions};

/// The merged bytes, whether conflicts remain in them, and the lines for stderr.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub bytes: Vec<u8>,
    pub conflicted: bool,
    /// One line each: why the line fallback was used, or a conflict and where it is.
    pub messages: Vec<String>,
    /// How many conflicting hunks git's line merge left that the structural merge resolved:
    /// all of them when its result is clean, else 0 (and always 0 where the line merge was
    /// not run first, outside `mark` mode). The command line tells the user so, since git's
    /// own output would not show that kmerge did anything.
    pub resolved_hunks: usize,
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
    if let Some(side) = side_with_markers(base_text, ours_text, theirs_text) {
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
                    resolved_hunks: 0,
                });
            }
            git_conflicts = line.conflicted.then_some(line);
        }
        let merged = Versions::parse(base_text, ours_text, theirs_text)?.merge3(opts)?;
        let mut messages: Vec<String> = merged
            .conflicts
            .iter()
            .map(|c| format!("conflict in {} at {}: {}", c.resource, c.path, c.what))
            .collect();
        // Never worse than git: where both leave conflicts and git's markers enclose less than
        // half as many lines (a list both sides reshuffled can be narrower line by line than
        // element by element), git's result is kept; otherwise the field-shaped markers are.
        let git_hunks = git_conflicts
            .as_ref()
            .map_or(0, |line| conflict_hunks(&line.bytes, opts.marker_size));
        if let Some(line) = git_conflicts.filter(|_| !merged.conflicts.is_empty()) {
            let size = opts.marker_size;
            if 2 * marked_lines(&line.bytes, size) < marked_lines(merged.text.as_bytes(), size) {
                messages.push("git's line merge marks under half the lines the structural merge would: its markers are kept".into());
                return Ok(Outcome {
                    bytes: line.bytes,
                    conflicted: true,
                    messages,
                    resolved_hunks: 0,
                });
            }
        }
        let conflicted = !merged.conflicts.is_empty();
        Ok(Outcome {
            bytes: merged.text.into_bytes(),
            conflicted,
            messages,
            resolved_hunks: if conflicted { 0 } else { git_hunks },
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
        resolved_hunks: 0,
    })
}

/// How many conflicts git's line merge marked in `text`: its `<<<<<<<` lines. No input holds
/// marker lines when this is asked (those go to the fallback first).
fn conflict_hunks(text: &[u8], size: usize) -> usize {
    let open = "<".repeat(size);
    text.split(|&b| b == b'\n')
        .filter(|line| {
            line.strip_prefix(open.as_bytes())
                .is_some_and(|rest| matches!(rest.first(), None | Some(b' ' | b'\r')))
        })
        .count()
}

/// How many lines conflict markers of `size` enclose in `text`, the marker lines included.
fn marked_lines(text: &[u8], size: usize) -> usize {
    let open = "<".repeat(size);
    let close = ">".repeat(size);
    let mut inside = false;
    let mut count = 0;
    for line in text.split(|&b| b == b'\n') {
        if line.starts_with(open.as_bytes()) {
            inside = true;
        }
        if inside {
            count += 1;
        }
        if line.starts_with(close.as_bytes()) {
            inside = false;
        }
    }
    count
}

/// Names the first version holding a line that starts with a conflict marker. Git merges
/// criss-cross ancestors with this same driver, so a base can carry markers; they can even
/// parse as YAML inside a scalar, so they are looked for explicitly.
fn side_with_markers(base: &str, ours: &str, theirs: &str) -> Option<&'static str> {
    let has_markers = |text: &str| {
        text.lines().any(|l| {
            l.starts_with("<<<<<<<") || l.starts_with(">>>>>>>") || l.starts_with("|||||||")
        })
    };
    [("base", base), ("ours", ours), ("theirs", theirs)]
        .into_iter()
        .find(|(_, t)| has_markers(t))
        .map(|(side, _)| side)
}
