//! Everything that shapes a merge besides the three texts: the conflict policy, git's marker
//! size, conflict style and labels, the merge mode, and the limits that bound the structural
//! merge on hostile input (the size limit, the node budget). Every stage reads them; none
//! changes them, and the parser depends on nothing above this.

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
    /// A 3-way merge, or merge2: a patch (theirs) applied onto ours with no base.
    pub mode: Mode,
    /// The largest version (in bytes) merged by structure; a larger one goes to the line
    /// merge, which stays fast on any size. It bounds time and memory on hostile input.
    pub max_size: usize,
    /// The file's name (git's `%P`, or ours' path), for the rules that depend on it: a
    /// `kustomization.yaml` that names no `kind` is a kustomization all the same.
    pub file_name: Option<String>,
}

/// Which merge the rules serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// merge3: theirs' changes since base, merged into ours.
    ThreeWay,
    /// merge2 (seeds 002/003): theirs is a sparse patch laid onto ours; its fields win, its
    /// nulls clear, `$patch` directives delete or replace, and its new list elements go
    /// after ours' (or before them, with `prepend`).
    TwoWay { prepend: bool },
}

/// 32 MiB: several times the largest real manifest bundles, a few seconds of parsing.
pub const DEFAULT_MAX_SIZE: usize = 32 << 20;

/// The most nodes one parsed tree may hold: about 250 MB of tree. Real manifests of tens of
/// megabytes stay under it; a file of millions of one-line documents does not, and goes to
/// the line merge instead of exhausting memory.
pub const MAX_NODES: usize = 2_000_000;

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            policy: Policy::Mark,
            marker_size: 7,
            style: ConflictStyle::Merge,
            labels: Labels::default(),
            mode: Mode::ThreeWay,
            max_size: DEFAULT_MAX_SIZE,
            file_name: None,
        }
    }
}
