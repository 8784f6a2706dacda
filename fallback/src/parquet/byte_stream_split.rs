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
//! The kernels transpose blocks of [`BLOCK`] values: for 4- and 8-byte types each stream's
//! block is widened into the values' words (`word |= byte << 8j`), loops of constant length
//! over fixed-size arrays that LLVM vectorises without bounds checks; other widths go
//! through a const-generic byte transpose (1..=16 bytes) or a plain loop.

use super::{ByteArrayDecoder, ByteArrays, FixedWidth, ParquetError, ValueDecoder};

const ENCODING: &str = "BYTE_STREAM_SPLIT";

/// Values per transposed block.
const BLOCK: usize = 32;

macro_rules! word_kernels {
    ($join:ident, $split:ident, $word:ty, $k:literal) => {
        /// Joins values `start..start + out.len()` of the streams (each `n` bytes) of `data`
        /// into `out`, for `T::SIZE == $k`.
        fn $join<T: FixedWidth>(data: &[u8], n: usize, start: usize, out: &mut [T]) {
            debug_assert_eq!(T::SIZE, $k);
            let count = out.len();
            let streams: [&[u8]; $k] =
                std::array::from_fn(|j| &data[j * n + start..j * n + start + count]);
            let mut blocks = out.chunks_exact_mut(BLOCK);
            let mut i = 0;
            for block in &mut blocks {
                let mut words = [0 as $word; BLOCK];
                for (j, stream) in streams.iter().enumerate() {
                    let src: &[u8; BLOCK] = stream[i..i + BLOCK].try_into().unwrap();
                    for k in 0..BLOCK {
                        words[k] |= <$word>::from(src[k]) << (8 * j);
                    }
                }
                for (value, word) in block.iter_mut().zip(words) {
                    *value = T::from_le_slice(&word.to_le_bytes());
                }
                i += BLOCK;
            }
            for (k, value) in blocks.into_remainder().iter_mut().enumerate() {
                let bytes: [u8; $k] = std::array::from_fn(|j| streams[j][i + k]);
                *value = T::from_le_slice(&bytes);
            }
        }

        /// Scatters `values` into the streams of `dst` (`values.len()` bytes each), for
        /// `T::SIZE == $k`.
        fn $split<T: FixedWidth>(values: &[T], dst: &mut [u8]) {
            debug_assert_eq!(T::SIZE, $k);
            let n = values.len();
            let mut parts = dst.chunks_exact_mut(n);
            let mut streams: [&mut [u8]; $k] = std::array::from_fn(|_| parts.next().unwrap());
            let mut blocks = values.chunks_exact(BLOCK);
            let mut i = 0;
            for block in &mut blocks {
                let mut words = [0 as $word; BLOCK];
                for (word, value) in words.iter_mut().zip(block) {
                    let mut bytes = [0u8; $k];
                    value.write_le(&mut bytes);
                    *word = <$word>::from_le_bytes(bytes);
                }
                for (j, stream) in streams.iter_mut().enumerate() {
                    let dst: &mut [u8; BLOCK] = (&mut stream[i..i + BLOCK]).try_into().unwrap();
                    for k in 0..BLOCK {
                        dst[k] = (words[k] >> (8 * j)) as u8;
                    }
                }
                i += BLOCK;
            }
            for (k, value) in blocks.remainder().iter().enumerate() {
                let mut bytes = [0u8; $k];
                value.write_le(&mut bytes);
                for (stream, byte) in streams.iter_mut().zip(bytes) {
                    stream[i + k] = byte;
                }
            }
        }
    };
}

word_kernels!(join_words4, split_words4, u32, 4);
word_kernels!(join_words8, split_words8, u64, 8);

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
                $($k => join_bytes_const::<$k>(data, n, start, out),)*
                _ => join_bytes_dyn(data, n, k, start, out),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// Scatters the contiguous `k`-byte values of `values` into the streams of `dst`.
fn split_bytes_const<const K: usize>(values: &[u8], dst: &mut [u8]) {
    let n = values.len() / K;
    let mut parts = dst.chunks_exact_mut(n);
    let mut streams: [&mut [u8]; K] = std::array::from_fn(|_| parts.next().unwrap());
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

fn split_bytes(values: &[u8], k: usize, dst: &mut [u8]) {
    let n = values.len() / k;
    macro_rules! dispatch {
        ($($k:literal)*) => {
            match k {
                $($k => split_bytes_const::<$k>(values, dst),)*
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
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// Joins values of any [`FixedWidth`] type: the word kernels for 4 and 8 bytes, the byte
/// transpose through a block buffer otherwise.
fn join<T: FixedWidth>(data: &[u8], n: usize, start: usize, out: &mut [T]) {
    match T::SIZE {
        4 => join_words4(data, n, start, out),
        8 => join_words8(data, n, start, out),
        k => {
            let mut buffer = vec![0u8; k * BLOCK.min(out.len())];
            for (i, chunk) in out.chunks_mut(BLOCK).enumerate() {
                let bytes = &mut buffer[..chunk.len() * k];
                join_bytes(data, n, k, start + i * BLOCK, bytes);
                for (value, src) in chunk.iter_mut().zip(bytes.chunks_exact(k)) {
                    *value = T::from_le_slice(src);
                }
            }
        }
    }
}

fn split<T: FixedWidth>(values: &[T], dst: &mut [u8]) {
    match T::SIZE {
        4 => split_words4(values, dst),
        8 => split_words8(values, dst),
        k => {
            let mut bytes = vec![0u8; values.len() * k];
            for (value, chunk) in values.iter().zip(bytes.chunks_exact_mut(k)) {
                value.write_le(chunk);
            }
            split_bytes(&bytes, k, dst);
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
        if i32::try_from(end).is_err() {
            return Err(ParquetError::new(
                "BYTE_ARRAY",
                super::ErrorKind::TooMany,
                format!("byte arrays of {end} bytes in all do not fit Arrow's 32-bit offsets"),
            ));
        }
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
