//! `kmerge completions SHELL` and `kmerge man`: the shell completion scripts and manual pages,
//! generated from the clap definitions so they never drift from the real options.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use clap::CommandFactory;

use super::{Cli, EXIT_CLEAN};

pub(super) fn completions(shell: clap_complete::Shell) -> anyhow::Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "kmerge", &mut script);
    write_stdout(&script)?;
    Ok(EXIT_CLEAN)
}

/// kmerge(1) to stdout, or with `dir` that page and one per command (`kmerge-solve.1`, ...)
/// written there.
pub(super) fn man(dir: Option<&Path>) -> anyhow::Result<i32> {
    let command = Cli::command();
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating the folder {}", dir.display()))?;
            clap_mangen::generate_to(command, dir)
                .with_context(|| format!("writing manual pages to {}", dir.display()))?;
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command)
                .render(&mut page)
                .context("rendering the manual page")?;
            write_stdout(&page)?;
        }
    }
    Ok(EXIT_CLEAN)
}

fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .context("writing to stdout")
}
