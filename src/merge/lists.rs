//! The list rules: associative lists pair their elements by merge key (the Kubernetes schema,
//! then the seeds' key rule); other lists merge element by element, diff3 style, so edits at
//! different places both survive.

use std::collections::HashSet;

use crate::parse::{Kind, NodeId, ScalarKey, Tree};
use crate::resource::{list_key_for, ListKind};

use super::diff3::{diff3, Chunk};
use super::fields::{Child, Children};
use super::merger::{Field, Merger, Slot};
use super::patch::list_directive;
use super::path::Path;
use super::Policy;

impl Merger<'_> {
    /// How the elements of the list at `path` are identified, given its versions: the schema
    /// for built-in kinds, else the first seed key every version carries uniquely.
    pub fn list_kind(&self, path: &Path, lists: &[(&Tree, NodeId)]) -> ListKind {
        let lists: Vec<&(&Tree, NodeId)> = lists
            .iter()
            .filter(|(tree, n)| tree.node(*n).kind == Kind::Seq)
            .collect();
        if let Some(kind) = lists
            .iter()
            .find_map(|&&(tree, list)| schema_comment(tree, list))
        {
            return kind;
        }
        list_key_for(self.group_kind.as_deref(), &path.schema, |field| {
            lists
                .iter()
                .all(|&&(tree, list)| unique_field(tree, list, field))
        })
    }

    /// Merges a block sequence both sides have.
    pub fn merge_list(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) {
        if self.prepend().is_some() {
            // merge2: an element that is only `$patch: X` directs the whole list.
            let directive = self
                .theirs
                .node(t.node)
                .children
                .iter()
                .find_map(|&e| list_directive(self.theirs, e));
            match directive {
                Some("delete") => return self.clear(o),
                Some("replace") => return self.replace_children(o, t),
                _ => {}
            }
        }
        let lists: Vec<(&Tree, NodeId)> = [
            (self.base, b.map(|b| b.node)),
            (self.ours, Some(o.node)),
            (self.theirs, Some(t.node)),
        ]
        .into_iter()
        .filter_map(|(tree, n)| n.map(|n| (tree, n)))
        .collect();
        let kind = self.list_kind(path, &lists);
        let patch = self.prepend().is_some();
        let keyed = |keys: &[String]| -> Option<[Vec<Child>; 3]> {
            let base = match b {
                Some(b) if self.base.node(b.node).kind == Kind::Seq => {
                    elements(self.base, b.node, Some(keys), patch)?
                }
                _ => Vec::new(),
            };
            Some([
                base,
                elements(self.ours, o.node, Some(keys), patch)?,
                elements(self.theirs, t.node, Some(keys), patch)?,
            ])
        };
        let set = || -> Option<[Vec<Child>; 3]> {
            let base = match b {
                Some(b) if self.base.node(b.node).kind == Kind::Seq => {
                    elements(self.base, b.node, None, patch)?
                }
                _ => Vec::new(),
            };
            Some([
                base,
                elements(self.ours, o.node, None, patch)?,
                elements(self.theirs, t.node, None, patch)?,
            ])
        };
        if self.group_kind.as_deref() == Some("List") && path.schema == "items" {
            let resources = |tree: &Tree, list: Option<NodeId>| {
                list.map_or(Some(Vec::new()), |l| resources(tree, l))
            };
            if let (Some(base), Some(ours), Some(theirs)) = (
                resources(
                    self.base,
                    b.map(|b| b.node)
                        .filter(|&n| self.base.node(n).kind == Kind::Seq),
                ),
                resources(self.ours, Some(o.node)),
                resources(self.theirs, Some(t.node)),
            ) {
                return self.merge_children(path, Children::Resources, o, &base, &ours, &theirs);
            }
        }
        let paired = match &kind {
            ListKind::Keyed(keys) => keyed(keys),
            ListKind::Set => set(),
            ListKind::Plain => None,
        };
        match paired {
            Some([base, ours, theirs]) => {
                self.merge_children(path, Children::Elements, o, &base, &ours, &theirs)
            }
            None if self.opts.policy == Policy::Theirs => self.take_theirs(o, t),
            None => self.merge_plain_list(path, b, o, t),
        }
    }

    /// A list without merge keys, changed on both sides: a 3-way merge of the element
    /// sequences (elements compared as data). Edits at different places merge; edits of the
    /// same elements conflict around just those elements.
    fn merge_plain_list(&mut self, path: &Path, b: Option<Field>, o: Field, t: Field) {
        let Some(b) = b.filter(|b| self.base.node(b.node).kind == Kind::Seq) else {
            return self.both_changed(path, b, o, t);
        };
        let (bs, os, ts) = (
            element_data(self.base, b.node),
            element_data(self.ours, o.node),
            element_data(self.theirs, t.node),
        );
        let item = |id: NodeId| Field {
            slot: Slot::Item,
            node: id,
        };
        let ours_items = self.ours.node(o.node).children.clone();
        let theirs_items = self.theirs.node(t.node).children.clone();
        let base_items = self.base.node(b.node).children.clone();
        let Some(&first) = ours_items.first() else {
            return self.both_changed(path, Some(b), o, t);
        };
        let column = Merger::column(self.ours, item(first));
        let at = |m: &Merger, j: usize| {
            if j < ours_items.len() {
                m.before(item(ours_items[j]))
            } else {
                m.after(item(ours_items[ours_items.len() - 1]))
            }
        };
        for chunk in diff3(&bs, &os, &ts) {
            match chunk {
                Chunk::Same { .. } | Chunk::Ours { .. } => {}
                Chunk::Theirs { ours, theirs } => {
                    let pos = at(self, ours.start);
                    for &i in &theirs_items[theirs] {
                        self.insert(item(i), pos, column, &[]);
                    }
                    for &i in &ours_items[ours] {
                        self.delete(item(i));
                    }
                }
                Chunk::Conflict { base, ours, theirs } => {
                    if self.opts.policy == Policy::Ours {
                        continue;
                    }
                    if base.len() == ours.len() && base.len() == theirs.len() {
                        // The same elements edited on both sides: merge them one by one, so
                        // only the fields both changed conflict.
                        for n in 0..base.len() {
                            let sub = path.element(&format!("{}", base.start + n));
                            self.merge_value(
                                &sub,
                                Some(item(base_items[base.start + n])),
                                item(ours_items[ours.start + n]),
                                item(theirs_items[theirs.start + n]),
                            );
                        }
                        continue;
                    }
                    let fields = |ids: &[NodeId]| ids.iter().map(|&i| item(i)).collect::<Vec<_>>();
                    let what = format!(
                        "both sides changed elements {}..{} differently",
                        base.start, base.end
                    );
                    let anchor = at(self, ours.start);
                    self.conflict_many(
                        &path.element(&format!("{}", base.start)).shown,
                        what,
                        &fields(&base_items[base]),
                        &fields(&ours_items[ours]),
                        &fields(&theirs_items[theirs]),
                        anchor,
                        column,
                    );
                }
            }
        }
    }
}

/// A list's schema given in a comment on its key's line, as kpt and kustomize setters write
/// it: `items: # {"type": "array", "x-kubernetes-patch-strategy": "merge",
/// "x-kubernetes-patch-merge-key": "name"}`. It overrides the built-in schema for that field.
fn schema_comment(tree: &Tree, list: NodeId) -> Option<ListKind> {
    let parent = tree.node(tree.node(list).parent?);
    let i = parent.children.iter().position(|&c| c == list)?;
    if parent.kind != Kind::Map || i % 2 == 0 {
        return None;
    }
    let key = tree.node(parent.children[i - 1]);
    let line = &tree.text[key.end..crate::parse::line_end(tree.text, key.end)];
    let json = &line[line.find("# {")? + 2..];
    let schema: serde_json::Value = serde_json::from_str(json).ok()?;
    let strategy = schema.get("x-kubernetes-patch-strategy")?.as_str()?;
    if !strategy.split(',').any(|s| s.trim() == "merge") {
        return Some(ListKind::Plain);
    }
    let keys: Vec<String> = match schema
        .get("x-kubernetes-list-map-keys")
        .and_then(|k| k.as_array())
    {
        Some(keys) => keys
            .iter()
            .filter_map(|k| k.as_str().map(String::from))
            .collect(),
        None => schema
            .get("x-kubernetes-patch-merge-key")
            .and_then(|k| k.as_str())
            .map(|k| vec![k.to_string()])
            .unwrap_or_default(),
    };
    Some(if keys.is_empty() {
        ListKind::Set
    } else {
        ListKind::Keyed(keys)
    })
}

/// The items of a `kind: List` named by identity; `None` if one has none or two share one.
fn resources(tree: &Tree, list: NodeId) -> Option<Vec<Child>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &e in &tree.node(list).children {
        let id = crate::resource::Identity::of(tree, e)?;
        let name = format!(
            "{}\u{0}{}\u{0}{}\u{0}{}",
            id.group, id.kind, id.namespace, id.name
        );
        if !seen.insert(name.clone()) {
            return None;
        }
        out.push(Child {
            name,
            shown: id.to_string(),
            field: Field {
                slot: Slot::Item,
                node: e,
            },
        });
    }
    Some(out)
}

/// Whether every element of a list is a map carrying `field` as a scalar, with no value twice.
fn unique_field(tree: &Tree, list: NodeId, field: &str) -> bool {
    let mut seen = HashSet::new();
    tree.node(list)
        .children
        .iter()
        .all(|&e| match tree.get(e, field) {
            Some(v) if tree.node(v).kind == Kind::Scalar => seen.insert(tree.value(v)),
            _ => false,
        })
}

/// A list's elements named by their merge key (`keys`), or by their value for a set. `None`
/// when an element cannot be named or two share a name: such a list is merged as plain.
/// merge2 passes `patch`: its directive elements (`- $patch: merge`) are instructions, not
/// elements.
fn elements(tree: &Tree, list: NodeId, keys: Option<&[String]>, patch: bool) -> Option<Vec<Child>> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for &e in &tree.node(list).children {
        if patch && list_directive(tree, e).is_some() {
            continue;
        }
        let (name, shown) = match keys {
            Some(keys) => {
                if tree.node(e).kind != Kind::Map {
                    return None;
                }
                let values: Vec<String> = keys
                    .iter()
                    .map(|k| match tree.get(e, k) {
                        Some(v) if tree.node(v).kind == Kind::Scalar && !tree.is_null(v) => {
                            tree.value(v).to_string()
                        }
                        // The API's default: a port without a protocol is TCP.
                        _ if k == "protocol" => "TCP".into(),
                        _ => String::new(),
                    })
                    .collect();
                if values[0].is_empty() {
                    return None;
                }
                let shown = keys
                    .iter()
                    .zip(&values)
                    .filter(|(k, v)| !(k.as_str() == "protocol" && v.as_str() == "TCP"))
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",");
                (values.join("\u{0}"), shown)
            }
            None => {
                if tree.node(e).kind != Kind::Scalar {
                    return None;
                }
                let v = tree.value(e).to_string();
                (v.clone(), v)
            }
        };
        if !seen.insert(name.clone()) {
            return None;
        }
        out.push(Child {
            name,
            shown,
            field: Field {
                slot: Slot::Item,
                node: e,
            },
        });
    }
    Some(out)
}

/// A list's elements as data, for the element-wise 3-way merge.
fn element_data(tree: &Tree, list: NodeId) -> Vec<String> {
    tree.node(list)
        .children
        .iter()
        .map(|&c| canonical(tree, c))
        .collect()
}

/// A node's data as a string, equal exactly when the data is (map keys sorted).
pub fn canonical(tree: &Tree, id: NodeId) -> String {
    let n = tree.node(id);
    match n.kind {
        Kind::Scalar => match tree.scalar_key(id) {
            ScalarKey::Null => "~".into(),
            ScalarKey::Str(s) => format!("{s:?}"),
            ScalarKey::Typed(s) => s,
            ScalarKey::Tagged(t, s) => format!("{t} {s:?}"),
        },
        Kind::Alias => format!("*{}", tree.value(id)),
        Kind::Seq => format!(
            "[{}]",
            n.children
                .iter()
                .map(|&c| canonical(tree, c))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Kind::Map => {
            let mut entries: Vec<String> = tree
                .entries(id)
                .map(|(k, v)| format!("{:?}:{}", tree.value(k), canonical(tree, v)))
                .collect();
            entries.sort();
            format!("{{{}}}", entries.join(","))
        }
    }
}

impl Merger<'_> {
    /// A flow list (`args: [a, b]`) both sides changed: the same element-wise 3-way merge as
    /// a block list, written back inside ours' brackets. Returns false (planning nothing) when
    /// the edits overlap, so the caller declares the conflict.
    pub fn merge_flow_list(&mut self, b: Option<Field>, o: Field, t: Field) -> bool {
        let Some(b) = b.filter(|b| self.base.node(b.node).kind == Kind::Seq) else {
            return false;
        };
        let (base, ours, theirs) = (self.base, self.ours, self.theirs);
        let chunks = diff3(
            &element_data(base, b.node),
            &element_data(ours, o.node),
            &element_data(theirs, t.node),
        );
        if chunks.iter().any(|c| matches!(c, Chunk::Conflict { .. })) {
            return false;
        }
        let oi = &ours.node(o.node).children;
        let ti = &theirs.node(t.node).children;
        let mut planned = Vec::new();
        for chunk in chunks {
            let Chunk::Theirs {
                ours: or,
                theirs: tr,
            } = chunk
            else {
                continue;
            };
            let new = ti[tr]
                .iter()
                .map(|&i| theirs.src(i))
                .collect::<Vec<_>>()
                .join(", ");
            let span = |j: usize| (ours.node(oi[j]).start, ours.node(oi[j]).end);
            let (start, end, text) = if or.is_empty() {
                if oi.is_empty() {
                    let open = ours.text[ours.node(o.node).start..]
                        .find('[')
                        .map_or(ours.node(o.node).start, |i| ours.node(o.node).start + i + 1);
                    (open, open, new)
                } else if or.start < oi.len() {
                    let at = span(or.start).0;
                    (at, at, format!("{new}, "))
                } else {
                    let at = span(oi.len() - 1).1;
                    (at, at, format!(", {new}"))
                }
            } else if !new.is_empty() {
                (span(or.start).0, span(or.end - 1).1, new)
            } else if or.end < oi.len() {
                (span(or.start).0, span(or.end).0, String::new())
            } else if or.start > 0 {
                (span(or.start - 1).1, span(or.end - 1).1, String::new())
            } else {
                (span(or.start).0, span(or.end - 1).1, String::new())
            };
            planned.push(crate::render::Edit { start, end, text });
        }
        self.edits.extend(planned);
        true
    }
}
