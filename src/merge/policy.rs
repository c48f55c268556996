//! The conflict policy, decided here and nowhere else.
//!
//! Where ours and theirs both changed the same thing differently (a value, a list's stretch, a
//! field one side deleted and the other changed), the rules ask [`Policy::resolve`] who wins.
//! Theirs mode also reproduces kyaml's own rules, which differ from a file merge in more than
//! who wins a conflict; the rules ask [`Policy::kyaml`] where they do.

use crate::options::Policy;

/// Who wins a dispute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// Both versions stay, between conflict markers.
    Mark,
    /// Theirs' version replaces ours'.
    Theirs,
    /// Ours' version stays.
    Ours,
}

impl Policy {
    /// Who wins where both sides changed the same thing differently.
    pub(crate) fn resolve(self) -> Resolution {
        match self {
            Policy::Mark => Resolution::Mark,
            Policy::Theirs => Resolution::Theirs,
            Policy::Ours => Resolution::Ours,
        }
    }

    /// Whether kyaml's rules apply (theirs mode, what kpt and kustomize do): a null clears the
    /// field, a list without merge keys and a multi-line string changed upstream are taken
    /// whole, and an element ours deleted that upstream changed comes back as upstream's
    /// delta. A file merge (mark and ours modes) keeps what each side wrote and merges lists
    /// and strings element by element and line by line.
    pub(crate) fn kyaml(self) -> bool {
        self == Policy::Theirs
    }
}
