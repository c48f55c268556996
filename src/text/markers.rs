//! Git's conflict markers: the one place that writes them, finds them in an input, and counts
//! the lines they enclose.
//!
//! A conflict reads `<<<<<<< ours`, ours' lines, (`||||||| base`, base's lines, in diff3
//! style), `=======`, theirs' lines, `>>>>>>> theirs`, each marker `size` characters long at the
//! start of its line, labelled like git's own.

/// How conflicts are written: git's marker size, labels and style, and the file's line ending.
pub(crate) struct Markers<'a> {
    pub size: usize,
    /// Base, ours and theirs.
    pub labels: [&'a str; 3],
    pub diff3: bool,
    pub eol: &'a str,
}

impl Markers<'_> {
    /// A conflict between ours' and theirs' text (and base's, in diff3 style). Each part is
    /// whole lines; a last line without its line break gets one.
    pub fn wrap(&self, ours: &str, base: &str, theirs: &str) -> String {
        let line = |c: char, label: &str| {
            let mut s: String = std::iter::repeat_n(c, self.size).collect();
            if !label.is_empty() {
                s.push(' ');
                s.push_str(label);
            }
            s.push_str(self.eol);
            s
        };
        let whole = |part: &str| {
            if part.is_empty() || part.ends_with('\n') {
                part.to_string()
            } else {
                format!("{part}{}", self.eol)
            }
        };
        let [base_label, ours_label, theirs_label] = self.labels;
        let mut out = line('<', ours_label);
        out.push_str(&whole(ours));
        if self.diff3 {
            out.push_str(&line('|', base_label));
            out.push_str(&whole(base));
        }
        out.push_str(&line('=', ""));
        out.push_str(&whole(theirs));
        out.push_str(&line('>', theirs_label));
        out
    }
}

/// Whether a text holds a line that starts like a conflict marker of git's default size.
/// Git merges criss-cross ancestors with the same driver, so a base can carry markers; they
/// can even parse as YAML inside a scalar, so they are looked for explicitly.
pub(crate) fn has_marker_lines(text: &[u8]) -> bool {
    text.split(|&b| b == b'\n').any(|l| {
        l.starts_with(b"<<<<<<<") || l.starts_with(b">>>>>>>") || l.starts_with(b"|||||||")
    })
}

/// How many lines conflict markers of `size` enclose in `text`, the marker lines included.
pub(crate) fn marked_lines(text: &[u8], size: usize) -> usize {
    let open = "<".repeat(size);
    let close = ">".repeat(size);
    let mut inside = false;
    let mut count = 0;
    for line in text.split(|&b| b == b'\n') {
        if line.starts_with(open.as_bytes()) {
            inside = true;
        }
        if inside {
            count += 1;
        }
        if line.starts_with(close.as_bytes()) {
            inside = false;
        }
    }
    count
}
