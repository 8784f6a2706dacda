//! The common cases in one call each: decode a stream into `u8`/`u16`/`u32` values, scan it
//! into a bit vector or an index list, select and expand by a mask.
//!
//! Every call here (`decode`, `decode_into`, `scan`, `scan_indices`, `select`, `expand` and the
//! `_bitmap` forms) takes two cases the raw [`Executor::run`] refuses, the same way on every
//! path:
//! - **Empty requests** (`n = 0`, or an empty mask) give nothing, with a zero completion and
//!   the path the request was routed to (a raw job keeps QPL's 57 `SIZE_ERR`). Only the bit
//!   width is checked (packed: 0..=32; Parquet: the width byte, if there is one, 0..=32).
//! - **Packed streams of bit width 0** (`le_packed`/`be_packed`) hold only zeros and need no
//!   bytes, as a Parquet stream of width 0 does (a raw job refuses width 0 with 231
//!   `BIT_WIDTH_ERR`): scans compare 0 with the comparison, `select` gives a 0 per selected
//!   element, `expand` zeros. The job runs on the requested path over a 1-bit stream of zeros
//!   in its place.

use qpl_fallback::{Flags, Job, Operation, OutBitWidth, Parser, Status};

use crate::bitmap::{Bitmap, BitmapRef};
use crate::error::{Error, Stage};
use crate::executor::{Executor, Output};
use crate::path::Path;
use crate::typed::{empty_output, is_zero_width_packed};

/// A source-1 stream and how to parse it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stream<'a> {
    /// The parser.
    pub parser: Parser,
    /// Element width for packed parsers (Parquet RLE streams carry their own).
    pub bit_width: u32,
    /// The bytes.
    pub bytes: &'a [u8],
}

impl<'a> Stream<'a> {
    /// Elements of `bit_width` bits packed LSB first.
    pub fn le_packed(bytes: &'a [u8], bit_width: u32) -> Stream<'a> {
        Stream {
            parser: Parser::LE_PACKED,
            bit_width,
            bytes,
        }
    }

    /// Elements of `bit_width` bits packed MSB first.
    pub fn be_packed(bytes: &'a [u8], bit_width: u32) -> Stream<'a> {
        Stream {
            parser: Parser::BE_PACKED,
            bit_width,
            bytes,
        }
    }

    /// A Parquet RLE/bit-packed hybrid stream with its bit-width byte first (the values
    /// section of a dictionary-encoded data page).
    pub fn parquet_rle(bytes: &'a [u8]) -> Stream<'a> {
        Stream {
            parser: Parser::PARQUET_RLE,
            bit_width: 0,
            bytes,
        }
    }

    fn job(&self, operation: Operation, n: u32) -> Job {
        Job {
            parser: self.parser,
            src1_bit_width: self.bit_width,
            src2_bit_width: 1,
            num_input_elements: n,
            ..Job::new(operation)
        }
    }

    /// Checks that the stream holds `n` values before anything of size `n` is allocated, so
    /// that a short stream claiming many values costs nothing.
    /// Errors name `requested`, the caller's path, and say the check ran before any path did.
    pub(crate) fn check_holds(
        &self,
        requested: Path,
        operation: Operation,
        n: u32,
    ) -> Result<(), Error> {
        let fail =
            |status| Error::from_status(operation, requested, Path::Fallback, Stage::Check, status);
        match self.parser {
            Parser::PARQUET_RLE => {
                let (&width, data) = self
                    .bytes
                    .split_first()
                    .ok_or_else(|| fail(Status::SIZE_ERR))?;
                qpl_fallback::check_hybrid(data, u32::from(width), u64::from(n)).map_err(fail)
            }
            _ => {
                let needed = (u64::from(n) * u64::from(self.bit_width.min(32))).div_ceil(8);
                if needed > self.bytes.len() as u64 {
                    return Err(fail(Status::SRC_IS_SHORT_ERR));
                }
                Ok(())
            }
        }
    }
}

/// Integer types a stream decodes into.
pub trait Element: Copy + Default + sealed::Sealed {
    /// The job's output format for this type.
    const OUT_BIT_WIDTH: OutBitWidth;
    /// Reads one little-endian element.
    fn from_le(bytes: &[u8]) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
}

impl Element for u8 {
    const OUT_BIT_WIDTH: OutBitWidth = OutBitWidth::W8;
    fn from_le(bytes: &[u8]) -> u8 {
        bytes[0]
    }
}

impl Element for u16 {
    const OUT_BIT_WIDTH: OutBitWidth = OutBitWidth::W16;
    fn from_le(bytes: &[u8]) -> u16 {
        u16::from_le_bytes([bytes[0], bytes[1]])
    }
}

impl Element for u32 {
    const OUT_BIT_WIDTH: OutBitWidth = OutBitWidth::W32;
    fn from_le(bytes: &[u8]) -> u32 {
        u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
}

/// A destination of `bytes` bytes, if `executor`'s `max_output_bytes` allows it.
fn output_buffer(executor: &Executor, operation: Operation, bytes: u64) -> Result<Vec<u8>, Error> {
    let limit = executor.config().max_output_bytes;
    if bytes > limit as u64 {
        return Err(Error {
            operation,
            status: Status::BUFFER_TOO_LARGE_ERR,
            requested: executor.config().path,
            path: Path::Fallback,
            stage: Stage::Check,
            message: format!(
                "the output would take {bytes} bytes, above this executor's limit of {limit} \
                 (Config::max_output_bytes): raise it to consent, or pass a buffer to Executor::run"
            ),
        });
    }
    Ok(vec![0u8; (bytes as usize).max(1)])
}

/// The bytes of a 1-bit stream of `n` zeros, run in the place of a packed stream of bit width
/// 0 (which holds only zeros and needs no bytes; QPL refuses width 0): see
/// [`is_zero_width_packed`].
fn zero_stream(executor: &Executor, operation: Operation, n: u32) -> Result<Vec<u8>, Error> {
    output_buffer(executor, operation, u64::from(n).div_ceil(8))
}

fn run_to_vec<T: Element>(
    executor: &Executor,
    job: &Job,
    src1: &[u8],
    src2: Option<&[u8]>,
    max_elements: u64,
) -> Result<(Vec<T>, Output), Error> {
    let size = std::mem::size_of::<T>();
    let mut bytes = output_buffer(executor, job.operation, max_elements * size as u64)?;
    let output = executor.run(job, src1, src2, &mut bytes)?;
    let values = bytes[..output.completion.total_out as usize]
        .chunks_exact(size)
        .map(T::from_le)
        .collect();
    Ok((values, output))
}

impl Executor {
    /// Decodes the first `n` values of `stream` into a new `Vec<T>` (T = u8, u16 or u32;
    /// values wider than T are an error, 72). The stream is checked to hold `n` values, and
    /// the vector's size against `Config::max_output_bytes`, before anything is allocated.
    /// `n = 0` decodes to nothing, and a packed stream of bit width 0 to zeros, on every path
    /// (as [`Executor::decode_into`]).
    pub fn decode<T: Element>(
        &self,
        stream: &Stream<'_>,
        n: u32,
    ) -> Result<(Vec<T>, Output), Error> {
        // Empty requests and packed width 0: see `Executor::decode_into`.
        if n == 0 {
            let output = empty_output(self, stream, Operation::Extract)?;
            return Ok((Vec::new(), output));
        }
        if is_zero_width_packed(stream) {
            let zeros = zero_stream(self, Operation::Extract, n)?;
            return self.decode(&Stream::le_packed(&zeros, 1), n);
        }
        stream.check_holds(self.config().path, Operation::Extract, n)?;
        let job = Job {
            param_low: 0,
            param_high: n.saturating_sub(1),
            out_bit_width: T::OUT_BIT_WIDTH,
            // Values, also for 1-bit streams (whose widened output would be an index list).
            flags: Flags::OMIT_CHECKSUMS | Flags::FORCE_ARRAY_OUTPUT,
            ..stream.job(Operation::Extract, n)
        };
        run_to_vec(self, &job, stream.bytes, None, u64::from(n))
    }
}

/// A scan's comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comparison {
    /// `x == v`
    Eq(u32),
    /// `x != v`
    Ne(u32),
    /// `x < v`
    Lt(u32),
    /// `x <= v`
    Le(u32),
    /// `x > v`
    Gt(u32),
    /// `x >= v`
    Ge(u32),
    /// `low <= x <= high`
    Range(u32, u32),
    /// `x < low || x > high`
    NotRange(u32, u32),
}

impl Comparison {
    /// The scan operation and its parameters.
    pub fn job_fields(self) -> (Operation, u32, u32) {
        match self {
            Comparison::Eq(v) => (Operation::ScanEq, v, 0),
            Comparison::Ne(v) => (Operation::ScanNe, v, 0),
            Comparison::Lt(v) => (Operation::ScanLt, v, 0),
            Comparison::Le(v) => (Operation::ScanLe, v, 0),
            Comparison::Gt(v) => (Operation::ScanGt, v, 0),
            Comparison::Ge(v) => (Operation::ScanGe, v, 0),
            Comparison::Range(l, h) => (Operation::ScanRange, l, h),
            Comparison::NotRange(l, h) => (Operation::ScanNotRange, l, h),
        }
    }
}

impl Comparison {
    /// The same comparison for values of at most `max`, without parameters above `max`
    /// (QPL masks parameters to the bit width, which would compare against another value):
    /// an answer that is the same for every value becomes an empty or a full range.
    pub fn within(self, max: u32) -> Comparison {
        const NEVER: Comparison = Comparison::Range(1, 0);
        const ALWAYS: Comparison = Comparison::NotRange(1, 0);
        match self {
            Comparison::Eq(v) | Comparison::Gt(v) | Comparison::Ge(v) if v > max => NEVER,
            Comparison::Ne(v) | Comparison::Lt(v) | Comparison::Le(v) if v > max => ALWAYS,
            Comparison::Range(l, _) if l > max => NEVER,
            Comparison::Range(l, h) => Comparison::Range(l, h.min(max)),
            Comparison::NotRange(l, _) if l > max => ALWAYS,
            Comparison::NotRange(l, h) => Comparison::NotRange(l, h.min(max)),
            other => other,
        }
    }
}

fn scan_job(stream: &Stream<'_>, n: u32, comparison: Comparison) -> Job {
    let width = match stream.parser {
        Parser::PARQUET_RLE => stream.bytes.first().map_or(0, |&w| u32::from(w)),
        _ => stream.bit_width,
    };
    let comparison = if width >= 32 {
        comparison
    } else {
        comparison.within(u32::MAX.checked_shr(32 - width).unwrap_or(0))
    };
    let (op, low, high) = comparison.job_fields();
    Job {
        param_low: low,
        param_high: high,
        flags: Flags::OMIT_CHECKSUMS,
        ..stream.job(op, n)
    }
}

impl Executor {
    /// Scans the first `n` values of `stream` into a bit vector (bit i, LSB first, is element
    /// i's answer). The comparison is on the values as they are: a parameter wider than the
    /// stream's bit width is not masked (see [`Comparison::within`]), so scanning a Parquet
    /// page for a dictionary id it is too narrow to hold matches nothing. `sum_value` counts
    /// the matches; the first and last match are `first_index_min_value` and
    /// `last_index_max_value`. `n = 0` gives nothing; a packed stream of bit width 0 holds
    /// zeros, compared as such (as for [`Executor::decode_into`]).
    pub fn scan(
        &self,
        stream: &Stream<'_>,
        n: u32,
        comparison: Comparison,
    ) -> Result<(Vec<u8>, Output), Error> {
        if n == 0 {
            let output = empty_output(self, stream, comparison.job_fields().0)?;
            return Ok((Vec::new(), output));
        }
        if is_zero_width_packed(stream) {
            let zeros = zero_stream(self, comparison.job_fields().0, n)?;
            return self.scan(&Stream::le_packed(&zeros, 1), n, comparison.within(0));
        }
        let job = scan_job(stream, n, comparison);
        let mut bits = output_buffer(self, job.operation, u64::from(n).div_ceil(8))?;
        match self.run(&job, stream.bytes, None, &mut bits) {
            Ok(output) => {
                bits.truncate(output.completion.total_out as usize);
                Ok((bits, output))
            }
            Err(e) if needs_whole_groups(stream, &e, n) => {
                // D8: the same scan over whole groups (`n` rounded up to a multiple of 8 takes
                // as many output bytes), cut back to `n` bits.
                let wide = scan_job(stream, n.next_multiple_of(8), comparison);
                let mut output = self
                    .run(&wide, stream.bytes, None, &mut bits)
                    .map_err(|_| e)?;
                let bits = Bitmap::from_bytes(bits, n as usize);
                bit_aggregates(&mut output, bits.iter_ones(), n);
                output.completion.last_bit_offset = n % 8;
                Ok((bits.into_bytes(), output))
            }
            Err(e) => Err(e),
        }
    }

    /// Scans the first `n` values of `stream` into the list of matching element indices.
    /// `n = 0` gives nothing; a packed stream of bit width 0 holds zeros, compared as such (as
    /// for [`Executor::decode_into`]).
    pub fn scan_indices(
        &self,
        stream: &Stream<'_>,
        n: u32,
        comparison: Comparison,
    ) -> Result<(Vec<u32>, Output), Error> {
        let operation = comparison.job_fields().0;
        if n == 0 {
            return Ok((Vec::new(), empty_output(self, stream, operation)?));
        }
        if is_zero_width_packed(stream) {
            let zeros = zero_stream(self, operation, n)?;
            return self.scan_indices(&Stream::le_packed(&zeros, 1), n, comparison.within(0));
        }
        stream.check_holds(self.config().path, operation, n)?;
        let job = |n| Job {
            out_bit_width: OutBitWidth::W32,
            ..scan_job(stream, n, comparison)
        };
        match run_to_vec(self, &job(n), stream.bytes, None, u64::from(n)) {
            Err(e) if needs_whole_groups(stream, &e, n) => {
                // D8: the same scan over whole groups, without the indices past `n`.
                let wide = n.next_multiple_of(8);
                let (mut indices, mut output): (Vec<u32>, _) =
                    run_to_vec(self, &job(wide), stream.bytes, None, u64::from(wide))
                        .map_err(|_| e)?;
                indices.truncate(indices.partition_point(|&i| i < n));
                bit_aggregates(&mut output, indices.iter().map(|&i| i as usize), n);
                output.completion.total_out = 4 * indices.len() as u32;
                Ok((indices, output))
            }
            other => other,
        }
    }

    /// The values of the first `n` elements whose `mask` bit (LSB first) is 1. `n = 0` gives
    /// nothing; a packed stream of bit width 0 holds zeros (as for [`Executor::decode_into`]).
    pub fn select(
        &self,
        stream: &Stream<'_>,
        n: u32,
        mask: &[u8],
    ) -> Result<(Vec<u32>, Output), Error> {
        if n == 0 {
            return Ok((Vec::new(), empty_output(self, stream, Operation::Select)?));
        }
        if is_zero_width_packed(stream) {
            let zeros = zero_stream(self, Operation::Select, n)?;
            return self.select(&Stream::le_packed(&zeros, 1), n, mask);
        }
        stream.check_holds(self.config().path, Operation::Select, n)?;
        let job = Job {
            out_bit_width: OutBitWidth::W32,
            flags: Flags::OMIT_CHECKSUMS | Flags::FORCE_ARRAY_OUTPUT,
            ..stream.job(Operation::Select, n)
        };
        let selected = qpl_fallback::mask_ones(&job, mask, 0, u64::from(n));
        run_to_vec(self, &job, stream.bytes, Some(mask), selected)
    }

    /// `n` values: where `mask` bit i (LSB first) is 1, the next value of `stream`; 0 elsewhere.
    /// `n = 0` gives nothing; a packed stream of bit width 0 holds zeros (as for
    /// [`Executor::decode_into`]).
    pub fn expand(
        &self,
        stream: &Stream<'_>,
        n: u32,
        mask: &[u8],
    ) -> Result<(Vec<u32>, Output), Error> {
        if n == 0 {
            return Ok((Vec::new(), empty_output(self, stream, Operation::Expand)?));
        }
        if is_zero_width_packed(stream) {
            // At most `n` values are read: `n` zeros hold them.
            let zeros = zero_stream(self, Operation::Expand, n)?;
            return self.expand(&Stream::le_packed(&zeros, 1), n, mask);
        }
        let job = Job {
            out_bit_width: OutBitWidth::W32,
            flags: Flags::OMIT_CHECKSUMS | Flags::FORCE_ARRAY_OUTPUT,
            ..stream.job(Operation::Expand, n)
        };
        let consumed = qpl_fallback::mask_ones(&job, mask, 0, u64::from(n));
        stream.check_holds(self.config().path, Operation::Expand, consumed as u32)?;
        run_to_vec(self, &job, stream.bytes, Some(mask), u64::from(n))
    }
}

/// A mask's length as a job's element count (QPL counts elements in a `u32`).
fn mask_len(operation: Operation, path: Path, mask: BitmapRef<'_>) -> Result<u32, Error> {
    u32::try_from(mask.len()).map_err(|_| Error {
        operation,
        status: Status::SIZE_ERR,
        path,
        requested: path,
        stage: Stage::Check,
        message: format!(
            "a mask of {} bits is longer than a job takes ({} elements): cut it with \
             BitmapRef::slice",
            mask.len(),
            u32::MAX
        ),
    })
}

/// Sets a scan's aggregates from its matches (`ones`, increasing, all below `n`), as a scan of
/// `n` elements gives them: the first and last match (`u32::MAX` and 0 when none) and their
/// count.
fn bit_aggregates(output: &mut Output, ones: impl Iterator<Item = usize>, n: u32) {
    let (mut first, mut last, mut count) = (u32::MAX, 0, 0u32);
    for i in ones {
        let i = i as u32;
        debug_assert!(i < n);
        first = first.min(i);
        last = i;
        count += 1;
    }
    let completion = &mut output.completion;
    completion.first_index_min_value = first;
    completion.last_index_max_value = last;
    completion.sum_value = count;
}

/// Whether a job over a Parquet RLE stream failed with QPL's 225 on a bit-packed run met with
/// fewer than 8 elements wanted (D8: a valid stream QPL refuses); a job of `n` rounded up to a
/// multiple of 8 avoids it.
fn needs_whole_groups(stream: &Stream<'_>, error: &Error, n: u32) -> bool {
    stream.parser == Parser::PARQUET_RLE
        && error.status == Status::DST_IS_SHORT_ERR
        && !n.is_multiple_of(8)
        && n < u32::MAX - 7
}

impl Executor {
    /// [`Executor::scan`] as a [`Bitmap`] of exactly `n` bits.
    pub fn scan_bitmap(
        &self,
        stream: &Stream<'_>,
        n: u32,
        comparison: Comparison,
    ) -> Result<(Bitmap, Output), Error> {
        let (bits, output) = self.scan(stream, n, comparison)?;
        Ok((Bitmap::from_bytes(bits, n as usize), output))
    }

    /// [`Executor::select`] with a bitmap mask at any bit offset: the values of the first
    /// `mask.len()` elements of `stream` whose mask bit is 1. A mask that does not start at a
    /// byte boundary is realigned into a copy first (QPL takes masks from bit 0 of a byte).
    pub fn select_bitmap(
        &self,
        stream: &Stream<'_>,
        mask: BitmapRef<'_>,
    ) -> Result<(Vec<u32>, Output), Error> {
        let n = mask_len(Operation::Select, self.config().path, mask)?;
        let bytes = mask.aligned_bytes();
        match self.select(stream, n, &bytes) {
            Err(e) if needs_whole_groups(stream, &e, n) => {
                // Zero bits past `n` select nothing more: the output is the same.
                let wide = n.next_multiple_of(8);
                let padded = Bitmap::from_bytes(bytes.into_owned(), n as usize);
                self.select(stream, wide, padded.as_bytes()).map_err(|_| e)
            }
            other => other,
        }
    }

    /// [`Executor::expand`] with a bitmap mask at any bit offset: `mask.len()` values, the next
    /// value of `stream` where the mask bit is 1, 0 elsewhere.
    pub fn expand_bitmap(
        &self,
        stream: &Stream<'_>,
        mask: BitmapRef<'_>,
    ) -> Result<(Vec<u32>, Output), Error> {
        let n = mask_len(Operation::Expand, self.config().path, mask)?;
        let bytes = mask.aligned_bytes();
        match self.expand(stream, n, &bytes) {
            Err(e) if needs_whole_groups(stream, &e, n) => {
                // Zero bits past `n` read no value and give zeros, cut off here.
                let wide = n.next_multiple_of(8);
                let padded = Bitmap::from_bytes(bytes.into_owned(), n as usize);
                let (mut values, output) = self
                    .expand(stream, wide, padded.as_bytes())
                    .map_err(|_| e)?;
                values.truncate(n as usize);
                Ok((values, output))
            }
            other => other,
        }
    }
}

/// [`Executor::scan_bitmap`] on `path` with default settings.
pub fn scan_bitmap(
    path: Path,
    stream: &Stream<'_>,
    n: u32,
    comparison: Comparison,
) -> Result<(Bitmap, Output), Error> {
    Executor::new(path).scan_bitmap(stream, n, comparison)
}

/// [`Executor::select_bitmap`] on `path` with default settings.
pub fn select_bitmap(
    path: Path,
    stream: &Stream<'_>,
    mask: BitmapRef<'_>,
) -> Result<(Vec<u32>, Output), Error> {
    Executor::new(path).select_bitmap(stream, mask)
}

/// [`Executor::expand_bitmap`] on `path` with default settings.
pub fn expand_bitmap(
    path: Path,
    stream: &Stream<'_>,
    mask: BitmapRef<'_>,
) -> Result<(Vec<u32>, Output), Error> {
    Executor::new(path).expand_bitmap(stream, mask)
}

/// [`Executor::decode`] on `path` with default settings.
pub fn decode<T: Element>(
    path: Path,
    stream: &Stream<'_>,
    n: u32,
) -> Result<(Vec<T>, Output), Error> {
    Executor::new(path).decode(stream, n)
}

/// [`Executor::scan`] on `path` with default settings.
pub fn scan(
    path: Path,
    stream: &Stream<'_>,
    n: u32,
    comparison: Comparison,
) -> Result<(Vec<u8>, Output), Error> {
    Executor::new(path).scan(stream, n, comparison)
}

/// [`Executor::scan_indices`] on `path` with default settings.
pub fn scan_indices(
    path: Path,
    stream: &Stream<'_>,
    n: u32,
    comparison: Comparison,
) -> Result<(Vec<u32>, Output), Error> {
    Executor::new(path).scan_indices(stream, n, comparison)
}

/// [`Executor::select`] on `path` with default settings.
pub fn select(
    path: Path,
    stream: &Stream<'_>,
    n: u32,
    mask: &[u8],
) -> Result<(Vec<u32>, Output), Error> {
    Executor::new(path).select(stream, n, mask)
}

/// [`Executor::expand`] on `path` with default settings.
pub fn expand(
    path: Path,
    stream: &Stream<'_>,
    n: u32,
    mask: &[u8],
) -> Result<(Vec<u32>, Output), Error> {
    Executor::new(path).expand(stream, n, mask)
}
