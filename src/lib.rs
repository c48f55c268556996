//! kmerge: a git merge driver that merges Kubernetes YAML by structure instead of by line.
//!
//! Git hands a merge driver three versions of a file: the common ancestor (base, `%O`), the
//! current branch (ours, `%A`) and the branch being merged (theirs, `%B`). kmerge parses the
//! YAML documents of each, pairs the resources by identity (API group, kind, namespace, name),
//! merges them field by field with the kyaml merge3 rules (see `merge`), and writes the result
//! into ours. The result is ours' own text with surgical edits spliced in, so comments, key
//! order, quoting and line endings that no change touches stay byte-identical.
//!
//! The pipeline runs one way: `parse` (text to a lossless span tree) → `resource` (documents,
//! identities, matching) → `merge` (3-way rules producing an edit plan and conflicts) → `render`
//! (edits spliced into ours, conflict markers) → `driver` (never-worse-than-git policy, line
//! fallback, exit codes) with `cli` as the command-line surface. Anything the structural path
//! cannot handle falls back to git's own line merge (`line_merge`), so no input loses data.

pub mod atomic_write;
pub mod cli;
pub mod driver;
pub mod line_merge;
pub mod merge;
pub mod options;
pub mod parse;
pub mod render;
pub mod resource;
#[doc(hidden)]
pub mod testing;
pub(crate) mod text;
pub(crate) mod verify;
