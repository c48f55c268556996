//! The 3-way merge of two edits of one sequence (lines of a string, elements of a list):
//! where only one side changed a stretch, that side's version wins; where both changed the
//! same stretch differently, it is a conflict of just that stretch.

use std::hash::Hash;
use std::ops::Range;

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// A stretch of the three sequences.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    /// Equal in all three.
    Same { ours: Range<usize> },
    /// Only theirs changed it: take theirs' stretch.
    Theirs {
        base: Range<usize>,
        ours: Range<usize>,
        theirs: Range<usize>,
    },
    /// Only ours changed it: keep ours.
    Ours { ours: Range<usize> },
    /// Both changed it the same way: keep ours (theirs' text of the same data may differ).
    Both {
        base: Range<usize>,
        ours: Range<usize>,
        theirs: Range<usize>,
    },
    /// Both changed it differently.
    Conflict {
        base: Range<usize>,
        ours: Range<usize>,
        theirs: Range<usize>,
    },
}

/// For each element of `base`, its position in `other` if the diff keeps it.
fn matches<T: Hash + Eq + Ord>(base: &[T], other: &[T]) -> Vec<Option<usize>> {
    let mut m = vec![None; base.len()];
    for op in capture_diff_slices(Algorithm::Myers, base, other) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for i in 0..len {
                m[old_index + i] = Some(new_index + i);
            }
        }
    }
    m
}

/// A chunk with where it stands in all three sequences (a [`Chunk`] names only the ranges
/// its own merge needs): what widens a conflict over its neighbours needs every side's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stretch {
    pub base: Range<usize>,
    pub ours: Range<usize>,
    pub theirs: Range<usize>,
    pub chunk: Chunk,
}

/// Splits base/ours/theirs into chunks, diff3 style.
pub fn diff3<T: Hash + Eq + Ord>(base: &[T], ours: &[T], theirs: &[T]) -> Vec<Chunk> {
    stretches(base, ours, theirs)
        .into_iter()
        .map(|s| s.chunk)
        .collect()
}

/// [`diff3`]'s chunks with their ranges in all three sequences.
pub fn stretches<T: Hash + Eq + Ord>(base: &[T], ours: &[T], theirs: &[T]) -> Vec<Stretch> {
    let mo = matches(base, ours);
    let mt = matches(base, theirs);
    let (mut i, mut j, mut k) = (0, 0, 0);
    let mut chunks = Vec::new();
    loop {
        let mut n = 0;
        while i + n < base.len() && mo[i + n] == Some(j + n) && mt[i + n] == Some(k + n) {
            n += 1;
        }
        if n > 0 {
            chunks.push(Stretch {
                base: i..i + n,
                ours: j..j + n,
                theirs: k..k + n,
                chunk: Chunk::Same { ours: j..j + n },
            });
            i += n;
            j += n;
            k += n;
            continue;
        }
        let mut m = i;
        while m < base.len() && !(mo[m].is_some_and(|x| x >= j) && mt[m].is_some_and(|x| x >= k)) {
            m += 1;
        }
        let (oj, tk) = if m == base.len() {
            (ours.len(), theirs.len())
        } else {
            (mo[m].unwrap_or(j), mt[m].unwrap_or(k))
        };
        if i < m || j < oj || k < tk {
            chunks.push(Stretch {
                base: i..m,
                ours: j..oj,
                theirs: k..tk,
                chunk: classify(base, ours, theirs, i..m, j..oj, k..tk),
            });
        }
        if m == base.len() {
            break;
        }
        i = m;
        j = oj;
        k = tk;
    }
    chunks
}

/// Conflicts narrowed as git narrows them: the lines at the start and at the end of a
/// conflicting stretch that ours and theirs both have (both made the same change there) are
/// taken once, outside the markers, so a conflict wraps only the lines that differ. Base's
/// lines stay whole in the conflict: with no base section they are not shown, and a diff3
/// base section shows what both changed.
pub fn trim_conflicts<T: Eq>(chunks: Vec<Chunk>, ours: &[T], theirs: &[T]) -> Vec<Chunk> {
    let mut out = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let Chunk::Conflict {
            base,
            ours: o,
            theirs: t,
        } = chunk
        else {
            out.push(chunk);
            continue;
        };
        let (os, ts) = (&ours[o.clone()], &theirs[t.clone()]);
        let head = os.iter().zip(ts).take_while(|(x, y)| x == y).count();
        let tail = os[head..]
            .iter()
            .rev()
            .zip(ts[head..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        if head > 0 {
            out.push(Chunk::Ours {
                ours: o.start..o.start + head,
            });
        }
        out.push(Chunk::Conflict {
            base,
            ours: o.start + head..o.end - tail,
            theirs: t.start + head..t.end - tail,
        });
        if tail > 0 {
            out.push(Chunk::Ours {
                ours: o.end - tail..o.end,
            });
        }
    }
    out
}

fn classify<T: Eq>(
    base: &[T],
    ours: &[T],
    theirs: &[T],
    b: Range<usize>,
    o: Range<usize>,
    t: Range<usize>,
) -> Chunk {
    let (bs, os, ts) = (&base[b.clone()], &ours[o.clone()], &theirs[t.clone()]);
    if os == bs {
        Chunk::Theirs {
            base: b,
            ours: o,
            theirs: t,
        }
    } else if ts == bs {
        Chunk::Ours { ours: o }
    } else if os == ts {
        Chunk::Both {
            base: b,
            ours: o,
            theirs: t,
        }
    } else {
        Chunk::Conflict {
            base: b,
            ours: o,
            theirs: t,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_at_different_places_merge() {
        let base = ["a", "b", "c", "d"];
        let ours = ["a", "B", "c", "d"];
        let theirs = ["a", "b", "c", "d", "e"];
        let chunks = diff3(&base, &ours, &theirs);
        assert_eq!(
            chunks,
            vec![
                Chunk::Same { ours: 0..1 },
                Chunk::Ours { ours: 1..2 },
                Chunk::Same { ours: 2..4 },
                Chunk::Theirs {
                    base: 4..4,
                    ours: 4..4,
                    theirs: 4..5
                },
            ]
        );
    }

    #[test]
    fn overlapping_edits_conflict() {
        let chunks = diff3(&["a", "b"], &["a", "x"], &["a", "y"]);
        assert_eq!(
            chunks,
            vec![
                Chunk::Same { ours: 0..1 },
                Chunk::Conflict {
                    base: 1..2,
                    ours: 1..2,
                    theirs: 1..2
                }
            ]
        );
    }

    #[test]
    fn conflicts_trimmed_to_the_lines_that_differ() {
        let base = ["a", "b", "c"];
        let ours = ["a", "X", "Y", "W", "c"];
        let theirs = ["a", "X", "Z", "W", "c"];
        let chunks = trim_conflicts(diff3(&base, &ours, &theirs), &ours, &theirs);
        assert_eq!(
            chunks,
            vec![
                Chunk::Same { ours: 0..1 },
                Chunk::Ours { ours: 1..2 },
                Chunk::Conflict {
                    base: 1..2,
                    ours: 2..3,
                    theirs: 2..3
                },
                Chunk::Ours { ours: 3..4 },
                Chunk::Same { ours: 4..5 },
            ]
        );
    }
}
