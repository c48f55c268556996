//! `kmerge install` in temporary repositories: after it, a real `git merge` runs the driver;
//! running it twice changes nothing; `--uninstall` restores the config and attribute files
//! byte for byte; `--local`, `--global` and `--pattern` write where git reads them.
//!
//! Every command runs with a private `HOME` (see `common::isolate`), so `--global` writes
//! into the scratch directory, never the developer's own config.

use std::path::Path;

use crate::common::{
    code, driver_ran, git_repo, kmerge_bin, run_git, stderr, stdout, traced_git, Scratch,
};
use crate::path_without_kmerge;
use crate::{BASE, FILE};

/// The driver command `kmerge install` writes for the binary under test, which is not on
/// PATH: its absolute path.
fn driver_command() -> String {
    format!(
        "{} driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y",
        kmerge_bin().canonicalize().unwrap().display()
    )
}

fn git_stdout(s: &Scratch, args: &[&str]) -> String {
    stdout(&s.git_ok(args))
}

fn read_or_empty(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_default()
}

fn install(s: &Scratch, args: &[&str]) -> String {
    let mut all = vec!["install"];
    all.extend_from_slice(args);
    let out = s.kmerge(&all);
    assert_eq!(code(&out), 0, "kmerge {all:?}: {}", stderr(&out));
    stdout(&out)
}

/// The whole setup in one command, then a merge git's line merge would stop on goes through
/// the driver.
#[test]
fn install_then_git_merge_uses_the_driver() {
    let s = git_repo();
    s.write(FILE, BASE);
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "base"]);

    let said = install(&s, &[]);
    let config = s.join(".git/config");
    let attributes = s.join(".gitattributes");
    assert_eq!(
        said,
        format!(
            "kmerge: set merge.kmerge.name = kmerge: structural Kubernetes YAML merge in {config}\n\
             kmerge: set merge.kmerge.driver = {driver} in {config}\n\
             kmerge: added `*.yaml merge=kmerge` to {attributes}\n\
             kmerge: added `*.yml merge=kmerge` to {attributes}\n",
            config = config.display(),
            attributes = attributes.display(),
            driver = driver_command(),
        )
    );
    assert_eq!(
        String::from_utf8_lossy(&s.read(".gitattributes")),
        "# kmerge\n*.yaml merge=kmerge\n# kmerge\n*.yml merge=kmerge\n"
    );
    assert_eq!(
        git_stdout(&s, &["config", "merge.kmerge.driver"]),
        format!("{}\n", driver_command())
    );
    assert_eq!(
        git_stdout(&s, &["check-attr", "merge", "a.yaml", "b/c.yml", "d.json"]),
        "a.yaml: merge: kmerge\nb/c.yml: merge: kmerge\nd.json: merge: unspecified\n"
    );
    s.git_ok(&["add", ".gitattributes"]);
    s.git_ok(&["commit", "-q", "-m", "merge YAML with kmerge"]);

    // Ours bumps the image, theirs adds a field right below it: git alone would conflict.
    s.git_ok(&["checkout", "-q", "-b", "feature"]);
    let pull = "image: web:1.0\n          imagePullPolicy: Always\n";
    s.write(FILE, BASE.replace("image: web:1.0\n", pull));
    s.git_ok(&["commit", "-q", "-a", "-m", "pull always"]);
    s.git_ok(&["checkout", "-q", "main"]);
    s.write(FILE, BASE.replace("web:1.0", "web:1.1"));
    s.git_ok(&["commit", "-q", "-a", "-m", "bump"]);

    let (out, trace) = traced_git(&s, &["merge", "--no-edit", "feature"]);
    assert_eq!(code(&out), 0, "git merge failed:\n{}", stderr(&out));
    assert!(driver_ran(&trace, FILE), "the driver did not run:\n{trace}");
    assert_eq!(
        String::from_utf8_lossy(&s.read(FILE)),
        BASE.replace(
            "image: web:1.0\n",
            "image: web:1.1\n          imagePullPolicy: Always\n"
        )
    );
    assert!(
        stderr(&out).contains("kmerge: deploy/web.yaml: merged 1 conflicting hunk by structure"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn install_twice_changes_nothing() {
    let s = git_repo();
    install(&s, &[]);
    let config = s.read(".git/config");
    let attributes = s.read(".gitattributes");
    let said = install(&s, &[]);
    assert_eq!(
        said,
        format!(
            "kmerge: already installed in {} and {}: nothing changed\n",
            s.join(".git/config").display(),
            s.join(".gitattributes").display()
        )
    );
    assert_eq!(s.read(".git/config"), config);
    assert_eq!(s.read(".gitattributes"), attributes);
}

/// Uninstall removes exactly what install added: the user's own attribute lines (even one
/// that already sent `*.yaml` to kmerge) and config stay, byte for byte.
#[test]
fn uninstall_restores_config_and_attributes() {
    let s = git_repo();
    let own = "# the team's attributes\n*.sh text eol=lf\n*.yaml merge=kmerge\n";
    s.write(".gitattributes", own);
    let config = s.read(".git/config");

    let said = install(&s, &[]);
    assert!(
        !said.contains("*.yaml merge=kmerge"),
        "a pattern already sent to kmerge is not added again: {said}"
    );
    assert_eq!(
        String::from_utf8_lossy(&s.read(".gitattributes")),
        format!("{own}# kmerge\n*.yml merge=kmerge\n")
    );
    let said = install(&s, &["--uninstall"]);
    assert_eq!(
        said,
        format!(
            "kmerge: removed merge.kmerge.name from {config}\n\
             kmerge: removed merge.kmerge.driver from {config}\n\
             kmerge: removed `*.yml merge=kmerge` from {attributes}\n",
            config = s.join(".git/config").display(),
            attributes = s.join(".gitattributes").display()
        )
    );
    assert_eq!(String::from_utf8_lossy(&s.read(".gitattributes")), own);
    assert_eq!(
        String::from_utf8_lossy(&s.read(".git/config")),
        String::from_utf8_lossy(&config)
    );
    let out = s.git(&["config", "--get-regexp", "^merge\\.kmerge\\."]);
    assert_eq!(code(&out), 1, "no kmerge key left: {}", stdout(&out));

    // A .gitattributes that install created goes away with the lines.
    let s = git_repo();
    install(&s, &[]);
    install(&s, &["--uninstall"]);
    assert!(!s.join(".gitattributes").exists());
    assert_eq!(s.read(".git/config"), config_of_fresh_repo());
    let said = install(&s, &["--uninstall"]);
    assert!(said.contains("not installed"), "{said}");
}

fn config_of_fresh_repo() -> Vec<u8> {
    git_repo().read(".git/config")
}

/// `--local` keeps the attributes out of the tracked tree, in info/attributes; a CRLF file
/// keeps its line endings.
#[test]
fn local_writes_info_attributes() {
    let s = git_repo();
    s.write(".git/info/attributes", "*.bin binary\r\n");
    install(&s, &["--local"]);
    assert!(!s.join(".gitattributes").exists());
    assert_eq!(
        String::from_utf8_lossy(&s.read(".git/info/attributes")),
        "*.bin binary\r\n# kmerge\r\n*.yaml merge=kmerge\r\n# kmerge\r\n*.yml merge=kmerge\r\n"
    );
    assert_eq!(
        git_stdout(&s, &["check-attr", "merge", "x.yaml"]),
        "x.yaml: merge: kmerge\n"
    );
    install(&s, &["--uninstall"]);
    assert_eq!(s.read(".git/info/attributes"), b"*.bin binary\r\n");
}

/// `--global` writes the user's config and git's default attributes file, which every
/// repository then reads; where `core.attributesFile` names another file, that one.
#[test]
fn global_writes_the_users_config_and_attributes() {
    let s = git_repo();
    let home = s.path();
    let said = install(&s, &["--global"]);
    let attributes = home.join(".config/git/attributes");
    assert!(
        said.contains(&format!("in {}", home.join(".gitconfig").display())),
        "{said}"
    );
    assert_eq!(
        String::from_utf8_lossy(&read_or_empty(&attributes)),
        "# kmerge\n*.yaml merge=kmerge\n# kmerge\n*.yml merge=kmerge\n"
    );
    assert_eq!(
        git_stdout(&s, &["config", "--global", "merge.kmerge.driver"]),
        format!("{}\n", driver_command())
    );
    let out = s.git(&["config", "--local", "merge.kmerge.driver"]);
    assert_eq!(code(&out), 1, "the repository's own config is untouched");
    assert_eq!(
        git_stdout(&s, &["check-attr", "merge", "x.yml"]),
        "x.yml: merge: kmerge\n"
    );
    install(&s, &["--global", "--uninstall"]);
    assert!(!attributes.exists());
    assert!(!home.join(".gitconfig").exists());

    // core.attributesFile is honoured, never set.
    s.git_ok(&[
        "config",
        "--global",
        "core.attributesFile",
        "~/my-attributes",
    ]);
    install(&s, &["--global"]);
    assert!(!attributes.exists());
    assert_eq!(
        String::from_utf8_lossy(&s.read("my-attributes")),
        "# kmerge\n*.yaml merge=kmerge\n# kmerge\n*.yml merge=kmerge\n"
    );
    assert_eq!(
        git_stdout(&s, &["config", "--global", "core.attributesFile"]),
        "~/my-attributes\n"
    );
}

#[test]
fn patterns_replace_the_default_ones() {
    let s = git_repo();
    install(
        &s,
        &["--pattern", "deploy/**/*.yaml", "--pattern", "Kptfile"],
    );
    assert_eq!(
        String::from_utf8_lossy(&s.read(".gitattributes")),
        "# kmerge\ndeploy/**/*.yaml merge=kmerge\n# kmerge\nKptfile merge=kmerge\n"
    );
    assert_eq!(
        git_stdout(
            &s,
            &[
                "check-attr",
                "merge",
                "deploy/a/b.yaml",
                "x.yaml",
                "Kptfile"
            ]
        ),
        "deploy/a/b.yaml: merge: kmerge\nx.yaml: merge: unspecified\nKptfile: merge: kmerge\n"
    );
}

/// With kmerge on PATH, the driver is still called by its absolute path, the one PATH holds
/// (a symlink, as a package manager keeps, is not resolved, so an upgrade keeps it valid): a
/// git started without kmerge on its PATH (an IDE, a GUI) could not run a driver called by
/// name, and would mark every YAML file conflicted with ours' text and no markers. A merge
/// run from such a PATH afterwards still goes through the driver.
#[cfg(unix)]
#[test]
fn install_writes_the_absolute_path_kmerge_has_on_path() {
    let s = git_repo();
    s.write(FILE, BASE);
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "base"]);
    let bin = s.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(kmerge_bin(), bin.join("kmerge")).unwrap();
    let inherited = path_without_kmerge();
    let path =
        std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(&inherited)))
            .unwrap();
    let out = s
        .command(kmerge_bin())
        .arg("install")
        .env("PATH", path)
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        git_stdout(&s, &["config", "merge.kmerge.driver"]),
        format!(
            "{} driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y\n",
            bin.join("kmerge").display()
        )
    );
    s.git_ok(&["add", ".gitattributes"]);
    s.git_ok(&["commit", "-q", "-m", "merge YAML with kmerge"]);

    // Ours bumps the image, theirs adds a field right below it: git alone would conflict.
    s.git_ok(&["checkout", "-q", "-b", "feature"]);
    let pull = "image: web:1.0\n          imagePullPolicy: Always\n";
    s.write(FILE, BASE.replace("image: web:1.0\n", pull));
    s.git_ok(&["commit", "-q", "-a", "-m", "pull always"]);
    s.git_ok(&["checkout", "-q", "main"]);
    s.write(FILE, BASE.replace("web:1.0", "web:1.1"));
    s.git_ok(&["commit", "-q", "-a", "-m", "bump"]);

    let out = run_git(
        s.command("git")
            .args(["merge", "--no-edit", "feature"])
            .env("PATH", &inherited),
    );
    assert_eq!(code(&out), 0, "git merge failed:\n{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&s.read(FILE)),
        BASE.replace(
            "image: web:1.0\n",
            "image: web:1.1\n          imagePullPolicy: Always\n"
        )
    );
    assert_eq!(
        stderr(&out),
        "kmerge: deploy/web.yaml: merged 1 conflicting hunk by structure\n"
    );
}

#[test]
fn outside_a_repository_install_says_so() {
    let s = Scratch::new();
    let out = s.kmerge(&["install"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.starts_with("kmerge: error: not inside a git repository") && err.contains("--global"),
        "{err}"
    );
    let out = s.kmerge(&["install", "--global", "--local"]);
    assert_eq!(code(&out), 2, "--global and --local exclude each other");
}
