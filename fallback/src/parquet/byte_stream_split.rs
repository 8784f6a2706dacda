//! BYTE_STREAM_SPLIT (9): the K bytes of each of the N values scattered into K streams of N
//! bytes (stream j holds every value's byte j), the streams back to back. FLOAT, DOUBLE,
//! INT32, INT64 ([`FixedWidth`], K = `T::SIZE`) and FIXED_LEN_BYTE_ARRAY of any length K.
//!
//! The page has no header: N is the page's length / K, so a length that is not a multiple of
//! K is [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt) and an N above the caller's
//! `max_values` is [`ErrorKind::TooMany`](super::ErrorKind::TooMany). An empty page holds 0
//! values (not an error). A FIXED_LEN_BYTE_ARRAY length of 0 is
//! [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) (N would be undefined).
//!
//! The kernels transpose blocks of values. 2, 4, 8 and 16 bytes (FLOAT, INT32, DOUBLE, INT64
//! and FIXED_LEN_BYTE_ARRAY of those lengths: FLOAT16, UUID, DECIMAL(≤38)) use SSE2 unpacks
//! on x86-64, 16 values a step, as Arrow C++ does; other widths (and other targets) a
//! const-generic byte transpose over blocks of 32 values (up to 16 bytes) or a plain loop. Primitive values are written in
//! place through a byte view of the caller's slice (see `util::as_bytes_mut`).

use super::util::{arrow_offset, as_bytes, as_bytes_mut, read_le_values};
use super::{ByteArrayDecoder, ByteArrays, FixedWidth, ParquetError, ValueDecoder};

const ENCODING: &str = "BYTE_STREAM_SPLIT";

/// Values per transposed block of the portable kernels.
const BLOCK: usize = 32;

/// Joins values `start..start + out.len() / K` of the `K` streams (each `n` bytes) of `data`
/// into `out`, each value's bytes contiguous.
fn join_bytes_const<const K: usize>(data: &[u8], n: usize, start: usize, out: &mut [u8]) {
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

/// [`join_bytes_const`] for 4 bytes, written as 32-bit words assembled from the four
/// streams' bytes, a form LLVM vectorises (byte interleaving it leaves scalar).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn join4_portable(data: &[u8], n: usize, start: usize, out: &mut [u8]) {
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
    join_bytes_const::<4>(data, n, start + i, rest);
}

/// [`join_bytes_const`] for 2, 4, 8 and 16 bytes: SSE2 blocks of 16 values, the rest
/// portable.
fn join_simd<const K: usize>(data: &[u8], n: usize, start: usize, out: &mut [u8]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline, enabled in this build (the cfg).
        let done = unsafe { sse2::join::<K>(data, n, start, out) };
        join_bytes_const::<K>(data, n, start + done, &mut out[K * done..]);
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    if K == 4 {
        join4_portable(data, n, start, out);
    } else {
        join_bytes_const::<K>(data, n, start, out);
    }
}

/// [`join_bytes_const`] for a length known only at run time: one stream after the other.
fn join_bytes_dyn(data: &[u8], n: usize, k: usize, start: usize, out: &mut [u8]) {
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

/// Joins `out.len() / k` values from value `start` on, each `k` bytes contiguous in `out`.
fn join_bytes(data: &[u8], n: usize, k: usize, start: usize, out: &mut [u8]) {
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match k {
                2 => join_simd::<2>(data, n, start, out),
                4 => join_simd::<4>(data, n, start, out),
                8 => join_simd::<8>(data, n, start, out),
                16 => join_simd::<16>(data, n, start, out),
                $($k => join_bytes_const::<$k>(data, n, start, out),)*
                _ => join_bytes_dyn(data, n, k, start, out),
            }
        };
    }
    dispatch!(1 3 5 6 7 9 10 11 12 13 14 15)
}

/// Scatters the contiguous `K`-byte values of `values` (values `start..` of the page) into
/// the `K` streams of `dst` (each `n` bytes).
fn split_bytes_const<const K: usize>(values: &[u8], n: usize, start: usize, dst: &mut [u8]) {
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

/// [`split_bytes_const`] for 2, 4, 8 and 16 bytes: SSE2 blocks of 16 values, the rest
/// portable.
fn split_simd<const K: usize>(values: &[u8], n: usize, dst: &mut [u8]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline, enabled in this build (the cfg).
        let done = unsafe { sse2::split::<K>(values, n, dst) };
        split_bytes_const::<K>(&values[K * done..], n, done, dst);
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    split_bytes_const::<K>(values, n, 0, dst);
}

/// Scatters the contiguous `k`-byte values of a page into its `k` streams in `dst`.
fn split_bytes(values: &[u8], k: usize, dst: &mut [u8]) {
    let n = values.len() / k;
    if n == 0 {
        return;
    }
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match k {
                2 => split_simd::<2>(values, n, dst),
                4 => split_simd::<4>(values, n, dst),
                8 => split_simd::<8>(values, n, dst),
                16 => split_simd::<16>(values, n, dst),
                $($k => split_bytes_const::<$k>(values, n, 0, dst),)*
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

#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse2 {
    //! Transposes of 16 values of K = 2, 4, 8 or 16 bytes with SSE2 unpacks (x86-64's
    //! baseline, so no run-time detection), the network Arrow C++'s
    //! `byte_stream_split_internal.h` uses. A block is K vectors of 16 bytes; byte `b` of
    //! vector `v` has the index `16v + b`. The perfect shuffle (output vectors `2v` and
    //! `2v + 1` = `unpacklo/hi_epi8` of vectors `v` and `v + K/2`) rotates every byte's index
    //! left by one bit. The streams' block (index `16j + i`: byte j of value i) becomes the
    //! values' block (index `Ki + j`) after log2(K) rotations, and back after 4.
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_storeu_si128, _mm_unpackhi_epi8, _mm_unpacklo_epi8,
    };

    #[inline]
    #[target_feature(enable = "sse2")]
    fn load(bytes: &[u8]) -> __m128i {
        let bytes: &[u8; 16] = bytes[..16].try_into().unwrap();
        // SAFETY: `bytes` is 16 readable bytes; unaligned loads are allowed.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "sse2")]
    fn store(bytes: &mut [u8], value: __m128i) {
        let bytes: &mut [u8; 16] = (&mut bytes[..16]).try_into().unwrap();
        // SAFETY: `bytes` is 16 writable bytes; unaligned stores are allowed.
        unsafe { _mm_storeu_si128(bytes.as_mut_ptr().cast(), value) }
    }

    /// One perfect shuffle of `K` vectors.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn perfect_shuffle<const K: usize>(x: [__m128i; K]) -> [__m128i; K] {
        std::array::from_fn(|o| {
            let (a, b) = (x[o / 2], x[o / 2 + K / 2]);
            if o % 2 == 0 {
                _mm_unpacklo_epi8(a, b)
            } else {
                _mm_unpackhi_epi8(a, b)
            }
        })
    }

    /// Joins whole blocks of 16 values from value `start` of the `K` streams (each `n`
    /// bytes) of `data` into `out`; returns the values joined (a multiple of 16).
    #[target_feature(enable = "sse2")]
    pub(super) fn join<const K: usize>(
        data: &[u8],
        n: usize,
        start: usize,
        out: &mut [u8],
    ) -> usize {
        let done = out.len() / (16 * K) * 16;
        let streams: [&[u8]; K] =
            std::array::from_fn(|j| &data[j * n + start..j * n + start + done]);
        for (i, block) in out[..done * K].chunks_exact_mut(16 * K).enumerate() {
            let x: [__m128i; K] = std::array::from_fn(|j| load(&streams[j][16 * i..]));
            // log2(K) shuffles, written out so that the vectors stay in registers.
            let x = match K {
                2 => perfect_shuffle(x),
                4 => perfect_shuffle(perfect_shuffle(x)),
                8 => perfect_shuffle(perfect_shuffle(perfect_shuffle(x))),
                _ => perfect_shuffle(perfect_shuffle(perfect_shuffle(perfect_shuffle(x)))),
            };
            for (v, vector) in x.into_iter().enumerate() {
                store(&mut block[16 * v..], vector);
            }
        }
        done
    }

    /// Scatters whole blocks of 16 values of `values` (from value 0) into the `K` streams of
    /// `dst` (each `n` bytes); returns the values done (a multiple of 16).
    #[target_feature(enable = "sse2")]
    pub(super) fn split<const K: usize>(values: &[u8], n: usize, dst: &mut [u8]) -> usize {
        let done = values.len() / (16 * K) * 16;
        let mut parts = dst.chunks_exact_mut(n);
        let mut streams: [&mut [u8]; K] = std::array::from_fn(|_| parts.next().unwrap());
        for (i, block) in values[..done * K].chunks_exact(16 * K).enumerate() {
            let x: [__m128i; K] = std::array::from_fn(|v| load(&block[16 * v..]));
            let x = perfect_shuffle(perfect_shuffle(perfect_shuffle(perfect_shuffle(x))));
            for (stream, vector) in streams.iter_mut().zip(x) {
                store(&mut stream[16 * i..], vector);
            }
        }
        done
    }
}

/// Joins values of any [`FixedWidth`] type: the byte kernels write the primitive types in
/// place; other types go through a block buffer and `from_le_slice`.
fn join<T: FixedWidth>(data: &[u8], n: usize, start: usize, out: &mut [T]) {
    let k = T::SIZE;
    if let Some(bytes) = as_bytes_mut(out) {
        join_bytes(data, n, k, start, bytes);
        return;
    }
    let mut buffer = vec![0u8; k * BLOCK.min(out.len())];
    for (i, chunk) in out.chunks_mut(BLOCK).enumerate() {
        let bytes = &mut buffer[..chunk.len() * k];
        join_bytes(data, n, k, start + i * BLOCK, bytes);
        read_le_values(bytes, chunk);
    }
}

/// Scatters values of any [`FixedWidth`] type into the page's streams in `dst`.
fn split<T: FixedWidth>(values: &[T], dst: &mut [u8]) {
    let k = T::SIZE;
    if let Some(bytes) = as_bytes(values) {
        split_bytes(bytes, k, dst);
        return;
    }
    let mut bytes = vec![0u8; values.len() * k];
    for (value, chunk) in values.iter().zip(bytes.chunks_exact_mut(k)) {
        value.write_le(chunk);
    }
    split_bytes(&bytes, k, dst);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The SSE2 (or vectorised portable) kernels of 4 and 8 bytes against the plain
        /// const-generic transposes, from any start, both directions.
        #[test]
        fn fast_kernels_match_portable(k in prop_oneof![Just(2usize), Just(4usize), Just(8usize), Just(16usize)], n in 0usize..200, start_pick in any::<usize>(), len_pick in any::<usize>(), seed in any::<u8>()) {
            let data: Vec<u8> = (0..n * k).map(|i| (i as u8).wrapping_mul(151) ^ seed).collect();
            let start = if n == 0 { 0 } else { start_pick % n };
            let count = if n == start { 0 } else { len_pick % (n - start + 1) };
            let mut fast = vec![0u8; count * k];
            let mut slow = vec![0u8; count * k];
            join_bytes(&data, n, k, start, &mut fast);
            match k {
                2 => join_bytes_const::<2>(&data, n, start, &mut slow),
                4 => {
                    join_bytes_const::<4>(&data, n, start, &mut slow);
                    let mut words = vec![0u8; count * 4];
                    join4_portable(&data, n, start, &mut words);
                    prop_assert_eq!(&words, &slow);
                }
                8 => join_bytes_const::<8>(&data, n, start, &mut slow),
                _ => join_bytes_const::<16>(&data, n, start, &mut slow),
            }
            prop_assert_eq!(&fast, &slow);

            let mut fast = vec![0u8; n * k];
            let mut slow = vec![0u8; n * k];
            split_bytes(&data, k, &mut fast);
            if n > 0 {
                match k {
                    2 => split_bytes_const::<2>(&data, n, 0, &mut slow),
                    4 => split_bytes_const::<4>(&data, n, 0, &mut slow),
                    8 => split_bytes_const::<8>(&data, n, 0, &mut slow),
                    _ => split_bytes_const::<16>(&data, n, 0, &mut slow),
                }
            }
            prop_assert_eq!(fast, slow);
        }
    }
}

/// N, the values a page of `len` bytes holds at `k` bytes each, checked against `max_values`.
fn value_count(len: usize, k: usize, max_values: usize) -> Result<usize, ParquetError> {
    if !len.is_multiple_of(k) {
        return Err(ParquetError::corrupt(
            ENCODING,
            format!("the page's length {len} is not a multiple of the value size {k}"),
        ));
    }
    let n = len / k;
    if n > max_values {
        return Err(ParquetError::too_many(
            ENCODING,
            "the page's length",
            n as u64,
            max_values as u64,
        ));
    }
    Ok(n)
}

fn check_type_length(type_length: usize) -> Result<(), ParquetError> {
    if type_length == 0 {
        return Err(ParquetError::invalid_argument(
            ENCODING,
            "FIXED_LEN_BYTE_ARRAY type_length 0: the length must be at least 1",
        ));
    }
    Ok(())
}

/// Decodes a whole BYTE_STREAM_SPLIT page of FLOAT, DOUBLE, INT32 or INT64 values into the
/// front of `out`; returns N, the page's value count (`data.len() / T::SIZE`).
///
/// # Errors
/// [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt) when `data.len()` is not a multiple of
/// `T::SIZE`; [`ErrorKind::TooMany`](super::ErrorKind::TooMany) when `out` is shorter than N.
pub fn decode<T: FixedWidth>(data: &[u8], out: &mut [T]) -> Result<usize, ParquetError> {
    let n = value_count(data.len(), T::SIZE, out.len())?;
    join(data, n, 0, &mut out[..n]);
    Ok(n)
}

/// Appends the BYTE_STREAM_SPLIT encoding of `values` to `out`.
pub fn encode<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    if values.is_empty() {
        return;
    }
    let start = out.len();
    out.resize(start + values.len() * T::SIZE, 0);
    split(values, &mut out[start..]);
}

/// Decodes a whole BYTE_STREAM_SPLIT page of FIXED_LEN_BYTE_ARRAY values of `type_length`
/// bytes into the front of `out`, each value's bytes contiguous (Arrow's FixedSizeBinary
/// layout); returns N, the page's value count.
///
/// # Errors
/// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) for a `type_length` of
/// 0; [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt) when `data.len()` is not a multiple of
/// it; [`ErrorKind::TooMany`](super::ErrorKind::TooMany) when `out` holds fewer than N values.
pub fn decode_fixed_len(
    data: &[u8],
    type_length: usize,
    out: &mut [u8],
) -> Result<usize, ParquetError> {
    check_type_length(type_length)?;
    let n = value_count(data.len(), type_length, out.len() / type_length)?;
    join_bytes(data, n, type_length, 0, &mut out[..n * type_length]);
    Ok(n)
}

/// Appends the BYTE_STREAM_SPLIT encoding of FIXED_LEN_BYTE_ARRAY values, given contiguous
/// (`values.len() / type_length` values of `type_length` bytes), to `out`.
///
/// # Errors
/// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) for a `type_length` of 0
/// or a `values.len()` that is not a multiple of it.
pub fn encode_fixed_len(
    values: &[u8],
    type_length: usize,
    out: &mut Vec<u8>,
) -> Result<(), ParquetError> {
    check_type_length(type_length)?;
    if !values.len().is_multiple_of(type_length) {
        return Err(ParquetError::invalid_argument(
            ENCODING,
            format!(
                "{} bytes of values are not a whole number of {type_length}-byte values",
                values.len()
            ),
        ));
    }
    if values.is_empty() {
        return Ok(());
    }
    let start = out.len();
    out.resize(start + values.len(), 0);
    split_bytes(values, type_length, &mut out[start..]);
    Ok(())
}

/// The incremental decoder of a BYTE_STREAM_SPLIT page of FLOAT, DOUBLE, INT32 or INT64
/// values.
#[derive(Clone, Debug)]
pub struct ByteStreamSplitDecoder<'a, T: FixedWidth> {
    data: &'a [u8],
    /// N, the page's value count (and each stream's length).
    num_values: usize,
    /// Values already decoded or skipped.
    position: usize,
    _type: std::marker::PhantomData<T>,
}

impl<'a, T: FixedWidth> ByteStreamSplitDecoder<'a, T> {
    /// A decoder of the page `data`, which may hold at most `max_values` values.
    ///
    /// # Errors
    /// [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt) when `data.len()` is not a multiple
    /// of `T::SIZE`; [`ErrorKind::TooMany`](super::ErrorKind::TooMany) when it holds more than
    /// `max_values` values.
    pub fn new(data: &'a [u8], max_values: usize) -> Result<Self, ParquetError> {
        let num_values = value_count(data.len(), T::SIZE, max_values)?;
        Ok(ByteStreamSplitDecoder {
            data,
            num_values,
            position: 0,
            _type: std::marker::PhantomData,
        })
    }
}

impl<T: FixedWidth> ValueDecoder for ByteStreamSplitDecoder<'_, T> {
    type Value = T;

    fn remaining(&self) -> usize {
        self.num_values - self.position
    }

    fn next_batch(&mut self, out: &mut [T]) -> Result<usize, ParquetError> {
        let count = out.len().min(self.remaining());
        join(self.data, self.num_values, self.position, &mut out[..count]);
        self.position += count;
        Ok(count)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let count = n.min(self.remaining());
        self.position += count;
        Ok(count)
    }
}

/// The incremental decoder of a BYTE_STREAM_SPLIT page of FIXED_LEN_BYTE_ARRAY values.
#[derive(Clone, Debug)]
pub struct ByteStreamSplitFixedLenDecoder<'a> {
    data: &'a [u8],
    type_length: usize,
    num_values: usize,
    position: usize,
}

impl<'a> ByteStreamSplitFixedLenDecoder<'a> {
    /// A decoder of the page `data` of `type_length`-byte values, which may hold at most
    /// `max_values` values.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) for a `type_length` of
    /// 0; [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt) when `data.len()` is not a multiple
    /// of it; [`ErrorKind::TooMany`](super::ErrorKind::TooMany) when it holds more than
    /// `max_values` values.
    pub fn new(
        data: &'a [u8],
        type_length: usize,
        max_values: usize,
    ) -> Result<Self, ParquetError> {
        check_type_length(type_length)?;
        let num_values = value_count(data.len(), type_length, max_values)?;
        Ok(ByteStreamSplitFixedLenDecoder {
            data,
            type_length,
            num_values,
            position: 0,
        })
    }
}

impl ByteArrayDecoder for ByteStreamSplitFixedLenDecoder<'_> {
    fn remaining(&self) -> usize {
        self.num_values - self.position
    }

    fn next_batch(&mut self, out: &mut ByteArrays, max: usize) -> Result<usize, ParquetError> {
        let count = max.min(self.remaining());
        let k = self.type_length;
        let base = out.values.len();
        let end = base + count * k;
        arrow_offset(end)?;
        out.values.resize(end, 0);
        join_bytes(
            self.data,
            self.num_values,
            k,
            self.position,
            &mut out.values[base..],
        );
        // Offsets fit i32: the end was checked above.
        out.offsets
            .extend((1..=count).map(|i| (base + i * k) as i32));
        self.position += count;
        Ok(count)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let count = n.min(self.remaining());
        self.position += count;
        Ok(count)
    }
}
