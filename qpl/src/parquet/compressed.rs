//! GZIP-compressed pages: inflated and decoded (or filtered) in **one** decompress-enabled job
//! where the inflated bytes are exactly what one job parses, inflated on the CPU first and
//! decoded as an uncompressed page everywhere else (`docs/decompress.md`, "Parquet pages").
//!
//! Parquet's GZIP codec compresses a v1 page's whole body (levels and values) and a v2 page's
//! values section (its levels stay uncompressed; the header's `is_compressed` says whether the
//! values are compressed), each as a gzip member (RFC 1952), as arrow-rs writes them with
//! flate2. Which part runs where:
//!
//! | page | column / encoding | route |
//! |---|---|---|
//! | v1 | required, not repeated; RLE_DICTIONARY / PLAIN_DICTIONARY | one `parquet_rle` extract job with `DECOMPRESS_ENABLE \| GZIP_MODE` (the body is the width byte and the hybrid runs), gathered on the CPU |
//! | v1 | required, not repeated; BOOLEAN PLAIN | one `le_packed` width-1 extract job with decompression |
//! | v1 | anything else (levels in front of the values, other encodings) | inflate on the CPU, then [`ChunkDecoder::decode_page`] |
//! | v2 | values RLE_DICTIONARY / PLAIN_DICTIONARY | levels as today, the values section in one decompress job |
//! | v2 | values BOOLEAN PLAIN | levels as today, the values in one `le_packed` width-1 decompress job |
//! | v2 | anything else | levels as today, the values section inflated on the CPU, then decoded |
//! | dictionary page | PLAIN | inflated on the CPU, then decoded |
//!
//! RLE booleans are not a one-job case: their section starts with a 4-byte length, which no
//! parser reads. A one-job route the job refuses as bad data (a parser QPL refuses some valid
//! streams with; a stream with fewer values than the page; a second gzip member, which a job
//! does not read past, DZ5) is decoded by the inflate-then-decode route instead, whose error is
//! the one reported: the same on every path. [`PageReport::inflate`] says which route ran.
//!
//! The one-job route is the default where the executor's jobs run on the accelerator; on the
//! CPU paths inflating first and decoding with the fused codecs measured faster
//! (`docs/decompress.md`, DZP7), so that is their default ([`ChunkDecoder::with_one_job`]
//! chooses). The one-job route checks the job's CRC-32 (checksums on, DZ4) against the gzip
//! trailer, so a damaged page is never decoded silently (DZP2).
//!
//! Memory: the one-job route allocates only the decoded values (checked against
//! [`Config::max_output_bytes`](crate::executor::Config::max_output_bytes) first, as for
//! an uncompressed page). The CPU route
//! inflates into a buffer bounded by the header's `uncompressed_page_size` when the caller
//! has it (checked against `max_output_bytes` first, and the inflated size must equal it),
//! else by `max_output_bytes`, and by 1032 bytes per compressed byte (deflate's largest
//! ratio); it grows with what the stream really inflates to, so a bomb costs the bound, never
//! what it could inflate to.

use zlib_rs::{Inflate, InflateError, InflateFlush, Status as ZStatus};

use super::{
    ChunkDecoder, ColumnData, Encoding, Page, PageError, PagePart, PageReport, PhysicalType, Values,
};
use qpl_fallback::{Flags, Job, Operation, OutBitWidth, Parser, Status, StatusKind};

use crate::api::{Comparison, Element};
use crate::bitmap::Bitmap;
use crate::error::{Error, Stage};
use crate::executor::{Executor, Output};
use crate::path::Path;

/// A page's compression codec, as the column chunk's metadata names it (the codecs this
/// module inflates; the caller decompresses the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Codec {
    /// UNCOMPRESSED (also: a v2 page whose header says `is_compressed = false`).
    #[default]
    Uncompressed,
    /// GZIP: gzip members (RFC 1952), as Parquet's GZIP codec writes them.
    Gzip,
}

/// How one page is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PageCompression {
    /// The codec (for a v2 page: [`Codec::Uncompressed`] when its `is_compressed` is false).
    pub codec: Codec,
    /// The header's `uncompressed_page_size`, when the caller has it (v2: levels included):
    /// it bounds the CPU route's inflation and must be what the page inflates to. `None`
    /// (the `parquet` crate's page readers do not expose it): bounded by
    /// [`Config::max_output_bytes`](crate::executor::Config::max_output_bytes).
    pub uncompressed_size: Option<u32>,
}

impl PageCompression {
    /// Compressed with GZIP, of unknown uncompressed size.
    pub const GZIP: PageCompression = PageCompression {
        codec: Codec::Gzip,
        uncompressed_size: None,
    };

    /// Not compressed.
    pub const NONE: PageCompression = PageCompression {
        codec: Codec::Uncompressed,
        uncompressed_size: None,
    };
}

/// A page as it is stored: [`Page`] whose `buf` is the stored body (v1 and dictionary pages:
/// compressed whole; v2: the uncompressed levels, then the compressed values section).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressedPage<'a> {
    /// The page, its `buf` as stored.
    pub page: Page<'a>,
    /// How it is compressed.
    pub compression: PageCompression,
}

/// Where a compressed page was inflated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InflateRoute {
    /// In the job that decoded the values (a decompress-enabled job on
    /// [`PageReport::values_path`]): inflated and decoded in one pass.
    InJob,
    /// On the CPU (zlib-rs), before the page was decoded as an uncompressed page.
    Cpu,
}

impl InflateRoute {
    /// `one job` or `cpu`.
    pub fn name(self) -> &'static str {
        match self {
            InflateRoute::InJob => "one job",
            InflateRoute::Cpu => "cpu",
        }
    }
}

/// A values section in a data page: as stored, or GZIP-compressed.
#[derive(Clone, Copy, Debug)]
pub(super) enum Section<'a> {
    /// Uncompressed bytes.
    Plain(&'a [u8]),
    /// A gzip stream, whose inflated size should be `expected` when given.
    Gzip(&'a [u8], Option<u32>),
}

/// The most one compressed byte inflates to: deflate's largest ratio, a 258-byte match in 2 bits
/// (1032:1, as DZ9 bounds the fallback's inflate).
const MAX_RATIO: u64 = 1032;
/// The first step of the CPU route's output buffer.
const FIRST_STEP: usize = 64 * 1024;

/// Decompress-enabled job flags for a gzip source. With checksums: the job's `crc` is the
/// CRC-32 of the whole inflated page (DZ4), which must be the gzip trailer's — a job does not
/// read the trailer (DZ2), and without it a bit flipped inside literal data would decode to
/// other values unnoticed.
fn gzip_flags() -> Flags {
    Flags::DECOMPRESS_ENABLE | Flags::GZIP_MODE
}

/// Refuses a job's result whose CRC-32 is not the one in the last 4+4 bytes of `data` (the
/// trailer of a single gzip member: a page of several members, junk after the member or a
/// damaged page all fail here and go to the CPU route, which reads every member and checks
/// each trailer).
fn check_trailer(
    executor: &Executor,
    operation: Operation,
    (data, expected): (&[u8], Option<u32>),
    output: &Output,
) -> Result<(), Error> {
    let word = |at: usize| u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    let trailer = data
        .len()
        .checked_sub(8)
        .filter(|&at| at >= 10)
        .map(|at| (word(at), word(at + 4)));
    // The trailer's ISIZE (the member's inflated size, mod 2^32) against the header's
    // uncompressed size, when the caller has it; the CPU route reports a difference.
    if let Some((crc, size)) = trailer {
        if crc == output.completion.crc && expected.is_none_or(|e| e == size) {
            return Ok(());
        }
    }
    Err(Error {
        operation,
        status: Status::INVALID_DEFLATE_DATA_ERR,
        requested: executor.config().path,
        path: output.path,
        stage: Stage::Run,
        message: "the inflated page's CRC-32 is not the gzip trailer's (a damaged page, or \
                  more than one gzip member)"
            .to_string(),
    })
}

/// Inflates every gzip member of `data` (one or more, concatenated), checking each member's
/// CRC-32 and size, into at most `bound` bytes: `expected` (checked against `limit` first;
/// the page must inflate to exactly that many) or `limit`, and deflate's largest ratio.
/// Errors say why, for the caller to name the page part.
pub fn inflate_gzip(data: &[u8], expected: Option<u32>, limit: u64) -> Result<Vec<u8>, String> {
    if let Some(size) = expected {
        if u64::from(size) > limit {
            return Err(format!(
                "uncompressed_page_size {size} is above this executor's limit of {limit} \
                 bytes (Config::max_output_bytes)"
            ));
        }
    }
    let ratio_bound = (data.len() as u64).saturating_mul(MAX_RATIO);
    let bound = expected.map_or(limit, u64::from).min(ratio_bound);
    let bound = usize::try_from(bound).unwrap_or(usize::MAX);
    let mut out: Vec<u8> = Vec::new();
    let mut input = data;
    let mut members = 0usize;
    while members == 0 || !input.is_empty() {
        if input.len() < 2 || input[0] != 0x1F || input[1] != 0x8B {
            return Err(if members == 0 {
                "not a gzip stream (no 1F 8B magic)".to_string()
            } else {
                format!(
                    "{} bytes after gzip member {members} are not a gzip member",
                    input.len()
                )
            });
        }
        // window_bits 31: zlib's gzip wrapper (header, CRC-32 and ISIZE checked).
        let mut inflate = Inflate::new(true, 31);
        loop {
            if out.len() >= bound {
                // One byte of room shows whether the stream goes on past the bound (the
                // trailer is read without output).
                let mut probe = [0u8; 1];
                let (made, ended) = inflate_step(&mut inflate, &mut input, &mut probe, members)?;
                if made > 0 {
                    return Err(match expected {
                        Some(size) if u64::from(size) <= ratio_bound => format!(
                            "the page inflates to more than its uncompressed_page_size {size}"
                        ),
                        _ => format!(
                            "the page inflates to more than {bound} bytes (this executor's \
                             limit, Config::max_output_bytes, or deflate's largest ratio)"
                        ),
                    });
                }
                if ended {
                    break;
                }
                continue;
            }
            if out.len() == out.capacity() {
                let step = out.len().max(FIRST_STEP).min(bound - out.len());
                out.reserve_exact(step);
            }
            let held = out.len();
            out.resize(out.capacity().min(bound), 0);
            let step = inflate_step(&mut inflate, &mut input, &mut out[held..], members);
            let (made, ended) = step?;
            out.truncate(held + made);
            if ended {
                break;
            }
        }
        members += 1;
    }
    if let Some(size) = expected {
        if out.len() != size as usize {
            return Err(format!(
                "the page inflates to {} bytes, but its uncompressed_page_size says {size}",
                out.len()
            ));
        }
    }
    Ok(out)
}

/// One `decompress` call: `(bytes made, member ended)`; advances `input`.
fn inflate_step(
    inflate: &mut Inflate,
    input: &mut &[u8],
    out: &mut [u8],
    members: usize,
) -> Result<(usize, bool), String> {
    let (before_in, before_out) = (inflate.total_in(), inflate.total_out());
    let result = inflate.decompress(input, out, InflateFlush::NoFlush);
    let used = (inflate.total_in() - before_in) as usize;
    let made = (inflate.total_out() - before_out) as usize;
    *input = &input[used.min(input.len())..];
    let member = members + 1;
    match result {
        Ok(ZStatus::StreamEnd) => Ok((made, true)),
        Ok(_) if used == 0 && made == 0 && input.is_empty() => Err(format!(
            "gzip member {member} is cut short (the stream ends before its last block and \
             trailer)"
        )),
        Ok(_) if used == 0 && made == 0 && !out.is_empty() => Err(format!(
            "gzip member {member}: the inflater made no progress"
        )),
        Ok(_) => Ok((made, false)),
        Err(InflateError::DataError) => Err(format!(
            "gzip member {member} is corrupt: {}",
            inflate.error_message().unwrap_or("invalid deflate data")
        )),
        Err(e) => Err(format!("gzip member {member}: {}", e.as_str())),
    }
}

/// The first inflated byte of a gzip stream (a dictionary page's bit width), without
/// inflating more than the first block's header and that byte; `None` if there is none.
fn first_inflated_byte(data: &[u8]) -> Option<u8> {
    let mut inflate = Inflate::new(true, 31);
    let mut byte = [0u8; 1];
    let mut input = data;
    loop {
        let (made, ended) = inflate_step(&mut inflate, &mut input, &mut byte, 0).ok()?;
        if made == 1 {
            return Some(byte[0]);
        }
        if ended {
            return None;
        }
    }
}

/// Whether a one-job route's failure is about the data (the CPU route then decides) rather
/// than a path that cannot run.
fn cpu_decides(error: &Error) -> bool {
    !matches!(
        error.status.kind(),
        StatusKind::Busy | StatusKind::Device | StatusKind::Init
    ) && error.stage != Stage::Route
}

/// Runs a decompress-enabled extract of `n` values of `parser` (width `bit_width`: for Parquet
/// the stream's own width byte) over the gzip stream `data`, giving `T` values.
fn extract_job<T: Element>(
    executor: &Executor,
    source: (&[u8], Option<u32>),
    parser: Parser,
    bit_width: u32,
    n: u32,
) -> Result<(Vec<T>, Output), Error> {
    match extract_once::<T>(executor, source, parser, bit_width, n) {
        Err(e) if needs_whole_groups(&e, parser, n) => {
            // D8 (`docs/semantics.md`): QPL's 225 on a bit-packed run met with fewer than 8
            // values wanted; the same job over whole groups, cut back to `n` values.
            let (mut values, output) =
                extract_once::<T>(executor, source, parser, bit_width, n.next_multiple_of(8))
                    .map_err(|_| e)?;
            values.truncate(n as usize);
            Ok((values, output))
        }
        other => other,
    }
}

/// Whether a Parquet job failed with QPL's 225 on a valid stream (D8), which a job over `n`
/// rounded up to a multiple of 8 avoids.
fn needs_whole_groups(error: &Error, parser: Parser, n: u32) -> bool {
    parser == Parser::PARQUET_RLE
        && error.status == Status::DST_IS_SHORT_ERR
        && !n.is_multiple_of(8)
        && n < u32::MAX - 7
}

fn extract_once<T: Element>(
    executor: &Executor,
    (data, expected): (&[u8], Option<u32>),
    parser: Parser,
    bit_width: u32,
    n: u32,
) -> Result<(Vec<T>, Output), Error> {
    let size = std::mem::size_of::<T>();
    let one_bit = bit_width == 1;
    let job = Job {
        parser,
        // A Parquet stream carries its width (`bit_width` is the peeked width byte).
        src1_bit_width: if parser == Parser::PARQUET_RLE {
            0
        } else {
            bit_width
        },
        src2_bit_width: 1,
        num_input_elements: n,
        param_low: 0,
        param_high: n - 1,
        out_bit_width: T::OUT_BIT_WIDTH,
        // Values, also from a 1-bit stream (whose widened output would be an index list);
        // only there: QPL's software path refuses the flag (D15), and runs without it.
        flags: if one_bit {
            gzip_flags() | Flags::FORCE_ARRAY_OUTPUT
        } else {
            gzip_flags()
        },
        ..Job::new(Operation::Extract)
    };
    let mut bytes = vec![0u8; n as usize * size];
    let output = executor.run(&job, data, None, &mut bytes)?;
    check_trailer(executor, Operation::Extract, (data, expected), &output)?;
    let values = bytes[..output.completion.total_out as usize]
        .chunks_exact(size)
        .map(T::from_le)
        .collect::<Vec<T>>();
    if values.len() != n as usize {
        return Err(Error::from_status(
            Operation::Extract,
            executor.config().path,
            output.path,
            Stage::Run,
            Status::SRC_IS_SHORT_ERR,
        ));
    }
    Ok((values, output))
}

/// Runs a decompress-enabled scan of the first `n` indices of the gzip-compressed indices
/// stream `data` (whose inflated bit-width byte is `width`): one bit per index.
pub(super) fn scan_job(
    executor: &Executor,
    data: &[u8],
    width: u32,
    n: u32,
    comparison: Comparison,
) -> Result<(Bitmap, Output), Error> {
    match scan_once(executor, data, width, n, comparison) {
        Err(e) if needs_whole_groups(&e, Parser::PARQUET_RLE, n) => {
            // D8, as for `extract_job`: whole groups, cut back to `n` bits.
            let (bits, output) =
                scan_once(executor, data, width, n.next_multiple_of(8), comparison)
                    .map_err(|_| e)?;
            let bits: Bitmap = bits.iter().take(n as usize).collect();
            Ok((bits, output))
        }
        other => other,
    }
}

fn scan_once(
    executor: &Executor,
    data: &[u8],
    width: u32,
    n: u32,
    comparison: Comparison,
) -> Result<(Bitmap, Output), Error> {
    let comparison = if width >= 32 {
        comparison
    } else {
        comparison.within(u32::MAX.checked_shr(32 - width).unwrap_or(0))
    };
    let (operation, low, high) = comparison.job_fields();
    let job = Job {
        parser: Parser::PARQUET_RLE,
        src2_bit_width: 1,
        num_input_elements: n,
        param_low: low,
        param_high: high,
        flags: gzip_flags(),
        out_bit_width: OutBitWidth::NOMINAL,
        ..Job::new(operation)
    };
    let mut bits = vec![0u8; (n as usize).div_ceil(8)];
    let output = executor.run(&job, data, None, &mut bits)?;
    check_trailer(executor, operation, (data, None), &output)?;
    bits.truncate(output.completion.total_out as usize);
    if bits.len() != (n as usize).div_ceil(8) {
        return Err(Error::from_status(
            operation,
            executor.config().path,
            output.path,
            Stage::Run,
            Status::SRC_IS_SHORT_ERR,
        ));
    }
    Ok((Bitmap::from_bytes(bits, n as usize), output))
}

/// The bit width of a gzip-compressed dictionary indices section (its first inflated byte),
/// when it is one a job takes (≤ 32).
pub(super) fn indices_width(data: &[u8]) -> Option<u32> {
    first_inflated_byte(data)
        .map(u32::from)
        .filter(|&w| w <= 32)
}

impl ChunkDecoder {
    /// Decodes a page as it is stored ([`CompressedPage`]): GZIP pages in one decompress job
    /// where the encoding allows it, else inflated on the CPU and decoded as
    /// [`ChunkDecoder::decode_page`] decodes an uncompressed page (see the module docs of
    /// [`compressed`](super::compressed)). [`PageReport::inflate`] says which route inflated
    /// it; errors name the page part (an inflate error: [`PagePart::Page`] for a v1 or
    /// dictionary page, [`PagePart::Values`] for a v2 values section). On error, `out` is left
    /// as it was.
    pub fn decode_compressed_page(
        &mut self,
        page: &CompressedPage<'_>,
        out: &mut ColumnData,
    ) -> Result<PageReport, PageError> {
        let compression = page.compression;
        if compression.codec == Codec::Uncompressed {
            return self.decode_page(&page.page, out);
        }
        let expected = compression.uncompressed_size;
        let limit = self.executor.config().max_output_bytes as u64;
        let inflate_error = |part: PagePart, encoding: Option<Encoding>, message: String| {
            PageError::invalid(part, encoding, format!("GZIP: {message}"))
        };
        match page.page {
            Page::V1 {
                buf,
                num_values,
                encoding,
                ..
            } if self.one_job
                && self.column.max_def_level == 0
                && self.column.max_rep_level == 0
                && one_job_encoding(self.column.physical_type, encoding) =>
            {
                // The whole body is the values section: one job takes it.
                self.check_page_prelude(out)?;
                let before = out.values.len();
                let result = self.decode_data_page(
                    (None, None, num_values, None),
                    Section::Gzip(buf, expected),
                    encoding,
                    out,
                    None,
                );
                if result.is_err() {
                    out.values.truncate(before);
                }
                result
            }
            Page::V2 {
                buf,
                num_values,
                num_nulls,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
            } => {
                // Levels uncompressed, the values section compressed.
                self.check_page_prelude(out)?;
                let levels_len = u64::from(rep_levels_byte_len) + u64::from(def_levels_byte_len);
                let values_expected = match expected {
                    Some(size) => Some(u64::from(size).checked_sub(levels_len).ok_or_else(|| {
                        PageError::invalid(
                            PagePart::Page,
                            None,
                            format!(
                                "uncompressed_page_size {size} is below the levels' \
                                     {levels_len} bytes"
                            ),
                        )
                    })? as u32),
                    None => None,
                };
                let before = (out.def_levels.len(), out.rep_levels.len(), out.values.len());
                let result = self.decode_v2(
                    buf,
                    num_values,
                    num_nulls,
                    encoding,
                    (def_levels_byte_len, rep_levels_byte_len),
                    Some(values_expected),
                    out,
                    None,
                );
                if result.is_err() {
                    out.def_levels.truncate(before.0);
                    out.rep_levels.truncate(before.1);
                    out.values.truncate(before.2);
                }
                result
            }
            Page::V1 {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
            } => {
                let body = inflate_gzip(buf, expected, limit)
                    .map_err(|m| inflate_error(PagePart::Page, None, m))?;
                let page = Page::V1 {
                    buf: &body,
                    num_values,
                    encoding,
                    def_level_encoding,
                    rep_level_encoding,
                };
                let mut report = self.decode_page(&page, out)?;
                report.inflate = Some(InflateRoute::Cpu);
                Ok(report)
            }
            Page::Dictionary {
                buf,
                num_values,
                encoding,
            } => {
                let body = inflate_gzip(buf, expected, limit)
                    .map_err(|m| inflate_error(PagePart::Dictionary, Some(encoding), m))?;
                let page = Page::Dictionary {
                    buf: &body,
                    num_values,
                    encoding,
                };
                let mut report = self.decode_page(&page, out)?;
                report.inflate = Some(InflateRoute::Cpu);
                Ok(report)
            }
        }
    }

    /// Chooses how GZIP pages are decoded: `true` in one decompress-enabled job where the
    /// encoding allows it, `false` always inflated on the CPU first. The default is `true`
    /// where the executor's jobs run on the accelerator, `false` on the CPU paths, where the
    /// CPU route measured faster (`docs/decompress.md`, DZP7); `qpl-parquet bench` measures
    /// both.
    pub fn with_one_job(mut self, one_job: bool) -> ChunkDecoder {
        self.one_job = one_job;
        self
    }

    /// Decodes the values section `section` (a gzip stream) of a data page with `n` non-null
    /// values in one job: `Ok(Some(path))` when it did, `Ok(None)` when this encoding or type
    /// is not a one-job case, or the job refused the data (the caller then inflates on the
    /// CPU, whose route decides). `out` gains nothing unless it returns `Some`.
    pub(super) fn values_in_one_job(
        &mut self,
        encoding: Encoding,
        (data, expected): (&[u8], Option<u32>),
        n: usize,
        out: &mut Values,
    ) -> Result<Option<Path>, PageError> {
        if !self.one_job || !one_job_encoding(self.column.physical_type, encoding) || n == 0 {
            return Ok(None);
        }
        let Ok(n32) = u32::try_from(n) else {
            return Ok(None);
        };
        let part = PagePart::Values;
        let job_error = |e| PageError::job(part, encoding, e);
        if encoding.is_dictionary() {
            let Some(dict) = self.dictionary.as_ref() else {
                return Err(PageError::invalid(
                    part,
                    Some(encoding),
                    "a dictionary-encoded data page, but the chunk had no dictionary page \
                     before it",
                ));
            };
            // The inflated width byte: an RLE value wider than it (D5) is read as it is by a
            // job, and refused by the codec; checked on the indices below.
            let Some(width) = indices_width(data) else {
                return Ok(None);
            };
            let (indices, output) = match extract_job::<u32>(
                &self.executor,
                (data, expected),
                Parser::PARQUET_RLE,
                width,
                n32,
            ) {
                Ok(done) => done,
                Err(e) if cpu_decides(&e) => return Ok(None),
                Err(e) => return Err(job_error(e)),
            };
            if width < 32 && indices.iter().any(|&i| i >> width != 0) {
                return Ok(None);
            }
            let limit = self.executor.config().max_output_bytes as u64;
            if let Values::Bytes(entries) = dict {
                super::values::check_gather_bytes(entries, &indices, limit, encoding)?;
            }
            super::values::gather_into(dict, &indices, out)
                .map_err(|e| PageError::codec(part, encoding, e))?;
            return Ok(Some(output.path));
        }
        // PLAIN booleans: bits LSB first, a width-1 little-endian packed stream.
        let Values::Boolean(out) = out else {
            return Ok(None);
        };
        match extract_job::<u8>(&self.executor, (data, expected), Parser::LE_PACKED, 1, n32) {
            Ok((bits, output)) => {
                out.extend(bits.iter().map(|&b| b != 0));
                Ok(Some(output.path))
            }
            Err(e) if cpu_decides(&e) => Ok(None),
            Err(e) => Err(job_error(e)),
        }
    }

    /// Decodes a values section given as `section`, appending to `out`: uncompressed as
    /// [`super::values::decode_values`]; compressed in one job where it can, else inflated on
    /// the CPU first. The route that inflated it comes with the path.
    pub(super) fn decode_section(
        &mut self,
        encoding: Encoding,
        section: Section<'_>,
        n: usize,
        out: &mut Values,
    ) -> Result<(Option<Path>, Option<InflateRoute>), PageError> {
        match section {
            Section::Plain(data) => {
                super::values::decode_values(self, encoding, data, n, out).map(|p| (p, None))
            }
            // No values (an all-null page): nothing to inflate; writers may leave the section
            // empty (the `parquet` crate does not decompress it either).
            Section::Gzip(_, _) if n == 0 => Ok((None, None)),
            Section::Gzip(data, expected) => {
                // The values' size is checked before any job or inflation (as uncompressed).
                super::values::check_values_size(self, encoding, n)?;
                if let Some(path) = self.values_in_one_job(encoding, (data, expected), n, out)? {
                    return Ok((Some(path), Some(InflateRoute::InJob)));
                }
                let limit = self.executor.config().max_output_bytes as u64;
                let inflated = inflate_gzip(data, expected, limit).map_err(|m| {
                    PageError::invalid(PagePart::Values, Some(encoding), format!("GZIP: {m}"))
                })?;
                super::values::decode_values(self, encoding, &inflated, n, out)
                    .map(|p| (p, Some(InflateRoute::Cpu)))
            }
        }
    }
}

/// Whether values of `physical_type` in `encoding` are a one-job case (the whole inflated
/// section is what one job parses): dictionary indices, and PLAIN booleans.
fn one_job_encoding(physical_type: PhysicalType, encoding: Encoding) -> bool {
    encoding.is_dictionary()
        || (physical_type == PhysicalType::Boolean && encoding == Encoding::Plain)
}

impl<'a> CompressedPage<'a> {
    /// The page's uncompressed body, when it is compressed (`None`: it is not): a v1 or
    /// dictionary page's whole body inflated, a v2 page's levels followed by its inflated
    /// values section. Bounded as the module docs say (`limit`: the executor's
    /// `max_output_bytes`). Give it to [`Page::with_buf`] for the uncompressed page.
    pub fn inflate(&self, limit: u64) -> Result<Option<Vec<u8>>, PageError> {
        if self.compression.codec == Codec::Uncompressed {
            return Ok(None);
        }
        let expected = self.compression.uncompressed_size;
        let gzip =
            |part, encoding, m: String| PageError::invalid(part, encoding, format!("GZIP: {m}"));
        match self.page {
            Page::Dictionary { buf, encoding, .. } => inflate_gzip(buf, expected, limit)
                .map(Some)
                .map_err(|m| gzip(PagePart::Dictionary, Some(encoding), m)),
            Page::V1 { buf, .. } => inflate_gzip(buf, expected, limit)
                .map(Some)
                .map_err(|m| gzip(PagePart::Page, None, m)),
            Page::V2 {
                buf,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => {
                let levels = def_levels_byte_len as usize + rep_levels_byte_len as usize;
                let Some((levels, values)) = buf.split_at_checked(levels) else {
                    return Err(PageError::invalid(
                        PagePart::Page,
                        None,
                        format!(
                            "rep_levels_byte_len {rep_levels_byte_len} + def_levels_byte_len \
                             {def_levels_byte_len} pass the page's {} bytes",
                            buf.len()
                        ),
                    ));
                };
                let expected = match expected {
                    Some(size) => Some(size.checked_sub(levels.len() as u32).ok_or_else(|| {
                        PageError::invalid(
                            PagePart::Page,
                            None,
                            format!(
                                "uncompressed_page_size {size} is below the levels' {} bytes",
                                levels.len()
                            ),
                        )
                    })?),
                    None => None,
                };
                let limit = limit.saturating_sub(levels.len() as u64);
                // An empty section (a page of nulls only, as some writers leave it) is empty.
                let inflated = if values.is_empty() && expected.unwrap_or(0) == 0 {
                    Vec::new()
                } else {
                    inflate_gzip(values, expected, limit)
                        .map_err(|m| gzip(PagePart::Values, Some(encoding), m))?
                };
                let mut body = Vec::with_capacity(levels.len() + inflated.len());
                body.extend_from_slice(levels);
                body.extend_from_slice(&inflated);
                Ok(Some(body))
            }
        }
    }
}

impl<'a> Page<'a> {
    /// The same page with another body (e.g. the uncompressed one of
    /// [`CompressedPage::inflate`]).
    pub fn with_buf<'b>(&self, body: &'b [u8]) -> Page<'b> {
        match *self {
            Page::Dictionary {
                num_values,
                encoding,
                ..
            } => Page::Dictionary {
                buf: body,
                num_values,
                encoding,
            },
            Page::V1 {
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
                ..
            } => Page::V1 {
                buf: body,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
            },
            Page::V2 {
                num_values,
                num_nulls,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
                ..
            } => Page::V2 {
                buf: body,
                num_values,
                num_nulls,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::Config;
    use crate::parquet::{Column, PagePart};
    use qpl_fallback::parquet::{hybrid, plain};
    use zlib_rs::deflate::{compress_slice, DeflateConfig};
    use zlib_rs::ReturnCode;

    /// One gzip member of `data` at `level`.
    fn gzip(data: &[u8], level: i32) -> Vec<u8> {
        let mut out = vec![0u8; data.len() * 2 + 64];
        let config = DeflateConfig {
            window_bits: 31,
            ..DeflateConfig::new(level)
        };
        let (written, code) = compress_slice(&mut out, data, config);
        assert_eq!(code, ReturnCode::Ok);
        let len = written.len();
        out.truncate(len);
        out
    }

    fn column(physical_type: PhysicalType, max_def_level: i16) -> Column {
        Column {
            physical_type,
            max_def_level,
            max_rep_level: 0,
        }
    }

    fn indices(n: usize, entries: u32) -> Vec<u32> {
        (0..n as u32)
            .map(|i| (i / 7 + i * i % 5) % entries)
            .collect()
    }

    /// The width byte and the hybrid runs of `ids`.
    fn indices_section(ids: &[u32], width: u32) -> Vec<u8> {
        let mut out = vec![width as u8];
        hybrid::encode(ids, width, &mut out).unwrap();
        out
    }

    /// Every path here, with the one-job route and without it.
    fn decoders(column: Column) -> Vec<(String, ChunkDecoder)> {
        Path::available()
            .into_iter()
            .flat_map(|path| {
                [true, false].map(|one_job| {
                    (
                        format!("{path} one_job={one_job}"),
                        ChunkDecoder::new(column, path).with_one_job(one_job),
                    )
                })
            })
            .collect()
    }

    fn decode_all(
        decoder: &mut ChunkDecoder,
        pages: &[CompressedPage<'_>],
    ) -> Result<(ColumnData, Vec<PageReport>), PageError> {
        let mut data = ColumnData::new(decoder.column());
        let reports = pages
            .iter()
            .map(|page| decoder.decode_compressed_page(page, &mut data))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((data, reports))
    }

    const GZIP: PageCompression = PageCompression::GZIP;

    #[test]
    fn dictionary_pages_decode_in_one_job_on_every_path() {
        let dict: Vec<i32> = (0..37).map(|i| i * 1000 - 7).collect();
        let mut dict_page = Vec::new();
        plain::encode(&dict, &mut dict_page);
        let ids = indices(5000, 37);
        let values = indices_section(&ids, 6);
        let expected: Vec<i32> = ids.iter().map(|&i| dict[i as usize]).collect();
        let (gz_dict, gz_values) = (gzip(&dict_page, 6), gzip(&values, 1));
        for (v2, max_def) in [(false, 0), (true, 0), (true, 1)] {
            let col = column(PhysicalType::Int32, max_def);
            // v2 of an optional column: all present, levels as one RLE run of 1s.
            let mut levels = Vec::new();
            if max_def > 0 {
                hybrid::encode(&vec![1; ids.len()], 1, &mut levels).unwrap();
            }
            let mut v2_body = levels.clone();
            v2_body.extend_from_slice(&gz_values);
            let data_page = if v2 {
                Page::V2 {
                    buf: &v2_body,
                    num_values: ids.len() as u32,
                    num_nulls: 0,
                    encoding: Encoding::RleDictionary,
                    def_levels_byte_len: levels.len() as u32,
                    rep_levels_byte_len: 0,
                }
            } else {
                Page::V1 {
                    buf: &gz_values,
                    num_values: ids.len() as u32,
                    encoding: Encoding::RleDictionary,
                    def_level_encoding: Encoding::Rle,
                    rep_level_encoding: Encoding::Rle,
                }
            };
            let pages = [
                CompressedPage {
                    page: Page::Dictionary {
                        buf: &gz_dict,
                        num_values: dict.len() as u32,
                        encoding: Encoding::Plain,
                    },
                    compression: PageCompression {
                        codec: Codec::Gzip,
                        uncompressed_size: Some(dict_page.len() as u32),
                    },
                },
                CompressedPage {
                    page: data_page,
                    compression: GZIP,
                },
            ];
            for (name, mut decoder) in decoders(col) {
                let one_job = decoder.one_job;
                let (data, reports) = decode_all(&mut decoder, &pages).unwrap();
                assert_eq!(
                    data.values,
                    Values::Int32(expected.clone()),
                    "{name} v2={v2}"
                );
                assert_eq!(reports[0].inflate, Some(InflateRoute::Cpu));
                let route = if one_job {
                    InflateRoute::InJob
                } else {
                    InflateRoute::Cpu
                };
                assert_eq!(reports[1].inflate, Some(route), "{name} v2={v2}");
                assert!(reports[1].values_path.is_some(), "{name}");
            }
        }
    }

    #[test]
    fn plain_booleans_decode_in_one_job_and_others_inflate_first() {
        let bools: Vec<bool> = (0..3001).map(|i| i % 3 != 0 || i % 11 == 0).collect();
        let mut body = Vec::new();
        plain::encode_booleans(&bools, &mut body);
        let gz = gzip(&body, 6);
        let page = CompressedPage {
            page: Page::V1 {
                buf: &gz,
                num_values: bools.len() as u32,
                encoding: Encoding::Plain,
                def_level_encoding: Encoding::Rle,
                rep_level_encoding: Encoding::Rle,
            },
            compression: GZIP,
        };
        for (name, mut decoder) in decoders(column(PhysicalType::Boolean, 0)) {
            let one_job = decoder.one_job;
            let (data, reports) = decode_all(&mut decoder, &[page]).unwrap();
            assert_eq!(data.values, Values::Boolean(bools.clone()), "{name}");
            let route = [InflateRoute::Cpu, InflateRoute::InJob][usize::from(one_job)];
            assert_eq!(reports[0].inflate, Some(route), "{name}");
        }
        // PLAIN INT64 (no job parses it) and an optional dictionary column in v1 (levels in
        // front): inflated on the CPU on every path.
        let ints: Vec<i64> = (0..999).map(|i| i * i - 77).collect();
        let mut body = Vec::new();
        plain::encode(&ints, &mut body);
        let gz = gzip(&body, 9);
        let page = CompressedPage {
            page: Page::V1 {
                buf: &gz,
                num_values: ints.len() as u32,
                encoding: Encoding::Plain,
                def_level_encoding: Encoding::Rle,
                rep_level_encoding: Encoding::Rle,
            },
            compression: PageCompression {
                codec: Codec::Gzip,
                uncompressed_size: Some(body.len() as u32),
            },
        };
        for (name, mut decoder) in decoders(column(PhysicalType::Int64, 0)) {
            let (data, reports) = decode_all(&mut decoder, &[page]).unwrap();
            assert_eq!(data.values, Values::Int64(ints.clone()), "{name}");
            assert_eq!(reports[0].inflate, Some(InflateRoute::Cpu), "{name}");
        }
    }

    /// A required INT32 dictionary chunk: the dictionary page uncompressed, then `data` as a
    /// GZIP v1 page of `n` values; the error of each decoder (all must agree on the part).
    fn data_page_errors(data: &[u8], n: u32, size: Option<u32>) -> Vec<(String, PageError)> {
        let len = data.len();
        let mut dict = Vec::new();
        plain::encode(&[5i32, 6, 7, 8], &mut dict);
        let pages = [
            CompressedPage {
                page: Page::Dictionary {
                    buf: &dict,
                    num_values: 4,
                    encoding: Encoding::Plain,
                },
                compression: PageCompression::NONE,
            },
            CompressedPage {
                page: Page::V1 {
                    buf: data,
                    num_values: n,
                    encoding: Encoding::RleDictionary,
                    def_level_encoding: Encoding::Rle,
                    rep_level_encoding: Encoding::Rle,
                },
                compression: PageCompression {
                    codec: Codec::Gzip,
                    uncompressed_size: size,
                },
            },
        ];
        decoders(column(PhysicalType::Int32, 0))
            .into_iter()
            .map(|(name, mut decoder)| {
                let mut data = ColumnData::new(decoder.column());
                decoder
                    .decode_compressed_page(&pages[0], &mut data)
                    .unwrap();
                let error = decoder
                    .decode_compressed_page(&pages[1], &mut data)
                    .expect_err(&format!("{name}: {len} bytes, {n} values, size {size:?}"));
                assert_eq!(data.values.len(), 0, "{name}: nothing appended");
                (name, error)
            })
            .collect()
    }

    #[test]
    fn hostile_gzip_pages_are_clear_errors() {
        let ids = indices(4000, 4);
        let section = indices_section(&ids, 2);
        let gz = gzip(&section, 6);
        let message = |e: &PageError| e.to_string();
        // Truncated anywhere: an error on every path and route.
        for cut in [1, 5, 10, 11, gz.len() / 2, gz.len() - 8, gz.len() - 1] {
            for (name, e) in data_page_errors(&gz[..cut], ids.len() as u32, None) {
                assert!(message(&e).contains("GZIP"), "{name} cut {cut}: {e}");
            }
        }
        // Corrupt: bytes flipped in the deflate data, and a bad CRC in the trailer.
        let mut bad_crc = gz.clone();
        let at = bad_crc.len() - 8;
        bad_crc[at] ^= 0xFF;
        for (name, e) in data_page_errors(&bad_crc, ids.len() as u32, None) {
            assert!(message(&e).contains("GZIP"), "{name}: {e}");
        }
        let mut bad_block = gz.clone();
        bad_block[10] = 0xFF; // BTYPE 11 in the first block header
        for (name, e) in data_page_errors(&bad_block, ids.len() as u32, None) {
            assert!(message(&e).contains("GZIP"), "{name}: {e}");
        }
        // A page that claims more values than its stream holds.
        for (name, e) in data_page_errors(&gz, ids.len() as u32 + 100, None) {
            assert_eq!(e.part, PagePart::Values, "{name}: {e}");
        }
        // Junk after the member: the job would not read it; the page is refused (as the
        // parquet crate's multi-member reader refuses it).
        let mut junk = gz.clone();
        junk.extend_from_slice(b"junk");
        let errors = data_page_errors(&junk, ids.len() as u32, None);
        for (name, e) in &errors {
            assert!(message(e).contains("not a gzip member"), "{name}: {e}");
        }
        // uncompressed_page_size that lies (either way) or passes the executor's limit.
        for size in [section.len() as u32 - 1, section.len() as u32 + 1] {
            for (name, e) in data_page_errors(&gz, ids.len() as u32, Some(size)) {
                assert!(
                    message(&e).contains("uncompressed_page_size"),
                    "{name}: {e}"
                );
            }
        }
    }

    #[test]
    fn multi_member_pages_and_bombs() {
        // Two members: the job reads the first only (DZ5), the CPU route both.
        let ids = indices(3000, 4);
        let section = indices_section(&ids, 2);
        let cut = section.len() / 2;
        let mut two = gzip(&section[..cut], 6);
        two.extend(gzip(&section[cut..], 1));
        assert_eq!(inflate_gzip(&two, None, 1 << 20).unwrap(), section);
        let mut dict = Vec::new();
        plain::encode(&[5i32, 6, 7, 8], &mut dict);
        for (name, mut decoder) in decoders(column(PhysicalType::Int32, 0)) {
            let mut data = ColumnData::new(decoder.column());
            let page = |buf, n: usize| CompressedPage {
                page: Page::V1 {
                    buf,
                    num_values: n as u32,
                    encoding: Encoding::RleDictionary,
                    def_level_encoding: Encoding::Rle,
                    rep_level_encoding: Encoding::Rle,
                },
                compression: GZIP,
            };
            let dict_page = CompressedPage {
                page: Page::Dictionary {
                    buf: &dict,
                    num_values: 4,
                    encoding: Encoding::Plain,
                },
                compression: PageCompression::NONE,
            };
            decoder
                .decode_compressed_page(&dict_page, &mut data)
                .unwrap();
            let report = decoder
                .decode_compressed_page(&page(&two, ids.len()), &mut data)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let expected: Vec<i32> = ids.iter().map(|&i| 5 + i as i32).collect();
            assert_eq!(data.values, Values::Int32(expected), "{name}");
            assert_eq!(report.inflate, Some(InflateRoute::Cpu), "{name}");
        }
        // A bomb: 16 MiB of zeros in a small page, against a 1 MiB limit: refused after at
        // most the limit is inflated, on both routes.
        let zeros = vec![0u8; 16 << 20];
        let bomb = gzip(&zeros, 9);
        assert!(bomb.len() < 64 << 10);
        let error = inflate_gzip(&bomb, None, 1 << 20).unwrap_err();
        assert!(error.contains("more than 1048576 bytes"), "{error}");
        let error = inflate_gzip(&bomb, Some(u32::MAX), 1 << 20).unwrap_err();
        assert!(error.contains("uncompressed_page_size"), "{error}");
        let config = Config {
            max_output_bytes: 1 << 20,
            ..Config::default()
        };
        for path in Path::available() {
            let executor = Executor::with_config(Config {
                path,
                ..config.clone()
            });
            for one_job in [true, false] {
                let mut decoder =
                    ChunkDecoder::with_executor(column(PhysicalType::Int64, 0), executor.clone())
                        .with_one_job(one_job);
                let mut data = ColumnData::new(decoder.column());
                let page = CompressedPage {
                    page: Page::V1 {
                        buf: &bomb,
                        num_values: 1000,
                        encoding: Encoding::Plain,
                        def_level_encoding: Encoding::Rle,
                        rep_level_encoding: Encoding::Rle,
                    },
                    compression: GZIP,
                };
                let e = decoder
                    .decode_compressed_page(&page, &mut data)
                    .unwrap_err();
                assert!(e.to_string().contains("GZIP"), "{path}: {e}");
            }
        }
    }

    #[test]
    fn the_worked_example_of_docs_decompress_md() {
        let mut dict = Vec::new();
        plain::encode(&[7i32, 42], &mut dict);
        let mut levels = Vec::new();
        hybrid::encode(&[1, 0, 1], 1, &mut levels).unwrap();
        assert_eq!(levels, [0x03, 0x05]);
        let section = indices_section(&[1, 0], 1);
        assert_eq!(section, [0x01, 0x03, 0x01]);
        let mut body = levels.clone();
        let member = gzip(&section, 6);
        assert_eq!(member.len(), 23);
        body.extend_from_slice(&member);
        let col = column(PhysicalType::Int32, 1);
        for path in Path::available() {
            let mut decoder = ChunkDecoder::new(col, path).with_one_job(true);
            let mut data = ColumnData::new(&col);
            let dictionary = Page::Dictionary {
                buf: &dict,
                num_values: 2,
                encoding: Encoding::Plain,
            };
            decoder.decode_page(&dictionary, &mut data).unwrap();
            let page = CompressedPage {
                page: Page::V2 {
                    buf: &body,
                    num_values: 3,
                    num_nulls: 1,
                    encoding: Encoding::RleDictionary,
                    def_levels_byte_len: 2,
                    rep_levels_byte_len: 0,
                },
                compression: GZIP,
            };
            let report = decoder.decode_compressed_page(&page, &mut data).unwrap();
            assert_eq!((report.levels, report.values), (3, 2));
            assert_eq!(report.inflate, Some(InflateRoute::InJob), "{path}");
            assert_eq!(data.def_levels, [1, 0, 1]);
            assert_eq!(data.values, Values::Int32(vec![42, 7]));
        }
    }

    /// A bit flipped inside stored (level 0) deflate data still inflates; only the gzip
    /// trailer's CRC-32 shows the damage (DZP2): decoding and filtering refuse the page on
    /// every path and route, never giving other values.
    #[test]
    fn a_flipped_literal_bit_is_caught_by_the_trailer_crc() {
        let ids = indices(2000, 4);
        let section = indices_section(&ids, 2);
        let mut gz = gzip(&section, 0);
        // The gzip header is 10 bytes, the stored block's header 5: flip a bit of an index.
        gz[10 + 5 + 100] ^= 0x04;
        for (name, e) in data_page_errors(&gz, ids.len() as u32, None) {
            assert!(e.to_string().contains("GZIP"), "{name}: {e}");
        }
        let mut dict = Vec::new();
        plain::encode(&[5i32, 6, 7, 8], &mut dict);
        let pages = vec![
            Page::Dictionary {
                buf: &dict,
                num_values: 4,
                encoding: Encoding::Plain,
            },
            Page::V1 {
                buf: &gz,
                num_values: ids.len() as u32,
                encoding: Encoding::RleDictionary,
                def_level_encoding: Encoding::Rle,
                rep_level_encoding: Encoding::Rle,
            },
        ];
        let chunk =
            super::super::query::ColumnChunk::new("c", column(PhysicalType::Int32, 0), pages)
                .with_compression(vec![PageCompression::NONE, GZIP]);
        let predicate = super::super::query::Predicate::Eq(super::super::query::Scalar::Int32(6));
        for path in Path::available() {
            for one_job in [Some(true), Some(false), None] {
                let executor = Executor::new(path);
                let error = super::super::query::filter_with_one_job(
                    &chunk, &predicate, &executor, one_job,
                )
                .expect_err("a damaged page");
                assert!(
                    error.to_string().contains("GZIP"),
                    "{path} {one_job:?}: {error}"
                );
            }
        }
    }

    /// A v2 page of nulls only whose values section is empty (not a gzip member: writers may
    /// leave it so, and the `parquet` crate does not decompress it) decodes on both routes.
    #[test]
    fn an_all_null_v2_page_with_an_empty_values_section() {
        let mut levels = Vec::new();
        hybrid::encode(&[0; 10], 1, &mut levels).unwrap();
        let col = column(PhysicalType::Int64, 1);
        let page = CompressedPage {
            page: Page::V2 {
                buf: &levels,
                num_values: 10,
                num_nulls: 10,
                encoding: Encoding::Plain,
                def_levels_byte_len: levels.len() as u32,
                rep_levels_byte_len: 0,
            },
            compression: GZIP,
        };
        for (name, mut decoder) in decoders(col) {
            let (data, _) =
                decode_all(&mut decoder, &[page]).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(data.def_levels, [0; 10], "{name}");
            assert!(data.values.is_empty(), "{name}");
        }
        assert_eq!(page.inflate(1 << 20).unwrap(), Some(levels.clone()));
    }
}
