//! The AVX2 kernels of Parquet's encodings, dispatched by `kernels::encodings` (which holds
//! the portable kernels these are tested against).
//!
//! - Prefix sums (DELTA_BINARY_PACKED): a vector of 8 (INT32) or 4 (INT64) deltas is scanned
//!   in registers (shift-and-add inside each 128-bit half, then the low half's total added
//!   to the high half), off the loop's dependency chain; the chain is one vector add per
//!   vector (the running sum plus the vector's total, broadcast), not one add per value.
//! - Gathers (dictionaries): `vpgatherdd` / `vpgatherdq` of 8 / 4 entries per instruction,
//!   each index clamped to the dictionary's last entry first, so no index reads outside it.

use std::arch::x86_64::*;

/// INT32 prefix sums of `min + raw[i]` onto `acc` into `out` (`min(raw.len(), out.len())`
/// values), wrapping; returns the last sum.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn prefix_sum_i32(
    raw: &[u32],
    min: u32,
    acc: u32,
    out: &mut [i32],
) -> u32 {
    let n = raw.len().min(out.len());
    let min_v = _mm256_set1_epi32(min as i32);
    let last_lane = _mm256_set1_epi32(7);
    let mut acc_v = _mm256_set1_epi32(acc as i32);
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: values i..i + 8 are inside `raw` and `out` (i + 8 ≤ n); unaligned loads and
        // stores are allowed.
        unsafe {
            let mut x = _mm256_loadu_si256(raw.as_ptr().add(i).cast());
            x = _mm256_add_epi32(x, min_v);
            x = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
            x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
            // Lane 3 (the low half's total) broadcast in each half, then moved to the high
            // half with the low half zeroed.
            let low_total = _mm256_shuffle_epi32::<0xFF>(x);
            x = _mm256_add_epi32(x, _mm256_permute2x128_si256::<0x08>(low_total, low_total));
            let total = _mm256_permutevar8x32_epi32(x, last_lane);
            _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), _mm256_add_epi32(x, acc_v));
            acc_v = _mm256_add_epi32(acc_v, total);
        }
        i += 8;
    }
    let mut acc = _mm256_cvtsi256_si32(acc_v) as u32;
    for (r, o) in raw[i..n].iter().zip(&mut out[i..n]) {
        acc = acc.wrapping_add(r.wrapping_add(min));
        *o = acc as i32;
    }
    acc
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

/// INT64 prefix sums of `min + raw[i]` (zero-extended) onto `acc` into `out`; returns the
/// last sum.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn prefix_sum_u32_i64(
    raw: &[u32],
    min: u64,
    acc: u64,
    out: &mut [i64],
) -> u64 {
    let n = raw.len().min(out.len());
    let min_v = _mm256_set1_epi64x(min as i64);
    let mut acc_v = _mm256_set1_epi64x(acc as i64);
    let mut i = 0;
    while i + 4 <= n {
        // SAFETY: values i..i + 4 are inside `raw` and `out`; unaligned access is allowed.
        unsafe {
            let deltas = _mm256_cvtepu32_epi64(_mm_loadu_si128(raw.as_ptr().add(i).cast()));
            let (sums, next) = scan4_i64(_mm256_add_epi64(deltas, min_v), acc_v);
            _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), sums);
            acc_v = next;
        }
        i += 4;
    }
    let mut acc = _mm256_extract_epi64::<0>(acc_v) as u64;
    for (r, o) in raw[i..n].iter().zip(&mut out[i..n]) {
        acc = acc.wrapping_add(u64::from(*r).wrapping_add(min));
        *o = acc as i64;
    }
    acc
}

/// [`prefix_sum_u32_i64`] with 64-bit deltas.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn prefix_sum_u64_i64(
    raw: &[u64],
    min: u64,
    acc: u64,
    out: &mut [i64],
) -> u64 {
    let n = raw.len().min(out.len());
    let min_v = _mm256_set1_epi64x(min as i64);
    let mut acc_v = _mm256_set1_epi64x(acc as i64);
    let mut i = 0;
    while i + 4 <= n {
        // SAFETY: values i..i + 4 are inside `raw` and `out`; unaligned access is allowed.
        unsafe {
            let deltas = _mm256_loadu_si256(raw.as_ptr().add(i).cast());
            let (sums, next) = scan4_i64(_mm256_add_epi64(deltas, min_v), acc_v);
            _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), sums);
            acc_v = next;
        }
        i += 4;
    }
    let mut acc = _mm256_extract_epi64::<0>(acc_v) as u64;
    for (r, o) in raw[i..n].iter().zip(&mut out[i..n]) {
        acc = acc.wrapping_add(r.wrapping_add(min));
        *o = acc as i64;
    }
    acc
}

/// The dictionary's last index as a vector, or `None` for a dictionary the gathers cannot
/// address (empty, or past `i32::MAX` entries: `vpgather` indices are signed 32-bit).
#[inline]
#[target_feature(enable = "avx2")]
fn last_index(len: usize) -> Option<__m256i> {
    let last = i32::try_from(len.checked_sub(1)?).ok()?;
    Some(_mm256_set1_epi32(last))
}

/// `out[i] = dictionary[min(indices[i], len − 1)]` for `min(indices.len(), out.len())`
/// values, 8 per `vpgatherdd`.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn gather_u32(indices: &[u32], dictionary: &[u32], out: &mut [u32]) {
    let n = indices.len().min(out.len());
    let Some(last) = last_index(dictionary.len()) else {
        return super::super::encodings::portable::gather(&indices[..n], dictionary, out);
    };
    let base = dictionary.as_ptr().cast::<i32>();
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: values i..i + 8 are inside `indices` and `out`; every index is clamped to
        // `len − 1` (unsigned), so each gathered 4-byte entry is inside `dictionary`.
        unsafe {
            let idx = _mm256_loadu_si256(indices.as_ptr().add(i).cast());
            let idx = _mm256_min_epu32(idx, last);
            let values = _mm256_i32gather_epi32::<4>(base, idx);
            _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), values);
        }
        i += 8;
    }
    super::super::encodings::portable::gather(&indices[i..n], dictionary, &mut out[i..n]);
}

/// [`gather_u32`] for 8-byte entries, 4 per `vpgatherdq`.
///
/// # Safety
/// The CPU supports AVX2.
#[target_feature(enable = "avx2")]
pub(in crate::kernels) unsafe fn gather_u64(indices: &[u32], dictionary: &[u64], out: &mut [u64]) {
    let n = indices.len().min(out.len());
    let Some(last) = last_index(dictionary.len()) else {
        return super::super::encodings::portable::gather(&indices[..n], dictionary, out);
    };
    let last = _mm256_castsi256_si128(last);
    let base = dictionary.as_ptr().cast::<i64>();
    let mut i = 0;
    while i + 4 <= n {
        // SAFETY: values i..i + 4 are inside `indices` and `out`; every index is clamped to
        // `len − 1` (unsigned), so each gathered 8-byte entry is inside `dictionary`.
        unsafe {
            let idx = _mm_loadu_si128(indices.as_ptr().add(i).cast());
            let idx = _mm_min_epu32(idx, last);
            let values = _mm256_i32gather_epi64::<8>(base, idx);
            _mm256_storeu_si256(out.as_mut_ptr().add(i).cast(), values);
        }
        i += 4;
    }
    super::super::encodings::portable::gather(&indices[i..n], dictionary, &mut out[i..n]);
}
