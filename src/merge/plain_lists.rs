//! Lists without merge keys (`args`, RBAC `rules`, kustomization `patches`, CI `steps`)
//! changed on both sides: a 3-way merge of the element sequences, elements compared as
//! data. Edits at different places merge; where both sides changed one stretch, the stretch
//! still merges when one side only inserted or deleted there and the other only edited
//! elements in place; anything else is a conflict around just those elements.
//!
//! An element is the same element across versions only by its content, or by its place when
//! both sides edited it in place: an element that turns up where another was is a move, not
//! an edit, so an edit never lands on the element that happens to stand in its place.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::parse::{canonical, data_names, Kind, NodeId, Tree};
use crate::resource::Path;

use super::merger::Merger;
use super::plan::{Anchor, Field, Op};
use super::policy::Resolution;
use crate::text::diff3::stretches;
use crate::text::{diff3, Chunk};

/// One version's list: its items and their data.
struct Items {
    nodes: Vec<NodeId>,
    /// Each item's data named by [`data_names`]: only equality matters here.
    data: Vec<u128>,
}

impl Items {
    /// The items of three versions' lists, their data named alike across the three.
    fn of([(bt, b), (ot, o), (tt, t)]: [(&Tree, NodeId); 3]) -> [Items; 3] {
        let [bd, od, td] = data_names([
            (bt, bt.children(b)),
            (ot, ot.children(o)),
            (tt, tt.children(t)),
        ]);
        [(bt, b, bd), (ot, o, od), (tt, t, td)].map(|(tree, list, data)| Items {
            nodes: tree.children(list).to_vec(),
            data,
        })
    }

    fn count(&self) -> HashMap<u128, usize> {
        let mut c = HashMap::new();
        for &d in &self.data {
            *c.entry(d).or_insert(0) += 1;
        }
        c
    }
}

/// What one stretch both sides changed merges to, before anything is planned.
enum Step {
    /// Merge base's element with ours' and theirs' versions of it.
    Merge(NodeId, NodeId, NodeId),
    /// Delete ours' element.
    Delete(NodeId),
    /// Insert theirs' element before ours' element (`None`: at the stretch's end).
    Insert(NodeId, Option<NodeId>),
}

impl Merger<'_> {
    /// Under `--on-conflict ours`, a list a side reordered: every element counted, as mark
    /// mode's check counts them (base's number of each, plus each side's change of it), in
    /// the order of the side that alone reordered the elements all three hold (ours' where
    /// both did). Ours' elements stay in place where that order allows; the others are
    /// theirs' copies, inserted after the element before them in theirs. A change both
    /// sides made to one element stands as both elements, which ours' rule cannot tell
    /// apart from two additions once the element moved.
    fn ours_by_count(&mut self, [base, ours, theirs]: [&Items; 3], o: Field) {
        let (cb, co, ct) = (base.count(), ours.count(), theirs.count());
        let want = |d: &u128| -> usize {
            let get = |c: &HashMap<u128, usize>| c.get(d).copied().unwrap_or(0) as i64;
            let (nb, no, nt) = (get(&cb), get(&co), get(&ct));
            let (d_o, d_t) = (no - nb, nt - nb);
            let n = if d_o == d_t { nb + d_o } else { nb + d_o + d_t };
            usize::try_from(n.max(0)).unwrap_or(0)
        };
        let follow_theirs = {
            let [sb, so, st] = once_orders([base, ours, theirs]);
            st != sb && so == sb
        };
        // Ours' elements the result holds: as many of each as it wants, the first copies.
        let mut taken: HashMap<u128, usize> = HashMap::new();
        let kept: Vec<usize> = (0..ours.data.len())
            .filter(|&i| {
                let d = ours.data[i];
                let n = taken.entry(d).or_insert(0);
                *n += 1;
                *n <= want(&d)
            })
            .collect();
        // Ours' kept elements paired with theirs' by content, in order. In theirs' order an
        // element theirs moved (outside a longest run theirs shares with base) pairs with
        // none of ours: ours' copy goes where theirs put it, and the elements theirs left
        // in place keep ours' text and what ours put beside them.
        let kept_data: Vec<u128> = kept.iter().map(|&i| ours.data[i]).collect();
        let mut theirs_data = theirs.data.clone();
        if follow_theirs {
            let mut in_place = vec![false; theirs.data.len()];
            for (_, j) in equal_pairs(&base.data, &theirs.data) {
                in_place[j] = true;
            }
            for (j, d) in theirs_data.iter_mut().enumerate() {
                if !in_place[j] {
                    *d = u128::MAX - j as u128;
                }
            }
        }
        let mut pair_of_theirs: Vec<Option<usize>> = vec![None; theirs.data.len()];
        let mut paired_ours = vec![false; kept.len()];
        for (k, j) in equal_pairs(&kept_data, &theirs_data) {
            pair_of_theirs[j] = Some(kept[k]);
            paired_ours[k] = true;
        }
        // In theirs' order, an unpaired ours element theirs also holds goes, and theirs'
        // copy comes in at theirs' place.
        let mut have: HashMap<u128, usize> = HashMap::new();
        let mut stays = vec![false; ours.data.len()];
        for (k, &i) in kept.iter().enumerate() {
            let d = ours.data[i];
            let moved = follow_theirs && !paired_ours[k] && ct.contains_key(&d);
            if !moved {
                stays[i] = true;
                *have.entry(d).or_insert(0) += 1;
            }
        }
        for (&node, _) in ours.nodes.iter().zip(&stays).filter(|(_, &s)| !s) {
            self.delete(Field::item(node));
        }
        let first = ours.nodes[0];
        let mut inserted = false;
        let mut after: Option<NodeId> = None;
        for (j, (&d, pair)) in theirs.data.iter().zip(&pair_of_theirs).enumerate() {
            if let Some(i) = pair.filter(|&i| stays[i]) {
                after = Some(ours.nodes[i]);
                continue;
            }
            let n = have.entry(d).or_insert(0);
            if *n >= want(&d) {
                continue;
            }
            *n += 1;
            let at = after.map_or(Anchor::Before(Field::item(first)), |a| {
                Anchor::After(Field::item(a))
            });
            self.insert(
                Field::item(theirs.nodes[j]),
                at,
                Some(Field::item(first)),
                Vec::new(),
            );
            inserted = true;
        }
        if !inserted {
            self.empty_if_all_deleted(o, &ours.nodes);
        }
    }

    /// Merges a list without merge keys both sides changed.
    pub(super) fn merge_plain_list(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) {
        let Some(b) = b.filter(|b| self.base.node(b.node).kind == Kind::Seq) else {
            return self.both_changed(path, b, o, t);
        };
        let [base, ours, theirs] = Items::of([
            (self.base, b.node),
            (self.ours, o.node),
            (self.theirs, t.node),
        ]);
        let Some(&first) = ours.nodes.first() else {
            return self.both_changed(path, Some(b), o, t);
        };
        // Under `--on-conflict ours` ours keeps each stretch both sides changed; where a side
        // moved an element of such a stretch to or from another stretch, ours' stretch kept
        // beside theirs' other edits would drop that element or hold it twice: ours' list
        // stays whole, as mark mode's check widens such a conflict to the whole list.
        let ours_mode = self.opts.policy.resolve() == Resolution::Ours;
        let conflicts = || {
            diff3(&base.data, &ours.data, &theirs.data)
                .iter()
                .any(|c| matches!(c, Chunk::Conflict { .. }))
        };
        // Under ours, where a side reordered the list and the diff3 conflicts or the list is
        // one decision (below), each element is counted instead (ours' whole list would
        // lose theirs' move and edits).
        let counted = ours_mode && reordered([&base, &ours, &theirs]);
        if counted && conflicts() {
            // A side reordered the list: the element diff3 reads a move as a deletion and an
            // insertion, so the other side's edit beside it conflicts, and ours' stretch kept
            // (or ours' whole list) would lose theirs' move or theirs' other edits.
            return self.ours_by_count([&base, &ours, &theirs], o);
        }
        if ours_mode && moved_across([&base, &ours, &theirs], None, true) {
            // Ours' whole list would drop an element theirs alone added (more new elements
            // than base ones it took away), which no decision of ours' covers: each element
            // is counted instead (adversary manifests-ours-1133-68: theirs moved an element ours
            // deleted and added one; ours took a key out of another).
            if theirs_added_new([&base, &ours, &theirs]) {
                return self.ours_by_count([&base, &ours, &theirs], o);
            }
            return;
        }
        let (cb, co, ct) = (base.count(), ours.count(), theirs.count());
        let chunks = diff3(&base.data, &ours.data, &theirs.data);
        // An element both sides added, at different places: in an ordered list where it goes
        // matters, and neither place is the obvious one.
        let added_by_both: HashSet<u128> = chunks
            .iter()
            .filter_map(|c| match c {
                Chunk::Theirs { theirs: tr, .. } => Some(tr.clone()),
                _ => None,
            })
            .flat_map(|tr| theirs.data[tr].iter().copied())
            .filter(|d| co.get(d) > cb.get(d) && ct.get(d) > cb.get(d))
            .collect();
        // A new element each side added once, outside any stretch both changed: a conflict
        // at each of the two places (ours' element against nothing, nothing against theirs'),
        // so that either side taken throughout holds it once, where that side put it, and
        // the rest of the list merges as usual. Anything more tangled conflicts as a whole.
        let in_conflicts = |d: u128| {
            chunks.iter().any(|c| match c {
                Chunk::Conflict {
                    ours: or,
                    theirs: tr,
                    ..
                } => ours.data[or.clone()].contains(&d) || theirs.data[tr.clone()].contains(&d),
                _ => false,
            })
        };
        let separable = added_by_both.iter().all(|&d| {
            !cb.contains_key(&d)
                && co.get(&d) == Some(&1)
                && ct.get(&d) == Some(&1)
                && !in_conflicts(d)
        });
        if !added_by_both.is_empty() && !separable {
            if counted {
                return self.ours_by_count([&base, &ours, &theirs], o);
            }
            return self.both_changed(path, Some(b), o, t);
        }
        // A base element each side moved, to different places (ours' stretch inserting it,
        // theirs' another, neither side adding a copy): each move kept would hold it twice,
        // and neither place is the obvious one. The two moves are one decision: a conflict
        // of the whole list (as a stretch an element moved across is).
        let inserted_by = |ours_side: bool| -> HashSet<u128> {
            chunks
                .iter()
                .flat_map(|c| match c {
                    Chunk::Ours { ours: or } if ours_side => ours.data[or.clone()].to_vec(),
                    Chunk::Theirs { theirs: tr, .. } if !ours_side => {
                        theirs.data[tr.clone()].to_vec()
                    }
                    _ => Vec::new(),
                })
                .collect()
        };
        let moved_by_both = inserted_by(true)
            .intersection(&inserted_by(false))
            .any(|d| {
                cb.get(d).is_some_and(|&n| {
                    co.get(d).is_some_and(|&m| m <= n) && ct.get(d).is_some_and(|&m| m <= n)
                })
            });
        if moved_by_both {
            if counted {
                return self.ours_by_count([&base, &ours, &theirs], o);
            }
            return self.both_changed(path, Some(b), o, t);
        }
        // A stretch both sides inserted alike is taken once: right where each side added
        // those elements, wrong where one side only moved one there (`[name, value]` to
        // `[value, name]`) and the other added a copy (`[value, name, value]`): taken once,
        // the copy is lost. Where a side's own count of an element grows less than the
        // stretch's, the two insertions are not one: a conflict of the whole list. (A
        // deletion both made alike beside a move is the move's business, below.)
        let net = |c: &HashMap<u128, usize>, d: &u128| {
            c.get(d).copied().unwrap_or(0) as isize - cb.get(d).copied().unwrap_or(0) as isize
        };
        let alike_but_not_one = chunks.iter().any(|c| {
            let Chunk::Both {
                base: br, ours: or, ..
            } = c
            else {
                return false;
            };
            let mut k: HashMap<u128, isize> = HashMap::new();
            for d in &ours.data[or.clone()] {
                *k.entry(*d).or_insert(0) += 1;
            }
            for d in &base.data[br.clone()] {
                *k.entry(*d).or_insert(0) -= 1;
            }
            k.iter().any(|(d, &k)| {
                let (no, nt) = (net(&co, d), net(&ct, d));
                k > 0 && (no < k || nt < k)
            })
        });
        if alike_but_not_one {
            // Under ours, ours' whole list would also undo theirs' edits elsewhere in it (an
            // element theirs alone deleted): each element is counted instead.
            if counted {
                return self.ours_by_count([&base, &ours, &theirs], o);
            }
            return self.both_changed(path, Some(b), o, t);
        }
        let mark = self.opts.policy.resolve() == Resolution::Mark;
        if mark && !added_by_both.is_empty() {
            // Named by their data, as they read in theirs.
            let mut names: Vec<String> = theirs
                .nodes
                .iter()
                .zip(&theirs.data)
                .filter(|(_, d)| added_by_both.contains(d))
                .map(|(&n, _)| canonical(self.theirs, n))
                .collect();
            names.sort_unstable();
            names.dedup();
            self.record_conflict(
                &path.shown,
                format!(
                    "both sides added {} at different places of this ordered list",
                    names.join(", ")
                ),
            );
        }
        let item = Field::item;
        let like = Some(item(first));
        let planned = (
            self.plan.ops.len(),
            self.plan.conflicts.len(),
            self.deleted.clone(),
        );
        let at = |j: usize| match ours.nodes.get(j) {
            Some(&e) => Anchor::Before(item(e)),
            None => Anchor::After(item(ours.nodes[ours.nodes.len() - 1])),
        };
        let mut inserted = false;
        for chunk in chunks {
            let chunk = match chunk {
                Chunk::Both {
                    base: br,
                    ours: or,
                    theirs: tr,
                } => {
                    // Elements both sides edited alike: ours' text stays, in theirs' key
                    // order where only theirs reordered (one element each, in place).
                    if br.len() == or.len() && or.len() == tr.len() {
                        for ((&bn, &on), &tn) in base.nodes[br]
                            .iter()
                            .zip(&ours.nodes[or.clone()])
                            .zip(&theirs.nodes[tr])
                        {
                            self.follow_theirs_order_within(bn, item(on), tn);
                        }
                    }
                    Chunk::Ours { ours: or }
                }
                other => other,
            };
            match chunk {
                Chunk::Same { .. } | Chunk::Both { .. } => {}
                Chunk::Ours { ours: or, .. } => {
                    for i in or.clone() {
                        if mark && added_by_both.contains(&ours.data[i]) {
                            let at = Anchor::Before(item(ours.nodes[i]));
                            let mine = vec![item(ours.nodes[i])];
                            self.plan.ops.push(Op::Conflict {
                                base: Vec::new(),
                                ours: mine,
                                theirs: Vec::new(),
                                at,
                                like,
                            });
                        }
                    }
                    // Ours moving an element theirs deleted does not keep it.
                    for i in or {
                        let d = &ours.data[i];
                        let moved = cb
                            .get(d)
                            .is_some_and(|&n| co.get(d).is_some_and(|&m| m <= n));
                        if moved && ct.get(d) < cb.get(d) {
                            self.delete(item(ours.nodes[i]));
                        }
                    }
                }
                Chunk::Theirs {
                    base: br,
                    ours: or,
                    theirs: tr,
                } => {
                    // Theirs edited these elements where they stand (none is another base
                    // element moved there): each merges field by field, so ours' text stays
                    // wherever theirs did not change it, as inside a map.
                    let in_place = br.len() == tr.len()
                        && br.len() == or.len()
                        && (0..br.len()).all(|k| {
                            edited_in_place(theirs.data[tr.start + k], base.data[br.start + k], &cb)
                        });
                    if in_place {
                        for k in 0..br.len() {
                            let (bn, on, tn) = (
                                base.nodes[br.start + k],
                                ours.nodes[or.start + k],
                                theirs.nodes[tr.start + k],
                            );
                            let sub = path.element(&format!("{}", br.start + k));
                            self.merge_value(&sub, Some(item(bn)), item(on), item(tn));
                        }
                        continue;
                    }
                    let pos = at(or.start);
                    for i in tr {
                        // Theirs moving an element ours deleted does not bring it back.
                        let d = &theirs.data[i];
                        let moved_away =
                            cb.get(d).is_some_and(|&n| co.get(d).is_none_or(|&m| m < n))
                                && ct.get(d) <= cb.get(d);
                        if added_by_both.contains(d) {
                            // Ours has it where ours put it; in mark mode theirs' place is
                            // the other side of the conflict.
                            if mark {
                                self.plan.ops.push(Op::Conflict {
                                    base: Vec::new(),
                                    ours: Vec::new(),
                                    theirs: vec![item(theirs.nodes[i])],
                                    at: pos,
                                    like,
                                });
                                inserted = true;
                            }
                        } else if !moved_away {
                            self.insert(item(theirs.nodes[i]), pos, like, Vec::new());
                            inserted = true;
                        }
                    }
                    for &i in &ours.nodes[or] {
                        self.delete(item(i));
                    }
                }
                Chunk::Conflict {
                    base: br,
                    ours: or,
                    theirs: tr,
                } => {
                    let versions = [&base, &ours, &theirs];
                    // Theirs inserting here an element ours also added (in its own edit of
                    // the stretch): two copies, or one in a place neither chose: a conflict.
                    let twice = |steps: &Vec<Step>| {
                        steps.iter().any(|step| match step {
                            Step::Insert(tn, _) => {
                                let at = theirs.nodes.iter().position(|n| n == tn);
                                let d = at.map(|at| theirs.data[at]);
                                d.is_some_and(|d| co.get(&d) > cb.get(&d))
                            }
                            _ => false,
                        })
                    };
                    let steps = in_place(versions, [&br, &or, &tr], &cb)
                        .or_else(|| one_side_moves(versions, [&br, &or, &tr], &cb, false))
                        .or_else(|| one_side_moves(versions, [&br, &or, &tr], &cb, true))
                        .or_else(|| both_deleted(versions, [&br, &or, &tr], &cb))
                        .filter(|steps| !twice(steps));
                    match steps {
                        Some(steps) => {
                            for step in steps {
                                match step {
                                    Step::Merge(bn, on, tn) => {
                                        let at =
                                            base.nodes.iter().position(|&x| x == bn).unwrap_or(0);
                                        let sub = path.element(&format!("{at}"));
                                        self.merge_value(&sub, Some(item(bn)), item(on), item(tn));
                                    }
                                    Step::Delete(on) => self.delete(item(on)),
                                    Step::Insert(tn, before) => {
                                        let pos = before.map_or_else(
                                            || at(or.end),
                                            |e| Anchor::Before(item(e)),
                                        );
                                        self.insert(item(tn), pos, like, Vec::new());
                                        inserted = true;
                                    }
                                }
                            }
                        }
                        // In mark mode a stretch left in conflict that an element moved out
                        // of or into makes the whole list the conflict: theirs moving an
                        // element ours edited where it stood leaves theirs' side of the stretch
                        // without it, and the move is not taken either (ours no longer holds
                        // the element as base had it, as if deleted): theirs' side would lose
                        // it. Ours mode keeps such a list whole for the same reason.
                        None if self.opts.policy.resolve() == Resolution::Mark
                            && moved_across([&base, &ours, &theirs], Some(&br), true) =>
                        {
                            self.undo(planned);
                            return self.both_changed(path, Some(b), o, t);
                        }
                        // Under `--on-conflict ours`, a stretch theirs only reordered and added
                        // to (every base element of it still there): ours' stretch kept would
                        // drop theirs' additions, a change only theirs made. Each element is
                        // counted instead, theirs' additions going in beside ours' edits.
                        None if self.opts.policy.resolve() == Resolution::Ours
                            && moved_and_added(
                                &base.data[br.clone()],
                                &theirs.data[tr.clone()],
                            ) =>
                        {
                            self.undo(planned);
                            return self.ours_by_count([&base, &ours, &theirs], o);
                        }
                        // Under `--on-conflict ours`, a stretch holding an element a side
                        // repeats and another stretch a side changed also holds (theirs moved
                        // it out, ours added a copy): ours' stretch kept beside theirs' other
                        // stretch would hold it once too often. Each element is counted.
                        None if self.opts.policy.resolve() == Resolution::Ours
                            && moved_across([&base, &ours, &theirs], Some(&br), false) =>
                        {
                            self.undo(planned);
                            return self.ours_by_count([&base, &ours, &theirs], o);
                        }
                        // Under `--on-conflict ours` ours keeps a stretch that is a conflict
                        // in mark mode; one mark mode merges element by element (an element
                        // each side edited, theirs adding one beside it) merges so here too.
                        None if self.opts.policy.resolve() == Resolution::Ours => {}
                        None => {
                            let fields =
                                |ids: &[NodeId]| ids.iter().map(|&i| item(i)).collect::<Vec<_>>();
                            let what = format!(
                                "both sides changed elements {}..{} differently",
                                br.start, br.end
                            );
                            self.conflict_many(
                                &path.element(&format!("{}", br.start)).shown,
                                what,
                                [
                                    fields(&base.nodes[br.clone()]),
                                    fields(&ours.nodes[or.clone()]),
                                    fields(&theirs.nodes[tr]),
                                ],
                                at(or.start),
                                like,
                            );
                        }
                    }
                }
            }
        }
        if !inserted {
            self.empty_if_all_deleted(o, &ours.nodes);
        }
    }

    /// Takes back what was planned since `planned` (the plan's op and conflict counts and the
    /// nodes deleted then): a stretch that turns out to need another reading is planned anew.
    fn undo(&mut self, (ops, conflicts, deleted): (usize, usize, HashSet<NodeId>)) {
        self.plan.ops.truncate(ops);
        self.plan.conflicts.truncate(conflicts);
        self.deleted = deleted;
    }
}

/// The elements of `old` and `new` Myers' diff reads as unchanged, as (old, new) indexes in
/// order.
fn equal_pairs(old: &[u128], new: &[u128]) -> Vec<(usize, usize)> {
    capture_diff_slices(Algorithm::Myers, old, new)
        .into_iter()
        .flat_map(|op| match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => (0..len).map(|n| (old_index + n, new_index + n)).collect(),
            _ => Vec::new(),
        })
        .collect()
}

/// The relative order, in base, ours and theirs, of the elements each holds exactly once.
fn once_orders([base, ours, theirs]: [&Items; 3]) -> [Vec<u128>; 3] {
    let counts = [base.count(), ours.count(), theirs.count()];
    let once = |d: &u128| counts.iter().all(|c| c.get(d) == Some(&1));
    [base, ours, theirs].map(|v| v.data.iter().copied().filter(once).collect())
}

/// Whether theirs put in more new elements (held by neither base nor ours) than it took base
/// elements away: then at least one is an addition, not theirs' edit of a base element (an
/// edit is one taken away and one put in, which ours' whole list may win as a decision).
/// A base element taken away whose place an element both sides put in alike can fill is
/// no reason to read theirs' other new ones as edits: that one is theirs' edit (or rename)
/// of it (adversary manifests-ours-1292-1664: both sides put in one CRD version where theirs
/// renamed base's, theirs added another, and ours' whole list dropped it).
fn theirs_added_new([base, ours, theirs]: [&Items; 3]) -> bool {
    let (cb, co, ct) = (base.count(), ours.count(), theirs.count());
    let new_in = |d: &u128, c: &HashMap<u128, usize>| {
        c.get(d)
            .copied()
            .unwrap_or(0)
            .saturating_sub(cb.get(d).copied().unwrap_or(0))
    };
    let added = ct
        .iter()
        .filter(|(d, _)| !cb.contains_key(d) && !co.contains_key(d))
        .map(|(_, &n)| n)
        .sum::<usize>();
    let alike = ct
        .keys()
        .map(|d| new_in(d, &ct).min(new_in(d, &co)))
        .sum::<usize>();
    let taken = cb
        .iter()
        .map(|(d, &n)| n.saturating_sub(ct.get(d).copied().unwrap_or(0)))
        .sum::<usize>();
    added > taken.saturating_sub(alike)
}

/// Whether a side changed the relative order of the elements all three versions hold once.
fn reordered(versions: [&Items; 3]) -> bool {
    let [sb, so, st] = once_orders(versions);
    so != sb || st != sb
}

/// Whether an element of a stretch both sides changed differently (the one at base's `at`,
/// or any where `at` is `None`) also stands in another stretch a side changed: a side moved
/// it across the conflict's bounds. With `once`, only an element each version holds once at
/// most can be said to move (a repeated `-t` in `args` cannot); without it, any element
/// counts, for a rule that only needs to know the two stretches share one (to count them).
fn moved_across([base, ours, theirs]: [&Items; 3], at: Option<&Range<usize>>, once: bool) -> bool {
    let counts = [base.count(), ours.count(), theirs.count()];
    let single = |d: &u128| !once || counts.iter().all(|c| c.get(d).is_none_or(|&n| n <= 1));
    let changed: Vec<(bool, HashSet<u128>)> = stretches(&base.data, &ours.data, &theirs.data)
        .into_iter()
        .filter(|s| !matches!(s.chunk, Chunk::Same { .. }))
        .map(|s| {
            let here =
                matches!(s.chunk, Chunk::Conflict { .. }) && at.is_none_or(|at| s.base == *at);
            let data = base.data[s.base]
                .iter()
                .chain(&ours.data[s.ours])
                .chain(&theirs.data[s.theirs])
                .copied()
                .collect();
            (here, data)
        })
        .collect();
    changed.iter().enumerate().any(|(i, (here, d))| {
        *here
            && changed
                .iter()
                .enumerate()
                .any(|(j, (_, e))| i != j && d.intersection(e).any(single))
    })
}

/// Whether a side's stretch holds every element of base's stretch (as many of each) and more:
/// that side only moved elements and added some, so no element of it is an edit of another.
fn moved_and_added(base: &[u128], side: &[u128]) -> bool {
    let mut left: HashMap<u128, usize> = HashMap::new();
    for &d in side {
        *left.entry(d).or_insert(0) += 1;
    }
    side.len() > base.len()
        && base.iter().all(|d| match left.get_mut(d) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
}

/// Whether an element of a stretch is the base element at its place edited, not another base
/// element moved there: its data is not any base element's, unless it is its own.
fn edited_in_place(data: u128, own: u128, in_base: &HashMap<u128, usize>) -> bool {
    data == own || !in_base.contains_key(&data)
}

/// Both sides edited the same elements in place (the stretch has one length in all three):
/// each element merges field by field with its versions. A side that still holds the base
/// element as often as base does, elsewhere, did not edit it here: it moved it and put a new
/// element in its place, or edited it and added a copy of the old one; which of the two is
/// not for the merge to guess (taken as an edit, the check, reading a move, rejected the
/// clean result as a bug).
fn in_place(
    [base, ours, theirs]: [&Items; 3],
    [br, or, tr]: [&Range<usize>; 3],
    in_base: &HashMap<u128, usize>,
) -> Option<Vec<Step>> {
    if br.len() != or.len() || br.len() != tr.len() {
        return None;
    }
    let (co, ct) = (ours.count(), theirs.count());
    let kept_elsewhere = |side: &HashMap<u128, usize>, data: u128, own: u128| {
        data != own && side.get(&own) >= in_base.get(&own)
    };
    (0..br.len())
        .map(|n| {
            let own = base.data[br.start + n];
            let (od, td) = (ours.data[or.start + n], theirs.data[tr.start + n]);
            let ok = edited_in_place(od, own, in_base)
                && edited_in_place(td, own, in_base)
                && !kept_elsewhere(&co, od, own)
                && !kept_elsewhere(&ct, td, own);
            ok.then(|| {
                Step::Merge(
                    base.nodes[br.start + n],
                    ours.nodes[or.start + n],
                    theirs.nodes[tr.start + n],
                )
            })
        })
        .collect()
}

/// One side only inserted and deleted elements in the stretch, the other only edited them in
/// place: the first side's sequence, with the other's edits merged into the elements it
/// kept. An element one side deleted and the other edited is no such stretch (a conflict).
/// `theirs_moves` says which side inserted and deleted.
fn one_side_moves(
    [base, ours, theirs]: [&Items; 3],
    [br, or, tr]: [&Range<usize>; 3],
    in_base: &HashMap<u128, usize>,
    theirs_moves: bool,
) -> Option<Vec<Step>> {
    let (mover, mr, editor, er) = if theirs_moves {
        (theirs, tr, ours, or)
    } else {
        (ours, or, theirs, tr)
    };
    if er.len() != br.len() {
        return None;
    }
    let edited = |k: usize| editor.data[er.start + k] != base.data[br.start + k];
    if (0..br.len()).any(|k| {
        edited(k) && !edited_in_place(editor.data[er.start + k], base.data[br.start + k], in_base)
    }) {
        return None;
    }
    // Which base element each of the mover's elements is (by content, in order).
    let mut kept: Vec<Option<usize>> = vec![None; mr.len()];
    let mut seen = vec![false; br.len()];
    for (b, m) in equal_pairs(&base.data[br.clone()], &mover.data[mr.clone()]) {
        kept[m] = Some(b);
        seen[b] = true;
    }
    // A base element the mover deleted must be one the editor left alone.
    if (0..br.len()).any(|k| !seen[k] && edited(k)) {
        return None;
    }
    // The editor's edit made an element the mover added as new (theirs took a step's key away,
    // ours added a nameless copy of it): read as an edit beside an addition, the result holds
    // it twice; read as base's element deleted and one added alike by both, once. Which is
    // not for the merge to guess (taken as an edit, the check, reading the other, rejected
    // the clean result as a bug): a conflict.
    let added = |d: u128| (0..mr.len()).any(|j| kept[j].is_none() && mover.data[mr.start + j] == d);
    if (0..br.len()).any(|k| edited(k) && added(editor.data[er.start + k])) {
        return None;
    }
    let mut steps = Vec::new();
    if theirs_moves {
        // Ours' in-place elements stay; theirs' deletions and insertions apply to them.
        for k in (0..br.len()).filter(|&k| !seen[k]) {
            steps.push(Step::Delete(ours.nodes[or.start + k]));
        }
        for (j, k) in kept.iter().enumerate() {
            if k.is_none() {
                let next = kept[j..].iter().flatten().next();
                let before = next.map(|&k| ours.nodes[or.start + k]);
                steps.push(Step::Insert(theirs.nodes[tr.start + j], before));
            }
        }
    } else {
        // Ours' sequence stays; theirs' edits merge into the elements ours kept.
        for k in kept.iter().flatten() {
            if edited(*k) {
                let j = kept.iter().position(|x| x == &Some(*k))?;
                steps.push(Step::Merge(
                    base.nodes[br.start + k],
                    ours.nodes[or.start + j],
                    theirs.nodes[tr.start + k],
                ));
            }
        }
    }
    Some(steps)
}

/// Both sides only deleted elements of the stretch, different ones (ours `[a, c]` and theirs
/// `[b, c]` of base `[a, b, c]`, as two adjacent keywords each side dropped one of): both
/// deletions stand, leaving what neither deleted. Only where every element of base's stretch
/// is there once and neither side holds a copy of it elsewhere, so which element a side
/// deleted is not in doubt (a repeated element could be any of its copies).
fn both_deleted(
    [base, ours, theirs]: [&Items; 3],
    [br, or, tr]: [&Range<usize>; 3],
    in_base: &HashMap<u128, usize>,
) -> Option<Vec<Step>> {
    let (co, ct) = (ours.count(), theirs.count());
    let stretch = &base.data[br.clone()];
    let unique = stretch
        .iter()
        .all(|d| in_base.get(d) == Some(&1) && co.get(d) <= Some(&1) && ct.get(d) <= Some(&1));
    // Each side's stretch is base's with elements left out, in base's order.
    let only_deletes = |side: &[u128], count: &HashMap<u128, usize>| {
        let mut rest = stretch.iter();
        side.iter().all(|d| rest.any(|b| b == d))
            && stretch
                .iter()
                .all(|d| side.contains(d) || !count.contains_key(d))
    };
    let (od, td) = (&ours.data[or.clone()], &theirs.data[tr.clone()]);
    if !unique || !only_deletes(od, &co) || !only_deletes(td, &ct) {
        return None;
    }
    Some(
        od.iter()
            .zip(&ours.nodes[or.clone()])
            .filter(|(d, _)| !td.contains(d))
            .map(|(_, &n)| Step::Delete(n))
            .collect(),
    )
}
