//! Why the structural merge stood aside for git's line merge: typed, so the driver can tell
//! an input kmerge does not take (a template, a syntax error, a size limit) from a bug, and
//! say which in its one stderr line.

use std::fmt;

use crate::parse::Refused;
use crate::sides::Version;

/// Why the structural merge was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reason {
    /// A NUL byte among the first 8000: git's own test for a binary file.
    Binary(Version),
    /// Some version is not UTF-8 text.
    NotUtf8,
    /// A version over `--max-size` bytes.
    TooLarge {
        side: Version,
        bytes: usize,
        limit: usize,
    },
    /// A version with more YAML nodes than the structural merge holds in memory.
    TooManyNodes(Version),
    /// A version already holds conflict markers (a criss-cross merge's base can).
    Markers(Version),
    /// A Helm/Go template: `{{ … }}` stands as YAML structure; with what its merge as a
    /// skeleton would do wrong, where that was tried.
    Template {
        side: Version,
        line: usize,
        unsettled: Option<String>,
    },
    /// Not YAML: the parser's message, with its line and column.
    NotYaml { side: Version, error: String },
    /// YAML the structural merge cannot pair or place safely: a repeated key, two documents
    /// with one identity, bare CR line breaks, files of nothing but comments.
    Unsupported(String),
    /// The merged text names an anchor it no longer holds: one side deleted or moved the
    /// anchored value, the other aliased it. Its own variant, since `theirs` and `ours` then
    /// merge again with the aliases written out.
    AliasWithoutAnchor,
    /// A bug: the structural merge broke its own rules (or panicked).
    Internal(String),
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Binary(side) => write!(f, "{side} is a binary file: ours is kept as it is"),
            Reason::NotUtf8 => write!(f, "a version is not valid UTF-8 text"),
            Reason::TooLarge { bytes, limit, .. } => write!(
                f,
                "a version is {bytes} bytes, over the {limit} byte limit (--max-size)"
            ),
            Reason::TooManyNodes(side) => write!(
                f,
                "{side} has over {} YAML nodes: too large to merge by structure",
                crate::options::MAX_NODES
            ),
            Reason::Markers(side) => write!(f, "{side} already holds conflict markers"),
            Reason::Template {
                side,
                line,
                unsettled,
            } => {
                write!(
                    f,
                    "{side} is a Helm/Go template ({{{{ … }}}} as YAML structure, line {line})"
                )?;
                match unsettled {
                    Some(what) => write!(f, "; its structural merge {what}"),
                    None => Ok(()),
                }
            }
            Reason::NotYaml { side, error } => {
                write!(f, "{side} is not YAML kmerge can merge: {error}")
            }
            Reason::Unsupported(what) => f.write_str(what),
            Reason::AliasWithoutAnchor => {
                f.write_str("the merge would leave an alias without its anchor")
            }
            Reason::Internal(what) => write!(
                f,
                "internal error, a bug in kmerge (please report it): {what}"
            ),
        }
    }
}

impl std::error::Error for Reason {}

/// The parser's refusals, worded as the reasons the driver prints.
impl From<Refused> for Reason {
    fn from(refused: Refused) -> Reason {
        match refused {
            Refused::BareCr(side) => {
                Reason::Unsupported(format!("{side} breaks lines with a bare CR"))
            }
            Refused::TooManyNodes(side) => Reason::TooManyNodes(side),
            Refused::Internal { side, what } => Reason::Internal(format!("parsing {side}: {what}")),
            Refused::Template { side, line } => Reason::Template {
                side,
                line,
                unsettled: None,
            },
            Refused::NotYaml { side, error } => Reason::NotYaml {
                side,
                error: error.to_string(),
            },
            Refused::DuplicateKey { side, key } => {
                Reason::Unsupported(format!("{side} repeats a mapping key ({key})"))
            }
            Refused::TabIndent { side, line } => {
                Reason::Unsupported(format!("{side} indents line {line} with a tab"))
            }
            Refused::EmptyKey { side, line } => {
                Reason::Unsupported(format!("{side} has an empty mapping key (line {line})"))
            }
            Refused::NoData => {
                Reason::Unsupported("no version holds YAML data, only comments".into())
            }
        }
    }
}
