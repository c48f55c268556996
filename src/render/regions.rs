//! Which bytes of a source a map entry or sequence item occupies, in whole lines where it can:
//! own-line comments directly above belong to the node below them (they travel and vanish
//! with it), a comment at the end of the line stays with the line.

use std::ops::Range;

use crate::parse::{line_start, next_line_start, NodeId, Tree};

/// Where the lines of a node starting at `at` begin: the start of its line, moved up over
/// the comment lines directly above. When something precedes `at` on its line (the `- ` of
/// a sequence item holding a map), the node starts at `at` itself.
pub fn key_lines_start(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    if !text[start..at].trim().is_empty() {
        return at;
    }
    let mut first = start;
    while first > 0 && text.as_bytes()[first - 1] == b'\n' {
        let prev = line_start(text, first - 1);
        if text[prev..first].trim_start().starts_with('#') {
            first = prev;
        } else {
            break;
        }
    }
    first
}

/// The lines of a map entry: its key's lines (with the comments above) through the end of
/// the line where its value ends.
pub fn entry_lines(tree: &Tree, key: NodeId, value: NodeId) -> Range<usize> {
    let text = tree.text;
    let start = key_lines_start(text, tree.node(key).start);
    let end = next_line_start(text, tree.node(value).end.max(tree.node(key).end));
    start..end
}

/// The lines of a block sequence item: from its dash (with the comments above) through the
/// end of the line where it ends.
pub fn item_lines(tree: &Tree, item: NodeId) -> Range<usize> {
    let text = tree.text;
    let dash = dash_of(text, tree.node(item).start);
    let start = key_lines_start(text, dash);
    start..next_line_start(text, tree.node(item).end.max(dash))
}

/// The `-` that opens the sequence item whose content starts at `item`.
pub fn dash_of(text: &str, item: usize) -> usize {
    let trimmed = text[..item].trim_end_matches([' ', '\t', '\r', '\n']);
    if trimmed.ends_with('-') {
        trimmed.len() - 1
    } else {
        item
    }
}
