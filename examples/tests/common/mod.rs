//! Shared by the tests of `qpl-parquet filter`: a leaf's rows as the parquet crate's own
//! reader reads them, and `filter` checked against a plain count over them.

#![allow(dead_code)] // Each test binary uses a part.

use std::fs::File;
use std::path::Path as FilePath;

use parquet::column::reader::{get_typed_column_reader, ColumnReader};
use parquet::data_type::{
    BoolType, ByteArrayType, DataType, DoubleType, FixedLenByteArrayType, FloatType, Int32Type,
    Int64Type,
};
use parquet::file::reader::{FileReader, SerializedFileReader};
use qpl_examples::parquet_tool::filter;
use qpl_rs::Path;

/// The paths to run: `Auto` and `Fallback` always, QPL's when linked and usable.
pub fn paths() -> Vec<Path> {
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
pub enum Value {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bytes(Vec<u8>),
}

impl Value {
    /// The `--eq` text for this value (Rust's float formatting round-trips).
    pub fn text(&self) -> String {
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
    pub fn equals(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a == b,
            (Value::F64(a), Value::F64(b)) => a == b,
            _ => self == other,
        }
    }
}

/// Reads leaf `name` of `file` with the parquet crate: one entry per row.
pub fn reference_rows(file: &FilePath, name: &str) -> Vec<Option<Value>> {
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

pub fn read<T: DataType>(
    column: ColumnReader,
    wrap: impl Fn(T::T) -> Value,
) -> (Vec<i16>, Vec<Value>) {
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
pub fn check(file: &FilePath, column: &str, value: &str, reference: &[Option<Value>]) -> u64 {
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
pub fn parse_like(sample: &Value, value: &str) -> Option<Value> {
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
pub fn targets(reference: &[Option<Value>], absent: &str) -> Vec<String> {
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
