//! The AVX2 kernels of Parquet's encodings, dispatched by `kernels::encodings` (which holds
//! the portable kernels these are tested against).
//!
//! - Prefix sums (DELTA_BINARY_PACKED): a vector of 8 (INT32) or 4 (INT64) deltas is scanned
//!   in registers (shift-and-add inside each 128-bit half, then the low half's total added
//!   to the high half), off the loop's dependency chain; the chain is one vector add per
//!   vector (the running sum plus the vector's total, broadcast), not one add per value;
//!   INT32 miniblocks scan two vectors at a time, the chain one add per pair.
//! - Miniblocks (DELTA_BINARY_PACKED with deltas of ≤ 32 bits): unpacking fused with the
//!   prefix sum: each group of 8 deltas is unpacked into a register by the AVX2 unpacker's
//!   `Decoder` (`avx2.rs`), scanned there and stored once, with no buffer in between; a
//!   block's miniblocks in one loop, the running sum in a register throughout (runs of
//!   blocks, headers included: `avx2::delta`). INT64 deltas of ≤ 29 bits are scanned in
//!   32-bit lanes and widened (`min` added in those lanes when every `min + delta` is below
//!   2^29, two groups an iteration, widths ≤ 14 from one broadcast load); 33..=63 bits: the portable fused kernels, compiled here with
//!   AVX2 and BMI2; 64 bits: loaded as words.
//! - GroupVarInt INT32 ([`group_varint`]): pairs of groups shuffled into place by one
//!   `vpshufb`, their positions from the sizes of 1 and 2 groups starting at each byte,
//!   computed 32 bytes a vector for blocks of up to 1,024 bytes (pointer jumping), so that the
//!   position chain is one load and an add per 2 groups.
//! - Gathers (dictionaries): `vpgatherdd` / `vpgatherdq` of 8 / 4 entries per instruction,
//!   each index clamped to the dictionary's last entry first, so no index reads outside it.
//! - BYTE_STREAM_SPLIT joins ([`byte_stream_split`]): the SSE2 unpack network on 256-bit
//!   vectors, 32 values a step.

use std::arch::x86_64::*;

use super::{plan_and_groups, Decoder, Plan, PLANS};
use crate::kernels::encodings::portable as portable_encodings;
use crate::kernels::encodings::Slot;
use crate::kernels::BitWidth;

/// Scans 8 32-bit lanes (each already `min + delta`) onto `acc_v` (the running sum in every
/// lane): returns the sums and the new running sum.
#[inline]
#[target_feature(enable = "avx2")]
fn scan8_i32(mut x: __m256i, acc_v: __m256i) -> (__m256i, __m256i) {
    x = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
    x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
    // Lane 3 (the low half's total) broadcast in each half, then moved to the high half with
    // the low half zeroed.
    let low_total = _mm256_shuffle_epi32::<0xFF>(x);
    x = _mm256_add_epi32(x, _mm256_permute2x128_si256::<0x08>(low_total, low_total));
    let total = _mm256_permutevar8x32_epi32(x, _mm256_set1_epi32(7));
    (_mm256_add_epi32(x, acc_v), _mm256_add_epi32(acc_v, total))
}

/// Scans two vectors of 8 32-bit lanes (each already `min + delta`; `a`'s values first)
/// onto `acc_v` (the running sum in every lane): returns both vectors' sums and the new
/// running sum. Each vector's half totals take 2 lane moves (`vpshufd` to broadcast lanes 3
/// and 7 in their halves, `vperm2i128` to swap the halves: their sum is the vector's total,
/// and the swapped copy's high half the low half's total, added to the high half by a
/// blend), against 4 in [`scan8_i32`]; the loop's chain is the adds of the totals.
#[inline]
#[target_feature(enable = "avx2")]
fn scan16_i32(mut a: __m256i, mut b: __m256i, acc_v: __m256i) -> (__m256i, __m256i, __m256i) {
    a = _mm256_add_epi32(a, _mm256_slli_si256::<4>(a));
    b = _mm256_add_epi32(b, _mm256_slli_si256::<4>(b));
    a = _mm256_add_epi32(a, _mm256_slli_si256::<8>(a));
    b = _mm256_add_epi32(b, _mm256_slli_si256::<8>(b));
    // [a3 ×4 | a7 ×4] and [a7 ×4 | a3 ×4].
    let a_halves = _mm256_shuffle_epi32::<0xFF>(a);
    let a_swapped = _mm256_permute2x128_si256::<0x01>(a_halves, a_halves);
    let b_halves = _mm256_shuffle_epi32::<0xFF>(b);
    let b_swapped = _mm256_permute2x128_si256::<0x01>(b_halves, b_halves);
    let a_total = _mm256_add_epi32(a_halves, a_swapped);
    let b_total = _mm256_add_epi32(b_halves, b_swapped);
    let acc_b = _mm256_add_epi32(acc_v, a_total);
    // The running sum in the low half, plus the low half's total in the high half.
    let a_sums = _mm256_add_epi32(
        a,
        _mm256_blend_epi32::<0xF0>(acc_v, _mm256_add_epi32(acc_v, a_swapped)),
    );
    let b_sums = _mm256_add_epi32(
        b,
        _mm256_blend_epi32::<0xF0>(acc_b, _mm256_add_epi32(acc_b, b_swapped)),
    );
    let next = _mm256_add_epi32(acc_v, _mm256_add_epi32(a_total, b_total));
    (a_sums, b_sums, next)
}

/// The unpacker's plan for `width` (LSB-first) and how many of the `count` values' groups
/// it may decode with loads inside `src`: all of them, without the division
/// `plan_and_groups` needs, when `src` holds 32 bytes past them (a miniblock followed by
/// the rest of its page, the usual case).
#[inline(always)]
fn miniblock_plan(width: BitWidth, src: &[u8], count: usize) -> (&'static Plan, usize) {
    let w = width.get() as usize;
    let p = &PLANS[w - 1];
    let all = count / 8;
    // Group g reads bytes g·w .. g·w + high_offset + 16, and high_offset ≤ w/2.
    if src.len() >= all * w + 32 {
        return (p, all);
    }
    (p, groups_near_end(width, src, count))
}

/// [`miniblock_plan`]'s count near the end of `src`, out of line (a page's last miniblock).
#[cold]
fn groups_near_end(width: BitWidth, src: &[u8], count: usize) -> usize {
    plan_and_groups(width, false, src, count).1
}

/// One DELTA_BINARY_PACKED miniblock chunk of INT32: `out.len()` deltas of `width` bits
/// packed LSB-first from the start of `src` (which should hold ⌈out.len()/8⌉·width bytes,
/// and may hold more: the bytes after them let more groups take the vector path), `min`
/// added to each and prefix-summed onto `acc` into `out`; returns the last sum.
/// [`delta_block_i32`] of one miniblock.
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
pub(in crate::kernels) unsafe fn delta_i32(
    width: BitWidth,
    src: &[u8],
    min: u32,
    acc: u32,
    out: &mut [i32],
) -> u32 {
    let len = out.len();
    // SAFETY: AVX2 and BMI2 are available (the caller's guarantee).
    unsafe { delta_block_i32(&[width.get() as u8], len, src, min, acc, out) }
}

/// The decoder of the last width a block kernel unpacked, kept while the width repeats
/// (a block's miniblocks often share one).
pub(super) struct Cached {
    width: u8,
    decoder: Decoder,
}

/// The decoder for `p` (of width `width`), from `cache` when it holds that width's.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
fn decoder_for<'c>(cache: &'c mut Option<Cached>, width: u8, p: &Plan) -> &'c Decoder {
    if cache.as_ref().is_none_or(|c| c.width != width) {
        // SAFETY: AVX2 is available (this function's target features).
        let decoder = unsafe { Decoder::new(p) };
        *cache = Some(Cached { width, decoder });
    }
    &cache.as_ref().unwrap().decoder
}

/// A whole DELTA_BINARY_PACKED INT32 block (`kernels::encodings::delta_block_i32`) in one
/// loop: the running sum stays in a vector register from miniblock to miniblock, the unpack
/// plan's registers are kept while the width repeats, width-32 miniblocks are loaded as
/// words and width-0 ones are arithmetic progressions. Each group of 8 deltas is unpacked
/// into a register by the AVX2 unpacker's `Decoder` (`avx2.rs`), two groups at a time,
/// scanned there ([`scan16_i32`]) and stored once. The groups whose 16-byte loads would pass the end of
/// `src` (and a partial group) go to the portable fused kernel.
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(in crate::kernels) unsafe fn delta_block_i32(
    widths: &[u8],
    per_miniblock: usize,
    src: &[u8],
    min: u32,
    acc: u32,
    out: &mut [i32],
) -> u32 {
    let min_v = _mm256_set1_epi32(min as i32);
    let mut acc_v = _mm256_set1_epi32(acc as i32);
    let mut cache = None;
    let mut at = 0;
    for (chunk, &width) in out.chunks_mut(per_miniblock.max(1)).zip(widths) {
        let body = src.get(at..).unwrap_or(&[]);
        at += per_miniblock / 8 * usize::from(width);
        acc_v = miniblock_i32(width, body, min, min_v, acc_v, chunk, &mut cache);
    }
    _mm256_cvtsi256_si32(acc_v) as u32
}

/// One INT32 miniblock of [`delta_block_i32`]: `chunk.len()` deltas of `width` (0..=32)
/// bits from the start of `body`, `min` (also in every lane of `min_v`) added, summed onto
/// the running sum in every lane of `acc_v`; returns the new running sum (in every lane).
/// `cache` keeps the last width's unpack plan in registers.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
pub(super) fn miniblock_i32(
    width: u8,
    body: &[u8],
    min: u32,
    min_v: __m256i,
    mut acc_v: __m256i,
    chunk: &mut [i32],
    cache: &mut Option<Cached>,
) -> __m256i {
    let Some(bits) = BitWidth::new(u32::from(width)) else {
        // Width 0 (the codec has checked every width ≤ 32).
        let acc = _mm256_cvtsi256_si32(acc_v) as u32;
        let acc = portable_encodings::progression_i32(min, acc, chunk);
        return _mm256_set1_epi32(acc as i32);
    };
    // Scans the first `$groups` groups of 8 deltas, group `$g` loaded by `$load` (a
    // `__m256i` of 8 deltas): two groups loaded before either is scanned, so that their
    // loads or unpacks overlap and the pair's scan shares its lane moves.
    macro_rules! scan_groups {
        ($groups:expr, |$g:ident| $load:expr) => {{
            let groups = $groups;
            for g in (0..groups & !1).step_by(2) {
                // SAFETY: groups g and g + 1 are among `groups`, whose loads the caller
                // keeps inside `body`; they write values 8g..8g + 16 of `chunk`, inside its
                // length ≥ 8·groups.
                unsafe {
                    let a = {
                        let $g = g;
                        $load
                    };
                    let b = {
                        let $g = g + 1;
                        $load
                    };
                    let (a, b, next) = scan16_i32(
                        _mm256_add_epi32(a, min_v),
                        _mm256_add_epi32(b, min_v),
                        acc_v,
                    );
                    _mm256_storeu_si256(chunk.as_mut_ptr().add(8 * g).cast(), a);
                    _mm256_storeu_si256(chunk.as_mut_ptr().add(8 * g + 8).cast(), b);
                    acc_v = next;
                }
            }
            for g in groups & !1..groups {
                // SAFETY: as above, for group g alone (values 8g..8g + 8).
                unsafe {
                    let deltas = {
                        let $g = g;
                        $load
                    };
                    let (sums, next) = scan8_i32(_mm256_add_epi32(deltas, min_v), acc_v);
                    _mm256_storeu_si256(chunk.as_mut_ptr().add(8 * g).cast(), sums);
                    acc_v = next;
                }
            }
            groups
        }};
    }
    let groups = if width == 32 {
        // The deltas are little-endian words: loaded as they are, nothing to unpack. Group
        // g is bytes 32g..32g + 32, inside `body` for g < body.len() / 32.
        scan_groups!((body.len() / 32).min(chunk.len() / 8), |g| {
            _mm256_loadu_si256(body.as_ptr().add(32 * g).cast())
        })
    } else {
        // `miniblock_plan` counts only groups whose loads stay inside `body`.
        let (p, groups) = miniblock_plan(bits, body, chunk.len());
        let decoder = decoder_for(cache, width, p);
        if p.five {
            scan_groups!(groups, |g| decoder
                .group::<false, true>(body.as_ptr().add(g * p.width)))
        } else {
            scan_groups!(groups, |g| decoder
                .group::<false, false>(body.as_ptr().add(g * p.width)))
        }
    };
    if 8 * groups < chunk.len() {
        let acc = _mm256_cvtsi256_si32(acc_v) as u32;
        let rest = body.get(groups * usize::from(width)..).unwrap_or(&[]);
        let acc =
            portable_encodings::delta_i32(bits.get(), rest, min, acc, &mut chunk[8 * groups..]);
        acc_v = _mm256_set1_epi32(acc as i32);
    }
    acc_v
}

/// The inclusive prefix sums of 8 32-bit lanes (wrapping; exact when they stay below 2^32).
#[inline]
#[target_feature(enable = "avx2")]
fn scan8_u32_exact(mut x: __m256i) -> __m256i {
    x = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
    x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
    let low_total = _mm256_shuffle_epi32::<0xFF>(x);
    _mm256_add_epi32(x, _mm256_permute2x128_si256::<0x08>(low_total, low_total))
}

/// Scans 4 64-bit lanes (each already `min + delta`) onto `acc_v` (the running sum in every
/// lane): returns the sums and the new running sum.
#[inline]
#[target_feature(enable = "avx2")]
fn scan4_i64(mut x: __m256i, acc_v: __m256i) -> (__m256i, __m256i) {
    x = _mm256_add_epi64(x, _mm256_slli_si256::<8>(x));
    // Lane 1 (the low half's total) into the high half, the low half zeroed.
    let low_total = _mm256_shuffle_epi32::<0xEE>(x);
    x = _mm256_add_epi64(x, _mm256_permute2x128_si256::<0x08>(low_total, low_total));
    let total = _mm256_permute4x64_epi64::<0xFF>(x);
    (_mm256_add_epi64(x, acc_v), _mm256_add_epi64(acc_v, total))
}

/// DELTA_BINARY_PACKED INT64 (`kernels::encodings::delta_i64`): [`delta_block_i64`] of
/// one miniblock.
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
pub(in crate::kernels) unsafe fn delta_i64(
    width: u32,
    src: &[u8],
    min: u64,
    acc: u64,
    out: &mut [i64],
) -> u64 {
    let Ok(width) = u8::try_from(width) else {
        return acc;
    };
    let len = out.len();
    // SAFETY: AVX2 and BMI2 are available (the caller's guarantee).
    unsafe { delta_block_i64(&[width], len, src, min, acc, out) }
}

/// A whole DELTA_BINARY_PACKED INT64 block (`kernels::encodings::delta_block_i64`) in one
/// loop, as [`delta_block_i32`]: widths 1..=32 unpacked by the AVX2 unpacker into 8 32-bit
/// lanes; up to 29 bits scanned there ([`scan8_u32_exact`]: 8 such deltas sum below 2^32),
/// then widened and `min`·(i + 1) added per lane; 30..=32 bits widened to two vectors of 4
/// 64-bit lanes and scanned there ([`scan4_i64`]); widths 33..=63 by the portable fused
/// kernels (8 values a group, unpacked with unaligned 8-byte loads into registers and summed
/// there), compiled here with AVX2 and BMI2; width 64 loaded as words, 4 a vector, and
/// scanned in place; width 0 an arithmetic progression. A width above 64 (refused by the
/// codec) writes nothing.
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(in crate::kernels) unsafe fn delta_block_i64(
    widths: &[u8],
    per_miniblock: usize,
    src: &[u8],
    min: u64,
    mut acc: u64,
    out: &mut [i64],
) -> u64 {
    let min_v = _mm256_set1_epi64x(min as i64);
    let mut cache = None;
    let mut at = 0;
    for (chunk, &width) in out.chunks_mut(per_miniblock.max(1)).zip(widths) {
        let body = src.get(at..).unwrap_or(&[]);
        at += per_miniblock / 8 * usize::from(width);
        acc = miniblock_i64(width, body, min, min_v, acc, chunk, &mut cache);
    }
    acc
}

/// Width-64 INT64 deltas: little-endian 8-byte words, loaded as they are 4 at a time
/// (`min(body.len() / 32, chunk.len() / 4)` quads), `min` (in every lane of `min_v`) added
/// and scanned onto `acc_v` (the running sum in every lane) into `chunk`; returns the new
/// running sum. Small enough to inline into the block walk (`avx2::delta`), which then pays
/// no call or stack frame per block of random values.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn scan_words_i64(
    body: &[u8],
    min_v: __m256i,
    mut acc_v: __m256i,
    chunk: &mut [i64],
) -> __m256i {
    let quads = (body.len() / 32).min(chunk.len() / 4);
    for q in 0..quads {
        // SAFETY: quad q is bytes 32q .. 32q + 32 ≤ body.len() and writes values
        // 4q .. 4q + 4 of `chunk`, inside its length ≥ 4·quads.
        unsafe {
            let deltas = _mm256_loadu_si256(body.as_ptr().add(32 * q).cast());
            let (sums, next) = scan4_i64(_mm256_add_epi64(deltas, min_v), acc_v);
            _mm256_storeu_si256(chunk.as_mut_ptr().add(4 * q).cast(), sums);
            acc_v = next;
        }
    }
    acc_v
}

/// Whether `width`-bit deltas plus `min` are each below 2^29 (`min` not negative, small next
/// to the width's range: sorted columns), so that 8 of them sum below 2^32 and a group of 8
/// can be scanned in 32-bit lanes ([`fold_groups_i64`]).
#[inline]
fn folds(width: u8, min: u64) -> bool {
    let widest = u64::MAX
        .checked_shr(64 - u32::from(width.min(64)))
        .unwrap_or(0);
    min.checked_add(widest).is_some_and(|top| top < 1 << 29)
}

/// Scans the first `groups` groups of 8 deltas of a miniblock whose deltas [`folds`], group g
/// unpacked by `unpack` from `body` + g·`group_bytes` into 8 32-bit lanes, onto the running
/// sum `acc_v` (in every lane) into `chunk`; returns the new running sum. `min` is added in
/// the 32-bit lanes (one add, not two 64-bit ones), a group scanned there inside each
/// 128-bit half only, the halves widened, and the low half's total added to the high half's
/// values in 64 bits with the running sum; two groups an iteration (the loop's counting paid
/// once a pair).
///
/// # Safety
/// `unpack` reads inside `body` from the start of each group g < `groups`; `chunk` holds
/// 8·`groups` values or more.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn fold_groups_i64(
    unpack: impl Fn(*const u8) -> __m256i,
    (body, group_bytes, groups): (&[u8], usize, usize),
    min: u64,
    mut acc_v: __m256i,
    chunk: &mut [i64],
) -> __m256i {
    let min32 = _mm256_set1_epi32(min as i32);
    let fold_store = |d: __m256i, acc_v: __m256i, out: *mut i64| {
        let mut x = _mm256_add_epi32(d, min32);
        x = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
        x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
        let low = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(x));
        let high = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(x));
        let low_total = _mm256_permute4x64_epi64::<0xFF>(low);
        let total = _mm256_permute4x64_epi64::<0xFF>(_mm256_add_epi64(low, high));
        // SAFETY: `out` is the start of 8 writable values (the callers below).
        unsafe {
            _mm256_storeu_si256(out.cast(), _mm256_add_epi64(low, acc_v));
            let mid = _mm256_add_epi64(acc_v, low_total);
            _mm256_storeu_si256(out.add(4).cast(), _mm256_add_epi64(high, mid));
        }
        _mm256_add_epi64(acc_v, total)
    };
    let at = |g: usize| body.as_ptr().wrapping_add(g * group_bytes);
    let out = chunk.as_mut_ptr();
    for g in (0..groups & !1).step_by(2) {
        // SAFETY: groups g and g + 1 are below `groups` (the caller's contract for `unpack`),
        // and write values 8g..8g + 16 of `chunk`, inside its 8·groups.
        unsafe {
            let (a, b) = (unpack(at(g)), unpack(at(g + 1)));
            acc_v = fold_store(a, acc_v, out.add(8 * g));
            acc_v = fold_store(b, acc_v, out.add(8 * g + 8));
        }
    }
    if groups & 1 == 1 {
        let g = groups - 1;
        // SAFETY: as above, for the last group alone.
        acc_v = fold_store(unpack(at(g)), acc_v, unsafe { out.add(8 * g) });
    }
    acc_v
}

/// [`miniblock_i64`] for widths 1..=14 whose deltas [`folds`]: `Some` of the last sum, `None`
/// for other widths and mins. A group's 8 values then lie in its first 16 bytes (lane 7
/// ends by byte ⌊7w/8⌋ + 4 ≤ 16), so one broadcast load feeds both halves of the unpack
/// (the high half's shuffle indices moved by its offset; a zeroing index stays ≥ 0x80),
/// without the insert of the high half's load. Always inlined (so without target features
/// of its own: the caller's apply) into the block walk (`avx2::delta`), where a sorted
/// column's blocks then pay no call or stack frame each (5% of their decode).
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[inline(always)]
pub(super) unsafe fn narrow_miniblock_i64(
    width: u8,
    body: &[u8],
    min: u64,
    acc: u64,
    chunk: &mut [i64],
    cache: &mut Option<Cached>,
) -> Option<u64> {
    if !(1..=14).contains(&width) || !folds(width, min) {
        return None;
    }
    let bits = BitWidth::new(u32::from(width))?;
    let (p, groups) = miniblock_plan(bits, body, chunk.len());
    // SAFETY: (all of this function's intrinsics and kernels) the CPU supports AVX2 and
    // BMI2, the caller's guarantee.
    unsafe {
        let decoder = decoder_for(cache, width, p);
        let offset = _mm256_inserti128_si256::<1>(
            _mm256_setzero_si256(),
            _mm_set1_epi8(p.high_offset as i8),
        );
        let first = _mm256_add_epi8(decoder.first, offset);
        let (shift, mask) = (decoder.first_shift, decoder.mask);
        // SAFETY: `at` starts a group `miniblock_plan` counted, whose loads (to `high_offset
        // + 16` bytes on) stay inside `body`: these 16 bytes do too.
        let unpack = |at: *const u8| {
            let bytes = _mm256_broadcastsi128_si256(_mm_loadu_si128(at.cast()));
            _mm256_and_si256(
                _mm256_srlv_epi32(_mm256_shuffle_epi8(bytes, first), shift),
                mask,
            )
        };
        let acc_v = _mm256_set1_epi64x(acc as i64);
        // `unpack` reads inside `body` for the groups `miniblock_plan` counted, and `chunk`
        // holds 8 values for each of them (`fold_groups_i64`'s contract).
        let acc_v = fold_groups_i64(unpack, (body, p.width, groups), min, acc_v, chunk);
        Some(finish_i64(
            acc_v,
            bits.get(),
            body,
            p.width,
            groups,
            min,
            chunk,
        ))
    }
}

/// One INT64 miniblock of [`delta_block_i64`]: `chunk.len()` deltas of `width` (0..=64)
/// bits from the start of `body`, `min` (also in both lanes of `min_v`) added, summed onto
/// `acc`; returns the last sum. `cache` keeps the last width's unpack plan in registers.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
pub(super) fn miniblock_i64(
    width: u8,
    body: &[u8],
    min: u64,
    min_v: __m256i,
    mut acc: u64,
    chunk: &mut [i64],
    cache: &mut Option<Cached>,
) -> u64 {
    if width == 64 {
        let quads = (body.len() / 32).min(chunk.len() / 4);
        let acc_v = scan_words_i64(body, min_v, _mm256_set1_epi64x(acc as i64), chunk);
        acc = _mm256_extract_epi64::<0>(acc_v) as u64;
        if 4 * quads == chunk.len() {
            return acc;
        }
        let rest = body.get(32 * quads..).unwrap_or(&[]);
        return portable_encodings::delta_wide_i64(64, rest, min, acc, &mut chunk[4 * quads..]);
    }
    // SAFETY: AVX2 and BMI2 are available (this function's target features).
    if let Some(acc) = unsafe { narrow_miniblock_i64(width, body, min, acc, chunk, cache) } {
        return acc;
    }
    let Some(bits) = BitWidth::new(u32::from(width)) else {
        return match width {
            0 => portable_encodings::progression_i64(min, acc, chunk),
            _ => portable_encodings::delta_wide_i64(u32::from(width), body, min, acc, chunk),
        };
    };
    let (p, groups) = miniblock_plan(bits, body, chunk.len());
    let decoder = decoder_for(cache, width, p);
    let mut acc_v = _mm256_set1_epi64x(acc as i64);
    if folds(width, min) {
        // Widths 15..=29 (the narrower ones took `narrow_miniblock_i64` above).
        // SAFETY: `miniblock_plan` counted only groups whose loads (`at .. at + high_offset
        // + 16` for group g at g·width) stay inside `body`, the decoder's contract; `chunk`
        // holds 8 values for each of them.
        acc_v = unsafe {
            if p.five {
                fold_groups_i64(
                    |at| decoder.group::<false, true>(at),
                    (body, p.width, groups),
                    min,
                    acc_v,
                    chunk,
                )
            } else {
                fold_groups_i64(
                    |at| decoder.group::<false, false>(at),
                    (body, p.width, groups),
                    min,
                    acc_v,
                    chunk,
                )
            }
        };
        return finish_i64(acc_v, bits.get(), body, p.width, groups, min, chunk);
    }
    if width <= 29 {
        // 8 deltas of ≤ 29 bits sum to less than 2^32: the group is scanned in 8 32-bit
        // lanes (exact), widened, and `min`·(i + 1) added per lane, so the two 64-bit
        // halves need no scan of their own.
        let step = |k: u64| min.wrapping_mul(k) as i64;
        let min_low = _mm256_set_epi64x(step(4), step(3), step(2), step(1));
        let min_high = _mm256_set_epi64x(step(8), step(7), step(6), step(5));
        macro_rules! narrow {
            ($five:literal) => {
                for g in 0..groups {
                    // SAFETY: as in `delta_block_i32`; group g writes values 8g..8g + 8 of
                    // `chunk`.
                    unsafe {
                        let d = decoder.group::<false, $five>(body.as_ptr().add(g * p.width));
                        let sums = scan8_u32_exact(d);
                        let low = _mm256_add_epi64(
                            _mm256_cvtepu32_epi64(_mm256_castsi256_si128(sums)),
                            min_low,
                        );
                        let high = _mm256_add_epi64(
                            _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(sums)),
                            min_high,
                        );
                        let total = _mm256_permute4x64_epi64::<0xFF>(high);
                        let out = chunk.as_mut_ptr().add(8 * g);
                        _mm256_storeu_si256(out.cast(), _mm256_add_epi64(low, acc_v));
                        _mm256_storeu_si256(out.add(4).cast(), _mm256_add_epi64(high, acc_v));
                        acc_v = _mm256_add_epi64(acc_v, total);
                    }
                }
            };
        }
        if p.five {
            narrow!(true);
        } else {
            narrow!(false);
        }
        return finish_i64(acc_v, bits.get(), body, p.width, groups, min, chunk);
    }
    macro_rules! groups {
        ($five:literal) => {
            for g in 0..groups {
                // SAFETY: as in `delta_block_i32`; group g writes values 8g..8g + 8 of
                // `chunk`.
                unsafe {
                    let deltas = decoder.group::<false, $five>(body.as_ptr().add(g * p.width));
                    let low = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(deltas));
                    let high = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(deltas));
                    let (sums, next) = scan4_i64(_mm256_add_epi64(low, min_v), acc_v);
                    _mm256_storeu_si256(chunk.as_mut_ptr().add(8 * g).cast(), sums);
                    let (sums, next) = scan4_i64(_mm256_add_epi64(high, min_v), next);
                    _mm256_storeu_si256(chunk.as_mut_ptr().add(8 * g + 4).cast(), sums);
                    acc_v = next;
                }
            }
        };
    }
    if p.five {
        groups!(true);
    } else {
        groups!(false);
    }
    finish_i64(acc_v, bits.get(), body, p.width, groups, min, chunk)
}

/// The end of an INT64 miniblock of `bits`-bit deltas after its first `groups` groups of 8
/// (`group_bytes` each): the running sum out of `acc_v`'s lane 0, then the values left
/// (fewer than 8) on the portable loop.
#[inline]
#[target_feature(enable = "avx2")]
fn finish_i64(
    acc_v: __m256i,
    bits: u32,
    body: &[u8],
    group_bytes: usize,
    groups: usize,
    min: u64,
    chunk: &mut [i64],
) -> u64 {
    let acc = _mm256_extract_epi64::<0>(acc_v) as u64;
    if 8 * groups >= chunk.len() {
        return acc;
    }
    let rest = body.get(groups * group_bytes..).unwrap_or(&[]);
    portable_encodings::delta_i64(bits, rest, min, acc, &mut chunk[8 * groups..])
}

/// GroupVarInt INT32: [`group_varint::decode_32`].
///
/// # Safety
/// The CPU supports AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn group_varint_32(
    data: &[u8],
    pos: usize,
    out: &mut [i32],
) -> (usize, usize) {
    // SAFETY: AVX2 is available (the caller's guarantee).
    unsafe { group_varint::decode_32(data, pos, out) }
}

/// The dictionary's last index as a vector, or `None` for a dictionary the gathers cannot
/// address (empty, or past `i32::MAX` entries: `vpgather` indices are signed 32-bit).
#[inline]
#[target_feature(enable = "avx2")]
fn last_index(len: usize) -> Option<__m256i> {
    let last = i32::try_from(len.checked_sub(1)?).ok()?;
    Some(_mm256_set1_epi32(last))
}

/// The largest of `values` (0 for none): the check of a run of dictionary indices, 8 lanes
/// of `vpmaxud` a step (the same fold without AVX2 emulates the unsigned maximum in SSE2).
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn max_u32(values: &[u32]) -> u32 {
    values.iter().fold(0, |m, &x| m.max(x))
}

/// Up to 8 entries of 4 bytes in one register, the rest zero.
#[inline]
#[target_feature(enable = "avx2")]
fn register_of(entries: &[u32]) -> __m256i {
    let mut lanes = [0u32; 8];
    lanes[..entries.len()].copy_from_slice(entries);
    // SAFETY: `lanes` is 32 bytes.
    unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) }
}

/// `out[i] = dictionary[min(indices[i], len − 1)]` for `min(indices.len(), out.len())`
/// values: from registers for dictionaries of up to 16 entries (`vpermd` looks up 8 values
/// at once, where a `vpgatherdd` takes about a cycle a value on Zen 3: TPC-H's
/// `l_linenumber`, 7 entries, read in 0.71 ms instead of 1.19), 8 per `vpgatherdd` above.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn gather_u32<S: Slot<u32>>(
    indices: &[u32],
    dictionary: &[u32],
    out: &mut [S],
) {
    let n = indices.len().min(out.len());
    let Some(last) = last_index(dictionary.len()) else {
        return portable_encodings::gather(&indices[..n], dictionary, out);
    };
    let mut i = 0;
    if dictionary.len() <= 16 {
        // Entries 0..8 in `low`, 8..16 in `high`; an index (clamped) above 7 takes `high`'s
        // lane of its low 3 bits.
        let low = register_of(&dictionary[..dictionary.len().min(8)]);
        let high = register_of(&dictionary[dictionary.len().min(8)..]);
        let seven = _mm256_set1_epi32(7);
        while i + 8 <= n {
            // SAFETY: values i..i + 8 are inside `indices` and `out` (slots of a `u32`'s
            // layout: `Slot` is sealed); the lookups read registers only.
            unsafe {
                let idx = _mm256_loadu_si256(indices.as_ptr().add(i).cast());
                let idx = _mm256_min_epu32(idx, last);
                let from_low = _mm256_permutevar8x32_epi32(low, idx);
                let from_high = _mm256_permutevar8x32_epi32(high, idx);
                let values =
                    _mm256_blendv_epi8(from_low, from_high, _mm256_cmpgt_epi32(idx, seven));
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), values);
            }
            i += 8;
        }
    } else {
        let base = dictionary.as_ptr().cast::<i32>();
        while i + 8 <= n {
            // SAFETY: values i..i + 8 are inside `indices` and `out` (slots of a `u32`'s
            // layout: `Slot` is sealed); every index is clamped to `len − 1` (unsigned), so
            // each gathered 4-byte entry is inside `dictionary`.
            unsafe {
                let idx = _mm256_loadu_si256(indices.as_ptr().add(i).cast());
                let idx = _mm256_min_epu32(idx, last);
                let values = _mm256_i32gather_epi32::<4>(base, idx);
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), values);
            }
            i += 8;
        }
    }
    portable_encodings::gather(&indices[i..n], dictionary, &mut out[i..n]);
}

/// [`gather_u32`] for 8-byte entries: from registers for dictionaries of up to 8 entries
/// (each entry two 4-byte lanes for `vpermd`), 4 per `vpgatherdq` above.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn gather_u64<S: Slot<u64>>(
    indices: &[u32],
    dictionary: &[u64],
    out: &mut [S],
) {
    let n = indices.len().min(out.len());
    let Some(last) = last_index(dictionary.len()) else {
        return portable_encodings::gather(&indices[..n], dictionary, out);
    };
    let last = _mm256_castsi256_si128(last);
    let mut i = 0;
    if dictionary.len() <= 8 {
        let halves = |entries: &[u64]| {
            let mut words = [0u32; 8];
            for (pair, &entry) in words.chunks_exact_mut(2).zip(entries) {
                pair.copy_from_slice(&[entry as u32, (entry >> 32) as u32]);
            }
            register_of(&words)
        };
        // Entries 0..4 in `low`, 4..8 in `high`.
        let low = halves(&dictionary[..dictionary.len().min(4)]);
        let high = halves(&dictionary[dictionary.len().min(4)..]);
        let three = _mm256_set1_epi64x(3);
        let odd_lanes = _mm256_set_epi32(1, 0, 1, 0, 1, 0, 1, 0);
        while i + 4 <= n {
            // SAFETY: values i..i + 4 are inside `indices` and `out` (slots of a `u64`'s
            // layout: `Slot` is sealed); the lookups read registers only.
            unsafe {
                let idx = _mm_loadu_si128(indices.as_ptr().add(i).cast());
                let idx = _mm256_cvtepu32_epi64(_mm_min_epu32(idx, last));
                // Entry e's lanes are 2e and 2e + 1 (mod 8: `vpermd` reads 3 bits).
                let twice = _mm256_slli_epi64::<1>(idx);
                let lanes = _mm256_add_epi32(
                    _mm256_or_si256(twice, _mm256_slli_epi64::<32>(twice)),
                    odd_lanes,
                );
                let from_low = _mm256_permutevar8x32_epi32(low, lanes);
                let from_high = _mm256_permutevar8x32_epi32(high, lanes);
                let values =
                    _mm256_blendv_epi8(from_low, from_high, _mm256_cmpgt_epi64(idx, three));
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), values);
            }
            i += 4;
        }
    } else {
        let base = dictionary.as_ptr().cast::<i64>();
        while i + 4 <= n {
            // SAFETY: values i..i + 4 are inside `indices` and `out` (slots of a `u64`'s
            // layout: `Slot` is sealed); every index is clamped to `len − 1` (unsigned), so
            // each gathered 8-byte entry is inside `dictionary`.
            unsafe {
                let idx = _mm_loadu_si128(indices.as_ptr().add(i).cast());
                let idx = _mm_min_epu32(idx, last);
                let values = _mm256_i32gather_epi64::<8>(base, idx);
                _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), values);
            }
            i += 4;
        }
    }
    portable_encodings::gather(&indices[i..n], dictionary, &mut out[i..n]);
}

/// GroupVarInt INT32 (varint-GB, as in Lemire et al.): one `pshufb` mask per control byte
/// moves a group's four ints into four 32-bit lanes; pairs of groups are decoded with one
/// 256-bit shuffle and store, a pair per step of the position chain.
pub(in crate::kernels) mod group_varint {
    use crate::kernels::encodings::group_varint::{SHUFFLE_32, WINDOW_32};
    use crate::kernels::ssse3::group_varint::{
        block_len, decode_group, load, Sizes, BLOCK, MARGIN, SIZE_BY_HIGH_NIBBLE,
        SIZE_BY_LOW_NIBBLE,
    };
    use std::arch::x86_64::*;

    /// Lane index within each 128-bit half, minus `k` (for the in-lane `vpshufb`s).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn lanes_minus(k: i8) -> __m256i {
        _mm256_add_epi8(
            _mm256_setr_epi8(
                0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                10, 11, 12, 13, 14, 15,
            ),
            _mm256_set1_epi8(-k),
        )
    }

    /// Fills `sizes.one[..n]` (`n` a multiple of 32, `bytes` holding at least `n`): 5 + the
    /// sum of each byte's four 2-bit fields, summed per nibble with `vpshufb`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn single_sizes(bytes: &[u8], sizes: &mut Sizes, n: usize) {
        assert!(n <= BLOCK + 32);
        let bytes = &bytes[..n];
        let mut q = 0;
        while q < n {
            // SAFETY: q + 32 ≤ n ≤ bytes.len() and ≤ sizes.one.len() (asserted).
            unsafe {
                let size = chunk_sizes(_mm256_loadu_si256(bytes.as_ptr().add(q).cast()));
                _mm256_store_si256(sizes.one.as_mut_ptr().add(q).cast(), size);
            }
            q += 32;
        }
    }

    /// Fills `sizes.two[..n]` from `sizes.one` (`n` a multiple of 32, at most `BLOCK`, and
    /// `sizes.one` filled to `n + 21`): `one[q] + one[q + one[q]]`. The second
    /// group starts 5..=17 bytes on, inside the two 16-byte windows loaded 5 and 21 bytes
    /// after each 16-byte half, selected with `vpshufb` (an index with bit 7 set gives 0).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn pair_sizes(sizes: &mut Sizes, n: usize) {
        assert!(n <= BLOCK);
        let base = lanes_minus(5);
        let sixteen = _mm256_set1_epi8(16);
        let high = _mm256_set1_epi8(0x70);
        let one = sizes.one.as_ptr();
        let mut q = 0;
        while q < n {
            // SAFETY: q + 32 ≤ n ≤ sizes.two.len() (asserted); the loads read
            // one[q + 5 .. q + 53], below n + 21 ≤ BLOCK + 21 < one.len().
            unsafe {
                let size = _mm256_load_si256(one.add(q).cast());
                let w0 = _mm256_loadu_si256(one.add(q + 5).cast());
                let w1 = _mm256_loadu_si256(one.add(q + 21).cast());
                // The next group's byte, counted from 5 after this half's first: 0..=27.
                let j = _mm256_add_epi8(size, base);
                // Below 16: w0's lane (+0x70 keeps bit 7 clear); 16 and up saturate past it.
                let from_w0 = _mm256_shuffle_epi8(w0, _mm256_adds_epu8(j, high));
                // 16 and up: w1's lane j − 16; below 16 wraps to bit 7 set.
                let from_w1 = _mm256_shuffle_epi8(w1, _mm256_sub_epi8(j, sixteen));
                let next = _mm256_or_si256(from_w0, from_w1);
                _mm256_store_si256(
                    sizes.two.as_mut_ptr().add(q).cast(),
                    _mm256_add_epi8(size, next),
                );
            }
            q += 32;
        }
    }

    /// The sizes of groups starting at each of the 32 bytes `c` (see [`single_sizes`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn chunk_sizes(c: __m256i) -> __m256i {
        let nibble_sums = _mm256_broadcastsi128_si256(load(&SIZE_BY_LOW_NIBBLE));
        let nibble_sums_hi = _mm256_broadcastsi128_si256(load(&SIZE_BY_HIGH_NIBBLE));
        let low_nibble = _mm256_set1_epi8(0x0F);
        let lo = _mm256_and_si256(c, low_nibble);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(c), low_nibble);
        _mm256_add_epi8(
            _mm256_shuffle_epi8(nibble_sums, lo),
            _mm256_shuffle_epi8(nibble_sums_hi, hi),
        )
    }

    /// The pair sizes of 32 starts (see [`pair_sizes`]) from the single sizes of those 32
    /// bytes (`cur`) and of the 32 after them (`next`), in registers: the windows 5 and 21
    /// bytes on are `vpalignr`s of `cur`, `next` and the halves between them.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn chunk_pairs(cur: __m256i, next: __m256i) -> __m256i {
        let mid = _mm256_permute2x128_si256::<0x21>(cur, next);
        let w0 = _mm256_alignr_epi8::<5>(mid, cur);
        let w1 = _mm256_alignr_epi8::<5>(next, mid);
        let j = _mm256_add_epi8(cur, lanes_minus(5));
        let from_w0 = _mm256_shuffle_epi8(w0, _mm256_adds_epu8(j, _mm256_set1_epi8(0x70)));
        let from_w1 = _mm256_shuffle_epi8(w1, _mm256_sub_epi8(j, _mm256_set1_epi8(16)));
        _mm256_add_epi8(cur, _mm256_or_si256(from_w0, from_w1))
    }

    /// The size pass of one block at a fixed stride, run a 32-byte step at a time inside the
    /// decode loop of the block before it: step `i` computes the single sizes of bytes
    /// `32(i + 1)..32(i + 2)` and the pair sizes of starts `32i..32(i + 1)`, the single
    /// sizes of the 32 bytes before carried in a register.
    struct SizePass {
        /// The block's first byte in the data.
        src: *const u8,
        /// Where the sizes go.
        sizes: *mut Sizes,
        /// The steps done, to `STEPS`.
        step: usize,
        /// The single sizes of bytes `32 · step ..`.
        cur: __m256i,
    }

    /// Steps of a block's [`SizePass`]: single sizes of `BLOCK + 32` bytes, pair sizes of
    /// `BLOCK` starts.
    const STEPS: usize = BLOCK / 32;

    impl SizePass {
        /// Starts the pass of the block at `src`, whose `BLOCK + MARGIN` bytes are readable,
        /// into `sizes` (alive and not otherwise accessed until the pass is done).
        ///
        /// # Safety
        /// As above; the CPU supports AVX2.
        #[inline]
        #[target_feature(enable = "avx2")]
        unsafe fn new(src: *const u8, sizes: *mut Sizes) -> Self {
            // SAFETY: bytes 0..32 of the block are readable and `one` has 32 bytes (the
            // caller's guarantee).
            let cur = unsafe {
                let cur = chunk_sizes(_mm256_loadu_si256(src.cast()));
                _mm256_store_si256((*sizes).one.as_mut_ptr().cast(), cur);
                cur
            };
            SizePass {
                src,
                sizes,
                step: 0,
                cur,
            }
        }

        /// One step, if any is left.
        #[inline]
        #[target_feature(enable = "avx2")]
        fn run_step(&mut self) {
            if self.step < STEPS {
                let q = 32 * self.step;
                // SAFETY: q + 64 ≤ BLOCK + 32 < BLOCK + MARGIN bytes are readable from
                // `src`, `one` holds BLOCK + 32 bytes and `two` BLOCK (`new`'s contract).
                unsafe {
                    let next = chunk_sizes(_mm256_loadu_si256(self.src.add(q + 32).cast()));
                    let sizes = self.sizes;
                    _mm256_store_si256((*sizes).one.as_mut_ptr().add(q + 32).cast(), next);
                    _mm256_store_si256(
                        (*sizes).two.as_mut_ptr().add(q).cast(),
                        chunk_pairs(self.cur, next),
                    );
                    self.cur = next;
                }
                self.step += 1;
            }
        }
    }

    impl SizePass {
        /// A pass with no steps to run.
        #[inline]
        #[target_feature(enable = "avx2")]
        fn idle() -> Self {
            SizePass {
                src: std::ptr::null(),
                sizes: std::ptr::null_mut(),
                step: STEPS,
                cur: _mm256_setzero_si256(),
            }
        }
    }

    /// Groups left below which the fixed-stride blocks are not used: the last block's
    /// size pass for the block after it is wasted when the groups end inside it, so a call
    /// must ask for at least enough groups to cross two blocks of the shortest groups.
    const PIPELINE_GROUPS: usize = 2 * BLOCK / 5;

    /// Decodes the groups at `offset` and `offset + one[offset]` from `src` into 8 values
    /// at `dst`.
    ///
    /// # Safety
    /// The CPU supports AVX2; `one[offset]` is readable and is the size of the group at
    /// `src + offset`; both groups' control bytes and 16-byte windows are readable; 8
    /// values at `dst` are writable.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn decode_pair(src: *const u8, offset: usize, one: *const u8, dst: *mut i32) {
        // SAFETY: the caller's guarantees; the masks are 16-byte table rows.
        unsafe {
            let second = offset + usize::from(*one.add(offset));
            let windows =
                _mm256_loadu2_m128i(src.add(second + 1).cast(), src.add(offset + 1).cast());
            let masks = _mm256_loadu2_m128i(
                SHUFFLE_32[usize::from(*src.add(second))].as_ptr().cast(),
                SHUFFLE_32[usize::from(*src.add(offset))].as_ptr().cast(),
            );
            _mm256_storeu_si256(dst.cast(), _mm256_shuffle_epi8(windows, masks));
        }
    }

    /// `decode_fast_portable_32` (`kernels::encodings`) with one `vpshufb` per pair of
    /// groups. Each group's position depends on the previous group's control byte, a chain
    /// that would cost a load of the control byte, a load of its table entry and an add per
    /// group. Here, per block of up to 1,024 bytes, the sizes of groups that could start at
    /// each byte are computed first (32 a `vpshufb` pair), then the size of the 2 groups
    /// from each byte (pointer jumping: `two[q] = one[q] + one[q + one[q]]`, the lookups
    /// `vpshufb`s into windows of the sizes loaded a few bytes on); the chain is then one
    /// load from the pair sizes and an add per 2 groups. Groups are decoded in pairs (the
    /// two windows and the two masks each loaded into the halves of one 256-bit vector).
    /// The last groups (within 96 bytes of the data's end) one at a time.
    ///
    /// A call asking for [`PIPELINE_GROUPS`] groups or more first runs blocks at a fixed
    /// stride of `BLOCK` bytes (the chain's offset carried from one to the next), each
    /// block's size pass a 32-byte step at a time inside the decode loop of the block before
    /// it ([`SizePass`]): the size pass (~23 instructions per 32 bytes) runs while the
    /// decode waits on the chain, instead of between the blocks' decode loops.
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    pub(in crate::kernels) unsafe fn decode_32(
        data: &[u8],
        mut pos: usize,
        out: &mut [i32],
    ) -> (usize, usize) {
        let groups = out.len() / 4;
        let mut group = 0;
        let mut sizes = Sizes::new();
        if groups >= PIPELINE_GROUPS && data.len().saturating_sub(pos) >= BLOCK + MARGIN {
            let mut spare = Sizes::new();
            let (mut cur, mut next) = (&mut sizes, &mut spare);
            let bytes = &data[pos..pos + BLOCK + MARGIN];
            single_sizes(bytes, cur, BLOCK + 32);
            pair_sizes(cur, BLOCK);
            let (mut base, mut offset) = (pos, 0);
            let dst = out.as_mut_ptr();
            loop {
                // `data` holds BLOCK + MARGIN bytes from `base` (checked before the first
                // block and, for the next, here).
                let has_next =
                    data.len() - base >= 2 * BLOCK + MARGIN && groups - group >= PIPELINE_GROUPS;
                let mut pass = if has_next {
                    let next_sizes: *mut Sizes = next;
                    // SAFETY: BLOCK + MARGIN bytes from base + BLOCK are in `data`;
                    // `next` is not used until the pass is done.
                    unsafe { SizePass::new(data.as_ptr().add(base + BLOCK), next_sizes) }
                } else {
                    SizePass::idle()
                };
                let (one, two) = (cur.one.as_ptr(), cur.two.as_ptr());
                // SAFETY: `base` < data.len() (BLOCK + MARGIN bytes from it are in `data`).
                let src = unsafe { data.as_ptr().add(base) };
                while offset < BLOCK && groups - group >= 2 {
                    // SAFETY: as in the loop below, the block at `base` (BLOCK + MARGIN
                    // bytes in `data`) and `cur` holding its sizes.
                    unsafe {
                        decode_pair(src, offset, one, dst.add(4 * group));
                        offset += usize::from(*two.add(offset));
                    }
                    pass.run_step();
                    group += 2;
                }
                while pass.step < STEPS {
                    pass.run_step();
                }
                if offset < BLOCK || !has_next {
                    break;
                }
                offset -= BLOCK;
                base += BLOCK;
                std::mem::swap(&mut cur, &mut next);
            }
            pos = base + offset;
        }
        while groups - group >= 2 {
            let block = block_len(data, pos, groups - group);
            if block == 0 {
                break;
            }
            let bytes = &data[pos..pos + block + MARGIN];
            single_sizes(bytes, &mut sizes, block + 32);
            pair_sizes(&mut sizes, block);
            let (one, two) = (sizes.one.as_ptr(), sizes.two.as_ptr());
            let src = bytes.as_ptr();
            let dst = out.as_mut_ptr();
            let mut offset = 0;
            while offset < block && groups - group >= 2 {
                // SAFETY: `offset` < block ≤ BLOCK, so `one` and `two` are read inside; the
                // second group starts at `second` ≤ offset + 17, and both groups' control
                // bytes and 16-byte windows (to at most second + 17 < block + 34) are inside
                // `bytes` (block + MARGIN long); the masks are 16-byte table rows;
                // `group + 2 ≤ groups`, so values 4·group .. 4·group + 8 are inside `out`.
                unsafe {
                    decode_pair(src, offset, one, dst.add(4 * group));
                    offset += usize::from(*two.add(offset));
                }
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

/// BYTE_STREAM_SPLIT joins: the SSE2 kernel's unpack network (`sse2::byte_stream_split`) on
/// 256-bit vectors, 32 values a step. The unpacks work inside each 128-bit half, so after
/// log2(K) perfect shuffles the low halves hold the joined values 0..16 of the step and the
/// high halves values 16..32, each in the SSE2 kernel's order; one `vperm2i128` per output
/// vector pairs the halves back into memory order.
pub(in crate::kernels) mod byte_stream_split {
    use std::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "avx2")]
    fn load(bytes: &[u8]) -> __m256i {
        let bytes: &[u8; 32] = bytes[..32].try_into().unwrap();
        // SAFETY: `bytes` is 32 readable bytes; unaligned loads are allowed.
        unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx2")]
    fn store(bytes: &mut [u8], value: __m256i) {
        let bytes: &mut [u8; 32] = (&mut bytes[..32]).try_into().unwrap();
        // SAFETY: `bytes` is 32 writable bytes; unaligned stores are allowed.
        unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().cast(), value) }
    }

    /// One perfect shuffle of `K` vectors, inside each 128-bit half.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn perfect_shuffle<const K: usize>(x: [__m256i; K]) -> [__m256i; K] {
        std::array::from_fn(|o| {
            let (a, b) = (x[o / 2], x[o / 2 + K / 2]);
            if o % 2 == 0 {
                _mm256_unpacklo_epi8(a, b)
            } else {
                _mm256_unpackhi_epi8(a, b)
            }
        })
    }

    /// Joins whole blocks of 32 values from value `start` of the `K` streams (K = 2, 4, 8 or
    /// 16, each stream `n` bytes) of `data` into `out`; returns the values joined (a
    /// multiple of 32).
    ///
    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    pub(in crate::kernels) unsafe fn join<const K: usize>(
        data: &[u8],
        n: usize,
        start: usize,
        out: &mut [u8],
    ) -> usize {
        let done = out.len() / (32 * K) * 32;
        let streams: [&[u8]; K] =
            std::array::from_fn(|j| &data[j * n + start..j * n + start + done]);
        for (i, block) in out[..done * K].chunks_exact_mut(32 * K).enumerate() {
            let x: [__m256i; K] = std::array::from_fn(|j| load(&streams[j][32 * i..]));
            // log2(K) shuffles, written out so that the vectors stay in registers.
            let x = match K {
                2 => perfect_shuffle(x),
                4 => perfect_shuffle(perfect_shuffle(x)),
                8 => perfect_shuffle(perfect_shuffle(perfect_shuffle(x))),
                _ => perfect_shuffle(perfect_shuffle(perfect_shuffle(perfect_shuffle(x)))),
            };
            // Low halves: the step's first 16 values (16K bytes, vector after vector); high
            // halves: the next 16.
            let (first, second) = block.split_at_mut(16 * K);
            for v in 0..K / 2 {
                let (a, b) = (x[2 * v], x[2 * v + 1]);
                store(
                    &mut first[32 * v..],
                    _mm256_permute2x128_si256::<0x20>(a, b),
                );
                store(
                    &mut second[32 * v..],
                    _mm256_permute2x128_si256::<0x31>(a, b),
                );
            }
        }
        done
    }
}
