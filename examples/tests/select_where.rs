//! The `select-where` example (`SELECT b WHERE a = 42` with qpl-rs's query API) against
//! arrow-rs's own `RowFilter` on the same files: a nullable dictionary INT32 `a`, and `b` in
//! PLAIN, DELTA_BINARY_PACKED, BYTE_STREAM_SPLIT and dictionary (nullable too), in data pages v1
//! and v2, several pages per row group at row counts that are not multiples of 8 (so the row
//! masks cross page boundaries mid-byte), on every path this build can run.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float32Type, Int32Type, Int64Type};
use arrow_array::{Array, BooleanArray};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowPredicateFn, ParquetRecordBatchReaderBuilder, RowFilter};
use parquet::arrow::ProjectionMask;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::WriterVersion;
use parquet::file::reader::{FileReader, SerializedFileReader};
use qpl_examples::parquet_tool::files::{Column, FileSpec, Gen, Rng, Shape};
use qpl_rs::parquet::query::ChunkPages;
use qpl_rs::Path;

const B_COLUMNS: [&str; 4] = ["b_plain", "b_delta", "b_bss", "b_dict"];

fn spec(version: WriterVersion) -> FileSpec {
    FileSpec {
        version,
        compression: Compression::SNAPPY,
        row_groups: 2,
        rows_per_group: 2500,
        page_rows: 300,
        page_bytes: 1 << 20,
        seed: 42,
        columns: vec![
            Column::new(
                "a",
                Gen::I32(|rng: &mut Rng, _| rng.below(60) as i32),
                Shape::Optional,
            )
            .dictionary()
            .null_percent(15),
            Column::new(
                "b_plain",
                Gen::I32(|rng: &mut Rng, row| row as i32 - rng.below(9) as i32),
                Shape::Optional,
            ),
            Column::new(
                "b_delta",
                Gen::I64(|rng: &mut Rng, row| (row as i64) << 20 | rng.below(1000) as i64),
                Shape::Optional,
            )
            .encoding(Encoding::DELTA_BINARY_PACKED),
            Column::new(
                "b_bss",
                Gen::F32(|rng: &mut Rng, row| row as f32 / 8.0 + rng.below(3) as f32),
                Shape::Optional,
            )
            .encoding(Encoding::BYTE_STREAM_SPLIT),
            Column::new(
                "b_dict",
                Gen::Bytes(|rng: &mut Rng, _| format!("s{}", rng.below(40)).into_bytes()),
                Shape::Optional,
            )
            .utf8()
            .dictionary(),
        ],
    }
}

/// The two files (pages v1, v2) in this test's temporary directory.
fn files() -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("select_where");
    std::fs::create_dir_all(&dir).unwrap();
    [
        ("v1", WriterVersion::PARQUET_1_0),
        ("v2", WriterVersion::PARQUET_2_0),
    ]
    .into_iter()
    .map(|(name, version)| {
        let bytes = spec(version).write().unwrap();
        let path = dir.join(format!("select_where_{name}.parquet"));
        // Written aside, then renamed over the file: both tests write it while the other
        // may be running the example on it (a read of a half-written file failed with
        // "failed to fill whole buffer").
        let thread = std::thread::current().id();
        let partial = dir.join(format!("select_where_{name}.parquet.{thread:?}.partial"));
        std::fs::write(&partial, &bytes).unwrap();
        std::fs::rename(&partial, &path).unwrap();
        (path, bytes)
    })
    .collect()
}

/// arrow-rs's answer: `b` in the rows where `a = value`, one string per row, `null` for nulls.
fn arrow_answer(file: &[u8], value: i32, b: &str) -> Vec<String> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(file.to_vec())).unwrap();
    let schema = builder.parquet_schema();
    let leaf = |name: &str| {
        (0..schema.num_columns())
            .find(|&i| schema.column(i).name() == name)
            .unwrap()
    };
    let a_mask = ProjectionMask::leaves(schema, [leaf("a")]);
    let b_mask = ProjectionMask::leaves(schema, [leaf(b)]);
    let predicate = ArrowPredicateFn::new(a_mask, move |batch| {
        let a = batch.column(0).as_primitive::<Int32Type>();
        Ok(BooleanArray::from_iter(
            a.iter().map(|x| Some(x == Some(value))),
        ))
    });
    let reader = builder
        .with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
        .with_projection(b_mask)
        .build()
        .unwrap();
    let mut rows = Vec::new();
    for batch in reader {
        let column: Arc<dyn Array> = batch.unwrap().column(0).clone();
        for i in 0..column.len() {
            rows.push(if column.is_null(i) {
                "null".to_string()
            } else if let Some(c) = column.as_primitive_opt::<Int32Type>() {
                c.value(i).to_string()
            } else if let Some(c) = column.as_primitive_opt::<Int64Type>() {
                c.value(i).to_string()
            } else if let Some(c) = column.as_primitive_opt::<Float32Type>() {
                c.value(i).to_string()
            } else {
                column.as_string::<i32>().value(i).to_string()
            });
        }
    }
    rows
}

fn example(file: &std::path::Path, value: i32, b: &str, path: Path) -> Vec<String> {
    let output = Command::new(env!("CARGO_BIN_EXE_select-where"))
        .args([
            file.to_str().unwrap(),
            "a",
            &value.to_string(),
            b,
            path.name(),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "select-where {b} on {path}: {stderr}"
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn paths() -> Vec<Path> {
    let mut paths = vec![Path::Auto, Path::Fallback];
    if qpl_rs::QPL_LINKED {
        paths.push(Path::Software);
    }
    if Path::Hardware.availability().is_ok() {
        paths.push(Path::Hardware);
    }
    paths
}

#[test]
fn select_where_agrees_with_arrow_row_filter() {
    for (file, bytes) in files() {
        // The files are what the test promises: every b encoding, pages crossing byte
        // boundaries of the row masks.
        let reader = SerializedFileReader::new(Bytes::from(bytes.clone())).unwrap();
        let row_group = reader.get_row_group(0).unwrap();
        for (name, encoding) in [
            ("a", "RLE_DICTIONARY"),
            ("b_plain", "PLAIN"),
            ("b_delta", "DELTA_BINARY_PACKED"),
            ("b_bss", "BYTE_STREAM_SPLIT"),
            ("b_dict", "RLE_DICTIONARY"),
        ] {
            let chunk = ChunkPages::read(row_group.as_ref(), name).unwrap();
            let data_pages: Vec<_> = chunk
                .pages
                .iter()
                .filter(|p| p.encoding().to_string() == encoding)
                .collect();
            assert!(
                data_pages.len() >= 3,
                "{name}: {} pages of {encoding}",
                data_pages.len()
            );
            assert!(
                data_pages.iter().any(|p| p.num_values() % 8 != 0),
                "{name}: page sizes are multiples of 8"
            );
        }
        for b in B_COLUMNS {
            // 42 matches often; 59 is the top id; -1 matches nothing.
            for value in [42, 0, 59, -1] {
                let expected = arrow_answer(&bytes, value, b);
                if value >= 0 {
                    assert!(
                        expected.len() > 20 && expected.contains(&"null".to_string()),
                        "{b}: too few rows to test"
                    );
                } else {
                    assert!(expected.is_empty());
                }
                for path in paths() {
                    let got = example(&file, value, b, path);
                    assert_eq!(
                        got,
                        expected,
                        "{} {b} where a = {value} on {path}",
                        file.display()
                    );
                }
            }
        }
    }
}

#[test]
fn select_where_prints_usage_and_names_bad_columns() {
    let output = Command::new(env!("CARGO_BIN_EXE_select-where"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains("usage: select-where"));
    let (file, _) = files().remove(0);
    let output = Command::new(env!("CARGO_BIN_EXE_select-where"))
        .args([file.to_str().unwrap(), "a", "42", "nope"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    // `main` returns the error: Rust prints it with `Debug`, which names the column and the
    // columns there are.
    assert!(
        stderr.contains("\"nope\"")
            && stderr.contains("no such column")
            && stderr.contains("b_plain"),
        "{stderr}"
    );
}
