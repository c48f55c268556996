//! Git's configuration as git itself reads it for a merge: the files in git's order and the
//! settings of git's own command line, which libgit2 alone would miss.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

use super::{config_parameters, error};
use crate::options::ConflictStyle;

/// `merge.conflictStyle` as git reads it for a merge in the current directory (git does not
/// pass it to drivers): [`git_config`]'s, `git -c` included.
pub(crate) fn configured_style() -> anyhow::Result<ConflictStyle> {
    Ok(conflict_style(&git_config()?))
}

/// `merge.conflictStyle` in `config`; git's default `merge` when unset.
pub(crate) fn conflict_style(config: &git2::Config) -> ConflictStyle {
    match config.get_string("merge.conflictStyle").as_deref() {
        Ok("diff3") => ConflictStyle::Diff3,
        Ok("zdiff3") => ConflictStyle::ZDiff3,
        _ => ConflictStyle::Merge,
    }
}

/// The configuration git itself would read in the current directory: see [`config_of`].
pub(crate) fn git_config() -> anyhow::Result<git2::Config> {
    config_of(git2::Repository::open_from_env().ok().as_ref())
}

/// The configuration git itself would read in `repo` (outside a repository without one), in
/// git's order, each layer overriding the ones before: the system file unless
/// `GIT_CONFIG_NOSYSTEM` (`GIT_CONFIG_SYSTEM` names another), the global files
/// (`GIT_CONFIG_GLOBAL` names the one file instead), the repository's own, and over them all
/// the settings of git's command line (`git -c`, `GIT_CONFIG_COUNT`: [`config_parameters`]).
/// libgit2's defaults ignore git's command line and read the XDG file even under
/// `GIT_CONFIG_GLOBAL`, so the layers are added one by one.
///
/// Fails where git would refuse to run: command-line settings it cannot parse, or a
/// `GIT_CONFIG_NOSYSTEM` that is not a boolean. The result is a snapshot: the command line's
/// layer is read from a temporary file, gone once read.
pub(crate) fn config_of(repo: Option<&git2::Repository>) -> anyhow::Result<git2::Config> {
    use git2::ConfigLevel;
    let mut config = git2::Config::new().map_err(error)?;
    // Git reads a variable that is set, even empty (an empty path names no file).
    let env = |name: &str| std::env::var_os(name).map(PathBuf::from);
    let no_system = match std::env::var("GIT_CONFIG_NOSYSTEM") {
        Ok(value) => git2::Config::parse_bool(value.as_str()).map_err(|_| {
            anyhow!("bad boolean environment value {value:?} for GIT_CONFIG_NOSYSTEM")
        })?,
        Err(_) => false,
    };
    if !no_system {
        if let Some(path) = env("GIT_CONFIG_SYSTEM").or_else(|| git2::Config::find_system().ok()) {
            add_file(&mut config, &path, ConfigLevel::System);
        }
    }
    match env("GIT_CONFIG_GLOBAL") {
        Some(path) => add_file(&mut config, &path, ConfigLevel::Global),
        None => {
            if let Ok(path) = git2::Config::find_xdg() {
                add_file(&mut config, &path, ConfigLevel::XDG);
            }
            if let Ok(path) = git2::Config::find_global() {
                add_file(&mut config, &path, ConfigLevel::Global);
            }
        }
    }
    if let Some(repo) = repo {
        // A linked worktree shares the main repository's config.
        add_file(
            &mut config,
            &repo.commondir().join("config"),
            ConfigLevel::Local,
        );
        if config
            .get_bool("extensions.worktreeConfig")
            .unwrap_or(false)
        {
            add_file(
                &mut config,
                &repo.path().join("config.worktree"),
                ConfigLevel::Worktree,
            );
        }
    }
    let settings = config_parameters::from_env().context("reading git's command-line settings")?;
    let command_line = if settings.is_empty() {
        None
    } else {
        let text = config_parameters::as_config_file(&settings);
        let file =
            written(&text).context("writing git's command-line settings to a temporary file")?;
        Some(file)
    };
    if let Some(file) = &command_line {
        config
            .add_file(file.path(), ConfigLevel::App, false)
            .map_err(error)
            .context("reading git's command-line settings")?;
    }
    config
        .snapshot()
        .map_err(error)
        .context("reading git's configuration")
}

/// Adds a config file that exists. An unreadable one is skipped, as git skips a missing one.
fn add_file(config: &mut git2::Config, path: &Path, level: git2::ConfigLevel) {
    if path.is_file() {
        let _ = config.add_file(path, level, false);
    }
}

/// A temporary file holding `text`, removed when dropped.
fn written(text: &str) -> std::io::Result<tempfile::NamedTempFile> {
    let mut file = tempfile::Builder::new()
        .prefix("kmerge-config-")
        .tempfile()?;
    file.write_all(text.as_bytes())?;
    Ok(file)
}
