//! The mark-mode invariant (issue 10, §2), over plain values, independent of the engine:
//! every clean result checked against base, ours and theirs.

use super::*;

/// A value on one line, for messages; `-` when absent.
pub(crate) fn flow(d: Option<&D>) -> String {
    fn go(d: &D, out: &mut String) {
        match d {
            D::Null => out.push_str("null"),
            D::Bool(b) => out.push_str(&b.to_string()),
            D::Num(n) => out.push_str(n),
            D::Str(s) => out.push_str(&format!("{s:?}")),
            D::Map(m) => {
                out.push('{');
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(k);
                    out.push_str(": ");
                    go(v, out);
                }
                out.push('}');
            }
            D::Seq(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    go(v, out);
                }
                out.push(']');
            }
        }
    }
    match d {
        None => "-".into(),
        Some(d) => {
            let mut out = String::new();
            go(d, &mut out);
            out
        }
    }
}

/// An element's key in a keyed list: its key fields' values, a missing `protocol` read as
/// `TCP` (the API's default, DESIGN.md).
pub(crate) fn element_key(keys: &[String], e: &D) -> String {
    keys.iter()
        .map(|k| match e.get(k) {
            Some(v) if *v != D::Null => v.key_text(),
            _ if k == "protocol" => "TCP".into(),
            _ => String::new(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether two values are the same data: maps by key, keyed lists by element key (where an
/// element goes in a keyed list is a matter of text), other lists in order. `path` is the
/// schema path (`spec.ports`, `spec.template.spec.containers[].env`).
pub(crate) fn same(gk: &str, path: &str, x: Option<&D>, y: Option<&D>) -> bool {
    match (x, y) {
        (None, None) => true,
        (Some(a), Some(b)) => same_data(gk, path, a, b),
        _ => false,
    }
}

pub(crate) fn same_data(gk: &str, path: &str, a: &D, b: &D) -> bool {
    match (a, b) {
        (D::Map(x), D::Map(y)) => {
            x.len() == y.len()
                && x.iter().all(|(k, v)| {
                    y.get(k)
                        .is_some_and(|w| same_data(gk, &join(path, k), v, w))
                })
        }
        (D::Seq(x), D::Seq(y)) => {
            let elem_path = format!("{path}[]");
            if x.len() != y.len() {
                return false;
            }
            match list_kind(gk, path, &[x, y]) {
                ListKind::Keyed(keys) => {
                    let index: HashMap<String, &D> =
                        y.iter().map(|e| (element_key(&keys, e), e)).collect();
                    x.iter().all(|e| {
                        index
                            .get(&element_key(&keys, e))
                            .is_some_and(|f| same_data(gk, &elem_path, e, f))
                    })
                }
                _ => x
                    .iter()
                    .zip(y)
                    .all(|(e, f)| same_data(gk, &elem_path, e, f)),
            }
        }
        _ => a == b,
    }
}

/// Whether `side` is `base` with only parts taken away (keys, elements): a change that a
/// deletion of the whole value on the other side takes in.
pub(crate) fn only_removes(base: &D, side: &D) -> bool {
    match (base, side) {
        (D::Map(b), D::Map(s)) => s
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| only_removes(w, v))),
        (D::Seq(b), D::Seq(s)) => {
            let mut left: Vec<&D> = b.iter().collect();
            s.iter().all(|e| match left.iter().position(|x| *x == e) {
                Some(i) => {
                    left.remove(i);
                    true
                }
                None => false,
            })
        }
        _ => base == side,
    }
}

/// Where `got` first differs from `want`, which are not the same data, and how: "the result
/// must be X, it is Y", with the place below the value that differs when it is a collection.
pub(crate) fn difference(
    gk: &str,
    path: &str,
    at: &str,
    want: Option<&D>,
    got: Option<&D>,
) -> String {
    let here = |s: String| {
        if at.is_empty() {
            s
        } else {
            format!("at {at} {s}")
        }
    };
    let plain = || {
        here(format!(
            "the result must be {}, it is {}",
            flow(want),
            flow(got)
        ))
    };
    match (want, got) {
        (Some(D::Map(w)), Some(D::Map(g))) => {
            let keys: std::collections::BTreeSet<&String> = w.keys().chain(g.keys()).collect();
            for k in keys {
                if !same(gk, &join(path, k), w.get(k), g.get(k)) {
                    return difference(gk, &join(path, k), &join(at, k), w.get(k), g.get(k));
                }
            }
            plain()
        }
        (Some(D::Seq(w)), Some(D::Seq(g))) => match list_kind(gk, path, &[w, g]) {
            ListKind::Keyed(keys) => {
                let index = |l: &[D]| -> BTreeMap<String, D> {
                    l.iter()
                        .map(|e| (element_key(&keys, e), e.clone()))
                        .collect()
                };
                let (wi, gi) = (index(w), index(g));
                if gi.len() < g.len() {
                    return here(format!("an element key is twice in {}", flow(got)));
                }
                let keys: std::collections::BTreeSet<&String> =
                    wi.keys().chain(gi.keys()).collect();
                let elem_path = format!("{path}[]");
                for k in keys {
                    if !same(gk, &elem_path, wi.get(k), gi.get(k)) {
                        let at = format!("{at}[{k}]");
                        return difference(gk, &elem_path, &at, wi.get(k), gi.get(k));
                    }
                }
                plain()
            }
            _ => plain(),
        },
        _ => plain(),
    }
}

/// A violation at `at`.
pub(crate) fn violation(at: &str, what: String) -> Result<(), String> {
    Err(format!(
        "{}: {what}",
        if at.is_empty() { "(root)" } else { at }
    ))
}

/// Checks `r`, the clean result at one place, against base, ours and theirs there (each may
/// be absent): the mark-mode invariant. `gk` is the document's `group/Kind`, `path` the schema
/// path, `at` the place for messages.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_value(
    gk: &str,
    path: &str,
    at: &str,
    b: Option<&D>,
    o: Option<&D>,
    t: Option<&D>,
    r: Option<&D>,
) -> Result<(), String> {
    let want = |x: Option<&D>, why: &str| {
        if same(gk, path, r, x) {
            Ok(())
        } else {
            violation(at, format!("{why}: {}", difference(gk, path, "", x, r)))
        }
    };
    if same(gk, path, o, t) {
        return want(o, "ours and theirs agree");
    }
    if same(gk, path, b, o) {
        return want(t, "only theirs changed it");
    }
    if same(gk, path, b, t) {
        return want(o, "only ours changed it");
    }
    // Both changed it, differently.
    match (b, o, t) {
        (Some(_), None, Some(D::Null)) | (Some(_), Some(D::Null), None) => {
            return want(None, "one side deleted it, the other set it to null");
        }
        (Some(base), None, Some(side)) | (Some(base), Some(side), None) => {
            if only_removes(base, side) {
                return want(None, "one side deleted it, the other only took parts away");
            }
            let who = if o.is_none() { "ours" } else { "theirs" };
            return violation(
                at,
                format!(
                    "{who} deleted what the other side changed (base {}, ours {}, theirs {}): \
                     a clean result ({}) loses a change, it must be a conflict",
                    flow(b),
                    flow(o),
                    flow(t),
                    flow(r)
                ),
            );
        }
        _ => {}
    }
    let (Some(ov), Some(tv)) = (o, t) else {
        unreachable!("with ours or theirs absent, one of the agreements above holds")
    };
    // Base as the kind both sides have, absent or null counting as empty; anything else is
    // a change of type on both sides.
    let both_changed = || {
        violation(
            at,
            format!(
                "both changed it differently (base {}, ours {}, theirs {}): a clean result ({}) \
                 must be a conflict",
                flow(b),
                flow(o),
                flow(t),
                flow(r)
            ),
        )
    };
    match (ov, tv) {
        (D::Map(om), D::Map(tm)) => {
            let empty = BTreeMap::new();
            let bm = match b {
                None | Some(D::Null) => &empty,
                Some(D::Map(m)) => m,
                Some(_) => return both_changed(),
            };
            let Some(D::Map(rm)) = r else {
                return violation(
                    at,
                    format!("both changed this map: the result is {}", flow(r)),
                );
            };
            let keys: std::collections::BTreeSet<&String> = bm
                .keys()
                .chain(om.keys())
                .chain(tm.keys())
                .chain(rm.keys())
                .collect();
            let found = keys.into_iter().try_for_each(|k| {
                check_value(
                    gk,
                    &join(path, k),
                    &join(at, k),
                    bm.get(k),
                    om.get(k),
                    tm.get(k),
                    rm.get(k),
                )
            });
            let refs = |m| -> Keyed { keyed_map(m) };
            let (bk, ok, tk, rk) = (refs(bm), refs(om), refs(tm), refs(rm));
            if found.is_err() && incomplete(&bk, &ok, &tk) {
                if let Some(rows) = rows_by_likeness(&bk, &ok, &tk, &rk, &[]) {
                    let alike = rows
                        .into_iter()
                        .try_for_each(|[b, o, t, r]| check_value(gk, path, at, b, o, t, r));
                    if alike.is_ok() {
                        return Ok(());
                    }
                }
            }
            found
        }
        (D::Seq(ol), D::Seq(tl)) => {
            let empty = Vec::new();
            let bl = match b {
                None | Some(D::Null) => &empty,
                Some(D::Seq(l)) => l,
                Some(_) => return both_changed(),
            };
            let Some(D::Seq(rl)) = r else {
                return violation(
                    at,
                    format!("both changed this list: the result is {}", flow(r)),
                );
            };
            match list_kind(gk, path, &[bl, ol, tl]) {
                ListKind::Keyed(keys) => check_keyed(gk, path, at, &keys, bl, ol, tl, rl),
                ListKind::Set | ListKind::Plain => check_plain(gk, path, at, bl, ol, tl, rl),
            }
        }
        (D::Str(os), D::Str(ts)) if os.contains('\n') || ts.contains('\n') => {
            let bs = match b {
                None | Some(D::Null) => "",
                Some(D::Str(x)) => x,
                Some(_) => return both_changed(),
            };
            match line_merge3(bs, os, ts) {
                Some(merged) => want(
                    Some(&D::Str(merged)),
                    "both changed this text: the clean line-by-line merge",
                ),
                None => violation(
                    at,
                    format!(
                        "both changed this text on the same lines: a clean result ({}) must \
                         be a conflict",
                        flow(r)
                    ),
                ),
            }
        }
        _ => both_changed(),
    }
}

/// A keyed list both sides changed: element by element, and no key twice in the result.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_keyed(
    gk: &str,
    path: &str,
    at: &str,
    keys: &[String],
    b: &[D],
    o: &[D],
    t: &[D],
    r: &[D],
) -> Result<(), String> {
    let index = |l: &[D]| -> BTreeMap<String, D> {
        l.iter()
            .map(|e| (element_key(keys, e), e.clone()))
            .collect()
    };
    let rk = index(r);
    if rk.len() < r.len() {
        return violation(
            at,
            format!(
                "an element key appears twice in the result {}",
                flow(Some(&D::Seq(r.to_vec())))
            ),
        );
    }
    let (bk, mut ok, mut tk) = (index(b), index(o), index(t));
    let mut rk = rk;
    // An element one side renamed, paired like a renamed resource: it is checked under its
    // base key, and the result's element under that side's new key with it.
    let keys_of = |l: &[D]| -> Vec<String> { l.iter().map(|e| element_key(keys, e)).collect() };
    for (side, other, sk) in [(o, t, &mut ok), (t, o, &mut tk)] {
        if let Some((old, new)) =
            renamed_element(&keys_of(b), &keys_of(side), &keys_of(other), b, side)
        {
            if let Some(e) = sk.remove(&new) {
                sk.insert(old.clone(), e);
            }
            if !rk.contains_key(&old) {
                if let Some(e) = rk.remove(&new) {
                    rk.insert(old, e);
                }
            }
        }
    }
    let all: std::collections::BTreeSet<&String> = bk
        .keys()
        .chain(ok.keys())
        .chain(tk.keys())
        .chain(rk.keys())
        .collect();
    let elem_path = format!("{path}[]");
    let found = all.into_iter().try_for_each(|k| {
        check_value(
            gk,
            &elem_path,
            &format!("{at}[{k}]"),
            bk.get(k),
            ok.get(k),
            tk.get(k),
            rk.get(k),
        )
    });
    let (bk, ok, tk, rk) = (
        keyed_list(keys, b),
        keyed_list(keys, o),
        keyed_list(keys, t),
        keyed_list(keys, r),
    );
    if found.is_err() && incomplete(&bk, &ok, &tk) {
        let skip: Vec<&str> = keys.iter().map(String::as_str).collect();
        if let Some(rows) = rows_by_likeness(&bk, &ok, &tk, &rk, &skip) {
            let alike = rows
                .into_iter()
                .try_for_each(|[b, o, t, r]| check_value(gk, &elem_path, at, b, o, t, r));
            if alike.is_ok() {
                return Ok(());
            }
        }
    }
    found
}

/// DESIGN.md's rename rule for list elements, as (base key, side's new key): exactly one
/// base element the other side kept is missing from `side`, exactly one of `side`'s keys is
/// in neither base nor the other side, both follow the same element base and `side` share,
/// and their content is mostly the same.
pub(crate) fn renamed_element(
    bk: &[String],
    sk: &[String],
    other: &[String],
    b: &[D],
    side: &[D],
) -> Option<(String, String)> {
    let gone: Vec<usize> = (0..bk.len())
        .filter(|&i| !sk.contains(&bk[i]) && other.contains(&bk[i]))
        .collect();
    let new: Vec<usize> = (0..sk.len())
        .filter(|&i| !bk.contains(&sk[i]) && !other.contains(&sk[i]))
        .collect();
    let (&[bi], &[si]) = (&gone[..], &new[..]) else {
        return None;
    };
    let before = |v: &[String], i: usize, shared: &[String]| {
        v[..i].iter().rev().find(|k| shared.contains(k)).cloned()
    };
    (before(bk, bi, sk) == before(sk, si, bk) && similar_content(&b[bi], &side[si]))
        .then(|| (bk[bi].clone(), sk[si].clone()))
}

/// Where a side's copies of element `v` stand: each after the nearest base element before it
/// (`None` at the start), in order.
pub(crate) fn places<'d>(base: &[D], side: &'d [D], v: &D) -> Vec<Option<&'d D>> {
    let mut before = None;
    let mut out = Vec::new();
    for x in side {
        if x == v {
            out.push(before);
        } else if base.contains(x) {
            before = Some(x);
        }
    }
    out
}

/// A list without a key both sides changed: each element's count is base's plus both
/// sides' differences (an identical difference once); an element of no version is only a
/// field-level merge of one base element both sides modified; elements once in every
/// version keep the order both sides agree on, or the changed side's.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_plain(
    gk: &str,
    path: &str,
    at: &str,
    b: &[D],
    o: &[D],
    t: &[D],
    r: &[D],
) -> Result<(), String> {
    let counts = |l: &[D]| -> BTreeMap<D, i64> {
        let mut m = BTreeMap::new();
        for e in l {
            *m.entry(e.clone()).or_insert(0) += 1;
        }
        m
    };
    let (cb, co, ct, cr) = (counts(b), counts(o), counts(t), counts(r));
    let n = |m: &BTreeMap<D, i64>, v: &D| m.get(v).copied().unwrap_or(0);
    let mut expected: BTreeMap<D, i64> = BTreeMap::new();
    // Both sides removing as many copies of an element base holds more than once may have
    // removed the same copy or different ones: as many fewer are right too.
    let mut fewer: BTreeMap<D, i64> = BTreeMap::new();
    let mut more: BTreeMap<D, i64> = BTreeMap::new();
    for v in cb.keys().chain(co.keys()).chain(ct.keys()) {
        let base = n(&cb, v);
        let (d_o, d_t) = (n(&co, v) - base, n(&ct, v) - base);
        let count = if d_o == d_t {
            base + d_o
        } else {
            base + d_o + d_t
        };
        expected.insert(v.clone(), count.max(0));
        if d_o == d_t && d_o < 0 && base > 1 {
            fewer.insert(v.clone(), -d_o);
        }
        // Both sides adding as many copies of an element added them at one place (one
        // addition) or at two (two, as git's line merge keeps them): either is right.
        if d_o == d_t && d_o > 0 && places(b, o, v) != places(b, t, v) {
            more.insert(v.clone(), d_o);
        }
    }
    let shown = |l: &[D]| flow(Some(&D::Seq(l.to_vec())));
    let context = || {
        format!(
            "(base {}, ours {}, theirs {}, result {})",
            shown(b),
            shown(o),
            shown(t),
            shown(r)
        )
    };
    // Elements of no version: each must merge one base element both sides replaced, with
    // ours' and theirs' replacements, which it then stands for.
    let elem_path = format!("{path}[]");
    for (e_r, times) in &cr {
        if expected.contains_key(e_r) {
            continue;
        }
        for _ in 0..*times {
            let replaced = |e: &D| n(&co, e) < n(&cb, e) && n(&ct, e) < n(&cb, e);
            let mut found = None;
            'search: for e_b in cb.keys().filter(|e| replaced(e)) {
                for e_o in co
                    .keys()
                    .filter(|e| n(&co, e) > n(&cb, e) && expected[*e] > 0)
                {
                    for e_t in ct
                        .keys()
                        .filter(|e| n(&ct, e) > n(&cb, e) && expected[*e] > 0)
                    {
                        let ok = check_value(
                            gk,
                            &elem_path,
                            at,
                            Some(e_b),
                            Some(e_o),
                            Some(e_t),
                            Some(e_r),
                        );
                        if ok.is_ok() {
                            found = Some((e_o.clone(), e_t.clone()));
                            break 'search;
                        }
                    }
                }
            }
            let Some((e_o, e_t)) = found else {
                return violation(
                    at,
                    format!(
                        "the element {} is in no version and merges no base element both sides \
                         modified {}",
                        flow(Some(e_r)),
                        context()
                    ),
                );
            };
            *expected.get_mut(&e_o).expect("counted") -= 1;
            *expected.get_mut(&e_t).expect("counted") -= 1;
        }
    }
    // The merge of a base element both sides replaced may also be one side's version itself
    // (that side's change contains the other's): it then stands for both versions.
    'versions: loop {
        let short = |e: &D, expected: &BTreeMap<D, i64>| n(&cr, e) < expected[e];
        let replaced = |e: &D| n(&co, e) < n(&cb, e) && n(&ct, e) < n(&cb, e);
        for e_b in cb.keys().filter(|e| replaced(e)) {
            for e_o in co.keys().filter(|e| n(&co, e) > n(&cb, e)) {
                for e_t in ct.keys().filter(|e| n(&ct, e) > n(&cb, e) && *e != e_o) {
                    let (o_short, t_short) = (short(e_o, &expected), short(e_t, &expected));
                    // One side's version stands in the result for both: the other one is missing.
                    let stands = if o_short && !t_short && expected[e_t] > 0 {
                        Some(e_t)
                    } else if t_short && !o_short && expected[e_o] > 0 {
                        Some(e_o)
                    } else {
                        None
                    };
                    let Some(m) = stands else { continue };
                    let merged =
                        check_value(gk, &elem_path, at, Some(e_b), Some(e_o), Some(e_t), Some(m));
                    if merged.is_ok() {
                        let other = if m == e_t { e_o } else { e_t };
                        *expected.get_mut(other).expect("counted") -= 1;
                        continue 'versions;
                    }
                }
            }
        }
        break;
    }
    for (v, want) in &expected {
        let got = n(&cr, v);
        let lowest = (want - fewer.get(v).copied().unwrap_or(0)).max(0);
        let highest = want + more.get(v).copied().unwrap_or(0);
        if got > highest || got < lowest {
            return violation(
                at,
                format!(
                    "{} is in the result {got} times, not {want} {}",
                    flow(Some(v)),
                    context()
                ),
            );
        }
    }
    // Relative order of the elements that are once in every version.
    let once: Vec<&D> = cb
        .keys()
        .filter(|v| [&cb, &co, &ct, &cr].iter().all(|m| n(m, v) == 1))
        .collect();
    let pos = |l: &[D], v: &D| l.iter().position(|x| x == v).expect("present once");
    // Where each side moved one of two elements (or the side that kept their order moved one
    // itself), the two moves decide their order together, as git's merge of the sequences
    // does, whatever order each side shows: no order is wanted.
    let (moved_o, moved_t) = (moved(&once, b, o), moved(&once, b, t));
    for (i, x) in once.iter().enumerate() {
        for y in &once[i + 1..] {
            let before = |l: &[D]| pos(l, x) < pos(l, y);
            let (in_b, in_o, in_t) = (before(b), before(o), before(t));
            let wanted = if in_o == in_t || in_o == in_b {
                in_t
            } else {
                in_o
            };
            let kept_by = if in_o == in_t {
                None
            } else if in_o == in_b {
                Some(&moved_o)
            } else {
                Some(&moved_t)
            };
            let crossed = |m: &[&D], n: &[&D]| m.contains(x) && n.contains(y);
            if kept_by.is_some_and(|m| m.contains(x) || m.contains(y))
                || crossed(&moved_o, &moved_t)
                || crossed(&moved_t, &moved_o)
            {
                continue;
            }
            if before(r) != wanted {
                let (first, second) = if wanted { (x, y) } else { (y, x) };
                return violation(
                    at,
                    format!(
                        "{} must come before {} {}",
                        flow(Some(first)),
                        flow(Some(second)),
                        context()
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The elements of `once` that `side` moved: those off a longest run of them it keeps in
/// base's order.
fn moved<'d>(once: &[&'d D], base: &[D], side: &[D]) -> Vec<&'d D> {
    let pos = |l: &[D], v: &D| l.iter().position(|x| x == v).unwrap_or(0);
    let mut in_side: Vec<&D> = once.to_vec();
    in_side.sort_by_key(|v| pos(side, v));
    let n = in_side.len();
    // Longest run of increasing base positions, by the quadratic table (short lists).
    let (mut len, mut prev) = (vec![1usize; n], vec![None; n]);
    for i in 0..n {
        for j in 0..i {
            if pos(base, in_side[j]) < pos(base, in_side[i]) && len[j] + 1 > len[i] {
                len[i] = len[j] + 1;
                prev[i] = Some(j);
            }
        }
    }
    let mut kept = vec![false; n];
    let mut at = (0..n).max_by_key(|&i| len[i]);
    while let Some(i) = at {
        kept[i] = true;
        at = prev[i];
    }
    (0..n).filter(|&i| !kept[i]).map(|i| in_side[i]).collect()
}

/// git's clean line-by-line 3-way merge of three texts, or `None` where it conflicts. A
/// text without a final newline gets one for git and loses it again, the same on every side.
pub(crate) fn line_merge3(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // The final line break (a block scalar's chomping) is merged on its own, like a header.
    let ends = |t: &str| t.ends_with('\n');
    let trailing = if ends(ours) == ends(theirs) || ends(base) == ends(theirs) {
        ends(ours)
    } else {
        ends(theirs)
    };
    for (name, text) in [("base", base), ("ours", ours), ("theirs", theirs)] {
        let mut text = text.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        std::fs::write(dir.path().join(name), text).expect("writing a temporary file");
    }
    let (bytes, code) = common::git_merge_file(dir.path(), "ours", "base", "theirs");
    if code != 0 {
        return None;
    }
    let mut merged = String::from_utf8(bytes).expect("git merged UTF-8 text");
    if !trailing && merged.ends_with('\n') {
        merged.pop();
    }
    Some(merged)
}

/// Documents by identity; those with neither kind nor name by position among such. `None`
/// when an identity is repeated.
pub(crate) fn documents_by_identity(docs: &[D]) -> Option<BTreeMap<String, &D>> {
    let mut out = BTreeMap::new();
    let mut anonymous = 0;
    for d in docs {
        let named =
            d.get("kind").is_some() || d.get("metadata").and_then(|m| m.get("name")).is_some();
        let id = if named {
            identity(d)
        } else {
            anonymous += 1;
            format!("#{anonymous}")
        };
        if out.insert(id, d).is_some() {
            return None;
        }
    }
    Some(out)
}

/// The mark-mode invariant on a whole clean result: documents paired by identity (one in
/// each version pair whatever their identities), each checked by [`check_value`].
pub(crate) fn check_invariant(b: &[D], o: &[D], t: &[D], r: &[D]) -> Result<(), String> {
    let gk = |ds: [Option<&D>; 4]| {
        ds.into_iter()
            .flatten()
            .next()
            .map(group_kind)
            .unwrap_or_default()
    };
    if b.len() == 1 && o.len() == 1 && t.len() == 1 {
        if r.len() > 1 {
            return Err(format!(
                "each version has one document, the result has {}",
                r.len()
            ));
        }
        let (b, o, t, r) = (b.first(), o.first(), t.first(), r.first());
        return check_value(&gk([o, t, b, r]), "", "", b, o, t, r);
    }
    let (Some(bi), Some(oi), Some(ti)) = (
        documents_by_identity(b),
        documents_by_identity(o),
        documents_by_identity(t),
    ) else {
        // An input with one identity twice goes to git's line merge; nothing to pair:
        // `gaps::INVARIANT_SKIPS_REPEATED_IDENTITIES`.
        return Ok(());
    };
    let Some(ri) = documents_by_identity(r) else {
        let ids: Vec<String> = r.iter().map(identity).collect();
        return Err(format!(
            "an identity appears twice in the result, in no input twice: {ids:?}"
        ));
    };
    let ids: std::collections::BTreeSet<&String> = bi
        .keys()
        .chain(oi.keys())
        .chain(ti.keys())
        .chain(ri.keys())
        .collect();
    // DESIGN.md's rename rule: a document only one side lost, and the one document only
    // that side added, are one resource renamed when the identities differ in one part and
    // half their content is the same.
    let mut renamed: BTreeMap<&String, &String> = BTreeMap::new();
    let one_part_apart = |from: &str, to: &str| {
        let parts = |id: &str| id.split('/').map(str::to_string).collect::<Vec<_>>();
        parts(from)
            .iter()
            .zip(parts(to))
            .filter(|(a, b)| *a != b)
            .count()
            <= 1
    };
    for (side, other, docs) in [(&oi, &ti, o), (&ti, &oi, t)] {
        let lost: Vec<&String> = bi
            .keys()
            .filter(|id| !side.contains_key(*id) && other.contains_key(*id))
            .collect();
        let added: Vec<&String> = side
            .keys()
            .filter(|id| !bi.contains_key(*id) && !other.contains_key(*id))
            .collect();
        if let (&[from], &[to]) = (lost.as_slice(), added.as_slice()) {
            if one_part_apart(from, to) && similar_content(bi[from], side[to]) {
                renamed.insert(from, to);
            }
            continue;
        }
        // Several renames: a lost document pairs with the new one at its position.
        for from in lost {
            let Some(p) = b.iter().position(|d| identity(d) == *from) else {
                continue;
            };
            let Some(to) = docs.get(p).map(identity) else {
                continue;
            };
            let Some((to, doc)) = side.get_key_value(&to) else {
                continue;
            };
            if added.contains(&to)
                && !renamed.values().any(|x| *x == to)
                && one_part_apart(from, to)
                && similar_content(bi[from], doc)
            {
                renamed.insert(from, to);
            }
        }
    }
    let by_identity = || -> Result<(), String> {
        for &id in &ids {
            if renamed.values().any(|to| *to == id) {
                continue; // checked with the document it renames
            }
            let (b, mut o, mut t, mut r) = (
                bi.get(id).copied(),
                oi.get(id).copied(),
                ti.get(id).copied(),
                ri.get(id).copied(),
            );
            if let Some(&to) = renamed.get(id) {
                o = o.or_else(|| oi.get(to).copied());
                t = t.or_else(|| ti.get(to).copied());
                r = r.or_else(|| ri.get(to).copied());
            }
            check_value(&gk([o, t, b, r]), "", id, b, o, t, r)?;
        }
        Ok(())
    };
    let found = by_identity();
    if found.is_err() && incomplete(&bi, &oi, &ti) {
        if let Some(rows) = rows_by_likeness(&bi, &oi, &ti, &ri, &IDENTITY_FIELDS) {
            let alike = rows.into_iter().try_for_each(|[b, o, t, r]| {
                let at = [o, t, b, r].into_iter().flatten().next().map(identity);
                check_value(&gk([o, t, b, r]), "", &at.unwrap_or_default(), b, o, t, r)
            });
            if alike.is_ok() {
                return Ok(());
            }
        }
    }
    found
}
