//! The SSE2 kernels (x86-64's baseline: every x86-64 CPU, no run-time detection), which the
//! portable tier runs on x86-64 and the wider tiers run for the blocks their vectors leave.

/// BYTE_STREAM_SPLIT: transposes of 16 values of K = 2, 4, 8 or 16 bytes with SSE2 unpacks,
/// the network Arrow C++'s
/// `byte_stream_split_internal.h` uses. A block is K vectors of 16 bytes; byte `b` of
/// vector `v` has the index `16v + b`. The perfect shuffle (output vectors `2v` and
/// `2v + 1` = `unpacklo/hi_epi8` of vectors `v` and `v + K/2`) rotates every byte's index
/// left by one bit. The streams' block (index `16j + i`: byte j of value i) becomes the
/// values' block (index `Ki + j`) after log2(K) rotations, and back after 4.
pub(in crate::kernels) mod byte_stream_split {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };

    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(bytes: &[u8]) -> __m128i {
        let bytes: &[u8; 16] = bytes[..16].try_into().unwrap();
        // SAFETY: `bytes` is 16 readable bytes; unaligned loads are allowed.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn store(bytes: &mut [u8], value: __m128i) {
        let bytes: &mut [u8; 16] = (&mut bytes[..16]).try_into().unwrap();
        // SAFETY: `bytes` is 16 writable bytes; unaligned stores are allowed.
        unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), value) }
    }

    /// One perfect shuffle of `K` vectors.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn perfect_shuffle<const K: usize>(x: [__m128i; K]) -> [__m128i; K] {
        std::array::from_fn(|o| {
            let (a, b) = (x[o / 2], x[o / 2 + K / 2]);
            if o % 2 == 0 {
                _mm_unpacklo_epi8(a, b)
            } else {
                _mm_unpackhi_epi8(a, b)
            }
        })
    }

    /// Joins whole blocks of 16 values from value `start` of the `K` streams (each `n`
    /// bytes) of `data` into `out`; returns the values joined (a multiple of 16).
    #[target_feature(enable = "sse2")]
    pub(in crate::kernels) fn join<const K: usize>(
        data: &[u8],
        n: usize,
        start: usize,
        out: &mut [u8],
    ) -> usize {
        let done = out.len() / (16 * K) * 16;
        let streams: [&[u8]; K] =
            std::array::from_fn(|j| &data[j * n + start..j * n + start + done]);
        for (i, block) in out[..done * K].chunks_exact_mut(16 * K).enumerate() {
            let x: [__m128i; K] = std::array::from_fn(|j| load(&streams[j][16 * i..]));
            // log2(K) shuffles, written out so that the vectors stay in registers.
            let x = match K {
                2 => perfect_shuffle(x),
                4 => perfect_shuffle(perfect_shuffle(x)),
                8 => perfect_shuffle(perfect_shuffle(perfect_shuffle(x))),
                _ => perfect_shuffle(perfect_shuffle(perfect_shuffle(perfect_shuffle(x)))),
            };
            for (v, vector) in x.into_iter().enumerate() {
                store(&mut block[16 * v..], vector);
            }
        }
        done
    }

    /// Scatters whole blocks of 16 values of `values` (from value 0) into the `K` streams of
    /// `dst` (each `n` bytes); returns the values done (a multiple of 16).
    #[target_feature(enable = "sse2")]
    pub(in crate::kernels) fn split<const K: usize>(
        values: &[u8],
        n: usize,
        dst: &mut [u8],
    ) -> usize {
        let done = values.len() / (16 * K) * 16;
        let mut parts = dst.chunks_exact_mut(n);
        let mut streams: [&mut [u8]; K] = std::array::from_fn(|_| parts.next().unwrap());
        for (i, block) in values[..done * K].chunks_exact(16 * K).enumerate() {
            let x: [__m128i; K] = std::array::from_fn(|v| load(&block[16 * v..]));
            let x = perfect_shuffle(perfect_shuffle(perfect_shuffle(perfect_shuffle(x))));
            for (stream, vector) in streams.iter_mut().zip(x) {
                store(&mut stream[16 * i..], vector);
            }
        }
        done
    }
}

/// [`super::level_word`]: 16 levels at a time (a compare of 8, a signed pack keeping each
/// lane's 0 or -1 as a byte, a byte mask).
#[inline]
#[target_feature(enable = "sse2")]
pub(in crate::kernels) fn level_word(levels: &[i16; 64], equal: bool, threshold: i16) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi16, _mm_cmpgt_epi16, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_packs_epi16, _mm_set1_epi16,
    };
    let threshold = _mm_set1_epi16(threshold);
    let compare = |lanes| match equal {
        true => _mm_cmpeq_epi16(lanes, threshold),
        false => _mm_cmpgt_epi16(lanes, threshold),
    };
    let mut word = 0u64;
    for (k, sixteen) in levels.chunks_exact(16).enumerate() {
        // SAFETY: `sixteen` holds 16 i16s, 32 bytes: two unaligned 16-byte loads of its two
        // halves stay inside it.
        let (low, high) = unsafe {
            (
                _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>()),
                _mm_loadu_si128(sixteen.as_ptr().add(8).cast::<__m128i>()),
            )
        };
        let bytes = _mm_packs_epi16(compare(low), compare(high));
        word |= u64::from(_mm_movemask_epi8(bytes) as u16) << (16 * k);
    }
    word
}
