//! The policy that makes kmerge safe to run inside `git merge`: never worse than git, never
//! lose data.
//!
//! In `mark` mode git's line merge runs first; when it is clean (and adds no duplicate that no
//! input had) its bytes are the answer, since git's text carries both sides' edits verbatim.
//! Otherwise the structural merge decides. Anything the structural merge cannot handle — an
//! input it does not take, a bug, a panic — ends in git's line merge with a one-line reason.
//!
//! The driver checks the inputs, parses them while git's line merge runs, and hands them to
//! the attempt that fits: the structural one (`structural`) or a template's
//! (`template::attempt`); each gives an [`Outcome`] or the reason it stood aside.

mod anchor_order;
mod anchors;
mod documents;
mod structural;
mod widen;

pub(crate) use documents::by_documents;

use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::Result;

use crate::engine;
pub use crate::engine::Merged;
use crate::fallback::Reason;
use crate::git::line_merge::{is_binary, line_merge};
pub use crate::merge::Conflict;
use crate::options::{MergeOptions, Mode, Policy};
use crate::outcome::{self, last_resort, written_markers, Attempt};
pub use crate::outcome::{Message, Outcome};
use crate::parse::{self, Versions};
use crate::sides::Version;
use crate::template;
use crate::text::markers::{self, has_marker_lines, marked_lines, Markers};
use crate::verify::{self, line_result_is_sound};

/// Merges three versions of a file. Fails only if git's own line merge fails.
pub fn merge_bytes(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
) -> Result<Outcome> {
    merge_bytes_by(base, ours, theirs, opts, Shortcut::Documents)
}

/// Whether a multi-document file may be merged document by document ([`documents`]): the
/// tests compare that with the whole file's merge.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shortcut {
    Documents,
    WholeFile,
}

/// [`merge_bytes`], with or without the document shortcut.
pub(crate) fn merge_bytes_by(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
    shortcut: Shortcut,
) -> Result<Outcome> {
    let sides = [
        (Version::Base, base),
        (Version::Ours, ours),
        (Version::Theirs, theirs),
    ];
    if let Some((side, _)) = sides.iter().find(|(_, bytes)| is_binary(bytes)) {
        return fallback(base, ours, theirs, opts, Reason::Binary(*side));
    }
    let (Ok(base_text), Ok(ours_text), Ok(theirs_text)) = (
        std::str::from_utf8(base),
        std::str::from_utf8(ours),
        std::str::from_utf8(theirs),
    ) else {
        return fallback(base, ours, theirs, opts, Reason::NotUtf8);
    };
    if let Some((side, bytes)) = sides.iter().find(|(_, b)| b.len() > opts.max_size) {
        let reason = Reason::TooLarge {
            side: *side,
            bytes: bytes.len(),
            limit: opts.max_size,
        };
        return fallback(base, ours, theirs, opts, reason);
    }
    if let Some((side, _)) = sides.iter().find(|(_, bytes)| has_marker_lines(bytes)) {
        return fallback(base, ours, theirs, opts, Reason::Markers(*side));
    }
    // Parsing can panic on hostile input as much as merging can: both are caught.
    let attempt = catch_unwind(AssertUnwindSafe(|| {
        (shortcut == Shortcut::Documents)
            .then(|| by_documents(base_text, ours_text, theirs_text, opts))
            .flatten()
            .unwrap_or_else(|| by_structure(base_text, ours_text, theirs_text, opts))
    }));
    match attempt {
        Ok(Ok(outcome)) => Ok(outcome),
        Ok(Err(Attempt::Refused(reason))) => fallback(base, ours, theirs, opts, reason),
        Ok(Err(Attempt::LineMerge(e))) => Err(e),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let reason = Reason::Internal(format!("a panic: {what}"));
            fallback(base, ours, theirs, opts, reason)
        }
    }
}

/// The versions parsed while git's line merge runs, then the attempt that fits them: a
/// Helm/Go template's ([`template::attempt`]), else the structural one
/// ([`structural::attempt`]). Both weigh git's result against their own the same way.
fn by_structure(
    base: &str,
    ours: &str,
    theirs: &str,
    opts: &MergeOptions,
) -> Result<Outcome, Attempt> {
    // Git's line merge runs while the versions are parsed (only `mark` mode needs it), and
    // its result, when clean, is parsed there for the check.
    let (versions, line) = Versions::parse_alongside(base, ours, theirs, || {
        (opts.policy == Policy::Mark).then(|| {
            let line = line_merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), opts)?;
            let parsed = match line.conflicted {
                false => std::str::from_utf8(&line.bytes)
                    .ok()
                    .map(|text| parse::parse(text).map(|tree| tree.detach())),
                true => None,
            };
            Ok((line, parsed))
        })
    });
    let versions = versions
        .map(|v| v.named(opts.file_name.as_deref()))
        .map_err(Reason::from);
    // Both sides define an anchor name at different places: merged again with theirs'
    // renamed apart, which terminates (no anchor of theirs stands apart from ours' then).
    // Where that merge is not structural (an alias of theirs would stand before its anchor
    // in ours' order), the merge goes on as written, and the clash rule decides.
    if let Some((renamed, notes)) = versions.as_ref().ok().and_then(anchors::renamed_apart) {
        match by_structure(base, ours, &renamed, opts) {
            Ok(mut outcome) if outcome.fallback.is_none() => {
                let notes: Vec<String> = notes
                    .into_iter()
                    .filter_map(|n| n.note_for(&outcome.bytes))
                    .collect();
                outcome.messages.splice(0..0, outcome::notes(notes));
                return Ok(outcome);
            }
            Err(Attempt::LineMerge(e)) => return Err(Attempt::LineMerge(e)),
            Ok(_) | Err(Attempt::Refused(_)) => {}
        }
    }
    if let Err(reason @ Reason::Template { .. }) = versions {
        let line = line.map(|merged| merged.map(|(line, _)| line));
        return template::attempt([base, ours, theirs], opts, reason, line);
    }
    let outcome = structural::attempt([base, ours, theirs], opts, versions, line);
    // A merge that would put a side's alias before its anchor, in the key order the merge
    // keeps of a map, merges again with the other side's entries ordered as the side that
    // wrote them has them (key order is not data; [`anchor_order`]). The texts then ordered
    // ask for no such move again, so this terminates.
    if let Err(Attempt::Refused(Reason::AliasWithoutAnchor)) = &outcome {
        if let Some(([o, t], notes)) = anchor_order::anchors_first(base, ours, theirs) {
            if let Ok(mut again) = by_structure(base, &o, &t, opts) {
                if again.fallback.is_none() {
                    again.messages.splice(0..0, outcome::notes(notes));
                    return Ok(again);
                }
            }
        }
    }
    // Under `theirs` and `ours` a merge that would leave an alias without its anchor merges
    // the texts with their aliases written out instead (kyaml reads an alias as its anchor's
    // value): the line merge's conflict is not a policy's answer.
    if opts.policy != Policy::Mark {
        if let Err(Attempt::Refused(why @ Reason::AliasWithoutAnchor)) = &outcome {
            let written = [base, ours, theirs].map(anchors::written_out);
            if let [Some(b), Some(o), Some(t)] = &written {
                if let Ok(mut again) = by_structure(b, o, t, opts) {
                    if again.fallback.is_none() {
                        again.messages.insert(
                            0,
                            format!(
                                "{why}: merged with every alias written out as its anchor's value"
                            )
                            .into(),
                        );
                        return Ok(again);
                    }
                }
            }
        }
    }
    outcome
}

/// Git's line merge, with the reason the structural merge was not used.
fn fallback(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
    reason: Reason,
) -> Result<Outcome> {
    let line = line_merge(base, ours, theirs, opts)?;
    let mut messages = vec![Message::Note(format!("line merge used: {reason}"))];
    // Exit 0 still means nothing was lost: a clean line merge of YAML inputs that no longer
    // parses, or repeats something no input repeated (an alias without its anchor, two
    // insertions of one key), is marked a conflict, the whole file ours against theirs. A
    // conflict of git's whose ours or theirs side would do that (a person taking it would
    // get a file that does not load: git's markers do not hold), or a template's that would
    // lose data, is widened over the stretches next to it until each side holds
    // ([`checked_conflicts`]).
    if let (Ok(b), Ok(o), Ok(t), Ok(merged)) = (
        std::str::from_utf8(base),
        std::str::from_utf8(ours),
        std::str::from_utf8(theirs),
        std::str::from_utf8(&line.bytes),
    ) {
        if !line.conflicted {
            let sound = line_result_is_sound(b, o, t, merged);
            if !sound {
                if let Reason::Template { .. } = reason {
                    if let Some(outcome) = template::by_documents([b, o, t], opts, &mut messages) {
                        return Ok(Outcome {
                            fallback: Some(reason),
                            ..outcome
                        });
                    }
                    messages.push(
                        "git's clean line merge breaks the YAML or repeats a key: marked as a conflict"
                            .into(),
                    );
                    let mut outcome = last_resort(b, o, t, opts, None, messages);
                    outcome.fallback = Some(reason);
                    return Ok(outcome);
                }
            }
            // Where the check reads what the structural merge does not take (two documents
            // of one identity, read in order), git's clean result must hold as data too:
            // git's text outside any conflict can take back a field or a document a side
            // deleted.
            let versions = read_by_the_check(&reason, [b, o, t], opts);
            let wrong = match (&versions, sound) {
                (_, false) => Some(
                    "git's clean line merge breaks the YAML or repeats a key: marked as a conflict"
                        .to_string(),
                ),
                (Some(v), true) => match verify::check_text(v, merged, opts.policy) {
                    verify::Verdict::Broken(found) => Some(format!(
                        "git's clean line merge is wrong as data ({}): marked as a conflict",
                        found[0]
                    )),
                    _ => None,
                },
                (None, true) => None,
            };
            if let Some(wrong) = wrong {
                // Git marks no line there: the conflict is as narrow as each side of it
                // loads and (where the check reads the versions) holds its data.
                messages.push(format!("{wrong}, as narrow as each side of it holds").into());
                let marks = written_markers(opts, o);
                let holds = |text: &str| {
                    markers::sides(text, opts.marker_size)
                        .iter()
                        .all(|side| line_result_is_sound(b, o, t, side))
                        && versions.as_ref().is_none_or(|v| {
                            verify::sides_hold(v, text.as_bytes(), opts.marker_size, None).is_ok()
                        })
                };
                let text = widen::conflicted_clean([b, o, t], &marks, holds)
                    .unwrap_or_else(|| marks.wrap(o, b, t));
                return Ok(outcome::fell_back(
                    text.into_bytes(),
                    true,
                    reason,
                    messages,
                ));
            }
        }
        // Both sides inserted lines at one place of a template (each a key or a block after
        // the same line): where both insertions together, in one order or the other, make a
        // clean merge the check holds, that is the answer; git's conflict would make a person
        // drop one of them (neither side changed the other's lines).
        if line.conflicted && matches!(reason, Reason::Template { .. }) {
            let joined = [true, false].into_iter().find_map(|ours_first| {
                widen::joined([b, o, t], ours_first)
                    .filter(|text| template::clean_holds([b, o, t], opts, text))
            });
            if let Some(text) = joined {
                messages.push(
                    "git's conflicts are insertions both sides made at one place: both kept, which the check holds"
                        .into(),
                );
                return Ok(outcome::fell_back(
                    text.into_bytes(),
                    false,
                    reason,
                    messages,
                ));
            }
        }
        if line.conflicted {
            match checked_conflicts(&reason, [b, o, t], merged, opts) {
                Checked::Hold => {}
                Checked::Documents(outcome) => {
                    return Ok(Outcome {
                        fallback: Some(reason),
                        messages: [messages, outcome.messages].concat(),
                        ..outcome
                    })
                }
                Checked::Widened(text, why) => {
                    messages.push(why.into());
                    return Ok(outcome::fell_back(
                        text.into_bytes(),
                        true,
                        reason,
                        messages,
                    ));
                }
            }
        }
    }
    Ok(outcome::fell_back(
        line.bytes,
        line.conflicted,
        reason,
        messages,
    ))
}

/// What the check of git's conflicts found.
enum Checked {
    /// A person can take either side of them.
    Hold,
    /// The conflicts widened until each side holds, and why.
    Widened(String, &'static str),
    /// A template merged document by document ([`template::by_documents`]).
    Documents(Outcome),
}

/// What the conflict between the structural merge placed as ours and as theirs settles where
/// git's conflicts of a template drop a change: the document-by-document merge, whose sides
/// hold every change, or that conflict itself.
enum Placement {
    ByDocuments,
    Marked(String),
}

/// Git's conflicts checked as a person would take them: each side must load and repeat
/// nothing no input repeats; a template's sides, read as skeletons, must also hold their
/// data and keep their blocks whole. Where a side fails, the conflicts widen until each holds
/// ([`widen`]), the whole file at worst, ours against theirs, which holds each side whole.
fn checked_conflicts(
    reason: &Reason,
    [b, o, t]: [&str; 3],
    merged: &str,
    opts: &MergeOptions,
) -> Checked {
    let marks = written_markers(opts, o);
    if let Reason::Template { .. } = reason {
        // The documents merged one by one: clean where git's conflicts only joined two
        // documents the sides added at one place; and where a side of git's conflicts fails,
        // their conflicts are whole documents at worst, so that no failing stretch widens
        // over a neighbouring document.
        let git_holds = template::with_conflict_check([b, o, t], opts, |holds| holds(merged));
        let documents = git_holds
            .is_some()
            .then(|| template::by_documents([b, o, t], opts, &mut Vec::new()))
            .flatten();
        // Conflicted, it replaces git's failing markers where it marks no more lines, or
        // where a side of git's lacks a whole document it keeps.
        let size = opts.marker_size;
        // Where the structural merge holds the data but each side places the control lines
        // its own way, nothing conflicts as data, so each side of a conflict must hold both
        // sides' changes. Where a side of git's conflicts drops one, the document-by-document
        // merge stands if its sides hold them all, else the conflict between the structural
        // merge's two renderings, which hold them in each half.
        let clean_by_documents = documents.as_ref().is_some_and(|d| !d.conflicted);
        let placed = if clean_by_documents {
            None
        } else {
            template::with_placements([b, o, t], opts, |texts, holds| {
                if holds(merged) {
                    return None;
                }
                let by_documents = documents
                    .as_ref()
                    .and_then(|d| std::str::from_utf8(&d.bytes).ok())
                    .is_some_and(&mut *holds);
                match by_documents {
                    true => Some(Placement::ByDocuments),
                    false => widen::widened(texts, &marks, holds).map(Placement::Marked),
                }
            })
            .flatten()
        };
        match (placed, &documents) {
            (Some(Placement::Marked(text)), _) => return Checked::Widened(text, "a side of git's conflicts would drop a change the other side made in its lines: marked instead between the structural merge placed as ours and as theirs place the control lines"),
            (Some(Placement::ByDocuments), Some(outcome)) => return Checked::Documents(outcome.clone()),
            _ => {}
        }
        match documents {
            Some(outcome) if !outcome.conflicted => return Checked::Documents(outcome),
            _ if git_holds == Some(true) => return Checked::Hold,
            Some(outcome)
                if marked_lines(&outcome.bytes, size) <= marked_lines(merged.as_bytes(), size) =>
            {
                return Checked::Documents(outcome)
            }
            Some(outcome) => {
                let by_documents = std::str::from_utf8(&outcome.bytes).unwrap_or_default();
                if template::drops_a_document(merged, by_documents, size) {
                    // Git's conflicts are out, but a conflict widened from them can hold each
                    // side as well as the whole documents do: the one that marks fewer lines
                    // leaves a person less to read, so it stands, unless a side of it swallowed
                    // a whole document the document-by-document merge keeps.
                    let narrower = template::with_conflict_check([b, o, t], opts, |holds| {
                        widen::widened([b, o, t], &marks, holds)
                    })
                    .flatten()
                    .filter(|text| {
                        marked_lines(text.as_bytes(), size) < marked_lines(&outcome.bytes, size)
                            && !template::holds_fewer_documents(text, by_documents, size)
                    });
                    return match narrower {
                        Some(text) => Checked::Widened(text, "a side of git's conflicts would lose data or a control line: its conflicts widened until each side holds, which marks fewer lines than the merge document by document"),
                        None => Checked::Documents(outcome),
                    };
                }
            }
            _ => {}
        }
        let checked = template::with_conflict_check([b, o, t], opts, |holds| {
            // Where no conflict short of the whole file holds, the whole file is the conflict,
            // ours against theirs, which holds both sides whole: git's conflicts failed the
            // check, so a person taking a side of them would lose the other side's change or
            // a block's line. Each side is read on its own, the branches of an `if`/`else`
            // named by their opening lines, so git's conflicts that hold are kept above.
            match widen::widened([b, o, t], &marks, holds) {
                Some(text) if text != marks.wrap(o, b, t) => Checked::Widened(text, "a side of git's conflicts would lose data or a control line: its conflicts widened until each side holds"),
                _ => Checked::Widened(marks.wrap(o, b, t), "a side of git's conflicts would lose data or a control line, and no narrower conflict holds: the whole file is the conflict"),
            }
        });
        if let Some(checked) = checked {
            return checked;
        }
    }
    // A template the structural merge does not take as a skeleton (two documents of one
    // identity): each side must still load as a skeleton, since its text does not parse as
    // YAML whichever side is taken, and hold its data where the check reads the skeletons
    // (documents of one identity read in order, as for plain YAML below).
    let skeleton_sides = template::with_sound_sides([b, o, t], opts, |sound| match sound(merged) {
        true => Checked::Hold,
        false => {
            let text =
                widen::widened([b, o, t], &marks, sound).unwrap_or_else(|| marks.wrap(o, b, t));
            Checked::Widened(text, "a side of git's conflicts breaks the YAML, repeats a key or would lose data: its conflicts widened until each side holds")
        }
    });
    if let Some(checked) = skeleton_sides {
        return checked;
    }
    let sides_load = |text: &str| {
        markers::sides(text, opts.marker_size)
            .iter()
            .all(|side| line_result_is_sound(b, o, t, side))
    };
    // YAML the structural merge does not take but the check reads (two documents of one
    // identity, read in order): each side must also hold its data, as a structural
    // conflict's must. Git's conflicts cross a key one side moved as readily here.
    // A merge that would leave an alias without its anchor is no structural merge either:
    // git's conflicts cross a key one side moved as readily there (theirs moves a key up and
    // anchors it; a side that only loads still drops ours' copy of the key).
    if let Some(versions) = read_by_the_check(reason, [b, o, t], opts) {
        let holds = |text: &str| {
            sides_load(text)
                && verify::sides_hold(&versions, text.as_bytes(), opts.marker_size, None).is_ok()
        };
        if holds(merged) {
            return Checked::Hold;
        }
        // Where no conflict short of the whole file holds, the whole file is the conflict,
        // ours against theirs, which holds both sides whole: git's conflicts failed the
        // check, so a person taking a side of them would lose the other side's change.
        match widen::widened([b, o, t], &marks, holds) {
            Some(text) if text != marks.wrap(o, b, t) => return Checked::Widened(text, "a side of git's conflicts would lose data: its conflicts widened until each side holds"),
            _ => return Checked::Widened(marks.wrap(o, b, t), "a side of git's conflicts breaks the YAML or would lose data: the whole file is the conflict"),
        }
    }
    if sides_load(merged) {
        return Checked::Hold;
    }
    widened_until_loading([b, o, t], &marks, sides_load)
}

/// The versions, where the structural merge stood aside for `reason` but the check reads
/// them: two documents of one identity (read in order), or a merge that would leave an alias
/// without its anchor.
fn read_by_the_check<'a>(
    reason: &Reason,
    [b, o, t]: [&'a str; 3],
    opts: &MergeOptions,
) -> Option<Versions<'a>> {
    match reason {
        Reason::Unsupported(_) | Reason::AliasWithoutAnchor => Versions::parse(b, o, t)
            .ok()
            .filter(|v| {
                matches!(reason, Reason::AliasWithoutAnchor)
                    || [&v.base, &v.ours, &v.theirs]
                        .iter()
                        .any(|tree| !crate::resource::duplicate_identities(tree).is_empty())
            })
            .map(|v| v.named(opts.file_name.as_deref())),
        _ => None,
    }
}

/// Git's conflicts, some side of which does not load, widened until each side loads: at
/// worst the whole file, ours against theirs, which always does.
fn widened_until_loading(
    [b, o, t]: [&str; 3],
    marks: &Markers,
    loads: impl FnMut(&str) -> bool,
) -> Checked {
    let text = widen::widened([b, o, t], marks, loads).unwrap_or_else(|| marks.wrap(o, b, t));
    Checked::Widened(text, "a side of git's conflicts breaks the YAML or repeats a key: its conflicts widened until each side loads")
}

/// merge2: lays the patch `src` onto `dest` (seeds 002/003), by structure: merge3's rules
/// with no base and the patch winning, plus its directives (see [`Mode::TwoWay`]). There is
/// no line merge to fall back on without a base: input it cannot merge is an error.
pub fn merge2(src: &str, dest: &str, opts: &MergeOptions) -> Result<Merged, Reason> {
    let versions = Versions::parse("", dest, src)?;
    let mode = match opts.mode {
        Mode::ThreeWay => Mode::TwoWay { prepend: false },
        two_way => two_way,
    };
    let opts = MergeOptions {
        policy: Policy::Theirs,
        mode,
        ..opts.clone()
    };
    engine::merged(&versions, &opts)
}
