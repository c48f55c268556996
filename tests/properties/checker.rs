//! The invariant's checker itself: it accepts the results people wrote and refuses wrong
//! results built by hand.

use super::*;
use crate::mark_mode::take_sides;

/// The invariant's checker itself, against results people wrote: every clean mark-mode
/// case under `tests/cases/` (pending ones included: their `expected.yaml` is the right
/// result) must hold it. A checker that refused a right answer would make the property fail
/// for the wrong reason.
#[test]
fn invariant_accepts_the_expected_results_of_the_cases() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut dirs = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("reading tests/cases")
            .flatten()
        {
            let path = entry.path();
            if path.join("expect.toml").is_file() {
                dirs.push(path);
            } else if path.is_dir() {
                stack.push(path);
            }
        }
    }
    dirs.sort();
    let mut checked = 0;
    let mut refused = Vec::new();
    for dir in dirs {
        let expect: toml::Table = std::fs::read_to_string(dir.join("expect.toml"))
            .expect("reading expect.toml")
            .parse()
            .expect("expect.toml parses");
        let exit = expect.get("exit").and_then(|v| v.as_integer()).unwrap_or(0);
        let args: Vec<&str> = expect
            .get("args")
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|x| x.as_str()).collect())
            .unwrap_or_default();
        let mark = !args.iter().any(|a| a.starts_with("--on-conflict"));
        if exit != 0 || !mark {
            continue;
        }
        let read = |name: &str| std::fs::read(dir.join(name)).ok();
        let (Some(read_b), Some(read_o), Some(read_t), Some(read_r)) = (
            read("base.yaml"),
            read("ours.yaml"),
            read("theirs.yaml"),
            read("expected.yaml"),
        ) else {
            continue;
        };
        let (b, o, t, r) = (&read_b, &read_o, &read_t, &read_r);
        let (Ok(b), Ok(o), Ok(t), Ok(r)) =
            (parse_docs(b), parse_docs(o), parse_docs(t), parse_docs(r))
        else {
            // Not YAML (a fallback case): nothing to check as data.
            continue;
        };
        checked += 1;
        let texts = [&read_b, &read_o, &read_t, &read_r];
        if let Err(e) = check_invariant(&b, &o, &t, &r)
            .or_else(|e| holds_with_aliases_as_references(texts).ok_or(e))
        {
            refused.push(format!(
                "{}: {e}",
                dir.strip_prefix(&root).unwrap_or(&dir).display()
            ));
        }
    }
    assert!(checked >= 40, "only {checked} clean mark-mode cases found");
    assert!(
        refused.is_empty(),
        "the invariant refuses {} expected result(s):\n{}",
        refused.len(),
        refused.join("\n")
    );
}

/// The checker refuses the wrong clean results of issue 10 §3, built by hand: base, ours,
/// theirs and a wrong result, each next to a right one it accepts.
#[test]
fn invariant_rejects_wrong_results_built_by_hand() {
    // (class, base, ours, theirs, wrong result, right result)
    let cases: [(&str, &str, &str, &str, &str, &str); 9] = [
        (
            "a: theirs' edit lands on ours' copy",
            "kind: D\nmetadata: {name: x}\nc:\n- {name: web, image: v1}\n",
            "kind: D\nmetadata: {name: x}\nc:\n- {name: web, image: v1}\n- {name: web2, image: v1}\n",
            "kind: D\nmetadata: {name: x}\nc:\n- {name: web, image: v2}\n",
            "kind: D\nmetadata: {name: x}\nc:\n- {name: web, image: v1}\n- {name: web2, image: v2}\n",
            "kind: D\nmetadata: {name: x}\nc:\n- {name: web, image: v2}\n- {name: web2, image: v1}\n",
        ),
        (
            "c: a key ours deleted that theirs only moved comes back",
            "a: 1\nb: 2\n",
            "a: 1\n",
            "b: 2\na: 1\n",
            "a: 1\nb: 2\n",
            "a: 1\n",
        ),
        (
            "c: a resource ours deleted that theirs only moved comes back",
            "kind: A\nmetadata: {name: a}\n---\nkind: B\nmetadata: {name: b}\n",
            "kind: B\nmetadata: {name: b}\n",
            "kind: B\nmetadata: {name: b}\n---\nkind: A\nmetadata: {name: a}\n",
            "kind: B\nmetadata: {name: b}\n---\nkind: A\nmetadata: {name: a}\n",
            "kind: B\nmetadata: {name: b}\n",
        ),
        (
            "d: the same Service port added twice (a missing protocol is TCP)",
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: []\n",
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 80, protocol: TCP}]\n",
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 80}]\n",
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 80, protocol: TCP}, {port: 80}]\n",
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: 80, protocol: TCP}]\n",
        ),
        (
            "e: a rule ours deleted that theirs only moved comes back",
            "rules: [{verbs: [get]}, {verbs: [list]}]\n",
            "rules: [{verbs: [get]}]\n",
            "rules: [{verbs: [list]}, {verbs: [get]}]\n",
            "rules: [{verbs: [list]}, {verbs: [get]}]\n",
            "rules: [{verbs: [get]}]\n",
        ),
        (
            "f: theirs' emptied list comes out null",
            "args: [a]\nx: 1\n",
            "args: [a]\nx: 2\n",
            "args: []\nx: 1\n",
            "args:\nx: 2\n",
            "args: []\nx: 2\n",
        ),
        (
            "h: ours' child under a map theirs deleted is merged",
            "spec:\n  inputs: {repo: app}\n  steps: 3\n",
            "spec:\n  inputs: {repo: app, branch: main}\n  steps: 3\n",
            "spec:\n  steps: 3\n",
            "spec:\n  inputs: {branch: main}\n  steps: 3\n",
            // No clean result is right: both sides changed inputs; a null result stands
            // for "none" below.
            "",
        ),
        (
            "i: one element inserted by both sides at one place appears twice",
            "resources: [a, b]\n",
            "resources: [a, c, b]\n",
            "resources: [a, c, b, d]\n",
            "resources: [a, c, c, b, d]\n",
            "resources: [a, c, b, d]\n",
        ),
        (
            "k: theirs' null is dropped in mark mode",
            "p: {storageClass: fast, size: 8Gi}\n",
            "p: {storageClass: fast, size: 10Gi}\n",
            "p: {storageClass: null, size: 8Gi}\n",
            "p: {size: 10Gi}\n",
            "p: {storageClass: null, size: 10Gi}\n",
        ),
    ];
    // j: taking a side of every conflict block must give valid YAML.
    let separator_outside = "---\n<<<<<<< ours\n=======\nkind: A\nmetadata: {name: a}\n>>>>>>> theirs\nkind: B\nmetadata: {name: b}\n";
    let (ours_side, theirs_side) = take_sides(separator_outside, 7).expect("well-formed markers");
    assert!(parse_docs(ours_side.as_bytes()).is_ok());
    assert!(
        parse_docs(theirs_side.as_bytes()).is_err(),
        "j: theirs' side joins two documents: {theirs_side}"
    );
    let diff3 = "a: 1\n<<<<<<< ours\nb: 2\n||||||| base\nb: 1\n=======\nb: 3\n>>>>>>> theirs\n";
    assert_eq!(
        take_sides(diff3, 7),
        Ok(("a: 1\nb: 2\n".to_string(), "a: 1\nb: 3\n".to_string()))
    );
    assert!(take_sides("<<<<<<< ours\na: 1\n", 7).is_err());
    let docs = |t: &str| parse_docs(t.as_bytes()).expect("hand-made YAML parses");
    for (class, b, o, t, wrong, right) in cases {
        let (b, o, t) = (docs(b), docs(o), docs(t));
        assert!(
            check_invariant(&b, &o, &t, &docs(wrong)).is_err(),
            "{class}: the wrong result is accepted"
        );
        if !right.is_empty() {
            if let Err(e) = check_invariant(&b, &o, &t, &docs(right)) {
                panic!("{class}: the right result is refused: {e}");
            }
        }
    }
}

/// The second reading of a case whose files use anchors: each alias read as a reference to
/// its anchor (the string `*name`), not expanded, and anchors dropped. An alias a side kept
/// names the anchored place, whose value the other side may change (issue 30: an edit to an
/// anchored value and an edit beside its alias both stand); read expanded, the alias seems
/// changed by nobody. Some(()) where the invariant holds so read; None where no file has an
/// anchor or it does not hold.
fn holds_with_aliases_as_references(texts: [&Vec<u8>; 4]) -> Option<()> {
    let texts: Vec<&str> = texts
        .iter()
        .map(|t| std::str::from_utf8(t))
        .collect::<Result<_, _>>()
        .ok()?;
    let names: std::collections::HashSet<&str> = texts
        .iter()
        .flat_map(|t| tokens(t, b'&'))
        .map(|(_, name)| name)
        .collect();
    if names.is_empty() {
        return None;
    }
    let read = |text: &str| parse_docs(as_references(text, &names).as_bytes()).ok();
    let [b, o, t, r] = [texts[0], texts[1], texts[2], texts[3]].map(read);
    check_invariant(&b?, &o?, &t?, &r?).ok()
}

/// The `&name` or `*name` tokens (by `sigil`) of a text, each with its byte offset: a sigil
/// after a space (or opening a line) and a name of letters, digits, `_` or `-`, ending the
/// line or followed by a space.
fn tokens(text: &str, sigil: u8) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let name_char = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    let mut out = Vec::new();
    for (i, &c) in bytes.iter().enumerate() {
        if c != sigil || (i > 0 && bytes[i - 1] != b' ' && bytes[i - 1] != b'\n') {
            continue;
        }
        let end = (i + 1..bytes.len())
            .find(|&j| !name_char(bytes[j]))
            .unwrap_or(bytes.len());
        if end > i + 1 && (end == bytes.len() || matches!(bytes[end], b' ' | b'\n')) {
            out.push((i, &text[i + 1..end]));
        }
    }
    out
}

/// `text` with each anchor of `names` dropped and each alias of them quoted as a string.
fn as_references(text: &str, names: &std::collections::HashSet<&str>) -> String {
    let mut edits: Vec<(usize, usize, String)> = tokens(text, b'&')
        .into_iter()
        .filter(|(_, n)| names.contains(n))
        .map(|(at, n)| (at, at + 1 + n.len(), String::new()))
        .chain(
            tokens(text, b'*')
                .into_iter()
                .filter(|(_, n)| names.contains(n))
                .map(|(at, n)| (at, at + 1 + n.len(), format!("\"*{n}\""))),
        )
        .collect();
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (start, end, with) in edits {
        out.push_str(&text[from..start]);
        out.push_str(&with);
        from = end;
    }
    out.push_str(&text[from..]);
    out
}
