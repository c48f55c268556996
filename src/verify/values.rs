//! A value of the result checked against its three versions, path by path.

use std::collections::HashMap;

use crate::git::line_merge::line_merge;
use crate::options::MergeOptions;
use crate::parse::{canonical, same_data, Kind, NodeId, Tree, Versions};
use crate::resource::Path;
use crate::text::markers;

use super::pairing::{by_key, by_likeness, Item, Row};
use super::{Finding, Rule, Taken, Verdict, Violation};

/// One version's node at a path, if it has one.
pub(super) type At = Option<NodeId>;

/// Walks a resource's value in the four trees, collecting the paths where the result breaks
/// the invariant.
pub(super) struct Checker<'t> {
    pub b: &'t Tree<'t>,
    pub o: &'t Tree<'t>,
    pub t: &'t Tree<'t>,
    pub r: &'t Tree<'t>,
    pub rule: Rule,
    /// The resource being checked, as conflicts name it.
    pub resource: String,
    /// Its `group/Kind`, for the list-key schema.
    pub group_kind: Option<String>,
    /// The file's name: some list-key rules depend on it (a kustomization's).
    pub file_name: Option<&'t str>,
    violations: Vec<Violation>,
}

impl<'t> Checker<'t> {
    pub fn new(versions: &'t Versions<'t>, result: &'t Tree<'t>, rule: Rule) -> Checker<'t> {
        Checker {
            b: &versions.base,
            o: &versions.ours,
            t: &versions.theirs,
            r: result,
            rule,
            resource: String::new(),
            group_kind: None,
            file_name: versions.file_name.as_deref(),
            violations: Vec::new(),
        }
    }

    /// A checker of the same trees and resource with no findings yet, to try whether a
    /// value merges cleanly.
    pub fn probe(&self) -> Checker<'t> {
        Checker {
            resource: self.resource.clone(),
            group_kind: self.group_kind.clone(),
            violations: Vec::new(),
            ..*self
        }
    }

    /// What `check` finds, run on a probe of this checker: for trying a reading before
    /// taking its findings.
    pub fn attempt(&self, check: impl FnOnce(&mut Checker<'t>)) -> Vec<Violation> {
        let mut probe = self.probe();
        check(&mut probe);
        probe.violations
    }

    /// Takes findings made on a probe.
    pub fn extend(&mut self, found: Vec<Violation>) {
        self.violations.extend(found);
    }

    pub fn violation(&mut self, resource: &str, path: &str, common: Option<&str>, what: String) {
        self.found(Finding::Data, resource, path, common, what);
    }

    fn found(
        &mut self,
        finding: Finding,
        resource: &str,
        path: &str,
        common: Option<&str>,
        what: String,
    ) {
        self.violations.push(Violation {
            resource: resource.to_string(),
            path: path.to_string(),
            common: common.map(str::to_string),
            finding,
            what,
        });
    }

    /// Whether a conflict's side may hold its own value `x` where only the other side
    /// changed it to `y`: taking a side of a conflict, and `y` holds an alias whose anchor
    /// stands outside `y`, at a place `x`'s side changed. The alias ties `y` to its anchor's
    /// place, whose value on `x`'s side is that side's change: `y` on `x`'s side would name
    /// an anchor that side's conflict does not hold (or one of other data), so the two
    /// places are one change of each side, a conflict either side of which stands.
    /// `b` is base's value at the same path, through which base's document is found.
    fn tied_side(&self, b: At, xt: &Tree, x: At, yt: &Tree, y: At) -> bool {
        let (Rule::Resolved(_), Some(b), Some(x), Some(y)) = (self.rule, b, x, y) else {
            return false;
        };
        let root = |tree: &Tree, mut at: NodeId| {
            while let Some(parent) = tree.node(at).parent() {
                at = parent;
            }
            at
        };
        let follow = |tree: &Tree, from: NodeId, place: &[String]| {
            place
                .iter()
                .try_fold(from, |at, key| match tree.node(at).kind {
                    Kind::Map => tree.get(at, key),
                    _ => None,
                })
        };
        let inside = |mut at: NodeId| loop {
            if at == y {
                return true;
            }
            match yt.node(at).parent() {
                Some(parent) => at = parent,
                None => return false,
            }
        };
        let (x_root, b_root) = (root(xt, x), root(self.b, b));
        let mut stack = vec![y];
        while let Some(n) = stack.pop() {
            stack.extend(yt.children(n));
            if yt.node(n).kind != Kind::Alias {
                continue;
            }
            if yt.node(n).target().is_none_or(inside) {
                continue;
            }
            let Some(place) = anchor_place(yt, n).filter(|p| !p.iter().any(|k| k == "[]")) else {
                continue;
            };
            // Deleted or nulled there: the alias cannot stand beside that side's change (an
            // alias names no anchor, a `<<` of a null merges no map). Any other change of the
            // place, an emptying included, leaves room for the anchor on the changed value
            // (`image: &base {}`), so both changes stand and no side may drop the alias
            // (adversary packages-mark-1141-651, values-mark-1144-109).
            let there = follow(xt, x_root, &place);
            let before = follow(self.b, b_root, &place);
            let gone = there.is_none_or(|n| xt.is_null(n));
            if gone && !same(self.b, before, xt, there) {
                return true;
            }
        }
        false
    }

    /// Whether, taking a side of a conflict, `x` is a value whose side anchored it where
    /// base had no such anchor: the data is base's, but the anchor ties the place to that
    /// side's aliases, so the other side's change of it is a conflict either side of which
    /// stands (taken, `x` keeps the anchor its aliases name).
    fn anchored(&self, b: At, xt: &Tree, x: At) -> bool {
        let (Rule::Resolved(_), Some(x)) = (self.rule, x) else {
            return false;
        };
        let anchor = xt.node(x).anchor();
        anchor.is_some() && b.and_then(|b| self.b.node(b).anchor()) != anchor
    }

    /// A violation at `path` of the resource being checked.
    pub fn at(&mut self, path: &Path, common: Option<&str>, what: impl Into<String>) {
        let resource = self.resource.clone();
        self.violation(&resource, &path.shown, common, what.into());
    }

    /// A conflict this check reads at `path` that the result does not mark
    /// ([`Finding::Unmarked`]).
    pub fn unmarked(&mut self, path: &Path, common: Option<&str>, what: impl Into<String>) {
        let resource = self.resource.clone();
        self.found(
            Finding::Unmarked,
            &resource,
            &path.shown,
            common,
            what.into(),
        );
    }

    pub fn verdict(self) -> Verdict {
        if self.violations.is_empty() {
            Verdict::Holds
        } else {
            Verdict::Broken(self.violations)
        }
    }

    /// Checks the result's value `r` at `path` against base's, ours' and theirs' (each
    /// absent where the version has no such field). `common` is the deepest path so far that
    /// both ours and theirs have.
    pub fn value(&mut self, path: &Path, common: Option<&str>, [b, o, t, r]: [At; 4]) {
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        let common = if o.is_some() && t.is_some() {
            Some(path.shown.as_str())
        } else {
            common
        };
        let null = |tree: &Tree, x: At| x.is_some_and(|n| tree.is_null(n));
        let kyaml = self.rule == Rule::Kyaml;
        if same(ot, o, tt, t) {
            // Unchanged, or changed alike (kyaml clears the nulls of ours it walks).
            if !(self.equal(path, ot, o, r) || kyaml && cleared_same(rt, r, ot, o)) {
                self.at(
                    path,
                    common,
                    expected("ours and theirs agree", ot, o, rt, r),
                );
            }
            return;
        }
        if same(bt, b, ot, o) {
            // Only theirs changed it.
            let ok = if kyaml {
                if t.is_none() || null(tt, t) {
                    r.is_none()
                } else {
                    cleared_same(rt, r, tt, t) || self.same_set(path, tt, t, r)
                }
            } else {
                self.equal(path, tt, t, r)
                    || (self.tied_side(b, ot, o, tt, t) || self.anchored(b, ot, o))
                        && self.equal(path, ot, o, r)
            };
            if !ok {
                self.at(
                    path,
                    common,
                    expected("only theirs changed it", tt, t, rt, r),
                );
            }
            return;
        }
        if same(bt, b, tt, t) {
            // Only ours changed it (kyaml clears the nulls of ours it walks; a value base
            // lacks, a resource ours added, it keeps as ours wrote it).
            if kyaml
                && b.is_some()
                && o.zip(r)
                    .is_some_and(|(o, r)| keeps_ours_null(path, bt, b, ot, o, rt, r))
            {
                self.at(
                    path,
                    common,
                    "ours cleared a field with a null (kyaml), the result keeps it",
                );
                return;
            }
            if !(self.equal(path, ot, o, r)
                || kyaml && cleared_same(rt, r, ot, o)
                || (self.tied_side(b, tt, t, ot, o) || self.anchored(b, tt, t))
                    && self.equal(path, tt, t, r))
            {
                self.at(path, common, expected("only ours changed it", ot, o, rt, r));
            }
            return;
        }
        // Both changed it, differently.
        // A null or an emptied collection removes the value as much as a deletion does.
        let empty = |tree: &Tree, x: NodeId| {
            tree.is_null(x)
                || !kyaml && tree.node(x).kind != Kind::Scalar && tree.children(x).is_empty()
        };
        let gone = |tree: &Tree, x: At| x.is_none_or(|x| empty(tree, x));
        let had = b.is_some_and(|b| !empty(bt, b));
        if had && gone(ot, o) && gone(tt, t) && !(kyaml && o.is_none() && t.is_some()) {
            // Deleted on one side, set to null on the other: both removed the value. Ours'
            // null or emptied `{}` may stay only where neither deleted the key: a `target: {}`
            // left where theirs deleted `target` means "every resource" to kustomize.
            let kept_ours = o.is_some() && t.is_some() && same(rt, r, ot, o);
            if r.is_some() && !kept_ours {
                self.at(path, common, "both sides removed it, the result keeps it");
            }
            return;
        }
        // A conflict taken from one side holds that side's value, whole or part by part.
        if let Rule::Resolved(side) = self.rule {
            let (st, s) = self.side(side, o, t);
            if self.equal(path, st, s, r) {
                return;
            }
        }
        match (o, t) {
            (Some(on), Some(tn)) => self.both_changed(path, common, b, on, tn, r),
            _ => self.deleted_and_changed(path, common, [b, o, t, r]),
        }
    }

    /// The tree and value of the side a conflicted result was resolved to.
    fn side(&self, side: Taken, o: At, t: At) -> (&'t Tree<'t>, At) {
        match side {
            Taken::Ours => (self.o, o),
            Taken::Theirs => (self.t, t),
        }
    }

    /// A violation of a result resolved to `side` that lacks that side's value at `path`.
    fn not_taken(&mut self, path: &Path, common: Option<&str>, side: Taken, o: At, t: At) {
        let (st, s) = self.side(side, o, t);
        let what = expected(
            &format!("taking {side} side of every conflict"),
            st,
            s,
            self.r,
            None,
        );
        self.at(path, common, what);
    }

    /// One side deleted the value and the other changed it.
    fn deleted_and_changed(&mut self, path: &Path, common: Option<&str>, [b, o, t, r]: [At; 4]) {
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        match self.rule {
            Rule::Resolved(side) => self.not_taken(path, common, side, o, t),
            Rule::Mark => {
                // The deleting side may have carried the change over to what replaced the
                // value (a resource restructured into another with the same edit): then the
                // deletion loses nothing of it.
                let (changer, changed, deleter) = match o {
                    Some(o) => (ot, o, tt),
                    None => (tt, t.unwrap_or_default(), ot),
                };
                if r.is_none() && carried_over(bt, b, changer, changed, deleter) {
                    return;
                }
                self.unmarked(
                    path,
                    common,
                    if o.is_none() {
                        "ours deleted it and theirs changed it: a conflict, not a clean merge"
                    } else {
                        "theirs deleted it and ours changed it: a conflict, not a clean merge"
                    },
                )
            }
            Rule::Ours => {
                if !self.equal(path, ot, o, r) {
                    self.at(path, common, expected("ours wins", ot, o, rt, r));
                }
            }
            Rule::Kyaml => {
                // kyaml deletes what theirs deleted (keeping what ours added under it), and
                // brings back what ours deleted as theirs' change from base.
                // An empty delta may come out as an empty or null value.
                let empty = r.is_some_and(|r| rt.is_null(r) || rt.children(r).is_empty());
                let ok = empty
                    || match (o, t) {
                        (Some(_), None) => r.is_none() || within(rt, r, ot, o),
                        // What theirs changed comes back: gone only if it changed nothing.
                        _ if r.is_none() => !has_delta(bt, b, tt, t),
                        _ => within(rt, r, tt, t),
                    };
                if !ok {
                    self.at(path, common, "kyaml's delta expected");
                }
            }
        }
    }

    /// Both sides have the value and changed it differently: only the merge of its parts can
    /// be clean.
    fn both_changed(
        &mut self,
        path: &Path,
        common: Option<&str>,
        b: At,
        o: NodeId,
        t: NodeId,
        r: At,
    ) {
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        let kind = |tree: &Tree, x: NodeId| tree.node(x).kind;
        let base_kind = b.map(|b| kind(bt, b));
        let (ok, tk) = (kind(ot, o), kind(tt, t));
        let result_kind = r.map(|r| kind(rt, r));
        // A null base map is an empty one both sides filled, as the merge reads it.
        let base_map = base_kind.is_none_or(|k| k == Kind::Map) || b.is_some_and(|b| bt.is_null(b));
        // Where a conflict taken from one side leaves a key with nothing under it, it reads
        // as null: the merge of a collection whose every entry went, one side's deletions and
        // the other's. (A clean result must write `[]` or `{}`: to Helm a null unsets.)
        let emptied = matches!(self.rule, Rule::Resolved(_)) && r.is_some_and(|r| rt.is_null(r));
        if ok == Kind::Map && tk == Kind::Map && base_map {
            if result_kind != Some(Kind::Map) && !emptied {
                return self.at(
                    path,
                    common,
                    "both sides changed this map: the result lost it",
                );
            }
            return self.map(path, common, b, o, t, r);
        }
        if ok == Kind::Seq && tk == Kind::Seq && base_kind.is_none_or(|k| k == Kind::Seq) {
            if result_kind != Some(Kind::Seq) && !emptied {
                return self.at(
                    path,
                    common,
                    "both sides changed this list: the result lost it",
                );
            }
            return self.list(path, common, [b, Some(o), Some(t), r]);
        }
        match self.rule {
            Rule::Kyaml => {
                // A resource's name ours nulled and theirs changed: both sides renamed it, and
                // renames both sides made pair with theirs winning (the README's reading; kyaml
                // would keep the two apart), so theirs' name stands, not the null's clearing.
                let renamed_both = path.shown == "metadata.name" && ot.is_null(o) && !tt.is_null(t);
                // kyaml: a null on either side clears the field, whatever the other did.
                if (ot.is_null(o) || tt.is_null(t)) && !renamed_both {
                    if r.is_some() {
                        self.at(
                            path,
                            common,
                            "a null clears it (kyaml), the result keeps it",
                        );
                    }
                    return;
                }
                if !cleared_same(rt, r, tt, Some(t)) {
                    self.at(path, common, expected("theirs wins", tt, Some(t), rt, r));
                }
            }
            Rule::Ours => {
                if self.equal(path, ot, Some(o), r) {
                    return;
                }
                // Ours wins where both sides changed a field as mark mode reads it: a block
                // scalar whose lines the two sides changed apart is no conflict there, so its
                // lines merged are right too.
                if let (Some(b), Some(r)) = (b, r) {
                    if [(bt, b), (ot, o), (tt, t), (rt, r)]
                        .iter()
                        .all(|&(tree, n)| tree.block_lines(n).is_some())
                    {
                        return self.lines(path, common, b, o, t, r);
                    }
                }
                self.at(path, common, expected("ours wins", ot, Some(o), rt, r));
            }
            Rule::Mark | Rule::Resolved(_) => {
                if let (Some(b), Some(r)) = (b, r) {
                    if [(bt, b), (ot, o), (tt, t), (rt, r)]
                        .iter()
                        .all(|&(tree, n)| tree.block_lines(n).is_some())
                    {
                        return self.lines(path, common, b, o, t, r);
                    }
                }
                match self.rule {
                    Rule::Resolved(side) => self.not_taken(path, common, side, Some(o), Some(t)),
                    _ => self.unmarked(
                        path,
                        common,
                        "both sides changed it differently: a conflict, not a clean merge",
                    ),
                }
            }
        }
    }

    /// Whether the result's `r` is the same data as a version's `x`, elements of keyed lists
    /// paired by key (their order is text, not data).
    pub fn equal(&self, path: &Path, xt: &Tree, x: At, r: At) -> bool {
        let rt = self.r;
        let (Some(x), Some(r)) = (x, r) else {
            return x.is_none() && r.is_none();
        };
        if same_data(xt, x, rt, r) {
            return true;
        }
        let (xn, rn) = (xt.node(x), rt.node(r));
        match (xn.kind, rn.kind) {
            (Kind::Map, Kind::Map) => {
                if xn.child_count() != rn.child_count() {
                    return false;
                }
                let index: HashMap<&str, NodeId> =
                    rt.entries(r).map(|(k, v)| (rt.value(k), v)).collect();
                xt.entries(x).all(|(k, v)| {
                    let key = xt.value(k);
                    index
                        .get(key)
                        .is_some_and(|&w| self.equal(&path.key(key), xt, Some(v), Some(w)))
                })
            }
            // An alias is a reference: its anchor's value is checked where the anchor stands,
            // so one side's edit of an anchored value and the other's edit beside its alias
            // both stand. It must still name the anchor at the same place: an anchor of the
            // same name the other side put elsewhere would take it over.
            (Kind::Alias, Kind::Alias) => same_reference(xt, x, rt, r),
            (Kind::Seq, Kind::Seq) if xn.child_count() == rn.child_count() => {
                match self.keyed_pairs(path, xt, x, r) {
                    Some((set, pairs)) => {
                        // Elements by key; their order too, but in a set list and under
                        // kyaml's rules (which keep ours' order whatever theirs did).
                        let position = |n: NodeId| rt.children(r).iter().position(|&c| c == n);
                        let in_order = set
                            || self.rule == Rule::Kyaml
                            || pairs
                                .windows(2)
                                .all(|w| position(w[0].2) < position(w[1].2));
                        in_order
                            && pairs.into_iter().all(|(shown, a, b)| {
                                self.equal(&path.element(&shown), xt, Some(a), Some(b))
                            })
                    }
                    None => xt
                        .children(x)
                        .iter()
                        .zip(rt.children(r))
                        .all(|(&a, &b)| self.equal(&path.element(""), xt, Some(a), Some(b))),
                }
            }
            _ => false,
        }
    }

    /// A map both sides changed: field by field.
    fn map(&mut self, path: &Path, common: Option<&str>, b: At, o: NodeId, t: NodeId, r: At) {
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        // Maps whose keys stand in one order in all four versions (the common case) pair
        // their entries by position, with no index built.
        let entries = |tree: &'t Tree<'t>, m: At| -> Option<Vec<(&'t str, NodeId)>> {
            m.filter(|&m| tree.node(m).kind == Kind::Map)
                .map(|m| tree.entries(m).map(|(k, v)| (tree.value(k), v)).collect())
        };
        if let (Some(be), Some(oe), Some(te), Some(re)) = (
            entries(bt, b),
            entries(ot, Some(o)),
            entries(tt, Some(t)),
            entries(rt, r),
        ) {
            let same_keys = |x: &[(&str, NodeId)]| {
                x.len() == oe.len() && x.iter().zip(&oe).all(|(a, b)| a.0 == b.0)
            };
            if same_keys(&be) && same_keys(&te) && same_keys(&re) {
                for i in 0..oe.len() {
                    let found = [Some(be[i].1), Some(oe[i].1), Some(te[i].1), Some(re[i].1)];
                    self.entry(path, common, oe[i].0, found);
                }
                return;
            }
        }
        let items = |tree: &'t Tree<'t>, m: At| -> Vec<Item> {
            m.filter(|&m| tree.node(m).kind == Kind::Map)
                .map(|m| {
                    tree.entries(m)
                        .map(|(k, v)| Item {
                            key: tree.value(k).to_string(),
                            shown: tree.value(k).to_string(),
                            node: v,
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let items = [
            items(bt, b),
            items(ot, Some(o)),
            items(tt, Some(t)),
            items(rt, r),
        ];
        let refs = items.each_ref().map(Vec::as_slice);
        let rows = by_key(refs);
        let found = self.attempt(|c| c.entries(path, common, refs, &rows));
        // A key one side renamed (a CI job, a chart's values section) reads as the same
        // entry only by likeness.
        if !found.is_empty() && rows.iter().any(Row::incomplete) {
            let alike = by_likeness([bt, ot, tt, rt], refs, &[], self.rule.winner())
                .map(|rows| self.attempt(|c| c.entries(path, common, refs, &rows)));
            if alike.is_some_and(|v| v.is_empty()) {
                return;
            }
        }
        self.extend(found);
    }

    /// The entries of a map both sides changed, under one reading of which are one entry.
    fn entries(&mut self, path: &Path, common: Option<&str>, items: [&[Item]; 4], rows: &[Row]) {
        for row in rows {
            let key = [3, 1, 2, 0]
                .into_iter()
                .find_map(|v| row.0[v].map(|i| items[v][i].key.as_str()))
                .unwrap_or_default();
            let at = |v: usize| row.0[v].map(|i| items[v][i].node);
            // A key one side renamed (read so by likeness) and the other deleted: the rename
            // is that side's change, even where the value stayed, so the deletion cannot
            // stand clean (a template key a side moved out of its `range`, named by its
            // blocks, the element the other side deleted).
            let renamed = |v: usize| matches!((row.0[0], row.0[v]), (Some(b), Some(s)) if items[0][b].key != items[v][s].key);
            if self.rule == Rule::Mark && row.0[3].is_none() {
                let who = match (row.0[1], row.0[2]) {
                    (None, Some(_)) if renamed(2) => Some("ours deleted it and theirs renamed it"),
                    (Some(_), None) if renamed(1) => Some("theirs deleted it and ours renamed it"),
                    _ => None,
                };
                if let Some(who) = who {
                    self.unmarked(
                        &path.key(key),
                        common,
                        format!("{who}: a conflict, not a clean merge"),
                    );
                    continue;
                }
            }
            self.entry(path, common, key, [at(0), at(1), at(2), at(3)]);
        }
    }

    /// Checks one key of a map, found (or not) in base, ours, theirs and the result.
    fn entry(&mut self, path: &Path, common: Option<&str>, key: &str, found: [At; 4]) {
        // The same text in all four holds under any rule: no path is built for it (most
        // fields of a large map). Not where it ends in a literal or folded scalar, whose
        // value takes line breaks past its text that a file ending there lacks.
        if let [Some(b), Some(o), Some(t), Some(r)] = found {
            let text = self.o.src(o);
            if self.o.node(o).kind != Kind::Alias
                && self.b.src(b) == text
                && self.t.src(t) == text
                && self.r.src(r) == text
                && ![(self.b, b), (self.o, o), (self.t, t), (self.r, r)]
                    .iter()
                    .any(|&(tree, n)| tree.ends_in_block_scalar(n))
            {
                return;
            }
        }
        self.value(&path.key(key), common, found);
    }

    /// A multi-line string both sides changed: its lines merged 3-way (by git's own line
    /// merge, an implementation the structural merge does not share), with the header
    /// (`|`, `>-`, …) one side changed.
    fn lines(
        &mut self,
        path: &Path,
        common: Option<&str>,
        b: NodeId,
        o: NodeId,
        t: NodeId,
        r: NodeId,
    ) {
        let (bt, ot, tt, rt) = (self.b, self.o, self.t, self.r);
        let (hb, ho, ht, hr) = (header(bt, b), header(ot, o), header(tt, t), header(rt, r));
        let text = |tree: &Tree, n: NodeId| -> String {
            tree.block_lines(n)
                .map(|l| l.lines.iter().map(|l| format!("{l}\n")).collect())
                .unwrap_or_default()
        };
        // `|` and `>` give the same lines other text: a style one side alone changed is not a
        // change the other side's lines can be merged under.
        let style = |h: &str| h.chars().next();
        let restyled_alone =
            |h: &str, other: &str| style(h) != style(&hb) && style(other) == style(&hb);
        if (restyled_alone(&ho, &ht) && text(tt, t) != text(bt, b))
            || (restyled_alone(&ht, &ho) && text(ot, o) != text(bt, b))
        {
            return self.at(
                path,
                common,
                "one side changed the text's style (literal or folded), the other its lines: a conflict",
            );
        }
        // Ours mode lets ours win what both changed: in a text, the lines both changed (git's
        // line merge with ours' side of each conflicting stretch, `git merge-file --ours`).
        let taken = match self.rule {
            Rule::Resolved(side) => Some(side),
            Rule::Ours => Some(Taken::Ours),
            _ => None,
        };
        let want = if ho == ht || hb == ht {
            ho
        } else if hb == ho {
            ht
        } else if let Some(side) = taken {
            match side {
                Taken::Ours => ho,
                Taken::Theirs => ht,
            }
        } else {
            return self.at(
                path,
                common,
                "both sides changed the block scalar's header differently: a conflict",
            );
        };
        if hr != want {
            return self.at(
                path,
                common,
                format!("the block scalar's header should be {want}, the result has {hr}"),
            );
        }
        let opts = MergeOptions::default();
        let merged = line_merge(
            text(bt, b).as_bytes(),
            text(ot, o).as_bytes(),
            text(tt, t).as_bytes(),
            &opts,
        );
        // A conflict inside the text, taken from one side: git's line merge with each of its
        // conflicts taken from that side.
        let merged = merged.map(|mut m| {
            if let (true, Some(side)) = (m.conflicted, taken) {
                let [ours, theirs] = markers::sides(&String::from_utf8_lossy(&m.bytes), 7);
                m.bytes = match side {
                    Taken::Ours => ours,
                    Taken::Theirs => theirs,
                }
                .into_bytes();
                m.conflicted = false;
            }
            m
        });
        match merged {
            Ok(m) if !m.conflicted => {
                if m.bytes != text(rt, r).as_bytes() {
                    self.at(
                        path,
                        common,
                        "the lines of this text are not the line merge of both sides' edits",
                    );
                    return;
                }
                // The line breaks ending the text (its last line's, and under `|+` the blank
                // lines') are part of its value, which the lines above leave out: they merge
                // as one more value of the text. A file ending right after the last line
                // gives it none.
                let kept =
                    [(bt, b), (ot, o), (tt, t), (rt, r)].map(|(tree, n)| final_breaks(tree, n));
                let [kb, ko, kt, kr] = kept;
                let want = if ko == kt || kb == kt {
                    Some(ko)
                } else if kb == ko {
                    Some(kt)
                } else {
                    taken.map(|side| match side {
                        Taken::Ours => ko,
                        Taken::Theirs => kt,
                    })
                };
                match want {
                    Some(want) if want == kr => {}
                    Some(want) => self.at(
                        path,
                        common,
                        format!("the text should end in {want} line breaks, the result's ends in {kr}"),
                    ),
                    None => self.at(
                        path,
                        common,
                        "both sides changed the line breaks ending this text differently: a conflict",
                    ),
                }
            }
            _ => self.at(
                path,
                common,
                "both sides changed the same lines of this text: a conflict",
            ),
        }
    }
}

/// The line breaks ending a block scalar's value: none under `-`, its last line's under `|`
/// and `>`, and the blank lines' too under `+` (none at all where the file ends right after
/// its last line).
fn final_breaks(tree: &Tree, n: NodeId) -> usize {
    let value = tree.value(n);
    value.len() - value.trim_end_matches('\n').len()
}

/// A block scalar's header (`|`, `>-`, `|2+`): style, chomping and indentation indicator.
fn header(tree: &Tree, n: NodeId) -> String {
    tree.block_header(n)
        .map_or(String::new(), |(_, h)| h.to_string())
}

/// A description of an expected value the result does not hold.
fn expected(what: &str, tree: &Tree, want: At, rt: &Tree, got: At) -> String {
    let show = |tree: &Tree, x: At| match x {
        None => "no value (deleted)".to_string(),
        Some(n) => {
            let text = tree.src(n).trim();
            if text.len() <= 40 && !text.contains('\n') {
                format!("`{text}`")
            } else {
                "another value".to_string()
            }
        }
    };
    fn text<'a>(tree: &'a Tree, x: At) -> Option<&'a str> {
        x.map(|n| tree.src(n).trim())
    }
    // The same text with an alias, other data: it names another anchor of its name.
    let same_text = match (text(tree, want), text(rt, got)) {
        (Some(a), Some(b)) if a == b && a.contains('*') => " (an alias names another anchor there)",
        (Some(a), Some(b)) if a == b => {
            " (the same text: a block scalar's line breaks past it differ, a file ending there)"
        }
        _ => "",
    };
    let (want, got) = (show(tree, want), show(rt, got));
    format!("{what}: expected {want}, the result has {got}{same_text}")
}

/// Whether the result's value `r` keeps a field that ours' value `o` sets to null where base's
/// value `b` held another value or nothing there, `o` itself or a field of its maps. kyaml
/// clears every such field (kpt too: the null is a change from base), so where only ours
/// changed a value, ours' value taken whole must not keep it. A template's `labels:` whose
/// `include` line ours moved away reads so (the line read as the key it writes). A null
/// name or namespace is none: it makes ours' document another resource, which kyaml keeps
/// as ours wrote it, never walking it against base's.
fn keeps_ours_null(
    path: &Path,
    bt: &Tree,
    b: At,
    ot: &Tree,
    o: NodeId,
    rt: &Tree,
    r: NodeId,
) -> bool {
    if matches!(path.schema.as_str(), "metadata.name" | "metadata.namespace") {
        return false;
    }
    if ot.is_null(o) {
        return !b.is_some_and(|b| bt.is_null(b));
    }
    if ot.node(o).kind != Kind::Map {
        return false;
    }
    ot.entries(o).any(|(k, v)| {
        let key = ot.value(k);
        rt.get(r, key).is_some_and(|rv| {
            let bv = b.and_then(|b| bt.get(b, key));
            keeps_ours_null(&path.key(key), bt, bv, ot, v, rt, rv)
        })
    })
}

/// Whether `r` is theirs' value `t` with the nulls theirs wrote left out (kyaml clears them).
pub(super) fn cleared_same(rt: &Tree, r: At, tt: &Tree, t: At) -> bool {
    let (Some(r), Some(t)) = (r, t) else {
        // Nothing left: a null, or a map of nulls only, each of which kyaml clears.
        let cleared = |t: NodeId| {
            tt.is_null(t)
                || tt.node(t).kind == Kind::Map
                    && tt.node(t).child_count() > 0
                    && tt.entries(t).all(|(_, v)| tt.is_null(v))
        };
        return r.is_none() && t.is_none_or(cleared);
    };
    let (rn, tn) = (rt.node(r), tt.node(t));
    match (rn.kind, tn.kind) {
        (Kind::Map, Kind::Map) => {
            let result: HashMap<&str, NodeId> =
                rt.entries(r).map(|(k, v)| (rt.value(k), v)).collect();
            let mut kept = 0;
            for (k, v) in tt.entries(t) {
                if tt.is_null(v) {
                    if result.contains_key(tt.value(k))
                        && !result.get(tt.value(k)).is_some_and(|&x| rt.is_null(x))
                    {
                        return false;
                    }
                    kept += usize::from(result.contains_key(tt.value(k)));
                    continue;
                }
                match result.get(tt.value(k)) {
                    Some(&x) if cleared_same(rt, Some(x), tt, Some(v)) => kept += 1,
                    _ => return false,
                }
            }
            kept == result.len()
        }
        (Kind::Seq, Kind::Seq) => {
            let pairwise = |(&x, &y): (&NodeId, &NodeId)| cleared_same(rt, Some(x), tt, Some(y));
            rn.child_count() == tn.child_count()
                && (rt.children(r).iter().zip(tt.children(t)).all(pairwise)
                    || elements_in_any_order(rt, rt.children(r), tt, tt.children(t)))
        }
        // An alias by its anchor's name and place (see `Checker::equal`).
        (Kind::Alias, Kind::Alias) => same_reference(rt, r, tt, t),
        _ => same_data(rt, r, tt, t),
    }
}

/// Whether two aliases name the same anchor: the same name, defined at the same place of
/// their documents (the path of keys from the root, list positions left out, as elements
/// added or removed before it move them), and the same definition of that name at that place
/// counted in document order ([`anchor_rank`]).
fn same_reference(xt: &Tree, x: NodeId, yt: &Tree, y: NodeId) -> bool {
    xt.value(x) == yt.value(y)
        && anchor_place(xt, x).is_some_and(|p| anchor_place(yt, y).as_ref() == Some(&p))
        && anchor_rank(xt, x).is_some_and(|n| anchor_rank(yt, y) == Some(n))
}

/// Which of the definitions of an alias's anchor name at its anchor's place (the same keys,
/// on any element of a list) the alias names, counted in document order. The place leaves
/// list positions out, so without the count an anchor of the same name the other side put
/// on another element of the list, which a later alias names instead, reads as the one the
/// alias named: ours anchors one step's `with` and aliases it below, theirs anchors another
/// step's `with` under the same name between the two, and ours' alias names theirs' data
/// (issue 27, templates-mark-1171-5010). `None` for an alias without its anchor.
pub(super) fn anchor_rank(tree: &Tree, alias: NodeId) -> Option<usize> {
    let target = tree.node(alias).target()?;
    let (name, place) = (tree.value(alias), node_place(tree, target)?);
    let mut root = target;
    while let Some(parent) = tree.node(root).parent() {
        root = parent;
    }
    let mut rank = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        stack.extend(tree.children(n));
        if tree.node(n).start < tree.node(target).start
            && tree.node(n).anchor() == Some(name)
            && node_place(tree, n).as_ref() == Some(&place)
        {
            rank += 1;
        }
    }
    Some(rank)
}

/// Where an alias's anchor stands: its keys from the document's root, `[]` for a list
/// element; `None` for an alias without its anchor.
pub(super) fn anchor_place(tree: &Tree, alias: NodeId) -> Option<Vec<String>> {
    node_place(tree, tree.node(alias).target()?)
}

/// Where a node stands: its keys from the document's root, `[]` for a list element.
fn node_place(tree: &Tree, node: NodeId) -> Option<Vec<String>> {
    let mut at = node;
    let mut place = Vec::new();
    while let Some(parent) = tree.node(at).parent() {
        match tree.node(parent).kind {
            Kind::Map => {
                let key = tree.entries(parent).find(|&(k, v)| v == at || k == at)?.0;
                place.push(tree.value(key).to_string());
            }
            _ => place.push("[]".into()),
        }
        at = parent;
    }
    place.reverse();
    Some(place)
}

/// Whether theirs' value `t` holds anything base's `b` lacks (a field added or changed to a
/// value that is not null): kyaml's delta of it is not empty.
fn has_delta(bt: &Tree, b: At, tt: &Tree, t: At) -> bool {
    let Some(t) = t.filter(|&t| !tt.is_null(t)) else {
        return false;
    };
    let Some(b) = b else { return true };
    match (bt.node(b).kind, tt.node(t).kind) {
        (Kind::Map, Kind::Map) => tt
            .entries(t)
            .any(|(k, v)| has_delta(bt, bt.get(b, tt.value(k)), tt, Some(v))),
        _ => !same_data(bt, b, tt, t),
    }
}

/// Whether the result's elements `rs` are theirs' map elements `ts` in another order: kyaml
/// keeps ours' order of a keyed list whatever theirs did, so there the order is not data.
/// Quadratic, but only reached where the elements differ in place.
fn elements_in_any_order(rt: &Tree, rs: &[NodeId], tt: &Tree, ts: &[NodeId]) -> bool {
    let mut left: Vec<NodeId> = rs.to_vec();
    ts.iter().all(|&y| {
        tt.node(y).kind == Kind::Map
            && left
                .iter()
                .position(|&x| cleared_same(rt, Some(x), tt, Some(y)))
                .map(|i| left.swap_remove(i))
                .is_some()
    })
}

/// Whether `r` holds nothing `x` lacks: every field of `r` is in `x` with the same data, or
/// (for a map in a map) within it again; an empty or null value stands for an emptied part.
/// Where kyaml keeps a part of a side's value (its delta).
pub(super) fn within(rt: &Tree, r: At, xt: &Tree, x: At) -> bool {
    let (Some(r), Some(x)) = (r, x) else {
        return r.is_none();
    };
    if rt.is_null(r) || (rt.node(r).kind != Kind::Scalar && rt.children(r).is_empty()) {
        return true;
    }
    if rt.node(r).kind == Kind::Map && xt.node(x).kind == Kind::Map {
        let index: HashMap<&str, NodeId> = xt.entries(x).map(|(k, v)| (xt.value(k), v)).collect();
        return rt.entries(r).all(|(k, v)| {
            index
                .get(rt.value(k))
                .is_some_and(|&w| within(rt, Some(v), xt, Some(w)))
        });
    }
    if rt.node(r).kind == Kind::Seq && xt.node(x).kind == Kind::Seq {
        return rt.children(r).iter().all(|&e| {
            xt.children(x)
                .iter()
                .any(|&w| within(rt, Some(e), xt, Some(w)))
        });
    }
    same_data(rt, r, xt, x)
}

/// Whether every leaf value the changing side set in `x` (against base's `b`) also stands, under
/// the same key, somewhere in the deleting side's file.
fn carried_over(bt: &Tree, b: At, xt: &Tree, x: NodeId, deleter: &Tree) -> bool {
    let mut changed = Vec::new();
    leaves(bt, b, xt, x, "", &mut changed);
    // A change that only deleted parts (a resource's `spec` emptied) sets nothing to carry
    // over: it is still a change the deletion meets, a conflict as the merge reads a map one
    // side deleted and the other trimmed (else a document one side renamed after both emptied
    // it passed clean as ours deleting it).
    if changed.is_empty() {
        return false;
    }
    // Nor is a change that deleted a field beside what it set: `leaves` reads a list element
    // changed as new whole, so a field deleted inside it leaves no trace among the values
    // set, and the deleting side's file holding the rest read as carrying the change over
    // (adversary manifests-mark-1149-7484: ours deleted a probe's `path`, theirs renamed the
    // Deployment keeping `path`). A key the changing side holds fewer times than base is
    // such a deletion; a value changed keeps its key.
    let (mut before, mut after) = (HashMap::new(), HashMap::new());
    if let Some(b) = b {
        map_keys(bt, b, &mut before);
    }
    map_keys(xt, x, &mut after);
    if before
        .iter()
        .any(|(key, n)| after.get(key).is_none_or(|m| m < n))
    {
        return false;
    }
    let mut present = std::collections::HashSet::new();
    for (id, n) in deleter.nodes.iter().enumerate() {
        if n.kind == Kind::Map {
            for (k, v) in deleter.entries(id) {
                if deleter.node(v).kind == Kind::Scalar {
                    present.insert((deleter.value(k).to_string(), canonical(deleter, v)));
                }
            }
        }
    }
    changed.iter().all(|leaf| present.contains(leaf))
}

/// How many times each map key stands in `x`, at any depth (whatever its value: a null
/// replaced by a list keeps its key).
fn map_keys<'a>(xt: &'a Tree, x: NodeId, out: &mut HashMap<&'a str, usize>) {
    match xt.node(x).kind {
        Kind::Map => {
            for (k, v) in xt.entries(x) {
                *out.entry(xt.value(k)).or_default() += 1;
                map_keys(xt, v, out);
            }
        }
        Kind::Seq => {
            for &e in xt.children(x) {
                map_keys(xt, e, out);
            }
        }
        Kind::Scalar | Kind::Alias => {}
    }
}

/// The (key, value) of every scalar `x` holds that base's `b` does not, by map key.
fn leaves(bt: &Tree, b: At, xt: &Tree, x: NodeId, key: &str, out: &mut Vec<(String, String)>) {
    if b.is_some_and(|b| same_data(bt, b, xt, x)) {
        return;
    }
    match xt.node(x).kind {
        Kind::Map => {
            for (k, v) in xt.entries(x) {
                let bv = b.and_then(|b| bt.get(b, xt.value(k)));
                leaves(bt, bv, xt, v, xt.value(k), out);
            }
        }
        Kind::Seq => {
            for &e in xt.children(x) {
                let kept =
                    b.is_some_and(|b| bt.children(b).iter().any(|&c| same_data(bt, c, xt, e)));
                if !kept {
                    leaves(bt, None, xt, e, key, out);
                }
            }
        }
        Kind::Scalar | Kind::Alias => out.push((key.to_string(), canonical(xt, x))),
    }
}

/// Whether two values of different trees are the same data (both absent counts).
pub(super) fn same(a: &Tree, an: Option<NodeId>, b: &Tree, bn: Option<NodeId>) -> bool {
    match (an, bn) {
        (None, None) => true,
        (Some(x), Some(y)) => same_data(a, x, b, y),
        _ => false,
    }
}
