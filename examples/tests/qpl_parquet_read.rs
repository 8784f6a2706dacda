//! Runs the built `qpl-parquet read` end to end: files of arrow-rs's writer (the test set of
//! `parquet_tool::files`) and of pyarrow (`scripts/write_pyarrow_files.py`, where pyarrow is
//! installed) read by qpl-rs's reader and compared with arrow-rs's (`ok`, exit 0); `--columns`,
//! `--batch-size`, `--filter` (the row count against one computed here from arrow-rs's own
//! reading), `--no-check`; corrupt and missing files (an `error` line, exit 2, no panic).

use std::path::{Path as FilePath, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use arrow_array::{Array, Int32Array, StringArray};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use qpl_examples::parquet_tool::files;
use serde_json::{Map, Value};

/// The test set of `parquet_tool::files`, written once.
fn file(name: &str) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("qpl_parquet_read");
        std::fs::create_dir_all(&dir).unwrap();
        files::write_test_files(&dir).expect("test files");
        dir
    });
    dir.join(name)
}

/// pyarrow's files, or `None` (after saying so) without pyarrow.
fn pyarrow_files() -> Option<Vec<PathBuf>> {
    static FILES: OnceLock<Option<Vec<PathBuf>>> = OnceLock::new();
    let files = FILES
        .get_or_init(|| {
            let has_pyarrow = Command::new("python3")
                .args(["-c", "import pyarrow"])
                .output()
                .is_ok_and(|o| o.status.success());
            if !has_pyarrow {
                return None;
            }
            let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("qpl_parquet_read_pyarrow");
            let _ = std::fs::remove_dir_all(&dir);
            let script =
                FilePath::new(env!("CARGO_MANIFEST_DIR")).join("scripts/write_pyarrow_files.py");
            let output = Command::new("python3")
                .arg(&script)
                .arg(&dir)
                .output()
                .expect("python3 runs");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
            Some(
                String::from_utf8(output.stdout)
                    .unwrap()
                    .lines()
                    .map(PathBuf::from)
                    .collect(),
            )
        })
        .clone();
    if files.is_none() {
        println!("skipped: pyarrow not installed (pip install pyarrow)");
    }
    files
}

/// Runs `qpl-parquet read args`: (exit code, stdout, stderr).
fn read(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_qpl-parquet"))
        .arg("read")
        .args(args)
        .output()
        .expect("qpl-parquet starts");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
    (
        output.status.code().expect("exited, not killed"),
        String::from_utf8(output.stdout).unwrap(),
        stderr,
    )
}

const KEYS: [&str; 8] = [
    "file",
    "rows",
    "batches",
    "columns",
    "result",
    "detail",
    "ms",
    "arrow_rs_ms",
];

/// Parses `read`'s stdout: every line a JSON object with exactly the documented keys, in
/// order, consistent (detail empty exactly when ok; counts and times null exactly on error).
fn parse(stdout: &str) -> Vec<Map<String, Value>> {
    stdout
        .lines()
        .map(|line| {
            let value: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            let object = value.as_object().expect("an object").clone();
            assert_eq!(object.len(), KEYS.len(), "{line}");
            let positions: Vec<usize> = KEYS
                .iter()
                .map(|key| {
                    line.find(&format!("\"{key}\":"))
                        .unwrap_or_else(|| panic!("no key {key}: {line}"))
                })
                .collect();
            assert!(positions.windows(2).all(|w| w[0] < w[1]), "{line}");
            let result = object["result"].as_str().unwrap();
            assert!(["ok", "mismatch", "error"].contains(&result), "{line}");
            assert_eq!(object["detail"] == "", result == "ok", "{line}");
            for key in ["rows", "batches", "columns", "ms"] {
                assert_eq!(object[key].is_null(), result == "error", "{line}");
            }
            object
        })
        .collect()
}

fn rows_of(file: &FilePath) -> u64 {
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(file).unwrap()).unwrap();
    builder.metadata().file_metadata().num_rows() as u64
}

fn args(paths: &[PathBuf]) -> Vec<&str> {
    paths.iter().map(|p| p.to_str().unwrap()).collect()
}

#[test]
fn arrow_rs_files_read_ok() {
    let paths = [
        file("encodings_v1_snappy.parquet"),
        file("encodings_v2_gzip.parquet"),
        file("tiny_pages_v2.parquet"),
        file("edge_v1.parquet"),
        file("edge_v2_one_row.parquet"),
        file("demo.parquet"),
    ];
    let (code, stdout, stderr) = read(&args(&paths));
    let lines = parse(&stdout);
    assert_eq!(lines.len(), paths.len(), "{stderr}");
    for (line, path) in lines.iter().zip(&paths) {
        assert_eq!(line["file"], path.to_str().unwrap());
        assert_eq!(line["result"], "ok", "{line:?}");
        assert_eq!(line["rows"], rows_of(path), "{line:?}");
        assert!(line["arrow_rs_ms"].is_number(), "{line:?}");
    }
    // The demo file: 10 columns, 10000 rows in batches of 8192 (the default).
    assert_eq!(lines[5]["columns"], 10);
    assert_eq!(lines[5]["batches"], 2);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn pyarrow_files_read_ok() {
    let Some(paths) = pyarrow_files() else {
        return;
    };
    assert!(!paths.is_empty());
    let (code, stdout, stderr) = read(&args(&paths));
    let lines = parse(&stdout);
    assert_eq!(lines.len(), paths.len(), "{stderr}");
    for (line, path) in lines.iter().zip(&paths) {
        assert_eq!(line["result"], "ok", "{line:?}");
        assert_eq!(line["rows"], rows_of(path), "{line:?}");
    }
    assert_eq!(code, 0, "{stdout}");
    // Small batches: many more of them, still equal.
    let (code, stdout, _) = read(&["--batch-size", "100", paths[0].to_str().unwrap()]);
    let lines = parse(&stdout);
    assert_eq!(lines[0]["result"], "ok", "{stdout}");
    assert_eq!(lines[0]["batches"], rows_of(&paths[0]).div_ceil(100));
    assert_eq!(code, 0);
}

#[test]
fn columns_project_top_level_fields() {
    let demo = file("demo.parquet");
    let (code, stdout, _) = read(&["--columns", "a,tags,qty", demo.to_str().unwrap()]);
    let lines = parse(&stdout);
    assert_eq!(lines[0]["result"], "ok", "{stdout}");
    assert_eq!(lines[0]["columns"], 3);
    assert_eq!(lines[0]["rows"], 10000);
    assert_eq!(code, 0);
    // An unknown column is an error line naming the file's columns.
    let (code, stdout, _) = read(&["--columns", "a,nope", demo.to_str().unwrap()]);
    let lines = parse(&stdout);
    assert_eq!(lines[0]["result"], "error");
    let detail = lines[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("no column nope") && detail.contains("tags"),
        "{detail}"
    );
    assert_eq!(code, 2);
}

/// Rows of `file` where the top-level column `name` equals `value`, counted on arrow-rs's
/// unfiltered reading.
fn count_where(file: &FilePath, name: &str, value: &str) -> u64 {
    let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(file).unwrap())
        .unwrap()
        .build()
        .unwrap();
    let mut count = 0;
    for batch in reader {
        let batch = batch.unwrap();
        let column = batch.column_by_name(name).unwrap();
        if let Some(strings) = column.as_any().downcast_ref::<StringArray>() {
            count += strings.iter().filter(|v| *v == Some(value)).count() as u64;
        } else {
            let ints = column.as_any().downcast_ref::<Int32Array>().unwrap();
            let value: i32 = value.parse().unwrap();
            count += ints.iter().filter(|v| *v == Some(value)).count() as u64;
        }
    }
    count
}

#[test]
fn filter_keeps_the_matching_rows() {
    let demo = file("demo.parquet");
    let mut cases = vec![(demo.clone(), "a", "Paris"), (demo.clone(), "qty", "-30")];
    if let Some(paths) = pyarrow_files() {
        let dictionary = paths
            .iter()
            .find(|p| p.to_str().unwrap().contains("pyarrow_dict_v2"))
            .expect("a pyarrow dictionary file");
        cases.push((dictionary.clone(), "dict_string", "Paris"));
        cases.push((dictionary.clone(), "dict_int32", "-100"));
    }
    for (path, column, value) in cases {
        let expected = count_where(&path, column, value);
        assert!(expected > 0, "{column} = {value} matches nothing");
        let filter = format!("{column}={value}");
        let (code, stdout, _) = read(&["--filter", &filter, path.to_str().unwrap()]);
        let lines = parse(&stdout);
        assert_eq!(lines[0]["result"], "ok", "{filter}: {stdout}");
        assert_eq!(lines[0]["rows"], expected, "{filter}: {stdout}");
        assert_eq!(code, 0);
    }
}

#[test]
fn filter_errors_are_error_lines() {
    let demo = file("demo.parquet");
    // A value the column's type cannot hold, a repeated column, no such column: error lines.
    for (filter, expected) in [
        ("qty=many", "--filter \"many\" is not an INT32"),
        ("tags=x", "is repeated"),
        ("missing=1", "no column missing"),
    ] {
        let (code, stdout, _) = read(&["--filter", filter, demo.to_str().unwrap()]);
        let lines = parse(&stdout);
        assert_eq!(lines[0]["result"], "error", "{filter}");
        assert!(
            lines[0]["detail"].as_str().unwrap().contains(expected),
            "{filter}: {stdout}"
        );
        assert_eq!(code, 2);
    }
}

#[test]
fn no_check_still_times_both_readers() {
    let demo = file("demo.parquet");
    let (code, stdout, _) = read(&["--no-check", "--threads", "2", demo.to_str().unwrap()]);
    let lines = parse(&stdout);
    assert_eq!(lines[0]["result"], "ok");
    assert_eq!(lines[0]["rows"], 10000);
    assert!(lines[0]["ms"].as_f64().unwrap() > 0.0);
    assert!(lines[0]["arrow_rs_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(code, 0);
}

#[test]
fn corrupt_and_missing_files_are_error_lines() {
    let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("qpl_parquet_read_corrupt");
    std::fs::create_dir_all(&dir).unwrap();
    let good = file("encodings_v1_uncompressed.parquet");
    let bytes = std::fs::read(&good).unwrap();
    let truncated = dir.join("truncated.parquet");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let garbage = dir.join("garbage.parquet");
    std::fs::write(&garbage, b"PAR1 this is not a parquet file PAR1").unwrap();
    // The footer's length points before the file's start.
    let mut bad_footer = bytes.clone();
    let at = bad_footer.len() - 8;
    bad_footer[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let bad_footer_path = dir.join("bad_footer.parquet");
    std::fs::write(&bad_footer_path, &bad_footer).unwrap();
    let missing = dir.join("missing.parquet");
    let paths = [truncated, garbage, bad_footer_path, missing, good];
    let (code, stdout, _) = read(&args(&paths));
    let lines = parse(&stdout);
    assert_eq!(lines.len(), 5);
    for line in &lines[..4] {
        assert_eq!(line["result"], "error", "{line:?}");
    }
    assert_eq!(lines[4]["result"], "ok");
    assert_eq!(code, 2);
    // The good file alone: exit 0.
    let (code, _, _) = read(&[paths[4].to_str().unwrap()]);
    assert_eq!(code, 0);
    // No file: a usage error (clap's exit status 2), nothing on stdout.
    let (code, stdout, stderr) = read(&[]);
    assert_eq!((code, stdout.as_str()), (2, ""), "{stderr}");
}
