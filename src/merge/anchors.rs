//! Anchors, which are text, not data: the merge compares values as data and keeps ours' text
//! where theirs' is the same data, so an anchor theirs added there is written onto ours'
//! value ([`Merger::carry_anchors`]). An anchor is a name within one document and an alias
//! names the nearest anchor of its name before it: where ours and theirs each put an anchor
//! of one name at a different place, text taken from one side would name the other side's
//! anchor in the result. The driver renames theirs' apart first (`driver::anchors`); where
//! that cannot be done ([`clashing_anchor`]: a side defines the name again where the other
//! has none), the merge cannot keep both, and the person decides over the document.

use std::collections::{BTreeMap, BTreeSet};

use crate::parse::{same_data, Kind, NodeId, Tree};

use super::merger::Merger;
use super::plan::{Field, Op, Slot};

/// Where a document's anchors stand, by name: each place as [`place`] reads it.
type Places = BTreeMap<String, BTreeSet<Vec<String>>>;

/// The first anchor name that ours' and theirs' documents both define, at different places.
pub(super) fn clashing_anchor(ours: &Tree, o: NodeId, theirs: &Tree, t: NodeId) -> Option<String> {
    // An anchor is written `&name`: most documents have none to look for.
    let has_anchor =
        |tree: &Tree, n: NodeId| memchr::memchr(b'&', tree.src(n).as_bytes()).is_some();
    if !has_anchor(ours, o) || !has_anchor(theirs, t) {
        return None;
    }
    let (in_ours, in_theirs) = (places(ours, o), places(theirs, t));
    in_ours
        .iter()
        .find(|(name, at)| in_theirs.get(*name).is_some_and(|other| other != *at))
        .map(|(name, _)| name.clone())
}

/// The anchors of the document under `root`, by name and place. The walk carries no paths
/// (a large document has many nodes and few anchors): an anchor's place is read up its
/// parents when one is found.
fn places(tree: &Tree, root: NodeId) -> Places {
    let mut out = Places::new();
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        let node = tree.node(n);
        if let Some(name) = node.anchor() {
            out.entry(name.to_string())
                .or_default()
                .insert(place(tree, root, n));
        }
        if matches!(node.kind, Kind::Map | Kind::Seq) {
            stack.extend(tree.children(n).iter().copied());
        }
    }
    out
}

/// The path from `root` to `n`: a map value stands at its key's name, a list element at its
/// `name` where it is a map with a scalar one (CI steps, containers, periodic jobs), else at
/// its index. An element, not only "an element": `&base` on `periodics[10].spec` and on
/// `periodics[11].spec` are two places, and an alias of one must not come to name the other.
/// By name where there is one: a side that moved a step first and anchored it, and a side
/// that anchored the step that stood first, anchor two places at one index (adversary
/// templates-ours-1141-1886), and one step anchored by both sides after one side inserted a
/// step above it is one place. The driver renames apart by this reading, and the clash rule
/// decides by it where that merge fails: read without the elements, ours' `&base` on one
/// step's `with` and theirs' on another's were one place, and theirs' alias came to name ours'
/// anchor in a clean result (adversary templates-mark-1151-632).
pub(crate) fn place(tree: &Tree, root: NodeId, mut n: NodeId) -> Vec<String> {
    let mut path = Vec::new();
    while n != root {
        let Some(parent) = tree.node(n).parent() else {
            break;
        };
        let entries = tree.children(parent);
        let i = entries.iter().position(|&c| c == n).unwrap_or(0);
        match tree.node(parent).kind {
            Kind::Map => path.push(tree.value(entries[i - i % 2]).to_string()),
            _ => {
                let name = (tree.node(n).kind == Kind::Map)
                    .then(|| tree.get(n, "name"))
                    .flatten()
                    .filter(|&v| tree.node(v).kind == Kind::Scalar);
                path.push(match name {
                    Some(v) => format!("[name={}]", tree.value(v)),
                    None => format!("[{i}]"),
                })
            }
        }
        n = parent;
    }
    path.reverse();
    path
}

impl Merger<'_> {
    /// Theirs' anchors that ours' value `o` lacks, written onto it where ours' value stays
    /// (theirs' `t` is the same place): the anchor is part of theirs' change, and theirs'
    /// aliases of it, which the merge brings in elsewhere, must still name it. On `t` itself,
    /// and with `deep` on the values below it too, where the merge walks no further (their data
    /// is settled; an anchor is text, not data, so it would be lost there). An anchor of a
    /// name ours' document defines already is left out (both sides' anchors of one name are
    /// [`clashing_anchor`]'s), and so are anchors on list items (only a map value's anchor is
    /// written after its key's `:`) and where ours' value is of another kind or null (theirs'
    /// aliases of a map, `<<: *name` above all, would name a scalar).
    ///
    /// Returns whether an anchor was written below `o`: on a key line inside it, which a
    /// reorder of its entries would move.
    pub(super) fn carry_anchors(&mut self, o: Field, t: Field, deep: bool) -> bool {
        let (ours, theirs) = (self.ours, self.theirs);
        if memchr::memchr(b'&', theirs.src(t.node).as_bytes()).is_none() {
            return false;
        }
        let top = o.node;
        let mut below = false;
        let defined = places(ours, document_root(ours, o.node));
        let mut todo = vec![(o, t.node)];
        while let Some((o, t)) = todo.pop() {
            if self.deleted.contains(&o.node) {
                continue; // cleared by kyaml's rules
            }
            let (on, tn) = (ours.node(o.node), theirs.node(t));
            if let (Some(name), None, Slot::Entry(_)) = (tn.anchor(), on.anchor(), o.slot) {
                if on.kind == tn.kind && !ours.is_null(o.node) && !defined.contains_key(name) {
                    self.plan.ops.push(Op::AddAnchor { ours: o, theirs: t });
                    below |= o.node != top;
                }
            }
            if !deep {
                break;
            }
            match (on.kind, tn.kind) {
                (Kind::Map, Kind::Map) => todo.extend(theirs.entries(t).filter_map(|(k, v)| {
                    let (ok, ov) = ours
                        .entries(o.node)
                        .find(|&(ok, _)| ours.value(ok) == theirs.value(k))?;
                    Some((Field::entry(ok, ov), v))
                })),
                // Elements pair by position only where the lists are the same data.
                (Kind::Seq, Kind::Seq) if same_data(ours, o.node, theirs, t) => todo.extend(
                    ours.children(o.node)
                        .iter()
                        .zip(theirs.children(t))
                        .map(|(&oe, &te)| (Field::item(oe), te)),
                ),
                _ => {}
            }
        }
        below
    }
}

/// The root of the document holding `n`.
fn document_root(tree: &Tree, mut n: NodeId) -> NodeId {
    while let Some(parent) = tree.node(n).parent() {
        n = parent;
    }
    n
}
