//! Line arithmetic on source text: the splice works in whole lines wherever it can, so that
//! what it leaves untouched stays byte-identical.

/// The offset where the line holding `at` starts. A byte-order mark is not part of the first
/// line: columns count from after it, and nothing is placed before it.
pub fn line_start(text: &str, at: usize) -> usize {
    let bom = '\u{feff}'.len_utf8();
    let first = if text.starts_with('\u{feff}') && at >= bom {
        bom
    } else {
        0
    };
    text[..at].rfind('\n').map_or(first, |i| i + 1)
}

/// The offset of the line break ending the line holding `at` (before a `\r\n`'s `\r`), or the
/// end of the text.
pub fn line_end(text: &str, at: usize) -> usize {
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    if end > at && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// The offset just after the line break ending the line holding `at` (the end of the text if
/// the last line has none).
pub fn next_line_start(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i + 1)
}

/// The number of spaces that open the line holding `at`.
pub fn indent_of_line(text: &str, at: usize) -> usize {
    let start = line_start(text, at);
    text[start..].bytes().take_while(|&b| b == b' ').count()
}

/// Of the offsets `found` in `text` (where a byte memchr looked for stands), those that open a
/// line: a scan for what only counts at a line's start jumps between the few such bytes.
pub(crate) fn at_line_starts<'t>(
    text: &'t [u8],
    found: impl Iterator<Item = usize> + 't,
) -> impl Iterator<Item = usize> + 't {
    found.filter(move |&at| at == 0 || text[at - 1] == b'\n')
}

/// The `-` that opens the sequence item whose content starts at `item`.
pub(crate) fn dash_of(text: &str, item: usize) -> usize {
    let trimmed = text[..item].trim_end_matches([' ', '\t', '\r', '\n']);
    // The dash's line may end in a comment (`- # why`, the content on the lines below): the
    // dash is the last of the dashes before the comment, where nothing else stands there.
    let last_line = line_start(trimmed, trimmed.len());
    let line = &trimmed[last_line..];
    if let Some(hash) = line.find(" #").or_else(|| line.find("\t#")) {
        let before = line[..hash].trim_end();
        if before.ends_with('-')
            && !before.contains("--")
            && before.chars().all(|c| matches!(c, ' ' | '\t' | '-'))
        {
            return last_line + before.len() - 1;
        }
    }
    if trimmed.ends_with('-') && !line.trim_start().starts_with('#') {
        trimmed.len() - 1
    } else {
        item
    }
}

/// Whether a line is a document's `---` line (with or without content after it): YAML's
/// marker is three dashes and then a space, a tab or the line's end.
pub(crate) fn is_separator(line: &str) -> bool {
    line.strip_prefix("---")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

#[cfg(test)]
mod tests {
    use super::dash_of;

    /// The dash before an item's content: on its line, alone on the line above, or above with
    /// a comment after it; a comment line with dashes in it is no dash.
    #[test]
    fn the_dash_of_an_item() {
        let at = |text: &str, item: &str| dash_of(text, text.find(item).unwrap_or_default());
        assert_eq!(at("l:\n- a: 1\n", "a:"), 3);
        assert_eq!(at("l:\n-\n  a: 1\n", "a:"), 3);
        assert_eq!(at("l:\n- # why\n  a: 1\n", "a:"), 3);
        assert_eq!(at("l:\n- - # why -\n    a: 1\n", "a:"), 5);
        let comment = "l:\n  # - no -\n  a: 1\n";
        assert_eq!(at(comment, "a:"), comment.find("a:").unwrap_or_default());
    }
}
