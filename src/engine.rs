//! The engine: merge's plan for the parsed versions, rendered into ours' text. Every attempt
//! (the structural one, a template's skeletons, merge2) merges through it.

use crate::fallback::Reason;
use crate::merge::{self, Conflict};
use crate::options::MergeOptions;
use crate::parse::{Parsed, Versions};
use crate::render;
use crate::verify::reads_back;

/// The structural result: the merged text and the conflicts marked in it.
#[derive(Clone, Debug)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Conflict>,
    /// What the user should know about the result, one line each (theirs' comment edits
    /// that overlapped ours' and were not taken).
    pub notes: Vec<String>,
    /// Ours' side of a conflicted result before the comment pass edited it, where it did:
    /// the check of the conflict's sides holds ours' side to it ([`crate::verify::sides_hold`]).
    pub(crate) planned_side: Option<render::PlannedSide>,
}

/// Plans the merge of the parsed versions and writes it into ours' text.
pub(crate) fn merged(versions: &Versions, opts: &MergeOptions) -> Result<Merged, Reason> {
    let (merged, tree) = planned_and_rendered(versions, opts)?;
    if merged.conflicts.is_empty() {
        reads_back(&merged.text, tree)?;
    }
    Ok(merged)
}

/// [`merged`] without reading a clean result back: for a caller that parses it itself.
pub(crate) fn planned_and_rendered(
    versions: &Versions,
    opts: &MergeOptions,
) -> Result<(Merged, Option<Parsed>), Reason> {
    let plan = merge::plan(versions, opts)?;
    let rendered = render::render(versions, &plan, opts)?;
    let merged = Merged {
        text: rendered.text,
        conflicts: plan.conflicts,
        notes: [plan.notes, rendered.notes].concat(),
        planned_side: rendered.planned_side,
    };
    Ok((merged, rendered.tree))
}

/// [`planned_and_rendered`] with a conflict marked at each of `forced`.
pub(crate) fn planned_with_conflicts_at(
    versions: &Versions,
    opts: &MergeOptions,
    forced: &[(String, String)],
) -> Result<Merged, Reason> {
    let plan = merge::plan_with_conflicts_at(versions, opts, forced)?;
    let rendered = render::render(versions, &plan, opts)?;
    Ok(Merged {
        text: rendered.text,
        conflicts: plan.conflicts,
        notes: [plan.notes, rendered.notes].concat(),
        planned_side: rendered.planned_side,
    })
}
