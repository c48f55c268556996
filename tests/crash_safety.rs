//! Crash safety of the driver's write into ours (`%A`): killed at any moment, ours holds either
//! its old bytes or the complete merge, never a prefix; a write that fails exits 2 and leaves
//! ours as it was, with no temporary file behind.
//!
//! The non-writable-directory failure (the temporary file cannot be created) is covered by
//! `tests/cli.rs` `driver_write_failure_exits_2_and_leaves_ours`; the failures here come later:
//! while the temporary file is written (a file-size limit, as a full disk would), and at the
//! rename (ours is immutable).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{isolate, kmerge_bin, run_bounded, Scratch};

/// Hang guard for one uninterrupted merge of the large input (seconds).
const GUARD: Duration = Duration::from_secs(120);

fn deployment(i: usize) -> String {
    format!(
        "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{i}
  namespace: ns-{ns}
  labels:
    app: app-{i}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: app-{i}
  template:
    metadata:
      labels:
        app: app-{i}
    spec:
      containers:
        - name: main
          image: registry.example.com/app-{i}:1.0.0
          ports:
            - containerPort: 8080
",
        ns = i % 7
    )
}

/// `n` Deployments; in every `every`-th one ours bumps the image and theirs adds an env list
/// on the line right below it: adjacent-line edits git's line merge conflicts on, so the
/// structural merge does the work (and merges them cleanly).
fn manifests(n: usize, every: usize) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let mut base = Vec::new();
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for i in 0..n {
        let sep = if i == 0 { "" } else { "---\n" };
        let d = deployment(i);
        let (o, t) = if i % every == 0 {
            let image = format!("app-{i}:1.0.0");
            (
                d.replace(&image, &format!("app-{i}:1.1.0")),
                d.replace(
                    "          ports:\n",
                    "          env:\n            - name: MODE\n              value: fast\n          ports:\n",
                ),
            )
        } else {
            (d.clone(), d.clone())
        };
        for (out, text) in [(&mut base, &d), (&mut ours, &o), (&mut theirs, &t)] {
            out.extend_from_slice(sep.as_bytes());
            out.extend_from_slice(text.as_bytes());
        }
    }
    (base, ours, theirs)
}

/// The driver merging in/base.yaml and in/theirs.yaml into `ours` (an absolute path).
fn driver(s: &Scratch, ours: &Path) -> Command {
    let mut cmd = Command::new(kmerge_bin());
    cmd.current_dir(s.path());
    isolate(&mut cmd, s.path());
    cmd.arg("driver")
        .arg(s.join("in/base.yaml"))
        .arg(ours)
        .arg(s.join("in/theirs.yaml"))
        .args(["7", "deploy/apps.yaml"]);
    cmd
}

/// Names in `dir` other than `keep`.
fn others(dir: &Path, keep: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != keep)
        .collect();
    names.sort();
    names
}

fn has_temp_file(dir: &Path) -> bool {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .any(|e| e.file_name().to_string_lossy().contains(".kmerge-"))
        })
        .unwrap_or(false)
}

/// When a run is killed.
#[derive(Clone, Copy, Debug)]
enum Kill {
    /// This long after the start.
    After(Duration),
    /// As soon as its temporary file shows in ours' folder (the write is under way), plus
    /// this long.
    WhenWriting(Duration),
}

struct Killed {
    kill: Kill,
    /// When the kill was sent, from the start; `None` if the driver had finished first.
    killed_at: Option<Duration>,
    outcome: &'static str,
    leftovers: Vec<String>,
}

fn kill_once(s: &Scratch, run: usize, ours: &[u8], full: &[u8], kill: Kill) -> Killed {
    let dir = s.join(&format!("run-{run}"));
    fs::create_dir_all(&dir).unwrap();
    let target = dir.join("ours.yaml");
    fs::write(&target, ours).unwrap();
    let mut cmd = driver(s, &target);
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting kmerge");
    let mut killed_at = None;
    loop {
        if child.try_wait().expect("polling kmerge").is_some() {
            break;
        }
        let due = match kill {
            Kill::After(d) => start.elapsed() >= d,
            Kill::WhenWriting(extra) => {
                if has_temp_file(&dir) {
                    std::thread::sleep(extra);
                    true
                } else {
                    std::thread::sleep(Duration::from_micros(200));
                    start.elapsed() > GUARD
                }
            }
        };
        if due {
            // SIGKILL: no handler, no cleanup, as a crash or an OOM kill.
            let _ = child.kill();
            killed_at = Some(start.elapsed());
            break;
        }
        if let Kill::After(d) = kill {
            let left = d.saturating_sub(start.elapsed());
            std::thread::sleep(left.min(Duration::from_millis(1)));
        }
    }
    let status = child.wait().expect("reaping kmerge");
    let got = fs::read(&target).expect("ours must still exist after a kill");
    let outcome = if got == ours {
        "old bytes"
    } else if got == full {
        "complete merge"
    } else {
        let common = got.iter().zip(full).take_while(|(a, b)| a == b).count();
        panic!(
            "{kill:?} (sent at {killed_at:?}, status {status}): ours is neither its old bytes \
             ({} bytes) nor the complete merge ({} bytes): {} bytes, sharing the merge's first \
             {common}",
            ours.len(),
            full.len(),
            got.len()
        );
    };
    let names = others(&dir, "ours.yaml");
    let strays: Vec<&String> = names.iter().filter(|n| !n.contains(".kmerge-")).collect();
    assert!(
        strays.is_empty(),
        "{kill:?}: files other than ours and `.NAME.kmerge-*` appeared beside ours: {strays:?}"
    );
    let leftovers = names
        .iter()
        .map(|n| {
            let len = fs::metadata(dir.join(n)).map_or(0, |m| m.len());
            format!("{n} ({len} bytes)")
        })
        .collect();
    Killed {
        kill,
        killed_at,
        outcome,
        leftovers,
    }
}

/// SIGKILL at 0, 1, 5, 20, 50, 200 and 1000 ms, at half, 80 % and 95 % of an uninterrupted
/// run, and 0, 1, 5, 20 and 100 ms after the temporary file appears (while it is written,
/// flushed and renamed): ours is always its old
/// bytes or the complete merge. Stray `.NAME.kmerge-*` files a kill leaves are reported on stderr,
/// not failed (nothing can remove them after SIGKILL; git ignores them only by luck of name).
#[test]
fn killed_driver_leaves_ours_old_or_complete() {
    let (base, ours, theirs) = manifests(20_000, 100);
    let s = Scratch::new();
    s.write("in/base.yaml", &base);
    s.write("in/theirs.yaml", &theirs);

    // The complete merge, once, uninterrupted.
    let full_path = s.write("full/ours.yaml", &ours);
    let run = run_bounded(&mut driver(&s, &full_path), GUARD);
    assert_eq!(
        run.code(),
        Some(0),
        "the uninterrupted merge: {}; stderr: {}",
        run.describe(),
        run.stderr_text()
    );
    let full = fs::read(&full_path).unwrap();
    assert_ne!(
        full, ours,
        "the merge must change ours for the test to mean anything"
    );
    let text = String::from_utf8_lossy(&full);
    assert_eq!(text.matches(":1.1.0").count(), 200, "ours' image bumps");
    assert_eq!(
        text.matches("value: fast").count(),
        200,
        "theirs' env lists"
    );
    assert!(
        others(&s.join("full"), "ours.yaml").is_empty(),
        "an uninterrupted run leaves no temporary file"
    );
    let whole = run.elapsed;

    let mut kills: Vec<Kill> = [0, 1, 5, 20, 50, 200, 1000]
        .iter()
        .map(|&ms| Kill::After(Duration::from_millis(ms)))
        .collect();
    kills.extend(
        [0.5, 0.8, 0.95]
            .iter()
            .map(|&f| Kill::After(whole.mul_f64(f))),
    );
    kills.extend(
        [0, 1, 5, 20, 100]
            .iter()
            .map(|&ms| Kill::WhenWriting(Duration::from_millis(ms))),
    );

    let mut report = vec![format!(
        "crash_safety: {} bytes of ours, uninterrupted merge {whole:.2?}",
        ours.len()
    )];
    let mut stray_runs = 0;
    for (i, kill) in kills.into_iter().enumerate() {
        let k = kill_once(&s, i, &ours, &full, kill);
        if !k.leftovers.is_empty() {
            stray_runs += 1;
        }
        report.push(format!(
            "  {:?}: killed at {}, ours holds its {}; left beside it: {:?}",
            k.kill,
            k.killed_at
                .map_or("(finished first)".to_string(), |d| format!("{d:.1?}")),
            k.outcome,
            k.leftovers
        ));
    }
    report.push(format!(
        "  {stray_runs} killed run(s) left a stray .NAME.kmerge-* file beside ours"
    ));
    eprintln!("{}", report.join("\n"));
}

// ---- write failures ----

/// A small input (a few hundred KB) whose merge is clean, so only the write can fail.
fn small_merge(s: &Scratch, dir: &str) -> (PathBuf, Vec<u8>) {
    let (base, ours, theirs) = manifests(500, 10);
    s.write("in/base.yaml", &base);
    s.write("in/theirs.yaml", &theirs);
    let path = s.write(&format!("{dir}/ours.yaml"), &ours);
    (path, ours)
}

/// The write of the temporary file fails half way (`EFBIG` under a 512-byte file-size limit,
/// with SIGXFSZ ignored so the write returns the error, as a full disk's `ENOSPC` would):
/// exit 2 naming the file, ours unchanged, the partial temporary file removed.
#[test]
fn write_failing_half_way_exits_2_and_leaves_ours() {
    let s = Scratch::new();
    let (target, ours) = small_merge(&s, "work");
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("trap '' XFSZ; ulimit -f 1 || exit 97; exec \"$0\" \"$@\"")
        .arg(kmerge_bin())
        .arg("driver")
        .arg(s.join("in/base.yaml"))
        .arg(&target)
        .arg(s.join("in/theirs.yaml"));
    cmd.current_dir(s.path());
    isolate(&mut cmd, s.path());
    let run = run_bounded(&mut cmd, Duration::from_secs(60));
    assert_ne!(run.code(), Some(97), "the shell could not set ulimit -f");
    let err = run.stderr_text();
    assert_eq!(run.code(), Some(2), "{}; stderr: {err}", run.describe());
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.starts_with("kmerge: error: writing ours file ")),
        "{err}"
    );
    assert_eq!(fs::read(&target).unwrap(), ours, "ours must be unchanged");
    assert_eq!(
        others(&s.join("work"), "ours.yaml"),
        Vec::<String>::new(),
        "the partial temporary file must be removed"
    );
}

/// The rename over ours fails (ours is immutable, `chattr +i`, which needs root): exit 2,
/// ours unchanged, the complete temporary file removed. Without root, `chattr +i` is refused
/// and a non-writable folder stands in (then the temporary file cannot even be created, the
/// case `tests/cli.rs` covers), so the test never passes vacuously.
#[cfg(unix)]
#[test]
fn rename_failing_exits_2_and_leaves_ours() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new();
    let (target, ours) = small_merge(&s, "work");
    let work = s.join("work");
    let chattr = |flag: &str, path: &Path| {
        s.command("chattr")
            .arg(flag)
            .arg(path)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let immutable = chattr("+i", &target);
    if immutable {
        // The folder stays writable: the temporary file is written, the rename is refused.
        assert!(
            fs::OpenOptions::new().append(true).open(&target).is_err(),
            "chattr +i did not take"
        );
    } else {
        fs::set_permissions(&work, fs::Permissions::from_mode(0o555)).unwrap();
        if fs::write(work.join("probe"), "x").is_ok() {
            fs::set_permissions(&work, fs::Permissions::from_mode(0o755)).unwrap();
            panic!(
                "cannot make ours unreplaceable here (root without a working `chattr +i`); \
                 this test needs one of the two"
            );
        }
    }
    let run = run_bounded(&mut driver(&s, &target), Duration::from_secs(60));
    if immutable {
        chattr("-i", &target);
    } else {
        fs::set_permissions(&work, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let err = run.stderr_text();
    assert_eq!(run.code(), Some(2), "{}; stderr: {err}", run.describe());
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("kmerge: error: writing ours file "),
        "{err}"
    );
    if immutable {
        assert!(
            last.contains("replacing"),
            "the rename is what failed: {err}"
        );
    }
    assert_eq!(fs::read(&target).unwrap(), ours, "ours must be unchanged");
    assert_eq!(
        others(&work, "ours.yaml"),
        Vec::<String>::new(),
        "the temporary file must be removed"
    );
}
