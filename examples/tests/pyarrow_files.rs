//! Files written by another writer than arrow-rs: Arrow C++ through pyarrow
//! (`examples/scripts/write_pyarrow_files.py`), verified chunk by chunk by the library function
//! behind `qpl-parquet verify`. Skipped, with a message, where pyarrow is not installed.

use std::collections::BTreeSet;
use std::path::{Path as FilePath, PathBuf};
use std::process::Command;

use qpl_examples::parquet_tool::verify::{self, Outcome};
use qpl_rs::Path;

/// Runs the script into a fresh directory; `None` (after saying why) when pyarrow is missing.
fn pyarrow_files() -> Option<Vec<PathBuf>> {
    let has_pyarrow = Command::new("python3")
        .args(["-c", "import pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyarrow {
        println!("skipped: pyarrow not installed (pip install pyarrow)");
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
    assert!(files.len() >= 15, "the script wrote {} files", files.len());
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
