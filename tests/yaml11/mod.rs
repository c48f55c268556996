//! YAML loaded as data the way PyYAML's `SafeLoader` loads it (YAML 1.1 typing), so the
//! conformance vectors compare in Rust exactly as `check.py` compares them, with no Python.
//!
//! YAML 1.1 types plain scalars differently from 1.2: `yes`/`no`/`on`/`off` are booleans,
//! `0777` is octal, `1_000` and `1:20` (base 60) are integers, `1e3` is a string (a float
//! needs a dot). The rules below are PyYAML's implicit resolvers and constructors, in its
//! order. Mappings compare without order, sequences in order; a repeated key keeps its last
//! value and `<<` merges as in PyYAML. Events come from granit-parser, which gives each
//! scalar's style and tag.
//!
//! One deliberate difference: Python's `==` equates `1`, `1.0` and `True`; here an integer, a
//! float and a boolean always differ, since Kubernetes' own decoder tells them apart.
//!
//! Each test file that includes this module uses only part of it.
#![allow(dead_code)]

use std::cmp::Ordering;

use granit_parser::{Event, Parser, ScalarStyle, Tag};

/// A YAML 1.1 value as PyYAML constructs it.
#[derive(Clone, Debug)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    /// A `timestamp` scalar (`2002-12-14`), kept as written.
    Timestamp(String),
    Seq(Vec<Value>),
    /// Entries with unique keys, in the order written (the last value of a repeated key).
    Map(Vec<(Value, Value)>),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            // NaN differs from itself, as in Python.
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Timestamp(a), Value::Timestamp(b)) => a == b,
            (Value::Seq(a), Value::Seq(b)) => a == b,
            (Value::Map(a), Value::Map(b)) => {
                a.len() == b.len()
                    && a.iter().all(|(k, v)| {
                        b.iter()
                            .find(|(k2, _)| k2 == k)
                            .is_some_and(|(_, v2)| v2 == v)
                    })
            }
            _ => false,
        }
    }
}

impl Value {
    /// A total order for sorting keys when rendering: by kind, then content.
    fn order(&self, other: &Value) -> Ordering {
        fn rank(v: &Value) -> u8 {
            match v {
                Value::Null => 0,
                Value::Bool(_) => 1,
                Value::Int(_) => 2,
                Value::Float(_) => 3,
                Value::Str(_) => 4,
                Value::Timestamp(_) => 5,
                Value::Seq(_) => 6,
                Value::Map(_) => 7,
            }
        }
        match (self, other) {
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Float(a), Value::Float(b)) => a.total_cmp(b),
            (Value::Str(a), Value::Str(b)) | (Value::Timestamp(a), Value::Timestamp(b)) => a.cmp(b),
            (Value::Seq(a), Value::Seq(b)) => a
                .iter()
                .zip(b)
                .map(|(x, y)| x.order(y))
                .find(|o| o.is_ne())
                .unwrap_or(a.len().cmp(&b.len())),
            _ => rank(self).cmp(&rank(other)),
        }
    }

    /// The value as indented text with mapping keys sorted, for diffs of failures.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out, 0);
        out
    }

    fn render_into(&self, out: &mut String, indent: usize) {
        let pad = " ".repeat(indent);
        match self {
            Value::Seq(items) if !items.is_empty() => {
                for item in items {
                    out.push_str(&format!("{pad}-\n"));
                    item.render_into(out, indent + 2);
                }
            }
            Value::Map(entries) if !entries.is_empty() => {
                let mut sorted: Vec<&(Value, Value)> = entries.iter().collect();
                sorted.sort_by(|a, b| a.0.order(&b.0));
                for (key, value) in sorted {
                    out.push_str(&format!("{pad}{}:\n", key.scalar_text()));
                    value.render_into(out, indent + 2);
                }
            }
            other => out.push_str(&format!("{pad}{}\n", other.scalar_text())),
        }
    }

    fn scalar_text(&self) -> String {
        match self {
            Value::Null => "null".into(),
            Value::Bool(b) => b.to_string(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => format!("{f:?}"),
            Value::Str(s) => format!("{s:?}"),
            Value::Timestamp(t) => format!("timestamp {t}"),
            Value::Seq(_) => "[]".into(),
            Value::Map(_) => "{}".into(),
        }
    }
}

/// Every document of `text` as data, empty (null) documents dropped: PyYAML's
/// `[d for d in yaml.load_all(text, SafeLoader) if d is not None]`.
pub fn load_documents(text: &str) -> Result<Vec<Value>, String> {
    let mut builder = Builder::default();
    for next in Parser::new_from_str(text) {
        let (event, span) = next.map_err(|e| {
            let m = e.marker();
            format!(
                "YAML error at line {} column {}: {}",
                m.line(),
                m.col() + 1,
                e.info()
            )
        })?;
        builder
            .event(event)
            .map_err(|e| format!("line {}: {e}", span.start.line()))?;
    }
    Ok(builder
        .documents
        .into_iter()
        .filter(|d| !matches!(d, Value::Null))
        .collect())
}

/// An open collection: its anchor, its items, and for a mapping a key awaiting its value.
enum Open {
    Seq(usize, Vec<Value>),
    Map(usize, Vec<(Value, Value)>, Option<Value>),
}

#[derive(Default)]
struct Builder {
    documents: Vec<Value>,
    stack: Vec<Open>,
    anchors: std::collections::HashMap<usize, Value>,
}

impl Builder {
    fn event(&mut self, event: Event<'_>) -> Result<(), String> {
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                let value = scalar(&text, style, tag.as_deref())?;
                self.node(value, anchor);
            }
            Event::Alias(id) => {
                let value = self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| format!("alias to unknown anchor {id}"))?;
                self.node(value, 0);
            }
            Event::SequenceStart(_, anchor, tag) => {
                collection_tag(tag.as_deref(), "seq")?;
                self.stack.push(Open::Seq(anchor, Vec::new()));
            }
            Event::MappingStart(_, anchor, tag) => {
                collection_tag(tag.as_deref(), "map")?;
                self.stack.push(Open::Map(anchor, Vec::new(), None));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let value = match self.stack.pop() {
                    Some(Open::Seq(anchor, items)) => (Value::Seq(items), anchor),
                    Some(Open::Map(anchor, entries, _)) => (mapping(entries)?, anchor),
                    None => return Err("a collection closed that was never opened".into()),
                };
                self.node(value.0, value.1);
            }
            _ => {}
        }
        Ok(())
    }

    /// A complete node: a document's root, a sequence item, a mapping key or value.
    fn node(&mut self, value: Value, anchor: usize) {
        if anchor != 0 {
            self.anchors.insert(anchor, value.clone());
        }
        match self.stack.last_mut() {
            None => self.documents.push(value),
            Some(Open::Seq(_, items)) => items.push(value),
            Some(Open::Map(_, entries, key)) => match key.take() {
                None => *key = Some(value),
                Some(k) => entries.push((k, value)),
            },
        }
    }
}

/// The key PyYAML resolves `<<` to: merge the mapping(s) it names into this one.
const MERGE_KEY: &str = "\u{0}<<merge>>";

/// A mapping as PyYAML's `construct_mapping` builds it: `<<` entries merged first (earlier
/// maps of a `<<` list win over later ones), then the explicit entries, the last of a
/// repeated key winning.
fn mapping(entries: Vec<(Value, Value)>) -> Result<Value, String> {
    let mut merged: Vec<(Value, Value)> = Vec::new();
    let mut own: Vec<(Value, Value)> = Vec::new();
    for (key, value) in entries {
        if matches!(&key, Value::Str(s) if s == MERGE_KEY) {
            let maps = match value {
                Value::Map(m) => vec![m],
                Value::Seq(items) => items
                    .into_iter()
                    .map(|i| match i {
                        Value::Map(m) => Ok(m),
                        _ => Err("`<<` lists something other than mappings".to_string()),
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err("`<<` names something other than a mapping".into()),
            };
            for map in maps.into_iter().rev() {
                merged.extend(map);
            }
        } else {
            if matches!(key, Value::Seq(_) | Value::Map(_)) {
                return Err("a collection used as a mapping key (unhashable in Python)".into());
            }
            own.push((key, value));
        }
    }
    let mut unique: Vec<(Value, Value)> = Vec::new();
    for (key, value) in merged.into_iter().chain(own) {
        match unique.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => unique.push((key, value)),
        }
    }
    Ok(Value::Map(unique))
}

fn collection_tag(tag: Option<&Tag>, expected: &str) -> Result<(), String> {
    match tag {
        None => Ok(()),
        Some(t) if t.handle() == "!" && t.suffix().is_empty() => Ok(()),
        Some(t) if t.core_suffix() == Some(expected) => Ok(()),
        Some(t) => Err(format!(
            "no constructor for the tag {}{} (PyYAML's SafeLoader rejects it)",
            t.handle(),
            t.suffix()
        )),
    }
}

/// A scalar as PyYAML constructs it: a plain untagged one by the implicit resolvers, a
/// quoted or block one as a string, a tagged one by its tag.
fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    let kind = match tag {
        Some(t) if t.handle() == "!" && t.suffix().is_empty() => "str",
        Some(t) => match t.suffix_in_namespace("tag:yaml.org,2002:") {
            Some(suffix) => match suffix.as_ref() {
                "str" => "str",
                "int" => "int",
                "float" => "float",
                "bool" => "bool",
                "null" => "null",
                "timestamp" => "timestamp",
                other => return Err(format!("the tag !!{other} is not supported here")),
            },
            None => {
                return Err(format!(
                    "no constructor for the tag {}{} (PyYAML's SafeLoader rejects it)",
                    t.handle(),
                    t.suffix()
                ))
            }
        },
        None if style == ScalarStyle::Plain => resolve(text),
        None => "str",
    };
    Ok(match kind {
        "null" => Value::Null,
        "bool" => Value::Bool(matches!(
            text.to_ascii_lowercase().as_str(),
            "yes" | "true" | "on"
        )),
        "int" => Value::Int(int(text)?),
        "float" => Value::Float(float(text)?),
        "timestamp" => Value::Timestamp(text.to_string()),
        "merge" => Value::Str(MERGE_KEY.into()),
        _ => Value::Str(text.to_string()),
    })
}

/// PyYAML's implicit resolvers for a plain scalar, in the order it tries them.
fn resolve(text: &str) -> &'static str {
    const BOOLS: [&str; 18] = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF",
    ];
    if BOOLS.contains(&text) {
        "bool"
    } else if is_float(text) {
        "float"
    } else if is_int(text) {
        "int"
    } else if text == "<<" {
        "merge"
    } else if matches!(text, "" | "~" | "null" | "Null" | "NULL") {
        "null"
    } else if is_timestamp(text) {
        "timestamp"
    } else {
        "str"
    }
}

/// `text` without one leading `+` or `-`.
fn unsigned(text: &str) -> &str {
    text.strip_prefix(['+', '-']).unwrap_or(text)
}

fn all(text: &str, allowed: impl Fn(char) -> bool) -> bool {
    text.chars().all(allowed)
}

/// `(?::[0-5]?[0-9])+`: one or more base-60 groups after the first part.
fn sexagesimal_tail(groups: &[&str]) -> bool {
    !groups.is_empty()
        && groups.iter().all(|g| {
            let b = g.as_bytes();
            match b.len() {
                1 => b[0].is_ascii_digit(),
                2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
                _ => false,
            }
        })
}

/// `[1-9][0-9_]*`
fn nonzero_decimal(text: &str) -> bool {
    text.starts_with(|c: char| ('1'..='9').contains(&c))
        && all(text, |c| c.is_ascii_digit() || c == '_')
}

/// PyYAML's int pattern: binary, octal, decimal, hex, or base 60.
fn is_int(text: &str) -> bool {
    let body = unsigned(text);
    if let Some(bits) = body.strip_prefix("0b") {
        return !bits.is_empty() && all(bits, |c| matches!(c, '0' | '1' | '_'));
    }
    if let Some(hex) = body.strip_prefix("0x") {
        return !hex.is_empty() && all(hex, |c| c.is_ascii_hexdigit() || c == '_');
    }
    if let Some(octal) = body.strip_prefix('0') {
        return octal.is_empty() || all(octal, |c| ('0'..='7').contains(&c) || c == '_');
    }
    if nonzero_decimal(body) {
        return true;
    }
    let groups: Vec<&str> = body.split(':').collect();
    groups.len() > 1 && nonzero_decimal(groups[0]) && sexagesimal_tail(&groups[1..])
}

/// `[eE][-+][0-9]+` or nothing.
fn exponent_ok(exponent: Option<&str>) -> bool {
    match exponent {
        None => true,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']);
            digits.is_some_and(|d| !d.is_empty() && all(d, |c| c.is_ascii_digit()))
        }
    }
}

/// PyYAML's float pattern (a dot is required; an exponent needs its sign).
fn is_float(text: &str) -> bool {
    let body = unsigned(text);
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    if matches!(text, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    // `[0-9][0-9_]*\.[0-9_]*` with an optional exponent, or `\.[0-9][0-9_]*` unsigned.
    if let Some((int_part, frac)) = mantissa.split_once('.') {
        let frac_ok = all(frac, |c| c.is_ascii_digit() || c == '_');
        let int_ok = int_part.starts_with(|c: char| c.is_ascii_digit())
            && all(int_part, |c| c.is_ascii_digit() || c == '_');
        if int_ok && frac_ok && exponent_ok(exponent) {
            return true;
        }
        if int_part.is_empty()
            && body.len() == text.len()
            && frac.starts_with(|c: char| c.is_ascii_digit())
            && frac_ok
            && exponent_ok(exponent)
        {
            return true;
        }
    }
    // `[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*`
    if exponent.is_none() {
        if let Some((whole, frac)) = body.rsplit_once('.') {
            let groups: Vec<&str> = whole.split(':').collect();
            let first = groups[0];
            return groups.len() > 1
                && first.starts_with(|c: char| c.is_ascii_digit())
                && all(first, |c| c.is_ascii_digit() || c == '_')
                && sexagesimal_tail(&groups[1..])
                && all(frac, |c| c.is_ascii_digit() || c == '_');
        }
    }
    false
}

/// PyYAML's timestamp pattern: `YYYY-MM-DD`, or a date and time with an optional fraction
/// and zone.
fn is_timestamp(text: &str) -> bool {
    let b = text.as_bytes();
    let digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    if b.len() == 10 && digits(&b[..4]) && b[4] == b'-' && digits(&b[5..7]) && b[7] == b'-' {
        return digits(&b[8..10]);
    }
    // YYYY-M?M-D?D then [Tt] or blanks, then H?H:MM:SS(.fraction)? and a zone.
    let Some(sep) = text.find(['T', 't', ' ', '\t']) else {
        return false;
    };
    let (date, rest) = text.split_at(sep);
    let parts: Vec<&str> = date.split('-').collect();
    let date_ok = parts.len() == 3
        && parts[0].len() == 4
        && digits(parts[0].as_bytes())
        && (1..=2).contains(&parts[1].len())
        && digits(parts[1].as_bytes())
        && (1..=2).contains(&parts[2].len())
        && digits(parts[2].as_bytes());
    if !date_ok {
        return false;
    }
    let rest = if rest.starts_with(['T', 't']) {
        &rest[1..]
    } else {
        rest.trim_start_matches([' ', '\t'])
    };
    let time_end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
        .unwrap_or(rest.len());
    let (time, zone) = rest.split_at(time_end);
    let (clock, fraction) = match time.split_once('.') {
        Some((c, f)) => (c, Some(f)),
        None => (time, None),
    };
    let hms: Vec<&str> = clock.split(':').collect();
    let time_ok = hms.len() == 3
        && (1..=2).contains(&hms[0].len())
        && digits(hms[0].as_bytes())
        && hms[1].len() == 2
        && digits(hms[1].as_bytes())
        && hms[2].len() == 2
        && digits(hms[2].as_bytes())
        && fraction.is_none_or(|f| f.bytes().all(|c| c.is_ascii_digit()));
    let zone = zone.trim_start_matches([' ', '\t']);
    let zone_ok = zone.is_empty()
        || zone == "Z"
        || zone.strip_prefix(['+', '-']).is_some_and(|z| {
            let (h, m) = z.split_once(':').unwrap_or((z, "00"));
            (1..=2).contains(&h.len())
                && digits(h.as_bytes())
                && m.len() == 2
                && digits(m.as_bytes())
        });
    time_ok && zone_ok
}

/// PyYAML's `construct_yaml_int`.
fn int(text: &str) -> Result<i128, String> {
    let cleaned = text.replace('_', "");
    let (sign, body) = match cleaned.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, cleaned.strip_prefix('+').unwrap_or(&cleaned)),
    };
    let parse = |digits: &str, radix: u32| {
        i128::from_str_radix(digits, radix).map_err(|e| format!("int {text:?}: {e}"))
    };
    let magnitude = if body == "0" {
        0
    } else if let Some(bits) = body.strip_prefix("0b") {
        parse(bits, 2)?
    } else if let Some(hex) = body.strip_prefix("0x") {
        parse(hex, 16)?
    } else if body.starts_with('0') {
        parse(body, 8)?
    } else if body.contains(':') {
        body.split(':').try_fold(0i128, |acc, part| {
            Ok::<_, String>(acc * 60 + parse(part, 10)?)
        })?
    } else {
        parse(body, 10)?
    };
    Ok(sign * magnitude)
}

/// PyYAML's `construct_yaml_float`.
fn float(text: &str) -> Result<f64, String> {
    let cleaned = text.replace('_', "").to_ascii_lowercase();
    let (sign, body) = match cleaned.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, cleaned.strip_prefix('+').unwrap_or(&cleaned)),
    };
    let parse = |s: &str| s.parse::<f64>().map_err(|e| format!("float {text:?}: {e}"));
    Ok(if body == ".inf" {
        sign * f64::INFINITY
    } else if body == ".nan" {
        f64::NAN
    } else if body.contains(':') {
        sign * body
            .split(':')
            .try_fold(0.0, |acc, part| Ok::<_, String>(acc * 60.0 + parse(part)?))?
    } else {
        sign * parse(body)?
    })
}

/// The loader's own checks, run as named tests by the harness that includes this module
/// (`tests/conformance.rs`): with `harness = false`, `#[test]` functions would never run.
pub mod checks {
    use super::*;

    /// Each check by name.
    pub const ALL: [(&str, fn()); 3] = [
        (
            "yaml11/plain scalars are typed as YAML 1.1",
            plain_scalars_are_typed_as_yaml_1_1,
        ),
        (
            "yaml11/mappings compare without order",
            mappings_compare_without_order_and_keep_the_last_repeated_key,
        ),
        (
            "yaml11/documents, anchors and merge keys",
            documents_anchors_and_merge_keys,
        ),
    ];

    fn one(text: &str) -> Value {
        let mut docs = load_documents(&format!("v: {text}\n")).unwrap();
        match docs.pop() {
            Some(Value::Map(mut entries)) => entries.pop().unwrap().1,
            other => panic!("{other:?}"),
        }
    }

    fn plain_scalars_are_typed_as_yaml_1_1() {
        for (text, want) in [
            ("yes", Value::Bool(true)),
            ("Off", Value::Bool(false)),
            ("y", Value::Str("y".into())),
            ("'yes'", Value::Str("yes".into())),
            ("0777", Value::Int(0o777)),
            ("0o777", Value::Str("0o777".into())),
            ("09", Value::Str("09".into())),
            ("0x1F", Value::Int(31)),
            ("0b101", Value::Int(5)),
            ("1_000", Value::Int(1000)),
            ("-1:20", Value::Int(-80)),
            ("12", Value::Int(12)),
            ("\"12\"", Value::Str("12".into())),
            ("1.5", Value::Float(1.5)),
            ("1.", Value::Float(1.0)),
            (".5", Value::Float(0.5)),
            ("1e3", Value::Str("1e3".into())),
            ("1.0e+3", Value::Float(1000.0)),
            ("1:30.5", Value::Float(90.5)),
            ("-.inf", Value::Float(f64::NEG_INFINITY)),
            ("~", Value::Null),
            ("", Value::Null),
            ("NULL", Value::Null),
            ("2002-12-14", Value::Timestamp("2002-12-14".into())),
            (
                "2001-12-14t21:59:43.10-05:00",
                Value::Timestamp("2001-12-14t21:59:43.10-05:00".into()),
            ),
            ("!!str 12", Value::Str("12".into())),
            ("!!int \"12\"", Value::Int(12)),
            ("8080/TCP", Value::Str("8080/TCP".into())),
        ] {
            assert_eq!(one(text), want, "{text}");
        }
    }

    fn mappings_compare_without_order_and_keep_the_last_repeated_key() {
        let a = load_documents("a: 1\nb: [x, y]\na: 2\n").unwrap();
        let b = load_documents("b: [x, y]\na: 2\n").unwrap();
        assert_eq!(a, b);
        let c = load_documents("b: [y, x]\na: 2\n").unwrap();
        assert_ne!(a, c, "sequence order matters");
        assert_ne!(
            load_documents("a: 1\n").unwrap(),
            load_documents("a: 1.0\n").unwrap(),
            "an int is not a float"
        );
    }

    fn documents_anchors_and_merge_keys() {
        let docs = load_documents("---\n---\na: &x {k: 1}\nb: *x\nc:\n  <<: *x\n  j: 2\n---\n~\n")
            .unwrap();
        assert_eq!(docs.len(), 1, "empty and null documents are dropped");
        let want = load_documents("a: {k: 1}\nb: {k: 1}\nc: {k: 1, j: 2}\n").unwrap();
        assert_eq!(docs, want);
        assert!(load_documents("a: [\n").is_err());
        assert!(load_documents("a: !custom x\n").is_err());
    }
}
