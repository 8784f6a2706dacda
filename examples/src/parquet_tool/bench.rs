//! `qpl-parquet bench FILE`: per column chunk, how long this project's page layer takes to
//! decode it and how long the `parquet` crate's column reader takes for the same pages, as a
//! table read at a glance. A printout to compare orders of magnitude, not a benchmark: best of
//! a few runs timed with [`Instant`], on whatever else the machine is doing.
//!
//! Both sides start from the same decompressed pages in memory (read once through the parquet
//! crate's page reader), so neither pays for I/O, page headers or decompression: what is
//! timed is level and value decoding. The parquet crate reads them through [`MemoryPages`], a
//! [`PageReader`] over those pages, and its column reader's `read_records` (levels and values
//! into its buffers, as a Parquet reader's inner loop does).
//!
//! A last table compares the Arrow readers (`qpl_rs::parquet::arrow` against arrow-rs's
//! `ParquetRecordBatchReaderBuilder`, batch size 8192): the whole file, then each top-level
//! column alone (see [`arrow_table`]).
//!
//! GZIP files get a second table (after the first, which is unchanged): per GZIP column chunk,
//! the pages as stored (compressed, read once into memory) decoded by qpl-rs twice — in one
//! decompress-enabled job per page where the encoding allows it (dictionary indices, PLAIN
//! booleans: `ChunkDecoder::decode_compressed_page`), and inflated on the CPU first, then
//! decoded (`with_one_job(false)`) — with the pages that ran in one job, both times and the
//! gain (inflate-then-decode time / one-job time).

use std::fs::File;
use std::path::Path as FilePath;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use arrow_schema::ArrowError;
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder as ArrowRsBuilder;
use parquet::arrow::ProjectionMask;
use parquet::column::page::{Page as CratePage, PageMetadata, PageReader};
use parquet::column::reader::{get_column_reader, get_typed_column_reader, ColumnReader};
use parquet::data_type::{
    BoolType, ByteArrayType, DataType, DoubleType, FixedLenByteArrayType, FloatType, Int32Type,
    Int64Type, Int96Type,
};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::schema::types::ColumnDescPtr;
use parquet::schema::types::SchemaDescriptor;
use qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder as QplBuilder;
use qpl_rs::parquet::query::chunk_page_reader;
use qpl_rs::parquet::query::ChunkPages as StoredPages;
use qpl_rs::parquet::{
    ChunkDecoder, Column, ColumnData, CompressedPage, InflateRoute, Page, PageCompression,
    PhysicalType,
};
use qpl_rs::Path;
use std::sync::Arc;

use super::verify::{column_of, Shared};

/// `println!` that ignores a closed stdout (`qpl-parquet bench FILE | head` must not panic).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub(super) use say;

/// Timed runs per side; the best is kept.
const RUNS: usize = 5;
/// Stop repeating a side once its runs took this long in total (big chunks, debug builds).
const TIME_BUDGET: Duration = Duration::from_millis(500);

/// Runs `qpl-parquet bench FILE` with qpl-rs on `path`: prints the table; exit 0, or 2 when
/// the file cannot be read, the path cannot run here, or a chunk fails to decode (the table
/// still shows the others).
pub fn run(file: &FilePath, path: Path) -> ExitCode {
    if let Err(why) = path.availability() {
        eprintln!("qpl-parquet bench: the {path} path cannot run here: {why}");
        return ExitCode::from(2);
    }
    let chunks = match catch(|| read_chunks(file, None)) {
        Ok(chunks) => chunks,
        Err(e) => {
            eprintln!("qpl-parquet bench: {}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    say!(
        "{}: {} column chunks; qpl-rs on the {path} path; best of up to {RUNS} runs on the same \
         decompressed pages in memory",
        file.display(),
        chunks.len(),
    );
    if cfg!(debug_assertions) {
        say!("(a debug build: times say little; build with --release)");
    }
    say!("speedup = parquet time / qpl-rs time (above 1: qpl-rs faster); ran on = where the levels, indices and booleans were decoded (cpu codecs: the chunk has none)");
    let header = [
        "rg",
        "column",
        "type",
        "encodings",
        "values",
        "qpl-rs ms",
        "parquet ms",
        "qpl-rs Mv/s",
        "parquet Mv/s",
        "speedup",
        "ran on",
    ];
    let mut rows = vec![header.map(str::to_string).to_vec()];
    // Error messages, shown under the table and referred to as `error [n]` in cells.
    let mut notes: Vec<String> = Vec::new();
    let mut note = |message: String| {
        let n = notes.iter().position(|m| *m == message).unwrap_or_else(|| {
            notes.push(message);
            notes.len() - 1
        });
        format!("error [{}]", n + 1)
    };
    let mut failed = false;
    let (mut ours_total, mut theirs_total) = (Duration::ZERO, Duration::ZERO);
    for chunk in &chunks {
        let values = chunk.levels();
        let mut row = vec![
            chunk.row_group.to_string(),
            chunk.name.clone(),
            chunk.type_name(),
            chunk.encodings(),
            values.to_string(),
        ];
        let ours = match catch(|| time_ours(chunk, path)) {
            Ok((time, ran_on)) => {
                row.push(millis(time));
                Some((time, ran_on))
            }
            Err(e) => {
                failed = true;
                row.push(note(e));
                None
            }
        };
        match (ours, catch(|| time_parquet_crate(chunk))) {
            (Some((ours, ran_on)), Ok(theirs)) => {
                ours_total += ours;
                theirs_total += theirs;
                row.extend([
                    millis(theirs),
                    per_second(values, ours),
                    per_second(values, theirs),
                    ratio(theirs, ours),
                    ran_on.map_or("cpu codecs", Path::name).to_string(),
                ]);
            }
            (_, theirs) => {
                failed |= theirs.is_err();
                row.push(match theirs {
                    Ok(theirs) => millis(theirs),
                    Err(e) => note(format!("parquet crate: {e}")),
                });
            }
        }
        rows.push(row);
    }
    print_table(&rows);
    for (i, message) in notes.iter().enumerate() {
        say!("[{}] {message}", i + 1);
    }
    if !ours_total.is_zero() {
        say!(
            "total (chunks both decoded): qpl-rs {} ms, parquet {} ms, speedup {}",
            millis(ours_total),
            millis(theirs_total),
            ratio(theirs_total, ours_total)
        );
    }
    match catch(|| gzip_table(file, &chunks, path)) {
        Ok(()) => {}
        Err(e) => {
            failed = true;
            say!("GZIP chunks: {e}");
        }
    }
    match catch(|| arrow_table(file, path)) {
        Ok(()) => {}
        Err(e) => {
            failed = true;
            say!("Arrow readers: {e}");
        }
    }
    if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    }
}

/// The GZIP table (see the module docs); nothing when the file has no GZIP chunk.
fn gzip_table(file: &FilePath, chunks: &[ChunkPages], path: Path) -> Result<(), String> {
    let source = Shared::new(File::open(file).map_err(|e| e.to_string())?);
    let reader = SerializedFileReader::new(source.clone()).map_err(|e| e.to_string())?;
    let metadata = reader.metadata();
    let mut rows = vec![[
        "rg",
        "column",
        "type",
        "encodings",
        "values",
        "one-job pages",
        "one-job ms",
        "inflate+decode ms",
        "gain",
        "ran on",
    ]
    .map(str::to_string)
    .to_vec()];
    let (mut one_total, mut two_total) = (Duration::ZERO, Duration::ZERO);
    for chunk in chunks {
        let codec = metadata
            .row_group(chunk.row_group)
            .column(chunk.column_index)
            .compression();
        if !matches!(codec, parquet::basic::Compression::GZIP(_)) {
            continue;
        }
        // The library reads the chunk's pages as stored, with how each is stored.
        let read = StoredPages::read_stored(
            Arc::new(source.clone()),
            metadata,
            chunk.row_group,
            &chunk.name,
        )
        .map_err(|e| format!("row group {}, {e}", chunk.row_group))?;
        let stored = StoredChunk {
            column: read.column,
            pages: &read.pages,
            compression: &read.compression,
        };
        let mut row = vec![
            chunk.row_group.to_string(),
            chunk.name.clone(),
            chunk.type_name(),
            chunk.encodings(),
            chunk.levels().to_string(),
        ];
        let one = time_stored(&stored, path, true)
            .map_err(|e| format!("{} (row group {}): {e}", chunk.name, chunk.row_group))?;
        let two = time_stored(&stored, path, false)
            .map_err(|e| format!("{} (row group {}): {e}", chunk.name, chunk.row_group))?;
        one_total += one.time;
        two_total += two.time;
        row.extend([
            format!("{}/{}", one.in_job, one.data_pages),
            millis(one.time),
            millis(two.time),
            ratio(two.time, one.time),
            one.ran_on.map_or("cpu codecs", Path::name).to_string(),
        ]);
        rows.push(row);
    }
    if rows.len() == 1 {
        return Ok(());
    }
    say!(
        "GZIP chunks, pages as stored: qpl-rs in one decompress-enabled job per page where the \
         encoding allows it (one-job pages: pages so decoded / data pages) vs inflated on the \
         CPU then decoded; gain = inflate+decode time / one-job time; best of up to {RUNS} runs"
    );
    print_table(&rows);
    say!(
        "total (GZIP chunks): one job {} ms, inflate+decode {} ms, gain {}",
        millis(one_total),
        millis(two_total),
        ratio(two_total, one_total)
    );
    Ok(())
}

/// Rows per batch of both Arrow readers in [`arrow_table`] (DataFusion's batch size).
const ARROW_BATCH: usize = 8192;

/// The Arrow readers' table: the whole file, then each top-level column alone, read to
/// `RecordBatch`es (batch size [`ARROW_BATCH`]) by qpl-rs's reader
/// (`qpl_rs::parquet::arrow::ParquetRecordBatchReaderBuilder` on `path`) and by arrow-rs's
/// `ParquetRecordBatchReaderBuilder`, both from the file's bytes in memory (footer, build and
/// every batch timed); best of up to [`RUNS`] runs. MB: the uncompressed size of the column
/// chunks read.
fn arrow_table(file: &FilePath, path: Path) -> Result<(), String> {
    let bytes = Bytes::from(std::fs::read(file).map_err(|e| e.to_string())?);
    let builder = ArrowRsBuilder::try_new(bytes.clone()).map_err(|e| e.to_string())?;
    let names: Vec<String> = builder
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let mut reads: Vec<(String, Option<Vec<usize>>)> = vec![("(all columns)".to_string(), None)];
    if names.len() > 1 {
        reads.extend(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.clone(), Some(vec![i]))),
        );
    }
    let mut rows = vec![[
        "columns",
        "rows",
        "batches",
        "MB",
        "qpl-rs ms",
        "arrow-rs ms",
        "qpl-rs MB/s",
        "arrow-rs MB/s",
        "speedup",
    ]
    .map(str::to_string)
    .to_vec()];
    let (mut ours_total, mut theirs_total) = (Duration::ZERO, Duration::ZERO);
    for (label, roots) in reads {
        let mask = |schema: &SchemaDescriptor| match &roots {
            None => ProjectionMask::all(),
            Some(roots) => ProjectionMask::roots(schema, roots.iter().copied()),
        };
        let projection = mask(builder.parquet_schema());
        let uncompressed: i64 = builder
            .metadata()
            .row_groups()
            .iter()
            .flat_map(|rg| rg.columns().iter().enumerate())
            .filter(|(i, _)| projection.leaf_included(*i))
            .map(|(_, c)| c.uncompressed_size())
            .sum();
        let megabytes = uncompressed as f64 / 1e6;
        let ours = best_of(|| {
            let builder = QplBuilder::try_new(bytes.clone()).map_err(|e| e.to_string())?;
            let projection = mask(builder.parquet_schema());
            let reader = builder
                .with_projection(projection)
                .with_batch_size(ARROW_BATCH)
                .with_path(path)
                .build()
                .map_err(|e| e.to_string())?;
            count_batches(reader)
        })
        .map_err(|e| format!("{label}: qpl-rs: {e}"))?;
        let theirs = best_of(|| {
            let builder = ArrowRsBuilder::try_new(bytes.clone()).map_err(|e| e.to_string())?;
            let projection = mask(builder.parquet_schema());
            let reader = builder
                .with_projection(projection)
                .with_batch_size(ARROW_BATCH)
                .build()
                .map_err(|e| e.to_string())?;
            count_batches(reader)
        })
        .map_err(|e| format!("{label}: arrow-rs: {e}"))?;
        if ours.1 != theirs.1 {
            return Err(format!(
                "{label}: qpl-rs gave {} rows in {} batches, arrow-rs {} in {}",
                ours.1 .0, ours.1 .1, theirs.1 .0, theirs.1 .1
            ));
        }
        let rate = |d: Duration| format!("{:.1}", megabytes / d.as_secs_f64().max(1e-9));
        if roots.is_none() {
            (ours_total, theirs_total) = (ours.0, theirs.0);
        }
        rows.push(vec![
            label,
            ours.1 .0.to_string(),
            ours.1 .1.to_string(),
            format!("{megabytes:.2}"),
            millis(ours.0),
            millis(theirs.0),
            rate(ours.0),
            rate(theirs.0),
            ratio(theirs.0, ours.0),
        ]);
    }
    say!(
        "Arrow readers: the whole file, then each top-level column alone, to RecordBatches of \
         {ARROW_BATCH} rows from the file in memory: qpl-rs's ParquetRecordBatchReaderBuilder \
         (on the {path} path) vs arrow-rs's; MB = uncompressed size of the column chunks read; \
         speedup = arrow-rs time / qpl-rs time; best of up to {RUNS} runs"
    );
    print_table(&rows);
    say!(
        "total (all columns): qpl-rs {} ms, arrow-rs {} ms, speedup {}",
        millis(ours_total),
        millis(theirs_total),
        ratio(theirs_total, ours_total)
    );
    Ok(())
}

/// Rows and batches of a reader, read to the end.
fn count_batches(
    reader: impl Iterator<Item = Result<RecordBatch, ArrowError>>,
) -> Result<(usize, usize), String> {
    let (mut rows, mut batches) = (0, 0);
    for batch in reader {
        rows += batch.map_err(|e| e.to_string())?.num_rows();
        batches += 1;
    }
    Ok((rows, batches))
}

/// Best time of `f` over up to [`RUNS`] runs (fewer past [`TIME_BUDGET`]), and its last
/// answer.
fn best_of<T>(mut f: impl FnMut() -> Result<T, String>) -> Result<(Duration, T), String> {
    let mut best = Duration::MAX;
    let mut answer = None;
    let started = Instant::now();
    for _ in 0..RUNS {
        let start = Instant::now();
        answer = Some(f()?);
        best = best.min(start.elapsed());
        if started.elapsed() > TIME_BUDGET {
            break;
        }
    }
    Ok((best, answer.expect("one run at least")))
}

/// A GZIP chunk's pages as stored.
struct StoredChunk<'a> {
    column: Column,
    pages: &'a [CratePage],
    compression: &'a [PageCompression],
}

/// What [`time_stored`] measured.
struct StoredTime {
    time: Duration,
    /// Data pages decoded in one job (on the last run).
    in_job: usize,
    data_pages: usize,
    ran_on: Option<Path>,
}

/// Best time of qpl-rs decoding a chunk's stored pages on `path`, in one job per page where it
/// can (`one_job`) or inflating every page on the CPU first.
fn time_stored(chunk: &StoredChunk<'_>, path: Path, one_job: bool) -> Result<StoredTime, String> {
    let pages = chunk
        .pages
        .iter()
        .zip(chunk.compression)
        .enumerate()
        .map(|(i, (page, &compression))| {
            to_qpl_page(page)
                .map(|page| CompressedPage { page, compression })
                .map_err(|e| format!("page {i}: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut data = ColumnData::new(&chunk.column);
    let mut result = StoredTime {
        time: Duration::MAX,
        in_job: 0,
        data_pages: 0,
        ran_on: None,
    };
    let started = Instant::now();
    for _ in 0..RUNS {
        data.clear();
        let (mut in_job, mut data_pages) = (0, 0);
        let start = Instant::now();
        let mut decoder = ChunkDecoder::new(chunk.column, path).with_one_job(one_job);
        for (i, page) in pages.iter().enumerate() {
            let report = decoder
                .decode_compressed_page(page, &mut data)
                .map_err(|e| format!("page {i}: {e}"))?;
            if !matches!(page.page, Page::Dictionary { .. }) {
                data_pages += 1;
            }
            if report.inflate == Some(InflateRoute::InJob) {
                in_job += 1;
            }
            if let Some(routed) = report.routed_path() {
                if result.ran_on.is_none_or(|p| p == Path::Fallback) {
                    result.ran_on = Some(routed);
                }
            }
        }
        result.time = result.time.min(start.elapsed());
        (result.in_job, result.data_pages) = (in_job, data_pages);
        if started.elapsed() > TIME_BUDGET {
            break;
        }
    }
    Ok(result)
}

/// Runs `f`, turning a panic (of the parquet crate, on a malformed file) into an error.
pub(super) fn catch<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(previous);
    result.unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".to_string());
        Err(format!("panicked: {message}"))
    })
}

/// Milliseconds with three decimals.
fn millis(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

/// Millions of values per second.
fn per_second(values: usize, d: Duration) -> String {
    if d.is_zero() {
        return "-".to_string();
    }
    format!("{:.1}", values as f64 / d.as_secs_f64() / 1e6)
}

/// `theirs / ours`, as `2.31x`.
fn ratio(theirs: Duration, ours: Duration) -> String {
    if ours.is_zero() {
        return "-".to_string();
    }
    format!("{:.2}x", theirs.as_secs_f64() / ours.as_secs_f64())
}

/// Prints rows with every column padded to its widest cell (text left, numbers right).
/// The header's last column (`ran on`) is text too.
fn print_table(rows: &[Vec<String>]) {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let last = rows.first().map_or(0, Vec::len).saturating_sub(1);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let numeric = |c: usize| !(matches!(c, 1..=3) || c == last);
    for row in rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| {
                if numeric(c) {
                    format!("{cell:>w$}", w = widths[c])
                } else {
                    format!("{cell:<w$}", w = widths[c])
                }
            })
            .collect();
        say!("{}", cells.join("  ").trim_end());
    }
}

/// Best time of the page layer decoding the chunk, and the path that decoded its levels,
/// indices or booleans (the accelerator or QPL's software path when any page part ran there;
/// `None` when the chunk has none of those: the CPU codecs decoded everything).
fn time_ours(chunk: &ChunkPages, path: Path) -> Result<(Duration, Option<Path>), String> {
    let pages = chunk.qpl_pages()?;
    let mut data = ColumnData::new(&chunk.column);
    let mut best = Duration::MAX;
    let mut ran_on: Option<Path> = None;
    let started = Instant::now();
    for _ in 0..RUNS {
        data.clear();
        let start = Instant::now();
        let mut decoder = ChunkDecoder::new(chunk.column, path);
        for (i, page) in pages.iter().enumerate() {
            let report = decoder
                .decode_page(page, &mut data)
                .map_err(|e| format!("page {i}: {e}"))?;
            if let Some(routed) = report.routed_path() {
                if ran_on.is_none_or(|p| p == Path::Fallback) {
                    ran_on = Some(routed);
                }
            }
        }
        best = best.min(start.elapsed());
        if started.elapsed() > TIME_BUDGET {
            break;
        }
    }
    Ok((best, ran_on))
}

/// Best time of the parquet crate's column reader on the same pages.
fn time_parquet_crate(chunk: &ChunkPages) -> Result<Duration, String> {
    let mut best = Duration::MAX;
    let started = Instant::now();
    for _ in 0..RUNS {
        let start = Instant::now();
        read_with_parquet_crate(&chunk.descr, &chunk.pages).map_err(|e| e.to_string())?;
        best = best.min(start.elapsed());
        if started.elapsed() > TIME_BUDGET {
            break;
        }
    }
    Ok(best)
}

/// Reads every level and value of `pages` with the parquet crate's typed column reader;
/// returns the number of levels (values, nulls included) read.
pub fn read_with_parquet_crate(
    descr: &ColumnDescPtr,
    pages: &[CratePage],
) -> parquet::errors::Result<usize> {
    let reader = get_column_reader(descr.clone(), Box::new(MemoryPages::new(pages.to_vec())));
    match reader {
        ColumnReader::BoolColumnReader(_) => read_typed::<BoolType>(reader),
        ColumnReader::Int32ColumnReader(_) => read_typed::<Int32Type>(reader),
        ColumnReader::Int64ColumnReader(_) => read_typed::<Int64Type>(reader),
        ColumnReader::Int96ColumnReader(_) => read_typed::<Int96Type>(reader),
        ColumnReader::FloatColumnReader(_) => read_typed::<FloatType>(reader),
        ColumnReader::DoubleColumnReader(_) => read_typed::<DoubleType>(reader),
        ColumnReader::ByteArrayColumnReader(_) => read_typed::<ByteArrayType>(reader),
        ColumnReader::FixedLenByteArrayColumnReader(_) => {
            read_typed::<FixedLenByteArrayType>(reader)
        }
    }
}

/// Drains a typed column reader into its buffers, batch by batch.
fn read_typed<T: DataType>(reader: ColumnReader) -> parquet::errors::Result<usize> {
    let mut reader = get_typed_column_reader::<T>(reader);
    let (mut def, mut rep, mut values) = (Vec::new(), Vec::new(), Vec::new());
    let mut levels = 0;
    loop {
        def.clear();
        rep.clear();
        values.clear();
        let (records, values_read, levels_read) =
            reader.read_records(8192, Some(&mut def), Some(&mut rep), &mut values)?;
        if records == 0 {
            return Ok(levels);
        }
        // A required column has no levels: count its values.
        levels += if levels_read == 0 {
            values_read
        } else {
            levels_read
        };
    }
}

/// A [`PageReader`] over pages already in memory (decompressed), so that the parquet crate's
/// column reader is timed on decoding alone.
pub struct MemoryPages {
    pages: std::vec::IntoIter<CratePage>,
}

impl MemoryPages {
    /// Reads `pages` in order.
    pub fn new(pages: Vec<CratePage>) -> Self {
        MemoryPages {
            pages: pages.into_iter(),
        }
    }
}

impl Iterator for MemoryPages {
    type Item = parquet::errors::Result<CratePage>;

    fn next(&mut self) -> Option<Self::Item> {
        self.pages.next().map(Ok)
    }
}

impl PageReader for MemoryPages {
    fn get_next_page(&mut self) -> parquet::errors::Result<Option<CratePage>> {
        Ok(self.pages.next())
    }

    fn peek_next_page(&mut self) -> parquet::errors::Result<Option<PageMetadata>> {
        Ok(self.pages.as_slice().first().map(|page| PageMetadata {
            num_rows: match page {
                CratePage::DataPageV2 { num_rows, .. } => Some(*num_rows as usize),
                _ => None,
            },
            num_levels: Some(page.num_values() as usize),
            is_dict: matches!(page, CratePage::DictionaryPage { .. }),
        }))
    }

    fn skip_next_page(&mut self) -> parquet::errors::Result<()> {
        self.pages.next();
        Ok(())
    }
}

/// One column chunk's pages, decompressed, as the parquet crate's page reader yields them.
pub struct ChunkPages {
    /// Row group index.
    pub row_group: usize,
    /// Leaf index in the schema.
    pub column_index: usize,
    /// The leaf's dotted path (`tags.list.element`).
    pub name: String,
    /// The leaf's descriptor (for the parquet crate's reader).
    pub descr: ColumnDescPtr,
    /// What the page layer needs of the leaf.
    pub column: Column,
    /// The chunk's encodings, from its metadata.
    pub chunk_encodings: Vec<String>,
    /// The pages, dictionary page first.
    pub pages: Vec<CratePage>,
}

impl ChunkPages {
    /// Levels (values, nulls included) in the data pages.
    pub fn levels(&self) -> usize {
        self.pages
            .iter()
            .filter(|p| !matches!(p, CratePage::DictionaryPage { .. }))
            .map(|p| p.num_values() as usize)
            .sum()
    }

    /// `INT32`, `FIXED_LEN_BYTE_ARRAY(16)`.
    pub fn type_name(&self) -> String {
        match self.column.physical_type {
            PhysicalType::FixedLenByteArray(len) => format!("FIXED_LEN_BYTE_ARRAY({len})"),
            t => t.name().to_string(),
        }
    }

    /// The data pages' value encodings, in order of first use (`RLE_DICTIONARY,PLAIN`).
    pub fn encodings(&self) -> String {
        let mut seen: Vec<String> = Vec::new();
        for page in &self.pages {
            if matches!(page, CratePage::DictionaryPage { .. }) {
                continue;
            }
            let name = page.encoding().to_string();
            if !seen.contains(&name) {
                seen.push(name);
            }
        }
        seen.join(",")
    }

    /// The pages as the page layer takes them (borrowing their bytes).
    pub fn qpl_pages(&self) -> Result<Vec<Page<'_>>, String> {
        self.pages
            .iter()
            .enumerate()
            .map(|(i, page)| to_qpl_page(page).map_err(|e| format!("page {i}: {e}")))
            .collect()
    }
}

/// The page layer's view of a page the parquet crate read (`qpl-rs`'s adaptor, feature
/// `parquet`).
pub use qpl_rs::parquet::query::page_of as to_qpl_page;

/// Reads the pages of every column chunk of `file` (or only of the leaves whose index is in
/// `only`), decompressed, in file order.
pub fn read_chunks(file: &FilePath, only: Option<&[usize]>) -> Result<Vec<ChunkPages>, String> {
    // Pages through `chunk_page_reader`: every read bounded by the column chunk (the parquet
    // crate's own page reader can loop forever on a damaged page header).
    let source = Shared::new(File::open(file).map_err(|e| e.to_string())?);
    let reader = SerializedFileReader::new(source.clone()).map_err(|e| e.to_string())?;
    let metadata = reader.metadata();
    let schema = metadata.file_metadata().schema_descr();
    let mut chunks = Vec::new();
    for rg in 0..reader.num_row_groups() {
        for index in 0..schema.num_columns() {
            if only.is_some_and(|only| !only.contains(&index)) {
                continue;
            }
            let descr = schema.column(index);
            let name = descr.path().string();
            let mut page_reader = chunk_page_reader(&source, metadata, rg, index)
                .map_err(|e| format!("row group {rg}, column {name}: {e}"))?;
            let mut pages = Vec::new();
            while let Some(page) = page_reader
                .get_next_page()
                .map_err(|e| format!("row group {rg}, column {name}: {e}"))?
            {
                pages.push(page);
            }
            chunks.push(ChunkPages {
                row_group: rg,
                column_index: index,
                column: column_of(&descr)?,
                chunk_encodings: metadata
                    .row_group(rg)
                    .column(index)
                    .encodings()
                    .map(|e| e.to_string())
                    .collect(),
                name,
                descr,
                pages,
            });
        }
    }
    Ok(chunks)
}
