//! A multi-document file cut at its `---` lines, each document named by a strict scan of its
//! top lines, without parsing it: most documents of a large manifest are the same text in two
//! versions, and those need no tree (see the driver's `by_documents`).
//!
//! The scan answers only where the text leaves no doubt: block maps with plain or simply quoted
//! one-line values for `apiVersion`, `kind` and `metadata.name`/`namespace`, no repeated
//! top-level key, no directive or `...` line, no BOM, no CR. Anything else is `None`, and the
//! caller parses the file as a whole.

use std::collections::HashSet;

/// One document's text (from its `---` line, or the start of the file, up to the next
/// `---` line) and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Piece<'a> {
    pub text: &'a str,
    pub name: Name,
}

/// What a piece holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Name {
    /// Only comments and blank lines (the head of a file before its first `---`).
    Comments,
    /// A resource: `group/Kind namespace/name`.
    Resource(String),
}

/// The file's documents, each named, in order; `None` where the scan cannot be sure of every
/// one, where a name repeats, or where the file holds fewer than two documents.
pub(crate) fn split(text: &str) -> Option<Vec<Piece<'_>>> {
    if text.starts_with('\u{feff}') || text.contains('\r') {
        return None;
    }
    let mut pieces = Vec::new();
    let mut seen = HashSet::new();
    for (i, piece) in cut(text)?.into_iter().enumerate() {
        let name = name_of(piece)?;
        if name == Name::Comments && i > 0 {
            return None;
        }
        if !seen.insert(name.clone()) {
            return None;
        }
        pieces.push(Piece { text: piece, name });
    }
    (pieces.len() >= 2).then_some(pieces)
}

/// The text cut before each `---` line; `None` where a line is a directive, a `...` or a
/// `---` with content after it, or where a document is empty.
pub(crate) fn cut(text: &str) -> Option<Vec<&str>> {
    let mut starts = vec![0];
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches('\n');
        if bare.starts_with('%') || is_marker(bare, "...") {
            return None;
        }
        if is_marker(bare, "---") {
            let rest = bare[3..].trim_start();
            if !(rest.is_empty() || rest.starts_with('#')) {
                return None;
            }
            if at > 0 {
                starts.push(at);
            }
        }
        at += line.len();
    }
    starts.push(text.len());
    let mut pieces: Vec<&str> = Vec::with_capacity(starts.len());
    for w in starts.windows(2) {
        let piece = &text[w[0]..w[1]];
        // An empty document (a `---` with only comments below it): the whole merge pairs
        // those its own way.
        if piece.starts_with("---") && comments_only(piece) {
            return None;
        }
        if !piece.is_empty() {
            pieces.push(piece);
        }
    }
    Some(pieces)
}

/// Whether a piece holds no content: `---` lines, comments and blank lines only.
fn comments_only(piece: &str) -> bool {
    piece.lines().all(|l| {
        let t = l.trim_start();
        t.is_empty() || t.starts_with('#') || is_marker(l, "---")
    })
}

/// Whether a line is the marker `m` (`---`, `...`) alone or followed by a space or tab.
fn is_marker(line: &str, m: &str) -> bool {
    line.strip_prefix(m)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
}

/// The name of one document, by its top-level keys; `None` where anything is unusual.
fn name_of(doc: &str) -> Option<Name> {
    let mut api = None;
    let mut kind = None;
    let mut name = None;
    let mut namespace = None;
    let mut keys = HashSet::new();
    let mut in_metadata = false;
    let mut child_indent = None;
    // A value that may continue on the next lines (a multi-line plain scalar): the next
    // content line must not be indented under it.
    let mut watch_indent: Option<usize> = None;
    let mut content = false;
    for line in doc.lines() {
        let trimmed = line.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') || is_marker(line, "---") {
            continue;
        }
        content = true;
        let indent = line.len() - trimmed.len();
        if let Some(w) = watch_indent.take() {
            if indent > w {
                return None;
            }
        }
        if trimmed.starts_with('\t') {
            return None;
        }
        if indent == 0 && trimmed.starts_with('-') {
            // A list flush with its key (`rules:` then `- apiGroups:`): the value of the
            // top-level key above, which must not be `metadata`.
            if keys.is_empty() || in_metadata {
                return None;
            }
        } else if indent == 0 {
            let (key, value) = entry(line)?;
            if !keys.insert(key) {
                return None;
            }
            in_metadata = false;
            match key {
                "apiVersion" => api = Some(scalar(value)?),
                "kind" => kind = Some(scalar(value)?),
                "metadata" => {
                    if !value.is_empty() {
                        return None;
                    }
                    in_metadata = true;
                    child_indent = None;
                }
                _ => {}
            }
            if matches!(key, "apiVersion" | "kind") {
                watch_indent = Some(0);
            }
        } else if in_metadata {
            let first = *child_indent.get_or_insert(indent);
            if indent < first {
                return None;
            }
            if indent == first {
                let (key, value) = entry(trimmed)?;
                match key {
                    "name" if name.is_none() => name = Some(scalar(value)?),
                    "namespace" if namespace.is_none() => namespace = Some(scalar(value)?),
                    "name" | "namespace" => return None,
                    _ => {}
                }
                if matches!(key, "name" | "namespace") {
                    watch_indent = Some(indent);
                }
            }
        }
    }
    if !content {
        return Some(Name::Comments);
    }
    let (api, kind, name) = (api?, kind?, name?);
    if kind.ends_with("List") {
        return None;
    }
    let group = api.rsplit_once('/').map_or("", |(g, _)| g);
    Some(Name::Resource(format!(
        "{group}/{kind} {}/{name}",
        namespace.unwrap_or_default()
    )))
}

/// `key: value` of a block map line: a plain key, then `:` and a space or the line's end.
fn entry(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    if key.is_empty() || !key.chars().all(ok) {
        return None;
    }
    let rest = &line[colon + 1..];
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let value = match rest.find(" #") {
        Some(i) => &rest[..i],
        None => rest,
    };
    Some((key, value.trim()))
}

/// A one-line value that reads the same as text whatever the YAML rules: plain name-like
/// characters, or those inside plain quotes.
fn scalar(value: &str) -> Option<String> {
    let inner = match value.as_bytes().first()? {
        b'"' | b'\'' => {
            let q = &value[..1];
            value.strip_prefix(q)?.strip_suffix(q)?
        }
        _ => value,
    };
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | ':');
    (!inner.is_empty() && inner.chars().all(ok)).then(|| inner.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Option<Vec<String>> {
        split(text).map(|p| {
            p.iter()
                .map(|p| match &p.name {
                    Name::Comments => "#".to_string(),
                    Name::Resource(r) => r.clone(),
                })
                .collect()
        })
    }

    #[test]
    fn documents_are_cut_at_their_separators_and_named() {
        let text = "# head\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec: {}\n--- # two\napiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    name: x\n  name: \"web\"\n";
        assert_eq!(
            names(text),
            Some(vec![
                "#".into(),
                "apps/Deployment shop/web".into(),
                "/Service /web".into()
            ])
        );
        let pieces = split(text).unwrap();
        assert_eq!(pieces.iter().map(|p| p.text).collect::<String>(), text);
        assert!(pieces[2].text.starts_with("--- # two\n"));
    }

    #[test]
    fn anything_unusual_is_left_to_the_parser() {
        let two =
            |a: &str| format!("{a}---\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n");
        let unsure = [
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\n",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n    continued\n",
            "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: &n a\n",
            "apiVersion: v1\nkind: ServiceList\nmetadata:\n  name: a\n",
            "apiVersion: v1\nkind: Service\nkind: Pod\nmetadata:\n  name: a\n",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n",
            "apiVersion: v1\nkind: Service\nmetadata:\n- name: a\n",
            "%YAML 1.2\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n",
            "- a\n",
            "---\n# Source: a\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n",
        ];
        for first in unsure {
            assert_eq!(names(&two(first)), None, "{first}");
        }
        assert_eq!(
            names("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n"),
            None
        );
        assert!(names(&two(
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n"
        ))
        .is_some());
        let flush =
            "apiVersion: v1\nkind: Role\nmetadata:\n  name: a\nrules:\n- apiGroups:\n  - x\n";
        assert!(names(&two(flush)).is_some());
    }
}
