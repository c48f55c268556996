//! merge2's patch semantics (seeds 002/003, kustomize's strategic-merge patches): a field the
//! patch sets to null is removed, and `$patch` directives delete or replace what they sit on.

use crate::options::Mode;
use crate::parse::{Kind, NodeId, Tree};

use super::merger::Merger;
use super::plan::{Field, Op};

/// The `$patch` directive of a map, if it carries one (`delete`, `replace`, `merge`).
pub fn directive<'t>(tree: &'t Tree, node: NodeId) -> Option<&'t str> {
    tree.get_str(node, "$patch")
}

/// A list element that is nothing but a directive for its whole list (`- $patch: replace`).
pub fn list_directive<'t>(tree: &'t Tree, element: NodeId) -> Option<&'t str> {
    let n = tree.node(element);
    (n.kind == Kind::Map && n.child_count() == 2)
        .then(|| directive(tree, element))
        .flatten()
}

impl Merger<'_> {
    /// Where new list elements go in merge2: `Some(true)` before ours', `Some(false)` after;
    /// `None` in merge3.
    pub fn prepend(&self) -> Option<bool> {
        match self.opts.mode {
            Mode::TwoWay { prepend } => Some(prepend),
            Mode::ThreeWay => None,
        }
    }

    /// merge2's rules that come before any comparison: the patch's null removes the field,
    /// `$patch: delete` removes what it sits on, `$patch: replace` puts the patch's fields in
    /// place of ours'. Returns whether the value is settled.
    pub fn apply_patch(&mut self, o: Field, t: Field) -> bool {
        if self.prepend().is_none() {
            return false;
        }
        if self.theirs.is_null(t.node) {
            self.clear(o);
            return true;
        }
        match directive(self.theirs, t.node) {
            Some("delete") => {
                self.clear(o);
                true
            }
            Some("replace") => {
                self.replace_children(o, t);
                true
            }
            _ => false,
        }
    }

    /// Puts theirs' children (directives left out) in place of ours'.
    pub fn replace_children(&mut self, o: Field, t: Field) {
        if !self.ours.is_block_collection(o.node)
            || self.ours.node(o.node).kind != self.theirs.node(t.node).kind
        {
            self.take_theirs(o, t);
            return;
        }
        let theirs_tree = self.theirs;
        let theirs: Vec<Field> = if self.ours.node(o.node).kind == Kind::Map {
            theirs_tree
                .entries(t.node)
                .filter(|&(k, _)| theirs_tree.value(k) != "$patch")
                .map(|(k, v)| Field::entry(k, v))
                .collect()
        } else {
            theirs_tree
                .children(t.node)
                .iter()
                .filter(|&&e| list_directive(theirs_tree, e).is_none())
                .map(|&e| Field::item(e))
                .collect()
        };
        self.plan.ops.push(Op::ReplaceChildren { ours: o, theirs });
    }
}
