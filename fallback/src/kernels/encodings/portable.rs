//! The portable kernels of the encodings: plain Rust that LLVM vectorises where it can.
//! A leaf module: the AVX2 kernels (`avx2::encodings`, `avx2::delta`) fall back to these for
//! the tails and widths they leave, and the dispatch in `kernels::encodings` picks them on
//! the portable tier; this module imports none of those.

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
pub(crate) fn delta_wide_i64(width: u32, src: &[u8], min: u64, acc: u64, out: &mut [i64]) -> u64 {
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
                if per_miniblock > 0 && per_miniblock % 8 == 0 && rest.iter().all(|w| w == first) {
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
pub(crate) fn gather<T: Copy, S: Slot<T>>(indices: &[u32], dictionary: &[T], out: &mut [S]) {
    let Some(last) = dictionary.len().checked_sub(1) else {
        return;
    };
    // The clamp changes nothing for checked indices but lets the compiler drop the
    // bounds checks.
    let at = |i: u32| (i as usize).min(last);
    let mut ins = indices.chunks_exact(4);
    let mut outs = out.chunks_exact_mut(4);
    for (i, o) in (&mut ins).zip(&mut outs) {
        o[0].set(dictionary[at(i[0])]);
        o[1].set(dictionary[at(i[1])]);
        o[2].set(dictionary[at(i[2])]);
        o[3].set(dictionary[at(i[3])]);
    }
    for (&i, o) in ins.remainder().iter().zip(outs.into_remainder()) {
        o.set(dictionary[at(i)]);
    }
}

/// Where a gather writes a value of `T`: a `T` (overwritten) or a `MaybeUninit<T>` (the
/// spare room of a `Vec` the values are appended to, never zeroed first). Sealed: only
/// these two, so that a slice of slots has `T`'s layout and a kernel may store `T`s through
/// its pointer.
pub(crate) trait Slot<T: Copy>: sealed::Sealed<T> {
    /// Writes `value` here.
    fn set(&mut self, value: T);
}

impl<T: Copy> Slot<T> for T {
    #[inline]
    fn set(&mut self, value: T) {
        *self = value;
    }
}

impl<T: Copy> Slot<T> for std::mem::MaybeUninit<T> {
    #[inline]
    fn set(&mut self, value: T) {
        self.write(value);
    }
}

mod sealed {
    pub trait Sealed<T> {}
    impl<T: Copy> Sealed<T> for T {}
    impl<T: Copy> Sealed<T> for std::mem::MaybeUninit<T> {}
}
