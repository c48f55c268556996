//! The generator's random choices and the documents it builds from them: Deployments,
//! ConfigMaps, Services, RBAC Roles and a custom `Widget`, and the test that it makes every
//! style and edit the properties claim to cover.

use super::*;

/// Reads the choice stream; past its end every choice is 0, the simplest option.
pub(crate) struct Choices<'a> {
    pub(crate) data: &'a [u32],
    pub(crate) at: usize,
}

impl Choices<'_> {
    pub(crate) fn next(&mut self) -> u32 {
        let v = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        v
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.next() as usize % n
        }
    }

    /// True with `percent` % probability; a 0 choice is false.
    pub(crate) fn flag(&mut self, percent: u32) -> bool {
        self.next() % 100 >= 100 - percent
    }

    pub(crate) fn word(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len())]
    }

    pub(crate) fn pick<'x, T>(&mut self, xs: &'x [T]) -> &'x T {
        &xs[self.below(xs.len())]
    }
}

pub(crate) const NAMES: [&str; 8] = [
    "web", "api", "cache", "db", "worker", "proxy", "auth", "queue",
];
pub(crate) const NAMESPACES: [&str; 3] = ["default", "shop", "prod"];
pub(crate) const WORDS: [&str; 14] = [
    "alpha",
    "beta",
    "gamma",
    "blue",
    "green",
    "fast",
    "slow",
    "v1",
    "stable",
    "canary",
    "info",
    "debug",
    "it's",
    "eu-west-1",
];
/// Strings that read as something else unless quoted, or hold punctuation.
pub(crate) const ODD: [&str; 10] = [
    "30",
    "true",
    "8080",
    "",
    "a: b",
    "# not a comment",
    "yes",
    "1.5",
    "null",
    "0777",
];
pub(crate) const LABEL_KEYS: [&str; 5] = [
    "tier",
    "team",
    "env",
    "app.kubernetes.io/part-of",
    "version",
];
pub(crate) const ANNOTATION_KEYS: [&str; 4] = [
    "example.com/owner",
    "note",
    "checksum/config",
    "kubectl.kubernetes.io/restartedAt",
];
pub(crate) const ENV_NAMES: [&str; 6] = ["LOG_LEVEL", "TIMEOUT", "PORT", "MODE", "DEBUG", "REGION"];
pub(crate) const ARGS: [&str; 6] = [
    "--verbose",
    "--port=8080",
    "serve",
    "--config",
    "/etc/app.yaml",
    "--workers=4",
];
pub(crate) const PORTS: [i64; 5] = [80, 443, 8080, 9090, 53];
pub(crate) const DATA_KEYS: [&str; 5] =
    ["LOG_LEVEL", "config.yaml", "timeout", "replicas", "feature"];
pub(crate) const API_GROUPS: [&str; 3] = ["", "apps", "batch"];
pub(crate) const RESOURCES: [&str; 6] = [
    "pods",
    "services",
    "configmaps",
    "deployments",
    "jobs",
    "secrets",
];
pub(crate) const VERBS: [&str; 6] = ["get", "list", "watch", "create", "update", "delete"];

/// Builds documents and edits from the choice stream. `tag` goes into every fresh name, so
/// names ours and theirs invent never collide when it differs between them.
pub(crate) struct Gen<'a> {
    pub(crate) c: Choices<'a>,
    pub(crate) fresh: usize,
    pub(crate) tag: &'static str,
    /// Whether edits may set values to null.
    pub(crate) nulls: bool,
    /// Whether an edit may empty a map or list (which the serializer writes as `{}`/`[]`).
    pub(crate) empties: bool,
    /// Whether one side may both add and remove documents (which the engine may pair as a
    /// rename).
    pub(crate) add_and_remove: bool,
    /// What this side did to whole documents so far: added (true) or removed (false).
    pub(crate) doc_op: Option<bool>,
    /// The edits of real hands that git's line merge aligns wrongly (issue 10, §3): copies
    /// of elements and documents, reorders, moved keys, emptied collections, nulls on any
    /// value, and RBAC `Role`s whose `rules` have no merge key. Off, the generator makes
    /// exactly what it made before they were added, so the older properties keep their cases.
    pub(crate) rich: bool,
}

impl Gen<'_> {
    /// A generator over the choices `data` with the settings the properties share: nulls and
    /// emptied collections on, the rich edits off.
    pub(crate) fn new(data: &[u32]) -> Gen<'_> {
        Gen {
            c: Choices { data, at: 0 },
            fresh: 0,
            tag: "",
            nulls: true,
            empties: true,
            add_and_remove: !gaps::ONE_DOCUMENT_EDIT_PER_SIDE.in_force,
            doc_op: None,
            rich: false,
        }
    }

    pub(crate) fn fresh(&mut self, stem: &str) -> String {
        self.fresh += 1;
        format!("{stem}{}{}", self.tag, self.fresh)
    }

    pub(crate) fn string(&mut self) -> V {
        if self.c.flag(20) {
            V::Str(self.c.pick(&ODD).to_string(), Q::Double)
        } else {
            let word = self.c.pick(&WORDS).to_string();
            let q = *self.c.pick(&[Q::Plain, Q::Plain, Q::Single, Q::Double]);
            V::Str(word, q)
        }
    }

    pub(crate) fn scalar(&mut self) -> V {
        match self.c.below(4) {
            0 | 1 => self.string(),
            2 => V::Int(self.c.below(1000) as i64),
            _ => V::Bool(self.c.flag(50)),
        }
    }

    pub(crate) fn metadata(&mut self, name: &str) -> V {
        let mut m = vec![("name".to_string(), s(name))];
        if self.c.flag(50) {
            m.push(("namespace".into(), s(self.c.word(&NAMESPACES))));
        }
        if self.c.flag(60) {
            let mut labels = vec![("app".to_string(), s(name))];
            for _ in 0..self.c.below(3) {
                let k = self.c.pick(&LABEL_KEYS).to_string();
                if !labels.iter().any(|(x, _)| *x == k) {
                    let v = self.string();
                    labels.push((k, v));
                }
            }
            m.push(("labels".into(), V::Map(labels)));
        }
        if self.c.flag(40) {
            let mut ann = Vec::new();
            for _ in 0..1 + self.c.below(3) {
                let k = self.c.pick(&ANNOTATION_KEYS).to_string();
                if !ann.iter().any(|(x, _): &(String, V)| *x == k) {
                    let v = self.string();
                    ann.push((k, v));
                }
            }
            m.push(("annotations".into(), V::Map(ann)));
        }
        V::Map(m)
    }

    pub(crate) fn env_var(&mut self, name: &str) -> V {
        let value = self.string();
        map(vec![("name", s(name)), ("value", value)])
    }

    /// A port whose key (`containerPort`/`port` and protocol) is not in `taken`.
    pub(crate) fn port(&mut self, key: &str, taken: &[V]) -> Option<V> {
        let n = *self.c.pick(&PORTS);
        let proto = match self.c.below(4) {
            0 | 1 => None,
            2 => Some("TCP"),
            _ => Some("UDP"),
        };
        let id = format!("{n}/{}", proto.unwrap_or("TCP"));
        if taken
            .iter()
            .any(|p| elem_id("ports", p).as_deref() == Some(&id))
        {
            return None;
        }
        let mut m = vec![(key.to_string(), V::Int(n))];
        if key == "port" {
            m.push(("targetPort".into(), V::Int(n + 8000)));
        }
        if let Some(p) = proto {
            m.push(("protocol".into(), s(p)));
        }
        if self.c.flag(30) {
            m.push(("name".into(), s(&format!("p{n}{}", proto.unwrap_or("")))));
        }
        Some(V::Map(m))
    }

    pub(crate) fn container(&mut self, name: &str) -> V {
        let image = format!("registry.example.com/shop/{name}:1.{}.0", self.c.below(10));
        let mut m = vec![("name".to_string(), s(name)), ("image".into(), s(&image))];
        if self.c.flag(30) {
            m.push(("imagePullPolicy".into(), s("IfNotPresent")));
        }
        if self.c.flag(40) {
            let args = (0..1 + self.c.below(4))
                .map(|_| s(self.c.word(&ARGS)))
                .collect();
            m.push(("args".into(), V::Seq(args)));
        }
        if self.c.flag(50) {
            let mut env: Vec<V> = Vec::new();
            for _ in 0..1 + self.c.below(3) {
                let n = *self.c.pick(&ENV_NAMES);
                if !env
                    .iter()
                    .any(|e| e.get("name").and_then(V::str) == Some(n))
                {
                    env.push(self.env_var(n));
                }
            }
            m.push(("env".into(), V::Seq(env)));
        }
        if self.c.flag(40) {
            let mut ports = Vec::new();
            for _ in 0..1 + self.c.below(2) {
                if let Some(p) = self.port("containerPort", &ports) {
                    ports.push(p);
                }
            }
            m.push(("ports".into(), V::Seq(ports)));
        }
        if self.c.flag(25) {
            m.push((
                "resources".into(),
                map(vec![(
                    "limits",
                    map(vec![
                        ("cpu", V::Str("500m".into(), Q::Double)),
                        ("memory", s("128Mi")),
                    ]),
                )]),
            ));
        }
        V::Map(m)
    }

    pub(crate) fn document(&mut self, kind: usize, name: &str) -> V {
        let metadata = self.metadata(name);
        match kind {
            0 => {
                let mut containers = vec![self.container(name)];
                for _ in 0..self.c.below(2) {
                    let n = self.fresh("side");
                    containers.push(self.container(&n));
                }
                map(vec![
                    ("apiVersion", s("apps/v1")),
                    ("kind", s("Deployment")),
                    ("metadata", metadata),
                    (
                        "spec",
                        map(vec![
                            ("replicas", V::Int(1 + self.c.below(5) as i64)),
                            (
                                "selector",
                                map(vec![("matchLabels", map(vec![("app", s(name))]))]),
                            ),
                            (
                                "template",
                                map(vec![
                                    (
                                        "metadata",
                                        map(vec![("labels", map(vec![("app", s(name))]))]),
                                    ),
                                    ("spec", map(vec![("containers", V::Seq(containers))])),
                                ]),
                            ),
                        ]),
                    ),
                ])
            }
            1 => {
                let mut data: Vec<(String, V)> = Vec::new();
                for _ in 0..1 + self.c.below(4) {
                    let k = self.c.pick(&DATA_KEYS).to_string();
                    if !data.iter().any(|(x, _)| *x == k) {
                        let v = self.string();
                        data.push((k, v));
                    }
                }
                map(vec![
                    ("apiVersion", s("v1")),
                    ("kind", s("ConfigMap")),
                    ("metadata", metadata),
                    ("data", V::Map(data)),
                ])
            }
            2 => {
                let mut ports = Vec::new();
                for _ in 0..1 + self.c.below(2) {
                    if let Some(p) = self.port("port", &ports) {
                        ports.push(p);
                    }
                }
                map(vec![
                    ("apiVersion", s("v1")),
                    ("kind", s("Service")),
                    ("metadata", metadata),
                    (
                        "spec",
                        map(vec![
                            ("type", s("ClusterIP")),
                            ("selector", map(vec![("app", s(name))])),
                            ("ports", V::Seq(ports)),
                        ]),
                    ),
                ])
            }
            3 => {
                let mut settings = Vec::new();
                for i in 0..1 + self.c.below(3) {
                    let v = if self.c.flag(30) {
                        let a = self.scalar();
                        let b = self.scalar();
                        map(vec![("enabled", a), ("level", b)])
                    } else {
                        self.scalar()
                    };
                    settings.push((format!("opt{i}"), v));
                }
                let mut spec = vec![("settings".to_string(), V::Map(settings))];
                if self.c.flag(60) {
                    let items = (0..1 + self.c.below(3))
                        .map(|i| {
                            let v = self.scalar();
                            map(vec![("name", s(&format!("item{i}"))), ("value", v)])
                        })
                        .collect();
                    spec.push(("items".into(), V::Seq(items)));
                }
                if self.c.flag(50) {
                    let tags = (0..1 + self.c.below(3))
                        .map(|_| s(self.c.word(&WORDS)))
                        .collect();
                    spec.push(("tags".into(), V::Seq(tags)));
                }
                map(vec![
                    ("apiVersion", s("example.com/v1")),
                    ("kind", s("Widget")),
                    ("metadata", metadata),
                    ("spec", V::Map(spec)),
                ])
            }
            _ => {
                let rules = (0..1 + self.c.below(3)).map(|_| self.rule()).collect();
                map(vec![
                    ("apiVersion", s("rbac.authorization.k8s.io/v1")),
                    ("kind", s("Role")),
                    ("metadata", metadata),
                    ("rules", V::Seq(rules)),
                ])
            }
        }
    }

    /// How many kinds of document `document` makes: the `Role` only in rich mode.
    pub(crate) fn kinds(&self) -> usize {
        if self.rich {
            5
        } else {
            4
        }
    }

    /// 1–`max` distinct words of `pool`, in pool order.
    pub(crate) fn word_list(&mut self, pool: &[&str], max: usize) -> V {
        let mut picked: Vec<&str> = Vec::new();
        for _ in 0..1 + self.c.below(max) {
            let w = *self.c.pick(pool);
            if !picked.contains(&w) {
                picked.push(w);
            }
        }
        picked.sort_by_key(|w| pool.iter().position(|p| p == w));
        V::Seq(picked.into_iter().map(s).collect())
    }

    /// An RBAC rule: a map in a list without a merge key (the schema calls `rules` atomic).
    pub(crate) fn rule(&mut self) -> V {
        let groups = self.word_list(&API_GROUPS, 2);
        let resources = self.word_list(&RESOURCES, 3);
        let verbs = self.word_list(&VERBS, 3);
        map(vec![
            ("apiGroups", groups),
            ("resources", resources),
            ("verbs", verbs),
        ])
    }

    /// 1–4 documents with distinct identities.
    pub(crate) fn file(&mut self) -> Vec<V> {
        let mut docs: Vec<V> = Vec::new();
        for _ in 0..1 + self.c.below(4) {
            let kind = self.c.below(self.kinds());
            let mut name = self.c.pick(&NAMES).to_string();
            let candidate = self.document(kind, &name);
            if docs.iter().any(|d| doc_id(d) == doc_id(&candidate)) {
                name = self.fresh(&name);
                docs.push(self.document(kind, &name));
            } else {
                docs.push(candidate);
            }
        }
        docs
    }

    pub(crate) fn style(&mut self) -> Style {
        Style {
            flush: self.c.flag(50),
            lead: self.c.flag(30),
        }
    }
}

/// The generator really makes what the properties claim to cover: both sequence styles, all
/// three string styles, several kinds and documents, and every kind of edit.
#[test]
fn generator_covers_its_styles() {
    let mut runner = TestRunner::new(config(1000));
    let seen = std::cell::RefCell::new(HashSet::new());
    runner
        .run(&choices(), |data| {
            let mut g = Gen {
                rich: true,
                ..Gen::new(&data)
            };
            let docs = g.file();
            let style = g.style();
            let (edits, _) = g.edits(&docs, 3, &|_| true);
            let text = render_file(&docs, style);
            let mut seen = seen.borrow_mut();
            let mut mark = |what: &str, yes: bool| {
                if yes {
                    seen.insert(what.to_string());
                }
            };
            // A sequence under a key: its dash at the key's column, or two further.
            let lines: Vec<&str> = text.lines().collect();
            for pair in lines.windows(2) {
                let indent = |l: &str| l.len() - l.trim_start().len();
                if pair[0].ends_with(':') && pair[1].trim_start().starts_with("- ") {
                    let (key, dash) = (indent(pair[0]), indent(pair[1]));
                    mark("flush sequences", dash == key);
                    mark("indented sequences", dash == key + 2);
                }
            }
            mark("single quotes", text.contains(": '"));
            mark("double quotes", text.contains(": \""));
            mark("several documents", docs.len() > 1);
            for kind in ["Deployment", "ConfigMap", "Service", "Widget", "Role"] {
                mark(kind, text.contains(&format!("kind: {kind}\n")));
            }
            for e in &edits {
                let name = format!("{e:?}");
                mark(name.split('(').next().unwrap_or(""), true);
                match e {
                    Edit::Set(p, V::Null) => {
                        mark(
                            "null on a scalar",
                            sites(&docs).contains(&(p.clone(), Site::Scalar)),
                        );
                        mark(
                            "null on a collection",
                            !sites(&docs).contains(&(p.clone(), Site::Scalar)),
                        );
                    }
                    Edit::AddElem(p, _, e) if last_key(p) == "ports" => {
                        mark("port without protocol", e.get("protocol").is_none());
                        mark("port with protocol", e.get("protocol").is_some());
                    }
                    Edit::CopyElem(p, _, _) => {
                        mark("copied container", last_key(p) == "containers")
                    }
                    Edit::Empty(p) => {
                        let list = matches!(node_mut(&mut docs.clone(), p), Some(V::Seq(_)));
                        mark("emptied list", list);
                        mark("emptied map", !list);
                    }
                    Edit::ReorderList(p, _) => mark("reordered rules", last_key(p) == "rules"),
                    Edit::SetList(p, _) => mark("edited rules", last_key(p) == "rules"),
                    _ => {}
                }
            }
            Ok(())
        })
        .unwrap();
    let seen = seen.into_inner();
    let wanted = [
        "flush sequences",
        "indented sequences",
        "single quotes",
        "double quotes",
        "several documents",
        "Deployment",
        "ConfigMap",
        "Service",
        "Widget",
        "Role",
        "Set",
        "Remove",
        "AddKey",
        "AddElem",
        "SetList",
        "AddDoc",
        "CopyElem",
        "CopyDoc",
        "MoveDoc",
        "MoveElem",
        "ReorderList",
        "MoveKey",
        "Empty",
        "null on a scalar",
        "null on a collection",
        "port without protocol",
        "port with protocol",
        "copied container",
        "emptied list",
        "emptied map",
        "reordered rules",
        "edited rules",
    ];
    let missing: Vec<&str> = wanted.into_iter().filter(|w| !seen.contains(*w)).collect();
    assert!(missing.is_empty(), "the generator never made: {missing:?}");
}
