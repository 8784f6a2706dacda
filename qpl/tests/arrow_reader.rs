//! The Arrow reader (`qpl_rs::parquet::arrow`) against arrow-rs's, on files arrow-rs's writer
//! makes: every flat type the reader converts, required and nullable, dictionary and PLAIN,
//! pages v1 and v2, several pages and row groups; with batch sizes that cut pages, selections,
//! offsets, limits, projections, row groups and filters. Every batch must equal arrow-rs's.

use std::sync::Arc;

use arrow_array::builder::{Int32Builder, ListBuilder, MapBuilder, StringBuilder};
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::LargeListArray;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Float32Array, Float64Array, Int16Array,
    Int32Array, Int64Array, Int8Array, ListArray, RecordBatch, StringArray, StructArray,
    TimestampMicrosecondArray, UInt32Array, UInt64Array, UInt8Array,
};
use arrow_schema::{DataType, Field};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
    RowFilter as ArrowRsFilter, RowSelection, RowSelector,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
use qpl_rs::parquet::arrow::{ParquetRecordBatchReaderBuilder, RowFilter};
use qpl_rs::parquet::query::{Predicate, Scalar};
use qpl_rs::Path;

/// A small deterministic generator (xorshift), so that files are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn null(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

const ROWS: usize = 5_000;

/// One batch with a column per flat type (required and nullable), plus nested columns that
/// arrow-rs's reader reads for ours.
fn batch(seed: u64) -> RecordBatch {
    let mut r = Rng(seed);
    let n = ROWS;
    let opt = |r: &mut Rng, p: u64| !r.null(p);
    let i64s: Vec<i64> = (0..n as i64).map(|i| i * 3 + 1_000_000_000_000).collect();
    let keys: Vec<Option<i32>> = (0..n)
        .map(|_| opt(&mut r, 10).then(|| r.below(50) as i32))
        .collect();
    let words = ["alpha", "beta", "gamma", "", "delta epsilon zeta", "ω"];
    let strings: Vec<Option<&str>> = (0..n)
        .map(|_| opt(&mut r, 15).then(|| words[r.below(6) as usize]))
        .collect();
    let unique: Vec<String> = (0..n)
        .map(|i| format!("value-{}", i * 7919 % 10007))
        .collect();
    let binary: Vec<Option<Vec<u8>>> = (0..n)
        .map(|i| opt(&mut r, 5).then(|| vec![i as u8; i % 9]))
        .collect();
    let doubles: Vec<Option<f64>> = (0..n)
        .map(|_| opt(&mut r, 20).then(|| r.below(1000) as f64 / 7.0))
        .collect();
    let floats: Vec<f32> = (0..n).map(|_| r.below(100) as f32 - 50.5).collect();
    let bools: Vec<Option<bool>> = (0..n)
        .map(|_| opt(&mut r, 30).then(|| r.below(3) == 0))
        .collect();
    let bools_required: Vec<bool> = (0..n).map(|i| i % 7 < 3).collect();
    let small: Vec<Option<i8>> = (0..n)
        .map(|_| opt(&mut r, 10).then(|| r.below(256) as u8 as i8))
        .collect();
    let shorts: Vec<i16> = (0..n).map(|i| (i as i16).wrapping_mul(31)).collect();
    let bytes: Vec<u8> = (0..n).map(|i| (i * 13) as u8).collect();
    let u32s: Vec<Option<u32>> = (0..n)
        .map(|_| opt(&mut r, 5).then(|| r.next() as u32))
        .collect();
    let u64s: Vec<u64> = (0..n).map(|_| r.next()).collect();
    let dates: Vec<Option<i32>> = (0..n)
        .map(|_| opt(&mut r, 5).then(|| 18_000 + r.below(400) as i32))
        .collect();
    let stamps: Vec<Option<i64>> = (0..n)
        .map(|_| opt(&mut r, 5).then(|| 1_700_000_000_000_000 + r.below(1 << 40) as i64))
        .collect();
    let all_null: Vec<Option<i32>> = vec![None; n];
    let lists: Vec<Option<Vec<Option<i32>>>> = (0..n)
        .map(|_| opt(&mut r, 10).then(|| (0..r.below(4)).map(|v| Some(v as i32)).collect()))
        .collect();
    let list = ListArray::from_iter_primitive::<Int32Type, _, _>(lists);
    let mut names = ListBuilder::new(StringBuilder::new());
    for _ in 0..n {
        match r.below(10) {
            0 => names.append_null(),
            k => {
                for j in 0..k % 4 {
                    if r.null(10) {
                        names.values().append_null();
                    } else {
                        names.values().append_value(words[(j + k) as usize % 6]);
                    }
                }
                names.append(true);
            }
        }
    }
    let names = names.finish();
    let large = LargeListArray::from_iter_primitive::<Int64Type, _, _>((0..n).map(|i| {
        Some(
            (0..i % 3)
                .map(|v| Some(v as i64 * 1_000))
                .collect::<Vec<_>>(),
        )
    }));
    let inner = Arc::new(Int32Array::from_iter(
        (0..n).map(|i| (i % 3 != 0).then_some(i as i32)),
    ));
    let structs = StructArray::from(vec![(
        Arc::new(Field::new("x", DataType::Int32, true)),
        inner as ArrayRef,
    )]);
    let pair_valid: Vec<bool> = (0..n).map(|_| !r.null(20)).collect();
    let pair = StructArray::try_new(
        vec![
            Arc::new(Field::new("a", DataType::Int64, true)),
            Arc::new(Field::new("b", DataType::Utf8, false)),
        ]
        .into(),
        vec![
            Arc::new(Int64Array::from_iter(
                (0..n).map(|i| (i % 5 != 0).then_some(i as i64)),
            )),
            Arc::new(StringArray::from_iter_values((0..n).map(|i| words[i % 6]))),
        ],
        Some(pair_valid.into()),
    )
    .unwrap();
    let mut map = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for i in 0..n {
        for (j, word) in words.iter().enumerate().take(i % 3) {
            map.keys().append_value(word);
            map.values().append_value((i * j) as i32);
        }
        map.append(i % 11 != 0).unwrap();
    }
    let map = map.finish();
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("id", Arc::new(Int64Array::from(i64s))),
        ("key", Arc::new(Int32Array::from(keys))),
        ("word", Arc::new(StringArray::from(strings))),
        ("unique", Arc::new(StringArray::from(unique))),
        ("binary", Arc::new(BinaryArray::from_iter(binary))),
        ("double", Arc::new(Float64Array::from(doubles))),
        ("float", Arc::new(Float32Array::from(floats))),
        ("flag", Arc::new(BooleanArray::from(bools))),
        (
            "flag_required",
            Arc::new(BooleanArray::from(bools_required)),
        ),
        ("tiny", Arc::new(Int8Array::from(small))),
        ("short", Arc::new(Int16Array::from(shorts))),
        ("byte", Arc::new(UInt8Array::from(bytes))),
        ("u32", Arc::new(UInt32Array::from(u32s))),
        ("u64", Arc::new(UInt64Array::from(u64s))),
        ("date", Arc::new(Date32Array::from(dates))),
        (
            "stamp",
            Arc::new(TimestampMicrosecondArray::from(stamps).with_timezone("Europe/Paris")),
        ),
        ("nothing", Arc::new(Int32Array::from(all_null))),
        ("list", Arc::new(list)),
        ("names", Arc::new(names)),
        ("large", Arc::new(large)),
        ("point", Arc::new(structs)),
        ("pair", Arc::new(pair)),
        ("map", Arc::new(map)),
    ];
    RecordBatch::try_from_iter(columns).unwrap()
}

fn write(properties: WriterProperties) -> Bytes {
    let mut out = Vec::new();
    let first = batch(0x9E37_79B9_7F4A_7C15);
    let mut writer = ArrowWriter::try_new(&mut out, first.schema(), Some(properties)).unwrap();
    writer.write(&first).unwrap();
    writer.flush().unwrap(); // a second row group
    writer.write(&batch(0x1234_5678_9ABC_DEF1)).unwrap();
    writer.close().unwrap();
    Bytes::from(out)
}

fn files() -> Vec<(&'static str, Bytes)> {
    let small_pages = || {
        WriterProperties::builder()
            .set_data_page_row_count_limit(700)
            .set_write_batch_size(100)
            .set_statistics_enabled(EnabledStatistics::Page)
    };
    vec![
        ("v1 dictionary", write(small_pages().build())),
        (
            "v2 plain snappy",
            write(
                small_pages()
                    .set_writer_version(WriterVersion::PARQUET_2_0)
                    .set_dictionary_enabled(false)
                    .set_compression(Compression::SNAPPY)
                    .build(),
            ),
        ),
        (
            "v2 dictionary fallback zstd",
            write(
                small_pages()
                    .set_writer_version(WriterVersion::PARQUET_2_0)
                    .set_dictionary_page_size_limit(256)
                    .set_compression(Compression::ZSTD(Default::default()))
                    .build(),
            ),
        ),
        ("defaults", write(WriterProperties::builder().build())),
    ]
}

fn ours_all(file: &Bytes, batch_size: usize) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .with_path(Path::Fallback)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn theirs_all(file: &Bytes, batch_size: usize) -> Vec<RecordBatch> {
    ArrowRsBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(batch_size)
        .build()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn assert_same(name: &str, ours: &[RecordBatch], theirs: &[RecordBatch]) {
    assert_eq!(ours.len(), theirs.len(), "{name}: batches");
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(a.schema(), b.schema(), "{name}: batch {i}: schema");
        assert_eq!(a.num_rows(), b.num_rows(), "{name}: batch {i}: rows");
        for (c, field) in a.schema().fields().iter().enumerate() {
            assert_eq!(
                a.column(c).as_ref(),
                b.column(c).as_ref(),
                "{name}: batch {i}: column {}",
                field.name()
            );
        }
    }
}

#[test]
fn whole_files_equal_arrow_rs_at_every_batch_size() {
    for (name, file) in files() {
        for batch_size in [333, 1024, 8192, 20_000] {
            let ours = ours_all(&file, batch_size);
            let theirs = theirs_all(&file, batch_size);
            assert_same(&format!("{name}, batch {batch_size}"), &ours, &theirs);
        }
    }
}

#[test]
fn batches_of_one_row() {
    let (name, file) = &files()[0];
    let mask = |b: &parquet::schema::types::SchemaDescriptor| {
        ProjectionMask::columns(b, ["word", "names", "flag", "pair.a", "pair.b"])
    };
    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let ours_mask = mask(ours.parquet_schema());
    let ours = ours.with_projection(ours_mask).with_batch_size(1);
    let theirs = ArrowRsBuilder::try_new(file.clone()).unwrap();
    let theirs_mask = mask(theirs.parquet_schema());
    let theirs = theirs.with_projection(theirs_mask).with_batch_size(1);
    let (ours, theirs) = collect(ours, theirs);
    assert_same(name, &ours, &theirs);
}

#[test]
fn flat_columns_are_read_here_and_nested_ones_by_arrow_rs() {
    let (_, file) = &files()[0];
    let reader = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(reader.columns_read_by_arrow_rs(), ["map"]);
}

#[test]
fn selections_offsets_limits_projections_and_row_groups() {
    for (name, file) in files() {
        let selection = RowSelection::from(vec![
            RowSelector::skip(17),
            RowSelector::select(700),
            RowSelector::skip(4_000),
            RowSelector::select(1_500),
            RowSelector::skip(3),
            RowSelector::select(2_000),
        ]);
        let cases: Vec<(&str, Box<Reads<'_>>)> = vec![
            (
                "selection",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(1000)
                        .with_row_selection(selection.clone());
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(1000)
                        .with_row_selection(selection.clone());
                    collect(ours, theirs)
                }),
            ),
            (
                "offset and limit",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(999)
                        .with_offset(4_321)
                        .with_limit(3_210);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(999)
                        .with_offset(4_321)
                        .with_limit(3_210);
                    collect(ours, theirs)
                }),
            ),
            (
                "selection, offset and limit",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                        .unwrap()
                        .with_row_selection(selection.clone())
                        .with_offset(500)
                        .with_limit(2_500);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_row_selection(selection.clone())
                        .with_offset(500)
                        .with_limit(2_500);
                    collect(ours, theirs)
                }),
            ),
            (
                "projection and row groups",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
                    let mask = ProjectionMask::roots(ours.parquet_schema(), [2, 0, 7, 17]);
                    let ours = ours
                        .with_projection(mask.clone())
                        .with_row_groups(vec![1, 0]);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_projection(mask)
                        .with_row_groups(vec![1, 0]);
                    collect(ours, theirs)
                }),
            ),
            (
                "threads",
                Box::new(|file: &Bytes| {
                    let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(777)
                        .with_threads(2);
                    let theirs = ArrowRsBuilder::try_new(file.clone())
                        .unwrap()
                        .with_batch_size(777);
                    collect(ours, theirs)
                }),
            ),
        ];
        for (case, run) in cases {
            let (ours, theirs) = run(&file);
            assert_same(&format!("{name}, {case}"), &ours, &theirs);
        }
    }
}

/// A case: reads a file with both readers.
type Reads<'a> = dyn Fn(&Bytes) -> (Vec<RecordBatch>, Vec<RecordBatch>) + 'a;

fn collect(
    ours: ParquetRecordBatchReaderBuilder<Bytes>,
    theirs: ArrowRsBuilder<Bytes>,
) -> (Vec<RecordBatch>, Vec<RecordBatch>) {
    (
        ours.build().unwrap().collect::<Result<_, _>>().unwrap(),
        theirs.build().unwrap().collect::<Result<_, _>>().unwrap(),
    )
}

#[test]
fn row_filters_keep_the_rows_arrow_rs_keeps() {
    for (name, file) in files() {
        for (key, limit) in [(7, None), (49, Some(30)), (1_000, None)] {
            let ours = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                .unwrap()
                .with_batch_size(100)
                .with_row_filter(
                    RowFilter::new()
                        .and("key", Predicate::Eq(Scalar::Int32(key)))
                        .and("flag", Predicate::Eq(Scalar::Boolean(true))),
                );
            let ours = match limit {
                Some(limit) => ours.with_limit(limit),
                None => ours,
            };
            let theirs = ArrowRsBuilder::try_new(file.clone()).unwrap();
            let mask = ProjectionMask::columns(theirs.parquet_schema(), ["key", "flag"]);
            let predicate = ArrowPredicateFn::new(mask, move |batch: RecordBatch| {
                let keys = batch
                    .column(0)
                    .as_any()
                    .downcast_ref::<Int32Array>()
                    .unwrap();
                let flags = batch
                    .column(1)
                    .as_any()
                    .downcast_ref::<BooleanArray>()
                    .unwrap();
                Ok(BooleanArray::from_iter(
                    keys.iter()
                        .zip(flags.iter())
                        .map(|(k, f)| Some(k == Some(key) && f == Some(true))),
                ))
            });
            let theirs = theirs
                .with_batch_size(100)
                .with_row_filter(ArrowRsFilter::new(vec![Box::new(predicate)]));
            let theirs = match limit {
                Some(limit) => theirs.with_limit(limit),
                None => theirs,
            };
            let (ours, theirs) = collect(ours, theirs);
            assert_same(&format!("{name}, key = {key}"), &ours, &theirs);
            let rows: usize = ours.iter().map(|b| b.num_rows()).sum();
            if key == 1_000 {
                assert_eq!(rows, 0, "{name}: no key is 1000");
            } else {
                assert!(rows > 0, "{name}: key {key} is in the file");
            }
        }
    }
}

#[test]
fn a_filter_on_a_missing_column_is_an_error() {
    let (_, file) = &files()[0];
    let result = ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_row_filter(RowFilter::new().and("nope", Predicate::Eq(Scalar::Int32(1))))
        .build();
    let message = result.err().expect("an error").to_string();
    assert!(message.contains("nope"), "{message}");
}

#[test]
fn damaged_files_are_errors_not_panics() {
    let (_, file) = &files()[1];
    // Overwrite bytes inside the first column chunk's pages, one region at a time.
    let mut errors = 0;
    for at in (4..file.len() / 2).step_by(file.len() / 50) {
        let mut bad = file.to_vec();
        for b in &mut bad[at..(at + 40).min(file.len())] {
            *b = b.wrapping_mul(31).wrapping_add(7);
        }
        let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bad)) else {
            errors += 1;
            continue;
        };
        match builder.build() {
            Ok(reader) => {
                if reader.into_iter().any(|b| b.is_err()) {
                    errors += 1;
                }
            }
            Err(_) => errors += 1,
        }
    }
    assert!(errors > 0, "some damage is noticed");
}

/// A file the reader's fuzz target found: a data page whose type says v2 without a v2 header,
/// on which the parquet crate's `peek_next_page` panics. Read without a selection (no peek)
/// and with one (a peek; the panic is caught): an error either way.
#[test]
fn a_v2_page_without_its_header_is_an_error() {
    let file = Bytes::from(
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/v2-page-without-v2-header.parquet"
        ))
        .unwrap(),
    );
    for selection in [None, Some(RowSelection::from(vec![RowSelector::select(1)]))] {
        let Ok(builder) = ParquetRecordBatchReaderBuilder::try_new(file.clone()) else {
            continue;
        };
        let builder = match selection {
            Some(selection) => builder.with_row_selection(selection),
            None => builder,
        };
        let failed = match builder.build() {
            Ok(reader) => reader.into_iter().any(|batch| batch.is_err()),
            Err(_) => true,
        };
        assert!(failed, "the damaged page reads?");
    }
}
