//! The file merge run on each output file: the three versions assembled from the documents
//! placed in it go through [`driver::merge_bytes`] as any file would (git's line merge,
//! the structural merge, the verifier, the fallbacks), so a package merges exactly as its
//! files do.
//!
//! The file merge pairs the documents of its three texts by its own rules. Where those would
//! pair them otherwise than the package did (a file of one document pairs it whatever its
//! name; a rename inside the file that the package did not see), the file's resources are
//! merged one by one instead, each alone in its three texts, and the results joined; but a
//! rename the package left undecided, between a resource and a like one found nowhere else,
//! is the file merge's to pair (see [`renamed_here`]).

use std::collections::{HashMap, HashSet};

use anyhow::Context;

use crate::driver;
use crate::git::line_merge::{is_binary, line_merge};
use crate::git::FileMode;
use crate::options::{MergeOptions, Policy};
use crate::outcome::written_markers;
use crate::outcome::Message;
use crate::parse::{self, Tree};
use crate::resource::{self, Identity};
use crate::split::{self, Name};
use crate::text::markers;

use super::layout::{assemble, piece, Owners, Version};
use super::pairing::{is_yaml_name, Group, Package, PathId, PathKind};
use super::snapshot::Entry;
use super::ResourceCounts;
use crate::sides::{self, Side, BASE, OURS, THEIRS};

/// A merged file, or the file merge's word that there is none.
#[derive(Debug, Default)]
pub(crate) struct FileOutcome {
    /// `None`: the file is gone (deleted, or left with no resource).
    pub entry: Option<Entry>,
    pub conflicted: bool,
    /// The file merge's lines: each conflict with resource and field path, each fallback.
    pub messages: Vec<Message>,
    /// What became of ours' resources in this file (taking ours' side of any conflict).
    pub counts: ResourceCounts,
    /// The identities of the resources the merged file holds; `None` when it was not read
    /// back (a conflict that does not parse on ours' side, a path merged whole).
    pub identities: Option<Vec<Identity>>,
}

/// Merges an output file of resources: its groups in their final order. `collided`: a side
/// moved a file to this path and the other holds a different one here
/// ([`super::pairing::Collisions`]).
pub(crate) fn merge_resources(
    pkg: &Package,
    groups: &[Group],
    owners: &Owners,
    (path, collided): (PathId, bool),
    order: &[usize],
    opts: &MergeOptions,
) -> anyhow::Result<FileOutcome> {
    let versions = [BASE, OURS, THEIRS].map(|s| assemble(pkg, groups, owners, path, order, s));
    let texts = versions.each_ref().map(|v| v.text.as_bytes());
    // Where a side changed nothing there is nothing to pair: the other side is the answer.
    let merged = match settled(texts[BASE], texts[OURS], texts[THEIRS], opts) {
        Some(merged) => merged,
        // Two files at one path, as git's rename/add: the whole file is the conflict, ours'
        // file against theirs', so that each side holds its own file and nothing of the
        // other's. Under `theirs` kyaml, which sees no moves, merges the two as one file
        // added twice, as the pairing reads them.
        None if collided && opts.policy != Policy::Theirs => collision(&versions, opts),
        None if pairs_alike(pkg, groups, path, &versions) => {
            merge_texts(texts[BASE], texts[OURS], texts[THEIRS], opts)?
        }
        None => one_by_one(pkg, groups, order, opts)?,
    };
    let merged = match gone_into_whole_file(pkg, path) {
        Some(side) if merged.conflicted => whole_file(merged, &versions, side, opts),
        _ => merged,
    };
    let mode = merged_mode(pkg, path).unwrap_or(FileMode::Regular);
    let keep = merged.conflicted || has_data(&merged.bytes);
    let (counts, identities) = tally(pkg, groups, path, &versions, &merged, opts.marker_size)
        .map_or((ResourceCounts::default(), None), |(c, ids)| (c, Some(ids)));
    Ok(FileOutcome {
        entry: keep.then_some(Entry {
            bytes: merged.bytes,
            mode,
        }),
        conflicted: merged.conflicted,
        messages: merged.messages,
        counts,
        identities,
    })
}

/// The whole file in conflict, ours' text against theirs' over no base: git's add/add.
fn collision(versions: &[Version; 3], opts: &MergeOptions) -> Merged {
    let [_, ours, theirs] = versions.each_ref().map(|v| &*v.text);
    let markers = written_markers(opts, ours);
    Merged {
        bytes: markers.wrap(ours, "", theirs).into_bytes(),
        conflicted: true,
        messages: vec![Message::Conflict(
            "conflict: a side moved a file here where the other holds a different one: the whole file, ours' against theirs'".to_string(),
        )],
    }
}

/// The side that lacks base's file at `path` and holds a new file the package merges whole
/// ([`PathKind::WholeYaml`]: it repeats an identity or does not parse), if one does. The
/// resources that side lost here may stand in that file under other names (moved and
/// renamed), which the package cannot read, so a conflict here that calls them deleted may be
/// wrong, and its side loses data: taking ours kept ours' changed resource beside theirs'
/// renamed copy of it, and ours' change was not in that copy (adversary
/// packages-mark-1211-1579).
fn gone_into_whole_file(pkg: &Package, path: PathId) -> Option<Side> {
    let has = |version: usize, p: PathId| pkg.sides[version].files.contains_key(pkg.paths[p]);
    if !has(BASE, path) {
        return None;
    }
    [Side::Ours, Side::Theirs].into_iter().find(|side| {
        let s = side.index();
        !has(s, path)
            && (0..pkg.paths.len())
                .any(|p| pkg.kinds[p] == PathKind::WholeYaml && has(s, p) && !has(BASE, p))
    })
}

/// A conflicted file widened to one conflict over the whole file, each half that side's
/// resolution of it ([`markers::sides`]): where a side's deletions here may be moves into a
/// file the package cannot read ([`gone_into_whole_file`]), the file is in question as a whole,
/// as git's modify/delete puts it, and each half still holds the other side's changes that
/// did not conflict.
fn whole_file(merged: Merged, versions: &[Version; 3], side: Side, opts: &MergeOptions) -> Merged {
    let Ok(text) = std::str::from_utf8(&merged.bytes) else {
        return merged;
    };
    let [ours, theirs] = markers::sides(text, opts.marker_size);
    let markers = written_markers(opts, &ours);
    let mut messages = merged.messages;
    messages.push(Message::Note(format!(
        "{} has no file here and a new file that kmerge merges whole, which may hold what it \
         lost here: the whole file is the conflict",
        side.pick("ours", "theirs")
    )));
    Merged {
        bytes: markers
            .wrap(&ours, &versions[BASE].text, &theirs)
            .into_bytes(),
        conflicted: true,
        messages,
    }
}

/// What the merge did to ours' resources in this file, read from the merged text itself (ours'
/// side of any conflict): a resource of ours found in it under ours' or theirs' identity is
/// updated if its data changed and moved if ours had it in another file; one not found is
/// deleted; one ours did not have is added. `None` when the merged text cannot be read.
fn tally(
    pkg: &Package,
    groups: &[Group],
    path: PathId,
    versions: &[Version; 3],
    merged: &Merged,
    marker_size: usize,
) -> Option<(ResourceCounts, Vec<Identity>)> {
    // A result that is one of the versions verbatim was parsed already.
    let known = versions
        .iter()
        .find(|v| v.parsed.is_some() && v.text.as_bytes() == merged.bytes.as_slice())
        .and_then(|v| v.parsed);
    let text;
    let own;
    let tree: &Tree = match known {
        Some(f) => &pkg.parsed[f].tree,
        None => {
            let bytes = std::str::from_utf8(&merged.bytes).ok()?;
            text = if merged.conflicted {
                let [ours, _] = markers::sides(bytes, marker_size);
                ours
            } else {
                bytes.to_string()
            };
            own = parse::parse(&text).ok()?;
            &own
        }
    };
    let docs = resource::documents(tree);
    let mut used = vec![false; docs.len()];
    let mut by_identity: HashMap<&Identity, Vec<usize>> = HashMap::new();
    for (i, (_, id)) in docs.iter().enumerate() {
        if let Some(id) = id {
            by_identity.entry(id).or_default().push(i);
        }
    }
    let mut counts = ResourceCounts::default();
    let mut plain = docs
        .iter()
        .enumerate()
        .filter(|(_, (_, id))| id.is_none())
        .map(|(i, _)| i);
    for &g in &versions[OURS].groups {
        let Some(loc) = groups[g].locs[OURS] else {
            continue;
        };
        let (ours_tree, ours_doc) = pkg.doc(OURS, loc);
        let names: Vec<Identity> = [OURS, THEIRS]
            .iter()
            .filter_map(|&side| {
                let l = groups[g].locs[side]?;
                pkg.file(side, l.path)?.docs[l.pos].1.clone()
            })
            .collect();
        let found = if names.is_empty() {
            plain.next()
        } else {
            names
                .iter()
                .filter_map(|n| by_identity.get(n))
                .flatten()
                .copied()
                .find(|&i| !used[i])
        };
        match found {
            Some(i) => {
                used[i] = true;
                let changed = !parse::same_data(ours_tree, ours_doc.root, tree, docs[i].0.root);
                counts.updated += usize::from(changed);
                counts.moved += usize::from(loc.path != path);
            }
            None => counts.deleted += 1,
        }
    }
    counts.added = used.iter().filter(|u| !**u).count();
    let identities = docs.into_iter().filter_map(|(_, id)| id).collect();
    Some((counts, identities))
}

/// Whether the file merge, given these three texts, pairs their documents into the same
/// resources as the package did, or differs only by a rename inside this file that the
/// package left unpaired (see [`renamed_here`]).
fn pairs_alike(pkg: &Package, groups: &[Group], path: PathId, versions: &[Version; 3]) -> bool {
    let own: Vec<Option<Tree>> = versions
        .iter()
        .map(|v| match v.parsed {
            Some(_) => None,
            None => parse::parse(&v.text).ok(),
        })
        .collect();
    let mut trees: Vec<&Tree> = Vec::with_capacity(3);
    for (v, t) in versions.iter().zip(&own) {
        match (v.parsed, t) {
            (Some(f), _) => trees.push(&pkg.parsed[f].tree),
            (None, Some(t)) => trees.push(t),
            (None, None) => return false,
        }
    }
    // Each assembled document must read back as one document: the group of each document
    // (by its index in the tree) is then the version's group at the same position.
    let mut group_of: Vec<HashMap<usize, usize>> = Vec::with_capacity(3);
    for (tree, version) in trees.iter().zip(versions.iter()) {
        let docs = resource::documents(tree);
        if docs.len() != version.groups.len() {
            return false;
        }
        group_of.push(
            docs.iter()
                .zip(&version.groups)
                .map(|((d, _), &g)| (d.doc, g))
                .collect(),
        );
    }
    let Ok(found) = crate::align::match_documents(trees[0], trees[1], trees[2], false) else {
        return false;
    };
    let present: Vec<HashSet<usize>> = versions
        .iter()
        .map(|v| v.groups.iter().copied().collect())
        .collect();
    found.iter().all(|f| {
        let sides = [f.base, f.ours, f.theirs];
        let mine: Vec<Option<usize>> = (0..3)
            .map(|s| sides[s].and_then(|d| group_of[s].get(&d.doc).copied()))
            .collect();
        let Some(g) = mine.iter().flatten().next().copied() else {
            return false;
        };
        if renamed_here(pkg, groups, path, &mine) {
            return true;
        }
        (0..3).all(|s| match sides[s] {
            Some(_) => mine[s] == Some(g),
            None => !present[s].contains(&g),
        })
    })
}

/// Whether the file merge's triple of groups `mine` (per side) is a rename by one side inside
/// this file that the package left unpaired: base's resource (kept by the other side here,
/// or deleted by it) and the side's new one, neither found anywhere else in the side's or the
/// other side's package, one identity part apart and alike in content. The package reads
/// renames by elimination across every file, so a lost resource elsewhere (one a side
/// deleted or renamed in another file) leaves it undecided; merged one by one, the rename
/// becomes a deletion beside an addition, and taking the other side's part of the conflict
/// loses the rename. Inside the file it is the only reading: the file merge's pairing stands.
fn renamed_here(pkg: &Package, groups: &[Group], path: PathId, mine: &[Option<usize>]) -> bool {
    let (Some(old), Some(b)) = (mine[BASE], mine[BASE].and_then(|g| groups[g].locs[BASE])) else {
        return false;
    };
    [(OURS, THEIRS), (THEIRS, OURS)]
        .into_iter()
        .any(|(side, other)| {
            let Some(new) = mine[side].filter(|&n| n != old) else {
                return false;
            };
            let (o, n) = (&groups[old], &groups[new]);
            let Some(d) = n.locs[side] else {
                return false;
            };
            let here = |l: Option<super::pairing::Loc>| l.is_none_or(|l| l.path == path);
            let (bt, bd) = pkg.doc(BASE, b);
            let (st, sd) = pkg.doc(side, d);
            o.locs[side].is_none()
                && n.locs[BASE].is_none()
                && n.locs[other].is_none()
                && mine[other].is_none_or(|g| g == old)
                && here(o.locs[other])
                && d.path == path
                && crate::align::close_identities(o.identity.as_ref(), n.identity.as_ref(), false)
                && crate::align::similar(bt, bd.root, st, sd.root)
        })
}

/// Each resource of the file merged alone, the results joined in the file's order.
fn one_by_one(
    pkg: &Package,
    groups: &[Group],
    order: &[usize],
    opts: &MergeOptions,
) -> anyhow::Result<Merged> {
    let mut out = Merged::default();
    let mut eol = "\n";
    let mut pieces = Vec::new();
    for &g in order {
        let texts = [BASE, OURS, THEIRS].map(|side| {
            groups[g].locs[side].map_or("", |loc| {
                eol = pkg.doc(side, loc).0.eol;
                piece(pkg, side, loc).text
            })
        });
        let merged = merge_texts(
            texts[BASE].as_bytes(),
            texts[OURS].as_bytes(),
            texts[THEIRS].as_bytes(),
            opts,
        )?;
        out.conflicted |= merged.conflicted;
        pieces.push((texts, merged));
    }
    let mut parts = Vec::new();
    for (texts, merged) in pieces {
        let merged = match out.conflicted && decided_away(&texts, &merged) {
            true => marked_piece(texts, opts)?,
            false => merged,
        };
        out.messages.extend(merged.messages);
        parts.push(merged.bytes);
    }
    out.bytes = join(parts, eol);
    Ok(out)
}

/// Whether a policy dropped a resource whole that a side changed (a delete/modify it
/// decided for the deleting side). The file is merged one by one only where the package
/// paired its resources otherwise than the file merge would: which version of a resource is
/// base's renamed, and so whether a side deleted it at all, is one reading of two there
/// (adversary packages-ours-1212-379: ours renamed a Task, theirs renamed it alike and kept
/// a renamed copy; the package paired the two new names and read ours as deleting base's
/// Task, so ours' policy dropped theirs' copy, and taking theirs' side of the file's
/// conflicts lost it).
fn decided_away(texts: &[&str; 3], merged: &Merged) -> bool {
    let held_by = |side: usize| has_data(texts[side].as_bytes());
    let changed_by = |side: usize| held_by(side) && texts[side] != texts[BASE];
    !merged.conflicted
        && held_by(BASE)
        && !has_data(&merged.bytes)
        && (changed_by(OURS) || changed_by(THEIRS))
}

/// A resource a policy dropped ([`decided_away`]) in a file conflicted anyway: its
/// delete/modify marked as mark mode marks it, so that taking the changing side of the
/// file's conflicts keeps the resource (the conflict widened to the resource, rather than a
/// pairing chosen between the two readings; issue 29's alignment will pair them).
fn marked_piece(texts: [&str; 3], opts: &MergeOptions) -> anyhow::Result<Merged> {
    let mark = MergeOptions {
        policy: Policy::Mark,
        ..opts.clone()
    };
    let mut merged = merge_texts(
        texts[BASE].as_bytes(),
        texts[OURS].as_bytes(),
        texts[THEIRS].as_bytes(),
        &mark,
    )?;
    merged.messages.insert(
        0,
        "a resource the policy dropped whole where the package and the file merge pair the resources apart, in a file conflicted anyway: its delete/modify marked, so that either side holds".into(),
    );
    Ok(merged)
}

/// Documents joined into one file: each that holds anything, a `---` between them.
fn join(parts: Vec<Vec<u8>>, eol: &str) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    for part in parts.into_iter().filter(|p| has_text(p)) {
        if !out.is_empty() {
            if !out.ends_with(b"\n") {
                out.extend_from_slice(eol.as_bytes());
            }
            if !opens_with_separator(&part) {
                out.extend_from_slice(b"---");
                out.extend_from_slice(eol.as_bytes());
            }
            let part = part.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&part);
            out.extend_from_slice(part);
        } else {
            out.extend_from_slice(&part);
        }
    }
    out
}

/// Lines other than blank lines and comments.
fn has_text(bytes: &[u8]) -> bool {
    content_lines(bytes).next().is_some()
}

/// Whether a merged document's first line of content is its `---`.
fn opens_with_separator(bytes: &[u8]) -> bool {
    content_lines(bytes)
        .next()
        .is_some_and(|l| l.starts_with(b"---") && is_marker(l))
}

/// A file's data: anything but blank lines, comments and document markers.
pub(crate) fn has_data(bytes: &[u8]) -> bool {
    content_lines(bytes).any(|l| !is_marker(l))
}

/// `---` (with nothing after it but a comment) or `...`: a document marker, no data.
fn is_marker(line: &[u8]) -> bool {
    if line == b"..." {
        return true;
    }
    let Some(rest) = line.strip_prefix(b"---") else {
        return false;
    };
    let rest = rest.trim_ascii();
    rest.is_empty() || rest.starts_with(b"#")
}

/// The lines that are not blank and not comments, trimmed.
fn content_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes
        .split(|&b| b == b'\n')
        .map(|l| {
            let l = l.strip_prefix("\u{feff}".as_bytes()).unwrap_or(l);
            l.trim_ascii()
        })
        .filter(|l| !l.is_empty() && !l.starts_with(b"#"))
}

/// The merged bytes of one unit.
#[derive(Debug, Default)]
struct Merged {
    bytes: Vec<u8>,
    conflicted: bool,
    messages: Vec<Message>,
}

/// The cases git settles without calling a merge driver: a side that changed nothing takes
/// the other whole, and two sides that agree are the answer. Under `--on-conflict theirs`
/// not where every version holds the file and the result would hold a null: kpt's update
/// runs every resource the three versions hold through kyaml's field merge, which removes a
/// field a side set to null even where the other side changed nothing (the file mode's
/// `merge3` does so too), while a resource a side lacks is kept, taken or dropped whole.
fn settled(base: &[u8], ours: &[u8], theirs: &[u8], opts: &MergeOptions) -> Option<Merged> {
    let bytes = sides::settled(base, ours, theirs)?.pick(ours, theirs);
    let all_held = [base, ours, theirs].iter().all(|t| !t.is_empty());
    if opts.policy == Policy::Theirs && all_held && holds_null(bytes) {
        return None;
    }
    Some(Merged {
        bytes: bytes.to_vec(),
        ..Merged::default()
    })
}

/// Whether a YAML text holds a null value; text that does not parse is left to the file
/// merge too, which says why it falls back.
fn holds_null(bytes: &[u8]) -> bool {
    let Some(tree) = std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| parse::parse(text).ok())
    else {
        return true;
    };
    (0..tree.nodes.len()).any(|n| tree.is_null(n))
}

/// The file merge, after the cases git settles without a driver ([`settled`]).
fn merge_texts(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
) -> anyhow::Result<Merged> {
    if let Some(merged) = settled(base, ours, theirs, opts) {
        return Ok(merged);
    }
    let outcome = driver::merge_bytes(base, ours, theirs, opts).context("merging")?;
    Ok(Merged {
        bytes: outcome.bytes,
        conflicted: outcome.conflicted,
        messages: outcome.messages,
    })
}

/// The mode of the file at `path` after the merge: the side that changed it wins, ours where
/// both did; `None` where no version has the file.
fn merged_mode(pkg: &Package, path: PathId) -> Option<FileMode> {
    let modes = pkg.entries(path).map(|e| e.map(|e| e.mode));
    let [b, o, t] = modes;
    if let (Some(_), Some(_)) = (o, t) {
        if let Some(side) = sides::settled(&b, &o, &t) {
            return side.pick(o, t);
        }
    }
    match (o, t) {
        (Some(o), _) => Some(o),
        (None, t) => t.or(b),
    }
}

/// What a [`PathKind::Settled`] file's merge did to ours' resources, as [`tally`] reads it
/// from a parsed file: where theirs' file is the result, each resource whose data theirs
/// changed is updated. Nothing where ours' file is the result, or where a version does not
/// parse or repeats an identity (the file is then merged whole, uncounted).
pub(crate) fn settled_counts(pkg: &Package, path: PathId) -> ResourceCounts {
    let mut counts = ResourceCounts::default();
    let [Some(b), Some(o), Some(t)] = pkg.sides.map(|s| s.files.get(pkg.paths[path])) else {
        return counts;
    };
    if sides::settled(&b.bytes, &o.bytes, &t.bytes) == Some(Side::Ours) {
        return counts;
    }
    fn parse(bytes: &[u8]) -> Option<Tree<'_>> {
        let tree = parse::parse(std::str::from_utf8(bytes).ok()?).ok()?;
        resource::duplicate_identities(&tree)
            .is_empty()
            .then_some(tree)
    }
    // Base's text is ours'.
    let (Some(ours), Some(theirs)) = (parse(&o.bytes), parse(&t.bytes)) else {
        return counts;
    };
    let theirs_docs = resource::documents(&theirs);
    let mut by_identity: HashMap<&Identity, usize> = HashMap::new();
    for (i, (_, id)) in theirs_docs.iter().enumerate() {
        if let Some(id) = id {
            by_identity.insert(id, i);
        }
    }
    let mut used = vec![false; theirs_docs.len()];
    for (doc, id) in resource::documents(&ours) {
        match id.as_ref().and_then(|id| by_identity.get(id)) {
            Some(&i) => {
                used[i] = true;
                let same = parse::same_data(&ours, doc.root, &theirs, theirs_docs[i].0.root);
                counts.updated += usize::from(!same);
            }
            None => counts.deleted += 1,
        }
    }
    counts.added = used.iter().filter(|u| !**u).count();
    counts
}

/// A file of resources the package could not take apart (its changed version repeats an
/// identity) that one side deleted and the other changed, merged document by document: a
/// resource the changing side added stays (kyaml keeps a resource only one side has), one it
/// left as base had it goes with the deletion, and one it changed is the deletion against a
/// change: marked (the changed document against nothing), or the policy's side. Taken whole,
/// the changed file lost the deleting side's deletions, and deleted under `theirs` it lost the
/// other side's own resources (adversary packages-theirs-1137-1831, made small). The kept
/// version's documents are named as the parser reads them, as the package names resources: a
/// document whose name a side nulled or dropped (two such documents of a kind share one
/// identity, which keeps the path whole) is a resource base does not have, as it is to kyaml,
/// and not the base document it may have been. Scanned for certain names, such a version was
/// kept whole, and ours' side of the conflict brought back the resources ours left alone that
/// theirs deleted (adversary packages-mark-1153-132). `None` where a document cannot be named
/// for certain (a base one by the scan, a kept one with no identity), or where the deleting
/// side holds one of the kept version's resources in another file (it moved it: pairing that
/// across files is the package's resource pairing, which a path kept whole stands outside):
/// the path is merged as before.
fn by_documents_against_deleted(
    cb: Option<&[u8]>,
    co: Option<&[u8]>,
    ct: Option<&[u8]>,
    pkg: &Package,
    deleter: usize,
    mode: FileMode,
    opts: &MergeOptions,
) -> Option<FileOutcome> {
    let (kept_side, kept) = match (co, ct) {
        (Some(o), None) => (Side::Ours, o),
        (None, Some(t)) => (Side::Theirs, t),
        _ => return None,
    };
    fn text(bytes: &[u8]) -> Option<&str> {
        std::str::from_utf8(bytes).ok()
    }
    let (base, kept) = (split::named(text(cb?)?)?, text(kept)?);
    // Ours' or theirs' repeated identity is what keeps the path whole; other whole YAML
    // (a template, plain YAML) stays with the rules below.
    let tree = parse::parse(kept).ok()?;
    if resource::duplicate_identities(&tree).is_empty() {
        return None;
    }
    let mut ids = resource::documents(&tree).into_iter().map(|(_, id)| id);
    let mut pieces = Vec::new();
    for (i, piece) in split::cut(kept)?.into_iter().enumerate() {
        let name = match split::name_of(piece) {
            Some(Name::Comments) if i == 0 => Name::Comments,
            _ => Name::Resource(ids.next()??),
        };
        pieces.push(split::Piece { text: piece, name });
    }
    if ids.next().is_some() {
        return None;
    }
    let kept = pieces;
    // Where the policy keeps the changed file's side the renamed document needs no reading:
    // that side keeps it, and under theirs kyaml's rules, by identity, keep what only ours has
    // (the oracle accepts either). Under `ours` against theirs' changed file it does: read as
    // theirs' new resource, base's document ours deleted came back under theirs' new name
    // (adversary packages-mark-1241-79 under `ours`).
    let renamed = match (opts.policy, kept_side) {
        (Policy::Mark, _) | (Policy::Ours, Side::Theirs) => {
            renamed_documents(&parse::parse(text(cb?)?).ok()?, &tree)?
        }
        (Policy::Ours, Side::Ours) | (Policy::Theirs, _) => HashMap::new(),
    };
    // The deleting side's resources in every YAML file: as the package read them where it
    // parsed the file, else (a file it keeps whole) read here.
    let mut elsewhere: HashSet<Identity> = HashSet::new();
    for (p, path) in pkg.paths.iter().enumerate() {
        match (pkg.file(deleter, p), pkg.sides[deleter].files.get(*path)) {
            (Some(file), _) => elsewhere.extend(file.docs.iter().filter_map(|(_, id)| id.clone())),
            (None, Some(entry)) if is_yaml_name(path) => {
                let Some(tree) = text(&entry.bytes).and_then(|t| parse::parse(t).ok()) else {
                    continue;
                };
                elsewhere.extend(
                    resource::documents(&tree)
                        .into_iter()
                        .filter_map(|(_, id)| id),
                );
            }
            _ => {}
        }
    }
    if kept
        .iter()
        .any(|p| matches!(&p.name, Name::Resource(id) if elsewhere.contains(id)))
    {
        return None;
    }
    // A document's text without the `---` line that may open it.
    fn body(piece: &str) -> &str {
        match piece.starts_with("---") {
            true => piece.split_once('\n').map_or("", |(_, rest)| rest),
            false => piece,
        }
        .trim_end()
    }
    let markers = written_markers(opts, text(kept_side.pick(co, ct)?)?);
    let (mut out, mut conflicts, mut resources) = (String::new(), Vec::new(), 0);
    let mut documents = 0..;
    for piece in &kept {
        let Name::Resource(id) = &piece.name else {
            out.push_str(piece.text);
            continue;
        };
        // A document read as base's renamed is a change of base's: held against base's text.
        let was = match documents.next().and_then(|d| renamed.get(&d)) {
            Some(base_id) => Name::Resource(base_id.clone()),
            None => piece.name.clone(),
        };
        let in_base: Vec<&str> = base
            .iter()
            .filter(|b| b.name == was)
            .map(|b| b.text)
            .collect();
        if in_base.is_empty() && was != piece.name {
            return None; // base's document is one the scan named otherwise
        }
        if in_base.is_empty() {
            out.push_str(piece.text);
            resources += 1;
            continue;
        }
        if in_base.iter().any(|b| body(b) == body(piece.text)) {
            continue; // left as base had it: deleted with the file
        }
        let winner = match opts.policy {
            Policy::Mark => None,
            Policy::Ours => Some(Side::Ours),
            Policy::Theirs => Some(Side::Theirs),
        };
        match winner {
            Some(side) if side == kept_side => {
                out.push_str(piece.text);
                resources += 1;
            }
            Some(_) => {}
            None => {
                let [o, t] = match kept_side {
                    Side::Ours => [piece.text, ""],
                    Side::Theirs => ["", piece.text],
                };
                out.push_str(&markers.wrap(o, in_base[0], t));
                let (changer, deleter) = match kept_side {
                    Side::Ours => ("ours", "theirs"),
                    Side::Theirs => ("theirs", "ours"),
                };
                conflicts.push(Message::Conflict(format!(
                    "conflict in {id} at (document): {deleter} deleted the file, {changer} changed it"
                )));
            }
        }
    }
    let conflicted = !conflicts.is_empty();
    let mut messages = conflicts;
    messages.insert(
        0,
        Message::Note(
            "a file one side deleted and the other changed, which repeats an identity: merged document by document".into(),
        ),
    );
    Some(FileOutcome {
        entry: (resources > 0 || conflicted).then(|| Entry {
            bytes: out.into_bytes(),
            mode,
        }),
        conflicted,
        messages,
        ..FileOutcome::default()
    })
}

/// The documents of `kept` (by their place among its resources) that are base's documents
/// renamed, each with base's identity: of a base document gone by identity, the document new
/// by identity, of its kind, that is [`crate::align::similar`] to it and more alike to it
/// ([`crate::align::likeness`]) than any other such document. A document without a name is
/// not a rename: it is a resource base does not have, as the package names them (see
/// [`by_documents_against_deleted`]). Read as new, such a rename came
/// back clean against the side that deleted the file: ours renamed the Ingress of a file
/// theirs deleted and added a second one under the new name (adversary packages-mark-1149-87),
/// and both were kept as ours' additions; a conflict holding both would drop ours' addition
/// from the deleting side. `None` where two new documents are alike to a gone one as closely,
/// or one is the closest to two gone ones: which was renamed is then for pairing to say
/// (issue 29), and the deletion meets the change of the whole file.
fn renamed_documents(base: &Tree, kept: &Tree) -> Option<HashMap<usize, Identity>> {
    let base_docs = resource::documents(base);
    // Numbered among the resources, as the caller counts the pieces it names.
    let kept_docs: Vec<_> = resource::documents(kept)
        .into_iter()
        .filter(|(_, id)| id.is_some())
        .collect();
    let in_base: HashSet<&Identity> = base_docs.iter().filter_map(|(_, id)| id.as_ref()).collect();
    let in_kept: HashSet<&Identity> = kept_docs.iter().filter_map(|(_, id)| id.as_ref()).collect();
    let mut renamed: HashMap<usize, Identity> = HashMap::new();
    for (bd, bid) in &base_docs {
        let Some(bid) = bid.as_ref().filter(|id| !in_kept.contains(id)) else {
            continue;
        };
        let mut alike: Vec<(f64, usize)> = kept_docs
            .iter()
            .enumerate()
            .filter(|(_, (kd, kid))| {
                kid.as_ref()
                    .is_some_and(|kid| !kid.name.is_empty() && !in_base.contains(kid))
                    && crate::align::close_identities(Some(bid), kid.as_ref(), false)
                    && crate::align::similar(base, bd.root, kept, kd.root)
            })
            .map(|(i, (kd, _))| (crate::align::likeness(base, bd.root, kept, kd.root), i))
            .collect();
        alike.sort_by(|a, b| b.0.total_cmp(&a.0));
        match alike.as_slice() {
            [] => {}
            [(best, i), rest @ ..] => {
                // Documents alike as closely that are equal as data are one answer whichever
                // is read as the rename (adversary packages-mark-1291-7787: theirs renamed the
                // Ingress of a file ours deleted and repeated it; read as a tie, the file was
                // kept whole as theirs', and taking ours kept what ours deleted).
                let same = |j: &usize| {
                    let root = |k: usize| kept_docs[k].0.root;
                    crate::parse::same_data(kept, root(*i), kept, root(*j))
                };
                let clear = rest.iter().all(|(next, j)| next < best || same(j));
                if !clear || renamed.insert(*i, bid.clone()).is_some() {
                    return None;
                }
            }
        }
    }
    Some(renamed)
}

/// Merges a path that is not taken apart into resources: the file merge for YAML it cannot
/// pair, git's line merge for other text; a binary file or a link is taken from the side that
/// changed it, and is a conflict (ours kept) when both did. A file one side deleted and the
/// other changed is a conflict too; the changed version stays, as git leaves it.
pub(crate) fn merge_path(
    pkg: &Package,
    path: PathId,
    opts: &MergeOptions,
) -> anyhow::Result<FileOutcome> {
    let [b, o, t] = pkg.entries(path);
    let settled = |entry: Option<&Entry>| FileOutcome {
        entry: entry.cloned(),
        ..FileOutcome::default()
    };
    if let Some(side) = sides::settled(&b, &o, &t) {
        return Ok(settled(side.pick(o, t)));
    }
    // Both entries changed; perhaps one only in content and the other only in mode.
    let mode = merged_mode(pkg, path).unwrap_or(FileMode::Regular);
    let [cb, co, ct] = [b, o, t].map(|e| e.map(|e| e.bytes.as_slice()));
    let take = |content: Option<&[u8]>| FileOutcome {
        entry: content.map(|bytes| Entry {
            bytes: bytes.to_vec(),
            mode,
        }),
        ..FileOutcome::default()
    };
    if co == ct || cb == ct {
        return Ok(take(co));
    }
    if cb == co {
        return Ok(take(ct));
    }
    let conflict = |entry: Option<&Entry>, why: &str| FileOutcome {
        entry: entry.cloned(),
        conflicted: true,
        messages: vec![Message::Conflict(format!("conflict: {why}"))],
        ..FileOutcome::default()
    };
    let (Some(ours), Some(theirs)) = (o, t) else {
        let deleter = match o {
            Some(_) => THEIRS,
            None => OURS,
        };
        if let Some(out) = by_documents_against_deleted(cb, co, ct, pkg, deleter, mode, opts) {
            return Ok(out);
        }
        // A deletion against a change is no conflict under `theirs`: theirs' state of the
        // file stands (kyaml deletes what upstream deleted and brings back what upstream
        // changed). Under `ours` the resources the other side added or changed would go with
        // (or come back against) ours' choice: a conflict, as in mark mode.
        let took = |entry: Option<&Entry>, why: &str| FileOutcome {
            entry: entry.cloned(),
            messages: vec![why.into()],
            ..FileOutcome::default()
        };
        return Ok(match (o, opts.policy) {
            (Some(_), Policy::Theirs) => took(
                t,
                "theirs deleted the file, ours changed it: deleted (--on-conflict theirs)",
            ),
            (None, Policy::Theirs) => took(
                t,
                "ours deleted the file, theirs changed it: theirs' taken (--on-conflict theirs)",
            ),
            (Some(_), _) => conflict(o, "theirs deleted the file, ours changed it: ours kept"),
            (None, _) => conflict(t, "ours deleted the file, theirs changed it: theirs kept"),
        });
    };
    let base = cb.unwrap_or_default();
    let links = [b, o, t]
        .iter()
        .flatten()
        .any(|e| e.mode == FileMode::Symlink);
    if links {
        return Ok(conflict(o, "a link both sides changed: ours kept"));
    }
    if [base, &ours.bytes, &theirs.bytes]
        .into_iter()
        .any(is_binary)
    {
        return Ok(conflict(o, "a binary file both sides changed: ours kept"));
    }
    let (bytes, conflicted, messages) = if pkg.kinds[path] == PathKind::WholeYaml {
        let out = driver::merge_bytes(base, &ours.bytes, &theirs.bytes, opts).context("merging")?;
        (out.bytes, out.conflicted, out.messages)
    } else {
        let out = line_merge(base, &ours.bytes, &theirs.bytes, opts)?;
        let messages = if out.conflicted {
            vec![Message::Conflict(
                "conflict: marked by git's line merge (not YAML)".to_string(),
            )]
        } else {
            Vec::new()
        };
        (out.bytes, out.conflicted, messages)
    };
    Ok(FileOutcome {
        entry: Some(Entry { bytes, mode }),
        conflicted,
        messages,
        ..FileOutcome::default()
    })
}
