//! A list both sides changed: keyed lists element by element (by the same list-key rules as
//! the merge), other lists as sequences of elements compared by content, so a move is seen as
//! a move and not as an edit of whatever element landed in its place.

use std::collections::{HashMap, HashSet};

use crate::options::Policy;
use crate::parse::{canonical, data_names, Kind, NodeId, Tree};
use crate::resource::{element_key, list_kind, renamed_element, similar, Identity, ListKind, Path};

use super::values::{cleared_same, At, Checker};

/// A list's elements by their key: (pairing name, shown name, node), in order.
type Named = Vec<(String, String, NodeId)>;

/// An element of a version and the result's element with the same key: (shown key, the
/// version's node, the result's node).
pub(super) type KeyedPair = (String, NodeId, NodeId);

impl Checker<'_> {
    /// Checks a list both sides changed. `at` holds base's, ours', theirs' and the result's.
    pub(super) fn list(&mut self, path: &Path, common: Option<&str>, at: [At; 4]) {
        let [b, o, t, r] = at;
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        let kind = if self.group_kind.as_deref() == Some("List") && path.schema == "items" {
            None
        } else {
            let lists: Vec<(&Tree, NodeId)> = [(bt, b), (ot, o), (tt, t)]
                .into_iter()
                .filter_map(|(tree, n)| n.map(|n| (tree, n)))
                .collect();
            Some(list_kind(self.group_kind.as_deref(), &path.schema, &lists))
        };
        let name = |tree: &Tree, list: At| -> Option<Named> {
            let Some(list) = list else {
                return Some(Vec::new());
            };
            if tree.node(list).kind != Kind::Seq {
                return Some(Vec::new());
            }
            named(tree, list, kind.as_ref())
        };
        if kind.as_ref() != Some(&ListKind::Plain) {
            if let (Some(bn), Some(on), Some(tn)) = (name(bt, b), name(ot, o), name(tt, t)) {
                let Some(rn) = name(rt, r) else {
                    return self.at(
                        path,
                        common,
                        "an element key is missing or repeated in the result",
                    );
                };
                let set = kind.as_ref() == Some(&ListKind::Set);
                let mut named = [bn, on, tn, rn];
                if !set && self.policy != Policy::Theirs {
                    self.pair_renames(&mut named);
                }
                return self.keyed(path, common, set, named);
            }
        }
        match self.policy {
            Policy::Mark => self.plain(path, common, at),
            Policy::Theirs => {
                // kyaml takes a list without merge keys whole from theirs.
                if !cleared_same(rt, r, tt, t) {
                    self.at(path, common, "theirs' list expected whole (kyaml)");
                }
            }
            Policy::Ours => {
                // Ours wins each stretch both changed: every element comes from one side.
                let elements = |tree: &Tree, x: At| -> HashSet<String> {
                    x.map(|x| {
                        tree.children(x)
                            .iter()
                            .map(|&e| canonical(tree, e))
                            .collect()
                    })
                    .unwrap_or_default()
                };
                let sides: HashSet<String> =
                    elements(ot, o).union(&elements(tt, t)).cloned().collect();
                if !elements(rt, r).is_subset(&sides) {
                    self.at(path, common, "an element neither side has");
                }
            }
        }
    }

    /// Renames the element a side renamed (`resource::renamed_element`, the merge's own rule)
    /// to its base key in that side and in the result, so its value is checked against its
    /// base and the other side's version: the other side's edit must be in it.
    fn pair_renames(&self, [b, o, t, r]: &mut [Named; 4]) {
        let keys = |n: &Named| -> Vec<String> { n.iter().map(|(k, _, _)| k.clone()).collect() };
        fn refs(v: &[String]) -> Vec<&str> {
            v.iter().map(String::as_str).collect()
        }
        let (bk, ok, tk) = (keys(b), keys(o), keys(t));
        let (br, or, tr) = (refs(&bk), refs(&ok), refs(&tk));
        let found = [
            (
                1,
                renamed_element(&br, &or, &tr, |i, j| {
                    similar(self.b, b[i].2, self.o, o[j].2)
                }),
            ),
            (
                2,
                renamed_element(&br, &tr, &or, |i, j| {
                    similar(self.b, b[i].2, self.t, t[j].2)
                }),
            ),
        ];
        for (side, pair) in found {
            let Some((bi, si)) = pair else { continue };
            let (old, new) = (
                bk[bi].clone(),
                if side == 1 { &ok } else { &tk }[si].clone(),
            );
            let x = if side == 1 { &mut *o } else { &mut *t };
            x[si].0 = old.clone();
            if !r.iter().any(|(k, _, _)| *k == old) {
                if let Some(e) = r.iter_mut().find(|(k, _, _)| *k == new) {
                    e.0 = old;
                }
            }
        }
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
        let kind = if self.group_kind.as_deref() == Some("List") && path.schema == "items" {
            None
        } else {
            Some(list_kind(
                self.group_kind.as_deref(),
                &path.schema,
                &[(xt, x), (rt, r)],
            ))
        };
        if kind == Some(ListKind::Plain) {
            return None;
        }
        let (xs, rs) = (named(xt, x, kind.as_ref())?, named(rt, r, kind.as_ref())?);
        let index: HashMap<&str, NodeId> = rs.iter().map(|(k, _, e)| (k.as_str(), *e)).collect();
        let pairs = xs
            .into_iter()
            .map(|(k, shown, e)| Some((shown, e, *index.get(k.as_str())?)))
            .collect::<Option<Vec<_>>>()?;
        Some((kind == Some(ListKind::Set), pairs))
    }

    /// A keyed list: each element checked as a value by its key; where both sides kept an
    /// element, the result keeps the order both agree on (init containers and CI steps run
    /// in order). Set lists have no order.
    fn keyed(&mut self, path: &Path, common: Option<&str>, set: bool, [b, o, t, r]: [Named; 4]) {
        let index = |n: &Named| -> HashMap<String, NodeId> {
            n.iter().map(|(k, _, e)| (k.clone(), *e)).collect()
        };
        let (bi, oi, ti, ri) = (index(&b), index(&o), index(&t), index(&r));
        let mut seen = HashSet::new();
        let all: Vec<(String, String)> = [&o, &t, &b, &r]
            .into_iter()
            .flat_map(|n| n.iter().map(|(k, shown, _)| (k.clone(), shown.clone())))
            .filter(|(k, _)| seen.insert(k.clone()))
            .collect();
        for (key, shown) in &all {
            let at = |i: &HashMap<String, NodeId>| i.get(key).copied();
            self.value(
                &path.element(shown),
                common,
                [at(&bi), at(&oi), at(&ti), at(&ri)],
            );
        }
        if set || self.policy != Policy::Mark {
            return;
        }
        let names = |n: &Named| n.iter().map(|(k, _, _)| k.clone()).collect::<Vec<_>>();
        if let Some((x, y)) = misordered(&names(&b), &names(&o), &names(&t), &names(&r)) {
            let shown = |k: &str| {
                all.iter()
                    .find(|(key, _)| key == k)
                    .map_or_else(|| k.to_string(), |(_, s)| s.clone())
            };
            self.at(
                path,
                common,
                format!(
                    "elements {} and {} are out of the order the sides agree on",
                    shown(&x),
                    shown(&y)
                ),
            );
        }
    }

    /// A list without merge keys both sides changed, compared as a sequence of elements
    /// (mark mode): every element's count in the result is base's plus each side's change
    /// (a change both made alike counts once); an element no input has must be the merge of
    /// one base element both sides changed, their versions standing where it stood; elements
    /// all versions share keep the order the sides agree on.
    fn plain(&mut self, path: &Path, common: Option<&str>, [b, o, t, r]: [At; 4]) {
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        let Some(b) = b else {
            return self.at(
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
        let [bd, od, td, rd] = data_names([(bt, &bi), (ot, &oi), (tt, &ti), (rt, &ri)]);
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
        let mut fewer_allowed: HashMap<u128, i64> = HashMap::new();
        let (mut ours_new, mut theirs_new, mut both_dropped) = (Vec::new(), Vec::new(), Vec::new());
        for &c in &contents {
            let get = |m: &HashMap<u128, i64>| m.get(&c).copied().unwrap_or(0);
            let (nb, no, nt) = (get(&cb), get(&co), get(&ct));
            let (d_o, d_t) = (no - nb, nt - nb);
            want.insert(c, if d_o == d_t { nb + d_o } else { nb + d_o + d_t });
            if d_o == d_t && d_o < 0 && nb > 1 {
                fewer_allowed.insert(c, -d_o);
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
            let lowest = (should - fewer_allowed.get(&c).copied().unwrap_or(0)).max(0);
            if have >= lowest && have <= should {
                0
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
        let placed = |anchors: &[Option<usize>], sd: &[u128], x: u128, c: u128| -> bool {
            bd.iter()
                .enumerate()
                .filter(|(_, y)| **y == x)
                .any(|(i, _)| {
                    let after = anchors[..i].iter().rev().find_map(|a| *a);
                    let before = anchors[i + 1..].iter().find_map(|a| *a);
                    sd.iter().enumerate().any(|(p, y)| {
                        *y == c && after.is_none_or(|a| p > a) && before.is_none_or(|b| p < b)
                    })
                })
        };
        let mut budget = 20_000usize;
        // The merges that explain the most first: a merged element the result has too many
        // of, standing for ours' and theirs' versions it has too few of.
        'merged: while off(&want) > 0 {
            for gain in [3, 2, 1] {
                for &x in &both_dropped {
                    for &oc in &ours_new {
                        for &tc in &theirs_new {
                            if oc == tc
                                || want[&oc] <= 0
                                || want[&tc] <= 0
                                || !placed(&ao, &od, x, oc)
                                || !placed(&at, &td, x, tc)
                            {
                                continue;
                            }
                            for &m in contents.iter().filter(|c| cr.contains_key(*c)) {
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
                                    if self.merges(bn, on, tn, rn) {
                                        want = trial;
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
        let (mut extra, mut missing) = (0, 0);
        for &c in &contents {
            let gap = gap(c, &want);
            extra += gap.max(0);
            missing += (-gap).max(0);
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
        if let Some(x) = replaced_by_both(&bd, &od, &td, &rd) {
            let shown = node(&bd, &bi, x)
                .map(|n| canonical(bt, n).chars().take(30).collect::<String>())
                .unwrap_or_default();
            return self.at(
                path,
                common,
                format!(
                    "both sides replaced element {shown} differently and the result keeps both: a conflict"
                ),
            );
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

    /// Whether `r` is a clean merge of base element `b` with ours' `o` and theirs' `t`.
    fn merges(&self, b: NodeId, o: NodeId, t: NodeId, r: NodeId) -> bool {
        let mut probe = self.probe();
        probe.value(&Path::default(), None, [Some(b), Some(o), Some(t), Some(r)]);
        matches!(probe.verdict(), super::Verdict::Holds)
    }
}

/// A list's elements named by their key (`kind` `None`: a `kind: List`'s items, by identity);
/// `None` when one cannot be named or two share a name.
fn named(tree: &Tree, list: NodeId, kind: Option<&ListKind>) -> Option<Named> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &e in tree.children(list) {
        let (name, shown) = match kind {
            None => {
                let id = Identity::of(tree, e)?;
                (format!("{id:?}"), id.to_string())
            }
            Some(ListKind::Keyed(keys)) => element_key(tree, e, keys)?,
            Some(ListKind::Set) => {
                if tree.node(e).kind != Kind::Scalar {
                    return None;
                }
                let v = canonical(tree, e);
                (v, tree.value(e).to_string())
            }
            Some(ListKind::Plain) => return None,
        };
        if !seen.insert(name.clone()) {
            return None;
        }
        out.push((name, shown, e));
    }
    Some(out)
}

/// Where each element a sequence holds once stands in it (elements it repeats are left out).
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
/// the side that changed it from base.
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
        if before(&pr) != want {
            return Some((x.clone(), y.clone()));
        }
    }
    None
}
