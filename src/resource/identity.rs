//! What a resource is called, and the one rule by which a document's identity is read from its
//! `apiVersion`, `kind`, `metadata.name` and `metadata.namespace`. Two sources feed the rule: a
//! parsed tree ([`Identity::of`]) and the strict text scan of [`crate::split`], which names the
//! documents of a file without parsing it; both hand their findings over as [`Fields`], so the
//! two readings cannot drift apart.

use std::fmt;

use crate::parse::{Kind, NodeId, Tree};

/// A resource's identity: API group (not version, so `autoscaling/v2beta2` → `autoscaling/v2`
/// is the same resource), kind, namespace, name. Missing parts are empty.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Identity {
    pub group: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

/// The fields that make up a document's identity, as dotted paths from its root: a likeness
/// reading leaves them out, since a rename changes them.
pub(crate) const FIELDS: [&str; 4] = ["apiVersion", "kind", "metadata.name", "metadata.namespace"];

/// The identity fields of one document as a source read them: each one's text, where the
/// document has it as a value (not null).
#[derive(Clone, Debug, Default)]
pub(crate) struct Fields<S> {
    pub api_version: Option<S>,
    pub kind: Option<S>,
    pub name: Option<S>,
    pub namespace: Option<S>,
}

impl<S: AsRef<str>> Fields<S> {
    /// The identity these fields make: `None` for a document with neither a `kind` nor a
    /// `metadata.name` (plain YAML: values files, CI workflows). The group is what stands
    /// before the last `/` of `apiVersion` (none for the core group's `v1`).
    pub(crate) fn identity(&self) -> Option<Identity> {
        let text = |f: &Option<S>| f.as_ref().map_or("", |s| s.as_ref()).to_string();
        if self.kind.is_none() && self.name.is_none() {
            return None;
        }
        let api_version = self.api_version.as_ref().map_or("", |s| s.as_ref());
        Some(Identity {
            group: api_version
                .rsplit_once('/')
                .map_or("", |(g, _)| g)
                .to_string(),
            kind: text(&self.kind),
            namespace: text(&self.namespace),
            name: text(&self.name),
        })
    }
}

/// The node a parsed document holds at an identity field's dotted `path` (one of
/// [`FIELDS`]), whatever its value.
pub(crate) fn field(tree: &Tree, root: NodeId, path: &str) -> Option<NodeId> {
    path.split('.')
        .try_fold(root, |node, key| tree.get(node, key))
}

impl Identity {
    /// The identity of a parsed document, if it has a `kind` or a `metadata.name`; plain YAML
    /// (values files, CI workflows) has none.
    pub fn of(tree: &Tree, root: NodeId) -> Option<Identity> {
        if tree.node(root).kind != Kind::Map {
            return None;
        }
        let text = |path: &str| {
            field(tree, root, path)
                .filter(|&v| tree.node(v).kind == Kind::Scalar && !tree.is_null(v))
                .map(|v| tree.value(v))
        };
        let [api_version, kind, name, namespace] = FIELDS.map(text);
        Fields {
            api_version,
            kind,
            name,
            namespace,
        }
        .identity()
    }

    /// How many of group, kind, namespace and name differ.
    pub(crate) fn differences(&self, other: &Identity) -> usize {
        [
            self.group != other.group,
            self.kind != other.kind,
            self.namespace != other.namespace,
            self.name != other.name,
        ]
        .iter()
        .filter(|&&d| d)
        .count()
    }

    /// The schema table's name for the kind: `group/Kind`, or `Kind` for the core group.
    pub fn group_kind(&self) -> String {
        if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}/{}", self.group, self.kind)
        }
    }
}

impl fmt::Display for Identity {
    /// `apps/Deployment shop/web`, `ConfigMap settings`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.group_kind())?;
        match (self.namespace.as_str(), self.name.as_str()) {
            ("", "") => Ok(()),
            ("", name) => write!(f, " {name}"),
            (namespace, name) => write!(f, " {namespace}/{name}"),
        }
    }
}
