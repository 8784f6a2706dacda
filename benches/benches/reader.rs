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
//!   `reader_column/lineitem_<column>`: the same for uncompressed lineitem's columns;
//! - `reader_threads/<file>` and `reader_threads/<file>_consumer_1ms`: lineitem (uncompressed,
//!   snappy) and events, ours on one and on two threads beside arrow-rs, without and with 1 ms
//!   of the consumer's work after each batch;
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
//!   (µs, UTC), a `list<string>` and a boolean; snappy;
//! - `nested_500k.parquet`: 500k rows of a struct of a struct, a list of structs and a struct
//!   holding a list, nulls at every level; snappy (its columns are `reader_column/nested_*`).
//!
//! Before anything is timed, each case's batches from both readers are compared: a case where
//! they differ stops the suite.

mod common;
mod reader_files;

use std::hint::black_box;
use std::time::{Duration, Instant};

use arrow_array::{BooleanArray, RecordBatch, StringArray};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ParquetRecordBatchReaderBuilder as ArrowRsBuilder,
    RowFilter as ArrowRsRowFilter,
};
use parquet::arrow::ProjectionMask;
use parquet::basic::{Compression, ZstdLevel};
use qpl_rs::parquet::arrow::{ParquetRecordBatchReaderBuilder, RowFilter};
use qpl_rs::parquet::query::{Predicate, Scalar};
use reader_files::{cached, events, lineitem, nested, BATCH, FILTER_VALUE};

/// What one case reads.
#[derive(Clone)]
struct Case {
    file: Bytes,
    /// Top-level columns (None: all).
    roots: Option<Vec<usize>>,
    /// `category == FILTER_VALUE`, and how ours is given it.
    filter: Filter,
    /// Ours: `with_threads`.
    threads: usize,
    /// The consumer's work on each batch (a spin of this long, after each reader's batch
    /// alike), as an engine's operators take their time between two batches.
    work: Duration,
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
    /// Every column of `file`, no filter, one thread, no work between batches.
    fn whole(file: Bytes) -> Case {
        Case {
            file,
            roots: None,
            filter: Filter::None,
            threads: 1,
            work: Duration::ZERO,
        }
    }

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
        let mut builder = builder
            .with_projection(mask)
            .with_batch_size(BATCH)
            .with_threads(self.threads);
        if let Some(filter) = filter {
            builder = builder.with_row_filter(filter);
        }
        builder
            .build()
            .expect("our reader")
            .map(|b| self.consume(b.expect("our batch")))
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
            .map(|b| self.consume(b.expect("arrow-rs's batch")))
            .collect()
    }

    /// `batch`, after the consumer's work on it ([`Case::work`]).
    fn consume(&self, batch: RecordBatch) -> RecordBatch {
        let start = Instant::now();
        while start.elapsed() < self.work {
            std::hint::spin_loop();
        }
        batch
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
        bench_case(c, "reader", name, &Case::whole(file));
    }
    let events = cached("events_1m.parquet", events);
    bench_case(c, "reader", "events_1m", &Case::whole(events));
    let nested = cached("nested_500k.parquet", nested);
    bench_case(c, "reader", "nested_500k", &Case::whole(nested));
}

fn reader_column(c: &mut Criterion) {
    let events = cached("events_1m.parquet", events);
    each_column(c, &events, "");
    // lineitem's columns one at a time, as an engine that projects them reads them.
    let lineitem = cached("lineitem_sf0.1_uncompressed.parquet", || {
        lineitem(Compression::UNCOMPRESSED)
    });
    each_column(c, &lineitem, "lineitem_");
    each_column(c, &cached("nested_500k.parquet", nested), "nested_");
}

/// A `reader_column` case per top-level column of `file`, its id the column's name after
/// `prefix`.
fn each_column(c: &mut Criterion, file: &Bytes, prefix: &str) {
    let builder = ArrowRsBuilder::try_new(file.clone()).expect("a footer");
    let names: Vec<String> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    for (i, name) in names.iter().enumerate() {
        let case = Case {
            roots: Some(vec![i]),
            ..Case::whole(file.clone())
        };
        bench_case(c, "reader_column", &format!("{prefix}{name}"), &case);
    }
}

fn reader_filter(c: &mut Criterion) {
    let case = Case {
        filter: Filter::QueryApi,
        ..Case::whole(cached("events_1m.parquet", events))
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

/// `reader_threads/<file>`: ours on one thread (`qpl_rs_1`) and on two (`with_threads(2)`,
/// `qpl_rs_2`) beside arrow-rs; `reader_threads/<file>_consumer_1ms`: the same, with 1 ms of
/// the consumer's work after each batch of every reader (as an engine's operators take their
/// time between batches), so that the differences between ids are the readers'.
fn reader_threads(c: &mut Criterion) {
    let lineitems = [
        ("lineitem_sf0.1_uncompressed", Compression::UNCOMPRESSED),
        ("lineitem_sf0.1_snappy", Compression::SNAPPY),
    ];
    let mut cases: Vec<(&str, Bytes)> = lineitems
        .into_iter()
        .map(|(name, codec)| (name, cached(&format!("{name}.parquet"), || lineitem(codec))))
        .collect();
    cases.push(("events_1m", cached("events_1m.parquet", events)));
    for (name, file) in cases {
        let two = Case {
            threads: 2,
            ..Case::whole(file)
        };
        two.check(&format!("reader_threads/{name}"));
        for (suffix, work) in [
            ("", Duration::ZERO),
            ("_consumer_1ms", Duration::from_millis(1)),
        ] {
            let mut g = c.benchmark_group(format!("reader_threads/{name}{suffix}"));
            g.throughput(Throughput::Bytes(two.bytes())).sample_size(10);
            for threads in [1, 2] {
                let case = Case {
                    threads,
                    work,
                    ..two.clone()
                };
                g.bench_function(
                    BenchmarkId::from_parameter(format!("qpl_rs_{threads}")),
                    |b| b.iter(|| black_box(case.ours())),
                );
            }
            let case = Case {
                work,
                ..two.clone()
            };
            g.bench_function(BenchmarkId::from_parameter("arrow_rs"), |b| {
                b.iter(|| black_box(case.arrow_rs()))
            });
            g.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = reader, reader_column, reader_filter, reader_threads
}
criterion_main!(benches);
