//! Anchors both sides define, at different places, renamed apart before the merge. An anchor
//! name is only text: an alias means the node its anchor stands on. Where ours and theirs each
//! put an anchor of one name at a different place (both sides added `&base`, say), text taken
//! from one side would name the other side's anchor in the result, so theirs' anchor, and
//! theirs' aliases of it, take a name no version uses, and the merge keeps both sides' changes.

use std::collections::{HashMap, HashSet};

use crate::parse::{Kind, NodeId, Tree, Versions};
use crate::resource;
use crate::text::splice::{splice, Edit};

/// Theirs' text with each anchor that stands where ours has no anchor of its name, though
/// ours defines that name elsewhere in the same document, renamed (`base` → `base2`) with the
/// aliases that name it, and each anchor on a node ours anchors under another name given
/// ours' name; one note for each; `None` where no anchor clashes so.
pub(super) fn renamed_apart(versions: &Versions) -> Option<(String, Vec<String>)> {
    let (ours, theirs) = (&versions.ours, &versions.theirs);
    let has_anchor = |tree: &Tree| memchr::memchr(b'&', tree.text.as_bytes()).is_some();
    if !has_anchor(ours) || !has_anchor(theirs) {
        return None;
    }
    let mut in_ours: HashMap<(String, &str), HashSet<Vec<String>>> = HashMap::new();
    let mut ours_at: HashMap<(String, Vec<String>), &str> = HashMap::new();
    for (_, doc, name, at) in anchors(ours) {
        in_ours
            .entry((doc.clone(), name))
            .or_default()
            .insert(at.clone());
        ours_at.insert((doc, at), name);
    }
    let mut taken: HashSet<String> = HashSet::new();
    for tree in [&versions.base, ours, theirs] {
        for (n, node) in tree.nodes.iter().enumerate() {
            match node.kind {
                Kind::Alias => taken.insert(tree.value(n).to_string()),
                _ => node.anchor().is_some_and(|a| taken.insert(a.to_string())),
            };
        }
    }
    let mut fresh: HashMap<NodeId, String> = HashMap::new();
    let mut notes = Vec::new();
    for (n, doc, name, at) in anchors(theirs) {
        // Both sides anchored one node under different names (ours `&base`, theirs
        // `&defaults`): theirs' name, in theirs' aliases too, becomes ours' (the same data),
        // so the node's one anchor serves both sides' aliases. Theirs' own anchor of ours'
        // name, elsewhere, is renamed apart below.
        let ours_name = ours_at.get(&(doc.clone(), at.clone())).copied();
        if let Some(ours_name) = ours_name.filter(|&o| o != name) {
            if in_ours
                .get(&(doc.clone(), ours_name))
                .is_some_and(|p| p.len() == 1)
            {
                notes.push(format!(
                    "ours and theirs anchor one node as &{ours_name} and &{name}: theirs' is &{ours_name} in the result"
                ));
                fresh.insert(n, ours_name.to_string());
            }
            continue;
        }
        match in_ours.get(&(doc, name)) {
            Some(places) if !places.contains(&at) => {}
            _ => continue,
        }
        let Some(new) = (2..1000)
            .map(|i| format!("{name}{i}"))
            .find(|c| !taken.contains(c))
        else {
            continue;
        };
        notes.push(format!(
            "both sides define the anchor &{name}, at different places: theirs' is &{new} in the result"
        ));
        taken.insert(new.clone());
        fresh.insert(n, new);
    }
    if fresh.is_empty() {
        return None;
    }
    let text = theirs.text;
    let mut edits = Vec::new();
    for (n, node) in theirs.nodes.iter().enumerate() {
        let (at, new) = match (node.kind, node.target()) {
            // `*name`: the name after the star.
            (Kind::Alias, Some(target)) if text[node.start..].starts_with('*') => {
                let Some(new) = fresh.get(&target) else {
                    continue;
                };
                (node.start + 1..node.end, new)
            }
            _ => {
                let Some(new) = fresh.get(&n) else { continue };
                (anchor_name(text, node.start, node.anchor()?)?, new)
            }
        };
        edits.push(Edit {
            start: at.start,
            end: at.end,
            text: new.clone(),
        });
    }
    let renamed = splice(text, &mut edits).ok()?;
    Some((renamed, notes))
}

/// Where `&name` stands among the properties a node's text starts with (its anchor and tag,
/// in either order): the bytes of the name.
fn anchor_name(text: &str, start: usize, name: &str) -> Option<std::ops::Range<usize>> {
    let props = &text[start..];
    let mut from = 0;
    while let Some(i) = props[from..].find('&') {
        let at = from + i + 1;
        let rest = &props[at..];
        let ends = |c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}');
        if rest.starts_with(name) && rest[name.len()..].chars().next().is_none_or(ends) {
            return Some(start + at..start + at + name.len());
        }
        from = at;
    }
    None
}

/// Each anchor of a tree: its node, its document (the document's identity, empty for one
/// without: documents pair so across versions), its name and its place in the document (see
/// [`place`]).
fn anchors<'t>(tree: &'t Tree) -> Vec<(NodeId, String, &'t str, Vec<String>)> {
    let mut out = Vec::new();
    for (doc, identity) in resource::documents(tree) {
        let key = identity.map(|i| i.to_string()).unwrap_or_default();
        let mut todo = vec![doc.root];
        while let Some(n) = todo.pop() {
            if let Some(name) = tree.node(n).anchor() {
                out.push((n, key.clone(), name, place(tree, doc.root, n)));
            }
            todo.extend(tree.children(n));
        }
    }
    out
}

/// The path from `root` to `n`: a map value stands at its key's name, a list element at its
/// index. The index, not only "an element": `&base` on `periodics[10].spec` and on
/// `periodics[11].spec` are two places, and an alias of one must not come to name the other.
fn place(tree: &Tree, root: NodeId, mut n: NodeId) -> Vec<String> {
    let mut path = Vec::new();
    while n != root {
        let Some(parent) = tree.node(n).parent() else {
            break;
        };
        let entries = tree.children(parent);
        let i = entries.iter().position(|&c| c == n).unwrap_or(0);
        match tree.node(parent).kind {
            Kind::Map => path.push(tree.value(entries[i - i % 2]).to_string()),
            _ => path.push(format!("[{i}]")),
        }
        n = parent;
    }
    path.reverse();
    path
}
