//! The three versions every merge carries, and the side a change comes from. Three versions
//! travel as `[T; 3]` indexed by [`BASE`], [`OURS`] and [`THEIRS`], and a message names one
//! as a [`Version`]; a change, a rename or a text taken over is ours' or theirs' ([`Side`]),
//! never base's.

use std::fmt;

/// The index of base's version in a `[T; 3]`.
pub(crate) const BASE: usize = 0;
/// The index of ours' version in a `[T; 3]`.
pub(crate) const OURS: usize = 1;
/// The index of theirs' version in a `[T; 3]`.
pub(crate) const THEIRS: usize = 2;

/// One of the three versions, as messages name it: `base`, `ours`, `theirs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    Base,
    Ours,
    Theirs,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Version::Base => "base",
            Version::Ours => "ours",
            Version::Theirs => "theirs",
        })
    }
}

/// Ours or theirs: whose change, whose text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Ours,
    Theirs,
}

impl Side {
    /// The version's index among base, ours, theirs.
    pub(crate) fn index(self) -> usize {
        match self {
            Side::Ours => OURS,
            Side::Theirs => THEIRS,
        }
    }

    /// Theirs for ours, ours for theirs.
    pub(crate) fn other(self) -> Side {
        match self {
            Side::Ours => Side::Theirs,
            Side::Theirs => Side::Ours,
        }
    }

    /// Ours' or theirs' of the two.
    pub(crate) fn pick<T>(self, ours: T, theirs: T) -> T {
        match self {
            Side::Ours => ours,
            Side::Theirs => theirs,
        }
    }
}

/// The rule git applies before it calls a merge driver, here at every level (a file's
/// documents, a package's files, their modes): where theirs left a thing as base had it, or
/// both sides made it alike, the result is ours'; where ours left it, theirs'. `None` where
/// both changed it differently and it needs a merge.
pub(crate) fn settled<T: PartialEq + ?Sized>(base: &T, ours: &T, theirs: &T) -> Option<Side> {
    if ours == theirs || base == theirs {
        Some(Side::Ours)
    } else if base == ours {
        Some(Side::Theirs)
    } else {
        None
    }
}
