//! The element types select and expand carry values in (`u8` for sources of up to 8 bits,
//! `u16` up to 16, `u32` otherwise), each with its kernels: the tier's kernel where it has
//! one, the portable one otherwise.

use super::{portable, BitWidth, MinMaxSum};

/// The kernels of one lane type.
pub(crate) trait LaneKernels: Copy + Default + PartialEq + Into<u32> {
    /// `value` in this lane. Callers choose lanes by the width of the values (packed
    /// elements, Parquet RLE run values of ⌈width/8⌉ bytes), so that they all fit.
    fn from_u32(value: u32) -> Self;

    /// Appends `values[j]` for every set bit j of the mask words (bit j of `words[j / 64]`,
    /// none at or above `values.len()`) to `out`, which has room for `values.len()` rounded
    /// up to 64; returns how many.
    fn compress(values: &[Self], words: &[u64], out: &mut [Self]) -> usize;

    /// Unpacking and [`LaneKernels::compress`] in one pass, without storing the elements that
    /// are not selected: appends element j of the `count` packed at `width` bits from the
    /// start of `src` to `out` (room for `count` rounded up to 64) for every set bit j of
    /// the mask words; returns how many. `None` when the lane type has no such kernel on
    /// this CPU.
    fn unpack_compress(
        _width: BitWidth,
        _big_endian: bool,
        _src: &[u8],
        _count: usize,
        _words: &[u64],
        _out: &mut [Self],
    ) -> Option<usize> {
        None
    }

    /// [`super::expand_words`] from `values` into `out` (64 positions per word, 0 at clear
    /// bits): returns (values used, positions passed).
    fn expand(values: &[Self], words: &[u64], out: &mut [Self]) -> (usize, usize);

    /// Packs `values` (a multiple of 8 of them), each masked by `mask`, at `width` bits into
    /// `out` (`values.len() / 8 · width` bytes), MSB first when `big_endian`: the nominal
    /// output of select and expand.
    fn pack(width: BitWidth, big_endian: bool, mask: u32, values: &[Self], out: &mut [u8]);

    /// The value aggregates of `values`.
    fn min_max_sum(values: &[Self]) -> MinMaxSum;
}

impl LaneKernels for u32 {
    #[inline]
    fn from_u32(value: u32) -> u32 {
        value
    }

    #[inline]
    fn compress(values: &[u32], words: &[u64], out: &mut [u32]) -> usize {
        super::compress(super::kernels(), values, words, out)
            .unwrap_or_else(|| portable::compress(values, words, out))
    }

    #[inline]
    fn unpack_compress(
        width: BitWidth,
        big_endian: bool,
        src: &[u8],
        count: usize,
        words: &[u64],
        out: &mut [u32],
    ) -> Option<usize> {
        let w = width.get();
        super::unpack_compress(super::kernels(), w, big_endian, src, count, words, out)
    }

    #[inline]
    fn expand(values: &[u32], words: &[u64], out: &mut [u32]) -> (usize, usize) {
        super::expand(super::kernels(), values, words, out)
            .unwrap_or_else(|| portable::expand(values, words, out))
    }

    fn pack(width: BitWidth, big_endian: bool, mask: u32, values: &[u32], out: &mut [u8]) {
        super::pack(width, big_endian, mask, values, out);
    }

    fn min_max_sum(values: &[u32]) -> MinMaxSum {
        super::min_max_sum(super::kernels(), values)
            .unwrap_or_else(|| MinMaxSum::of(values.iter().copied()))
    }
}

/// [`LaneKernels::pack`] of narrow lanes through the `u32` packer, 64 values at a time.
fn pack_widened<T: LaneKernels>(
    width: BitWidth,
    big_endian: bool,
    mask: u32,
    values: &[T],
    out: &mut [u8],
) {
    let group_bytes = 8 * width.get() as usize;
    for (chunk, out) in values.chunks(64).zip(out.chunks_mut(group_bytes)) {
        let mut wide = [0u32; 64];
        for (w, &v) in wide.iter_mut().zip(chunk) {
            *w = v.into();
        }
        super::pack(width, big_endian, mask, &wide[..chunk.len()], out);
    }
}

/// The byte and 16-bit lanes: the same steps with their own kernels.
macro_rules! narrow_lane {
    ($t:ty, $compress:path, $expand:path, $pack:path) => {
        impl LaneKernels for $t {
            #[inline]
            fn from_u32(value: u32) -> $t {
                value as $t
            }

            #[inline]
            fn compress(values: &[$t], words: &[u64], out: &mut [$t]) -> usize {
                $compress(super::kernels(), values, words, out)
                    .unwrap_or_else(|| portable::compress(values, words, out))
            }

            #[inline]
            fn expand(values: &[$t], words: &[u64], out: &mut [$t]) -> (usize, usize) {
                $expand(super::kernels(), values, words, out)
                    .unwrap_or_else(|| portable::expand(values, words, out))
            }

            fn pack(width: BitWidth, big_endian: bool, mask: u32, values: &[$t], out: &mut [u8]) {
                let (kernels, w) = (super::kernels(), width.get());
                if big_endian || !$pack(kernels, w, mask as $t, values, out) {
                    pack_widened(width, big_endian, mask, values, out);
                }
            }

            fn min_max_sum(values: &[$t]) -> MinMaxSum {
                portable::min_max_sum_narrow(values)
            }
        }
    };
}

narrow_lane!(
    u8,
    super::compress_bytes,
    super::expand_bytes,
    super::pack_bytes_le
);
narrow_lane!(
    u16,
    super::compress_halves,
    super::expand_halves,
    super::pack_halves_le
);
