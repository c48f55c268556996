//! What an attempt at a file gives the driver: an outcome (bytes, conflicts, the lines for
//! stderr), or why it stood aside; and the outcomes every attempt builds alike.

use crate::engine::Merged;
use crate::fallback::Reason;
use crate::git::line_merge::LineMerge;
use crate::merge::Conflict;
use crate::options::{ConflictStyle, MergeOptions};
use crate::text::markers::Markers;

/// One line for stderr about a merged file, and what it is: a caller counts and filters the
/// lines by their kind, never by their words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// Names one conflict left in the result: where it is, and why.
    Conflict(String),
    /// Anything else: why git's line merge was used, what a widening or a reading did.
    Note(String),
}

impl Message {
    /// The line's words.
    pub fn text(&self) -> &str {
        match self {
            Message::Conflict(text) | Message::Note(text) => text,
        }
    }

    /// The same line, its words prefixed (a package names the file each line is about).
    pub(crate) fn prefixed(self, prefix: &str) -> Message {
        match self {
            Message::Conflict(text) => Message::Conflict(format!("{prefix}{text}")),
            Message::Note(text) => Message::Note(format!("{prefix}{text}")),
        }
    }
}

impl std::fmt::Display for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.text())
    }
}

/// A note: most lines are.
impl From<String> for Message {
    fn from(text: String) -> Message {
        Message::Note(text)
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Message {
        Message::Note(text.to_string())
    }
}

/// Notes (a merge's, a widening's) as lines for stderr.
pub(crate) fn notes(notes: Vec<String>) -> impl Iterator<Item = Message> {
    notes.into_iter().map(Message::Note)
}

/// The merged bytes, whether conflicts remain in them, and the lines for stderr.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub bytes: Vec<u8>,
    pub conflicted: bool,
    /// Why git's line merge was used instead of the structural merge, if it was.
    pub fallback: Option<Reason>,
    /// One line each: why the line fallback was used, or a conflict and where it is.
    pub messages: Vec<Message>,
    /// How many conflicting hunks git's line merge left that the structural merge resolved:
    /// all of them when its result is clean, else 0 (and always 0 where the line merge was
    /// not run first, outside `mark` mode). The command line tells the user so, since git's
    /// own output would not show that kmerge did anything.
    pub resolved_hunks: usize,
    /// Whether git's conflicting line merge was kept over the structural merge's conflicts,
    /// since it marks fewer lines and either side of it holds: a caller that merged a part
    /// of the file ([`crate::driver::by_documents`]) leaves that call to the whole file's merge.
    pub(crate) git_markers_kept: bool,
}

/// Why an attempt ended without an outcome.
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

/// A clean outcome, which resolved `resolved_hunks` conflicts of git's line merge.
pub(crate) fn clean(bytes: Vec<u8>, messages: Vec<Message>, resolved_hunks: usize) -> Outcome {
    Outcome {
        bytes,
        conflicted: false,
        fallback: None,
        messages,
        resolved_hunks,
        git_markers_kept: false,
    }
}

/// Git's line merge (or the driver's conflict over it) as the answer, `reason` saying why the
/// structural merge stood aside.
pub(crate) fn fell_back(
    bytes: Vec<u8>,
    conflicted: bool,
    reason: Reason,
    messages: Vec<Message>,
) -> Outcome {
    Outcome {
        bytes,
        conflicted,
        fallback: Some(reason),
        messages,
        resolved_hunks: 0,
        git_markers_kept: false,
    }
}

/// The structural result with its conflicts, each named on a line of its own.
pub(crate) fn conflicted(merged: Merged, mut messages: Vec<Message>) -> Outcome {
    messages.extend(conflict_messages(&merged.conflicts));
    messages.extend(notes(merged.notes));
    Outcome {
        conflicted: !merged.conflicts.is_empty(),
        bytes: merged.text.into_bytes(),
        fallback: None,
        messages,
        resolved_hunks: 0,
        git_markers_kept: false,
    }
}

/// One line for each conflict, naming where it is.
pub(crate) fn conflict_messages(conflicts: &[Conflict]) -> Vec<Message> {
    conflicts
        .iter()
        .map(|c| {
            Message::Conflict(format!(
                "conflict in {} at {}: {}",
                c.resource, c.path, c.what
            ))
        })
        .collect()
}

/// The markers a conflict of the driver's own is written with: git's size, labels and style,
/// and ours' line ending.
pub(crate) fn written_markers<'a>(opts: &'a MergeOptions, ours: &str) -> Markers<'a> {
    let l = &opts.labels;
    Markers {
        size: opts.marker_size,
        labels: [&l.base, &l.ours, &l.theirs],
        diff3: opts.style != ConflictStyle::Merge,
        eol: if ours.contains("\r\n") { "\r\n" } else { "\n" },
    }
}

/// Where the structural result cannot be used and git's line merge is clean but wrong: git's
/// conflicting merge if it has one, else the whole file in conflict, ours against theirs.
pub(crate) fn last_resort(
    base: &str,
    ours: &str,
    theirs: &str,
    opts: &MergeOptions,
    git_conflicts: Option<LineMerge>,
    messages: Vec<Message>,
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
    Outcome {
        bytes: written_markers(opts, ours)
            .wrap(ours, base, theirs)
            .into_bytes(),
        conflicted: true,
        fallback: None,
        messages,
        resolved_hunks: 0,
        git_markers_kept: false,
    }
}
