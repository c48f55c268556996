//! Text helpers every stage shares: line arithmetic, re-indentation, the 3-way merge of two
//! edits of a sequence (`diff3`: lines of a string, elements of a list, comment lines),
//! git's conflict markers (written, detected and counted here, and nowhere else), and the
//! alphabet of a template's skeleton (`skeleton`), and the count of what two sequences share
//! (`shared_count`).

pub(crate) mod diff3;
mod lines;
pub(crate) mod markers;
mod multiset;
mod reindent;
pub(crate) mod skeleton;
pub(crate) mod splice;

pub(crate) use diff3::{diff3, Chunk};
pub(crate) use lines::{
    at_line_starts, dash_of, indent_of_line, is_separator, line_end, line_start, next_line_start,
};
pub(crate) use multiset::shared_count;
pub(crate) use reindent::reindent;
