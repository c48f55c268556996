//! The rename rule by elimination, for a file's documents and a package's alike: a rename on
//! one side shows as one resource missing only that side and one new resource holding only
//! that side; when each is the only one of its kind and the two are close (one part of the
//! identity changed at most, similar content), they are one resource. The verifier reads
//! renames its own way (`verify::pairing`), so that a mistake of this rule cannot pass it.

use crate::sides::{Side, BASE};

use crate::parse::{NodeId, Tree};
use crate::resource::Identity;

use super::likeness::{same_element, similar_element};

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
        // The renames paired, each (lost, new).
        let renames: Vec<(usize, usize)> = match only.as_slice() {
            &[n] => {
                let kept = missing(true);
                let candidates: Vec<usize> = match lost {
                    Lost::Kept => kept,
                    // Across a package a side deletes files of other resources beside a
                    // rename (a values file, another resource): the lost documents that could
                    // not be the new one (not close to it) are not its rivals, as the new
                    // documents are not below. Read as a deletion and an addition, the other
                    // side's edit is a delete/modify that `--on-conflict ours` resolves by
                    // keeping the old document beside the renamed one. Where none the other
                    // side kept is close, the one it lost too: a rename against a deletion
                    // is a conflict, whatever other files the side deleted beside it.
                    Lost::KeptOrBoth => {
                        let near: Vec<usize> = kept.into_iter().filter(|&m| close(m, n)).collect();
                        if near.is_empty() {
                            missing(false)
                                .into_iter()
                                .filter(|&m| close(m, n))
                                .collect()
                        } else {
                            near
                        }
                    }
                };
                match candidates.as_slice() {
                    &[m] if close(m, n) => vec![(m, n)],
                    _ => Vec::new(),
                }
            }
            // Across a package a side adds files of other resources beside a rename: the new
            // documents that could not be the lost one (not close to it) are not its rivals.
            // The lost one is still the only one the other side kept, the new one the only
            // one close to it.
            _ if lost == Lost::KeptOrBoth => {
                let mut pairs: Vec<(usize, usize)> = match missing(true).as_slice() {
                    &[m] => {
                        let near: Vec<usize> =
                            only.iter().copied().filter(|&n| close(m, n)).collect();
                        match near.as_slice() {
                            &[n] => vec![(m, n)],
                            _ => Vec::new(),
                        }
                    }
                    [] => Vec::new(),
                    // Several resources renamed at once (a file's Deployment and Service given
                    // a new name together, where the file merge pairs them by position): each
                    // lost one the other side kept pairs with the one new document close to
                    // it where that document is close to no other lost one. Read as deletions
                    // and additions, the other side's edit of one is a delete/modify conflict
                    // whose side stands beside the renamed copy in another file, which no
                    // conflict can be widened across.
                    kept => {
                        let with_identity = |i: usize| groups[i].identity().is_some();
                        kept.iter()
                            .copied()
                            .filter(|&m| with_identity(m))
                            .filter_map(|m| {
                                let near: Vec<usize> = only
                                    .iter()
                                    .copied()
                                    .filter(|&n| with_identity(n) && close(m, n))
                                    .collect();
                                match near.as_slice() {
                                    &[n] if kept.iter().filter(|&&k| close(k, n)).count() == 1 => {
                                        Some((m, n))
                                    }
                                    _ => None,
                                }
                            })
                            .collect()
                    }
                };
                // Then, among the new documents left, the one the other side lost too: a
                // rename against a deletion is a conflict however many files the side added
                // or renamed beside it (read as an addition, the side's edits would stand
                // clean beside the deletion). Only between resources with an identity: a
                // document without one (a values file, a kustomization) is known by its
                // file, and one new file among several like it is no rename to pair by
                // elimination.
                let near: Vec<(usize, usize)> = missing(false)
                    .into_iter()
                    .flat_map(|m| only.iter().map(move |&n| (m, n)))
                    .filter(|&(m, n)| {
                        !pairs.iter().any(|&(_, p)| p == n)
                            && groups[m].identity().is_some()
                            && groups[n].identity().is_some()
                            && close(m, n)
                    })
                    .collect();
                if let &[pair] = near.as_slice() {
                    pairs.push(pair);
                }
                pairs
            }
            _ => Vec::new(),
        };
        let mut paired: Vec<usize> = Vec::new();
        for (m, n) in renames {
            if let Some(d) = groups[n].place(s) {
                groups[m].set_place(side, d);
                paired.push(n);
            }
        }
        // Removed from the last, so that the indices still to remove stand.
        paired.sort_unstable_by(|a, b| b.cmp(a));
        for n in paired {
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

/// The elements `side` renamed in a keyed list, as (index in `base`, index in `side`) pairs,
/// given each version's element keys: like a renamed resource, an element of `side` in
/// neither base nor `other` that is like exactly one base element missing from `side`
/// (standing at the same place: between the same elements base and `side` share; content
/// `similar` calls mostly the same), that base element like no other such new element. Each
/// rename is read alone, so a side that renamed several elements of one list has each paired
/// (their other side's deletions or edits then meet them, not a clean addition). New elements
/// like none of them (an element added beside the rename) do not hide it; a new element like
/// several lost ones leaves the list unpaired. Other base elements `side` deleted there stay
/// deleted. The merge pairs elements by this rule, so a rename merged with the other side's
/// edit is not taken for a deletion plus an addition. The base element may be gone from
/// `other` too: a rename against a deletion, or against another rename, is then a conflict on
/// the element or its key, as in git's line merge, instead of a clean result holding a name
/// neither side agreed on. An element the side moved as well as renamed has no place to
/// show it: it pairs only where its content (key left out) is the same as one lost base
/// element's, no other base element's, and no other new element's (`same`): read as deleted
/// and added, its copy under the new key stood beside the other side's deletion or edit of
/// the old one, clean.
/// The check reads renames its own way (`verify::pairing`), so that a mistake of this rule
/// cannot pass it.
fn renamed_elements(
    base: &[&str],
    side: &[&str],
    other: &[&str],
    similar: impl Fn(usize, usize) -> bool,
    same: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    use std::collections::HashSet;
    fn set<'a>(v: &[&'a str]) -> HashSet<&'a str> {
        v.iter().copied().collect()
    }
    let (in_base, in_side) = (set(base), set(side));
    // A rename needs a name the side lost and one it gained: most lists have neither, and
    // every keyed list both sides changed is asked.
    if base.iter().all(|k| in_side.contains(k)) || side.iter().all(|k| in_base.contains(k)) {
        return Vec::new();
    }
    let in_other = set(other);
    fn before<'a>(v: &[&'a str], i: usize, shared: &HashSet<&str>) -> Option<&'a str> {
        v[..i].iter().rev().find(|k| shared.contains(**k)).copied()
    }
    fn after<'a>(v: &[&'a str], i: usize, shared: &HashSet<&str>) -> Option<&'a str> {
        v[i + 1..].iter().find(|k| shared.contains(**k)).copied()
    }
    // The base elements `side` lost that a new element of `side` at their place is like.
    // The place is both neighbours: where the side moved the elements around it (a reorder),
    // which new element stands for which lost one is unsure, and the element is read as
    // deleted and added (a conflict against the other side's edit) rather than paired.
    let lost_like = |si: usize| -> Vec<usize> {
        let place = (before(side, si, &in_base), after(side, si, &in_base));
        let at_place: Vec<usize> = (0..base.len())
            .filter(|&i| {
                !in_side.contains(base[i])
                    && (before(base, i, &in_side), after(base, i, &in_side)) == place
                    && similar(i, si)
            })
            .collect();
        if !at_place.is_empty() {
            return at_place;
        }
        let new_of_same = |bi: usize| {
            (0..side.len())
                .filter(|&s| !in_base.contains(side[s]) && same(bi, s))
                .count()
        };
        // Like a base element the side kept as much as the lost one, it is as likely a copy
        // of the kept one: no rename.
        let same_content: Vec<usize> = (0..base.len()).filter(|&i| same(i, si)).collect();
        match same_content[..] {
            [bi] if !in_side.contains(base[bi]) && new_of_same(bi) == 1 => vec![bi],
            _ => Vec::new(),
        }
    };
    // A base element both sides lost that a new element both sides have is like, at its
    // place, is that element's (both renamed it alike): no other new element of `side`
    // renamed it. (Where `other` still has it, `other` did not rename it.)
    let renamed_alike: HashSet<usize> = (0..side.len())
        .filter(|&i| !in_base.contains(side[i]) && in_other.contains(side[i]))
        .flat_map(lost_like)
        .filter(|&bi| !in_other.contains(base[bi]))
        .collect();
    let mut pairs = Vec::new();
    for si in (0..side.len()).filter(|&i| !in_base.contains(side[i]) && !in_other.contains(side[i]))
    {
        let lost: Vec<usize> = lost_like(si)
            .into_iter()
            .filter(|bi| !renamed_alike.contains(bi))
            .collect();
        match lost[..] {
            [] => {}
            [bi] => pairs.push((bi, si)),
            _ => return Vec::new(),
        }
    }
    // A base element two new elements are like is renamed to neither, unless one of them
    // alone holds its very content (a copy that then changed is the other).
    let claims = |bi: usize| pairs.iter().filter(|p| p.0 == bi).count();
    let same_claims = |bi: usize| pairs.iter().filter(|p| p.0 == bi && same(p.0, p.1)).count();
    pairs
        .iter()
        .copied()
        .filter(|p| claims(p.0) == 1 || same_claims(p.0) == 1 && same(p.0, p.1))
        .collect()
}

/// The elements `side` renamed in a keyed list ([`renamed_elements`]), as (index in
/// `base_elements`, index in `side_elements`) pairs, each version's elements given as (key,
/// node): content is measured with the list's `keys` left out (a rename changes them).
pub(crate) fn keyed_renames(
    base: &Tree,
    base_elements: &[(&str, NodeId)],
    side: &Tree,
    side_elements: &[(&str, NodeId)],
    other: &[&str],
    keys: &[String],
) -> Vec<(usize, usize)> {
    fn names<'a>(v: &[(&'a str, NodeId)]) -> Vec<&'a str> {
        v.iter().map(|e| e.0).collect()
    }
    let nodes = |b: usize, s: usize| (base_elements[b].1, side_elements[s].1);
    renamed_elements(
        &names(base_elements),
        &names(side_elements),
        other,
        |b, s| {
            let (bn, sn) = nodes(b, s);
            similar_element(base, bn, side, sn, keys)
        },
        |b, s| {
            let (bn, sn) = nodes(b, s);
            same_element(base, bn, side, sn, keys)
        },
    )
}
