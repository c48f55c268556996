//! The three versions of a file, parsed together and checked for what the structural merge
//! cannot take.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::sides::Version;
use crate::text::at_line_starts;

use super::{Error, Kind, Style, Tree};

/// Why the structural merge cannot take the versions as parsed. Typed here, where it is
/// found; the driver words it as its fallback reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refused {
    /// A lone CR breaks a line: a YAML line break that line arithmetic here does not follow.
    BareCr(Version),
    /// More YAML nodes than [`crate::options::MAX_NODES`].
    TooManyNodes(Version),
    /// The parser broke its own contract.
    Internal { side: Version, what: String },
    /// A text that does not parse and has a Go template action (`{{`) on `line`: a Helm/Go
    /// template, not broken YAML.
    Template { side: Version, line: usize },
    /// Not YAML, where the parser says.
    NotYaml { side: Version, error: Error },
    /// A mapping key repeated (`key` is where).
    DuplicateKey { side: Version, key: String },
    /// A line indented with a tab.
    TabIndent { side: Version, line: usize },
    /// An empty mapping key (`: value`) on `line`.
    EmptyKey { side: Version, line: usize },
    /// No version holds YAML data, only comments.
    NoData,
}

/// The three versions of a file, parsed once for both the line-merge check and the
/// structural merge.
pub struct Versions<'a> {
    pub(crate) base: Tree<'a>,
    pub(crate) ours: Tree<'a>,
    pub(crate) theirs: Tree<'a>,
    /// The file's name, when known: some rules depend on it (see
    /// [`crate::resource::group_kind_of`]).
    pub(crate) file_name: Option<String>,
}

impl<'a> Versions<'a> {
    /// Parses base, ours and theirs. Errors say why the structural merge cannot take them (a
    /// Helm template, a syntax error, tab indentation, duplicate keys), which version and
    /// where.
    pub fn parse(base: &'a str, ours: &'a str, theirs: &'a str) -> Result<Versions<'a>, Refused> {
        Versions::parse_alongside(base, ours, theirs, || ()).0
    }

    /// [`Versions::parse`], with `also` (git's line merge) run at the same time: on a large
    /// file, base and ours are parsed on this thread while `also` runs on a second one, and
    /// theirs on the one free first, since parsing is most of a merge's time and machines
    /// have two cores or more. A small file is not worth a thread's start, a huge one not
    /// worth the memory (see [`PARALLEL_UP_TO`]). The result and its errors are those of the
    /// sequential parse (base's error first); a panic on either thread reaches the caller.
    pub fn parse_alongside<R: Send>(
        base: &'a str,
        ours: &'a str,
        theirs: &'a str,
        also: impl FnOnce() -> R + Send,
    ) -> (Result<Versions<'a>, Refused>, R) {
        let total = base.len() + ours.len() + theirs.len();
        if !(PARALLEL_FROM..PARALLEL_UP_TO).contains(&total) {
            // One after the other, the first error ending the parse.
            let versions = Versions::one_by_one(base, ours, theirs);
            return (versions, also());
        }
        // Theirs is parsed by whichever thread is free first: `also` may take longer than
        // two parses or less (and may itself parse a clean line merge's result).
        let claimed = AtomicBool::new(false);
        let take_theirs =
            || (!claimed.swap(true, Ordering::Relaxed)).then(|| parse(Version::Theirs, theirs));
        let (trees, r) = std::thread::scope(|scope| {
            let second = scope.spawn(|| {
                let r = also();
                (r, take_theirs())
            });
            let base = parse(Version::Base, base);
            let ours = parse(Version::Ours, ours);
            let mine = take_theirs();
            match second.join() {
                Ok((r, other)) => {
                    let theirs = mine
                        .or(other)
                        .unwrap_or_else(|| parse(Version::Theirs, theirs));
                    ([base, ours, theirs], r)
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        });
        let [base, ours, theirs] = trees;
        (Versions::checked(base, ours, theirs), r)
    }

    /// The sequential parse: base, ours, theirs, the first error ending it.
    fn one_by_one(base: &'a str, ours: &'a str, theirs: &'a str) -> Result<Versions<'a>, Refused> {
        let base = parse(Version::Base, base)?;
        let ours = parse(Version::Ours, ours)?;
        Versions::checked(Ok(base), Ok(ours), parse(Version::Theirs, theirs))
    }

    /// The parsed versions (base's error first), unless none of them holds data.
    fn checked(
        base: Result<Tree<'a>, Refused>,
        ours: Result<Tree<'a>, Refused>,
        theirs: Result<Tree<'a>, Refused>,
    ) -> Result<Versions<'a>, Refused> {
        let versions = Versions {
            base: base?,
            ours: ours?,
            theirs: theirs?,
            file_name: None,
        };
        // Comments are not data: where no version holds any, the file (a comment block, a
        // placeholder) is merged line by line, where edits of its comments count.
        let no_data = |t: &Tree| t.docs.iter().all(|d| d.root.is_none());
        if [&versions.base, &versions.ours, &versions.theirs]
            .into_iter()
            .all(no_data)
        {
            return Err(Refused::NoData);
        }
        Ok(versions)
    }

    /// The same versions, of the file named `file_name`.
    pub fn named(self, file_name: Option<&str>) -> Versions<'a> {
        Versions {
            file_name: file_name.map(str::to_string),
            ..self
        }
    }
}

/// Total input size (bytes) from which the versions are parsed on two threads.
const PARALLEL_FROM: usize = 256 << 10;

/// Total input size (bytes) from which they are parsed one after the other again: on inputs
/// this large memory matters more than time, and two parses and git's line merge at once
/// (each with its own allocator arena) can together outgrow a memory limit that the
/// sequential run, where a version over the node budget ends the parse early, stays under.
const PARALLEL_UP_TO: usize = 32 << 20;

/// One version parsed, or why the structural merge cannot take it.
fn parse(side: Version, text: &str) -> Result<Tree<'_>, Refused> {
    let bytes = text.as_bytes();
    if memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n')) {
        return Err(Refused::BareCr(side));
    }
    let tree = super::parse(text).map_err(|e| match e {
        Error::TooManyNodes => Refused::TooManyNodes(side),
        Error::Internal(what) => Refused::Internal { side, what },
        Error::Syntax { .. } | Error::ComplexKey { .. } => match template_line(text) {
            Some(line) => Refused::Template { side, line },
            None => Refused::NotYaml { side, error: e },
        },
    })?;
    if let Some(dup) = tree.duplicate_keys.first() {
        return Err(Refused::DuplicateKey {
            side,
            key: dup.clone(),
        });
    }
    // Tabs cannot indent YAML: text moved between columns could turn one into structure.
    if let Some(at) = at_line_starts(bytes, memchr::memchr_iter(b'\t', bytes)).next() {
        let line = memchr::memchr_iter(b'\n', &bytes[..at]).count();
        return Err(Refused::TabIndent {
            side,
            line: line + 1,
        });
    }
    // An empty key (`: value`) is valid YAML no manifest uses, and no key to pair a field by.
    if let Some(at) = empty_key(&tree) {
        return Err(Refused::EmptyKey {
            side,
            line: text[..at].matches('\n').count() + 1,
        });
    }
    Ok(tree)
}

/// Where the first empty mapping key starts, if a map has one.
fn empty_key(tree: &Tree) -> Option<usize> {
    (0..tree.nodes.len())
        .filter(|&n| tree.node(n).kind == Kind::Map)
        .flat_map(|n| tree.children(n).iter().step_by(2))
        .map(|&k| tree.node(k))
        .find(|k| {
            k.kind == Kind::Scalar
                && k.style == Style::Plain
                && tree.text[k.start..k.end].is_empty()
        })
        .map(|k| k.start)
}

/// The first line holding a Go template action (`{{`) outside a comment: a text that does
/// not parse and has one is a Helm/Go template, not broken YAML.
fn template_line(text: &str) -> Option<usize> {
    text.lines()
        .position(|l| l.contains("{{") && !l.trim_start().starts_with('#'))
        .map(|i| i + 1)
}
