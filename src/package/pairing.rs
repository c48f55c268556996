//! Which documents of base, ours and theirs are one resource, across the files of a package.
//!
//! Documents pair by identity wherever they live, so a file renamed or split, or a resource
//! moved to another file, is still one resource. Then the file merge's rename rules, lifted to
//! the package: a resource missing on one side pairs with the one new document of that side
//! when each is the only one of its kind in the package and the two are close (one part of
//! the identity changed, similar content); several renames pair by position within a file
//! that kept its path. The file merge's rule that a file of one document pairs its document
//! whatever its identity is not lifted: across files a name is what tells resources apart.
//!
//! An identity that one version holds in several files (kustomize overlays repeat their base's
//! resources) pairs only within its path, as kyaml's path matcher does; so do documents
//! without an identity (plain YAML), by position among the unidentified of their file, a
//! file a side moved ([`moved_files`]) standing at its base path. A file merged whole (see
//! [`PathKind::WholeYaml`]) that a side moved follows the move by its lines, as git's rename
//! detection does ([`Package::whole_moves`]).

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::align;
use crate::parse::{self, Tree};
use crate::resource::{self, DocRef, Identity};
use crate::sides::{self, Side, BASE, OURS, THEIRS};
use crate::split;

use super::parallel::map_parallel;
use super::snapshot::{Entry, Snapshot};
use crate::git::FileMode;

/// An index into [`Package::paths`].
pub(crate) type PathId = usize;

/// How the files at one path are merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PathKind {
    /// YAML whose documents pair across files by identity.
    Resources,
    /// A YAML file whose documents cannot be taken apart (not UTF-8, not YAML, a template, two
    /// documents with one identity): merged at its path by the file merge, which falls back
    /// to git's line merge and says why, as it does for a single file.
    WholeYaml,
    /// Any other file: git's line merge for text, binary files and links taken whole.
    Other,
    /// A YAML file one side left as base has it (or both changed alike) in all three versions,
    /// each document named for certain by a strict scan ([`split::identities`]), the same
    /// resources in each, none of them held by another file in any version: no resource comes
    /// or goes, so the file is taken whole from the side that changed it, as git takes it,
    /// with no tree built. Parsed, it would pair only within itself and give the same bytes.
    Settled,
}

/// A YAML file of one version, parsed, with its documents and their identities.
pub(crate) struct ParsedFile<'a> {
    pub tree: Tree<'a>,
    pub docs: Vec<(DocRef, Option<Identity>)>,
}

/// The three versions of a package, every YAML file parsed once (a text two versions share is
/// parsed once for both).
pub(crate) struct Package<'a> {
    pub sides: [&'a Snapshot; 3],
    /// Every path of any version, sorted.
    pub paths: Vec<&'a str>,
    pub kinds: Vec<PathKind>,
    /// For each path, each version's parsed file (an index into `parsed`) when it is
    /// [`PathKind::Resources`] and the version has the file.
    pub files: Vec<[Option<usize>; 3]>,
    pub parsed: Vec<ParsedFile<'a>>,
    /// Whole files moved ([`Package::whole_moves`]): base's path by new path.
    pub whole_moves: HashMap<PathId, PathId>,
}

/// Where a document is: its file's path and its position among the file's documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Loc {
    pub path: PathId,
    pub pos: usize,
}

/// One resource across the three versions.
#[derive(Clone, Debug)]
pub(crate) struct Group {
    pub locs: [Option<Loc>; 3],
    pub identity: Option<Identity>,
    /// The path the resource stays at whatever its sides' paths: base's path of a file a side
    /// moved onto a different file the other side holds new, under `theirs` ([`group`]).
    pub home: Option<PathId>,
}

impl align::Placed for Group {
    type Place = Loc;

    fn place(&self, index: usize) -> Option<Loc> {
        self.locs[index]
    }

    fn set_place(&mut self, side: Side, loc: Loc) {
        self.locs[side.index()] = Some(loc);
    }

    fn identity(&self) -> Option<&Identity> {
        self.identity.as_ref()
    }
}

impl Group {
    /// How messages name it.
    pub fn label(&self) -> String {
        self.identity.as_ref().map_or_else(
            || "a document without kind or name".into(),
            |i| i.to_string(),
        )
    }
}

/// Files whose documents are resources: `*.yaml`, `*.yml` and kpt's `Kptfile`.
pub(crate) fn is_yaml_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".yaml") || name.ends_with(".yml") || name == "Kptfile"
}

impl<'a> Package<'a> {
    /// Lists the paths of the three versions and parses every YAML file, on all cores, but
    /// those [`PathKind::Settled`]; with `settle` false (kyaml's rules, which merge a file
    /// one side left alone too) no file is.
    pub fn read(sides: [&'a Snapshot; 3], settle: bool) -> Package<'a> {
        let paths: Vec<&'a str> = sides
            .iter()
            .flat_map(|s| s.files.keys().map(String::as_str))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let candidates: Vec<PathId> = (0..paths.len())
            .filter(|&p| settle && is_yaml_name(paths[p]) && one_sided(sides, paths[p]))
            .collect();
        let cost = |&p: &PathId| {
            sides[THEIRS]
                .files
                .get(paths[p])
                .map_or(0, |e| e.bytes.len())
        };
        let scans = map_parallel(&candidates, cost, |&p| settled_identities(sides, paths[p]));
        let settled: Vec<(PathId, Vec<Identity>)> = candidates
            .into_iter()
            .zip(scans)
            .filter_map(|(p, ids)| Some((p, ids?)))
            .collect();
        let mut pkg = Package {
            sides,
            paths,
            kinds: Vec::new(),
            files: Vec::new(),
            parsed: Vec::new(),
            whole_moves: HashMap::new(),
        };
        pkg.kinds = vec![PathKind::Other; pkg.paths.len()];
        pkg.files = vec![[None; 3]; pkg.paths.len()];
        let mut scanned = vec![false; pkg.paths.len()];
        for (p, _) in &settled {
            scanned[*p] = true;
        }
        let rest: Vec<PathId> = (0..pkg.paths.len()).filter(|&p| !scanned[p]).collect();
        pkg.parse(&rest);
        // A resource another file holds too may pair across files: that file is parsed.
        let mut holder: HashMap<&Identity, Option<PathId>> = HashMap::new();
        let mut hold = |id, p| {
            let h = holder.entry(id).or_insert(Some(p));
            if *h != Some(p) {
                *h = None;
            }
        };
        for (p, slots) in pkg.files.iter().enumerate() {
            for &f in slots.iter().flatten() {
                for id in pkg.parsed[f].docs.iter().filter_map(|(_, id)| id.as_ref()) {
                    hold(id, p);
                }
            }
        }
        for (p, ids) in &settled {
            for id in ids {
                hold(id, *p);
            }
        }
        let (alone, shared): (Vec<_>, Vec<_>) = settled
            .iter()
            .map(|(p, ids)| (*p, ids.iter().all(|id| holder[id] == Some(*p))))
            .partition(|&(_, alone)| alone);
        for (p, _) in alone {
            pkg.kinds[p] = PathKind::Settled;
        }
        let shared: Vec<PathId> = shared.into_iter().map(|(p, _)| p).collect();
        pkg.parse(&shared);
        pkg.whole_moves = pkg.whole_moves();
        let moved: Vec<PathId> = pkg.whole_moves.iter().flat_map(|(&n, &g)| [n, g]).collect();
        for p in moved {
            pkg.kinds[p] = PathKind::WholeYaml;
            pkg.files[p] = [None; 3];
        }
        pkg
    }

    /// The files one side or both moved where the move's old or new path is
    /// [`PathKind::WholeYaml`] (a version repeats an identity or does not parse), as base's
    /// path by new path: base's file is gone from the moving side, which holds a new YAML file
    /// at a path base does not have, sharing at least half the lines of the longer of the two
    /// (git's rename detection, read by lines) or holding every resource of base's file
    /// ([`holds_every_resource`]), each the only such file for the other; the
    /// other side kept base's file, moved it to the same path or deleted it; no resource of the files is
    /// held by another file. A whole path pairs by path only, so the move read as the side's
    /// deletion against the other side's change beside the side's new file, and each side of
    /// that conflict held the file's resources twice (adversary packages-mark-1157-239); git
    /// follows the rename and merges the three versions at the new path, and so does the
    /// package.
    fn whole_moves(&self) -> HashMap<PathId, PathId> {
        let entry = |s: usize, p: PathId| self.sides[s].files.get(self.paths[p]);
        let lines = |bytes: &'a [u8]| bytes.split(|&c| c == b'\n').collect::<Vec<_>>();
        let close = |a: &'a [u8], b: &'a [u8]| {
            let (la, lb) = (lines(a), lines(b));
            2 * crate::text::shared_count(&la, &lb) >= la.len().max(lb.len())
                || holds_every_resource(a, b)
        };
        let mut holders: HashMap<&Identity, HashSet<PathId>> = HashMap::new();
        for (p, slots) in self.files.iter().enumerate() {
            for &f in slots.iter().flatten() {
                for id in self.parsed[f].docs.iter().filter_map(|(_, id)| id.as_ref()) {
                    holders.entry(id).or_default().insert(p);
                }
            }
        }
        let alone = |p: PathId| {
            self.files[p].iter().flatten().all(|&f| {
                self.parsed[f]
                    .docs
                    .iter()
                    .filter_map(|(_, id)| id.as_ref())
                    .all(|id| holders[id].len() == 1)
            })
        };
        let yaml = |p: PathId| matches!(self.kinds[p], PathKind::Resources | PathKind::WholeYaml);
        let mut pairs: Vec<(PathId, PathId)> = Vec::new();
        for side in [OURS, THEIRS] {
            let o = other(side);
            for g in 0..self.paths.len() {
                let gone = yaml(g) && entry(side, g).is_none() && alone(g);
                let Some(before) = entry(BASE, g).filter(|_| gone) else {
                    continue;
                };
                for n in 0..self.paths.len() {
                    let whole = [g, n].iter().any(|&p| self.kinds[p] == PathKind::WholeYaml);
                    // The other side kept base's file, moved it here too, or deleted it
                    // (holding nothing here either): git's rename/delete. Not followed, the
                    // move read as both sides deleting base's file beside the side's new one,
                    // which stood clean with every change the side made against the deletion
                    // (adversary packages-mark-1241-79: ours deleted a file theirs moved,
                    // renaming and editing its Deployment).
                    let other_kept = !(entry(o, g).is_some() && entry(o, n).is_some());
                    let new = whole && yaml(n) && entry(BASE, n).is_none() && other_kept;
                    if let Some(after) = entry(side, n).filter(|_| new && alone(n)) {
                        if close(&before.bytes, &after.bytes) && !pairs.contains(&(g, n)) {
                            pairs.push((g, n));
                        }
                    }
                }
            }
        }
        pairs
            .iter()
            .filter(|&&(g, n)| pairs.iter().all(|&(rg, rn)| (rg == g) == (rn == n)))
            .map(|&(g, n)| (n, g))
            .collect()
    }

    /// The three versions merged at `path`: for a whole file moved ([`Package::whole_moves`]),
    /// base's file with each side's at the new path, or at base's path where the side kept it;
    /// nothing at base's path.
    pub fn entries(&self, path: PathId) -> [Option<&'a Entry>; 3] {
        let at = |p: PathId| self.sides.map(|s| s.files.get(self.paths[p]));
        if let Some(&from) = self.whole_moves.get(&path) {
            let [base, ours, theirs] = at(from);
            let [_, o, t] = at(path);
            return [base, o.or(ours), t.or(theirs)];
        }
        if self.whole_moves.values().any(|&from| from == path) {
            return [None; 3];
        }
        at(path)
    }

    /// Parses the YAML files at `which`, on all cores (a text two versions share is parsed
    /// once), and sets each path's kind and parsed files.
    fn parse(&mut self, which: &[PathId]) {
        let (sides, paths) = (self.sides, &self.paths);
        // One parse per distinct text of a path: an unchanged file is parsed once.
        let mut jobs: Vec<(PathId, &'a str)> = Vec::new();
        let mut slots: Vec<[Option<usize>; 3]> = vec![[None; 3]; which.len()];
        let mut yaml = vec![false; which.len()];
        for (k, &p) in which.iter().enumerate() {
            let path = paths[p];
            let entries = sides.map(|s| s.files.get(path));
            yaml[k] = is_yaml_name(path)
                && entries
                    .iter()
                    .flatten()
                    .all(|e| e.mode != FileMode::Symlink);
            if !yaml[k] {
                continue;
            }
            for side in 0..3 {
                let Some(entry) = entries[side] else { continue };
                let shared =
                    (0..side).find(|&s| entries[s].is_some_and(|e| e.bytes == entry.bytes));
                slots[k][side] = match shared {
                    Some(s) => slots[k][s],
                    None => match text_of(&entry.bytes) {
                        Some(text) => {
                            jobs.push((k, text));
                            Some(jobs.len() - 1)
                        }
                        // Not text: the whole path goes to the file merge.
                        None => {
                            yaml[k] = false;
                            None
                        }
                    },
                };
            }
        }
        let results = map_parallel(&jobs, |(_, text)| text.len(), |(_, text)| parse_file(text));
        let mut index = vec![None; jobs.len()];
        let mut failed = vec![false; which.len()];
        for (j, result) in results.into_iter().enumerate() {
            match result {
                Some(file) => {
                    index[j] = Some(self.parsed.len());
                    self.parsed.push(file);
                }
                None => failed[jobs[j].0] = true,
            }
        }
        for (k, &p) in which.iter().enumerate() {
            let kind = if !is_yaml_name(paths[p]) {
                PathKind::Other
            } else if !yaml[k] || failed[k] {
                PathKind::WholeYaml
            } else {
                PathKind::Resources
            };
            let slot = if kind == PathKind::Resources {
                slots[k].map(|s| s.and_then(|j| index[j]))
            } else {
                [None; 3]
            };
            // A path no version holds data in (comments only) is text to the file merge.
            let has_data = slot
                .iter()
                .flatten()
                .any(|&f| !self.parsed[f].docs.is_empty());
            self.kinds[p] = if kind == PathKind::Resources && !has_data {
                PathKind::WholeYaml
            } else {
                kind
            };
            self.files[p] = if has_data { slot } else { [None; 3] };
        }
    }

    /// The parsed file of `side` at `path`.
    pub fn file(&self, side: usize, path: PathId) -> Option<&ParsedFile<'a>> {
        self.files[path][side].map(|f| &self.parsed[f])
    }

    /// The tree and root node of a document.
    pub fn doc(&self, side: usize, loc: Loc) -> (&Tree<'a>, DocRef) {
        let file = &self.parsed[self.files[loc.path][side].unwrap_or_default()];
        (&file.tree, file.docs[loc.pos].0)
    }

    fn similar(&self, a: (usize, Loc), b: (usize, Loc)) -> bool {
        let (ta, da) = self.doc(a.0, a.1);
        let (tb, db) = self.doc(b.0, b.1);
        align::similar(ta, da.root, tb, db.root)
    }

    fn likeness(&self, a: (usize, Loc), b: (usize, Loc)) -> f64 {
        let (ta, da) = self.doc(a.0, a.1);
        let (tb, db) = self.doc(b.0, b.1);
        align::likeness(ta, da.root, tb, db.root)
    }
}

/// Whether the file `after` holds, by identity, every resource of the file `before` (which
/// holds some): how documents pair everywhere else in a package, read for a file merged whole
/// ([`PathKind::WholeYaml`]) and so never taken apart. A side that moved a file and copied its
/// resources within it has a file far longer than base's, which git's rename detection by
/// lines does not follow; read as a deletion of base's file beside a new one, the other side's
/// edits of those resources stayed at base's path (under `theirs` the package held them twice)
/// or were lost (under `ours`) (adversary packages-theirs-1202-335 and packages-ours-1202-335).
/// Followed as a move, the three versions merge at the new path.
fn holds_every_resource(before: &[u8], after: &[u8]) -> bool {
    // Every document named, or the file holds no resources to follow.
    let ids =
        |bytes| -> Option<HashSet<Identity>> { whole_documents(bytes)?.into_iter().collect() };
    match (ids(before), ids(after)) {
        (Some(b), Some(a)) => !b.is_empty() && b.is_subset(&a),
        _ => false,
    }
}

/// The identity of each document of a YAML file the package merges whole (read here: the
/// pairing does not take such a file apart), repeats included; `None` where it is not text or
/// does not parse (a template, a conflict).
pub(crate) fn whole_documents(bytes: &[u8]) -> Option<Vec<Option<Identity>>> {
    let tree = parse::parse(text_of(bytes)?).ok()?;
    Some(
        resource::documents(&tree)
            .into_iter()
            .map(|(_, id)| id)
            .collect(),
    )
}

/// A file's tree and documents; `None` when the file merge must take it whole: it does not
/// parse, or one identity stands twice in it (the file merge refuses to pair those).
fn parse_file(text: &str) -> Option<ParsedFile<'_>> {
    let tree = parse::parse(text).ok()?;
    if !resource::duplicate_identities(&tree).is_empty() {
        return None;
    }
    let docs = resource::documents(&tree);
    Some(ParsedFile { tree, docs })
}

/// A file's bytes as YAML text: UTF-8 and not binary.
fn text_of(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes)
        .ok()
        .filter(|_| !crate::git::line_merge::is_binary(bytes))
}

/// Whether all three versions have the file at `path`, as regular files, and one side left
/// it as base has it or both changed it alike: the cases git settles without a merge.
fn one_sided(sides: [&Snapshot; 3], path: &str) -> bool {
    let [Some(b), Some(o), Some(t)] = sides.map(|s| s.files.get(path)) else {
        return false;
    };
    [b, o, t].iter().all(|e| e.mode != FileMode::Symlink)
        && sides::settled(&b.bytes, &o.bytes, &t.bytes).is_some()
}

/// The identities of a [`one_sided`] file's documents, where the scan names every document
/// of each version for certain and the three versions hold the same resources.
fn settled_identities(sides: [&Snapshot; 3], path: &str) -> Option<Vec<Identity>> {
    let mut first: Option<Vec<Identity>> = None;
    let mut last: Option<&[u8]> = None;
    for side in sides {
        let bytes = side.files.get(path)?.bytes.as_slice();
        if last == Some(bytes) {
            continue;
        }
        last = Some(bytes);
        let mut ids = split::identities(text_of(bytes)?)?;
        ids.sort_by(|a, b| {
            let key = |i: &Identity| [&i.group, &i.kind, &i.namespace, &i.name].map(String::clone);
            key(a).cmp(&key(b))
        });
        match &first {
            Some(f) if *f != ids => return None,
            Some(_) => {}
            None => first = Some(ids),
        }
    }
    first
}

/// How many files of each version hold each identity.
pub(crate) fn files_holding<'p>(pkg: &'p Package) -> HashMap<&'p Identity, [usize; 3]> {
    let mut count: HashMap<&Identity, [usize; 3]> = HashMap::new();
    for slots in &pkg.files {
        for (side, slot) in slots.iter().enumerate() {
            let Some(f) = *slot else { continue };
            for id in pkg.parsed[f].docs.iter().filter_map(|(_, id)| id.as_ref()) {
                count.entry(id).or_default()[side] += 1;
            }
        }
    }
    count
}

/// What pairs documents before the rename rules.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// An identity each version holds in one file at most: pairs across files.
    Global(Identity),
    /// An identity some version holds in several files: pairs within its path.
    Local(PathId, Identity),
    /// A document without identity: by position among the unidentified of its file (for a
    /// moved file, of base's file).
    Plain(PathId, usize),
    /// A document without identity in a file a side put where it moved base's file away
    /// from ([`replaced`]): not base's document; the other side's such document is its match.
    Vacated(PathId, usize),
}

/// Whether `side` holds a file at base's path `g` that holds none of base's documents without
/// identity (each unlike every one of them): a new file, put where the side moved base's file
/// away from ([`moved_files`]).
fn replaced(pkg: &Package, side: usize, g: PathId) -> bool {
    let plain = |s: usize| -> Option<Vec<Loc>> {
        pkg.file(s, g).map(|f| {
            (0..f.docs.len())
                .filter(|&pos| f.docs[pos].1.is_none())
                .map(|pos| Loc { path: g, pos })
                .collect()
        })
    };
    let (Some(before), Some(now)) = (plain(BASE), plain(side)) else {
        return false;
    };
    now.iter()
        .all(|&n| before.iter().all(|&b| !pkg.similar((BASE, b), (side, n))))
}

/// Pairs the documents of the package into resources: by identity, then by the rename rules.
/// Ours' documents come first, then theirs', then base's, each in path order, so the result
/// does not depend on hashing. Also returns the paths where a side's move of a file met a
/// different file the other side holds new there (see [`Collisions`]). `theirs`: the merge
/// must not conflict, so such a move is kept back at base's path instead (see below).
pub(crate) fn group(pkg: &Package, theirs: bool) -> (Vec<Group>, Collisions) {
    let files_holding = files_holding(pkg);
    let mut groups: Vec<Group> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    let mut moved: [HashMap<PathId, PathId>; 3] = Default::default();
    for side in [OURS, THEIRS] {
        moved[side] = moved_files(pkg, side);
    }
    // A side that lost base's file and holds a new one at the path the other side moved that
    // file to moved it there too, however far it took the content: the two versions at one
    // new path are base's file, as git reads a rename both sides made to one path. Read as an
    // addition, it was an add/add against the other side's move, which merged the side's
    // edits away (packages-mark-1144-258: ours moved a values file there and changed two of
    // its three values, theirs only moved it).
    for side in [OURS, THEIRS] {
        let o = other(side);
        let has = |s: usize, p: PathId| pkg.sides[s].files.contains_key(pkg.paths[p]);
        let also: Vec<(PathId, PathId)> = moved[side]
            .iter()
            .filter(|&(&q, &g)| has(o, q) && !has(o, g))
            .filter(|&(q, g)| !moved[o].contains_key(q) && !moved[o].values().any(|x| x == g))
            .map(|(&q, &g)| (q, g))
            .collect();
        moved[o].extend(also);
    }
    // A path both sides hold new is one file added twice (git's add/add), unless both moved
    // the same file there.
    // Under `theirs`, which may not mark the collision as a whole-file conflict, the move still
    // pairs the moved file with base's, but the resource stays at base's path, where the other
    // side still has it, and the other side's new file keeps the new path: merged as one file
    // added twice, the two files became one no side wrote, clean, the moved file's other-side
    // edits and the other side's file lost (adversary packages-theirs-1172-1007). Either side
    // may be the mover.
    let [_, ours_moved, theirs_moved] = moved.clone();
    let mut collisions = Collisions::new();
    let mut homes: Vec<(usize, PathId, PathId)> = Vec::new();
    for (side, others) in [(OURS, theirs_moved), (THEIRS, ours_moved)] {
        let held = |q: PathId| pkg.sides[other(side)].files.contains_key(pkg.paths[q]);
        moved[side].retain(|q, p| {
            let kept = !held(*q) || others.get(q) == Some(p);
            if !kept && theirs {
                homes.push((side, *q, *p));
                return true;
            }
            if !kept {
                collisions.insert(*q);
            }
            kept
        });
    }
    for side in [OURS, THEIRS, BASE] {
        for (p, slots) in pkg.files.iter().enumerate() {
            let Some(f) = slots[side] else { continue };
            let from = moved[side].get(&p).copied().unwrap_or(p);
            // A file the side holds where it moved base's file away from is new ([`replaced`]).
            let vacated = moved[side].values().any(|&g| g == p);
            let mut plain = 0;
            for (pos, (_, id)) in pkg.parsed[f].docs.iter().enumerate() {
                let key = match id {
                    Some(id) if files_holding[id].iter().all(|&n| n <= 1) => {
                        Key::Global(id.clone())
                    }
                    Some(id) => Key::Local(p, id.clone()),
                    None => {
                        plain += 1;
                        if vacated {
                            Key::Vacated(p, plain)
                        } else {
                            Key::Plain(from, plain)
                        }
                    }
                };
                let g = *index.entry(key).or_insert_with(|| {
                    groups.push(Group {
                        locs: [None; 3],
                        identity: id.clone(),
                        home: None,
                    });
                    groups.len() - 1
                });
                groups[g].locs[side] = Some(Loc { path: p, pos });
            }
        }
    }
    // The file merge's elimination rule over the whole package; where the other side kept no
    // resource the side lost, one both lost is taken (see [`align::Lost::KeptOrBoth`]).
    align::pair_renames(&mut groups, align::Lost::KeptOrBoth, |b, side, d| {
        pkg.similar((BASE, b), (side.index(), d))
    });
    pair_by_position(pkg, &mut groups);
    for g in &mut groups {
        let at = |s: usize| g.locs[s].map(|l| l.path);
        if let Some(&(_, _, home)) = homes
            .iter()
            .find(|&&(side, q, from)| at(side) == Some(q) && at(BASE) == Some(from))
        {
            g.home = Some(home);
        }
    }
    (groups, collisions)
}

/// The new paths where a side moved a base file and the other side holds a different file
/// (git's rename/add and rename/rename collisions). The two files are two things: read as one
/// file added twice, they were merged field by field into a file no side wrote, each side of
/// its conflicts holding the other file's fields (adversary packages-mark-1151-803).
pub(crate) type Collisions = HashSet<PathId>;

/// How much closer than any rival a pair read by likeness must be: a tenth of the leaves.
const MOVE_MARGIN: f64 = 0.1;

/// The files `side` moved that hold documents without identity, by new path: a base file
/// the side no longer has (or holds only new documents in, [`replaced`]) and a file new on
/// the side, with as many such documents, each close to its counterpart by position, and
/// each file clearly the other's closest candidate (as git's rename detection takes the best
/// match: a move beside an exact copy pairs with the copy), closeness read against base's
/// version or the other side's. Those documents have nothing else to pair by, and without
/// this a moved values file is one document deleted and another added: the other side's
/// edits conflict with the deletion while the moved copy stands beside them. Anything less
/// certain stays a delete and an add.
fn moved_files(pkg: &Package, side: usize) -> HashMap<PathId, PathId> {
    let plain = |s: usize, p: PathId| -> Vec<Loc> {
        pkg.file(s, p).map_or_else(Vec::new, |f| {
            (0..f.docs.len())
                .filter(|&pos| f.docs[pos].1.is_none())
                .map(|pos| Loc { path: p, pos })
                .collect()
        })
    };
    let has = |s: usize, p: PathId| pkg.sides[s].files.contains_key(pkg.paths[p]);
    // A file the side still holds at base's path but holding none of base's documents is gone
    // too: the side moved base's file and put a new one in its place. Read by path, that new
    // file paired with base's moved documents, and under `theirs` took base's and the other
    // side's fields in place of its own (adversary packages-theirs-1292-1271: both moved a
    // values file to one path, theirs added a different values file at the old one).
    let gone: Vec<PathId> = (0..pkg.paths.len())
        .filter(|&p| (!has(side, p) || replaced(pkg, side, p)) && !plain(BASE, p).is_empty())
        .collect();
    let new: Vec<PathId> = (0..pkg.paths.len())
        .filter(|&p| !has(BASE, p) && !plain(side, p).is_empty())
        .collect();
    let mut pairs: Vec<(PathId, PathId, f64)> = Vec::new();
    for &g in &gone {
        let before = plain(BASE, g);
        for &n in &new {
            let after = plain(side, n);
            let close = before.len() == after.len()
                && before
                    .iter()
                    .zip(&after)
                    .all(|(&b, &a)| pkg.similar((BASE, b), (side, a)));
            if close {
                // Closeness to the other side's version counts too: a rerun of an update
                // finds the moved file holding what upstream has now.
                let o = other(side);
                let score = |s: usize, docs: &[Loc]| {
                    docs.iter()
                        .zip(&after)
                        .map(|(&b, &a)| pkg.likeness((s, b), (side, a)))
                        .fold(1.0, f64::min)
                };
                let other_now = plain(o, g);
                let mut best = score(BASE, &before);
                if other_now.len() == after.len() {
                    best = best.max(score(o, &other_now));
                }
                pairs.push((g, n, best));
            }
        }
    }
    pairs
        .iter()
        .filter(|&&(g, n, score)| {
            pairs
                .iter()
                .filter(|&&(rg, rn, _)| (rg == g) != (rn == n))
                .all(|&(_, _, rival)| score - rival >= MOVE_MARGIN)
        })
        .map(|&(g, n, _)| (n, g))
        .collect()
}

/// The other of ours and theirs.
fn other(side: usize) -> usize {
    if side == OURS {
        THEIRS
    } else {
        OURS
    }
}

/// The file merge's positional rule within a path all versions kept: a resource gone from a
/// side pairs with the new document at its position in that side's file, when close, unless
/// another new document of the side is clearly closer (then that one, wherever it is: so a
/// second run, the resource now in another file, pairs it the same way).
fn pair_by_position(pkg: &Package, groups: &mut Vec<Group>) {
    for side in [OURS, THEIRS] {
        let o = other(side);
        let owner: HashMap<Loc, usize> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.locs[BASE].is_none())
            .filter_map(|(i, g)| g.locs[side].map(|l| (l, i)))
            .collect();
        let mut moves = Vec::new();
        for (i, g) in groups.iter().enumerate() {
            let (Some(b), None) = (g.locs[BASE], g.locs[side]) else {
                continue;
            };
            let Some(file) = pkg.file(side, b.path) else {
                continue;
            };
            if b.pos >= file.docs.len() {
                continue;
            }
            let at = Loc {
                path: b.path,
                pos: b.pos,
            };
            if !owner.contains_key(&at) {
                continue;
            }
            // The side's new documents the base resource could be, each with how alike.
            let close: Vec<(usize, f64)> = owner
                .iter()
                .filter(|&(_, &j)| groups[j].locs[o].is_none() || g.locs[o].is_none())
                .filter(|&(&loc, &j)| {
                    align::close_identities(g.identity.as_ref(), groups[j].identity.as_ref(), false)
                        && pkg.similar((BASE, b), (side, loc))
                })
                .map(|(&loc, &j)| (j, pkg.likeness((BASE, b), (side, loc))))
                .collect();
            // The one at its position, unless another is clearly more alike (a copy put first,
            // the resource renamed after it): then that one, as git's rename detection takes
            // the clearly best match; none where two are about as alike.
            let clearly = |&(j, score): &(usize, f64)| {
                close
                    .iter()
                    .all(|&(k, rival)| k == j || score - rival >= MOVE_MARGIN)
            };
            let positional = owner[&at];
            let chosen = match close.iter().find(|c| c.0 == positional) {
                Some(&(j, score))
                    if close.iter().all(|&(_, rival)| rival - score < MOVE_MARGIN) =>
                {
                    Some(j)
                }
                _ => close.iter().find(|c| clearly(c)).map(|c| c.0),
            };
            if let Some(j) = chosen {
                moves.push((i, j));
            }
        }
        let mut gone = Vec::new();
        for (i, j) in moves {
            let (doc, theirs) = (groups[j].locs[side], groups[j].locs[o]);
            groups[i].locs[side] = doc;
            if theirs.is_some() {
                groups[i].locs[o] = theirs;
            }
            gone.push(j);
        }
        gone.sort_unstable();
        gone.dedup();
        for j in gone.into_iter().rev() {
            groups.remove(j);
        }
    }
}
