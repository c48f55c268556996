//! Every known gap the tests step around, in one table, each with its reason and how a test is
//! narrowed because of it (what it does not generate, or does not check). The code that
//! narrows names its entry (`gaps::NAME`), so a reader finds every narrowing from here, and
//! an entry whose narrowing is gone from the code goes too. The data cases keep their own
//! known gaps as folders (`tests/cases/pending/`), each with its reason in `expect.toml`.

/// One known gap, or one deliberate difference from kyaml the theirs-mode reference follows,
/// and how the tests are narrowed around it.
#[derive(Debug)]
pub struct Gap {
    /// The entry's name, as the narrowing code refers to it.
    pub name: &'static str,
    /// What kmerge does, and why a test cannot simply expect otherwise.
    pub reason: &'static str,
    /// Where and how a test is narrowed.
    pub narrowing: &'static str,
    /// Whether the narrowing is in force. A switch that narrows nothing any more stays listed
    /// until the switch itself is gone, so that turning it back on is a visible change.
    pub in_force: bool,
}

/// The table: every entry below, in one place.
pub const KNOWN_GAPS: [&Gap; 8] = [
    &ONE_DOCUMENT_EDIT_PER_SIDE,
    &DISJOINT_EDITS_WITHOUT_NULLS,
    &KYAML_RESURRECTS_UNCHANGED,
    &KYAML_EMPTY_SKELETONS,
    &KYAML_PARTIAL_ELEMENTS,
    &KYAML_FAILS_ON_KIND_CLASH,
    &INVARIANT_SKIPS_REPEATED_IDENTITIES,
    &COMMENT_ONLY_FILES_LINE_MERGED,
];

// ---- tests/properties: what the generator makes ----

/// `Gen::add_and_remove`.
pub const ONE_DOCUMENT_EDIT_PER_SIDE: Gap = Gap {
    name: "one-document-edit-per-side",
    reason: "deleting the first two documents made overlapping edits (reported); and a side that \
             removes one document and adds another may have them paired as a rename, even \
             across kinds",
    narrowing: "with Gen::add_and_remove false, each side makes at most one document-level edit \
                (random_edits.rs, Gen::edit and Gen::rich_doc_edit). Every property sets it \
                true since 44c6310, so this narrows nothing now",
    in_force: false,
};

/// `Gen::nulls` in `disjoint_edits_merge_cleanly`.
pub const DISJOINT_EDITS_WITHOUT_NULLS: Gap = Gap {
    name: "disjoint-edits-without-nulls",
    reason: "no reason was recorded when the property was written (f95d5df); its comparison \
             also drops null map entries (normal(.., true)), so a null edit would not be \
             checked as data there",
    narrowing: "disjoint_edits_merge_cleanly generates no edit that sets a value to null \
                (Gen::nulls false); the other properties do",
    in_force: true,
};

// ---- tests/properties: the theirs-mode reference (oracle.rs) ----

/// `Oracle::resurrect_unchanged`.
pub const KYAML_RESURRECTS_UNCHANGED: Gap = Gap {
    name: "kyaml-resurrects-unchanged",
    reason: "kyaml brings back a resource ours deleted whenever theirs still has it, changed or \
             not (kyaml-semantics §1 rule 2); the engine only when theirs changed it (reported)",
    narrowing: "theirs_policy_matches_reference compares with the reference's \
                resurrect_unchanged off (Oracle::engine); the reference is checked with it on \
                and off against the conformance vectors",
    in_force: true,
};

/// `Oracle::empty_skeletons`.
pub const KYAML_EMPTY_SKELETONS: Gap = Gap {
    name: "kyaml-empty-skeletons",
    reason: "kyaml brings back a map or list ours deleted as theirs' delta even when that is \
             empty (a skeleton of {} and []), and keeps a map theirs deleted as the {}s of its \
             nested maps (§2.3 rules 3-4, §2.5 rule 2); the engine drops both (reported)",
    narrowing: "theirs_policy_matches_reference compares with the reference's empty_skeletons \
                off (Oracle::engine)",
    in_force: true,
};

/// `Oracle::partial_elements`.
pub const KYAML_PARTIAL_ELEMENTS: Gap = Gap {
    name: "kyaml-partial-elements",
    reason: "kyaml keeps an element theirs deleted and ours changed as what ours added plus its \
             key, a partial element (§2.5); the engine deletes it (reported)",
    narrowing: "theirs_policy_matches_reference compares with the reference's partial_elements \
                off (Oracle::engine)",
    in_force: true,
};

/// The kind clash in `Oracle::merge`.
pub const KYAML_FAILS_ON_KIND_CLASH: Gap = Gap {
    name: "kyaml-fails-on-kind-clash",
    reason: "where the versions of one field are of different kinds (a map in one, a list or \
             scalar in another), kyaml fails the merge (\"wrong node kind\"); the engine takes \
             the value whole",
    narrowing: "the reference takes the value whole as the engine does (Oracle::merge), so \
                kyaml's failure is not checked",
    in_force: true,
};

// ---- tests/properties: the mark-mode invariant (invariant.rs) ----

/// The early return of `check_invariant`.
pub const INVARIANT_SKIPS_REPEATED_IDENTITIES: Gap = Gap {
    name: "invariant-skips-repeated-identities",
    reason: "an input with one document identity twice goes to git's line merge (README, \
             Fallback: inputs the rules cannot pair safely); the invariant has nothing to pair",
    narrowing: "check_invariant accepts any clean result where base, ours or theirs repeats an \
                identity",
    in_force: true,
};

// ---- tests/hostile/: inputs the README promises a structural merge ----

/// The comments-only case of `file_of_only_comments`.
pub const COMMENT_ONLY_FILES_LINE_MERGED: Gap = Gap {
    name: "comment-only-files-line-merged",
    reason: "a file of nothing but comments goes to git's line merge (\"line merge used: no \
             version holds YAML data, only comments\"), so edits on neighbouring comment lines \
             conflict, although the README says comments are content and a comment alone never \
             makes a conflict, and does not list such files among the fallbacks",
    narrowing: "tests/hostile/main.rs, file_of_only_comments: the case \"comments only, edits on \
                neighbouring lines\" may end in the line merge; every other input the README \
                promises a structural merge fails the test if it does",
    in_force: true,
};
