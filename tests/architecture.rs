//! The pipeline's "never" arrows (ARCHITECTURE.md), read from the code: data walks one way,
//! parse → align → merge → render → verify → driver, and a stage that reached back or across
//! would let one rule live in two places. Each rule names what a module of `src/` must not
//! refer to; a reference in code (not in a comment) breaks it. A break the code still has is
//! listed in `KNOWN` with its reason, and the list only shrinks: a listed break that is gone
//! fails too, so its line is taken off.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A rule: files under `place` (a folder or file of `src/`) must not hold `needle` in code.
struct Rule {
    place: &'static str,
    needle: &'static str,
    why: &'static str,
}

const RULES: &[Rule] = &[
    // The verifier shares the parser, the list-key table and the options as data with the
    // engine, nothing else: a pairing mistake of the engine must not pass its own check.
    Rule {
        place: "verify",
        needle: "crate::merge",
        why: "verify imports nothing of merge",
    },
    Rule {
        place: "verify",
        needle: "crate::render",
        why: "verify imports nothing of render",
    },
    Rule {
        place: "verify",
        needle: "crate::comments",
        why: "verify imports nothing of the comment stage",
    },
    Rule {
        place: "verify",
        needle: "crate::template",
        why: "verify imports nothing of template",
    },
    Rule {
        place: "verify",
        needle: "crate::engine",
        why: "verify imports nothing of the engine",
    },
    Rule {
        place: "verify",
        needle: "crate::driver",
        why: "verify stands below the driver",
    },
    Rule {
        place: "verify",
        needle: "crate::package",
        why: "verify imports no package pairing",
    },
    Rule {
        place: "verify",
        needle: "renamed_elements",
        why: "verify reads renames its own way",
    },
    Rule {
        place: "verify",
        needle: "pair_renames",
        why: "verify reads renames its own way",
    },
    Rule {
        place: "verify",
        needle: "similar_element",
        why: "verify reads likeness its own way",
    },
    Rule {
        place: "verify",
        needle: "crate::align",
        why: "verify pairs the versions its own way, not by the engine's alignment",
    },
    // The alignment pairs the versions before anything decides: it reads no rule of the
    // merge, no text the render writes, no template.
    Rule {
        place: "align",
        needle: "crate::merge",
        why: "align stands below merge: it pairs, the merge decides",
    },
    Rule {
        place: "align",
        needle: "crate::render",
        why: "align stands below render",
    },
    Rule {
        place: "align",
        needle: "crate::template",
        why: "align knows nothing of templates",
    },
    Rule {
        place: "merge",
        needle: "match_documents",
        why: "the merge plans from the documents the alignment paired; it pairs none itself",
    },
    Rule {
        place: "comments",
        needle: "crate::align",
        why: "the comment stage reads the result's documents by the alignment the plan was \
              made from (render's trace); it pairs none itself",
    },
    Rule {
        place: "resource",
        needle: "crate::align",
        why: "resource says what one version's resource is; align pairs them",
    },
    // Render splices what the plan says: it decides no rule.
    Rule {
        place: "render",
        needle: "crate::resource",
        why: "render imports nothing of resource",
    },
    Rule {
        place: "render",
        needle: "crate::align",
        why: "render imports nothing of the alignment",
    },
    Rule {
        place: "render",
        needle: "crate::template",
        why: "render imports nothing of template",
    },
    Rule {
        place: "render",
        needle: "text::skeleton",
        why: "render knows nothing of templates",
    },
    Rule {
        place: "render",
        needle: "Policy",
        why: "render imports nothing of the policy",
    },
    Rule {
        place: "render",
        needle: "parse::parse(",
        why: "render does not parse the result again",
    },
    Rule {
        place: "render",
        needle: "crate::comments",
        why: "render splices; the comment stage runs after it",
    },
    // diff3 merges sequences for every stage: it lives in text/, not in merge/.
    Rule {
        place: "",
        needle: "merge::diff3",
        why: "nothing reaches into merge/ for diff3",
    },
    // The parser stands below everything that reads its trees.
    Rule {
        place: "parse",
        needle: "crate::fallback",
        why: "parse stands below the fallback",
    },
    Rule {
        place: "parse",
        needle: "crate::resource",
        why: "parse stands below resource",
    },
    Rule {
        place: "parse",
        needle: "crate::merge",
        why: "parse stands below merge",
    },
];

/// Breaks the code still has: (file, needle, reason). Only shrinks.
const KNOWN: &[(&str, &str, &str)] = &[];

/// The Rust files under `dir`, by their path relative to `src/`.
fn sources(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
}

/// A file's code without its comments (line comments, doc comments): a path named in a doc
/// link is no import.
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The code of every file of `src/`, by its path relative to `src/` (`/`-separated).
fn src_files() -> BTreeMap<String, String> {
    let root = Path::new("src");
    let mut files = Vec::new();
    sources(root, root, &mut files);
    files
        .into_iter()
        .map(|rel| {
            let text = fs::read_to_string(root.join(&rel)).unwrap_or_default();
            (rel.to_string_lossy().replace('\\', "/"), code(&text))
        })
        .collect()
}

fn under(place: &str, file: &str) -> bool {
    place.is_empty()
        || file == format!("{place}.rs")
        || file.starts_with(&format!("{place}/"))
        || file == place
}

#[test]
fn the_pipelines_never_arrows_hold() {
    let files = src_files();
    assert!(!files.is_empty(), "no source files found under src/");
    let mut broken = BTreeSet::new();
    let mut found = Vec::new();
    for rule in RULES {
        for (file, code) in &files {
            if under(rule.place, file) && code.contains(rule.needle) {
                broken.insert((file.clone(), rule.needle));
                if !KNOWN.iter().any(|(f, n, _)| f == file && *n == rule.needle) {
                    found.push(format!("{file} holds `{}`: {}", rule.needle, rule.why));
                }
            }
        }
    }
    let gone: Vec<String> = KNOWN
        .iter()
        .filter(|(f, n, _)| !broken.contains(&(f.to_string(), *n)))
        .map(|(f, n, why)| format!("{f} no longer holds `{n}` ({why}): take it off KNOWN"))
        .collect();
    assert!(
        found.is_empty() && gone.is_empty(),
        "{}",
        [found, gone].concat().join("\n")
    );
}

/// The modules of `src/` (a top-level file or folder) each refers to, by `crate::NAME`.
fn module_graph(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in files {
        let from = file
            .split('/')
            .next()
            .unwrap_or(file)
            .trim_end_matches(".rs");
        let targets = graph.entry(from.to_string()).or_default();
        for (at, _) in code.match_indices("crate::") {
            let name: String = code[at + "crate::".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != from {
                targets.insert(name);
            }
        }
    }
    graph
}

/// The files of one folder of `src/` each refers to by `super::NAME` (a sibling file or
/// folder), by their paths. `mod.rs` is left out: it declares its children, and a child's
/// `super::Item` is the folder's own interface, not a sibling.
fn sibling_graph(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, code) in files {
        let Some((folder, name)) = file.rsplit_once('/') else {
            continue;
        };
        if name == "mod.rs" {
            continue;
        }
        let sibling = |stem: &str| {
            [
                format!("{folder}/{stem}.rs"),
                format!("{folder}/{stem}/mod.rs"),
            ]
            .into_iter()
            .find(|f| files.contains_key(f) && f != file)
        };
        let targets = graph.entry(file.clone()).or_default();
        for (at, _) in code.match_indices("super::") {
            let rest = &code[at + "super::".len()..];
            // `super::{a::x, b}` names several at once: the first name of each item.
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(group) => group[..group.find('}').unwrap_or(group.len())]
                    .split(',')
                    .map(str::trim)
                    .collect(),
                None => vec![rest],
            };
            for name in names {
                let stem: String = name
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if let Some(target) = sibling(&stem) {
                    targets.insert(target);
                }
            }
        }
    }
    graph
}

/// A circle of the graph, if it has one (depth-first: a node met again while it is still
/// open closes a circle).
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, bool>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(at) {
            Some(true) => {
                let from = path.iter().position(|p| p == at).unwrap_or(0);
                return Some([&path[from..], &[at.to_string()]].concat());
            }
            Some(false) => return None,
            None => {}
        }
        state.insert(at.to_string(), true);
        path.push(at.to_string());
        for next in graph.get(at).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, state, path) {
                return Some(circle);
            }
        }
        path.pop();
        state.insert(at.to_string(), false);
        None
    }
    let mut state = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut state, &mut Vec::new()))
}

#[test]
fn the_modules_of_src_import_each_other_in_no_circle() {
    let found = circle(&module_graph(&src_files()));
    assert!(
        found.is_none(),
        "modules import each other: {}",
        found.unwrap_or_default().join(" → ")
    );
}

/// Inside a folder too: two files that take from each other are one rule in two places, or
/// one file cut in two.
#[test]
fn the_files_of_a_folder_import_each_other_in_no_circle() {
    let found = circle(&sibling_graph(&src_files()));
    assert!(
        found.is_none(),
        "files import each other: {}",
        found.unwrap_or_default().join(" → ")
    );
}

#[test]
fn no_test_file_is_over_1500_lines() {
    let root = Path::new("tests");
    let mut files = Vec::new();
    sources(root, root, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|rel| {
            let n = fs::read_to_string(root.join(rel)).ok()?.lines().count();
            (n > 1500).then(|| format!("tests/{} has {n} lines", rel.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these into modules:\n{}",
        long.join("\n")
    );
}
