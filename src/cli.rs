//! The command line (placeholder until the CLI lands).

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    2
}
