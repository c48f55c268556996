//! The 3-way merge rules (seeds 000/004) applied to the parsed resources of base, ours and
//! theirs, producing ours' text with the merged changes and a list of conflicts.

use anyhow::bail;

/// What to do where ours and theirs both changed the same thing differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Keep both versions between conflict markers (the default).
    Mark,
    /// Take theirs, exactly as kyaml's merge3 does (updated wins).
    Theirs,
    /// Keep ours (local wins).
    Ours,
}

/// Git's `merge.conflictStyle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConflictStyle {
    /// `<<<<<<<` ours `=======` theirs `>>>>>>>`.
    Merge,
    /// Adds the `|||||||` base section.
    Diff3,
    /// diff3 with common lines moved out of the conflict (git's zdiff3); structural
    /// conflicts are already minimal, so only the line fallback treats it differently.
    ZDiff3,
}

/// The labels printed after the conflict markers, as git prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labels {
    pub base: String,
    pub ours: String,
    pub theirs: String,
}

impl Default for Labels {
    fn default() -> Self {
        Labels {
            base: "base".into(),
            ours: "ours".into(),
            theirs: "theirs".into(),
        }
    }
}

/// Everything that shapes a merge besides the three texts.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    pub policy: Policy,
    /// Length of the `<<<<<<<` markers (git's `%L`, default 7).
    pub marker_size: usize,
    /// Git's conflict style: whether markers carry the `|||||||` base section.
    pub style: ConflictStyle,
    pub labels: Labels,
}

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            policy: Policy::Mark,
            marker_size: 7,
            style: ConflictStyle::Merge,
            labels: Labels::default(),
        }
    }
}

/// One field both sides changed differently, for the one-line stderr summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The resource, e.g. `apps/Deployment shop/web`.
    pub resource: String,
    /// The field path, e.g. `spec.template.spec.containers[name=web].image`.
    pub path: String,
    /// What each side did, e.g. `ours changed 3 → 5, theirs changed 3 → 4`.
    pub what: String,
}

/// The structural result: the merged text and the conflicts marked in it.
#[derive(Clone, Debug)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Conflict>,
}

/// Merges theirs' changes since base into ours, by structure.
///
/// Errors mean "cannot merge this structurally" (a parse error, a template, duplicate
/// identities); the driver then falls back to the line merge.
pub fn merge3(
    _base: &str,
    _ours: &str,
    _theirs: &str,
    _opts: &MergeOptions,
) -> anyhow::Result<Merged> {
    bail!("the structural merge is not built yet")
}

/// Whether a clean line merge may be taken as it is: it must still parse, with no duplicate
/// (map key, resource identity, list key) that none of the inputs had — the mark of two
/// insertions git placed apart.
pub fn line_result_is_sound(_base: &str, _ours: &str, _theirs: &str, _merged: &str) -> bool {
    true
}
