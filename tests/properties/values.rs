//! The generated values and the small block-style serializer that writes them, in either
//! sequence style.

/// How a string is written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Q {
    Plain,
    Single,
    Double,
}

/// A generated value. Maps keep their order (the order they are written in).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum V {
    Null,
    Bool(bool),
    Int(i64),
    Str(String, Q),
    Map(Vec<(String, V)>),
    Seq(Vec<V>),
}

pub(crate) fn s(x: &str) -> V {
    V::Str(x.to_string(), Q::Plain)
}

pub(crate) fn map(entries: Vec<(&str, V)>) -> V {
    V::Map(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

impl V {
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        match self {
            V::Map(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        match self {
            V::Map(m) => m.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub(crate) fn str(&self) -> Option<&str> {
        match self {
            V::Str(s, _) => Some(s),
            _ => None,
        }
    }
}

/// Whether a string must be quoted to stay a string: it reads as another type, is empty, or
/// holds YAML punctuation.
pub(crate) fn needs_quotes(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    s.is_empty()
        || s.parse::<f64>().is_ok()
        || matches!(
            lower.as_str(),
            "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off" | "y" | "n"
        )
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.ends_with(' ')
        || s.starts_with(|c: char| "-?:,[]{}#&*!|>'\"%@` ".contains(c))
}

pub(crate) fn scalar_text(v: &V) -> String {
    match v {
        V::Null => "null".into(),
        V::Bool(b) => b.to_string(),
        V::Int(n) => n.to_string(),
        V::Str(s, q) => {
            let q = if *q == Q::Plain && needs_quotes(s) {
                Q::Double
            } else {
                *q
            };
            match q {
                Q::Plain => s.clone(),
                Q::Single => format!("'{}'", s.replace('\'', "''")),
                Q::Double => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
            }
        }
        V::Map(m) if m.is_empty() => "{}".into(),
        V::Seq(s) if s.is_empty() => "[]".into(),
        V::Map(_) | V::Seq(_) => unreachable!("collections are written as blocks"),
    }
}

/// How a file is written.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Style {
    /// Sequences under a key start at the key's column (`key:\n- a`) rather than two further.
    pub(crate) flush: bool,
    /// The first document starts with `---` too.
    pub(crate) lead: bool,
}

pub(crate) fn render_file(docs: &[V], style: Style) -> String {
    let mut out = String::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 || style.lead {
            out.push_str("---\n");
        }
        match d {
            V::Map(m) if !m.is_empty() => render_map(&mut out, m, 0, None, style),
            other => {
                out.push_str(&scalar_text(other));
                out.push('\n');
            }
        }
    }
    out
}

/// A block map at column `indent`; `first` replaces the first line's indentation (`- `).
pub(crate) fn render_map(
    out: &mut String,
    m: &[(String, V)],
    indent: usize,
    first: Option<&str>,
    st: Style,
) {
    for (n, (k, v)) in m.iter().enumerate() {
        match first {
            Some(prefix) if n == 0 => out.push_str(prefix),
            _ => out.push_str(&" ".repeat(indent)),
        }
        out.push_str(k);
        out.push(':');
        match v {
            V::Map(inner) if !inner.is_empty() => {
                out.push('\n');
                render_map(out, inner, indent + 2, None, st);
            }
            V::Seq(items) if !items.is_empty() => {
                out.push('\n');
                render_seq(out, items, if st.flush { indent } else { indent + 2 }, st);
            }
            scalar => {
                out.push(' ');
                out.push_str(&scalar_text(scalar));
                out.push('\n');
            }
        }
    }
}

pub(crate) fn render_seq(out: &mut String, items: &[V], indent: usize, st: Style) {
    let dash = format!("{}- ", " ".repeat(indent));
    for item in items {
        match item {
            V::Map(m) if !m.is_empty() => render_map(out, m, indent + 2, Some(&dash), st),
            V::Seq(inner) if !inner.is_empty() => {
                // Not generated; written in flow style to stay valid.
                let parts: Vec<String> = inner.iter().map(scalar_text).collect();
                out.push_str(&format!("{dash}[{}]\n", parts.join(", ")));
            }
            scalar => {
                out.push_str(&dash);
                out.push_str(&scalar_text(scalar));
                out.push('\n');
            }
        }
    }
}
