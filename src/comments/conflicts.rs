//! The comment pass around a conflicted result's markers: the fields outside the conflicts
//! get their comments, the lines inside stay each side's own.

use crate::options::Policy;
use crate::parse::Versions;
use crate::text::markers;
use crate::text::splice::{splice, Edit};

use super::bare::all_bare;
use super::{bug, planned, Partners, PlannedSide};

/// Gives the fields outside the conflicts of `marked` (a conflicted result, markers of
/// `size`) the comments [`carry`] would: a comment edit of theirs is not lost because a
/// field elsewhere conflicts. The pass runs on the text of ours' side of every conflict,
/// and only its edits of lines both sides share are kept, where they stand clear of every
/// conflict: the lines inside one are each side's own, comments included. Returns `marked`
/// unchanged where the pass cannot pair the versions, else the text with ours' side as it
/// was before the pass.
pub(super) fn carry_around_conflicts(
    versions: &Versions,
    marked: &str,
    partners: Partners,
    policy: Policy,
    size: usize,
) -> (String, Vec<String>, Option<PlannedSide>) {
    let unchanged = || (marked.to_string(), Vec::new(), None);
    if all_bare(versions, marked) {
        return unchanged();
    }
    let (side, shared) = markers::ours_side(marked, size);
    // An offset of ours' side is the marked text's offset of the same line where the line
    // stands outside every conflict; inside one, the conflict's own (its first marker line).
    let marked_at = |at: usize| match shared.partition_point(|r| r.side.start <= at) {
        0 => 0,
        i => {
            let run = &shared[i - 1];
            run.marked + (at.min(run.side.end) - run.side.start)
        }
    };
    let side_partners = |at: usize| partners(marked_at(at));
    let Some((result, Some((edits, notes)))) = planned(versions, &side, &side_partners, policy)
    else {
        return unchanged();
    };
    // Each edit kept is moved from ours' side to the marked text: it lies inside one run of
    // shared lines, and an insertion stands before one of its lines (at the run's end it
    // could be the head of a conflicted field).
    let mut moved: Vec<Edit> = edits
        .iter()
        .filter_map(|e| {
            let run = &shared[shared
                .partition_point(|r| r.side.start <= e.start)
                .checked_sub(1)?];
            let clear = e.end <= run.side.end
                && (e.start < e.end || e.start < run.side.end || run.side.end == side.len());
            clear.then(|| Edit {
                start: e.start - run.side.start + run.marked,
                end: e.end - run.side.start + run.marked,
                text: e.text.clone(),
            })
        })
        .collect();
    if moved.is_empty() {
        return unchanged();
    }
    let Ok(text) = splice(marked, &mut moved) else {
        return (marked.to_string(), bug(), None);
    };
    let tree = result.detach();
    (text, notes, Some(PlannedSide { text: side, tree }))
}
