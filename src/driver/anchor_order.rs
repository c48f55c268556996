//! An alias must follow its anchor. The key order of a map is not data, and the merge keeps
//! one side's order of a map's keys (ours' as a rule, theirs' where only theirs reordered
//! and nothing is edited inside): where a side wrote an alias under one key of a map and its
//! anchor under an earlier key, the other side's order of those two keys, where the merge
//! keeps it, would put the alias first, and the merge is refused as one that would leave an
//! alias without its anchor (a side moved the key holding the anchor below the key holding
//! the alias, or below the key a new alias's key is inserted after; or the side that wrote
//! them moved the anchor's key up). The merge then runs again with the other side's entry
//! that holds the anchor moved up to stand before those entries, as the side that wrote them
//! has them: the same data, and the merge keeps both sides' changes. Where the other side had moved the two keys apart from
//! base's order, that move is given up, and a note names the key.

use crate::merge::anchors::place;
use crate::parse::{self, Kind, NodeId, Tree};
use crate::resource;
use crate::text::line_end;

/// Ours' and theirs' texts with each map entry that holds the anchor of an alias the other
/// side wrote further down in the same map moved up to stand just before the first entry
/// that the writer has between the two ([`Misplaced`]), and a note for each move of a side's given up so; `None` where there is none,
/// or where the texts cannot be so ordered (a comment stands between the entries concerned),
/// the rewritten text would not be the same data, or after a few passes an alias still stands
/// before its anchor (the sides' aliases ask for opposite orders).
pub(super) fn anchors_first(
    base: &str,
    ours: &str,
    theirs: &str,
) -> Option<([String; 2], Vec<String>)> {
    let base = parse::parse(base).ok()?;
    let mut texts = [ours.to_string(), theirs.to_string()];
    let mut notes = Vec::new();
    for _ in 0..8 {
        let trees = [parse::parse(&texts[0]).ok()?, parse::parse(&texts[1]).ok()?];
        let found = [(1, 0), (0, 1)].into_iter().find_map(|(writer, other)| {
            misplaced(&trees[writer], &trees[other]).map(|m| (writer, other, m))
        });
        let Some((writer, other, m)) = found else {
            return (!notes.is_empty() || texts != [ours, theirs]).then_some((texts, notes));
        };
        let moved = moved_up(&trees[other], m.map, m.anchor, m.before)?;
        let again = parse::parse(&moved).ok()?;
        if !resource::same_documents(&trees[other], &again) {
            return None;
        }
        let sides = ["ours", "theirs"];
        let [anchor_key, before_key] =
            [m.anchor, m.before].map(|k| trees[other].value(k).to_string());
        if base_has_in_order(&base, &m.path, &anchor_key, &before_key) {
            notes.push(format!(
                "{}' move of {} below {} is not kept: {}' alias *{} under {} must follow its anchor under {}",
                sides[other],
                shown(&m.path, &anchor_key),
                before_key,
                sides[writer],
                m.name,
                m.alias_key,
                anchor_key,
            ));
        }
        texts[other] = moved;
    }
    None
}

/// An alias of `writer`'s whose anchor stands under an earlier entry of a map that `other`
/// holds with the anchor's entry below one the writer has between the two (the alias's own,
/// or the one a new alias's entry is inserted after).
struct Misplaced {
    /// The map of `other`'s, and its place in the document.
    map: NodeId,
    path: Vec<String>,
    /// `other`'s key of the entry holding the anchor, and of the first entry standing before
    /// it that must follow it.
    anchor: NodeId,
    before: NodeId,
    /// The writer's key of the entry holding the alias.
    alias_key: String,
    /// The anchor's name.
    name: String,
}

/// The first alias of `writer`'s that `other`'s key order would put before its anchor.
fn misplaced(writer: &Tree, other: &Tree) -> Option<Misplaced> {
    if !writer.has_aliases() {
        return None;
    }
    let docs = resource::documents(writer);
    let theirs_docs = resource::documents(other);
    for (n, node) in writer.nodes.iter().enumerate() {
        if node.kind != Kind::Alias {
            continue;
        }
        let Some(target) = node.target() else {
            continue;
        };
        let Some(i) = docs.iter().position(|(d, _)| ancestor(writer, d.root, n)) else {
            continue;
        };
        let (doc, identity) = &docs[i];
        // Documents pair by identity, those without one by their place.
        let paired = match identity {
            Some(id) => theirs_docs.iter().find(|(_, o)| o.as_ref() == Some(id)),
            None => theirs_docs.get(i).filter(|(_, o)| o.is_none()),
        };
        let Some((other_doc, _)) = paired else {
            continue;
        };
        let (to_anchor, to_alias) = (place(writer, doc.root, target), place(writer, doc.root, n));
        let common = to_anchor
            .iter()
            .zip(&to_alias)
            .take_while(|(a, b)| a == b)
            .count();
        let (Some(anchor_key), Some(alias_key)) = (to_anchor.get(common), to_alias.get(common))
        else {
            continue;
        };
        let path = to_anchor[..common].to_vec();
        let Some(in_writer) = find(writer, doc.root, &path) else {
            continue;
        };
        let Some(map) = find(other, other_doc.root, &path) else {
            continue;
        };
        if writer.node(in_writer).kind != Kind::Map || other.node(map).kind != Kind::Map {
            continue;
        }
        // The keys the writer has after the anchor's, up to the alias's: the alias's key may
        // be new to the writer (the merge inserts it after the key before it), so none of them
        // may stand before the anchor's key in the other side's order.
        let names: Vec<&str> = writer
            .entries(in_writer)
            .map(|(k, _)| writer.value(k))
            .collect();
        let (Some(a), Some(b)) = (
            names.iter().position(|k| k == anchor_key),
            names.iter().position(|k| k == alias_key),
        ) else {
            continue;
        };
        let after = &names[a + 1..=b.max(a)];
        let keys: Vec<NodeId> = other.entries(map).map(|(k, _)| k).collect();
        let Some(at) = keys.iter().position(|&k| other.value(k) == anchor_key) else {
            continue;
        };
        if let Some(before) = keys[..at]
            .iter()
            .find(|&&k| after.contains(&other.value(k)))
        {
            return Some(Misplaced {
                map,
                path,
                anchor: keys[at],
                before: *before,
                alias_key: alias_key.clone(),
                name: writer.value(n).to_string(),
            });
        }
    }
    None
}

/// Whether `n` stands at or below `root`.
fn ancestor(tree: &Tree, root: NodeId, mut n: NodeId) -> bool {
    loop {
        if n == root {
            return true;
        }
        match tree.node(n).parent() {
            Some(p) => n = p,
            None => return false,
        }
    }
}

/// The node at a place ([`place`]'s reading) below `root`: a map's entry by its key, a list's
/// item by its `name` or index.
fn find(tree: &Tree, root: NodeId, path: &[String]) -> Option<NodeId> {
    let mut n = root;
    for step in path {
        n = match tree.node(n).kind {
            Kind::Map => tree.get(n, step)?,
            Kind::Seq => {
                let items = tree.children(n);
                match step
                    .strip_prefix("[name=")
                    .and_then(|s| s.strip_suffix(']'))
                {
                    Some(name) => *items.iter().find(|&&i| {
                        tree.node(i).kind == Kind::Map && tree.get_str(i, "name") == Some(name)
                    })?,
                    None => *items.get(
                        step.strip_prefix('[')?
                            .strip_suffix(']')?
                            .parse::<usize>()
                            .ok()?,
                    )?,
                }
            }
            _ => return None,
        };
    }
    Some(n)
}

/// The text with the block map `map`'s entry keyed `anchor` moved up to stand just before
/// the entry keyed `before`, each entry's lines as a block and the line breaks and
/// indentation between entries where they were; `None` for a flow map or where a comment
/// stands between two of the entries concerned (its place among moved lines would be a guess).
fn moved_up(tree: &Tree, map: NodeId, anchor: NodeId, before: NodeId) -> Option<String> {
    if !tree.is_block_collection(map) {
        return None;
    }
    let text = tree.text;
    let entries: Vec<(NodeId, NodeId)> = tree.entries(map).collect();
    let (from, to) = (
        entries.iter().position(|&(k, _)| k == before)?,
        entries.iter().position(|&(k, _)| k == anchor)?,
    );
    let block = |(k, v): (NodeId, NodeId)| {
        tree.node(k).start..line_end(text, tree.node(v).end.max(tree.node(k).end))
    };
    let blocks: Vec<_> = entries[from..=to].iter().map(|&e| block(e)).collect();
    let gaps: Vec<&str> = blocks
        .windows(2)
        .map(|w| &text[w[0].end..w[1].start])
        .collect();
    // A `|+` scalar's blank lines below its text, part of its value, stay behind: the
    // caller's check that the text holds the same data refuses such a move.
    if gaps.iter().any(|g| !g.trim().is_empty()) {
        return None;
    }
    let mut order = vec![blocks.len() - 1];
    order.extend(0..blocks.len() - 1);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..blocks[0].start]);
    for (i, &b) in order.iter().enumerate() {
        out.push_str(&text[blocks[b].clone()]);
        if let Some(gap) = gaps.get(i) {
            out.push_str(gap);
        }
    }
    out.push_str(&text[blocks[blocks.len() - 1].end..]);
    Some(out)
}

/// Whether a document of base holds a map at `path` with `first` before `then`: the other
/// side, which holds them the other way round, moved them.
fn base_has_in_order(base: &Tree, path: &[String], first: &str, then: &str) -> bool {
    resource::documents(base).iter().any(|(d, _)| {
        find(base, d.root, path).is_some_and(|map| {
            let key = |name: &str| base.entries(map).position(|(k, _)| base.value(k) == name);
            matches!((key(first), key(then)), (Some(a), Some(b)) if a < b)
        })
    })
}

/// A key with the place of its map, dotted.
fn shown(path: &[String], key: &str) -> String {
    path.iter()
        .map(String::as_str)
        .chain([key])
        .collect::<Vec<_>>()
        .join(".")
}
