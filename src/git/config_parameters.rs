//! Git's config parameters: the settings of git's own command line, as they reach the
//! programs git runs.
//!
//! `git -c merge.conflictStyle=diff3 merge` does not write the setting anywhere: git passes it
//! to the merge driver (and to any program it starts) in `GIT_CONFIG_PARAMETERS`, and a user or
//! a script can add more with `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>` and
//! `GIT_CONFIG_VALUE_<n>`. They override every config file, so a setting read from the files
//! alone is not always the one git uses. libgit2 reads none of them: they are read here as
//! git's `config.c` reads them (the counted ones first, then the parameters; the last of a key
//! wins) and handed to libgit2 as a config file of their own ([`as_config_file`]).

use std::ffi::OsString;

use anyhow::{anyhow, bail, Context};

/// The variable `git -c` and `git --config-env` fill.
const PARAMETERS: &str = "GIT_CONFIG_PARAMETERS";
/// The variable that counts the `GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>` pairs.
const COUNT: &str = "GIT_CONFIG_COUNT";

/// One setting: its key as git spells it canonically (section and name in lower case, a
/// subsection as given) and its value; `None` is a key given without `=` (`git -c key`),
/// which git reads as boolean true.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Setting {
    pub key: String,
    pub value: Option<String>,
}

/// The settings of git's command line in this process's environment, in git's order.
/// Malformed ones are an error, as git itself stops on them ("bogus format in
/// GIT_CONFIG_PARAMETERS"); so is a value that is not UTF-8, which libgit2 could not return.
pub(crate) fn from_env() -> anyhow::Result<Vec<Setting>> {
    read(|name| std::env::var_os(name))
}

/// [`from_env`] over any source of variables.
fn read(var: impl Fn(&str) -> Option<OsString>) -> anyhow::Result<Vec<Setting>> {
    let text = |name: &str| -> anyhow::Result<Option<String>> {
        var(name)
            .map(|v| v.into_string().map_err(|_| anyhow!("{name} is not UTF-8")))
            .transpose()
    };
    let mut settings = Vec::new();
    if let Some(count) = text(COUNT)? {
        // strtoul, as git reads it: an empty count is 0.
        let count: u64 = match count.as_str() {
            "" => 0,
            digits => digits
                .parse()
                .map_err(|_| anyhow!("bogus count in {COUNT}: {digits:?}"))?,
        };
        if count > i32::MAX as u64 {
            bail!("too many entries in {COUNT}: {count}");
        }
        for n in 0..count {
            let key_var = format!("GIT_CONFIG_KEY_{n}");
            let value_var = format!("GIT_CONFIG_VALUE_{n}");
            let key = text(&key_var)?.ok_or_else(|| anyhow!("missing config key {key_var}"))?;
            let value =
                text(&value_var)?.ok_or_else(|| anyhow!("missing config value {value_var}"))?;
            let key = canonical_key(&key).with_context(|| format!("in {key_var}"))?;
            settings.push(Setting {
                key,
                value: Some(value),
            });
        }
    }
    if let Some(parameters) = text(PARAMETERS)? {
        settings.extend(parse_parameters(&parameters).with_context(|| format!("in {PARAMETERS}"))?);
    }
    Ok(settings)
}

/// Git's `isspace`: space, tab, line feed and carriage return.
fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The entries of `GIT_CONFIG_PARAMETERS`, separated by white space: `'key'='value'` (git
/// 2.31 and later), `'key'=` (no value: boolean true) or the older `'key=value'`, each part
/// quoted for the shell (`'\''` stands for a quote).
fn parse_parameters(text: &str) -> anyhow::Result<Vec<Setting>> {
    let bogus = || anyhow!("bogus format: {text:?}");
    let mut settings = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let (key, after) = dequote_step(rest).ok_or_else(bogus)?;
        rest = match after {
            None => {
                settings.push(parse_parameter(&key)?);
                ""
            }
            Some(after) if after.starts_with(is_space) => {
                settings.push(parse_parameter(&key)?);
                after
            }
            Some(after) => {
                let after = after.strip_prefix('=').ok_or_else(bogus)?;
                let (value, after) = if after.starts_with('\'') {
                    let (value, after) = dequote_step(after).ok_or_else(bogus)?;
                    let after = after.unwrap_or("");
                    if !(after.is_empty() || after.starts_with(is_space)) {
                        return Err(bogus());
                    }
                    (Some(value), after)
                } else if after.is_empty() || after.starts_with(is_space) {
                    (None, after)
                } else {
                    return Err(bogus());
                };
                settings.push(Setting {
                    key: canonical_key(&key)?,
                    value,
                });
                after
            }
        };
        rest = rest.trim_start_matches(is_space);
    }
    Ok(settings)
}

/// Git's `sq_dequote_step`: one shell-quoted word at the start of `text` (`'...'`, where
/// `'\''` and `'\!'` stand for the character), and what follows it (`None` at the end).
/// `None` where `text` does not start with a quoted word or leaves it unterminated.
fn dequote_step(text: &str) -> Option<(String, Option<&str>)> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'\'') {
        return None;
    }
    let mut word = Vec::new();
    let mut i = 1;
    loop {
        match *bytes.get(i)? {
            b'\'' => match bytes.get(i + 1) {
                None => return Some((String::from_utf8(word).ok()?, None)),
                Some(b'\\')
                    if matches!(bytes.get(i + 2), Some(b'\'' | b'!'))
                        && bytes.get(i + 3) == Some(&b'\'') =>
                {
                    word.push(bytes[i + 2]);
                    i += 4;
                }
                // Only ASCII was consumed, so `i + 1` is a character boundary.
                Some(_) => return Some((String::from_utf8(word).ok()?, Some(&text[i + 1..]))),
            },
            byte => {
                word.push(byte);
                i += 1;
            }
        }
    }
}

/// Git's `git_config_parse_parameter`: an old-style `key=value` entry (`key` alone is true).
fn parse_parameter(text: &str) -> anyhow::Result<Setting> {
    let (key, value) = match text.split_once('=') {
        Some((key, value)) => (key, Some(value.to_string())),
        None => (text, None),
    };
    let key = key.trim_matches(is_space);
    if key.is_empty() {
        bail!("bogus config parameter: {text:?}");
    }
    Ok(Setting {
        key: canonical_key(key)?,
        value,
    })
}

/// Git's `git_config_parse_key`: `section[.subsection].name`, the section and the name made of
/// letters, digits and `-` (the name starting with a letter) and put in lower case; the
/// subsection kept as it is, anything but a line break.
fn canonical_key(key: &str) -> anyhow::Result<String> {
    if key.is_empty() {
        bail!("empty config key");
    }
    let last_dot = match key.rfind('.') {
        Some(0) | None => bail!("key does not contain a section: {key:?}"),
        Some(i) if i + 1 == key.len() => bail!("key does not contain variable name: {key:?}"),
        Some(i) => i,
    };
    let first_dot = key.find('.').unwrap_or(last_dot);
    let (section, name) = (&key[..first_dot], &key[last_dot + 1..]);
    let subsection = &key[first_dot..=last_dot];
    let is_key_char = |c: char| c.is_ascii_alphanumeric() || c == '-';
    if !section.chars().all(is_key_char)
        || !name.chars().all(is_key_char)
        || !name.starts_with(|c: char| c.is_ascii_alphabetic())
    {
        bail!("invalid key: {key:?}");
    }
    if subsection.contains('\n') {
        bail!("invalid key (newline): {key:?}");
    }
    Ok(format!(
        "{}{subsection}{}",
        section.to_ascii_lowercase(),
        name.to_ascii_lowercase()
    ))
}

/// The settings as the text of a git config file, in their order, for libgit2 to read as
/// one more layer.
pub(crate) fn as_config_file(settings: &[Setting]) -> String {
    let mut text = String::new();
    for setting in settings {
        // A canonical key has a dot after its section and before its name.
        let (section, rest) = setting.key.split_once('.').unwrap_or(("", &setting.key));
        let (subsection, name) = match rest.rsplit_once('.') {
            Some((subsection, name)) => (Some(subsection), name),
            None => (None, rest),
        };
        match subsection {
            Some(sub) => {
                let sub = sub.replace('\\', r"\\").replace('"', "\\\"");
                text.push_str(&format!("[{section} \"{sub}\"]\n"));
            }
            None => text.push_str(&format!("[{section}]\n")),
        }
        match &setting.value {
            None => text.push_str(&format!("\t{name}\n")),
            Some(value) => text.push_str(&format!("\t{name} = \"{}\"\n", quoted(value))),
        }
    }
    text
}

/// A value's characters as they go between double quotes in a config file.
fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            '\u{8}' => out.push_str(r"\b"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setting(key: &str, value: Option<&str>) -> Setting {
        Setting {
            key: key.into(),
            value: value.map(str::to_string),
        }
    }

    fn env(vars: &[(&str, &str)]) -> anyhow::Result<Vec<Setting>> {
        read(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        })
    }

    #[test]
    fn what_git_dash_c_writes_is_read() {
        // git -c merge.conflictStyle=diff3 -c core.attributesFile=/a\'b -c color.ui= -c x.flag
        let text = r"'merge.conflictStyle'='diff3' 'core.attributesFile'='/a'\''b' 'color.ui'='' 'x.flag'=";
        assert_eq!(
            parse_parameters(text).unwrap(),
            vec![
                setting("merge.conflictstyle", Some("diff3")),
                setting("core.attributesfile", Some("/a'b")),
                setting("color.ui", Some("")),
                setting("x.flag", None),
            ]
        );
    }

    #[test]
    fn the_older_key_equals_value_form_is_read() {
        assert_eq!(
            parse_parameters(r"'merge.conflictstyle=zdiff3'  'x.flag' 'a.b=c=d'").unwrap(),
            vec![
                setting("merge.conflictstyle", Some("zdiff3")),
                setting("x.flag", None),
                setting("a.b", Some("c=d")),
            ]
        );
    }

    #[test]
    fn section_and_name_are_case_insensitive_the_subsection_is_not() {
        assert_eq!(
            canonical_key("Merge.KMerge.Driver").unwrap(),
            "merge.KMerge.driver"
        );
        assert_eq!(
            canonical_key("MERGE.conflictSTYLE").unwrap(),
            "merge.conflictstyle"
        );
        assert_eq!(
            canonical_key("url.https://Example.com/x.insteadOf").unwrap(),
            "url.https://Example.com/x.insteadof"
        );
    }

    #[test]
    fn what_git_rejects_is_an_error() {
        for bogus in [
            "merge.conflictStyle=diff3",  // not quoted
            "'merge.conflictStyle=diff3", // unterminated
            "'a.b'='c'x",                 // text after the value
            "'a.b'=c",                    // value not quoted
            "'a.b'x",                     // neither = nor a space after the key
            "''",                         // empty key
            "'nodot=1'",                  // no section
            "'a.=1'",                     // no name
            "'a.1b=1'",                   // name not starting with a letter
            "'a_b.c=1'",                  // section with an underscore
            " 'a.b=c'",                   // git does not skip leading white space
        ] {
            assert!(parse_parameters(bogus).is_err(), "{bogus:?} was accepted");
        }
    }

    #[test]
    fn counted_settings_come_first_then_the_parameters() {
        let settings = env(&[
            (PARAMETERS, "'merge.conflictstyle'='zdiff3'"),
            (COUNT, "2"),
            ("GIT_CONFIG_KEY_0", "merge.conflictStyle"),
            ("GIT_CONFIG_VALUE_0", "diff3"),
            ("GIT_CONFIG_KEY_1", "Core.AttributesFile"),
            ("GIT_CONFIG_VALUE_1", ""),
        ])
        .unwrap();
        assert_eq!(
            settings,
            vec![
                setting("merge.conflictstyle", Some("diff3")),
                setting("core.attributesfile", Some("")),
                setting("merge.conflictstyle", Some("zdiff3")),
            ]
        );
        assert_eq!(env(&[]).unwrap(), vec![]);
        assert_eq!(env(&[(COUNT, "")]).unwrap(), vec![]);
    }

    #[test]
    fn a_counted_setting_missing_its_key_or_value_is_an_error() {
        let missing = |vars: &[(&str, &str)]| format!("{:#}", env(vars).unwrap_err());
        assert_eq!(
            missing(&[(COUNT, "1"), ("GIT_CONFIG_VALUE_0", "x")]),
            "missing config key GIT_CONFIG_KEY_0"
        );
        assert_eq!(
            missing(&[(COUNT, "1"), ("GIT_CONFIG_KEY_0", "a.b")]),
            "missing config value GIT_CONFIG_VALUE_0"
        );
        assert_eq!(
            missing(&[(COUNT, "one")]),
            "bogus count in GIT_CONFIG_COUNT: \"one\""
        );
        assert_eq!(
            missing(&[(PARAMETERS, "'a.b'x")]),
            "in GIT_CONFIG_PARAMETERS: bogus format: \"'a.b'x\""
        );
    }

    /// The config file libgit2 reads back gives every value as it was given, the last of a
    /// key winning.
    #[test]
    fn libgit2_reads_the_settings_back_as_given() {
        let settings = vec![
            setting("merge.conflictstyle", Some("diff3")),
            setting("merge.conflictstyle", Some("zdiff3")),
            setting("merge.K \"m\\e\".driver", Some("k \"%O\" \\ ;# x\ty\nz")),
            setting("x.flag", None),
            setting("x.empty", Some("")),
        ];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config");
        std::fs::write(&path, as_config_file(&settings)).unwrap();
        let config = git2::Config::open(&path).unwrap();
        assert_eq!(config.get_string("merge.conflictStyle").unwrap(), "zdiff3");
        assert_eq!(
            config.get_string("merge.K \"m\\e\".driver").unwrap(),
            "k \"%O\" \\ ;# x\ty\nz"
        );
        assert!(config.get_bool("x.flag").unwrap());
        assert_eq!(config.get_string("x.empty").unwrap(), "");
    }
}
