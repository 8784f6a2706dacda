//! The AVX2 kernels (x86-64 with AVX2, BMI2 and POPCNT: Haswell, Zen 1 and later): bit
//! unpacking (to `u32`, `u16` and `u8` lanes), the scans of packed elements, select's
//! compression (also fused with unpacking) and expand's spreading of every lane type,
//! narrowing to 8/16-bit arrays, `u32` aggregates, popcounts and 4-byte fills so far; every
//! other operation of the AVX2 tier (packing, the fused hybrid decoder) runs the portable
//! kernel.
//!
//! Unpacking decodes a group of 8 elements (exactly `width` bytes in both bit orders) per
//! step: two 16-byte loads, the first at the group's start for elements 0..4 and the second
//! at the byte element 4 starts in for elements 4..8, make one 256-bit vector; one `vpshufb`
//! gives each 32-bit lane the 4 bytes holding its element (in the order that makes it an
//! integer: little-endian for LSB-first, byte-reversed for MSB-first), and one `vpsrlvd` by a
//! per-lane count aligns it. Elements that start late in a byte and are over 25 bits wide
//! need a fifth byte: a second shuffle gives the lane the next 4 bytes, shifted the other way
//! and OR-ed in. The shuffles and counts depend only on the width and order, so they are
//! tables built at compile time. LSB-first widths 8, 16 and 32 into `u32` arrays (also a
//! Parquet bit-packed run's) are whole bytes: `vpmovzxbd`/`vpmovzxwd` or a copy.

use std::arch::x86_64::*;

pub(super) mod delta;
pub(super) mod encodings;

use super::{portable, runs, BitWidth, Compare, MinMaxSum};

/// Shuffles and shift counts that decode one group of 8 elements of one width and order
/// from the two 16-byte halves [`Plan::high_offset`] bytes apart.
struct Plan {
    /// Lane i's 4 bytes (of its 128-bit half): the bytes from the one element i starts in.
    first: [u8; 32],
    /// Lane i's 4 bytes from the byte after that one, for elements spanning 5 bytes;
    /// 0x80 (zero) for the others.
    second: [u8; 32],
    /// LSB-first: right shift of `first`; MSB-first: left shift of `first`.
    first_shift: [u32; 8],
    /// LSB-first: left shift of `second`; MSB-first: right shift of `second`.
    second_shift: [u32; 8],
    /// MSB-first: the right shift that leaves the element at the bottom (32 − width when
    /// some lane needs a fifth byte, else 32 − width − its bit offset); 0 for LSB-first.
    last_shift: [u32; 8],
    /// Where the second half (elements 4..8) starts in the group: ⌊4·width/8⌋.
    high_offset: usize,
    /// The width: the group's length in bytes.
    width: usize,
    /// Whether any element needs a fifth byte (widths 26..=32 at some bit offsets).
    five: bool,
}

const fn plan(width: usize, big_endian: bool) -> Plan {
    let mut p = Plan {
        first: [0x80; 32],
        second: [0x80; 32],
        first_shift: [0; 8],
        second_shift: [0; 8],
        last_shift: [0; 8],
        high_offset: 4 * width / 8,
        width,
        five: false,
    };
    let mut lane = 0;
    while lane < 8 {
        p.five = p.five || (lane * width) % 8 + width > 32;
        lane += 1;
    }
    let mut lane = 0;
    while lane < 8 {
        let bit = lane * width;
        let base = if lane < 4 { 0 } else { p.high_offset };
        let (byte, shift) = (bit / 8 - base, bit % 8);
        let five = shift + width > 32;
        let half = 16 * (lane / 4);
        let mut k = 0;
        while k < 4 {
            // Byte k of the lane (least significant first) is element byte k (LSB-first)
            // or 3 − k (MSB-first, whose first byte is the most significant).
            let from = if big_endian { 3 - k } else { k };
            let index = byte + from;
            // The first bytes may run past the element (into the next ones, masked or
            // shifted away), never past the 16-byte half.
            assert!(index < 16 || from > (shift + width - 1) / 8);
            p.first[half + 4 * (lane % 4) + k] = if index < 16 { index as u8 } else { 0x80 };
            if five {
                let index = byte + 1 + from;
                assert!(index < 16);
                p.second[half + 4 * (lane % 4) + k] = index as u8;
            }
            k += 1;
        }
        // LSB-first: (first >> shift | second << (8 − shift)) & mask. MSB-first with a
        // fifth byte somewhere: (first << shift | second >> (8 − shift)) >> (32 − width);
        // without: (first >> (32 − shift − width)) & mask. A lane without a fifth byte has
        // `second` = 0, which adds nothing.
        p.first_shift[lane] = shift as u32;
        p.second_shift[lane] = (8 - shift) as u32;
        if big_endian {
            p.last_shift[lane] = (if p.five {
                32 - width
            } else {
                32 - shift - width
            }) as u32;
        }
        lane += 1;
    }
    p
}

/// The plans of widths 1..=32, LSB-first then MSB-first (index `width − 1 + 32·be`).
static PLANS: [Plan; 64] = {
    let mut plans = [const {
        Plan {
            first: [0; 32],
            second: [0; 32],
            first_shift: [0; 8],
            second_shift: [0; 8],
            last_shift: [0; 8],
            high_offset: 0,
            width: 0,
            five: false,
        }
    }; 64];
    let mut i = 0;
    while i < 64 {
        plans[i] = plan(i % 32 + 1, i >= 32);
        i += 1;
    }
    plans
};

/// The plan of `width` and order, and how many whole groups of the `count` elements packed
/// from the start of `src` it may decode with its loads inside `src`: group g reads bytes
/// g·width .. g·width + high_offset + 16.
fn plan_and_groups(width: BitWidth, big_endian: bool, src: &[u8], count: usize) -> (&Plan, usize) {
    let w = width.get() as usize;
    let p = &PLANS[w - 1 + 32 * usize::from(big_endian)];
    let groups = match src.len().checked_sub(p.high_offset + 16) {
        Some(spare) => (spare / w + 1).min(count / 8),
        None => 0,
    };
    (p, groups)
}

/// A plan's tables in registers.
struct Decoder {
    first: __m256i,
    second: __m256i,
    first_shift: __m256i,
    second_shift: __m256i,
    last_shift: __m256i,
    mask: __m256i,
    high_offset: usize,
}

impl Decoder {
    /// # Safety
    /// The CPU supports AVX2.
    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn new(p: &Plan) -> Decoder {
        // SAFETY: each table is 32 bytes, read unaligned.
        unsafe {
            Decoder {
                first: _mm256_loadu_si256(p.first.as_ptr().cast()),
                second: _mm256_loadu_si256(p.second.as_ptr().cast()),
                first_shift: _mm256_loadu_si256(p.first_shift.as_ptr().cast()),
                second_shift: _mm256_loadu_si256(p.second_shift.as_ptr().cast()),
                last_shift: _mm256_loadu_si256(p.last_shift.as_ptr().cast()),
                mask: _mm256_set1_epi32((u32::MAX >> (32 - p.width)) as i32),
                high_offset: p.high_offset,
            }
        }
    }

    /// The 8 elements of the group at `at` (`FIVE`: the plan has lanes that need a fifth
    /// byte; `BE`: MSB-first).
    ///
    /// # Safety
    /// The CPU supports AVX2; `at .. at + high_offset + 16` is readable.
    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn group<const BE: bool, const FIVE: bool>(&self, at: *const u8) -> __m256i {
        // SAFETY: bytes at .. at + 16 and at + high_offset .. + 16 (the caller's guarantee).
        let bytes = unsafe { _mm256_loadu2_m128i(at.add(self.high_offset).cast(), at.cast()) };
        let a = _mm256_shuffle_epi8(bytes, self.first);
        if !FIVE {
            // Every element inside its lane's 4 bytes.
            let shift = if BE {
                self.last_shift
            } else {
                self.first_shift
            };
            return _mm256_and_si256(_mm256_srlv_epi32(a, shift), self.mask);
        }
        let b = _mm256_shuffle_epi8(bytes, self.second);
        if BE {
            let window = _mm256_or_si256(
                _mm256_sllv_epi32(a, self.first_shift),
                _mm256_srlv_epi32(b, self.second_shift),
            );
            _mm256_and_si256(_mm256_srlv_epi32(window, self.last_shift), self.mask)
        } else {
            let joined = _mm256_or_si256(
                _mm256_srlv_epi32(a, self.first_shift),
                _mm256_sllv_epi32(b, self.second_shift),
            );
            _mm256_and_si256(joined, self.mask)
        }
    }
}

/// Runs `body` with the monomorphised `Decoder::group` for `big_endian` and `p.five`.
macro_rules! with_kind {
    ($big_endian:expr, $p:expr, $be:ident, $five:ident => $body:expr) => {
        match ($big_endian, $p.five) {
            (false, false) => {
                const $be: bool = false;
                const $five: bool = false;
                $body
            }
            (false, true) => {
                const $be: bool = false;
                const $five: bool = true;
                $body
            }
            (true, false) => {
                const $be: bool = true;
                const $five: bool = false;
                $body
            }
            (true, true) => {
                const $be: bool = true;
                const $five: bool = true;
                $body
            }
        }
    };
}

/// Unpacks `count` elements of `width` (1..=32) bits, MSB-first when `big_endian`, from the
/// start of `src` into `out` as `u32`s in memory order (little-endian bytes), and returns
/// their aggregates when `AGGREGATE` ([`MinMaxSum::NONE`] otherwise). Reads nothing past
/// `src` (which should hold ⌈count·width/8⌉ bytes; elements past its end get unspecified
/// values) and writes exactly `count · 4` bytes from `out`.
///
/// # Safety
/// The CPU supports AVX2 and BMI2, and `out` is valid for `count · 4` byte writes (any
/// alignment).
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn unpack<const AGGREGATE: bool>(
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    count: usize,
    out: *mut u8,
) -> MinMaxSum {
    let w = width.get() as usize;
    if !AGGREGATE && !big_endian && w.is_power_of_two() && w >= 8 && src.len() >= count * w / 8 {
        // Whole bytes (also a Parquet bit-packed run's): widening moves or a copy.
        // SAFETY: AVX2 (the caller's guarantee); `src` holds the `count · w / 8` bytes read
        // and `out` is valid for the `count · 4` bytes written.
        unsafe { widen(w, src.as_ptr(), count, out) };
        return MinMaxSum::NONE;
    }
    let (p, groups) = plan_and_groups(width, big_endian, src, count);
    // SAFETY: AVX2 is enabled by the caller's guarantee; `groups` groups read inside `src`
    // and write the first 32·groups ≤ 4·count bytes of `out`.
    let mut aggregates = unsafe {
        with_kind!(big_endian, p, BE, FIVE => groups_of::<BE, FIVE, AGGREGATE>(p, src, groups, out))
    };
    // The rest (the last groups, whose loads would pass the end of `src`, and a partial
    // group; all of a short call, such as a Parquet level stream's bit-packed runs of a few
    // groups) through the portable kernel, straight into `out`: its byte and pair tables at
    // widths 1–5, and no copy through a buffer (a `memcpy` call per run).
    let done = 8 * groups;
    if done < count {
        let from = src.get(done / 8 * p.width..).unwrap_or(&[]);
        // SAFETY: bytes 4·done .. 4·count of `out`, inside the `count · 4` the caller made
        // valid for writes; nothing else refers to them while the slice lives.
        let rest = unsafe { std::slice::from_raw_parts_mut(out.add(4 * done), 4 * (count - done)) };
        let tail = portable::unpack_to_le_bytes(width, big_endian, from, rest, AGGREGATE);
        aggregates = aggregates.merge(tail);
    }
    aggregates
}

/// Writes the `count` little-endian elements of `w` (8, 16 or 32) bits at `src` as `u32`s
/// from `out`: `vpmovzxbd`/`vpmovzxwd` 8 elements a step, or one copy.
///
/// # Safety
/// The CPU supports AVX2; `src` is valid for `count · w / 8` byte reads and `out` for
/// `count · 4` byte writes, and they do not overlap.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn widen(w: usize, src: *const u8, count: usize, out: *mut u8) {
    if w == 32 {
        // SAFETY: the caller's guarantee: `4 · count` bytes each, not overlapping.
        unsafe { std::ptr::copy_nonoverlapping(src, out, 4 * count) };
        return;
    }
    let steps = count / 8;
    for i in 0..steps {
        // SAFETY: step i reads `w` bytes (8 elements) from `src + i · w` and writes 32 bytes
        // from `out + 32 · i`, inside the `count` elements of each.
        unsafe {
            let x = if w == 8 {
                _mm256_cvtepu8_epi32(_mm_loadl_epi64(src.add(8 * i).cast()))
            } else {
                _mm256_cvtepu16_epi32(_mm_loadu_si128(src.add(16 * i).cast()))
            };
            _mm256_storeu_si256(out.add(32 * i).cast(), x);
        }
    }
    for i in 8 * steps..count {
        // SAFETY: element i's `w / 8` bytes and its 4 output bytes, inside the `count`.
        unsafe {
            let v = if w == 8 {
                u32::from(*src.add(i))
            } else {
                u32::from(u16::from_le_bytes(src.add(2 * i).cast::<[u8; 2]>().read()))
            };
            out.add(4 * i).cast::<[u8; 4]>().write(v.to_le_bytes());
        }
    }
}

/// Bytes an RLE run's fill in [`hybrid_to_le_bytes`] may store past the run: [`Fill`]
/// stores blocks of this many bytes.
const FILL_SPILL: usize = 256;

/// The AVX2 kernel of [`super::hybrid_to_le_bytes`] (same contract):
/// [`runs::hybrid_walk_spilling`] with [`Fill`] and [`unpack`].
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn hybrid_to_le_bytes<const AGGREGATE: bool>(
    width: BitWidth,
    data: &[u8],
    mask: u32,
    out: &mut [u8],
) -> (usize, usize, MinMaxSum) {
    runs::hybrid_walk_spilling::<AGGREGATE, FILL_SPILL>(
        width.get(),
        data,
        mask,
        out,
        Fill,
        |src, to| {
            // SAFETY: AVX2 and BMI2 (the caller's guarantee); `to` is valid for its
            // `to.len()` bytes, `to.len() / 4` u32s.
            unsafe { unpack::<AGGREGATE>(width, false, src, to.len() / 4, to.as_mut_ptr()) }
        },
    )
}

/// The fill of [`hybrid_to_le_bytes`]'s runs: stores `len / 4` copies of `value`
/// (little-endian) from the start of `to`, and when `to` has room for it, whole copies up
/// to [`FILL_SPILL`] − 4 bytes after them, which the next runs overwrite. So a run takes a
/// loop of 256-byte steps, 8 unaligned 32-byte stores each, not one of 32-byte steps (which
/// LLVM unrolled 8 times behind a loop of the remainder): runs of random lengths (8..=200
/// values in the benchmark) make 1–4 trips of one loop with one exit, and each run's stores
/// past its end reach the lines the next runs write first. Exactly `len` bytes where `to`
/// has no such room (the runs near the end of the destination). Inlined (a trait method
/// marked so, not a closure, which LLVM called per run) into the AVX2 walk, so compiled
/// for AVX2; the loop compares pointers, a form LLVM does not unroll further.
struct Fill;

impl runs::RunFill for Fill {
    #[inline(always)]
    fn fill(&self, value: u32, to: &mut [u8], len: usize) {
        if len == 0 || len.next_multiple_of(FILL_SPILL) > to.len() {
            fill_le_exactly(value, to, len);
            return;
        }
        let element = value.to_le_bytes();
        let pattern: [u8; 32] = std::array::from_fn(|i| element[i % 4]);
        let mut at = to.as_mut_ptr();
        // SAFETY: `len ≤ to.len()` (checked above).
        let end = unsafe { at.add(len) };
        loop {
            for k in 0..FILL_SPILL / 32 {
                // SAFETY: `at` is `to`'s start plus a multiple of FILL_SPILL below `len`,
                // so `at + FILL_SPILL` is at most `len.next_multiple_of(FILL_SPILL) ≤
                // to.len()` bytes from `to`'s start: the 32 bytes at `at + 32·k` are inside
                // `to`; unaligned writes of a byte array.
                unsafe { at.add(32 * k).cast::<[u8; 32]>().write_unaligned(pattern) };
            }
            // SAFETY: at most `to`'s end, as above.
            at = unsafe { at.add(FILL_SPILL) };
            if at >= end {
                break;
            }
        }
    }
}

/// [`Fill`] with no room after the run (the runs near the end of the destination), out of
/// line: it is rare, and its loops need not be in the walk's.
#[cold]
#[inline(never)]
fn fill_le_exactly(value: u32, to: &mut [u8], len: usize) {
    portable::fill_le(value, to, len);
}

/// Decodes `groups` whole groups of 8 elements with plan `p` into `out`.
///
/// # Safety
/// AVX2 is available; `src` holds g·w + high_offset + 16 bytes for every g < `groups`
/// (w = the plan's width); `out` is valid for 32·groups byte writes.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn groups_of<const BE: bool, const FIVE: bool, const AGGREGATE: bool>(
    p: &Plan,
    src: &[u8],
    groups: usize,
    out: *mut u8,
) -> MinMaxSum {
    // SAFETY: AVX2 is available.
    let decoder = unsafe { Decoder::new(p) };
    let (mut min, mut max, mut sum) = (
        _mm256_set1_epi32(-1),
        _mm256_setzero_si256(),
        _mm256_setzero_si256(),
    );
    for g in 0..groups {
        // SAFETY: group g's bytes are inside `src` (the caller's guarantee); writes bytes
        // 32·g .. 32·g + 32 of `out`, inside its 32·groups.
        let values = unsafe {
            let values = decoder.group::<BE, FIVE>(src.as_ptr().add(g * p.width));
            _mm256_storeu_si256(out.add(32 * g).cast(), values);
            values
        };
        if AGGREGATE {
            min = _mm256_min_epu32(min, values);
            max = _mm256_max_epu32(max, values);
            sum = _mm256_add_epi32(sum, values);
        }
    }
    if !AGGREGATE || groups == 0 {
        return MinMaxSum::NONE;
    }
    let (mut mins, mut maxs, mut sums) = ([0u32; 8], [0u32; 8], [0u32; 8]);
    // SAFETY: each array is 32 bytes.
    unsafe {
        _mm256_storeu_si256(mins.as_mut_ptr().cast(), min);
        _mm256_storeu_si256(maxs.as_mut_ptr().cast(), max);
        _mm256_storeu_si256(sums.as_mut_ptr().cast(), sum);
    }
    MinMaxSum {
        min: mins.into_iter().min().unwrap_or(u32::MAX),
        max: maxs.into_iter().max().unwrap_or(0),
        sum: sums.into_iter().fold(0, u32::wrapping_add),
    }
}

/// Scans `count` elements of `width` bits, MSB-first when `big_endian`, packed from the start
/// of `src` (which holds ⌈count·width/8⌉ bytes; nothing past it is read) without storing
/// them: bit i of `bits` (LSB first) = `compare(element i)` against `low`/`high` (already
/// masked to the width), bits above `count` zero. `bits` holds ⌈count/8⌉ bytes: each group
/// of 8 elements is one byte, from one vector compare.
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn scan_packed(
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    count: usize,
    compare: Compare,
    low: u32,
    high: u32,
    bits: &mut [u8],
) {
    let (lo, hi, negate) = compare.as_range(low, high);
    let (p, groups) = plan_and_groups(width, big_endian, src, count);
    let groups = groups.min(bits.len());
    // SAFETY: AVX2 is available; `groups` groups read inside `src`, one byte of `bits` each.
    unsafe {
        with_kind!(big_endian, p, BE, FIVE => {
            scan_groups::<BE, FIVE>(p, src, lo, hi, negate, &mut bits[..groups])
        })
    };
    // The rest through the portable kernel, 64 elements at a time.
    let mut done = 8 * groups;
    let mut block = [0u32; 64];
    while done < count {
        let len = (count - done).min(64);
        let from = src.get(done / 8 * p.width..).unwrap_or(&[]);
        portable::unpack(width, big_endian, from, &mut block[..len]);
        for (chunk, byte) in block[..len].chunks(8).zip(&mut bits[done / 8..]) {
            let mut b = 0u8;
            for (j, &x) in chunk.iter().enumerate() {
                b |= u8::from((lo <= x && x <= hi) != negate) << j;
            }
            *byte = b;
        }
        done += len;
    }
}

/// Scans one group of 8 elements into each byte of `bits` with plan `p`: bit j set when
/// (`lo` ≤ element j ≤ `hi`) ≠ `negate`.
///
/// # Safety
/// AVX2 is available; `src` holds g·w + high_offset + 16 bytes for every g < `bits.len()`.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn scan_groups<const BE: bool, const FIVE: bool>(
    p: &Plan,
    src: &[u8],
    lo: u32,
    hi: u32,
    negate: bool,
    bits: &mut [u8],
) {
    // SAFETY: AVX2 is available.
    let decoder = unsafe { Decoder::new(p) };
    let (lo, hi) = (_mm256_set1_epi32(lo as i32), _mm256_set1_epi32(hi as i32));
    let flip = if negate { 0xFF } else { 0 };
    for (g, byte) in bits.iter_mut().enumerate() {
        // SAFETY: group g's bytes are inside `src` (the caller's guarantee).
        let x = unsafe { decoder.group::<BE, FIVE>(src.as_ptr().add(g * p.width)) };
        // Unsigned x ≥ lo and x ≤ hi, as max(x, lo) = x and min(x, hi) = x.
        let inside = _mm256_and_si256(
            _mm256_cmpeq_epi32(_mm256_max_epu32(x, lo), x),
            _mm256_cmpeq_epi32(_mm256_min_epu32(x, hi), x),
        );
        *byte = _mm256_movemask_ps(_mm256_castsi256_ps(inside)) as u8 ^ flip;
    }
}

/// Unpacks `out.len()` elements of `width` bits (1..=8 for `u8` lanes, 1..=16 for `u16`),
/// MSB-first when `big_endian`, from the start of `src` into narrow lanes: select's and
/// expand's lanes. Each group of 8 is decoded to 32-bit lanes and narrowed with saturating
/// packs (the values fit). Reads nothing past `src` (which should hold ⌈len·width/8⌉ bytes).
///
/// # Safety
/// The CPU supports AVX2 and BMI2.
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn unpack_narrow<T: Narrow>(
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    out: &mut [T],
) {
    let count = out.len();
    let (p, groups) = plan_and_groups(width, big_endian, src, count);
    // SAFETY: AVX2 is available; `groups` groups read inside `src`, and `out` holds
    // 8·groups lanes.
    unsafe {
        with_kind!(big_endian, p, BE, FIVE => narrow_groups::<BE, FIVE, T>(p, src, groups, out))
    };
    let mut done = 8 * groups;
    let mut block = [0u32; 64];
    while done < count {
        let len = (count - done).min(64);
        let from = src.get(done / 8 * p.width..).unwrap_or(&[]);
        portable::unpack(width, big_endian, from, &mut block[..len]);
        for (o, &v) in out[done..done + len].iter_mut().zip(&block[..len]) {
            *o = T::from_u32(v);
        }
        done += len;
    }
}

/// A lane narrower than 32 bits: what [`unpack_narrow`] writes and
/// [`compress_narrow`]/[`expand_narrow`] move, 8 lanes (8 or 16 bytes) a step.
pub(super) trait Narrow: Copy + Default {
    /// The low bits of `value`.
    fn from_u32(value: u32) -> Self;
    /// Writes the lanes at `from` whose bit in `mask` is set, in order, from `to` (8
    /// lanes written).
    ///
    /// # Safety
    /// The CPU supports AVX2; 8 lanes are readable at `from` and writable at `to`.
    unsafe fn compress8(from: *const Self, mask: u8, to: *mut Self);
    /// Writes 8 lanes from `to`: lane j the next unused of the lanes at `from` when bit j of
    /// `mask` is set, zero otherwise.
    ///
    /// # Safety
    /// The CPU supports AVX2; 8 lanes are readable at `from` and writable at `to`.
    unsafe fn expand8(from: *const Self, mask: u8, to: *mut Self);
    /// Stores 8 values of 32-bit lanes (each fitting this lane) as 8 lanes at `to`.
    ///
    /// # Safety
    /// The CPU supports AVX2; `to` is valid for 8 lanes' writes.
    unsafe fn store8(values: __m256i, to: *mut Self);
}

impl Narrow for u8 {
    fn from_u32(value: u32) -> u8 {
        value as u8
    }

    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn compress8(from: *const u8, mask: u8, to: *mut u8) {
        let control = _mm_cvtsi64_si128(COMPRESS_LANES[usize::from(mask)] as i64);
        // SAFETY: 8 bytes at `from` and at `to` (the caller's guarantee).
        unsafe {
            let x = _mm_loadl_epi64(from.cast());
            _mm_storel_epi64(to.cast(), _mm_shuffle_epi8(x, control));
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn expand8(from: *const u8, mask: u8, to: *mut u8) {
        let control = _mm_cvtsi64_si128(EXPAND_BYTES[usize::from(mask)] as i64);
        // SAFETY: 8 bytes at `from` and at `to` (the caller's guarantee).
        unsafe {
            let x = _mm_loadl_epi64(from.cast());
            _mm_storel_epi64(to.cast(), _mm_shuffle_epi8(x, control));
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn store8(values: __m256i, to: *mut u8) {
        // Each 128-bit half's 4 values as its low 4 bytes.
        let halves = _mm256_packus_epi32(values, values);
        let bytes = _mm256_packus_epi16(halves, halves);
        let low = _mm256_cvtsi256_si32(bytes) as u32;
        let high = _mm256_extract_epi32::<4>(bytes) as u32;
        let eight = u64::from(low) | (u64::from(high) << 32);
        // SAFETY: 8 bytes at `to` (the caller's guarantee).
        unsafe { to.cast::<[u8; 8]>().write_unaligned(eight.to_le_bytes()) };
    }
}

impl Narrow for u16 {
    fn from_u32(value: u32) -> u16 {
        value as u16
    }

    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn compress8(from: *const u16, mask: u8, to: *mut u16) {
        // SAFETY: 16 bytes at `from` and at `to` (the caller's guarantee); the table row is
        // 16 bytes.
        unsafe {
            let control = _mm_loadu_si128(COMPRESS_HALVES[usize::from(mask)].as_ptr().cast());
            let x = _mm_loadu_si128(from.cast());
            _mm_storeu_si128(to.cast(), _mm_shuffle_epi8(x, control));
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn expand8(from: *const u16, mask: u8, to: *mut u16) {
        // SAFETY: 16 bytes at `from` and at `to` (the caller's guarantee); the table row is
        // 16 bytes.
        unsafe {
            let control = _mm_loadu_si128(EXPAND_HALVES[usize::from(mask)].as_ptr().cast());
            let x = _mm_loadu_si128(from.cast());
            _mm_storeu_si128(to.cast(), _mm_shuffle_epi8(x, control));
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,bmi2")]
    unsafe fn store8(values: __m256i, to: *mut u16) {
        // Each 128-bit half's 4 values as its low 8 bytes, then the two halves' low
        // quadwords side by side.
        let halves = _mm256_packus_epi32(values, values);
        let joined = _mm256_permute4x64_epi64::<0b00_00_10_00>(halves);
        // SAFETY: 16 bytes at `to` (the caller's guarantee), unaligned.
        unsafe { _mm_storeu_si128(to.cast(), _mm256_castsi256_si128(joined)) };
    }
}

/// Decodes `groups` whole groups with plan `p` into the first 8·groups lanes of `out`.
///
/// # Safety
/// AVX2 is available; `src` holds g·w + high_offset + 16 bytes for every g < `groups`;
/// `out` holds at least 8·groups lanes.
#[inline]
#[target_feature(enable = "avx2,bmi2")]
unsafe fn narrow_groups<const BE: bool, const FIVE: bool, T: Narrow>(
    p: &Plan,
    src: &[u8],
    groups: usize,
    out: &mut [T],
) {
    // SAFETY: AVX2 is available.
    let decoder = unsafe { Decoder::new(p) };
    for g in 0..groups {
        // SAFETY: group g's bytes are inside `src`; lanes 8·g .. 8·g + 8 are inside `out`.
        unsafe {
            let values = decoder.group::<BE, FIVE>(src.as_ptr().add(g * p.width));
            T::store8(values, out.as_mut_ptr().add(8 * g));
        }
    }
}

/// For each 8-bit mask, the lanes of its set bits in order (one byte each), then zeros.
static COMPRESS_LANES: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut lanes, mut kept, mut lane) = (0u64, 0, 0);
        while lane < 8 {
            if mask >> lane & 1 == 1 {
                lanes |= (lane as u64) << (8 * kept);
                kept += 1;
            }
            lane += 1;
        }
        table[mask] = lanes;
        mask += 1;
    }
    table
};

/// Select's inner loop on `u32` lanes: appends `values[j]` for every set bit j of the mask
/// words (bit j of `words[j / 64]`, none at or above `values.len()`) to `out`, and returns
/// how many. A group of 8 values is one permutation by its mask byte's lanes and one 8-lane
/// store (the lanes past the kept ones are overwritten by the next group's), where `out`
/// has room for 8 lanes from the next free one; one value at a time where it has not.
///
/// # Safety
/// The CPU supports AVX2, BMI2 and POPCNT.
#[target_feature(enable = "avx2,bmi2,popcnt")]
pub(super) unsafe fn compress(values: &[u32], words: &[u64], out: &mut [u32]) -> usize {
    let mut kept = 0;
    for (&word, chunk) in words.iter().zip(values.chunks(64)) {
        let (groups, tail) = chunk.as_chunks::<8>();
        for (k, group) in groups.iter().enumerate() {
            let mask = (word >> (8 * k)) as u8;
            if kept + 8 <= out.len() {
                let lanes = COMPRESS_LANES[usize::from(mask)] as i64;
                let lanes = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(lanes));
                // SAFETY: `group` is 8 readable lanes; out[kept..kept + 8] is writable.
                unsafe {
                    let x = _mm256_loadu_si256(group.as_ptr().cast());
                    let packed = _mm256_permutevar8x32_epi32(x, lanes);
                    _mm256_storeu_si256(out.as_mut_ptr().add(kept).cast(), packed);
                }
                kept += mask.count_ones() as usize;
            } else {
                kept = append_selected(group, u64::from(mask), out, kept);
            }
        }
        let rest = word.checked_shr(8 * groups.len() as u32).unwrap_or(0);
        kept = append_selected(tail, rest, out, kept);
    }
    kept
}

/// Select's unpacking and compression in one pass: appends element j of the `count` packed
/// at `width` bits from the start of `src` (MSB-first when `big_endian`; nothing past `src`
/// is read) to `out` for every set bit j of the mask words (bit j of `words[j / 64]`, none at
/// or above `count`), and returns how many. Each group of 8 is decoded in registers and
/// compressed as [`compress`] does, never stored unselected; the last groups (whose loads
/// would pass `src`, or whose store `out` has no room for) through the portable unpacker.
///
/// # Safety
/// The CPU supports AVX2, BMI2 and POPCNT.
#[target_feature(enable = "avx2,bmi2,popcnt")]
pub(super) unsafe fn unpack_compress(
    width: BitWidth,
    big_endian: bool,
    src: &[u8],
    count: usize,
    words: &[u64],
    out: &mut [u32],
) -> usize {
    let (p, groups) = plan_and_groups(width, big_endian, src, count);
    let groups = groups.min(8 * words.len());
    // SAFETY: AVX2 is available; `groups` groups read inside `src`.
    let (mut done, mut kept) = unsafe {
        with_kind!(big_endian, p, BE, FIVE => {
            compress_groups::<BE, FIVE>(p, src, groups, words, out)
        })
    };
    let mut block = [0u32; 64];
    while done < count {
        let len = (count - done).min(64 - done % 64);
        let from = src.get(done / 8 * p.width..).unwrap_or(&[]);
        portable::unpack(width, big_endian, from, &mut block[..len]);
        let bits = words.get(done / 64).copied().unwrap_or(0) >> (done % 64);
        let bits = bits & u64::MAX.checked_shr(64 - len as u32).unwrap_or(0);
        kept = append_selected(&block[..len], bits, out, kept);
        done += len;
    }
    kept
}

/// The groups part of [`unpack_compress`]: decodes and compresses groups from the first
/// while `out` has room for a whole 8-lane store; returns (elements done, values kept).
///
/// # Safety
/// AVX2 and POPCNT are available; `src` holds g·w + high_offset + 16 bytes for every
/// g < `groups`, and `words` holds ⌈groups/8⌉ words.
#[inline]
#[target_feature(enable = "avx2,bmi2,popcnt")]
unsafe fn compress_groups<const BE: bool, const FIVE: bool>(
    p: &Plan,
    src: &[u8],
    groups: usize,
    words: &[u64],
    out: &mut [u32],
) -> (usize, usize) {
    // SAFETY: AVX2 is available.
    let decoder = unsafe { Decoder::new(p) };
    let mut kept = 0;
    for g in 0..groups {
        if kept + 8 > out.len() {
            return (8 * g, kept);
        }
        let mask = (words[g / 8] >> (8 * (g % 8))) as u8;
        let lanes = COMPRESS_LANES[usize::from(mask)] as i64;
        let lanes = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(lanes));
        // SAFETY: group g's bytes are inside `src`; out[kept..kept + 8] is writable.
        unsafe {
            let x = decoder.group::<BE, FIVE>(src.as_ptr().add(g * p.width));
            let packed = _mm256_permutevar8x32_epi32(x, lanes);
            _mm256_storeu_si256(out.as_mut_ptr().add(kept).cast(), packed);
        }
        kept += mask.count_ones() as usize;
    }
    (8 * groups, kept)
}

/// Appends `values[j]` for every set bit j of `bits` to `out` from `kept`; returns the new
/// count.
#[inline(always)]
fn append_selected(values: &[u32], mut bits: u64, out: &mut [u32], mut kept: usize) -> usize {
    while bits != 0 {
        out[kept] = values[bits.trailing_zeros() as usize];
        kept += 1;
        bits &= bits - 1;
    }
    kept
}

/// For each 8-bit mask, lane j's source among the next values: the number of set bits
/// below bit j (one byte each; the lanes of clear bits are zeroed after the permutation).
static EXPAND_LANES: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let (mut lanes, mut rank, mut lane) = (0u64, 0u64, 0);
        while lane < 8 {
            if mask >> lane & 1 == 1 {
                lanes |= rank << (8 * lane);
                rank += 1;
            }
            lane += 1;
        }
        table[mask] = lanes;
        mask += 1;
    }
    table
};

/// Expand's inner loop on `u32` lanes: [`super::expand_words`] with the values in `values`
/// and the output in `out` (64 positions per word, zeros at clear bits), 8 positions per
/// step: one 8-value load from the next unused value, one permutation by the mask byte's
/// ranks, one AND with its set lanes, one store. A step whose load would pass the end of
/// `values` goes one position at a time.
///
/// # Safety
/// The CPU supports AVX2, BMI2 and POPCNT.
#[target_feature(enable = "avx2,bmi2,popcnt")]
pub(super) unsafe fn expand(values: &[u32], words: &[u64], out: &mut [u32]) -> (usize, usize) {
    let bit_of_lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    super::expand_words(words, values.len(), |i, word, used| {
        let positions = &mut out[64 * i..64 * i + 64];
        let mut next = used;
        for (k, eight) in positions.as_chunks_mut::<8>().0.iter_mut().enumerate() {
            let mask = (word >> (8 * k)) as u8;
            if next + 8 <= values.len() {
                let ranks = EXPAND_LANES[usize::from(mask)] as i64;
                let ranks = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(ranks));
                let bits = _mm256_and_si256(_mm256_set1_epi32(i32::from(mask)), bit_of_lane);
                let set = _mm256_cmpeq_epi32(bits, bit_of_lane);
                // SAFETY: values[next..next + 8] are readable; `eight` is 8 writable lanes.
                unsafe {
                    let x = _mm256_loadu_si256(values.as_ptr().add(next).cast());
                    let placed = _mm256_and_si256(_mm256_permutevar8x32_epi32(x, ranks), set);
                    _mm256_storeu_si256(eight.as_mut_ptr().cast(), placed);
                }
            } else {
                let mut from = next;
                for (j, slot) in eight.iter_mut().enumerate() {
                    let set = (mask >> j) & 1 == 1;
                    *slot = if set { values[from] } else { 0 };
                    from += usize::from(set);
                }
            }
            next += mask.count_ones() as usize;
        }
    })
}

/// Writes `values`, each masked by `mask`, as little-endian integers of 1 or 2 bytes (their
/// low bytes: truncated, as `as u8`/`as u16` do) into `out`, 8 values a step: the 8- and
/// 16-bit array outputs. `false` (nothing written) unless `out` holds exactly 1 or 2 bytes
/// per value.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn narrow(values: &[u32], mask: u32, out: &mut [u8]) -> bool {
    let bytes = if out.len() == values.len() {
        1
    } else if out.len() == 2 * values.len() {
        2
    } else {
        return false;
    };
    let m = _mm256_set1_epi32(mask as i32);
    // Each 128-bit half's 4 values' low bytes (or byte pairs) at its start.
    let low_bytes = _mm256_setr_epi8(
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, //
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let low_halves = _mm256_setr_epi8(
        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1, //
        0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let (chunks, rest) = values.as_chunks::<8>();
    for (g, chunk) in chunks.iter().enumerate() {
        // SAFETY: `chunk` is 8 readable lanes; the writes are bytes 8·bytes·g .. + 8·bytes
        // of `out`, which holds bytes·values.len().
        unsafe {
            let x = _mm256_and_si256(_mm256_loadu_si256(chunk.as_ptr().cast()), m);
            let to = out.as_mut_ptr().add(8 * bytes * g);
            if bytes == 1 {
                let picked = _mm256_shuffle_epi8(x, low_bytes);
                let low = _mm256_cvtsi256_si32(picked) as u32;
                let high = _mm256_extract_epi32::<4>(picked) as u32;
                let eight = u64::from(low) | (u64::from(high) << 32);
                to.cast::<[u8; 8]>().write_unaligned(eight.to_le_bytes());
            } else {
                let picked = _mm256_shuffle_epi8(x, low_halves);
                let joined = _mm256_permute4x64_epi64::<0b00_00_10_00>(picked);
                _mm_storeu_si128(to.cast(), _mm256_castsi256_si128(joined));
            }
        }
    }
    let tail = &mut out[8 * bytes * chunks.len()..];
    if bytes == 1 {
        for (o, &v) in tail.iter_mut().zip(rest) {
            *o = (v & mask) as u8;
        }
    } else {
        for (o, &v) in tail.chunks_exact_mut(2).zip(rest) {
            o.copy_from_slice(&((v & mask) as u16).to_le_bytes());
        }
    }
    true
}

/// [`EXPAND_LANES`] as a byte shuffle: lane j takes byte rank(j), or zero (0x80) when bit
/// j is clear.
static EXPAND_BYTES: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut lane = 0;
        while lane < 8 {
            let byte = if mask >> lane & 1 == 1 {
                (EXPAND_LANES[mask] >> (8 * lane)) & 0xFF
            } else {
                0x80
            };
            table[mask] |= byte << (8 * lane);
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// [`COMPRESS_LANES`] for 16-bit lanes: the byte pairs of the kept lanes.
static COMPRESS_HALVES: [[u8; 16]; 256] = {
    let mut table = [[0u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut lane = 0;
        while lane < 8 {
            let from = ((COMPRESS_LANES[mask] >> (8 * lane)) & 0xFF) as u8;
            table[mask][2 * lane] = 2 * from;
            table[mask][2 * lane + 1] = 2 * from + 1;
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// [`EXPAND_BYTES`] for 16-bit lanes.
static EXPAND_HALVES: [[u8; 16]; 256] = {
    let mut table = [[0x80u8; 16]; 256];
    let mut mask = 0;
    while mask < 256 {
        let mut lane = 0;
        while lane < 8 {
            if mask >> lane & 1 == 1 {
                let from = ((EXPAND_LANES[mask] >> (8 * lane)) & 0xFF) as u8;
                table[mask][2 * lane] = 2 * from;
                table[mask][2 * lane + 1] = 2 * from + 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

/// [`compress`] on narrow lanes: 8 lanes a step where `out` has room for 8 from the next
/// free one, one at a time elsewhere.
///
/// # Safety
/// The CPU supports AVX2, BMI2 and POPCNT.
#[target_feature(enable = "avx2,bmi2,popcnt")]
pub(super) unsafe fn compress_narrow<T: Narrow>(
    values: &[T],
    words: &[u64],
    out: &mut [T],
) -> usize {
    let mut kept = 0;
    for (&word, chunk) in words.iter().zip(values.chunks(64)) {
        let (groups, tail) = chunk.as_chunks::<8>();
        for (k, group) in groups.iter().enumerate() {
            let mask = (word >> (8 * k)) as u8;
            if kept + 8 <= out.len() {
                // SAFETY: `group` is 8 readable lanes; out[kept..kept + 8] is writable.
                unsafe { T::compress8(group.as_ptr(), mask, out.as_mut_ptr().add(kept)) };
                kept += mask.count_ones() as usize;
            } else {
                kept = append_selected_lanes(group, u64::from(mask), out, kept);
            }
        }
        let rest = word.checked_shr(8 * groups.len() as u32).unwrap_or(0);
        kept = append_selected_lanes(tail, rest, out, kept);
    }
    kept
}

/// [`append_selected`] for any lane type.
#[inline(always)]
fn append_selected_lanes<T: Copy>(
    values: &[T],
    mut bits: u64,
    out: &mut [T],
    mut kept: usize,
) -> usize {
    while bits != 0 {
        out[kept] = values[bits.trailing_zeros() as usize];
        kept += 1;
        bits &= bits - 1;
    }
    kept
}

/// [`expand`] on narrow lanes.
///
/// # Safety
/// The CPU supports AVX2, BMI2 and POPCNT.
#[target_feature(enable = "avx2,bmi2,popcnt")]
pub(super) unsafe fn expand_narrow<T: Narrow>(
    values: &[T],
    words: &[u64],
    out: &mut [T],
) -> (usize, usize) {
    super::expand_words(words, values.len(), |i, word, used| {
        let positions = &mut out[64 * i..64 * i + 64];
        let mut next = used;
        for (k, eight) in positions.as_chunks_mut::<8>().0.iter_mut().enumerate() {
            let mask = (word >> (8 * k)) as u8;
            if next + 8 <= values.len() {
                // SAFETY: values[next..next + 8] are readable; `eight` is 8 writable lanes.
                unsafe { T::expand8(values.as_ptr().add(next), mask, eight.as_mut_ptr()) };
            } else {
                let mut from = next;
                for (j, slot) in eight.iter_mut().enumerate() {
                    let set = (mask >> j) & 1 == 1;
                    *slot = if set { values[from] } else { T::default() };
                    from += usize::from(set);
                }
            }
            next += mask.count_ones() as usize;
        }
    })
}

/// The value aggregates of `values`, 8 lanes at a time.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn min_max_sum(values: &[u32]) -> MinMaxSum {
    let (chunks, rest) = values.as_chunks::<8>();
    let (mut min, mut max, mut sum) = (
        _mm256_set1_epi32(-1),
        _mm256_setzero_si256(),
        _mm256_setzero_si256(),
    );
    for chunk in chunks {
        // SAFETY: `chunk` is 32 bytes, read unaligned.
        let x = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        min = _mm256_min_epu32(min, x);
        max = _mm256_max_epu32(max, x);
        sum = _mm256_add_epi32(sum, x);
    }
    let (mut mins, mut maxs, mut sums) = ([0u32; 8], [0u32; 8], [0u32; 8]);
    // SAFETY: each array is 32 bytes.
    unsafe {
        _mm256_storeu_si256(mins.as_mut_ptr().cast(), min);
        _mm256_storeu_si256(maxs.as_mut_ptr().cast(), max);
        _mm256_storeu_si256(sums.as_mut_ptr().cast(), sum);
    }
    let lanes = if chunks.is_empty() {
        MinMaxSum::NONE
    } else {
        MinMaxSum {
            min: mins.into_iter().min().unwrap_or(u32::MAX),
            max: maxs.into_iter().max().unwrap_or(0),
            sum: sums.into_iter().fold(0, u32::wrapping_add),
        }
    };
    lanes.merge(MinMaxSum::of(rest.iter().copied()))
}

/// Set bits in `bytes`: the portable word loop, compiled with the POPCNT instruction.
///
/// # Safety
/// The CPU supports POPCNT.
#[target_feature(enable = "popcnt")]
pub(super) unsafe fn count_ones(bytes: &[u8]) -> u64 {
    portable::count_ones(bytes)
}

/// Fills `out` (a multiple of 4 bytes) with copies of `element`, 32 bytes a store.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2,bmi2")]
pub(super) unsafe fn fill4(element: [u8; 4], out: &mut [u8]) {
    let pattern = _mm256_set1_epi32(i32::from_le_bytes(element));
    let (lines, rest) = out.as_chunks_mut::<32>();
    for line in lines {
        // SAFETY: `line` is 32 writable bytes.
        unsafe { _mm256_storeu_si256(line.as_mut_ptr().cast(), pattern) };
    }
    for o in rest.chunks_exact_mut(4) {
        o.copy_from_slice(&element);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::Tier;

    fn noise(len: usize, seed: u32) -> Vec<u8> {
        (0..len as u32)
            .map(|i| (i.wrapping_add(seed).wrapping_mul(0x9E37_79B9) >> 11) as u8)
            .collect()
    }

    fn available() -> bool {
        Tier::Avx2.is_available()
    }

    /// Every width, both orders, every length 0..=200 and starts at 0..4 bytes into a
    /// buffer: the same values as the portable kernel, from a `src` cut to exactly
    /// ⌈len·width/8⌉ bytes (a read past it would show under Miri/ASan, and a short copy
    /// makes it a different allocation), and nothing written outside the output.
    #[test]
    fn avx2_unpacking_matches_the_portable_kernel_for_every_width_order_length_and_start() {
        if !available() {
            return;
        }
        for width in 1..=32u32 {
            let bw = BitWidth::new(width).unwrap();
            for be in [false, true] {
                for start in 0..4usize {
                    let data = noise(start + 4 * 200 + 8, width * 7 + start as u32);
                    for count in 0..=200usize {
                        let bytes = (count * width as usize).div_ceil(8);
                        // `src` starts `start` bytes into an allocation that ends with it:
                        // a read past it is out of bounds (which Miri or ASan would report).
                        let buffer = data[..start + bytes].to_vec();
                        let src = &buffer[start..];
                        let mut expected = vec![0u32; count];
                        portable::unpack(bw, be, src, &mut expected);
                        for aggregate in [false, true] {
                            // Output at every byte offset 0..4, with guards around it.
                            let shift = (count + start) % 4;
                            let mut raw = vec![0xA5u8; 4 * count + 8 + shift];
                            let at = 4 + shift;
                            // SAFETY: AVX2 and BMI2 were detected; `raw` holds 4·count
                            // bytes from `at`.
                            let agg = unsafe {
                                let to = raw.as_mut_ptr().add(at);
                                if aggregate {
                                    unpack::<true>(bw, be, src, count, to)
                                } else {
                                    unpack::<false>(bw, be, src, count, to)
                                }
                            };
                            let got: Vec<u32> = raw[at..at + 4 * count]
                                .chunks_exact(4)
                                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                                .collect();
                            let case = format!("w{width} be{be} start{start} n{count}");
                            assert_eq!(got, expected, "{case}");
                            assert!(raw[..at].iter().all(|&b| b == 0xA5), "before: {case}");
                            assert!(
                                raw[at + 4 * count..].iter().all(|&b| b == 0xA5),
                                "after: {case}"
                            );
                            let want = if aggregate {
                                MinMaxSum::of(expected.iter().copied())
                            } else {
                                MinMaxSum::NONE
                            };
                            assert_eq!(agg, want, "aggregates: {case}");
                        }
                    }
                }
            }
        }
    }

    /// Every comparison, width and order, lengths 0..=100 and a few longer, `src` at byte
    /// offsets 0..4 in an allocation that ends where it does: the bits of a plain comparison
    /// of the portable kernel's values, zeros above the count, nothing written past them.
    #[test]
    fn avx2_scans_match_a_plain_comparison_at_every_start_and_length() {
        if !available() {
            return;
        }
        let compares = [
            Compare::Eq,
            Compare::Ne,
            Compare::Lt,
            Compare::Le,
            Compare::Gt,
            Compare::Ge,
            Compare::Range,
            Compare::NotRange,
        ];
        let lengths = (0..=100usize).chain([127, 128, 129, 200, 513]);
        for width in 1..=32u32 {
            let bw = BitWidth::new(width).unwrap();
            for be in [false, true] {
                for (start, count) in lengths.clone().enumerate() {
                    let start = start % 4;
                    let data = noise(start + 4 * 513 + 8, width * 13 + count as u32);
                    let bytes = (count * width as usize).div_ceil(8);
                    let buffer = data[..start + bytes].to_vec();
                    let src = &buffer[start..];
                    let mut values = vec![0u32; count];
                    portable::unpack(bw, be, src, &mut values);
                    let (a, b) = (
                        values.first().copied().unwrap_or(0),
                        values.last().copied().unwrap_or(0),
                    );
                    let (low, high) = (a.min(b), a.max(b));
                    for compare in compares {
                        let (lo, hi, negate) = compare.as_range(low, high);
                        let mut bits = vec![0xA5u8; count.div_ceil(8) + 1];
                        let room = count.div_ceil(8);
                        // SAFETY: AVX2 and BMI2 were detected.
                        unsafe {
                            scan_packed(bw, be, src, count, compare, low, high, &mut bits[..room])
                        };
                        let case = format!("{compare:?} w{width} be{be} start{start} n{count}");
                        for (i, &x) in values.iter().enumerate() {
                            let want = (lo <= x && x <= hi) != negate;
                            assert_eq!((bits[i / 8] >> (i % 8)) & 1 == 1, want, "{case} i{i}");
                        }
                        if count % 8 != 0 {
                            assert_eq!(bits[count / 8] >> (count % 8), 0, "high bits: {case}");
                        }
                        assert_eq!(bits[room], 0xA5, "wrote past the bits: {case}");
                    }
                }
            }
        }
    }

    /// The comparisons as ranges mean what they say, at the edges of `u32`.
    #[test]
    fn comparisons_as_ranges_agree_with_the_comparisons() {
        type Plain = fn(u32, u32, u32) -> bool;
        let plain: [(Compare, Plain); 8] = [
            (Compare::Eq, |x, l, _| x == l),
            (Compare::Ne, |x, l, _| x != l),
            (Compare::Lt, |x, l, _| x < l),
            (Compare::Le, |x, l, _| x <= l),
            (Compare::Gt, |x, l, _| x > l),
            (Compare::Ge, |x, l, _| x >= l),
            (Compare::Range, |x, l, h| l <= x && x <= h),
            (Compare::NotRange, |x, l, h| x < l || x > h),
        ];
        let edges = [0, 1, 2, 0x7FFF_FFFF, 0x8000_0000, u32::MAX - 1, u32::MAX];
        for (compare, test) in plain {
            for l in edges {
                for h in edges {
                    let (lo, hi, negate) = compare.as_range(l, h);
                    for x in edges {
                        let got = (lo <= x && x <= hi) != negate;
                        assert_eq!(got, test(x, l, h), "{compare:?} x{x} l{l} h{h}");
                    }
                }
            }
        }
    }

    #[test]
    fn avx2_aggregates_fills_and_popcounts_match_plain_loops() {
        if !available() {
            return;
        }
        for len in 0..=70usize {
            let values: Vec<u32> = noise(4 * len, len as u32)
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            // SAFETY: AVX2 was detected.
            let got = unsafe { min_max_sum(&values) };
            assert_eq!(got, MinMaxSum::of(values.iter().copied()), "n{len}");
            let bytes = noise(len, 3);
            // SAFETY: POPCNT was detected with AVX2.
            let ones = unsafe { count_ones(&bytes) };
            let plain: u64 = bytes.iter().map(|b| u64::from(b.count_ones())).sum();
            assert_eq!(ones, plain, "n{len}");
            for start in 0..4 {
                let mut buffer = vec![0xA5u8; start + 4 * len + 4];
                // SAFETY: AVX2 was detected.
                unsafe { fill4([1, 2, 3, 4], &mut buffer[start..start + 4 * len]) };
                assert!(buffer[..start].iter().all(|&b| b == 0xA5), "n{len}");
                assert!(
                    buffer[start..start + 4 * len]
                        .chunks_exact(4)
                        .all(|c| c == [1, 2, 3, 4]),
                    "n{len}"
                );
                assert_eq!(buffer[start + 4 * len..], [0xA5; 4], "n{len}");
            }
        }
    }

    /// Narrow lanes: every width that fits them, both orders, lengths 0..=200, `src` at
    /// byte offsets 0..4 ending its allocation, against the portable kernel; nothing
    /// written past the lanes asked for.
    #[test]
    fn avx2_narrow_unpacking_matches_the_portable_kernel() {
        if !available() {
            return;
        }
        for width in 1..=16u32 {
            let bw = BitWidth::new(width).unwrap();
            for be in [false, true] {
                for count in 0..=200usize {
                    let start = count % 4;
                    let data = noise(start + 2 * 200 + 8, width * 5 + count as u32);
                    let bytes = (count * width as usize).div_ceil(8);
                    let buffer = data[..start + bytes].to_vec();
                    let src = &buffer[start..];
                    let mut expected = vec![0u32; count];
                    portable::unpack(bw, be, src, &mut expected);
                    let case = format!("w{width} be{be} n{count}");
                    let mut halves = vec![0xA5A5u16; count + 1];
                    // SAFETY: AVX2 and BMI2 were detected.
                    unsafe { unpack_narrow(bw, be, src, &mut halves[..count]) };
                    let wide: Vec<u32> = halves[..count].iter().map(|&h| u32::from(h)).collect();
                    assert_eq!(wide, expected, "u16 {case}");
                    assert_eq!(halves[count], 0xA5A5, "u16 past: {case}");
                    if width <= 8 {
                        let mut lanes = vec![0xA5u8; count + 1];
                        // SAFETY: AVX2 and BMI2 were detected.
                        unsafe { unpack_narrow(bw, be, src, &mut lanes[..count]) };
                        let wide: Vec<u32> = lanes[..count].iter().map(|&b| u32::from(b)).collect();
                        assert_eq!(wide, expected, "u8 {case}");
                        assert_eq!(lanes[count], 0xA5, "u8 past: {case}");
                    }
                }
            }
        }
    }

    /// Every length 0..=200 and mask shape, with `out` exactly as large as the portable
    /// kernel needs (so the last groups go one at a time) and with room to spare: the same
    /// values as the portable kernel, nothing written past what it keeps when `out` is exact.
    #[test]
    fn avx2_compress_matches_the_portable_kernel() {
        if !available() {
            return;
        }
        let shapes: [fn(usize) -> u64; 6] = [
            |_| 0,
            |_| u64::MAX,
            |i| 0x9E37_79B9_7F4A_7C15u64.rotate_left(i as u32),
            |i| 1 << (i % 64),
            |_| 0x8000_0000_0000_0001,
            |i| 0xFFFF << (16 * (i % 4)),
        ];
        for len in 0..=200usize {
            let values: Vec<u32> = (0..len as u32)
                .map(|i| i.wrapping_mul(0x9E37_79B9))
                .collect();
            for shape in shapes {
                let mut words: Vec<u64> = (0..len.div_ceil(64)).map(shape).collect();
                // No bit at or above `len` (the kernels' contract).
                if let (Some(last), 1..) = (words.last_mut(), len % 64) {
                    *last &= (1u64 << (len % 64)) - 1;
                }
                let mut expected = vec![0u32; len];
                let n = portable::compress(&values, &words, &mut expected);
                for room in [n, len.next_multiple_of(16)] {
                    let mut out = vec![0xDEAD_BEEFu32; room + 1];
                    // SAFETY: AVX2, BMI2 and POPCNT were detected.
                    let got = unsafe { compress(&values, &words, &mut out[..room]) };
                    assert_eq!(got, n, "n{len} room{room}");
                    assert_eq!(out[..n], expected[..n], "n{len} room{room}");
                    assert_eq!(out[room], 0xDEAD_BEEF, "wrote past out: n{len}");
                    if room == n {
                        assert!(out[n..].iter().all(|&v| v == 0xDEAD_BEEF), "n{len}");
                    }
                }
            }
        }
    }

    /// Words of every shape, with the values running out at every count and lasting: the
    /// portable kernel's output and counts, nothing written past the words' positions.
    #[test]
    fn avx2_expand_matches_the_portable_kernel() {
        if !available() {
            return;
        }
        let values: Vec<u32> = (1..=300u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        let shapes = [
            0,
            u64::MAX,
            0x9E37_79B9_7F4A_7C15,
            1,
            1 << 63,
            0xFFFF_0000_FFFF_0000,
            0x00FF_00FF_00FF_00FF,
        ];
        for a in shapes {
            for b in shapes {
                let words = [a, b, a ^ b];
                let ones: usize = words.iter().map(|w| w.count_ones() as usize).sum();
                for available in (0..=ones.min(200)).chain([ones + 1, 300]) {
                    let available = available.min(values.len());
                    let mut expected = vec![0u32; 192];
                    let want = portable::expand(&values[..available], &words, &mut expected);
                    let mut out = vec![0xDEAD_BEEFu32; 193];
                    // SAFETY: AVX2, BMI2 and POPCNT were detected.
                    let got = unsafe { expand(&values[..available], &words, &mut out[..192]) };
                    let case = format!("{words:x?} {available}");
                    assert_eq!(got, want, "{case}");
                    assert_eq!(out[..want.1], expected[..want.1], "{case}");
                    assert_eq!(out[192], 0xDEAD_BEEF, "{case}");
                }
            }
        }
    }

    /// Narrowing to 1- and 2-byte arrays: masked, then truncated, for every length 0..=40,
    /// masks narrower and wider than the output; other output sizes are refused untouched.
    #[test]
    fn avx2_narrowing_keeps_the_masked_low_bytes_and_writes_nothing_else() {
        if !available() {
            return;
        }
        for len in 0..=40usize {
            let values: Vec<u32> = (0..len as u32)
                .map(|i| i.wrapping_mul(0x9E37_79B9))
                .collect();
            for mask in [0x7F, 0xFF, 0x3FF, 0xFFFF, 0x1_FFFF, u32::MAX] {
                let mut out = vec![0xA5u8; len + 1];
                // SAFETY: AVX2 was detected.
                assert!(unsafe { narrow(&values, mask, &mut out[..len]) });
                let plain: Vec<u8> = values.iter().map(|&v| (v & mask) as u8).collect();
                assert_eq!(out[..len], plain[..], "u8 n{len} mask{mask:x}");
                assert_eq!(out[len], 0xA5, "u8 past: n{len}");
                let mut out = vec![0xA5u8; 2 * len + 1];
                // SAFETY: AVX2 was detected.
                assert!(unsafe { narrow(&values, mask, &mut out[..2 * len]) });
                let plain: Vec<u8> = values
                    .iter()
                    .flat_map(|&v| ((v & mask) as u16).to_le_bytes())
                    .collect();
                assert_eq!(out[..2 * len], plain[..], "u16 n{len} mask{mask:x}");
                assert_eq!(out[2 * len], 0xA5, "u16 past: n{len}");
            }
            if len > 0 {
                let mut out = vec![0xA5u8; 3 * len];
                // SAFETY: AVX2 was detected.
                assert!(!unsafe { narrow(&values, 0xFF, &mut out) });
                assert!(out.iter().all(|&b| b == 0xA5));
            }
        }
    }

    /// Fused select: every width and order, lengths 0..=150, three mask shapes, `src` ending
    /// its allocation, `out` exactly as large as the kept values and with room: the values
    /// the portable unpacker and compressor keep, nothing written past `out`.
    #[test]
    fn avx2_unpack_compress_matches_unpacking_then_compressing() {
        if !available() {
            return;
        }
        let shapes: [fn(usize) -> u64; 3] = [
            |_| u64::MAX,
            |i| 0x9E37_79B9_7F4A_7C15u64.rotate_left(7 * i as u32),
            |i| 0xFF00_00FF_0F0F_F0F0u64.rotate_left(i as u32),
        ];
        for width in 1..=32u32 {
            let bw = BitWidth::new(width).unwrap();
            for be in [false, true] {
                for count in (0..=150usize).step_by(7).chain([64, 128, 129]) {
                    let bytes = (count * width as usize).div_ceil(8);
                    let data = noise(bytes + 3, width + count as u32);
                    let buffer = data[..bytes].to_vec();
                    let src = &buffer[..];
                    let mut values = vec![0u32; count];
                    portable::unpack(bw, be, src, &mut values);
                    for shape in shapes {
                        let mut words: Vec<u64> = (0..count.div_ceil(64)).map(shape).collect();
                        if let (Some(last), 1..) = (words.last_mut(), count % 64) {
                            *last &= (1u64 << (count % 64)) - 1;
                        }
                        let mut expected = vec![0u32; count];
                        let n = portable::compress(&values, &words, &mut expected);
                        for room in [n, count.next_multiple_of(16)] {
                            let mut out = vec![0xDEAD_BEEFu32; room + 1];
                            // SAFETY: AVX2, BMI2 and POPCNT were detected.
                            let got = unsafe {
                                unpack_compress(bw, be, src, count, &words, &mut out[..room])
                            };
                            let case = format!("w{width} be{be} n{count} room{room}");
                            assert_eq!(got, n, "{case}");
                            assert_eq!(out[..n], expected[..n], "{case}");
                            assert_eq!(out[room], 0xDEAD_BEEF, "{case}");
                        }
                    }
                }
            }
        }
    }

    /// Narrow lanes' compress and expand against the portable kernels: lengths 0..=200 and
    /// mask shapes as for `u32` lanes, `out` exact and with room, nothing written past it.
    #[test]
    fn avx2_narrow_compress_and_expand_match_the_portable_kernels() {
        if !available() {
            return;
        }
        fn check<T: Narrow + PartialEq + std::fmt::Debug>(values: &[T], words: &[u64], guard: T) {
            let len = values.len();
            let mut expected = vec![T::default(); len];
            let n = portable::compress(values, words, &mut expected);
            for room in [n, len.next_multiple_of(64)] {
                let mut out = vec![guard; room + 1];
                // SAFETY: AVX2, BMI2 and POPCNT were detected.
                let got = unsafe { compress_narrow(values, words, &mut out[..room]) };
                assert_eq!(got, n, "compress n{len} room{room}");
                assert_eq!(out[..n], expected[..n], "compress n{len} room{room}");
                assert_eq!(out[room], guard, "compress past: n{len}");
            }
            for available in [0, 1, 7, 9, len / 2, len] {
                let values = &values[..available.min(len)];
                let mut expected = vec![T::default(); 64 * words.len()];
                let want = portable::expand(values, words, &mut expected);
                let mut out = vec![guard; 64 * words.len() + 1];
                let room = 64 * words.len();
                // SAFETY: AVX2, BMI2 and POPCNT were detected.
                let got = unsafe { expand_narrow(values, words, &mut out[..room]) };
                assert_eq!(got, want, "expand n{len} of {available}");
                assert_eq!(
                    out[..want.1],
                    expected[..want.1],
                    "expand n{len} of {available}"
                );
                assert_eq!(out[room], guard, "expand past: n{len}");
            }
        }
        let shapes: [fn(usize) -> u64; 4] = [
            |_| u64::MAX,
            |i| 0x9E37_79B9_7F4A_7C15u64.rotate_left(7 * i as u32),
            |i| 1 << (i % 64),
            |i| 0xFF00_00FF_0F0F_F0F0u64.rotate_left(i as u32),
        ];
        for len in 0..=200usize {
            let wide: Vec<u32> = (1..=len as u32)
                .map(|i| i.wrapping_mul(0x9E37_79B9))
                .collect();
            let bytes: Vec<u8> = wide.iter().map(|&v| (v >> 24) as u8 | 1).collect();
            let halves: Vec<u16> = wide.iter().map(|&v| (v >> 16) as u16 | 1).collect();
            for shape in shapes {
                let mut words: Vec<u64> = (0..len.div_ceil(64)).map(shape).collect();
                if let (Some(last), 1..) = (words.last_mut(), len % 64) {
                    *last &= (1u64 << (len % 64)) - 1;
                }
                check(&bytes, &words, 0xA5u8);
                check(&halves, &words, 0xA5A5u16);
            }
        }
    }

    /// The plans' strides: the width each plan decodes is the width it was built for.
    #[test]
    fn every_plan_is_for_its_width() {
        for (i, p) in PLANS.iter().enumerate() {
            let width = i % 32 + 1;
            assert_eq!(p.high_offset, 4 * width / 8, "w{width}");
            assert_eq!(
                p.five,
                (0..8).any(|l| l * width % 8 + width > 32),
                "w{width}"
            );
        }
    }
}
