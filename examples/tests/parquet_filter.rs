//! `qpl-parquet filter` (the library function behind it) on the arrow-rs test files: its counts
//! and selected values against a plain count over what the parquet crate's own reader reads,
//! for dictionary columns (index scans), columns whose writer fell back from the dictionary
//! mid-chunk (scans and decoded pages), every other encoding (decode and compare), nulls, a
//! one-entry dictionary (indices of width 0) and values no row holds.

use std::path::{Path as FilePath, PathBuf};
use std::sync::OnceLock;

use qpl_examples::parquet_tool::{files, filter};
use qpl_rs::Path;

mod common;
use common::{check, paths, reference_rows, targets, Value};

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

#[test]
fn dictionary_columns_are_answered_from_their_indices() {
    for name in [
        "encodings_v1_uncompressed.parquet",
        "encodings_v1_zstd.parquet",
        "encodings_v2_uncompressed.parquet",
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
            // arrow-rs 59 writes FIXED_LEN_BYTE_ARRAY without a dictionary in Parquet 1.0 files.
            if column == "dict_flba4" && name.contains("_v1_") {
                continue;
            }
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
