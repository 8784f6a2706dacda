//! Peak heap of a whole-file read to `RecordBatch`es (issue 30's memory target): this
//! project's reader (`qpl_rs`) against arrow-rs's (`arrow_rs`), in one process, the same
//! in-memory file (`Bytes`, held by both), projection and batch size (8192), each batch
//! dropped before the next is asked for (as a streaming consumer holds them).
//!
//! A counting global allocator keeps the bytes allocated now and their high-water mark; a
//! read's peak is that mark, reset before the read, less what was allocated before it. Heap
//! bytes, not RSS: exact and repeatable, whatever the allocator hands back to the system.
//! Criterion times; it cannot measure memory, so this suite prints its own table (one line
//! per case, JSON), each case read three times a reader, alternating, keeping the smallest
//! peak (the first read of a process also pays lazily made statics).
//!
//! ```sh
//! cargo bench -p qpl-benches --bench reader_memory            # every case
//! cargo bench -p qpl-benches --bench reader_memory -- events  # cases whose name has "events"
//! ```

mod reader_files;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder as ArrowRsBuilder;
use parquet::arrow::ProjectionMask;
use parquet::basic::{Compression, ZstdLevel};
use parquet::schema::types::SchemaDescriptor;
use qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder;
use reader_files::{cached, events, lineitem, nested, BATCH};

/// The system allocator, counting.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(size: usize) {
    let now = NOW.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` with the caller's arguments unchanged; the
// counters are bookkeeping only.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc`, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc_zeroed`, passed on.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `dealloc`, passed on.
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `realloc`, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            NOW.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The peak heap above what was allocated before `read` ran, in bytes; and the rows it read.
fn peak_of(read: impl FnOnce() -> usize) -> (usize, usize) {
    let before = NOW.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let rows = read();
    (PEAK.load(Ordering::Relaxed) - before, rows)
}

/// The columns under `roots` (`None`: all).
fn mask(schema: &SchemaDescriptor, roots: Option<&[usize]>) -> ProjectionMask {
    roots.map_or_else(ProjectionMask::all, |roots| {
        ProjectionMask::roots(schema, roots.iter().copied())
    })
}

fn ours(file: &Bytes, roots: Option<&[usize]>) -> usize {
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).expect("ours");
    let mask = mask(builder.parquet_schema(), roots);
    let reader = builder.with_projection(mask).with_batch_size(BATCH);
    let batches = reader.build().expect("our reader");
    batches.map(|b| b.expect("our batch").num_rows()).sum()
}

fn arrow_rs(file: &Bytes, roots: Option<&[usize]>) -> usize {
    let builder = ArrowRsBuilder::try_new(file.clone()).expect("arrow-rs");
    let mask = mask(builder.parquet_schema(), roots);
    let reader = builder.with_projection(mask).with_batch_size(BATCH);
    let batches = reader.build().expect("arrow-rs's reader");
    batches
        .map(|b| b.expect("arrow-rs's batch").num_rows())
        .sum()
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters the cases by name.
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let lineitems = [
        ("lineitem_sf0.1_uncompressed", Compression::UNCOMPRESSED),
        ("lineitem_sf0.1_snappy", Compression::SNAPPY),
        (
            "lineitem_sf0.1_zstd",
            Compression::ZSTD(ZstdLevel::default()),
        ),
    ];
    let mut cases: Vec<(String, Bytes, Option<Vec<usize>>)> = Vec::new();
    for (name, compression) in lineitems {
        let file = cached(&format!("{name}.parquet"), || lineitem(compression));
        cases.push((name.to_string(), file, None));
    }
    let events = cached("events_1m.parquet", events);
    cases.push(("events_1m".to_string(), events.clone(), None));
    // Each column alone.
    let columns = [
        "id", "key", "category", "value", "maybe", "ts", "tags", "flag",
    ];
    for (root, name) in columns.into_iter().enumerate() {
        cases.push((
            format!("events_1m/{name}"),
            events.clone(),
            Some(vec![root]),
        ));
    }
    // Nested columns: the whole file (a struct of a struct, a list of structs, a struct
    // holding a list).
    let nested = cached("nested_500k.parquet", nested);
    cases.push(("nested_500k".to_string(), nested.clone(), None));
    for (root, name) in ["point", "items", "record"].into_iter().enumerate() {
        cases.push((
            format!("nested_500k/{name}"),
            nested.clone(),
            Some(vec![root]),
        ));
    }
    for (name, file, roots) in cases {
        if !filters.is_empty() && !filters.iter().any(|f| name.contains(f.as_str())) {
            continue;
        }
        let roots = roots.as_deref();
        let (mut best_ours, mut best_theirs) = (usize::MAX, usize::MAX);
        for _ in 0..3 {
            let (peak, rows_ours) = peak_of(|| ours(&file, roots));
            best_ours = best_ours.min(peak);
            let (peak, rows_theirs) = peak_of(|| arrow_rs(&file, roots));
            best_theirs = best_theirs.min(peak);
            assert_eq!(rows_ours, rows_theirs, "{name}: rows of qpl_rs vs arrow_rs");
        }
        let mb = |bytes: usize| bytes as f64 / 1e6;
        println!(
            "{{\"case\":\"{name}\",\"qpl_rs_peak_mb\":{:.2},\"arrow_rs_peak_mb\":{:.2},\"ratio\":{:.3}}}",
            mb(best_ours),
            mb(best_theirs),
            best_ours as f64 / best_theirs as f64
        );
    }
}
