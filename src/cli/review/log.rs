//! `.git/kmerge/log`: one line per file the driver merged by structure or left in conflict,
//! read back by `kmerge review`.
//!
//! A line is tab-separated fields: the time (UTC, RFC 3339), `HEAD`'s commit, git's labels
//! for ours and theirs as the driver received them (`%X`, `%Y`), the path, `merged` or
//! `conflict`, then one field for each line the driver printed about the file. Backslash, tab,
//! line feed and carriage return are escaped (`\\`, `\t`, `\n`, `\r`), so a label or a path
//! holding them stays in its field and on its line.
//!
//! An operation is a run of lines with the same `HEAD` and labels: one merge, or one commit of
//! a rebase or cherry-pick (`HEAD` moves with each). A path met again in a run starts a new
//! one: the same merge run again after `git merge --abort`. The log keeps the last [`KEPT`]
//! operations, trimmed as each line is added.

use std::fs;
use std::io::ErrorKind;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context};

use crate::atomic_write::{write_atomically_as, Durability};

/// How many operations the log keeps.
pub(super) const KEPT: usize = 20;

/// What the driver did with a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Status {
    /// Merged cleanly by structure, where git's line merge would not have.
    Merged,
    /// Left in conflict, by structure or by git's line merge.
    Conflict,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Merged => "merged",
            Status::Conflict => "conflict",
        }
    }
}

/// One line of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// When the driver ran, in UTC ([`now`]).
    pub time: String,
    /// `HEAD`'s commit id, or `unborn`.
    pub head: String,
    pub ours: String,
    pub theirs: String,
    pub path: String,
    pub status: Status,
    /// The lines the driver printed about the file, without `kmerge: <path>: `.
    pub said: Vec<String>,
}

impl Entry {
    fn to_line(&self) -> String {
        let fixed = [
            &self.time,
            &self.head,
            &self.ours,
            &self.theirs,
            &self.path,
            self.status.word(),
        ];
        let fields: Vec<String> = fixed
            .into_iter()
            .chain(self.said.iter().map(String::as_str))
            .map(escape)
            .collect();
        fields.join("\t")
    }

    pub fn parse(line: &str) -> anyhow::Result<Entry> {
        let fields: Vec<String> = line.split('\t').map(unescape).collect::<Result<_, _>>()?;
        let [time, head, ours, theirs, path, status, said @ ..] = fields.as_slice() else {
            bail!("{} fields where a line has at least 6", fields.len());
        };
        let status = match status.as_str() {
            "merged" => Status::Merged,
            "conflict" => Status::Conflict,
            other => bail!("unknown outcome {other:?}"),
        };
        Ok(Entry {
            time: time.clone(),
            head: head.clone(),
            ours: ours.clone(),
            theirs: theirs.clone(),
            path: path.clone(),
            status,
            said: said.to_vec(),
        })
    }
}

fn escape(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    for c in field.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\t' => out.push_str(r"\t"),
            '\n' => out.push_str(r"\n"),
            '\r' => out.push_str(r"\r"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(field: &str) -> anyhow::Result<String> {
    let mut out = String::with_capacity(field.len());
    let mut chars = field.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next() {
            Some('\\') => '\\',
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            other => bail!(
                "unknown escape \\{}",
                other.map(String::from).unwrap_or_default()
            ),
        });
    }
    Ok(out)
}

/// The lines of each operation in `lines`, oldest first. Only the fields that tell operations
/// apart are read, so a line this version cannot parse still counts (as an operation alone).
pub(super) fn operations(lines: &[&str]) -> Vec<Range<usize>> {
    let mut starts: Vec<usize> = Vec::new();
    let mut current: Option<[&str; 3]> = None;
    let mut paths: Vec<&str> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let mut fields = line.split('\t').skip(1);
        let (head, ours, theirs, path) =
            (fields.next(), fields.next(), fields.next(), fields.next());
        let (Some(head), Some(ours), Some(theirs), Some(path)) = (head, ours, theirs, path) else {
            starts.push(i);
            current = None;
            continue;
        };
        let key = [head, ours, theirs];
        if current != Some(key) || paths.contains(&path) {
            starts.push(i);
            current = Some(key);
            paths.clear();
        }
        paths.push(path);
    }
    let ends = starts.iter().skip(1).copied().chain([lines.len()]);
    starts
        .iter()
        .zip(ends)
        .map(|(&from, to)| from..to)
        .collect()
}

/// Adds `entry` to the log at `log` (creating its folder), keeping the last [`KEPT`]
/// operations. The log is rewritten whole and replaced atomically, under `log.lock`.
pub(super) fn append(log: &Path, entry: &Entry) -> anyhow::Result<()> {
    if let Some(folder) = log.parent() {
        fs::create_dir_all(folder).with_context(|| format!("creating {}", folder.display()))?;
    }
    let _lock = Lock::take(log.with_extension("lock"))?;
    let old = match fs::read_to_string(log) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", log.display())),
    };
    let line = entry.to_line();
    let mut lines: Vec<&str> = old.lines().collect();
    lines.push(&line);
    let operations = operations(&lines);
    let from = operations
        .len()
        .checked_sub(KEPT)
        .map_or(0, |dropped| operations[dropped].start);
    let mut text = lines[from..].join("\n");
    text.push('\n');
    write_atomically_as(log, text.as_bytes(), Durability::Unsynced)
        .with_context(|| format!("writing {}", log.display()))
}

/// The lock held while the log is rewritten: git runs one driver at a time, but two git
/// commands may run drivers for one git folder at once (`git merge-tree` beside a merge).
/// Removed when dropped.
struct Lock(PathBuf);

/// How long a driver waits for another one's lock; a rewrite takes milliseconds.
const LOCK_WAIT: Duration = Duration::from_secs(2);
/// A lock older than this was left by a kmerge that was stopped while it held it.
const LOCK_STALE: Duration = Duration::from_secs(10);

impl Lock {
    fn take(path: PathBuf) -> anyhow::Result<Lock> {
        let step = Duration::from_millis(10);
        let mut waited = Duration::ZERO;
        loop {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Ok(Lock(path)),
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {
                    let age = fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok());
                    if age.is_some_and(|age| age > LOCK_STALE) {
                        fs::remove_file(&path)
                            .with_context(|| format!("removing {}", path.display()))?;
                    } else if waited >= LOCK_WAIT {
                        return Err(anyhow!(
                            "{} is held by another kmerge (remove it if none is running)",
                            path.display()
                        ));
                    } else {
                        std::thread::sleep(step);
                        waited += step;
                    }
                }
                Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// The current time in UTC, as RFC 3339 to the second (`2025-06-01T10:20:30Z`).
pub(super) fn now() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(seconds)
}

/// `seconds` after 1970-01-01T00:00:00Z as RFC 3339 in UTC.
fn rfc3339(seconds: u64) -> String {
    let (days, second) = (seconds / 86_400, seconds % 86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        second / 3600,
        second % 3600 / 60,
        second % 60
    )
}

/// The date `days` after 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
/// `civil_from_days`, for days on or after the epoch): eras of 400 years, each year counted
/// from March so that the leap day ends it.
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(head: &str, theirs: &str, path: &str, status: Status) -> Entry {
        Entry {
            time: "2025-06-01T10:20:30Z".into(),
            head: head.into(),
            ours: "HEAD".into(),
            theirs: theirs.into(),
            path: path.into(),
            status,
            said: vec![format!("said about {path}")],
        }
    }

    #[test]
    fn a_line_holds_any_label_and_reads_back() {
        let mut e = entry(
            "1234abcd",
            "feat\tx\ny\\z\r",
            "deploy/a b.yaml",
            Status::Conflict,
        );
        e.said.push("second\tline".into());
        let line = e.to_line();
        assert_eq!(
            line,
            "2025-06-01T10:20:30Z\t1234abcd\tHEAD\tfeat\\tx\\ny\\\\z\\r\tdeploy/a b.yaml\t\
             conflict\tsaid about deploy/a b.yaml\tsecond\\tline"
        );
        assert_eq!(Entry::parse(&line).unwrap(), e);
        assert!(Entry::parse("a\tb\tc").is_err());
        assert!(Entry::parse("t\th\to\tt\tp\tdone").is_err());
        assert!(Entry::parse("t\th\to\tt\tp\tmerged\tbad \\q").is_err());
    }

    #[test]
    fn an_operation_is_a_run_of_one_head_and_labels_without_a_path_twice() {
        let lines: Vec<String> = [
            entry("h1", "feature", "a.yaml", Status::Merged),
            entry("h1", "feature", "b.yaml", Status::Conflict),
            // The same merge again, after `git merge --abort`.
            entry("h1", "feature", "a.yaml", Status::Merged),
            // A rebase: HEAD moves with each commit.
            entry("h2", "c1 (one)", "a.yaml", Status::Merged),
            entry("h3", "c2 (two)", "a.yaml", Status::Merged),
        ]
        .iter()
        .map(Entry::to_line)
        .collect();
        let mut lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        lines.insert(3, "a line of another version");
        assert_eq!(operations(&lines), vec![0..2, 2..3, 3..4, 4..5, 5..6]);
        assert_eq!(operations(&[]), Vec::<Range<usize>>::new());
    }

    #[test]
    fn the_log_keeps_the_last_operations() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("kmerge").join("log");
        let mut written = Vec::new();
        for op in 0..KEPT + 5 {
            for path in ["a.yaml", "b.yaml"] {
                let e = entry(&format!("h{op}"), "feature", path, Status::Merged);
                append(&log, &e).unwrap();
                written.push(e.to_line());
            }
        }
        let kept = fs::read_to_string(&log).unwrap();
        let expected = written[2 * 5..].join("\n") + "\n";
        assert_eq!(kept, expected);
        assert!(!log.with_extension("lock").exists(), "the lock is gone");
    }

    #[test]
    fn the_help_says_how_many_operations_are_kept() {
        let kept = format!("The log keeps the last {KEPT} operations.");
        assert!(crate::cli::REVIEW_LONG_ABOUT.contains(&kept));
    }

    #[test]
    fn a_lock_left_behind_is_taken_over_once_stale() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let lock = log.with_extension("lock");
        let stale = fs::File::create(&lock).unwrap();
        stale
            .set_modified(SystemTime::now() - LOCK_STALE * 2)
            .unwrap();
        append(&log, &entry("h", "f", "a.yaml", Status::Merged)).unwrap();
        assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 1);
        assert!(!lock.exists());

        fs::File::create(&lock).unwrap();
        let held = append(&log, &entry("h", "f", "b.yaml", Status::Merged)).unwrap_err();
        assert_eq!(
            format!("{held:#}"),
            format!(
                "{} is held by another kmerge (remove it if none is running)",
                lock.display()
            )
        );
        assert_eq!(fs::read_to_string(&log).unwrap().lines().count(), 1);
    }

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(951_868_799), "2000-02-29T23:59:59Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(4_107_542_400), "2100-03-01T00:00:00Z");
        assert!(now().ends_with('Z') && now().len() == 20);
    }
}
