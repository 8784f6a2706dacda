//! The kernels: the inner loops of every operation, one module per tier, and this module,
//! the one place that chooses among them.
//!
//! - [`portable`]: plain Rust, every target; the reference the SIMD tiers are tested against.
//! - `avx2` (x86-64): AVX2, BMI2 and POPCNT; unpacking (to `u32`, `u16`, `u8`), scans,
//!   compression (also fused with unpacking) and expansion of every lane type, narrowing,
//!   aggregates, popcounts and fills so far.
//! - `sse2` (x86-64's baseline): BYTE_STREAM_SPLIT's transposes, run by every tier there.
//! - `avx512` (x86-64): AVX-512 F/BW/VBMI/VBMI2 with POPCNT; GroupVarInt INT32 in
//!   `avx512::encodings`, the other encodings on the AVX2 kernels.
//! - `neon` (aarch64): NEON unpacking for the portable tier there (NEON is baseline).
//! - `tier`: which tier runs ([`kernel_tier`]), from the CPU and `QPL_FALLBACK_KERNELS`.
//! - [`runs`]: the RLE/bit-packed hybrid's run reader, which the sources' decoder and the
//!   SIMD hybrid kernel both walk.
//! - [`lanes`]: the element types select and expand carry (`u8`, `u16`, `u32`), each with
//!   its kernels.
//!
//! The tier is chosen once per process ([`kernel_tier`], [`kernels`]). The functions below
//! run the chosen tier's kernel: most return `false`/`None` when the tier has none for the
//! case, and the caller then runs the portable one (or its own loop), since several of those
//! fallbacks write straight into the caller's output format. Kernels import nothing from the
//! layers above them (sources, operations, outputs): what they share with those layers (bit
//! widths, value aggregates, the scratch block) is defined here. `tests` runs every kernel of
//! the chosen tier through these functions against the portable one; `avx2` also tests its
//! kernels directly wherever the CPU has AVX2, whichever tier runs.

// Off x86-64 the dispatchers below have only their portable arm, which ignores most
// arguments.
#![cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub(crate) mod encodings;
pub(crate) mod lanes;
#[cfg(all(target_arch = "aarch64", target_endian = "little"))]
mod neon;
pub(crate) mod portable;
pub(crate) mod runs;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(target_arch = "x86_64")]
mod ssse3;
#[cfg(test)]
mod tests;
mod tier;

use std::sync::OnceLock;

pub use tier::{kernel_tier, Tier, TierError};

/// The 64 `levels` as a word, bit `i` set where `levels[i] == threshold` (`equal`) or
/// `levels[i] > threshold`: SSE2 on x86_64 (its baseline, whatever the tier), the portable
/// kernel elsewhere.
#[inline]
pub(crate) fn level_word(levels: &[i16; 64], equal: bool, threshold: i16) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86_64: every CPU this code runs on has it.
    return unsafe { sse2::level_word(levels, equal, threshold) };
    #[cfg(not(target_arch = "x86_64"))]
    portable::level_word(levels, equal, threshold)
}

/// A bit width in 1..=32, checked once so that kernels can be chosen without a failure path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BitWidth(u32);

impl BitWidth {
    pub(crate) fn new(bits: u32) -> Option<BitWidth> {
        (1..=32).contains(&bits).then_some(BitWidth(bits))
    }

    pub(crate) fn get(self) -> u32 {
        self.0
    }

    /// The largest value of this width.
    pub(crate) fn mask(self) -> u32 {
        u32::MAX >> (32 - self.0)
    }

    /// Bytes needed for `count` packed elements.
    pub(crate) fn packed_bytes(self, count: u64) -> u64 {
        (count * u64::from(self.0)).div_ceil(8)
    }
}

/// The value aggregates of some elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MinMaxSum {
    pub(crate) min: u32,
    pub(crate) max: u32,
    /// Wrapping.
    pub(crate) sum: u32,
}

impl MinMaxSum {
    /// Of no elements: the identity of [`MinMaxSum::merge`].
    pub(crate) const NONE: MinMaxSum = MinMaxSum {
        min: u32::MAX,
        max: 0,
        sum: 0,
    };

    /// Of both sets of elements.
    pub(crate) fn merge(self, other: MinMaxSum) -> MinMaxSum {
        MinMaxSum {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
            sum: self.sum.wrapping_add(other.sum),
        }
    }

    /// Of `count` copies of `value`.
    pub(crate) fn run(value: u32, count: u64) -> MinMaxSum {
        if count == 0 {
            return MinMaxSum::NONE;
        }
        MinMaxSum {
            min: value,
            max: value,
            sum: value.wrapping_mul(count as u32),
        }
    }

    /// Of `values`, in one plain fold.
    pub(crate) fn of(values: impl IntoIterator<Item = u32>) -> MinMaxSum {
        values.into_iter().fold(MinMaxSum::NONE, |all, v| {
            all.merge(MinMaxSum {
                min: v,
                max: v,
                sum: v,
            })
        })
    }
}

/// Elements unpacked per block: a multiple of 8, so every block starts on a byte boundary in
/// both packed orders and in Parquet bit-packed runs, and small enough to stay in L1.
pub(crate) const BLOCK: usize = 1024;

/// A block of [`BLOCK`] elements, zeroed when first used: most calls hand their values to
/// kernels that never touch it, and zeroing 1–4 KiB per call cost more than decoding a
/// short array.
pub(crate) struct LazyBlock<T>(Option<[T; BLOCK]>);

impl<T: Copy + Default> LazyBlock<T> {
    /// A block not yet zeroed.
    pub(crate) const fn new() -> Self {
        LazyBlock(None)
    }

    /// Its first `len` (≤ [`BLOCK`]) elements.
    #[inline]
    pub(crate) fn first(&mut self, len: usize) -> &mut [T] {
        &mut self.0.get_or_insert_with(|| [T::default(); BLOCK])[..len]
    }
}

impl LazyBlock<u32> {
    /// The `count` (≤ [`BLOCK`]) values packed at `width` bits from the start of `src`,
    /// unpacked into the block.
    #[inline]
    pub(crate) fn unpack(
        &mut self,
        width: BitWidth,
        big_endian: bool,
        src: &[u8],
        count: usize,
    ) -> &[u32] {
        let values = self.first(count);
        unpack(width, big_endian, src, values);
        values
    }
}

/// The low `count` (≤ 64) bits set: a mask word's first `count` bits, or the mask of a
/// vector's first `count` bytes.
#[inline]
pub(crate) fn low_bits(count: usize) -> u64 {
    u64::MAX.checked_shr(64 - count as u32).unwrap_or(0)
}

/// The kernel family chosen for this process: [`Tier`] with the tiers this target has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernels {
    /// Plain Rust, every target.
    Portable,
    /// AVX2, BMI2 and POPCNT; the operations without an AVX2 kernel run the portable one.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F/BW/VBMI/VBMI2 and POPCNT (Ice Lake, Sapphire Rapids, Zen 4 and later).
    #[cfg(target_arch = "x86_64")]
    Avx512Vbmi,
}

/// The kernels of [`kernel_tier`]'s tier, or the portable ones when it is an error (which
/// `execute` and `validate` report).
#[inline]
pub(crate) fn kernels() -> Kernels {
    static CHOSEN: OnceLock<Kernels> = OnceLock::new();
    *CHOSEN.get_or_init(|| match kernel_tier() {
        #[cfg(target_arch = "x86_64")]
        Ok(Tier::Avx2) => Kernels::Avx2,
        #[cfg(target_arch = "x86_64")]
        Ok(Tier::Avx512) => Kernels::Avx512Vbmi,
        _ => Kernels::Portable,
    })
}

/// Unpacks `out.len()` elements of `width` (1..=32) bits with AVX-512 when `kernels` allows;
/// `false` when the caller must use the portable kernel. `src` holds at least
/// ⌈len·width/8⌉ bytes; nothing outside `src` and `out` is touched.
#[inline]
pub(crate) fn unpack_with(
    kernels: Kernels,
    width: u32,
    big_endian: bool,
    src: &[u8],
    out: &mut [u32],
) -> bool {
    match kernels {
        #[cfg(not(all(target_arch = "aarch64", target_endian = "little")))]
        Kernels::Portable => false,
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Kernels::Portable => neon::unpack(width, big_endian, src, out),
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            let Some(width) = BitWidth::new(width) else {
                return false;
            };
            // SAFETY: `Avx2` is chosen only after AVX2 and BMI2 were detected; `out` is
            // valid for `out.len()` u32 writes.
            unsafe {
                avx2::unpack::<false>(width, big_endian, src, out.len(), out.as_mut_ptr().cast())
            };
            true
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: `Avx512Vbmi` is chosen only after its features were detected;
            // `out` is valid for `out.len()` u32 writes.
            unsafe { avx512::unpack(width, big_endian, src, out.len(), out.as_mut_ptr().cast()) };
            true
        }
    }
}

/// Like [`unpack`], but writes the values as little-endian `u32`s straight into `out`
/// (`out.len() / 4` of them; `out.len()` a multiple of 4): the 32-bit array output of
/// extract, with no block in between. Returns their aggregates when `aggregate` (else
/// [`MinMaxSum::NONE`]); `None` when the caller must do it.
#[inline]
pub(crate) fn unpack_to_le_bytes(
    kernels: Kernels,
    width: u32,
    big_endian: bool,
    src: &[u8],
    out: &mut [u8],
    aggregate: bool,
) -> Option<MinMaxSum> {
    if width == 32 && !big_endian && !aggregate {
        // The elements are the output's bytes already: one copy (`memcpy`, which moves
        // them faster than a decoding loop's stores), on every tier.
        let src = src.get(..out.len())?;
        out.copy_from_slice(src);
        return Some(MinMaxSum::NONE);
    }
    match kernels {
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Kernels::Portable if !big_endian => Some(neon::unpack_to_le_bytes(
            BitWidth::new(width)?,
            src,
            out,
            aggregate,
        )),
        Kernels::Portable => Some(portable::unpack_to_le_bytes(
            BitWidth::new(width)?,
            big_endian,
            src,
            out,
            aggregate,
        )),
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            let (width, count, to) = (BitWidth::new(width)?, out.len() / 4, out.as_mut_ptr());
            // SAFETY: `Avx2` is chosen only after AVX2 and BMI2 were detected; x86-64 stores
            // `u32`s little-endian, and `out` is valid for `count · 4` byte writes.
            Some(unsafe {
                if aggregate {
                    avx2::unpack::<true>(width, big_endian, src, count, to)
                } else {
                    avx2::unpack::<false>(width, big_endian, src, count, to)
                }
            })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            let (count, to) = (out.len() / 4, out.as_mut_ptr());
            // SAFETY: as in `unpack`; x86-64 stores `u32` lanes little-endian, and `out` is
            // valid for `count · 4` byte writes.
            Some(unsafe {
                if aggregate {
                    avx512::unpack_aggregating::<true>(width, big_endian, src, count, to)
                } else {
                    avx512::unpack_aggregating::<false>(width, big_endian, src, count, to)
                }
            })
        }
    }
}

/// The lines of 64 bytes an RLE run's fill in [`hybrid_to_le_bytes`] stores at least,
/// from the line its first value is in, whatever the run's length (AVX-512; the portable
/// fills store up to [`runs::FILL_SPILL`] − 1 bytes past a run, the AVX2 fills up to 252).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) const FILL_LINES: usize = 4;

/// Decodes the first `out.len() / 4` values of a Parquet RLE/bit-packed hybrid stream (no
/// bit-width byte) of `width` (1..=32) bits as little-endian `u32`s straight into `out`, RLE
/// values masked by `mask` (which keeps every bit of the width: bit-packed values are not
/// masked), as far as [`runs::HybridRuns`] goes: `Some((values, bytes, aggregates))`
/// decoded, consumed, and the values' aggregates when `aggregate` (else
/// [`MinMaxSum::NONE`]). `None` when the caller must do it. When it stops early, up to
/// `64 · FILL_LINES − 1` bytes of `out` after the values may have been written (a run's fill
/// writes whole lines): the caller writes on from there, or fails, after which QPL's output
/// past `total_out` is not defined either (`docs/semantics.md`, "Result fields after an error").
#[inline]
pub(crate) fn hybrid_to_le_bytes(
    kernels: Kernels,
    width: u32,
    data: &[u8],
    mask: u32,
    out: &mut [u8],
    aggregate: bool,
) -> Option<(usize, usize, MinMaxSum)> {
    match kernels {
        #[cfg(all(target_arch = "aarch64", target_endian = "little"))]
        Kernels::Portable => {
            let width = BitWidth::new(width)?;
            Some(if aggregate {
                neon::hybrid_to_le_bytes::<true>(width, data, mask, out)
            } else {
                neon::hybrid_to_le_bytes::<false>(width, data, mask, out)
            })
        }
        #[cfg(not(all(target_arch = "aarch64", target_endian = "little")))]
        Kernels::Portable => {
            let width = BitWidth::new(width)?;
            Some(if aggregate {
                portable::hybrid_to_le_bytes::<true>(width, data, mask, out)
            } else {
                portable::hybrid_to_le_bytes::<false>(width, data, mask, out)
            })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            let width = BitWidth::new(width)?;
            // SAFETY: `Avx2` is chosen only after AVX2 and BMI2 were detected.
            Some(unsafe {
                if aggregate {
                    avx2::hybrid_to_le_bytes::<true>(width, data, mask, out)
                } else {
                    avx2::hybrid_to_le_bytes::<false>(width, data, mask, out)
                }
            })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            if !(1..=32).contains(&width) {
                return None;
            }
            // SAFETY: `Avx512Vbmi` is chosen only after its features were detected; the
            // width was just checked.
            Some(unsafe {
                if aggregate {
                    avx512::hybrid_to_le_bytes::<true>(width, data, mask, out)
                } else {
                    avx512::hybrid_to_le_bytes::<false>(width, data, mask, out)
                }
            })
        }
    }
}

/// Packs `values` (a multiple of 8 of them) at `width` bits, LSB first, each masked by
/// `mask`, into `out` (`values.len() / 8 · width` bytes): the nominal output of select and
/// expand. `false` when the caller must do it (other widths, MSB-first order, no SIMD).
#[inline]
pub(crate) fn pack_le(
    kernels: Kernels,
    width: u32,
    mask: u32,
    values: &[u32],
    out: &mut [u8],
) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            if !(4..=28).contains(&width) {
                return false;
            }
            // SAFETY: AVX-512 F/BW/VBMI were detected; the function checks the lengths it
            // relies on.
            unsafe { avx512::pack_le(width, mask, values, out) };
            true
        }
    }
}

/// Writes `values`, each masked by `mask`, as little-endian integers of `out.len() /
/// values.len()` bytes (1 or 2): the 8- and 16-bit array outputs. `false` when the caller
/// must do it.
#[inline]
pub(crate) fn narrow(kernels: Kernels, values: &[u32], mask: u32, out: &mut [u8]) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2 was detected; the function checks the
            // lengths it relies on.
            unsafe { avx2::narrow(values, mask, out) }
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F/BW were detected; the function checks the lengths it relies on.
            unsafe { avx512::narrow(values, mask, out) }
        }
    }
}

/// The value aggregates of `values`; `None` when the caller must compute them.
#[inline]
pub(crate) fn min_max_sum(kernels: Kernels, values: &[u32]) -> Option<MinMaxSum> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2 was detected.
            Some(unsafe { avx2::min_max_sum(values) })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F was detected; `values` holds `values.len()` u32s.
            Some(unsafe { avx512::min_max_sum(values.as_ptr().cast(), values.len()) })
        }
    }
}

/// Set bits in `bytes` (mask popcounts, the bit aggregates' count), a word at a time, with the
/// POPCNT instruction where `kernels` allows.
#[inline]
pub(crate) fn count_ones(kernels: Kernels, bytes: &[u8]) -> u64 {
    match kernels {
        Kernels::Portable => portable::count_ones(bytes),
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after POPCNT was detected.
            unsafe { avx2::count_ones(bytes) }
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: POPCNT was detected.
            unsafe { avx512::count_ones(bytes) }
        }
    }
}

/// Fills `out` (a multiple of 4 bytes) with copies of the 4 bytes `element`: RLE runs into
/// 32-bit arrays. `false` when the caller must do it.
#[inline]
pub(crate) fn fill4(kernels: Kernels, element: [u8; 4], out: &mut [u8]) -> bool {
    match kernels {
        Kernels::Portable => {
            portable::fill_le(u32::from_le_bytes(element), out, out.len() / 4 * 4);
            true
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2 was detected.
            unsafe { avx2::fill4(element, out) };
            true
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F and BW were detected.
            unsafe { avx512::fill4(element, out) };
            true
        }
    }
}

/// A scan comparison on 32-bit values, with parameters already masked to the bit width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compare {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Range,
    NotRange,
}

impl Compare {
    /// The comparison as an inclusive range and whether to negate it: `x` passes when
    /// (`low` ≤ x ≤ `high`) ≠ `negate` (an empty range when `low` > `high`).
    pub(crate) fn as_range(self, low: u32, high: u32) -> (u32, u32, bool) {
        match self {
            Compare::Eq => (low, low, false),
            Compare::Ne => (low, low, true),
            Compare::Lt => (low, u32::MAX, true),
            Compare::Le => (0, low, false),
            Compare::Gt => (0, low, true),
            Compare::Ge => (low, u32::MAX, false),
            Compare::Range => (low, high, false),
            Compare::NotRange => (low, high, true),
        }
    }
}

/// Scans `count` elements of `width` bits packed at the start of `src` (which holds
/// ⌈count·width/8⌉ bytes) without unpacking them to memory: bit i of `bits` (LSB first) =
/// `compare(element i)`, with bits above `count` zero. `bits` holds ⌈count/8⌉ bytes. `false`
/// when the caller must do it.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn scan_packed(
    kernels: Kernels,
    width: u32,
    big_endian: bool,
    src: &[u8],
    count: usize,
    compare: Compare,
    low: u32,
    high: u32,
    bits: &mut [u8],
) -> bool {
    match kernels {
        Kernels::Portable => {
            let Some(width) = BitWidth::new(width) else {
                return false;
            };
            portable::scan_packed(width, big_endian, src, count, compare, low, high, bits);
            true
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            let Some(width) = BitWidth::new(width) else {
                return false;
            };
            // SAFETY: `Avx2` is chosen only after AVX2 and BMI2 were detected.
            unsafe { avx2::scan_packed(width, big_endian, src, count, compare, low, high, bits) };
            true
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: `Avx512Vbmi` is chosen only after its features were detected.
            unsafe { avx512::scan_packed(width, big_endian, src, count, compare, low, high, bits) };
            true
        }
    }
}

/// Select's inner loop: appends `values[j]` for every set bit j of the mask words (bit j of
/// `words[j / 64]`, none at or above `values.len()`) to `out`, which has room for
/// `values.len()` rounded up to 16 values (the kernel stores whole vectors), and returns how
/// many. `None` when the caller must do it.
#[inline]
pub(crate) fn compress(
    kernels: Kernels,
    values: &[u32],
    words: &[u64],
    out: &mut [u32],
) -> Option<usize> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2, BMI2 and POPCNT were detected.
            Some(unsafe { avx2::compress(values, words, out) })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F and POPCNT were detected; the function checks the lengths it
            // relies on.
            Some(unsafe { avx512::compress(values, words, out) })
        }
    }
}

/// Select's unpacking and compression in one pass for `u32` lanes: appends element j of the
/// `count` packed at `width` bits from the start of `src` (MSB first when `big_endian`) to
/// `out` for every set bit j of the mask words (bit j of `words[j / 64]`), and returns how
/// many; the elements are never stored unselected. `out` has room for `count` rounded up to
/// 16. `None` when the caller must do it.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn unpack_compress(
    kernels: Kernels,
    width: u32,
    big_endian: bool,
    src: &[u8],
    count: usize,
    words: &[u64],
    out: &mut [u32],
) -> Option<usize> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => BitWidth::new(width).map(|width| {
            // SAFETY: `Avx2` is chosen only after AVX2, BMI2 and POPCNT were detected.
            unsafe { avx2::unpack_compress(width, big_endian, src, count, words, out) }
        }),
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => (width > 1).then(|| {
            // SAFETY: AVX-512 F, BW, VBMI and POPCNT were detected and `width` is 2..=32;
            // the function checks the lengths it relies on.
            unsafe { avx512::unpack_compress(width, big_endian, src, count, words, out) }
        }),
    }
}

/// Expand's inner loop over mask words: for word i, calls `spread(i, word, used)` to place the
/// next `word.count_ones()` values (from index `used` of the `available` ones) at the
/// positions 64·i + j of its set bits j. Stops when the values run out: after the last word
/// they fill, whose set bits past the values are cleared. Returns (values used, positions
/// passed: 64 per word, up to the last value's position + 1 in a word it ends inside).
#[inline(always)]
pub(crate) fn expand_words(
    words: &[u64],
    available: usize,
    mut spread: impl FnMut(usize, u64, usize),
) -> (usize, usize) {
    let mut used = 0usize;
    for (i, &word) in words.iter().enumerate() {
        let left = available - used;
        if left == 0 {
            return (used, 64 * i);
        }
        let ones = word.count_ones() as usize;
        if ones > left {
            // Keep the lowest `left` set bits; the last value lands at the highest of them.
            let mut rest = word;
            for _ in 0..left {
                rest &= rest - 1;
            }
            let word = word & !rest;
            spread(i, word, used);
            return (available, 64 * i + 64 - word.leading_zeros() as usize);
        }
        spread(i, word, used);
        used += ones;
    }
    (used, 64 * words.len())
}

/// [`expand_words`] with the values in `values` and the output in `out` (64 positions per
/// word, zeros at clear bits). `None` when the caller must do it.
#[inline]
pub(crate) fn expand(
    kernels: Kernels,
    values: &[u32],
    words: &[u64],
    out: &mut [u32],
) -> Option<(usize, usize)> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2, BMI2 and POPCNT were detected.
            Some(unsafe { avx2::expand(values, words, out) })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F and POPCNT were detected; the function checks the lengths it
            // relies on.
            Some(unsafe { avx512::expand(values, words, out) })
        }
    }
}

/// Unpacks `out.len()` elements of `width` (1..=8) bits into one byte each: select and
/// expand carry narrow values in byte lanes. `src` holds ⌈len·width/8⌉ bytes. `false` when the
/// caller must do it.
#[inline]
pub(crate) fn unpack_bytes(
    kernels: Kernels,
    width: u32,
    big_endian: bool,
    src: &[u8],
    out: &mut [u8],
) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            let Some(width) = BitWidth::new(width).filter(|w| w.get() <= 8) else {
                return false;
            };
            // SAFETY: `Avx2` is chosen only after AVX2 and BMI2 were detected.
            unsafe { avx2::unpack_narrow::<u8>(width, big_endian, src, out) };
            true
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F/BW/VBMI and POPCNT were detected; the function checks the
            // lengths it relies on.
            unsafe { avx512::unpack_bytes(width, big_endian, src, out) };
            true
        }
    }
}

/// [`compress`] on byte lanes: `out` has room for `values.len()` rounded up to 64.
#[inline]
pub(crate) fn compress_bytes(
    kernels: Kernels,
    values: &[u8],
    words: &[u64],
    out: &mut [u8],
) -> Option<usize> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2, BMI2 and POPCNT were detected.
            Some(unsafe { avx2::compress_narrow(values, words, out) })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F/BW/VBMI2 and POPCNT were detected; the function checks the
            // lengths it relies on.
            Some(unsafe { avx512::compress_bytes(values, words, out) })
        }
    }
}

/// [`expand`] on byte lanes.
#[inline]
pub(crate) fn expand_bytes(
    kernels: Kernels,
    values: &[u8],
    words: &[u64],
    out: &mut [u8],
) -> Option<(usize, usize)> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2, BMI2 and POPCNT were detected.
            Some(unsafe { avx2::expand_narrow(values, words, out) })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F/BW/VBMI2 and POPCNT were detected; the function checks the
            // lengths it relies on.
            Some(unsafe { avx512::expand_bytes(values, words, out) })
        }
    }
}

/// [`pack_le`] from byte lanes, for widths 1..=7: `values` (a multiple of 8 of them), each
/// masked by `mask`, into `out` (`values.len() / 8 · width` bytes). `false` when the caller
/// must do it.
#[inline]
pub(crate) fn pack_bytes_le(
    kernels: Kernels,
    width: u32,
    mask: u8,
    values: &[u8],
    out: &mut [u8],
) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            if !(1..=7).contains(&width) {
                return false;
            }
            // SAFETY: AVX-512 F/BW/VBMI were detected; the function checks the lengths it
            // relies on.
            unsafe { avx512::pack_bytes_le(width, mask, values, out) };
            true
        }
    }
}

/// [`unpack_bytes`] for widths 9..=16, one `u16` each.
#[inline]
pub(crate) fn unpack_halves(
    kernels: Kernels,
    width: u32,
    big_endian: bool,
    src: &[u8],
    out: &mut [u16],
) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            let Some(width) = BitWidth::new(width).filter(|w| w.get() <= 16) else {
                return false;
            };
            // SAFETY: `Avx2` is chosen only after AVX2 and BMI2 were detected.
            unsafe { avx2::unpack_narrow::<u16>(width, big_endian, src, out) };
            true
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F/BW/VBMI and POPCNT were detected; the function checks the
            // lengths it relies on.
            unsafe { avx512::unpack_halves(width, big_endian, src, out) };
            true
        }
    }
}

/// [`compress`] on 16-bit lanes: `out` has room for `values.len()` rounded up to 32.
#[inline]
pub(crate) fn compress_halves(
    kernels: Kernels,
    values: &[u16],
    words: &[u64],
    out: &mut [u16],
) -> Option<usize> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2, BMI2 and POPCNT were detected.
            Some(unsafe { avx2::compress_narrow(values, words, out) })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F/BW/VBMI2 and POPCNT were detected; the function checks the
            // lengths it relies on.
            Some(unsafe { avx512::compress_halves(values, words, out) })
        }
    }
}

/// [`expand`] on 16-bit lanes.
#[inline]
pub(crate) fn expand_halves(
    kernels: Kernels,
    values: &[u16],
    words: &[u64],
    out: &mut [u16],
) -> Option<(usize, usize)> {
    match kernels {
        Kernels::Portable => None,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => {
            // SAFETY: `Avx2` is chosen only after AVX2, BMI2 and POPCNT were detected.
            Some(unsafe { avx2::expand_narrow(values, words, out) })
        }
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: AVX-512 F/BW/VBMI2 and POPCNT were detected; the function checks the
            // lengths it relies on.
            Some(unsafe { avx512::expand_halves(values, words, out) })
        }
    }
}

/// [`pack_le`] from 16-bit lanes, for widths 9..=15. `false` when the caller must do it.
#[inline]
pub(crate) fn pack_halves_le(
    kernels: Kernels,
    width: u32,
    mask: u16,
    values: &[u16],
    out: &mut [u8],
) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx2 => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            if !(9..=15).contains(&width) {
                return false;
            }
            // SAFETY: AVX-512 F/BW/VBMI were detected; the function checks the lengths it
            // relies on.
            unsafe { avx512::pack_halves_le(width, mask, values, out) };
            true
        }
    }
}

/// Decodes `out.len()` elements of `width` bits, LSB-first (`be == false`) or MSB-first, from
/// the start of `src`, with the SIMD kernel when this CPU has one. `src` must hold at least
/// ⌈len·width/8⌉ bytes.
#[inline]
pub(crate) fn unpack(width: BitWidth, be: bool, src: &[u8], out: &mut [u32]) {
    if !unpack_with(kernels(), width.get(), be, src, out) {
        portable::unpack(width, be, src, out);
    }
}

/// Packs whole groups of 8 values (`values.len()` a multiple of 8) at `width` bits into
/// `out` (`values.len() / 8 * width` bytes), LSB-first or MSB-first, each value masked by
/// `mask`: the nominal output of extract, select and expand.
pub(crate) fn pack(width: BitWidth, be: bool, mask: u32, values: &[u32], out: &mut [u8]) {
    if be || !pack_le(kernels(), width.get(), mask, values, out) {
        portable::pack(width, be, mask, values, out);
    }
}
