//! The portable kernels: plain Rust for every target (LLVM vectorises what it can), the
//! kernels of every tier's operations that have no SIMD kernel there, and the reference the
//! SIMD kernels are tested against.
//!
//! Bit unpacking: one monomorphised kernel per (bit width, bit order). Eight elements of width
//! `W` occupy exactly `W` bytes in both orders, so a stream is a sequence of `W`-byte groups.
//! Each kernel decodes whole groups with constant offsets and shifts (the compiler unrolls the
//! eight lanes), and handles a short tail through a zero-padded copy, so no read ever leaves
//! the caller's slice. Into little-endian `u32` arrays ([`unpack_to_le_bytes`]), widths 1, 2
//! and 4 copy each source byte's elements from a table, widths 3 and 5 each pair of
//! elements, widths 8 and 16 widen and width 32 copies: LLVM vectorises none of the
//! shift-and-mask forms for SSE2 (neither lanes of one group with per-lane shifts nor groups
//! in lanes with a transpose; checked in the assembly), so the general kernel is scalar.

use super::{expand_words, BitWidth, Compare, MinMaxSum};

/// Element `lane` (0..8) of the group of 8 elements of `W` bits at the start of `window`,
/// which holds the group's `W` bytes and 8 more: one unaligned 8-byte load at a constant
/// offset, a constant shift and a mask (an element spans at most 5 bytes from the byte it
/// starts in). The offsets are constants once `W` is known and `window`'s length is, so the
/// bounds checks fold away; LLVM turns the eight lanes into eight loads, shifts and ands
/// with no branch, on every target.
#[inline(always)]
fn lane_value<const W: usize, const BE: bool>(window: &[u8], lane: usize) -> u32 {
    let bit = lane * W;
    let byte = bit / 8;
    let shift = bit % 8;
    let mask: u64 = if W == 32 {
        0xFFFF_FFFF
    } else {
        (1u64 << W) - 1
    };
    let mut word = [0u8; 8];
    word.copy_from_slice(&window[byte..byte + 8]);
    let value = if BE {
        u64::from_be_bytes(word) >> (64 - shift - W)
    } else {
        u64::from_le_bytes(word) >> shift
    };
    (value & mask) as u32
}

/// The 8 elements of the group at the start of `window` (its `W` bytes and 8 more).
#[inline(always)]
fn decode_group<const W: usize, const BE: bool>(window: &[u8]) -> [u32; 8] {
    let window = &window[..W + 8];
    std::array::from_fn(|lane| lane_value::<W, BE>(window, lane))
}

/// Decodes the first `groups` whole groups of 8 elements packed at `W` bits from the start
/// of `src` and hands them to `put` with their index, in order. Groups are decoded from
/// `src` while 8 bytes follow them (every group but the last two at most), the others from
/// a zero-padded copy ([`padded_group`]), so no read leaves `src`. The caller stores the
/// lanes it is given one by one: handed on whole through memory, they were written to the
/// stack as eight 4-byte stores and read back as wider loads, which stalled store
/// forwarding (×3 slower).
#[inline(always)]
fn unpack_groups<const W: usize, const BE: bool>(
    src: &[u8],
    groups: usize,
    put: impl FnMut(usize, [u32; 8]),
) {
    unpack_groups_from::<W, BE>(src, 0, groups, put)
}

/// [`unpack_groups`] of groups `first..groups` only.
#[inline(always)]
fn unpack_groups_from<const W: usize, const BE: bool>(
    src: &[u8],
    first: usize,
    groups: usize,
    mut put: impl FnMut(usize, [u32; 8]),
) {
    // Groups g with g·W + W + 8 ≤ src.len().
    let direct = (src.len().saturating_sub(8) / W).min(groups);
    for g in first..direct {
        put(g, decode_group::<W, BE>(&src[g * W..g * W + W + 8]));
    }
    for g in direct.max(first)..groups {
        put(g, padded_group::<W, BE>(src, g));
    }
}

/// The elements of every byte value for the widths that divide 8, LSB-first (index 0) and
/// MSB-first (index 1), as the little-endian bytes of their `u32`s: byte b's `8 / W`
/// elements are `w{W}[order][b]`. 8 + 4 + 2 KiB, built at compile time.
struct ByteTables {
    w1: [[[u8; 32]; 256]; 2],
    w2: [[[u8; 16]; 256]; 2],
    w4: [[[u8; 8]; 256]; 2],
}

/// The elements of `W` bits in `byte`, element j as the little-endian bytes 4j..4j + 4.
const fn byte_elements<const N: usize>(width: usize, big_endian: bool, byte: usize) -> [u8; N] {
    let mut out = [0u8; N];
    let mut j = 0;
    while j < N / 4 {
        let shift = if big_endian {
            8 - (j + 1) * width
        } else {
            j * width
        };
        out[4 * j] = ((byte >> shift) & ((1 << width) - 1)) as u8;
        j += 1;
    }
    out
}

static BYTE_TABLES: ByteTables = {
    let mut t = ByteTables {
        w1: [[[0; 32]; 256]; 2],
        w2: [[[0; 16]; 256]; 2],
        w4: [[[0; 8]; 256]; 2],
    };
    let mut order = 0;
    while order < 2 {
        let mut b = 0;
        while b < 256 {
            t.w1[order][b] = byte_elements::<32>(1, order == 1, b);
            t.w2[order][b] = byte_elements::<16>(2, order == 1, b);
            t.w4[order][b] = byte_elements::<8>(4, order == 1, b);
            b += 1;
        }
        order += 1;
    }
    t
};

/// The two elements of every value of 2·W bits for widths 3 and 5, LSB-first (index 0)
/// and MSB-first (index 1), as the little-endian bytes of two `u32`s: the first element is
/// the index's low W bits (LSB-first) or its high W bits (MSB-first). 1 + 16 KiB, built
/// at compile time.
struct PairTables {
    w3: [[[u8; 8]; 64]; 2],
    w5: [[[u8; 8]; 1024]; 2],
}

/// The pair of elements of `width` bits in the 2·`width` bits of `index`.
const fn pair_elements(width: usize, big_endian: bool, index: usize) -> [u8; 8] {
    let mask = (1 << width) - 1;
    let (low, high) = (index & mask, (index >> width) & mask);
    let (first, second) = if big_endian { (high, low) } else { (low, high) };
    [first as u8, 0, 0, 0, second as u8, 0, 0, 0]
}

static PAIR_TABLES: PairTables = {
    let mut t = PairTables {
        w3: [[[0; 8]; 64]; 2],
        w5: [[[0; 8]; 1024]; 2],
    };
    let mut order = 0;
    while order < 2 {
        let mut i = 0;
        while i < 1024 {
            if i < 64 {
                t.w3[order][i] = pair_elements(3, order == 1, i);
            }
            t.w5[order][i] = pair_elements(5, order == 1, i);
            i += 1;
        }
        order += 1;
    }
    t
};

/// Decodes whole groups of 8 elements of `W` bits (3 or 5; `N` = 2^(2·W)) from the start of
/// `src` into `out` (little-endian `u32`s) while a group's 8-byte load stays inside `src`,
/// each pair of elements one 8-byte copy from `table`, and returns how many groups: per
/// pair a shift, an and, a load and a store, where decoding element by element costs a
/// shift, an and and a store per element.
#[inline(always)]
fn unpack_by_pairs<const W: usize, const BE: bool, const N: usize>(
    src: &[u8],
    out: &mut [u8],
    table: &[[u8; 8]; N],
) -> usize {
    let (groups, _) = out.as_chunks_mut::<32>();
    // Group g reads bytes g·W .. g·W + 8.
    let direct = match src.len().checked_sub(8) {
        Some(spare) => (spare / W + 1).min(groups.len()),
        None => 0,
    };
    for (g, group) in groups[..direct].iter_mut().enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&src[g * W..g * W + 8]);
        let x = if BE {
            u64::from_be_bytes(word)
        } else {
            u64::from_le_bytes(word)
        };
        for (k, o) in group.as_chunks_mut::<8>().0.iter_mut().enumerate() {
            let shift = if BE { 64 - (2 * k + 2) * W } else { 2 * k * W };
            *o = table[(x >> shift) as usize & (N - 1)];
        }
    }
    direct
}

/// Decodes the elements of the whole source bytes that `out` (little-endian `u32`s) has
/// room for, each byte's `N / 4` elements copied from `table` (one load of the byte, one
/// `N`-byte copy: vector moves on every target), and returns how many groups of 8
/// elements that is.
#[inline(always)]
fn unpack_by_bytes<const N: usize>(src: &[u8], out: &mut [u8], table: &[[u8; N]; 256]) -> usize {
    let (chunks, _) = out.as_chunks_mut::<N>();
    let bytes = chunks.len().min(src.len());
    for (o, &b) in chunks[..bytes].iter_mut().zip(src) {
        *o = table[usize::from(b)];
    }
    // Whole groups (of 32 bytes of `out`) only: the caller decodes the rest.
    bytes * N / 32
}

/// Group `g` of the elements packed at `W` bits from the start of `src`, the bytes past the
/// end of `src` read as zeros.
#[inline(always)]
fn padded_group<const W: usize, const BE: bool>(src: &[u8], g: usize) -> [u32; 8] {
    let start = (g * W).min(src.len());
    let end = (start + W).min(src.len());
    let mut window = [0u8; 40];
    window[..end - start].copy_from_slice(&src[start..end]);
    decode_group::<W, BE>(&window)
}

/// Decodes `out.len()` elements from `src`, which holds at least ⌈len·W/8⌉ bytes.
fn unpack_width<const W: usize, const BE: bool>(src: &[u8], out: &mut [u32]) {
    let (groups, tail) = out.as_chunks_mut::<8>();
    let whole = groups.len();
    unpack_groups::<W, BE>(src, whole, |g, values| {
        for (o, v) in groups[g].iter_mut().zip(values) {
            *o = v;
        }
    });
    if !tail.is_empty() {
        let values = padded_group::<W, BE>(src, whole);
        for (o, v) in tail.iter_mut().zip(values) {
            *o = v;
        }
    }
}

/// The portable kernels: every target, and the reference for the SIMD ones.
pub(crate) fn unpack(width: BitWidth, be: bool, src: &[u8], out: &mut [u32]) {
    macro_rules! dispatch {
        ($($w:literal)*) => {
            match (width.get(), be) {
                $(
                    ($w, false) => unpack_width::<$w, false>(src, out),
                    ($w, true) => unpack_width::<$w, true>(src, out),
                )*
                _ => unreachable!("BitWidth is always 1..=32"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// Decodes `out.len() / 4` elements from `src` (which holds at least ⌈len·W/8⌉ bytes of
/// them) as little-endian `u32`s into `out`, and returns their aggregates when `AGGREGATE`.
fn unpack_le_width<const W: usize, const BE: bool, const AGGREGATE: bool>(
    src: &[u8],
    out: &mut [u8],
) -> MinMaxSum {
    let count = out.len() / 4;
    if !AGGREGATE && (W == 8 || W == 16) && src.len() >= count * W / 8 {
        // Whole bytes: a widening copy, which LLVM vectorises on every target.
        let (to, _) = out.as_chunks_mut::<4>();
        if W == 8 {
            for (o, &b) in to.iter_mut().zip(src) {
                *o = u32::from(b).to_le_bytes();
            }
        } else {
            for (o, &h) in to.iter_mut().zip(src.as_chunks::<2>().0) {
                let h = if BE {
                    u16::from_be_bytes(h)
                } else {
                    u16::from_le_bytes(h)
                };
                *o = u32::from(h).to_le_bytes();
            }
        }
        return MinMaxSum::NONE;
    }
    if !AGGREGATE && W == 32 && src.len() >= count * 4 {
        // Whole words: a copy (LSB-first; also a Parquet bit-packed run's) or a byte swap,
        // which LLVM vectorises.
        let (to, from) = (&mut out[..count * 4], &src[..count * 4]);
        if BE {
            let (to, from) = (to.as_chunks_mut::<4>().0, from.as_chunks::<4>().0);
            for (o, &w) in to.iter_mut().zip(from) {
                *o = u32::from_be_bytes(w).to_le_bytes();
            }
        } else {
            to.copy_from_slice(from);
        }
        return MinMaxSum::NONE;
    }
    // Widths that divide 8: whole source bytes through a table, the rest below.
    let first = {
        let (to, order) = (&mut out[..count * 4], usize::from(BE));
        match W {
            _ if AGGREGATE => 0,
            1 => unpack_by_bytes(src, to, &BYTE_TABLES.w1[order]),
            2 => unpack_by_bytes(src, to, &BYTE_TABLES.w2[order]),
            4 => unpack_by_bytes(src, to, &BYTE_TABLES.w4[order]),
            3 => unpack_by_pairs::<W, BE, 64>(src, to, &PAIR_TABLES.w3[order]),
            5 => unpack_by_pairs::<W, BE, 1024>(src, to, &PAIR_TABLES.w5[order]),
            _ => 0,
        }
    };
    let (groups, rest) = out[..count * 4].as_chunks_mut::<32>();
    let whole = groups.len();
    let (mut min, mut max, mut sum) = ([u32::MAX; 8], [0u32; 8], [0u32; 8]);
    let mut add = |lanes: usize, values: [u32; 8]| {
        if AGGREGATE {
            for j in 0..lanes {
                min[j] = min[j].min(values[j]);
                max[j] = max[j].max(values[j]);
                sum[j] = sum[j].wrapping_add(values[j]);
            }
        }
    };
    unpack_groups_from::<W, BE>(src, first, whole, |g, values| {
        for (o, v) in groups[g].as_chunks_mut::<4>().0.iter_mut().zip(values) {
            *o = v.to_le_bytes();
        }
        add(8, values);
    });
    if !rest.is_empty() {
        let values = padded_group::<W, BE>(src, whole);
        for (o, v) in rest.as_chunks_mut::<4>().0.iter_mut().zip(values) {
            *o = v.to_le_bytes();
        }
        add(rest.len() / 4, values);
    }
    if !AGGREGATE {
        return MinMaxSum::NONE;
    }
    MinMaxSum {
        min: min.into_iter().min().unwrap_or(u32::MAX),
        max: max.into_iter().max().unwrap_or(0),
        sum: sum.into_iter().fold(0, u32::wrapping_add),
    }
}
/// The portable kernel of [`super::unpack_to_le_bytes`]: `out.len() / 4` elements of
/// `width` bits, MSB-first when `be`, from the start of `src` (at least ⌈count·width/8⌉
/// bytes) as little-endian `u32`s straight into `out`, with their aggregates when
/// `aggregate` ([`MinMaxSum::NONE`] otherwise).
pub(crate) fn unpack_to_le_bytes(
    width: BitWidth,
    be: bool,
    src: &[u8],
    out: &mut [u8],
    aggregate: bool,
) -> MinMaxSum {
    macro_rules! dispatch {
        ($($w:literal)*) => {
            match (width.get(), be, aggregate) {
                $(
                    ($w, false, false) => unpack_le_width::<$w, false, false>(src, out),
                    ($w, true, false) => unpack_le_width::<$w, true, false>(src, out),
                    ($w, false, true) => unpack_le_width::<$w, false, true>(src, out),
                    ($w, true, true) => unpack_le_width::<$w, true, true>(src, out),
                )*
                _ => unreachable!("BitWidth is always 1..=32"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

/// The portable kernel of [`super::scan_packed`] (same contract): each group of 8 decoded
/// in registers ([`decode_group`]) and compared into one byte of `bits`, one subtraction
/// and one compare per element whatever the comparison, never stored unpacked.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan_packed(
    width: BitWidth,
    be: bool,
    src: &[u8],
    count: usize,
    compare: Compare,
    low: u32,
    high: u32,
    bits: &mut [u8],
) {
    let (lo, hi, negate) = compare.as_range(low, high);
    let flip = if negate { 0xFF } else { 0 };
    let bits = &mut bits[..count.div_ceil(8)];
    if lo > hi {
        // An empty range: every element is outside.
        bits.fill(flip);
    } else {
        macro_rules! dispatch {
            ($($w:literal)*) => {
                match (width.get(), be) {
                    $(
                        ($w, false) => scan_width::<$w, false>(src, count, lo, hi - lo, flip, bits),
                        ($w, true) => scan_width::<$w, true>(src, count, lo, hi - lo, flip, bits),
                    )*
                    _ => unreachable!("BitWidth is always 1..=32"),
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
    }
    if !count.is_multiple_of(8) {
        bits[count / 8] &= (1u8 << (count % 8)) - 1;
    }
}

/// Bit j of `bits[g]` = (element 8g + j − `lo` ≤ `span`, wrapping) XOR bit j of `flip`.
fn scan_width<const W: usize, const BE: bool>(
    src: &[u8],
    count: usize,
    lo: u32,
    span: u32,
    flip: u8,
    bits: &mut [u8],
) {
    let byte = |values: [u32; 8]| {
        let mut byte = 0u8;
        for (j, &x) in values.iter().enumerate() {
            byte |= u8::from(x.wrapping_sub(lo) <= span) << j;
        }
        byte ^ flip
    };
    let whole = count / 8;
    unpack_groups::<W, BE>(src, whole, |g, values| bits[g] = byte(values));
    if !count.is_multiple_of(8) {
        bits[whole] = byte(padded_group::<W, BE>(src, whole));
    }
}

/// The portable kernel of [`super::hybrid_to_le_bytes`] (same contract). On aarch64 the
/// portable tier runs `neon::hybrid_to_le_bytes`, tested against this one.
#[cfg_attr(
    all(target_arch = "aarch64", target_endian = "little"),
    allow(dead_code)
)]
pub(crate) fn hybrid_to_le_bytes<const AGGREGATE: bool>(
    width: BitWidth,
    data: &[u8],
    mask: u32,
    out: &mut [u8],
) -> (usize, usize, MinMaxSum) {
    super::runs::hybrid_walk::<AGGREGATE>(width.get(), data, mask, out, fill_le, |src, to| {
        unpack_to_le_bytes(width, false, src, to, AGGREGATE)
    })
}

/// Stores `len / 4` copies of `value` as little-endian bytes from the start of `to`, 32
/// bytes a store: when `to` has room for the last store's whole 32 bytes, they are stored
/// whole (up to 28 bytes of copies after the `len`), otherwise exactly `len` bytes. The
/// fill of RLE runs ([`super::runs::hybrid_walk`], [`super::fill4`]).
#[inline(always)]
pub(crate) fn fill_le(value: u32, to: &mut [u8], len: usize) {
    let element = value.to_le_bytes();
    let pattern: [u8; 32] = std::array::from_fn(|i| element[i % 4]);
    let whole = len.next_multiple_of(32);
    if whole <= to.len() {
        for chunk in to[..whole].as_chunks_mut::<32>().0 {
            *chunk = pattern;
        }
    } else {
        let (chunks, rest) = to[..len].as_chunks_mut::<32>();
        for chunk in chunks {
            *chunk = pattern;
        }
        for o in rest.chunks_exact_mut(4) {
            o.copy_from_slice(&element);
        }
    }
}

fn encode_group<const W: usize, const BE: bool>(values: &[u32; 8], mask: u32, out: &mut [u8; W]) {
    // The group as one 8·W-bit integer in two 128-bit halves, element i at bit i·W (LSB
    // first) or (7 - i)·W (MSB first); the positions are constants once W is known, so the
    // compiler unrolls this into shifts and ORs with a few wide stores, not a store per byte.
    let (mut low, mut high) = (0u128, 0u128);
    for (i, &value) in values.iter().enumerate() {
        let v = u128::from(value & mask);
        let at = if BE { (7 - i) * W } else { i * W };
        if at < 128 {
            low |= v << at;
            if at + W > 128 {
                high |= v >> (128 - at);
            }
        } else {
            high |= v << (at - 128);
        }
    }
    let split = W.min(16);
    if BE {
        // Big-endian bytes of the 8·W-bit integer: `high`'s low W - 16 bytes, then `low`.
        out[..W - split].copy_from_slice(&high.to_be_bytes()[16 - (W - split)..]);
        out[W - split..].copy_from_slice(&low.to_be_bytes()[16 - split..]);
    } else {
        out[..split].copy_from_slice(&low.to_le_bytes()[..split]);
        out[split..].copy_from_slice(&high.to_le_bytes()[..W - split]);
    }
}

fn pack_width<const W: usize, const BE: bool>(values: &[u32], mask: u32, out: &mut [u8]) {
    for (g, o) in values.chunks_exact(8).zip(out.chunks_exact_mut(W)) {
        if let (Ok(g), Ok(o)) = (g.try_into(), o.try_into()) {
            encode_group::<W, BE>(g, mask, o);
        }
    }
}

/// The portable packing kernels: every target, and the reference for the SIMD one.
pub(crate) fn pack(width: BitWidth, be: bool, mask: u32, values: &[u32], out: &mut [u8]) {
    macro_rules! dispatch {
        ($($w:literal)*) => {
            match (width.get(), be) {
                $(
                    ($w, false) => pack_width::<$w, false>(values, mask, out),
                    ($w, true) => pack_width::<$w, true>(values, mask, out),
                )*
                _ => unreachable!("BitWidth is always 1..=32"),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// Select's inner loop: appends `values[j]` for every set bit j of the mask words (bit j of
/// `words[j / 64]`) to `out`, and returns how many.
pub(crate) fn compress<T: Copy>(values: &[T], words: &[u64], out: &mut [T]) -> usize {
    let mut kept = 0;
    for (&word, chunk) in words.iter().zip(values.chunks(64)) {
        let mut word = word;
        while word != 0 {
            out[kept] = chunk[word.trailing_zeros() as usize];
            kept += 1;
            word &= word - 1;
        }
    }
    kept
}

/// [`expand_words`] from `values` into `out` (64 positions per word, zeros at clear bits).
pub(crate) fn expand<T: Copy + Default>(
    values: &[T],
    words: &[u64],
    out: &mut [T],
) -> (usize, usize) {
    expand_words(words, values.len(), |i, word, used| {
        let mut next = used;
        for (j, slot) in out[64 * i..64 * i + 64].iter_mut().enumerate() {
            let set = (word >> j) & 1 == 1;
            *slot = if set { values[next] } else { T::default() };
            next += usize::from(set);
        }
    })
}

/// The value aggregates of narrow lanes: separate reductions, which the compiler vectorises.
pub(crate) fn min_max_sum_narrow<T: Copy + Ord + Into<u32>>(values: &[T]) -> MinMaxSum {
    match (values.iter().min(), values.iter().max()) {
        (Some(&min), Some(&max)) => MinMaxSum {
            min: min.into(),
            max: max.into(),
            sum: values
                .iter()
                .fold(0u32, |sum, &v| sum.wrapping_add(v.into())),
        },
        _ => MinMaxSum::NONE,
    }
}

/// Set bits in `bytes`, eight bytes a word (the popcount of a word costs about what a byte's
/// does); inlined into the POPCNT kernel, so one loop serves both.
#[inline(always)]
pub(crate) fn count_ones(bytes: &[u8]) -> u64 {
    let mut words = bytes.chunks_exact(8);
    let mut count = 0u64;
    for w in &mut words {
        let word = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        count += u64::from(word.count_ones());
    }
    count
        + words
            .remainder()
            .iter()
            .map(|b| u64::from(b.count_ones()))
            .sum::<u64>()
}

/// [`super::level_word`]: 8 levels at a time, their 0-or-1 bytes gathered into 8 bits by a
/// multiplication (a loop the compiler vectorises; a shift and an or a level is slower).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn level_word(levels: &[i16; 64], equal: bool, threshold: i16) -> u64 {
    let holds = |level: i16| match equal {
        true => level == threshold,
        false => level > threshold,
    };
    let mut word = 0u64;
    for (byte, eight) in levels.chunks_exact(8).enumerate() {
        let flags = eight.iter().enumerate().fold(0u64, |flags, (i, &level)| {
            flags | (u64::from(holds(level)) << (8 * i))
        });
        // Byte i of `flags` (0 or 1) to bit i of the top byte.
        word |= (flags.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * byte);
    }
    word
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit-at-a-time reference straight from the parser description.
    fn reference(width: u32, be: bool, src: &[u8], count: usize) -> Vec<u32> {
        (0..count)
            .map(|i| {
                let mut v = 0u32;
                for b in 0..width as usize {
                    let k = i * width as usize + b;
                    let byte = src.get(k / 8).copied().unwrap_or(0);
                    let bit = if be {
                        (byte >> (7 - k % 8)) & 1
                    } else {
                        (byte >> (k % 8)) & 1
                    };
                    if be {
                        v = (v << 1) | u32::from(bit);
                    } else {
                        v |= u32::from(bit) << b;
                    }
                }
                v
            })
            .collect()
    }

    #[test]
    fn every_width_and_order_matches_the_bitwise_reference() {
        let src: Vec<u8> = (0..200u32)
            .map(|i| (i.wrapping_mul(0x9E37_79B9) >> 13) as u8)
            .collect();
        for width in 1..=32 {
            for be in [false, true] {
                for count in [0usize, 1, 7, 8, 9, 31, 40] {
                    let mut out = vec![0u32; count];
                    let bytes = (count * width as usize).div_ceil(8);
                    unpack(BitWidth::new(width).unwrap(), be, &src[..bytes], &mut out);
                    assert_eq!(
                        out,
                        reference(width, be, &src, count),
                        "w{width} be{be} n{count}"
                    );
                }
            }
        }
    }

    #[test]
    fn pack_is_the_inverse_of_unpack_for_every_width_and_order() {
        for width in 1..=32u32 {
            let w = BitWidth::new(width).unwrap();
            let values: Vec<u32> = (0..64u32)
                .map(|i| i.wrapping_mul(0x9E37_79B9) & w.mask())
                .collect();
            for be in [false, true] {
                let mut packed = vec![0u8; 8 * width as usize];
                crate::kernels::pack(w, be, w.mask(), &values, &mut packed);
                let mut back = vec![0u32; 64];
                unpack(w, be, &packed, &mut back);
                assert_eq!(back, values, "w{width} be{be}");
            }
        }
    }

    #[test]
    fn bit_width_rejects_0_and_33() {
        assert!(BitWidth::new(0).is_none());
        assert!(BitWidth::new(33).is_none());
        assert_eq!(BitWidth::new(32).unwrap().mask(), u32::MAX);
        assert_eq!(BitWidth::new(3).unwrap().mask(), 7);
    }
}
