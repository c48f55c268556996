//! The alignment: which node of base, ours and theirs is the same node. Documents pair by
//! identity (renames by elimination or by place), a node's children by name — map fields by
//! key, list elements by their keys (renames read the same way) — and what is alike is
//! measured in one place. The merge plans from this
//! pairing and package mode pairs its files' documents with it; the verifier reads the three
//! versions its own way on purpose (`verify::pairing`), so a mistake here cannot pass it.

mod children;
mod documents;
mod elements;
mod likeness;
mod renames;

pub(crate) use children::{renamed_by, Aligned, Child, Children, Place};
pub(crate) use documents::{match_documents, match_documents_by_identity, Group};
pub(crate) use elements::{resources, versions, Named, Naming};
pub(crate) use likeness::{likeness, similar};
pub(crate) use renames::{close_identities, pair_renames, Lost, Placed};

/// How the alignment pairs what a side renamed. The rename rules are tried first; where the
/// check rejects what they paired, the merge is tried again reading the renames as deletions
/// and additions, as the check does where a rename is unsure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pairing {
    /// Documents and list elements by the rename rules ([`match_documents`],
    /// [`renames::keyed_renames`]).
    Renames,
    /// Documents by identity alone ([`match_documents_by_identity`]): a renamed document is
    /// one deleted and one added; list elements by the rename rules.
    DocumentsByIdentity,
    /// List elements by key alone: a renamed element is one deleted and one added;
    /// documents by the rename rules.
    ElementsByKey,
    /// As [`Pairing::Renames`], but a document both sides renamed apart is not held in one
    /// conflict with its rival ([`Group::rival`]): one side's version is paired with base's
    /// document, the other's is an addition beside it.
    RenamesWithoutRivals,
}
