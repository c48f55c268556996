//! A merge plan written into ours' text: every byte no edit touches stays as it was.
//!
//! Text taken from theirs (or base, inside conflicts) is copied from its source with its
//! comments, moved to ours' column and sequence style, in ours' line endings. Conflicts get
//! git's markers around the smallest whole-line range. Render decides nothing: which
//! comments each field of the result gets is decided by the comment stage, after it.

mod documents;
mod fields;
mod regions;
mod scalars;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;

use anyhow::Result;

use crate::merge::plan::{Anchor, Field, Op, Plan};
use crate::parse::{Tree, Versions};
use crate::text::markers::Markers;
use crate::text::splice::{splice_traced, Edit, From, Trace};
use crate::text::{line_end, line_start, next_line_start};

/// A plan render cannot write (two edits of one range): a planning bug, which the caller
/// reports as one.
#[derive(Debug)]
pub(crate) struct Unwritable(anyhow::Error);

impl fmt::Display for Unwritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

/// A document of ours or theirs, by its index among that tree's documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    Ours(usize),
    Theirs(usize),
}

/// The plan written into ours' text, and which document of ours or theirs each stretch of
/// it was written from: what lets the stages after render read the result's documents by the
/// alignment the plan was made from instead of pairing them again.
pub(crate) struct Rendered {
    pub text: String,
    /// The result's stretches in order, each from ours' text (at an offset) or from one op.
    trace: Trace,
    /// Each op's document, by the op's index in the plan.
    ops: Vec<Option<Origin>>,
    /// Where ours' documents start.
    ours_docs: Vec<usize>,
}

impl Rendered {
    /// The document of ours or theirs the result's text at `at` was written from; `None` at
    /// the end of the text or for an op that names no document (an insertion at the end).
    pub(crate) fn origin(&self, at: usize) -> Option<Origin> {
        let i = self.trace.partition_point(|(out, _)| out.end <= at);
        let (out, from) = self.trace.get(i)?;
        if out.start > at {
            return None;
        }
        match *from {
            From::Source(start) => {
                document_at(&self.ours_docs, start + (at - out.start)).map(Origin::Ours)
            }
            From::Edit(op) => self.ops[op],
        }
    }
}

/// The document whose region holds `at`, of documents starting at `starts`.
fn document_at(starts: &[usize], at: usize) -> Option<usize> {
    starts.partition_point(|&s| s <= at).checked_sub(1)
}

/// Ours' text with the plan's edits spliced in.
///
/// Fails only on a planning error (two edits of one range): that is a bug, and the driver
/// reports it as one.
pub(crate) fn render(
    versions: &Versions,
    plan: &Plan,
    markers: Markers,
) -> Result<Rendered, Unwritable> {
    let r = Renderer::new(versions, plan, markers);
    let mut ranked = Vec::new();
    let mut outrunning = Vec::new();
    for (index, op) in plan.ops.iter().enumerate() {
        let mut edits = Vec::new();
        r.edits(op, &mut edits).map_err(Unwritable)?;
        if let Op::Insert { theirs, omit, .. } = op {
            let last = r.written_last(theirs.node, omit);
            if last.is_some_and(|n| r.theirs.value_outruns_text(n)) {
                outrunning.extend(edits.iter().map(|e| e.start));
            }
        }
        // Likewise theirs' `|+` value written over ours': the field right below, deleted,
        // leaves its blank lines to that value (adversary values-theirs-1150-1365).
        if let Op::Take { theirs, .. } = op {
            if r.theirs.value_outruns_text(theirs.node) {
                outrunning.extend(edits.iter().map(|e| next_line_start(r.ours.text, e.end)));
            }
        }
        let deletes = matches!(op, Op::Delete { .. });
        ranked.extend(edits.into_iter().map(|e| (rank(op), deletes, e, index)));
    }
    // A field ending in a `|+` scalar inserted where ours' deleted field stood would take
    // the blank lines below that field as its value once the field is gone: they go with it,
    // unless another edit reaches them (its text then stands between the two, or the lines
    // are its business). Where another deleted field follows right below, the blank lines
    // below the last of them are the ones to go.
    let spans: Vec<(usize, usize)> = ranked.iter().map(|(_, _, e, _)| (e.start, e.end)).collect();
    let mut deleted: Vec<usize> = (0..ranked.len()).filter(|&i| ranked[i].1).collect();
    deleted.sort_by_key(|&i| ranked[i].2.start);
    for &i in &deleted {
        let e = &ranked[i].2;
        if outrunning.contains(&e.start)
            && deleted
                .iter()
                .any(|&j| j != i && ranked[j].2.start == e.end)
        {
            outrunning.push(e.end);
        }
    }
    for (i, (_, deletes, e, _)) in ranked.iter_mut().enumerate() {
        if !*deletes || !outrunning.contains(&e.start) {
            continue;
        }
        let end = past_blank_lines(r.ours.text, e.end);
        let reached = spans.iter().enumerate().any(|(j, &(start, stop))| {
            j != i && start < end && stop >= e.end && (start, stop) != (e.start, e.start)
        });
        if !reached {
            e.end = end;
        }
    }
    // A conflict over ours' fields that theirs deleted takes the comment lines indented into
    // ours' last field into ours' side: a field placed after that field stands after the
    // conflict, not inside its range (where both sides' text would hold it twice, or not at
    // all).
    let conflicts: Vec<(usize, usize)> = ranked
        .iter()
        .filter(|(_, _, e, index)| {
            e.start < e.end && matches!(plan.ops[*index], Op::Conflict { .. })
        })
        .map(|(_, _, e, _)| (e.start, e.end))
        .collect();
    let inside = Holding::new(&conflicts, false, &ranked);
    move_insertions(&mut ranked, |at, _| inside.end(at));
    // An inserted field ending in a `|+` scalar goes below ours' blank lines (see
    // `insert`); an insertion planned after it at those lines (its parent's next sibling)
    // goes below them too, keeping the planned order, or the field would land in that
    // sibling (adversary values-theirs-1172-4525).
    let moved: Vec<(usize, usize, usize)> = ranked
        .iter()
        .filter(|(_, deletes, e, _)| !*deletes && e.start == e.end && outrunning.contains(&e.start))
        .map(|(_, _, e, index)| (blank_run_start(r.ours.text, e.start), e.start, *index))
        .filter(|&(from, to, _)| from < to)
        .collect();
    move_insertions(&mut ranked, |at, index| {
        moved
            .iter()
            .find(|&&(from, to, first)| first < index && from <= at && at < to)
            .map(|&(_, to, _)| to)
    });
    // Theirs' `|+` value written over ours' takes the blank lines below ours' value, the last
    // one's line break standing as its own (see `take`): a field placed after ours' value,
    // at one of those lines, goes below that break, or it would join the value's last line
    // (adversary values-theirs-1172-4525: `t: |+i:`, text that does not parse).
    let taken: Vec<(usize, usize)> = ranked
        .iter()
        .filter(|(_, _, e, index)| {
            matches!(plan.ops[*index], Op::Take { .. })
                && e.start < e.end
                && !e.text.ends_with('\n')
                && r.ours.text[e.end..].starts_with(['\n', '\r'])
        })
        .map(|(_, _, e, _)| (e.start, e.end))
        .collect();
    let inside = Holding::new(&taken, true, &ranked);
    move_insertions(&mut ranked, |at, _| {
        inside.end(at).map(|end| next_line_start(r.ours.text, end))
    });
    // Insertions at one offset keep the order they were planned in, but for whole
    // documents: one placed where ours' document starts goes before that document's new
    // first lines, one placed where it ends goes after its new last lines.
    ranked.sort_by_key(|(rank, _, e, _)| (e.start, *rank));
    theirs_documents_in_order(&mut ranked, plan);
    let mut edits: Vec<(Edit, usize)> = ranked
        .into_iter()
        .map(|(_, _, e, index)| (e, index))
        .collect();
    let (text, trace) = splice_traced(r.ours.text, &mut edits).map_err(Unwritable)?;
    let ours_docs: Vec<usize> = r.ours.docs.iter().map(|d| d.region.start).collect();
    let ops = plan.ops.iter().map(|op| r.origin(op, &ours_docs)).collect();
    Ok(Rendered {
        text,
        trace,
        ops,
        ours_docs,
    })
}

/// Theirs' whole documents inserted at one place go in theirs' order, whatever order the plan
/// found them in (a document theirs renamed is planned with base's, after theirs' new ones):
/// the first of theirs' file stands without a `---` where ours was emptied
/// ([`Renderer::document_block`]), so written after another it would run into that one's
/// text, repeating its keys (adversary packages-theirs-1182-411). So too for theirs' side of
/// a conflict over a document ours deleted, which is theirs' whole document written the same
/// way: ours deleted a file's two documents, theirs renamed the first and changed the second,
/// the renamed one was planned last and taking theirs' side repeated its keys, so no
/// conflict held and a reading by identity left the rename clean against ours' deletion
/// (adversary packages-mark-1291-847). `ranked` is sorted by offset and rank already; only
/// runs of such whole documents sharing both are reordered.
fn theirs_documents_in_order(ranked: &mut [(i8, bool, Edit, usize)], plan: &Plan) {
    let theirs_doc = |index: usize| match plan.ops[index] {
        Op::InsertDocument { theirs, .. } => Some(theirs.doc),
        Op::DocumentConflict {
            ours: None,
            theirs: Some(theirs),
            ..
        } => Some(theirs.doc),
        _ => None,
    };
    let mut i = 0;
    while i < ranked.len() {
        let (rank, start) = (ranked[i].0, ranked[i].2.start);
        let mut j = i;
        while j < ranked.len()
            && (ranked[j].0, ranked[j].2.start) == (rank, start)
            && theirs_doc(ranked[j].3).is_some()
        {
            j += 1;
        }
        ranked[i..j].sort_by_key(|(_, _, _, index)| theirs_doc(*index));
        i = j.max(i + 1);
    }
}

/// From a line start, past the lines that hold only whitespace.
fn past_blank_lines(text: &str, mut at: usize) -> usize {
    while at < text.len()
        && at == line_start(text, at)
        && text[at..line_end(text, at)].trim().is_empty()
    {
        at = next_line_start(text, at);
    }
    at
}

/// Moves each insertion (an edit that replaces nothing) to the offset `to` gives for its
/// offset and its op's index, where it gives one: the render's placement rules each say
/// where an insertion that would land inside another edit's text goes instead.
fn move_insertions(
    ranked: &mut [(i8, bool, Edit, usize)],
    to: impl Fn(usize, usize) -> Option<usize>,
) {
    for (_, _, e, index) in ranked.iter_mut() {
        if e.start == e.end {
            if let Some(at) = to(e.start, *index) {
                e.start = at;
                e.end = at;
            }
        }
    }
}

/// For each insertion's offset, the end of the first range (in the order given) that holds
/// it: past its start, and before its end (or at it, where `to_end`). Worked out in one sweep
/// over offsets and ranges in order, not by asking every range for every insertion: a file
/// whose merge has a conflict and an insertion in each of thousands of documents made that
/// quadratic (16,000 Deployments each with both: six seconds, where four times fewer took
/// one and a quarter).
struct Holding(Vec<(usize, usize)>);

impl Holding {
    fn new(ranges: &[(usize, usize)], to_end: bool, ranked: &[(i8, bool, Edit, usize)]) -> Holding {
        let mut offsets: Vec<usize> = ranked
            .iter()
            .filter(|(_, _, e, _)| e.start == e.end)
            .map(|(_, _, e, _)| e.start)
            .collect();
        offsets.sort_unstable();
        offsets.dedup();
        let mut by_start: Vec<usize> = (0..ranges.len()).collect();
        by_start.sort_by_key(|&i| ranges[i].0);
        let mut by_start = by_start.into_iter().peekable();
        // The ranges started before the offset, first in the given order on top. One that
        // ends before an offset ends before every later one too, so it leaves for good.
        let mut open = BinaryHeap::new();
        let mut found = Vec::new();
        for at in offsets {
            while let Some(i) = by_start.next_if(|&i| ranges[i].0 < at) {
                open.push(Reverse(i));
            }
            while let Some(&Reverse(i)) = open.peek() {
                let end = ranges[i].1;
                if at < end || (to_end && at == end) {
                    found.push((at, end));
                    break;
                }
                open.pop();
            }
        }
        Holding(found)
    }

    /// The end of the first range holding `at`, an insertion's offset when this was made.
    fn end(&self, at: usize) -> Option<usize> {
        let i = self
            .0
            .binary_search_by_key(&at, |&(offset, _)| offset)
            .ok()?;
        Some(self.0[i].1)
    }
}

/// From a line start, back over the blank lines right above it: where they begin.
fn blank_run_start(text: &str, mut at: usize) -> usize {
    while at > 0 && at == line_start(text, at) {
        let above = line_start(text, at - 1);
        if !text[above..at].trim().is_empty() {
            break;
        }
        at = above;
    }
    at
}

/// Where an op's insertions go among others at the same offset (see [`render`]).
fn rank(op: &Op) -> i8 {
    match op {
        Op::InsertDocument { at, .. } | Op::DocumentConflict { at, .. } => match at {
            Anchor::DocStart(_) => -1,
            Anchor::DocEnd(_) | Anchor::End => 1,
            _ => 0,
        },
        _ => 0,
    }
}

/// What every edit is written against: the three trees and how conflicts are written in
/// this file (git's marker size, labels and style, ours' line ending).
struct Renderer<'t> {
    base: &'t Tree<'t>,
    ours: &'t Tree<'t>,
    theirs: &'t Tree<'t>,
    markers: Markers<'t>,
    /// Ours' sequence styles, so that lists moved in from theirs take the style of ours'
    /// nearest list (worked out on the first move).
    ours_lists: std::cell::OnceCell<regions::ListStyles>,
    /// Whether the plan deletes every document of ours: theirs' documents placed at its start
    /// then have no document of ours after them to separate.
    ours_emptied: bool,
}

impl<'t> Renderer<'t> {
    fn new(versions: &'t Versions<'t>, plan: &Plan, markers: Markers<'t>) -> Renderer<'t> {
        let ours = &versions.ours;
        let mut deleted = vec![false; ours.docs.len()];
        for op in &plan.ops {
            if let Op::DeleteDocument { ours } = op {
                deleted[ours.doc] = true;
            }
        }
        Renderer {
            base: &versions.base,
            ours,
            theirs: &versions.theirs,
            markers,
            ours_lists: std::cell::OnceCell::new(),
            ours_emptied: deleted.iter().all(|&d| d),
        }
    }

    /// The offset of ours' list nearest to `at` whose key stands at `column` (see
    /// [`regions::ListStyles::near`]).
    fn list_style(&self, column: usize, at: usize) -> Option<usize> {
        self.ours_lists
            .get_or_init(|| regions::ListStyles::of(self.ours))
            .near(column, at)
    }

    /// The text edits of one planned edit.
    fn edits(&self, op: &Op, out: &mut Vec<Edit>) -> Result<()> {
        match op {
            Op::Take { ours, theirs } => out.push(self.take(*ours, *theirs)),
            Op::Delete { ours } => out.push(self.delete(*ours)),
            Op::AddAnchor { ours, theirs } => out.extend(self.add_anchor(*ours, *theirs)),
            Op::Empty { ours, list } => out.push(self.empty(*ours, *list)),
            Op::Insert {
                theirs,
                at,
                like,
                omit,
            } => {
                let column = like.map_or(0, |f| regions::column(self.ours, f));
                out.push(self.insert(*theirs, self.place(*at), column, omit)?);
            }
            Op::Conflict {
                base,
                ours,
                theirs,
                at,
                like,
            } => {
                let column = like.map_or(0, |f| regions::column(self.ours, f));
                out.push(self.conflict(base, ours, theirs, self.place(*at), column)?);
            }
            Op::Lines {
                base,
                ours,
                theirs,
                chunks,
                theirs_header,
            } => {
                out.extend(self.lines(*base, *ours, *theirs, chunks));
                if *theirs_header {
                    out.extend(self.header(*ours, *theirs));
                }
            }
            Op::FlowList {
                ours,
                theirs,
                chunks,
            } => out.extend(self.flow_list(*ours, *theirs, chunks)),
            Op::Reorder { ours, keys } => out.push(self.reorder(*ours, keys)?),
            Op::ReplaceChildren { ours, theirs } => self.replace_children(*ours, theirs, out)?,
            Op::FlowMap { ours, entries } => out.push(self.flow_map(*ours, entries)),
            Op::BlockMap { ours, entries } => out.push(self.block_map(*ours, entries)?),
            Op::Fill { ours, theirs, omit } => out.push(self.fill(*ours, *theirs, omit)?),
            Op::InsertDocument { theirs, at } => {
                out.push(self.insert_document(*theirs, self.place(*at)))
            }
            Op::DeleteDocument { ours } => out.push(self.delete_document(*ours)),
            Op::DocumentConflict {
                base,
                ours,
                theirs,
                at,
            } => self.document_conflict(*base, *ours, *theirs, self.place(*at), out)?,
        }
        Ok(())
    }

    /// The document an op writes into: ours' document of the field or place it edits, or
    /// theirs' document it inserts.
    fn origin(&self, op: &Op, ours_docs: &[usize]) -> Option<Origin> {
        let field = |f: &Field| document_at(ours_docs, self.ours.node(f.node).start);
        let anchor = |at: &Anchor| match at {
            Anchor::Before(f) | Anchor::After(f) => field(f),
            Anchor::DocStart(doc) | Anchor::DocEnd(doc) => Some(*doc),
            Anchor::End => None,
        };
        let ours = match op {
            Op::Take { ours, .. }
            | Op::Delete { ours }
            | Op::AddAnchor { ours, .. }
            | Op::Empty { ours, .. }
            | Op::Lines { ours, .. }
            | Op::FlowList { ours, .. }
            | Op::Fill { ours, .. }
            | Op::FlowMap { ours, .. }
            | Op::BlockMap { ours, .. }
            | Op::Reorder { ours, .. }
            | Op::ReplaceChildren { ours, .. } => field(ours),
            Op::Insert { at, .. } => anchor(at),
            Op::Conflict { ours, at, .. } => ours.first().map_or_else(|| anchor(at), field),
            Op::InsertDocument { theirs, .. } => return Some(Origin::Theirs(theirs.doc)),
            Op::DeleteDocument { ours } => Some(ours.doc),
            Op::DocumentConflict { ours, at, .. } => ours.map(|d| d.doc).or_else(|| anchor(at)),
        };
        ours.map(Origin::Ours)
    }

    /// How conflicts are written in this file.
    fn markers(&self) -> &Markers<'t> {
        &self.markers
    }

    /// A byte-order mark stays the first thing in the file: nothing is inserted before it.
    fn after_bom(&self, at: usize) -> usize {
        let bom = if self.ours.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        at.max(bom)
    }
}
