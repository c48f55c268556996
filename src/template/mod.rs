//! Helm chart templates merged by structure: each version read as a YAML skeleton
//! ([`mask`]), the skeletons merged and checked by the ordinary engine, the tokens put back.
//!
//! The control lines (`{{- if }}`, `{{- end }}`, `{{- toYaml … }}`) are comments to the engine,
//! so their merge is checked on its own: the control lines of a clean result must be the 3-way
//! merge of the three versions' control lines, in order; where both sides changed the control
//! lines of one place, no merge is guessed.

mod mask;

use crate::merge::diff3::{diff3, Chunk};

pub(crate) use mask::Tokens;

/// The three versions of a template as skeletons, with the texts behind their tokens.
pub(crate) struct Skeletons {
    pub tokens: Tokens,
    pub base: String,
    pub ours: String,
    pub theirs: String,
}

impl Skeletons {
    /// Masks the three versions; `None` if one holds what the masking does not cover.
    pub(crate) fn read(base: &str, ours: &str, theirs: &str) -> Option<Skeletons> {
        let mut tokens = Tokens::default();
        let base = tokens.mask(base)?;
        let ours = tokens.mask(ours)?;
        let theirs = tokens.mask(theirs)?;
        Some(Skeletons {
            tokens,
            base,
            ours,
            theirs,
        })
    }
}

/// The control lines a merge of the three skeletons must hold: the 3-way merge of their
/// control lines, or `None` where both sides changed one stretch of them differently.
pub(crate) fn merged_controls(base: &str, ours: &str, theirs: &str) -> Option<Vec<String>> {
    let [b, o, t] = [base, ours, theirs].map(mask::controls);
    let mut out = Vec::new();
    for chunk in diff3(&b, &o, &t) {
        match chunk {
            Chunk::Same { ours } | Chunk::Ours { ours } | Chunk::Both { ours, .. } => {
                out.extend_from_slice(&o[ours])
            }
            Chunk::Theirs { theirs, .. } => out.extend_from_slice(&t[theirs]),
            Chunk::Conflict { .. } => return None,
        }
    }
    Some(out)
}

/// The control lines of a skeleton, in order.
pub(crate) fn controls(skeleton: &str) -> Vec<String> {
    mask::controls(skeleton)
}
