//! The 3-way merge rules (seeds 000/004, and merge2's of seeds 002/003) applied to the
//! parsed resources of base, ours and theirs. The result is a [`Plan`]: edits against ours'
//! tree and the conflicts, each with its resource and field path. No text is written here.

pub(crate) mod anchors;
mod fields;
mod key_order;
mod lists;
mod merger;
mod patch;
mod plain_lists;
pub(crate) mod plan;
mod policy;
mod resources;
mod strings;

use crate::fallback::Reason;
use crate::options::{MergeOptions, Mode};
use crate::parse::Versions;
use crate::resource;
use merger::Merger;

pub use plan::Conflict;
pub(crate) use plan::Plan;

/// Plans the merge of theirs' changes since base into ours (merge3), or of theirs laid onto
/// ours as a patch (merge2, [`Mode::TwoWay`]).
///
/// Errors mean "cannot merge this structurally" (duplicate identities): the driver then
/// falls back to the line merge.
pub(crate) fn plan(versions: &Versions, opts: &MergeOptions) -> Result<Plan, Reason> {
    plan_with_conflicts_at(versions, opts, &[])
}

/// [`plan`], with a conflict marked at each of `forced` (a resource and a field path both
/// ours and theirs have) whatever the rules say there: where the check of a result found the
/// rules wrong, the user decides.
pub(crate) fn plan_with_conflicts_at(
    versions: &Versions,
    opts: &MergeOptions,
    forced: &[(String, String)],
) -> Result<Plan, Reason> {
    let patch = matches!(opts.mode, Mode::TwoWay { .. });
    let groups =
        resource::match_documents(&versions.base, &versions.ours, &versions.theirs, patch)?;
    Ok(planned_groups(versions, opts, forced, &groups, true))
}

/// [`plan_with_conflicts_at`] with list elements paired by key alone: an element a side
/// renamed is one deleted and one added. For where the rename rule's pairing gave a result
/// the check (which pairs a renamed element only where that is unambiguous) rejects.
pub(crate) fn plan_elements_by_key(
    versions: &Versions,
    opts: &MergeOptions,
    forced: &[(String, String)],
) -> Result<Plan, Reason> {
    let patch = matches!(opts.mode, Mode::TwoWay { .. });
    let groups =
        resource::match_documents(&versions.base, &versions.ours, &versions.theirs, patch)?;
    Ok(planned_groups(versions, opts, forced, &groups, false))
}

/// [`plan`] with documents paired by identity alone
/// ([`resource::match_documents_by_identity`]): a renamed document is a deletion and an
/// addition. For where the rename rules' pairing gave conflicts the check rejects.
pub(crate) fn plan_by_identity(versions: &Versions, opts: &MergeOptions) -> Result<Plan, Reason> {
    let groups =
        resource::match_documents_by_identity(&versions.base, &versions.ours, &versions.theirs)?;
    Ok(planned_groups(versions, opts, &[], &groups, true))
}

fn planned_groups(
    versions: &Versions,
    opts: &MergeOptions,
    forced: &[(String, String)],
    groups: &[resource::Group],
    pair_renamed_elements: bool,
) -> Plan {
    let mut merger = Merger::new(&versions.base, &versions.ours, &versions.theirs, opts);
    merger.forced = forced;
    merger.pair_renamed_elements = pair_renamed_elements;
    merger.file_name = versions.file_name.as_deref();
    merger.merge_resources(groups);
    merger.plan
}
