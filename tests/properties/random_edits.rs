//! Random edits of generated documents: the generator's choices of what to change, where.

use super::*;

impl Gen<'_> {
    /// A different scalar of the same type.
    pub(crate) fn changed_scalar(&mut self, v: &V) -> V {
        match v {
            V::Bool(b) => V::Bool(!b),
            V::Int(n) => V::Int(n + 1 + self.c.below(5) as i64),
            V::Str(old, q) => {
                let mut new = self.string();
                if new.str() == Some(old) {
                    new = V::Str(format!("{old}-x"), *q);
                }
                new
            }
            V::Null => self.string(),
            _ => unreachable!(),
        }
    }

    /// A new key for the map at `path`, with its value.
    pub(crate) fn new_entry(&mut self, path: &Path, current: &V) -> (String, V) {
        let has = |k: &str| current.get(k).is_some();
        let in_container = matches!(path.last(), Some(Seg::Elem(_)))
            && path.iter().any(|s| *s == Seg::Key("containers".into()));
        let key = last_key(path);
        if in_container {
            if !has("env") && self.c.flag(50) {
                let n = self.fresh("NEW_");
                return ("env".into(), V::Seq(vec![self.env_var(&n)]));
            }
            if !has("args") && self.c.flag(50) {
                return ("args".into(), V::Seq(vec![s(self.c.word(&ARGS))]));
            }
            if !has("workingDir") && self.c.flag(50) {
                return ("workingDir".into(), s("/srv"));
            }
        }
        if matches!(
            key,
            "labels" | "annotations" | "matchLabels" | "data" | "selector"
        ) {
            let k = self.fresh("key-");
            return (k, self.string());
        }
        if self.c.flag(25) {
            let a = self.scalar();
            return (self.fresh("nested-"), map(vec![("inner", a)]));
        }
        let v = self.scalar();
        (self.fresh("extra-"), v)
    }

    /// A new element for the associative list at `path`, not clashing with `items`.
    pub(crate) fn new_element(&mut self, path: &Path, items: &[V]) -> Option<V> {
        let key = last_key(path);
        // A Service's ports have `port`, a container's `containerPort`.
        let in_service = !path.contains(&Seg::Key("containers".into()));
        match key {
            "containers" => {
                let n = self.fresh("c-");
                Some(self.container(&n))
            }
            "env" => {
                let n = self.fresh("NEW_");
                Some(self.env_var(&n))
            }
            "items" => {
                let n = self.fresh("item-");
                let v = self.scalar();
                Some(map(vec![("name", s(&n)), ("value", v)]))
            }
            "ports" => {
                let field = if in_service { "port" } else { "containerPort" };
                self.port(field, items)
            }
            _ => None,
        }
    }

    /// One random edit at `path` (a site of kind `site`) of `docs`.
    pub(crate) fn edit_at(&mut self, docs: &mut [V], path: &Path, site: Site) -> Option<Edit> {
        // `metadata` holds the identity: it stays.
        let removable = matches!(path.last(), Some(Seg::Key(_)) | Some(Seg::Elem(_)))
            && !(path.len() == 2 && path[1] == Seg::Key("metadata".into()));
        let current = node_mut(docs, path)?.clone();
        if self.rich && self.c.flag(40) {
            if let Some(e) = self.rich_edit_at(path, site, &current, removable) {
                return Some(e);
            }
        }
        match site {
            Site::Scalar if current == V::Null => None,
            Site::Scalar => match self.c.below(10) {
                0..=5 => Some(Edit::Set(path.clone(), self.changed_scalar(&current))),
                6..=8 if removable => Some(Edit::Remove(path.clone())),
                _ if self.nulls && current != V::Null => Some(Edit::Set(path.clone(), V::Null)),
                _ => Some(Edit::Set(path.clone(), self.changed_scalar(&current))),
            },
            Site::Map => match self.c.below(10) {
                0..=5 => {
                    let (k, v) = self.new_entry(path, &current);
                    let len = match &current {
                        V::Map(m) => m.len(),
                        _ => 0,
                    };
                    let at = self.c.below(len + 1);
                    Some(Edit::AddKey(path.clone(), at, k, v))
                }
                6..=8 if removable => Some(Edit::Remove(path.clone())),
                _ if self.nulls && removable && matches!(path.last(), Some(Seg::Key(_))) => {
                    Some(Edit::Set(path.clone(), V::Null))
                }
                _ => None,
            },
            Site::Assoc => {
                let V::Seq(items) = &current else { return None };
                if items.is_empty() || self.c.flag(60) {
                    let e = self.new_element(path, items)?;
                    let at = self.c.below(items.len() + 1);
                    Some(Edit::AddElem(path.clone(), at, e))
                } else {
                    let key = last_key(path).to_string();
                    let victim = self.c.pick(items);
                    let mut p = path.clone();
                    p.push(Seg::Elem(elem_id(&key, victim)?));
                    Some(Edit::Remove(p))
                }
            }
            Site::Plain => {
                let V::Seq(items) = &current else { return None };
                let mut items = items.clone();
                if last_key(path) == "rules" {
                    self.edit_rules(&mut items);
                    return Some(Edit::SetList(path.clone(), items));
                }
                let pool: &[&str] = if last_key(path) == "args" {
                    &ARGS
                } else {
                    &WORDS
                };
                match self.c.below(3) {
                    _ if items.is_empty() => items.push(s(self.c.word(pool))),
                    0 => {
                        let at = self.c.below(items.len() + 1);
                        items.insert(at, s(self.c.word(pool)));
                    }
                    1 => {
                        let at = self.c.below(items.len());
                        items.remove(at);
                    }
                    _ => {
                        let at = self.c.below(items.len());
                        let new = self.changed_scalar(&items[at]);
                        items[at] = new;
                    }
                }
                Some(Edit::SetList(path.clone(), items))
            }
        }
    }

    /// One of the rich edits at `path`, if the site has room for one.
    pub(crate) fn rich_edit_at(
        &mut self,
        path: &Path,
        site: Site,
        current: &V,
        removable: bool,
    ) -> Option<Edit> {
        let p = path.clone();
        // A list element is deleted, never emptied or nulled: `- {}` is no container.
        let removable = removable && matches!(path.last(), Some(Seg::Key(_)));
        match (site, current) {
            (Site::Map, V::Map(m)) => match self.c.below(3) {
                0 if m.len() >= 2 => {
                    let (from, to) = self.two_places(m.len());
                    Some(Edit::MoveKey(p, m[from].0.clone(), to))
                }
                1 if removable && !m.is_empty() => Some(Edit::Empty(p)),
                _ if removable => Some(Edit::Set(p, V::Null)),
                _ => None,
            },
            (Site::Assoc, V::Seq(items)) => match self.c.below(5) {
                0 if !items.is_empty() && last_key(path) != "ports" => {
                    let from = self.c.below(items.len());
                    let mut copy = items[from].clone();
                    let stem = copy.get("name").and_then(V::str).unwrap_or("x").to_string();
                    let name = if last_key(path) == "env" {
                        self.fresh(&format!("{stem}_COPY"))
                    } else {
                        self.fresh(&format!("{stem}-copy"))
                    };
                    *copy.get_mut("name")? = s(&name);
                    self.tweak(&mut copy);
                    // Mostly pasted right below the original, as people do.
                    let at = if self.c.flag(70) {
                        from + 1
                    } else {
                        self.c.below(items.len() + 1)
                    };
                    Some(Edit::CopyElem(p, at, copy))
                }
                1 | 2 if items.len() >= 2 => {
                    let (from, to) = self.two_places(items.len());
                    let id = elem_id(last_key(path), &items[from])?;
                    Some(Edit::MoveElem(p, id, to))
                }
                3 if !items.is_empty() => Some(Edit::Empty(p)),
                _ => Some(Edit::Set(p, V::Null)),
            },
            (Site::Plain, V::Seq(items)) => match self.c.below(3) {
                0 if items.len() >= 2 => {
                    let mut items = items.clone();
                    let (i, j) = self.two_places(items.len());
                    if self.c.flag(50) {
                        items.swap(i, j);
                    } else {
                        let x = items.remove(i);
                        items.insert(j, x);
                    }
                    Some(Edit::ReorderList(p, items))
                }
                1 if !items.is_empty() => Some(Edit::Empty(p)),
                _ => Some(Edit::Set(p, V::Null)),
            },
            _ => None,
        }
    }

    /// Two different positions in `0..len` (`len` ≥ 2).
    pub(crate) fn two_places(&mut self, len: usize) -> (usize, usize) {
        let i = self.c.below(len);
        let mut j = self.c.below(len - 1);
        if j >= i {
            j += 1;
        }
        (i, j)
    }

    /// Changes one scalar inside `v` that is no identity or element key: the edit made to a
    /// pasted copy.
    pub(crate) fn tweak(&mut self, v: &mut V) {
        fn leaves(v: &V, at: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
            match v {
                V::Map(m) => {
                    for (i, (k, x)) in m.iter().enumerate() {
                        let key = matches!(
                            k.as_str(),
                            "name"
                                | "namespace"
                                | "apiVersion"
                                | "kind"
                                | "containerPort"
                                | "port"
                                | "protocol"
                        );
                        if !key {
                            at.push(i);
                            leaves(x, at, out);
                            at.pop();
                        }
                    }
                }
                V::Seq(items) => {
                    for (i, x) in items.iter().enumerate() {
                        at.push(i);
                        leaves(x, at, out);
                        at.pop();
                    }
                }
                _ => out.push(at.clone()),
            }
        }
        let mut found = Vec::new();
        leaves(v, &mut Vec::new(), &mut found);
        if found.is_empty() {
            return;
        }
        let at = found[self.c.below(found.len())].clone();
        let mut leaf = v;
        for i in at {
            leaf = match leaf {
                V::Map(m) => &mut m[i].1,
                V::Seq(items) => &mut items[i],
                _ => unreachable!("a leaf path goes through collections"),
            };
        }
        let new = self.changed_scalar(leaf);
        *leaf = new;
    }

    /// Adds, removes or changes one RBAC rule, or one word of a rule.
    pub(crate) fn edit_rules(&mut self, items: &mut Vec<V>) {
        match self.c.below(3) {
            _ if items.is_empty() => items.push(self.rule()),
            0 => {
                let at = self.c.below(items.len() + 1);
                let rule = self.rule();
                items.insert(at, rule);
            }
            1 => {
                let at = self.c.below(items.len());
                items.remove(at);
            }
            _ => {
                let at = self.c.below(items.len());
                let (field, pool): (&str, &[&str]) = match self.c.below(3) {
                    0 => ("apiGroups", &API_GROUPS),
                    1 => ("resources", &RESOURCES),
                    _ => ("verbs", &VERBS),
                };
                let Some(V::Seq(words)) = items[at].get_mut(field) else {
                    return;
                };
                let w = s(self.c.word(pool));
                if let Some(i) = words.iter().position(|x| x.str() == w.str()) {
                    if words.len() > 1 {
                        words.remove(i);
                    }
                } else {
                    let at = self.c.below(words.len() + 1);
                    words.insert(at, w);
                }
            }
        }
    }

    /// A document-level rich edit: move a document, or paste a renamed, edited copy of one.
    pub(crate) fn rich_doc_edit(&mut self, docs: &[V]) -> Option<Edit> {
        if docs.len() >= 2 && self.c.flag(50) {
            let (from, to) = self.two_places(docs.len());
            return Some(Edit::MoveDoc(doc_id(&docs[from]), to));
        }
        // `gaps::ONE_DOCUMENT_EDIT_PER_SIDE`.
        if !(self.add_and_remove || self.doc_op.is_none()) || docs.is_empty() {
            return None;
        }
        self.doc_op = Some(true);
        let from = self.c.below(docs.len());
        let mut copy = docs[from].clone();
        let stem = copy
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(V::str)
            .unwrap_or("doc")
            .to_string();
        let name = self.fresh(&format!("{stem}-copy"));
        *copy.get_mut("metadata")?.get_mut("name")? = s(&name);
        self.tweak(&mut copy);
        let at = if self.c.flag(70) {
            from + 1
        } else {
            self.c.below(docs.len() + 1)
        };
        Some(Edit::CopyDoc(at, copy))
    }

    /// A random edit of `docs`; `allowed` filters the sites (and documents) it may touch.
    pub(crate) fn edit(&mut self, docs: &mut [V], allowed: &dyn Fn(&Path) -> bool) -> Option<Edit> {
        if self.rich && self.c.flag(12) {
            if let Some(e) = self.rich_doc_edit(docs) {
                return allowed(&e.claim()).then_some(e);
            }
        }
        // Without `add_and_remove`, one document-level edit per side: the narrowing of
        // `gaps::ONE_DOCUMENT_EDIT_PER_SIDE`.
        let may = |_op: bool, g: &Gen| g.add_and_remove || g.doc_op.is_none();
        if self.c.flag(12) && may(true, self) {
            self.doc_op = Some(true);
            let kind = self.c.below(self.kinds());
            let name = self.fresh("new-");
            let d = self.document(kind, &name);
            let at = self.c.below(docs.len() + 1);
            let e = Edit::AddDoc(at, d);
            return allowed(&e.claim()).then_some(e);
        }
        if docs.len() > 1 && self.c.flag(8) && may(false, self) {
            self.doc_op = Some(false);
            let id = doc_id(self.c.pick(docs));
            let e = Edit::Remove(vec![Seg::Doc(id)]);
            return allowed(&e.claim()).then_some(e);
        }
        // A site may be refused itself yet take a new key or element (ours edited a sibling).
        let probe = |p: &Path, s: Seg| {
            let mut p = p.clone();
            p.push(s);
            allowed(&p)
        };
        let all: Vec<(Path, Site)> = sites(docs)
            .into_iter()
            .filter(|(p, site)| {
                allowed(p)
                    || (*site == Site::Map && probe(p, Seg::Key("\u{0}".into())))
                    || (*site == Site::Assoc && probe(p, Seg::Elem("\u{0}".into())))
            })
            .collect();
        if all.is_empty() {
            return None;
        }
        // Rich edits favour lists, where copies and reorders confuse git's alignment.
        let lists: Vec<(Path, Site)> = all
            .iter()
            .filter(|(_, site)| matches!(site, Site::Assoc | Site::Plain))
            .cloned()
            .collect();
        let all = if self.rich && !lists.is_empty() && self.c.flag(35) {
            lists
        } else {
            all
        };
        let (path, site) = all[self.c.below(all.len())].clone();
        let e = self.edit_at(docs, &path, site)?;
        allowed(&e.claim()).then_some(e)
    }

    /// 1–`max` edits applied in turn; returns them with the edited documents.
    pub(crate) fn edits(
        &mut self,
        base: &[V],
        max: usize,
        allowed: &dyn Fn(&Path) -> bool,
    ) -> (Vec<Edit>, Vec<V>) {
        self.doc_op = None;
        let mut docs = base.to_vec();
        let mut edits = Vec::new();
        let wanted = 1 + self.c.below(max);
        let mut tries = 0;
        while edits.len() < wanted && tries < 4 * max + 8 {
            tries += 1;
            if let Some(e) = self.edit(&mut docs, allowed) {
                let before = docs.clone();
                if apply(&mut docs, &e) {
                    if !self.empties && empty_collections(&docs) > empty_collections(&before) {
                        docs = before;
                    } else {
                        edits.push(e);
                    }
                }
            }
        }
        (edits, docs)
    }
}
