//! Whole documents written into ours: theirs' new documents, ours' deleted ones, and
//! conflicts over a document one side deleted and the other changed.

use anyhow::Result;

use crate::merge::plan::Field;
use crate::parse::Tree;
use crate::resource::DocRef;
use crate::text::{line_start, next_line_start, reindent};

use super::splice::Edit;
use super::Renderer;

impl Renderer<'_> {
    /// A document of base or theirs as text to place at `at` in ours: it starts with `---`,
    /// ends with a line break (in ours' line endings), and is followed by a `---` when it goes
    /// before ours' first document and that has none.
    fn document_block(&self, tree: &Tree, d: DocRef, at: usize) -> String {
        let region = &tree.docs[d.doc].region;
        // The other file's byte-order mark belongs to it, not to a document placed in ours.
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
        let ours = self.ours;
        if at == self.after_bom(0) && !ours.text[at..].trim().is_empty() {
            // Ours' first document now follows: it needs its own separator.
            if !ours.docs.first().is_some_and(|d| d.explicit_start) {
                text.push_str("---");
                text.push_str(eol);
            }
        }
        text
    }

    /// Theirs' document inserted at `at`.
    pub(super) fn insert_document(&self, t: DocRef, at: usize) -> Edit {
        let at = self.after_bom(at);
        let mut text = String::new();
        if at > 0 && !self.ours.text[..at].ends_with('\n') {
            text.push_str(self.ours.eol);
        }
        text.push_str(&self.document_block(self.theirs, t, at));
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
        let Some(o) = o else {
            // Ours deleted it: theirs' side of the conflict is a whole document, separators
            // included, so that either side leaves valid YAML.
            let at = self.after_bom(at);
            let mut text = String::new();
            if at > 0 && !self.ours.text[..at].ends_with('\n') {
                text.push_str(self.ours.eol);
            }
            let side = |tree: &Tree, d: Option<DocRef>| {
                d.map_or(String::new(), |d| self.document_block(tree, d, at))
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
