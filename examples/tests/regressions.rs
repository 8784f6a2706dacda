//! Files other readers met trouble with (`tests/data/regressions/`, see
//! `docs/parquet-encodings.md`): `qpl-parquet verify` on each, bounded in time so that a
//! regression to an endless loop fails the test instead of hanging it.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn regression(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/regressions")
        .join(name)
}

/// `qpl-parquet verify --path fallback FILE`, killed (and the test failed) after `limit`.
fn verify_within(file: &str, limit: Duration) -> Output {
    run_within(&["verify", "--path", "fallback"], file, &[], limit)
}

/// `qpl-parquet <command...> FILE <rest...>`, killed (and the test failed) after `limit`.
fn run_within(command: &[&str], file: &str, rest: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_qpl-parquet"))
        .args(command)
        .arg(regression(file))
        .args(rest)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qpl-parquet runs");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("verify {file} did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A v2 page of a flat BOOLEAN column with 2 bytes of repetition levels: skipped, as arrow-rs
/// and parquet-mr skip them; the chunk equals the parquet crate's reading.
#[test]
fn rle_boolean_encoding_verifies_ok() {
    let output = verify_within("rle_boolean_encoding.parquet", Duration::from_secs(20));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains(r#""values":68,"result":"ok""#), "{stdout}");
}

/// A damaged page header the parquet crate's own page reader skips through forever: the chunk's
/// page headers, walked as the crate reads them before it reads them (and every read bounded by
/// the column chunk), make it an error line and exit status 2 at once.
#[test]
fn hang_page_header_skip_ends_with_an_error() {
    let start = Instant::now();
    let output = verify_within("hang-page-header-skip.parquet", Duration::from_secs(20));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(2), "{stdout}");
    assert!(stdout.contains(r#""result":"error""#), "{stdout}");
    assert!(stdout.contains("page header"), "{stdout}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

/// `bench` and `filter` read the same pages through the same bound: an error, exit 2.
#[test]
fn hang_page_header_skip_ends_bench_and_filter_with_an_error() {
    let file = "hang-page-header-skip.parquet";
    let limit = Duration::from_secs(20);
    for output in [
        run_within(&["bench"], file, &[], limit),
        run_within(
            &["filter"],
            file,
            &["--column", "mycol", "--eq", "1"],
            limit,
        ),
    ] {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("page header"), "{stderr}");
    }
}

/// Dremio's footer (a `list<struct>` where parquet-format has `i32 bloom_filter_length`, field
/// 15 of ColumnMetaData) is refused by the parquet crate 48 and later; `verify` repairs it as
/// the Arrow reader does (the field skipped, as pyarrow skips it) and checks its one chunk
/// against the crate's column reader: ok, exit 0, and the 39 values pyarrow reads.
#[test]
fn dict_page_offset_zero_verifies() {
    let output = verify_within("dict-page-offset-zero.parquet", Duration::from_secs(20));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stdout}{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(lines[0].contains(r#""result":"ok""#), "{stdout}");
    assert!(lines[0].contains(r#""values":39"#), "{stdout}");
}
