//! Multi-line strings (block scalars: scripts, config files, certificates) changed on both
//! sides are merged line by line before anything is called a conflict.

use crate::parse::{indent_of_line, line_end, next_line_start, Style, Tree};
use crate::render::Edit;

use super::diff3::{diff3, Chunk};
use super::merger::{Field, Merger};

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
    /// Merges a block scalar both sides changed, line by line, into ours. Returns false (and
    /// plans nothing) when the versions are not all block scalars or the edits overlap.
    pub fn merge_lines(&mut self, b: Option<Field>, o: Field, t: Field) -> bool {
        let Some(b) = b else { return false };
        let (Some(bb), Some(ob), Some(tb)) = (
            block(self.base, b),
            block(self.ours, o),
            block(self.theirs, t),
        ) else {
            return false;
        };
        let mut merged: Vec<&str> = Vec::new();
        for chunk in diff3(&bb.lines, &ob.lines, &tb.lines) {
            match chunk {
                Chunk::Same { ours } | Chunk::Ours { ours } => merged.extend(&ob.lines[ours]),
                Chunk::Theirs { theirs, .. } => merged.extend(&tb.lines[theirs]),
                Chunk::Conflict { .. } => return false,
            }
        }
        let on = self.ours.node(o.node);
        let indent = if ob.content < on.end {
            indent_of_line(self.ours.text, ob.content)
        } else {
            Merger::column(self.ours, o) + 2
        };
        let eol = self.ours.eol;
        let text: Vec<String> = merged
            .iter()
            .map(|l| {
                if l.is_empty() {
                    String::new()
                } else {
                    format!("{}{l}", " ".repeat(indent))
                }
            })
            .collect();
        self.edits.push(Edit {
            start: ob.content,
            end: line_end(self.ours.text, on.end).max(ob.content),
            text: text.join(eol),
        });
        true
    }
}
