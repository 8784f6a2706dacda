//! NEON kernels for the portable tier on aarch64 (little-endian): NEON is part of the aarch64
//! baseline, so they need no detection and run whenever the portable tier does there.
//!
//! Only LSB-first unpacking to `u32` (Parquet's bit-packed runs: dictionary indices, levels,
//! the RLE/bit-packed hybrid's output) is here. The plain loop of `portable` stays scalar for
//! most widths on aarch64 as on x86-64 (LLVM vectorises the eight lanes of a group for some
//! widths only, and then two 64-bit lanes at a time; checked in the assembly, see
//! `docs/parquet-encodings.md`, "The portable tier on aarch64"). This kernel decodes a group of 8 values
//! of `W` bits (`W` bytes) with two 16-byte loads, a `tbl` each that moves every value's
//! bytes into its own 32-bit lane, one `ushl` by the lanes' bit offsets and an `and` (widths up
//! to 25, whose values span at most 4 bytes); wider values span up to 5 bytes and go through
//! 64-bit lanes (four loads and `tbl`s, `ushl`, then `xtn` to 32 bits). Groups are decoded
//! from the source while the loads stay inside it, the last whole groups from a zero-padded
//! copy; a last partial group, and MSB-first order, run the portable kernel, which the tests
//! below hold this one to.

// `kernels` allows unused variables off x86-64 for its dispatchers' x86-only arguments;
// this module is aarch64-only code, so it keeps the lint.
#![warn(unused_variables)]

use core::arch::aarch64::{
    uint32x4_t, vaddq_u32, vaddvq_u32, vandq_u32, vcombine_u32, vdupq_n_u32, vld1q_s32, vld1q_s64,
    vld1q_u8, vmaxq_u32, vmaxvq_u32, vminq_u32, vminvq_u32, vmovn_u64, vqtbl1q_u8,
    vreinterpretq_u32_u8, vreinterpretq_u64_u8, vreinterpretq_u8_u32, vshlq_u32, vshlq_u64,
    vst1q_u8,
};

use super::{portable, BitWidth, MinMaxSum};

/// Widths whose values, from any bit offset in their first byte, fit in 4 bytes.
const fn narrow(w: usize) -> bool {
    w <= 25
}

/// The byte offsets, from a group's start, of the 16-byte loads that decode it: the two
/// halves of 4 values (narrow widths), or the four pairs (wider ones).
const fn load_offsets(w: usize) -> [usize; 4] {
    if narrow(w) {
        [0, 4 * w / 8, 0, 0]
    } else {
        [0, 2 * w / 8, 4 * w / 8, 6 * w / 8]
    }
}

/// The `tbl` indices of each load: lane j of a half takes the 4 bytes its value starts in
/// (narrow widths), lane l of a pair the 8 bytes (wider ones), counted from the load.
const fn byte_indices(w: usize) -> [[u8; 16]; 4] {
    let mut t = [[0u8; 16]; 4];
    let offsets = load_offsets(w);
    let (loads, lanes, bytes) = if narrow(w) { (2, 4, 4) } else { (4, 2, 8) };
    let mut load = 0;
    while load < loads {
        let mut lane = 0;
        while lane < lanes {
            let first = (load * lanes + lane) * w / 8 - offsets[load];
            let mut k = 0;
            while k < bytes {
                t[load][bytes * lane + k] = (first + k) as u8;
                k += 1;
            }
            lane += 1;
        }
        load += 1;
    }
    t
}

/// Minus the bit offset of each value in its first byte: `ushl` by a negative count shifts
/// right. 32-bit lanes of the two halves (narrow widths).
const fn shifts32(w: usize) -> [[i32; 4]; 2] {
    let mut t = [[0i32; 4]; 2];
    let mut i = 0;
    while i < 8 {
        t[i / 4][i % 4] = -((i * w % 8) as i32);
        i += 1;
    }
    t
}

/// [`shifts32`] for the 64-bit lanes of the four pairs (wider widths).
const fn shifts64(w: usize) -> [[i64; 2]; 4] {
    let mut t = [[0i64; 2]; 4];
    let mut i = 0;
    while i < 8 {
        t[i / 2][i % 2] = -((i * w % 8) as i64);
        i += 1;
    }
    t
}

/// Whole groups of `W` bits whose 16-byte loads stay inside `len` bytes.
const fn fitting_groups<const W: usize>(len: usize) -> usize {
    let offsets = load_offsets(W);
    let last = if narrow(W) { offsets[1] } else { offsets[3] };
    // Group g loads bytes g·W + offset .. g·W + offset + 16, the last load ending furthest.
    match len.checked_sub(last + 16) {
        Some(spare) => spare / W + 1,
        None => 0,
    }
}

/// Decodes `groups` groups of 8 values of `W` bits packed LSB-first from `from` as
/// little-endian `u32`s to `to` (32 bytes a group), folding their aggregates into `acc`
/// (min, max, sum lanes) when `AGGREGATE`.
///
/// # Safety
/// `from` is valid for reads of `(groups − 1)·W + last + 16` bytes (`fitting_groups`), `to`
/// for `32 · groups` byte writes (any alignment).
#[inline(always)]
unsafe fn decode<const W: usize, const AGGREGATE: bool>(
    from: *const u8,
    to: *mut u8,
    groups: usize,
    acc: &mut [uint32x4_t; 3],
) {
    let offsets = const { load_offsets(W) };
    let indices = const { byte_indices(W) };
    let shifts32 = const { shifts32(W) };
    let shifts64 = const { shifts64(W) };
    // SAFETY: NEON is part of the aarch64 baseline (this module is compiled for aarch64
    // only). Group g < `groups` reads bytes g·W + offset .. g·W + offset + 16 of `from` and
    // writes bytes 32g .. 32g + 32 of `to`, inside what the caller promised; the tables are
    // read whole from arrays of their size.
    unsafe {
        let mask = vdupq_n_u32(u32::MAX >> (32 - W));
        let index = indices.map(|i| vld1q_u8(i.as_ptr()));
        let shift32 = shifts32.map(|s| vld1q_s32(s.as_ptr()));
        let shift64 = shifts64.map(|s| vld1q_s64(s.as_ptr()));
        let [mut min, mut max, mut sum] = *acc;
        for g in 0..groups {
            let at = from.add(g * W);
            let load = |k: usize| vqtbl1q_u8(vld1q_u8(at.add(offsets[k])), index[k]);
            let (low, high): (uint32x4_t, uint32x4_t) = if narrow(W) {
                (
                    vshlq_u32(vreinterpretq_u32_u8(load(0)), shift32[0]),
                    vshlq_u32(vreinterpretq_u32_u8(load(1)), shift32[1]),
                )
            } else {
                let pair =
                    |k: usize| vmovn_u64(vshlq_u64(vreinterpretq_u64_u8(load(k)), shift64[k]));
                (
                    vcombine_u32(pair(0), pair(1)),
                    vcombine_u32(pair(2), pair(3)),
                )
            };
            let (low, high) = (vandq_u32(low, mask), vandq_u32(high, mask));
            // Little-endian target: a lane's bytes are its value's little-endian bytes.
            vst1q_u8(to.add(32 * g), vreinterpretq_u8_u32(low));
            vst1q_u8(to.add(32 * g + 16), vreinterpretq_u8_u32(high));
            if AGGREGATE {
                min = vminq_u32(min, vminq_u32(low, high));
                max = vmaxq_u32(max, vmaxq_u32(low, high));
                sum = vaddq_u32(sum, vaddq_u32(low, high));
            }
        }
        *acc = [min, max, sum];
    }
}

/// Bytes of the zero-padded copy the last groups are decoded from: more than the at most
/// 24 + 16 + 31 bytes the first pass leaves, with room for those groups' loads.
const PADDED: usize = 128;

/// Decodes the first `room` whole groups of 8 values of `W` bits packed LSB-first from the
/// start of `src` (which holds `room · W` bytes, or the groups past its end decode as zeros)
/// as little-endian `u32`s to `to`: from `src` while the 16-byte loads stay inside it, the
/// last few from a zero-padded copy. Returns `room`, and the groups' aggregates when
/// `AGGREGATE` (else [`MinMaxSum::NONE`]).
///
/// # Safety
/// `to` is valid for `32 · room` byte writes (any alignment).
#[inline(always)]
unsafe fn unpack_groups<const W: usize, const AGGREGATE: bool>(
    src: &[u8],
    to: *mut u8,
    room: usize,
) -> (usize, MinMaxSum) {
    // SAFETY: NEON is baseline on aarch64.
    let mut acc = unsafe { [vdupq_n_u32(u32::MAX), vdupq_n_u32(0), vdupq_n_u32(0)] };
    let direct = fitting_groups::<W>(src.len()).min(room);
    // SAFETY: `direct` groups fit in `src` (`fitting_groups`); `to` has room for them.
    unsafe { decode::<W, AGGREGATE>(src.as_ptr(), to, direct, &mut acc) };
    let mut done = direct;
    while done < room {
        let rest = src.get(done * W..).unwrap_or(&[]);
        let mut padded = [0u8; PADDED];
        let n = rest.len().min(PADDED);
        padded[..n].copy_from_slice(&rest[..n]);
        let more = const { fitting_groups::<W>(PADDED) }.min(room - done);
        // SAFETY: `more` groups fit in `padded` (`fitting_groups`), and `to` has room for
        // groups `done .. done + more` ≤ `room`.
        unsafe { decode::<W, AGGREGATE>(padded.as_ptr(), to.add(32 * done), more, &mut acc) };
        done += more;
    }
    let aggregates = if AGGREGATE && room > 0 {
        let [min, max, sum] = acc;
        // SAFETY: NEON is baseline on aarch64.
        unsafe {
            MinMaxSum {
                min: vminvq_u32(min),
                max: vmaxvq_u32(max),
                sum: vaddvq_u32(sum),
            }
        }
    } else {
        MinMaxSum::NONE
    };
    (room, aggregates)
}

/// The groups [`unpack_groups`] decodes, for a width known at run time.
///
/// # Safety
/// As [`unpack_groups`].
unsafe fn unpack_groups_dyn(
    width: BitWidth,
    aggregate: bool,
    src: &[u8],
    to: *mut u8,
    room: usize,
) -> (usize, MinMaxSum) {
    macro_rules! dispatch {
        ($($w:literal)*) => {
            // SAFETY: the caller's promise, passed on.
            unsafe {
                match (width.get(), aggregate) {
                    $(
                        ($w, false) => unpack_groups::<$w, false>(src, to, room),
                        ($w, true) => unpack_groups::<$w, true>(src, to, room),
                    )*
                    _ => unreachable!("BitWidth is always 1..=32"),
                }
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

/// `portable::unpack_to_le_bytes` (same contract), LSB-first order only: the groups this
/// kernel can decode, then the portable kernel for the rest. Widths 8, 16 and 32 without
/// aggregates stay with the portable kernel, whose widening copies LLVM vectorises.
pub(crate) fn unpack_to_le_bytes(
    width: BitWidth,
    src: &[u8],
    out: &mut [u8],
    aggregate: bool,
) -> MinMaxSum {
    if !aggregate && matches!(width.get(), 8 | 16 | 32) {
        return portable::unpack_to_le_bytes(width, false, src, out, aggregate);
    }
    let len = out.len() / 4 * 4;
    let (out, room) = (&mut out[..len], len / 32);
    // SAFETY: `out` is valid for its `len` ≥ 32 · room byte writes.
    let (groups, head) =
        unsafe { unpack_groups_dyn(width, aggregate, src, out.as_mut_ptr(), room) };
    let used = groups * width.get() as usize;
    let rest = portable::unpack_to_le_bytes(
        width,
        false,
        &src[used..],
        &mut out[32 * groups..],
        aggregate,
    );
    head.merge(rest)
}

/// `portable::unpack` into `u32`s for LSB-first order (the groups this kernel can decode,
/// then the portable kernel for the rest); `false`, nothing written, for MSB-first order or
/// a width outside 1..=32, which the caller decodes with the portable kernel.
pub(crate) fn unpack(width: u32, big_endian: bool, src: &[u8], out: &mut [u32]) -> bool {
    let Some(width) = BitWidth::new(width).filter(|_| !big_endian) else {
        return false;
    };
    let room = out.len() / 8;
    // SAFETY: `out` holds `out.len()` `u32`s, 4 · out.len() ≥ 32 · room bytes (the kernel
    // stores bytes, at any alignment; a `u32`'s bytes are little-endian here).
    let (groups, _) =
        unsafe { unpack_groups_dyn(width, false, src, out.as_mut_ptr().cast(), room) };
    let used = groups * width.get() as usize;
    portable::unpack(width, false, &src[used..], &mut out[8 * groups..]);
    true
}

/// `portable::hybrid_to_le_bytes` (same contract) with this module's bit-packed runs.
pub(crate) fn hybrid_to_le_bytes<const AGGREGATE: bool>(
    width: BitWidth,
    data: &[u8],
    mask: u32,
    out: &mut [u8],
) -> (usize, usize, MinMaxSum) {
    super::runs::hybrid_walk::<AGGREGATE>(
        width.get(),
        data,
        mask,
        out,
        portable::fill_le,
        |src, to| unpack_to_le_bytes(width, src, to, AGGREGATE),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(len: usize, seed: u32) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i.wrapping_add(seed).wrapping_mul(0x9E37_79B9) >> 11) as u8)
            .collect()
    }

    /// Counts around the group sizes and the point where the 16-byte loads stop fitting.
    const COUNTS: [usize; 12] = [0, 1, 7, 8, 9, 15, 16, 17, 24, 63, 64, 1001];

    #[test]
    fn the_tables_stay_inside_each_load() {
        for w in 1..=32 {
            for row in byte_indices(w) {
                assert!(row.iter().all(|&i| i < 16), "w{w}: {row:?}");
            }
            assert!(shifts32(w)
                .as_flattened()
                .iter()
                .all(|&s| (-7..=0).contains(&s)));
        }
    }

    #[test]
    fn unpacking_to_u32_matches_the_portable_kernel_for_every_width_and_tail() {
        let noise = noise(4 * 1001 + 64, 3);
        for width in 1..=32 {
            let w = BitWidth::new(width).unwrap();
            for count in COUNTS {
                // The source exactly as long as the values, and with spare bytes after them.
                let exact = w.packed_bytes(count as u64) as usize;
                for len in [exact, exact + 13] {
                    let src = &noise[..len];
                    let mut want = vec![0xA5A5_A5A5u32; count + 3];
                    portable::unpack(w, false, src, &mut want[..count]);
                    let mut got = vec![0xA5A5_A5A5u32; count + 3];
                    assert!(unpack(width, false, src, &mut got[..count]));
                    assert_eq!(got, want, "w{width} n{count} len{len}");
                }
            }
            assert!(
                !unpack(width, true, &noise, &mut [0; 8]),
                "MSB-first is not here"
            );
        }
        assert!(!unpack(0, false, &noise, &mut [0; 8]));
        assert!(!unpack(33, false, &noise, &mut [0; 8]));
    }

    #[test]
    fn unpacking_to_le_bytes_matches_the_portable_kernel_with_and_without_aggregates() {
        let noise = noise(4 * 1001 + 64, 11);
        for width in 1..=32 {
            let w = BitWidth::new(width).unwrap();
            for count in COUNTS {
                let exact = w.packed_bytes(count as u64) as usize;
                for (len, aggregate) in [(exact, false), (exact + 7, true), (exact, true)] {
                    let src = &noise[..len];
                    // A length that is not a multiple of 4: the last bytes are not a value.
                    let mut want = vec![0x5Au8; 4 * count + 3];
                    let want_agg = portable::unpack_to_le_bytes(
                        w,
                        false,
                        src,
                        &mut want[..4 * count + 2],
                        aggregate,
                    );
                    let mut got = vec![0x5Au8; 4 * count + 3];
                    let got_agg = unpack_to_le_bytes(w, src, &mut got[..4 * count + 2], aggregate);
                    assert_eq!(got, want, "w{width} n{count} len{len} agg{aggregate}");
                    assert_eq!(
                        got_agg, want_agg,
                        "w{width} n{count} len{len} agg{aggregate}"
                    );
                }
            }
        }
    }

    #[test]
    fn hybrid_decoding_matches_the_portable_kernel() {
        // Bit-packed runs of 64 groups, short RLE runs, and a last run cut short by the data.
        for width in [1u32, 3, 7, 12, 20, 25, 26, 31, 32] {
            let w = BitWidth::new(width).unwrap();
            let value_bytes = (width as usize).div_ceil(8);
            let mut data = Vec::new();
            for run in 0..6u32 {
                data.push((64 << 1) | 1); // 64 groups bit-packed: a 2-byte ULEB128 header.
                data.push(1);
                data.extend(noise(64 * width as usize, run));
                data.push(5 << 1); // 5 copies of a value.
                data.extend(&(0x1234_5678u32 & w.mask()).to_le_bytes()[..value_bytes]);
            }
            data.truncate(data.len() - 3);
            let count = 6 * (512 + 5);
            for aggregate in [false, true] {
                let (mut want, mut got) = (vec![0u8; 4 * count + 256], vec![0u8; 4 * count + 256]);
                let (want_r, got_r) = if aggregate {
                    (
                        portable::hybrid_to_le_bytes::<true>(w, &data, w.mask(), &mut want),
                        hybrid_to_le_bytes::<true>(w, &data, w.mask(), &mut got),
                    )
                } else {
                    (
                        portable::hybrid_to_le_bytes::<false>(w, &data, w.mask(), &mut want),
                        hybrid_to_le_bytes::<false>(w, &data, w.mask(), &mut got),
                    )
                };
                assert_eq!(got_r, want_r, "w{width} agg{aggregate}");
                assert!(got_r.0 > 5 * 512, "w{width}: {got_r:?}");
                assert_eq!(
                    got[..4 * got_r.0],
                    want[..4 * want_r.0],
                    "w{width} agg{aggregate}"
                );
            }
        }
    }
}
