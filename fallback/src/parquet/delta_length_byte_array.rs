//! DELTA_LENGTH_BYTE_ARRAY (6): BYTE_ARRAY as the values' lengths in DELTA_BINARY_PACKED
//! (INT32), then the values' bytes back to back.
//!
//! The decoder decodes lengths in batches of [`LENGTH_BATCH`] from an inner
//! [`DeltaBinaryPackedDecoder`] while a cursor walks the bytes, which start where
//! [`stream_len`] says the lengths end: memory is constant, whatever the page holds. A
//! negative length is [`ErrorKind::Corrupt`], a value past the data
//! [`ErrorKind::Truncated`]. Bytes after the last value are ignored, as arrow-rs and
//! parquet-mr do; [`DeltaLengthByteArrayDecoder::bytes_consumed`] tells a strict caller where
//! the values ended.
//!
//! [`ErrorKind::Corrupt`]: super::ErrorKind::Corrupt
//! [`ErrorKind::Truncated`]: super::ErrorKind::Truncated

use super::delta_binary_packed::{encode_iter, stream_len, DeltaBinaryPackedDecoder};
use super::util::{arrow_offset, in_stream};
use super::{ByteArrayDecoder, ByteArrays, ParquetError, ValueDecoder};

const ENCODING: &str = "DELTA_LENGTH_BYTE_ARRAY";

/// Lengths decoded at a time.
pub const LENGTH_BATCH: usize = 64;

/// The incremental decoder of a DELTA_LENGTH_BYTE_ARRAY page.
#[derive(Clone, Debug)]
pub struct DeltaLengthByteArrayDecoder<'a> {
    lengths: DeltaBinaryPackedDecoder<'a, i32>,
    data: &'a [u8],
    /// Where the next value's bytes start in `data`.
    cursor: usize,
    /// The next value's index in the page, for messages.
    index: usize,
}

impl<'a> DeltaLengthByteArrayDecoder<'a> {
    /// Reads the lengths' header and finds where the bytes start. A count above
    /// `max_values` is [`ErrorKind::TooMany`](super::ErrorKind::TooMany); the lengths' stream
    /// is walked (block headers and widths only) to find its end, so its structural errors
    /// show here.
    pub fn new(data: &'a [u8], max_values: usize) -> Result<Self, ParquetError> {
        let (_, lengths_end) = stream_len::<i32>(data, max_values).map_err(in_lengths)?;
        let lengths =
            DeltaBinaryPackedDecoder::new(&data[..lengths_end], max_values).map_err(in_lengths)?;
        Ok(DeltaLengthByteArrayDecoder {
            lengths,
            data,
            cursor: lengths_end,
            index: 0,
        })
    }

    /// Bytes of the page read so far: after the last value, where the values ended (bytes
    /// past it are ignored by the decoder).
    pub fn bytes_consumed(&self) -> usize {
        self.cursor
    }

    /// Decodes the next `min(lengths.len(), remaining)` lengths into `lengths`, checks them
    /// against the data and passes over their bytes; returns how many and those bytes.
    pub(crate) fn next_values(
        &mut self,
        lengths: &mut [i32],
    ) -> Result<(usize, &'a [u8]), ParquetError> {
        let n = self.lengths.next_batch(lengths).map_err(in_lengths)?;
        let start = self.cursor;
        let mut end = start;
        for (i, &length) in lengths[..n].iter().enumerate() {
            let index = self.index + i;
            let Ok(length) = usize::try_from(length) else {
                return Err(ParquetError::corrupt(
                    ENCODING,
                    format!("value {index}'s length {length} is negative"),
                ));
            };
            end = end.saturating_add(length);
            if end > self.data.len() {
                return Err(ParquetError::truncated(
                    ENCODING,
                    format!(
                        "value {index} of length {length} ends at byte {end}, past the data's {} bytes",
                        self.data.len()
                    ),
                ));
            }
        }
        self.cursor = end;
        self.index += n;
        Ok((n, &self.data[start..end]))
    }
}

/// Names the lengths' stream in an error of the inner decoder.
fn in_lengths(error: ParquetError) -> ParquetError {
    in_stream(ENCODING, "the lengths (DELTA_BINARY_PACKED)", error)
}

impl ByteArrayDecoder for DeltaLengthByteArrayDecoder<'_> {
    fn remaining(&self) -> usize {
        self.lengths.remaining()
    }

    fn next_batch(&mut self, out: &mut ByteArrays, max: usize) -> Result<usize, ParquetError> {
        let want = max.min(self.remaining());
        let mut lengths = [0i32; LENGTH_BATCH];
        let mut done = 0;
        while done < want {
            let batch = (want - done).min(LENGTH_BATCH);
            let (n, bytes) = self.next_values(&mut lengths[..batch])?;
            // All of the batch's bytes are contiguous: one copy, then the offsets.
            let base = out.values.len();
            let end = base + bytes.len();
            arrow_offset(end)?;
            out.values.extend_from_slice(bytes);
            let mut offset = base;
            out.offsets.extend(lengths[..n].iter().map(|&length| {
                // Checked non-negative, and the sum fits i32 (checked above).
                offset += length as usize;
                offset as i32
            }));
            done += n;
        }
        Ok(want)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let want = n.min(self.remaining());
        let mut lengths = [0i32; LENGTH_BATCH];
        let mut done = 0;
        while done < want {
            let batch = (want - done).min(LENGTH_BATCH);
            done += self.next_values(&mut lengths[..batch])?.0;
        }
        Ok(want)
    }
}

/// Appends `values` as DELTA_LENGTH_BYTE_ARRAY: their lengths by
/// [`delta_binary_packed::encode`](super::delta_binary_packed::encode)'s layout, then their
/// bytes. The iterator is cloned and walked three times (count, lengths, bytes) instead of
/// collecting anything. A value longer than `i32::MAX` bytes is
/// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) (Parquet's lengths are
/// INT32), with nothing appended.
pub fn encode<'v, I>(values: I, out: &mut Vec<u8>) -> Result<(), ParquetError>
where
    I: IntoIterator<Item = &'v [u8]>,
    I::IntoIter: Clone,
{
    let values = values.into_iter();
    let count = count_values(ENCODING, values.clone())?;
    encode_iter::<i32>(count, values.clone().map(|v| v.len() as i32), out);
    for value in values {
        out.extend_from_slice(value);
    }
    Ok(())
}

/// How many values, checking that every length fits INT32.
pub(crate) fn count_values<'v>(
    encoding: &'static str,
    values: impl Iterator<Item = &'v [u8]>,
) -> Result<usize, ParquetError> {
    let mut count = 0;
    for value in values {
        if i32::try_from(value.len()).is_err() {
            return Err(ParquetError::invalid_argument(
                encoding,
                format!(
                    "value {count} has {} bytes, more than an INT32 length can say",
                    value.len()
                ),
            ));
        }
        count += 1;
    }
    Ok(count)
}
