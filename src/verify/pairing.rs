//! Which items of base, ours, theirs and the result are one item (documents of a file, entries
//! of a map, elements of a keyed list): the verifier's own reading, written apart from the
//! merge's pairing on purpose. A verifier that borrowed the merge's rename rule once accepted
//! a merge that dropped a new list element, and rejected git's right result of the same merge.
//!
//! Two readings:
//! - **by identity**: documents by resource identity, map entries by key, keyed list elements
//!   by their key;
//! - **by likeness**: each base item with the item of each side most like it in content,
//!   where that is unambiguous. A renamed CI job, a StatefulSet turned into a Deployment, or a
//!   list element both sides renamed alike while one added a new element under the old name
//!   read right only so.
//!
//! The checks read by identity, and by likeness only where that finds the result wrong at an
//! item some version lacks (a rename shows so). Under either reading nothing a side added or
//! changed may be missing and nothing a side deleted may come back: the likeness reading
//! changes only which items those are.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::parse::{Kind, NodeId, Tree};

use super::Taken;

/// One item of a collection: its identity (document identity, map key, element key), how
/// paths show it, and its node.
#[derive(Clone, Debug)]
pub(super) struct Item {
    pub key: String,
    pub shown: String,
    pub node: NodeId,
}

/// One item across the versions: its index among the items of base, ours, theirs and the
/// result, where that version has it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Row(pub [Option<usize>; 4]);

impl Row {
    /// Whether a version of base, ours and theirs lacks the item another one has: a place a
    /// rename can hide.
    pub fn incomplete(&self) -> bool {
        let [b, o, t, _] = self.0;
        !(b.is_some() && o.is_some() && t.is_some())
    }
}

/// The versions' items paired by identity, in the order ours, theirs, base and the result
/// first name them.
pub(super) fn by_key(items: [&[Item]; 4]) -> Vec<Row> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut rows: Vec<Row> = Vec::new();
    for version in [1, 2, 0, 3] {
        for (i, item) in items[version].iter().enumerate() {
            let row = *index.entry(item.key.as_str()).or_insert_with(|| {
                rows.push(Row::default());
                rows.len() - 1
            });
            rows[row].0[version] = Some(i);
        }
    }
    rows
}

/// The fields a likeness reading leaves out of an item's content: a document's identity, an
/// element's key (what a rename changes).
pub(super) type Skip<'a> = &'a [&'a str];

/// The versions' items paired by likeness: each base item with its counterpart in ours and
/// in theirs (see [`pair_sides`]); items new to both sides by identity; each row with the
/// result's item of the identity the row's sides give it (a side's new identity where the
/// other kept base's; where both renamed it differently, the identity of the side a policy
/// lets win, `winner`, else none). `None` where two rows would claim one item of the result:
/// the reading cannot say which is which.
pub(super) fn by_likeness(
    trees: [&Tree; 4],
    items: [&[Item]; 4],
    skip: Skip,
    winner: Option<Taken>,
) -> Option<Vec<Row>> {
    by_likeness_where(trees, items, skip, winner, |_, _, _| true)
}

/// [`by_likeness`], with only the renames `keep` accepts read as renames (called with the
/// side, 0 ours or 1 theirs, the base item and the side's item): a side's item it refuses is
/// a new item, and the base item one that side deleted.
pub(super) fn by_likeness_where(
    trees: [&Tree; 4],
    items: [&[Item]; 4],
    skip: Skip,
    winner: Option<Taken>,
    keep: impl Fn(usize, usize, usize) -> bool,
) -> Option<Vec<Row>> {
    let [bt, ot, tt, _] = trees;
    let mut sides = pair_sides(bt, items[0], [(ot, items[1]), (tt, items[2])], skip);
    for (side, pairs) in sides.iter_mut().enumerate() {
        for (b, pair) in pairs.iter_mut().enumerate() {
            if pair.is_some_and(|s| items[0][b].key != items[side + 1][s].key && !keep(side, b, s))
            {
                *pair = None;
            }
        }
    }
    let [ours, theirs] = sides;
    let mut rows: Vec<Row> = (0..items[0].len())
        .map(|b| Row([Some(b), ours[b], theirs[b], None]))
        .collect();
    let taken = |pairs: &[Option<usize>], n: usize| {
        let mut taken = vec![false; n];
        for &p in pairs.iter().flatten() {
            taken[p] = true;
        }
        taken
    };
    let (ours_taken, theirs_taken) = (taken(&ours, items[1].len()), taken(&theirs, items[2].len()));
    // What each side added, paired by identity where both added one.
    let mut added: HashMap<&str, usize> = HashMap::new();
    for (o, item) in items[1].iter().enumerate() {
        if !ours_taken[o] {
            added.insert(item.key.as_str(), rows.len());
            rows.push(Row([None, Some(o), None, None]));
        }
    }
    for (t, item) in items[2].iter().enumerate() {
        if theirs_taken[t] {
            continue;
        }
        match added.get(item.key.as_str()) {
            Some(&row) if rows[row].0[2].is_none() => rows[row].0[2] = Some(t),
            _ => rows.push(Row([None, None, Some(t), None])),
        }
    }
    if let Some(winner) = winner {
        joined_with_a_winning_rename(&mut rows, items, winner);
    }
    // The result's items by the identity each row gives them.
    let result: HashMap<&str, usize> = items[3]
        .iter()
        .enumerate()
        .map(|(i, item)| (item.key.as_str(), i))
        .collect();
    let mut claimed = vec![false; items[3].len()];
    for row in &mut rows {
        if let Some(&r) = wanted(row, items, winner).and_then(|k| result.get(k)) {
            if std::mem::replace(&mut claimed[r], true) {
                return None;
            }
            row.0[3] = Some(r);
        }
    }
    rows.extend(
        (0..items[3].len())
            .filter(|&r| !claimed[r])
            .map(|r| Row([None, None, None, Some(r)])),
    );
    Some(rows)
}

/// The identity the result's item of `row` has: see [`identity_of_row`].
fn wanted<'a>(row: &Row, items: [&'a [Item]; 4], winner: Option<Taken>) -> Option<&'a str> {
    let key = |version: usize| row.0[version].map(|i| items[version][i].key.as_str());
    identity_of_row([key(0), key(1), key(2)], winner)
}

/// The identity a row's item (a document, a list element) should have in the result, given
/// its base, ours and theirs identities: a side's new identity where the other kept base's;
/// where both renamed it differently, the identity of the side a policy lets win, `winner`,
/// else none (and the check finds it lost); none where no side holds it.
pub(super) fn identity_of_row<T: PartialEq>(
    [b, o, t]: [Option<T>; 3],
    winner: Option<Taken>,
) -> Option<T> {
    match (o, t) {
        (Some(o), Some(t)) if o == t => Some(o),
        (Some(o), Some(t)) if b.as_ref() == Some(&o) => Some(t),
        (Some(o), Some(t)) if b.as_ref() == Some(&t) => Some(o),
        (Some(o), Some(t)) => match winner {
            Some(Taken::Ours) => Some(o),
            Some(Taken::Theirs) => Some(t),
            None => None,
        },
        (Some(o), None) => Some(o),
        (None, Some(t)) => Some(t),
        (None, None) => None,
    }
}

/// Under a policy, where the winning side renamed a base item to an identity the other side
/// added an item of (ours renamed `gateway` to `debug`, theirs renamed it to `debug-v2` and
/// added a new `debug`): the two items of that identity are one item both sides put in, and
/// the base item is one the winning side took away (the other side's change of it, its own
/// rename included, loses). Read the rename's way, two rows would claim the result's one
/// item of that identity and no reading would be left.
fn joined_with_a_winning_rename(rows: &mut [Row], items: [&[Item]; 4], winner: Taken) {
    let (w, l) = match winner {
        Taken::Ours => (1, 2),
        Taken::Theirs => (2, 1),
    };
    let mut joined = Vec::new();
    for i in 0..rows.len() {
        let (Some(b), Some(wi)) = (rows[i].0[0], rows[i].0[w]) else {
            continue;
        };
        let key = items[w][wi].key.as_str();
        if key == items[0][b].key || wanted(&rows[i], items, Some(winner)) != Some(key) {
            continue;
        }
        // The loser's new item of the winner's new identity, alone in its row.
        let other = rows.iter().position(|row| {
            row.0[0].is_none()
                && row.0[w].is_none()
                && row.0[l].is_some_and(|x| items[l][x].key == key)
        });
        if let Some(j) = other {
            joined.push((i, j, wi));
        }
    }
    for (i, j, wi) in joined {
        rows[i].0[w] = None;
        rows[j].0[w] = Some(wi);
    }
}

/// How many characters two names share at their start.
fn shared_start(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// The least likeness at which two items are read as one item renamed: half of the larger
/// one's leaves (field path, list positions left out, and value) alike.
const ALIKE: f64 = 0.5;

/// Pairs beyond which only items of equal content pair: likeness of every pair of two long
/// lists costs more than the check may.
pub(super) const COMPARED_PAIRS: usize = 10_000;

/// For each base item, its counterpart in each side (ours, theirs), one to one:
/// - the item of its own identity, where the side has one: a rename is not read where the
///   old identity still stands (a copy pasted beside an edited original is a new item);
/// - else the side's item new by identity that is the same content (the fields in `skip`
///   left out) or, failing that, the most alike, at least [`ALIKE`] and more alike than any
///   other open item of different content (a tie is ambiguous: no rename is read);
/// - and where the other side renamed the item to an identity this side has too, new to it,
///   and at least as alike as its item of the old identity: that one. Both sides renamed the
///   item alike, and this side added a new item under the old identity.
///
/// An item with no content but the skipped fields pairs only by identity: nothing else shows
/// it is the same.
pub(super) fn pair_sides(
    bt: &Tree,
    base: &[Item],
    sides: [(&Tree, &[Item]); 2],
    skip: Skip,
) -> [Vec<Option<usize>>; 2] {
    let bl: Vec<Leaves> = base.iter().map(|i| Leaves::of(bt, i.node, skip)).collect();
    let base_keys: HashMap<&str, usize> = base
        .iter()
        .enumerate()
        .map(|(b, i)| (i.key.as_str(), b))
        .collect();
    let mut read: Vec<Reading> = sides
        .iter()
        .map(|&(st, side)| Reading::by_identity(&base_keys, st, side, skip))
        .collect();
    let base_names: Vec<&str> = base.iter().map(|i| i.key.as_str()).collect();
    for (r, &(_, side)) in read.iter_mut().zip(&sides) {
        let names: Vec<&str> = side.iter().map(|i| i.key.as_str()).collect();
        r.renames(&bl, [&base_names, &names]);
    }
    // Both sides gave an item one new identity (both dropped a document's namespace, say),
    // and one side changed its content too much to read as alike: the same new identity on
    // both sides is the rename, which the likeness of one side alone cannot show.
    for s in 0..2 {
        let other = 1 - s;
        for (b, item) in base.iter().enumerate() {
            let (Some(mine), None) = (read[s].pairs[b], read[other].pairs[b]) else {
                continue;
            };
            let renamed = sides[s].1[mine].key.as_str();
            if renamed == item.key {
                continue;
            }
            if let Some(&alt) = read[other].keys.get(renamed) {
                if !read[other].taken[alt] && read[other].new[alt] {
                    read[other].taken[alt] = true;
                    read[other].pairs[b] = Some(alt);
                }
            }
        }
    }
    // Both sides renamed an item alike, one of them keeping a new item under the old name.
    // Only where the renamed copy is more like base's item than the one under the old name:
    // where both are as alike (a copy that carries no change), which is base's is not clear,
    // and the old name reads as base's item, by identity.
    for s in 0..2 {
        let other = 1 - s;
        for b in 0..base.len() {
            let (Some(mine), Some(theirs)) = (read[s].pairs[b], read[other].pairs[b]) else {
                continue;
            };
            let (side, other_side) = (sides[s].1, sides[other].1);
            let renamed = &other_side[theirs].key;
            if side[mine].key != base[b].key || *renamed == base[b].key {
                continue;
            }
            let Some(&alt) = read[s].keys.get(renamed.as_str()) else {
                continue;
            };
            if read[s].taken[alt] || base_keys.contains_key(renamed.as_str()) {
                continue;
            }
            if bl[b].likeness(&read[s].leaves[alt]) > bl[b].likeness(&read[s].leaves[mine]) {
                read[s].taken[mine] = false;
                read[s].taken[alt] = true;
                read[s].pairs[b] = Some(alt);
            }
        }
    }
    let [ours, theirs] = [0, 1].map(|s| std::mem::take(&mut read[s].pairs));
    [ours, theirs]
}

/// One side's items as [`pair_sides`] reads them.
struct Reading {
    leaves: Vec<Leaves>,
    keys: HashMap<String, usize>,
    /// Whether each item's identity is new to the side (not a base item's).
    new: Vec<bool>,
    taken: Vec<bool>,
    /// Each base item's counterpart.
    pairs: Vec<Option<usize>>,
}

impl Reading {
    /// Each base item paired with the side's item of its identity.
    fn by_identity(
        base_keys: &HashMap<&str, usize>,
        st: &Tree,
        side: &[Item],
        skip: Skip,
    ) -> Reading {
        let mut pairs = vec![None; base_keys.len()];
        let mut taken = vec![false; side.len()];
        let mut new = vec![true; side.len()];
        for (s, item) in side.iter().enumerate() {
            if let Some(&b) = base_keys.get(item.key.as_str()) {
                pairs[b] = Some(s);
                taken[s] = true;
                new[s] = false;
            }
        }
        Reading {
            leaves: side.iter().map(|i| Leaves::of(st, i.node, skip)).collect(),
            keys: side
                .iter()
                .enumerate()
                .map(|(s, i)| (i.key.clone(), s))
                .collect(),
            new,
            taken,
            pairs,
        }
    }

    /// Base items the side has no item of: each with a new item of the same content, else
    /// with the most alike where that is unambiguous. `names` are base's and the side's
    /// item identities.
    fn renames(&mut self, bl: &[Leaves], names: [&[&str]; 2]) {
        let open_base: Vec<usize> = (0..bl.len())
            .filter(|&b| self.pairs[b].is_none() && !bl[b].is_empty())
            .collect();
        let open = |taken: &[bool]| -> Vec<usize> {
            (0..taken.len())
                .filter(|&s| !taken[s] && self.new[s] && !self.leaves[s].is_empty())
                .collect()
        };
        // The same content first. Where several items share it (zones alike but for their
        // names), the names that share the longest start pair first (`zone-c` renamed
        // `zone-c-main`, not `zone-b` deleted beside it), then base's order.
        let mut by_content: HashMap<u64, Vec<usize>> = HashMap::new();
        for s in open(&self.taken) {
            by_content.entry(self.leaves[s].whole).or_default().push(s);
        }
        let mut same: Vec<(usize, usize, usize)> = Vec::new();
        for &b in &open_base {
            for &s in by_content.get(&bl[b].whole).into_iter().flatten() {
                same.push((shared_start(names[0][b], names[1][s]), b, s));
            }
        }
        same.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        for (_, b, s) in same {
            if self.pairs[b].is_none() && !self.taken[s] {
                self.pairs[b] = Some(s);
                self.taken[s] = true;
            }
        }
        let open_base: Vec<usize> = open_base
            .into_iter()
            .filter(|&b| self.pairs[b].is_none())
            .collect();
        let open_side = open(&self.taken);
        if open_base.len() * open_side.len() > COMPARED_PAIRS {
            return;
        }
        let mut scored: Vec<(f64, usize, usize)> = Vec::new();
        for &b in &open_base {
            for &s in &open_side {
                let score = bl[b].likeness(&self.leaves[s]);
                if score >= ALIKE {
                    scored.push((score, b, s));
                }
            }
        }
        // Most alike first; a pair is taken only where no other pair of either item, still
        // open, is as alike with other content.
        scored.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        for &(score, b, s) in &scored {
            if self.pairs[b].is_some() || self.taken[s] {
                continue;
            }
            let rival = scored.iter().any(|&(other, c, t)| {
                other == score
                    && ((c == b
                        && t != s
                        && !self.taken[t]
                        && self.leaves[t].whole != self.leaves[s].whole)
                        || (t == s
                            && c != b
                            && self.pairs[c].is_none()
                            && bl[c].whole != bl[b].whole))
            });
            if rival {
                continue;
            }
            self.pairs[b] = Some(s);
            self.taken[s] = true;
        }
        self.sole_key_renamed(bl);
    }

    /// The one base item still open and the one new item still open, both holding nothing
    /// but their key (a port list's `containerPort`): read as the item renamed. No content
    /// can show it, but neither can any other item be it, so the reading is unambiguous;
    /// read as a deletion and an addition instead, both sides renaming one port apart would
    /// keep both ports where a person (and mark mode) sees one port changed two ways. A new
    /// item with content beside it is no rival: the content it holds and the base item lacks
    /// makes it less alike (a document renamed beside a resource added to the file).
    fn sole_key_renamed(&mut self, bl: &[Leaves]) {
        let open_base: Vec<usize> = (0..bl.len()).filter(|&b| self.pairs[b].is_none()).collect();
        let open_side: Vec<usize> = (0..self.taken.len())
            .filter(|&s| !self.taken[s] && self.new[s] && self.leaves[s].is_empty())
            .collect();
        if let ([b], [s]) = (open_base.as_slice(), open_side.as_slice()) {
            if bl[*b].is_empty() && self.leaves[*s].is_empty() {
                self.pairs[*b] = Some(*s);
                self.taken[*s] = true;
            }
        }
    }
}

/// An item's content as a multiset of its leaves, each a hash of its field path (list
/// positions left out) and its value as data: sorted, so that two items compare in one pass.
pub(super) struct Leaves {
    sorted: Vec<u64>,
    /// One hash of them all, equal for items of the same content.
    whole: u64,
}

impl Leaves {
    pub fn of(tree: &Tree, node: NodeId, skip: Skip) -> Leaves {
        let skipped: Vec<u64> = skip.iter().map(|field| path_hash(field)).collect();
        let mut sorted = Vec::new();
        let mut stack = vec![(node, ROOT)];
        while let Some((n, path)) = stack.pop() {
            match tree.node(n).kind {
                Kind::Map => {
                    for (k, v) in tree.entries(n) {
                        let field = step(path, tree.value(k).as_bytes());
                        if !skipped.contains(&field) {
                            stack.push((v, field));
                        }
                    }
                }
                Kind::Seq => {
                    let element = step(path, b"[]");
                    stack.extend(tree.children(n).iter().map(|&c| (c, element)));
                }
                Kind::Scalar | Kind::Alias => {
                    let mut h = Fx(path);
                    match tree.node(n).kind {
                        Kind::Alias => tree.value(n).hash(&mut h),
                        _ => tree.scalar_key(n).hash(&mut h),
                    }
                    sorted.push(h.finish());
                }
            }
        }
        sorted.sort_unstable();
        let mut h = Fx(ROOT);
        sorted.iter().for_each(|&x| h.add(x));
        Leaves {
            whole: h.finish(),
            sorted,
        }
    }

    fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// Whether two items hold the same content (the skipped fields left out).
    pub fn same_content(&self, other: &Leaves) -> bool {
        self.whole == other.whole
    }

    /// The share of the larger item's leaves the two have in common.
    pub fn likeness(&self, other: &Leaves) -> f64 {
        let (a, b) = (&self.sorted, &other.sorted);
        let (mut i, mut j, mut common) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    common += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        common as f64 / a.len().max(b.len()).max(1) as f64
    }
}

/// The hash of the empty path.
const ROOT: u64 = 0;

/// A path's hash one step down: a map key (`.key`) or a list element (`[]`).
fn step(path: u64, segment: &[u8]) -> u64 {
    let mut h = Fx(path);
    h.write(b"/");
    h.write(segment);
    h.finish()
}

/// The hash of a dotted field path (`metadata.name`), as [`Leaves::of`] reaches it.
fn path_hash(field: &str) -> u64 {
    field
        .split('.')
        .fold(ROOT, |path, key| step(path, key.as_bytes()))
}

/// A fast hasher (FxHash's mixing step): an item's leaves are hashed by the thousand, where
/// SipHash costs more than the merge's whole check of a CRD schema.
struct Fx(u64);

impl Fx {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for Fx {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        self.add(bytes.len() as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn items(tree: &Tree) -> Vec<Item> {
        let root = tree.docs[0].root.expect("a document");
        tree.children(root)
            .iter()
            .map(|&e| {
                let name = tree.get_str(e, "name").unwrap_or("").to_string();
                Item {
                    key: name.clone(),
                    shown: name,
                    node: e,
                }
            })
            .collect()
    }

    fn pairs(base: &str, ours: &str, theirs: &str) -> [Vec<Option<usize>>; 2] {
        let (b, o, t) = (
            parse(base).expect("parses"),
            parse(ours).expect("parses"),
            parse(theirs).expect("parses"),
        );
        let (bi, oi, ti) = (items(&b), items(&o), items(&t));
        pair_sides(&b, &bi, [(&o, &oi), (&t, &ti)], &["name"])
    }

    #[test]
    fn an_element_both_sides_renamed_pairs_with_its_new_name_not_a_new_one_under_its_old() {
        let base = "- {name: image, default: a, type: string}\n- {name: x, default: q}\n";
        let ours = "- {name: task-image, default: a, type: string}\n- {name: image, default: b, type: string}\n- {name: x, default: q}\n";
        let theirs = "- {name: task-image, default: a, type: string}\n- {name: x, default: r}\n";
        assert_eq!(
            pairs(base, ours, theirs),
            [vec![Some(0), Some(2)], vec![Some(0), Some(1)]]
        );
    }

    #[test]
    fn a_copy_beside_its_edited_original_is_a_new_element() {
        let base = "- {name: web, image: a, port: 80, env: x}\n";
        let ours = "- {name: web, image: a, port: 80}\n";
        let theirs = "- {name: web, image: a, port: 80, env: x, region: eu}\n- {name: canary, image: b, port: 80, env: x}\n";
        assert_eq!(pairs(base, ours, theirs), [vec![Some(0)], vec![Some(0)]]);
    }

    #[test]
    fn equally_alike_candidates_of_different_content_pair_with_neither() {
        let base = "- {name: a, x: 1, y: 2}\n";
        let side = "- {name: b, x: 1, y: 3}\n- {name: c, x: 4, y: 2}\n";
        assert_eq!(pairs(base, side, side), [vec![None], vec![None]]);
    }

    #[test]
    fn items_with_nothing_but_their_key_pair_by_key_or_as_the_one_left_open() {
        // b is the one base item gone and c the one new: no other item can be b renamed.
        let base = "- {name: a}\n- {name: b}\n";
        let side = "- {name: c}\n- {name: a}\n";
        assert_eq!(
            pairs(base, side, side),
            [vec![Some(1), Some(0)], vec![Some(1), Some(0)]]
        );
        // Two gone and two new: nothing says which is which.
        let base = "- {name: a}\n- {name: b}\n- {name: d}\n";
        let side = "- {name: c}\n- {name: a}\n- {name: e}\n";
        assert_eq!(
            pairs(base, side, side),
            [vec![Some(1), None, None], vec![Some(1), None, None]]
        );
    }
}
