//! Source-1 decoders. Each pushes values to a [`Consumer`] a block or a run at a time: packed
//! arrays and Parquet bit-packed runs as blocks of still-packed bits (the consumer scans them
//! in place or unpacks them), Parquet RLE runs as `(value, count)` fills (never expanded into
//! a buffer here).

use crate::status::Status;
use crate::unpack::{unpack, BitWidth};

/// Elements unpacked per block: a multiple of 8, so every block starts on a byte boundary in
/// both packed orders and in Parquet bit-packed runs, and small enough to stay in L1.
pub(crate) const BLOCK: usize = 1024;

/// A block of [`BLOCK`] elements, zeroed when first used: most calls hand their values to
/// kernels that never touch it, and zeroing 1–4 KiB per call cost more than decoding a
/// short array.
pub(crate) struct LazyBlock<T>(Option<[T; BLOCK]>);

impl<T: Copy + Default> LazyBlock<T> {
    /// A block not yet zeroed.
    pub(crate) const fn new() -> Self {
        LazyBlock(None)
    }

    /// Its first `len` (≤ [`BLOCK`]) elements.
    #[inline]
    pub(crate) fn first(&mut self, len: usize) -> &mut [T] {
        &mut self.0.get_or_insert_with(|| [T::default(); BLOCK])[..len]
    }
}

impl LazyBlock<u32> {
    /// The `count` (≤ [`BLOCK`]) values packed at `width` bits from the start of `src`,
    /// unpacked into the block.
    #[inline]
    pub(crate) fn unpack(
        &mut self,
        width: BitWidth,
        big_endian: bool,
        src: &[u8],
        count: usize,
    ) -> &[u32] {
        let values = self.first(count);
        unpack(width, big_endian, src, values);
        values
    }
}

/// Receives decoded source-1 values in stream order.
pub(crate) trait Consumer {
    /// The next `values.len()` values.
    fn values(&mut self, values: &[u32]) -> Result<(), Status>;
    /// The next `count` values, all equal to `value`.
    fn run(&mut self, value: u32, count: u64) -> Result<(), Status>;
    /// The next `count` values (at most [`BLOCK`]), still packed at `width` bits from the
    /// start of `src` (which holds them all). Consumers that can work on packed bits (scans,
    /// whole-block extracts) override this; the default unpacks into `scratch`.
    #[inline]
    fn packed(
        &mut self,
        src: &[u8],
        width: BitWidth,
        big_endian: bool,
        count: usize,
        scratch: &mut LazyBlock<u32>,
    ) -> Result<(), Status> {
        self.values(scratch.unpack(width, big_endian, src, count))
    }
    /// The next `count` values (a multiple of 8, any number), still packed at `width` bits
    /// from the start of `src` (which holds them all), taken in one go when the consumer can
    /// (one kernel over the whole span, straight into its destination): `false` when they
    /// must come in blocks instead.
    #[inline]
    fn packed_span(
        &mut self,
        _src: &[u8],
        _width: BitWidth,
        _big_endian: bool,
        _count: u64,
    ) -> bool {
        false
    }
    /// The first `count` values of the RLE/bit-packed hybrid stream `data` (no bit-width
    /// byte) of `width` bits, taken in one go while the stream is well-formed when the
    /// consumer can (straight into its destination): `Some((values, bytes))` taken and
    /// consumed, a prefix that stops before the end or a run to report an error on; `None`
    /// when they must come run by run instead.
    #[inline]
    fn hybrid_span(
        &mut self,
        _data: &[u8],
        _width: BitWidth,
        _count: u64,
    ) -> Option<(usize, usize)> {
        None
    }
}

/// Decodes elements `start..end` of a packed array (`start` a multiple of 8). The caller has
/// checked that `data` holds ⌈end·width/8⌉ bytes.
pub(crate) fn decode_packed<C: Consumer>(
    data: &[u8],
    width: BitWidth,
    big_endian: bool,
    start: u64,
    end: u64,
    consumer: &mut C,
) -> Result<(), Status> {
    debug_assert_eq!(start % 8, 0);
    // Exact: `start` is a multiple of 8, so it starts at byte start·width/8.
    let first_byte = (start * u64::from(width.get()) / 8) as usize;
    let src = data.get(first_byte..).unwrap_or(&[]);
    // At most `num_input_elements`, a u32: it fits a usize.
    let count = usize::try_from(end - start).unwrap_or(usize::MAX);
    push_packed(
        src,
        width,
        big_endian,
        count,
        consumer,
        &mut LazyBlock::new(),
    )
}

/// Pushes the `count` values packed at `width` bits from the start of `src` to `consumer`:
/// their whole groups of 8 in one go when it can take them so, the rest (or all) in blocks
/// with `block` as the consumer's scratch.
fn push_packed<C: Consumer>(
    src: &[u8],
    width: BitWidth,
    big_endian: bool,
    count: usize,
    consumer: &mut C,
    block: &mut LazyBlock<u32>,
) -> Result<(), Status> {
    let span = count / 8 * 8;
    let mut done = 0;
    if span > 0 && consumer.packed_span(src, width, big_endian, span as u64) {
        done = span;
    }
    while done < count {
        let len = (count - done).min(BLOCK);
        // Blocks start on group boundaries: byte done/8·width.
        let from = src.get(done / 8 * width.get() as usize..).unwrap_or(&[]);
        consumer.packed(from, width, big_endian, len, block)?;
        done += len;
    }
    Ok(())
}

/// The number of bytes of a Parquet RLE run value for a given bit width: ⌈width/8⌉.
pub(crate) fn rle_value_bytes(width: u32) -> usize {
    width.div_ceil(8) as usize
}

/// Reads a run header of the RLE/bit-packed hybrid (ULEB128, at most 4 bytes) at `*pos` and
/// advances `*pos` past it. Truncated: 232 `SRC_IS_SHORT_ERR`. A 4th byte with its
/// continuation bit set: 220 `PRLE_FORMAT_ERR` (the accelerator's limit).
pub fn read_run_header(data: &[u8], pos: &mut usize) -> Result<u32, Status> {
    let mut value = 0u32;
    for i in 0..4 {
        let byte = *data.get(*pos + i).ok_or(Status::SRC_IS_SHORT_ERR)?;
        value |= u32::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            *pos += i + 1;
            return Ok(value);
        }
    }
    Err(Status::PRLE_FORMAT_ERR)
}

/// Decodes the first `count` values of an RLE/bit-packed hybrid stream (without the bit-width
/// byte) of `width` bits, 0..=32 (0: every value is 0 and runs carry no payload bytes).
///
/// Errors: 232 when the stream ends before `count` values (a truncated header, run value, or
/// bit-packed group holding a wanted value), 220 for a header longer than 4 bytes. Bytes after
/// the last wanted value are never read.
pub(crate) fn decode_hybrid<C: Consumer>(
    data: &[u8],
    width: u32,
    count: u64,
    consumer: &mut C,
) -> Result<(), Status> {
    let bit_width = BitWidth::new(width);
    let mut pos = 0usize;
    let mut remaining = count;
    // In one go when the consumer can take the values so; from where that stops (the end,
    // or a run to report an error on), run by run below.
    if let Some((done, used)) = bit_width.and_then(|bw| consumer.hybrid_span(data, bw, count)) {
        pos = used;
        remaining -= done as u64;
    }
    let mut block = LazyBlock::new();
    while remaining > 0 {
        // At most `count`, a u32 element count: it fits a usize.
        let wanted = usize::try_from(remaining).unwrap_or(usize::MAX);
        match read_run(data, &mut pos, width, wanted)? {
            Piece::Fill { value, count } => {
                if count > 0 {
                    consumer.run(value, count as u64)?;
                }
                remaining -= count as u64;
            }
            Piece::Packed { src, count } => {
                match bit_width {
                    Some(bw) => push_packed(src, bw, false, count, consumer, &mut block)?,
                    None if count > 0 => consumer.run(0, count as u64)?,
                    None => {}
                }
                remaining -= count as u64;
            }
        }
    }
    Ok(())
}

/// Reads the run at `*pos` of a hybrid stream of `width` (0..=32) bits and moves `*pos` past
/// what it uses: the run's first `wanted` values at most, as a fill or as the bit-packed
/// groups holding them. Errors as [`decode_hybrid`]'s (`*pos` then stays where it was).
#[inline(always)]
fn read_run<'a>(
    data: &'a [u8],
    pos: &mut usize,
    width: u32,
    wanted: usize,
) -> Result<Piece<'a>, Status> {
    if let Some(fill) = short_rle_run(data, pos, width, wanted) {
        return Ok(fill);
    }
    let mut at = *pos;
    let header = read_run_header(data, &mut at)?;
    let run_len = (header >> 1) as usize;
    let piece = if header & 1 == 0 {
        let value_bytes = rle_value_bytes(width);
        let bytes = data
            .get(at..at + value_bytes)
            .ok_or(Status::SRC_IS_SHORT_ERR)?;
        at += value_bytes;
        // Not masked to the width: the accelerator keeps all ⌈width/8⌉ bytes (D5).
        let value = bytes
            .iter()
            .rev()
            .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
        Piece::Fill {
            value,
            count: run_len.min(wanted),
        }
    } else {
        let take = run_len.saturating_mul(8).min(wanted);
        // Every group that holds a wanted value must be whole.
        let needed = take.div_ceil(8) * width as usize;
        let src = data.get(at..at + needed).ok_or(Status::SRC_IS_SHORT_ERR)?;
        at += needed;
        Piece::Packed { src, count: take }
    };
    *pos = at;
    Ok(piece)
}

/// [`read_run`] of an RLE run that [`parse_short_rle_run`] reads (most RLE runs). `None`
/// (nothing consumed) for the others.
#[inline(always)]
fn short_rle_run<'a>(data: &[u8], pos: &mut usize, width: u32, wanted: usize) -> Option<Piece<'a>> {
    let (used, value, run_len) = parse_short_rle_run(data, *pos, width)?;
    *pos += used;
    Some(Piece::Fill {
        value,
        count: run_len.min(wanted),
    })
}

/// The RLE run at `pos` when its header has 1 or 2 bytes and `data` has 8 bytes from `pos`:
/// (its header and value bytes, its value, its length), read from one 8-byte load without a
/// branch on the header's length, which runs of random lengths mispredict (RLE runs of
/// 8..=200 values: +8–30 % from L1 in the AVX-512 walk). `None` for any other run.
#[inline(always)]
fn parse_short_rle_run(data: &[u8], pos: usize, width: u32) -> Option<(usize, u32, usize)> {
    let word = u64::from_le_bytes(*data.get(pos..)?.first_chunk::<8>()?);
    if word & 0x8080 == 0x8080 {
        // A header of 3 or more bytes.
        return None;
    }
    // 1 or 2 header bytes: the first byte's continuation bit.
    let second = (word >> 7) & 1;
    let header_len = 1 + second as usize;
    let header = (word & 0x7F) | ((word >> 1) & 0x3F80 & second.wrapping_neg());
    if header & 1 != 0 {
        return None;
    }
    // ⌈width/8⌉ ≤ 4 bytes after the header, inside the 8 loaded; not masked to the width
    // (D5).
    let value_bytes = rle_value_bytes(width);
    let value = ((word >> (8 * header_len)) & ((1 << (8 * value_bytes)) - 1)) as u32;
    Some((header_len + value_bytes, value, (header >> 1) as usize))
}

/// A run of a hybrid stream (its wanted values), as [`read_run`] reads it.
pub(crate) enum Piece<'a> {
    /// `count` copies of `value` (an RLE run's ⌈width/8⌉ value bytes, not masked).
    Fill { value: u32, count: usize },
    /// `count` values packed LSB first at the stream's width from the start of `src`, which
    /// holds the ⌈count/8⌉ groups they are in.
    Packed { src: &'a [u8], count: usize },
}

/// The runs holding the first `count` values of a hybrid stream (without the bit-width byte)
/// of `width` bits (1..=32), each as the number of values before it and its wanted values,
/// as [`decode_hybrid`] reads them; ends after `count` values, or before the first run that
/// is not whole (a truncated header, value or group) or has a header over 4 bytes.
/// [`HybridRuns::walked`] then says how far it got: `decode_hybrid` goes on from there and
/// reports the error. A cursor (not a callback) so that the SIMD kernel's loop holds the
/// parsing and the writing with no call between; not an `Iterator`, whose `for` loops over
/// `&mut runs` went through `<&mut I as Iterator>::next`, which LLVM left a call per run.
/// (Only the AVX-512 kernel walks runs so.)
#[cfg(target_arch = "x86_64")]
pub(crate) struct HybridRuns<'a> {
    data: &'a [u8],
    width: u32,
    count: usize,
    done: usize,
    pos: usize,
}

#[cfg(target_arch = "x86_64")]
impl<'a> HybridRuns<'a> {
    pub(crate) fn new(data: &'a [u8], width: u32, count: usize) -> HybridRuns<'a> {
        HybridRuns {
            data,
            width,
            count,
            done: 0,
            pos: 0,
        }
    }

    /// (values, bytes) handed over so far.
    pub(crate) fn walked(&self) -> (usize, usize) {
        (self.done, self.pos)
    }

    /// The next run when it is a nonempty RLE run that [`parse_short_rle_run`] reads and
    /// that ends at least `spare` values before the `count` wanted: (values before it, its
    /// value, its length). `None` (nothing consumed) for any other run, which
    /// [`HybridRuns::next_run`] reads: the fast path of a stream of RLE runs, with no case
    /// for a run cut short at the end.
    #[inline(always)]
    pub(crate) fn next_short_fill(&mut self, spare: usize) -> Option<(usize, u32, usize)> {
        let (used, value, run_len) = parse_short_rle_run(self.data, self.pos, self.width)?;
        if run_len == 0 || self.done + run_len + spare > self.count {
            return None;
        }
        let before = self.done;
        self.done += run_len;
        self.pos += used;
        Some((before, value, run_len))
    }

    /// The next run with wanted values: the number of values before it, and the run.
    #[inline(always)]
    pub(crate) fn next_run(&mut self) -> Option<(usize, Piece<'a>)> {
        while self.done < self.count {
            let before = self.done;
            let mut pos = self.pos;
            let piece = read_run(self.data, &mut pos, self.width, self.count - before).ok()?;
            self.pos = pos;
            let (Piece::Fill { count, .. } | Piece::Packed { count, .. }) = piece;
            self.done += count;
            // Runs of no wanted value (a zero count) are skipped.
            if count > 0 {
                return Some((before, piece));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Collect(Vec<u32>);
    impl Consumer for Collect {
        fn values(&mut self, values: &[u32]) -> Result<(), Status> {
            self.0.extend_from_slice(values);
            Ok(())
        }
        fn run(&mut self, value: u32, count: u64) -> Result<(), Status> {
            self.0.extend(std::iter::repeat_n(value, count as usize));
            Ok(())
        }
    }

    fn hybrid(data: &[u8], width: u32, count: u64) -> Result<Vec<u32>, Status> {
        let mut c = Collect::default();
        decode_hybrid(data, width, count, &mut c).map(|()| c.0)
    }

    #[test]
    fn headers_of_four_bytes_pass_and_five_fail_with_220() {
        // RLE run of 1 value (header 2) padded to 4 bytes, value 5.
        assert_eq!(hybrid(&[0x82, 0x80, 0x80, 0x00, 5], 3, 1), Ok(vec![5]));
        assert_eq!(
            hybrid(&[0x82, 0x80, 0x80, 0x80, 0x00, 5], 3, 1),
            Err(Status::PRLE_FORMAT_ERR)
        );
        assert_eq!(hybrid(&[0x82, 0x80], 3, 1), Err(Status::SRC_IS_SHORT_ERR));
    }

    #[test]
    fn width_zero_streams_are_all_zero() {
        // RLE 3 (no value bytes), then one bit-packed group (no payload bytes).
        assert_eq!(hybrid(&[0x06, 0x03], 0, 11), Ok(vec![0; 11]));
        assert_eq!(hybrid(&[0x06, 0x03], 0, 12), Err(Status::SRC_IS_SHORT_ERR));
    }
}
