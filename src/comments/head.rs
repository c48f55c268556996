//! The comment and blank lines above a field (and the standalone runs that open a
//! collection or close a template's block): a 3-way merge of the versions' lines.

use crate::options::Policy;
use crate::text::line_end;
use crate::text::splice::Edit;
use crate::text::{diff3, Chunk};

use super::layout::{HeadLine, Layout, Spot};
use super::pick;

/// What heads are compared by.
fn keys<'a>(h: &[HeadLine<'a>]) -> Vec<(isize, &'a str)> {
    h.iter().map(HeadLine::key).collect()
}

/// The comment lines at the result's `spot` (`partners`: the same spot in base, ours,
/// theirs, `Some(None)` when absent, `None` when unknown), decided and written.
pub(super) fn decide_head(
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
    // Right below a block scalar kept with `+`, a blank line would join that scalar's value:
    // the head there starts at its first comment line.
    let run = r.run(spot);
    if run.start > 0 && r.ends_kept_scalar(run.start - 1) {
        let blank = target
            .iter()
            .take_while(|h| h.text.trim().is_empty())
            .count();
        target.drain(..blank);
    }
    if eof {
        let kept = now.len() - trim(eof, now.clone()).len();
        target.extend_from_slice(&now[now.len() - kept..]);
    }
    if keys(&now) == keys(&target) {
        return;
    }
    let indent = r.reference(spot) as isize;
    // Right below a block scalar, a comment line indented past its header's line would be
    // its content (ours' comment below a field theirs deleted, carried to where it ends).
    let limit = (run.start > 0)
        .then(|| r.comment_column_below(run.start - 1))
        .flatten();
    let eol = r.tree.eol;
    let mut text = String::new();
    let at_eof_without_break = eof && !r.tree.text.ends_with('\n');
    for h in &target {
        if at_eof_without_break {
            text.push_str(eol);
        }
        if !h.text.trim().is_empty() {
            let col = (indent + h.rel).max(0) as usize;
            let col = limit.map_or(col, |limit| col.min(limit));
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
