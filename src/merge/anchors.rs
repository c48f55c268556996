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

fn places(tree: &Tree, root: NodeId) -> Places {
    let mut out = Places::new();
    let mut stack = vec![(root, Vec::new())];
    while let Some((n, path)) = stack.pop() {
        let node = tree.node(n);
        if let Some(name) = node.anchor() {
            out.entry(name.to_string())
                .or_default()
                .insert(path.clone());
        }
        match node.kind {
            Kind::Map => {
                for (k, v) in tree.entries(n) {
                    let mut at = path.clone();
                    at.push(tree.value(k).to_string());
                    stack.push((k, at.clone()));
                    stack.push((v, at));
                }
            }
            Kind::Seq => {
                for &c in tree.children(n) {
                    let mut at = path.clone();
                    at.push("[]".to_string());
                    stack.push((c, at));
                }
            }
            Kind::Scalar | Kind::Alias => {}
        }
    }
    out
}
