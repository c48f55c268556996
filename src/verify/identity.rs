//! What a document is, as the verifier reads it: its resource identity, written here apart
//! from the merge's own on purpose (a reading the two shared could hide a mistake of both).

use std::collections::HashSet;
use std::fmt;

use crate::parse::{Kind, NodeId, Tree};

/// A document's fields that make up its identity: a likeness reading leaves them out, since a
/// rename changes them.
pub(super) const IDENTITY_FIELDS: [&str; 4] =
    ["apiVersion", "kind", "metadata.name", "metadata.namespace"];

/// A resource's identity: API group (the version left out, so `autoscaling/v2beta2` and
/// `autoscaling/v2` are one resource), kind, namespace and name; a missing part is empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Identity {
    group: String,
    kind: String,
    namespace: String,
    name: String,
}

impl Identity {
    /// The identity of a document with a `kind` or a `metadata.name`; `None` for plain YAML
    /// (values files, CI workflows).
    pub fn of(tree: &Tree, root: NodeId) -> Option<Identity> {
        if tree.node(root).kind != Kind::Map {
            return None;
        }
        let kind = tree.get_str(root, "kind");
        let metadata = tree.get(root, "metadata");
        let name = metadata.and_then(|m| tree.get_str(m, "name"));
        if kind.is_none() && name.is_none() {
            return None;
        }
        let api_version = tree.get_str(root, "apiVersion").unwrap_or("");
        let namespace = metadata.and_then(|m| tree.get_str(m, "namespace"));
        Some(Identity {
            group: api_version
                .rsplit_once('/')
                .map_or("", |(g, _)| g)
                .to_string(),
            kind: kind.unwrap_or("").to_string(),
            namespace: namespace.unwrap_or("").to_string(),
            name: name.unwrap_or("").to_string(),
        })
    }

    /// Whether `other` differs from this identity in both namespace and name: no part that
    /// says which resource it is stayed.
    pub fn renamed_whole(&self, other: &Identity) -> bool {
        self.namespace != other.namespace && self.name != other.name
    }

    /// Whether `other` may be this resource renamed: of its kind, named, and with its
    /// namespace or its name kept (see [`Identity::renamed_whole`]). A document left with no
    /// name is as likely another resource.
    pub fn may_be_renamed_to(&self, other: &Identity) -> bool {
        self.kind == other.kind && !other.name.is_empty() && !self.renamed_whole(other)
    }

    /// Whether `other` is this resource left with no name where it stood (its kind and
    /// namespace kept): base's document with its name taken away, as a reading may take it,
    /// or another resource (see [`Identity::may_be_renamed_to`]).
    pub fn unnamed_in_place(&self, other: &Identity) -> bool {
        self.kind == other.kind && self.namespace == other.namespace && other.name.is_empty()
    }

    /// The identity as the list-key table's rules take it.
    pub fn for_list_keys(&self) -> crate::resource::Identity {
        crate::resource::Identity {
            group: self.group.clone(),
            kind: self.kind.clone(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
        }
    }
}

impl fmt::Display for Identity {
    /// `apps/Deployment shop/web`, `ConfigMap settings`: named as conflicts name resources,
    /// by the same writer (a name for people, no part of the reading).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.for_list_keys(), f)
    }
}

/// A document of a file that holds data.
#[derive(Clone, Debug)]
pub(super) struct Document {
    pub root: NodeId,
    pub identity: Option<Identity>,
}

/// The documents of a file that hold data (not empty, not a bare null), in order.
pub(super) fn documents(tree: &Tree) -> Vec<Document> {
    tree.docs
        .iter()
        .filter_map(|d| d.root)
        .filter(|&root| !tree.is_null(root))
        .map(|root| Document {
            root,
            identity: Identity::of(tree, root),
        })
        .collect()
}

/// The identities more than one document of a file claims, as shown.
pub(super) fn repeated(tree: &Tree) -> Vec<String> {
    let mut seen = HashSet::new();
    documents(tree)
        .into_iter()
        .filter_map(|d| d.identity)
        .filter(|id| !seen.insert(id.clone()))
        .map(|id| id.to_string())
        .collect()
}
