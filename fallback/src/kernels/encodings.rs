//! The inner loops of Parquet's encodings (`crate::parquet`): DELTA_BINARY_PACKED's
//! miniblocks (unpacking fused with the prefix sum), dictionary gathers and GroupVarInt's
//! INT32 groups, each a portable kernel here and an AVX2 one in
//! `avx2::encodings`, chosen by [`kernels`] (so `QPL_FALLBACK_KERNELS` decides, as for every
//! other kernel). The AVX-512 tier runs the AVX2 kernels: every CPU with AVX-512 has AVX2.
//!
//! The codecs call only the functions of this module; the portable kernels are the reference
//! the tests below hold the AVX2 ones to, for every length tail.

#[cfg(target_arch = "x86_64")]
use super::avx2;
use super::{kernels, BitWidth, Kernels};

/// Whether the chosen tier has the AVX2 encoding kernels.
#[inline]
fn avx2_kernels() -> bool {
    match kernels() {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 | Kernels::Avx512Vbmi => true,
    }
}

/// The portable kernels: plain Rust that LLVM vectorises where it can.
pub(crate) mod portable {
    use super::BitWidth;

    /// DELTA_BINARY_PACKED: `out.len()` deltas of `width` bits packed LSB-first from the
    /// start of `src` (at least ⌈out.len()/8⌉·width bytes), unpacked 64 at a time and
    /// prefix-summed by [`prefix_sum_i32`] onto `acc`; returns the last sum.
    #[inline]
    pub(crate) fn delta_i32(
        width: BitWidth,
        src: &[u8],
        min: u32,
        acc: u32,
        out: &mut [i32],
    ) -> u32 {
        delta_i32_with(&mut [0; 64], width, src, min, acc, out)
    }

    /// [`delta_i32`] with the caller's buffer for the unpacked deltas.
    #[inline]
    fn delta_i32_with(
        raw: &mut [u32; 64],
        width: BitWidth,
        src: &[u8],
        min: u32,
        acc: u32,
        out: &mut [i32],
    ) -> u32 {
        let mut acc = acc;
        for (k, chunk) in out.chunks_mut(64).enumerate() {
            let from = src.get(k * 8 * width.get() as usize..).unwrap_or(&[]);
            crate::kernels::portable::unpack(width, false, from, &mut raw[..chunk.len()]);
            acc = prefix_sum_i32(&raw[..chunk.len()], min, acc, chunk);
        }
        acc
    }

    /// [`super::delta_block_i32`]: [`delta_i32`] per miniblock.
    #[inline]
    pub(crate) fn delta_block_i32(
        widths: &[u8],
        per_miniblock: usize,
        src: &[u8],
        min: u32,
        mut acc: u32,
        out: &mut [i32],
    ) -> u32 {
        let mut at = 0;
        let mut raw = [0; 64];
        for (chunk, &width) in out.chunks_mut(per_miniblock.max(1)).zip(widths) {
            let body = src.get(at..).unwrap_or(&[]);
            acc = match BitWidth::new(u32::from(width)) {
                Some(width) => delta_i32_with(&mut raw, width, body, min, acc, chunk),
                None => progression_i32(min, acc, chunk),
            };
            at += per_miniblock / 8 * usize::from(width);
        }
        acc
    }

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

    /// [`delta_i32`] for INT64 with deltas of ≤ 32 bits.
    #[inline]
    pub(crate) fn delta_u32_i64(
        width: BitWidth,
        src: &[u8],
        min: u64,
        acc: u64,
        out: &mut [i64],
    ) -> u64 {
        let mut acc = acc;
        let mut raw = [0u32; 64];
        for (k, chunk) in out.chunks_mut(64).enumerate() {
            let from = src.get(k * 8 * width.get() as usize..).unwrap_or(&[]);
            crate::kernels::portable::unpack(width, false, from, &mut raw[..chunk.len()]);
            acc = prefix_sum_u32_i64(&raw[..chunk.len()], min, acc, chunk);
        }
        acc
    }

    /// Prefix sums of `min + raw[i]` onto `acc` into `out` (`min(raw.len(), out.len())`
    /// values); returns the last sum. Lanes of 4 (one 128-bit vector on SSE2 or NEON, where
    /// a lane shift is one instruction) are scanned in two shift-and-add steps
    /// (Hillis–Steele); the running sum is added to the lanes and advanced by their total, so
    /// the serial dependency is one add per 4 values instead of one per value.
    #[inline]
    pub(crate) fn prefix_sum_i32(raw: &[u32], min: u32, mut acc: u32, out: &mut [i32]) -> u32 {
        let mut raws = raw.chunks_exact(4);
        let mut outs = out.chunks_exact_mut(4);
        for (r, o) in (&mut raws).zip(&mut outs) {
            let x = [
                r[0].wrapping_add(min),
                r[1].wrapping_add(min),
                r[2].wrapping_add(min),
                r[3].wrapping_add(min),
            ];
            let x = [
                x[0],
                x[1].wrapping_add(x[0]),
                x[2].wrapping_add(x[1]),
                x[3].wrapping_add(x[2]),
            ];
            let x = [x[0], x[1], x[2].wrapping_add(x[0]), x[3].wrapping_add(x[1])];
            o[0] = x[0].wrapping_add(acc) as i32;
            o[1] = x[1].wrapping_add(acc) as i32;
            o[2] = x[2].wrapping_add(acc) as i32;
            o[3] = x[3].wrapping_add(acc) as i32;
            acc = acc.wrapping_add(x[3]);
        }
        for (r, o) in raws.remainder().iter().zip(outs.into_remainder()) {
            acc = acc.wrapping_add(r.wrapping_add(min));
            *o = acc as i32;
        }
        acc
    }

    /// Prefix sums into INT64: two deltas are added off the dependency chain, then the
    /// running sum once per pair (the 8-lane scan did not beat this for 64-bit lanes).
    macro_rules! prefix_sum_pairs {
        ($name:ident, $raw:ty) => {
            /// Prefix sums of `min + raw[i]` (zero-extended) onto `acc` into `out`; returns
            /// the last sum.
            #[inline]
            pub(crate) fn $name(raw: &[$raw], min: u64, mut acc: u64, out: &mut [i64]) -> u64 {
                let mut raws = raw.chunks_exact(2);
                let mut outs = out.chunks_exact_mut(2);
                for (r, o) in (&mut raws).zip(&mut outs) {
                    let first = (r[0] as u64).wrapping_add(min);
                    let both = (r[1] as u64).wrapping_add(min).wrapping_add(first);
                    o[0] = acc.wrapping_add(first) as i64;
                    acc = acc.wrapping_add(both);
                    o[1] = acc as i64;
                }
                for (r, o) in raws.remainder().iter().zip(outs.into_remainder()) {
                    acc = acc.wrapping_add((*r as u64).wrapping_add(min));
                    *o = acc as i64;
                }
                acc
            }
        };
    }

    prefix_sum_pairs!(prefix_sum_u32_i64, u32);
    prefix_sum_pairs!(prefix_sum_u64_i64, u64);

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
/// bits packed LSB-first from the start of `src`, each plus `min`, prefix-summed onto `acc`
/// into `out` (wrapping); returns the last sum. `src` should hold ⌈out.len()/8⌉·width bytes
/// (values past its end are unspecified, nothing is read outside it) and may hold more: the
/// AVX2 kernel unpacks a group with 16-byte loads, so the bytes after the deltas let it
/// decode the last groups in vectors too.
#[inline]
pub(crate) fn delta_i32(width: BitWidth, src: &[u8], min: u32, acc: u32, out: &mut [i32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
        return unsafe { avx2::encodings::delta_i32(width, src, min, acc, out) };
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

/// [`delta_i32`] for INT64 with deltas of ≤ 32 bits, summed in 64 bits.
#[inline]
pub(crate) fn delta_u32_i64(
    width: BitWidth,
    src: &[u8],
    min: u64,
    acc: u64,
    out: &mut [i64],
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2 and BMI2.
        return unsafe { avx2::encodings::delta_u32_i64(width, src, min, acc, out) };
    }
    portable::delta_u32_i64(width, src, min, acc, out)
}

/// DELTA_BINARY_PACKED INT64 with deltas of 33..=64 bits.
#[inline]
pub(crate) fn prefix_sum_u64_i64(raw: &[u64], min: u64, acc: u64, out: &mut [i64]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
        return unsafe { avx2::encodings::prefix_sum_u64_i64(raw, min, acc, out) };
    }
    portable::prefix_sum_u64_i64(raw, min, acc, out)
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
    use super::avx2;
    use super::avx2_kernels;

    /// Bytes of the INT32 group with control byte `c`, control byte excluded (4..=16).
    pub(crate) const GROUP_DATA_LEN_32: [u8; 256] = {
        let mut table = [0u8; 256];
        let mut c = 0;
        while c < 256 {
            table[c] = ((c & 3) + ((c >> 2) & 3) + ((c >> 4) & 3) + (c >> 6) + 4) as u8;
            c += 1;
        }
        table
    };

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
            pos += 1 + usize::from(GROUP_DATA_LEN_32[usize::from(control)]);
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
        #[cfg(target_arch = "x86_64")]
        if avx2_kernels() {
            // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
            return unsafe { avx2::encodings::group_varint_32(data, pos, out) };
        }
        decode_fast_portable_32(data, pos, out)
    }
}

#[cfg(test)]
mod tests {
    //! The dispatched kernels (whichever tier runs) and, on a CPU with AVX2, the AVX2 ones
    //! directly, against the portable ones, at every length tail.

    use super::*;

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

    #[test]
    fn fused_miniblocks_match_portable() {
        type F32 = fn(BitWidth, &[u8], u32, u32, &mut [i32]) -> u32;
        type F64 = fn(BitWidth, &[u8], u64, u64, &mut [i64]) -> u64;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: called only when `has_avx2()` (AVX2 and BMI2).
        let (a32, a64): (F32, F64) = (
            |w, s, m, a, o| unsafe { avx2::encodings::delta_i32(w, s, m, a, o) },
            |w, s, m, a, o| unsafe { avx2::encodings::delta_u32_i64(w, s, m, a, o) },
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (a32, a64): (F32, F64) = (portable::delta_i32, portable::delta_u32_i64);
        let bytes: Vec<u8> = words(8, 600).iter().map(|&w| w as u8).collect();
        for bits in 1..=32 {
            let width = BitWidth::new(bits).unwrap();
            for n in lengths().filter(|&n| n <= 130) {
                let need = (n.div_ceil(8) * bits as usize).min(bytes.len());
                // The deltas alone, and followed by more bytes (the rest of a page).
                for src in [&bytes[..need], &bytes[..need + 40]] {
                    let mut want = vec![0; n];
                    let last = portable::delta_i32(width, src, 0xFFFF_FFF0, 77, &mut want);
                    let mut wide = vec![0; n];
                    let last64 =
                        portable::delta_u32_i64(width, src, u64::MAX - 3, 1 << 40, &mut wide);
                    // The portable kernel against unpack-then-sum.
                    let mut raw = vec![0u32; n];
                    crate::kernels::portable::unpack(width, false, src, &mut raw);
                    let mut check = vec![0; n];
                    portable::prefix_sum_i32(&raw, 0xFFFF_FFF0, 77, &mut check);
                    assert_eq!(want, check, "width {bits} n {n}");
                    for f in implementations::<F32>(delta_i32, a32) {
                        let mut got = vec![5; n + 2];
                        assert_eq!(f(width, src, 0xFFFF_FFF0, 77, &mut got[..n]), last);
                        assert_eq!(&got[..n], &want[..], "width {bits} n {n}");
                        assert_eq!(&got[n..], &[5; 2]);
                    }
                    for f in implementations::<F64>(delta_u32_i64, a64) {
                        let mut got = vec![5; n + 2];
                        assert_eq!(f(width, src, u64::MAX - 3, 1 << 40, &mut got[..n]), last64);
                        assert_eq!(&got[..n], &wide[..], "width {bits} n {n}");
                        assert_eq!(&got[n..], &[5; 2]);
                    }
                }
            }
        }
    }

    #[test]
    fn blocks_match_miniblocks() {
        type F = fn(&[u8], usize, &[u8], u32, u32, &mut [i32]) -> u32;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: called only when `has_avx2()` (AVX2 and BMI2).
        let avx2: F =
            |w, p, s, m, a, o| unsafe { avx2::encodings::delta_block_i32(w, p, s, m, a, o) };
        #[cfg(not(target_arch = "x86_64"))]
        let avx2: F = portable::delta_block_i32;
        let bytes: Vec<u8> = words(11, 2000).iter().map(|&w| w as u8).collect();
        for widths in [
            [0u8, 0, 0, 0],
            [10, 10, 10, 10],
            [32, 0, 1, 17],
            [5, 31, 26, 3],
        ] {
            for per_miniblock in [8usize, 32, 64] {
                for n in [0, 1, 8, 31, per_miniblock * 2 + 5, per_miniblock * 4] {
                    let n = n.min(per_miniblock * 4);
                    // The reference: one miniblock at a time.
                    let mut want = vec![0; n];
                    let (mut acc, mut at) = (3u32, 0);
                    for (chunk, &w) in want.chunks_mut(per_miniblock).zip(&widths) {
                        acc = match BitWidth::new(u32::from(w)) {
                            Some(width) => {
                                portable::delta_i32(width, &bytes[at..], 0xFFFF_FF00, acc, chunk)
                            }
                            None => portable::progression_i32(0xFFFF_FF00, acc, chunk),
                        };
                        at += per_miniblock / 8 * usize::from(w);
                    }
                    for f in implementations::<F>(delta_block_i32, avx2) {
                        let mut got = vec![1; n + 1];
                        let last = f(
                            &widths,
                            per_miniblock,
                            &bytes,
                            0xFFFF_FF00,
                            3,
                            &mut got[..n],
                        );
                        assert_eq!(last, acc, "widths {widths:?} per {per_miniblock} n {n}");
                        assert_eq!(
                            &got[..n],
                            &want[..],
                            "widths {widths:?} per {per_miniblock} n {n}"
                        );
                        assert_eq!(got[n], 1);
                    }
                }
            }
        }
    }

    #[test]
    fn prefix_sum_i64_matches_portable() {
        type F64 = fn(&[u64], u64, u64, &mut [i64]) -> u64;
        #[cfg(target_arch = "x86_64")]
        // SAFETY: called only when `has_avx2()`.
        let a64: F64 = |r, m, a, o| unsafe { avx2::encodings::prefix_sum_u64_i64(r, m, a, o) };
        #[cfg(not(target_arch = "x86_64"))]
        let a64: F64 = portable::prefix_sum_u64_i64;
        let (min, acc) = (0xFFFF_FFFF_0000_0003u64, u64::MAX - 5);
        for n in lengths() {
            let raw = words(4, n);
            let mut want = vec![0; n];
            let last = portable::prefix_sum_u64_i64(&raw, min, acc, &mut want);
            let mut s = acc;
            for (r, w) in raw.iter().zip(&want) {
                s = s.wrapping_add(r.wrapping_add(min));
                assert_eq!(
                    *w, s as i64,
                    "n {n}: the portable kernel against a serial loop"
                );
            }
            for f in implementations::<F64>(prefix_sum_u64_i64, a64) {
                let mut got = vec![7; n + 3];
                assert_eq!(f(&raw, min, acc, &mut got[..n]), last, "n {n}");
                assert_eq!(&got[..n], &want[..], "n {n}");
                assert_eq!(&got[n..], &[7; 3]);
            }
        }
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
