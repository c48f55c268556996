//! Documents as resources: what a resource is in one version — its identity, its list keys,
//! the paths that name its fields. Which document of base, ours and theirs is the same
//! resource is the alignment's question (`align`).

mod identity;
mod list_keys;
mod path;

pub use identity::Identity;
pub(crate) use identity::{field, Fields, FIELDS as IDENTITY_FIELDS};

pub(crate) use list_keys::{element_key, group_kind_of, kyaml_element_key, list_kind, ListKind};
pub(crate) use path::Path;

use crate::parse::{NodeId, Tree};

/// A document of one version: its index in the tree's docs and its root node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocRef {
    pub doc: usize,
    pub root: NodeId,
}

/// The non-empty documents of a file with their identities.
pub(crate) fn documents(tree: &Tree) -> Vec<(DocRef, Option<Identity>)> {
    tree.docs
        .iter()
        .enumerate()
        .filter_map(|(i, d)| d.root.map(|root| (DocRef { doc: i, root }, root)))
        .filter(|&(_, root)| !tree.is_null(root))
        .map(|(r, root)| (r, Identity::of(tree, root)))
        .collect()
}

/// Whether two texts' trees hold the same documents, in order, as data: what a pass that
/// edits only comment and blank lines must leave.
pub(crate) fn same_documents(a: &Tree, b: &Tree) -> bool {
    let (x, y) = (documents(a), documents(b));
    x.len() == y.len()
        && x.iter()
            .zip(&y)
            .all(|((m, _), (n, _))| crate::parse::same_data(a, m.root, b, n.root))
}

/// The identities that more than one document of a file claims.
pub fn duplicate_identities(tree: &Tree) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    documents(tree)
        .into_iter()
        .filter_map(|(_, id)| id)
        .filter(|id| !seen.insert(id.clone()))
        .map(|id| id.to_string())
        .collect()
}
