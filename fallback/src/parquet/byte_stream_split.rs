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
//! The transposes are kernels (`kernels::encodings::byte_stream_split`, one per tier: SSE2 and
//! AVX2 unpack networks for 2, 4, 8 and 16 bytes, const-generic blocks for the other lengths).
//! Primitive values are written in place through a byte view of the caller's slice (see
//! `util::as_bytes_mut`).

use super::util::{arrow_offset, as_bytes, as_bytes_mut, read_le_values};
use super::{ByteArrayDecoder, ByteArrays, FixedWidth, ParquetError, ValueDecoder};
use crate::kernels::encodings::byte_stream_split::{join as join_bytes, split as split_bytes};

const ENCODING: &str = "BYTE_STREAM_SPLIT";

/// Values per block of a type that is not joined in place.
const BLOCK: usize = 32;

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
