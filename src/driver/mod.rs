//! The policy that makes kmerge safe to run inside `git merge`: never worse than git, never
//! lose data.
//!
//! In `mark` mode git's line merge runs first; when it is clean (and adds no duplicate that no
//! input had) its bytes are the answer, since git's text carries both sides' edits verbatim.
//! Otherwise the structural merge decides. Anything the structural merge cannot handle — an
//! input it does not take, a bug, a panic — ends in git's line merge with a one-line reason.

mod documents;

pub(crate) use documents::by_documents;

use std::panic::{catch_unwind, AssertUnwindSafe};

use anyhow::Result;

use crate::fallback::Reason;
use crate::git::line_merge::{is_binary, line_merge, LineMerge};
pub use crate::merge::Conflict;
use crate::options::{ConflictStyle, MergeOptions, Mode, Policy};
use crate::parse::{self, Parsed, Side, Versions};
use crate::text::markers::{self, conflict_hunks, has_marker_lines, marked_lines, Markers};
use crate::verify::{self, line_result_is_sound, reads_back, Finding, Verdict};
use crate::{merge, render, template};

/// The merged bytes, whether conflicts remain in them, and the lines for stderr.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub bytes: Vec<u8>,
    pub conflicted: bool,
    /// Why git's line merge was used instead of the structural merge, if it was.
    pub fallback: Option<Reason>,
    /// One line each: why the line fallback was used, or a conflict and where it is.
    pub messages: Vec<String>,
    /// How many conflicting hunks git's line merge left that the structural merge resolved:
    /// all of them when its result is clean, else 0 (and always 0 where the line merge was
    /// not run first, outside `mark` mode). The command line tells the user so, since git's
    /// own output would not show that kmerge did anything.
    pub resolved_hunks: usize,
    /// Whether git's conflicting line merge was kept over the structural merge's conflicts,
    /// since it marks fewer lines and either side of it holds: a caller that merged a part
    /// of the file ([`by_documents`]) leaves that call to the whole file's merge.
    pub(crate) git_markers_kept: bool,
}

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
        (Side::Base, base),
        (Side::Ours, ours),
        (Side::Theirs, theirs),
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

/// The note for a conflicted result that keeps git's markers, narrower than the structural
/// merge's and holding whichever side is taken ([`Outcome::git_markers_kept`]).
const GIT_MARKERS_KEPT: &str =
    "git's line merge marks fewer lines than the structural merge would, and either side of it holds: its markers are kept";

/// Why a structural attempt ended without an outcome.
pub(crate) enum Attempt {
    /// The structural merge stood aside: git's line merge, with this reason.
    Refused(Reason),
    /// Git's own line merge failed: nothing can merge the file.
    LineMerge(anyhow::Error),
}

impl From<Reason> for Attempt {
    fn from(reason: Reason) -> Attempt {
        Attempt::Refused(reason)
    }
}

/// Git's clean result where the check accepts it, else the structural merge (checked in
/// turn), with git's markers kept where they are much narrower than the structural ones.
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
    if let Err(reason @ Reason::Template { .. }) = versions {
        let line = line.map(|merged| merged.map(|(line, _)| line));
        return by_template([base, ours, theirs], opts, reason, line);
    }
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
                Verdict::Broken(violations) => messages.push(format!(
                    "git's clean line merge is wrong as data ({}): merged by structure",
                    violations[0]
                )),
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
                messages.extend(merged.notes);
                return Ok(clean(merged.text.into_bytes(), messages, resolved));
            }
            Verdict::Broken(violations) => violations,
        };
        messages.push(format!(
            "kmerge's check rejected its own clean merge ({}), a bug in kmerge (please report it): marked as a conflict",
            violations[0]
        ));
        forced = wider(&forced, &violations);
        merged = match planned_with_conflicts_at(&versions, opts, &forced) {
            Ok(m) if !m.conflicts.is_empty() => m,
            _ => {
                return Ok(last_resort(
                    base,
                    ours,
                    theirs,
                    opts,
                    git_conflicts,
                    messages,
                ))
            }
        };
    }
    let size = opts.marker_size;
    let checked = widened(&versions, opts, merged, forced);
    // Git's markers count only where they hold whichever side is taken (checked only where
    // they would be used: two more parses of a large file otherwise).
    let git_holds =
        |line: &LineMerge| verify::sides_hold(&versions, &line.bytes, size, None).is_ok();
    let merged = match checked {
        Ok((merged, widenings)) => {
            messages.extend(widenings);
            merged
        }
        Err(why) => {
            messages.push(format!(
                "kmerge's conflicts would lose data whichever side is taken ({why}), a bug in kmerge (please report it): git's result used"
            ));
            let git = git_conflicts.filter(|line| git_holds(line));
            return Ok(last_resort(base, ours, theirs, opts, git, messages));
        }
    };
    // Never worse than git: where git's markers hold too and enclose fewer lines (a list
    // both sides reshuffled can be narrower line by line than element by element), git's
    // result is kept; otherwise the field-shaped markers are.
    if let Some(line) = git_conflicts {
        if marked_lines(&line.bytes, size) < marked_lines(merged.text.as_bytes(), size)
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
        merged = planned_with_conflicts_at(versions, opts, &forced).map_err(|e| e.to_string())?;
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

/// [`planned_and_rendered`] with a conflict marked at each of `forced`.
fn planned_with_conflicts_at(
    versions: &Versions,
    opts: &MergeOptions,
    forced: &[(String, String)],
) -> Result<Merged, Reason> {
    let plan = merge::plan_with_conflicts_at(versions, opts, forced)?;
    let rendered = render::render(versions, &plan, opts)?;
    Ok(Merged {
        text: rendered.text,
        conflicts: plan.conflicts,
        notes: [plan.notes, rendered.notes].concat(),
        planned_side: rendered.planned_side,
    })
}

/// A Helm/Go template, merged as its skeleton ([`template`]): git's clean line merge where the
/// check accepts it on the skeleton (or where the skeleton cannot be read, as before), else
/// the skeletons merged by structure and checked — data by the verifier, control lines by
/// their own 3-way merge — with the tokens put back. Whatever cannot be settled that way is
/// git's line merge, with `reason`; except where git's line merge was clean and the check
/// found it wrong: git's result would pass as clean, so the whole file is a conflict instead.
/// `line` is git's line merge, run alongside the parse (`None` outside `mark` mode).
fn by_template(
    [base, ours, theirs]: [&str; 3],
    opts: &MergeOptions,
    reason: Reason,
    line: Option<Result<LineMerge>>,
) -> Result<Outcome, Attempt> {
    let unsettled = |what: &str| -> Attempt {
        Reason::Unsupported(format!("{reason}; its structural merge {what}")).into()
    };
    let Some(mut skeletons) = template::Skeletons::read(base, ours, theirs) else {
        return Err(unsettled(
            "cannot start: an action is left open across lines with text after it",
        ));
    };
    let (sb, so, st) = (
        std::mem::take(&mut skeletons.base),
        std::mem::take(&mut skeletons.ours),
        std::mem::take(&mut skeletons.theirs),
    );
    let versions = match Versions::parse(&sb, &so, &st).map(|v| v.named(opts.file_name.as_deref()))
    {
        Ok(versions) => versions,
        Err(why) => {
            let why = Reason::from(why);
            return Err(unsettled(&format!("cannot start: as a skeleton, {why}")));
        }
    };
    let expected = template::merged_controls(&skeletons.tokens, &sb, &so, &st);
    // Whether the versions' blocks are whole: then so must be each side of a conflict.
    let whole = [&sb, &so, &st]
        .iter()
        .all(|s| skeletons.tokens.whole_blocks(&template::controls(s)));
    let tokens = &mut skeletons.tokens;
    let mut messages = Vec::new();
    let mut git_conflicts = None;
    // How git's clean line merge is wrong as data, where the check found it so.
    let mut git_wrong = None;
    if let Some(line) = line {
        let line = line.map_err(Attempt::LineMerge)?;
        if !line.conflicted {
            let text = std::str::from_utf8(&line.bytes).unwrap_or_default();
            // Where git's result cannot be read as a skeleton, it stands, as before.
            let Some(masked) = tokens.mask(text) else {
                return Ok(clean(line.bytes, messages, 0));
            };
            let controls_hold = expected.as_ref() == Some(&template::controls(&masked));
            let (doubt, wrong) = match verify::check_text(&versions, &masked, opts.policy) {
                Verdict::Holds if controls_hold => return Ok(clean(line.bytes, messages, 0)),
                // Where the rules cannot pair the skeletons, git's result stands if it
                // repeats nothing no input repeats, as for plain YAML.
                Verdict::Unsure if verify::line_result_is_sound(&sb, &so, &st, &masked) => {
                    return Ok(clean(line.bytes, messages, 0))
                }
                Verdict::Unsure => (
                    "repeats a key, a resource or an element name no input repeats".to_string(),
                    true,
                ),
                Verdict::Broken(v) if v[0].finding == Finding::Unparsable => {
                    return Ok(clean(line.bytes, messages, 0))
                }
                Verdict::Holds => (
                    "of the template misplaces its control lines".to_string(),
                    false,
                ),
                Verdict::Broken(violations) => {
                    (format!("is wrong as data ({})", violations[0]), true)
                }
            };
            messages.push(format!(
                "git's clean line merge {doubt}: merged by structure"
            ));
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
    let expected = Expected {
        controls: expected,
        whole,
    };
    let settled = merge_skeletons(&versions, tokens, expected, git_conflicts, messages, opts)
        .map_err(|what| match what {
            Settle::Refused(what) => unsettled(&what),
            Settle::Failed(attempt) => attempt,
        });
    match (settled, git_wrong) {
        (Err(Attempt::Refused(why)), Some(wrong)) => {
            let messages = vec![
                format!("line merge used: {why}"),
                format!("git's clean line merge {wrong}: marked as a conflict"),
            ];
            let mut outcome = last_resort(base, ours, theirs, opts, None, messages);
            outcome.fallback = Some(why);
            Ok(outcome)
        }
        (settled, _) => settled,
    }
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
fn skeleton_sides_hold(
    versions: &Versions,
    tokens: &template::Tokens,
    skeleton: &str,
    size: usize,
    whole: bool,
    planned: Option<render::PlannedSide>,
) -> bool {
    verify::sides_hold(versions, skeleton.as_bytes(), size, planned).is_ok()
        && (!whole
            || markers::sides(skeleton, size)
                .iter()
                .all(|side| tokens.whole_blocks(&template::controls(side))))
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
    tokens: &mut template::Tokens,
    expected: Expected,
    git_conflicts: Option<LineMerge>,
    mut messages: Vec<String>,
    opts: &MergeOptions,
) -> Result<Outcome, Settle> {
    let refused = |what: &str| Settle::Refused(what.to_string());
    let whole = expected.whole;
    let Some(expected) = expected.controls else {
        return Err(refused(
            "would guess: both sides changed its control lines at one place",
        ));
    };
    let mut merged = structural(versions, opts)?;
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
        if template::controls(&merged.text) != expected {
            return Err(refused("would misplace its control lines"));
        }
        let resolved = git_conflicts
            .as_ref()
            .map_or(0, |line| conflict_hunks(&line.bytes, opts.marker_size));
        messages.extend(
            merged
                .notes
                .iter()
                .map(|n| tokens.unmask(n).unwrap_or_else(|| n.clone())),
        );
        return Ok(clean(text.into_bytes(), messages, resolved));
    }
    // A conflicted result loses no control line: each one due is somewhere in it.
    let mut held = template::controls(&merged.text);
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

/// A clean outcome, which resolved `resolved_hunks` conflicts of git's line merge.
fn clean(bytes: Vec<u8>, messages: Vec<String>, resolved_hunks: usize) -> Outcome {
    Outcome {
        bytes,
        conflicted: false,
        fallback: None,
        messages,
        resolved_hunks,
        git_markers_kept: false,
    }
}

/// The structural result with its conflicts, each named on a line of its own.
fn conflicted(merged: Merged, mut messages: Vec<String>) -> Outcome {
    messages.extend(conflict_messages(&merged.conflicts));
    messages.extend(merged.notes);
    Outcome {
        conflicted: !merged.conflicts.is_empty(),
        bytes: merged.text.into_bytes(),
        fallback: None,
        messages,
        resolved_hunks: 0,
        git_markers_kept: false,
    }
}

fn conflict_messages(conflicts: &[Conflict]) -> Vec<String> {
    conflicts
        .iter()
        .map(|c| format!("conflict in {} at {}: {}", c.resource, c.path, c.what))
        .collect()
}

/// Where the structural result cannot be used and git's line merge is clean but wrong: git's
/// conflicting merge if it has one, else the whole file in conflict, ours against theirs.
fn last_resort(
    base: &str,
    ours: &str,
    theirs: &str,
    opts: &MergeOptions,
    git_conflicts: Option<LineMerge>,
    messages: Vec<String>,
) -> Outcome {
    if let Some(line) = git_conflicts {
        return Outcome {
            bytes: line.bytes,
            conflicted: true,
            fallback: None,
            messages,
            resolved_hunks: 0,
            git_markers_kept: false,
        };
    }
    let eol = if ours.contains("\r\n") { "\r\n" } else { "\n" };
    let l = &opts.labels;
    let markers = Markers {
        size: opts.marker_size,
        labels: [&l.base, &l.ours, &l.theirs],
        diff3: opts.style != ConflictStyle::Merge,
        eol,
    };
    Outcome {
        bytes: markers.wrap(ours, base, theirs).into_bytes(),
        conflicted: true,
        fallback: None,
        messages,
        resolved_hunks: 0,
        git_markers_kept: false,
    }
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
    let mut messages = vec![format!("line merge used: {reason}")];
    // Exit 0 still means nothing was lost: a clean line merge of YAML inputs that no longer
    // parses, or repeats something no input repeated (an alias without its anchor, two
    // insertions of one key), is marked a conflict, the whole file ours against theirs. So
    // is a conflict of git's whose ours or theirs side would do that: a person taking it
    // would get a file that does not load (git's markers then do not hold, and any
    // conflict that does may mark more lines).
    if let (Ok(b), Ok(o), Ok(t), Ok(merged)) = (
        std::str::from_utf8(base),
        std::str::from_utf8(ours),
        std::str::from_utf8(theirs),
        std::str::from_utf8(&line.bytes),
    ) {
        let broken = match line.conflicted {
            false => (!line_result_is_sound(b, o, t, merged)).then_some(
                "git's clean line merge breaks the YAML or repeats a key: marked as a conflict",
            ),
            true => markers::sides(merged, opts.marker_size)
                .iter()
                .any(|side| !line_result_is_sound(b, o, t, side))
                .then_some("a side of git's conflicts breaks the YAML or repeats a key: the whole file marked as a conflict"),
        };
        if let Some(why) = broken {
            messages.push(why.into());
            let mut outcome = last_resort(b, o, t, opts, None, messages);
            outcome.fallback = Some(reason);
            return Ok(outcome);
        }
    }
    Ok(Outcome {
        bytes: line.bytes,
        conflicted: line.conflicted,
        messages,
        fallback: Some(reason),
        resolved_hunks: 0,
        git_markers_kept: false,
    })
}

/// The structural result: the merged text and the conflicts marked in it.
#[derive(Clone, Debug)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Conflict>,
    /// What the user should know about the result, one line each (theirs' comment edits
    /// that overlapped ours' and were not taken).
    pub notes: Vec<String>,
    /// Ours' side of a conflicted result before the comment pass edited it, where it did:
    /// the check of the conflict's sides holds ours' side to it ([`verify::sides_hold`]).
    pub(crate) planned_side: Option<render::PlannedSide>,
}

/// Plans the merge of the parsed versions and writes it into ours' text.
pub(crate) fn structural(versions: &Versions, opts: &MergeOptions) -> Result<Merged, Reason> {
    let (merged, tree) = planned_and_rendered(versions, opts)?;
    if merged.conflicts.is_empty() {
        reads_back(&merged.text, tree)?;
    }
    Ok(merged)
}

/// [`structural`] without reading a clean result back: for a caller that parses it itself.
fn planned_and_rendered(
    versions: &Versions,
    opts: &MergeOptions,
) -> Result<(Merged, Option<Parsed>), Reason> {
    let plan = merge::plan(versions, opts)?;
    let rendered = render::render(versions, &plan, opts)?;
    let merged = Merged {
        text: rendered.text,
        conflicts: plan.conflicts,
        notes: [plan.notes, rendered.notes].concat(),
        planned_side: rendered.planned_side,
    };
    Ok((merged, rendered.tree))
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
    structural(&versions, &opts)
}
