//! `kmerge review` after real merges with the driver: the files it merged by structure and
//! those it left in conflict, each with the lines the driver printed, and nothing else.

use crate::common::{code, git_repo, stderr, stdout, Scratch};
use crate::BASE;

/// Ours bumps the image, theirs adds a field right below it: kmerge merges what git cannot.
const API: &str = "deploy/api.yaml";
/// Ours bumps `replicas`, theirs the image: git's line merge is clean, kmerge keeps it.
const CACHE: &str = "deploy/cache.yaml";
/// Both sides set `replicas`: a conflict.
const DB: &str = "deploy/db.yaml";
/// As `API`.
const WEB: &str = "deploy/web.yaml";

/// A repository with the driver defined and the four files above changed on `main` and on
/// `feature`, `main` checked out.
fn four_files() -> Scratch {
    let s = git_repo();
    crate::driver::configure(&s);
    for file in [API, CACHE, DB, WEB] {
        s.write(file, BASE);
    }
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "base"]);
    let pull = "image: web:1.0\n          imagePullPolicy: Always\n";
    s.git_ok(&["checkout", "-q", "-b", "feature"]);
    s.write(API, BASE.replace("image: web:1.0\n", pull));
    s.write(CACHE, BASE.replace("web:1.0", "web:1.1"));
    s.write(DB, BASE.replace("replicas: 3", "replicas: 4"));
    s.write(WEB, BASE.replace("image: web:1.0\n", pull));
    s.git_ok(&["commit", "-q", "-a", "-m", "feature change"]);
    s.git_ok(&["checkout", "-q", "main"]);
    s.write(API, BASE.replace("web:1.0", "web:1.1"));
    s.write(CACHE, BASE.replace("replicas: 3", "replicas: 5"));
    s.write(DB, BASE.replace("replicas: 3", "replicas: 5"));
    s.write(WEB, BASE.replace("web:1.0", "web:1.1"));
    s.git_ok(&["commit", "-q", "-a", "-m", "main change"]);
    s
}

/// `git merge feature`, which stops on `DB`'s conflict: the driver's lines on stderr,
/// `kmerge: ` taken off.
fn merge(s: &Scratch) -> Vec<String> {
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    stderr(&out)
        .lines()
        .filter_map(|l| l.strip_prefix("kmerge: "))
        .map(str::to_string)
        .collect()
}

/// The path each of the driver's lines is about.
fn paths(said: &[String]) -> Vec<&str> {
    said.iter().filter_map(|l| l.split(": ").next()).collect()
}

/// What `kmerge review` shows of a merge whose driver printed `said`: each line after what
/// became of its file, the files by path.
fn body(said: &[String]) -> String {
    let mut said: Vec<&String> = said.iter().collect();
    said.sort_by_key(|line| line.split(": ").next());
    said.iter()
        .map(|line| {
            let status = if line.starts_with(DB) {
                "conflict"
            } else {
                "merged  "
            };
            format!("  {status}  {line}\n")
        })
        .collect()
}

fn review(s: &Scratch, args: &[&str]) -> std::process::Output {
    let mut all = vec!["review"];
    all.extend_from_slice(args);
    s.kmerge(&all)
}

/// After a merge with two files merged by structure, one left in conflict and one git merged
/// alone, `kmerge review` lists exactly the three, with what the driver printed.
#[test]
fn review_lists_what_the_driver_merged_and_left_in_conflict() {
    let s = four_files();
    let said = merge(&s);
    // Git merges the files in an order of its own.
    let paths = paths(&said);
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(sorted, [API, DB, WEB], "{said:?}");
    assert!(
        said.contains(&format!("{API}: merged 1 conflicting hunk by structure")),
        "{said:?}"
    );

    let out = review(&s, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let shown = stdout(&out);
    let (header, rest) = shown.split_once('\n').unwrap();
    let head = stdout(&s.git_ok(&["rev-parse", "--short", "HEAD"]));
    let (prefix, time_and_counts) = header.split_once(", ").unwrap();
    assert_eq!(prefix, format!("feature into HEAD at {}", head.trim()));
    let (time, counts) = time_and_counts.split_once(": ").unwrap();
    assert!(time.len() == 20 && time.ends_with('Z'), "{time}");
    assert_eq!(counts, "2 merged by structure, 1 left in conflict");
    assert_eq!(rest, body(&said));

    // The log's line: HEAD's full id and git's labels as the driver received them.
    let log = String::from_utf8_lossy(&s.read(".git/kmerge/log")).into_owned();
    let full = stdout(&s.git_ok(&["rev-parse", "HEAD"]));
    for (line, path) in log.lines().zip(&paths) {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            fields[1..5],
            [full.trim(), "HEAD", "feature", *path],
            "{line}"
        );
    }
    assert_eq!(log.lines().count(), 3);
}

/// The same merge run again after `git merge --abort` is a new operation: its files are
/// shown once, and `--all` shows both runs.
#[test]
fn a_merge_run_again_is_shown_once() {
    let s = four_files();
    let first = merge(&s);
    s.git_ok(&["merge", "--abort"]);
    let second = merge(&s);
    assert_eq!(first, second);

    let last = stdout(&review(&s, &[]));
    assert_eq!(last.lines().count(), 1 + second.len(), "{last}");
    assert!(last.ends_with(&body(&second)), "{last}");

    let all = stdout(&review(&s, &["--all"]));
    let runs: Vec<&str> = all.split("\n\n").collect();
    assert_eq!(runs.len(), 2, "{all}");
    let earlier = format!("{}\n", runs[0]);
    assert!(earlier.starts_with("feature into HEAD at "), "{all}");
    assert!(earlier.ends_with(&body(&first)), "{all}");
    assert_eq!(runs[1], last);
}

/// Before any merge there is nothing to show, and outside a repository there is no log.
#[test]
fn review_before_any_merge_says_so() {
    let s = git_repo();
    let out = review(&s, &[]);
    assert_eq!(code(&out), 0);
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "kmerge review: nothing recorded yet (the driver records each file it merges by \
         structure or leaves in conflict)\n"
    );
    let out = Scratch::new().kmerge(&["review"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("kmerge: error: not inside a git repository"),
        "{}",
        stderr(&out)
    );
}

/// A log that cannot be written changes nothing of the merge: each file it would have
/// recorded gets one line on stderr.
#[test]
fn a_log_that_cannot_be_written_does_not_fail_the_merge() {
    let reference = four_files();
    let said = merge(&reference);
    let s = four_files();
    s.write(".git/kmerge", "not a folder\n");
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    for file in [API, CACHE, DB, WEB] {
        assert_eq!(s.read(file), reference.read(file), "{file}");
    }
    let err = stderr(&out);
    let warnings: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("kmerge: warning: "))
        .collect();
    assert_eq!(warnings.len(), 3, "{err}");
    for (warning, path) in warnings.iter().zip(paths(&said)) {
        let prefix = format!("kmerge: warning: {path}: not recorded for kmerge review: creating ");
        assert!(warning.starts_with(&prefix), "{warning}");
    }
    let merged: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("kmerge: warning: "))
        .filter_map(|l| l.strip_prefix("kmerge: "))
        .collect();
    assert_eq!(merged, said, "{err}");
}
