//! Property 3: `--on-conflict theirs` against the reference merge of [`crate::oracle`], and
//! the reference itself against kyaml's recorded results.

use super::*;

#[test]
fn theirs_policy_matches_reference() {
    // Three kyaml behaviours the engine does not copy (`gaps::KYAML_RESURRECTS_UNCHANGED`,
    // `KYAML_EMPTY_SKELETONS`, `KYAML_PARTIAL_ELEMENTS`); the reference is checked with them
    // on and off against the conformance vectors below.
    let oracle = Oracle::engine();
    let mut runner = TestRunner::new(config(1000));
    let result = runner.run(&choices(), |data| {
        let mut g = Gen::new(&data);
        let base_docs = g.file();
        let style = g.style();
        let (ours_edits, ours_docs) = g.edits(&base_docs, 3, &|_| true);
        // Theirs restarts its fresh names: both sides adding the same name is a clash.
        g.fresh = 0;
        let (theirs_edits, theirs_docs) = g.edits(&base_docs, 3, &|_| true);
        let base = render_file(&base_docs, style);
        let ours = render_file(&ours_docs, style);
        let theirs = render_file(&theirs_docs, style);
        let shown = format!(
            "{}\nours' edits: {ours_edits:?}\ntheirs' edits: {theirs_edits:?}",
            show(&base, &ours, &theirs)
        );
        let out = merge(&base, &ours, &theirs, Policy::Theirs);
        let merged = String::from_utf8(out.bytes.clone()).expect("UTF-8");
        if out.conflicted || !out.messages.is_empty() {
            return Err(fail(format!(
                "theirs policy did not merge by structure (messages {:?}):\n{merged}\n{shown}",
                out.messages
            )));
        }
        let got = parse_docs(&out.bytes)
            .map_err(|e| fail(format!("the result does not parse: {e}\n{merged}\n{shown}")))?;
        let parsed = |t: &str| parse_docs(t.as_bytes()).expect("generated YAML parses");
        let want = oracle.merge_files(&parsed(&base), &parsed(&ours), &parsed(&theirs));
        let (got_n, want_n) = (normal(&got, false), normal(&want, false));
        if got_n != want_n {
            let text = |docs: &[(String, D)]| -> String {
                docs.iter()
                    .map(|(_, d)| {
                        let mut out = String::from("---\n");
                        write_d(&mut out, d, 0);
                        out
                    })
                    .collect()
            };
            let (want_text, got_text) = (text(&want_n), text(&got_n));
            return Err(fail(format!(
                "theirs policy differs from the reference (reference vs engine):\n{}\n--- result\n{merged}\n{shown}",
                common::unified_diff(want_text.as_bytes(), got_text.as_bytes(), "reference")
            )));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The reference merge itself checked against what kyaml really does: every merge3
/// conformance vector (`tests/conformance/merge3-*`, `kio-merge3-files`) but the listed
/// ones, where the vector depends on something the reference leaves out.
#[test]
fn reference_matches_conformance_vectors() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let suites = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("reading the vectors in {}: {e}", root.display()));
    let kyaml = Oracle::kyaml();
    let engine_choices = Oracle::engine();
    let mut checked = 0;
    let mut mismatches = Vec::new();
    let mut suites: Vec<_> = suites.flatten().map(|e| e.path()).collect();
    suites.sort();
    for suite in suites {
        let name = suite.file_name().unwrap().to_string_lossy().to_string();
        if !(name.starts_with("merge3-") || name == "kio-merge3-files") {
            continue;
        }
        let mut cases: Vec<_> = std::fs::read_dir(&suite)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        cases.sort();
        for case in cases {
            let read = |f: &str| std::fs::read(case.join(f)).ok();
            let (Some(o), Some(u), Some(d), Some(e)) = (
                read("original.yaml"),
                read("updated.yaml"),
                read("dest.yaml"),
                read("expected.yaml"),
            ) else {
                continue;
            };
            let (Ok(o), Ok(u), Ok(d), Ok(e)) = (
                parse_docs(&o),
                parse_docs(&u),
                parse_docs(&d),
                parse_docs(&e),
            ) else {
                continue;
            };
            checked += 1;
            for oracle in [&kyaml, &engine_choices] {
                let got = oracle.merge_files(&o, &d, &u);
                if normal(&got, false) != normal(&e, false) {
                    let id = format!("{name}/{}", case.file_name().unwrap().to_string_lossy());
                    mismatches.push(id);
                }
            }
        }
    }
    assert!(checked >= 50, "only {checked} merge3 vectors found");
    assert!(
        mismatches.is_empty(),
        "the reference merge disagrees with kyaml's recorded results: {mismatches:#?}"
    );
}
