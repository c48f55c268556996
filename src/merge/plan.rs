//! What the merge rules decide, before any text is written: a plan of edits against ours'
//! tree, and the conflicts, each with its resource and field path.
//!
//! The plan names nodes of the parsed versions and places in ours; it holds no text. Render
//! turns it into ours' bytes with the edits spliced in (re-indented, in ours' style, with
//! markers around conflicts), so the rules never format text and render never decides a rule.

use crate::parse::NodeId;
use crate::text::Chunk;

/// A whole document of one version, as render needs it: its index among the tree's documents
/// and its root (render reads the tree, never the resource model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Document {
    pub doc: usize,
    pub root: NodeId,
}

impl From<crate::resource::DocRef> for Document {
    fn from(d: crate::resource::DocRef) -> Document {
        Document {
            doc: d.doc,
            root: d.root,
        }
    }
}

/// Where a node sits, which decides the lines that are "its" lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A map value, with its key.
    Entry(NodeId),
    /// A block sequence item.
    Item,
    /// A document's root.
    Root,
}

/// A node of one version with its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    pub slot: Slot,
    pub node: NodeId,
}

impl Field {
    pub fn entry(key: NodeId, value: NodeId) -> Field {
        Field {
            slot: Slot::Entry(key),
            node: value,
        }
    }

    pub fn item(node: NodeId) -> Field {
        Field {
            slot: Slot::Item,
            node,
        }
    }

    pub fn root(node: NodeId) -> Field {
        Field {
            slot: Slot::Root,
            node,
        }
    }
}

/// Ours or theirs: whose text an entry comes from.
pub(crate) use crate::sides::Side;

/// A place in ours' text where something new goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// Above ours' field, and above the comment lines that belong to it.
    Before(Field),
    /// Right after ours' field's last line.
    After(Field),
    /// Where ours' document starts.
    DocStart(usize),
    /// Where ours' document ends (the next one's `---` line, or the end of the file).
    DocEnd(usize),
    /// The end of ours' text.
    End,
}

/// One edit of ours, in terms of the versions' nodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// Ours' value replaced by theirs' (theirs' text, quoting and end-of-line comment).
    Take { ours: Field, theirs: Field },
    /// Ours' field removed, with the comment lines above it.
    Delete { ours: Field },
    /// Theirs' node's anchor (`&name`) written on ours' map value, which has none.
    AddAnchor { ours: Field, theirs: NodeId },
    /// Ours' value replaced by an empty collection: `[]` if `list`, else `{}`.
    Empty { ours: Field, list: bool },
    /// Theirs' field inserted at `at`, at the column of ours' field `like` (0 without one),
    /// leaving out theirs' fields in `omit` (kyaml's delta: what theirs did not change).
    Insert {
        theirs: Field,
        at: Anchor,
        like: Option<Field>,
        omit: Vec<Field>,
    },
    /// Ours' fields (consecutive siblings; none: an empty range at `at`) put between
    /// conflict markers with base's and theirs' versions, at ours' column (or `like`'s).
    Conflict {
        base: Vec<Field>,
        ours: Vec<Field>,
        theirs: Vec<Field>,
        at: Anchor,
        like: Option<Field>,
    },
    /// A block scalar merged line by line: the chunks of the 3-way line merge of its content
    /// lines (conflicting chunks are marked inside the scalar).
    Lines {
        base: Field,
        ours: Field,
        theirs: Field,
        chunks: Vec<Chunk>,
        /// Whether theirs' header (`|`, `>-`, …) replaces ours' (theirs changed it).
        theirs_header: bool,
    },
    /// A flow list (`[a, b]`) merged element by element: theirs' stretches spliced into ours.
    FlowList {
        ours: Field,
        theirs: Field,
        chunks: Vec<Chunk>,
    },
    /// Ours' empty `[]`/`{}` replaced by theirs' block collection without the children in
    /// `omit` (those ours removed).
    Fill {
        ours: Field,
        theirs: Field,
        omit: Vec<Field>,
    },
    /// Ours' flow map rewritten with these entries (key and value nodes of ours' or theirs'
    /// tree), each in its own text.
    FlowMap {
        ours: Field,
        entries: Vec<(Side, NodeId, NodeId)>,
    },
    /// Ours' flow map, a field of a block map, rewritten as a block map of these entries
    /// below its key: ours' entries one to a line, theirs' lines re-indented.
    BlockMap {
        ours: Field,
        entries: Vec<(Side, NodeId, NodeId)>,
    },
    /// Ours' block map's entries rewritten in this order of ours' keys (theirs' order), each
    /// entry's lines as ours wrote them.
    Reorder { ours: Field, keys: Vec<NodeId> },
    /// Ours' children replaced by theirs' (merge2's `$patch: replace`), directives left out.
    ReplaceChildren { ours: Field, theirs: Vec<Field> },
    /// Theirs' document inserted at `at` as a document of its own.
    InsertDocument { theirs: Document, at: Anchor },
    /// Ours' document removed, with its separator.
    DeleteDocument { ours: Document },
    /// A whole document deleted on one side and changed on the other: ours' document (or an
    /// empty place at `at`) between markers with base's and theirs'.
    DocumentConflict {
        base: Option<Document>,
        ours: Option<Document>,
        theirs: Option<Document>,
        at: Anchor,
    },
}

/// One place both sides changed differently, for the one-line stderr summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The resource, e.g. `apps/Deployment shop/web`.
    pub resource: String,
    /// The field path, e.g. `spec.template.spec.containers[name=web].image`.
    pub path: String,
    /// What each side did, e.g. `ours changed 3 → 5, theirs changed 3 → 4`.
    pub what: String,
}

/// The merge's decisions for one file: edits of ours in the order they were planned (which
/// orders insertions at one place), the conflicts marked among them, and what a policy
/// settled that the user must hear of (one line each).
#[derive(Clone, Debug, Default)]
pub(crate) struct Plan {
    pub ops: Vec<Op>,
    pub conflicts: Vec<Conflict>,
    pub notes: Vec<String>,
}
