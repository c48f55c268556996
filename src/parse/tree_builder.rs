//! Builds the span tree: a core that keeps the arena, the open collections, duplicate keys
//! and document regions, fed either by granit-parser's events (any YAML) or by
//! [`super::block_reader`] (the block YAML of manifests, read directly).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use super::Error;

type Result<T> = std::result::Result<T, Error>;
use granit_parser::{Event, Parser, ScalarStyle, Span, StructureStyle};

use super::{Doc, Kind, Node, NodeId, Props, Style, Tree};
use crate::options::MAX_NODES;
use crate::text as lines;

/// An open collection and where the keys seen in it so far are kept (to find duplicates).
/// Hashes stand for keys: a collision can only flag a false duplicate, which sends the file
/// to the line merge, never a wrong merge.
struct Frame {
    id: NodeId,
    /// Where this collection's children so far start in the builder's `pending`.
    children_from: usize,
    /// Where this collection's key hashes start in the builder's `key_hashes`: most maps
    /// hold a few keys, compared one by one without a set of their own.
    keys_from: usize,
    /// The set of them once they are many ([`KEYS_IN_A_ROW`]).
    many: Option<HashSet<u64, BuildHasherDefault<Prehashed>>>,
}

/// How many keys a map's hashes are compared one by one before they go into a set.
const KEYS_IN_A_ROW: usize = 32;

pub(super) struct Builder<'a> {
    text: &'a str,
    nodes: Vec<Node>,
    /// The children of the closed collections, each one's in a stretch (the tree's list).
    kids: Vec<NodeId>,
    /// The children of the open collections so far, innermost last: a collection's move to
    /// `kids` when it closes.
    pending: Vec<NodeId>,
    docs: Vec<Doc>,
    stack: Vec<Frame>,
    /// The key hashes of the open maps with few keys, innermost last (see [`Frame`]).
    key_hashes: Vec<u64>,
    /// Anchor id → the node that defines it.
    anchors: HashMap<usize, NodeId>,
    /// The end of the last token read: block scalar headers are searched from here.
    last_end: usize,
    /// Start of the current document's `---`, or of its content.
    doc_marker: Option<(usize, bool)>,
    doc_root: Option<NodeId>,
    duplicate_keys: Vec<String>,
}

/// The tree of `text` from granit-parser's events.
pub(super) fn build(text: &str) -> Result<Tree<'_>> {
    let options = granit_parser::options! {
        emit_anchor_events: true,
        emit_comments: false,
    };
    let mut b = Builder::new(text);
    for next in Parser::new_from_str_with_options(text, options) {
        let (event, span) = next.map_err(|e| {
            let m = e.marker();
            Error::Syntax {
                line: m.line(),
                column: m.col() + 1,
                message: e.info().to_string(),
            }
        })?;
        b.event(event, span)?;
    }
    Ok(b.finish())
}

fn range(span: &Span) -> Result<(usize, usize)> {
    let r = span
        .byte_range()
        .ok_or_else(|| Error::Internal("the parser gave no byte offsets".into()))?;
    Ok((r.start, r.end))
}

impl<'a> Builder<'a> {
    pub(super) fn new(text: &'a str) -> Builder<'a> {
        // Room for three nodes a line, about the most a manifest holds: the array never
        // moves while it fills (which for a while would hold it twice), and the room it does
        // not use is never touched, so it costs no memory.
        let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
        Builder {
            text,
            nodes: Vec::with_capacity(lines.saturating_mul(3).min(MAX_NODES + 1)),
            kids: Vec::with_capacity(lines.saturating_mul(2).min(MAX_NODES + 1)),
            pending: Vec::new(),
            docs: Vec::new(),
            stack: Vec::new(),
            key_hashes: Vec::new(),
            anchors: HashMap::new(),
            last_end: 0,
            doc_marker: None,
            doc_root: None,
            duplicate_keys: Vec::new(),
        }
    }

    /// The finished tree: document regions tiled over the file.
    pub(super) fn finish(mut self) -> Tree<'a> {
        self.finish_regions();
        let text = self.text;
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        Tree {
            text,
            docs: self.docs,
            nodes: self.nodes,
            kids: self.kids,
            eol,
            duplicate_keys: self.duplicate_keys,
            digests: super::KeptDigests::default(),
            aliases: std::sync::OnceLock::new(),
        }
    }

    /// A document starts at `at` (its `---` when `explicit`, else its first token).
    pub(super) fn start_document(&mut self, at: usize, explicit: bool) {
        self.doc_marker = Some((at, explicit));
        self.doc_root = None;
    }

    /// The current document ends with a token spanning `start..end` (`...`, or empty).
    pub(super) fn end_document(&mut self, start: usize, end: usize) {
        let (marker, explicit) = self.doc_marker.take().unwrap_or((start, false));
        self.docs.push(Doc {
            root: self.doc_root.take(),
            region: marker..end,
            explicit_start: explicit,
        });
    }

    /// Adds a scalar spanning `start..end` whose decoded text is `value`.
    pub(super) fn scalar(
        &mut self,
        style: Style,
        start: usize,
        end: usize,
        value: &str,
        tag: Option<Box<str>>,
    ) -> Result<NodeId> {
        let decoded = (self.text.get(start..end) != Some(value)).then(|| value.into());
        let id = self.push(Node {
            style,
            decoded,
            props: tagged(tag),
            ..Node::bare(Kind::Scalar, start, end)
        })?;
        self.attach(id)?;
        Ok(id)
    }

    /// Opens a collection starting at `start`: a block one's extent is fixed by its children
    /// when it closes, a flow one's by its closing bracket.
    pub(super) fn open(
        &mut self,
        kind: Kind,
        flow: bool,
        start: usize,
        end: usize,
        tag: Option<Box<str>>,
    ) -> Result<NodeId> {
        let id = self.push(Node {
            flow,
            props: tagged(tag),
            ..Node::bare(kind, start, end)
        })?;
        self.attach(id)?;
        self.stack.push(Frame {
            id,
            children_from: self.pending.len(),
            keys_from: self.key_hashes.len(),
            many: None,
        });
        Ok(id)
    }

    /// Closes the innermost open collection; `end` is where a flow one's bracket ends.
    pub(super) fn close(&mut self, end: usize) -> Result<()> {
        let frame = self
            .stack
            .pop()
            .ok_or_else(|| Error::Internal("an unbalanced collection end".into()))?;
        self.key_hashes.truncate(frame.keys_from);
        let from = self.kids.len();
        self.kids.extend(self.pending.drain(frame.children_from..));
        self.nodes[frame.id].set_children(from, self.kids.len() - from);
        self.fix_extent(frame.id, end);
        Ok(())
    }

    /// Whether the next node attached is a mapping key.
    pub(super) fn next_is_key(&self) -> bool {
        self.stack.last().is_some_and(|f| {
            self.nodes[f.id].kind == Kind::Map && (self.pending.len() - f.children_from) % 2 == 0
        })
    }

    fn push(&mut self, node: Node) -> Result<NodeId> {
        if self.nodes.len() >= MAX_NODES {
            return Err(Error::TooManyNodes);
        }
        self.nodes.push(node);
        Ok(self.nodes.len() - 1)
    }

    /// Adds a finished node to the open collection, or makes it the document's root.
    fn attach(&mut self, id: NodeId) -> Result<()> {
        let Some(frame) = self.stack.last_mut() else {
            self.doc_root = Some(id);
            return Ok(());
        };
        self.nodes[id].set_parent(frame.id);
        let is_key = self.nodes[frame.id].kind == Kind::Map
            && (self.pending.len() - frame.children_from) % 2 == 0;
        self.pending.push(id);
        if is_key {
            let key = &self.nodes[id];
            if key.kind != Kind::Scalar {
                return Err(Error::ComplexKey {
                    line: lines_at(self.text, key.start),
                });
            }
            let value = super::value_of(self.text, key);
            let hash = key_hash(value);
            let new = match &mut frame.many {
                Some(set) => set.insert(hash),
                None => {
                    let seen = &self.key_hashes[frame.keys_from..];
                    let new = !seen.contains(&hash);
                    if seen.len() >= KEYS_IN_A_ROW {
                        let mut set: HashSet<_, _> = seen.iter().copied().collect();
                        set.insert(hash);
                        frame.many = Some(set);
                        self.key_hashes.truncate(frame.keys_from);
                    } else {
                        self.key_hashes.push(hash);
                    }
                    new
                }
            };
            if !new {
                self.duplicate_keys.push(format!(
                    "line {}: {}",
                    lines_at(self.text, key.start),
                    value
                ));
            }
        }
        Ok(())
    }

    /// Fixes a collection's extent when it closes: flow collections end at their bracket,
    /// block ones at their last child (granit's end event sits at the next token).
    fn fix_extent(&mut self, id: NodeId, end: usize) {
        let text = self.text;
        let children = &self.kids[self.nodes[id].kids.range()];
        let (first, last) = (children.first().copied(), children.last().copied());
        let (first_start, last_end) = match (first, last) {
            (Some(f), Some(l)) => (Some(self.nodes[f].start), Some(self.nodes[l].end)),
            _ => (None, None),
        };
        let node = &mut self.nodes[id];
        if node.flow {
            node.end = end;
            self.last_end = end;
            return;
        }
        if let (Some(fs), Some(le)) = (first_start, last_end) {
            node.end = le;
            let first_start = if node.kind == Kind::Seq {
                dash_before(text, fs)
            } else {
                fs
            };
            if node.props.is_none() {
                node.start = first_start;
            } else {
                node.start = node.start.min(first_start);
            }
        }
    }

    /// Turns the document starts into regions that tile the file.
    fn finish_regions(&mut self) {
        let text = self.text;
        let starts: Vec<usize> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if i == 0 {
                    0
                } else {
                    lines::line_start(text, d.region.start)
                }
            })
            .collect();
        for (i, doc) in self.docs.iter_mut().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            doc.region = starts[i]..end;
        }
    }

    /// One granit event: its quirks (empty block collection spans, block scalar spans
    /// without their header, empty values on their indicator, anchors and tags outside the
    /// node) absorbed here.
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<()> {
        let (start, end) = range(&span)?;
        let props_start = span.tag_start().and_then(|m| m.byte_offset());
        let tag_text = |t: &Option<std::borrow::Cow<'_, granit_parser::Tag>>| {
            t.as_ref().and_then(|_| {
                let (ts, _) = (props_start?, ());
                let rest = &self.text[ts..];
                let len = rest.find([' ', '\t', '\r', '\n']).unwrap_or(rest.len());
                Some(rest[..len].into())
            })
        };
        match event {
            Event::DocumentStart(explicit, _) => {
                self.start_document(start, explicit);
                self.last_end = end;
            }
            Event::DocumentEnd => self.end_document(start, end),
            Event::Scalar(mut value, style, anchor, tag) => {
                let style = match style {
                    ScalarStyle::Plain => Style::Plain,
                    ScalarStyle::SingleQuoted => Style::SingleQuoted,
                    ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                    ScalarStyle::Literal => Style::Literal,
                    ScalarStyle::Folded => Style::Folded,
                };
                let (mut s, mut e) = (start, end);
                if matches!(style, Style::Literal | Style::Folded) {
                    let header = self.block_header(start);
                    let trimmed = self.text[start..end]
                        .trim_end_matches([' ', '\t', '\r', '\n'])
                        .len();
                    let header_len = self.text[header..]
                        .bytes()
                        .take_while(|b| b"|>+-0123456789".contains(b))
                        .count();
                    e = past_blank_content(
                        self.text,
                        (start + trimmed).max(header + header_len),
                        &value,
                    );
                    // No content line: granit's span stands at the next node, past the line
                    // break, and the scalar is its header, with the empty lines a `|+` keeps
                    // (taken further, a key holding it carries the line after it along).
                    if value.bytes().all(|b| b == b'\n') {
                        e = header + header_len;
                        if !value.is_empty() {
                            e = e.max(self.text[..start].rfind('\n').unwrap_or(e));
                        }
                    }
                    s = header;
                    // Content that ends the file with no line break after it has no final
                    // line break to keep (YAML's `b-chomped-last` is the end of the file
                    // there, as libyaml, go-yaml and the block reader read it), but granit
                    // adds one: `x: |\n  v` at the end of a file is "v", not "v\n". Read
                    // otherwise, a block scalar of theirs written at ours' unterminated end
                    // compared equal to one that lost its line break.
                    let unterminated = !self.text[e..].contains('\n');
                    if unterminated && value.ends_with('\n') && !value.bytes().all(|b| b == b'\n') {
                        let mut v = value.into_owned();
                        v.pop();
                        value = v.into();
                    }
                } else if style == Style::Plain && s == e && !self.next_is_key() {
                    // An empty value (granit reports it as `~`) sits on its `:` or `-`: move
                    // it after the indicator. (An empty key stays before its `:`.)
                    if matches!(self.text.as_bytes().get(s), Some(b':') | Some(b'-')) {
                        s += 1;
                        e = s;
                    }
                }
                let tag = tag_text(&tag);
                let start = props_start.map_or(s, |p| p.min(s));
                let id = self.scalar(style, start, e, value.as_ref(), tag)?;
                if anchor != 0 {
                    self.anchors.insert(anchor, id);
                }
                self.last_end = e.max(self.last_end);
            }
            Event::Alias(anchor) => {
                let target = self.anchors.get(&anchor).copied();
                let name = self.text[start..end].trim_start_matches('*');
                let id = self.push(Node {
                    decoded: Some(name.into()),
                    props: target.map(|target| {
                        Box::new(Props {
                            target: Some(target),
                            ..Props::default()
                        })
                    }),
                    ..Node::bare(Kind::Alias, start, end)
                })?;
                self.last_end = end;
                self.attach(id)?;
            }
            Event::Anchor(anchor, name) => {
                // Follows the node it belongs to: the last one created.
                let id = self
                    .nodes
                    .len()
                    .checked_sub(1)
                    .ok_or_else(|| Error::Internal("an anchor before any node".into()))?;
                let node = &mut self.nodes[id];
                node.props_mut().anchor = Some(name.as_ref().into());
                node.start = node.start.min(start);
                self.anchors.insert(anchor, id);
            }
            Event::SequenceStart(style, anchor, tag) => {
                let tag = tag_text(&tag);
                self.granit_open(Kind::Seq, style, anchor, tag, start, end, props_start)?;
            }
            Event::MappingStart(style, anchor, tag) => {
                let tag = tag_text(&tag);
                self.granit_open(Kind::Map, style, anchor, tag, start, end, props_start)?;
            }
            Event::SequenceEnd | Event::MappingEnd => self.close(end)?,
            _ => {}
        }
        Ok(())
    }

    /// A collection's start event.
    #[allow(clippy::too_many_arguments)]
    fn granit_open(
        &mut self,
        kind: Kind,
        style: StructureStyle,
        anchor: usize,
        tag: Option<Box<str>>,
        start: usize,
        end: usize,
        props_start: Option<usize>,
    ) -> Result<()> {
        let flow = style == StructureStyle::Flow;
        let id = self.open(
            kind,
            flow,
            props_start.map_or(start, |p| p.min(start)),
            end,
            tag,
        )?;
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
        if flow {
            self.last_end = end;
        }
        Ok(())
    }

    /// Where a block scalar's `|`/`>` header is: after the last token, before the content.
    /// Where the last token's span already covers it (a document's root scalar), it is the
    /// last `|` or `>` of the line before the content, outside a trailing comment.
    fn block_header(&self, content: usize) -> usize {
        let from = self.last_end.min(content);
        let mut i = from;
        let bytes = self.text.as_bytes();
        while i < content {
            match bytes[i] {
                b'|' | b'>' => return i,
                b'#' => {
                    i = lines::next_line_start(self.text, i);
                    continue;
                }
                _ => i += 1,
            }
        }
        let before = self.text[..content].trim_end_matches([' ', '\t', '\r', '\n']);
        let line_start = lines::line_start(self.text, before.len());
        let line = &self.text[line_start..before.len()];
        let code = line.find(" #").map_or(line, |c| &line[..c]);
        code.rfind(['|', '>']).map_or(content, |h| line_start + h)
    }
}

/// The properties of a node that has a tag (`None` for most).
fn tagged(tag: Option<Box<str>>) -> Option<Box<Props>> {
    tag.map(|tag| {
        Box::new(Props {
            tag: Some(tag),
            ..Props::default()
        })
    })
}

/// A 64-bit FNV-1a hash of a key: every map's keys are hashed while parsing, where SipHash
/// costs more than the rest of a key's handling.
fn key_hash(key: &str) -> u64 {
    key.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The hasher of a set of hashes: the value is its own hash.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// The dash of the sequence item whose content starts at `item` (granit's item spans start
/// after `- `, and an indentless sequence's start event sits on the content).
fn dash_before(text: &str, item: usize) -> usize {
    let before = &text[..item];
    let trimmed = before.trim_end_matches([' ', '\t', '\r', '\n']);
    if trimmed.ends_with('-') {
        trimmed.len() - 1
    } else {
        item
    }
}

fn lines_at(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// From `end`, the end of a block scalar's last line holding more than blanks, past its
/// content lines of only blanks (indented past the scalar's indentation): they are part of
/// its value, so of its span, or a pass moving the lines below the span would drop them.
/// They are the value's lines after its last one holding more than blanks (a literal or
/// folded scalar keeps every line break there), the line breaks ending it left out.
fn past_blank_content(text: &str, mut end: usize, value: &str) -> usize {
    let lines = value.trim_end_matches('\n');
    let blank_lines = lines
        .rsplit('\n')
        .take_while(|l| l.trim_matches([' ', '\t']).is_empty())
        .count();
    // Only where the last of them holds blanks: empty lines at the end are not content.
    if !lines.ends_with([' ', '\t']) {
        return end;
    }
    for _ in 0..blank_lines {
        let next = lines::next_line_start(text, end);
        let line = lines::line_end(text, next);
        if next == end || !text[next..line].trim().is_empty() {
            break;
        }
        end = line;
    }
    end
}
