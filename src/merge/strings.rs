//! Multi-line strings (block scalars: scripts, config files, certificates) changed on both
//! sides are merged line by line before anything is called a conflict.

use crate::parse::{indent_of_line, line_end, next_line_start, Style, Tree};
use crate::render::Edit;

use super::diff3::{diff3, Chunk};
use super::merger::{Field, Merger};
use super::path::Path;
use super::{Conflict, Policy};

/// A block scalar's header line end and its content lines without their indentation.
struct Block<'a> {
    /// Where the content starts (the line after the header).
    content: usize,
    lines: Vec<&'a str>,
}

fn block<'a>(tree: &Tree<'a>, f: Field) -> Option<Block<'a>> {
    let n = tree.node(f.node);
    if !matches!(n.style, Style::Literal | Style::Folded) {
        return None;
    }
    let content = next_line_start(tree.text, n.start);
    if content >= n.end {
        return Some(Block {
            content,
            lines: Vec::new(),
        });
    }
    let indent = indent_of_line(tree.text, content);
    let body = &tree.text[content..line_end(tree.text, n.end)];
    let lines = body
        .split('\n')
        .map(|l| {
            let l = l.strip_suffix('\r').unwrap_or(l);
            let have = l.bytes().take_while(|&b| b == b' ').count();
            &l[have.min(indent)..]
        })
        .collect();
    Some(Block { content, lines })
}

impl Merger<'_> {
    /// Merges a block scalar both sides changed, line by line, into ours. Where both changed
    /// the same lines, the conflict markers wrap just those lines (in `ours` mode ours'
    /// lines stay). Returns false (planning nothing) unless all three are block scalars.
    pub fn merge_lines(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) -> bool {
        let Some(b) = b else { return false };
        let (Some(bb), Some(ob), Some(tb)) = (
            block(self.base, b),
            block(self.ours, o),
            block(self.theirs, t),
        ) else {
            return false;
        };
        let on = self.ours.node(o.node);
        let indent = if ob.content < on.end {
            indent_of_line(self.ours.text, ob.content)
        } else {
            Merger::column(self.ours, o) + 2
        };
        let line = |l: &str| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{}{l}", " ".repeat(indent))
            }
        };
        let mut merged: Vec<String> = Vec::new();
        let mut conflicts = 0;
        for chunk in diff3(&bb.lines, &ob.lines, &tb.lines) {
            match chunk {
                Chunk::Same { ours } | Chunk::Ours { ours } => {
                    merged.extend(ob.lines[ours].iter().map(|l| line(l)))
                }
                Chunk::Theirs { theirs, .. } => {
                    merged.extend(tb.lines[theirs].iter().map(|l| line(l)))
                }
                Chunk::Conflict { base, ours, theirs } => {
                    if self.opts.policy == Policy::Ours {
                        merged.extend(ob.lines[ours].iter().map(|l| line(l)));
                        continue;
                    }
                    conflicts += 1;
                    let part = |lines: &[&str]| {
                        lines
                            .iter()
                            .map(|l| line(l) + self.ours.eol)
                            .collect::<String>()
                    };
                    let marked = self.markers().wrap(
                        &part(&ob.lines[ours]),
                        &part(&bb.lines[base]),
                        &part(&tb.lines[theirs]),
                    );
                    let marked = marked.strip_suffix(self.ours.eol).unwrap_or(&marked);
                    merged.push(marked.to_string());
                }
            }
        }
        if conflicts > 0 {
            self.conflicts.push(Conflict {
                resource: self.resource.clone(),
                path: path.shown.clone(),
                what: format!(
                    "both sides changed the same lines of this text ({conflicts} place(s))"
                ),
            });
        }
        self.edits.push(Edit {
            start: ob.content,
            end: line_end(self.ours.text, on.end).max(ob.content),
            text: merged.join(self.ours.eol),
        });
        true
    }
}
