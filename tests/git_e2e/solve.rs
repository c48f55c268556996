//! `kmerge solve` in temporary repositories: a merge, rebase or cherry-pick run without the
//! driver stops on a conflict; `kmerge solve` then gives byte for byte what the driver would
//! have given (labels, marker size and conflict style included), stages what it solved, and
//! git carries on.
//!
//! Each repository marks `*.yaml merge=kmerge` in `.gitattributes` but defines no driver, so
//! git's own line merge runs; the driver's reference result comes from the same merge run
//! again with the driver defined through `git -c`.

use crate::common::{
    code, driver_ran, git_repo, kmerge_bin, run_git, stderr, stdout, traced_git, Scratch,
};
use crate::{BASE, FILE};

/// Ours bumps the image, theirs adds a field right below it: git conflicts, kmerge does not.
fn adjacent() -> (String, String, String) {
    let ours = BASE.replace("web:1.0", "web:1.1");
    let theirs = BASE.replace(
        "image: web:1.0\n",
        "image: web:1.0\n          imagePullPolicy: Always\n",
    );
    let merged = ours.replace(
        "image: web:1.1\n",
        "image: web:1.1\n          imagePullPolicy: Always\n",
    );
    (ours, theirs, merged)
}

/// Both sides set `replicas`, and theirs also adds a field beside the image: a true conflict
/// on one line, plus a hunk git conflicts on and kmerge merges.
fn conflicting() -> (String, String) {
    let (ours, theirs, _) = adjacent();
    (
        ours.replace("replicas: 3", "replicas: 5"),
        theirs.replace("replicas: 3", "replicas: 4"),
    )
}

/// A repository whose `.gitattributes` sends YAML to kmerge, with no driver defined, and a
/// `base` commit holding `files`.
fn repo(files: &[(&str, &str)]) -> Scratch {
    let s = git_repo();
    s.write(".gitattributes", "*.yaml merge=kmerge\n");
    for (name, text) in files {
        s.write(name, text);
    }
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "base"]);
    s
}

/// Commits `theirs` on `feature` and `ours` on `main` (each a list of files), leaving `main`
/// checked out.
fn diverge(s: &Scratch, ours: &[(&str, &str)], theirs: &[(&str, &str)]) {
    s.git_ok(&["checkout", "-q", "-b", "feature"]);
    for (name, text) in theirs {
        s.write(name, text);
    }
    s.git_ok(&["commit", "-q", "-a", "-m", "feature change"]);
    s.git_ok(&["checkout", "-q", "main"]);
    for (name, text) in ours {
        s.write(name, text);
    }
    s.git_ok(&["commit", "-q", "-a", "-m", "main change"]);
}

/// `git` with the kmerge driver defined for this one command.
fn with_driver(args: &[&str]) -> Vec<String> {
    let driver = format!(
        "merge.kmerge.driver={} driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y",
        kmerge_bin().display()
    );
    let mut all = vec!["-c".to_string(), driver];
    all.extend(args.iter().map(|a| a.to_string()));
    all
}

/// The file as the driver merges it in `git merge feature` (the merge is then undone).
fn drivers_merge(s: &Scratch) -> (String, i32) {
    let args = with_driver(&["merge", "--no-commit", "--no-ff", "feature"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, trace) = traced_git(s, &args);
    assert!(driver_ran(&trace, FILE), "the driver did not run:\n{trace}");
    let result = String::from_utf8_lossy(&s.read(FILE)).into_owned();
    s.git_ok(&["merge", "--abort"]);
    (result, code(&out))
}

fn status(s: &Scratch) -> String {
    stdout(&s.git_ok(&["status", "--porcelain", "--untracked-files=no"]))
}

fn solve(s: &Scratch, args: &[&str]) -> std::process::Output {
    let mut all = vec!["solve"];
    all.extend_from_slice(args);
    s.kmerge(&all)
}

/// A merge git stopped on, solved: the driver's bytes, staged, and the merge commits.
#[test]
fn merge_made_without_the_driver_is_solved_and_staged() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs, merged) = adjacent();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let (reference, driver_code) = drivers_merge(&s);
    assert_eq!(driver_code, 0);
    assert_eq!(reference, merged);

    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1, "git's line merge conflicts");
    assert_eq!(status(&s), format!("UU {FILE}\n"));

    let out = solve(&s, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "kmerge: {FILE}: merged 1 conflicting hunk by structure; staged\n\
             kmerge solve: 1 solved and staged, 0 with conflicts left, 0 not touched\n"
        )
    );
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
    assert_eq!(status(&s), format!("M  {FILE}\n"));
    s.git_ok(&["commit", "-q", "--no-edit"]);
    let show = s.git_ok(&["show", &format!("HEAD:{FILE}")]);
    assert_eq!(stdout(&show), merged);
}

/// A true conflict keeps kmerge's markers, with git's labels and the repository's diff3
/// style exactly as the driver writes them, and stays unstaged.
#[test]
fn a_true_conflict_keeps_the_drivers_markers_and_labels() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    s.git_ok(&["config", "merge.conflictStyle", "diff3"]);
    let (reference, driver_code) = drivers_merge(&s);
    assert_eq!(driver_code, 1);
    let base = stdout(&s.git_ok(&["rev-parse", "--short", "main~1"]));
    assert!(
        reference.contains("<<<<<<< HEAD\n")
            && reference.contains(&format!("||||||| {}\n", base.trim()))
            && reference.contains(">>>>>>> feature\n")
            && reference.contains("imagePullPolicy: Always"),
        "{reference}"
    );

    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);
    let out = solve(&s, &[FILE]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("kmerge: {FILE}: conflict in "))
            && err.ends_with(
                "kmerge solve: 0 solved and staged, 1 with conflicts left, 0 not touched\n"
            ),
        "{err}"
    );
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
    assert_eq!(status(&s), format!("UU {FILE}\n"));
}

/// A conflict style given on git's command line reaches `kmerge solve` as git passes it to
/// the programs it runs (a `git -c merge.conflictStyle=diff3 kmerge solve` alias, or the
/// user's environment): the diff3 conflict the merge left is recognised as git wrote it, and
/// re-merged with the base section the driver writes.
#[test]
fn conflict_style_from_gits_command_line_is_honoured() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let args = with_driver(&[
        "-c",
        "merge.conflictStyle=diff3",
        "merge",
        "--no-commit",
        "--no-ff",
        "feature",
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, trace) = traced_git(&s, &args);
    assert_eq!(code(&out), 1);
    assert!(driver_ran(&trace, FILE), "the driver did not run:\n{trace}");
    let reference = String::from_utf8_lossy(&s.read(FILE)).into_owned();
    s.git_ok(&["merge", "--abort"]);
    let base = stdout(&s.git_ok(&["rev-parse", "--short", "main~1"]));
    assert!(
        reference.contains(&format!("||||||| {}\n", base.trim())),
        "{reference}"
    );

    let out = s.git(&["-c", "merge.conflictStyle=diff3", "merge", "feature"]);
    assert_eq!(code(&out), 1);
    for (var, value) in [
        ("GIT_CONFIG_PARAMETERS", "'merge.conflictStyle'='diff3'"),
        ("GIT_CONFIG_COUNT", "1"),
    ] {
        let out = s
            .command(kmerge_bin())
            .args(["solve", FILE])
            .env(var, value)
            .env("GIT_CONFIG_KEY_0", "merge.conflictstyle")
            .env("GIT_CONFIG_VALUE_0", "diff3")
            .output()
            .unwrap();
        assert_eq!(code(&out), 1, "{var}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with(&format!("kmerge: {FILE}: conflict in ")),
            "{var}: {}",
            stderr(&out)
        );
        assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference, "{var}");
    }
}

/// `core.attributesFile` given on git's command line decides which files are kmerge's: there,
/// `*.yaml merge=text` keeps a conflicted YAML file out of `kmerge solve`, which takes it
/// without the setting.
#[test]
fn attributes_file_from_gits_command_line_is_read() {
    let s = git_repo();
    s.write(FILE, BASE);
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "base"]);
    let (ours, theirs, merged) = adjacent();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    assert_eq!(code(&s.git(&["merge", "feature"])), 1);
    let attributes = s.write("elsewhere/attributes", "*.yaml merge=text\n");

    let out = s
        .command(kmerge_bin())
        .arg("solve")
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "core.attributesFile")
        .env("GIT_CONFIG_VALUE_0", &attributes)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "kmerge: no conflicted YAML file to solve\n");
    assert_eq!(status(&s), format!("UU {FILE}\n"));

    let out = solve(&s, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), merged);
}

/// Settings git itself would refuse stop `kmerge solve` before it touches anything, as they
/// stop git.
#[test]
fn malformed_command_line_settings_stop_solve() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs, _) = adjacent();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    assert_eq!(code(&s.git(&["merge", "feature"])), 1);
    let before = s.read(FILE);
    let out = s
        .command(kmerge_bin())
        .arg("solve")
        .env("GIT_CONFIG_PARAMETERS", "merge.conflictStyle=diff3")
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "kmerge: error: reading git's command-line settings: in GIT_CONFIG_PARAMETERS: bogus \
         format: \"merge.conflictStyle=diff3\"\n"
    );
    assert_eq!(s.read(FILE), before);
    assert_eq!(status(&s), format!("UU {FILE}\n"));
}

/// With no file named, every conflicted YAML file is solved; other files are not kmerge's,
/// and a file deleted on one side is reported and left for the user.
#[test]
fn without_files_every_conflicted_yaml_file_is_solved() {
    let other = "deploy/other.yaml";
    let gone = "deploy/gone.yaml";
    let json = "config.json";
    let (ours, theirs, merged) = adjacent();
    let s = repo(&[
        (FILE, BASE),
        (other, BASE),
        (gone, BASE),
        (json, "{\n  \"a\": 1\n}\n"),
    ]);
    s.git_ok(&["checkout", "-q", "-b", "feature"]);
    s.write(FILE, &theirs);
    s.write(other, &theirs);
    s.write(gone, &theirs);
    s.write(json, "{\n  \"a\": 2\n}\n");
    s.git_ok(&["commit", "-q", "-a", "-m", "feature change"]);
    s.git_ok(&["checkout", "-q", "main"]);
    s.write(FILE, &ours);
    s.write(other, &ours);
    s.write(json, "{\n  \"a\": 3\n}\n");
    s.git_ok(&["rm", "-q", gone]);
    s.git_ok(&["commit", "-q", "-a", "-m", "main change"]);
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);

    let out = solve(&s, &[]);
    assert_eq!(code(&out), 1, "one file is left: {}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "kmerge: {gone}: deleted on our side: not touched, for you to decide\n"
        )),
        "{err}"
    );
    assert!(!err.contains(json), "{err}");
    assert!(
        err.ends_with("kmerge solve: 2 solved and staged, 0 with conflicts left, 1 not touched\n"),
        "{err}"
    );
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), merged);
    assert_eq!(String::from_utf8_lossy(&s.read(other)), merged);
    assert_eq!(
        status(&s),
        format!("UU {json}\nDU {gone}\nM  {other}\nM  {FILE}\n")
    );
}

/// `--no-add` writes the solved file and leaves the index as git left it; a file named from
/// a subdirectory is found.
#[test]
fn no_add_leaves_the_index_alone() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs, merged) = adjacent();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);
    let out = s
        .command(kmerge_bin())
        .current_dir(s.join("deploy"))
        .args(["solve", "--no-add", "web.yaml"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "kmerge: {FILE}: merged 1 conflicting hunk by structure; left unstaged (--no-add)\n\
             kmerge solve: 1 solved, 0 with conflicts left, 0 not touched\n"
        )
    );
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), merged);
    assert_eq!(status(&s), format!("UU {FILE}\n"));

    // Solving again is harmless, and --quiet says nothing when all is solved.
    let out = solve(&s, &["--quiet"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert_eq!(status(&s), format!("M  {FILE}\n"));
}

/// A file someone has started to resolve by hand (one conflict settled, markers left around
/// another) is no longer what git's merge wrote: solve leaves it byte for byte, names it, and
/// still solves the other files of the same call. A file resolved completely is left alike.
#[test]
fn a_file_resolved_by_hand_is_not_touched() {
    let other = "deploy/other.yaml";
    let s = repo(&[(FILE, BASE), (other, BASE)]);
    let (ours, theirs) = conflicting();
    let (other_ours, other_theirs, other_merged) = adjacent();
    diverge(
        &s,
        &[(FILE, &ours), (other, &other_ours)],
        &[(FILE, &theirs), (other, &other_theirs)],
    );
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);
    let git_wrote = String::from_utf8_lossy(&s.read(FILE)).into_owned();
    let replicas = "<<<<<<< HEAD\n  replicas: 5\n=======\n  replicas: 4\n>>>>>>> feature\n";
    assert!(git_wrote.contains(replicas), "{git_wrote}");
    let edited = git_wrote.replace(replicas, "  replicas: 4\n");
    assert!(
        edited.contains("<<<<<<< HEAD\n"),
        "a conflict is left: {edited}"
    );
    s.write(FILE, &edited);

    let out = solve(&s, &[FILE, other]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "kmerge: {FILE}: edited since the merge wrote it: not touched (--force re-merges it, \
             keeping a copy of yours)\n\
             kmerge: {other}: merged 1 conflicting hunk by structure; staged\n\
             kmerge solve: 1 solved and staged, 0 with conflicts left, 1 not touched\n"
        )
    );
    assert_eq!(s.read(FILE), edited.as_bytes());
    assert_eq!(String::from_utf8_lossy(&s.read(other)), other_merged);
    assert_eq!(status(&s), format!("M  {other}\nUU {FILE}\n"));

    s.write(FILE, &ours);
    let out = solve(&s, &[FILE]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(&format!(
            "kmerge: {FILE}: edited since the merge wrote it: not touched"
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), ours);
    assert_eq!(status(&s), format!("M  {other}\nUU {FILE}\n"));

    let out = solve(&s, &["config.json"]);
    assert_eq!(code(&out), 0, "a file not in conflict has nothing to solve");
    assert!(stderr(&out).contains("not in conflict"), "{}", stderr(&out));
}

/// A rebase run without the driver stops on the conflict; solved, it continues to the end.
#[test]
fn a_rebase_stopped_on_a_conflict_is_solved_and_continues() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs, merged) = adjacent();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    s.git_ok(&["checkout", "-q", "feature"]);
    let out = s.git(&["rebase", "main"]);
    assert_ne!(code(&out), 0, "the rebase stops on the conflict");

    let out = solve(&s, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), merged);
    let out = s.git(&["rebase", "--continue"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(
        stdout(&s.git_ok(&["log", "--format=%s", "main~1..feature"])),
        "feature change\nmain change\n"
    );
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), merged);
}

/// While rebasing or cherry-picking, git labels theirs with the commit being replayed: solve
/// writes the same markers the driver does there.
#[test]
fn rebase_and_cherry_pick_conflicts_carry_gits_labels() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    s.git_ok(&["config", "merge.conflictStyle", "diff3"]);
    let picked = stdout(&s.git_ok(&["rev-parse", "--short", "feature"]));
    let picked = picked.trim();

    // Cherry-pick feature onto main, with the driver, then without it and solved.
    let args = with_driver(&["cherry-pick", "feature"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, trace) = traced_git(&s, &args);
    assert_ne!(code(&out), 0);
    assert!(driver_ran(&trace, FILE), "{trace}");
    let reference = String::from_utf8_lossy(&s.read(FILE)).into_owned();
    assert!(
        reference.contains(&format!(">>>>>>> {picked} (feature change)\n"))
            && reference.contains(&format!("||||||| parent of {picked} (feature change)\n")),
        "{reference}"
    );
    s.git_ok(&["cherry-pick", "--abort"]);
    let out = s.git(&["cherry-pick", "feature"]);
    assert_ne!(code(&out), 0);
    let out = solve(&s, &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
    s.git_ok(&["cherry-pick", "--abort"]);

    // The same commit replayed by a rebase of feature onto main.
    s.git_ok(&["checkout", "-q", "feature"]);
    let args = with_driver(&["rebase", "main"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, _) = traced_git(&s, &args);
    assert_ne!(code(&out), 0);
    let reference = String::from_utf8_lossy(&s.read(FILE)).into_owned();
    s.git_ok(&["rebase", "--abort"]);
    let out = s.git(&["rebase", "main"]);
    assert_ne!(code(&out), 0);
    let out = solve(&s, &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
    s.git_ok(&["rebase", "--abort"]);
}

#[test]
fn outside_a_conflict_there_is_nothing_to_solve() {
    let s = repo(&[(FILE, BASE)]);
    let out = solve(&s, &[]);
    assert_eq!(code(&out), 0);
    assert_eq!(stderr(&out), "kmerge: no conflicted YAML file to solve\n");
    let out = Scratch::new().kmerge(&["solve"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("kmerge: error: not inside a git repository"),
        "{}",
        stderr(&out)
    );
}

/// `git merge` with the kmerge driver defined, left as it stops (no abort): the file as the
/// driver wrote it.
fn merge_with_driver(s: &Scratch, commit: &str) -> (String, i32) {
    let args = with_driver(&["merge", "--no-commit", "--no-ff", commit]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (out, trace) = traced_git(s, &args);
    assert!(driver_ran(&trace, FILE), "the driver did not run:\n{trace}");
    (
        String::from_utf8_lossy(&s.read(FILE)).into_owned(),
        code(&out),
    )
}

/// Where `--force` keeps a person's file, in the git folder of the work tree at `dir`.
fn backup_in(s: &Scratch, dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let out = s
        .command("git")
        .current_dir(dir)
        .args(["rev-parse", "--absolute-git-dir"])
        .output()
        .unwrap();
    std::path::PathBuf::from(stdout(&out).trim())
        .join("kmerge/solve-backup")
        .join(name)
}

/// `--force` re-merges a file edited since the merge wrote it, after copying the person's
/// bytes to `.git/kmerge/solve-backup/<path>` and printing that path; a later, different copy
/// is numbered rather than written over the first.
#[test]
fn force_re_merges_an_edited_file_and_keeps_a_copy() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let (reference, _) = drivers_merge(&s);
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);
    let edited = format!("# looked at\n{}", String::from_utf8_lossy(&s.read(FILE)));
    s.write(FILE, &edited);

    let out = solve(&s, &["--force", FILE]);
    assert_eq!(code(&out), 1, "the true conflict is left: {}", stderr(&out));
    let backup = backup_in(&s, s.path(), FILE);
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "kmerge: {FILE}: edited since the merge wrote it: your version is copied to {}\n\
             kmerge: {FILE}: conflict in ",
            backup.display()
        )),
        "{err}"
    );
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
    assert_eq!(std::fs::read(&backup).unwrap(), edited.as_bytes());
    assert_eq!(status(&s), format!("UU {FILE}\n"));

    // Forced again over the same edit: the copy is there already.
    s.write(FILE, &edited);
    let out = solve(&s, &["--force", FILE]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("copied to {}\n", backup.display())));
    // Over a different edit: the first copy stays, the second is numbered.
    let edited_again = format!("# looked at again\n{edited}");
    s.write(FILE, &edited_again);
    let out = solve(&s, &["--force", FILE]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let numbered = backup.with_file_name("web.yaml.1");
    assert!(stderr(&out).contains(&format!("copied to {}\n", numbered.display())));
    assert_eq!(std::fs::read(&backup).unwrap(), edited.as_bytes());
    assert_eq!(std::fs::read(&numbered).unwrap(), edited_again.as_bytes());
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
}

/// In a linked worktree the copy goes to that worktree's own git folder
/// (`.git/worktrees/<name>/`), beside its index and `MERGE_HEAD`.
#[test]
fn force_in_a_linked_worktree_keeps_the_copy_in_its_git_folder() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    s.git_ok(&["worktree", "add", "-q", "-b", "linked", "linked", "main"]);
    let linked = s.join("linked");
    let git_there = |args: &[&str]| run_git(s.command("git").current_dir(&linked).args(args));
    assert_eq!(code(&git_there(&["merge", "feature"])), 1);
    let file = linked.join(FILE);
    std::fs::write(&file, "resolved: by hand\n").unwrap();

    let out = s
        .command(kmerge_bin())
        .current_dir(&linked)
        .args(["solve", "--force"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let backup = backup_in(&s, &linked, FILE);
    assert!(
        backup.ends_with(format!(".git/worktrees/linked/kmerge/solve-backup/{FILE}")),
        "{}",
        backup.display()
    );
    assert!(
        stderr(&out).starts_with(&format!(
            "kmerge: {FILE}: edited since the merge wrote it: your version is copied to {}\n",
            backup.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read(&backup).unwrap(), b"resolved: by hand\n");
    assert!(
        !s.join(".git/kmerge").exists(),
        "nothing in the main git folder"
    );
    assert!(std::fs::read_to_string(&file)
        .unwrap()
        .contains("<<<<<<< HEAD\n"));
}

/// A second solve over a conflict kmerge left (its own earlier run, or the driver's merge)
/// recognises kmerge's own result: it re-merges to the same bytes, never refuses, and
/// `--force` then keeps no copy, since nothing was edited.
#[test]
fn a_conflict_kmerge_left_is_solved_again_without_refusal() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);
    let first = solve(&s, &[FILE]);
    assert_eq!(code(&first), 1, "{}", stderr(&first));
    let kmerge_wrote = s.read(FILE);
    for args in [&[FILE][..], &[], &["--force", FILE]] {
        let again = solve(&s, args);
        assert_eq!(code(&again), 1, "{args:?}: {}", stderr(&again));
        assert_eq!(stderr(&again), stderr(&first), "{args:?}");
        assert_eq!(s.read(FILE), kmerge_wrote, "{args:?}");
    }
    assert!(
        !s.join(".git/kmerge").exists(),
        "no copy of an unedited file"
    );
    s.git_ok(&["merge", "--abort"]);

    // The conflict the driver itself left in `git merge`.
    let (driver_wrote, driver_code) = merge_with_driver(&s, "feature");
    assert_eq!(driver_code, 1);
    let out = solve(&s, &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(!stderr(&out).contains("edited"), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), driver_wrote);
}

/// A merge of a commit named by its full id (as `git pull` merges, too) labels theirs with
/// that id, which no branch name reproduces: the file's own labels are tried, checked by the
/// same byte-for-byte comparison, and the re-merge carries them as the driver's would.
#[test]
fn a_merge_by_commit_id_is_recognised_by_its_own_labels() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let id = stdout(&s.git_ok(&["rev-parse", "feature"]));
    let id = id.trim();
    let (reference, driver_code) = merge_with_driver(&s, id);
    assert_eq!(driver_code, 1);
    assert!(
        reference.contains(&format!(">>>>>>> {id}\n")),
        "{reference}"
    );
    s.git_ok(&["merge", "--abort"]);

    let out = s.git(&["merge", id]);
    assert_eq!(code(&out), 1);
    assert!(String::from_utf8_lossy(&s.read(FILE)).contains(&format!(">>>>>>> {id}\n")));
    let out = solve(&s, &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(!stderr(&out).contains("edited"), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
}

/// A `conflict-marker-size` attribute: git's markers are that long, solve recognises them and
/// writes the driver's markers of the same size.
#[test]
fn a_custom_marker_size_is_recognised() {
    let s = repo(&[(FILE, BASE)]);
    s.write(
        ".gitattributes",
        "*.yaml merge=kmerge conflict-marker-size=10\n",
    );
    s.git_ok(&["commit", "-q", "-a", "-m", "longer markers"]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let (reference, _) = drivers_merge(&s);
    assert!(reference.contains("\n<<<<<<<<<< HEAD\n"), "{reference}");
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);
    let git_wrote = String::from_utf8_lossy(&s.read(FILE)).into_owned();
    assert!(git_wrote.contains("\n<<<<<<<<<< HEAD\n"), "{git_wrote}");
    let out = solve(&s, &[]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(!stderr(&out).contains("edited"), "{}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
}

/// Where git writes the work tree with CRLF (`eol=crlf`, or `core.autocrlf`), the file git
/// left is recognised after the same conversion, and solve writes CRLF as git would have
/// checked the driver's result out, while the index gets LF.
#[test]
fn a_crlf_work_tree_is_recognised_and_kept_crlf() {
    for setup in ["eol=crlf", "core.autocrlf"] {
        let s = git_repo();
        if setup == "eol=crlf" {
            s.write(".gitattributes", "*.yaml merge=kmerge text=auto eol=crlf\n");
        } else {
            s.write(".gitattributes", "*.yaml merge=kmerge\n");
            s.git_ok(&["config", "core.autocrlf", "true"]);
        }
        s.write(FILE, BASE);
        s.git_ok(&["add", "."]);
        s.git_ok(&["commit", "-q", "-m", "base"]);
        let (ours, theirs, merged) = adjacent();
        diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
        let (reference, _) = drivers_merge(&s);
        let crlf = |text: &str| text.replace('\n', "\r\n");
        assert_eq!(reference, crlf(&merged), "{setup}");

        let out = s.git(&["merge", "feature"]);
        assert_eq!(code(&out), 1);
        let git_wrote = String::from_utf8_lossy(&s.read(FILE)).into_owned();
        assert!(
            git_wrote.contains("<<<<<<< HEAD\r\n"),
            "{setup}: {git_wrote:?}"
        );
        let out = solve(&s, &[]);
        assert_eq!(code(&out), 0, "{setup}: {}", stderr(&out));
        assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference, "{setup}");
        assert_eq!(status(&s), format!("M  {FILE}\n"), "{setup}");
        let staged = s.git_ok(&["show", &format!(":{FILE}")]);
        assert_eq!(stdout(&staged), merged, "{setup}");
    }
}

/// Git's merges diff with the histogram algorithm; `git checkout -m` (which recreates a
/// conflict, labelled `ours` and `theirs`), git merge-file and kmerge's fallback diff with
/// Myers. On repeated lines (the `value:` lines of an env list) the two put their conflicts in
/// different places. Both files are recognised.
#[test]
fn histogram_and_myers_conflicts_are_both_recognised() {
    let env = |pairs: &[(&str, &str)]| {
        let mut text = BASE.to_string();
        text.push_str("          env:\n");
        for (name, value) in pairs {
            text.push_str(&format!(
                "            - name: {name}\n              value: \"{value}\"\n"
            ));
        }
        text
    };
    let base = env(&[("D", "1"), ("E", "2"), ("A", "2")]);
    let ours = env(&[("D", "1"), ("E", "true"), ("A", "2")]);
    let theirs = env(&[("D", "2"), ("E", "2")]);
    let merged = env(&[("D", "2"), ("E", "true")]);
    let s = repo(&[(FILE, &base)]);
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);

    let mut wrote = Vec::new();
    for myers in [false, true] {
        let out = s.git(&["merge", "feature"]);
        assert_eq!(code(&out), 1);
        if myers {
            s.git_ok(&["checkout", "-m", "--", FILE]);
        }
        wrote.push(String::from_utf8_lossy(&s.read(FILE)).into_owned());
        let out = solve(&s, &[]);
        assert_eq!(code(&out), 0, "myers: {myers}: {}", stderr(&out));
        assert_eq!(String::from_utf8_lossy(&s.read(FILE)), merged, "{myers}");
        s.git_ok(&["merge", "--abort"]);
    }
    let histogram = "\
            - name: D
              value: \"2\"
            - name: E
<<<<<<< HEAD
              value: \"true\"
            - name: A
=======
>>>>>>> feature
              value: \"2\"
";
    let myers = "\
            - name: D
<<<<<<< ours
              value: \"1\"
            - name: E
              value: \"true\"
            - name: A
=======
              value: \"2\"
            - name: E
>>>>>>> theirs
              value: \"2\"
";
    assert!(wrote[0].ends_with(histogram), "{}", wrote[0]);
    assert!(wrote[1].ends_with(myers), "{}", wrote[1]);
}

/// With a git older than 2.44 (`git merge-file` without `--diff-algorithm`), a file the Myers
/// merge or kmerge reproduces is still recognised; an edited one cannot be told from git's
/// histogram merge, so solve stops with git's reason (exit 2, nothing written), and `--force`
/// still re-merges it after keeping a copy.
#[test]
fn a_git_without_the_histogram_merge_fails_safe() {
    let s = repo(&[(FILE, BASE)]);
    let (ours, theirs) = conflicting();
    diverge(&s, &[(FILE, &ours)], &[(FILE, &theirs)]);
    let (reference, _) = drivers_merge(&s);
    let real_git = stdout(&run_git(s.command("sh").args(["-c", "command -v git"])));
    let old_git = s.write(
        "old-git/git",
        format!(
            "#!/bin/sh\n\
             for a in \"$@\"; do case \"$a\" in --diff-algorithm*)\n\
             echo \"error: unknown option \\`${{a#--}}'\" >&2; exit 129;; esac; done\n\
             exec '{}' \"$@\"\n",
            real_git.trim()
        ),
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&old_git, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = std::env::join_paths(
        std::iter::once(s.join("old-git"))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let solve_with_old_git = |args: &[&str]| {
        s.command(kmerge_bin())
            .env("PATH", &path)
            .arg("solve")
            .args(args)
            .output()
            .unwrap()
    };
    let out = s.git(&["merge", "feature"]);
    assert_eq!(code(&out), 1);
    let out = solve_with_old_git(&[]);
    assert_eq!(code(&out), 1, "git's Myers merge matches: {}", stderr(&out));
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);

    let edited = format!("# looked at\n{reference}");
    s.write(FILE, &edited);
    let out = solve_with_old_git(&[]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).starts_with(&format!(
            "kmerge: error: checking whether {FILE} is as the merge wrote it: running git's \
             histogram merge (`git merge-file --diff-algorithm`, git 2.44 or later): git failed"
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.read(FILE), edited.as_bytes());

    let out = solve_with_old_git(&["--force"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let backup = backup_in(&s, s.path(), FILE);
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "kmerge: {FILE}: not known to be as the merge wrote it (checking whether"
        )) && err.contains(&format!(
            "git 2.44 or later): git failed (exit status: 129): error: unknown option \
             `diff-algorithm=histogram'): your version is copied to {}\n",
            backup.display()
        )),
        "{err}"
    );
    assert_eq!(std::fs::read(&backup).unwrap(), edited.as_bytes());
    assert_eq!(String::from_utf8_lossy(&s.read(FILE)), reference);
}
