//! Which document of base, ours and theirs is the same resource: by identity, by position
//! among the unidentified, and renames paired by elimination or by place.

use std::collections::HashMap;

use crate::fallback::Reason;
use crate::parse::Tree;
use crate::resource::{documents, DocRef, Identity};
use crate::sides::{Side, BASE, OURS, THEIRS};

use super::likeness::{same_content, similar};
use super::renames::{close_identities, pair_renames, Lost, Placed};

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
    /// Where base's document is gone from one side and the other side renamed it: the
    /// document the first side made of it under an identity that would mix with the other
    /// side's part by part (see `pair_by_position`). It stays unpaired (its own group, an
    /// addition), but it is that side's version of this resource: a conflict over the document
    /// must hold it on that side, and a side that wins must not keep it beside its own.
    pub rival: Option<DocRef>,
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
            rival: None,
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
                    rival: None,
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
        let mut rivals = Vec::new();
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
            // It is still this side's version of the document: the merge makes the conflict
            // hold it (its rival), so that taking either side keeps one version, not both.
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
                rivals.push((i, j));
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
        for (i, j) in rivals {
            if !moves.iter().any(|&(_, k)| k == j) {
                groups[i].rival = groups[j].side(side);
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
