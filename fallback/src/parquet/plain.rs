//! PLAIN (0): values back to back, for every physical type.
//!
//! - INT32, INT64, INT96, FLOAT, DOUBLE: each value's little-endian bytes ([`FixedWidth`]):
//!   [`decode`], [`PlainDecoder`], [`encode`].
//! - BOOLEAN: one bit per value, LSB first ([`decode_booleans`], [`PlainBooleanDecoder`],
//!   [`encode_booleans`]). The padding bits of the last byte are written as 0 and ignored
//!   when read.
//! - BYTE_ARRAY: a 4-byte little-endian length, then the bytes ([`PlainByteArrayDecoder`],
//!   [`encode_byte_arrays`]).
//! - FIXED_LEN_BYTE_ARRAY: the bytes of each value, of the column's length
//!   ([`PlainFixedLenDecoder`], [`encode_fixed_len`]). A length of 0 is
//!   [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) in the decoder and the
//!   encoder: Parquet's schema requires a positive length, and a page of 0-byte values could
//!   not say how many values it holds.
//!
//! Bytes after the last value the caller asked for are ignored (a PLAIN page has no header
//! saying where its values end; the caller's `num_values` does).

use std::mem::MaybeUninit;

use super::util::{arrow_offset, as_bytes, is_primitive, read_le_values};
use super::{ByteArrayDecoder, ByteArrays, FixedWidth, ParquetError, ValueDecoder};

const ENCODING: &str = "PLAIN";

/// How far ahead of a walk over PLAIN byte arrays [`prefetch_ahead`] asks for bytes: about
/// a memory latency's worth of values at the walk's pace (measured best of 512, 1024 and 2048
/// on lineitem's `l_comment`, values of ~27 bytes).
const PREFETCH_DISTANCE: usize = 1024;

/// Asks the CPU to bring `data`'s bytes [`PREFETCH_DISTANCE`] past `at` into its caches.
///
/// A walk over PLAIN byte arrays is a chain of loads, each length's address depending on the
/// one before it, so it waits out every cache miss in full, where a copy's independent loads
/// overlap theirs; asking for the bytes ahead overlaps them again. A page read from memory
/// (not decompressed into the cache just before) walks about 10% faster with it. A hint only:
/// an address past `data` is never read, and no target needs it to be correct.
#[inline(always)]
pub fn prefetch_ahead(data: &[u8], at: usize) {
    let ahead = data
        .as_ptr()
        .wrapping_add(at.wrapping_add(PREFETCH_DISTANCE));
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing the program sees, whatever the
    // address (it may be past `data`); SSE, which has the instruction, is part of x86_64.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(ahead.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ahead;
}

/// `count * size` bytes, or a Truncated error when even that product overflows (a count no
/// slice could hold).
fn bytes_needed(
    count: usize,
    size: usize,
    what: &str,
    data_len: usize,
) -> Result<usize, ParquetError> {
    count.checked_mul(size).ok_or_else(|| {
        ParquetError::truncated(
            ENCODING,
            format!("{count} {what} of {size} bytes do not fit in the {data_len} bytes of data"),
        )
    })
}

fn check_len(
    count: usize,
    size: usize,
    what: &str,
    data_len: usize,
) -> Result<usize, ParquetError> {
    let need = bytes_needed(count, size, what, data_len)?;
    if need > data_len {
        return Err(ParquetError::truncated(
            ENCODING,
            format!(
                "{count} {what} of {size} bytes need {need} bytes, but the data holds {data_len}"
            ),
        ));
    }
    Ok(need)
}

/// Decodes `out.len()` values of a PLAIN page of INT32, INT64, INT96, FLOAT or DOUBLE
/// values; returns the bytes consumed (`out.len() * T::SIZE`).
///
/// # Errors
/// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer than
/// `out.len()` values; `out` is then left untouched.
pub fn decode<T: FixedWidth>(data: &[u8], out: &mut [T]) -> Result<usize, ParquetError> {
    let need = check_len(out.len(), T::SIZE, "values", data.len())?;
    read_le_values(&data[..need], out);
    Ok(need)
}

/// Appends the first `n` values of a PLAIN page of INT32, INT64, INT96, FLOAT or DOUBLE
/// values to `out`; returns the bytes consumed (`n * T::SIZE`). One copy of the bytes into
/// the vector's spare room for the primitive types on little-endian targets (no zero fill
/// first, no batches), else value by value ([`FixedWidth::from_le_slice`], any endianness).
///
/// # Errors
/// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer than `n`
/// values; `out` is then left untouched.
pub fn decode_append<T: FixedWidth>(
    data: &[u8],
    n: usize,
    out: &mut Vec<T>,
) -> Result<usize, ParquetError> {
    let need = check_len(n, T::SIZE, "values", data.len())?;
    let bytes = &data[..need];
    out.reserve(n);
    if is_primitive::<T>() {
        let start = out.len();
        // SAFETY: `reserve(n)` left room for `n` more values after `start`, i.e. `need` =
        // `n * T::SIZE` bytes (`is_primitive`: `size_of::<T>() == T::SIZE`), which `bytes`
        // holds; the regions cannot overlap (`out` is borrowed exclusively). `T` is a
        // primitive integer or float on a little-endian target (`is_primitive`): every bit
        // pattern is a valid value and its memory is its little-endian bytes, so the `n`
        // values after `start` are initialised with the page's values before `set_len`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                out.as_mut_ptr().add(start).cast::<u8>(),
                need,
            );
            out.set_len(start + n);
        }
    } else {
        out.extend(bytes.chunks_exact(T::SIZE).map(T::from_le_slice));
    }
    Ok(need)
}

/// Appends the PLAIN encoding of `values` (their little-endian bytes) to `out`.
pub fn encode<T: FixedWidth>(values: &[T], out: &mut Vec<u8>) {
    if let Some(bytes) = as_bytes(values) {
        out.extend_from_slice(bytes);
        return;
    }
    let start = out.len();
    out.resize(start + values.len() * T::SIZE, 0);
    for (value, chunk) in values.iter().zip(out[start..].chunks_exact_mut(T::SIZE)) {
        value.write_le(chunk);
    }
}

/// The incremental decoder of a PLAIN page of fixed-size values.
#[derive(Clone, Debug)]
pub struct PlainDecoder<'a, T> {
    /// The page's values, exactly `num_values * T::SIZE` bytes.
    data: &'a [u8],
    /// Values already decoded or skipped.
    position: usize,
    num_values: usize,
    _type: std::marker::PhantomData<T>,
}

impl<'a, T: FixedWidth> PlainDecoder<'a, T> {
    /// A decoder of the first `num_values` values of `data`.
    ///
    /// # Errors
    /// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer.
    pub fn new(data: &'a [u8], num_values: usize) -> Result<Self, ParquetError> {
        let need = check_len(num_values, T::SIZE, "values", data.len())?;
        Ok(PlainDecoder {
            data: &data[..need],
            position: 0,
            num_values,
            _type: std::marker::PhantomData,
        })
    }
}

impl<T: FixedWidth> ValueDecoder for PlainDecoder<'_, T> {
    type Value = T;

    fn remaining(&self) -> usize {
        self.num_values - self.position
    }

    fn next_batch(&mut self, out: &mut [T]) -> Result<usize, ParquetError> {
        let count = out.len().min(self.remaining());
        let start = self.position * T::SIZE;
        read_le_values(
            &self.data[start..start + count * T::SIZE],
            &mut out[..count],
        );
        self.position += count;
        Ok(count)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let count = n.min(self.remaining());
        self.position += count;
        Ok(count)
    }
}

/// Writes booleans `first_bit..first_bit + out.len()` of the LSB-first bitmap `data` into
/// `out`; `data` holds them all.
fn read_bits(data: &[u8], first_bit: usize, out: &mut [bool]) {
    let mut bit = first_bit;
    let mut done = 0;
    // Up to the next byte boundary one bit at a time, then whole bytes.
    while done < out.len() && !bit.is_multiple_of(8) {
        out[done] = (data[bit / 8] >> (bit % 8)) & 1 != 0;
        done += 1;
        bit += 1;
    }
    let whole_bytes = (out.len() - done) / 8;
    let bytes = &data[bit / 8..bit / 8 + whole_bytes];
    for (chunk, &byte) in out[done..done + whole_bytes * 8]
        .chunks_exact_mut(8)
        .zip(bytes)
    {
        for (k, value) in chunk.iter_mut().enumerate() {
            *value = (byte >> k) & 1 != 0;
        }
    }
    done += whole_bytes * 8;
    bit += whole_bytes * 8;
    for value in &mut out[done..] {
        *value = (data[bit / 8] >> (bit % 8)) & 1 != 0;
        bit += 1;
    }
}

/// Decodes `out.len()` booleans of a PLAIN BOOLEAN page (bit-packed, LSB first); returns the
/// bytes consumed (`ceil(out.len() / 8)`). The padding bits of the last byte are ignored.
///
/// # Errors
/// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer bits.
pub fn decode_booleans(data: &[u8], out: &mut [bool]) -> Result<usize, ParquetError> {
    let need = out.len().div_ceil(8);
    if need > data.len() {
        return Err(ParquetError::truncated(
            ENCODING,
            format!(
                "{} booleans need {need} bytes, but the data holds {}",
                out.len(),
                data.len()
            ),
        ));
    }
    read_bits(data, 0, out);
    Ok(need)
}

/// The 8 booleans of each byte, LSB first.
static BYTE_BOOLS: [[bool; 8]; 256] = {
    let mut table = [[false; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut k = 0;
        while k < 8 {
            table[byte][k] = (byte >> k) & 1 != 0;
            k += 1;
        }
        byte += 1;
    }
    table
};

/// Appends the first `n` booleans of a PLAIN BOOLEAN page (bit-packed, LSB first) to `out`;
/// returns the bytes consumed (`ceil(n / 8)`). Each byte's 8 booleans come from a 256-entry
/// table, written straight into the vector's spare room (no zero fill first).
///
/// # Errors
/// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer bits; `out`
/// is then left untouched.
pub fn decode_booleans_append(
    data: &[u8],
    n: usize,
    out: &mut Vec<bool>,
) -> Result<usize, ParquetError> {
    let need = n.div_ceil(8);
    if need > data.len() {
        return Err(ParquetError::truncated(
            ENCODING,
            format!(
                "{n} booleans need {need} bytes, but the data holds {}",
                data.len()
            ),
        ));
    }
    out.reserve(n);
    let start = out.len();
    let spare = &mut out.spare_capacity_mut()[..n];
    let whole = n / 8;
    for (chunk, &byte) in spare.chunks_exact_mut(8).zip(&data[..whole]) {
        let bools = &BYTE_BOOLS[usize::from(byte)];
        for (slot, &b) in chunk.iter_mut().zip(bools) {
            *slot = MaybeUninit::new(b);
        }
    }
    if let Some(&last) = data[..need].get(whole) {
        let bools = &BYTE_BOOLS[usize::from(last)];
        for (slot, &b) in spare[whole * 8..].iter_mut().zip(bools) {
            *slot = MaybeUninit::new(b);
        }
    }
    // SAFETY: the loops above wrote all `n` spare slots after `start`: `whole` full bytes of 8
    // (`spare` has `n` ≥ 8·whole slots and `data` ≥ `whole` bytes), then the `n - 8·whole`
    // < 8 slots left from the byte at `whole`, present when `n` is not a multiple of 8
    // (`need` = `whole + 1` bytes then, checked above).
    unsafe { out.set_len(start + n) };
    Ok(need)
}

/// Appends the first `n` booleans of a PLAIN BOOLEAN page to an Arrow-style LSB-first bitmap
/// `bits` of `*bit_len` bits (its bytes past `ceil(*bit_len / 8)` are dropped, the padding bits
/// of its last byte must be 0), advancing `*bit_len` by `n`; returns the bytes of `data`
/// consumed (`ceil(n / 8)`). PLAIN BOOLEAN is Arrow's layout: a byte copy when `*bit_len` is a
/// multiple of 8, else a shift by its remainder. The padding bits of the new last byte are 0.
///
/// # Errors
/// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer bits; `bits`
/// and `*bit_len` are then left untouched.
pub fn decode_booleans_to_bits(
    data: &[u8],
    n: usize,
    bits: &mut Vec<u8>,
    bit_len: &mut usize,
) -> Result<usize, ParquetError> {
    let need = n.div_ceil(8);
    if need > data.len() {
        return Err(ParquetError::truncated(
            ENCODING,
            format!(
                "{n} booleans need {need} bytes, but the data holds {}",
                data.len()
            ),
        ));
    }
    let src = &data[..need];
    let shift = *bit_len % 8;
    bits.truncate(bit_len.div_ceil(8));
    if shift == 0 {
        bits.extend_from_slice(src);
    } else {
        // The last byte's free high bits take the first bits of `src`.
        let last = bits.len() - 1;
        let mut carry = bits[last];
        bits.truncate(last);
        bits.reserve(need + 1);
        for &byte in src {
            bits.push(carry | (byte << shift));
            carry = byte >> (8 - shift);
        }
        bits.push(carry);
    }
    *bit_len += n;
    bits.truncate(bit_len.div_ceil(8));
    if !bit_len.is_multiple_of(8) {
        if let Some(last) = bits.last_mut() {
            *last &= (1u8 << (*bit_len % 8)) - 1;
        }
    }
    Ok(need)
}

/// Appends the PLAIN encoding of `values` (one bit each, LSB first, the last byte's padding
/// bits 0) to `out`.
pub fn encode_booleans(values: &[bool], out: &mut Vec<u8>) {
    out.reserve(values.len().div_ceil(8));
    for chunk in values.chunks(8) {
        let byte = chunk
            .iter()
            .enumerate()
            .fold(0u8, |byte, (k, &value)| byte | (u8::from(value) << k));
        out.push(byte);
    }
}

/// The incremental decoder of a PLAIN BOOLEAN page.
#[derive(Clone, Debug)]
pub struct PlainBooleanDecoder<'a> {
    data: &'a [u8],
    /// Booleans already decoded or skipped (the next one's bit index).
    position: usize,
    num_values: usize,
}

impl<'a> PlainBooleanDecoder<'a> {
    /// A decoder of the first `num_values` booleans of `data`.
    ///
    /// # Errors
    /// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer than
    /// `ceil(num_values / 8)` bytes.
    pub fn new(data: &'a [u8], num_values: usize) -> Result<Self, ParquetError> {
        let need = num_values.div_ceil(8);
        if need > data.len() {
            return Err(ParquetError::truncated(
                ENCODING,
                format!(
                    "{num_values} booleans need {need} bytes, but the data holds {}",
                    data.len()
                ),
            ));
        }
        Ok(PlainBooleanDecoder {
            data: &data[..need],
            position: 0,
            num_values,
        })
    }
}

impl ValueDecoder for PlainBooleanDecoder<'_> {
    type Value = bool;

    fn remaining(&self) -> usize {
        self.num_values - self.position
    }

    fn next_batch(&mut self, out: &mut [bool]) -> Result<usize, ParquetError> {
        let count = out.len().min(self.remaining());
        read_bits(self.data, self.position, &mut out[..count]);
        self.position += count;
        Ok(count)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let count = n.min(self.remaining());
        self.position += count;
        Ok(count)
    }
}

/// The incremental decoder of a PLAIN BYTE_ARRAY page.
#[derive(Clone, Debug)]
pub struct PlainByteArrayDecoder<'a> {
    data: &'a [u8],
    /// Byte offset of the next value's length.
    offset: usize,
    /// Values already decoded or skipped (the next one's index, for errors).
    position: usize,
    num_values: usize,
}

impl<'a> PlainByteArrayDecoder<'a> {
    /// A decoder of the first `num_values` byte arrays of `data`.
    ///
    /// # Errors
    /// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` cannot hold even the
    /// `num_values` 4-byte lengths. Lengths that run past the data are found (and reported
    /// with the value's index) when that value is decoded or skipped.
    pub fn new(data: &'a [u8], num_values: usize) -> Result<Self, ParquetError> {
        check_len(num_values, 4, "byte array lengths", data.len())?;
        Ok(PlainByteArrayDecoder {
            data,
            offset: 0,
            position: 0,
            num_values,
        })
    }

    /// The length of value `index`, whose 4-byte length is at byte `offset`, checked against
    /// the data.
    #[inline(always)]
    fn length_at(&self, offset: usize, index: usize) -> Result<usize, ParquetError> {
        prefetch_ahead(self.data, offset);
        let avail = self.data.len() - offset;
        let Some(prefix) = self.data.get(offset..offset + 4) else {
            return Err(ParquetError::truncated(
                ENCODING,
                format!(
                    "BYTE_ARRAY value {index}: its 4-byte length at byte {offset} is cut \
                     short ({avail} bytes left)"
                ),
            ));
        };
        let len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]) as usize;
        if len > avail - 4 {
            return Err(ParquetError::truncated(
                ENCODING,
                format!(
                    "BYTE_ARRAY value {index} has length {len} at byte {offset}, but only {} \
                     bytes follow",
                    avail - 4
                ),
            ));
        }
        Ok(len)
    }

    /// Walks over the next `count` values, checking each length against the data; returns
    /// the offset after them and their bytes in all.
    fn scan(&self, count: usize) -> Result<(usize, usize), ParquetError> {
        let mut offset = self.offset;
        let mut total = 0usize;
        for index in self.position..self.position + count {
            let len = self.length_at(offset, index)?;
            offset += 4 + len;
            total += len;
        }
        Ok((offset, total))
    }

    /// Appends the next `count` values to `out` in one walk, checking each as it copies it:
    /// their bytes are at most `bound` (which fits Arrow's offsets after `out`'s), the room
    /// `out` takes, zeroed, and gives back after. The values are copied a chunk at a time
    /// (what a chunk writes past its value, the next values overwrite): a call to `memcpy`
    /// for each value, most of them a few dozen bytes, took longer than the copying. On an
    /// error `out` is left as it was.
    fn copy_walk(
        &mut self,
        out: &mut ByteArrays,
        count: usize,
        bound: usize,
    ) -> Result<usize, ParquetError> {
        let (base, offsets) = (out.values.len(), out.offsets.len());
        out.values.resize(base + bound, 0);
        out.offsets.reserve(count);
        let mut to = base;
        let mut offset = self.offset;
        for index in self.position..self.position + count {
            let len = match self.length_at(offset, index) {
                Ok(len) if to + len <= base + bound => len,
                walked => {
                    out.values.truncate(base);
                    out.offsets.truncate(offsets);
                    // A value past `bound` leaves too few bytes for the lengths after it:
                    // the checking walk names the one cut short.
                    let error = walked.err().or_else(|| self.scan(count).err());
                    return Err(error.unwrap_or_else(|| {
                        ParquetError::truncated(
                            ENCODING,
                            format!(
                                "BYTE_ARRAY value {index} at byte {offset}: the values after \
                                 it are cut short"
                            ),
                        )
                    }));
                }
            };
            copy_value(self.data, offset + 4, len, &mut out.values, to);
            to += len;
            // Cannot overflow: `base + bound` was checked to.
            out.offsets.push(to as i32);
            offset += 4 + len;
        }
        out.values.truncate(to);
        self.offset = offset;
        self.position += count;
        Ok(count)
    }
}

/// The bytes [`copy_value`] copies at a time.
const COPY_CHUNK: usize = 32;

/// Copies `src[from..from + len]` to `dst[to..]`: a value of up to two [`COPY_CHUNK`]s in
/// whole chunks where `src` and `dst` have them (the bytes written past the value are
/// `dst`'s next ones, left for the next values to overwrite), the others exactly.
#[inline(always)]
fn copy_value(src: &[u8], from: usize, len: usize, dst: &mut [u8], to: usize) {
    if len <= 2 * COPY_CHUNK {
        if let (Some(from), Some(to)) = (
            src.get(from..from + 2 * COPY_CHUNK),
            dst.get_mut(to..to + 2 * COPY_CHUNK),
        ) {
            let (from_first, from_second) = from.split_at(COPY_CHUNK);
            let (to_first, to_second) = to.split_at_mut(COPY_CHUNK);
            to_first.copy_from_slice(from_first);
            if len > COPY_CHUNK {
                to_second.copy_from_slice(from_second);
            }
            return;
        }
    }
    dst[to..to + len].copy_from_slice(&src[from..from + len]);
}

impl ByteArrayDecoder for PlainByteArrayDecoder<'_> {
    fn remaining(&self) -> usize {
        self.num_values - self.position
    }

    fn next_batch(&mut self, out: &mut ByteArrays, max: usize) -> Result<usize, ParquetError> {
        let count = max.min(self.remaining());
        // Every value left (a page's, decoded whole): one walk, copying as it checks, into
        // room for what the data left can hold.
        let bound = (self.data.len() - self.offset).saturating_sub(count.saturating_mul(4));
        if count == self.remaining() && arrow_offset(out.values.len() + bound).is_ok() {
            return self.copy_walk(out, count, bound);
        }
        // Fewer: checked first, so that `out` takes room for their bytes alone.
        let (_, total) = self.scan(count)?;
        arrow_offset(out.values.len() + total)?;
        self.copy_walk(out, count, total)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let count = n.min(self.remaining());
        let (end, _) = self.scan(count)?;
        self.offset = end;
        self.position += count;
        Ok(count)
    }
}

/// Appends the PLAIN encoding of byte arrays (each a 4-byte little-endian length, then its
/// bytes) to `out`.
///
/// # Errors
/// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) for a value of more than
/// `u32::MAX` bytes (`out` then holds the values before it).
pub fn encode_byte_arrays<'v, I: IntoIterator<Item = &'v [u8]>>(
    values: I,
    out: &mut Vec<u8>,
) -> Result<(), ParquetError> {
    for (index, value) in values.into_iter().enumerate() {
        let len = u32::try_from(value.len()).map_err(|_| {
            ParquetError::invalid_argument(
                ENCODING,
                format!(
                    "BYTE_ARRAY value {index} has {} bytes, more than a 4-byte length holds",
                    value.len()
                ),
            )
        })?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(value);
    }
    Ok(())
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

/// The incremental decoder of a PLAIN FIXED_LEN_BYTE_ARRAY page.
#[derive(Clone, Debug)]
pub struct PlainFixedLenDecoder<'a> {
    /// The page's values, exactly `num_values * type_length` bytes.
    data: &'a [u8],
    type_length: usize,
    position: usize,
    num_values: usize,
}

impl<'a> PlainFixedLenDecoder<'a> {
    /// A decoder of the first `num_values` values of `type_length` bytes in `data`.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) for a `type_length`
    /// of 0; [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` holds fewer
    /// than `num_values` values.
    pub fn new(
        data: &'a [u8],
        type_length: usize,
        num_values: usize,
    ) -> Result<Self, ParquetError> {
        check_type_length(type_length)?;
        let need = check_len(
            num_values,
            type_length,
            "FIXED_LEN_BYTE_ARRAY values",
            data.len(),
        )?;
        Ok(PlainFixedLenDecoder {
            data: &data[..need],
            type_length,
            position: 0,
            num_values,
        })
    }
}

impl ByteArrayDecoder for PlainFixedLenDecoder<'_> {
    fn remaining(&self) -> usize {
        self.num_values - self.position
    }

    fn next_batch(&mut self, out: &mut ByteArrays, max: usize) -> Result<usize, ParquetError> {
        let count = max.min(self.remaining());
        let k = self.type_length;
        let base = out.values.len();
        arrow_offset(base + count * k)?;
        let start = self.position * k;
        out.values
            .extend_from_slice(&self.data[start..start + count * k]);
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

/// Appends the PLAIN encoding of FIXED_LEN_BYTE_ARRAY values (their bytes back to back) to
/// `out`.
///
/// # Errors
/// [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument) for a `type_length` of 0
/// or a value of another length (`out` then holds the values before it).
pub fn encode_fixed_len<'v, I: IntoIterator<Item = &'v [u8]>>(
    values: I,
    type_length: usize,
    out: &mut Vec<u8>,
) -> Result<(), ParquetError> {
    check_type_length(type_length)?;
    for (index, value) in values.into_iter().enumerate() {
        if value.len() != type_length {
            return Err(ParquetError::invalid_argument(
                ENCODING,
                format!(
                    "FIXED_LEN_BYTE_ARRAY value {index} has {} bytes, the column's length is \
                     {type_length}",
                    value.len()
                ),
            ));
        }
        out.extend_from_slice(value);
    }
    Ok(())
}
