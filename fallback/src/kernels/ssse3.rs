//! The SSSE3 kernels (x86-64 with SSSE3: every x86-64 CPU since Core 2 and Bulldozer), run
//! by the portable tier when the CPU has SSSE3: the tiers are chosen for the bulk kernels
//! (AVX2 and AVX-512 unpacking and scans), but GroupVarInt INT32's decoder is a `pshufb` per
//! group whatever the vector width, 4× faster than the portable loop, so the pre-AVX2 x86
//! CPUs the portable tier serves keep it. The AVX2 kernel (`avx2::encodings`) shares this
//! module's helpers (AVX2 implies SSSE3).

/// GroupVarInt INT32 (varint-GB, as in Lemire et al.): one `pshufb` mask per control byte
/// moves a group's four ints into four 32-bit lanes; the sizes of the groups (and pairs of
/// groups) that could start at each of the next 64 bytes are computed up front with `pshufb`
/// so that stepping two groups on is one load and an add.
pub(super) mod group_varint {
    use crate::kernels::encodings::group_varint::{GROUP_DATA_LEN_32, SHUFFLE_32, WINDOW_32};
    use std::arch::x86_64::*;

    /// Group starts a span covers: the sizes of groups starting there are computed together,
    /// up front.
    pub(in crate::kernels) const SPAN: usize = 64;
    /// Bytes whose group sizes a span computes: a pair's second group starts before
    /// `SPAN + 17`.
    pub(in crate::kernels) const SIZED: usize = 96;
    /// Bytes a span needs: the second group of a pair starts before `SPAN + 17` and spans up
    /// to 17 bytes, and `SIZED` bytes are loaded.
    pub(in crate::kernels) const SPAN_BYTES: usize = 128;

    #[inline]
    #[target_feature(enable = "ssse3")]
    pub(in crate::kernels) fn load(bytes: &[u8]) -> __m128i {
        let bytes: &[u8; 16] = bytes[..16].try_into().unwrap();
        // SAFETY: `bytes` is 16 readable bytes; unaligned loads are allowed.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    }

    /// Decodes the group whose control byte is `bytes[0]` (`bytes` holds at least 17) into
    /// `out` (4 values); returns the group's size.
    #[inline]
    #[target_feature(enable = "ssse3")]
    pub(in crate::kernels) fn decode_group(bytes: &[u8], out: &mut [i32]) -> usize {
        let control = usize::from(bytes[0]);
        let window = load(&bytes[1..]);
        let mask = load(&SHUFFLE_32[control]);
        let values = _mm_shuffle_epi8(window, mask);
        let out: &mut [i32; 4] = (&mut out[..4]).try_into().unwrap();
        // SAFETY: `out` is 4 i32s, 16 writable bytes; x86 lanes are little endian, the
        // ints' order in memory.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), values) };
        1 + usize::from(GROUP_DATA_LEN_32[control])
    }

    /// The size (control byte included) of a group starting at each byte of `bytes`:
    /// 5 + the sum of the byte's four 2-bit fields, summed per nibble with `pshufb`.
    #[inline]
    #[target_feature(enable = "ssse3")]
    pub(in crate::kernels) fn group_sizes(bytes: &[u8; SIZED]) -> [__m128i; SIZED / 16] {
        // The sum of a nibble's two 2-bit fields.
        let nibble_sums = _mm_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6);
        let low_nibble = _mm_set1_epi8(0x0F);
        let five = _mm_set1_epi8(5);
        std::array::from_fn(|chunk| {
            let c = load(&bytes[16 * chunk..]);
            let lo = _mm_and_si128(c, low_nibble);
            let hi = _mm_and_si128(_mm_srli_epi16(c, 4), low_nibble);
            _mm_add_epi8(
                _mm_add_epi8(
                    _mm_shuffle_epi8(nibble_sums, lo),
                    _mm_shuffle_epi8(nibble_sums, hi),
                ),
                five,
            )
        })
    }

    /// For each of the first `SPAN` bytes `q`: the size of the group starting at `q` plus
    /// that of the group after it, `sizes[q] + sizes[q + sizes[q]]` (at most 34), looked up
    /// with `pshufb` in the 16-byte chunk of `q` and the two after it (`q + sizes[q]` is at
    /// most 15 + 17 = 32 lanes on).
    #[inline]
    #[target_feature(enable = "ssse3")]
    pub(in crate::kernels) fn pair_sizes(sizes: &[__m128i; SIZED / 16]) -> [__m128i; SPAN / 16] {
        let lanes = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let sixteen = _mm_set1_epi8(16);
        let fifteen = _mm_set1_epi8(15);
        let thirty_one = _mm_set1_epi8(31);
        std::array::from_fn(|chunk| {
            let size = sizes[chunk];
            // The next group's lane, counted from this chunk's first: 5..=32.
            let next = _mm_add_epi8(lanes, size);
            // In this chunk when below 16: other lanes get bit 7 set, which pshufb reads as 0.
            let in_this = _mm_or_si128(next, _mm_cmpgt_epi8(next, fifteen));
            // In the next chunk when 16..=31: below 16 the difference is negative (bit 7 set);
            // at 32 it is 16, masked by the comparison.
            let minus_16 = _mm_sub_epi8(next, sixteen);
            let in_next = _mm_or_si128(minus_16, _mm_cmpgt_epi8(next, thirty_one));
            // In the chunk after when 32: the difference is 0 then, negative otherwise.
            let in_after = _mm_sub_epi8(minus_16, sixteen);
            let following = _mm_or_si128(
                _mm_or_si128(
                    _mm_shuffle_epi8(sizes[chunk], in_this),
                    _mm_shuffle_epi8(sizes[chunk + 1], in_next),
                ),
                _mm_shuffle_epi8(sizes[chunk + 2], in_after),
            );
            _mm_add_epi8(size, following)
        })
    }

    /// Stores vectors into a byte array, to be indexed by scalar loads.
    #[inline]
    #[target_feature(enable = "ssse3")]
    pub(in crate::kernels) fn to_bytes<const N: usize, const B: usize>(
        vectors: [__m128i; N],
    ) -> [u8; B] {
        let mut bytes = [0u8; B];
        for (dst, vector) in bytes.chunks_exact_mut(16).zip(vectors) {
            let dst: &mut [u8; 16] = dst.try_into().unwrap();
            // SAFETY: `dst` is 16 writable bytes; unaligned stores are allowed.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast::<__m128i>(), vector) };
        }
        bytes
    }

    /// `decode_fast_portable_32` (`kernels::encodings`) with one `pshufb` per group: the
    /// sizes of the groups that could start at each of the next 64 bytes and of each pair
    /// of groups are computed first, then groups are decoded in pairs, the positions chained
    /// by one load from the pair sizes and an add per two groups; the last groups (within
    /// `SPAN_BYTES` of the end) one at a time.
    ///
    /// # Safety
    /// The CPU supports SSSE3.
    #[target_feature(enable = "ssse3")]
    pub(in crate::kernels) unsafe fn decode_32(
        data: &[u8],
        mut pos: usize,
        out: &mut [i32],
    ) -> (usize, usize) {
        let groups = out.len() / 4;
        let mut group = 0;
        while groups - group >= 2 && data.len().saturating_sub(pos) >= SPAN_BYTES {
            let span: &[u8; SPAN_BYTES] = data[pos..pos + SPAN_BYTES].try_into().unwrap();
            let size_vectors = group_sizes(span[..SIZED].try_into().unwrap());
            let pairs: [u8; SPAN] = to_bytes(pair_sizes(&size_vectors));
            let sizes: [u8; SIZED] = to_bytes(size_vectors);
            let mut offset = 0;
            while offset < SPAN && groups - group >= 2 {
                let second = offset + usize::from(sizes[offset]);
                // `offset` < SPAN and `second` ≤ offset + 17, so both groups' 17 bytes are
                // inside `span`; `group + 2 ≤ groups`, so both fit `out`.
                let (first_out, second_out) = out[4 * group..4 * group + 8].split_at_mut(4);
                decode_group(&span[offset..], first_out);
                decode_group(&span[second..], second_out);
                offset += usize::from(pairs[offset]);
                group += 2;
            }
            pos += offset;
        }
        while group < groups && data.len().saturating_sub(pos) >= WINDOW_32 {
            pos += decode_group(&data[pos..], &mut out[4 * group..]);
            group += 1;
        }
        (pos, 4 * group)
    }
}
