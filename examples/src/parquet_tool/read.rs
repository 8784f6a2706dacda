//! `qpl-parquet read [--columns a,b] [--batch-size N] [--path P] [--threads N]
//! [--filter COL=VALUE] [--no-check] FILE...`: each file read to Arrow `RecordBatch`es by the
//! library's reader ([`qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder`]) and, unless
//! `--no-check`, compared column by column, batch by batch, with arrow-rs's
//! `ParquetRecordBatchReaderBuilder` given the same options.
//!
//! The options, for both readers:
//! - `--columns a,b`: top-level columns by name (`ProjectionMask::roots`; a struct or a list
//!   brings all its leaves); the batches keep the file's column order. Default: every column.
//! - `--batch-size N`: rows per batch, default [`DEFAULT_BATCH_SIZE`] (8192, the size
//!   DataFusion reads with; arrow-rs's own builder starts at 1024).
//! - `--filter COL=VALUE`: rows whose leaf column COL (a dotted path, or a top-level field
//!   with one leaf; not repeated) equals VALUE, parsed for COL's physical type as `filter`'s
//!   `--eq` is. Ours: a [`RowFilter`] of [`Predicate::Eq`]. arrow-rs: its own `RowFilter` of one
//!   `ArrowPredicateFn` computing the same equality on the decoded arrays (nulls never match,
//!   floats compare as numbers, integers as the physical INT32/INT64 value, byte arrays by
//!   bytes).
//! - `--path`, `--threads`: ours only (where levels, indices and booleans are decoded; how many
//!   threads decode a row group's columns).
//!
//! Output: one JSON line per file with the keys `file`, `rows` (rows read by ours), `batches`,
//! `columns` (top-level columns of the batches), `result` (`ok`, `mismatch`, `error`),
//! `detail` (`""`, the first difference — `batch 3, column b, row 17: expected 5, got 6` — or
//! the error), `ms` (our read: footer, build and every batch) and `arrow_rs_ms` (arrow-rs's read
//! of the same file with the same options, in the same run; also measured with `--no-check`).
//! `rows`, `batches`, `columns` and the times are null when the read failed. With `--no-check`
//! the result is `error` only when ours fails (arrow-rs failing only nulls `arrow_rs_ms`).
//!
//! The readers are stepped in lockstep (batch i of one, then batch i of the other, the two
//! taking turns to go first: the first to read a page copies it from the page cache cold, the
//! second finds it in the CPU's caches), each call timed on its own, so memory holds two
//! batches whatever the file's size. Exit status: 2 when
//! any file is an error, else 1 when any is a mismatch, else 0.

use std::fs::File;
use std::io::Write as _;
use std::path::{Path as FilePath, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Float32Type, Float64Type, Int32Type, Int64Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, BooleanArray, RecordBatch, RecordBatchReader, StructArray};
use arrow_schema::{ArrowError, DataType};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
    RowFilter as ArrowRsRowFilter,
};
use parquet::arrow::ProjectionMask;
use parquet::schema::types::SchemaDescriptor;
use qpl_rs::parquet::arrow::{ParquetRecordBatchReaderBuilder, RowFilter};
use qpl_rs::parquet::query::{Predicate, Scalar};
use qpl_rs::Path;
use serde::Serialize;

use super::bench::catch;
use super::filter::{find_leaf, scalar};
use super::verify::column_of;

/// Rows per batch when `--batch-size` is not given.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// What `read` does to each file.
#[derive(Clone, Debug)]
pub struct Options {
    /// `--columns`: top-level column names (none: every column).
    pub columns: Option<Vec<String>>,
    /// `--batch-size`.
    pub batch_size: usize,
    /// `--path`: where ours decodes levels, indices and booleans.
    pub path: Path,
    /// `--threads`: ours only.
    pub threads: usize,
    /// `--filter COL=VALUE`, split at the first `=`.
    pub filter: Option<(String, String)>,
    /// `--no-check`: time both readers, compare nothing.
    pub check: bool,
}

/// One file's JSON line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line {
    /// The file as given.
    pub file: String,
    /// Rows our reader gave (null on error).
    pub rows: Option<u64>,
    /// Batches our reader gave.
    pub batches: Option<u64>,
    /// Top-level columns of the batches.
    pub columns: Option<usize>,
    /// `ok`, `mismatch` or `error`.
    pub result: &'static str,
    /// `""`, the first difference, or the error.
    pub detail: String,
    /// Our read time, in milliseconds.
    pub ms: Option<f64>,
    /// arrow-rs's read time of the same file and options, in milliseconds.
    pub arrow_rs_ms: Option<f64>,
}

/// Reads every file, prints one line each; the exit status is 2 (an error), 1 (a mismatch)
/// or 0.
pub fn run(files: &[PathBuf], options: &Options) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    let (mut mismatch, mut error) = (false, false);
    for file in files {
        let line = read_file(file, options);
        mismatch |= line.result == "mismatch";
        error |= line.result == "error";
        let json = serde_json::to_string(&line).expect("a line serialises");
        if writeln!(stdout, "{json}").is_err() {
            return ExitCode::from(2);
        }
    }
    if error {
        ExitCode::from(2)
    } else if mismatch {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reads `file` with both readers (see the module docs) and gives its line. Never panics on a
/// malformed file: a panic of either reader is an error line.
pub fn read_file(file: &FilePath, options: &Options) -> Line {
    let name = file.display().to_string();
    let error = |detail: String| Line {
        file: name.clone(),
        rows: None,
        batches: None,
        columns: None,
        result: "error",
        detail,
        ms: None,
        arrow_rs_ms: None,
    };
    if let Err(why) = options.path.availability() {
        return error(format!("the {} path cannot run here: {why}", options.path));
    }
    match catch(|| compare(file, options)) {
        Ok(read) => Line {
            file: name.clone(),
            rows: Some(read.rows),
            batches: Some(read.batches),
            columns: Some(read.columns),
            result: if read.difference.is_some() {
                "mismatch"
            } else {
                "ok"
            },
            detail: read.difference.unwrap_or_default(),
            ms: Some(millis(read.ours)),
            arrow_rs_ms: read.theirs.map(millis),
        },
        Err(e) => error(e),
    }
}

fn millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// What reading one file with both readers gave.
struct Read {
    rows: u64,
    batches: u64,
    columns: usize,
    /// The first difference (never set with `--no-check`).
    difference: Option<String>,
    ours: Duration,
    /// None: arrow-rs failed (with `--no-check`).
    theirs: Option<Duration>,
}

/// The projection and filters both readers get, from the file's schema.
struct Plan {
    projection: ProjectionMask,
    ours_filter: Option<RowFilter>,
    /// The filtered leaf's index and dotted path, and the value.
    theirs_filter: Option<(usize, Vec<String>, Scalar)>,
}

fn plan(schema: &SchemaDescriptor, options: &Options) -> Result<Plan, String> {
    let projection = match &options.columns {
        None => ProjectionMask::all(),
        Some(names) => {
            let fields = schema.root_schema().get_fields();
            let roots = names
                .iter()
                .map(|name| {
                    fields.iter().position(|f| f.name() == name).ok_or_else(|| {
                        let all: Vec<&str> = fields.iter().map(|f| f.name()).collect();
                        format!("no column {name} (the file has: {})", all.join(", "))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            ProjectionMask::roots(schema, roots)
        }
    };
    let (ours_filter, theirs_filter) = match &options.filter {
        None => (None, None),
        Some((column, value)) => {
            let (index, descr) = find_leaf(schema, column)?;
            let value = scalar(&column_of(&descr)?, value, "--filter")?;
            let path = descr.path().string();
            (
                Some(RowFilter::new().and(path, Predicate::Eq(value.clone()))),
                Some((index, descr.path().parts().to_vec(), value)),
            )
        }
    };
    Ok(Plan {
        projection,
        ours_filter,
        theirs_filter,
    })
}

/// A reader's batches, each `next` timed into `elapsed`.
struct Timed<I> {
    batches: I,
    /// Top-level columns of the reader's schema.
    columns: usize,
    elapsed: Duration,
    done: bool,
}

impl<I: Iterator<Item = Result<RecordBatch, ArrowError>>> Timed<I> {
    fn next(&mut self) -> Result<Option<RecordBatch>, String> {
        if self.done {
            return Ok(None);
        }
        let start = Instant::now();
        let batch = self.batches.next().transpose();
        self.elapsed += start.elapsed();
        let batch = batch.map_err(|e| e.to_string())?;
        self.done = batch.is_none();
        Ok(batch)
    }
}

fn ours(
    file: &FilePath,
    options: &Options,
) -> Result<Timed<impl Iterator<Item = Result<RecordBatch, ArrowError>>>, String> {
    let start = Instant::now();
    let input = File::open(file).map_err(|e| e.to_string())?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(input).map_err(|e| e.to_string())?;
    let plan = plan(builder.parquet_schema(), options)?;
    let mut builder = builder
        .with_projection(plan.projection)
        .with_batch_size(options.batch_size)
        .with_path(options.path)
        .with_threads(options.threads);
    if let Some(filter) = plan.ours_filter {
        builder = builder.with_row_filter(filter);
    }
    let reader = builder.build().map_err(|e| e.to_string())?;
    Ok(Timed {
        columns: reader.schema().fields().len(),
        batches: reader,
        elapsed: start.elapsed(),
        done: false,
    })
}

fn theirs(
    file: &FilePath,
    options: &Options,
) -> Result<Timed<impl Iterator<Item = Result<RecordBatch, ArrowError>>>, String> {
    let start = Instant::now();
    let input = File::open(file).map_err(|e| e.to_string())?;
    let builder = ArrowRsBuilder::try_new(input).map_err(|e| e.to_string())?;
    let schema = builder.parquet_schema();
    let plan = plan(schema, options)?;
    let filter = plan.theirs_filter.map(|(leaf, path, value)| {
        let mask = ProjectionMask::leaves(schema, [leaf]);
        let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
            equal_mask(&batch, &path, &value)
        });
        ArrowRsRowFilter::new(vec![Box::new(predicate)])
    });
    let mut builder = builder
        .with_projection(plan.projection)
        .with_batch_size(options.batch_size);
    if let Some(filter) = filter {
        builder = builder.with_row_filter(filter);
    }
    let reader = builder.build().map_err(|e| e.to_string())?;
    Ok(Timed {
        columns: reader.schema().fields().len(),
        batches: reader,
        elapsed: start.elapsed(),
        done: false,
    })
}

/// Both readers in lockstep (see the module docs).
fn compare(file: &FilePath, options: &Options) -> Result<Read, String> {
    let mut ours = ours(file, options)?;
    let mut theirs = match theirs(file, options) {
        Ok(theirs) => Some(theirs),
        Err(e) if options.check => return Err(format!("arrow-rs: {e}")),
        Err(_) => None,
    };
    let mut read = Read {
        rows: 0,
        batches: 0,
        columns: ours.columns,
        difference: None,
        ours: Duration::ZERO,
        theirs: None,
    };
    let mut their_batches = 0u64;
    // arrow-rs's next batch; after its error none, unless the check needs its batches.
    let their_next =
        |theirs: &mut Option<Timed<_>>| match theirs.as_mut().map(Timed::next).transpose() {
            Ok(batch) => Ok(batch.flatten()),
            Err(e) if options.check => Err(format!("arrow-rs: {e}")),
            Err(_) => {
                *theirs = None;
                Ok(None)
            }
        };
    for step in 0u64.. {
        // The reader that reads a page first copies it from the page cache cold; the other
        // finds the same bytes in the CPU's caches. They take turns going first.
        let (mine, reference) = if step % 2 == 0 {
            let mine = ours.next()?;
            (mine, their_next(&mut theirs)?)
        } else {
            let reference = their_next(&mut theirs)?;
            (ours.next()?, reference)
        };
        if let Some(batch) = &mine {
            read.rows += batch.num_rows() as u64;
        }
        if options.check && read.difference.is_none() {
            read.difference = match (&reference, &mine) {
                (Some(expected), Some(got)) => first_difference(read.batches, expected, got),
                (None, Some(got)) => Some(format!(
                    "batch {}: expected no more batches (arrow-rs gave {their_batches}), got {} rows",
                    read.batches,
                    got.num_rows()
                )),
                (Some(expected), None) => Some(format!(
                    "batch {}: expected {} rows, got no more batches (ours gave {})",
                    read.batches,
                    expected.num_rows(),
                    read.batches
                )),
                (None, None) => None,
            };
        }
        if reference.is_some() {
            their_batches += 1;
        }
        if mine.is_some() {
            read.batches += 1;
        }
        if mine.is_none() && reference.is_none() {
            break;
        }
    }
    read.ours = ours.elapsed;
    read.theirs = theirs.map(|t| t.elapsed);
    Ok(read)
}

/// The first difference between batch `index` of arrow-rs (`expected`) and ours (`got`).
fn first_difference(index: u64, expected: &RecordBatch, got: &RecordBatch) -> Option<String> {
    if expected.num_columns() != got.num_columns() {
        return Some(format!(
            "batch {index}: expected {} columns, got {}",
            expected.num_columns(),
            got.num_columns()
        ));
    }
    if expected.num_rows() != got.num_rows() {
        return Some(format!(
            "batch {index}: expected {} rows, got {}",
            expected.num_rows(),
            got.num_rows()
        ));
    }
    for (i, field) in expected.schema().fields().iter().enumerate() {
        let name = field.name();
        let got_field = got.schema().field(i).clone();
        if got_field.name() != name {
            return Some(format!(
                "batch {index}, column {i}: expected name {name}, got {}",
                got_field.name()
            ));
        }
        let (a, b) = (expected.column(i), got.column(i));
        if a.data_type() != b.data_type() {
            return Some(format!(
                "batch {index}, column {name}: expected type {}, got {}",
                a.data_type(),
                b.data_type()
            ));
        }
        if a.to_data() == b.to_data() {
            continue;
        }
        for row in 0..a.len() {
            let (x, y) = (a.slice(row, 1), b.slice(row, 1));
            if x.to_data() != y.to_data() {
                return Some(format!(
                    "batch {index}, column {name}, row {row}: expected {}, got {}",
                    show(&x),
                    show(&y)
                ));
            }
        }
        return Some(format!(
            "batch {index}, column {name}: the arrays differ (no single row does)"
        ));
    }
    None
}

/// A one-row array's value as arrow-rs prints it; `null` for a null.
fn show(array: &ArrayRef) -> String {
    if array.is_null(0) {
        return "null".to_string();
    }
    arrow_cast::display::array_value_to_string(array, 0)
        .unwrap_or_else(|e| format!("(unprintable: {e})"))
}

/// The reference filter: for each row of `batch` (the filtered leaf, under its top-level
/// field), whether the leaf at `path` equals `value`. A null (of the leaf or of a struct
/// above it) never matches.
fn equal_mask(
    batch: &RecordBatch,
    path: &[String],
    value: &Scalar,
) -> Result<BooleanArray, ArrowError> {
    let missing = || {
        ArrowError::SchemaError(format!(
            "no column {} in the filter's batch",
            path.join(".")
        ))
    };
    let mut array = batch.column_by_name(&path[0]).ok_or_else(missing)?.clone();
    let mut valid: Vec<bool> = (0..array.len()).map(|i| array.is_valid(i)).collect();
    for part in &path[1..] {
        let child = array
            .as_any()
            .downcast_ref::<StructArray>()
            .and_then(|s| s.column_by_name(part))
            .ok_or_else(missing)?
            .clone();
        for (i, v) in valid.iter_mut().enumerate() {
            *v &= child.is_valid(i);
        }
        array = child;
    }
    let equal = equal_values(&array, value)?;
    Ok(valid
        .iter()
        .zip(equal)
        .map(|(&valid, equal)| Some(valid && equal))
        .collect())
}

/// `array`'s values equal to `value`, compared as the column's physical type (see the module
/// docs); a null slot's answer is meaningless (the caller masks it).
fn equal_values(array: &ArrayRef, value: &Scalar) -> Result<Vec<bool>, ArrowError> {
    use DataType as T;
    let array = match array.data_type() {
        T::Dictionary(_, values) => arrow_cast::cast(array, values)?,
        _ => array.clone(),
    };
    let unsupported = || {
        Err(ArrowError::NotYetImplemented(format!(
            "the reference filter compares no {} column with {value:?}",
            array.data_type()
        )))
    };
    let reinterpret = |to: DataType| -> Result<ArrayRef, ArrowError> {
        Ok(arrow_array::make_array(
            array.to_data().into_builder().data_type(to).build()?,
        ))
    };
    Ok(match (value, array.data_type()) {
        (Scalar::Boolean(x), T::Boolean) => {
            array.as_boolean().iter().map(|v| v == Some(*x)).collect()
        }
        (Scalar::Int32(x), T::Int32 | T::Date32 | T::Time32(_)) => {
            let a = reinterpret(T::Int32)?;
            a.as_primitive::<Int32Type>()
                .values()
                .iter()
                .map(|v| v == x)
                .collect()
        }
        (Scalar::Int32(x), T::UInt32) => array
            .as_primitive::<UInt32Type>()
            .values()
            .iter()
            .map(|&v| v as i32 == *x)
            .collect(),
        (Scalar::Int32(x), T::UInt8) => array
            .as_primitive::<UInt8Type>()
            .values()
            .iter()
            .map(|&v| i32::from(v) == *x)
            .collect(),
        (Scalar::Int32(x), T::UInt16) => array
            .as_primitive::<UInt16Type>()
            .values()
            .iter()
            .map(|&v| i32::from(v) == *x)
            .collect(),
        (Scalar::Int32(x), T::Int8 | T::Int16) => {
            let a = arrow_cast::cast(&array, &T::Int32)?;
            a.as_primitive::<Int32Type>()
                .values()
                .iter()
                .map(|v| v == x)
                .collect()
        }
        (Scalar::Int32(x), T::Decimal128(..)) => decimal(&array, i128::from(*x)),
        (
            Scalar::Int64(x),
            T::Int64 | T::Date64 | T::Time64(_) | T::Timestamp(..) | T::Duration(_),
        ) => {
            let a = reinterpret(T::Int64)?;
            a.as_primitive::<Int64Type>()
                .values()
                .iter()
                .map(|v| v == x)
                .collect()
        }
        (Scalar::Int64(x), T::UInt64) => array
            .as_primitive::<UInt64Type>()
            .values()
            .iter()
            .map(|&v| v as i64 == *x)
            .collect(),
        (Scalar::Int64(x), T::Decimal128(..)) => decimal(&array, i128::from(*x)),
        (Scalar::Float(x), T::Float32) => array
            .as_primitive::<Float32Type>()
            .values()
            .iter()
            .map(|v| v == x)
            .collect(),
        (Scalar::Double(x), T::Float64) => array
            .as_primitive::<Float64Type>()
            .values()
            .iter()
            .map(|v| v == x)
            .collect(),
        (
            Scalar::Bytes(x),
            T::Utf8 | T::LargeUtf8 | T::Utf8View | T::Binary | T::LargeBinary | T::BinaryView,
        ) => {
            let a = arrow_cast::cast(&array, &T::LargeBinary)?;
            let a = a.as_binary::<i64>();
            (0..a.len()).map(|i| a.value(i) == x.as_slice()).collect()
        }
        (Scalar::Bytes(x), T::FixedSizeBinary(_)) => {
            let a = array.as_fixed_size_binary();
            (0..a.len()).map(|i| a.value(i) == x.as_slice()).collect()
        }
        _ => return unsupported(),
    })
}

/// A DECIMAL column stored as INT32 or INT64: its unscaled values are the physical ones.
fn decimal(array: &ArrayRef, x: i128) -> Vec<bool> {
    array
        .as_primitive::<Decimal128Type>()
        .values()
        .iter()
        .map(|&v| v == x)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Int32Array, StringArray};
    use std::sync::Arc;

    fn batch(a: Vec<Option<i32>>, b: Vec<&str>) -> RecordBatch {
        RecordBatch::try_from_iter([
            ("a", Arc::new(Int32Array::from(a)) as ArrayRef),
            ("b", Arc::new(StringArray::from(b)) as ArrayRef),
        ])
        .unwrap()
    }

    #[test]
    fn the_first_difference_is_named() {
        let x = batch(vec![Some(1), None, Some(3)], vec!["p", "q", "r"]);
        assert_eq!(first_difference(0, &x, &x), None);
        let y = batch(vec![Some(1), Some(2), Some(3)], vec!["p", "q", "r"]);
        assert_eq!(
            first_difference(3, &x, &y).as_deref(),
            Some("batch 3, column a, row 1: expected null, got 2")
        );
        let z = batch(vec![Some(1), None, Some(3)], vec!["p", "q", "s"]);
        assert_eq!(
            first_difference(0, &x, &z).as_deref(),
            Some("batch 0, column b, row 2: expected r, got s")
        );
    }

    #[test]
    fn the_reference_filter_masks_nulls() {
        let x = batch(vec![Some(1), None, Some(1)], vec!["p", "q", "p"]);
        let mask = equal_mask(&x, &["a".to_string()], &Scalar::Int32(1)).unwrap();
        assert_eq!(mask, BooleanArray::from(vec![true, false, true]));
        let mask = equal_mask(&x, &["b".to_string()], &Scalar::Bytes(b"q".to_vec())).unwrap();
        assert_eq!(mask, BooleanArray::from(vec![false, true, false]));
    }
}
