//! A list both sides changed: keyed lists element by element (by the list-key table, the
//! elements paired by the verifier's own reading, see [`super::pairing`]), other lists as
//! sequences of elements compared by content, so a move is seen as a move and not as an edit
//! of whatever element landed in its place.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::git::line_merge::favouring_ours;
use crate::parse::{canonical, data_names, digest, same_data, Kind, NodeId, Tree};
use crate::resource::{element_key, list_kind, ListKind, Path};

use super::identity::{Identity, IDENTITY_FIELDS};
use super::pairing::{by_key, by_likeness, Item, Leaves, Row, COMPARED_PAIRS};
use super::values::{anchor_place, anchor_rank, cleared_same, At, Checker};
use super::{Finding, Rule, Taken, Violation};

/// An element of a version and the result's element with the same key: (shown key, the
/// version's node, the result's node).
pub(super) type KeyedPair = (String, NodeId, NodeId);

impl Checker<'_> {
    /// Checks a list both sides changed. `at` holds base's, ours', theirs' and the result's.
    pub(super) fn list(&mut self, path: &Path, common: Option<&str>, at: [At; 4]) {
        let [b, o, t, r] = at;
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        let kind = self.kind_of(path, &[(bt, b), (ot, o), (tt, t)]);
        let kyaml = self.rule == Rule::Kyaml;
        // kyaml's lookups read the first of two elements of one key in every list: the
        // first stands for the key, and the merge edits ours' list node in place, so a
        // later element of ours' key is left as it stands (checked below).
        let name = |tree: &Tree, list: At, first_stands: bool| -> Option<Vec<Item>> {
            let Some(list) = list else {
                return Some(Vec::new());
            };
            if tree.node(list).kind != Kind::Seq {
                return Some(Vec::new());
            }
            named(tree, list, kind.as_ref(), kyaml, first_stands && kyaml)
        };
        // A list one side emptied while the other took an element away and put a new one in
        // (an element without a key edited): the edited element must not come back alone.
        let keyed = matches!(kind, Some(ListKind::Keyed(_)) | None);
        if self.rule == Rule::Mark && !keyed {
            if let Some(who) = emptied_against_an_edit([(bt, b), (ot, o), (tt, t)]) {
                return self.unmarked(
                    path,
                    common,
                    format!("{who} emptied the list and the other side changed an element of it: a conflict, not a clean merge"),
                );
            }
        }
        // A set whose order (or style) alone ours changed, under ours: ours' text is a change
        // both sides made to the list, and ours' list whole is an answer the policy allows.
        if self.rule == Rule::Ours && kind.as_ref() == Some(&ListKind::Set) {
            let entries = |tree: &Tree, x: At| {
                x.filter(|&x| tree.node(x).kind == Kind::Seq)
                    .map(|x| sorted_entries(tree, x))
            };
            let reordered = entries(bt, b).is_some_and(|e| Some(e) == entries(ot, o));
            if reordered && matches!((o, r), (Some(o), Some(r)) if same_data(ot, o, rt, r)) {
                return;
            }
        }
        if kind.as_ref() != Some(&ListKind::Plain) {
            if let (Some(bn), Some(on), Some(tn)) =
                (name(bt, b, true), name(ot, o, true), name(tt, t, true))
            {
                let Some(rn) = name(rt, r, true) else {
                    return self.at(
                        path,
                        common,
                        "an element key is missing or repeated in the result",
                    );
                };
                // Where theirs deleted the key, its later elements go with the first.
                if kyaml {
                    let kept: HashSet<&str> = rn.iter().map(|i| i.key.as_str()).collect();
                    let ours_repeats: Vec<(String, String)> = repeats(ot, o, kind.as_ref())
                        .into_iter()
                        .filter(|(key, _)| kept.contains(key.as_str()))
                        .collect();
                    if ours_repeats != repeats(rt, r, kind.as_ref()) {
                        return self.at(
                            path,
                            common,
                            "ours' later elements of a repeated key expected as they stand (kyaml)",
                        );
                    }
                }
                let set = kind.as_ref() == Some(&ListKind::Set);
                return self.keyed(path, common, set, kind.as_ref(), [bn, on, tn, rn]);
            }
        }
        match self.rule {
            Rule::Mark | Rule::Resolved(_) => self.plain(path, common, at, true),
            Rule::Kyaml => {
                // kyaml takes a list without merge keys whole from theirs.
                if !cleared_same(rt, r, tt, t) {
                    self.at(path, common, "theirs' list expected whole (kyaml)");
                }
            }
            Rule::Ours => {
                // Mark mode's rules first: a list they merge cleanly (an element each side
                // edited merged field by field, ours winning a field both changed) is right.
                if self.attempt(|c| c.plain(path, common, at, true)).is_empty() {
                    return;
                }
                // Else ours wins each stretch both changed, as a person taking ours' side of a
                // conflict there would: ours' elements of the stretch, and theirs' changes
                // outside it. An element theirs deleted that ours left alone stays deleted
                // (values-ours-1130-333: "every element from one side" let it come back).
                // The stretches are those of the sequence reading (DESIGN.md: edits of a
                // list that overlap conflict around just those elements), or an element each
                // side changed. Ours' list whole is no such answer where theirs changed
                // elements outside ours' stretches (values-ours-77-94: theirs' additions
                // after an element no side touched were dropped at exit 0), nor where it
                // keeps an element theirs deleted and ours holds as base has it: that
                // deletion conflicts with nothing of ours, so it stands even beside the
                // stretch (packages-ours-1136-1595: a kustomization's `patches`, theirs
                // deleting one patch and swapping the next two, ours deleting one of those).
                if self.ours_stretches(at)
                    && !(self.equal(path, ot, o, r)
                        && theirs_took_out_what_ours_kept([(bt, b), (ot, o), (tt, t)]))
                {
                    return;
                }
                let found = self.attempt(|c| {
                    // The policy's clean merge: ours' stretches win with their order.
                    c.rule = Rule::Resolved(Taken::Ours);
                    c.plain(path, common, at, false);
                });
                self.extend(found);
            }
        }
    }

    /// Whether `x` and the result's `r` are one set list (`finalizers`, a kustomization's
    /// `resources`) holding the same entries, in whatever order: kyaml keeps ours' order of
    /// a set where theirs only reordered it.
    pub(super) fn same_set(&self, path: &Path, xt: &Tree, x: At, r: At) -> bool {
        let rt = self.r;
        let (Some(x), Some(r)) = (x, r) else {
            return false;
        };
        let is_seq = |tree: &Tree, n: NodeId| tree.node(n).kind == Kind::Seq;
        if !is_seq(xt, x)
            || !is_seq(rt, r)
            || self.kind_of(path, &[(xt, Some(x)), (rt, Some(r))]) != Some(ListKind::Set)
        {
            return false;
        }
        sorted_entries(xt, x) == sorted_entries(rt, r)
    }

    /// How the elements of the list at `path` are identified, given its versions there: by
    /// the list-key table, or (`None`) by resource identity for a `kind: List`'s items.
    fn kind_of(&self, path: &Path, lists: &[(&Tree, At)]) -> Option<ListKind> {
        if self.group_kind.as_deref() == Some("List") && path.schema == "items" {
            return None;
        }
        let lists: Vec<(&Tree, NodeId)> = lists
            .iter()
            .filter_map(|&(tree, n)| n.map(|n| (tree, n)))
            .collect();
        Some(list_kind(self.group_kind.as_deref(), &path.schema, &lists))
    }

    /// The elements of a version's list `x` and the result's `r` paired by key, if the list
    /// is keyed and both name their elements uniquely with the same keys.
    pub(super) fn keyed_pairs(
        &self,
        path: &Path,
        xt: &Tree,
        x: NodeId,
        r: NodeId,
    ) -> Option<(bool, Vec<KeyedPair>)> {
        let rt = self.r;
        let kind = self.kind_of(path, &[(xt, Some(x)), (rt, Some(r))]);
        if kind == Some(ListKind::Plain) {
            return None;
        }
        let kyaml = self.rule == Rule::Kyaml;
        let (xs, rs) = (
            named(xt, x, kind.as_ref(), kyaml, false)?,
            named(rt, r, kind.as_ref(), kyaml, false)?,
        );
        let index: HashMap<&str, NodeId> = rs.iter().map(|i| (i.key.as_str(), i.node)).collect();
        let pairs = xs
            .into_iter()
            .map(|i| Some((i.shown, i.node, *index.get(i.key.as_str())?)))
            .collect::<Option<Vec<_>>>()?;
        Some((kind == Some(ListKind::Set), pairs))
    }

    /// A keyed list: each element checked as a value, the elements paired by key; where
    /// that finds the result wrong at an element some version lacks, by likeness too (an
    /// element renamed), and the result stands if either reading holds. Where both sides
    /// put in an element of one key, each its own content, and the likeness reading finds
    /// it a base element both renamed, the result must hold under that reading too: read
    /// as two additions, a field one side took out of the renamed element looks like the
    /// other side's addition, and comes back. Outside kyaml's rule (which pairs by key
    /// alone), where the key's reading holds but a side took an element away and put one in,
    /// a likeness reading that sees a rename must hold too, or the result is a conflict it
    /// does not mark: a renamed step the other side edited, kept under both names, is the
    /// step twice read one way and right read the other, and no reading can say which.
    /// Where both sides kept an element, the result keeps the order both agree on (init
    /// containers and CI steps run in order); set lists have no order.
    fn keyed(
        &mut self,
        path: &Path,
        common: Option<&str>,
        set: bool,
        kind: Option<&ListKind>,
        items: [Vec<Item>; 4],
    ) {
        let refs = items.each_ref().map(Vec::as_slice);
        let rows = by_key(refs);
        let found = self.attempt(|c| c.keyed_rows(path, common, set, refs, &rows));
        // kyaml pairs elements by key only; a set's element is its value.
        if set || self.rule == Rule::Kyaml || !rows.iter().any(Row::incomplete) {
            return self.extend(found);
        }
        let (ot, tt) = (self.o, self.t);
        // Ours' and theirs' items both sides put in under one key, each with its own content.
        let added_apart: Vec<(usize, usize)> = rows
            .iter()
            .filter_map(|row| match row.0 {
                [None, Some(o), Some(t), _]
                    if !same_data(ot, refs[1][o].node, tt, refs[2][t].node) =>
                {
                    Some((o, t))
                }
                _ => None,
            })
            .collect();
        // A side that took an element away and put one in may have renamed it.
        let may_rename = (1..3).any(|v| {
            rows.iter().any(|r| r.0[0].is_some() && r.0[v].is_none())
                && rows.iter().any(|r| r.0[0].is_none() && r.0[v].is_some())
        });
        if found.is_empty() && added_apart.is_empty() && !may_rename {
            return;
        }
        let keys: Vec<&str> = match kind {
            Some(ListKind::Keyed(keys)) => keys.iter().map(String::as_str).collect(),
            _ => IDENTITY_FIELDS.to_vec(),
        };
        let trees = [self.b, self.o, self.t, self.r];
        let Some(alike) = by_likeness(trees, refs, &keys, self.rule.winner()) else {
            if found.is_empty() && may_rename && self.rule != Rule::Kyaml {
                // Read by likeness, two elements of the result are one element: a side's
                // rename is as likely as the key's reading, which holds, and which is right
                // no reading can say.
                return self.unmarked(
                    path,
                    common,
                    "elements renamed read two ways: by key the result holds, by likeness two of its elements are one",
                );
            }
            return self.extend(found);
        };
        // Both sides' items of the key read as one base item both renamed alike, whose key
        // neither side keeps: elements alike but for their keys (ports) pair any way.
        let gone = |b: usize| {
            let key = &refs[0][b].key;
            !refs[1..3]
                .iter()
                .any(|side| side.iter().any(|i| &i.key == key))
        };
        let renamed = |&(o, t): &(usize, usize)| {
            alike
                .iter()
                .any(|row| row.0[0].is_some_and(gone) && row.0[1] == Some(o) && row.0[2] == Some(t))
        };
        let alike_found = self.attempt(|c| c.keyed_rows(path, common, set, refs, &alike));
        if found.is_empty() {
            // The key's reading holds: the likeness reading must too where it sees a rename.
            if added_apart.iter().any(renamed) {
                self.extend(alike_found);
            } else if self.rule != Rule::Kyaml && reads_a_rename(trees, refs, &alike, &keys) {
                // A side renamed an element the other changed, and the result holds under
                // one reading only (by key, the old element kept with one side's change
                // beside the renamed one: the step comes out twice). Which is right no
                // reading can say: the result marks a conflict there.
                self.extend(alike_found.into_iter().map(Violation::unmarked).collect());
            }
        } else if !alike_found.is_empty() {
            self.extend(found);
        }
    }

    /// [`Checker::keyed`] under one reading, `rows`.
    fn keyed_rows(
        &mut self,
        path: &Path,
        common: Option<&str>,
        set: bool,
        items: [&[Item]; 4],
        rows: &[Row],
    ) {
        let node = |row: &Row, v: usize| row.0[v].map(|i| items[v][i].node);
        let shown = |row: &Row| -> String {
            [3, 1, 2, 0]
                .into_iter()
                .find_map(|v| row.0[v].map(|i| items[v][i].shown.clone()))
                .unwrap_or_default()
        };
        for row in rows {
            self.value(
                &path.element(&shown(row)),
                common,
                [node(row, 0), node(row, 1), node(row, 2), node(row, 3)],
            );
        }
        if set || self.rule != Rule::Mark {
            return;
        }
        // Each version's elements as the rows they are, in its order.
        let order = |v: usize| -> Vec<usize> {
            let mut placed: Vec<(usize, usize)> = rows
                .iter()
                .enumerate()
                .filter_map(|(r, row)| row.0[v].map(|i| (i, r)))
                .collect();
            placed.sort_unstable();
            placed.into_iter().map(|(_, r)| r).collect()
        };
        if let Some((x, y)) = misordered(&order(0), &order(1), &order(2), &order(3)) {
            self.at(
                path,
                common,
                format!(
                    "elements {} and {} are out of the order the sides agree on",
                    shown(&rows[x]),
                    shown(&rows[y])
                ),
            );
        }
    }

    /// A list without merge keys both sides changed, compared as a sequence of elements
    /// (mark mode): every element's count in the result is base's plus each side's change
    /// (a change both made alike counts once); an element no input has must be the merge of
    /// one base element both sides changed, their versions standing where it stood; elements
    /// all versions share keep the order the sides agree on (`in_order`; a side taken from
    /// every conflict too, unless the caller reads ours' stretches whole, order and all).
    fn plain(&mut self, path: &Path, common: Option<&str>, [b, o, t, r]: [At; 4], in_order: bool) {
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        let Some(b) = b else {
            return self.unmarked(
                path,
                common,
                "both sides added this list differently: a conflict, not a clean merge",
            );
        };
        let items = |tree: &Tree, x: At| -> Vec<NodeId> {
            x.map(|x| tree.children(x).to_vec()).unwrap_or_default()
        };
        let (bi, oi, ti, ri) = (items(bt, Some(b)), items(ot, o), items(tt, t), items(rt, r));
        // Elements compared by their data: only equality and counts matter.
        let [bd, od, td, rd] = element_names([(bt, &bi), (ot, &oi), (tt, &ti), (rt, &ri)]);
        fn count(d: &[u128]) -> HashMap<u128, i64> {
            let mut c = HashMap::new();
            for &x in d {
                *c.entry(x).or_insert(0) += 1;
            }
            c
        }
        let (cb, co, ct, cr) = (count(&bd), count(&od), count(&td), count(&rd));
        let mut contents: Vec<u128> = cb
            .keys()
            .chain(co.keys())
            .chain(ct.keys())
            .chain(cr.keys())
            .copied()
            .collect();
        contents.sort_unstable();
        contents.dedup();
        // How many of each element the result should hold: base's count plus each side's
        // change (a change both made alike counts once).
        let mut want: HashMap<u128, i64> = HashMap::new();
        // Where both sides removed as many copies of an element base holds twice or more,
        // they may have removed the same copy or two different ones: either count is right.
        // (In a cell: what a resolved conflict may lose is known only after the merges.)
        let fewer_allowed: RefCell<HashMap<u128, i64>> = RefCell::new(HashMap::new());
        let mut more_allowed: HashMap<u128, i64> = HashMap::new();
        let (mut ours_new, mut theirs_new, mut both_dropped) = (Vec::new(), Vec::new(), Vec::new());
        for &c in &contents {
            let get = |m: &HashMap<u128, i64>| m.get(&c).copied().unwrap_or(0);
            let (nb, no, nt) = (get(&cb), get(&co), get(&ct));
            let (d_o, d_t) = (no - nb, nt - nb);
            want.insert(c, if d_o == d_t { nb + d_o } else { nb + d_o + d_t });
            if d_o == d_t && d_o < 0 && nb > 1 {
                fewer_allowed.borrow_mut().insert(c, -d_o);
            }
            // Both sides added as many copies of an element: at one place they are one
            // addition, at two places two (git's line merge keeps both, and an `args` list
            // may well hold a value twice).
            if d_o == d_t && d_o > 0 && places(&bd, &od, c) != places(&bd, &td, c) {
                more_allowed.insert(c, d_o);
            }
            // Both sides added copies of it, as many or not: the fewer may be among the more
            // (added at one place), or beside them (a list of two `metrics` maintainers where
            // ours put in one and theirs two: two or three are right).
            if d_o != d_t && d_o > 0 && d_t > 0 {
                fewer_allowed.borrow_mut().insert(c, d_o.min(d_t));
            }
            if d_o > 0 {
                ours_new.push(c);
            }
            if d_t > 0 {
                theirs_new.push(c);
            }
            if d_o < 0 && d_t < 0 {
                both_dropped.push(c);
            }
        }
        let gap = |c: u128, want: &HashMap<u128, i64>| -> i64 {
            let have = cr.get(&c).copied().unwrap_or(0);
            let should = want[&c].max(0);
            let fewer = fewer_allowed.borrow().get(&c).copied().unwrap_or(0);
            let lowest = (should - fewer).max(0);
            let highest = should + more_allowed.get(&c).copied().unwrap_or(0);
            if have >= lowest && have <= highest {
                0
            } else if have > highest {
                have - highest
            } else {
                have - should
            }
        };
        let off = |want: &HashMap<u128, i64>| -> i64 {
            contents.iter().map(|&c| gap(c, want).abs()).sum()
        };
        // A base element both sides changed, at the same place, is one element merged field
        // by field: ours' and theirs' versions give way to their merge, which the result
        // must hold (it may be one side's version, when the other's change is part of it).
        let node = |d: &[u128], items: &[NodeId], c: u128| -> Option<NodeId> {
            d.iter().position(|&x| x == c).map(|i| items[i])
        };
        // Where each base element stands in a side: its place there where it is there once
        // (and once in base), the anchors a changed element must sit between.
        let once_in_base = singles(&bd);
        let anchors = |sd: &[u128]| -> Vec<Option<usize>> {
            let places = singles(sd);
            bd.iter()
                .map(|x| {
                    once_in_base
                        .contains_key(x)
                        .then(|| places.get(x).copied())
                        .flatten()
                })
                .collect()
        };
        let (ao, at) = (anchors(&od), anchors(&td));
        // Whether a side's element `c` stands where base's `x` stood: after the side's place
        // of the nearest anchored base element before `x` and before the next one after it.
        let placed_at = |anchors: &[Option<usize>], sd: &[u128], i: usize, c: u128| -> bool {
            let after = anchors[..i].iter().rev().find_map(|a| *a);
            let before = anchors[i + 1..].iter().find_map(|a| *a);
            sd.iter().enumerate().any(|(p, y)| {
                *y == c && after.is_none_or(|a| p > a) && before.is_none_or(|b| p < b)
            })
        };
        let placed = |anchors: &[Option<usize>], sd: &[u128], x: u128, c: u128| -> bool {
            bd.iter()
                .enumerate()
                .filter(|(_, y)| **y == x)
                .any(|(i, _)| placed_at(anchors, sd, i, c))
        };
        // Which of ours' and theirs' new elements, and of the result's, stand for which base
        // element: the most alike tried first. An element both sides edited alike in every
        // element of a list (a CRD's `versions`) merges as well with another element's edit,
        // and taking the first merge that holds would pair them wrong.
        let alike = Alike::new(
            [
                (bt, &bd, &bi),
                (ot, &od, &oi),
                (tt, &td, &ti),
                (rt, &rd, &ri),
            ],
            [&both_dropped, &ours_new, &theirs_new],
        );
        let results: Vec<u128> = contents
            .iter()
            .copied()
            .filter(|c| cr.contains_key(c))
            .collect();
        // A base element as messages show it: the start of its data.
        let base_shown = |x: u128| {
            node(&bd, &bi, x)
                .map(|n| canonical(bt, n).chars().take(30).collect::<String>())
                .unwrap_or_default()
        };
        let mut budget = 20_000usize;
        // The conflicts inside the first merge that held but for them (see [`Merged`]).
        let mut inner_conflicts: Option<Vec<Violation>> = None;
        // The base elements a merge of both sides' versions explains.
        let mut merged: HashSet<u128> = HashSet::new();
        // How many copies of each base element both sides took away: each such copy is one
        // merge at most. Where one side's version already is the merge (ours' rename taken
        // whole), that version's count stays as wanted, so without this bound the one base
        // element would go on pairing with every other new element of the other side and
        // explain them all away.
        let mut unmerged: HashMap<u128, i64> = both_dropped
            .iter()
            .map(|&x| {
                let get = |m: &HashMap<u128, i64>| m.get(&x).copied().unwrap_or(0);
                (x, (get(&cb) - get(&co)).min(get(&cb) - get(&ct)))
            })
            .collect();
        // The merges that explain the most first: a merged element the result has too many
        // of, standing for ours' and theirs' versions it has too few of.
        'merged: while off(&want) > 0 {
            for gain in [3, 2, 1] {
                for &x in &both_dropped {
                    if unmerged.get(&x).is_none_or(|&n| n <= 0) {
                        continue;
                    }
                    for oc in alike.ranked(1, x, &ours_new) {
                        for tc in alike.ranked(2, x, &theirs_new) {
                            // A cross reading (base's first element as the base of both
                            // sides' second, both having changed one into the other alike)
                            // can explain more than the right one: an element both sides'
                            // versions are more alike to is their base instead.
                            let closer = |y: u128| {
                                y != x
                                    && alike.likeness(1, oc, 0, y) > alike.likeness(1, oc, 0, x)
                                    && alike.likeness(2, tc, 0, y) > alike.likeness(2, tc, 0, x)
                            };
                            if oc == tc
                                || want[&oc] <= 0
                                || want[&tc] <= 0
                                || !placed(&ao, &od, x, oc)
                                || !placed(&at, &td, x, tc)
                                || both_dropped.iter().any(|&y| closer(y))
                            {
                                continue;
                            }
                            for m in alike.ranked_result(oc, tc, &results) {
                                budget = match budget.checked_sub(1) {
                                    Some(b) => b,
                                    None => break 'merged,
                                };
                                let mut trial = want.clone();
                                *trial.entry(oc).or_insert(0) -= 1;
                                *trial.entry(tc).or_insert(0) -= 1;
                                *trial.entry(m).or_insert(0) += 1;
                                if off(&want) - off(&trial) < gain {
                                    continue;
                                }
                                let ids = (
                                    node(&bd, &bi, x),
                                    node(&od, &oi, oc),
                                    node(&td, &ti, tc),
                                    node(&rd, &ri, m),
                                );
                                if let (Some(bn), Some(on), Some(tn), Some(rn)) = ids {
                                    let reading = self.merged(path, bn, on, tn, rn);
                                    if let Merged::Conflicts(found) = reading {
                                        inner_conflicts.get_or_insert(found);
                                    } else if let Merged::Holds = reading {
                                        // Another new element of a side at the same place,
                                        // as alike to base's, that already holds the other
                                        // side's change reads as base's element just as well (both sides made
                                        // one change alike, the side added the rest): read
                                        // so, the result's merge is an element no side
                                        // wrote. Which copy is base's no data says: a
                                        // conflict, not a clean merge.
                                        let twin = |new: &[u128],
                                                    anchors: &[Option<usize>],
                                                    sd: &[u128],
                                                    items: &[NodeId],
                                                    own: u128,
                                                    ours_side: bool| {
                                            new.iter().any(|&c| {
                                                let (Some(sn), Some(cn)) =
                                                    (node(sd, items, c), node(&rd, &ri, c))
                                                else {
                                                    return false;
                                                };
                                                let (on, tn) =
                                                    if ours_side { (sn, tn) } else { (on, sn) };
                                                let v = if ours_side { 1 } else { 2 };
                                                c != own
                                                    && c != m
                                                    && alike.likeness(v, c, 0, x)
                                                        >= alike.likeness(v, own, 0, x)
                                                    && placed(anchors, sd, x, c)
                                                    && self.merges(path, bn, on, tn, cn)
                                            })
                                        };
                                        let ambiguous = self.rule == Rule::Mark
                                            && m != oc
                                            && m != tc
                                            && (twin(&theirs_new, &at, &td, &ti, tc, false)
                                                || twin(&ours_new, &ao, &od, &oi, oc, true));
                                        if ambiguous {
                                            let shown = base_shown(x);
                                            return self.unmarked(
                                                path,
                                                common,
                                                format!(
                                                    "element {shown} is as much one side's edited copy as another it added, and the result merges the other side's edit into one of them: a conflict, not a clean merge"
                                                ),
                                            );
                                        }
                                        want = trial;
                                        merged.insert(x);
                                        if let Some(n) = unmerged.get_mut(&x) {
                                            *n -= 1;
                                        }
                                        continue 'merged;
                                    }
                                }
                            }
                        }
                    }
                }
            }
            break;
        }
        // A base element one side deleted and the other replaced in its place (an element
        // without a key edited): a deletion against a change, which a clean result cannot
        // settle; taken from one side, that side's state of it.
        let mut replaced: Vec<(Taken, u128, Vec<u128>)> = Vec::new();
        for &x in both_dropped.iter().filter(|x| !merged.contains(x)) {
            let at_x = |anchors: &[Option<usize>], sd: &[u128], new: &[u128]| -> Vec<u128> {
                new.iter()
                    .copied()
                    .filter(|&c| want[&c] > 0 && placed(anchors, sd, x, c))
                    .collect()
            };
            let (by_ours, by_theirs) = (at_x(&ao, &od, &ours_new), at_x(&at, &td, &theirs_new));
            let (deleter, replacement) = match (by_ours.is_empty(), by_theirs.is_empty()) {
                (true, false) => (Taken::Ours, by_theirs),
                (false, true) => (Taken::Theirs, by_ours),
                _ => continue,
            };
            // An element base holds twice or more (`-t` in `args`): each side may have
            // dropped another copy. It is one copy deleted against its replacement only where
            // a longest common run of each side with base drops the same copy and the
            // replacement stands at it.
            if !once_in_base.contains_key(&x) {
                let (anchors, sd) = match deleter {
                    Taken::Ours => (&at, &td),
                    Taken::Theirs => (&ao, &od),
                };
                let (dropped_o, dropped_t) = (dropped(&bd, &od), dropped(&bd, &td));
                let same_copy = bd.iter().enumerate().any(|(i, &y)| {
                    y == x
                        && dropped_o.contains(&i)
                        && dropped_t.contains(&i)
                        && replacement.iter().any(|&c| placed_at(anchors, sd, i, c))
                });
                if !same_copy {
                    continue;
                }
            }
            match self.rule {
                Rule::Mark => {
                    let shown = base_shown(x);
                    return self.unmarked(
                        path,
                        common,
                        format!(
                            "{deleter} side deleted element {shown}, the other side replaced it: a conflict, not a clean merge"
                        ),
                    );
                }
                // The deleting side taken: the replacement may be gone.
                Rule::Resolved(side) if side == deleter => {
                    for &c in &replacement {
                        fewer_allowed.borrow_mut().insert(c, want[&c]);
                    }
                    replaced.push((deleter, x, replacement));
                }
                _ => {}
            }
        }
        // With the deleting side taken, the replacement goes whole or stays whole: it is the
        // other side's state of the element, and without anchors around it (the replacing
        // side changed its neighbours too) it spans their replacements as well. Part of it
        // kept is neither side's state there, and the rest may be another element's change
        // that conflicts with nothing (adversary
        // packages-mark-1261-2139: theirs renamed `HUB_HOST` and added `FEATURE_FLAG` where
        // ours deleted `HUB_PORT`; ours' side kept the rename and lost the addition).
        let kept = |c: &u128| cr.get(c).copied().unwrap_or(0) >= want[c];
        if let Some((deleter, x, _)) = replaced
            .iter()
            .find(|(_, _, r)| r.iter().any(kept) && !r.iter().all(kept))
        {
            let shown = base_shown(*x);
            return self.at(
                path,
                common,
                format!("{deleter} side deleted element {shown}, the other side replaced it, and the result keeps part of the replacement"),
            );
        }
        let (mut extra, mut missing) = (0, 0);
        for &c in &contents {
            let gap = gap(c, &want);
            extra += gap.max(0);
            missing += (-gap).max(0);
        }
        // A base element both sides changed whose merge the result holds but for conflicts
        // inside it (a CRD version where ours replaced an `anyOf` element theirs kept beside
        // the same one it added: adversary manifests-mark-1144-5092): those conflicts are
        // what the result leaves unmarked, not an element no side wrote. Named at this list,
        // whose elements have no key a conflict's path could name.
        if let (true, Some(found)) = (extra > 0 || missing > 0, inner_conflicts) {
            let inner = &found[0];
            return self.unmarked(
                path,
                common,
                format!(
                    "an element both sides changed reads a conflict inside it ({}: {})",
                    inner.path, inner.what
                ),
            );
        }
        if extra > 0 || missing > 0 {
            let what = match (extra, missing) {
                (0, n) => format!("{n} element(s) a side added or kept are missing"),
                (n, 0) => format!(
                    "{n} element(s) too many: deleted by a side, added twice, or edited in the wrong place"
                ),
                (n, m) => format!("{n} element(s) no side wrote, {m} a side wrote missing"),
            };
            return self.at(path, common, what);
        }
        // A conflict taken from one side holds that side's replacements there. Not its order
        // of elements every version holds alike: where only the other side moved them, a side
        // holding base's order lost that move (templates-theirs-1262-195: theirs swapped two
        // ports, ours edited one, and ours' half of git's conflict put the other one back); a
        // conflict around the whole list holds the side's list, which the path's check takes.
        let resolved = matches!(self.rule, Rule::Resolved(_));
        if let Some(x) = replaced_by_both(&bd, &od, &td, &rd).filter(|_| !resolved) {
            let shown = base_shown(x);
            return self.at(
                path,
                common,
                format!(
                    "both sides replaced element {shown} differently and the result keeps both: a conflict"
                ),
            );
        }
        if !in_order {
            return;
        }
        if let Some((x, y)) = misordered(&bd, &od, &td, &rd) {
            // Named by their data, as they read in the result.
            let short = |d: u128| {
                node(&rd, &ri, d)
                    .map(|n| canonical(rt, n).chars().take(30).collect::<String>())
                    .unwrap_or_default()
            };
            self.at(
                path,
                common,
                format!(
                    "elements {} and {} are out of the order the sides agree on",
                    short(x),
                    short(y)
                ),
            );
        }
    }

    /// Whether the result's list is git's line merge of the three lists' element sequences
    /// (one element a line, compared by data) with ours' lines in every hunk both sides
    /// changed: a person taking ours' side of a conflict around just those elements. Not
    /// where it brings back an element theirs deleted and ours left alone, unless it is ours'
    /// list whole; nor where it brings back one ours deleted and theirs kept.
    fn ours_stretches(&self, at: [At; 4]) -> bool {
        let items = |tree: &Tree, x: At| -> Vec<NodeId> {
            x.filter(|&x| tree.node(x).kind == Kind::Seq)
                .map(|x| tree.children(x).to_vec())
                .unwrap_or_default()
        };
        let [b, o, t, r] = at;
        let (bi, oi, ti, ri) = (
            items(self.b, b),
            items(self.o, o),
            items(self.t, t),
            items(self.r, r),
        );
        let [bd, od, td, rd] =
            element_names([(self.b, &bi), (self.o, &oi), (self.t, &ti), (self.r, &ri)]);
        let lines = |d: &[u128]| -> Vec<u8> {
            d.iter()
                .flat_map(|x| format!("{x:x}\n").into_bytes())
                .collect()
        };
        let (bl, ol, tl) = (lines(&bd), lines(&od), lines(&td));
        let sequence = favouring_ours(&bl, &ol, &tl).is_some_and(|m| m == lines(&rd));
        // Still, an element theirs deleted that ours left alone stays deleted, though git's
        // hunk put it in ours' stretch (values-ours-1130-333: ours edited the step before it),
        // unless the answer is ours' list whole: every change of theirs then lies in a hunk
        // both changed (values-ours-1-22: theirs' edit of an element beside ours').
        // Nor does ours' deletion of an element theirs kept as often as base come back:
        // ours wins, and git's element merge reads theirs' move of it as a new element of
        // theirs (manifests-ours twin of adversary manifests-theirs-1172-1808: a CRD's
        // `required`, ours deleting one entry that theirs moved to the end).
        let count = |d: &[u128], x: u128| d.iter().filter(|&&y| y == x).count();
        sequence
            && bd.iter().all(|&x| {
                let (nb, no, nt) = (count(&bd, x), count(&od, x), count(&td, x));
                !(nt == nb && no < nb && count(&rd, x) > no)
            })
            && (od == rd
                || bd.iter().all(|&x| {
                    let (nb, no, nt) = (count(&bd, x), count(&od, x), count(&td, x));
                    !(no == nb && nt < nb && count(&rd, x) > nt)
                }))
    }

    /// Whether `r` is a clean merge of base element `b` with ours' `o` and theirs' `t` (or,
    /// in a conflicted result taken from one side, that side's version), `path` the list's.
    fn merges(&self, path: &Path, b: NodeId, o: NodeId, t: NodeId, r: NodeId) -> bool {
        matches!(self.merged(path, b, o, t, r), Merged::Holds)
    }

    /// How `r` reads as the merge of base element `b` with ours' `o` and theirs' `t` (see
    /// [`Checker::merges`]).
    fn merged(&self, path: &Path, b: NodeId, o: NodeId, t: NodeId, r: NodeId) -> Merged {
        let taken = match self.rule {
            Rule::Resolved(Taken::Ours) => Some((self.o, o)),
            Rule::Resolved(Taken::Theirs) => Some((self.t, t)),
            _ => None,
        };
        if taken.is_some_and(|(tree, x)| same_data(tree, x, self.r, r)) {
            return Merged::Holds;
        }
        let mut probe = self.probe();
        // At the element's own path: a list inside it is keyed as the list-key table keys it
        // there (a CRD version's `additionalPrinterColumns` has no keys; read at no path, its
        // elements' `type` looked like one).
        probe.value(
            &path.element("merged"),
            None,
            [Some(b), Some(o), Some(t), Some(r)],
        );
        match probe.verdict() {
            super::Verdict::Broken(found)
                if found.iter().all(|v| v.finding == Finding::Unmarked) =>
            {
                Merged::Conflicts(found)
            }
            super::Verdict::Holds => Merged::Holds,
            _ => Merged::Differs,
        }
    }
}

/// How a result's element reads as the merge of a base element both sides changed.
enum Merged {
    /// It is their clean merge.
    Holds,
    /// It would be, but both sides' changes inside it read as conflicts it does not mark.
    Conflicts(Vec<Violation>),
    /// It is not their merge.
    Differs,
}

/// Whether a likeness reading pairs a base element with a side's element of another key (a
/// rename the key's reading reads as a deletion and an addition), where that element is the
/// only one the side put in with its content: among several alike copies, which one is the
/// rename no reading can say, and the key's reading stands.
fn reads_a_rename(trees: [&Tree; 4], items: [&[Item]; 4], rows: &[Row], skip: &[&str]) -> bool {
    let based: HashSet<&str> = items[0].iter().map(|i| i.key.as_str()).collect();
    // Each side's items new by key, with their content: read once, compared per rename.
    let new: [Vec<(usize, Leaves)>; 2] = [1, 2].map(|v| {
        items[v]
            .iter()
            .enumerate()
            .filter(|(_, i)| !based.contains(i.key.as_str()))
            .map(|(j, i)| (j, Leaves::of(trees[v], i.node, skip)))
            .collect()
    });
    let renamed = |b: usize, v: usize, i: usize| {
        if items[v][i].key == items[0][b].key {
            return false;
        }
        let Some((_, leaves)) = new[v - 1].iter().find(|(j, _)| *j == i) else {
            return false;
        };
        !new[v - 1]
            .iter()
            .any(|(j, other)| *j != i && other.same_content(leaves))
    };
    rows.iter().any(|row| match row.0[0] {
        Some(b) => (1..3).any(|v| row.0[v].is_some_and(|i| renamed(b, v, i))),
        None => false,
    })
}

/// Whether theirs deleted outright an element (by data) ours holds as base has it, ours'
/// elements standing in base's order: theirs
/// holds fewer copies of such elements, in all, than it holds copies of elements base lacks
/// (each of which may be one of them edited, which ours' list whole may win as a stretch both
/// changed: a maintainer theirs edited and moved, values-ours-1-22), so at least one is gone
/// with nothing in its place.
fn theirs_took_out_what_ours_kept(lists: [(&Tree, At); 3]) -> bool {
    let items = lists.map(|(tree, x)| {
        let items = x
            .filter(|&x| tree.node(x).kind == Kind::Seq)
            .map(|x| tree.children(x).to_vec())
            .unwrap_or_default();
        (tree, items)
    });
    let [bd, od, td] = element_names(items.each_ref().map(|(tree, v)| (*tree, v.as_slice())));
    let count = |d: &[u128], c: u128| d.iter().filter(|&&x| x == c).count();
    let mut seen = HashSet::new();
    let taken_out: usize = bd
        .iter()
        .filter(|&&c| seen.insert(c))
        .filter(|&&c| count(&od, c) == count(&bd, c))
        .map(|&c| count(&bd, c).saturating_sub(count(&td, c)))
        .sum();
    let mut seen = HashSet::new();
    let put_in: usize = td
        .iter()
        .filter(|&&c| seen.insert(c))
        .map(|&c| count(&td, c).saturating_sub(count(&bd, c)))
        .sum();
    // Ours' reorder is a change of the whole list, which ours' list whole wins (ours sorted
    // a CRD's `shortNames`, theirs emptied them: packages-ours-1134-67).
    let mut rest = bd.iter();
    let in_base_order = od
        .iter()
        .filter(|c| bd.contains(c))
        .all(|c| rest.any(|x| x == c));
    taken_out > put_in && in_base_order
}

/// The lists' elements named by their data, as [`data_names`] names them, but where a
/// version holds aliases: then an alias is read as a reference, by its name and its anchor's
/// place ([`Checker::equal`]), not by the value its anchor holds in that version. Otherwise
/// one side's edit of an anchored value would make the element holding the other side's new
/// alias of it an element no side wrote (a Secret's `metadata` ours renamed, which theirs
/// anchored and named from the next Secret), though the two edits both stand.
fn element_names<const N: usize>(lists: [(&Tree, &[NodeId]); N]) -> [Vec<u128>; N] {
    if !lists.iter().any(|(tree, _)| tree.has_aliases()) {
        return data_names(lists);
    }
    let mut names: HashMap<String, u128> = HashMap::new();
    lists.map(|(tree, items)| {
        items
            .iter()
            .map(|&e| {
                let mut text = String::new();
                reference_text(tree, e, &mut text);
                let next = names.len() as u128;
                *names.entry(text).or_insert(next)
            })
            .collect()
    })
}

/// A node's data as text with each alias written as its name, its anchor's place and which
/// definition of the name there it names (see [`element_names`]); map keys sorted, other values as [`canonical`] writes them.
fn reference_text(tree: &Tree, id: NodeId, out: &mut String) {
    match tree.node(id).kind {
        Kind::Alias => {
            out.push('*');
            out.push_str(&format!("{:?}", tree.value(id)));
            out.push('@');
            let place = anchor_place(tree, id).unwrap_or_default();
            out.push_str(&format!("{place:?}#{:?}", anchor_rank(tree, id)));
        }
        Kind::Seq => {
            out.push('[');
            for &c in tree.children(id) {
                reference_text(tree, c, out);
                out.push(',');
            }
            out.push(']');
        }
        Kind::Map => {
            let mut entries: Vec<(&str, NodeId)> =
                tree.entries(id).map(|(k, v)| (tree.value(k), v)).collect();
            entries.sort_unstable_by_key(|&(k, _)| k);
            out.push('{');
            for (key, v) in entries {
                out.push_str(&format!("{key:?}:"));
                reference_text(tree, v, out);
                out.push(',');
            }
            out.push('}');
        }
        Kind::Scalar => out.push_str(&canonical(tree, id)),
    }
}

/// The side that emptied a list (`ours` or `theirs`) where the other side both took a base
/// element away and put a new one in; `None` otherwise. Elements by content.
fn emptied_against_an_edit([(bt, b), (ot, o), (tt, t)]: [(&Tree, At); 3]) -> Option<&'static str> {
    let seq = |tree: &Tree, x: At| x.filter(|&x| tree.node(x).kind == Kind::Seq);
    let items = |tree: &Tree, x: At| -> Vec<u128> {
        seq(tree, x)
            .map(|x| tree.children(x).iter().map(|&e| digest(tree, e)).collect())
            .unwrap_or_default()
    };
    // Only an emptied list is read (a CRD's `versions` elements are megabytes each).
    let empty = |tree: &Tree, x: At| seq(tree, x).is_some_and(|x| tree.children(x).is_empty());
    if !(empty(ot, o) || empty(tt, t)) || seq(bt, b).is_none_or(|b| bt.children(b).is_empty()) {
        return None;
    }
    let (bd, od, td) = (items(bt, b), items(ot, o), items(tt, t));
    let edited = |sd: &[u128]| {
        let mut held: HashMap<u128, usize> = HashMap::new();
        for &x in &bd {
            *held.entry(x).or_default() += 1;
        }
        let mut added = false;
        for x in sd {
            match held.get_mut(x).filter(|n| **n > 0) {
                Some(n) => *n -= 1,
                None => added = true,
            }
        }
        added && held.values().any(|&n| n > 0)
    };
    if seq(ot, o).is_some() && od.is_empty() && edited(&td) {
        Some("ours")
    } else if seq(tt, t).is_some() && td.is_empty() && edited(&od) {
        Some("theirs")
    } else {
        None
    }
}

/// A list's elements as items named by their key (`kind` `None`: a `kind: List`'s items, by
/// identity); `None` when one cannot be named or two share a name. `kyaml`: read as kyaml
/// reads it, a missing key being a key of its own; `first_stands`: the first of two elements
/// of one key stands for both.
fn named(
    tree: &Tree,
    list: NodeId,
    kind: Option<&ListKind>,
    kyaml: bool,
    first_stands: bool,
) -> Option<Vec<Item>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &e in tree.children(list) {
        let (key, shown) = match kind {
            None => {
                let id = Identity::of(tree, e)?;
                (format!("{id:?}"), id.to_string())
            }
            Some(ListKind::Keyed(keys)) => match element_key(tree, e, keys) {
                Some(key) => key,
                // kyaml reads a key field missing or null as "": one element of that key.
                // Otherwise the list is read as a plain one.
                None if kyaml => ("\u{1}".to_string(), format!("{}=?", keys[0])),
                None => return None,
            },
            Some(ListKind::Set) => {
                if tree.node(e).kind != Kind::Scalar {
                    return None;
                }
                let v = canonical(tree, e);
                (v, tree.value(e).to_string())
            }
            Some(ListKind::Plain) => return None,
        };
        if !seen.insert(key.clone()) {
            // kyaml's lookups find the first element of a key: a second one stands for
            // nothing there (kyaml-semantics.md §2.5, duplicate keys collapse).
            if first_stands && matches!(kind, Some(ListKind::Keyed(_))) {
                continue;
            }
            return None;
        }
        out.push(Item {
            key,
            shown,
            node: e,
        });
    }
    Some(out)
}

/// The elements of a keyed list `x` after the first of their key, as (key, data), sorted:
/// kyaml's lookups never reach them, so its merge leaves ours' ones in ours' list as they are.
fn repeats(tree: &Tree, x: At, kind: Option<&ListKind>) -> Vec<(String, String)> {
    let Some(ListKind::Keyed(keys)) = kind else {
        return Vec::new();
    };
    let Some(x) = x.filter(|&x| tree.node(x).kind == Kind::Seq) else {
        return Vec::new();
    };
    let mut seen = HashSet::new();
    let mut out: Vec<(String, String)> = tree
        .children(x)
        .iter()
        .filter_map(|&e| {
            let key = element_key(tree, e, keys).map_or_else(|| "\u{1}".to_string(), |k| k.0);
            (!seen.insert(key.clone())).then(|| (key, canonical(tree, e)))
        })
        .collect();
    out.sort_unstable();
    out
}

/// The content of the elements a merge of a plain list may pair, for trying the most alike
/// pairs first. Left empty (every order equal) where only one pairing is possible, or the
/// lists are too long to compare every pair.
struct Alike {
    /// The leaves of each version's elements (base, ours, theirs, result) by their data name.
    leaves: [HashMap<u128, Leaves>; 4],
}

impl Alike {
    /// Reads the base elements `dropped`, ours' and theirs' new ones, and all of the
    /// result's; each version given as (tree, data names, nodes).
    fn new(
        versions: [(&Tree, &[u128], &[NodeId]); 4],
        [dropped, ours, theirs]: [&[u128]; 3],
    ) -> Alike {
        let mut leaves: [HashMap<u128, Leaves>; 4] = Default::default();
        let pairs = dropped.len() * (ours.len() + theirs.len() + versions[3].1.len());
        // One element of each kind cannot pair wrong: nothing to rank (reading every leaf of
        // a CRD's schema costs more than the merge's check of it).
        let one_way = dropped.len() == 1 && ours.len() == 1 && theirs.len() == 1;
        if one_way
            || pairs > COMPARED_PAIRS
            || dropped.is_empty()
            || ours.is_empty()
            || theirs.is_empty()
        {
            return Alike { leaves };
        }
        let wanted: [Option<&[u128]>; 4] = [Some(dropped), Some(ours), Some(theirs), None];
        for (v, (tree, names, nodes)) in versions.into_iter().enumerate() {
            for (&name, &node) in names.iter().zip(nodes) {
                if wanted[v].is_none_or(|w| w.contains(&name)) {
                    leaves[v]
                        .entry(name)
                        .or_insert_with(|| Leaves::of(tree, node, &[]));
                }
            }
        }
        Alike { leaves }
    }

    /// How alike an element of version `v` is to one of `w`; 0 where either is not read.
    fn likeness(&self, v: usize, x: u128, w: usize, y: u128) -> f64 {
        match (self.leaves[v].get(&x), self.leaves[w].get(&y)) {
            (Some(a), Some(b)) => a.likeness(b),
            _ => 0.0,
        }
    }

    /// A side's (`v`) candidates for base element `x`, the most alike first.
    fn ranked(&self, v: usize, x: u128, candidates: &[u128]) -> Vec<u128> {
        let mut out = candidates.to_vec();
        out.sort_by(|&a, &b| {
            self.likeness(v, b, 0, x)
                .total_cmp(&self.likeness(v, a, 0, x))
        });
        out
    }

    /// The result's elements, the most alike to ours' `oc` or theirs' `tc` first.
    fn ranked_result(&self, oc: u128, tc: u128, results: &[u128]) -> Vec<u128> {
        let score = |m: u128| self.likeness(3, m, 1, oc).max(self.likeness(3, m, 2, tc));
        let mut out = results.to_vec();
        out.sort_by(|&a, &b| score(b).total_cmp(&score(a)));
        out
    }
}

/// Where a side's copies of element `c` stand: each after the nearest base element before
/// it (`None` at the start), in order.
fn places(base: &[u128], side: &[u128], c: u128) -> Vec<Option<u128>> {
    let in_base: HashSet<u128> = base.iter().copied().collect();
    let mut before = None;
    let mut out = Vec::new();
    for &x in side {
        if x == c {
            out.push(before);
        } else if in_base.contains(&x) {
            before = Some(x);
        }
    }
    out
}

/// Where each element a sequence holds once stands in it (elements it repeats are left out).
/// The positions of base's elements `bd` that a longest common subsequence with a side's
/// `sd` leaves out: the copies the side dropped, read the way a line diff reads them. Lists
/// too long for the table are read as dropping every copy (the caller's cautious reading).
fn dropped(bd: &[u128], sd: &[u128]) -> HashSet<usize> {
    let (n, m) = (bd.len(), sd.len());
    if n.saturating_mul(m) > 4_000_000 {
        return (0..n).collect();
    }
    // lcs[i][j]: the longest common run of bd[i..] and sd[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if bd[i] == sd[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, HashSet::new());
    while i < n {
        if j < m && bd[i] == sd[j] {
            i += 1;
            j += 1;
        } else if j < m && lcs[i][j + 1] > lcs[i + 1][j] {
            j += 1;
        } else {
            out.insert(i);
            i += 1;
        }
    }
    out
}

fn singles<T: std::hash::Hash + Eq + Clone>(v: &[T]) -> HashMap<T, usize> {
    let mut count: HashMap<&T, usize> = HashMap::new();
    for x in v {
        *count.entry(x).or_default() += 1;
    }
    v.iter()
        .enumerate()
        .filter(|(_, x)| count[x] == 1)
        .map(|(i, x)| (x.clone(), i))
        .collect()
}

/// The elements of `shared` a side moved: those off a longest run of them it keeps in base's
/// order (positions `pb` in base, `ps` in the side).
fn moved<T: std::hash::Hash + Eq + Clone>(
    shared: &[T],
    pb: &HashMap<T, usize>,
    ps: &HashMap<T, usize>,
) -> HashSet<T> {
    let mut in_side: Vec<&T> = shared.iter().collect();
    in_side.sort_unstable_by_key(|x| ps[*x]);
    // Longest increasing run of base positions: `tails[k]` ends the best run of length k + 1.
    let (mut tails, mut prev): (Vec<usize>, Vec<Option<usize>>) = (Vec::new(), Vec::new());
    for (i, x) in in_side.iter().enumerate() {
        let k = tails.partition_point(|&j| pb[in_side[j]] < pb[*x]);
        prev.push(k.checked_sub(1).map(|k| tails[k]));
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut kept = HashSet::new();
    let mut at = tails.last().copied();
    while let Some(i) = at {
        kept.insert(i);
        at = prev[i];
    }
    (0..in_side.len())
        .filter(|i| !kept.contains(i))
        .map(|i| in_side[i].clone())
        .collect()
}

/// A base element both sides replaced in its place by new elements of their own, different
/// ones, where the result holds a replacement of each side: one element edited two ways
/// is one element (their merge) or a conflict, never both copies. Its place is between its
/// base neighbours, found once in each side; the first such element.
fn replaced_by_both<T: std::hash::Hash + Eq + Clone>(
    b: &[T],
    o: &[T],
    t: &[T],
    r: &[T],
) -> Option<T> {
    let all = |v: &[T]| -> HashSet<T> { v.iter().cloned().collect() };
    let (in_b, in_o, in_t, in_r) = (all(b), all(o), all(t), all(r));
    let (po, pt) = (singles(o), singles(t));
    // The elements of `side` between the places of base's `i - 1` and `i + 1` (the ends of
    // the list where there is none), if those are there once and all between is new.
    let replacement = |side: &[T], places: &HashMap<T, usize>, i: usize| -> Option<Vec<T>> {
        let at = |x: &T| places.get(x).copied();
        let from = match i.checked_sub(1) {
            Some(p) => at(&b[p])? + 1,
            None => 0,
        };
        let to = match b.get(i + 1) {
            Some(n) => at(n)?,
            None => side.len(),
        };
        let between = side.get(from..to)?;
        (!between.is_empty() && between.iter().all(|x| !in_b.contains(x))).then(|| between.to_vec())
    };
    b.iter().enumerate().find_map(|(i, x)| {
        if in_o.contains(x) || in_t.contains(x) {
            return None;
        }
        let (ours, theirs) = (replacement(o, &po, i)?, replacement(t, &pt, i)?);
        let kept =
            |new: &[T], other: &[T]| new.iter().any(|y| in_r.contains(y) && !other.contains(y));
        (ours != theirs && kept(&ours, &theirs) && kept(&theirs, &ours)).then(|| x.clone())
    })
}

/// The first pair of elements (present once in every version) whose order in the result is
/// not the one the sides agree on: both sides' order where they agree, else the order of
/// the side that changed it from base. Where each side moved one of the two (or the side
/// that kept their order moved one itself), the two moves decide their order together, as
/// in git's merge of the two sequences, whatever order each side shows: no order is wanted.
fn misordered<T: std::hash::Hash + Eq + Clone>(
    b: &[T],
    o: &[T],
    t: &[T],
    r: &[T],
) -> Option<(T, T)> {
    let (pb, po, pt, pr) = (singles(b), singles(o), singles(t), singles(r));
    let shared: Vec<T> = r
        .iter()
        .filter(|x| {
            pb.contains_key(*x) && po.contains_key(*x) && pt.contains_key(*x) && pr.contains_key(*x)
        })
        .cloned()
        .collect();
    let (moved_o, moved_t) = (moved(&shared, &pb, &po), moved(&shared, &pb, &pt));
    // Every pair of a short list; neighbours in the result for a long one.
    let pairs: Vec<(usize, usize)> = if shared.len() <= 200 {
        (0..shared.len())
            .flat_map(|i| (i + 1..shared.len()).map(move |j| (i, j)))
            .collect()
    } else {
        (1..shared.len()).map(|i| (i - 1, i)).collect()
    };
    for (i, j) in pairs {
        let (x, y) = (&shared[i], &shared[j]);
        let before = |p: &HashMap<T, usize>| p[x] < p[y];
        let (ob, oo, ot) = (before(&pb), before(&po), before(&pt));
        let want = if oo == ot || oo == ob { ot } else { oo };
        let kept_by = if oo == ot {
            None
        } else if oo == ob {
            Some(&moved_o)
        } else {
            Some(&moved_t)
        };
        let crossed = |m: &HashSet<T>, n: &HashSet<T>| m.contains(x) && n.contains(y);
        if kept_by.is_some_and(|m| m.contains(x) || m.contains(y))
            || crossed(&moved_o, &moved_t)
            || crossed(&moved_t, &moved_o)
        {
            continue;
        }
        if before(&pr) != want {
            return Some((x.clone(), y.clone()));
        }
    }
    None
}

/// A set's elements as data, in one order: two sets hold the same elements where these are
/// equal, whatever order each was written in.
fn sorted_entries(tree: &Tree, seq: NodeId) -> Vec<String> {
    let mut all: Vec<String> = tree
        .children(seq)
        .iter()
        .map(|&e| canonical(tree, e))
        .collect();
    all.sort_unstable();
    all
}
