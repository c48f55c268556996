#![allow(dead_code)] // each fuzz target uses one check, the regression test both
//! The invariants the fuzz targets assert, shared word for word with
//! `tests/fuzz_regressions.rs`, which replays the saved crash inputs through them in CI.
//!
//! A violated invariant panics. Under libFuzzer any panic aborts the process, even one that
//! `merge_bytes` catches and turns into a line-merge fallback, so a panic inside the engine is
//! found as a crash too; the regression test sees such panics as an "internal error" message.

use kmerge::driver::merge_bytes;
use kmerge::options::{MergeOptions, Policy};
use kmerge::testing::{
    accepts, block_reader_agrees, line_result_is_sound, merge_structurally, parses, repeats_a_key,
    span_tree_errors,
};

/// Every policy, in the order the checks run them.
pub const POLICIES: [Policy; 3] = [Policy::Mark, Policy::Theirs, Policy::Ours];

/// The separator byte of a `merge3` input: `base NUL ours NUL theirs`. YAML text holds no NUL,
/// so the three parts stay ordinary text the fuzzer can mutate.
pub const SEPARATOR: u8 = 0;

/// Splits one fuzz input into base, ours and theirs; missing parts are empty.
pub fn split3(data: &[u8]) -> (&[u8], &[u8], &[u8]) {
    let mut parts = data.splitn(3, |&b| b == SEPARATOR);
    let base = parts.next().unwrap_or_default();
    let ours = parts.next().unwrap_or_default();
    let theirs = parts.next().unwrap_or_default();
    (base, ours, theirs)
}

fn options(policy: Policy) -> MergeOptions {
    MergeOptions {
        policy,
        ..MergeOptions::default()
    }
}

/// Whether a text has a line starting with a conflict marker (as the driver looks for them).
fn has_marker_lines(bytes: &[u8]) -> bool {
    bytes
        .split(|&b| b == b'\n')
        .any(|l| l.starts_with(b"<<<<<<<") || l.starts_with(b">>>>>>>"))
}

/// `parse` target: the span tree of any text is consistent, the direct block reader builds
/// granit's tree or stands aside, and merging a text with itself changes nothing.
pub fn check_parse(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(difference) = block_reader_agrees(text) {
        panic!("the block reader and granit differ: {difference}");
    }
    let Some(errors) = span_tree_errors(text) else {
        return;
    };
    assert!(errors.is_empty(), "inconsistent span tree: {errors:#?}");
    // The structural merge refuses more than the parser does (bare CR line breaks, files of
    // only comments), but never accepts a text with a repeated key.
    if !accepts(text, text, text) {
        return;
    }
    assert!(
        !repeats_a_key(text),
        "the structural merge accepted a text that repeats a mapping key"
    );
    assert!(
        line_result_is_sound(text, text, text, text),
        "a text is not a sound line-merge result of itself"
    );
    for policy in POLICIES {
        // An error is a refusal (two documents with one identity): the driver falls back.
        if let Ok((merged, conflicts)) = merge_structurally(text, text, text, &options(policy)) {
            assert_eq!(
                conflicts, 0,
                "{policy:?}: merging a text with itself conflicts"
            );
            assert_eq!(
                merged, text,
                "{policy:?}: merging a text with itself changed it"
            );
        }
    }
}

/// `merge3` target: `merge_bytes` never fails, never reaches an internal error, a clean
/// structural result parses, conflict markers appear exactly when it reports conflicts, and
/// the trivial merges return the expected side.
pub fn check_merge3(data: &[u8]) {
    let (base, ours, theirs) = split3(data);
    if [base, ours, theirs]
        .into_iter()
        .any(kmerge::git::line_merge::is_binary)
    {
        // Binary to git (a NUL byte): ours is kept as it is, with a conflict.
        for policy in POLICIES {
            let out = merge_bytes(base, ours, theirs, &options(policy))
                .unwrap_or_else(|e| panic!("{policy:?}: merge_bytes failed: {e:#}"));
            assert!(
                out.bytes == ours,
                "{policy:?}: a binary version did not keep ours as it is"
            );
        }
        return;
    }
    let texts = [base, ours, theirs].map(|t| std::str::from_utf8(t).ok());
    let all_parse = match texts {
        [Some(b), Some(o), Some(t)] => accepts(b, o, t),
        _ => false,
    };
    let markers_in_inputs = [base, ours, theirs].into_iter().any(has_marker_lines);
    for policy in POLICIES {
        let out = merge_bytes(base, ours, theirs, &options(policy))
            .unwrap_or_else(|e| panic!("{policy:?}: merge_bytes failed: {e:#}"));
        for m in &out.messages {
            assert!(!m.text().contains("internal error"), "{policy:?}: {m}");
        }
        let structural = !out
            .messages
            .iter()
            .any(|m| m.text().starts_with("line merge used"));
        if all_parse && structural && !out.conflicted {
            let text = std::str::from_utf8(&out.bytes)
                .unwrap_or_else(|e| panic!("{policy:?}: a clean merge is not UTF-8: {e}"));
            if let Err(e) = parses(text) {
                panic!("{policy:?}: a clean merge does not parse: {e}\n{text}");
            }
        }
        if !markers_in_inputs {
            assert_eq!(
                has_marker_lines(&out.bytes),
                out.conflicted,
                "{policy:?}: conflict markers in the output disagree with conflicted = {}",
                out.conflicted
            );
        }
    }
    // Theirs unchanged: ours comes back byte for byte, by git's merge (mark) or by structure.
    for policy in [Policy::Mark, Policy::Ours] {
        let out = merge_bytes(base, ours, base, &options(policy))
            .unwrap_or_else(|e| panic!("{policy:?}: merge_bytes(b, x, b) failed: {e:#}"));
        assert!(
            out.bytes == ours && !out.conflicted,
            "{policy:?}: merge(b, x, b) is not x (conflicted: {}, messages: {:?})",
            out.conflicted,
            out.messages
        );
    }
    // Ours unchanged: git's merge is clean and is theirs.
    let out = merge_bytes(base, base, theirs, &options(Policy::Mark))
        .unwrap_or_else(|e| panic!("merge_bytes(b, b, y) failed: {e:#}"));
    assert!(
        out.bytes == theirs && !out.conflicted,
        "merge(b, b, y) is not y"
    );
    // All three the same: nothing changes, whatever the policy.
    for policy in POLICIES {
        let out = merge_bytes(ours, ours, ours, &options(policy))
            .unwrap_or_else(|e| panic!("{policy:?}: merge_bytes(x, x, x) failed: {e:#}"));
        assert!(
            out.bytes == ours && !out.conflicted,
            "{policy:?}: merge(x, x, x) is not x (messages: {:?})",
            out.messages
        );
    }
}
