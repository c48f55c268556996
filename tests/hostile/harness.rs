//! The harness of the hostile-input tests: a case (three inputs, what a correct structural
//! merge gives, what the README promises of it), run in the driver form and through
//! `merge3`, and judged against git's own line merge.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::gaps::Gap;
use crate::common::{
    git_merge_file, isolate, kmerge_bin, memory_limited, note, run_bounded, unified_diff, Bounded,
    Merge3, Scratch, MEMORY_LIMIT_BYTES,
};
use crate::{BOTH_FORMS_BELOW, GUARD, HEAVY_GUARD, PATH};

pub(crate) type Check = Box<dyn Fn(&[u8], i32) -> Result<(), String>>;

/// What a correct structural merge of a case gives.
pub(crate) enum Expect {
    /// Exactly these bytes, with this exit code.
    Bytes(Vec<u8>, i32),
    /// Whatever passes this check of (result, exit code).
    Check(Check),
    /// Nothing: the input is not YAML kmerge can merge, so only git's line merge is right.
    LineMerge,
}

/// What the README says of an input: whether the line merge may take it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Promise {
    /// Nothing particular (not YAML kmerge can merge, or a fallback the README names): git's
    /// line merge with a reason is as right as the structural result.
    Either,
    /// Merged by structure: `line merge used:` on stderr fails the case.
    Structure,
    /// Promised, but a listed known gap sends it to the line merge; once it no longer does,
    /// the case fails until the gap leaves the table.
    KnownGap(&'static Gap),
}

pub(crate) struct Case {
    name: &'static str,
    base: Vec<u8>,
    ours: Vec<u8>,
    theirs: Vec<u8>,
    expect: Expect,
    promise: Promise,
    guard: Duration,
}

impl Case {
    pub(crate) fn new(name: &'static str, base: Vec<u8>, ours: Vec<u8>, theirs: Vec<u8>) -> Case {
        Case {
            name,
            base,
            ours,
            theirs,
            expect: Expect::LineMerge,
            promise: Promise::Either,
            guard: GUARD,
        }
    }

    pub(crate) fn bytes(mut self, expected: Vec<u8>, exit: i32) -> Case {
        self.expect = Expect::Bytes(expected, exit);
        self
    }

    pub(crate) fn check(mut self, f: impl Fn(&[u8], i32) -> Result<(), String> + 'static) -> Case {
        self.expect = Expect::Check(Box::new(f));
        self
    }

    /// The README promises this input a structural merge.
    pub(crate) fn by_structure(mut self) -> Case {
        self.promise = Promise::Structure;
        self
    }

    /// Promised a structural merge, but `gap` sends it to the line merge.
    pub(crate) fn known_gap(mut self, gap: &'static Gap) -> Case {
        self.promise = Promise::KnownGap(gap);
        self
    }

    pub(crate) fn heavy(mut self) -> Case {
        self.guard = HEAVY_GUARD;
        self
    }

    /// Runs the case and fails the test with everything needed to reproduce it.
    pub(crate) fn run(self) {
        let s = Scratch::new();
        s.write("base.yaml", &self.base);
        s.write("ours.yaml", &self.ours);
        s.write("theirs.yaml", &self.theirs);
        let (git, git_code) = git_merge_file(s.path(), "ours.yaml", "base.yaml", "theirs.yaml");

        s.write("result.yaml", &self.ours);
        let mut cmd = kmerge_limited(s.path());
        cmd.args([
            "driver",
            "base.yaml",
            "result.yaml",
            "theirs.yaml",
            "7",
            PATH,
        ]);
        let run = run_bounded(&mut cmd, self.guard);
        let result = s.read("result.yaml");
        let outcome = self.judge(&run, &result, &git, git_code, PATH);
        let outcome = outcome.unwrap_or_else(|e| self.fail("driver", &run, &result, &git, &e));
        note(&format!(
            "hostile {}: {outcome}; driver {}",
            self.name,
            run.describe()
        ));

        let largest = self.base.len().max(self.ours.len()).max(self.theirs.len());
        if largest < BOTH_FORMS_BELOW {
            let mut cmd = kmerge_limited(s.path());
            cmd.args(Merge3::new().arguments());
            let m3 = run_bounded(&mut cmd, self.guard);
            if let Err(e) = self.judge(&m3, &m3.stdout, &git, git_code, "ours.yaml") {
                self.fail("merge3", &m3, &m3.stdout, &git, &e);
            }
            assert!(
                m3.stdout == result && m3.code() == run.code(),
                "{}: merge3 ({}) and the driver ({}) disagree:\n{}",
                self.name,
                m3.describe(),
                run.describe(),
                diff_or_sizes(&result, &m3.stdout, "driver")
            );
        }
    }

    /// Which right outcome `run` took, or why it is wrong.
    pub(crate) fn judge(
        &self,
        run: &Bounded,
        result: &[u8],
        git: &[u8],
        git_code: i32,
        shown_path: &str,
    ) -> Result<&'static str, String> {
        let code = match run.code() {
            Some(code @ (0 | 1)) if !run.timed_out => code,
            Some(2) => {
                return Err(format!(
                    "{}: exit 2 means a file could not be read or written, and these could",
                    run.describe()
                ))
            }
            _ => return Err(run.describe()),
        };
        let stderr = run.stderr_text();
        let prefix = format!("kmerge: {shown_path}: ");
        if let Some(line) = stderr.lines().find(|l| !l.starts_with(&prefix)) {
            return Err(format!(
                "a stderr line does not start with {prefix:?}: {line:?}"
            ));
        }
        let reason = stderr.contains("line merge used");
        match (self.promise, stderr.contains("line merge used:")) {
            (Promise::Structure, true) => {
                return Err(format!(
                    "the README promises this input a structural merge, yet kmerge used the \
                     line merge:\n{}",
                    stderr.trim()
                ))
            }
            (Promise::KnownGap(gap), false) => {
                return Err(format!(
                    "known gap {} no longer sends this input to the line merge: drop it from \
                     tests/common/gaps.rs and promise the structural merge (by_structure)",
                    gap.name
                ))
            }
            _ => {}
        }
        if git_code == 255 {
            // git refuses (binary): its own merge keeps ours and reports a conflict.
            return if result == self.ours.as_slice() && code == 1 && reason {
                Ok("ours kept as a conflict (git refuses binary input), with a reason")
            } else {
                Err(format!(
                    "git refuses to merge this (binary input), so ours must stay as it was, \
                     with exit 1 and a `line merge used` reason; got exit {code}, a result of \
                     {} bytes (ours has {}), reason given: {reason}",
                    result.len(),
                    self.ours.len()
                ))
            };
        }
        let git_exit = i32::from(git_code != 0);
        if reason {
            return if result == git && code == git_exit {
                Ok("git's line merge, with a reason")
            } else {
                Err(format!(
                    "stderr says the line merge was used, but the result (exit {code}) is not \
                     git merge-file's (exit {git_code}):\n{}",
                    diff_or_sizes(git, result, "git merge-file")
                ))
            };
        }
        if git_code == 0 && code == 0 && result == git {
            return Ok("git's clean line merge kept");
        }
        match &self.expect {
            Expect::Bytes(expected, exit) => {
                if result == expected.as_slice() && code == *exit {
                    Ok("structural merge")
                } else {
                    Err(format!(
                        "merged by structure (exit {code}, expected {exit}) into other bytes \
                         than the expected:\n{}",
                        diff_or_sizes(expected, result, "expected")
                    ))
                }
            }
            Expect::Check(check) => check(result, code)
                .map(|()| "structural merge")
                .map_err(|e| format!("merged by structure (exit {code}) wrongly: {e}")),
            Expect::LineMerge => Err(format!(
                "this input is not YAML kmerge can merge, yet the result (exit {code}) is \
                 neither git's line merge with a `line merge used` reason nor git's clean \
                 result:\n{}",
                diff_or_sizes(git, result, "git merge-file")
            )),
        }
    }

    pub(crate) fn fail(
        &self,
        form: &str,
        run: &Bounded,
        result: &[u8],
        git: &[u8],
        why: &str,
    ) -> ! {
        panic!(
            "hostile input {} ({form} form): {why}\n\
             inputs: base {} bytes, ours {} bytes, theirs {} bytes; result {} bytes; \
             git merge-file output {} bytes\nstderr:\n{}",
            self.name,
            self.base.len(),
            self.ours.len(),
            self.theirs.len(),
            result.len(),
            git.len(),
            clip(&run.stderr_text(), 2000)
        )
    }
}

/// kmerge under the memory limit, run in `dir` with the isolated environment.
pub(crate) fn kmerge_limited(dir: &Path) -> Command {
    let mut cmd = memory_limited(&kmerge_bin(), MEMORY_LIMIT_BYTES);
    cmd.current_dir(dir);
    isolate(&mut cmd, dir);
    cmd
}

pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], text.len())
}

/// A diff for small texts; sizes and the first difference for big ones.
pub(crate) fn diff_or_sizes(expected: &[u8], actual: &[u8], expected_name: &str) -> String {
    if expected.len() + actual.len() < 200_000 {
        return clip(&unified_diff(expected, actual, expected_name), 6000);
    }
    let first = expected
        .iter()
        .zip(actual)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(actual.len()));
    format!(
        "{expected_name} has {} bytes, the output {}; first difference at byte {first}",
        expected.len(),
        actual.len()
    )
}

/// Checks that `result` holds `needle` as one contiguous run of bytes.
pub(crate) fn holds(result: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || result.windows(needle.len()).any(|w| w == needle)
}
