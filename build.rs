//! Compiles the Kubernetes list-key table (`src/resource/k8s-list-keys.json`) into Rust, so
//! the binary parses no JSON at run time and a broken table fails the build instead of being
//! silently ignored.

use std::fmt::Write as _;
use std::path::PathBuf;

fn main() {
    let source = "src/resource/k8s-list-keys.json";
    println!("cargo:rerun-if-changed={source}");
    let text = std::fs::read_to_string(source).unwrap_or_else(|e| panic!("reading {source}: {e}"));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{source} is not JSON: {e}"));
    let kinds = json
        .get("kinds")
        .and_then(|k| k.as_object())
        .unwrap_or_else(|| panic!("{source}: no \"kinds\" object"));
    // Sorted by kind, then path, for binary search.
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for (kind, fields) in kinds {
        let fields = fields
            .as_object()
            .unwrap_or_else(|| panic!("{source}: {kind} is not an object"));
        for (path, info) in fields {
            let list_type = info
                .get("list_type")
                .and_then(|t| t.as_str())
                .unwrap_or_else(|| panic!("{source}: {kind} {path} has no list_type"));
            let keys: Vec<&str> = match info.get("keys") {
                None => Vec::new(),
                Some(keys) => keys
                    .as_array()
                    .unwrap_or_else(|| panic!("{source}: {kind} {path}: keys is not a list"))
                    .iter()
                    .map(|k| {
                        k.as_str()
                            .unwrap_or_else(|| panic!("{source}: {kind} {path}: a key is not text"))
                    })
                    .collect(),
            };
            let value = match (list_type, keys.is_empty()) {
                ("map", false) => format!("Entry::Keyed(&{keys:?})"),
                ("map", true) => panic!("{source}: {kind} {path} is a map list without keys"),
                ("set", _) => "Entry::Set".to_string(),
                ("atomic", _) => "Entry::Atomic".to_string(),
                (other, _) => panic!("{source}: {kind} {path}: unknown list_type {other}"),
            };
            rows.push((kind.clone(), path.clone(), value));
        }
    }
    rows.sort();
    let mut out =
        String::from("/// (group/Kind, list path, how its elements are identified), sorted.\n");
    out.push_str("pub(super) static TABLE: &[(&str, &str, Entry)] = &[\n");
    for (kind, path, value) in rows {
        writeln!(out, "    ({kind:?}, {path:?}, {value}),").unwrap_or_default();
    }
    out.push_str("];\n");
    let dir = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_else(|| panic!("no OUT_DIR")));
    std::fs::write(dir.join("list_keys_table.rs"), out)
        .unwrap_or_else(|e| panic!("writing the list-key table: {e}"));
}
