//! The three versions of a file, parsed together and checked for what the structural merge
//! cannot take.

use anyhow::{bail, Context, Result};

use super::Tree;

/// The three versions of a file, parsed once for both the line-merge check and the
/// structural merge.
pub struct Versions<'a> {
    pub(crate) base: Tree<'a>,
    pub(crate) ours: Tree<'a>,
    pub(crate) theirs: Tree<'a>,
}

impl<'a> Versions<'a> {
    /// Parses base, ours and theirs. Errors mean "not YAML kmerge can merge" (a Helm
    /// template, a syntax error, tab indentation, duplicate keys) and say which version and
    /// where.
    pub fn parse(base: &'a str, ours: &'a str, theirs: &'a str) -> Result<Versions<'a>> {
        let parse = |name: &str, text: &'a str| -> Result<Tree<'a>> {
            // A lone CR is a YAML line break that line arithmetic here does not follow.
            if text
                .as_bytes()
                .windows(2)
                .any(|w| w[0] == b'\r' && w[1] != b'\n')
                || text.ends_with('\r')
            {
                bail!("{name} breaks lines with a bare CR");
            }
            let tree = super::parse(text)
                .with_context(|| format!("{name} is not YAML kmerge can merge"))?;
            if let Some(dup) = tree.duplicate_keys.first() {
                bail!("{name} repeats a mapping key ({dup})");
            }
            Ok(tree)
        };
        let versions = Versions {
            base: parse("base", base)?,
            ours: parse("ours", ours)?,
            theirs: parse("theirs", theirs)?,
        };
        // Comments are not data: where no version holds any, the file (a comment block, a
        // placeholder) is merged line by line, where edits of its comments count.
        let no_data = |t: &Tree| t.docs.iter().all(|d| d.root.is_none());
        if [&versions.base, &versions.ours, &versions.theirs]
            .into_iter()
            .all(no_data)
        {
            bail!("no version holds YAML data, only comments");
        }
        Ok(versions)
    }
}
