//! Moving text from one indentation (and line ending) to another.

/// Shifts every line but the first from `from` columns of indentation to `to`, and writes
/// `eol` line endings. The first line is assumed to be placed by the caller.
///
/// Lines with less indentation than `from` (block scalar content never has, but a comment can)
/// lose only what they have. A line of spaces alone is shifted too where it has more than
/// `from`: inside a block scalar, its spaces past the scalar's indentation are content
/// (adversary manifests-mark-1146-1276: theirs' `|-` text ending in such a line, re-indented
/// into ours' conflict, lost two of its spaces).
pub fn reindent(text: &str, from: usize, to: usize, eol: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if i > 0 {
            out.push_str(eol);
            let have = line.bytes().take_while(|&b| b == b' ').count();
            if !line.trim().is_empty() || have > from {
                let keep = have.saturating_sub(from.min(have));
                out.extend(std::iter::repeat_n(' ', to + keep));
                out.push_str(&line[have..]);
                continue;
            }
        }
        out.push_str(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_following_lines_and_converts_line_endings() {
        assert_eq!(
            reindent("a:\n    b: 1\n\n    c: 2\n", 2, 4, "\r\n"),
            "a:\r\n      b: 1\r\n\r\n      c: 2\r\n"
        );
        assert_eq!(reindent("a:\r\n  b\r\n", 2, 0, "\n"), "a:\nb\n");
    }

    #[test]
    fn a_line_of_spaces_past_the_indentation_keeps_its_extra_spaces() {
        // `|-` content "x" and a line of two spaces past the scalar's indentation: shifted
        // like the rest, it stays content; a line of no more spaces than `from` stays.
        assert_eq!(
            reindent("d: |-\n    x\n      \n  \n", 2, 4, "\n"),
            "d: |-\n      x\n        \n  \n"
        );
    }
}
