//! DELTA_BYTE_ARRAY (7): BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY by front compression. Each value
//! is a prefix of the previous value plus a suffix: the prefix lengths in
//! DELTA_BINARY_PACKED (INT32), then the suffixes in DELTA_LENGTH_BYTE_ARRAY.
//!
//! The decoder keeps constant state apart from the previous value, which is never longer than
//! the suffix bytes read so far (so bounded by the input). A prefix length that is negative or
//! longer than the previous value (any nonzero prefix for the first value), or prefix and
//! suffix streams with different counts, are [`ErrorKind::Corrupt`].
//!
//! FIXED_LEN_BYTE_ARRAY pages decode the same way (Parquet stores every length even there);
//! [`DeltaByteArrayDecoder::new_fixed_len`] also checks that every value has the column's
//! length.
//!
//! [`ErrorKind::Corrupt`]: super::ErrorKind::Corrupt

use super::delta_binary_packed::{encode_iter, stream_len, DeltaBinaryPackedDecoder};
use super::delta_length_byte_array::{count_values, DeltaLengthByteArrayDecoder, LENGTH_BATCH};
use super::util::in_stream;
use super::{ByteArrayDecoder, ByteArrays, ParquetError, ValueDecoder};

const ENCODING: &str = "DELTA_BYTE_ARRAY";

/// The incremental decoder of a DELTA_BYTE_ARRAY page.
#[derive(Clone, Debug)]
pub struct DeltaByteArrayDecoder<'a> {
    prefixes: DeltaBinaryPackedDecoder<'a, i32>,
    suffixes: DeltaLengthByteArrayDecoder<'a>,
    /// The last value decoded (or skipped): the source of the next prefix.
    previous: Vec<u8>,
    /// The next value's index in the page, for messages.
    index: usize,
    /// FIXED_LEN_BYTE_ARRAY's length, which every value must have.
    fixed_len: Option<usize>,
}

impl<'a> DeltaByteArrayDecoder<'a> {
    /// Reads the prefix lengths' header, finds their end, and opens the suffixes after it. A
    /// count above `max_values` is [`ErrorKind::TooMany`](super::ErrorKind::TooMany); prefix
    /// and suffix counts that differ are [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt).
    pub fn new(data: &'a [u8], max_values: usize) -> Result<Self, ParquetError> {
        let (count, prefixes_end) = stream_len::<i32>(data, max_values).map_err(in_prefixes)?;
        let prefixes = DeltaBinaryPackedDecoder::new(&data[..prefixes_end], max_values)
            .map_err(in_prefixes)?;
        let suffixes = DeltaLengthByteArrayDecoder::new(&data[prefixes_end..], max_values)
            .map_err(in_suffixes)?;
        if suffixes.remaining() != count {
            return Err(ParquetError::corrupt(
                ENCODING,
                format!(
                    "{count} prefix lengths but {} suffixes",
                    suffixes.remaining()
                ),
            ));
        }
        Ok(DeltaByteArrayDecoder {
            prefixes,
            suffixes,
            previous: Vec::new(),
            index: 0,
            fixed_len: None,
        })
    }

    /// [`new`](Self::new) for a FIXED_LEN_BYTE_ARRAY column of `len`-byte values: a value of
    /// another length is [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt); `len == 0` is
    /// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument).
    pub fn new_fixed_len(
        data: &'a [u8],
        max_values: usize,
        len: usize,
    ) -> Result<Self, ParquetError> {
        if len == 0 {
            return Err(ParquetError::invalid_argument(
                ENCODING,
                "FIXED_LEN_BYTE_ARRAY's length is 0",
            ));
        }
        let mut decoder = Self::new(data, max_values)?;
        decoder.fixed_len = Some(len);
        Ok(decoder)
    }

    /// Decodes the next `want` values, appending them to `out` when there is one.
    fn advance(
        &mut self,
        want: usize,
        mut out: Option<&mut ByteArrays>,
    ) -> Result<(), ParquetError> {
        let mut prefix_lengths = [0i32; LENGTH_BATCH];
        let mut suffix_lengths = [0i32; LENGTH_BATCH];
        let mut done = 0;
        while done < want {
            let batch = (want - done).min(LENGTH_BATCH);
            let n = self
                .prefixes
                .next_batch(&mut prefix_lengths[..batch])
                .map_err(in_prefixes)?;
            let (suffixes, mut bytes) = self
                .suffixes
                .next_values(&mut suffix_lengths[..n])
                .map_err(in_suffixes)?;
            if n != batch || suffixes != n {
                return Err(ParquetError::corrupt(
                    ENCODING,
                    format!("prefix lengths or suffixes end before value {}", self.index),
                ));
            }
            for (&prefix, &suffix_len) in prefix_lengths[..n].iter().zip(&suffix_lengths[..n]) {
                let prefix = usize::try_from(prefix)
                    .ok()
                    .filter(|&p| p <= self.previous.len())
                    .ok_or_else(|| {
                        ParquetError::corrupt(
                            ENCODING,
                            format!(
                                "value {}'s prefix length {prefix} is not in 0..={} (the previous value's length)",
                                self.index,
                                self.previous.len()
                            ),
                        )
                    })?;
                // Checked non-negative and within the data by the suffixes' decoder.
                let (suffix, rest) = bytes.split_at(suffix_len as usize);
                bytes = rest;
                self.previous.truncate(prefix);
                self.previous.extend_from_slice(suffix);
                if let Some(len) = self.fixed_len.filter(|&len| len != self.previous.len()) {
                    return Err(ParquetError::corrupt(
                        ENCODING,
                        format!(
                            "value {} has {} bytes, not FIXED_LEN_BYTE_ARRAY's {len}",
                            self.index,
                            self.previous.len()
                        ),
                    ));
                }
                if let Some(out) = out.as_deref_mut() {
                    out.push(&self.previous)?;
                }
                self.index += 1;
            }
            done += n;
        }
        Ok(())
    }
}

/// Names the prefix lengths' stream in an error of the inner decoder.
fn in_prefixes(error: ParquetError) -> ParquetError {
    in_stream(ENCODING, "the prefix lengths (DELTA_BINARY_PACKED)", error)
}

/// Names the suffixes' stream in an error of the inner decoder.
fn in_suffixes(error: ParquetError) -> ParquetError {
    in_stream(ENCODING, "the suffixes (DELTA_LENGTH_BYTE_ARRAY)", error)
}

impl ByteArrayDecoder for DeltaByteArrayDecoder<'_> {
    fn remaining(&self) -> usize {
        self.prefixes.remaining()
    }

    fn next_batch(&mut self, out: &mut ByteArrays, max: usize) -> Result<usize, ParquetError> {
        let want = max.min(self.remaining());
        self.advance(want, Some(out))?;
        Ok(want)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        // Skipped values still build the previous value the next prefix refers to.
        let want = n.min(self.remaining());
        self.advance(want, None)?;
        Ok(want)
    }
}

/// Each value's shared prefix with the previous value, and its suffix.
#[derive(Clone)]
struct PrefixSplit<'v, I> {
    values: I,
    previous: &'v [u8],
}

impl<'v, I: Iterator<Item = &'v [u8]>> Iterator for PrefixSplit<'v, I> {
    type Item = (usize, &'v [u8]);
    fn next(&mut self) -> Option<Self::Item> {
        let value = self.values.next()?;
        let prefix = common_prefix_len(self.previous, value);
        self.previous = value;
        Some((prefix, &value[prefix..]))
    }
}

/// Bytes `a` and `b` share at their start, compared 8 at a time.
fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    let limit = a.len().min(b.len());
    let (a, b) = (&a[..limit], &b[..limit]);
    let mut at = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        if x != y {
            break;
        }
        at += 8;
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Appends `values` as DELTA_BYTE_ARRAY: each value's prefix length (shared with the previous
/// value, 0 for the first), then the suffixes as DELTA_LENGTH_BYTE_ARRAY, both with
/// [`delta_binary_packed::encode`](super::delta_binary_packed::encode)'s layout. The
/// iterator is cloned and walked instead of collecting anything. A value longer than
/// `i32::MAX` bytes is [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument),
/// with nothing appended.
pub fn encode<'v, I>(values: I, out: &mut Vec<u8>) -> Result<(), ParquetError>
where
    I: IntoIterator<Item = &'v [u8]>,
    I::IntoIter: Clone,
{
    let values = values.into_iter();
    let count = count_values(ENCODING, values.clone())?;
    let split = PrefixSplit {
        values,
        previous: &[],
    };
    // Lengths fit i32: checked by count_values.
    encode_iter::<i32>(count, split.clone().map(|(prefix, _)| prefix as i32), out);
    encode_iter::<i32>(
        count,
        split.clone().map(|(_, suffix)| suffix.len() as i32),
        out,
    );
    for (_, suffix) in split {
        out.extend_from_slice(suffix);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::common_prefix_len;

    #[test]
    fn common_prefix_across_word_boundaries() {
        let a = b"0123456789abcdefXYZ";
        for cut in 0..a.len() {
            let mut b = a.to_vec();
            b[cut] ^= 1;
            assert_eq!(common_prefix_len(a, &b), cut);
            assert_eq!(common_prefix_len(&a[..cut], a), cut);
        }
        assert_eq!(common_prefix_len(a, a), a.len());
    }
}
