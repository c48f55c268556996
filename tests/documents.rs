//! The document shortcut (a multi-document file merged document by document, only the
//! documents both sides changed parsed) must reach the whole file's merge, byte for byte, with
//! the same exit: on every case and real merge the repository carries, and on edits generated
//! from its multi-document real files — values changed on one side or both, documents deleted,
//! moved, added and renamed — where the two paths would part if the shortcut paired documents
//! wrongly. The oracle is the whole-file merge, which shares none of the shortcut's code.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{note, Rng};
use kmerge::driver::merge_bytes;
use kmerge::options::MergeOptions;
use kmerge::testing::{merge_whole_file, merged_by_documents};

/// Folders holding base/ours/theirs.yaml, below `root`.
fn triples(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.join("base.yaml").is_file() && path.join("ours.yaml").is_file() {
            out.push(path.clone());
        }
        if path.is_dir() {
            triples(&path, out);
        }
    }
}

/// Where the two paths part on one merge, if they do.
fn parting(name: &str, b: &[u8], o: &[u8], t: &[u8]) -> Option<String> {
    let opts = MergeOptions::default();
    let short = merge_bytes(b, o, t, &opts);
    let whole = merge_whole_file(b, o, t, &opts);
    match (short, whole) {
        (Ok(s), Ok(w)) if s.bytes == w.bytes && s.conflicted == w.conflicted => None,
        (Ok(s), Ok(w)) => Some(format!(
            "{name}: the shortcut gives {} bytes (conflicted {}), the whole merge {} bytes (conflicted {}); first difference at byte {}",
            s.bytes.len(),
            s.conflicted,
            w.bytes.len(),
            w.conflicted,
            s.bytes.iter().zip(&w.bytes).take_while(|(x, y)| x == y).count()
        )),
        (s, w) => Some(format!("{name}: {:?} against {:?}", s.err(), w.err())),
    }
}

fn roots() -> Vec<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    vec![
        repo.join("tests/cases"),
        repo.join("tests/realworld"),
        repo.join("../shared/realworld"),
        repo.join("../shared/templates"),
    ]
}

#[test]
fn the_shortcut_reaches_the_whole_merge_on_every_case() {
    let mut dirs = Vec::new();
    for root in roots() {
        triples(&root, &mut dirs);
    }
    let read = |d: &Path, f: &str| fs::read(d.join(f)).unwrap_or_default();
    let parted: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            let name = d.display().to_string();
            parting(
                &name,
                &read(d, "base.yaml"),
                &read(d, "ours.yaml"),
                &read(d, "theirs.yaml"),
            )
        })
        .collect();
    note(&format!(
        "document shortcut: {} merges compared with the whole-file merge",
        dirs.len()
    ));
    assert!(parted.is_empty(), "{}", parted.join("\n"));
}

/// A file cut before each `---` line.
fn documents(text: &str) -> Vec<String> {
    let mut docs: Vec<String> = Vec::new();
    for line in text.split_inclusive('\n') {
        if line.starts_with("---") || docs.is_empty() {
            docs.push(String::new());
        }
        if let Some(d) = docs.last_mut() {
            d.push_str(line);
        }
    }
    docs
}

/// One realistic edit of one document: a one-line scalar value changed.
fn edit_value(doc: &str, rng: &mut Rng, tag: &str) -> String {
    let lines: Vec<&str> = doc.split_inclusive('\n').collect();
    let editable: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let l = lines[i].trim_end();
            let t = l.trim_start();
            l.len() > t.len()
                && !t.starts_with('#')
                && !t.starts_with("name:")
                && !t.starts_with("namespace:")
                && t.split_once(": ").is_some_and(|(k, v)| {
                    !k.contains(' ')
                        && !v.is_empty()
                        && v.chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-._/".contains(c))
                })
        })
        .collect();
    if editable.is_empty() {
        return doc.to_string();
    }
    let i = editable[rng.below(editable.len())];
    let mut out = String::new();
    for (j, l) in lines.iter().enumerate() {
        if j == i {
            out.push_str(l.trim_end());
            out.push_str(tag);
            out.push('\n');
        } else {
            out.push_str(l);
        }
    }
    out
}

/// One side's edit of the whole file: a few documents edited, maybe one deleted, moved,
/// copied under a new name, or given a comment line at its end.
fn edit_file(docs: &[String], rng: &mut Rng, tag: &str) -> Vec<String> {
    let mut docs = docs.to_vec();
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(docs.len());
        docs[i] = edit_value(&docs[i], rng, tag);
    }
    match rng.below(6) {
        0 if docs.len() > 2 => {
            docs.remove(1 + rng.below(docs.len() - 1));
        }
        1 if docs.len() > 2 => {
            let d = docs.remove(1 + rng.below(docs.len() - 1));
            let at = 1 + rng.below(docs.len() - 1);
            docs.insert(at, d);
        }
        2 => {
            let src = &docs[rng.below(docs.len())];
            if src.starts_with("---") && src.contains("\n  name: ") {
                let copy = src.replacen("\n  name: ", &format!("\n  name: copy{tag}-"), 1);
                docs.push(copy);
            }
        }
        3 => {
            // A comment line at the end of a document, above the next one's `---`: in git's
            // merge of the whole file it sits next to the other document's hunk.
            let i = rng.below(docs.len());
            if docs[i].ends_with('\n') {
                docs[i].push_str(&format!("# note{tag}\n"));
            }
        }
        _ => {}
    }
    docs
}

#[test]
fn the_shortcut_reaches_the_whole_merge_on_generated_edits() {
    let mut dirs = Vec::new();
    for root in roots().into_iter().skip(1) {
        triples(&root, &mut dirs);
    }
    let mut parted = Vec::new();
    let (mut compared, mut shortcut) = (0, 0);
    for d in &dirs {
        let Ok(base) = fs::read_to_string(d.join("base.yaml")) else {
            continue;
        };
        let docs = documents(&base);
        if docs.len() < 3 || docs.iter().skip(1).any(|d| !d.ends_with('\n')) {
            continue;
        }
        for seed in 1..=24u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let ours = edit_file(&docs, &mut rng, "-o").concat();
            let theirs = edit_file(&docs, &mut rng, "-t").concat();
            compared += 1;
            if merged_by_documents(&base, &ours, &theirs, &MergeOptions::default()) {
                shortcut += 1;
            }
            let name = format!("{} seed {seed}", d.display());
            if let Some(p) = parting(&name, base.as_bytes(), ours.as_bytes(), theirs.as_bytes()) {
                // The inputs stay behind to replay: `kmerge merge3` on them.
                let keep = Path::new(env!("CARGO_TARGET_TMPDIR"))
                    .join(format!("documents-parted-{}", parted.len()));
                let _ = fs::create_dir_all(&keep);
                for (f, text) in [("base", &base), ("ours", &ours), ("theirs", &theirs)] {
                    let _ = fs::write(keep.join(format!("{f}.yaml")), text);
                }
                parted.push(format!("{p} (inputs in {})", keep.display()));
            }
        }
    }
    note(&format!(
        "document shortcut: {compared} generated merges compared with the whole-file merge, {shortcut} of them merged document by document"
    ));
    assert!(parted.is_empty(), "{}", parted.join("\n"));
    // Generated edits that never reach the shortcut would prove nothing.
    assert!(
        shortcut * 4 >= compared,
        "only {shortcut} of {compared} took the shortcut"
    );
}
