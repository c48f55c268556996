//! Edits spliced into a text.

use anyhow::{bail, Result};

/// Replace `start..end` of ours' text with `text` (an insertion when the range is empty, a
/// deletion when the text is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Applies edits to `source`; they may not overlap, but for deletions, and insertions inside
/// a range being deleted. Insertions at the same offset keep the order they were planned in,
/// and come before a replacement starting there.
pub(crate) fn splice(source: &str, edits: &mut [Edit]) -> Result<String> {
    edits.sort_by_key(|e| (e.start, e.end > e.start));
    let mut out =
        String::with_capacity(source.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut at = 0;
    let mut deleting = false;
    for e in edits.iter() {
        if e.start < at {
            // Two deletions may overlap (a document and the separator after the one before
            // it): together they delete their union. Anything else is a planning error.
            if deleting && e.text.is_empty() {
                at = at.max(e.end);
                continue;
            }
            // An insertion inside a range being deleted (a field deleted with the comment
            // lines indented into it, theirs' field placed after the field): its text stands
            // where the deleted text did, the same wherever in the range it was placed.
            if deleting && e.start == e.end {
                out.push_str(&e.text);
                continue;
            }
            bail!("two planned edits overlap at byte {}", e.start);
        }
        out.push_str(&source[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
        deleting = e.text.is_empty() && e.end > e.start;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: usize, end: usize, text: &str) -> Edit {
        let text = text.to_string();
        Edit { start, end, text }
    }

    #[test]
    fn an_insertion_inside_a_deleted_range_stands_where_the_range_was() {
        // "b", "# c" and "  # d" deleted, theirs' line placed after "# c".
        let mut edits = vec![edit(8, 8, "new\n"), edit(2, 14, "")];
        let out = splice("a\nb\n# c\n  # d\ne\n", &mut edits);
        assert_eq!(out.unwrap(), "a\nnew\ne\n");
    }

    #[test]
    fn an_edit_replacing_text_inside_another_is_a_planning_error() {
        let mut edits = vec![edit(2, 14, ""), edit(8, 10, "x")];
        let err = splice("a\nb\n# c\n  # d\ne\n", &mut edits).unwrap_err();
        assert_eq!(err.to_string(), "two planned edits overlap at byte 8");
    }
}
