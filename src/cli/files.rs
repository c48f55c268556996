//! The commands that merge files named on the command line: `merge3` (three files in, the
//! result to `-o` or stdout), `driver` (git's calling convention, the result written into
//! ours) and `merge2` (a patch laid onto a file).

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::Context;

use super::{
    exit_code, names, options, report, DriverArgs, Merge2Args, Merge3Args, EXIT_CLEAN,
    EXIT_CONFLICT,
};
use crate::atomic_write::{write_atomically, write_atomically_as, Durability};
use crate::driver::{merge2 as merge2_text, merge_bytes};
use crate::git::config::configured_style;
use crate::git::line_merge::line_merge;
use crate::options::{ConflictStyle, MergeOptions};
use crate::package::Source;

pub(super) fn merge3(a: Merge3Args) -> anyhow::Result<i32> {
    let style = if a.markers.diff3 {
        ConflictStyle::Diff3
    } else {
        ConflictStyle::Merge
    };
    let path = a.path.as_deref().unwrap_or(&a.ours);
    let opts = MergeOptions {
        file_name: file_name(path),
        ..options(&a.merge, &a.markers, a.markers.marker_size, style)
    };
    let sources = [
        Source::resolve(&a.base, "base")?,
        Source::resolve(&a.ours, "ours")?,
        Source::resolve(&a.theirs, "theirs")?,
    ];
    if matches!(sources[1], Source::Dir(_) | Source::GitTree { .. }) {
        return super::package::merge3(&a, sources, &opts);
    }
    let [base, ours, theirs] = sources;
    let base = file_bytes(base, "base")?;
    let ours = file_bytes(ours, "ours")?;
    let theirs = file_bytes(theirs, "theirs")?;
    let outcome = merge_bytes(&base, &ours, &theirs, &opts).context("merging")?;
    report(&outcome, path, a.merge.quiet);
    if a.dry_run {
        // The file that would change: -o's, or ours where the result would go to stdout.
        let before = match &a.output {
            Some(out) if out.exists() => read(out, "output")?,
            Some(_) => Vec::new(),
            None => ours,
        };
        let name = a.output.as_deref().unwrap_or(&a.ours).display().to_string();
        print_diff(&before, &outcome.bytes, &name)?;
    } else {
        write_result(a.output.as_deref(), &outcome.bytes)?;
    }
    Ok(exit_code(&outcome))
}

/// The bytes of a version given as a file (on disk or in git); a folder here is an error,
/// since --ours is a file.
fn file_bytes(source: Source, role: &str) -> anyhow::Result<Vec<u8>> {
    match source {
        Source::File(path) => read(&path, role),
        Source::GitFile { bytes, .. } => Ok(bytes),
        other => anyhow::bail!(
            "--{role} {} is a folder, but --ours is a file: give three files (or three folders)",
            other.name()
        ),
    }
}

/// A unified diff of `before` and `after` on stdout.
fn print_diff(before: &[u8], after: &[u8], name: &str) -> anyhow::Result<()> {
    let entry = |bytes: &[u8]| crate::package::Entry {
        bytes: bytes.to_vec(),
        mode: crate::git::FileMode::Regular,
    };
    let mut current = crate::package::Snapshot::default();
    current.files.insert(name.to_string(), entry(before));
    let mut result = std::collections::BTreeMap::new();
    result.insert(name.to_string(), entry(after));
    let changes = crate::package::Changes::between(&current, &result);
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(crate::package::diff(&current, &changes).as_bytes())
        .and_then(|()| stdout.flush())
        .context("writing the diff to stdout")
}

pub(super) fn merge2(a: Merge2Args) -> anyhow::Result<i32> {
    let src = read(&a.src, "src")?;
    let dest = read(&a.dest, "dest")?;
    let text = |bytes: &[u8], path: &Path| -> anyhow::Result<String> {
        String::from_utf8(bytes.to_vec())
            .with_context(|| format!("{} is not UTF-8 text", path.display()))
    };
    let (src_text, dest_text) = (text(&src, &a.src)?, text(&dest, &a.dest)?);
    let opts = MergeOptions {
        mode: crate::options::Mode::TwoWay { prepend: a.prepend },
        ..MergeOptions::default()
    };
    let merged = merge2_text(&src_text, &dest_text, &opts)
        .map_err(|e| patch_roles(&anyhow::Error::new(e), &a.src, &a.dest))
        .context("merging")?;
    warn_of_rename(&src_text, &dest_text, &a.src, &a.dest);
    write_result(a.output.as_deref(), merged.text.as_bytes())?;
    Ok(EXIT_CLEAN)
}

/// merge2 runs the merge with dest as ours and src as theirs; its messages name the files
/// by their roles here instead: `theirs is not YAML` reads `src patch.yaml is not YAML`.
fn patch_roles(e: &anyhow::Error, src: &Path, dest: &Path) -> anyhow::Error {
    let rename = |message: String| match message.split_once(' ') {
        Some(("theirs", rest)) => format!("src {} {rest}", src.display()),
        Some(("ours", rest)) => format!("dest {} {rest}", dest.display()),
        _ => message,
    };
    let chain: Vec<String> = e.chain().map(|m| rename(m.to_string())).collect();
    anyhow::anyhow!(chain.join(": "))
}

/// One patch document laid onto a file of one document is one resource whatever the names
/// say (kyaml's merge2 does the same), so a different `metadata.name` in the patch renames
/// dest's resource: worth a warning, since a patch meant for another resource does this too.
fn warn_of_rename(src: &str, dest: &str, src_path: &Path, dest_path: &Path) {
    let (Some(src_names), Some(dest_names)) =
        (names::document_names(src), names::document_names(dest))
    else {
        return;
    };
    if let ([Some(from_src)], [Some(in_dest)]) = (src_names.as_slice(), dest_names.as_slice()) {
        if from_src != in_dest {
            eprintln!(
                "kmerge: warning: src {} names {from_src:?} and dest {} names {in_dest:?}: the \
                 patch is laid on dest's one resource all the same, and overwrites its \
                 metadata.name with {from_src:?}",
                src_path.display(),
                dest_path.display()
            );
        }
    }
}

/// Writes a result to `output` (atomically) or to stdout.
fn write_result(output: Option<&Path>, bytes: &[u8]) -> anyhow::Result<()> {
    match output {
        Some(out) => write_atomically(out, bytes)
            .with_context(|| format!("writing output file {}", out.display())),
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(bytes)
                .and_then(|()| stdout.flush())
                .context("writing the result to stdout")
        }
    }
}

pub(super) fn driver(a: DriverArgs) -> anyhow::Result<i32> {
    let style = if a.markers.diff3 {
        ConflictStyle::Diff3
    } else {
        // Git would have refused to run with settings it cannot read, so the driver was run
        // by hand: the merge still goes ahead, in git's default style, and a line says why.
        configured_style().unwrap_or_else(|e| {
            eprintln!("kmerge: warning: {e:#}: merge.conflictStyle not read, conflicts marked in git's default style");
            ConflictStyle::Merge
        })
    };
    let marker_size = a.markers.marker_size.or(a.git_marker_size);
    let shown = a.path.as_deref().unwrap_or(&a.ours);
    let opts = MergeOptions {
        file_name: file_name(shown),
        ..options(&a.merge, &a.markers, marker_size, style)
    };
    // Any failure to read is an I/O error, exit 2.
    let base = read(&a.base, "base")?;
    let ours = read(&a.ours, "ours")?;
    let theirs = read(&a.theirs, "theirs")?;
    if switched_off() {
        let line = line_merge(&base, &ours, &theirs, &opts).context("merging")?;
        let with = if line.conflicted {
            ", with conflicts"
        } else {
            ""
        };
        eprintln!(
            "kmerge: {}: KMERGE_DRIVER=off: merged by git's line merge{with}",
            shown.display()
        );
        write_ours(&a.ours, &line.bytes)?;
        return Ok(if line.conflicted {
            EXIT_CONFLICT
        } else {
            EXIT_CLEAN
        });
    }
    let outcome = merge_bytes(&base, &ours, &theirs, &opts).context("merging")?;
    report(&outcome, shown, a.merge.quiet);
    write_ours(&a.ours, &outcome.bytes)?;
    super::review::record(shown, &opts.labels, &outcome);
    Ok(exit_code(&outcome))
}

/// The off switch: `KMERGE_DRIVER=off` in the environment leaves the merge to git's own line
/// merge, for one command (`KMERGE_DRIVER=off git merge feature`) or a whole shell, without
/// touching the setup. Unset, empty or `on`, the driver runs. Any other value is named on
/// stderr and the driver runs: a typo must not silently change how files merge, and either
/// way nothing is lost.
fn switched_off() -> bool {
    match std::env::var_os("KMERGE_DRIVER") {
        None => false,
        Some(value) if value == "off" => true,
        Some(value) if value.is_empty() || value == "on" => false,
        Some(value) => {
            eprintln!(
                "kmerge: warning: KMERGE_DRIVER={} is neither off nor on: the driver runs",
                value.to_string_lossy()
            );
            false
        }
    }
}

/// Writes the result into git's own temporary file, which git reads back as soon as the
/// driver exits: atomic, not flushed.
fn write_ours(ours: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomically_as(ours, bytes, Durability::Unsynced)
        .with_context(|| format!("writing ours file {}", ours.display()))
}

/// The last component of a path, for the rules that depend on a file's name.
pub(super) fn file_name(path: &Path) -> Option<String> {
    path.file_name().map(|n| n.to_string_lossy().into_owned())
}

fn read(path: &Path, role: &str) -> anyhow::Result<Vec<u8>> {
    fs::read(path).with_context(|| format!("reading {role} file {}", path.display()))
}
