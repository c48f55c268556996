//! Replays every saved fuzz input through the invariants the fuzz targets assert
//! (`fuzz/invariants.rs`, shared word for word), so a crash the fuzzer once found stays fixed
//! in CI, where the fuzzer does not run (`scripts/fuzz.sh` runs it).
//!
//! - `tests/fuzz-regressions/<target>/<name>`: minimised crash inputs of a fixed bug; each
//!   must pass.
//! - `tests/fuzz-regressions/pending/<target>/<name>`: crashes reported and not fixed yet;
//!   they are replayed and their outcome printed, never failing the run. One that passes is
//!   reported so it moves up a folder and stays guarded.
//!
//! `KMERGE_FUZZ_REPLAY=<dir> <target>` replays any folder (e.g. `fuzz/artifacts/merge3`)
//! and prints each file's outcome, for triage: `KMERGE_FUZZ_REPLAY='fuzz/artifacts/merge3
//! merge3' cargo test --release --test fuzz_regressions -- --nocapture`.

#[path = "../fuzz/invariants.rs"]
mod invariants;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const TARGETS: [&str; 2] = ["parse", "merge3"];

/// Runs one input through a target's invariants; the panic message if one fails.
fn replay(target: &str, data: &[u8]) -> Result<(), String> {
    let run = || match target {
        "parse" => invariants::check_parse(data),
        "merge3" => invariants::check_merge3(data),
        other => panic!("unknown fuzz target {other}"),
    };
    catch_unwind(AssertUnwindSafe(run)).map_err(|panic| {
        panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into())
    })
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

#[test]
fn saved_fuzz_inputs_hold_the_invariants() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut failures = Vec::new();
    let mut replayed = 0;
    for target in TARGETS {
        for file in files(&root.join(target)) {
            replayed += 1;
            let data = std::fs::read(&file).expect("reading a saved fuzz input");
            if let Err(e) = replay(target, &data) {
                failures.push(format!("{}: {e}", file.display()));
            }
        }
        for file in files(&root.join("pending").join(target)) {
            replayed += 1;
            let data = std::fs::read(&file).expect("reading a saved fuzz input");
            match replay(target, &data) {
                Err(e) => eprintln!("pending (still fails): {}: {e}", file.display()),
                // Not an error: a fix may land while the input is still filed as pending.
                Ok(()) => eprintln!(
                    "pending input passes now: move {} up out of pending/ so it stays guarded",
                    file.display()
                ),
            }
        }
    }
    eprintln!("replayed {replayed} saved fuzz inputs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Triage helper: replays the folder named by `KMERGE_FUZZ_REPLAY` (`<dir> <target>`).
#[test]
fn replay_folder_from_environment() {
    let Ok(spec) = std::env::var("KMERGE_FUZZ_REPLAY") else {
        return;
    };
    let (dir, target) = spec
        .rsplit_once(' ')
        .expect("KMERGE_FUZZ_REPLAY is '<dir> <target>'");
    for file in files(Path::new(dir)) {
        let data = std::fs::read(&file).expect("reading a fuzz input");
        match replay(target, &data) {
            Ok(()) => eprintln!("ok   {}", file.display()),
            Err(e) => eprintln!("FAIL {}: {e}", file.display()),
        }
    }
}
