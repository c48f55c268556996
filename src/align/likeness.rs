//! How alike two documents or two list elements are: the measure renames are paired by.

use crate::parse::{Kind, NodeId, Tree};
use crate::resource::IDENTITY_FIELDS;

/// Whether two documents are close enough in content to be one resource renamed: at least
/// half of their leaf values (by field path, their identity fields left out) are the same. A
/// new resource of the same kind with other content is not a rename, whatever its position.
pub(crate) fn similar(a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> bool {
    let (common, larger) = shared_leaves(a, an, b, bn, &IDENTITY_FIELDS);
    2 * common >= larger
}

/// Whether two documents hold the same leaf values, their identity fields left out.
pub(super) fn same_content(a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> bool {
    let (common, larger) = shared_leaves(a, an, b, bn, &IDENTITY_FIELDS);
    larger > 0 && common == larger
}

/// The share of the larger document's leaf values (identity fields left out) that the other
/// holds too, from 0 to 1: which of several [`similar`] documents is the closest.
pub(crate) fn likeness(a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> f64 {
    let (common, larger) = shared_leaves(a, an, b, bn, &IDENTITY_FIELDS);
    if larger == 0 {
        1.0
    } else {
        common as f64 / larger as f64
    }
}

/// Whether two elements of a keyed list hold the same content besides their key fields (and
/// some: two elements of nothing but keys say nothing of being one), `b`'s key a name: a
/// key set to null is a key deleted, which the check reads as an element without one.
pub(super) fn same_element(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, keys: &[String]) -> bool {
    if keys
        .iter()
        .any(|k| b.get(bn, k).is_some_and(|v| b.is_null(v)))
    {
        return false;
    }
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let (common, larger) = shared_leaves(a, an, b, bn, &keys);
    larger > 0 && common == larger
}

/// Whether two elements of a keyed list are close enough in content to be one element
/// renamed: as for documents, with the list's key fields left out (a rename changes them), so
/// two elements that hold nothing but their keys are alike.
pub(super) fn similar_element(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, keys: &[String]) -> bool {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    alike(a, an, b, bn, &keys)
}

/// At least half of the leaves of the larger value are in the other too, `identity` fields
/// left out.
fn alike(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, identity: &[&str]) -> bool {
    let (common, larger) = shared_leaves(a, an, b, bn, identity);
    2 * common >= larger
}

/// How many leaves (`identity` fields left out) the two values share, and how many the larger
/// of them has.
fn shared_leaves(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, identity: &[&str]) -> (usize, usize) {
    let (la, lb) = (leaves(a, an, identity), leaves(b, bn, identity));
    (crate::text::shared_count(&la, &lb), la.len().max(lb.len()))
}

/// A value's scalar leaves as (field path with list positions left out, value), without
/// the `identity` fields.
fn leaves(tree: &Tree, root: NodeId, identity: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![(root, String::new())];
    while let Some((n, path)) = stack.pop() {
        let node = tree.node(n);
        match node.kind {
            Kind::Map => {
                for (k, v) in tree.entries(n) {
                    let p = if path.is_empty() {
                        tree.value(k).to_string()
                    } else {
                        format!("{path}.{}", tree.value(k))
                    };
                    if !identity.contains(&p.as_str()) {
                        stack.push((v, p));
                    }
                }
            }
            Kind::Seq => stack.extend(tree.children(n).iter().map(|&c| (c, format!("{path}[]")))),
            Kind::Scalar | Kind::Alias => out.push((path, crate::parse::canonical(tree, n))),
        }
    }
    out
}
