//! The decompress-and-filter suite (issue 19 item 5): Parquet dictionary-index pages
//! compressed with raw deflate, inflated and decoded (`decompress_extract/<case>`, to `u32`
//! indices) or filtered (`decompress_scan/<case>`, a range scan to a bit vector) in one job.
//!
//! Cases: `level1` and `level6` (deflate level of the pages), each at the widths of
//! [`WIDTHS`] as the criterion parameter. One iteration processes [`qpl_benches::elements`]
//! values (default 2^20) held in pages of [`PAGE_VALUES`] values, one job per page.
//!
//! The pages are what a Parquet writer produces for a dictionary-encoded column: the
//! bit-width byte, then the RLE/bit-packing hybrid written by arrow-rs's `RleEncoder` (the
//! writer's own encoder) over dictionary indices that mix runs of one index with stretches of
//! changing ones, some of them recurring (skewed towards the small, frequent indices), so the
//! stream holds both RLE runs and bit-packed groups, and deflate finds matches in it. Each page is compressed on its own as raw deflate (RFC 1951,
//! no gzip or zlib header: QPL 1.6's analytics read only raw deflate, `docs/decompress.md`
//! DZ2) by flate2 at the case's level.
//!
//! Function ids:
//! - `fallback`: `qpl_fallback::execute` with `Flags::DECOMPRESS_ENABLE` (checksums and
//!   aggregates omitted, as in every id here);
//! - `qpl_sw`: QPL's software path on the same job through QPL's C API directly (one job
//!   initialised once, [`RawQplJob`]); not `qpl_rs::Executor`, whose Software path runs a
//!   decompress job on the fallback first (DZ10). Only when QPL is linked;
//! - `iaa`: `qpl_rs::Executor::new(Path::Hardware)`, only with a usable accelerator;
//! - `inflate_then_arrow_rs`: flate2 with its default backend (miniz_oxide) inflating each
//!   page into a buffer reused from page to page (a `Decompress` reset per page), then
//!   arrow-rs's `RleDecoder` to `u32` indices (for the scan: into a 1024-value buffer, then
//!   a compare loop that writes the same bit vector);
//! - `zlib_rs_then_arrow_rs`: the same with zlib-rs 0.6's inflate, which is the backend
//!   flate2 uses in the parquet crate's default build (feature `flate2-zlib-rs`).
//!
//! Before anything of a case is timed every id's output is compared with the indices the
//! pages were built from (extract) or with the bit vector computed from them (scan): a
//! wrong fallback or arrow-rs stops the suite; a QPL id that fails or disagrees is not
//! measured and a `NOT MEASURED` line says why.
//!
//! Environment: `QPL_BENCH_ELEMENTS` (default 1M = 2^20 values per iteration),
//! `QPL_BENCH_PAGE_VALUES` (default [`PAGE_VALUES`]).

mod common;

use std::hint::black_box;
use std::io::Write;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use flate2::{Compression, FlushDecompress};
use parquet::encodings::rle::{RleDecoder, RleEncoder};
use qpl_benches::{max_value, RawQplJob, Rng, FAST_FLAGS};
use qpl_fallback::{read_run_header, Flags, Job, Operation, OutBitWidth, Parser};
use qpl_rs::{Executor, Path};

/// The dictionary-index widths.
const WIDTHS: [u32; 3] = [3, 8, 13];

/// The deflate levels, as (case name, level).
const LEVELS: [(&str, u32); 2] = [("level1", 1), ("level6", 6)];

/// Values per page. arrow-rs's writer closes a data page at 20,000 rows
/// (`DEFAULT_DATA_PAGE_ROW_COUNT_LIMIT`) or 1 MiB, but QPL 1.6's software path inflates a
/// decompress job in steps and loses the deflate history between them (false inflate
/// errors 217 and hangs: `docs/decompress.md` DZ10, DZ13): on these pages it failed at
/// width 13 with 4096 values a page, and at widths 3 and 8 with 16384; with 2048 it inflates
/// every page of every case, so that is the default, which every id runs.
const PAGE_VALUES: usize = 2048;

/// Values per page: `QPL_BENCH_PAGE_VALUES` (a count as `QPL_BENCH_ELEMENTS` takes, a
/// multiple of 8 so that the pages' bit vectors join), else [`PAGE_VALUES`].
///
/// # Panics
/// On a value that is not such a count.
fn page_values() -> usize {
    match std::env::var("QPL_BENCH_PAGE_VALUES") {
        Ok(text) => qpl_benches::parse_elements(&text)
            .filter(|n| n % 8 == 0)
            .unwrap_or_else(|| panic!("QPL_BENCH_PAGE_VALUES={text:?}: a multiple of 8")),
        Err(_) => PAGE_VALUES,
    }
}

/// A benchmarked implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Fallback,
    QplSw,
    Iaa,
    InflateThenArrowRs,
    ZlibRsThenArrowRs,
}

impl Engine {
    fn id(self) -> &'static str {
        match self {
            Engine::Fallback => "fallback",
            Engine::QplSw => "qpl_sw",
            Engine::Iaa => "iaa",
            Engine::InflateThenArrowRs => "inflate_then_arrow_rs",
            Engine::ZlibRsThenArrowRs => "zlib_rs_then_arrow_rs",
        }
    }

    /// The engines that can run on this machine.
    fn available() -> Vec<Engine> {
        let mut engines = vec![Engine::Fallback];
        if qpl_rs::QPL_LINKED {
            engines.push(Engine::QplSw);
        }
        if qpl_rs::hardware_info().unavailable.is_none() {
            engines.push(Engine::Iaa);
        }
        engines.push(Engine::InflateThenArrowRs);
        engines.push(Engine::ZlibRsThenArrowRs);
        engines
    }
}

/// The operation of a group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// Every index as a `u32` (`OutBitWidth::W32`).
    Extract,
    /// `low <= index <= high` to a bit vector.
    Scan,
}

impl Op {
    fn group(self) -> &'static str {
        match self {
            Op::Extract => "decompress_extract",
            Op::Scan => "decompress_scan",
        }
    }
}

/// `n` dictionary indices below 2^width, in segments of 8 to 64 values (a multiple of 8,
/// so every bit-packed group of the encoded page starts at a segment's start): a third of
/// the segments are runs of one index, a third new stretches of changing indices, and a
/// third repeat one of the 32 latest stretches (a column's recurring patterns, which is
/// what deflate finds in a page). Every index is skewed towards 0 (the cube of a uniform
/// fraction), as the frequent values of a column get the first dictionary entries.
fn dictionary_indices(rng: &mut Rng, n: usize, width: u32) -> Vec<u32> {
    let max = max_value(width);
    let index = |rng: &mut Rng| {
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        ((u * u * u * f64::from(max) + 0.5) as u32).min(max)
    };
    let mut values = Vec::with_capacity(n);
    let mut stretches: Vec<Vec<u32>> = Vec::new();
    while values.len() < n {
        let len = 8 * rng.range(1, 8) as usize;
        let segment: Vec<u32> = match rng.range(0, 2) {
            0 => vec![index(rng); len],
            1 if !stretches.is_empty() => {
                let back = rng.range(1, stretches.len().min(32) as u32) as usize;
                stretches[stretches.len() - back].clone()
            }
            _ => {
                let stretch: Vec<u32> = (0..len).map(|_| index(rng)).collect();
                stretches.push(stretch.clone());
                stretch
            }
        };
        values.extend(segment.into_iter().take(n - values.len()));
    }
    values
}

/// A data page's dictionary indices as the writer stores them: the bit-width byte, then
/// arrow-rs's `RleEncoder` output. Returns the page and its (RLE runs, bit-packed runs).
fn encode_page(values: &[u32], width: u32) -> (Vec<u8>, (usize, usize)) {
    let mut encoder = RleEncoder::new(width as u8, 1024);
    for &v in values {
        encoder.put(u64::from(v));
    }
    let mut page = vec![width as u8];
    page.extend(encoder.consume());
    // Count the runs (and check the stream is well formed).
    let (mut rle, mut packed) = (0, 0);
    let mut pos = 1;
    while pos < page.len() {
        let header = read_run_header(&page, &mut pos).expect("a whole run header");
        if header & 1 == 1 {
            packed += 1;
            pos += (header >> 1) as usize * width as usize;
        } else {
            rle += 1;
            pos += width.div_ceil(8) as usize;
        }
    }
    assert_eq!(
        pos,
        page.len(),
        "arrow-rs's page at width {width}: bytes left"
    );
    (page, (rle, packed))
}

/// Raw deflate of `data` at `level` (flate2, default backend).
fn deflate(data: &[u8], level: u32) -> Vec<u8> {
    let mut encoder = flate2::write::DeflateEncoder::new(Vec::new(), Compression::new(level));
    encoder.write_all(data).expect("deflate into a Vec");
    encoder.finish().expect("deflate into a Vec")
}

/// The scan's range at `width`: a few of the frequent indices and the ones between.
fn scan_range(width: u32) -> (u32, u32) {
    (1, (max_value(width) / 8).max(1))
}

/// One page and its job.
struct Page {
    /// Raw deflate of the page.
    compressed: Vec<u8>,
    /// Values in the page.
    values: usize,
    /// The decompress-enabled job of the page.
    job: Job,
}

/// A case ready to measure: the pages, the expected output and the buffers.
struct Ready {
    op: Op,
    width: u32,
    pages: Vec<Page>,
    /// What every id must write: the indices as little-endian `u32`s, or the bit vector.
    expected: Vec<u8>,
    /// Output bytes per page value (4 for extract) or per 8 page values (1 for scan).
    dst: Vec<u8>,
    raw: Option<RawQplJob>,
    hardware: Executor,
    /// Inflated page buffer reused by the arrow-rs ids (capacity kept between pages).
    inflated: Vec<u8>,
    /// flate2's and zlib-rs's inflaters (reset per page).
    inflaters: (flate2::Decompress, zlib_rs::Inflate),
    /// Index buffer of the arrow-rs scan.
    batch: Vec<u32>,
    /// The arrow-rs extract's output: the indices as `u32`s.
    indices: Vec<u32>,
}

impl Ready {
    fn new(op: Op, width: u32, level: u32, n: usize) -> Ready {
        let mut rng = Rng::new(0x5EED_0019 ^ u64::from(width) << 8 ^ u64::from(level));
        let values = dictionary_indices(&mut rng, n, width);
        let (low, high) = scan_range(width);
        let mut pages = Vec::new();
        let (mut runs, mut inflated_len) = ((0, 0), 0);
        for chunk in values.chunks(page_values()) {
            let (page, (rle, packed)) = encode_page(chunk, width);
            runs = (runs.0 + rle, runs.1 + packed);
            inflated_len += page.len();
            let base = Job {
                parser: Parser::PARQUET_RLE,
                num_input_elements: chunk.len() as u32,
                flags: FAST_FLAGS | Flags::DECOMPRESS_ENABLE,
                ..Job::default()
            };
            let job = match op {
                Op::Extract => Job {
                    operation: Operation::Extract,
                    param_low: 0,
                    param_high: chunk.len() as u32 - 1,
                    out_bit_width: OutBitWidth::W32,
                    ..base
                },
                Op::Scan => Job {
                    operation: Operation::ScanRange,
                    param_low: low,
                    param_high: high,
                    ..base
                },
            };
            pages.push(Page {
                compressed: deflate(&page, level),
                values: chunk.len(),
                job,
            });
        }
        let expected = match op {
            Op::Extract => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Op::Scan => {
                let mut bits = vec![0u8; n.div_ceil(8)];
                for (i, &v) in values.iter().enumerate() {
                    bits[i / 8] |= u8::from((low..=high).contains(&v)) << (i % 8);
                }
                bits
            }
        };
        let compressed: usize = pages.iter().map(|p| p.compressed.len()).sum();
        eprintln!(
            "{}: width {width}, level {level}: {n} indices in {} pages, {} RLE runs + {} \
             bit-packed runs, {inflated_len} bytes deflated to {compressed}",
            op.group(),
            pages.len(),
            runs.0,
            runs.1,
        );
        Ready {
            op,
            width,
            pages,
            dst: vec![0xA5; expected.len()],
            expected,
            raw: None,
            hardware: Executor::new(Path::Hardware),
            inflated: Vec::new(),
            inflaters: (
                flate2::Decompress::new(false),
                zlib_rs::Inflate::new(false, 15),
            ),
            batch: vec![0; 1024],
            indices: vec![u32::MAX; if op == Op::Extract { n } else { 0 }],
        }
    }

    /// Output bytes of a page of `values` values.
    fn out_len(&self, values: usize) -> usize {
        match self.op {
            Op::Extract => 4 * values,
            Op::Scan => values.div_ceil(8),
        }
    }

    /// Runs `engine` over every page into `self.dst`. `Err` says why it cannot be measured.
    fn run(&mut self, engine: Engine) -> Result<(), String> {
        let (mut at, mut first) = (0, 0);
        for p in 0..self.pages.len() {
            let page = &self.pages[p];
            let len = self.out_len(page.values);
            let dst = &mut self.dst[at..at + len];
            let written = match engine {
                Engine::Fallback => {
                    qpl_fallback::execute(&page.job, &page.compressed, None, dst)
                        .map_err(|s| format!("page {p}: status {}", s.0))?
                        .total_out as usize
                }
                Engine::QplSw => {
                    let raw = self.raw.as_mut().ok_or("no raw QPL job")?;
                    raw.run(&page.job, &page.compressed, None, dst)
                        .map_err(|s| format!("page {p}: QPL status {s}"))?
                        .total_out as usize
                }
                Engine::Iaa => {
                    let out = self
                        .hardware
                        .run(&page.job, &page.compressed, None, dst)
                        .map_err(|e| format!("page {p}: {e}"))?;
                    if out.path != Path::Hardware {
                        return Err(format!("page {p} ran on the {} path", out.path));
                    }
                    out.completion.total_out as usize
                }
                Engine::InflateThenArrowRs | Engine::ZlibRsThenArrowRs => {
                    let inflated = std::mem::take(&mut self.inflated);
                    let (indices, scan) = match self.op {
                        Op::Extract => (&mut self.indices[first..first + page.values], None),
                        Op::Scan => (&mut [][..], Some((page.job.param_low, page.job.param_high))),
                    };
                    let (bytes, result) = arrow_page(
                        engine,
                        &mut self.inflaters,
                        inflated,
                        &page.compressed,
                        page.values,
                        scan,
                        &mut self.batch,
                        indices,
                        dst,
                    );
                    // The buffer comes back (no copy: the decoder's references are gone).
                    self.inflated = Vec::from(bytes);
                    result.map_err(|e| format!("page {p}: {e}"))?;
                    len
                }
            };
            if written != len {
                return Err(format!("page {p}: {written} bytes written, not {len}"));
            }
            at += len;
            first += page.values;
        }
        Ok(())
    }

    /// Checks `engine`'s output against the expected bytes.
    fn check(&mut self, engine: Engine) -> Result<(), String> {
        self.dst.fill(0xA5);
        self.indices.fill(u32::MAX);
        self.run(engine)?;
        if self.op == Op::Extract
            && matches!(
                engine,
                Engine::InflateThenArrowRs | Engine::ZlibRsThenArrowRs
            )
        {
            // arrow-rs wrote `u32`s, not bytes.
            self.dst = self.indices.iter().flat_map(|v| v.to_le_bytes()).collect();
        }
        match self
            .dst
            .iter()
            .zip(&self.expected)
            .position(|(a, b)| a != b)
        {
            None => Ok(()),
            Some(at) => Err(format!(
                "output byte {at} is {:#x}, expected {:#x}",
                self.dst[at], self.expected[at]
            )),
        }
    }

    /// The engines of `candidates` that produce the expected output; panics when the
    /// fallback or an arrow-rs id does not.
    fn verify(&mut self, candidates: &[Engine], case: &str) -> Vec<Engine> {
        let width = self.width;
        let group = self.op.group();
        if candidates.contains(&Engine::QplSw) {
            self.raw = RawQplJob::software()
                .map_err(|e| eprintln!("NOT MEASURED: {group}/{case}/qpl_sw/{width}: {e}"))
                .ok();
        }
        let mut verified = Vec::new();
        for &engine in candidates {
            match self.check(engine) {
                Ok(()) => verified.push(engine),
                Err(e) if matches!(engine, Engine::QplSw | Engine::Iaa) => eprintln!(
                    "NOT MEASURED (wrong or no result): {group}/{case}/{}/{width}: {e}",
                    engine.id()
                ),
                Err(e) => panic!("{group}/{case}/{}/{width}: {e}", engine.id()),
            }
        }
        let ids: Vec<&str> = verified.iter().map(|e| e.id()).collect();
        eprintln!(
            "verified {group}/{case} w={width}: {} give the expected {} bytes",
            ids.join(", "),
            self.expected.len()
        );
        verified
    }
}

/// Inflates one page into `buffer` with `engine`'s inflater and decodes it with arrow-rs's
/// `RleDecoder` ([`decode_page`]). Returns the buffer (as `Bytes`, which gives the
/// allocation back) and the outcome.
#[allow(clippy::too_many_arguments)]
fn arrow_page(
    engine: Engine,
    inflaters: &mut (flate2::Decompress, zlib_rs::Inflate),
    mut buffer: Vec<u8>,
    compressed: &[u8],
    values: usize,
    scan: Option<(u32, u32)>,
    batch: &mut [u32],
    indices: &mut [u32],
    bits: &mut [u8],
) -> (Bytes, Result<(), String>) {
    // A reader knows the page's uncompressed size from its header; here the buffer grows
    // to it on the first page and is reused, never cleared (zeroed) again.
    let len = match inflate_into(engine, inflaters, compressed, &mut buffer) {
        Ok(len) => len,
        Err(e) => return (Bytes::from(buffer), Err(e)),
    };
    let buffer = Bytes::from(buffer);
    let result = decode_page(&buffer.slice(..len), values, scan, batch, indices, bits);
    (buffer, result)
}

/// Inflates all of `compressed` (raw deflate) into `out`, growing it as needed; returns the
/// inflated length. flate2 appends to `out` after clearing it (it writes into the spare
/// capacity, which it does not clear); zlib-rs's safe API takes initialised bytes, so `out`
/// keeps its length (set by earlier pages) and is written from its start.
fn inflate_into(
    engine: Engine,
    (miniz, zlib): &mut (flate2::Decompress, zlib_rs::Inflate),
    compressed: &[u8],
    out: &mut Vec<u8>,
) -> Result<usize, String> {
    if out.capacity() == 0 {
        out.reserve(64 * 1024);
    }
    if engine == Engine::InflateThenArrowRs {
        out.clear();
        miniz.reset(false);
        loop {
            let used = miniz.total_in() as usize;
            let status = miniz
                .decompress_vec(&compressed[used..], out, FlushDecompress::Finish)
                .map_err(|e| e.to_string())?;
            match status {
                flate2::Status::StreamEnd => return Ok(out.len()),
                _ if out.len() == out.capacity() => out.reserve(out.capacity()),
                _ => return Err("stream cut short".to_owned()),
            }
        }
    }
    zlib.reset(false);
    if out.is_empty() {
        out.resize(out.capacity(), 0);
    }
    loop {
        let (used, made) = (zlib.total_in() as usize, zlib.total_out() as usize);
        let status = zlib.decompress(
            &compressed[used..],
            &mut out[made..],
            zlib_rs::InflateFlush::Finish,
        );
        match status {
            Ok(zlib_rs::Status::StreamEnd) => return Ok(zlib.total_out() as usize),
            Ok(_) if zlib.total_out() as usize == out.len() => out.resize(2 * out.len(), 0),
            Ok(_) => return Err("stream cut short".to_owned()),
            Err(e) => return Err(e.as_str().to_owned()),
        }
    }
}

/// arrow-rs's decode of an inflated page (width byte + hybrid) of `values` values: into
/// `indices` (extract), or through `batch` and a compare loop into the bit vector `bits`.
fn decode_page(
    page: &Bytes,
    values: usize,
    scan: Option<(u32, u32)>,
    batch: &mut [u32],
    indices: &mut [u32],
    bits: &mut [u8],
) -> Result<(), String> {
    let width = *page.first().ok_or("empty page")?;
    let mut decoder = RleDecoder::new(width);
    decoder
        .set_data(page.slice(1..))
        .map_err(|e| e.to_string())?;
    let Some((low, high)) = scan else {
        let got = decoder
            .get_batch(&mut indices[..values])
            .map_err(|e| e.to_string())?;
        return match got == values {
            true => Ok(()),
            false => Err(format!("{got} values decoded, not {values}")),
        };
    };
    let span = high.wrapping_sub(low);
    let mut done = 0;
    let mut out = bits.iter_mut();
    // `batch.len()` is a multiple of 8: each batch but the last fills whole bytes.
    while done < values {
        let take = (values - done).min(batch.len());
        let got = decoder
            .get_batch(&mut batch[..take])
            .map_err(|e| e.to_string())?;
        if got != take {
            return Err(format!("{} values decoded, not {values}", done + got));
        }
        for group in batch[..take].chunks(8) {
            let byte = group.iter().enumerate().fold(0u8, |b, (i, &v)| {
                b | u8::from(v.wrapping_sub(low) <= span) << i
            });
            *out.next().ok_or("bit vector full")? = byte;
        }
        done += take;
    }
    Ok(())
}

fn decompress(c: &mut Criterion) {
    let n = qpl_benches::elements();
    let engines = Engine::available();
    for op in [Op::Extract, Op::Scan] {
        for (case, level) in LEVELS {
            let mut group = c.benchmark_group(format!("{}/{case}", op.group()));
            group.throughput(Throughput::Elements(n as u64));
            for width in WIDTHS {
                let mut ready = Ready::new(op, width, level, n);
                for engine in ready.verify(&engines, case) {
                    group.bench_function(BenchmarkId::new(engine.id(), width), |b| {
                        b.iter(|| {
                            black_box(&mut ready)
                                .run(engine)
                                .expect("verified before timing")
                        })
                    });
                }
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = decompress
}
criterion_main!(benches);
