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

use crate::align::{Group, Pairing};
use crate::options::MergeOptions;
use crate::parse::Versions;
use merger::Merger;

pub use plan::Conflict;
pub(crate) use plan::Plan;

/// Plans the merge of theirs' changes since base into ours (merge3), or of theirs laid onto
/// ours as a patch (merge2, [`crate::options::Mode::TwoWay`]), resource by resource as the
/// alignment paired the documents (`groups`), list elements paired as `pairing` says, with a
/// conflict marked at each of `forced` (a resource and a field path both ours and theirs
/// have) whatever the rules say there: where the check of a result found the rules wrong,
/// the user decides.
pub(crate) fn plan(
    versions: &Versions,
    groups: &[Group],
    opts: &MergeOptions,
    forced: &[(String, String)],
    pairing: Pairing,
) -> Plan {
    let mut merger = Merger::new(&versions.base, &versions.ours, &versions.theirs, opts);
    merger.forced = forced;
    merger.pair_renamed_elements = pairing != Pairing::ElementsByKey;
    merger.file_name = versions.file_name.as_deref();
    merger.merge_resources(groups);
    merger.plan
}
