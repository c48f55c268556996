//! Which lists are associative, and by which keys: the Kubernetes schema for built-in kinds,
//! then the seeds' key rule for every other list.

use std::collections::HashMap;
use std::sync::OnceLock;

/// How the elements of a list are identified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// Elements are maps identified by these fields (`[containerPort, protocol]`).
    Keyed(Vec<String>),
    /// Elements are scalars identified by their value (`finalizers`).
    Set,
    /// No identity: elements are compared by position and value.
    Plain,
}

/// The list fields of every built-in kind, from the Kubernetes OpenAPI schema (v1.37):
/// `{"kinds": {"apps/Deployment": {"spec.template.spec.containers": {"list_type": "map",
/// "keys": ["name"]}, …}}}`. Parsed on first use only, so plain YAML never pays for it.
const SCHEMA_JSON: &str = include_str!("k8s-list-keys.json");

type Table = HashMap<String, HashMap<String, ListKind>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let json: serde_json::Value = serde_json::from_str(SCHEMA_JSON).unwrap_or_default();
        let mut table = Table::new();
        let Some(kinds) = json.get("kinds").and_then(|k| k.as_object()) else {
            return table;
        };
        for (kind, fields) in kinds {
            let Some(fields) = fields.as_object() else {
                continue;
            };
            let entry = table.entry(kind.clone()).or_default();
            for (path, info) in fields {
                let list_type = info.get("list_type").and_then(|t| t.as_str());
                let keys: Vec<String> = info
                    .get("keys")
                    .and_then(|k| k.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|k| k.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                let list_kind = match list_type {
                    Some("map") if !keys.is_empty() => ListKind::Keyed(keys),
                    Some("set") => ListKind::Set,
                    _ => ListKind::Plain,
                };
                entry.insert(path.clone(), list_kind);
            }
        }
        table
    })
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

/// How the list at `path` (`spec.template.spec.containers[].ports`) of a `group_kind`
/// (`apps/Deployment`) is identified. `elements` gives, for each version's list, a function
/// telling whether every element carries a field with unique values.
pub fn list_key_for(
    group_kind: Option<&str>,
    path: &str,
    every_version_has_unique: impl Fn(&str) -> bool,
) -> ListKind {
    if let Some(kind) = group_kind.and_then(|gk| table().get(gk)) {
        if let Some(known) = kind.get(path) {
            return known.clone();
        }
    }
    SEED_KEYS
        .iter()
        .find(|k| every_version_has_unique(k))
        .map_or(ListKind::Plain, |k| ListKind::Keyed(vec![k.to_string()]))
}
