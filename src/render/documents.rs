//! Whole documents written into ours: theirs' new documents, ours' deleted ones, and
//! conflicts over a document one side deleted and the other changed.

use anyhow::Result;

use crate::merge::plan::Field;
use crate::resource::DocRef;
use crate::text::{line_start, next_line_start, reindent};

use super::splice::Edit;
use super::Renderer;

impl Renderer<'_> {
    /// Theirs' document text, as a document of its own: it starts with `---` and ends with a
    /// line break, in ours' line endings.
    fn document_text(&self, t: DocRef) -> String {
        let tree = self.theirs;
        let region = &tree.docs[t.doc].region;
        // Theirs' byte-order mark belongs to theirs' file, not to a document placed in ours.
        let doc = tree.text[region.clone()].trim_start_matches('\u{feff}');
        let eol = self.ours.eol;
        let mut text = String::new();
        if !doc.trim_start().starts_with("---") && !doc.lines().any(|l| l.starts_with("---")) {
            text.push_str("---");
            text.push_str(eol);
        }
        text.push_str(&reindent(doc, 0, 0, eol));
        if !text.ends_with('\n') {
            text.push_str(eol);
        }
        text
    }

    /// Theirs' document inserted at `at`.
    pub(super) fn insert_document(&self, t: DocRef, at: usize) -> Edit {
        let at = self.after_bom(at);
        let mut text = String::new();
        let ours = self.ours.text;
        if at > 0 && !ours[..at].ends_with('\n') {
            text.push_str(self.ours.eol);
        }
        text.push_str(&self.document_text(t));
        if at == 0 && !ours.is_empty() {
            // Ours' first document now follows: it needs its own separator.
            let first_explicit = self.ours.docs.first().is_some_and(|d| d.explicit_start);
            if !first_explicit {
                text.push_str("---");
                text.push_str(self.ours.eol);
            }
        }
        Edit {
            start: at,
            end: at,
            text,
        }
    }

    /// Ours' document deleted, with the separator that belongs to it.
    pub(super) fn delete_document(&self, o: DocRef) -> Edit {
        let mut region = self.ours.docs[o.doc].region.clone();
        let text = self.ours.text;
        if region.start == 0 && !self.ours.docs[o.doc].explicit_start {
            // The file's first document goes: so does the bare `---` that followed it.
            let next = next_line_start(text, region.end.min(text.len()));
            if text[region.end..next].trim_end() == "---" {
                region.end = next;
            }
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
        b: Option<DocRef>,
        o: Option<DocRef>,
        t: Option<DocRef>,
        at: usize,
        out: &mut Vec<Edit>,
    ) -> Result<()> {
        let root = |d: Option<DocRef>| {
            d.map(|d| Field::root(d.root))
                .into_iter()
                .collect::<Vec<_>>()
        };
        let anchor = match o {
            Some(o) => line_start(self.ours.text, self.ours.node(o.root).start),
            None => {
                // Theirs' side of the conflict is a document of its own.
                let mut sep = String::new();
                if at > 0 && !self.ours.text[..at].ends_with('\n') {
                    sep.push_str(self.ours.eol);
                }
                sep.push_str("---");
                sep.push_str(self.ours.eol);
                out.push(Edit {
                    start: at,
                    end: at,
                    text: sep,
                });
                at
            }
        };
        out.push(self.conflict(&root(b), &root(o), &root(t), anchor, 0)?);
        Ok(())
    }
}
