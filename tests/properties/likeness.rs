//! The invariant's second reading: items of base, ours, theirs and the result paired by
//! likeness where an identity alone cannot pair them (renames).

use super::*;

/// Whether two documents share at least half their scalar leaves (by field path, list
/// positions and identity fields left out): a rename, not a new resource.
pub(crate) fn similar_content(a: &D, b: &D) -> bool {
    2.0 * likeness(a, b, &IDENTITY_FIELDS) >= 1.0 - f64::EPSILON
}

/// A document's fields that make up its identity.
pub(crate) const IDENTITY_FIELDS: [&str; 4] =
    ["apiVersion", "kind", "metadata.name", "metadata.namespace"];

/// A value's scalar leaves as (field path with list positions left out, value), the fields
/// in `skip` left out.
pub(crate) fn leaves(d: &D, skip: &[&str]) -> Vec<(String, String)> {
    fn walk(d: &D, path: String, skip: &[&str], out: &mut Vec<(String, String)>) {
        match d {
            D::Map(m) => {
                for (k, v) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    if !skip.contains(&p.as_str()) {
                        walk(v, p, skip, out);
                    }
                }
            }
            D::Seq(items) => {
                for x in items {
                    walk(x, format!("{path}[]"), skip, out);
                }
            }
            leaf => out.push((path, format!("{leaf:?}"))),
        }
    }
    let mut out = Vec::new();
    walk(d, String::new(), skip, &mut out);
    out.sort();
    out
}

/// The share of the larger value's leaves two values have in common (1 for two values with
/// no leaves).
pub(crate) fn likeness(a: &D, b: &D, skip: &[&str]) -> f64 {
    let (la, lb) = (leaves(a, skip), leaves(b, skip));
    let mut pool = lb.clone();
    let common = la
        .iter()
        .filter(|l| match pool.iter().position(|x| x == *l) {
            Some(i) => {
                pool.swap_remove(i);
                true
            }
            None => false,
        })
        .count();
    if la.is_empty() && lb.is_empty() {
        return 1.0;
    }
    common as f64 / la.len().max(lb.len()) as f64
}

/// Items of base, ours, theirs and the result by identity (document identity, map key,
/// element key): the rows of a second reading, by likeness, written for this oracle alone.
/// A base item a side has no item of is that side's new item of the same content, or the
/// most alike (at least half its leaves, no other as alike); where the other side renamed
/// it to an identity this side has too, new to it and at least as alike as its item of the
/// old identity, that one. Items new to both sides pair by identity; the result's item is
/// the one of the identity the row's sides give it. `None` where two rows claim one.
pub(crate) type Keyed<'a> = BTreeMap<String, &'a D>;

pub(crate) fn rows_by_likeness<'a>(
    b: &Keyed<'a>,
    o: &Keyed<'a>,
    t: &Keyed<'a>,
    r: &Keyed<'a>,
    skip: &[&str],
) -> Option<Vec<[Option<&'a D>; 4]>> {
    let pair = |side: &Keyed<'a>| -> BTreeMap<String, String> {
        let mut pairs: BTreeMap<String, String> = BTreeMap::new();
        let mut taken: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for k in b.keys().filter(|k| side.contains_key(*k)) {
            pairs.insert(k.clone(), k.clone());
            taken.insert(k.clone());
        }
        let open = |taken: &std::collections::BTreeSet<String>| -> Vec<String> {
            side.keys()
                .filter(|k| !b.contains_key(*k) && !taken.contains(*k))
                .filter(|k| !leaves(side[*k], skip).is_empty())
                .cloned()
                .collect()
        };
        let unpaired: Vec<(&String, &&D)> =
            b.iter().filter(|(k, _)| !pairs.contains_key(*k)).collect();
        for (k, v) in unpaired {
            if leaves(v, skip).is_empty() {
                continue;
            }
            let same = open(&taken)
                .into_iter()
                .find(|n| leaves(side[n], skip) == leaves(v, skip));
            if let Some(n) = same {
                taken.insert(n.clone());
                pairs.insert(k.clone(), n);
            }
        }
        let mut scored: Vec<(f64, String, String)> = Vec::new();
        for (k, v) in b.iter().filter(|(k, _)| !pairs.contains_key(*k)) {
            for n in open(&taken) {
                let score = likeness(v, side[&n], skip);
                if score >= 0.5 && !leaves(v, skip).is_empty() {
                    scored.push((score, k.clone(), n));
                }
            }
        }
        scored.sort_by(|x, y| y.0.total_cmp(&x.0));
        for (score, k, n) in &scored {
            if pairs.contains_key(k) || taken.contains(n) {
                continue;
            }
            let tie = scored.iter().any(|(s2, k2, n2)| {
                s2 == score
                    && ((k2 == k && n2 != n && !taken.contains(n2))
                        || (n2 == n && k2 != k && !pairs.contains_key(k2)))
            });
            if !tie {
                taken.insert(n.clone());
                pairs.insert(k.clone(), n.clone());
            }
        }
        pairs
    };
    let mut sides = [pair(o), pair(t)];
    // Both sides gave an item one new identity (both dropped its namespace), one side
    // changing it too much to read as alike: the same new identity is the rename.
    for s in 0..2 {
        let (versions, other) = ([o, t][s], sides[1 - s].clone());
        for (k, renamed) in &other {
            if renamed == k || b.contains_key(renamed) || sides[s].contains_key(k) {
                continue;
            }
            let taken = sides[s].values().any(|v| v == renamed);
            if !taken && versions.contains_key(renamed) {
                sides[s].insert(k.clone(), renamed.clone());
            }
        }
    }
    // Both sides renamed an item alike, one keeping a new item under the old identity.
    for s in 0..2 {
        let (versions, other) = ([o, t][s], sides[1 - s].clone());
        for (k, renamed) in &other {
            if renamed == k || b.contains_key(renamed) || sides[s].get(k) != Some(k) {
                continue;
            }
            let taken = sides[s].values().any(|v| v == renamed);
            let (Some(alt), Some(mine)) = (versions.get(renamed), versions.get(k)) else {
                continue;
            };
            if !taken && likeness(b[k], alt, skip) >= likeness(b[k], mine, skip) {
                sides[s].insert(k.clone(), renamed.clone());
            }
        }
    }
    let mut rows: Vec<[Option<String>; 3]> = b
        .keys()
        .map(|k| {
            [
                Some(k.clone()),
                sides[0].get(k).cloned(),
                sides[1].get(k).cloned(),
            ]
        })
        .collect();
    let paired = |s: usize, n: &String| sides[s].values().any(|v| v == n);
    for n in o.keys().filter(|n| !paired(0, n)) {
        let both = t.contains_key(n) && !paired(1, n);
        rows.push([None, Some(n.clone()), both.then(|| n.clone())]);
    }
    for n in t.keys().filter(|n| !paired(1, n)) {
        if !o.contains_key(n) || paired(0, n) {
            rows.push([None, None, Some(n.clone())]);
        }
    }
    let mut claimed = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for [kb, ko, kt] in rows {
        let want = match (&kb, &ko, &kt) {
            (_, Some(x), Some(y)) if x == y => Some(x),
            (k, Some(x), Some(y)) if k.as_ref() == Some(x) => Some(y),
            (k, Some(x), Some(y)) if k.as_ref() == Some(y) => Some(x),
            (_, Some(_), Some(_)) => None,
            (_, Some(x), None) => Some(x),
            (_, None, Some(y)) => Some(y),
            (_, None, None) => None,
        };
        let rr = want.and_then(|w| r.get(w).copied());
        if let Some(w) = want.filter(|w| r.contains_key(*w)) {
            if !claimed.insert(w.clone()) {
                return None;
            }
        }
        let get = |m: &Keyed<'a>, k: &Option<String>| k.as_ref().and_then(|k| m.get(k).copied());
        out.push([get(b, &kb), get(o, &ko), get(t, &kt), rr]);
    }
    for (_, v) in r.iter().filter(|(k, _)| !claimed.contains(*k)) {
        out.push([None, None, None, Some(*v)]);
    }
    Some(out)
}

/// A map's entries as keyed items.
pub(crate) fn keyed_map(m: &BTreeMap<String, D>) -> Keyed<'_> {
    m.iter().map(|(k, v)| (k.clone(), v)).collect()
}

/// A keyed list's elements as keyed items.
pub(crate) fn keyed_list<'a>(keys: &[String], l: &'a [D]) -> Keyed<'a> {
    l.iter().map(|e| (element_key(keys, e), e)).collect()
}

/// Whether a version lacks an item of `keys` another version has: where a rename can hide.
pub(crate) fn incomplete(b: &Keyed, o: &Keyed, t: &Keyed) -> bool {
    b.keys()
        .chain(o.keys())
        .chain(t.keys())
        .any(|k| !(b.contains_key(k) && o.contains_key(k) && t.contains_key(k)))
}
