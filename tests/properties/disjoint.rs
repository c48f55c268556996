//! Property 2: ours and theirs edit different places next to each other; the merge is clean,
//! holds both sides' edits, and keeps ours' untouched lines byte for byte.

use super::*;

/// A file's documents by identity: the text between `---` lines.
pub(crate) fn doc_texts(text: &str) -> HashMap<String, String> {
    let mut chunks = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            chunks.push(String::new());
        } else {
            chunks.last_mut().expect("one chunk").push_str(line);
        }
    }
    chunks
        .into_iter()
        .filter_map(|c| {
            let docs = parse_docs(c.as_bytes()).ok()?;
            Some((identity(docs.first()?), c))
        })
        .collect()
}

/// Ours' lines that neither side changed, document by document: not an edited line of ours,
/// and not a line of base that theirs changed or removed (lines aligned by a patience diff).
/// A document ours added is all ours' change; one the merge removed has no lines to keep.
pub(crate) fn untouched_lines_kept(
    base: &str,
    ours: &str,
    theirs: &str,
    merged: &str,
) -> Result<(), String> {
    let (b, o, t, m) = (
        doc_texts(base),
        doc_texts(ours),
        doc_texts(theirs),
        doc_texts(merged),
    );
    for (id, ours_doc) in &o {
        let (Some(base_doc), Some(merged_doc)) = (b.get(id), m.get(id)) else {
            continue;
        };
        let empty = String::new();
        let theirs_doc = t.get(id).unwrap_or(&empty);
        untouched_doc_lines_kept(base_doc, ours_doc, theirs_doc, merged_doc)
            .map_err(|e| format!("{id}: {e}"))?;
    }
    Ok(())
}

pub(crate) fn untouched_doc_lines_kept(
    base: &str,
    ours: &str,
    theirs: &str,
    merged: &str,
) -> Result<(), String> {
    use similar::{Algorithm, ChangeTag, TextDiff};
    let diff = |a: &str, b: &str| -> Vec<(ChangeTag, Option<usize>, Option<usize>, String)> {
        TextDiff::configure()
            .algorithm(Algorithm::Patience)
            .diff_lines(a, b)
            .iter_all_changes()
            .map(|c| (c.tag(), c.old_index(), c.new_index(), c.value().to_string()))
            .collect()
    };
    let mut touched = vec![false; ours.split_inclusive('\n').count()];
    let mut base_to_ours = vec![None; base.split_inclusive('\n').count()];
    // Repeated lines (`- port: 80` in two elements) align either way: a line whose text an
    // edited line has counts as edited too.
    let mut edited_text = HashSet::new();
    for (tag, old, new, value) in diff(base, ours) {
        match tag {
            ChangeTag::Equal => base_to_ours[old.unwrap()] = new,
            ChangeTag::Insert => touched[new.unwrap()] = true,
            ChangeTag::Delete => {
                edited_text.insert(value);
            }
        }
    }
    let base_lines: Vec<&str> = base.split_inclusive('\n').collect();
    let mut theirs_deleted = vec![false; base_lines.len()];
    for (tag, old, _, value) in diff(base, theirs) {
        if tag == ChangeTag::Delete {
            theirs_deleted[old.unwrap()] = true;
            edited_text.insert(value);
        }
    }
    // A list element whose lines theirs edited may be an element theirs replaced by another
    // with the same first line (`- containerPort: 80` of port 80/TCP and of 80/UDP): the line
    // diff aligns that line as kept, though theirs deleted the element it opens. Such a
    // first line counts as touched by theirs too.
    let indent = |l: &str| l.len() - l.trim_start().len();
    for (i, line) in base_lines.iter().enumerate() {
        if !line.trim_start().starts_with("- ") {
            continue;
        }
        let end = (i + 1..base_lines.len())
            .find(|&j| indent(base_lines[j]) <= indent(line))
            .unwrap_or(base_lines.len());
        if theirs_deleted[i + 1..end].iter().any(|&d| d) {
            theirs_deleted[i] = true;
        }
    }
    for (i, deleted) in theirs_deleted.into_iter().enumerate() {
        if let Some(j) = base_to_ours[i].filter(|_| deleted) {
            touched[j] = true;
        }
    }
    for (tag, old, _, value) in diff(ours, merged) {
        // A map or list whose entries both sides removed between them stays as `{}`/`[]`.
        let line = value.trim_end_matches('\n');
        let emptied = line.ends_with(':')
            && [" {}\n", " []\n"]
                .iter()
                .any(|e| merged.contains(&format!("{line}{e}")));
        if tag == ChangeTag::Delete
            && !touched[old.unwrap()]
            && !emptied
            && !edited_text.contains(&value)
        {
            return Err(format!(
                "ours line {} ({value:?}) is not in the result, though neither side changed it",
                old.unwrap() + 1
            ));
        }
    }
    Ok(())
}

#[test]
fn disjoint_edits_merge_cleanly() {
    let cases = std::cell::Cell::new(0usize);
    let git_conflicts = std::cell::Cell::new(0usize);
    let mut runner = TestRunner::new(config(1000));
    let result = runner.run(&choices(), |data| {
        let mut g = Gen {
            tag: "o",
            nulls: !gaps::DISJOINT_EDITS_WITHOUT_NULLS.in_force,
            ..Gen::new(&data)
        };
        let base_docs = g.file();
        let style = g.style();
        let (ours_edits, ours_docs) = g.edits(&base_docs, 3, &|_| true);
        let claims: Vec<Path> = ours_edits.iter().map(Edit::claim).collect();
        // Theirs works next to ours' first edit when it can (siblings in the same map or
        // list), so git's line merge sees adjacent changes.
        g.tag = "t";
        let near = claims.first().cloned().unwrap_or_default();
        let parent: Path = near[..near.len().saturating_sub(1)].to_vec();
        let prefer_near = g.c.flag(75);
        let disjoint = |p: &Path| !claims.iter().any(|c| overlaps(c, p));
        let allowed = |p: &Path| {
            disjoint(p) && (!prefer_near || parent.is_empty() || p.starts_with(&parent))
        };
        let (mut theirs_edits, mut theirs_docs) = g.edits(&base_docs, 3, &allowed);
        if theirs_edits.is_empty() {
            (theirs_edits, theirs_docs) = g.edits(&base_docs, 3, &disjoint);
        }
        if ours_edits.is_empty() || theirs_edits.is_empty() {
            return Ok(());
        }
        let ([base, ours, theirs], shown) = g.texts(
            [&base_docs, &ours_docs, &theirs_docs],
            style,
            [&ours_edits, &theirs_edits],
        );
        let mut expected = ours_docs.clone();
        for e in &theirs_edits {
            if !apply(&mut expected, e) {
                return Err(fail(format!("generator: {e:?} does not apply to ours\n{shown}")));
            }
        }
        let line = kmerge::git::line_merge::line_merge(
            base.as_bytes(),
            ours.as_bytes(),
            theirs.as_bytes(),
            &MergeOptions::default(),
        )
        .expect("git's line merge runs");
        cases.set(cases.get() + 1);
        if line.conflicted {
            git_conflicts.set(git_conflicts.get() + 1);
        }
        let out = merge(&base, &ours, &theirs, Policy::Mark);
        let merged = String::from_utf8(out.bytes.clone()).expect("UTF-8");
        // Where git's line merge is clean its bytes are the answer when kmerge's check accepts
        // them as data; where it shows them wrong (a key theirs added at the top of a document
        // lands in the document ours inserted before it), the structural merge decides.
        let overruled = |m: &kmerge::driver::Message| m.text().starts_with("git's clean line merge is wrong as data");
        let git_overruled = out.messages.iter().any(overruled);
        if !line.conflicted && !git_overruled {
            if out.bytes != line.bytes || out.conflicted {
                return Err(fail(format!(
                    "git's clean line merge was not kept (messages {:?}):\n{merged}\n{shown}",
                    out.messages
                )));
            }
            return Ok(());
        }
        if out.conflicted || !out.messages.iter().all(overruled) {
            return Err(fail(format!(
                "disjoint edits did not merge cleanly by structure (messages {:?}):\n{merged}\n{shown}",
                out.messages
            )));
        }
        let got = parse_docs(&out.bytes)
            .map_err(|e| fail(format!("the clean result does not parse: {e}\n{merged}\n{shown}")))?;
        let want_text = render_file(&expected, style);
        let want = parse_docs(want_text.as_bytes()).expect("generated YAML parses");
        if normal(&got, true) != normal(&want, true) {
            return Err(fail(format!(
                "the result lacks an edit (expected vs result):\n{}\n{shown}",
                common::unified_diff(want_text.as_bytes(), merged.as_bytes(), "expected")
            )));
        }
        untouched_lines_kept(&base, &ours, &theirs, &merged)
            .map_err(|e| fail(format!("{e}\n--- result\n{merged}\n{shown}")))?;
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // The property means something only where git's line merge conflicts (elsewhere git's own
    // bytes are the answer): most cases must be such.
    let (n, c) = (cases.get(), git_conflicts.get());
    assert!(
        c * 2 >= n,
        "only {c} of {n} cases made git's line merge conflict"
    );
    eprintln!("disjoint_edits_merge_cleanly: git's line merge conflicted in {c} of {n} cases");
}
