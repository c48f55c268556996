//! kmerge as git runs it: a temporary repository with the driver configured through
//! `.gitattributes`, and real `git merge` / `git rebase` runs of two branches, asserting the
//! merged file byte for byte and git's exit status.
//!
//! Git's own line merge would produce the same bytes in the clean cases, so each test also
//! checks git's trace to prove the driver, not git, did the merge.

use crate::common::{code, kmerge_bin, stderr, stdout, traced_git, traced_git_with, Scratch};

const FILE: &str = "deploy/web.yaml";

const BASE: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: web:1.0
          ports:
            - containerPort: 8080
";

/// A fresh repository with its own identity, kmerge configured as the driver for `*.yaml`,
/// and a `base` commit holding `BASE`.
fn repo() -> Scratch {
    let s = crate::common::git_repo();
    configure(&s);
    s.write(FILE, BASE);
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "base"]);
    s
}

/// Defines kmerge as the merge driver in `s`'s config (the binary under test, by its path)
/// and sends `*.yaml` to it.
pub(crate) fn configure(s: &Scratch) {
    s.git_ok(&[
        "config",
        "merge.kmerge.name",
        "kmerge structural YAML merge",
    ]);
    let driver = format!(
        "{} driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y",
        shell_quote(&kmerge_bin().to_string_lossy())
    );
    s.git_ok(&["config", "merge.kmerge.driver", &driver]);
    s.write(".gitattributes", "*.yaml merge=kmerge\n");
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Commits `theirs` on a new branch `feature` and `ours` on `main`, leaving `main` checked out.
fn diverge(s: &Scratch, ours: &str, theirs: &str) {
    s.git_ok(&["checkout", "-q", "-b", "feature"]);
    s.write(FILE, theirs);
    s.git_ok(&["commit", "-q", "-a", "-m", "feature change"]);
    s.git_ok(&["checkout", "-q", "main"]);
    s.write(FILE, ours);
    s.git_ok(&["commit", "-q", "-a", "-m", "main change"]);
}

fn assert_driver_ran(trace: &str) {
    assert!(
        crate::common::driver_ran(trace, FILE),
        "git did not run the kmerge driver; trace:\n{trace}"
    );
}

fn short(s: &Scratch, rev: &str) -> String {
    let out = s.git_ok(&["rev-parse", "--short", rev]);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn merged_file(s: &Scratch) -> String {
    String::from_utf8_lossy(&s.read(FILE)).into_owned()
}

/// Ours bumps `replicas`, theirs the image twelve lines below.
fn far_apart() -> (String, String, String) {
    let ours = BASE.replace("replicas: 3", "replicas: 5");
    let theirs = BASE.replace("image: web:1.0", "image: web:1.1");
    let merged = ours.replace("image: web:1.0", "image: web:1.1");
    (ours, theirs, merged)
}

/// Both sides set `replicas`, to different values.
fn same_field() -> (String, String) {
    (
        BASE.replace("replicas: 3", "replicas: 5"),
        BASE.replace("replicas: 3", "replicas: 4"),
    )
}

/// `BASE` with the `replicas` line replaced by a conflict in git's format.
fn conflict_text(ours_label: &str, base: Option<&str>, theirs_label: &str) -> String {
    let base_section = base.map_or(String::new(), |label| {
        format!("||||||| {label}\n  replicas: 3\n")
    });
    BASE.replace(
        "  replicas: 3\n",
        &format!(
            "<<<<<<< {ours_label}\n  replicas: 5\n{base_section}=======\n  replicas: 4\n>>>>>>> {theirs_label}\n"
        ),
    )
}

#[test]
fn merge_of_far_apart_edits_is_clean() {
    let s = repo();
    let (ours, theirs, merged) = far_apart();
    diverge(&s, &ours, &theirs);
    let (out, trace) = traced_git(&s, &["merge", "--no-edit", "feature"]);
    assert_eq!(code(&out), 0, "git merge failed:\n{}", stderr(&out));
    assert_driver_ran(&trace);
    assert_eq!(merged_file(&s), merged);
    let status = s.git_ok(&["status", "--porcelain"]);
    assert_eq!(String::from_utf8_lossy(&status.stdout), "");
}

/// Ours bumps the image, theirs adds a field right below it: git's line merge conflicts.
fn adjacent() -> (String, String, String) {
    let ours = BASE.replace("image: web:1.0", "image: web:1.1");
    let pull = "image: web:1.0\n          imagePullPolicy: Always\n";
    let theirs = BASE.replace("image: web:1.0\n", pull);
    let merged = ours.replace(
        "image: web:1.1\n",
        "image: web:1.1\n          imagePullPolicy: Always\n",
    );
    (ours, theirs, merged)
}

/// Where git's line merge would stop, the merge goes through, and git's output says in one
/// line that kmerge resolved the conflict.
#[test]
fn merge_of_adjacent_edits_is_clean_and_says_so() {
    let s = repo();
    let (ours, theirs, merged) = adjacent();
    diverge(&s, &ours, &theirs);
    let (out, trace) = traced_git(&s, &["merge", "--no-edit", "feature"]);
    assert_eq!(code(&out), 0, "git merge failed:\n{}", stderr(&out));
    assert_driver_ran(&trace);
    assert_eq!(merged_file(&s), merged);
    assert!(
        stderr(&out).contains(&format!(
            "kmerge: {FILE}: merged 1 conflicting hunk by structure\n"
        )),
        "{}",
        stderr(&out)
    );
}

/// `git merge-file` on the three versions with the labels git gives the driver in a merge
/// of `feature` (the base's label only shows in a diff3 conflict): its bytes and exit code.
fn git_merge_file(s: &Scratch, ours: &str, theirs: &str) -> (String, i32) {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let (o, b, t) = (
        write("ours", ours),
        write("base", BASE),
        write("theirs", theirs),
    );
    let base_label = short(s, "main~1");
    let out = s.git(&[
        "merge-file",
        "-p",
        "-L",
        "HEAD",
        "-L",
        &base_label,
        "-L",
        "feature",
        &o,
        &b,
        &t,
    ]);
    (stdout(&out), code(&out))
}

/// `KMERGE_DRIVER=off` leaves one command's merge to git's line merge: where kmerge would
/// merge by structure, the file is git's conflict, byte for byte, git stops as it would, and
/// one line says why.
#[test]
fn merge_with_the_driver_switched_off_is_gits_line_merge() {
    let s = repo();
    let (ours, theirs, _) = adjacent();
    diverge(&s, &ours, &theirs);
    let (expected, git_code) = git_merge_file(&s, &ours, &theirs);
    assert_eq!(git_code, 1, "git's line merge conflicts here:\n{expected}");
    let (out, trace) = traced_git_with(
        &s,
        &["merge", "--no-edit", "feature"],
        &[("KMERGE_DRIVER", "off")],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_driver_ran(&trace);
    assert_eq!(merged_file(&s), expected);
    let err = stderr(&out);
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("kmerge:"))
            .collect::<Vec<_>>(),
        [format!(
            "kmerge: {FILE}: KMERGE_DRIVER=off: merged by git's line merge, with conflicts"
        )],
        "{err}"
    );
    let status = s.git_ok(&["status", "--porcelain"]);
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        format!("UU {FILE}\n")
    );
    assert!(
        !s.join(".git/kmerge").exists(),
        "switched off, kmerge records nothing"
    );
}

#[test]
fn rebase_of_far_apart_edits_is_clean() {
    let s = repo();
    let (ours, theirs, merged) = far_apart();
    diverge(&s, &ours, &theirs);
    s.git_ok(&["checkout", "-q", "feature"]);
    let (out, trace) = traced_git(&s, &["rebase", "main"]);
    assert_eq!(code(&out), 0, "git rebase failed:\n{}", stderr(&out));
    assert_driver_ran(&trace);
    assert_eq!(merged_file(&s), merged);
}

#[test]
fn merge_conflict_on_one_field_is_marked_like_git() {
    let s = repo();
    let (ours, theirs) = same_field();
    diverge(&s, &ours, &theirs);
    let (out, trace) = traced_git(&s, &["merge", "--no-edit", "feature"]);
    assert_ne!(code(&out), 0, "the merge must stop on the conflict");
    assert_driver_ran(&trace);
    assert_eq!(merged_file(&s), conflict_text("HEAD", None, "feature"));
    assert!(
        stderr(&out).contains(&format!("kmerge: {FILE}: ")),
        "messages name the repository path: {}",
        stderr(&out)
    );
    let status = s.git_ok(&["status", "--porcelain"]);
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        format!("UU {FILE}\n")
    );
}

#[test]
fn rebase_conflict_on_one_field_is_marked_like_git() {
    let s = repo();
    let (ours, theirs) = same_field();
    diverge(&s, &ours, &theirs);
    let picked = short(&s, "feature");
    s.git_ok(&["checkout", "-q", "feature"]);
    let (out, trace) = traced_git(&s, &["rebase", "main"]);
    assert_ne!(code(&out), 0, "the rebase must stop on the conflict");
    assert_driver_ran(&trace);
    // While rebasing, HEAD is main and the commit being replayed is "theirs".
    let expected = conflict_text("HEAD", None, &format!("{picked} (feature change)"));
    assert_eq!(merged_file(&s), expected);
    s.git_ok(&["rebase", "--abort"]);
}

#[test]
fn merge_with_diff3_style_from_repo_config() {
    let s = repo();
    let (ours, theirs) = same_field();
    diverge(&s, &ours, &theirs);
    s.git_ok(&["config", "merge.conflictStyle", "diff3"]);
    let base = short(&s, "main~1");
    let (out, trace) = traced_git(&s, &["merge", "--no-edit", "feature"]);
    assert_ne!(code(&out), 0);
    assert_driver_ran(&trace);
    let text = merged_file(&s);
    assert!(text.contains("\n||||||| "), "{text}");
    assert_eq!(text, conflict_text("HEAD", Some(&base), "feature"));
}

/// `git -c merge.conflictStyle=diff3` reaches the driver in git's environment
/// (`GIT_CONFIG_PARAMETERS`) and wins over the repository's config, as in git.
#[test]
fn merge_with_diff3_style_from_gits_command_line() {
    let s = repo();
    let (ours, theirs) = same_field();
    diverge(&s, &ours, &theirs);
    s.git_ok(&["config", "merge.conflictStyle", "merge"]);
    let base = short(&s, "main~1");
    let (out, trace) = traced_git(
        &s,
        &[
            "-c",
            "merge.conflictStyle=diff3",
            "merge",
            "--no-edit",
            "feature",
        ],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_driver_ran(&trace);
    assert_eq!(
        merged_file(&s),
        conflict_text("HEAD", Some(&base), "feature")
    );
}

/// A linked worktree shares the repository's config: its `merge.conflictStyle` holds there.
#[test]
fn merge_in_a_linked_worktree_reads_the_repository_config() {
    let s = repo();
    let (ours, theirs) = same_field();
    diverge(&s, &ours, &theirs);
    s.git_ok(&["config", "merge.conflictStyle", "diff3"]);
    s.git_ok(&["worktree", "add", "-q", "-b", "linked", "linked", "main"]);
    let base = short(&s, "main~1");
    let (out, trace) = traced_git(&s, &["-C", "linked", "merge", "--no-edit", "feature"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_driver_ran(&trace);
    let merged = String::from_utf8_lossy(&s.read(&format!("linked/{FILE}"))).into_owned();
    assert_eq!(merged, conflict_text("HEAD", Some(&base), "feature"));
}

#[test]
fn rebase_with_diff3_style_from_repo_config() {
    let s = repo();
    let (ours, theirs) = same_field();
    diverge(&s, &ours, &theirs);
    s.git_ok(&["config", "merge.conflictStyle", "diff3"]);
    let picked = short(&s, "feature");
    s.git_ok(&["checkout", "-q", "feature"]);
    let (out, trace) = traced_git(&s, &["rebase", "main"]);
    assert_ne!(code(&out), 0);
    assert_driver_ran(&trace);
    let expected = conflict_text(
        "HEAD",
        Some(&format!("parent of {picked} (feature change)")),
        &format!("{picked} (feature change)"),
    );
    assert_eq!(merged_file(&s), expected);
    s.git_ok(&["rebase", "--abort"]);
}

/// Git passes the file's path (%P): a `kustomization.yaml` that names no kind is a
/// kustomization, whose `resources` is a set, so the entries both branches appended are both
/// kept (ours' first) where a plain list would conflict.
#[test]
fn merge_of_a_kindless_kustomization_takes_both_resources() {
    let s = repo();
    const KUSTOMIZATION: &str = "overlays/prod/kustomization.yaml";
    let base = "resources:\n  - ../../base\n  - service.yaml\n";
    s.write(KUSTOMIZATION, base);
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "kustomization"]);
    s.git_ok(&["checkout", "-q", "-b", "feature"]);
    s.write(KUSTOMIZATION, format!("{base}  - hpa.yaml\n"));
    s.git_ok(&["commit", "-q", "-a", "-m", "feature change"]);
    s.git_ok(&["checkout", "-q", "main"]);
    s.write(KUSTOMIZATION, format!("{base}  - ingress.yaml\n"));
    s.git_ok(&["commit", "-q", "-a", "-m", "main change"]);
    let (out, trace) = traced_git(&s, &["merge", "--no-edit", "feature"]);
    assert_eq!(code(&out), 0, "git merge failed:\n{}", stderr(&out));
    assert!(
        crate::common::driver_ran(&trace, KUSTOMIZATION),
        "git did not run the kmerge driver; trace:\n{trace}"
    );
    let merged = String::from_utf8_lossy(&s.read(KUSTOMIZATION)).into_owned();
    assert_eq!(merged, format!("{base}  - ingress.yaml\n  - hpa.yaml\n"));
}
