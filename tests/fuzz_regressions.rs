//! Replays every saved fuzz input through the invariants the fuzz targets assert
//! (`fuzz/invariants.rs`, shared word for word), so a crash the fuzzer once found stays fixed
//! in CI, where the fuzzer does not run (`scripts/fuzz.sh` runs it). Each input is one named
//! test:
//!
//! - `tests/fuzz-regressions/<target>/<name>`, test `<target>/<name>`: the minimised input of
//!   a fixed bug; it must pass.
//! - `tests/fuzz-regressions/pending/<target>/<name>`, test `pending/<target>/<name>`: a crash
//!   reported and not fixed yet. Its test passes while the input still breaks an invariant (it
//!   prints which) and fails once the input passes, so that it moves up out of `pending/` and
//!   stays guarded.
//!
//! Triage: `KMERGE_FUZZ_REPLAY='<dir> <target>'` adds one test `replay/<name>` per file of any
//! folder, e.g. `KMERGE_FUZZ_REPLAY='fuzz/artifacts/merge3 merge3' cargo test --release --test
//! fuzz_regressions -- replay/`, which lists each file as ok or FAILED with the broken invariant.

#[path = "../fuzz/invariants.rs"]
mod invariants;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};

const TARGETS: [&str; 2] = ["parse", "merge3"];

thread_local! {
    /// The last panic of this thread, with its location, as the panic hook saw it.
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps panics quiet: a pending input panics on every run by design, and the default hook
/// would print a message (and a backtrace) for each. The message, with its location, goes
/// into the test's own result instead.
fn record_panics() {
    std::panic::set_hook(Box::new(|info| {
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
    }));
}

/// Runs one input through a target's invariants; the panic message if one fails.
fn replay(target: &str, data: &[u8]) -> Result<(), String> {
    let run = || match target {
        "parse" => invariants::check_parse(data),
        "merge3" => invariants::check_merge3(data),
        other => panic!("unknown fuzz target {other}"),
    };
    LAST_PANIC.with(|p| p.borrow_mut().take());
    catch_unwind(AssertUnwindSafe(run)).map_err(|panic| {
        LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into())
    })
}

fn replay_file(target: &str, file: &Path) -> Result<(), String> {
    let data = std::fs::read(file).map_err(|e| format!("reading {}: {e}", file.display()))?;
    replay(target, &data)
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn file_name(file: &Path) -> String {
    file.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// A saved input of a fixed bug: it must hold the invariants.
fn guarded(target: &'static str, file: PathBuf) -> Trial {
    let name = format!("{target}/{}", file_name(&file));
    Trial::test(name, move || Ok(replay_file(target, &file)?))
}

/// A saved input of a bug not fixed yet: it must still break an invariant.
fn pending(target: &'static str, file: PathBuf) -> Trial {
    let name = format!("pending/{target}/{}", file_name(&file));
    let label = name.clone();
    Trial::test(name, move || match replay_file(target, &file) {
        Ok(()) => Err(Failed::from(format!(
            "passes now: move {} up out of pending/ (to tests/fuzz-regressions/{target}/) so \
             it stays guarded",
            file.display()
        ))),
        Err(e) => {
            eprintln!("{label}: pending, still fails: {e}");
            Ok(())
        }
    })
}

fn main() {
    let args = Arguments::from_args();
    record_panics();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut trials = Vec::new();
    for target in TARGETS {
        trials.extend(
            files(&root.join(target))
                .into_iter()
                .map(|f| guarded(target, f)),
        );
        trials.extend(
            files(&root.join("pending").join(target))
                .into_iter()
                .map(|f| pending(target, f)),
        );
    }
    assert!(
        !trials.is_empty(),
        "no saved fuzz inputs under {}",
        root.display()
    );
    // An input saved under a misspelt target would never run.
    for dir in [root.clone(), root.join("pending")] {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !(TARGETS.contains(&name.as_str()) || (dir == root && name == "pending")) {
                let path = entry.path();
                trials.push(Trial::test(format!("unknown/{name}"), move || {
                    Err(format!(
                        "{} is not a fuzz target's folder ({TARGETS:?}): its inputs never run",
                        path.display()
                    )
                    .into())
                }));
            }
        }
    }
    if let Ok(spec) = std::env::var("KMERGE_FUZZ_REPLAY") {
        let (dir, target) = spec
            .rsplit_once(' ')
            .expect("KMERGE_FUZZ_REPLAY is '<dir> <target>'");
        let target: &'static str = TARGETS
            .into_iter()
            .find(|t| *t == target)
            .unwrap_or_else(|| panic!("KMERGE_FUZZ_REPLAY: unknown target {target:?}"));
        let found = files(Path::new(dir));
        assert!(!found.is_empty(), "KMERGE_FUZZ_REPLAY: no files in {dir}");
        trials.extend(found.into_iter().map(|file| {
            let name = format!("replay/{}", file_name(&file));
            Trial::test(name, move || Ok(replay_file(target, &file)?))
        }));
    }
    libtest_mimic::run(&args, trials).exit();
}
