//! Paths into generated documents, the edits the generator makes, and applying them.

use super::*;

/// The identity of a generated document: kind, namespace, name.
pub(crate) fn doc_id(d: &V) -> String {
    let get = |v: Option<&V>| v.and_then(V::str).unwrap_or("").to_string();
    let meta = d.get("metadata");
    format!(
        "{}/{}/{}",
        get(d.get("kind")),
        get(meta.and_then(|m| m.get("namespace"))),
        get(meta.and_then(|m| m.get("name")))
    )
}

/// The lists the generator makes associative, and the identity of their elements.
pub(crate) fn elem_id(list_key: &str, e: &V) -> Option<String> {
    match list_key {
        "containers" | "env" | "items" => e.get("name").and_then(V::str).map(String::from),
        "ports" => {
            let n = match e.get("containerPort").or_else(|| e.get("port"))? {
                V::Int(n) => *n,
                _ => return None,
            };
            let proto = e.get("protocol").and_then(V::str).unwrap_or("TCP");
            Some(format!("{n}/{proto}"))
        }
        _ => None,
    }
}

pub(crate) fn is_assoc(list_key: &str) -> bool {
    matches!(list_key, "containers" | "env" | "items" | "ports")
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Seg {
    Doc(String),
    Key(String),
    Elem(String),
}

pub(crate) type Path = Vec<Seg>;

/// One edit of a file, by path, so it applies to any version that still has the path.
#[derive(Clone, Debug)]
pub(crate) enum Edit {
    /// Replace the value at the path.
    Set(Path, V),
    /// Remove the key, element or document at the path.
    Remove(Path),
    /// Add a key to the map at the path, at a position.
    AddKey(Path, usize, String, V),
    /// Add an element to the associative list at the path, at a position.
    AddElem(Path, usize, V),
    /// Replace a plain list with an edited copy (one item inserted, removed or replaced).
    SetList(Path, Vec<V>),
    AddDoc(usize, V),
    /// Insert a copy of an element, renamed and then edited, into the keyed list at the path
    /// (copy-paste of a container).
    CopyElem(Path, usize, V),
    /// Insert a copy of a document, renamed and then edited.
    CopyDoc(usize, V),
    /// Move a document to another position.
    MoveDoc(String, usize),
    /// Move an element of the keyed list at the path to another position.
    MoveElem(Path, String, usize),
    /// Replace a plain list with the same items in another order.
    ReorderList(Path, Vec<V>),
    /// Move a key of the map at the path to another position, value unchanged: a change of
    /// text only.
    MoveKey(Path, String, usize),
    /// Empty the map or list at the path: `{}` or `[]`.
    Empty(Path),
}

impl Edit {
    /// The part of the tree the edit touches: another side's edit is disjoint from it when
    /// neither path is a prefix of the other.
    pub(crate) fn claim(&self) -> Path {
        let with = |p: &Path, s: Seg| {
            let mut p = p.clone();
            p.push(s);
            p
        };
        match self {
            Edit::Set(p, _)
            | Edit::Remove(p)
            | Edit::SetList(p, _)
            | Edit::ReorderList(p, _)
            | Edit::Empty(p) => p.clone(),
            Edit::AddKey(p, _, k, _) | Edit::MoveKey(p, k, _) => with(p, Seg::Key(k.clone())),
            Edit::MoveElem(p, id, _) => with(p, Seg::Elem(id.clone())),
            Edit::MoveDoc(id, _) => vec![Seg::Doc(id.clone())],
            Edit::AddElem(p, _, e) | Edit::CopyElem(p, _, e) => {
                let key = match p.last() {
                    Some(Seg::Key(k)) => k.as_str(),
                    _ => "",
                };
                with(p, Seg::Elem(elem_id(key, e).unwrap_or_default()))
            }
            Edit::AddDoc(_, d) | Edit::CopyDoc(_, d) => vec![Seg::Doc(doc_id(d))],
        }
    }
}

pub(crate) fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The value at a path.
pub(crate) fn node_mut<'a>(docs: &'a mut [V], path: &[Seg]) -> Option<&'a mut V> {
    let Some(Seg::Doc(id)) = path.first() else {
        return None;
    };
    let mut cur = docs.iter_mut().find(|d| doc_id(d) == *id)?;
    let mut key = String::new();
    for seg in &path[1..] {
        cur = match seg {
            Seg::Key(k) => {
                key = k.clone();
                cur.get_mut(k)?
            }
            Seg::Elem(id) => match cur {
                V::Seq(items) => items
                    .iter_mut()
                    .find(|e| elem_id(&key, e).as_deref() == Some(id))?,
                _ => return None,
            },
            Seg::Doc(_) => return None,
        };
    }
    Some(cur)
}

/// Applies an edit; false if its path is gone.
pub(crate) fn apply(docs: &mut Vec<V>, edit: &Edit) -> bool {
    match edit {
        Edit::Set(p, v) => match node_mut(docs, p) {
            Some(n) => {
                *n = v.clone();
                true
            }
            None => false,
        },
        Edit::SetList(p, items) | Edit::ReorderList(p, items) => match node_mut(docs, p) {
            Some(n) => {
                *n = V::Seq(items.clone());
                true
            }
            None => false,
        },
        Edit::Remove(p) => {
            if p.len() == 1 {
                let before = docs.len();
                let Seg::Doc(id) = &p[0] else { return false };
                docs.retain(|d| doc_id(d) != *id);
                return docs.len() < before;
            }
            let list_key = match p.get(p.len().wrapping_sub(2)) {
                Some(Seg::Key(k)) => k.clone(),
                _ => String::new(),
            };
            let Some(parent) = node_mut(docs, &p[..p.len() - 1]) else {
                return false;
            };
            match (parent, p.last()) {
                (V::Map(m), Some(Seg::Key(k))) => {
                    let before = m.len();
                    m.retain(|(x, _)| x != k);
                    m.len() < before
                }
                (V::Seq(items), Some(Seg::Elem(id))) => {
                    let before = items.len();
                    items.retain(|e| elem_id(&list_key, e).as_deref() != Some(id));
                    items.len() < before
                }
                _ => false,
            }
        }
        Edit::AddKey(p, at, k, v) => match node_mut(docs, p) {
            Some(V::Map(m)) => {
                m.retain(|(x, _)| x != k);
                let at = (*at).min(m.len());
                m.insert(at, (k.clone(), v.clone()));
                true
            }
            Some(n @ V::Null) => {
                *n = V::Map(vec![(k.clone(), v.clone())]);
                true
            }
            _ => false,
        },
        Edit::AddElem(p, at, e) | Edit::CopyElem(p, at, e) => match node_mut(docs, p) {
            Some(V::Seq(items)) => {
                let at = (*at).min(items.len());
                items.insert(at, e.clone());
                true
            }
            _ => false,
        },
        Edit::AddDoc(at, d) | Edit::CopyDoc(at, d) => {
            let at = (*at).min(docs.len());
            docs.insert(at, d.clone());
            true
        }
        Edit::MoveDoc(id, at) => match docs.iter().position(|d| doc_id(d) == *id) {
            Some(i) => {
                let d = docs.remove(i);
                docs.insert((*at).min(docs.len()), d);
                true
            }
            None => false,
        },
        Edit::MoveElem(p, id, at) => {
            let key = last_key(p).to_string();
            match node_mut(docs, p) {
                Some(V::Seq(items)) => {
                    match items
                        .iter()
                        .position(|e| elem_id(&key, e).as_deref() == Some(id))
                    {
                        Some(i) => {
                            let e = items.remove(i);
                            items.insert((*at).min(items.len()), e);
                            true
                        }
                        None => false,
                    }
                }
                _ => false,
            }
        }
        Edit::MoveKey(p, k, at) => match node_mut(docs, p) {
            Some(V::Map(m)) => match m.iter().position(|(x, _)| x == k) {
                Some(i) => {
                    let entry = m.remove(i);
                    m.insert((*at).min(m.len()), entry);
                    true
                }
                None => false,
            },
            _ => false,
        },
        Edit::Empty(p) => match node_mut(docs, p) {
            Some(V::Map(m)) if !m.is_empty() => {
                m.clear();
                true
            }
            Some(V::Seq(items)) if !items.is_empty() => {
                items.clear();
                true
            }
            _ => false,
        },
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Site {
    Scalar,
    Map,
    Assoc,
    Plain,
}

/// Every place an edit can go: maps, scalars and lists, but not identity fields (apiVersion,
/// kind, metadata.name/namespace) or element keys.
pub(crate) fn sites(docs: &[V]) -> Vec<(Path, Site)> {
    fn walk(v: &V, path: Path, key: &str, protected: &[&str], out: &mut Vec<(Path, Site)>) {
        match v {
            V::Map(m) => {
                out.push((path.clone(), Site::Map));
                let meta = path.len() == 2 && path[1] == Seg::Key("metadata".into());
                for (k, x) in m {
                    let root = path.len() == 1 && (k == "apiVersion" || k == "kind");
                    let ident = meta && (k == "name" || k == "namespace");
                    if root || ident || protected.contains(&k.as_str()) {
                        continue;
                    }
                    let mut p = path.clone();
                    p.push(Seg::Key(k.clone()));
                    walk(x, p, k, &[], out);
                }
            }
            V::Seq(items) if is_assoc(key) => {
                out.push((path.clone(), Site::Assoc));
                let protected: &[&str] = if key == "ports" {
                    &["containerPort", "port", "protocol"]
                } else {
                    &["name"]
                };
                for e in items {
                    if let Some(id) = elem_id(key, e) {
                        let mut p = path.clone();
                        p.push(Seg::Elem(id));
                        walk(e, p, "", protected, out);
                    }
                }
            }
            V::Seq(_) => out.push((path, Site::Plain)),
            _ => out.push((path, Site::Scalar)),
        }
    }
    let mut out = Vec::new();
    for d in docs {
        walk(d, vec![Seg::Doc(doc_id(d))], "", &[], &mut out);
    }
    out
}

pub(crate) fn empty_collections(docs: &[V]) -> usize {
    fn count(v: &V) -> usize {
        match v {
            V::Map(m) if m.is_empty() => 1,
            V::Seq(s) if s.is_empty() => 1,
            V::Map(m) => m.iter().map(|(_, x)| count(x)).sum(),
            V::Seq(s) => s.iter().map(count).sum(),
            _ => 0,
        }
    }
    docs.iter().map(count).sum()
}

pub(crate) fn last_key(p: &Path) -> &str {
    match p.last() {
        Some(Seg::Key(k)) => k,
        _ => "",
    }
}
