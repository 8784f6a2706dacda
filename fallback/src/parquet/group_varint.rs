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
//! length and, with SSSE3, a `pshufb` mask that moves the four ints' bytes into four 32-bit
//! lanes (varint-GB as in Lemire et al.), with the sizes of the groups (and pairs of groups)
//! that could start at each of the next 64 bytes computed up front so that stepping two
//! groups on is one load and an add; without SSSE3, four unaligned 32-bit loads from a
//! 16-byte window, masked. Groups within 17 bytes of the data's end go through the checking
//! path, so no load reads past the slice.

use super::{FixedWidth, ParquetError, ValueDecoder};

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

/// Bytes of the INT32 group with control byte `c`, control byte excluded (4..=16).
const GROUP_DATA_LEN_32: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        table[c] = ((c & 3) + ((c >> 2) & 3) + ((c >> 4) & 3) + (c >> 6) + 4) as u8;
        c += 1;
    }
    table
};

/// Byte offset (after the control byte) and length of each int of the INT32 group with
/// control byte `c`.
const fn int_layout_32(c: usize) -> ([usize; 4], [usize; 4]) {
    let mut offsets = [0; 4];
    let mut lengths = [0; 4];
    let mut offset = 0;
    let mut i = 0;
    while i < 4 {
        let len = ((c >> (6 - 2 * i)) & 3) + 1;
        offsets[i] = offset;
        lengths[i] = len;
        offset += len;
        i += 1;
    }
    (offsets, lengths)
}

/// The `pshufb` masks: lane byte `4i + b` takes window byte `offset_i + b` for `b < len_i`,
/// else zero (0x80).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const SHUFFLE_32: [[u8; 16]; 256] = {
    let mut table = [[0x80u8; 16]; 256];
    let mut c = 0;
    while c < 256 {
        let (offsets, lengths) = int_layout_32(c);
        let mut i = 0;
        while i < 4 {
            let mut b = 0;
            while b < lengths[i] {
                table[c][4 * i + b] = (offsets[i] + b) as u8;
                b += 1;
            }
            i += 1;
        }
        c += 1;
    }
    table
};

/// Each int's offset in the window, for the portable path.
const OFFSETS_32: [[u8; 4]; 256] = {
    let mut table = [[0u8; 4]; 256];
    let mut c = 0;
    while c < 256 {
        let (offsets, _) = int_layout_32(c);
        let mut i = 0;
        while i < 4 {
            table[c][i] = offsets[i] as u8;
            i += 1;
        }
        c += 1;
    }
    table
};

/// The bytes a group may span (control byte included) for the fast paths' 16-byte window.
const WINDOW_32: usize = 17;

/// Byte length − 1 of the INT32 group's int `i` in control byte `control`.
#[inline(always)]
fn field_32(control: u8, i: usize) -> u32 {
    u32::from(control >> (6 - 2 * i)) & 3
}

/// Decodes whole INT32 groups while each has a full 16-byte window after its control byte;
/// returns the byte after them and the values decoded.
fn decode_fast_portable_32(data: &[u8], mut pos: usize, out: &mut [i32]) -> (usize, usize) {
    let mut done = 0;
    for group in out.chunks_exact_mut(4) {
        let Some(window) = data.get(pos..pos + WINDOW_32) else {
            break;
        };
        let control = window[0];
        let offsets = OFFSETS_32[usize::from(control)];
        for (i, value) in group.iter_mut().enumerate() {
            let at = 1 + usize::from(offsets[i]);
            let word =
                u32::from_le_bytes([window[at], window[at + 1], window[at + 2], window[at + 3]]);
            // Keep the int's (field + 1) bytes: shifting the all-ones word right by
            // 8 * (3 - field) bits.
            let mask = u32::MAX >> (8 * (3 - field_32(control, i)));
            *value = (word & mask) as i32;
        }
        pos += 1 + usize::from(GROUP_DATA_LEN_32[usize::from(control)]);
        done += 4;
    }
    (pos, done)
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{GROUP_DATA_LEN_32, SHUFFLE_32, WINDOW_32};
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_or_si128,
        _mm_set1_epi8, _mm_setr_epi8, _mm_shuffle_epi8, _mm_srli_epi16, _mm_storeu_si128,
        _mm_sub_epi8,
    };

    /// Group starts a span covers: the sizes of groups starting there are computed together,
    /// up front.
    const SPAN: usize = 64;
    /// Bytes whose group sizes a span computes: a pair's second group starts before
    /// `SPAN + 17`.
    const SIZED: usize = 96;
    /// Bytes a span needs: the second group of a pair starts before `SPAN + 17` and spans up
    /// to 17 bytes, and `SIZED` bytes are loaded.
    const SPAN_BYTES: usize = 128;

    #[inline]
    #[target_feature(enable = "ssse3")]
    fn load(bytes: &[u8]) -> __m128i {
        let bytes: &[u8; 16] = bytes[..16].try_into().unwrap();
        // SAFETY: `bytes` is 16 readable bytes; unaligned loads are allowed.
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    }

    /// Decodes the group whose control byte is `bytes[0]` (`bytes` holds at least 17) into
    /// `out` (4 values); returns the group's size.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn decode_group(bytes: &[u8], out: &mut [i32]) -> usize {
        let control = usize::from(bytes[0]);
        let window = load(&bytes[1..]);
        let mask = load(&SHUFFLE_32[control]);
        let values = _mm_shuffle_epi8(window, mask);
        let out: &mut [i32; 4] = (&mut out[..4]).try_into().unwrap();
        // SAFETY: `out` is 4 i32s, 16 writable bytes; x86 lanes are little endian, the
        // ints' order in memory.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast::<__m128i>(), values) };
        1 + usize::from(GROUP_DATA_LEN_32[control])
    }

    /// The size (control byte included) of a group starting at each byte of `bytes`:
    /// 5 + the sum of the byte's four 2-bit fields, summed per nibble with `pshufb`.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn group_sizes(bytes: &[u8; SIZED]) -> [__m128i; SIZED / 16] {
        // The sum of a nibble's two 2-bit fields.
        let nibble_sums = _mm_setr_epi8(0, 1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 3, 4, 5, 6);
        let low_nibble = _mm_set1_epi8(0x0F);
        let five = _mm_set1_epi8(5);
        std::array::from_fn(|chunk| {
            let c = load(&bytes[16 * chunk..]);
            let lo = _mm_and_si128(c, low_nibble);
            let hi = _mm_and_si128(_mm_srli_epi16(c, 4), low_nibble);
            _mm_add_epi8(
                _mm_add_epi8(
                    _mm_shuffle_epi8(nibble_sums, lo),
                    _mm_shuffle_epi8(nibble_sums, hi),
                ),
                five,
            )
        })
    }

    /// For each of the first `SPAN` bytes `q`: the size of the group starting at `q` plus
    /// that of the group after it, `sizes[q] + sizes[q + sizes[q]]` (at most 34), looked up
    /// with `pshufb` in the 16-byte chunk of `q` and the two after it (`q + sizes[q]` is at
    /// most 15 + 17 = 32 lanes on).
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn pair_sizes(sizes: &[__m128i; SIZED / 16]) -> [__m128i; SPAN / 16] {
        let lanes = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let sixteen = _mm_set1_epi8(16);
        let fifteen = _mm_set1_epi8(15);
        let thirty_one = _mm_set1_epi8(31);
        std::array::from_fn(|chunk| {
            let size = sizes[chunk];
            // The next group's lane, counted from this chunk's first: 5..=32.
            let next = _mm_add_epi8(lanes, size);
            // In this chunk when below 16: other lanes get bit 7 set, which pshufb reads as 0.
            let in_this = _mm_or_si128(next, _mm_cmpgt_epi8(next, fifteen));
            // In the next chunk when 16..=31: below 16 the difference is negative (bit 7 set);
            // at 32 it is 16, masked by the comparison.
            let minus_16 = _mm_sub_epi8(next, sixteen);
            let in_next = _mm_or_si128(minus_16, _mm_cmpgt_epi8(next, thirty_one));
            // In the chunk after when 32: the difference is 0 then, negative otherwise.
            let in_after = _mm_sub_epi8(minus_16, sixteen);
            let following = _mm_or_si128(
                _mm_or_si128(
                    _mm_shuffle_epi8(sizes[chunk], in_this),
                    _mm_shuffle_epi8(sizes[chunk + 1], in_next),
                ),
                _mm_shuffle_epi8(sizes[chunk + 2], in_after),
            );
            _mm_add_epi8(size, following)
        })
    }

    /// Stores vectors into a byte array, to be indexed by scalar loads.
    #[inline]
    #[target_feature(enable = "ssse3")]
    fn to_bytes<const N: usize, const B: usize>(vectors: [__m128i; N]) -> [u8; B] {
        let mut bytes = [0u8; B];
        for (dst, vector) in bytes.chunks_exact_mut(16).zip(vectors) {
            let dst: &mut [u8; 16] = dst.try_into().unwrap();
            // SAFETY: `dst` is 16 writable bytes; unaligned stores are allowed.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast::<__m128i>(), vector) };
        }
        bytes
    }

    /// [`decode_fast_portable_32`](super::decode_fast_portable_32) with one `pshufb` a
    /// group. Each group's position depends on the previous group's control byte, a chain
    /// that would cost a load of the control byte, a load of its table entry and an add per
    /// group. Here the sizes of groups that could start at each of the next 96 bytes are
    /// computed together first (16 a `pshufb` pair), then the size of each such group plus
    /// the next one's; groups are decoded in pairs and the chain is one load from those
    /// pair sizes and an add per two groups.
    #[target_feature(enable = "ssse3")]
    pub(super) fn decode_fast_32(data: &[u8], mut pos: usize, out: &mut [i32]) -> (usize, usize) {
        let groups = out.len() / 4;
        let mut group = 0;
        while groups - group >= 2 && data.len().saturating_sub(pos) >= SPAN_BYTES {
            let span: &[u8; SPAN_BYTES] = data[pos..pos + SPAN_BYTES].try_into().unwrap();
            let size_vectors = group_sizes(span[..SIZED].try_into().unwrap());
            let pairs: [u8; SPAN] = to_bytes(pair_sizes(&size_vectors));
            let sizes: [u8; SIZED] = to_bytes(size_vectors);
            let mut offset = 0;
            while offset < SPAN && groups - group >= 2 {
                let second = offset + usize::from(sizes[offset]);
                decode_group(&span[offset..], &mut out[4 * group..]);
                decode_group(&span[second..], &mut out[4 * group + 4..]);
                offset += usize::from(pairs[offset]);
                group += 2;
            }
            pos += offset;
        }
        while group < groups && data.len().saturating_sub(pos) >= WINDOW_32 {
            pos += decode_group(&data[pos..], &mut out[4 * group..]);
            group += 1;
        }
        (pos, 4 * group)
    }
}

/// Decodes whole INT32 groups with the fastest kernel the CPU has, until the window nears
/// the data's end.
fn decode_fast_32(data: &[u8], pos: usize, out: &mut [i32]) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("ssse3") {
        // SAFETY: SSSE3 was detected at run time.
        return unsafe { x86::decode_fast_32(data, pos, out) };
    }
    decode_fast_portable_32(data, pos, out)
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
    let need = 1 + usize::from(GROUP_DATA_LEN_32[usize::from(control)]);
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
        let (mut pos, done) = decode_fast_32(data, pos, out);
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
                let f = decode_fast_32(data, start, &mut fast);
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
            let f = decode_fast_32(&data, 0, &mut fast);
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
            let f = decode_fast_32(&data, start, &mut fast);
            prop_assert_eq!(p, f);
            prop_assert_eq!(portable, fast);
        }
    }
}
