//! A list's elements named alike across the versions, so that the same element has the same
//! name in each: by the list's merge keys, by value in a set, a `kind: List`'s items by their
//! resource identity.

use std::collections::HashSet;

use crate::parse::{Kind, NodeId, Tree};
use crate::resource::{element_key, kyaml_element_key};

/// An element and the name that pairs it across versions.
#[derive(Clone, Debug)]
pub(crate) struct Named {
    pub name: String,
    /// How paths show it: `name=web`.
    pub shown: String,
    pub node: NodeId,
}

/// The items of a `kind: List` in base, ours and theirs (`lists`; base's `None` where it held
/// no list) named by identity; `None` if an item of one has none or two share one.
pub(crate) fn resources(trees: [&Tree; 3], lists: [Option<NodeId>; 3]) -> Option<[Vec<Named>; 3]> {
    let [base, ours, theirs] = [0, 1, 2].map(|i| match lists[i] {
        Some(list) => items(trees[i], list),
        None => Some(Vec::new()),
    });
    Some([base?, ours?, theirs?])
}

/// The items of one version's `kind: List`, named by identity.
fn items(tree: &Tree, list: NodeId) -> Option<Vec<Named>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &e in tree.children(list) {
        let id = crate::resource::Identity::of(tree, e)?;
        let name = format!(
            "{}\u{0}{}\u{0}{}\u{0}{}",
            id.group, id.kind, id.namespace, id.name
        );
        if !seen.insert(name.clone()) {
            return None;
        }
        out.push(Named {
            name,
            shown: id.to_string(),
            node: e,
        });
    }
    Some(out)
}

/// Opens the name of an element whose key has no value: its content's digest follows.
const UNNAMED: char = '\u{1}';

/// How a list's elements are named: by its merge keys (`keys`), or by value for a set
/// (`None`). merge2 sets `patch` (and leaves its directive elements out of the items). Under
/// kyaml's rules (`kyaml`) an element missing its key is named by `""`; with `first_stands`,
/// of two elements sharing a key the first stands for both, as kyaml's lookups read base's
/// and theirs' lists.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Naming<'k> {
    pub keys: Option<&'k [String]>,
    pub patch: bool,
    pub kyaml: bool,
    pub first_stands: bool,
}

/// A list's elements (`items`) named as `naming` says. `None` when an element cannot be named
/// or two share a name: such a list is merged as plain.
fn elements(tree: &Tree, items: &[NodeId], naming: Naming) -> Option<Vec<Named>> {
    let Naming {
        keys,
        patch,
        kyaml,
        first_stands,
    } = naming;
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &e in items {
        let (name, shown) = match keys {
            Some(keys) => match element_key(tree, e, keys) {
                Some(key) => key,
                // Its key is there with no value: in a template's skeleton an action renders
                // it (`- name: {{ .name }}` in a `range`). Named by its whole content, it pairs
                // only with itself, unchanged, instead of stopping the pairing of the rest.
                // Not under kyaml's rules: kyaml reads a null key as `""` like a missing one,
                // so that theirs' second element of no key stands for nothing (added as a
                // second unnamed element, the check's kyaml reading rejected the merge).
                None if keys
                    .first()
                    .is_some_and(|k| tree.get(e, k).is_some_and(|v| tree.is_null(v)))
                    && !patch
                    && !kyaml =>
                {
                    let shown = format!("{}=?", keys[0]);
                    (
                        format!("{UNNAMED}{:x}", crate::parse::digest(tree, e)),
                        shown,
                    )
                }
                // kyaml's rules read a missing key as `""`: one element, not a plain list.
                None if kyaml => kyaml_element_key(tree, e, keys)?,
                None => return None,
            },
            None => {
                if tree.node(e).kind != Kind::Scalar {
                    return None;
                }
                let v = tree.value(e).to_string();
                (v.clone(), v)
            }
        };
        if !seen.insert(name.clone()) {
            // kyaml's lookups take the first element of a key, so a second one stands for
            // nothing (the notes' §2.5: duplicate keys collapse).
            if first_stands && keys.is_some() {
                continue;
            }
            return None;
        }
        out.push(Named {
            name,
            shown,
            node: e,
        });
    }
    Some(out)
}

/// A list's elements in base, ours and theirs (`items`; base's empty where it held no list)
/// named alike, as `naming` says; `None` where a version's cannot be named
/// ([`elements`]). An element without a key pairs only with itself: edited by both sides, it
/// would be two elements, each side's copy. Where both sides changed such elements, the list
/// is not named either: it merges element by element, where that is a conflict.
pub(crate) fn versions(
    trees: [&Tree; 3],
    items: [&[NodeId]; 3],
    naming: Naming,
) -> Option<[Vec<Named>; 3]> {
    let [base, ours, theirs] = [0, 1, 2].map(|i| elements(trees[i], items[i], naming));
    let named = [base?, ours?, theirs?];
    if naming.keys.is_some() {
        let unnamed = |x: &[Named]| -> HashSet<String> {
            x.iter()
                .filter(|c| c.name.starts_with(UNNAMED))
                .map(|c| c.name.clone())
                .collect()
        };
        let before = unnamed(&named[0]);
        if unnamed(&named[1]) != before && unnamed(&named[2]) != before {
            return None;
        }
    }
    Some(named)
}
