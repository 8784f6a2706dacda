//! The inner loops of Parquet's encodings (`crate::parquet`): DELTA_BINARY_PACKED's
//! miniblocks (unpacking fused with the prefix sum), dictionary gathers, GroupVarInt's
//! INT32 groups and BYTE_STREAM_SPLIT's transposes ([`byte_stream_split`], SSE2 on every
//! x86-64 tier), each a portable kernel ([`portable`]) and an AVX2 one in
//! `avx2::encodings`, chosen here by [`kernels`] (so `QPL_FALLBACK_KERNELS` decides, as for every
//! other kernel). The AVX-512 tier runs the AVX2 kernels (every CPU with AVX-512 has AVX2) but
//! for GroupVarInt INT32's, which has an AVX-512 one (`avx512::encodings`).
//! GroupVarInt's portable tier runs the SSSE3 kernel (`ssse3`) on an x86-64 CPU with SSSE3.
//!
//! The codecs call the dispatching functions of this module (and the leaf modules' helpers:
//! GroupVarInt's group sizes, the portable gather); the portable kernels are the reference
//! the tests below hold the AVX2 ones to, for every length tail.
//!
//! Imports go one way: this module's dispatch imports the tier modules (`avx2`, `avx512`,
//! `ssse3`), and they import the leaves [`portable`] and [`group_varint`] (the portable
//! kernels, `walk_blocks`, GroupVarInt's tables), which import none of them.

use self::group_varint::decode_fast_portable_32;
#[cfg(target_arch = "x86_64")]
use super::{avx2, avx512, ssse3};
use super::{kernels, Kernels};
pub(crate) use portable::Slot;

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
pub(crate) mod group_varint;
pub(crate) mod portable;

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
/// `min(indices.len(), out.len())` values (into `u32`s, or appended into a `Vec`'s spare
/// room as `MaybeUninit`s: see [`Slot`]). Every index must already be checked below
/// `dictionary.len()` (one that is not yields some entry of the dictionary, never a read out
/// of its bounds).
#[inline]
pub(crate) fn gather_u32<S: Slot<u32>>(indices: &[u32], dictionary: &[u32], out: &mut [S]) {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
        return unsafe { avx2::encodings::gather_u32(indices, dictionary, out) };
    }
    portable::gather(indices, dictionary, out)
}

/// The largest of `values` (0 for none): the check of a run of dictionary indices.
#[inline]
pub(crate) fn max_u32(values: &[u32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
        return unsafe { avx2::encodings::max_u32(values) };
    }
    values.iter().fold(0, |m, &x| m.max(x))
}

/// [`gather_u32`] for 8-byte values.
#[inline]
pub(crate) fn gather_u64<S: Slot<u64>>(indices: &[u32], dictionary: &[u64], out: &mut [S]) {
    #[cfg(target_arch = "x86_64")]
    if avx2_kernels() {
        // SAFETY: the AVX2 tier is chosen only on a CPU with AVX2.
        return unsafe { avx2::encodings::gather_u64(indices, dictionary, out) };
    }
    portable::gather(indices, dictionary, out)
}

/// GroupVarInt INT32's fast path: decodes whole groups from byte `pos` into `out`
/// (`out.len() / 4` groups at most) with the chosen tier's kernel while each group has
/// [`group_varint::WINDOW_32`] bytes from its control byte on; returns the byte after them
/// and the values decoded. Every kernel stops at the same group
/// ([`group_varint::decode_fast_portable_32`]'s).
#[inline]
pub(crate) fn group_varint_32(data: &[u8], pos: usize, out: &mut [i32]) -> (usize, usize) {
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

    type G32 = fn(&[u32], &[u32], &mut [u32]);
    type G64 = fn(&[u32], &[u64], &mut [u64]);

    /// Every implementation of the 4- and 8-byte gathers ([`implementations`]).
    fn gathers() -> (Vec<G32>, Vec<G64>) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: called only when `has_avx2()`.
        let (a32, a64): (G32, G64) = (
            |i, d, o| unsafe { avx2::encodings::gather_u32(i, d, o) },
            |i, d, o| unsafe { avx2::encodings::gather_u64(i, d, o) },
        );
        #[cfg(not(target_arch = "x86_64"))]
        let (a32, a64): (G32, G64) = (portable::gather, portable::gather);
        (
            implementations::<G32>(gather_u32, a32),
            implementations::<G64>(gather_u64, a64),
        )
    }

    #[test]
    fn gathers_match_portable() {
        let (gathers32, gathers64) = gathers();
        // Every size the register lookups take (up to 8 and 16 entries), either side of them,
        // and the gathers' sizes.
        for dict_len in [1usize, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 1000, 70_000] {
            let d64 = words(5, dict_len);
            let d32: Vec<u32> = d64.iter().map(|&w| (w >> 7) as u32).collect();
            for n in lengths() {
                let indices: Vec<u32> = words(6 + n as u64, n)
                    .iter()
                    .map(|&w| (w % dict_len as u64) as u32)
                    .collect();
                let want32: Vec<u32> = indices.iter().map(|&i| d32[i as usize]).collect();
                let want64: Vec<u64> = indices.iter().map(|&i| d64[i as usize]).collect();
                for f in &gathers32 {
                    let mut got = vec![9; n + 2];
                    f(&indices, &d32, &mut got[..n]);
                    assert_eq!(&got[..n], &want32[..], "n {n}, {dict_len} entries");
                    assert_eq!(&got[n..], &[9; 2]);
                }
                for f in &gathers64 {
                    let mut got = vec![9; n + 2];
                    f(&indices, &d64, &mut got[..n]);
                    assert_eq!(&got[..n], &want64[..], "n {n}, {dict_len} entries");
                    assert_eq!(&got[n..], &[9; 2]);
                }
            }
        }
    }

    #[test]
    fn gathers_clamp_indices_past_the_dictionary_to_its_last_entry() {
        let (gathers32, gathers64) = gathers();
        for dict_len in [1usize, 3, 8, 12, 16, 40] {
            let d64: Vec<u64> = (0..dict_len as u64).map(|e| e << 33 | (e + 1)).collect();
            let d32: Vec<u32> = d64.iter().map(|&w| w as u32).collect();
            let past = [dict_len as u32, dict_len as u32 + 7, 1 << 31, u32::MAX];
            let indices: Vec<u32> = (0..37u32)
                .map(|k| match k % 3 {
                    0 => past[(k as usize / 3) % 4],
                    _ => k % dict_len as u32,
                })
                .collect();
            let at = |i: u32| (i as usize).min(dict_len - 1);
            let want32: Vec<u32> = indices.iter().map(|&i| d32[at(i)]).collect();
            let want64: Vec<u64> = indices.iter().map(|&i| d64[at(i)]).collect();
            for f in &gathers32 {
                let mut got = vec![0; indices.len()];
                f(&indices, &d32, &mut got);
                assert_eq!(got, want32, "{dict_len} entries");
            }
            for f in &gathers64 {
                let mut got = vec![0; indices.len()];
                f(&indices, &d64, &mut got);
                assert_eq!(got, want64, "{dict_len} entries");
            }
        }
    }

    #[test]
    fn max_u32_is_the_largest_value() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: called only when `has_avx2()`.
        let avx2: fn(&[u32]) -> u32 = |v| unsafe { avx2::encodings::max_u32(v) };
        #[cfg(not(target_arch = "x86_64"))]
        let avx2: fn(&[u32]) -> u32 = max_u32;
        for n in lengths() {
            let mut values: Vec<u32> = words(11 + n as u64, n)
                .iter()
                .map(|&w| w as u32 >> 3)
                .collect();
            // The largest at each end, and one with the top bit set (signed lanes would miss it).
            for (k, top) in [(0, false), (n.saturating_sub(1), false), (n / 2, true)] {
                if let Some(v) = values.get_mut(k) {
                    *v = if top { u32::MAX - 1 } else { u32::MAX >> 2 };
                }
                let want = values.iter().copied().max().unwrap_or(0);
                for f in implementations::<fn(&[u32]) -> u32>(max_u32, avx2) {
                    assert_eq!(f(&values), want, "n {n}");
                }
            }
        }
    }
}
