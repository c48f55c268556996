//! What a scalar means as data, for comparisons.

use super::Style;

/// A scalar's identity as data.
///
/// Quoted scalars and plain scalars that read as strings are strings: `'a'` equals `a`. A plain
/// scalar that YAML 1.1 or 1.2 reads as something else (a number, a boolean, `yes`, `0777`,
/// `1:20`) is kept as its text and differs from the quoted string with the same text: `"80"` is
/// not `80`, and re-quoting `yes` changes what Kubernetes' decoder reads.
///
/// It borrows the scalar's text: every scalar compared or digested asks for one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKey<'a> {
    Null,
    Str(&'a str),
    /// A plain scalar typed other than string, by its text.
    Typed(&'a str),
    /// A scalar with a tag outside the core schema.
    Tagged(&'a str, &'a str),
}

impl<'a> ScalarKey<'a> {
    pub fn of(value: &'a str, style: Style, tag: Option<&'a str>) -> ScalarKey<'a> {
        match tag {
            Some("!!str") | Some("tag:yaml.org,2002:str") => return ScalarKey::Str(value),
            Some("!!null") | Some("tag:yaml.org,2002:null") => return ScalarKey::Null,
            Some(t) if t.starts_with("!!") || t.starts_with("tag:yaml.org,2002:") => {
                return ScalarKey::Typed(value)
            }
            Some(t) => return ScalarKey::Tagged(t, value),
            None => {}
        }
        if style != Style::Plain {
            return ScalarKey::Str(value);
        }
        if is_null_text(value) {
            ScalarKey::Null
        } else if is_bool_text(value) || is_number_text(value) {
            ScalarKey::Typed(value)
        } else {
            ScalarKey::Str(value)
        }
    }
}

fn is_null_text(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// YAML 1.1's booleans (which include 1.2's).
fn is_bool_text(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y"
            | "yes"
            | "Yes"
            | "YES"
            | "n"
            | "N"
            | "no"
            | "No"
            | "NO"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
            | "on"
            | "On"
            | "ON"
            | "off"
            | "Off"
            | "OFF"
    )
}

/// Integers and floats of YAML 1.1 or 1.2: decimal, `0x`/`0o`/`0b`, octal `0777`, `1_000`,
/// sexagesimal `1:20`, `.inf`, `.nan`, `1e3`.
fn is_number_text(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    // Most strings are not numbers: nothing but a digit or a dot starts one (after `_`s).
    match body.bytes().find(|&c| c != b'_') {
        Some(c) if c.is_ascii_digit() || c == b'.' => {}
        _ => return false,
    }
    if body.eq_ignore_ascii_case(".inf") || body.eq_ignore_ascii_case(".nan") {
        return true;
    }
    let digits_in =
        |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c == '_' || c.is_digit(radix));
    let prefixed = |p: &str| {
        body.get(..2)
            .is_some_and(|head| head.eq_ignore_ascii_case(p))
            .then(|| &body[2..])
    };
    if let Some(hex) = prefixed("0x") {
        return digits_in(hex, 16);
    }
    if let Some(oct) = prefixed("0o") {
        return digits_in(oct, 8);
    }
    if let Some(bin) = prefixed("0b") {
        return digits_in(bin, 2);
    }
    if body.contains(':') {
        return body.split(':').all(|p| digits_in(p, 10));
    }
    let numeric = |t: &str| {
        t.bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'-' | b'+'))
            && t.parse::<f64>().is_ok()
    };
    if body.contains('_') {
        numeric(&body.replace('_', ""))
    } else {
        numeric(body)
    }
}
