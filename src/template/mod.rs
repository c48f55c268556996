//! Helm chart templates merged by structure: each version read as a YAML skeleton
//! ([`mask`]), the skeletons merged and checked by the ordinary engine, the tokens put back.
//!
//! The control lines (`{{- if }}`, `{{- end }}`, `{{- toYaml … }}`) are comments to the engine,
//! so their merge is checked on its own: the control lines of a clean result must be the 3-way
//! merge of the three versions' control lines, in order; where both sides changed the control
//! lines of one place, no merge is guessed.

mod attempt;
mod documents;
mod mask;

use crate::text::diff3::stretches;
use crate::text::{diff3, Chunk};

pub(crate) use attempt::{
    attempt, clean_holds, clean_holds_by_documents, with_conflict_check, with_placements,
    with_sound_sides,
};
pub(crate) use documents::{by_documents, drops_a_document, holds_fewer_documents};
pub(crate) use mask::Tokens;

/// The three versions of a template as skeletons, with the texts behind their tokens.
pub(crate) struct Skeletons {
    pub tokens: Tokens,
    pub base: String,
    pub ours: String,
    pub theirs: String,
}

impl Skeletons {
    /// Masks the three versions; `None` if one holds what the masking does not cover.
    pub(crate) fn read(base: &str, ours: &str, theirs: &str) -> Option<Skeletons> {
        let mut tokens = Tokens::default();
        let base = tokens.mask(base)?;
        let ours = tokens.mask(ours)?;
        let theirs = tokens.mask(theirs)?;
        Some(Skeletons {
            tokens,
            base,
            ours,
            theirs,
        })
    }
}

/// The control lines a merge of the three skeletons must hold: the 3-way merge of their
/// control lines, or `None` where both sides changed one stretch of them differently. Two
/// changes of one stretch merge only where they cannot part: one side's change holds the
/// other's whole, or both sides only added whole guarded blocks at one place (ours' first,
/// as git orders the two sides of a conflict; the skeletons' merge must then place them so).
pub(crate) fn merged_controls(
    tokens: &Tokens,
    base: &str,
    ours: &str,
    theirs: &str,
) -> Option<Vec<String>> {
    let [b, o, t] = [base, ours, theirs].map(mask::controls);
    let mut out = Vec::new();
    for chunk in diff3(&b, &o, &t) {
        match chunk {
            Chunk::Same { ours } | Chunk::Ours { ours } | Chunk::Both { ours, .. } => {
                out.extend_from_slice(&o[ours])
            }
            Chunk::Theirs { theirs, .. } => out.extend_from_slice(&t[theirs]),
            Chunk::Conflict { base, ours, theirs } => {
                let (bs, os, ts) = (&b[base], &o[ours], &t[theirs]);
                if only_added(bs, ts) && holds_run(os, ts) {
                    out.extend_from_slice(os);
                } else if only_added(bs, os) && holds_run(ts, os) {
                    out.extend_from_slice(ts);
                } else if bs.is_empty() && tokens.whole_blocks(os) && tokens.whole_blocks(ts) {
                    out.extend_from_slice(os);
                    out.extend_from_slice(ts);
                } else {
                    return None;
                }
            }
        }
    }
    Some(out)
}

/// The control lines of the three skeletons in one order that holds each version's and each
/// 3-way merge's: every stretch of their diff3 as base has it, then ours' lines where ours
/// changed it, then theirs' where theirs changed it differently. A conflict side whose control
/// lines are no subsequence of it stands them in an order no version nor merge of them has: a
/// block's `end` above its `if` closes another block, and the text between renders unguarded.
pub(crate) fn controls_in_every_order(base: &str, ours: &str, theirs: &str) -> Vec<String> {
    let [b, o, t] = [base, ours, theirs].map(mask::controls);
    let mut out = Vec::new();
    for stretch in stretches(&b, &o, &t) {
        let (bs, os, ts) = (&b[stretch.base], &o[stretch.ours], &t[stretch.theirs]);
        out.extend_from_slice(bs);
        if os != bs {
            out.extend_from_slice(os);
        }
        if ts != bs && ts != os {
            out.extend_from_slice(ts);
        }
    }
    out
}

/// Whether `after` is `before` with lines added (before's lines in order, none changed).
pub(super) fn only_added(before: &[String], after: &[String]) -> bool {
    let mut rest = after.iter();
    before.iter().all(|line| rest.any(|l| l == line))
}

/// Whether `run` stands whole, in order and unbroken, inside `lines`: one side's change that
/// the other side's change of the same stretch holds entirely (it made it too, and more).
fn holds_run(lines: &[String], run: &[String]) -> bool {
    run.is_empty() || lines.windows(run.len()).any(|w| w == run)
}

/// The control lines of a skeleton, in order.
pub(crate) fn controls(skeleton: &str) -> Vec<String> {
    mask::controls(skeleton)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| l.to_string()).collect()
    }

    /// One side's change of a stretch of control lines that the other side's change holds
    /// whole merges to the larger change; changes that part ways do not merge.
    #[test]
    fn a_change_the_other_side_made_too_merges_to_the_larger() {
        let b = lines(&["if a", "end"]);
        let t = lines(&["if a", "end", "with s", "end"]);
        let o = lines(&["if a", "end", "with s", "end", "with v", "end"]);
        assert!(only_added(&b, &t) && holds_run(&o, &t));
        assert!(only_added(&b, &o) && !holds_run(&t, &o));
        // Theirs' lines in another order inside ours': not theirs' change.
        let shuffled = lines(&["if a", "end", "with v", "with s", "end", "end"]);
        assert!(!holds_run(&shuffled, &t));
        // A base line changed, not only lines added.
        assert!(!only_added(&b, &lines(&["if b", "end", "with s", "end"])));
    }

    #[test]
    fn control_lines_of_skeletons_merge_or_refuse() {
        let skeleton = |tokens: &mut mask::Tokens, t: &str| tokens.mask(t).expect("masks");
        let mut tokens = mask::Tokens::default();
        let base = skeleton(&mut tokens, "a:\n  {{- if .x }}\n  b: 1\n  {{- end }}\n");
        let theirs = skeleton(
            &mut tokens,
            "a:\n  {{- if .x }}\n  b: 1\n  {{- end }}\n  {{- with .s }}\n  s: 1\n  {{- end }}\n",
        );
        let ours = skeleton(
            &mut tokens,
            "a:\n  {{- if .x }}\n  b: 1\n  {{- end }}\n  {{- with .s }}\n  s: 1\n  {{- end }}\n  {{- with .v }}\n  v: 1\n  {{- end }}\n",
        );
        assert_eq!(
            merged_controls(&tokens, &base, &ours, &theirs),
            Some(controls(&ours))
        );
        assert_eq!(
            merged_controls(&tokens, &base, &theirs, &ours),
            Some(controls(&ours))
        );
        let other = skeleton(
            &mut tokens,
            "a:\n  {{- if .x }}\n  b: 1\n  {{- end }}\n  {{- with .w }}\n  w: 1\n  {{- end }}\n",
        );
        // Whole guarded blocks both added at one place: ours' first.
        let both = [&controls(&other)[..], &controls(&theirs)[2..]].concat();
        assert_eq!(merged_controls(&tokens, &base, &other, &theirs), Some(both));
        // An opening line each side added at one place: not whole blocks, no merge.
        let half = |t: &mut mask::Tokens, w: &str| {
            skeleton(
                t,
                &format!(
                    "a:\n  {{{{- if .x }}}}\n  b: 1\n  {{{{- end }}}}\n  {{{{- {w} }}}}\n  s: 1\n"
                ),
            )
        };
        let (o, t) = (half(&mut tokens, "with .o"), half(&mut tokens, "with .t"));
        assert_eq!(merged_controls(&tokens, &base, &o, &t), None);
    }

    /// Each version's and each merge's control lines stand in the order every version's
    /// stretches make; a block's `end` moved above its `if` does not.
    #[test]
    fn control_lines_in_an_order_no_version_has_are_told() {
        let skeleton = |tokens: &mut mask::Tokens, t: &str| tokens.mask(t).expect("masks");
        let mut tokens = mask::Tokens::default();
        let two =
            "a:\n  {{- if .x }}\n  b: 1\n  {{- end }}\n  {{- if .z }}\n  c: 1\n  {{- end }}\n";
        let base = skeleton(&mut tokens, two);
        // Ours drops the first block; theirs adds one after the second.
        let ours = skeleton(
            &mut tokens,
            "a:\n  b: 1\n  {{- if .z }}\n  c: 1\n  {{- end }}\n",
        );
        let theirs = skeleton(
            &mut tokens,
            &format!("{two}  {{{{- with .s }}}}\n  s: 1\n  {{{{- end }}}}\n"),
        );
        let order = controls_in_every_order(&base, &ours, &theirs);
        for version in [&base, &ours, &theirs] {
            assert!(only_added(&controls(version), &order));
        }
        let merged = merged_controls(&tokens, &base, &ours, &theirs).expect("merges");
        assert!(only_added(&merged, &order));
        // Theirs' block inside ours' `if .z`, its `end` above the other `end`.
        let misplaced = skeleton(
            &mut tokens,
            "a:\n  b: 1\n  {{- if .z }}\n  {{- with .s }}\n  s: 1\n  {{- end }}\n  c: 1\n  {{- end }}\n",
        );
        assert!(!only_added(&controls(&misplaced), &order));
    }
}
