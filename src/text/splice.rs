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

/// Applies edits to `source`; they may not overlap, but for deletions. Insertions at the same offset keep the order they
/// were planned in, and come before a replacement starting there.
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
