//! Package updates (`kmerge merge3` on folders): every folder under `tests/packages/` is one
//! named test.
//!
//! A case is `tests/packages/<case>/` holding the trees `base/`, `ours/`, `theirs/` and
//! `expected/` and a `case.toml`:
//!
//! ```toml
//! description = "what the case shows"
//! exit = 1                        # default 0
//! args = ["--on-conflict", "theirs"]
//! stderr_contains = ["conflict in"]
//! git = true                      # base and theirs as REV:PATH of a temporary repository
//! output = "new-folder"           # the result goes to -o <new folder>; default: ours in place
//! unchanged = true                # ours must stay as it is (no expected/): errors, dry runs
//! pending = "why it does not pass yet"
//! ```
//!
//! A case with `pending` is a known gap: `expected/` holds the right result, and its test
//! passes while the case still fails, and fails once it passes (the fix moves it out of
//! pending by dropping the key).
//!
//! A copy of `ours/` is updated by the real binary (`kmerge merge3 --base base --ours <copy>
//! --theirs theirs <args>`), and the test named `<case>` compares the resulting tree with
//! `expected/` byte for byte: the same files, the same bytes, the same executable bits. An
//! `expected.diff` beside them is what stdout must be (a dry run's diff). A clean case is run
//! a second time on its own result, with the same arguments, which must change nothing: the
//! update is idempotent.
//!
//! Besides the folders, kyaml's own package tests are rebuilt from the `kio-merge3-files`
//! conformance vectors (each vector is one file of them, its `case.yaml` naming the file):
//! `kio-merge3-files/testdata` and `/testdata2` merge the rebuilt packages with `--on-conflict
//! theirs` and compare every file with the vector's expected result as data, a file the
//! vector expects empty being gone; each file both sides changed is also byte for byte what
//! the file merge (`merge3` on the vector's three files) gives: one engine.
//!
//! With `git = true` the case's `base/` and `theirs/` are committed to a fresh repository as
//! `pkg/` in two tagged commits, and kmerge runs there with `--base v1:pkg --theirs v2:pkg`:
//! the trees come from git's objects, with no checkout. A side folder that is missing is an
//! empty package (git keeps no empty folders).
//!
//! Checks beyond the cases: `relayout/<case>` merges each clean case against random layouts
//! of theirs (its resources dealt anew over files), which must give the same resources with
//! the same data, each in the file theirs moved it to; `deterministic/<case>` runs an update
//! several times, once pinned to one core, and compares trees and messages.

mod common;
mod yaml11;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::case_files::{check_run, read_case_file, refuses_each, subfolders, CaseKeys};
use common::{kmerge_bin, run_guarded, unified_diff, Finished, Merge3, Scratch};
use libtest_mimic::{Arguments, Failed, Trial};

const LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Default)]
struct Case {
    /// `exit`, `args` and `stderr_contains`, as every case file has them.
    keys: CaseKeys,
    git: bool,
    new_folder: bool,
    unchanged: bool,
    /// Why a known gap does not pass yet.
    pending: Option<String>,
}

fn parse_case(text: &str) -> Result<Case, String> {
    const FILE: &str = "case.toml";
    let (mut git, mut new_folder, mut unchanged) = (false, false, false);
    let mut pending = None;
    let boolean = |key: &str, v: &toml::Value| {
        v.as_bool()
            .ok_or_else(|| format!("{FILE}: {key} must be true or false"))
    };
    let keys = read_case_file(FILE, text, |key, value| {
        match key {
            "git" => git = boolean(key, value)?,
            "unchanged" => unchanged = boolean(key, value)?,
            "pending" => match value.as_str() {
                Some(why) if !why.trim().is_empty() => pending = Some(why.to_string()),
                _ => return Err("case.toml: pending must say why the case does not pass".into()),
            },
            "output" => match value.as_str() {
                Some("new-folder") => new_folder = true,
                Some("in-place") => {}
                _ => return Err("case.toml: output must be \"in-place\" or \"new-folder\"".into()),
            },
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(Case {
        keys,
        git,
        new_folder,
        unchanged,
        pending,
    })
}

/// A tree as path → (bytes, executable).
type Tree = BTreeMap<String, (Vec<u8>, bool)>;

fn read_tree(root: &Path) -> Result<Tree, String> {
    let mut tree = Tree::new();
    if !root.exists() {
        return Ok(tree);
    }
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, prefix)) = stack.pop() {
        let entries = fs::read_dir(&dir).map_err(|e| format!("reading {}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = entry.path();
            if path.is_dir() {
                stack.push((path, format!("{prefix}{name}/")));
            } else {
                let bytes =
                    fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
                tree.insert(format!("{prefix}{name}"), (bytes, executable(&path)));
            }
        }
    }
    Ok(tree)
}

#[cfg(unix)]
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(_: &Path) -> bool {
    false
}

/// Copies a tree, executable bits included.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for (path, (bytes, exec)) in read_tree(from)? {
        let target = to.join(&path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        fs::write(&target, bytes).map_err(|e| e.to_string())?;
        #[cfg(unix)]
        if exec {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&target, fs::Permissions::from_mode(0o755))
                .map_err(|e| e.to_string())?;
        }
        #[cfg(not(unix))]
        let _ = exec;
    }
    Ok(())
}

/// What differs between two trees, file by file.
fn tree_diff(expected: &Tree, actual: &Tree) -> Option<String> {
    let mut out = String::new();
    for (path, (bytes, exec)) in expected {
        match actual.get(path) {
            None => out.push_str(&format!("missing: {path}\n")),
            Some((b, _)) if b != bytes => out.push_str(&format!(
                "differs: {path}\n{}",
                unified_diff(bytes, b, &format!("expected/{path}"))
            )),
            Some((_, e)) if e != exec => {
                out.push_str(&format!("{path}: executable {e}, expected {exec}\n"))
            }
            Some(_) => {}
        }
    }
    for path in actual.keys().filter(|p| !expected.contains_key(*p)) {
        out.push_str(&format!("not expected: {path}\n"));
    }
    (!out.is_empty()).then_some(out)
}

/// The versions kmerge reads: folders, or REV:PATH of a repository made for the case.
struct Inputs {
    base: String,
    theirs: String,
    cwd: PathBuf,
}

fn inputs(dir: &Path, case: &Case, scratch: &Scratch) -> Result<Inputs, String> {
    if !case.git {
        let side = |name: &str| -> Result<String, String> {
            let path = dir.join(name);
            if path.is_dir() {
                return Ok(path.display().to_string());
            }
            let empty = scratch.join(&format!("empty-{name}"));
            fs::create_dir_all(&empty).map_err(|e| e.to_string())?;
            Ok(empty.display().to_string())
        };
        return Ok(Inputs {
            base: side("base")?,
            theirs: side("theirs")?,
            cwd: dir.to_path_buf(),
        });
    }
    let repo = scratch.join("repo");
    fs::create_dir_all(&repo).map_err(|e| e.to_string())?;
    let git = |args: &[&str]| -> Result<(), String> {
        let mut cmd = Command::new("git");
        cmd.current_dir(&repo).args(args);
        common::isolate(&mut cmd, scratch.path());
        let out = common::run_git(&mut cmd);
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "git {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    git(&["-c", "init.defaultBranch=main", "init", "-q"])?;
    git(&["config", "user.name", "kmerge test"])?;
    git(&["config", "user.email", "kmerge-test@example.invalid"])?;
    git(&["config", "commit.gpgsign", "false"])?;
    for (side, tag) in [("base", "v1"), ("theirs", "v2")] {
        let pkg = repo.join("pkg");
        let _ = fs::remove_dir_all(&pkg);
        copy_tree(&dir.join(side), &pkg)?;
        git(&["add", "-A", "."])?;
        git(&["commit", "-q", "--allow-empty", "-m", side])?;
        git(&["tag", tag])?;
    }
    // The work tree now holds theirs: the trees must come from git, so it goes.
    fs::remove_dir_all(repo.join("pkg")).map_err(|e| e.to_string())?;
    Ok(Inputs {
        base: "v1:pkg".into(),
        theirs: "v2:pkg".into(),
        cwd: repo,
    })
}

fn run_kmerge(
    inputs: &Inputs,
    ours: &Path,
    case: &Case,
    out: Option<&Path>,
    home: &Path,
) -> Result<Finished, String> {
    let mut merge3 = Merge3::files(&inputs.base, ours, &inputs.theirs);
    if let Some(out) = out {
        merge3 = merge3.output(out);
    }
    let mut cmd = merge3.args(&case.keys.args).command(&inputs.cwd, home);
    let run = run_guarded(&mut cmd, LIMIT)?;
    if run.timed_out {
        return Err(format!("still running after {LIMIT:?}"));
    }
    Ok(run)
}

fn run_case(dir: &Path) -> Result<(), Failed> {
    let text = fs::read_to_string(dir.join("case.toml")).map_err(|e| format!("case.toml: {e}"))?;
    let case = parse_case(&text)?;
    match &case.pending {
        None => run_parsed_case(dir, &case),
        Some(why) => match run_parsed_case(dir, &case) {
            Ok(()) => Err(format!(
                "a pending case passes now ({why}): drop `pending` from its case.toml"
            )
            .into()),
            Err(_) => Ok(()),
        },
    }
}

/// The case's update, compared with `expected/`.
fn run_parsed_case(dir: &Path, case: &Case) -> Result<(), Failed> {
    for side in ["ours", "theirs"] {
        if !dir.join(side).is_dir() {
            return Err(format!("{side}/ is missing").into());
        }
    }
    let expected_dir = if case.unchanged {
        if dir.join("expected").exists() {
            return Err("unchanged = true takes ours/ as the expected tree: drop expected/".into());
        }
        dir.join("ours")
    } else {
        dir.join("expected")
    };
    if !expected_dir.is_dir() {
        return Err("expected/ is missing".into());
    }
    let scratch = Scratch::new();
    let inputs = inputs(dir, case, &scratch)?;
    let work = scratch.join("work");
    copy_tree(&dir.join("ours"), &work)?;
    let out = scratch.join("out");
    let out_arg = case.new_folder.then_some(out.as_path());
    let run = run_kmerge(&inputs, &work, case, out_arg, scratch.path())?;
    check_run(&run, &case.keys)?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    let expected_stdout = dir.join("expected.diff");
    if expected_stdout.is_file() {
        let want = fs::read(&expected_stdout).map_err(|e| e.to_string())?;
        if want != run.stdout {
            return Err(format!(
                "stdout differs from expected.diff:\n{}",
                unified_diff(&want, &run.stdout, "expected.diff")
            )
            .into());
        }
    }
    let expected = read_tree(&expected_dir)?;
    let result_dir = if case.new_folder { &out } else { &work };
    let result = read_tree(result_dir)?;
    if let Some(diff) = tree_diff(&expected, &result) {
        return Err(
            format!("the result differs from expected/:\n{diff}\nstderr:\n{stderr}").into(),
        );
    }
    if case.new_folder {
        let ours_now = read_tree(&work)?;
        if let Some(diff) = tree_diff(&read_tree(&dir.join("ours"))?, &ours_now) {
            return Err(format!("-o changed ours:\n{diff}").into());
        }
    }
    // The update again, on its own result, under the same policy: nothing left to do. (Under
    // another policy a result kyaml's rules gave may rightly conflict: theirs' null cleared
    // from an element that theirs' own list repeats is, to mark mode, a change of ours.)
    if case.keys.exit == 0 && !case.unchanged {
        let same_policy = Case {
            keys: CaseKeys {
                args: case.keys.args.clone(),
                ..CaseKeys::default()
            },
            ..Case::default()
        };
        let again = run_kmerge(&inputs, result_dir, &same_policy, None, scratch.path())?;
        let stderr = String::from_utf8_lossy(&again.stderr);
        if again.code != Some(0) {
            return Err(format!("a second run exits {:?}; stderr:\n{stderr}", again.code).into());
        }
        if let Some(diff) = tree_diff(&expected, &read_tree(result_dir)?) {
            return Err(
                format!("a second run changed the result:\n{diff}\nstderr:\n{stderr}").into(),
            );
        }
    }
    Ok(())
}

/// One file of a kyaml package test, rebuilt from a conformance vector.
struct VectorFile {
    vector: PathBuf,
    /// Its path in the package.
    path: String,
}

/// The vectors of `kio-merge3-files` by kyaml data set (`testdata`, `testdata2`), from the
/// `data:` glob in each `case.yaml` (`kyaml/kio/filters/testdata/*/java/x.yaml`). A vector
/// without an expected result (an expected error) or naming several files is left out.
fn kyaml_packages(root: &Path) -> BTreeMap<String, Vec<VectorFile>> {
    let mut sets: BTreeMap<String, Vec<VectorFile>> = BTreeMap::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(root)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for vector in dirs {
        let Ok(meta) = fs::read_to_string(vector.join("case.yaml")) else {
            continue;
        };
        let Ok(meta) = yaml_serde::from_str::<yaml_serde::Value>(&meta) else {
            continue;
        };
        let data = meta
            .get("source")
            .and_then(|s| s.get("data"))
            .and_then(|d| d.as_str())
            .unwrap_or_default();
        let Some((set, path)) = data
            .strip_prefix("kyaml/kio/filters/")
            .and_then(|rest| rest.split_once("/*/"))
        else {
            continue;
        };
        if path.contains('{') || !vector.join("expected.yaml").is_file() {
            continue;
        }
        sets.entry(set.to_string()).or_default().push(VectorFile {
            vector: vector.clone(),
            path: path.to_string(),
        });
    }
    sets
}

/// A kyaml package test: the rebuilt package merged with `--on-conflict theirs`.
fn kyaml_package(files: &[VectorFile]) -> Result<(), Failed> {
    let scratch = Scratch::new();
    for (side, vector_name) in [
        ("base", "original"),
        ("ours", "dest"),
        ("theirs", "updated"),
    ] {
        fs::create_dir_all(scratch.join(side)).map_err(|e| e.to_string())?;
        for f in files {
            let bytes = fs::read(f.vector.join(format!("{vector_name}.yaml")))
                .map_err(|e| e.to_string())?;
            // An empty file is no file on that side.
            if !bytes.is_empty() {
                let target = scratch.join(side).join(&f.path);
                fs::create_dir_all(target.parent().unwrap_or(scratch.path()))
                    .map_err(|e| e.to_string())?;
                fs::write(target, bytes).map_err(|e| e.to_string())?;
            }
        }
    }
    let inputs = Inputs {
        base: scratch.join("base").display().to_string(),
        theirs: scratch.join("theirs").display().to_string(),
        cwd: scratch.path().to_path_buf(),
    };
    let case = Case {
        keys: CaseKeys {
            args: vec!["--on-conflict".into(), "theirs".into()],
            ..CaseKeys::default()
        },
        ..Case::default()
    };
    let run = run_kmerge(&inputs, &scratch.join("ours"), &case, None, scratch.path())?;
    let stderr = String::from_utf8_lossy(&run.stderr);
    if run.code != Some(0) {
        return Err(format!("exit {:?}; stderr:\n{stderr}", run.code).into());
    }
    let result = read_tree(&scratch.join("ours"))?;
    let mut problems = Vec::new();
    for f in files {
        let expected = fs::read(f.vector.join("expected.yaml")).map_err(|e| e.to_string())?;
        let name = f.vector.file_name().unwrap_or_default().to_string_lossy();
        let got = result.get(&f.path);
        let want_docs = yaml11::load_documents(&String::from_utf8_lossy(&expected))?;
        let want_docs: Vec<_> = want_docs
            .into_iter()
            .filter(|d| *d != yaml11::Value::Null)
            .collect();
        match got {
            None if want_docs.is_empty() => continue,
            None => {
                problems.push(format!("{name}: {} is missing", f.path));
                continue;
            }
            Some((bytes, _)) => {
                let docs = yaml11::load_documents(&String::from_utf8_lossy(bytes))?;
                let docs: Vec<_> = docs
                    .into_iter()
                    .filter(|d| *d != yaml11::Value::Null)
                    .collect();
                if docs != want_docs {
                    problems.push(format!(
                        "{name}: {} differs from expected.yaml as data:\n{}",
                        f.path,
                        unified_diff(&expected, bytes, "expected.yaml")
                    ));
                }
                // Where one side changed nothing the other is taken whole, as git does
                // before it calls any merge driver; otherwise the file merge on the
                // vector's three files gives the same bytes.
                let side =
                    |n: &str| fs::read(f.vector.join(format!("{n}.yaml"))).unwrap_or_default();
                let (b, o, t) = (side("original"), side("dest"), side("updated"));
                if b == o || b == t || o == t {
                    let whole = if b == o { &t } else { &o };
                    if whole != bytes {
                        problems.push(format!("{name}: {} is not the changed side whole", f.path));
                    }
                    continue;
                }
                let out = scratch.join("file-merge.yaml");
                let vector = |n: &str| f.vector.join(format!("{n}.yaml"));
                let mut cmd = Merge3::files(vector("original"), vector("dest"), vector("updated"))
                    .policy("theirs")
                    .output(&out)
                    .command(scratch.path(), scratch.path());
                let file_run = run_guarded(&mut cmd, LIMIT)?;
                let file_bytes = fs::read(&out).unwrap_or_default();
                if file_run.code != Some(0) || &file_bytes != bytes {
                    problems.push(format!(
                        "{name}: the package merge of {} is not the file merge's:\n{}",
                        f.path,
                        unified_diff(&file_bytes, bytes, "file merge")
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}\nstderr:\n{stderr}", problems.join("\n")).into())
    }
}

// ---- Theirs' layout shuffled: the same resources, in theirs' new files ----

/// The documents of a YAML text, split at its `---` lines; pieces without data left out.
fn split_documents(text: &str) -> Vec<String> {
    let mut pieces = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            pieces.push(String::new());
        } else if let Some(last) = pieces.last_mut() {
            last.push_str(line);
        }
    }
    pieces
        .into_iter()
        .filter(|p| {
            p.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .collect()
}

fn is_yaml(path: &str) -> bool {
    path.ends_with(".yaml") || path.ends_with(".yml") || path.ends_with("Kptfile")
}

/// `group/kind namespace/name` of a document.
fn identity(doc: &yaml11::Value) -> String {
    let get = |v: &yaml11::Value, key: &str| -> Option<yaml11::Value> {
        match v {
            yaml11::Value::Map(entries) => entries
                .iter()
                .find(|(k, _)| *k == yaml11::Value::Str(key.into()))
                .map(|(_, v)| v.clone()),
            _ => None,
        }
    };
    let text = |v: Option<yaml11::Value>| match v {
        Some(yaml11::Value::Str(s)) => s,
        _ => String::new(),
    };
    let api = text(get(doc, "apiVersion"));
    let group = api.rsplit_once('/').map_or("", |(g, _)| g).to_string();
    let metadata = get(doc, "metadata");
    let field = |k: &str| text(metadata.as_ref().and_then(|m| get(m, k)));
    format!(
        "{group}/{} {}/{}",
        text(get(doc, "kind")),
        field("namespace"),
        field("name")
    )
}

/// Every resource of a tree's YAML files: identity → (file, data). A repeated identity fails.
fn resources(tree: &Tree) -> Result<BTreeMap<String, (String, yaml11::Value)>, String> {
    let mut out = BTreeMap::new();
    for (path, (bytes, _)) in tree.iter().filter(|(p, _)| is_yaml(p)) {
        let docs = yaml11::load_documents(&String::from_utf8_lossy(bytes))
            .map_err(|e| format!("{path}: {e}"))?;
        for doc in docs.into_iter().filter(|d| *d != yaml11::Value::Null) {
            let id = identity(&doc);
            if let Some((other, _)) = out.insert(id.clone(), (path.clone(), doc)) {
                return Err(format!("{id} in {path} and {other}"));
            }
        }
    }
    Ok(out)
}

/// A small deterministic generator (no dependency needed for shuffling files).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// Theirs with its resources dealt anew over files: some keep an old name, others go to new
/// files, several share one; other files stay as they are.
fn relayout(theirs: &Tree, seed: u64) -> Tree {
    let mut rng = Lcg(seed);
    let mut out = Tree::new();
    let mut docs = Vec::new();
    let mut names = Vec::new();
    for (path, (bytes, exec)) in theirs {
        if is_yaml(path) {
            docs.extend(split_documents(&String::from_utf8_lossy(bytes)));
            names.push(path.clone());
        } else {
            out.insert(path.clone(), (bytes.clone(), *exec));
        }
    }
    let files = 1 + rng.below(docs.len());
    let names: Vec<String> = (0..files)
        .map(|i| match rng.below(3) {
            0 if !names.is_empty() => names[rng.below(names.len())].clone(),
            1 => format!("moved/part-{i}.yaml"),
            _ => format!("part-{i}.yaml"),
        })
        .collect();
    for doc in docs {
        let name = names[rng.below(names.len())].clone();
        let entry = out.entry(name).or_insert_with(|| (Vec::new(), false));
        if !entry.0.is_empty() {
            entry.0.extend_from_slice(b"---\n");
        }
        entry.0.extend_from_slice(doc.as_bytes());
    }
    out
}

fn write_tree(tree: &Tree, root: &Path) -> Result<(), String> {
    for (path, (bytes, _)) in tree {
        let target = root.join(path);
        fs::create_dir_all(target.parent().unwrap_or(root)).map_err(|e| e.to_string())?;
        fs::write(&target, bytes).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Upstream moving its resources to other files changes where they land, not what they
/// hold: the package merged against several random layouts of theirs holds the same
/// resources with the same data as against theirs' own, each resource theirs moved in the
/// file theirs put it in, none twice.
fn relayout_keeps_the_data(dir: &Path, seeds: std::ops::Range<u64>) -> Result<(), Failed> {
    let scratch = Scratch::new();
    let inputs = Inputs {
        base: dir.join("base").display().to_string(),
        theirs: dir.join("theirs").display().to_string(),
        cwd: scratch.path().to_path_buf(),
    };
    let plain = Case::default();
    let out = scratch.join("out");
    let run = run_kmerge(
        &inputs,
        &dir.join("ours"),
        &plain,
        Some(&out),
        scratch.path(),
    )?;
    if run.code != Some(0) {
        return Err(format!(
            "exit {:?}: {}",
            run.code,
            String::from_utf8_lossy(&run.stderr)
        )
        .into());
    }
    let want = resources(&read_tree(&out)?)?;
    let base = resources(&read_tree(&dir.join("base"))?)?;
    let theirs = read_tree(&dir.join("theirs"))?;
    for seed in seeds {
        let shuffled = relayout(&theirs, seed);
        let root = scratch.join(&format!("theirs-{seed}"));
        write_tree(&shuffled, &root)?;
        let placed = resources(&shuffled)?;
        let inputs = Inputs {
            theirs: root.display().to_string(),
            ..Inputs {
                base: inputs.base.clone(),
                theirs: String::new(),
                cwd: inputs.cwd.clone(),
            }
        };
        let out = scratch.join(&format!("out-{seed}"));
        let run = run_kmerge(
            &inputs,
            &dir.join("ours"),
            &plain,
            Some(&out),
            scratch.path(),
        )?;
        let stderr = String::from_utf8_lossy(&run.stderr);
        if run.code != Some(0) || stderr.contains("a bug in kmerge") {
            return Err(format!("seed {seed}: exit {:?}: {stderr}", run.code).into());
        }
        let got = resources(&read_tree(&out)?).map_err(|e| format!("seed {seed}: twice: {e}"))?;
        for (id, (_, data)) in &want {
            match got.get(id) {
                None => return Err(format!("seed {seed}: {id} is missing").into()),
                Some((_, d)) if d != data => {
                    return Err(format!(
                        "seed {seed}: {id} differs:\n{}",
                        unified_diff(
                            data.render().as_bytes(),
                            d.render().as_bytes(),
                            "unshuffled"
                        )
                    )
                    .into())
                }
                Some((file, _)) => {
                    let moved = placed
                        .get(id)
                        .filter(|(p, _)| base.get(id).is_some_and(|(b, _)| b != p));
                    if let Some((p, _)) = moved {
                        if p != file {
                            return Err(format!(
                                "seed {seed}: {id} is in {file}, theirs moved it to {p}"
                            )
                            .into());
                        }
                    }
                }
            }
        }
        if let Some(extra) = got.keys().find(|id| !want.contains_key(*id)) {
            return Err(format!("seed {seed}: {extra} is extra").into());
        }
    }
    Ok(())
}

/// Files are merged on all cores, in whatever order the threads finish: the result and the
/// messages must not depend on it. Runs a package update several times, once on one core
/// where `taskset` can pin it, and compares the trees and stderr.
fn deterministic(dir: &Path) -> Result<(), Failed> {
    let scratch = Scratch::new();
    let mut seen: Option<(Tree, Vec<u8>)> = None;
    let pin = Command::new("taskset")
        .args(["-c", "0", "true"])
        .status()
        .is_ok_and(|s| s.success());
    for round in 0..4 {
        let out = scratch.join(&format!("out-{round}"));
        let mut cmd = if round == 0 && pin {
            let mut c = Command::new("taskset");
            c.args(["-c", "0"]).arg(kmerge_bin());
            c
        } else {
            Command::new(kmerge_bin())
        };
        cmd.args(
            Merge3::files(dir.join("base"), dir.join("ours"), dir.join("theirs"))
                .output(&out)
                .arguments(),
        );
        common::isolate(&mut cmd, scratch.path());
        let run = run_guarded(&mut cmd, LIMIT)?;
        if !matches!(run.code, Some(0 | 1)) {
            return Err(format!(
                "exit {:?}: {}",
                run.code,
                String::from_utf8_lossy(&run.stderr)
            )
            .into());
        }
        let now = (read_tree(&out)?, run.stderr);
        match &seen {
            None => seen = Some(now),
            Some(first) if *first == now => {}
            Some(first) => {
                return Err(format!(
                    "run {round} differs from the first:\n{}\n{}",
                    tree_diff(&first.0, &now.0).unwrap_or_default(),
                    unified_diff(&first.1, &now.1, "first stderr")
                )
                .into())
            }
        }
    }
    Ok(())
}

fn case_toml_is_strict() -> Result<(), Failed> {
    let c = parse_case(
        "description = \"x\"\nexit = 1\nargs = [\"--dry-run\"]\nstderr_contains = [\"a\"]\n\
         git = true\noutput = \"new-folder\"\nunchanged = true\n",
    )?;
    if !(c.keys.exit == 1 && c.keys.args == ["--dry-run"] && c.git && c.new_folder && c.unchanged) {
        return Err(format!("parsed wrongly: {c:?}").into());
    }
    Ok(refuses_each(
        parse_case,
        &[
            "description = \"x\"\ngit = \"yes\"\n",
            "description = \"x\"\noutput = \"elsewhere\"\n",
        ],
    )?)
}

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/packages");
    let cases = subfolders(&root);
    assert!(!cases.is_empty(), "no cases under {}", root.display());
    let mut trials: Vec<Trial> = Vec::new();
    for dir in cases {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        // Clean updates of folders also run against shuffled layouts of theirs, where each
        // identity names one resource (not where kustomize overlays repeat one per path).
        let unique = ["base", "ours", "theirs"].iter().all(|side| {
            read_tree(&dir.join(side))
                .and_then(|t| resources(&t))
                .is_ok()
        });
        let plain = unique
            && fs::read_to_string(dir.join("case.toml"))
                .ok()
                .and_then(|t| parse_case(&t).ok())
                .is_some_and(|c| {
                    c.keys.exit == 0
                        && !c.git
                        && !c.unchanged
                        && c.pending.is_none()
                        && c.keys.args.is_empty()
                });
        if plain {
            let d = dir.clone();
            trials.push(Trial::test(format!("relayout/{name}"), move || {
                relayout_keeps_the_data(&d, 1..9)
            }));
        }
        trials.push(Trial::test(name, move || run_case(&dir)));
    }
    let here = root.join("resource-moved-between-files");
    trials.push(Trial::test(
        "deterministic/resource-moved-between-files",
        move || deterministic(&here),
    ));
    let conflict = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/packages/kube-prometheus-v0.7-v0.8-conflict");
    trials.push(Trial::test(
        "deterministic/kube-prometheus-v0.7-v0.8-conflict",
        move || {
            if !conflict.is_dir() {
                common::note(
                    "determinism on the shared package update: ../shared/packages not present, \
                     not run",
                );
                return Ok(());
            }
            deterministic(&conflict)
        },
    ));
    let shared =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/packages/kube-prometheus-v0.7-v0.8");
    trials.push(Trial::test("relayout/kube-prometheus-v0.7-v0.8", move || {
        if !shared.is_dir() {
            common::note("relayout of the shared package update: ../shared/packages not present, not run");
            return Ok(());
        }
        relayout_keeps_the_data(&shared, 1..5)
    }));
    trials.push(Trial::test("case_toml_is_strict", case_toml_is_strict));
    let vectors = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/kio-merge3-files");
    let sets = kyaml_packages(&vectors);
    assert!(
        sets.values().map(Vec::len).sum::<usize>() >= 8,
        "the kio-merge3-files vectors under {} name too few files",
        vectors.display()
    );
    for (set, files) in sets {
        trials.push(Trial::test(format!("kio-merge3-files/{set}"), move || {
            kyaml_package(&files)
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
