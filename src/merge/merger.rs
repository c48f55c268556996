//! The state of one structural merge: the three trees, the edits planned against ours, the
//! conflicts found, and the primitives every rule uses to change ours' text.

use std::collections::HashMap;
use std::ops::Range;

use crate::parse::{indent_of_line, line_end, line_start, next_line_start, Kind, NodeId, Tree};
use crate::render::{dash_of, entry_lines, item_lines, key_lines_start, reindent, Edit, Markers};

use super::{Conflict, MergeOptions};

/// Where a node sits, which decides the lines that are "its" lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A map value, with its key.
    Entry(NodeId),
    /// A block sequence item.
    Item,
    /// A document's root.
    Root,
}

/// A node of one version with its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    pub slot: Slot,
    pub node: NodeId,
}

pub struct Merger<'t> {
    pub base: &'t Tree<'t>,
    pub ours: &'t Tree<'t>,
    pub theirs: &'t Tree<'t>,
    pub opts: &'t MergeOptions,
    pub edits: Vec<Edit>,
    pub conflicts: Vec<Conflict>,
    /// The resource being merged, for conflict messages.
    pub resource: String,
    /// Its `group/Kind`, for the list-key schema.
    pub group_kind: Option<String>,
    /// Ours' fields deleted so far, with the bytes their deletion removes.
    pub deleted: HashMap<NodeId, Range<usize>>,
    /// How far ours indents a block sequence's dashes from its key (0 or 2, usually), so
    /// text from theirs takes ours' sequence style; `None` when ours has no such sequence.
    pub ours_sequence_offset: Option<usize>,
}

impl<'t> Merger<'t> {
    /// The column a field's lines are indented to: its key's, its dash's, 0 for a root.
    pub fn column(tree: &Tree, f: Field) -> usize {
        let at = match f.slot {
            Slot::Entry(key) => tree.node(key).start,
            Slot::Item => dash_of(tree.text, tree.node(f.node).start),
            Slot::Root => tree.node(f.node).start,
        };
        at - line_start(tree.text, at)
    }

    /// The whole lines a field occupies.
    pub fn lines(tree: &Tree, f: Field) -> std::ops::Range<usize> {
        match f.slot {
            Slot::Entry(key) => entry_lines(tree, key, f.node),
            Slot::Item => item_lines(tree, f.node),
            Slot::Root => {
                let n = tree.node(f.node);
                line_start(tree.text, n.start)..next_line_start(tree.text, n.end)
            }
        }
    }

    /// The text of a field's lines moved to column `to` (with ours' line endings), as whole
    /// lines. When ours' lines start mid-line (`- ` before a key), `prefix` stands in for the
    /// first line's indentation.
    pub fn moved_lines(&self, tree: &Tree, f: Field, to: usize, prefix: Option<&str>) -> String {
        self.moved_lines_edited(tree, f, to, prefix, &[])
    }

    /// [`Self::moved_lines`] with `edits` (against `tree`'s text) applied first.
    pub fn moved_lines_edited(
        &self,
        tree: &Tree,
        f: Field,
        to: usize,
        prefix: Option<&str>,
        edits: &[Edit],
    ) -> String {
        let range = Self::lines(tree, f);
        let mut local: Vec<Edit> = edits
            .iter()
            .filter(|e| e.start >= range.start && e.end <= range.end)
            .cloned()
            .collect();
        for e in self.sequence_style_edits(tree, f.node) {
            if range.contains(&e.start)
                && !local.iter().any(|d| d.start <= e.start && e.start < d.end)
            {
                local.push(e);
            }
        }
        for e in &mut local {
            e.start -= range.start;
            e.end -= range.start;
        }
        let source = &tree.text[range.clone()];
        // The style edits never overlap the caller's (checked above), so the splice holds.
        let edited =
            crate::render::splice(source, &mut local).unwrap_or_else(|_| source.to_string());
        let text = edited.as_str();
        let from = Self::column(tree, f);
        let first_indent = text.bytes().take_while(|&b| b == b' ').count();
        // The first line's own indentation, relative to the field's column.
        let lead = if range.start == line_start(tree.text, range.start) {
            first_indent.saturating_sub(from)
        } else {
            0
        };
        let body = reindent(&text[first_indent..], from, to, self.ours.eol);
        let mut out = match prefix {
            Some(p) => p.to_string(),
            None => " ".repeat(to + lead),
        };
        out.push_str(&body);
        if !out.ends_with('\n') {
            out.push_str(self.ours.eol);
        }
        out
    }

    /// Edits of `tree`'s text that give the block sequences under `node` ours' sequence
    /// style (dashes flush with their key, or indented by as much as ours indents them).
    fn sequence_style_edits(&self, tree: &Tree, node: NodeId) -> Vec<Edit> {
        let Some(want) = self.ours_sequence_offset else {
            return Vec::new();
        };
        // Nested sequences shift their lines together: one total shift per line.
        let mut shifts: HashMap<usize, isize> = HashMap::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            stack.extend(&tree.node(n).children);
            let Some(have) = sequence_offset(tree, n) else {
                continue;
            };
            if have == want {
                continue;
            }
            let seq = tree.node(n);
            let mut line = line_start(tree.text, seq.start);
            let last = line_start(tree.text, seq.end);
            while line <= last && line < tree.text.len() {
                *shifts.entry(line).or_default() += want as isize - have as isize;
                line = next_line_start(tree.text, line);
            }
        }
        shifts
            .into_iter()
            .filter_map(|(line, shift)| {
                let spaces = tree.text[line..].bytes().take_while(|&b| b == b' ').count();
                let blank = tree.text[line + spaces..].starts_with(['\n', '\r'])
                    || line + spaces == tree.text.len();
                match shift {
                    _ if blank || shift == 0 => None,
                    s if s > 0 => Some(Edit {
                        start: line,
                        end: line,
                        text: " ".repeat(s.unsigned_abs()),
                    }),
                    s => Some(Edit {
                        start: line,
                        end: line + s.unsigned_abs().min(spaces),
                        text: String::new(),
                    }),
                }
            })
            .collect()
    }

    pub fn markers(&self) -> Markers<'_> {
        let l = &self.opts.labels;
        Markers {
            size: self.opts.marker_size,
            labels: [&l.base, &l.ours, &l.theirs],
            diff3: self.opts.style != super::ConflictStyle::Merge,
            eol: self.ours.eol,
        }
    }

    /// Marks a conflict over ours' lines of a field (or, when ours has no such field, at
    /// `anchor`), with base's and theirs' versions of it moved to ours' column.
    #[allow(clippy::too_many_arguments)]
    pub fn conflict(
        &mut self,
        path: &str,
        what: String,
        base: Option<Field>,
        ours: Option<Field>,
        theirs: Option<Field>,
        anchor: usize,
        column: usize,
    ) {
        let fields = |f: Option<Field>| f.into_iter().collect::<Vec<_>>();
        self.conflict_many(
            path,
            what,
            &fields(base),
            &fields(ours),
            &fields(theirs),
            anchor,
            column,
        );
    }

    /// Marks a conflict over a run of ours' fields (consecutive elements of one list).
    #[allow(clippy::too_many_arguments)]
    pub fn conflict_many(
        &mut self,
        path: &str,
        what: String,
        base: &[Field],
        ours: &[Field],
        theirs: &[Field],
        anchor: usize,
        column: usize,
    ) {
        let (range, col, prefix) = match (ours.first(), ours.last()) {
            (Some(&first), Some(&last)) => {
                let r = Self::lines(self.ours, first);
                let ls = line_start(self.ours.text, r.start);
                let prefix = (ls < r.start).then(|| self.ours.text[ls..r.start].to_string());
                (
                    ls..Self::lines(self.ours, last).end,
                    Self::column(self.ours, first),
                    prefix,
                )
            }
            _ => (anchor..anchor, column, None),
        };
        let range = self.after_bom(range.start)..range.end.max(self.after_bom(range.start));
        let mut ours_text = self.ours.text[range.clone()].to_string();
        if !ours_text.is_empty() && !ours_text.ends_with('\n') {
            ours_text.push_str(self.ours.eol);
        }
        let side = |tree: &Tree, fields: &[Field]| -> String {
            fields
                .iter()
                .map(|&f| self.moved_lines(tree, f, col, prefix.as_deref()))
                .collect()
        };
        let base_text = side(self.base, base);
        let theirs_text = side(self.theirs, theirs);
        let mut text = String::new();
        if range.start == self.ours.text.len()
            && !self.ours.text.is_empty()
            && !self.ours.text.ends_with('\n')
        {
            text.push_str(self.ours.eol);
        }
        text.push_str(&self.markers().wrap(&ours_text, &base_text, &theirs_text));
        self.edits.push(Edit {
            start: range.start,
            end: range.end,
            text,
        });
        self.conflicts.push(Conflict {
            resource: self.resource.clone(),
            path: if path.is_empty() {
                "(document)".into()
            } else {
                path.to_string()
            },
            what,
        });
    }

    /// Replaces ours' value with theirs' (theirs' text, quoting and end-of-line comment).
    pub fn take_theirs(&mut self, o: Field, t: Field) {
        let (on, tn) = (self.ours.node(o.node), self.theirs.node(t.node));
        let eol = self.ours.eol;
        if o.slot == Slot::Root {
            let (from, to) = (Self::column(self.theirs, t), Self::column(self.ours, o));
            let text = reindent(self.theirs.src(t.node), from, to, eol);
            self.edits.push(Edit {
                start: on.start,
                end: on.end,
                text,
            });
            return;
        }
        let ours_block = is_block_collection(self.ours, o.node);
        let ours_col = Self::column(self.ours, o);
        let theirs_col = Self::column(self.theirs, t);
        // Ours' key line stays (with its comment) when ours' value is a block below it.
        let indicator = after_indicator(self.ours, o).unwrap_or(on.start);
        let (mut start, mut end) = if ours_block {
            (
                line_end(self.ours.text, indicator),
                line_end(self.ours.text, on.end),
            )
        } else {
            (on.start, on.end)
        };
        let mut text = String::new();
        if is_block_collection(self.theirs, t.node) {
            let first_child = first_child_line(self.theirs, t.node);
            let child_col = indent_of_line(self.theirs.text, first_child);
            let to = if ours_block {
                indent_of_line(self.ours.text, first_child_line(self.ours, o.node))
            } else {
                ours_col + child_col.saturating_sub(theirs_col)
            };
            let props = self.theirs.text[tn.start..first_child.max(tn.start)].trim_end();
            if !props.is_empty() || !ours_block {
                start = indicator;
                end = line_end(self.ours.text, on.end);
                if !props.is_empty() {
                    text.push(' ');
                    text.push_str(props);
                }
            }
            let body = &self.theirs.text[first_child..line_end(self.theirs.text, tn.end)];
            text.push_str(eol);
            text.push_str(&" ".repeat(to));
            text.push_str(&reindent(body.trim_start_matches(' '), child_col, to, eol));
        } else {
            // Ours' value is a block, or empty (`key:`): theirs' follows the indicator.
            let empty = on.start == on.end && self.ours.text[..on.start].ends_with([':', '-']);
            if ours_block || empty {
                start = if ours_block { indicator } else { start };
                text.push(' ');
            }
            text.push_str(&reindent(
                self.theirs.src(t.node),
                theirs_col,
                ours_col,
                eol,
            ));
            // Theirs' end-of-line comment comes with the value it describes; without one,
            // ours' comment stays.
            let line_rest = line_end(self.ours.text, on.end);
            let ours_rest = &self.ours.text[on.end..line_rest];
            let theirs_rest = &self.theirs.text[tn.end..line_end(self.theirs.text, tn.end)];
            if theirs_rest.trim_start().starts_with('#')
                && (ours_rest.trim().is_empty() || ours_rest.trim_start().starts_with('#'))
            {
                end = line_rest;
                text.push_str(theirs_rest);
            }
        }
        self.edits.push(Edit { start, end, text });
    }

    /// Deletes ours' field (its lines, with the comments above it).
    pub fn delete(&mut self, o: Field) {
        let text = self.ours.text;
        let range = Self::lines(self.ours, o);
        let range = if line_start(text, range.start) < range.start {
            // The first key on a `- ` line: the dash stays, alone on its line, and the item's
            // other keys keep theirs (`-` then the map below it is the same YAML). Pulling the
            // next key up instead would move lines other edits may be planned at.
            let start = if text[..range.start].ends_with(' ') {
                range.start - 1
            } else {
                range.start
            };
            start..line_end(text, range.end.saturating_sub(1).max(range.start))
        } else {
            range
        };
        self.deleted.insert(o.node, range.clone());
        self.edits.push(Edit {
            start: range.start,
            end: range.end,
            text: String::new(),
        });
    }

    /// Replaces ours' value with a short flow text (`{}`), keeping its key line.
    pub fn replace_with(&mut self, o: Field, text: &str) {
        let on = self.ours.node(o.node);
        let (start, prefix) = match after_indicator(self.ours, o) {
            Some(after) => (after, " "),
            None => (on.start, ""),
        };
        let end = if is_block_collection(self.ours, o.node) {
            line_end(self.ours.text, on.end)
        } else {
            on.end
        };
        self.edits.push(Edit {
            start,
            end,
            text: format!("{prefix}{text}"),
        });
    }

    /// Inserts theirs' field (whole lines, with theirs' comments above it) at `at` in ours,
    /// moved to ours' column `col`.
    /// `edits` (against theirs' text) trim what is inserted (kyaml's delta).
    pub fn insert(&mut self, t: Field, at: usize, col: usize, edits: &[Edit]) {
        let at = self.after_bom(at);
        let text = self.ours.text;
        let mut new = String::new();
        if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
            // Ours ends without a line break: so does the result.
            new.push_str(self.ours.eol);
            let lines = self.moved_lines_edited(self.theirs, t, col, None, edits);
            new.push_str(lines.strip_suffix(self.ours.eol).unwrap_or(&lines));
        } else if at > line_start(text, at) {
            // Before the first key of a `- ` item: the new field takes the dash line.
            let lines = self.moved_lines_edited(self.theirs, t, col, Some(""), edits);
            new.push_str(&lines);
            new.push_str(&" ".repeat(col));
        } else {
            new.push_str(&self.moved_lines_edited(self.theirs, t, col, None, edits));
        }
        self.edits.push(Edit {
            start: at,
            end: at,
            text: new,
        });
    }

    /// A byte-order mark stays the first thing in the file: nothing is inserted before it.
    pub fn after_bom(&self, at: usize) -> usize {
        let bom = if self.ours.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        at.max(bom)
    }

    /// Where a field inserted after ours' field `after` goes: the start of the next line.
    pub fn after(&self, f: Field) -> usize {
        Self::lines(self.ours, f).end
    }

    /// Where a field inserted before ours' field `before` goes: above its comments.
    pub fn before(&self, f: Field) -> usize {
        match f.slot {
            Slot::Entry(key) => key_lines_start(self.ours.text, self.ours.node(key).start),
            _ => Self::lines(self.ours, f).start,
        }
    }
}

/// How far a block sequence that is a map value sits right of its key; `None` for anything
/// else.
pub fn sequence_offset(tree: &Tree, seq: NodeId) -> Option<usize> {
    let n = tree.node(seq);
    if n.kind != Kind::Seq || n.flow || n.children.is_empty() {
        return None;
    }
    let parent = tree.node(n.parent?);
    if parent.kind != Kind::Map {
        return None;
    }
    let i = parent.children.iter().position(|&c| c == seq)?;
    let key = tree.node(*parent.children.get(i.checked_sub(1)?)?);
    let key_col = key.start - line_start(tree.text, key.start);
    let dash = dash_of(tree.text, tree.node(n.children[0]).start);
    (dash - line_start(tree.text, dash)).checked_sub(key_col)
}

/// A block map or block sequence with children.
pub fn is_block_collection(tree: &Tree, id: NodeId) -> bool {
    let n = tree.node(id);
    matches!(n.kind, Kind::Map | Kind::Seq) && !n.flow && !n.children.is_empty()
}

/// The start of the line holding a block collection's first child (its dash for a sequence).
fn first_child_line(tree: &Tree, id: NodeId) -> usize {
    let n = tree.node(id);
    let first = n.children.first().map_or(n.start, |&c| tree.node(c).start);
    let at = if n.kind == Kind::Seq {
        dash_of(tree.text, first)
    } else {
        first
    };
    line_start(tree.text, at)
}

/// The position right after a field's `:` or `-`.
fn after_indicator(tree: &Tree, f: Field) -> Option<usize> {
    match f.slot {
        Slot::Entry(key) => {
            let k = tree.node(key).end;
            tree.text[k..].find(':').map(|i| k + i + 1)
        }
        Slot::Item => Some(dash_of(tree.text, tree.node(f.node).start) + 1),
        Slot::Root => None,
    }
}
