//! The template attempt: a Helm/Go template merged as its YAML skeleton, weighed against
//! git's line merge as the structural attempt weighs a plain file.

use std::collections::{HashMap, HashSet};

use anyhow::Result;

use super::mask::placed_controls;
use super::{controls, controls_in_every_order, merged_controls, only_added, Skeletons, Tokens};
use crate::comments::PlannedSide;
use crate::engine::{self, Merged};
use crate::fallback::Reason;
use crate::git::line_merge::{line_merge, LineMerge};
use crate::merge;
use crate::options::{MergeOptions, Policy};
use crate::outcome::{
    clean, conflict_messages, conflicted, last_resort, Attempt, Message, Outcome,
};
use crate::parse::{Kind, NodeId, Versions};
use crate::resource::Identity;
use crate::text::markers::{self, conflict_hunks, marked_lines};
use crate::text::skeleton::{BRANCH, CLOSE};
use crate::verify::{self, Finding, Taken, Verdict};

/// A Helm/Go template, merged as its skeleton ([`super`]): git's clean line merge where the
/// check accepts it on the skeleton (or where the skeleton cannot be read, as before), else
/// the skeletons merged by structure and checked — data by the verifier, control lines by
/// their own 3-way merge — with the tokens put back. Whatever cannot be settled that way is
/// git's line merge, with `reason`; except where git's line merge was clean and the check
/// found it wrong: git's result would pass as clean, so the whole file is a conflict instead.
/// `line` is git's line merge, run alongside the parse (`None` outside `mark` mode).
pub(crate) fn attempt(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    reason: Reason,
    line: Option<Result<LineMerge>>,
) -> Result<Outcome, Attempt> {
    let unsettled = |what: &str| -> Attempt {
        match &reason {
            Reason::Template { side, line, .. } => Reason::Template {
                side: *side,
                line: *line,
                unsettled: Some(what.to_string()),
            },
            other => Reason::Unsupported(format!("{other}; its structural merge {what}")),
        }
        .into()
    };
    let Some(Skeletons {
        mut tokens,
        base: sb,
        ours: so,
        theirs: st,
    }) = Skeletons::read(base, ours, theirs)
    else {
        return Err(unsettled(
            "cannot start: an action is left open across lines with text after it",
        ));
    };
    let versions = match Versions::parse(&sb, &so, &st).map(|v| v.named(opts.file_name.as_deref()))
    {
        Ok(versions) => versions,
        Err(why) => {
            let why = Reason::from(why);
            return Err(unsettled(&format!("cannot start: as a skeleton, {why}")));
        }
    };
    let expected = merged_controls(&tokens, &sb, &so, &st);
    // Whether the versions' blocks are whole: then so must be each side of a conflict.
    let whole = [&sb, &so, &st]
        .iter()
        .all(|s| tokens.whole_blocks(&controls(s)));
    let tokens = &mut tokens;
    let mut messages = Vec::new();
    let mut git_conflicts = None;
    // How git's clean line merge is wrong as data, where the check found it so.
    let mut git_wrong = None;
    if let Some(line) = line {
        let line = line.map_err(Attempt::LineMerge)?;
        if !line.conflicted {
            let text = std::str::from_utf8(&line.bytes).unwrap_or_default();
            let skeletons = [sb.as_str(), so.as_str(), st.as_str()];
            let judged = judge_clean(&versions, tokens, skeletons, &expected, text, opts.policy);
            let (doubt, wrong) = match judged {
                Judged::Stands => return Ok(clean(line.bytes, messages, 0)),
                Judged::Misplaced(doubt) => (doubt, false),
                Judged::Wrong(doubt) => (doubt, true),
            };
            messages.push(format!("git's clean line merge {doubt}: merged by structure").into());
            // Wrong as data, it must not pass as clean where the structural merge cannot
            // settle the file either. Control lines placed otherwise than their own 3-way
            // merge only send it there: that merge is too rough to overrule git's.
            if wrong {
                git_wrong = Some(doubt);
            }
        } else {
            git_conflicts = Some(line);
        }
    }
    // Outside `mark` mode git's line merge has not run: where the structural merge cannot
    // settle the file, git's result is the answer, so it is judged here as `mark` mode would
    // judge it (no policy decided it), before the driver takes it.
    let judge_later = git_wrong.is_none() && git_conflicts.is_none();
    let controls_due = expected.clone();
    let expected = Expected {
        controls: expected,
        whole,
    };
    let settled = merge_skeletons(&versions, tokens, expected, git_conflicts, messages, opts)
        .map_err(|what| match what {
            Settle::Refused(what) => unsettled(&what),
            Settle::Failed(attempt) => attempt,
        });
    let git_wrong = match (&settled, git_wrong) {
        (Err(Attempt::Refused(_)), None) if judge_later && opts.policy != Policy::Mark => {
            let line = line_merge(base.as_bytes(), ours.as_bytes(), theirs.as_bytes(), opts)
                .map_err(Attempt::LineMerge)?;
            let text = std::str::from_utf8(&line.bytes).unwrap_or_default();
            let skeletons = [sb.as_str(), so.as_str(), st.as_str()];
            match line.conflicted {
                false => match judge_clean(
                    &versions,
                    tokens,
                    skeletons,
                    &controls_due,
                    text,
                    Policy::Mark,
                ) {
                    Judged::Wrong(doubt) => Some(doubt),
                    Judged::Stands | Judged::Misplaced(_) => None,
                },
                true => None,
            }
        }
        (_, wrong) => wrong,
    };
    match (settled, git_wrong) {
        (Err(Attempt::Refused(why)), Some(wrong)) => {
            let mut messages: Vec<Message> = vec![
                format!("line merge used: {why}").into(),
                format!("git's clean line merge {wrong}").into(),
            ];
            if let Some(outcome) = super::by_documents([base, ours, theirs], opts, &mut messages) {
                return Ok(Outcome {
                    fallback: Some(why),
                    ..outcome
                });
            }
            messages[1] = format!("git's clean line merge {wrong}: marked as a conflict").into();
            let mut outcome = last_resort(base, ours, theirs, opts, None, messages);
            outcome.fallback = Some(why);
            Ok(outcome)
        }
        (settled, _) => settled,
    }
}

/// How git's clean line merge of a template reads as a skeleton.
enum Judged {
    /// It is the answer: it holds the data and the control lines, or it cannot be read (as
    /// before), or the rules cannot pair it and it repeats nothing no input repeats.
    Stands,
    /// It holds the data but places the control lines otherwise than their own 3-way merge:
    /// the structural merge is tried, and where it cannot settle the file git's result stands.
    Misplaced(String),
    /// It is wrong as data: it must not pass as clean.
    Wrong(String),
}

/// Git's clean line merge `text` read as a skeleton and checked against the versions' data
/// (under `policy`) and the control lines due (`expected`, see [`merged_controls`]); where it
/// would stand, also with each action line that writes text read as a key where its output
/// lands ([`loses_written_text`]), as the structural merge's clean result is checked.
fn judge_clean(
    versions: &Versions,
    tokens: &mut Tokens,
    [sb, so, st]: [&str; 3],
    expected: &Option<Vec<String>>,
    text: &str,
    policy: Policy,
) -> Judged {
    // Where git's result cannot be read as a skeleton, it stands, as before.
    let Some(masked) = tokens.mask(text) else {
        return Judged::Stands;
    };
    // Both sides moving one run of control lines to neighbouring places can leave git's
    // merge with it twice, cleanly: an `end` added renders another template, or none, so
    // where every version's blocks pair so must git's result's (adversary
    // templates-mark-1144-3810), whatever its data.
    if [sb, so, st]
        .iter()
        .all(|s| tokens.whole_blocks(&controls(s)))
        && !tokens.whole_blocks(&controls(&masked))
    {
        return Judged::Wrong(
            "leaves the template's blocks unpaired (an `end` lost or added)".into(),
        );
    }
    let controls_hold = expected.as_ref() == Some(&controls(&masked));
    // Read with its action lines as comments, git's text can hold the data and still move a
    // line that writes text into another map: ours deleted `privateKey:` and left its
    // `toYaml` line writing into `issuerRef`, theirs added a map above the line, and git's
    // result has the line write into theirs' map instead (adversary templates-*-1212-490).
    // A person reads the rendered file, as the structural merge's clean result is read.
    let stands = |tokens: &Tokens, why: Option<String>| match why {
        Some(why) => Judged::Wrong(format!("is wrong as data ({why})")),
        None => match loses_written_text(versions, tokens, &masked, policy) {
            Some(why) => Judged::Wrong(format!(
                "loses a change read with its action lines that write text as keys ({why})"
            )),
            None => Judged::Stands,
        },
    };
    match verify::check_text(versions, &masked, policy) {
        // Control lines in their merged order can still put a key under other blocks than
        // each side has it (ours moved lines holding an unclosed `if` above an element
        // theirs deleted): read with keys named by their blocks, as the structural merge's
        // clean result is, where each side holds base's control lines.
        Verdict::Holds if controls_hold && sides_only_reorder_controls(versions) => {
            let why = guarded_violation(versions, tokens, &masked, Policy::Mark);
            stands(tokens, why)
        }
        // A side that copied a document adds its block lines, so the reading above is off;
        // a key a side moved into or out of a block must still stand so in the document of
        // its identity, as the structural merge's clean result is read ([`keeps_guard_moves`]):
        // ours renamed a ServiceMonitor beside a copy under its old name, theirs moved
        // `params.module` into an `if`, and git's lines put the move in the renamed document
        // only (adversary templates-mark-1321-2082).
        Verdict::Holds if controls_hold => match keeps_guard_moves(tokens, &masked, [sb, so, st]) {
            true => stands(tokens, None),
            false => Judged::Wrong(
                "is wrong as data (a key a side moved into or out of a block stands otherwise in the document of its name)".into(),
            ),
        },
        // Where the rules cannot pair the skeletons, git's result stands if it repeats
        // nothing no input repeats, as for plain YAML.
        Verdict::Unsure if verify::line_result_is_sound(sb, so, st, &masked) => Judged::Stands,
        Verdict::Unsure => Judged::Wrong(
            "repeats a key, a resource or an element name no input repeats".to_string(),
        ),
        Verdict::Broken(v) if v[0].finding == Finding::Unparsable => Judged::Stands,
        Verdict::Holds => match expected {
            // Both sides changed the control lines of one place: no merge of them says where
            // they go, and the structural merge will not guess, so git's result would stand.
            // It must at least keep each side's change of the blocks around a key.
            None => match guarded_violation(versions, tokens, &masked, Policy::Mark) {
                Some(why) => Judged::Wrong(format!("is wrong as data ({why})")),
                None => Judged::Misplaced("of the template misplaces its control lines".into()),
            },
            // Misplaced control lines send the file to the structural merge, and where that
            // cannot settle it git's result stands: it must then keep each side's blocks
            // around a key as well, where no side wrapped anything in a block of its own
            // (adversary templates-mark-1241-50: ours' swap left an item under a `with`,
            // theirs moved a `with` line, and git's joined lines put the item under others).
            Some(_) => match sides_only_reorder_controls(versions)
                .then(|| guarded_violation(versions, tokens, &masked, Policy::Mark))
                .flatten()
            {
                Some(why) => Judged::Wrong(format!("is wrong as data ({why})")),
                None => Judged::Misplaced("of the template misplaces its control lines".into()),
            },
        },
        Verdict::Broken(violations) => {
            Judged::Wrong(format!("is wrong as data ({})", violations[0]))
        }
    }
}

/// How the clean merged skeleton `merged` loses a side's change where each action line that
/// writes text is read as a key where its output lands ([`Tokens::content_keys`]), as a person
/// reads the rendered file and as the conflict check reads each side. As a comment such a line
/// is no data: a side that moved an `include` of labels out of a list element and emptied it
/// changed that element, and a merge taking the other side's deletion of it drops that change
/// unseen. `None` where it holds, or where the versions so read do not parse (nothing to ask).
fn loses_written_text(
    versions: &Versions,
    tokens: &Tokens,
    merged: &str,
    policy: Policy,
) -> Option<String> {
    let content = content_texts(versions, tokens);
    let by_content = by_content(versions, &content)?;
    match verify::check_text(&by_content, &tokens.content_keys(merged), policy) {
        Verdict::Broken(violations) => Some(violations[0].to_string()),
        Verdict::Holds | Verdict::Unsure => None,
    }
}

/// Whether each side holds base's control lines, if in another order. Only then are keys read
/// named by their blocks ([`guarded_violation`]): a side that wraps a map in a new block (or
/// rewrites a block's line) renames every key inside, so the other side's edit there would
/// read as a conflict with a deletion.
fn sides_only_reorder_controls(versions: &Versions) -> bool {
    let sorted = |text: &str| {
        let mut held = controls(text);
        held.sort_unstable();
        held
    };
    let base = sorted(versions.base.text);
    [&versions.ours, &versions.theirs]
        .into_iter()
        .all(|side| sorted(side.text) == base)
}

/// How the clean merged skeleton `merged` loses a side's move of a key into or out of a block
/// ([`guarded_violation`]), asked only where each side holds base's control lines, if in
/// another order or fewer ([`sides_only_reorder_or_drop_controls`]): a side that wraps a map
/// in a new block renames every key inside, so the other side's edit there would read as a
/// conflict with a deletion.
fn loses_a_guard_change(
    versions: &Versions,
    tokens: &mut Tokens,
    merged: &str,
    policy: Policy,
) -> Option<String> {
    if !sides_only_reorder_or_drop_controls(versions, tokens) {
        return None;
    }
    guarded_violation(versions, tokens, merged, policy)
}

/// Whether each side of the conflicted skeleton `merged` keeps a key one side added inside
/// blocks under those blocks: read by its path of keys after its document's identity
/// ([`guards_by_key`], documents taken together: the sides may name a document apart), a
/// key neither base nor the other side has that a conflict side holds
/// stands there under each naming of its blocks at least as often as the side added it. The
/// comment pass carries control lines with the keys they trail: a key theirs added inside a
/// `with` block whose key ours deleted landed above the block's line, outside it, in both
/// sides (adversary templates-mark-1149-6754). Asked where no side wrapped anything in a
/// block of its own ([`sides_only_reorder_or_drop_controls`]), which renames the keys inside;
/// each side is named on a text of its own, the blocks of one side's lines not the other's.
fn sides_keep_guard_additions(
    versions: &Versions,
    tokens: &mut Tokens,
    merged: &str,
    size: usize,
) -> bool {
    if !sides_only_reorder_or_drop_controls(versions, tokens) {
        return true;
    }
    let texts = [versions.base.text, versions.ours.text, versions.theirs.text];
    let [base, ours, theirs] = texts.map(|text| guards_by_key(tokens, text, false));
    let (Some(base), Some(ours), Some(theirs)) = (base, ours, theirs) else {
        return true;
    };
    markers::sides(merged, size).iter().all(|side| {
        let Some(held) = guards_by_key(tokens, side, false) else {
            return false;
        };
        let keeps = |adder: &GuardsByKey, other: &GuardsByKey| {
            adder.iter().all(
                |(key, guards)| match (base.get(key), other.get(key), held.get(key)) {
                    (None, None, Some(held)) => guards
                        .iter()
                        .all(|(guard, &n)| held.get(guard).copied().unwrap_or(0) >= n),
                    _ => true,
                },
            )
        };
        keeps(&ours, &theirs) && keeps(&theirs, &ours)
    })
}

/// How a side of the conflicted skeleton `merged` loses its data read with keys named by
/// their blocks ([`guarded_violation`] for a conflict's sides, [`loses_a_guard_change`] for a
/// clean merge), asked where no side wrapped anything in a block of its own
/// ([`sides_only_reorder_or_drop_controls`]). A conflict's hunk holds a side's elements but
/// not the control lines among them, which the comment pass carries with the keys they trail:
/// a list conflict whose theirs half holds an element theirs kept in a `range` block, the
/// block's lines left below the markers, renders that element unguarded whichever side is
/// taken (adversary templates-mark-1149-2626); narrow conflicts in a list can keep one side's
/// element where base had it while the other side moved it under an `if` (templates-mark-77-295:
/// ours moved `/conf` into a block, theirs reordered the list, and theirs' side rendered `/conf`
/// unguarded). Each side is named on a text of its own, the blocks of one side's lines not the
/// other's. `None` where the sides hold, or where the versions so read do not parse (nothing
/// to ask).
fn sides_lose_a_guard(
    versions: &Versions,
    tokens: &mut Tokens,
    merged: &str,
    size: usize,
) -> Option<String> {
    if !sides_only_reorder_or_drop_controls(versions, tokens) {
        return None;
    }
    let [gb, go, gt] =
        [&versions.base, &versions.ours, &versions.theirs].map(|v| tokens.guarded(v.text));
    let guarded = Versions::parse(&gb, &go, &gt)
        .ok()?
        .named(versions.file_name.as_deref());
    let [ours, theirs] = markers::sides(merged, size);
    [(Taken::Ours, ours), (Taken::Theirs, theirs)]
        .into_iter()
        .find_map(|(taken, side)| {
            let side = tokens.guarded(&side);
            verify::side_holds(&guarded, &side, size, taken, false)
                .err()
                .map(|broken| broken.what)
        })
}

/// Whether each side holds only base's block lines, in any order, some of them perhaps
/// deleted: no side wrapped anything in a block of its own. A side that deleted a block
/// with the keys it guarded renames no key the other side can still edit, so a merge read
/// with keys named by their blocks sees the other side's move of a key into or out of a
/// block where the deletion took it (a list ours moved under an `if`, theirs deleted). Lines
/// that only write text ([`Tokens::block_lines`]) rename no key: a side that copied a
/// document with its `include` lines still has its keys checked (adversary
/// templates-mark-1144-3238).
fn sides_only_reorder_or_drop_controls(versions: &Versions, tokens: &Tokens) -> bool {
    let sorted = |text: &str| {
        let mut held = tokens.block_lines(controls(text));
        held.sort_unstable();
        held
    };
    let base = sorted(versions.base.text);
    [&versions.ours, &versions.theirs]
        .into_iter()
        .all(|side| only_added(&sorted(side.text), &base))
}

/// Whether every key of the skeleton `masked`, named by the blocks around it
/// ([`Tokens::guarded`]), stands so in ours' or theirs' skeleton (`sides`): read by its path of
/// keys (list elements as `-`), no key is under blocks neither side put it under. With
/// `base`, only keys whose path base holds, blocks aside, are asked: a side that wraps a map
/// in a block of its own renames the keys the other side adds inside it, which then stand
/// under blocks of both, yet a key both sides had from base must still take one side's
/// blocks (adversary templates-*-77-299: theirs moved `scheme` out of one block into another
/// and a half put it in both). `false` where a text cannot be read.
fn guards_from_a_side(
    tokens: &mut Tokens,
    masked: &str,
    sides: [&str; 2],
    base: Option<&str>,
) -> bool {
    let [half, ours, theirs] = [masked, sides[0], sides[1]].map(|text| tokens.guarded(text));
    let (Ok(half), Ok(ours), Ok(theirs)) = (
        crate::parse::parse(&half),
        crate::parse::parse(&ours),
        crate::parse::parse(&theirs),
    ) else {
        return false;
    };
    let mut known = key_paths(&ours, |_| String::new(), true);
    known.extend(key_paths(&theirs, |_| String::new(), true));
    let mut asked = key_paths(&half, |_| String::new(), true);
    if let Some(base) = base {
        let Ok(base) = crate::parse::parse(base) else {
            return false;
        };
        let held = key_paths(&base, |_| String::new(), true);
        asked.retain(|path| held.contains(&without_guards(path)));
    }
    asked.is_subset(&known)
}

/// A key path read from a skeleton with keys named by their blocks ([`Tokens::guarded`]),
/// without those names.
fn without_guards(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_guard = false;
    for c in path.chars() {
        match (in_guard, c) {
            (false, BRANCH) => in_guard = true,
            (true, CLOSE) => in_guard = false,
            (false, c) => out.push(c),
            (true, _) => {}
        }
    }
    out
}

/// Whether every key that base, ours and theirs all hold under the same blocks in a document
/// of one identity (read by its path of keys, each named by its blocks: [`Tokens::guarded`],
/// [`document_key_paths`]) stands so in that document of the skeleton `masked` too. A
/// placement half asks only where the lines a side moved go: its control lines may balance
/// and still put one that no side moved below a key it opened in every version (a `with` line
/// carried under the map it guards). `false` where a text cannot be read.
fn keeps_unmoved_guards(tokens: &mut Tokens, masked: &str, versions: [&str; 3]) -> bool {
    let Some(half) = document_key_paths(tokens, masked) else {
        return false;
    };
    let mut unmoved: Option<HashSet<String>> = None;
    for text in versions {
        let Some(paths) = document_key_paths(tokens, text) else {
            return false;
        };
        unmoved = Some(match unmoved {
            Some(kept) => kept.intersection(&paths).cloned().collect(),
            None => paths,
        });
    }
    unmoved.is_none_or(|kept| kept.is_subset(&half))
}

/// Whether each copy of a key that one side put under blocks (moved in or out, or added
/// there) stands under them in the skeleton `masked` too, where base and the other side
/// have the key: read by its path of keys (list elements as `-`) after its document's
/// identity, each path named by its blocks ([`guards_by_key`]) is in the merge at least as
/// many times more than in base as in the side. Where the other side moved the same key
/// elsewhere, or deleted the element it stands in, no clean merge holds both; a key both
/// sides added under different blocks stands under each side's blocks as often as that side
/// put it there.
/// [`loses_a_guard_change`] reads the whole data so, but only where no side added block
/// lines, and a side that copied a document adds its block lines; this reading keys a key by
/// its own path, which no block renames. Adversary templates-theirs-1147-206: theirs moved an
/// endpoint's `interval` into an `if` block, ours copied the document, and the merge kept
/// the key unguarded; templates-mark-1146-926: theirs added ports above the first, ours moved
/// a `range` line above it, and the insertions joined put theirs' ports in the range. `false`
/// where a text cannot be read.
fn keeps_guard_moves(tokens: &mut Tokens, masked: &str, versions: [&str; 3]) -> bool {
    let [base, ours, theirs] = versions.map(|text| guards_by_key(tokens, text, true));
    let (Some(merged), Some(base), Some(ours), Some(theirs)) =
        (guards_by_key(tokens, masked, true), base, ours, theirs)
    else {
        return false;
    };
    // Besides the side's added copies, the merge holds base's copies the other side kept
    // under the same blocks: counted from zero, a side's copy moved out of a `range` block
    // beside one it added read as held by base's copy outside it, while the merge kept the
    // moved copy in the block (adversary templates-mark-1149-2174). Both sides adding one
    // copy, the merge may hold it once: base's copies bound what the other side's count adds.
    let holds = |side: &GuardsByKey, other: &GuardsByKey| {
        side.iter()
            .all(|(key, guards)| match (base.get(key), other.get(key)) {
                (Some(was), Some(kept)) if guards != was => guards.iter().all(|(guard, &n)| {
                    let at =
                        |counts: &HashMap<String, usize>| counts.get(guard).copied().unwrap_or(0);
                    let added = n.saturating_sub(at(was));
                    let held = merged.get(key).map_or(0, at);
                    added == 0 || held >= added + at(kept).min(at(was))
                }),
                // A key both sides added (in a document both added, say) under different
                // blocks: the sides disagree on when it renders, which no clean merge settles
                // unless it holds each side's copies under that side's blocks (adversary
                // templates-mark-1291-1254: both copied a Service, theirs' copy with a port
                // moved into an `if`, and the merge took ours' copy, the port unguarded).
                (None, Some(kept)) if guards != kept => guards.iter().all(|(guard, &n)| {
                    merged
                        .get(key)
                        .map_or(0, |counts| counts.get(guard).copied().unwrap_or(0))
                        >= n
                }),
                _ => true,
            })
    };
    holds(&ours, &theirs) && holds(&theirs, &ours)
}

/// Whether the side `side` moved a key into or out of a block: a key base and `other` hold,
/// read by its path after its document's identity ([`guards_by_key`]), stands in `side` under
/// other blocks (or as many copies otherwise guarded) than in base. `true` where a text
/// cannot be read: nothing then says the side moved none.
fn moves_a_guard(tokens: &mut Tokens, [base, side, other]: [&str; 3]) -> bool {
    let [base, side, other] = [base, side, other].map(|text| guards_by_key(tokens, text, true));
    let (Some(base), Some(side), Some(other)) = (base, side, other) else {
        return true;
    };
    side.iter().any(|(key, guards)| {
        other.contains_key(key) && base.get(key).is_some_and(|was| was != guards)
    })
}

/// Keys by their path, each with how many times it stands under each naming of its blocks.
type GuardsByKey = HashMap<String, HashMap<String, usize>>;

/// Each key of the skeleton `masked` holding a value, by its path of keys (`a.b.-.c`) after
/// its document's identity, with the paths its copies have where keys are named by their
/// blocks ([`Tokens::guarded`]), each counted; without `by_identity`, the documents taken
/// together (a side that renamed or nulled a document's name still names its keys so).
/// `None` where the text cannot be read.
fn guards_by_key(tokens: &mut Tokens, masked: &str, by_identity: bool) -> Option<GuardsByKey> {
    fn walk(
        [plain, named]: [&crate::parse::Tree; 2],
        [p, n]: [NodeId; 2],
        [p_path, n_path]: [&str; 2],
        out: &mut GuardsByKey,
    ) {
        match (plain.node(p).kind, named.node(n).kind) {
            (Kind::Map, Kind::Map) => {
                for ((pk, pv), (nk, nv)) in plain.entries(p).zip(named.entries(n)) {
                    let here = [
                        format!("{p_path}.{}", plain.value(pk)),
                        format!("{n_path}.{}", named.value(nk)),
                    ];
                    walk([plain, named], [pv, nv], [&here[0], &here[1]], out);
                    if !plain.is_null(pv) {
                        let [key, guarded] = here;
                        *out.entry(key).or_default().entry(guarded).or_default() += 1;
                    }
                }
            }
            (Kind::Seq, Kind::Seq) => {
                let here = [format!("{p_path}.-"), format!("{n_path}.-")];
                for (&pe, &ne) in plain.children(p).iter().zip(named.children(n)) {
                    walk([plain, named], [pe, ne], [&here[0], &here[1]], out);
                }
            }
            _ => {}
        }
    }
    let guarded = tokens.guarded(masked);
    let (Ok(plain), Ok(named)) = (crate::parse::parse(masked), crate::parse::parse(&guarded))
    else {
        return None;
    };
    let mut out = HashMap::new();
    // Naming keys renames no document: both readings hold the same documents in order.
    for (p, n) in plain.docs.iter().zip(&named.docs) {
        if let (Some(p), Some(n)) = (p.root, n.root) {
            let name = Identity::of(&plain, p)
                .filter(|_| by_identity)
                .map_or_else(String::new, |id| id.to_string());
            walk([&plain, &named], [p, n], [&name, &name], &mut out);
        }
    }
    Some(out)
}

/// The paths of keys of the skeleton `masked` named by their blocks ([`Tokens::guarded`]),
/// each after the identity of its document (documents of none, or of one identity, taken
/// together): a side that copied a document under a new name keeps base's keys in both, so
/// read together, a merge that moved a key out of its block in one of them would still
/// read as keeping it in the other (adversary templates-mark-1144-2550). `None` where the
/// text cannot be read.
fn document_key_paths(tokens: &mut Tokens, masked: &str) -> Option<HashSet<String>> {
    let guarded = tokens.guarded(masked);
    let (Ok(plain), Ok(tree)) = (crate::parse::parse(masked), crate::parse::parse(&guarded)) else {
        return None;
    };
    // Naming keys renames no document: both readings hold the same documents in order.
    let names: Vec<String> = plain
        .docs
        .iter()
        .map(|d| {
            d.root
                .and_then(|root| Identity::of(&plain, root))
                .map_or_else(String::new, |id| id.to_string())
        })
        .collect();
    let name = |i: usize| names.get(i).cloned().unwrap_or_default();
    // Only keys inside a block, whose names its blocks changed, and holding a value: a key
    // in no block cannot leave one, and a null one that a policy reads as a deletion (theirs'
    // null under kyaml's rules) goes whatever blocks stand around it.
    let unguarded = key_paths(&plain, name, true);
    let mut paths = key_paths(&tree, name, false);
    paths.retain(|path| !unguarded.contains(path));
    Some(paths)
}

/// The paths of keys of every document of `tree` (`a.b.-.c`), each after its document's
/// `name` (by its index among the documents): documents of one name taken together. Keys
/// holding null count only where `nulls`.
fn key_paths(
    tree: &crate::parse::Tree,
    name: impl Fn(usize) -> String,
    nulls: bool,
) -> HashSet<String> {
    fn walk(
        tree: &crate::parse::Tree,
        at: NodeId,
        path: &str,
        nulls: bool,
        out: &mut HashSet<String>,
    ) {
        match tree.node(at).kind {
            Kind::Map => {
                for (k, v) in tree.entries(at) {
                    let here = format!("{path}.{}", tree.value(k));
                    walk(tree, v, &here, nulls, out);
                    if nulls || !tree.is_null(v) {
                        out.insert(here);
                    }
                }
            }
            Kind::Seq => {
                let here = format!("{path}.-");
                for &e in tree.children(at) {
                    walk(tree, e, &here, nulls, out);
                }
            }
            _ => {}
        }
    }
    let mut out = HashSet::new();
    for (i, doc) in tree.docs.iter().enumerate() {
        if let Some(root) = doc.root {
            walk(tree, root, &name(i), nulls, &mut out);
        }
    }
    out
}

/// How a merge `masked` (a skeleton) of the versions' skeletons loses a side's change of the
/// blocks around a key, read with each key named by its guard ([`Tokens::guarded`]) and
/// checked as `policy` checks data: a key one side moved into or out of a block, or both
/// sides into different ones, must come out as the rules say, or conflict; a key no side
/// moved stays in its blocks. `None` where it holds, or where the guarded versions cannot be
/// read (as before).
fn guarded_violation(
    versions: &Versions,
    tokens: &mut Tokens,
    masked: &str,
    policy: Policy,
) -> Option<String> {
    let [gb, go, gt] =
        [&versions.base, &versions.ours, &versions.theirs].map(|v| tokens.guarded(v.text));
    let result = tokens.guarded(masked);
    let guarded = Versions::parse(&gb, &go, &gt)
        .ok()?
        .named(versions.file_name.as_deref());
    match verify::check_text(&guarded, &result, policy) {
        Verdict::Broken(v) if v[0].finding != Finding::Unparsable => {
            Some(format!("a block around a key: {}", v[0]))
        }
        _ => None,
    }
}

/// Runs `f` with a check of a line merge's conflicted text of three templates that the
/// structural merge does not take as skeletons (two documents of one identity, say): each
/// side, read as a skeleton, must parse and repeat nothing no version repeats, as a plain
/// file's sides must, and hold its data where the check reads the skeletons
/// (documents of one identity in order, as [`verify::sides_hold`] reads a plain file's), each
/// side masked on its own and each action line that writes text read as the key its output
/// lands in ([`Tokens::content_keys`]). `None` where
/// the versions are no templates (their skeletons are their texts) or cannot be read as
/// skeletons.
pub(crate) fn with_sound_sides<R>(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    f: impl FnOnce(&mut dyn FnMut(&str) -> bool) -> R,
) -> Option<R> {
    let Skeletons {
        mut tokens,
        base: sb,
        ours: so,
        theirs: st,
    } = Skeletons::read(base, ours, theirs)?;
    if [base, ours, theirs] == [&sb, &so, &st].map(String::as_str) {
        return None;
    }
    // The data read with each action line that writes text as a key where its output lands
    // ([`Tokens::content_keys`]), where every version so read parses: a side whose change at
    // a place is such a line changed that place, as a person reads it.
    let content = [&sb, &so, &st].map(|s| tokens.content_keys(s));
    let by_content = Versions::parse(&content[0], &content[1], &content[2]).is_ok();
    let data = match by_content {
        true => &content,
        false => &[sb.clone(), so.clone(), st.clone()],
    };
    let versions = Versions::parse(&data[0], &data[1], &data[2])
        .ok()
        .map(|v| v.named(opts.file_name.as_deref()));
    let size = opts.marker_size;
    let tokens = &mut tokens;
    let mut sound = |text: &str| {
        markers::sides(text, size).iter().all(|side| {
            tokens
                .mask(side)
                .is_some_and(|masked| verify::line_result_is_sound(&sb, &so, &st, &masked))
        }) && versions
            .as_ref()
            .is_none_or(|v| each_side_holds(tokens, v, None, text, size, by_content, false))
    };
    Some(f(&mut sound))
}

/// Whether `text`, a merge of the three versions that the skeletons' merge did not make,
/// holds as a clean merge of the template: read as a skeleton, its data passes the check
/// (mark mode's rule: no policy decided it), its control lines are their own 3-way merge and
/// each stands under keys where ours or theirs has it ([`controls_stay_in_place`]): two
/// insertions joined in the right order can still put one side's `include` line below the
/// other side's new key, which renders it into that key's map.
pub(crate) fn clean_holds(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    text: &str,
) -> bool {
    clean_holds_with([base, ours, theirs], opts, text, true)
}

/// [`clean_holds`] for a merge made document by document (the driver's
/// `by_template_documents`): each document's control lines are one side's or their own line
/// merge, so the file's control lines are not held to the 3-way merge of the whole file's
/// (two documents both sides added with the same control lines hold them twice); they must
/// still keep every block whole and stand under keys where ours or theirs has them.
pub(crate) fn clean_holds_by_documents(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    text: &str,
) -> bool {
    clean_holds_with([base, ours, theirs], opts, text, false)
}

/// [`clean_holds`], the control lines held to the whole file's 3-way merge where `merged`.
fn clean_holds_with(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    text: &str,
    merged: bool,
) -> bool {
    let Some(mut skeletons) = Skeletons::read(base, ours, theirs) else {
        return false;
    };
    let Ok(versions) = Versions::parse(&skeletons.base, &skeletons.ours, &skeletons.theirs)
        .map(|v| v.named(opts.file_name.as_deref()))
    else {
        return false;
    };
    let expected = merged_controls(
        &skeletons.tokens,
        &skeletons.base,
        &skeletons.ours,
        &skeletons.theirs,
    );
    let Some(masked) = skeletons.tokens.mask(text) else {
        return false;
    };
    // Read with keys named by their blocks where git's clean result is ([`judge_clean`]):
    // where both sides changed the control lines of one place, or each only reordered
    // them; and also where a side deleted some besides (as the structural merge's clean
    // result is read, [`loses_a_guard_change`]): one side's `end` moved up and the other's
    // `if` moved down, joined with an include line one of them deleted, reinterpret each
    // other and put an item under blocks neither side put it in (adversary
    // templates-mark-1141-138). A merge made otherwise (document by document, say) can keep
    // the same lines as git's and so the same misplaced block around a key.
    let guards_asked =
        expected.is_none() || sides_only_reorder_or_drop_controls(&versions, &skeletons.tokens);
    let controls_hold = match merged {
        true => expected.is_some_and(|e| e == controls(&masked)),
        false => {
            let t = &skeletons.tokens;
            let whole = [&skeletons.base, &skeletons.ours, &skeletons.theirs]
                .iter()
                .all(|s| t.whole_blocks(&controls(s)));
            !whole || t.whole_blocks(&controls(&masked))
        }
    };
    controls_hold
        && controls_stay_in_place(&masked, &versions, &skeletons.tokens)
        && matches!(
            verify::check_text(&versions, &masked, Policy::Mark),
            Verdict::Holds
        )
        && !(guards_asked
            && guarded_violation(&versions, &mut skeletons.tokens, &masked, Policy::Mark).is_some())
        // Nor may the joined text move a line that writes text out of the map a side put it
        // in: ours' `annotations` moved above labels' `include` line takes the include into
        // it, and theirs' key inserted at the same place takes it out again (adversary
        // templates-mark-1146-550), as the structural merge's clean result is read.
        && loses_written_text(&versions, &skeletons.tokens, &masked, Policy::Mark).is_none()
        && keeps_guard_moves(
            &mut skeletons.tokens,
            &masked,
            [&skeletons.base, &skeletons.ours, &skeletons.theirs],
        )
}

/// Runs `f` with the check a line merge's conflicted text of this template must pass for a
/// person to take either side: each side, masked on its own as a skeleton, parses, holds its
/// data (each action line that writes text read as the key its output lands in, as
/// [`with_sound_sides`] reads it) and keeps its blocks whole where the versions do; a text
/// that cannot be read as a skeleton fails.
/// `None` where the versions themselves cannot be read as skeletons: there is nothing to
/// check against.
pub(crate) fn with_conflict_check<R>(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    f: impl FnOnce(&mut dyn FnMut(&str) -> bool) -> R,
) -> Option<R> {
    let Skeletons {
        mut tokens,
        base: sb,
        ours: so,
        theirs: st,
    } = Skeletons::read(base, ours, theirs)?;
    // The data read with each action line that writes text as a key where its output lands
    // ([`Tokens::content_keys`]), where every version so read parses: a side whose only change
    // at a place is such a line (an `include` of labels) changed that place, and a conflict
    // side holding it is that side's, not one that drops the other side's change beside it.
    let content = [&sb, &so, &st].map(|s| tokens.content_keys(s));
    let by_content = Versions::parse(&content[0], &content[1], &content[2]).is_ok();
    let data = match by_content {
        true => content,
        false => [sb.clone(), so.clone(), st.clone()],
    };
    let versions = Versions::parse(&data[0], &data[1], &data[2])
        .ok()?
        .named(opts.file_name.as_deref());
    let whole = [&sb, &so, &st]
        .iter()
        .all(|s| tokens.whole_blocks(&controls(s)));
    // Where a version's blocks do not pair (an `end` lost or added), it renders nothing, and
    // where an action line's output lands is a guess: read as a key there, two versions of
    // an element differ by a line the other reading calls no data, so a side holding both
    // looks like each side's own (templates-mark-1144-4642: ours moved a ServiceMonitor
    // endpoint away from its relabeling line, and theirs' half held the endpoint twice). A
    // side must then hold the data read both ways.
    let plain = (by_content && !whole)
        .then(|| Versions::parse(&sb, &so, &st).ok())
        .flatten()
        .map(|v| v.named(opts.file_name.as_deref()));
    // The same data read with each key named by its blocks ([`Tokens::guarded`]), where every
    // version so read parses: a side that moved list items across `if` lines changed their
    // guards, a change a conflict side holding the other side's lines there drops. Asked, as
    // of a clean merge ([`loses_a_guard_change`]), only where each side holds only base's
    // control lines: a side that rewrites a block's line renames every key inside.
    let named = data.clone().map(|text| tokens.guarded(&text));
    let guarded = sides_only_reorder_or_drop_controls(&versions, &tokens)
        .then(|| Versions::parse(&named[0], &named[1], &named[2]).ok())
        .flatten()
        .map(|v| v.named(opts.file_name.as_deref()));
    // Without that reading, where each side only copies, moves or deletes base's block lines
    // (writes none of its own), each half must still put base's keys under blocks a side
    // gives them ([`halves_keep_guards`]). A side that writes a block line of its own renames
    // the keys inside, and a half mixing its line with the other side's renamed inner lines
    // is the right merge of two rewrites (argo-workflows' ServiceMonitor: ours rewrote every
    // `.Values` as `$.Values`, theirs the outer `if`), not one to widen.
    let ask_halves = guarded.is_none() && sides_only_copy_controls(&tokens, [&sb, &so, &st]);
    let size = opts.marker_size;
    let tokens = &mut tokens;
    let mut holds = |text: &str| {
        each_side_holds(
            tokens,
            &versions,
            guarded.as_ref(),
            text,
            size,
            by_content,
            whole,
        ) && plain
            .as_ref()
            .is_none_or(|plain| each_side_holds(tokens, plain, None, text, size, false, whole))
            && (!ask_halves || halves_keep_guards(tokens, text, size, [&sb, &so, &st]))
    };
    Some(f(&mut holds))
}

/// Whether every block line of ours' and theirs' skeletons is one of base's: the sides
/// copied, moved or deleted base's blocks, but opened or rewrote none.
fn sides_only_copy_controls(tokens: &Tokens, [sb, so, st]: [&str; 3]) -> bool {
    let base: HashSet<String> = tokens.block_lines(controls(sb)).into_iter().collect();
    [so, st].into_iter().all(|side| {
        tokens
            .block_lines(controls(side))
            .iter()
            .all(|line| base.contains(line))
    })
}

/// Whether each half of a conflicted template `text`, masked on its own as a skeleton, puts
/// every key whose path base holds under blocks ours or theirs puts it under
/// ([`guards_from_a_side`]). The guarded reading of [`with_conflict_check`] is off where a
/// side adds block lines, copies of base's too, and its data check reads no blocks: a half
/// may then keep one side's block line where the other side moved it, over the other side's
/// lines below (adversary templates-theirs-1192-402: theirs moved an `if` below an endpoint
/// it added, and git's half of ours kept that `if` above it, so theirs' endpoint rendered
/// under a condition neither side gave it).
fn halves_keep_guards(
    tokens: &mut Tokens,
    text: &str,
    size: usize,
    [sb, so, st]: [&str; 3],
) -> bool {
    markers::sides(text, size).iter().all(|side| {
        tokens
            .mask(side)
            .is_some_and(|masked| guards_from_a_side(tokens, &masked, [so, st], Some(sb)))
    })
}

/// Whether each side of a conflicted template `text`, masked on its own as a skeleton, holds
/// its data against `versions` (read with each action line that writes text as the key its
/// output lands in where `by_content`), and against `guarded` where given (the versions
/// read with each key named by its blocks, [`Tokens::guarded`]) with the side so read too,
/// and, where `whole`, keeps every block whole.
///
/// Each side is masked on its own: a line's masking depends on the control lines above it
/// (an `else` branch names the keys below it), and masked as one text, an `if` or `else` on
/// one side of a conflict would rename the keys of the other side below it. An action line
/// that writes text (`{{ toYaml .x | indent 4 }}`) is data outside the conflicts even where
/// the versions cannot be read with it as a key: its output is data of the rendered file, so
/// conflicts on either side of it are no whole-file conflict, and each side must hold the
/// other side's changes that conflict with nothing.
fn each_side_holds(
    tokens: &mut Tokens,
    versions: &Versions,
    guarded: Option<&Versions>,
    text: &str,
    size: usize,
    by_content: bool,
    whole: bool,
) -> bool {
    let [o, t] = markers::sides(text, size);
    [(Taken::Ours, o), (Taken::Theirs, t)]
        .into_iter()
        .all(|(taken, side)| {
            let ours = taken == Taken::Ours;
            let Some(masked) = tokens.mask(&side) else {
                return false;
            };
            if whole && !tokens.whole_blocks(&controls(&masked)) {
                return false;
            }
            let keyed = tokens.content_keys(&masked);
            // Read with those lines as keys, the conflicts span the file only where no data
            // stands outside them, an action line that writes text included.
            let spans =
                markers::with_side_lines(text, size, ours, &tokens.writing_lines_as_data(&keyed))
                    .is_some_and(|keyed| markers::conflicts_span_the_file(&keyed, size));
            let read = match by_content {
                true => keyed,
                false => masked,
            };
            let named = guarded.map(|_| tokens.guarded(&read));
            let holds = |versions: &Versions, read: &str| {
                markers::with_side_lines(text, size, ours, read).is_some_and(|marked| {
                    verify::side_holds(versions, &marked, size, taken, spans).is_ok()
                })
            };
            holds(versions, &read)
                && guarded
                    .zip(named)
                    .is_none_or(|(guarded, named)| holds(guarded, &named))
        })
}

/// Runs `f` with the skeletons' clean structural merge rendered twice, into ours' text and
/// into theirs' (the sides swapped, and the policy with them), as `[base, in ours, in theirs]`
/// template texts, and with the check a conflict between the two must pass. Where the
/// structural merge holds the data but each side places the control lines its own way (a side
/// moved a key across an `if` line, or moved the block holding one), no clean merge can say
/// where they go; git's conflicts then hold one side's raw text, which drops a change the
/// other side made inside the same lines (a value it edited on a line this side moved). A
/// conflict between the two renderings asks only where the lines go: each half holds both
/// sides' data. The check: read as a skeleton, each half is a clean merge of the data (under
/// the options' policy), keeps its blocks whole where the versions do, and holds the control
/// lines as its own side or their 3-way merge has them. `None` where the skeletons cannot be
/// read, where either rendering has a conflict or fails the data check, or where the two
/// renderings are one text (nothing to ask).
pub(crate) fn with_placements<R>(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    f: impl FnOnce([&str; 3], &mut dyn FnMut(&str) -> bool) -> R,
) -> Option<R> {
    let Skeletons {
        mut tokens,
        base: sb,
        ours: so,
        theirs: st,
    } = Skeletons::read(base, ours, theirs)?;
    let name = opts.file_name.as_deref();
    let versions = Versions::parse(&sb, &so, &st).ok()?.named(name);
    let swapped = Versions::parse(&sb, &st, &so).ok()?.named(name);
    // A conflict's halves are judged as mark mode judges them, whatever the policy: no
    // policy decided what a person takes.
    let opts = &MergeOptions {
        policy: Policy::Mark,
        ..opts.clone()
    };
    // A rendering is the structural merge the clean attempt would take: its data holds, and
    // so does each side's move of a key into or out of a block.
    let rendered = |versions: &Versions, opts: &MergeOptions, tokens: &mut Tokens| {
        engine::merged(versions, opts)
            .ok()
            .filter(|m| m.conflicts.is_empty())
            .filter(|m| {
                matches!(
                    verify::check_text(versions, &m.text, opts.policy),
                    Verdict::Holds
                )
            })
            .filter(|m| loses_a_guard_change(versions, tokens, &m.text, opts.policy).is_none())
            .map(|m| m.text)
    };
    let rendered_ours = rendered(&versions, opts, &mut tokens);
    let rendered_theirs = rendered(&swapped, opts, &mut tokens);
    let whole = [&sb, &so, &st]
        .iter()
        .all(|s| tokens.whole_blocks(&controls(s)));
    let expected = merged_controls(&tokens, &sb, &so, &st);
    // A half holds both sides' data and keeps its blocks whole where the versions do; its
    // control lines are its side's, or their 3-way merge (`strict`), or in another order, and
    // each stands under keys where ours or theirs has it, as a clean merge made document by
    // document must: in its side's order, the comment pass can still carry a line that writes
    // keys (an `include` of labels) below another map with the other side's moved key.
    // Where the sides only reorder control lines, each key stands in blocks one side gives
    // it: a half asks where the lines go, so it may keep its own side's guards, but a control
    // line placed as one side has it must not take in a key no side put in that block (a
    // `with` theirs moved above `name`, placed so in ours' text, over `labels` too). Where a
    // side adds or drops control lines, so do the keys base holds ([`guards_from_a_side`]).
    let reordered_only = sides_only_reorder_controls(&versions);
    // Each action line that writes text read as a key where its output lands, where every
    // version so read parses: a side that moved `annotations` below the `include` of labels
    // sent that output into `annotations`, a change no half may undo (in the skeleton, the
    // line is a comment the comment pass may carry anywhere, or drop).
    let content = content_texts(&versions, &tokens);
    let by_content = by_content(&versions, &content);
    let half_holds = |tokens: &mut Tokens, masked: &str, own: &[String], strict: bool| {
        let held = controls(masked);
        (held == own || expected.as_deref() == Some(&held[..]) || !strict)
            && controls_stay_in_place(masked, &versions, tokens)
            && (!whole || tokens.whole_blocks(&held))
            && matches!(
                verify::check_text(&versions, masked, opts.policy),
                Verdict::Holds
            )
            && by_content.as_ref().is_none_or(|v| {
                matches!(
                    verify::check_text(v, &tokens.content_keys(masked), opts.policy),
                    Verdict::Holds
                )
            })
            && guards_from_a_side(
                tokens,
                masked,
                [&so, &st],
                (!reordered_only).then_some(&*sb),
            )
            && keeps_unmoved_guards(tokens, masked, [&sb, &so, &st])
    };
    // The rendering into a side's text, else that text itself where it already holds the
    // other side's data: the comment pass can carry a control line with the other side's
    // move, so a rendering may place them as neither side does.
    let mut half = |rendered: Option<String>, raw: &str| {
        let own = controls(raw);
        let candidates: Vec<String> = rendered.into_iter().chain([raw.to_string()]).collect();
        [true, false].into_iter().find_map(|strict| {
            candidates
                .iter()
                .find(|masked| half_holds(&mut tokens, masked, &own, strict))
                .cloned()
        })
    };
    let in_ours = half(rendered_ours, &so)?;
    let in_theirs = half(rendered_theirs, &st)?;
    if in_ours == in_theirs {
        return None;
    }
    let own = [controls(&so), controls(&st)];
    let (in_ours, in_theirs) = (tokens.unmask(&in_ours)?, tokens.unmask(&in_theirs)?);
    let size = opts.marker_size;
    let tokens = &mut tokens;
    let mut holds = |text: &str| {
        markers::sides(text, size)
            .iter()
            .zip(&own)
            .all(|(half, own)| {
                tokens
                    .mask(half)
                    .is_some_and(|m| half_holds(tokens, &m, own, false))
            })
    };
    Some(f([base, &in_ours, &in_theirs], &mut holds))
}

/// The control lines a merge of the skeletons must hold, in order (`None` where both sides
/// changed them at one place), and whether the versions' blocks are whole.
struct Expected {
    controls: Option<Vec<String>>,
    whole: bool,
}

/// Whether a conflicted skeleton leaves a template whichever side is taken: each side parses
/// (ours' as `planned` where the comment pass edited it) and holds its data (see
/// [`verify::sides_hold`]) and, where the versions' blocks are whole (`whole`), keeps every
/// block whole (a side that lost a block's `end` would not render).
///
/// The conflicts span the file only where no data stands outside them, an action line that
/// writes text included (`{{ toYaml .x | indent 4 }}`, a comment in the skeleton,
/// [`Tokens::content_keys`]): its output is data of the rendered file, so conflicts on either
/// side of it are no whole-file conflict, and each side must hold the other side's changes
/// that conflict with nothing.
fn skeleton_sides_hold(
    versions: &Versions,
    tokens: &Tokens,
    skeleton: &str,
    size: usize,
    whole: bool,
    planned: Option<PlannedSide>,
) -> bool {
    let spanning = markers::conflicts_span_the_file(skeleton, size)
        && markers::conflicts_span_the_file(&tokens.content_keys(skeleton), size);
    verify::sides_hold_spanning(versions, skeleton, size, planned, spanning).is_ok()
        && (!whole
            || markers::sides(skeleton, size)
                .iter()
                .all(|side| tokens.whole_blocks(&controls(side))))
}

/// Base's, ours' and theirs' skeletons with each action line that writes text read as a key
/// where its output lands ([`Tokens::content_keys`]).
fn content_texts(versions: &Versions, tokens: &Tokens) -> [String; 3] {
    [&versions.base, &versions.ours, &versions.theirs].map(|tree| tokens.content_keys(tree.text))
}

/// The three versions parsed from [`content_texts`], named as `versions` is; `None` where one
/// does not parse (nothing to ask of them).
fn by_content<'t>(versions: &Versions, content: &'t [String; 3]) -> Option<Versions<'t>> {
    Versions::parse(&content[0], &content[1], &content[2])
        .ok()
        .map(|v| v.named(versions.file_name.as_deref()))
}

/// Whether each side of a conflicted skeleton holds its data read with each action line that
/// writes text as a key where its output lands ([`Tokens::content_keys`]), as
/// [`each_side_holds`] reads a line merge's sides: a side that moved an `annotations` key out
/// of its `with` block, leaving the block's `toYaml` line to render into `labels`, changed
/// both maps, and a conflict side that puts the line back under `annotations` drops that
/// change. `true` where the versions so read do not parse (nothing to ask).
fn sides_hold_by_content(
    versions: &Versions,
    tokens: &Tokens,
    skeleton: &str,
    size: usize,
) -> bool {
    let content = content_texts(versions, tokens);
    let Some(by_content) = by_content(versions, &content) else {
        return true;
    };
    let keyed = tokens.content_keys(skeleton);
    let spanning = markers::conflicts_span_the_file(&keyed, size);
    verify::sides_hold_spanning(&by_content, &keyed, size, None, spanning).is_ok()
}

/// Whether every control line of a merged skeleton stands under keys where ours or theirs
/// has it ([`placed_controls`]): the order of the control lines alone does not tell that a
/// key moved away from below one. Counted as a 3-way merge counts them: a line and place
/// base has `b` times, ours `o` and theirs `t` may stand there up to `o + t - b` times (each
/// side's added copies), and never fewer than either side's count allows.
fn controls_stay_in_place(merged: &str, versions: &Versions, tokens: &Tokens) -> bool {
    let count = |text: &str| {
        let mut counts: HashMap<(String, Vec<String>), usize> = HashMap::new();
        for placed in placed_controls(text, tokens) {
            *counts.entry(placed).or_default() += 1;
        }
        counts
    };
    let [base, ours, theirs] =
        [&versions.base, &versions.ours, &versions.theirs].map(|v| count(v.text));
    count(merged).iter().all(|(placed, &n)| {
        let [b, o, t] = [&base, &ours, &theirs].map(|c| c.get(placed).copied().unwrap_or(0));
        n <= o.max(t).max((o + t).saturating_sub(b))
    })
}

/// Whether each control line of each conflict side of a merged skeleton stands there no more
/// often than a 3-way merge of the versions' control lines can hold it: a line base has `b`
/// times, ours `o` and theirs `t` up to `o + t - b` times (each side's added copies), and
/// never fewer than either side's count allows. Where it is more, the side renders a block
/// twice that every version has once.
fn no_side_adds_a_control(skeleton: &str, versions: &Versions, size: usize) -> bool {
    let count = |text: &str| {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for line in controls(text) {
            *counts.entry(line).or_default() += 1;
        }
        counts
    };
    let [base, ours, theirs] =
        [&versions.base, &versions.ours, &versions.theirs].map(|v| count(v.text));
    markers::sides(skeleton, size).iter().all(|side| {
        count(side).iter().all(|(line, &n)| {
            let [b, o, t] = [&base, &ours, &theirs].map(|c| c.get(line).copied().unwrap_or(0));
            n <= o.max(t).max((o + t).saturating_sub(b))
        })
    })
}

/// Whether each conflict side of a merged skeleton holds its control lines in an order one
/// version or a 3-way merge of theirs has ([`controls_in_every_order`]): the counts alone
/// pass a side that keeps every line but moved a key into a block below the block's `if`
/// and left the key that was in it above, so the block's `end` stands above its `if`,
/// closes the block around the document and leaves the key between unguarded.
fn sides_keep_control_order(skeleton: &str, versions: &Versions, size: usize) -> bool {
    let order =
        controls_in_every_order(versions.base.text, versions.ours.text, versions.theirs.text);
    markers::sides(skeleton, size)
        .iter()
        .all(|side| only_added(&controls(side), &order))
}

/// Why the skeletons' merge was not settled: what it would do wrong (for the reason the line
/// merge is used), or another failure.
enum Settle {
    Refused(String),
    Failed(Attempt),
}

impl From<Reason> for Settle {
    fn from(reason: Reason) -> Settle {
        Settle::Failed(reason.into())
    }
}

/// The three skeletons merged by structure and checked, the tokens put back: clean where the
/// data and the control lines (`expected`, `None` where both sides changed them at one
/// place) hold, else the conflicts marked, or git's markers (`git_conflicts`) where they
/// enclose no more.
fn merge_skeletons(
    versions: &Versions,
    tokens: &mut Tokens,
    expected: Expected,
    git_conflicts: Option<LineMerge>,
    mut messages: Vec<Message>,
    opts: &MergeOptions,
) -> Result<Outcome, Settle> {
    let refused = |what: &str| Settle::Refused(what.to_string());
    let whole = expected.whole;
    let Some(expected) = expected.controls else {
        return Err(refused(
            "would guess: both sides changed its control lines at one place",
        ));
    };
    let mut merged = engine::merged(versions, opts)?;
    let text = tokens
        .unmask(&merged.text)
        .ok_or_else(|| Reason::Internal("a template token without its text".into()))?;
    if merged.conflicts.is_empty() {
        if !matches!(
            verify::check_text(versions, &merged.text, opts.policy),
            Verdict::Holds
        ) {
            return Err(refused("fails the check of its data"));
        }
        if controls(&merged.text) != expected {
            return Err(refused("would misplace its control lines"));
        }
        if !controls_stay_in_place(&merged.text, versions, tokens) {
            return Err(refused("would move a control line under another key"));
        }
        // Control lines in order and under the same keys can still close a block above a
        // key both sides keep inside it (each side moved another item into the block), or
        // take one side's deletion of a list the other moved into a block.
        if let Some(why) = loses_a_guard_change(versions, tokens, &merged.text, opts.policy) {
            return Err(refused(&format!(
                "would move a key into or out of a block ({why})"
            )));
        }

        // Nor is a key a side changed beside one every version keeps in its block safe from
        // the comment pass: one side's reordered keys carry an `end` that trailed the last of
        // them above another key of the block (templates-mark-1144-2550). The check asked
        // above is left out where a side added control lines; this one reads no key a side
        // moved, wrapped or deleted.
        let texts = [versions.base.text, versions.ours.text, versions.theirs.text];
        if !keeps_unmoved_guards(tokens, &merged.text, texts) {
            return Err(refused(
                "would move a key every version keeps in a block out of it",
            ));
        }
        if !keeps_guard_moves(tokens, &merged.text, texts) {
            return Err(refused(
                "would move a key back into or out of a block a side moved it out of or into",
            ));
        }
        // Under a policy a value both sides changed is taken whole from the side it favours,
        // blocks and all; the reading that knows so ([`loses_a_guard_change`]) is off where a
        // side added block lines, and [`keeps_guard_moves`] keeps a move by mark mode's rules.
        // So where the other side moved a key into or out of a block there, no check tells
        // whether its move was taken whole away: git's line merge decides, read by mark
        // mode's rules (adversary templates-theirs-1292-946: ours moved `hostname` out of its
        // `if` and copied the document, theirs reordered the same endpoint's list, and the
        // clean merge took theirs' list with ours' move in it).
        let loser = match opts.policy {
            Policy::Mark => None,
            Policy::Theirs => Some([texts[0], texts[1], texts[2]]),
            Policy::Ours => Some([texts[0], texts[2], texts[1]]),
        };
        if let Some(loser) = loser {
            if !sides_only_reorder_or_drop_controls(versions, tokens)
                && moves_a_guard(tokens, loser)
            {
                return Err(refused(
                    "cannot tell whether the side the policy overrules keeps its move of a key \
                     into or out of a block",
                ));
            }
        }

        if let Some(why) = loses_written_text(versions, tokens, &merged.text, opts.policy) {
            return Err(refused(&format!(
                "loses a change read with its action lines that write text as keys ({why})"
            )));
        }

        let resolved = git_conflicts
            .as_ref()
            .map_or(0, |line| conflict_hunks(&line.bytes, opts.marker_size));
        messages.extend(
            merged
                .notes
                .iter()
                .map(|n| Message::Note(tokens.unmask(n).unwrap_or_else(|| n.clone()))),
        );
        return Ok(clean(text.into_bytes(), messages, resolved));
    }
    // A conflicted result loses no control line: each one due is somewhere in it.
    let mut held = controls(&merged.text);
    let all_there = expected
        .iter()
        .all(|c| match held.iter().position(|h| h == c) {
            Some(i) => {
                held.swap_remove(i);
                true
            }
            None => false,
        });
    let planned = merged.planned_side.take();
    if !all_there
        || !skeleton_sides_hold(
            versions,
            tokens,
            &merged.text,
            opts.marker_size,
            whole,
            planned,
        )
    {
        return Err(refused("would lose control lines or leave invalid YAML"));
    }
    if !sides_hold_by_content(versions, tokens, &merged.text, opts.marker_size) {
        return Err(refused(
            "has a conflict side that loses a change read with its action lines that write text as keys",
        ));
    }
    // Control lines are comments to the engine, so the comment pass can carry one with the
    // key it follows: a block's `end` that trailed a map a side deleted lands above a key
    // every version keeps inside the block, and taking either side renders it unguarded.
    let texts = [versions.base.text, versions.ours.text, versions.theirs.text];
    if !markers::sides(&merged.text, opts.marker_size)
        .iter()
        .all(|side| keeps_unmoved_guards(tokens, side, texts))
    {
        return Err(refused(
            "has a conflict side that moves a key every version keeps in a block out of it",
        ));
    }
    // Conflicts are named in the template's own text, not its tokens.
    let shown = |s: &str| tokens.unmask(s).unwrap_or_else(|| s.to_string());
    let conflicts: Vec<merge::Conflict> = merged
        .conflicts
        .iter()
        .map(|c| merge::Conflict {
            resource: shown(&c.resource),
            path: shown(&c.path),
            what: shown(&c.what),
        })
        .collect();
    // A template's conflict marked by structure holds its control lines too: git's markers
    // are kept unless they are wider, or a side of them is not a skeleton that parses (git
    // may have merged a moved line next to the conflict into both sides).
    if let Some(line) = git_conflicts {
        let size = opts.marker_size;
        let git_sides_hold = std::str::from_utf8(&line.bytes)
            .ok()
            .and_then(|text| tokens.mask(text))
            .is_some_and(|masked| {
                skeleton_sides_hold(versions, tokens, &masked, size, whole, None)
                    && sides_hold_by_content(versions, tokens, &masked, size)
                    && no_side_adds_a_control(&masked, versions, size)
                    && sides_keep_control_order(&masked, versions, size)
                    && sides_lose_a_guard(versions, tokens, &masked, size).is_none()
            });
        if marked_lines(&line.bytes, size) <= marked_lines(text.as_bytes(), size) && git_sides_hold
        {
            return Ok(Outcome {
                bytes: line.bytes,
                conflicted: true,
                fallback: None,
                messages: conflict_messages(&conflicts),
                resolved_hunks: 0,
                git_markers_kept: false,
            });
        }
    }
    // Each control line due is somewhere in the result, but a side may hold one more often
    // than the versions allow: the comment pass kept a block's lines where ours left them
    // empty (ours moved its element out) and wrote theirs' edited element in a copy of the
    // block, so taking either side renders the block twice and drops ours' move (adversary
    // templates-mark-1137-854).
    if !no_side_adds_a_control(&merged.text, versions, opts.marker_size) {
        return Err(refused(
            "has a conflict side that holds a control line more often than any version adds it",
        ));
    }
    // Each side holds its control lines as often as a merge may, but their order can still
    // be one no version has: theirs moved a key into a block below its `if` and the
    // structural merge left the block's key above it, the `end` above the `if`.
    if !sides_keep_control_order(&merged.text, versions, opts.marker_size) {
        return Err(refused(
            "has a conflict side that holds its control lines in an order no version has",
        ));
    }
    if !sides_keep_guard_additions(versions, tokens, &merged.text, opts.marker_size) {
        return Err(refused(
            "has a conflict side that puts a key a side added in a block outside it",
        ));
    }
    if let Some(why) = sides_lose_a_guard(versions, tokens, &merged.text, opts.marker_size) {
        return Err(refused(&format!(
            "has a conflict side that moves a key into or out of a block ({why})"
        )));
    }
    Ok(conflicted(
        Merged {
            text,
            conflicts,
            notes: Vec::new(),
            planned_side: None,
        },
        messages,
    ))
}
