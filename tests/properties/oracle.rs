//! The reference merge for `--on-conflict theirs`: the seeds' merge3 rules over plain values,
//! as kyaml applies them, with the list-key rule of DESIGN.md.

use super::*;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ListKind {
    Keyed(Vec<String>),
    Set,
    Plain,
}

/// `group/Kind` → list path → kind, from the Kubernetes schema table.
pub(crate) fn schema() -> &'static HashMap<String, HashMap<String, ListKind>> {
    static TABLE: OnceLock<HashMap<String, HashMap<String, ListKind>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let json: serde_json::Value =
            serde_json::from_str(include_str!("../../src/resource/k8s-list-keys.json"))
                .expect("the schema table is JSON");
        let mut table = HashMap::new();
        for (kind, fields) in json["kinds"].as_object().expect("kinds") {
            let mut paths = HashMap::new();
            for (path, info) in fields.as_object().expect("fields") {
                let keys: Vec<String> = info["keys"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|k| k.as_str().map(String::from))
                            .collect()
                    })
                    .unwrap_or_default();
                let kind = match info["list_type"].as_str() {
                    Some("map") if !keys.is_empty() => ListKind::Keyed(keys),
                    Some("set") => ListKind::Set,
                    _ => ListKind::Plain,
                };
                paths.insert(path.clone(), kind);
            }
            table.insert(kind.clone(), paths);
        }
        table
    })
}

pub(crate) const SEED_KEYS: [&str; 7] = [
    "mountPath",
    "devicePath",
    "ip",
    "type",
    "topologyKey",
    "name",
    "containerPort",
];

/// The seeds' merge3 rules over plain values, as kyaml applies them
/// (`notes/kyaml-semantics.md` §1–§2.6), with DESIGN.md's list keys.
pub(crate) struct Oracle {
    /// kyaml: a resource ours deleted comes back whenever theirs still has it, changed or
    /// not (§1 rule 2). False: only when theirs changed it.
    pub(crate) resurrect_unchanged: bool,
    /// kyaml: a map or list ours deleted that theirs still has comes back as the "delta"
    /// between base and theirs even when that is empty, so an unchanged deleted `spec` returns
    /// as a skeleton of `{}` and `[]` (§2.3 rule 3, §2.5 rule 2); and a map theirs deleted
    /// that ours left unchanged stays as the `{}`s of its nested maps (§2.3 rule 4). False:
    /// both are gone (where the other side changed the map, both agree on the skeleton).
    pub(crate) empty_skeletons: bool,
    /// kyaml: an element theirs deleted that ours changed survives as what ours added to it
    /// plus its key, a partial element (§2.5). False: it is deleted.
    pub(crate) partial_elements: bool,
}

pub(crate) fn missing_or_null(x: Option<&D>) -> bool {
    matches!(x, None | Some(D::Null))
}

pub(crate) fn is_null(x: Option<&D>) -> bool {
    matches!(x, Some(D::Null))
}

pub(crate) fn group_kind(d: &D) -> String {
    let api = d.get("apiVersion").map(D::key_text).unwrap_or_default();
    let kind = d.get("kind").map(D::key_text).unwrap_or_default();
    match api.rsplit_once('/') {
        Some((g, _)) if !g.is_empty() => format!("{g}/{kind}"),
        _ => kind,
    }
}

pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl Oracle {
    /// kyaml's own behaviour, for checking the reference against its recorded results.
    pub(crate) fn kyaml() -> Oracle {
        Oracle {
            resurrect_unchanged: true,
            empty_skeletons: true,
            partial_elements: true,
        }
    }

    /// The engine's choices where it differs from kyaml, each a listed gap.
    pub(crate) fn engine() -> Oracle {
        Oracle {
            resurrect_unchanged: !gaps::KYAML_RESURRECTS_UNCHANGED.in_force,
            empty_skeletons: !gaps::KYAML_EMPTY_SKELETONS.in_force,
            partial_elements: !gaps::KYAML_PARTIAL_ELEMENTS.in_force,
        }
    }

    pub(crate) fn merge_files(&self, base: &[D], ours: &[D], theirs: &[D]) -> Vec<D> {
        if base.len() == 1 && ours.len() == 1 && theirs.len() == 1 {
            let gk = group_kind(&ours[0]);
            return self
                .merge_map(&gk, "", Some(&ours[0]), Some(&base[0]), Some(&theirs[0]))
                .into_iter()
                .collect();
        }
        let find = |docs: &[D], id: &str| docs.iter().find(|d| identity(d) == id).cloned();
        let mut ids: Vec<String> = Vec::new();
        for d in ours.iter().chain(theirs).chain(base) {
            let id = identity(d);
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        let mut out = Vec::new();
        for id in ids {
            let (d, o, u) = (find(ours, &id), find(base, &id), find(theirs, &id));
            match (&d, &o, &u) {
                (Some(d), None, None) => out.push(d.clone()),
                (None, _, Some(u)) => {
                    if self.resurrect_unchanged || o.as_ref() != Some(u) {
                        out.push(u.clone());
                    }
                }
                (_, Some(_), None) | (None, _, None) => {}
                (Some(d), _, Some(u)) => {
                    let gk = group_kind(d);
                    out.extend(self.merge_map(&gk, "", Some(d), o.as_ref(), Some(u)));
                }
            }
        }
        out
    }

    /// Any field: its kind is the kind of the first of ours, base, theirs that is present and
    /// not null (§2).
    pub(crate) fn merge(
        &self,
        gk: &str,
        path: &str,
        d: Option<&D>,
        o: Option<&D>,
        u: Option<&D>,
    ) -> Option<D> {
        let first = [d, o, u].into_iter().flatten().find(|x| **x != D::Null);
        let kind = |x: &D| match x {
            D::Map(_) => 0,
            D::Seq(_) => 1,
            _ => 2,
        };
        let clash = [d, o, u]
            .into_iter()
            .flatten()
            .filter(|x| **x != D::Null)
            .any(|x| first.is_some_and(|f| kind(f) != kind(x)));
        if clash {
            // kyaml fails the merge ("wrong node kind"); the engine takes the value whole:
            // `gaps::KYAML_FAILS_ON_KIND_CLASH`.
            return merge_scalar_like(d, o, u);
        }
        match first {
            None | Some(D::Map(_)) => self.merge_map(gk, path, d, o, u),
            Some(D::Seq(_)) => {
                let lists: Vec<&Vec<D>> = [o, d, u]
                    .into_iter()
                    .filter_map(|x| match x {
                        Some(D::Seq(items)) => Some(items),
                        _ => None,
                    })
                    .collect();
                match list_kind(gk, path, &lists) {
                    ListKind::Keyed(keys) => self.merge_assoc(gk, path, &keys, d, o, u),
                    ListKind::Set => merge_set(d, o, u),
                    ListKind::Plain => merge_scalar_like(d, o, u),
                }
            }
            Some(_) => merge_scalar_like(d, o, u),
        }
    }

    /// §2.3.
    pub(crate) fn merge_map(
        &self,
        gk: &str,
        path: &str,
        d: Option<&D>,
        o: Option<&D>,
        u: Option<&D>,
    ) -> Option<D> {
        if is_null(u) || is_null(d) {
            return None;
        }
        if d.is_none() && u.is_none() {
            return None;
        }
        let fields = |x: Option<&D>| match x {
            Some(D::Map(m)) => m.clone(),
            _ => BTreeMap::new(),
        };
        let (dm, om, um) = (fields(d), fields(o), fields(u));
        let mut out = dm.clone();
        let names: HashSet<&String> = dm.keys().chain(om.keys()).chain(um.keys()).collect();
        for k in names {
            let r = self.merge(gk, &join(path, k), dm.get(k), om.get(k), um.get(k));
            match r {
                Some(v) => {
                    out.insert(k.clone(), v);
                }
                None => {
                    out.remove(k);
                }
            }
        }
        // Emptied here: deleted by ours and unchanged in theirs, or deleted by theirs with
        // nothing of ours' left.
        let emptied = (d.is_none() && !missing_or_null(o) && o == u)
            || (!dm.is_empty() && u.is_none() && d == o);
        if out.is_empty() && emptied && !self.empty_skeletons {
            return None;
        }
        Some(D::Map(out))
    }

    /// §2.5: elements paired by key, each merged as a map.
    pub(crate) fn merge_assoc(
        &self,
        gk: &str,
        path: &str,
        keys: &[String],
        d: Option<&D>,
        o: Option<&D>,
        u: Option<&D>,
    ) -> Option<D> {
        if missing_or_null(u) && !missing_or_null(o) {
            return None;
        }
        let items = |x: Option<&D>| match x {
            Some(D::Seq(items)) => items.clone(),
            _ => Vec::new(),
        };
        let (dl, ol, ul) = (items(d), items(o), items(u));
        let key = |e: &D| -> String {
            keys.iter()
                .map(|k| match e.get(k) {
                    Some(v) if *v != D::Null => v.key_text(),
                    _ if k == "protocol" => "TCP".into(),
                    _ => String::new(),
                })
                .collect::<Vec<_>>()
                .join("\u{0}")
        };
        let mut result = dl.clone();
        let mut order: Vec<String> = Vec::new();
        for e in dl.iter().chain(&ol).chain(&ul) {
            let k = key(e);
            if !order.contains(&k) {
                order.push(k);
            }
        }
        let elem_path = format!("{path}[]");
        for k in order {
            let find = |l: &[D]| l.iter().find(|e| key(e) == k).cloned();
            let (de, oe, ue) = (find(&dl), find(&ol), find(&ul));
            let deleted_by_theirs = de.is_some() && oe.is_some() && ue.is_none();
            let merged = self
                .merge_map(gk, &elem_path, de.as_ref(), oe.as_ref(), ue.as_ref())
                .filter(|m| *m != D::Map(BTreeMap::new()))
                .filter(|_| self.partial_elements || !deleted_by_theirs);
            let at = result.iter().position(|e| key(e) == k);
            match (merged, at) {
                (None, Some(i)) => {
                    result.remove(i);
                }
                (None, None) => {}
                (Some(D::Map(mut m)), at) => {
                    // The key goes back in.
                    for kf in keys {
                        if !m.contains_key(kf) {
                            let v = [&de, &oe, &ue]
                                .into_iter()
                                .find_map(|e| e.as_ref().and_then(|e| e.get(kf)).cloned());
                            if let Some(v) = v {
                                m.insert(kf.clone(), v);
                            }
                        }
                    }
                    match at {
                        Some(i) => result[i] = D::Map(m),
                        None => result.push(D::Map(m)),
                    }
                }
                (Some(other), _) => result.push(other),
            }
        }
        if result.is_empty()
            && d.is_none()
            && !missing_or_null(o)
            && o == u
            && !self.empty_skeletons
        {
            return None;
        }
        Some(D::Seq(result))
    }
}

/// §2.1 and §2.4: scalars and non-associative lists, a value taken whole.
pub(crate) fn merge_scalar_like(d: Option<&D>, o: Option<&D>, u: Option<&D>) -> Option<D> {
    if is_null(u) || is_null(d) {
        return None;
    }
    if missing_or_null(o) != missing_or_null(u) {
        return u.cloned();
    }
    if missing_or_null(o) && missing_or_null(u) {
        return d.cloned();
    }
    if u != o {
        return u.cloned();
    }
    d.cloned()
}

/// §2.5, primitive associative lists (`finalizers`): a 3-way set merge.
pub(crate) fn merge_set(d: Option<&D>, o: Option<&D>, u: Option<&D>) -> Option<D> {
    if missing_or_null(u) && !missing_or_null(o) {
        return None;
    }
    let items = |x: Option<&D>| match x {
        Some(D::Seq(items)) => items.clone(),
        _ => Vec::new(),
    };
    let (dl, ol, ul) = (items(d), items(o), items(u));
    let mut out: Vec<D> = dl
        .iter()
        .filter(|v| !ol.contains(v) || ul.contains(v))
        .cloned()
        .collect();
    for v in &ul {
        if !ol.contains(v) && !out.contains(v) {
            out.push(v.clone());
        }
    }
    Some(D::Seq(out))
}

/// The schema table for built-in kinds, then the first seed key every element of every
/// version's list carries with unique values; with an element lacking the key, or a repeated
/// key, the list is plain (as the engine treats it).
pub(crate) fn list_kind(gk: &str, path: &str, lists: &[&Vec<D>]) -> ListKind {
    let known = schema().get(gk).and_then(|t| t.get(path)).cloned();
    let kind = known.unwrap_or_else(|| {
        SEED_KEYS
            .iter()
            .find(|k| {
                lists.iter().all(|l| {
                    let mut seen = HashSet::new();
                    l.iter().all(|e| match e.get(k) {
                        Some(v @ (D::Str(_) | D::Num(_) | D::Bool(_))) => seen.insert(v.key_text()),
                        _ => false,
                    })
                })
            })
            .map_or(ListKind::Plain, |k| ListKind::Keyed(vec![k.to_string()]))
    });
    if let ListKind::Keyed(keys) = &kind {
        let usable = lists.iter().all(|l| {
            let mut seen = HashSet::new();
            l.iter().all(|e| {
                let first = matches!(e.get(&keys[0]), Some(v) if v.str().is_some() || matches!(v, D::Bool(_)));
                let k: Vec<String> = keys
                    .iter()
                    .map(|k| match e.get(k) {
                        Some(v) if *v != D::Null => v.key_text(),
                        _ if k == "protocol" => "TCP".into(),
                        _ => String::new(),
                    })
                    .collect();
                first && seen.insert(k)
            })
        });
        if !usable {
            return ListKind::Plain;
        }
    }
    kind
}
