//! `kmerge doctor`: checks, in the repository it runs in, that git will really hand YAML
//! files to this kmerge.
//!
//! Every way the setup breaks is silent in git: attributes that send no file to kmerge, or a
//! `merge=kmerge` with no `merge.kmerge.driver` defined, make git use its own line merge
//! without a word; a driver program git cannot run (missing, or called by a name a GUI's PATH
//! lacks) leaves every YAML file conflicted with ours' text and no markers. So each check
//! prints one line, `ok`, `warn` or `FAIL`, and a failing one the command that fixes it;
//! the exit code is 1 when one fails.
//!
//! Config is read as git reads it (`git::config::git_config`), and attributes through libgit2
//! given that same config, so `core.attributesFile` is the one git uses. Doctor changes
//! nothing: each fix is left to the user to run.

use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{anyhow, Context};
use git2::{AttrCheckFlags, AttrValue, ConfigLevel, ErrorCode, Repository};

use super::install::{command_name, is_executable, on_path, DEFAULT_PATTERNS};
use super::{EXIT_CLEAN, EXIT_CONFLICT};
use crate::git::config::git_config;

mod shell;

/// The config key git reads the driver command from.
const DRIVER_KEY: &str = "merge.kmerge.driver";
/// The first git that passes a merge driver its conflict labels (`%S %X %Y`): 2.44.
const LABELS_SINCE: (u32, u32) = (2, 44);
/// How many YAML files not sent to kmerge are named before "and N more".
const SHOWN_PATHS: usize = 5;
/// What kmerge's `--version` prints, for comparing the driver program's.
const THIS_VERSION: &str = concat!("kmerge ", env!("KMERGE_VERSION"));

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Ok,
    Warn,
    Fail,
}

/// One line of the report, and the command that fixes what it found.
#[derive(Debug)]
struct Check {
    status: Status,
    text: String,
    fix: Option<String>,
}

impl Check {
    fn new(status: Status, text: impl Into<String>) -> Check {
        Check {
            status,
            text: text.into(),
            fix: None,
        }
    }

    fn fix(mut self, fix: impl Into<String>) -> Check {
        self.fix = Some(fix.into());
        self
    }

    fn fix_if_failed(self, fix: impl Into<String>) -> Check {
        if self.status == Status::Fail {
            self.fix(fix)
        } else {
            self
        }
    }
}

pub(super) fn doctor() -> anyhow::Result<i32> {
    let repo = Repository::open_from_env().map_err(|e| {
        anyhow!(
            "not inside a git repository ({}): doctor checks the repository it runs in",
            e.message()
        )
    })?;
    let config = git_config().map_err(|e| anyhow!("reading git's config: {e:#}"))?;
    // libgit2 reads `core.attributesFile` from the repository's config, whose layers are not
    // quite git's (it reads the XDG file even under GIT_CONFIG_GLOBAL): the attribute lookup
    // gets the config the rest of kmerge reads.
    repo.set_config(&config)
        .map_err(|e| anyhow!("{}", e.message()))
        .context("handing git's config to the attribute lookup")?;
    let kmerge = command_name()?;
    let mut checks = driver_checks(&config, &repo, &kmerge)?;
    checks.push(attributes_check(&repo, &kmerge)?);
    checks.push(git_check());
    for check in &checks {
        let status = match check.status {
            Status::Ok => "ok",
            Status::Warn => "warn",
            Status::Fail => "FAIL",
        };
        println!("{status:<6}{}", check.text);
        if let Some(fix) = &check.fix {
            println!("      fix: {fix}");
        }
    }
    Ok(if checks.iter().any(|c| c.status == Status::Fail) {
        EXIT_CONFLICT
    } else {
        EXIT_CLEAN
    })
}

/// Whether the driver is defined, whether its program exists, and whether it is this
/// kmerge. The later checks are left out where an earlier one leaves nothing to check.
fn driver_checks(
    config: &git2::Config,
    repo: &Repository,
    kmerge: &str,
) -> anyhow::Result<Vec<Check>> {
    let entry = match config.get_entry(DRIVER_KEY) {
        Ok(entry) => entry,
        Err(e) if e.code() == ErrorCode::NotFound => {
            return Ok(vec![Check::new(
                Status::Fail,
                format!("driver not configured: {DRIVER_KEY} is set in no git config (repository, global or system)"),
            )
            .fix(format!(
                "{kmerge} install (this repository) or {kmerge} install --global (every repository)"
            ))]);
        }
        Err(e) => {
            return Err(anyhow!("{}", e.message())).with_context(|| format!("reading {DRIVER_KEY}"))
        }
    };
    let level = entry.level();
    let fix = reinstall(level, kmerge);
    let Ok(command) = entry.value() else {
        return Ok(vec![Check::new(
            Status::Fail,
            format!(
                "{DRIVER_KEY} in the {} is not UTF-8 text",
                level_name(level)
            ),
        )
        .fix(fix)]);
    };
    let words = shell::words(command);
    if !runs_the_driver(&words) {
        return Ok(vec![Check::new(
            Status::Fail,
            format!(
                "driver in the {} does not run `kmerge driver %O %A %B`: {command:?}",
                level_name(level)
            ),
        )
        .fix(fix)]);
    }
    let mut checks = vec![Check::new(
        Status::Ok,
        format!("driver configured in the {}: {command}", level_name(level)),
    )];
    let program = &words[0];
    let top = repo.workdir().unwrap_or_else(|| repo.path());
    let found = program_check(program, top, &fix);
    let runnable = found.status != Status::Fail;
    checks.push(found);
    if runnable {
        checks.push(version_check(program.raw, top, &fix)?);
    }
    Ok(checks)
}

/// Whether a driver command's words after the program are kmerge's `driver` form: the
/// word `driver`, then git's `%O %A %B` in that order among its options.
fn runs_the_driver(words: &[shell::Word]) -> bool {
    let Some((_, [form, rest @ ..])) = words.split_first() else {
        return false;
    };
    let mut positional = rest
        .iter()
        .filter(|w| w.literal && w.text.starts_with('%'))
        .map(|w| w.text.as_str());
    form.literal
        && form.text == "driver"
        && ["%O", "%A", "%B"]
            .iter()
            .all(|wanted| positional.any(|w| w == *wanted))
}

/// The config level as the user names it, with the `git config` option that reads it.
fn level_name(level: ConfigLevel) -> &'static str {
    match level {
        ConfigLevel::ProgramData | ConfigLevel::System => "system config (git config --system)",
        ConfigLevel::XDG | ConfigLevel::Global => "global config (git config --global)",
        ConfigLevel::Local => "repository config (git config --local)",
        ConfigLevel::Worktree => "work tree's config (git config --worktree)",
        ConfigLevel::App | ConfigLevel::Highest => "command line (git -c)",
    }
}

/// The command that points the driver at this kmerge where `level` defines it: a user's
/// global setting wins over the system's, and a `git -c` value is the caller's to change.
fn reinstall(level: ConfigLevel, kmerge: &str) -> String {
    match level {
        ConfigLevel::Local | ConfigLevel::Worktree => format!("{kmerge} install"),
        ConfigLevel::ProgramData | ConfigLevel::System | ConfigLevel::XDG | ConfigLevel::Global => {
            format!("{kmerge} install --global")
        }
        ConfigLevel::App | ConfigLevel::Highest => {
            format!("drop the `-c {DRIVER_KEY}=...` given to git, then {kmerge} install")
        }
    }
}

/// Whether the driver's program is where git will look for it: an absolute path to an
/// executable file is found by every git; a bare name only by a git whose PATH holds it.
fn program_check(program: &shell::Word, top: &Path, fix: &str) -> Check {
    let raw = program.raw;
    if !program.literal {
        return Check::new(
            Status::Warn,
            format!("driver program {raw} is expanded by the shell: checked by running it only"),
        );
    }
    let path = Path::new(&program.text);
    if !program.text.contains('/') {
        return match on_path(&program.text).first() {
            Some(found) => Check::new(
                Status::Warn,
                format!(
                    "driver program is called by name ({raw}, here {}): a git started without it on PATH (an IDE, a GUI) cannot run it and leaves every YAML file conflicted, with no markers",
                    found.display()
                ),
            )
            .fix(fix),
            None => Check::new(
                Status::Fail,
                format!("driver program {raw} is not on PATH: git cannot run it"),
            )
            .fix(fix),
        };
    }
    if !path.is_absolute() {
        // git runs the driver in the top folder of the work tree; other tools may not.
        let file = top.join(path);
        let check = if is_executable(&file) {
            Check::new(
                Status::Warn,
                format!(
                    "driver program {raw} is a relative path: only a program run from the top of the work tree ({}) finds it",
                    file.display()
                ),
            )
        } else {
            Check::new(
                Status::Fail,
                format!(
                    "driver program {raw} is no executable file at the top of the work tree ({}): git cannot run it",
                    file.display()
                ),
            )
        };
        return check.fix(fix);
    }
    if is_executable(path) {
        return Check::new(
            Status::Ok,
            format!("driver program {} is an executable file", path.display()),
        );
    }
    let problem = if path.exists() {
        "is not an executable file"
    } else {
        "does not exist"
    };
    Check::new(
        Status::Fail,
        format!(
            "driver program {} {problem}: git cannot run it",
            path.display()
        ),
    )
    .fix(fix)
}

/// How long the driver program may take to print its version: a program that hangs would
/// hang every merge git runs, and doctor must still finish to say so.
const VERSION_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// The child's output once it exits, or `None` (the child killed) if it runs longer than
/// `limit`. What it prints for `--version` is a line, far below a pipe's buffer, so waiting
/// before reading cannot block it.
fn output_within(
    mut child: std::process::Child,
    limit: std::time::Duration,
) -> std::io::Result<Option<std::process::Output>> {
    let start = std::time::Instant::now();
    while child.try_wait()?.is_none() {
        if start.elapsed() >= limit {
            // Already exited or not, it is stopped and reaped: nothing is left running.
            let _ = child.kill();
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().map(Some)
}

/// Runs the program as git would (through `sh`, in the top folder of the work tree) with
/// `--version`, and compares what it prints with this kmerge's version.
fn version_check(raw: &str, top: &Path, fix: &str) -> anyhow::Result<Check> {
    let run = format!("{raw} --version");
    let child = Command::new("sh")
        .arg("-c")
        .arg(&run)
        .current_dir(top)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running sh to ask the driver program its version")?;
    let Some(out) = output_within(child, VERSION_WAIT)
        .context("waiting for the driver program to print its version")?
    else {
        return Ok(Check::new(
            Status::Fail,
            format!(
                "`{run}` did not answer within {} s (stopped): git would wait on it the same way",
                VERSION_WAIT.as_secs()
            ),
        )
        .fix(fix));
    };
    let printed = String::from_utf8_lossy(&out.stdout);
    let line = printed.lines().next().unwrap_or("").trim_end();
    let check = match compare_versions(line, out.status.success()) {
        Comparison::Same => {
            Check::new(Status::Ok, format!("driver program is this kmerge: {line}"))
        }
        Comparison::OtherBuild => Check::new(
            Status::Warn,
            format!("driver program is {line}, another build of this version ({THIS_VERSION})"),
        )
        .fix(fix),
        Comparison::OtherVersion => Check::new(
            Status::Fail,
            format!("driver program is {line}, not this version ({THIS_VERSION})"),
        )
        .fix(fix),
        Comparison::NotKmerge => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let said = match stderr.lines().next().unwrap_or(line).trim_end() {
                "" => "it printed nothing",
                said => said,
            };
            let status = out
                .status
                .code()
                .map_or("killed by a signal".to_string(), |c| format!("exit {c}"));
            Check::new(
                Status::Fail,
                format!("`{run}` does not answer as kmerge ({status}): {said}"),
            )
            .fix(fix)
        }
    };
    Ok(check)
}

#[derive(Debug, PartialEq, Eq)]
enum Comparison {
    /// The very same version line: this release, built from the same commit.
    Same,
    /// The same release, built from another commit.
    OtherBuild,
    OtherVersion,
    NotKmerge,
}

/// How the first line a program printed for `--version` compares with this kmerge's.
fn compare_versions(line: &str, succeeded: bool) -> Comparison {
    let mut words = line.split_whitespace();
    if !succeeded || words.next() != Some("kmerge") {
        return Comparison::NotKmerge;
    }
    if line == THIS_VERSION {
        Comparison::Same
    } else if words.next() == Some(env!("CARGO_PKG_VERSION")) {
        Comparison::OtherBuild
    } else {
        Comparison::OtherVersion
    }
}

/// Which of the tracked YAML files the `merge` attribute sends to kmerge. With none tracked
/// yet, new files named like the default patterns stand in.
fn attributes_check(repo: &Repository, kmerge: &str) -> anyhow::Result<Check> {
    let index = repo
        .index()
        .map_err(|e| anyhow!("{}", e.message()))
        .context("reading the index")?;
    // A path that is not UTF-8 is shown and looked up with its invalid bytes replaced:
    // the `*.yaml` patterns still see its ending.
    let mut tracked: Vec<String> = index
        .iter()
        .map(|entry| String::from_utf8_lossy(&entry.path).into_owned())
        .filter(|path| is_yaml(path))
        .collect();
    // A conflicted path is in the index once per stage.
    tracked.dedup();
    let probes = tracked.is_empty();
    let paths = if probes {
        DEFAULT_PATTERNS.map(|p| p.replace('*', "x")).to_vec()
    } else {
        tracked
    };
    let mut missed = Vec::new();
    for path in &paths {
        let value = repo
            .get_attr_bytes(Path::new(path), "merge", AttrCheckFlags::FILE_THEN_INDEX)
            .map_err(|e| anyhow!("{}", e.message()))
            .with_context(|| format!("reading the merge attribute of {path}"))?;
        if let Some(why) = not_kmerge(AttrValue::from_bytes(value)) {
            missed.push(format!("{path} ({why})"));
        }
    }
    let fix = format!(
        "{kmerge} install (adds `{} merge=kmerge` to .gitattributes)",
        DEFAULT_PATTERNS.join(" merge=kmerge` and `")
    );
    Ok(attributes_report(&paths, &missed, probes).fix_if_failed(fix))
}

/// The attribute check's line: `missed` are those of `paths` not sent to kmerge, each with
/// why; `probes` says the paths are stand-ins for files not tracked yet.
fn attributes_report(paths: &[String], missed: &[String], probes: bool) -> Check {
    let total = paths.len();
    let sent = total - missed.len();
    let (kind, note) = if probes {
        ("new", "; none is tracked yet")
    } else {
        ("tracked", "")
    };
    if missed.is_empty() {
        let which = if probes {
            paths.join(" and ")
        } else {
            format!("{total} file{}", if total == 1 { "" } else { "s" })
        };
        Check::new(
            Status::Ok,
            format!("attributes send every {kind} YAML file to kmerge ({which}{note})"),
        )
    } else if sent == 0 {
        Check::new(
            Status::Fail,
            format!(
                "attributes send no {kind} YAML file to kmerge (0 of {total}{note}): {}",
                listed(missed)
            ),
        )
    } else {
        Check::new(
            Status::Warn,
            format!(
                "attributes send {sent} of {total} {kind} YAML files to kmerge{}; not: {}",
                if probes { " (none is tracked yet)" } else { "" },
                listed(missed)
            ),
        )
    }
}

fn is_yaml(path: &str) -> bool {
    path.ends_with(".yaml") || path.ends_with(".yml")
}

/// The `merge` attribute as `.gitattributes` would spell it, or `None` when it sends the
/// file to kmerge.
fn not_kmerge(value: AttrValue) -> Option<String> {
    match value {
        AttrValue::String("kmerge") | AttrValue::Bytes(b"kmerge") => None,
        AttrValue::Unspecified => Some("no merge attribute".into()),
        AttrValue::True => Some("merge".into()),
        AttrValue::False => Some("-merge".into()),
        AttrValue::String(other) => Some(format!("merge={other}")),
        AttrValue::Bytes(other) => Some(format!("merge={}", String::from_utf8_lossy(other))),
    }
}

/// The first few items, then how many more.
fn listed(items: &[String]) -> String {
    let shown = items[..items.len().min(SHOWN_PATHS)].join(", ");
    match items.len().saturating_sub(SHOWN_PATHS) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// Whether the git on PATH passes the driver its conflict labels.
fn git_check() -> Check {
    match Command::new("git").arg("--version").output() {
        Ok(out) => labels_check(String::from_utf8_lossy(&out.stdout).trim()),
        Err(e) => Check::new(
            Status::Warn,
            format!("git not found on PATH ({e}): its version is not checked"),
        ),
    }
}

/// What `git --version` printing `said` means for the markers: a git older than 2.44 still
/// runs the driver, whose markers then read base/ours/theirs, so it is a warning.
fn labels_check(said: &str) -> Check {
    let Some(version) = git_version(said) else {
        return Check::new(
            Status::Warn,
            format!("git's version not understood: `git --version` printed {said:?}"),
        );
    };
    let (major, minor) = LABELS_SINCE;
    if version >= LABELS_SINCE {
        Check::new(
            Status::Ok,
            format!(
                "{said}: passes the driver its conflict labels (%S %X %Y need git {major}.{minor})"
            ),
        )
    } else {
        Check::new(
            Status::Warn,
            format!("{said} is older than {major}.{minor}: it passes the driver no conflict labels (%S %X %Y), so kmerge's markers read base/ours/theirs instead of git's names"),
        )
        .fix(format!("upgrade git to {major}.{minor} or later"))
    }
}

/// Major and minor version from `git --version`'s `git version 2.39.2 (Apple Git-143)` or
/// `git version 2.45.1.windows.1`.
fn git_version(said: &str) -> Option<(u32, u32)> {
    let number = said
        .strip_prefix("git version ")?
        .split_whitespace()
        .next()?;
    let mut parts = number.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    Some((major, minor))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_versions_are_read_from_what_git_prints() {
        assert_eq!(git_version("git version 2.47.3"), Some((2, 47)));
        assert_eq!(
            git_version("git version 2.39.2 (Apple Git-143)"),
            Some((2, 39))
        );
        assert_eq!(git_version("git version 2.45.1.windows.1"), Some((2, 45)));
        assert_eq!(git_version("hub version 2.14.2"), None);
        assert_eq!(git_version("git version x.y"), None);
    }

    #[test]
    fn a_git_older_than_2_44_is_a_warning() {
        let old = labels_check("git version 2.43.5");
        assert_eq!(old.status, Status::Warn);
        assert_eq!(
            old.text,
            "git version 2.43.5 is older than 2.44: it passes the driver no conflict labels \
             (%S %X %Y), so kmerge's markers read base/ours/theirs instead of git's names"
        );
        assert_eq!(old.fix.as_deref(), Some("upgrade git to 2.44 or later"));
        let new = labels_check("git version 2.44.0");
        assert_eq!(new.status, Status::Ok);
        assert_eq!(
            new.text,
            "git version 2.44.0: passes the driver its conflict labels (%S %X %Y need git 2.44)"
        );
        assert_eq!(new.fix, None);
        assert_eq!(labels_check("").status, Status::Warn);
    }

    #[test]
    fn versions_compare_by_release_then_build() {
        assert_eq!(compare_versions(THIS_VERSION, true), Comparison::Same);
        assert_eq!(compare_versions(THIS_VERSION, false), Comparison::NotKmerge);
        let other_build = format!("kmerge {} (0000000 2020-01-01)", env!("CARGO_PKG_VERSION"));
        assert_eq!(compare_versions(&other_build, true), Comparison::OtherBuild);
        assert_eq!(
            compare_versions("kmerge 0.0.1", true),
            Comparison::OtherVersion
        );
        assert_eq!(
            compare_versions("git version 2.47.3", true),
            Comparison::NotKmerge
        );
        assert_eq!(compare_versions("", true), Comparison::NotKmerge);
    }

    #[test]
    fn a_driver_command_runs_driver_with_base_ours_theirs() {
        let runs = |command: &str| runs_the_driver(&shell::words(command));
        assert!(runs(
            "/bin/kmerge driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y"
        ));
        assert!(runs("kmerge driver --quiet --on-conflict theirs %O %A %B"));
        assert!(runs("'/a b/kmerge' 'driver' \"%O\" %A %B"));
        assert!(!runs("kmerge merge3 %O %A %B"));
        assert!(!runs("kmerge driver %A %O %B"));
        assert!(!runs("kmerge driver %O %A"));
        assert!(!runs("kmerge"));
        assert!(!runs(""));
    }

    #[test]
    fn long_lists_are_cut_short() {
        let items: Vec<String> = (1..=7).map(|i| format!("f{i}.yaml")).collect();
        assert_eq!(
            listed(&items),
            "f1.yaml, f2.yaml, f3.yaml, f4.yaml, f5.yaml and 2 more"
        );
        assert_eq!(listed(&items[..2]), "f1.yaml, f2.yaml");
    }
}
