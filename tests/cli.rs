//! The command-line contract other tools rely on: exit codes, where the result goes, flag
//! aliases, marker size, labels, conflict style, the driver form and `--help`.
//!
//! Conflicts here are single-line edits of one field, which git's line merge and the
//! structural merge mark identically, so `git merge-file` is the reference for the bytes.

mod common;

use std::fs;

use common::{code, stderr, stdout, Merge3, Scratch};

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
";

/// Ours changes `replicas`; theirs changes the image, far below: a clean merge for git.
fn clean_sides() -> (String, String) {
    (
        BASE.replace("replicas: 3", "replicas: 5"),
        BASE.replace("image: web:1.0", "image: web:1.1"),
    )
}

/// Both sides change `replicas` differently: a true conflict.
fn conflicting_sides() -> (String, String) {
    (
        BASE.replace("replicas: 3", "replicas: 5"),
        BASE.replace("replicas: 3", "replicas: 4"),
    )
}

/// A scratch directory holding base.yaml, ours.yaml and theirs.yaml.
fn scratch(ours: &str, theirs: &str) -> Scratch {
    let s = Scratch::new();
    s.write("base.yaml", BASE);
    s.write("ours.yaml", ours);
    s.write("theirs.yaml", theirs);
    s
}

/// `git merge-file -p` on the scratch files with the given extra flags and labels
/// (ours, base, theirs): the bytes kmerge must reproduce.
fn git_merge_file(s: &Scratch, extra: &[&str], labels: [&str; 3]) -> (Vec<u8>, i32) {
    let mut args = vec!["merge-file", "-p"];
    args.extend_from_slice(extra);
    for l in labels {
        args.extend_from_slice(&["-L", l]);
    }
    args.extend_from_slice(&["ours.yaml", "base.yaml", "theirs.yaml"]);
    let out = s.git(&args);
    (out.stdout.clone(), code(&out))
}

fn merge3_with(s: &Scratch, extra: &[&str]) -> std::process::Output {
    s.merge3(&Merge3::new().args(extra))
}

#[test]
fn clean_merge_exits_0_with_gits_bytes_on_stdout() {
    let (ours, theirs) = clean_sides();
    let s = scratch(&ours, &theirs);
    let out = merge3_with(&s, &[]);
    assert_eq!(code(&out), 0, "stderr: {}", stderr(&out));
    let expected = BASE
        .replace("replicas: 3", "replicas: 5")
        .replace("image: web:1.0", "image: web:1.1");
    assert_eq!(stdout(&out), expected);
    assert_eq!(stderr(&out), "", "a clean merge says nothing");
    let (git, git_code) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    assert_eq!(git_code, 0);
    assert_eq!(out.stdout, git);
}

#[test]
fn conflict_exits_1_with_gits_markers() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let out = merge3_with(&s, &[]);
    assert_eq!(code(&out), 1, "stderr: {}", stderr(&out));
    let expected = BASE.replace(
        "  replicas: 3\n",
        "<<<<<<< ours\n  replicas: 5\n=======\n  replicas: 4\n>>>>>>> theirs\n",
    );
    assert_eq!(stdout(&out), expected);
    let (git, git_code) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    assert_eq!(git_code, 1);
    assert_eq!(out.stdout, git);
}

#[test]
fn missing_file_exits_2_naming_it() {
    let (ours, theirs) = clean_sides();
    let s = scratch(&ours, &theirs);
    let out = s.merge3(&Merge3::files("nowhere.yaml", "ours.yaml", "theirs.yaml"));
    assert_eq!(code(&out), 2);
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(
        err.starts_with("kmerge: error: reading base file nowhere.yaml: "),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "printed once: {err}");
}

#[test]
fn bad_flag_exits_2() {
    let s = scratch(BASE, BASE);
    let out = merge3_with(&s, &["--frobnicate"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("--frobnicate"), "{}", stderr(&out));
    let out = merge3_with(&s, &["--on-conflict", "maybe"]);
    assert_eq!(code(&out), 2);
    let out = merge3_with(&s, &["--marker-size", "0"]);
    assert_eq!(code(&out), 2);
    let out = s.kmerge(&["merge3", "--base", "base.yaml"]);
    assert_eq!(code(&out), 2, "missing --ours/--theirs");
    let out = s.kmerge(&[]);
    assert_eq!(code(&out), 2, "no command");
}

#[test]
fn output_flag_writes_the_file_and_not_stdout() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    s.write("out.yaml", "old contents\n");
    let out = merge3_with(&s, &["-o", "out.yaml"]);
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out), "");
    let (git, _) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    assert_eq!(s.read("out.yaml"), git);

    let out = merge3_with(&s, &["--output", "fresh.yaml"]);
    assert_eq!(code(&out), 1);
    assert_eq!(s.read("fresh.yaml"), git);
}

#[test]
fn aliases_name_the_same_files() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let canonical = merge3_with(&s, &[]);
    for (b, o, t) in [
        ("--ancestor", "--dest", "--updated"),
        ("--original", "--local", "--upstream"),
    ] {
        let out = s.kmerge(&["merge3", t, "theirs.yaml", b, "base.yaml", o, "ours.yaml"]);
        assert_eq!(code(&out), 1, "{b} {o} {t}: {}", stderr(&out));
        assert_eq!(out.stdout, canonical.stdout, "{b} {o} {t}");
    }
}

#[test]
fn marker_size_sets_marker_length() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let out = merge3_with(&s, &["--marker-size", "10"]);
    assert_eq!(code(&out), 1);
    let text = stdout(&out);
    assert!(text.contains("\n<<<<<<<<<< ours\n"), "{text}");
    assert!(text.contains("\n==========\n"), "{text}");
    assert!(text.contains("\n>>>>>>>>>> theirs\n"), "{text}");
    let (git, _) = git_merge_file(&s, &["--marker-size", "10"], ["ours", "base", "theirs"]);
    assert_eq!(out.stdout, git);
}

#[test]
fn labels_and_diff3() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);

    let out = merge3_with(&s, &["--diff3"]);
    assert_eq!(code(&out), 1);
    let expected = BASE.replace(
        "  replicas: 3\n",
        "<<<<<<< ours\n  replicas: 5\n||||||| base\n  replicas: 3\n=======\n  replicas: 4\n>>>>>>> theirs\n",
    );
    assert_eq!(stdout(&out), expected);
    let (git, _) = git_merge_file(&s, &["--diff3"], ["ours", "base", "theirs"]);
    assert_eq!(out.stdout, git);

    let out = s.merge3(
        &Merge3::new()
            .arg("--diff3")
            .labels("a219dfc", "HEAD", "feature"),
    );
    assert_eq!(code(&out), 1);
    let (git, _) = git_merge_file(&s, &["--diff3"], ["HEAD", "a219dfc", "feature"]);
    assert_eq!(stdout(&out), String::from_utf8_lossy(&git));
    assert!(stdout(&out).contains("<<<<<<< HEAD\n"));
    assert!(stdout(&out).contains("||||||| a219dfc\n"));

    let out = merge3_with(&s, &[]);
    assert!(
        !stdout(&out).contains("|||||||"),
        "merge3 ignores git config and defaults to the merge style"
    );
}

#[test]
fn merge3_ignores_the_repositorys_conflict_style() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    s.git_ok(&["init", "-q"]);
    s.git_ok(&["config", "merge.conflictStyle", "diff3"]);
    let out = merge3_with(&s, &[]);
    assert_eq!(code(&out), 1);
    assert!(!stdout(&out).contains("|||||||"), "{}", stdout(&out));
}

#[test]
fn messages_name_the_ours_file() {
    // Invalid UTF-8 never reaches the structural merge: git's line merge handles it and
    // stderr says why, one line per message.
    let s = Scratch::new();
    s.write("base.yaml", b"a: 1\nb: \xff\nc: 3\n");
    s.write("ours.yaml", b"a: 2\nb: \xff\nc: 3\n");
    s.write("theirs.yaml", b"a: 1\nb: \xff\nc: 4\n");
    let out = merge3_with(&s, &[]);
    assert_eq!(code(&out), 0);
    assert_eq!(out.stdout, b"a: 2\nb: \xff\nc: 4\n");
    assert_eq!(
        stderr(&out),
        "kmerge: ours.yaml: line merge used: a version is not valid UTF-8 text\n"
    );
}

#[test]
fn policies_settle_a_template_read_as_a_skeleton() {
    // A Helm template is merged as its YAML skeleton: mark keeps git's (as narrow) markers
    // and names the field; theirs and ours settle it as for any YAML file.
    let base = "{{- if .Values.enabled }}\nreplicas: 3\n{{- end }}\n";
    let s = Scratch::new();
    s.write("base.yaml", base);
    s.write("ours.yaml", base.replace("3", "5"));
    s.write("theirs.yaml", base.replace("3", "4"));
    let (git, _) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    let out = merge3_with(&s, &["--on-conflict", "mark"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(out.stdout, git);
    assert!(
        stderr(&out).starts_with("kmerge: ours.yaml: conflict in document 1 at replicas"),
        "{}",
        stderr(&out)
    );
    for (policy, value) in [("theirs", "4"), ("ours", "5")] {
        let out = merge3_with(&s, &["--on-conflict", policy]);
        assert_eq!(code(&out), 0, "{policy}: {}", stderr(&out));
        assert_eq!(out.stdout, base.replace("3", value).as_bytes(), "{policy}");
    }
}

#[test]
fn output_to_a_directory_fails_and_leaves_it() {
    let (ours, theirs) = clean_sides();
    let s = scratch(&ours, &theirs);
    s.write("out/keep.txt", "kept\n");
    let out = merge3_with(&s, &["-o", "out"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(
        err.starts_with("kmerge: error: writing output file out"),
        "{err}"
    );
    assert_eq!(s.read("out/keep.txt"), b"kept\n");
    assert_eq!(fs::read_dir(s.join("out")).unwrap().count(), 1);
    let leftovers: Vec<_> = fs::read_dir(s.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".kmerge-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

// ---- driver form ----

#[cfg(unix)]
fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[cfg(unix)]
#[test]
fn driver_writes_into_ours_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    fs::set_permissions(s.join("ours.yaml"), fs::Permissions::from_mode(0o755)).unwrap();
    let (git, _) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    let out = s.kmerge(&[
        "driver",
        "base.yaml",
        "ours.yaml",
        "theirs.yaml",
        "7",
        "deploy/web.yaml",
    ]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "the driver writes nothing to stdout");
    assert_eq!(s.read("ours.yaml"), git);
    assert_eq!(mode(&s.join("ours.yaml")), 0o755);
    for line in stderr(&out).lines() {
        assert!(line.starts_with("kmerge: deploy/web.yaml: "), "{line}");
    }
}

#[test]
fn driver_clean_merge_exits_0() {
    let (ours, theirs) = clean_sides();
    let s = scratch(&ours, &theirs);
    let out = s.kmerge(&["driver", "base.yaml", "ours.yaml", "theirs.yaml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let expected = BASE
        .replace("replicas: 3", "replicas: 5")
        .replace("image: web:1.0", "image: web:1.1");
    assert_eq!(String::from_utf8_lossy(&s.read("ours.yaml")), expected);
}

#[test]
fn driver_literal_placeholders_mean_default_labels() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let out = s.kmerge(&[
        "driver",
        "base.yaml",
        "ours.yaml",
        "theirs.yaml",
        "7",
        "web.yaml",
        "--diff3",
        "--base-label",
        "%S",
        "--ours-label",
        "%X",
        "--theirs-label",
        "%Y",
    ]);
    assert_eq!(code(&out), 1);
    let expected = BASE.replace(
        "  replicas: 3\n",
        "<<<<<<< ours\n  replicas: 5\n||||||| base\n  replicas: 3\n=======\n  replicas: 4\n>>>>>>> theirs\n",
    );
    assert_eq!(String::from_utf8_lossy(&s.read("ours.yaml")), expected);
}

#[test]
fn driver_labels_and_positional_marker_size() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let (git, _) = git_merge_file(&s, &["--marker-size", "9"], ["HEAD", "a219dfc", "feature"]);
    let out = s.kmerge(&[
        "driver",
        "base.yaml",
        "ours.yaml",
        "theirs.yaml",
        "9",
        "web.yaml",
        "--base-label",
        "a219dfc",
        "--ours-label",
        "HEAD",
        "--theirs-label",
        "feature",
    ]);
    assert_eq!(code(&out), 1);
    assert_eq!(s.read("ours.yaml"), git);
    assert!(String::from_utf8_lossy(&git).contains("<<<<<<<<< HEAD\n"));
}

#[test]
fn driver_marker_size_flag_wins_over_git_value() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let (git, _) = git_merge_file(&s, &["--marker-size", "12"], ["ours", "base", "theirs"]);
    let out = s.kmerge(&[
        "driver",
        "--marker-size",
        "12",
        "base.yaml",
        "ours.yaml",
        "theirs.yaml",
        "7",
    ]);
    assert_eq!(code(&out), 1);
    assert_eq!(s.read("ours.yaml"), git);
}

#[test]
fn driver_reads_the_repositorys_conflict_style() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    s.git_ok(&["init", "-q"]);
    s.git_ok(&["config", "merge.conflictStyle", "diff3"]);
    let (git, _) = git_merge_file(&s, &["--diff3"], ["ours", "base", "theirs"]);
    let out = s.kmerge(&["driver", "base.yaml", "ours.yaml", "theirs.yaml"]);
    assert_eq!(code(&out), 1);
    assert_eq!(s.read("ours.yaml"), git);
    assert!(String::from_utf8_lossy(&git).contains("||||||| base\n"));
}

/// Command-line settings git would refuse mean the driver was run by hand: the merge still
/// goes ahead, in git's default conflict style, and one line says why.
#[test]
fn driver_merges_despite_malformed_command_line_settings() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let (git, _) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    let out = s
        .command(common::kmerge_bin())
        .args(["driver", "base.yaml", "ours.yaml", "theirs.yaml"])
        .env("GIT_CONFIG_PARAMETERS", "'merge.conflictStyle'=diff3")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(s.read("ours.yaml"), git);
    assert_eq!(
        stderr(&out).lines().next(),
        Some(
            "kmerge: warning: reading git's command-line settings: in GIT_CONFIG_PARAMETERS: \
             bogus format: \"'merge.conflictStyle'=diff3\": merge.conflictStyle not read, \
             conflicts marked in git's default style"
        )
    );
}

/// `KMERGE_DRIVER=off`: git's line merge, its bytes and exit code, where kmerge would have
/// merged by structure (ours adds a field beside the line theirs changes) and where git's
/// merge is clean; any value but `off` and `on` is named, and the driver runs.
#[test]
fn driver_switched_off_gives_gits_line_merge() {
    let ours = BASE.replace("replicas: 3\n", "replicas: 3\n  minReadySeconds: 5\n");
    let theirs = BASE.replace("replicas: 3", "replicas: 4");
    let structural = ours.replace("replicas: 3", "replicas: 4");
    let (clean_ours, clean_theirs) = clean_sides();
    let driver = |s: &Scratch, switch: &str| {
        s.command(common::kmerge_bin())
            .args([
                "driver",
                "base.yaml",
                "ours.yaml",
                "theirs.yaml",
                "7",
                "web.yaml",
            ])
            .env("KMERGE_DRIVER", switch)
            .output()
            .unwrap()
    };
    for (ours, theirs, git_code) in [(&ours, &theirs, 1), (&clean_ours, &clean_theirs, 0)] {
        let s = scratch(ours, theirs);
        let (git, code_of_git) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
        assert_eq!(code_of_git, git_code);
        let out = driver(&s, "off");
        assert_eq!(code(&out), git_code, "{}", stderr(&out));
        assert_eq!(s.read("ours.yaml"), git);
        let with = if git_code == 1 {
            ", with conflicts"
        } else {
            ""
        };
        assert_eq!(
            stderr(&out),
            format!("kmerge: web.yaml: KMERGE_DRIVER=off: merged by git's line merge{with}\n")
        );
    }
    for switch in ["on", "", "false"] {
        let s = scratch(&ours, &theirs);
        let out = driver(&s, switch);
        assert_eq!(code(&out), 0, "{switch:?}: {}", stderr(&out));
        assert_eq!(String::from_utf8_lossy(&s.read("ours.yaml")), structural);
        let warning = match switch {
            "false" => {
                "kmerge: warning: KMERGE_DRIVER=false is neither off nor on: the driver runs\n"
            }
            _ => "",
        };
        assert_eq!(
            stderr(&out),
            format!("{warning}kmerge: web.yaml: merged 1 conflicting hunk by structure\n"),
            "{switch:?}"
        );
    }
}

#[test]
fn driver_missing_file_exits_2_and_leaves_ours() {
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let out = s.kmerge(&["driver", "base.yaml", "ours.yaml", "gone.yaml"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("kmerge: error: reading theirs file gone.yaml: "),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.read("ours.yaml"), ours.as_bytes());
}

/// A write failure in the driver form: the folder holding ours is made unwritable, so the
/// temporary file cannot be created. Root ignores mode bits, so as root the folder is made
/// immutable instead; if neither takes effect the test fails rather than pass vacuously.
#[cfg(unix)]
#[test]
fn driver_write_failure_exits_2_and_leaves_ours() {
    use std::os::unix::fs::PermissionsExt;
    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    s.write("locked/ours.yaml", &ours);
    let locked = s.join("locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let mut immutable = false;
    if fs::write(locked.join("probe"), "x").is_ok() {
        let _ = fs::remove_file(locked.join("probe"));
        let chattr = s.command("chattr").arg("+i").arg(&locked).output();
        immutable = matches!(chattr, Ok(o) if o.status.success());
        if !immutable || fs::write(locked.join("probe"), "x").is_ok() {
            let _ = s.command("chattr").arg("-i").arg(&locked).output();
            fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
            panic!(
                "cannot make a folder unwritable here (running as root without a working \
                 `chattr +i`); this test needs one of the two"
            );
        }
    }
    let out = s.kmerge(&["driver", "base.yaml", "locked/ours.yaml", "theirs.yaml"]);
    if immutable {
        let _ = s.command("chattr").arg("-i").arg(&locked).output();
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("kmerge: error: writing ours file locked/ours.yaml: "),
        "{err}"
    );
    assert_eq!(
        err.matches("kmerge: error:").count(),
        1,
        "printed once: {err}"
    );
    assert_eq!(s.read("locked/ours.yaml"), ours.as_bytes());
    assert_eq!(fs::read_dir(&locked).unwrap().count(), 1);
}

#[test]
fn help_explains_rules_and_git_setup() {
    let s = Scratch::new();
    for args in [
        vec!["--help"],
        vec!["merge3", "--help"],
        vec!["driver", "--help"],
        vec!["help", "driver"],
    ] {
        let out = s.kmerge(&args);
        assert_eq!(code(&out), 0, "{args:?}");
        let help = stdout(&out);
        for needle in [
            "git config merge.kmerge.driver \"$(command -v kmerge) driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y\"",
            "git config merge.kmerge.name",
            "*.yaml merge=kmerge",
            "identity",
            "theirs",
            "comes back",
            "line merge",
        ] {
            assert!(help.contains(needle), "{args:?} lacks {needle:?}:\n{help}");
        }
    }
    let out = s.kmerge(&["-h"]);
    assert_eq!(code(&out), 0);
    assert!(stdout(&out).contains("merge.kmerge.driver"));
    let help = stdout(&s.kmerge(&["--help"]));
    assert!(help.contains("  kmerge install\n"), "{help}");
    assert!(help.contains("kmerge solve"), "{help}");
    assert!(help.contains("kmerge doctor"), "{help}");
    assert!(help.contains("kmerge review"), "{help}");
    for (command, needles) in [
        (
            "driver",
            &["KMERGE_DRIVER=off git merge feature", "kmerge review"][..],
        ),
        (
            "review",
            &[".git/kmerge/log", "left in conflict", "--all", "last 20"][..],
        ),
        (
            "install",
            &["--global", "--uninstall", "core.attributesFile"][..],
        ),
        (
            "doctor",
            &["merge.kmerge.driver", "FAIL", "%S %X %Y", "2.44", "Exit 0"][..],
        ),
        (
            "solve",
            &[
                "--no-add",
                "index",
                "conflict-marker-size",
                "--force",
                "solve-backup",
                "edited since the merge wrote",
                "histogram",
            ],
        ),
    ] {
        let out = s.kmerge(&[command, "--help"]);
        assert_eq!(code(&out), 0);
        for needle in needles {
            assert!(
                stdout(&out).contains(needle),
                "{command} --help lacks {needle}"
            );
        }
    }
}

/// The README's example: git's line merge conflicts on it, kmerge merges it cleanly into
/// `examples/deployment/expected.yaml`.
#[test]
fn bundled_example_merges_as_the_readme_says() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/deployment");
    let s = Scratch::new();
    for name in ["base.yaml", "ours.yaml", "theirs.yaml"] {
        s.write(name, fs::read(dir.join(name)).unwrap());
    }
    let (_, git_code) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    assert_eq!(
        git_code, 1,
        "the example must be one git's line merge conflicts on"
    );
    let out = merge3_with(&s, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        fs::read_to_string(dir.join("expected.yaml")).unwrap()
    );
    assert_eq!(
        stderr(&out),
        "kmerge: ours.yaml: merged 1 conflicting hunk by structure\n"
    );
}

/// Ours changes two fields, theirs adds a field right below each: two hunks git's line merge
/// conflicts on, and two different fields to the structural merge.
fn adjacent_sides() -> (String, String) {
    let ours = BASE
        .replace("replicas: 3", "replicas: 5")
        .replace("image: web:1.0", "image: web:1.1");
    let theirs = BASE
        .replace("replicas: 3\n", "replicas: 3\n  minReadySeconds: 10\n")
        .replace(
            "image: web:1.0\n",
            "image: web:1.0\n          imagePullPolicy: Always\n",
        );
    (ours, theirs)
}

/// A clean merge of what git's line merge left in conflict says so in one line, since git's
/// own output would show nothing of it; `--quiet` silences that line, never a conflict.
#[test]
fn resolved_hunks_are_reported_in_one_line_unless_quiet() {
    let (ours, theirs) = adjacent_sides();
    let s = scratch(&ours, &theirs);
    let (_, git_code) = git_merge_file(&s, &[], ["ours", "base", "theirs"]);
    assert_eq!(git_code, 2, "git's line merge leaves two conflicts");
    let out = merge3_with(&s, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let merged = ours
        .replace("replicas: 5\n", "replicas: 5\n  minReadySeconds: 10\n")
        .replace(
            "image: web:1.1\n",
            "image: web:1.1\n          imagePullPolicy: Always\n",
        );
    assert_eq!(stdout(&out), merged);
    assert_eq!(
        stderr(&out),
        "kmerge: ours.yaml: merged 2 conflicting hunks by structure\n"
    );
    for quiet in ["--quiet", "-q"] {
        let out = merge3_with(&s, &[quiet]);
        assert_eq!(code(&out), 0);
        assert_eq!(stdout(&out), merged);
        assert_eq!(stderr(&out), "", "{quiet}");
    }

    let (ours, theirs) = conflicting_sides();
    let s = scratch(&ours, &theirs);
    let out = merge3_with(&s, &["--quiet"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.starts_with("kmerge: ours.yaml: conflict in ") && err.lines().count() == 1,
        "a conflict keeps its one line under --quiet: {err}"
    );
}

/// merge2 lays a patch onto a file: the patch's fields win, its new container goes after
/// dest's (before them with --prepend), its null removes a field, and dest's text and
/// comments stay around the edits.
#[test]
fn merge2_lays_a_patch_onto_dest() {
    let s = Scratch::new();
    s.write(
        "dest.yaml",
        "kind: Deployment\nmetadata:\n  name: web # the shop\n  labels:\n    tier: front\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: web\n          image: web:1.0\n",
    );
    s.write(
        "src.yaml",
        "kind: Deployment\nmetadata:\n  labels:\n    tier: null\nspec:\n  replicas: 5\n  template:\n    spec:\n      containers:\n      - name: sidecar\n        image: proxy:2\n",
    );
    let out = s.kmerge(&["merge2", "--src", "src.yaml", "--dest", "dest.yaml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "kind: Deployment\nmetadata:\n  name: web # the shop\n  labels: {}\nspec:\n  replicas: 5\n  template:\n    spec:\n      containers:\n        - name: web\n          image: web:1.0\n        - name: sidecar\n          image: proxy:2\n"
    );
    let out = s.kmerge(&[
        "merge2",
        "--src",
        "src.yaml",
        "--dest",
        "dest.yaml",
        "--prepend",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("      containers:\n        - name: sidecar\n          image: proxy:2\n        - name: web\n"),
        "{}",
        stdout(&out)
    );
}

/// merge2 has no base to fall back to: input that is not YAML is an error naming the file by
/// its role, src (the patch) or dest.
#[test]
fn merge2_of_non_yaml_exits_2_naming_src_or_dest() {
    let s = Scratch::new();
    s.write("dest.yaml", "a: 1\n");
    s.write("src.yaml", "a: [unclosed\n");
    let out = s.kmerge(&["merge2", "--src", "src.yaml", "--dest", "dest.yaml"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("kmerge: error: merging: src src.yaml is not YAML"),
        "{}",
        stderr(&out)
    );
    let out = s.kmerge(&["merge2", "--src", "dest.yaml", "--dest", "src.yaml"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).starts_with("kmerge: error: merging: dest src.yaml is not YAML"),
        "{}",
        stderr(&out)
    );
    s.write(
        "two.yaml",
        "kind: A\nmetadata:\n  name: x\n---\nkind: A\nmetadata:\n  name: x\n",
    );
    let out = s.kmerge(&["merge2", "--src", "two.yaml", "--dest", "dest.yaml"]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("src two.yaml has two documents for"), "{err}");
    assert!(!err.contains("theirs") && !err.contains("ours"), "{err}");
}

/// One patch document onto a file of one document is one resource whatever the names say,
/// as in kyaml: the patch's name wins, and a warning says so. Same names, or several
/// documents (paired by identity), say nothing.
#[test]
fn merge2_warns_when_the_patch_renames_the_resource() {
    let s = Scratch::new();
    s.write(
        "dest.yaml",
        "kind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: \"1\"\n",
    );
    s.write(
        "src.yaml",
        "kind: ConfigMap\nmetadata:\n  name: api\ndata:\n  b: \"2\"\n",
    );
    let out = s.kmerge(&["merge2", "--src", "src.yaml", "--dest", "dest.yaml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "kind: ConfigMap\nmetadata:\n  name: api\ndata:\n  a: \"1\"\n  b: \"2\"\n"
    );
    assert_eq!(
        stderr(&out),
        "kmerge: warning: src src.yaml names \"api\" and dest dest.yaml names \"web\": the patch \
         is laid on dest's one resource all the same, and overwrites its metadata.name with \
         \"api\"\n"
    );

    s.write(
        "same.yaml",
        "kind: ConfigMap\nmetadata:\n  name: web\ndata:\n  b: \"2\"\n",
    );
    let out = s.kmerge(&["merge2", "--src", "same.yaml", "--dest", "dest.yaml"]);
    assert_eq!(code(&out), 0);
    assert_eq!(stderr(&out), "");

    s.write(
        "two.yaml",
        "kind: ConfigMap\nmetadata:\n  name: web\n---\nkind: ConfigMap\nmetadata:\n  name: db\n",
    );
    let out = s.kmerge(&["merge2", "--src", "src.yaml", "--dest", "two.yaml"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

/// `--version` names the commit the binary was built from when it was built in its own git
/// checkout (the build script asks git), and is the package version alone otherwise.
#[test]
fn version_names_the_commit_it_was_built_from() {
    let s = Scratch::new();
    let out = s.kmerge(&["--version"]);
    assert_eq!(code(&out), 0);
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut git = std::process::Command::new("git");
    git.current_dir(manifest);
    common::isolate(&mut git, s.path());
    let toplevel = git
        .args(["rev-parse", "--show-toplevel"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let in_checkout =
        toplevel.is_some_and(|top| fs::canonicalize(top).ok() == fs::canonicalize(manifest).ok());
    let package = format!("kmerge {}", env!("CARGO_PKG_VERSION"));
    if in_checkout {
        let mut git = std::process::Command::new("git");
        git.current_dir(manifest);
        common::isolate(&mut git, s.path());
        let head = common::run_git(git.args(["log", "-1", "--format=%h %cs"]));
        let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
        assert_eq!(stdout(&out), format!("{package} ({head})\n"));
    } else {
        assert_eq!(stdout(&out), format!("{package}\n"));
    }
}

/// Completion scripts and manual pages come from the same definitions as the parser, so
/// every command and option is in them.
#[test]
fn completions_and_manual_pages_cover_every_command() {
    let s = Scratch::new();
    for (shell, opening) in [
        ("bash", "_kmerge() {"),
        ("zsh", "#compdef kmerge"),
        ("fish", "complete -c kmerge"),
    ] {
        let out = s.kmerge(&["completions", shell]);
        assert_eq!(code(&out), 0, "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains(opening), "{shell}:\n{script}");
        for word in [
            "merge3",
            "solve",
            "install",
            "on-conflict",
            "no-add",
            "uninstall",
        ] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
    }
    let out = s.kmerge(&["completions", "tcsh"]);
    assert_eq!(code(&out), 2);

    let out = s.kmerge(&["man"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let page = stdout(&out);
    assert!(page.contains(".TH kmerge 1"), "{page}");
    for section in [
        ".SH SYNOPSIS",
        ".SH SUBCOMMANDS",
        "kmerge\\-solve(1)",
        "kmerge\\-install(1)",
    ] {
        assert!(page.contains(section), "the page lacks {section}:\n{page}");
    }

    let out = s.kmerge(&["man", "pages"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let solve = String::from_utf8_lossy(&s.read("pages/kmerge-solve.1")).into_owned();
    assert!(solve.contains("\\-\\-no\\-add"), "{solve}");
    for name in [
        "kmerge.1",
        "kmerge-merge3.1",
        "kmerge-driver.1",
        "kmerge-install.1",
        "kmerge-review.1",
    ] {
        assert!(s.join("pages").join(name).is_file(), "{name} missing");
    }
}

// ---- merge3 on folders and git trees (package updates) ----

/// A package of two files: the Deployment in app.yaml, a README.
fn package(s: &Scratch, dir: &str, app: &str, readme: &str) {
    s.write(&format!("{dir}/app.yaml"), app);
    s.write(&format!("{dir}/README.md"), readme);
}

#[test]
fn folders_update_ours_in_place_and_say_what_changed() {
    let (ours, theirs) = clean_sides();
    let s = Scratch::new();
    package(&s, "base", BASE, "v1\n");
    package(&s, "ours", &ours, "v1\n");
    package(&s, "theirs", &theirs, "v2\n");
    let out = s.merge3(&Merge3::files("base", "ours", "theirs"));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "",
        "folders are updated in place, nothing on stdout"
    );
    let (merged, _) = clean_sides();
    let merged = merged.replace("image: web:1.0", "image: web:1.1");
    assert_eq!(String::from_utf8_lossy(&s.read("ours/app.yaml")), merged);
    assert_eq!(s.read("ours/README.md"), b"v2\n");
    assert_eq!(
        stderr(&out),
        "kmerge: merged 2 files: 0 added, 0 removed, 2 changed; resources: 0 added, 1 \
         updated, 0 deleted, 0 moved; no conflict\n"
    );
    // --quiet: a clean update says nothing.
    let out = s.merge3(&Merge3::files("base", "ours", "theirs").arg("-q"));
    assert_eq!((code(&out), stderr(&out)), (0, String::new()));
}

#[test]
fn a_folder_conflict_names_file_resource_and_field() {
    let (ours, theirs) = conflicting_sides();
    let s = Scratch::new();
    package(&s, "base", BASE, "v1\n");
    package(&s, "ours", &ours, "v1\n");
    package(&s, "theirs", &theirs, "v1\n");
    let out = s.merge3(&Merge3::files("base", "ours", "theirs").arg("-q"));
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("kmerge: app.yaml: conflict in apps/Deployment web at spec.replicas: "),
        "{err}"
    );
    assert!(err.ends_with("; 1 conflict in 1 file\n"), "{err}");
    let text = String::from_utf8_lossy(&s.read("ours/app.yaml")).into_owned();
    assert!(
        text.contains("<<<<<<< ours\n  replicas: 5\n=======\n  replicas: 4\n>>>>>>> theirs\n"),
        "{text}"
    );
}

/// `--quiet` keeps a clean folder merge silent, and says all of a conflicted one, as for a
/// file: why git's line merge was used for a file stands beside the line naming its conflict,
/// and the summary counts the lines that name a conflict (one for each file here).
#[test]
fn a_conflicted_folder_merge_says_the_same_with_quiet() {
    let (ours, theirs) = conflicting_sides();
    let write = |s: &Scratch| {
        package(s, "base", BASE, "v1\n");
        package(s, "ours", &ours, "v2\n");
        package(s, "theirs", &theirs, "v3\n");
        // Not YAML (a flow sequence left open): git's line merge marks its conflict.
        for (dir, value) in [("base", 1), ("ours", 3), ("theirs", 2)] {
            s.write(
                &format!("{dir}/broken.yaml"),
                format!("a: [1\nc: {value}\n"),
            );
        }
    };
    let (s, t) = (Scratch::new(), Scratch::new());
    write(&s);
    write(&t);
    let loud = s.merge3(&Merge3::files("base", "ours", "theirs"));
    let quiet = t.merge3(&Merge3::files("base", "ours", "theirs").arg("-q"));
    assert_eq!((code(&loud), code(&quiet)), (1, 1), "{}", stderr(&loud));
    assert_eq!(stderr(&quiet), stderr(&loud));
    let err = stderr(&quiet);
    assert!(
        err.contains("kmerge: broken.yaml: line merge used: "),
        "{err}"
    );
    assert!(
        err.contains("kmerge: broken.yaml: conflict: marked by git's line merge\n"),
        "{err}"
    );
    assert!(
        err.contains("kmerge: README.md: conflict: marked by git's line merge (not YAML)\n"),
        "{err}"
    );
    assert!(err.ends_with("; 3 conflicts in 3 files\n"), "{err}");
}

#[test]
fn output_folder_must_be_new_or_empty_and_nothing_is_written_otherwise() {
    let (ours, theirs) = clean_sides();
    let s = Scratch::new();
    package(&s, "base", BASE, "v1\n");
    package(&s, "ours", &ours, "v1\n");
    package(&s, "theirs", &theirs, "v2\n");
    s.write("out/keep.txt", "mine\n");
    let out = s.merge3(&Merge3::files("base", "ours", "theirs").output("out"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("output folder out is not empty"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.read("out/keep.txt"), b"mine\n");
    assert!(!s.join("out/app.yaml").exists());
    assert_eq!(s.read("ours/app.yaml"), ours.as_bytes());

    let out = s.merge3(&Merge3::files("base", "ours", "theirs").output("new/out"));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(s.read("new/out/README.md"), b"v2\n");
    assert_eq!(
        s.read("ours/app.yaml"),
        ours.as_bytes(),
        "ours stays as it is with -o"
    );
}

#[test]
fn folders_and_files_do_not_mix() {
    let s = Scratch::new();
    package(&s, "base", BASE, "v1\n");
    package(&s, "ours", BASE, "v1\n");
    let out = s.merge3(&Merge3::files("base/app.yaml", "ours", "base"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--base base/app.yaml is a file, but --ours is a folder"),
        "{}",
        stderr(&out)
    );
    let out = s.merge3(&Merge3::files("base", "ours/app.yaml", "base/app.yaml"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("--base base is a folder, but --ours is a file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rev_path_reads_trees_and_files_from_git() {
    let (ours, theirs) = clean_sides();
    let s = common::git_repo();
    package(&s, "vendor/shop", BASE, "v1\n");
    s.git_ok(&["add", "-A"]);
    s.git_ok(&["commit", "-qm", "v1"]);
    s.git_ok(&["tag", "v1"]);
    package(&s, "vendor/shop", &theirs, "v2\n");
    s.git_ok(&["commit", "-qam", "v2"]);
    s.git_ok(&["tag", "v2"]);
    package(&s, "work", &ours, "v1\n");
    // A file from git, merged to stdout.
    let out = s.merge3(&Merge3::files(
        "v1:vendor/shop/app.yaml",
        "work/app.yaml",
        "v2:vendor/shop/app.yaml",
    ));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let merged = ours.replace("image: web:1.0", "image: web:1.1");
    assert_eq!(stdout(&out), merged);
    // Trees; as in git, REV:./PATH is relative to the current folder, REV:PATH to the top.
    let out = Merge3::files("v1:./shop", "../work", "v2:vendor/shop")
        .arg("--dry-run")
        .command(&s.join("vendor"), s.path())
        .output()
        .expect("running kmerge");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let diff = stdout(&out);
    assert!(
        diff.contains("diff --git a/app.yaml b/app.yaml\n"),
        "{diff}"
    );
    assert!(
        diff.contains("-          image: web:1.0\n+          image: web:1.1\n"),
        "{diff}"
    );
    assert!(
        diff.contains("--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-v1\n+v2\n"),
        "{diff}"
    );
    assert_eq!(
        s.read("work/app.yaml"),
        ours.as_bytes(),
        "a dry run writes nothing"
    );
    // A name that is neither a path nor a revision.
    let out = s.merge3(&Merge3::files("v9:vendor/shop", "work", "v2:vendor/shop"));
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("base v9:vendor/shop: no such file or folder, and not a REV:PATH"),
        "{}",
        stderr(&out)
    );
    // A tree as ours needs -o.
    let out = s.merge3(&Merge3::files(
        "v1:vendor/shop",
        "v1:vendor/shop",
        "v2:vendor/shop",
    ));
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("give -o DIR"), "{}", stderr(&out));
}

#[test]
fn help_says_where_folders_and_files_go() {
    let s = Scratch::new();
    let out = s.kmerge(&["merge3", "--help"]);
    let help = stdout(&out);
    for needle in [
        "Files go to stdout without -o",
        "updated in place",
        "REV:PATH",
        "--dry-run",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}
