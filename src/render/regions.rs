//! Which bytes of a source a map entry or sequence item occupies, in whole lines where it can:
//! own-line comments directly above belong to the node below them (they travel and vanish
//! with it), a comment at the end of the line stays with the line.

use std::collections::HashMap;
use std::ops::Range;

use crate::merge::plan::{Anchor, Field, Slot};
use crate::parse::{Kind, NodeId, Tree};
use crate::text::{dash_of, line_start, next_line_start};

use super::Renderer;

/// Where the lines of a node starting at `at` begin: the start of its line, moved up over
/// the comment lines directly above. When something precedes `at` on its line (the `- ` of
/// a sequence item holding a map), the node starts at `at` itself. A comment line indented
/// right of the node's column stops the climb: it stands inside the block above, which
/// [`past_comments_inside`] gives it to; both claiming it planned two edits of one line.
pub(crate) fn key_lines_start(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    if !text[start..at].trim().is_empty() {
        return at;
    }
    let col = at - start;
    let mut first = start;
    while first > 0 && text.as_bytes()[first - 1] == b'\n' {
        let prev = line_start(text, first - 1);
        let line = &text[prev..first];
        let body = line.trim_start_matches(' ');
        if body.starts_with('#') && line.len() - body.len() <= col {
            first = prev;
        } else {
            break;
        }
    }
    first
}

/// The lines of a map entry: its key's lines (with the comments above) through the end of
/// the line where its value ends.
pub(crate) fn entry_lines(tree: &Tree, key: NodeId, value: NodeId) -> Range<usize> {
    let text = tree.text;
    let start = key_lines_start(text, tree.node(key).start);
    let end = next_line_start(text, tree.node(value).end.max(tree.node(key).end));
    start..after_kept_blank_lines(tree, value, end)
}

/// The lines of a block sequence item: from its dash (with the comments above) through the
/// end of the line where it ends.
pub(crate) fn item_lines(tree: &Tree, item: NodeId) -> Range<usize> {
    let text = tree.text;
    let dash = dash_of(text, tree.node(item).start);
    let start = key_lines_start(text, dash);
    let end = next_line_start(text, tree.node(item).end.max(dash));
    start..after_kept_blank_lines(tree, item, end)
}

/// The column a field's lines are indented to: its key's, its dash's, 0 for a root.
pub(crate) fn column(tree: &Tree, f: Field) -> usize {
    let at = match f.slot {
        Slot::Entry(key) => tree.node(key).start,
        Slot::Item => dash_of(tree.text, tree.node(f.node).start),
        Slot::Root => tree.node(f.node).start,
    };
    at - line_start(tree.text, at)
}

/// The whole lines a field occupies.
pub(crate) fn lines(tree: &Tree, f: Field) -> Range<usize> {
    match f.slot {
        Slot::Entry(key) => entry_lines(tree, key, f.node),
        Slot::Item => item_lines(tree, f.node),
        Slot::Root => {
            let n = tree.node(f.node);
            line_start(tree.text, n.start)..next_line_start(tree.text, n.end)
        }
    }
}

/// Past the comment lines below `end` (the end of a field's lines) that stand right of the
/// field's column `col`, and the blank lines among them: they are inside its block in the
/// text. Where the field's lines go (deleted, or taken into a conflict) they go with it; left
/// behind, a block scalar whose header is above them would read them as its content (blank
/// lines do not end a block scalar, so a blank line between the field and such a comment
/// saves nothing: adversary values-theirs-1138-509). Blank lines with no such comment below
/// stay.
pub(crate) fn past_comments_inside(text: &str, mut end: usize, col: usize) -> usize {
    let mut scan = end;
    while scan < text.len() {
        let next = next_line_start(text, scan);
        let line = &text[scan..next];
        let body = line.trim_start_matches(' ');
        if body.trim().is_empty() {
            scan = next;
            continue;
        }
        if !(body.starts_with('#') && line.len() - body.len() > col) {
            break;
        }
        scan = next;
        end = next;
    }
    end
}

/// The key of a block sequence that is a map value (with content); `None` for anything else.
pub(crate) fn list_key(tree: &Tree, seq: NodeId) -> Option<NodeId> {
    let n = tree.node(seq);
    if n.kind != Kind::Seq || n.flow || (n.child_count() == 0) {
        return None;
    }
    let parent = n.parent()?;
    if tree.node(parent).kind != Kind::Map {
        return None;
    }
    let entries = tree.children(parent);
    let i = entries.iter().position(|&c| c == seq)?;
    entries.get(i.checked_sub(1)?).copied()
}

/// How far a block sequence that is a map value sits right of its key; `None` for anything
/// else.
pub(crate) fn sequence_offset(tree: &Tree, seq: NodeId) -> Option<usize> {
    let key = tree.node(list_key(tree, seq)?);
    let key_col = key.start - line_start(tree.text, key.start);
    let dash = dash_of(tree.text, tree.node(tree.children(seq)[0]).start);
    (dash - line_start(tree.text, dash)).checked_sub(key_col)
}

/// The sequence styles of a version's lists: how far each block list that is a map value
/// indents its dashes from its key (`- ` flush with the key, or indented), by the key's
/// column, in text order. A file can mix styles (one list flush, the lists nested in its
/// elements indented); text moved into it takes the style of the list nearest to where it
/// lands.
#[derive(Default)]
pub(crate) struct ListStyles {
    /// Key column → (where the list starts, its offset), in text order.
    by_column: HashMap<usize, Vec<(usize, usize)>>,
    /// Every list, in text order.
    all: Vec<(usize, usize)>,
}

impl ListStyles {
    pub fn of(tree: &Tree) -> ListStyles {
        let mut styles = ListStyles::default();
        for n in 0..tree.nodes.len() {
            let Some(offset) = sequence_offset(tree, n) else {
                continue;
            };
            let Some(key) = list_key(tree, n) else {
                continue;
            };
            let at = tree.node(n).start;
            let start = tree.node(key).start;
            let column = start - line_start(tree.text, start);
            styles
                .by_column
                .entry(column)
                .or_default()
                .push((at, offset));
            styles.all.push((at, offset));
        }
        // Nodes are numbered in text order already; sorting keeps that a fact, not a hope.
        styles.all.sort_unstable();
        for v in styles.by_column.values_mut() {
            v.sort_unstable();
        }
        styles
    }

    /// The offset of the list nearest to `at` whose key stands at `column`, else of the
    /// nearest list at all; `None` when there is no list.
    pub fn near(&self, column: usize, at: usize) -> Option<usize> {
        let nearest = |v: &[(usize, usize)]| {
            let i = v.partition_point(|&(p, _)| p < at);
            [i.checked_sub(1), Some(i)]
                .into_iter()
                .flatten()
                .filter_map(|j| v.get(j))
                .min_by_key(|&&(p, _)| p.abs_diff(at))
                .map(|&(_, offset)| offset)
        };
        self.by_column
            .get(&column)
            .and_then(|v| nearest(v))
            .or_else(|| nearest(&self.all))
    }
}

/// The start of the line holding a block collection's first child (its dash for a sequence).
pub(crate) fn first_child_line(tree: &Tree, id: NodeId) -> usize {
    let n = tree.node(id);
    let first = tree
        .children(id)
        .first()
        .map_or(n.start, |&c| tree.node(c).start);
    let at = if n.kind == Kind::Seq {
        dash_of(tree.text, first)
    } else {
        first
    };
    line_start(tree.text, at)
}

/// The position right after a field's `:` or `-`.
pub(crate) fn after_indicator(tree: &Tree, f: Field) -> Option<usize> {
    match f.slot {
        Slot::Entry(key) => {
            let k = tree.node(key).end;
            tree.text[k..].find(':').map(|i| k + i + 1)
        }
        Slot::Item => Some(dash_of(tree.text, tree.node(f.node).start) + 1),
        Slot::Root => None,
    }
}

impl Renderer<'_> {
    /// The byte offset in ours' text an anchor names.
    pub(super) fn place(&self, at: Anchor) -> usize {
        let ours = self.ours;
        match at {
            Anchor::Before(f) => match f.slot {
                Slot::Entry(key) => key_lines_start(ours.text, ours.node(key).start),
                _ => lines(ours, f).start,
            },
            Anchor::After(f) => lines(ours, f).end,
            Anchor::DocStart(doc) => ours.docs[doc].region.start,
            Anchor::DocEnd(doc) => ours.docs[doc].region.end,
            Anchor::End => ours.text.len(),
        }
    }
}

/// Where a field's lines really end, from the end of its value's last line (`end`): past the
/// blank lines of a block scalar kept with `+` that the value ends in, which are part of that
/// value though not of its span. A field placed after it goes there, not between the value and
/// its trailing blank lines, and a field taken from a side brings them along.
fn after_kept_blank_lines(tree: &Tree, node: NodeId, mut end: usize) -> usize {
    let Some(breaks) = tree.kept_blank_lines(node) else {
        return end;
    };
    let text = tree.text;
    for _ in 1..breaks {
        let next = next_line_start(text, end);
        if next == end || !text[end..next].trim().is_empty() {
            break;
        }
        end = next;
    }
    end
}
