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
//! Fields are paired across the versions by their place in the data (resources as the
//! alignment paired them, map fields by key, list elements by merge key or content), never by line position. The
//! pass only touches comment and blank lines and the comments at line ends; the result must
//! read as the same data afterwards, or the pass is dropped.
//!
//! The pass is a stage of its own, after render and before the verifier, so render stays a
//! splicer that decides nothing.
//!
//! Which document of base, ours and theirs each of the result's documents is comes from the
//! alignment the plan was made from: render traces which document of ours or theirs wrote
//! each stretch of the result, and the engine hands that document's partners over
//! ([`Partners`]); the pass pairs no documents itself.
//!
//! What still reads the rendered result, and why (issue 29 item 2 wants these decisions made
//! in the plan, from the aligned versions, before render): the result is parsed again
//! ([`planned`]) and laid out; its fields are paired with each version's by key, list key or
//! content ([`pairing`]); each field's head and trailing comment are decided against the
//! comment lines the result holds there now, and written at the result's offsets ([`head`],
//! [`trailing`]); a result the edits would make read as other data is left as rendered
//! (`same_documents`). It must, until the one alignment of base, ours and theirs (item 1)
//! pairs fields and comment lines too: the plan names the nodes each edit writes, but not the
//! comment lines an edit's range takes or drops (a reindented block brings theirs' lines
//! inside it, a new document brings the empty documents before it, a line merge of a block or
//! a template's skeleton moves lines the plan does not model), so only the result tells which
//! comment lines each field holds.
//!
//! Its parts, by what they decide: [`layout`] (where each text's fields, comment
//! lines and line-end comments stand), [`pairing`] (which field of each version is the
//! result's), [`head`] (the comment and blank lines above a field, and the standalone runs
//! that open a collection or close a template's block), [`trailing`] (the comment at a line's
//! end), and [`conflicts`] (the same around a conflicted result's markers).

mod bare;
mod conflicts;
mod head;
mod layout;
mod pairing;
mod trailing;

use std::collections::HashSet;

use crate::options::{MergeOptions, Mode, Policy};
use crate::parse::{self, Parsed, Tree, Versions};
use crate::resource::{self, DocRef};
use crate::text::splice::{splice, Edit};

use bare::all_bare;
use conflicts::carry_around_conflicts;
use head::decide_head;
use layout::{Layout, Partner, Spot};
use pairing::{region, Walk};
use trailing::decide_trailing;

/// The result with the comments carried, and what the pass has to tell the user.
pub(crate) struct Carried {
    pub text: String,
    pub notes: Vec<String>,
    /// The tree of `text`, which the pass parsed anyway: the verifier reads it instead of
    /// parsing the result once more.
    pub tree: Option<Parsed>,
    /// Ours' side of a conflicted result before the pass edited it, where it did.
    pub planned_side: Option<PlannedSide>,
}

/// `rendered` (the plan written into ours' text, `conflicted` when it holds markers) with
/// every field given the comments the 3-way merge of the versions' comments decides: in a
/// conflicted result every field outside the conflicts.
pub(crate) fn carried(
    versions: &Versions,
    rendered: &str,
    partners: Partners,
    conflicted: bool,
    opts: &MergeOptions,
) -> Carried {
    // A patch (merge2) has no base to tell its comment edits from its comments.
    if matches!(opts.mode, Mode::TwoWay { .. }) {
        return Carried {
            text: rendered.to_string(),
            notes: Vec::new(),
            tree: None,
            planned_side: None,
        };
    }
    if conflicted {
        let (text, notes, planned_side) =
            carry_around_conflicts(versions, rendered, partners, opts.policy, opts.marker_size);
        return Carried {
            text,
            notes,
            tree: None,
            planned_side,
        };
    }
    carry(versions, rendered, partners, opts.policy)
}

/// The documents of base, ours and theirs that the result's document whose data starts at an
/// offset was written from, as the alignment paired them (`None` where no document wrote it).
pub(crate) type Partners<'p> = &'p dyn Fn(usize) -> Option<[Option<DocRef>; 3]>;

/// Gives every field of `merged` (a clean result that parses) the comments the 3-way merge
/// of base's, ours' and theirs' decides for it. Returns `merged` unchanged where the pass
/// cannot pair the versions.
fn carry(versions: &Versions, merged: &str, partners: Partners, policy: Policy) -> Carried {
    if all_bare(versions, merged) {
        return Carried {
            text: merged.to_string(),
            notes: Vec::new(),
            tree: parse::parse(merged).ok().map(Tree::detach),
            planned_side: None,
        };
    }
    let Some((result, planned)) = planned(versions, merged, partners, policy) else {
        return Carried {
            text: merged.to_string(),
            notes: Vec::new(),
            tree: None,
            planned_side: None,
        };
    };
    let unchanged = |result: Tree, notes| Carried {
        text: merged.to_string(),
        notes,
        tree: Some(result.detach()),
        planned_side: None,
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
        planned_side: None,
        text,
        notes,
    }
}

/// Ours' side of a conflicted result as the merge wrote it, before the comment pass edited
/// its comment lines: what ours' side must still read as (the driver's check of the
/// conflict's sides, which parses ours' side anyway, compares it).
pub(crate) type PlannedSide = crate::parse::OwnedParse;

/// `merged` parsed, and the pass's edits of it with its notes (`None` where the versions
/// cannot be paired); `None` where `merged` does not parse.
#[allow(clippy::type_complexity)]
pub(super) fn planned<'m>(
    versions: &Versions,
    merged: &'m str,
    partners: Partners,
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
            partners,
            policy,
            versions.file_name.as_deref(),
        );
        Some((result, planned))
    })
}

/// The result's size (bytes) from which the versions' layouts are built on a second thread:
/// below it a thread's start costs more than it saves.
const PARALLEL_FROM: usize = 256 << 10;

/// The note for a pass that would have changed the data: a bug, and tests fail on it.
pub(super) fn bug() -> Vec<String> {
    vec!["carrying comments would have changed the data, a bug in kmerge (please report it): comments left as merged".into()]
}

/// The tree of `text`, if it reads as the same documents as `before`.
fn same_documents(before: &Tree, text: &str) -> Option<Parsed> {
    let after = parse::parse(text).ok()?;
    resource::same_documents(before, &after).then(|| after.detach())
}

/// The pass's edits of the result, and its notes; `None` when the versions cannot be paired.
fn plan_edits<'t>(
    trees: [&Tree; 3],
    mut layouts: [Layout<'t>; 3],
    result: &Tree,
    mut r: Layout<'t>,
    partners: Partners,
    policy: Policy,
    file_name: Option<&str>,
) -> Option<(Vec<Edit>, Vec<String>)> {
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
        let [b, o, t] = partners(result.node(d.root).start).unwrap_or_default();
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

/// Who wins where both sides changed a field's comments.
pub(super) fn pick<T: PartialEq>(b: &T, o: &T, t: &T) -> Option<bool> {
    if o == t || b == t {
        Some(false)
    } else if b == o {
        Some(true)
    } else {
        None
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::Versions;

    /// The pass on one document written from the versions' one documents.
    fn carried(base: &str, ours: &str, theirs: &str, merged: &str, policy: Policy) -> Carried {
        let v = Versions::parse(base, ours, theirs).unwrap();
        let first = |t: &Tree| resource::documents(t).first().map(|d| d.0);
        let docs = [first(&v.base), first(&v.ours), first(&v.theirs)];
        carry(&v, merged, &|_| Some(docs), policy)
    }

    /// A result whose versions hold comments still gets them where only one is bare.
    #[test]
    fn one_bare_version_does_not_skip_the_pass() {
        let base = "a: 1\nb: 2\n";
        let theirs = "a: 1\n# theirs\nb: 2\n";
        let c = carried(base, base, theirs, base, Policy::Mark);
        assert_eq!(c.text, theirs);
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
