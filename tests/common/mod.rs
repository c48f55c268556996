//! Helpers shared by the integration tests: the binary under test, a scratch directory of
//! input files, and git run in isolation from the machine's own configuration.
//!
//! Each test file compiles this module separately and uses only part of it.
#![allow(dead_code)]

pub mod case_files;
pub mod gaps;

use std::ffi::{OsStr, OsString};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The kmerge binary cargo built for these tests.
pub fn kmerge_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_kmerge"))
}

/// A scratch directory that holds the files of one test. Commands run inside it, with a
/// private `HOME` so neither git nor kmerge sees the developer's global git config (a
/// `merge.conflictStyle=diff3` there would change every expected marker).
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("creating a temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes `name` (creating parent folders) and returns its path.
    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("creating a folder");
        }
        fs::write(&path, bytes).expect("writing a test file");
        path
    }

    pub fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.join(name)).unwrap_or_else(|e| panic!("reading {name}: {e}"))
    }

    /// A command run in this directory with the isolated environment.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.path());
        isolate(&mut cmd, self.path());
        cmd
    }

    /// Runs kmerge with `args` in this directory.
    pub fn kmerge(&self, args: &[&str]) -> Output {
        self.command(kmerge_bin())
            .args(args)
            .output()
            .expect("running kmerge")
    }

    /// Runs `kmerge merge3` as `merge3` says, in this directory.
    pub fn merge3(&self, merge3: &Merge3) -> Output {
        self.command(kmerge_bin())
            .args(merge3.arguments())
            .output()
            .expect("running kmerge")
    }

    /// Runs git with `args` in this directory; panics with a clear message if git is missing.
    pub fn git(&self, args: &[&str]) -> Output {
        run_git(self.command("git").args(args))
    }

    /// Like `git`, but a non-zero exit fails the test with git's own output.
    pub fn git_ok(&self, args: &[&str]) -> Output {
        let out = self.git(args);
        assert!(
            out.status.success(),
            "git {} failed:\n{}{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

/// A fresh git repository in a scratch directory, with its own identity and no signing, on
/// branch `main`.
pub fn git_repo() -> Scratch {
    let s = Scratch::new();
    s.git_ok(&["-c", "init.defaultBranch=main", "init", "-q"]);
    s.git_ok(&["config", "user.name", "kmerge test"]);
    s.git_ok(&["config", "user.email", "kmerge-test@example.invalid"]);
    s.git_ok(&["config", "commit.gpgsign", "false"]);
    s
}

/// Runs git in `s` with a trace of the commands it starts, returning the output and the
/// trace (to tell whether git ran the kmerge driver).
pub fn traced_git(s: &Scratch, args: &[&str]) -> (Output, String) {
    traced_git_with(s, args, &[])
}

/// [`traced_git`] with more variables in git's environment (which the driver inherits).
pub fn traced_git_with(s: &Scratch, args: &[&str], env: &[(&str, &str)]) -> (Output, String) {
    // Inside .git, so `git status` does not list it.
    let trace = s.join(".git/kmerge-test-trace.log");
    let _ = fs::remove_file(&trace);
    let mut cmd = s.command("git");
    cmd.args(args).env("GIT_TRACE", &trace);
    for (name, value) in env {
        cmd.env(name, value);
    }
    let out = run_git(&mut cmd);
    let log = fs::read_to_string(&trace).unwrap_or_default();
    let _ = fs::remove_file(&trace);
    (out, log)
}

/// Whether git's trace shows it running the kmerge driver on `path`.
pub fn driver_ran(trace: &str, path: &str) -> bool {
    trace
        .lines()
        .any(|l| l.contains("run_command:") && l.contains(" driver ") && l.contains(path))
}

/// Runs a prepared git command. These tests compare kmerge with git itself, so a missing git
/// is a failure, never a silent skip.
pub fn run_git(cmd: &mut Command) -> Output {
    cmd.output().unwrap_or_else(|e| {
        panic!("these tests need `git` on PATH (install git; it is required, not optional): {e}")
    })
}

/// Keeps the machine's git configuration, any repository the test runner sits in (a hook
/// running `cargo test` sets GIT_DIR) and the developer's `KMERGE_DRIVER` switch out of a
/// command.
pub fn isolate(cmd: &mut Command, home: &Path) {
    for var in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_PREFIX",
        "KMERGE_DRIVER",
    ] {
        cmd.env_remove(var);
    }
    let parent = home.parent().unwrap_or(home);
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", home.join(".gitconfig"))
        .env("GIT_CEILING_DIRECTORIES", parent)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_EDITOR", "true")
        .env("LC_ALL", "C")
        .env("LANG", "C");
}

/// `kmerge merge3` as the tests run it: one builder for every test file, so the flags a test
/// uses (policy, labels, output, anything else) read the same everywhere. Without
/// [`Merge3::files`] it merges `base.yaml`, `ours.yaml` and `theirs.yaml` of the folder it
/// runs in (a case folder, a [`Scratch`]).
#[derive(Clone, Debug)]
pub struct Merge3 {
    base: OsString,
    ours: OsString,
    theirs: OsString,
    options: Vec<OsString>,
}

impl Default for Merge3 {
    fn default() -> Merge3 {
        Merge3::files("base.yaml", "ours.yaml", "theirs.yaml")
    }
}

impl Merge3 {
    /// On `base.yaml`, `ours.yaml` and `theirs.yaml` of the folder it runs in.
    pub fn new() -> Merge3 {
        Merge3::default()
    }

    /// On these three files or folders (or `REV:PATH`s).
    pub fn files(
        base: impl AsRef<OsStr>,
        ours: impl AsRef<OsStr>,
        theirs: impl AsRef<OsStr>,
    ) -> Merge3 {
        Merge3 {
            base: base.as_ref().to_owned(),
            ours: ours.as_ref().to_owned(),
            theirs: theirs.as_ref().to_owned(),
            options: Vec::new(),
        }
    }

    /// `--on-conflict <policy>`.
    pub fn policy(self, policy: &str) -> Merge3 {
        self.args(["--on-conflict", policy])
    }

    /// `--base-label`, `--ours-label` and `--theirs-label`.
    pub fn labels(self, base: &str, ours: &str, theirs: &str) -> Merge3 {
        self.args([
            "--base-label",
            base,
            "--ours-label",
            ours,
            "--theirs-label",
            theirs,
        ])
    }

    /// `-o <out>`: the result goes there instead of stdout (or instead of ours' folder).
    pub fn output(self, out: impl AsRef<OsStr>) -> Merge3 {
        self.arg("-o").arg(out)
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Merge3 {
        self.options.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I, S>(self, args: I) -> Merge3
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        args.into_iter().fold(self, Merge3::arg)
    }

    /// `merge3 --base … --ours … --theirs …` and the options: the arguments, for a command
    /// of the caller's own (under a memory limit, pinned to a core).
    pub fn arguments(&self) -> Vec<OsString> {
        let mut out: Vec<OsString> = vec!["merge3".into(), "--base".into(), self.base.clone()];
        out.extend(["--ours".into(), self.ours.clone()]);
        out.extend(["--theirs".into(), self.theirs.clone()]);
        out.extend(self.options.iter().cloned());
        out
    }

    /// The kmerge binary with these arguments, run in `dir` and isolated from the machine's
    /// git configuration with `home` as its home (a folder the caller keeps alive).
    pub fn command(&self, dir: &Path, home: &Path) -> Command {
        let mut cmd = Command::new(kmerge_bin());
        cmd.current_dir(dir).args(self.arguments());
        isolate(&mut cmd, home);
        cmd
    }
}

/// One line on stderr that the test harness does not capture: for what a run should always
/// show, such as whether an optional data set beside the repository was there.
pub fn note(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The exit code, failing the test if the process died from a signal.
pub fn code(out: &Output) -> i32 {
    out.status
        .code()
        .unwrap_or_else(|| panic!("process killed by a signal; stderr:\n{}", stderr(out)))
}

/// How a process run under a hang guard ended.
pub struct Finished {
    /// The exit code; `None` if it was killed (by a signal or by the guard).
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

/// Runs `cmd` with output captured through files (a full pipe cannot stall it) and kills it
/// after `limit`. A hang guard for inputs that must finish in milliseconds, not a timing.
pub fn run_guarded(cmd: &mut Command, limit: std::time::Duration) -> Result<Finished, String> {
    use std::process::Stdio;
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let out_path = dir.path().join("stdout");
    let err_path = dir.path().join("stderr");
    let out = fs::File::create(&out_path).map_err(|e| e.to_string())?;
    let err = fs::File::create(&err_path).map_err(|e| e.to_string())?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .map_err(|e| format!("starting {:?}: {e}", cmd.get_program()))?;
    let start = std::time::Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                timed_out = true;
                break child.wait().map_err(|e| e.to_string())?;
            }
            None => std::thread::sleep(std::time::Duration::from_millis(2)),
        }
    };
    Ok(Finished {
        code: status.code(),
        stdout: fs::read(&out_path).unwrap_or_default(),
        stderr: fs::read(&err_path).unwrap_or_default(),
        timed_out,
    })
}

/// Every YAML document of `bytes` as data, empty (null) documents dropped: the comparison
/// the conformance checker and the real-merge scorer make.
pub fn yaml_documents(bytes: &[u8]) -> Result<Vec<yaml_serde::Value>, String> {
    use serde::Deserialize as _;
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    let mut docs = Vec::new();
    for doc in yaml_serde::Deserializer::from_str(text) {
        let value = yaml_serde::Value::deserialize(doc).map_err(|e| e.to_string())?;
        if !value.is_null() {
            docs.push(value);
        }
    }
    Ok(docs)
}

/// A unified diff of two texts for failure messages.
pub fn unified_diff(expected: &[u8], actual: &[u8], expected_name: &str) -> String {
    let expected = String::from_utf8_lossy(expected);
    let actual = String::from_utf8_lossy(actual);
    similar::TextDiff::from_lines(expected.as_ref(), actual.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(expected_name, "output")
        .to_string()
}

// ---- Bounded runs: hostile inputs and crash safety (tests/hostile/, tests/crash_safety.rs) ----

/// The address space a run of kmerge on hostile input may use: 2 GB. Input that needs more
/// must end in the line fallback, not in an allocation failure (which aborts the process).
pub const MEMORY_LIMIT_BYTES: u64 = 2_000_000_000;

/// How a run under a hang guard (and usually a memory limit) ended.
pub struct Bounded {
    pub status: std::process::ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub elapsed: std::time::Duration,
    /// Killed by the hang guard.
    pub timed_out: bool,
}

impl Bounded {
    /// The exit code, if the process exited rather than died from a signal.
    pub fn code(&self) -> Option<i32> {
        self.status.code()
    }

    /// The signal that ended the process, if one did.
    pub fn signal(&self) -> Option<i32> {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            self.status.signal()
        }
        #[cfg(not(unix))]
        None
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// How the run ended, in words, for failure messages.
    pub fn describe(&self) -> String {
        if self.timed_out {
            return format!("killed by the hang guard after {:.1?}", self.elapsed);
        }
        match (self.code(), self.signal()) {
            (Some(code), _) => format!("exit {code} after {:.1?}", self.elapsed),
            (None, Some(6)) => format!(
                "killed by SIGABRT after {:.1?} (an allocation failing under the memory limit \
                 aborts a Rust program)",
                self.elapsed
            ),
            (None, Some(9)) => format!(
                "killed by SIGKILL after {:.1?} (the kernel's OOM killer?)",
                self.elapsed
            ),
            (None, Some(11)) => format!(
                "killed by SIGSEGV after {:.1?} (a stack overflow?)",
                self.elapsed
            ),
            (None, sig) => format!("killed by signal {sig:?} after {:.1?}", self.elapsed),
        }
    }
}

/// A command that runs `program` with its address space limited to `memory_bytes`, through
/// `sh -c 'ulimit -v KB; exec "$0" "$@"'` (the limit is inherited by `exec`, so the status
/// is the program's own). Add the program's arguments with `.arg`/`.args`.
pub fn memory_limited(program: &Path, memory_bytes: u64) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "ulimit -v {} || exit 97; exec \"$0\" \"$@\"",
            memory_bytes / 1024
        ))
        .arg(program);
    cmd
}

/// Runs `cmd` with stdin empty and output captured through files (a full pipe cannot stall
/// it), killing it after `limit`: a hang guard, not a timing.
pub fn run_bounded(cmd: &mut Command, limit: std::time::Duration) -> Bounded {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().expect("temporary directory for output");
    let out_path = dir.path().join("stdout");
    let err_path = dir.path().join("stderr");
    let out = fs::File::create(&out_path).expect("creating the stdout file");
    let err = fs::File::create(&err_path).expect("creating the stderr file");
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .unwrap_or_else(|e| panic!("starting {:?}: {e}", cmd.get_program()));
    let mut timed_out = false;
    let status = loop {
        match child.try_wait().expect("waiting for the child") {
            Some(status) => break status,
            None if start.elapsed() > limit => {
                let _ = child.kill();
                timed_out = true;
                break child.wait().expect("reaping the killed child");
            }
            None => std::thread::sleep(Duration::from_millis(3)),
        }
    };
    let elapsed = start.elapsed();
    let status_code = status.code();
    assert_ne!(
        status_code,
        Some(97),
        "the shell could not set the memory limit (ulimit -v)"
    );
    Bounded {
        status,
        stdout: fs::read(&out_path).unwrap_or_default(),
        stderr: fs::read(&err_path).unwrap_or_default(),
        elapsed,
        timed_out,
    }
}

/// `git merge-file -p --marker-size=7 -L ours -L base -L theirs` on three files in `dir`:
/// git's own line merge, the reference for kmerge's fallback. Returns the bytes and git's exit
/// code (0 clean, the number of conflicts up to 127, 255 when git refuses, e.g. binary input).
pub fn git_merge_file(dir: &Path, ours: &str, base: &str, theirs: &str) -> (Vec<u8>, i32) {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir);
    isolate(&mut cmd, dir);
    cmd.args([
        "merge-file",
        "-p",
        "--marker-size=7",
        "-L",
        "ours",
        "-L",
        "base",
        "-L",
        "theirs",
        ours,
        base,
        theirs,
    ]);
    let out = run_git(&mut cmd);
    let code = out
        .status
        .code()
        .unwrap_or_else(|| panic!("git merge-file died: {}", stderr(&out)));
    (out.stdout, code)
}

/// A small deterministic generator (xorshift): generated tests need no crate, and a failure
/// replays by its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}
