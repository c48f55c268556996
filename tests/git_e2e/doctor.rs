//! `kmerge doctor` in temporary repositories: passing after `kmerge install`, and failing,
//! with the command that fixes it, where git would silently not run kmerge: no driver, a
//! driver program of another version, attributes that do not send the YAML files to it.
//!
//! The binary under test is not on PATH, so the fixes name it by its absolute path.

use std::path::PathBuf;

use crate::common::{code, git_repo, kmerge_bin, stderr, stdout, Scratch};
use crate::path_without_kmerge;
use crate::{BASE, FILE};

/// How doctor names the binary under test: its absolute path, as install writes it.
fn kmerge() -> String {
    kmerge_bin().canonicalize().unwrap().display().to_string()
}

/// The driver command `kmerge install` writes for `program`.
fn driver_command(program: &str) -> String {
    format!("{program} driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y")
}

/// What the binary under test prints for `--version`.
fn this_version(s: &Scratch) -> String {
    stdout(&s.kmerge(&["--version"])).trim_end().to_string()
}

/// Doctor's line for the git on PATH, 2.44 or later as these tests need.
fn git_line(s: &Scratch) -> String {
    let said = stdout(&s.git_ok(&["--version"])).trim_end().to_string();
    format!("ok    {said}: passes the driver its conflict labels (%S %X %Y need git 2.44)")
}

/// Doctor's report where every check passes: the driver found in `config` (as doctor names
/// the config level), the binary under test its program, `attributes` the attributes line.
fn passing(s: &Scratch, config: &str, attributes: &str) -> String {
    format!(
        "ok    driver configured in the {config}: {driver}\n\
         ok    driver program {kmerge} is an executable file\n\
         ok    driver program is this kmerge: {version}\n\
         ok    {attributes}\n\
         {git}\n",
        driver = driver_command(&kmerge()),
        kmerge = kmerge(),
        version = this_version(s),
        git = git_line(s),
    )
}

fn doctor(s: &Scratch) -> (i32, String) {
    let out = s.kmerge(&["doctor"]);
    assert_eq!(stderr(&out), "", "doctor reports on stdout only");
    (code(&out), stdout(&out))
}

/// A repository whose first commit holds two YAML files.
fn repo_with_yaml() -> Scratch {
    let s = git_repo();
    s.write(FILE, BASE);
    s.write("deploy/db.yml", "kind: Service\n");
    s.git_ok(&["add", "."]);
    s.git_ok(&["commit", "-q", "-m", "base"]);
    s
}

fn install(s: &Scratch, args: &[&str]) {
    let mut all = vec!["install"];
    all.extend_from_slice(args);
    let out = s.kmerge(&all);
    assert_eq!(code(&out), 0, "kmerge {all:?}: {}", stderr(&out));
}

#[test]
fn doctor_passes_after_install() {
    let s = repo_with_yaml();
    install(&s, &[]);
    let (code, said) = doctor(&s);
    assert_eq!(
        said,
        passing(
            &s,
            "repository config (git config --local)",
            "attributes send every tracked YAML file to kmerge (2 files)",
        )
    );
    assert_eq!(code, 0);
}

/// In a linked worktree (`git worktree add`) the repository's config is the shared one, in
/// the main git folder: doctor finds the driver installed there, as git does.
#[test]
fn doctor_passes_in_a_linked_worktree() {
    let s = repo_with_yaml();
    install(&s, &[]);
    s.git_ok(&["add", ".gitattributes"]);
    s.git_ok(&["commit", "-q", "-m", "attributes"]);
    s.git_ok(&["worktree", "add", "-q", "linked"]);
    let out = s
        .command(kmerge_bin())
        .current_dir(s.join("linked"))
        .arg("doctor")
        .output()
        .expect("running kmerge");
    assert_eq!(
        stdout(&out),
        passing(
            &s,
            "repository config (git config --local)",
            "attributes send every tracked YAML file to kmerge (2 files)",
        )
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// `--global` with GIT_CONFIG_GLOBAL naming a file away from HOME, and a
/// `core.attributesFile` set there: doctor reads both as git does. With no YAML file tracked,
/// new ones stand in.
#[test]
fn doctor_reads_the_global_config_git_reads() {
    let s = git_repo();
    let config = s.write(
        "elsewhere/gitconfig",
        "[core]\n\tattributesFile = ~/my-attributes\n",
    );
    let global = |args: &[&str]| {
        s.command(kmerge_bin())
            .args(args)
            .env("GIT_CONFIG_GLOBAL", &config)
            .output()
            .unwrap()
    };
    let out = global(&["install", "--global"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(s.join("my-attributes").is_file());
    let out = global(&["doctor"]);
    assert_eq!(
        stdout(&out),
        passing(
            &s,
            "global config (git config --global)",
            "attributes send every new YAML file to kmerge (x.yaml and x.yml; none is tracked yet)",
        )
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn doctor_fails_without_the_driver() {
    let s = repo_with_yaml();
    let (code, said) = doctor(&s);
    assert_eq!(
        said,
        format!(
            "FAIL  driver not configured: merge.kmerge.driver is set in no git config (repository, global or system)\n      \
             fix: {kmerge} install (this repository) or {kmerge} install --global (every repository)\n\
             FAIL  attributes send no tracked YAML file to kmerge (0 of 2): deploy/db.yml (no merge attribute), deploy/web.yaml (no merge attribute)\n      \
             fix: {kmerge} install (adds `*.yaml merge=kmerge` and `*.yml merge=kmerge` to .gitattributes)\n\
             {git}\n",
            kmerge = kmerge(),
            git = git_line(&s),
        )
    );
    assert_eq!(code, 1);

    // Its fix works.
    install(&s, &[]);
    assert_eq!(doctor(&s).0, 0);
}

/// A driver program that answers as another kmerge: git would run it, and merge with
/// another version's rules.
#[cfg(unix)]
#[test]
fn doctor_fails_on_a_driver_of_another_version() {
    let s = repo_with_yaml();
    install(&s, &[]);
    let old = executable(&s, "old/kmerge", "#!/bin/sh\necho 'kmerge 0.0.1'\n");
    let driver = driver_command(&old.display().to_string());
    s.git_ok(&["config", "merge.kmerge.driver", &driver]);
    let (code, said) = doctor(&s);
    assert_eq!(
        said,
        format!(
            "ok    driver configured in the repository config (git config --local): {driver}\n\
             ok    driver program {old} is an executable file\n\
             FAIL  driver program is kmerge 0.0.1, not this version ({version})\n      \
             fix: {kmerge} install\n\
             ok    attributes send every tracked YAML file to kmerge (2 files)\n\
             {git}\n",
            old = old.display(),
            version = this_version(&s),
            kmerge = kmerge(),
            git = git_line(&s),
        )
    );
    assert_eq!(code, 1);

    // A program that does not answer as kmerge at all, and one that is not there.
    let other = executable(
        &s,
        "other/tool",
        "#!/bin/sh\necho 'usage: tool' >&2\nexit 3\n",
    );
    s.git_ok(&[
        "config",
        "merge.kmerge.driver",
        &driver_command(&other.display().to_string()),
    ]);
    let (code, said) = doctor(&s);
    assert!(
        said.contains(&format!(
            "\nFAIL  `{} --version` does not answer as kmerge (exit 3): usage: tool\n      fix: {} install\n",
            other.display(),
            kmerge()
        )),
        "{said}"
    );
    assert_eq!(code, 1);
    let gone = s.join("gone/kmerge");
    s.git_ok(&[
        "config",
        "merge.kmerge.driver",
        &driver_command(&gone.display().to_string()),
    ]);
    let (code, said) = doctor(&s);
    assert!(
        said.contains(&format!(
            "\nFAIL  driver program {} does not exist: git cannot run it\n      fix: {} install\nok    attributes",
            gone.display(),
            kmerge()
        )),
        "the version is not asked of a missing program: {said}"
    );
    assert_eq!(code, 1);
}

/// A driver program that never answers would hang every merge: doctor stops waiting for its
/// version, kills it and says so, instead of hanging too.
#[test]
fn doctor_fails_on_a_driver_that_does_not_answer() {
    let s = repo_with_yaml();
    install(&s, &[]);
    let stuck = executable(
        &s,
        "stuck/kmerge",
        "#!/bin/sh
exec sleep 600
",
    );
    s.git_ok(&[
        "config",
        "merge.kmerge.driver",
        &driver_command(&stuck.display().to_string()),
    ]);
    let (code, said) = doctor(&s);
    assert!(
        said.contains(&format!(
            "\nFAIL  `{} --version` did not answer within 10 s (stopped): git would wait on it the same way\n      fix: {} install\n",
            stuck.display(),
            kmerge()
        )),
        "{said}"
    );
    assert_eq!(code, 1);
}

/// A driver called by name works only where PATH holds it: a warning where it does, a
/// failure where it does not. A command that does not run `driver %O %A %B` fails.
#[cfg(unix)]
#[test]
fn doctor_warns_about_a_driver_called_by_name() {
    let s = repo_with_yaml();
    install(&s, &[]);
    s.git_ok(&["config", "merge.kmerge.driver", &driver_command("kmerge")]);
    let bin = s.join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(kmerge_bin(), bin.join("kmerge")).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.clone()).chain(std::env::split_paths(&path_without_kmerge())),
    )
    .unwrap();
    let out = s
        .command(kmerge_bin())
        .arg("doctor")
        .env("PATH", &path)
        .output()
        .unwrap();
    assert_eq!(
        stdout(&out),
        format!(
            "ok    driver configured in the repository config (git config --local): {driver}\n\
             warn  driver program is called by name (kmerge, here {link}): a git started without it on PATH (an IDE, a GUI) cannot run it and leaves every YAML file conflicted, with no markers\n      \
             fix: kmerge install\n\
             ok    driver program is this kmerge: {version}\n\
             ok    attributes send every tracked YAML file to kmerge (2 files)\n\
             {git}\n",
            driver = driver_command("kmerge"),
            link = bin.join("kmerge").display(),
            version = this_version(&s),
            git = git_line(&s),
        )
    );
    assert_eq!(code(&out), 0, "a warning is not a failure");

    let out = s
        .command(kmerge_bin())
        .arg("doctor")
        .env("PATH", path_without_kmerge())
        .output()
        .unwrap();
    let (code, said) = (code(&out), stdout(&out));
    assert!(
        said.contains(&format!(
            "\nFAIL  driver program kmerge is not on PATH: git cannot run it\n      fix: {} install\nok    attributes",
            kmerge()
        )),
        "{said}"
    );
    assert_eq!(code, 1);

    s.git_ok(&[
        "config",
        "merge.kmerge.driver",
        &format!("{} merge3 %O %A %B", kmerge()),
    ]);
    let (code, said) = doctor(&s);
    assert!(
        said.starts_with(&format!(
            "FAIL  driver in the repository config (git config --local) does not run `kmerge driver %O %A %B`: \"{} merge3 %O %A %B\"\n      fix: {} install\nok    attributes",
            kmerge(),
            kmerge()
        )),
        "{said}"
    );
    assert_eq!(code, 1);
}

/// Attributes that do not send `*.yaml` to kmerge fail; some YAML files sent elsewhere (a
/// chart's templates, say) are a warning that names them.
#[test]
fn doctor_checks_which_yaml_files_the_attributes_send() {
    let s = repo_with_yaml();
    install(&s, &["--pattern", "*.yml"]);
    let (code, said) = doctor(&s);
    assert!(
        said.contains(&format!(
            "\nwarn  attributes send 1 of 2 tracked YAML files to kmerge; not: deploy/web.yaml (no merge attribute)\n{}\n",
            git_line(&s)
        )),
        "{said}"
    );
    assert_eq!(code, 0);

    s.write(".gitattributes", "*.yml merge=text\n");
    s.git_ok(&["rm", "-q", "--cached", "deploy/db.yml"]);
    let (code, said) = doctor(&s);
    assert!(
        said.contains(&format!(
            "\nFAIL  attributes send no tracked YAML file to kmerge (0 of 1): deploy/web.yaml (no merge attribute)\n      \
             fix: {} install (adds `*.yaml merge=kmerge` and `*.yml merge=kmerge` to .gitattributes)\n",
            kmerge()
        )),
        "{said}"
    );
    assert_eq!(code, 1);

    s.write(
        ".gitattributes",
        "*.yaml merge=kmerge\ncharts/**/templates/*.yaml merge=text\nlegacy/*.yaml -merge\n",
    );
    let mut files = vec!["legacy/old.yaml".to_string()];
    files.extend((1..=5).map(|i| format!("charts/web/templates/t{i}.yaml")));
    for file in &files {
        s.write(file, "kind: ConfigMap\n");
    }
    s.git_ok(&["add", "."]);
    let (code, said) = doctor(&s);
    assert!(
        said.contains(
            "\nwarn  attributes send 1 of 8 tracked YAML files to kmerge; not: \
             charts/web/templates/t1.yaml (merge=text), charts/web/templates/t2.yaml (merge=text), \
             charts/web/templates/t3.yaml (merge=text), charts/web/templates/t4.yaml (merge=text), \
             charts/web/templates/t5.yaml (merge=text) and 2 more\n"
        ),
        "{said}"
    );
    assert_eq!(code, 0);
}

#[test]
fn outside_a_repository_doctor_says_so() {
    let s = Scratch::new();
    let out = s.kmerge(&["doctor"]);
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(
        err.starts_with("kmerge: error: not inside a git repository (")
            && err.ends_with("): doctor checks the repository it runs in\n"),
        "{err}"
    );
}

/// Writes an executable script into the scratch folder and returns its path.
#[cfg(unix)]
fn executable(s: &Scratch, name: &str, script: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = s.write(name, script);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
