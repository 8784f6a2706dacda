//! Runs the built `qpl-parquet` binary end to end: `verify` on good files (JSON lines, exit 0),
//! on corrupt copies (bytes flipped inside data pages, truncations: `error` lines and exit 2,
//! never a panic), the demo mode; `bench`'s table; `filter`'s count against the library's and
//! the parquet crate's.

use std::fs::File;
use std::path::{Path as FilePath, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use parquet::file::reader::{FileReader, SerializedFileReader};
use qpl_examples::parquet_tool::{files, filter};
use serde_json::Value;

/// A few files of the test set, written once.
fn file(name: &str) -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("qpl_parquet_cli");
        std::fs::create_dir_all(&dir).unwrap();
        files::write_test_files(&dir).expect("test files");
        dir
    });
    dir.join(name)
}

/// Runs `qpl-parquet args`: (exit code, stdout, stderr).
fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_qpl-parquet"))
        .args(args)
        .output()
        .expect("qpl-parquet starts");
    (
        output
            .status
            .code()
            .expect("exited, not killed by a signal"),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

const KEYS: [&str; 9] = [
    "file",
    "row_group",
    "column",
    "physical_type",
    "encodings",
    "values",
    "result",
    "detail",
    "path",
];

/// Parses `verify`'s stdout: every line a JSON object with exactly the documented keys, in
/// order.
fn json_lines(stdout: &str) -> Vec<serde_json::Map<String, Value>> {
    stdout
        .lines()
        .map(|line| {
            let value: Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            let object = value.as_object().expect("an object").clone();
            assert_eq!(object.len(), KEYS.len(), "{line}");
            // serde_json's map sorts its keys: check the order in the text.
            let positions: Vec<usize> = KEYS
                .iter()
                .map(|key| {
                    line.find(&format!("\"{key}\":"))
                        .unwrap_or_else(|| panic!("no key {key}: {line}"))
                })
                .collect();
            assert!(
                positions.windows(2).all(|w| w[0] < w[1]),
                "key order: {line}"
            );
            let result = object["result"].as_str().unwrap();
            assert!(["ok", "mismatch", "error"].contains(&result), "{line}");
            assert_eq!(object["detail"] == "", result == "ok", "{line}");
            object
        })
        .collect()
}

fn chunks_of(file: &FilePath) -> usize {
    let reader = SerializedFileReader::new(File::open(file).unwrap()).unwrap();
    reader.num_row_groups()
        * reader
            .metadata()
            .file_metadata()
            .schema_descr()
            .num_columns()
}

#[test]
fn verify_good_files() {
    let files = [file("encodings_v1_snappy.parquet"), file("edge_v2.parquet")];
    let args: Vec<&str> = ["verify", "--path", "fallback"]
        .into_iter()
        .chain(files.iter().map(|f| f.to_str().unwrap()))
        .collect();
    let (code, stdout, stderr) = run(&args);
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), chunks_of(&files[0]) + chunks_of(&files[1]));
    for line in &lines {
        assert_eq!(line["result"], "ok", "{line:?}");
        assert!(line["row_group"].is_u64() && line["column"].is_string());
        assert!(line["encodings"].as_array().is_some_and(|e| !e.is_empty()));
        assert!(
            line["path"] == "fallback" || line["path"].is_null(),
            "{line:?}"
        );
    }
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        lines[0]["file"].as_str().unwrap(),
        files[0].to_str().unwrap()
    );
}

#[test]
fn verify_without_files_checks_the_demo_file() {
    let (code, stdout, stderr) = run(&["verify"]);
    let lines = json_lines(&stdout);
    // The demo file: 2 row groups of 10 columns.
    assert_eq!(lines.len(), 20, "{stderr}");
    assert!(lines.iter().any(|l| l["column"] == "a"));
    assert_eq!(code, 0, "{stderr}");
}

/// Offsets `numerator / denominator` of the way through each chunk's data pages in `file`
/// (from the chunk metadata: inside some data page's header or body).
fn chunk_points(file: &FilePath, numerator: usize, denominator: usize) -> Vec<usize> {
    let reader = SerializedFileReader::new(File::open(file).unwrap()).unwrap();
    let mut out = Vec::new();
    for rg in reader.metadata().row_groups() {
        for chunk in rg.columns() {
            let start = chunk.data_page_offset() as usize;
            let (dict_start, len) = chunk.byte_range();
            let end = (dict_start + len) as usize;
            out.push(start + (end - start) * numerator / denominator);
        }
    }
    out
}

/// Checks a corrupt file's run: no panic, JSON lines only, exit 2 with error lines or (when a
/// flip happened to leave the data decodable by both) 0/1 consistent with the lines.
fn check_corrupt_run(path: &FilePath, expect_error: bool) {
    let (code, stdout, stderr) = run(&["verify", path.to_str().unwrap()]);
    assert!(!stderr.contains("panicked"), "{}: {stderr}", path.display());
    let lines = json_lines(&stdout);
    assert!(!lines.is_empty());
    let errors = lines.iter().filter(|l| l["result"] == "error").count();
    let mismatches = lines.iter().filter(|l| l["result"] == "mismatch").count();
    let expected_code = if errors > 0 {
        2
    } else if mismatches > 0 {
        1
    } else {
        0
    };
    assert_eq!(code, expected_code, "{}: {stdout}", path.display());
    if expect_error {
        assert!(errors > 0, "{}: {stdout}", path.display());
    }
}

#[test]
fn verify_corrupt_files_reports_errors_without_panicking() {
    let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("qpl_parquet_cli_corrupt");
    std::fs::create_dir_all(&dir).unwrap();

    // GZIP pages carry a CRC: a flipped byte inside a compressed page is an error for sure.
    let gzip = file("encodings_v2_gzip.parquet");
    let bytes = std::fs::read(&gzip).unwrap();
    let mut flipped = bytes.clone();
    for at in chunk_points(&gzip, 1, 2) {
        flipped[at] ^= 0x5a;
    }
    let path = dir.join("gzip_flipped.parquet");
    std::fs::write(&path, &flipped).unwrap();
    check_corrupt_run(&path, true);

    // Uncompressed pages: flipped bytes reach the decoders themselves (lengths, headers, bit
    // widths...). Every chunk is hit, at three places in turn; whatever each chunk's outcome,
    // no panic and a consistent exit code.
    for name in [
        "encodings_v1_uncompressed.parquet",
        "encodings_v2_uncompressed.parquet",
    ] {
        let plain = file(name);
        let bytes = std::fs::read(&plain).unwrap();
        for (numerator, denominator) in [(1, 3), (1, 2), (5, 6)] {
            let mut flipped = bytes.clone();
            for at in chunk_points(&plain, numerator, denominator) {
                for byte in &mut flipped[at..at + 4] {
                    *byte ^= 0xff;
                }
            }
            let path = dir.join(format!("flipped_{numerator}_{denominator}_{name}"));
            std::fs::write(&path, &flipped).unwrap();
            check_corrupt_run(&path, false);
        }
    }
    let bytes = std::fs::read(file("encodings_v1_uncompressed.parquet")).unwrap();

    // Truncated: the footer is gone: one error line with nulls, exit 2.
    let path = dir.join("truncated.parquet");
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let (code, stdout, _) = run(&["verify", path.to_str().unwrap()]);
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["result"], "error");
    assert!(lines[0]["row_group"].is_null() && lines[0]["column"].is_null());
    assert_eq!(code, 2);

    // Not a file at all, and a good file next to it: both reported, exit 2.
    let missing = dir.join("missing.parquet");
    let good = file("edge_v1.parquet");
    let (code, stdout, _) = run(&["verify", missing.to_str().unwrap(), good.to_str().unwrap()]);
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 1 + chunks_of(&good));
    assert_eq!(lines[0]["result"], "error");
    assert!(lines[1..].iter().all(|l| l["result"] == "ok"));
    assert_eq!(code, 2);
}

#[test]
fn bench_prints_one_row_per_chunk() {
    let demo = file("demo.parquet");
    let (code, stdout, stderr) = run(&["bench", demo.to_str().unwrap(), "--path", "fallback"]);
    let header = stdout
        .lines()
        .position(|l| l.starts_with("rg "))
        .unwrap_or_else(|| panic!("no table: {stdout}"));
    let rows: Vec<&str> = stdout
        .lines()
        .skip(header + 1)
        .take_while(|l| !l.starts_with('[') && !l.starts_with("total"))
        .collect();
    assert_eq!(rows.len(), chunks_of(&demo), "{stdout}");
    for row in &rows {
        assert!(
            row.ends_with("fallback") || row.ends_with("cpu codecs") || row.contains("error ["),
            "{row}"
        );
    }
    assert!(stdout.contains("speedup"));
    // The Arrow readers' table: the whole file, then each of the demo's 10 top-level columns.
    let arrow = stdout
        .lines()
        .position(|l| l.trim_start().starts_with("columns  rows"))
        .unwrap_or_else(|| panic!("no Arrow readers' table: {stdout}"));
    let arrow_rows: Vec<&str> = stdout
        .lines()
        .skip(arrow + 1)
        .take_while(|l| !l.starts_with("total"))
        .collect();
    assert_eq!(arrow_rows.len(), 11, "{stdout}");
    assert!(
        arrow_rows[0].starts_with("(all columns)  10000"),
        "{stdout}"
    );
    assert!(stdout.contains("total (all columns): qpl-rs "), "{stdout}");
    assert_eq!(code, 0, "{stdout}{stderr}");

    let (code, _, stderr) = run(&["bench", "/no/such/file.parquet"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("/no/such/file.parquet"));
}

#[test]
fn filter_prints_the_count() {
    let demo = file("demo.parquet");
    let expected =
        filter::filter(&demo, "a", "Paris", Some("id"), qpl_rs::Path::Auto).expect("filter");
    assert!(expected.matches > 0);
    let (code, stdout, stderr) = run(&[
        "filter",
        demo.to_str().unwrap(),
        "--column",
        "a",
        "--eq",
        "Paris",
        "--select",
        "id",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "a == \"Paris\": {} of {} rows",
            expected.matches, expected.rows
        )),
        "{stdout}"
    );
    assert!(stdout.contains("path "), "{stdout}");
    assert!(
        stdout.contains(&format!("id: {} values", expected.matches)),
        "{stdout}"
    );

    let (code, _, stderr) = run(&[
        "filter",
        demo.to_str().unwrap(),
        "--column",
        "nope",
        "--eq",
        "1",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("no column nope"), "{stderr}");
    let (code, _, stderr) = run(&[
        "filter",
        demo.to_str().unwrap(),
        "--column",
        "qty",
        "--eq",
        "x",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not an INT32"), "{stderr}");
}

#[test]
fn filter_and_bench_on_corrupt_files_fail_cleanly() {
    let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("qpl_parquet_cli_corrupt_filter");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["demo.parquet", "encodings_v1_uncompressed.parquet"] {
        let good = file(name);
        let bytes = std::fs::read(&good).unwrap();
        let mut variants = Vec::new();
        for (numerator, denominator) in [(1, 4), (1, 2), (3, 4)] {
            let mut flipped = bytes.clone();
            for at in chunk_points(&good, numerator, denominator) {
                for byte in &mut flipped[at..at + 3] {
                    *byte = byte.wrapping_add(0x61);
                }
            }
            variants.push((format!("flipped_{numerator}_{denominator}_{name}"), flipped));
        }
        variants.push((
            format!("truncated_{name}"),
            bytes[..bytes.len() * 2 / 3].to_vec(),
        ));
        let column = if name == "demo.parquet" {
            "a"
        } else {
            "dict_byte_array"
        };
        for (variant, contents) in variants {
            let path = dir.join(&variant);
            std::fs::write(&path, contents).unwrap();
            let path = path.to_str().unwrap();
            for args in [
                vec![
                    "filter",
                    path,
                    "--column",
                    column,
                    "--eq",
                    "Paris",
                    "--select",
                    "plain_int32",
                ],
                vec!["filter", path, "--column", column, "--eq", "Paris"],
                vec!["bench", path],
            ] {
                // `--select plain_int32` does not exist in the demo file: an error too.
                let (code, stdout, stderr) = run(&args);
                assert!(
                    code == 0 || code == 2,
                    "{args:?}: exit {code}\n{stdout}\n{stderr}"
                );
                // A caught panic is reported as "panicked: ..." (none happens on these files).
                assert!(
                    !stderr.contains("panicked") && !stdout.contains("panicked"),
                    "{args:?}: {stdout}{stderr}"
                );
                if code == 2 {
                    assert!(
                        stderr.contains("qpl-parquet") || stdout.contains("error ["),
                        "{args:?}: says why: {stderr}"
                    );
                }
            }
        }
    }
}

/// A kernel tier forced by `QPL_FALLBACK_KERNELS` that cannot run makes every chunk an error
/// (exit 2), as it makes every job fail, instead of the codecs decoding the file quietly on
/// another tier.
#[test]
fn verify_refuses_a_kernel_tier_that_cannot_run() {
    let file = file("encodings_v2_uncompressed.parquet");
    let output = Command::new(env!("CARGO_BIN_EXE_qpl-parquet"))
        .args(["verify", "--path", "fallback", file.to_str().unwrap()])
        .env("QPL_FALLBACK_KERNELS", "no-such-tier")
        .output()
        .expect("qpl-parquet starts");
    let lines = json_lines(&String::from_utf8(output.stdout).unwrap());
    assert_eq!(lines.len(), chunks_of(&file));
    for line in &lines {
        assert_eq!(line["result"], "error", "{line:?}");
        let detail = line["detail"].as_str().unwrap();
        assert!(detail.contains("QPL_FALLBACK_KERNELS"), "{detail}");
    }
    assert_eq!(output.status.code(), Some(2));
}
