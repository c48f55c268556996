//! The engine: the parsed versions aligned, merge's plan from that alignment rendered into
//! ours' text, then the comment stage's decisions spliced in. Every attempt (the structural
//! one, a template's skeletons, merge2) merges through it.

use std::collections::HashMap;

use crate::align::{self, Pairing};
use crate::comments::{self, Carried, PlannedSide};
use crate::fallback::Reason;
use crate::merge::{self, Conflict, Plan};
use crate::options::{ConflictStyle, MergeOptions, Mode};
use crate::parse::{Parsed, Versions};
use crate::render::{self, Origin};
use crate::text::markers::Markers;
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
    pub(crate) planned_side: Option<PlannedSide>,
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
    merged_as(versions, opts, Pairing::Renames, &[])
}

/// [`planned_and_rendered`] with documents paired by identity alone, no rename paired
/// ([`align::match_documents_by_identity`]): a renamed document is a deletion and an
/// addition. For where the rename rules' pairing gave conflicts the check rejects.
pub(crate) fn planned_by_identity(
    versions: &Versions,
    opts: &MergeOptions,
) -> Result<(Merged, Option<Parsed>), Reason> {
    merged_as(versions, opts, Pairing::DocumentsByIdentity, &[])
}

/// The versions' documents aligned as `pairing` says, then planned with a conflict marked at
/// each of `forced`, rendered and given their comments. Documents the alignment cannot pair
/// (an identity repeated) are a reason to fall back.
pub(crate) fn merged_as(
    versions: &Versions,
    opts: &MergeOptions,
    pairing: Pairing,
    forced: &[(String, String)],
) -> Result<(Merged, Option<Parsed>), Reason> {
    let (base, ours, theirs) = (&versions.base, &versions.ours, &versions.theirs);
    let mut groups = match pairing {
        Pairing::Renames | Pairing::ElementsByKey | Pairing::RenamesWithoutRivals => {
            let patch = matches!(opts.mode, Mode::TwoWay { .. });
            align::match_documents(base, ours, theirs, patch)?
        }
        Pairing::DocumentsByIdentity => align::match_documents_by_identity(base, ours, theirs)?,
    };
    if pairing == Pairing::RenamesWithoutRivals {
        for g in &mut groups {
            g.rival = None;
        }
    }
    let plan = merge::plan(versions, &groups, opts, forced, pairing);
    written(versions, &groups, plan, opts)
}

/// The plan rendered into ours' text and given the comments the comment stage decides, with
/// the result's tree where that stage parsed it. A plan render cannot write is a bug.
///
/// The comment stage reads the result's documents by the alignment the plan was made from:
/// render says which document of ours or theirs wrote each stretch of the result, and that
/// document's group names its partners in the three versions.
fn written(
    versions: &Versions,
    groups: &[align::Group],
    plan: Plan,
    opts: &MergeOptions,
) -> Result<(Merged, Option<Parsed>), Reason> {
    let rendered = render::render(versions, &plan, markers(versions, opts))
        .map_err(|e| Reason::Internal(e.to_string()))?;
    let mut of_ours = HashMap::new();
    let mut of_theirs = HashMap::new();
    for g in groups {
        let partners = [g.base, g.ours, g.theirs];
        if let Some(o) = g.ours {
            of_ours.insert(o.doc, partners);
        }
        if let Some(t) = g.theirs {
            of_theirs.insert(t.doc, partners);
        }
    }
    let partners = |at: usize| match rendered.origin(at)? {
        Origin::Ours(doc) => of_ours.get(&doc).copied(),
        Origin::Theirs(doc) => of_theirs.get(&doc).copied(),
    };
    let Carried {
        text,
        notes,
        tree,
        planned_side,
    } = comments::carried(
        versions,
        &rendered.text,
        &partners,
        !plan.conflicts.is_empty(),
        opts,
    );
    let merged = Merged {
        text,
        conflicts: plan.conflicts,
        notes: [plan.notes, notes].concat(),
        planned_side,
    };
    Ok((merged, tree))
}

/// How render writes a conflict: git's marker size, labels and style (the only options it
/// reads), in ours' line ending.
fn markers<'a>(versions: &'a Versions, opts: &'a MergeOptions) -> Markers<'a> {
    let l = &opts.labels;
    Markers {
        size: opts.marker_size,
        labels: [&l.base, &l.ours, &l.theirs],
        diff3: opts.style != ConflictStyle::Merge,
        eol: versions.ours.eol,
    }
}
