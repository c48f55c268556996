//! One node's children paired across base, ours and theirs: a map's fields by key, a list's
//! elements by the names [`super::elements`] gave them, an element a side renamed (its key
//! changed) under base's name. The merge decides what each pair becomes; this only says which
//! child of each version is the same child, so that every rule reads one pairing.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::parse::{NodeId, Tree};

use super::renames::keyed_renames;
use crate::resource::element_key;

/// What a node's children are: they pair by name alike, but only list elements can be
/// renamed, and each kind shows in paths its own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Children {
    Fields,
    Elements,
    /// The items of a `kind: List`: resources, paired by identity.
    Resources,
}

/// Where a child stands in its version. The merge edits it there; the alignment reads only its
/// node, to measure how alike two elements are.
pub(crate) trait Place: Clone {
    fn node(&self) -> NodeId;
}

/// A child of a map or associative list, by the name that pairs it across versions.
#[derive(Clone, Debug)]
pub(crate) struct Child<'a, P> {
    /// Borrowed from the tree where it is a key's text (most children): a large map's
    /// children cost no allocation.
    pub name: Cow<'a, str>,
    /// How paths show it: `image` for a field, `name=web` for an element.
    pub shown: Cow<'a, str>,
    pub field: P,
}

/// One node's children in base, ours and theirs, paired by name: ours' and theirs' children
/// with each element the side renamed named as base's, and each version's children by name.
pub(crate) struct Aligned<'x, 'a, P: Place> {
    pub kind: Children,
    /// A keyed list's key fields (empty for other children): a rename changes them, and the
    /// likeness of its two elements leaves them out.
    pub keys: &'x [String],
    pub base: &'x [Child<'a, P>],
    pub ours: Cow<'x, [Child<'a, P>]>,
    pub theirs: Cow<'x, [Child<'a, P>]>,
    /// Base's, ours' and theirs' children by name: where the child of that name stands.
    pub index: [HashMap<&'x str, usize>; 3],
}

impl<'x, 'a, P: Place> Aligned<'x, 'a, P> {
    /// Pairs the `children` of base, ours and theirs (of `trees`). Where `renames` holds, a list
    /// element a side renamed ([`keyed_renames`], content measured without the list's `keys`)
    /// is that side's version of the base element, when nothing else can be: it goes by the
    /// base name from here on. Kyaml pairs by key alone, and the merge's second try reads
    /// renames as deletions and additions: they pass no `renames`.
    pub(crate) fn new(
        trees: [&Tree; 3],
        children: [&'x [Child<'a, P>]; 3],
        kind: Children,
        keys: &'x [String],
        renames: bool,
    ) -> Self {
        let [base, ours, theirs] = children;
        let renames = renames && kind == Children::Elements;
        let pairs = |side: &[Child<'a, P>], other: &[Child<'a, P>], tree: &Tree| match renames {
            true => renamed(trees[0], base, tree, side, other, keys),
            false => Vec::new(),
        };
        let (ours_pairs, theirs_pairs) =
            (pairs(ours, theirs, trees[1]), pairs(theirs, ours, trees[2]));
        let index = [
            by_name(base, &[], base),
            by_name(ours, &ours_pairs, base),
            by_name(theirs, &theirs_pairs, base),
        ];
        Aligned {
            kind,
            keys,
            base,
            ours: named_as_base(ours, &ours_pairs, base),
            theirs: named_as_base(theirs, &theirs_pairs, base),
            index,
        }
    }
}

/// The elements `side` renamed, as (index in `base`, index in `side`) pairs; `other` is the
/// other side's children, whose names a rename must not take.
fn renamed<P: Place>(
    base_tree: &Tree,
    base: &[Child<P>],
    tree: &Tree,
    side: &[Child<P>],
    other: &[Child<P>],
    keys: &[String],
) -> Vec<(usize, usize)> {
    fn elements<'c, P: Place>(v: &'c [Child<P>]) -> Vec<(&'c str, NodeId)> {
        v.iter()
            .map(|c| (c.name.as_ref(), c.field.node()))
            .collect()
    }
    let other: Vec<&str> = other.iter().map(|c| c.name.as_ref()).collect();
    keyed_renames(
        base_tree,
        &elements(base),
        tree,
        &elements(side),
        &other,
        keys,
    )
}

/// `side`'s children with each one it renamed (`pairs`) named like its base element.
fn named_as_base<'x, 'a, P: Place>(
    side: &'x [Child<'a, P>],
    pairs: &[(usize, usize)],
    base: &[Child<'a, P>],
) -> Cow<'x, [Child<'a, P>]> {
    if pairs.is_empty() {
        return Cow::Borrowed(side);
    }
    let mut renamed = side.to_vec();
    for &(bi, si) in pairs {
        renamed[si].name = base[bi].name.clone();
    }
    Cow::Owned(renamed)
}

/// Where each child of `side` stands by its name, a renamed one (`pairs`) by base's; of two
/// children of one name the last stands.
fn by_name<'x, P: Place>(
    side: &'x [Child<P>],
    pairs: &[(usize, usize)],
    base: &'x [Child<P>],
) -> HashMap<&'x str, usize> {
    let mut names: Vec<&'x str> = side.iter().map(|c| c.name.as_ref()).collect();
    for &(bi, si) in pairs {
        names[si] = base[bi].name.as_ref();
    }
    names.into_iter().enumerate().map(|(i, n)| (n, i)).collect()
}

/// The elements of `side`'s keyed list that rename an element of base's list, named by
/// `keys` ([`keyed_renames`], no other side to keep names from): where the other side
/// emptied the list, what it removed is read through these.
pub(crate) fn renamed_by(
    base_tree: &Tree,
    base: NodeId,
    tree: &Tree,
    side: NodeId,
    keys: &[String],
) -> Vec<NodeId> {
    fn keyed(tree: &Tree, l: NodeId, keys: &[String]) -> Vec<(String, NodeId)> {
        tree.children(l)
            .iter()
            .filter_map(|&e| Some((element_key(tree, e, keys)?.0, e)))
            .collect()
    }
    let (base_elements, side_elements) = (keyed(base_tree, base, keys), keyed(tree, side, keys));
    fn elements(v: &[(String, NodeId)]) -> Vec<(&str, NodeId)> {
        v.iter().map(|x| (x.0.as_str(), x.1)).collect()
    }
    keyed_renames(
        base_tree,
        &elements(&base_elements),
        tree,
        &elements(&side_elements),
        &[],
        keys,
    )
    .into_iter()
    .map(|(_, si)| side_elements[si].1)
    .collect()
}
