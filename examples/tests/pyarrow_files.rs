//! Files written by another writer than arrow-rs: Arrow C++ through pyarrow
//! (`examples/scripts/write_pyarrow_files.py`), verified chunk by chunk by the library function
//! behind `qpl-parquet verify`, and filtered by `qpl-parquet filter`'s (counts against the
//! parquet crate's reading). Skipped, with a message, where pyarrow is not installed.

use std::collections::BTreeSet;
use std::path::{Path as FilePath, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use qpl_examples::parquet_tool::filter;
use qpl_examples::parquet_tool::verify::{self, Outcome};
use qpl_rs::Path;

mod common;

/// Runs the script once into a fresh directory; `None` (after saying why) when pyarrow is
/// missing.
fn pyarrow_files() -> Option<Vec<PathBuf>> {
    static FILES: OnceLock<Option<Vec<PathBuf>>> = OnceLock::new();
    let files = FILES.get_or_init(write_pyarrow_files).clone();
    if files.is_none() {
        println!("skipped: pyarrow not installed (pip install pyarrow)");
    }
    files
}

fn write_pyarrow_files() -> Option<Vec<PathBuf>> {
    let has_pyarrow = Command::new("python3")
        .args(["-c", "import pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyarrow {
        return None;
    }
    let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("pyarrow_files");
    let _ = std::fs::remove_dir_all(&dir);
    let script = FilePath::new(env!("CARGO_MANIFEST_DIR")).join("scripts/write_pyarrow_files.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{} failed: {}",
        script.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let written: Vec<PathBuf> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    Some(written)
}

#[test]
fn every_pyarrow_file_verifies() {
    let Some(files) = pyarrow_files() else {
        return;
    };
    assert!(files.len() >= 16, "the script wrote {} files", files.len());
    let mut encodings = BTreeSet::new();
    let mut failures = Vec::new();
    for file in &files {
        assert!(file.exists(), "{}", file.display());
        for path in [Path::Auto, Path::Fallback] {
            let lines = verify::verify_file(file, path);
            assert!(!lines.is_empty(), "{}", file.display());
            for line in lines {
                encodings.extend(line.encodings.iter().cloned());
                if line.result != Outcome::Ok {
                    failures.push(format!(
                        "{} rg {:?} {:?} {:?} on {path}: {:?} {}",
                        file.file_name().unwrap().to_string_lossy(),
                        line.row_group,
                        line.column,
                        line.encodings,
                        line.result,
                        line.detail
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} chunks fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
    for e in [
        "PLAIN",
        "RLE",
        "RLE_DICTIONARY",
        "PLAIN_DICTIONARY",
        "DELTA_BINARY_PACKED",
        "DELTA_LENGTH_BYTE_ARRAY",
        "DELTA_BYTE_ARRAY",
        "BYTE_STREAM_SPLIT",
    ] {
        assert!(
            encodings.contains(e),
            "no {e} in pyarrow's files: {encodings:?}"
        );
    }
}

#[test]
fn pyarrow_dictionary_files_filter_by_index_scans() {
    let Some(files) = pyarrow_files() else {
        return;
    };
    let mut scanned = 0;
    for file in files.iter().filter(|f| {
        f.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("pyarrow_dict_"))
    }) {
        for (column, absent) in [
            ("dict_string", "Nowhere"),
            ("dict_int32", "12345"),
            ("dict_double", "0.1"),
        ] {
            let reference = common::reference_rows(file, column);
            for value in common::targets(&reference, absent) {
                common::check(file, column, &value, &reference);
            }
            let result = filter::filter(file, column, absent, None, Path::Auto).unwrap();
            assert_eq!(result.decoded_pages, 0, "{}: {column}", file.display());
            scanned += result.index_pages;
        }
    }
    assert!(scanned > 0);
}
