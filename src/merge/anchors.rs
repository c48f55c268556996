//! Anchors both sides define. An anchor is a name within one document and an alias names
//! the nearest anchor of its name before it: where ours and theirs each put an anchor of one
//! name at a different place, text taken from one side would name the other side's anchor
//! in the result, and the merge cannot keep both. The person decides over the document.

use std::collections::{BTreeMap, BTreeSet};

use crate::parse::{Kind, NodeId, Tree};

/// Where a document's anchors stand, by name: each place the path of keys from the root
/// (`[]` for a list element, positions left out).
type Places = BTreeMap<String, BTreeSet<Vec<String>>>;

/// The first anchor name that ours' and theirs' documents both define, at different places.
pub(super) fn clashing_anchor(ours: &Tree, o: NodeId, theirs: &Tree, t: NodeId) -> Option<String> {
    // An anchor is written `&name`: most documents have none to look for.
    let has_anchor =
        |tree: &Tree, n: NodeId| memchr::memchr(b'&', tree.src(n).as_bytes()).is_some();
    if !has_anchor(ours, o) || !has_anchor(theirs, t) {
        return None;
    }
    let (in_ours, in_theirs) = (places(ours, o), places(theirs, t));
    in_ours
        .iter()
        .find(|(name, at)| in_theirs.get(*name).is_some_and(|other| other != *at))
        .map(|(name, _)| name.clone())
}

/// The anchors of the document under `root`, by name and place. The walk carries no paths
/// (a large document has many nodes and few anchors): an anchor's place is read up its
/// parents when one is found.
fn places(tree: &Tree, root: NodeId) -> Places {
    let mut out = Places::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let node = tree.node(n);
        if let Some(name) = node.anchor() {
            out.entry(name.to_string())
                .or_default()
                .insert(place(tree, root, n));
        }
        if matches!(node.kind, Kind::Map | Kind::Seq) {
            stack.extend(tree.children(n).iter().copied());
        }
    }
    out
}

/// The path of keys from `root` to `n` (`[]` for a list element): a map's key and its value
/// stand at the key's name.
fn place(tree: &Tree, root: NodeId, mut n: NodeId) -> Vec<String> {
    let mut path = Vec::new();
    while n != root {
        let Some(parent) = tree.node(n).parent() else {
            break;
        };
        match tree.node(parent).kind {
            Kind::Map => {
                let entries = tree.children(parent);
                let i = entries.iter().position(|&c| c == n).unwrap_or(0);
                path.push(tree.value(entries[i - i % 2]).to_string());
            }
            _ => path.push("[]".to_string()),
        }
        n = parent;
    }
    path.reverse();
    path
}
