//! Hooks for the fuzz targets and the test that replays their findings: checks that need the
//! engine's internals. Not an API: nothing here is stable.

use crate::driver::{merge_bytes_by, Merged, Outcome, Shortcut};
use crate::engine;
use crate::fallback::Reason;
use crate::options::MergeOptions;
use crate::parse::{self, Kind, Versions};

/// The inconsistencies of the span tree of `text` (spans outside the text or splitting a
/// character, children that do not name their parent, maps with a key and no value,
/// documents outside the text); `None` when the text does not parse.
pub fn span_tree_errors(text: &str) -> Option<Vec<String>> {
    let tree = parse::parse(text).ok()?;
    let mut errors = Vec::new();
    for (id, node) in tree.nodes.iter().enumerate() {
        if !(node.start <= node.end && node.end <= text.len()) {
            errors.push(format!(
                "node {id} ({:?}) spans {}..{} in a text of {} bytes",
                node.kind,
                node.start,
                node.end,
                text.len()
            ));
        } else if !(text.is_char_boundary(node.start) && text.is_char_boundary(node.end)) {
            errors.push(format!(
                "node {id} span {}..{} splits a character",
                node.start, node.end
            ));
        }
        for &child in tree.children(id) {
            if child >= tree.nodes.len() {
                errors.push(format!("node {id} has a dangling child"));
            } else if tree.nodes[child].parent() != Some(id) {
                errors.push(format!(
                    "node {child}'s parent is not node {id}, which lists it as a child"
                ));
            }
        }
        if node.kind == Kind::Map && node.child_count() % 2 != 0 {
            errors.push(format!("map node {id} has an odd number of children"));
        }
    }
    for (i, doc) in tree.docs.iter().enumerate() {
        if !(doc.region.start <= doc.region.end && doc.region.end <= text.len()) {
            errors.push(format!(
                "document {i} region {:?} outside the text",
                doc.region
            ));
        }
        if doc.root.is_some_and(|root| root >= tree.nodes.len()) {
            errors.push(format!("document {i} has a dangling root"));
        }
    }
    Some(errors)
}

/// Whether `text` parses and repeats a mapping key.
pub fn repeats_a_key(text: &str) -> bool {
    parse::parse(text).is_ok_and(|t| !t.duplicate_keys.is_empty())
}

/// Whether the structural merge accepts the three texts as input.
pub fn accepts(base: &str, ours: &str, theirs: &str) -> bool {
    Versions::parse(base, ours, theirs).is_ok()
}

/// The structural merge alone, without git's line merge or any fallback: the merged text
/// and the number of conflicts, or why it refused.
pub fn merge_structurally(
    base: &str,
    ours: &str,
    theirs: &str,
    opts: &MergeOptions,
) -> Result<(String, usize), String> {
    let versions =
        Versions::parse(base, ours, theirs).map_err(|e| format!("{:#}", Reason::from(e)))?;
    let Merged {
        text, conflicts, ..
    } = engine::merged(&versions, opts).map_err(|e| format!("{e:#}"))?;
    Ok((text, conflicts.len()))
}

/// Whether a text parses as YAML, with the parser's error if not.
pub fn parses(text: &str) -> Result<(), String> {
    parse::parse(text).map(|_| ()).map_err(|e| format!("{e:#}"))
}

/// Whether git's clean line merge `merged` of the three texts would be kept as it is.
pub fn line_result_is_sound(base: &str, ours: &str, theirs: &str, merged: &str) -> bool {
    crate::verify::line_result_is_sound(base, ours, theirs, merged)
}

/// The verifier's findings on `result` as a merge of the three texts under `policy`: one
/// line per violated path (empty when the result holds the invariant), or why it cannot say.
pub fn violations(
    base: &str,
    ours: &str,
    theirs: &str,
    result: &str,
    policy: crate::options::Policy,
) -> Result<Vec<String>, String> {
    let versions =
        Versions::parse(base, ours, theirs).map_err(|e| format!("{:#}", Reason::from(e)))?;
    match crate::verify::check_text(&versions, result, policy) {
        crate::verify::Verdict::Holds => Ok(Vec::new()),
        crate::verify::Verdict::Broken(found) => Ok(found.iter().map(|v| v.to_string()).collect()),
        crate::verify::Verdict::Unsure => Err("the verifier cannot pair the inputs".into()),
    }
}

/// The driver's merge of the whole file, without merging a multi-document file document by
/// document: what that shortcut must reach.
pub fn merge_whole_file(
    base: &[u8],
    ours: &[u8],
    theirs: &[u8],
    opts: &MergeOptions,
) -> anyhow::Result<Outcome> {
    merge_bytes_by(base, ours, theirs, opts, Shortcut::WholeFile)
}

/// Whether the driver merges these three texts document by document (its shortcut applies).
pub fn merged_by_documents(base: &str, ours: &str, theirs: &str, opts: &MergeOptions) -> bool {
    crate::driver::by_documents(base, ours, theirs, opts).is_some()
}

/// How the direct block reader fared on `text` against granit-parser: `Ok(true)` when it
/// built granit's tree, `Ok(false)` when it stood aside (or neither parser took the text),
/// else the first difference.
pub fn block_reader_agrees(text: &str) -> Result<bool, String> {
    match parse::read_both(text) {
        parse::ReadBy::Both => Ok(true),
        parse::ReadBy::GranitOnly | parse::ReadBy::Neither => Ok(false),
        parse::ReadBy::Differ(d) => Err(d),
        parse::ReadBy::ReaderOnly(tree) => Err(format!(
            "read directly into {} nodes, but granit refuses the text",
            tree.nodes.len()
        )),
    }
}

/// Whether a conflicted result of the three texts holds whichever side a person takes (git's
/// default marker size): each side parses and keeps that side's data plus the other side's
/// changes outside the conflicts.
pub fn sides_hold(base: &str, ours: &str, theirs: &str, result: &str) -> Result<(), String> {
    let versions =
        Versions::parse(base, ours, theirs).map_err(|e| format!("{:#}", Reason::from(e)))?;
    crate::verify::sides_hold(&versions, result.as_bytes(), 7, None).map_err(|e| e.what)
}
