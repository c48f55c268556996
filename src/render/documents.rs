//! Whole documents written into ours: theirs' new documents, ours' deleted ones, and
//! conflicts over a document one side deleted and the other changed.

use std::ops::Range;

use anyhow::Result;

use crate::merge::plan::{Document, Field};
use crate::parse::{Doc, Tree};
use crate::text::{line_start, next_line_start, reindent};

use super::Renderer;
use crate::text::splice::Edit;

impl Renderer<'_> {
    /// A document of base or theirs as text to place at `at` in ours: it starts with `---`
    /// (unless it is its file's first and goes at the start of ours, all of whose documents
    /// the plan deletes: then it stands first as it stood in its file), ends with a line break
    /// (in ours' line endings), and is followed by a `---` when it goes before ours' first
    /// document, that has none and the plan keeps it.
    fn document_block(&self, tree: &Tree, region: Range<usize>, at: usize) -> String {
        let at_start = at == self.after_bom(0);
        let first_of_its_file = tree.text[..region.start]
            .trim_start_matches('\u{feff}')
            .is_empty();
        // The other file's byte-order mark belongs to it, not to a document placed in ours.
        let doc = tree.text[region].trim_start_matches('\u{feff}');
        let eol = self.ours.eol;
        let mut text = String::new();
        let separated =
            doc.trim_start().starts_with("---") || doc.lines().any(|l| l.starts_with("---"));
        let stands_first = at_start && first_of_its_file && self.ours_emptied;
        if !separated && !stands_first {
            text.push_str("---");
            text.push_str(eol);
        }
        text.push_str(&reindent(doc, 0, 0, eol));
        if !text.ends_with('\n') {
            text.push_str(eol);
        }
        let ours = self.ours;
        if at_start && !ours.text[at..].trim().is_empty() && !self.ours_emptied {
            // Ours' first document now follows: it needs its own separator.
            if !ours.docs.first().is_some_and(|d| d.explicit_start) {
                text.push_str("---");
                text.push_str(eol);
            }
        }
        text
    }

    /// Theirs' document inserted at `at`, with the empty documents theirs put right before it
    /// (`---` and comment lines only, as a Helm chart leaves where a template rendered
    /// nothing: `---`, `# Source: x.yaml`). Empty documents pair with nothing, so the new
    /// document brings them; those ours already has at `at` stay ours', and it goes after them.
    pub(super) fn insert_document(&self, t: Document, at: usize) -> Edit {
        let (ours, theirs) = (self.ours, self.theirs);
        let mut at = self.after_bom(at);
        let region = &theirs.docs[t.doc].region;
        let first = theirs.docs[..t.doc]
            .iter()
            .rposition(|d| !is_empty_document(theirs, d))
            .map_or(0, |i| i + 1);
        let mut start = region.start;
        let mut bring = first;
        let mut next_ours = ours.docs.partition_point(|d| d.region.start < at);
        while let (true, Some(o)) = (bring < t.doc, ours.docs.get(next_ours)) {
            if !is_empty_document(ours, o) || !same_text(ours, o, theirs, &theirs.docs[bring]) {
                break;
            }
            at = o.region.end;
            next_ours += 1;
            bring += 1;
        }
        if bring < t.doc {
            start = theirs.docs[bring].region.start;
            // The blank lines above them in theirs come too, unless ours has its own there.
            if blank_lines_before(ours.text, at) == at {
                start = blank_lines_before(theirs.text, start);
            }
        }
        let mut text = String::new();
        if at > 0 && !ours.text[..at].ends_with('\n') {
            text.push_str(ours.eol);
        }
        text.push_str(&self.document_block(theirs, start..region.end, at));
        Edit {
            start: at,
            end: at,
            text,
        }
    }

    /// Ours' document deleted, with the separator that belongs to it and the empty documents
    /// right before it that theirs does not hold (they came with it, as a new document
    /// brings them).
    pub(super) fn delete_document(&self, o: Document) -> Edit {
        let (ours, theirs) = (self.ours, self.theirs);
        let mut region = ours.docs[o.doc].region.clone();
        let text = ours.text;
        if region.start == 0 && !ours.docs[o.doc].explicit_start {
            // The file's first document goes: so does the bare `---` that followed it.
            let next = next_line_start(text, region.end.min(text.len()));
            if text[region.end..next].trim_end() == "---" {
                region.end = next;
            }
        }
        let in_theirs = |d: &Doc| {
            theirs
                .docs
                .iter()
                .any(|t| is_empty_document(theirs, t) && same_text(ours, d, theirs, t))
        };
        for d in ours.docs[..o.doc].iter().rev() {
            if !is_empty_document(ours, d) || in_theirs(d) {
                break;
            }
            region.start = d.region.start;
        }
        Edit {
            start: region.start,
            end: region.end,
            text: String::new(),
        }
    }

    /// A whole document deleted on one side and changed on the other: ours' document, or (when
    /// ours deleted it) an empty place at `at`, between markers with base's and theirs'.
    pub(super) fn document_conflict(
        &self,
        b: Option<Document>,
        o: Option<Document>,
        t: Option<Document>,
        at: usize,
        out: &mut Vec<Edit>,
    ) -> Result<()> {
        let root = |d: Option<Document>| {
            d.map(|d| Field::root(d.root))
                .into_iter()
                .collect::<Vec<_>>()
        };
        let Some(o) = o else {
            // Ours deleted it: theirs' side of the conflict is a whole document, separators
            // included, so that either side leaves valid YAML.
            let at = self.after_bom(at);
            let mut text = String::new();
            if at > 0 && !self.ours.text[..at].ends_with('\n') {
                text.push_str(self.ours.eol);
            }
            let side = |tree: &Tree, d: Option<Document>| {
                d.map_or(String::new(), |d| {
                    self.document_block(tree, tree.docs[d.doc].region.clone(), at)
                })
            };
            text.push_str(
                &self
                    .markers()
                    .wrap("", &side(self.base, b), &side(self.theirs, t)),
            );
            out.push(Edit {
                start: at,
                end: at,
                text,
            });
            return Ok(());
        };
        let anchor = line_start(self.ours.text, self.ours.node(o.root).start);
        out.push(self.conflict(&root(b), &root(Some(o)), &root(t), anchor, 0)?);
        Ok(())
    }
}

/// Where the blank lines right above the line starting at `at` start (`at` if there are none).
fn blank_lines_before(text: &str, at: usize) -> usize {
    let mut start = at;
    while start > 0 {
        let above = line_start(text, start - 1);
        if !text[above..start].trim().is_empty() {
            break;
        }
        start = above;
    }
    start
}

/// A document of an explicit `---` and nothing but comments and blank lines after it.
fn is_empty_document(tree: &Tree, d: &Doc) -> bool {
    let text = &tree.text[d.region.clone()];
    let Some(rest) = text.trim_start_matches('\u{feff}').strip_prefix("---") else {
        return false;
    };
    let bare = |l: &str| {
        let l = l.trim_start();
        l.is_empty() || l.starts_with('#')
    };
    // `---` ends its line or a comment follows it: `--- value` is a document with data.
    let ends_line = rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']);
    d.explicit_start && ends_line && rest.lines().all(bare)
}

/// Whether two documents are the same text (trailing blank lines aside).
fn same_text(a: &Tree, x: &Doc, b: &Tree, y: &Doc) -> bool {
    a.text[x.region.clone()].trim_end() == b.text[y.region.clone()].trim_end()
}
