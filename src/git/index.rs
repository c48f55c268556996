//! The index's conflict stages: where git keeps the three versions of a file it left in
//! conflict (stages 1, 2 and 3: base, ours, theirs), for `kmerge solve` to merge again.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::anyhow;
use git2::{IndexEntry, Repository};

use super::error;

/// The three stages of one conflicted path; a side that added or deleted the file has none.
pub(crate) struct Stages {
    pub base: Option<IndexEntry>,
    pub ours: Option<IndexEntry>,
    pub theirs: Option<IndexEntry>,
}

/// The conflicted paths of the index with their stages. A path whose stages carry different
/// names (a rename on one side) is keyed by each name it has.
pub(crate) fn conflicts(index: &git2::Index) -> anyhow::Result<BTreeMap<PathBuf, Stages>> {
    let mut all = BTreeMap::new();
    for conflict in index.conflicts().map_err(error)? {
        let conflict = conflict.map_err(error)?;
        let entries = [&conflict.ancestor, &conflict.our, &conflict.their];
        let mut names: Vec<PathBuf> = entries
            .iter()
            .filter_map(|e| e.as_ref())
            .map(entry_path)
            .collect::<anyhow::Result<_>>()?;
        names.dedup();
        let [name] = names.as_slice() else {
            continue;
        };
        all.insert(
            name.clone(),
            Stages {
                base: conflict.ancestor,
                ours: conflict.our,
                theirs: conflict.their,
            },
        );
    }
    Ok(all)
}

/// The path of an index entry, which git stores as bytes.
fn entry_path(entry: &IndexEntry) -> anyhow::Result<PathBuf> {
    let text = std::str::from_utf8(&entry.path)
        .map_err(|_| anyhow!("a conflicted path is not UTF-8: {:?}", entry.path))?;
    Ok(PathBuf::from(text))
}

/// The bytes of one stage, read from the repository's objects.
pub(crate) fn blob(repo: &Repository, entry: &IndexEntry) -> anyhow::Result<Vec<u8>> {
    let blob = repo.find_blob(entry.id).map_err(error)?;
    Ok(blob.content().to_vec())
}
