//! Every example binary answers `--help` with its usage, and runs nothing.

use std::process::Command;

fn run(binary: &str, args: &[&str]) -> (i32, String) {
    let output = Command::new(binary).args(args).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    (output.status.code().unwrap_or(-1), stdout)
}

#[test]
fn demo_help_prints_the_usage_and_the_column_legend() {
    let (code, stdout) = run(env!("CARGO_BIN_EXE_qpl-demo"), &["--help"]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("Usage: qpl-demo"), "{stdout}");
    for column in [
        "path",
        "parser",
        "width",
        "operation",
        "elements",
        "src bytes",
    ] {
        assert!(
            stdout.contains(&format!("\n  {column} ")),
            "{column}: {stdout}"
        );
    }
    assert!(stdout.contains("M values/s"), "{stdout}");
    assert!(
        !stdout.contains("jobs checked"),
        "--help ran the demo: {stdout}"
    );
    // An unknown argument is refused (exit 2), not ignored.
    let (code, _) = run(env!("CARGO_BIN_EXE_qpl-demo"), &["--bogus"]);
    assert_eq!(code, 2);
}

#[test]
fn every_other_binary_prints_its_usage() {
    for (binary, name) in [
        (env!("CARGO_BIN_EXE_qpl-replay"), "qpl-replay"),
        (env!("CARGO_BIN_EXE_qpl-parquet"), "qpl-parquet"),
    ] {
        let (code, stdout) = run(binary, &["--help"]);
        assert_eq!(code, 0, "{name}: {stdout}");
        assert!(stdout.contains(&format!("Usage: {name}")), "{stdout}");
    }
}
