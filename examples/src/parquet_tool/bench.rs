//! Stub of `qpl-parquet bench` until the real module (branch h6) is merged.

use std::process::ExitCode;

/// Not written yet: says so and fails.
pub fn run(file: &std::path::Path, path: Option<qpl_rs::Path>) -> ExitCode {
    let _ = (file, path);
    eprintln!("qpl-parquet bench: not available in this build yet");
    ExitCode::from(2)
}
