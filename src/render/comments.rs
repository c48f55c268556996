//! Comments and blank lines are content: after the plan is spliced into ours, every line of
//! the result that starts a field gets the comment lines above it (its head) and the comment
//! at its end (its trailing comment) that a 3-way merge of base's, ours' and theirs' decides.
//!
//! The rules compare data, so a comment-only change never produces an edit of its own, and an
//! edit takes or drops the comment lines that happen to sit in its range. This pass restores
//! the text's own 3-way rule afterwards, field by field: where only theirs changed a field's
//! comments (added, edited or removed a line above it, a comment at its end, a blank line),
//! the result gets theirs'; where only ours did, ours'; where both did differently, the lines
//! are merged like text, and where even that overlaps ours' stay (theirs' in theirs mode) and
//! a note names theirs' lines. Comment lines a deleting side kept stay: they are the head of
//! the field that follows in that side's text.
//!
//! The comment lines right below the key of a collection that base does not fill (a null
//! `labels:` with only a comment, or a template's `{{- include … | nindent 4 }}`, below it)
//! open that collection: they belong to it, not to its first entry (each side's first new
//! entry would bring them again) nor to the field after it (which base's text puts them above).
//!
//! Fields are paired across the versions by their place in the data (resources by identity,
//! map fields by key, list elements by merge key or content), never by line position. The
//! pass only touches comment and blank lines and the comments at line ends; the result must
//! read as the same data afterwards, or the pass is dropped.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::options::Policy;
use crate::parse::{self, digest, Kind, NodeId, Parsed, Style, Tree, Versions};
use crate::resource::{self, element_key, list_kind, ListKind};
use crate::text::skeleton;
use crate::text::{diff3, Chunk};
use crate::text::{line_end, markers};

use super::regions::dash_of;
use super::splice::{splice, Edit};

/// The result with the comments carried, and what the pass has to tell the user.
pub(crate) struct Carried {
    pub text: String,
    pub notes: Vec<String>,
    /// The tree of `text`, which the pass parsed anyway: the verifier reads it instead of
    /// parsing the result once more.
    pub tree: Option<Parsed>,
}

/// Gives every field of `merged` (a clean result that parses) the comments the 3-way merge
/// of base's, ours' and theirs' decides for it. Returns `merged` unchanged where the pass
/// cannot pair the versions.
pub(crate) fn carry(versions: &Versions, merged: &str, policy: Policy) -> Carried {
    if all_bare(versions, merged) {
        return Carried {
            text: merged.to_string(),
            notes: Vec::new(),
            tree: parse::parse(merged).ok().map(Tree::detach),
        };
    }
    let Some((result, planned)) = planned(versions, merged, policy) else {
        return Carried {
            text: merged.to_string(),
            notes: Vec::new(),
            tree: None,
        };
    };
    let unchanged = |result: Tree, notes| Carried {
        text: merged.to_string(),
        notes,
        tree: Some(result.detach()),
    };
    let Some((mut edits, notes)) = planned else {
        return unchanged(result, Vec::new());
    };
    if edits.is_empty() {
        return unchanged(result, notes);
    }
    let text = match splice(merged, &mut edits) {
        Ok(text) => text,
        Err(_) => return unchanged(result, bug()),
    };
    let Some(after) = same_documents(&result, &text) else {
        return unchanged(result, bug());
    };
    Carried {
        tree: Some(after),
        text,
        notes,
    }
}

/// Ours' side of a conflicted result as the merge wrote it, before the comment pass edited
/// its comment lines: what ours' side must still read as (the driver's check of the
/// conflict's sides, which parses ours' side anyway, compares it).
pub(crate) type PlannedSide = crate::parse::OwnedParse;

/// Gives the fields outside the conflicts of `marked` (a conflicted result, markers of
/// `size`) the comments [`carry`] would: a comment edit of theirs is not lost because a
/// field elsewhere conflicts. The pass runs on the text of ours' side of every conflict,
/// and only its edits of lines both sides share are kept, where they stand clear of every
/// conflict: the lines inside one are each side's own, comments included. Returns `marked`
/// unchanged where the pass cannot pair the versions, else the text with ours' side as it
/// was before the pass.
pub(crate) fn carry_around_conflicts(
    versions: &Versions,
    marked: &str,
    policy: Policy,
    size: usize,
) -> (String, Vec<String>, Option<PlannedSide>) {
    let unchanged = || (marked.to_string(), Vec::new(), None);
    if all_bare(versions, marked) {
        return unchanged();
    }
    let (side, shared) = markers::ours_side(marked, size);
    let Some((result, Some((edits, notes)))) = planned(versions, &side, policy) else {
        return unchanged();
    };
    // Each edit kept is moved from ours' side to the marked text: it lies inside one run of
    // shared lines, and an insertion stands before one of its lines (at the run's end it
    // could be the head of a conflicted field).
    let mut moved: Vec<Edit> = edits
        .iter()
        .filter_map(|e| {
            let run = &shared[shared
                .partition_point(|r| r.side.start <= e.start)
                .checked_sub(1)?];
            let clear = e.end <= run.side.end
                && (e.start < e.end || e.start < run.side.end || run.side.end == side.len());
            clear.then(|| Edit {
                start: e.start - run.side.start + run.marked,
                end: e.end - run.side.start + run.marked,
                text: e.text.clone(),
            })
        })
        .collect();
    if moved.is_empty() {
        return unchanged();
    }
    let Ok(text) = splice(marked, &mut moved) else {
        return (marked.to_string(), bug(), None);
    };
    let tree = result.detach();
    (text, notes, Some(PlannedSide { text: side, tree }))
}

/// `merged` parsed, and the pass's edits of it with its notes (`None` where the versions
/// cannot be paired); `None` where `merged` does not parse.
#[allow(clippy::type_complexity)]
fn planned<'m>(
    versions: &Versions,
    merged: &'m str,
    policy: Policy,
) -> Option<(Tree<'m>, Option<(Vec<Edit>, Vec<String>)>)> {
    let trees = [&versions.base, &versions.ours, &versions.theirs];
    std::thread::scope(|scope| {
        // On a large file the versions' layouts are built on a second core while the result
        // is parsed and laid out here.
        let second =
            (merged.len() >= PARALLEL_FROM).then(|| scope.spawn(|| trees.map(Layout::new)));
        let result = parse::parse(merged).ok()?;
        let r = Layout::new(&result);
        let layouts = match second {
            Some(second) => second
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => trees.map(Layout::new),
        };
        let planned = plan_edits(
            trees,
            layouts,
            &result,
            r,
            policy,
            versions.file_name.as_deref(),
        );
        Some((result, planned))
    })
}

/// Whether every field's comments are nothing in every version and in the result: nothing
/// to carry, and no layout to build (a third of a large generated CRD's merge). Conflict
/// markers hold neither a comment nor a blank line.
fn all_bare(versions: &Versions, merged: &str) -> bool {
    [&versions.base, &versions.ours, &versions.theirs]
        .iter()
        .all(|t| bare(t.text))
        && bare(merged)
}

/// Whether a text holds no comment and no blank line, the two things this pass carries: no
/// `#` that could open a comment (one not after a printable character) and no line of
/// blanks only. Generated manifests often hold neither.
fn bare(text: &str) -> bool {
    let bytes = text.as_bytes();
    let comment =
        memchr::memchr_iter(b'#', bytes).any(|i| i == 0 || !bytes[i - 1].is_ascii_graphic());
    if comment {
        return false;
    }
    let blank = |line: &[u8]| line.iter().rev().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        if blank(&bytes[start..end]) {
            return false;
        }
        start = end + 1;
    }
    start == bytes.len() || !blank(&bytes[start..])
}

/// The result's size (bytes) from which the versions' layouts are built on a second thread:
/// below it a thread's start costs more than it saves.
const PARALLEL_FROM: usize = 256 << 10;

/// The note for a pass that would have changed the data: a bug, and tests fail on it.
fn bug() -> Vec<String> {
    vec!["carrying comments would have changed the data, a bug in kmerge (please report it): comments left as merged".into()]
}

/// The tree of `text`, if it reads as the same documents as `before`.
fn same_documents(before: &Tree, text: &str) -> Option<Parsed> {
    let after = parse::parse(text).ok()?;
    resource::same_documents(before, &after).then(|| after.detach())
}

/// Which of the fields starting on one line: the outermost owns the comment lines above it,
/// the innermost the comment at the line's end.
#[derive(Clone, Copy)]
enum Starts {
    Outermost,
    Innermost,
}

/// Where a field of another version stands relative to the result's field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Partner {
    /// The version has no such field.
    Absent,
    /// It has it, but not at the start of a line of its own: its comments cannot be told.
    Unknown,
    /// It starts this line.
    Line(usize),
}

/// One line of a head: comment lines and blank lines above a field.
#[derive(Clone, Copy, Debug)]
struct HeadLine<'a> {
    /// Indentation relative to the field's line.
    rel: isize,
    /// The line without its indentation (or line break): what is compared.
    text: &'a str,
}

impl<'a> HeadLine<'a> {
    fn key(&self) -> (isize, &'a str) {
        if self.text.trim().is_empty() {
            (0, "")
        } else {
            (self.rel, self.text.trim_end())
        }
    }
}

/// Where a run of comment lines stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Spot {
    /// Above the field starting this line (up to the field or comment line before).
    Head(usize),
    /// Below the key on this line, whose collection they open: the comment lines indented
    /// past the key's column `col` (before its first entry, or, for a null value, before
    /// the next field).
    Opening { line: usize, col: usize },
    /// Below the key on this line, whose value stands on the line: nothing opens there.
    Shut(usize),
    /// Below a field whose lines end on line `after` (past the lines its opening and its
    /// fields' feet hold): the comment lines indented into it, then a template's closing
    /// control lines (`{{- end }}`) at the field's column `col`, which close the block the
    /// field stands in. They are that field's, not the head of the field below: two blocks
    /// both sides added at one place each keep their `end`.
    Foot { after: usize, col: usize },
}

/// The pass's edits of the result, and its notes; `None` when the versions cannot be paired.
fn plan_edits<'t>(
    trees: [&Tree; 3],
    mut layouts: [Layout<'t>; 3],
    result: &Tree,
    mut r: Layout<'t>,
    policy: Policy,
    file_name: Option<&str>,
) -> Option<(Vec<Edit>, Vec<String>)> {
    // The result's documents and their partners in each version.
    let mut partner_docs: Vec<[Option<resource::DocRef>; 3]> = vec![[None; 3]; result.docs.len()];
    for (i, tree) in trees.iter().enumerate() {
        for g in resource::match_documents(tree, result, result, false).ok()? {
            if let Some(doc) = g.ours {
                partner_docs[doc.doc][i] = g.base;
            }
        }
    }
    let [base, _, theirs] = trees;
    let mut walk = Walk {
        r: &r,
        x: [&layouts[0], &layouts[1], &layouts[2]],
        pairs: Vec::new(),
        openings: Vec::new(),
        feet: Vec::new(),
        seen: HashSet::new(),
        ends: Vec::new(),
        group_kind: None,
        schema: String::new(),
    };
    for doc in resource::documents(result) {
        let (d, identity) = doc;
        let [b, o, t] = partner_docs[d.doc];
        // Only theirs brings comment changes: a document theirs left as it was keeps ours'.
        let Some(t) = t else { continue };
        let parts = [b, o, Some(t)];
        // The document's `---` line carries the comments above it, which belong to the
        // document before in the regions: always looked at.
        if let Some(line) = r.separators[d.doc] {
            let partners = std::array::from_fn(|i| match parts[i] {
                Some(p) => layouts[i].separators[p.doc].map_or(Partner::Absent, Partner::Line),
                None => Partner::Absent,
            });
            walk.record(line, partners);
            walk.ends.push((line, partners));
        }
        if b.is_some_and(|b| region(base, b) == region(theirs, t)) {
            continue;
        }
        walk.group_kind = resource::group_kind_of(identity.as_ref(), file_name);
        walk.schema.clear();
        let xs = std::array::from_fn(|i| parts[i].map(|p| (p.root, trees[i].node(p.root).start)));
        walk.field(d.root, result.node(d.root).start, xs);
    }
    // The comment lines after the last field.
    let eof = |l: &Layout| Partner::Line(l.starts.len());
    walk.pairs.push((
        r.starts.len(),
        [eof(&layouts[0]), eof(&layouts[1]), eof(&layouts[2])],
    ));
    let Walk {
        pairs,
        ends,
        openings,
        feet,
        ..
    } = walk;
    // The lines opening a collection, or closing a field's block, are no head of the fields
    // below or after them. A foot starts below its field's opening and its fields' feet, so
    // those are claimed first.
    for (spot, partners) in &openings {
        r.claim(*spot);
        for (layout, p) in layouts.iter_mut().zip(partners) {
            if let Some(spot) = p {
                layout.claim(*spot);
            }
        }
    }
    let feet: Vec<(Spot, [Option<Spot>; 3])> = feet
        .into_iter()
        .map(|(spot, partners)| {
            let spot = r.claim_foot(spot);
            let mut settled = [None; 3];
            for ((layout, p), s) in layouts.iter_mut().zip(partners).zip(&mut settled) {
                *s = p.map(|p| layout.claim_foot(p));
            }
            (spot, settled)
        })
        .collect();

    let mut edits = Vec::new();
    let mut not_taken: Vec<usize> = Vec::new();
    let lines = |partners: [Partner; 3]| {
        partners.map(|p| match p {
            Partner::Absent => Some(None),
            Partner::Unknown => None,
            Partner::Line(l) => Some(Some(l)),
        })
    };
    // Openings first: an insertion there comes before one above the first entry.
    for (spot, partners) in openings {
        let partners = partners.map(Some);
        decide_head(
            &r,
            &layouts,
            spot,
            partners,
            policy,
            &mut edits,
            &mut not_taken,
        );
    }
    // Then feet, inner ones first: an insertion there comes after the field's opening and
    // before the next field's head.
    for (spot, partners) in feet {
        decide_head(
            &r,
            &layouts,
            spot,
            partners.map(Some),
            policy,
            &mut edits,
            &mut not_taken,
        );
    }
    for (line, partners) in pairs {
        let heads = lines(partners).map(|p| p.map(|l| l.map(Spot::Head)));
        decide_head(
            &r,
            &layouts,
            Spot::Head(line),
            heads,
            policy,
            &mut edits,
            &mut not_taken,
        );
    }
    for (line, partners) in ends {
        let ends = lines(partners);
        decide_trailing(&r, &layouts, line, ends, policy, &mut edits, &mut not_taken);
    }
    let mut notes = Vec::new();
    if !not_taken.is_empty() {
        notes.push(format!(
            "ours and theirs changed the same comment lines differently: ours' kept, theirs' edit not taken ({} of theirs)",
            line_list(&mut not_taken)
        ));
    }
    Some((edits, notes))
}

/// A document's text.
fn region<'a>(tree: &Tree<'a>, d: resource::DocRef) -> &'a str {
    &tree.text[tree.docs[d.doc].region.clone()]
}

/// What heads are compared by.
fn keys<'a>(h: &[HeadLine<'a>]) -> Vec<(isize, &'a str)> {
    h.iter().map(HeadLine::key).collect()
}

/// Who wins where both sides changed a field's comments.
fn pick<T: PartialEq>(b: &T, o: &T, t: &T) -> Option<bool> {
    if o == t || b == t {
        Some(false)
    } else if b == o {
        Some(true)
    } else {
        None
    }
}

/// The comment lines at the result's `spot` (`partners`: the same spot in base, ours,
/// theirs, `Some(None)` when absent, `None` when unknown), decided and written.
fn decide_head(
    r: &Layout,
    x: &[Layout; 3],
    spot: Spot,
    partners: [Option<Option<Spot>>; 3],
    policy: Policy,
    edits: &mut Vec<Edit>,
    not_taken: &mut Vec<usize>,
) {
    let [Some(pb), Some(po), Some(pt)] = partners else {
        return;
    };
    // Blank lines at the very end of a text are no one's comment: a side that deleted the
    // last fields leaves there the blank line that stood above them, which the other side
    // may keep elsewhere. The result keeps its own.
    let eof = spot == Spot::Head(r.starts.len());
    fn trim(eof: bool, mut h: Vec<HeadLine<'_>>) -> Vec<HeadLine<'_>> {
        while eof && h.last().is_some_and(|l| l.text.trim().is_empty()) {
            h.pop();
        }
        h
    }
    let head = |i: usize, p: Option<Spot>| p.map(|s| trim(eof, x[i].comments(s)));
    let hb = head(0, pb).unwrap_or_default();
    let ho = head(1, po).unwrap_or_else(|| hb.clone());
    let ht = head(2, pt).unwrap_or_else(|| hb.clone());
    let (kb, ko, kt) = (keys(&hb), keys(&ho), keys(&ht));
    // A side that only added or removed blank lines, or only moved its comment lines left
    // or right, yields to one that changed what they say.
    fn words<'a>(k: &[(isize, &'a str)]) -> Vec<&'a str> {
        k.iter().map(|l| l.1).filter(|w| !w.is_empty()).collect()
    }
    let only_layout = |k: &[(isize, &str)]| words(k) == words(&kb);
    let picked = pick(&kb, &ko, &kt).or_else(|| {
        if only_layout(&ko) {
            Some(true)
        } else if only_layout(&kt) {
            Some(false)
        } else {
            None
        }
    });
    let target: Vec<HeadLine> = match picked {
        Some(false) => ho,
        Some(true) => ht,
        None => {
            let chunks = diff3(&kb, &ko, &kt);
            if chunks.iter().all(|c| !matches!(c, Chunk::Conflict { .. })) {
                let mut merged = Vec::new();
                for c in &chunks {
                    match c {
                        Chunk::Same { ours } | Chunk::Ours { ours } | Chunk::Both { ours, .. } => {
                            merged.extend_from_slice(&ho[ours.clone()])
                        }
                        Chunk::Theirs { theirs, .. } => {
                            merged.extend_from_slice(&ht[theirs.clone()])
                        }
                        Chunk::Conflict { .. } => {}
                    }
                }
                merged
            } else if policy == Policy::Theirs {
                ht
            } else {
                if policy == Policy::Mark {
                    let first = pt.map_or(0, |s| x[2].run(s).start);
                    // The comment lines: a blank line is no edit to name.
                    let before = not_taken.len();
                    not_taken.extend(
                        ht.iter()
                            .enumerate()
                            .filter(|(_, h)| !h.text.trim().is_empty())
                            .map(|(i, _)| first + i + 1),
                    );
                    // Theirs deleted the comment lines: name the line they stood above.
                    if not_taken.len() == before {
                        if let Some(s) = pt {
                            not_taken.push(x[2].run(s).end + 1);
                        }
                    }
                }
                ho
            }
        }
    };
    let now = r.comments(spot);
    let mut target = target;
    if eof {
        let kept = now.len() - trim(eof, now.clone()).len();
        target.extend_from_slice(&now[now.len() - kept..]);
    }
    if keys(&now) == keys(&target) {
        return;
    }
    let run = r.run(spot);
    let indent = r.reference(spot) as isize;
    let eol = r.tree.eol;
    let mut text = String::new();
    let at_eof_without_break = eof && !r.tree.text.ends_with('\n');
    for h in &target {
        if at_eof_without_break {
            text.push_str(eol);
        }
        if !h.text.trim().is_empty() {
            let col = (indent + h.rel).max(0) as usize;
            text.extend(std::iter::repeat_n(' ', col));
            text.push_str(h.text.trim_end_matches(['\r', '\n']));
        }
        if !at_eof_without_break {
            text.push_str(eol);
        }
    }
    let start = if at_eof_without_break {
        // The file ends without a line break: so does the result, after the last field's
        // line or after the comments that now follow it.
        match run.end.checked_sub(now.len() + 1) {
            Some(last) => line_end(r.tree.text, r.starts[last]),
            None => r.starts[0],
        }
    } else {
        r.offset(run.start)
    };
    edits.push(Edit {
        start,
        end: if at_eof_without_break {
            r.tree.text.len()
        } else {
            r.offset(run.end)
        },
        text,
    });
}

/// The comment at the end of the result's `line`, decided and written.
fn decide_trailing(
    r: &Layout,
    x: &[Layout; 3],
    line: usize,
    partners: [Option<Option<usize>>; 3],
    policy: Policy,
    edits: &mut Vec<Edit>,
    not_taken: &mut Vec<usize>,
) {
    if line >= r.starts.len() {
        return;
    }
    let [Some(pb), Some(po), Some(pt)] = partners else {
        return;
    };
    let Some(now) = r.trailing(line) else { return };
    // (the version's comment, the layout and line it stands on)
    let trailing = |i: usize, p: Option<usize>| match p {
        None => Some(None),
        Some(l) => x[i].trailing(l).map(|c| c.map(|c| (c, i, l))),
    };
    let (Some(tb), Some(to), Some(tt)) = (trailing(0, pb), trailing(1, po), trailing(2, pt)) else {
        return;
    };
    let to = if po.is_none() { tb.clone() } else { to };
    let tt = if pt.is_none() { tb.clone() } else { tt };
    let text_of = |c: Option<(Range<usize>, usize, usize)>| {
        c.map(|(range, i, _)| x[i].tree.text[range].trim())
    };
    let (kb, ko, kt) = (
        text_of(tb.clone()),
        text_of(to.clone()),
        text_of(tt.clone()),
    );
    let target = match pick(&kb, &ko, &kt) {
        Some(false) => to,
        Some(true) => tt,
        None if policy == Policy::Theirs => tt,
        None => {
            if policy == Policy::Mark {
                if let Some(l) = pt {
                    not_taken.push(l + 1);
                }
            }
            to
        }
    };
    let current = now.clone().map(|range| r.tree.text[range].trim());
    if text_of(target.clone()) == current {
        return;
    }
    let (start, end) = match &now {
        Some(range) => (range.start, range.end),
        None => {
            let at = line_end(r.tree.text, r.starts[line]);
            let at = r.token_end[line].max(r.starts[line]).min(at);
            (at, line_end(r.tree.text, r.starts[line]))
        }
    };
    let text = match target {
        None => String::new(),
        Some((range, i, _)) => {
            let source = &x[i].tree.text[range];
            let spaces = &source[..source.len() - source.trim_start().len()];
            let spaces = if spaces.is_empty() { " " } else { spaces };
            format!("{spaces}{}", source.trim())
        }
    };
    edits.push(Edit { start, end, text });
}

/// `12, 30-32`: line numbers, runs joined.
fn line_list(lines: &mut Vec<usize>) -> String {
    lines.sort_unstable();
    lines.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j + 1 < lines.len() && lines[j + 1] == lines[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            format!("line {}", lines[i])
        } else {
            format!("lines {}-{}", lines[i], lines[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// A version's text as lines: which hold YAML content, where each line's last token ends,
/// and which field owns each line.
/// No node starts the line.
const NO_NODE: NodeId = NodeId::MAX;

struct Layout<'t> {
    tree: &'t Tree<'t>,
    /// Where each line starts (the first one after a byte-order mark).
    starts: Vec<usize>,
    /// Lines holding YAML content: not only a comment, blank, or a `...`/`%` line.
    content: Vec<bool>,
    /// Lines whose end-of-line comment cannot be told apart from content (inside a value
    /// that spans lines, after an anchor or a tag).
    unsure: Vec<bool>,
    /// Where the last token of each line ends.
    token_end: Vec<usize>,
    /// The field (its value node) that starts each line, the outermost one where several do:
    /// the comment lines above belong to it. Indexed by line, [`NO_NODE`] where none does.
    owner: Vec<NodeId>,
    /// The field that starts last on each line (`path` on `- path: /`): the comment at the
    /// line's end belongs to it.
    innermost: Vec<NodeId>,
    /// The line of each document's explicit `---`.
    separators: Vec<Option<usize>>,
    /// Comment lines opening a collection, or a field's foot: no field's head.
    claimed: HashSet<usize>,
    /// Whether the text may hold closing control lines (a template's skeleton): only then
    /// are feet looked for.
    feet: bool,
    /// The line [`Layout::line`] found last: most lookups walk the text forward, so the next
    /// one is usually on it or just below (a binary search per lookup was a quarter of a
    /// large merge's time).
    last: Cell<usize>,
}

impl<'t> Layout<'t> {
    fn new(tree: &'t Tree<'t>) -> Layout<'t> {
        let text = tree.text;
        let bom = if text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        let mut starts = vec![bom];
        starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .filter(|&next| next < text.len()),
        );
        let n = starts.len();
        let mut layout = Layout {
            tree,
            starts,
            content: vec![false; n],
            unsure: vec![false; n],
            token_end: vec![0; n],
            owner: vec![NO_NODE; n],
            innermost: vec![NO_NODE; n],
            separators: vec![None; tree.docs.len()],
            claimed: HashSet::new(),
            feet: skeleton::may_hold_closing_lines(text),
            last: Cell::new(0),
        };
        for id in 0..tree.nodes.len() {
            layout.mark(id);
        }
        for (i, doc) in tree.docs.iter().enumerate() {
            if !doc.explicit_start {
                continue;
            }
            let mut line = layout.line(doc.region.start);
            while line < n && !text[layout.starts[line]..].starts_with("---") {
                line += 1;
            }
            if line < n {
                layout.content[line] = true;
                let end = layout.starts[line] + 3;
                layout.token_end[line] = layout.token_end[line].max(end);
                layout.separators[i] = Some(line);
            }
        }
        for doc in &tree.docs {
            if let Some(root) = doc.root {
                layout.own(root, tree.node(root).start);
            }
        }
        layout
    }

    /// The line holding byte `at`.
    fn line(&self, at: usize) -> usize {
        let starts = &self.starts;
        let holds =
            |line: usize| starts[line] <= at && starts.get(line + 1).is_none_or(|&next| at < next);
        let last = self.last.get();
        let line = if holds(last) {
            last
        } else if last + 1 < starts.len() && holds(last + 1) {
            last + 1
        } else {
            starts.partition_point(|&s| s <= at).saturating_sub(1)
        };
        self.last.set(line);
        line
    }

    /// Where line `line` starts (the end of the text past the last line).
    fn offset(&self, line: usize) -> usize {
        self.starts
            .get(line)
            .copied()
            .unwrap_or(self.tree.text.len())
    }

    /// The indentation of a line (0 past the last line).
    fn indent(&self, line: usize) -> usize {
        match self.starts.get(line) {
            Some(&s) => self.tree.text[s..]
                .bytes()
                .take_while(|&b| b == b' ')
                .count(),
            None => 0,
        }
    }

    /// Records what one node puts on its lines.
    fn mark(&mut self, id: NodeId) {
        let tree = self.tree;
        let text = tree.text;
        let n = tree.node(id);
        let spans_lines = |l: &Layout| l.line(n.start) != l.line(n.end.max(n.start + 1) - 1);
        match n.kind {
            Kind::Scalar | Kind::Alias => {
                let block = matches!(n.style, Style::Literal | Style::Folded);
                self.span(n.start, n.end, spans_lines(self));
                if block {
                    // The header's line ends after `|-` or `>2+`; the content is opaque.
                    let ls = line_end(text, n.start);
                    if let Some(p) = text[n.start..ls].find(['|', '>']) {
                        let h = n.start + p;
                        let len = text[h..ls]
                            .bytes()
                            .take_while(|b| b"|>+-0123456789".contains(b))
                            .count();
                        let line = self.line(n.start);
                        self.unsure[line] = false;
                        self.token_end[line] = self.token_end[line].max(h + len);
                    }
                } else {
                    let last = self.line(n.end.max(n.start + 1) - 1);
                    self.token_end[last] = self.token_end[last].max(n.end);
                }
            }
            Kind::Map | Kind::Seq if n.flow => {
                self.span(n.start, n.end, spans_lines(self));
                let last = self.line(n.end.max(n.start + 1) - 1);
                self.token_end[last] = self.token_end[last].max(n.end);
            }
            Kind::Map | Kind::Seq => {
                if n.props.is_some() {
                    let line = self.line(n.start);
                    self.content[line] = true;
                    self.unsure[line] = true;
                }
            }
        }
        if n.kind == Kind::Map {
            for (k, _) in tree.entries(id) {
                let end = tree.node(k).end;
                let rest = &text[end..line_end(text, end)];
                if let Some(p) = rest.find(':') {
                    if rest.as_bytes()[..p].iter().all(u8::is_ascii_whitespace) {
                        let line = self.line(end);
                        self.token_end[line] = self.token_end[line].max(end + p + 1);
                    }
                }
            }
        }
        if n.kind == Kind::Seq && !n.flow {
            for &item in tree.children(id) {
                let dash = dash_of(text, tree.node(item).start);
                let line = self.line(dash);
                self.content[line] = true;
                self.token_end[line] = self.token_end[line].max(dash + 1);
            }
        }
    }

    /// Marks the lines of `start..end` as content; all but a one-line span are unsure.
    fn span(&mut self, start: usize, end: usize, multi: bool) {
        let (first, last) = (self.line(start), self.line(end.max(start + 1) - 1));
        for line in first..=last.max(first) {
            self.content[line] = true;
            if multi {
                self.unsure[line] = true;
            }
        }
    }

    /// Records which field owns each line: the outermost field starting it, with nothing
    /// before it on the line.
    fn own(&mut self, node: NodeId, start: usize) {
        let tree = self.tree;
        let line = self.line(start);
        // Only YAML's blanks can stand before a node on its line, if anything does.
        let alone = || {
            tree.text.as_bytes()[self.starts[line]..start]
                .iter()
                .all(u8::is_ascii_whitespace)
        };
        if self.owner[line] == NO_NODE && alone() {
            self.owner[line] = node;
        }
        self.innermost[line] = node;
        let n = tree.node(node);
        if n.flow {
            return;
        }
        match n.kind {
            Kind::Map => {
                for (k, v) in tree.entries(node) {
                    self.own(v, tree.node(k).start);
                }
            }
            Kind::Seq => {
                for &item in tree.children(node) {
                    self.own(item, dash_of(tree.text, tree.node(item).start));
                }
            }
            _ => {}
        }
    }

    /// The line a field starts, if it is the field `which` names there.
    fn started_line(&self, which: Starts, node: NodeId, start: usize) -> Partner {
        let line = self.line(start);
        let starters = match which {
            Starts::Outermost => &self.owner,
            Starts::Innermost => &self.innermost,
        };
        if starters[line] == node {
            Partner::Line(line)
        } else {
            Partner::Unknown
        }
    }

    /// Whether a line is only a comment or blank.
    fn is_comment_or_blank(&self, line: usize) -> bool {
        self.non_content(line)
            .is_some_and(|l| l.is_empty() || l.starts_with('#'))
    }

    /// Whether a line is a comment line: not blank.
    fn is_comment(&self, line: usize) -> bool {
        self.non_content(line).is_some_and(|l| l.starts_with('#'))
    }

    /// Whether a line is a closing control line of a template's skeleton.
    fn is_closing(&self, line: usize) -> bool {
        self.non_content(line)
            .is_some_and(skeleton::is_closing_line)
    }

    /// A line without its indentation, unless it holds YAML content.
    fn non_content(&self, line: usize) -> Option<&'t str> {
        if self.content[line] {
            return None;
        }
        let s = self.starts[line];
        Some(self.tree.text[s..line_end(self.tree.text, s)].trim_start())
    }

    /// The foot of the field starting at byte `start` whose value is `value`, below its last
    /// line (see [`Layout::claim_foot`] for the lines its opening and fields' feet hold).
    fn foot(&self, value: NodeId, start: usize) -> Spot {
        let line = self.line(start);
        let col = start - self.starts[line];
        let end = self.tree.node(value).end.max(start + 1) - 1;
        Spot::Foot {
            after: self.line(end).max(line),
            col,
        }
    }

    /// A foot moved below the lines already claimed right under its field (its opening, its
    /// fields' feet), then claimed.
    fn claim_foot(&mut self, spot: Spot) -> Spot {
        let Spot::Foot { mut after, col } = spot else {
            return spot;
        };
        while self.claimed.contains(&(after + 1)) {
            after += 1;
        }
        let spot = Spot::Foot { after, col };
        self.claim(spot);
        spot
    }

    /// The first line of the comment and blank lines directly above `line` (`line` itself
    /// when there are none; past the last line: those at the end of the text).
    fn head_start(&self, line: usize) -> usize {
        let mut first = line;
        while first > 0
            && self.is_comment_or_blank(first - 1)
            && !self.claimed.contains(&(first - 1))
        {
            first -= 1;
        }
        first
    }

    /// The lines of a spot.
    fn run(&self, spot: Spot) -> Range<usize> {
        match spot {
            Spot::Head(line) => self.head_start(line)..line,
            Spot::Opening { line, col } => {
                let mut end = line + 1;
                while end < self.starts.len()
                    && self.is_comment_or_blank(end)
                    && self.indent(end) > col
                    && self.tree.text[self.starts[end]..]
                        .trim_start_matches(' ')
                        .starts_with('#')
                {
                    end += 1;
                }
                line + 1..end
            }
            Spot::Shut(line) => line + 1..line + 1,
            Spot::Foot { after, col } => {
                let n = self.starts.len();
                let mut end = after + 1;
                while end < n && self.is_comment(end) && self.indent(end) > col {
                    end += 1;
                }
                while end < n && self.is_closing(end) && self.indent(end) == col {
                    end += 1;
                }
                after + 1..end
            }
        }
    }

    /// The column a spot's lines are indented from: the field's, or the key's.
    fn reference(&self, spot: Spot) -> usize {
        match spot {
            Spot::Head(line) => self.indent(line),
            Spot::Opening { col, .. } => col,
            Spot::Shut(line) => self.indent(line),
            Spot::Foot { col, .. } => col,
        }
    }

    /// Marks the lines of an opening or a foot as its own.
    fn claim(&mut self, spot: Spot) {
        self.claimed.extend(self.run(spot));
    }

    /// The comment and blank lines of a spot, relative to its indentation.
    fn comments(&self, spot: Spot) -> Vec<HeadLine<'t>> {
        let indent = self.reference(spot) as isize;
        let text = self.tree.text;
        self.run(spot)
            .map(|l| {
                let s = self.starts[l];
                let raw = &text[s..line_end(text, s)];
                let spaces = raw.bytes().take_while(|&b| b == b' ').count();
                HeadLine {
                    rel: spaces as isize - indent,
                    text: &raw[spaces..],
                }
            })
            .collect()
    }

    /// The comment at the end of a line (from the spaces before its `#`), `Some(None)` when
    /// there is none, `None` when it cannot be told.
    fn trailing(&self, line: usize) -> Option<Option<Range<usize>>> {
        if self.unsure[line] {
            return None;
        }
        let text = self.tree.text;
        let end = line_end(text, self.starts[line]);
        let from = self.token_end[line].max(self.starts[line]);
        if from > end {
            return None;
        }
        let rest = &text[from..end];
        if rest.trim().is_empty() {
            Some(None)
        } else if rest.starts_with([' ', '\t']) && rest.trim_start().starts_with('#') {
            Some(Some(from..end))
        } else {
            None
        }
    }
}

/// The walk pairing the result's fields with the versions' ones.
struct Walk<'a, 't> {
    r: &'a Layout<'t>,
    x: [&'a Layout<'t>; 3],
    /// The result's lines that start a field, with where the versions' fields start: for
    /// the comment lines above.
    pairs: Vec<(usize, [Partner; 3])>,
    /// The openings of collections base does not fill, with the versions' same spots
    /// (`None` where a version has no such field).
    openings: Vec<(Spot, [Option<Spot>; 3])>,
    /// The fields' feet where a version may have any, innermost fields first, with the
    /// versions' same spots.
    feet: Vec<(Spot, [Option<Spot>; 3])>,
    seen: HashSet<usize>,
    /// The same for the field starting last on a line: for the comment at its end.
    ends: Vec<(usize, [Partner; 3])>,
    group_kind: Option<String>,
    /// The schema path of the field being walked (`spec.containers[].ports`).
    schema: String,
}

impl Walk<'_, '_> {
    fn record(&mut self, line: usize, partners: [Partner; 3]) {
        if self.seen.insert(line) {
            self.pairs.push((line, partners));
        }
    }

    /// The result's line the field starts as `which` field, with where the versions' fields
    /// start as the same; `None` when the field is not that one on its line.
    fn partners(
        &self,
        which: Starts,
        node: NodeId,
        start: usize,
        xs: [Option<(NodeId, usize)>; 3],
    ) -> Option<(usize, [Partner; 3])> {
        let Partner::Line(line) = self.r.started_line(which, node, start) else {
            return None;
        };
        let partners = std::array::from_fn(|i| match xs[i] {
            None => Partner::Absent,
            Some((n, s)) => self.x[i].started_line(which, n, s),
        });
        Some((line, partners))
    }

    /// Whether nothing below a field needs its comments decided: theirs' text of it (from
    /// its key or dash to the end of its last line, comments inside included) is base's, and
    /// the result's is ours', so every comment inside stays as ours has it; or the other way
    /// round, ours' text is base's and the result's is theirs', so every comment inside is
    /// theirs' already.
    fn untouched(&self, node: NodeId, start: usize, xs: [Option<(NodeId, usize)>; 3]) -> bool {
        fn span<'a>(tree: &'a Tree<'a>, n: NodeId, s: usize) -> &'a str {
            let text = tree.text;
            &text[s.min(tree.node(n).start)..line_end(text, tree.node(n).end)]
        }
        let [Some((b, bs)), Some((o, os)), Some((t, ts))] = xs else {
            return false;
        };
        let [xb, xo, xt] = self.x;
        let (result, base) = (span(self.r.tree, node, start), span(xb.tree, b, bs));
        let (ours, theirs) = (span(xo.tree, o, os), span(xt.tree, t, ts));
        (result == ours && base == theirs) || (result == theirs && base == ours)
    }

    /// Pairs the result's field (its value `node`, starting at `start`) and everything
    /// below it with the versions' fields `xs` (value node and start).
    fn field(&mut self, node: NodeId, start: usize, xs: [Option<(NodeId, usize)>; 3]) {
        let r = self.r;
        if let Some((line, partners)) = self.partners(Starts::Outermost, node, start, xs) {
            self.record(line, partners);
        }
        if let Some((line, partners)) = self.partners(Starts::Innermost, node, start, xs) {
            self.ends.push((line, partners));
        }
        // The field's foot, recorded after its fields' (which stand above it).
        let foot = (r.feet || self.x.iter().any(|x| x.feet)).then(|| {
            let partners: [Option<Spot>; 3] =
                std::array::from_fn(|i| xs[i].map(|(v, s)| self.x[i].foot(v, s)));
            (r.foot(node, start), partners)
        });
        self.children(node, start, xs);
        self.feet.extend(foot);
    }

    /// [`Walk::field`] for everything below the field.
    fn children(&mut self, node: NodeId, start: usize, xs: [Option<(NodeId, usize)>; 3]) {
        let r = self.r;
        let tree = r.tree;
        let n = tree.node(node);
        if n.flow || self.untouched(node, start, xs) {
            return;
        }
        let depth = self.schema.len();
        match n.kind {
            Kind::Map => {
                let maps: [Option<HashMap<&str, (NodeId, NodeId)>>; 3] = std::array::from_fn(|i| {
                    let (xn, _) = xs[i]?;
                    let t = self.x[i].tree;
                    (t.node(xn).kind == Kind::Map)
                        .then(|| t.entries(xn).map(|(k, v)| (t.value(k), (k, v))).collect())
                });
                for (k, v) in tree.entries(node) {
                    let key = tree.value(k);
                    let partners = std::array::from_fn(|i| {
                        let (xk, xv) = *maps[i].as_ref()?.get(key)?;
                        Some((xv, self.x[i].tree.node(xk).start))
                    });
                    if !self.schema.is_empty() {
                        self.schema.push('.');
                    }
                    self.schema.push_str(key);
                    self.opening(k, v, partners);
                    self.field(v, tree.node(k).start, partners);
                    self.schema.truncate(depth);
                }
            }
            Kind::Seq => {
                let lists: Vec<(&Tree, NodeId)> = std::iter::once((tree, node))
                    .chain((0..3).filter_map(|i| xs[i].map(|(xn, _)| (self.x[i].tree, xn))))
                    .collect();
                let kind = list_kind(self.group_kind.as_deref(), &self.schema, &lists);
                let pairs: [Vec<Option<NodeId>>; 3] = std::array::from_fn(|i| match xs[i] {
                    Some((xn, _)) if self.x[i].tree.node(xn).kind == Kind::Seq => {
                        pair_items(tree, node, self.x[i].tree, xn, &kind)
                    }
                    _ => vec![None; n.child_count()],
                });
                self.schema.push_str("[]");
                for (j, &item) in tree.children(node).iter().enumerate() {
                    let partners = std::array::from_fn(|i| {
                        let xi = pairs[i][j]?;
                        Some((
                            xi,
                            dash_of(self.x[i].tree.text, self.x[i].tree.node(xi).start),
                        ))
                    });
                    self.field(item, dash_of(tree.text, tree.node(item).start), partners);
                }
                self.schema.truncate(depth);
            }
            _ => {}
        }
    }

    /// Records the opening of the result's `key: value` when base does not fill the value
    /// (no such field, or null or empty), so that the comment lines below the key stay
    /// with it however many entries each side added.
    fn opening(&mut self, key: NodeId, value: NodeId, xs: [Option<(NodeId, usize)>; 3]) {
        let empty = |t: &Tree, v: NodeId| {
            (t.children(v).is_empty() && t.node(v).kind != Kind::Scalar) || t.is_null(v)
        };
        if xs[0].is_some_and(|(b, _)| !empty(self.x[0].tree, b)) {
            return;
        }
        // The spot below a key: an opening where its value is a block collection or an
        // empty null, else nothing opens there.
        fn spot(l: &Layout, key_start: usize, value: NodeId) -> Spot {
            let tree = l.tree;
            let n = tree.node(value);
            let line = l.line(key_start);
            let open = matches!(n.kind, Kind::Map | Kind::Seq) && !n.flow
                || tree.is_null(value) && tree.src(value).is_empty();
            if open {
                Spot::Opening {
                    line,
                    col: key_start - l.starts[line],
                }
            } else {
                Spot::Shut(line)
            }
        }
        let r = spot(self.r, self.r.tree.node(key).start, value);
        if !matches!(r, Spot::Opening { .. }) {
            return;
        }
        let partners = std::array::from_fn(|i| xs[i].map(|(v, s)| spot(self.x[i], s, v)));
        self.openings.push((r, partners));
    }
}

/// For each element of the result's list, the element of another version's list that is the
/// same element: by merge key, by value in a set, else by content, and edited elements by
/// their place among the unpaired ones.
fn pair_items(
    r: &Tree,
    list: NodeId,
    x: &Tree,
    xlist: NodeId,
    kind: &ListKind,
) -> Vec<Option<NodeId>> {
    let (ri, xi) = (r.children(list), x.children(xlist));
    let named = |name: &dyn Fn(&Tree, NodeId) -> Option<String>| -> Option<Vec<Option<NodeId>>> {
        let mut index: HashMap<String, Option<NodeId>> = HashMap::new();
        // The elements without a name (a template's item whose key is an action or stands
        // in an `else` branch): each pairs with an unnamed one of the same content, so the
        // named ones around them still pair by name.
        let mut unnamed: Vec<(u128, NodeId)> = Vec::new();
        for &e in xi {
            match name(x, e) {
                // A name given twice pairs nothing.
                Some(n) => {
                    index.entry(n).and_modify(|v| *v = None).or_insert(Some(e));
                }
                None => unnamed.push((digest(x, e), e)),
            }
        }
        if index.is_empty() {
            return None;
        }
        let pairs = ri
            .iter()
            .map(|&e| match name(r, e) {
                Some(n) => index.get(&n).copied().flatten(),
                None => {
                    let d = digest(r, e);
                    let at = unnamed.iter().position(|&(u, _)| u == d)?;
                    Some(unnamed.remove(at).1)
                }
            })
            .collect();
        Some(pairs)
    };
    let by_name = match kind {
        ListKind::Keyed(keys) => named(&|t: &Tree, e| element_key(t, e, keys).map(|k| k.0)),
        ListKind::Set => {
            named(&|t: &Tree, e| (t.node(e).kind == Kind::Scalar).then(|| t.value(e).to_string()))
        }
        ListKind::Plain => None,
    };
    if let Some(pairs) = by_name {
        return pairs;
    }
    let rd: Vec<u128> = ri.iter().map(|&e| digest(r, e)).collect();
    let xd: Vec<u128> = xi.iter().map(|&e| digest(x, e)).collect();
    let mut out = vec![None; ri.len()];
    let (mut xo, mut ro) = (0, 0);
    let unpaired = |xs: Range<usize>, rs: Range<usize>, out: &mut Vec<Option<NodeId>>| {
        if xs.len() == rs.len() {
            for (a, b) in xs.zip(rs) {
                out[b] = Some(xi[a]);
            }
        }
    };
    for op in capture_diff_slices(Algorithm::Myers, &xd, &rd) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            unpaired(xo..old_index, ro..new_index, &mut out);
            for k in 0..len {
                out[new_index + k] = Some(xi[old_index + k]);
            }
            xo = old_index + len;
            ro = new_index + len;
        }
    }
    unpaired(xo..xi.len(), ro..ri.len(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Versions;

    fn carried(base: &str, ours: &str, theirs: &str, merged: &str, policy: Policy) -> Carried {
        let v = Versions::parse(base, ours, theirs).unwrap();
        carry(&v, merged, policy)
    }

    /// Only a text that can hold neither a comment nor a blank line skips the pass.
    #[test]
    fn a_bare_text_holds_no_comment_and_no_blank_line() {
        for text in ["", "a: 1", "a: 1\n", "a: x#y\nb: '#'\n", "a:\r\n  - b\r\n"] {
            assert!(bare(text), "{text:?}");
        }
        for text in [
            "# c\na: 1\n",
            "a: 1 # c\n",
            "a: 1\t# c\n",
            "a: 'x #y'\n",
            "\u{feff}# c\na: 1\n",
            "a: 1\n\nb: 2\n",
            "a: 1\n  \r\nb: 2\n",
            "\na: 1\n",
            "a: 1\n  ",
        ] {
            assert!(!bare(text), "{text:?}");
        }
    }

    /// A result whose versions hold comments still gets them where only one is bare.
    #[test]
    fn one_bare_version_does_not_skip_the_pass() {
        let base = "a: 1\nb: 2\n";
        let theirs = "a: 1\n# theirs\nb: 2\n";
        let c = carried(base, base, theirs, base, Policy::Mark);
        assert_eq!(c.text, theirs);
    }

    /// The line lookup that starts from the line found last gives the binary search's
    /// answer wherever the next offset is, near or far, forward or back.
    #[test]
    fn a_line_is_found_from_anywhere() {
        let text: String = (0..300)
            .map(|i| format!("k{i}: {}\n", "x".repeat(i % 7)))
            .collect();
        let text = format!("\u{feff}{text}");
        let tree = parse::parse(&text).unwrap();
        let layout = Layout::new(&tree);
        let by_search = |at: usize| {
            layout
                .starts
                .partition_point(|&s| s <= at)
                .saturating_sub(1)
        };
        let mut at = 0usize;
        for step in 0..5000usize {
            // Offsets that walk forward, jump back and far, and land on line starts.
            at = (at * 7 + step * 13 + 1) % (text.len() + 1);
            assert_eq!(layout.line(at), by_search(at), "offset {at}");
            assert_eq!(layout.line(at / 2), by_search(at / 2), "offset {}", at / 2);
            let start = layout.starts[by_search(at)];
            assert_eq!(layout.line(start), by_search(start), "offset {start}");
        }
    }

    #[test]
    fn a_comment_theirs_added_comes_with_it() {
        let base = "a: 1\nb: 2\n";
        let theirs = "a: 1\n# about b\nb: 2 # two\n";
        let c = carried(base, "a: 3\nb: 2\n", theirs, "a: 3\nb: 2\n", Policy::Mark);
        assert_eq!(c.text, "a: 3\n# about b\nb: 2 # two\n");
        assert!(c.notes.is_empty());
    }

    /// A result large enough for the versions' layouts to be built on a second thread gets
    /// the same comments.
    #[test]
    fn a_large_file_carries_comments_too() {
        let fields: String = (0..15_000)
            .map(|i| format!("f{i:05}: value {i}\n"))
            .collect();
        let base = format!("a: 1\nb: 2\n{fields}");
        let theirs = format!("a: 1\n# about b\nb: 2 # two\n{fields}");
        let ours = format!("a: 3\nb: 2\n{fields}");
        assert!(ours.len() >= PARALLEL_FROM);
        let c = carried(&base, &ours, &theirs, &ours, Policy::Mark);
        assert_eq!(c.text, format!("a: 3\n# about b\nb: 2 # two\n{fields}"));
        assert!(c.notes.is_empty());
    }

    #[test]
    fn comments_both_edited_keep_ours_and_say_so() {
        let base = "# v1\na: 1\n";
        let c = carried(
            base,
            "# v2\na: 1\n",
            "# v3\na: 2\n",
            "# v2\na: 2\n",
            Policy::Mark,
        );
        assert_eq!(c.text, "# v2\na: 2\n");
        assert_eq!(c.notes.len(), 1, "{:?}", c.notes);
        assert!(c.notes[0].contains("line 1"), "{:?}", c.notes);
        let c = carried(
            base,
            "# v2\na: 1\n",
            "# v3\na: 2\n",
            "# v2\na: 2\n",
            Policy::Theirs,
        );
        assert_eq!(c.text, "# v3\na: 2\n");
    }

    #[test]
    fn line_lists_join_runs() {
        assert_eq!(line_list(&mut vec![3, 1, 2, 7]), "lines 1-3, line 7");
    }
}
