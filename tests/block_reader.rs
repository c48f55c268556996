//! The direct block reader against granit-parser: on every YAML file the repository carries
//! (and `../shared`'s when it sits beside it), and on line-level mutations of each, the
//! reader must either stand aside or build exactly granit's tree. Also counts how much it
//! reads directly, so a reader that silently stood aside for everything would show.

use std::fs;
use std::path::{Path, PathBuf};

use kmerge::testing::block_reader_agrees;

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

/// Variants of a text made by editing its lines, deterministically: each line deleted,
/// indented by two more spaces, or cut in half, one at a time (on a sample of lines in large
/// files). Most are still YAML; some are not, and then granit must refuse them too.
fn mutations(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let step = (lines.len() / 40).max(1);
    let mut out = Vec::new();
    for i in (0..lines.len()).step_by(step) {
        let with = |replacement: &str| {
            let mut s = String::with_capacity(text.len() + 2);
            for (j, l) in lines.iter().enumerate() {
                s.push_str(if j == i { replacement } else { l });
            }
            s
        };
        out.push(with(""));
        out.push(with(&format!("  {}", lines[i])));
        let line = lines[i].trim_end_matches('\n');
        let mut half = line.len() / 2;
        while !line.is_char_boundary(half) {
            half -= 1;
        }
        out.push(with(&format!("{}\n", &line[..half])));
    }
    out
}

fn check(files: &[PathBuf], mutate_up_to: usize) -> (usize, usize, Vec<String>) {
    let (mut direct, mut total) = (0, 0);
    let mut failures = Vec::new();
    for path in files {
        let Ok(text) = fs::read_to_string(path) else {
            continue;
        };
        let mut texts = vec![text.clone()];
        if text.len() <= mutate_up_to {
            texts.extend(mutations(&text));
        }
        for (n, t) in texts.iter().enumerate() {
            total += 1;
            match block_reader_agrees(t) {
                Ok(true) => direct += 1,
                Ok(false) => {}
                Err(d) => failures.push(format!("{} (variant {n}): {d}", path.display())),
            }
        }
    }
    (direct, total, failures)
}

#[test]
fn the_block_reader_builds_granits_tree_on_the_repositorys_yaml() {
    let mut files = Vec::new();
    for dir in ["tests", "examples"] {
        yaml_files(Path::new(dir), &mut files);
    }
    let (direct, total, failures) = check(&files, 64 << 10);
    println!("block reader: {direct} of {total} texts read directly, the rest by granit");
    assert!(
        failures.is_empty(),
        "{} texts read differently:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
    // It must take most of them, or it is no faster than granit.
    assert!(direct * 2 > total, "only {direct} of {total} read directly");
}

#[test]
fn the_block_reader_builds_granits_tree_on_the_shared_corpus() {
    let shared = Path::new("../shared");
    if !shared.is_dir() {
        println!("../shared not present: its YAML files not read");
        return;
    }
    let mut files = Vec::new();
    for dir in ["realworld", "templates", "perf", "packages", "conformance"] {
        yaml_files(&shared.join(dir), &mut files);
    }
    let (direct, total, failures) = check(&files, 64 << 10);
    println!("block reader on ../shared: {direct} of {total} texts read directly");
    assert!(
        failures.is_empty(),
        "{} texts read differently:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}
