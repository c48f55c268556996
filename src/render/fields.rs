//! Fields written into ours: theirs' values taken, ours' fields deleted or emptied, theirs'
//! fields inserted, and conflicts around ours' fields.

use std::collections::HashMap;

use anyhow::{Context, Result};

use crate::merge::plan::{Field, Slot};
use crate::parse::{Kind, NodeId, Tree};
use crate::text::{indent_of_line, line_end, line_start, next_line_start, reindent};

use super::regions::{
    after_indicator, column, entry_lines, first_child_line, item_lines, lines, list_key,
    past_comments_inside, sequence_offset,
};
use super::Renderer;
use crate::text::splice::{splice, Edit};

impl Renderer<'_> {
    /// Ours' value replaced by theirs' (theirs' text, quoting and end-of-line comment).
    pub(super) fn take(&self, o: Field, t: Field) -> Edit {
        let (on, tn) = (self.ours.node(o.node), self.theirs.node(t.node));
        let ours = self.ours;
        let eol = self.ours.eol;
        if o.slot == Slot::Root {
            let (from, to) = (column(self.theirs, t), column(self.ours, o));
            let mut text = reindent(self.theirs.src(t.node), from, to, eol);
            let last = self.final_break(on.end, t);
            if !last.is_empty() {
                // Ending the file, a `|+` value's blank lines have no text of ours below.
                for _ in 0..kept_blank_line_count(self.theirs, t.node) {
                    text.push_str(eol);
                }
                text.push_str(last);
            }
            return Edit {
                start: on.start,
                end: on.end,
                text,
            };
        }
        let ours_block = self.ours.is_block_collection(o.node);
        let ours_col = column(self.ours, o);
        let theirs_col = column(self.theirs, t);
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
        if self.theirs.is_block_collection(t.node) {
            let first_child = first_child_line(self.theirs, t.node);
            let child_col = indent_of_line(self.theirs.text, first_child);
            let new_list = !ours_block && tn.kind == Kind::Seq && matches!(o.slot, Slot::Entry(_));
            let ours_child = ours_block
                .then(|| indent_of_line(self.ours.text, first_child_line(self.ours, o.node)));
            // A list written at its key's column (`key:` then `- a` below it) is no column
            // for a map's fields: there they would read as the parent's, and the key as null.
            let indentless = tn.kind == Kind::Map
                && matches!(o.slot, Slot::Entry(_))
                && ours_child.is_some_and(|c| c <= ours_col);
            let to = if let Some(c) = ours_child.filter(|_| !indentless) {
                c
            } else if let Some(offset) = new_list
                .then(|| self.list_style(ours_col, on.start))
                .flatten()
            {
                // A list where ours had none takes the style of ours' nearest list.
                ours_col + offset
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
            let body = first_child..line_end(self.theirs.text, tn.end);
            // The lists inside take ours' styles where they land.
            let shift = to as isize - child_col as isize;
            let mut styles: Vec<Edit> = self
                .sequence_style_edits(self.theirs, t.node, true, shift, on.start)
                .into_iter()
                .filter(|e| body.start < e.start && e.end <= body.end)
                .map(|e| Edit {
                    start: e.start - body.start,
                    end: e.end - body.start,
                    text: e.text,
                })
                .collect();
            let source = &self.theirs.text[body];
            let body = splice(source, &mut styles).unwrap_or_else(|_| source.to_string());
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
        // The blank lines ending a `|+` scalar are its value's, past its span: ours' go with
        // ours' value, theirs' come with theirs'. Where only theirs' is kept with `+`, the
        // blank lines after ours' value (a gap before the next key) would join theirs' value
        // and lengthen it: they go too, theirs' own standing in for them.
        if ours.value_outruns_text(o.node) || self.theirs.value_outruns_text(t.node) {
            let line = line_end(ours.text, end.max(on.end));
            end = if self.theirs.value_outruns_text(t.node) {
                past_blank_lines(ours.text, line)
            } else {
                past_kept_blank_lines(ours, o.node, line)
            };
            for _ in 0..kept_blank_line_count(self.theirs, t.node) {
                text.push_str(eol);
            }
        }
        text.push_str(self.final_break(end, t));
        Edit { start, end, text }
    }

    /// The line break to write after theirs' value `t` put in ours' text up to `end`: where
    /// ours' file ends there without one, the line break that ends theirs' block scalar
    /// (part of its value under `|`, `>` and `+`) has none of ours' to stand on, and the file
    /// gets its final line break. Nothing anywhere else.
    fn final_break(&self, end: usize, t: Field) -> &'static str {
        let (ours, theirs) = (self.ours, self.theirs);
        let theirs_end = theirs.node(t.node).end;
        if end == ours.text.len()
            && !ours.text.ends_with('\n')
            && theirs.ends_in_block_scalar(t.node)
            && line_end(theirs.text, theirs_end) < theirs.text.len()
        {
            ours.eol
        } else {
            ""
        }
    }

    /// Ours' empty `[]`/`{}` replaced by theirs' block collection without the children in
    /// `omit`: theirs' lines below ours' key, at ours' column and sequence style.
    pub(super) fn fill(&self, o: Field, t: Field, omit: &[Field]) -> Result<Edit> {
        let on = self.ours.node(o.node);
        let theirs = self.theirs;
        let eol = self.ours.eol;
        let children: Vec<Field> = if theirs.node(t.node).kind == crate::parse::Kind::Map {
            theirs
                .entries(t.node)
                .map(|(k, v)| Field::entry(k, v))
                .collect()
        } else {
            theirs
                .children(t.node)
                .iter()
                .map(|&e| Field::item(e))
                .collect()
        };
        let omit_edits = self.omitted(omit);
        let col = column(self.ours, o)
            + if theirs.node(t.node).kind == crate::parse::Kind::Seq {
                self.list_style(column(self.ours, o), on.start).unwrap_or(2)
            } else {
                2
            };
        let mut text = String::new();
        for f in children.iter().filter(|f| !omit.contains(f)) {
            text.push_str(&self.moved_lines(theirs, *f, col, None, &omit_edits, on.start)?);
        }
        let text = text.strip_suffix(eol).unwrap_or(&text).to_string();
        let start = after_indicator(self.ours, o).unwrap_or(on.start);
        // Theirs' last element ending in a `|+` scalar brings its blank lines, which are its
        // value: the blank lines after ours' empty value (a gap before the next key) would
        // join it and lengthen it, so they go, theirs' standing in for them.
        let kept = children
            .iter()
            .rfind(|f| !omit.contains(f))
            .is_some_and(|f| theirs.value_outruns_text(f.node));
        let end = match kept {
            true => past_blank_lines(self.ours.text, line_end(self.ours.text, on.end)),
            false => on.end,
        };
        Ok(Edit {
            start,
            end,
            text: format!("{eol}{text}"),
        })
    }

    /// Theirs' anchor written on ours' map value: right after its key's `:`, where YAML puts
    /// a value's properties whatever the value's style (`key: &name {}`, `key: &name` above
    /// a block). Nothing for a value that is not a map's.
    pub(super) fn add_anchor(&self, o: Field, t: NodeId) -> Option<Edit> {
        let name = self.theirs.node(t).anchor()?;
        let Slot::Entry(_) = o.slot else {
            return None;
        };
        let at = after_indicator(self.ours, o)?;
        Some(Edit {
            start: at,
            end: at,
            text: format!(" &{name}"),
        })
    }

    /// Ours' field deleted: its lines, with the comments above it.
    pub(super) fn delete(&self, o: Field) -> Edit {
        let text = self.ours.text;
        let range = lines(self.ours, o);
        let col = column(self.ours, o);
        if line_start(text, range.start) < range.start {
            // The first key on a `- ` line: the dash stays, alone on its line, and the item's
            // other keys keep theirs (`-` then the map below it is the same YAML). Pulling the
            // next key up instead would move lines other edits may be planned at.
            let start = if text[..range.start].ends_with(' ') {
                range.start - 1
            } else {
                range.start
            };
            let end = line_end(text, range.end.saturating_sub(1).max(range.start));
            // The comment lines inside the field (a template's control lines below a value
            // ours cleared) go with it, but not the line break after the last of them: that
            // one ends the dash's line, else the next key's indentation would follow the dash
            // on its line and open a map at another column (adversary
            // templates-theirs-1141-30).
            let past = past_comments_inside(text, end, col);
            let end = match past > end {
                true => line_end(text, line_start(text, past - 1)),
                false => end,
            };
            return Edit {
                start,
                end,
                text: String::new(),
            };
        }
        Edit {
            start: range.start,
            end: past_comments_inside(text, range.end, col),
            text: String::new(),
        }
    }

    /// Ours' value replaced by an empty collection (`[]` or `{}`), keeping its key line.
    pub(super) fn empty(&self, o: Field, list: bool) -> Edit {
        let on = self.ours.node(o.node);
        let empty = if list { "[]" } else { "{}" };
        let (start, prefix) = match after_indicator(self.ours, o) {
            Some(after) => (after, " "),
            None => (on.start, ""),
        };
        let end = if self.ours.is_block_collection(o.node) {
            line_end(self.ours.text, on.end)
        } else {
            on.end
        };
        Edit {
            start,
            end,
            text: format!("{prefix}{empty}"),
        }
    }

    /// Theirs' field (whole lines, with theirs' comments above it) inserted at `at` in ours,
    /// moved to ours' column `col`, without theirs' fields in `omit`.
    pub(super) fn insert(&self, t: Field, at: usize, col: usize, omit: &[Field]) -> Result<Edit> {
        let mut at = self.after_bom(at);
        let text = self.ours.text;
        let last = self.written_last(t.node, omit);
        let block = last.is_some_and(|n| self.theirs.ends_in_block_scalar(n));
        let outruns = last.is_some_and(|n| self.theirs.value_outruns_text(n));
        // A field ending in a literal or folded scalar takes the comment lines below it that
        // stand deeper than its key as content, and the lines of spaces deeper than it (their
        // spaces past the scalar's indentation are its value's): it goes below them (and below
        // the blank lines among them), so that ours' comments stay comments and its value
        // stays theirs' (adversary manifests-mark-1146-1276: ours' line of spaces after a list
        // joined theirs' `|-` value inserted above it).
        if block && at == line_start(text, at) {
            let mut scan = at;
            while scan < text.len() {
                let line = &text[scan..line_end(text, scan)];
                let body = line.trim_start();
                if body.is_empty() && line.len() > col && !line.contains('\t') {
                    scan = next_line_start(text, scan);
                    at = scan;
                } else if body.is_empty() {
                    scan = next_line_start(text, scan);
                } else if body.starts_with('#') && line.len() - body.len() > col {
                    scan = next_line_start(text, scan);
                    at = scan;
                } else {
                    break;
                }
            }
        }
        // A field ending in a `|+` scalar takes every blank line below it as value: put
        // before blank lines of ours, it would take them; it goes below them instead (after
        // the deeper comments above, which may end just before such blank lines).
        if outruns && at == line_start(text, at) {
            while at < text.len() && text[at..line_end(text, at)].trim().is_empty() {
                at = next_line_start(text, at);
            }
        }
        // An entry of theirs' flow map shares its line with its siblings and the braces: its
        // own text (`key: value`, flow text, valid in a block map) goes on a line of its own.
        if let Some(entry) = self.flow_entry(t) {
            let mut new = String::new();
            if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
                new.push_str(self.ours.eol);
            }
            new.push_str(&" ".repeat(col));
            new.push_str(&entry);
            new.push_str(self.ours.eol);
            return Ok(Edit {
                start: at,
                end: at,
                text: new,
            });
        }
        let omit = self.omitted(omit);
        let mut new = String::new();
        if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
            // Ours ends without a line break: so does the result, unless the field ends in a
            // block scalar, whose last line break is part of its value (`|` and `|+` keep it).
            new.push_str(self.ours.eol);
            let lines = self.moved_lines(self.theirs, t, col, None, &omit, at)?;
            if block {
                new.push_str(&lines);
            } else {
                new.push_str(lines.strip_suffix(self.ours.eol).unwrap_or(&lines));
            }
        } else if at > line_start(text, at) {
            // Before the first key of a `- ` item: the new field takes the dash line.
            new.push_str(&self.moved_lines(self.theirs, t, col, Some(""), &omit, at)?);
            new.push_str(&" ".repeat(col));
        } else {
            new.push_str(&self.moved_lines(self.theirs, t, col, None, &omit, at)?);
        }
        Ok(Edit {
            start: at,
            end: at,
            text: new,
        })
    }

    /// The text of theirs' flow value `n` without the map entries whose key is `gone`
    /// (kyaml's delta of a flow map: adversary values-theirs-1143-1337), on one line: each
    /// kept entry as theirs wrote it, a flow map below it rewritten the same way.
    fn flow_without(&self, n: NodeId, gone: &dyn Fn(NodeId) -> bool) -> String {
        let theirs = self.theirs;
        let node = theirs.node(n);
        if node.kind != Kind::Map || !node.flow {
            return theirs.text[node.start..node.end].to_string();
        }
        let entries: Vec<String> = theirs
            .entries(n)
            .filter(|&(k, _)| !gone(k))
            .map(|(k, v)| {
                let head = &theirs.text[theirs.node(k).start..theirs.node(v).start];
                format!("{head}{}", self.flow_without(v, gone))
            })
            .collect();
        format!("{{{}}}", entries.join(", "))
    }

    /// The node of theirs whose text ends theirs' value `t` as written without the fields in
    /// `omit` (kyaml's delta): with its last fields left out, the written text ends in an
    /// earlier one, and that one decides what ours' lines below the insertion become (a block
    /// scalar takes deeper comment lines as content, one kept with `+` blank lines too:
    /// adversary templates-theirs-1138-414). `None` where nothing is left of it but `{}`
    /// or `[]`.
    pub(super) fn written_last(&self, t: NodeId, omit: &[Field]) -> Option<NodeId> {
        let theirs = self.theirs;
        let gone = |n: NodeId| {
            omit.iter().any(|f| match f.slot {
                Slot::Entry(k) => k == n,
                _ => f.node == n,
            })
        };
        let mut n = t;
        loop {
            let node = theirs.node(n);
            let children = theirs.children(n);
            if node.flow || !matches!(node.kind, Kind::Map | Kind::Seq) || children.is_empty() {
                return Some(n);
            }
            n = if node.kind == Kind::Map {
                children
                    .chunks(2)
                    .rev()
                    .find(|entry| !gone(entry[0]))
                    .and_then(|entry| entry.get(1).copied())?
            } else {
                children.iter().rev().copied().find(|&c| !gone(c))?
            };
        }
    }

    /// The text of theirs' map entry `t` (`key: value`) where it stands in a flow map, or of
    /// its list element as a block item (`- value`) where it stands in a flow list, on one
    /// line; `None` for any other field.
    fn flow_entry(&self, t: Field) -> Option<String> {
        let theirs = self.theirs;
        let parent = theirs.node(t.node).parent()?;
        if !theirs.node(parent).flow {
            return None;
        }
        let end = theirs.node(t.node).end;
        let entry = match t.slot {
            Slot::Entry(key) => theirs.text[theirs.node(key).start..end].to_string(),
            // An element of theirs' flow list put into ours' block list (ours mode reads
            // theirs' style as no change): its flow text as a `- ` item.
            Slot::Item => format!("- {}", &theirs.text[theirs.node(t.node).start..end]),
            Slot::Root => return None,
        };
        (!entry.contains('\n')).then_some(entry)
    }

    /// Edits of theirs' text that leave out the given fields of theirs. A map or list left
    /// with none of its children is written empty (`key: {}`), as kyaml writes an empty
    /// delta, not as a null.
    fn omitted(&self, omit: &[Field]) -> Vec<Edit> {
        let theirs = self.theirs;
        let gone = |n: NodeId| {
            omit.iter().any(|f| match f.slot {
                Slot::Entry(k) => k == n,
                _ => f.node == n,
            })
        };
        // A field inside a flow map shares its line with its siblings and the braces: its
        // lines cannot go, so the outermost flow map holding it is written anew instead.
        let in_flow = |f: &Field| {
            theirs
                .node(f.node)
                .parent()
                .is_some_and(|p| theirs.node(p).flow)
        };
        let (flow, omit): (Vec<Field>, Vec<Field>) = omit.iter().partition(|f| in_flow(f));
        let mut tops: Vec<NodeId> = flow
            .iter()
            .filter_map(|f| {
                let mut top = theirs.node(f.node).parent()?;
                while let Some(p) = theirs.node(top).parent().filter(|&p| theirs.node(p).flow) {
                    top = p;
                }
                Some(top)
            })
            .collect();
        tops.sort_unstable();
        tops.dedup();
        let flow_edits: Vec<Edit> = tops
            .into_iter()
            .map(|top| Edit {
                start: theirs.node(top).start,
                end: theirs.node(top).end,
                text: self.flow_without(top, &gone),
            })
            .collect();
        let parents: std::collections::HashSet<NodeId> = omit
            .iter()
            .filter_map(|f| theirs.node(f.node).parent())
            .collect();
        let emptied = parents.into_iter().filter_map(|p| {
            let n = theirs.node(p);
            let step = if n.kind == crate::parse::Kind::Map {
                2
            } else {
                1
            };
            let all_gone = theirs.children(p).iter().step_by(step).all(|&c| gone(c));
            let parent_id = n.parent()?;
            let parent = theirs.node(parent_id);
            // Only a map value gets its `{}` after its key.
            let siblings = theirs.children(parent_id);
            let i = siblings.iter().position(|&c| c == p)?;
            let key =
                (parent.kind == crate::parse::Kind::Map && i % 2 == 1).then(|| siblings[i - 1])?;
            (all_gone && !gone(key)).then(|| {
                let at = line_end(theirs.text, theirs.node(key).end);
                Edit {
                    start: at,
                    end: at,
                    text: if n.kind == crate::parse::Kind::Map {
                        " {}"
                    } else {
                        " []"
                    }
                    .into(),
                }
            })
        });
        let mut edits: Vec<Edit> = emptied.collect();
        edits.extend(flow_edits);
        edits.extend(omit.iter().map(|&f| {
            let mut range = match f.slot {
                Slot::Entry(key) => entry_lines(theirs, key, f.node),
                _ => item_lines(theirs, f.node),
            };
            if let Slot::Entry(key) = f.slot {
                if line_start(theirs.text, range.start) < range.start {
                    // The first key on a `- ` line: pull the first key left up, past the
                    // ones omitted after it.
                    let mut next = next_key(theirs, key);
                    while let Some(k) = next.filter(|&k| gone(k)) {
                        next = next_key(theirs, k);
                    }
                    range.end = match next {
                        Some(k) => theirs.node(k).start,
                        None => range.end,
                    };
                }
            }
            // Right below a kept field ending in a `|+` scalar, the blank lines after the
            // omitted lines, before the next sibling, would join that scalar's value: they
            // go with them (adversary values-theirs-1172-5933). Those past the parent's end
            // are not written here.
            let parent_end = theirs
                .node(f.node)
                .parent()
                .map_or(0, |p| theirs.node(p).end);
            let above = theirs.node(f.node).parent().and_then(|p| {
                let siblings = theirs.children(p);
                let at = siblings.iter().position(|&c| c == f.node)?;
                // An entry's value stands two places after the one above; that entry is
                // named by its key, one place before its value.
                let (before, named) = match f.slot {
                    Slot::Entry(_) => (at.checked_sub(2)?, at.checked_sub(3)?),
                    _ => (at.checked_sub(1)?, at.checked_sub(1)?),
                };
                Some(siblings[before]).filter(|_| !gone(siblings[named]))
            });
            if above.is_some_and(|b| theirs.value_outruns_text(b)) {
                while next_line_start(theirs.text, range.end) < parent_end
                    && range.end == line_start(theirs.text, range.end)
                    && theirs.text[range.end..line_end(theirs.text, range.end)]
                        .trim()
                        .is_empty()
                {
                    range.end = next_line_start(theirs.text, range.end);
                }
            }
            Edit {
                start: range.start,
                end: range.end,
                text: String::new(),
            }
        }));
        // A deletion the pull-up above already covers is no edit of its own.
        let covering: Vec<(usize, usize)> = edits.iter().map(|e| (e.start, e.end)).collect();
        edits.retain(|e| {
            !covering.iter().any(|&(start, end)| {
                start <= e.start && e.end <= end && (start, end) != (e.start, e.end)
            })
        });
        edits
    }

    /// A conflict over ours' lines of consecutive fields (or, when ours has none, at
    /// `anchor`), with base's and theirs' versions moved to ours' column.
    pub(super) fn conflict(
        &self,
        base: &[Field],
        ours: &[Field],
        theirs: &[Field],
        anchor: usize,
        column_if_none: usize,
    ) -> Result<Edit> {
        let (range, col, prefix) = match (ours.first(), ours.last()) {
            (Some(&first), Some(&last)) => {
                let r = lines(self.ours, first);
                let ls = line_start(self.ours.text, r.start);
                let prefix = (ls < r.start).then(|| self.ours.text[ls..r.start].to_string());
                let col = column(self.ours, first);
                let mut end = lines(self.ours, last).end;
                // Where theirs deleted the fields, the comment lines indented into ours' last
                // one are ours' change to it, and go into ours' side: left below the markers,
                // taking theirs' side would leave them under whatever precedes.
                if theirs.is_empty() {
                    end = past_comments_inside(self.ours.text, end, column(self.ours, last));
                }
                (ls..end, col, prefix)
            }
            _ => (anchor..anchor, column_if_none, None),
        };
        let mut range = self.after_bom(range.start)..range.end.max(self.after_bom(range.start));
        // A side whose last field ends in a block scalar kept with `+` takes every blank line
        // below it into that scalar's value: ours' blank lines left below the markers would
        // lengthen it when that side is taken, so they go into ours' side.
        let kept = |tree: &Tree, fields: &[Field]| {
            fields
                .last()
                .is_some_and(|f| tree.kept_blank_lines(f.node).is_some())
        };
        if kept(self.theirs, theirs) || kept(self.base, base) {
            range.end = super::past_blank_lines(self.ours.text, range.end);
        }
        let mut ours_text = self.ours.text[range.clone()].to_string();
        if !ours_text.is_empty() && !ours_text.ends_with('\n') {
            ours_text.push_str(self.ours.eol);
        }
        let side = |tree: &Tree, fields: &[Field]| -> Result<String> {
            fields
                .iter()
                .map(|&f| self.moved_lines(tree, f, col, prefix.as_deref(), &[], range.start))
                .collect()
        };
        let base_text = side(self.base, base)?;
        let theirs_text = side(self.theirs, theirs)?;
        let mut text = String::new();
        let mut start = range.start;
        let ls = line_start(self.ours.text, start);
        if range.start == self.ours.text.len()
            && !self.ours.text.is_empty()
            && !self.ours.text.ends_with('\n')
        {
            text.push_str(self.ours.eol);
        } else if ours.is_empty() && !self.ours.text[ls..start].trim().is_empty() {
            // Before the first key of a `- ` item: the markers need lines of their own, so the
            // dash stays alone on its line and the key moves below the conflict.
            if self.ours.text[..start].ends_with(' ') {
                start -= 1;
            }
            text.push_str(self.ours.eol);
            text.push_str(&self.markers().wrap(&ours_text, &base_text, &theirs_text));
            text.push_str(&" ".repeat(col));
            return Ok(Edit {
                start,
                end: range.end,
                text,
            });
        }
        text.push_str(&self.markers().wrap(&ours_text, &base_text, &theirs_text));
        Ok(Edit {
            start,
            end: range.end,
            text,
        })
    }

    /// merge2's `$patch: replace`: theirs' fields in place of ours' children.
    pub(super) fn replace_children(
        &self,
        o: Field,
        theirs: &[Field],
        out: &mut Vec<Edit>,
    ) -> Result<()> {
        let ours = self.ours;
        let children: Vec<Field> = if ours.node(o.node).kind == crate::parse::Kind::Map {
            ours.entries(o.node)
                .map(|(k, v)| Field::entry(k, v))
                .collect()
        } else {
            ours.children(o.node)
                .iter()
                .map(|&e| Field::item(e))
                .collect()
        };
        let (Some(&first), Some(&last)) = (children.first(), children.last()) else {
            return Ok(());
        };
        let col = column(ours, first);
        let at = lines(ours, last).end;
        for &f in theirs {
            out.push(self.insert(f, at, col, &[])?);
        }
        out.push(Edit {
            start: lines(ours, first).start,
            end: at,
            text: String::new(),
        });
        Ok(())
    }

    /// The text of a field's lines moved to column `to` (with ours' line endings, and the
    /// sequence style of ours' lists nearest to `at`, where they land in ours), as whole
    /// lines, without the ranges `omit` deletes. When ours' lines start mid-line (`- ` before
    /// a key), `prefix` stands in for the first line's indentation.
    pub(super) fn moved_lines(
        &self,
        tree: &Tree,
        f: Field,
        to: usize,
        prefix: Option<&str>,
        omit: &[Edit],
        at: usize,
    ) -> Result<String> {
        let range = lines(tree, f);
        let mut local: Vec<Edit> = omit
            .iter()
            .filter(|e| e.start >= range.start && e.end <= range.end)
            .cloned()
            .collect();
        let shift = to as isize - column(tree, f) as isize;
        for e in self.sequence_style_edits(tree, f.node, false, shift, at) {
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
        let edited = splice(source, &mut local).context("moving lines from another version")?;
        let text = edited.as_str();
        let from = column(tree, f);
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
        Ok(out)
    }

    /// Edits of `tree`'s text that give each block sequence under `node` (and `node` itself
    /// unless `inner_only`) the sequence style of ours' list nearest to `at` with its key at
    /// the same column (dashes flush with their key, or indented by as much as that list
    /// indents them). `shift` is how far the text moves right as a whole, which decides the
    /// column a key lands on.
    fn sequence_style_edits(
        &self,
        tree: &Tree,
        node: NodeId,
        inner_only: bool,
        shift: isize,
        at: usize,
    ) -> Vec<Edit> {
        // Nested sequences shift their lines together: one total shift per line. Outer
        // sequences come first (a node before its children), so a key's line already holds
        // the shift of every list around it.
        let mut shifts: HashMap<usize, isize> = HashMap::new();
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            stack.extend(tree.children(n).iter().rev());
            if inner_only && n == node {
                continue;
            }
            let (Some(have), Some(key)) = (sequence_offset(tree, n), list_key(tree, n)) else {
                continue;
            };
            let key_line = line_start(tree.text, tree.node(key).start);
            let key_col = tree.node(key).start - key_line;
            let lands = key_col as isize + shift + shifts.get(&key_line).copied().unwrap_or(0);
            let Some(want) = self.list_style(lands.max(0) as usize, at) else {
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
}

/// The key after `key` in its map, if there is one.
fn next_key(tree: &Tree, key: NodeId) -> Option<NodeId> {
    let entries = tree.children(tree.node(key).parent()?);
    let i = entries.iter().position(|&c| c == key)?;
    entries.get(i + 2).copied()
}

impl Renderer<'_> {
    /// Ours' block map with its entries in the order of `keys`: each entry's lines as ours
    /// wrote them, at their column (the merge checked nothing else stands between them).
    pub(super) fn reorder(&self, o: Field, keys: &[NodeId]) -> Result<Edit> {
        let ours = self.ours;
        let lines_of = |k: NodeId, v: NodeId| {
            ours.node(k).start..line_end(ours.text, ours.node(v).end.max(ours.node(k).end))
        };
        let entries: Vec<(NodeId, NodeId)> = ours.entries(o.node).collect();
        let value: HashMap<NodeId, NodeId> = entries.iter().copied().collect();
        let (Some(&(first, _)), Some(&(k, v))) = (entries.first(), entries.last()) else {
            anyhow::bail!("a reorder planned for an empty map");
        };
        let start = ours.node(first).start;
        let end = lines_of(k, v).end;
        let column = start - line_start(ours.text, start);
        let separator = format!("{}{}", ours.eol, " ".repeat(column));
        let text = keys
            .iter()
            .filter_map(|k| value.get(k).map(|&v| &ours.text[lines_of(*k, v)]))
            .collect::<Vec<_>>()
            .join(&separator);
        Ok(Edit { start, end, text })
    }
}

/// How many blank lines end the `|+` scalar a node ends in (part of its value, below its span).
/// One ending its file without a line break has no break at all, and no blank line.
fn kept_blank_line_count(tree: &Tree, node: NodeId) -> usize {
    tree.kept_blank_lines(node)
        .map_or(0, |breaks| breaks.saturating_sub(1))
}

/// From `end`, the end of a line, past the blank lines that follow it (the end of the text,
/// after its last line break, is no line: its break stays).
fn past_blank_lines(text: &str, mut end: usize) -> usize {
    loop {
        let next = next_line_start(text, end);
        if next == end || next == text.len() || !text[next..line_end(text, next)].trim().is_empty()
        {
            return end;
        }
        end = line_end(text, next);
    }
}

/// From `end`, the end of the line where a node's span ends, past the blank lines of the `|+`
/// scalar it ends in (each line's break but the last's): what replacing the node replaces.
fn past_kept_blank_lines(tree: &Tree, node: NodeId, mut end: usize) -> usize {
    let text = tree.text;
    for _ in 0..kept_blank_line_count(tree, node) {
        let next = next_line_start(text, end);
        if next == end || next == text.len() || !text[next..line_end(text, next)].trim().is_empty()
        {
            break;
        }
        end = line_end(text, next);
    }
    end
}
