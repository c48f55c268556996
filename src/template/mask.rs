//! A Helm/Go template read as a YAML skeleton, with no line moved: every `{{ … }}` action is
//! replaced by a token that the YAML parser reads as ordinary text, and the tokens are put
//! back after the merge.
//!
//! - A line holding nothing but actions (`{{- if .Values.x }}`, `{{- end }}`, the lines of a
//!   multi-line action) is a control line: it becomes a comment line, `#` and its token, so it
//!   travels with the node below it as any comment does.
//! - An action that is a key's whole value with a more-indented block below it
//!   (`labels: {{- include "x.labels" . | nindent 4 }}`) becomes a trailing comment, so the
//!   block below is the key's value and merges field by field.
//! - Any other action is inline (`image: {{ .Values.image }}:{{ .Chart.AppVersion }}`): its
//!   token stands in the scalar, so the scalar compares by the action's text.
//!
//! Tokens are private-use characters (U+E000 to U+E0FF), which no manifest holds: one token per
//! distinct text, shared by the three versions, so equal actions compare equal. The comment
//! tokens (control lines and value actions) are not data; [`controls`] lists them, so that
//! the merge of the control lines can be checked on its own.

use std::collections::HashMap;

use crate::text::skeleton::{
    is_closing_line, BRANCH, CLOSE, CLOSING, CONTROL, DIGIT, INLINE, VALUE,
};

/// The texts behind the tokens of the three versions (and of results masked later).
#[derive(Default)]
pub(crate) struct Tokens {
    ids: HashMap<(char, String), usize>,
    texts: Vec<String>,
}

impl Tokens {
    /// The token of `text` under the opening `kind`.
    fn token(&mut self, kind: char, text: &str) -> String {
        let next = self.texts.len();
        let id = *self.ids.entry((kind, text.to_string())).or_insert(next);
        if id == next {
            self.texts.push(text.to_string());
        }
        let mut out = String::new();
        if kind == CONTROL || kind == VALUE || kind == CLOSING {
            out.push('#');
        }
        out.push(kind);
        out.extend(
            format!("{id:x}")
                .chars()
                .map(|d| char::from_u32(DIGIT + d.to_digit(16).unwrap_or(0)).unwrap_or(CLOSE)),
        );
        out.push(CLOSE);
        out
    }

    /// The template text of a skeleton: every token replaced by what it stands for. `None`
    /// if the skeleton holds a token these texts do not know (a bug, never user input).
    pub(crate) fn unmask(&self, skeleton: &str) -> Option<String> {
        let mut out = String::with_capacity(skeleton.len());
        let mut chars = skeleton.chars().peekable();
        while let Some(c) = chars.next() {
            let opens =
                |c: char| c == INLINE || c == CONTROL || c == VALUE || c == BRANCH || c == CLOSING;
            if c == '#'
                && chars
                    .peek()
                    .is_some_and(|&k| k == CONTROL || k == VALUE || k == CLOSING)
            {
                continue; // the comment mark of a control or value token
            }
            if !opens(c) {
                out.push(c);
                continue;
            }
            let mut id = 0usize;
            loop {
                let d = chars.next()?;
                if d == CLOSE {
                    break;
                }
                id = id * 16 + (d as u32).checked_sub(DIGIT).filter(|&v| v < 16)? as usize;
            }
            let text = self.texts.get(id)?;
            if c != BRANCH {
                out.push_str(text);
            }
        }
        Some(out)
    }

    /// Reads `text` as a skeleton. `None` where it holds something the masking does not
    /// cover: a private-use character of its own, an action left open at the end of a line
    /// that is not a control line, text after a multi-line action.
    pub(crate) fn mask(&mut self, text: &str) -> Option<String> {
        if text.chars().any(|c| ('\u{E000}'..='\u{E0FF}').contains(&c)) {
            return None;
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let mut out: Vec<String> = Vec::with_capacity(lines.len());
        // Lines whose value is one inline action: candidates for the value rule, and whether
        // the action is a list item's whole value (`- {{ x }}`) rather than a key's.
        let mut value_lines: Vec<(usize, String, bool)> = Vec::new();
        let mut open = false; // inside a multi-line action
        for line in &lines {
            let (body, eol) = split_eol(line);
            let indent = &body[..body.len() - body.trim_start().len()];
            if open {
                // A line of a multi-line action: a control line, closed where `}}` is.
                if let Some(end) = body.find("}}") {
                    open = false;
                    if !body[end + 2..].trim().is_empty() {
                        return None;
                    }
                }
                let token = self.token(CONTROL, body.trim_start());
                out.push(format!("{indent}{token}{eol}"));
                continue;
            }
            let trimmed = body.trim_start();
            if trimmed.starts_with('#') || !body.contains("{{") {
                out.push(line.to_string());
                continue;
            }
            let Some(parts) = actions(body) else {
                // An action opened and not closed on this line: a control line only if
                // nothing but actions comes before it.
                let start = body.find("{{")?;
                let before = actions(&body[..start])?;
                if before
                    .iter()
                    .any(|p| matches!(p, Part::Text(t) if !t.trim().is_empty()))
                {
                    return None;
                }
                open = true;
                let token = self.token(CONTROL, trimmed);
                out.push(format!("{indent}{token}{eol}"));
                continue;
            };
            let only_actions = parts.iter().all(|p| {
                matches!(p, Part::Text(t) if t.trim().is_empty()) || matches!(p, Part::Action(_))
            });
            if only_actions {
                let closing = parts.iter().all(|p| match p {
                    Part::Action(a) => words(a).all(|(word, _)| word == "end"),
                    Part::Text(_) => true,
                });
                let kind = if closing { CLOSING } else { CONTROL };
                let token = self.token(kind, trimmed);
                out.push(format!("{indent}{token}{eol}"));
                continue;
            }
            let mut masked = String::with_capacity(body.len());
            for p in &parts {
                match p {
                    Part::Text(t) => masked.push_str(t),
                    Part::Action(a) => masked.push_str(&self.token(INLINE, a)),
                }
            }
            // `key: {{ action }}` or `- {{ action }}` with nothing after the action.
            if let [.., Part::Text(key), Part::Action(a)] = &parts[..] {
                let item = parts.len() == 2 && key.trim() == "-";
                if (item || key.trim_end().ends_with(':')) && key.ends_with(' ') {
                    value_lines.push((out.len(), format!("{key}{a}"), item));
                }
            }
            out.push(format!("{masked}{eol}"));
        }
        if open {
            return None;
        }
        // The value rule: a key whose value is one action, with a more-indented block below.
        // More indented than the key itself: in `- name: {{ x }}` the lines below at the
        // column of `name` are its siblings, not its value.
        for (i, line, item) in value_lines {
            let own = if item {
                indent_of(&out[i])
            } else {
                key_column(&out[i])
            };
            let below = out[i + 1..]
                .iter()
                .find(|l| !l.trim().is_empty() && !is_control(l))
                .map(|l| indent_of(l));
            if below.is_some_and(|b| b > own) {
                let Some((key, action)) = split_value(&line) else {
                    continue;
                };
                let eol = split_eol(&out[i]).1.to_string();
                let token = self.token(VALUE, action);
                out[i] = format!("{key}{token}{eol}");
            }
        }
        // After the value rule, which writes its lines anew: a key of an `else` branch keeps
        // its branch token whatever its value is.
        self.mark_branches(&mut out);
        Some(out.concat())
    }
}

impl Tokens {
    /// Keys that repeat across the branches of an `if`/`else` (or `with`/`range` with an
    /// `else`) are not duplicates: each branch is its own region. Every key line inside a
    /// branch after the first gets a token that stands for no text, naming the block (its
    /// opening line) and the branch, so the same key in two branches is two keys, and the
    /// same branch pairs across the versions. The block is not named by which occurrence of
    /// its opening line it is: a side that edits the condition of an earlier block with the
    /// same line would rename every key in the later one's branches, and a change only there
    /// would read as that side deleting them all. The key's map tells two such blocks apart
    /// (one key in the same branch of both, in one map, renders twice).
    fn mark_branches(&mut self, out: &mut [String]) {
        let mut stack: Vec<(String, usize)> = Vec::new();
        for line in out.iter_mut() {
            if is_control(line) {
                let Some(text) = self.control_text(line) else {
                    continue;
                };
                follow_blocks(&mut stack, text, str::to_string);
                continue;
            }
            if !stack.iter().any(|(_, branch)| *branch > 0) {
                continue;
            }
            let Some(at) = plain_key_end(line) else {
                continue;
            };
            // Named by the branches it stands in, not by the blocks around it that have none:
            // a side that edits an enclosing `if` without an `else` does not rename its keys.
            let region: Vec<String> = stack
                .iter()
                .filter(|(_, branch)| *branch > 0)
                .map(|(b, n)| format!("{b}/{n}"))
                .collect();
            let token = self.token(BRANCH, &region.join("\u{0}"));
            line.insert_str(at, &token);
        }
    }

    /// The skeleton with every key inside a block named by the blocks around it (each
    /// opening line's text and branch): read so, a key a side moved into or out of a block,
    /// or whose block a side moved, is another key, and a check of the data sees the change
    /// of its guard. Where both sides changed the control lines of one place, their 3-way
    /// merge cannot say where the lines go, yet a clean merge must still keep what each side
    /// did to the guards of its keys.
    pub(crate) fn guarded(&mut self, skeleton: &str) -> String {
        let mut stack: Vec<(String, usize)> = Vec::new();
        let mut out = String::with_capacity(skeleton.len());
        for line in skeleton.split_inclusive('\n') {
            if is_control(line) {
                if let Some(text) = self.control_text(line) {
                    follow_blocks(&mut stack, text, str::to_string);
                }
                out.push_str(line);
                continue;
            }
            if stack.is_empty() {
                out.push_str(line);
                continue;
            }
            // The keys of a one-line flow map are named too: a side that writes a map as
            // `{a: 1}` instead of `a: 1` lines changes no key, and so no guard.
            let mut ends: Vec<usize> = plain_key_end(line)
                .into_iter()
                .chain(flow_key_ends(line))
                .collect();
            ends.sort_unstable();
            ends.dedup();
            if ends.is_empty() {
                out.push_str(line);
                continue;
            }
            let guard: Vec<String> = stack.iter().map(|(b, n)| format!("{b}/{n}")).collect();
            let token = self.token(BRANCH, &guard.join("\u{0}"));
            let mut from = 0;
            for at in ends {
                out.push_str(&line[from..at]);
                out.push_str(&token);
                from = at;
            }
            out.push_str(&line[from..]);
        }
        out
    }

    /// The skeleton with each line of one action that writes text at an indentation of its
    /// own (`{{- include "x.labels" . | nindent 4 }}`, no block's line) read as a key of that
    /// indentation, named by its token: its output lands in the map that stands above it
    /// there. As a comment, such a line is no data, so a side whose only change at a place is
    /// one would read as having changed nothing there, and a conflict side holding it, as
    /// that side wrote it, as dropping the other side's change beside it.
    pub(crate) fn content_keys(&self, skeleton: &str) -> String {
        let mut out = String::with_capacity(skeleton.len());
        for line in skeleton.split_inclusive('\n') {
            let (body, eol) = split_eol(line);
            let token = body.trim_start().strip_prefix('#');
            let column = self.control_text(line).and_then(content_column);
            match (
                body.trim_start().starts_with(&format!("#{CONTROL}")),
                token,
                column,
            ) {
                (true, Some(token), Some(column)) => {
                    out.push_str(&format!("{}{token}:{eol}", " ".repeat(column)));
                }
                _ => out.push_str(line),
            }
        }
        out
    }

    /// The skeleton with each control line whose actions write text (an `include` or a
    /// `toYaml`, whatever its indentation; no block's line, variable set or comment) made a
    /// line of data. As a comment such a line is no data, but its output is data of the
    /// rendered file: conflicts on either side of it do not span the file, so each side must
    /// hold the other side's changes that conflict with nothing.
    pub(crate) fn writing_lines_as_data(&self, skeleton: &str) -> String {
        let mut out = String::with_capacity(skeleton.len());
        for line in skeleton.split_inclusive('\n') {
            let indent = indent_of(line);
            let writes = line[indent..].starts_with(&format!("#{CONTROL}"))
                && self.control_text(line).is_some_and(writes_text);
            match writes {
                true => {
                    out.push_str(&line[..indent]);
                    out.push_str(&line[indent + 1..]);
                }
                false => out.push_str(line),
            }
        }
        out
    }

    /// Whether control tokens (as [`controls`] lists them) make whole blocks: every `if`,
    /// `with`, `range`, `define` or `block` they open closed by an `end` of theirs, no `end`
    /// or `else` outside one they opened.
    pub(crate) fn whole_blocks(&self, controls: &[String]) -> bool {
        let mut depth = 0usize;
        for control in controls {
            let Some(text) = self.control_text(control) else {
                continue; // a value's action, not structure
            };
            for (word, _) in words(text) {
                match word {
                    _ if OPENERS.contains(&word) => depth += 1,
                    "end" if depth > 0 => depth -= 1,
                    "end" => return false,
                    "else" if depth == 0 => return false,
                    _ => {}
                }
            }
        }
        depth == 0
    }

    /// The control lines among `controls` (as [`controls`] lists them) that open, branch or
    /// close a block: those by which [`Tokens::guarded`] names keys. A line that only writes
    /// text (an `include`, a `toYaml`) names none.
    pub(crate) fn block_lines(&self, controls: Vec<String>) -> Vec<String> {
        controls
            .into_iter()
            .filter(|c| {
                self.control_text(c)
                    .is_some_and(|text| words(text).any(|(word, _)| block_word(word)))
            })
            .collect()
    }

    /// The template text of a control line of a skeleton.
    fn control_text(&self, line: &str) -> Option<&str> {
        let start = line.find([CONTROL, CLOSING])? + CONTROL.len_utf8();
        let mut id = 0usize;
        for d in line[start..].chars() {
            if d == CLOSE {
                return self.texts.get(id).map(String::as_str);
            }
            id = id * 16 + (d as u32).checked_sub(DIGIT).filter(|&v| v < 16)? as usize;
        }
        None
    }
}

/// The actions that open a block, closed by an `end`.
const OPENERS: [&str; 5] = ["if", "with", "range", "define", "block"];

/// Whether an action's word opens, branches or closes a block.
fn block_word(word: &str) -> bool {
    OPENERS.contains(&word) || matches!(word, "else" | "end")
}

/// Follows one control line's actions on the stack of open blocks (each a name and how many
/// `else` branches it has passed): an opener pushes the name `open` gives its action, `else`
/// moves the innermost block to its next branch, `end` closes it. One reading for every pass
/// that names keys by the blocks around them.
fn follow_blocks(
    stack: &mut Vec<(String, usize)>,
    text: &str,
    mut open: impl FnMut(&str) -> String,
) {
    for (word, action) in words(text) {
        match word {
            _ if OPENERS.contains(&word) => stack.push((open(action), 0)),
            "else" => {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
            }
            "end" => {
                stack.pop();
            }
            _ => {}
        }
    }
}

/// Each action of a control line's template text: its first word (`if`, `end`, `else`, …)
/// and its text after `{{` and any `-`.
fn words(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.split("{{").skip(1).map(|action| {
        let action = action.trim_start_matches('-').trim_start();
        let word = action.split_whitespace().next().unwrap_or("");
        (word.trim_end_matches(['}', '-']), action)
    })
}

/// Whether a control line's template text is whole actions of which one writes text: no
/// block's opening, `else` or `end`, no variable set (`$x := …`), no comment (`/* … */`).
/// A line of a multi-line action is none: its action is not whole on it.
fn writes_text(text: &str) -> bool {
    let text = text.trim();
    text.starts_with("{{")
        && text.ends_with("}}")
        && words(text).any(|(word, action)| {
            let sets =
                word.starts_with('$') && action[word.len()..].trim_start().starts_with([':', '=']);
            !(OPENERS.contains(&word)
                || matches!(word, "else" | "end")
                || word.starts_with("/*")
                || sets)
        })
}

/// Where the key of a `key: value` (or `- key: value`) line ends, for a plain key.
fn plain_key_end(line: &str) -> Option<usize> {
    let body = line.trim_start();
    let body = body.strip_prefix("- ").unwrap_or(body);
    let start = line.len() - body.len();
    let first = body.chars().next()?;
    if matches!(
        first,
        '#' | '"' | '\'' | '{' | '[' | '&' | '*' | '!' | '|' | '>' | '-' | '?'
    ) {
        return None;
    }
    let colon = body.find(':')?;
    let after = body[colon + 1..].chars().next();
    if !after.is_none_or(|c| c == ' ' || c == '\n' || c == '\r') || body[..colon].contains(" #") {
        return None;
    }
    Some(start + colon)
}

/// Where each plain key of the flow maps on one line ends (`{a: 1, b: {c: 2}}`), in order;
/// none where the line's flow text is not closed on it or holds a quoted scalar, which this
/// reading does not follow.
fn flow_key_ends(line: &str) -> Vec<usize> {
    let Some(open) = line.find('{') else {
        return Vec::new();
    };
    let mut ends = Vec::new();
    // The open collections (true for a map), and whether a key may start here.
    let mut stack: Vec<bool> = Vec::new();
    let mut key_start: Option<usize> = None;
    let mut expect_key = false;
    for (i, c) in line[open..].char_indices() {
        let at = open + i;
        match c {
            '"' | '\'' => return Vec::new(),
            '{' | '[' => {
                stack.push(c == '{');
                expect_key = c == '{';
                key_start = None;
            }
            '}' | ']' => {
                if stack.pop() != Some(c == '}') {
                    return Vec::new();
                }
                expect_key = false;
                key_start = None;
            }
            ',' => {
                expect_key = stack.last() == Some(&true);
                key_start = None;
            }
            ':' if key_start.is_some() => {
                let next = line[at + 1..].chars().next();
                if next.is_none_or(|n| matches!(n, ' ' | ',' | '}' | '\n' | '\r')) {
                    ends.push(at);
                    key_start = None;
                }
            }
            ' ' | '\t' => {}
            _ if expect_key => {
                expect_key = false;
                key_start = (!matches!(c, '&' | '*' | '!' | '?' | '#')).then_some(at);
            }
            _ => {}
        }
        if stack.is_empty() {
            // One flow collection per line is read: what follows is a comment or nothing.
            return ends;
        }
    }
    // Not closed on this line: left as it is.
    Vec::new()
}

/// The control and value tokens of a skeleton, in order: its template structure.
pub(crate) fn controls(skeleton: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = skeleton;
    while let Some(at) = rest.find([CONTROL, VALUE, CLOSING]) {
        let end = rest[at..]
            .find(CLOSE)
            .map_or(rest.len(), |e| at + e + CLOSE.len_utf8());
        out.push(rest[at..end].to_string());
        rest = &rest[end..];
    }
    out
}

/// Each control line of a skeleton with the keys it stands under (the less indented `key:`
/// lines above it in its document), in order. A block a control line opens or closes, or the
/// text an `include` line renders, belongs to that place: a merge that keeps every control
/// line in order can still leave one under another key (a key moved away from below it),
/// which renders its output into another map. Keys that hold a block sequence are left off
/// the end of a place: a control line among or right after a list's items reads the same in
/// the compact style (`- ` under its key's column) and the indented one, which a merge that
/// re-indents theirs' list to ours' style turns one into the other.
///
/// A control line with no data after it in its document (the `end` of a block around the
/// whole document) is placed at the document's end besides ([`DOCUMENT_END`]): under the
/// same keys, a merge that left it above a key (ours' order, where theirs moved that key to
/// the end) would render that key whatever the block's `if` says.
///
/// A line of one action that writes text at an indentation of its own stands at that column
/// ([`written_column`]): `{{ include "x.labels" . | indent 4 }}` at column 0 below `labels:`
/// renders into `labels`, and read at column 0 it would stand under no key, so a merge that
/// carried it below another map would keep its place.
pub(crate) fn placed_controls(skeleton: &str, tokens: &Tokens) -> Vec<(String, Vec<String>)> {
    let lines: Vec<&str> = skeleton.lines().collect();
    let content = |line: &str| {
        let body = line.trim_start();
        !body.is_empty() && !body.starts_with('#') && !line.starts_with("---")
    };
    let is_item = |body: &str| body.starts_with("- ") || body == "-";
    // Whether each line is a key holding a block sequence: the next content line is an item
    // at the key's column or deeper.
    let mut holds_sequence = vec![false; lines.len()];
    let mut next_item: Option<usize> = None;
    for (i, line) in lines.iter().enumerate().rev() {
        if line.starts_with("---") {
            next_item = None;
        } else if content(line) {
            holds_sequence[i] = next_item.is_some_and(|at| at >= key_column(line));
            next_item = is_item(line.trim_start()).then(|| indent_of(line));
        }
    }
    // Whether a content line follows each line in its document.
    let mut data_after = vec![false; lines.len()];
    let mut seen = false;
    for (i, line) in lines.iter().enumerate().rev() {
        data_after[i] = seen;
        if line.starts_with("---") {
            seen = false;
        } else if content(line) && !is_control(line) {
            seen = true;
        }
    }
    let mut out = Vec::new();
    // The keys open above the line: column, key, whether it holds a block sequence.
    let mut keys: Vec<(usize, &str, bool)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("---") {
            keys.clear();
            continue;
        }
        let control = is_control(line);
        let column = if control {
            tokens
                .control_text(line)
                .and_then(written_column)
                .unwrap_or_else(|| indent_of(line))
        } else if content(line) {
            key_column(line)
        } else {
            continue;
        };
        while keys.last().is_some_and(|&(c, ..)| c >= column) {
            keys.pop();
        }
        if control {
            let held = keys.iter().rev().take_while(|&&(.., seq)| seq).count();
            let under = keys[..keys.len() - held]
                .iter()
                .map(|&(_, k, _)| k.to_string());
            let end = (!data_after[i]).then(|| DOCUMENT_END.to_string());
            out.push((line.trim_start().to_string(), under.chain(end).collect()));
        } else if let Some(end) = plain_key_end(line) {
            keys.push((column, &line[column..end], holds_sequence[i]));
        }
    }
    out
}

/// The place [`placed_controls`] gives a control line after its document's data: no key
/// holds a line break.
const DOCUMENT_END: &str = "\n(the end of its document)";

/// The column at which a control line's text writes, where it is one action that is no
/// block's and ends in `| indent N` or `| nindent N`: N.
fn written_column(text: &str) -> Option<usize> {
    let inner = text.trim().strip_prefix("{{")?.strip_suffix("}}")?;
    if inner.contains("{{") || words(text).any(|(word, _)| block_word(word)) {
        return None;
    }
    let (_, last) = inner.trim_end_matches('-').rsplit_once('|')?;
    match last.split_whitespace().collect::<Vec<_>>()[..] {
        ["indent" | "nindent", n] => n.parse().ok(),
        _ => None,
    }
}

/// Whether a skeleton line is a control line.
fn is_control(line: &str) -> bool {
    let body = line.trim_start();
    body.starts_with(&format!("#{CONTROL}")) || is_closing_line(body)
}

/// The column of a `key:` line's key, after any list item dashes (`- - key:`).
fn key_column(line: &str) -> usize {
    let mut at = indent_of(line);
    while line[at..].starts_with("- ") {
        at += 2;
        at += indent_of(&line[at..]);
    }
    at
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The column where the output of a control line's action lands, where the line is one
/// action that writes text indented by a pipeline's last command (`… | nindent 4`) and opens
/// or closes no block.
fn content_column(text: &str) -> Option<usize> {
    let inner = text.strip_prefix("{{")?.strip_suffix("}}")?;
    if inner.contains(['{', '}']) {
        return None;
    }
    let inner = inner.strip_prefix('-').unwrap_or(inner);
    let inner = inner.strip_suffix('-').unwrap_or(inner);
    let word = inner.split_whitespace().next()?;
    if block_word(word) {
        return None;
    }
    let mut last = inner.rsplit_once('|')?.1.split_whitespace();
    let (Some("indent" | "nindent"), Some(column), None) = (last.next(), last.next(), last.next())
    else {
        return None;
    };
    column.parse().ok()
}

/// A line's text and its line break.
fn split_eol(line: &str) -> (&str, &str) {
    let body = line.trim_end_matches(['\n', '\r']);
    (body, &line[body.len()..])
}

/// `key: ` and the action of a `key: {{ action }}` line.
fn split_value(line: &str) -> Option<(&str, &str)> {
    let at = line.rfind("{{")?;
    Some((&line[..at], &line[at..]))
}

/// A piece of a template line.
enum Part<'a> {
    Text(&'a str),
    Action(&'a str),
}

/// A line cut into text and whole actions; `None` if an action is left open.
fn actions(line: &str) -> Option<Vec<Part<'_>>> {
    let mut parts = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("{{") {
        let end = rest[start..].find("}}")? + start + 2;
        if start > 0 {
            parts.push(Part::Text(&rest[..start]));
        }
        parts.push(Part::Action(&rest[start..end]));
        rest = &rest[end..];
    }
    if !rest.is_empty() {
        parts.push(Part::Text(rest));
    }
    Some(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A control line's place is the keys above it: a key moved away from below it gives
    /// another place; a list re-indented from the indented to the compact style does not.
    #[test]
    fn a_control_line_is_placed_under_the_keys_above_it() {
        let place = |text: &str| {
            let mut tokens = Tokens::default();
            let masked = tokens.mask(text).expect("masks");
            placed_controls(&masked, &tokens)
                .into_iter()
                .map(|(_, under)| under.join("."))
                .collect::<Vec<_>>()
        };
        let base =
            "spec:\n  selector:\n    matchLabels:\n      {{- include \"l\" . }}\n  template: {}\n";
        let moved =
            "spec:\n  selector:\n    matchLabels:\n  template:\n      {{- include \"l\" . }}\n";
        assert_eq!(place(base), ["spec.selector.matchLabels"]);
        // A line that writes keys at an indentation of its own stands at that column.
        let written =
            "metadata:\n  labels:\n    app: a\n{{ include \"l\" . | indent 4 }}\ndata: {}\n";
        let carried =
            "metadata:\n  labels:\n    app: a\ndata:\n  x: y\n{{ include \"l\" . | indent 4 }}\n";
        assert_eq!(place(written), ["metadata.labels"]);
        assert_eq!(place(carried), [format!("data.x.{DOCUMENT_END}")]);
        assert_eq!(place(moved), [format!("spec.template.{DOCUMENT_END}")]);
        // The end of a block around the document: after its data, or above a key.
        let closing = "{{- if .x }}\nkind: A\nspec: {}\n{{- end }}\n";
        let early = "{{- if .x }}\nkind: A\n{{- end }}\nspec: {}\n";
        assert_eq!(place(closing), ["", DOCUMENT_END]);
        assert_eq!(place(early), ["", ""]);
        let indented = "c:\n  mounts:\n    {{- if .x }}\n    - a\n    {{- end }}\n  args: []\n";
        let compact = "c:\n  mounts:\n  {{- if .x }}\n  - a\n  {{- end }}\n  args: []\n";
        assert_eq!(place(indented), ["c", "c"]);
        assert_eq!(place(compact), ["c", "c"]);
    }

    const TEMPLATE: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include \"x.fullname\" . }}
  labels: {{- include \"x.labels\" . | nindent 4 }}
    tier: web
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicas }}
  {{- end }}
  template:
    spec:
      containers:
        - name: web
          image: \"{{ .Values.image }}:{{ .Chart.AppVersion }}\"
          {{- with .Values.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
";

    #[test]
    fn a_skeleton_parses_and_unmasks_to_the_template() {
        let mut tokens = Tokens::default();
        let skeleton = tokens.mask(TEMPLATE).expect("masks");
        assert_eq!(skeleton.lines().count(), TEMPLATE.lines().count());
        assert!(crate::parse::parse(&skeleton).is_ok(), "{skeleton}");
        assert_eq!(tokens.unmask(&skeleton).as_deref(), Some(TEMPLATE));
        // Control lines and the value action, in order.
        assert_eq!(controls(&skeleton).len(), 6);
    }

    #[test]
    fn equal_actions_share_a_token_and_different_ones_do_not() {
        let mut tokens = Tokens::default();
        let a = tokens.mask("a: {{ .Values.a }}\nb: {{ .Values.a }}\nc: {{ .Values.c }}\n");
        let a = a.expect("masks");
        let values: Vec<&str> = a.lines().map(|l| &l[3..]).collect();
        assert_eq!(values[0], values[1]);
        assert_ne!(values[0], values[2]);
    }

    #[test]
    fn multi_line_actions_are_control_lines() {
        let text = "a: 1\n{{- $x := dict\n  \"k\" \"v\" }}\nb: 2\n";
        let mut tokens = Tokens::default();
        let skeleton = tokens.mask(text).expect("masks");
        assert_eq!(controls(&skeleton).len(), 2);
        assert_eq!(tokens.unmask(&skeleton).as_deref(), Some(text));
    }

    /// A map a side wrote in flow style keeps its keys' guards: a block→flow rewrite moves
    /// no key into or out of a block.
    #[test]
    fn keys_of_a_flow_map_are_named_by_their_blocks_too() {
        let mut tokens = Tokens::default();
        let block = "{{- if .Values.a }}\nm:\n  ann:\n    c: x\n{{- end }}\n";
        let flow = "{{- if .Values.a }}\nm:\n  ann: {c: x, d: {e: y}}\n{{- end }}\n";
        let block = tokens.mask(block).expect("masks");
        let flow = tokens.mask(flow).expect("masks");
        let (block, flow) = (tokens.guarded(&block), tokens.guarded(&flow));
        let line = block.lines().nth(3).expect("the key line");
        let guard = &line["    c".len()..line.len() - ": x".len()];
        assert!(!guard.is_empty(), "{block}");
        let expected = format!("  ann{guard}: {{c{guard}: x, d{guard}: {{e{guard}: y}}}}");
        assert_eq!(flow.lines().nth(2), Some(expected.as_str()), "{flow}");
    }

    /// The skeleton of `text`, which must parse with no key repeated and unmask to `text`.
    fn skeleton_without_repeats(text: &str) -> String {
        let mut tokens = Tokens::default();
        let skeleton = tokens.mask(text).expect("masks");
        let tree = crate::parse::parse(&skeleton).expect("parses");
        assert!(tree.duplicate_keys.is_empty(), "{skeleton}");
        assert_eq!(tokens.unmask(&skeleton).as_deref(), Some(text));
        skeleton
    }

    #[test]
    fn keys_of_else_branches_are_their_own() {
        skeleton_without_repeats(
            "spec:\n  {{- if .Values.a }}\n  type: A\n  {{- else }}\n  type: B\n  {{- end }}\n  x: 1\n",
        );
    }

    /// A key whose value is an action with a block below is a key of its own in each
    /// branch too.
    #[test]
    fn value_keys_of_else_branches_are_their_own() {
        let skeleton = skeleton_without_repeats(
            "spec:\n  {{- if .Values.custom }}\n  probe: {{- toYaml .Values.custom | nindent 4 }}\n  {{- else }}\n  probe: {{- toYaml .Values.probe | nindent 4 }}\n    exec: x\n  {{- end }}\n",
        );
        assert_eq!(controls(&skeleton).len(), 4, "{skeleton}");
    }

    #[test]
    fn what_it_does_not_cover_is_refused() {
        let mut tokens = Tokens::default();
        assert!(tokens.mask("a: {{ .x\n  }} b\n").is_none());
        assert!(tokens.mask("a: \u{E000}\n").is_none());
        assert!(tokens.mask("a: b {{ .x\n").is_none());
    }

    /// A line of one action that writes text at its own indentation reads as a key of that
    /// column; a block's line or an action with no indentation of its own stays a comment.
    #[test]
    fn a_line_that_writes_text_reads_as_a_key_where_it_lands() {
        let mut tokens = Tokens::default();
        let text = "metadata:\n  labels:\n    app: a\n    {{- include \"l\" . | nindent 4 }}\n  {{- with .x }}\n  {{ .y }}\n  {{- end }}\n";
        let masked = tokens.mask(text).expect("masks");
        let read = tokens.content_keys(&masked);
        let tree = crate::parse::parse(&read).expect("parses");
        let lines: Vec<&str> = read.lines().collect();
        assert!(lines[3].starts_with(&format!("    {CONTROL}")), "{read}");
        assert!(lines[3].ends_with(':'), "{read}");
        assert_eq!(&lines[4..], &masked.lines().collect::<Vec<_>>()[4..]);
        assert!(tree.duplicate_keys.is_empty());
        assert_eq!(content_column("{{- toYaml . | indent 6 -}}"), Some(6));
        assert_eq!(content_column("{{- with .x | nindent 4 }}"), None);
        assert_eq!(content_column("{{ .x }}{{ .y | indent 2 }}"), None);
    }
}
