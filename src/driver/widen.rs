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
use crate::text::markers::{marked_lines, Markers};

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
    let conflicts = indices(&all, |c| matches!(c, Chunk::Conflict { .. }));
    if conflicts.is_empty() {
        return None;
    }
    let texts = Texts {
        all: &all,
        lines: [&b, &o, &t],
    };
    let found = widened_from(&texts, &conflicts, markers, &mut within_budget(&mut holds));
    found.or_else(|| whole_file([base, ours, theirs], markers, holds))
}

/// How much text (bytes, summed over the tries) the caller's check may read while a conflict
/// is narrowed: each try parses and checks the whole text, so on a large file the hundreds of
/// tries of [`conflicted_clean`] took minutes (adversary manifests-mark-1144-9700: a 1.3 MB
/// CRD, a minute of CPU). Past it, no narrower conflict is tried and the whole file is the
/// conflict; a file of a few hundred kilobytes still gets every try.
const CHECKED_BYTES: usize = 64 << 20;

/// `holds`, answering no once the texts it was asked about exceed [`CHECKED_BYTES`].
fn within_budget<'h>(holds: &'h mut impl FnMut(&str) -> bool) -> impl FnMut(&str) -> bool + 'h {
    let mut spent = 0usize;
    move |text: &str| {
        spent += text.len();
        spent <= CHECKED_BYTES && holds(text)
    }
}

/// The indices of the stretches whose chunk `pick` accepts.
fn indices(all: &[Stretch], pick: impl Fn(&Chunk) -> bool) -> Vec<usize> {
    let picked = all.iter().enumerate().filter(|(_, s)| pick(&s.chunk));
    picked.map(|(i, _)| i).collect()
}

/// The last try: the whole file in conflict, ours against theirs, where `holds` accepts it.
fn whole_file(
    [base, ours, theirs]: [&str; 3],
    markers: &Markers,
    mut holds: impl FnMut(&str) -> bool,
) -> Option<String> {
    let whole = markers.wrap(ours, base, theirs);
    holds(&whole).then_some(whole)
}

/// The most changed stretches of a clean line merge tried as seeds of a conflict
/// ([`conflicted_clean`]): each seed costs up to a hundred checks of the whole file.
const SEEDS: usize = 8;

/// A clean line merge the caller's check (`holds`) rejects, made a conflict: each changed
/// stretch in turn is taken as a conflict of its own and widened as [`widened`] widens git's
/// conflicts, and the text that holds with the fewest lines marked is the answer; the whole
/// file, ours against theirs, where none short of it holds (or the texts have more changed
/// stretches than are tried). `None` where nothing holds. Where git is clean but wrong as
/// data, git marks no line: the conflict is as narrow as the check lets it be.
pub(crate) fn conflicted_clean(
    [base, ours, theirs]: [&str; 3],
    markers: &Markers,
    mut holds: impl FnMut(&str) -> bool,
) -> Option<String> {
    let (b, o, t) = (text_lines(base), text_lines(ours), text_lines(theirs));
    let all = pieces(stretches(&b, &o, &t));
    let changed = indices(&all, |c| !matches!(c, Chunk::Same { .. }));
    let texts = Texts {
        all: &all,
        lines: [&b, &o, &t],
    };
    let mut limited = within_budget(&mut holds);
    let narrowest = (changed.len() <= SEEDS)
        .then(|| {
            changed
                .iter()
                .filter_map(|&c| widened_from(&texts, &[c], markers, &mut limited))
                .min_by_key(|text| marked_lines(text.as_bytes(), markers.size))
        })
        .flatten();
    drop(limited);
    narrowest.or_else(|| whole_file([base, ours, theirs], markers, holds))
}

/// The conflicts at stretches `conflicts` widened until `holds` accepts the text, short of
/// the whole file: see [`widened`].
fn widened_from(
    texts: &Texts,
    conflicts: &[usize],
    markers: &Markers,
    holds: &mut impl FnMut(&str) -> bool,
) -> Option<String> {
    let all = texts.all;
    let b = texts.lines[0];
    'widen: for width in 0..=WIDEST {
        for before in 0..=width {
            let groups = groups(conflicts, before, width - before, all.len());
            if groups.len() == 1 && groups[0] == (0..all.len()) {
                break 'widen;
            }
            let text = texts.render(&groups, markers);
            if holds(&text) {
                return Some(text);
            }
        }
    }
    // Stretches are no YAML: where no width of them holds, each conflict takes in the
    // block of base that encloses it (a list item, then its key, and so on out to the
    // document), so a half is a side's whole value of a place both sides changed. The
    // first level that holds is then narrowed back conflict by conflict: one conflict may
    // need its whole block while another needs a few stretches.
    let block = |c: usize, level: usize, trim: bool| {
        let lines = enclosing(b, all[c].base.clone(), level);
        block_range(all, c, b, lines, trim)
    };
    let everything = |ranges: &[Range<usize>]| {
        let groups = joined_ranges(ranges);
        groups.len() == 1 && groups[0] == (0..all.len())
    };
    let mut found = None;
    'levels: for level in 1.. {
        let at_documents = conflicts
            .iter()
            .all(|&c| enclosing(b, all[c].base.clone(), level) == document(b, all[c].base.start));
        for trim in [true, false] {
            let ranges: Vec<Range<usize>> =
                conflicts.iter().map(|&c| block(c, level, trim)).collect();
            if everything(&ranges) {
                break 'levels;
            }
            if holds(&texts.render(&joined_ranges(&ranges), markers)) {
                found = Some((level, ranges));
                break 'levels;
            }
        }
        if at_documents {
            break;
        }
    }
    if let Some((level, mut ranges)) = found {
        // The widest first: a conflict inside another's range holds whatever it is, and
        // narrowed first it would stay narrow where the other's narrowing needs it wide.
        let mut order: Vec<usize> = (0..conflicts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(ranges[i].len()));
        for i in order {
            let c = conflicts[i];
            let mut narrower: Vec<Range<usize>> = (0..=WIDEST)
                .flat_map(|width| (0..=width).map(move |before| (before, width - before)))
                .map(|(before, after)| c.saturating_sub(before)..(c + 1 + after).min(all.len()))
                .chain((1..=level).flat_map(|l| [true, false].map(|trim| block(c, l, trim))))
                .filter(|r| r.len() < ranges[i].len())
                .collect();
            // Narrowest first; among equals, the order above (fewer stretches before).
            narrower.sort_by_key(|r| r.len());
            let current = ranges[i].clone();
            for range in narrower {
                ranges[i] = range;
                if holds(&texts.render(&joined_ranges(&ranges), markers)) {
                    break;
                }
                ranges[i] = current.clone();
            }
        }
        return Some(texts.render(&joined_ranges(&ranges), markers));
    }
    None
}

/// Whether a line is YAML structure, not a comment, a blank or a template's control line (a
/// line holding one `{{ … }}` action and nothing else): only such lines open or close a
/// block.
fn structural(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return false;
    }
    match t.strip_prefix("{{") {
        Some(rest) => rest.find("}}").is_some_and(|end| end + 2 != rest.len()),
        None => true,
    }
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether a line is a document's `---` (or `...`) line.
fn separator(line: &str) -> bool {
    crate::text::is_separator(line) || line.trim_end() == "..."
}

/// The lines of the document of base that holds line `at` (its `---` line left out).
fn document(b: &[&str], at: usize) -> Range<usize> {
    let at = at.min(b.len());
    let start = (0..at)
        .rev()
        .find(|&i| separator(b[i]))
        .map_or(0, |i| i + 1);
    let end = (at..b.len()).find(|&i| separator(b[i])).unwrap_or(b.len());
    start..end
}

/// The `level`-th block of base around `lines` (1: the nearest): from the nearest
/// structural line before them that is indented less than they are, up to the next
/// structural line indented no deeper than it; the document at last. A list written flush
/// with its key (`endpoints:` over `- port: …` at the key's own indent) is the key's block:
/// its items are no deeper than the key, yet the key heads them, and the block runs on over
/// the items to the next line that is not one of them.
fn enclosing(b: &[&str], lines: Range<usize>, level: usize) -> Range<usize> {
    let doc = document(b, lines.start);
    let mut inner = lines;
    let item = |line: &str| {
        let t = line.trim_start();
        t.starts_with("- ") || t.trim_end() == "-"
    };
    let key_of_a_block = |line: &str| !item(line) && line.trim_end().ends_with(':');
    for _ in 0..level {
        let within = |i: &usize| structural(b[*i]);
        let first = inner
            .clone()
            .filter(within)
            .min_by_key(|&i| indent(b[i]))
            .or_else(|| (inner.end..doc.end).find(within));
        let depth = first.map_or(0, |i| indent(b[i]));
        let flush = first.is_some_and(|i| item(b[i]));
        let Some(head) = (doc.start..inner.start).rev().find(|&i| {
            structural(b[i])
                && (indent(b[i]) < depth
                    || (flush && indent(b[i]) == depth && key_of_a_block(b[i])))
        }) else {
            return doc;
        };
        let level_items = indent(b[head]) == depth && flush;
        let end = (inner.end.max(head + 1)..doc.end)
            .find(|&i| {
                structural(b[i])
                    && (indent(b[i]) < indent(b[head])
                        || (indent(b[i]) == indent(b[head]) && !(level_items && item(b[i]))))
            })
            .unwrap_or(doc.end);
        inner = head..end;
    }
    inner
}

/// The stretches of conflict `c` widened to its block of base (`lines`), the block's
/// trailing control lines and comments left out where `trim`. An insertion belongs to the
/// block where it stands after the block's first line and no later than its end.
fn block_range(
    all: &[Stretch],
    c: usize,
    b: &[&str],
    mut lines: Range<usize>,
    trim: bool,
) -> Range<usize> {
    if trim {
        let head = b.get(lines.start).map_or(0, |l| indent(l));
        while lines.end > lines.start + 1
            && !structural(b[lines.end - 1])
            && indent(b[lines.end - 1]) <= head
        {
            lines.end -= 1;
        }
    }
    let inside = |s: &Stretch| {
        if s.base.is_empty() {
            s.base.start > lines.start && s.base.start <= lines.end
        } else {
            s.base.start < lines.end && s.base.end > lines.start
        }
    };
    let first = (0..c).rev().take_while(|&i| inside(&all[i])).last();
    let last = (c + 1..all.len()).take_while(|&i| inside(&all[i])).last();
    first.unwrap_or(c)..last.unwrap_or(c) + 1
}

/// Ranges of stretches in order of start, overlapping or touching ones joined: a conflict's
/// block may enclose an earlier conflict's.
fn joined_ranges(ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut sorted = ranges.to_vec();
    sorted.sort_by_key(|g| g.start);
    let mut joined: Vec<Range<usize>> = Vec::with_capacity(sorted.len());
    for next in sorted {
        match joined.last_mut() {
            Some(prev) if prev.end >= next.start => prev.end = next.end.max(prev.end),
            _ => joined.push(next),
        }
    }
    joined
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
    fn the_check_is_refused_once_the_texts_it_read_pass_the_budget() {
        // Two tries of half the budget and a byte each: the first is the check's to answer,
        // the second is refused without asking it.
        let text = "x".repeat(CHECKED_BYTES / 2 + 1);
        let mut asked = 0;
        let mut holds = |_: &str| {
            asked += 1;
            true
        };
        let mut limited = within_budget(&mut holds);
        assert!(limited(&text));
        assert!(!limited(&text));
        drop(limited);
        assert_eq!(asked, 1);
    }

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
    fn blocks_of_base_enclose_a_place_from_the_nearest_out_to_the_document() {
        let b: Vec<&str> = text_lines(concat!(
            "kind: A\n",        // 0
            "spec:\n",          // 1
            "  list:\n",        // 2
            "  {{- if .x }}\n", // 3
            "    - a: 1\n",     // 4
            "      b: 2\n",     // 5
            "    - a: 3\n",     // 6
            "  {{- end }}\n",   // 7
            "  other: 1\n",     // 8
            "---\n",            // 9
            "kind: B\n",        // 10
        ));
        assert_eq!(enclosing(&b, 5..6, 1), 4..6);
        assert_eq!(enclosing(&b, 5..6, 2), 2..8);
        assert_eq!(enclosing(&b, 5..6, 3), 1..9);
        assert_eq!(enclosing(&b, 5..6, 4), 0..9);
        // An item inserted between two belongs to their list.
        assert_eq!(enclosing(&b, 6..6, 1), 2..8);
    }

    #[test]
    fn a_list_flush_with_its_key_is_the_keys_block() {
        let b: Vec<&str> = text_lines(concat!(
            "spec:\n",             // 0
            "  endpoints:\n",      // 1
            "  - port: http\n",    // 2
            "    path: /a\n",      // 3
            "  {{- if .x }}\n",    // 4
            "  - port: metrics\n", // 5
            "  {{- end }}\n",      // 6
            "  jobLabel: x\n",     // 7
        ));
        assert_eq!(enclosing(&b, 3..4, 1), 2..5);
        assert_eq!(enclosing(&b, 3..4, 2), 1..7);
        assert_eq!(enclosing(&b, 2..3, 1), 1..7);
        assert_eq!(enclosing(&b, 3..4, 3), 0..8);
    }

    #[test]
    fn where_no_width_of_stretches_holds_a_conflict_takes_in_its_block() {
        // Thirty list items: the check wants the whole list in the conflict, which is more
        // stretches than the widening by stretches takes in.
        let items = |changed: Option<(usize, &str)>| -> String {
            (0..30)
                .map(|i| match changed {
                    Some((at, v)) if at == i => format!("  - {v}\n"),
                    _ => format!("  - i{i}\n"),
                })
                .collect()
        };
        let text = |list: String| format!("a: 1\nlist:\n{list}z: 1\n");
        let base = text(items(None));
        let ours = text(items(Some((15, "O"))));
        let theirs = text(items(Some((15, "T"))));
        let got = widened([&base, &ours, &theirs], &MARKERS, |text| {
            text.contains("<<<<<<< ours\nlist:\n") && text.contains("  - i29\n=======\n")
        });
        assert_eq!(
            got,
            Some(format!(
                "a: 1\n<<<<<<< ours\nlist:\n{}=======\nlist:\n{}>>>>>>> theirs\nz: 1\n",
                items(Some((15, "O"))),
                items(Some((15, "T")))
            ))
        );
    }

    #[test]
    fn a_clean_merge_the_check_rejects_conflicts_at_the_narrowest_change_that_holds() {
        // The check wants ours' `B` inside a conflict: theirs' `D` stays merged outside it.
        let texts = ["a\nb\nc\nd\n", "a\nB\nc\nd\n", "a\nb\nc\nD\n"];
        let got = conflicted_clean(texts, &MARKERS, |text| {
            text.contains("<<<<<<< ours\nB\n") || text.contains("<<<<<<< ours\na\nB\n")
        });
        assert_eq!(
            got.as_deref(),
            Some("a\n<<<<<<< ours\nB\n=======\nb\n>>>>>>> theirs\nc\nD\n")
        );
        // Where no change of its own holds, the whole file is the conflict.
        let got = conflicted_clean(texts, &MARKERS, |text| {
            text.starts_with("<<<<<<<") && text.ends_with(">>>>>>> theirs\n")
        });
        assert_eq!(
            got.as_deref(),
            Some("<<<<<<< ours\na\nB\nc\nd\n=======\na\nb\nc\nD\n>>>>>>> theirs\n")
        );
    }

    #[test]
    fn texts_without_a_conflict_have_nothing_to_widen() {
        assert_eq!(widened(["a\n", "b\n", "a\n"], &MARKERS, |_| false), None);
    }
}
