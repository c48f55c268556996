//! The comment at the end of a field's line: base's, ours' or theirs', by the 3-way rule.

use std::ops::Range;

use crate::options::Policy;
use crate::text::line_end;
use crate::text::splice::Edit;

use super::layout::Layout;
use super::pick;

/// The comment at the end of the result's `line`, decided and written.
pub(super) fn decide_trailing(
    r: &Layout,
    x: &[Layout; 3],
    line: usize,
    partners: [Option<Option<usize>>; 3],
    policy: Policy,
    edits: &mut Vec<Edit>,
    not_taken: &mut Vec<usize>,
) {
    if line >= r.starts.len() {
        return;
    }
    let [Some(pb), Some(po), Some(pt)] = partners else {
        return;
    };
    let Some(now) = r.trailing(line) else { return };
    // (the version's comment, the layout and line it stands on)
    let trailing = |i: usize, p: Option<usize>| match p {
        None => Some(None),
        Some(l) => x[i].trailing(l).map(|c| c.map(|c| (c, i, l))),
    };
    let (Some(tb), Some(to), Some(tt)) = (trailing(0, pb), trailing(1, po), trailing(2, pt)) else {
        return;
    };
    let to = if po.is_none() { tb.clone() } else { to };
    let tt = if pt.is_none() { tb.clone() } else { tt };
    let text_of = |c: Option<(Range<usize>, usize, usize)>| {
        c.map(|(range, i, _)| x[i].tree.text[range].trim())
    };
    let (kb, ko, kt) = (
        text_of(tb.clone()),
        text_of(to.clone()),
        text_of(tt.clone()),
    );
    let target = match pick(&kb, &ko, &kt) {
        Some(false) => to,
        Some(true) => tt,
        None if policy == Policy::Theirs => tt,
        None => {
            if policy == Policy::Mark {
                if let Some(l) = pt {
                    not_taken.push(l + 1);
                }
            }
            to
        }
    };
    let current = now.clone().map(|range| r.tree.text[range].trim());
    if text_of(target.clone()) == current {
        return;
    }
    let (start, end) = match &now {
        Some(range) => (range.start, range.end),
        None => {
            let at = line_end(r.tree.text, r.starts[line]);
            let at = r.token_end[line].max(r.starts[line]).min(at);
            (at, line_end(r.tree.text, r.starts[line]))
        }
    };
    let text = match target {
        None => String::new(),
        Some((range, i, _)) => {
            let source = &x[i].tree.text[range];
            let spaces = &source[..source.len() - source.trim_start().len()];
            let spaces = if spaces.is_empty() { " " } else { spaces };
            format!("{spaces}{}", source.trim())
        }
    };
    edits.push(Edit { start, end, text });
}
