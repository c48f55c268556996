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
    spliced(source, edits, |e| e, |_, _| {})
}

/// Where a stretch of a spliced text came from: `source`'s text kept from an offset on, or
/// the text of one edit (the tag it was given).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum From {
    Source(usize),
    Edit(usize),
}

/// The stretches of a spliced text, in order, each with where it came from.
pub(crate) type Trace = Vec<(std::ops::Range<usize>, From)>;

/// [`splice`] of tagged edits, with where each stretch of the result came from: what tells a
/// later stage which version's node a line of the result is.
pub(crate) fn splice_traced(source: &str, edits: &mut [(Edit, usize)]) -> Result<(String, Trace)> {
    let mut trace = Vec::new();
    let text = spliced(
        source,
        edits,
        |(e, _)| e,
        |out, from| {
            if !out.is_empty() {
                trace.push((out, from));
            }
        },
    )?;
    // The edits were sorted in place: an edit's index is now its place in that order.
    for (_, from) in &mut trace {
        if let From::Edit(i) = from {
            *i = edits[*i].1;
        }
    }
    Ok((text, trace))
}

/// The one splice: `edit` reads each item's edit, `record` hears where each stretch of the
/// result came from.
fn spliced<T>(
    source: &str,
    items: &mut [T],
    edit: impl Fn(&T) -> &Edit,
    mut record: impl FnMut(std::ops::Range<usize>, From),
) -> Result<String> {
    items.sort_by_key(|i| {
        let e = edit(i);
        (e.start, e.end > e.start)
    });
    let mut out = String::with_capacity(
        source.len() + items.iter().map(|i| edit(i).text.len()).sum::<usize>(),
    );
    let mut at = 0;
    let mut deleting = false;
    for (tag, item) in items.iter().enumerate() {
        let e = edit(item);
        let mut put = |out: &mut String, text: &str, from: From| {
            let start = out.len();
            out.push_str(text);
            record(start..out.len(), from);
        };
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
                put(&mut out, &e.text, From::Edit(tag));
                continue;
            }
            bail!("two planned edits overlap at byte {}", e.start);
        }
        put(&mut out, &source[at..e.start], From::Source(at));
        put(&mut out, &e.text, From::Edit(tag));
        at = e.end;
        deleting = e.text.is_empty() && e.end > e.start;
    }
    let rest = &source[at..];
    let start = out.len();
    out.push_str(rest);
    record(start..out.len(), From::Source(at));
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

    /// Each stretch of the result says where it came from: ours' text from an offset, or an
    /// edit by its tag (whatever order the edits were given in).
    #[test]
    fn a_traced_splice_names_each_stretch_of_the_result() {
        let mut edits = vec![(edit(4, 4, "new\n"), 7), (edit(0, 2, ""), 3)];
        let (text, trace) = splice_traced("a\nb\nc\n", &mut edits).unwrap();
        assert_eq!(text, "b\nnew\nc\n");
        assert_eq!(
            trace,
            vec![
                (0..2, From::Source(2)),
                (2..6, From::Edit(7)),
                (6..8, From::Source(4)),
            ]
        );
    }

    #[test]
    fn an_edit_replacing_text_inside_another_is_a_planning_error() {
        let mut edits = vec![edit(2, 14, ""), edit(8, 10, "x")];
        let err = splice("a\nb\n# c\n  # d\ne\n", &mut edits).unwrap_err();
        assert_eq!(err.to_string(), "two planned edits overlap at byte 8");
    }
}
