//! Runtime-detected SIMD kernels, all in this module. Every other target, and x86-64 CPUs
//! without the features, use the portable kernels of `unpack.rs`; so does every CPU when the
//! environment variable `QPL_FALLBACK_PORTABLE=1` is set (the tests also call both directly).

use std::sync::OnceLock;

/// The kernel family chosen for this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernels {
    /// Plain Rust, every target.
    Portable,
    /// AVX-512 F/BW/VBMI (Ice Lake, Sapphire Rapids, Zen 4 and later).
    #[cfg(target_arch = "x86_64")]
    Avx512Vbmi,
}

/// Detected once; `QPL_FALLBACK_PORTABLE=1` forces the portable kernels.
pub(crate) fn kernels() -> Kernels {
    static CHOSEN: OnceLock<Kernels> = OnceLock::new();
    *CHOSEN.get_or_init(|| {
        if std::env::var_os("QPL_FALLBACK_PORTABLE").is_some_and(|v| v == "1") {
            return Kernels::Portable;
        }
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi")
        {
            return Kernels::Avx512Vbmi;
        }
        Kernels::Portable
    })
}

/// Unpacks `out.len()` elements of `width` (1..=32) bits with AVX-512 when `kernels` allows;
/// `false` when the caller must use the portable kernel. `src` holds at least
/// ⌈len·width/8⌉ bytes; nothing outside `src` and `out` is touched.
#[inline]
pub(crate) fn unpack(
    kernels: Kernels,
    width: u32,
    big_endian: bool,
    src: &[u8],
    out: &mut [u32],
) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: `Avx512Vbmi` is chosen only after the three features were detected.
            unsafe { avx512::unpack(width, big_endian, src, out) };
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

/// Writes bit i of `bits` (LSB first) = `compare(values[i])`, for every value, with AVX-512
/// when `kernels` allows; `false` when the caller must do it. `bits` holds ⌈len/8⌉ bytes.
#[inline]
pub(crate) fn pack_compare(
    kernels: Kernels,
    compare: Compare,
    low: u32,
    high: u32,
    values: &[u32],
    bits: &mut [u8],
) -> bool {
    match kernels {
        Kernels::Portable => false,
        #[cfg(target_arch = "x86_64")]
        Kernels::Avx512Vbmi => {
            // SAFETY: `Avx512Vbmi` is chosen only after AVX-512 F/BW were detected.
            unsafe { avx512::pack_compare(compare, low, high, values, bits) };
            true
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::*;

    /// Byte-permutation and shift vectors for one width and bit order: lane i of a vector
    /// receives the bytes holding element i, then a per-lane shift aligns its bits.
    struct Plan {
        bytes: [u8; 64],
        shifts: [u64; 8],
        shifts32: [u32; 16],
        /// Elements per vector: 16 (32-bit lanes) for widths up to 25, 8 (64-bit lanes) above.
        lanes: usize,
    }

    fn plan(width: u32, big_endian: bool) -> Plan {
        let w = width as usize;
        let mut p = Plan {
            bytes: [0; 64],
            shifts: [0; 8],
            shifts32: [0; 16],
            lanes: if width <= 25 { 16 } else { 8 },
        };
        let lane_bytes = 64 / p.lanes;
        for i in 0..p.lanes {
            let bit = i * w;
            let (offset, shift) = (bit / 8, bit % 8);
            for j in 0..lane_bytes {
                let from = if big_endian {
                    offset + lane_bytes - 1 - j
                } else {
                    offset + j
                };
                p.bytes[i * lane_bytes + j] = from.min(63) as u8;
            }
            // Little-endian lanes hold the element at `shift`; big-endian lanes hold it
            // `shift` bits below their top.
            let right = if big_endian {
                lane_bytes * 8 - shift - w
            } else {
                shift
            };
            if p.lanes == 16 {
                p.shifts32[i] = right as u32;
            } else {
                p.shifts[i] = right as u64;
            }
        }
        p
    }

    /// The plans of every width and order, built once (short Parquet runs call the kernel
    /// for as few as 8 values).
    fn cached_plan(width: u32, big_endian: bool) -> &'static Plan {
        static PLANS: std::sync::OnceLock<Vec<Plan>> = std::sync::OnceLock::new();
        let plans = PLANS.get_or_init(|| (0..64).map(|i| plan(i / 2 + 1, i % 2 == 1)).collect());
        &plans[((width - 1) * 2 + u32::from(big_endian)) as usize]
    }

    /// # Safety
    /// The CPU supports AVX-512 F, BW and VBMI, `width` is 1..=32, and `src` holds
    /// ⌈out.len()·width/8⌉ bytes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn unpack(width: u32, big_endian: bool, src: &[u8], out: &mut [u32]) {
        let p = cached_plan(width, big_endian);
        let group_bytes = p.lanes * width as usize / 8;
        let value_mask = if width == 32 {
            u32::MAX
        } else {
            (1u32 << width) - 1
        };
        // SAFETY: reads 64 bytes of a 64-byte array.
        let index = unsafe { _mm512_loadu_si512(p.bytes.as_ptr().cast()) };
        // SAFETY: reads 64 bytes of 64-byte arrays.
        let (shifts32, shifts64) = unsafe {
            (
                _mm512_loadu_si512(p.shifts32.as_ptr().cast()),
                _mm512_loadu_si512(p.shifts.as_ptr().cast()),
            )
        };
        let mut done = 0usize;
        let mut at = 0usize;
        while done < out.len() {
            let available = src.len().saturating_sub(at).min(64);
            let load_mask: u64 = if available == 64 {
                u64::MAX
            } else {
                (1u64 << available) - 1
            };
            let count = (out.len() - done).min(p.lanes);
            // SAFETY: only the `available` bytes from `at` are read, all inside `src`
            // (masked-off bytes are not accessed: AVX-512 suppresses their faults).
            let bytes = unsafe {
                _mm512_maskz_loadu_epi8(load_mask, src.as_ptr().add(at.min(src.len())).cast())
            };
            let gathered = _mm512_permutexvar_epi8(index, bytes);
            if p.lanes == 16 {
                let values = _mm512_and_si512(
                    _mm512_srlv_epi32(gathered, shifts32),
                    _mm512_set1_epi32(value_mask as i32),
                );
                let store_mask: u16 = if count == 16 {
                    u16::MAX
                } else {
                    (1u16 << count) - 1
                };
                // SAFETY: writes `count` u32s from `done`, inside `out`.
                unsafe {
                    _mm512_mask_storeu_epi32(out.as_mut_ptr().add(done).cast(), store_mask, values)
                };
            } else {
                let wide = _mm512_and_si512(
                    _mm512_srlv_epi64(gathered, shifts64),
                    _mm512_set1_epi64(i64::from(value_mask)),
                );
                let values = _mm512_cvtepi64_epi32(wide);
                let store_mask: u8 = if count == 8 {
                    u8::MAX
                } else {
                    (1u8 << count) - 1
                };
                // SAFETY: writes `count` u32s from `done`, inside `out`.
                unsafe {
                    _mm256_mask_storeu_epi32(out.as_mut_ptr().add(done).cast(), store_mask, values)
                };
            }
            done += count;
            at += group_bytes;
        }
    }

    /// # Safety
    /// The CPU supports AVX-512 F and BW; `bits` holds ⌈values.len()/8⌉ bytes.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn pack_compare(
        compare: super::Compare,
        low: u32,
        high: u32,
        values: &[u32],
        bits: &mut [u8],
    ) {
        use super::Compare::*;
        let l = _mm512_set1_epi32(low as i32);
        let h = _mm512_set1_epi32(high as i32);
        let mut done = 0usize;
        while done < values.len() {
            let count = (values.len() - done).min(16);
            let lanes: u16 = if count == 16 {
                u16::MAX
            } else {
                (1u16 << count) - 1
            };
            // SAFETY: reads `count` u32s from `done`, inside `values`.
            let x = unsafe { _mm512_maskz_loadu_epi32(lanes, values.as_ptr().add(done).cast()) };
            let hits: u16 = match compare {
                Eq => _mm512_cmpeq_epu32_mask(x, l),
                Ne => _mm512_cmpneq_epu32_mask(x, l),
                Lt => _mm512_cmplt_epu32_mask(x, l),
                Le => _mm512_cmple_epu32_mask(x, l),
                Gt => _mm512_cmpgt_epu32_mask(x, l),
                Ge => _mm512_cmpge_epu32_mask(x, l),
                Range => _mm512_cmpge_epu32_mask(x, l) & _mm512_cmple_epu32_mask(x, h),
                NotRange => _mm512_cmplt_epu32_mask(x, l) | _mm512_cmpgt_epu32_mask(x, h),
            } & lanes;
            let out = hits.to_le_bytes();
            let first = done / 8;
            // Fixed-size writes: a runtime-length copy here would be a memcpy call per 16.
            bits[first] = out[0];
            if count > 8 {
                bits[first + 1] = out[1];
            }
            done += count;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unpack::{unpack_portable, BitWidth};

    #[test]
    fn simd_compare_matches_a_plain_comparison() {
        if kernels() == Kernels::Portable {
            return;
        }
        let values: Vec<u32> = (0..100u32)
            .map(|i| i.wrapping_mul(0x9E37_79B9) >> 26)
            .collect();
        let (l, h) = (20u32, 40u32);
        type Plain = fn(u32, u32, u32) -> bool;
        let cases: [(Compare, Plain); 8] = [
            (Compare::Eq, |x, l, _| x == l),
            (Compare::Ne, |x, l, _| x != l),
            (Compare::Lt, |x, l, _| x < l),
            (Compare::Le, |x, l, _| x <= l),
            (Compare::Gt, |x, l, _| x > l),
            (Compare::Ge, |x, l, _| x >= l),
            (Compare::Range, |x, l, h| l <= x && x <= h),
            (Compare::NotRange, |x, l, h| x < l || x > h),
        ];
        for (compare, plain) in cases {
            for count in [0usize, 1, 9, 16, 17, 100] {
                let mut bits = vec![0u8; count.div_ceil(8) + 1];
                bits[count.div_ceil(8)] = 0xA5;
                assert!(pack_compare(
                    kernels(),
                    compare,
                    l,
                    h,
                    &values[..count],
                    &mut bits[..count.div_ceil(8)]
                ));
                for (i, &x) in values[..count].iter().enumerate() {
                    assert_eq!(
                        (bits[i / 8] >> (i % 8)) & 1 == 1,
                        plain(x, l, h),
                        "{compare:?} {i}"
                    );
                }
                assert_eq!(bits[count.div_ceil(8)], 0xA5, "wrote past the bits");
            }
        }
    }

    #[test]
    fn simd_kernels_match_the_portable_kernel_for_every_width_and_order() {
        if kernels() == Kernels::Portable {
            return; // No SIMD kernel on this CPU (or forced off): nothing to compare.
        }
        let src: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(0x9E37_79B9) >> 11) as u8)
            .collect();
        for width in 1..=32u32 {
            for be in [false, true] {
                for count in [0usize, 1, 7, 8, 15, 16, 17, 63, 64, 65] {
                    let bytes = (count * width as usize).div_ceil(8);
                    let mut simd = vec![0xDEAD_BEEF; count + 1];
                    let mut portable = vec![0u32; count];
                    assert!(unpack(
                        kernels(),
                        width,
                        be,
                        &src[..bytes],
                        &mut simd[..count]
                    ));
                    unpack_portable(
                        BitWidth::new(width).unwrap(),
                        be,
                        &src[..bytes],
                        &mut portable,
                    );
                    assert_eq!(simd[..count], portable[..], "w{width} be{be} n{count}");
                    assert_eq!(simd[count], 0xDEAD_BEEF, "wrote past the output");
                }
            }
        }
    }
}
