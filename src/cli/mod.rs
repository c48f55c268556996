//! The command line: the clap definitions and the dispatch to one module per kind of command
//! (`files`: `merge3`, `driver` and `merge2` on files named on the command line; `install`:
//! the git setup; `doctor`: checking it; `solve`: re-merging what git left in conflict;
//! `review`: what the driver did in the last merge; `docs`: completions and manual pages).
//!
//! This is the only place that knows about arguments, files and exit codes; the merge itself
//! is `driver::merge_bytes`. Errors are printed once, here, as `kmerge: error: ...`.

use std::ffi::OsString;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::driver::Outcome;
use crate::options::{ConflictStyle, Labels, MergeOptions, Policy};

mod docs;
mod doctor;
mod files;
mod install;
mod names;
mod package;
mod review;
mod solve;

/// Exit code: merged cleanly.
pub const EXIT_CLEAN: i32 = 0;
/// Exit code: conflicts are left in the output, marked.
pub const EXIT_CONFLICT: i32 = 1;
/// Exit code: bad usage, or a file that could not be read or written.
pub const EXIT_ERROR: i32 = 2;

const ABOUT: &str =
    "Merges Kubernetes YAML by structure: a git merge driver and a 3-way merge tool";

const LONG_ABOUT: &str = "\
Merges Kubernetes YAML by structure: a git merge driver and a 3-way merge tool.

Resources are matched by identity (API group, kind, namespace, name) and merged field by
field, so edits to different fields merge cleanly even on neighbouring lines, where git's
line merge reports a conflict. Where git's line merge is already clean, its bytes are kept.

Conflict policies (--on-conflict):
  mark    (default) a field both sides changed differently is kept in conflict markers
  theirs  upstream wins, as kyaml/kpt's merge3 does, including its flaw: a field deleted
          locally that upstream changed comes back
  ours    local wins

Lists: elements with a merge key (containers by name, ports by port and protocol) merge by
key. In a set list, where order means nothing (finalizers; a kustomization's resources,
components, crds and configurations, also in a kustomization.yaml that names no kind), the
entries both sides added are all kept, ours' first, and one both added appears once. In an
ordered list (args, command, CI steps, a kustomization's patches) two different entries added
at one place conflict around just those entries. An element one side renamed and the other
edited is paired like a renamed resource and merged field by field.

Comments and blank lines travel with the side that wrote them. Where both sides changed the
same comment lines differently, ours' stay (theirs' with --on-conflict theirs) and a line on
stderr names theirs' lines not taken: a comment never makes a conflict.

A Helm/Go template with {{ }} as structure is merged as its YAML skeleton: control lines
travel like comments, other actions are values compared by their text, and the result's
control lines must be the 3-way merge of the versions'. Input that is not YAML, that
already holds conflict markers, or that the structural merge cannot settle (a template
included) is merged by git's line merge instead, with a one-line reason on stderr.";

const AFTER_HELP: &str = "\
Git setup, in a repository (--global: for every repository):
  kmerge install
which does what these lines do:
  git config merge.kmerge.name 'kmerge: structural Kubernetes YAML merge'
  git config merge.kmerge.driver \"$(command -v kmerge) driver %O %A %B %L %P --base-label %S --ours-label %X --theirs-label %Y\"
  echo '*.yaml merge=kmerge' >> .gitattributes
Whether git will really run kmerge here: kmerge doctor
Files git already left in conflict (merged without kmerge): kmerge solve
What the driver did in the last merge: kmerge review

Exit codes: 0 merged cleanly, 1 conflicts marked in the output, 2 usage or I/O error.";

const MERGE3_ABOUT: &str =
    "Merges three files (result to -o or stdout) or three package folders (ours updated in place)";

const MERGE3_LONG_ABOUT: &str = "\
Merges the changes from --base to --theirs into --ours and writes the result to -o
(replaced atomically) or to stdout. Resources are matched by identity (API group, kind,
namespace, name) and merged field by field; where git's line merge is clean its bytes are
kept.

--on-conflict mark (default) marks fields both sides changed differently; theirs lets the
upstream version win as kyaml/kpt do, including their flaw that a locally deleted field
which upstream changed comes back; ours keeps the local version. Non-YAML input, templates
whose skeleton cannot be merged, existing conflict markers and parse errors use git's line
merge.

Markers are labelled base/ours/theirs unless given; --diff3 adds the base section (git's
merge.conflictStyle is not read here). --path gives the file's name where --ours is a
temporary copy (a kustomization.yaml that names no kind is a kustomization).

Folders (a package update): with --ours a folder, --base and --theirs are folders too, or
git trees as REV:PATH in the repository of the current folder (an argument naming an
existing path is a path). Files go to stdout without -o; a folder is updated in place
without -o, or the result goes to -o DIR (a new or empty folder). Resources (documents of
*.yaml, *.yml and Kptfile) are matched by identity across files: a resource upstream moved
to another file goes there with the local edits, one only ours moved stays in ours' file,
new upstream resources go where theirs put them, and a file left with no resource is
removed. Each file is then merged as above. Other files merge line by line as git would; a
binary file is taken from the side that changed it, a conflict if both did. Nothing is
written until everything is merged; --dry-run writes nothing and prints a unified diff.
A summary goes to stderr: files and resources added, updated, deleted and moved, and every
conflict with its file, resource and field.

  kmerge merge3 --base v0.11.0:manifests --theirs v0.12.0:manifests --ours vendor/prometheus";

const DRIVER_ABOUT: &str = "Git merge driver: merges BASE and THEIRS into OURS in place";

const DRIVER_LONG_ABOUT: &str = "\
Git's merge-driver form: merges the changes from BASE (%O) to THEIRS (%B) into OURS (%A)
and writes the result into OURS atomically, keeping its permissions. Resources are matched
by identity (API group, kind, namespace, name) and merged field by field; where git's line
merge is clean its bytes are kept.

--on-conflict mark (default) marks fields both sides changed differently; theirs lets the
upstream version win as kyaml/kpt do, including their flaw that a locally deleted field
which upstream changed comes back; ours keeps the local version. Non-YAML input, templates
whose skeleton cannot be merged, existing conflict markers and parse errors use git's line
merge.

Markers carry git's labels (%S %X %Y; an older git passes them literally, which means the
defaults base/ours/theirs), git's marker size (%L), and merge.conflictStyle as git reads
it (its config files, then `git -c`) unless --diff3 is given. Exit 2 only when a file cannot
be read or written; OURS is then unchanged.

KMERGE_DRIVER=off in the environment switches the driver off without touching the setup, for
one command (KMERGE_DRIVER=off git merge feature) or a whole shell: git's own line merge is
written (its bytes, its exit code) and one line on stderr says so. Unset, empty or `on`, the
driver runs; any other value is named on stderr, and the driver runs.

Each file merged by structure or left in conflict is recorded in .git/kmerge/log, and
`kmerge review` shows them after the merge (a log that cannot be written is one line on
stderr; the merge goes on).";

#[derive(Parser, Debug)]
#[command(
    name = "kmerge",
    version = env!("KMERGE_VERSION"),
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    #[command(about = MERGE3_ABOUT, long_about = MERGE3_LONG_ABOUT, after_help = AFTER_HELP)]
    Merge3(Merge3Args),
    #[command(about = DRIVER_ABOUT, long_about = DRIVER_LONG_ABOUT, after_help = AFTER_HELP)]
    Driver(DriverArgs),
    #[command(about = MERGE2_ABOUT, long_about = MERGE2_LONG_ABOUT)]
    Merge2(Merge2Args),
    #[command(about = INSTALL_ABOUT, long_about = INSTALL_LONG_ABOUT)]
    Install(InstallArgs),
    #[command(about = DOCTOR_ABOUT, long_about = DOCTOR_LONG_ABOUT)]
    Doctor,
    #[command(about = SOLVE_ABOUT, long_about = SOLVE_LONG_ABOUT)]
    Solve(SolveArgs),
    #[command(about = REVIEW_ABOUT, long_about = REVIEW_LONG_ABOUT)]
    Review(ReviewArgs),
    /// Prints a shell completion script.
    #[command(long_about = COMPLETIONS_LONG_ABOUT)]
    Completions {
        /// The shell to complete in.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Prints the manual page, or writes one per command into DIR.
    Man {
        /// Write kmerge.1 and a page per command (kmerge-solve.1, ...) here.
        #[arg(value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

const COMPLETIONS_LONG_ABOUT: &str = "\
Prints a completion script for SHELL to stdout. For example:
  kmerge completions bash > ~/.local/share/bash-completion/completions/kmerge
  kmerge completions zsh > ~/.zfunc/_kmerge     # with ~/.zfunc in fpath
  kmerge completions fish > ~/.config/fish/completions/kmerge.fish";

const SOLVE_ABOUT: &str = "Re-merges files git left in conflict, and stages the solved ones";

const SOLVE_LONG_ABOUT: &str = "\
Re-merges files git already left in conflict (a merge, rebase or cherry-pick run without
kmerge): reads the three versions of each from the index (base, ours, theirs), merges them as
the driver would (git's labels, the conflict-marker-size attribute, merge.conflictStyle) and
writes the result into the work-tree file. A clean result is staged as `git add` would
(--no-add leaves the index alone); a file with conflicts left keeps kmerge's narrower markers.

Without FILE: every conflicted file .gitattributes sends to kmerge, and every conflicted
*.yaml/*.yml with no merge attribute. A file added or deleted on one side is reported and not
touched.

Your work is never overwritten: a file is re-merged only while it is byte for byte what a
merge wrote, either git's line merge of the three versions as the merge, rebase or
cherry-pick under way wrote it (its labels, conflict style, marker size and line endings; by
the histogram diff of git's merges or the Myers diff of git merge-file), or kmerge's own
result (a conflict the driver left, or an earlier solve: running it twice is harmless). A file
edited since is named and left as it is; --force re-merges it after copying it to
.git/kmerge/solve-backup/PATH. Recognising git's histogram merge runs git merge-file
--diff-algorithm, git 2.44 or later.

Exit 0 when every file is solved, 1 otherwise.";

#[derive(Args, Debug)]
struct SolveArgs {
    /// Conflicted files to re-merge (paths in the work tree).
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Do not stage the files solved cleanly.
    #[arg(long)]
    no_add: bool,
    /// Re-merge files edited since the merge wrote them, after copying each to
    /// .git/kmerge/solve-backup/PATH.
    ///
    /// Without it, a file that is not byte for byte what the merge (or kmerge) wrote, such as
    /// one with some conflicts resolved by hand, is left as it is. With it, the file is first
    /// copied to .git/kmerge/solve-backup/PATH in the git folder of this work tree (numbered
    /// PATH.1, PATH.2, ... beside an earlier, different copy), the copy's path is printed, and
    /// the file is re-merged from the index.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    merge: MergeFlags,
}

const DOCTOR_ABOUT: &str = "Checks that git will run kmerge on this repository's YAML files";

const DOCTOR_LONG_ABOUT: &str = "\
Checks, in the repository it runs in, what a broken setup would hide: where no driver is
defined or the attributes send no file to kmerge, git uses its own line merge without a word;
where git cannot run the driver's program, it leaves every YAML file conflicted, with ours'
text and no markers. One line per check, ok, warn or FAIL, a failing one followed by the
command that fixes it:

  - merge.kmerge.driver is set (in the repository, global or system config: it says which)
    and runs `kmerge driver %O %A %B`;
  - its program exists: an absolute path to an executable file (a bare name is a warning: a
    git started without it on PATH, such as an IDE's, cannot find it);
  - its program is this version of kmerge (run with --version through sh, as git runs it;
    another build of this version is a warning);
  - the merge attribute of the tracked *.yaml and *.yml files (of new ones while none is
    tracked): how many go to kmerge, and which do not;
  - git is 2.44 or later, which passes the driver its conflict labels (%S %X %Y); an older
    git is a warning.

Exit 0 when no check fails, 1 when one does, 2 outside a git repository.";
const REVIEW_ABOUT: &str =
    "Shows what the merge driver did in the last merge, rebase or cherry-pick";

const REVIEW_LONG_ABOUT: &str = "\
Shows what the merge driver did in the last merge, rebase or cherry-pick of this work tree:
each file it merged by structure where git's line merge would have stopped, and each file it
left in conflict, with the lines it printed about them (git clients and IDEs often hide
them). A file git's own line merge settled, with or without kmerge, is not listed.

  feature into HEAD at 1a2b3c4, 2025-06-01T10:20:30Z: 1 merged by structure, 1 left in conflict
    merged    deploy/api.yaml: merged 1 conflicting hunk by structure
    conflict  deploy/web.yaml: conflict in apps/Deployment web at spec.replicas: ...

The driver records them in kmerge/log in the git folder of the work tree (.git/kmerge/log),
one line per file: the time (UTC), HEAD's commit, git's labels for the two sides, the path
and what it printed. An operation is the run of lines with the same HEAD and labels: one
merge, or one commit of a rebase or cherry-pick (HEAD moves with each); a file met again
starts a new one (the same merge run again). The log keeps the last 20 operations.";

#[derive(Args, Debug)]
struct ReviewArgs {
    /// Every operation the log keeps, oldest first.
    #[arg(long)]
    all: bool,
}

const INSTALL_ABOUT: &str = "Sets kmerge up as git's merge driver for YAML files";

const INSTALL_LONG_ABOUT: &str = "\
Sets kmerge up as git's merge driver: merge.kmerge.name and merge.kmerge.driver in the
repository's config (--global: the user's), and `*.yaml merge=kmerge`, `*.yml merge=kmerge`
(or the --pattern globs) in the repository's .gitattributes (--local: its untracked
info/attributes; --global: the file core.attributesFile names, else git's default
$XDG_CONFIG_HOME/git/attributes). The driver is called by its absolute path, as PATH holds
it where it does (a symlink is kept, so an upgrade leaves it valid): a git started without
kmerge on its PATH (an IDE, a GUI) could not find a driver called by name, and would leave
every YAML file conflicted, with no markers.

Running it again changes nothing. Each attribute line it adds has a `# kmerge` comment line
above it (git rejects a trailing comment on an attribute line), and --uninstall removes
exactly those pairs and the two config keys; in a repository it cleans both .gitattributes
and info/attributes. Prints what it changed.";

#[derive(Args, Debug)]
struct InstallArgs {
    /// Install for every repository: the user's git config and attributes file.
    #[arg(long, conflicts_with = "local")]
    global: bool,
    /// Write the attribute lines to the repository's untracked info/attributes.
    #[arg(long)]
    local: bool,
    /// A pattern of files to merge with kmerge (repeatable); default *.yaml and *.yml.
    #[arg(long, value_name = "GLOB", conflicts_with = "uninstall")]
    pattern: Vec<String>,
    /// Remove what install added: the marked attribute lines and the two config keys.
    #[arg(long)]
    uninstall: bool,
}

const MERGE2_ABOUT: &str = "Lays a patch (src) onto a file (dest): kyaml's merge2";

const MERGE2_LONG_ABOUT: &str = "\
Lays src onto dest by structure and writes the result to -o or stdout (kyaml's merge2, what
kustomize's strategic-merge patches do). A field src has wins; a field only dest has stays;
null in src removes the field; list elements are paired by merge key and src's new ones go
after dest's (--prepend: before). `$patch: delete` in src removes the map or element it sits
on, `$patch: replace` replaces it, a `- $patch: delete|replace` element applies to its list.
The result is dest's text with src's changes spliced in. There is no line-merge fallback
without a base: input that is not YAML is an error (exit 2).";

#[derive(Args, Debug)]
struct Merge2Args {
    /// The patch laid onto dest.
    #[arg(long, value_name = "FILE")]
    src: PathBuf,
    /// The file patched, whose text the result keeps.
    #[arg(long, value_name = "FILE")]
    dest: PathBuf,
    /// Write the result here (atomically) instead of to stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Put src's new list elements before dest's instead of after them.
    #[arg(long)]
    prepend: bool,
}

/// What to do where both sides changed the same thing differently.
#[derive(ValueEnum, Clone, Copy, Debug)]
enum OnConflict {
    /// Keep both versions in conflict markers.
    Mark,
    /// Take theirs (kyaml/kpt merge3).
    Theirs,
    /// Keep ours.
    Ours,
}

impl From<OnConflict> for Policy {
    fn from(o: OnConflict) -> Policy {
        match o {
            OnConflict::Mark => Policy::Mark,
            OnConflict::Theirs => Policy::Theirs,
            OnConflict::Ours => Policy::Ours,
        }
    }
}

/// The merge options every merging command shares.
#[derive(Args, Debug)]
struct MergeFlags {
    /// What to do where both sides changed the same thing differently.
    #[arg(long, value_enum, default_value_t = OnConflict::Mark)]
    on_conflict: OnConflict,
    /// Largest version (bytes) merged by structure; larger files use git's line merge.
    #[arg(long, value_name = "BYTES", default_value_t = crate::options::DEFAULT_MAX_SIZE)]
    max_size: usize,
    /// Say nothing about a file that merges cleanly; conflicts and errors are still reported.
    #[arg(short, long)]
    quiet: bool,
}

/// How conflicts are marked: the options of the forms that take labels from their caller.
#[derive(Args, Debug)]
struct MarkerFlags {
    /// Length of the conflict markers.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    marker_size: Option<u16>,
    /// Add the `|||||||` section with the base version to each conflict.
    #[arg(long)]
    diff3: bool,
    /// Label after the `|||||||` marker.
    #[arg(long, value_name = "LABEL", allow_hyphen_values = true)]
    base_label: Option<String>,
    /// Label after the `<<<<<<<` marker.
    #[arg(long, value_name = "LABEL", allow_hyphen_values = true)]
    ours_label: Option<String>,
    /// Label after the `>>>>>>>` marker.
    #[arg(long, value_name = "LABEL", allow_hyphen_values = true)]
    theirs_label: Option<String>,
}

#[derive(Args, Debug)]
struct Merge3Args {
    /// The common ancestor: a file, a folder, or a git tree or file as REV:PATH.
    #[arg(long, value_name = "FILE|DIR|REV:PATH", visible_aliases = ["ancestor", "original"])]
    base: PathBuf,
    /// The local version, whose text the result keeps (a folder is updated in place).
    #[arg(long, value_name = "FILE|DIR", visible_aliases = ["dest", "local"])]
    ours: PathBuf,
    /// The other (upstream) version, whose changes are merged in.
    #[arg(long, value_name = "FILE|DIR|REV:PATH", visible_aliases = ["updated", "upstream"])]
    theirs: PathBuf,
    /// Write the result here (atomically) instead of to stdout; for folders, into this new
    /// or empty folder instead of updating --ours in place.
    #[arg(short = 'o', long = "output", value_name = "FILE|DIR")]
    output: Option<PathBuf>,
    /// Write nothing: print a unified diff of every file the merge would change.
    #[arg(long)]
    dry_run: bool,

    /// The file's path in the repository, for messages and for the rules that depend on its
    /// name (a kustomization.yaml that names no kind is a kustomization); default: --ours.
    #[arg(long, value_name = "PATH")]
    path: Option<PathBuf>,
    #[command(flatten)]
    merge: MergeFlags,
    #[command(flatten)]
    markers: MarkerFlags,
}

#[derive(Args, Debug)]
struct DriverArgs {
    /// The common ancestor (git's %O).
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// Our version (git's %A); the result is written here.
    #[arg(value_name = "OURS")]
    ours: PathBuf,
    /// Their version (git's %B).
    #[arg(value_name = "THEIRS")]
    theirs: PathBuf,
    /// Git's conflict marker size (%L); --marker-size, when given, wins.
    #[arg(value_name = "MARKER_SIZE", value_parser = clap::value_parser!(u16).range(1..))]
    git_marker_size: Option<u16>,
    /// The path of the file in the repository (%P), used in messages.
    #[arg(value_name = "PATH")]
    path: Option<PathBuf>,
    #[command(flatten)]
    merge: MergeFlags,
    #[command(flatten)]
    markers: MarkerFlags,
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    run(std::env::args_os())
}

/// Runs the command line on `args` (the program name first) and returns the exit code.
///
/// A panic outside the merge (which catches its own) still ends in one error line and
/// exit 2, so git never sees a half-finished driver without a reason.
pub fn run<I, T>(args: I) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return e.exit_code();
        }
    };
    let result = catch_unwind(AssertUnwindSafe(|| match cli.command {
        Command::Merge3(a) => files::merge3(a),
        Command::Driver(a) => files::driver(a),
        Command::Merge2(a) => files::merge2(a),
        Command::Install(a) => install::install(a),
        Command::Doctor => doctor::doctor(),
        Command::Solve(a) => solve::solve(a),
        Command::Review(a) => review::review(a),
        Command::Completions { shell } => docs::completions(shell),
        Command::Man { dir } => docs::man(dir.as_deref()),
    }));
    match result {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("kmerge: error: {e:#}");
            EXIT_ERROR
        }
        Err(_) => {
            eprintln!("kmerge: error: internal error");
            EXIT_ERROR
        }
    }
}

/// The merge options of the command line: `marker_size` and `style` as the form decides
/// them (git's values for the driver), the labels given or the defaults.
fn options(
    merge: &MergeFlags,
    markers: &MarkerFlags,
    marker_size: Option<u16>,
    style: ConflictStyle,
) -> MergeOptions {
    let defaults = Labels::default();
    MergeOptions {
        policy: merge.on_conflict.into(),
        marker_size: marker_size.map_or(7, usize::from),
        style,
        labels: Labels {
            base: label(&markers.base_label, defaults.base),
            ours: label(&markers.ours_label, defaults.ours),
            theirs: label(&markers.theirs_label, defaults.theirs),
        },
        mode: crate::options::Mode::ThreeWay,
        max_size: merge.max_size,
        file_name: None,
    }
}

/// A label as given, or the default when absent or when an older git passed its
/// placeholder through unexpanded.
fn label(given: &Option<String>, default: String) -> String {
    match given.as_deref() {
        None | Some("%S" | "%X" | "%Y") => default,
        Some(l) => l.to_string(),
    }
}

/// What a merge says about a file on stderr, each line after `kmerge: <path>: `. `quiet`
/// keeps a clean merge silent.
fn report(outcome: &Outcome, path: &Path, quiet: bool) {
    if quiet && !outcome.conflicted {
        return;
    }
    for line in said(outcome) {
        eprintln!("kmerge: {}: {line}", path.display());
    }
}

/// The lines [`report`] prints about a merged file, one per message: git shows the driver's
/// stderr among its own output, and a reason spanning lines (a YAML error with a snippet)
/// would read as several messages. Where the structural merge resolved conflicts git's line
/// merge left, one line says so first: git's output would otherwise show nothing of what
/// kmerge did.
fn said(outcome: &Outcome) -> Vec<String> {
    let resolved = (!outcome.conflicted && outcome.resolved_hunks > 0)
        .then(|| resolved(outcome.resolved_hunks));
    resolved
        .into_iter()
        .chain(outcome.messages.iter().map(|m| one_line(m.text())))
        .collect()
}

/// What the structural merge did that git's line merge could not.
fn resolved(hunks: usize) -> String {
    let s = if hunks == 1 { "" } else { "s" };
    format!("merged {hunks} conflicting hunk{s} by structure")
}

fn one_line(message: &str) -> String {
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The commit's abbreviated id, as git abbreviates it (`core.abbrev`, unique).
fn short(repo: &git2::Repository, id: git2::Oid) -> String {
    repo.find_object(id, None)
        .and_then(|o| o.short_id())
        .ok()
        .and_then(|buf| buf.as_str().ok().map(str::to_string))
        .unwrap_or_else(|| id.to_string())
}

fn exit_code(outcome: &Outcome) -> i32 {
    if outcome.conflicted {
        EXIT_CONFLICT
    } else {
        EXIT_CLEAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clap_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    #[test]
    fn messages_fit_on_one_line() {
        assert_eq!(
            one_line("YAML error at line 3:\n  found a tab\r\n"),
            "YAML error at line 3: found a tab"
        );
    }

    #[test]
    fn placeholder_labels_mean_defaults() {
        assert_eq!(label(&Some("%S".into()), "base".into()), "base");
        assert_eq!(label(&Some("%X".into()), "ours".into()), "ours");
        assert_eq!(label(&Some("%Y".into()), "theirs".into()), "theirs");
        assert_eq!(label(&Some("HEAD".into()), "ours".into()), "HEAD");
        assert_eq!(label(&None, "ours".into()), "ours");
    }
}
