//! What a scalar means as data, for comparisons.

use super::Style;

/// A scalar's identity as data.
///
/// Quoted scalars and plain scalars that read as strings are strings: `'a'` equals `a`. A plain
/// scalar that YAML 1.1 or 1.2 reads as something else (a number, a boolean, `yes`, `0777`,
/// `1:20`) is kept as its text and differs from the quoted string with the same text: `"80"` is
/// not `80`, and re-quoting `yes` changes what Kubernetes' decoder reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScalarKey {
    Null,
    Str(String),
    /// A plain scalar typed other than string, by its text.
    Typed(String),
    /// A scalar with a tag outside the core schema.
    Tagged(String, String),
}

impl ScalarKey {
    pub fn of(value: &str, style: Style, tag: Option<&str>) -> ScalarKey {
        match tag {
            Some("!!str") | Some("tag:yaml.org,2002:str") => return ScalarKey::Str(value.into()),
            Some("!!null") | Some("tag:yaml.org,2002:null") => return ScalarKey::Null,
            Some(t) if t.starts_with("!!") || t.starts_with("tag:yaml.org,2002:") => {
                return ScalarKey::Typed(value.into())
            }
            Some(t) => return ScalarKey::Tagged(t.into(), value.into()),
            None => {}
        }
        if style != Style::Plain {
            return ScalarKey::Str(value.into());
        }
        if is_null_text(value) {
            ScalarKey::Null
        } else if is_bool_text(value) || is_number_text(value) {
            ScalarKey::Typed(value.into())
        } else {
            ScalarKey::Str(value.into())
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
    if body.is_empty() {
        return false;
    }
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), ".inf" | ".nan") {
        return true;
    }
    let digits_in =
        |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c == '_' || c.is_digit(radix));
    if let Some(hex) = lower.strip_prefix("0x") {
        return digits_in(hex, 16);
    }
    if let Some(oct) = lower.strip_prefix("0o") {
        return digits_in(oct, 8);
    }
    if let Some(bin) = lower.strip_prefix("0b") {
        return digits_in(bin, 2);
    }
    if body.contains(':') {
        return body.split(':').all(|p| digits_in(p, 10)) && body.as_bytes()[0] != b':';
    }
    let cleaned: String = body.chars().filter(|&c| c != '_').collect();
    let first = cleaned.as_bytes().first().copied().unwrap_or(b'x');
    (first.is_ascii_digit() || first == b'.')
        && cleaned
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '-' | '+'))
        && cleaned.parse::<f64>().is_ok()
}
