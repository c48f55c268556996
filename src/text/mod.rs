//! Text helpers every stage shares: line arithmetic, re-indentation, and git's conflict
//! markers (written, detected and counted here, and nowhere else).

mod lines;
pub(crate) mod markers;
mod reindent;

pub(crate) use lines::{at_line_starts, indent_of_line, line_end, line_start, next_line_start};
pub(crate) use reindent::reindent;
