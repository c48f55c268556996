//! What the two case runners share (`tests/cases.rs`, one file merge a folder, and
//! `tests/packages.rs`, one package update a folder): the keys every case file has, the check
//! of a run against them, and the folders that hold the cases.

use std::fs;
use std::path::{Path, PathBuf};

use super::Finished;

/// The keys both kinds of case file (`expect.toml`, `case.toml`) have.
#[derive(Debug, Default)]
pub struct CaseKeys {
    /// The exit code kmerge must give (default 0).
    pub exit: i32,
    /// More arguments for `kmerge merge3`.
    pub args: Vec<String>,
    /// Texts stderr must hold.
    pub stderr_contains: Vec<String>,
}

/// Reads the case file `file` (its name, for messages) from `text`: the shared keys here,
/// every other key through `other`, which answers `Ok(false)` for a key it does not know.
/// `description` is required; a key neither knows is refused, since a misspelt key would
/// silently weaken a case.
pub fn read_case_file(
    file: &str,
    text: &str,
    mut other: impl FnMut(&str, &toml::Value) -> Result<bool, String>,
) -> Result<CaseKeys, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("{file}: {e}"))?;
    let mut keys = CaseKeys::default();
    for (key, value) in &table {
        match key.as_str() {
            "description" => {
                string(file, key, value)?;
            }
            "exit" => {
                let n = value
                    .as_integer()
                    .ok_or_else(|| format!("{file}: exit must be an integer"))?;
                keys.exit = i32::try_from(n).map_err(|_| format!("{file}: exit out of range"))?;
            }
            "args" => keys.args = strings(file, key, value)?,
            "stderr_contains" => keys.stderr_contains = strings(file, key, value)?,
            _ => {
                if !other(key, value)? {
                    return Err(format!("{file}: unknown key {key:?}"));
                }
            }
        }
    }
    if !table.contains_key("description") {
        return Err(format!("{file}: description is missing"));
    }
    Ok(keys)
}

/// The string value of `key`.
pub fn string(file: &str, key: &str, v: &toml::Value) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{file}: {key} must be a string"))
}

/// The array of strings of `key`.
pub fn strings(file: &str, key: &str, v: &toml::Value) -> Result<Vec<String>, String> {
    v.as_array()
        .and_then(|a| a.iter().map(|s| s.as_str().map(String::from)).collect())
        .ok_or_else(|| format!("{file}: {key} must be an array of strings"))
}

/// A run's exit code and stderr against the case: the exit code it names, no report of a bug
/// in kmerge (its own check overruling the structural merge, or an internal error: never an
/// acceptable outcome of a case), and every text stderr must hold.
pub fn check_run(run: &Finished, keys: &CaseKeys) -> Result<(), String> {
    let stderr = String::from_utf8_lossy(&run.stderr);
    if run.code != Some(keys.exit) {
        return Err(format!(
            "exit {:?}, expected {}; stderr:\n{stderr}",
            run.code, keys.exit
        ));
    }
    if stderr.contains("a bug in kmerge") {
        return Err(format!(
            "kmerge reports a bug of its own; stderr:\n{stderr}"
        ));
    }
    for needle in &keys.stderr_contains {
        if !stderr.contains(needle.as_str()) {
            return Err(format!("stderr lacks {needle:?}; stderr:\n{stderr}"));
        }
    }
    Ok(())
}

/// The folders directly inside `dir`, sorted.
pub fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    found
}

/// The strictness of a case file's reader: a file without `description`, one with a key
/// nobody knows, and each of `bad` (the reader's own mistakes) must be refused.
pub fn refuses_each<T>(
    parse: impl Fn(&str) -> Result<T, String>,
    bad: &[&str],
) -> Result<(), String> {
    let shared = ["exit = 1\n", "description = \"x\"\nexpect = 1\n"];
    match shared.iter().chain(bad).find(|text| parse(text).is_ok()) {
        Some(text) => Err(format!("accepted {text:?}")),
        None => Ok(()),
    }
}
