//! Ours' text with the merge's edits spliced in: every byte no edit touches stays as it was.

mod regions;
mod reindent;

pub use regions::{dash_of, entry_lines, item_lines, key_lines_start};
pub use reindent::reindent;

use anyhow::{bail, Result};

/// Replace `start..end` of ours' text with `text` (an insertion when the range is empty, a
/// deletion when the text is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// Applies edits to `source`; they may not overlap, but for deletions. Insertions at the same offset keep the order they
/// were planned in, and come before a replacement starting there.
pub fn splice(source: &str, edits: &mut [Edit]) -> Result<String> {
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
            bail!("internal error: overlapping edits at byte {}", e.start);
        }
        out.push_str(&source[at..e.start]);
        out.push_str(&e.text);
        at = e.end;
        deleting = e.text.is_empty() && e.end > e.start;
    }
    out.push_str(&source[at..]);
    Ok(out)
}

/// The text of a conflict: ours' lines, base's (diff3 style only) and theirs', between markers
/// of `size` characters labelled like git's. Each part is whole lines ending in `eol`.
pub struct Markers<'a> {
    pub size: usize,
    pub labels: [&'a str; 3],
    pub diff3: bool,
    pub eol: &'a str,
}

impl Markers<'_> {
    pub fn wrap(&self, ours: &str, base: &str, theirs: &str) -> String {
        let line = |c: char, label: &str| {
            let mut s: String = std::iter::repeat_n(c, self.size).collect();
            if !label.is_empty() {
                s.push(' ');
                s.push_str(label);
            }
            s.push_str(self.eol);
            s
        };
        let whole = |part: &str| {
            if part.is_empty() || part.ends_with('\n') {
                part.to_string()
            } else {
                format!("{part}{}", self.eol)
            }
        };
        let [base_label, ours_label, theirs_label] = self.labels;
        let mut out = line('<', ours_label);
        out.push_str(&whole(ours));
        if self.diff3 {
            out.push_str(&line('|', base_label));
            out.push_str(&whole(base));
        }
        out.push_str(&line('=', ""));
        out.push_str(&whole(theirs));
        out.push_str(&line('>', theirs_label));
        out
    }
}
