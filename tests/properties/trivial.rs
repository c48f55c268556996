//! Property 1: merges where a side changed nothing give the other side.

use super::*;

#[test]
fn trivial_merges() {
    let mut runner = TestRunner::new(config(500));
    let result = runner.run(&choices(), |data| {
        let mut g = Gen::new(&data);
        let base_docs = g.file();
        let style = g.style();
        let base = render_file(&base_docs, style);
        let (_, x_docs) = g.edits(&base_docs, 4, &|_| true);
        let x = render_file(&x_docs, style);
        let cases = show(&base, &x, &base);
        for policy in [Policy::Mark, Policy::Ours] {
            let out = merge(&base, &x, &base, policy);
            if out.bytes != x.as_bytes() || out.conflicted {
                return Err(fail(format!(
                    "{policy:?}: merge(b, x, b) is not x:\n{}\n{}",
                    common::unified_diff(x.as_bytes(), &out.bytes, "x"),
                    cases
                )));
            }
        }
        for policy in [Policy::Mark, Policy::Theirs, Policy::Ours] {
            let out = merge(&x, &x, &x, policy);
            if out.bytes != x.as_bytes() || out.conflicted {
                return Err(fail(format!("{policy:?}: merge(x, x, x) is not x:\n{x}")));
            }
        }
        let out = merge(&base, &base, &x, Policy::Mark);
        if out.bytes != x.as_bytes() || out.conflicted {
            return Err(fail(format!("mark: merge(b, b, y) is not y:\n{cases}")));
        }
        let out = merge(&base, &base, &x, Policy::Ours);
        if !out.messages.is_empty() {
            return Err(fail(format!(
                "ours policy: merge(b, b, y) did not merge by structure: {:?}\n--- b\n{base}--- y\n{x}",
                out.messages
            )));
        }
        let got = parse_docs(&out.bytes).map_err(|e| fail(format!("ours: {e}\n{cases}")))?;
        let want = parse_docs(x.as_bytes()).expect("generated YAML parses");
        if out.conflicted || normal(&got, false) != normal(&want, false) {
            return Err(fail(format!(
                "ours policy: merge(b, b, y) is not y as data (messages {:?}):\n{}\n--- b\n{base}--- y\n{x}",
                out.messages,
                common::unified_diff(x.as_bytes(), &out.bytes, "y")
            )));
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
