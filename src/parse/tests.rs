use super::*;

fn dump(t: &Tree, id: NodeId, depth: usize, out: &mut String) {
    let n = t.node(id);
    out.push_str(&format!(
        "{}{:?} {:?}\n",
        "  ".repeat(depth),
        n.kind,
        t.src(id)
    ));
    for &c in &n.children {
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
            t.node(a).children.len(),
            t.src(a)
        ),
        (Kind::Map, true, 0, "{}")
    );
    assert_eq!(
        (
            t.node(b).kind,
            t.node(b).flow,
            t.node(b).children.len(),
            t.src(b)
        ),
        (Kind::Seq, true, 0, "[]")
    );
}
