//! Parquet's encodings, as the project's encoding specification describes them: one module per
//! encoding, each with a whole-page decoder, an incremental decoder (`next_batch` into a caller
//! slice, `skip`) and an encoder.
//!
//! Everything here decodes from a byte slice the caller owns into buffers the caller owns. No
//! decoder allocates in proportion to a count it read from the stream: counts in headers are
//! checked against the count the caller says the page holds ([`ErrorKind::TooMany`]) before
//! anything is decoded, and byte arrays grow only with bytes really present in the input.
//!
//! | module | encoding (Parquet's number) | types |
//! |---|---|---|
//! | [`plain`] | PLAIN (0) | all |
//! | [`dictionary`] | PLAIN_DICTIONARY (2), RLE_DICTIONARY (8) | all but BOOLEAN |
//! | [`hybrid`] | RLE (3): levels, booleans | levels, BOOLEAN |
//! | [`bit_packed`] | BIT_PACKED (4, deprecated) | levels |
//! | [`delta_binary_packed`] | DELTA_BINARY_PACKED (5) | INT32, INT64 |
//! | [`delta_length_byte_array`] | DELTA_LENGTH_BYTE_ARRAY (6) | BYTE_ARRAY |
//! | [`delta_byte_array`] | DELTA_BYTE_ARRAY (7) | BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY |
//! | [`byte_stream_split`] | BYTE_STREAM_SPLIT (9) | FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY |
//! | [`group_varint`] | GroupVarInt (no number yet) | INT32, INT64 |

use std::fmt;

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod bit_packed;
pub mod byte_stream_split;
pub mod delta_binary_packed;
pub mod delta_byte_array;
pub mod delta_length_byte_array;
pub mod dictionary;
pub mod group_varint;
pub mod hybrid;
pub mod plain;
mod util;
pub mod validity;
mod varint;

pub use varint::{read_uleb128, read_zigzag, write_uleb128, write_zigzag};

/// What went wrong, for callers that branch on it; the message says it in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The data ends before what its structure (or the caller's count) says follows.
    Truncated,
    /// The data breaks the encoding's rules (a bad header, a width above the type's size, a
    /// prefix longer than the previous value, a length that is not a multiple of the width...).
    Corrupt,
    /// A count in the data is above the count the caller said the page holds (or above a
    /// limit the caller set): refused before anything of that size is allocated or written.
    TooMany,
    /// A dictionary index at or past the dictionary's length.
    IndexOutOfRange,
    /// The caller's arguments cannot describe a valid page (a bit width above 32 for levels,
    /// a fixed length of 0, a value that does not fit the encoding when encoding...).
    InvalidArgument,
}

/// An error of a Parquet decoder or encoder: which encoding, what kind, and a message that
/// names the offending field and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParquetError {
    /// The encoding that failed, as the specification names it (`"DELTA_BINARY_PACKED"`).
    pub encoding: &'static str,
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong, in words.
    pub message: String,
}

impl ParquetError {
    /// An error of `kind` in `encoding`.
    pub fn new(encoding: &'static str, kind: ErrorKind, message: impl Into<String>) -> Self {
        ParquetError {
            encoding,
            kind,
            message: message.into(),
        }
    }

    /// [`ErrorKind::Truncated`].
    pub fn truncated(encoding: &'static str, message: impl Into<String>) -> Self {
        Self::new(encoding, ErrorKind::Truncated, message)
    }

    /// [`ErrorKind::Corrupt`].
    pub fn corrupt(encoding: &'static str, message: impl Into<String>) -> Self {
        Self::new(encoding, ErrorKind::Corrupt, message)
    }

    /// [`ErrorKind::TooMany`]: `claimed` values where the caller allows at most `limit`.
    pub fn too_many(encoding: &'static str, what: &str, claimed: u64, limit: u64) -> Self {
        Self::new(
            encoding,
            ErrorKind::TooMany,
            format!("{what} claims {claimed} values, but the page holds at most {limit}"),
        )
    }

    /// [`ErrorKind::InvalidArgument`].
    pub fn invalid_argument(encoding: &'static str, message: impl Into<String>) -> Self {
        Self::new(encoding, ErrorKind::InvalidArgument, message)
    }
}

impl fmt::Display for ParquetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.encoding, self.message)
    }
}

impl std::error::Error for ParquetError {}

/// Parquet's physical types, with FIXED_LEN_BYTE_ARRAY's length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PhysicalType {
    /// One bit per value.
    Boolean,
    /// 4-byte signed integer.
    Int32,
    /// 8-byte signed integer.
    Int64,
    /// 12-byte integer (deprecated; timestamps of old writers).
    Int96,
    /// IEEE 754 single precision.
    Float,
    /// IEEE 754 double precision.
    Double,
    /// Variable-length bytes.
    ByteArray,
    /// Bytes of the given fixed length.
    FixedLenByteArray(usize),
}

impl PhysicalType {
    /// The type's name as Parquet spells it (`"FIXED_LEN_BYTE_ARRAY"`).
    pub fn name(self) -> &'static str {
        match self {
            PhysicalType::Boolean => "BOOLEAN",
            PhysicalType::Int32 => "INT32",
            PhysicalType::Int64 => "INT64",
            PhysicalType::Int96 => "INT96",
            PhysicalType::Float => "FLOAT",
            PhysicalType::Double => "DOUBLE",
            PhysicalType::ByteArray => "BYTE_ARRAY",
            PhysicalType::FixedLenByteArray(_) => "FIXED_LEN_BYTE_ARRAY",
        }
    }
}

/// A 12-byte INT96 value as three little-endian 32-bit words (arrow-rs's layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Int96(pub [u32; 3]);

/// A fixed-size value type stored little-endian: what PLAIN, BYTE_STREAM_SPLIT and dictionary
/// pages hold for the numeric physical types.
pub trait FixedWidth: Copy + Default + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// Bytes per value.
    const SIZE: usize;
    /// Reads a value from the first `SIZE` bytes of `bytes` (which holds at least `SIZE`).
    fn from_le_slice(bytes: &[u8]) -> Self;
    /// Writes the value's `SIZE` little-endian bytes into the start of `out`.
    fn write_le(self, out: &mut [u8]);
}

macro_rules! fixed_width {
    ($($t:ty => $n:literal),*) => {$(
        impl FixedWidth for $t {
            const SIZE: usize = $n;
            #[inline(always)]
            fn from_le_slice(bytes: &[u8]) -> Self {
                let mut b = [0u8; $n];
                b.copy_from_slice(&bytes[..$n]);
                <$t>::from_le_bytes(b)
            }
            #[inline(always)]
            fn write_le(self, out: &mut [u8]) {
                out[..$n].copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
fixed_width!(i32 => 4, i64 => 8, u32 => 4, u64 => 8, f32 => 4, f64 => 8);

/// FIXED_LEN_BYTE_ARRAY values of up to 16 bytes (decimals, FLOAT16, UUIDs) as their bytes,
/// in the order they are stored: a value is `N` bytes, read and written as they are.
macro_rules! fixed_width_bytes {
    ($($n:literal),*) => {$(
        impl FixedWidth for [u8; $n] {
            const SIZE: usize = $n;
            #[inline(always)]
            fn from_le_slice(bytes: &[u8]) -> Self {
                let mut b = [0u8; $n];
                b.copy_from_slice(&bytes[..$n]);
                b
            }
            #[inline(always)]
            fn write_le(self, out: &mut [u8]) {
                out[..$n].copy_from_slice(&self);
            }
        }
    )*};
}
fixed_width_bytes!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);

impl FixedWidth for Int96 {
    const SIZE: usize = 12;
    #[inline(always)]
    fn from_le_slice(bytes: &[u8]) -> Self {
        Int96([
            u32::from_le_slice(&bytes[0..4]),
            u32::from_le_slice(&bytes[4..8]),
            u32::from_le_slice(&bytes[8..12]),
        ])
    }
    #[inline(always)]
    fn write_le(self, out: &mut [u8]) {
        for (i, word) in self.0.into_iter().enumerate() {
            word.write_le(&mut out[4 * i..4 * i + 4]);
        }
    }
}

/// Byte arrays in Arrow's layout: `offsets` has one entry more than there are values, starts
/// at 0 and never decreases; value `i` is `values[offsets[i]..offsets[i + 1]]`.
///
/// Decoders append to it, so a reader can reuse one across batches and pages (`clear` keeps
/// the capacity).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ByteArrays {
    /// Start of each value in `values`, then the end of the last one.
    pub offsets: Vec<i32>,
    /// The values' bytes, back to back.
    pub values: Vec<u8>,
}

impl Default for ByteArrays {
    fn default() -> Self {
        Self::new()
    }
}

impl ByteArrays {
    /// No values.
    pub fn new() -> Self {
        ByteArrays {
            offsets: vec![0],
            values: Vec::new(),
        }
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    pub fn get(&self, i: usize) -> &[u8] {
        &self.values[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The values in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.offsets
            .windows(2)
            .map(|w| &self.values[w[0] as usize..w[1] as usize])
    }

    /// Removes every value, keeping the buffers' capacity.
    pub fn clear(&mut self) {
        self.offsets.clear();
        self.offsets.push(0);
        self.values.clear();
    }

    /// Appends one value; an error when the values' total would pass `i32::MAX` bytes (Arrow's
    /// 32-bit offsets).
    pub fn push(&mut self, value: &[u8]) -> Result<(), ParquetError> {
        let end = self.values.len() + value.len();
        let end = util::arrow_offset(end)?;
        self.values.extend_from_slice(value);
        self.offsets.push(end);
        Ok(())
    }

    /// Closes the value whose bytes the caller appended to `values` since the last offset
    /// (for decoders that build a value in place, e.g. a prefix then a suffix).
    pub fn finish_value(&mut self) -> Result<(), ParquetError> {
        let end = self.values.len();
        let end = util::arrow_offset(end)?;
        self.offsets.push(end);
        Ok(())
    }
}

impl<'a> FromIterator<&'a [u8]> for ByteArrays {
    /// Collects values; panics only past 2 GiB of bytes, which a test never builds.
    fn from_iter<I: IntoIterator<Item = &'a [u8]>>(iter: I) -> Self {
        let mut arrays = ByteArrays::new();
        for value in iter {
            arrays.push(value).expect("byte arrays under 2 GiB");
        }
        arrays
    }
}

/// The incremental decoder of a page of fixed-size values (or levels, indices, booleans).
///
/// `remaining` says how many values the page still holds; `next_batch` decodes
/// `min(out.len(), remaining)` values into the front of `out` and returns that count (0 at the
/// end of the page); `skip(n)` passes over `min(n, remaining)` values and returns that count.
/// After an error the decoder's state is unspecified: drop it.
pub trait ValueDecoder {
    /// The decoded type.
    type Value;
    /// Values not yet decoded or skipped.
    fn remaining(&self) -> usize;
    /// Decodes the next values into the front of `out`.
    fn next_batch(&mut self, out: &mut [Self::Value]) -> Result<usize, ParquetError>;
    /// Passes over the next `n` values.
    fn skip(&mut self, n: usize) -> Result<usize, ParquetError>;
}

/// The incremental decoder of a page of byte arrays: like [`ValueDecoder`], but it appends up
/// to `max` values to a caller's [`ByteArrays`].
pub trait ByteArrayDecoder {
    /// Values not yet decoded or skipped.
    fn remaining(&self) -> usize;
    /// Appends the next `min(max, remaining)` values to `out`; returns how many.
    fn next_batch(&mut self, out: &mut ByteArrays, max: usize) -> Result<usize, ParquetError>;
    /// Passes over the next `n` values.
    fn skip(&mut self, n: usize) -> Result<usize, ParquetError>;
}
