//! The resource rules of merge3 (seeds 000/004): which documents survive, which are added,
//! and which are merged field by field.

use crate::parse::{line_start, same_data, Tree};
use crate::render::Edit;
use crate::resource::{DocRef, Group};

use super::merger::{Field, Merger, Slot};
use super::patch::directive;
use super::path::Path;
use super::Policy;

impl Merger<'_> {
    /// Applies the resource rules to every matched group, in ours' order; new documents go
    /// after the document they follow in theirs.
    pub fn merge_resources(&mut self, groups: &[Group]) {
        let places = DocPlaces::new(groups, self.theirs.docs.len(), self.ours.docs.len());
        for g in groups {
            self.resource = g.label.clone();
            self.group_kind = g.identity.as_ref().map(|id| id.group_kind());
            let root = |d: DocRef| Field {
                slot: Slot::Root,
                node: d.root,
            };
            match (g.base, g.ours, g.theirs) {
                (b, Some(o), Some(t)) => {
                    if self.prepend().is_some() && directive(self.theirs, t.root) == Some("delete")
                    {
                        // merge2: `$patch: delete` at the top deletes the whole document.
                        self.delete_document(o);
                    } else {
                        self.merge_value(&Path::default(), b.map(root), root(o), root(t))
                    }
                }
                // Added in ours, or deleted on both sides.
                (None, Some(_), None) | (Some(_), None, None) | (None, None, None) => {}
                (None, None, Some(t)) => {
                    let at = self.new_document_position(&places, t);
                    self.insert_document(t, at);
                }
                (Some(b), Some(o), None) => {
                    if same_data(self.base, b.root, self.ours, o.root)
                        || self.opts.policy == Policy::Theirs
                    {
                        self.delete_document(o);
                    } else if self.opts.policy == Policy::Mark {
                        self.document_conflict(
                            "theirs deleted it, ours changed it",
                            Some(b),
                            Some(o),
                            None,
                            0,
                        );
                    }
                }
                (Some(b), None, Some(t)) => {
                    if same_data(self.base, b.root, self.theirs, t.root) {
                        continue; // deleted in ours, unchanged in theirs
                    }
                    let at = self.new_document_position(&places, t);
                    match self.opts.policy {
                        Policy::Theirs => self.insert_document(t, at),
                        Policy::Ours => {}
                        Policy::Mark => self.document_conflict(
                            "ours deleted it, theirs changed it",
                            Some(b),
                            None,
                            Some(t),
                            at,
                        ),
                    }
                }
            }
        }
    }

    /// Where a document new to ours goes: after the nearest document before it in theirs that
    /// ours has (and after ours' own new documents right after that one, as git orders them),
    /// else before ours' first document.
    fn new_document_position(&self, places: &DocPlaces, t: DocRef) -> usize {
        match places.after[t.doc] {
            Some(doc) => self.ours.docs[places.run_end[doc]].region.end,
            None => self
                .ours
                .docs
                .iter()
                .find(|d| d.root.is_some())
                .map_or(self.ours.text.len(), |d| d.region.start),
        }
    }

    /// Theirs' document text, as a document of its own: it starts with `---` and ends with a
    /// line break, in ours' line endings.
    fn document_text(&self, t: DocRef) -> String {
        let tree: &Tree = self.theirs;
        let region = &tree.docs[t.doc].region;
        // Theirs' byte-order mark belongs to theirs' file, not to a document placed in ours.
        let doc = tree.text[region.clone()].trim_start_matches('\u{feff}');
        let eol = self.ours.eol;
        let mut text = String::new();
        if !doc.trim_start().starts_with("---") && !doc.lines().any(|l| l.starts_with("---")) {
            text.push_str("---");
            text.push_str(eol);
        }
        text.push_str(&crate::render::reindent(doc, 0, 0, eol));
        if !text.ends_with('\n') {
            text.push_str(eol);
        }
        text
    }

    fn insert_document(&mut self, t: DocRef, at: usize) {
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
        self.edits.push(Edit {
            start: at,
            end: at,
            text,
        });
    }

    fn delete_document(&mut self, o: DocRef) {
        let mut region = self.ours.docs[o.doc].region.clone();
        let text = self.ours.text;
        if region.start == 0 && !self.ours.docs[o.doc].explicit_start {
            // The file's first document goes: so does the bare `---` that followed it.
            let next = crate::parse::next_line_start(text, region.end.min(text.len()));
            if text[region.end..next].trim_end() == "---" {
                region.end = next;
            }
        }
        self.edits.push(Edit {
            start: region.start,
            end: region.end,
            text: String::new(),
        });
    }

    /// A whole document deleted on one side and changed on the other.
    fn document_conflict(
        &mut self,
        what: &str,
        b: Option<DocRef>,
        o: Option<DocRef>,
        t: Option<DocRef>,
        at: usize,
    ) {
        let root = |d: Option<DocRef>| {
            d.map(|d| Field {
                slot: Slot::Root,
                node: d.root,
            })
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
                self.edits.push(Edit {
                    start: at,
                    end: at,
                    text: sep,
                });
                at
            }
        };
        self.conflict("", what.into(), root(b), root(o), root(t), anchor, 0);
    }
}

/// Where documents new to ours can go, worked out once for all of them (a file can hold
/// 100 000 documents: no per-document scans).
struct DocPlaces {
    /// For each theirs document: ours' copy of the nearest earlier theirs document ours has.
    after: Vec<Option<usize>>,
    /// For each ours document: the last of the run of documents only ours added that
    /// directly follows it (itself when none does).
    run_end: Vec<usize>,
}

impl DocPlaces {
    fn new(groups: &[Group], theirs_docs: usize, ours_docs: usize) -> DocPlaces {
        let mut ours_of_theirs = vec![None; theirs_docs];
        let mut added_by_ours = vec![false; ours_docs];
        for g in groups {
            if let (Some(o), Some(t)) = (g.ours, g.theirs) {
                ours_of_theirs[t.doc] = Some(o.doc);
            }
            if let (None, Some(o), None) = (g.base, g.ours, g.theirs) {
                added_by_ours[o.doc] = true;
            }
        }
        let mut after = vec![None; theirs_docs];
        for i in 1..theirs_docs {
            after[i] = ours_of_theirs[i - 1].or(after[i - 1]);
        }
        let mut run_end: Vec<usize> = (0..ours_docs).collect();
        for doc in (0..ours_docs.saturating_sub(1)).rev() {
            if added_by_ours[doc + 1] {
                run_end[doc] = run_end[doc + 1];
            }
        }
        DocPlaces { after, run_end }
    }
}
