//! Whether a text can hold anything the pass carries: most generated manifests hold no
//! comment and no blank line, and skipping their layouts saves a third of a large merge.

use crate::parse::Versions;

/// Whether every field's comments are nothing in every version and in the result: nothing
/// to carry, and no layout to build (a third of a large generated CRD's merge). Conflict
/// markers hold neither a comment nor a blank line.
pub(super) fn all_bare(versions: &Versions, merged: &str) -> bool {
    [&versions.base, &versions.ours, &versions.theirs]
        .iter()
        .all(|t| bare(t.text))
        && bare(merged)
}

/// Whether a text holds no comment and no blank line, the two things this pass carries: no
/// `#` that could open a comment (one not after a printable character) and no line of
/// blanks only. Generated manifests often hold neither.
fn bare(text: &str) -> bool {
    let bytes = text.as_bytes();
    let comment =
        memchr::memchr_iter(b'#', bytes).any(|i| i == 0 || !bytes[i - 1].is_ascii_graphic());
    if comment {
        return false;
    }
    let blank = |line: &[u8]| line.iter().rev().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        if blank(&bytes[start..end]) {
            return false;
        }
        start = end + 1;
    }
    start == bytes.len() || !blank(&bytes[start..])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only a text that can hold neither a comment nor a blank line skips the pass.
    #[test]
    fn a_bare_text_holds_no_comment_and_no_blank_line() {
        for text in ["", "a: 1", "a: 1\n", "a: x#y\nb: '#'\n", "a:\r\n  - b\r\n"] {
            assert!(bare(text), "{text:?}");
        }
        for text in [
            "# c\na: 1\n",
            "a: 1 # c\n",
            "a: 1\t# c\n",
            "a: 'x #y'\n",
            "\u{feff}# c\na: 1\n",
            "a: 1\n\nb: 2\n",
            "a: 1\n  \r\nb: 2\n",
            "\na: 1\n",
            "a: 1\n  ",
        ] {
            assert!(!bare(text), "{text:?}");
        }
    }
}
