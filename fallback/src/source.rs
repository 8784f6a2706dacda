//! Source-1 decoders. Each pushes values to a [`Consumer`] a block or a run at a time: packed
//! arrays and Parquet bit-packed runs as blocks of still-packed bits (the consumer scans them
//! in place or unpacks them), Parquet RLE runs as `(value, count)` fills (never expanded into
//! a buffer here).

use crate::kernels::runs::{read_run, Piece};
use crate::kernels::{BitWidth, LazyBlock, BLOCK};
use crate::status::Status;

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
