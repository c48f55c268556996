//! The `metadata.name` of each document of a file: all `merge2` needs to warn that laying a
//! patch onto a differently named resource renames it. Read where the resource model reads
//! identities ([`crate::resource::field`]), as written: a null name is still a name to warn of.

use crate::parse::{self, Kind};
use crate::resource;

/// For each document holding data, its `metadata.name` (a scalar) if it has one; `None` if
/// the text is not YAML.
pub(super) fn document_names(text: &str) -> Option<Vec<Option<String>>> {
    let tree = parse::parse(text).ok()?;
    let name = |root| {
        resource::field(&tree, root, "metadata.name")
            .filter(|&n| tree.node(n).kind == Kind::Scalar)
            .map(|n| tree.value(n).to_string())
    };
    Some(
        resource::documents(&tree)
            .into_iter()
            .map(|(doc, _)| name(doc.root))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_each_documents_metadata() {
        let text = "\
kind: A
spec:
  metadata:
    name: nested
metadata:
  labels: {name: label}
  name: first
---
# comment only
---
kind: B
metadata: {name: 'second'}
---
[a, b]
---
kind: C
name: top
";
        assert_eq!(
            document_names(text),
            Some(vec![
                Some("first".into()),
                Some("second".into()),
                None,
                None
            ])
        );
        assert_eq!(document_names(""), Some(vec![]));
        assert_eq!(document_names("a: [\n"), None);
    }
}
