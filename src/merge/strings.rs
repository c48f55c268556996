//! Multi-line strings (block scalars: scripts, config files, certificates) changed on both
//! sides are merged line by line before anything is called a conflict.

use super::merger::Merger;
use super::plan::{Field, Op};
use super::policy::Resolution;
use crate::options::ConflictStyle;
use crate::resource::Path;
use crate::text::diff3::{diff3, trim_conflicts, Chunk};

impl Merger<'_> {
    /// Merges a block scalar both sides changed, line by line, into ours. Where both changed
    /// the same lines, the conflict markers wrap just those lines, less the ones both wrote
    /// alike at either end (in `ours` mode ours' lines stay). Returns false (planning nothing)
    /// unless all three are block scalars, and where the headers or the styles conflict.
    pub fn merge_lines(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) -> bool {
        let Some(b) = b else { return false };
        let (Some(bb), Some(ob), Some(tb)) = (
            self.base.block_lines(b.node),
            self.ours.block_lines(o.node),
            self.theirs.block_lines(t.node),
        ) else {
            return false;
        };
        // The header (style, chomping, indentation) is one value: both changing it
        // differently is a conflict of the whole field.
        let (hb, ho, ht) = (
            self.base.block_header(b.node).map(|h| h.1),
            self.ours.block_header(o.node).map(|h| h.1),
            self.theirs.block_header(t.node).map(|h| h.1),
        );
        if hb != ho && hb != ht && ho != ht {
            return false;
        }
        // Literal and folded styles read the same lines as different text: a style only one
        // side changed does not carry over to lines the other side changed. A conflict too.
        let style = |h: Option<&str>| h.and_then(|h| h.chars().next());
        let restyled_alone = |h, other| style(h) != style(hb) && style(other) == style(hb);
        if (restyled_alone(ho, ht) && tb.lines != bb.lines)
            || (restyled_alone(ht, ho) && ob.lines != bb.lines)
        {
            return false;
        }
        let theirs_header = hb == ho && hb != ht;
        let keep_ours = self.opts.policy.resolve() == Resolution::Ours;
        let mut chunks = diff3(&bb.lines, &ob.lines, &tb.lines);
        // As git does (but for diff3 style, whose base section shows the whole stretch), the
        // lines both sides wrote alike at the start and end of a conflict are taken once.
        if self.opts.style != ConflictStyle::Diff3 {
            chunks = trim_conflicts(chunks, &ob.lines, &tb.lines);
        }
        let chunks: Vec<Chunk> = chunks
            .into_iter()
            .map(|chunk| match chunk {
                Chunk::Conflict { ours, .. } if keep_ours => Chunk::Ours { ours },
                other => other,
            })
            .collect();
        let conflicts = chunks
            .iter()
            .filter(|c| matches!(c, Chunk::Conflict { .. }))
            .count();
        if conflicts > 0 {
            self.record_conflict(
                &path.shown,
                format!("both sides changed the same lines of this text ({conflicts} place(s))"),
            );
        }
        self.plan.ops.push(Op::Lines {
            base: b,
            ours: o,
            theirs: t,
            chunks,
            theirs_header,
        });
        true
    }
}
