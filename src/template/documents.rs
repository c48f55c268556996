//! A template's line merge done document by document, where git's merge of the whole file
//! fails the check.
//!
//! Git's line merge of a multi-document template knows no documents: a document one side
//! added or moved next to another side's edit is joined with it (a mapping key repeats), and
//! a conflict widened over a failing side's neighbours soon swallows or drops whole
//! documents, so a person taking one side loses a document the other side added. Here each
//! version is cut at its top-level `---` lines, the documents are paired by what they are
//! (kind, namespace and name as written, control tokens and all), and each pair is merged
//! line by line on its own. A document only one side changed is that side's text; one both
//! changed is their line merge, or, where the check rejects that, a conflict of the two
//! sides' whole documents. So a failing document never takes a neighbour with it.

use std::collections::{HashMap, HashSet};

use crate::options::MergeOptions;
use crate::outcome::{written_markers, Message, Outcome};
use crate::text::diff3::{stretches, Chunk};
use crate::text::markers::{conflict_hunks, sides, Markers};

/// One document of a version: its text (from the control lines that open it and its `---`
/// line up to the next document) and what it is.
struct Doc<'a> {
    text: &'a str,
    key: String,
}

/// How a document of the result is written.
enum Part {
    /// Fixed text: a side's document, or a document only one side changed.
    Text(String),
    /// A document both sides changed: its line merge, and the conflict of the two sides'
    /// whole documents taken where the line merge does not hold.
    Both { line: String, whole: String },
}

/// A template whose line merge fails the check, merged line by line document by document
/// ([`merged_by_documents`]): a document one side added, moved or deleted stays whole beside
/// the other side's edits, and a document whose line merge fails is a conflict of its two
/// sides' whole documents, so no failing stretch swallows a neighbouring document. Clean
/// where no document both sides changed conflicts and the result holds as a clean merge;
/// `None` where the file has no two documents, or nothing holds.
pub(crate) fn by_documents(
    [b, o, t]: [&str; 3],
    opts: &MergeOptions,
    messages: &mut Vec<Message>,
) -> Option<Outcome> {
    let marks = written_markers(opts, o);
    let size = opts.marker_size;
    let text = super::with_conflict_check([b, o, t], opts, |holds| {
        merged_by_documents([b, o, t], &marks, |text| {
            match conflict_hunks(text.as_bytes(), size) {
                0 => super::clean_holds_by_documents([b, o, t], opts, text),
                _ => holds(text),
            }
        })
    })??;
    let conflicted = conflict_hunks(text.as_bytes(), size) > 0;
    messages.push(if conflicted {
        "git's line merge fails the check: merged document by document, each document both sides changed as its line merge or, where that fails, as a conflict of the whole document".into()
    } else {
        "merged line by line document by document, which the check holds (git's line merge of the whole file conflicts or fails it)".into()
    });
    Some(Outcome {
        bytes: text.into_bytes(),
        conflicted,
        fallback: None,
        messages: std::mem::take(messages),
        resolved_hunks: 0,
        git_markers_kept: false,
    })
}

/// The three versions merged document by document with the narrowest conflicts `holds`
/// accepts (it reads the whole text, clean or conflicted): every document both sides
/// changed as its line merge, then, where that fails, each as a whole-document conflict,
/// narrowed back to its line merge one document at a time where the check still holds.
/// `None` where no version has two documents, where no document is merged by both sides and
/// nothing else is wrong, or where nothing holds.
fn merged_by_documents(
    [base, ours, theirs]: [&str; 3],
    markers: &Markers,
    mut holds: impl FnMut(&str) -> bool,
) -> Option<String> {
    let (b, mut o, mut t) = (docs(base), docs(ours), docs(theirs));
    if b.len() < 2 && o.len() < 2 && t.len() < 2 {
        return None;
    }
    renamed(&b, &mut o);
    renamed(&b, &mut t);
    if one_document_renamed_apart(&b, &o, &t)
        || rename_unsettled(&b, &o, &t)
        || rename_unsettled(&b, &t, &o)
    {
        return None;
    }
    let mut parts = parts(&b, &o, &t, markers);
    let render = |parts: &[Part], whole: &[bool]| {
        let texts: Vec<&str> = parts
            .iter()
            .zip(whole)
            .map(|(p, &w)| match p {
                Part::Text(text) => text.as_str(),
                Part::Both { line, .. } if !w => line.as_str(),
                Part::Both { whole, .. } => whole.as_str(),
            })
            .collect();
        joined(&texts)
    };
    let mut whole = vec![false; parts.len()];
    let text = render(&parts, &whole);
    if holds(&text) {
        return Some(text);
    }
    let both: Vec<usize> = (0..parts.len())
        .filter(|&i| matches!(parts[i], Part::Both { .. }))
        .collect();
    for &i in &both {
        whole[i] = true;
    }
    if !holds(&render(&parts, &whole)) {
        return None;
    }
    for &i in &both {
        whole[i] = false;
        if !holds(&render(&parts, &whole)) {
            whole[i] = true;
        }
    }
    // Drop the line merges no longer needed.
    for (p, &w) in parts.iter_mut().zip(&whole) {
        if let Part::Both { whole: text, .. } = p {
            if w {
                *p = Part::Text(std::mem::take(text));
            }
        }
    }
    Some(render(&parts, &whole))
}

/// Whether a side of `git`'s conflicted text lacks a whole document that the same side of
/// `documents` (the merge made document by document) holds: a document one side added or
/// kept that git's markers swallowed or dropped. Only then is a wider document-by-document
/// conflict worth more than git's narrower markers.
pub(crate) fn drops_a_document(git: &str, documents: &str, size: usize) -> bool {
    // Named documents only: pieces of control lines are no documents.
    let keys = |text: &str| {
        docs(text)
            .into_iter()
            .map(|d| d.key)
            .filter(|k| !k.starts_with('#'))
            .collect::<HashSet<String>>()
    };
    let [go, gt] = sides(git, size);
    let [mo, mt] = sides(documents, size);
    !keys(&mo).is_subset(&keys(&go)) || !keys(&mt).is_subset(&keys(&gt))
}

/// Whether a side of `widened` (git's conflicts widened until each side holds) holds fewer
/// named documents than the same side of `documents` (the merge made document by document):
/// a whole document the widening swallowed, which rules it out as [`drops_a_document`] rules
/// out git's markers. Counted, not named: a side of a widened conflict carries the other
/// side's rename outside its markers, which the side check accepts and which, read by name,
/// would be a document lost.
pub(crate) fn holds_fewer_documents(widened: &str, documents: &str, size: usize) -> bool {
    let count = |text: &str| {
        docs(text)
            .iter()
            .filter(|d| !d.key.starts_with('#'))
            .count()
    };
    let [wo, wt] = sides(widened, size);
    let [mo, mt] = sides(documents, size);
    count(&wo) < count(&mo) || count(&wt) < count(&mt)
}

/// A side's document read as base's renamed where that is the one reading: base's document
/// is gone from the side, the side's is new, they are of one kind, neither has another such
/// counterpart, and most of their lines are the same. It takes base's key, so its line merge
/// with the other side's holds both sides' edits (both sides renaming one document then
/// conflict on its name, rather than keeping two documents).
fn renamed(base: &[Doc], side: &mut [Doc]) {
    let keys = |docs: &[Doc]| {
        docs.iter()
            .map(|d| d.key.clone())
            .collect::<HashSet<String>>()
    };
    let (kb, ks) = (keys(base), keys(side));
    let kind = |key: &str| key.split('\u{0}').next().unwrap_or("").to_string();
    let gone: Vec<&Doc> = base.iter().filter(|d| !ks.contains(&d.key)).collect();
    let new: Vec<usize> = (0..side.len())
        .filter(|&i| !kb.contains(&side[i].key))
        .collect();
    let mut renames = Vec::new();
    for g in &gone {
        let k = kind(&g.key);
        if k.starts_with('#') {
            continue;
        }
        let mut cands = new.iter().filter(|&&i| kind(&side[i].key) == k);
        let (Some(&i), None) = (cands.next(), cands.next()) else {
            continue;
        };
        let rivals = gone.iter().filter(|d| kind(&d.key) == k).count();
        if rivals == 1 && similar(g.text, side[i].text) {
            renames.push((i, g.key.clone()));
        }
    }
    for (i, key) in renames {
        side[i].key = key;
    }
}

/// Whether a named document of base is gone from `side`, which holds a new document of its
/// kind like it that [`renamed`] could not read as its rename (another is as likely), while
/// `other` changed or lost it. Which of the side's documents continues base's is then a guess,
/// and a wrong one keeps both sides' renames as two documents or answers the other side's
/// edit with a deletion (templates-mark-1151-498: both sides renamed one NetworkPolicy, each
/// beside another new name, and each side of the merge held both renamed copies; 1145-284:
/// theirs moved a Service to another namespace beside a copy of a second Service, and ours'
/// edit of it stood as a document of its own beside theirs', so taking ours gave the Service
/// twice). Rather than guess, no merge by documents: the caller widens git's conflicts instead.
fn rename_unsettled(base: &[Doc], side: &[Doc], other: &[Doc]) -> bool {
    let kind = |key: &str| key.split('\u{0}').next().unwrap_or("").to_string();
    let kb: HashSet<&str> = base.iter().map(|d| d.key.as_str()).collect();
    let new: Vec<&Doc> = side
        .iter()
        .filter(|d| !kb.contains(d.key.as_str()))
        .collect();
    base.iter()
        .filter(|g| !g.key.starts_with('#') && side.iter().all(|d| d.key != g.key))
        .filter(|g| {
            new.iter()
                .any(|d| kind(&d.key) == kind(&g.key) && similar(g.text, d.text))
        })
        .any(|g| {
            other
                .iter()
                .find(|d| d.key == g.key)
                .is_none_or(|d| d.text != g.text)
        })
}

/// Whether each version holds one named document and a side's is not read as base's (see
/// [`renamed`]: a side that emptied the document's metadata keeps too few of its lines). A
/// person reads the file as one resource, and a merge by documents would keep the sides'
/// documents as two, beside a deletion of base's that the other side's edit of it answers
/// unseen: no merge by documents is that file's, so the whole file is left to the caller.
fn one_document_renamed_apart(base: &[Doc], ours: &[Doc], theirs: &[Doc]) -> bool {
    let named = |docs: &[Doc]| -> Vec<String> {
        docs.iter()
            .map(|d| d.key.clone())
            .filter(|k| !k.starts_with('#'))
            .collect()
    };
    match [named(base), named(ours), named(theirs)] {
        [b, o, t] if b.len() == 1 && o.len() == 1 && t.len() == 1 => b != o || b != t,
        _ => false,
    }
}

/// Whether two documents share most of their lines (at least half of the longer's).
fn similar(a: &str, b: &str) -> bool {
    let (la, lb) = (lines(a), lines(b));
    2 * crate::text::shared_count(&lb, &la) >= la.len().max(lb.len())
}

/// The result's documents in order: the order of the 3-way merge of the three versions'
/// sequences of keys (both sides' keys where both reordered one stretch, ours' first), each
/// key once; then each document merged (see [`Part`]).
fn parts<'a>(b: &[Doc<'a>], o: &[Doc<'a>], t: &[Doc<'a>], markers: &Markers) -> Vec<Part> {
    let keys = |docs: &[Doc]| docs.iter().map(|d| d.key.clone()).collect::<Vec<String>>();
    let (kb, ko, kt) = (keys(b), keys(o), keys(t));
    let mut order: Vec<&String> = Vec::new();
    for s in stretches(&kb, &ko, &kt) {
        match s.chunk {
            Chunk::Theirs { theirs, .. } => order.extend(&kt[theirs]),
            Chunk::Conflict { ours, theirs, .. } => {
                order.extend(&ko[ours]);
                order.extend(&kt[theirs]);
            }
            _ => order.extend(&ko[s.ours.clone()]),
        }
    }
    // A document one side moved and the other side's stretch dropped stands where the
    // moving side put it: appended after its neighbour there, else at the end.
    let by_key = |docs: &'_ [Doc]| -> HashMap<String, usize> {
        docs.iter()
            .enumerate()
            .map(|(i, d)| (d.key.clone(), i))
            .collect()
    };
    let (ib, io, it) = (by_key(b), by_key(o), by_key(t));
    let mut seen = HashSet::new();
    let mut order: Vec<String> = order
        .into_iter()
        .filter(|k| seen.insert((*k).clone()))
        .cloned()
        .collect();
    for k in ko.iter().chain(&kt) {
        if !seen.contains(k) {
            seen.insert(k.clone());
            order.push(k.clone());
        }
    }
    let mut parts = Vec::new();
    for k in &order {
        let text = |docs: &[Doc<'a>], ix: &HashMap<String, usize>| -> Option<&'a str> {
            ix.get(k).map(|&i| docs[i].text)
        };
        let (xb, xo, xt) = (text(b, &ib), text(o, &io), text(t, &it));
        match (xb, xo, xt) {
            // Deleted by both, or by one side and left alone by the other.
            (Some(_), None, None) => {}
            (Some(xb), Some(x), None) | (Some(xb), None, Some(x)) if x == xb => {}
            (Some(xb), Some(xo), None) => parts.push(Part::Text(markers.wrap(xo, xb, ""))),
            (Some(xb), None, Some(xt)) => parts.push(Part::Text(markers.wrap("", xb, xt))),
            (None, Some(x), None) | (None, None, Some(x)) => parts.push(Part::Text(x.into())),
            (xb, Some(xo), Some(xt)) => {
                let xb = xb.unwrap_or("");
                if xo == xt || xt == xb {
                    parts.push(Part::Text(xo.into()));
                } else if xo == xb {
                    parts.push(Part::Text(xt.into()));
                } else {
                    parts.push(Part::Both {
                        line: line_merge([xb, xo, xt], markers),
                        whole: markers.wrap(xo, xb, xt),
                    });
                }
            }
            (None, None, None) => {}
        }
    }
    parts
}

/// The line merge of three texts: each stretch one side changed is that side's, each both
/// changed differently a conflict of the two.
fn line_merge([base, ours, theirs]: [&str; 3], markers: &Markers) -> String {
    let (b, o, t) = (lines(base), lines(ours), lines(theirs));
    let mut out = String::new();
    for s in stretches(&b, &o, &t) {
        match s.chunk {
            Chunk::Theirs { .. } => out.push_str(&t[s.theirs].concat()),
            Chunk::Conflict { .. } => out.push_str(&markers.wrap(
                &o[s.ours].concat(),
                &b[s.base].concat(),
                &t[s.theirs].concat(),
            )),
            _ => out.push_str(&o[s.ours].concat()),
        }
    }
    out
}

/// A text's lines, each with its line break.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Documents joined into one file, each but the last ending its last line.
fn joined(texts: &[&str]) -> String {
    let mut out = String::new();
    for text in texts.iter().filter(|t| !t.is_empty()) {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(text);
    }
    out
}

/// A version's documents: cut before each top-level `---` line, and before the control
/// lines that open a block right above it (`{{- if … }}` guarding the document below), each
/// keyed by what it is, made unique by its count.
fn docs(text: &str) -> Vec<Doc<'_>> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut cuts = vec![0];
    for (i, line) in lines.iter().enumerate() {
        if i == 0 || !crate::text::is_separator(line) {
            continue;
        }
        // The file's head (before its first `---`) stays a piece of its own: a guard
        // around the whole file opens there.
        let mut c = i;
        while cuts.len() > 1 && c > *cuts.last().unwrap_or(&0) && opens_block(lines[c - 1]) {
            c -= 1;
        }
        if c > *cuts.last().unwrap_or(&0) {
            cuts.push(c);
        }
    }
    cuts.push(lines.len());
    // The `end` lines at a document's end that close no block it opened (a guard around
    // the whole file, or around several documents) are a piece of their own.
    let mut closing = HashSet::new();
    let mut all = Vec::with_capacity(cuts.len() * 2);
    for w in cuts.windows(2) {
        all.push(w[0]);
        let tail = tail_start(&lines[w[0]..w[1]]) + w[0];
        if tail > w[0] && tail < w[1] {
            all.push(tail);
            closing.insert(tail);
        }
    }
    all.push(lines.len());
    let cuts = all;
    let mut offsets = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    for line in &lines {
        offsets.push(at);
        at += line.len();
    }
    offsets.push(at);
    let mut counts: HashMap<String, usize> = HashMap::new();
    cuts.windows(2)
        .filter(|w| w[0] < w[1])
        .enumerate()
        .map(|(i, w)| {
            let doc = &text[offsets[w[0]]..offsets[w[1]]];
            let key = key_of(doc).unwrap_or_else(|| match i {
                0 => "#head".into(),
                _ if closing.contains(&w[0]) => "#close".into(),
                _ => "#document".into(),
            });
            let n = counts.entry(key.clone()).or_default();
            *n += 1;
            Doc {
                text: doc,
                key: format!("{key}#{n}"),
            }
        })
        .collect()
}

/// Where the closing lines at the end of the last document begin that close no block the
/// document opened: after the trailing run of blank, comment and `end` lines, its first `end`
/// lines that close the document's own open blocks stay with it.
fn tail_start(lines: &[&str]) -> usize {
    let closing = |l: &str| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#') || action(l).is_some_and(|a| a == "end")
    };
    let run = lines.len() - lines.iter().rev().take_while(|l| closing(l)).count();
    let mut open = lines[..run]
        .iter()
        .filter_map(|l| action(l.trim()))
        .fold(0i64, |depth, a| {
            let word = a.split_whitespace().next().unwrap_or("");
            match word {
                "if" | "with" | "range" | "define" | "block" => depth + 1,
                "end" => depth - 1,
                _ => depth,
            }
        });
    let mut at = run;
    while at < lines.len() && open > 0 {
        if action(lines[at].trim()).is_some_and(|a| a == "end") {
            open -= 1;
        }
        at += 1;
    }
    at
}

/// The words inside a line that is only one template action (`{{- if .x }}` gives
/// `if .x`), trim markers and spaces taken off.
fn action(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("{{")?.strip_suffix("}}")?;
    if inner.contains("}}") || inner.contains("{{") {
        return None;
    }
    Some(inner.trim_start_matches('-').trim_end_matches('-').trim())
}

/// Whether a line is only a template action that opens a block (`if`, `with`, `range`).
fn opens_block(line: &str) -> bool {
    action(line.trim()).is_some_and(|a| ["if ", "with ", "range "].iter().any(|w| a.starts_with(w)))
}

/// What a document is, as written: its top-level `kind`, and its `metadata`'s `namespace`
/// and `name` lines; `None` where it has neither kind nor name.
fn key_of(doc: &str) -> Option<String> {
    let (mut kind, mut name, mut namespace) = (None, None, None);
    let mut in_metadata = false;
    let mut child_indent = None;
    for line in doc.lines() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with("{{") {
            continue;
        }
        if indent == 0 {
            in_metadata = trimmed == "metadata:";
            child_indent = None;
            if let Some(v) = trimmed.strip_prefix("kind:") {
                kind = Some(v.trim().to_string());
            }
            continue;
        }
        if in_metadata {
            let ci = *child_indent.get_or_insert(indent);
            if indent == ci {
                if let Some(v) = trimmed.strip_prefix("name:") {
                    name.get_or_insert(v.trim().to_string());
                } else if let Some(v) = trimmed.strip_prefix("namespace:") {
                    namespace.get_or_insert(v.trim().to_string());
                }
            }
        }
    }
    (kind.is_some() || name.is_some()).then(|| {
        format!(
            "{}\u{0}{}\u{0}{}",
            kind.unwrap_or_default(),
            namespace.unwrap_or_default(),
            name.unwrap_or_default()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKERS: Markers = Markers::PLAIN;

    #[test]
    fn documents_are_cut_before_the_controls_that_open_them() {
        let text = "{{- if .a }}\n---\nkind: A\nmetadata:\n  name: a\n{{- end }}\n{{- if .b }}\n---\nkind: B\n{{- end }}\n";
        let d = docs(text);
        let keys: Vec<&str> = d.iter().map(|d| d.key.as_str()).collect();
        // The file's head and the `end` closing it are pieces of their own; the guard
        // opening above B's `---`, and the `end` closing it, are B's.
        assert_eq!(
            keys,
            ["#head#1", "A\u{0}\u{0}a#1", "#close#1", "B\u{0}\u{0}#1"]
        );
        assert_eq!(d[0].text, "{{- if .a }}\n");
        assert_eq!(d[3].text, "{{- if .b }}\n---\nkind: B\n{{- end }}\n");
    }

    #[test]
    fn a_document_one_side_added_stays_beside_the_other_sides_edit() {
        let base = "---\nkind: A\nx: 1\n---\nkind: B\ny: 1\n";
        let ours = "---\nkind: A\nx: 2\n---\nkind: C\nz: 1\n---\nkind: B\ny: 1\n";
        let theirs = "---\nkind: A\nx: 1\n---\nkind: B\ny: 2\n";
        let got = merged_by_documents([base, ours, theirs], &MARKERS, |_| true);
        assert_eq!(
            got.as_deref(),
            Some("---\nkind: A\nx: 2\n---\nkind: C\nz: 1\n---\nkind: B\ny: 2\n")
        );
    }

    #[test]
    fn a_failing_document_becomes_a_conflict_of_its_own_two_sides() {
        let base = "---\nkind: A\nx: 1\n---\nkind: B\ny: 1\n";
        let ours = "---\nkind: A\nx: 2\n---\nkind: B\ny: 1\n";
        let theirs = "---\nkind: A\nx: 3\n---\nkind: B\ny: 2\n";
        // The check wants no conflict inside a document: the first becomes whole.
        let got = merged_by_documents([base, ours, theirs], &MARKERS, |text| {
            !text.contains("<<<<<<< ours\nx:")
        });
        assert_eq!(
            got.as_deref(),
            Some(concat!(
                "<<<<<<< ours\n---\nkind: A\nx: 2\n=======\n---\nkind: A\nx: 3\n>>>>>>> theirs\n",
                "---\nkind: B\ny: 2\n"
            ))
        );
    }
}
