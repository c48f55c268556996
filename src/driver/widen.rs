//! A line merge's conflicts widened until a person can take either side.
//!
//! Git's markers are narrow: a change one side made next to a conflict is merged outside it,
//! so taking the other side's half can leave a template block without its `end`, or a key
//! without the map it belonged to. Where the caller's check rejects a side of the conflicts,
//! each conflict here takes in its neighbouring stretches (one on each side a round, merged
//! stretches and unchanged ones alike, so each half is that side's own text of the whole
//! stretch) until the check holds; at worst the whole file is one conflict, ours against
//! theirs, which always loads (a data check may reject even that).

use std::ops::Range;

use crate::text::diff3::{stretches, Chunk, Stretch};
use crate::text::markers::Markers;

/// The widest a conflict grows, in stretches taken in beside it, before the whole file is
/// the conflict: each try runs the caller's check on the whole file (at most 91 tries), and a
/// conflict that wide is not worth narrowing further. An unchanged stretch counts as several
/// ([`pieces`]), so this reaches past changes and hundreds of unchanged lines alike.
const WIDEST: usize = 12;

/// The three texts merged line by line with conflicts as narrow as `holds` (which reads the
/// whole conflicted text) accepts, starting from the diff3 conflicts and widening them, the
/// whole file in conflict the last try. `None` where nothing holds, or where the texts have no
/// conflicting stretch (there is nothing to widen).
///
/// A conflict widens by `w` stretches in all, first all after it, then one fewer after and
/// one more before, and so on: a stretch the other side changed is taken into the conflict
/// only where it must be, so the conflict keeps out as much of either side's other changes
/// as it can (taken in, they stand in one half only).
pub(crate) fn widened(
    [base, ours, theirs]: [&str; 3],
    markers: &Markers,
    mut holds: impl FnMut(&str) -> bool,
) -> Option<String> {
    let (b, o, t) = (text_lines(base), text_lines(ours), text_lines(theirs));
    let all = pieces(stretches(&b, &o, &t));
    let conflicts: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.chunk, Chunk::Conflict { .. }))
        .map(|(i, _)| i)
        .collect();
    if conflicts.is_empty() {
        return None;
    }
    let texts = Texts {
        all: &all,
        lines: [&b, &o, &t],
    };
    'widen: for width in 0..=WIDEST {
        for before in 0..=width {
            let groups = groups(&conflicts, before, width - before, all.len());
            if groups.len() == 1 && groups[0] == (0..all.len()) {
                break 'widen;
            }
            let text = texts.render(&groups, markers);
            if holds(&text) {
                return Some(text);
            }
        }
    }
    let whole = markers.wrap(ours, base, theirs);
    holds(&whole).then_some(whole)
}

/// The three texts merged line by line with each conflict where both sides only inserted
/// lines at one place (base's stretch empty) taken as both insertions, ours' first where
/// `ours_first`, else theirs'. `None` where there is no conflict, or where a conflict changed
/// lines of base too: then no side's change can stand beside the other's whole.
pub(crate) fn joined([base, ours, theirs]: [&str; 3], ours_first: bool) -> Option<String> {
    let (b, o, t) = (text_lines(base), text_lines(ours), text_lines(theirs));
    let all = stretches(&b, &o, &t);
    let mut out = String::new();
    let mut any = false;
    for s in &all {
        match &s.chunk {
            Chunk::Theirs { .. } => out.push_str(&t[s.theirs.clone()].concat()),
            Chunk::Conflict { base, .. } if base.is_empty() => {
                any = true;
                let (first, second) = match ours_first {
                    true => (&o[s.ours.clone()], &t[s.theirs.clone()]),
                    false => (&t[s.theirs.clone()], &o[s.ours.clone()]),
                };
                out.push_str(&first.concat());
                out.push_str(&second.concat());
            }
            Chunk::Conflict { .. } => return None,
            _ => out.push_str(&o[s.ours.clone()].concat()),
        }
    }
    any.then_some(out)
}

/// The stretches with each unchanged one cut into pieces that grow from both of its ends
/// (1, 1, 2, 4 … lines): a conflict widening into it takes in a line, then two, then four,
/// so it stops a few lines past what its check needed (a block's closing line right after
/// it), not at the end of a long unchanged stretch both halves would then repeat.
fn pieces(all: Vec<Stretch>) -> Vec<Stretch> {
    let mut out = Vec::with_capacity(all.len());
    for s in all {
        let Chunk::Same { .. } = s.chunk else {
            out.push(s);
            continue;
        };
        // The piece sizes from each end, the rest in the middle.
        let mut sizes = Vec::new();
        let mut left = s.ours.len();
        let mut next = 1;
        let mut first = true;
        while left >= 2 * next && left > 2 {
            sizes.push(next);
            left -= 2 * next;
            if !first {
                next *= 2;
            }
            first = false;
        }
        let tail: Vec<usize> = sizes.iter().rev().copied().collect();
        if left > 0 {
            sizes.push(left);
        }
        sizes.extend(tail);
        let (mut b, mut o, mut t) = (s.base.start, s.ours.start, s.theirs.start);
        for n in sizes {
            out.push(Stretch {
                base: b..b + n,
                ours: o..o + n,
                theirs: t..t + n,
                chunk: Chunk::Same { ours: o..o + n },
            });
            (b, o, t) = (b + n, o + n, t + n);
        }
    }
    out
}

/// A text's lines, each with its line break.
fn text_lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Each conflicting stretch with `before` stretches before it and `after` after it, as
/// ranges of stretches; overlapping or touching ranges joined.
fn groups(conflicts: &[usize], before: usize, after: usize, len: usize) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(conflicts.len());
    for &c in conflicts {
        let next = c.saturating_sub(before)..(c + 1 + after).min(len);
        match out.last_mut() {
            Some(last) if last.end >= next.start => last.end = next.end.max(last.end),
            _ => out.push(next),
        }
    }
    out
}

/// The stretches of a line merge and the lines of base, ours and theirs they index.
struct Texts<'a> {
    all: &'a [Stretch],
    lines: [&'a [&'a str]; 3],
}

impl Texts<'_> {
    /// The merged text: each group of stretches a conflict of the three sides' text of the
    /// whole group, every other stretch as its merge takes it.
    fn render(&self, groups: &[Range<usize>], markers: &Markers) -> String {
        let [b, o, t] = self.lines;
        let mut out = String::new();
        let mut groups = groups.iter().peekable();
        let mut i = 0;
        while i < self.all.len() {
            if let Some(g) = groups.next_if(|g| g.start == i) {
                let span = |side: fn(&Stretch) -> &Range<usize>, lines: &[&str]| {
                    let (first, last) = (side(&self.all[g.start]), side(&self.all[g.end - 1]));
                    lines[first.start..last.end].concat()
                };
                out.push_str(&markers.wrap(
                    &span(|s| &s.ours, o),
                    &span(|s| &s.base, b),
                    &span(|s| &s.theirs, t),
                ));
                i = g.end;
                continue;
            }
            let s = &self.all[i];
            let taken = match s.chunk {
                Chunk::Theirs { .. } => &t[s.theirs.clone()],
                _ => &o[s.ours.clone()],
            };
            out.push_str(&taken.concat());
            i += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKERS: Markers = Markers::PLAIN;

    #[test]
    fn a_conflict_the_check_accepts_stays_as_diff3_marks_it() {
        let got = widened(["a\nb\nc\n", "a\nB\nc\n", "a\nX\nc\n"], &MARKERS, |_| true);
        assert_eq!(
            got.as_deref(),
            Some("a\n<<<<<<< ours\nB\n=======\nX\n>>>>>>> theirs\nc\n")
        );
    }

    #[test]
    fn a_conflict_widens_after_itself_first_and_keeps_out_the_change_before_it() {
        // Theirs' `<<: *a` needs the anchor ours' half of the conflict drops; ours' `v2`
        // before the conflict is no part of it.
        let base = "v1\nx\nk: 1\nd:\n  y: 1\nz\n";
        let ours = "v2\nx\nk:\nd:\n  y: 1\nz\n";
        let theirs = "v1\nx\nk: &a 2\nd:\n  <<: *a\nz\n";
        let no_alias_without_anchor = |text: &str| {
            crate::text::markers::sides(text, 7)
                .iter()
                .all(|side| !side.contains("*a") || side.contains("&a"))
        };
        let got = widened([base, ours, theirs], &MARKERS, no_alias_without_anchor);
        assert_eq!(
            got.as_deref(),
            Some(concat!(
                "v2\nx\n<<<<<<< ours\nk:\nd:\n  y: 1\n=======\n",
                "k: &a 2\nd:\n  <<: *a\n>>>>>>> theirs\nz\n"
            ))
        );
    }

    #[test]
    fn where_nothing_narrower_holds_the_whole_file_is_the_conflict() {
        let got = widened(["a\nb\nc\n", "a\nB\nc\n", "a\nX\nc\n"], &MARKERS, |text| {
            text.starts_with("<<<<<<<") && text.ends_with(">>>>>>> theirs\n")
        });
        assert_eq!(
            got.as_deref(),
            Some("<<<<<<< ours\na\nB\nc\n=======\na\nX\nc\n>>>>>>> theirs\n")
        );
    }

    #[test]
    fn a_conflict_takes_in_a_few_lines_of_a_long_unchanged_stretch_not_all_of_it() {
        // The check wants the two lines after the conflict inside it (as a block's closing
        // lines): the conflict takes in those, not the twenty unchanged lines after it.
        let tail: String = (0..20).map(|i| format!("k{i}\n")).collect();
        let base = format!("a\nb\n{tail}");
        let ours = format!("a\nB\n{tail}");
        let theirs = format!("a\nX\n{tail}");
        let got = widened([&base, &ours, &theirs], &MARKERS, |text| {
            text.contains("k1\n>>>>>>> theirs\n")
        });
        let rest: String = (2..20).map(|i| format!("k{i}\n")).collect();
        assert_eq!(
            got,
            Some(format!(
                "a\n<<<<<<< ours\nB\nk0\nk1\n=======\nX\nk0\nk1\n>>>>>>> theirs\n{rest}"
            ))
        );
    }

    #[test]
    fn an_unchanged_stretch_is_cut_into_pieces_growing_from_both_ends() {
        let sizes = |n: usize| -> Vec<usize> {
            let b: Vec<String> = (0..n).map(|i| i.to_string()).collect();
            pieces(stretches(&b, &b, &b))
                .iter()
                .map(|s| s.ours.len())
                .collect()
        };
        assert_eq!(sizes(1), vec![1]);
        assert_eq!(sizes(2), vec![2]);
        assert_eq!(sizes(5), vec![1, 1, 1, 1, 1]);
        assert_eq!(sizes(12), vec![1, 1, 2, 4, 2, 1, 1]);
        assert_eq!(sizes(40), vec![1, 1, 2, 4, 8, 8, 8, 4, 2, 1, 1]);
    }

    #[test]
    fn where_not_even_the_whole_file_holds_nothing_is_widened() {
        let got = widened(["a\nb\nc\n", "a\nB\nc\n", "a\nX\nc\n"], &MARKERS, |_| false);
        assert_eq!(got, None);
    }

    #[test]
    fn insertions_both_sides_made_at_one_place_join_in_either_order() {
        let texts = ["a\nz\n", "a\nO\nz\n", "a\nT\nz\n"];
        assert_eq!(joined(texts, true).as_deref(), Some("a\nO\nT\nz\n"));
        assert_eq!(joined(texts, false).as_deref(), Some("a\nT\nO\nz\n"));
        // A conflict that changed a line of base has no join; nor has a text without one.
        assert_eq!(joined(["a\nb\n", "a\nB\n", "a\nX\n"], true), None);
        assert_eq!(joined(["a\n", "b\n", "a\n"], true), None);
    }

    #[test]
    fn texts_without_a_conflict_have_nothing_to_widen() {
        assert_eq!(widened(["a\n", "b\n", "a\n"], &MARKERS, |_| false), None);
    }
}
