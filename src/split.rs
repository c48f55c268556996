//! A multi-document file cut at its `---` lines, each document named by a strict scan of its
//! top lines, without parsing it: most documents of a large manifest are the same text in two
//! versions, and those need no tree (see the driver's `by_documents`).
//!
//! The scan answers only where the text leaves no doubt: block maps with plain or simply quoted
//! one-line values for `apiVersion`, `kind` and `metadata.name`/`namespace`, no repeated
//! top-level key, no directive or `...` line, no BOM, no CR. Anything else is `None`, and the
//! caller parses the file as a whole.

use std::collections::HashSet;

use crate::resource::{Fields, Identity};

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
    /// A resource, named by its identity.
    Resource(Identity),
}

/// The file's documents, each named, in order; `None` where the scan cannot be sure of every
/// one, where a name repeats, or where the file holds fewer than two documents.
pub(crate) fn split(text: &str) -> Option<Vec<Piece<'_>>> {
    let pieces = named(text)?;
    let mut seen = HashSet::new();
    if !pieces.iter().all(|p| seen.insert(&p.name)) {
        return None;
    }
    (pieces.len() >= 2).then_some(pieces)
}

/// The file's documents, each named, in order, a name possibly repeated; `None` where the
/// scan cannot be sure of every one.
pub(crate) fn named(text: &str) -> Option<Vec<Piece<'_>>> {
    if text.starts_with('\u{feff}') || text.contains('\r') {
        return None;
    }
    let mut pieces = Vec::new();
    for (i, piece) in cut(text)?.into_iter().enumerate() {
        let name = name_of(piece)?;
        if name == Name::Comments && i > 0 {
            return None;
        }
        pieces.push(Piece { text: piece, name });
    }
    Some(pieces)
}

/// The identity of each document of a file, as the parser reads it ([`Identity::of`]), by
/// the same strict scan: a package update needs only the names of a file one side left alone.
/// `None` where the scan cannot be sure of every document, where one has no identity (plain
/// YAML) or shares one with another, or where the file holds none.
pub(crate) fn identities(text: &str) -> Option<Vec<Identity>> {
    if text.starts_with('\u{feff}') || text.contains('\r') {
        return None;
    }
    let mut ids = Vec::new();
    let mut seen = HashSet::new();
    for piece in cut(text)? {
        // Comments before the first document belong to it.
        let Some(head) = head(piece, true)? else {
            continue;
        };
        if head.null {
            return None;
        }
        let id = head.fields.identity()?;
        if !seen.insert(id.clone()) {
            return None;
        }
        ids.push(id);
    }
    (!ids.is_empty()).then_some(ids)
}

/// The text cut before each `---` line; `None` where a line is a directive, a `...` or a
/// `---` with content after it, or where a document is empty.
pub(crate) fn cut(text: &str) -> Option<Vec<&str>> {
    let mut starts = vec![0];
    for (at, bare) in lines_at(text) {
        if !bare.starts_with(['%', '.', '-']) {
            continue;
        }
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

/// The lines of a text without their line breaks, each with where it starts (as `lines()`
/// gives them, where no CR stands in the text): found with memchr, since most lines of a
/// manifest are short and the scan of a large one visits them all.
fn lines_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let b = text.as_bytes();
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= b.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &b[start..]).map_or(b.len(), |p| start + p);
        let line = (start, &text[start..end]);
        start = end + 1;
        Some(line)
    })
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
pub(crate) fn name_of(doc: &str) -> Option<Name> {
    let Some(head) = head(doc, false)? else {
        return Some(Name::Comments);
    };
    let f = &head.fields;
    if f.api_version.is_none() || f.name.is_none() || f.kind.as_ref()?.ends_with("List") {
        return None;
    }
    f.identity().map(Name::Resource)
}

/// What the scan read at the top of a document: the identity fields as their values read
/// (quotes taken off), each where the document has it.
struct Head {
    fields: Fields<String>,
    /// One of those is a plain `null`, `Null` or `NULL`: no value to YAML.
    null: bool,
}

/// The head of one document, by its top-level keys; `Some(None)` for a piece of comments
/// only, `None` where anything is unusual. `strict` also refuses any line that opens a quoted
/// scalar or a flow collection it does not close: the parser reads the lines below as its
/// text whatever their indentation, and they could look like keys of the head.
fn head(doc: &str, strict: bool) -> Option<Option<Head>> {
    let mut head = Head {
        fields: Fields::default(),
        null: false,
    };
    // A document's top-level keys are few: compared one by one, without a set.
    let mut keys: Vec<&str> = Vec::new();
    let mut in_metadata = false;
    let mut child_indent = None;
    // A value that may continue on the next lines (a multi-line plain scalar): the next
    // content line must not be indented under it.
    let mut watch_indent: Option<usize> = None;
    let mut content = false;
    // The column a block scalar's content lines are indented past.
    let mut block: Option<usize> = None;
    // Without a tab, an indented line outside `metadata` matters only as the first content
    // or under a value that may go on: the rest of a large document is skipped unread.
    let skim = !strict && memchr::memchr(b'\t', doc.as_bytes()).is_none();
    for (_, line) in lines_at(doc) {
        if skim && content && !in_metadata && watch_indent.is_none() && line.starts_with(' ') {
            continue;
        }
        let trimmed = line.trim_start_matches(' ');
        if trimmed.is_empty() || trimmed.starts_with('#') || is_marker(line, "---") {
            continue;
        }
        content = true;
        let indent = line.len() - trimmed.len();
        if strict {
            if block.is_some_and(|column| indent > column) {
                continue;
            }
            block = None;
            match flow_line(line) {
                Flow::Closed => {}
                Flow::Block(column) => block = Some(column),
                Flow::Open => return None,
            }
        }
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
            if keys.contains(&key) {
                return None;
            }
            keys.push(key);
            in_metadata = false;
            match key {
                "apiVersion" => head.fields.api_version = Some(scalar(value)?),
                "kind" => head.fields.kind = Some(scalar(value)?),
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
                head.null |= is_null(value);
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
                    "name" if head.fields.name.is_none() => head.fields.name = Some(scalar(value)?),
                    "namespace" if head.fields.namespace.is_none() => {
                        head.fields.namespace = Some(scalar(value)?)
                    }
                    "name" | "namespace" => return None,
                    _ => {}
                }
                if matches!(key, "name" | "namespace") {
                    head.null |= is_null(value);
                    watch_indent = Some(indent);
                }
            }
        }
    }
    Some(content.then_some(head))
}

/// How a line leaves the flow of the text.
enum Flow {
    /// Nothing goes on below it.
    Closed,
    /// A block scalar opens: the lines indented past this column are its text.
    Block(usize),
    /// A quoted scalar or flow collection goes on below it, or the scan cannot tell.
    Open,
}

/// Reads a line's list dashes, key and value: whether its value is a block scalar header,
/// or a quoted scalar or flow collection that does not end on the line.
fn flow_line(line: &str) -> Flow {
    // Most lines hold none of the characters that open anything.
    if !line
        .bytes()
        .any(|b| matches!(b, b'"' | b'\'' | b'[' | b'{' | b'|' | b'>'))
    {
        return Flow::Closed;
    }
    let mut column = line.len() - line.trim_start_matches(' ').len();
    let mut rest = &line[column..];
    while let Some(after) = rest.strip_prefix("- ").or((rest == "-").then_some("")) {
        let skipped = rest.len() - after.trim_start_matches(' ').len();
        column += skipped;
        rest = &rest[skipped..];
    }
    // A quoted key, then its value.
    if rest.starts_with(['"', '\'']) {
        let Some(end) = quoted_end(rest) else {
            return Flow::Open;
        };
        match rest[end..].trim_start_matches(' ').strip_prefix(':') {
            Some(value) => rest = value,
            None => return trailing(&rest[end..]),
        }
    } else if let Some(at) = rest
        .find(": ")
        .or(rest.ends_with(':').then(|| rest.len() - 1))
    {
        if rest[..at].contains(['"', '\'', '[', '{']) {
            return Flow::Open;
        }
        rest = &rest[at + 1..];
    } else if !rest.starts_with(['[', '{']) {
        return Flow::Closed;
    }
    let mut value = rest.trim_start_matches(' ');
    // Anchors and tags before the value.
    while value.starts_with(['&', '!']) {
        value = value
            .split_once(' ')
            .map_or("", |(_, v)| v)
            .trim_start_matches(' ');
    }
    match value.as_bytes().first() {
        Some(b'|' | b'>') => Flow::Block(column),
        Some(b'"' | b'\'') => match quoted_end(value) {
            Some(end) => trailing(&value[end..]),
            None => Flow::Open,
        },
        Some(b'[' | b'{') => {
            let closed = !value.contains(['"', '\'', '#'])
                && value.matches('[').count() == value.matches(']').count()
                && value.matches('{').count() == value.matches('}').count()
                && value.trim_end().ends_with([']', '}']);
            if closed {
                Flow::Closed
            } else {
                Flow::Open
            }
        }
        _ => Flow::Closed,
    }
}

/// Where the quoted scalar that opens `text` ends (past its closing quote), if on this line.
fn quoted_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let quote = bytes[0];
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// What may follow a closed value on its line: nothing, or a comment.
fn trailing(rest: &str) -> Flow {
    let rest = rest.trim_start_matches(' ');
    if rest.is_empty() || rest.starts_with('#') {
        Flow::Closed
    } else {
        Flow::Open
    }
}

/// A plain scalar YAML reads as null (the scan's values hold no `~`).
fn is_null(value: &str) -> bool {
    matches!(value, "null" | "Null" | "NULL")
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
                    Name::Resource(r) => {
                        format!("{}/{} {}/{}", r.group, r.kind, r.namespace, r.name)
                    }
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
            // Indented lines the scan skims past still count: as content, under a value
            // that may go on, and where a tab stands in them.
            "  apiVersion: v1\n  kind: Service\n",
            "apiVersion: v1\nkind: Service\n  continued\nmetadata:\n  name: a\n",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\nspec:\n  \tx: 1\n",
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

    #[test]
    fn identities_are_the_parsers_or_none() {
        let named = identities(
            "# head\n---\napiVersion: v1\nitems:\n- kind: Pod\nkind: ConfigMapList\n---\nkind: Namespace\nmetadata:\n  name: \"web\"\n",
        );
        assert_eq!(
            named.map(|ids| ids.iter().map(|id| id.to_string()).collect::<Vec<_>>()),
            Some(vec![
                "ConfigMapList".to_string(),
                "Namespace web".to_string()
            ])
        );
        let cases = [
            "apiVersion: v1\nkind: null\nmetadata:\n  name: a\n",
            "apiVersion: v1\nkind: Service\nmetadata:\n  name: NULL\n",
            "a: 1\n",
            "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: A\nmetadata:\n  name: a\n",
            "kind: A\nspec:\n  text: \"abc\nkind: B\n  def\"\n",
            "kind: A\nmetadata:\n  annotations: \"abc\n  namespace: ns\n  d: e\"\n",
            "kind: A\nspec: [a,\nkind: B]\n",
            "kind: A\nspec: 'abc\nmetadata:\n  name: x'\n",
            "kind: A\nspec:\n  x: |\n    kind: B\n",
            "spec:\n  text: \"abc\nkind: B\n  def\"\n",
            "spec:\n  - \"abc\nkind: B\n  def\"\n",
            "spec:\n  \"a b\": {x: [1,\nkind: B]}\n",
            "spec:\n  t: !!str &x 'it''s\nkind: B'\n",
        ];
        for text in cases {
            let Some(ids) = identities(text) else {
                continue;
            };
            // A text the scan names but the parser refuses is merged whole either way.
            let Ok(tree) = crate::parse::parse(text) else {
                continue;
            };
            let parsed: Vec<Option<Identity>> = crate::resource::documents(&tree)
                .into_iter()
                .map(|(_, id)| id)
                .collect();
            assert_eq!(
                ids.into_iter().map(Some).collect::<Vec<_>>(),
                parsed,
                "{text}"
            );
        }
    }
}
