//! The element types select and expand carry values in between the decoder and the writer:
//! one byte each for sources of up to 8 bits (64 values per AVX-512 instruction rather than
//! 16), a `u16` for up to 16 bits (32), `u32` otherwise.

use crate::output::{MinMaxSum, Writer};
use crate::simd;
use crate::source::{LazyBlock, BLOCK};
use crate::status::Status;
use crate::unpack::{pack, BitWidth};

/// A lane type; [`lane_bits`] says which one a job uses.
pub(crate) trait Lane: Copy + Default + PartialEq + Into<u32> {
    /// `value` in this lane. Callers choose lanes by [`lane_bits`], so that the values
    /// (packed elements, Parquet RLE run values of ⌈width/8⌉ bytes) all fit.
    fn from_u32(value: u32) -> Self;

    /// Where [`Lane::unpack`] puts values the decoder's `u32` block cannot hold: a block of
    /// narrow lanes, nothing for `u32`.
    type Unpacked;

    /// An empty [`Lane::Unpacked`].
    fn new_unpacked() -> Self::Unpacked;

    /// The `count` (≤ [`BLOCK`]) elements packed at `width` bits from the start of `src`,
    /// unpacked into `scratch` or `lanes` (whichever the lane type uses), or found in `src`
    /// itself.
    fn unpack<'a>(
        width: BitWidth,
        big_endian: bool,
        src: &'a [u8],
        count: usize,
        scratch: &'a mut LazyBlock<u32>,
        lanes: &'a mut Self::Unpacked,
    ) -> &'a [Self];

    /// Appends `values[j]` for every set bit j of the mask words (bit j of `words[j / 64]`,
    /// none at or above `values.len()` ≤ [`BLOCK`]) to `out`; returns how many.
    fn compress(values: &[Self], words: &[u64], out: &mut [Self; BLOCK]) -> usize;

    /// [`Lane::unpack`] and [`Lane::compress`] in one pass, without storing the elements
    /// that are not selected: appends element j of the `count` (≤ [`BLOCK`]) packed at
    /// `width` bits from the start of `src` to `out` for every set bit j of the mask words;
    /// returns how many. `None` when the lane type has no such kernel on this CPU.
    fn unpack_compress(
        _width: BitWidth,
        _big_endian: bool,
        _src: &[u8],
        _count: usize,
        _words: &[u64],
        _out: &mut [Self; BLOCK],
    ) -> Option<usize> {
        None
    }

    /// [`simd::expand_words`] from `values` into `out` (64 positions per word, 0 at clear
    /// bits): returns (values used, positions passed).
    fn expand(values: &[Self], words: &[u64], out: &mut [Self]) -> (usize, usize);

    /// Appends `values` to the output.
    fn write(out: &mut Writer, values: &[Self]) -> Result<(), Status>;

    /// Packs `values` (a multiple of 8 of them), each masked by `mask`, at `width` bits into
    /// `out` (`values.len() / 8 · width` bytes), MSB first when `big_endian`: the nominal
    /// output of select and expand.
    fn pack(width: BitWidth, big_endian: bool, mask: u32, values: &[Self], out: &mut [u8]);

    /// The value aggregates of `values`.
    fn min_max_sum(values: &[Self]) -> MinMaxSum;
}

/// The lane size (8, 16 or 32 bits) for source elements of `width` bits.
pub(crate) fn lane_bits(width: u32) -> u32 {
    match width {
        0..=8 => 8,
        9..=16 => 16,
        _ => 32,
    }
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

/// Separate reductions, which the compiler vectorises for narrow lanes.
fn min_max_sum_narrow<T: Copy + Ord + Into<u32>>(values: &[T]) -> MinMaxSum {
    match (values.iter().min(), values.iter().max()) {
        (Some(&min), Some(&max)) => MinMaxSum {
            min: min.into(),
            max: max.into(),
            sum: values
                .iter()
                .fold(0u32, |sum, &v| sum.wrapping_add(v.into())),
        },
        _ => MinMaxSum::NONE,
    }
}

impl Lane for u32 {
    type Unpacked = ();

    fn new_unpacked() {}

    #[inline]
    fn from_u32(value: u32) -> u32 {
        value
    }

    #[inline]
    fn unpack<'a>(
        width: BitWidth,
        big_endian: bool,
        src: &'a [u8],
        count: usize,
        scratch: &'a mut LazyBlock<u32>,
        _lanes: &'a mut (),
    ) -> &'a [u32] {
        scratch.unpack(width, big_endian, src, count)
    }

    #[inline]
    fn compress(values: &[u32], words: &[u64], out: &mut [u32; BLOCK]) -> usize {
        simd::compress(simd::kernels(), values, words, out)
            .unwrap_or_else(|| compress_portable(values, words, out))
    }

    #[inline]
    fn unpack_compress(
        width: BitWidth,
        big_endian: bool,
        src: &[u8],
        count: usize,
        words: &[u64],
        out: &mut [u32; BLOCK],
    ) -> Option<usize> {
        let w = width.get();
        simd::unpack_compress(simd::kernels(), w, big_endian, src, count, words, out)
    }

    #[inline]
    fn expand(values: &[u32], words: &[u64], out: &mut [u32]) -> (usize, usize) {
        simd::expand(simd::kernels(), values, words, out)
            .unwrap_or_else(|| expand_portable(values, words, out))
    }

    fn write(out: &mut Writer, values: &[u32]) -> Result<(), Status> {
        out.values(values)
    }

    fn pack(width: BitWidth, big_endian: bool, mask: u32, values: &[u32], out: &mut [u8]) {
        pack(width, big_endian, mask, values, out);
    }

    fn min_max_sum(values: &[u32]) -> MinMaxSum {
        simd::min_max_sum(simd::kernels(), values)
            .unwrap_or_else(|| MinMaxSum::of(values.iter().copied()))
    }
}

/// [`Lane::pack`] of narrow lanes through the `u32` packer, 64 values at a time.
fn pack_widened<T: Lane>(
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
        pack(width, big_endian, mask, &wide[..chunk.len()], out);
    }
}

/// Unpacks `count` elements into narrow lanes with `simd_unpack`, or through the portable
/// kernel into `scratch` and then narrowing.
fn unpack_narrow<'a, T: Lane>(
    simd_unpack: fn(simd::Kernels, u32, bool, &[u8], &mut [T]) -> bool,
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    count: usize,
    scratch: &mut LazyBlock<u32>,
    lanes: &'a mut LazyBlock<T>,
) -> &'a [T] {
    let out = lanes.first(count);
    if !simd_unpack(simd::kernels(), width.get(), big_endian, src, out) {
        let values = scratch.unpack(width, big_endian, src, count);
        for (o, &v) in out.iter_mut().zip(values) {
            *o = T::from_u32(v);
        }
    }
    out
}

/// The byte and 16-bit lanes: the same steps with their own kernels.
macro_rules! narrow_lane {
    ($t:ty, $unpack:expr, $compress:path, $expand:path, $pack:path) => {
        impl Lane for $t {
            type Unpacked = LazyBlock<$t>;

            fn new_unpacked() -> LazyBlock<$t> {
                LazyBlock::new()
            }

            #[inline]
            fn from_u32(value: u32) -> $t {
                value as $t
            }

            #[inline]
            fn unpack<'a>(
                width: BitWidth,
                big_endian: bool,
                src: &'a [u8],
                count: usize,
                scratch: &'a mut LazyBlock<u32>,
                lanes: &'a mut LazyBlock<$t>,
            ) -> &'a [$t] {
                $unpack(width, big_endian, src, count, scratch, lanes)
            }

            #[inline]
            fn compress(values: &[$t], words: &[u64], out: &mut [$t; BLOCK]) -> usize {
                $compress(simd::kernels(), values, words, out)
                    .unwrap_or_else(|| compress_portable(values, words, out))
            }

            #[inline]
            fn expand(values: &[$t], words: &[u64], out: &mut [$t]) -> (usize, usize) {
                $expand(simd::kernels(), values, words, out)
                    .unwrap_or_else(|| expand_portable(values, words, out))
            }

            fn write(out: &mut Writer, values: &[$t]) -> Result<(), Status> {
                out.narrow(values)
            }

            fn pack(width: BitWidth, big_endian: bool, mask: u32, values: &[$t], out: &mut [u8]) {
                let (kernels, w) = (simd::kernels(), width.get());
                if big_endian || !$pack(kernels, w, mask as $t, values, out) {
                    pack_widened(width, big_endian, mask, values, out);
                }
            }

            fn min_max_sum(values: &[$t]) -> MinMaxSum {
                min_max_sum_narrow(values)
            }
        }
    };
}

/// Byte lanes unpack through their kernel, except 8-bit elements, which are the bytes.
fn unpack_bytes<'a>(
    width: BitWidth,
    big_endian: bool,
    src: &'a [u8],
    count: usize,
    scratch: &mut LazyBlock<u32>,
    lanes: &'a mut LazyBlock<u8>,
) -> &'a [u8] {
    if width.get() == 8 {
        return &src[..count];
    }
    unpack_narrow(
        simd::unpack_bytes,
        width,
        big_endian,
        src,
        count,
        scratch,
        lanes,
    )
}

/// 16-bit lanes unpack through their kernel.
fn unpack_halves<'a>(
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    count: usize,
    scratch: &mut LazyBlock<u32>,
    lanes: &'a mut LazyBlock<u16>,
) -> &'a [u16] {
    unpack_narrow(
        simd::unpack_halves,
        width,
        big_endian,
        src,
        count,
        scratch,
        lanes,
    )
}

narrow_lane!(
    u8,
    unpack_bytes,
    simd::compress_bytes,
    simd::expand_bytes,
    simd::pack_bytes_le
);
narrow_lane!(
    u16,
    unpack_halves,
    simd::compress_halves,
    simd::expand_halves,
    simd::pack_halves_le
);
