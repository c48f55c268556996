//! Plain data, for comparing results: YAML as sorted maps, identities, a normal form.

use super::*;

/// YAML data with maps as sorted maps: equal exactly when the data is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum D {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Map(BTreeMap<String, D>),
    Seq(Vec<D>),
}

impl D {
    pub(crate) fn get(&self, k: &str) -> Option<&D> {
        match self {
            D::Map(m) => m.get(k),
            _ => None,
        }
    }

    pub(crate) fn str(&self) -> Option<&str> {
        match self {
            D::Str(s) | D::Num(s) => Some(s),
            _ => None,
        }
    }

    pub(crate) fn key_text(&self) -> String {
        match self {
            D::Null => String::new(),
            D::Bool(b) => b.to_string(),
            D::Num(s) | D::Str(s) => s.clone(),
            other => format!("{other:?}"),
        }
    }
}

pub(crate) fn to_d(v: &yaml_serde::Value) -> D {
    use yaml_serde::Value as Y;
    match v {
        Y::Null => D::Null,
        Y::Bool(b) => D::Bool(*b),
        Y::Number(n) => D::Num(n.to_string()),
        Y::String(s) => D::Str(s.clone()),
        Y::Sequence(items) => D::Seq(items.iter().map(to_d).collect()),
        Y::Mapping(m) => D::Map(
            m.iter()
                .map(|(k, v)| (to_d(k).key_text(), to_d(v)))
                .collect(),
        ),
        Y::Tagged(t) => to_d(&t.value),
    }
}

/// Data as indented text, for diffs in failure messages.
pub(crate) fn write_d(out: &mut String, d: &D, indent: usize) {
    let pad = " ".repeat(indent);
    match d {
        D::Map(m) if !m.is_empty() => {
            for (k, v) in m {
                match v {
                    D::Map(x) if !x.is_empty() => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        write_d(out, v, indent + 2);
                    }
                    D::Seq(x) if !x.is_empty() => {
                        out.push_str(&format!("{pad}{k}:\n"));
                        write_d(out, v, indent + 2);
                    }
                    _ => {
                        out.push_str(&format!("{pad}{k}: "));
                        write_d(out, v, 0);
                    }
                }
            }
        }
        D::Seq(items) if !items.is_empty() => {
            for item in items {
                out.push_str(&format!("{pad}-\n"));
                write_d(out, item, indent + 2);
            }
        }
        D::Map(_) => out.push_str(&format!("{pad}{{}}\n")),
        D::Seq(_) => out.push_str(&format!("{pad}[]\n")),
        D::Str(x) => out.push_str(&format!("{pad}{x:?}\n")),
        D::Num(x) => out.push_str(&format!("{pad}{x}\n")),
        D::Bool(b) => out.push_str(&format!("{pad}{b}\n")),
        D::Null => out.push_str(&format!("{pad}null\n")),
    }
}

pub(crate) fn parse_docs(text: &[u8]) -> Result<Vec<D>, String> {
    Ok(common::yaml_documents(text)?.iter().map(to_d).collect())
}

/// A document's identity for pairing: API group, kind, namespace, name.
pub(crate) fn identity(d: &D) -> String {
    let get = |v: Option<&D>| v.map(D::key_text).unwrap_or_default();
    let api = get(d.get("apiVersion"));
    let group = api.rsplit_once('/').map_or("", |(g, _)| g).to_string();
    let meta = d.get("metadata");
    format!(
        "{group}/{}/{}/{}",
        get(d.get("kind")),
        get(meta.and_then(|m| m.get("namespace"))),
        get(meta.and_then(|m| m.get("name")))
    )
}

/// Normal form for comparing: documents sorted by identity; lists of keyed elements (name,
/// containerPort, port) sorted by key, since where a new element goes is a matter of text,
/// not data; with `drop_nulls`, map entries whose value is null removed (a cleared field).
pub(crate) fn normal(docs: &[D], drop_nulls: bool) -> Vec<(String, D)> {
    fn norm(d: &D, drop_nulls: bool) -> D {
        match d {
            D::Map(m) => D::Map(
                m.iter()
                    .filter(|(_, v)| !(drop_nulls && **v == D::Null))
                    .map(|(k, v)| (k.clone(), norm(v, drop_nulls)))
                    .collect(),
            ),
            D::Seq(items) => {
                let mut items: Vec<D> = items.iter().map(|x| norm(x, drop_nulls)).collect();
                let key = |e: &D| -> Option<String> {
                    let k = ["name", "containerPort", "port"]
                        .iter()
                        .find_map(|k| e.get(k))?
                        .key_text();
                    let proto = e.get("protocol").map_or("TCP".into(), D::key_text);
                    Some(format!("{k}/{proto}"))
                };
                if !items.is_empty() && items.iter().all(|e| key(e).is_some()) {
                    items.sort_by_key(|e| key(e));
                }
                D::Seq(items)
            }
            other => other.clone(),
        }
    }
    let mut out: Vec<(String, D)> = docs
        .iter()
        .map(|d| (identity(d), norm(d, drop_nulls)))
        .collect();
    out.sort();
    out
}
