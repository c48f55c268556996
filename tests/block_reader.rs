//! The direct block reader against granit-parser: on every YAML file the repository carries
//! (and `../shared`'s when it sits beside it), and on line-level mutations of each, the
//! reader must either stand aside or build exactly granit's tree. Also counts how much it
//! reads directly, so a reader that silently stood aside for everything would show.

use std::fs;
use std::path::{Path, PathBuf};

use kmerge::testing::block_reader_agrees;

mod common;

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

/// Fails with the first differences found, if any.
fn agreed(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} texts read differently:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// Checks every text of `files` (and its mutations, for files up to `mutate_up_to` bytes);
/// counts how many of the texts of the files `counted` names the block reader read directly.
fn check(
    files: &[PathBuf],
    mutate_up_to: usize,
    counted: impl Fn(&Path) -> bool,
) -> (usize, usize, Vec<String>) {
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
        let counts = counted(path);
        for (n, t) in texts.iter().enumerate() {
            total += usize::from(counts);
            match block_reader_agrees(t) {
                Ok(true) => direct += usize::from(counts),
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
    // Every text must read alike; the share read directly is counted on real files only (the
    // hand-made cases are edge cases on purpose, and each new one would move the share).
    let real = |p: &Path| p.starts_with("tests/realworld") || p.starts_with("examples");
    let (direct, total, failures) = check(&files, 64 << 10, real);
    println!(
        "block reader: {direct} of {total} texts of real files read directly, the rest by granit"
    );
    agreed(&failures);
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
    let (direct, total, failures) = check(&files, 64 << 10, |_| true);
    println!("block reader on ../shared: {direct} of {total} texts read directly");
    agreed(&failures);
}

/// Random block YAML from the corners where the reader's own rules live: multi-line plain
/// and quoted scalars (folding, empty lines, escapes, escaped line breaks), literal and
/// folded scalars (chomping, indentation indicators, blank and more-indented lines), empty
/// values and items, indentless sequences, one-line flow collections, comments, documents.
/// Built from deterministic seeds, so a failure names the text that broke.
mod generated {
    use super::common::Rng;
    use super::{agreed, block_reader_agrees};

    /// One of `options`, at random.
    trait Pick {
        fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str;
    }

    impl Pick for Rng {
        fn pick<'a>(&mut self, options: &[&'a str]) -> &'a str {
            options[self.below(options.len())]
        }
    }

    const WORDS: &[&str] = &[
        "alpha",
        "beta",
        "x",
        "80",
        "true",
        "no",
        "-dash",
        "a:b",
        "http://h/p",
        "é✓",
        "'q'",
        "\"dq\"",
        "a #b",
        "[x]",
        "{y}",
        "~",
        "null",
        "0777",
        "1_000",
        "--flag",
        "?q",
        "-",
    ];

    fn plain(r: &mut Rng, indent: usize) -> String {
        let mut s = r
            .pick(&["value", "some words", "v1.2.3", "-x", "a-b", "80"])
            .to_string();
        for _ in 0..r.below(3) {
            // Continuation lines, sometimes after empty lines.
            for _ in 0..r.below(2) {
                s.push('\n');
            }
            s.push('\n');
            s.push_str(&" ".repeat(indent + 1 + r.below(3)));
            s.push_str(r.pick(WORDS));
        }
        s
    }

    fn quoted(r: &mut Rng, indent: usize, double: bool) -> String {
        let q = if double { '"' } else { '\'' };
        let mut s = String::from(q);
        for i in 0..1 + r.below(4) {
            if i > 0 {
                match r.below(4) {
                    0 => s.push(' '),
                    1 => {
                        if double {
                            s.push('\\');
                        }
                        s.push('\n');
                        s.push_str(&" ".repeat(indent + 1 + r.below(2)));
                    }
                    2 => {
                        s.push_str(r.pick(&["", " ", "  "]));
                        s.push('\n');
                        if r.below(2) == 0 {
                            s.push('\n');
                        }
                        s.push_str(&" ".repeat(indent + 1 + r.below(3)));
                    }
                    _ => s.push_str(r.pick(&[",", ": ", " # "])),
                }
            }
            let word = r.pick(WORDS);
            let escaped = if double {
                word.replace('\\', "\\\\").replace('"', "\\\"")
            } else {
                word.replace('\'', "''")
            };
            s.push_str(&escaped);
            if double && r.below(3) == 0 {
                s.push_str(r.pick(&["\\n", "\\t", "\\u00e9", "\\x41", "\\ ", "\\/", "\\q"]));
            }
        }
        s.push(q);
        s
    }

    fn block(r: &mut Rng, indent: usize) -> String {
        let mut s = r
            .pick(&["|", ">", "|-", ">-", "|+", ">+", "|2", ">1-", "|-2"])
            .to_string();
        if r.below(8) == 0 {
            s.push_str(" # header");
        }
        let inner = indent + 2;
        for _ in 0..1 + r.below(4) {
            s.push('\n');
            match r.below(6) {
                0 => {}
                1 => s.push_str(&" ".repeat(inner + 3)),
                2 => {
                    s.push_str(&" ".repeat(inner + 2));
                    s.push_str("more indented");
                }
                _ => {
                    s.push_str(&" ".repeat(inner));
                    s.push_str(r.pick(&["line one", "x: y", "# not a comment", "- item"]));
                }
            }
        }
        s
    }

    fn flow(r: &mut Rng) -> String {
        match r.below(5) {
            0 => "[]".into(),
            1 => "{}".into(),
            2 => format!("[{}, \"b\", 'c']", r.pick(&["a", "-x", "1"])),
            3 => format!("{{a: {}, b: \"c\"}}", r.pick(&["1", "x", "'q'"])),
            _ => format!("[{}]", r.pick(&["a,", "a: b", "[x]", "a, ,b"])),
        }
    }

    fn value(r: &mut Rng, indent: usize, depth: usize) -> String {
        match r.below(if depth > 2 { 6 } else { 9 }) {
            0 => format!(" {}", plain(r, indent)),
            1 => format!(" {}", quoted(r, indent, true)),
            2 => format!(" {}", quoted(r, indent, false)),
            3 => format!(" {}", block(r, indent)),
            4 => format!(" {}", flow(r)),
            5 => r.pick(&["", " # empty", "  "]).to_string(),
            6 => format!("\n{}", map(r, indent + 2, depth + 1)),
            7 => format!("\n{}", seq(r, indent + 2, depth + 1)),
            // An indentless sequence.
            _ => format!("\n{}", seq(r, indent, depth + 1)),
        }
    }

    fn map(r: &mut Rng, indent: usize, depth: usize) -> String {
        let mut out = Vec::new();
        for i in 0..1 + r.below(4) {
            let mut line = " ".repeat(indent);
            if r.below(6) == 0 {
                line.push_str("# a comment\n");
                line.push_str(&" ".repeat(indent));
            }
            line.push_str(r.pick(&["key", "\"quoted key\"", "'k'", "a.b/c"]));
            line.push_str(&i.to_string());
            line.push(':');
            line.push_str(&value(r, indent, depth));
            out.push(line);
        }
        out.join("\n")
    }

    fn seq(r: &mut Rng, indent: usize, depth: usize) -> String {
        let mut out = Vec::new();
        for _ in 0..1 + r.below(3) {
            let mut line = " ".repeat(indent);
            line.push('-');
            match r.below(4) {
                0 => line.push_str(&value(r, indent, depth)),
                1 if depth < 3 => {
                    // A compact map: its first key on the dash's line.
                    let m = map(r, indent + 2, depth + 1);
                    line.push(' ');
                    line.push_str(m.trim_start());
                }
                _ => {
                    line.push(' ');
                    line.push_str(&plain(r, indent));
                }
            }
            out.push(line);
        }
        out.join("\n")
    }

    fn document(r: &mut Rng) -> String {
        let mut text = String::new();
        for d in 0..1 + r.below(3) {
            if d > 0 || r.below(2) == 0 {
                text.push_str(r.pick(&["---\n", "--- # doc\n", "---\n\n"]));
            }
            if r.below(10) == 0 {
                continue;
            }
            let body = if r.below(4) == 0 {
                seq(r, 0, 0)
            } else {
                map(r, 0, 0)
            };
            text.push_str(&body);
            text.push_str(r.pick(&["\n", "\n\n", "", "\n# end\n"]));
            if !text.ends_with('\n') {
                text.push('\n');
            }
        }
        text
    }

    #[test]
    fn the_block_reader_builds_granits_tree_on_generated_yaml() {
        let (mut direct, mut failures) = (0, Vec::new());
        let n = 200_000;
        for seed in 1..=n {
            let mut r = Rng(seed * 0x9e37_79b9_7f4a_7c15);
            let text = document(&mut r);
            match block_reader_agrees(&text) {
                Ok(true) => direct += 1,
                Ok(false) => {}
                Err(d) => failures.push(format!("seed {seed}: {text:?}\n  {d}")),
            }
        }
        println!("block reader: {direct} of {n} generated texts read directly");
        agreed(&failures);
        // Many carry something the reader leaves to granit (a header comment, an invalid
        // escape, a bad flow collection): enough must remain to test it.
        assert!(
            direct * 10 > n as usize,
            "only {direct} of {n} read directly"
        );
    }
}
