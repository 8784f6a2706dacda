//! The reader suites' files (`reader`, `reader_memory`): written once by arrow-rs's
//! `ArrowWriter` (dictionary on, its default) into `$TMPDIR/qpl-rs-reader-bench/`, reused when
//! present.
//! - `lineitem_sf0.1_{uncompressed,snappy,zstd}.parquet`: TPC-H lineitem at scale factor 0.1
//!   (600k rows, 16 columns) from `tpchgen-arrow`;
//! - `events_1m.parquet`: 1M rows of sorted INT64 ids, INT32 keys drawn from 100k values, a
//!   ~200-value string (`category`), a DOUBLE, a nullable INT32 (~10% null), a timestamp
//!   (µs, UTC), a `list<string>` and a boolean; snappy.
//! - `nested_500k.parquet`: 500k rows of nested columns, nulls at every level: `point`, a
//!   struct of an INT64 and a struct of an INT64 and a DOUBLE; `items`, a list of structs of
//!   an INT32 and a ~1000-value string; `record`, a struct holding a list of strings; snappy.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, StringBuilder};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, ListArray, RecordBatch,
    StringArray, StructArray, TimestampMicrosecondArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields};
use bytes::Bytes;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use qpl_benches::Rng;
use tpchgen::generators::LineItemGenerator;
use tpchgen_arrow::LineItemArrow;

/// Rows per batch, both readers.
pub const BATCH: usize = 8192;
/// Rows of the events file.
pub const EVENTS_ROWS: usize = 1 << 20;
/// The filter case's value of `category`.
pub const FILTER_VALUE: &str = "event_0";

/// The directory the files are cached in.
fn dir() -> PathBuf {
    let dir = std::env::temp_dir().join("qpl-rs-reader-bench");
    std::fs::create_dir_all(&dir).expect("the cache directory");
    dir
}

/// The file called `name`, written by `write` the first time (under a name of this process,
/// then renamed: a concurrent run never reads half a file).
pub fn cached(name: &str, write: impl FnOnce() -> Vec<u8>) -> Bytes {
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
pub fn lineitem(compression: Compression) -> Vec<u8> {
    let generator = LineItemGenerator::new(0.1, 1, 1);
    let batches = LineItemArrow::new(generator)
        .with_batch_size(BATCH)
        .map(|b| b.expect("a lineitem batch"));
    write_batches(batches, compression)
}

/// The events file (see the module docs), in batches of 64k rows.
pub fn events() -> Vec<u8> {
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

/// Rows of the nested file.
const NESTED_ROWS: usize = 500_000;

/// The nested file (see the module docs), in batches of 64k rows.
pub fn nested() -> Vec<u8> {
    let mut rng = Rng::new(7);
    let step = 1 << 16;
    let batches = (0..NESTED_ROWS).step_by(step).map(move |start| {
        let rows = start..(start + step).min(NESTED_ROWS);
        let n = rows.len();
        let valid = |rng: &mut Rng, one_in: u64| -> NullBuffer {
            (0..n)
                .map(|_| !rng.next_u64().is_multiple_of(one_in))
                .collect()
        };
        let (point_valid, p_valid) = (valid(&mut rng, 11), valid(&mut rng, 7));
        let x_y = Fields::from(vec![
            Field::new("x", DataType::Int64, true),
            Field::new("y", DataType::Float64, true),
        ]);
        let p = StructArray::new(
            x_y,
            vec![
                Arc::new(Int64Array::from_iter(
                    rows.clone().map(|i| (i % 9 != 0).then_some(i as i64 * 7)),
                )),
                Arc::new(Float64Array::from_iter_values(
                    rows.clone().map(|i| i as f64 / 4.0),
                )),
            ],
            Some(p_valid),
        );
        let point = StructArray::new(
            Fields::from(vec![
                Field::new("n", DataType::Int64, true),
                Field::new("p", p.data_type().clone(), true),
            ]),
            vec![
                Arc::new(Int64Array::from_iter_values(rows.clone().map(|i| i as i64))),
                Arc::new(p),
            ],
            Some(point_valid),
        );
        let mut lengths = Vec::with_capacity(n);
        let mut list_valid = Vec::with_capacity(n);
        for _ in 0..n {
            let x = rng.next_u64();
            list_valid.push(!x.is_multiple_of(13));
            lengths.push(if x.is_multiple_of(13) {
                0
            } else {
                (x >> 8) as usize % 4
            });
        }
        let elements: usize = lengths.iter().sum();
        let k_name = Fields::from(vec![
            Field::new("k", DataType::Int32, true),
            Field::new("name", DataType::Utf8, true),
        ]);
        let entries = StructArray::new(
            k_name.clone(),
            vec![
                Arc::new(Int32Array::from_iter((0..elements).map(|e| {
                    (!e.is_multiple_of(10)).then_some(rng.next_u64() as i32 % 100_000)
                }))),
                Arc::new(StringArray::from_iter_values(
                    (0..elements).map(|_| format!("name_{}", rng.next_u64() % 1000)),
                )),
            ],
            Some((0..elements).map(|e| !e.is_multiple_of(17)).collect()),
        );
        let item = Arc::new(Field::new("item", DataType::Struct(k_name), true));
        let items = ListArray::new(
            item,
            OffsetBuffer::from_lengths(lengths),
            Arc::new(entries),
            Some(list_valid.into()),
        );
        let mut tags = ListBuilder::new(StringBuilder::new());
        for _ in 0..n {
            let x = rng.next_u64();
            if x.is_multiple_of(9) {
                tags.append_null();
                continue;
            }
            for t in 0..(x >> 8) % 4 {
                tags.values()
                    .append_value(format!("tag_{}", (x >> (16 + t)) % 300));
            }
            tags.append(true);
        }
        let tags = tags.finish();
        let record = StructArray::new(
            Fields::from(vec![Field::new("tags", tags.data_type().clone(), true)]),
            vec![Arc::new(tags)],
            Some(valid(&mut rng, 5)),
        );
        RecordBatch::try_from_iter([
            ("point", Arc::new(point) as ArrayRef),
            ("items", Arc::new(items)),
            ("record", Arc::new(record)),
        ])
        .expect("a nested batch")
    });
    write_batches(batches, Compression::SNAPPY)
}
