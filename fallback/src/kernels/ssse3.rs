//! The SSSE3 kernels (x86-64 with SSSE3: every x86-64 CPU since Core 2 and Bulldozer), run
//! by the portable tier when the CPU has SSSE3: the tiers are chosen for the bulk kernels
//! (AVX2 and AVX-512 unpacking and scans), but GroupVarInt INT32's decoder is a `pshufb` per
//! group whatever the vector width, 4× faster than the portable loop, so the pre-AVX2 x86
//! CPUs the portable tier serves keep it. The AVX2 kernel (`avx2::encodings`) shares this
//! module's helpers (AVX2 implies SSSE3).

/// GroupVarInt INT32 (varint-GB, as in Lemire et al.): one `pshufb` mask per control byte
/// moves a group's four ints into four 32-bit lanes; the sizes of the groups (and pairs of
/// groups) that could start at each byte of a block are computed up front with `pshufb` so
/// that stepping two groups on is one load and an add.
pub(super) mod group_varint {
    use crate::kernels::encodings::group_varint::{group_bytes_32, SHUFFLE_32, WINDOW_32};
    use std::arch::x86_64::*;

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
        group_bytes_32(bytes[0])
    }

    /// A group's size (its control byte `c` included) is `SIZE_BY_LOW_NIBBLE[c & 15] +
    /// SIZE_BY_HIGH_NIBBLE[c >> 4]`: 5 plus the control byte's four 2-bit fields, two in each
    /// nibble. Every GroupVarInt kernel looks them up with its width's `pshufb`.
    pub(in crate::kernels) const SIZE_BY_LOW_NIBBLE: [u8; 16] = nibble_sizes(5);
    /// See [`SIZE_BY_LOW_NIBBLE`].
    pub(in crate::kernels) const SIZE_BY_HIGH_NIBBLE: [u8; 16] = nibble_sizes(0);

    /// `base` plus the sum of each nibble's two 2-bit fields.
    const fn nibble_sizes(base: u8) -> [u8; 16] {
        let mut table = [0u8; 16];
        let mut n = 0;
        while n < 16 {
            table[n] = base + (n as u8 & 3) + (n as u8 >> 2);
            n += 1;
        }
        table
    }

    /// Group starts a block covers at most: the sizes of groups (and of pairs of groups)
    /// starting at each of its bytes are computed together, up front, then the groups are
    /// decoded with no branch but the loop's (whose exit, mispredicted once a block, is what
    /// a large block amortises).
    pub(in crate::kernels) const BLOCK: usize = 1024;
    /// Bytes a block needs past its group starts: a pair's second group starts before
    /// `BLOCK + 17` and its window ends before `BLOCK + 34` (rounded up to 32-byte vectors,
    /// the sizes of single groups being computed for `BLOCK + 32` starts).
    pub(in crate::kernels) const MARGIN: usize = 64;

    /// The sizes (control byte included) of groups starting at each byte of a block, and of
    /// pairs of groups.
    #[repr(C, align(32))]
    pub(in crate::kernels) struct Sizes {
        /// One group's, for the block's starts and the 32 bytes after them.
        pub(in crate::kernels) one: [u8; BLOCK + 32],
        /// Two groups'.
        pub(in crate::kernels) two: [u8; BLOCK],
    }

    impl Sizes {
        /// Zeroed buffers.
        pub(in crate::kernels) fn new() -> Self {
            Sizes {
                one: [0; BLOCK + 32],
                two: [0; BLOCK],
            }
        }
    }

    /// Group starts the block at `pos` covers: 32..=BLOCK, a multiple of 32, with `MARGIN`
    /// more bytes in the data, and no more than `groups` groups can span (17 bytes each, so
    /// that a caller decoding a few groups at a time does not pay for a whole block's
    /// sizes); 0 when the data is too short for a block.
    #[inline]
    pub(in crate::kernels) fn block_len(data: &[u8], pos: usize, groups: usize) -> usize {
        let in_data = data.len().saturating_sub(pos).saturating_sub(MARGIN) & !31;
        let for_groups = groups.saturating_mul(17).saturating_add(31) & !31;
        in_data.min(for_groups).min(BLOCK)
    }

    /// Fills `sizes.one[..n]` (`n` a multiple of 16, at most `BLOCK + 32`; `bytes`
    /// holding at least `n`): 5 + the sum of each byte's four 2-bit fields, summed per
    /// nibble with `pshufb`.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn single_sizes(bytes: &[u8], sizes: &mut Sizes, n: usize) {
        let (bytes, one) = (&bytes[..n], &mut sizes.one[..n]);
        let nibble_sums = load(&SIZE_BY_LOW_NIBBLE);
        let nibble_sums_hi = load(&SIZE_BY_HIGH_NIBBLE);
        let low_nibble = _mm_set1_epi8(0x0F);
        for (dst, src) in one.chunks_exact_mut(16).zip(bytes.chunks_exact(16)) {
            let c = load(src);
            let lo = _mm_and_si128(c, low_nibble);
            let hi = _mm_and_si128(_mm_srli_epi16::<4>(c), low_nibble);
            let size = _mm_add_epi8(
                _mm_shuffle_epi8(nibble_sums, lo),
                _mm_shuffle_epi8(nibble_sums_hi, hi),
            );
            // SAFETY: `dst` is 16 writable bytes.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), size) };
        }
    }

    /// Fills `sizes.two[..n]` from `sizes.one` (`n` a multiple of 16, at most `BLOCK`,
    /// `sizes.one` filled to `n + 21`): `one[q] + one[q + one[q]]`. The second group starts
    /// 5..=17 bytes on, inside the two 16-byte windows loaded 5 and 21 bytes after each
    /// 16 bytes, selected with `pshufb` (an index with bit 7 set gives 0).
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn pair_sizes(sizes: &mut Sizes, n: usize) {
        let base = _mm_setr_epi8(-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
        let sixteen = _mm_set1_epi8(16);
        let high = _mm_set1_epi8(0x70);
        let (one, two) = (&sizes.one, &mut sizes.two[..n]);
        for (q, dst) in (0..n).step_by(16).zip(two.chunks_exact_mut(16)) {
            let size = load(&one[q..]);
            let w0 = load(&one[q + 5..]);
            let w1 = load(&one[q + 21..]);
            // The next group's byte, counted from 5 after these 16's first: 0..=27.
            let j = _mm_add_epi8(size, base);
            // Below 16: w0's lane (+0x70 keeps bit 7 clear); 16 and up saturate past it.
            let from_w0 = _mm_shuffle_epi8(w0, _mm_adds_epu8(j, high));
            // 16 and up: w1's lane j − 16; below 16 wraps to bit 7 set.
            let from_w1 = _mm_shuffle_epi8(w1, _mm_sub_epi8(j, sixteen));
            let next = _mm_or_si128(from_w0, from_w1);
            // SAFETY: `dst` is 16 writable bytes.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), _mm_add_epi8(size, next)) };
        }
    }

    /// Computes the sizes of 1 and 2 groups from each byte of the block `bytes` (the
    /// block's `block` group starts and `MARGIN` bytes after them; `block` from
    /// [`block_len`]).
    #[inline]
    #[target_feature(enable = "ssse3")]
    pub(in crate::kernels) fn block_sizes(bytes: &[u8], sizes: &mut Sizes, block: usize) {
        assert!(block <= BLOCK && block.is_multiple_of(32) && bytes.len() >= block + MARGIN);
        single_sizes(bytes, sizes, block + 32);
        pair_sizes(sizes, block);
    }

    /// `decode_fast_portable_32` (`kernels::encodings`) with one `pshufb` per group: per
    /// block of up to 1,024 bytes, the sizes of 1 and 2 groups from each byte are computed
    /// first ([`block_sizes`]: pointer jumping, `two[q] = one[q] + one[q + one[q]]`), then
    /// the groups are decoded in pairs, the positions chained by one load from the pair
    /// sizes and an add per pair; the last groups (within 96 bytes of the end) one at a
    /// time.
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
        let mut sizes = Sizes::new();
        while groups - group >= 2 {
            let block = block_len(data, pos, groups - group);
            if block == 0 {
                break;
            }
            let bytes = &data[pos..pos + block + MARGIN];
            block_sizes(bytes, &mut sizes, block);
            let (one, two) = (&sizes.one, &sizes.two);
            let mut offset = 0;
            while offset < block && groups - group >= 2 {
                // `offset` < block and the second group starts ≤ offset + 17, each with 17
                // bytes inside `bytes` (block + 64 long).
                let second = offset + usize::from(one[offset]);
                let (first_out, second_out) = out[4 * group..4 * group + 8].split_at_mut(4);
                decode_group(&bytes[offset..], first_out);
                decode_group(&bytes[second..], second_out);
                offset += usize::from(two[offset]);
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
