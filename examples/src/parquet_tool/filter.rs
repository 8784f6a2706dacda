//! Stub of `qpl-parquet filter` until the real module (branch h6) is merged.

use std::process::ExitCode;

/// Not written yet: says so and fails.
pub fn run(
    file: &std::path::Path,
    column: &str,
    eq: &str,
    select: Option<&str>,
    path: qpl_rs::Path,
) -> ExitCode {
    let _ = (file, column, eq, select, path);
    eprintln!("qpl-parquet filter: not available in this build yet");
    ExitCode::from(2)
}
