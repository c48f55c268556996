#!/usr/bin/env python3
"""Adversarial random-merge harness with an independent data oracle (Python 3 + PyYAML only).

WHAT IS MERGED (--mode). Three-way merges made from real YAML files: ours and theirs are each made
from one base by 1-4 random, realistic TEXT edits that keep the file's formatting:

  - a scalar changed; a key added (sometimes with a block scalar), deleted, moved, set to null;
    a map or list emptied (`args: []`, RBAC `rules: []`, `finalizers: []`, `patches: []` most);
  - a list element added, deleted, reordered, or two swapped; a container or resource copied under
    a new name; an element copied under its own name (two CI steps with one name);
  - a keyed element renamed (its key field: a volumeMount's mountPath, a port's containerPort,
    else its name), sometimes with a new element under the old key beside it; a resource renamed
    (metadata.name, sometimes the namespace), sometimes with a new resource under the old name;
    a side renaming what the other side renamed mostly picks the same new name;
  - documents reordered; a Service port added; comments changed; lines of a literal block scalar
    edited, its header changed, or the trailing blank lines of a `|+` one; a small block map or
    list rewritten in flow style;
  - in values files (no resource in them): an anchor added with an alias of it or a `<<` merge key
    in a later map, an alias pointed at another anchor; values under anchors and maps holding `<<`
    are edited more often.
Names are edited like any other value; a resource's apiVersion and kind are not. Line edits of
folded (>) scalars are not made (their value is one line). Edits of the two sides are biased
towards each other (neighbouring lines, the same node, the same kind of edit) so that git's line
merge often conflicts.

Modes: `manifests` (inputs with a resource in them), `values` (plain YAML: values files, Chart.yaml,
CI files; with ../shared also the values, Chart and CI files of ../shared/templates), `templates`
(Helm templates, below), `packages` (folders, below), `mixed` (the four in turn, the default) and
`files` (manifests and values together). Inputs: base/ours/theirs.yaml of ../shared/realworld/*/
(without ../shared, the repository's tests/realworld/; --inputs DIR changes the root; --max-bytes
leaves out large files) that load as YAML without duplicate keys; --perf adds ../shared/perf/
files cut to a few documents.

`templates`: Helm chart templates (../shared/templates/*/ files holding `{{`), each read as the
harness's own skeleton (class Skeleton: control lines and block-valued actions as comments, other
actions as plain scalars, each the width of its action), edited as YAML, put back into template
text, merged, and the result (each side of a conflict) read as a skeleton again and judged as
below; an action in the result that no input has is a violation. Control lines are comments to
the oracle, but a key is read with the template blocks (`if`, `with`, `range`) it stands in within
its document, so a key moved into or out of a block is a change (Skeleton.block_keys).

`packages`: 2-5 real files laid out as a folder (base/), each side made by 1-4 package edits: a
file edited (1-3 of the edits above), added (another real file), deleted, or moved (renamed or
put in another folder, then edited or not). The command runs on the three folders ({base}
{ours} {theirs} are folders, {out} a folder to create) and the result folder is judged as one
set of documents: resources by identity wherever they are, other documents by their file and
position, files paired by path (a file a side moved, by its content: the base file that side
lacks and the new file of that side, each the other's clearly most alike, half their leaves
alike); each resource of the result must sit in a file ours or theirs put it in (or where its
file went), and a clean result leaves no file without a document.

THE ORACLE. It shares no code with the tool under test; it reads the three versions and the
result as data (PyYAML, YAML 1.1 typing; aliases expanded and `<<` merged; an anchor defined again
binds later aliases) and pairs by its own reading:

  - documents pair by identity (API group, kind, namespace, name); documents with neither kind
    nor metadata.name by position among such documents; three single-document inputs pair
    whatever their identities;
  - lists are keyed by the Kubernetes schema table, else by the first of mountPath, devicePath,
    ip, type, topologyKey, name, containerPort that every element carries, non-null and unique in
    each version (a missing protocol of a composite key is TCP); kustomization file lists and the
    table's other lists are element multisets;
  - renames (keyed elements and resources alike): a base key gone from a side and a key new to it
    whose elements have at least half of their other leaves alike, each the other's clearly best
    match (by a quarter of the leaves), are that element renamed: judged as the base element
    under the new key, with the other side's element of the old key (or of its own new key where
    it renamed it too). Where a reading is not clear (two candidates alike, the other side holding
    the new key too, a side keeping the old key while a new element is more alike), every
    plausible pairing is tried and the result is wrong only if it is wrong under all of them;
  - a file with anchors is read a second time with each alias as a reference to the node its
    anchor names (not expanded): it is right if either reading finds nothing wrong.

Path by path, with values b, o, t, r (any may be absent): o == t -> r == o; b == o -> r == t;
b == t -> r == o; otherwise (both sides changed it, differently) maps recurse, keyed lists recurse
by key, other lists are element multisets (one element both sides modified may stand as the
field-level merge of the two; the relative order both sides agree on is kept), multi-line strings
must equal git's clean line merge, a deletion against a change and anything else must not be
clean; one side deleting what the other set to null or emptied leaves it absent; no duplicate
map key, identity or list key.

  - mark (the default policy): the above.
  - ours: the same, but where both sides changed a path differently ours' value wins (a deletion
    against a change: ours' state; a multi-line string: ours' whole text or git's line merge with
    ours taken in its conflicting hunks).
  - theirs: kyaml's merge3 as ../shared/notes/kyaml-semantics.md states it: a resource theirs
    deleted goes, one ours deleted comes back from theirs, ours' own stays (kpt's variants too: a
    resource ours changed stays, one ours deleted stays deleted); a null in ours or theirs clears
    the field (kpt: only a null that is a change); a scalar or a list without keys theirs changed
    is theirs', else ours'; a map ours lacks gets theirs' changes only; a map or keyed list theirs
    deleted loses base's fields and elements (a keyed list: ours' own too); keyed elements are
    merged by key as maps (an element ours lacks gets theirs' changed fields and its key; one
    theirs deleted goes, or keeps only ours' own fields), set lists as sets; a type change takes
    either side's value. kyaml pairs by key alone: a rename is also read as a deletion and an
    addition.
  - a clean result of git's line merge (stderr `line merge used:`) is judged by mark's rules
    whatever the policy: no policy decided it.

A CONFLICTED RESULT (exit 1): the files of taking ours', then theirs' part of every conflict (base
sections dropped) must each load (no duplicate key) and pass the side check: the reading above
with that side winning wherever both sides changed a path differently, where the side's whole
value is also right (so a conflict as wide as a list or a document is fine); elsewhere it must
hold the other side's changes as a clean result would. A list is also right where it equals git's
element-by-element merge with the winning side's stretch of each conflicting hunk (the sequence
reading of DESIGN.md: edits of a list that overlap conflict around just those elements) and
holds every element all three versions hold (git's stretch may drop one the other side only
moved); with --strict-lists it is judged as element multisets only, and such a finding gets
`/hunk` after its rule (a stretch taken whole drops the other side's change inside it). The same
holds for the ours policy's clean results. A conflict side's list may also be such a merge with a
conflict widened over neighbouring elements, as a line merge's conflict widens.

FINDINGS, by category: `wrong-clean` (exit 0, the oracle disagrees), `side-loses-data` (the side
check fails), `side-unloadable`, `crash` (exit status 2 or more, a signal, a timeout, no output,
or a stderr line asking for a bug report: "a bug in kmerge"), `policy-conflict` (exit 1 under
--on-conflict theirs or ours without `line merge used:` on stderr). A finding in a result of
git's line merge is marked `(line fallback)`.

Usage:
  scripts/adversary.py --cmd 'kmerge merge3 --on-conflict {policy} --base {base} --ours {ours} --theirs {theirs} -o {out}'
      [--n 1500] [--seed 1] [--policy mark[,theirs,ours]] [--mode mixed] [--out DIR] [--jobs 2]
      [--max-bytes N] [--perf] [--strict-lists] [--fail-on-findings] [-v]
  scripts/adversary.py --git [...]            # git merge-file as the command (files only)
  scripts/adversary.py --cmd ... --mode M --policy P --index 17 --out DIR   # redo merge 17, keep it
  scripts/adversary.py --cmd ... --shrink CASE_DIR [...]  # minimise saved cases (CASE_DIR/min/)
  scripts/adversary.py --cmd ... --check DIR [DIR...]     # the oracle's verdict on case folders
  scripts/adversary.py --self-test                        # the oracle against known answers: built-in
                                                          # merges, tests/conformance's merge3 vectors
TEMPLATE placeholders: {base} {ours} {theirs} {out} (shell-quoted paths) and {policy}; --policy
reaches the command only through {policy}. --n merges are made for each policy, the same ones.
--out DIR keeps every merge with a finding as DIR/<mode>-<policy>-<seed>-<n>/ with
{base,ours,theirs,result}.yaml (packages: base/ ours/ theirs/ result/ folders) and why.txt, and the
report as DIR/report-<mode>-<policies>-<seed>.txt. --shrink drops documents and lines (packages:
files, then documents) while the merge keeps one of its findings (templates are not shrunk);
--check and --shrink take the policy from the case's why.txt unless --policy is given.
--skip-kinds leaves edit kinds out (triage only: never to make a run pass).
Output: per policy and mode, merges and findings by category; per category, findings by rule and
by edit kind; a final summary line. Exit status 0 unless the harness fails, or (with
--fail-on-findings) a merge has a finding.
"""
import argparse
import collections
import datetime
import difflib
import glob
import itertools
import json
import multiprocessing
import os
import random
import re
import shlex
import subprocess
import sys
import tempfile
import time

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED_GUESSES = [os.path.join(HERE, "..", "..", "shared"), os.path.join(HERE, "..", "shared")]
CLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
GIT_CMD = "git merge-file -p {ours} {base} {theirs} > {out}"
SEED_KEYS = ["mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort"]
# A kustomization's lists of files, where order carries no meaning (issue 11's set lists).
KUSTOMIZATION_SETS = {"resources", "components", "crds", "configurations"}
KUSTOMIZATION_KINDS = {"kustomize.config.k8s.io/Kustomization", "kustomize.config.k8s.io/Component",
                       "Kustomization"}


# ---------------------------------------------------------------------------------------------
# Loading: YAML 1.1 (PyYAML) typing, duplicate keys rejected.

class DuplicateKeyError(yaml.constructor.ConstructorError):
    pass


class NoDuplicates:
    """PyYAML keeps the last of two equal keys silently; a merge result must not have them.

    The keys are checked on the composed nodes before anything is constructed: PyYAML merges a
    `<<` by rewriting the mapping node in place (its merged keys put in front of its own), so a
    node merged into another one (`<<: *a` where `&a` holds a `<<` of its own) and then
    constructed itself would show the merged keys beside its own as repeated ones, which the
    text does not hold (values-mark-1142-973)."""

    def __init__(self, stream):
        self.adv_lines = stream.splitlines(keepends=True) if isinstance(stream, str) else None
        super().__init__(stream)

    def construct_document(self, node):
        check_duplicate_keys(node)
        return super().construct_document(node)


class BlockText(str):
    """A block scalar's value with its header and its lines as written (`block_source`)."""
    source = None


def construct_str(loader, node):
    """A string; a block scalar's keeps its header and lines (BlockText) for the line reading
    of a text whose header a side changed (Rules.block_lines)."""
    value = loader.construct_scalar(node)
    source = block_source(getattr(loader, "adv_lines", None), node)
    if source is None:
        return value
    out = BlockText(value)
    out.source = source
    return out


def block_source(lines, node):
    """(header, lines below it as written) of a block scalar node, or None: no text, another
    style, an indentation indicator (its meaning hangs on the parent's column), tabs or CRs."""
    if lines is None or node.style not in ("|", ">"):
        return None
    first, last = node.start_mark.line, node.end_mark.line
    if first >= len(lines):
        return None
    m = re.match(r"[|>][+-]?(?=\s|$)", lines[first][node.start_mark.column:])
    end = last if node.end_mark.column == 0 else last + 1
    body = "".join(lines[first + 1:end])
    if not m or "\t" in body or "\r" in body:
        return None
    return m.group(0), body


def node_marker(node):
    """A composed node as a hashable value, for comparing keys that are not scalars."""
    if isinstance(node, yaml.ScalarNode):
        return (node.tag, node.value)
    if isinstance(node, yaml.SequenceNode):
        return (node.tag, tuple(node_marker(n) for n in node.value))
    return (node.tag, tuple((node_marker(k), node_marker(v)) for k, v in node.value))


def check_duplicate_keys(root):
    """Raises DuplicateKeyError where a mapping of the composed tree `root` holds one key twice
    (merge keys aside: their keys are overridden by the mapping's own, as YAML 1.1 says)."""
    seen_nodes, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            keys = set()
            for key_node, value_node in node.value:
                stack.append(value_node)
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                try:
                    marker = node_marker(key_node)
                    hash(marker)
                except (TypeError, RecursionError):
                    continue
                if marker in keys:
                    raise DuplicateKeyError(None, None, "duplicate key %r" % (key_node.value,), key_node.start_mark)
                keys.add(marker)


class StrictLoader(NoDuplicates, CLoader):
    pass


StrictLoader.add_constructor("tag:yaml.org,2002:str", construct_str)


class StrictPyLoader(NoDuplicates, yaml.SafeLoader):
    """The pure-Python loader, for what libyaml's composer refuses or hides: an anchor defined
    again (YAML allows it: later aliases name the later node; PyYAML's composer stops), and the
    anchor each node was defined with (for the reference reading of aliases, load_refs)."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            return super().compose_node(parent, index)
        anchor = self.peek_event().anchor
        if anchor is not None:
            self.anchors.pop(anchor, None)
        node = super().compose_node(parent, index)
        if anchor is not None:
            node.adv_anchor = anchor
        return node


StrictPyLoader.add_constructor("tag:yaml.org,2002:str", construct_str)


def construct_docs(nodes):
    """Documents from composed nodes (one parse serves the edit index and the strict load)."""
    loader = StrictLoader("")
    docs = []
    for n in nodes:
        if n is None:
            continue
        d = loader.construct_document(n)
        if d is not None:
            docs.append(canon(d))
    return docs


def load_docs(text):
    """All documents of a text as canonical values (aliases expanded, `<<` merged); empty
    documents are dropped."""
    try:
        return [canon(d) for d in yaml.load_all(text, Loader=StrictLoader) if d is not None]
    except yaml.composer.ComposerError as e:
        if "found duplicate anchor" not in str(e):
            raise
        return [canon(d) for d in yaml.load_all(text, Loader=StrictPyLoader) if d is not None]


GUARDED_KEY = re.compile("^(.+)\u2039([^\u203a]*)\u203a$")
# The key Skeleton.block_keys puts first in a list item that stands in other template blocks
# than the key above its list, named by those blocks: it holds no data, only the item's guard.
ITEM_KEY = ("str", "\u2039item\u203a")


def guards_as_fields(v):
    """A value of a skeleton read with keys named by their blocks (Skeleton.block_keys), each
    such key `k‹blocks›` read as the key `k` beside a field `k‹guard›` holding its blocks,
    where no sibling has the same name under other blocks (an `if`'s and its `else`'s `k`
    stay two keys). The blocks around a key are then one more thing a side can change, and
    the key keeps its identity: a side whose control lines put `spec` under other blocks (an
    `end` moved above it) changed the guard of `spec`, not deleted one `spec` and added
    another, so the other side's edit inside `spec` is no delete/modify, and a result must
    hold both. A key a side moved into a block still reads as a change of its guard that a
    result may not drop, and two sides moving it into different blocks as a conflict."""
    if isinstance(v, list):
        return [guards_as_fields(x) for x in v]
    if not isinstance(v, dict):
        return v

    def split(k):
        m = GUARDED_KEY.match(k[1]) if isinstance(k, tuple) and k[0] == "str" else None
        return (("str", m.group(1)), m.group(2)) if m else (k, None)
    names = [split(k)[0] for k in v]
    out = {}
    for k, x in v.items():
        name, guard = split(k)
        if guard is not None and name == ITEM_KEY:
            out[("str", name[1] + "\u2039guard\u203a")] = ("str", guard)
        elif guard is not None and names.count(name) == 1:
            out[name] = guards_as_fields(x)
            out[("str", name[1] + "\u2039guard\u203a")] = ("str", guard)
        else:
            out[k] = guards_as_fields(x)
    return out


def is_guard(k):
    return isinstance(k, tuple) and k[0] == "str" and k[1].endswith("\u2039guard\u203a")


def drop_guards(v):
    """A value without the guard fields guards_as_fields added."""
    if isinstance(v, list):
        return [drop_guards(x) for x in v]
    if isinstance(v, dict):
        return {k: drop_guards(x) for k, x in v.items() if not is_guard(k)}
    return v


def guard_fields(v, at=()):
    """The guard fields (guards_as_fields) inside a value, each with its path."""
    if isinstance(v, list):
        return frozenset().union(*(guard_fields(x, at + (i,)) for i, x in enumerate(v)))
    if isinstance(v, dict):
        return frozenset().union(*((guard_fields(x, at + (k,)) | ({(at + (k,), x)} if is_guard(k) else set()))
                                   for k, x in v.items()))
    return frozenset()


def guard_of(v, p):
    """The guard at the guard field's path `p` (guard_fields) in `v`: its blocks, None where
    the key stands there in no blocks beyond its parent's, ABSENT where `v` lacks the key."""
    for k in p[:-1]:
        if not isinstance(v, dict) or k not in v:
            return ABSENT
        v = v[k]
    if not isinstance(v, dict):
        return ABSENT
    if p[-1] in v:
        return v[p[-1]]
    return None if ("str", p[-1][1][:-len("\u2039guard\u203a")]) in v else ABSENT


def with_guard(v, p, g):
    """A copy of `v` whose guard field at `p` holds `g` (None: the key in no blocks)."""
    if len(p) > 1:
        return {**v, p[0]: with_guard(v[p[0]], p[1:], g)}
    out = {k: x for k, x in v.items() if k != p[0]}
    if g is not None:
        out[p[0]] = g
    return out


def follow_reenclosure(b, x, y, r):
    """Document `y` with the guard of each key only it added read as `r` has it, where `x`
    (the other side) changed the blocks around every key of base that stood in the same
    blocks, all the same way, and `r` holds the key so.
    A guard names blocks from the key's parent (Skeleton.beyond), at a document's top from
    the blocks open at its first data line, so an `end` a side moved or whose opener it
    deleted re-encloses every key below it down to a block it left alone: base's keys in
    that block read as moved out of the closed block (`^.…`). A key the other side only
    added in that block, its control lines left as base had them, stands in the block, and
    a result that keeps the first side's control lines holds it where that side put the
    block, as a key added to a map goes where the other side moved the map (adversary
    templates-mark-1261-1098: ours' deleted `range` let its `end` close the document's `if`,
    theirs added a top-level key in a `with` below; git's merge, theirs' line in place, read
    as theirs' guard lost). Only paths of map keys: list elements pair by position here,
    which says nothing of which element is which."""
    def paths(v):
        return {p for p, _ in guard_fields(v) if all(isinstance(k, tuple) for k in p)}
    moved = {}
    for p in paths(b) | paths(x):
        gb, gx = guard_of(b, p), guard_of(x, p)
        if gb is not ABSENT and gx is not ABSENT:
            moved.setdefault(gb, set()).add(gx)
    for p in paths(y) | paths(r):
        gy, gr = guard_of(y, p), guard_of(r, p)
        if (gy is not ABSENT and gr is not ABSENT and gy != gr and guard_of(b, p) is ABSENT
                and guard_of(x, p) is ABSENT and moved.get(gy) == {gr}):
            y = with_guard(y, p, gr)
    return y


def load_guarded(text):
    """load_docs of a skeleton read with keys named by their blocks, each guard a field of
    its key (guards_as_fields); the same as load_docs on a text with no such names."""
    return [guards_as_fields(d) for d in load_docs(text)]


def load_refs(text, tie=False):
    """All documents with aliases NOT expanded: an alias is ("alias", where its anchor is) and
    `<<` an ordinary key. The second reading of a file with anchors: an alias added or kept by
    one side refers to the anchored node, so what the other side changed there shows through it
    (DESIGN.md: aliases are never expanded)."""
    loader = StrictPyLoader(text)
    docs = []
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is not None:
                v = ref_value(loader, node, [str(len(docs))], {})
                if v is not None:
                    docs.append(tied(v, [str(len(docs))], alias_targets(v)) if tie else v)
    finally:
        loader.dispose()
    return docs


def alias_targets(v, out=None):
    """The places (as ref_value writes them) that an alias of a document names."""
    out = set() if out is None else out
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "alias":
        out.add(v[1])
    elif isinstance(v, dict):
        for x in v.values():
            alias_targets(x, out)
    elif isinstance(v, list):
        for x in v:
            alias_targets(x, out)
    return out


def tied(v, path, targets):
    """A document with each place an alias names wrapped as ("anchored", value): the third
    reading, for a conflict's sides. A side that anchors a place and names it from another
    ties the two: the other side's change of the anchored place (a null, an emptying) and
    the alias cannot both stand, so the place is that side's change too, and a conflict
    side holding its own anchored value there loses nothing (issue 27, values-mark-9009-3713:
    ours anchors crds and merges it into server with `<<`, theirs nulls crds)."""
    here = "/".join(path)
    if isinstance(v, dict):
        v = {k: tied(x, path + [str(plain(k))], targets) for k, x in v.items()}
    elif isinstance(v, list):
        segs = element_places([value_name(x) for x in v])
        v = [tied(x, path + [seg], targets) for seg, x in zip(segs, v)]
    return Anchored(v) if here in targets else v


class Anchored(tuple):
    """A place `tied` wraps: equal as ("anchored", repr(value)), so that it differs from the
    same value unwrapped in a version that does not alias it; the value kept as `.value` for
    `bare`."""

    def __new__(cls, v):
        out = super().__new__(cls, ("anchored", repr(v)))
        out.value = v
        return out


def bare(v):
    """`v` with each place `tied` wrapped given back as its value: the data a version holds
    there, whoever aliases it."""
    if isinstance(v, Anchored):
        return bare(v.value)
    if isinstance(v, dict):
        return {k: bare(x) for k, x in v.items()}
    if isinstance(v, list):
        return [bare(x) for x in v]
    return v


def tie_holders(versions):
    """The tied reading's other half, across the four versions [base, ours, theirs, side] of a
    conflict's side: where one side's alias names a place base holds and the other side deleted,
    the alias cannot stand beside that deletion (it would name no anchor), so the map or list
    holding the alias is the deleting side's change too, one change with its deletion. That
    container is wrapped as ("tied", value) in both sides and in the side taken (base kept):
    both sides changed it, and a side holding its own value there loses nothing
    (packages-mark-1130-1955: theirs anchors image and merges it into serviceAccount with
    `<<: *base`, ours deletes image; ours' side keeps ours' serviceAccount, theirs' side
    theirs'). The same where the other side nulled the place base held a value at: an anchor
    on a null merged with `<<` is no map to merge, so the alias cannot stand beside it either.
    A side that changed the anchored place otherwise, emptied it included, ties nothing: the
    anchor can stand on its changed value (`image: &base {}`), the alias would name that, and
    both changes stand (packages-mark-1141-651: theirs writes `image: {}`; a conflict whose
    side drops ours' merge key there loses ours' change)."""
    b, o, t, r = versions

    def gone(x):
        return x is ABSENT or x is None
    # Holders are named as base names them (base_place): a holder the aliasing side renamed
    # is the element the other side and the side taken hold under base's name, and is tied
    # there too (values-mark-1149-9317: theirs renamed maintainers[0] and added an alias in
    # it of annotations, which ours deleted; ours' side keeps ours' maintainers[0]).
    places = {base_place(b, x, holder) for x, y in ((o, t), (t, o)) for i, doc in enumerate(x)
              for place, holder in alias_holders(doc, [str(i)])
              if not gone(at_place(b, place)) and gone(at_place(y, place))}
    if not places:
        return versions
    return [b] + [[wrap_places(d, [str(i)], places, lambda here, v=v: base_place(b, v, here))
                   for i, d in enumerate(v)] for v in (o, t, r)]


def tie_files(trees, moves=None):
    """tie_holders for a package: the four versions' {path: documents}, each file's versions
    tied together, a file a side moved read at its new path (Package's groups: ours moved
    config/values.yaml to values.yaml, packages-mark-1141-651), the result's at the first of
    ours', theirs' and base's paths it holds."""
    out = [dict(tr) for tr in trees]
    b, o, t, r = trees
    for _, bp, op, tp in Package(b, o, t, moves).groups:
        rp = next((p for p in (op, tp, bp) if p is not None and p in r), None)
        paths = (bp, op, tp, rp)
        tied_docs = tie_holders([tr.get(p, []) if p is not None else [] for tr, p in zip(trees, paths)])
        for tr, p, docs in zip(out, paths, tied_docs):
            if p is not None and p in tr:
                tr[p] = docs
    return out


def alias_holders(v, path):
    """(place an alias names, place of the map or list holding it) for each alias in `v`."""
    out = []
    if isinstance(v, dict):
        items = [(str(plain(k)), x) for k, x in v.items()]
    elif isinstance(v, list):
        segs = element_places([value_name(x) for x in v])
        items = list(zip(segs, v))
    else:
        return out
    for seg, x in items:
        if isinstance(x, tuple) and len(x) == 2 and x[0] == "alias":
            out.append((x[1], "/".join(path)))
        else:
            out.extend(alias_holders(x, path + [seg]))
    return out


def at_place(docs, place):
    """The value at a place (as ref_value writes it: the document's index, then keys and
    element places) of a version's documents; ABSENT where it holds none."""
    segs = place.split("/")
    if not segs[0].isdigit() or int(segs[0]) >= len(docs):
        return ABSENT
    v = docs[int(segs[0])]
    for seg in segs[1:]:
        if isinstance(v, dict):
            v = next((x for k, x in v.items() if str(plain(k)) == seg), ABSENT)
        elif isinstance(v, list):
            segs_here = element_places([value_name(x) for x in v])
            v = next((x for s, x in zip(segs_here, v) if s == seg), ABSENT)
        else:
            return ABSENT
        if v is ABSENT:
            return ABSENT
    return v


def renamed_places(versions):
    """The reference reading's four versions [base, ours, theirs, result] with each alias of
    ours, theirs and the result naming an element a side renamed by base's name of it. A place
    names an element by its unique `name` (element_places), so an alias into an element one
    side renamed (`team: *base` under theirs' protectedApplications[0], whose name ours
    changed) read by the new name seemed to name another place than by the old one, though
    both name the same node (values-mark-1135-813). Renamed here: in a list at the place, a
    name of the version base lacks, where exactly one of base's names is gone from it and the
    element is the only one of the new names that keeps at least half of that base element's
    other leaves than its name (the side that renamed it may have added to it, and other
    elements beside it, the other side changed it)."""
    b = versions[0]
    return [b] + [[map_aliases(d, lambda place: base_place(b, v, place)) for d in v] for v in versions[1:]]


def map_aliases(v, f):
    """`v` with each alias's place passed through `f`."""
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "alias":
        return ("alias", f(v[1]))
    if isinstance(v, dict):
        return {k: map_aliases(x, f) for k, x in v.items()}
    if isinstance(v, list):
        return [map_aliases(x, f) for x in v]
    return v


def base_place(b_docs, docs, place):
    """A version's alias place with each element segment that names an element the version
    renamed written with base's name of it (see renamed_places); unchanged where base lacks
    the place's way there."""
    segs = place.split("/")
    if not segs[0].isdigit() or int(segs[0]) >= len(docs) or int(segs[0]) >= len(b_docs):
        return place
    v, bv = docs[int(segs[0])], b_docs[int(segs[0])]
    out = segs[:1]
    names = lambda l: element_places([value_name(x) for x in l])
    for seg in segs[1:]:
        if isinstance(v, dict) and isinstance(bv, dict):
            v = next((x for k, x in v.items() if str(plain(k)) == seg), ABSENT)
            bv = next((x for k, x in bv.items() if str(plain(k)) == seg), ABSENT)
        elif isinstance(v, list) and isinstance(bv, list):
            here, there = names(v), names(bv)
            copy = base_copy(v, bv, seg, there)
            if copy is not None:
                seg, v, bv = copy
                out.append(seg)
                continue
            x = next((x for s, x in zip(here, v) if s == seg), ABSENT)
            # The key field the segment names the element by (value_name); an index, none.
            field = seg.split("=", 1)[0] if "=" in seg else None
            new = [s for s in here if field and s.startswith(field + "=") and s not in there]
            gone = [(s, y) for s, y in zip(there, bv) if field and s.startswith(field + "=") and s not in here]
            if seg in new and len(gone) == 1 and x is not ABSENT:
                kept = lambda e: collections.Counter(l for l in leaves(e) if l[0] != "." + field)
                was = kept(gone[0][1])
                # The renamed element is the one new element that keeps half of the gone
                # element's leaves: an element the version also added beside the rename, unlike
                # the gone one, leaves the rename as clear as before (values-ours-1262-549:
                # theirs renamed a workflow step, anchored its `with` and aliased it, and added a
                # step `Checkout`; ours merged the step's env into it with `<<`; the result's and
                # ours' aliases read by the new name and by base's name seemed to name two places,
                # though both name the same step's env). Two such, or none, stay unread.
                alike = [s for s, y in zip(here, v)
                         if s in new and 2 * sum((kept(y) & was).values()) >= sum(was.values())]
                if alike == [seg]:
                    seg = gone[0][0]
            v, bv = x, at_place([bv], "0/" + seg)
        else:
            break
        out.append(seg)
        if v is ABSENT or bv is ABSENT:
            break
    return "/".join(out + segs[len(out):])


def base_copy(v, bv, seg, there):
    """(base's name of the element, it, base's element) where `seg` names by index an element
    of list `v` whose name (value_name) repeats in `v` but is one element's in base (`bv`, `there` its
    element_places), and the element is the strictly most alike that base element of the
    copies: the one that carries base's element on, the others copies of it. A side that copied
    an element makes its name repeat, so its places read by index; an alias the other side wrote
    into that element names it by name (values-mark-1149-8645: ours copied a workflow step,
    theirs anchored the step's `with` and aliased it elsewhere; the result's alias read by index
    seemed to name another place than theirs'). None elsewhere."""
    if not seg.isdigit() or int(seg) >= len(v):
        return None
    mine = value_name(v[int(seg)])
    if mine is None or mine not in there:
        return None
    was = bv[there.index(mine)]
    alike = sorted(((similarity(e, was), i) for i, e in enumerate(v) if value_name(e) == mine), reverse=True)
    if len(alike) < 2 or alike[0][1] != int(seg) or alike[0][0] <= alike[1][0]:
        return None
    return mine, v[int(seg)], was


def wrap_places(v, path, places, named=lambda here: here):
    """`v` with the value at each of `places` wrapped as ("tied", value) (see tie_holders);
    `named` gives a place of `v` as `places` are named (base's names of renamed elements)."""
    here = "/".join(path)
    if named(here) in places:
        return ("tied", repr(v))
    if isinstance(v, dict):
        return {k: wrap_places(x, path + [str(plain(k))], places, named) for k, x in v.items()}
    if isinstance(v, list):
        segs = element_places([value_name(x) for x in v])
        return [wrap_places(x, path + [seg], places, named) for seg, x in zip(segs, v)]
    return v


def element_places(names):
    """How a place names each element of a list: by its key (PLACE_KEYS: `field=value`, see
    value_name) where no sibling shares it, else by its index. An alias that names an element
    must keep naming it when the other side inserts or renames elements before it
    (values-mark-1130-817: ours inserted a job above the one theirs anchored; by index the
    result's alias seemed to name another place than theirs')."""
    counts = collections.Counter(n for n in names if n is not None)
    return [n if n is not None and counts[n] == 1 else str(i) for i, n in enumerate(names)]


# The fields that name an element in a place: `name` first (as before any other), then the
# seed keys. An element with no `name` is still named by its key, not its index: a list of
# topologySpreadConstraints is keyed by topologyKey, and ours' element inserted above the one
# theirs anchored and aliased made the result's alias read by index name another element
# than theirs' (values-mark-1151-1309).
PLACE_KEYS = ["name"] + [k for k in SEED_KEYS if k != "name"]


def place_name(field, scalar):
    """`field=value` with `/` and `%` escaped: a place is its segments joined by `/`, and a
    key such as a topologyKey or a mountPath holds slashes."""
    return "%s=%s" % (field, str(scalar).replace("%", "%25").replace("/", "%2F"))


def value_name(x):
    """An element's name in a place: the first of PLACE_KEYS it holds as a scalar; None
    where it holds none (a read value, as load_docs and ref_value make them)."""
    if not isinstance(x, dict):
        return None
    for f in PLACE_KEYS:
        v = x.get(("str", f))
        if isinstance(v, tuple) and len(v) == 2 and v[0] not in ("{}", "[]", "alias", "anchored", "tied", "complex"):
            return place_name(f, plain(v))
    return None


def ref_value(loader, node, path, seen):
    if id(node) in seen:
        return ("alias", seen[id(node)])
    seen[id(node)] = "/".join(path)
    if isinstance(node, yaml.ScalarNode):
        if node.tag == "tag:yaml.org,2002:merge":
            return ("str", "<<")
        return canon(loader.construct_object(node, deep=True))
    if isinstance(node, yaml.SequenceNode):
        segs = element_places([node_name(x) for x in node.value])
        return [ref_value(loader, x, path + [seg], seen) for seg, x in zip(segs, node.value)]
    out = {}
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode):
            key = ("str", "<<") if k.tag == "tag:yaml.org,2002:merge" else canon(loader.construct_object(k, deep=True))
        else:
            key = ("complex", repr(ref_value(loader, k, path, {})))
        out[key] = ref_value(loader, v, path + [str(plain(key))], seen)
    return out


def node_name(node):
    """value_name of a mapping node, for element_places; None elsewhere."""
    if not isinstance(node, yaml.MappingNode):
        return None
    fields = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    for f in PLACE_KEYS:
        v = fields.get(f)
        if isinstance(v, yaml.ScalarNode) and v.tag != "tag:yaml.org,2002:null":
            return place_name(f, v.value)
    return None


def has_anchors(*texts):
    return any(t is not None and re.search(r"[&*][A-Za-z0-9_]", t) for t in texts)


class _Absent:
    def __repr__(self):
        return "ABSENT"


ABSENT = _Absent()


def canon(x):
    """A typed value: Python's 1 == True == 1.0 must not make different YAML values equal."""
    if isinstance(x, dict):
        return {canon(k) if not isinstance(k, (dict, list)) else ("complex", repr(k)): canon(v) for k, v in x.items()}
    if isinstance(x, list):
        return [canon(e) for e in x]
    if x is None:
        return None
    if isinstance(x, bool):
        return ("bool", x)
    if isinstance(x, int):
        return ("int", x)
    if isinstance(x, float):
        return ("float", repr(x))
    if isinstance(x, str):
        return ("str", x)
    if isinstance(x, (datetime.date, datetime.datetime)):
        return ("time", x.isoformat())
    if isinstance(x, bytes):
        return ("binary", x)
    return ("other", repr(x))


def freeze(v):
    if isinstance(v, dict):
        return ("{}", frozenset((k, freeze(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("[]", tuple(freeze(x) for x in v))
    return v


def plain(v):
    """Back to ordinary Python values, for messages."""
    if v is ABSENT:
        return "<absent>"
    if isinstance(v, dict):
        return {str(plain(k)): plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, tuple) and len(v) == 2:
        return v[1]
    return v


def show(v, limit=300):
    if v is ABSENT:
        return "<absent>"
    s = json.dumps(plain(v), default=str, sort_keys=True)
    return s if len(s) <= limit else s[:limit] + "..."


def is_str(v):
    return isinstance(v, tuple) and len(v) == 2 and v[0] == "str"


def sget(m, key):
    return m.get(("str", key), ABSENT) if isinstance(m, dict) else ABSENT


# ---------------------------------------------------------------------------------------------
# Oracle

def load_table(shared):
    path = os.path.join(shared, "k8s-list-keys.json")
    with open(path) as f:
        return json.load(f)["kinds"]


def identity(doc):
    """(group, kind, namespace, name), or None for a document with neither kind nor name."""
    if not isinstance(doc, dict):
        return None
    kind = sget(doc, "kind")
    md = sget(doc, "metadata")
    name = sget(md, "name")
    if kind is ABSENT and name is ABSENT:
        return None
    av = sget(doc, "apiVersion")
    group = av[1].split("/")[0] if is_str(av) and "/" in av[1] else ""
    ns = sget(md, "namespace")
    ns = "" if ns is ABSENT or ns is None else plain(ns)
    # A null name is no name, as a null namespace is none: kyaml reads both as "" (the notes'
    # section 1), and its rule that a null clears a field turns `name: null` into no name, so a
    # resource must keep its identity across that.
    name = "" if name is ABSENT or name is None else plain(name)
    kind = plain(kind) if kind is not ABSENT else ""
    # A map or list where a name stands (the shrinker makes such inputs) is a part all the
    # same, written out: an identity is a key and must hash.
    part = lambda v: json.dumps(v, sort_keys=True, default=str) if isinstance(v, (dict, list)) else v
    return (group, part(kind), part(ns), part(name))


def kind_key(ident):
    if not ident:
        return ""
    group, kind = ident[0], ident[1]
    return "%s/%s" % (group, kind) if group else str(kind)


def keyed_docs(docs):
    """Documents by pairing key; the n-th repeat of an identity gets its own key."""
    out = collections.OrderedDict()
    dup = set()
    pos = 0
    for d in docs:
        ident = identity(d)
        if ident is None:
            k = ("#position", pos)
            pos += 1
        else:
            k = ident
            n = 0
            while k in out:
                n += 1
                dup.add(ident)
                k = ident + ("#repeat", n)
        out[k] = d
    return out, dup


class Violation:
    """One thing wrong with a merge: its finding category (`cat`), the rule it breaks, where."""

    def __init__(self, rule, path, detail, cat=None):
        self.rule, self.path, self.detail, self.cat, self.side, self.fallback = rule, path, detail, cat, None, False

    def __str__(self):
        return "%s%s%s at %s: %s" % ("(line fallback) " if self.fallback else "", "[%s side] " % self.side if self.side else "",
                                     self.rule, self.path, self.detail)


def first_difference(exp, got, path):
    """The deepest path where two values differ, to make a report readable."""
    if isinstance(exp, dict) and isinstance(got, dict):
        for k in list(exp) + [k for k in got if k not in exp]:
            a, b = exp.get(k, ABSENT), got.get(k, ABSENT)
            if a != b:
                return first_difference(a, b, path + [str(plain(k))])
    if isinstance(exp, list) and isinstance(got, list) and len(exp) == len(got):
        for i, (a, b) in enumerate(zip(exp, got)):
            if a != b:
                return first_difference(a, b, path + ["[%d]" % i])
    return path, exp, got


def git_text_merge(b, o, t, favor=None):
    """git's line merge of three strings: (clean, merged text); with `favor` ("ours" or
    "theirs") conflicting hunks take that side's lines (git merge-file --ours/--theirs)."""
    with tempfile.TemporaryDirectory() as d:
        names = []
        for n, s in (("o", o), ("b", b), ("t", t)):
            p = os.path.join(d, n)
            with open(p, "w", encoding="utf-8", newline="") as f:
                f.write(s)
            names.append(p)
        r = subprocess.run(["git", "merge-file", "-p", "--quiet"] + (["--" + favor] if favor else []) + names,
                           capture_output=True)
        if r.returncode != 0 and not favor:
            return one_sided_conflicts(names)
        return r.returncode == 0, r.stdout.decode("utf-8", errors="replace")


def one_sided_conflicts(names):
    """git's conflicts read with the lines both sides changed alike taken out (zdiff3): where
    in every conflict one side's lines are base's, only the other side changed them, and
    git conflicted only because its hunks touch (ours added a blank line after a line theirs
    edited and added the same blank line after). Then (True, each hunk's changed side), else
    (False, "")."""
    size = 40
    r = subprocess.run(["git", "merge-file", "-p", "--quiet", "--zdiff3", "--marker-size=%d" % size] + names,
                       capture_output=True)
    out, part, sides = [], None, {}
    for line in r.stdout.decode("utf-8", errors="replace").splitlines(keepends=True):
        mark = line[:size]
        if mark == "<" * size:
            part, sides = "o", {"o": [], "b": [], "t": []}
        elif part and mark == "|" * size:
            part = "b"
        elif part and mark == "=" * size:
            part = "t"
        elif part and mark == ">" * size:
            o, b, t = sides["o"], sides["b"], sides["t"]
            if o == b:
                out.extend(t)
            elif t == b:
                out.extend(o)
            else:
                return False, ""
            part = None
        elif part:
            sides[part].append(line)
        else:
            out.append(line)
    return True, "".join(out)


def text_merge(b, o, t, favor=None):
    """Line-wise 3-way merge of three strings. The line breaks at the end (a block scalar's
    chomping: none for `|-`, one for `|`, all its trailing blank lines for `|+`) are merged on
    their own, like a header: a side that only changed them must not make git conflict with a
    line the other side added or edited at the end. A side turning `|` into `|+` (keeping the
    blank line below as part of the value) changed how the text ends, not its last line
    (templates-mark-1144-8202, values-mark-1144-9093: the other side edited that last line)."""
    ends = [len(x) - len(x.rstrip("\n")) for x in (b, o, t)]
    body = [x[:len(x) - e] for x, e in zip((b, o, t), ends)]
    clean, merged = git_text_merge(body[0] + "\n", body[1] + "\n", body[2] + "\n", favor)
    if not clean:
        return False, ""
    merged = merged[:-1] if merged.endswith("\n") else merged
    eb, eo, et = ends
    if eo == et or eb == et:
        end = eo
    elif eb == eo:
        end = et
    elif favor:
        end = eo if favor == "ours" else et
    else:
        return False, ""
    return True, merged + "\n" * end


def seq_merge(b, o, t, favor=None):
    """git's line merge of three element sequences, one element a line: (clean, merged list)."""
    token, value = {}, {}

    def enc(lst):
        out = []
        for e in lst:
            f = freeze(e)
            if f not in token:
                token[f] = "e%d" % len(token)
                value[token[f]] = e
            out.append(token[f] + "\n")
        return "".join(out)
    clean, text = git_text_merge(enc(b), enc(o), enc(t), favor)
    if not clean:
        return False, None
    return True, [value[x] for x in text.split()]


def seq_chunks(b, o, t):
    """The three element sequences cut as diff3 cuts them: (base, ours, theirs) stretches,
    alternately stable (an element both sides kept in place, matched by difflib) and changed."""
    tb, to, tt = ([freeze(e) for e in x] for x in (b, o, t))

    def matches(other):
        m = {}
        for blk in difflib.SequenceMatcher(None, tb, other, autojunk=False).get_matching_blocks():
            for n in range(blk.size):
                m[blk.a + n] = blk.b + n
        return m
    mo, mt = matches(to), matches(tt)
    chunks, i, j, k = [], 0, 0, 0
    while i < len(b) or j < len(o) or k < len(t):
        if i < len(b) and mo.get(i) == j and mt.get(i) == k:
            chunks.append((b[i:i + 1], o[j:j + 1], t[k:k + 1]))
            i, j, k = i + 1, j + 1, k + 1
            continue
        i2 = next((x for x in range(i, len(b)) if x in mo and x in mt), None)
        j2, k2 = (mo[i2], mt[i2]) if i2 is not None else (len(o), len(t))
        i2 = len(b) if i2 is None else i2
        chunks.append((b[i:i2], o[j:j2], t[k:k2]))
        i, j, k = i2, j2, k2
    return chunks


def widened_seq_merge(b, o, t, r, win):
    """Whether list r is the winning side's half of an element merge whose conflicts were
    widened over neighbouring elements: each conflicting stretch, and any run of stretches
    around it, taken as the winning side has it; every other stretch merged. A conflict as
    wide as the list (the side's whole list) and git's own narrow conflict are both right; a
    conflict between the two is as right, though inside it the other side's change next to
    the conflict is in the other half only. A line merge widens so, and must where git's
    narrow half loses an element: git reads a swap as an element deleted and put back
    elsewhere, and the other side's addition at the same place drops the element from the
    winning half (templates-mark-1157-46: theirs swapped two volumeMounts, ours added one
    after them; ours' half widened to hold both in base's order is right)."""
    w = 1 if win == "ours" else 2
    kinds, merged = [], []
    for cb, co, ct in seq_chunks(b, o, t):
        side = (co, ct)[w - 1]
        if co == ct or ct == cb:
            kinds.append("same" if co == side else "lose")
            merged.append((co, side))
        elif co == cb:
            kinds.append("same" if ct == side else "lose")
            merged.append((ct, side))
        else:
            kinds.append("conflict")
            merged.append((side, side))
    conflicts = [n for n, x in enumerate(kinds) if x == "conflict"]
    losers = [n for n, x in enumerate(kinds) if x == "lose"]
    if not conflicts or len(losers) > 10:
        return False
    want = [freeze(e) for e in r]
    for mask in range(1 << len(losers)):
        inside = {c for n, c in enumerate(losers) if mask >> n & 1}

        def reachable(c):
            # A widened conflict is one run of stretches: every change of the other side
            # between this stretch and its conflict is inside the run too.
            return any(all(x in inside for x in losers if min(c, q) < x < max(c, q)) for q in conflicts)
        if not all(reachable(c) for c in inside):
            continue
        got = [freeze(e) for n, (m, side) in enumerate(merged) for e in (side if n in inside else m)]
        if got == want:
            return True
    return False


def keeps_shared(b, o, t, r):
    """Whether list r holds every element base and both sides hold, as often as the fewest of
    them: git's element merge reads a swap as an element deleted and put back elsewhere, and
    where the other side added at that place, the winning side's stretch of the conflict holds
    neither copy; the element every side kept is gone from that half (templates-mark-1157-46:
    git's ours half lost /conf, which ours never touched and theirs only moved)."""
    counts = [collections.Counter(freeze(e) for e in x) for x in (b, o, t, r)]
    return all(counts[3][f] >= min(c[f] for c in counts[:3]) for f in counts[0])


def drop_nulls(v):
    """A value without its null map entries, at any depth."""
    if isinstance(v, dict):
        return {k: drop_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [drop_nulls(x) for x in v]
    return v


STRICT_LISTS = [False]   # --strict-lists: no sequence reading of a list a side's policy won


def strictly(check, *args):
    """`check(*args)` with --strict-lists on: no sequence reading of a list."""
    saved, STRICT_LISTS[0] = STRICT_LISTS[0], True
    try:
        return check(*args)
    finally:
        STRICT_LISTS[0] = saved


def kind_of(v):
    return "map" if isinstance(v, dict) else "list" if isinstance(v, list) else "scalar"


def mn(v):
    """Missing or null, as kyaml reads a field."""
    return v is ABSENT or v is None


def similarity(x, y):
    """The share of scalar leaves two values have in common (1.0 for two values without any)."""
    lx, ly = leaves(x), leaves(y)
    if not lx and not ly:
        return 1.0
    pool = collections.Counter(ly)
    common = 0
    for leaf in lx:
        if pool[leaf] > 0:
            pool[leaf] -= 1
            common += 1
    return common / float(max(len(lx), len(ly)))


def without(v, fields):
    """A map without the given top-level fields (an element without its key, a resource without
    its name), to compare what else it holds."""
    if not isinstance(v, dict):
        return v
    return {k: x for k, x in v.items() if not (is_str(k) and k[1] in fields)}


def doc_key_fields(k):
    return ("name", "namespace")


class Rules:
    """The oracle's reading of a three-way merge, path by path.

    win=None: mark mode's clean result. win="ours"/"theirs": that side wins where both sides
    changed a value differently (the ours policy's clean result, and the resolution of every
    conflict to one side); with whole=True (the side check of a conflicted result) a path both
    sides changed may also hold that side's whole value."""

    def __init__(self, table, win=None, whole=False):
        self.table, self.win, self.whole = table, win, whole

    # documents ---------------------------------------------------------------------------------

    def check(self, b_docs, o_docs, t_docs, r_docs, single=True):
        out = []
        if single and len(b_docs) == len(o_docs) == len(t_docs) == 1:
            if not r_docs:
                # Every key deleted: an empty file is the empty map.
                r_docs = [{}]
            if len(r_docs) != 1:
                out.append(Violation("document-count", "<file>", "three single documents merged into %d" % len(r_docs)))
                return out
            ident = identity(o_docs[0]) or identity(b_docs[0])
            self.top(ident, [label(ident)], b_docs[0], o_docs[0], t_docs[0], r_docs[0], out)
            return out
        kb, db = keyed_docs(b_docs)
        ko, do = keyed_docs(o_docs)
        kt, dt = keyed_docs(t_docs)
        kr, dr = keyed_docs(r_docs)
        for ident in dr - (db | do | dt):
            out.append(Violation("duplicate-identity", label(ident), "the result holds this resource twice"))
        self.keyed_any(DOCS, [], kb, ko, kt, kr, out)
        return out

    def doc(self, g, path, b, o, t, r, out):
        self.top(g, path, b, o, t, r, out)

    def elem(self, kind, path, b, o, t, r, out):
        self.value(kind.elem_ctx, path, b, o, t, r, out)

    def top(self, key, path, b, o, t, r, out):
        """One document (a group of the three versions' documents paired by identity)."""
        ident = key if key and key[0] != "#position" else None
        if all(isinstance(v, dict) for v in (b, o, t, r)):
            o, t = follow_reenclosure(b, t, o, r), follow_reenclosure(b, o, t, r)
        self.value((kind_key(ident[:4] if ident else None), []), path, b, o, t, r, out)

    # one path ----------------------------------------------------------------------------------

    def side_value(self, o, t):
        return o if self.win == "ours" else t

    def value(self, ctx, path, b, o, t, r, out):
        if o == t:
            return self.expect(path, o, r, "both-same", out)
        if b == o:
            return self.expect(path, t, r, "theirs-change-lost", out)
        if b == t:
            return self.expect(path, o, r, "ours-change-lost", out)
        # Both sides changed this path, differently.
        s = self.side_value(o, t)
        # The side's whole value is read as data: in the tied reading a place the result's
        # alias names (the other side's alias, kept outside the conflict) is wrapped there and
        # not in the side, whose own value it still is (templates-mark-1149-7770: ours anchors
        # a map inside `a` and aliases it from a map theirs left alone; theirs' side of a
        # conflict as wide as `a` holds theirs' `a`, the anchor on theirs' value of the map).
        if self.whole and (r == s or bare(r) == bare(s)):
            return
        if self.block_lines(b, o, t, r):
            return
        emptied = lambda v: v is None or (isinstance(v, (dict, list)) and not v)
        if b is not ABSENT and not emptied(b) and (o is ABSENT or emptied(o)) and (t is ABSENT or emptied(t)):
            # One side deleted it, the other set it to null or emptied it: both removed it.
            if r is ABSENT or (o is not ABSENT and r == o) or (t is not ABSENT and r == t):
                return
            return self.expect(path, ABSENT, r, "deleted-and-nulled", out)
        if b is not ABSENT and (o is ABSENT or t is ABSENT):
            if self.win:
                return self.expect(path, s, r, self.win + "-wins", out)
            other = t if o is ABSENT else o
            out.append(Violation("delete-vs-modify", fmt(path), "%s deleted it, %s changed it to %s; the result is clean with %s"
                                 % ("ours" if o is ABSENT else "theirs", "theirs" if o is ABSENT else "ours",
                                    show(other), show(r))))
            return
        bb = ABSENT if b is None else b
        if isinstance(o, dict) and isinstance(t, dict) and (bb is ABSENT or isinstance(bb, dict)):
            # As for a list below: a conflict taken from one side may leave the key with no
            # entry under it (ours deleted one, theirs the other), which YAML reads as null
            # and a person as the emptied map; every entry the side should hold is still
            # checked (manifests-mark-1141-272).
            if self.whole and r is None:
                r = {}
            if not isinstance(r, dict):
                out.append(Violation("shape", fmt(path), "both sides changed this map; the result holds %s" % show(r)))
                return
            bm = bb if isinstance(bb, dict) else {}
            keys = list(o) + [k for k in list(t) + list(bm) + list(r) if k not in o]
            for k in dict.fromkeys(keys):
                at = path + [str(plain(k))]
                bv, ov, tv, rv = bm.get(k, ABSENT), o.get(k, ABSENT), t.get(k, ABSENT), r.get(k, ABSENT)
                # A key's guard (guards_as_fields) where one side deleted the key and the other
                # left the guard as it was: the guard went with the key, no change of its own
                # (the key itself is judged), so it stands where the key stands. A guard the
                # keeping side changed (the key moved into a block) is still a change against
                # the deletion.
                if is_guard(k) and bv is not ABSENT:
                    key = ("str", k[1][:-len("\u2039guard\u203a")])
                    if (key in o) != (key in t) and (tv if key in t else ov) == bv:
                        self.expect(at, bv if key in r else ABSENT, rv, "guard-follows-its-key", out)
                        continue
                self.value((ctx[0], ctx[1] + [str(plain(k))]), at, bv, ov, tv, rv, out)
            return
        if isinstance(o, list) and isinstance(t, list) and (bb is ABSENT or isinstance(bb, list)):
            # A conflict taken from one side may leave the key with nothing under it: the
            # elements one side deleted and those the other did, all gone. YAML reads that as
            # null; a person reads it as the emptied list, so it is read as [] and every
            # element the side should hold is still checked.
            if self.whole and r is None:
                r = []
            if not isinstance(r, list):
                out.append(Violation("shape", fmt(path), "both sides changed this list; the result holds %s" % show(r)))
                return
            return self.list_value(ctx, path, bb if isinstance(bb, list) else [], o, t, r, out)
        if is_str(o) and is_str(t) and (bb is ABSENT or is_str(bb)) and ("\n" in o[1] or "\n" in t[1] or (is_str(bb) and "\n" in bb[1])):
            clean, merged = text_merge(bb[1] if is_str(bb) else "", o[1], t[1])
            if self.win:
                if clean and r == ("str", merged):
                    return
                _, favored = text_merge(bb[1] if is_str(bb) else "", o[1], t[1], self.win)
                if r == ("str", favored):
                    return
                return self.expect(path, s, r, self.win + "-wins", out)
            if not clean:
                out.append(Violation("text-conflict-clean", fmt(path), "both sides changed this text and git's line merge of it "
                                     "conflicts; the result is clean with %s" % show(r)))
            elif r != ("str", merged):
                out.append(Violation("text-merge", fmt(path), "expected the line merge %s, got %s" % (show(("str", merged)), show(r))))
            return
        if self.win:
            return self.expect(path, s, r, self.win + "-wins", out)
        out.append(Violation("both-changed", fmt(path), "base %s, ours %s, theirs %s; the result is clean with %s"
                             % (show(b), show(o), show(t), show(r))))

    def block_lines(self, b, o, t, r):
        """Whether `r` is the line reading of a block scalar all three versions write as one:
        its header merged as a scalar (the side's where both changed it, on a side; one token,
        as git's merge of the file sees it), its lines as written merged as text, and the
        value read from the two.
        A folded (`>`) scalar's value joins its lines, so once a side makes a block folded
        every line of the value differs from base's, and the value's own line merge is the
        header's conflict taken whole, though git's merge of the file kept both sides' lines
        and conflicted on the header alone (manifests-mark-1149-852: ours `|` to `>` and a
        line edited, theirs `|` to `>-` and a line added; either side of the one conflict
        holds both lines)."""
        src = [getattr(x[1], "source", None) if is_str(x) else None for x in (b, o, t)]
        if None in src or not is_str(r):
            return False
        (hb, lb), (ho, lo), (ht, lt) = src
        # Only where a side changed the style: else the value's own line merge reads the same
        # lines.
        if hb[0] == ho[0] == ht[0]:
            return False
        if ho == ht or hb == ht:
            header = ho
        elif hb == ho:
            header = ht
        elif self.win:
            header = self.side_value(ho, ht)
        else:
            return False
        clean, body = text_merge(lb, lo, lt)
        if not clean:
            if not self.win:
                return False
            _, body = text_merge(lb, lo, lt, self.win)
        end = ""
        if "+" in header:
            # Under keep chomping (`|+`) the blank lines below the text are the value's, but a
            # version whose header clips or strips wrote them as spacing, not as data: read as
            # lines they would make a side's spacing the value's. So the text is read stripped
            # and its line breaks at the end are merged on their own, as text_merge merges
            # them (templates-mark-1221-558: ours `|` to `|+` with one more blank line, theirs
            # `|` to `>` and a line added; ours' side of git's one conflict, on the header,
            # holds ours' text, its blank lines and theirs' line).
            ends = [len(x[1]) - len(x[1].rstrip("\n")) for x in (b, o, t)]
            eb, eo, et = ends
            if eo == et or eb == et:
                n = eo
            elif eb == eo:
                n = et
            elif self.win:
                n = eo if self.win == "ours" else et
            else:
                return False
            header, end = header.replace("+", "-"), "\n" * n
        try:
            v = yaml.load("k: %s\n%s" % (header, body), Loader=CLoader)
        except yaml.YAMLError:
            return False
        return isinstance(v, dict) and isinstance(v.get("k"), str) and v.get("k") + end == r[1]

    def expect(self, path, exp, r, rule, out):
        if exp == r:
            return
        p, e, g = first_difference(exp, r, path)
        out.append(Violation(rule, fmt(p), "expected %s, got %s" % (show(e), show(g))))

    # lists -------------------------------------------------------------------------------------

    def list_keys(self, ctx, lists):
        """Key fields of a list: the schema table's, else the seed keys; "set" for a set list
        (a kustomization's files, the table's sets); None for other lists."""
        kind, schema = ctx
        if kind in KUSTOMIZATION_KINDS and schema_str(schema) in KUSTOMIZATION_SETS:
            return "set"
        spec = self.table.get(kind, {}).get(schema_str(schema))
        if spec is not None:
            if spec.get("list_type") == "map" and spec.get("keys"):
                return tuple(spec["keys"])
            return None
        elems = [e for lst in lists for e in lst]
        if not elems or not all(isinstance(e, dict) for e in elems):
            return None
        for k in SEED_KEYS:
            if all(e.get(("str", k)) is not None for e in elems) and all(
                    len({freeze(e[("str", k)]) for e in lst}) == len(lst) for lst in lists):
                return (k,)
        return None

    @staticmethod
    def elem_key(e, fields, missing=None):
        """An element's key; None where it has none (`missing`: the value a missing or null
        key field stands for instead)."""
        if fields == "set":
            return freeze(e)
        if not isinstance(e, dict):
            return None
        vals = []
        for f in fields:
            v = e.get(("str", f), ABSENT)
            if v is ABSENT or (v is None and f == "protocol"):
                if f == "protocol" and len(fields) > 1:
                    v = ("str", "TCP")
                elif missing is not None:
                    v = ("str", missing)
                else:
                    return None
            if v is None:
                # A null key names no element: the list is read without keys.
                if missing is None:
                    return None
                v = ("str", missing)
            vals.append(freeze(v))
        return tuple(vals)

    def keyed_maps(self, fields, lists, missing=None, collapse=False):
        """Each list as an ordered map by key, or None where an element has no key or two share
        one (`collapse`: the first of them stands for both, as kyaml's lookups do)."""
        maps = []
        for lst in lists:
            m = collections.OrderedDict()
            for e in lst:
                k = self.elem_key(e, fields, missing)
                if k in m and collapse:
                    continue
                if k is None or k in m:
                    return None
                m[k] = e
            maps.append(m)
        return maps

    def result_map(self, path, fields, r, out, missing=None, collapse=False):
        rm = collections.OrderedDict()
        for i, e in enumerate(r):
            k = self.elem_key(e, fields, missing)
            if k is None:
                out.append(Violation("list-element-without-key", fmt(path + ["[%d]" % i]),
                                     "element has no %s: %s" % ("+".join(fields), show(e))))
                continue
            if k in rm and collapse:
                continue
            if k in rm:
                out.append(Violation("duplicate-list-key", fmt(path + [keylabel(fields, k)]),
                                     "the result holds two elements with this key"))
                continue
            rm[k] = e
        return rm

    def list_value(self, ctx, path, b, o, t, r, out):
        fields = self.list_keys(ctx, [b, o, t])
        elem_ctx = (ctx[0], ctx[1][:-1] + [ctx[1][-1] + "[]"] if ctx[1] else ["[]"])
        sub = []
        maps = self.keyed_maps(fields, [b, o, t]) if fields and fields != "set" else None
        if maps:
            rm = self.result_map(path, fields, r, sub)
            self.keyed_any(Keyed(fields, elem_ctx), path, maps[0], maps[1], maps[2], rm, sub)
        else:
            self.multiset(elem_ctx, path, b, o, t, r, sub, ordered=fields != "set")
        if sub and self.win:
            # The sequence reading (DESIGN.md: a list without keys changed on both sides is a
            # 3-way merge of its element sequences, edits that overlap a conflict around just
            # those elements): git's element-by-element merge with the winning side's stretch of
            # each conflict. Right under that reading, unless --strict-lists asks for the element
            # multisets alone; then its findings are tagged /hunk.
            ok, merged = seq_merge(b, o, t, self.win)
            if ((ok and merged == r) or (self.whole and widened_seq_merge(b, o, t, r, self.win))) \
                    and keeps_shared(b, o, t, r):
                if not STRICT_LISTS[0]:
                    return
                for v in sub:
                    if not v.rule.endswith("/hunk"):
                        v.rule += "/hunk"
        out.extend(sub)

    # pairing by key, renames read by the oracle itself ------------------------------------------

    def readings(self, kind, bm, om, tm):
        """Plausible pairings of renamed elements, each (renames of ours, renames of theirs) as
        {base key: new key}; the first is the oracle's own reading. An element a side renamed
        (a base key gone from that side, a key new to it, at least half of what else they hold
        alike, each the other's clearly best match) is a rename; where the other side has the new
        key too, both renamed it the same way, or this side added it: both readings are tried,
        as are renames that are not clear (the best match only by a little, or a base key the
        side still holds whose new element is more alike than its own)."""
        clear, maybe = {}, {}
        for side, sm in (("o", om), ("t", tm)):
            new = [n for n in sm if n not in bm]
            pairs = []
            # How alike each new element is to a base element the side kept: one as alike to a
            # kept element as to the lost one (`{mode: pull}` beside many such) is as likely an
            # addition like the kept one as the lost one renamed, so no clear rename.
            kept_best = collections.defaultdict(float)
            for g in bm:
                for n in new:
                    if not kind.compatible(g, n):
                        continue
                    sc = similarity(kind.strip(bm[g]), kind.strip(sm[n]))
                    if g in sm:
                        kept_best[n] = max(kept_best[n], sc)
                    if sc < 0.5:
                        continue
                    if g in sm and sc <= similarity(kind.strip(bm[g]), kind.strip(sm[g])):
                        continue
                    pairs.append((sc, g, n))
            best_g, best_n = collections.defaultdict(list), collections.defaultdict(list)
            for p in pairs:
                best_g[p[1]].append(p)
                best_n[p[2]].append(p)

            def clearly(lst, p):
                lst = sorted(lst, key=lambda x: -x[0])
                return lst[0] is p and (len(lst) == 1 or lst[0][0] - lst[1][0] >= 0.25)
            clear[side] = {(p[1], p[2]) for p in pairs if p[1] not in sm and clearly(best_g[p[1]], p)
                           and clearly(best_n[p[2]], p) and p[0] - kept_best[p[2]] >= 0.25}
            maybe[side] = [(g, n) for (sc, g, n) in sorted(pairs, key=lambda x: -x[0])]
        # Both sides lost a base key and hold one new key the other side may have renamed it
        # to: this side may have renamed it the same way however much else it changed (the
        # same new name for the same gone element is the evidence, not its content), a reading
        # tried beside deleted-and-added. The other side's rename need not be clear: both
        # sides making one identity change is one edit whatever else resembles it, and git's
        # line merge reads it so (manifests-theirs-1152-72: both deleted a Service's metadata,
        # theirs also its selector and ports; ours' nameless Service was only a little more
        # like base's than like the other Service, so its rename was not clear, and the
        # nameless pair read as two additions expected ours' selector back). So too where the
        # other side's rename is clear and this side still holds the base key: it may have
        # renamed the element the same way and then added a new one under the old name
        # (issue 27: both sides renamed a Tekton param alike, one then added a param by the old
        # name; templates-mark-1151-1362: both renamed a DaemonSet alike, ours added a copy
        # under the old name). Without this reading the copy was read as base's resource kept
        # and edited and the other side's rename as its deletion, so git's right result, which
        # keeps the copy outside its conflicts, was judged to lose data.
        others = {x: list(maybe[x]) for x in ("o", "t")}
        for side, x, sm in (("o", "t", om), ("t", "o", tm)):
            alike = [(g, n) for g, n in others[x] if g not in sm] + sorted(clear[x])
            for g, n in alike:
                if n in sm and (g, n) not in maybe[side]:
                    maybe[side].append((g, n))
        forced = {"o": {}, "t": {}}
        optional = []
        for side, x, xm in (("o", "t", tm), ("t", "o", om)):
            for g, n in maybe[side]:
                sure = (g, n) in clear[side] and (n not in xm or (g, n) in clear[x]) and kind.clear_rename(g, n)
                if sure and self.forced_renames():
                    forced[side][g] = n
                else:
                    optional.append((side, g, n))
        out = [forced]
        if not optional:
            return out
        # Every consistent choice among the optional renames (each base key renamed to at most
        # one key, each new key taken at most once, per side), fewest renames first; where
        # there are too many, one at a time, each side's greedy set and both sides' together.
        groups = collections.OrderedDict()
        for side, g, n in optional:
            if g not in forced[side] and n not in forced[side].values():
                groups.setdefault((side, g), []).append(n)
        combos = 1
        for ns in groups.values():
            combos *= len(ns) + 1
        readings = []
        if combos <= 256:
            for choice in itertools.product(*[[None] + ns for ns in groups.values()]):
                r = {"o": dict(forced["o"]), "t": dict(forced["t"])}
                ok = True
                for (side, g), n in zip(groups, choice):
                    if n is None:
                        continue
                    if n in r[side].values():
                        ok = False
                        break
                    r[side][g] = n
                if ok:
                    readings.append(r)
            readings.sort(key=lambda r: len(r["o"]) + len(r["t"]))
        else:
            def add(reading, side, g, n):
                r = {"o": dict(reading["o"]), "t": dict(reading["t"])}
                if g in r[side] or n in r[side].values():
                    return None
                r[side][g] = n
                return r
            readings = [x for x in (add(forced, *p) for p in optional) if x]
            for sides in (("o",), ("t",), ("o", "t")):
                greedy = forced
                for p in optional:
                    if p[0] in sides:
                        greedy = add(greedy, *p) or greedy
                readings.append(greedy)
        # A side that renamed an element to a key it then repeated (keyed_docs' `#repeat`) renamed
        # one of the copies, and only their content tells which: each reading is tried too with
        # the rename going to each later copy, the first copy then read as the addition
        # (manifests-mark-1291-1640: ours renamed a ConfigMap and repeated it under the new
        # name, the first copy with a key added, the second base's but for the name; git's line
        # merge reads the second as the renamed one, and the first copy alone, judged the
        # rename, lost theirs' edit). The rename itself is read as before: with copies alike,
        # which of them it is is the only question.
        copies = []
        for r in out + readings:
            for side, sm in (("o", om), ("t", tm)):
                for g, n in r[side].items():
                    k = 1
                    while isinstance(n, tuple) and n + ("#repeat", k) in sm:
                        c = n + ("#repeat", k)
                        if c not in r[side].values():
                            v = {"o": dict(r["o"]), "t": dict(r["t"])}
                            v[side][g] = c
                            copies.append(v)
                        k += 1
        readings += copies
        seen, uniq = set(), []
        for r in out + readings:
            k = (frozenset(r["o"].items()), frozenset(r["t"].items()))
            if k not in seen:
                seen.add(k)
                uniq.append(r)
        return uniq[:256]

    def forced_renames(self):
        return True

    def keyed_any(self, kind, path, bm, om, tm, rm, out):
        """Pairs by key under every plausible reading of renames; fine when one reading finds
        nothing wrong, else the oracle's own reading's violations are reported."""
        first = None
        for reading in self.readings(kind, bm, om, tm):
            sub = []
            self.keyed(kind, path, bm, om, tm, rm, reading, sub)
            if not sub:
                return
            if first is None:
                first = sub
        out.extend(first)

    def result_key(self, kind, g, ko, kt, rm):
        if ko == kt or kt is None:
            return ko
        # A conflict's side taken from the side that kept the key, where the other renamed it:
        # the renamed field may stand inside a conflict (a metadata map both sides changed),
        # which that side's value fills whole, its key with it. The element's fields are still
        # judged path by path, so a rename outside the conflicts that the side lost is found
        # there (packages-mark-1141-1763: ours nulled the namespace and the annotations, theirs
        # emptied the annotations; theirs' side holds theirs' metadata). So too for a policy's
        # clean result: the winning side fills a path both sides changed, and a rename by
        # deleting metadata the other side edited is such a path (packages-ours-1150-3155:
        # theirs dropped a CRD's metadata, ours changed a label; ours' metadata, name with it,
        # is the result, path by path). Documents only: a document is judged whole, its name
        # among its fields, where a list element's key fields may not be (a port's protocol
        # one side renamed, the other kept, is that side's change: kyaml vector 25).
        if (self.whole or (self.win and kind is DOCS)) and g in rm and g in (ko, kt) and (ko not in rm or kt not in rm):
            return g
        if ko is None or ko == g:
            return kt
        if kt == g:
            return ko
        # A conflict's side where both sides renamed it and changed one part of its identity
        # each its own way (a rename/rename conflict no part-by-part merge settles): the side's
        # whole identity, as the side's whole value may fill any path both sides changed; the
        # fields are still judged path by path below. Read part by part with the side winning
        # the part both changed, the identity can be one the other side added a resource of
        # (templates-mark-1171-4810: ours renamed default/dash to default/dash-renamed, theirs
        # to green/flags and added green/dash-renamed; ours' side of git's conflict over the
        # name and namespace lines is ours' identity, and the parts reading expected theirs'
        # green/dash-renamed, and theirs' added resource lost, in the one document).
        if self.whole and self.win and self.parts_key(g, ko, kt, win=None) is None:
            mine = ko if self.win == "ours" else kt
            if mine in rm:
                return mine
        # Both sides renamed it, each changing another part of a composite identity (ours the
        # namespace, theirs the name): part by part, the path-by-path rule that judges the
        # document's fields below gives each side's change, so its key is that of those values.
        parts = self.parts_key(g, ko, kt)
        if parts is not None and parts in rm:
            return parts
        if self.win:
            return ko if self.win == "ours" else kt
        return ko if ko in rm else kt

    def parts_key(self, g, ko, kt, win=ABSENT):
        """The key whose every part is its three-way merge (one side's change, or the winning
        side's, `win` (the rules' own unless given), where both changed a part); None where keys
        are not tuples of one length, or (no winner) both sides changed one part differently."""
        win = self.win if win is ABSENT else win
        if not all(isinstance(k, tuple) for k in (g, ko, kt)) or not len(g) == len(ko) == len(kt):
            return None
        out = []
        for b, o, t in zip(g, ko, kt):
            if o == t or b == t:
                out.append(o)
            elif b == o:
                out.append(t)
            elif win:
                out.append(o if win == "ours" else t)
            else:
                return None
        return tuple(out)

    def keyed(self, kind, path, bm, om, tm, rm, reading, out):
        """Each base element judged with the two sides' elements it became (itself, or the
        element a side renamed it to), each element new to a side with the other side's element
        of that key (added on both), each against the result's element of the key it should
        have; then any result element no side accounts for."""
        def side_map(sm, ren):
            return {g: (ren[g] if g in ren else g if g in sm else None) for g in bm}
        mo, mt = side_map(om, reading["o"]), side_map(tm, reading["t"])
        used_o, used_t = set(mo.values()), set(mt.values())
        groups = []
        for g in bm:
            ko, kt = mo[g], mt[g]
            groups.append((self.result_key(kind, g, ko, kt, rm), g, bm[g], om[ko] if ko is not None else ABSENT,
                           tm[kt] if kt is not None else ABSENT))
        for k in list(om) + [k for k in tm if k not in om]:
            no, nt = k in om and k not in used_o, k in tm and k not in used_t
            if no or nt:
                groups.append((k, k, ABSENT, om[k] if no else ABSENT, tm[k] if nt else ABSENT))
        claimed = set()
        for rk, g, b, o, t in groups:
            if o is ABSENT and t is ABSENT:
                continue
            claimed.add(rk)
            kind.judge(self, g, path + [kind.label(rk)], b, o, t, rm.get(rk, ABSENT), out)
        for k, r in rm.items():
            if k not in claimed:
                out.append(Violation("unexpected-element", fmt(path + [kind.label(k)]),
                                     "the result holds %s, which no side accounts for" % show(r)))

    # lists without keys ------------------------------------------------------------------------

    def multiset(self, elem_ctx, path, b, o, t, r, out, ordered=True):
        fb, fo, ft, fr = ([freeze(e) for e in lst] for lst in (b, o, t, r))
        cb, co, ct, cr = (collections.Counter(x) for x in (fb, fo, ft, fr))
        value_of = {}
        for lst, fl in ((b, fb), (o, fo), (t, ft), (r, fr)):
            for e, f in zip(lst, fl):
                value_of.setdefault(f, e)
        leaf_cache = {}

        def likeness(x, y):
            for f in (x, y):
                if f not in leaf_cache:
                    leaf_cache[f] = leaves(value_of[f])
            pool = collections.Counter(leaf_cache[y])
            n = 0
            for leaf in leaf_cache[x]:
                if pool[leaf] > 0:
                    pool[leaf] -= 1
                    n += 1
            return n
        exp = {}
        # Both sides removing as many copies of an element base holds twice or more may have
        # removed the same copy or different ones: as many fewer are right too.
        fewer = {}
        more = {}
        for f in value_of:
            d_o, d_t = co[f] - cb[f], ct[f] - cb[f]
            exp[f] = max(0, cb[f] + d_o if d_o == d_t else cb[f] + d_o + d_t)
            if d_o == d_t < 0 and cb[f] > 1:
                fewer[f] = -d_o
            # Both sides adding one element may have added it at one place or at two: git's
            # line merge keeps it twice where the places differ, and people commit that.
            if d_o == d_t > 0:
                more[f] = d_o
            # Likewise where the two sides added different numbers of copies: the fewer may be
            # among the more (added at one place), or beside them.
            elif d_o > 0 and d_t > 0:
                fewer[f] = min(d_o, d_t)
        # Where each element first stands in each version: a pairing of elements at the same
        # place, tried as a second reading where the most alike pairing leaves the counts off
        # (ours' version of the first rule is as alike to base's second, which theirs edited).
        first_at = [{}, {}, {}]
        for place, fl in zip(first_at, (fb, fo, ft)):
            for i, f in enumerate(fl):
                place.setdefault(f, i)
        if self.win:
            # The other side's version of an element the winning side deleted may be read as that
            # element modified (the deletion wins) as well as a new element: where it is alike
            # (half its leaves in common), or where it stands at the deleted element's place in a
            # list of base's length, the element replaced in place (values-mark-1130-393: ours
            # dropped a step's name and edited its script, theirs deleted the step).
            win_o = self.win == "ours"
            cs, cx = (co, ct) if win_o else (ct, co)
            at_x, len_x = (first_at[2], len(t)) if win_o else (first_at[1], len(o))

            fx = ft if win_o else fo

            # Or where it stands between the same neighbours (the nearest elements of base the
            # other side kept) as the deleted element did in base: replaced in its slot, however
            # many elements the other side added or deleted elsewhere (templates-mark-1151-141:
            # theirs renamed a volume holding only its name, its include line below unchanged,
            # beside a copy it added above it; ours deleted the volume's name line. Git's
            # conflict is that one line, delete against change, and ours' side of it is ours).
            def slot(fl, i):
                kept = [j for j in range(len(fl)) if j != i and cx[fl[j]] > 0 and cb[fl[j]] > 0]
                return (next((fl[j] for j in reversed(kept) if j < i), None),
                        next((fl[j] for j in kept if j > i), None))

            def replaced(g, f):
                if len_x == len(b) and at_x.get(f) == first_at[0].get(g):
                    return True
                if f not in at_x or g not in first_at[0]:
                    return False
                there = slot(fx, at_x[f])
                return there != (None, None) and there == slot(fb, first_at[0][g])

            # Or where every leaf of it is one of the deleted element's: the element with
            # fields the other side deleted, however many (templates-theirs-1145-1358: ours
            # dropped a NetworkPolicy egress rule's ports, two of its three leaves, and another
            # rule, so neither half its leaves nor its place tells; theirs deleted the rule).
            def cut_down(g, f):
                return 0 < likeness(g, f) == len(leaf_cache[f])
            for f in value_of:
                d_x = cx[f] - cb[f]
                if d_x > 0 and cs[f] <= cb[f] and any(
                        cs[g] < cb[g] and cx[g] < cb[g] and (
                            replaced(g, f) or cut_down(g, f)
                            or 2 * likeness(g, f) >= max(len(leaf_cache[g]), len(leaf_cache[f])))
                        for g in cb):
                    fewer[f] = fewer.get(f, 0) + d_x
        # Counting treats a modified element as deleted plus added. One element both sides
        # modified (differently) may stand in the result as the field-level merge M of the two:
        # then the two modified versions are not expected, M is. M may equal one of them (one
        # side's change includes the other's) or be in no input; it must pass the recursive check.
        b_pool = [x for x in cb if co[x] < cb[x] and ct[x] < cb[x]]
        o_pool = [x for x in co if co[x] > cb[x] and ct[x] < co[x]]
        t_pool = [x for x in ct if ct[x] > cb[x] and co[x] < ct[x]]
        # The most alike are tried first (leaves in common with the base element), so that a
        # base element pairs with its own modified versions, not with an unrelated element
        # whose merge with it happens to pass the check.
        # Between pairings equally alike, one whose side element is more alike another base
        # element that side modified (ours' edit of the first element, not of the second) comes
        # last: a side's conflict half may hold its element whole, so such a pairing passes
        # and takes the element another pairing needed.
        removed = {"o": [g for g in cb if co[g] < cb[g]], "t": [g for g in cb if ct[g] < cb[g]]}

        def elsewhere(bp, x, side):
            return any(likeness(g, x) > likeness(bp, x) for g in removed[side] if g != bp)

        def attempt(positional, start, merges_first=False):
            exp_, b_left = dict(start), list(b_pool)
            best_, tries, progress = None, 0, True
            while progress and b_left and o_pool and t_pool and tries < 400:
                progress = False
                for merges_only in ((True, False) if merges_first else (False,)):
                    if progress or tries > 400:
                        break

                    def key(x):
                        alike = (-(likeness(x[0], x[1]) + likeness(x[0], x[2])),
                                 elsewhere(x[0], x[1], "o") + elsewhere(x[0], x[2], "t"))
                        if not positional:
                            return alike
                        pb = first_at[0][x[0]]
                        return (abs(first_at[1][x[1]] - pb) + abs(first_at[2][x[2]] - pb),) + alike
                    triples = sorted(((bp, ob, tb) for bp in b_left for ob in o_pool for tb in t_pool
                                      if not (exp_[ob] <= cr[ob] and exp_[tb] <= cr[tb])), key=key)
                    for bp, ob, tb in triples:
                        # An element the result holds more of than the counts expect is tried
                        # before a side's version taken whole: where a side holds two copies of
                        # its version, one of them may be the merge's (the other side's change
                        # added to it), and taking the copy whole first leaves that merge unread.
                        surplus = [m for m in cr if cr[m] > exp_[m]]
                        whole = [m for m in (ob, tb) if m in cr and m not in surplus]
                        for m in surplus + ([] if merges_only else whole):
                            tries += 1
                            if tries > 400:
                                break
                            sub = []
                            self.value(elem_ctx, path + ["[merged]"], value_of[bp], value_of[ob], value_of[tb], value_of[m], sub)
                            if not sub:
                                exp_[ob] -= 1
                                exp_[tb] -= 1
                                exp_[m] += 1
                                b_left.remove(bp)
                                progress = True
                                break
                            if best_ is None or len(sub) < len(best_[0]):
                                best_ = (sub, {bp, ob, tb, m})
                        if progress or tries > 400:
                            break
            bad_ = [f for f in value_of if not (exp_[f] - fewer.get(f, 0) <= cr[f] <= exp_[f] + more.get(f, 0))]
            return exp_, best_, bad_
        start = exp
        exp, best, bad = attempt(False, start)
        # A third reading: a merge of each base element with both sides' versions found in the
        # result, for any pairing, before a side's version is taken whole. Where one side split
        # an element in two alike copies (one edited here, one there) and the other edited it,
        # the other side's edit may stand in either copy: the most alike pairing can take the
        # first copy whole and leave the merged second one unread (templates-mark-1141-570).
        for positional, merges_first in ((True, False), (False, True)):
            if not bad:
                break
            again = attempt(positional, start, merges_first)
            if not again[2]:
                exp, best, bad = again
        if bad and best is not None and best[1] & set(bad):
            # Most likely the one element both sides modified, merged wrongly: say where.
            out.extend(best[0])
            bad = [f for f in bad if f not in best[1]]
        for f in bad:
            g, e = cr[f], exp[f]
            who = []
            if co[f] != cb[f]:
                who.append("ours %+d" % (co[f] - cb[f]))
            if ct[f] != cb[f]:
                who.append("theirs %+d" % (ct[f] - cb[f]))
            out.append(Violation("list-element-count", fmt(path),
                                 "element %s: base has %d (%s), expected %d in the result, got %d"
                                 % (show(value_of[f], 200), cb[f], ", ".join(who) or "unchanged", e, g)))
        # Relative order of the elements present once in every version; not in a set list (a
        # kustomization's files), where order carries no meaning to the data, so no order of
        # one side is lost (both sides changing the set, either side's order is right).
        once = [f for f in value_of if cb[f] == co[f] == ct[f] == cr[f] == 1]

        def kept_order(fx, cx):
            """Whether a side kept base's order, an element it edited read as the base element
            it is most alike (half its leaves in common, one copy each): a side that moved an
            element and edited it reordered the list though no unedited element changed place,
            so where the other side reordered too, both did, and the order is the policy's or a
            conflict's, as where the moved element is unedited (templates-ours-1143-206)."""
            gone = [g for g in cb if cb[g] == 1 and cx[g] == 0]
            new = [f for f in cx if cx[f] == 1 and cb[f] == 0]
            pairs = sorted(((likeness(g, f), g, f) for g in gone for f in new
                            if 2 * likeness(g, f) >= max(len(leaf_cache[g]), len(leaf_cache[f]))),
                           key=lambda x: -x[0])
            base_of = {f: f for f in once}
            for _, g, f in pairs:
                if f not in base_of and g not in base_of.values():
                    base_of[f] = g
            return [base_of[f] for f in fx if f in base_of] == [g for g in fb if g in base_of.values()]
        if ordered and len(once) >= 2:
            s = set(once)
            sb, so, st, sr = ([x for x in fl if x in s] for fl in (fb, fo, ft, fr))
            want = so if so == st else st if so == sb and kept_order(fo, co) else so if st == sb and kept_order(ft, ct) else None
            if want is not None and sr != want:
                out.append(Violation("list-order", fmt(path), "elements kept by every side are out of order: expected %s, got %s"
                                     % (show([value_of[x] for x in want], 200), show([value_of[x] for x in sr], 200))))


class Keyed:
    """The elements of a keyed list, as the pairing reads them."""

    def __init__(self, fields, elem_ctx):
        self.fields, self.elem_ctx = fields, elem_ctx

    def compatible(self, g, n):
        return True

    def clear_rename(self, g, n):
        return True

    def strip(self, v):
        return without(v, self.fields)

    def label(self, k):
        return keylabel(self.fields, k)

    def judge(self, rules, g, path, b, o, t, r, out):
        rules.elem(self, path, b, o, t, r, out)


class Docs:
    """The documents of a file: resources by identity, other documents by position."""

    def compatible(self, g, n):
        return g[0] != "#position" and n[0] != "#position" and g[:2] == n[:2] and len(g) == len(n) == 4

    def clear_rename(self, g, n):
        # A resource that lost its name may have been renamed or replaced: never a sure rename.
        # Nor is one whose name and namespace both changed: as likely another resource put in
        # another namespace, so both readings (renamed; deleted and added) are tried.
        return g[3] not in ("", None) and n[3] not in ("", None) and (g[2] == n[2] or g[3] == n[3])

    def strip(self, v):
        # Besides the name a rename changes, apiVersion and kind go: two resources are
        # compatible only with the same group and kind, so those leaves are shared by every
        # candidate and say nothing of how alike the rest is (a ConfigMap whose every data and
        # label leaf changed is not "half alike" for its kind).
        if not isinstance(v, dict):
            return v
        md = sget(v, "metadata")
        v = without(v, ("apiVersion", "kind"))
        if isinstance(md, dict):
            v[("str", "metadata")] = without(md, ("name", "namespace"))
        return v

    def label(self, k):
        return label(k)

    def judge(self, rules, g, path, b, o, t, r, out):
        rules.doc(g, path, b, o, t, r, out)


DOCS = Docs()


class Kyaml(Rules):
    """The theirs policy's clean result: kyaml's merge3 as ../shared/notes/kyaml-semantics.md
    states it (sections 1 and 2), with the kpt variants the notes record where kpt differs, and
    kmerge's documented key rule (the schema table, then the seeds' keys; DESIGN.md)."""

    def __init__(self, table):
        Rules.__init__(self, table, win="theirs")

    def forced_renames(self):
        # kyaml pairs by key alone; kmerge may pair a rename as in mark mode: both readings.
        return False

    def expect(self, path, exp, r, rule, out):
        # A null clears its field wherever kyaml walks: a value taken whole may lose its nulls.
        if r != exp and isinstance(exp, (dict, list)) and drop_nulls(exp) == r:
            return
        Rules.expect(self, path, exp, r, rule, out)

    def doc(self, g, path, b, o, t, r, out):
        """Section 1: a resource deleted upstream goes (kpt: stays where ours changed it); one
        ours deleted comes back from upstream (kpt: stays deleted); ours' own stays."""
        if t is ABSENT and b is not ABSENT:
            if r is ABSENT or (o is not ABSENT and o != b and r == o):
                return
            out.append(Violation("kyaml-deleted-upstream", fmt(path), "theirs deleted this resource; the result holds %s" % show(r)))
            return
        if o is ABSENT and t is not ABSENT:
            if b is not ABSENT and r is ABSENT:
                return
            return self.expect(path, t, r, "kyaml-added-upstream", out)
        if t is ABSENT:
            return self.expect(path, o, r, "kyaml-local-only", out)
        self.top(g, path, b, o, t, r, out)

    def value(self, ctx, path, b, o, t, r, out):
        if path and path[-1].startswith("\u2039"):
            # A line of one action read as a key where its output lands (Skeleton.block_keys,
            # `content`): its null stands for that output, not for a YAML null, so it clears
            # nothing; it is an opaque value, the same in every version that has it.
            b, o, t, r = (OUTPUT if v is None else v for v in (b, o, t, r))
        if o is None or t is None:
            # Section 2.1/2.3/2.4 rule 1: a null in ours or theirs clears the field; kpt (2.8)
            # only where the null is a change from base.
            # A document's name ours nulled and theirs changed, judged here only where the
            # reading pairs the two documents: both sides renamed the resource (ours to no
            # name), and the README's reading of a resource both sides renamed pairs the renames
            # with theirs winning, so the result's name is theirs' (result_key reads its key so
            # too). kyaml itself never pairs them (its own reading, the two documents apart, is
            # judged at the document level). Read by the null rule alone, the paired reading
            # took a resource with no name at all, theirs' rename lost, for right (adversary
            # packages-theirs-1172-5463).
            if ctx[1] == ["metadata", "name"] and o is None and t is not None and b != t:
                if r != t:
                    out.append(Violation("kyaml-renamed-both", fmt(path), "both sides renamed this resource (ours "
                                         "to no name), paired theirs' name wins (README); the result holds %s" % show(r)))
                return
            if r is ABSENT:
                return
            if o is None and t is None and r is None:
                # Both sides wrote the same null: kept as both wrote it, or cleared.
                return
            # A base value that is only the output of action lines (content keys, as above) is
            # no YAML data: kyaml, reading the template's text, finds the key null there, and
            # a null that was already null in base clears nothing (2.8). A side whose edit left
            # the key with no action line below it (theirs put a key between them, ours' copy
            # ended at it: adversary templates-theirs-1145-{1406,3998}) kept a null, so the
            # key may stay as that side wrote it.
            if (b is not None and not output_only(b)) or (r is not None and r != o and r != t):
                out.append(Violation("kyaml-null-clears", fmt(path), "%s is null (the field is cleared); the result holds %s"
                                     % ("ours" if o is None else "theirs", show(r))))
            return
        kinds = {kind_of(v) for v in (b, o, t) if not mn(v)}
        if len(kinds) > 1:
            # kyaml stops on a type change (2, first paragraph); kmerge decides: either side.
            if r == o or r == t:
                return
            out.append(Violation("kyaml-type-change", fmt(path), "the type changed; the result holds %s, neither side's value" % show(r)))
            return
        kind = kinds.pop() if kinds else None
        if kind == "map":
            return self.map_value(ctx, path, b, o, t, r, out)
        if kind == "list":
            fields = self.list_keys(ctx, [x for x in (b, o, t) if isinstance(x, list)])
            elem_ctx = (ctx[0], ctx[1][:-1] + [ctx[1][-1] + "[]"] if ctx[1] else ["[]"])
            if fields == "set":
                sub = []
                self.set_value(path, b, o, t, r, sub)
                if not sub:
                    return
                # A kustomization's files may be a plain list to kyaml: taken whole.
                sub2 = []
                self.scalar_rule(path, b, o, t, r, sub2)
                if sub2:
                    out.extend(sub)
                return
            if fields:
                return self.alist(Keyed(fields, elem_ctx), path, b, o, t, r, out)
            spec = self.table.get(ctx[0], {}).get(schema_str(ctx[1]))
            if spec and spec.get("list_type") == "set" and "merge" in str(spec.get("patch_strategy", "")):
                # A set by the schema (finalizers): merged as one (2.5, primitive lists), or
                # taken whole as a list without keys.
                sub = []
                self.set_value(path, b, o, t, r, sub)
                if sub:
                    sub2 = []
                    self.scalar_rule(path, b, o, t, r, sub2)
                    if sub2:
                        out.extend(sub)
                return
        self.scalar_rule(path, b, o, t, r, out)

    def scalar_rule(self, path, b, o, t, r, out):
        """2.1 rules 2-6 (and 2.4, a list without keys, taken whole)."""
        if mn(b) != (t is ABSENT):
            exp, rule = t, "kyaml-upstream-added-or-removed"
        elif mn(b):
            exp, rule = o, "kyaml-local-only"
        elif t != b:
            exp, rule = t, "kyaml-upstream-changed"
        else:
            exp, rule = o, "kyaml-keep-local"
        # A value taken whole may keep the nulls inside it or lose them (null clears a field).
        if r != exp and isinstance(exp, (dict, list)) and drop_nulls(exp) == r:
            return
        # The blocks around keys inside a value taken whole (a template's guards, see
        # guards_as_fields) are where the control lines put them, which no kyaml rule
        # decides: the value taken whole with either side's guards.
        if r != exp and isinstance(exp, (dict, list)) and drop_guards(exp) == drop_guards(r) \
                and guard_fields(r) in (guard_fields(o), guard_fields(t)):
            return
        self.expect(path, exp, r, rule, out)

    def map_value(self, ctx, path, b, o, t, r, out):
        """2.3: a map ours lacks gets upstream's delta; else each field of ours, base and
        upstream merged (a map upstream deleted loses base's fields, keeps ours' own)."""
        if o is ABSENT and t is ABSENT:
            return self.expect(path, ABSENT, r, "kyaml-deleted", out)
        if o is ABSENT and mn(b) and r is ABSENT:
            # A map only theirs has is added, empty or not (vector merge3-scalar/12: `kind: {}`).
            return self.expect(path, t, r, "kyaml-added-upstream", out)
        rr = {} if r is ABSENT else r
        if not isinstance(rr, dict):
            out.append(Violation("shape", fmt(path), "a map here; the result holds %s" % show(r)))
            return
        bm = b if isinstance(b, dict) else {}
        tm = t if isinstance(t, dict) else {}
        om = o if isinstance(o, dict) else {}
        keys = list(om) + [k for k in list(tm) + list(bm) + list(rr) if k not in om]
        for k in dict.fromkeys(keys):
            # A key's guard (guards_as_fields) is where its key stands, nothing of its own: a
            # key theirs' null cleared takes its guard with it. The key itself is judged.
            if is_guard(k) and k not in rr and ("str", k[1][:-len("\u2039guard\u203a")]) not in rr \
                    and ("str", k[1][:-len("\u2039guard\u203a")]) != ITEM_KEY:
                continue
            self.value((ctx[0], ctx[1] + [str(plain(k))]), path + [str(plain(k))], bm.get(k, ABSENT),
                       om.get(k, ABSENT) if o is not ABSENT else ABSENT, tm.get(k, ABSENT) if t is not ABSENT else ABSENT,
                       rr.get(k, ABSENT), out)

    def set_value(self, path, b, o, t, r, out):
        """2.5, a list of values merged as a set: upstream's additions and removals, ours' own."""
        if t is ABSENT and isinstance(b, list):
            return self.expect(path, ABSENT, r, "kyaml-list-deleted-upstream", out)
        if mn(b) and mn(t):
            return self.expect(path, o, r, "kyaml-local-only", out)
        sb, so, st = ({freeze(e) for e in x} if isinstance(x, list) else set() for x in (b, o, t))
        want = (so - (sb - st)) | (st - sb)
        got = [freeze(e) for e in r] if isinstance(r, list) else []
        if set(got) != want or len(got) != len(set(got)):
            missing, extra = want - set(got), set(got) - want
            out.append(Violation("kyaml-set", fmt(path), "values missing %s, values not expected %s, in %s" % (
                show([plain(x) for x in missing if not isinstance(x, tuple) or len(x) == 2]),
                show([plain(x) for x in extra if not isinstance(x, tuple) or len(x) == 2]), show(r))))

    def alist(self, kind, path, b, o, t, r, out):
        """2.5: a keyed list: gone where upstream deleted it, else elements by key, each merged
        as a map (an element ours lacks gets upstream's delta and its key)."""
        if t is ABSENT and isinstance(b, list):
            return self.expect(path, ABSENT, r, "kyaml-list-deleted-upstream", out)
        if mn(b) and mn(t):
            return self.expect(path, o, r, "kyaml-local-only", out)
        lists = [x if isinstance(x, list) else [] for x in (b, o, t)]
        maps = self.keyed_maps(kind.fields, lists)
        missing = None
        if maps is None:
            # A key a version repeats: kyaml's lookups take the first element of it for all
            # (below), which loses the others (kustomize#3426), so the repeated elements read
            # as elements of their own, told apart by content, is a reading too: either holds.
            read = self.content_keyed(kind.fields, lists + [r if isinstance(r, list) else []])
            if read is not None:
                sub = []
                self.keyed_any(kind, path, read[0], read[1], read[2], read[3], sub)
                if not sub:
                    return
            # kyaml reads a missing or null key field as "" (2.5) and pairs on what is left,
            # the first of two elements with one key standing for both.
            missing = ""
            maps = self.keyed_maps(kind.fields, lists, missing, collapse=True)
        if maps is None:
            return self.scalar_rule(path, b, o, t, r, out)
        rm = self.result_map(path, kind.fields, r if isinstance(r, list) else [], out, missing, collapse=missing is not None)
        self.keyed_any(kind, path, maps[0], maps[1], maps[2], rm, out)

    def content_keyed(self, fields, lists):
        """Base's, ours', theirs' and the result's lists as ordered maps where a key that some
        list repeats is told apart by the element's content (its first list and place among
        the contents of that key); None where an element has no key, no key repeats, or a
        result's element of a repeated key is none of the versions' contents."""
        keyed = [[(self.elem_key(e, fields), e) for e in lst] for lst in lists]
        if any(k is None for lst in keyed for k, _ in lst):
            return None
        repeated = {k for lst in keyed[:3] for k, n in collections.Counter(k for k, _ in lst).items() if n > 1}
        if not repeated:
            return None
        contents = collections.defaultdict(list)
        for lst in keyed[:3]:
            for k, e in lst:
                if k in repeated and freeze(e) not in contents[k]:
                    contents[k].append(freeze(e))
        maps = []
        for lst in keyed:
            m = collections.OrderedDict()
            for k, e in lst:
                if k in repeated:
                    if freeze(e) not in contents[k]:
                        return None
                    k = (k, contents[k].index(freeze(e)))
                if k in m:
                    return None
                m[k] = e
            maps.append(m)
        return maps

    def elem(self, kind, path, b, o, t, r, out):
        """2.5, one element: added by theirs, whole; ours' own, as it is; one theirs deleted goes
        (kyaml leaves ours' own fields and the key, a partial element the notes read from the
        code: that is taken too); else merged as a map, its key written back, and removed where
        the merged map is empty."""
        fields = kind.fields
        if not all(isinstance(x, dict) or x is ABSENT for x in (b, o, t, r)):
            return self.value(kind.elem_ctx, path, b, o, t, r, out)
        if b is ABSENT and (o is ABSENT or t is ABSENT):
            # Added by one side: whole, its nulls cleared or not, and gone where nothing but
            # nulls and its key is left of it (an empty merged element is removed).
            exp = t if o is ABSENT else o
            if r is ABSENT and without(exp, fields) and not drop_nulls(without(exp, fields)):
                return
            return self.expect(path, exp, r, "kyaml-added-upstream" if o is ABSENT else "kyaml-local-only", out)
        bs, os_, ts = (without(x, fields) if x is not ABSENT else ABSENT for x in (b, o, t))
        if t is ABSENT:
            if r is ABSENT:
                return
            partial = {k: x for k, x in os_.items() if k not in bs} if isinstance(os_, dict) else {}
            if o is not ABSENT and o != b and partial and without(r, fields) == partial:
                return
            out.append(Violation("kyaml-deleted-upstream", fmt(path), "theirs deleted this element; the result holds %s"
                                 % show(r)))
            return
        if r is ABSENT:
            # Removed: right where the merged element is empty (2.5: "result missing, null or
            # {} is removed").
            sub = []
            self.map_value(kind.elem_ctx, path, bs, os_, ts, {}, sub)
            if not sub:
                return
            out.append(Violation("kyaml-element-missing", fmt(path), "the merged element is missing: %s" % sub[0]))
            return
        self.map_value(kind.elem_ctx, path, bs, os_, ts, without(r, fields), out)


class Oracle:
    """The clean result's reading for a policy (mark: Rules; ours: Rules with ours winning;
    theirs: Kyaml) and the side check of a conflicted result (Rules, each side winning, whole)."""

    def __init__(self, table, policy="mark"):
        self.table, self.policy = table, policy
        self.clean = Kyaml(table) if policy == "theirs" else Rules(table, win="ours" if policy == "ours" else None)
        self.sides = {s: Rules(table, win=s, whole=True) for s in ("ours", "theirs")}
        self.mark = self.clean if policy == "mark" else Rules(table)

    def check(self, b_docs, o_docs, t_docs, r_docs, single=True):
        return self.clean.check(b_docs, o_docs, t_docs, r_docs, single)

    def check_mark(self, b_docs, o_docs, t_docs, r_docs, single=True):
        """For a clean result of git's line merge (the fallback): no policy decided anything
        there, so it is judged as mark mode judges a clean result; but under theirs or ours it
        is also right where it is the policy's own answer, which is what the command asked for:
        the policy's clean reading, with lists judged strictly (`strictly`), finds nothing
        wrong. Ours deleted an element of a CRD's `required` (an unkeyed list) that theirs
        moved and added to; git's line merge keeps theirs' list, as kyaml's merge does for a
        non-associative list both sides changed (§2.4: upstream's list taken whole), though
        mark mode drops the element (adversary manifests-theirs-1172-1808: two documents of
        one identity, so the line fallback). The sequence reading alone excuses nothing here:
        with no conflicting stretch, git's element merge is no policy's choice."""
        found = self.mark.check(b_docs, o_docs, t_docs, r_docs, single)
        if found and self.policy != "mark" and not strictly(self.check, b_docs, o_docs, t_docs, r_docs, single):
            return []
        return found

    def check_side(self, side, b_docs, o_docs, t_docs, r_docs, single=True):
        return self.sides[side].check(b_docs, o_docs, t_docs, r_docs, single)


def leaves(v, path=""):
    """A value's scalar leaves as (path without list positions, value)."""
    if isinstance(v, dict):
        return [leaf for k, x in v.items() for leaf in leaves(x, path + "." + str(plain(k)))]
    if isinstance(v, list):
        return [leaf for x in v for leaf in leaves(x, path)]
    return [(path, freeze(v))]


def schema_str(parts):
    return ".".join(parts)


def keylabel(fields, k):
    if fields == "set":
        return "[%s]" % show(k, 60)
    return "[" + ",".join("%s=%s" % (f, plain(v) if not isinstance(v, tuple) or len(v) != 2 or v[0] in ("{}", "[]") else v[1])
                          for f, v in zip(fields, k)) + "]"


def label(k):
    if k is None:
        return "<doc>"
    if k and k[0] == "#position":
        return "<doc #%d>" % k[1] if len(k) == 2 else "<%s doc #%d>" % (k[1], k[2])
    g, kind, ns, name = k[:4]
    s = "%s%s %s%s" % (g + "/" if g else "", kind, ns + "/" if ns else "", name)
    return s + ("#%s" % (k[5],) if len(k) > 4 else "")


# What a content key of a template skeleton holds: the output of its action line.
OUTPUT = "\u2039output\u203a"


def output_only(v):
    """Whether a value is a map of nothing but content keys (Skeleton.block_keys, `content`):
    the output of action lines, which as YAML text is a key with no value."""
    return isinstance(v, dict) and bool(v) and all(
        isinstance(k, tuple) and k[0] == "str" and k[1].startswith("\u2039") and not is_guard(k) and x is None
        for k, x in v.items())


def fmt(path):
    out = path[0] if path else ""
    rest = ""
    for p in path[1:]:
        rest += p if p.startswith("[") else ("." if rest else "") + p
    return "%s: %s" % (out, rest or "<whole>")


# ---------------------------------------------------------------------------------------------
# Conflicts

MARK = re.compile(r"^(<{7}|\|{7}|={7}|>{7})(?![<|=>])")


# A template line of nothing but block actions (opening, `else` or `end`), which write no text.
# An action that writes no text: a block's line, a comment (`{{- /* … */ -}}`), a variable
# set (`{{- $dict := dict … }}`). Go's template language renders nothing for these.
SILENT_ACTION = re.compile(r"\{\{-?\s*(?:(?:if|with|range|define|block|else|end)\b[^{}]*|\$\w*\s*:?=[^{}]*|/\*.*?\*/\s*)-?\}\}")
COMMENT_OPEN = re.compile(r"^\s*\{\{-?\s*/\*")


def silent_lines(text):
    """`text` with each line that holds only actions writing no text made a comment line:
    block lines, template comments (a comment's lines between `{{- /*` and `*/ -}}` too) and
    variable sets. Such lines are no data whichever side is taken, as a skeleton's control
    lines are; a line of an action that writes text (`{{ toYaml .x | indent 4 }}`) stays.
    Conflict markers stay as they are (made comments, spans_the_file would not see the
    conflict), and a comment open where a conflict starts is read on through each side from
    there: a line after the conflict is in the comment only where both sides leave it open
    (a merge whose conflict starts inside the file's leading `{{- /*` comment)."""
    out, in_comment = [], False
    at_start, ends = False, []
    for line in text.splitlines(keepends=True):
        m = MARK.match(line)
        if m:
            tok = m.group(1)[0]
            if tok == "<":
                at_start, ends = in_comment, []
            elif tok in "|=":
                # Ours' side ends at the first of them; base's section is no side.
                ends = ends or [in_comment]
                in_comment = at_start
            else:
                in_comment = all(ends + [in_comment])
            out.append(line)
            continue
        if in_comment:
            out.append("#" + line)
            in_comment = not re.search(r"\*/\s*-?\}\}\s*$", line)
            continue
        if COMMENT_OPEN.match(line) and "}}" not in line:
            out.append("#" + line)
            in_comment = True
            continue
        silent = line.strip() and not SILENT_ACTION.sub("", line).strip()
        out.append("#" + line if silent else line)
    return "".join(out)


def spans_the_file(text):
    """Whether a conflicted text's conflicts take in every line of data: outside them stand
    only blank, comment and document separator lines. Such a conflict is the whole file, ours
    against theirs: a person sees every difference in it, so a side may hold that side's whole
    file, as a side may hold its whole value at a document or path both sides changed."""
    marked, state = False, None
    for line in text.splitlines():
        m = MARK.match(line)
        if m:
            tok = m.group(1)[0]
            if tok == "<":
                state, marked = "in", True
                continue
            if state and tok == ">":
                state = None
                continue
            if state:
                continue
        s = line.strip()
        if state is None and s and not s.startswith(("#", "---", "...")):
            return False
    return marked


def take_side(text, side):
    """The file a user gets by keeping one side of every conflict block."""
    out, state = [], None
    for line in text.splitlines(True):
        m = MARK.match(line)
        if m:
            tok = m.group(1)[0]
            if tok == "<":
                state = "ours"
                continue
            if state and tok == "|":
                state = "base"
                continue
            if state and tok == "=":
                state = "theirs"
                continue
            if state and tok == ">":
                state = None
                continue
        if state is None or state == side:
            out.append(line)
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Text edits located by PyYAML node marks

IMAGE_TAGS = ["1.2.4", "2.0.0", "v3.1.0", "latest", "1.27.1-alpine"]
STR_POOL = ["staging", "prod", "v2", "enabled", "blue", "green", "canary"]
NEW_KEYS = ["team", "tier", "owner", "priority", "enabled", "timeoutSeconds", "imagePullPolicy",
            "revisionHistoryLimit", "description", "app.kubernetes.io/version"]
NEW_VALS = ["platform", "backend", '"true"', "true", "3", "30", "IfNotPresent", "staging"]
ARG_POOL = ["--verbose", "--log-level=debug", "--port=8080", "--metrics", "extra.yaml"]
NAME_POOL = ["metrics", "sidecar", "debug", "LOG_LEVEL", "FEATURE_FLAG", "cache"]
PORT_POOL = [8443, 9090, 9443]
BLOCK_LINES = ["echo start", "set -e", "listen 8080;", "key = value", "line two"]
COMMENTS = ["# changed by the team", "# TODO: revisit", "# pinned for now", "# see the runbook"]
KEY_FIELDS = ["name", "mountPath", "devicePath", "containerPort", "port", "ip", "topologyKey", "type", "key", "id", "protocol"]
INTERESTING = {"image", "replicas", "value", "tag", "version", "name", "app", "memory", "cpu", "port",
               "containerPort", "targetPort", "namespace", "enabled", "repository", "path"}


def is_plain(n):
    return n.style in (None, "")


KIND_PATHS = (["apiVersion"], ["kind"])


class Pair:
    __slots__ = ("mapnode", "k", "v", "key", "line", "col", "first_in_item", "last", "path", "schema", "doc", "alias")


class Item:
    __slots__ = ("seq", "node", "line", "dash", "last", "path", "doc", "index")


class Index:
    """Where things are in one text: pairs of block mappings, items of block sequences, scalars,
    comment lines and document chunks, each with line ranges usable for text edits."""

    def __init__(self, text):
        self.text = text
        self.eol = "\r\n" if "\r\n" in text else "\n"
        self.lines = text.split("\n")
        # Keep the separators: lines[i] includes its "\n" except possibly the last.
        self.lines = [l + "\n" for l in self.lines[:-1]] + ([self.lines[-1]] if self.lines[-1] else [])
        self.docs = [d for d in yaml.compose_all(text, Loader=CLoader)]
        self.pairs, self.items, self.scalars, self.maps, self.seqs = [], [], [], [], []
        self.multiline = set()
        self.seen = set()
        self.anchors, self.merge_maps = [], set()
        self.doc_idents = []
        self.several = len([d for d in self.docs if d is not None]) > 1
        for di, d in enumerate(self.docs):
            self.doc_idents.append(self.node_identity(d))
            if d is not None:
                self.walk(d, [], [], di)
        self.chunks = self.doc_chunks()
        self.data = construct_docs(self.docs)

    @staticmethod
    def node_identity(d):
        if not isinstance(d, yaml.MappingNode):
            return None
        vals = {k.value: v for k, v in d.value if isinstance(k, yaml.ScalarNode)}
        md = vals.get("metadata")
        name = namespace = None
        if isinstance(md, yaml.MappingNode):
            for k, v in md.value:
                if isinstance(k, yaml.ScalarNode) and k.value == "name" and isinstance(v, yaml.ScalarNode):
                    name = v
                if isinstance(k, yaml.ScalarNode) and k.value == "namespace" and isinstance(v, yaml.ScalarNode):
                    namespace = v
        kind = vals.get("kind")
        return {"kind": kind.value if isinstance(kind, yaml.ScalarNode) else None, "name": name, "namespace": namespace}

    def last_line(self, n):
        if isinstance(n, yaml.ScalarNode):
            if n.style in ("|", ">"):
                e = n.end_mark
                ln = e.line if e.column > 0 else e.line - 1
                while ln > n.start_mark.line and ln < len(self.lines) and self.lines[ln].strip() == "":
                    ln -= 1
                return min(ln, len(self.lines) - 1)
            return n.end_mark.line
        if n.flow_style or not n.value:
            return n.end_mark.line
        last = n.value[-1]
        if isinstance(n, yaml.MappingNode):
            return max(self.last_line(last[0]), self.last_line(last[1]))
        return self.last_line(last)

    def walk(self, n, path, schema, di):
        """Records pairs, items and scalars below n; returns n's last line (see last_line).
        PyYAML's composer gives an alias the anchored node itself: a node met a second time is
        an alias, whose text is one token the caller locates (it is not walked again)."""
        self.seen.add(id(n))
        if isinstance(n, yaml.ScalarNode):
            last = self.last_line(n)
            if n.end_mark.line > n.start_mark.line:
                self.multiline.update(range(n.start_mark.line + 1, last + 1))
            return last
        lines = self.lines
        if isinstance(n, yaml.MappingNode):
            block = not n.flow_style
            if block:
                self.maps.append((n, path, schema, di))
            last = n.end_mark.line
            for k, v in n.value:
                kname = str(k.value) if isinstance(k, yaml.ScalarNode) else "?"
                kpath = path + [kname]
                klast = k.end_mark.line
                alias = id(v) in self.seen
                if alias:
                    vlast = klast
                    if block and kname == "<<":
                        self.merge_maps.add(id(n))
                else:
                    anchor = None
                    if block and isinstance(k, yaml.ScalarNode) and klast < len(lines):
                        m = re.match(r"\s*:\s*&(\S+)", lines[klast][k.end_mark.column:])
                        anchor = m.group(1) if m else None
                    vlast = self.walk(v, kpath, schema + [kname], di)
                    if anchor:
                        self.anchors.append((anchor, klast, v, vlast))
                last = max(klast, vlast)
                if block and isinstance(k, yaml.ScalarNode) and k.start_mark.line == klast:
                    ln, col = k.start_mark.line, k.start_mark.column
                    prefix = lines[ln][:col].strip() if ln < len(lines) else "x"
                    if prefix in ("", "-"):
                        p = Pair()
                        p.mapnode, p.k, p.v, p.key, p.line, p.col = n, k, v, kname, ln, col
                        p.first_in_item = prefix == "-"
                        p.last = max(ln, vlast)
                        p.path, p.schema, p.doc = kpath, schema + [kname], di
                        p.alias = alias
                        self.pairs.append(p)
                        if isinstance(v, yaml.ScalarNode) and not alias and not self.kind_field(kpath, di):
                            self.scalars.append((v, kpath, di, kname))
            return last if block and n.value else n.end_mark.line
        if isinstance(n, yaml.SequenceNode):
            block = not n.flow_style
            if block:
                self.seqs.append((n, path, schema, di))
            ischema = schema[:-1] + [schema[-1] + "[]"] if schema else ["[]"]
            last = n.end_mark.line
            for i, it in enumerate(n.value):
                ipath = path + ["[%d]" % i]
                if id(it) in self.seen:
                    # An alias item: where its line is, the composer does not say; the list
                    # gets no items (items_by_seq wants them all), so no item edit touches it.
                    continue
                last = self.walk(it, ipath, ischema, di)
                if block:
                    ln, col = it.start_mark.line, it.start_mark.column
                    before = lines[ln][:col] if ln < len(lines) else "x"
                    if before.strip() == "-" and not (isinstance(it, yaml.ScalarNode) and it.start_mark == it.end_mark):
                        x = Item()
                        x.seq, x.node, x.line, x.dash = n, it, ln, before.index("-")
                        x.last = max(ln, last)
                        x.path, x.doc, x.index = ipath, di, i
                        self.items.append(x)
                        if isinstance(it, yaml.ScalarNode):
                            self.scalars.append((it, ipath, di, path[-1] if path else ""))
            return last if block and n.value else n.end_mark.line
        return n.end_mark.line

    def in_anchor(self, line):
        return any(a <= line <= b for (_, a, _, b) in self.anchors)

    def kind_field(self, path, di):
        """A resource's apiVersion or kind: a value edit there makes another kind of resource,
        which no person does by editing one word (renames change metadata.name and key fields,
        and those are edited like any other value)."""
        ident = self.doc_idents[di] if di < len(self.doc_idents) else None
        return bool(ident and (ident["kind"] or ident["name"] is not None) and path in KIND_PATHS)

    def identified(self):
        """Whether any document is a resource (has a kind or a metadata.name)."""
        return any(i and (i["kind"] or i["name"] is not None) for i in self.doc_idents)

    def doc_chunks(self):
        """Line ranges of the documents, split at '---' lines; None if that does not match the parse."""
        if any(l.startswith("%") or l.rstrip() == "..." for l in self.lines):
            return None
        seps = [i for i, l in enumerate(self.lines) if re.match(r"^---(\s|$)", l) and i not in self.multiline]
        bounds = [0] + seps + [len(self.lines)]
        chunks = []
        for a, b in zip(bounds, bounds[1:]):
            content = [l for l in self.lines[a:b] if l.strip() and not l.lstrip().startswith("#") and not re.match(r"^---\s*$", l)]
            if content:
                chunks.append((a, b))
        real = [d for d in self.docs if d is not None]
        if len(chunks) != len(real):
            return None
        return chunks

    def comment_lines(self):
        return [i for i, l in enumerate(self.lines) if l.lstrip().startswith("#") and i not in self.multiline]

    def doc_label(self, di):
        ident = self.doc_idents[di] if di < len(self.doc_idents) else None
        if ident and (ident["kind"] or ident["name"] is not None):
            return "%s/%s" % (ident["kind"] or "", ident["name"].value if ident["name"] is not None else "")
        return "doc%d" % di


class Cand:
    __slots__ = ("kind", "line", "target", "apply", "where")

    def __init__(self, kind, line, target, apply, where):
        self.kind, self.line, self.target, self.apply, self.where = kind, line, target, apply, where


def nl(ix, s):
    return s + ix.eol


def with_eol(lines, ix):
    """Lines with the last one terminated, so that text can be inserted after it."""
    lines = list(lines)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += ix.eol
    return lines


def new_scalar(rng, key, old, tag):
    if key == "image" and ":" in old.split("/")[-1]:
        return old.rsplit(":", 1)[0] + ":" + rng.choice(IMAGE_TAGS)
    if key == "image":
        return old + ":" + rng.choice(IMAGE_TAGS)
    if tag.endswith(":int"):
        try:
            n = int(old)
        except ValueError:
            return None
        return str(rng.choice([n + 1, n + 2, n * 2, 0, 3]))
    if tag.endswith(":bool"):
        return "false" if old.lower() in ("true", "yes", "on") else "true"
    if re.search(r"\d+\.\d+", old) and rng.random() < 0.6:
        return re.sub(r"(\d+)\.(\d+)", lambda m: "%s.%d" % (m.group(1), int(m.group(2)) + rng.choice([1, 2])), old, count=1)
    if rng.random() < 0.5:
        return old + "-" + rng.choice(STR_POOL)
    return rng.choice(STR_POOL)


def quote_like(node, s):
    if node.style == '"':
        return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')
    if node.style == "'":
        return "'%s'" % s.replace("'", "''")
    return s


def replace_span(lines, line, c0, c1, text):
    lines = list(lines)
    l = lines[line]
    lines[line] = l[:c0] + text + l[c1:]
    return lines


def cands_scalar(ix, rng):
    out = []
    for (n, path, di, key) in ix.scalars:
        if n.start_mark.line != n.end_mark.line or n.style not in (None, "", '"', "'") or n.start_mark == n.end_mark:
            continue
        if n.value == "" or len(n.value) > 200:
            continue

        def apply(rng, n=n, key=key):
            new = new_scalar(rng, key, n.value, n.tag)
            if new is None or new == n.value:
                return None
            line, col = value_start(ix, n)
            return replace_span(ix.lines, line, col, n.end_mark.column, quote_like(n, new))
        w = "%s %s" % (ix.doc_label(di), ".".join(path))
        out.append(Cand("scalar", n.start_mark.line, ("scalar", n.start_mark.line), apply, w))
        if key in INTERESTING or (len(path) >= 2 and path[-2] in ("labels", "annotations", "env")):
            out.extend([out[-1]] * 2)
        if ix.in_anchor(n.start_mark.line):
            # A value under an anchor changes every alias of it too (issue 27).
            out.extend([out[-1]] * 4)
    return out


def value_start(ix, n):
    """Line and column where a node's own text starts: PyYAML's mark includes its anchor or tag."""
    line, col = n.start_mark.line, n.start_mark.column
    m = re.match(r"(?:[&!]\S*\s+)+", ix.lines[line][col:])
    return line, col + (m.end() if m else 0)


def cands_add_key(ix, rng):
    out = []
    bymap = collections.defaultdict(list)
    for p in ix.pairs:
        bymap[id(p.mapnode)].append(p)
    for ps in bymap.values():
        names = {p.key for p in ps}
        col = ps[0].col
        for j, p in enumerate(ps):
            def apply(rng, p=p, col=col, names=names):
                key = rng.choice([k for k in NEW_KEYS if k not in names] or ["extra"])
                ind = " " * col
                r = rng.random()
                if r < 0.2:
                    new = [nl(ix, "%s%s:" % (ind, key)), nl(ix, "%s  sub: %s" % (ind, rng.choice(NEW_VALS)))]
                elif r < 0.35:
                    # a block scalar (issue 27: one added to a map the other side turned into flow style)
                    new = [nl(ix, "%s%s: %s" % (ind, key, rng.choice(["|", "|-", ">", "|+"])))]
                    new += [nl(ix, "%s  %s" % (ind, t)) for t in rng.sample(BLOCK_LINES, rng.randint(1, 3))]
                else:
                    new = [nl(ix, "%s%s: %s" % (ind, key, rng.choice(NEW_VALS)))]
                lines = with_eol(ix.lines, ix)
                return lines[:p.last + 1] + new + lines[p.last + 1:]
            c = Cand("add-key", p.last, ("map", ps[0].line), apply, "%s %s" % (ix.doc_label(p.doc), ".".join(p.path[:-1]) or "<root>"))
            # A map that merges an anchor (`<<: *x`) is where a key added meets the anchor's.
            out.extend([c] * (4 if id(p.mapnode) in ix.merge_maps else 1))
    return out


def delete_pair(ix, p, siblings):
    lines = list(ix.lines)
    if p.first_in_item:
        after = [q for q in siblings if q.line > p.last]
        if not after:
            return None
        nxt = after[0]
        dash = ix.lines[p.line].index("-")
        l = lines[nxt.line]
        if l[dash:dash + 2] != "  ":
            return None
        lines[nxt.line] = l[:dash] + "- " + l[dash + 2:]
        return lines[:p.line] + lines[nxt.line:]
    return lines[:p.line] + lines[p.last + 1:]


def siblings_of(ix):
    bymap = collections.defaultdict(list)
    for p in ix.pairs:
        bymap[id(p.mapnode)].append(p)
    return bymap


def cands_del_key(ix, rng):
    out = []
    bymap = siblings_of(ix)
    for p in ix.pairs:
        sib = bymap[id(p.mapnode)]
        if len(p.mapnode.value) < 2 or len(sib) != len(p.mapnode.value):
            continue
        if not p.path or len(p.path) == 1 and p.key in ("apiVersion", "kind"):
            continue
        out.append(Cand("del-key", p.line, ("pair", p.line), lambda rng, p=p, sib=sib: delete_pair(ix, p, sib),
                        "%s %s" % (ix.doc_label(p.doc), ".".join(p.path))))
    return out


def items_by_seq(ix):
    byseq = collections.defaultdict(list)
    for it in ix.items:
        byseq[id(it.seq)].append(it)
    return {k: v for k, v in byseq.items() if len(v) == len(v[0].seq.value)}


def item_block(ix, its, i):
    """Line range [a, b) of item i, including comment lines up to the next item."""
    a = its[i].line
    b = its[i + 1].line if i + 1 < len(its) else its[i].last + 1
    return a, b


def rename_in_copy(ix, it, block_lines, rng, force_key=True):
    """A copied list element (lines) with its key field, or else some scalar, changed."""
    node = it.node
    lines = list(block_lines)
    base = it.line
    if isinstance(node, yaml.ScalarNode):
        if node.style not in (None, "", '"', "'") or node.start_mark.line != node.end_mark.line:
            return None
        val = rng.choice(ARG_POOL) if node.value.startswith("-") or rng.random() < 0.5 else node.value + "-" + rng.choice(STR_POOL)
        return replace_span(lines, 0, node.start_mark.column, node.end_mark.column, quote_like(node, val))
    if not isinstance(node, yaml.MappingNode):
        return None
    fields = {k.value: v for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    # Every key-like field is renamed, so that the copy is a new element whatever the list's key
    # (a Service port copied with a new name but the same port would be a duplicate key).
    renamed = []
    for f in KEY_FIELDS:
        v = fields.get(f)
        if isinstance(v, yaml.ScalarNode) and v.start_mark.line == v.end_mark.line and v.style in (None, "", '"', "'") and v.value:
            if v.tag.endswith(":int"):
                new = str(rng.choice(PORT_POOL))
            else:
                new = rng.choice(NAME_POOL)
            if new == v.value:
                new += "2"
            lines = replace_span(lines, v.start_mark.line - base, v.start_mark.column, v.end_mark.column, quote_like(v, new))
            renamed.append(v.start_mark.line)
    if not renamed:
        return None if force_key else lines
    # Edit one more scalar of the copy now and then (a copied container gets its own image).
    img = fields.get("image") or fields.get("value")
    if isinstance(img, yaml.ScalarNode) and img.start_mark.line not in renamed and rng.random() < 0.5 \
            and img.start_mark.line == img.end_mark.line and img.style in (None, "", '"', "'"):
        newv = new_scalar(rng, "image" if "image" in fields else "value", img.value, img.tag)
        if newv:
            lines = replace_span(lines, img.start_mark.line - base, img.start_mark.column, img.end_mark.column, quote_like(img, newv))
    return lines


def cands_add_item(ix, rng, copy_only=False):
    out = []
    for its in items_by_seq(ix).values():
        seqpath = its[0].path[:-1]
        for i, it in enumerate(its):
            if copy_only and not (isinstance(it.node, yaml.MappingNode) and any(
                    isinstance(k, yaml.ScalarNode) and k.value == "name" for k, _ in it.node.value)):
                continue

            def apply(rng, its=its, i=i, it=it):
                a, b = it.line, it.last + 1
                block = with_eol(ix.lines[a:b], ix)
                copy = rename_in_copy(ix, it, block, rng)
                if copy is None:
                    return None
                lines = with_eol(ix.lines, ix)
                if copy_only:
                    pos = a if rng.random() < 0.5 else b
                else:
                    j = rng.randrange(len(its) + 1)
                    pos = its[j].line if j < len(its) else its[-1].last + 1
                return lines[:pos] + copy + lines[pos:]
            kind = "copy-item" if copy_only else "add-item"
            out.append(Cand(kind, it.line, ("seq", its[0].line), apply, "%s %s" % (ix.doc_label(it.doc), ".".join(seqpath))))
    return out


def cands_del_item(ix, rng):
    out = []
    for its in items_by_seq(ix).values():
        if len(its) < 2:
            continue
        for i, it in enumerate(its):
            out.append(Cand("del-item", it.line, ("item", it.line),
                            lambda rng, it=it: ix.lines[:it.line] + ix.lines[it.last + 1:],
                            "%s %s" % (ix.doc_label(it.doc), ".".join(it.path))))
    return out


def cands_reorder_list(ix, rng):
    out = []
    for its in items_by_seq(ix).values():
        if len(its) < 2:
            continue
        path = its[0].path[:-1]
        weight = 3 if path and path[-1] in ("rules", "args", "command", "resources", "containers", "env", "ports", "verbs", "steps") else 1

        def apply(rng, its=its):
            lines = with_eol(ix.lines, ix)
            blocks = [lines[a:b] for a, b in (item_block(ix, its, i) for i in range(len(its)))]
            # the last block ends at its last line: anything after it stays put
            start, end = its[0].line, its[-1].last + 1
            order = list(range(len(its)))
            if rng.random() < 0.5:
                i = rng.randrange(len(its) - 1)
                order[i], order[i + 1] = order[i + 1], order[i]
            else:
                i = rng.randrange(len(its))
                x = order.pop(i)
                order.insert(rng.randrange(len(its)), x)
            if order == list(range(len(its))):
                return None
            new = [l for k in order for l in blocks[k]]
            return lines[:start] + new + lines[end:]
        c = Cand("reorder-list", its[0].line, ("seq", its[0].line), apply, "%s %s" % (ix.doc_label(its[0].doc), ".".join(path)))
        out.extend([c] * weight)
    return out


def cands_move_key(ix, rng):
    out = []
    for ps in siblings_of(ix).values():
        if len(ps) < 2 or len(ps) != len(ps[0].mapnode.value):
            continue
        blocks = []
        for i, p in enumerate(ps):
            blocks.append((p.line, ps[i + 1].line if i + 1 < len(ps) else p.last + 1))
        movable = [i for i, p in enumerate(ps) if not p.first_in_item]
        if not movable:
            continue

        def apply(rng, ps=ps, blocks=blocks, movable=movable):
            lines = with_eol(ix.lines, ix)
            i = rng.choice(movable)
            dests = [j for j in range(len(ps) + 1) if j not in (i, i + 1) and not (j == 0 and ps[0].first_in_item)]
            if not dests:
                return None
            j = rng.choice(dests)
            a, b = blocks[i]
            moved = lines[a:b]
            # the last block has no trailing comments; a moved block keeps its own lines only
            if i == len(ps) - 1:
                moved = lines[a:ps[i].last + 1]
                b = ps[i].last + 1
            dest = blocks[j][0] if j < len(ps) else ps[-1].last + 1
            rest = lines[:a] + lines[b:]
            if dest > a:
                dest -= (b - a)
            return rest[:dest] + moved + rest[dest:]
        out.append(Cand("move-key", ps[0].line, ("map", ps[0].line), apply, "%s %s" % (ix.doc_label(ps[0].doc), ".".join(ps[0].path[:-1]) or "<root>")))
    return out


def value_prefix(ix, p):
    """The key's line up to and including the colon."""
    l = ix.lines[p.line]
    c = l.find(":", p.k.end_mark.column)
    if c < 0:
        return None
    return l[:c + 1]


EMPTIED_LISTS = {"args", "command", "rules", "finalizers", "patches", "env", "volumes", "volumeMounts", "ports",
                 "resources", "steps", "containers", "tolerations", "additionalPrinterColumns"}


def cands_empty(ix, rng):
    out = []
    for p in ix.pairs:
        if p.alias:
            continue
        v = p.v
        if not isinstance(v, (yaml.MappingNode, yaml.SequenceNode)) or v.flow_style or not v.value:
            continue
        if v.start_mark.line <= p.line:
            continue

        def apply(rng, p=p, v=v):
            pre = value_prefix(ix, p)
            if pre is None:
                return None
            e = "[]" if isinstance(v, yaml.SequenceNode) else "{}"
            return ix.lines[:p.line] + [nl(ix, pre + " " + e)] + ix.lines[p.last + 1:]
        c = Cand("empty", p.line, ("pair", p.line), apply, "%s %s" % (ix.doc_label(p.doc), ".".join(p.path)))
        # The lists a person empties (issue 27: `args: []`, RBAC `rules: []`, `finalizers: []`,
        # a kustomization's `patches: []`) come up more often than any map.
        out.extend([c] * (4 if isinstance(v, yaml.SequenceNode) and p.key in EMPTIED_LISTS else 1))
    return out


def cands_null(ix, rng):
    out = []
    for p in ix.pairs:
        v = p.v
        if isinstance(v, yaml.ScalarNode) and v.value == "" and is_plain(v):
            continue
        if isinstance(v, yaml.ScalarNode) and v.tag.endswith(":null"):
            continue
        if p.path and len(p.path) == 1 and p.key in ("apiVersion", "kind", "metadata"):
            continue

        def apply(rng, p=p, v=v):
            word = rng.choice(["null", "~", ""])
            pre = value_prefix(ix, p)
            if pre is None:
                return None
            if isinstance(v, yaml.ScalarNode) and v.start_mark.line == v.end_mark.line == p.line and v.style not in ("|", ">"):
                l = ix.lines[p.line]
                new = (l[:v.start_mark.column] + word + l[v.end_mark.column:])
                if not word:
                    new = new[:v.start_mark.column].rstrip() + l[v.end_mark.column:]
                return replace_span(ix.lines, p.line, 0, len(l), new)
            return ix.lines[:p.line] + [nl(ix, (pre + " " + word).rstrip())] + ix.lines[p.last + 1:]
        out.append(Cand("null", p.line, ("pair", p.line), apply, "%s %s" % (ix.doc_label(p.doc), ".".join(p.path))))
    return out


def cands_svc_port(ix, rng):
    out = []
    for its in items_by_seq(ix).values():
        it0 = its[0]
        di = it0.doc
        ident = ix.doc_idents[di] if di < len(ix.doc_idents) else None
        if not ident or ident["kind"] != "Service" or it0.path[:-1] != ["spec", "ports"]:
            continue
        if not isinstance(it0.node, yaml.MappingNode):
            continue

        def apply(rng, its=its):
            it = its[0]
            col = it.node.start_mark.column
            head = ix.lines[it.line][:it.dash] + "-" + " " * (col - it.dash - 1)
            ind = " " * col
            port = rng.choice(PORT_POOL)
            fields = []
            if rng.random() < 0.6:
                fields.append("name: p%d" % port)
            fields.append("port: %d" % port)
            r = rng.random()
            if r < 0.5:
                fields.append("protocol: TCP")
            elif r < 0.6:
                fields.append("protocol: UDP")
            fields.append("targetPort: %d" % rng.choice([port, 8080]))
            new = [nl(ix, head + fields[0])] + [nl(ix, ind + f) for f in fields[1:]]
            j = rng.randrange(len(its) + 1)
            pos = its[j].line if j < len(its) else its[-1].last + 1
            lines = with_eol(ix.lines, ix)
            return lines[:pos] + new + lines[pos:]
        out.append(Cand("svc-port", it0.line, ("seq", it0.line), apply, "%s spec.ports" % ix.doc_label(di)))
    return out


def cands_comment(ix, rng):
    out = []
    for i in ix.comment_lines():
        def change(rng, i=i):
            l = ix.lines[i]
            ind = l[:len(l) - len(l.lstrip())]
            if rng.random() < 0.3:
                return ix.lines[:i] + ix.lines[i + 1:]
            return ix.lines[:i] + [nl(ix, ind + rng.choice(COMMENTS))] + ix.lines[i + 1:]
        out.append(Cand("comment", i, ("line", i), change, "line %d" % (i + 1)))
    for p in ix.pairs:
        if p.first_in_item:
            continue

        def add(rng, p=p):
            return ix.lines[:p.line] + [nl(ix, " " * p.col + rng.choice(COMMENTS))] + ix.lines[p.line:]
        out.append(Cand("comment", p.line, ("line", p.line), add, "above %s" % ".".join(p.path)))
    return out


def cands_block_text(ix, rng):
    out = []
    for (n, path, di, key) in ix.scalars:
        if n.style not in ("|", ">"):
            continue
        first, last = n.start_mark.line + 1, ix.last_line(n)
        if last < first:
            continue

        def apply(rng, n=n, first=first, last=last):
            lines = with_eol(ix.lines, ix)
            r = rng.random()
            hline, hcol = value_start(ix, n)
            m = re.match(r"[|>][0-9+-]*", lines[hline][hcol:])
            if not m:
                return None
            header = m.group(0)
            ind = "".join(ch for ch in header if ch.isdigit())
            if r < 0.2:
                new = rng.choice([h for h in ("|", "|-", ">-", ">", "|+") if h != header.replace(ind, "")])
                new = new[0] + ind + new[1:]
                return replace_span(lines, hline, hcol, hcol + len(header), new)
            if r < 0.32:
                # The trailing blank lines of a keep-chomping (`|+`) scalar are part of its value
                # (issue 27): one more or one less, the header made `|+` where it was not.
                if n.style != "|":
                    return None
                if "+" not in header:
                    lines = replace_span(lines, hline, hcol, hcol + len(header), "|" + ind + "+")
                elif last + 1 < len(lines) and not lines[last + 1].strip() and rng.random() < 0.5:
                    return lines[:last + 1] + lines[last + 2:]
                return lines[:last + 1] + [ix.eol] + lines[last + 1:]
            content = [i for i in range(first, last + 1) if lines[i].strip()]
            # A folded scalar's lines are one line of data: a line-wise merge of the text is
            # right, but no data-level check can tell; only its header is edited.
            if not content or n.style == ">":
                return None
            i = rng.choice(content[:3]) if rng.random() < 0.5 else rng.choice(content)
            l = lines[i]
            ind = l[:len(l) - len(l.lstrip())]
            if r < 0.6:
                body = l.rstrip("\r\n")
                return lines[:i] + [nl(ix, body + " " + rng.choice(["--debug", "# edited", "x", "2"]))] + lines[i + 1:]
            if r < 0.82:
                return lines[:i + 1] + [nl(ix, ind + rng.choice(["echo done", "set -x", "key = value", "line added"]))] + lines[i + 1:]
            # Deleting the first line could change the block's detected indentation, and with it
            # every line of the value: not an edit a person makes.
            if len(content) < 2 or i == content[0]:
                return None
            return lines[:i] + lines[i + 1:]
        out.append(Cand("block-text", n.start_mark.line, ("scalar", n.start_mark.line), apply, "%s %s" % (ix.doc_label(di), ".".join(path))))
    return out


def cands_copy_doc(ix, rng):
    out = []
    if not ix.chunks or len(ix.chunks) != len([d for d in ix.docs if d is not None]):
        return out
    real = [i for i, d in enumerate(ix.docs) if d is not None]
    for ci, (a, b) in enumerate(ix.chunks):
        di = real[ci]
        ident = ix.doc_idents[di]
        if not ident or ident["name"] is None:
            continue
        name = ident["name"]
        if name.start_mark.line != name.end_mark.line or name.style not in (None, "", '"', "'"):
            continue

        def apply(rng, a=a, b=b, name=name):
            lines = with_eol(ix.lines, ix)
            block = lines[a:b]
            if not re.match(r"^---(\s|$)", block[0]):
                block = [nl(ix, "---")] + block
                off = 1
            else:
                off = 0
            new = name.value + "-" + rng.choice(["copy", "canary", "v2"])
            rel = name.start_mark.line - a + off
            block = replace_span(block, rel, name.start_mark.column, name.end_mark.column, quote_like(name, new))
            # trailing comments of the chunk stay with the original
            while len(block) > 1 and (not block[-1].strip() or block[-1].lstrip().startswith("#")):
                block = block[:-1]
            if rng.random() < 0.5:
                pos = b
            else:
                pos = a
                if not re.match(r"^---(\s|$)", lines[a]):
                    # the copy goes first: the original now needs its own separator
                    return lines[:a] + block + [nl(ix, "---")] + lines[a:]
            return lines[:pos] + block + lines[pos:]
        out.append(Cand("copy-doc", a, ("doc", a), apply, ix.doc_label(di)))
    return out


def cands_reorder_docs(ix, rng):
    if not ix.chunks or len(ix.chunks) < 2:
        return []

    def apply(rng):
        lines = with_eol(ix.lines, ix)
        chunks = ix.chunks
        head = lines[:chunks[0][0]]
        blocks = []
        for a, b in chunks:
            blk = lines[a:b]
            if not re.match(r"^---(\s|$)", blk[0]):
                blk = [nl(ix, "---")] + blk
            blocks.append(blk)
        tail = lines[chunks[-1][1]:]
        order = list(range(len(blocks)))
        i = rng.randrange(len(blocks) - 1)
        if rng.random() < 0.6:
            order[i], order[i + 1] = order[i + 1], order[i]
        else:
            x = order.pop(rng.randrange(len(order)))
            order.insert(rng.randrange(len(order) + 1), x)
        if order == list(range(len(blocks))):
            return None
        return head + [l for k in order for l in blocks[k]] + tail
    return [Cand("reorder-docs", ix.chunks[0][0], ("docs", 0), apply, "documents")]


# Renames, swaps, duplicates, anchors and flow style (issue 27) -------------------------------

CASE = {}   # one merge's state shared by its two sides' edits: the names renames chose
RENAME_SUFFIXES = ["renamed", "v2", "new", "main"]
# The field a rename changes: a list's key where the schema table or the seeds' rule has one
# (mountPath before name, as for volumeMounts), else any key-like field.
RENAME_FIELDS = ["mountPath", "devicePath", "containerPort", "port", "ip", "topologyKey", "name", "type", "key", "id"]
SWAP_LISTS = {"rules", "args", "command", "containers", "env", "ports", "steps", "additionalPrinterColumns",
              "patches", "volumeMounts", "volumes", "resources", "verbs", "initContainers", "tolerations"}
FLOW_UNSAFE = re.compile(r"[,\[\]{}#&*!|>%@`\"']|: |^[-?:]|^$|\s$")


def rename_value(rng, field, old, tag):
    """A new name for a key field; a side renaming what the other side renamed mostly picks the
    same name (issue 27: both sides renamed one Tekton param the same way)."""
    shared = CASE.setdefault("renames", {})
    k = (field, old)
    if k in shared and rng.random() < 0.75:
        return shared[k]
    if tag.endswith(":int"):
        try:
            n = int(old)
        except ValueError:
            return None
        new = str(rng.choice(PORT_POOL + [n + 1, n + 1000]))
    elif old.startswith("/"):
        new = old.rstrip("/") + "-" + rng.choice(["data", "v2"])
    elif rng.random() < 0.7:
        new = old + "-" + rng.choice(RENAME_SUFFIXES)
    else:
        new = rng.choice(NAME_POOL)
    if new == old:
        new = old + "2"
    shared.setdefault(k, new)
    return new


def scalar_fields(node):
    """A block map's single-line plain or quoted values written on their key's line, by key."""
    out = {}
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode) and v.value \
                and v.start_mark.line == v.end_mark.line == k.start_mark.line and v.style in (None, "", '"', "'") \
                and v.start_mark != v.end_mark:
            out[k.value] = v
    return out


def edit_in_block(ix, block, first_line, v, new):
    """`block` (lines from `first_line` on) with the scalar `v` replaced by `new`."""
    line, col = value_start(ix, v)
    return replace_span(block, line - first_line, col, v.end_mark.column, quote_like(v, new))


def changed_copy(ix, rng, block, first_line, fields, keep):
    """A copy of an element's lines with one scalar outside `keep` changed (when it has one)."""
    others = [(k, v) for k, v in fields.items() if k not in keep]
    if not others:
        return list(block)
    k, v = rng.choice(others)
    new = new_scalar(rng, k, v.value, v.tag)
    if new is None or new == v.value:
        return list(block)
    return edit_in_block(ix, block, first_line, v, new)


def cands_rename_item(ix, rng):
    out = []
    for its in items_by_seq(ix).values():
        for it in its:
            if not isinstance(it.node, yaml.MappingNode):
                continue
            fields = scalar_fields(it.node)
            keys = [f for f in RENAME_FIELDS if f in fields]
            if not keys:
                continue

            def apply(rng, it=it, fields=fields, keys=keys):
                f = keys[0] if rng.random() < 0.6 else rng.choice(keys)
                v = fields[f]
                new = rename_value(rng, f, v.value, v.tag)
                if new is None:
                    return None
                lines = with_eol(ix.lines, ix)
                a, b = it.line, it.last + 1
                renamed = edit_in_block(ix, lines[a:b], a, v, new)
                if rng.random() < 0.3:
                    # A new element under the old key, beside the renamed one (issue 27: both
                    # sides renamed a Tekton param, one then added a new param by the old name).
                    again = changed_copy(ix, rng, lines[a:b], a, fields, keys)
                    renamed = renamed + again if rng.random() < 0.5 else again + renamed
                return lines[:a] + renamed + lines[b:]
            out.append(Cand("rename-item", it.line, ("item", it.line), apply, "%s %s" % (ix.doc_label(it.doc), ".".join(it.path))))
    return out


def one_line_scalar(n):
    return isinstance(n, yaml.ScalarNode) and n.start_mark.line == n.end_mark.line and n.style in (None, "", '"', "'") \
        and n.value and n.start_mark != n.end_mark


def cands_rename_doc(ix, rng):
    out = []
    for di, ident in enumerate(ix.doc_idents):
        if not ident or not one_line_scalar(ident["name"]):
            continue
        chunk = None
        if ix.chunks:
            real = [i for i, d in enumerate(ix.docs) if d is not None]
            chunk = ix.chunks[real.index(di)] if di in real else None

        def apply(rng, di=di, ident=ident, chunk=chunk):
            lines = with_eol(ix.lines, ix)
            name = ident["name"]
            new = rename_value(rng, "metadata.name", name.value, name.tag)
            edited = edit_in_block(ix, lines, 0, name, new)
            ns = ident["namespace"]
            if one_line_scalar(ns) and rng.random() < 0.15:
                edited = edit_in_block(ix, edited, 0, ns, rename_value(rng, "metadata.namespace", ns.value, ns.tag))
            if chunk and rng.random() < 0.25:
                # The old name again, on a new resource after the renamed one.
                a, b = chunk
                block = lines[a:b]
                scalars = [(n, p) for (n, p, d, k) in ix.scalars if d == di and one_line_scalar(n) and p not in (
                    ["metadata", "name"], ["metadata", "namespace"])]
                if scalars:
                    n, p = rng.choice(scalars)
                    nv = new_scalar(rng, p[-1], n.value, n.tag)
                    if nv and nv != n.value:
                        block = edit_in_block(ix, block, a, n, nv)
                while len(block) > 1 and (not block[-1].strip() or block[-1].lstrip().startswith("#")):
                    block = block[:-1]
                if not re.match(r"^---(\s|$)", block[0]):
                    block = [nl(ix, "---")] + block
                return edited[:b] + block + edited[b:]
            return edited
        out.append(Cand("rename-doc", ident["name"].start_mark.line, ("doc", di), apply, ix.doc_label(di)))
    return out


def cands_swap_items(ix, rng):
    out = []
    for its in items_by_seq(ix).values():
        if len(its) < 2:
            continue
        path = its[0].path[:-1]

        def apply(rng, its=its):
            lines = with_eol(ix.lines, ix)
            blocks = [lines[a:b] for a, b in (item_block(ix, its, k) for k in range(len(its)))]
            if blocks[-1] and not blocks[-1][-1].endswith("\n"):
                return None
            i, j = sorted(rng.sample(range(len(its)), 2))
            order = list(range(len(its)))
            order[i], order[j] = order[j], order[i]
            return lines[:its[0].line] + [l for k in order for l in blocks[k]] + lines[its[-1].last + 1:]
        c = Cand("swap-items", its[0].line, ("seq", its[0].line), apply, "%s %s" % (ix.doc_label(its[0].doc), ".".join(path)))
        out.extend([c] * (3 if path and path[-1] in SWAP_LISTS else 1))
    return out


def cands_dup_item(ix, rng):
    """A copy of an element that keeps its name (issue 27: two CI steps with one name)."""
    out = []
    for its in items_by_seq(ix).values():
        path = its[0].path[:-1]
        for it in its:
            if not isinstance(it.node, yaml.MappingNode):
                continue
            fields = scalar_fields(it.node)
            if "name" not in fields:
                continue

            def apply(rng, it=it, fields=fields):
                lines = with_eol(ix.lines, ix)
                a, b = it.line, it.last + 1
                copy = changed_copy(ix, rng, lines[a:b], a, fields, RENAME_FIELDS)
                pos = a if rng.random() < 0.5 else b
                return lines[:pos] + copy + lines[pos:]
            c = Cand("dup-item", it.line, ("seq", its[0].line), apply, "%s %s" % (ix.doc_label(it.doc), ".".join(path)))
            out.extend([c] * (3 if path and path[-1] in ("steps", "jobs", "tasks", "params") else 1))
    return out


def flow_text(ix, n):
    """A single-line scalar's source text where it can stand in a flow collection, else None."""
    if not one_line_scalar(n):
        return None
    line, col = value_start(ix, n)
    if col != n.start_mark.column:
        return None
    t = ix.lines[line][col:n.end_mark.column]
    if n.style in (None, "") and FLOW_UNSAFE.search(t):
        return None
    return t


def cands_flow_style(ix, rng):
    """A small block map or list of scalars rewritten as a flow collection on its key's line."""
    out = []
    for p in ix.pairs:
        v = p.v
        if p.alias or not isinstance(v, (yaml.MappingNode, yaml.SequenceNode)) or v.flow_style or not v.value \
                or len(v.value) > 6 or v.start_mark.line <= p.line:
            continue
        parts = []
        for e in v.value:
            if isinstance(v, yaml.MappingNode):
                kt, xt = flow_text(ix, e[0]), flow_text(ix, e[1])
                if kt is None or xt is None or e[0].start_mark.line != e[1].start_mark.line:
                    parts = None
                    break
                parts.append("%s: %s" % (kt, xt))
            else:
                xt = flow_text(ix, e)
                if xt is None:
                    parts = None
                    break
                parts.append(xt)
        if not parts or any("#" in ix.lines[i] for i in range(p.line + 1, p.last + 1)):
            continue
        text = ("{%s}" if isinstance(v, yaml.MappingNode) else "[%s]") % ", ".join(parts)

        def apply(rng, p=p, text=text):
            pre = value_prefix(ix, p)
            if pre is None:
                return None
            return with_eol(ix.lines[:p.line], ix) + [nl(ix, pre + " " + text)] + ix.lines[p.last + 1:]
        out.append(Cand("flow-style", p.line, ("pair", p.line), apply, "%s %s" % (ix.doc_label(p.doc), ".".join(p.path))))
    return out


def cands_anchor(ix, rng):
    """In a values file (no resource in it): an anchor on a block map with an alias of it or a
    `<<` merge key in a later map, or an alias pointed at another anchor (issue 27)."""
    if ix.identified():
        return []
    out = []
    maps = [ps for ps in siblings_of(ix).values() if len(ps) == len(ps[0].mapnode.value)]
    existing = {name: (line, node, last) for (name, line, node, last) in ix.anchors}
    taken = set(re.findall(r"[&*]([A-Za-z0-9_.-]+)", ix.text))
    for p in ix.pairs:
        v = p.v
        if p.alias or not isinstance(v, yaml.MappingNode) or v.flow_style or not v.value:
            continue
        named = [n for n, (line, node, last) in existing.items() if node is v]
        if not named and v.start_mark.line <= p.line:
            continue
        targets = [ps for ps in maps if ps[0].line > p.last and ps[0].doc == p.doc]
        if not targets:
            continue

        def apply(rng, p=p, named=named, targets=targets):
            lines = with_eol(ix.lines, ix)
            if named:
                name = named[0]
            else:
                name = next(n for n in ("base", "defaults", "common", "shared", "anchor1", "anchor2") if n not in taken)
                pre = value_prefix(ix, p)
                if pre is None:
                    return None
                lines[p.line] = pre + " &" + name + lines[p.line][len(pre):]
            ps = rng.choice(targets)
            merge = rng.random() < 0.6 and not any(q.key == "<<" for q in ps)
            q = rng.choice(ps)
            if merge:
                text = "<<: *" + name
            else:
                names = {x.key for x in ps}
                text = "%s: *%s" % (rng.choice([k for k in NEW_KEYS if k not in names] or ["extra"]), name)
            return lines[:q.last + 1] + [nl(ix, " " * q.col + text)] + lines[q.last + 1:]
        out.append(Cand("anchor", p.line, ("pair", p.line), apply, "%s %s" % (ix.doc_label(p.doc), ".".join(p.path))))
    if len(existing) >= 2:
        for p in ix.pairs:
            if not p.alias:
                continue
            m = re.search(r"\*([A-Za-z0-9_.-]+)", ix.lines[p.line])
            others = [n for n, (line, node, last) in existing.items() if m and n != m.group(1) and last < p.line]
            if not m or not others:
                continue

            def retarget(rng, p=p, m=m, others=others):
                return replace_span(ix.lines, p.line, m.start(1), m.end(1), rng.choice(others))
            out.append(Cand("anchor", p.line, ("pair", p.line), retarget, "%s %s" % (ix.doc_label(p.doc), ".".join(p.path))))
    return out


KINDS = [
    ("scalar", cands_scalar, 3.0), ("add-key", cands_add_key, 2.0), ("del-key", cands_del_key, 2.0),
    ("add-item", cands_add_item, 2.0), ("del-item", cands_del_item, 2.0),
    ("copy-item", lambda ix, rng: cands_add_item(ix, rng, copy_only=True), 1.0), ("copy-doc", cands_copy_doc, 1.0),
    ("reorder-docs", cands_reorder_docs, 1.0), ("reorder-list", cands_reorder_list, 2.0), ("move-key", cands_move_key, 2.0),
    ("empty", cands_empty, 1.0), ("null", cands_null, 1.5), ("svc-port", cands_svc_port, 3.0),
    ("comment", cands_comment, 1.0), ("block-text", cands_block_text, 1.5),
    ("rename-item", cands_rename_item, 2.5), ("rename-doc", cands_rename_doc, 1.0), ("swap-items", cands_swap_items, 1.5),
    ("dup-item", cands_dup_item, 0.7), ("anchor", cands_anchor, 2.0), ("flow-style", cands_flow_style, 0.8),
]


def loads_strict(text):
    try:
        load_docs(text)
        return True
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return False


def edit_side(ix, rng, n_edits, anchors=None):
    """Apply n_edits random edits to the text of ix; near the anchors (the other side's edits)
    when given. Returns (text, documents, [(kind, line, where, target)])."""
    applied = []
    tries = 0
    while len(applied) < n_edits and tries < n_edits * 12:
        tries += 1
        kinds = [k for k in KINDS if k[0] not in G.get("skip", ())]
        rng.shuffle(kinds)
        mirror = [k for k in kinds if anchors and k[0] in {a[0] for a in anchors}]
        if mirror and rng.random() < 0.3:
            # The kind of edit the other side made (both rename, both swap, both empty...).
            name, gen, w = rng.choice(mirror)
        else:
            total = sum(w for _, _, w in kinds)
            x = rng.random() * total
            for name, gen, w in kinds:
                x -= w
                if x <= 0:
                    break
        cands = gen(ix, rng)
        if not cands:
            continue
        mode = rng.random()
        pool = cands
        ref = anchors if anchors else [(k, l, t) for (k, l, w, t) in applied]
        if ref and mode < 0.55:
            near = [c for c in cands if any(abs(c.line - l) <= 4 for (_, l, _) in ref)]
            pool = near or cands
        elif ref and mode < 0.75:
            same = [c for c in cands if any(c.target == t for (_, _, t) in ref)]
            pool = same or cands
        c = rng.choice(pool)
        try:
            new_lines = c.apply(rng)
        except (IndexError, ValueError):
            new_lines = None
        if not new_lines:
            continue
        new = "".join(new_lines)
        if new == ix.text or re.search(r"(?m)^(<{7}|={7}|>{7})", new):
            continue
        try:
            nix = Index(new)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError):
            continue
        if not nix.data:
            continue
        applied.append((c.kind, c.line, c.where, c.target))
        ix = nix
    return ix.text, ix.data, applied


# ---------------------------------------------------------------------------------------------
# Inputs

REPO = os.path.dirname(HERE)
MODES = ["manifests", "values", "templates", "packages"]


def find_shared(arg):
    """The shared data folder (../shared), or None in a fresh clone: then the repository's own
    real merges (tests/realworld) and its copy of the list-key table serve."""
    if arg:
        return arg
    for g in SHARED_GUESSES:
        if os.path.isfile(os.path.join(g, "k8s-list-keys.json")):
            return os.path.abspath(g)
    return None


def load_table(shared):
    path = os.path.join(shared, "k8s-list-keys.json") if shared else os.path.join(REPO, "src", "resource", "k8s-list-keys.json")
    with open(path) as f:
        return json.load(f)["kinds"]


def usable(text):
    """The documents of an input text, or None where the harness does not take it."""
    if any(c in text for c in ("\x85", "\u2028", "\u2029", "\t")) or re.search(r"\r(?!\n)", text):
        return None
    if re.search(r"(?m)^(<{7}|={7}|>{7})", text):
        return None
    try:
        docs = load_docs(text)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return None
    return docs or None


class Input:
    __slots__ = ("name", "text", "skeleton", "cls", "docs")

    def __init__(self, name, text, skeleton, cls, docs):
        self.name, self.text, self.skeleton, self.cls, self.docs = name, text, skeleton, cls, docs


def case_kind(case_dir):
    try:
        with open(os.path.join(case_dir, "case.yaml"), encoding="utf-8") as f:
            return (yaml.load(f, Loader=CLoader) or {}).get("file_kind")
    except (OSError, yaml.YAMLError):
        return None


def collect_inputs(shared, roots, perf, seed, templates=False, max_bytes=None, plain_roots=()):
    """Inputs, each classed `manifests` (a document with a kind or metadata.name), `values`
    (plain YAML) or `templates` (a file holding `{{`, read as the harness's skeleton; only with
    `templates`). `plain_roots`: template folders whose values, Chart and CI files (plain YAML
    with `{{` at most inside strings) join the values."""
    seen, out = set(), []
    todo = [(r, False) for r in roots] + [(r, True) for r in plain_roots]
    for root, plain_only in todo:
        for name in sorted(os.listdir(root)):
            if plain_only and case_kind(os.path.join(root, name)) not in ("values", "chart", "ci"):
                continue
            for side in ("base", "ours", "theirs"):
                p = os.path.join(root, name, side + ".yaml")
                if not os.path.isfile(p) or (max_bytes and os.path.getsize(p) > max_bytes):
                    continue
                try:
                    text = open(p, encoding="utf-8").read()
                except UnicodeDecodeError:
                    continue
                if text in seen:
                    continue
                seen.add(text)
                skeleton = None
                if templates and not plain_only:
                    if "{{" not in text:
                        continue
                    skeleton = Skeleton()
                    text = skeleton.mask(text)
                    if text is None:
                        continue
                docs = usable(text)
                if docs is None:
                    continue
                cls = "templates" if skeleton else "manifests" if any(identity(d) for d in docs) else "values"
                out.append(Input("%s/%s" % (name, side), text, skeleton, cls, docs))
    if perf and shared:
        rng = random.Random("perf:%s" % seed)
        pdir = os.path.join(shared, "perf")
        for name in sorted(os.listdir(pdir)):
            p = os.path.join(pdir, name, "base.yaml")
            if not os.path.isfile(p):
                continue
            text = open(p, encoding="utf-8").read()
            chunks = re.split(r"(?m)^(?=---(?:\s|$))", text)
            for k in range(3):
                if len(chunks) < 2:
                    break
                n = rng.randint(2, 5)
                a = rng.randrange(max(1, len(chunks) - n))
                cut = "".join(chunks[a:a + n])
                if len(cut) > 200000 or cut in seen:
                    continue
                docs = usable(cut)
                if docs is None:
                    continue
                seen.add(cut)
                out.append(Input("perf/%s#%d" % (name, a), cut, None, "manifests", docs))
    return out


# ---------------------------------------------------------------------------------------------
# Helm templates (--mode templates): the harness's own skeleton, sharing nothing with the tool's

class Skeleton:
    """A Helm/Go template read as YAML with every `{{ … }}` action replaced by a placeholder of
    the same width, so that line and column positions stay and equal actions read equal:

      - a line of nothing but actions (or a line of a multi-line action) is a comment line,
        `#Zc<id>~~~`, so it carries no data;
      - an action that is a key's or list item's whole value with a more-indented block below
        (`labels: {{- include "x" . | nindent 4 }}`) is a comment, `#Zv<id>~~`, so the block is
        the value;
      - any other action is a plain scalar's text, `Zi<id>~~~`.

    The same object masks the three inputs and the result, so a result's action that no input
    has is seen (`new`). Edits are made on the skeleton and put back into template text by
    `unmask`."""

    ACTION = re.compile(r"\{\{.*?\}\}")

    def __init__(self):
        self.token_of = {}
        self.text_of = {}
        self.texts = set()
        self.new = []
        # Whether block_keys reads an identity field's blocks into its value (see there), and
        # whether it has done so since the flag was last cleared.
        self.identity_guards = True
        self.guarded_identity = False

    def token(self, kind, text, frozen):
        if frozen and text not in self.texts:
            self.new.append(text)
        key = (kind, text)
        if key not in self.token_of:
            n = len(self.token_of)
            digits = ""
            for _ in range(3):
                n, d = divmod(n, 36)
                digits = "0123456789abcdefghijklmnopqrstuvwxyz"[d] + digits
            head = ("#Z" if kind in "cv" else "Z") + kind + digits
            if len(head) > len(text):
                return None
            tok = head + "~" * (len(text) - len(head))
            self.token_of[key] = tok
            self.text_of[head] = (tok, text)
        if not frozen:
            self.texts.add(text)
        return self.token_of[key]

    def mask(self, text, frozen=False):
        """The skeleton of `text`, or None where it is not one this harness reads."""
        if re.search(r"Z[icv][0-9a-z]{3}", text):
            return None
        lines = text.splitlines(keepends=True)
        out, values, open_action = [], [], False
        for line in lines:
            body = line.rstrip("\r\n")
            eol = line[len(body):]
            indent = body[:len(body) - len(body.lstrip())]
            content = body.strip()
            trail = body[len(indent) + len(content):]
            if open_action:
                end = body.find("}}")
                if end >= 0:
                    open_action = False
                    if body[end + 2:].strip():
                        return None
                tok = self.token("c", content, frozen) if content else ""
                if tok is None:
                    return None
                out.append(indent + tok + trail + eol)
                continue
            if "{{" not in body or content.startswith("#"):
                out.append(line)
                continue
            actions = list(self.ACTION.finditer(body))
            last = actions[-1].end() if actions else 0
            opened = body.find("{{", last)
            if opened >= 0:
                # An action left open: a control line only where nothing but actions comes
                # before it.
                if "".join(self.ACTION.split(body[:opened])).strip():
                    return None
                open_action = True
                tok = self.token("c", content, frozen)
                if tok is None:
                    return None
                out.append(indent + tok + trail + eol)
                continue
            if not "".join(self.ACTION.split(body)).strip():
                tok = self.token("c", content, frozen)
                if tok is None:
                    return None
                out.append(indent + tok + trail + eol)
                continue
            masked, at = "", 0
            for m in actions:
                tok = self.token("i", m.group(), frozen)
                if tok is None:
                    return None
                masked += body[at:m.start()] + tok
                at = m.end()
            masked += body[at:]
            before = body[:actions[-1].start()]
            if len(actions) == 1 and not body[actions[-1].end():].strip():
                item = re.fullmatch(r"(\s*)- ", before)
                key = re.fullmatch(r"(\s*(?:- +)*)[^\s#-].*:\s+", before)
                if item or key:
                    column = len(item.group(1)) if item else len(key.group(1))
                    values.append((len(out), column, actions[-1]))
            out.append(masked + eol)
        if open_action:
            return None
        for i, column, m in values:
            below = next((l for l in out[i + 1:] if l.strip() and not l.lstrip().startswith("#")), None)
            if below is not None and len(below) - len(below.lstrip()) > column:
                tok = self.token("v", m.group(), frozen)
                if tok is None:
                    return None
                out[i] = out[i][:m.start()] + tok + out[i][m.end():]
        masked = "".join(out)
        return masked if self.unmask(masked) == text else None

    BLOCK_ACTION = re.compile(r"\{\{-?\s*(if|with|range|define|block|else|end)\b")
    PLAIN_KEY = re.compile(r"^((?:\s*-\s+)*\s*)([A-Za-z_][A-Za-z0-9_.\-/]*)(:(?:\s|$))")
    IDENTITY_KEYS = {"apiVersion", "kind", "metadata", "name", "namespace"}
    # A plain one-line scalar value (no quote, flow collection, block scalar, anchor, alias,
    # tag or comment), which a block's name can follow as more of its text.
    PLAIN_VALUE = re.compile(r"[^\s\"'\[\]{}|>&*!#%@`,][^#\r\n]*\S?\s*$")

    CONTENT_ACTION = re.compile(r"^\{\{-?[^{}]*\|\s*n?indent\s+(\d+)\s*-?\}\}$")

    @staticmethod
    def beyond(outer, inner):
        """The blocks a key (or list item) stands in, named from those of the map or list
        holding it: a `^` for each of the holder's blocks it stands outside, then the blocks it
        stands in beyond the holder's. Named whole, a key would carry its holder's blocks too,
        so a side that moved a container item into a block would read as having changed the
        guard of every key inside it with a block of its own, and the other side deleting such
        a key (or moving it into a block of its own) as a conflict with a change that side
        never made (adversary templates-mark-1144-8734, -7642): the move is the item's guard's
        change alone, judged there."""
        shared = 0
        while shared < min(len(outer), len(inner)) and outer[shared] == inner[shared]:
            shared += 1
        return ".".join(["^"] * (len(outer) - shared) + [h[3:] for h in inner[shared:]])

    def block_keys(self, masked, content=False):
        """The skeleton with each plain mapping key (a list item's first key too, but not one of
        a resource's identity fields) that stands inside a template block opened in its document
        (`if`, `with`, `range`, each `else` branch its own) renamed after those blocks. A key a
        side moved into or out of such a block changes what the template renders, though as a
        skeleton, with control lines as comments, it reads as no change of data; so read, a
        conflict side holding that side's move is a side of a real conflict, and a result that
        drops the move loses a change. The blocks are counted from the first data line of the
        document, so a block around the whole document names no key, and a key after an `end`
        that closed such a block is named outside it. None where the blocks do
        not pair (an `end` with no block open, a block left open): no template reads so.

        With `content`, a line of one action that writes text at an indentation of its own
        (`{{ include "x.labels" . | indent 4 }}`, not a block's line) is read as a key of that
        indentation, named after the action: its output lands in whatever map stands above it
        there, so a key moved above or below it takes that output along or leaves it.

        A key inside the same blocks as the key whose map holds it is not renamed (`‹^›` marks
        one that stands outside a block its parent is in; a renamed key is named after the
        blocks beyond its parent's, see beyond): it renders exactly when its parent does, and a
        key of a flow map (`secret: {secretName: x}`), which has no line of its own, reads so
        too, whichever style a side wrote the map in."""
        out, stack, base = [], [], None
        # The keys open above the line: (column of the key, the blocks around it).
        parents = []
        # A bare `-` whose item's guard awaits the item's first key: (column, guard or None).
        item = None
        for line in masked.splitlines(keepends=True):
            stripped = line.strip()
            if stripped.startswith("---") or stripped == "...":
                base = None
                parents = []
                item = None
                out.append(line)
                continue
            heads = re.findall(r"#Zc[0-9a-z]{3}", line)
            if content and len(heads) == 1 and stripped.startswith("#Zc"):
                text = self.text_of.get(heads[0], (None, ""))[1]
                wrote = self.CONTENT_ACTION.match(text)
                if wrote and not self.BLOCK_ACTION.search(text):
                    eol = line[len(line.rstrip("\r\n")):]
                    out.append(" " * int(wrote.group(1)) + "\u2039" + heads[0][3:] + "\u203a: null" + eol)
                    continue
            if heads and stripped.startswith("#Zc"):
                for head in heads:
                    text = self.text_of.get(head, (None, ""))[1]
                    for m in self.BLOCK_ACTION.finditer(text):
                        word = m.group(1)
                        if word in ("end", "else") and not stack:
                            return None
                        if word == "end":
                            stack.pop()
                        elif word == "else":
                            stack[-1] = head
                        else:
                            stack.append(head)
                        if base is not None and word in ("end", "else"):
                            # The lowest level reached since the document's first data
                            # line (an `else` closes its branch's level too): see `low`.
                            low = min(low, len(stack) - (word == "else"))
                out.append(line)
                continue
            if not stripped or stripped.startswith("#"):
                out.append(line)
                continue
            if base is None:
                base = low = len(stack)
            # A key after an `end` that closed a block open at the document's first line
            # stands outside it (`^` for each level closed). A block opened after such an
            # `end` is a block of the document, not that closed block back: counted from
            # the lowest level the document's lines have reached, a key in it is named
            # after it beside the `^` (adversary templates-mark-1261-1098: ours' deleted
            # `range` let its `end` close the document's `if`, and a key later put in a
            # `with` read as in no block at all).
            inner = ["#Zc^"] * (base - low) + stack[low:]
            eol = line[len(line.rstrip("\r\n")):]
            if item is not None:
                # The first key below a bare `-`: the item's guard goes above it.
                if item[1] is not None and self.PLAIN_KEY.match(line) and not line.lstrip().startswith("-"):
                    out.append(line[:len(line) - len(line.lstrip())] + item[1] + ": null" + eol)
                item = None
            # A list item of one `-` holding a map is a parent of its own: the blocks it
            # stands in, where they are not those of the key above the list, are the item's
            # guard (`‹item›‹…›`, a key put above its first key, see guards_as_fields), and
            # each of its keys is named after the blocks it stands in beyond the item's. So a
            # side that moves the item into or out of a block changes the item's guard, and
            # a key the other side added to the item stands where the item stands, as in the
            # template (adversary templates-{ours,theirs}-1145-3398: ours' swap put an item
            # after an `end`, theirs added a key to it). Which key is first does not name the
            # item, so both sides deleting one of an item's first two keys, leaving the third
            # first below a bare `-`, changes no guard (templates-{mark,ours}-1138-686).
            dash = re.match(r"(\s*)-(\s+|$)", line)
            if dash and not re.match(r"\s*-\s+-(\s|$)", line) and (
                    not line[dash.end():].strip() or self.PLAIN_KEY.match(line[dash.end():])):
                while parents and parents[-1][0] >= len(dash.group(1)):
                    parents.pop()
                outer = parents[-1][1] if parents else []
                guard = None
                if inner != outer:
                    guard = ITEM_KEY[1] + "\u2039" + self.beyond(outer, inner) + "\u203a"
                parents.append((len(dash.group(1)), inner))
                if not line[dash.end():].strip():
                    item = (len(dash.group(1)), guard)
                elif guard is not None:
                    pad = " " * (len(dash.group(1)) + 1) + dash.group(2)
                    out.append(dash.group(1) + "-" + dash.group(2) + guard + ": null" + eol)
                    line = pad + line[dash.end():]
            m = self.PLAIN_KEY.match(line)
            column = len(re.match(r"(?:\s*-(?=\s))*\s*", line).group())
            while parents and parents[-1][0] >= column:
                parents.pop()
            outer = parents[-1][1] if parents else []
            if m and inner != outer and m.group(2) not in self.IDENTITY_KEYS:
                tag = "\u2039" + self.beyond(outer, inner) + "\u203a"
                line = line[:m.end(2)] + tag + line[m.end(2):]
            elif (m and inner != outer and self.identity_guards
                  and self.PLAIN_VALUE.match(line[m.end():])):
                # An identity field (`namespace`) keeps its key, which names the resource,
                # but a side that moved it into or out of a block changed what the template
                # renders for it all the same, as for any key: read as a change of its value
                # (the blocks after it), so an edit of the value by the other side conflicts
                # with that move, and a conflict side may keep its own version of the field
                # (adversary templates-mark-1181-46: theirs moved `namespace` into the
                # annotations' `with`, ours edited it; theirs' half kept theirs' line). judge
                # also reads the field without its blocks, where a side holding the move and
                # the edit both is right as well.
                value = line[m.end():].rstrip("\r\n")
                eol = line[len(value) + m.end():]
                tag = "\u2039" + self.beyond(outer, inner) + "\u203a"
                line = line[:m.end()] + value.rstrip() + " " + tag + eol
                self.guarded_identity = True
            if re.match(r"\s*(?:-\s+)*[^\s#\-\[{\"'][^:]*:(?:\s|$)", line):
                parents.append((column, inner))
            out.append(line)
        return None if stack else "".join(out)

    def unmask(self, masked):
        """The template text of a skeleton, or None where an edit cut or grew a placeholder."""
        out, at = [], 0
        for m in re.finditer(r"Z[icv][0-9a-z]{3}", masked):
            core = m.group()
            head, start = (core, m.start()) if core[1] == "i" else ("#" + core, m.start() - 1)
            if head not in self.text_of or start < at:
                return None
            tok, text = self.text_of[head]
            end = start + len(tok)
            if masked[start:end] != tok or masked[end:end + 1] == "~":
                return None
            out.append(masked[at:start] + text)
            at = end
        out.append(masked[at:])
        return "".join(out)



# ---------------------------------------------------------------------------------------------
# One merge

G = {}


def init_worker(pools, table, cmd, git, out_dir, save_all, skip=(), strict=False):
    STRICT_LISTS[0] = strict
    G.update(pools=pools, table=table, oracles={p: Oracle(table, p) for p in ("mark", "theirs", "ours")}, cmd=cmd,
             git=git, out=out_dir, save_all=save_all, skip=set(skip))


def run_cmd(cmd, policy, git, base, ours, theirs):
    """Runs the merge command on three texts, or on three folders given as {path: text}:
    (exit class, result text or {path: text} or None, stderr)."""
    with tempfile.TemporaryDirectory(prefix="adv") as d:
        paths = {}
        for k, s in (("base", base), ("ours", ours), ("theirs", theirs)):
            if isinstance(s, dict):
                paths[k] = os.path.join(d, k)
                write_tree(paths[k], s)
            else:
                paths[k] = os.path.join(d, k + ".yaml")
                with open(paths[k], "w", encoding="utf-8", newline="") as f:
                    f.write(s)
        paths["out"] = os.path.join(d, "out" if isinstance(base, dict) else "out.yaml")
        line = cmd.format(policy=policy, **{k: shlex.quote(v) for k, v in paths.items()})
        try:
            r = subprocess.run(line, shell=True, capture_output=True, timeout=120)
            rc = r.returncode
            err = r.stderr.decode("utf-8", errors="replace")
        except subprocess.TimeoutExpired:
            rc, err = -1, "timeout"
        res = None
        if isinstance(base, dict):
            if os.path.isdir(paths["out"]):
                res = read_tree(paths["out"])
            elif rc == 0:
                res = {}     # an empty package: no folder made for it
        elif os.path.exists(paths["out"]):
            with open(paths["out"], "rb") as f:
                res = f.read().decode("utf-8", errors="replace")
    if rc == 0:
        status = "clean"
    elif rc == 1 or (git and 1 <= rc < 128):
        status = "conflict"
    else:
        status = "error"
    return status, res, err


def write_tree(root, files):
    for rel, text in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(text)
    os.makedirs(root, exist_ok=True)


def read_tree(root):
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read().decode("utf-8", errors="replace")
    return out


def process_findings(policy, status, res, err):
    """Findings that need no oracle: a crash (exit status 2 or more, a signal, a timeout, no
    output), a stderr line asking for a bug report, a conflict under --on-conflict theirs or
    ours outside git's line merge (those policies decide every conflict)."""
    out = []
    for line in err.splitlines():
        if "a bug in kmerge" in line:
            out.append(Violation("bug-report", "<stderr>", line.strip()[:400], cat="crash"))
            break
    if status == "error":
        tail = err.strip().splitlines()[-1] if err.strip() else "?"
        out.append(Violation("exit-status", "<process>", tail[:300], cat="crash"))
    elif res is None:
        out.append(Violation("no-output", "<process>", "exit %s and no result" % status, cat="crash"))
    if status == "conflict" and policy != "mark" and "line merge used:" not in err:
        out.append(Violation("conflict-outside-fallback", "<file>", "exit 1 under --on-conflict %s, and stderr names no line "
                             "merge" % policy, cat="policy-conflict"))
    return out


def two_readings(check, texts, docs, r_text, r_docs, tie=False):
    """Violations of `check` on expanded documents, unless the reference reading of aliases
    (load_refs) finds none: a file with anchors is right if either reading says so. With
    `tie` (a conflict's side), also the reference reading with anchored places tied to their
    aliases (`tied`)."""
    viol = check(*docs, r_docs)
    if viol and has_anchors(r_text, *texts):
        for t in (False, True) if tie else (False,):
            try:
                refs = [load_refs(x, t) for x in list(texts) + [r_text]]
            except (yaml.YAMLError, RecursionError, ValueError, TypeError):
                return viol
            if t:
                refs = tie_holders(refs)
            if not check(*refs) or not check(*renamed_places(refs)):
                return []
    return viol


def judge(oracle, policy, texts, inputs, status, res, err="", skeleton=None):
    """Everything wrong with one file merge: process findings; a clean result's violations of
    the policy's oracle; each side of a conflicted result that does not load, or loses data
    (the side check). `texts` and `inputs`: the base, ours and theirs texts (skeletons for a
    template) and their documents. With a `skeleton` (a template), the result and each side of
    a conflict are read as skeletons.

    A template's identity field a side moved into or out of a block is read two ways, and the
    merge is right if either reading finds nothing: the move is a change of the field, which
    an edit of it by the other side conflicts with (a conflict side keeps its own field, see
    Skeleton.block_keys), or the field's blocks are no part of it, where a side must hold the
    other side's edit beside the move (a conflict asking only where the lines go). Where both
    find something, the second reading's findings are reported."""
    if skeleton is None:
        return judge_read(oracle, policy, texts, inputs, status, res, err, None)
    skeleton.identity_guards, skeleton.guarded_identity = True, False
    out = judge_read(oracle, policy, texts, inputs, status, res, err, skeleton)
    if out and skeleton.guarded_identity:
        skeleton.identity_guards = False
        try:
            out = judge_read(oracle, policy, texts, inputs, status, res, err, skeleton)
        finally:
            skeleton.identity_guards = True
        if not out:
            return []
    return out


def judge_read(oracle, policy, texts, inputs, status, res, err="", skeleton=None):
    """judge with the skeleton's reading of identity fields as it is set."""
    out = process_findings(policy, status, res, err)
    if status == "error" or res is None:
        return out
    fallback = "line merge used:" in err
    # Keys read with the template blocks they stand in (Skeleton.block_keys), where every
    # version's blocks pair; a result's side whose blocks do not pair then is no template.
    # The lines of an action that writes text are read as keys (`content`) where every
    # version so read loads.
    blocks, content = False, False
    if skeleton is not None:
        for content in (True, False):
            tagged = [skeleton.block_keys(t, content) for t in texts]
            if None in tagged:
                continue
            try:
                texts, inputs, blocks = tagged, [load_guarded(t) for t in tagged], True
                break
            except (yaml.YAMLError, RecursionError, ValueError, TypeError):
                pass
        content = content and blocks

    def masked(text, where):
        if skeleton is None or text is None:
            return text, None
        skeleton.new = []
        m = skeleton.mask(text, frozen=True)
        if m is None:
            return None, Violation("not-a-skeleton", where, "the template does not read as a skeleton")
        if skeleton.new:
            return None, Violation("new-action", where, "an action no input has: %s" % show(skeleton.new[0]))
        if not blocks:
            return m, None
        tagged = skeleton.block_keys(m, content)
        if tagged is None:
            return None, Violation("blocks-broken", where, "its template blocks do not pair (an end lost or added)")
        return tagged, None
    if status == "clean":
        text, bad = masked(res, "<file>")
        if bad:
            bad.cat = "wrong-clean"
            return out + [bad]
        try:
            r_docs = load_guarded(text)
        except DuplicateKeyError as e:
            return out + [Violation("duplicate-key", "<file>", str(e).replace("\n", " "), cat="wrong-clean")]
        except (yaml.YAMLError, RecursionError, ValueError, TypeError) as e:
            return out + [Violation("result-unloadable", "<file>", str(e).replace("\n", " ")[:300], cat="wrong-clean")]
        for v in two_readings(oracle.check_mark if fallback else oracle.check, texts, inputs, text, r_docs):
            v.cat, v.fallback = "wrong-clean", fallback
            out.append(v)
        return out
    # A template's line of actions that write no text (`{{- end }}`, `{{- if .x }}`, a
    # `{{- /* … */ -}}` comment, `{{- $x := … }}`): left outside a conflict that holds all
    # else (every version ends with the same `end`, starts with the same comment), it is no
    # data, and the conflict is the whole file still. A line of an action that writes text
    # (`{{ toYaml .x | indent 4 }}`) stays data, as block_keys' content reads it.
    spread = res
    if skeleton is not None:
        spread = silent_lines(res)
    loaded = {}
    for side in ("ours", "theirs"):
        text, bad = masked(take_side(res, side), side)
        if bad:
            bad.cat = "side-unloadable"
            out.append(bad)
            continue
        try:
            loaded[side] = text, load_guarded(text)
        except DuplicateKeyError as e:
            bad = Violation("conflict-side-duplicate-key", side, str(e).replace("\n", " ")[:300], cat="side-unloadable")
        except (yaml.YAMLError, RecursionError, ValueError, TypeError) as e:
            bad = Violation("conflict-side-unloadable", side, str(e).replace("\n", " ")[:300], cat="side-unloadable")
        if bad:
            bad.fallback = fallback
            out.append(bad)
    # Conflicts whose two halves give back ours' and theirs' own files are the whole file in
    # conflict with the lines the two agree on left outside: a person taking a side gets
    # exactly the file spans_the_file's conflict gives, and every difference of ours and
    # theirs stands inside the markers. Read by where the markers sit, the same two files
    # were fine marked around everything and a lost change marked around less (adversary
    # templates-mark-1149-7906 and -8970: a template's conflict that leaves out the common
    # lines above it, which write text, so silent_lines does not lift them).
    whole_sides = all(s in loaded and loaded[s][1] == inputs[i] for i, s in ((1, "ours"), (2, "theirs")))
    for side, (text, docs) in loaded.items():
        if (spans_the_file(spread) or whole_sides) and docs == inputs[1 if side == "ours" else 2]:
            continue
        check = lambda *a, side=side: oracle.check_side(side, *a)
        for v in two_readings(check, texts, inputs, text, docs, tie=True):
            v.cat, v.side, v.fallback = "side-loses-data", side, fallback
            out.append(v)
    return out


def pick_input(rng, pool):
    """An input whose text the edit index reads (a few do not: aliases in odd places)."""
    for _ in range(30):
        inp = pool[rng.randrange(len(pool))]
        try:
            return inp, Index(inp.text)
        except (yaml.YAMLError, RecursionError, ValueError, TypeError, IndexError):
            continue
    raise RuntimeError("adversary: no input of the pool can be indexed")


def make_case(i, seed, mode, pool):
    rng = random.Random("%s:%s:%d" % (seed, mode, i))
    CASE.clear()
    inp, bix = pick_input(rng, pool)
    ours, o_docs, eo = edit_side(bix, rng, rng.randint(1, 4))
    anchors = [(k, l, t) for (k, l, w, t) in eo] if rng.random() < 0.8 else None
    theirs, t_docs, et = edit_side(bix, rng, rng.randint(1, 4), anchors)
    return inp.name, inp.skeleton, (inp.text, bix.data), (ours, o_docs), (theirs, t_docs), eo, et


def describe(edits):
    return ["%s at line %d (%s)" % (k, l + 1, w) for (k, l, w, t) in edits]


def case_name(mode, policy, seed, i):
    return "%s-%s-%s-%d" % (mode, policy, seed, i)


def save_case(d, files, why):
    """A case folder: {base,ours,theirs,result}.yaml for a file, base/ ours/ theirs/ result/
    folders for a package, and why.txt."""
    os.makedirs(d, exist_ok=True)
    for k, s in files.items():
        if s is None:
            continue
        if isinstance(s, dict):
            write_tree(os.path.join(d, k), s)
        else:
            with open(os.path.join(d, k + ".yaml"), "w", encoding="utf-8", newline="") as f:
                f.write(s)
    with open(os.path.join(d, "why.txt"), "w") as f:
        f.write(why)


def why_text(i, seed, mode, policy, name, status, viol, eo, et, err):
    out = "merge %d (seed %s, mode %s, policy %s) of %s: %s\n" % (i, seed, mode, policy, name, status)
    for v in viol:
        out += "%s: %s\n" % (v.cat, v)
    out += "ours edits:\n" + "".join("  %s\n" % x for x in eo)
    out += "theirs edits:\n" + "".join("  %s\n" % x for x in et)
    if err.strip():
        out += "stderr:\n" + err[-3000:]
    return out


def run_one(job):
    policy, mode, i, seed = job
    oracle = G["oracles"][policy]
    if mode == "packages":
        return run_package(job)
    name, skeleton, (base, b_docs), (ours, o_docs), (theirs, t_docs), eo, et = make_case(i, seed, mode, G["pools"][mode])
    texts = (base, ours, theirs)
    if skeleton is not None:
        # The edits were made on the skeleton: the tool merges the templates, each of which
        # must read back as the skeleton edited (a line an edit put inside a multi-line action
        # would change the action, not add a line).
        def template(masked):
            text = skeleton.unmask(masked)
            skeleton.new = []
            return text if text is not None and skeleton.mask(text, frozen=True) == masked else None
        base, ours, theirs = (template(x) for x in (base, ours, theirs))
    kinds_o, kinds_t = [k for (k, l, w, t) in eo], [k for (k, l, w, t) in et]
    if base is None or ours is None or theirs is None:
        # An edit cut a placeholder (a comment or block line rewritten): no template to merge.
        return dict(i=i, mode=mode, policy=policy, name=name, status="skipped", viol=[], eo=kinds_o, et=kinds_t, err="")
    status, res, err = run_cmd(G["cmd"], policy, G["git"], base, ours, theirs)
    try:
        viol = judge(oracle, policy, texts, (b_docs, o_docs, t_docs), status, res, err, skeleton)
    except RecursionError:
        viol = []
        status = "skipped"
    if G["out"] and (viol or G["save_all"]):
        save_case(os.path.join(G["out"], case_name(mode, policy, seed, i)),
                  {"base": base, "ours": ours, "theirs": theirs, "result": res},
                  why_text(i, seed, mode, policy, name, status, viol, describe(eo), describe(et), err))
    return dict(i=i, mode=mode, policy=policy, name=name, status=status,
                viol=[(v.cat, v.rule, v.path, v.detail) for v in viol], eo=kinds_o, et=kinds_t,
                err=err[-300:] if status == "error" else "")


# ---------------------------------------------------------------------------------------------
# Packages (--mode packages): random updates of folders of real files

PKG_DIRS = ["", "", "base/", "config/", "apps/web/"]


def package_path(rng, name, taken):
    """A file name for an input (the last part of its real path) in some folder, not taken."""
    base = name.split("/")[0].split("__")[-1]
    if not re.search(r"\.ya?ml$", base):
        base += ".yaml"
    path = rng.choice(PKG_DIRS) + base
    stem, ext = os.path.splitext(path)
    n = 2
    while path in taken:
        path = "%s-%d%s" % (stem, n, ext)
        n += 1
    return path


def moved_path(rng, path, taken):
    d, f = os.path.split(path)
    stem, ext = os.path.splitext(f)
    if rng.random() < 0.5:
        new = os.path.join(rng.choice(["moved", "upstream", "apps/api"] + ([""] if d else [])), f)
    else:
        new = os.path.join(d, stem + rng.choice(["-v2", "-main", "-renamed"]) + ext)
    return new if new not in taken and new != path else None


def fresh_input(rng, pool, idents):
    """An input none of whose resources the package holds yet (two files of one resource are
    a kustomize overlay's business, not this harness's)."""
    for _ in range(40):
        inp = pool[rng.randrange(len(pool))]
        ids = {identity(d) for d in inp.docs} - {None}
        if not ids & idents:
            return inp, ids
    return None, set()


def edit_package(files, rng, pool, idents, anchors):
    """1-4 edits of a package: a file edited (1-3 edits of a merge's side), added, deleted, or
    moved (and then edited or not); near the other side's files when `anchors` are given."""
    files = dict(files)
    edits, kinds, touched = [], [], []
    for _ in range(rng.randint(1, 4)):
        paths = sorted(files)
        near = [p for p in (anchors or []) if p in files]
        pick = lambda: rng.choice(near) if near and rng.random() < 0.7 else rng.choice(paths)
        r = rng.random()
        if r < 0.6 and paths:
            p = pick()
            try:
                ix = Index(files[p])
            except (yaml.YAMLError, RecursionError, ValueError, TypeError, IndexError):
                continue
            text, _, applied = edit_side(ix, rng, rng.randint(1, 3))
            if text != files[p]:
                files[p] = text
                edits.append("edit %s: %s" % (p, "; ".join(describe(applied))))
                kinds.extend(k for (k, l, w, t) in applied)
                touched.append(p)
        elif r < 0.72:
            inp, ids = fresh_input(rng, pool, idents)
            if inp is None:
                continue
            idents |= ids
            p = package_path(rng, inp.name, files)
            files[p] = inp.text
            edits.append("add-file %s (%s)" % (p, inp.name))
            kinds.append("add-file")
        elif r < 0.82 and len(paths) > 1:
            p = pick()
            del files[p]
            edits.append("del-file %s" % p)
            kinds.append("del-file")
            touched.append(p)
        elif paths:
            p = pick()
            new = moved_path(rng, p, files)
            if new is None:
                continue
            files[new] = files.pop(p)
            note = ""
            if rng.random() < 0.5:
                try:
                    text, _, applied = edit_side(Index(files[new]), rng, rng.randint(1, 2))
                    files[new] = text
                    note = ", then %s" % "; ".join(describe(applied))
                    kinds.extend(k for (k, l, w, t) in applied)
                except (yaml.YAMLError, RecursionError, ValueError, TypeError, IndexError):
                    pass
            edits.append("move-file %s -> %s%s" % (p, new, note))
            kinds.append("move-file")
            touched.append(p)
    return files, edits, kinds, touched


def make_package(i, seed, pool):
    rng = random.Random("%s:packages:%d" % (seed, i))
    CASE.clear()
    files, idents, names = {}, set(), []
    want = rng.randint(2, 5)
    for _ in range(want):
        inp, ids = fresh_input(rng, pool, idents)
        if inp is None:
            break
        idents |= ids
        files[package_path(rng, inp.name, files)] = inp.text
        names.append(inp.name)
    ours, eo, ko, touched = edit_package(files, rng, pool, idents, None)
    theirs, et, kt, _ = edit_package(files, rng, pool, idents, touched if rng.random() < 0.8 else None)
    return ", ".join(names), files, ours, theirs, eo, et, ko, kt


def load_tree(files, where):
    """{path: documents} of a folder's YAML files, or a Violation for the first that does not load."""
    out = {}
    for p, text in sorted(files.items()):
        try:
            out[p] = load_docs(text)
        except DuplicateKeyError as e:
            return None, Violation("duplicate-key", "%s %s" % (where, p), str(e).replace("\n", " ")[:300])
        except (yaml.YAMLError, RecursionError, ValueError, TypeError) as e:
            return None, Violation("result-unloadable", "%s %s" % (where, p), str(e).replace("\n", " ")[:300])
    return out, None


def file_moves(b, s):
    """{base path: side's path} for files a side moved: a base file the side lacks and a new
    file of the side, each the other's clearly most alike, at least half their leaves alike.
    A pair found clear takes its two files out of the running, and the rest are compared again
    among themselves: a file already accounted for is no rival (packages-theirs-1172-1495: two
    near-copies of one workflow in base, theirs moved both; the second's clear move to its
    copy leaves the first one new file alike, but read once, the second's copy, more like the
    first than its own edited move, made that move unclear, and the first read as deleted and
    its moved copy as a new file that ours' edit of it was not to reach)."""
    # A file the side holds at base's path under half like base's (the measure moves are read
    # with) is no version of base's file: it may have moved base's file and put a new one in
    # its place (packages-theirs-1292-1271). Package gives such a file a group of its own.
    gone = [p for p in b if p not in s or similarity(b[p], s[p]) < 0.5]
    new = [p for p in s if p not in b]
    pairs = [(similarity(b[g], s[n]), g, n) for g in gone for n in new]
    pairs = [p for p in pairs if p[0] >= 0.5]
    out = {}
    while True:
        found = {}
        for p in pairs:
            rivals = [q[0] for q in pairs if q is not p and (q[1] == p[1] or q[2] == p[2])]
            if all(p[0] - x >= 0.1 for x in rivals):
                found[p[1]] = p[2]
        if not found:
            return out
        out.update(found)
        pairs = [p for p in pairs if p[1] not in found and p[2] not in found.values()]


def either_moves(first, second):
    """The moves `first` holds, completed by those of `second` whose base file and new file
    `first` leaves unpaired."""
    out = dict(first)
    for g, n in second.items():
        if g not in out and n not in out.values():
            out[g] = n
    return out


def same_destination(b, o, t, mo, mt):
    """The moves `file_moves` found, completed where both sides moved a base file to one new
    path: where one side's move of base file p to n is clear and the other side lacks p and
    holds n, new to it and no move of its own, that file is the other side's p too, however much
    that side rewrote it. A file both sides keep at its path is paired by its path whatever its
    content; a destination both sides chose is as good a path (packages-mark-1149-9943: ours
    moved config.yaml to where theirs moved it and deleted its fields but kept its header, read
    by content alone ours' file was a new one and the document one ours deleted)."""
    mo, mt = dict(mo), dict(mt)
    for one, other, s in ((mt, mo, o), (mo, mt, t)):
        for p, n in list(one.items()):
            if p in other or n not in s or n in b or n in other.values():
                continue
            # The other side may hold a file at p still, but one not base's by the measure moves
            # are read with (under half its leaves alike) while its file at n is base's (at
            # least half alike): it moved base's file to n too and put a new file at p. Read by
            # path, that new file stood for base's document, and the result's merge of the two
            # moved copies at n for the same document held twice (packages-theirs-1292-1271:
            # both moved values.yaml to one path, theirs added a different values.yaml in its
            # place). Package gives that new file a group of its own.
            replaced = p in s and similarity(b[p], s[p]) < 0.5 <= similarity(b[p], s[n])
            if p not in s or replaced:
                other[p] = n
    return mo, mt


class Package:
    """A package read as one set of documents: resources by identity wherever they are, other
    documents by their file (paired by path, a file one side moved by its content) and
    position; and where each resource's file is."""

    def __init__(self, b, o, t, moves=None):
        # `moves`: the files each side moved, as read on the expanded documents, for a second
        # reading of aliases whose opaque values would make the files look less alike.
        mo, mt = moves if moves is not None else (file_moves(b, o), file_moves(b, t))
        mo, mt = same_destination(b, o, t, mo, mt)
        self.groups = []     # (name, base path, ours path, theirs path)
        self.refilled = set()  # base paths a side moved base's file away from and put a new file at
        for p in b:
            self.groups.append((p, p, mo.get(p, p if p in o else None), mt.get(p, p if p in t else None)))
        used_o, used_t = set(mo.values()), set(mt.values())
        for p in sorted(set(o) | set(t)):
            po = p if p in o and p not in used_o else None
            pt = p if p in t and p not in used_t else None
            if p in b:
                # A file a side holds at a base path it moved base's file away from
                # (same_destination) is a new file, named apart from base's.
                po, pt = po if p in mo else None, pt if p in mt else None
                name = p + " (new)"
            else:
                name = p
            if po or pt:
                self.groups.append((name, None, po, pt))
                if p in b:
                    self.refilled.add(p)

    def group_of(self, side, path):
        col = {"base": 1, "ours": 2, "theirs": 3}.get(side)
        if col:
            for g in self.groups:
                if g[col] == path:
                    return g[0]
            return path
        if path in self.refilled:
            # The result's file there is the new one: base's document went with the move (the
            # other side, which kept base's path, reads it there too, and would claim the file).
            return path + " (new)"
        for col in (2, 3, 1):
            for g in self.groups:
                if g[col] == path:
                    return g[0]
        return path

    def keyed(self, side, files):
        out, dup, where = collections.OrderedDict(), set(), {}
        for path in sorted(files):
            gname = self.group_of(side, path)
            pos = 0
            for d in files[path]:
                ident = identity(d)
                if ident is None:
                    k = ("#position", gname, pos)
                    pos += 1
                    if k in out:
                        # Two files of one group (both sides moved a file, to two places).
                        dup.add(k)
                        k = k + ("#file", path)
                else:
                    k = ident
                    if k in out:
                        dup.add(ident)
                        k = ident + ("#file", path)
                out[k] = d
                where[k] = path
        return out, dup, where


class PolicyDecided(Rules):
    """One side of a conflicted package under --on-conflict ours or theirs: the documents of
    files holding a conflict are judged by the side's rules; every other document is the
    policy's clean result, the same in both resolutions (taking a side of a line-merge conflict
    in one file cannot undo what the policy decided in another: packages-ours-1145-499, ours
    deleted values.yaml, theirs edited it, ours' deletion stands on theirs' side too), so it is
    judged as the policy's own side is."""

    def __init__(self, side_rules, policy_rules, conflicted):
        Rules.__init__(self, side_rules.table, side_rules.win, side_rules.whole)
        self.policy_rules, self.conflicted = policy_rules, conflicted

    def doc(self, g, path, b, o, t, r, out):
        if g in self.conflicted:
            return Rules.doc(self, g, path, b, o, t, r, out)
        return self.policy_rules.doc(g, path, b, o, t, r, out)

    def result_key(self, kind, g, ko, kt, rm):
        # The name of a document both sides renamed apart is a field both changed: outside the
        # conflicts the policy decided it, as it decided the document's other fields (doc
        # above), so the result holds the winner's name in both resolutions. Read by the side's
        # rules, theirs' side under ours looked for theirs' name, and took ours' renamed
        # document for one no side accounts for (packages-ours-1152-503).
        if kind is DOCS and g not in self.conflicted:
            return self.policy_rules.result_key(kind, g, ko, kt, rm)
        return Rules.result_key(self, kind, g, ko, kt, rm)


def match_repeats(kr, wr, sides, last=False):
    """The result's documents re-keyed where an identity repeats: Package.keyed names a repeat
    by its order in the file, so a result holding one of a side's two like-named documents
    (the other one a conflict side dropped) read as the first of them, whichever it is. A
    result document equal to a side's document of its identity takes that document's key; the
    rest take the keys left, in order (packages-mark-1149-87: ours renamed a resource into a
    file theirs deleted and added a second under the new name; theirs' side of the right
    merge holds only the second). `last`: a result document equal to more than one such
    document takes the last of their keys instead of the first: equal copies are one answer
    whichever of them a reading pairs with base's renamed document, so package_check accepts
    either assignment (packages-mark-1291-7787: ours deleted a file, theirs renamed its
    Ingress and repeated it equal; ours' side holding one copy, the addition, read as the
    rename ours deleted, and the addition as lost)."""
    ident = lambda k: k[:4]
    cands, mine = collections.defaultdict(list), collections.defaultdict(list)
    for side in sides:
        for k in side:
            if k[0] != "#position" and k not in cands[ident(k)]:
                cands[ident(k)].append(k)
    for k in kr:
        if k[0] != "#position":
            mine[ident(k)].append(k)
    new = {}
    for i, ks in mine.items():
        if len(ks) < 2 and len(cands[i]) < 2:
            continue
        used, left = set(), []
        for k in ks:
            order = reversed(cands[i]) if last else cands[i]
            c = next((c for c in order if c not in used and any(side.get(c) == kr[k] for side in sides)), None)
            if c is None:
                left.append(k)
            else:
                new[k] = c
                used.add(c)
        spare = iter([c for c in ks + cands[i] if c not in used])
        for k in left:
            new[k] = next(spare)
    out, where = collections.OrderedDict(), {}
    for k, d in kr.items():
        out[new.get(k, k)] = d
        where[new.get(k, k)] = wr[k]
    return out, where


def package_check(rules, b, o, t, r, clean=True, moves=None, decided=None):
    """Violations of a package result (package_check_with), the result's repeated documents
    keyed first to first, then, where that finds any, last to last (match_repeats)."""
    found = package_check_with(rules, b, o, t, r, clean, moves, decided, False)
    if found and package_check_with(rules, b, o, t, r, clean, moves, decided, True) == []:
        return []
    return found


def package_check_with(rules, b, o, t, r, clean, moves, decided, last):
    """Violations of a package result `r` (or one side of its conflicts, clean=False): the
    documents judged as one keyed set by `rules`, each resource in a file one of the sides put
    it in, and (clean results) no file left without a document. `decided`: (the policy side's
    rules, the result files holding a conflict), for the other side's check under a policy
    (PolicyDecided)."""
    pk = Package(b, o, t, moves)
    (kb, db, wb), (ko, do, wo), (kt, dt, wt), (kr, dr, wr) = (pk.keyed(s, f) for s, f in (
        ("base", b), ("ours", o), ("theirs", t), ("result", r)))
    kr, wr = match_repeats(kr, wr, (ko, kt, kb), last)
    if decided:
        # A document is in a conflict where any version of it, or of a document a side may
        # have renamed it to, lies in a file that holds one.
        marked = {pk.group_of("result", p) for p in decided[1]}
        conflicted = {k for side, w in (("base", wb), ("ours", wo), ("theirs", wt), ("result", wr))
                      for k, p in w.items() if pk.group_of(side, p) in marked}
        for reading in rules.readings(DOCS, kb, ko, kt):
            for x in ("o", "t"):
                conflicted |= {g for g, n in reading[x].items() if n in conflicted}
        rules = PolicyDecided(rules, decided[0], conflicted)
    out = []
    for ident in dr - (db | do | dt):
        out.append(Violation("duplicate-identity", label(ident), "the package holds this document twice (in two files)"))
    rules.keyed_any(DOCS, [], kb, ko, kt, kr, out)
    groups = {g[0]: g for g in pk.groups}
    # A resource one side renamed is still the base resource to the other side, which may have
    # moved it to another file (the README's layout: a resource one side moved goes to that
    # side's file, with the other's edits): under any plausible reading of the renames (the
    # oracle's own, as for the documents above), the renamed resource may stand where the
    # other side holds its base identity too.
    renamed_from = collections.defaultdict(set)
    for reading in rules.readings(DOCS, kb, ko, kt):
        for x, other in (("o", "theirs"), ("t", "ours")):
            for g, n in reading[x].items():
                renamed_from[n].add((other, g))

    def places(side, w, k):
        if k not in w:
            return set()
        g = groups.get(pk.group_of(side, w[k]))
        return {w[k]} | ({g[2], g[3]} if g else set())
    for k, path in wr.items():
        if k[0] == "#position" or k[3] in ("", None):
            # A resource without a name may be one a side renamed: where it goes is not judged.
            continue
        # Where ours or theirs has the resource, and where its file went on either side.
        allowed = set()
        for side, w in (("ours", wo), ("theirs", wt)):
            allowed |= places(side, w, k)
        for side, g in renamed_from.get(k, ()):
            allowed |= places(side, wo if side == "ours" else wt, g)
        allowed.discard(None)
        if allowed and path not in allowed:
            out.append(Violation("package-layout", label(k), "in %s; ours has it in %s, theirs in %s"
                                 % (path, wo.get(k, "-"), wt.get(k, "-"))))
    for path, docs in r.items():
        if clean and not docs and not (path in o and not o[path]) and not (path in t and not t[path]):
            out.append(Violation("package-layout", path, "a file left with no document"))
    return out


def judge_package(oracle, policy, b, o, t, status, res, err):
    out = process_findings(policy, status, res, err)
    if status == "error" or res is None:
        return out
    (bd, _), (od, _), (td, _) = load_tree(b, "base"), load_tree(o, "ours"), load_tree(t, "theirs")
    fallback = "line merge used:" in err

    def verdict(rules, r_files, rd, clean, files=(b, o, t), docs=(bd, od, td), decided=None, whole=()):
        moves = None
        if whole:
            # Files read as no version changed them (`whole` below) are read so for their own
            # documents only: what the sides did to the other files is read on the versions as
            # they are. Put into every version, a file a side deleted made that side's other
            # move look certain (packages-mark-1144-8063: two like base files, ours deleted both
            # and added one like them, no move; with the one theirs kept put back into ours, the
            # new file read as ours' move of the other, which theirs moved into a file of its
            # conflict, and its document came out as ours' edit against theirs' deletion). A
            # move into or out of such a file is its own reading's business, so it is left out.
            moves = tuple({g: n for g, n in file_moves(bd, x).items() if g not in whole and n not in whole}
                          for x in (od, td))
        if has_anchors(*[x for f in files for x in f.values()]):
            # A move is also read on the files as written: an alias a side added copies its
            # anchored node's leaves into the expanded reading, so a file ours moved and added
            # an alias to looked less like base's than its text is, and under half alike it read
            # as a new file, theirs' edit of base's file as the other side's business
            # (packages-theirs-1182-727: ours moved a values file and added `imagePullPolicy:
            # *base` beside its own new keys, theirs flipped a flag in it, which the result
            # holds). A move either reading finds clear is one; the expanded reading's stand
            # where the two differ.
            try:
                refs = [{p: load_refs(x) for p, x in f.items()} for f in files]
            except (yaml.YAMLError, RecursionError, ValueError, TypeError):
                refs = None
            if refs is not None:
                if moves is None:
                    moves = (file_moves(docs[0], docs[1]), file_moves(docs[0], docs[2]))
                moves = tuple(either_moves(m, {g: n for g, n in file_moves(refs[0], refs[i]).items()
                                               if g not in whole and n not in whole})
                              for i, m in ((1, moves[0]), (2, moves[1])))
        viol = package_check(rules, *docs, rd, clean, moves=moves, decided=decided)
        if viol and has_anchors(*[x for f in (*files, r_files) for x in f.values()]):
            # The files the sides moved, read on the expanded documents: the reference
            # readings' opaque aliases and tied places make a moved file look less like base's.
            if moves is None:
                moves = (file_moves(docs[0], docs[1]), file_moves(docs[0], docs[2]))
            # A conflict's side is also read with anchored places and the holders of aliases
            # tied (`tied`, `tie_holders`), as a single file's side is (two_readings).
            # A file with anchors is right if either reading says so, and aliases never cross
            # a document: a document that some reading finds nothing wrong with is right, so
            # only the findings in documents every reading finds wrong stand. Read whole, the
            # package's wrong document elsewhere kept the expanded reading's findings of an
            # alias file every other reading passes (packages-ours-1150-247: theirs aliases
            # presubmits, which ours edits, and the result keeps the alias; a conflict in
            # another file made the expanded alias read as theirs' value lost).
            wrong = {v.path for v in viol}
            for tie in (False,) if clean else (False, True):
                try:
                    refs = [{p: load_refs(x, tie) for p, x in f.items()} for f in (*files, r_files)]
                except (yaml.YAMLError, RecursionError, ValueError, TypeError):
                    return viol
                if tie:
                    refs = tie_files(refs, moves)
                found = package_check(rules, *refs, clean=clean, moves=moves, decided=decided)
                if not found:
                    return []
                wrong &= {v.path for v in found}
            # Where the readings name the wrong documents differently, every finding stands.
            return [v for v in viol if v.path in wrong] or viol
        return viol
    if status == "clean":
        rd, bad = load_tree(res, "result")
        if bad:
            bad.cat = "wrong-clean"
            return out + [bad]
        found = verdict(oracle.mark if fallback else oracle.clean, res, rd, True)
        if found and fallback and policy != "mark" and not strictly(verdict, oracle.clean, res, rd, True):
            # Git's clean line merge that is the policy's own answer is what the command asked
            # for, as for a file (Oracle.check_mark).
            found = []
        for v in found:
            v.cat, v.fallback = "wrong-clean", fallback
            out.append(v)
        return out
    for side in ("ours", "theirs"):
        r_side = {p: take_side(x, side) for p, x in res.items()}
        rd, bad = load_tree(r_side, side)
        if bad:
            bad.cat, bad.fallback = "side-unloadable", fallback
            out.append(bad)
            continue
        # A file whose conflict spans it and whose side is that side's file is the side's
        # whole value (spans_the_file): read as a file no version changed, the rest checked.
        # The side's file is the one at the result's path, or else the side's file of the
        # path's group: where the other side moved a file this side kept where it was, the
        # conflict stands at the path it was moved to, and this side's half is its own file
        # from the old path (packages-theirs-1252-583: theirs moved a Service's file and added
        # a port, ours repeated documents in it; ours' half, ours' whole file at theirs' path,
        # read as ours' side losing theirs' port, as it would not at ours' own path).
        s_files, s_docs = (o, od) if side == "ours" else (t, td)
        col = 2 if side == "ours" else 3
        groups = Package(bd, od, td).groups
        own = {p: p if p in s_files else next((g[col] for g in groups if p in g[1:] and g[col]), None)
               for p, x in res.items() if spans_the_file(x)}
        own = {p: q for p, q in own.items() if q is not None and rd.get(p) == s_docs.get(q)}
        whole = set(own)
        files, docs = (b, o, t), (bd, od, td)
        if whole:
            # A version that moved such a file holds it at its own path: where the result has
            # no file there, that copy is the same file as the conflict's, so it goes too, or
            # its documents read as a change the side lost (packages-ours-1150-247: ours moved
            # the CRD file, the result's conflict over it stands at theirs' path alone, and
            # ours' moved copy read as ours' lost document). A result that keeps a file at the
            # moved path is read with it (packages-mark-1-65), unless the side's resolution
            # holds nothing there: a conflict whose side drops the file (the other side moved
            # base's file elsewhere, git's rename/rename) leaves the file where the side put it,
            # at the whole conflict's path, and the other version's copy is that file too
            # (packages-mark-1151-499: both moved a values file apart, theirs added another
            # where ours put it; ours' side of theirs' copy is ours' move, not a loss). The
            # side's own file from another path goes the same way (packages-theirs-1252-583).
            at = {q: p for p, q in own.items()}
            moved = [[g[i] for g in groups
                      if g[col] in at and g[i] not in (None, at[g[col]]) and not rd.get(g[i])]
                     for i in (1, 2, 3)]
            files = tuple({**{q: x for q, x in f.items() if q not in gone}, **{p: s_files[q] for p, q in own.items()}}
                          for f, gone in zip(files, moved))
            docs = tuple({**{q: x for q, x in d.items() if q not in gone}, **{p: s_docs[q] for p, q in own.items()}}
                         for d, gone in zip(docs, moved))
        # Under a policy, the other side's resolution keeps what the policy decided outside
        # the files holding conflicts (PolicyDecided).
        decided = None
        if policy in ("ours", "theirs") and side != policy:
            decided = (oracle.sides[policy], {p for p, x in res.items() if any(MARK.match(line) for line in x.splitlines())})
        for v in verdict(oracle.sides[side], r_side, rd, False, files, docs, decided, whole):
            v.cat, v.side, v.fallback = "side-loses-data", side, fallback
            out.append(v)
    return out


def run_package(job):
    policy, mode, i, seed = job
    names, base, ours, theirs, eo, et, ko, kt = make_package(i, seed, G["pools"]["packages"])
    status, res, err = run_cmd(G["cmd"], policy, False, base, ours, theirs)
    try:
        viol = judge_package(G["oracles"][policy], policy, base, ours, theirs, status, res, err)
    except RecursionError:
        viol, status = [], "skipped"
    if G["out"] and (viol or G["save_all"]):
        save_case(os.path.join(G["out"], case_name(mode, policy, seed, i)),
                  {"base": base, "ours": ours, "theirs": theirs, "result": res},
                  why_text(i, seed, mode, policy, names, status, viol, eo, et, err))
    return dict(i=i, mode=mode, policy=policy, name=names, status=status,
                viol=[(v.cat, v.rule, v.path, v.detail) for v in viol], eo=ko, et=kt,
                err=err[-300:] if status == "error" else "")


# ---------------------------------------------------------------------------------------------
# Shrinking a saved case

def outline(text):
    try:
        return [(identity(d), sorted(map(str, d)) if isinstance(d, dict) else type(d).__name__) for d in load_docs(text)]
    except (yaml.YAMLError, RecursionError, ValueError, TypeError):
        return None


def leaf(path):
    """The last field of a reported path ("...containers[name=web].image" -> "image"): shrinking
    keeps it, so that the minimal case fails the same way, not merely by the same rule."""
    rest = path.split(": ", 1)[-1]
    return re.split(r"\.(?![^\[]*\])", rest)[-1]


def case_meta(case_dir):
    """(mode, policy) a case folder's why.txt records, or (None, None)."""
    try:
        with open(os.path.join(case_dir, "why.txt")) as f:
            m = re.search(r"mode (\w+), policy (\w+)", f.readline())
        return (m.group(1), m.group(2)) if m else (None, None)
    except OSError:
        return None, None


def shrink(case_dir, cmd, policy, git, oracle):
    """Drop documents, then lines common to the three files, then lines of one file, while the
    merge still fails with one of the original (finding, rule, path leaf) triples."""
    if os.path.isdir(os.path.join(case_dir, "base")):
        return shrink_package(case_dir, cmd, policy, oracle)
    texts = {k: open(os.path.join(case_dir, k + ".yaml"), encoding="utf-8").read() for k in ("base", "ours", "theirs")}

    def outcome(t):
        for s in t.values():
            if not s.strip() or not loads_strict(s):
                return None
        status, res, err = run_cmd(cmd, policy, git, t["base"], t["ours"], t["theirs"])
        try:
            viol = judge(oracle, policy, [t[k] for k in ("base", "ours", "theirs")],
                         [load_docs(t[k]) for k in ("base", "ours", "theirs")], status, res, err)
        except RecursionError:
            return None
        return (status, frozenset((v.cat, v.rule, leaf(v.path)) for v in viol)) if viol else None

    want = outcome(texts)
    if want is None:
        sys.exit("adversary: %s does not fail any more" % case_dir)

    def holds(t):
        got = outcome(t)
        return got is not None and got[0] == want[0] and got[1] & want[1]

    runs = 0
    changed = True
    while changed:
        changed = False
        # 1. whole documents (same chunk index removed from the three files where they pair by text)
        for k in ("base", "ours", "theirs"):
            for side in ("all", k):
                chunks = {s: re.split(r"(?m)^(?=---(?:\s|$))", texts[s]) for s in texts}
                n = len(chunks[k])
                for ci in range(n - 1, -1, -1):
                    cand = dict(texts)
                    if side == "all":
                        if len({len(c) for c in chunks.values()}) != 1:
                            continue
                        for s in texts:
                            cand[s] = "".join(c for j, c in enumerate(chunks[s]) if j != ci)
                    else:
                        cand[k] = "".join(c for j, c in enumerate(chunks[k]) if j != ci)
                    runs += 1
                    if cand != texts and holds(cand):
                        texts = cand
                        chunks = {s: re.split(r"(?m)^(?=---(?:\s|$))", texts[s]) for s in texts}
                        changed = True
        # 2. lines common to the three files (removed together), then lines of one file
        for size in (16, 8, 4, 2, 1):
            lb = texts["base"].splitlines(True)
            maps = {}
            for s in ("ours", "theirs"):
                ls = texts[s].splitlines(True)
                m = {}
                for blk in difflib.SequenceMatcher(None, lb, ls, autojunk=False).get_matching_blocks():
                    for x in range(blk.size):
                        m[blk.a + x] = blk.b + x
                maps[s] = (ls, m)
            i = len(lb) - size
            while i >= 0:
                rng_lines = range(i, i + size)
                if all(x in maps["ours"][1] and x in maps["theirs"][1] for x in rng_lines):
                    cand = {"base": "".join(l for j, l in enumerate(lb) if j not in rng_lines)}
                    for s in ("ours", "theirs"):
                        ls, m = maps[s]
                        drop = {m[x] for x in rng_lines}
                        cand[s] = "".join(l for j, l in enumerate(ls) if j not in drop)
                    runs += 1
                    if holds(cand):
                        texts = cand
                        changed = True
                        break
                i -= 1
            if changed:
                break
        if changed:
            continue
        for s in ("base", "ours", "theirs"):
            ls = texts[s].splitlines(True)
            for j in range(len(ls) - 1, -1, -1):
                cand = dict(texts)
                cand[s] = "".join(l for x, l in enumerate(ls) if x != j)
                # A line dropped from one file alone must not change that file's outline (its
                # documents and their top-level keys), or the case turns into another one.
                if outline(cand[s]) != outline(texts[s]):
                    continue
                runs += 1
                if holds(cand):
                    texts = cand
                    ls = texts[s].splitlines(True)
                    changed = True
    out = os.path.join(case_dir, "min")
    os.makedirs(out, exist_ok=True)
    for k, s in texts.items():
        with open(os.path.join(out, k + ".yaml"), "w", encoding="utf-8", newline="") as f:
            f.write(s)
    status, res, err = run_cmd(cmd, policy, git, texts["base"], texts["ours"], texts["theirs"])
    viol = judge(oracle, policy, [texts[k] for k in ("base", "ours", "theirs")],
                 [load_docs(texts[k]) for k in ("base", "ours", "theirs")], status, res, err)
    with open(os.path.join(out, "result.yaml"), "w", encoding="utf-8", newline="") as f:
        f.write(res or "")
    with open(os.path.join(out, "why.txt"), "w") as f:
        f.write("minimised %s (mode %s, policy %s): %s after %d runs\n" % (case_dir, case_meta(case_dir)[0], policy, status, runs)
                + "".join("%s: %s\n" % (v.cat, v) for v in viol) + ("stderr:\n" + err[-3000:] if err.strip() else ""))
    print("adversary: shrunk %s to %s (%d lines in base) after %d runs" % (case_dir, out, texts["base"].count("\n"), runs))
    for v in viol:
        print("  " + str(v))


# ---------------------------------------------------------------------------------------------


def shrink_package(case_dir, cmd, policy, oracle):
    """A package case minimised: files dropped (from all three folders, then from one), then
    documents of each file (the same document from the three versions of a path)."""
    trees = {k: read_tree(os.path.join(case_dir, k)) for k in ("base", "ours", "theirs")}

    def outcome(t):
        status, res, err = run_cmd(cmd, policy, False, t["base"], t["ours"], t["theirs"])
        try:
            viol = judge_package(oracle, policy, t["base"], t["ours"], t["theirs"], status, res, err)
        except RecursionError:
            return None
        return (status, frozenset((v.cat, v.rule, leaf(v.path)) for v in viol)) if viol else None
    want = outcome(trees)
    if want is None:
        sys.exit("adversary: %s does not fail any more" % case_dir)

    def holds(t):
        got = outcome(t)
        return got is not None and got[0] == want[0] and got[1] & want[1]
    runs = 0
    changed = True
    while changed:
        changed = False
        paths = sorted(set(trees["base"]) | set(trees["ours"]) | set(trees["theirs"]))
        for p in paths:
            for sides in (("base", "ours", "theirs"), ("base",), ("ours",), ("theirs",)):
                cand = {k: {q: x for q, x in v.items() if not (q == p and k in sides)} for k, v in trees.items()}
                if cand == trees or not cand["ours"] or not cand["base"]:
                    continue
                runs += 1
                if holds(cand):
                    trees, changed = cand, True
                    break
        for p in paths:
            chunks = {k: re.split(r"(?m)^(?=---(?:\s|$))", trees[k][p]) for k in trees if p in trees[k]}
            if len({len(c) for c in chunks.values()}) != 1:
                continue
            n = len(next(iter(chunks.values())))
            for ci in range(n - 1, -1, -1):
                cand = {k: dict(v) for k, v in trees.items()}
                for k, c in chunks.items():
                    cand[k][p] = "".join(x for j, x in enumerate(c) if j != ci)
                if any(not loads_strict(cand[k][p]) for k in chunks):
                    continue
                runs += 1
                if holds(cand):
                    trees, changed = cand, True
                    chunks = {k: re.split(r"(?m)^(?=---(?:\s|$))", trees[k][p]) for k in trees if p in trees[k]}
    out = os.path.join(case_dir, "min")
    if os.path.isdir(out):
        import shutil
        shutil.rmtree(out)
    status, res, err = run_cmd(cmd, policy, False, trees["base"], trees["ours"], trees["theirs"])
    viol = judge_package(oracle, policy, trees["base"], trees["ours"], trees["theirs"], status, res, err)
    save_case(out, dict(trees, result=res), "minimised %s (mode packages, policy %s): %s after %d runs\n" % (case_dir, policy, status, runs)
              + "".join("%s: %s\n" % (v.cat, v) for v in viol) + ("stderr:\n" + err[-3000:] if err.strip() else ""))
    print("adversary: shrunk %s to %s (%d files in base) after %d runs" % (case_dir, out, len(trees["base"]), runs))
    for v in viol:
        print("  %s: %s" % (v.cat, v))


# ---------------------------------------------------------------------------------------------
# Self-test: the oracle against known answers

# A block scalar under a header, its third and sixth lines given (BLK % (header, c, f)).
# a: service (anchor, ours' addition), then ingress or theirs' key; sa and np with their merge keys.
TIE7770 = "a:\n  service:%s\n    port: 1\n%s%s  x: 1\nsa:\n  create: true\n%snp:\n  ingress: true\n%s"
BLK = "d:\n  s: %s\n    a\n    b\n    %s    d\n    e\n    %s    g\nx: 1\n"
# A block with its header, a line inserted, and blank lines added below it (SELF_TESTS).
KEEP = "c: %s\n  a\n  b\n%s  d\n\n%sx: 1\n"

# Two Services; both sides take the first one's name away, theirs also most of its spec; the
# last: that Service back under base's name (SELF_TESTS, manifests-theirs-1152-72).
_NAMELESS_OTHER = ("kind: S\nmetadata:\n  name: b\n  labels:\n    app: x\nspec:\n  type: L\n  sel: x\n  port: 80\n"
                   "  proto: T\n  mode: m\n")
_NAMELESS = [
    "kind: S\nmetadata:\n  name: a\n  labels:\n    app: x\nspec:\n  type: C\n  sel: x\n  port: 80\n  proto: T\n"
    "  mode: m\n---\n" + _NAMELESS_OTHER,
    "kind: S\nspec:\n  type: C\n  sel: x\n  port: 80\n  proto: T\n  mode: m\n---\n" + _NAMELESS_OTHER,
    "kind: S\nspec:\n  type: C\n---\n" + _NAMELESS_OTHER,
    "kind: S\nmetadata:\n  name: a\n  labels:\n    app: x\nspec:\n  type: C\n---\n" + _NAMELESS_OTHER,
]

# A ConfigMap's name, namespace and data (SELF_TESTS: both sides renamed it apart).
REN_APART = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n    app: demo\n    tier: web\ndata:\n  %s\n  c: keep\n"
# A ConfigMap by name (SELF_TESTS: ours renamed it and repeated it under the new name).
REN_COPY = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n%s  labels:\n    app: demo\ndata:\n  a: \"1\"\n  b: \"2\"\n  c: \"3\"\n%s"
SELF_TESTS = [
    # (name, policy, base, ours, theirs, result, must find something); a policy `line:P` judges
    # a clean result of git's line merge (the fallback) run under P (Oracle.check_mark)
    ("ours renamed a ConfigMap and repeated it, the first copy with a key added; theirs dropped its "
     "name and added a key: ours' side of git's conflict over the name holds theirs' key in the "
     "second copy, base's but for the name (manifests-mark-1291-1640)", "side:ours",
     REN_COPY % ("  name: a\n", ""),
     REN_COPY % ("  name: a2\n", "  w: \"4\"\n") + "---\n" + REN_COPY % ("  name: a2\n", ""),
     REN_COPY % ("", "  t: \"5\"\n"),
     REN_COPY % ("  name: a2\n", "  w: \"4\"\n") + "---\n" + REN_COPY % ("  name: a2\n", "  t: \"5\"\n"),
     False),
    ("the same, theirs' side: the nameless copy with theirs' key beside ours' first copy", "side:theirs",
     REN_COPY % ("  name: a\n", ""),
     REN_COPY % ("  name: a2\n", "  w: \"4\"\n") + "---\n" + REN_COPY % ("  name: a2\n", ""),
     REN_COPY % ("", "  t: \"5\"\n"),
     REN_COPY % ("  name: a2\n", "  w: \"4\"\n") + "---\n" + REN_COPY % ("", "  t: \"5\"\n"),
     False),
    ("the same, theirs' side holding ours' second copy, not the first: whichever copy is read as the "
     "rename, the other, ours' addition, is lost", "side:theirs",
     REN_COPY % ("  name: a\n", ""),
     REN_COPY % ("  name: a2\n", "  w: \"4\"\n") + "---\n" + REN_COPY % ("  name: a2\n", ""),
     REN_COPY % ("", "  t: \"5\"\n"),
     REN_COPY % ("  name: a2\n", "") + "---\n" + REN_COPY % ("", "  t: \"5\"\n"),
     True),
    ("ours deleted an element of an unkeyed list theirs reordered and added to; git's clean line "
     "merge keeps theirs' list: under theirs that is the policy's answer (manifests-theirs-1172-1808)",
     "line:theirs",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - a\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - c\n  - a\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - c\n  - a\n", False),
    ("the same line merge's result under mark: the element ours deleted came back", "line:mark",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - a\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - c\n  - a\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - c\n  - a\n", True),
    ("the same line merge's result under ours: ours' deletion lost, only git's element merge (the "
     "sequence reading, no conflicting stretch) keeps the element, which is no policy's answer", "line:ours",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - a\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - c\n  - a\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - c\n  - a\n", True),
    ("under theirs, a line merge's result that is neither mark's answer nor the policy's (theirs' "
     "added element lost) is wrong", "line:theirs",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - a\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - c\n  - a\n",
     "kind: K\nmetadata:\n  name: x\nspec:\n  required:\n  - b\n  - a\n", True),
    ("both sides renamed a ConfigMap apart, theirs also moving it to another namespace and adding "
     "a resource under ours' new name there: ours' side of git's conflict over the name and "
     "namespace is ours' identity whole, theirs' edit merged (templates-mark-1171-4810)", "side:ours",
     REN_APART % ("dash", "default", "a: 1"), REN_APART % ("dash-renamed", "default", "a: 1"),
     REN_APART % ("flags", "green", "a: 2") + "---\n" + REN_APART % ("dash-renamed", "green", "b: 3"),
     REN_APART % ("dash-renamed", "default", "a: 2") + "---\n" + REN_APART % ("dash-renamed", "green", "b: 3"),
     False),
    ("the same where ours' side holds, under ours' identity, a value no side wrote: the fields "
     "are still judged", "side:ours",
     REN_APART % ("dash", "default", "a: 1"), REN_APART % ("dash-renamed", "default", "a: 1"),
     REN_APART % ("flags", "green", "a: 2") + "---\n" + REN_APART % ("dash-renamed", "green", "b: 3"),
     REN_APART % ("dash-renamed", "default", "a: 4") + "---\n" + REN_APART % ("dash-renamed", "green", "b: 3"),
     True),
    ("the same where ours' side lost the resource theirs added", "side:ours",
     REN_APART % ("dash", "default", "a: 1"), REN_APART % ("dash-renamed", "default", "a: 1"),
     REN_APART % ("flags", "green", "a: 2") + "---\n" + REN_APART % ("dash-renamed", "green", "b: 3"),
     REN_APART % ("dash-renamed", "default", "a: 2"),
     True),
    ("theirs renamed an unkeyed list's element in its slot, beside a copy it added; ours deleted "
     "it: ours' side without it holds (templates-mark-1151-141)", "side:ours",
     "v:\n- name: a\n- name: b\n- name: c\n- name: d\n",
     "v:\n- name: a\n- name: c\n- name: d\n",
     "v:\n- name: a\n- name: a\n- name: s\n- name: d\n",
     "v:\n- name: a\n- name: a\n- name: d\n", False),
    ("theirs added an element at the end of an unkeyed list beside a copy; ours deleted another: "
     "ours' side without the new element loses it", "side:ours",
     "v:\n- name: a\n- name: b\n- name: c\n- name: d\n",
     "v:\n- name: a\n- name: c\n- name: d\n",
     "v:\n- name: a\n- name: a\n- name: b\n- name: d\n- name: s\n",
     "v:\n- name: a\n- name: a\n- name: d\n", True),
    ("both sides renamed a resource alike, ours then added a copy under the old name: the copy is "
     "ours' addition, kept beside the merged rename (templates-mark-1151-1362)", "mark",
     "kind: K\nmetadata:\n  name: x\nspec:\n  a: 1\n  b: 2\n  c: 3\n",
     "kind: K\nmetadata:\n  name: y\nspec:\n  a: 1\n  b: 2\n  c: 7\n  d: 4\n---\n"
     "kind: K\nmetadata:\n  name: x\nspec:\n  a: 1\n  b: 2\n  c: 3\n  f: 6\n",
     "kind: K\nmetadata:\n  name: y\nspec:\n  a: 1\n  b: 2\n  c: 3\n  e: 5\n",
     "kind: K\nmetadata:\n  name: y\nspec:\n  a: 1\n  b: 2\n  c: 7\n  d: 4\n  e: 5\n---\n"
     "kind: K\nmetadata:\n  name: x\nspec:\n  a: 1\n  b: 2\n  c: 3\n  f: 6\n", False),
    ("both sides renamed a resource alike, ours then added a copy under the old name: losing the "
     "copy is wrong", "mark",
     "kind: K\nmetadata:\n  name: x\nspec:\n  a: 1\n  b: 2\n  c: 3\n",
     "kind: K\nmetadata:\n  name: y\nspec:\n  a: 1\n  b: 2\n  c: 7\n  d: 4\n---\n"
     "kind: K\nmetadata:\n  name: x\nspec:\n  a: 1\n  b: 2\n  c: 3\n  f: 6\n",
     "kind: K\nmetadata:\n  name: y\nspec:\n  a: 1\n  b: 2\n  c: 3\n  e: 5\n",
     "kind: K\nmetadata:\n  name: y\nspec:\n  a: 1\n  b: 2\n  c: 7\n  d: 4\n  e: 5\n", True),
    ("theirs dropped a resource's metadata, ours edited a label: ours wins the metadata, its name with it", "ours",
     "kind: K\nmetadata:\n  name: x\n  labels:\n    a: '1'\nspec:\n  p: 1\n  q: 2\n  r: 3\n---\nkind: C\nmetadata:\n  name: c\n",
     "kind: K\nmetadata:\n  name: x\n  labels:\n    a: '2'\nspec:\n  p: 1\n  q: 2\n  r: 3\n---\nkind: C\nmetadata:\n  name: c\n",
     "kind: K\nspec:\n  p: 1\n  q: 2\n  r: 3\n  s: 4\n---\nkind: C\nmetadata:\n  name: c\n",
     "kind: K\nmetadata:\n  name: x\n  labels:\n    a: '2'\nspec:\n  p: 1\n  q: 2\n  r: 3\n  s: 4\n---\nkind: C\nmetadata:\n  name: c\n", False),
    ("theirs dropped a resource's metadata, ours edited a label: dropping ours' metadata is wrong", "ours",
     "kind: K\nmetadata:\n  name: x\n  labels:\n    a: '1'\nspec:\n  p: 1\n  q: 2\n  r: 3\n---\nkind: C\nmetadata:\n  name: c\n",
     "kind: K\nmetadata:\n  name: x\n  labels:\n    a: '2'\nspec:\n  p: 1\n  q: 2\n  r: 3\n---\nkind: C\nmetadata:\n  name: c\n",
     "kind: K\nspec:\n  p: 1\n  q: 2\n  r: 3\n  s: 4\n---\nkind: C\nmetadata:\n  name: c\n",
     "kind: K\nspec:\n  p: 1\n  q: 2\n  r: 3\n  s: 4\n---\nkind: C\nmetadata:\n  name: c\n", True),
    ("theirs made a script keep its blank line (`|+`), ours edited its last line: both hold, clean", "mark",
     "run: |\n  a\n  b\n\nx: 1\n",
     "run: |\n  a\n  b2\n\nx: 1\n",
     "run: |+\n  a\n  b\n\nx: 1\n",
     "run: |+\n  a\n  b2\n\nx: 1\n", False),
    ("theirs made a script keep its blank line, ours edited its last line: dropping the blank is wrong", "mark",
     "run: |\n  a\n  b\n\nx: 1\n",
     "run: |\n  a\n  b2\n\nx: 1\n",
     "run: |+\n  a\n  b\n\nx: 1\n",
     "run: |\n  a\n  b2\n\nx: 1\n", True),
    ("both sides kept a different number of a script's trailing blank lines: no clean merge", "mark",
     "run: |\n  a\n\n\nx: 1\n",
     "run: |+\n  a\n\nx: 1\n",
     "run: |+\n  a\n\n\nx: 1\n",
     "run: |+\n  a\n\nx: 1\n", True),
    ("ours added one copy of an element, theirs two: two copies may hold ours' (added at one place)", "ours",
     "m:\n- name: a\n",
     "m:\n- name: b\n  url: u\n",
     "m:\n- name: a\n- name: b\n  url: u\n- name: b\n  url: u\n",
     "m:\n- name: b\n  url: u\n- name: b\n  url: u\n", False),
    ("ours added one copy of an element, theirs two: one copy loses theirs' second", "mark",
     "m:\n- name: a\n",
     "m:\n- name: b\n  url: u\n",
     "m:\n- name: a\n- name: b\n  url: u\n- name: b\n  url: u\n",
     "m:\n- name: b\n  url: u\n", True),
    ("a renamed element takes the other side's edit", "mark",
     "l:\n- name: a\n  x: 1\n  y: 2\n- name: b\n  x: 3\n",
     "l:\n- name: a2\n  x: 1\n  y: 2\n- name: b\n  x: 3\n",
     "l:\n- name: a\n  x: 1\n  y: 5\n- name: b\n  x: 3\n",
     "l:\n- name: a2\n  x: 1\n  y: 5\n- name: b\n  x: 3\n", False),
    ("the edit left on the old name is wrong", "mark",
     "l:\n- name: a\n  x: 1\n  y: 2\n- name: b\n  x: 3\n",
     "l:\n- name: a2\n  x: 1\n  y: 2\n- name: b\n  x: 3\n",
     "l:\n- name: a\n  x: 1\n  y: 5\n- name: b\n  x: 3\n",
     "l:\n- name: a2\n  x: 1\n  y: 2\n- name: a\n  x: 1\n  y: 5\n- name: b\n  x: 3\n", True),
    ("both renamed one Tekton param, ours added a new one by the old name: dropping it is wrong", "mark",
     "spec:\n  params:\n  - name: task-image\n    type: string\n    default: img:1\n  - name: other\n    default: x\n",
     "spec:\n  params:\n  - name: builder-image\n    type: string\n    default: img:1\n  - name: task-image\n    type: string\n"
     "    default: new:2\n  - name: other\n    default: x\n",
     "spec:\n  params:\n  - name: builder-image\n    type: string\n    default: img:1\n  - name: other\n    default: x\n",
     "spec:\n  params:\n  - name: builder-image\n    type: string\n    default: img:1\n  - name: other\n    default: x\n", True),
    ("ours copied an element under a new name, theirs renamed it so: one copy is right (ambiguous reading)", "mark",
     "l:\n- name: a\n  x: 1\n- name: b\n  x: 3\n",
     "l:\n- name: a\n  x: 1\n- name: c\n  x: 1\n- name: b\n  x: 3\n",
     "l:\n- name: c\n  x: 1\n- name: b\n  x: 3\n",
     "l:\n- name: c\n  x: 1\n- name: b\n  x: 3\n", False),
    ("both renamed one element differently: keeping both copies is wrong", "mark",
     "l:\n- name: a\n  x: 1\n  y: 2\n",
     "l:\n- name: a-ours\n  x: 1\n  y: 2\n",
     "l:\n- name: a-theirs\n  x: 1\n  y: 2\n",
     "l:\n- name: a-ours\n  x: 1\n  y: 2\n- name: a-theirs\n  x: 1\n  y: 2\n", True),
    ("a list theirs emptied while ours edited an element: clean is wrong", "mark",
     "args:\n- --a\n- --b\nl:\n- name: a\n  x: 1\n",
     "args:\n- --a\n- --b\nl:\n- name: a\n  x: 2\n",
     "args:\n- --a\n- --b\nl: []\n",
     "args:\n- --a\n- --b\nl:\n- name: a\n  x: 2\n", True),
    ("ours policy: ours wins where both changed a field, theirs' other edit stays", "ours",
     "a: 1\nb: 1\n", "a: 2\nb: 1\n", "a: 3\nb: 4\n", "a: 2\nb: 4\n", False),
    ("ours policy: theirs' edit elsewhere lost", "ours",
     "a: 1\nb: 1\n", "a: 2\nb: 1\n", "a: 3\nb: 4\n", "a: 2\nb: 1\n", True),
    ("theirs policy: a field ours deleted that theirs changed comes back (kyaml)", "theirs",
     "a: 1\nb: 1\n", "b: 1\n", "a: 3\nb: 1\n", "a: 3\nb: 1\n", False),
    ("theirs policy: a null clears the field", "theirs",
     "a: 1\nb: 1\n", "a: 1\nb: 1\n", "a: null\nb: 1\n", "a: null\nb: 1\n", True),
    ("an alias ours merged from an anchor it added on a map theirs nulled: theirs' side, "
     "without the anchor, holds theirs' null and no merge key (tied reading)", "side:theirs",
     "image:\n  repository: r\n  tag: 1\nservice:\n  port: 80\n",
     "image: &base\n  repository: r\n  tag: 1\nservice:\n  port: 80\n  <<: *base\nx: 1\n",
     "image: null\nservice:\n  port: 80\n", "image: null\nservice:\n  port: 80\nx: 1\n", False),
    ("the same where theirs emptied the anchored map: the anchor can stand on `{}`, ours' merge "
     "key stands", "side:theirs",
     "image:\n  repository: r\n  tag: 1\nservice:\n  port: 80\n",
     "image: &base\n  repository: r\n  tag: 1\nservice:\n  port: 80\n  <<: *base\nx: 1\n",
     "image: {}\nservice:\n  port: 80\n", "image: {}\nservice:\n  port: 80\nx: 1\n", True),
    ("the same where theirs changed the anchored map otherwise: ours' merge key stands", "side:theirs",
     "image:\n  repository: r\n  tag: 1\nservice:\n  port: 80\n",
     "image: &base\n  repository: r\n  tag: 1\nservice:\n  port: 80\n  <<: *base\nx: 1\n",
     "image:\n  repository: r\n  tag: 2\nservice:\n  port: 80\n",
     "image:\n  repository: r\n  tag: 2\nservice:\n  port: 80\nx: 1\n", True),
    ("a resource ours moved to another namespace inside a metadata map both sides changed: "
     "theirs' side holds theirs' metadata, its identity with it", "side:theirs",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  annotations:\n    p: q\ndata:\n  k: 1\n",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: y\n  annotations: null\ndata:\n  k: 1\n",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  annotations: {}\ndata:\n  k: 2\n",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n  annotations: {}\ndata:\n  k: 2\n", False),
    ("a block both sides made folded, ours `>` and a line edited, theirs `>-` and a line added: ours' "
     "side of git's one conflict, on the header, holds both lines (manifests-mark-1149-852)", "side:ours",
     BLK % ("|", "c\n", "f\n"), BLK % (">", "c\n", "f x\n"), BLK % (">-", "c\n    key = value\n", "f\n"),
     BLK % (">", "c\n    key = value\n", "f x\n"), False),
    ("the same on theirs' side", "side:theirs",
     BLK % ("|", "c\n", "f\n"), BLK % (">", "c\n", "f x\n"), BLK % (">-", "c\n    key = value\n", "f\n"),
     BLK % (">-", "c\n    key = value\n", "f x\n"), False),
    ("the same where ours' side lost ours' line edit", "side:ours",
     BLK % ("|", "c\n", "f\n"), BLK % (">", "c\n", "f x\n"), BLK % (">-", "c\n    key = value\n", "f\n"),
     BLK % (">", "c\n    key = value\n", "f\n"), True),
    ("ours made a block keep its blank lines (`|+`) and added one, theirs made it folded and added "
     "a line: ours' side of git's one conflict, on the header, holds ours' blank lines and theirs' "
     "line (templates-mark-1221-558)", "side:ours",
     KEEP % ("|", "", ""), KEEP % ("|+", "", "\n"), KEEP % (">", "    more\n", ""),
     KEEP % ("|+", "    more\n", "\n"), False),
    ("the same where ours' side lost ours' blank line", "side:ours",
     KEEP % ("|", "", ""), KEEP % ("|+", "", "\n"), KEEP % (">", "    more\n", ""),
     KEEP % ("|+", "    more\n", ""), True),
    ("ours made a block folded keeping its blank line (`>+`), theirs added a line and blank lines "
     "below a clipped block, spacing and not its value: they are not the value's", "mark",
     KEEP % ("|", "", ""), KEEP % (">+", "", ""), KEEP % ("|", "    more\n", "\n\n"),
     KEEP % (">+", "    more\n", "\n\n"), True),
    ("the same with only ours changing the metadata: theirs' side lost ours' move", "side:theirs",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  k: 1\n",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: y\ndata:\n  j: 1\n  k: 1\n",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  k: 2\n",
     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  j: 1\n  k: 2\n", True),
    ("a swap against an edit: the swapping side's part empty loses the element", "side:ours",
     "args:\n- --a\n- --b\n- --c\n", "args:\n- --b\n- --a\n- --c\n", "args:\n- --a=1\n- --b\n- --c\n",
     "args:\n- --b\n- --c\n", True),
    ("a conflict side that is git's element merge with its own stretch is right (sequence reading)", "side:ours",
     "args:\n- --a\n- --b\n", "args:\n- --a\n- --b\n- --c\n", "args:\n- --a\n- --x\n",
     "args:\n- --a\n- --b\n- --c\n", False),
    ("theirs swapped two elements, ours added one after them: ours' half of the conflict widened "
     "over the swap holds every element in base's order (templates-mark-1157-46)", "side:ours",
     "l:\n- {n: c}\n- {n: r}\n- {n: w}\n", "l:\n- {n: c}\n- {n: r}\n- {n: s}\n- {n: w}\n",
     "l:\n- {n: r}\n- {n: c}\n- {n: w}\n- {n: x}\n",
     "l:\n- {n: c}\n- {n: r}\n- {n: s}\n- {n: w}\n- {n: x}\n", False),
    ("the same with git's narrow half: it reads the swap as c deleted and put back after r, where "
     "ours added s, so ours' half loses c, which every side kept", "side:ours",
     "l:\n- {n: c}\n- {n: r}\n- {n: w}\n", "l:\n- {n: c}\n- {n: r}\n- {n: s}\n- {n: w}\n",
     "l:\n- {n: r}\n- {n: c}\n- {n: w}\n", "l:\n- {n: r}\n- {n: s}\n- {n: w}\n", True),
    ("the same where ours' half drops theirs' addition past another it keeps: no conflict widened "
     "as one run reaches it", "side:ours",
     "l:\n- {n: c}\n- {n: r}\n- {n: w}\n- {n: v}\n", "l:\n- {n: c}\n- {n: r}\n- {n: s}\n- {n: w}\n- {n: v}\n",
     "l:\n- {n: r}\n- {n: c}\n- {n: w}\n- {n: x}\n- {n: v}\n- {n: y}\n",
     "l:\n- {n: c}\n- {n: r}\n- {n: s}\n- {n: w}\n- {n: x}\n- {n: v}\n", True),
    ("an unkeyed element both sides edited, merged field by field with ours winning the port: "
     "not paired with ours' edit of another element as alike", "side:ours",
     "e:\n- port: m\n  path: p\n  interval: 30s\n- port: t\n  path: q\n  interval: 30s\n",
     "e:\n- port: null\n  path: p\n  interval: 30s\n- path:\n  interval: 30s\n",
     "e:\n- port: m\n  path: p\n  interval: 30s\n- port: t2\n  path: q\n  interval: 60s\n",
     "e:\n- port: null\n  path: p\n  interval: 30s\n- path:\n  interval: 60s\n", False),
    ("both renamed one resource, ours its namespace, theirs its name: one resource holding both is right",
     "mark",
     "kind: A\nmetadata:\n  name: a\n  namespace: n\nx: 1\n---\nkind: B\nmetadata:\n  name: b\n",
     "kind: A\nmetadata:\n  name: a\n  namespace: n2\nx: 1\n---\nkind: B\nmetadata:\n  name: b\n",
     "kind: A\nmetadata:\n  name: a2\n  namespace: n\nx: 1\n---\nkind: B\nmetadata:\n  name: b\n",
     "kind: A\nmetadata:\n  name: a2\n  namespace: n2\nx: 1\n---\nkind: B\nmetadata:\n  name: b\n", False),
    # manifests-theirs-1152-72: ours' rename is not clear (the other Service is nearly as alike).
    ("both took one resource's name away, theirs also fields: theirs' deletions stand (one rename, as git reads it)",
     "mark", _NAMELESS[0], _NAMELESS[1], _NAMELESS[2], _NAMELESS[2], False),
    ("the same under theirs: renames paired, theirs winning, is right (README)", "theirs",
     _NAMELESS[0], _NAMELESS[1], _NAMELESS[2], _NAMELESS[2], False),
    ("the same: the resource back under base's name is wrong", "mark",
     _NAMELESS[0], _NAMELESS[1], _NAMELESS[2], _NAMELESS[3], True),
    # packages-theirs-1172-5463 (shrunk): ours nulled a ConfigMap's name, theirs renamed it.
    ("ours nulled a resource's name, theirs renamed it: under theirs, renames paired with theirs "
     "winning (README) hold theirs' name and ours' other edit", "theirs",
     "kind: ConfigMap\nmetadata:\n  name: p\ndata:\n  a: 1\n  b: 2\n",
     "kind: ConfigMap\nmetadata:\n  name: ~\ndata:\n  a: 1\n",
     "kind: ConfigMap\nmetadata:\n  name: p2\ndata:\n  a: 1\n  b: 2\n",
     "kind: ConfigMap\nmetadata:\n  name: p2\ndata:\n  a: 1\n", False),
    ("the same paired with no name left: theirs' rename lost, wrong", "theirs",
     "kind: ConfigMap\nmetadata:\n  name: p\ndata:\n  a: 1\n  b: 2\n",
     "kind: ConfigMap\nmetadata:\n  name: ~\ndata:\n  a: 1\n",
     "kind: ConfigMap\nmetadata:\n  name: p2\ndata:\n  a: 1\n  b: 2\n",
     "kind: ConfigMap\nmetadata: {}\ndata:\n  a: 1\n", True),
    # values-mark-1151-1309: elements with no `name` are named in places by their key.
    ("an alias theirs added of a keyed element's map names it by key: ours' element inserted above it "
     "and ours' null in the map show through the alias (reference reading)", "mark",
     "c:\n- topologyKey: z\n  sel:\n    m: 1\np:\n  s: 1\n",
     "c:\n- topologyKey: d\n  sel:\n    m: 2\n- topologyKey: z\n  sel:\n    m:\np:\n  s: 1\n",
     "c:\n- topologyKey: z\n  sel: &base\n    m: 1\np:\n  s: 1\n  d: *base\n",
     "c:\n- topologyKey: d\n  sel:\n    m: 2\n- topologyKey: z\n  sel: &base\n    m:\np:\n  s: 1\n  d: *base\n",
     False),
    ("the same with the alias naming ours' inserted element: wrong", "mark",
     "c:\n- topologyKey: z\n  sel:\n    m: 1\np:\n  s: 1\n",
     "c:\n- topologyKey: d\n  sel:\n    m: 2\n- topologyKey: z\n  sel:\n    m:\np:\n  s: 1\n",
     "c:\n- topologyKey: z\n  sel: &base\n    m: 1\np:\n  s: 1\n  d: *base\n",
     "c:\n- topologyKey: d\n  sel: &base\n    m: 2\n- topologyKey: z\n  sel:\n    m:\np:\n  s: 1\n  d: *base\n",
     True),
    ("a key with slashes names an element in a place (escaped): the same reading", "mark",
     "c:\n- topologyKey: a/z\n  sel:\n    m: 1\np:\n  s: 1\n",
     "c:\n- topologyKey: a/d\n  sel:\n    m: 2\n- topologyKey: a/z\n  sel:\n    m:\np:\n  s: 1\n",
     "c:\n- topologyKey: a/z\n  sel: &base\n    m: 1\np:\n  s: 1\n  d: *base\n",
     "c:\n- topologyKey: a/d\n  sel:\n    m: 2\n- topologyKey: a/z\n  sel: &base\n    m:\np:\n  s: 1\n  d: *base\n",
     False),
    ("both renamed one resource apart: that resource without theirs' other edit is wrong", "ours",
     "kind: A\nmetadata:\n  name: a\n  namespace: n\nx: 1\n---\nkind: B\nmetadata:\n  name: b\n",
     "kind: A\nmetadata:\n  name: a\n  namespace: n2\nx: 1\n---\nkind: B\nmetadata:\n  name: b\n",
     "kind: A\nmetadata:\n  name: a2\n  namespace: n\nx: 5\n---\nkind: B\nmetadata:\n  name: b\n",
     "kind: A\nmetadata:\n  name: a2\n  namespace: n2\nx: 1\n---\nkind: B\nmetadata:\n  name: b\n", True),
    # packages-mark-1130-1955: theirs anchors image and merges it into serviceAccount; ours
    # deletes image. Ours' side keeps ours' serviceAccount: theirs' alias cannot stand there.
    ("a side keeps its own map where the other merged in an anchor the side deleted (tie_holders)", "side:ours",
     "image:\n  tag: v1\nsa:\n  create: true\nx: 1\n",
     "sa:\n  create: true\nx: 1\n",
     "image: &base\n  tag: v1\nsa:\n  <<: *base\nx: 2\n",
     "sa:\n  create: true\nx: 2\n", False),
    ("a side that deleted the anchored place keeps its own element where the other renamed it and "
     "aliased the place in it (values-mark-1149-9317)", "side:ours",
     "a:\n  k: 1\nl:\n- name: x\n  v: 1\nz: 1\n",
     "l:\n- name: x\n  v: 1\nz: 1\n",
     "a: &base\n  k: 1\nl:\n- name: y\n  v: 1\n  p: *base\nz: 2\n",
     "l:\n- name: x\n  v: 1\nz: 2\n", False),
    ("the same where ours' side drops the element", "side:ours",
     "a:\n  k: 1\nl:\n- name: x\n  v: 1\nz: 1\n",
     "l:\n- name: x\n  v: 1\nz: 1\n",
     "a: &base\n  k: 1\nl:\n- name: y\n  v: 1\n  p: *base\nz: 2\n",
     "l: []\nz: 2\n", True),
    ("a side that changed (not deleted) the anchored place must keep the other's alias", "side:ours",
     "image:\n  tag: v1\nsa:\n  create: true\nx: 1\n",
     "image:\n  tag: v2\nsa:\n  create: true\nx: 1\n",
     "image: &base\n  tag: v1\nsa:\n  <<: *base\nx: 2\n",
     "image:\n  tag: v2\nsa:\n  create: true\nx: 2\n", True),
    ("a side that deleted the anchored place still takes the other's change beside the alias", "side:ours",
     "image:\n  tag: v1\nsa:\n  create: true\nx: 1\ny: 1\n",
     "sa:\n  create: true\nx: 1\ny: 1\n",
     "image: &base\n  tag: v1\nsa:\n  <<: *base\nx: 2\ny: 2\n",
     "sa:\n  create: true\nx: 1\ny: 2\n", True),
    # templates-mark-1149-7770: ours anchors a.service (adding to it) and a.ingress and aliases
    # them from np and sa; theirs deletes a.ingress and adds beside a.service. Theirs' side of a
    # conflict as wide as `a` (the tie of sa with it) is theirs' `a`, the anchor on theirs' service.
    ("a side's whole map holding a place the other side anchored and aliased from outside it (bare)",
     "side:theirs", TIE7770 % ("", "", "  ingress:\n    e: false\n", "", ""),
     TIE7770 % (" &base", "    ver: p\n", "  ingress: &defaults\n    e: false\n", "  <<: *defaults\n", "  <<: *base\n"),
     TIE7770 % ("", "", "  priority: s\n", "", ""),
     TIE7770 % (" &base", "", "  priority: s\n", "", "  <<: *base\n"), False),
    ("the same where the side is neither side's `a`: ours' addition to the anchored map lost",
     "side:theirs", TIE7770 % ("", "", "  ingress:\n    e: false\n", "", ""),
     TIE7770 % (" &base", "    ver: p\n", "  ingress: &defaults\n    e: false\n", "  <<: *defaults\n", "  <<: *base\n"),
     TIE7770 % ("", "", "  priority: s\n", "", ""),
     TIE7770 % (" &base", "", "", "", "  <<: *base\n"), True),
    ("an alias ours added shows theirs' change of its anchor (reference reading)", "mark",
     "x:\n  k: 1\ny:\n  j: 1\n",
     "x: &a\n  k: 1\ny:\n  j: 1\n  z: *a\n",
     "x:\n  k: 2\ny:\n  j: 1\n",
     "x: &a\n  k: 2\ny:\n  j: 1\n  z: *a\n", False),
    ("an alias theirs added into an element ours renamed names it by its new name (values-mark-1135-813)", "mark",
     "l:\n- name: a\n  k: 1\n  s:\n    t: 1\n- name: b\n  s:\n    t: 2\ny: 1\n",
     "l:\n- name: a2\n  k: 1\n  s:\n    t: 5\n- name: b\n  s:\n    t: 2\ny: 1\n",
     "l:\n- name: a\n  k: 1\n  s: &x\n    t: 1\n- name: b\n  s:\n    t: 2\ny: *x\n",
     "l:\n- name: a2\n  k: 1\n  s: &x\n    t: 5\n- name: b\n  s:\n    t: 2\ny: *x\n", False),
    ("an alias theirs added into an element ours renamed must not name another element", "mark",
     "l:\n- name: a\n  k: 1\n  s:\n    t: 1\n- name: b\n  s:\n    t: 2\ny: 1\n",
     "l:\n- name: a2\n  k: 1\n  s:\n    t: 5\n- name: b\n  s:\n    t: 2\ny: 1\n",
     "l:\n- name: a\n  k: 1\n  s: &x\n    t: 1\n- name: b\n  s:\n    t: 2\ny: *x\n",
     "l:\n- name: a2\n  k: 1\n  s:\n    t: 5\n- name: b\n  s: &x\n    t: 2\ny: *x\n", True),
    ("an alias theirs added to the anchored `with` of a step ours copied names the copy that carries "
     "base's step on; ours' addition there shows through it (values-mark-1149-8645)", "mark",
     'steps:\n  - name: a\n    env:\n      K: 1\n  - name: b\n    uses: u\n    with:\n      c: 1\n  - name: l\n',
     'steps:\n  - name: a\n    env: &base\n      K: 1\n  - name: b\n  - name: b\n    uses: u\n    with:\n      c: 1\n      p: *base\n  - name: l\n',
     'steps:\n  - name: a\n    env:\n      K: 1\n  - name: b\n    uses: u\n    with: &base\n      c: 1\n  - name: l\n    priority: *base\n',
     'steps:\n  - name: a\n    env: &base\n      K: 1\n  - name: b\n  - name: b\n    uses: u\n    with: &base2\n      c: 1\n      p: *base\n  - name: l\n    priority: *base2\n', False),
    ("the same where the result's anchor is on the other copy", "mark",
     'steps:\n  - name: a\n    env:\n      K: 1\n  - name: b\n    uses: u\n    with:\n      c: 1\n  - name: l\n',
     'steps:\n  - name: a\n    env: &base\n      K: 1\n  - name: b\n  - name: b\n    uses: u\n    with:\n      c: 1\n      p: *base\n  - name: l\n',
     'steps:\n  - name: a\n    env:\n      K: 1\n  - name: b\n    uses: u\n    with: &base\n      c: 1\n  - name: l\n    priority: *base\n',
     'steps:\n  - name: a\n    env: &base\n      K: 1\n  - name: b\n    with: &base2 {}\n  - name: b\n    uses: u\n    with:\n      c: 1\n      p: *base\n  - name: l\n    priority: *base2\n', True),
    ("an alias ours added into an element theirs renamed, beside an element theirs added, names it by "
     "base's name; theirs' alias of its anchored `with` shows ours' null there (values-ours-1262-549)", "ours",
     "- name: p\n  env:\n    K: k\n  with:\n    pw: t\n",
     "- name: p\n  env: &base\n    K: k\n  <<: *base\n  with:\n    pw:\n",
     "- name: c\n- name: g\n  env:\n    K: k\n  with: &base\n    pw: t\n  enabled: *base\n",
     "- name: c\n- name: g\n  env: &base\n    K: k\n  <<: *base\n  with: &base2\n    pw:\n  enabled: *base2\n", False),
    ("the same, where the result keeps base's value that ours nulled", "ours",
     "- name: p\n  env:\n    K: k\n  with:\n    pw: t\n",
     "- name: p\n  env: &base\n    K: k\n  <<: *base\n  with:\n    pw:\n",
     "- name: c\n- name: g\n  env:\n    K: k\n  with: &base\n    pw: t\n  enabled: *base\n",
     "- name: c\n- name: g\n  env: &base\n    K: k\n  <<: *base\n  with: &base2\n    pw: t\n  enabled: *base2\n", True),
    # Templates read with keys named by their blocks (Skeleton.block_keys): ours' control
    # lines closed the document's block above `spec` (`spec‹^›`), theirs edited inside it.
    ("a key whose blocks ours changed takes theirs' edit inside it (a template's guard)", "mark",
     "kind: A\nspec:\n  x‹9›: 1\n  y: 2\n",
     "kind: A\nspec‹^›:\n  x‹›: 1\n  y: 2\n",
     "kind: A\nspec:\n  x‹9›: 5\n  y: 2\n",
     "kind: A\nspec‹^›:\n  x‹›: 5\n  y: 2\n", False),
    # Ours re-enclosed base's keys in block 9 (an `end` above them closed the document's
    # opening block), theirs added a top-level key in block 9: it stands where ours put the
    # block (follow_reenclosure; templates-mark-1261-1098).
    ("a key theirs added in a block whose keys ours re-enclosed stands where ours put the block", "mark",
     "kind: A\nspec:\n  x\u20399\u203a: 1\n",
     "kind: A\nspec:\n  x\u2039^.9\u203a: 1\n",
     "kind: A\nspec:\n  x\u20399\u203a: 1\nz\u20399\u203a: 3\n",
     "kind: A\nspec:\n  x\u2039^.9\u203a: 1\nz\u2039^.9\u203a: 3\n", False),
    ("the same with theirs' key in no block at all: theirs' guard lost", "mark",
     "kind: A\nspec:\n  x\u20399\u203a: 1\n",
     "kind: A\nspec:\n  x\u2039^.9\u203a: 1\n",
     "kind: A\nspec:\n  x\u20399\u203a: 1\nz\u20399\u203a: 3\n",
     "kind: A\nspec:\n  x\u2039^.9\u203a: 1\nz: 3\n", True),
    ("the same where ours re-enclosed only one of base's keys in the block: theirs' guard lost", "mark",
     "kind: A\nspec:\n  x\u20399\u203a: 1\n  w\u20399\u203a: 2\n",
     "kind: A\nspec:\n  x\u2039^.9\u203a: 1\n  w\u20399\u203a: 2\n",
     "kind: A\nspec:\n  x\u20399\u203a: 1\n  w\u20399\u203a: 2\nz\u20399\u203a: 3\n",
     "kind: A\nspec:\n  x\u2039^.9\u203a: 1\n  w\u20399\u203a: 2\nz\u2039^.9\u203a: 3\n", True),
    ("a key whose blocks ours changed: a result with base's blocks loses ours' change", "mark",
     "kind: A\nspec:\n  x‹9›: 1\n  y: 2\n",
     "kind: A\nspec‹^›:\n  x‹›: 1\n  y: 2\n",
     "kind: A\nspec:\n  x‹9›: 5\n  y: 2\n",
     "kind: A\nspec:\n  x‹9›: 5\n  y: 2\n", True),
    ("a key both sides moved into different blocks is a conflict, not either", "mark",
     "kind: A\nspec:\n  x: 1\n",
     "kind: A\nspec:\n  x‹9›: 1\n",
     "kind: A\nspec:\n  x‹8›: 1\n",
     "kind: A\nspec:\n  x‹8›: 1\n", True),
    ("theirs' unkeyed list taken whole may keep the blocks ours' control lines put its keys in", "theirs",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹9›: 1\n",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹›: 1\n",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹9›: 5\n",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹›: 5\n", False),
    ("theirs' unkeyed list taken whole: ours' value inside is not theirs'", "theirs",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹9›: 1\n",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹›: 1\n",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹9›: 5\n",
     "kind: A\nspec:\n  l:\n  - a: 1\n    x‹›: 1\n", True),
    # Theirs split an unkeyed element in two alike copies, one edited here, one there; ours
    # edited it: ours' edit standing in either copy is a merge of the element
    # (templates-mark-1141-570), in no element at all it is lost.
    ("an edit of an element the other side split in two copies may stand in the second copy",
     "side:theirs",
     "kind: A\nspec:\n  e:\n  - {path: a, scheme: http, port: p}\n  - {path: b}\n",
     "kind: A\nspec:\n  e:\n  - {path: a, scheme: http, port: p, tier: 3}\n  - {path: b}\n",
     "kind: A\nspec:\n  e:\n  - {path: b}\n  - {path: a, scheme: http, port: p-v2}\n"
     "  - {path: a, scheme: staging, port: p}\n",
     "kind: A\nspec:\n  e:\n  - {path: b}\n  - {path: a, scheme: http, port: p-v2}\n"
     "  - {path: a, scheme: staging, port: p, tier: 3}\n", False),
    ("an edit of an element the other side split in two copies, put in an unrelated element, is lost",
     "side:theirs",
     "kind: A\nspec:\n  e:\n  - {path: a, scheme: http, port: p}\n  - {path: b}\n",
     "kind: A\nspec:\n  e:\n  - {path: a, scheme: http, port: p, tier: 3}\n  - {path: b}\n",
     "kind: A\nspec:\n  e:\n  - {path: b}\n  - {path: a, scheme: http, port: p-v2}\n"
     "  - {path: a, scheme: staging, port: p}\n",
     "kind: A\nspec:\n  e:\n  - {path: b, tier: 3}\n  - {path: a, scheme: http, port: p-v2}\n"
     "  - {path: a, scheme: staging, port: p}\n", True),
    # Ours moved an element and edited it, theirs swapped two others: both reordered the
    # list, so ours' order wins under ours (templates-ours-1143-206); where ours edited the
    # element in place, theirs' swap is the only reorder and must stand.
    ("an element a side moved and edited is a reorder: ours' order wins under ours", "ours",
     "kind: A\nspec:\n  e:\n  - {path: a, port: p}\n  - {path: b}\n  - {path: c}\n  - {path: d}\n",
     "kind: A\nspec:\n  e:\n  - {path: b}\n  - {path: c}\n  - {path: d}\n  - {path: a, port: q}\n",
     "kind: A\nspec:\n  e:\n  - {path: a, port: p}\n  - {path: b}\n  - {path: d}\n  - {path: c}\n",
     "kind: A\nspec:\n  e:\n  - {path: b}\n  - {path: c}\n  - {path: d}\n  - {path: a, port: q}\n", False),
    ("an element a side edited in place is no reorder: the other side's swap stands under ours", "ours",
     "kind: A\nspec:\n  e:\n  - {path: a, port: p}\n  - {path: b}\n  - {path: c}\n  - {path: d}\n",
     "kind: A\nspec:\n  e:\n  - {path: a, port: q}\n  - {path: b}\n  - {path: c}\n  - {path: d}\n",
     "kind: A\nspec:\n  e:\n  - {path: a, port: p}\n  - {path: b}\n  - {path: d}\n  - {path: c}\n",
     "kind: A\nspec:\n  e:\n  - {path: a, port: q}\n  - {path: b}\n  - {path: c}\n  - {path: d}\n", True),
    # A key theirs deleted with its guard, ours edited: ours' side holds ours' key in its
    # block; the guard went with theirs' deletion, no change of its own (seed 1136 merge 714).
    ("a key's guard follows the key a side deleted: the other side keeps both", "side:ours",
     "kind: A\nspec:\n  x‹9›:\n  - a\n  y: 2\n",
     "kind: A\nspec:\n  x‹9›:\n  - a\n  - b\n  y: 2\n",
     "kind: A\nspec:\n  y: 3\n",
     "kind: A\nspec:\n  x‹9›:\n  - a\n  - b\n  y: 3\n", False),
    ("a key one side moved into another block and the other deleted is still a conflict", "mark",
     "kind: A\nspec:\n  x‹9›: 1\n  y: 2\n",
     "kind: A\nspec:\n  y: 2\n",
     "kind: A\nspec:\n  x‹a›: 1\n  y: 2\n",
     "kind: A\nspec:\n  y: 2\n", True),
    # Ours moved a list item out of a block (its `‹item›` guard, Skeleton.block_keys), theirs
    # added a key to it: the key stands where the item stands (templates-*-1145-3398).
    ("a key added to an item the other side moved into other blocks goes with the item", "mark",
     "kind: A\nspec:\n  v:\n  - name: a\n  - ‹item›‹9›: null\n    name: b\n",
     "kind: A\nspec:\n  v:\n  - ‹item›‹^›: null\n    name: b\n  - name: a\n",
     "kind: A\nspec:\n  v:\n  - name: a\n  - ‹item›‹9›: null\n    name: b\n    k: 1\n",
     "kind: A\nspec:\n  v:\n  - ‹item›‹^›: null\n    name: b\n    k: 1\n  - name: a\n", False),
    ("an item a side moved into other blocks: a result with base's blocks loses the move", "mark",
     "kind: A\nspec:\n  v:\n  - name: a\n  - ‹item›‹9›: null\n    name: b\n",
     "kind: A\nspec:\n  v:\n  - ‹item›‹^›: null\n    name: b\n  - name: a\n",
     "kind: A\nspec:\n  v:\n  - name: a\n  - ‹item›‹9›: null\n    name: b\n    k: 1\n",
     "kind: A\nspec:\n  v:\n  - ‹item›‹9›: null\n    name: b\n    k: 1\n  - name: a\n", True),
    # A key whose base value is only an action's output (`‹9›`, a content key) is null to
    # kyaml; theirs left it with no action line below: no clear (templates-theirs-1145-3998).
    ("a key holding only action output in base, null in theirs, may stay null", "theirs",
     "kind: A\nspec:\n  m:\n    ‹9›: null\n  x: 1\n",
     "kind: A\nspec:\n  m:\n    ‹9›: null\n  x: 2\n",
     "kind: A\nspec:\n  m:\n  x: 1\n",
     "kind: A\nspec:\n  m:\n  x: 2\n", False),
    ("a key holding YAML data in base, null in theirs, is cleared", "theirs",
     "kind: A\nspec:\n  m:\n    a: 1\n  x: 1\n",
     "kind: A\nspec:\n  m:\n    a: 1\n  x: 2\n",
     "kind: A\nspec:\n  m:\n  x: 1\n",
     "kind: A\nspec:\n  m:\n  x: 2\n", True),
    # Ours deleted one rule and cut another down to one of its three leaves, theirs deleted
    # the second: theirs' side without ours' cut-down rule is the deletion winning over the
    # edit, not ours' new rule lost (templates-theirs-1145-1358).
    ("an element a side cut down to a few of its leaves, which the other deleted, is modified", "side:theirs",
     "kind: A\nspec:\n  e:\n  - {p: 53}\n  - {ports: [{port: 80, protocol: TCP}], to: [{sel: x}]}\n",
     "kind: A\nspec:\n  e:\n  - {to: [{sel: x}]}\n",
     "kind: A\nspec:\n  e:\n  - {p: 53}\n",
     "kind: A\nspec:\n  e: []\n", False),
    ("an element a side added beside one the other deleted, with a leaf of its own, is new", "side:theirs",
     "kind: A\nspec:\n  e:\n  - {p: 53}\n  - {ports: [{port: 80, protocol: TCP}], to: [{sel: x}]}\n",
     "kind: A\nspec:\n  e:\n  - {to: [{sel: x}], from: z}\n",
     "kind: A\nspec:\n  e:\n  - {p: 53}\n",
     "kind: A\nspec:\n  e: []\n", True),
    ("an `if`'s and its `else`'s same key stay two keys", "mark",
     "kind: A\nspec:\n  x‹9›: 1\n  x‹a›: 2\n",
     "kind: A\nspec:\n  x‹9›: 1\n",
     "kind: A\nspec:\n  x‹9›: 1\n  x‹a›: 3\n",
     "kind: A\nspec:\n  x‹9›: 1\n", True),
]

# One file's conflicted result judged as a run judges it (judge, line fallback): (name, whether
# it is a template, base, ours, theirs, result, whether it has a finding).
_SM = """{{- if .x }}
kind: K
metadata:
  name: {{ .n }}
  labels:
    {{- with .l }}
      {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  path: {{ .p }}
  port: 1
{{- end }}
"""
_SM_OURS = _SM.replace("    {{- with .l }}\n", "    # pinned\n")
_SM_THEIRS = _SM.replace("    {{- with .l }}\n", "").replace("path: {{ .p }}", "path: v2")
_SM_MARKED = ("{{- if .x }}\nkind: K\nmetadata:\n<<<<<<< ours\n" + "".join(_SM_OURS.splitlines(True)[3:10])
              + "=======\n" + "".join(_SM_THEIRS.splitlines(True)[3:9]) + ">>>>>>> theirs\n  port: 1\n{{- end }}\n")
# A Certificate's namespace ours edited and theirs moved into the annotations' `with`, ours
# also moving `privateKey` out of its `with` (adversary templates-mark-1181-46, shrunk).
_NS = """kind: Certificate
metadata:
  {{- with .Values.a }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  name: x
  namespace: ns
spec:
  {{- with .Values.p }}
  privateKey: 1
  {{- end }}
  dnsNames:
    - a
"""
_NS_OURS = _NS.replace("ns\n", "ns-staging\n").replace(
    "  {{- with .Values.p }}\n  privateKey: 1\n", "  privateKey: 1\n  {{- with .Values.p }}\n")
_NS_THEIRS = _NS.replace("  namespace: ns\n", "").replace(
    "  {{- with .Values.a }}\n", "  {{- with .Values.a }}\n  namespace: ns\n") + "    - b\n"
_NS_MARKED = ("kind: Certificate\nmetadata:\n  {{- with .Values.a }}\n<<<<<<< ours\n"
              + "".join(_NS_OURS.splitlines(True)[3:8]) + "=======\n"
              + "".join(_NS_THEIRS.splitlines(True)[3:8]) + ">>>>>>> theirs\n"
              + "".join(_NS_OURS.splitlines(True)[8:]) + "    - b\n")
JUDGE_TESTS = [
    # The halves give back ours' and theirs' files (the lines above the conflict write text,
    # so it does not span the file): the whole file in conflict, the lines all three share
    # left outside; ours' half keeps ours' `path` (adversary templates-mark-1149-8970).
    ("halves-are-the-inputs", True, _SM, _SM_OURS, _SM_THEIRS, _SM_MARKED, False),
    # The same with theirs' `port: 2` merged below the conflict: ours' half is no ours file
    # and drops theirs' `path`.
    ("half-drops-a-change", True, _SM, _SM_OURS, _SM_THEIRS.replace("port: 1", "port: 2"),
     _SM_MARKED.replace("port: 1", "port: 2"), True),
    # Theirs' move of the identity field `namespace` into a block is a change of it, as of any
    # key: ours' edit of it conflicts with that, and theirs' half may keep its own namespace
    # beside ours' move of `privateKey` outside the conflict.
    ("identity-field-moved-into-a-block-conflicts-with-its-edit", True, _NS, _NS_OURS, _NS_THEIRS,
     _NS_MARKED, False),
    # Read with the field's blocks no part of it, theirs' half holding ours' edit on its moved
    # line holds both changes, as a conflict asking only where the lines go has it.
    ("identity-field-moved-into-a-block-half-holding-the-edit-too", True, _NS, _NS_OURS,
     _NS_THEIRS, _NS_MARKED.replace("=======\n  namespace: ns\n", "=======\n  namespace: ns-staging\n"),
     False),
    # Where theirs left `namespace` where it stood, ours' edit of it conflicts with nothing:
    # theirs' half that keeps ours' move but base's namespace loses ours' edit.
    ("identity-field-edit-lost-in-a-half", True, _NS, _NS_OURS, _NS + "    - b\n",
     _NS_MARKED.replace("=======\n  namespace: ns\n", "=======\n").replace(
         "  name: x\n>>>>>>>", "  name: x\n  namespace: ns\n>>>>>>>"), True),
]

# spans_the_file read through silent_lines: (name, conflicted text, whether it spans the file).
SPAN_TESTS = [
    ("a conflict opening inside the file's leading template comment spans the file "
     "(templates-theirs-1138-710)",
     "{{- /*\nGenerated\n<<<<<<< ours\n*/ -}}\nx: 1\n=======\n*/ -}}\nx: 2\n>>>>>>> theirs\n", True),
    ("a conflict after the leading template comment, data after it: not the file",
     "{{- /*\nGenerated\n*/ -}}\n<<<<<<< ours\nx: 1\n=======\nx: 2\n>>>>>>> theirs\ny: 1\n", False),
    ("a line after a conflict one side leaves outside the comment is data",
     "{{- /*\n<<<<<<< ours\n*/ -}}\n=======\n>>>>>>> theirs\ny: 1\n*/ -}}\n", False),
]

# Package verdicts (judge_package): (name, policy, base, ours, theirs, result, whether wrong).
# Folders as {path: text}; a result holding markers is a conflict of git's line merge.
PKG_BASE = {"a.yaml": "kind: A\nmetadata:\n  name: a\nx: 1\n", "v.yaml": "k: 1\nj: 1\n"}
PKG_OURS = {"a.yaml": "kind: A\nmetadata:\n  name: a\nx: 2\n"}
PKG_THEIRS = {"a.yaml": "kind: A\nmetadata:\n  name: a\nx: 3\n", "v.yaml": "k: 2\nj: 1\n"}
PKG_MARKED = "kind: A\nmetadata:\n  name: a\n<<<<<<< ours\nx: 2\n=======\nx: %s\n>>>>>>> theirs\n"
PKG_V = "a: %d\nb: %d\nc: %d\nd: 1\n"
PKG_TWIN = {"x/v.yaml": PKG_V % (1, 1, 1), "y/v.yaml": PKG_V % (1, 1, 1)}
PKG_WHOLE = "<<<<<<<\n=======\n" + PKG_V + ">>>>>>> theirs\n"
# Ours renamed the Ingress of a file theirs deleted and added a second under the new name
# (packages-mark-1149-87, made small): the rename is a change against the deletion, the second
# one ours' own.
PKG_ING = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\nspec:\n  tls:\n  - secretName: %s\n"
PKG_ING_OURS = PKG_ING % ("web-renamed", "tls") + "---\n" + PKG_ING % ("web-renamed", "canary")
PKG_MOVED = "# header\na: %s\nb: %s\n"
PKG_ING_MARKED = "<<<<<<< ours\n%s=======\n>>>>>>> theirs\n---\n%s"

# A ConfigMap both sides renamed b, ours adding a field (and moving its file), theirs
# also keeping a copy under the old name, edited (packages-ours-1150-247, shrunk).
PKG_CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    p: q\n    r: s\ndata:\n  k: "1"\n'
PKG_CM_OURS = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels:\n    p: q\n    r: s\nx: ~\ndata:\n  k: "1"\n'
PKG_CM_THEIRS = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels:\n    r: s\n    p: q\ndata:\n  k: "1"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    p: q\n    r: s\ndata:\n  k: "2"\n'
# A values file both sides moved apart, theirs adding another at ours' path (packages-mark-1151-499,
# shrunk): the whole file in conflict there, ours' move of it against theirs' other file.
PKG_NEW = "q: 9\nz: 8\n"
PKG_APART = {"v.yaml": "<<<<<<< ours\n" + PKG_V % (2, 1, 1) + "=======\n" + PKG_NEW + ">>>>>>> theirs\n"}
# A document both sides renamed apart, each editing another field, beside a conflict in another
# file (packages-ours-1152-503, shrunk): under ours, ours' name and both edits on both sides.
PKG_REN = "kind: A\nmetadata:\n  name: %s\n  labels:%s\nx: %d\ny: %d\nspec:\n  a: 1\n  b: 2\n  c: 3\n  d: 4\n  e: 5\n"
PKG_REN_C = "<<<<<<< ours\nk: 2\n=======\nk: 3\n>>>>>>> theirs\n"
# Two near-copies in base, theirs moved both, editing the first; ours edited the first in place
# (packages-theirs-1172-1495, made small): the second's copy is more like the first than the
# first's own move, which is clear once the second's move has taken its copy.
PKG_COPY = "a: %s\nb: %s\nc: 1\nd: %s\ne: %s\n"
PKG_COPIES = {"x/a.yaml": PKG_COPY % (1, 1, 1, 1), "x/b.yaml": PKG_COPY % (1, 1, 1, 2)}
PKG_COPIES_OURS = {"x/a.yaml": PKG_COPY % (1, 1, 5, 1), "x/b.yaml": PKG_COPY % (1, 1, 1, 2)}
PKG_COPIES_THEIRS = {"m/a.yaml": PKG_COPY % (3, 3, 1, 1), "m/b.yaml": PKG_COPY % (1, 1, 1, 2)}
# Ours moved a values file and added an alias of a map it anchored; theirs flipped a flag in
# it (packages-theirs-1182-727).
PKG_ALIASED = "crds:%s\n  keep: false\n  note: x\n%sserver:\n  enabled: %s\n  hosts:\n%s  - a.example.com\n%s"
PKG_ALIASED_BASE = {"v.yaml": PKG_ALIASED % ("", "", "true", "", "")}
PKG_ALIASED_OURS = {"v2.yaml": PKG_ALIASED % (" &base", "  set: y\n", "true", "  - b.example.com\n",
                                              "  pull: *base\n")}
PKG_ALIASED_THEIRS = {"v.yaml": PKG_ALIASED % ("", "", "false", "", "")}
# A Service whose file theirs moved, adding a port, and which ours repeated in place
# (packages-theirs-1252-583, made small).
PKG_SVC = "kind: Service\nmetadata:\n  name: s\nspec:\n  selector:\n    app: s\n  ports:\n  - name: grpc\n    port: 1\n%s"
PKG_SVC_TWICE = PKG_SVC % "" + "---\n" + PKG_SVC % ""
PKG_PORT = "  - name: h\n    port: 2\n"

PKG_ING_TWICE = ("apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: %s\nspec:\n"
           "  rules:\n  - host: a.example.com\n")

PACKAGE_TESTS = [
    ("both moved a values file to one path, theirs put a different file at the old path: that file "
     "is new, theirs' as it is, and the moved copies merge at the new path (packages-theirs-1292-1271)",
     "theirs", {"v.yaml": PKG_V % (1, 1, 1)}, {"m/v.yaml": PKG_V % (2, 1, 1)},
     {"m/v.yaml": PKG_V % (1, 2, 1), "v.yaml": PKG_NEW},
     {"m/v.yaml": PKG_V % (2, 2, 1), "v.yaml": PKG_NEW}, False),
    ("theirs alone moved a values file and put a different one at the old path, ours edited base's: "
     "ours' edit follows the move, theirs' new file stands as it is", "mark",
     {"v.yaml": PKG_V % (1, 1, 1)}, {"v.yaml": PKG_V % (2, 1, 1)},
     {"m/v.yaml": PKG_V % (1, 2, 1), "v.yaml": PKG_NEW},
     {"m/v.yaml": PKG_V % (2, 2, 1), "v.yaml": PKG_NEW}, False),
    ("the same where ours' edit is merged into theirs' new file instead", "mark",
     {"v.yaml": PKG_V % (1, 1, 1)}, {"v.yaml": PKG_V % (2, 1, 1)},
     {"m/v.yaml": PKG_V % (1, 2, 1), "v.yaml": PKG_NEW},
     {"m/v.yaml": PKG_V % (1, 2, 1), "v.yaml": "a: 2\n" + PKG_NEW}, True),
    ("the same where ours' edit of the moved file is lost", "theirs",
     {"v.yaml": PKG_V % (1, 1, 1)}, {"m/v.yaml": PKG_V % (2, 1, 1)},
     {"m/v.yaml": PKG_V % (1, 2, 1), "v.yaml": PKG_NEW},
     {"m/v.yaml": PKG_V % (1, 2, 1), "v.yaml": PKG_NEW}, True),
    ("ours deleted a file, theirs renamed its Ingress and repeated it equal: ours' side holds one "
     "copy, theirs' addition, whichever copy is read as the rename (packages-mark-1291-7787)", "mark",
     {"i.yaml": PKG_ING_TWICE % "web"}, {}, {"i.yaml": PKG_ING_TWICE % "web2" + "---\n" + PKG_ING_TWICE % "web2"},
     {"i.yaml": "<<<<<<< ours\n=======\n" + PKG_ING_TWICE % "web2" + ">>>>>>> theirs\n---\n" + PKG_ING_TWICE % "web2"},
     False),
    ("the same with theirs' file kept whole: ours' side holds the Ingress ours deleted", "mark",
     {"i.yaml": PKG_ING_TWICE % "web"}, {}, {"i.yaml": PKG_ING_TWICE % "web2" + "---\n" + PKG_ING_TWICE % "web2"},
     {"i.yaml": PKG_ING_TWICE % "web2" + "---\n" + PKG_ING_TWICE % "web2"}, True),
    ("theirs moved a Service's file and added a port, ours repeated the Service in place; the whole "
     "file's conflict at theirs' path, ours' half ours' own file from the old path: theirs' port is "
     "no loss of ours' side (packages-theirs-1252-583)", "theirs",
     {"a.yaml": PKG_SVC % ""}, {"a.yaml": PKG_SVC_TWICE}, {"m/a.yaml": PKG_SVC % PKG_PORT},
     {"m/a.yaml": "<<<<<<< ours\n" + PKG_SVC_TWICE + "=======\n" + PKG_SVC % PKG_PORT + ">>>>>>> theirs\n"},
     False),
    ("the same where ours' half is base's file: ours' copy and theirs' port lost", "theirs",
     {"a.yaml": PKG_SVC % ""}, {"a.yaml": PKG_SVC_TWICE}, {"m/a.yaml": PKG_SVC % PKG_PORT},
     {"m/a.yaml": "<<<<<<< ours\n" + PKG_SVC % "" + "=======\n" + PKG_SVC % PKG_PORT + ">>>>>>> theirs\n"},
     True),
    ("ours moved a file and added an alias to it, whose expanded copy made it look under half "
     "like base's: read as written it is a move, theirs' edit lands in it "
     "(packages-theirs-1182-727)", "theirs", PKG_ALIASED_BASE, PKG_ALIASED_OURS, PKG_ALIASED_THEIRS,
     {"v2.yaml": PKG_ALIASED % (" &base", "  set: y\n", "false", "  - b.example.com\n",
                                "  pull: *base\n")}, False),
    ("the same where theirs' edit is lost", "theirs", PKG_ALIASED_BASE, PKG_ALIASED_OURS,
     PKG_ALIASED_THEIRS, PKG_ALIASED_OURS, True),
    ("theirs moved two near-copies, ours edited the one whose move is clear only once the other's "
     "is taken: ours' edit in theirs' moved file (packages-theirs-1172-1495)", "theirs",
     PKG_COPIES, PKG_COPIES_OURS, PKG_COPIES_THEIRS,
     {"m/a.yaml": PKG_COPY % (3, 3, 5, 1), "m/b.yaml": PKG_COPY % (1, 1, 1, 2)}, False),
    ("the same where ours' edit is lost", "theirs",
     PKG_COPIES, PKG_COPIES_OURS, PKG_COPIES_THEIRS, PKG_COPIES_THEIRS, True),
    ("both moved a file apart, theirs adding another where ours put it: the whole file's conflict "
     "there, and theirs' moved copy against nothing (packages-mark-1151-499)", "mark",
     {"c/v.yaml": PKG_V % (1, 1, 1)}, {"v.yaml": PKG_V % (2, 1, 1)},
     {"u/v.yaml": PKG_V % (1, 1, 2), "v.yaml": PKG_NEW},
     {**PKG_APART, "u/v.yaml": PKG_WHOLE % (1, 1, 2)}, False),
    ("the same where theirs' side drops theirs' moved copy", "mark",
     {"c/v.yaml": PKG_V % (1, 1, 1)}, {"v.yaml": PKG_V % (2, 1, 1)},
     {"u/v.yaml": PKG_V % (1, 1, 2), "v.yaml": PKG_NEW},
     {**PKG_APART, "u/v.yaml": "<<<<<<< ours\n=======\n>>>>>>> theirs\n"}, True),
    ("under ours, a document both renamed apart keeps ours' name on theirs' side of a conflict "
     "elsewhere (packages-ours-1152-503)", "ours",
     {"a.yaml": PKG_REN % ("a", "\n    p: q", 1, 1), "c.yaml": "k: 1\n"},
     {"a.yaml": PKG_REN % ("a2", "\n    p: q", 2, 1), "c.yaml": "k: 2\n"},
     {"a.yaml": PKG_REN % ("a3", " {}", 1, 2), "c.yaml": "k: 3\n"},
     {"a.yaml": PKG_REN % ("a2", " {}", 2, 2), "c.yaml": PKG_REN_C}, False),
    ("the same where theirs' edit of the renamed document is lost", "ours",
     {"a.yaml": PKG_REN % ("a", "\n    p: q", 1, 1), "c.yaml": "k: 1\n"},
     {"a.yaml": PKG_REN % ("a2", "\n    p: q", 2, 1), "c.yaml": "k: 2\n"},
     {"a.yaml": PKG_REN % ("a3", " {}", 1, 2), "c.yaml": "k: 3\n"},
     {"a.yaml": PKG_REN % ("a2", " {}", 2, 1), "c.yaml": PKG_REN_C}, True),
    ("theirs' side of the right merge holds only ours' second Ingress of a repeated name; read by its "
     "order it was the renamed one (packages-mark-1149-87)", "mark",
     {"w.yaml": PKG_ING % ("web", "tls")}, {"w.yaml": PKG_ING_OURS}, {},
     {"w.yaml": PKG_ING_MARKED % (PKG_ING % ("web-renamed", "tls"), PKG_ING % ("web-renamed", "canary"))}, False),
    ("the same where theirs' side keeps the renamed Ingress and drops ours' second one", "mark",
     {"w.yaml": PKG_ING % ("web", "tls")}, {"w.yaml": PKG_ING_OURS}, {},
     {"w.yaml": PKG_ING_MARKED % (PKG_ING % ("web-renamed", "canary"), PKG_ING % ("web-renamed", "tls"))}, True),
    ("under ours, theirs' side of a line-merge conflict keeps the file ours deleted deleted "
     "(packages-ours-1145-499)", "ours", PKG_BASE, PKG_OURS, PKG_THEIRS, {"a.yaml": PKG_MARKED % 3}, False),
    ("under theirs, ours' side keeps theirs' edit of the file ours deleted", "theirs",
     PKG_BASE, PKG_OURS, PKG_THEIRS, {"a.yaml": PKG_MARKED % 3, "v.yaml": PKG_THEIRS["v.yaml"]}, False),
    ("the same where the conflict's theirs side loses theirs' value", "ours",
     PKG_BASE, PKG_OURS, PKG_THEIRS, {"a.yaml": PKG_MARKED % 1}, True),
    ("two like files: ours deleted both and added one like them, theirs edited one and moved the "
     "other; the file-wide conflicts keep theirs' files beside ours' (packages-mark-1144-8063)", "mark",
     PKG_TWIN, {"z/v.yaml": PKG_V % (2, 1, 1)}, {"x/v.yaml": PKG_V % (1, 2, 1), "v.yaml": PKG_V % (1, 1, 2)},
     {"z/v.yaml": PKG_V % (2, 1, 1), "x/v.yaml": PKG_WHOLE % (1, 2, 1), "v.yaml": PKG_WHOLE % (1, 1, 2)}, False),
    ("the same where theirs' side of a conflict drops theirs' moved file", "mark",
     PKG_TWIN, {"z/v.yaml": PKG_V % (2, 1, 1)}, {"x/v.yaml": PKG_V % (1, 2, 1), "v.yaml": PKG_V % (1, 1, 2)},
     {"z/v.yaml": PKG_V % (2, 1, 1), "x/v.yaml": PKG_WHOLE % (1, 2, 1), "v.yaml": "<<<<<<< ours\nk: 1\n=======\n>>>>>>> theirs\n"}, True),
    ("both sides moved a file to one path, ours deleting its fields, theirs nulling one: a clean "
     "merge with the field gone (packages-mark-1149-9943)", "mark",
     {"c.yaml": PKG_MOVED % (1, "x")}, {"u/c.yaml": "d: 1\n"}, {"u/c.yaml": PKG_MOVED % ("~", "x")},
     {"u/c.yaml": "d: 1\n"}, False),
    ("the same where theirs changed the field ours deleted: the clean merge loses it", "mark",
     {"c.yaml": PKG_MOVED % (1, "x")}, {"u/c.yaml": "d: 1\n"}, {"u/c.yaml": PKG_MOVED % (2, "x")},
     {"u/c.yaml": "d: 1\n"}, True),
    ("a file-wide conflict over a file ours moved, at theirs' path: theirs' side is theirs' file, "
     "ours' moved copy no lost document (packages-ours-1150-247)", "ours",
     {"a.yaml": PKG_CM}, {"moved/a.yaml": PKG_CM_OURS}, {"a.yaml": PKG_CM_THEIRS},
     {"a.yaml": "<<<<<<< ours\n" + PKG_CM_OURS + "=======\n" + PKG_CM_THEIRS + ">>>>>>> theirs\n"}, False),
    ("the same where theirs' side drops theirs' edited copy", "ours",
     {"a.yaml": PKG_CM}, {"moved/a.yaml": PKG_CM_OURS}, {"a.yaml": PKG_CM_THEIRS},
     {"a.yaml": "<<<<<<< ours\n" + PKG_CM_OURS + "=======\n" + PKG_CM_THEIRS.split("---")[0] + ">>>>>>> theirs\n"}, True),
]


# Skeleton.block_keys on a template: (name, template, the keys of each item of spec.v as
# guards_as_fields reads them).
BLOCK_TESTS = [
    ("an item inside a block its list is not in has the guard; its keys have none of their own",
     "kind: A\nspec:\n  v:\n    - name: a\n      k: 1\n    {{- if .x }}\n    - name: b\n      k: 2\n    {{- end }}\n",
     [["name", "k"], ["\u2039item\u203a\u2039guard\u203a", "name", "k"]]),
    ("a key inside a block its item is not in has a guard of its own",
     "kind: A\nspec:\n  v:\n    - name: a\n      {{- if .x }}\n      k: 1\n      {{- end }}\n",
     [["name", "k", "k\u2039guard\u203a"]]),
    ("below a bare `-`, the item's guard whichever key comes first",
     "kind: A\nspec:\n  v:\n    {{- if .x }}\n    -\n      k: 1\n    {{- end }}\n",
     [["\u2039item\u203a\u2039guard\u203a", "k"]]),
]

# Skeleton.block_keys on two versions of a template: (name, one, other, whether the guard of
# the key k of spec.v's last item reads the same in both).
GUARD_TESTS = [
    ("a block opened after an `end` closed the document's opening block names its keys "
     "(templates-mark-1261-1098)",
     "{{- if .d }}\nkind: A\nspec:\n  v:\n    - name: a\n{{- end }}\n      {{- with .y }}\n      k: 1\n"
     "      {{- end }}\n",
     "{{- if .d }}\nkind: A\nspec:\n  v:\n    - name: a\n{{- end }}\n      k: 1\n", False),
    ("an item moved into a block leaves the guard of a key inside it as it was (1144-8734)",
     "kind: A\nspec:\n  v:\n    - name: a\n      {{- if .y }}\n      k: 1\n      {{- end }}\n",
     "kind: A\nspec:\n  v:\n    {{- if .x }}\n    - name: a\n      {{- if .y }}\n      k: 1\n      {{- end }}\n"
     "    {{- end }}\n", True),
    ("a key moved into a block of its own inside an item changes its guard",
     "kind: A\nspec:\n  v:\n    - name: a\n      {{- if .y }}\n      k: 1\n      {{- end }}\n",
     "kind: A\nspec:\n  v:\n    - name: a\n      {{- if .x }}\n      {{- if .y }}\n      k: 1\n      {{- end }}\n"
     "      {{- end }}\n", False),
]


def self_test(table, conformance):
    """The oracle's verdict on known answers: the built-in cases above, and (theirs policy) every
    merge3 conformance vector under `conformance`, whose expected result must pass while ours'
    version, where it differs, must not. Exit 1 on any disagreement."""
    bad = 0
    for name, policy, b, o, t, r, wrong in SELF_TESTS:
        texts = (b, o, t)
        if policy.startswith("side:"):
            check = lambda *a, side=policy[5:]: Oracle(table).check_side(side, *a)
        elif policy.startswith("line:"):
            check = Oracle(table, policy[5:]).check_mark
        else:
            check = Oracle(table, policy).check
        viol = two_readings(check, texts, [load_guarded(x) for x in texts], r, load_guarded(r),
                            tie=policy.startswith("side:"))
        if bool(viol) != wrong:
            bad += 1
            print("self-test: %s (%s): %s" % (name, policy, "; ".join(map(str, viol)) or "no violation found"))
    for name, policy, b, o, t, r, wrong in PACKAGE_TESTS:
        # A result without markers is judged as a clean merge.
        marked = any("<<<<<<<" in x for x in r.values())
        status, err = ("conflict", "kmerge: a.yaml: line merge used: x\n") if marked else ("clean", "")
        viol = judge_package(Oracle(table, policy), policy, b, o, t, status, r, err)
        if bool(viol) != wrong:
            bad += 1
            print("self-test: %s (%s): %s" % (name, policy, "; ".join(map(str, viol)) or "no violation found"))
    for name, template, b, o, t, r, wrong in JUDGE_TESTS:
        skeleton = Skeleton() if template else None
        texts = [skeleton.mask(x) for x in (b, o, t)] if skeleton else [b, o, t]
        viol = judge(Oracle(table, "mark"), "mark", texts, [load_docs(x) for x in texts], "conflict", r,
                     "kmerge: a.yaml: line merge used: x\n", skeleton)
        if bool(viol) != wrong:
            bad += 1
            print("self-test: %s (judge): %s" % (name, "; ".join(map(str, viol)) or "no violation found"))
    for name, text, spans in SPAN_TESTS:
        if spans_the_file(silent_lines(text)) != spans:
            bad += 1
            print("self-test: %s: spans_the_file says %s" % (name, not spans))
    for name, text, keys in BLOCK_TESTS:
        sk = Skeleton()
        tagged = sk.block_keys(sk.mask(text) or "")
        got = None
        if tagged is not None:
            got = [[str(plain(k)) for k in item] for item in load_guarded(tagged)[0][("str", "spec")][("str", "v")]]
        if got != keys:
            bad += 1
            print("self-test: %s: block_keys reads %s" % (name, got))
    for name, one, other, same in GUARD_TESTS:
        sk = Skeleton()
        masks = [sk.mask(one), sk.mask(other)]
        guards = [None if m is None or sk.block_keys(m) is None else
                  load_guarded(sk.block_keys(m))[0][("str", "spec")][("str", "v")][-1].get(("str", "k\u2039guard\u203a"))
                  for m in masks]
        if None in guards or (guards[0] == guards[1]) != same:
            bad += 1
            print("self-test: %s: block_keys reads the guards %s" % (name, guards))
    n = 0
    oracle = Oracle(table, "theirs")
    for d in sorted(glob.glob(os.path.join(conformance, "merge3-*", "*"))) + sorted(
            glob.glob(os.path.join(conformance, "kio-merge3-files", "*"))):
        paths = [os.path.join(d, k + ".yaml") for k in ("original", "dest", "updated", "expected")]
        if not all(os.path.isfile(p) for p in paths):
            continue
        docs = [load_docs(open(p, encoding="utf-8").read()) for p in paths]
        n += 1
        viol = oracle.check(*docs)
        if viol:
            bad += 1
            print("self-test: %s: the expected result fails the theirs oracle: %s" % (d, viol[0]))
        if docs[1] != docs[3] and not oracle.check(*docs[:3], docs[1]):
            bad += 1
            print("self-test: %s: ours' version passes the theirs oracle" % d)
    print("adversary: self-test: %d built-in cases, %d conformance vectors, %d disagreements"
          % (len(SELF_TESTS) + len(SPAN_TESTS) + len(PACKAGE_TESTS) + len(BLOCK_TESTS) + len(JUDGE_TESTS), n, bad))
    sys.exit(1 if bad else 0)


def check_dirs(dirs, cmd, policy, git, table, forced):
    """Verdicts on case folders (exit 1 if any has a finding). A folder's why.txt gives the
    policy it ran with unless --policy was given."""
    bad = 0
    for d in dirs:
        pol = policy if forced else (case_meta(d)[1] or policy)
        oracle = Oracle(table, pol)
        if os.path.isdir(os.path.join(d, "base")):
            trees = [read_tree(os.path.join(d, k)) for k in ("base", "ours", "theirs")]
            status, res, err = run_cmd(cmd, pol, False, *trees)
            viol = judge_package(oracle, pol, *trees, status, res, err)
        else:
            texts = [open(os.path.join(d, k + ".yaml"), encoding="utf-8").read() for k in ("base", "ours", "theirs")]
            status, res, err = run_cmd(cmd, pol, git, *texts)
            skeleton = Skeleton() if case_meta(d)[0] == "templates" else None
            if skeleton:
                texts = [skeleton.mask(t) for t in texts]
            viol = judge(oracle, pol, texts, [load_docs(t) for t in texts], status, res, err, skeleton)
        bad += bool(viol)
        cats = sorted({v.cat for v in viol})
        print("%s: %s (policy %s)%s" % (d, status, pol, ", " + ", ".join(cats) if cats else ", ok"))
        for v in viol:
            print("  %s: %s" % (v.cat, v))
    sys.exit(1 if bad else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cmd", help="merge command template with {base} {ours} {theirs} {out} [{policy}]")
    ap.add_argument("--git", action="store_true", help="use `git merge-file -p` as the command (files only)")
    ap.add_argument("--n", type=int, default=1500, help="merges per policy")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--out", help="keep failing cases here as <mode>-<policy>-<seed>-<n>/ folders")
    ap.add_argument("--policy", default="mark", help="mark, theirs, ours, or several with commas (--n merges each)")
    ap.add_argument("--mode", default="mixed", choices=MODES + ["mixed", "files"],
                    help="what is merged: manifests, values files, templates, packages (folders), mixed (each "
                    "mode in turn), files (manifests and values files together)")
    ap.add_argument("--perf", action="store_true", help="also use the perf manifests, cut to a few documents")
    ap.add_argument("--shared", help="the shared data folder (default: found next to the repository)")
    ap.add_argument("--inputs", action="append", help="case folders root(s) holding */base.yaml (default: SHARED/realworld, "
                    "else the repository's tests/realworld)")
    ap.add_argument("--templates", action="store_true", help="the same as --mode templates")
    ap.add_argument("--max-bytes", type=int, help="leave out input files larger than this")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--index", type=int, action="append", help="run only these merge numbers (keeps their files with --out)")
    ap.add_argument("--shrink", metavar="CASE_DIR", nargs="+", help="minimise saved failing cases (writes CASE_DIR/min/)")
    ap.add_argument("--check", metavar="CASE_DIR", nargs="+", help="run the command on case folders and print the "
                    "oracle's verdict")
    ap.add_argument("--skip-kinds", default="", help="comma-separated edit kinds not to make (for triage only)")
    ap.add_argument("--fail-on-findings", action="store_true", help="exit 1 when any merge has a finding (CI)")
    ap.add_argument("--known", metavar="FILE", help="with --fail-on-findings: the merges whose findings are known "
                    "gaps (lines `<mode>-<policy>-<seed>-<n>: reason`); exit 1 on a finding in another merge, or on "
                    "a listed merge that has none left (take it off the list)")
    ap.add_argument("--no-shared", action="store_true", help="use only the repository's inputs and list-key table, "
                    "even where ../shared is present (the same sample in a fresh clone and in CI)")
    ap.add_argument("--strict-lists", action="store_true", help="judge a list where a side's policy won as element "
                    "multisets only, without the sequence reading (its findings are tagged /hunk)")
    ap.add_argument("--self-test", action="store_true", help="check the oracle against known answers (built-in "
                    "cases, the conformance vectors) and exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per failing merge")
    a = ap.parse_args()
    if a.self_test:
        shared = find_shared(a.shared)
        return self_test(load_table(shared), os.path.join(REPO, "tests", "conformance"))
    if a.git:
        a.cmd = GIT_CMD
    if not a.cmd:
        ap.error("--cmd or --git is required")
    if a.templates:
        a.mode = "templates"
    if a.git and a.mode in ("packages", "mixed"):
        ap.error("--git merges files: give --mode manifests, values, templates or files")
    STRICT_LISTS[0] = a.strict_lists
    policies = [p for p in a.policy.split(",") if p]
    if not policies or set(policies) - {"mark", "theirs", "ours"}:
        ap.error("--policy takes mark, theirs and ours")
    shared = None if a.no_shared else find_shared(a.shared)
    table = load_table(shared)
    if a.shrink:
        for d in a.shrink:
            if case_meta(d)[0] == "templates":
                print("adversary: %s: templates are not shrunk (the skeleton ties lines together)" % d)
                continue
            pol = case_meta(d)[1] or policies[0]
            shrink(d, a.cmd, pol, a.git, Oracle(table, pol))
        return
    if a.check:
        return check_dirs(a.check, a.cmd, policies[0], a.git, table, "--policy" in sys.argv)
    t0 = time.time()
    wanted = MODES if a.mode == "mixed" else ["manifests", "values"] if a.mode == "files" else [a.mode]
    roots = a.inputs or ([os.path.join(shared, "realworld")] if shared else [os.path.join(REPO, "tests", "realworld")])
    troots = [os.path.join(shared, "templates")] if shared and not a.inputs else []
    pools = {}
    if set(wanted) & {"manifests", "values", "packages"}:
        files = collect_inputs(shared, roots, a.perf, a.seed, max_bytes=a.max_bytes, plain_roots=troots)
        for cls in ("manifests", "values"):
            pools[cls] = [x for x in files if x.cls == cls]
        pools["packages"] = [x for x in files if x.docs and len(x.text) <= 60000]
        pools["files"] = pools["manifests"] + pools["values"]
    if "templates" in wanted:
        pools["templates"] = collect_inputs(shared, troots or roots, False, a.seed, templates=True, max_bytes=a.max_bytes)
    modes = [m for m in wanted if pools.get(m)]
    if a.mode == "files":
        modes = ["files"] if pools.get("files") else []
    if not modes:
        sys.exit("adversary: no usable inputs")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
    jobs = [(p, modes[i % len(modes)], i, a.seed) for p in policies for i in (a.index or range(a.n))]
    skip = [k for k in a.skip_kinds.split(",") if k]
    unknown = set(skip) - {k[0] for k in KINDS}
    if unknown:
        ap.error("unknown edit kinds: %s" % ", ".join(sorted(unknown)))
    initargs = (pools, table, a.cmd, a.git, a.out, bool(a.index), skip, a.strict_lists)
    if a.jobs > 1 and len(jobs) > 1:
        with multiprocessing.Pool(a.jobs, initializer=init_worker, initargs=initargs) as pool:
            results = list(pool.imap_unordered(run_one, jobs, chunksize=2))
    else:
        init_worker(*initargs)
        results = [run_one(j) for j in jobs]
    results.sort(key=lambda r: (policies.index(r["policy"]), r["i"]))
    n_inputs = {m: len(pools[m]) for m in modes}
    text = report(a, results, n_inputs, time.time() - t0, skip)
    print(text, end="")
    if a.out:
        with open(os.path.join(a.out, "report-%s-%s-%s.txt" % (a.mode, "+".join(policies), a.seed)), "w") as f:
            f.write("$ %s\n%s" % (" ".join(shlex.quote(x) for x in sys.argv), text))
    if a.fail_on_findings:
        found = {"%s-%s-%s-%d" % (r["mode"], r["policy"], a.seed, r["i"]) for r in results if r["viol"]}
        known = read_known(a.known) if a.known else {}
        new = sorted(found - set(known))
        gone = sorted(set(known) - found)
        for name in new:
            print("adversary: %s: a finding not on the known list" % name)
        for name in gone:
            print("adversary: %s: on the known list (%s) but has no finding now: take it off the list" % (name, known[name]))
        if new or gone:
            sys.exit(1)


def read_known(path):
    """The known-gaps list: `<mode>-<policy>-<seed>-<n>: reason` lines (`#` comments and blank
    lines skipped)."""
    known = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(":")
            known[name.strip().lstrip("- ")] = reason.strip()
    return known


CATEGORIES = [("wrong-clean", "wrong clean results"), ("side-loses-data", "conflicts whose side loses data"),
              ("side-unloadable", "conflicts whose side does not load"), ("crash", "crashes and bug reports"),
              ("policy-conflict", "conflicts outside the line fallback (theirs/ours)")]


def report(a, results, n_inputs, secs, skip):
    lines = []
    w = lines.append
    cmdname = "git merge-file" if a.git else a.cmd.split()[0]
    w("command: %s, mode %s, seed %s, inputs %s, %.0f s%s" % (
        cmdname, a.mode, a.seed, ", ".join("%s %d" % kv for kv in n_inputs.items()), secs,
        ", edit kinds skipped: " + ",".join(skip) if skip else ""))
    groups = collections.OrderedDict()
    for r in results:
        groups.setdefault((r["policy"], r["mode"]), []).append(r)
    for (policy, mode), rs in groups.items():
        st = collections.Counter(r["status"] for r in rs)
        cats = collections.Counter(c for r in rs for c in {v[0] for v in r["viol"]})
        w("policy %s, mode %s: %d merges: clean %d, conflict %d, error %d%s; findings: %s" % (
            policy, mode, len(rs), st["clean"], st["conflict"], st["error"],
            ", skipped %d" % st["skipped"] if st["skipped"] else "",
            ", ".join("%s %d" % (c, cats[c]) for c, _ in CATEGORIES) if cats else "none"))
    bad = [r for r in results if r["viol"]]
    for cat, title in CATEGORIES:
        rs = [r for r in bad if any(v[0] == cat for v in r["viol"])]
        if not rs:
            continue
        by_rule, by_kind = collections.Counter(), collections.Counter()
        for r in rs:
            for rule in sorted({v[1] for v in r["viol"] if v[0] == cat}):
                by_rule[rule] += 1
            for k in set(r["eo"]) | set(r["et"]):
                by_kind[k] += 1
        w("%s: %d merges" % (title, len(rs)))
        w("  by rule: " + ", ".join("%s %d" % kv for kv in by_rule.most_common()))
        w("  by edit kind involved: " + ", ".join("%s %d" % kv for kv in by_kind.most_common()))
    kind_all = collections.Counter(k for r in results for k in set(r["eo"]) | set(r["et"]))
    w("edit kinds (merges with that kind): " + ", ".join("%s %d" % kv for kv in sorted(kind_all.items())))
    errs = collections.Counter(r["err"].strip().splitlines()[-1][:100] if r["err"].strip() else "?"
                               for r in results if r["status"] == "error")
    for e, c in errs.most_common(5):
        w("  error x%d: %s" % (c, e))
    if a.verbose:
        for r in bad:
            v = r["viol"][0]
            w("%5d %-8s %-6s %-9s %-16s %-28s %s at %s: %s" % (r["i"], r["policy"], r["mode"][:6], r["status"], v[0],
                                                            v[1], r["name"][:50], v[2], v[3][:160]))
    n = len(results)
    total = collections.Counter(c for r in results for c in {v[0] for v in r["viol"]})
    w("adversary: %d merges (seed %s): clean %d, conflict %d, error %d; merges with findings %d (%s)" % (
        n, a.seed, sum(r["status"] == "clean" for r in results), sum(r["status"] == "conflict" for r in results),
        sum(r["status"] == "error" for r in results), len(bad), ", ".join("%s %d" % (c, total[c]) for c, _ in CATEGORIES)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
