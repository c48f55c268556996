//! Documents of the result paired with the resources of base, ours and theirs, each then
//! checked as a value.

use std::collections::HashMap;

use crate::options::Policy;
use crate::parse::{same_data, NodeId, Tree, Versions};
use crate::resource::{self, DocRef, Group, Identity, Path};

use super::values::Checker;
use super::Verdict;

/// Checks a parsed result against the three versions.
pub(crate) fn check(versions: &Versions, result: &Tree, policy: Policy) -> Verdict {
    let (b, o, t) = (&versions.base, &versions.ours, &versions.theirs);
    let groups = match resource::match_documents(b, o, t, false) {
        Ok(groups) => groups,
        Err(_) => return Verdict::Unsure,
    };
    let mut checker = Checker::new(versions, result, policy);
    let results = resource::documents(result);
    let mut by_identity: HashMap<Identity, Vec<DocRef>> = HashMap::new();
    let mut plain: Vec<DocRef> = Vec::new();
    for (doc, id) in &results {
        match id {
            Some(id) => by_identity.entry(id.clone()).or_default().push(*doc),
            None => plain.push(*doc),
        }
    }
    for (id, docs) in &by_identity {
        if docs.len() > 1 && !resource::duplicate_identities(o).contains(&id.to_string()) {
            checker.violation(
                &id.to_string(),
                "",
                None,
                "the result holds this resource twice".into(),
            );
        }
    }
    let expects: Vec<bool> = groups
        .iter()
        .map(|g| expects_document(versions, g, policy))
        .collect();
    let only_one = results.len() == 1 && expects.iter().filter(|&&e| e).count() == 1;
    let mut plain = plain.into_iter();
    let mut used = vec![false; result.docs.len()];
    for i in merged_order(&groups, o.docs.len(), t.docs.len()) {
        let g = &groups[i];
        let r = if only_one {
            results.first().filter(|_| expects[i]).map(|(d, _)| *d)
        } else {
            match expected_identity(versions, g) {
                Some(Some(id)) => by_identity
                    .get(&id)
                    .and_then(|docs| docs.iter().find(|d| !used[d.doc]).copied()),
                Some(None) if expects[i] => plain.next(),
                _ => None,
            }
        };
        if let Some(r) = r {
            used[r.doc] = true;
        }
        checker.resource = g.label.clone();
        checker.group_kind =
            crate::resource::group_kind_of(g.identity.as_ref(), versions.file_name.as_deref());
        let root = |d: Option<DocRef>| d.map(|d| d.root);
        checker.value(
            &Path::default(),
            Some(""),
            [root(g.base), root(g.ours), root(g.theirs), root(r)],
        );
    }
    for (doc, id) in &results {
        if !used[doc.doc] {
            let name = id.as_ref().map_or("a document".into(), |i| i.to_string());
            checker.violation(
                &name,
                "",
                None,
                "no version holds this document, or it is not where the merge puts it".into(),
            );
        }
    }
    checker.verdict()
}

/// Whether a resource should have a document in the result: a disputed one does where the
/// policy keeps it (in mark mode it is a conflict, which a clean result cannot be anyway).
fn expects_document(v: &Versions, g: &Group, policy: Policy) -> bool {
    let root = |d: DocRef| Some(d.root);
    match (g.base, g.ours, g.theirs) {
        (_, Some(_), Some(_)) | (None, Some(_), None) | (None, None, Some(_)) => true,
        (Some(b), Some(o), None) => {
            !same(&v.base, root(b), &v.ours, root(o)) && policy != Policy::Theirs
        }
        (Some(b), None, Some(t)) => {
            !same(&v.base, root(b), &v.theirs, root(t)) && policy == Policy::Theirs
        }
        _ => false,
    }
}

/// The identity a resource's document should have in the result: ours' or theirs' where one
/// side renamed it (`Some(None)` for a document without one); `None` where it should be gone
/// or both sides renamed it differently.
fn expected_identity(v: &Versions, g: &Group) -> Option<Option<Identity>> {
    let id = |tree: &Tree, d: Option<DocRef>| d.map(|d| Identity::of(tree, d.root));
    let (b, o, t) = (
        id(&v.base, g.base),
        id(&v.ours, g.ours),
        id(&v.theirs, g.theirs),
    );
    match (b, o, t) {
        (_, Some(o), Some(t)) if o == t => Some(o),
        (Some(b), Some(o), Some(t)) if b == o => Some(t),
        (Some(b), Some(o), Some(t)) if b == t => Some(o),
        (_, Some(_), Some(_)) => None,
        (_, Some(o), None) => Some(o),
        (_, None, Some(t)) => Some(t),
        (_, None, None) => None,
    }
}

/// The groups in the order their documents stand in the merged file: ours' order, with each
/// document new to ours after the one it follows in theirs.
fn merged_order(groups: &[Group], ours_docs: usize, theirs_docs: usize) -> Vec<usize> {
    let mut by_ours: Vec<Option<usize>> = vec![None; ours_docs];
    let mut by_theirs: Vec<Option<usize>> = vec![None; theirs_docs];
    for (i, g) in groups.iter().enumerate() {
        if let Some(o) = g.ours {
            by_ours[o.doc] = Some(i);
        }
        if let Some(t) = g.theirs {
            by_theirs[t.doc] = Some(i);
        }
    }
    // Theirs' new documents, keyed by the group of the theirs document before them.
    let mut after: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    let mut previous = None;
    for g in by_theirs.iter().flatten() {
        if groups[*g].ours.is_none() {
            after.entry(previous).or_default().push(*g);
        } else {
            previous = Some(*g);
        }
    }
    let mut order: Vec<usize> = after.remove(&None).unwrap_or_default();
    for g in by_ours.iter().flatten() {
        order.push(*g);
        order.extend(after.remove(&Some(*g)).unwrap_or_default());
    }
    // Groups with no document on either side (deleted by both) and any left over.
    let mut seen = vec![false; groups.len()];
    order.retain(|&g| !std::mem::replace(&mut seen[g], true));
    order.extend((0..groups.len()).filter(|&g| !seen[g]));
    order
}

/// Whether two documents of different trees are the same data.
pub(super) fn same(a: &Tree, an: Option<NodeId>, b: &Tree, bn: Option<NodeId>) -> bool {
    match (an, bn) {
        (None, None) => true,
        (Some(x), Some(y)) => same_data(a, x, b, y),
        _ => false,
    }
}
