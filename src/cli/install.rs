//! `kmerge install`: puts the driver in place in one command, and `--uninstall` takes it out.
//!
//! Git needs two things: the driver's definition in a config file (`merge.kmerge.name` and
//! `merge.kmerge.driver`) and attribute lines that send files to it (`*.yaml merge=kmerge`).
//! Both are written here through git2 and plain file edits, idempotently. Every attribute line
//! added is preceded by a `# kmerge` comment line: git rejects a whole attribute line that
//! carries a trailing comment, so the mark stands on the line above, and `--uninstall`
//! removes exactly the marked pairs, leaving the user's own lines alone.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};

use super::{InstallArgs, EXIT_CLEAN};
use crate::atomic_write::write_atomically;

/// The config key naming the driver, and its value.
const NAME_KEY: &str = "merge.kmerge.name";
const NAME: &str = "kmerge: structural Kubernetes YAML merge";
const DRIVER_KEY: &str = "merge.kmerge.driver";
/// What git passes the driver: ancestor, ours (the result goes there), theirs, marker size,
/// path, and the labels git puts in its own markers.
const DRIVER_ARGS: &str = "driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y";
/// The comment line above each attribute line install adds.
pub(super) const MARK: &str = "# kmerge";
/// The attribute that sends a file to the driver.
const ATTRIBUTE: &str = "merge=kmerge";
/// The patterns installed when none are given.
pub(super) const DEFAULT_PATTERNS: [&str; 2] = ["*.yaml", "*.yml"];

/// Where the driver is defined and which attribute files send files to it.
struct Target {
    config: PathBuf,
    /// The file install adds lines to.
    attributes: PathBuf,
    /// Every file uninstall removes marked lines from.
    attribute_files: Vec<PathBuf>,
}

pub(super) fn install(a: InstallArgs) -> anyhow::Result<i32> {
    let target = target(&a)?;
    let mut changes = Vec::new();
    if a.uninstall {
        remove_config(&target.config, &mut changes)?;
        for file in &target.attribute_files {
            remove_marked_lines(file, &mut changes)?;
        }
    } else {
        let patterns: Vec<&str> = if a.pattern.is_empty() {
            DEFAULT_PATTERNS.to_vec()
        } else {
            a.pattern.iter().map(String::as_str).collect()
        };
        let driver = format!("{} {DRIVER_ARGS}", program()?);
        set_config(
            &target.config,
            &[(NAME_KEY, NAME), (DRIVER_KEY, &driver)],
            &mut changes,
        )?;
        add_lines(&target.attributes, &patterns, &mut changes)?;
    }
    if changes.is_empty() {
        let state = if a.uninstall {
            "not installed"
        } else {
            "already installed"
        };
        println!(
            "kmerge: {state} in {} and {}: nothing changed",
            target.config.display(),
            target.attributes.display()
        );
    }
    for change in &changes {
        println!("kmerge: {change}");
    }
    Ok(EXIT_CLEAN)
}

/// The repository's config and `.gitattributes` (or, with `--local`, its untracked
/// `info/attributes`); with `--global`, the user's config and attributes file.
fn target(a: &InstallArgs) -> anyhow::Result<Target> {
    if a.global {
        let attributes = global_attributes()?;
        return Ok(Target {
            config: global_config()?,
            attribute_files: vec![attributes.clone()],
            attributes,
        });
    }
    let repo = git2::Repository::open_from_env().map_err(|e| {
        anyhow!(
            "not inside a git repository ({}); --global installs for every repository",
            e.message()
        )
    })?;
    let info = repo.commondir().join("info").join("attributes");
    let tracked = repo.workdir().map(|dir| dir.join(".gitattributes"));
    let attributes = match (&tracked, a.local) {
        (Some(file), false) => file.clone(),
        (None, false) => bail!(
            "{} is a bare repository: it has no .gitattributes; --local writes info/attributes",
            repo.path().display()
        ),
        (_, true) => info.clone(),
    };
    Ok(Target {
        config: repo.commondir().join("config"),
        attributes,
        attribute_files: tracked.into_iter().chain([info]).collect(),
    })
}

/// The file `git config --global` writes: `GIT_CONFIG_GLOBAL`, else `~/.gitconfig` unless only
/// the XDG file (`$XDG_CONFIG_HOME/git/config`) exists.
fn global_config() -> anyhow::Result<PathBuf> {
    if let Some(path) = env_path("GIT_CONFIG_GLOBAL") {
        return Ok(path);
    }
    let home = home()?.join(".gitconfig");
    let xdg = xdg_config_home()?.join("git").join("config");
    Ok(if !home.exists() && xdg.is_file() {
        xdg
    } else {
        home
    })
}

/// The attributes file git reads for every repository: the one `core.attributesFile` names,
/// else git's default `$XDG_CONFIG_HOME/git/attributes`. Install never sets
/// `core.attributesFile`: setting it would make git stop reading the default file.
fn global_attributes() -> anyhow::Result<PathBuf> {
    let named = crate::git::config::git_config()
        .ok()
        .and_then(|c| c.get_path("core.attributesFile").ok());
    match named {
        Some(path) => Ok(path),
        None => Ok(xdg_config_home()?.join("git").join("attributes")),
    }
}

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn home() -> anyhow::Result<PathBuf> {
    env_path("HOME").ok_or_else(|| anyhow!("HOME is not set: no user config to install into"))
}

fn xdg_config_home() -> anyhow::Result<PathBuf> {
    match env_path("XDG_CONFIG_HOME") {
        Some(path) => Ok(path),
        None => Ok(home()?.join(".config")),
    }
}

/// How the driver command names this binary: always by an absolute path, since a git
/// started without kmerge on its PATH (an IDE, a GUI) cannot run a driver called by name and
/// would leave every YAML file conflicted with no markers. Quoted for the shell git runs the
/// driver through.
fn program() -> anyhow::Result<String> {
    quoted(&located()?.path)
}

/// How the user's shell runs this binary, for the commands `doctor` suggests: `kmerge`
/// where that is the first kmerge on PATH, else its absolute path.
pub(super) fn command_name() -> anyhow::Result<String> {
    let this = located()?;
    if this.first_on_path {
        Ok("kmerge".into())
    } else {
        quoted(&this.path)
    }
}

/// Where this binary is.
struct Located {
    /// The first PATH entry that is this binary, not resolved through symlinks (a package
    /// manager's link stays valid across upgrades); else the running executable's path.
    path: PathBuf,
    /// Whether PATH's first kmerge is this binary.
    first_on_path: bool,
}

fn located() -> anyhow::Result<Located> {
    let exe = std::env::current_exe().context("finding the path of the running kmerge")?;
    let real = std::fs::canonicalize(&exe).unwrap_or_else(|_| exe.clone());
    let is_this = |found: &PathBuf| std::fs::canonicalize(found).is_ok_and(|f| f == real);
    let found = on_path("kmerge");
    Ok(match found.iter().position(is_this) {
        Some(i) => Located {
            path: found[i].clone(),
            first_on_path: i == 0,
        },
        None => Located {
            path: exe,
            first_on_path: false,
        },
    })
}

fn quoted(path: &Path) -> anyhow::Result<String> {
    let text = path
        .to_str()
        .ok_or_else(|| anyhow!("the path of kmerge is not UTF-8: {}", path.display()))?;
    Ok(shell_quote(text))
}

/// Every executable file named `name` in PATH's absolute folders, in PATH's order, as PATH
/// names it (symlinks not resolved).
pub(super) fn on_path(name: &str) -> Vec<PathBuf> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .filter(|candidate| is_executable(candidate))
        .collect()
}

pub(super) fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// The word as the shell reads it: unchanged when it holds only safe characters.
fn shell_quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

fn open_config(path: &Path) -> anyhow::Result<git2::Config> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the folder {}", dir.display()))?;
    }
    git2::Config::open(path)
        .map_err(|e| anyhow!("{}", e.message()))
        .with_context(|| format!("opening git config {}", path.display()))
}

fn set_config(
    path: &Path,
    entries: &[(&str, &str)],
    changes: &mut Vec<String>,
) -> anyhow::Result<()> {
    let mut config = open_config(path)?;
    for &(key, value) in entries {
        let old = config.get_string(key).ok();
        if old.as_deref() == Some(value) {
            continue;
        }
        config
            .set_str(key, value)
            .map_err(|e| anyhow!("{}", e.message()))
            .with_context(|| format!("setting {key} in {}", path.display()))?;
        let was = old.map_or(String::new(), |old| format!(" (was {old})"));
        changes.push(format!("set {key} = {value}{was} in {}", path.display()));
    }
    Ok(())
}

fn remove_config(path: &Path, changes: &mut Vec<String>) -> anyhow::Result<()> {
    if !path.exists() {
        return Ok(());
    }
    let mut config = open_config(path)?;
    for key in [NAME_KEY, DRIVER_KEY] {
        if config.get_entry(key).is_err() {
            continue;
        }
        config
            .remove(key)
            .map_err(|e| anyhow!("{}", e.message()))
            .with_context(|| format!("removing {key} from {}", path.display()))?;
        changes.push(format!("removed {key} from {}", path.display()));
    }
    drop(config);
    remove_empty_section(path)
}

/// Removes the `[merge "kmerge"]` header git and libgit2 leave behind once its last key is
/// gone, so an uninstall restores the file; a file left with nothing at all is removed (install
/// created it). Only a header whose section holds nothing but blank lines goes.
fn remove_empty_section(path: &Path) -> anyhow::Result<()> {
    let old = read_text(path)?;
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let is_header = |l: &str| {
        let l = l.trim();
        l.len() > 8 && l[..6].eq_ignore_ascii_case("[merge") && l[6..].trim_start() == "\"kmerge\"]"
    };
    let mut kept = String::with_capacity(old.len());
    for (i, line) in lines.iter().enumerate() {
        let body_empty = || {
            lines[i + 1..]
                .iter()
                .take_while(|l| !l.trim_start().starts_with('['))
                .all(|l| l.trim().is_empty())
        };
        if !(is_header(line) && body_empty()) {
            kept.push_str(line);
        }
    }
    if kept == old {
        Ok(())
    } else if kept.is_empty() {
        std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))
    } else {
        write_atomically(path, kept.as_bytes())
            .with_context(|| format!("writing {}", path.display()))
    }
}

fn read_text(path: &Path) -> anyhow::Result<String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .with_context(|| format!("{} is not UTF-8 text", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// Whether an attribute line already sends `pattern` to kmerge.
fn sends_to_kmerge(line: &str, pattern: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some(pattern) && words.any(|w| w == ATTRIBUTE)
}

/// Appends `MARK` and `PATTERN merge=kmerge` for each pattern no line sends to kmerge yet,
/// in the file's own line ending.
fn add_lines(path: &Path, patterns: &[&str], changes: &mut Vec<String>) -> anyhow::Result<()> {
    let old = read_text(path)?;
    let eol = if old.contains("\r\n") { "\r\n" } else { "\n" };
    let mut text = old.clone();
    for pattern in patterns {
        if text.lines().any(|l| sends_to_kmerge(l, pattern)) {
            continue;
        }
        if !text.is_empty() && !text.ends_with('\n') {
            text.push_str(eol);
        }
        let line = format!("{pattern} {ATTRIBUTE}");
        text.push_str(&format!("{MARK}{eol}{line}{eol}"));
        changes.push(format!("added `{line}` to {}", path.display()));
    }
    if text != old {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the folder {}", dir.display()))?;
        }
        write_atomically(path, text.as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// Removes each `MARK` line together with the `merge=kmerge` line right below it; a file
/// left empty is removed, as install created it.
fn remove_marked_lines(path: &Path, changes: &mut Vec<String>) -> anyhow::Result<()> {
    let old = read_text(path)?;
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut kept = String::with_capacity(old.len());
    let mut i = 0;
    while i < lines.len() {
        let marked = lines[i].trim_end() == MARK
            && lines.get(i + 1).is_some_and(|next| {
                next.split_whitespace().nth(1) == Some(ATTRIBUTE)
                    && next.split_whitespace().count() == 2
            });
        if marked {
            changes.push(format!(
                "removed `{}` from {}",
                lines[i + 1].trim_end(),
                path.display()
            ));
            i += 2;
        } else {
            kept.push_str(lines[i]);
            i += 1;
        }
    }
    if kept == old {
        return Ok(());
    }
    if kept.is_empty() {
        std::fs::remove_file(path).with_context(|| format!("removing {}", path.display()))
    } else {
        write_atomically(path, kept.as_bytes())
            .with_context(|| format!("writing {}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_when_the_shell_needs_it() {
        assert_eq!(
            shell_quote("/usr/local/bin/kmerge"),
            "/usr/local/bin/kmerge"
        );
        assert_eq!(shell_quote("/home/a b/kmerge"), "'/home/a b/kmerge'");
        assert_eq!(shell_quote("/tmp/it's/kmerge"), r"'/tmp/it'\''s/kmerge'");
    }

    #[test]
    fn an_existing_line_counts_only_for_its_own_pattern() {
        assert!(sends_to_kmerge("*.yaml merge=kmerge", "*.yaml"));
        assert!(sends_to_kmerge("*.yaml  text merge=kmerge", "*.yaml"));
        assert!(!sends_to_kmerge("*.yaml merge=other", "*.yaml"));
        assert!(!sends_to_kmerge("*.yml merge=kmerge", "*.yaml"));
        assert!(!sends_to_kmerge("# *.yaml merge=kmerge", "*.yaml"));
    }
}
