//! The differential gate of `qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder`: every
//! corpus file (the arrow-rs-written test files of `parquet_tool::files`, pyarrow's files from
//! `scripts/write_pyarrow_files.py` where pyarrow is installed, and the regression files that
//! must read) read by it and by arrow-rs's builder with the same options; schemas and every
//! batch must be equal. Options: batch sizes 8192 and 1000, a projection of some top-level
//! columns, a row selection, limit and offset, and row groups in another order; each also with
//! strings and binaries read as Utf8View and BinaryView (a supplied schema). A file
//! arrow-rs cannot read must be an `Err` from ours (never a panic), and a file whose pages the
//! parquet crate's header reader loops on must end with an error within seconds.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path as FilePath, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, FieldRef, Schema};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
};
use qpl_examples::parquet_tool::files;
use qpl_rs::parquet::arrow::{
    ParquetRecordBatchReaderBuilder, ProjectionMask, RowSelection, RowSelector,
};
use qpl_rs::Path;

fn regression(name: &str) -> Bytes {
    let path = FilePath::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/regressions")
        .join(name);
    Bytes::from(std::fs::read(&path).expect("regression file"))
}

/// pyarrow's files (written fresh into the target's temporary directory), or none when pyarrow
/// is not installed.
fn pyarrow_files() -> Vec<(String, Bytes)> {
    let has_pyarrow = Command::new("python3")
        .args(["-c", "import pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyarrow {
        println!("pyarrow not installed: its files are skipped");
        return Vec::new();
    }
    let dir = FilePath::new(env!("CARGO_TARGET_TMPDIR")).join("reader_corpus_pyarrow");
    let _ = std::fs::remove_dir_all(&dir);
    let script = FilePath::new(env!("CARGO_MANIFEST_DIR")).join("scripts/write_pyarrow_files.py");
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
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, Bytes::from(std::fs::read(&p).unwrap()))
        })
        .collect()
}

/// Every file that must read the same both ways.
fn corpus() -> Vec<(String, Bytes)> {
    let mut all: Vec<(String, Bytes)> = files::test_files()
        .expect("test files")
        .into_iter()
        .map(|(name, bytes)| (name, Bytes::from(bytes)))
        .collect();
    all.extend(pyarrow_files());
    all.push((
        "rle_boolean_encoding.parquet".to_string(),
        regression("rle_boolean_encoding.parquet"),
    ));
    all
}

/// The options of one read, applied alike to both builders.
#[derive(Clone, Debug, Default)]
struct Options {
    batch_size: usize,
    projection: Option<Vec<usize>>,
    selection: Option<Vec<RowSelector>>,
    limit: Option<usize>,
    offset: Option<usize>,
    row_groups: Option<Vec<usize>>,
    /// Read strings and binaries as Utf8View and BinaryView (a supplied schema, as DataFusion
    /// asks for them).
    views: bool,
}

/// What one read gives: the schema (as an empty batch) and the batches, or the first error's
/// text.
type Read = Result<(RecordBatch, Vec<RecordBatch>), String>;

/// Reader options: the file's schema with its strings and binaries as views when `o.views`.
fn reader_options(file: &Bytes, o: &Options) -> Result<ArrowReaderOptions, String> {
    let options = ArrowReaderOptions::new();
    if !o.views {
        return Ok(options);
    }
    let schema = ArrowRsBuilder::try_new(file.clone())
        .map_err(|e| e.to_string())?
        .schema()
        .clone();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_data_type(as_views(f.data_type())))
        .collect();
    let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
    Ok(options.with_schema(Arc::new(schema)))
}

/// `data_type` with Utf8 and LargeUtf8 as Utf8View, Binary and LargeBinary as BinaryView, in
/// lists and structs too.
fn as_views(data_type: &DataType) -> DataType {
    let field = |f: &FieldRef| Arc::new(f.as_ref().clone().with_data_type(as_views(f.data_type())));
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 => DataType::Utf8View,
        DataType::Binary | DataType::LargeBinary => DataType::BinaryView,
        DataType::List(f) => DataType::List(field(f)),
        DataType::LargeList(f) => DataType::LargeList(field(f)),
        DataType::Struct(fields) => DataType::Struct(fields.iter().map(field).collect()),
        other => other.clone(),
    }
}

fn read_arrow_rs(file: &Bytes, o: &Options) -> Read {
    let builder = ArrowRsBuilder::try_new_with_options(file.clone(), reader_options(file, o)?)
        .map_err(|e| e.to_string())?;
    let mut builder = builder.with_batch_size(o.batch_size);
    if let Some(roots) = &o.projection {
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
        builder = builder.with_projection(mask);
    }
    if let Some(rg) = &o.row_groups {
        builder = builder.with_row_groups(rg.clone());
    }
    if let Some(s) = &o.selection {
        builder = builder.with_row_selection(RowSelection::from(s.clone()));
    }
    if let Some(l) = o.limit {
        builder = builder.with_limit(l);
    }
    if let Some(off) = o.offset {
        builder = builder.with_offset(off);
    }
    let reader = builder.build().map_err(|e| e.to_string())?;
    let schema = RecordBatch::new_empty(arrow_array::RecordBatchReader::schema(&reader));
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok((schema, batches))
}

fn read_ours(file: &Bytes, o: &Options) -> Read {
    let options = reader_options(file, o)?;
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), options)
        .map_err(|e| e.to_string())?
        .with_path(Path::Fallback);
    let mut builder = builder.with_batch_size(o.batch_size);
    if let Some(roots) = &o.projection {
        let mask = ProjectionMask::roots(builder.parquet_schema(), roots.iter().copied());
        builder = builder.with_projection(mask);
    }
    if let Some(rg) = &o.row_groups {
        builder = builder.with_row_groups(rg.clone());
    }
    if let Some(s) = &o.selection {
        builder = builder.with_row_selection(RowSelection::from(s.clone()));
    }
    if let Some(l) = o.limit {
        builder = builder.with_limit(l);
    }
    if let Some(off) = o.offset {
        builder = builder.with_offset(off);
    }
    let reader = builder.build().map_err(|e| e.to_string())?;
    let schema = RecordBatch::new_empty(arrow_array::RecordBatchReader::schema(&reader));
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    Ok((schema, batches))
}

/// Ours, with a panic turned into a test failure that names the file and options.
fn ours_no_panic(name: &str, file: &Bytes, o: &Options) -> Read {
    catch_unwind(AssertUnwindSafe(|| read_ours(file, o)))
        .unwrap_or_else(|_| panic!("{name} {o:?}: qpl-rs's reader panicked"))
}

/// The option sets a file is read with: its row groups' row counts decide the selection.
fn option_sets(file: &Bytes) -> Vec<Options> {
    let Ok(builder) = ArrowRsBuilder::try_new(file.clone()) else {
        return vec![Options {
            batch_size: 8192,
            ..Options::default()
        }];
    };
    let metadata = builder.metadata();
    let rows: Vec<usize> = metadata
        .row_groups()
        .iter()
        .map(|rg| rg.num_rows() as usize)
        .collect();
    let fields = builder.schema().fields().len();
    let total: usize = rows.iter().sum();
    let mut sets = Vec::new();
    for batch_size in [8192, 1000] {
        sets.push(Options {
            batch_size,
            ..Options::default()
        });
    }
    // Every other top-level column (a struct, list or map whole).
    sets.push(Options {
        batch_size: 1000,
        projection: Some((0..fields).step_by(2).collect()),
        ..Options::default()
    });
    // Skip, select, skip, select the rest: runs inside pages and across row groups.
    let (a, b, c) = (total.min(3), total.saturating_sub(3).min(517), total / 3);
    let rest = total - a - b - c.min(total - a - b);
    sets.push(Options {
        batch_size: 1000,
        selection: Some(vec![
            RowSelector::skip(a),
            RowSelector::select(b),
            RowSelector::skip(c.min(total - a - b)),
            RowSelector::select(rest),
        ]),
        projection: Some((1..fields).step_by(3).collect()),
        ..Options::default()
    });
    sets.push(Options {
        batch_size: 1000,
        offset: Some(123),
        limit: Some(777),
        ..Options::default()
    });
    if rows.len() > 1 {
        // The last row group, then the first.
        sets.push(Options {
            batch_size: 8192,
            row_groups: Some(vec![rows.len() - 1, 0]),
            limit: Some(total / 2 + 1),
            ..Options::default()
        });
    }
    // Every set again with strings and binaries read as views.
    let views: Vec<Options> = sets
        .iter()
        .map(|o| Options {
            views: true,
            ..o.clone()
        })
        .collect();
    sets.extend(views);
    sets
}

#[test]
fn every_corpus_file_reads_as_arrow_rs_reads_it() {
    let corpus = corpus();
    assert!(corpus.len() >= 16, "{} files", corpus.len());
    let mut reads = 0;
    for (name, file) in &corpus {
        for o in option_sets(file) {
            let expected = read_arrow_rs(file, &o);
            let got = ours_no_panic(name, file, &o);
            match (expected, got) {
                (Ok((schema, batches)), Ok((our_schema, ours))) => {
                    assert_eq!(
                        schema.schema(),
                        our_schema.schema(),
                        "{name} {o:?}: schemas differ"
                    );
                    assert_eq!(
                        batches.len(),
                        ours.len(),
                        "{name} {o:?}: batch counts differ"
                    );
                    for (i, (e, g)) in batches.iter().zip(&ours).enumerate() {
                        assert_eq!(e.schema(), g.schema(), "{name} {o:?}: batch {i}'s schema");
                        assert!(e == g, "{name} {o:?}: batch {i} differs");
                    }
                }
                (Ok(_), Err(e)) => panic!("{name} {o:?}: arrow-rs reads it, ours fails: {e}"),
                // arrow-rs cannot read it: ours must say so too (with any message).
                (Err(e), Ok(_)) => panic!("{name} {o:?}: arrow-rs fails ({e}), ours reads it"),
                (Err(_), Err(_)) => {}
            }
            reads += 1;
        }
    }
    println!("{} files, {reads} reads compared", corpus.len());
}

/// pyarrow's nested files (the struct holding a struct and a list `s`, the list of structs
/// `ls`, the map `m`, the list of lists `ll`, the list of lists of lists `lll`, the list of
/// structs holding a struct `lsn`, the map of structs `ms`), its files of every logical type (the Null type and
/// pandas' Int8-keyed categoricals among them) and its empty files: every column read by this
/// project, none handed to arrow-rs's reader (the corpus test above compares the batches).
#[test]
fn pyarrow_nested_and_typed_columns_are_all_read_here() {
    let files: Vec<_> = pyarrow_files()
        .into_iter()
        .filter(|(name, _)| {
            ["pyarrow_nested", "pyarrow_types", "pyarrow_empty"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
        })
        .collect();
    if files.is_empty() {
        println!("pyarrow not installed: its nested and typed files are skipped");
        return;
    }
    for (name, file) in files {
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        assert!(
            reader.columns_read_by_arrow_rs().is_empty(),
            "{name}: {:?}",
            reader.columns_read_by_arrow_rs()
        );
    }
}

/// apache/parquet-testing's `repeated_no_annotation.parquet`: a struct holding a repeated
/// group without annotation (a list of structs). arrow-rs's reader returns no batch for its
/// 6 rows; this reader reads the column itself, and its rows are those pyarrow 26 reads
/// (`pq.read_table(...).to_pylist()`, written out below).
#[test]
fn a_struct_holding_an_unannotated_repeated_group_reads_as_pyarrow_reads_it() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::Array;
    let file = regression("repeated_no_annotation.parquet");
    let o = Options {
        batch_size: 8192,
        ..Options::default()
    };
    let theirs = read_arrow_rs(&file, &o).expect("arrow-rs reads the footer");
    assert!(theirs.1.is_empty(), "arrow-rs's reader gives no batch here");
    let reader = ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    assert!(reader.columns_read_by_arrow_rs().is_empty());
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let [batch] = &batches[..] else {
        panic!("{} batches", batches.len());
    };
    let ids = batch.column(0).as_primitive::<Int32Type>();
    assert_eq!(ids.values(), &[1, 2, 3, 4, 5, 6]);
    type Phone = (i64, Option<String>);
    let numbers = batch.column(1).as_struct();
    let phones = numbers.column(0).as_list::<i32>();
    let rows: Vec<Option<Vec<Phone>>> = (0..numbers.len())
        .map(|row| {
            numbers.is_valid(row).then(|| {
                let phone = phones.value(row);
                let phone = phone.as_struct();
                let number = phone.column(0).as_primitive::<Int64Type>();
                let kind = phone.column(1).as_string::<i32>();
                (0..phone.len())
                    .map(|i| {
                        (
                            number.value(i),
                            kind.is_valid(i).then(|| kind.value(i).to_string()),
                        )
                    })
                    .collect()
            })
        })
        .collect();
    let home = || Some("home".to_string());
    assert_eq!(
        rows,
        [
            None,
            None,
            Some(vec![]),
            Some(vec![(5555555555, None)]),
            Some(vec![(1111111111, home())]),
            Some(vec![
                (1111111111, home()),
                (2222222222, None),
                (3333333333, Some("mobile".to_string())),
            ]),
        ]
    );
}

/// Dremio's footer, which the parquet crate 59 cannot parse (a `list<struct>` in field 15 of
/// ColumnMetaData, where parquet-format has `i32 bloom_filter_length`): arrow-rs's builder
/// fails; ours skips that field as pyarrow does, and reads the file. Its rows equal what
/// arrow-rs's reader decodes of the same pages given the footer ours read.
#[test]
fn dremio_footer_reads_as_pyarrow_reads_it() {
    use parquet::arrow::arrow_reader::ArrowReaderMetadata;
    let file = regression("dict-page-offset-zero.parquet");
    let o = Options {
        batch_size: 8192,
        ..Options::default()
    };
    assert!(read_arrow_rs(&file, &o).is_err());
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let metadata = builder.metadata().clone();
    let ours: Vec<RecordBatch> = builder
        .with_batch_size(8192)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(ours.iter().map(|b| b.num_rows()).sum::<usize>(), 39);
    assert_eq!(ours[0].schema().field(0).name(), "l_partkey");
    // Its dictionary_page_offset is 0 where there is no dictionary page: arrow-rs's reader
    // is given none, as ours (and pyarrow) take it.
    let mut builder = metadata.as_ref().clone().into_builder();
    let row_groups = builder
        .take_row_groups()
        .into_iter()
        .map(|row_group| {
            let mut row_group = row_group.into_builder();
            let columns = row_group
                .take_columns()
                .into_iter()
                .map(|c| {
                    assert_eq!(c.dictionary_page_offset(), Some(0));
                    c.into_builder()
                        .set_dictionary_page_offset(None)
                        .build()
                        .unwrap()
                })
                .collect();
            row_group.set_column_metadata(columns).build().unwrap()
        })
        .collect();
    let metadata = Arc::new(builder.set_row_groups(row_groups).build());
    let metadata = ArrowReaderMetadata::try_new(metadata, ArrowReaderOptions::new()).unwrap();
    let expected: Vec<RecordBatch> = ArrowRsBuilder::new_with_metadata(file, metadata)
        .with_batch_size(8192)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(ours, expected);
}

/// A damaged page header the parquet crate's page reader skips through forever when its input
/// has no end (`hang-page-header-skip.parquet`): ours must end with an error within seconds.
/// Read on another thread, so that a hang fails the test instead of hanging it (the thread is
/// then left behind).
#[test]
fn endless_page_header_is_an_error_within_seconds() {
    let file = regression("hang-page-header-skip.parquet");
    for batch_size in [8192, 1000] {
        let (send, receive) = mpsc::channel();
        let file = file.clone();
        std::thread::spawn(move || {
            let o = Options {
                batch_size,
                ..Options::default()
            };
            let _ = send.send(read_ours(&file, &o).map(|_| ()));
        });
        match receive.recv_timeout(Duration::from_secs(10)) {
            Ok(result) => assert!(result.is_err(), "the damaged header reads?"),
            Err(_) => panic!("no answer within 10 s (batch size {batch_size}): a loop"),
        }
    }
}
