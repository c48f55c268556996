//! The order of a map's keys: not data, but a change a side made to its text. Where both sides
//! changed a map and the merge leaves ours' entries as they are (both made the same change),
//! the one difference left between them may be the order theirs rewrote the keys in — as when
//! both sides convert an Ingress path to `networking.k8s.io/v1` and theirs also puts `path`
//! first. Ours kept base's order and theirs did not: theirs' order is the change, taken as git
//! takes a change one side made.
//!
//! kyaml keeps dest's order, so the kyaml policies never reorder.

use crate::parse::{Kind, NodeId, Tree};
use crate::text::{line_end, line_start};

use super::merger::Merger;
use super::plan::{Field, Op};

impl Merger<'_> {
    /// [`Self::follow_theirs_order`] for a value ours and theirs hold as the same data, and
    /// for every map inside it (a map moved as a whole keeps ours' order inside: the edits
    /// would overlap). Lists pair their items by place, base's only where its list is as long.
    pub fn follow_theirs_order_within(&mut self, b: NodeId, o: Field, t: NodeId) {
        let (base, ours, theirs) = (self.base, self.ours, self.theirs);
        let kinds = [
            base.node(b).kind,
            ours.node(o.node).kind,
            theirs.node(t).kind,
        ];
        if kinds[1] != kinds[2] || kinds[0] != kinds[1] || self.follow_theirs_order(b, o, t) {
            return;
        }
        match kinds[1] {
            Kind::Map => {
                for (k, v) in ours.entries(o.node) {
                    let name = ours.value(k);
                    if let (Some(bv), Some(tv)) = (base.get(b, name), theirs.get(t, name)) {
                        self.follow_theirs_order_within(bv, Field::entry(k, v), tv);
                    }
                }
            }
            Kind::Seq => {
                let items = |tree: &Tree, n: NodeId| tree.children(n).to_vec();
                let (bi, oi, ti) = (items(base, b), items(ours, o.node), items(theirs, t));
                if bi.len() == oi.len() && oi.len() == ti.len() && !ours.node(o.node).flow {
                    for ((bn, on), tn) in bi.into_iter().zip(oi).zip(ti) {
                        self.follow_theirs_order_within(bn, Field::item(on), tn);
                    }
                }
            }
            _ => {}
        }
    }

    /// Plans ours' map `o` rewritten in theirs' key order when ours and theirs hold the same
    /// keys, ours kept base's order of them and theirs did not; whether it did. Called where
    /// merging the map planned no edit inside it, or where ours and theirs hold it as the
    /// same data.
    pub fn follow_theirs_order(&mut self, b: NodeId, o: Field, t: NodeId) -> bool {
        let maps = [(self.base, b), (self.ours, o.node), (self.theirs, t)]
            .iter()
            .all(|(tree, n)| tree.node(*n).kind == Kind::Map);
        if self.opts.policy.kyaml() || !maps || !self.ours.is_block_collection(o.node) {
            return false;
        }
        let names = |tree: &Tree, map: NodeId| -> Vec<String> {
            tree.entries(map)
                .map(|(k, _)| tree.value(k).to_string())
                .collect()
        };
        let (base, ours, theirs) = (
            names(self.base, b),
            names(self.ours, o.node),
            names(self.theirs, t),
        );
        if ours == theirs || !same_keys(&ours, &theirs) {
            return false;
        }
        if !keeps_order(&base, &ours) || keeps_order(&base, &theirs) {
            return false;
        }
        if !moves_cleanly(self.ours, o.node) {
            return false;
        }
        let keys = theirs
            .iter()
            .filter_map(|name| {
                self.ours
                    .entries(o.node)
                    .find(|&(k, _)| self.ours.value(k) == name)
                    .map(|(k, _)| k)
            })
            .collect();
        self.plan.ops.push(Op::Reorder { ours: o, keys });
        true
    }
}

/// Both lists hold the same names, each once.
fn same_keys(a: &[String], b: &[String]) -> bool {
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    let (a, b) = (sorted(a), sorted(b));
    a == b && a.windows(2).all(|w| w[0] != w[1])
}

/// The keys `names` shares with base stand in base's order.
fn keeps_order(base: &[String], names: &[String]) -> bool {
    let shared = |of: &[String], other: &[String]| -> Vec<String> {
        of.iter().filter(|n| other.contains(n)).cloned().collect()
    };
    shared(names, base) == shared(base, names)
}

/// Ours' entries can move as blocks of lines: nothing but a line break and indentation stands
/// between them, and no comment line inside, whose place among the moved lines would be a
/// guess (the comment merge that follows rendering places comments by their neighbours).
fn moves_cleanly(tree: &Tree, map: NodeId) -> bool {
    let entries: Vec<(NodeId, NodeId)> = tree.entries(map).collect();
    let end_of =
        |(k, v): (NodeId, NodeId)| line_end(tree.text, tree.node(v).end.max(tree.node(k).end));
    let between_ok = entries.windows(2).all(|w| {
        let gap = &tree.text[end_of(w[0])..tree.node(w[1].0).start];
        gap.matches('\n').count() == 1 && gap.trim().is_empty()
    });
    let (Some(&first), Some(&last)) = (entries.first(), entries.last()) else {
        return false;
    };
    let start = line_start(tree.text, tree.node(first.0).start);
    between_ok
        && tree.text[start..end_of(last)]
            .lines()
            .all(|l| !l.trim_start().starts_with('#'))
}
