//! DELTA_BINARY_PACKED (5): INT32 and INT64 as a header, then blocks of bit-packed deltas.
//!
//! ```text
//! header: <block size> <miniblocks per block> <total value count> <first value (zigzag)>
//! block:  <min delta (zigzag)> <one width byte per miniblock> <miniblock bodies>
//! ```
//!
//! What this module accepts beyond the specification (see `NOTES-h2.md`):
//! - any block size in 1..=[`MAX_BLOCK_SIZE`] whose miniblocks hold a multiple of 8 values
//!   (so every miniblock body is whole bytes), not only multiples of 128 with miniblocks of a
//!   multiple of 32: the specification's own examples use blocks of 8;
//! - arbitrary padding bits, and arbitrary width bytes for the unneeded miniblocks of the last
//!   block (those miniblocks have no body).
//!
//! What it refuses: a block size of 0 or above [`MAX_BLOCK_SIZE`], a miniblock count of 0 or
//! not dividing the block size, a width above the type's size, a first value or min delta out
//! of the type's range (INT32), a total count above the caller's limit (before anything is
//! decoded), and any data that ends before the last needed miniblock's body (padding
//! included). Arithmetic wraps in two's complement, as the specification requires.
//!
//! Decoding keeps constant state and hands the miniblocks to the fused kernels of
//! `kernels::encodings` (a whole block per call when the batch has room for it), which unpack
//! each group of 8 deltas into registers, add the min delta and prefix-sum them there
//! (AVX2: vectors of 8 INT32 or 4 INT64 lanes; portable: one monomorphised kernel per width
//! 1..=64, unaligned 8-byte loads and lanes of 4).

use super::{
    read_uleb128, read_zigzag, write_uleb128, write_zigzag, ErrorKind, FixedWidth, ParquetError,
    ValueDecoder,
};
use crate::kernels::encodings::{
    delta_block_i32, delta_block_i64, delta_blocks_i32, delta_blocks_i64, delta_i32, delta_i64,
};
use crate::unpack::BitWidth;

const ENCODING: &str = "DELTA_BINARY_PACKED";

/// The largest block size (values per block) the decoders accept: far above what any writer
/// uses (parquet-mr and arrow-rs write 128 or 256), small enough that a miniblock body
/// (at most 2^20 values of 64 bits, 8 MiB) never overflows a `usize` even on 32-bit targets.
pub const MAX_BLOCK_SIZE: u64 = 1 << 20;

/// Values per block [`encode`] writes (parquet-mr's default; arrow-rs's for INT32).
pub const ENCODER_BLOCK_SIZE: usize = 128;

/// Miniblocks per block [`encode`] writes: 4 miniblocks of 32 values.
pub const ENCODER_MINIBLOCKS: usize = 4;

/// Values unpacked at a time: a multiple of 8, so chunks start on byte boundaries inside a
/// miniblock whatever its width, and small enough to live on the stack.
const CHUNK: usize = 64;

mod sealed {
    /// The per-type arithmetic and unpacking of DELTA_BINARY_PACKED; not nameable outside the
    /// crate, so [`super::DeltaInt`] stays implemented for `i32` and `i64` only.
    pub trait Sealed: Copy + Default + Ord {
        /// The type's size in bits: the widest miniblock width allowed.
        const BITS: u32;
        /// Parquet's name for the type, for messages.
        const TYPE_NAME: &'static str;
        /// The value of a header's 64-bit zigzag integer, when it fits the type.
        fn from_i64_checked(value: i64) -> Option<Self>;
        /// The value widened to 64 bits (sign-extended).
        fn to_i64(self) -> i64;
        /// `self - other`, wrapping.
        fn wrapping_sub(self, other: Self) -> Self;
        /// `self + n·step`, wrapping.
        fn add_steps(self, step: Self, n: usize) -> Self;
        /// `self - min` as an unsigned number of the type's width, zero-extended.
        fn offset_from(self, min: Self) -> u64;
        /// Decodes `out.len()` (at most a miniblock's) deltas of `width` bits from `src`
        /// (which holds at least `⌈out.len() / 8⌉ · width` bytes, and may hold more: the
        /// rest of the page), adds `min_delta` and prefix-sums them onto `last` into `out`;
        /// returns the new last value.
        fn decode_chunk(
            width: u32,
            src: &[u8],
            min_delta: Self,
            last: Self,
            out: &mut [Self],
        ) -> Self;
        /// Decodes a whole block's `out.len()` deltas: miniblock k (of `per_miniblock`
        /// values, the last one possibly shorter) has width `widths[k]` (each checked ≤
        /// `BITS`) and its body follows the previous one's from the start of `src` (which
        /// holds every body, and may hold more). Returns the new last value.
        #[inline]
        fn decode_block(
            widths: &[u8],
            per_miniblock: usize,
            src: &[u8],
            min_delta: Self,
            mut last: Self,
            out: &mut [Self],
        ) -> Self {
            let mut at = 0;
            for (chunk, &width) in out.chunks_mut(per_miniblock).zip(widths) {
                let body = src.get(at..).unwrap_or(&[]);
                last = Self::decode_chunk(u32::from(width), body, min_delta, last, chunk);
                at += per_miniblock / 8 * usize::from(width);
            }
            last
        }
        /// Decodes whole blocks of `miniblocks` miniblocks of `per_miniblock` values from
        /// byte `pos` of the page `data` into `out` (a multiple of the block size), reading
        /// their headers; stops before the first block the fast kernels leave to the caller
        /// (`kernels::encodings::delta_blocks_i32`). Returns the blocks decoded, the byte
        /// after them and the new last value.
        fn decode_blocks(
            data: &[u8],
            pos: usize,
            miniblocks: usize,
            per_miniblock: usize,
            last: Self,
            out: &mut [Self],
        ) -> (usize, usize, Self);
    }
}

/// An integer type DELTA_BINARY_PACKED stores: `i32` (INT32) and `i64` (INT64). Sealed.
pub trait DeltaInt: FixedWidth + sealed::Sealed {}

impl DeltaInt for i32 {}
impl DeltaInt for i64 {}

impl sealed::Sealed for i32 {
    const BITS: u32 = 32;
    const TYPE_NAME: &'static str = "INT32";
    fn from_i64_checked(value: i64) -> Option<Self> {
        i32::try_from(value).ok()
    }
    fn to_i64(self) -> i64 {
        i64::from(self)
    }
    fn wrapping_sub(self, other: Self) -> Self {
        i32::wrapping_sub(self, other)
    }
    fn add_steps(self, step: Self, n: usize) -> Self {
        // Modulo 2^32 only the low 32 bits of n matter.
        (self as u32).wrapping_add((step as u32).wrapping_mul(n as u32)) as i32
    }
    fn offset_from(self, min: Self) -> u64 {
        u64::from((self as u32).wrapping_sub(min as u32))
    }
    #[inline]
    fn decode_chunk(width: u32, src: &[u8], min: i32, last: i32, out: &mut [i32]) -> i32 {
        delta_i32(width, src, min as u32, last as u32, out) as i32
    }
    #[inline]
    fn decode_block(
        widths: &[u8],
        per_miniblock: usize,
        src: &[u8],
        min: i32,
        last: i32,
        out: &mut [i32],
    ) -> i32 {
        delta_block_i32(widths, per_miniblock, src, min as u32, last as u32, out) as i32
    }
    #[inline]
    fn decode_blocks(
        data: &[u8],
        pos: usize,
        miniblocks: usize,
        per_miniblock: usize,
        last: i32,
        out: &mut [i32],
    ) -> (usize, usize, i32) {
        let (blocks, pos, last) =
            delta_blocks_i32(data, pos, miniblocks, per_miniblock, last as u32, out);
        (blocks, pos, last as i32)
    }
}

impl sealed::Sealed for i64 {
    const BITS: u32 = 64;
    const TYPE_NAME: &'static str = "INT64";
    fn from_i64_checked(value: i64) -> Option<Self> {
        Some(value)
    }
    fn to_i64(self) -> i64 {
        self
    }
    fn wrapping_sub(self, other: Self) -> Self {
        i64::wrapping_sub(self, other)
    }
    fn add_steps(self, step: Self, n: usize) -> Self {
        (self as u64).wrapping_add((step as u64).wrapping_mul(n as u64)) as i64
    }
    fn offset_from(self, min: Self) -> u64 {
        (self as u64).wrapping_sub(min as u64)
    }
    #[inline]
    fn decode_chunk(width: u32, src: &[u8], min: i64, last: i64, out: &mut [i64]) -> i64 {
        delta_i64(width, src, min as u64, last as u64, out) as i64
    }
    #[inline]
    fn decode_block(
        widths: &[u8],
        per_miniblock: usize,
        src: &[u8],
        min: i64,
        last: i64,
        out: &mut [i64],
    ) -> i64 {
        delta_block_i64(widths, per_miniblock, src, min as u64, last as u64, out) as i64
    }
    #[inline]
    fn decode_blocks(
        data: &[u8],
        pos: usize,
        miniblocks: usize,
        per_miniblock: usize,
        last: i64,
        out: &mut [i64],
    ) -> (usize, usize, i64) {
        let (blocks, pos, last) =
            delta_blocks_i64(data, pos, miniblocks, per_miniblock, last as u64, out);
        (blocks, pos, last as i64)
    }
}

/// Reads a ULEB128 header field, naming it in the error.
fn read_field(data: &[u8], pos: &mut usize, field: &str) -> Result<u64, ParquetError> {
    read_uleb128(data, pos, ENCODING).map_err(|e| name_field(e, field))
}

fn read_signed_field(data: &[u8], pos: &mut usize, field: &str) -> Result<i64, ParquetError> {
    read_zigzag(data, pos, ENCODING).map_err(|e| name_field(e, field))
}

fn name_field(error: ParquetError, field: &str) -> ParquetError {
    ParquetError::new(
        error.encoding,
        error.kind,
        format!("{field}: {}", error.message),
    )
}

/// The page header, checked.
#[derive(Clone, Copy, Debug)]
struct Header<T> {
    block_size: usize,
    miniblocks: usize,
    values_per_miniblock: usize,
    total: usize,
    first: T,
    /// Bytes the header takes.
    len: usize,
}

fn read_header<T: DeltaInt>(data: &[u8], max_values: usize) -> Result<Header<T>, ParquetError> {
    let mut pos = 0;
    let block_size = read_field(data, &mut pos, "the block size")?;
    let miniblocks = read_field(data, &mut pos, "the miniblock count")?;
    let total = read_field(data, &mut pos, "the total value count")?;
    // First of all: a count above the caller's limit is refused whatever else the header says.
    if total > max_values as u64 {
        return Err(ParquetError::too_many(
            ENCODING,
            "the header's total value count",
            total,
            max_values as u64,
        ));
    }
    let first = read_signed_field(data, &mut pos, "the first value")?;
    if block_size == 0 || block_size > MAX_BLOCK_SIZE {
        return Err(ParquetError::corrupt(
            ENCODING,
            format!("block size {block_size} is not in 1..={MAX_BLOCK_SIZE}"),
        ));
    }
    if miniblocks == 0 || block_size % miniblocks != 0 {
        return Err(ParquetError::corrupt(
            ENCODING,
            format!("miniblock count {miniblocks} does not divide the block size {block_size}"),
        ));
    }
    let values_per_miniblock = block_size / miniblocks;
    if values_per_miniblock % 8 != 0 {
        return Err(ParquetError::corrupt(
            ENCODING,
            format!(
                "miniblocks of {values_per_miniblock} values (block size {block_size}, \
                 {miniblocks} miniblocks) are not a multiple of 8 values"
            ),
        ));
    }
    let first = T::from_i64_checked(first).ok_or_else(|| {
        ParquetError::corrupt(
            ENCODING,
            format!("first value {first} does not fit {}", T::TYPE_NAME),
        )
    })?;
    // All three are ≤ MAX_BLOCK_SIZE or ≤ max_values: the casts are exact.
    Ok(Header {
        block_size: block_size as usize,
        miniblocks: miniblocks as usize,
        values_per_miniblock: values_per_miniblock as usize,
        total: total as usize,
        first,
        len: pos,
    })
}

/// Reads a block's min delta at `*pos`, checking it fits the type.
fn read_min_delta<T: DeltaInt>(
    data: &[u8],
    pos: &mut usize,
    block: usize,
) -> Result<T, ParquetError> {
    // The field's name is formatted only on an error: this runs once per block.
    let min = read_zigzag(data, pos, ENCODING)
        .map_err(|e| name_field(e, &format!("block {block}'s min delta")))?;
    T::from_i64_checked(min).ok_or_else(|| {
        ParquetError::corrupt(
            ENCODING,
            format!(
                "block {block}'s min delta {min} does not fit {}",
                T::TYPE_NAME
            ),
        )
    })
}

/// A needed miniblock's width, checked against the type's size.
fn check_width<T: DeltaInt>(
    width: u8,
    block: usize,
    miniblock: usize,
) -> Result<u32, ParquetError> {
    let width = u32::from(width);
    if width > T::BITS {
        return Err(ParquetError::corrupt(
            ENCODING,
            format!(
                "block {block} miniblock {miniblock}: bit width {width} is above {}'s {} bits",
                T::TYPE_NAME,
                T::BITS
            ),
        ));
    }
    Ok(width)
}

fn truncated_at(what: String, needed_end: usize, len: usize) -> ParquetError {
    ParquetError::truncated(
        ENCODING,
        format!("{what} ends at byte {needed_end}, past the data's {len} bytes"),
    )
}

/// Where a DELTA_BINARY_PACKED stream at the start of `data` ends: `(values, bytes)`, found by
/// walking the header, each block's min delta and the widths of its needed miniblocks, without
/// decoding a value or allocating. Errors as the decoder's, for everything but the bits of the
/// miniblock bodies (which any value is valid for).
///
/// DELTA_LENGTH_BYTE_ARRAY's bytes start at the end of its lengths stream, and
/// DELTA_BYTE_ARRAY's suffixes at the end of its prefix lengths stream.
pub fn stream_len<T: DeltaInt>(
    data: &[u8],
    max_values: usize,
) -> Result<(usize, usize), ParquetError> {
    let header = read_header::<T>(data, max_values)?;
    let mut pos = header.len;
    let mut deltas_left = header.total.saturating_sub(1);
    let mut block = 0;
    // Each block takes at least 1 + miniblocks bytes, so this loop runs at most
    // `data.len()` times whatever the counts say.
    while deltas_left > 0 {
        read_min_delta::<T>(data, &mut pos, block)?;
        // Saturating: on a 32-bit target a page near 4 GiB must not wrap past its end.
        let widths_end = pos.saturating_add(header.miniblocks);
        let widths = data.get(pos..widths_end).ok_or_else(|| {
            truncated_at(
                format!("block {block}'s miniblock widths"),
                widths_end,
                data.len(),
            )
        })?;
        pos = widths_end;
        let mut in_block = deltas_left.min(header.block_size);
        deltas_left -= in_block;
        // Only needed miniblocks have a body; the widths of the others are ignored.
        for (miniblock, &width) in widths.iter().enumerate() {
            if in_block == 0 {
                break;
            }
            let width = check_width::<T>(width, block, miniblock)?;
            // values_per_miniblock is a multiple of 8: whole bytes.
            pos = pos.saturating_add(header.values_per_miniblock / 8 * width as usize);
            if pos > data.len() {
                return Err(truncated_at(
                    format!("block {block} miniblock {miniblock} (width {width})"),
                    pos,
                    data.len(),
                ));
            }
            in_block -= in_block.min(header.values_per_miniblock);
        }
        block += 1;
    }
    Ok((header.total, pos))
}

/// The incremental decoder of a DELTA_BINARY_PACKED page of `i32` or `i64`.
///
/// State is constant-size: the header's fields, the current block and miniblock, and one
/// chunk of decoded values for batches that end inside a chunk.
#[derive(Clone, Debug)]
pub struct DeltaBinaryPackedDecoder<'a, T: DeltaInt> {
    data: &'a [u8],
    block_size: usize,
    miniblocks: usize,
    values_per_miniblock: usize,
    total: usize,
    /// Values not yet handed out (decoded into `buffer` or not decoded yet).
    remaining: usize,
    /// Whether the header's first value is still to be handed out.
    first_pending: bool,
    /// The last value decoded: the base of the next delta.
    last: T,
    /// Where the next block starts: just past the body of the last miniblock opened.
    pos: usize,
    /// Deltas not yet assigned to a block.
    deltas_left: usize,
    /// The current block's index, min delta, width bytes, next miniblock and deltas left.
    block: usize,
    min_delta: T,
    widths_at: usize,
    next_miniblock: usize,
    block_deltas_left: usize,
    /// The current miniblock's width, deltas left in it, and the byte where its next chunk
    /// starts (chunks start at multiples of 8 values, so on byte boundaries).
    width: u32,
    miniblock_left: usize,
    cursor: usize,
    /// Decoded values of a chunk a batch ended inside: `buffer[buffer_pos..buffer_len]`.
    buffer: [T; CHUNK],
    buffer_pos: usize,
    buffer_len: usize,
}

impl<'a, T: DeltaInt> DeltaBinaryPackedDecoder<'a, T> {
    /// Reads the header at the start of `data`. A total count above `max_values` is
    /// [`ErrorKind::TooMany`], refused before anything else; a bad block layout or a first
    /// value out of the type's range is [`ErrorKind::Corrupt`].
    pub fn new(data: &'a [u8], max_values: usize) -> Result<Self, ParquetError> {
        let header = read_header::<T>(data, max_values)?;
        Ok(DeltaBinaryPackedDecoder {
            data,
            block_size: header.block_size,
            miniblocks: header.miniblocks,
            values_per_miniblock: header.values_per_miniblock,
            total: header.total,
            remaining: header.total,
            first_pending: header.total > 0,
            last: header.first,
            pos: header.len,
            deltas_left: header.total.saturating_sub(1),
            block: 0,
            min_delta: T::default(),
            widths_at: header.len,
            next_miniblock: 0,
            block_deltas_left: 0,
            width: 0,
            miniblock_left: 0,
            cursor: header.len,
            buffer: [T::default(); CHUNK],
            buffer_pos: 0,
            buffer_len: 0,
        })
    }

    /// The values the page holds, as its header says.
    pub fn total_values(&self) -> usize {
        self.total
    }

    /// Bytes of the stream passed so far (up to the end of the current miniblock's body): once
    /// [`ValueDecoder::remaining`] is 0, the stream's length (the header, then every needed
    /// miniblock's body with its padding), as [`stream_len`] says.
    pub fn bytes_consumed(&self) -> usize {
        self.pos
    }

    /// Reads the next block's min delta and widths.
    fn open_block(&mut self) -> Result<(), ParquetError> {
        if self.block_deltas_left != 0 || self.deltas_left == 0 {
            return Err(ParquetError::corrupt(
                ENCODING,
                "decoder state: no block to open",
            ));
        }
        let mut pos = self.pos;
        self.min_delta = read_min_delta::<T>(self.data, &mut pos, self.block)?;
        let widths_end = pos.saturating_add(self.miniblocks);
        if widths_end > self.data.len() {
            return Err(truncated_at(
                format!("block {}'s miniblock widths", self.block),
                widths_end,
                self.data.len(),
            ));
        }
        self.widths_at = pos;
        self.pos = widths_end;
        self.next_miniblock = 0;
        self.block_deltas_left = self.deltas_left.min(self.block_size);
        self.deltas_left -= self.block_deltas_left;
        Ok(())
    }

    /// Opens the next needed miniblock (and its block when the last one is done).
    fn open_miniblock(&mut self) -> Result<(), ParquetError> {
        if self.block_deltas_left == 0 {
            self.open_block()?;
        }
        let miniblock = self.next_miniblock;
        let width = check_width::<T>(self.data[self.widths_at + miniblock], self.block, miniblock)?;
        let body_end = self
            .pos
            .saturating_add(self.values_per_miniblock / 8 * width as usize);
        if body_end > self.data.len() {
            return Err(truncated_at(
                format!("block {} miniblock {miniblock} (width {width})", self.block),
                body_end,
                self.data.len(),
            ));
        }
        self.width = width;
        self.cursor = self.pos;
        self.pos = body_end;
        self.miniblock_left = self.block_deltas_left.min(self.values_per_miniblock);
        self.block_deltas_left -= self.miniblock_left;
        self.next_miniblock += 1;
        if self.block_deltas_left == 0 {
            // The next miniblock opened will be in a new block.
            self.block += 1;
        }
        Ok(())
    }

    /// Opens the next block and decodes all of it into `out` (exactly its deltas), after
    /// checking every needed miniblock's width and body as [`Self::open_miniblock`] does.
    fn decode_block(&mut self, out: &mut [T]) -> Result<(), ParquetError> {
        self.open_block()?;
        let needed = out.len().div_ceil(self.values_per_miniblock);
        let mut end = self.pos;
        for miniblock in 0..needed {
            let width =
                check_width::<T>(self.data[self.widths_at + miniblock], self.block, miniblock)?;
            end = end.saturating_add(self.values_per_miniblock / 8 * width as usize);
            if end > self.data.len() {
                return Err(truncated_at(
                    format!("block {} miniblock {miniblock} (width {width})", self.block),
                    end,
                    self.data.len(),
                ));
            }
        }
        let widths = &self.data[self.widths_at..self.widths_at + needed];
        self.last = T::decode_block(
            widths,
            self.values_per_miniblock,
            &self.data[self.pos..],
            self.min_delta,
            self.last,
            out,
        );
        self.pos = end;
        self.cursor = end;
        self.next_miniblock = needed;
        self.block_deltas_left = 0;
        self.miniblock_left = 0;
        self.block += 1;
        Ok(())
    }

    /// Decodes the next chunk (the rest of the miniblock, or [`CHUNK`] values of it) into the
    /// front of `out` when it has room, else into the buffer. Returns the chunk's length and
    /// whether it went to the buffer.
    #[inline]
    fn decode_next_chunk(&mut self, out: &mut [T]) -> Result<(usize, bool), ParquetError> {
        if self.miniblock_left == 0 {
            self.open_miniblock()?;
        }
        // The whole rest of the miniblock when `out` has room (one kernel call), else a
        // chunk, which goes to the buffer if `out` is shorter still.
        let n = if out.len() >= self.miniblock_left {
            self.miniblock_left
        } else {
            self.miniblock_left.min(CHUNK)
        };
        // The chunk's bytes and every byte after them: the SIMD unpackers load 16 bytes at a
        // time and fall back to a slower tail where a load would pass the slice's end, so a
        // slice ending with the miniblock would send its last groups to that tail.
        let src = &self.data[self.cursor..];
        let to_buffer = out.len() < n;
        let target = if to_buffer {
            &mut self.buffer[..n]
        } else {
            &mut out[..n]
        };
        self.last = T::decode_chunk(self.width, src, self.min_delta, self.last, target);
        // n is a multiple of 8 unless it ends the page: the cursor stays on a byte boundary.
        self.cursor += n / 8 * self.width as usize;
        self.miniblock_left -= n;
        if to_buffer {
            self.buffer_pos = 0;
            self.buffer_len = n;
        }
        Ok((n, to_buffer))
    }
}

impl<T: DeltaInt> ValueDecoder for DeltaBinaryPackedDecoder<'_, T> {
    type Value = T;

    fn remaining(&self) -> usize {
        self.remaining
    }

    fn next_batch(&mut self, out: &mut [T]) -> Result<usize, ParquetError> {
        let want = out.len().min(self.remaining);
        let mut done = 0;
        if want > 0 && self.first_pending {
            out[0] = self.last;
            self.first_pending = false;
            done = 1;
        }
        let from_buffer = (want - done).min(self.buffer_len - self.buffer_pos);
        out[done..done + from_buffer]
            .copy_from_slice(&self.buffer[self.buffer_pos..self.buffer_pos + from_buffer]);
        self.buffer_pos += from_buffer;
        done += from_buffer;
        while done < want {
            // Whole blocks straight into `out`: a run of them in one kernel call, which
            // reads their headers (and leaves any block it does not take, such as the last
            // ones of the page, to the call after it), else one block per call.
            if self.miniblock_left == 0 && self.block_deltas_left == 0 && self.deltas_left > 0 {
                let blocks = (want - done).min(self.deltas_left) / self.block_size;
                if blocks > 0 {
                    let n = blocks * self.block_size;
                    let (decoded, pos, last) = T::decode_blocks(
                        self.data,
                        self.pos,
                        self.miniblocks,
                        self.values_per_miniblock,
                        self.last,
                        &mut out[done..done + n],
                    );
                    if decoded > 0 {
                        self.last = last;
                        self.pos = pos;
                        self.cursor = pos;
                        self.deltas_left -= decoded * self.block_size;
                        self.block += decoded;
                        done += decoded * self.block_size;
                        continue;
                    }
                }
                let in_block = self.deltas_left.min(self.block_size);
                if want - done >= in_block {
                    self.decode_block(&mut out[done..done + in_block])?;
                    done += in_block;
                    continue;
                }
            }
            let (n, buffered) = self.decode_next_chunk(&mut out[done..want])?;
            if buffered {
                let take = want - done;
                out[done..want].copy_from_slice(&self.buffer[..take]);
                self.buffer_pos = take;
                done = want;
            } else {
                done += n;
            }
        }
        self.remaining -= want;
        Ok(want)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let want = n.min(self.remaining);
        let mut done = 0;
        if want > 0 && self.first_pending {
            self.first_pending = false;
            done = 1;
        }
        let from_buffer = (want - done).min(self.buffer_len - self.buffer_pos);
        self.buffer_pos += from_buffer;
        done += from_buffer;
        while done < want {
            if self.miniblock_left == 0 {
                self.open_miniblock()?;
            }
            let left = want - done;
            if self.width == 0 && left >= self.miniblock_left {
                // The rest of a width-0 miniblock: one multiply, nothing to unpack.
                self.last = self.last.add_steps(self.min_delta, self.miniblock_left);
                done += self.miniblock_left;
                self.miniblock_left = 0;
                continue;
            }
            // Decode into the buffer (an empty `out` forces it) and keep what is not skipped.
            let (chunk, _) = self.decode_next_chunk(&mut [])?;
            let take = chunk.min(left);
            self.buffer_pos = take;
            done += take;
        }
        self.remaining -= want;
        Ok(want)
    }
}

/// Decodes a whole DELTA_BINARY_PACKED page into the front of `out`; `out.len()` is the
/// most values the page may hold (more is [`ErrorKind::TooMany`]). Returns `(values, bytes)`:
/// the header's count and the stream's length.
pub fn decode<T: DeltaInt>(data: &[u8], out: &mut [T]) -> Result<(usize, usize), ParquetError> {
    let mut decoder = DeltaBinaryPackedDecoder::<T>::new(data, out.len())?;
    let total = decoder.total_values();
    let decoded = decoder.next_batch(&mut out[..total])?;
    if decoded != total {
        return Err(ParquetError::new(
            ENCODING,
            ErrorKind::Corrupt,
            format!("decoded {decoded} of the header's {total} values"),
        ));
    }
    Ok((total, decoder.bytes_consumed()))
}

/// Appends `values` as DELTA_BINARY_PACKED: blocks of [`ENCODER_BLOCK_SIZE`] values in
/// [`ENCODER_MINIBLOCKS`] miniblocks of 32, the widths of unneeded miniblocks 0, padding bits
/// 0 (parquet-mr's layout; for INT32 also arrow-rs's, byte for byte).
pub fn encode<T: DeltaInt>(values: &[T], out: &mut Vec<u8>) {
    encode_iter(values.len(), values.iter().copied(), out);
}

/// [`encode`] of an iterator that yields exactly `count` values, without collecting them
/// (the byte-array encoders' lengths).
pub(crate) fn encode_iter<T: DeltaInt>(
    count: usize,
    mut values: impl Iterator<Item = T>,
    out: &mut Vec<u8>,
) {
    write_uleb128(out, ENCODER_BLOCK_SIZE as u64);
    write_uleb128(out, ENCODER_MINIBLOCKS as u64);
    write_uleb128(out, count as u64);
    let Some(first) = values.next() else {
        write_zigzag(out, 0);
        return;
    };
    write_zigzag(out, first.to_i64());
    let mut deltas = [T::default(); ENCODER_BLOCK_SIZE];
    let mut in_block = 0;
    let mut previous = first;
    for value in values {
        deltas[in_block] = value.wrapping_sub(previous);
        previous = value;
        in_block += 1;
        if in_block == ENCODER_BLOCK_SIZE {
            encode_block(&deltas, out);
            in_block = 0;
        }
    }
    if in_block > 0 {
        encode_block(&deltas[..in_block], out);
    }
}

const MINIBLOCK_VALUES: usize = ENCODER_BLOCK_SIZE / ENCODER_MINIBLOCKS;

fn encode_block<T: DeltaInt>(deltas: &[T], out: &mut Vec<u8>) {
    let min = deltas.iter().copied().min().unwrap_or_default();
    write_zigzag(out, min.to_i64());
    let widths_at = out.len();
    out.extend_from_slice(&[0; ENCODER_MINIBLOCKS]);
    for (miniblock, values) in deltas.chunks(MINIBLOCK_VALUES).enumerate() {
        // Padding values are 0, i.e. deltas equal to the min.
        let mut offsets = [0u64; MINIBLOCK_VALUES];
        for (o, &d) in offsets.iter_mut().zip(values) {
            *o = d.offset_from(min);
        }
        let max = offsets.iter().copied().max().unwrap_or(0);
        let width = 64 - max.leading_zeros();
        out[widths_at + miniblock] = width as u8;
        pack_miniblock(width, &offsets, out);
    }
}

/// Appends 32 values of `width` bits, LSB-first.
fn pack_miniblock(width: u32, values: &[u64; MINIBLOCK_VALUES], out: &mut Vec<u8>) {
    let at = out.len();
    if let Some(bits) = BitWidth::new(width) {
        let mut narrow = [0u32; MINIBLOCK_VALUES];
        for (n, &v) in narrow.iter_mut().zip(values) {
            *n = v as u32;
        }
        out.resize(at + MINIBLOCK_VALUES / 8 * width as usize, 0);
        crate::unpack::pack(bits, false, bits.mask(), &narrow, &mut out[at..]);
    } else if width > 32 {
        let mut window: u128 = 0;
        let mut bits = 0;
        for &v in values {
            window |= u128::from(v) << bits;
            bits += width;
            while bits >= 8 {
                out.push(window as u8);
                window >>= 8;
                bits -= 8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Values whose deltas take every width class: runs of equal deltas (width 0), small
    /// gaps, INT64 deltas of 33..=64 bits and the extremes (wrapping deltas).
    fn values_i64() -> impl Strategy<Value = Vec<i64>> {
        let value = prop_oneof![
            Just(i64::MIN),
            Just(i64::MAX),
            Just(0i64),
            any::<i64>(),
            (any::<i64>(), 0u32..64).prop_map(|(v, s)| v >> s),
        ];
        prop_oneof![
            proptest::collection::vec(value, 0..700),
            (any::<i64>(), 0i64..3, 0usize..700)
                .prop_map(|(start, step, n)| (0..n as i64).map(|i| start + i * step).collect()),
        ]
    }

    /// Decodes `data` in batches of the given sizes (cycled), through the chunk path and
    /// the whole-block path.
    fn decode_in_batches<T: DeltaInt>(
        data: &[u8],
        batches: &[usize],
    ) -> Result<Vec<T>, ParquetError> {
        let mut decoder = DeltaBinaryPackedDecoder::<T>::new(data, usize::MAX)?;
        let mut out = vec![T::default(); decoder.total_values()];
        let mut done = 0;
        for &batch in batches.iter().cycle() {
            if done == out.len() {
                break;
            }
            let end = (done + batch.max(1)).min(out.len());
            done += decoder.next_batch(&mut out[done..end])?;
        }
        Ok(out)
    }

    proptest! {
        /// INT64 pages of every delta width round-trip, decoded whole and in batches (the
        /// chunk kernels and the block kernels); every truncation is an error, not a panic.
        #[test]
        fn int64_pages_of_every_width_round_trip(values in values_i64(), batches in proptest::collection::vec(1usize..300, 1..4)) {
            let mut data = Vec::new();
            encode(&values, &mut data);
            let mut out = vec![0i64; values.len()];
            prop_assert_eq!(decode(&data, &mut out).unwrap(), (values.len(), data.len()));
            prop_assert_eq!(&out, &values);
            prop_assert_eq!(decode_in_batches::<i64>(&data, &batches).unwrap(), values.clone());
            for cut in [data.len().saturating_sub(1), data.len() / 2, data.len() * 3 / 4] {
                if cut < data.len() && values.len() > 1 {
                    prop_assert!(decode(&data[..cut], &mut out).is_err());
                }
            }
        }

        /// The same for INT32 (widths 0..=32, min deltas at the extremes).
        #[test]
        fn int32_pages_round_trip_in_batches(values in proptest::collection::vec(prop_oneof![Just(i32::MIN), Just(i32::MAX), any::<i32>(), -5i32..5], 0..700), batches in proptest::collection::vec(1usize..300, 1..4)) {
            let mut data = Vec::new();
            encode(&values, &mut data);
            let mut out = vec![0i32; values.len()];
            prop_assert_eq!(decode(&data, &mut out).unwrap(), (values.len(), data.len()));
            prop_assert_eq!(&out, &values);
            prop_assert_eq!(decode_in_batches::<i32>(&data, &batches).unwrap(), values);
        }
    }

    /// A hand-made INT64 page: one block of 4 miniblocks of 8 with widths 64, 0, 33 and 57,
    /// the min delta i64::MIN (every delta wraps), against a serial sum.
    #[test]
    fn wide_miniblocks_with_the_extreme_min_delta() {
        let mut data = Vec::new();
        write_uleb128(&mut data, 32);
        write_uleb128(&mut data, 4);
        write_uleb128(&mut data, 33);
        write_zigzag(&mut data, -7);
        write_zigzag(&mut data, i64::MIN);
        data.extend_from_slice(&[64, 0, 33, 57]);
        let body: Vec<u8> = (0..(64 + 33 + 57) as u32)
            .map(|i| (i * 151 + 3) as u8)
            .collect();
        data.extend_from_slice(&body);
        let mut expected = vec![-7i64];
        let mut at = 0;
        for width in [64usize, 0, 33, 57] {
            for i in 0..8 {
                let delta = (0..width).fold(0u64, |v, b| {
                    let k = i * width + b;
                    v | u64::from((body[at + k / 8] >> (k % 8)) & 1) << b
                });
                let last = *expected.last().unwrap();
                expected.push(last.wrapping_add(i64::MIN).wrapping_add(delta as i64));
            }
            at += width;
        }
        let mut out = vec![0i64; 33];
        assert_eq!(decode(&data, &mut out).unwrap(), (33, data.len()));
        assert_eq!(out, expected);
        assert_eq!(
            decode_in_batches::<i64>(&data, &[3, 8, 1]).unwrap(),
            expected
        );
        // Cut inside the 57-bit miniblock: an error naming it.
        let err = decode(&data[..data.len() - 1], &mut out).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Truncated, "{err}");
        // A width of 65 is refused.
        let mut bad = data.clone();
        let widths_at = data.len() - body.len() - 4;
        bad[widths_at + 2] = 65;
        assert_eq!(decode(&bad, &mut out).unwrap_err().kind, ErrorKind::Corrupt);
    }
}
