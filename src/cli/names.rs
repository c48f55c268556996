//! The `metadata.name` of each document of a file, read straight from the parser's events:
//! all `merge2` needs to warn that laying a patch onto a differently named resource renames
//! it, without building a tree of the whole file.

use granit_parser::{Event, Parser, ScalarStyle};

/// An open collection: whether it is a mapping expecting a key next, the key whose value is
/// being read, and whether it is a root's `metadata` mapping.
struct Frame {
    map: bool,
    key_next: bool,
    key: Option<String>,
    metadata: bool,
}

/// For each document holding data, its `metadata.name` (a scalar) if it has one; `None` if
/// the text is not YAML.
pub(super) fn document_names(text: &str) -> Option<Vec<Option<String>>> {
    let mut docs: Vec<(bool, Option<String>)> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for next in Parser::new_from_str(text) {
        let (event, _) = next.ok()?;
        match event {
            Event::DocumentStart(..) => docs.push((false, None)),
            Event::MappingStart(..) | Event::SequenceStart(..) => {
                let map = matches!(event, Event::MappingStart(..));
                let metadata = stack.len() == 1
                    && stack[0].map
                    && !stack[0].key_next
                    && stack[0].key.as_deref() == Some("metadata");
                if stack.is_empty() {
                    if let Some(doc) = docs.last_mut() {
                        doc.0 = true;
                    }
                }
                stack.push(Frame {
                    map,
                    key_next: true,
                    key: None,
                    metadata: metadata && map,
                });
            }
            Event::MappingEnd | Event::SequenceEnd => {
                stack.pop();
                // A collection used as a key names nothing.
                node_done(&mut stack, None);
            }
            Event::Scalar(value, style, ..) => {
                let Some(frame) = stack.last() else {
                    let null = style == ScalarStyle::Plain
                        && matches!(value.as_ref(), "" | "~" | "null" | "Null" | "NULL");
                    if let Some(doc) = docs.last_mut() {
                        doc.0 = !null;
                    }
                    continue;
                };
                if frame.metadata && !frame.key_next && frame.key.as_deref() == Some("name") {
                    if let Some(doc) = docs.last_mut() {
                        doc.1 = Some(value.to_string());
                    }
                }
                node_done(&mut stack, Some(value.to_string()));
            }
            Event::Alias(_) => node_done(&mut stack, None),
            _ => {}
        }
    }
    Some(
        docs.into_iter()
            .filter(|(data, _)| *data)
            .map(|(_, name)| name)
            .collect(),
    )
}

/// A node ended inside the innermost collection: in a mapping, a key (remembered when it is
/// a scalar) or its value.
fn node_done(stack: &mut [Frame], scalar: Option<String>) {
    if let Some(frame) = stack.last_mut().filter(|f| f.map) {
        if frame.key_next {
            frame.key = scalar;
        }
        frame.key_next = !frame.key_next;
    }
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
