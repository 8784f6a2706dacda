//! The inner loops of Parquet's encodings (`crate::parquet`): DELTA_BINARY_PACKED's
//! miniblocks (unpacking fused with the prefix sum), dictionary gathers, GroupVarInt's
//! INT32 groups and BYTE_STREAM_SPLIT's transposes ([`byte_stream_split`], SSE2 on every
//! x86-64 tier), each a portable kernel here and an AVX2 one in
//! `avx2::encodings`, chosen by [`kernels`] (so `QPL_FALLBACK_KERNELS` decides, as for every
//! other kernel). The AVX-512 tier runs the AVX2 kernels (every CPU with AVX-512 has AVX2) but
//! for GroupVarInt INT32's, which has an AVX-512 one (`avx512::encodings`).
//! GroupVarInt's portable tier runs the SSSE3 kernel (`ssse3`) on an x86-64 CPU with SSSE3.
//!
//! The codecs call only the functions of this module; the portable kernels are the reference
//! the tests below hold the AVX2 ones to, for every length tail.

#[cfg(target_arch = "x86_64")]
use super::avx2;
use super::{kernels, Kernels};

/// Whether the chosen tier has the AVX2 encoding kernels.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
#[inline]
fn avx2_kernels() -> bool {
    match kernels() {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 | Kernels::Avx512Vbmi => true,
    }
}

pub(crate) mod byte_stream_split;

/// The portable kernels: plain Rust that LLVM vectorises where it can.
pub(crate) mod portable {

    /// A width-0 miniblock: every delta is `min`, an arithmetic progression from `acc`;
    /// returns the last value. Each value is computed from its index (no serial dependency,
    /// so LLVM vectorises it).
    macro_rules! progression {
        ($name:ident, $acc:ty, $out:ty) => {
            #[inline(always)]
            pub(crate) fn $name(min: $acc, acc: $acc, out: &mut [$out]) -> $acc {
                for (i, o) in out.iter_mut().enumerate() {
                    // i < a miniblock's values (at most 2^20), so the cast is exact.
                    *o = acc.wrapping_add(min.wrapping_mul(i as $acc + 1)) as $out;
                }
                acc.wrapping_add(min.wrapping_mul(out.len() as $acc))
            }
        };
    }

    progression!(progression_i32, u32, i32);
    progression!(progression_i64, u64, i64);

    /// Value `lane` (0..8) of the group of 8 values of `W` (1..=64) bits packed LSB-first
    /// at the start of `window`, which holds the group's `W` bytes and 8 more: one unaligned
    /// 8-byte load at a constant offset, a constant shift and a mask, and for widths over
    /// 56 bits at some offsets a ninth byte. Everything is a constant once `W` is, so LLVM
    /// drops the bounds checks and emits no branch.
    #[inline(always)]
    fn lane<const W: usize>(window: &[u8], lane: usize) -> u64 {
        let bit = lane * W;
        let (byte, shift) = (bit / 8, bit % 8);
        let word = u64::from_le_bytes(window[byte..byte + 8].try_into().unwrap());
        let mut value = word >> shift;
        if shift + W > 64 {
            // byte < W, so byte + 8 is inside the window's W + 8 bytes.
            value |= u64::from(window[byte + 8]) << (64 - shift);
        }
        if W == 64 {
            value
        } else {
            value & ((1u64 << W) - 1)
        }
    }

    /// The 8 values of the group at the start of `window` (its `W` bytes and 8 more).
    #[inline(always)]
    fn group<const W: usize>(window: &[u8]) -> [u64; 8] {
        let window = &window[..W + 8];
        std::array::from_fn(|i| lane::<W>(window, i))
    }

    /// Group `g` of the values packed at `W` bits from the start of `src`, the bytes past
    /// the end of `src` read as zeros.
    #[inline(always)]
    fn padded_group<const W: usize>(src: &[u8], g: usize) -> [u64; 8] {
        let start = (g * W).min(src.len());
        let end = (start + W).min(src.len());
        let mut window = [0u8; 72];
        window[..end - start].copy_from_slice(&src[start..end]);
        group::<W>(&window)
    }

    /// Sums 8 INT32 deltas of `W` bits (`min` added to each) onto `acc` into `out`; returns
    /// the last sum. In scalar registers: x86-64's baseline SSE2 has no per-lane shift, so
    /// LLVM does not vectorise the unpacking, and a scan in lanes (Hillis–Steele) costs 5.5
    /// adds a value. Width 32 (one load a value, nothing to unpack: the chain of one add a
    /// value is the loop's limit) adds pairs off the chain and the running sum once per pair,
    /// as [`sum8_i64`] (2.5 adds a value); narrower widths add serially (2 adds a value), their
    /// unpacking's shifts and masks leaving the chain no longer than the loop's throughput.
    #[inline(always)]
    fn sum8_i32<const W: usize>(d: [u64; 8], min: u32, mut acc: u32, out: &mut [i32; 8]) -> u32 {
        if W == 32 {
            for k in 0..4 {
                let first = (d[2 * k] as u32).wrapping_add(min);
                let both = (d[2 * k + 1] as u32).wrapping_add(min).wrapping_add(first);
                out[2 * k] = acc.wrapping_add(first) as i32;
                acc = acc.wrapping_add(both);
                out[2 * k + 1] = acc as i32;
            }
            return acc;
        }
        for (o, &d) in out.iter_mut().zip(&d) {
            acc = acc.wrapping_add((d as u32).wrapping_add(min));
            *o = acc as i32;
        }
        acc
    }

    /// Sums 8 INT64 deltas (`min` added to each) onto `acc` into `out`; returns the last
    /// sum. Pairs are added off the dependency chain, the running sum once per pair (`W`,
    /// the width, is not used: the fused kernels pass it to both sums).
    #[inline(always)]
    fn sum8_i64<const W: usize>(d: [u64; 8], min: u64, mut acc: u64, out: &mut [i64; 8]) -> u64 {
        for k in 0..4 {
            let first = d[2 * k].wrapping_add(min);
            let both = d[2 * k + 1].wrapping_add(min).wrapping_add(first);
            out[2 * k] = acc.wrapping_add(first) as i64;
            acc = acc.wrapping_add(both);
            out[2 * k + 1] = acc as i64;
        }
        acc
    }

    /// The fused miniblock kernels of one width, INT32 and INT64: `out.len()` deltas of `W`
    /// bits from the start of `src` (values past its end read as 0), unpacked a group of 8
    /// at a time into registers and summed there with `min` onto `acc`, with no buffer in
    /// between; they return the last sum. Groups with 8 bytes after them in `src` are read
    /// in place, the last ones (and a partial group) through a zero-padded copy, so no read
    /// leaves `src`.
    macro_rules! fused {
        ($name:ident, $out:ty, $acc:ty, $sum8:ident) => {
            #[inline(always)]
            pub(crate) fn $name<const W: usize>(
                src: &[u8],
                min: $acc,
                mut acc: $acc,
                out: &mut [$out],
            ) -> $acc {
                let (groups, tail) = out.as_chunks_mut::<8>();
                let whole = groups.len();
                // Groups g with (g + 1)·W + 8 ≤ src.len().
                let direct = (src.len().saturating_sub(8) / W).min(whole);
                let (fast, slow) = groups.split_at_mut(direct);
                for (g, o) in fast.iter_mut().enumerate() {
                    acc = $sum8::<W>(group::<W>(&src[g * W..]), min, acc, o);
                }
                for (k, o) in slow.iter_mut().enumerate() {
                    acc = $sum8::<W>(padded_group::<W>(src, direct + k), min, acc, o);
                }
                if !tail.is_empty() {
                    let values = padded_group::<W>(src, whole);
                    for (o, &d) in tail.iter_mut().zip(&values) {
                        acc = acc.wrapping_add((d as $acc).wrapping_add(min));
                        *o = acc as $out;
                    }
                }
                acc
            }
        };
    }

    fused!(fused_i32, i32, u32, sum8_i32);
    fused!(fused_i64, i64, u64, sum8_i64);

    /// Calls `$f::<W>($args)` for the runtime width `$width` in `1..=$max` (32 or 64): one
    /// monomorphised kernel per width; `$zero` for width 0 (and past `$max`, which the
    /// codec has refused).
    macro_rules! by_width {
        ($width:expr, $zero:expr, $f:ident $args:tt, $($w:literal)*) => {
            match $width {
                $($w => $f::<$w> $args,)*
                _ => $zero,
            }
        };
    }

    /// DELTA_BINARY_PACKED INT32: `out.len()` deltas of `width` (0..=32) bits packed
    /// LSB-first from the start of `src` (at least ⌈out.len()/8⌉·width bytes, values past
    /// its end read as 0), plus `min`, prefix-summed onto `acc` into `out`; returns the last
    /// sum. Width 0 is an arithmetic progression.
    #[inline]
    pub(crate) fn delta_i32(width: u32, src: &[u8], min: u32, acc: u32, out: &mut [i32]) -> u32 {
        by_width!(width, progression_i32(min, acc, out), fused_i32(src, min, acc, out),
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
    }

    /// [`delta_i32`] for INT64: widths 0..=64, summed in 64 bits.
    #[inline]
    pub(crate) fn delta_i64(width: u32, src: &[u8], min: u64, acc: u64, out: &mut [i64]) -> u64 {
        by_width!(width, progression_i64(min, acc, out), fused_i64(src, min, acc, out),
            1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
            33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
            61 62 63 64)
    }

    /// [`delta_i64`] for the widths 33..=64 only (others: `acc`, nothing written), for the
    /// AVX2 tier, which decodes the narrower ones in vectors.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    #[inline(always)]
    pub(crate) fn delta_wide_i64(
        width: u32,
        src: &[u8],
        min: u64,
        acc: u64,
        out: &mut [i64],
    ) -> u64 {
        by_width!(width, acc, fused_i64(src, min, acc, out),
            33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
            61 62 63 64)
    }

    /// A whole DELTA_BINARY_PACKED block (`super::delta_block_i32`) with `miniblock` per
    /// miniblock: miniblock k (`per_miniblock` values, the last one possibly shorter) has
    /// width `widths[k]` and its body follows the previous one's from the start of `src`.
    /// When the miniblocks it decodes all have one width (random values: every one 64 bits
    /// wide; smooth series: often one width), their bodies are one packed run of that width
    /// (`per_miniblock` is a multiple of 8), decoded by one call: the width's dispatch and
    /// the kernel's setup are paid once a block instead of once a miniblock.
    macro_rules! blocks {
        ($name:ident, $out:ty, $acc:ty, $miniblock:ident) => {
            #[inline]
            pub(crate) fn $name(
                widths: &[u8],
                per_miniblock: usize,
                src: &[u8],
                min: $acc,
                mut acc: $acc,
                out: &mut [$out],
            ) -> $acc {
                let used = &widths[..out.len().div_ceil(per_miniblock.max(1)).min(widths.len())];
                if let [first, rest @ ..] = used {
                    if per_miniblock > 0
                        && per_miniblock % 8 == 0
                        && rest.iter().all(|w| w == first)
                    {
                        let values = (used.len() * per_miniblock).min(out.len());
                        return $miniblock(u32::from(*first), src, min, acc, &mut out[..values]);
                    }
                }
                let mut at = 0;
                for (chunk, &width) in out.chunks_mut(per_miniblock.max(1)).zip(widths) {
                    let body = src.get(at..).unwrap_or(&[]);
                    acc = $miniblock(u32::from(width), body, min, acc, chunk);
                    at += per_miniblock / 8 * usize::from(width);
                }
                acc
            }
        };
    }

    blocks!(delta_block_i32, i32, u32, delta_i32);
    blocks!(delta_block_i64, i64, u64, delta_i64);

    /// Bytes a block's bodies must leave before the data's end for [`walk_blocks`] to decode
    /// it: every group of every kernel then takes its in-place path (the AVX2 unpacker's
    /// 16-byte loads need up to 32 bytes past a miniblock's start, the portable fused
    /// kernels 8 past a group's end).
    pub(crate) const BLOCK_SLACK: usize = 32;

    /// The ULEB128 of at most 10 bytes at byte `pos` (the 10th holding bit 63 alone, as the
    /// codec requires): its value and length, `None` when it is longer, has a 10th byte over
    /// 1 or runs past the data. With 10 bytes in the data it reads one 8-byte word and finds
    /// the last byte by its clear top bit (a block header's min delta is read once a block, and
    /// random INT64 values give 10-byte ones: a byte loop was a quarter of their decode time);
    /// nearer the end, [`uleb128_bytes`].
    #[inline(always)]
    pub(crate) fn min_delta_uleb128(data: &[u8], pos: usize) -> Option<(u64, usize)> {
        let Some(bytes) = data.get(pos..).and_then(|rest| rest.first_chunk::<10>()) else {
            return uleb128_bytes(data, pos);
        };
        let (word, rest) = bytes.split_first_chunk::<8>()?;
        let word = u64::from_le_bytes(*word);
        let ends = !word & 0x8080_8080_8080_8080;
        if ends != 0 {
            let len = ends.trailing_zeros() as usize / 8 + 1;
            return Some((gather_7bit_groups(word & (u64::MAX >> (64 - 8 * len))), len));
        }
        let low = gather_7bit_groups(word);
        match *rest {
            [ninth, _] if ninth < 0x80 => Some((low | u64::from(ninth) << 56, 9)),
            [ninth, tenth] if tenth <= 1 => Some((
                low | u64::from(ninth & 0x7F) << 56 | u64::from(tenth) << 63,
                10,
            )),
            _ => None,
        }
    }

    /// The low 7 bits of each of the 8 bytes of `word`, byte `i`'s at bit `7i`: three
    /// steps, each closing the gaps between pairs of fields.
    #[inline(always)]
    fn gather_7bit_groups(word: u64) -> u64 {
        let x = word & 0x7F7F_7F7F_7F7F_7F7F;
        let x = (x & 0x007F_007F_007F_007F) | ((x & 0x7F00_7F00_7F00_7F00) >> 1);
        let x = (x & 0x0000_3FFF_0000_3FFF) | ((x & 0x3FFF_0000_3FFF_0000) >> 2);
        (x & 0x0000_0000_0FFF_FFFF) | ((x & 0x0FFF_FFFF_0000_0000) >> 4)
    }

    /// [`min_delta_uleb128`] a byte at a time.
    pub(crate) fn uleb128_bytes(data: &[u8], pos: usize) -> Option<(u64, usize)> {
        let mut raw = 0u64;
        for i in 0..10 {
            let byte = *data.get(pos + i)?;
            // A 10th byte holds bit 63 alone (the codec refuses more: it names that error).
            if i == 9 && byte > 1 {
                return None;
            }
            raw |= u64::from(byte & 0x7F) << (7 * i);
            if byte < 0x80 {
                return Some((raw, i + 1));
            }
        }
        None
    }

    /// A whole block's header (its min delta, then one width byte per miniblock) at byte
    /// `pos` of `data`, for the fast path: `(min, widths_at, bodies_at, end)` when the min
    /// delta is a ULEB128 of at most 10 bytes (the 10th holding bit 63 alone, as the codec
    /// requires) whose zigzag value fits `bits` (32 or 64) bits,
    /// every width is at most `bits`, and the bodies end [`BLOCK_SLACK`] bytes or more before
    /// the data's end; `None` otherwise (the codec's own path then decodes the block or
    /// names the error).
    #[inline(always)]
    pub(crate) fn block_header(
        data: &[u8],
        pos: usize,
        miniblocks: usize,
        per_miniblock: usize,
        bits: u32,
    ) -> Option<(u64, usize, usize, usize)> {
        let (raw, len) = min_delta_uleb128(data, pos)?;
        let at = pos + len;
        let min = (raw >> 1) ^ (raw & 1).wrapping_neg();
        if bits == 32 && i64::from(min as i32) != min as i64 {
            return None;
        }
        let widths_at = at;
        let bodies_at = widths_at.checked_add(miniblocks)?;
        let widths = data.get(widths_at..bodies_at)?;
        let (mut max, mut sum) = (0u8, 0usize);
        for &w in widths {
            max = max.max(w);
            sum += usize::from(w);
        }
        if u32::from(max) > bits {
            return None;
        }
        // sum ≤ 64 · miniblocks and per_miniblock · miniblocks ≤ 2^20 (the codec's block
        // size limit): no overflow.
        let end = bodies_at.checked_add(per_miniblock / 8 * sum)?;
        if end.checked_add(BLOCK_SLACK)? > data.len() {
            return None;
        }
        Some((min, widths_at, bodies_at, end))
    }

    /// Decodes whole DELTA_BINARY_PACKED blocks of `miniblocks` miniblocks of `per_miniblock`
    /// values from byte `pos` of `data` into `out` (`out.len() / (miniblocks · per_miniblock)`
    /// of them), each header read and checked by
    /// [`block_header`], its bodies decoded by `block(widths, bodies, min, acc, out)`; stops
    /// at the first block [`block_header`] refuses. Returns the blocks decoded, the byte after
    /// them and the last sum.
    #[inline(always)]
    pub(crate) fn walk_blocks<A: Copy, O>(
        data: &[u8],
        mut pos: usize,
        (miniblocks, per_miniblock): (usize, usize),
        bits: u32,
        mut acc: A,
        out: &mut [O],
        mut block: impl FnMut(&[u8], &[u8], u64, A, &mut [O]) -> A,
    ) -> (usize, usize, A) {
        let mut done = 0;
        for chunk in out.chunks_exact_mut((miniblocks * per_miniblock).max(1)) {
            let Some((min, widths_at, bodies_at, end)) =
                block_header(data, pos, miniblocks, per_miniblock, bits)
            else {
                break;
            };
            acc = block(
                &data[widths_at..bodies_at],
                &data[bodies_at..],
                min,
                acc,
                chunk,
            );
            pos = end;
            done += 1;
        }
        (done, pos, acc)
    }

    /// [`super::delta_blocks_i32`] on the portable tier.
    #[inline]
    pub(crate) fn delta_blocks_i32(
        data: &[u8],
        pos: usize,
        miniblocks: usize,
        per_miniblock: usize,
        acc: u32,
        out: &mut [i32],
    ) -> (usize, usize, u32) {
        walk_blocks(
            data,
            pos,
            (miniblocks, per_miniblock),
            32,
            acc,
            out,
            |w, src, min, acc, out| delta_block_i32(w, per_miniblock, src, min as u32, acc, out),
        )
    }

    /// [`super::delta_blocks_i64`] on the portable tier.
    #[inline]
    pub(crate) fn delta_blocks_i64(
        data: &[u8],
        pos: usize,
        miniblocks: usize,
        per_miniblock: usize,
        acc: u64,
        out: &mut [i64],
    ) -> (usize, usize, u64) {
        walk_blocks(
            data,
            pos,
            (miniblocks, per_miniblock),
            64,
            acc,
            out,
            |w, src, min, acc, out| delta_block_i64(w, per_miniblock, src, min, acc, out),
        )
    }

    /// `out[i] = dictionary[indices[i]]`, every index already checked below
    /// `dictionary.len()` (an index past it is clamped to the last entry, never read out of
    /// bounds); unrolled by 4 so that the loads of several values are in flight at once.
    #[inline]
    pub(crate) fn gather<T: Copy>(indices: &[u32], dictionary: &[T], out: &mut [T]) {
        let Some(last) = dictionary.len().checked_sub(1) else {
            return;
        };
        // The clamp changes nothing for checked indices but lets the compiler drop the
        // bounds checks.
        let at = |i: u32| (i as usize).min(last);
        let mut ins = indices.chunks_exact(4);
        let mut outs = out.chunks_exact_mut(4);
        for (i, o) in (&mut ins).zip(&mut outs) {
            o[0] = dictionary[at(i[0])];
            o[1] = dictionary[at(i[1])];
            o[2] = dictionary[at(i[2])];
            o[3] = dictionary[at(i[3])];
        }
        for (&i, o) in ins.remainder().iter().zip(outs.into_remainder()) {
            *o = dictionary[at(i)];
        }
    }
}

/// DELTA_BINARY_PACKED INT32, a miniblock (or part of one): `out.len()` deltas of `width`
/// (0..=32; 0 is an arithmetic progression of `min`) bits packed LSB-first from the start
/// of `src`, each plus `min`, prefix-summed onto `acc` into `out` (wrapping); returns the
/// last sum. `src` should hold ⌈out.len()/8⌉·width bytes (values past its end are
/// unspecified, nothing is read outside it) and may hold more: the SIMD kernels unpack a
/// group with 16-byte loads, so the bytes after the deltas let them decode the last groups
/// in vectors too. A width above 32 (which the codec refuses) writes nothing.
#[inline]
pub(crate) fn delta_i32(width: u32, src: &[u8], min: u32, acc: u32, out: &mut [i32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        if let Some(width) = super::BitWidth::new(width) {
            // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
            return unsafe { avx2::encodings::delta_i32(width, src, min, acc, out) };
        }
    }
    portable::delta_i32(width, src, min, acc, out)
}

/// A whole DELTA_BINARY_PACKED INT32 block: miniblock k (`per_miniblock` values, a
/// multiple of 8; the last one may be shorter) has width `widths[k]` (≤ 32; 0 is an
/// arithmetic progression of `min`) and its body follows the previous one's from the start
/// of `src`; `out.len()` deltas in all. Returns the last sum. [`delta_i32`] for each
/// miniblock, in one call.
#[inline]
pub(crate) fn delta_block_i32(
    widths: &[u8],
    per_miniblock: usize,
    src: &[u8],
    min: u32,
    acc: u32,
    out: &mut [i32],
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
        return unsafe {
            avx2::encodings::delta_block_i32(widths, per_miniblock, src, min, acc, out)
        };
    }
    portable::delta_block_i32(widths, per_miniblock, src, min, acc, out)
}

/// [`delta_i32`] for INT64: widths 0..=64, summed in 64 bits (a width above 64 writes
/// nothing).
#[inline]
pub(crate) fn delta_i64(width: u32, src: &[u8], min: u64, acc: u64, out: &mut [i64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
        return unsafe { avx2::encodings::delta_i64(width, src, min, acc, out) };
    }
    portable::delta_i64(width, src, min, acc, out)
}

/// [`delta_block_i32`] for INT64 (widths ≤ 64).
#[inline]
pub(crate) fn delta_block_i64(
    widths: &[u8],
    per_miniblock: usize,
    src: &[u8],
    min: u64,
    acc: u64,
    out: &mut [i64],
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
        return unsafe {
            avx2::encodings::delta_block_i64(widths, per_miniblock, src, min, acc, out)
        };
    }
    portable::delta_block_i64(widths, per_miniblock, src, min, acc, out)
}

/// Whole DELTA_BINARY_PACKED INT32 blocks of `miniblocks` miniblocks of `per_miniblock`
/// values (a multiple of 8) from byte `pos` of the page `data`, the headers (min delta,
/// widths) read and checked here: `out.len() / (miniblocks · per_miniblock)` blocks at most,
/// stopping before the first block that is not whole and valid with 32 bytes after it (a
/// min delta out of range or not a ULEB128 of 64 bits, a width above 32, bodies past the data).
/// Returns `(blocks decoded, the byte after them, the last sum)`; the codec decodes the rest
/// its own way. One call for a page's blocks: the per-block calls, the width dispatch and
/// the AVX2 unpack plan's registers are paid once per run of blocks.
#[inline]
pub(crate) fn delta_blocks_i32(
    data: &[u8],
    pos: usize,
    miniblocks: usize,
    per_miniblock: usize,
    acc: u32,
    out: &mut [i32],
) -> (usize, usize, u32) {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
        return unsafe {
            avx2::delta::delta_blocks_i32(data, pos, miniblocks, per_miniblock, acc, out)
        };
    }
    portable::delta_blocks_i32(data, pos, miniblocks, per_miniblock, acc, out)
}

/// [`delta_blocks_i32`] for INT64 (widths ≤ 64, any 64-bit min delta).
#[inline]
pub(crate) fn delta_blocks_i64(
    data: &[u8],
    pos: usize,
    miniblocks: usize,
    per_miniblock: usize,
    acc: u64,
    out: &mut [i64],
) -> (usize, usize, u64) {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
        return unsafe {
            avx2::delta::delta_blocks_i64(data, pos, miniblocks, per_miniblock, acc, out)
        };
    }
    portable::delta_blocks_i64(data, pos, miniblocks, per_miniblock, acc, out)
}

/// Dictionary decoding of 4-byte values: `out[i] = dictionary[indices[i]]` for
/// `min(indices.len(), out.len())` values. Every index must already be checked below
/// `dictionary.len()` (one that is not yields some entry of the dictionary, never a read out
/// of its bounds).
#[inline]
pub(crate) fn gather_u32(indices: &[u32], dictionary: &[u32], out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
        return unsafe { avx2::encodings::gather_u32(indices, dictionary, out) };
    }
    portable::gather(indices, dictionary, out)
}

/// [`gather_u32`] for 8-byte values.
#[inline]
pub(crate) fn gather_u64(indices: &[u32], dictionary: &[u64], out: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
        return unsafe { avx2::encodings::gather_u64(indices, dictionary, out) };
    }
    portable::gather(indices, dictionary, out)
}

/// GroupVarInt INT32's tables and fast path: whole groups decoded while each has a full
/// 16-byte window after its control byte (the codec checks the groups near the data's end).
pub(crate) mod group_varint {
    #[cfg(target_arch = "x86_64")]
    use crate::kernels::{avx2, avx512, ssse3};
    use crate::kernels::{kernels, Kernels};

    /// Bytes of the INT32 group with control byte `c`, control byte excluded (4..=16).
    const GROUP_DATA_LEN_32: [u8; 256] = {
        let mut table = [0u8; 256];
        let mut c = 0;
        while c < 256 {
            table[c] = ((c & 3) + ((c >> 2) & 3) + ((c >> 4) & 3) + (c >> 6) + 4) as u8;
            c += 1;
        }
        table
    };

    /// Bytes of the INT32 group with control byte `control`, the control byte included
    /// (5..=17): how far every decoder steps from one group to the next.
    #[inline(always)]
    pub(crate) fn group_bytes_32(control: u8) -> usize {
        1 + usize::from(GROUP_DATA_LEN_32[usize::from(control)])
    }

    /// Byte offset (after the control byte) and length of each int of the INT32 group with
    /// control byte `c`.
    const fn int_layout_32(c: usize) -> ([usize; 4], [usize; 4]) {
        let mut offsets = [0; 4];
        let mut lengths = [0; 4];
        let mut offset = 0;
        let mut i = 0;
        while i < 4 {
            let len = ((c >> (6 - 2 * i)) & 3) + 1;
            offsets[i] = offset;
            lengths[i] = len;
            offset += len;
            i += 1;
        }
        (offsets, lengths)
    }

    /// The `pshufb` masks: lane byte `4i + b` takes window byte `offset_i + b` for `b < len_i`,
    /// else zero (0x80).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) const SHUFFLE_32: [[u8; 16]; 256] = {
        let mut table = [[0x80u8; 16]; 256];
        let mut c = 0;
        while c < 256 {
            let (offsets, lengths) = int_layout_32(c);
            let mut i = 0;
            while i < 4 {
                let mut b = 0;
                while b < lengths[i] {
                    table[c][4 * i + b] = (offsets[i] + b) as u8;
                    b += 1;
                }
                i += 1;
            }
            c += 1;
        }
        table
    };

    /// Each int's offset in the window, for the portable path.
    const OFFSETS_32: [[u8; 4]; 256] = {
        let mut table = [[0u8; 4]; 256];
        let mut c = 0;
        while c < 256 {
            let (offsets, _) = int_layout_32(c);
            let mut i = 0;
            while i < 4 {
                table[c][i] = offsets[i] as u8;
                i += 1;
            }
            c += 1;
        }
        table
    };

    /// The bytes a group may span (control byte included) for the fast paths' 16-byte window.
    pub(crate) const WINDOW_32: usize = 17;

    /// Byte length − 1 of the INT32 group's int `i` in control byte `control`.
    #[inline(always)]
    pub(crate) fn field_32(control: u8, i: usize) -> u32 {
        u32::from(control >> (6 - 2 * i)) & 3
    }

    /// Decodes whole INT32 groups while each has a full 16-byte window after its control byte;
    /// returns the byte after them and the values decoded.
    pub(crate) fn decode_fast_portable_32(
        data: &[u8],
        mut pos: usize,
        out: &mut [i32],
    ) -> (usize, usize) {
        let mut done = 0;
        for group in out.chunks_exact_mut(4) {
            let Some(window) = data.get(pos..pos + WINDOW_32) else {
                break;
            };
            let control = window[0];
            let offsets = OFFSETS_32[usize::from(control)];
            for (i, value) in group.iter_mut().enumerate() {
                let at = 1 + usize::from(offsets[i]);
                let word = u32::from_le_bytes([
                    window[at],
                    window[at + 1],
                    window[at + 2],
                    window[at + 3],
                ]);
                // Keep the int's (field + 1) bytes: shifting the all-ones word right by
                // 8 * (3 - field) bits.
                let mask = u32::MAX >> (8 * (3 - field_32(control, i)));
                *value = (word & mask) as i32;
            }
            pos += group_bytes_32(control);
            done += 4;
        }
        (pos, done)
    }

    /// Decodes whole INT32 groups from byte `pos` into `out` (`out.len() / 4` groups at
    /// most) with the chosen tier's kernel while each group has [`WINDOW_32`] bytes from its
    /// control byte on; returns the byte after them and the values decoded. Every kernel
    /// stops at the same group.
    #[inline]
    pub(crate) fn decode_fast_32(data: &[u8], pos: usize, out: &mut [i32]) -> (usize, usize) {
        match kernels() {
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx512Vbmi => {
                // SAFETY: the AVX-512 tier is chosen only on a CPU with AVX-512 F/BW/VBMI
                // (and so AVX2).
                unsafe { avx512::encodings::group_varint::decode_32(data, pos, out) }
            }
            #[cfg(target_arch = "x86_64")]
            Kernels::Avx2 => {
                // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
                unsafe { avx2::encodings::group_varint_32(data, pos, out) }
            }
            // The portable tier on x86-64: SSSE3's `pshufb` (`kernels::ssse3`), which every
            // x86-64 CPU since 2006-2011 has (std caches the detection).
            #[cfg(target_arch = "x86_64")]
            Kernels::Portable if std::arch::is_x86_feature_detected!("ssse3") => {
                // SAFETY: the CPU supports SSSE3, just checked.
                unsafe { ssse3::group_varint::decode_32(data, pos, out) }
            }
            Kernels::Portable => decode_fast_portable_32(data, pos, out),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The dispatched kernels (whichever tier runs) and, on a CPU with AVX2, the AVX2 ones
    //! directly, against the portable ones, at every length tail.

    use super::*;
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_imports))]
    use crate::kernels::BitWidth;

    /// Deterministic pseudo-random words.
    fn words(seed: u64, n: usize) -> Vec<u64> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x
            })
            .collect()
    }

    /// Lengths around every vector and unroll boundary.
    fn lengths() -> impl Iterator<Item = usize> {
        (0..=40).chain([63, 64, 65, 127, 128, 129, 1000])
    }

    fn has_avx2() -> bool {
        #[cfg(target_arch = "x86_64")]
        return is_x86_feature_detected!("avx2") && is_x86_feature_detected!("bmi2");
        #[cfg(not(target_arch = "x86_64"))]
        false
    }

    /// Every implementation of a kernel: the dispatched one and (with AVX2) the AVX2 one.
    fn implementations<F: Copy>(dispatched: F, _avx2: F) -> Vec<F> {
        let mut all = vec![dispatched];
        if has_avx2() {
            all.push(_avx2);
        }
        all
    }

    /// Value `i` of `width` bits packed LSB-first from the start of `src`, bit by bit, the
    /// bits past its end read as 0.
    fn packed_value(src: &[u8], width: u32, i: usize) -> u64 {
        (0..width as usize).fold(0u64, |v, b| {
            let k = i * width as usize + b;
            let bit = src.get(k / 8).map_or(0, |byte| (byte >> (k % 8)) & 1);
            v | u64::from(bit) << b
        })
    }

    /// The serial reference of a miniblock: returns the sums and the last one.
    fn serial(src: &[u8], width: u32, n: usize, min: u64, acc: u64) -> (Vec<u64>, u64) {
        let mut sum = acc;
        let sums = (0..n)
            .map(|i| {
                sum = sum.wrapping_add(packed_value(src, width, i).wrapping_add(min));
                sum
            })
            .collect();
        (sums, sum)
    }

    type Mini32 = fn(u32, &[u8], u32, u32, &mut [i32]) -> u32;
    type Mini64 = fn(u32, &[u8], u64, u64, &mut [i64]) -> u64;
    type Block32 = fn(&[u8], usize, &[u8], u32, u32, &mut [i32]) -> u32;
    type Block64 = fn(&[u8], usize, &[u8], u64, u64, &mut [i64]) -> u64;

    /// Every implementation of the DELTA kernels: dispatched, portable and (with AVX2) AVX2.
    fn delta_kernels() -> (Vec<Mini32>, Vec<Mini64>, Vec<Block32>, Vec<Block64>) {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut all = (
            vec![delta_i32 as Mini32, portable::delta_i32],
            vec![delta_i64 as Mini64, portable::delta_i64],
            vec![delta_block_i32 as Block32, portable::delta_block_i32],
            vec![delta_block_i64 as Block64, portable::delta_block_i64],
        );
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            all.0.push(|w, s, m, a, o| match BitWidth::new(w) {
                // SAFETY: pushed only when `has_avx2()` (AVX2 and BMI2).
                Some(w) => unsafe { avx2::encodings::delta_i32(w, s, m, a, o) },
                None => portable::delta_i32(w, s, m, a, o),
            });
            // SAFETY: pushed only when `has_avx2()` (AVX2 and BMI2).
            all.1
                .push(|w, s, m, a, o| unsafe { avx2::encodings::delta_i64(w, s, m, a, o) });
            // SAFETY: pushed only when `has_avx2()` (AVX2 and BMI2).
            all.2.push(|w, p, s, m, a, o| unsafe {
                avx2::encodings::delta_block_i32(w, p, s, m, a, o)
            });
            // SAFETY: pushed only when `has_avx2()` (AVX2 and BMI2).
            all.3.push(|w, p, s, m, a, o| unsafe {
                avx2::encodings::delta_block_i64(w, p, s, m, a, o)
            });
        }
        all
    }

    /// Every width 0..=64 (INT32: 0..=32), length tail and min delta extreme (wrapping), with
    /// the deltas alone and followed by the rest of a page, against the bit-by-bit serial
    /// reference; nothing written past the values.
    #[test]
    fn fused_miniblocks_match_a_bitwise_reference() {
        let (k32, k64, _, _) = delta_kernels();
        let bytes: Vec<u8> = words(8, 1200).iter().map(|&w| w as u8).collect();
        let mins = [(0u64, 0u64), (u64::MAX - 3, 1 << 40), (1 << 63, u64::MAX)];
        for bits in 0..=64u32 {
            for n in lengths().filter(|&n| n <= 130) {
                let need = n.div_ceil(8) * bits as usize;
                for src in [&bytes[..need], &bytes[..need + 40]] {
                    for (min, acc) in mins {
                        let (want, last) = serial(src, bits, n, min, acc);
                        for f in &k64 {
                            let mut got = vec![5; n + 2];
                            let end = f(bits, src, min, acc, &mut got[..n]);
                            assert_eq!(end, last, "i64 width {bits} n {n} min {min}");
                            let got: Vec<u64> = got.iter().map(|&v| v as u64).collect();
                            assert_eq!(&got[..n], &want[..], "i64 width {bits} n {n}");
                            assert_eq!(&got[n..], &[5; 2]);
                        }
                        if bits > 32 {
                            continue;
                        }
                        let (min, acc) = (min as u32 ^ (min >> 32) as u32, acc as u32);
                        let (want, last) = serial(src, bits, n, u64::from(min), u64::from(acc));
                        for f in &k32 {
                            let mut got = vec![5; n + 2];
                            let end = f(bits, src, min, acc, &mut got[..n]);
                            assert_eq!(end, last as u32, "i32 width {bits} n {n} min {min}");
                            let got: Vec<u32> = got.iter().map(|&v| v as u32).collect();
                            let want: Vec<u32> = want.iter().map(|&v| v as u32).collect();
                            assert_eq!(&got[..n], &want[..], "i32 width {bits} n {n}");
                            assert_eq!(&got[n..], &[5; 2]);
                        }
                    }
                }
            }
        }
    }

    /// Whole blocks (every miniblock's width its own, 0 and the maxima among them, the last
    /// miniblock short) against the miniblock kernels one at a time.
    #[test]
    fn blocks_match_miniblocks() {
        let (_, _, b32, b64) = delta_kernels();
        let bytes: Vec<u8> = words(11, 3000).iter().map(|&w| w as u8).collect();
        for widths in [
            [0u8, 0, 0, 0],
            [10, 10, 10, 10],
            [32, 0, 1, 17],
            [5, 31, 26, 3],
            [64, 0, 33, 17],
            [1, 63, 32, 57],
            [64, 64, 64, 64],
        ] {
            for per_miniblock in [8usize, 32, 64] {
                for n in [0, 1, 8, 31, per_miniblock * 2 + 5, per_miniblock * 4] {
                    let n = n.min(per_miniblock * 4);
                    // The reference: one miniblock at a time.
                    let (mut want, mut acc, mut at) = (vec![0; n], 3u64, 0);
                    for (chunk, &w) in want.chunks_mut(per_miniblock).zip(&widths) {
                        let min = 0xFFFF_FFFF_FFFF_FF00;
                        acc = portable::delta_i64(u32::from(w), &bytes[at..], min, acc, chunk);
                        at += per_miniblock / 8 * usize::from(w);
                    }
                    let what = format!("widths {widths:?} per {per_miniblock} n {n}");
                    for f in &b64 {
                        let mut got = vec![1; n + 1];
                        let last = f(&widths, per_miniblock, &bytes, !0xFF, 3, &mut got[..n]);
                        assert_eq!(last, acc, "{what}");
                        assert_eq!(&got[..n], &want[..], "{what}");
                        assert_eq!(got[n], 1);
                    }
                    if widths.iter().any(|&w| w > 32) {
                        continue;
                    }
                    let (mut want, mut acc, mut at) = (vec![0; n], 3u32, 0);
                    for (chunk, &w) in want.chunks_mut(per_miniblock).zip(&widths) {
                        acc = portable::delta_i32(u32::from(w), &bytes[at..], !0xFF, acc, chunk);
                        at += per_miniblock / 8 * usize::from(w);
                    }
                    for f in &b32 {
                        let mut got = vec![1; n + 1];
                        let last = f(&widths, per_miniblock, &bytes, !0xFF, 3, &mut got[..n]);
                        assert_eq!(last, acc, "{what}");
                        assert_eq!(&got[..n], &want[..], "{what}");
                        assert_eq!(got[n], 1);
                    }
                }
            }
        }
    }

    /// The fast path reads every min delta the codec accepts, up to the 10-byte ULEB128s of
    /// 64-bit zigzag values (a page of random INT64 values has them in every block), and
    /// leaves the ones it refuses (a 10th byte over 1, an 11th byte) to the codec.
    #[test]
    fn block_headers_read_ten_byte_min_deltas() {
        // zigzag(i64::MIN) = u64::MAX: nine bytes of 7 one-bits and a 10th holding bit 63.
        let mut page = vec![0xFF; 9];
        page.extend([0x01, 64, 64, 64, 64]);
        page.resize(page.len() + 4 * 8 * 8 + portable::BLOCK_SLACK, 0);
        let header = portable::block_header(&page, 0, 4, 8, 64);
        assert_eq!(header, Some((i64::MIN as u64, 10, 14, 14 + 4 * 64)));
        assert_eq!(
            portable::block_header(&page, 0, 4, 8, 32),
            None,
            "beyond INT32"
        );
        for tenth in [0x02, 0x81] {
            page[9] = tenth;
            assert_eq!(
                portable::block_header(&page, 0, 4, 8, 64),
                None,
                "10th byte {tenth:#x}"
            );
        }
    }

    /// The word-at-a-time ULEB128 read gives what the byte loop gives on every length of
    /// value (1..=10 bytes), on bad 10th bytes and 11-byte ones, and from every position of
    /// a page's last 12 bytes (where it falls back to the loop), values and all.
    #[test]
    fn min_delta_uleb128_matches_the_byte_loop() {
        use portable::{min_delta_uleb128, uleb128_bytes};
        let mut tried = [0usize; 11];
        for (case, word) in words(41, 4000).into_iter().enumerate() {
            // Continuation bits on the first `len - 1` bytes, then clear, then noise.
            let len = 1 + case % 11;
            let mut page: Vec<u8> = word.to_le_bytes().into_iter().cycle().take(16).collect();
            for (i, byte) in page.iter_mut().enumerate() {
                match i.cmp(&(len - 1)) {
                    std::cmp::Ordering::Less => *byte |= 0x80,
                    std::cmp::Ordering::Equal => *byte &= if case % 3 == 0 { 0x7F } else { 0x01 },
                    std::cmp::Ordering::Greater => {}
                }
            }
            let want = uleb128_bytes(&page, 0);
            assert_eq!(min_delta_uleb128(&page, 0), want, "{page:02x?}");
            if let Some((_, got_len)) = want {
                assert_eq!(got_len, len);
                tried[len] += 1;
            }
            for pos in page.len() - 12..=page.len() {
                assert_eq!(
                    min_delta_uleb128(&page, pos),
                    uleb128_bytes(&page, pos),
                    "{page:02x?} from {pos}"
                );
            }
        }
        assert!(tried[1..=10].iter().all(|&n| n > 0), "{tried:?}");
        // 10 bytes: bit 63 alone in the 10th (0 or 1); a 10th byte of 2 or with its top bit
        // set, refused.
        for (tenth, want) in [(0, Some(u64::MAX >> 1)), (1, Some(u64::MAX)), (2, None)] {
            let mut page = vec![0xFF; 9];
            page.extend([tenth, 0x55]);
            assert_eq!(
                min_delta_uleb128(&page, 0),
                want.map(|v| (v, 10)),
                "{tenth}"
            );
        }
        assert_eq!(min_delta_uleb128(&[0xFF; 12], 0), None);
    }

    #[test]
    fn gathers_match_portable() {
        type G32 = fn(&[u32], &[u32], &mut [u32]);
        type G64 = fn(&[u32], &[u64], &mut [u64]);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: called only when `has_avx2()`.
        let (a32, a64): (G32, G64) = (
            |i, d, o| unsafe { avx2::encodings::gather_u32(i, d, o) },
            |i, d, o| unsafe { avx2::encodings::gather_u64(i, d, o) },
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (a32, a64): (G32, G64) = (portable::gather, portable::gather);
        for dict_len in [1usize, 2, 1000, 70_000] {
            let d64 = words(5, dict_len);
            let d32: Vec<u32> = d64.iter().map(|&w| (w >> 7) as u32).collect();
            for n in lengths() {
                let indices: Vec<u32> = words(6 + n as u64, n)
                    .iter()
                    .map(|&w| (w % dict_len as u64) as u32)
                    .collect();
                let want32: Vec<u32> = indices.iter().map(|&i| d32[i as usize]).collect();
                let want64: Vec<u64> = indices.iter().map(|&i| d64[i as usize]).collect();
                for f in implementations::<G32>(gather_u32, a32) {
                    let mut got = vec![9; n + 2];
                    f(&indices, &d32, &mut got[..n]);
                    assert_eq!(&got[..n], &want32[..], "n {n}, {dict_len} entries");
                    assert_eq!(&got[n..], &[9; 2]);
                }
                for f in implementations::<G64>(gather_u64, a64) {
                    let mut got = vec![9; n + 2];
                    f(&indices, &d64, &mut got[..n]);
                    assert_eq!(&got[..n], &want64[..], "n {n}, {dict_len} entries");
                    assert_eq!(&got[n..], &[9; 2]);
                }
            }
        }
    }
}
