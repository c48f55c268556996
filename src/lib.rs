//! kmerge: a git merge driver that merges Kubernetes YAML by structure instead of by line.
//!
//! Git hands a merge driver three versions of a file: the common ancestor (base, `%O`), the
//! current branch (ours, `%A`) and the branch being merged (theirs, `%B`). kmerge parses the
//! YAML documents of each, pairs the resources by identity (API group, kind, namespace,
//! name), merges them field by field with the kyaml merge3 rules, and writes the result into
//! ours. The result is ours' own text with surgical edits spliced in, so comments, key order,
//! quoting and line endings that no change touches stay byte-identical. Where both sides
//! changed the same field differently, git's conflict markers go around just that field.
//!
//! The data walks one way through the pipeline, one folder a stage:
//!
//! ```text
//!  base, ours, theirs (bytes)
//!     │  parse     text → lossless span trees (byte spans, styles), refused input typed
//!     ▼
//!  resource        one version's resources: identities, list keys, field paths
//!     ▼
//!  align           which document and element of base, ours and theirs is the same
//!     ▼
//!  merge           the rules → a Plan: edits against ours' tree + conflicts (no text)
//!     ▼
//!  render          the plan spliced into ours' bytes: re-indented, markers around conflicts
//!     ▼
//!  comments        each field's comment lines and line-end comment, by the 3-way rule
//!     ▼
//!  verify          the result checked as data against base, ours and theirs
//!     ▼
//!  driver / cli    choose git's result or the structural one, fall back, write, exit code
//! ```
//!
//! `text` (lines, re-indentation, diff3, conflict markers) and `options` (the policy and the
//! limits) sit below every stage; `git` holds everything kmerge asks of git. The `engine`
//! (plan, render, then the comments) serves two attempts side by side under the driver, the structural one
//! and a Helm template's (`template`), each giving an `outcome`. Anything they cannot take
//! falls back to git's own line merge (`git::line_merge`), with a typed [`fallback::Reason`],
//! so no input loses data. The public
//! surface is the command line ([`cli`]) and the library entry points [`driver::merge_bytes`]
//! (merge3 with every fallback) and [`driver::merge2`].

pub(crate) mod align;
pub(crate) mod atomic_write;
pub mod cli;
pub(crate) mod comments;
pub mod driver;
pub(crate) mod engine;
pub mod fallback;
pub mod git;
pub(crate) mod merge;
pub mod options;
pub(crate) mod outcome;
pub mod package;
pub(crate) mod parse;
pub(crate) mod render;
pub(crate) mod resource;
pub(crate) mod sides;
pub(crate) mod split;
pub(crate) mod template;
#[doc(hidden)]
pub mod testing;
pub(crate) mod text;
pub(crate) mod verify;
