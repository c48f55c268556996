//! The state of one structural merge: the three trees, the plan so far, and the primitives
//! every rule uses to add to it.

use std::collections::HashSet;

use crate::options::MergeOptions;
use crate::parse::{NodeId, Tree};

use super::plan::{Anchor, Conflict, Field, Op, Plan};

pub(crate) struct Merger<'t> {
    pub base: &'t Tree<'t>,
    pub ours: &'t Tree<'t>,
    pub theirs: &'t Tree<'t>,
    pub opts: &'t MergeOptions,
    pub plan: Plan,
    /// The resource being merged, for conflict messages.
    pub resource: String,
    /// Its `group/Kind`, for the list-key schema.
    pub group_kind: Option<String>,
    /// Ours' fields deleted so far: a collection that loses every child becomes empty.
    pub deleted: HashSet<NodeId>,
    /// (resource, path) pairs marked as conflicts whatever the rules say.
    pub forced: &'t [(String, String)],
    /// The file's name, which some list rules depend on.
    pub file_name: Option<&'t str>,
    /// Whether an element a side renamed is paired with its base element
    /// by the alignment (`align::Aligned`); off, elements pair by key alone, as kyaml pairs them.
    pub pair_renamed_elements: bool,
}

impl<'t> Merger<'t> {
    pub fn new(
        base: &'t Tree<'t>,
        ours: &'t Tree<'t>,
        theirs: &'t Tree<'t>,
        opts: &'t MergeOptions,
    ) -> Merger<'t> {
        Merger {
            base,
            ours,
            theirs,
            opts,
            plan: Plan::default(),
            resource: String::new(),
            group_kind: None,
            deleted: HashSet::new(),
            forced: &[],
            file_name: None,
            pair_renamed_elements: true,
        }
    }

    /// Whether a conflict is forced at `path` of the resource being merged.
    pub fn forced_at(&self, path: &str) -> bool {
        self.forced
            .iter()
            .any(|(resource, p)| *resource == self.resource && p == path)
    }

    /// Marks a conflict over ours' field (or, when ours has none, at `at`, at the column of
    /// `like`), with base's and theirs' versions of it.
    pub fn conflict(
        &mut self,
        path: &str,
        what: String,
        [base, ours, theirs]: [Option<Field>; 3],
        at: Anchor,
        like: Option<Field>,
    ) {
        let all = |f: Option<Field>| f.into_iter().collect::<Vec<_>>();
        self.conflict_many(path, what, [all(base), all(ours), all(theirs)], at, like);
    }

    /// Marks a conflict over a run of ours' fields (consecutive elements of one list).
    pub fn conflict_many(
        &mut self,
        path: &str,
        what: String,
        [base, ours, theirs]: [Vec<Field>; 3],
        at: Anchor,
        like: Option<Field>,
    ) {
        self.plan.ops.push(Op::Conflict {
            base,
            ours,
            theirs,
            at,
            like,
        });
        self.record_conflict(path, what);
    }

    /// Adds a conflict to the summary (its markers are planned by the caller).
    pub fn record_conflict(&mut self, path: &str, what: String) {
        self.plan.conflicts.push(Conflict {
            resource: self.resource.clone(),
            path: if path.is_empty() {
                "(document)".into()
            } else {
                path.to_string()
            },
            what,
        });
    }

    /// Replaces ours' value with theirs'.
    pub fn take_theirs(&mut self, o: Field, t: Field) {
        self.plan.ops.push(Op::Take { ours: o, theirs: t });
    }

    /// Deletes ours' field (its lines, with the comments above it).
    pub fn delete(&mut self, o: Field) {
        self.deleted.insert(o.node);
        self.plan.ops.push(Op::Delete { ours: o });
    }

    /// Inserts theirs' field at `at`, at the column of ours' field `like`, leaving out
    /// theirs' fields in `omit`.
    pub fn insert(&mut self, t: Field, at: Anchor, like: Option<Field>, omit: Vec<Field>) {
        self.plan.ops.push(Op::Insert {
            theirs: t,
            at,
            like,
            omit,
        });
    }
}
