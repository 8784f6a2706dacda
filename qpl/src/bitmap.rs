//! Packed bit vectors in Arrow's layout (bit i is bit `i % 8` of byte `i / 8`, LSB first):
//! scan results, validity and row selections, without one `u32` or `bool` per row.
//!
//! [`Bitmap`] owns its bytes and always starts at bit 0 (bits past its length are kept 0, so
//! its bytes can be handed to QPL or to Arrow as they are). [`BitmapRef`] borrows bytes and
//! may start at any bit: slicing a bitmap ([`Bitmap::slice`], [`BitmapRef::slice`]) never
//! copies, so a row-group selection can be cut into per-page masks that start mid-byte.
//! Where an engine needs a byte-aligned mask (QPL and the accelerator take masks from bit 0 of
//! a byte), [`BitmapRef::aligned_bytes`] borrows when the view is aligned and realigns into a
//! copy when it is not.
//!
//! ```
//! use qpl_rs::Bitmap;
//!
//! let rows = Bitmap::from_bools([true, false, true, true, false, false, false, false, true]);
//! assert_eq!((rows.len(), rows.count_ones()), (9, 4));
//! let tail = rows.slice(2, 7); // bits 2..9, no copy
//! assert_eq!(tail.iter_ones().collect::<Vec<_>>(), [0, 1, 6]);
//! assert_eq!(&*tail.aligned_bytes(), [0b0100_0011]);
//! ```

use std::borrow::Cow;
use std::fmt;

/// An owned bit vector starting at bit 0 of its first byte (bits past `len` are 0).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Bitmap {
    bytes: Vec<u8>,
    len: usize,
}

/// A borrowed bit vector: `len` bits of `bytes` starting at bit `offset`.
#[derive(Clone, Copy)]
pub struct BitmapRef<'a> {
    bytes: &'a [u8],
    offset: usize,
    len: usize,
}

impl<'a> BitmapRef<'a> {
    /// `len` bits of `bytes` from bit `offset`; `None` when they pass the end of `bytes`.
    pub fn new(bytes: &'a [u8], offset: usize, len: usize) -> Option<BitmapRef<'a>> {
        let end = offset.checked_add(len)?;
        (end.div_ceil(8) <= bytes.len()).then_some(BitmapRef { bytes, offset, len })
    }

    /// Every bit of `bytes`.
    pub fn from_bytes(bytes: &'a [u8]) -> BitmapRef<'a> {
        BitmapRef {
            bytes,
            offset: 0,
            len: bytes.len() * 8,
        }
    }

    /// Bits in the view.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bit offset of the view in [`BitmapRef::bytes`].
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The underlying bytes (the view's bits start at bit [`BitmapRef::offset`]).
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Bit `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<bool> {
        (i < self.len).then(|| {
            let at = self.offset + i;
            self.bytes[at / 8] >> (at % 8) & 1 == 1
        })
    }

    /// `len` bits from bit `offset` of this view, without copying.
    ///
    /// # Panics
    /// When `offset + len` passes the view's length (as slicing a slice does).
    pub fn slice(&self, offset: usize, len: usize) -> BitmapRef<'a> {
        assert!(
            offset.checked_add(len).is_some_and(|end| end <= self.len),
            "bitmap slice {offset}..{offset}+{len} passes its length {}",
            self.len
        );
        BitmapRef {
            bytes: self.bytes,
            offset: self.offset + offset,
            len,
        }
    }

    /// Word `k` of the view: bits `64k..64k+64` realigned to bit 0, 0 past the end.
    #[inline]
    fn word(&self, k: usize) -> u64 {
        let start = self.offset + 64 * k;
        let first = start / 8;
        let shift = start % 8;
        let mut buf = [0u8; 9];
        let end = (first + 9).min(self.bytes.len());
        if first < end {
            buf[..end - first].copy_from_slice(&self.bytes[first..end]);
        }
        let low = u64::from_le_bytes([
            buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7],
        ]);
        let word = if shift == 0 {
            low
        } else {
            low >> shift | u64::from(buf[8]) << (64 - shift)
        };
        let valid = self.len.saturating_sub(64 * k);
        if valid >= 64 {
            word
        } else {
            word & ((1u64 << valid) - 1)
        }
    }

    /// Number of 64-bit words the view spans.
    fn words(&self) -> usize {
        self.len.div_ceil(64)
    }

    /// Bits set to 1.
    pub fn count_ones(&self) -> usize {
        if self.offset.is_multiple_of(8) {
            // Whole bytes: a plain popcount the compiler vectorises, then the last byte masked.
            let first = self.offset / 8;
            let full = self.len / 8;
            let mut ones: usize = self.bytes[first..first + full]
                .iter()
                .map(|b| b.count_ones() as usize)
                .sum();
            if !self.len.is_multiple_of(8) {
                let mask = (1u8 << (self.len % 8)) - 1;
                ones += (self.bytes[first + full] & mask).count_ones() as usize;
            }
            return ones;
        }
        (0..self.words())
            .map(|k| self.word(k).count_ones() as usize)
            .sum()
    }

    /// The positions of the 1 bits, ascending.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + 'a {
        let view = *self;
        (0..view.words()).flat_map(move |k| {
            let mut word = view.word(k);
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let bit = word.trailing_zeros() as usize;
                    word &= word - 1;
                    64 * k + bit
                })
            })
        })
    }

    /// Every bit, as `bool`s.
    pub fn iter(&self) -> impl Iterator<Item = bool> + 'a {
        let view = *self;
        (0..view.len).map(move |i| {
            let at = view.offset + i;
            view.bytes[at / 8] >> (at % 8) & 1 == 1
        })
    }

    /// The bits from bit 0 of a byte slice (`len.div_ceil(8)` bytes; bits past `len` in the
    /// last byte are unspecified): borrowed when the view starts at a byte boundary, else
    /// realigned into a copy (what QPL and the accelerator need for a mask).
    pub fn aligned_bytes(&self) -> Cow<'a, [u8]> {
        if self.offset.is_multiple_of(8) {
            let first = self.offset / 8;
            Cow::Borrowed(&self.bytes[first..first + self.len.div_ceil(8)])
        } else {
            Cow::Owned(self.to_bitmap().bytes)
        }
    }

    /// An owned copy starting at bit 0.
    pub fn to_bitmap(&self) -> Bitmap {
        let mut out = Bitmap::with_capacity(self.len);
        out.extend_from_bitmap(*self);
        out
    }
}

impl PartialEq for BitmapRef<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && (0..self.words()).all(|k| self.word(k) == other.word(k))
    }
}

impl Eq for BitmapRef<'_> {}

impl fmt::Debug for BitmapRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Bitmap[{}; ", self.len)?;
        for bit in self.iter() {
            f.write_str(if bit { "1" } else { "0" })?;
        }
        f.write_str("]")
    }
}

impl fmt::Debug for Bitmap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.view().fmt(f)
    }
}

impl Bitmap {
    /// An empty bitmap.
    pub fn new() -> Bitmap {
        Bitmap::default()
    }

    /// An empty bitmap with room for `bits` bits.
    pub fn with_capacity(bits: usize) -> Bitmap {
        Bitmap {
            bytes: Vec::with_capacity(bits.div_ceil(8)),
            len: 0,
        }
    }

    /// `len` bits, all `value`.
    pub fn repeat(value: bool, len: usize) -> Bitmap {
        let mut out = Bitmap::with_capacity(len);
        out.push_n(value, len);
        out
    }

    /// The bits of `bools`, in order.
    pub fn from_bools(bools: impl IntoIterator<Item = bool>) -> Bitmap {
        let mut out = Bitmap::new();
        for bit in bools {
            out.push(bit);
        }
        out
    }

    /// The first `len` bits of `bytes` (LSB first): `bytes` is zero-extended or cut to
    /// `len.div_ceil(8)` bytes, and bits past `len` cleared.
    pub fn from_bytes(mut bytes: Vec<u8>, len: usize) -> Bitmap {
        bytes.resize(len.div_ceil(8), 0);
        if !len.is_multiple_of(8) {
            if let Some(last) = bytes.last_mut() {
                *last &= (1u8 << (len % 8)) - 1;
            }
        }
        Bitmap { bytes, len }
    }

    /// A view of the whole bitmap.
    pub fn view(&self) -> BitmapRef<'_> {
        BitmapRef {
            bytes: &self.bytes,
            offset: 0,
            len: self.len,
        }
    }

    /// Bits in the bitmap.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<bool> {
        self.view().get(i)
    }

    /// Bits set to 1.
    pub fn count_ones(&self) -> usize {
        self.view().count_ones()
    }

    /// `len` bits from bit `offset`, without copying (see [`BitmapRef::slice`]).
    pub fn slice(&self, offset: usize, len: usize) -> BitmapRef<'_> {
        self.view().slice(offset, len)
    }

    /// The positions of the 1 bits, ascending.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.view().iter_ones()
    }

    /// Every bit, as `bool`s.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        self.view().iter()
    }

    /// The bytes (`len.div_ceil(8)` of them, bits past `len` 0).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, moved out.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Removes every bit, keeping the capacity.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.len = 0;
    }

    /// Appends one bit.
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        if bit {
            let last = self.bytes.len() - 1;
            self.bytes[last] |= 1 << (self.len % 8);
        }
        self.len += 1;
    }

    /// Appends `n` bits, all `value`.
    pub fn push_n(&mut self, value: bool, n: usize) {
        let end = self.len + n;
        if value {
            // Fill the partial last byte, then whole bytes, then clear past `end`.
            if !self.len.is_multiple_of(8) {
                let last = self.bytes.len() - 1;
                self.bytes[last] |= !0u8 << (self.len % 8);
            }
            self.bytes.resize(end.div_ceil(8), 0xff);
            if !end.is_multiple_of(8) {
                let last = self.bytes.len() - 1;
                self.bytes[last] &= (1u8 << (end % 8)) - 1;
            }
        } else {
            self.bytes.resize(end.div_ceil(8), 0);
        }
        self.len = end;
    }

    /// Appends the bits of `other` (any bit offset): whole bytes are copied when both sides
    /// are byte-aligned, else 64 bits at a time.
    pub fn extend_from_bitmap(&mut self, other: BitmapRef<'_>) {
        if other.len == 0 {
            return;
        }
        if self.len.is_multiple_of(8) && other.offset.is_multiple_of(8) {
            let first = other.offset / 8;
            self.bytes
                .extend_from_slice(&other.bytes[first..first + other.len.div_ceil(8)]);
            self.len += other.len;
            // Bits of `other`'s last byte past its length are not ours to keep.
            if !self.len.is_multiple_of(8) {
                let last = self.bytes.len() - 1;
                self.bytes[last] &= (1u8 << (self.len % 8)) - 1;
            }
            return;
        }
        let end = self.len + other.len;
        self.bytes.reserve(end.div_ceil(8) - self.bytes.len());
        for k in 0..other.words() {
            let word = other.word(k);
            let bits = (other.len - 64 * k).min(64);
            self.push_word(word, bits);
        }
        debug_assert_eq!(self.len, end);
    }

    /// Appends the low `bits` (1..=64) bits of `word` (higher bits 0).
    fn push_word(&mut self, word: u64, bits: usize) {
        let shift = self.len % 8;
        let wide = (u128::from(word) << shift).to_le_bytes();
        // The low byte completes the partial last byte; the rest are new bytes.
        let mut from = 0;
        if shift != 0 {
            let last = self.bytes.len() - 1;
            self.bytes[last] |= wide[0];
            from = 1;
        }
        let end = self.len + bits;
        let new_bytes = end.div_ceil(8) - self.bytes.len();
        self.bytes.extend_from_slice(&wide[from..from + new_bytes]);
        self.len = end;
    }

    /// Concatenates `parts`.
    pub fn concat<'b>(parts: impl IntoIterator<Item = BitmapRef<'b>>) -> Bitmap {
        let mut out = Bitmap::new();
        for part in parts {
            out.extend_from_bitmap(part);
        }
        out
    }

    /// Sets every bit that is 1 in `other` (of the same length).
    ///
    /// # Panics
    /// When the lengths differ.
    pub fn or_assign(&mut self, other: BitmapRef<'_>) {
        assert_eq!(self.len, other.len, "or_assign of bitmaps of other lengths");
        if other.offset.is_multiple_of(8) {
            let first = other.offset / 8;
            let src = &other.bytes[first..first + self.bytes.len()];
            for (a, b) in self.bytes.iter_mut().zip(src) {
                *a |= b;
            }
            if !self.len.is_multiple_of(8) {
                let last = self.bytes.len() - 1;
                self.bytes[last] &= (1u8 << (self.len % 8)) - 1;
            }
        } else {
            for (k, chunk) in self.bytes.chunks_mut(8).enumerate() {
                let word = other.word(k).to_le_bytes();
                for (a, b) in chunk.iter_mut().zip(word) {
                    *a |= b;
                }
            }
        }
    }
}

impl<'a> From<&'a Bitmap> for BitmapRef<'a> {
    fn from(bitmap: &'a Bitmap) -> BitmapRef<'a> {
        bitmap.view()
    }
}

impl FromIterator<bool> for Bitmap {
    fn from_iter<I: IntoIterator<Item = bool>>(iter: I) -> Bitmap {
        Bitmap::from_bools(iter)
    }
}

#[cfg(feature = "arrow")]
mod arrow {
    //! Conversions to and from arrow-rs's `BooleanBuffer` (feature `arrow`).
    use super::{Bitmap, BitmapRef};
    use arrow_buffer::{BooleanBuffer, Buffer};

    impl From<Bitmap> for BooleanBuffer {
        /// Moves the bytes (no copy).
        fn from(bitmap: Bitmap) -> BooleanBuffer {
            let len = bitmap.len;
            BooleanBuffer::new(Buffer::from_vec(bitmap.bytes), 0, len)
        }
    }

    impl<'a> From<&'a BooleanBuffer> for BitmapRef<'a> {
        /// Borrows the buffer's bytes at its bit offset (no copy).
        fn from(buffer: &'a BooleanBuffer) -> BitmapRef<'a> {
            BitmapRef {
                bytes: buffer.values(),
                offset: buffer.offset(),
                len: buffer.len(),
            }
        }
    }

    impl From<&BooleanBuffer> for Bitmap {
        /// Copies the bits, realigned to bit 0.
        fn from(buffer: &BooleanBuffer) -> Bitmap {
            BitmapRef::from(buffer).to_bitmap()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bools(view: BitmapRef<'_>) -> Vec<bool> {
        view.iter().collect()
    }

    proptest! {
        #[test]
        fn views_agree_with_bools(
            bits in proptest::collection::vec(any::<bool>(), 0..300),
            a in 0usize..300,
            b in 0usize..300,
        ) {
            let bitmap = Bitmap::from_bools(bits.iter().copied());
            prop_assert_eq!(bitmap.len(), bits.len());
            prop_assert_eq!(bools(bitmap.view()), bits.clone());
            let offset = a.min(bits.len());
            let len = b.min(bits.len() - offset);
            let slice = bitmap.slice(offset, len);
            let expected = &bits[offset..offset + len];
            prop_assert_eq!(bools(slice), expected.to_vec());
            prop_assert_eq!(slice.count_ones(), expected.iter().filter(|&&x| x).count());
            let ones: Vec<usize> = expected.iter().enumerate().filter(|(_, &x)| x).map(|(i, _)| i).collect();
            prop_assert_eq!(slice.iter_ones().collect::<Vec<_>>(), ones);
            for (i, &bit) in expected.iter().enumerate() {
                prop_assert_eq!(slice.get(i), Some(bit));
            }
            prop_assert_eq!(slice.get(len), None);
            let aligned = slice.aligned_bytes();
            prop_assert_eq!(aligned.len(), len.div_ceil(8));
            prop_assert_eq!(bools(BitmapRef::new(&aligned, 0, len).unwrap()), expected.to_vec());
            prop_assert_eq!(slice.to_bitmap(), Bitmap::from_bools(expected.iter().copied()));
            // A slice of a slice.
            let inner = slice.slice(len / 3, len - len / 3);
            prop_assert_eq!(bools(inner), expected[len / 3..].to_vec());
        }

        #[test]
        fn concatenation_at_any_alignment(
            parts in proptest::collection::vec((proptest::collection::vec(any::<bool>(), 0..200), 0usize..16), 0..6),
        ) {
            let mut expected = Vec::new();
            let owners: Vec<(Bitmap, usize, usize)> = parts
                .iter()
                .map(|(bits, skip)| {
                    let skip = (*skip).min(bits.len());
                    (Bitmap::from_bools(bits.iter().copied()), skip, bits.len() - skip)
                })
                .collect();
            for (bits, skip) in &parts {
                expected.extend_from_slice(&bits[(*skip).min(bits.len())..]);
            }
            let joined = Bitmap::concat(owners.iter().map(|(b, skip, len)| b.slice(*skip, *len)));
            prop_assert_eq!(bools(joined.view()), expected.clone());
            prop_assert_eq!(joined.clone(), Bitmap::from_bools(expected.iter().copied()));
            // Bits past the length stay 0 (the bytes can go to QPL or Arrow as they are).
            if !joined.len().is_multiple_of(8) {
                let last = *joined.as_bytes().last().unwrap();
                prop_assert_eq!(last >> (joined.len() % 8), 0);
            }
        }

        #[test]
        fn or_and_repeat(
            a in proptest::collection::vec(any::<bool>(), 0..200),
            b in proptest::collection::vec(any::<bool>(), 0..200),
            shift in 0usize..9,
            value: bool,
        ) {
            let n = a.len().min(b.len().saturating_sub(shift));
            let mut left = Bitmap::from_bools(a[..n].iter().copied());
            let right = Bitmap::from_bools(b.iter().copied());
            left.or_assign(right.slice(shift.min(b.len()), n));
            let expected: Vec<bool> = (0..n).map(|i| a[i] | b[shift + i]).collect();
            prop_assert_eq!(bools(left.view()), expected);
            let mut filled = Bitmap::from_bools(a.iter().copied());
            filled.push_n(value, b.len());
            let mut expected = a.clone();
            expected.extend(std::iter::repeat_n(value, b.len()));
            prop_assert_eq!(filled, Bitmap::from_bools(expected));
        }
    }

    #[test]
    fn from_bytes_clears_bits_past_the_length() {
        let bitmap = Bitmap::from_bytes(vec![0xff, 0xff], 9);
        assert_eq!(bitmap.as_bytes(), [0xff, 0x01]);
        assert_eq!(bitmap.count_ones(), 9);
        assert!(BitmapRef::new(&[0u8; 2], 9, 8).is_none());
        assert!(BitmapRef::new(&[0u8; 2], 8, 8).is_some());
        assert!(BitmapRef::new(&[0u8; 2], usize::MAX, 2).is_none());
    }

    #[test]
    #[should_panic(expected = "passes its length")]
    fn slicing_past_the_end_panics_like_a_slice() {
        Bitmap::repeat(true, 10).slice(5, 6);
    }

    #[cfg(feature = "arrow")]
    #[test]
    fn boolean_buffers_round_trip_at_an_offset() {
        use arrow_buffer::BooleanBuffer;
        let bits: Vec<bool> = (0..100).map(|i| i % 3 == 0 || i % 7 == 0).collect();
        let buffer = BooleanBuffer::from(bits.as_slice()).slice(5, 90);
        let view = BitmapRef::from(&buffer);
        assert_eq!(bools(view), bits[5..95]);
        let owned = Bitmap::from(&buffer);
        let back = BooleanBuffer::from(owned);
        assert_eq!(back, buffer);
    }
}
