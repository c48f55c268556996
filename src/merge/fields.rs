//! The field rules of merge3 (seeds 000/004): scalars, maps, and the dispatch to lists and
//! multi-line strings. Names of the three versions follow git: base (original), ours (dest),
//! theirs (updated).

use std::borrow::Cow;
use std::collections::HashMap;

use crate::align::{self, Aligned, Children};
use crate::parse::{same_data, Kind, NodeId, Style, Tree};
use crate::resource::{element_key, ListKind};

use super::merger::Merger;
use super::patch::directive;
use super::plan::{Anchor, Field, Op, Side, Slot};
use super::policy::Resolution;
use crate::resource::Path;
use crate::text::line_end;

/// A child of a map or associative list, where the merge edits it.
pub(super) type Child<'a> = align::Child<'a, Field>;

impl align::Place for Field {
    fn node(&self) -> NodeId {
        self.node
    }
}

/// Whether a map's keys stand in sorted order, and are enough of them (three) for that to be
/// a rule of the file rather than chance.
fn sorted_names(children: &[Child]) -> bool {
    children.len() >= 3 && children.windows(2).all(|w| w[0].name < w[1].name)
}

impl<'t> Merger<'t> {
    /// Merges a value that ours and theirs both have, given base's (if any).
    ///
    /// Seed rules: unchanged in theirs → ours stays; changed only in theirs → theirs' value.
    /// Where both changed it: maps and lists merge their children, multi-line strings merge
    /// by line, anything else is a conflict. A null is a value a side wrote (in Helm values it
    /// unsets a chart default); only kyaml's rules (theirs mode) let a null clear the field.
    pub fn merge_value(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) {
        let (base, ours, theirs) = (self.base, self.ours, self.theirs);
        if self.forced_at(&path.shown) {
            let what = "marked by kmerge's own check: the rules' result here, or a narrower conflict, would lose data".into();
            return self.conflict_field(path, what, b, o, Some(t));
        }
        // A block scalar kept with `+` holds its trailing blank lines as value, outside its
        // span. A value one side alone changed is taken whole, blank lines and all (the
        // render carries them); where both changed it and ours' and theirs' blank lines
        // differ, its lines cannot be merged line by line: the person decides.
        let scalar = |tree: &Tree, n: NodeId| tree.node(n).kind == Kind::Scalar;
        let changed = |tree: &Tree, n: NodeId| b.is_none_or(|b| !same_data(base, b.node, tree, n));
        if !self.opts.policy.kyaml()
            && self.prepend().is_none()
            && (scalar(ours, o.node) || scalar(theirs, t.node))
            && ours.kept_blank_lines(o.node) != theirs.kept_blank_lines(t.node)
            && !same_data(ours, o.node, theirs, t.node)
            && changed(ours, o.node)
            && changed(theirs, t.node)
        {
            // Under `--on-conflict ours` a value ours changed stays as ours wrote it, blank
            // lines and all: nothing of theirs needs splicing in.
            if self.opts.policy.resolve() == Resolution::Ours {
                return;
            }
            let what = "the blank lines ending a kept (|+) block scalar differ".into();
            return self.conflict_field(path, what, b, o, Some(t));
        }
        if self.apply_patch(o, t) {
            return;
        }
        // merge2 walks into equal collections too: the patch's nulls inside must still clear.
        let walk_equal = self.prepend().is_some() && theirs.node(t.node).kind != Kind::Scalar;
        // kyaml clears every null of ours it walks, whatever the other versions hold (kpt:
        // unless base held the null too).
        let kyaml3 = self.opts.policy.kyaml() && self.prepend().is_none();
        // A resource's name ours nulled and theirs changed: both sides renamed the resource,
        // and the merge pairs the renames with theirs winning (the README's reading; kyaml,
        // reading the null name as another resource, would keep both). Cleared by the null
        // rule below, the pair came out with no name at all, theirs' rename lost, which is
        // neither reading (adversary packages-theirs-1172-5463).
        if kyaml3
            && path.shown == "metadata.name"
            && ours.is_null(o.node)
            && !theirs.is_null(t.node)
            && b.is_some_and(|b| !same_data(base, b.node, theirs, t.node))
        {
            return self.take_theirs(o, t);
        }
        if kyaml3 && ours.is_null(o.node) && !b.is_some_and(|b| base.is_null(b.node)) {
            self.clear(o);
            return;
        }
        if !walk_equal && same_data(ours, o.node, theirs, t.node) {
            if kyaml3 {
                self.clear_nulls(path, b.map(|b| b.node), o);
            }
            let below = self.carry_anchors(o, t, true);
            if let (Some(b), false, false) = (b, kyaml3, below) {
                // (Not where anchors were written inside: a key line they are on stays.)
                self.follow_theirs_order_within(b.node, o, t.node);
            }
            return;
        }
        if b.is_some_and(|b| same_data(base, b.node, theirs, t.node)) {
            // Theirs did not change it.
            if kyaml3 {
                self.clear_nulls(path, b.map(|b| b.node), o);
            } else if self.opts.policy.kyaml() && ours.is_null(o.node) {
                self.clear(o);
                return;
            }
            self.carry_anchors(o, t, true);
            return;
        }
        let ours_unchanged = b.is_some_and(|b| same_data(base, b.node, ours, o.node));
        if self.opts.policy.kyaml()
            && theirs.is_null(t.node)
            && !b.is_some_and(|b| base.is_null(b.node))
        {
            // Theirs cleared it: kyaml clears the field, whatever ours did.
            self.clear(o);
            return;
        }
        if self.opts.policy.kyaml() && ours.is_null(o.node) && !ours_unchanged {
            self.clear(o);
            return;
        }
        let (on, tn) = (ours.node(o.node), theirs.node(t.node));
        // A null base map (`labels:` with nothing, or only a template action, below it) is
        // an empty map both sides filled.
        let base_map_or_none = |kind: Kind| {
            b.is_none_or(|b| {
                base.node(b.node).kind == kind || kind == Kind::Map && base.is_null(b.node)
            })
        };
        // Ours' text is what gets edited, so ours must be a block collection; theirs may be
        // an empty `{}`/`[]`, whose "children" are all deletions.
        // kyaml merges a map field by field whatever its style, into ours' node: a flow map of
        // theirs merges into ours' block one there (its entries' text is valid block text).
        // So does ours mode, which keeps ours' text: theirs' style is no change of data, and
        // taken whole, ours' map would lose what theirs changed in it. Under ours a list too:
        // theirs' `[a, b]` for base's block list is no change of its own, and ours' list taken
        // whole would drop an element theirs added (kyaml takes a list without keys whole
        // from theirs, so theirs mode keeps its own rule).
        let theirs_mergeable = !tn.flow
            || (tn.child_count() == 0)
            || (self.opts.policy.resolve() != Resolution::Mark
                && tn.kind == Kind::Map
                && on.kind == Kind::Map)
            || (self.opts.policy.resolve() == Resolution::Ours
                && tn.kind == Kind::Seq
                && on.kind == Kind::Seq);
        if on.kind == tn.kind
            && ours.is_block_collection(o.node)
            && theirs_mergeable
            && base_map_or_none(on.kind)
        {
            // Theirs emptied it (`[]`, `{}`): a conflict inside over what ours changed would
            // leave theirs' side with no children, a null where theirs wrote an empty
            // collection. The person decides between the two whole values, as git shows them.
            let emptied_by_theirs = tn.child_count() == 0
                && matches!(self.opts.policy.resolve(), Resolution::Mark)
                && b.is_some_and(|b| !base.children(b.node).is_empty());
            let before = emptied_by_theirs.then(|| {
                (
                    self.plan.ops.len(),
                    self.plan.conflicts.len(),
                    self.deleted.clone(),
                )
            });
            match on.kind {
                Kind::Map => self.merge_map(path, b.map(|b| b.node), o, Some(t.node)),
                Kind::Seq => self.merge_list(path, b, o, t),
                _ => unreachable!("a block collection is a map or a list"),
            }
            if let Some((ops, conflicts, deleted)) = before {
                if self.plan.conflicts.len() > conflicts {
                    self.plan.ops.truncate(ops);
                    self.plan.conflicts.truncate(conflicts);
                    self.deleted = deleted;
                    return self.both_changed(path, b, o, t);
                }
            }
            self.carry_anchors(o, t, false);
            return;
        }
        if !ours_unchanged
            && b.is_some()
            && matches!(o.slot, Slot::Entry(_))
            && on.kind == tn.kind
            && on.flow
            && (on.child_count() == 0)
            && theirs.is_block_collection(t.node)
            && base_map_or_none(on.kind)
            && self.fill_emptied(path, b, o, t)
        {
            return;
        }
        if ours_unchanged {
            // kyaml merges into ours' node and clears theirs' nulls: where ours rewrote a map
            // in flow style and theirs set a field to null, theirs' text taken whole would
            // keep the null; its fields go into ours' flow map instead.
            if self.opts.policy.kyaml()
                && on.kind == Kind::Map
                && tn.kind == Kind::Map
                && on.flow
                && self.holds_nulls(t.node)
            {
                // Where theirs' entries cannot stand in ours' braces (a block scalar among
                // them), theirs' lines replace ours' flow map, its nulls left out.
                if !self.merge_flow_map(b, o, t) {
                    self.take_theirs_clearing_nulls(o, t);
                }
                return;
            }
            self.take_theirs(o, t);
            return;
        }
        if on.kind == Kind::Seq
            && tn.kind == Kind::Seq
            && on.flow
            && !self.opts.policy.kyaml()
            && self.merge_flow_list(b, o, t)
        {
            return;
        }
        if on.kind == Kind::Map
            && tn.kind == Kind::Map
            && on.flow
            && base_map_or_none(Kind::Map)
            && self.merge_flow_map(b, o, t)
        {
            return;
        }
        if on.kind == Kind::Scalar
            && tn.kind == Kind::Scalar
            && !self.opts.policy.kyaml()
            && self.merge_lines(path, b, o, t)
        {
            return;
        }
        self.both_changed(path, b, o, t);
    }

    /// Ours and theirs changed the same value differently: the policy decides.
    pub fn both_changed(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) {
        match self.opts.policy.resolve() {
            Resolution::Theirs => self.take_theirs(o, t),
            Resolution::Ours => {
                self.carry_anchors(o, t, true);
            }
            Resolution::Mark => {
                let what = describe_change(self.base, b, self.ours, o, self.theirs, t);
                self.conflict_field(path, what, b, o, Some(t));
            }
        }
    }

    /// Removes a field or an element; a cleared document becomes an empty map.
    pub fn clear(&mut self, o: Field) {
        match o.slot {
            Slot::Entry(_) | Slot::Item => self.delete(o),
            Slot::Root => self.plan.ops.push(Op::Empty {
                ours: o,
                list: false,
            }),
        }
    }

    /// kyaml's merge3 clears every null field of ours it walks (a null in dest deletes the
    /// field), also inside a value it otherwise keeps: ours' null fields under `o`, through
    /// block maps and keyed lists (a plain list is a value kyaml does not walk), go — but for
    /// those base (`b`, the same place in base) held as null too, which kpt keeps.
    fn clear_nulls(&mut self, path: &Path, b: Option<NodeId>, o: Field) {
        let (base, ours) = (self.base, self.ours);
        if ours.is_null(o.node) {
            if matches!(o.slot, Slot::Entry(_)) && !b.is_some_and(|b| base.is_null(b)) {
                self.clear(o);
            }
            return;
        }
        if ours.node(o.node).flow && ours.node(o.node).kind == Kind::Map {
            // Ours' flow map: its text cannot lose an entry line by line, so where a null in
            // it clears, the map is rewritten with the other entries (all gone: `{}`, as a
            // block map whose every field cleared is written).
            let in_base = b.filter(|&b| base.node(b).kind == Kind::Map);
            let cleared = |(k, v): (NodeId, NodeId)| {
                ours.is_null(v)
                    && !in_base
                        .and_then(|b| base.get(b, ours.value(k)))
                        .is_some_and(|bv| base.is_null(bv))
            };
            if ours.entries(o.node).any(cleared) {
                let entries = ours
                    .entries(o.node)
                    .filter(|&e| !cleared(e))
                    .map(|(k, v)| (Side::Ours, k, v))
                    .collect();
                self.plan.ops.push(Op::FlowMap { ours: o, entries });
            }
            return;
        }
        if !ours.is_block_collection(o.node) {
            return;
        }
        match ours.node(o.node).kind {
            Kind::Map => {
                let children: Vec<NodeId> = ours.entries(o.node).map(|(_, v)| v).collect();
                let in_base = b.filter(|&b| base.node(b).kind == Kind::Map);
                for (k, v) in ours.entries(o.node) {
                    let name = ours.value(k);
                    let bv = in_base.and_then(|b| base.get(b, name));
                    self.clear_nulls(&path.key(name), bv, Field::entry(k, v));
                }
                if !matches!(o.slot, Slot::Root) {
                    self.empty_if_all_deleted(o, &children);
                }
            }
            Kind::Seq => {
                if let ListKind::Keyed(keys) = self.list_kind(path, &[(ours, o.node)]) {
                    let in_base: HashMap<String, NodeId> = b
                        .filter(|&b| base.node(b).kind == Kind::Seq)
                        .map_or(&[][..], |b| base.children(b))
                        .iter()
                        .filter_map(|&e| Some((element_key(base, e, &keys)?.0, e)))
                        .collect();
                    for &e in ours.children(o.node) {
                        let key = element_key(ours, e, &keys);
                        let be = key.as_ref().and_then(|k| in_base.get(&k.0)).copied();
                        let shown = key.map_or(String::new(), |k| k.1);
                        self.clear_nulls(&path.element(&shown), be, Field::item(e));
                    }
                }
            }
            Kind::Scalar | Kind::Alias => {}
        }
    }

    /// Seed map rules: fields paired by name; present only in ours → kept; added in theirs →
    /// added (after the field it follows in theirs); deleted in theirs and unchanged in ours →
    /// deleted; both present → merged recursively. A map theirs deleted (`t` is `None`) is
    /// merged as an empty one: what ours added survives, what ours changed is disputed.
    fn merge_map(&mut self, path: &Path, b: Option<NodeId>, o: Field, t: Option<NodeId>) {
        let base = b.map_or_else(Vec::new, |b| fields(self.base, b));
        let ours = fields(self.ours, o.node);
        let theirs = t.map_or_else(Vec::new, |t| fields(self.theirs, t));
        let planned = self.plan.ops.len();
        let aligned = self.align([&base, &ours, &theirs], Children::Fields, &[]);
        self.merge_children(path, o, &aligned);
        if let (Some(b), Some(t), true) = (b, t, self.plan.ops.len() == planned) {
            self.follow_theirs_order(b, o, t);
        }
    }

    /// Whether a field is the same text in all three versions, where the merge keeps ours'
    /// as it is ([`Merger::merge_value`] would find nothing to do): most of a large map. Not
    /// where kyaml's rules clear nulls they walk, a patch is laid on, or a conflict is forced.
    fn untouched(&self, b: Option<Field>, o: Field, t: Field) -> bool {
        let ours = self.ours.src(o.node);
        !self.opts.policy.kyaml()
            && self.prepend().is_none()
            && self.forced.is_empty()
            && self.ours.node(o.node).kind != Kind::Alias
            && self.theirs.src(t.node) == ours
            && b.is_some_and(|b| self.base.src(b.node) == ours)
            && !self.ours.value_outruns_text(o.node)
            && !self.theirs.value_outruns_text(t.node)
    }

    /// The alignment of a node's `children` in base, ours and theirs: elements a side renamed
    /// pair with base's unless kyaml's rules or the second try ([`Merger::pair_renamed_elements`])
    /// pair by key alone.
    pub(super) fn align<'x, 'c>(
        &self,
        children: [&'x [Child<'c>]; 3],
        kind: Children,
        keys: &'x [String],
    ) -> Aligned<'x, 'c, Field> {
        let renames = !self.opts.policy.kyaml() && self.pair_renamed_elements;
        let trees = [self.base, self.ours, self.theirs];
        Aligned::new(trees, children, kind, keys, renames)
    }

    /// The pairing rules shared by map fields and associative list elements, for the children
    /// of ours' collection `parent` as the alignment paired them.
    pub fn merge_children(&mut self, path: &Path, parent: Field, aligned: &Aligned<Field>) {
        let (kind, keys) = (aligned.kind, aligned.keys);
        let (base, ours, theirs) = (aligned.base, &aligned.ours[..], &aligned.theirs[..]);
        let [bi, oi, ti] = &aligned.index;
        let sub = |c: &Child| match kind {
            Children::Fields => path.key(&c.shown),
            Children::Elements => path.element(&c.shown),
            Children::Resources => Path::default(),
        };
        let Some(first) = ours.first() else { return };
        let like = Some(first.field);
        let mut inserted = false;
        // Theirs' changes of fields ours deleted, marked as conflicts (see the end).
        let mut marked: Vec<NodeId> = Vec::new();
        let mut marked_paths: Vec<String> = Vec::new();
        let mut added = false;
        for c in ours {
            let b = bi.get(c.name.as_ref()).map(|&i| base[i].field);
            match ti.get(c.name.as_ref()) {
                Some(&i) if self.untouched(b, c.field, theirs[i].field) => {}
                Some(&i) => {
                    let outer = self.enter(kind, c.field);
                    self.merge_value(&sub(c), b, c.field, theirs[i].field);
                    (self.resource, self.group_kind) = outer;
                }
                None => {
                    // kyaml reads a null as missing (its scalar rule 3, "O and U both missing:
                    // keep D"): a field base held as null and theirs lacks is ours' own, as if
                    // ours added it (values-theirs-1145-3141: theirs deleted a map whose null
                    // field ours set).
                    let kyaml_missing = |b: &Field| {
                        kind == Children::Fields
                            && self.opts.policy.kyaml()
                            && self.prepend().is_none()
                            && self.base.is_null(b.node)
                    };
                    let Some(b) = b.filter(|b| !kyaml_missing(b)) else {
                        // Added in ours.
                        if kind != Children::Resources
                            && self.opts.policy.kyaml()
                            && self.prepend().is_none()
                        {
                            self.clear_nulls(&sub(c), None, c.field);
                        }
                        continue;
                    };
                    let ours_removed_too = self.emptied(b.node, self.ours, c.field.node);
                    if same_data(self.base, b.node, self.ours, c.field.node) || ours_removed_too {
                        // Unchanged in ours, or ours wrote null where theirs deleted it: both
                        // removed the value.
                        self.delete(c.field);
                    } else if self.opts.policy.kyaml()
                        && kind == Children::Fields
                        && (self.ours.is_block_collection(c.field.node)
                            || self.ours.children(c.field.node).is_empty())
                        && self.ours.node(c.field.node).kind == Kind::Map
                        && self.base.node(b.node).kind == Kind::Map
                    {
                        self.merge_map(&sub(c), Some(b.node), c.field, None);
                    } else {
                        match self.opts.policy.resolve() {
                            Resolution::Theirs => self.delete(c.field),
                            Resolution::Ours => {}
                            Resolution::Mark => self.conflict_field(
                                &sub(c),
                                "theirs deleted it, ours changed it".into(),
                                Some(b),
                                c.field,
                                None,
                            ),
                        }
                    }
                }
            }
        }
        // kyaml places new keys its own way: the kyaml policies keep it.
        let sorted = kind == Children::Fields
            && !self.opts.policy.kyaml()
            && sorted_names(ours)
            && sorted_names(theirs);
        for (n, c) in theirs.iter().enumerate() {
            if oi.contains_key(c.name.as_ref()) {
                continue;
            }
            // A patch's directives are instructions, never content.
            if self.prepend().is_some()
                && (c.name == "$patch" || directive(self.theirs, c.field.node).is_some())
            {
                continue;
            }
            let at = self.placement(
                &theirs[..n],
                c,
                &theirs[n + 1..],
                ours,
                [oi, bi, ti],
                sorted,
                first.field,
            );
            let at = self.beside_conflict(at);
            match bi.get(c.name.as_ref()) {
                None => {
                    let mut omit = Vec::new();
                    if self.opts.policy.kyaml() {
                        if self.theirs.is_null(c.field.node) {
                            continue;
                        }
                        let item = c.field.slot == Slot::Item;
                        self.kyaml_nulls(c.field.node, item, &mut omit);
                    }
                    self.insert(c.field, at, like, omit);
                    inserted = true;
                    added = true;
                }
                Some(&i) => {
                    let b = base[i].field;
                    let cleared = self.emptied(b.node, self.theirs, c.field.node);
                    if cleared || same_data(self.base, b.node, self.theirs, c.field.node) {
                        continue; // deleted in ours; unchanged, or cleared too, in theirs
                    }
                    match self.opts.policy.resolve() {
                        Resolution::Theirs => {
                            // kyaml adds back only what theirs changed.
                            let keep = match kind {
                                Children::Fields | Children::Resources => Vec::new(),
                                // The keys the list was paired by (the table's, else the
                                // seeds' rule: a Tekton step's volumeMounts by mountPath).
                                Children::Elements => keys.to_vec(),
                            };
                            let mut omit = Vec::new();
                            self.delta(&sub(c), b.node, c.field.node, &keep, &mut omit);
                            // An element whose delta is nothing but its keys carries no
                            // change: kyaml does not bring it back.
                            if kind == Children::Elements
                                && self.only_keys_left(c.field.node, &keep, &omit)
                            {
                                continue;
                            }
                            self.insert(c.field, at, like, omit);
                            inserted = true;
                        }
                        Resolution::Ours => {}
                        Resolution::Mark => {
                            inserted = true;
                            marked.push(c.field.node);
                            marked_paths.push(sub(c).shown);
                            let what = "ours deleted it, theirs changed it".to_string();
                            self.conflict(
                                &sub(c).shown,
                                what,
                                [Some(b), None, Some(c.field)],
                                at,
                                like,
                            );
                        }
                    }
                }
            }
        }
        if !inserted {
            let children: Vec<NodeId> = ours.iter().map(|c| c.field.node).collect();
            self.empty_if_all_deleted(parent, &children);
        } else if kind == Children::Fields
            && !added
            && !marked.is_empty()
            && ours
                .iter()
                .all(|c| !ti.contains_key(c.name.as_ref()) && self.deleted.contains(&c.field.node))
        {
            // Every field of ours' map is gone and what is left is theirs' changes of fields
            // ours deleted, in conflict: ours' half of those conflicts is empty, so taking
            // it leaves the map a null, not the `{}` ours' deletions make. The conflict
            // widens to the map's fields, each half a side's whole value.
            let gone: std::collections::HashSet<NodeId> =
                ours.iter().map(|c| c.field.node).collect();
            self.plan.ops.retain(|op| match op {
                Op::Delete { ours } => !gone.contains(&ours.node),
                Op::Conflict { ours, theirs, .. } => {
                    !(ours.is_empty() && theirs.len() == 1 && marked.contains(&theirs[0].node))
                }
                _ => true,
            });
            let resource = self.resource.clone();
            self.plan
                .conflicts
                .retain(|c| c.resource != resource || !marked_paths.contains(&c.path));
            let fields = |c: &[Child]| c.iter().map(|c| c.field).collect::<Vec<_>>();
            self.conflict_many(
                &path.shown,
                "its fields all go but for theirs' change of one ours deleted".into(),
                [fields(base), fields(ours), fields(theirs)],
                Anchor::Before(first.field),
                like,
            );
        }
    }

    /// `at`, or right after its field where that field is ours' side of a conflict already
    /// planned: the conflict's lines start where the field's line does (with a list item's
    /// `- ` when the field is the item's first), so above the field is inside them.
    fn beside_conflict(&self, at: Anchor) -> Anchor {
        let Anchor::Before(f) = at else { return at };
        let in_conflict = self.plan.ops.iter().any(
            |op| matches!(op, Op::Conflict { ours, .. } if ours.iter().any(|o| o.node == f.node)),
        );
        match in_conflict {
            true => Anchor::After(f),
            false => at,
        }
    }

    /// Whether a side's value `x` (of `tree`) removed base's value `b` without deleting its
    /// field: a null, or an empty collection where base had content. Against the other side's
    /// deletion, both removed the value.
    fn emptied(&self, b: NodeId, tree: &Tree, x: NodeId) -> bool {
        // kyaml keeps an emptied collection the other side deleted: only a null is gone.
        let kyaml = self.opts.policy.kyaml();
        let empty = |tree: &Tree, n: NodeId| {
            tree.is_null(n)
                || !kyaml && tree.node(n).kind != Kind::Scalar && tree.children(n).is_empty()
        };
        empty(tree, x) && !empty(self.base, b)
    }

    /// Makes an item of a `kind: List` the resource being merged (its identity names
    /// conflicts and picks the schema); returns what to restore afterwards.
    fn enter(&mut self, kind: Children, child: Field) -> (String, Option<String>) {
        let outer = (self.resource.clone(), self.group_kind.clone());
        if kind == Children::Resources {
            if let Some(id) = crate::resource::Identity::of(self.ours, child.node) {
                self.resource = id.to_string();
                self.group_kind = crate::resource::group_kind_of(Some(&id), None);
            }
        }
        outer
    }

    /// Where a child new to ours goes: after the nearest child before it in theirs that ours
    /// has (and after ours' own additions there, as git orders them), else before the nearest
    /// one after it, else at the end. In a map whose keys both sides keep sorted (a generated
    /// schema's `properties`, a sorted values file), theirs' key goes among ours' additions
    /// there in sorted order, as regenerating the file would put it.
    #[allow(clippy::too_many_arguments)]
    fn placement(
        &self,
        before: &[Child],
        new: &Child,
        after: &[Child],
        ours: &[Child],
        [oi, bi, ti]: [&HashMap<&str, usize>; 3],
        sorted: bool,
        first: Field,
    ) -> Anchor {
        if let (Some(prepend), Slot::Item) = (self.prepend(), first.slot) {
            // merge2 puts the patch's new elements after ours (or before, prepending).
            return match (prepend, ours.last()) {
                (false, Some(l)) => Anchor::After(l.field),
                _ => Anchor::Before(first),
            };
        }
        let ours_addition =
            |x: &Child| !bi.contains_key(x.name.as_ref()) && !ti.contains_key(x.name.as_ref());
        let goes_before = |x: &Child| sorted && x.name > new.name;
        if let Some(&i) = before.iter().rev().find_map(|p| oi.get(p.name.as_ref())) {
            let mut i = i;
            while ours
                .get(i + 1)
                .is_some_and(|x| ours_addition(x) && !goes_before(x))
            {
                i += 1;
            }
            return Anchor::After(ours[i].field);
        }
        match after.iter().find_map(|p| oi.get(p.name.as_ref())) {
            Some(&i) => {
                let mut i = i;
                while i > 0 && ours_addition(&ours[i - 1]) && goes_before(&ours[i - 1]) {
                    i -= 1;
                }
                Anchor::Before(ours[i].field)
            }
            None => ours
                .last()
                .map_or(Anchor::Before(first), |l| Anchor::After(l.field)),
        }
    }

    /// When every child of ours' collection was deleted and none added, the collection stays
    /// as an empty `{}`/`[]` rather than turning into a null.
    pub fn empty_if_all_deleted(&mut self, parent: Field, ours: &[NodeId]) {
        if !ours.iter().all(|c| self.deleted.contains(c)) {
            return;
        }
        let children: std::collections::HashSet<NodeId> = ours.iter().copied().collect();
        self.plan
            .ops
            .retain(|op| !matches!(op, Op::Delete { ours } if children.contains(&ours.node)));
        let list = self.ours.node(parent.node).kind == Kind::Seq;
        self.plan.ops.push(Op::Empty { ours: parent, list });
    }

    /// Theirs' fields to leave out so that only what changed from base remains (kyaml's
    /// "delta" for a field ours does not have), keeping the fields named in `keep` (an
    /// element's keys).
    fn delta(&self, path: &Path, b: NodeId, t: NodeId, keep: &[String], out: &mut Vec<Field>) {
        let (base, theirs) = (self.base, self.theirs);
        // A flow map's entries are left out too (its text is written anew without them);
        // a flow list is taken whole.
        let flow_map = theirs.node(t).flow && theirs.node(t).kind == Kind::Map;
        if base.node(b).kind != theirs.node(t).kind || !(theirs.is_block_collection(t) || flow_map)
        {
            return;
        }
        if theirs.node(t).kind == Kind::Seq {
            let ListKind::Keyed(keys) = self.list_kind(path, &[(base, b), (theirs, t)]) else {
                return; // a plain list is taken whole
            };
            // kyaml reads a repeated key by its first element (§2.5: duplicates collapse), in
            // base and in theirs alike: a later copy in theirs brings nothing in, even where it
            // differs from base (adversary manifests-theirs-1222-304: it brought a copy's image
            // back under a `spec` ours deleted).
            let mut in_base: HashMap<String, NodeId> = HashMap::new();
            for &e in base.children(b) {
                if let Some((name, _)) = element_key(base, e, &keys) {
                    in_base.entry(name).or_insert(e);
                }
            }
            let mut seen = std::collections::HashSet::new();
            for &e in theirs.children(t) {
                let Some((name, _)) = element_key(theirs, e, &keys) else {
                    continue;
                };
                if !seen.insert(name.clone()) {
                    out.push(Field::item(e));
                    continue;
                }
                let Some(&be) = in_base.get(&name) else {
                    // New to base, it comes in whole, without the nulls below it, as a new
                    // map does (below): kyaml walks into it too.
                    self.kyaml_nulls(e, true, out);
                    continue;
                };
                if same_data(base, be, theirs, e) {
                    out.push(Field::item(e));
                    continue;
                }
                let before = out.len();
                self.delta(&path.element(&name), be, e, &keys, out);
                // An element left with nothing but its keys carries no change: it goes.
                if self.only_keys_left(e, &keys, &out[before..]) {
                    out.truncate(before);
                    out.push(Field::item(e));
                }
            }
            return;
        }
        for (k, v) in theirs.entries(t) {
            let name = theirs.value(k);
            if keep.iter().any(|k| k == name) {
                continue;
            }
            // kyaml's null clears: in a delta it is nothing to add.
            if theirs.is_null(v) {
                out.push(Field::entry(k, v));
                continue;
            }
            let Some(bv) = base.get(b, name) else {
                // New to base, it comes in whole, but without the nulls below it: kyaml walks
                // into it too (adversary manifests-theirs-1292-1096: `tier: {sub: null}`).
                self.kyaml_nulls(v, false, out);
                continue;
            };
            if same_data(base, bv, theirs, v) {
                out.push(Field::entry(k, v));
            } else {
                self.delta(&path.key(name), bv, v, &[], out);
            }
        }
    }

    /// The fields holding null anywhere under theirs' node `n` (a list item, `item`): kyaml's
    /// null clears a field, so a new block of theirs comes in without them. Where that would
    /// leave a list item empty, a bare `-` that swallows the next line, none is left out: the
    /// block comes in as theirs wrote it (the oracle takes either, but not a mix).
    fn kyaml_nulls(&self, n: NodeId, item: bool, out: &mut Vec<Field>) {
        let before = out.len();
        if self.nulls(n, item, out) {
            out.truncate(before);
        }
    }

    /// Whether theirs' value `n` holds a null field anywhere below it (kyaml clears each).
    fn holds_nulls(&self, n: NodeId) -> bool {
        let mut nulls = Vec::new();
        self.nulls(n, false, &mut nulls);
        !nulls.is_empty()
    }

    /// Ours' block collection, or ours' flow map in a block map, replaced by theirs' block
    /// collection whole, the null fields inside it left out (kyaml clears each null it
    /// walks); taken as it is where it holds none, or where ours' text cannot take block
    /// lines.
    pub(super) fn take_theirs_clearing_nulls(&mut self, o: Field, t: Field) {
        let mut omit = Vec::new();
        self.kyaml_nulls(t.node, false, &mut omit);
        let ours = self.ours;
        let on = ours.node(o.node);
        // Ours' flow map in a block map (`data: {a: 1}`): theirs' lines go below its key.
        let flow_in_block = on.flow
            && matches!(o.slot, Slot::Entry(_))
            && on.parent().is_some_and(|p| !ours.node(p).flow)
            && self.theirs.is_block_collection(t.node);
        if omit.is_empty() || !(ours.is_block_collection(o.node) || flow_in_block) {
            return self.take_theirs(o, t);
        }
        self.plan.ops.push(Op::Fill {
            ours: o,
            theirs: t,
            omit,
        });
    }

    /// [`Merger::kyaml_nulls`]' walk; true where a list item would be left empty.
    fn nulls(&self, n: NodeId, item: bool, out: &mut Vec<Field>) -> bool {
        let theirs = self.theirs;
        match theirs.node(n).kind {
            Kind::Map => {
                let mut emptied = false;
                let mut all = true;
                for (k, v) in theirs.entries(n) {
                    if theirs.is_null(v) {
                        out.push(Field::entry(k, v));
                    } else {
                        all = false;
                        emptied |= self.nulls(v, false, out);
                    }
                }
                emptied || (item && all && theirs.entries(n).next().is_some())
            }
            Kind::Seq => {
                // Every item walked (each adds its nulls), not only up to the first emptied.
                let mut emptied = false;
                for &e in theirs.children(n) {
                    emptied |= self.nulls(e, true, out);
                }
                emptied
            }
            _ => false,
        }
    }

    /// Whether theirs' element `e` holds nothing but its `keys` once `omit` is left out.
    fn only_keys_left(&self, e: NodeId, keys: &[String], omit: &[Field]) -> bool {
        let theirs = self.theirs;
        theirs.node(e).kind == Kind::Map
            && theirs.entries(e).all(|(k, _)| {
                keys.iter().any(|key| key == theirs.value(k))
                    || omit.iter().any(|f| f.slot == Slot::Entry(k))
            })
    }

    /// A conflict over one field of ours.
    pub fn conflict_field(
        &mut self,
        path: &Path,
        what: String,
        b: Option<Field>,
        o: Field,
        t: Option<Field>,
    ) {
        self.conflict(&path.shown, what, [b, Some(o), t], Anchor::Before(o), None);
    }
}

impl Merger<'_> {
    /// A collection ours emptied (`[]`, `{}`) that theirs changed: what theirs added goes in,
    /// what ours removed stays out. Theirs' block text replaces ours' brackets, without the
    /// children ours removed. Returns false (planning nothing) where theirs changed a child
    /// ours removed and the policy cannot settle it, so the caller marks the whole.
    fn fill_emptied(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) -> bool {
        let (base, theirs) = (self.base, self.theirs);
        let tn = theirs.node(t.node);
        let b = b.map(|b| b.node);
        // The list's kind read from all three versions, as a list both sides keep is read
        // ([`Merger::merge_list`]): theirs' elements alone may each carry a seed key base's
        // did not, and the list is then no keyed one (adversary values-theirs-1150-3365:
        // read keyed by `type`, theirs' plain list was not taken whole under kyaml).
        let mut lists = vec![(self.ours, o.node), (theirs, t.node)];
        lists.extend(b.map(|b| (base, b)));
        let kind = self.list_kind(path, &lists);
        let mut omit = Vec::new();
        if tn.kind == Kind::Map {
            for (k, v) in theirs.entries(t.node) {
                if self.opts.policy.kyaml() && theirs.is_null(v) {
                    omit.push(Field::entry(k, v)); // kyaml's null clears
                    continue;
                }
                let Some(bv) = b.and_then(|b| base.get(b, theirs.value(k))) else {
                    continue; // added by theirs
                };
                let changed = !same_data(base, bv, theirs, v);
                match (changed, self.opts.policy.resolve()) {
                    (true, Resolution::Mark) => return false, // ours removed what theirs changed
                    // kyaml brings back only what theirs changed.
                    (true, Resolution::Theirs) => {
                        let name = theirs.value(k).to_string();
                        self.delta(&path.key(&name), bv, v, &[], &mut omit);
                    }
                    _ => omit.push(Field::entry(k, v)),
                }
            }
        } else if let (Some(bl), ListKind::Keyed(keys)) =
            (b.filter(|&b| base.node(b).kind == Kind::Seq), kind.clone())
        {
            // Elements by key: those base had, ours removed (the last of a key), and how many
            // of each key base holds.
            let mut in_base: HashMap<String, NodeId> = HashMap::new();
            let mut in_base_count: HashMap<String, usize> = HashMap::new();
            for &e in base.children(bl) {
                if let Some((k, _)) = element_key(base, e, &keys) {
                    *in_base_count.entry(k.clone()).or_default() += 1;
                    in_base.insert(k, e);
                }
            }
            // A base element theirs renamed is one theirs changed; kyaml pairs by key alone.
            let renamed = match self.opts.policy.kyaml() || !self.pair_renamed_elements {
                true => Vec::new(),
                false => align::renamed_by(base, bl, theirs, t.node, &keys),
            };
            let mut seen: HashMap<String, usize> = HashMap::new();
            for &e in theirs.children(t.node) {
                let key = element_key(theirs, e, &keys).map(|(k, _)| k);
                let copies = key.as_ref().map_or(0, |k| {
                    let n = seen.entry(k.clone()).or_default();
                    *n += 1;
                    *n
                });
                // kyaml reads a repeated key by its first element (§2.5: duplicates
                // collapse): theirs' later elements of that key bring nothing in.
                if self.opts.policy.kyaml() && copies > 1 {
                    omit.push(Field::item(e));
                    continue;
                }
                // A copy of a key beyond base's count is one theirs put in, but which copy is
                // base's element (removed by ours) and which the new one, no data says
                // (adversary manifests-mark-1144-6960: theirs repeated a volume and moved
                // another, ours emptied the list): the person decides; under ours the copy is
                // theirs' addition.
                let beyond_base = key
                    .as_ref()
                    .is_some_and(|k| copies > in_base_count.get(k).copied().unwrap_or(0));
                if copies > 1 && beyond_base {
                    match self.opts.policy.resolve() {
                        Resolution::Mark => return false,
                        _ => continue,
                    }
                }
                let Some(&be) = key.and_then(|k| in_base.get(&k)) else {
                    // A base element theirs renamed is one theirs changed, not an addition.
                    if renamed.contains(&e) {
                        match self.opts.policy.resolve() {
                            Resolution::Mark => return false, // ours removed what theirs changed
                            _ => omit.push(Field::item(e)),
                        }
                    }
                    continue; // added by theirs
                };
                let changed = !same_data(base, be, theirs, e);
                match (changed, self.opts.policy.resolve()) {
                    (true, Resolution::Mark) => return false, // ours removed what theirs changed
                    (true, Resolution::Theirs) => {
                        let shown = element_key(theirs, e, &keys).map_or(String::new(), |k| k.1);
                        let before = omit.len();
                        self.delta(&path.element(&shown), be, e, &keys, &mut omit);
                        // An element left with nothing but its keys carries no change.
                        if self.only_keys_left(e, &keys, &omit[before..]) {
                            omit.truncate(before);
                            omit.push(Field::item(e));
                        }
                    }
                    _ => omit.push(Field::item(e)),
                }
            }
        } else if self.opts.policy.kyaml() && kind != ListKind::Set {
            return false; // kyaml takes theirs' plain list whole
        } else {
            // Elements by content: those base already held, ours removed (a set, such as a
            // kustomization's `resources`, is merged so by kyaml too: element by element).
            let mut held: HashMap<String, usize> = HashMap::new();
            for &e in b.map_or(&[][..], |b| base.children(b)) {
                *held.entry(crate::parse::canonical(base, e)).or_default() += 1;
            }
            let mut added = false;
            for &e in theirs.children(t.node) {
                let data = crate::parse::canonical(theirs, e);
                match held.get_mut(&data).filter(|n| **n > 0) {
                    Some(n) => {
                        *n -= 1;
                        omit.push(Field::item(e));
                    }
                    None => added = true,
                }
            }
            // Theirs took a base element away and put a new one in: an element without a
            // key edited (`--workers=2` → `--workers=4`) reads so. Ours removed it: the
            // person decides, as for a keyed element.
            if added && held.values().any(|&n| n > 0) && !self.opts.policy.kyaml() {
                if let Resolution::Mark = self.opts.policy.resolve() {
                    return false;
                }
            }
        }
        let direct = |f: &Field| match f.slot {
            Slot::Entry(k) => theirs.node(k).parent() == Some(t.node),
            _ => theirs.node(f.node).parent() == Some(t.node),
        };
        let children = tn.child_count() / if tn.kind == Kind::Map { 2 } else { 1 };
        if omit.iter().filter(|f| direct(f)).count() == children {
            return true; // nothing of theirs is left to add: ours' emptied collection stands
        }
        self.plan.ops.push(Op::Fill {
            ours: o,
            theirs: t,
            omit,
        });
        true
    }

    /// A flow map (`{a: 1, b: 2}`) both sides changed: merged field by field as a block map
    /// is (kyaml merges flow and block collections alike), written back as one flow map of
    /// the winning entries' own text. Returns false (planning nothing) where a field is
    /// disputed in mark mode, or both changed a nested value, so the caller marks the whole.
    fn merge_flow_map(&mut self, b: Option<Field>, o: Field, t: Field) -> bool {
        let (base, ours, theirs) = (self.base, self.ours, self.theirs);
        let children = [
            b.map_or_else(Vec::new, |b| fields(base, b.node)),
            fields(ours, o.node),
            fields(theirs, t.node),
        ];
        let aligned = self.align(
            [&children[0], &children[1], &children[2]],
            Children::Fields,
            &[],
        );
        // A field's value in a version, by name.
        let value = |i: usize, name: &str| -> Option<NodeId> {
            let at = *aligned.index[i].get(name)?;
            Some(children[i][at].field.node)
        };
        let kyaml = self.opts.policy.kyaml();
        let resolution = self.opts.policy.resolve();
        let same = |x: (&Tree, Option<NodeId>), y: (&Tree, Option<NodeId>)| match (x.1, y.1) {
            (None, None) => true,
            (Some(a), Some(c)) => same_data(x.0, a, y.0, c),
            _ => false,
        };
        let mut entries = Vec::new();
        for (k, v) in ours.entries(o.node) {
            let name = ours.value(k);
            let (bv, tv) = (value(0, name), value(2, name));
            let theirs_changed = !same((base, bv), (theirs, tv));
            let ours_changed = !same((base, bv), (ours, Some(v)));
            // kyaml clears a field ours set to null, whatever theirs did to it (a null in dest
            // beats an upstream change), as the block path does: theirs' value kept here would
            // bring back what ours cleared (adversary manifests-theirs-1222-1000).
            if kyaml && ours_changed && ours.is_null(v) {
                continue;
            }
            let take_theirs = match (theirs_changed, ours_changed) {
                (false, _) => false,
                (true, false) => true,
                (true, true) if same((ours, Some(v)), (theirs, tv)) => false,
                (true, true) => match resolution {
                    Resolution::Theirs => true,
                    Resolution::Ours => false,
                    Resolution::Mark => return false,
                },
            };
            match (take_theirs, tv) {
                (false, _) => entries.push((Side::Ours, k, v)),
                (true, Some(tv)) if kyaml && theirs.is_null(tv) => {}
                (true, Some(tv)) => {
                    let tk = theirs
                        .entries(t.node)
                        .find(|&(_, x)| x == tv)
                        .map(|(k, _)| k);
                    entries.push((Side::Theirs, tk.unwrap_or(k), tv));
                }
                (true, None) => {} // theirs deleted it
            }
        }
        for (k, v) in theirs.entries(t.node) {
            let name = theirs.value(k);
            if aligned.index[1].contains_key(name) {
                continue;
            }
            match value(0, name) {
                None if kyaml && theirs.is_null(v) => {}
                None => entries.push((Side::Theirs, k, v)),
                Some(bv) if same_data(base, bv, theirs, v) => {} // deleted in ours
                Some(_) => match resolution {
                    Resolution::Theirs => entries.push((Side::Theirs, k, v)),
                    Resolution::Ours => {}
                    Resolution::Mark => return false,
                },
            }
        }
        // A flow map holds flow text only: a block value cannot go inside its braces, nor a
        // literal or folded scalar, whose header and lines are block text (adversary
        // templates-theirs-1139-494: `data: {k: |-` did not parse). An alias (`*name`) is
        // flow text: refusing it took theirs' map whole in theirs mode and lost ours' edits
        // (adversary values-theirs-1143-121).
        let inline = |&(side, _, v): &(Side, NodeId, NodeId)| {
            let tree = if side == Side::Ours { ours } else { theirs };
            let node = tree.node(v);
            match node.kind {
                Kind::Scalar => !matches!(node.style, Style::Literal | Style::Folded),
                Kind::Alias => true,
                _ => node.flow,
            }
        };
        if entries.iter().all(inline) {
            self.plan.ops.push(Op::FlowMap { ours: o, entries });
        } else if self.unfoldable(o, &entries) {
            self.plan.ops.push(Op::BlockMap { ours: o, entries });
        } else {
            return false;
        }
        true
    }

    /// Whether ours' flow map can be written as a block map of these entries below its key
    /// (kyaml merges a flow map and a block map alike, and a block scalar theirs added cannot
    /// stand in braces): ours' map is a field of a block map, carries no anchor or tag (which
    /// stand where the rewrite starts), ends its line (a comment may follow, which moves to
    /// the key's line), and each of ours' entries is one line of flow text, which reads the
    /// same in a block map.
    fn unfoldable(&self, o: Field, entries: &[(Side, NodeId, NodeId)]) -> bool {
        let ours = self.ours;
        let on = ours.node(o.node);
        let in_block_map =
            matches!(o.slot, Slot::Entry(_)) && on.parent().is_some_and(|p| !ours.node(p).flow);
        let rest = ours.text[on.end..line_end(ours.text, on.end)].trim();
        let ends_line = rest.is_empty() || rest.starts_with('#');
        let one_line = |&(side, k, v): &(Side, NodeId, NodeId)| {
            side == Side::Theirs || !ours.text[ours.node(k).start..ours.node(v).end].contains('\n')
        };
        in_block_map
            && on.anchor().is_none()
            && on.tag().is_none()
            && ends_line
            && entries.iter().all(one_line)
    }
}

/// `ours changed 2 → 3, theirs changed 2 → 5` for scalars; a plainer sentence otherwise.
fn describe_change(
    base: &Tree,
    b: Option<Field>,
    ours: &Tree,
    o: Field,
    theirs: &Tree,
    t: Field,
) -> String {
    let short = |tree: &Tree, id: NodeId| {
        let n = tree.node(id);
        let value = tree.value(id);
        if n.kind == Kind::Scalar && !value.contains('\n') && value.len() <= 60 {
            Some(value.to_string())
        } else {
            None
        }
    };
    let was = b.and_then(|b| short(base, b.node));
    match (short(ours, o.node), short(theirs, t.node)) {
        (Some(x), Some(y)) => match was {
            Some(w) => format!("ours changed {w} → {x}, theirs changed {w} → {y}"),
            None => format!("ours set {x}, theirs set {y}"),
        },
        _ => "both sides changed it differently".into(),
    }
}

/// A map's fields as the alignment's children, named by key (none where `map` is no map).
fn fields<'t>(tree: &'t Tree<'t>, map: NodeId) -> Vec<Child<'t>> {
    if tree.node(map).kind != Kind::Map {
        return Vec::new();
    }
    tree.entries(map)
        .map(|(k, v)| Child {
            name: Cow::Borrowed(tree.value(k)),
            shown: Cow::Borrowed(tree.value(k)),
            field: Field::entry(k, v),
        })
        .collect()
}
