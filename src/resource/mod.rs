//! Documents as resources: their identities, and which document of base, ours and theirs is
//! the same resource.

mod identity;
mod list_keys;
mod path;
mod renames;

pub use identity::Identity;
pub(crate) use identity::{field, Fields};

pub(crate) use list_keys::{element_key, group_kind_of, kyaml_element_key, list_kind, ListKind};
pub(crate) use path::Path;
pub(crate) use renames::{close_identities, pair_renames, Lost, Placed};

use std::collections::HashMap;

use crate::fallback::Reason;
use crate::parse::{Kind, NodeId, Tree};
use crate::sides::{Side, BASE, OURS, THEIRS};

/// A document of one version: its index in the tree's docs and its root node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocRef {
    pub doc: usize,
    pub root: NodeId,
}

/// One resource across the three versions.
#[derive(Clone, Debug)]
pub struct Group {
    pub base: Option<DocRef>,
    pub ours: Option<DocRef>,
    pub theirs: Option<DocRef>,
    /// How messages name it: its identity, or `document N`.
    pub label: String,
    /// The identity, for the schema lookup.
    pub identity: Option<Identity>,
}

/// The non-empty documents of a file with their identities.
pub(crate) fn documents(tree: &Tree) -> Vec<(DocRef, Option<Identity>)> {
    tree.docs
        .iter()
        .enumerate()
        .filter_map(|(i, d)| d.root.map(|root| (DocRef { doc: i, root }, root)))
        .filter(|&(_, root)| !tree.is_null(root))
        .map(|(r, root)| (r, Identity::of(tree, root)))
        .collect()
}

/// Whether two texts' trees hold the same documents, in order, as data: what a pass that
/// edits only comment and blank lines must leave.
pub(crate) fn same_documents(a: &Tree, b: &Tree) -> bool {
    let (x, y) = (documents(a), documents(b));
    x.len() == y.len()
        && x.iter()
            .zip(&y)
            .all(|((m, _), (n, _))| crate::parse::same_data(a, m.root, b, n.root))
}

/// Pairs the documents of base, ours and theirs into resources.
///
/// One document per version (the common file) is one resource whatever its identity, so a
/// rename is merged like any other field. Otherwise documents pair by identity, unidentified
/// ones by position among the unidentified; a rename on one side (one group missing that side,
/// one unmatched document of that side) is paired. Duplicate identities cannot be paired
/// safely: an error, so the driver falls back to the line merge.
///
/// `patch` is merge2: theirs is a patch onto ours, and there is no base.
pub fn match_documents(
    base: &Tree,
    ours: &Tree,
    theirs: &Tree,
    patch: bool,
) -> Result<Vec<Group>, Reason> {
    documents_matched(base, ours, theirs, patch, true)
}

/// [`match_documents`] by identity alone: no rename is paired (a document whose identity
/// changed is one deleted and one added). For where the rename rules' pairing made a merge
/// whose conflicts the check rejects: read as a deletion and an addition, each side of a
/// delete/modify conflict holds what that side has.
pub fn match_documents_by_identity(
    base: &Tree,
    ours: &Tree,
    theirs: &Tree,
) -> Result<Vec<Group>, Reason> {
    documents_matched(base, ours, theirs, false, false)
}

fn documents_matched(
    base: &Tree,
    ours: &Tree,
    theirs: &Tree,
    patch: bool,
    renames: bool,
) -> Result<Vec<Group>, Reason> {
    let versions = [documents(base), documents(ours), documents(theirs)];
    // One document in each version (merge2: in ours and theirs, with no base): the same
    // resource, whatever the identities.
    let bases = if patch { 0 } else { 1 };
    if renames
        && versions[OURS].len() == 1
        && versions[THEIRS].len() == 1
        && versions[BASE].len() == bases
    {
        let identity = versions[OURS][0]
            .1
            .clone()
            .or_else(|| versions[THEIRS][0].1.clone());
        return Ok(vec![Group {
            base: versions[BASE].first().map(|d| d.0),
            ours: Some(versions[OURS][0].0),
            theirs: Some(versions[THEIRS][0].0),
            label: identity
                .as_ref()
                .map_or("document 1".into(), |i| i.to_string()),
            identity,
        }]);
    }
    #[derive(PartialEq, Eq, Hash, Clone)]
    enum Key {
        Id(Identity),
        Plain(usize),
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    // Ours first, then theirs, then base: the output follows ours' order, new ones theirs'.
    for side in [OURS, THEIRS, BASE] {
        let mut plain = 0;
        let mut seen = std::collections::HashSet::new();
        for (doc, identity) in &versions[side] {
            let key = match identity {
                Some(id) => Key::Id(id.clone()),
                None => {
                    plain += 1;
                    Key::Plain(plain)
                }
            };
            if !seen.insert(key.clone()) {
                let name = ["base", "ours", "theirs"][side];
                return Err(Reason::Unsupported(format!(
                    "{name} has two documents for {}",
                    identity
                        .as_ref()
                        .map_or("the same position".into(), |i| i.to_string())
                )));
            }
            let g = *index.entry(key).or_insert_with(|| {
                groups.push(Group {
                    base: None,
                    ours: None,
                    theirs: None,
                    label: identity
                        .as_ref()
                        .map_or(format!("document {plain}"), |i| i.to_string()),
                    identity: identity.clone(),
                });
                groups.len() - 1
            });
            *groups[g].slot_mut(side) = Some(*doc);
        }
    }
    if !renames {
        return Ok(groups);
    }
    let trees = [base, ours, theirs];
    pair_renames(&mut groups, Lost::Kept, |b, side, d| {
        similar(trees[BASE], b.root, trees[side.index()], d.root)
    });
    pair_by_position(&mut groups, &versions, trees);
    Ok(groups)
}

/// Renames that elimination cannot settle (several, or on both sides): a document that
/// vanished from one side pairs with the one new document of that side holding its content
/// unchanged, else with the new document standing at the same position among that side's
/// documents, when the two identities are close ([`close_identities`]) and the content alike.
fn pair_by_position(
    groups: &mut Vec<Group>,
    versions: &[Vec<(DocRef, Option<Identity>)>; 3],
    trees: [&Tree; 3],
) {
    let position = |side: usize, doc: DocRef| versions[side].iter().position(|(d, _)| *d == doc);
    let identity = |side: usize, doc: DocRef| {
        versions[side]
            .iter()
            .find(|(d, _)| *d == doc)
            .and_then(|(_, id)| id.clone())
    };
    for side in [Side::Ours, Side::Theirs] {
        let side_index = side.index();
        let owner: HashMap<usize, usize> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.base.is_none())
            .filter_map(|(i, g)| g.side(side).map(|d| (d.doc, i)))
            .collect();
        let mut moves = Vec::new();
        for (i, g) in groups.iter().enumerate() {
            let (Some(b), None) = (g.base, g.side(side)) else {
                continue;
            };
            let Some(p) = position(BASE, b) else { continue };
            // A new document holding base's content unchanged under another identity is base's
            // renamed, wherever it stands (the one at its place is then a copy, edited); else
            // the one at its place.
            let unchanged: Vec<DocRef> = versions[side_index]
                .iter()
                .map(|&(d, _)| d)
                .filter(|d| owner.contains_key(&d.doc))
                .filter(|d| same_content(trees[BASE], b.root, trees[side_index], d.root))
                .collect();
            let doc = match unchanged[..] {
                [d] => d,
                _ => match versions[side_index].get(p) {
                    Some(&(d, _)) => d,
                    None => continue,
                },
            };
            let Some(&j) = owner.get(&doc.doc) else {
                continue;
            };
            if moves.iter().any(|&(_, k)| k == j) {
                continue;
            }
            let other = groups[j].side(side.other());
            if other.is_some() && g.side(side.other()).is_some() {
                continue;
            }
            // The other side renamed the document already (paired above) and this side changed
            // another part of its identity: merged field by field, the identity would mix into
            // one neither side wrote (theirs' name in ours' namespace), clean. Left unpaired,
            // this side's document is an addition beside a delete/modify conflict on the
            // other side's renamed one. (Both changing the name is a conflict on the name.)
            let mixed = g.side(side.other()).is_some_and(|o| {
                match (
                    identity(BASE, b),
                    identity(side.other().index(), o),
                    identity(side_index, doc),
                ) {
                    (Some(b), Some(x), Some(y)) => mixes(&b, &x, &y),
                    _ => false,
                }
            });
            if mixed {
                continue;
            }
            let close = close_identities(
                identity(BASE, b).as_ref(),
                identity(side_index, doc).as_ref(),
                false,
            ) && similar(trees[BASE], b.root, trees[side_index], doc.root);
            if close {
                moves.push((i, j));
            }
        }
        let mut gone = Vec::new();
        for (i, j) in moves {
            let (doc, other) = (groups[j].side(side), groups[j].side(side.other()));
            groups[i].set_side(side, doc);
            if other.is_some() {
                groups[i].set_side(side.other(), other);
            }
            gone.push(j);
        }
        gone.sort_unstable();
        for j in gone.into_iter().rev() {
            groups.remove(j);
        }
    }
}

/// Whether merging the identities `x` and `y` (each a change of `base`) part by part gives
/// one neither holds: each changed a part the other left as base had it, and no part both
/// changed differently (that part would be a conflict).
fn mixes(base: &Identity, x: &Identity, y: &Identity) -> bool {
    let parts = |i: &Identity| {
        [
            i.group.clone(),
            i.kind.clone(),
            i.namespace.clone(),
            i.name.clone(),
        ]
    };
    let (b, x, y) = (parts(base), parts(x), parts(y));
    let mut merged = b.clone();
    for k in 0..4 {
        merged[k] = match (x[k] != b[k], y[k] != b[k]) {
            (true, true) if x[k] != y[k] => return false,
            (true, _) => x[k].clone(),
            (false, true) => y[k].clone(),
            (false, false) => b[k].clone(),
        };
    }
    merged != x && merged != y
}

impl Group {
    /// The document of the version at `index` ([`BASE`], [`OURS`], [`THEIRS`]), to set.
    fn slot_mut(&mut self, index: usize) -> &mut Option<DocRef> {
        match index {
            BASE => &mut self.base,
            OURS => &mut self.ours,
            _ => &mut self.theirs,
        }
    }

    fn side(&self, side: Side) -> Option<DocRef> {
        side.pick(self.ours, self.theirs)
    }

    fn set_side(&mut self, side: Side, doc: Option<DocRef>) {
        *self.slot_mut(side.index()) = doc;
    }
}

impl Placed for Group {
    type Place = DocRef;

    fn place(&self, index: usize) -> Option<DocRef> {
        [self.base, self.ours, self.theirs][index]
    }

    fn set_place(&mut self, side: Side, doc: DocRef) {
        self.set_side(side, Some(doc));
    }

    fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }
}

/// The identities that more than one document of a file claims.
pub fn duplicate_identities(tree: &Tree) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    documents(tree)
        .into_iter()
        .filter_map(|(_, id)| id)
        .filter(|id| !seen.insert(id.clone()))
        .map(|id| id.to_string())
        .collect()
}

/// The elements `side` renamed in a keyed list, as (index in `base`, index in `side`) pairs,
/// given each version's element keys: like a renamed resource, an element of `side` in
/// neither base nor `other` that is like exactly one base element missing from `side`
/// (standing at the same place: between the same elements base and `side` share; content
/// `similar` calls mostly the same), that base element like no other such new element. Each
/// rename is read alone, so a side that renamed several elements of one list has each paired
/// (their other side's deletions or edits then meet them, not a clean addition). New elements
/// like none of them (an element added beside the rename) do not hide it; a new element like
/// several lost ones leaves the list unpaired. Other base elements `side` deleted there stay
/// deleted. The merge pairs elements by this rule, so a rename merged with the other side's
/// edit is not taken for a deletion plus an addition. The base element may be gone from
/// `other` too: a rename against a deletion, or against another rename, is then a conflict on
/// the element or its key, as in git's line merge, instead of a clean result holding a name
/// neither side agreed on. An element the side moved as well as renamed has no place to
/// show it: it pairs only where its content (key left out) is the same as one lost base
/// element's, no other base element's, and no other new element's (`same`): read as deleted
/// and added, its copy under the new key stood beside the other side's deletion or edit of
/// the old one, clean.
/// The check reads renames its own way (`verify::pairing`), so that a mistake of this rule
/// cannot pass it.
pub(crate) fn renamed_elements(
    base: &[&str],
    side: &[&str],
    other: &[&str],
    similar: impl Fn(usize, usize) -> bool,
    same: impl Fn(usize, usize) -> bool,
) -> Vec<(usize, usize)> {
    use std::collections::HashSet;
    fn set<'a>(v: &[&'a str]) -> HashSet<&'a str> {
        v.iter().copied().collect()
    }
    let (in_base, in_side) = (set(base), set(side));
    // A rename needs a name the side lost and one it gained: most lists have neither, and
    // every keyed list both sides changed is asked.
    if base.iter().all(|k| in_side.contains(k)) || side.iter().all(|k| in_base.contains(k)) {
        return Vec::new();
    }
    let in_other = set(other);
    fn before<'a>(v: &[&'a str], i: usize, shared: &HashSet<&str>) -> Option<&'a str> {
        v[..i].iter().rev().find(|k| shared.contains(**k)).copied()
    }
    fn after<'a>(v: &[&'a str], i: usize, shared: &HashSet<&str>) -> Option<&'a str> {
        v[i + 1..].iter().find(|k| shared.contains(**k)).copied()
    }
    // The base elements `side` lost that a new element of `side` at their place is like.
    // The place is both neighbours: where the side moved the elements around it (a reorder),
    // which new element stands for which lost one is unsure, and the element is read as
    // deleted and added (a conflict against the other side's edit) rather than paired.
    let lost_like = |si: usize| -> Vec<usize> {
        let place = (before(side, si, &in_base), after(side, si, &in_base));
        let at_place: Vec<usize> = (0..base.len())
            .filter(|&i| {
                !in_side.contains(base[i])
                    && (before(base, i, &in_side), after(base, i, &in_side)) == place
                    && similar(i, si)
            })
            .collect();
        if !at_place.is_empty() {
            return at_place;
        }
        let new_of_same = |bi: usize| {
            (0..side.len())
                .filter(|&s| !in_base.contains(side[s]) && same(bi, s))
                .count()
        };
        // Like a base element the side kept as much as the lost one, it is as likely a copy
        // of the kept one: no rename.
        let same_content: Vec<usize> = (0..base.len()).filter(|&i| same(i, si)).collect();
        match same_content[..] {
            [bi] if !in_side.contains(base[bi]) && new_of_same(bi) == 1 => vec![bi],
            _ => Vec::new(),
        }
    };
    // A base element both sides lost that a new element both sides have is like, at its
    // place, is that element's (both renamed it alike): no other new element of `side`
    // renamed it. (Where `other` still has it, `other` did not rename it.)
    let renamed_alike: HashSet<usize> = (0..side.len())
        .filter(|&i| !in_base.contains(side[i]) && in_other.contains(side[i]))
        .flat_map(lost_like)
        .filter(|&bi| !in_other.contains(base[bi]))
        .collect();
    let mut pairs = Vec::new();
    for si in (0..side.len()).filter(|&i| !in_base.contains(side[i]) && !in_other.contains(side[i]))
    {
        let lost: Vec<usize> = lost_like(si)
            .into_iter()
            .filter(|bi| !renamed_alike.contains(bi))
            .collect();
        match lost[..] {
            [] => {}
            [bi] => pairs.push((bi, si)),
            _ => return Vec::new(),
        }
    }
    // A base element two new elements are like is renamed to neither, unless one of them
    // alone holds its very content (a copy that then changed is the other).
    let claims = |bi: usize| pairs.iter().filter(|p| p.0 == bi).count();
    let same_claims = |bi: usize| pairs.iter().filter(|p| p.0 == bi && same(p.0, p.1)).count();
    pairs
        .iter()
        .copied()
        .filter(|p| claims(p.0) == 1 || same_claims(p.0) == 1 && same(p.0, p.1))
        .collect()
}

/// Whether two documents are close enough in content to be one resource renamed: at least
/// half of their leaf values (by field path, their identity fields left out) are the same. A
/// new resource of the same kind with other content is not a rename, whatever its position.
pub(crate) fn similar(a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> bool {
    let (common, larger) = shared_leaves(a, an, b, bn, &identity::FIELDS);
    2 * common >= larger
}

/// Whether two documents hold the same leaf values, their identity fields left out.
fn same_content(a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> bool {
    let (common, larger) = shared_leaves(a, an, b, bn, &identity::FIELDS);
    larger > 0 && common == larger
}

/// The share of the larger document's leaf values (identity fields left out) that the other
/// holds too, from 0 to 1: which of several [`similar`] documents is the closest.
pub(crate) fn likeness(a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> f64 {
    let (common, larger) = shared_leaves(a, an, b, bn, &identity::FIELDS);
    if larger == 0 {
        1.0
    } else {
        common as f64 / larger as f64
    }
}

/// Whether two elements of a keyed list hold the same content besides their key fields (and
/// some: two elements of nothing but keys say nothing of being one), `b`'s key a name: a
/// key set to null is a key deleted, which the check reads as an element without one.
pub(crate) fn same_element(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, keys: &[String]) -> bool {
    if keys
        .iter()
        .any(|k| b.get(bn, k).is_some_and(|v| b.is_null(v)))
    {
        return false;
    }
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let (common, larger) = shared_leaves(a, an, b, bn, &keys);
    larger > 0 && common == larger
}

/// Whether two elements of a keyed list are close enough in content to be one element
/// renamed: as for documents, with the list's key fields left out (a rename changes them), so
/// two elements that hold nothing but their keys are alike.
pub(crate) fn similar_element(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, keys: &[String]) -> bool {
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    alike(a, an, b, bn, &keys)
}

/// At least half of the leaves of the larger value are in the other too, `identity` fields
/// left out.
fn alike(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, identity: &[&str]) -> bool {
    let (common, larger) = shared_leaves(a, an, b, bn, identity);
    2 * common >= larger
}

/// How many leaves (`identity` fields left out) the two values share, and how many the larger
/// of them has.
fn shared_leaves(a: &Tree, an: NodeId, b: &Tree, bn: NodeId, identity: &[&str]) -> (usize, usize) {
    let (la, lb) = (leaves(a, an, identity), leaves(b, bn, identity));
    (crate::text::shared_count(&la, &lb), la.len().max(lb.len()))
}

/// A value's scalar leaves as (field path with list positions left out, value), without
/// the `identity` fields.
fn leaves(tree: &Tree, root: NodeId, identity: &[&str]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![(root, String::new())];
    while let Some((n, path)) = stack.pop() {
        let node = tree.node(n);
        match node.kind {
            Kind::Map => {
                for (k, v) in tree.entries(n) {
                    let p = if path.is_empty() {
                        tree.value(k).to_string()
                    } else {
                        format!("{path}.{}", tree.value(k))
                    };
                    if !identity.contains(&p.as_str()) {
                        stack.push((v, p));
                    }
                }
            }
            Kind::Seq => stack.extend(tree.children(n).iter().map(|&c| (c, format!("{path}[]")))),
            Kind::Scalar | Kind::Alias => out.push((path, crate::parse::canonical(tree, n))),
        }
    }
    out
}
