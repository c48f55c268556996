//! Which field of base, ours and theirs is the result's: resources by identity, map fields
//! by key, list elements by merge key, by value in a set, else by content.
//!
//! This is the part of the pass that still reads the rendered result: the merge's plan says
//! which field of ours or theirs each edit wrote, but not which field of the result every
//! line ended up in (a template's skeleton, a reindented block, a document brought with the
//! empty ones before it), so the result is parsed and paired with the versions again here.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::parse::{digest, Kind, NodeId, Tree};
use crate::resource::{self, element_key, list_kind, ListKind};
use crate::text::{dash_of, line_end};

use super::layout::{Layout, Partner, Spot, Starts};

/// A document's text.
pub(super) fn region<'a>(tree: &Tree<'a>, d: resource::DocRef) -> &'a str {
    &tree.text[tree.docs[d.doc].region.clone()]
}

/// The walk pairing the result's fields with the versions' ones.
pub(super) struct Walk<'a, 't> {
    pub(super) r: &'a Layout<'t>,
    pub(super) x: [&'a Layout<'t>; 3],
    /// The result's lines that start a field, with where the versions' fields start: for
    /// the comment lines above.
    pub(super) pairs: Vec<(usize, [Partner; 3])>,
    /// The openings of collections base does not fill, with the versions' same spots
    /// (`None` where a version has no such field).
    pub(super) openings: Vec<(Spot, [Option<Spot>; 3])>,
    /// The fields' feet where a version may have any, innermost fields first, with the
    /// versions' same spots.
    pub(super) feet: Vec<(Spot, [Option<Spot>; 3])>,
    pub(super) seen: HashSet<usize>,
    /// The same for the field starting last on a line: for the comment at its end.
    pub(super) ends: Vec<(usize, [Partner; 3])>,
    pub(super) group_kind: Option<String>,
    /// The schema path of the field being walked (`spec.containers[].ports`).
    pub(super) schema: String,
}

impl Walk<'_, '_> {
    pub(super) fn record(&mut self, line: usize, partners: [Partner; 3]) {
        if self.seen.insert(line) {
            self.pairs.push((line, partners));
        }
    }

    /// The result's line the field starts as `which` field, with where the versions' fields
    /// start as the same; `None` when the field is not that one on its line.
    fn partners(
        &self,
        which: Starts,
        node: NodeId,
        start: usize,
        xs: [Option<(NodeId, usize)>; 3],
    ) -> Option<(usize, [Partner; 3])> {
        let Partner::Line(line) = self.r.started_line(which, node, start) else {
            return None;
        };
        let partners = std::array::from_fn(|i| match xs[i] {
            None => Partner::Absent,
            Some((n, s)) => self.x[i].started_line(which, n, s),
        });
        Some((line, partners))
    }

    /// Whether nothing below a field needs its comments decided: theirs' text of it (from
    /// its key or dash to the end of its last line, comments inside included) is base's, and
    /// the result's is ours', so every comment inside stays as ours has it; or the other way
    /// round, ours' text is base's and the result's is theirs', so every comment inside is
    /// theirs' already.
    fn untouched(&self, node: NodeId, start: usize, xs: [Option<(NodeId, usize)>; 3]) -> bool {
        fn span<'a>(tree: &'a Tree<'a>, n: NodeId, s: usize) -> &'a str {
            let text = tree.text;
            &text[s.min(tree.node(n).start)..line_end(text, tree.node(n).end)]
        }
        let [Some((b, bs)), Some((o, os)), Some((t, ts))] = xs else {
            return false;
        };
        let [xb, xo, xt] = self.x;
        let (result, base) = (span(self.r.tree, node, start), span(xb.tree, b, bs));
        let (ours, theirs) = (span(xo.tree, o, os), span(xt.tree, t, ts));
        (result == ours && base == theirs) || (result == theirs && base == ours)
    }

    /// Pairs the result's field (its value `node`, starting at `start`) and everything
    /// below it with the versions' fields `xs` (value node and start).
    pub(super) fn field(&mut self, node: NodeId, start: usize, xs: [Option<(NodeId, usize)>; 3]) {
        let r = self.r;
        if let Some((line, partners)) = self.partners(Starts::Outermost, node, start, xs) {
            self.record(line, partners);
        }
        if let Some((line, partners)) = self.partners(Starts::Innermost, node, start, xs) {
            self.ends.push((line, partners));
        }
        // The field's foot, recorded after its fields' (which stand above it).
        let foot = (r.feet || self.x.iter().any(|x| x.feet)).then(|| {
            let partners: [Option<Spot>; 3] =
                std::array::from_fn(|i| xs[i].map(|(v, s)| self.x[i].foot(v, s)));
            (r.foot(node, start), partners)
        });
        self.children(node, start, xs);
        self.feet.extend(foot);
    }

    /// [`Walk::field`] for everything below the field.
    fn children(&mut self, node: NodeId, start: usize, xs: [Option<(NodeId, usize)>; 3]) {
        let r = self.r;
        let tree = r.tree;
        let n = tree.node(node);
        if n.flow || self.untouched(node, start, xs) {
            return;
        }
        let depth = self.schema.len();
        match n.kind {
            Kind::Map => {
                let maps: [Option<HashMap<&str, (NodeId, NodeId)>>; 3] = std::array::from_fn(|i| {
                    let (xn, _) = xs[i]?;
                    let t = self.x[i].tree;
                    (t.node(xn).kind == Kind::Map)
                        .then(|| t.entries(xn).map(|(k, v)| (t.value(k), (k, v))).collect())
                });
                for (k, v) in tree.entries(node) {
                    let key = tree.value(k);
                    let partners = std::array::from_fn(|i| {
                        let (xk, xv) = *maps[i].as_ref()?.get(key)?;
                        Some((xv, self.x[i].tree.node(xk).start))
                    });
                    if !self.schema.is_empty() {
                        self.schema.push('.');
                    }
                    self.schema.push_str(key);
                    self.opening(k, v, partners);
                    self.field(v, tree.node(k).start, partners);
                    self.schema.truncate(depth);
                }
            }
            Kind::Seq => {
                let lists: Vec<(&Tree, NodeId)> = std::iter::once((tree, node))
                    .chain((0..3).filter_map(|i| xs[i].map(|(xn, _)| (self.x[i].tree, xn))))
                    .collect();
                let kind = list_kind(self.group_kind.as_deref(), &self.schema, &lists);
                let pairs: [Vec<Option<NodeId>>; 3] = std::array::from_fn(|i| match xs[i] {
                    Some((xn, _)) if self.x[i].tree.node(xn).kind == Kind::Seq => {
                        pair_items(tree, node, self.x[i].tree, xn, &kind)
                    }
                    _ => vec![None; n.child_count()],
                });
                self.schema.push_str("[]");
                for (j, &item) in tree.children(node).iter().enumerate() {
                    let partners = std::array::from_fn(|i| {
                        let xi = pairs[i][j]?;
                        Some((
                            xi,
                            dash_of(self.x[i].tree.text, self.x[i].tree.node(xi).start),
                        ))
                    });
                    self.field(item, dash_of(tree.text, tree.node(item).start), partners);
                }
                self.schema.truncate(depth);
            }
            _ => {}
        }
    }

    /// Records the opening of the result's `key: value` when base does not fill the value
    /// (no such field, or null or empty), so that the comment lines below the key stay
    /// with it however many entries each side added.
    fn opening(&mut self, key: NodeId, value: NodeId, xs: [Option<(NodeId, usize)>; 3]) {
        let empty = |t: &Tree, v: NodeId| {
            (t.children(v).is_empty() && t.node(v).kind != Kind::Scalar) || t.is_null(v)
        };
        if xs[0].is_some_and(|(b, _)| !empty(self.x[0].tree, b)) {
            return;
        }
        // The spot below a key: an opening where its value is a block collection or an
        // empty null, else nothing opens there.
        fn spot(l: &Layout, key_start: usize, value: NodeId) -> Spot {
            let tree = l.tree;
            let n = tree.node(value);
            let line = l.line(key_start);
            let open = matches!(n.kind, Kind::Map | Kind::Seq) && !n.flow
                || tree.is_null(value) && tree.src(value).is_empty();
            if open {
                Spot::Opening {
                    line,
                    col: key_start - l.starts[line],
                }
            } else {
                Spot::Shut(line)
            }
        }
        let r = spot(self.r, self.r.tree.node(key).start, value);
        if !matches!(r, Spot::Opening { .. }) {
            return;
        }
        let partners = std::array::from_fn(|i| xs[i].map(|(v, s)| spot(self.x[i], s, v)));
        self.openings.push((r, partners));
    }
}

/// For each element of the result's list, the element of another version's list that is the
/// same element: by merge key, by value in a set, else by content, and edited elements by
/// their place among the unpaired ones.
fn pair_items(
    r: &Tree,
    list: NodeId,
    x: &Tree,
    xlist: NodeId,
    kind: &ListKind,
) -> Vec<Option<NodeId>> {
    let (ri, xi) = (r.children(list), x.children(xlist));
    let named = |name: &dyn Fn(&Tree, NodeId) -> Option<String>| -> Option<Vec<Option<NodeId>>> {
        let mut index: HashMap<String, Option<NodeId>> = HashMap::new();
        // The elements without a name (a template's item whose key is an action or stands
        // in an `else` branch): each pairs with an unnamed one of the same content, so the
        // named ones around them still pair by name.
        let mut unnamed: Vec<(u128, NodeId)> = Vec::new();
        for &e in xi {
            match name(x, e) {
                // A name given twice pairs nothing.
                Some(n) => {
                    index.entry(n).and_modify(|v| *v = None).or_insert(Some(e));
                }
                None => unnamed.push((digest(x, e), e)),
            }
        }
        if index.is_empty() {
            return None;
        }
        let pairs = ri
            .iter()
            .map(|&e| match name(r, e) {
                Some(n) => index.get(&n).copied().flatten(),
                None => {
                    let d = digest(r, e);
                    let at = unnamed.iter().position(|&(u, _)| u == d)?;
                    Some(unnamed.remove(at).1)
                }
            })
            .collect();
        Some(pairs)
    };
    let by_name = match kind {
        ListKind::Keyed(keys) => named(&|t: &Tree, e| element_key(t, e, keys).map(|k| k.0)),
        ListKind::Set => {
            named(&|t: &Tree, e| (t.node(e).kind == Kind::Scalar).then(|| t.value(e).to_string()))
        }
        ListKind::Plain => None,
    };
    if let Some(pairs) = by_name {
        return pairs;
    }
    let rd: Vec<u128> = ri.iter().map(|&e| digest(r, e)).collect();
    let xd: Vec<u128> = xi.iter().map(|&e| digest(x, e)).collect();
    let mut out = vec![None; ri.len()];
    let (mut xo, mut ro) = (0, 0);
    let unpaired = |xs: Range<usize>, rs: Range<usize>, out: &mut Vec<Option<NodeId>>| {
        if xs.len() == rs.len() {
            for (a, b) in xs.zip(rs) {
                out[b] = Some(xi[a]);
            }
        }
    };
    for op in capture_diff_slices(Algorithm::Myers, &xd, &rd) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            unpaired(xo..old_index, ro..new_index, &mut out);
            for k in 0..len {
                out[new_index + k] = Some(xi[old_index + k]);
            }
            xo = old_index + len;
            ro = new_index + len;
        }
    }
    unpaired(xo..xi.len(), ro..ri.len(), &mut out);
    out
}
