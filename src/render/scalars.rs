//! Values merged inside ours' text rather than replaced: block scalars merged line by line
//! and flow lists merged element by element.

use crate::merge::plan::{Field, Side};
use crate::parse::NodeId;
use crate::text::line_end;
use crate::text::Chunk;
use anyhow::Result;

use super::regions::{after_indicator, column};
use super::Renderer;
use crate::text::splice::Edit;

impl Renderer<'_> {
    /// A block scalar's content rewritten from the chunks of its 3-way line merge, in ours'
    /// indentation; conflicting chunks are marked inside the scalar, as git's would be.
    pub(super) fn lines(&self, b: Field, o: Field, t: Field, chunks: &[Chunk]) -> Option<Edit> {
        let (bb, ob, tb) = (
            self.base.block_lines(b.node)?,
            self.ours.block_lines(o.node)?,
            self.theirs.block_lines(t.node)?,
        );
        let on = self.ours.node(o.node);
        let indent = if ob.content < on.end {
            ob.indent
        } else {
            column(self.ours, o) + 2
        };
        let line = |l: &str| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{}{l}", " ".repeat(indent))
            }
        };
        let mut merged: Vec<String> = Vec::new();
        for chunk in chunks {
            match chunk {
                Chunk::Same { ours } | Chunk::Ours { ours } | Chunk::Both { ours, .. } => {
                    merged.extend(ob.lines[ours.clone()].iter().map(|l| line(l)))
                }
                Chunk::Theirs { theirs, .. } => {
                    merged.extend(tb.lines[theirs.clone()].iter().map(|l| line(l)))
                }
                Chunk::Conflict { base, ours, theirs } => {
                    let part = |lines: &[&str]| {
                        lines
                            .iter()
                            .map(|l| line(l) + self.ours.eol)
                            .collect::<String>()
                    };
                    let marked = self.markers().wrap(
                        &part(&ob.lines[ours.clone()]),
                        &part(&bb.lines[base.clone()]),
                        &part(&tb.lines[theirs.clone()]),
                    );
                    let marked = marked.strip_suffix(self.ours.eol).unwrap_or(&marked);
                    merged.push(marked.to_string());
                }
            }
        }
        Some(Edit {
            start: ob.content,
            end: line_end(self.ours.text, on.end).max(ob.content),
            text: merged.join(self.ours.eol),
        })
    }

    /// Ours' flow map rewritten as one flow map of the given entries' own text.
    pub(super) fn flow_map(&self, o: Field, entries: &[(Side, NodeId, NodeId)]) -> Edit {
        let on = self.ours.node(o.node);
        let text = entries
            .iter()
            .map(|&(side, k, v)| {
                let tree = match side {
                    Side::Ours => self.ours,
                    Side::Theirs => self.theirs,
                };
                format!("{}: {}", tree.src(k), tree.src(v))
            })
            .collect::<Vec<_>>()
            .join(", ");
        Edit {
            start: on.start,
            end: on.end,
            text: format!("{{{text}}}"),
        }
    }

    /// Ours' flow map rewritten as a block map below its key: ours' entries (one line of
    /// flow text each) one to a line, theirs' entries as their own lines, moved to the
    /// column below ours' key (the merge made sure nothing but a comment follows the map).
    pub(super) fn block_map(&self, o: Field, entries: &[(Side, NodeId, NodeId)]) -> Result<Edit> {
        let ours = self.ours;
        let eol = ours.eol;
        let col = column(ours, o) + 2;
        let on = ours.node(o.node);
        // A comment after the braces stays on the key's line, after the `:`.
        let end = line_end(ours.text, on.end);
        let comment = ours.text[on.end..end].trim();
        let mut text = match comment.is_empty() {
            true => String::new(),
            false => format!(" {comment}"),
        };
        for &(side, k, v) in entries {
            match side {
                Side::Ours => {
                    let indent = " ".repeat(col);
                    text.push_str(&format!("{eol}{indent}{}: {}", ours.src(k), ours.src(v)));
                }
                Side::Theirs => {
                    let lines = self.moved_lines(
                        self.theirs,
                        Field::entry(k, v),
                        col,
                        None,
                        &[],
                        on.start,
                    )?;
                    text.push_str(eol);
                    text.push_str(lines.strip_suffix(eol).unwrap_or(&lines));
                }
            }
        }
        Ok(Edit {
            start: after_indicator(ours, o).unwrap_or(on.start),
            end,
            text,
        })
    }

    /// Ours' block scalar header replaced by theirs'.
    pub(super) fn header(&self, o: Field, t: Field) -> Option<Edit> {
        let (at, ours) = self.ours.block_header(o.node)?;
        let (_, theirs) = self.theirs.block_header(t.node)?;
        Some(Edit {
            start: at,
            end: at + ours.len(),
            text: theirs.to_string(),
        })
    }

    /// A flow list (`args: [a, b]`) with theirs' stretches written inside ours' brackets.
    pub(super) fn flow_list(&self, o: Field, t: Field, chunks: &[Chunk]) -> Vec<Edit> {
        let (ours, theirs) = (self.ours, self.theirs);
        let oi = ours.children(o.node);
        let ti = theirs.children(t.node);
        let mut out = Vec::new();
        for chunk in chunks {
            let Chunk::Theirs {
                ours: or,
                theirs: tr,
                ..
            } = chunk
            else {
                continue;
            };
            let new = ti[tr.clone()]
                .iter()
                .map(|&i| theirs.src(i))
                .collect::<Vec<_>>()
                .join(", ");
            let span = |j: usize| (ours.node(oi[j]).start, ours.node(oi[j]).end);
            let (start, end, text) = if or.is_empty() {
                if oi.is_empty() {
                    let open = ours.text[ours.node(o.node).start..]
                        .find('[')
                        .map_or(ours.node(o.node).start, |i| ours.node(o.node).start + i + 1);
                    (open, open, new)
                } else if or.start < oi.len() {
                    let at = span(or.start).0;
                    (at, at, format!("{new}, "))
                } else {
                    let at = span(oi.len() - 1).1;
                    (at, at, format!(", {new}"))
                }
            } else if !new.is_empty() {
                (span(or.start).0, span(or.end - 1).1, new)
            } else if or.end < oi.len() {
                (span(or.start).0, span(or.end).0, String::new())
            } else if or.start > 0 {
                (span(or.start - 1).1, span(or.end - 1).1, String::new())
            } else {
                (span(or.start).0, span(or.end - 1).1, String::new())
            };
            out.push(Edit { start, end, text });
        }
        out
    }
}
