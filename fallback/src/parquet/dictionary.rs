//! PLAIN_DICTIONARY (2) and RLE_DICTIONARY (8): a data page of indices into the column chunk's
//! dictionary (whose page is PLAIN): one bit-width byte (0..=32), then the indices as an
//! RLE/bit-packing hybrid stream ([`super::hybrid`]).
//!
//! Decoding is fused with the gather: indices are unpacked 256 at a time
//! into a stack buffer, checked against the dictionary's length with one comparison of their
//! maximum, and gathered (AVX2 `vpgatherdd`/`vpgatherdq` for 4- and 8-byte values on the AVX2
//! and AVX-512 tiers, see `kernels::encodings`); an RLE run is one check and a fill of its entry. An index at or past
//! the dictionary's length is [`ErrorKind::IndexOutOfRange`]; the values before it in the
//! batch may have been written.

use std::collections::HashMap;

use super::hybrid::{unpack_chunks, HybridDecoder, Sink, CHUNK};
use super::util::{arrow_offset, as_uninit_words_mut, as_words, as_words_mut};
use super::{ByteArrayDecoder, ByteArrays, ErrorKind, FixedWidth, ParquetError, ValueDecoder};
use crate::kernels::encodings::{gather_u32, gather_u64, max_u32, portable};
use crate::unpack::BitWidth;

const ENCODING: &str = "RLE_DICTIONARY";

fn out_of_range(index: u32, position: usize, dictionary_len: usize) -> ParquetError {
    ParquetError::new(
        ENCODING,
        ErrorKind::IndexOutOfRange,
        format!(
            "index {index} at position {position} is past the dictionary's {dictionary_len} entries"
        ),
    )
}

/// The first index of `indices` at or past `len`, as an error at page position `base + i`.
#[cold]
#[inline(never)]
fn first_out_of_range(indices: &[u32], len: usize, base: usize) -> ParquetError {
    let i = indices.iter().position(|&x| x as usize >= len).unwrap_or(0);
    out_of_range(indices.get(i).copied().unwrap_or(0), base + i, len)
}

/// Gathers `dictionary[indices[i]]` into `out[i]` after one check of the indices' maximum:
/// the first index past the dictionary is an error (positions from `base`), nothing written.
#[inline]
fn gather_checked<T: FixedWidth>(
    indices: &[u32],
    dictionary: &[T],
    out: &mut [T],
    base: usize,
) -> Result<(), ParquetError> {
    let len = dictionary.len();
    if indices.is_empty() {
        return Ok(());
    }
    if largest_index(indices) as usize >= len {
        return Err(first_out_of_range(indices, len, base));
    }
    gather_values(indices, dictionary, out);
    Ok(())
}

/// The largest of `indices` (0 for none), by the chosen tier's kernel: the one check a run
/// of dictionary indices needs before [`gather_clamped`].
#[inline]
pub fn largest_index(indices: &[u32]) -> u32 {
    max_u32(indices)
}

/// `out[i] = dictionary[indices[i]]` for `min(indices.len(), out.len())` values, for indices
/// the caller checked (with [`largest_index`]): an index past the dictionary yields its last
/// entry, never a read outside it, and an empty dictionary writes nothing. [`gather`] checks
/// them itself.
#[inline]
pub fn gather_clamped<T: FixedWidth>(indices: &[u32], dictionary: &[T], out: &mut [T]) {
    let n = indices.len().min(out.len());
    gather_values(&indices[..n], dictionary, &mut out[..n]);
}

/// Appends `dictionary[indices[i]]` for each of `indices` to `out`, for indices the caller
/// checked (as [`gather_clamped`]; an empty dictionary appends `T::default()`s): the gather
/// kernels write straight into `out`'s spare room, which is not zeroed first (a `resize`
/// before [`gather_clamped`] stores every value twice).
pub fn gather_clamped_append<T: FixedWidth>(indices: &[u32], dictionary: &[T], out: &mut Vec<T>) {
    let n = indices.len();
    if dictionary.is_empty() {
        out.resize(out.len() + n, T::default());
        return;
    }
    out.reserve(n);
    let spare = &mut out.spare_capacity_mut()[..n];
    let words = match T::SIZE {
        4 => as_words::<T, u32>(dictionary)
            .zip(as_uninit_words_mut::<T, u32>(spare))
            .map(|(d, o)| gather_u32(indices, d, o)),
        8 => as_words::<T, u64>(dictionary)
            .zip(as_uninit_words_mut::<T, u64>(spare))
            .map(|(d, o)| gather_u64(indices, d, o)),
        _ => None,
    };
    if words.is_none() {
        portable::gather(indices, dictionary, &mut out.spare_capacity_mut()[..n]);
    }
    // SAFETY: each gather above writes all `n` slots after `out.len()` (`n` indices, `n`
    // slots, a non-empty dictionary: every index, clamped, has an entry), which `reserve` made
    // room for.
    unsafe { out.set_len(out.len() + n) };
}

/// `out[i] = dictionary[indices[i]]`, every index checked: 4- and 8-byte primitives as words
/// through the gather kernels of the chosen tier, other types by the portable loop.
#[inline]
fn gather_values<T: FixedWidth>(indices: &[u32], dictionary: &[T], out: &mut [T]) {
    if T::SIZE == 4 {
        if let (Some(d), Some(o)) = (as_words::<T, u32>(dictionary), as_words_mut::<T, u32>(out)) {
            return gather_u32(indices, d, o);
        }
    } else if T::SIZE == 8 {
        if let (Some(d), Some(o)) = (as_words::<T, u64>(dictionary), as_words_mut::<T, u64>(out)) {
            return gather_u64(indices, d, o);
        }
    }
    portable::gather(indices, dictionary, out);
}

/// Gathers a whole stream's values: positions are the page's (`base` plus the batch's).
struct GatherSink<'o, 'd, 's, T> {
    dictionary: &'d [T],
    out: &'o mut [T],
    base: usize,
    scratch: &'s mut [u32; CHUNK],
}

impl<T: FixedWidth> Sink for GatherSink<'_, '_, '_, T> {
    #[inline]
    fn fill(&mut self, at: usize, value: u32, count: usize) -> Result<(), ParquetError> {
        let Some(&entry) = self.dictionary.get(value as usize) else {
            return Err(out_of_range(value, self.base + at, self.dictionary.len()));
        };
        self.out[at..at + count].fill(entry);
        Ok(())
    }

    #[inline]
    fn values(&mut self, at: usize, values: &[u32]) -> Result<(), ParquetError> {
        gather_checked(
            values,
            self.dictionary,
            &mut self.out[at..at + values.len()],
            self.base + at,
        )
    }

    #[inline]
    fn packed(
        &mut self,
        at: usize,
        width: BitWidth,
        src: &[u8],
        count: usize,
    ) -> Result<(), ParquetError> {
        let (dictionary, base) = (self.dictionary, self.base + at);
        let out = &mut self.out[at..at + count];
        unpack_chunks(self.scratch, width, src, count, |offset, indices| {
            let chunk = &mut out[offset..offset + indices.len()];
            gather_checked(indices, dictionary, chunk, base + offset)
        })
    }
}

/// The incremental decoder of a dictionary-encoded page of fixed-size values.
#[derive(Clone, Debug)]
pub struct DictionaryDecoder<'a, 'd, T: FixedWidth> {
    indices: HybridDecoder<'a>,
    dictionary: &'d [T],
    /// 1 for the width byte, 0 for an empty page without one.
    width_bytes: usize,
    /// Indices of bit-packed runs are unpacked here, then gathered.
    scratch: [u32; CHUNK],
}

impl<'a, 'd, T: FixedWidth> DictionaryDecoder<'a, 'd, T> {
    /// A decoder of the `num_values` values of the data page `data` (width byte, then the
    /// indices) over `dictionary`. A width byte above 32 is [`ErrorKind::Corrupt`]; a width
    /// wider than the dictionary needs is accepted (indices are checked one by one).
    pub fn new(
        data: &'a [u8],
        dictionary: &'d [T],
        num_values: usize,
    ) -> Result<Self, ParquetError> {
        Ok(DictionaryDecoder {
            indices: HybridDecoder::with_width_byte(data, num_values).map_err(renamed)?,
            dictionary,
            width_bytes: usize::from(!data.is_empty()),
            scratch: [0; CHUNK],
        })
    }

    /// Bytes of the page read so far, the width byte included.
    pub fn bytes_read(&self) -> usize {
        self.width_bytes + self.indices.bytes_read()
    }
}

fn renamed(e: ParquetError) -> ParquetError {
    ParquetError {
        encoding: ENCODING,
        ..e
    }
}

impl<T: FixedWidth> ValueDecoder for DictionaryDecoder<'_, '_, T> {
    type Value = T;

    fn remaining(&self) -> usize {
        self.indices.remaining()
    }

    fn next_batch(&mut self, out: &mut [T]) -> Result<usize, ParquetError> {
        let n = out.len().min(self.indices.remaining());
        let mut sink = GatherSink {
            dictionary: self.dictionary,
            out: &mut out[..n],
            base: self.indices.position(),
            scratch: &mut self.scratch,
        };
        self.indices.drive(n, &mut sink).map_err(renamed)?;
        Ok(n)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        // Skipped indices are not checked against the dictionary: nothing is read through them.
        self.indices.skip(n).map_err(renamed)
    }
}

/// Decodes the dictionary-encoded data page `data` into `out` (`out.len()` values): the bytes
/// read, the width byte included.
pub fn decode<T: FixedWidth>(
    data: &[u8],
    dictionary: &[T],
    out: &mut [T],
) -> Result<usize, ParquetError> {
    let mut decoder = DictionaryDecoder::new(data, dictionary, out.len())?;
    decoder.next_batch(out)?;
    Ok(decoder.bytes_read())
}

/// `out[i] = dictionary[indices[i]]` for indices decoded elsewhere (the accelerator);
/// `out.len()` must equal `indices.len()` ([`ErrorKind::InvalidArgument`] otherwise).
pub fn gather<T: FixedWidth>(
    indices: &[u32],
    dictionary: &[T],
    out: &mut [T],
) -> Result<(), ParquetError> {
    if out.len() != indices.len() {
        return Err(ParquetError::invalid_argument(
            ENCODING,
            format!(
                "{} indices but room for {} values",
                indices.len(),
                out.len()
            ),
        ));
    }
    for (c, (idx, o)) in indices.chunks(CHUNK).zip(out.chunks_mut(CHUNK)).enumerate() {
        gather_checked(idx, dictionary, o, c * CHUNK)?;
    }
    Ok(())
}

/// Appends `dictionary[indices[i]]` for each index to `out`.
pub fn gather_byte_arrays(
    indices: &[u32],
    dictionary: &ByteArrays,
    out: &mut ByteArrays,
) -> Result<(), ParquetError> {
    gather_byte_arrays_from(indices, dictionary, out, 0)
}

fn gather_byte_arrays_from(
    indices: &[u32],
    dictionary: &ByteArrays,
    out: &mut ByteArrays,
    base: usize,
) -> Result<(), ParquetError> {
    let len = dictionary.len();
    let max = largest_index(indices);
    if indices.is_empty() {
        return Ok(());
    }
    if max as usize >= len {
        return Err(first_out_of_range(indices, len, base));
    }
    // The table costs a few KB of set-up: worth it for a batch's values, not for a short run.
    if indices.len() >= SHORT_ENTRIES {
        if let Some(table) = ShortEntries::of(dictionary) {
            return table.gather(indices, out);
        }
    }
    let offsets = &dictionary.offsets;
    let start = out.values.len();
    // The bytes to copy, checked once against Arrow's 32-bit offsets, and the longest value;
    // then each value copied and its offset written.
    let (mut total, mut longest) = (0, 0);
    for &index in indices {
        let len = entry_len(offsets, index as usize);
        total += len;
        longest = longest.max(len);
    }
    arrow_offset(start.saturating_add(total))?;
    // Values of up to 16 bytes (most short strings) take one vector move each, up to 32 two.
    if longest <= 16 {
        copy_values::<16>(indices, dictionary, out, total);
    } else {
        copy_values::<32>(indices, dictionary, out, total);
    }
    Ok(())
}

/// The length of entry `i` of a dictionary with `offsets` (0 where they decrease).
#[inline(always)]
fn entry_len(offsets: &[i32], i: usize) -> usize {
    (i64::from(offsets[i + 1]) - i64::from(offsets[i])).max(0) as usize
}

/// The most entries a dictionary [`ShortEntries`] holds (indices below it are masked to it).
const SHORT_ENTRIES: usize = 256;

/// The entries of a dictionary of at most [`SHORT_ENTRIES`] entries of at most 16 bytes
/// (flags, codes, modes: TPC-H's `l_returnflag`, `l_shipmode`), each in 16 bytes padded with
/// zeros, and their lengths: a gather stores an entry's 16 bytes and moves by its length,
/// with no offsets to read nor case for the dictionary's end (lineitem SF 0.1 written by
/// pyarrow, read as Utf8: `l_returnflag` 2.2 -> 1.5 ms, `l_shipmode` 1.8 -> 1.0 ms).
struct ShortEntries {
    chunks: [[u8; 16]; SHORT_ENTRIES],
    lens: [u32; SHORT_ENTRIES],
}

impl ShortEntries {
    /// The table of `dictionary`, or `None` when it has more entries or a longer one.
    fn of(dictionary: &ByteArrays) -> Option<ShortEntries> {
        let entries = dictionary.len();
        if entries > SHORT_ENTRIES {
            return None;
        }
        let offsets = &dictionary.offsets;
        // On the stack (5 KB): a read's peak heap stays what its batches take.
        let mut table = ShortEntries {
            chunks: [[0; 16]; SHORT_ENTRIES],
            lens: [0; SHORT_ENTRIES],
        };
        for i in 0..entries {
            let n = entry_len(offsets, i);
            if n > 16 {
                return None;
            }
            let from = offsets[i].max(0) as usize;
            table.chunks[i][..n].copy_from_slice(&dictionary.values[from..from + n]);
            table.lens[i] = n as u32;
        }
        Some(table)
    }

    /// Appends the entries of `indices` (each below the dictionary's length: checked by the
    /// caller) to `out`.
    fn gather(&self, indices: &[u32], out: &mut ByteArrays) -> Result<(), ParquetError> {
        let entry = |index: u32| index as usize % SHORT_ENTRIES;
        let start = out.values.len();
        let total: usize = indices.iter().map(|&i| self.lens[entry(i)] as usize).sum();
        arrow_offset(start.saturating_add(total))?;
        out.values.reserve(total + 16);
        out.offsets.reserve(indices.len());
        let room = &mut out.values.spare_capacity_mut()[..total + 16];
        let ends = &mut out.offsets.spare_capacity_mut()[..indices.len()];
        let mut at = 0;
        for (&index, end) in indices.iter().zip(ends.iter_mut()) {
            let i = entry(index);
            // `at` is at most `total` (the lengths add up to it), so the 16 bytes fit: each
            // value's bytes are followed by its padding, which the next value overwrites.
            for (to, &byte) in room[at..at + 16].iter_mut().zip(&self.chunks[i]) {
                to.write(byte);
            }
            at += self.lens[i] as usize;
            // At most `start + total`, checked to fit an i32 above.
            end.write((start + at) as i32);
        }
        assert_eq!(at, total, "the values' lengths add up to the total");
        // SAFETY: every byte of `start..start + total` was written above (each value's 16
        // bytes from where it starts cover it, the values back to back up to `total`,
        // asserted); the capacity holds `start + total` (reserved above).
        unsafe { out.values.set_len(start + total) };
        let offsets_len = out.offsets.len() + indices.len();
        // SAFETY: the loop wrote each of the `indices.len()` entries of spare capacity after
        // the offsets (one a value, `zip` with `ends`, which holds as many).
        unsafe { out.offsets.set_len(offsets_len) };
        Ok(())
    }
}

/// The dictionaries whose bytes [`copy_values`] copies with padding after them (for 64
/// values or more): this many bytes at most (a copy that costs less than a few `memcpy`
/// calls).
const PADDED_DICTIONARY_BYTES: usize = 4096;

/// Appends the entries of `indices`, `total` bytes (their lengths' sum), to `out`.
///
/// Entries of up to COPY bytes are copied as COPY bytes (a fixed-size copy, one or two vector
/// moves, instead of a `memcpy` call a value), into COPY bytes of slack past the end that are
/// never made part of the values; longer ones, and those within COPY bytes of the
/// dictionary's end, exactly.
#[inline(always)]
fn copy_values<const COPY: usize>(
    indices: &[u32],
    dictionary: &ByteArrays,
    out: &mut ByteArrays,
    total: usize,
) {
    let offsets = &dictionary.offsets;
    // A small dictionary's bytes are copied with COPY bytes after them, so that its last
    // entries take the fixed-size copy too: in a dictionary of a few short entries (TPC-H's
    // `l_returnflag`, three of one byte) every entry is within COPY bytes of the end, and
    // each value was a `memcpy` call (`l_shipmode` to Utf8 at 0.68x arrow-rs's speed).
    let padded: Vec<u8>;
    let bytes = if dictionary.values.len() <= PADDED_DICTIONARY_BYTES && indices.len() >= 64 {
        padded = [&dictionary.values[..], &[0; COPY]].concat();
        &padded
    } else {
        &dictionary.values
    };
    let start = out.values.len();
    out.values.reserve(total + COPY);
    let room = &mut out.values.spare_capacity_mut()[..total + COPY];
    let room_len = room.len();
    let to = room.as_mut_ptr().cast::<u8>();
    // The last entry start from which COPY bytes can be read (none in a shorter dictionary).
    let last_whole_copy = bytes.len().checked_sub(COPY);
    // Where the next value goes in `room`.
    let mut at = 0;
    // The offsets go to spare capacity too, set once at the end (a `push` a value stores and
    // reloads the Vec's length).
    out.offsets.reserve(indices.len());
    let ends = &mut out.offsets.spare_capacity_mut()[..indices.len()];
    for (&index, end) in indices.iter().zip(ends.iter_mut()) {
        let i = index as usize;
        let n = entry_len(offsets, i);
        let from = offsets[i].max(0) as usize;
        match last_whole_copy {
            Some(last) if n <= COPY && from <= last && at + COPY <= room_len => {
                // SAFETY: `from + COPY <= bytes.len()` (`last`) and `at + COPY <= room_len`
                // (both checked); `room` is spare capacity, apart from `bytes`. An unaligned
                // load and store of a [u8; COPY], not `copy_nonoverlapping`: LLVM merged that
                // with the other arm into one `memcpy` call of either length, a call a value.
                unsafe {
                    let chunk =
                        std::ptr::read_unaligned(bytes.as_ptr().add(from).cast::<[u8; COPY]>());
                    std::ptr::write_unaligned(to.add(at).cast::<[u8; COPY]>(), chunk);
                }
            }
            _ => {
                let value = &bytes[from..from + n];
                assert!(at + n <= room_len, "a value past the room reserved");
                // SAFETY: `value` holds `n` bytes, and `room` from `at` too (asserted);
                // `room` is spare capacity, apart from `bytes`.
                unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), to.add(at), n) };
            }
        }
        at += n;
        // At most `start + total`, checked to fit an i32 by the caller.
        end.write((start + at) as i32);
    }
    assert_eq!(at, total, "the values' lengths add up to the total");
    // SAFETY: every byte of `start..start + total` was written above: the values are back to
    // back from `start` (`at` moves by each one's length, to `total` after the last,
    // asserted), each written whole (its entry, or COPY bytes that cover it); the capacity
    // holds `start + total` (reserved above).
    unsafe { out.values.set_len(start + total) };
    let offsets_len = out.offsets.len() + indices.len();
    // SAFETY: the loop above wrote each of the `indices.len()` entries of spare capacity
    // after the offsets (one a value, `zip` with `ends`, which holds as many).
    unsafe { out.offsets.set_len(offsets_len) };
}

/// Appends a stream's byte arrays to `out` in stream order; positions are the page's.
struct ByteGatherSink<'o, 'd, 's> {
    dictionary: &'d ByteArrays,
    out: &'o mut ByteArrays,
    base: usize,
    scratch: &'s mut [u32; CHUNK],
}

impl Sink for ByteGatherSink<'_, '_, '_> {
    fn fill(&mut self, at: usize, value: u32, count: usize) -> Result<(), ParquetError> {
        let len = self.dictionary.len();
        if value as usize >= len {
            return Err(out_of_range(value, self.base + at, len));
        }
        let entry = self.dictionary.get(value as usize);
        for _ in 0..count {
            self.out.push(entry)?;
        }
        Ok(())
    }

    fn values(&mut self, at: usize, values: &[u32]) -> Result<(), ParquetError> {
        gather_byte_arrays_from(values, self.dictionary, self.out, self.base + at)
    }

    fn packed(
        &mut self,
        at: usize,
        width: BitWidth,
        src: &[u8],
        count: usize,
    ) -> Result<(), ParquetError> {
        let (dictionary, base, out) = (self.dictionary, self.base + at, &mut *self.out);
        unpack_chunks(self.scratch, width, src, count, |offset, indices| {
            gather_byte_arrays_from(indices, dictionary, out, base + offset)
        })
    }
}

/// The incremental decoder of a dictionary-encoded page of byte arrays (BYTE_ARRAY,
/// FIXED_LEN_BYTE_ARRAY), appending to a caller's [`ByteArrays`].
#[derive(Clone, Debug)]
pub struct DictionaryByteArrayDecoder<'a, 'd> {
    indices: HybridDecoder<'a>,
    dictionary: &'d ByteArrays,
    /// Indices decoded a chunk at a time, then their values appended.
    scratch: [u32; CHUNK],
}

impl<'a, 'd> DictionaryByteArrayDecoder<'a, 'd> {
    /// A decoder of the `num_values` values of the data page `data` over `dictionary`.
    pub fn new(
        data: &'a [u8],
        dictionary: &'d ByteArrays,
        num_values: usize,
    ) -> Result<Self, ParquetError> {
        Ok(DictionaryByteArrayDecoder {
            indices: HybridDecoder::with_width_byte(data, num_values).map_err(renamed)?,
            dictionary,
            scratch: [0; CHUNK],
        })
    }
}

impl ByteArrayDecoder for DictionaryByteArrayDecoder<'_, '_> {
    fn remaining(&self) -> usize {
        self.indices.remaining()
    }

    fn next_batch(&mut self, out: &mut ByteArrays, max: usize) -> Result<usize, ParquetError> {
        let n = max.min(self.indices.remaining());
        // Run by run, as the fixed-width decoder does: an index past the dictionary is reported
        // before a later run is opened, so the error does not depend on the batch size.
        let mut sink = ByteGatherSink {
            dictionary: self.dictionary,
            out,
            base: self.indices.position(),
            scratch: &mut self.scratch,
        };
        self.indices.drive(n, &mut sink).map_err(renamed)?;
        Ok(n)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        self.indices.skip(n).map_err(renamed)
    }
}

/// The distinct values of `values` by bit pattern (so `-0.0` and `0.0`, or two NaNs of
/// different payloads, are distinct) in order of first occurrence, and each value's index.
pub fn build_dictionary<T: FixedWidth>(values: &[T]) -> (Vec<T>, Vec<u32>) {
    let mut positions: HashMap<u128, u32> = HashMap::new();
    let mut dictionary = Vec::new();
    let indices = values
        .iter()
        .map(|&v| {
            let mut bytes = [0u8; 16];
            v.write_le(&mut bytes);
            *positions
                .entry(u128::from_le_bytes(bytes))
                .or_insert_with(|| {
                    dictionary.push(v);
                    (dictionary.len() - 1) as u32
                })
        })
        .collect();
    (dictionary, indices)
}

/// The distinct byte arrays of `values` in order of first occurrence, and each value's index.
///
/// # Panics
/// When the distinct values pass 2 GiB in all (Arrow's 32-bit offsets).
pub fn build_byte_array_dictionary<'v, I: IntoIterator<Item = &'v [u8]>>(
    values: I,
) -> (ByteArrays, Vec<u32>) {
    let mut positions: HashMap<&'v [u8], u32> = HashMap::new();
    let mut dictionary = ByteArrays::new();
    let indices = values
        .into_iter()
        .map(|v| {
            *positions.entry(v).or_insert_with(|| {
                dictionary
                    .push(v)
                    .expect("distinct byte arrays under 2 GiB");
                (dictionary.len() - 1) as u32
            })
        })
        .collect();
    (dictionary, indices)
}

/// Bits needed for indices into a dictionary of `dictionary_len` entries: those of
/// `dictionary_len - 1`, 0 for one entry (or none).
pub fn index_bit_width(dictionary_len: usize) -> u32 {
    usize::BITS - dictionary_len.saturating_sub(1).leading_zeros()
}

/// Appends a data page of `indices` into a dictionary of `dictionary_len` entries: the width
/// byte ([`index_bit_width`]), then the hybrid stream. An index at or past `dictionary_len`, or
/// a dictionary of more than 2^32 entries, is [`ErrorKind::InvalidArgument`].
pub fn encode_indices(
    indices: &[u32],
    dictionary_len: usize,
    out: &mut Vec<u8>,
) -> Result<(), ParquetError> {
    let width = index_bit_width(dictionary_len);
    if width > 32 {
        return Err(ParquetError::invalid_argument(
            ENCODING,
            format!("a dictionary of {dictionary_len} entries needs indices above 32 bits"),
        ));
    }
    if let Some(i) = indices.iter().position(|&x| x as usize >= dictionary_len) {
        return Err(ParquetError::invalid_argument(
            ENCODING,
            format!(
                "index {} at position {i} is past the dictionary's {dictionary_len} entries",
                indices[i]
            ),
        ));
    }
    let start = out.len();
    out.push(width as u8);
    if let Err(e) = super::hybrid::encode(indices, width, out) {
        out.truncate(start);
        return Err(renamed(e));
    }
    Ok(())
}
