//! Git's conflict markers: the one place that writes them, finds them in an input, reads
//! their labels, and counts the lines they enclose.
//!
//! A conflict reads `<<<<<<< ours`, ours' lines, (`||||||| base`, base's lines, in diff3
//! style), `=======`, theirs' lines, `>>>>>>> theirs`, each marker `size` characters long at the
//! start of its line, labelled like git's own. Every reader here asks [`is_marker`] whether a
//! line is one, so the driver, the verifier, `solve` and package updates agree on what a
//! marker is.

use std::ops::Range;

use super::at_line_starts;

/// The four marker lines of a conflict, named for the part they open or close.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// `<<<<<<<`: ours' part follows.
    Open,
    /// `|||||||`: base's part follows (diff3 style).
    Base,
    /// `=======`: theirs' part follows.
    Split,
    /// `>>>>>>>`: the conflict ends.
    Close,
}

impl Marker {
    /// The character git repeats to write this marker.
    fn byte(self) -> u8 {
        match self {
            Marker::Open => b'<',
            Marker::Base => b'|',
            Marker::Split => b'=',
            Marker::Close => b'>',
        }
    }
}

/// Whether `line` (a text from a line's start; the lines after it may follow) starts with
/// `kind`'s marker of `size`: its character `size` times, then the end of the text, a space
/// before a label, or the line break. A longer run of the character is no marker of `size`.
pub(crate) fn is_marker(line: &[u8], size: usize, kind: Marker) -> bool {
    let c = kind.byte();
    line.len() >= size
        && line[..size].iter().all(|&x| x == c)
        && matches!(line.get(size), None | Some(b' ' | b'\r' | b'\n'))
}

/// The label of the first `kind` marker of `size` in `text` (a work-tree file, so a line may
/// end in CRLF): what follows the marker and a space, or nothing on a bare marker.
pub(crate) fn first_label(text: &[u8], size: usize, kind: Marker) -> Option<String> {
    text.split(|&b| b == b'\n').find_map(|line| {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if !is_marker(line, size, kind) {
            return None;
        }
        let label = match &line[size..] {
            [] => &[][..],
            [b' ', label @ ..] => label,
            _ => return None,
        };
        String::from_utf8(label.to_vec()).ok()
    })
}

/// Whether a text holds a whole conflict as git marks it: a `<<<<<<<` line, later a
/// `=======` line, later a `>>>>>>>` line (markers of `size`, alone or before a space).
pub(crate) fn holds_conflict(text: &[u8], size: usize) -> bool {
    let mut want = Marker::Open;
    for line in text.split(|&b| b == b'\n') {
        if is_marker(line, size, want) {
            want = match want {
                Marker::Open => Marker::Split,
                Marker::Split => Marker::Close,
                Marker::Base | Marker::Close => return true,
            };
        }
    }
    false
}

/// How conflicts are written: git's marker size, labels and style, and the file's line ending.
pub(crate) struct Markers<'a> {
    pub size: usize,
    /// Base, ours and theirs.
    pub labels: [&'a str; 3],
    pub diff3: bool,
    pub eol: &'a str,
}

impl Markers<'_> {
    /// git's default markers (size 7, labelled base, ours and theirs, no base section), for
    /// the unit tests of the modules that write conflicts.
    #[cfg(test)]
    pub(crate) const PLAIN: Markers<'static> = Markers {
        size: 7,
        labels: ["base", "ours", "theirs"],
        diff3: false,
        eol: "\n",
    };

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
    let marker = |at: usize| {
        let l = &text[at..];
        l.starts_with(b"<<<<<<<") || l.starts_with(b">>>>>>>") || l.starts_with(b"|||||||")
    };
    at_line_starts(text, memchr::memchr3_iter(b'<', b'>', b'|', text)).any(marker)
}

/// How many lines conflicts of markers of `size` enclose in `text`, as git's own count goes:
/// the lines between `<<<<<<<` and `>>>>>>>` (ours', base's in diff3 style, and theirs'),
/// the marker lines left out. A conflict left open runs to the end. "Never more lines than
/// git" compares this count.
pub(crate) fn marked_lines(text: &[u8], size: usize) -> usize {
    let marker = |at: usize, kind: Marker| is_marker(&text[at..], size, kind);
    let lines = |from: usize, to: usize| memchr::memchr_iter(b'\n', &text[from..to]).count();
    // The `|||||||` and `=======` lines after an open marker at `from`, up to `to`, as the
    // states of `lines_in` read them, and whether theirs' part was reached (a close counts
    // only there).
    let inner = |from: usize, to: usize| -> (usize, bool) {
        let (mut n, mut theirs, mut base) = (0, false, false);
        let found = memchr::memchr2_iter(b'|', b'=', &text[from..to]).map(|i| from + i);
        for at in at_line_starts(text, found) {
            match text[at] {
                b'|' if !base && !theirs && marker(at, Marker::Base) => (base, n) = (true, n + 1),
                b'=' if !theirs && marker(at, Marker::Split) => (theirs, n) = (true, n + 1),
                _ => {}
            }
        }
        (n, theirs)
    };
    let mut count = 0;
    let mut opened: Option<usize> = None;
    for at in at_line_starts(text, memchr::memchr2_iter(b'<', b'>', text)) {
        match (opened, text[at]) {
            (None, b'<') if marker(at, Marker::Open) => opened = Some(at),
            (Some(from), b'>') if marker(at, Marker::Close) => {
                let (markers, closes) = inner(from, at);
                if closes {
                    count += lines(from, at) - 1 - markers;
                    opened = None;
                }
            }
            _ => {}
        }
    }
    // A conflict left open runs to the end.
    if let Some(from) = opened {
        let (markers, _) = inner(from, text.len());
        let last = usize::from(!text.ends_with(b"\n"));
        count += lines(from, text.len()) + last - 1 - markers;
    }
    count
}

/// How many conflicts markers of `size` open in `text`: its `<<<<<<<` lines.
pub(crate) fn conflict_hunks(text: &[u8], size: usize) -> usize {
    at_line_starts(text, memchr::memchr_iter(b'<', text))
        .filter(|&at| is_marker(&text[at..], size, Marker::Open))
        .count()
}

/// Where a line of a conflicted text stands.
#[derive(Clone, Copy, PartialEq)]
enum In {
    /// Outside every conflict: both sides hold it.
    Both,
    Ours,
    Base,
    Theirs,
    /// A marker line.
    Marker,
}

/// The lines of a conflicted text with markers of `size`, each with its offset and where it
/// stands.
fn lines_in(text: &str, size: usize) -> impl Iterator<Item = (usize, &str, In)> {
    let marker = move |line: &str, kind: Marker| is_marker(line.as_bytes(), size, kind);
    let mut state = In::Both;
    let mut at = 0;
    text.split_inclusive('\n').map(move |line| {
        let next = match state {
            In::Both if marker(line, Marker::Open) => Some(In::Ours),
            In::Ours if marker(line, Marker::Base) => Some(In::Base),
            In::Ours | In::Base if marker(line, Marker::Split) => Some(In::Theirs),
            In::Theirs if marker(line, Marker::Close) => Some(In::Both),
            _ => None,
        };
        let here = match next {
            Some(next) => {
                state = next;
                In::Marker
            }
            None => state,
        };
        let start = at;
        at += line.len();
        (start, line, here)
    })
}

/// The two files a conflicted text gives when every conflict of markers of `size` is resolved
/// by taking ours' side, and by taking theirs'.
pub(crate) fn sides(text: &str, size: usize) -> [String; 2] {
    let (mut ours, mut theirs) = (String::new(), String::new());
    for (_, line, here) in lines_in(text, size) {
        match here {
            In::Both => {
                ours.push_str(line);
                theirs.push_str(line);
            }
            In::Ours => ours.push_str(line),
            In::Theirs => theirs.push_str(line),
            In::Base | In::Marker => {}
        }
    }
    [ours, theirs]
}

/// The conflicted `text` with the lines ours' side holds (`ours`), or theirs', replaced in
/// order by the lines of `side`, a text of as many lines read from that side alone: what the
/// side's own reading is in the conflicted text. `None` where the line counts differ.
pub(crate) fn with_side_lines(text: &str, size: usize, ours: bool, side: &str) -> Option<String> {
    let mut lines = side.split_inclusive('\n');
    let mut out = String::with_capacity(text.len());
    for (_, line, here) in lines_in(text, size) {
        match (here, ours) {
            (In::Both, _) | (In::Ours, true) | (In::Theirs, false) => out.push_str(lines.next()?),
            _ => out.push_str(line),
        }
    }
    lines.next().is_none().then_some(out)
}

/// Whether a conflicted text holds no data outside its conflicts: every line outside them is
/// blank, a comment or a document marker (`---`, `...`). Such a conflict is as wide as the
/// file: taking a side gives that side's file, and every difference is in view inside it.
pub(crate) fn conflicts_span_the_file(text: &str, size: usize) -> bool {
    let mut marked = false;
    let data_outside = lines_in(text, size).any(|(_, line, here)| {
        marked |= matches!(here, In::Marker);
        let line = line.trim();
        matches!(here, In::Both)
            && !(line.is_empty()
                || line.starts_with('#')
                || line.starts_with("---")
                || line.starts_with("..."))
    });
    marked && !data_outside
}

/// A run of lines outside every conflict: where it stands in ours' side, and where it starts
/// in the conflicted text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shared {
    pub side: Range<usize>,
    pub marked: usize,
}

/// Ours' side of a conflicted text (as [`sides`]), and where its runs of lines outside every
/// conflict stand, in it and in `text`: what an edit of ours' side outside the conflicts is
/// in `text`.
pub(crate) fn ours_side(text: &str, size: usize) -> (String, Vec<Shared>) {
    let mut side = String::new();
    let mut runs: Vec<Shared> = Vec::new();
    let mut previous = In::Marker;
    for (at, line, here) in lines_in(text, size) {
        match here {
            In::Both if previous == In::Both => {
                if let Some(run) = runs.last_mut() {
                    run.side.end += line.len();
                }
            }
            In::Both => runs.push(Shared {
                side: side.len()..side.len() + line.len(),
                marked: at,
            }),
            _ => {}
        }
        if matches!(here, In::Both | In::Ours) {
            side.push_str(line);
        }
        previous = here;
    }
    (side, runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_take_one_version_of_every_conflict() {
        let text =
            "a: 1\n<<<<<<< ours\nb: 2\n||||||| base\nb: 0\n=======\nb: 3\n>>>>>>> theirs\nc: 4\n";
        assert_eq!(
            sides(text, 7),
            [
                "a: 1\nb: 2\nc: 4\n".to_string(),
                "a: 1\nb: 3\nc: 4\n".to_string()
            ]
        );
    }

    #[test]
    fn ours_side_says_where_the_shared_lines_stand() {
        let text = "a: 1\n<<<<<<< ours\nb: 2\n||||||| base\nb: 0\n=======\nb: 3\n>>>>>>> theirs\nc: 4\nd: 5\n<<<<<<< ours\n=======\ne: 6\n>>>>>>> theirs\nf: 7";
        let (side, runs) = ours_side(text, 7);
        assert_eq!(side, "a: 1\nb: 2\nc: 4\nd: 5\nf: 7");
        let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
        assert_eq!(
            runs,
            vec![
                Shared {
                    side: 0..5,
                    marked: 0
                },
                Shared {
                    side: 10..20,
                    marked: at("c: 4")
                },
                // Ours' side of the second conflict is empty: the runs around it meet.
                Shared {
                    side: 20..24,
                    marked: at("f: 7")
                },
            ]
        );
        for run in &runs {
            assert_eq!(
                &side[run.side.clone()],
                &text[run.marked..run.marked + run.side.len()]
            );
        }
    }

    #[test]
    fn marked_lines_counts_what_the_sides_reading_reads_inside_conflicts() {
        let texts = [
            "a\n<<<<<<< o\nb\n||||||| base\nc\n=======\nd\ne\n>>>>>>> t\nf\n",
            "<<<<<<< o\r\nb\r\n=======\r\n>>>>>>> t\r\n<<<<<<< o\r\n=======\r\nx\r\n>>>>>>> t",
            ">>>>>>> stray\n<<<<<<<\n|||||||\n||||||| twice\n=======\n=======\n>>>>>>>\ny\n",
            "<<<<<<<\nno close\n=======\nstill open",
            "x: |\n  <<<<<<< inside a scalar\n=======\n",
        ];
        for text in texts {
            let by_lines = lines_in(text, 7)
                .filter(|(_, _, here)| matches!(here, In::Ours | In::Base | In::Theirs))
                .count();
            assert_eq!(marked_lines(text.as_bytes(), 7), by_lines, "{text:?}");
        }
    }

    #[test]
    fn written_markers_read_back() {
        let m = Markers {
            size: 7,
            labels: ["base", "HEAD", "feature"],
            diff3: true,
            eol: "\n",
        };
        let text = m.wrap("x: 1\n", "x: 0\n", "x: 2\n");
        assert!(has_marker_lines(text.as_bytes()));
        assert_eq!(marked_lines(text.as_bytes(), 7), 3);
        assert_eq!(
            sides(&text, 7),
            ["x: 1\n".to_string(), "x: 2\n".to_string()]
        );
    }

    #[test]
    fn marker_lines_are_found_only_at_a_line_start() {
        assert!(has_marker_lines(b"<<<<<<< ours\nx: 1\n"));
        assert!(has_marker_lines(b"x: 1\n>>>>>>> theirs"));
        assert!(has_marker_lines(b"x: 1\n||||||| base\ny: 2\n"));
        assert!(!has_marker_lines(
            b"x: '<<<<<<<'\ny: |\n  >>>>>>> indented\n"
        ));
        assert!(!has_marker_lines(b"<<<<<< six\n>>>>>>"));
        assert!(!has_marker_lines(b""));
    }

    #[test]
    fn marked_lines_and_hunks_count_whole_lines() {
        let one = "a: 1\n<<<<<<< ours\nb: 2\n=======\nb: 3\n>>>>>>> theirs\nc: 4\n";
        assert_eq!(marked_lines(one.as_bytes(), 7), 2);
        let diff3 = "<<<<<<< ours\nb: 2\n||||||| base\nb: 1\n=======\nb: 3\n>>>>>>> theirs\n";
        assert_eq!(marked_lines(diff3.as_bytes(), 7), 3);
        assert_eq!(conflict_hunks(one.as_bytes(), 7), 1);
        // A close with no open counts nothing; an open inside a conflict opens nothing more,
        // nor does a close without its `=======`; a conflict left open runs to the end.
        let odd = ">>>>>>> stray\n<<<<<<<\n<<<<<<< again\nx\n>>>>>>>\n<<<<<<<\ny\n";
        assert_eq!(marked_lines(odd.as_bytes(), 7), 5);
        assert_eq!(conflict_hunks(odd.as_bytes(), 7), 3);
        // Other sizes, markers not at a line start, longer runs of the character.
        assert_eq!(marked_lines(one.as_bytes(), 8), 0);
        assert_eq!(conflict_hunks(b"x: <<<<<<<\n<<<<<<<<\n", 7), 0);
        assert_eq!(conflict_hunks(b"<<<<<<<\r\n", 7), 1);
    }

    #[test]
    fn a_whole_conflict_is_found_and_lookalikes_are_not() {
        let whole = b"a: 1\n<<<<<<< ours\nb: 2\n=======\nb: 3\n>>>>>>> theirs\n";
        assert!(holds_conflict(whole, 7));
        assert!(holds_conflict(
            b"<<<<<<<\r\nb: 2\r\n|||||||\r\nb: 1\r\n=======\r\nb: 3\r\n>>>>>>>\r\n",
            7
        ));
        // A marker size other than git's default.
        assert!(!holds_conflict(whole, 9));
        assert!(holds_conflict(
            b"<<<<<<<<< ours\nb: 2\n=========\nb: 3\n>>>>>>>>> theirs\n",
            9
        ));
        // Parts of a conflict, markers out of order, indented or longer lines: not one.
        assert!(!holds_conflict(b"<<<<<<< ours\nb: 2\n=======\nb: 3\n", 7));
        assert!(!holds_conflict(
            b">>>>>>> theirs\n=======\n<<<<<<< ours\n",
            7
        ));
        assert!(!holds_conflict(
            b"  <<<<<<< ours\n  =======\n  >>>>>>> theirs\n",
            7
        ));
        assert!(!holds_conflict(
            b"<<<<<<<< ours\n========\n>>>>>>>> theirs\n",
            7
        ));
    }
}
