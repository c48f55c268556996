//! The structural attempt: git's clean line merge where the verifier accepts it, else the
//! engine's result, checked in turn; a conflicted result's conflicts widened until either
//! side of them holds, and git's markers kept where they are narrower.

use anyhow::Result;

use crate::align::Pairing;
use crate::engine::{merged_as, planned_and_rendered, planned_by_identity, Merged};
use crate::fallback::Reason;
use crate::git::line_merge::{line_merge, LineMerge};
use crate::merge::Conflict;
use crate::options::{MergeOptions, Policy};
use crate::outcome::{clean, conflict_messages, conflicted, last_resort, notes, Attempt, Outcome};
use crate::parse::{self, Parsed, Versions};
use crate::text::markers::{conflict_hunks, marked_lines};
use crate::verify::{self, line_result_is_sound, reads_back, Finding, Verdict};

/// Git's line merge, run alongside the parse (`None` outside `mark` mode), with its result
/// parsed for the check where it is clean.
pub(super) type LineAlongside = Option<Result<(LineMerge, Option<Result<Parsed, parse::Error>>)>>;

/// The note for a conflicted result that keeps git's markers, narrower than the structural
/// merge's and holding whichever side is taken ([`Outcome::git_markers_kept`]).
const GIT_MARKERS_KEPT: &str =
    "git's line merge marks fewer lines than the structural merge would, and either side of it holds: its markers are kept";

/// Git's clean result where the check accepts it, else the structural merge (checked in
/// turn), with git's markers kept where they are much narrower than the structural ones.
/// `versions` is what the parse gave, `line` git's line merge run alongside it.
pub(super) fn attempt(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    versions: Result<Versions, Reason>,
    line: LineAlongside,
) -> Result<Outcome, Attempt> {
    let mut messages = Vec::new();
    let mut git_conflicts = None;
    if let Some(line) = line {
        let (line, parsed) = line.map_err(Attempt::LineMerge)?;
        if !line.conflicted {
            let text = std::str::from_utf8(&line.bytes).unwrap_or_default();
            let verdict = match (&versions, parsed) {
                (Ok(v), Some(parsed)) => verify::check_parsed(v, text, parsed, opts.policy),
                (Ok(v), None) => verify::check_text(v, text, opts.policy),
                (Err(_), _) => Verdict::Unsure,
            };
            match verdict {
                Verdict::Holds => return Ok(clean(line.bytes, messages, 0)),
                // Where the rules cannot pair the inputs, git's result stands if it parses and
                // duplicates nothing (the structural merge could not do better).
                Verdict::Unsure if line_result_is_sound(base, ours, theirs, text) => {
                    return Ok(clean(line.bytes, messages, 0))
                }
                Verdict::Unsure => {}
                Verdict::Broken(violations) => messages.push(
                    format!(
                        "git's clean line merge is wrong as data ({}): merged by structure",
                        violations[0]
                    )
                    .into(),
                ),
            }
        } else {
            git_conflicts = Some(line);
        }
    }
    let versions = versions?;
    let (mut merged, tree) = planned_and_rendered(&versions, opts)?;
    let mut forced = Vec::new();
    if merged.conflicts.is_empty() {
        // One parse of the result (the comment pass's) serves the read-back and the check.
        let verdict = verify::check(&versions, &reads_back(&merged.text, tree)?, opts.policy);
        let violations = match verdict {
            Verdict::Holds | Verdict::Unsure => {
                let resolved = git_conflicts
                    .as_ref()
                    .map_or(0, |line| conflict_hunks(&line.bytes, opts.marker_size));
                messages.extend(notes(merged.notes));
                return Ok(clean(merged.text.into_bytes(), messages, resolved));
            }
            Verdict::Broken(violations) => violations,
        };
        // Under theirs, documents paired by identity alone are kyaml's own reading (its
        // resource matcher pairs no renames): where the rename pairing gave a result the check
        // rejects and that reading merges cleanly and passes the same check, it stands.
        if let Some(merged) = clean_by_identity(&versions, opts) {
            messages.extend(notes(merged.notes));
            return Ok(clean(merged.text.into_bytes(), messages, 0));
        }
        // Under ours, git's clean line merge where the check accepts it: no hunk of it is one
        // both sides changed, so the policy has nothing to decide there (values-ours-1136-645:
        // both sides added one step alike, theirs edited another; the merge took ours' list
        // whole, dropping theirs' edit).
        if let Some(bytes) = checked_line_merge([base, ours, theirs], &versions, opts) {
            messages.push(
                format!(
                    "the structural merge would lose data ({}); git's clean line merge holds: kept",
                    violations[0]
                )
                .into(),
            );
            return Ok(clean(bytes, messages, 0));
        }
        // Documents paired as renamed where the check reads a deletion and an addition: read
        // so by the merge too, a conflict that holds is the answer, not a bug.
        if let Some((merged, widenings)) = by_identity(&versions, opts) {
            messages.push(format!(
                "documents paired by identity alone (a renamed one is deleted and added): paired as renamed, the merge would lose data ({})",
                violations[0]
            ).into());
            messages.extend(notes(widenings));
            return Ok(conflicted(merged, messages));
        }
        // Likewise list elements paired as renamed where the check reads a deletion and an
        // addition (a rename it finds ambiguous): so read by the merge too, its result stands.
        let by_key = elements_by_key(&versions, opts);
        if let ByKey::Stands(merged, widenings) = by_key {
            let merged = *merged;
            messages.push(format!(
                "list elements paired by key alone (a renamed one is deleted and added): paired as renamed, the merge would lose data ({})",
                violations[0]
            ).into());
            messages.extend(notes(widenings));
            messages.extend(notes(merged.notes.clone()));
            return Ok(match merged.conflicts.is_empty() {
                true => clean(merged.text.into_bytes(), messages, 0),
                false => conflicted(merged, messages),
            });
        }
        // Under ours, where theirs renamed a document (so the merge read by identity is not
        // taken, see [`clean_by_identity`]) and that reading merges cleanly and passes the
        // check: the merge and the check disagree about which documents are one (a renamed
        // document with nothing but its identity left, which the check pairs by identity
        // alone). Neither reading is the merge's to choose (issue 29's alignment will pair
        // them): a conflict at what the check found, widened until each side holds, is the
        // answer, not a bug report.
        let disputed =
            opts.policy == Policy::Ours && checked_by_identity(&versions, opts).is_some();
        // Under ours, where the check reads a document both sides renamed that by identity both
        // deleted (adversary manifests-ours-1132-1396: ours
        // moved it to another namespace, theirs renamed it): the same disagreement about which
        // documents are one, the other way round.
        let renamed_by_both =
            || opts.policy == Policy::Ours && verify::renamed_by_both_sides(&versions);
        // In mark mode the check reads documents by identity alone, where the merge pairs a
        // document both sides lack by identity with the new identity both hold (adversary
        // templates-mark-1151-707: ours copied a ConfigMap as `-canary` and emptied the
        // original's metadata, theirs copied it alike and renamed the original): the merge
        // reads one document both sides renamed alike, the check two additions of one
        // identity. The same disagreement about which documents are one, for issue 29's
        // alignment to settle: a conflict until then, not a bug.
        let renamed_alike =
            || opts.policy == Policy::Mark && verify::renamed_by_both_sides(&versions);
        // Under ours, where a side renamed a document beside a copy as like it
        // (manifests-ours-1145-2532: theirs renamed a Kustomization and added a copy of it in
        // another namespace): the check pairs the rename by identity, the merge by content
        // finds two and reads a deletion. The same disagreement again.
        let beside_a_copy =
            || opts.policy == Policy::Ours && verify::renamed_beside_a_copy(&versions);
        // Where the check only reads conflicts the clean result does not mark (theirs changed
        // the key of an element ours deleted: the merge, by key, read a deletion and an
        // addition; the check a change), the readings disagree about which nodes are one,
        // and nothing is lost under the merge's own: marking them is the answer, not a bug.
        // (The readings of renamed documents above each walk the documents again: asked only
        // where the message gets that far.)
        let unmarked = violations.iter().all(|v| v.finding == Finding::Unmarked);
        // Under ours, where the check finds whole documents wrong (it reads a document the
        // merge paired as renamed as one deleted and one added) and, read so as mark mode reads
        // it, their delete/modify conflict holds (adversary manifests-ours-1156-48): the same
        // disagreement about which documents are one, answered by [`policy_marked`].
        let identity_marked = || {
            opts.policy == Policy::Ours
                && violations.iter().all(|v| v.path.is_empty())
                && by_identity(&versions, &mark_options(opts)).is_some()
        };
        // In mark mode, where list elements read by key alone merge cleanly too and the check
        // rejects that result as well (adversary packages-mark-1181-1871: both sides renamed a
        // container alike, theirs dropped a field in it and added a copy of it under another
        // name): the merge reads two additions of one new key merged field by field, the check
        // one base element both renamed, theirs' deletion lost. The same disagreement about
        // which elements are one, for issue 29's alignment: a conflict, not a bug.
        let elements_disputed = || matches!(by_key, ByKey::Disputed);
        messages.push(if disputed {
            format!(
                "documents paired as renamed, the check reads a deletion and an addition ({}); read by identity alone, the merge is clean but keeps the document theirs renamed beside its new one: marked as a conflict",
                violations[0]
            )
        } else if unmarked {
            format!(
                "the merge's clean result, read by the check, resolves a conflict ({}): marked as a conflict",
                violations[0]
            )
        } else if renamed_by_both() {
            format!(
                "the check reads a document both sides renamed, the merge another pairing ({}): marked as a conflict",
                violations[0]
            )
        } else if renamed_alike() {
            format!(
                "the merge reads a document both sides renamed alike, the check two additions of one identity ({}): marked as a conflict",
                violations[0]
            )
        } else if beside_a_copy() {
            format!(
                "the check reads a document renamed beside a copy as like it, the merge a deletion ({}): marked as a conflict",
                violations[0]
            )
        } else if identity_marked() {
            format!(
                "documents paired as renamed, the check reads a deletion and an addition ({}), and so read, as mark mode reads them, their conflicts hold: the readings differ on which documents are one, marked as a conflict",
                violations[0]
            )
        } else if elements_disputed() {
            format!(
                "list elements read by key alone merge cleanly too, and the check rejects that as well ({}): the readings differ on which elements are one, marked as a conflict",
                violations[0]
            )
        } else {
            format!(
                "kmerge's check rejected its own clean merge ({}), a bug in kmerge (please report it): marked as a conflict",
                violations[0]
            )
        }.into());
        forced = wider(&forced, &violations);
        merged = match merged_as(&versions, opts, Pairing::Renames, &forced).map(|(m, _)| m) {
            Ok(m) if !m.conflicts.is_empty() => m,
            // No conflict of the merge's marks what the check found: git's markers where
            // each side of them holds, else the whole file.
            _ => {
                let git = git_conflicts.filter(|line| {
                    verify::sides_hold(&versions, &line.bytes, opts.marker_size, None).is_ok()
                });
                return Ok(last_resort(base, ours, theirs, opts, git, messages));
            }
        };
    }
    let size = opts.marker_size;
    let checked = widened(&versions, opts, merged, forced, Pairing::Renames);
    // Git's markers count only where they hold whichever side is taken (checked only where
    // they would be used: two more parses of a large file otherwise).
    let git_holds =
        |line: &LineMerge| verify::sides_hold(&versions, &line.bytes, size, None).is_ok();
    let merged = match checked {
        Ok((merged, widenings)) => {
            messages.extend(notes(widenings));
            merged
        }
        Err(why) => {
            if let Some((merged, widenings)) = without_rivals(&versions, opts) {
                messages.push(format!(
                    "a document both sides renamed apart, each version on its side of one conflict: a side would lose data ({why}); one version's delete/modify conflict instead, the other added beside it"
                ).into());
                messages.extend(notes(widenings));
                merged
            } else if let Some((merged, widenings)) = by_identity(&versions, opts) {
                messages.push(format!(
                    "documents paired by identity alone (a renamed one is deleted and added): paired as renamed, a side of the conflicts would lose data ({why})"
                ).into());
                messages.extend(notes(widenings));
                merged
            } else if let Some(merged) = checked_by_identity(&versions, opts) {
                // Read by identity, the documents may merge cleanly where no conflict of the
                // rename reading holds (theirs deleted a resource ours renamed beside a copy
                // of it: by identity both removed it and ours added two). A clean result the
                // check accepts is the answer then, where one side at most renamed a
                // document. Where both may have (ours renamed one beside a copy of it, theirs
                // renamed it and changed it), the reading by identity takes theirs' change
                // for a new document beside ours' two, and ours' deletion of it (which of
                // ours' two is the rename, no reading can say) against theirs' change is
                // lost: the whole file is the conflict, git's markers where they hold.
                if !renamed_no_document(&versions, &versions.ours)
                    && !renamed_no_document(&versions, &versions.theirs)
                {
                    messages.push(format!(
                        "documents paired by identity alone (a renamed one is deleted and added): paired as renamed, a side of the conflicts would lose data ({why}); so read, the merge is clean, but both sides took a document away and put new ones in, and which new one is its rename no reading can say: the file marked as a conflict"
                    ).into());
                    let git = git_conflicts.filter(|line| git_holds(line));
                    return Ok(last_resort(base, ours, theirs, opts, git, messages));
                }
                messages.push(format!(
                    "documents paired by identity alone (a renamed one is deleted and added): paired as renamed, a side of the conflicts would lose data ({why}); so read, the merge is clean"
                ).into());
                messages.extend(notes(merged.notes));
                return Ok(clean(merged.text.into_bytes(), messages, 0));
            } else if let Some((merged, widenings)) = policy_marked(&versions, opts) {
                messages.push(format!(
                    "a conflict the check forced does not hold while ours' policy decides the other conflicts ({why}): every conflict marked, as in mark mode"
                ).into());
                messages.extend(notes(widenings));
                merged
            } else if opts.policy == Policy::Ours && verify::renamed_beside_a_copy(&versions) {
                // The disagreement about which document is one (see `beside_a_copy` above)
                // where no marking holds under the check's reading (adversary
                // packages-ours-1150-3715: theirs nulled an Ingress's name and added a copy
                // under a new name, ours edited it): which document ours' edits belong to is
                // the question, issue 29's alignment the answer; a person's until then.
                messages.push(format!(
                    "the check reads a document renamed beside a copy as like it, the merge a deletion, and no conflict of the merge holds under the check's reading ({why}): git's result used"
                ).into());
                let git = git_conflicts.filter(|line| git_holds(line));
                return Ok(last_resort(base, ours, theirs, opts, git, messages));
            } else {
                messages.push(format!(
                    "kmerge's conflicts would lose data whichever side is taken ({why}), a bug in kmerge (please report it): git's result used"
                ).into());
                let git = git_conflicts.filter(|line| git_holds(line));
                return Ok(last_resort(base, ours, theirs, opts, git, messages));
            }
        }
    };
    // Never worse than git: where git's markers hold too and enclose fewer lines (a list
    // both sides reshuffled can be narrower line by line than element by element), git's
    // result is kept; otherwise the field-shaped markers are. Not where a side repeats what
    // base holds once: the check's pairing of the repeats is a guess git's lines may not share.
    if let Some(line) = git_conflicts {
        if marked_lines(&line.bytes, size) < marked_lines(merged.text.as_bytes(), size)
            && !verify::a_side_repeats_what_base_does_not(&versions)
            && git_holds(&line)
        {
            let mut messages = conflict_messages(&merged.conflicts);
            messages.push(GIT_MARKERS_KEPT.into());
            return Ok(Outcome {
                bytes: line.bytes,
                conflicted: true,
                fallback: None,
                messages,
                resolved_hunks: 0,
                git_markers_kept: true,
            });
        }
    }
    Ok(conflicted(merged, messages))
}

/// The merge again with documents paired by identity alone, where pairing renamed documents
/// gave conflicts no widening makes hold: the rename rules paired a document the check (which
/// pairs a rename only where it is unambiguous) reads as deleted, beside another added. Read
/// so by the merge too, the document is a delete/modify conflict and the new ones stand
/// beside it. Its conflicts, widened until each side holds; `None` where they do not, or
/// where that merge has no conflict (the rename was the conflict: a clean result read
/// otherwise is not trusted).
fn by_identity(versions: &Versions, opts: &MergeOptions) -> Option<(Merged, Vec<String>)> {
    let (merged, _) = planned_by_identity(versions, opts).ok()?;
    if merged.conflicts.is_empty() {
        return None;
    }
    widened(versions, opts, merged, Vec::new(), Pairing::Renames).ok()
}

/// Under `ours`, git's line merge where it is clean and the check accepts it as ours'
/// result; `None` otherwise, and in the other modes (`mark` weighs git's result first;
/// `theirs` answers by kyaml's rules, which are not git's).
fn checked_line_merge(
    [base, ours, theirs]: [&str; 3],
    versions: &Versions,
    opts: &MergeOptions,
) -> Option<Vec<u8>> {
    if opts.policy != Policy::Ours {
        return None;
    }
    let line = line_merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), opts).ok()?;
    if line.conflicted {
        return None;
    }
    let text = std::str::from_utf8(&line.bytes).ok()?;
    match verify::check_text(versions, text, opts.policy) {
        Verdict::Holds => Some(line.bytes),
        Verdict::Unsure | Verdict::Broken(_) => None,
    }
}

/// Under `--on-conflict ours`, where the check forced a conflict on a clean result and no
/// widening of it holds, the merge again as mark mode has it, its conflicts widened until
/// each side holds: taking theirs' side of the forced conflict brings back nothing of theirs
/// that ours' policy decided away elsewhere unmarked (ours deleted a document theirs changed,
/// beside the documents the two readings pair otherwise), so those decisions are marked too.
/// A conflict is allowed under ours; git's result with a bug report is not the answer
/// where the rules' own conflicts hold. Where no widening of mark mode's conflicts holds
/// either, mark mode's next answer: documents paired by identity alone ([`by_identity`]),
/// the check's own reading of a rename it rejects (adversary manifests-ours-1156-48: theirs
/// renamed a CRD and edited it, ours edited it, a twin CRD beside it; the check reads the
/// rename as a deletion and an addition, so only their delete/modify conflict holds).
/// `None` under the other policies (theirs must stay clean, mark has no policy decisions),
/// or where that merge is clean or does not hold.
fn policy_marked(versions: &Versions, opts: &MergeOptions) -> Option<(Merged, Vec<String>)> {
    if opts.policy != Policy::Ours {
        return None;
    }
    let mark = mark_options(opts);
    let (merged, _) = planned_and_rendered(versions, &mark).ok()?;
    if merged.conflicts.is_empty() {
        return None;
    }
    widened(versions, &mark, merged, Vec::new(), Pairing::Renames)
        .ok()
        .or_else(|| by_identity(versions, &mark))
}

/// `opts` under `--on-conflict mark`: every conflict marked, none decided by a policy.
fn mark_options(opts: &MergeOptions) -> MergeOptions {
    MergeOptions {
        policy: Policy::Mark,
        ..opts.clone()
    }
}

/// In mark mode, the merge again with no document held in one conflict with its rival (the
/// version of a document the other side renamed apart, [`crate::align::Group::rival`]), where
/// that conflict's sides do not hold: the check pairs a rename only where it is unambiguous,
/// and where it reads the rival as an addition (theirs moved a document to another namespace
/// and emptied it), taking ours' version lost it. Read so by the merge too, one side's
/// version is a delete/modify conflict and the rival an addition beside it. Its conflicts,
/// widened until each side holds; `None` where they do not, or where there are none.
fn without_rivals(versions: &Versions, opts: &MergeOptions) -> Option<(Merged, Vec<String>)> {
    if opts.policy != Policy::Mark {
        return None;
    }
    let (merged, _) = merged_as(versions, opts, Pairing::RenamesWithoutRivals, &[]).ok()?;
    if merged.conflicts.is_empty() {
        return None;
    }
    widened(
        versions,
        opts,
        merged,
        Vec::new(),
        Pairing::RenamesWithoutRivals,
    )
    .ok()
}

/// The merge again with list elements paired by key alone, where the rename rule's pairing
/// gave a clean result the check rejects: the check pairs a renamed element only where that
/// is unambiguous (an element renamed beside a copy of it is not), and so read it is one
/// deleted and one added. Its conflicts, widened until each side holds; a clean result only
/// where a policy decides (`ours`; `theirs` pairs no element renames anyway) and the check
/// accepts it: in `mark` mode, a clean result read otherwise is not trusted (the rename was
/// the conflict). `None` where neither holds.
///
/// Under `ours`, where that clean result is rejected too, the two readings disagree about
/// which elements are one: both sides put in an element under one new key, which the merge
/// (by key, and by the rename rule, which pairs no rename both sides made alike) reads as two
/// additions ours wins, and the check as one base element both renamed, a field one side
/// took out of it coming back. Neither reading is the merge's to choose there (issue 29's
/// alignment will pair them): a conflict at what the check found, widened until each side
/// holds, is the answer, not a bug report.
fn elements_by_key(versions: &Versions, opts: &MergeOptions) -> ByKey {
    let Ok((merged, tree)) = merged_as(versions, opts, Pairing::ElementsByKey, &[]) else {
        return ByKey::Nothing;
    };
    if !merged.conflicts.is_empty() {
        return ByKey::stands(
            widened(versions, opts, merged, Vec::new(), Pairing::ElementsByKey).ok(),
        );
    }
    let Ok(result) = reads_back(&merged.text, tree) else {
        return ByKey::Nothing;
    };
    let verdict = verify::check(versions, &result, opts.policy);
    if opts.policy == Policy::Mark {
        return match verdict {
            Verdict::Broken(_) => ByKey::Disputed,
            _ => ByKey::Nothing,
        };
    }
    match verdict {
        Verdict::Holds => ByKey::Stands(Box::new(merged), Vec::new()),
        Verdict::Broken(violations) if opts.policy == Policy::Ours => {
            ByKey::stands(ours_marked_by_key(versions, opts, &violations))
        }
        Verdict::Unsure | Verdict::Broken(_) => ByKey::Nothing,
    }
}

/// What [`elements_by_key`] found: a result that stands, a disagreement of the readings in
/// mark mode (the merge by key is clean too and the check rejects it as well: the merge's
/// two readings of the elements agree, the check's differs, so the driver's conflict is
/// worded as that, not as a bug), or nothing. Reading it once serves both questions: the
/// merge by key runs once on the path that asks them.
enum ByKey {
    Stands(Box<Merged>, Vec<String>),
    Disputed,
    Nothing,
}

impl ByKey {
    fn stands(found: Option<(Merged, Vec<String>)>) -> ByKey {
        found.map_or(ByKey::Nothing, |(merged, notes)| {
            ByKey::Stands(Box::new(merged), notes)
        })
    }
}

/// Under ours, the merge by key clean but rejected: the check's path may name an element
/// only one reading has (ours renamed a container, which by key is an addition of ours): no
/// conflict can be marked there, so the conflict widens to the node above until there is one
/// (adversary manifests-ours-1143-944).
fn ours_marked_by_key(
    versions: &Versions,
    opts: &MergeOptions,
    violations: &[verify::Violation],
) -> Option<(Merged, Vec<String>)> {
    let mut forced = wider(&[], violations);
    let merged = loop {
        let (merged, _) = merged_as(versions, opts, Pairing::ElementsByKey, &forced).ok()?;
        if !merged.conflicts.is_empty() {
            break merged;
        }
        let above = wider(&forced, violations);
        if above.len() == forced.len() {
            return None;
        }
        forced = above;
    };
    let (merged, mut notes) =
        widened(versions, opts, merged, forced, Pairing::ElementsByKey).ok()?;
    notes.insert(
        0,
        "so read, the merge is clean, but the check rejects it too (the two readings differ on which elements are one): marked as a conflict".into(),
    );
    Some((merged, notes))
}

/// The merge again with documents paired by identity alone, where it is clean and the check
/// accepts it; `None` otherwise. Only where the rename reading's conflicts hold nowhere: the
/// check then stands for the reading, and a renamed document it reads as deleted and added
/// brings nothing back that it does not also reject.
fn checked_by_identity(versions: &Versions, opts: &MergeOptions) -> Option<Merged> {
    let (merged, tree) = planned_by_identity(versions, opts).ok()?;
    if !merged.conflicts.is_empty() {
        return None;
    }
    let result = reads_back(&merged.text, tree).ok()?;
    match verify::check(versions, &result, opts.policy) {
        Verdict::Holds => Some(merged),
        Verdict::Unsure | Verdict::Broken(_) => None,
    }
}

/// Under `--on-conflict theirs`, the merge again with documents paired by identity alone (as
/// kyaml pairs them: a renamed document is one deleted and one added), where it is clean and
/// the check accepts it; `None` otherwise. Mark and ours modes are file merges, where a
/// renamed document is still the one document: reading it as deleted and added there would
/// bring back what a side renamed away. Under ours, a rename of ours read so is ours'
/// deletion against theirs' change, which ours wins: the document stays away, ours' new ones
/// stand. So ours may read so where theirs renamed no document: where it added none, or
/// deleted none (a rename is both; ours renamed a document and copied it, and which copy is
/// the rename is the merge's guess and the check's other guess). Nor where theirs added more
/// documents than it deleted: a rename beside a copy, where which new document is the
/// renamed one is again the merge's guess, and read by identity ours' edit stays where ours
/// made it and every document theirs added stands.
fn clean_by_identity(versions: &Versions, opts: &MergeOptions) -> Option<Merged> {
    let allowed = match opts.policy {
        Policy::Theirs => true,
        Policy::Ours => {
            renamed_no_document(versions, &versions.theirs)
                || theirs_added_more_than_deleted(versions)
        }
        Policy::Mark => false,
    };
    if !allowed {
        return None;
    }
    checked_by_identity(versions, opts)
}

/// Whether a side (`side`, ours' or theirs' tree) renamed no document, as identities read:
/// every document of the side has an identity base's documents have too (it added none), or
/// every identity of base's is still the side's (it deleted none).
fn renamed_no_document(versions: &Versions, side: &parse::Tree) -> bool {
    let identities = |tree: &parse::Tree| {
        crate::resource::documents(tree)
            .into_iter()
            .map(|(_, identity)| identity)
            .collect::<Vec<_>>()
    };
    let base = identities(&versions.base);
    let side = identities(side);
    let within = |these: &[Option<_>], those: &[Option<_>]| {
        let those: std::collections::HashSet<_> = those.iter().flatten().collect();
        these
            .iter()
            .all(|identity| identity.as_ref().is_some_and(|i| those.contains(i)))
    };
    within(&side, &base) || within(&base, &side)
}

/// Whether theirs has more identities base lacks than base has identities theirs lacks: a
/// document renamed beside a copy of it, as identities read.
fn theirs_added_more_than_deleted(versions: &Versions) -> bool {
    use std::collections::HashSet;
    let identities = |tree: &parse::Tree| -> HashSet<_> {
        crate::resource::documents(tree)
            .into_iter()
            .filter_map(|(_, identity)| identity)
            .collect()
    };
    let base = identities(&versions.base);
    let theirs = identities(&versions.theirs);
    theirs.difference(&base).count() > base.difference(&theirs).count()
}

/// How many times a conflicted result's conflicts are widened before git's result is used.
const WIDENINGS: usize = 12;

/// The structural result's conflicts, widened until taking either side of every conflict
/// loses nothing ([`verify::sides_hold`]): each round marks a conflict where a side lost
/// data (the deepest path both sides have there), then at the path above that, up to the
/// whole document. With one line for each round that widened; `Err` with the last finding
/// where no widening holds.
fn widened(
    versions: &Versions,
    opts: &MergeOptions,
    mut merged: Merged,
    mut forced: Vec<(String, String)>,
    pairing: Pairing,
) -> Result<(Merged, Vec<String>), String> {
    let mut notes = Vec::new();
    for _ in 0..WIDENINGS {
        let planned = merged.planned_side.take();
        let broken =
            match verify::sides_hold(versions, merged.text.as_bytes(), opts.marker_size, planned) {
                Ok(()) => return Ok((merged, notes)),
                Err(broken) => broken,
            };
        let wider = match broken.violations.is_empty() {
            // A side that does not parse (an alias whose anchor stands in the other side's
            // part of a conflict): each conflict widens to its document, where each side
            // holds its own anchors.
            true => documents_of(&forced, &merged.conflicts),
            false => wider(&forced, &broken.violations),
        };
        if wider.len() == forced.len() {
            return Err(broken.what);
        }
        notes.push(format!("a conflict widened, since {}", broken.what));
        forced = wider;
        merged = merged_as(versions, opts, pairing, &forced)
            .map(|(merged, _)| merged)
            .map_err(|e| e.to_string())?;
    }
    Err("its conflicts could not be widened enough".into())
}

/// `forced` with a conflict more for each violation: at the deepest path above it that
/// ours and theirs both have, or, where one is forced there already, at the next path up.
fn wider(forced: &[(String, String)], violations: &[verify::Violation]) -> Vec<(String, String)> {
    let mut out = forced.to_vec();
    for v in violations {
        let Some(mut path) = v.common.clone() else {
            continue;
        };
        loop {
            let at = (v.resource.clone(), path.clone());
            if !out.contains(&at) {
                out.push(at);
                break;
            }
            match parent(&path) {
                Some(p) => path = p,
                None => break,
            }
        }
    }
    out
}

/// `forced` with a conflict more over each document that holds one of `conflicts`.
fn documents_of(forced: &[(String, String)], conflicts: &[Conflict]) -> Vec<(String, String)> {
    let mut out = forced.to_vec();
    for c in conflicts {
        let at = (c.resource.clone(), String::new());
        if !out.contains(&at) {
            out.push(at);
        }
    }
    out
}

/// The path above a field path (`a.b[name=x].c` → `a.b[name=x]` → `a.b` → `a` → the
/// document, ``), `None` for the document itself.
fn parent(path: &str) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    // The last segment: a bracketed element (its match found by depth), else a key.
    let element = path.ends_with(']');
    let mut depth = 0usize;
    for (i, c) in path.char_indices().rev() {
        match c {
            ']' => depth += 1,
            '[' => {
                depth = depth.saturating_sub(1);
                if element && depth == 0 {
                    return Some(path[..i].to_string());
                }
            }
            '.' if depth == 0 => return Some(path[..i].to_string()),
            _ => {}
        }
    }
    Some(String::new())
}
