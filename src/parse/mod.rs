//! Text to a lossless span tree: every node knows the bytes it came from, so later stages can
//! compare nodes as data and splice text without re-serialising anything.
//!
//! Built on granit-parser's event stream (byte spans for every event). Its quirks, which this
//! module absorbs so nothing downstream sees them: block collection events carry empty spans
//! (extents are derived from the children), block scalar spans skip the `|`/`>` header and run
//! into the next line's indentation, and anchors/tags sit outside the node's span.

mod block_reader;
mod scalar;
mod tree_builder;
mod versions;

pub use scalar::ScalarKey;
pub use versions::{Refused, Versions};

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

use crate::options::MAX_NODES;

/// Index of a node in its [`Tree`].
pub type NodeId = usize;

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Scalar,
    Map,
    Seq,
    /// `*name`: never expanded, compared by anchor name and the anchored data.
    Alias,
}

/// How a scalar is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// One node of a document, with the bytes it occupies in its source.
#[derive(Clone, Debug)]
pub struct Node {
    pub kind: Kind,
    /// Flow notation (`[a, b]`, `{a: b}`); always false for scalars.
    pub flow: bool,
    pub style: Style,
    /// Where the node's text starts: its anchor or tag if it has one, the header of a block
    /// scalar, the first dash of a block sequence, the first key of a block map.
    pub start: usize,
    /// Where its content ends (after the closing quote or bracket, the last content character
    /// of a block scalar, the end of the last child of a block collection).
    pub end: usize,
    /// Where its children stand in the tree's one list of them, read through
    /// [`Tree::children`]: not an allocation per collection.
    kids: Kids,
    /// Decoded text of a scalar, or the anchor name of an alias, when it differs from the
    /// node's source text (most plain scalars are their own text: no allocation for them).
    /// Read it through [`Tree::value`].
    pub decoded: Option<Box<str>>,
    /// Its tag, anchor or alias target, which few nodes have: boxed, so that every node
    /// does not carry their room (a large manifest is hundreds of thousands of nodes).
    pub props: Option<Box<Props>>,
    /// The collection holding this node ([`NO_PARENT`] for none): read through
    /// [`Node::parent`]. Four bytes, not an `Option<usize>`'s sixteen: a large manifest is
    /// hundreds of thousands of nodes (no tree holds more than [`MAX_NODES`]).
    parent: u32,
}

/// A collection's children: a stretch of its tree's one children list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Kids {
    from: u32,
    len: u32,
}

impl Kids {
    /// Where the children stand in the tree's list.
    pub(crate) fn range(self) -> std::ops::Range<usize> {
        let from = self.from as usize;
        from..from + self.len as usize
    }
}

/// [`Node`]'s parent where it has none.
const NO_PARENT: u32 = u32::MAX;

/// The rarely present properties of a [`Node`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Props {
    /// The tag as written (`!!str`), if any.
    pub tag: Option<Box<str>>,
    /// The anchor this node defines, if any.
    pub anchor: Option<Box<str>>,
    /// For an alias, the node its anchor names.
    pub target: Option<NodeId>,
}

impl Node {
    /// A plain, block-style node spanning `start..end`, with no children, parent or
    /// properties yet: what the builder fills in.
    pub(crate) fn bare(kind: Kind, start: usize, end: usize) -> Node {
        Node {
            kind,
            flow: false,
            style: Style::Plain,
            start,
            end,
            kids: Kids::default(),
            decoded: None,
            props: None,
            parent: NO_PARENT,
        }
    }

    /// The collection holding this node.
    pub fn parent(&self) -> Option<NodeId> {
        (self.parent != NO_PARENT).then_some(self.parent as NodeId)
    }

    /// Makes `parent` the collection holding this node.
    pub(crate) fn set_parent(&mut self, parent: NodeId) {
        self.parent = u32::try_from(parent).unwrap_or(NO_PARENT);
    }

    /// The tag as written (`!!str`), if any.
    pub fn tag(&self) -> Option<&str> {
        self.props.as_ref()?.tag.as_deref()
    }

    /// The anchor this node defines (`&name`), if any.
    pub fn anchor(&self) -> Option<&str> {
        self.props.as_ref()?.anchor.as_deref()
    }

    /// For an alias, the node its anchor names.
    pub fn target(&self) -> Option<NodeId> {
        self.props.as_ref()?.target
    }

    /// Places its children at `from..from + len` of the tree's children list.
    pub(crate) fn set_children(&mut self, from: usize, len: usize) {
        self.kids = Kids {
            from: u32::try_from(from).unwrap_or(u32::MAX),
            len: u32::try_from(len).unwrap_or(0),
        };
    }

    /// How many children it has.
    pub fn child_count(&self) -> usize {
        self.kids.len as usize
    }

    /// The properties, made present to be set.
    pub(crate) fn props_mut(&mut self) -> &mut Props {
        self.props.get_or_insert_with(Box::default)
    }
}

/// One YAML document of a file.
#[derive(Clone, Debug)]
pub struct Doc {
    /// The root node; `None` for an empty document.
    pub root: Option<NodeId>,
    /// The bytes that belong to the document: from the start of its `---` line (or of the
    /// file) to the start of the next document's `---` line (or the end of the file).
    pub region: Range<usize>,
    /// Whether the document opens with an explicit `---`.
    pub explicit_start: bool,
}

/// A parsed file: its text, documents and node arena.
#[derive(Clone, Debug)]
pub struct Tree<'a> {
    pub text: &'a str,
    pub docs: Vec<Doc>,
    pub nodes: Vec<Node>,
    /// Every collection's children, each collection's in one stretch: a map's keys and
    /// values interleaved (`k0, v0, k1, v1, …`), a sequence's items. Read through
    /// [`Tree::children`].
    kids: Vec<NodeId>,
    /// The file's line ending (`"\r\n"` if any line ends so, else `"\n"`).
    pub eol: &'static str,
    /// Mapping keys repeated within one mapping, as `line N: key` (YAML forbids them, every
    /// parser accepts them).
    pub duplicate_keys: Vec<String>,
    /// Digests of large nodes already taken ([`digest`]): the merge, the comment pass and the
    /// verifier each compare a list's elements, and a CRD's `versions` element is megabytes.
    digests: KeptDigests,
    /// Whether any node is an alias, found on first asking: where none is, the same text is
    /// the same data ([`same_data`]).
    aliases: std::sync::OnceLock<bool>,
}

/// A tree without its text: what a stage that parsed a text it hands on passes along, so the
/// next stage reads the same text without parsing it again.
#[derive(Clone, Debug)]
pub(crate) struct Parsed {
    docs: Vec<Doc>,
    nodes: Vec<Node>,
    kids: Vec<NodeId>,
    eol: &'static str,
    duplicate_keys: Vec<String>,
    /// The length of the text it was parsed from, checked when it is joined to a text again.
    len: usize,
}

/// A text with its parse, both owned: what a stage hands on where a later one checks that
/// very text.
#[derive(Clone, Debug)]
pub(crate) struct OwnedParse {
    pub text: String,
    pub tree: Parsed,
}

impl<'a> Tree<'a> {
    /// The tree without its text.
    pub(crate) fn detach(self) -> Parsed {
        Parsed {
            len: self.text.len(),
            docs: self.docs,
            nodes: self.nodes,
            kids: self.kids,
            eol: self.eol,
            duplicate_keys: self.duplicate_keys,
        }
    }
}

impl Parsed {
    /// The tree of `text`, which must be the very text it was parsed from (a copy will do);
    /// `None` where the length shows it is not.
    pub(crate) fn attach(self, text: &str) -> Option<Tree<'_>> {
        (text.len() == self.len).then_some(Tree {
            text,
            docs: self.docs,
            nodes: self.nodes,
            kids: self.kids,
            eol: self.eol,
            duplicate_keys: self.duplicate_keys,
            digests: KeptDigests::default(),
            aliases: std::sync::OnceLock::new(),
        })
    }
}

/// Why a text has no span tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// Not YAML, where the parser says.
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// A mapping key that is a collection (a template's `{{ … }}` reads as one).
    ComplexKey { line: usize },
    /// More nodes than [`MAX_NODES`].
    TooManyNodes,
    /// The parser broke its own contract.
    Internal(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Syntax {
                line,
                column,
                message,
            } => write!(f, "YAML error at line {line} column {column}: {message}"),
            Error::ComplexKey { line } => {
                write!(f, "line {line}: a mapping key that is not a plain value")
            }
            Error::TooManyNodes => write!(f, "over {MAX_NODES} YAML nodes"),
            Error::Internal(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Error {}

/// Parses `text` into a span tree. Errors name the line and column.
///
/// The block YAML of manifests is read directly, several times faster; anything else (and
/// every error) is granit-parser's.
pub fn parse(text: &str) -> Result<Tree<'_>, Error> {
    match block_reader::read(text) {
        Some(tree) => Ok(tree),
        None => tree_builder::build(text),
    }
}

/// How [`parse`] read a text, for the tests that hold the direct reader to granit's.
pub(crate) enum ReadBy<'a> {
    /// The direct reader took it and built the same tree as granit.
    Both,
    /// The direct reader stood aside.
    GranitOnly,
    /// The two trees differ: the first difference.
    Differ(String),
    /// Neither took it.
    Neither,
    /// Only the direct reader took it (granit refused: the reader is wrong).
    ReaderOnly(Tree<'a>),
}

/// Reads `text` both ways and compares the trees.
pub(crate) fn read_both(text: &str) -> ReadBy<'_> {
    let granit = tree_builder::build(text);
    match (block_reader::read(text), granit) {
        (None, Ok(_)) => ReadBy::GranitOnly,
        (None, Err(_)) => ReadBy::Neither,
        (Some(tree), Err(_)) => ReadBy::ReaderOnly(tree),
        (Some(mine), Ok(theirs)) => match first_difference(&mine, &theirs) {
            None => ReadBy::Both,
            Some(d) => ReadBy::Differ(d),
        },
    }
}

/// The first difference between two trees of one text, described.
fn first_difference(a: &Tree, b: &Tree) -> Option<String> {
    if a.docs.len() != b.docs.len() {
        return Some(format!(
            "{} documents read directly, {} by granit",
            a.docs.len(),
            b.docs.len()
        ));
    }
    for (i, (x, y)) in a.docs.iter().zip(&b.docs).enumerate() {
        if (x.root, &x.region, x.explicit_start) != (y.root, &y.region, y.explicit_start) {
            return Some(format!(
                "document {i}: {x:?} read directly, {y:?} by granit"
            ));
        }
    }
    for (i, (x, y)) in a.nodes.iter().zip(&b.nodes).enumerate() {
        let same = (
            x.kind,
            x.flow,
            x.style,
            x.start,
            x.end,
            a.children(i),
            &x.decoded,
        ) == (
            y.kind,
            y.flow,
            y.style,
            y.start,
            y.end,
            b.children(i),
            &y.decoded,
        ) && (&x.props, x.parent()) == (&y.props, y.parent());
        if !same {
            let line = a.text[..x.start.min(y.start)].matches('\n').count() + 1;
            return Some(format!(
                "node {i} (line {line}): {x:?} {:?} read directly, {y:?} {:?} by granit",
                &a.text[x.start..x.end],
                &b.text[y.start..y.end]
            ));
        }
    }
    if a.nodes.len() != b.nodes.len() {
        return Some(format!(
            "{} nodes read directly, {} by granit",
            a.nodes.len(),
            b.nodes.len()
        ));
    }
    (a.duplicate_keys != b.duplicate_keys || a.eol != b.eol).then(|| {
        format!(
            "duplicate keys {:?} read directly, {:?} by granit",
            a.duplicate_keys, b.duplicate_keys
        )
    })
}

impl<'a> Tree<'a> {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    /// Whether any node of the tree is an alias (`*name`).
    pub fn has_aliases(&self) -> bool {
        *self
            .aliases
            .get_or_init(|| self.nodes.iter().any(|n| n.kind == Kind::Alias))
    }

    /// The source text of a node (from its anchor/tag/header to the end of its content).
    pub fn src(&self, id: NodeId) -> &'a str {
        let n = &self.nodes[id];
        &self.text[n.start..n.end]
    }

    /// Whether the node is a YAML null (`null`, `~`, empty, `!!null`).
    pub fn is_null(&self, id: NodeId) -> bool {
        let n = &self.nodes[id];
        n.kind == Kind::Scalar && self.scalar_key(id) == ScalarKey::Null
    }

    /// A scalar's decoded text; an alias's anchor name; empty for a collection.
    pub fn value(&self, id: NodeId) -> &str {
        value_of(self.text, &self.nodes[id])
    }

    /// The scalar's identity as data (see [`ScalarKey`]).
    pub fn scalar_key(&self, id: NodeId) -> ScalarKey<'_> {
        let n = &self.nodes[id];
        ScalarKey::of(self.value(id), n.style, n.tag())
    }

    /// The children of a collection: a map's keys and values interleaved (`k0, v0, k1, v1,
    /// …`), a sequence's items; none for a scalar or an alias.
    pub fn children(&self, id: NodeId) -> &[NodeId] {
        self.kids
            .get(self.nodes[id].kids.range())
            .unwrap_or_default()
    }

    /// The entries of a map as (key, value) pairs.
    pub fn entries(&self, id: NodeId) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.children(id).chunks(2).map(|kv| (kv[0], kv[1]))
    }

    /// The value under `key` in a map (keys compared by decoded text).
    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        if self.nodes[map].kind != Kind::Map {
            return None;
        }
        self.entries(map)
            .find(|&(k, _)| self.value(k) == key)
            .map(|(_, v)| v)
    }

    /// Whether the node is a block map or block sequence with children: text that spans lines
    /// below its key.
    pub fn is_block_collection(&self, id: NodeId) -> bool {
        let n = &self.nodes[id];
        matches!(n.kind, Kind::Map | Kind::Seq) && !n.flow && n.child_count() > 0
    }

    /// The scalar text under `key`, if it is a non-null scalar.
    pub fn get_str(&self, map: NodeId, key: &str) -> Option<&str> {
        let v = self.get(map, key)?;
        let n = &self.nodes[v];
        (n.kind == Kind::Scalar && !self.is_null(v)).then_some(self.value(v))
    }
}

/// A block scalar's content as lines: for merging multi-line strings line by line.
#[derive(Clone, Debug)]
pub struct BlockLines<'a> {
    /// Where the content starts: the line after the `|`/`>` header.
    pub content: usize,
    /// The content's indentation (0 when it has no content line).
    pub indent: usize,
    /// Its lines without the block's indentation (line breaks and a `\r` before them left out).
    pub lines: Vec<&'a str>,
}

impl<'a> Tree<'a> {
    /// A literal or folded scalar's header (`|`, `>-`, `|2+`): its style, chomping and
    /// indentation indicator, and where it stands; `None` for any other node.
    pub fn block_header(&self, id: NodeId) -> Option<(usize, &'a str)> {
        let n = &self.nodes[id];
        if !matches!(n.style, Style::Literal | Style::Folded) {
            return None;
        }
        let text = self.text;
        let line = &text[n.start..crate::text::line_end(text, n.start)];
        let code = line.find('#').map_or(line, |c| &line[..c]);
        let at = code.find(['|', '>'])?;
        let len = code[at..]
            .bytes()
            .take_while(|b| b"|>+-0123456789".contains(b))
            .count();
        Some((n.start + at, &code[at..at + len]))
    }

    /// Whether a node's value runs past its text ([`Tree::src`]): it ends in a block scalar
    /// kept with `+`, whose trailing blank lines are part of its value but not of its span.
    /// Two such nodes of the same text may differ as data.
    pub fn value_outruns_text(&self, id: NodeId) -> bool {
        self.kept_blank_lines(id).is_some()
    }

    /// Whether a node's text ends in a literal or folded scalar, which takes as its own any
    /// line below it indented deeper than its key, comment lines included.
    pub fn ends_in_block_scalar(&self, id: NodeId) -> bool {
        let mut n = id;
        loop {
            match self.nodes[n].kind {
                Kind::Map | Kind::Seq if !self.nodes[n].flow => match self.children(n).last() {
                    Some(&last) => n = last,
                    None => return false,
                },
                Kind::Scalar => return self.block_header(n).is_some(),
                _ => return false,
            }
        }
    }

    /// Where a node ends in a block scalar kept with `+`: how many line breaks end that
    /// scalar's value (its trailing blank lines, past its span, and its last line's break).
    pub fn kept_blank_lines(&self, id: NodeId) -> Option<usize> {
        let mut n = id;
        loop {
            match self.nodes[n].kind {
                Kind::Map | Kind::Seq => n = *self.children(n).last()?,
                Kind::Scalar => {
                    let kept = self.block_header(n)?.1.contains('+');
                    let value = self.value(n);
                    return kept.then(|| value.len() - value.trim_end_matches('\n').len());
                }
                Kind::Alias => return None,
            }
        }
    }

    /// A literal or folded scalar's content lines; `None` for any other node.
    pub fn block_lines(&self, id: NodeId) -> Option<BlockLines<'a>> {
        use crate::text::{indent_of_line, line_end, next_line_start};
        let n = &self.nodes[id];
        if !matches!(n.style, Style::Literal | Style::Folded) {
            return None;
        }
        let text = self.text;
        let content = next_line_start(text, n.start);
        if content >= n.end {
            return Some(BlockLines {
                content,
                indent: 0,
                lines: Vec::new(),
            });
        }
        let indent = indent_of_line(text, content);
        let body = &text[content..line_end(text, n.end)];
        let lines = body
            .split('\n')
            .map(|l| {
                let l = l.strip_suffix('\r').unwrap_or(l);
                let have = l.bytes().take_while(|&b| b == b' ').count();
                &l[have.min(indent)..]
            })
            .collect();
        Some(BlockLines {
            content,
            indent,
            lines,
        })
    }
}

/// A node's value given its source text (see [`Tree::value`]).
fn value_of<'t>(text: &'t str, n: &'t Node) -> &'t str {
    match (&n.decoded, n.kind) {
        (Some(d), _) => d,
        (None, Kind::Scalar) => &text[n.start..n.end],
        (None, _) => "",
    }
}

/// Whether two nodes (possibly of different trees) are equal as data: scalars by
/// [`ScalarKey`], maps regardless of key order, sequences in order, aliases by anchor name and
/// anchored data. Formatting and comments do not count.
pub fn same_data(a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> bool {
    Anchored::default().same(a, an, b, bn)
}

/// The pairs of anchored values (one of each tree) a comparison has met behind aliases, with
/// whether they are the same data. Each pair is compared once however many aliases name it:
/// comparing aliases of aliases afresh each time costs as much as expanding them (an alias
/// bomb). A pair is taken as the same while it is being compared, so an alias inside its own
/// anchor's value ends; any difference elsewhere still makes the whole comparison false.
#[derive(Default)]
struct Anchored(HashMap<(NodeId, NodeId), bool>);

impl Anchored {
    fn same(&mut self, a: &Tree, an: NodeId, b: &Tree, bn: NodeId) -> bool {
        let (x, y) = (&a.nodes[an], &b.nodes[bn]);
        // The same text is the same data, but where it holds an alias: the same `*name` can
        // name anchors holding other values in the two trees. Nor where it ends in a literal
        // or folded scalar: its last line break (and under `+` the blank lines below) is
        // part of its value but past its text, and a file may end right after that text.
        if a.src(an) == b.src(bn)
            && x.kind != Kind::Alias
            && !a.ends_in_block_scalar(an)
            && !b.ends_in_block_scalar(bn)
            && (x.kind == Kind::Scalar
                || !a.has_aliases()
                || memchr::memchr(b'*', a.src(an).as_bytes()).is_none())
        {
            return true;
        }
        match (x.kind, y.kind) {
            (Kind::Scalar, Kind::Scalar) => a.scalar_key(an) == b.scalar_key(bn),
            (Kind::Alias, Kind::Alias) => {
                a.value(an) == b.value(bn)
                    && match (x.target(), y.target()) {
                        // The anchored values as data: a comment moved inside one changes
                        // no alias.
                        (Some(t), Some(u)) if !holds_alias(a, t) && !holds_alias(b, u) => {
                            self.same(a, t, b, u)
                        }
                        (Some(t), Some(u)) => match self.0.get(&(t, u)) {
                            Some(&known) => known,
                            None => {
                                self.0.insert((t, u), true);
                                let same = self.same(a, t, b, u);
                                self.0.insert((t, u), same);
                                same
                            }
                        },
                        _ => false,
                    }
            }
            (Kind::Seq, Kind::Seq) => {
                x.child_count() == y.child_count()
                    && a.children(an)
                        .iter()
                        .zip(b.children(bn))
                        .all(|(&c, &d)| self.same(a, c, b, d))
            }
            (Kind::Map, Kind::Map) => {
                if x.child_count() != y.child_count() {
                    return false;
                }
                // Keys in the same order, the usual case: entry by entry, with no index,
                // ending at the first value that differs (a key holds one value: the maps
                // differ there whatever order the keys further on stand in).
                let mut pairs = a.entries(an).zip(b.entries(bn));
                match pairs
                    .find(|&((k, v), (l, w))| a.value(k) != b.value(l) || !self.same(a, v, b, w))
                {
                    None => return true,
                    Some(((k, _), (l, _))) if a.value(k) == b.value(l) => return false,
                    Some(_) => {}
                }
                let index: HashMap<&str, NodeId> =
                    b.entries(bn).map(|(k, v)| (b.value(k), v)).collect();
                a.entries(an).all(|(k, v)| match index.get(a.value(k)) {
                    Some(&w) => self.same(a, v, b, w),
                    None => false,
                })
            }
            _ => false,
        }
    }
}

/// Whether a node's value holds an alias node. Only a text with a `*` is walked; a `*` in a
/// string or a comment (`* 100` in a commented PromQL line) is no alias, and reading it as one
/// compared the anchored value as text, comments included: a comment line taken out of an
/// anchored map then read as a change of every alias of it.
fn holds_alias(tree: &Tree, n: NodeId) -> bool {
    if memchr::memchr(b'*', tree.src(n).as_bytes()).is_none() {
        return false;
    }
    let mut todo = vec![n];
    while let Some(id) = todo.pop() {
        if tree.node(id).kind == Kind::Alias {
            return true;
        }
        todo.extend_from_slice(tree.children(id));
    }
    false
}

/// Names for the data of several lists' elements, one per element in order, equal exactly
/// when the data is ([`same_data`]): for diffing and counting list elements, where only
/// equality matters. A few elements are compared with each other, which stops at the first
/// difference and never hashes; more are named by their [`digest`], one pass each. (A CRD's
/// one `versions` element, edited on both sides, holds a whole schema: three digests of it
/// cost the merge more than parsing it.)
pub fn data_names<const N: usize>(lists: [(&Tree, &[NodeId]); N]) -> [Vec<u128>; N] {
    let total: usize = lists.iter().map(|(_, items)| items.len()).sum();
    if total > COMPARED_UP_TO {
        return lists.map(|(tree, items)| items.iter().map(|&e| digest(tree, e)).collect());
    }
    let mut seen: Vec<(&Tree, NodeId)> = Vec::with_capacity(total);
    lists.map(|(tree, items)| {
        items
            .iter()
            .map(|&e| {
                let name = match seen.iter().position(|&(t, n)| same_data(t, n, tree, e)) {
                    Some(i) => i,
                    None => {
                        seen.push((tree, e));
                        seen.len() - 1
                    }
                };
                name as u128
            })
            .collect()
    })
}

/// How many elements, all lists together, [`data_names`] compares with each other rather
/// than digests: at most 28 comparisons, most ending at the first difference.
const COMPARED_UP_TO: usize = 8;

/// A node's data as a string, equal exactly when the data is (map keys sorted).
pub fn canonical(tree: &Tree, id: NodeId) -> String {
    let mut out = String::with_capacity(tree.src(id).len());
    write_canonical(tree, id, &mut out);
    out
}

/// A node's data as a 128-bit digest of a stream like its [`canonical`] text (values
/// length-prefixed instead of quoted), without building the text: equal exactly when the
/// data is, but for two 64-bit SipHashes of different streams colliding at once. For comparing and counting list elements (a CRD's `versions` element holds a
/// whole schema), where only equality matters.
pub fn digest(tree: &Tree, id: NodeId) -> u128 {
    let n = tree.node(id);
    let large = n.end.saturating_sub(n.start) >= DIGEST_KEPT_FROM;
    if let Some(d) = large.then(|| tree.digests.get(id)).flatten() {
        return d;
    }
    let mut d = Digest::default();
    write_canonical(tree, id, &mut d);
    let d = d.finish();
    if large {
        tree.digests.keep(id, d);
    }
    d
}

/// The text length (bytes) from which a node's digest is kept: a smaller one costs less to
/// take again than to keep.
const DIGEST_KEPT_FROM: usize = 4 << 10;

/// A tree's kept digests, behind a lock: a package update reads one tree on several threads.
/// A poisoned lock (a panic on another thread while it was held) only means none is kept.
#[derive(Debug, Default)]
struct KeptDigests(Mutex<HashMap<NodeId, u128>>);

impl KeptDigests {
    fn get(&self, id: NodeId) -> Option<u128> {
        self.0.lock().ok()?.get(&id).copied()
    }

    fn keep(&self, id: NodeId, d: u128) {
        if let Ok(mut kept) = self.0.lock() {
            kept.insert(id, d);
        }
    }
}

/// A copy of a tree takes its digests anew.
impl Clone for KeptDigests {
    fn clone(&self) -> KeptDigests {
        KeptDigests::default()
    }
}

/// Two SipHashes over one stream, the second salted; small writes gather in a buffer, since
/// a digest is fed token by token.
struct Digest {
    a: std::collections::hash_map::DefaultHasher,
    b: std::collections::hash_map::DefaultHasher,
    buffer: Vec<u8>,
}

impl Default for Digest {
    fn default() -> Digest {
        use std::hash::Hasher;
        let mut b = std::collections::hash_map::DefaultHasher::new();
        b.write_u8(0x5a);
        Digest {
            a: std::collections::hash_map::DefaultHasher::new(),
            b,
            buffer: Vec::with_capacity(DIGEST_BUFFER),
        }
    }
}

const DIGEST_BUFFER: usize = 8 << 10;

impl Digest {
    fn finish(&mut self) -> u128 {
        use std::hash::Hasher;
        self.flush();
        (u128::from(self.a.finish()) << 64) | u128::from(self.b.finish())
    }

    fn flush(&mut self) {
        use std::hash::Hasher;
        self.a.write(&self.buffer);
        self.b.write(&self.buffer);
        self.buffer.clear();
    }

    fn bytes(&mut self, b: &[u8]) {
        if self.buffer.len() + b.len() > DIGEST_BUFFER {
            self.flush();
        }
        self.buffer.extend_from_slice(b);
    }

    /// A text that may hold any character: marked and length-prefixed, so the stream reads
    /// back one way only.
    fn prefixed(&mut self, mark: u8, s: &str) {
        self.bytes(&[mark]);
        self.bytes(&(s.len() as u64).to_le_bytes());
        self.bytes(s.as_bytes());
    }
}

/// Where [`write_canonical`] writes: canonical text, or a digest of it.
trait Sink {
    /// Structure: brackets, separators, `~`.
    fn raw(&mut self, s: &str);
    /// A string value or key.
    fn string(&mut self, s: &str);
    /// A typed scalar's text, an alias's name, a tag.
    fn text(&mut self, s: &str);
}

impl Sink for String {
    fn raw(&mut self, s: &str) {
        self.push_str(s);
    }

    fn string(&mut self, s: &str) {
        use std::fmt::Write;
        let _ = write!(self, "{s:?}");
    }

    fn text(&mut self, s: &str) {
        self.push_str(s);
    }
}

impl Sink for Digest {
    fn raw(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    fn string(&mut self, s: &str) {
        self.prefixed(b'"', s);
    }

    fn text(&mut self, s: &str) {
        self.prefixed(b'T', s);
    }
}

/// [`canonical`], written into one sink: building each level's string and copying it into
/// its parent's costs the text once per level of nesting (a 5 MB CRD schema, 20 deep).
fn write_canonical<W: Sink>(tree: &Tree, id: NodeId, out: &mut W) {
    let n = tree.node(id);
    match n.kind {
        Kind::Scalar => match tree.scalar_key(id) {
            ScalarKey::Null => out.raw("~"),
            ScalarKey::Str(s) => out.string(s),
            ScalarKey::Typed(s) => out.text(s),
            ScalarKey::Tagged(t, s) => {
                out.text(t);
                out.raw(" ");
                out.string(s);
            }
        },
        Kind::Alias => {
            out.raw("*");
            out.text(tree.value(id));
        }
        Kind::Seq => {
            out.raw("[");
            for (i, &c) in tree.children(id).iter().enumerate() {
                if i > 0 {
                    out.raw(",");
                }
                write_canonical(tree, c, out);
            }
            out.raw("]");
        }
        Kind::Map => {
            // Sorted by the key's text: any order the data alone decides will do, since
            // only equality is read from the result.
            let mut entries: Vec<(&str, NodeId)> =
                tree.entries(id).map(|(k, v)| (tree.value(k), v)).collect();
            entries.sort_unstable();
            if entries.windows(2).any(|w| w[0].0 == w[1].0) {
                // A repeated key: its entries order by their values too.
                let mut whole: Vec<String> = entries
                    .iter()
                    .map(|(key, v)| format!("{key:?}:{}", canonical(tree, *v)))
                    .collect();
                whole.sort();
                out.raw("{");
                out.text(&whole.join(","));
                out.raw("}");
                return;
            }
            out.raw("{");
            for (i, (key, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.raw(",");
                }
                out.string(key);
                out.raw(":");
                write_canonical(tree, *v, out);
            }
            out.raw("}");
        }
    }
}

#[cfg(test)]
mod tests;
