//! The AVX-512 kernels of Parquet's encodings, dispatched by `kernels::encodings` (which
//! holds the portable kernels these are tested against). The encodings without one here
//! run the AVX2 kernels (`avx2::encodings`): every CPU with this tier has AVX2.
//!
//! - GroupVarInt INT32 ([`group_varint`]): four groups a step, each group's window and
//!   `vpshufb` mask in one 128-bit lane of a 512-bit vector; the step's chain is one load
//!   of the sizes of the four groups from a byte, computed up front by pointer jumping with
//!   `vpermi2b`.

pub(in crate::kernels) mod group_varint {
    use crate::kernels::avx2;
    use crate::kernels::encodings::group_varint::{group_bytes_32, SHUFFLE_32};
    use crate::kernels::ssse3::group_varint::{load, SIZE_BY_HIGH_NIBBLE, SIZE_BY_LOW_NIBBLE};
    use std::arch::x86_64::*;

    /// Group starts a block covers at most (as the SSSE3 and AVX2 kernels' blocks).
    const BLOCK: usize = 1024;
    /// Bytes a block needs past its group starts: the sizes of single groups are computed
    /// for `BLOCK + 128` bytes, of pairs for `BLOCK + 64` starts (a pair from a start reaches
    /// up to 34 bytes on, and from there 34 more), of four groups for `BLOCK`; a step's last
    /// group starts before `BLOCK + 51` and its window ends before `BLOCK + 68`.
    const MARGIN: usize = 128;

    /// The sizes (control bytes included) of two and four groups starting at each byte of a
    /// block (at most 34 and 68): where a step's third group starts, and the next step.
    #[repr(C, align(64))]
    struct Sizes {
        two: [u8; BLOCK],
        four: [u8; BLOCK],
    }

    impl Sizes {
        /// Zeroed buffers.
        fn new() -> Self {
            Sizes {
                two: [0; BLOCK],
                four: [0; BLOCK],
            }
        }
    }

    /// Group starts the block at `pos` covers: 64..=BLOCK, a multiple of 64, with `MARGIN`
    /// more bytes in the data, and no more than `groups` groups can span (17 bytes each);
    /// 0 when the data is too short for a block.
    #[inline]
    fn block_len(data: &[u8], pos: usize, groups: usize) -> usize {
        let in_data = data.len().saturating_sub(pos).saturating_sub(MARGIN) & !63;
        let for_groups = groups.saturating_mul(17).saturating_add(63) & !63;
        in_data.min(for_groups).min(BLOCK)
    }

    /// The byte index of every lane.
    const LANES: [u8; 64] = {
        let mut index = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            index[i] = i as u8;
            i += 1;
        }
        index
    };

    /// The sizes of the groups that would start at each of the 64 bytes `c`: 5 + the sum of
    /// each byte's four 2-bit fields, summed per nibble with `vpshufb`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn chunk_sizes(c: __m512i) -> __m512i {
        let low_sums = _mm512_broadcast_i32x4(load(&SIZE_BY_LOW_NIBBLE));
        let high_sums = _mm512_broadcast_i32x4(load(&SIZE_BY_HIGH_NIBBLE));
        let low_nibble = _mm512_set1_epi8(0x0F);
        let lo = _mm512_and_si512(c, low_nibble);
        let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(c), low_nibble);
        _mm512_add_epi8(
            _mm512_shuffle_epi8(low_sums, lo),
            _mm512_shuffle_epi8(high_sums, hi),
        )
    }

    /// The sizes of twice as many groups at 64 starts: `size[q] + size[q + size[q]]` for
    /// the 64 sizes `here` and the 64 after them `after` (each size below 64), the lookup one
    /// `vpermi2b`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn compose(here: __m512i, after: __m512i) -> __m512i {
        // SAFETY: LANES is 64 readable bytes.
        let lanes = unsafe { _mm512_loadu_si512(LANES.as_ptr().cast()) };
        let next = _mm512_permutex2var_epi8(here, _mm512_add_epi8(lanes, here), after);
        _mm512_add_epi8(here, next)
    }

    /// The size pass of one block of `64 · steps` group starts, a step at a time, so that
    /// it can run inside the decode loop of the block before it. Step `i` computes the
    /// single sizes of bytes `64(i + 2)..64(i + 3)`, the pair sizes of starts
    /// `64(i + 1)..64(i + 2)` and the sizes of four groups of starts `64i..64(i + 1)`, and
    /// stores the sizes of two and four groups of starts `64i..64(i + 1)`. The single and
    /// pair sizes the next step needs stay in registers: one 64-byte load and two stores a
    /// step, where storing and reloading every table took seven loads and four stores.
    struct SizePass {
        /// The block's first byte in the data.
        src: *const u8,
        /// Where the sizes go.
        sizes: *mut Sizes,
        /// The steps done.
        step: usize,
        /// The steps of this block.
        steps: usize,
        /// Single sizes of bytes `64(step + 1)..64(step + 2)`.
        one: __m512i,
        /// Pair sizes of starts `64 · step..64(step + 1)`.
        two: __m512i,
    }

    impl SizePass {
        /// Starts the pass of the block at `src`: the single sizes of its first 128 bytes
        /// and the pair sizes of its first 64 starts.
        ///
        /// # Safety
        /// `steps` ≤ `BLOCK / 64`; `64 · steps + MARGIN` bytes from `src` are readable;
        /// `sizes` is valid and not otherwise accessed until the pass is done.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
        unsafe fn new(src: *const u8, sizes: *mut Sizes, steps: usize) -> Self {
            // SAFETY: bytes 0..128 of the block are readable (MARGIN).
            let (first, one) = unsafe {
                (
                    chunk_sizes(_mm512_loadu_si512(src.cast())),
                    chunk_sizes(_mm512_loadu_si512(src.add(64).cast())),
                )
            };
            SizePass {
                src,
                sizes,
                step: 0,
                steps,
                one,
                two: compose(first, one),
            }
        }

        /// A pass with no steps to run.
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn idle() -> Self {
            SizePass {
                src: std::ptr::null(),
                sizes: std::ptr::null_mut(),
                step: 0,
                steps: 0,
                one: _mm512_setzero_si512(),
                two: _mm512_setzero_si512(),
            }
        }

        /// One step, if any is left.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
        fn run_step(&mut self) {
            if self.step < self.steps {
                let q = 64 * self.step;
                // SAFETY: step < steps, so q + 192 ≤ 64 · steps + MARGIN, the bytes
                // readable from `src`; the sizes of two and four groups are written to
                // q..q + 64 ≤ BLOCK (`new`'s contract).
                unsafe {
                    let one = chunk_sizes(_mm512_loadu_si512(self.src.add(q + 128).cast()));
                    let two = compose(self.one, one);
                    let four = compose(self.two, two);
                    _mm512_storeu_si512((*self.sizes).four.as_mut_ptr().add(q).cast(), four);
                    _mm512_storeu_si512((*self.sizes).two.as_mut_ptr().add(q).cast(), self.two);
                    self.one = one;
                    self.two = two;
                }
                self.step += 1;
            }
        }

        /// The steps left.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
        fn finish(&mut self) {
            while self.step < self.steps {
                self.run_step();
            }
        }
    }

    /// Groups left below which the fixed-stride blocks are not used: the last block's size
    /// pass for the block after it is wasted when the groups end inside it, so a call must
    /// ask for enough groups to cross two blocks of the shortest groups.
    const PIPELINE_GROUPS: usize = 2 * BLOCK / 5;

    /// Decodes the four groups from `offset` of the block at `src` into 16 values at `dst`;
    /// returns the offset after them.
    ///
    /// # Safety
    /// `offset` < `BLOCK`; `sizes` holds the block's sizes at `offset`; `offset + 68` bytes
    /// from `src` are readable; 16 values at `dst` are writable.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn decode_quad(src: *const u8, offset: usize, sizes: &Sizes, dst: *mut i32) -> usize {
        let masks = SHUFFLE_32.as_ptr().cast::<u8>();
        // SAFETY: `offset` < BLOCK reads the sizes inside; the groups start at
        // o0 < o1 < o2 < o3 ≤ offset + 51 (17 bytes at most each), and their control bytes
        // and 16-byte windows end by o3 + 17 ≤ offset + 68, readable; a mask is a
        // 16-byte row of SHUFFLE_32 (row `c` at byte 16·c); `dst` as the caller says.
        unsafe {
            let size = |o: usize| group_bytes_32(*src.add(o));
            let o0 = offset;
            let o1 = o0 + size(o0);
            let o2 = o0 + usize::from(*sizes.two.get_unchecked(o0));
            let o3 = o2 + size(o2);
            let window = |o: usize| _mm_loadu_si128(src.add(o + 1).cast());
            let mask = |o: usize| _mm_loadu_si128(masks.add(16 * usize::from(*src.add(o))).cast());
            let mut windows = _mm512_castsi128_si512(window(o0));
            windows = _mm512_inserti32x4::<1>(windows, window(o1));
            windows = _mm512_inserti32x4::<2>(windows, window(o2));
            windows = _mm512_inserti32x4::<3>(windows, window(o3));
            let mut shuffle = _mm512_castsi128_si512(mask(o0));
            shuffle = _mm512_inserti32x4::<1>(shuffle, mask(o1));
            shuffle = _mm512_inserti32x4::<2>(shuffle, mask(o2));
            shuffle = _mm512_inserti32x4::<3>(shuffle, mask(o3));
            _mm512_storeu_si512(dst.cast(), _mm512_shuffle_epi8(windows, shuffle));
            o0 + usize::from(*sizes.four.get_unchecked(o0))
        }
    }

    /// `decode_fast_portable_32` (`kernels::encodings`) four groups a step: per block of up
    /// to 1,024 bytes, the sizes of 2 and 4 groups from each byte are computed first
    /// ([`SizePass`]: pointer jumping, `two[q] = one[q] + one[q + one[q]]` and `four` from
    /// `two` alike, each lookup a `vpermi2b` over 128 sizes), so that the chain from one step
    /// to the next is one load and an add (the second and fourth groups' starts come from
    /// the control bytes before them, off that chain); the four groups' 16-byte windows and masks each go into one
    /// 128-bit lane of a vector, and one `vpshufb` places their 16 ints. A call asking for
    /// [`PIPELINE_GROUPS`] groups or more first runs blocks at a fixed stride of `BLOCK`
    /// bytes (the chain's offset carried from one to the next), each block's size pass a
    /// step per decode step inside the decode loop of the block before it, where it fills
    /// the slots the decode's load chains leave. What is left (fewer than four groups asked
    /// for, or the data's last `MARGIN` bytes) goes to the AVX2 kernel, which stops where the
    /// portable loop does.
    ///
    /// # Safety
    /// The CPU supports AVX-512 F/BW/VBMI and AVX2.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx2")]
    pub(in crate::kernels) unsafe fn decode_32(
        data: &[u8],
        pos: usize,
        out: &mut [i32],
    ) -> (usize, usize) {
        let groups = out.len() / 4;
        // A call too short for one block (a few groups, or near the data's end) goes to the
        // AVX2 kernel without zeroing this kernel's size buffers.
        let (pos, group) = if groups >= 4 && block_len(data, pos, groups) > 0 {
            decode_blocks(data, pos, out)
        } else {
            (pos, 0)
        };
        // SAFETY: the CPU supports AVX2 (the caller's guarantee).
        let (pos, values) =
            unsafe { avx2::encodings::group_varint::decode_32(data, pos, &mut out[4 * group..]) };
        (pos, 4 * group + values)
    }

    /// The blocks of [`decode_32`]: decodes groups four at a time from byte `pos` while a
    /// block fits; returns the byte after them and the groups decoded.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn decode_blocks(data: &[u8], mut pos: usize, out: &mut [i32]) -> (usize, usize) {
        let groups = out.len() / 4;
        let mut group = 0;
        let mut sizes = Sizes::new();
        let dst = out.as_mut_ptr();
        if groups >= PIPELINE_GROUPS && data.len().saturating_sub(pos) >= BLOCK + MARGIN {
            let mut spare = Sizes::new();
            let (mut cur, mut next) = (&mut sizes, &mut spare);
            // SAFETY: BLOCK + MARGIN bytes from `pos` are in `data` (checked above).
            unsafe { SizePass::new(data.as_ptr().add(pos), cur, BLOCK / 64) }.finish();
            let (mut base, mut offset) = (pos, 0);
            loop {
                // `data` holds BLOCK + MARGIN bytes from `base` (checked before the first
                // block and, for the next, here).
                let has_next =
                    data.len() - base >= 2 * BLOCK + MARGIN && groups - group >= PIPELINE_GROUPS;
                let mut pass = if has_next {
                    let next_sizes: *mut Sizes = next;
                    // SAFETY: BLOCK + MARGIN bytes from base + BLOCK are in `data`; `next`
                    // is not used until the pass is done.
                    unsafe {
                        SizePass::new(data.as_ptr().add(base + BLOCK), next_sizes, BLOCK / 64)
                    }
                } else {
                    SizePass::idle()
                };
                // SAFETY: base < data.len() (BLOCK + MARGIN bytes from it are in `data`).
                let src = unsafe { data.as_ptr().add(base) };
                while offset < BLOCK && groups - group >= 4 {
                    // SAFETY: `offset` < BLOCK, `cur` holds the block's sizes and
                    // BLOCK + MARGIN bytes from `src` are in `data`; group + 4 ≤ groups,
                    // so 16 values from 4·group are in `out`.
                    offset = unsafe { decode_quad(src, offset, cur, dst.add(4 * group)) };
                    pass.run_step();
                    group += 4;
                }
                pass.finish();
                if offset < BLOCK || !has_next {
                    break;
                }
                offset -= BLOCK;
                base += BLOCK;
                std::mem::swap(&mut cur, &mut next);
            }
            pos = base + offset;
        }
        while groups - group >= 4 {
            let block = block_len(data, pos, groups - group);
            if block == 0 {
                break;
            }
            // SAFETY: block + MARGIN bytes from `pos` are in `data` (block_len), block ≤
            // BLOCK and a multiple of 64.
            let src = unsafe { data.as_ptr().add(pos) };
            // SAFETY: as above.
            unsafe { SizePass::new(src, &mut sizes, block / 64) }.finish();
            let mut offset = 0;
            while offset < block && groups - group >= 4 {
                // SAFETY: `offset` < block ≤ BLOCK, whose sizes were just computed;
                // offset + 68 < block + MARGIN bytes from `src` are in `data`; group + 4 ≤
                // groups.
                offset = unsafe { decode_quad(src, offset, &sizes, dst.add(4 * group)) };
                group += 4;
            }
            pos += offset;
        }
        (pos, group)
    }
}
