//! Which lists are associative, and by which keys: the one home of the list-key rules.
//!
//! In order: a schema written in a comment on the list's key (kpt and kustomize setters write
//! them), the Kubernetes schema for built-in kinds (compiled from `k8s-list-keys.json` by
//! `build.rs`), then the seeds' key rule for every other list (CRDs, plain YAML). Composite
//! keys compare a missing `protocol` as `TCP`, the API's default, so `- containerPort: 80` and
//! `- containerPort: 80\n  protocol: TCP` are the same element.

use std::collections::HashSet;

use crate::parse::{Kind, NodeId, Tree};
use crate::text::line_end;

/// How the elements of a list are identified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ListKind {
    /// Elements are maps identified by these fields (`[containerPort, protocol]`).
    Keyed(Vec<String>),
    /// Elements are scalars identified by their value (`finalizers`).
    Set,
    /// No identity: elements are compared by position and value.
    Plain,
}

/// A row of the compiled schema table.
enum Entry {
    Keyed(&'static [&'static str]),
    Set,
    Atomic,
}

mod table {
    use super::Entry;
    include!(concat!(env!("OUT_DIR"), "/list_keys_table.rs"));
}

/// The seeds' associative keys, in order of preference.
const SEED_KEYS: [&str; 7] = [
    "mountPath",
    "devicePath",
    "ip",
    "type",
    "topologyKey",
    "name",
    "containerPort",
];

/// A kustomization's lists of files and bases, where order carries no meaning: the same entry
/// added by both sides is one entry. (`patches*`, `transformers`, `generators` and
/// `validators` are applied in order: not sets.)
const KUSTOMIZATION_SETS: [&str; 4] = ["resources", "components", "crds", "configurations"];

/// Whether a `group/Kind` is a kustomization (`kustomize.config.k8s.io/Kustomization`, or a
/// `Kustomization` that names no API group).
fn is_kustomization(group_kind: &str) -> bool {
    matches!(
        group_kind,
        "kustomize.config.k8s.io/Kustomization"
            | "kustomize.config.k8s.io/Component"
            | "Kustomization"
    )
}

/// A kustomization's file names: a file so named is a kustomization even when it names no
/// `kind` (kustomize reads it as one).
const KUSTOMIZATION_FILES: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// The `group/Kind` the list rules of a document go by: its identity's, or, for a document
/// that names no kind in a file named like a kustomization (`kustomization.yaml`,
/// `kustomization.yml`, `Kustomization`), `Kustomization`. A kind without a group that the
/// schema table knows only in one group is taken as that group's: a Helm template's
/// `apiVersion: {{ include "x.statefulset.apiVersion" . }}` names no group, yet its
/// `StatefulSet` is `apps/StatefulSet`, whose lists the table keys.
pub(crate) fn group_kind_of(
    identity: Option<&super::Identity>,
    file_name: Option<&str>,
) -> Option<String> {
    let kindless = identity.is_none_or(|id| id.kind.is_empty());
    if kindless && file_name.is_some_and(|f| KUSTOMIZATION_FILES.contains(&f)) {
        return Some("Kustomization".into());
    }
    identity.map(|id| {
        let named = id.group_kind();
        if !id.group.is_empty() || kindless || in_table(&named) {
            return named;
        }
        only_group_of(&id.kind).unwrap_or(named)
    })
}

/// Whether the schema table has lists of `group_kind`.
fn in_table(group_kind: &str) -> bool {
    let i = table::TABLE.partition_point(|&(kind, _, _)| kind < group_kind);
    table::TABLE
        .get(i)
        .is_some_and(|&(kind, _, _)| kind == group_kind)
}

/// The table's `group/Kind` for a bare `Kind`, where exactly one group has it.
fn only_group_of(kind: &str) -> Option<String> {
    let mut found: Option<&str> = None;
    for &(group_kind, _, _) in table::TABLE {
        if group_kind.rsplit_once('/').is_some_and(|(_, k)| k == kind) {
            match found {
                Some(f) if f != group_kind => return None,
                _ => found = Some(group_kind),
            }
        }
    }
    found.map(str::to_string)
}

/// The schema table's answer for the list at `path` (`spec.template.spec.containers[].ports`)
/// of a `group_kind` (`apps/Deployment`), if the table knows it.
fn schema(group_kind: &str, path: &str) -> Option<ListKind> {
    let i = table::TABLE
        .binary_search_by(|&(kind, p, _)| (kind, p).cmp(&(group_kind, path)))
        .ok()?;
    Some(match table::TABLE[i].2 {
        Entry::Keyed(keys) => ListKind::Keyed(keys.iter().map(|k| k.to_string()).collect()),
        Entry::Set => ListKind::Set,
        Entry::Atomic => ListKind::Plain,
    })
}

/// How the elements of the list at `path` are identified, given its versions (`lists`: each
/// version's node there, if it is a sequence): a schema comment, the schema table for
/// built-in kinds, else the first seed key every version's elements carry uniquely.
pub(crate) fn list_kind(
    group_kind: Option<&str>,
    path: &str,
    lists: &[(&Tree, NodeId)],
) -> ListKind {
    let lists: Vec<&(&Tree, NodeId)> = lists
        .iter()
        .filter(|(tree, n)| tree.node(*n).kind == Kind::Seq)
        .collect();
    if let Some(kind) = lists
        .iter()
        .find_map(|&&(tree, list)| schema_comment(tree, list))
    {
        return kind;
    }
    if let Some(known) = group_kind.and_then(|gk| schema(gk, path)) {
        return known;
    }
    if group_kind.is_some_and(is_kustomization) && KUSTOMIZATION_SETS.contains(&path) {
        return ListKind::Set;
    }
    SEED_KEYS
        .iter()
        .find(|k| {
            lists
                .iter()
                .all(|&&(tree, list)| unique_field(tree, list, k))
        })
        .map_or(ListKind::Plain, |k| ListKind::Keyed(vec![k.to_string()]))
}

/// An element's identity under `keys`: the pairing name (values joined by NUL) and how paths
/// show it (`name=web`, `containerPort=80,protocol=UDP`). `None` when the element is not a map
/// or lacks its first key: such a list cannot be paired by key.
pub(crate) fn element_key(
    tree: &Tree,
    element: NodeId,
    keys: &[String],
) -> Option<(String, String)> {
    let values = key_values(tree, element, keys)?;
    if values.first().is_none_or(|v| v.is_empty()) {
        return None;
    }
    Some(named(keys, values))
}

/// An element's identity as kyaml reads it (the `--on-conflict theirs`/`ours` rules): a key
/// field missing or empty gives `""` (`../shared/notes/kyaml-semantics.md` §2.5), so an
/// element without its key is one element, not a reason to take the list whole. `None` when
/// the element is not a map.
pub(crate) fn kyaml_element_key(
    tree: &Tree,
    element: NodeId,
    keys: &[String],
) -> Option<(String, String)> {
    Some(named(keys, key_values(tree, element, keys)?))
}

/// The values of an element's key fields (`""` where one is missing); `None` when the element
/// is not a map.
fn key_values(tree: &Tree, element: NodeId, keys: &[String]) -> Option<Vec<String>> {
    if tree.node(element).kind != Kind::Map {
        return None;
    }
    let values = keys
        .iter()
        .map(|k| match tree.get(element, k) {
            Some(v) if tree.node(v).kind == Kind::Scalar && !tree.is_null(v) => {
                tree.value(v).to_string()
            }
            // The API's default: a port without a protocol is TCP.
            _ if k == "protocol" => "TCP".into(),
            _ => String::new(),
        })
        .collect();
    Some(values)
}

/// The pairing name and the shown name of an element whose key values are `values`.
fn named(keys: &[String], values: Vec<String>) -> (String, String) {
    let shown = keys
        .iter()
        .zip(&values)
        .filter(|(k, v)| !(k.as_str() == "protocol" && v.as_str() == "TCP"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    (values.join("\u{0}"), shown)
}

/// A list's schema given in a comment on its key's line, as kpt and kustomize setters write
/// it: `items: # {"type": "array", "x-kubernetes-patch-strategy": "merge",
/// "x-kubernetes-patch-merge-key": "name"}`. It overrides the built-in schema for that field.
fn schema_comment(tree: &Tree, list: NodeId) -> Option<ListKind> {
    let parent = tree.node(list).parent()?;
    let entries = tree.children(parent);
    let i = entries.iter().position(|&c| c == list)?;
    if tree.node(parent).kind != Kind::Map || i % 2 == 0 {
        return None;
    }
    let key = tree.node(entries[i - 1]);
    let line = &tree.text[key.end..line_end(tree.text, key.end)];
    let json = &line[line.find("# {")? + 2..];
    let schema: serde_json::Value = serde_json::from_str(json).ok()?;
    let strategy = schema.get("x-kubernetes-patch-strategy")?.as_str()?;
    if !strategy.split(',').any(|s| s.trim() == "merge") {
        return Some(ListKind::Plain);
    }
    let keys: Vec<String> = match schema
        .get("x-kubernetes-list-map-keys")
        .and_then(|k| k.as_array())
    {
        Some(keys) => keys
            .iter()
            .filter_map(|k| k.as_str().map(String::from))
            .collect(),
        None => schema
            .get("x-kubernetes-patch-merge-key")
            .and_then(|k| k.as_str())
            .map(|k| vec![k.to_string()])
            .unwrap_or_default(),
    };
    Some(if keys.is_empty() {
        ListKind::Set
    } else {
        ListKind::Keyed(keys)
    })
}

/// Whether every element of a list is a map carrying `field` as a scalar, with no value twice.
/// A null (`name: ~`) names nothing: an element a side cleared the name of is not paired by
/// it, and the list is read as one without keys (kyaml infers a key only from elements that
/// name themselves).
fn unique_field(tree: &Tree, list: NodeId, field: &str) -> bool {
    let mut seen = HashSet::new();
    tree.children(list)
        .iter()
        .all(|&e| match tree.get(e, field) {
            Some(v) if tree.node(v).kind == Kind::Scalar && !tree.is_null(v) => {
                seen.insert(tree.value(v))
            }
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_compiled_table_answers_built_in_kinds() {
        assert_eq!(
            schema("apps/Deployment", "spec.template.spec.containers"),
            Some(ListKind::Keyed(vec!["name".into()]))
        );
        assert_eq!(
            schema("Service", "spec.ports"),
            Some(ListKind::Keyed(vec!["port".into(), "protocol".into()]))
        );
        assert_eq!(
            schema("apps/Deployment", "metadata.finalizers"),
            Some(ListKind::Set)
        );
        assert_eq!(
            schema("apps/Deployment", "spec.selector.matchExpressions"),
            Some(ListKind::Plain)
        );
        assert_eq!(schema("example.com/Widget", "spec.items"), None);
    }

    #[test]
    fn a_kind_without_its_group_takes_the_one_group_the_table_has_it_in() {
        let of = |group: &str, kind: &str| {
            let id = crate::resource::Identity {
                group: group.into(),
                kind: kind.into(),
                namespace: String::new(),
                name: "x".into(),
            };
            group_kind_of(Some(&id), None)
        };
        // A template's `apiVersion: {{ include … }}` names no group.
        assert_eq!(of("", "StatefulSet").as_deref(), Some("apps/StatefulSet"));
        assert_eq!(of("", "Deployment").as_deref(), Some("apps/Deployment"));
        // Core kinds are in the table as they are; a named group is kept; a kind the table
        // does not know stays bare.
        assert_eq!(of("", "ConfigMap").as_deref(), Some("ConfigMap"));
        assert_eq!(
            of("example.com", "Deployment").as_deref(),
            Some("example.com/Deployment")
        );
        assert_eq!(of("", "Widget").as_deref(), Some("Widget"));
        // Two groups have it: no guess.
        assert_eq!(of("", "Eviction").as_deref(), Some("Eviction"));
        assert_eq!(of("", "").as_deref(), Some(""));
    }

    #[test]
    fn the_table_is_sorted_for_binary_search() {
        assert!(table::TABLE
            .windows(2)
            .all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
    }

    #[test]
    fn a_port_without_protocol_is_tcp() {
        let tree =
            crate::parse::parse("- containerPort: 80\n- containerPort: 80\n  protocol: TCP\n")
                .unwrap();
        let root = tree.docs[0].root.unwrap();
        let keys = ["containerPort".to_string(), "protocol".to_string()];
        let items = tree.children(root);
        let a = element_key(&tree, items[0], &keys).unwrap();
        let b = element_key(&tree, items[1], &keys).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.1, "containerPort=80");
    }
}
