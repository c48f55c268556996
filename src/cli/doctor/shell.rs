//! The words of a driver command as the shell git runs it through (`sh -c`) reads them.
//!
//! `doctor` needs the program a driver command names, to tell whether it exists and to run it
//! with `--version` exactly as git would. Only quoting is undone here (single quotes, double
//! quotes, backslashes); a word the shell would also expand (`$HOME`, `~`, a glob, a command
//! substitution) is marked, since what it runs can only be known by running it.

/// One word of a shell command.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Word<'a> {
    /// The word as written, quotes included: what to hand the shell to run the same program.
    pub(super) raw: &'a str,
    /// The word once the shell has removed its quotes.
    pub(super) text: String,
    /// Whether removing the quotes is all the shell does to it; false where it would also
    /// expand something, or where a quote is never closed.
    pub(super) literal: bool,
}

/// The words of `command`, split at blanks outside quotes.
pub(super) fn words(command: &str) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    let mut chars = command.char_indices().peekable();
    loop {
        while chars.next_if(|&(_, c)| is_blank(c)).is_some() {}
        let Some(&(start, first)) = chars.peek() else {
            return words;
        };
        let mut text = String::new();
        // A leading `~` is the shell's home-folder expansion.
        let mut literal = first != '~';
        let mut end = command.len();
        while let Some((i, c)) = chars.next() {
            match c {
                c if is_blank(c) => {
                    end = i;
                    break;
                }
                '\'' => loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => text.push(c),
                        None => {
                            literal = false;
                            break;
                        }
                    }
                },
                '"' => loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            // Inside double quotes a backslash escapes only these.
                            Some((_, c @ ('$' | '`' | '"' | '\\'))) => text.push(c),
                            Some((_, '\n')) => {}
                            Some((_, c)) => {
                                text.push('\\');
                                text.push(c);
                            }
                            None => {
                                literal = false;
                                break;
                            }
                        },
                        Some((_, c)) => {
                            literal &= !matches!(c, '$' | '`');
                            text.push(c);
                        }
                        None => {
                            literal = false;
                            break;
                        }
                    }
                },
                '\\' => match chars.next() {
                    Some((_, '\n')) => {}
                    Some((_, c)) => text.push(c),
                    None => {}
                },
                c => {
                    literal &= !"$`*?[;&|<>()".contains(c);
                    text.push(c);
                }
            }
        }
        words.push(Word {
            raw: &command[start..end],
            text,
            literal,
        });
    }
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(command: &str) -> Vec<(String, bool)> {
        words(command)
            .into_iter()
            .map(|w| (w.text, w.literal))
            .collect()
    }

    #[test]
    fn quotes_are_removed_and_the_raw_word_kept() {
        let all = words(r"'/home/a b/kmerge' driver %O");
        assert_eq!(all[0].raw, "'/home/a b/kmerge'");
        assert_eq!(all[0].text, "/home/a b/kmerge");
        assert!(all[0].literal);
        assert_eq!(all[1].raw, "driver");
        assert_eq!(all[2].raw, "%O");
        assert_eq!(
            texts(r#"'/tmp/it'\''s/kmerge'  "a \"b\" \x" c\ d"#),
            [
                ("/tmp/it's/kmerge".to_string(), true),
                (r#"a "b" \x"#.to_string(), true),
                ("c d".to_string(), true),
            ]
        );
        assert!(words("  \t").is_empty());
    }

    #[test]
    fn words_the_shell_expands_are_not_literal() {
        for command in [
            "$HOME/bin/kmerge",
            "~/bin/kmerge",
            "\"$HOME\"/kmerge",
            "`which kmerge`",
            "kmerge*",
            "'unclosed",
            "\"unclosed",
        ] {
            assert!(!words(command)[0].literal, "{command}");
        }
        assert!(words("'$HOME'/a~")[0].literal);
    }
}
