//! GroupVarInt (no encoding number yet): INT32 in groups of 4 after 1 control byte, INT64 in
//! groups of 5 after 2 control bytes; each int stored in its minimal number of little-endian
//! bytes (the two's-complement bit pattern, so negative values take all 4 or 8 bytes).
//!
//! - INT32: the control byte holds four 2-bit fields, byte length − 1; the first int's field
//!   is the two most significant bits (`0b00_10_11_01`: lengths 1, 3, 4, 2).
//! - INT64: the two control bytes are one 16-bit little-endian word holding five 3-bit fields,
//!   byte length − 1: the first int's in bits 14..12, then 11..9, 8..6, 5..3, 2..0. Bit 15 is
//!   unused and must be 0: a decoder finding it set reports
//!   [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt).
//! - An incomplete last group is padded with zeros by the encoder. The decoder takes the
//!   page's value count from the caller, requires every group it reads to be complete
//!   ([`ErrorKind::Truncated`](super::ErrorKind::Truncated) otherwise) and ignores the padding
//!   values, whatever they are (like DELTA_BINARY_PACKED's padding, readers accept arbitrary
//!   padding).
//!
//! INT32 decoding goes through a 256-entry table (indexed by the control byte) of the group's
//! length and, on x86-64, a `pshufb` mask that moves the four ints' bytes into four 32-bit
//! lanes (varint-GB as in Lemire et al.), with the sizes of the groups (and pairs of groups)
//! that could start at each byte of a block of up to 1,024 bytes computed up front so that
//! stepping two groups on is one load and an add: the AVX2 tier decodes a pair of groups per
//! 256-bit shuffle, the portable tier runs the SSSE3 kernel (one group per 128-bit shuffle)
//! when the CPU has SSSE3; elsewhere (aarch64, x86-64 without SSSE3), four unaligned 32-bit
//! loads from a 16-byte window, masked. Groups within 17 bytes of the data's end go through
//! the checking path, so no load reads past the slice.

use super::{FixedWidth, ParquetError, ValueDecoder};
#[cfg(test)]
use crate::kernels::encodings::group_varint::decode_fast_portable_32;
use crate::kernels::encodings::group_varint::{field_32, group_bytes_32};
use crate::kernels::encodings::group_varint_32;

const ENCODING: &str = "GROUP_VARINT";

mod sealed {
    use crate::parquet::ParquetError;

    /// The per-type group codec; private so that only `i32` and `i64` implement
    /// [`GroupVarIntType`](super::GroupVarIntType).
    pub trait Sealed: Sized {
        /// Decodes `out.len() / GROUP_LEN` whole groups (`out.len()` is a multiple) starting at
        /// byte `pos`, the first being group `first_group` (for errors); returns the byte
        /// after them.
        fn decode_groups(
            data: &[u8],
            pos: usize,
            first_group: usize,
            out: &mut [Self],
        ) -> Result<usize, ParquetError>;
        /// The size in bytes (control bytes included) of group `group` at byte `pos`,
        /// checking that the data holds all of it.
        fn group_size(data: &[u8], pos: usize, group: usize) -> Result<usize, ParquetError>;
        /// The byte after `groups` groups starting at byte `pos`, checking that they are
        /// complete.
        fn skip_groups(
            data: &[u8],
            mut pos: usize,
            first_group: usize,
            groups: usize,
        ) -> Result<usize, ParquetError> {
            for group in first_group..first_group + groups {
                pos += Self::group_size(data, pos, group)?;
            }
            Ok(pos)
        }
        /// Appends one group of `GROUP_LEN` values.
        fn encode_group(group: &[Self], out: &mut Vec<u8>);
    }
}

/// The types GroupVarInt encodes: `i32` (INT32) and `i64` (INT64).
pub trait GroupVarIntType: sealed::Sealed + FixedWidth {
    /// Values per group: 4 for INT32, 5 for INT64.
    const GROUP_LEN: usize;
    /// Control bytes per group: 1 for INT32, 2 for INT64.
    const CONTROL_BYTES: usize;
}

impl GroupVarIntType for i32 {
    const GROUP_LEN: usize = 4;
    const CONTROL_BYTES: usize = 1;
}

impl GroupVarIntType for i64 {
    const GROUP_LEN: usize = 5;
    const CONTROL_BYTES: usize = 2;
}

fn truncated_group(group: usize, pos: usize, need: usize, have: usize) -> ParquetError {
    ParquetError::truncated(
        ENCODING,
        format!("group {group} at byte {pos} needs {need} bytes, but only {have} remain"),
    )
}

/// Appends the one whole group `values` (INT32 ones zero-extended): `CONTROL_BYTES`
/// little-endian control bytes holding each value's byte length minus one in `FIELD_BITS`
/// bits, the first value's field highest and the last one's at bit 0 (INT32: 2 bits each in
/// one byte; INT64: 3 bits each in bits 14..0 of two), then each value's minimal
/// little-endian bytes (0 in 1).
#[inline]
fn encode_group_bytes<const CONTROL_BYTES: usize, const FIELD_BITS: usize>(
    values: impl ExactSizeIterator<Item = u64>,
    out: &mut Vec<u8>,
) {
    // At most 2 control bytes and 5 values of 8 bytes.
    let mut bytes = [0u8; 42];
    let mut control = 0u16;
    let mut at = CONTROL_BYTES;
    let last = values.len() - 1;
    for (i, value) in values.enumerate() {
        let len = (8 - value.leading_zeros() as usize / 8).max(1);
        control |= ((len - 1) as u16) << (FIELD_BITS * (last - i));
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
        at += len;
    }
    bytes[..CONTROL_BYTES].copy_from_slice(&control.to_le_bytes()[..CONTROL_BYTES]);
    out.extend_from_slice(&bytes[..at]);
}

/// Reads the `len`-byte little-endian int at `data[at..at + len]` (in the slice).
#[inline]
fn read_le(data: &[u8], at: usize, len: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..len].copy_from_slice(&data[at..at + len]);
    u64::from_le_bytes(bytes)
}

/// The size of the INT32 group `group` at byte `pos` (control byte included), checked
/// against the data.
fn group_size_32(data: &[u8], pos: usize, group: usize) -> Result<usize, ParquetError> {
    let have = data.len().saturating_sub(pos);
    let Some(&control) = data.get(pos) else {
        return Err(truncated_group(group, pos, 1, have));
    };
    let need = group_bytes_32(control);
    if need > have {
        return Err(truncated_group(group, pos, need, have));
    }
    Ok(need)
}

/// Decodes one INT32 group with every read checked; returns the byte after it.
fn decode_group_checked_32(
    data: &[u8],
    pos: usize,
    group_index: usize,
    out: &mut [i32],
) -> Result<usize, ParquetError> {
    group_size_32(data, pos, group_index)?;
    let control = data[pos];
    let mut at = pos + 1;
    for (i, value) in out.iter_mut().enumerate() {
        let len = field_32(control, i) as usize + 1;
        *value = read_le(data, at, len) as u32 as i32;
        at += len;
    }
    Ok(at)
}

impl sealed::Sealed for i32 {
    fn decode_groups(
        data: &[u8],
        pos: usize,
        first_group: usize,
        out: &mut [i32],
    ) -> Result<usize, ParquetError> {
        let (mut pos, done) = group_varint_32(data, pos, out);
        for (k, group) in out[done..].chunks_exact_mut(4).enumerate() {
            pos = decode_group_checked_32(data, pos, first_group + done / 4 + k, group)?;
        }
        Ok(pos)
    }

    fn group_size(data: &[u8], pos: usize, group: usize) -> Result<usize, ParquetError> {
        group_size_32(data, pos, group)
    }

    fn encode_group(group: &[i32], out: &mut Vec<u8>) {
        encode_group_bytes::<1, 2>(group.iter().map(|&value| u64::from(value as u32)), out);
    }
}

/// Reads and checks the INT64 group's control word at `pos`; returns the five lengths and
/// the group's size in bytes (control included).
fn control_64(data: &[u8], pos: usize, group: usize) -> Result<([usize; 5], usize), ParquetError> {
    let have = data.len().saturating_sub(pos);
    if have < 2 {
        return Err(truncated_group(group, pos, 2, have));
    }
    let control = u16::from_le_bytes([data[pos], data[pos + 1]]);
    if control & 0x8000 != 0 {
        return Err(ParquetError::corrupt(
            ENCODING,
            format!(
                "group {group} at byte {pos}: control word {control:#06x} has the unused bit 15 set"
            ),
        ));
    }
    let lengths: [usize; 5] =
        std::array::from_fn(|i| usize::from((control >> (12 - 3 * i)) & 7) + 1);
    let need = 2 + lengths.iter().sum::<usize>();
    if need > have {
        return Err(truncated_group(group, pos, need, have));
    }
    Ok((lengths, need))
}

impl sealed::Sealed for i64 {
    fn decode_groups(
        data: &[u8],
        mut pos: usize,
        first_group: usize,
        out: &mut [i64],
    ) -> Result<usize, ParquetError> {
        for (k, group) in out.chunks_exact_mut(5).enumerate() {
            let (lengths, need) = control_64(data, pos, first_group + k)?;
            let mut at = pos + 2;
            for (value, len) in group.iter_mut().zip(lengths) {
                // One unaligned 8-byte load, masked, when 8 bytes are there; else byte by byte.
                *value = match data.get(at..at + 8) {
                    Some(word) => {
                        let word = u64::from_le_bytes(word.try_into().unwrap());
                        (word & (u64::MAX >> (64 - 8 * len))) as i64
                    }
                    None => read_le(data, at, len) as i64,
                };
                at += len;
            }
            pos += need;
        }
        Ok(pos)
    }

    fn group_size(data: &[u8], pos: usize, group: usize) -> Result<usize, ParquetError> {
        control_64(data, pos, group).map(|(_, need)| need)
    }

    fn encode_group(group: &[i64], out: &mut Vec<u8>) {
        encode_group_bytes::<2, 3>(group.iter().map(|&value| value as u64), out);
    }
}

/// The incremental decoder of a GroupVarInt page of `num_values` INT32 or INT64 values.
#[derive(Clone, Debug)]
pub struct GroupVarIntDecoder<'a, T: GroupVarIntType> {
    data: &'a [u8],
    /// Byte offset of the next group not yet decoded.
    pos: usize,
    /// Index of that group (for errors).
    next_group: usize,
    /// Values not yet decoded or skipped.
    remaining: usize,
    /// The values of the last group decoded into it; `pending[taken..pending_len]` are still
    /// to be handed out.
    pending: [T; 5],
    taken: usize,
    pending_len: usize,
}

impl<'a, T: GroupVarIntType> GroupVarIntDecoder<'a, T> {
    /// A decoder of the first `num_values` values of `data`.
    ///
    /// # Errors
    /// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when `data` is shorter than the
    /// smallest groups that could hold `num_values` values (`1 + 4` bytes a group of INT32,
    /// `2 + 5` of INT64); later groups cut short are reported when reached.
    pub fn new(data: &'a [u8], num_values: usize) -> Result<Self, ParquetError> {
        let groups = num_values.div_ceil(T::GROUP_LEN);
        let min_group = T::CONTROL_BYTES + T::GROUP_LEN;
        if groups
            .checked_mul(min_group)
            .is_none_or(|need| need > data.len())
        {
            return Err(ParquetError::truncated(
                ENCODING,
                format!(
                    "{num_values} values need {groups} groups of at least {min_group} bytes, but \
                     the data holds {} bytes",
                    data.len()
                ),
            ));
        }
        Ok(GroupVarIntDecoder {
            data,
            pos: 0,
            next_group: 0,
            remaining: num_values,
            pending: [T::default(); 5],
            taken: 0,
            pending_len: 0,
        })
    }

    /// The bytes decoded so far: every group read, the last one whole (padding included).
    pub fn bytes_consumed(&self) -> usize {
        self.pos
    }

    /// Decodes the next group into `pending` (for a batch or skip ending inside it).
    fn fill_pending(&mut self) -> Result<(), ParquetError> {
        let group = &mut self.pending[..T::GROUP_LEN];
        self.pos = T::decode_groups(self.data, self.pos, self.next_group, group)?;
        self.next_group += 1;
        self.taken = 0;
        self.pending_len = T::GROUP_LEN;
        Ok(())
    }
}

impl<T: GroupVarIntType> ValueDecoder for GroupVarIntDecoder<'_, T> {
    type Value = T;

    fn remaining(&self) -> usize {
        self.remaining
    }

    fn next_batch(&mut self, out: &mut [T]) -> Result<usize, ParquetError> {
        let count = out.len().min(self.remaining);
        let from_pending = count.min(self.pending_len - self.taken);
        out[..from_pending].copy_from_slice(&self.pending[self.taken..self.taken + from_pending]);
        self.taken += from_pending;
        let mut done = from_pending;
        let whole = (count - done) / T::GROUP_LEN * T::GROUP_LEN;
        if whole > 0 {
            self.pos = T::decode_groups(
                self.data,
                self.pos,
                self.next_group,
                &mut out[done..done + whole],
            )?;
            self.next_group += whole / T::GROUP_LEN;
            done += whole;
        }
        if done < count {
            self.fill_pending()?;
            let rest = count - done;
            out[done..count].copy_from_slice(&self.pending[..rest]);
            self.taken = rest;
        }
        self.remaining -= count;
        Ok(count)
    }

    fn skip(&mut self, n: usize) -> Result<usize, ParquetError> {
        let count = n.min(self.remaining);
        let from_pending = count.min(self.pending_len - self.taken);
        self.taken += from_pending;
        let mut done = from_pending;
        let whole_groups = (count - done) / T::GROUP_LEN;
        if whole_groups > 0 {
            self.pos = T::skip_groups(self.data, self.pos, self.next_group, whole_groups)?;
            self.next_group += whole_groups;
            done += whole_groups * T::GROUP_LEN;
        }
        if done < count {
            self.fill_pending()?;
            self.taken = count - done;
        }
        self.remaining -= count;
        Ok(count)
    }
}

/// Decodes `out.len()` values of a GroupVarInt page; returns the bytes consumed (whole
/// groups: the last one's padding values are read, and ignored).
///
/// # Errors
/// [`ErrorKind::Truncated`](super::ErrorKind::Truncated) when a group the values need is cut
/// short; [`ErrorKind::Corrupt`](super::ErrorKind::Corrupt) for an INT64 control word with
/// bit 15 set.
pub fn decode<T: GroupVarIntType>(data: &[u8], out: &mut [T]) -> Result<usize, ParquetError> {
    let mut decoder = GroupVarIntDecoder::<T>::new(data, out.len())?;
    decoder.next_batch(out)?;
    Ok(decoder.bytes_consumed())
}

/// Appends the GroupVarInt encoding of `values` to `out`, each int in its minimal byte length
/// (0 in 1 byte), the last group padded with zeros.
pub fn encode<T: GroupVarIntType>(values: &[T], out: &mut Vec<u8>) {
    let mut chunks = values.chunks_exact(T::GROUP_LEN);
    for group in &mut chunks {
        T::encode_group(group, out);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut group = [T::default(); 5];
        group[..rest.len()].copy_from_slice(rest);
        T::encode_group(&group[..T::GROUP_LEN], out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// SIMD against portable on long inputs of extreme group sizes (all 5 bytes, all 17, so
    /// that a pair's second group is 32 lanes on) and mixed ones, from every start up to 40.
    #[test]
    fn simd_matches_portable_on_patterns() {
        let mut state = 0x9E37_79B9u32;
        let random: Vec<u8> = (0..3000)
            .map(|_| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (state >> 24) as u8
            })
            .collect();
        let patterns = [
            vec![0x00; 3000],
            vec![0xFF; 3000],
            (0..3000)
                .map(|i| if i % 3 == 0 { 0xFF } else { 0x00 })
                .collect(),
            random,
        ];
        for data in &patterns {
            for start in 0..40 {
                let groups = 400;
                let mut portable = vec![0i32; groups * 4];
                let mut fast = vec![0i32; groups * 4];
                let p = decode_fast_portable_32(data, start, &mut portable);
                let f = group_varint_32(data, start, &mut fast);
                assert_eq!(p, f, "start {start}");
                assert_eq!(portable, fast, "start {start}");
            }
        }
    }

    proptest! {
        /// The SSSE3 kernel and the portable one decode the same groups to the same values
        /// and stop at the same byte.
        #[test]
        fn simd_matches_portable(values in proptest::collection::vec(any::<i32>().prop_map(|v| v >> (v as u32 % 32)), 0..300), extra in 0usize..20) {
            let mut data = Vec::new();
            encode(&values, &mut data);
            data.extend(std::iter::repeat_n(0xA5, extra));
            let groups = values.len().div_ceil(4);
            let mut portable = vec![0i32; groups * 4];
            let mut fast = vec![0i32; groups * 4];
            let p = decode_fast_portable_32(&data, 0, &mut portable);
            let f = group_varint_32(&data, 0, &mut fast);
            prop_assert_eq!(p, f);
            prop_assert_eq!(&portable[..p.1], &fast[..f.1]);
        }

        /// The same on random bytes (every control byte), from a random start, for a random
        /// number of groups.
        #[test]
        fn simd_matches_portable_on_random_bytes(data in proptest::collection::vec(any::<u8>(), 0..1200), start in 0usize..40, groups in 0usize..150) {
            let start = start.min(data.len());
            let mut portable = vec![0i32; groups * 4];
            let mut fast = vec![0i32; groups * 4];
            let p = decode_fast_portable_32(&data, start, &mut portable);
            let f = group_varint_32(&data, start, &mut fast);
            prop_assert_eq!(p, f);
            prop_assert_eq!(portable, fast);
        }
    }
}
