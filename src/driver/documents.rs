//! A multi-document file merged document by document where that is the same merge: most of
//! a large manifest is the same text in two of its versions. A document whose text base and
//! theirs share keeps ours' bytes, one base and ours share takes theirs' bytes (and one both
//! sides changed alike stays ours'); only the documents both sides changed are parsed and
//! merged, as one smaller file. Nothing else is parsed: the documents are cut at their `---`
//! lines and named by a strict scan ([`crate::split`]).
//!
//! Git's line merge, too, runs on the smaller file only (the driver's merge of it starts with
//! git's, as any merge does): in git's merge of the whole file a document one side left alone
//! is a hunk of the other side's, taken as it is. Running that merge over the whole file
//! would cost more memory than all the rest (xdiff holds every line of the three versions
//! twice) and a third of the time, to confirm what the documents already say.
//!
//! The shortcut stands aside (the caller merges the whole file) wherever it could differ from
//! the whole merge: outside `mark` mode (kyaml's rules walk documents theirs left alone),
//! where a document cannot be named for certain, where a name repeats, where documents both
//! sides changed do not line up one to one by name (a document moved on one side and edited
//! on the other, or added by both), and where the smaller file's merge falls back to git's
//! line merge or keeps git's markers (whether the whole file would is the whole merge's call).

use std::collections::HashSet;

use crate::options::{MergeOptions, Mode, Policy};
use crate::sides::settled;
use crate::split::{cut, split, Name, Piece};
use crate::text::{diff3, Chunk};

use super::by_structure;
use crate::outcome::{Attempt, Outcome};

/// One document of the result: a version's text, or the `n`th document both sides changed.
enum Part<'a> {
    Text(&'a str),
    Merged(usize),
}

/// The merge done document by document, or `None` where that could differ from merging the
/// whole file (see the module's doc).
pub(crate) fn by_documents(
    base: &str,
    ours: &str,
    theirs: &str,
    opts: &MergeOptions,
) -> Option<Result<Outcome, Attempt>> {
    if opts.policy != Policy::Mark || opts.mode != Mode::ThreeWay {
        return None;
    }
    let (b, o, t) = (split(base)?, split(ours)?, split(theirs)?);
    let (parts, both) = parts(&b, &o, &t)?;
    let merged = match both.is_empty() {
        true => None,
        false => {
            let join = |i: usize| -> Option<String> {
                let pieces: Vec<&str> = both.iter().map(|triple| triple[i]).collect();
                joined(&pieces)
            };
            let (rb, ro, rt) = (join(0)?, join(1)?, join(2)?);
            match by_structure(&rb, &ro, &rt, opts) {
                // The smaller file kept git's markers; whether the whole file would is its
                // call.
                Ok(outcome) if outcome.git_markers_kept => return None,
                Ok(outcome) if outcome.fallback.is_none() => Some(outcome),
                Ok(_) | Err(Attempt::Refused(_)) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    };
    let merged_pieces = match &merged {
        Some(m) => {
            let text = std::str::from_utf8(&m.bytes).ok()?;
            let pieces = cut(text)?;
            if pieces.len() != both.len() {
                return None;
            }
            pieces
        }
        None => Vec::new(),
    };
    let texts: Vec<&str> = parts
        .iter()
        .map(|p| match p {
            Part::Text(text) => text,
            Part::Merged(n) => merged_pieces[*n],
        })
        .collect();
    let text = joined(&texts)?;
    let (conflicted, messages, resolved_hunks) = match merged {
        Some(m) => (m.conflicted, m.messages, m.resolved_hunks),
        None => (false, Vec::new(), 0),
    };
    Some(Ok(Outcome {
        bytes: text.into_bytes(),
        conflicted,
        fallback: None,
        messages,
        resolved_hunks,
        git_markers_kept: false,
    }))
}

/// The result's documents in order, and the documents both sides changed (base's, ours',
/// theirs'); `None` where those do not line up one to one by name, or a name would repeat.
#[allow(clippy::type_complexity)]
fn parts<'a>(
    b: &[Piece<'a>],
    o: &[Piece<'a>],
    t: &[Piece<'a>],
) -> Option<(Vec<Part<'a>>, Vec<[&'a str; 3]>)> {
    let texts = |p: &[Piece<'a>]| p.iter().map(|p| p.text).collect::<Vec<&str>>();
    let mut parts = Vec::new();
    let mut both = Vec::new();
    let mut names = HashSet::new();
    let in_base: HashSet<&Name> = b.iter().map(|p| &p.name).collect();
    let take = |parts: &mut Vec<Part<'a>>, names: &mut HashSet<Name>, p: &Piece<'a>| {
        parts.push(Part::Text(p.text));
        names.insert(p.name.clone())
    };
    for chunk in diff3(&texts(b), &texts(o), &texts(t)) {
        match chunk {
            Chunk::Same { ours } | Chunk::Ours { ours } | Chunk::Both { ours, .. } => {
                for p in &o[ours] {
                    if !take(&mut parts, &mut names, p) {
                        return None;
                    }
                }
            }
            Chunk::Theirs {
                base: br,
                theirs: tr,
                ..
            } => {
                // A document theirs moved here from elsewhere stays where ours has it in the
                // whole merge: no shortcut.
                let replaced: HashSet<&Name> = b[br].iter().map(|p| &p.name).collect();
                for p in &t[tr] {
                    let moved = in_base.contains(&p.name) && !replaced.contains(&p.name);
                    if moved || !take(&mut parts, &mut names, p) {
                        return None;
                    }
                }
            }
            Chunk::Conflict {
                base: br,
                ours: or,
                theirs: tr,
            } => {
                if br.len() != or.len() || or.len() != tr.len() {
                    return None;
                }
                for ((pb, po), pt) in b[br].iter().zip(&o[or]).zip(&t[tr]) {
                    let name: &Name = &po.name;
                    if pb.name != *name || pt.name != *name || !names.insert(name.clone()) {
                        return None;
                    }
                    // The chunk is where both sides changed something, not each document: one
                    // side may have left this one alone.
                    match settled(pb.text, po.text, pt.text) {
                        Some(side) => parts.push(Part::Text(side.pick(po.text, pt.text))),
                        None => {
                            parts.push(Part::Merged(both.len()));
                            both.push([pb.text, po.text, pt.text]);
                        }
                    }
                }
            }
        }
    }
    Some((parts, both))
}

/// Documents joined into one file: every one after the first opens with its `---` line and
/// every one before the last ends its last line; `None` where they do not.
fn joined(pieces: &[&str]) -> Option<String> {
    let n = pieces.len();
    let fits = pieces
        .iter()
        .enumerate()
        .all(|(i, p)| (i == 0 || p.starts_with("---")) && (i + 1 == n || p.ends_with('\n')));
    fits.then(|| pieces.concat())
}
