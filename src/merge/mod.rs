//! The 3-way merge rules (seeds 000/004) applied to the parsed resources of base, ours and
//! theirs, producing ours' text with the merged changes and a list of conflicts.

mod diff3;
mod fields;
mod lists;
mod merger;
mod patch;
mod path;
mod resources;
mod strings;

use std::collections::{HashMap, HashSet};

use anyhow::{bail, Context, Result};

use crate::{parse, render, resource};
use merger::Merger;

/// What to do where ours and theirs both changed the same thing differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Keep both versions between conflict markers (the default).
    Mark,
    /// Take theirs, exactly as kyaml's merge3 does (updated wins).
    Theirs,
    /// Keep ours (local wins).
    Ours,
}

/// Git's `merge.conflictStyle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConflictStyle {
    /// `<<<<<<<` ours `=======` theirs `>>>>>>>`.
    Merge,
    /// Adds the `|||||||` base section.
    Diff3,
    /// diff3 with common lines moved out of the conflict (git's zdiff3); structural
    /// conflicts are already minimal, so only the line fallback treats it differently.
    ZDiff3,
}

/// The labels printed after the conflict markers, as git prints them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labels {
    pub base: String,
    pub ours: String,
    pub theirs: String,
}

impl Default for Labels {
    fn default() -> Self {
        Labels {
            base: "base".into(),
            ours: "ours".into(),
            theirs: "theirs".into(),
        }
    }
}

/// Everything that shapes a merge besides the three texts.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    pub policy: Policy,
    /// Length of the `<<<<<<<` markers (git's `%L`, default 7).
    pub marker_size: usize,
    /// Git's conflict style: whether markers carry the `|||||||` base section.
    pub style: ConflictStyle,
    pub labels: Labels,
    /// A 3-way merge, or merge2: a patch (theirs) applied onto ours with no base.
    pub mode: Mode,
    /// The largest version (in bytes) merged by structure; a larger one goes to the line
    /// merge, which stays fast on any size. It bounds time and memory on hostile input.
    pub max_size: usize,
}

/// Which merge the rules serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// merge3: theirs' changes since base, merged into ours.
    ThreeWay,
    /// merge2 (seeds 002/003): theirs is a sparse patch laid onto ours; its fields win, its
    /// nulls clear, `$patch` directives delete or replace, and its new list elements go
    /// after ours' (or before them, with `prepend`).
    TwoWay { prepend: bool },
}

/// 32 MiB: several times the largest real manifest bundles, a few seconds of parsing.
pub const DEFAULT_MAX_SIZE: usize = 32 << 20;

impl Default for MergeOptions {
    fn default() -> Self {
        MergeOptions {
            policy: Policy::Mark,
            marker_size: 7,
            style: ConflictStyle::Merge,
            labels: Labels::default(),
            mode: Mode::ThreeWay,
            max_size: DEFAULT_MAX_SIZE,
        }
    }
}

/// One field both sides changed differently, for the one-line stderr summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The resource, e.g. `apps/Deployment shop/web`.
    pub resource: String,
    /// The field path, e.g. `spec.template.spec.containers[name=web].image`.
    pub path: String,
    /// What each side did, e.g. `ours changed 3 → 5, theirs changed 3 → 4`.
    pub what: String,
}

/// The structural result: the merged text and the conflicts marked in it.
#[derive(Clone, Debug)]
pub struct Merged {
    pub text: String,
    pub conflicts: Vec<Conflict>,
}

/// The three versions of a file, parsed once for both the line-merge check and the
/// structural merge.
pub struct Versions<'a> {
    base: parse::Tree<'a>,
    ours: parse::Tree<'a>,
    theirs: parse::Tree<'a>,
}

impl<'a> Versions<'a> {
    /// Parses base, ours and theirs. Errors mean "not YAML kmerge can merge" (a Helm
    /// template, a syntax error, tab indentation, duplicate keys) and say which version and
    /// where.
    pub fn parse(base: &'a str, ours: &'a str, theirs: &'a str) -> Result<Versions<'a>> {
        let parse = |name: &str, text: &'a str| -> Result<parse::Tree<'a>> {
            // A lone CR is a YAML line break that line arithmetic here does not follow.
            if text
                .as_bytes()
                .windows(2)
                .any(|w| w[0] == b'\r' && w[1] != b'\n')
                || text.ends_with('\r')
            {
                bail!("{name} breaks lines with a bare CR");
            }
            let tree = parse::parse(text)
                .with_context(|| format!("{name} is not YAML kmerge can merge"))?;
            if let Some(dup) = tree.duplicate_keys.first() {
                bail!("{name} repeats a mapping key ({dup})");
            }
            Ok(tree)
        };
        let versions = Versions {
            base: parse("base", base)?,
            ours: parse("ours", ours)?,
            theirs: parse("theirs", theirs)?,
        };
        // Comments are not data: where no version holds any, the file (a comment block, a
        // placeholder) is merged line by line, where edits of its comments count.
        let no_data = |t: &parse::Tree| t.docs.iter().all(|d| d.root.is_none());
        if [&versions.base, &versions.ours, &versions.theirs]
            .into_iter()
            .all(no_data)
        {
            bail!("no version holds YAML data, only comments");
        }
        Ok(versions)
    }

    /// merge2: lays `src` onto `dest` (seeds 002/003), by structure. The rules are merge3's
    /// with no base and theirs winning, plus the patch directives; see [`Mode::TwoWay`].
    pub fn merge2(src: &'a str, dest: &'a str, opts: &MergeOptions) -> Result<Merged> {
        let versions = Versions::parse("", dest, src)?;
        let mode = match opts.mode {
            Mode::ThreeWay => Mode::TwoWay { prepend: false },
            two_way => two_way,
        };
        let opts = MergeOptions {
            policy: Policy::Theirs,
            mode,
            ..opts.clone()
        };
        versions.merge3(&opts)
    }

    /// Merges theirs' changes since base into ours, by structure.
    ///
    /// Errors mean "cannot merge this structurally" (duplicate identities, an internal
    /// inconsistency); the driver then falls back to the line merge.
    pub fn merge3(&self, opts: &MergeOptions) -> Result<Merged> {
        let patch = matches!(opts.mode, Mode::TwoWay { .. });
        let groups = resource::match_documents(&self.base, &self.ours, &self.theirs, patch)?;
        let mut merger = Merger {
            base: &self.base,
            ours: &self.ours,
            theirs: &self.theirs,
            opts,
            edits: Vec::new(),
            conflicts: Vec::new(),
            resource: String::new(),
            group_kind: None,
            deleted: HashMap::new(),
            ours_sequence_offset: (0..self.ours.nodes.len())
                .find_map(|n| merger::sequence_offset(&self.ours, n)),
        };
        merger.merge_resources(&groups);
        let Merger {
            mut edits,
            conflicts,
            ..
        } = merger;
        let text = render::splice(self.ours.text, &mut edits)?;
        if conflicts.is_empty() {
            // A clean result must read back; if the splice broke it, the line merge is safer.
            let merged =
                parse::parse(&text).context("internal error: the merged text does not parse")?;
            if let Some(dup) = merged.duplicate_keys.first() {
                bail!("internal error: the merged text repeats a mapping key ({dup})");
            }
        }
        Ok(Merged { text, conflicts })
    }
}

/// Whether git's clean line merge may be taken as it is: it must still parse, with no
/// duplicate (map key, resource identity, list element name) that none of the inputs had —
/// the mark of two insertions git placed apart. The inputs are parsed only when the result
/// holds a duplicate or does not parse, so the common clean merge costs one parse.
pub fn line_result_is_sound(base: &str, ours: &str, theirs: &str, merged: &str) -> bool {
    let inputs = [base, ours, theirs];
    match parse::parse(merged) {
        Ok(tree) => {
            let found = duplicates(&tree);
            drop(tree);
            found.is_empty() || {
                let known: HashSet<String> = inputs
                    .iter()
                    .filter_map(|t| parse::parse(t).ok())
                    .flat_map(|t| duplicates(&t))
                    .collect();
                found.is_subset(&known)
            }
        }
        // Git's result is what the fallback gives for input that is not YAML either.
        Err(_) => inputs.iter().any(|t| parse::parse(t).is_err()),
    }
}

/// Everything a file holds twice: mapping keys, resource identities, list element names.
fn duplicates(tree: &parse::Tree) -> HashSet<String> {
    let keys = tree
        .duplicate_keys
        .iter()
        .map(|d| d.split_once(": ").map_or(d.clone(), |(_, k)| k.to_string()));
    keys.chain(resource::duplicate_identities(tree))
        .chain(duplicate_element_names(tree))
        .collect()
}

/// `name=x` for every list element whose `name` another element of the same list carries:
/// two containers or env vars with one name are what git leaves when both sides add one.
fn duplicate_element_names(tree: &parse::Tree) -> Vec<String> {
    let mut out = Vec::new();
    for node in tree.nodes.iter().filter(|n| n.kind == parse::Kind::Seq) {
        let mut seen = HashSet::new();
        for &e in &node.children {
            if let Some(name) = tree.get_str(e, "name") {
                if !seen.insert(name) {
                    out.push(format!("name={name}"));
                }
            }
        }
    }
    out
}
