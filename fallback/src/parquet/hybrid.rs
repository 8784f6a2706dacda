//! RLE (3): Parquet's RLE/bit-packing hybrid, for repetition and definition levels, dictionary
//! indices (see [`super::dictionary`]) and BOOLEAN values.
//!
//! A stream is a sequence of runs, each a ULEB128 header then its payload: `len << 1` then the
//! value in ⌈width/8⌉ little-endian bytes (an RLE run), or `groups << 1 | 1` then `groups`
//! groups of 8 values packed LSB first at `width` bits (a bit-packed run).
//!
//! This is Parquet's grammar, not the accelerator's `parquet_rle` parser (`crate::decode_hybrid`):
//! headers are ULEB128 of up to 5 bytes (run lengths up to 2^31 − 1), and RLE values wider than
//! the width are refused. Where the specification is silent:
//!
//! - Zero-length runs (header `0x00`, or `0x01`: a bit-packed run of 0 groups) are skipped. Each
//!   costs at least one byte, so a stream of them ends; the values are those the accelerator
//!   decodes from the same bytes.
//! - A run may hold more values than the page: decoding stops at the page's count, and the
//!   rest of the run is never read.
//! - A bit-packed run needs only the bytes holding the page's values: a final group cut short
//!   after its last wanted value is accepted (writers pad it to 8 values; some drop the pad).
//! - An RLE value at or above 2^width is [`ErrorKind::Corrupt`].
//! - Width 0: every value is 0. Runs present are read and checked (a cut-short or overlong
//!   header is an error), but when the data ends on a run boundary the missing values are 0s
//!   too: a width-0 stream carries nothing but counts, which the caller already knows.
//!
//! Errors are found when a run is opened, so decoding a page in batches of any sizes gives the
//! same values and the same error as decoding it whole.

use std::mem::MaybeUninit;

use super::util::as_bytes_mut;
use super::{ErrorKind, ParquetError, ValueDecoder};
use crate::kernels;
use crate::unpack::{unpack, BitWidth};

const ENCODING: &str = "RLE";

/// The longest run Parquet allows (2^31 − 1 values).
const MAX_RUN: u64 = i32::MAX as u64;

/// Values unpacked at a time into a stack buffer by consumers that cannot take them in place
/// (booleans, dictionary gathers): a multiple of 8, small enough to stay in L1.
pub(crate) const CHUNK: usize = 256;

/// The open run of a [`HybridDecoder`].
#[derive(Clone, Copy, Debug)]
enum Run<'a> {
    /// No run open (or the open one is used up).
    None,
    /// `left` more copies of `value`.
    Rle { value: u32, left: usize },
    /// A bit-packed run's wanted values: `src` holds the packed bytes from the run's start up
    /// to its last wanted value; `offset` values of it are used, `left` follow.
    Packed {
        src: &'a [u8],
        offset: usize,
        left: usize,
    },
}

/// A [`HybridDecoder`]'s place in its stream, without the stream ([`HybridDecoder::place`],
/// [`HybridDecoder::resume`]).
#[derive(Clone, Debug)]
pub struct HybridPlace {
    pos: usize,
    bit_width: u32,
    num_values: usize,
    remaining: usize,
    data_len: usize,
    run: PlacedRun,
}

impl HybridPlace {
    /// What [`HybridDecoder::rle_left`] would say, where the open run tells without the
    /// stream: `Some(Some(left))` inside an RLE run, `Some(None)` inside a bit-packed run or
    /// with no value left; `None` where the next run is still to be opened.
    pub fn open_rle_left(&self) -> Option<Option<usize>> {
        if self.remaining == 0 {
            return Some(None);
        }
        match self.run {
            PlacedRun::Rle { left, .. } if left > 0 => Some(Some(left)),
            PlacedRun::Packed { left, .. } if left > 0 => Some(None),
            _ => None,
        }
    }

    /// [`HybridDecoder::take_repeated`] where the open run is an RLE run holding the next `n`
    /// values: taken here, without the stream; `None` (nothing taken) otherwise, though
    /// the decoder, resumed, might open a run that holds them.
    pub fn take_open_rle(&mut self, n: usize) -> Option<u32> {
        match &mut self.run {
            PlacedRun::Rle { value, left } if n > 0 && *left >= n && self.remaining >= n => {
                *left -= n;
                self.remaining -= n;
                Some(*value)
            }
            _ => None,
        }
    }
}

/// [`Run`] with its bytes named by their place in the stream.
#[derive(Clone, Copy, Debug)]
enum PlacedRun {
    None,
    Rle {
        value: u32,
        left: usize,
    },
    Packed {
        start: usize,
        len: usize,
        offset: usize,
        left: usize,
    },
}

/// Receives the values of [`HybridDecoder::drive`], positions counted from the batch's start.
pub(crate) trait Sink {
    /// Values `at..at + count` all equal `value`.
    fn fill(&mut self, at: usize, value: u32, count: usize) -> Result<(), ParquetError>;
    /// Values `at..at + values.len()`.
    fn values(&mut self, at: usize, values: &[u32]) -> Result<(), ParquetError>;
    /// Values `at..at + count`, packed LSB first at `width` bits from the start of `src`
    /// (which holds ⌈count·width/8⌉ bytes at least). The default unpacks them [`CHUNK`] at a
    /// time into a stack buffer and hands them to [`Sink::values`]; sinks that own a buffer
    /// call [`unpack_chunks`] with it instead (no buffer to zero per call).
    fn packed(
        &mut self,
        at: usize,
        width: BitWidth,
        src: &[u8],
        count: usize,
    ) -> Result<(), ParquetError> {
        let mut buffer = [0u32; CHUNK];
        unpack_chunks(&mut buffer, width, src, count, |offset, values| {
            self.values(at + offset, values)
        })
    }
}

/// Unpacks the `count` values packed LSB first at `width` bits from the start of `src` (which
/// holds them all) [`CHUNK`] at a time into `buffer`, handing each chunk and its offset to
/// `take`.
#[inline]
pub(crate) fn unpack_chunks(
    buffer: &mut [u32; CHUNK],
    width: BitWidth,
    src: &[u8],
    count: usize,
    mut take: impl FnMut(usize, &[u32]) -> Result<(), ParquetError>,
) -> Result<(), ParquetError> {
    let w = width.get() as usize;
    let mut done = 0;
    while done < count {
        let len = (count - done).min(CHUNK);
        // `done` is a multiple of CHUNK, so of 8: the chunk starts on a group boundary.
        let chunk = &mut buffer[..len];
        unpack(width, false, &src[done / 8 * w..], chunk);
        take(done, chunk)?;
        done += len;
    }
    Ok(())
}

/// The 8 levels (0 or 1) of each byte of a width-1 bit-packed run, LSB first.
static BYTE_LEVELS: [[i16; 8]; 256] = {
    let mut table = [[0i16; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut k = 0;
        while k < 8 {
            table[byte][k] = ((byte >> k) & 1) as i16;
            k += 1;
        }
        byte += 1;
    }
    table
};

/// The incremental decoder of an RLE/bit-packing hybrid stream of `num_values` values.
#[derive(Clone, Debug)]
pub struct HybridDecoder<'a> {
    data: &'a [u8],
    /// The next run header.
    pos: usize,
    bit_width: u32,
    num_values: usize,
    remaining: usize,
    run: Run<'a>,
}

impl<'a> HybridDecoder<'a> {
    /// A decoder of the `num_values` values of `bit_width` (0..=32) bits that `data` (runs
    /// only, no length prefix or width byte) holds. Nothing is read yet.
    pub fn new(data: &'a [u8], bit_width: u32, num_values: usize) -> Result<Self, ParquetError> {
        if bit_width > 32 {
            return Err(ParquetError::invalid_argument(
                ENCODING,
                format!("bit width {bit_width} is above 32"),
            ));
        }
        Ok(HybridDecoder {
            data,
            pos: 0,
            bit_width,
            num_values,
            remaining: num_values,
            run: Run::None,
        })
    }

    /// A decoder of a stream that starts with its length in 4 little-endian bytes (levels of
    /// v1 data pages, BOOLEAN values), and the bytes that prefix and stream take.
    pub fn with_length_prefix(
        data: &'a [u8],
        bit_width: u32,
        num_values: usize,
    ) -> Result<(Self, usize), ParquetError> {
        let Some(prefix) = data.first_chunk::<4>() else {
            return Err(ParquetError::truncated(
                ENCODING,
                format!(
                    "the 4-byte length prefix is cut short: the data has {} bytes",
                    data.len()
                ),
            ));
        };
        let length = u32::from_le_bytes(*prefix) as usize;
        let Some(body) = data.get(4..).and_then(|rest| rest.get(..length)) else {
            return Err(ParquetError::truncated(
                ENCODING,
                format!(
                    "the length prefix says {length} bytes follow, but only {} do",
                    data.len() - 4
                ),
            ));
        };
        Ok((Self::new(body, bit_width, num_values)?, 4 + length))
    }

    /// A decoder of dictionary indices: a bit-width byte (0..=32), then the runs. An empty
    /// `data` is accepted only for a page of no values.
    pub fn with_width_byte(data: &'a [u8], num_values: usize) -> Result<Self, ParquetError> {
        let Some((&width, body)) = data.split_first() else {
            if num_values == 0 {
                return Self::new(data, 0, 0);
            }
            return Err(ParquetError::truncated(
                ENCODING,
                format!("a page of {num_values} dictionary indices has no bit-width byte"),
            ));
        };
        if width > 32 {
            return Err(ParquetError::corrupt(
                ENCODING,
                format!("the dictionary indices' bit-width byte is {width}, above 32"),
            ));
        }
        Self::new(body, u32::from(width), num_values)
    }

    /// The values' bit width.
    pub fn bit_width(&self) -> u32 {
        self.bit_width
    }

    /// Bytes of the stream read so far: every run opened, a bit-packed one to the end of its
    /// groups (or of the data, when its final group is cut short).
    pub fn bytes_read(&self) -> usize {
        self.pos
    }

    /// Values decoded or skipped so far (the page position of the next value).
    pub fn position(&self) -> usize {
        self.num_values - self.remaining
    }

    /// Where this decoder is in its stream, without the stream: a caller that holds the
    /// stream elsewhere (a page kept across calls) stops here and goes on later with
    /// [`HybridDecoder::resume`] on the same stream.
    pub fn place(&self) -> HybridPlace {
        let run = match self.run {
            Run::None => PlacedRun::None,
            Run::Rle { value, left } => PlacedRun::Rle { value, left },
            Run::Packed { src, offset, left } => PlacedRun::Packed {
                // `src` is a piece of `data` (`open_run`): its start's distance from `data`'s.
                start: src.as_ptr() as usize - self.data.as_ptr() as usize,
                len: src.len(),
                offset,
                left,
            },
        };
        HybridPlace {
            pos: self.pos,
            bit_width: self.bit_width,
            num_values: self.num_values,
            remaining: self.remaining,
            data_len: self.data.len(),
            run,
        }
    }

    /// The decoder of `data` at `place`, which [`HybridDecoder::place`] gave for a decoder of
    /// this very stream (`data` as given to the constructor: after the length prefix or the
    /// width byte).
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`] when `data` is not as long as that decoder's stream.
    pub fn resume(data: &'a [u8], place: &HybridPlace) -> Result<Self, ParquetError> {
        if data.len() != place.data_len {
            return Err(ParquetError::invalid_argument(
                ENCODING,
                format!(
                    "a decoder placed in a stream of {} bytes resumed on {} bytes",
                    place.data_len,
                    data.len()
                ),
            ));
        }
        let run = match place.run {
            PlacedRun::None => Run::None,
            PlacedRun::Rle { value, left } => Run::Rle { value, left },
            PlacedRun::Packed {
                start,
                len,
                offset,
                left,
            } => Run::Packed {
                // In bounds: `data` is as long as the stream `src` was a piece of.
                src: &data[start..start + len],
                offset,
                left,
            },
        };
        Ok(HybridDecoder {
            data,
            pos: place.pos,
            bit_width: place.bit_width,
            num_values: place.num_values,
            remaining: place.remaining,
            run,
        })
    }

    /// Opens the next run that holds wanted values (`remaining > 0`).
    fn open_run(&mut self) -> Result<(), ParquetError> {
        loop {
            let start = self.pos;
            if start >= self.data.len() {
                if self.bit_width == 0 {
                    // Width 0 carries no values: the missing ones are 0s (module docs).
                    self.run = Run::Rle {
                        value: 0,
                        left: self.remaining,
                    };
                    return Ok(());
                }
                return Err(ParquetError::truncated(
                    ENCODING,
                    format!(
                        "the stream ends at byte {start} after {} of {} values",
                        self.position(),
                        self.num_values
                    ),
                ));
            }
            let mut at = start;
            let header = read_header(self.data, &mut at)?;
            if header & 1 == 0 {
                let len = header >> 1;
                if len > MAX_RUN {
                    return Err(run_too_long(start, len));
                }
                let value_bytes = self.bit_width.div_ceil(8) as usize;
                let Some(bytes) = self.data.get(at..at + value_bytes) else {
                    return Err(ParquetError::truncated(
                        ENCODING,
                        format!(
                            "the value of the RLE run at byte {start} is cut short: {value_bytes} bytes needed, {} left",
                            self.data.len() - at
                        ),
                    ));
                };
                let value = bytes
                    .iter()
                    .rev()
                    .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
                if self.bit_width < 32 && value >> self.bit_width != 0 {
                    return Err(ParquetError::corrupt(
                        ENCODING,
                        format!(
                            "the RLE run at byte {start} repeats {value}, which does not fit {} bits",
                            self.bit_width
                        ),
                    ));
                }
                self.pos = at + value_bytes;
                if len == 0 {
                    continue;
                }
                self.run = Run::Rle {
                    value,
                    left: (len as usize).min(self.remaining),
                };
                return Ok(());
            }
            let groups = header >> 1;
            let len = groups * 8;
            if len > MAX_RUN {
                return Err(run_too_long(start, len));
            }
            let width = self.bit_width as usize;
            // Below 2^31 values of at most 32 bits: fits a u64, and a usize once compared
            // with the data's length.
            let run_bytes = groups * width as u64;
            let take = (len as usize).min(self.remaining);
            let needed = (take as u64 * width as u64).div_ceil(8);
            let rest = &self.data[at..];
            let Some(src) = usize::try_from(needed).ok().and_then(|n| rest.get(..n)) else {
                return Err(ParquetError::truncated(
                    ENCODING,
                    format!(
                        "the bit-packed run at byte {start} is cut short: {take} values need {needed} bytes, {} left",
                        rest.len()
                    ),
                ));
            };
            self.pos = at + usize::try_from(run_bytes).map_or(rest.len(), |b| b.min(rest.len()));
            if take == 0 {
                continue;
            }
            self.run = Run::Packed {
                src,
                offset: 0,
                left: take,
            };
            return Ok(());
        }
    }

    /// Hands the next `n` (≤ `remaining`) values to `sink`.
    #[inline]
    pub(crate) fn drive<S: Sink>(&mut self, n: usize, sink: &mut S) -> Result<(), ParquetError> {
        debug_assert!(n <= self.remaining);
        let mut done = 0;
        while done < n {
            match self.run {
                Run::Rle { value, left } if left > 0 => {
                    let k = left.min(n - done);
                    sink.fill(done, value, k)?;
                    self.run = Run::Rle {
                        value,
                        left: left - k,
                    };
                    self.remaining -= k;
                    done += k;
                }
                Run::Packed { src, offset, left } if left > 0 => {
                    let k = match BitWidth::new(self.bit_width) {
                        None => {
                            let k = left.min(n - done);
                            sink.fill(done, 0, k)?;
                            k
                        }
                        Some(width) => {
                            let w = width.get() as usize;
                            let in_group = offset % 8;
                            let group = &src[offset / 8 * w..];
                            if in_group != 0 {
                                // Mid-group (a batch ended there): this group's values present
                                // in the run, unpacked apart.
                                let present = (in_group + left).min(8);
                                let mut lanes = [0u32; 8];
                                unpack(width, false, group, &mut lanes[..present]);
                                let k = (present - in_group).min(n - done);
                                sink.values(done, &lanes[in_group..in_group + k])?;
                                k
                            } else {
                                let k = left.min(n - done);
                                sink.packed(done, width, group, k)?;
                                k
                            }
                        }
                    };
                    self.run = Run::Packed {
                        src,
                        offset: offset + k,
                        left: left - k,
                    };
                    self.remaining -= k;
                    done += k;
                }
                _ => self.open_run()?,
            }
        }
        Ok(())
    }

    /// Takes the next `n` values where they are all copies of one RLE run's value (the next
    /// run opened first if the open one is used up) and returns that value; `None`, and
    /// nothing taken, where they are not (`n` is 0, above [`ValueDecoder::remaining`], or
    /// reaches past the run, or the run is bit-packed). A dictionary page of long runs (a
    /// constant or sorted column) is then a fill of one entry, not indices decoded, checked
    /// and gathered.
    ///
    /// # Errors
    /// The errors of the run it opens, as [`ValueDecoder::next_batch`] reports them there.
    pub fn take_repeated(&mut self, n: usize) -> Result<Option<u32>, ParquetError> {
        if n == 0 || n > self.remaining {
            return Ok(None);
        }
        self.open_if_used()?;
        match self.run {
            Run::Rle { value, left } if left >= n => {
                self.run = Run::Rle {
                    value,
                    left: left - n,
                };
                self.remaining -= n;
                Ok(Some(value))
            }
            _ => Ok(None),
        }
    }

    /// How many values the run holding the next value has left where it is an RLE run (the
    /// next run opened first if the open one is used up); `None` where it is bit-packed or no
    /// value is left. Nothing is taken.
    ///
    /// # Errors
    /// The errors of the run it opens, as [`ValueDecoder::next_batch`] reports them there.
    pub fn rle_left(&mut self) -> Result<Option<usize>, ParquetError> {
        if self.remaining == 0 {
            return Ok(None);
        }
        self.open_if_used()?;
        Ok(match self.run {
            Run::Rle { left, .. } => Some(left),
            _ => None,
        })
    }

    /// Opens the next run if none is open or the open one is used up (values remain).
    fn open_if_used(&mut self) -> Result<(), ParquetError> {
        if matches!(
            self.run,
            Run::None | Run::Rle { left: 0, .. } | Run::Packed { left: 0, .. }
        ) {
            self.open_run()?;
        }
        Ok(())
    }

    /// Decodes the first values of the runs from the next run header on into `out` with the
    /// kernels' run walk (the tier's fills and unpacking in one loop, without this decoder's
    /// per-run state and calls: several times faster on streams of short runs, such as the
    /// definition levels of a nullable column), then moves this decoder past them with
    /// [`SkipSink`], which reads their headers again and reports the errors the walk does not
    /// look for (an RLE value of 2^width or more, which the walk writes as it is) as decoding
    /// them here would. Returns how many values it decoded, as far as the walk went: it stops
    /// before a run that is cut short or has a header of 5 bytes, which the caller's
    /// [`HybridDecoder::drive`] decodes or reports. Width 0, or a target whose `u32`s are not
    /// stored little-endian: 0.
    fn drive_kernels(&mut self, out: &mut [u32]) -> Result<usize, ParquetError> {
        if out.is_empty() || self.bit_width == 0 {
            return Ok(0);
        }
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        let Some(bytes) = as_bytes_mut(out) else {
            return Ok(0);
        };
        let chosen = kernels::kernels();
        // No mask: the values as written, for `SkipSink`'s pass to check.
        let Some((values, _, _)) =
            kernels::hybrid_to_le_bytes(chosen, self.bit_width, rest, u32::MAX, bytes, false)
        else {
            return Ok(0);
        };
        self.drive(values, &mut SkipSink)?;
        Ok(values)
    }

    /// Appends the next `n` values of a stream of width 1 (the definition levels of a nullable
    /// flat column, `max_def_level` 1) to `out` as `i16` levels, and returns how many are 1:
    /// RLE runs are fills, bit-packed runs are expanded a byte (8 levels) at a time from a
    /// table and counted with `count_ones`, straight into `out`'s spare room, in one pass.
    /// Runs are opened (and their errors reported) as [`ValueDecoder::next_batch`] does.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`] when the stream's width is not 1 or `n` is above
    /// [`ValueDecoder::remaining`]; the stream's errors as [`ValueDecoder::next_batch`]
    /// reports them. `out` is then left as it was (this decoder may have moved).
    pub fn append_width1_levels(
        &mut self,
        n: usize,
        out: &mut Vec<i16>,
    ) -> Result<usize, ParquetError> {
        if self.bit_width != 1 || n > self.remaining {
            return Err(ParquetError::invalid_argument(
                ENCODING,
                format!(
                    "append_width1_levels: {n} values of width {} wanted, {} remain (width 1 only)",
                    self.bit_width, self.remaining
                ),
            ));
        }
        out.reserve(n);
        let start = out.len();
        let spare = &mut out.spare_capacity_mut()[..n];
        let mut ones = 0usize;
        let mut done = 0;
        while done < n {
            match self.run {
                Run::Rle { value, left } if left > 0 => {
                    // Width 1: `open_run` refused values above 1.
                    let k = left.min(n - done);
                    spare[done..done + k].fill(MaybeUninit::new(value as i16));
                    ones += k * value as usize;
                    self.run = Run::Rle {
                        value,
                        left: left - k,
                    };
                    self.remaining -= k;
                    done += k;
                }
                Run::Packed { src, offset, left } if left > 0 => {
                    let k = left.min(n - done);
                    let out = &mut spare[done..done + k];
                    let (mut bit, end) = (offset, offset + k);
                    let mut at = 0;
                    // Up to a byte boundary, then whole bytes, then the last bits.
                    while bit < end && !bit.is_multiple_of(8) {
                        let level = (src[bit / 8] >> (bit % 8)) & 1;
                        out[at] = MaybeUninit::new(i16::from(level));
                        ones += usize::from(level);
                        (bit, at) = (bit + 1, at + 1);
                    }
                    let whole = (end - bit) / 8;
                    let bytes = &src[bit / 8..bit / 8 + whole];
                    for (chunk, &byte) in out[at..at + 8 * whole].chunks_exact_mut(8).zip(bytes) {
                        for (slot, &level) in chunk.iter_mut().zip(&BYTE_LEVELS[usize::from(byte)])
                        {
                            *slot = MaybeUninit::new(level);
                        }
                        ones += byte.count_ones() as usize;
                    }
                    (bit, at) = (bit + 8 * whole, at + 8 * whole);
                    while bit < end {
                        let level = (src[bit / 8] >> (bit % 8)) & 1;
                        out[at] = MaybeUninit::new(i16::from(level));
                        ones += usize::from(level);
                        (bit, at) = (bit + 1, at + 1);
                    }
                    self.run = Run::Packed {
                        src,
                        offset: end,
                        left: left - k,
                    };
                    self.remaining -= k;
                    done += k;
                }
                _ => self.open_run()?,
            }
        }
        // SAFETY: the loop wrote every one of the `n` spare slots after `start` (`done` went
        // from 0 to `n`, each run writing its `k` slots `done..done + k`), and `reserve(n)`
        // made room for them.
        unsafe { out.set_len(start + n) };
        Ok(ones)
    }

    /// Decodes the whole stream `data` of `bit_width` (0..=32) bits into `out`, one value per
    /// element: the bytes read ([`HybridDecoder::bytes_read`]).
    pub fn decode(data: &[u8], bit_width: u32, out: &mut [u32]) -> Result<usize, ParquetError> {
        let mut decoder = HybridDecoder::new(data, bit_width, out.len())?;
        decoder.next_batch(out)?;
        Ok(decoder.bytes_read())
    }
}

fn run_too_long(start: usize, len: u64) -> ParquetError {
    ParquetError::corrupt(
        ENCODING,
        format!("the run at byte {start} claims {len} values, above 2^31 - 1"),
    )
}

/// Reads a run header (ULEB128, at most 5 bytes) at `*pos`, moving `*pos` past it.
#[inline(always)]
fn read_header(data: &[u8], pos: &mut usize) -> Result<u64, ParquetError> {
    let start = *pos;
    let mut value = 0u64;
    for i in 0..5 {
        let Some(&byte) = data.get(start + i) else {
            return Err(ParquetError::truncated(
                ENCODING,
                format!("the run header at byte {start} is cut short"),
            ));
        };
        value |= u64::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            *pos = start + i + 1;
            return Ok(value);
        }
    }
    Err(ParquetError::corrupt(
        ENCODING,
        format!("the run header at byte {start} is longer than 5 bytes"),
    ))
}

/// Writes into a `u32` slice: bit-packed runs unpacked straight into it.
struct SliceSink<'o>(&'o mut [u32]);

impl Sink for SliceSink<'_> {
    #[inline]
    fn fill(&mut self, at: usize, value: u32, count: usize) -> Result<(), ParquetError> {
        self.0[at..at + count].fill(value);
        Ok(())
    }

    #[inline]
    fn values(&mut self, at: usize, values: &[u32]) -> Result<(), ParquetError> {
        self.0[at..at + values.len()].copy_from_slice(values);
        Ok(())
    }

    #[inline]
    fn packed(
        &mut self,
        at: usize,
        width: BitWidth,
        src: &[u8],
        count: usize,
    ) -> Result<(), ParquetError> {
        unpack(width, false, src, &mut self.0[at..at + count]);
        Ok(())
    }
}

/// Passes over values: RLE runs in O(1), bit-packed ones without unpacking.
struct SkipSink;

impl Sink for SkipSink {
    #[inline]
    fn fill(&mut self, _: usize, _: u32, _: usize) -> Result<(), ParquetError> {
        Ok(())
    }

    #[inline]
    fn values(&mut self, _: usize, _: &[u32]) -> Result<(), ParquetError> {
        Ok(())
    }

    #[inline]
    fn packed(&mut self, _: usize, _: BitWidth, _: &[u8], _: usize) -> Result<(), ParquetError> {
        Ok(())
    }
}

impl ValueDecoder for HybridDecoder<'_> {
    type Value = u32;

    fn remaining(&self) -> usize {
        self.remaining
    }

    fn next_batch(&mut self, out: &mut [u32]) -> Result<usize, ParquetError> {
        let n = out.len().min(self.remaining);
        let out = &mut out[..n];
        // The open run's values first (a batch that ended inside a run), then whole runs
        // through the kernels, then whatever they left.
        let open = match self.run {
            Run::Rle { left, .. } | Run::Packed { left, .. } => left.min(n),
            Run::None => 0,
        };
        self.drive(open, &mut SliceSink(&mut out[..open]))?;
        let fast = self.drive_kernels(&mut out[open..])?;
        let done = open + fast;
        self.drive(n - done, &mut SliceSink(&mut out[done..]))?;
        Ok(n)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let n = n.min(self.remaining);
        self.drive(n, &mut SkipSink)?;
        Ok(n)
    }
}

/// Writes booleans: values are 0 or 1 (width 1, RLE values checked when their run opens).
struct BoolSink<'o, 's> {
    out: &'o mut [bool],
    scratch: &'s mut [u32; CHUNK],
}

fn store_bools(out: &mut [bool], values: &[u32]) {
    for (o, &v) in out.iter_mut().zip(values) {
        *o = v != 0;
    }
}

impl Sink for BoolSink<'_, '_> {
    #[inline]
    fn fill(&mut self, at: usize, value: u32, count: usize) -> Result<(), ParquetError> {
        self.out[at..at + count].fill(value != 0);
        Ok(())
    }

    #[inline]
    fn values(&mut self, at: usize, values: &[u32]) -> Result<(), ParquetError> {
        store_bools(&mut self.out[at..at + values.len()], values);
        Ok(())
    }

    #[inline]
    fn packed(
        &mut self,
        at: usize,
        width: BitWidth,
        src: &[u8],
        count: usize,
    ) -> Result<(), ParquetError> {
        let out = &mut self.out[at..at + count];
        unpack_chunks(self.scratch, width, src, count, |offset, values| {
            store_bools(&mut out[offset..offset + values.len()], values);
            Ok(())
        })
    }
}

/// The incremental decoder of BOOLEAN values encoded RLE (v1 and v2 data pages): a 4-byte
/// length prefix, then a hybrid stream of width 1.
#[derive(Clone, Debug)]
pub struct BooleanHybridDecoder<'a> {
    inner: HybridDecoder<'a>,
    /// Bit-packed values are unpacked here, then stored as booleans.
    scratch: [u32; CHUNK],
}

impl<'a> BooleanHybridDecoder<'a> {
    /// A decoder of `num_values` booleans at the start of `data`, and the bytes its prefix and
    /// stream take.
    pub fn new(data: &'a [u8], num_values: usize) -> Result<(Self, usize), ParquetError> {
        let (inner, used) = HybridDecoder::with_length_prefix(data, 1, num_values)?;
        let scratch = [0; CHUNK];
        Ok((BooleanHybridDecoder { inner, scratch }, used))
    }
}

impl ValueDecoder for BooleanHybridDecoder<'_> {
    type Value = bool;

    fn remaining(&self) -> usize {
        self.inner.remaining
    }

    fn next_batch(&mut self, out: &mut [bool]) -> Result<usize, ParquetError> {
        let n = out.len().min(self.inner.remaining);
        let mut sink = BoolSink {
            out: &mut out[..n],
            scratch: &mut self.scratch,
        };
        self.inner.drive(n, &mut sink)?;
        Ok(n)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        self.inner.skip(n)
    }
}

/// Decodes the whole stream `data` (no prefix) of `bit_width` bits into `out`: the bytes read.
/// See [`HybridDecoder::decode`].
pub fn decode(data: &[u8], bit_width: u32, out: &mut [u32]) -> Result<usize, ParquetError> {
    HybridDecoder::decode(data, bit_width, out)
}

/// Appends `values` as a hybrid stream of `bit_width` (0..=32) bits, without a length prefix.
///
/// Repeats of 8 or more that start on a group boundary become RLE runs, everything else
/// bit-packed runs, the last group zero-padded. Every header fits 4 bytes (runs are split
/// at 2^27 − 1), so the accelerator's `parquet_rle` parser reads the output too.
pub fn encode(values: &[u32], bit_width: u32, out: &mut Vec<u8>) -> Result<(), ParquetError> {
    check_encodable(values, bit_width)?;
    let encoded = crate::encode_hybrid(values, bit_width).map_err(|e| {
        // Checked above; kept for the error's words should the rules drift apart.
        ParquetError::invalid_argument(ENCODING, e.to_string())
    })?;
    out.extend_from_slice(&encoded);
    Ok(())
}

/// [`encode`], preceded by the stream's length in 4 little-endian bytes (v1 levels, BOOLEAN
/// values).
pub fn encode_with_length_prefix(
    values: &[u32],
    bit_width: u32,
    out: &mut Vec<u8>,
) -> Result<(), ParquetError> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    if let Err(e) = encode(values, bit_width, out) {
        out.truncate(start);
        return Err(e);
    }
    let length = out.len() - start - 4;
    let Ok(length) = u32::try_from(length) else {
        out.truncate(start);
        return Err(ParquetError::invalid_argument(
            ENCODING,
            format!("the stream's {length} bytes do not fit the 4-byte length prefix"),
        ));
    };
    out[start..start + 4].copy_from_slice(&length.to_le_bytes());
    Ok(())
}

/// Appends `values` as BOOLEAN values encoded RLE: the 4-byte length prefix, then a hybrid
/// stream of width 1.
///
/// # Panics
/// When the stream passes 4 GiB (tens of billions of alternating values).
pub fn encode_booleans(values: &[bool], out: &mut Vec<u8>) {
    let bits: Vec<u32> = values.iter().map(|&b| u32::from(b)).collect();
    encode_with_length_prefix(&bits, 1, out).expect("a boolean stream under 4 GiB");
}

fn check_encodable(values: &[u32], bit_width: u32) -> Result<(), ParquetError> {
    if bit_width > 32 {
        return Err(ParquetError::invalid_argument(
            ENCODING,
            format!("bit width {bit_width} is above 32"),
        ));
    }
    if bit_width < 32 {
        if let Some(index) = values.iter().position(|&v| v >> bit_width != 0) {
            return Err(ParquetError::new(
                ENCODING,
                ErrorKind::InvalidArgument,
                format!(
                    "value {} at index {index} does not fit {bit_width} bits",
                    values[index]
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stream decoded in pieces, the decoder placed and resumed between them (mid-run,
    /// mid-group, in RLE and bit-packed runs), gives the values decoded in one go; a resume
    /// on a stream of another length is an error.
    #[test]
    fn a_decoder_placed_and_resumed_goes_on_where_it_was() {
        let values: Vec<u32> = (0..3000u32)
            .map(|i| if (i / 700) % 2 == 0 { i % 13 } else { 5 })
            .collect();
        let mut stream = Vec::new();
        encode(&values, 4, &mut stream).unwrap();
        for piece in [1, 3, 8, 100, 1024] {
            let mut place = HybridDecoder::new(&stream, 4, values.len())
                .unwrap()
                .place();
            let mut got = Vec::new();
            while got.len() < values.len() {
                let mut decoder = HybridDecoder::resume(&stream, &place).unwrap();
                let mut out = vec![0; piece.min(values.len() - got.len())];
                assert_eq!(decoder.next_batch(&mut out).unwrap(), out.len());
                got.extend_from_slice(&out);
                place = decoder.place();
            }
            assert_eq!(got, values, "pieces of {piece}");
        }
        let place = HybridDecoder::new(&stream, 4, values.len())
            .unwrap()
            .place();
        let err = HybridDecoder::resume(&stream[1..], &place).unwrap_err();
        assert_eq!(err.kind, ErrorKind::InvalidArgument);
    }

    /// Pieces taken as one RLE run's value where they are one, decoded otherwise, give the
    /// values decoded in one go; a piece is taken so only inside an RLE run.
    #[test]
    fn repeated_pieces_are_taken_only_inside_rle_runs() {
        // Runs of 704 fives (RLE: they start at a group of 8) between noise (bit-packed), the
        // stream ending in noise.
        let values: Vec<u32> = (0..7 * 704u32)
            .map(|i| if (i / 704) % 2 == 0 { i % 13 } else { 5 })
            .collect();
        let mut stream = Vec::new();
        encode(&values, 4, &mut stream).unwrap();
        for piece in [1, 7, 64, 100, 703, 704, 705] {
            let mut decoder = HybridDecoder::new(&stream, 4, values.len()).unwrap();
            let (mut got, mut taken) = (Vec::new(), 0);
            while got.len() < values.len() {
                let n = piece.min(values.len() - got.len());
                match decoder.take_repeated(n).unwrap() {
                    Some(value) => {
                        let at = got.len();
                        assert!(values[at..at + n].iter().all(|&v| v == value));
                        got.resize(at + n, value);
                        taken += 1;
                    }
                    None => {
                        let mut out = vec![0; n];
                        assert_eq!(decoder.next_batch(&mut out).unwrap(), n);
                        got.extend_from_slice(&out);
                    }
                }
            }
            assert_eq!(got, values, "pieces of {piece}");
            assert_eq!(decoder.take_repeated(1), Ok(None), "past the end");
            assert_eq!(decoder.rle_left(), Ok(None), "past the end");
            // The RLE runs hold 704 values from a multiple of 704: pieces dividing 704 are
            // taken in them, longer ones never.
            if 704 % piece == 0 {
                assert!(taken > 0, "pieces of {piece}");
            }
            if piece > 704 {
                assert_eq!(taken, 0, "pieces of {piece}");
            }
        }
        // What is left of the run of the next value, where it is an RLE run.
        let mut decoder = HybridDecoder::new(&stream, 4, values.len()).unwrap();
        assert_eq!(decoder.rle_left(), Ok(None), "noise first");
        decoder.skip(704 + 100).unwrap();
        assert_eq!(decoder.rle_left(), Ok(Some(604)));
        assert_eq!(decoder.place().open_rle_left(), Some(Some(604)));
        // Taken from the place alone, then resumed there: the same values follow.
        let mut place = decoder.place();
        assert_eq!(place.take_open_rle(605), None, "past the run");
        assert_eq!(place.take_open_rle(4), Some(5));
        let mut resumed = HybridDecoder::resume(&stream, &place).unwrap();
        assert_eq!(resumed.take_repeated(600), Ok(Some(5)));
        assert_eq!(resumed.place().open_rle_left(), None, "the run used up");
        assert_eq!(decoder.take_repeated(604), Ok(Some(5)));
        assert_eq!(decoder.place().open_rle_left(), None, "the run used up");
        assert_eq!(decoder.rle_left(), Ok(None), "noise again");
        assert_eq!(decoder.place().open_rle_left(), Some(None));
        // Noise only: never taken.
        let noise: Vec<u32> = (0..64u32).map(|i| i % 13).collect();
        let mut stream = Vec::new();
        encode(&noise, 4, &mut stream).unwrap();
        let mut decoder = HybridDecoder::new(&stream, 4, noise.len()).unwrap();
        assert_eq!(decoder.take_repeated(1), Ok(None));
        // A run cut short is reported when it opens.
        let mut decoder = HybridDecoder::new(&[0x10], 3, 8).unwrap();
        let e = decoder.take_repeated(8).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
    }

    #[test]
    fn seed_example_inside_a_bit_packed_run() {
        let mut out = [0u32; 8];
        let used = decode(&[0x03, 0b1000_1000, 0b1100_0110, 0b1111_1010], 3, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 4, 5, 6, 7]);
        assert_eq!(used, 4);
    }

    #[test]
    fn five_byte_headers_and_six() {
        // RLE run of 1 value, header 2 padded to 5 bytes.
        let mut out = [0u32; 1];
        assert_eq!(
            decode(&[0x82, 0x80, 0x80, 0x80, 0x00, 5], 3, &mut out),
            Ok(6)
        );
        assert_eq!(out, [5]);
        let err = decode(&[0x82, 0x80, 0x80, 0x80, 0x80, 0x00, 5], 3, &mut out).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Corrupt);
    }

    #[test]
    fn notes_examples() {
        // A run past the page's count stops there.
        let mut out = [0u32; 2];
        assert_eq!(decode(&[0x08, 0x05], 3, &mut out), Ok(2));
        assert_eq!(out, [5, 5]);
        // Bytes read: a bit-packed run to the end of its declared groups.
        let mut out = [0u32; 5];
        let stream = [0x05, 0x88, 0xC6, 0xFA, 0, 0, 0];
        assert_eq!(decode(&stream, 3, &mut out), Ok(7));
        // Errors when the run opens, whatever the batch.
        let mut d = HybridDecoder::new(&[0x03, 0x88], 3, 8).unwrap();
        let e = d.next_batch(&mut [0; 2]).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Truncated);
        // The encoder's output for [1, 2, 3] and twenty 5s at width 4.
        let mut values = vec![1, 2, 3];
        values.extend([5; 20]);
        let mut encoded = Vec::new();
        encode(&values, 4, &mut encoded).unwrap();
        assert_eq!(encoded, [0x03, 0x21, 0x53, 0x55, 0x55, 0x1E, 0x05]);
    }
}
