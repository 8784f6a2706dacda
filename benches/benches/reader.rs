//! The Arrow reader's suite: whole Parquet files read to `RecordBatch`es by
//! `qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder` (id `qpl_rs`) and by arrow-rs's
//! `ParquetRecordBatchReaderBuilder` (id `arrow_rs`): the same in-memory file (`Bytes`), the
//! same projection, batch size 8192, every batch of the file (footer parse and build included).
//! Throughput is the uncompressed size of the column chunks read (the sum of their
//! `uncompressed_size`), so MB/s compare across files and codecs.
//!
//! Groups:
//! - `reader/<file>`: every column of each file;
//! - `reader_column/<column>`: the events file, one top-level column projected at a time;
//! - `reader_filter/events_category_1pct`: the events file, every column, rows whose dictionary
//!   column `category` equals `event_0` (~1%): ours with its `RowFilter` of `Predicate::Eq`,
//!   arrow-rs with its `RowFilter` of one `ArrowPredicateFn` (`category == "event_0"`);
//!   `reader_filter/events_category_1pct_arrow_predicate`: the same, ours given arrow-rs's
//!   `ArrowPredicateFn` (`RowFilter::and_predicate`) instead of the query API's predicate.
//!
//! Files (written once by arrow-rs's `ArrowWriter`, dictionary on, its default; kept in
//! `$TMPDIR/qpl-rs-reader-bench/`, reused when present):
//! - `lineitem_sf0.1_{uncompressed,snappy,zstd}.parquet`: TPC-H lineitem at scale factor 0.1
//!   (600k rows, 16 columns) from `tpchgen-arrow`;
//! - `events_1m.parquet`: 1M rows of sorted INT64 ids, INT32 keys drawn from 100k values, a
//!   ~200-value string (`category`), a DOUBLE, a nullable INT32 (~10% null), a timestamp
//!   (µs, UTC), a `list<string>` and a boolean; snappy.
//!
//! Before anything is timed, each case's batches from both readers are compared: a case where
//! they differ stops the suite.

mod common;

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
    RowFilter as ArrowRsRowFilter,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use qpl_benches::Rng;
use qpl_rs::parquet::arrow::{ParquetRecordBatchReaderBuilder, RowFilter};
use qpl_rs::parquet::query::{Predicate, Scalar};
use tpchgen::generators::LineItemGenerator;
use tpchgen_arrow::LineItemArrow;

/// Rows per batch, both readers.
const BATCH: usize = 8192;
/// Rows of the events file.
const EVENTS_ROWS: usize = 1 << 20;
/// The filter case's value of `category`.
const FILTER_VALUE: &str = "event_0";

/// The directory the files are cached in.
fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join("qpl-rs-reader-bench");
    std::fs::create_dir_all(&dir).expect("the cache directory");
    dir
}

/// The file called `name`, written by `write` the first time (under a name of this process,
/// then renamed: a concurrent run never reads half a file).
fn cached(name: &str, write: impl FnOnce() -> Vec<u8>) -> Bytes {
    let path = dir().join(name);
    if let Ok(bytes) = std::fs::read(&path) {
        return Bytes::from(bytes);
    }
    let bytes = write();
    let partial = dir().join(format!("{name}.{}.partial", std::process::id()));
    std::fs::write(&partial, &bytes).expect("write the file");
    std::fs::rename(&partial, &path).expect("rename the file");
    Bytes::from(bytes)
}

fn write_batches(batches: impl Iterator<Item = RecordBatch>, compression: Compression) -> Vec<u8> {
    let mut batches = batches.peekable();
    let schema = batches.peek().expect("a batch").schema();
    let props = WriterProperties::builder()
        .set_compression(compression)
        .build();
    let mut file = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut file, schema, Some(props)).expect("a writer");
    for batch in batches {
        writer.write(&batch).expect("write a batch");
    }
    writer.close().expect("close the writer");
    file
}

/// TPC-H lineitem, scale factor 0.1.
fn lineitem(compression: Compression) -> Vec<u8> {
    let generator = LineItemGenerator::new(0.1, 1, 1);
    let batches = LineItemArrow::new(generator)
        .with_batch_size(BATCH)
        .map(|b| b.expect("a lineitem batch"));
    write_batches(batches, compression)
}

/// The events file (see the module docs), in batches of 64k rows.
fn events() -> Vec<u8> {
    let mut rng = Rng::new(42);
    let keys: Vec<i32> = (0..100_000).map(|_| rng.next_u64() as i32).collect();
    let words = [
        "red",
        "green",
        "blue",
        "new",
        "sale",
        "returning",
        "mobile",
        "web",
    ];
    let step = 1 << 16;
    let batches = (0..EVENTS_ROWS).step_by(step).map(move |start| {
        let rows = start..start + step;
        let id = Int64Array::from_iter_values(rows.clone().map(|i| 1_000_000 + 3 * i as i64));
        let key = Int32Array::from_iter_values(
            rows.clone()
                .map(|_| keys[(rng.next_u64() % keys.len() as u64) as usize]),
        );
        let category = StringArray::from_iter_values(rows.clone().map(|_| {
            if rng.next_u64().is_multiple_of(100) {
                FILTER_VALUE.to_string()
            } else {
                format!("event_{}", 1 + rng.next_u64() % 199)
            }
        }));
        let value = Float64Array::from_iter_values(
            rows.clone()
                .map(|_| (rng.next_u64() % 1_000_000) as f64 / 100.0),
        );
        let maybe = Int32Array::from_iter(rows.clone().map(|_| {
            let x = rng.next_u64();
            (!x.is_multiple_of(10)).then_some((x >> 32) as i32 % 1000)
        }));
        let ts = TimestampMicrosecondArray::from_iter_values(
            rows.clone()
                .map(|i| 1_700_000_000_000_000 + i as i64 * 1000 + (rng.next_u64() % 1000) as i64),
        )
        .with_timezone("UTC");
        let mut tags = ListBuilder::new(StringBuilder::new());
        for _ in rows.clone() {
            for _ in 0..rng.next_u64() % 4 {
                tags.values()
                    .append_value(words[(rng.next_u64() % words.len() as u64) as usize]);
            }
            tags.append(true);
        }
        let flag = BooleanArray::from_iter(rows.map(|_| Some(rng.next_u64().is_multiple_of(3))));
        RecordBatch::try_from_iter([
            ("id", Arc::new(id) as ArrayRef),
            ("key", Arc::new(key)),
            ("category", Arc::new(category)),
            ("value", Arc::new(value)),
            ("maybe", Arc::new(maybe)),
            ("ts", Arc::new(ts)),
            ("tags", Arc::new(tags.finish())),
            ("flag", Arc::new(flag)),
        ])
        .expect("an events batch")
    });
    write_batches(batches, Compression::SNAPPY)
}

/// What one case reads.
#[derive(Clone)]
struct Case {
    file: Bytes,
    /// Top-level columns (None: all).
    roots: Option<Vec<usize>>,
    /// `category == FILTER_VALUE`, and how ours is given it.
    filter: Filter,
}

/// A case's row filter. arrow-rs always gets its `ArrowPredicateFn` ([`category_predicate`]).
#[derive(Clone, Copy, PartialEq)]
enum Filter {
    None,
    /// Ours: the query API's `Predicate::Eq`.
    QueryApi,
    /// Ours: arrow-rs's very predicate (`RowFilter::and_predicate`), as a program switching
    /// from arrow-rs without rewriting its predicates runs it.
    ArrowPredicate,
}

impl Case {
    fn projection(&self, schema: &parquet::schema::types::SchemaDescriptor) -> ProjectionMask {
        match &self.roots {
            None => ProjectionMask::all(),
            Some(roots) => ProjectionMask::roots(schema, roots.iter().copied()),
        }
    }

    /// The uncompressed bytes of the column chunks read.
    fn bytes(&self) -> u64 {
        let builder = ArrowRsBuilder::try_new(self.file.clone()).expect("a footer");
        let mask = self.projection(builder.parquet_schema());
        let metadata = builder.metadata();
        metadata
            .row_groups()
            .iter()
            .flat_map(|rg| rg.columns().iter().enumerate())
            .filter(|(i, _)| mask.leaf_included(*i))
            .map(|(_, c)| c.uncompressed_size() as u64)
            .sum()
    }

    fn ours(&self) -> Vec<RecordBatch> {
        let builder = ParquetRecordBatchReaderBuilder::try_new(self.file.clone()).expect("ours");
        let mask = self.projection(builder.parquet_schema());
        let filter = match self.filter {
            Filter::None => None,
            Filter::QueryApi => Some(RowFilter::new().and(
                "category",
                Predicate::Eq(Scalar::Bytes(FILTER_VALUE.as_bytes().to_vec())),
            )),
            Filter::ArrowPredicate => {
                Some(RowFilter::new().and_predicate(category_predicate(builder.parquet_schema())))
            }
        };
        let mut builder = builder.with_projection(mask).with_batch_size(BATCH);
        if let Some(filter) = filter {
            builder = builder.with_row_filter(filter);
        }
        builder
            .build()
            .expect("our reader")
            .map(|b| b.expect("our batch"))
            .collect()
    }

    fn arrow_rs(&self) -> Vec<RecordBatch> {
        let builder = ArrowRsBuilder::try_new(self.file.clone()).expect("arrow-rs");
        let schema = builder.parquet_schema();
        let mask = self.projection(schema);
        let mut filter = None;
        if self.filter != Filter::None {
            filter = Some(ArrowRsRowFilter::new(vec![Box::new(category_predicate(
                schema,
            ))]));
        }
        let mut builder = builder.with_projection(mask).with_batch_size(BATCH);
        if let Some(filter) = filter {
            builder = builder.with_row_filter(filter);
        }
        builder
            .build()
            .expect("arrow-rs's reader")
            .map(|b| b.expect("arrow-rs's batch"))
            .collect()
    }

    /// Both readers' batches are equal (stops the suite if not).
    fn check(&self, name: &str) {
        let (ours, theirs) = (self.ours(), self.arrow_rs());
        let rows =
            |batches: &[RecordBatch]| batches.iter().map(RecordBatch::num_rows).sum::<usize>();
        assert_eq!(
            (ours.len(), rows(&ours)),
            (theirs.len(), rows(&theirs)),
            "{name}: (batches, rows) of qpl_rs vs arrow_rs"
        );
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert!(
                a == b,
                "{name}: batch {i} differs between qpl_rs and arrow_rs"
            );
        }
    }
}

/// arrow-rs's predicate `category == FILTER_VALUE`.
fn category_predicate(
    schema: &parquet::schema::types::SchemaDescriptor,
) -> impl parquet::arrow::arrow_reader::ArrowPredicate {
    let category = schema
        .columns()
        .iter()
        .position(|c| c.path().string() == "category")
        .expect("a category column");
    ArrowPredicateFn::new(
        ProjectionMask::leaves(schema, [category]),
        |batch: RecordBatch| {
            let column = batch.column(0);
            let strings = column
                .as_any()
                .downcast_ref::<StringArray>()
                .expect("category is Utf8");
            Ok(strings
                .iter()
                .map(|v| Some(v == Some(FILTER_VALUE)))
                .collect::<BooleanArray>())
        },
    )
}

fn bench_case(c: &mut Criterion, group: &str, name: &str, case: &Case) {
    case.check(&format!("{group}/{name}"));
    let mut g = c.benchmark_group(format!("{group}/{name}"));
    g.throughput(Throughput::Bytes(case.bytes()));
    g.bench_function(BenchmarkId::from_parameter("qpl_rs"), |b| {
        b.iter(|| black_box(case.ours()))
    });
    g.bench_function(BenchmarkId::from_parameter("arrow_rs"), |b| {
        b.iter(|| black_box(case.arrow_rs()))
    });
    g.finish();
}

fn reader(c: &mut Criterion) {
    let files = [
        ("lineitem_sf0.1_uncompressed", Compression::UNCOMPRESSED),
        ("lineitem_sf0.1_snappy", Compression::SNAPPY),
        (
            "lineitem_sf0.1_zstd",
            Compression::ZSTD(ZstdLevel::default()),
        ),
    ];
    for (name, compression) in files {
        let file = cached(&format!("{name}.parquet"), || lineitem(compression));
        let case = Case {
            file,
            roots: None,
            filter: Filter::None,
        };
        bench_case(c, "reader", name, &case);
    }
    let events = cached("events_1m.parquet", events);
    let case = Case {
        file: events,
        roots: None,
        filter: Filter::None,
    };
    bench_case(c, "reader", "events_1m", &case);
}

fn reader_column(c: &mut Criterion) {
    let events = cached("events_1m.parquet", events);
    let builder = ArrowRsBuilder::try_new(events.clone()).expect("a footer");
    let names: Vec<String> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    for (i, name) in names.iter().enumerate() {
        let case = Case {
            file: events.clone(),
            roots: Some(vec![i]),
            filter: Filter::None,
        };
        bench_case(c, "reader_column", name, &case);
    }
}

fn reader_filter(c: &mut Criterion) {
    let case = Case {
        file: cached("events_1m.parquet", events),
        roots: None,
        filter: Filter::QueryApi,
    };
    bench_case(c, "reader_filter", "events_category_1pct", &case);
    let case = Case {
        filter: Filter::ArrowPredicate,
        ..case
    };
    bench_case(
        c,
        "reader_filter",
        "events_category_1pct_arrow_predicate",
        &case,
    );
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = reader, reader_column, reader_filter
}
criterion_main!(benches);
