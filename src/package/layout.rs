//! Where each resource lives after the merge, in what order, and the three versions of each
//! output file assembled from the documents placed in it.
//!
//! A resource goes to theirs' file when upstream moved it (ours' edits go with it), to ours'
//! file when only ours moved it, and stays where it is when neither did; a new upstream
//! resource goes where theirs put it, a local one where ours has it. A file's order is ours'
//! where ours has the file, with the documents that arrive inserted after their predecessor in
//! theirs' file; theirs' order in a file ours does not have.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use super::pairing::{Group, Loc, Package, PathId};
use crate::sides::{BASE, OURS, THEIRS};

/// Which group a document of a side belongs to.
pub(crate) type Owners = HashMap<(usize, Loc), usize>;

pub(crate) fn owners(groups: &[Group]) -> Owners {
    let mut owners = HashMap::new();
    for (g, group) in groups.iter().enumerate() {
        for side in [BASE, OURS, THEIRS] {
            if let Some(loc) = group.locs[side] {
                owners.insert((side, loc), g);
            }
        }
    }
    owners
}

/// The file a resource belongs in after the merge. A resource both sides deleted keeps its
/// place in base's file, where it only gives the file merge its context.
pub(crate) fn target(g: &Group) -> Option<PathId> {
    if g.home.is_some() {
        return g.home;
    }
    match g.locs {
        [Some(b), Some(_), Some(t)] if t.path != b.path => Some(t.path),
        [Some(_), Some(o), Some(_)] => Some(o.path),
        [None, Some(_), Some(t)] => Some(t.path),
        [_, None, Some(t)] => Some(t.path),
        [_, Some(o), None] => Some(o.path),
        [Some(b), None, None] => Some(b.path),
        [None, None, None] => None,
    }
}

/// Every output file of YAML resources with its resources in their final order; a file
/// holding only resources both sides deleted is none.
pub(crate) fn files(pkg: &Package, groups: &[Group], owners: &Owners) -> Vec<(PathId, Vec<usize>)> {
    let mut members: BTreeMap<PathId, HashSet<usize>> = BTreeMap::new();
    for (g, group) in groups.iter().enumerate() {
        if let Some(path) = target(group) {
            members.entry(path).or_default().insert(g);
        }
    }
    let kept = |m: &HashSet<usize>| {
        m.iter()
            .any(|&g| groups[g].locs[OURS].is_some() || groups[g].locs[THEIRS].is_some())
    };
    let gone: Vec<PathId> = members
        .iter()
        .filter(|(_, m)| !kept(m))
        .map(|(&path, _)| path)
        .collect();
    let left: HashSet<usize> = gone
        .iter()
        .filter_map(|path| members.remove(path))
        .flatten()
        .collect();
    follow_neighbours(pkg, groups, owners, &left, &mut members);
    members
        .into_iter()
        .filter(|(_, m)| kept(m))
        .map(|(path, m)| (path, order(pkg, groups, owners, path, &m)))
        .collect()
}

/// Resources both sides deleted from a base file that no output file stands for (one side
/// deleted the file, the other moved it or dealt its resources out) go, as context, with the
/// nearest resource of base's file that lives on: the one before, else the one after. There
/// the file merge sees base's resource beside the side's new ones and pairs a rename the
/// package left undecided (the side that kept the file renamed it, the other deleted the
/// file): a deletion against a change, marked, where dropped with base's file the renamed
/// resource read as an addition kept outside the conflict, and taking the deleting side's
/// part of it kept the resource (adversary packages-mark-1141-1675).
fn follow_neighbours(
    pkg: &Package,
    groups: &[Group],
    owners: &Owners,
    left: &HashSet<usize>,
    members: &mut BTreeMap<PathId, HashSet<usize>>,
) {
    for &g in left {
        let Some(b) = groups[g].locs[BASE] else {
            continue;
        };
        let Some(file) = pkg.file(BASE, b.path) else {
            continue;
        };
        let home = |pos: usize| {
            let n = *owners.get(&(BASE, Loc { path: b.path, pos }))?;
            let path = target(&groups[n]).filter(|_| !left.contains(&n))?;
            members.contains_key(&path).then_some(path)
        };
        let before = (0..b.pos).rev().find_map(home);
        let found = before.or_else(|| (b.pos + 1..file.docs.len()).find_map(home));
        if let Some(path) = found {
            members.entry(path).or_default().insert(g);
        }
    }
}

/// The groups of `side`'s file at `path` that belong to `members`, in the file's order.
fn sequence(
    pkg: &Package,
    owners: &Owners,
    side: usize,
    path: PathId,
    members: &HashSet<usize>,
) -> Vec<usize> {
    let Some(file) = pkg.file(side, path) else {
        return Vec::new();
    };
    (0..file.docs.len())
        .filter_map(|pos| owners.get(&(side, Loc { path, pos })).copied())
        .filter(|g| members.contains(g))
        .collect()
}

/// Ours' order of the file (theirs' where ours has no such file), the other groups inserted
/// after their predecessor in theirs', then base's file.
fn order(
    pkg: &Package,
    groups: &[Group],
    owners: &Owners,
    path: PathId,
    members: &HashSet<usize>,
) -> Vec<usize> {
    let sides = if pkg.file(OURS, path).is_some() {
        [OURS, THEIRS, BASE]
    } else {
        [THEIRS, OURS, BASE]
    };
    let mut out = sequence(pkg, owners, sides[0], path, members);
    let mut placed: HashSet<usize> = out.iter().copied().collect();
    for &side in &sides[1..] {
        let seq = sequence(pkg, owners, side, path, members);
        for (k, &g) in seq.iter().enumerate() {
            if placed.contains(&g) {
                continue;
            }
            let at = seq[..k]
                .iter()
                .rev()
                .find_map(|p| out.iter().position(|x| x == p))
                .map_or(0, |i| i + 1);
            out.insert(at, g);
            placed.insert(g);
        }
    }
    // Groups that none of the three files at this path holds (moved in on every side, or
    // brought as context from a base file gone on both): after their predecessor in base's
    // file where it is here, else at the end.
    let mut rest: Vec<usize> = members
        .iter()
        .copied()
        .filter(|g| !placed.contains(g))
        .collect();
    rest.sort_unstable();
    for g in rest {
        let after =
            context_before(pkg, groups, owners, g).find_map(|p| out.iter().position(|&x| x == p));
        match after {
            Some(i) => out.insert(i + 1, g),
            None => out.push(g),
        }
    }
    out
}

/// For a group only base holds (context from a base file gone on both sides), the groups
/// before its document in base's file, nearest first; nothing for any other group.
fn context_before<'g>(
    pkg: &Package,
    groups: &[Group],
    owners: &'g Owners,
    g: usize,
) -> impl Iterator<Item = usize> + 'g {
    let b = match groups[g].locs {
        [Some(b), None, None] if pkg.file(BASE, b.path).is_some() => Some(b),
        _ => None,
    };
    b.into_iter().flat_map(move |b| {
        (0..b.pos)
            .rev()
            .filter_map(move |pos| owners.get(&(BASE, Loc { path: b.path, pos })).copied())
    })
}

/// One version of an output file, as the file merge will see it.
pub(crate) struct Version<'a> {
    pub text: Cow<'a, str>,
    /// The parsed file this text is, byte for byte, if it is one.
    pub parsed: Option<usize>,
    /// The group of each of its documents, in order.
    pub groups: Vec<usize>,
}

/// `side`'s version of the file at `path` holding `order`: the side's own file, byte for byte,
/// when it holds exactly these resources; otherwise their documents' text, each with the
/// comments around it, joined in the file's final order.
pub(crate) fn assemble<'a>(
    pkg: &Package<'a>,
    groups: &[Group],
    owners: &Owners,
    path: PathId,
    order: &[usize],
    side: usize,
) -> Version<'a> {
    let mine: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&g| groups[g].locs[side].is_some())
        .collect();
    if let Some(f) = pkg.files[path][side] {
        let file = &pkg.parsed[f];
        let wanted: HashSet<usize> = order.iter().copied().collect();
        let in_file: Vec<usize> = (0..file.docs.len())
            .filter_map(|pos| owners.get(&(side, Loc { path, pos })).copied())
            .collect();
        let all_here = mine
            .iter()
            .all(|&g| groups[g].locs[side].is_some_and(|l| l.path == path));
        if all_here && in_file.len() == mine.len() && in_file.iter().all(|g| wanted.contains(g)) {
            return Version {
                text: Cow::Borrowed(file.tree.text),
                parsed: Some(f),
                groups: in_file,
            };
        }
    }
    let eol = pkg
        .file(side, path)
        .map(|f| f.tree.eol)
        .or_else(|| {
            mine.first()
                .and_then(|&g| groups[g].locs[side])
                .map(|l| pkg.doc(side, l).0.eol)
        })
        .unwrap_or("\n");
    let mut text = String::new();
    for (k, &g) in mine.iter().enumerate() {
        let Some(loc) = groups[g].locs[side] else {
            continue;
        };
        let piece = piece(pkg, side, loc);
        if k > 0 {
            if !text.ends_with('\n') {
                text.push_str(eol);
            }
            if !piece.explicit {
                text.push_str("---");
                text.push_str(eol);
            }
            text.push_str(piece.text.trim_start_matches('\u{feff}'));
        } else {
            text.push_str(piece.text);
        }
    }
    Version {
        text: Cow::Owned(text),
        parsed: None,
        groups: mine,
    }
}

/// A document's text with the comments that belong to it, and whether it opens with `---`.
pub(crate) struct Piece<'a> {
    pub text: &'a str,
    pub explicit: bool,
}

/// The document at `loc` as a piece of another file. A bare `---` line that only separated it
/// from the document before it in its file is left behind (the file it joins adds its own
/// separators); a `---` that opens a file stays, as the file's author wrote it.
pub(crate) fn piece<'a>(pkg: &Package<'a>, side: usize, loc: Loc) -> Piece<'a> {
    let (tree, doc) = pkg.doc(side, loc);
    let d = &tree.docs[doc.doc];
    let text = &tree.text[d.region.clone()];
    let opens_file = tree.text[..d.region.start]
        .trim_start_matches('\u{feff}')
        .is_empty();
    if !opens_file {
        let (line, rest) = text.split_once('\n').unwrap_or((text, ""));
        if line.trim_end() == "---" {
            return Piece {
                text: rest,
                explicit: false,
            };
        }
    }
    Piece {
        text,
        explicit: d.explicit_start,
    }
}
