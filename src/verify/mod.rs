//! Every clean result checked as data before it is written, independently of how it was
//! built: git's clean line merge and the structural merge alike.
//!
//! The invariant, in the default `mark` mode, for every path of every resource (resources by
//! identity, map fields by key, keyed list elements by their key, other lists as element
//! sequences):
//! - a change only one side made is there, with that side's value; a change both made alike
//!   is there once; a path neither side changed keeps ours' value; nothing else changed;
//! - where both sides changed a path differently, a clean result can only hold the merge of
//!   its parts (fields, elements, the lines of a multi-line string); a value both changed, or
//!   one side deleted and the other changed, must be a conflict;
//! - no map key, identity or element key appears twice unless an input already had it twice.
//!
//! Under `--on-conflict theirs` or `ours` a path both sides changed holds the winning side's
//! value as that policy defines it; the rest holds unchanged. The checks share the parser
//! and the list-key rules with the merge, and nothing else: a rule the merge gets wrong shows
//! here as a violation.

mod anchors;
mod documents;
mod identity;
mod lists;
mod pairing;
mod values;

use std::collections::HashSet;
use std::fmt;

use crate::fallback::Reason;
use crate::options::Policy;
use crate::parse;
use crate::parse::{same_data, OwnedParse, Parsed, Tree, Versions};
use crate::resource::{element_key, list_kind, ListKind, Path};
use crate::text::markers;

/// What the check holds a result to where ours and theirs changed one path differently; the
/// rest holds under every rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// `--on-conflict mark`: only the merge of the parts can be clean; anything else is a
    /// conflict.
    Mark,
    /// `--on-conflict theirs`: kyaml's merge3 (a null clears, a plain list is theirs' whole).
    Kyaml,
    /// `--on-conflict ours`: ours' value.
    Ours,
    /// A conflicted result with every conflict taken from one side: that side's value at a
    /// path both changed, whole or merged part by part below it (a conflict as wide as the
    /// path or narrower), the rest as a clean merge holds it. A person takes a side and must
    /// lose nothing of it, nor any change of the other side outside the conflicts.
    Resolved(Taken),
}

impl Rule {
    /// The rule of a policy's clean results.
    pub(crate) fn of(policy: Policy) -> Rule {
        match policy {
            Policy::Mark => Rule::Mark,
            Policy::Theirs => Rule::Kyaml,
            Policy::Ours => Rule::Ours,
        }
    }

    /// The side whose value stands where both changed it differently, if the rule lets one.
    fn winner(self) -> Option<Taken> {
        match self {
            Rule::Mark => None,
            Rule::Kyaml => Some(Taken::Theirs),
            Rule::Ours => Some(Taken::Ours),
            Rule::Resolved(side) => Some(side),
        }
    }

    /// Whether a resource `side` changed and the other deleted stays in the result.
    fn keeps(self, side: Taken) -> bool {
        match (self, side) {
            (Rule::Mark | Rule::Ours, Taken::Ours) | (Rule::Kyaml, Taken::Theirs) => true,
            (Rule::Resolved(taken), side) => taken == side,
            _ => false,
        }
    }
}

/// The side a conflicted result is resolved to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Taken {
    Ours,
    Theirs,
}

impl fmt::Display for Taken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Taken::Ours => "ours'",
            Taken::Theirs => "theirs'",
        })
    }
}

/// A path where a result breaks the invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Violation {
    /// The resource, as conflicts name it.
    pub resource: String,
    /// The field path, as conflicts name it (empty for the whole document).
    pub path: String,
    /// The deepest path above (or at) `path` that both ours and theirs have: where a
    /// conflict can be marked instead.
    pub common: Option<String>,
    /// What kind of finding it is, for a caller that treats one kind apart.
    pub finding: Finding,
    pub what: String,
}

/// What a violation found wrong with a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Finding {
    /// The result does not parse.
    Unparsable,
    /// A mapping key of the result repeats.
    RepeatedKey,
    /// The result parses but is wrong as data at the violation's path.
    Data,
    /// Both sides changed the path in ways this check reads as one conflict (a deletion
    /// against a change, two different changes), and the result is clean there. Where the
    /// merge paired the versions otherwise (an element whose key changed read as one deleted
    /// and one added), the two readings disagree about which nodes are one: marking the
    /// conflict is the answer, not a sign that the merge lost data under its own reading.
    Unmarked,
}

impl Violation {
    /// The same finding read as a conflict the result does not mark ([`Finding::Unmarked`]).
    pub(super) fn unmarked(self) -> Violation {
        Violation {
            finding: Finding::Unmarked,
            ..self
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(document)"
        } else {
            &self.path
        };
        write!(f, "{} at {path}: {}", self.resource, self.what)
    }
}

/// What the check found.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// The result holds the invariant.
    Holds,
    /// It does not, at these paths.
    Broken(Vec<Violation>),
    /// The inputs cannot be paired by the rules (two documents with one identity): the check
    /// cannot say.
    Unsure,
}

/// Checks a clean result's tree against the three versions, under the policy's rule.
pub(crate) use documents::{renamed_beside_a_copy, renamed_by_both_sides};

pub(crate) fn check(versions: &Versions, result: &Tree, policy: Policy) -> Verdict {
    documents::check(versions, result, Rule::of(policy))
}

/// Checks `result` (a text that parses) against the three versions.
pub(crate) fn check_text(versions: &Versions, result: &str, policy: Policy) -> Verdict {
    check_parsed(
        versions,
        result,
        parse::parse(result).map(Tree::detach),
        policy,
    )
}

/// [`check_text`], the result already parsed (`parsed` is what parsing `result` gave).
pub(crate) fn check_parsed(
    versions: &Versions,
    result: &str,
    parsed: Result<Parsed, parse::Error>,
    policy: Policy,
) -> Verdict {
    let parsed = match parsed.map(|p| p.attach(result)) {
        Ok(Some(tree)) => Ok(tree),
        // Not the text it was parsed from: parsed again.
        Ok(None) => parse::parse(result),
        Err(e) => Err(e),
    };
    match parsed {
        Ok(tree) if tree.duplicate_keys.is_empty() => check(versions, &tree, policy),
        Ok(tree) => Verdict::Broken(vec![Violation {
            resource: "the result".into(),
            path: String::new(),
            common: None,
            finding: Finding::RepeatedKey,
            what: format!("a mapping key repeats ({})", tree.duplicate_keys[0]),
        }]),
        Err(e) => Verdict::Broken(vec![Violation {
            resource: "the result".into(),
            path: String::new(),
            common: None,
            finding: Finding::Unparsable,
            what: format!("it does not parse: {e}"),
        }]),
    }
}

/// Why a conflicted result does not hold.
#[derive(Debug)]
pub(crate) struct SidesBroken {
    /// What is wrong, for the user: the first finding.
    pub what: String,
    /// The paths where a side loses data, where widening a conflict can help.
    pub violations: Vec<Violation>,
}

impl From<String> for SidesBroken {
    fn from(what: String) -> SidesBroken {
        SidesBroken {
            what,
            violations: Vec::new(),
        }
    }
}

/// Checks a conflicted result the way a person uses it: taking ours' side of every conflict,
/// and theirs' (base sections dropped), each must parse with no repeated key and hold that
/// side's data plus the other side's changes outside the conflicts ([`Rule::Resolved`]): a
/// side that loses an element is as harmful as a wrong clean merge. Where the comment pass
/// edited the text, ours' side must also read as the same data as the merge wrote it before
/// (`planned`).
pub(crate) fn sides_hold(
    versions: &Versions,
    text: &[u8],
    marker_size: usize,
    planned: Option<OwnedParse>,
) -> Result<(), SidesBroken> {
    let text = std::str::from_utf8(text).map_err(|e| format!("not UTF-8: {e}"))?;
    // A conflict as wide as the file, each side of which is that side's file: a person sees
    // every difference in it. Only then may a side lack a change the other made: a side that
    // merely reads as that side's file (a conflict over every line the sides wrote
    // differently, with data outside it) still loses the other side's changes in it that
    // conflict with nothing.
    let whole = markers::conflicts_span_the_file(text, marker_size);
    sides_hold_spanning(versions, text, marker_size, planned, whole)
}

/// [`sides_hold`] where the caller says whether the conflicts span the file (`whole`): a
/// template's skeleton holds, as comment lines, lines of actions that write text, which are
/// data outside a conflict all the same.
pub(crate) fn sides_hold_spanning(
    versions: &Versions,
    text: &str,
    marker_size: usize,
    planned: Option<OwnedParse>,
    whole: bool,
) -> Result<(), SidesBroken> {
    let [ours, theirs] = markers::sides(text, marker_size);
    let side = |taken: Taken, picked: &str| -> Result<(), SidesBroken> {
        let tree = side_tree(taken, picked)?;
        if taken == Taken::Ours {
            if let Some(planned) = &planned {
                let before = planned.tree.clone().attach(&planned.text).ok_or_else(|| {
                    "ours' side before the comment pass is not the text it was parsed from"
                        .to_string()
                })?;
                if !same_documents(&before, &tree) {
                    return Err("the comment pass changed the data of ours' side"
                        .to_string()
                        .into());
                }
            }
        }
        resolved_holds(versions, whole, taken, &tree)
    };
    // Two whole parses and checks: on a large file, one on each core. Ours' finding is
    // reported first.
    if text.len() < PARALLEL_FROM {
        return side(Taken::Ours, &ours).and_then(|()| side(Taken::Theirs, &theirs));
    }
    let (ours, theirs) = std::thread::scope(|scope| {
        let second = scope.spawn(|| side(Taken::Theirs, &theirs));
        let ours = side(Taken::Ours, &ours);
        match second.join() {
            Ok(theirs) => (ours, theirs),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    });
    ours.and(theirs)
}

/// One side of [`sides_hold`] alone: the conflicted `text` taken to `taken`'s side of every
/// conflict. For a text whose lines read differently on each side (a template's skeleton,
/// whose masking of a line depends on the lines around it), each side is checked on a text
/// of its own. The caller says whether the conflicts span the file (`whole`), as for
/// [`sides_hold_spanning`]: it may know of data outside them that the text shows as comments.
pub(crate) fn side_holds(
    versions: &Versions,
    text: &str,
    marker_size: usize,
    taken: Taken,
    whole: bool,
) -> Result<(), SidesBroken> {
    let [ours, theirs] = markers::sides(text, marker_size);
    let picked = match taken {
        Taken::Ours => ours,
        Taken::Theirs => theirs,
    };
    let tree = side_tree(taken, &picked)?;
    resolved_holds(versions, whole, taken, &tree)
}

/// Whether a side's tree holds that side's data plus the other side's changes outside the
/// conflicts, or, where the conflicts span the file (`whole`), is that side's file.
fn resolved_holds(
    versions: &Versions,
    whole: bool,
    taken: Taken,
    tree: &Tree,
) -> Result<(), SidesBroken> {
    let file = match taken {
        Taken::Ours => &versions.ours,
        Taken::Theirs => &versions.theirs,
    };
    if whole && same_documents(file, tree) {
        return Ok(());
    }
    match documents::check(versions, tree, Rule::Resolved(taken)) {
        Verdict::Holds | Verdict::Unsure => Ok(()),
        Verdict::Broken(violations) => Err(SidesBroken {
            what: format!("taking {taken} side of every conflict, {}", violations[0]),
            violations,
        }),
    }
}

/// The tree of one side of a conflicted result, if it parses with no repeated key.
fn side_tree(taken: Taken, picked: &str) -> Result<Tree<'_>, String> {
    match parse::parse(picked) {
        Err(e) => Err(format!("taking {taken} side of every conflict: {e}")),
        Ok(tree) => match tree.duplicate_keys.first() {
            Some(dup) => Err(format!(
                "taking {taken} side of every conflict repeats a key ({dup})"
            )),
            None => Ok(tree),
        },
    }
}

/// Text size (bytes) from which the two sides of a conflicted result are parsed and checked
/// on two threads: each costs a parse and a walk of the versions, far more than a thread's
/// start from here on.
const PARALLEL_FROM: usize = 16 << 10;

/// A clean structural result must read back as YAML with no repeated key; if the splice broke
/// it, that is a bug, and the line merge is safer. Its tree is returned for the check: the
/// one the comment pass made of it where there is one (`parsed`), else a new parse.
pub(crate) fn reads_back(text: &str, parsed: Option<Parsed>) -> Result<Tree<'_>, Reason> {
    let merged = match parsed.and_then(|p| p.attach(text)) {
        Some(tree) => tree,
        None => parse_back(text)?,
    };
    if let Some(dup) = merged.duplicate_keys.first() {
        return Err(Reason::Internal(format!(
            "the merged text repeats a mapping key ({dup})"
        )));
    }
    Ok(merged)
}

/// The parse of a merged text, its errors as the reasons the driver reports.
fn parse_back(text: &str) -> Result<Tree<'_>, Reason> {
    parse::parse(text).map_err(|e| match e {
        // Anchors and aliases are text the rules do not follow across fields: one side's
        // alias can outlive the other side's deletion of its anchor.
        parse::Error::Syntax { ref message, .. } if message.contains("unknown anchor") => {
            Reason::AliasWithoutAnchor
        }
        e => Reason::Internal(format!("the merged text does not parse: {e}")),
    })
}

/// Where the structural merge cannot take the inputs (a template, duplicate identities), the
/// most that can be said of git's clean line merge: it must still parse, with no duplicate
/// (map key, resource identity, list element name) that none of the inputs had — the mark of
/// two insertions git placed apart. The inputs are parsed only when the result holds a
/// duplicate or does not parse, so this costs one parse.
pub(crate) fn line_result_is_sound(base: &str, ours: &str, theirs: &str, merged: &str) -> bool {
    let inputs = [base, ours, theirs];
    match parse::parse(merged) {
        Ok(tree) => {
            let found = duplicates(&tree);
            drop(tree);
            found.is_empty() || {
                let known: HashSet<String> = inputs
                    .iter()
                    .filter_map(|t| parse::parse(t).ok())
                    .flat_map(|t| duplicates(&t))
                    .collect();
                found.is_subset(&known)
            }
        }
        // Git's result is what the fallback gives for input that is not YAML either.
        Err(_) => inputs.iter().any(|t| parse::parse(t).is_err()),
    }
}

/// Whether ours or theirs holds twice something base holds once (a list element key or
/// name, a resource identity): which of the two continues base's one is a guess of the
/// check's pairing, so a result that rests on it cannot be vouched for. Git's markers, kept
/// where narrower than the structural merge's, may rest on it: theirs copied a `versions`
/// element and changed the copy, git lined the copy's change up with the original, and its
/// ours half put that change on ours' element, which the check (pairing the copy as base's
/// one) passed (adversary manifests-mark-1231-88).
pub(crate) fn a_side_repeats_what_base_does_not(versions: &Versions) -> bool {
    let base = duplicates(&versions.base);
    [&versions.ours, &versions.theirs]
        .iter()
        .any(|side| !duplicates(side).is_subset(&base))
}

/// Whether two trees hold the same documents, in order, as data: what a pass that edits only
/// comment and blank lines must leave.
pub(super) fn same_documents(a: &Tree, b: &Tree) -> bool {
    let (x, y) = (identity::documents(a), identity::documents(b));
    x.len() == y.len()
        && x.iter()
            .zip(&y)
            .all(|(m, n)| same_data(a, m.root, b, n.root))
}

/// Everything a file holds twice: mapping keys, resource identities, list element names.
fn duplicates(tree: &Tree) -> HashSet<String> {
    let keys = tree
        .duplicate_keys
        .iter()
        .map(|d| d.split_once(": ").map_or(d.clone(), |(_, k)| k.to_string()));
    keys.chain(identity::repeated(tree))
        .chain(duplicate_element_names(tree))
        .chain(duplicate_element_keys(tree))
        .collect()
}

/// `path[key]` for every element of a list the schema table keys whose key another element
/// of that list carries: two Service ports `9443/TCP` are what git leaves when both sides add
/// one, and unlike a repeated `name` no seed key finds them (the seed rule keys only a list
/// whose keys are unique).
fn duplicate_element_keys(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for doc in identity::documents(tree) {
        let identity = doc.identity.map(|i| i.for_list_keys());
        let group_kind = crate::resource::group_kind_of(identity.as_ref(), None);
        let prefix = identity.map_or_else(String::new, |i| format!("{i}: "));
        repeated_keys_under(
            tree,
            doc.root,
            &Path::default(),
            group_kind.as_deref(),
            &prefix,
            &mut out,
        );
    }
    out
}

/// [`duplicate_element_keys`] for the node `at` of a document of `group_kind`, at `path`.
/// The recursion is bounded by the parser's depth limit.
fn repeated_keys_under(
    tree: &Tree,
    at: parse::NodeId,
    path: &Path,
    group_kind: Option<&str>,
    prefix: &str,
    out: &mut Vec<String>,
) {
    let children = tree.children(at);
    match tree.node(at).kind {
        parse::Kind::Map => {
            for pair in children.chunks(2) {
                if let [k, v] = pair {
                    let key = tree.value(*k);
                    repeated_keys_under(tree, *v, &path.key(key), group_kind, prefix, out);
                }
            }
        }
        parse::Kind::Seq => {
            let keys = match list_kind(group_kind, &path.schema, &[(tree, at)]) {
                ListKind::Keyed(keys) => Some(keys),
                _ => None,
            };
            let mut seen = HashSet::new();
            for &e in children {
                let key = keys.as_ref().and_then(|keys| element_key(tree, e, keys));
                if let Some((key, shown)) = &key {
                    if !seen.insert(key.clone()) {
                        out.push(format!("{prefix}{}[{shown}]", path.shown));
                    }
                }
                let shown = key.map_or_else(|| "*".to_string(), |(_, shown)| shown);
                repeated_keys_under(tree, e, &path.element(&shown), group_kind, prefix, out);
            }
        }
        _ => {}
    }
}

/// `name=x` for every list element whose `name` another element of the same list carries:
/// two containers or env vars with one name are what git leaves when both sides add one.
fn duplicate_element_names(tree: &Tree) -> Vec<String> {
    let mut out = Vec::new();
    for list in (0..tree.nodes.len()).filter(|&n| tree.node(n).kind == parse::Kind::Seq) {
        let mut seen = HashSet::new();
        for &e in tree.children(list) {
            if let Some(name) = tree.get_str(e, "name") {
                if !seen.insert(name) {
                    out.push(format!("name={name}"));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ours' side of `text` as the merge wrote it before a comment pass.
    fn planned(text: &str) -> Option<OwnedParse> {
        let tree = parse::parse(text).expect("the test's text parses").detach();
        Some(OwnedParse {
            text: text.to_string(),
            tree,
        })
    }

    #[test]
    fn ours_side_must_read_as_the_merge_wrote_it() {
        let versions = Versions::parse(
            "a: 1\nb: 1\nc: 4\n",
            "a: 1\nb: 2\nc: 4\n",
            "a: 1\nb: 3\nc: 4\n",
        )
        .expect("the versions parse");
        let marked =
            "# header\na: 1 # one\n<<<<<<< ours\nb: 2\n=======\nb: 3\n>>>>>>> theirs\nc: 4\n";
        let hold = |text: &str, planned| {
            sides_hold(&versions, text.as_bytes(), 7, planned).map_err(|e| e.what)
        };
        // The pass added or changed comments only: the same data.
        assert_eq!(hold(marked, planned("a: 1\nb: 2\nc: 4\n")), Ok(()));
        // Ours' side now reads otherwise than written: the pass changed data.
        assert_eq!(
            hold(marked, planned("a: 1\nb: 2\nc: 5\n")),
            Err("the comment pass changed the data of ours' side".to_string())
        );
        // Theirs' side is checked as before.
        let bad = "a: 1\n<<<<<<< ours\nb: 2\n=======\nb: [\n>>>>>>> theirs\nc: 4\n";
        assert!(hold(bad, planned("a: 1\nb: 2\nc: 4\n")).is_err());
    }

    #[test]
    fn a_side_that_loses_the_other_sides_change_outside_the_conflict_is_refused() {
        let versions = Versions::parse(
            "a: 1\nb: 1\nc: 4\n",
            "a: 1\nb: 2\nc: 4\n",
            "a: 1\nb: 3\nc: 5\n",
        )
        .expect("the versions parse");
        let hold = |text: &str| sides_hold(&versions, text.as_bytes(), 7, None).map_err(|e| e.what);
        let right = "a: 1\n<<<<<<< ours\nb: 2\n=======\nb: 3\n>>>>>>> theirs\nc: 5\n";
        assert_eq!(hold(right), Ok(()));
        // Theirs' change of c is outside the conflict, and lost: ours' side is ours' whole
        // file (as a conflict over all of it would give), theirs' side shows the loss.
        let lossy = "a: 1\n<<<<<<< ours\nb: 2\n=======\nb: 3\n>>>>>>> theirs\nc: 4\n";
        assert!(hold(lossy).is_err_and(|e| e.contains("taking theirs' side")));
        // A conflict over all of it: each side whole.
        let whole = "<<<<<<< ours\na: 1\nb: 2\nc: 4\n=======\na: 1\nb: 3\nc: 5\n>>>>>>> theirs\n";
        assert_eq!(hold(whole), Ok(()));
    }
}
