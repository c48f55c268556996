//! The rename rule by elimination, for a file's documents and a package's alike: a rename on
//! one side shows as one resource missing only that side and one new resource holding only
//! that side; when each is the only one of its kind and the two are close (one part of the
//! identity changed at most, similar content), they are one resource. The verifier reads
//! renames its own way (`verify::pairing`), so that a mistake of this rule cannot pass it.

use crate::sides::{Side, BASE};

use super::Identity;

/// One resource across the three versions, as the rename rule sees it: where it stands in each
/// version (a document of a file, a place in a package) and its identity.
pub(crate) trait Placed {
    type Place: Copy;
    /// Where it stands in the version at `index` (base, ours, theirs), if there.
    fn place(&self, index: usize) -> Option<Self::Place>;
    fn set_place(&mut self, side: Side, place: Self::Place);
    fn identity(&self) -> Option<&Identity>;
}

/// What to pair when the other side kept no resource the side lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lost {
    /// Nothing: a file merge pairs only against a resource the other side kept.
    Kept,
    /// The one the other side lost too (deleted, or renamed itself) that is close to the new
    /// one: across a package a rename against a deletion or another rename is then a conflict,
    /// as in git, not a clean addition.
    KeptOrBoth,
}

/// Pairs the renames of ours, then theirs, merging each renamed resource's new place into
/// the group that holds its base. `similar(base_place, side, side_place)` says whether the two
/// documents' content is close enough to be one resource.
pub(crate) fn pair_renames<G: Placed>(
    groups: &mut Vec<G>,
    lost: Lost,
    similar: impl Fn(G::Place, Side, G::Place) -> bool,
) {
    for side in [Side::Ours, Side::Theirs] {
        let (s, o) = (side.index(), side.other().index());
        let missing = |other_kept: bool| -> Vec<usize> {
            (0..groups.len())
                .filter(|&i| {
                    let g = &groups[i];
                    g.place(BASE).is_some()
                        && g.place(s).is_none()
                        && g.place(o).is_some() == other_kept
                })
                .collect()
        };
        let only: Vec<usize> = (0..groups.len())
            .filter(|&i| {
                let g = &groups[i];
                g.place(BASE).is_none() && g.place(s).is_some() && g.place(o).is_none()
            })
            .collect();
        // A rename changes one part of an identity; a document of another kind and name is
        // another resource (paired, ours' edit of a deleted resource would silently land on a
        // new one).
        let close = |m: usize, n: usize| {
            let (Some(b), Some(d)) = (groups[m].place(BASE), groups[n].place(s)) else {
                return false;
            };
            close_identities(groups[m].identity(), groups[n].identity(), true)
                && similar(b, side, d)
        };
        let pair = match only.as_slice() {
            &[n] => {
                let kept = missing(true);
                let candidates = match kept.as_slice() {
                    [] if lost == Lost::KeptOrBoth => missing(false)
                        .into_iter()
                        .filter(|&m| close(m, n))
                        .collect(),
                    _ => kept,
                };
                match candidates.as_slice() {
                    &[m] if close(m, n) => Some((m, n)),
                    _ => None,
                }
            }
            // Across a package a side adds files of other resources beside a rename: the new
            // documents that could not be the lost one (not close to it) are not its rivals.
            // The lost one is still the only one the other side kept, the new one the only
            // one close to it.
            // Where the other side kept none of the lost ones, the one it lost too: a rename
            // against a deletion is a conflict however many files the side added beside it
            // (read as an addition, the side's edits would stand clean beside the deletion).
            // Only between resources with an identity: a document without one (a values
            // file, a kustomization) is known by its file, and one new file among several
            // like it is no rename to pair by elimination.
            _ if lost == Lost::KeptOrBoth => match missing(true).as_slice() {
                &[m] => {
                    let near: Vec<usize> = only.iter().copied().filter(|&n| close(m, n)).collect();
                    match near.as_slice() {
                        &[n] => Some((m, n)),
                        _ => None,
                    }
                }
                [] => {
                    let near: Vec<(usize, usize)> = missing(false)
                        .into_iter()
                        .flat_map(|m| only.iter().map(move |&n| (m, n)))
                        .filter(|&(m, n)| {
                            groups[m].identity().is_some()
                                && groups[n].identity().is_some()
                                && close(m, n)
                        })
                        .collect();
                    match near.as_slice() {
                        &[pair] => Some(pair),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        };
        if let Some((m, n)) = pair {
            let Some(d) = groups[n].place(s) else {
                continue;
            };
            groups[m].set_place(side, d);
            groups.remove(n);
        }
    }
}

/// One part of the identity changed at most (a new name, namespace, kind or group); where
/// either has no identity, `missing_is_close`.
pub(crate) fn close_identities(
    a: Option<&Identity>,
    b: Option<&Identity>,
    missing_is_close: bool,
) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x.differences(y) <= 1,
        _ => missing_is_close,
    }
}
