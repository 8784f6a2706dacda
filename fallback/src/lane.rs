//! The element types select and expand carry values in between the decoder and the writer:
//! one byte each for sources of up to 8 bits (64 values per AVX-512 instruction rather than
//! 16), `u32` otherwise.

use crate::output::Writer;
use crate::simd;
use crate::source::BLOCK;
use crate::status::Status;
use crate::unpack::{unpack, BitWidth};

/// A lane type; [`uses_byte_lanes`] says which one a job uses.
pub(crate) trait Lane: Copy + Default + PartialEq + Into<u32> {
    /// `value` in this lane. Callers use byte lanes only for sources of up to 8 bits, whose
    /// values (packed elements, Parquet RLE run values of ⌈width/8⌉ bytes) all fit.
    fn from_u32(value: u32) -> Self;

    /// The `scratch.len()` elements packed at `width` bits from the start of `src`, unpacked
    /// into `scratch` or `bytes` (whichever the lane uses), or found in `src` itself.
    fn unpack<'a>(
        width: BitWidth,
        big_endian: bool,
        src: &'a [u8],
        scratch: &'a mut [u32],
        bytes: &'a mut [u8; BLOCK],
    ) -> &'a [Self];

    /// Appends `values[j]` for every set bit j of the mask words (bit j of `words[j / 64]`,
    /// none at or above `values.len()` ≤ [`BLOCK`]) to `out`; returns how many.
    fn compress(values: &[Self], words: &[u64], out: &mut [Self; BLOCK]) -> usize;

    /// [`simd::expand_words`] from `values` into `out` (64 positions per word, 0 at clear
    /// bits): returns (values used, positions passed).
    fn expand(values: &[Self], words: &[u64], out: &mut [Self]) -> (usize, usize);

    /// Appends `values` to the output.
    fn write(out: &mut Writer, values: &[Self]) -> Result<(), Status>;

    /// The minimum, maximum and wrapping sum of `values` (`u32::MAX`, 0, 0 when empty).
    fn min_max_sum(values: &[Self]) -> (u32, u32, u32);
}

/// Whether a job whose source elements have `width` bits moves them in byte lanes.
pub(crate) fn uses_byte_lanes(width: u32) -> bool {
    width <= 8
}

fn compress_portable<T: Copy>(values: &[T], words: &[u64], out: &mut [T]) -> usize {
    let mut kept = 0;
    for (&word, chunk) in words.iter().zip(values.chunks(64)) {
        let mut word = word;
        while word != 0 {
            out[kept] = chunk[word.trailing_zeros() as usize];
            kept += 1;
            word &= word - 1;
        }
    }
    kept
}

fn expand_portable<T: Copy + Default>(
    values: &[T],
    words: &[u64],
    out: &mut [T],
) -> (usize, usize) {
    simd::expand_words(words, values.len(), |i, word, used| {
        let mut next = used;
        for (j, slot) in out[64 * i..64 * i + 64].iter_mut().enumerate() {
            let set = (word >> j) & 1 == 1;
            *slot = if set { values[next] } else { T::default() };
            next += usize::from(set);
        }
    })
}

fn min_max_sum_portable<T: Copy + Into<u32>>(values: &[T]) -> (u32, u32, u32) {
    values
        .iter()
        .fold((u32::MAX, 0, 0u32), |(min, max, sum), &v| {
            let v = v.into();
            (min.min(v), max.max(v), sum.wrapping_add(v))
        })
}

impl Lane for u32 {
    #[inline]
    fn from_u32(value: u32) -> u32 {
        value
    }

    #[inline]
    fn unpack<'a>(
        width: BitWidth,
        big_endian: bool,
        src: &'a [u8],
        scratch: &'a mut [u32],
        _bytes: &'a mut [u8; BLOCK],
    ) -> &'a [u32] {
        unpack(width, big_endian, src, scratch);
        scratch
    }

    #[inline]
    fn compress(values: &[u32], words: &[u64], out: &mut [u32; BLOCK]) -> usize {
        simd::compress(simd::kernels(), values, words, out)
            .unwrap_or_else(|| compress_portable(values, words, out))
    }

    #[inline]
    fn expand(values: &[u32], words: &[u64], out: &mut [u32]) -> (usize, usize) {
        simd::expand(simd::kernels(), values, words, out)
            .unwrap_or_else(|| expand_portable(values, words, out))
    }

    fn write(out: &mut Writer, values: &[u32]) -> Result<(), Status> {
        out.values(values)
    }

    fn min_max_sum(values: &[u32]) -> (u32, u32, u32) {
        simd::min_max_sum(simd::kernels(), values).unwrap_or_else(|| min_max_sum_portable(values))
    }
}

impl Lane for u8 {
    #[inline]
    fn from_u32(value: u32) -> u8 {
        value as u8
    }

    #[inline]
    fn unpack<'a>(
        width: BitWidth,
        big_endian: bool,
        src: &'a [u8],
        scratch: &'a mut [u32],
        bytes: &'a mut [u8; BLOCK],
    ) -> &'a [u8] {
        let count = scratch.len();
        if width.get() == 8 {
            // Bytes are the elements, in either bit order.
            return &src[..count];
        }
        let out = &mut bytes[..count];
        if !simd::unpack_bytes(simd::kernels(), width.get(), big_endian, src, out) {
            unpack(width, big_endian, src, scratch);
            for (o, &v) in out.iter_mut().zip(scratch.iter()) {
                *o = v as u8;
            }
        }
        out
    }

    #[inline]
    fn compress(values: &[u8], words: &[u64], out: &mut [u8; BLOCK]) -> usize {
        simd::compress_bytes(simd::kernels(), values, words, out)
            .unwrap_or_else(|| compress_portable(values, words, out))
    }

    #[inline]
    fn expand(values: &[u8], words: &[u64], out: &mut [u8]) -> (usize, usize) {
        simd::expand_bytes(simd::kernels(), values, words, out)
            .unwrap_or_else(|| expand_portable(values, words, out))
    }

    fn write(out: &mut Writer, values: &[u8]) -> Result<(), Status> {
        out.bytes(values)
    }

    fn min_max_sum(values: &[u8]) -> (u32, u32, u32) {
        if values.is_empty() {
            return (u32::MAX, 0, 0);
        }
        // Separate byte reductions, which the compiler vectorises.
        let min = values.iter().copied().min().unwrap_or(0);
        let max = values.iter().copied().max().unwrap_or(0);
        let sum = values
            .iter()
            .fold(0u32, |sum, &v| sum.wrapping_add(u32::from(v)));
        (u32::from(min), u32::from(max), sum)
    }
}
