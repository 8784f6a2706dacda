//! BYTE_STREAM_SPLIT's transposes: joining the K streams of a page (stream j holds byte j of
//! every value) into values of K contiguous bytes, and splitting values back into streams.
//! The codec (`parquet::byte_stream_split`) checks the page and calls [`join`] and [`split`].
//!
//! 2, 4, 8 and 16 bytes (FLOAT, INT32, DOUBLE, INT64 and FIXED_LEN_BYTE_ARRAY of those
//! lengths: FLOAT16, UUID, DECIMAL(≤38)) run vector kernels: on x86-64 the SSE2 unpack
//! network of 16 values a step (`sse2`, x86-64's baseline, so the portable tier runs it too),
//! and on the AVX2 and AVX-512 tiers, for joins, the same network on 256-bit vectors, 32
//! values a step (`avx2::encodings::byte_stream_split`): it reads half a cache line of each
//! stream per step where SSE2 reads a quarter, which matters when the streams are a multiple
//! of 4 KiB apart and share cache sets (a DOUBLE page of 2^20 values: 0.6× → 1.0× the plain
//! read-and-write loop on a Zen 4). Other lengths, other targets and the tails run the
//! const-generic transposes below over blocks of 32 values, or a plain loop.

#[cfg(target_arch = "x86_64")]
use crate::kernels::{avx2, sse2};

/// Values per transposed block of the portable kernels.
const BLOCK: usize = 32;

/// Joins values `start..start + out.len() / K` of the `K` streams (each `n` bytes) of `data`
/// into `out`, each value's bytes contiguous.
pub(in crate::kernels) fn join_const<const K: usize>(
    data: &[u8],
    n: usize,
    start: usize,
    out: &mut [u8],
) {
    let count = out.len() / K;
    let streams: [&[u8]; K] = std::array::from_fn(|j| &data[j * n + start..j * n + start + count]);
    let mut blocks = out.chunks_exact_mut(K * BLOCK);
    let mut i = 0;
    for block in &mut blocks {
        let mut values = [[0u8; K]; BLOCK];
        for (j, stream) in streams.iter().enumerate() {
            let src: &[u8; BLOCK] = stream[i..i + BLOCK].try_into().unwrap();
            for k in 0..BLOCK {
                values[k][j] = src[k];
            }
        }
        for (dst, value) in block.chunks_exact_mut(K).zip(values) {
            dst.copy_from_slice(&value);
        }
        i += BLOCK;
    }
    for (k, dst) in blocks.into_remainder().chunks_exact_mut(K).enumerate() {
        for (j, byte) in dst.iter_mut().enumerate() {
            *byte = streams[j][i + k];
        }
    }
}

/// [`join_const`] for 4 bytes, written as 32-bit words assembled from the four streams'
/// bytes, a form LLVM vectorises (byte interleaving it leaves scalar): the kernel of targets
/// without SSE2.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(in crate::kernels) fn join4_words(data: &[u8], n: usize, start: usize, out: &mut [u8]) {
    let count = out.len() / 4;
    let [s0, s1, s2, s3]: [&[u8]; 4] =
        std::array::from_fn(|j| &data[j * n + start..j * n + start + count]);
    let mut blocks = out.chunks_exact_mut(4 * BLOCK);
    let mut i = 0;
    for block in &mut blocks {
        let a: &[u8; BLOCK] = s0[i..i + BLOCK].try_into().unwrap();
        let b: &[u8; BLOCK] = s1[i..i + BLOCK].try_into().unwrap();
        let c: &[u8; BLOCK] = s2[i..i + BLOCK].try_into().unwrap();
        let d: &[u8; BLOCK] = s3[i..i + BLOCK].try_into().unwrap();
        let mut words = [0u32; BLOCK];
        for k in 0..BLOCK {
            words[k] = u32::from_le_bytes([a[k], b[k], c[k], d[k]]);
        }
        for (dst, word) in block.chunks_exact_mut(4).zip(words) {
            dst.copy_from_slice(&word.to_le_bytes());
        }
        i += BLOCK;
    }
    let rest = blocks.into_remainder();
    join_const::<4>(data, n, start + i, rest);
}

/// [`join_const`] for 2, 4, 8 and 16 bytes: the tier's vector kernel for whole blocks, the
/// rest portable.
fn join_vector<const K: usize>(data: &[u8], n: usize, start: usize, out: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        let mut done = 0;
        if super::avx2_kernels() {
            // SAFETY: the AVX2 and AVX-512 tiers are chosen only on a CPU with AVX2.
            done = unsafe { avx2::encodings::byte_stream_split::join::<K>(data, n, start, out) };
        }
        // SAFETY: SSE2 is part of the x86-64 baseline.
        done += unsafe {
            sse2::byte_stream_split::join::<K>(data, n, start + done, &mut out[K * done..])
        };
        join_const::<K>(data, n, start + done, &mut out[K * done..]);
    }
    #[cfg(not(target_arch = "x86_64"))]
    if K == 4 {
        join4_words(data, n, start, out);
    } else {
        join_const::<K>(data, n, start, out);
    }
}

/// [`join_const`] for a length known only at run time: one stream after the other.
fn join_dyn(data: &[u8], n: usize, k: usize, start: usize, out: &mut [u8]) {
    let count = out.len() / k;
    if count == 0 {
        return;
    }
    for j in 0..k {
        let stream = &data[j * n + start..j * n + start + count];
        for (dst, &byte) in out[j..].iter_mut().step_by(k).zip(stream) {
            *dst = byte;
        }
    }
}

/// Joins `out.len() / k` values (`k` ≥ 1) of the `k` streams (each `n` bytes) of `data`, from
/// value `start` on, each value's `k` bytes contiguous in `out`.
pub(crate) fn join(data: &[u8], n: usize, k: usize, start: usize, out: &mut [u8]) {
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match k {
                2 => join_vector::<2>(data, n, start, out),
                4 => join_vector::<4>(data, n, start, out),
                8 => join_vector::<8>(data, n, start, out),
                16 => join_vector::<16>(data, n, start, out),
                $($k => join_const::<$k>(data, n, start, out),)*
                _ => join_dyn(data, n, k, start, out),
            }
        };
    }
    dispatch!(1 3 5 6 7 9 10 11 12 13 14 15)
}

/// Scatters the contiguous `K`-byte values of `values` (values `start..` of the page) into
/// the `K` streams of `dst` (each `n` bytes).
pub(in crate::kernels) fn split_const<const K: usize>(
    values: &[u8],
    n: usize,
    start: usize,
    dst: &mut [u8],
) {
    let count = values.len() / K;
    let mut parts = dst.chunks_exact_mut(n);
    let mut streams: [&mut [u8]; K] =
        std::array::from_fn(|_| &mut parts.next().unwrap()[start..start + count]);
    let mut blocks = values.chunks_exact(K * BLOCK);
    let mut i = 0;
    for block in &mut blocks {
        let mut block_values = [[0u8; K]; BLOCK];
        for (value, src) in block_values.iter_mut().zip(block.chunks_exact(K)) {
            value.copy_from_slice(src);
        }
        for (j, stream) in streams.iter_mut().enumerate() {
            let dst: &mut [u8; BLOCK] = (&mut stream[i..i + BLOCK]).try_into().unwrap();
            for k in 0..BLOCK {
                dst[k] = block_values[k][j];
            }
        }
        i += BLOCK;
    }
    for (k, value) in blocks.remainder().chunks_exact(K).enumerate() {
        for (stream, &byte) in streams.iter_mut().zip(value) {
            stream[i + k] = byte;
        }
    }
}

/// [`split_const`] for 2, 4, 8 and 16 bytes: SSE2 blocks of 16 values on x86-64 (encoding is
/// not on the decoders' hot path, so no wider tier), the rest portable.
fn split_vector<const K: usize>(values: &[u8], n: usize, dst: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        let done = unsafe { sse2::byte_stream_split::split::<K>(values, n, dst) };
        split_const::<K>(&values[K * done..], n, done, dst);
    }
    #[cfg(not(target_arch = "x86_64"))]
    split_const::<K>(values, n, 0, dst);
}

/// Scatters the contiguous `k`-byte values (`k` ≥ 1) of a page into its `k` streams in `dst`
/// (`values.len()` bytes).
pub(crate) fn split(values: &[u8], k: usize, dst: &mut [u8]) {
    let n = values.len() / k;
    if n == 0 {
        return;
    }
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match k {
                2 => split_vector::<2>(values, n, dst),
                4 => split_vector::<4>(values, n, dst),
                8 => split_vector::<8>(values, n, dst),
                16 => split_vector::<16>(values, n, dst),
                $($k => split_const::<$k>(values, n, 0, dst),)*
                _ => {
                    for (j, stream) in dst.chunks_exact_mut(n).enumerate() {
                        for (byte, &src) in stream.iter_mut().zip(values[j..].iter().step_by(k)) {
                            *byte = src;
                        }
                    }
                }
            }
        };
    }
    dispatch!(1 3 5 6 7 9 10 11 12 13 14 15)
}

#[cfg(test)]
mod tests {
    //! The dispatched transposes (whichever tier runs) and the vector kernels directly (SSE2
    //! on x86-64, AVX2 where the CPU has it, the word kernel of 4 bytes) against the
    //! const-generic ones, from every start, for every length tail.

    use super::*;

    type Join = fn(&[u8], usize, usize, &mut [u8]);

    /// The reference join: value `start + i`'s byte `j` is byte `start + i` of stream `j`.
    fn join_reference(data: &[u8], n: usize, k: usize, start: usize, out: &mut [u8]) {
        for (i, value) in out.chunks_exact_mut(k).enumerate() {
            for (j, byte) in value.iter_mut().enumerate() {
                *byte = data[j * n + start + i];
            }
        }
    }

    /// Every join of `K` bytes: dispatched, const-generic, and the vector kernels by tier
    /// (each followed by the const-generic one for the values it leaves).
    fn joins<const K: usize>() -> Vec<(&'static str, Join)> {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut all: Vec<(&str, Join)> = vec![
            ("dispatched", |d, n, s, o| join(d, n, K, s, o)),
            ("const", join_const::<K>),
        ];
        if K == 4 {
            all.push(("words", join4_words));
        }
        #[cfg(target_arch = "x86_64")]
        {
            all.push(("sse2", |d, n, s, o| {
                // SAFETY: SSE2 is part of the x86-64 baseline.
                let done = unsafe { sse2::byte_stream_split::join::<K>(d, n, s, o) };
                join_const::<K>(d, n, s + done, &mut o[K * done..]);
            }));
            if std::arch::is_x86_feature_detected!("avx2") {
                all.push(("avx2", |d, n, s, o| {
                    // SAFETY: pushed only when the CPU has AVX2.
                    let done = unsafe { avx2::encodings::byte_stream_split::join::<K>(d, n, s, o) };
                    join_const::<K>(d, n, s + done, &mut o[K * done..]);
                }));
            }
        }
        all
    }

    fn check_joins<const K: usize>() {
        for n in (0..=70).chain([95, 96, 97, 130, 1000]) {
            let data: Vec<u8> = (0..n * K)
                .map(|i| (i as u8).wrapping_mul(151) ^ 0x5A)
                .collect();
            let starts = [0, 1, 15, 16, 31, 33, n / 2, n.saturating_sub(1), n];
            for start in starts.into_iter().filter(|&s| s <= n) {
                for count in [n - start, (n - start) / 2, (n - start).min(33)] {
                    let mut want = vec![0u8; count * K];
                    join_reference(&data, n, K, start, &mut want);
                    for (name, f) in joins::<K>() {
                        let mut got = vec![7u8; count * K + 3];
                        f(&data, n, start, &mut got[..count * K]);
                        assert_eq!(
                            &got[..count * K],
                            &want[..],
                            "{name} K {K} n {n} start {start}"
                        );
                        assert_eq!(&got[count * K..], &[7; 3], "{name}: wrote past the values");
                    }
                }
            }
        }
    }

    #[test]
    fn joins_match_the_reference() {
        check_joins::<2>();
        check_joins::<4>();
        check_joins::<8>();
        check_joins::<16>();
        // Lengths without a vector kernel, through the dispatch (const-generic and run-time).
        for k in [1, 3, 12, 17] {
            let n = 77;
            let data: Vec<u8> = (0..n * k).map(|i| (i * 31 % 256) as u8).collect();
            let (mut got, mut want) = (vec![0u8; 70 * k], vec![0u8; 70 * k]);
            join(&data, n, k, 5, &mut got);
            join_reference(&data, n, k, 5, &mut want);
            assert_eq!(got, want, "k {k}");
        }
    }

    /// Split is join's inverse: every length and tail, every value size, vector or not.
    #[test]
    fn split_inverts_join() {
        for k in [1, 2, 3, 4, 8, 12, 16, 17] {
            for n in (0..=40).chain([63, 64, 65, 200]) {
                let values: Vec<u8> = (0..n * k).map(|i| (i as u8).wrapping_mul(73) ^ 3).collect();
                let mut streams = vec![0u8; n * k];
                split(&values, k, &mut streams);
                for (j, stream) in streams.chunks_exact(n.max(1)).enumerate().take(k) {
                    for (i, &byte) in stream.iter().enumerate().take(n) {
                        assert_eq!(byte, values[i * k + j], "k {k} n {n} stream {j} value {i}");
                    }
                }
                let mut back = vec![0u8; n * k];
                join(&streams, n, k, 0, &mut back);
                assert_eq!(back, values, "k {k} n {n}");
            }
        }
    }
}
