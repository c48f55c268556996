//! Anchors both sides define, at different places, renamed apart before the merge. An anchor
//! name is only text: an alias means the node its anchor stands on. Where ours and theirs each
//! put an anchor of one name at a different place (both sides added `&base`, say), text taken
//! from one side would name the other side's anchor in the result, so theirs' anchor, and
//! theirs' aliases of it, take a name no version uses, and the merge keeps both sides' changes.

use std::collections::{HashMap, HashSet};

use crate::merge::anchors::place;
use crate::parse::{Kind, NodeId, Tree, Versions};
use crate::resource;
use crate::text::splice::{splice, Edit};

/// Theirs' text with each anchor that stands where ours has no anchor of its name, though
/// ours defines that name elsewhere in the same document, renamed (`base` → `base2`) with the
/// aliases that name it, and each anchor on a node ours anchors under another name given
/// ours' name; one note for each, with the name theirs' anchor has in the merge's input;
/// `None` where no anchor clashes so.
pub(super) fn renamed_apart(versions: &Versions) -> Option<(String, Vec<Renamed>)> {
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
                notes.push(Renamed {
                    name: ours_name.to_string(),
                    note: format!(
                        "ours and theirs anchor one node as &{ours_name} and &{name}: theirs' is &{ours_name} in the result"
                    ),
                });
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
        notes.push(Renamed {
            name: new.clone(),
            note: format!(
                "both sides define the anchor &{name}, at different places: theirs' is &{new} in the result"
            ),
        });
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

/// An anchor of theirs renamed: its name in the merge's input, and the note that says so.
pub(super) struct Renamed {
    name: String,
    note: String,
}

impl Renamed {
    /// The note, where the merged text still defines the anchor: the merge may have dropped
    /// it (theirs' anchor on a value ours' side won), and a note naming an anchor the result
    /// does not hold would send the user looking for it.
    pub(super) fn note_for(self, merged: &[u8]) -> Option<String> {
        let name = format!("&{}", self.name);
        let ends_name = |b: &u8| b.is_ascii_whitespace() || b",[]{}".contains(b);
        let defined = memchr::memmem::find_iter(merged, name.as_bytes()).any(|at| {
            let after = merged.get(at + name.len());
            let before = at.checked_sub(1).map(|i| merged[i]);
            after.is_none_or(ends_name) && before.is_none_or(|b| ends_name(&b) || b == b'-')
        });
        defined.then_some(self.note)
    }
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
/// [`place`]: the clash rule reads places alike).
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

/// The text with every alias written out as the value its anchor stands on (the anchors
/// left as they are, named by nothing then); `None` where an alias is a key, a document's
/// root, or still stands after a few passes (an alias inside an anchored value is written
/// out on the next pass). kyaml reads an alias as its anchor's value: under `theirs` and
/// `ours`, a merge that would leave an alias without its anchor (one side deleted or moved
/// the anchored value, the other aliased it) merges the written-out texts instead, the same
/// data, rather than fall back to the line merge's conflict.
pub(super) fn written_out(text: &str) -> Option<String> {
    let mut text = text.to_string();
    for _ in 0..4 {
        let tree = crate::parse::parse(&text).ok()?;
        let mut edits = Vec::new();
        for (n, node) in tree.nodes.iter().enumerate() {
            if node.kind != Kind::Alias {
                continue;
            }
            let target = node.target()?;
            let parent = node.parent()?;
            let siblings = tree.children(parent);
            let i = siblings.iter().position(|&c| c == n)?;
            let in_map = tree.node(parent).kind == Kind::Map;
            if in_map && i % 2 == 0 {
                return None;
            }
            if in_map && merge_key(&tree, siblings[i - 1]) {
                edits.push(merged_in(&tree, parent, i - 1, target)?);
                continue;
            }
            if !in_map && merge_key_list(&tree, parent) {
                return None;
            }
            let place = if in_map { siblings[i - 1] } else { n };
            let value = value_text(&tree, target, column(&text, tree.node(place).start), in_map)?;
            // A block value goes below its key: the spaces after the colon go too.
            let mut start = node.start;
            if value.starts_with(['\n', '\r']) {
                start = text[..start].trim_end_matches(' ').len();
            }
            edits.push(Edit {
                start,
                end: node.end,
                text: value,
            });
        }
        if edits.is_empty() {
            return Some(text);
        }
        text = splice(&text, &mut edits).ok()?;
    }
    None
}

/// A merge key (`<<: *name`) written out: the `<<` entry replaced by the anchored map's
/// entries whose keys the map lacks (the map's own keys win), as YAML's merge key reads;
/// written out as a plain `<<` key instead, the entry would bring back, through the merge, a
/// field the other side nulled or deleted. A `<<` the anchored map holds is copied with its
/// entries and resolved on the next pass. `None` where the text is not all block maps, or
/// where nothing is merged in and the entry does not stand on a line of its own.
fn merged_in(tree: &Tree, map: NodeId, at: usize, target: NodeId) -> Option<Edit> {
    let text = tree.text;
    let (mine, theirs) = (tree.node(map), tree.node(target));
    if mine.flow || theirs.kind != Kind::Map || theirs.flow {
        return None;
    }
    let siblings = tree.children(map);
    let (key, alias) = (siblings[at], siblings[at + 1]);
    let lacks = |k: NodeId| {
        siblings
            .iter()
            .step_by(2)
            .all(|&s| s == key || tree.value(s) != tree.value(k))
    };
    let col = column(text, tree.node(key).start);
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let entries: Vec<String> = tree
        .entries(target)
        .filter(|&(k, _)| lacks(k))
        .map(|(k, v)| {
            let (start, end) = (tree.node(k).start, tree.node(v).end.max(tree.node(k).end));
            crate::text::reindent(&text[start..end], column(text, start), col, eol)
        })
        .collect();
    if !entries.is_empty() {
        return Some(Edit {
            start: tree.node(key).start,
            end: tree.node(alias).end,
            text: entries.join(&format!("{eol}{}", " ".repeat(col))),
        });
    }
    // Nothing merged in: the entry's line goes, where the map keeps another entry.
    let line_start = text[..tree.node(key).start]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line_end = text[tree.node(alias).end..]
        .find('\n')
        .map_or(text.len(), |i| tree.node(alias).end + i + 1);
    let alone = text[line_start..tree.node(key).start].trim().is_empty()
        && text[tree.node(alias).end..line_end].trim().is_empty();
    (alone && siblings.len() > 2).then(|| Edit {
        start: line_start,
        end: line_end,
        text: String::new(),
    })
}

/// Whether a key is YAML's merge key: a plain `<<` (quoted, it is an ordinary key).
fn merge_key(tree: &Tree, key: NodeId) -> bool {
    tree.node(key).style == crate::parse::Style::Plain && tree.value(key) == "<<"
}

/// Whether a sequence is the value of a merge key (`<<: [*a, *b]`): its aliases are not
/// written out one by one, which would leave a `<<` of maps standing as a key.
fn merge_key_list(tree: &Tree, seq: NodeId) -> bool {
    let Some(map) = tree.node(seq).parent() else {
        return false;
    };
    let siblings = tree.children(map);
    tree.node(map).kind == Kind::Map
        && siblings
            .iter()
            .position(|&c| c == seq)
            .is_some_and(|i| i % 2 == 1 && merge_key(tree, siblings[i - 1]))
}

/// The column of byte `at`: its distance from the line's start.
fn column(text: &str, at: usize) -> usize {
    at - text[..at].rfind('\n').map_or(0, |i| i + 1)
}

/// The indentation of the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> usize {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..].bytes().take_while(|&b| b == b' ').count()
}

/// An anchored value's text without its anchor, to stand where an alias stood: `col` is the
/// column of the alias's key (`in_map`) or of the alias itself (a list element).
fn value_text(tree: &Tree, target: NodeId, col: usize, in_map: bool) -> Option<String> {
    let text = tree.text;
    let node = tree.node(target);
    let mut start = node.start;
    if let Some(name) = node.anchor() {
        let at = anchor_name(text, node.start, name)?;
        // The `&` and the name go, with the spaces after them.
        let before = &text[node.start..at.start - 1];
        let after = text[at.end..node.end].trim_start_matches(' ');
        if before.trim().is_empty() {
            start = node.end - after.len();
        } else {
            // A tag before the anchor (`!!map &base`): kept, the anchor dropped.
            return Some(
                format!("{} {}", before.trim(), after)
                    .trim_end()
                    .to_string(),
            )
            .filter(|s| !s.contains('\n'));
        }
    }
    let body = &text[start..node.end];
    if body.trim().is_empty() {
        return Some("null".into());
    }
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let block = matches!(node.kind, Kind::Map | Kind::Seq) && !node.flow;
    if !block {
        // A scalar or a flow collection: its first line where the alias stood, the others
        // shifted as far as the alias's line is from the anchor's (a block scalar's content
        // stays deeper than its key).
        if !body.contains('\n') {
            return Some(body.to_string());
        }
        let from = line_indent(text, node.start);
        let to = if in_map { col } else { col.saturating_sub(2) };
        return Some(crate::text::reindent(body, from, to, eol));
    }
    // A block collection: its first line where the alias stood (a list element) or on the
    // line below the key, indented under it; the other lines shifted alike.
    let lead = body.len() - body.trim_start().len();
    let first = start + lead;
    let content = &text[first..node.end];
    let from = column(text, first);
    if in_map {
        let to = col + 2;
        let shifted = crate::text::reindent(content, from, to, eol);
        Some(format!("{eol}{}{shifted}", " ".repeat(to)))
    } else {
        Some(crate::text::reindent(content, from, col, eol))
    }
}
