use super::*;

fn dump(t: &Tree, id: NodeId, depth: usize, out: &mut String) {
    let n = t.node(id);
    out.push_str(&format!(
        "{}{:?} {:?}\n",
        "  ".repeat(depth),
        n.kind,
        t.src(id)
    ));
    for &c in t.children(id) {
        dump(t, c, depth + 1, out);
    }
}

fn show(text: &str) -> String {
    let t = parse(text).expect("parses");
    let mut out = String::new();
    for d in &t.docs {
        out.push_str(&format!("doc {:?}\n", &text[d.region.clone()]));
        if let Some(r) = d.root {
            dump(&t, r, 1, &mut out);
        }
    }
    out
}

/// The span tree's extents absorb granit's quirks: block collections span their children,
/// block scalars include their header and stop at their last content line, anchors and tags
/// belong to their node, empty values sit after their indicator, CRLF and a BOM keep offsets.
#[test]
fn spans_cover_exactly_the_node_text() {
    let cases: &[(&str, &str)] = &[
        (
            "a:\n  b: 1  # c\n  list:\n  - x\n  - y\n\nz: 2\n",
            "doc \"a:\\n  b: 1  # c\\n  list:\\n  - x\\n  - y\\n\\nz: 2\\n\"\n  Map \"a:\\n  b: 1  # c\\n  list:\\n  - x\\n  - y\\n\\nz: 2\"\n    Scalar \"a\"\n    Map \"b: 1  # c\\n  list:\\n  - x\\n  - y\"\n      Scalar \"b\"\n      Scalar \"1\"\n      Scalar \"list\"\n      Seq \"- x\\n  - y\"\n        Scalar \"x\"\n        Scalar \"y\"\n    Scalar \"z\"\n    Scalar \"2\"\n",
        ),
    ];
    for (text, want) in cases {
        assert_eq!(&show(text), want, "for {text:?}");
    }
}

/// The source text of the node at `path` (keys, or `#n` for a sequence index) in doc `d`.
fn at(t: &Tree, d: usize, path: &[&str]) -> String {
    let mut n = t.docs[d].root.expect("a root");
    for p in path {
        n = match p.strip_prefix('#') {
            Some(i) => t.children(n)[i.parse::<usize>().expect("index")],
            None => t.get(n, p).unwrap_or_else(|| panic!("no {p}")),
        };
    }
    t.src(n).to_string()
}

#[test]
fn block_scalar_spans_include_header_and_stop_at_last_content_line() {
    let text = "k: |-  # keep\n  line1\n\n  line2\n\nnext: >+\n  folded\n\nz: 1\n";
    let t = parse(text).expect("parses");
    assert_eq!(at(&t, 0, &["k"]), "|-  # keep\n  line1\n\n  line2");
    assert_eq!(at(&t, 0, &["next"]), ">+\n  folded");
    assert_eq!(at(&t, 0, &["z"]), "1");
}

/// A content line of only blanks (indented past the scalar's indentation) is part of the
/// value, so of the span, in either reader (a multi-line flow map sends a text to granit's);
/// empty lines after the last content line are not.
#[test]
fn block_scalar_spans_take_content_lines_of_only_blanks() {
    for tail in ["", "f: {a: 1,\n  b: 2}\n"] {
        let text = format!("k: |\n  a\n    \n\nl: |+\n  b\n   \n\nm: >-\n  d\n\n  \nz: 1\n{tail}");
        let t = parse(&text).expect("parses");
        assert_eq!(at(&t, 0, &["k"]), "|\n  a\n    ", "in {text:?}");
        assert_eq!(
            t.value(t.get(t.docs[0].root.expect("root"), "k").expect("k")),
            "a\n  \n"
        );
        assert_eq!(at(&t, 0, &["l"]), "|+\n  b\n   ", "in {text:?}");
        assert_eq!(at(&t, 0, &["m"]), ">-\n  d", "in {text:?}");
    }
}

#[test]
fn anchors_tags_and_aliases_belong_to_their_nodes() {
    let t = parse("base: &b\n  x: 1\nref: *b\ns: !!str 5\nm: &m !t\n  a: 1\n").expect("parses");
    assert_eq!(at(&t, 0, &["base"]), "&b\n  x: 1");
    assert_eq!(at(&t, 0, &["ref"]), "*b");
    assert_eq!(at(&t, 0, &["s"]), "!!str 5");
    assert_eq!(at(&t, 0, &["m"]), "&m !t\n  a: 1");
    let root = t.docs[0].root.expect("root");
    let alias = t.get(root, "ref").expect("ref");
    assert_eq!(t.node(alias).kind, Kind::Alias);
    assert_eq!(t.value(alias), "b");
    assert_eq!(t.src(t.node(alias).target().expect("target")), "&b\n  x: 1");
}

#[test]
fn empty_values_sit_after_their_indicator() {
    let text = "empty:\nlist:\n-\n- x\n";
    let t = parse(text).expect("parses");
    let root = t.docs[0].root.expect("root");
    let empty = t.get(root, "empty").expect("empty");
    assert_eq!(
        (t.node(empty).start, t.node(empty).end),
        ("empty:".len(), "empty:".len())
    );
    assert!(t.is_null(empty));
    assert_eq!(at(&t, 0, &["list"]), "-\n- x");
}

#[test]
fn sequences_start_at_their_first_dash_indented_or_not() {
    let t = parse("a:\n- name: x\n  v: 1\nb:\n  - y\n").expect("parses");
    assert_eq!(at(&t, 0, &["a"]), "- name: x\n  v: 1");
    assert_eq!(at(&t, 0, &["a", "#0"]), "name: x\n  v: 1");
    assert_eq!(at(&t, 0, &["b"]), "- y");
}

#[test]
fn documents_tile_the_file_and_keep_their_separators() {
    let text = "# head\na: 1\n---\n# c\nb: {x: [1, 2]}\n...\n---\n";
    let t = parse(text).expect("parses");
    let regions: Vec<&str> = t.docs.iter().map(|d| &text[d.region.clone()]).collect();
    assert_eq!(
        regions,
        ["# head\na: 1\n", "---\n# c\nb: {x: [1, 2]}\n...\n", "---\n"]
    );
    assert_eq!(at(&t, 1, &["b"]), "{x: [1, 2]}");
    assert_eq!(at(&t, 1, &["b", "x"]), "[1, 2]");
    assert!(t.docs[1].explicit_start && !t.docs[0].explicit_start);
}

#[test]
fn crlf_and_bom_keep_byte_offsets() {
    let text = "\u{feff}a: 1\r\nb: >\r\n  folded\r\nc: 'x'\r\n";
    let t = parse(text).expect("parses");
    assert_eq!(t.eol, "\r\n");
    assert_eq!(at(&t, 0, &["a"]), "1");
    assert_eq!(at(&t, 0, &["b"]), ">\r\n  folded");
    assert_eq!(at(&t, 0, &["c"]), "'x'");
}

#[test]
fn non_ascii_text_does_not_shift_offsets() {
    let t = parse("greeting: 'héllo, wörld ✓'\nname: after\n").expect("parses");
    assert_eq!(at(&t, 0, &["name"]), "after");
}

#[test]
fn duplicate_keys_are_recorded() {
    let t = parse("a: 1\nb: 2\na: 3\n").expect("parses");
    assert_eq!(t.duplicate_keys, ["line 3: a"]);
}

#[test]
fn invalid_input_is_an_error_with_a_line() {
    for (text, line) in [
        ("a:\n\tb: 1\n", "line 2"),
        ("a: \"open\n", "line"),
        ("{{ if .Values.x }}: y\n", "line 1"),
    ] {
        let err = parse(text).expect_err(text).to_string();
        assert!(err.contains(line), "{text:?}: {err}");
    }
}

#[test]
fn scalars_compare_as_data() {
    let t = parse("a: '80'\nb: 80\nc: x\nd: \"x\"\ne: yes\nf: 'yes'\ng: ~\nh:\n").expect("parses");
    let root = t.docs[0].root.expect("root");
    let key = |k: &str| t.scalar_key(t.get(root, k).expect(k));
    assert_ne!(key("a"), key("b"));
    assert_eq!(key("c"), key("d"));
    assert_ne!(key("e"), key("f"));
    assert_eq!(key("g"), key("h"));
}

#[test]
fn empty_flow_map_is_an_empty_map() {
    let t = parse("a: {}\nb: []\n").expect("parses");
    let root = t.docs[0].root.expect("root");
    let a = t.get(root, "a").expect("a");
    let b = t.get(root, "b").expect("b");
    assert_eq!(
        (
            t.node(a).kind,
            t.node(a).flow,
            t.children(a).len(),
            t.src(a)
        ),
        (Kind::Map, true, 0, "{}")
    );
    assert_eq!(
        (
            t.node(b).kind,
            t.node(b).flow,
            t.children(b).len(),
            t.src(b)
        ),
        (Kind::Seq, true, 0, "[]")
    );
}

/// A large node's digest is kept and given again; a node of another tree or text gets its
/// own, and a copy of the tree takes its digests anew.
#[test]
fn kept_digests_belong_to_their_tree() {
    let big = |word: &str| {
        let fields: String = (0..400).map(|i| format!("  f{i}: {word}\n")).collect();
        format!("list:\n- name: a\n{fields}- name: b\n  x: 1\n")
    };
    let (one, two) = (big("same"), big("other"));
    let (a, b) = (parse(&one).unwrap(), parse(&two).unwrap());
    let item = |t: &Tree| t.children(t.get(t.docs[0].root.unwrap(), "list").unwrap())[0];
    let n = a.node(item(&a));
    assert!(n.end - n.start >= DIGEST_KEPT_FROM);
    let first = digest(&a, item(&a));
    assert_eq!(digest(&a, item(&a)), first);
    assert_ne!(digest(&b, item(&b)), first);
    let copy = a.clone();
    assert_eq!(digest(&copy, item(&copy)), first);
    assert_eq!(digest(&parse(&one).unwrap(), item(&a)), first);
}

/// Duplicate keys are found in maps of few keys (compared one by one) and of many (a set),
/// and keys of different maps, nested or side by side, are no duplicates.
#[test]
fn duplicate_keys_in_small_and_large_maps() {
    let keys = |n: usize, indent: &str| -> String {
        (0..n).map(|i| format!("{indent}k{i}: {i}\n")).collect()
    };
    let dups = |text: &str| parse(text).expect("parses").duplicate_keys.len();
    assert_eq!(dups(&format!("{}k2: again\n", keys(5, ""))), 1);
    assert_eq!(dups(&format!("{}k2: again\n", keys(40, ""))), 1);
    assert_eq!(dups(&format!("{}k39: again\n", keys(40, ""))), 1);
    // The same keys in a nested map, then again in the outer map after it closes.
    let nested = format!(
        "{}inner:\n{}k40: x\nk3: again\n",
        keys(33, ""),
        keys(40, "  ")
    );
    assert_eq!(dups(&nested), 1);
    let apart = format!("a:\n{}b:\n{}", keys(40, "  "), keys(40, "  "));
    assert_eq!(dups(&apart), 0);
    let items = format!("- {}\n- {}\n", "x: 1\n  y: 2", "x: 1\n  y: 2");
    assert_eq!(dups(&items), 0);
}

/// A node's room is most of a large tree's memory: what it holds stays within 56 bytes.
#[test]
fn a_node_stays_small() {
    assert!(
        std::mem::size_of::<Node>() <= 56,
        "{}",
        std::mem::size_of::<Node>()
    );
    let t = parse("a:\n  b: 1\n").unwrap();
    let root = t.docs[0].root.unwrap();
    let inner = t.get(root, "a").unwrap();
    assert_eq!(t.node(root).parent(), None);
    assert_eq!(t.node(inner).parent(), Some(root));
    assert_eq!(t.node(t.get(inner, "b").unwrap()).parent(), Some(inner));
}

/// List elements are named alike exactly when their data is, whether a few are compared with
/// each other or many are digested: key order, quoting and layout do not count.
#[test]
fn list_elements_are_named_by_their_data() {
    let a = parse("- {b: 1, c: x}\n- [1, 2]\n- c: x\n  b: 1\n").unwrap();
    let b = parse("- [1, 2]\n- b: 1\n  c: 'x'\n- {b: 2, c: x}\n").unwrap();
    let items = |t: &Tree| t.children(t.docs[0].root.unwrap()).to_vec();
    let (ai, bi) = (items(&a), items(&b));
    let names = data_names([(&a, &ai), (&b, &bi)]);
    let [x, y] = [&names[0], &names[1]];
    assert_eq!((x[0], x[1], x[2]), (y[1], y[0], y[1]));
    assert!(!x.contains(&y[2]));
    // Past the few compared one with another, the digests must tell the same.
    let digested = data_names([(&a, &ai[..]), (&b, &bi[..]), (&a, &ai[..])]);
    assert!(ai.len() * 2 + bi.len() > COMPARED_UP_TO);
    let same = |n: &[Vec<u128>], i: (usize, usize), j: (usize, usize)| n[i.0][i.1] == n[j.0][j.1];
    let all: Vec<(usize, usize)> = (0..2).flat_map(|l| (0..3).map(move |e| (l, e))).collect();
    for &i in &all {
        for &j in &all {
            assert_eq!(same(&names, i, j), same(&digested, i, j), "{i:?} {j:?}");
        }
    }
}

/// Maps are equal as data whatever order their keys stand in, and differ at the first value
/// that does, in whichever order the keys after it stand.
#[test]
fn maps_compare_as_data() {
    let same = |x: &str, y: &str| {
        let (a, b) = (parse(x).unwrap(), parse(y).unwrap());
        same_data(&a, a.docs[0].root.unwrap(), &b, b.docs[0].root.unwrap())
    };
    assert!(same("a: 1\nb: {c: 2}\n", "a: 1\nb:\n  c: 2\n"));
    assert!(same("a: 1\nb: 2\nc: 3\n", "c: 3\na: 1\nb: 2\n"));
    assert!(same("a: 1\nb: 2\nc: 3\n", "a: 1\nc: 3\nb: 2\n"));
    assert!(!same("a: 1\nb: 2\nc: 3\n", "a: 1\nb: 9\nc: 3\n"));
    assert!(!same("a: 1\nb: 2\nc: 3\n", "a: 1\nb: 9\nd: 3\n"));
    assert!(!same("a: 1\nb: 2\nc: 3\n", "a: 1\nb: 2\nc: 3\nd: 4\n"));
    assert!(!same("a: 1\nb: 2\nc: 3\n", "a: 1\nb: 2\nd: 3\n"));
    assert!(!same("a: 1\nb: 2\n", "b: 1\na: 2\n"));
}

/// An alias compares by anchor name and the anchored data, comments aside: also where the
/// anchored value holds a `*` that is no alias (a comment's `* 100`), and where it holds an
/// alias itself. An alias bomb still compares in time: each pair of anchored values once.
#[test]
fn aliases_compare_by_anchored_data() {
    let same = |x: &str, y: &str| {
        let (a, b) = (parse(x).unwrap(), parse(y).unwrap());
        same_data(&a, a.docs[0].root.unwrap(), &b, b.docs[0].root.unwrap())
    };
    let star_in_comment = "a: &x\n  # m * 100\n  # gone\n  k: 1\nb: *x\n";
    assert!(same(star_in_comment, "a: &x\n  # m * 100\n  k: 1\nb: *x\n"));
    let alias_inside = "y: &y 1\na: &x\n  # gone\n  k: *y\nb: *x\n";
    assert!(same(alias_inside, "y: &y 1\na: &x\n  k: *y\nb: *x\n"));
    assert!(!same(alias_inside, "y: &y 2\na: &x\n  k: *y\nb: *x\n"));
    assert!(!same(
        alias_inside,
        "y: &y 1\na: &x\n  k: *y\n  j: 2\nb: *x\n"
    ));
    let mut bomb = String::from("l0: &l0 [x, x]\n");
    for i in 1..40 {
        let p = i - 1;
        bomb.push_str(&format!("l{i}: &l{i} [*l{p}, *l{p}]\n"));
    }
    let other = format!("{bomb}# a comment\n");
    assert!(same(&bomb, &other));
    assert!(!same(&bomb, &bomb.replace("[x, x]", "[x, y]")));
}
