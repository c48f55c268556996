//! The check's own reading of anchors two sides both define. An alias names the nearest
//! anchor of its name before it, so where ours and theirs each put an anchor of one name at a
//! different place of a document, no merge of the two keeps every alias naming what it named:
//! a policy takes its side's document whole, and the check expects exactly that there.

use std::collections::{HashMap, HashSet};

use crate::parse::{Kind, NodeId, Tree};

/// Whether the two documents define some anchor name at different places (paths of keys from
/// the root, `[]` for any list element).
pub(super) fn clash(xt: &Tree, x: NodeId, yt: &Tree, y: NodeId) -> bool {
    let (xs, ys) = (defined(xt, x), defined(yt, y));
    xs.iter()
        .any(|(name, places)| ys.get(name).is_some_and(|other| other != places))
}

/// Each anchor name the document defines, with the places it stands.
fn defined(tree: &Tree, root: NodeId) -> HashMap<String, HashSet<String>> {
    let mut out: HashMap<String, HashSet<String>> = HashMap::new();
    let mut todo = vec![(root, String::new())];
    while let Some((n, place)) = todo.pop() {
        if let Some(name) = tree.node(n).anchor() {
            out.entry(name.to_string())
                .or_default()
                .insert(place.clone());
        }
        match tree.node(n).kind {
            Kind::Map => todo.extend(tree.entries(n).flat_map(|(k, v)| {
                let at = format!("{place}/{}", tree.value(k));
                [(k, at.clone()), (v, at)]
            })),
            Kind::Seq => todo.extend(tree.children(n).iter().map(|&e| (e, format!("{place}[]")))),
            Kind::Scalar | Kind::Alias => {}
        }
    }
    out
}
