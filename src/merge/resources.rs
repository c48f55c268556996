//! The resource rules of merge3 (seeds 000/004): which documents survive, which are added,
//! and which are merged field by field.

use std::collections::HashSet;

use crate::align::Group;
use crate::parse::same_data;
use crate::resource::DocRef;

use super::merger::Merger;
use super::patch::directive;
use super::plan::{Anchor, Field, Op};
use super::policy::Resolution;
use crate::resource::Path;

impl Merger<'_> {
    /// Applies the resource rules to every matched group, in ours' order; new documents go
    /// after the document they follow in theirs.
    pub fn merge_resources(&mut self, groups: &[Group]) {
        let places = DocPlaces::new(groups, self.theirs.docs.len(), self.ours.docs.len());
        // Only mark mode pairs a document with its rival: theirs mode reads by identity, as
        // kyaml does, and under the ours policy the check reads the two renames part by part
        // (a decision left to the alignment issue, 29): both keep the deletion and addition.
        let rivals = self.opts.policy.resolve() == Resolution::Mark;
        let rival_of_theirs: HashSet<usize> = groups
            .iter()
            .filter(|g| rivals && g.theirs.is_none())
            .filter_map(|g| g.rival.map(|t| t.doc))
            .collect();
        for g in groups {
            self.resource = g.label.clone();
            self.group_kind = crate::resource::group_kind_of(g.identity.as_ref(), self.file_name);
            let root = |d: DocRef| Field::root(d.root);
            if let Some(r) = g.rival.filter(|_| rivals) {
                self.renamed_apart(g, r);
                continue;
            }
            match (g.base, g.ours, g.theirs) {
                (b, Some(o), Some(t)) => {
                    if self.prepend().is_some() && directive(self.theirs, t.root) == Some("delete")
                    {
                        // merge2: `$patch: delete` at the top deletes the whole document.
                        self.plan.ops.push(Op::DeleteDocument { ours: o.into() });
                    } else if !self.anchors_clash(b, o, t) {
                        self.merge_value(&Path::default(), b.map(root), root(o), root(t))
                    }
                }
                // Added in ours, or deleted on both sides.
                (None, Some(_), None) | (Some(_), None, None) | (None, None, None) => {}
                // Theirs' version of a document ours renamed apart: its conflict holds it.
                (None, None, Some(t)) if rival_of_theirs.contains(&t.doc) => {}
                (None, None, Some(t)) => {
                    let at = self.new_document_position(&places, t);
                    self.plan.ops.push(Op::InsertDocument {
                        theirs: t.into(),
                        at,
                    });
                }
                (Some(b), Some(o), None) => {
                    let resolution = if same_data(self.base, b.root, self.ours, o.root) {
                        Resolution::Theirs
                    } else {
                        self.opts.policy.resolve()
                    };
                    match resolution {
                        Resolution::Theirs => {
                            self.plan.ops.push(Op::DeleteDocument { ours: o.into() })
                        }
                        Resolution::Ours => {}
                        Resolution::Mark => self.document_conflict(
                            "theirs deleted it, ours changed it",
                            [Some(b), Some(o), None],
                            Anchor::DocStart(o.doc),
                        ),
                    }
                }
                (Some(b), None, Some(t)) => {
                    if same_data(self.base, b.root, self.theirs, t.root) {
                        continue; // deleted in ours, unchanged in theirs
                    }
                    let at = self.new_document_position(&places, t);
                    match self.opts.policy.resolve() {
                        Resolution::Theirs => self.plan.ops.push(Op::InsertDocument {
                            theirs: t.into(),
                            at,
                        }),
                        Resolution::Ours => {}
                        Resolution::Mark => self.document_conflict(
                            "ours deleted it, theirs changed it",
                            [Some(b), None, Some(t)],
                            at,
                        ),
                    }
                }
            }
        }
    }

    /// A document both sides renamed in different parts of its identity, `rival` the version of
    /// the side the group lacks (`align::Group::rival`): merged part by part the identity would
    /// be one neither side wrote, and read as a deletion beside an addition, the side that keeps
    /// the document would also hold the other's version (a copy no side made). One conflict
    /// holds the two versions, each on its side.
    fn renamed_apart(&mut self, g: &Group, rival: DocRef) {
        let (ours, theirs) = match (g.ours, g.theirs) {
            (Some(o), None) => (o, rival),
            (None, Some(t)) => (rival, t),
            // The alignment gives a rival only to a group one side lacks.
            _ => return,
        };
        self.document_conflict(
            "both sides renamed it, in different parts of its identity",
            [g.base, Some(ours), Some(theirs)],
            Anchor::DocStart(ours.doc),
        );
    }

    /// Where a document new to ours goes: after the nearest document before it in theirs that
    /// ours has (and after ours' own new documents right after that one, as git orders them),
    /// else before ours' first document.
    fn new_document_position(&self, places: &DocPlaces, t: DocRef) -> Anchor {
        match places.after[t.doc] {
            Some(doc) => Anchor::DocEnd(places.run_end[doc]),
            None => self
                .ours
                .docs
                .iter()
                .position(|d| d.root.is_some())
                .map_or(Anchor::End, Anchor::DocStart),
        }
    }

    /// An anchor name ours and theirs both define at different places ([`super::anchors`]),
    /// that the driver could not rename apart (a side defines it again where the other has
    /// none): the merge cannot keep both, so the document is both sides' change of one value. Mark
    /// mode makes it a conflict; a policy takes its side's document whole (theirs replaces
    /// ours'; ours stays). Returns whether the document was settled so.
    fn anchors_clash(&mut self, b: Option<DocRef>, o: DocRef, t: DocRef) -> bool {
        if self.prepend().is_some() {
            return false; // merge2 lays a patch on: its anchors are not a side's
        }
        let Some(name) = super::anchors::clashing_anchor(self.ours, o.root, self.theirs, t.root)
        else {
            return false;
        };
        let whole = |side: &str| {
            format!(
                "{}: both sides define the anchor &{name}, at different places: {side}' document taken whole",
                if self.resource.is_empty() { "(document)" } else { &self.resource }
            )
        };
        match self.opts.policy.resolve() {
            Resolution::Theirs => {
                self.plan.notes.push(whole("theirs"));
                self.take_theirs(Field::root(o.root), Field::root(t.root));
            }
            Resolution::Ours => self.plan.notes.push(whole("ours")),
            Resolution::Mark => {
                let what = format!("both sides define the anchor &{name}, at different places");
                self.document_conflict(&what, [b, Some(o), Some(t)], Anchor::DocStart(o.doc));
            }
        }
        true
    }

    /// A whole document deleted on one side and changed on the other.
    fn document_conflict(
        &mut self,
        what: &str,
        [base, ours, theirs]: [Option<DocRef>; 3],
        at: Anchor,
    ) {
        self.plan.ops.push(Op::DocumentConflict {
            base: base.map(Into::into),
            ours: ours.map(Into::into),
            theirs: theirs.map(Into::into),
            at,
        });
        self.record_conflict("", what.into());
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
