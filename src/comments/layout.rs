//! One text (a version or the result) as lines: which hold content, which field starts each
//! one, and where the comment lines and line-end comments around a field stand.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::parse::{Kind, NodeId, Style, Tree};
use crate::text::skeleton;
use crate::text::{dash_of, indent_of_line, line_end};

/// Which of the fields starting on one line: the outermost owns the comment lines above it,
/// the innermost the comment at the line's end.
#[derive(Clone, Copy)]
pub(super) enum Starts {
    Outermost,
    Innermost,
}

/// Where a field of another version stands relative to the result's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Partner {
    /// The version has no such field.
    Absent,
    /// It has it, but not at the start of a line of its own: its comments cannot be told.
    Unknown,
    /// It starts this line.
    Line(usize),
}

/// One line of a head: comment lines and blank lines above a field.
#[derive(Clone, Copy, Debug)]
pub(super) struct HeadLine<'a> {
    /// Indentation relative to the field's line.
    pub(super) rel: isize,
    /// The line without its indentation (or line break): what is compared.
    pub(super) text: &'a str,
}

impl<'a> HeadLine<'a> {
    pub(super) fn key(&self) -> (isize, &'a str) {
        if self.text.trim().is_empty() {
            (0, "")
        } else {
            (self.rel, self.text.trim_end())
        }
    }
}

/// Where a run of comment lines stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Spot {
    /// Above the field starting this line (up to the field or comment line before).
    Head(usize),
    /// Below the key on this line, whose collection they open: the comment lines indented
    /// past the key's column `col` (before its first entry, or, for a null value, before
    /// the next field).
    Opening { line: usize, col: usize },
    /// Below the key on this line, whose value stands on the line: nothing opens there.
    Shut(usize),
    /// Below a field whose lines end on line `after` (past the lines its opening and its
    /// fields' feet hold): the comment lines indented into it, then a template's closing
    /// control lines (`{{- end }}`) at the field's column `col`, which close the block the
    /// field stands in. They are that field's, not the head of the field below: two blocks
    /// both sides added at one place each keep their `end`.
    Foot { after: usize, col: usize },
}

/// No node starts the line.
const NO_NODE: NodeId = NodeId::MAX;

/// A version's text as lines: which hold YAML content, where each line's last token ends,
/// and which field owns each line.
pub(super) struct Layout<'t> {
    pub(super) tree: &'t Tree<'t>,
    /// Where each line starts (the first one after a byte-order mark).
    pub(super) starts: Vec<usize>,
    /// Lines holding YAML content: not only a comment, blank, or a `...`/`%` line.
    content: Vec<bool>,
    /// Lines whose end-of-line comment cannot be told apart from content (inside a value
    /// that spans lines, after an anchor or a tag).
    unsure: Vec<bool>,
    /// Where the last token of each line ends.
    pub(super) token_end: Vec<usize>,
    /// The field (its value node) that starts each line, the outermost one where several do:
    /// the comment lines above belong to it. Indexed by line, [`NO_NODE`] where none does.
    owner: Vec<NodeId>,
    /// The field that starts last on each line (`path` on `- path: /`): the comment at the
    /// line's end belongs to it.
    innermost: Vec<NodeId>,
    /// The line of each document's explicit `---`.
    pub(super) separators: Vec<Option<usize>>,
    /// Comment lines opening a collection, or a field's foot: no field's head.
    claimed: HashSet<usize>,
    /// The last line of each block scalar kept with `+` (its last blank line, if any): a
    /// blank line written right below one would join its value.
    kept_ends: HashSet<usize>,
    /// The last line of each block scalar, with the indentation of its header's line: a
    /// comment line written right below one, indented past that, would be its content.
    block_ends: HashMap<usize, usize>,
    /// Whether the text may hold closing control lines (a template's skeleton): only then
    /// are feet looked for.
    pub(super) feet: bool,
    /// The line [`Layout::line`] found last: most lookups walk the text forward, so the next
    /// one is usually on it or just below (a binary search per lookup was a quarter of a
    /// large merge's time).
    last: Cell<usize>,
}

impl<'t> Layout<'t> {
    pub(super) fn new(tree: &'t Tree<'t>) -> Layout<'t> {
        let text = tree.text;
        let bom = if text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let mut starts = vec![bom];
        starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .filter(|&next| next < text.len()),
        );
        let n = starts.len();
        let mut layout = Layout {
            tree,
            starts,
            content: vec![false; n],
            unsure: vec![false; n],
            token_end: vec![0; n],
            owner: vec![NO_NODE; n],
            innermost: vec![NO_NODE; n],
            separators: vec![None; tree.docs.len()],
            claimed: HashSet::new(),
            kept_ends: HashSet::new(),
            block_ends: HashMap::new(),
            feet: skeleton::may_hold_closing_lines(text),
            last: Cell::new(0),
        };
        for id in 0..tree.nodes.len() {
            layout.mark(id);
        }
        for (i, doc) in tree.docs.iter().enumerate() {
            if !doc.explicit_start {
                continue;
            }
            let mut line = layout.line(doc.region.start);
            while line < n && !text[layout.starts[line]..].starts_with("---") {
                line += 1;
            }
            if line < n {
                layout.content[line] = true;
                let end = layout.starts[line] + 3;
                layout.token_end[line] = layout.token_end[line].max(end);
                layout.separators[i] = Some(line);
            }
        }
        for doc in &tree.docs {
            if let Some(root) = doc.root {
                layout.own(root, tree.node(root).start);
            }
        }
        layout
    }

    /// The line holding byte `at`.
    pub(super) fn line(&self, at: usize) -> usize {
        let starts = &self.starts;
        let holds =
            |line: usize| starts[line] <= at && starts.get(line + 1).is_none_or(|&next| at < next);
        let last = self.last.get();
        let line = if holds(last) {
            last
        } else if last + 1 < starts.len() && holds(last + 1) {
            last + 1
        } else {
            starts.partition_point(|&s| s <= at).saturating_sub(1)
        };
        self.last.set(line);
        line
    }

    /// Where line `line` starts (the end of the text past the last line).
    pub(super) fn offset(&self, line: usize) -> usize {
        self.starts
            .get(line)
            .copied()
            .unwrap_or(self.tree.text.len())
    }

    /// The indentation of a line (0 past the last line).
    fn indent(&self, line: usize) -> usize {
        match self.starts.get(line) {
            Some(&s) => self.tree.text[s..]
                .bytes()
                .take_while(|&b| b == b' ')
                .count(),
            None => 0,
        }
    }

    /// Records what one node puts on its lines.
    fn mark(&mut self, id: NodeId) {
        let tree = self.tree;
        let text = tree.text;
        let n = tree.node(id);
        let spans_lines = |l: &Layout| l.line(n.start) != l.line(n.end.max(n.start + 1) - 1);
        match n.kind {
            Kind::Scalar | Kind::Alias => {
                let block = matches!(n.style, Style::Literal | Style::Folded);
                self.span(n.start, n.end, spans_lines(self));
                if block {
                    // The header's line ends after `|-` or `>2+`; the content is opaque.
                    let ls = line_end(text, n.start);
                    if let Some(p) = text[n.start..ls].find(['|', '>']) {
                        let h = n.start + p;
                        let len = text[h..ls]
                            .bytes()
                            .take_while(|b| b"|>+-0123456789".contains(b))
                            .count();
                        let line = self.line(n.start);
                        self.unsure[line] = false;
                        self.token_end[line] = self.token_end[line].max(h + len);
                    }
                    // A scalar kept with `+` ends in blank lines that are part of its value,
                    // past its span: content, no blank line this pass may move or drop.
                    // Each break is a blank line's but the last content line's own; a scalar
                    // with no content line (its span ends at its header) has none of those.
                    if let Some(breaks) = tree.kept_blank_lines(id) {
                        let mut line = self.line(n.end.max(n.start + 1) - 1);
                        let own = usize::from(line != self.line(n.start));
                        for _ in own..breaks {
                            if line + 1 >= self.starts.len() || !self.is_blank_text(line + 1) {
                                break;
                            }
                            line += 1;
                            self.content[line] = true;
                        }
                        self.kept_ends.insert(line);
                        self.block_ends.insert(line, indent_of_line(text, n.start));
                    } else {
                        let last = self.line(n.end.max(n.start + 1) - 1);
                        self.block_ends.insert(last, indent_of_line(text, n.start));
                    }
                } else {
                    let last = self.line(n.end.max(n.start + 1) - 1);
                    self.token_end[last] = self.token_end[last].max(n.end);
                }
            }
            Kind::Map | Kind::Seq if n.flow => {
                self.span(n.start, n.end, spans_lines(self));
                let last = self.line(n.end.max(n.start + 1) - 1);
                self.token_end[last] = self.token_end[last].max(n.end);
            }
            Kind::Map | Kind::Seq => {
                if n.props.is_some() {
                    let line = self.line(n.start);
                    self.content[line] = true;
                    self.unsure[line] = true;
                }
            }
        }
        if n.kind == Kind::Map {
            for (k, _) in tree.entries(id) {
                let end = tree.node(k).end;
                let rest = &text[end..line_end(text, end)];
                if let Some(p) = rest.find(':') {
                    if rest.as_bytes()[..p].iter().all(u8::is_ascii_whitespace) {
                        let line = self.line(end);
                        self.token_end[line] = self.token_end[line].max(end + p + 1);
                    }
                }
            }
        }
        if n.kind == Kind::Seq && !n.flow {
            for &item in tree.children(id) {
                let dash = dash_of(text, tree.node(item).start);
                let line = self.line(dash);
                self.content[line] = true;
                self.token_end[line] = self.token_end[line].max(dash + 1);
            }
        }
    }

    /// Marks the lines of `start..end` as content; all but a one-line span are unsure.
    fn span(&mut self, start: usize, end: usize, multi: bool) {
        let (first, last) = (self.line(start), self.line(end.max(start + 1) - 1));
        for line in first..=last.max(first) {
            self.content[line] = true;
            if multi {
                self.unsure[line] = true;
            }
        }
    }

    /// Records which field owns each line: the outermost field starting it, with nothing
    /// before it on the line.
    fn own(&mut self, node: NodeId, start: usize) {
        let tree = self.tree;
        let line = self.line(start);
        // Only YAML's blanks can stand before a node on its line, if anything does.
        let alone = || {
            tree.text.as_bytes()[self.starts[line]..start]
                .iter()
                .all(u8::is_ascii_whitespace)
        };
        if self.owner[line] == NO_NODE && alone() {
            self.owner[line] = node;
        }
        self.innermost[line] = node;
        let n = tree.node(node);
        if n.flow {
            return;
        }
        match n.kind {
            Kind::Map => {
                for (k, v) in tree.entries(node) {
                    self.own(v, tree.node(k).start);
                }
            }
            Kind::Seq => {
                for &item in tree.children(node) {
                    self.own(item, dash_of(tree.text, tree.node(item).start));
                }
            }
            _ => {}
        }
    }

    /// The line a field starts, if it is the field `which` names there.
    pub(super) fn started_line(&self, which: Starts, node: NodeId, start: usize) -> Partner {
        let line = self.line(start);
        let starters = match which {
            Starts::Outermost => &self.owner,
            Starts::Innermost => &self.innermost,
        };
        if starters[line] == node {
            Partner::Line(line)
        } else {
            Partner::Unknown
        }
    }

    /// Whether `line` is the last line of a block scalar kept with `+`: blank lines below it
    /// would be that scalar's value.
    pub(super) fn ends_kept_scalar(&self, line: usize) -> bool {
        self.kept_ends.contains(&line)
    }

    /// The column the comment lines right below `line` may stand at, where `line` (or the
    /// last line above it that is not blank) ends a block scalar: right of it, they would be
    /// that scalar's content. `None` below anything else.
    pub(super) fn comment_column_below(&self, line: usize) -> Option<usize> {
        let mut at = line;
        while at > 0 && self.is_blank_text(at) && !self.kept_ends.contains(&at) {
            at -= 1;
        }
        self.block_ends.get(&at).copied()
    }

    /// Whether a line's text is blank (whatever it was marked as).
    fn is_blank_text(&self, line: usize) -> bool {
        let s = self.starts[line];
        self.tree.text[s..line_end(self.tree.text, s)]
            .trim()
            .is_empty()
    }

    /// Whether a line is only a comment or blank.
    fn is_comment_or_blank(&self, line: usize) -> bool {
        self.non_content(line)
            .is_some_and(|l| l.is_empty() || l.starts_with('#'))
    }

    /// Whether a line is a comment line: not blank.
    fn is_comment(&self, line: usize) -> bool {
        self.non_content(line).is_some_and(|l| l.starts_with('#'))
    }

    /// Whether a line is a closing control line of a template's skeleton.
    fn is_closing(&self, line: usize) -> bool {
        self.non_content(line)
            .is_some_and(skeleton::is_closing_line)
    }

    /// A line without its indentation, unless it holds YAML content.
    fn non_content(&self, line: usize) -> Option<&'t str> {
        if self.content[line] {
            return None;
        }
        let s = self.starts[line];
        Some(self.tree.text[s..line_end(self.tree.text, s)].trim_start())
    }

    /// The foot of the field starting at byte `start` whose value is `value`, below its last
    /// line (see [`Layout::claim_foot`] for the lines its opening and fields' feet hold).
    pub(super) fn foot(&self, value: NodeId, start: usize) -> Spot {
        let line = self.line(start);
        let col = start - self.starts[line];
        let end = self.tree.node(value).end.max(start + 1) - 1;
        Spot::Foot {
            after: self.line(end).max(line),
            col,
        }
    }

    /// A foot moved below the lines already claimed right under its field (its opening, its
    /// fields' feet), then claimed.
    pub(super) fn claim_foot(&mut self, spot: Spot) -> Spot {
        let Spot::Foot { mut after, col } = spot else {
            return spot;
        };
        while self.claimed.contains(&(after + 1)) {
            after += 1;
        }
        let spot = Spot::Foot { after, col };
        self.claim(spot);
        spot
    }

    /// The first line of the comment and blank lines directly above `line` (`line` itself
    /// when there are none; past the last line: those at the end of the text).
    fn head_start(&self, line: usize) -> usize {
        let mut first = line;
        while first > 0
            && self.is_comment_or_blank(first - 1)
            && !self.claimed.contains(&(first - 1))
        {
            first -= 1;
        }
        first
    }

    /// The lines of a spot.
    pub(super) fn run(&self, spot: Spot) -> Range<usize> {
        match spot {
            Spot::Head(line) => self.head_start(line)..line,
            Spot::Opening { line, col } => {
                let mut end = line + 1;
                while end < self.starts.len()
                    && self.is_comment_or_blank(end)
                    && self.indent(end) > col
                    && self.tree.text[self.starts[end]..]
                        .trim_start_matches(' ')
                        .starts_with('#')
                {
                    end += 1;
                }
                line + 1..end
            }
            Spot::Shut(line) => line + 1..line + 1,
            Spot::Foot { after, col } => {
                let n = self.starts.len();
                let mut end = after + 1;
                while end < n && self.is_comment(end) && self.indent(end) > col {
                    end += 1;
                }
                while end < n && self.is_closing(end) && self.indent(end) == col {
                    end += 1;
                }
                after + 1..end
            }
        }
    }

    /// The column a spot's lines are indented from: the field's, or the key's.
    pub(super) fn reference(&self, spot: Spot) -> usize {
        match spot {
            Spot::Head(line) => self.indent(line),
            Spot::Opening { col, .. } => col,
            Spot::Shut(line) => self.indent(line),
            Spot::Foot { col, .. } => col,
        }
    }

    /// Marks the lines of an opening or a foot as its own.
    pub(super) fn claim(&mut self, spot: Spot) {
        self.claimed.extend(self.run(spot));
    }

    /// The comment and blank lines of a spot, relative to its indentation.
    pub(super) fn comments(&self, spot: Spot) -> Vec<HeadLine<'t>> {
        let indent = self.reference(spot) as isize;
        let text = self.tree.text;
        self.run(spot)
            .map(|l| {
                let s = self.starts[l];
                let raw = &text[s..line_end(text, s)];
                let spaces = raw.bytes().take_while(|&b| b == b' ').count();
                HeadLine {
                    rel: spaces as isize - indent,
                    text: &raw[spaces..],
                }
            })
            .collect()
    }

    /// The comment at the end of a line (from the spaces before its `#`), `Some(None)` when
    /// there is none, `None` when it cannot be told.
    pub(super) fn trailing(&self, line: usize) -> Option<Option<Range<usize>>> {
        if self.unsure[line] {
            return None;
        }
        let text = self.tree.text;
        let end = line_end(text, self.starts[line]);
        let from = self.token_end[line].max(self.starts[line]);
        if from > end {
            return None;
        }
        let rest = &text[from..end];
        if rest.trim().is_empty() {
            Some(None)
        } else if rest.starts_with([' ', '\t']) && rest.trim_start().starts_with('#') {
            Some(Some(from..end))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    /// The line lookup that starts from the line found last gives the binary search's
    /// answer wherever the next offset is, near or far, forward or back.
    #[test]
    pub(super) fn a_line_is_found_from_anywhere() {
        let text: String = (0..300)
            .map(|i| format!("k{i}: {}\n", "x".repeat(i % 7)))
            .collect();
        let text = format!("\u{feff}{text}");
        let tree = parse::parse(&text).unwrap();
        let layout = Layout::new(&tree);
        let by_search = |at: usize| {
            layout
                .starts
                .partition_point(|&s| s <= at)
                .saturating_sub(1)
        };
        let mut at = 0usize;
        for step in 0..5000usize {
            // Offsets that walk forward, jump back and far, and land on line starts.
            at = (at * 7 + step * 13 + 1) % (text.len() + 1);
            assert_eq!(layout.line(at), by_search(at), "offset {at}");
            assert_eq!(layout.line(at / 2), by_search(at / 2), "offset {}", at / 2);
            let start = layout.starts[by_search(at)];
            assert_eq!(layout.line(start), by_search(start), "offset {start}");
        }
    }
}
