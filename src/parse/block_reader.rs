//! A direct reader for the block YAML that manifests are written in: maps and sequences by
//! indentation, plain, quoted and block scalars, one-line flow collections of scalars,
//! comments and `---` documents.
//!
//! granit-parser reads any YAML, but its event stream costs more than git's whole line merge
//! on a large manifest, and most manifests use a small corner of YAML. This reader walks the
//! lines once and feeds the same [`Builder`] granit's events feed, so the tree is the same
//! data structure with the same extents. Anything outside its corner (anchors, aliases, tags,
//! complex keys, multi-line flow collections, indentation indicators, tabs or control
//! characters, anything it finds unusual or invalid) makes it stand aside, and granit reads
//! the text instead: the reader never decides that a text is not YAML. The tests hold every
//! tree it builds to granit's, node for node, on every YAML file the repository carries.

use super::tree_builder::Builder;
use super::{Kind, Style, Tree};

/// The tree of `text`, or `None` where the text steps outside what this reader takes.
pub(super) fn read(text: &str) -> Option<Tree<'_>> {
    if !plain_text(text.as_bytes()) {
        return None;
    }
    let mut reader = Reader {
        text,
        b: text.as_bytes(),
        out: Builder::new(text),
        value: String::new(),
    };
    reader.file()?;
    Some(reader.out.finish())
}

/// Standing aside: granit reads the text.
type Read<T> = Option<T>;

/// The first content line after a construct: its start and indentation, or the end of the
/// text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Line { start: usize, indent: usize },
    End,
}

struct Reader<'a> {
    text: &'a str,
    b: &'a [u8],
    out: Builder<'a>,
    /// A scratch buffer for decoded scalars.
    value: String,
}

/// Whether `b` holds only characters this reader handles the way granit does: no carriage
/// return, no byte-order mark, no control or non-printable character but tab and line feed.
fn plain_text(b: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let mut i = 0;
    while i < b.len() {
        // Eight printable ASCII bytes at once (no byte below 0x20, none from 0x7f): nothing
        // to check. Any other word is checked byte by byte below.
        if let Some(word) = b.get(i..i + 8) {
            let w = u64::from_ne_bytes(word.try_into().unwrap_or_default());
            let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
            let from_del = (w.wrapping_add(ONES) | w) & HIGH;
            if below_space | from_del == 0 {
                i += 8;
                continue;
            }
        }
        let end = (i + 8).min(b.len());
        while i < end {
            if !plain_byte(b, i) {
                return false;
            }
            i += 1;
        }
    }
    true
}

/// Whether the byte at `i` (with the bytes after it) is one [`plain_text`] allows.
fn plain_byte(b: &[u8], i: usize) -> bool {
    let c = b[i];
    if c < 0x20 && c != b'\n' && c != b'\t' || c == 0x7f {
        return false;
    }
    // C1 controls (U+0080..U+009F), the byte-order mark and U+FFFE/U+FFFF.
    let c1 = c == 0xc2 && matches!(b.get(i + 1), Some(0x80..=0x9f));
    let special = c == 0xef
        && (b.get(i + 1..i + 3) == Some(&[0xbb, 0xbf])
            || matches!(b.get(i + 1..i + 3), Some([0xbf, 0xbe | 0xbf])));
    !(c1 || special)
}

/// A character that cannot start a plain scalar (or that this reader leaves to granit there).
fn special_start(c: u8) -> bool {
    matches!(
        c,
        b',' | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

fn blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

impl<'a> Reader<'a> {
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(b'\n')
    }

    /// The end of the line holding `i` (its `\n`, or the end of the text).
    fn line_end(&self, i: usize) -> usize {
        let i = i.min(self.b.len());
        memchr::memchr(b'\n', &self.b[i..]).map_or(self.b.len(), |p| i + p)
    }

    /// The start of the line after the one holding `i`.
    fn next_line(&self, i: usize) -> usize {
        (self.line_end(i) + 1).min(self.b.len())
    }

    /// Whether the line starting at `start` is a document marker (`---` or `...`).
    fn marker(&self, start: usize) -> bool {
        let m = self.b.get(start..start + 3);
        (m == Some(b"---") || m == Some(b"...")) && matches!(self.at(start + 3), b' ' | b'\n')
    }

    /// The first line from `start` (a line start) that is neither blank nor a comment.
    fn content_line(&self, mut start: usize) -> Read<Next> {
        while start < self.b.len() {
            let mut i = start;
            while self.at(i) == b' ' {
                i += 1;
            }
            match self.at(i) {
                b'\t' => return None,
                b'\n' | b'#' => start = self.next_line(i),
                _ => {
                    return Some(Next::Line {
                        start,
                        indent: i - start,
                    })
                }
            }
        }
        Some(Next::End)
    }

    /// The rest of the line from `i` holds nothing but blanks and a comment; the next
    /// content line.
    fn void_rest(&self, mut i: usize) -> Read<Next> {
        let had_space = i < self.b.len() && blank(self.at(i));
        while self.at(i) == b' ' {
            i += 1;
        }
        match self.at(i) {
            b'\n' => self.content_line(self.next_line(i)),
            b'#' if had_space => self.content_line(self.next_line(i)),
            _ => None,
        }
    }

    fn file(&mut self) -> Read<()> {
        let mut next = self.content_line(0)?;
        let mut first = true;
        while let Next::Line { start, indent } = next {
            let explicit = indent == 0 && self.b[start..].starts_with(b"---") && self.marker(start);
            if indent == 0 && (self.b[start] == b'%' || self.b[start..].starts_with(b"...")) {
                return None;
            }
            if !explicit && !first {
                return None;
            }
            first = false;
            self.out.start_document(start, explicit);
            next = if explicit {
                self.void_rest(start + 3)?
            } else {
                next
            };
            let empty = match next {
                Next::Line { start, indent } => indent == 0 && self.marker(start),
                Next::End => true,
            };
            if empty {
                // granit gives an explicit empty document a null root, after its `---`.
                self.out
                    .scalar(Style::Plain, start + 3, start + 3, "~", None)
                    .ok()?;
            } else if let Next::Line { start, indent } = next {
                next = self.block_node(start + indent, indent)?;
                if let Next::Line { start, indent } = next {
                    if !(indent == 0 && self.marker(start)) {
                        return None;
                    }
                }
            }
            let end = match next {
                Next::Line { start, .. } => start,
                Next::End => self.b.len(),
            };
            self.out.end_document(end, end);
        }
        Some(())
    }

    /// A block collection whose first token starts its line at `at`, column `col`.
    fn block_node(&mut self, at: usize, col: usize) -> Read<Next> {
        if self.dash(at) {
            self.sequence(at, col)
        } else if self.key(at).is_some() {
            self.map(at, col)
        } else {
            None
        }
    }

    /// Whether a sequence item's dash stands at `i`.
    fn dash(&self, i: usize) -> bool {
        self.at(i) == b'-' && matches!(self.at(i + 1), b' ' | b'\n')
    }

    fn sequence(&mut self, at: usize, col: usize) -> Read<Next> {
        self.out.open(Kind::Seq, false, at, at, None).ok()?;
        let mut dash = at;
        loop {
            let next = self.item(dash, col)?;
            match next {
                Next::Line { start, indent } if indent == col && self.dash(start + indent) => {
                    dash = start + indent;
                }
                Next::Line { indent, .. } if indent > col => return None,
                _ => {
                    self.out.close(0).ok()?;
                    return Some(next);
                }
            }
        }
    }

    /// The item whose dash is at `dash`, in a sequence at column `col`.
    fn item(&mut self, dash: usize, col: usize) -> Read<Next> {
        let mut i = dash + 1;
        while self.at(i) == b' ' {
            i += 1;
        }
        match self.at(i) {
            b'\n' | b'#' => self.below(dash, col, false),
            b'\t' => None,
            _ if self.dash(i) => None,
            _ if self.key(i).is_some() => {
                let line = self.text[..i].rfind('\n').map_or(0, |n| n + 1);
                self.map(i, i - line)
            }
            _ => self.inline_value(i, col),
        }
    }

    /// The value of a key or item whose own line ends after its indicator at `indicator`:
    /// a block collection on the lines below, or null. `in_map`: an indentless sequence may
    /// follow at the map's own column.
    fn below(&mut self, indicator: usize, col: usize, in_map: bool) -> Read<Next> {
        let next = self.void_rest(indicator + 1)?;
        if let Next::Line { start, indent } = next {
            let marker = indent == 0 && self.marker(start);
            if indent > col && !marker {
                return self.block_node(start + indent, indent);
            }
            if in_map && indent == col && self.dash(start + indent) {
                return self.sequence(start + indent, col);
            }
        }
        // An empty value: granit reads `~`, placed just after a key's `:`, at the end of an
        // item's line.
        let at = if in_map {
            indicator + 1
        } else {
            self.line_end(indicator)
        };
        self.out.scalar(Style::Plain, at, at, "~", None).ok()?;
        Some(next)
    }

    fn map(&mut self, at: usize, col: usize) -> Read<Next> {
        self.out.open(Kind::Map, false, at, at, None).ok()?;
        let mut key = at;
        loop {
            let colon = self.read_key(key)?;
            let mut i = colon + 1;
            while self.at(i) == b' ' {
                i += 1;
            }
            let next = match self.at(i) {
                b'\n' | b'#' => self.below(colon, col, true)?,
                b'\t' => return None,
                _ => self.inline_value(i, col)?,
            };
            match next {
                Next::Line { start, indent }
                    if indent == col && !(indent == 0 && self.marker(start)) =>
                {
                    key = start + indent;
                }
                Next::Line { indent, .. } if indent > col => return None,
                _ => {
                    self.out.close(0).ok()?;
                    return Some(next);
                }
            }
        }
    }

    /// Where the `:` of the implicit key starting at `i` is, if a key starts there.
    fn key(&self, i: usize) -> Option<usize> {
        let end = self.line_end(i);
        let colon = match self.at(i) {
            b'"' | b'\'' => {
                let close = self.quote_on_line(i, end)?;
                let mut j = close;
                while self.at(j) == b' ' {
                    j += 1;
                }
                (self.at(j) == b':').then_some(j)?
            }
            c if special_start(c) => return None,
            c => {
                if matches!(c, b'-' | b'?' | b':') && matches!(self.at(i + 1), b' ' | b'\n') {
                    return None;
                }
                let mut j = i;
                loop {
                    if j >= end {
                        return None;
                    }
                    match self.b[j] {
                        b':' if matches!(self.at(j + 1), b' ' | b'\n') && j > i => break j,
                        b'#' if blank(self.b[j - 1]) => return None,
                        b'\t' => return None,
                        _ => j += 1,
                    }
                }
            }
        };
        (colon - i <= 1024 && matches!(self.at(colon + 1), b' ' | b'\n')).then_some(colon)
    }

    /// The end (past the closing quote) of a quoted scalar opening at `i`, if it closes
    /// before `end`.
    fn quote_on_line(&self, i: usize, end: usize) -> Option<usize> {
        let q = self.b[i];
        let mut j = i + 1;
        while j < end {
            match self.b[j] {
                b'\\' if q == b'"' => j += 2,
                c if c == q => {
                    if q == b'\'' && self.at(j + 1) == b'\'' {
                        j += 2;
                    } else {
                        return Some(j + 1);
                    }
                }
                _ => j += 1,
            }
        }
        None
    }

    /// Reads the key at `i` into the tree; where its `:` is.
    fn read_key(&mut self, i: usize) -> Read<usize> {
        let colon = self.key(i)?;
        match self.b[i] {
            b'"' | b'\'' => {
                let end = self.quoted(i, usize::MAX)?;
                let style = if self.b[i] == b'"' {
                    Style::DoubleQuoted
                } else {
                    Style::SingleQuoted
                };
                let value = std::mem::take(&mut self.value);
                self.out.scalar(style, i, end, &value, None).ok()?;
                self.value = value;
            }
            _ => {
                let end = i + self.text[i..colon].trim_end_matches(' ').len();
                let key = &self.text[i..end];
                self.out.scalar(Style::Plain, i, end, key, None).ok()?;
            }
        }
        Some(colon)
    }

    /// A value starting on its key's or dash's line at `i`, in a collection at column
    /// `col`.
    fn inline_value(&mut self, i: usize, col: usize) -> Read<Next> {
        let (style, end) = match self.b[i] {
            b'|' | b'>' => return self.block_scalar(i, col),
            b'[' | b'{' => {
                let end = self.flow(i)?;
                return self.void_rest(end);
            }
            b'"' => (Style::DoubleQuoted, self.quoted(i, col)?),
            b'\'' => (Style::SingleQuoted, self.quoted(i, col)?),
            c if special_start(c) => return None,
            b'-' | b'?' | b':' if matches!(self.at(i + 1), b' ' | b'\n') => return None,
            _ => (Style::Plain, self.plain(i, col)?),
        };
        let value = std::mem::take(&mut self.value);
        let added = self.out.scalar(style, i, end, &value, None).ok();
        self.value = value;
        added?;
        self.void_rest(end)
    }

    /// Reads a plain scalar starting at `i` into `self.value`, in a collection at column
    /// `col` (continuation lines are indented deeper); where its text ends.
    fn plain(&mut self, i: usize, col: usize) -> Read<usize> {
        self.value.clear();
        let mut end = self.plain_line(i)?;
        self.value.push_str(&self.text[i..end]);
        let mut line = self.next_line(end);
        loop {
            let mut empties = 0;
            let (start, indent) = loop {
                if line >= self.b.len() {
                    return Some(end);
                }
                let mut j = line;
                while self.at(j) == b' ' {
                    j += 1;
                }
                match self.at(j) {
                    b'\n' => {
                        empties += 1;
                        line = self.next_line(j);
                    }
                    b'\t' => return None,
                    _ => break (j, j - line),
                }
            };
            if indent <= col || self.b[start] == b'#' {
                return Some(end);
            }
            if matches!(self.b[start], b'-' | b'?' | b':') && blank(self.at(start + 1)) {
                return None;
            }
            let line_end = self.plain_line(start)?;
            if line_end < self.line_end(start) {
                // A comment ends the scalar mid-way: granit decides what follows.
                return None;
            }
            if empties == 0 {
                self.value.push(' ');
            }
            for _ in 0..empties {
                self.value.push('\n');
            }
            self.value.push_str(&self.text[start..line_end]);
            end = line_end;
            line = self.next_line(end);
        }
    }

    /// The end of the plain text from `i` on its line: before a comment and trailing blanks.
    /// `None` where the line holds what could be a key (`: `) or a tab.
    fn plain_line(&self, i: usize) -> Read<usize> {
        let stop = self.line_end(i);
        let mut j = i;
        let mut end = i;
        while j < stop {
            match self.b[j] {
                b'\t' => return None,
                b':' if matches!(self.at(j + 1), b' ' | b'\n') => return None,
                b'#' if j > i && self.b[j - 1] == b' ' => break,
                b' ' => {}
                _ => end = j + 1,
            }
            j += 1;
        }
        Some(end)
    }

    /// Reads the quoted scalar opening at `i` into `self.value`, folding its lines as YAML
    /// does (continuation lines must be indented deeper than `col`; `usize::MAX`: one line
    /// only); where it ends, past the closing quote.
    fn quoted(&mut self, i: usize, col: usize) -> Read<usize> {
        let q = self.b[i];
        self.value.clear();
        let mut j = i + 1;
        // Blanks seen since the last non-blank character: kept unless a line break follows.
        let mut blanks = 0usize;
        loop {
            let c = *self.b.get(j)?;
            match c {
                b' ' | b'\t' => {
                    blanks += 1;
                    j += 1;
                    continue;
                }
                b'\n' => {
                    if col == usize::MAX {
                        return None;
                    }
                    blanks = 0;
                    j = self.fold(j, col, true)?;
                    continue;
                }
                _ => {}
            }
            if blanks > 0 {
                self.value.push_str(&self.text[j - blanks..j]);
                blanks = 0;
            }
            match c {
                b'\'' if q == b'\'' => {
                    if self.at(j + 1) == b'\'' {
                        self.value.push('\'');
                        j += 2;
                    } else {
                        return Some(j + 1);
                    }
                }
                b'"' if q == b'"' => return Some(j + 1),
                b'\\' if q == b'"' => {
                    if self.at(j + 1) == b'\n' && j + 1 < self.b.len() {
                        if col == usize::MAX {
                            return None;
                        }
                        j = self.fold(j + 1, col, false)?;
                    } else {
                        j = self.escape(j)?;
                    }
                }
                _ => {
                    let len = utf8_len(c);
                    self.value.push_str(self.text.get(j..j + len)?);
                    j += len;
                }
            }
        }
    }

    /// Folds the line break at `j` inside a quoted scalar: the empty lines after it become
    /// line feeds, a lone break a space (none after an escaped break, `spaced` false); where
    /// the next line's text starts.
    fn fold(&mut self, j: usize, col: usize, spaced: bool) -> Read<usize> {
        let mut line = j + 1;
        let mut empties = 0;
        loop {
            let mut k = line;
            while self.at(k) == b' ' {
                k += 1;
            }
            match self.at(k) {
                b'\t' => return None,
                b'\n' if k < self.b.len() => {
                    empties += 1;
                    line = k + 1;
                }
                b'\n' => return None,
                _ => {
                    if k - line <= col || (k == line && self.marker(line)) {
                        return None;
                    }
                    if spaced && empties == 0 {
                        self.value.push(' ');
                    }
                    for _ in 0..empties {
                        self.value.push('\n');
                    }
                    return Some(k);
                }
            }
        }
    }

    /// Decodes the escape at `j` (a backslash) into `self.value`; where it ends.
    fn escape(&mut self, j: usize) -> Read<usize> {
        let e = self.at(j + 1);
        let simple = match e {
            b'0' => Some('\0'),
            b'a' => Some('\u{7}'),
            b'b' => Some('\u{8}'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\u{b}'),
            b'f' => Some('\u{c}'),
            b'r' => Some('\r'),
            b'e' => Some('\u{1b}'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'/' => Some('/'),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            _ => None,
        };
        if let Some(c) = simple {
            self.value.push(c);
            return Some(j + 2);
        }
        let digits = match e {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return None,
        };
        let hex = self.text.get(j + 2..j + 2 + digits)?;
        if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let code = u32::from_str_radix(hex, 16).ok()?;
        self.value.push(char::from_u32(code)?);
        Some(j + 2 + digits)
    }

    /// A literal or folded scalar whose header is at `i`, in a collection at column `col`.
    fn block_scalar(&mut self, i: usize, col: usize) -> Read<Next> {
        let literal = self.b[i] == b'|';
        // Chomping (`-`, `+`) and an indentation indicator, in either order; the indicator
        // counts from the collection's column.
        let mut h = i + 1;
        let mut chomp = b' ';
        let mut declared = None;
        loop {
            match self.at(h) {
                c @ (b'-' | b'+') if chomp == b' ' => chomp = c,
                d @ b'1'..=b'9' if declared.is_none() => {
                    declared = Some(col + usize::from(d - b'0'));
                }
                _ => break,
            }
            h += 1;
        }
        let header_end = h;
        while self.at(h) == b' ' {
            h += 1;
        }
        if self.at(h) != b'\n' || h >= self.b.len() {
            // A comment after the header, or no content line.
            return None;
        }
        // The content's indentation: declared, or its first non-empty line's (a leading empty
        // line may not be longer).
        let first = h + 1;
        let mut line = first;
        let mut longest_empty = 0;
        let indent = loop {
            if line >= self.b.len() {
                return None;
            }
            let mut k = line;
            while self.at(k) == b' ' {
                k += 1;
            }
            match self.at(k) {
                b'\n' if k < self.b.len() => {
                    longest_empty = longest_empty.max(k - line);
                    line = k + 1;
                }
                b'\t' => return None,
                _ => break k - line,
            }
        };
        let indent = match declared {
            // No content line at the declared indentation: an empty scalar.
            Some(declared) if indent < declared => return None,
            Some(declared) => declared,
            None if indent <= col || longest_empty > indent => return None,
            None => indent,
        };
        self.value.clear();
        let mut leading_break = false;
        let mut trailing_breaks = 0usize;
        let mut leading_blank = false;
        let mut last_text = header_end;
        let mut line = first;
        // The lines that are empty (blanks up to the indentation at most) before the first
        // content line count as breaks.
        loop {
            let mut k = line;
            while self.at(k) == b' ' && k - line < indent {
                k += 1;
            }
            if k >= self.b.len() {
                break;
            }
            if self.b[k] == b'\n' {
                trailing_breaks += 1;
                line = k + 1;
                continue;
            }
            if k - line < indent {
                // A less indented line ends the scalar (a tab among the blanks too).
                break;
            }
            let trailing_blank = blank(self.b[k]);
            if !literal && leading_break && !leading_blank && !trailing_blank {
                if trailing_breaks == 0 {
                    self.value.push(' ');
                }
            } else if leading_break {
                self.value.push('\n');
            }
            for _ in 0..trailing_breaks {
                self.value.push('\n');
            }
            trailing_breaks = 0;
            leading_blank = trailing_blank;
            let end = self.line_end(k);
            self.value.push_str(&self.text[k..end]);
            // A line of only blanks past the indentation is content too (its blanks are the
            // value's): the span takes it whole, or a pass moving the lines below the span
            // would drop part of the value.
            let text_end = k + self.text[k..end].trim_end_matches([' ', '\t']).len();
            last_text = if text_end > k { text_end } else { end };
            if end >= self.b.len() {
                leading_break = false;
                line = end;
                break;
            }
            leading_break = true;
            line = end + 1;
        }
        if chomp != b'-' && leading_break {
            self.value.push('\n');
        }
        if chomp == b'+' {
            for _ in 0..trailing_breaks {
                self.value.push('\n');
            }
        }
        let style = if literal {
            Style::Literal
        } else {
            Style::Folded
        };
        let value = std::mem::take(&mut self.value);
        let added = self.out.scalar(style, i, last_text, &value, None).ok();
        self.value = value;
        added?;
        self.content_line(line)
    }

    /// A flow collection on one line, opening at `i` (`[` or `{`); where it ends, past its
    /// closing bracket.
    fn flow(&mut self, i: usize) -> Read<usize> {
        let map = self.b[i] == b'{';
        let close = if map { b'}' } else { b']' };
        let kind = if map { Kind::Map } else { Kind::Seq };
        self.out.open(kind, true, i, i, None).ok()?;
        let mut j = self.skip_spaces(i + 1);
        if self.at(j) == close {
            self.out.close(j + 1).ok()?;
            return Some(j + 1);
        }
        loop {
            j = self.flow_scalar(j)?;
            if map {
                if self.at(j) != b':' || self.at(j + 1) != b' ' {
                    return None;
                }
                j = self.flow_scalar(self.skip_spaces(j + 1))?;
            }
            match self.at(j) {
                b',' => {
                    j = self.skip_spaces(j + 1);
                    if self.at(j) == close {
                        return None;
                    }
                }
                c if c == close => {
                    self.out.close(j + 1).ok()?;
                    return Some(j + 1);
                }
                _ => return None,
            }
        }
    }

    fn skip_spaces(&self, mut j: usize) -> usize {
        while self.at(j) == b' ' {
            j += 1;
        }
        j
    }

    /// A scalar inside a one-line flow collection at `j`; where the blanks after it end.
    fn flow_scalar(&mut self, j: usize) -> Read<usize> {
        let (style, end) = match self.at(j) {
            b'"' => (Style::DoubleQuoted, self.quoted(j, usize::MAX)?),
            b'\'' => (Style::SingleQuoted, self.quoted(j, usize::MAX)?),
            c if special_start(c) || c == b'\n' => return None,
            b'-' | b'?' | b':' if matches!(self.at(j + 1), b' ' | b'\n' | b',') => return None,
            _ => {
                let mut k = j;
                let mut end = j;
                loop {
                    match self.at(k) {
                        b'\n' | b'\t' | b':' | b'#' | b'[' | b']' | b'{' | b'}' => break,
                        b',' => break,
                        b' ' => {}
                        _ => end = k + 1,
                    }
                    k += 1;
                }
                if matches!(self.at(k), b'\n' | b'\t' | b'#' | b'[' | b'{') || end == j {
                    return None;
                }
                if self.at(k) == b':' && self.at(k + 1) != b' ' {
                    return None;
                }
                let value = &self.text[j..end];
                self.out.scalar(Style::Plain, j, end, value, None).ok()?;
                return Some(self.skip_spaces(end));
            }
        };
        let value = std::mem::take(&mut self.value);
        let added = self.out.scalar(style, j, end, &value, None).ok();
        self.value = value;
        added?;
        Some(self.skip_spaces(end))
    }
}

/// The length of the UTF-8 sequence a leading byte starts.
fn utf8_len(c: u8) -> usize {
    match c {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::{plain_byte, plain_text};

    /// The word-at-a-time check agrees with the byte-by-byte one wherever the odd byte
    /// stands in a word, and at the text's end.
    #[test]
    fn plain_text_checks_every_byte() {
        let odd: [&[u8]; 9] = [
            b"\r",
            b"\x00",
            b"\x1f",
            b"\x7f",
            "\u{85}".as_bytes(),
            "\u{feff}".as_bytes(),
            "\u{fffe}".as_bytes(),
            "é".as_bytes(),
            b"\t\n",
        ];
        for insert in odd {
            for at in 0..20 {
                let mut text = b"key: value\nlist:\n- item\n".to_vec();
                let at = at.min(text.len());
                text.splice(at..at, insert.iter().copied());
                let by_byte = (0..text.len()).all(|i| plain_byte(&text, i));
                assert_eq!(plain_text(&text), by_byte, "{insert:?} at {at}");
            }
        }
        assert!(!plain_text(b"abcdefgh\x01"));
        assert!(plain_text(b"abcdefgh"));
    }
}
