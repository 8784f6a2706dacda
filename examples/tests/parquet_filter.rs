//! `qpl-parquet filter` (the library function behind it) on the arrow-rs test files: its counts
//! and selected values against a plain count over what the parquet crate's own reader reads,
//! for dictionary columns (index scans), columns whose writer fell back from the dictionary
//! mid-chunk (scans and decoded pages), every other encoding (decode and compare), nulls, a
//! one-entry dictionary (indices of width 0) and values no row holds.

use std::fs::File;
use std::path::{Path as FilePath, PathBuf};
use std::sync::OnceLock;

use parquet::column::reader::{get_typed_column_reader, ColumnReader};
use parquet::data_type::{
    BoolType, ByteArrayType, DataType, DoubleType, FixedLenByteArrayType, FloatType, Int32Type,
    Int64Type,
};
use parquet::file::reader::{FileReader, SerializedFileReader};
use qpl_examples::parquet_tool::{files, filter};
use qpl_rs::Path;

/// The test set, written once into this test binary's temporary directory.
fn test_files() -> &'static [PathBuf] {
    static FILES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("parquet_filter");
        std::fs::create_dir_all(&dir).unwrap();
        files::write_test_files(&dir).expect("test files")
    })
}

fn file(name: &str) -> &'static FilePath {
    test_files()
        .iter()
        .find(|p| p.file_name().unwrap() == name)
        .unwrap_or_else(|| panic!("no test file {name}"))
}

/// The paths to run: `Auto` and `Fallback` always, QPL's when linked and usable.
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

/// A leaf's rows as the parquet crate reads them: one `Option<Value>` per row.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bytes(Vec<u8>),
}

impl Value {
    /// The `--eq` text for this value (Rust's float formatting round-trips).
    fn text(&self) -> String {
        match self {
            Value::Bool(v) => v.to_string(),
            Value::I32(v) => v.to_string(),
            Value::I64(v) => v.to_string(),
            Value::F32(v) => v.to_string(),
            Value::F64(v) => v.to_string(),
            Value::Bytes(v) => String::from_utf8(v.clone()).expect("UTF-8 test value"),
        }
    }

    /// Equality as `filter` defines it (IEEE for floats).
    fn equals(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a == b,
            (Value::F64(a), Value::F64(b)) => a == b,
            _ => self == other,
        }
    }
}

/// Reads leaf `name` of `file` with the parquet crate: one entry per row.
fn reference_rows(file: &FilePath, name: &str) -> Vec<Option<Value>> {
    let reader = SerializedFileReader::new(File::open(file).unwrap()).unwrap();
    let schema = reader.metadata().file_metadata().schema_descr_ptr();
    let index = (0..schema.num_columns())
        .find(|&i| schema.column(i).path().string() == name)
        .unwrap_or_else(|| panic!("no leaf {name}"));
    let max_def = schema.column(index).max_def_level();
    let mut rows = Vec::new();
    for rg in 0..reader.num_row_groups() {
        let column = reader
            .get_row_group(rg)
            .unwrap()
            .get_column_reader(index)
            .unwrap();
        let (defs, values) = match column {
            ColumnReader::BoolColumnReader(_) => read::<BoolType>(column, Value::Bool),
            ColumnReader::Int32ColumnReader(_) => read::<Int32Type>(column, Value::I32),
            ColumnReader::Int64ColumnReader(_) => read::<Int64Type>(column, Value::I64),
            ColumnReader::FloatColumnReader(_) => read::<FloatType>(column, Value::F32),
            ColumnReader::DoubleColumnReader(_) => read::<DoubleType>(column, Value::F64),
            ColumnReader::ByteArrayColumnReader(_) => {
                read::<ByteArrayType>(column, |v| Value::Bytes(v.data().to_vec()))
            }
            ColumnReader::FixedLenByteArrayColumnReader(_) => {
                read::<FixedLenByteArrayType>(column, |v| Value::Bytes(v.data().to_vec()))
            }
            ColumnReader::Int96ColumnReader(_) => panic!("no INT96 reference here"),
        };
        if max_def == 0 {
            rows.extend(values.into_iter().map(Some));
        } else {
            let mut values = values.into_iter();
            rows.extend(
                defs.iter()
                    .map(|&d| (d == max_def).then(|| values.next().unwrap())),
            );
        }
    }
    rows
}

fn read<T: DataType>(column: ColumnReader, wrap: impl Fn(T::T) -> Value) -> (Vec<i16>, Vec<Value>) {
    let mut reader = get_typed_column_reader::<T>(column);
    let (mut defs, mut values) = (Vec::new(), Vec::new());
    loop {
        let (records, _, _) = reader
            .read_records(4096, Some(&mut defs), None, &mut values)
            .unwrap();
        if records == 0 {
            break;
        }
    }
    (defs, values.into_iter().map(wrap).collect())
}

/// Runs `filter` for `value` on every path and checks it against the reference rows.
fn check(file: &FilePath, column: &str, value: &str, reference: &[Option<Value>]) -> u64 {
    let parsed = reference
        .iter()
        .flatten()
        .next()
        .map(|sample| parse_like(sample, value));
    let expected = reference
        .iter()
        .filter(|row| match (row, &parsed) {
            (Some(v), Some(Some(t))) => v.equals(t),
            _ => false,
        })
        .count() as u64;
    for path in paths() {
        let result = filter::filter(file, column, value, None, path)
            .unwrap_or_else(|e| panic!("{}: {column} == {value:?} on {path}: {e}", file.display()));
        assert_eq!(
            result.matches,
            expected,
            "{}: {column} == {value:?} on {path}",
            file.display()
        );
        assert_eq!(result.rows, reference.len() as u64, "{column}: rows");
        assert_eq!(
            result.index_pages + result.decoded_pages > 0,
            !reference.is_empty()
        );
    }
    expected
}

/// `value` parsed as the type of `sample` (`None`: not a value of that type).
fn parse_like(sample: &Value, value: &str) -> Option<Value> {
    Some(match sample {
        Value::Bool(_) => Value::Bool(value.parse().ok()?),
        Value::I32(_) => Value::I32(value.parse().ok()?),
        Value::I64(_) => Value::I64(value.parse().ok()?),
        Value::F32(_) => Value::F32(value.parse().ok()?),
        Value::F64(_) => Value::F64(value.parse().ok()?),
        Value::Bytes(_) => Value::Bytes(value.as_bytes().to_vec()),
    })
}

/// Values to filter for: the first value, one from the middle, the most frequent, and one no
/// row holds.
fn targets(reference: &[Option<Value>], absent: &str) -> Vec<String> {
    let present: Vec<&Value> = reference.iter().flatten().collect();
    let mut out = vec![absent.to_string()];
    if let Some(first) = present.first() {
        out.push(first.text());
        out.push(present[present.len() / 2].text());
        // Counted by text: equal values have equal text (floats aside, where -0 and 0 differ:
        // then this is merely a frequent value).
        let mut counts = std::collections::HashMap::new();
        for v in &present {
            *counts.entry(v.text()).or_insert(0usize) += 1;
        }
        let most = counts
            .into_iter()
            .max_by_key(|(text, n)| (*n, text.clone()))
            .unwrap()
            .0;
        out.push(most);
    }
    out
}

#[test]
fn dictionary_columns_are_answered_from_their_indices() {
    for name in [
        "encodings_v1_uncompressed.parquet",
        "encodings_v1_zstd.parquet",
        "demo.parquet",
    ] {
        let file = file(name);
        let columns: &[(&str, &str)] = if name == "demo.parquet" {
            &[("a", "Nowhere"), ("qty", "12345"), ("sku", "ZZZZ")]
        } else {
            &[
                ("dict_int32", "7"),
                ("dict_int64", "1"),
                ("dict_float", "123.5"),
                ("dict_double", "-1000"),
                ("dict_byte_array", "Nowhere"),
                ("dict_flba4", "ZZZZ"),
            ]
        };
        for &(column, absent) in columns {
            let reference = reference_rows(file, column);
            let mut total = 0;
            for value in targets(&reference, absent) {
                total += check(file, column, &value, &reference);
            }
            assert!(total > 0, "{name}: {column}: some target matched");
            let result = filter::filter(file, column, absent, None, Path::Auto).unwrap();
            assert_eq!(result.decoded_pages, 0, "{name}: {column}: no page decoded");
            assert!(result.index_pages > 0);
            assert_eq!(
                result.scanned_pages, 0,
                "{column}: no entry equals {absent}: no scan"
            );
            let present = targets(&reference, absent)[1].clone();
            let result = filter::filter(file, column, &present, None, Path::Auto).unwrap();
            assert!(
                result.scanned_pages > 0,
                "{name}: {column} == {present}: scanned"
            );
            assert_eq!(result.decoded_pages, 0);
        }
    }
}

#[test]
fn empty_string_and_float_specials() {
    let file = file("encodings_v1_uncompressed.parquet");
    let reference = reference_rows(file, "dict_byte_array");
    assert!(
        check(file, "dict_byte_array", "", &reference) > 0,
        "the empty city"
    );
    let reference = reference_rows(file, "dict_float");
    // NaN equals nothing; -0.0 equals 0.
    assert_eq!(check(file, "dict_float", "NaN", &reference), 0);
    assert!(check(file, "dict_float", "0", &reference) > 0);
    assert!(check(file, "dict_float", "-0", &reference) > 0);
}

#[test]
fn dictionary_fallback_mixes_scanned_and_decoded_pages() {
    for name in [
        "encodings_v1_snappy.parquet",
        "encodings_v2_uncompressed.parquet",
    ] {
        let file = file(name);
        let reference = reference_rows(file, "dict_fallback_byte_array");
        for value in targets(&reference, "not-a-word-0") {
            check(file, "dict_fallback_byte_array", &value, &reference);
        }
        let result =
            filter::filter(file, "dict_fallback_byte_array", "a", None, Path::Auto).unwrap();
        assert!(
            result.index_pages > 0 && result.decoded_pages > 0,
            "{name}: {result:?}"
        );
    }
}

#[test]
fn other_encodings_are_decoded_and_compared() {
    let file = file("encodings_v2_gzip.parquet");
    for (column, absent) in [
        ("plain_boolean", "false"),
        ("rle_boolean", "true"),
        ("plain_int32", "12"),
        ("plain_int64", "-2"),
        ("plain_double", "0.5"),
        ("delta_int32", "1"),
        ("delta_int64", "-5"),
        ("delta_length_byte_array", "nothing-here"),
        ("delta_byte_array", "https://nowhere"),
        ("bss_float", "-3.5"),
        ("bss_int32", "2"),
        ("bss_int64", "2"),
    ] {
        let reference = reference_rows(file, column);
        for value in targets(&reference, absent) {
            check(file, column, &value, &reference);
        }
        let result = filter::filter(file, column, absent, None, Path::Auto).unwrap();
        assert_eq!(result.index_pages, 0, "{column}");
    }
}

#[test]
fn edge_files() {
    for name in [
        "edge_v1.parquet",
        "edge_v2.parquet",
        "edge_v2_one_row.parquet",
    ] {
        let file = file(name);
        for (column, values) in [
            ("all_null_dict_int32", &["-100", "0"][..]),
            ("all_null_plain_byte_array", &["", "a"][..]),
            ("one_value_dict_byte_array", &["constant", "other", ""][..]),
            ("one_value_dict_int64", &["-42", "42"][..]),
            ("one_value_delta_int32", &["7", "8"][..]),
            ("empty_strings_dlba", &["", "x"][..]),
        ] {
            let reference = reference_rows(file, column);
            for value in values {
                check(file, column, value, &reference);
            }
        }
    }
}

#[test]
fn select_gathers_the_matching_rows_values() {
    let file = file("demo.parquet");
    let a = reference_rows(file, "a");
    for (select, value) in [("id", "Paris"), ("note", "London"), ("price", "")] {
        let selected = reference_rows(file, select);
        let matching: Vec<&Option<Value>> = a
            .iter()
            .zip(&selected)
            .filter(|(a, _)| a.as_ref() == Some(&Value::Bytes(value.as_bytes().to_vec())))
            .map(|(_, s)| s)
            .collect();
        for path in paths() {
            let result = filter::filter(file, "a", value, Some(select), path).unwrap();
            assert_eq!(result.matches, matching.len() as u64);
            let got = result.selected.expect("--select result");
            assert_eq!(got.column, select);
            assert_eq!(
                got.values,
                matching.iter().filter(|s| s.is_some()).count() as u64
            );
            assert_eq!(
                got.nulls,
                matching.iter().filter(|s| s.is_none()).count() as u64
            );
            assert!(!got.sample.is_empty() || got.values == 0);
            if let Some(Some(Value::I64(first))) = matching.first() {
                assert_eq!(got.sample[0], first.to_string());
            }
        }
    }
}

#[test]
fn bad_arguments_are_errors() {
    let file = file("demo.parquet");
    let err = |column: &str, value: &str| {
        filter::filter(file, column, value, None, Path::Auto).unwrap_err()
    };
    assert!(err("nope", "1").contains("no column nope"));
    assert!(err("qty", "twelve").contains("not an INT32"));
    assert!(err("tags", "Paris").contains("repeated"));
    let missing = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("no-such-file.parquet");
    assert!(filter::filter(&missing, "a", "x", None, Path::Auto).is_err());
    assert!(filter::filter(file, "a", "x", Some("nope"), Path::Auto).is_err());
}
