//! The list rules: associative lists pair their elements by merge key (the Kubernetes schema,
//! then the seeds' key rule); other lists merge element by element, diff3 style, so edits at
//! different places both survive.

use std::collections::{HashMap, HashSet};

use crate::align::{self, Children};
use crate::parse::{same_data, Kind, NodeId, Tree};
use crate::resource::{list_kind, ListKind};

use super::fields::Child;
use super::merger::Merger;
use super::patch::list_directive;
use super::plan::{Field, Op, Slot};
use super::policy::Resolution;
use crate::resource::Path;
use crate::text::{diff3, Chunk};

impl Merger<'_> {
    /// How the elements of the list at `path` are identified, given its versions.
    pub fn list_kind(&self, path: &Path, lists: &[(&Tree, NodeId)]) -> ListKind {
        list_kind(self.group_kind.as_deref(), &path.schema, lists)
    }

    /// Merges a block sequence both sides have.
    pub fn merge_list(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) {
        if self.prepend().is_some() {
            // merge2: an element that is only `$patch: X` directs the whole list.
            let directive = self
                .theirs
                .children(t.node)
                .iter()
                .find_map(|&e| list_directive(self.theirs, e));
            match directive {
                Some("delete") => return self.clear(o),
                Some("replace") => return self.replace_children(o, t),
                _ => {}
            }
        }
        let lists: Vec<(&Tree, NodeId)> = [
            (self.base, b.map(|b| b.node)),
            (self.ours, Some(o.node)),
            (self.theirs, Some(t.node)),
        ]
        .into_iter()
        .filter_map(|(tree, n)| n.map(|n| (tree, n)))
        .collect();
        let kind = self.list_kind(path, &lists);
        let patch = self.prepend().is_some();
        let kyaml = self.opts.policy.kyaml();
        // merge2's directive elements (`- $patch: merge`) are instructions, not elements.
        let items = |tree: &Tree, list: NodeId| -> Vec<NodeId> {
            let all = tree.children(list).iter().copied();
            all.filter(|&e| !(patch && list_directive(tree, e).is_some()))
                .collect()
        };
        // Each version's elements named alike (base's where it held a list).
        let named = |keys: Option<&[String]>, first_stands: bool| -> Option<[Vec<Child>; 3]> {
            let base = match b {
                Some(b) if self.base.node(b.node).kind == Kind::Seq => items(self.base, b.node),
                _ => Vec::new(),
            };
            let (ours, theirs) = (items(self.ours, o.node), items(self.theirs, t.node));
            let naming = align::Naming {
                keys,
                patch,
                kyaml,
                first_stands,
            };
            let trees = [self.base, self.ours, self.theirs];
            align::versions(trees, [&base, &ours, &theirs], naming).map(|v| v.map(children))
        };
        if self.group_kind.as_deref() == Some("List") && path.schema == "items" {
            let base = b
                .map(|b| b.node)
                .filter(|&n| self.base.node(n).kind == Kind::Seq);
            let trees = [self.base, self.ours, self.theirs];
            if let Some(named) = align::resources(trees, [base, Some(o.node), Some(t.node)]) {
                let [base, ours, theirs] = named.map(children);
                let aligned = self.align([&base, &ours, &theirs], Children::Resources, &[]);
                return self.merge_children(path, o, &aligned);
            }
        }
        let paired = match &kind {
            ListKind::Keyed(keys) => named(Some(keys), kyaml),
            ListKind::Set => named(None, false),
            ListKind::Plain => None,
        };
        match paired {
            // kyaml would read theirs' repeated key as one element, but where ours left the
            // list as it was, theirs' text is the change, its repeated element included; the
            // nulls in it still clear their fields, as kyaml's walk clears them (adversary
            // packages-theirs-1137-595: theirs' `ports: ~` was kept).
            Some([_, _, ref theirs])
                if kyaml
                    && !patch
                    && theirs.len() < self.theirs.children(t.node).len()
                    && b.is_some_and(|b| same_data(self.base, b.node, self.ours, o.node)) =>
            {
                self.take_theirs_clearing_nulls(o, t)
            }
            Some([base, ours, theirs]) => {
                // The order of a keyed list can matter (init containers and CI steps run in
                // order): a reorder only theirs made is theirs' change like any other. In a
                // set order means nothing to the data, but it is still the text theirs wrote
                // where ours left the list as it was.
                let ours_unchanged =
                    b.is_some_and(|b| same_data(self.base, b.node, self.ours, o.node));
                // kyaml takes a list without keys whole where theirs changed it (a set is one
                // to kyaml): a reorder only theirs made is theirs' text under theirs too
                // (adversary manifests-theirs-1145-560: theirs reordered a kustomization's
                // resources, the merge kept ours' order and its check asked for a bug report).
                if kind == ListKind::Set
                    && self.opts.policy.kyaml()
                    && ours_unchanged
                    && reordered(&base, &theirs, &[&base[..], &ours, &theirs])
                {
                    return self.take_theirs(o, t);
                }
                let keys = match &kind {
                    ListKind::Keyed(keys) => &keys[..],
                    _ => &[],
                };
                let aligned = self.align([&base, &ours, &theirs], Children::Elements, keys);
                if !self.opts.policy.kyaml() {
                    // Read through the renames the merge pairs: an element a side renamed
                    // and moved is a move of that element (ours' edit of it and theirs'
                    // reorder, merged by name, left it where ours had it). A set's values
                    // are its names: a changed one is no rename here.
                    let (ours, theirs) = match &kind {
                        ListKind::Keyed(_) => (&aligned.ours[..], &aligned.theirs[..]),
                        _ => (&ours[..], &theirs[..]),
                    };
                    let all = [&base[..], ours, theirs];
                    let theirs_moved = reordered(&base, theirs, &all);
                    let ours_moved = reordered(&base, ours, &all);
                    if theirs_moved && ours_unchanged {
                        return self.take_theirs(o, t);
                    }
                    let mark = self.opts.policy.resolve() == Resolution::Mark;
                    if kind != ListKind::Set
                        && mark
                        && theirs_moved
                        && (!ours_moved || reordered(ours, theirs, &all))
                    {
                        return self.both_changed(path, b, o, t);
                    }
                }
                let (ops, conflicts, deleted) = (
                    self.plan.ops.len(),
                    self.plan.conflicts.len(),
                    self.deleted.clone(),
                );
                self.merge_children(path, o, &aligned);
                if kyaml {
                    self.delete_repeats(o, keys, ops);
                }
                if self.opts.policy.resolve() == Resolution::Mark
                    && self.side_left_empty(&self.plan.ops[ops..], o, t)
                {
                    // A side of the list's conflicts would hold no element at all: written
                    // so, the key holds nothing (null), not that side's empty list. The whole
                    // list is the conflict instead, each side's list as it wrote it.
                    self.plan.ops.truncate(ops);
                    self.plan.conflicts.truncate(conflicts);
                    self.deleted = deleted;
                    self.both_changed(path, b, o, t);
                }
            }
            None if self.opts.policy.kyaml() => self.take_theirs(o, t),
            None => self.merge_plain_list(path, b, o, t),
        }
    }
}

impl Merger<'_> {
    /// kyaml's lookups read the first of ours' elements of a key and never the later ones,
    /// which stay as ours wrote them; but where the merge deletes the first (theirs deleted
    /// the key), the later ones go too, so that the key does not live on in a copy.
    fn delete_repeats(&mut self, o: Field, keys: &[String], ops: usize) {
        if keys.is_empty() {
            return;
        }
        let deleted: HashSet<NodeId> = self.plan.ops[ops..]
            .iter()
            .filter_map(|op| match op {
                Op::Delete { ours } if ours.slot == Slot::Item => Some(ours.node),
                _ => None,
            })
            .collect();
        let mut first: HashMap<String, NodeId> = HashMap::new();
        let mut extra = Vec::new();
        for &e in self.ours.children(o.node) {
            let Some((key, _)) = crate::resource::kyaml_element_key(self.ours, e, keys) else {
                continue;
            };
            match first.get(&key) {
                Some(f) if deleted.contains(f) && !deleted.contains(&e) => {
                    extra.push(Op::Delete {
                        ours: Field::item(e),
                    });
                }
                Some(_) => {}
                None => {
                    first.insert(key, e);
                }
            }
        }
        self.plan.ops.extend(extra);
    }

    /// Whether the edits `ops` planned for ours' list `o` (theirs' `t`) mark a conflict among
    /// its elements and leave one side of it with no element: ours' elements that stay (not
    /// deleted) and theirs' inserted ones make ours' side; theirs' side swaps each conflict's
    /// ours' elements for its theirs' ones.
    fn side_left_empty(&self, ops: &[Op], o: Field, t: Field) -> bool {
        let in_list = |tree: &Tree, list: NodeId, f: &Field| {
            f.slot == Slot::Item && tree.node(f.node).parent() == Some(list)
        };
        let mut ours_side = self.ours.children(o.node).len() as isize;
        let mut theirs_side = ours_side;
        let mut conflict = false;
        for op in ops {
            match op {
                Op::Delete { ours } if in_list(self.ours, o.node, ours) => {
                    ours_side -= 1;
                    theirs_side -= 1;
                }
                Op::Insert { theirs, .. } if in_list(self.theirs, t.node, theirs) => {
                    ours_side += 1;
                    theirs_side += 1;
                }
                Op::Conflict { ours, theirs, .. } => {
                    let o_here = ours
                        .iter()
                        .filter(|f| in_list(self.ours, o.node, f))
                        .count();
                    let t_here = theirs
                        .iter()
                        .filter(|f| in_list(self.theirs, t.node, f))
                        .count();
                    if o_here + t_here > 0 {
                        conflict = true;
                        theirs_side += t_here as isize - o_here as isize;
                    }
                }
                Op::Empty { ours, .. } if ours.node == o.node => return false,
                _ => {}
            }
        }
        conflict && (ours_side <= 0 || theirs_side <= 0)
    }
}

/// The merge's children of a list's elements the alignment named: each an item.
fn children(named: Vec<align::Named>) -> Vec<Child<'static>> {
    let child = |n: align::Named| Child {
        name: n.name.into(),
        shown: n.shown.into(),
        field: Field::item(n.node),
    };
    named.into_iter().map(child).collect()
}

/// A list's elements as data, for the element-wise 3-way merge.
fn element_data(tree: &Tree, list: NodeId) -> Vec<String> {
    tree.children(list)
        .iter()
        .map(|&c| crate::parse::canonical(tree, c))
        .collect()
}

impl Merger<'_> {
    /// A flow list (`args: [a, b]`) both sides changed: the same element-wise 3-way merge as
    /// a block list, written back inside ours' brackets. Returns false (planning nothing) when
    /// the edits overlap, so the caller declares the conflict.
    pub fn merge_flow_list(&mut self, b: Option<Field>, o: Field, t: Field) -> bool {
        let Some(b) = b.filter(|b| self.base.node(b.node).kind == Kind::Seq) else {
            return false;
        };
        let (base, ours, theirs) = (self.base, self.ours, self.theirs);
        let chunks = diff3(
            &element_data(base, b.node),
            &element_data(ours, o.node),
            &element_data(theirs, t.node),
        );
        if chunks.iter().any(|c| matches!(c, Chunk::Conflict { .. })) {
            return false;
        }
        self.plan.ops.push(Op::FlowList {
            ours: o,
            theirs: t,
            chunks,
        });
        true
    }
}

/// Whether the elements all three versions hold stand in another order in `x` than in `y`
/// (an element a side deleted or added does not make a reorder).
fn reordered(x: &[Child], y: &[Child], all: &[&[Child]; 3]) -> bool {
    let in_all = |name: &str| all.iter().all(|v| v.iter().any(|c| c.name == name));
    let order = |v: &[Child]| {
        v.iter()
            .map(|c| c.name.as_ref())
            .filter(|n| in_all(n))
            .map(str::to_string)
            .collect::<Vec<String>>()
    };
    order(x) != order(y)
}
