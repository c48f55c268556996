//! Documents of the result paired with the documents of base, ours and theirs (by the
//! verifier's own reading, see [`super::pairing`]), each then checked as a value.

use std::collections::{HashMap, HashSet};

use crate::parse::{NodeId, Tree, Versions};
use crate::resource::Path;

use super::identity::{documents, repeated, Document, Identity, IDENTITY_FIELDS};
use super::pairing::{by_key, by_likeness, by_likeness_where, identity_of_row, Item, Leaves, Row};
use super::values::{same, Checker};
use super::{Rule, Taken, Verdict};

/// Checks a parsed result against the three versions.
pub(crate) fn check(versions: &Versions, result: &Tree, rule: Rule) -> Verdict {
    let trees = [&versions.base, &versions.ours, &versions.theirs, result];
    let docs = trees.map(documents);
    let items = docs.each_ref().map(|d| items(d));
    let refs = items.each_ref().map(Vec::as_slice);
    let mut checker = Checker::new(versions, result, rule);
    let rows = by_identity(&docs, refs);
    let mut found = checker.attempt(|c| c.documents(&docs, &rows));
    // Under ours, a document one side lacks by identity and the other changed is decided by
    // ours (ours' deletion wins, ours' change stays); but where the side that lacks it holds
    // it clearly renamed, it is no deletion, and the other side's change belongs in the
    // renamed document. The identity reading alone accepted a merge that dropped theirs'
    // change (adversary templates-ours-1137-138: a resource ours re-namespaced beside a copy
    // under a new name and namespace), so there the result must hold the rename's reading too.
    //
    // So too for a conflict's side: read by identity, a document both sides renamed apart is
    // two additions, and a side holding both renamed copies held them all, though no version
    // holds the resource twice (adversary manifests-mark-1251-1436: ours and theirs each moved
    // an Ingress to a namespace of their own, documents reordered; the merge paired theirs'
    // copy with base's and read ours' as an addition, so the delete/modify conflict's theirs
    // side kept both copies). Read as one document both renamed, the copy of the side not
    // taken stands where no row expects it.
    if found.is_empty() && matches!(rule, Rule::Ours | Rule::Resolved(_)) {
        // A document both sides lack by identity, both holding it renamed: the rows read so.
        let joined = rows.iter().filter_map(|r| renamed_by_both(&docs, r)).fold(
            None,
            |acc: Option<Vec<Row>>, (b, o, t)| {
                Some(join(
                    acc.unwrap_or_else(|| rows.clone()),
                    &docs,
                    b,
                    o,
                    t,
                    rule,
                ))
            },
        );
        if let Some(joined) = joined {
            found = checker.attempt(|c| c.documents(&docs, &joined));
        }
    }
    if found.is_empty() && rule == Rule::Ours {
        let renames: Vec<(usize, usize, usize)> = rows
            .iter()
            .filter_map(|r| checker.decided_a_deletion(&docs, r))
            .filter_map(|(b, side)| Some((b, side, clear_rename(&docs, b, side)?)))
            .collect();
        let renamed = (!renames.is_empty())
            .then(|| {
                by_likeness_where(
                    trees,
                    refs,
                    &IDENTITY_FIELDS,
                    rule.winner(),
                    |side, b, s| kept(&docs, side, b, s),
                )
            })
            .flatten()
            .filter(|rows| {
                renames.iter().all(|&(b, side, s)| {
                    rows.iter()
                        .any(|r| r.0[0] == Some(b) && r.0[side] == Some(s))
                })
            });
        if let Some(rows) = renamed {
            found = checker.attempt(|c| c.documents(&docs, &rows));
        }
    }
    if !found.is_empty() && rows.iter().any(Row::incomplete) {
        let skip: &[&str] = &IDENTITY_FIELDS;
        let alike = by_likeness(trees, refs, skip, rule.winner())
            .map(|rows| kept_identity_taken_whole(rows, &docs, refs, rule))
            .map(|rows| checker.attempt(|c| c.documents(&docs, &rows)));
        if alike.is_some_and(|v| v.is_empty()) {
            return Verdict::Holds;
        }
        // A document whose namespace and name both changed is as likely another resource
        // put in another namespace as the one renamed: read also as deleted and added.
        let partly = by_likeness_where(trees, refs, skip, rule.winner(), |side, b, s| {
            kept(&docs, side, b, s)
        })
        .map(|rows| kept_identity_taken_whole(rows, &docs, refs, rule))
        .map(|rows| checker.attempt(|c| c.documents(&docs, &rows)));
        if partly.is_some_and(|v| v.is_empty()) {
            return Verdict::Holds;
        }
    }
    checker.extend(found);
    checker.verdict()
}

/// Whether the likeness reading may take `side`'s (0 ours, 1 theirs) document `s` for base's
/// document `b` renamed: not where its namespace and name both changed, which is as likely
/// another resource put in another namespace.
fn kept(docs: &[Vec<Document>; 4], side: usize, b: usize, s: usize) -> bool {
    let identity = |version: usize, i: usize| docs[version][i].identity.as_ref();
    match (identity(0, b), identity(side + 1, s)) {
        (Some(b), Some(s)) => !b.renamed_whole(s),
        _ => true,
    }
}

/// The one document of version `side` (1 ours, 2 theirs) that reads as base's document `b`
/// renamed: new to base by identity, of its kind, named, and with its namespace or its name
/// kept. `None` where there is none or more than one (a rename and a copy alike, nothing
/// tells which is which: policies/ours-document-renamed-and-copied-by-ours-edited-by-theirs).
fn clear_rename(docs: &[Vec<Document>; 4], b: usize, side: usize) -> Option<usize> {
    let base = docs[0][b].identity.as_ref()?;
    let in_base = |id: &Identity| docs[0].iter().any(|d| d.identity.as_ref() == Some(id));
    let mut candidates = docs[side].iter().enumerate().filter(|(_, d)| {
        d.identity
            .as_ref()
            .is_some_and(|id| !in_base(id) && base.may_be_renamed_to(id))
    });
    match (candidates.next(), candidates.next()) {
        (Some((s, _)), None) => Some(s),
        _ => None,
    }
}

/// Whether the check reads a document of `versions` as one both sides renamed where by
/// identity both deleted it (see [`renamed_by_both`]), or where one side renamed it and the
/// other holds both the new identity and base's (see [`renamed_alike_beside_a_copy`]): the
/// merge, which pairs documents its own way, may then read another pairing, a disagreement
/// issue 29's alignment settles.
pub(crate) fn renamed_by_both_sides(versions: &Versions) -> bool {
    any_row(versions, |_, docs, r| {
        renamed_by_both(docs, r).is_some() || renamed_alike_beside_a_copy(docs, r)
    })
}

/// Whether a side of `versions` holds a document of base clearly renamed beside another new
/// document as like it (see [`renamed_beside_a_rival`]): the merge, which pairs documents by
/// content, may read a deletion where the check reads a rename.
pub(crate) fn renamed_beside_a_copy(versions: &Versions) -> bool {
    any_row(versions, renamed_beside_a_rival)
}

/// Whether `found` holds for a row of base's, ours' and theirs' documents paired by identity
/// (no result: the readings above ask about the inputs alone).
fn any_row(
    versions: &Versions,
    found: impl Fn([&Tree; 3], &[Vec<Document>; 4], &Row) -> bool,
) -> bool {
    let trees = [&versions.base, &versions.ours, &versions.theirs];
    let [base, ours, theirs] = trees.map(documents);
    let docs = [base, ours, theirs, Vec::new()];
    let items = docs.each_ref().map(|d| items(d));
    let rows = by_identity(&docs, items.each_ref().map(Vec::as_slice));
    rows.iter().any(|r| found(trees, &docs, r))
}

/// Where one side lacks base's document of `row` by identity and holds it clearly renamed,
/// but also holds another new document at least as like base's in content (adversary
/// manifests-ours-1145-2532: theirs renamed a Kustomization and added a copy of it under a new
/// name in a new namespace, both with base's content). The check pairs by identity, so the
/// rename is clear to it; by content both are, so a merge that pairs by content may read a
/// deletion and two additions. Neither is the merge's or the check's to choose.
fn renamed_beside_a_rival(trees: [&Tree; 3], docs: &[Vec<Document>; 4], row: &Row) -> bool {
    let (b, lacking) = match row.0 {
        [Some(b), None, Some(_), _] => (b, 1),
        [Some(b), Some(_), None, _] => (b, 2),
        _ => return false,
    };
    let Some(s) = clear_rename(docs, b, lacking) else {
        return false;
    };
    let skip: &[&str] = &IDENTITY_FIELDS;
    let content =
        |version: usize, i: usize| Leaves::of(trees[version], docs[version][i].root, skip);
    let base = content(0, b);
    let likeness = base.likeness(&content(lacking, s));
    let in_base = |id: &Identity| docs[0].iter().any(|d| d.identity.as_ref() == Some(id));
    let base_id = docs[0][b].identity.as_ref();
    docs[lacking].iter().enumerate().any(|(r, d)| {
        let Some(id) = d.identity.as_ref().filter(|id| !in_base(id)) else {
            return false;
        };
        let alike = base.likeness(&content(lacking, r));
        // A document base's lost only its name (adversary packages-ours-1150-251: theirs took
        // an Ingress's name away, edited it, and added a copy under a new name) may be base's
        // own, name cleared, however much more like it the named copy is: a rival where at
        // least half alike.
        let unnamed = base_id.is_some_and(|b| b.unnamed_in_place(id)) && alike >= 0.5;
        r != s && (alike >= likeness || unnamed)
    })
}

/// Where one side lacks base's document of `row` by identity and holds it clearly renamed,
/// and the other side holds that new identity too beside base's (adversary
/// manifests-ours-1141-440 and -1880: both renamed a resource alike, theirs also kept a copy
/// under the old name, which it edited). Read by identity, the side that kept base's identity
/// changed a document the other deleted; read as renamed by both, it added a copy. Neither is
/// the merge's or the check's to choose.
fn renamed_alike_beside_a_copy(docs: &[Vec<Document>; 4], row: &Row) -> bool {
    let (b, lacking, other) = match row.0 {
        [Some(b), None, Some(_), _] => (b, 1, 2),
        [Some(b), Some(_), None, _] => (b, 2, 1),
        _ => return false,
    };
    clear_rename(docs, b, lacking).is_some_and(|s| {
        let renamed = docs[lacking][s].identity.as_ref();
        docs[other].iter().any(|d| d.identity.as_ref() == renamed)
    })
}

/// Where base's document of `row` is gone from both sides by identity and each side holds
/// it renamed (its one clear rename, or the one new identity both sides hold that it may be
/// renamed to): base's document and ours' and theirs' renamed ones. Read by identity, ours'
/// and theirs' were two additions (or one both added) and base's a deletion both made, and
/// the ours policy let ours' addition stand over theirs' change of the same resource
/// (adversary manifests-ours-1132-1300: both renamed an Ingress and copied it; 1132-1396:
/// ours moved it to another namespace, theirs renamed it).
fn renamed_by_both(docs: &[Vec<Document>; 4], row: &Row) -> Option<(usize, usize, usize)> {
    let [Some(b), None, None, _] = row.0 else {
        return None;
    };
    if let (Some(o), Some(t)) = (clear_rename(docs, b, 1), clear_rename(docs, b, 2)) {
        return Some((b, o, t));
    }
    let base = docs[0][b].identity.as_ref()?;
    let in_base = |id: &Identity| docs[0].iter().any(|d| d.identity.as_ref() == Some(id));
    let find = |side: usize, id: &Identity| {
        docs[side]
            .iter()
            .position(|d| d.identity.as_ref() == Some(id))
    };
    let mut both = docs[1].iter().enumerate().filter_map(|(o, d)| {
        let id = d.identity.as_ref()?;
        let fits = !in_base(id) && base.may_be_renamed_to(id);
        fits.then(|| Some((o, find(2, id)?)))?
    });
    match (both.next(), both.next()) {
        (Some((o, t)), None) => Some((b, o, t)),
        _ => None,
    }
}

/// Under a conflict's side, `rows` (read by likeness) with a renamed document's row given the
/// result's document of base's identity, where the side that kept that identity filled the
/// document's metadata whole: a side of a conflict may hold its whole value at a path both
/// sides changed, and metadata one side renamed the resource in (its name or namespace) and
/// the other changed otherwise is such a path (adversary templates-mark-1171-7882: theirs
/// dropped a ConfigMap's namespace, ours nulled its labels and wrote its metadata in flow
/// style, ours' side of the metadata conflict is ours' metadata). Read by the rename's
/// identity alone, the document stood in the result unclaimed, and the merge fell back to a
/// delete/modify conflict whose ours' side holds the resource twice. The document's fields are
/// still checked path by path, so a rename lost outside a conflict is found there. Only where
/// no result document has the rename's identity, and where the other side's document may be
/// the resource renamed ([`Identity::may_be_renamed_to`]): a
/// document left with no name is as likely another resource, which a side must keep outside
/// its conflicts (verify/k-document-theirs-stripped-of-its-name-ours-copied-and-edited).
fn kept_identity_taken_whole(
    rows: Vec<Row>,
    docs: &[Vec<Document>; 4],
    items: [&[Item]; 4],
    rule: Rule,
) -> Vec<Row> {
    let Rule::Resolved(taken) = rule else {
        return rows;
    };
    let mut rows = rows;
    let mut gone = vec![false; rows.len()];
    for i in 0..rows.len() {
        let Row([Some(b), Some(o), Some(t), None]) = rows[i] else {
            continue;
        };
        let base = items[0][b].key.as_str();
        // The side taken kept base's identity: its whole value is what may stand.
        let (renamed, key) = match (taken, items[1][o].key == base, items[2][t].key == base) {
            (Taken::Ours, true, false) => (&docs[2][t], &items[2][t].key),
            (Taken::Theirs, false, true) => (&docs[1][o], &items[1][o].key),
            _ => continue,
        };
        // The rename's identity standing in the result is the rename kept (or another
        // document of it, which the checks of that one judge).
        if items[3].iter().any(|r| r.key == *key) {
            continue;
        }
        let renamed_so = docs[0][b]
            .identity
            .as_ref()
            .zip(renamed.identity.as_ref())
            .is_some_and(|(base, new)| base.may_be_renamed_to(new));
        if !renamed_so {
            continue;
        }
        // The result's document of base's identity, where no row claimed it.
        let lone = rows.iter().enumerate().position(|(j, r)| {
            !gone[j] && matches!(r.0, [None, None, None, Some(x)] if items[3][x].key == base)
        });
        if let Some(j) = lone {
            rows[i].0[3] = rows[j].0[3];
            gone[j] = true;
        }
    }
    rows.into_iter()
        .zip(gone)
        .filter_map(|(row, gone)| (!gone).then_some(row))
        .collect()
}

/// `rows` with base's document `b` joined to ours' document `o` and theirs' `t` in one row,
/// its result document the one of the identity the row gives it; the rows that held them
/// otherwise go (a result document only they claimed then reads as one no version holds).
/// The identity both changed apart is the one `rule`'s winner gave it.
fn join(
    rows: Vec<Row>,
    docs: &[Vec<Document>; 4],
    b: usize,
    o: usize,
    t: usize,
    rule: Rule,
) -> Vec<Row> {
    let id = |v: usize, d: usize| docs[v][d].identity.clone();
    let want = identity_of_row([id(0, b), id(1, o), id(2, t)], rule.winner());
    let r = docs[3]
        .iter()
        .position(|d| want.is_some() && d.identity == want);
    let mut rows: Vec<Row> = rows
        .into_iter()
        .filter(|r| r.0[0] != Some(b) && r.0[1] != Some(o) && r.0[2] != Some(t))
        .collect();
    rows.push(Row([Some(b), Some(o), Some(t), r]));
    rows
}

/// A file's documents as items: by identity, documents without one by their place among
/// those. Two documents of one identity (an input may hold them: a list of resources one
/// tool wrote twice) are read by their order: the second of a version is the second of
/// every other, as git's line merge, which keeps each where it stands, reads them.
fn items(docs: &[Document]) -> Vec<Item> {
    let mut plain = 0;
    let mut seen: HashMap<String, usize> = HashMap::new();
    docs.iter()
        .map(|d| {
            let (key, shown) = match &d.identity {
                Some(id) => {
                    let key = format!("{id:?}");
                    let n = seen.entry(key.clone()).or_insert(0);
                    *n += 1;
                    match *n {
                        1 => (key, id.to_string()),
                        n => (format!("{key}#{n}"), format!("{id} (its document {n})")),
                    }
                }
                None => {
                    plain += 1;
                    (format!("#{plain}"), format!("document {plain}"))
                }
            };
            Item {
                key,
                shown,
                node: d.root,
            }
        })
        .collect()
}

/// The documents paired by identity; a file of one document in every version is one
/// resource whatever its identity (a rename of a file's one resource is an edit of a field).
fn by_identity(docs: &[Vec<Document>; 4], items: [&[Item]; 4]) -> Vec<Row> {
    if docs[..3].iter().all(|d| d.len() == 1) {
        let mut rows = vec![Row([Some(0), Some(0), Some(0), None])];
        // The result's documents, by the identity ours and theirs agree on, else its one.
        let want = [&items[1][0].key, &items[2][0].key];
        match items[3].iter().position(|i| want.contains(&&i.key)) {
            Some(r) => rows[0].0[3] = Some(r),
            None if items[3].len() == 1 => rows[0].0[3] = Some(0),
            None => {}
        }
        let one = rows[0].0[3];
        rows.extend(
            (0..items[3].len())
                .filter(|&r| one != Some(r))
                .map(|r| Row([None, None, None, Some(r)])),
        );
        return rows;
    }
    by_key(items)
}

impl Checker<'_> {
    /// Checks each row of documents as a value, in the order the merge puts them: a
    /// document of the result that stands where no row expects it is a violation too.
    fn documents(&mut self, docs: &[Vec<Document>; 4], rows: &[Row]) {
        let mut used = vec![false; docs[3].len()];
        let expected_docs: Vec<bool> = rows.iter().map(|r| self.expects(docs, r)).collect();
        // A result of one document, where one resource is due, is that resource renamed or
        // not: its identity is checked as a field.
        let only_one = docs[3].len() == 1 && expected_docs.iter().filter(|&&e| e).count() == 1;
        // Documents without an identity are read by their place among such documents.
        let mut plain = (0..docs[3].len()).filter(|&r| docs[3][r].identity.is_none());
        for i in merged_order(rows, docs[1].len(), docs[2].len()) {
            let row = &rows[i];
            let r = if only_one {
                expected_docs[i].then_some(0)
            } else {
                match self.identity_expected(docs, row) {
                    Some(Some(_)) => row.0[3],
                    Some(None) if expected_docs[i] => plain.next(),
                    _ => None,
                }
            };
            let r = r.filter(|&r| !used[r]);
            if let Some(r) = r {
                used[r] = true;
            }
            let at = |v: usize, d: Option<usize>| d.map(|d| docs[v][d].root);
            let found = [at(0, row.0[0]), at(1, row.0[1]), at(2, row.0[2]), at(3, r)];
            let identity = [1, 2, 0]
                .into_iter()
                .find_map(|v| row.0[v].and_then(|d| docs[v][d].identity.clone()));
            self.resource = label(docs, row);
            self.group_kind = crate::resource::group_kind_of(
                identity.map(|i| i.for_list_keys()).as_ref(),
                self.file_name,
            );
            match self.anchors_settled(found) {
                Some(true) => {}
                Some(false) => self.violation(
                    &self.resource.clone(),
                    "",
                    Some(""),
                    "both sides define an anchor of one name at different places: the policy's side expected whole".into(),
                ),
                None => self.value(&Path::default(), Some(""), found),
            }
        }
        let repeated_in_ours = repeated(self.o);
        let mut seen = HashSet::new();
        for (r, d) in docs[3].iter().enumerate() {
            let name = d
                .identity
                .as_ref()
                .map_or("a document".into(), |i| i.to_string());
            if d.identity.is_some()
                && !seen.insert(name.clone())
                && !repeated_in_ours.contains(&name)
            {
                self.violation(
                    &name,
                    "",
                    None,
                    "the result holds this resource twice".into(),
                );
            }
            if !used[r] {
                self.violation(
                    &name,
                    "",
                    None,
                    "no version holds this document, or it is not where the merge puts it".into(),
                );
            }
        }
    }

    /// Under a policy, a document whose ours and theirs define an anchor name at different
    /// places ([`super::anchors`]) is the policy's side whole: whether the result's is.
    /// `None` where that does not apply.
    fn anchors_settled(&self, [_, o, t, r]: [Option<NodeId>; 4]) -> Option<bool> {
        let winner = match self.rule {
            Rule::Kyaml => (self.t, t?),
            Rule::Ours => (self.o, o?),
            Rule::Mark | Rule::Resolved(_) => return None,
        };
        if !super::anchors::clash(self.o, o?, self.t, t?) {
            return None;
        }
        Some(r.is_some_and(|r| same(winner.0, Some(winner.1), self.r, Some(r))))
    }

    /// Where the rule decided the row's resource as a deletion one side made and the other
    /// side changed it: base's document and the version (1 ours, 2 theirs) that lacks it.
    fn decided_a_deletion(&self, docs: &[Vec<Document>; 4], row: &Row) -> Option<(usize, usize)> {
        let root = |v: usize| row.0[v].map(|d| docs[v][d].root);
        let b = row.0[0]?;
        match (root(1), root(2)) {
            (None, t @ Some(_)) => (!same(self.b, root(0), self.t, t)).then_some((b, 1)),
            (o @ Some(_), None) => (!same(self.b, root(0), self.o, o)).then_some((b, 2)),
            _ => None,
        }
    }

    /// Whether a row's resource should have a document in the result: a disputed one does
    /// where the policy keeps it (in mark mode it is a conflict, which a clean result cannot
    /// be anyway).
    fn expects(&self, docs: &[Vec<Document>; 4], row: &Row) -> bool {
        let root = |v: usize| row.0[v].map(|d| docs[v][d].root);
        let (b, o, t) = (root(0), root(1), root(2));
        match (b, o, t) {
            (_, Some(_), Some(_)) | (None, Some(_), None) | (None, None, Some(_)) => true,
            (Some(_), Some(_), None) => !same(self.b, b, self.o, o) && self.rule.keeps(Taken::Ours),
            (Some(_), None, Some(_)) => {
                !same(self.b, b, self.t, t) && self.rule.keeps(Taken::Theirs)
            }
            _ => false,
        }
    }

    /// The identity a row's document should have in the result: ours' or theirs' where one
    /// side renamed it (`Some(None)` for a document without one), the winning side's where
    /// both did and the rule lets one win; `None` where it should be gone or both sides
    /// renamed it differently in mark mode.
    fn identity_expected(&self, docs: &[Vec<Document>; 4], row: &Row) -> Option<Option<Identity>> {
        let id = |v: usize| row.0[v].map(|d| docs[v][d].identity.clone());
        identity_of_row([id(0), id(1), id(2)], self.rule.winner())
    }
}

/// How messages name a row's resource: its identity (ours', theirs', base's, the result's),
/// or `document N`.
fn label(docs: &[Vec<Document>; 4], row: &Row) -> String {
    [1, 2, 0, 3]
        .into_iter()
        .find_map(|v| {
            row.0[v]
                .and_then(|d| docs[v][d].identity.as_ref())
                .map(|i| i.to_string())
        })
        .unwrap_or_else(|| {
            let place = [1, 2, 0, 3].into_iter().find_map(|v| {
                let d = row.0[v]?;
                Some(
                    docs[v][..=d]
                        .iter()
                        .filter(|d| d.identity.is_none())
                        .count(),
                )
            });
            format!("document {}", place.unwrap_or(1))
        })
}

/// The rows in the order their documents stand in the merged file: ours' order, with each
/// document new to ours after the one it follows in theirs.
fn merged_order(rows: &[Row], ours_docs: usize, theirs_docs: usize) -> Vec<usize> {
    let mut by_ours: Vec<Option<usize>> = vec![None; ours_docs];
    let mut by_theirs: Vec<Option<usize>> = vec![None; theirs_docs];
    for (i, row) in rows.iter().enumerate() {
        if let Some(o) = row.0[1] {
            by_ours[o] = Some(i);
        }
        if let Some(t) = row.0[2] {
            by_theirs[t] = Some(i);
        }
    }
    // Theirs' new documents, keyed by the row of the theirs document before them.
    let mut after: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    let mut previous = None;
    for &r in by_theirs.iter().flatten() {
        if rows[r].0[1].is_none() {
            after.entry(previous).or_default().push(r);
        } else {
            previous = Some(r);
        }
    }
    let mut order: Vec<usize> = after.remove(&None).unwrap_or_default();
    for &r in by_ours.iter().flatten() {
        order.push(r);
        order.extend(after.remove(&Some(r)).unwrap_or_default());
    }
    // Rows with no document on either side (deleted by both, or the result's own) last.
    let mut seen = vec![false; rows.len()];
    order.retain(|&r| !std::mem::replace(&mut seen[r], true));
    order.extend((0..rows.len()).filter(|&r| !seen[r]));
    order
}
