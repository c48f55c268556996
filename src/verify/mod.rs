//! Results checked as data before they are written.

use std::collections::HashSet;

use crate::fallback::Reason;
use crate::{parse, resource};

/// A clean structural result must read back as YAML with no repeated key; if the splice broke
/// it, that is a bug, and the line merge is safer.
pub(crate) fn reads_back(text: &str) -> Result<(), Reason> {
    let merged = parse::parse(text)
        .map_err(|e| Reason::Internal(format!("the merged text does not parse: {e}")))?;
    if let Some(dup) = merged.duplicate_keys.first() {
        return Err(Reason::Internal(format!(
            "the merged text repeats a mapping key ({dup})"
        )));
    }
    Ok(())
}

/// Whether git's clean line merge may be taken as it is: it must still parse, with no
/// duplicate (map key, resource identity, list element name) that none of the inputs had —
/// the mark of two insertions git placed apart. The inputs are parsed only when the result
/// holds a duplicate or does not parse, so the common clean merge costs one parse.
pub(crate) fn line_result_is_sound(base: &str, ours: &str, theirs: &str, merged: &str) -> bool {
    let inputs = [base, ours, theirs];
    match parse::parse(merged) {
        Ok(tree) => {
            let found = duplicates(&tree);
            drop(tree);
            found.is_empty() || {
                let known: HashSet<String> = inputs
                    .iter()
                    .filter_map(|t| parse::parse(t).ok())
                    .flat_map(|t| duplicates(&t))
                    .collect();
                found.is_subset(&known)
            }
        }
        // Git's result is what the fallback gives for input that is not YAML either.
        Err(_) => inputs.iter().any(|t| parse::parse(t).is_err()),
    }
}

/// Everything a file holds twice: mapping keys, resource identities, list element names.
fn duplicates(tree: &parse::Tree) -> HashSet<String> {
    let keys = tree
        .duplicate_keys
        .iter()
        .map(|d| d.split_once(": ").map_or(d.clone(), |(_, k)| k.to_string()));
    keys.chain(resource::duplicate_identities(tree))
        .chain(duplicate_element_names(tree))
        .collect()
}

/// `name=x` for every list element whose `name` another element of the same list carries:
/// two containers or env vars with one name are what git leaves when both sides add one.
fn duplicate_element_names(tree: &parse::Tree) -> Vec<String> {
    let mut out = Vec::new();
    for node in tree.nodes.iter().filter(|n| n.kind == parse::Kind::Seq) {
        let mut seen = HashSet::new();
        for &e in &node.children {
            if let Some(name) = tree.get_str(e, "name") {
                if !seen.insert(name) {
                    out.push(format!("name={name}"));
                }
            }
        }
    }
    out
}
