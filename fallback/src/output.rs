//! The destination writer: nominal bit packing, 8/16/32-bit arrays, index lists and forced
//! 0/1 arrays, with the aggregates computed on the way. It never writes past the destination:
//! an element that does not fit whole is status 225 (D14), an index above the format's
//! maximum 221.

use crate::kernels::lanes::LaneKernels;
use crate::kernels::{self, BitWidth, LazyBlock, MinMaxSum};
use crate::status::Status;

/// How output elements are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// Elements packed at `width` bits (not 8/16/32: those are `Array`), LSB or MSB first.
    Packed { width: u32 },
    /// Each element as an unsigned integer of `bytes` bytes.
    Array { bytes: usize },
    /// The positions of nonzero elements plus `base`, each in `bytes` bytes.
    Index { bytes: usize, base: u64 },
}

/// Which aggregates the job reports (D16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AggregateKind {
    /// `QPL_FLAG_OMIT_AGGREGATES`.
    Omitted,
    /// Bit-vector results: first and last position of a nonzero element, their count.
    Bits,
    /// Array results: minimum, maximum and wrapping sum of the values.
    Values,
}

/// The aggregates in `Completion` order: first/min, last/max, sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Aggregates {
    pub(crate) first_or_min: u32,
    pub(crate) last_or_max: u32,
    pub(crate) sum: u32,
}

impl Aggregates {
    const INITIAL: Aggregates = Aggregates {
        first_or_min: u32::MAX,
        last_or_max: 0,
        sum: 0,
    };

    /// Adds the value aggregates of further elements.
    fn add_values(&mut self, values: MinMaxSum) {
        let all = values.merge(MinMaxSum {
            min: self.first_or_min,
            max: self.last_or_max,
            sum: self.sum,
        });
        *self = Aggregates {
            first_or_min: all.min,
            last_or_max: all.max,
            sum: all.sum,
        };
    }
}

/// Adds the bit aggregates of a bit vector starting at element `position`, whose bits above
/// its element count are zero. The first and last set bits come from searches by 64-bit
/// words (the first only until found), the count from POPCNT where available.
fn add_bit_aggregates(a: &mut Aggregates, position: u64, bits: &[u8]) {
    let set = kernels::count_ones(kernels::kernels(), bits) as u32;
    if set == 0 {
        return;
    }
    let (words, tail) = bits.as_chunks::<8>();
    let mut last = [0u8; 8];
    last[..tail.len()].copy_from_slice(tail);
    let word = |i: usize| u64::from_le_bytes(*words.get(i).unwrap_or(&last));
    let at = |i: usize| position + 64 * i as u64;
    let count = words.len() + 1;
    if a.first_or_min == u32::MAX {
        let i = (0..count).find(|&i| word(i) != 0).unwrap_or(0);
        a.first_or_min = (at(i) + u64::from(word(i).trailing_zeros())) as u32;
    }
    let i = (0..count).rfind(|&i| word(i) != 0).unwrap_or(0);
    a.last_or_max = (at(i) + 63 - u64::from(word(i).leading_zeros())) as u32;
    a.sum = a.sum.wrapping_add(set);
}

/// `value`'s low `bytes` bytes as an unsigned integer of that size, little- or big-endian, in
/// the first `bytes` bytes of the result.
#[inline(always)]
fn int_bytes(value: u32, bytes: usize, big_endian: bool) -> [u8; 4] {
    if big_endian {
        (value << (32 - 8 * bytes as u32)).to_be_bytes()
    } else {
        value.to_le_bytes()
    }
}

/// The part of the destination that [`Writer::array_in_place`] lends for values written
/// straight into it as little-endian `u32`s.
struct InPlace<'a> {
    /// Room for exactly the values asked for.
    out: &'a mut [u8],
    /// The value mask, which keeps every bit of the width: values wider than it (RLE run
    /// values) need it, unpacked ones do not.
    mask: u32,
    /// Whether the writer needs the values' [`MinMaxSum`].
    aggregate: bool,
}

/// Writes output elements into the caller's destination.
pub(crate) struct Writer<'d> {
    dst: &'d mut [u8],
    format: Format,
    big_endian: bool,
    /// Applied to values before nominal packing and forced 0/1 arrays (D5, D15).
    value_mask: u32,
    aggregate: AggregateKind,
    aggregates: Aggregates,
    /// Output elements so far: the position of the next one in the nominal output vector.
    position: u64,
    /// Bytes completely written.
    written: usize,
    /// Packed output: pending bits not yet forming a whole byte.
    pending: u64,
    pending_bits: u32,
}

impl<'d> Writer<'d> {
    pub(crate) fn new(
        dst: &'d mut [u8],
        format: Format,
        big_endian: bool,
        value_mask: u32,
        aggregate: AggregateKind,
    ) -> Writer<'d> {
        Writer {
            dst,
            format,
            big_endian,
            value_mask,
            aggregate,
            aggregates: Aggregates::INITIAL,
            position: 0,
            written: 0,
            pending: 0,
            pending_bits: 0,
        }
    }

    /// Output elements so far.
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    fn aggregate_values<T: LaneKernels>(&mut self, values: &[T]) {
        match self.aggregate {
            AggregateKind::Omitted => {}
            AggregateKind::Values => self.aggregates.add_values(T::min_max_sum(values)),
            AggregateKind::Bits => {
                let zero = T::default();
                let set = values.iter().filter(|&&v| v != zero).count() as u32;
                if set > 0 {
                    let first = values.iter().position(|&v| v != zero).unwrap_or(0);
                    let last = values.iter().rposition(|&v| v != zero).unwrap_or(0);
                    let a = &mut self.aggregates;
                    if a.first_or_min == u32::MAX {
                        a.first_or_min = (self.position + first as u64) as u32;
                    }
                    a.last_or_max = (self.position + last as u64) as u32;
                    a.sum = a.sum.wrapping_add(set);
                }
            }
        }
    }

    fn aggregate_run(&mut self, value: u32, count: u64) {
        if count == 0 {
            return;
        }
        match self.aggregate {
            AggregateKind::Omitted => {}
            AggregateKind::Values => self.aggregates.add_values(MinMaxSum::run(value, count)),
            AggregateKind::Bits if value != 0 => {
                let a = &mut self.aggregates;
                if a.first_or_min == u32::MAX {
                    a.first_or_min = self.position as u32;
                }
                a.last_or_max = (self.position + count - 1) as u32;
                a.sum = a.sum.wrapping_add(count as u32);
            }
            AggregateKind::Bits => {}
        }
    }

    /// Bytes the output occupies after `extra` more elements (packed and array formats).
    fn bytes_after(&self, extra: u64) -> u64 {
        match self.format {
            Format::Packed { width } => {
                (self.written as u64 * 8 + u64::from(self.pending_bits) + extra * u64::from(width))
                    .div_ceil(8)
            }
            Format::Array { bytes } | Format::Index { bytes, .. } => {
                self.written as u64 + extra * bytes as u64
            }
        }
    }

    fn put_int(&mut self, value: u32, bytes: usize) {
        let encoded = int_bytes(value, bytes, self.big_endian);
        self.dst[self.written..self.written + bytes].copy_from_slice(&encoded[..bytes]);
        self.written += bytes;
    }

    fn put_packed(&mut self, value: u32, width: u32) {
        let value = u64::from(value & self.value_mask);
        if self.big_endian {
            self.pending = (self.pending << width) | value;
            self.pending_bits += width;
            while self.pending_bits >= 8 {
                self.pending_bits -= 8;
                self.dst[self.written] = (self.pending >> self.pending_bits) as u8;
                self.written += 1;
            }
            self.pending &= (1u64 << self.pending_bits) - 1;
        } else {
            self.pending |= value << self.pending_bits;
            self.pending_bits += width;
            while self.pending_bits >= 8 {
                self.dst[self.written] = self.pending as u8;
                self.written += 1;
                self.pending >>= 8;
                self.pending_bits -= 8;
            }
        }
    }

    fn put_index(&mut self, position: u64, bytes: usize, base: u64) -> Result<(), Status> {
        let index = position + base;
        if index > u64::from(u32::MAX >> (32 - 8 * bytes as u32)) {
            return Err(Status::OUTPUT_OVERFLOW_ERR);
        }
        if self.written + bytes > self.dst.len() {
            return Err(Status::DST_IS_SHORT_ERR);
        }
        self.put_int(index as u32, bytes);
        Ok(())
    }

    /// Appends `values`.
    pub(crate) fn values(&mut self, values: &[u32]) -> Result<(), Status> {
        match self.format {
            Format::Index { bytes, base } => {
                for (i, &v) in values.iter().enumerate() {
                    if v != 0 {
                        self.put_index(self.position + i as u64, bytes, base)?;
                    }
                }
            }
            Format::Array { bytes } => {
                if self.bytes_after(values.len() as u64) > self.dst.len() as u64 {
                    return Err(Status::DST_IS_SHORT_ERR);
                }
                let mask = self.value_mask;
                let out = &mut self.dst[self.written..self.written + values.len() * bytes];
                match (bytes, self.big_endian) {
                    (1 | 2, false) if kernels::narrow(kernels::kernels(), values, mask, out) => {}
                    (1, _) => {
                        for (o, &v) in out.iter_mut().zip(values) {
                            *o = (v & mask) as u8;
                        }
                    }
                    (2, false) => {
                        for (o, &v) in out.chunks_exact_mut(2).zip(values) {
                            o.copy_from_slice(&((v & mask) as u16).to_le_bytes());
                        }
                    }
                    (2, true) => {
                        for (o, &v) in out.chunks_exact_mut(2).zip(values) {
                            o.copy_from_slice(&((v & mask) as u16).to_be_bytes());
                        }
                    }
                    (_, false) => {
                        for (o, &v) in out.chunks_exact_mut(4).zip(values) {
                            o.copy_from_slice(&(v & mask).to_le_bytes());
                        }
                    }
                    (_, true) => {
                        for (o, &v) in out.chunks_exact_mut(4).zip(values) {
                            o.copy_from_slice(&(v & mask).to_be_bytes());
                        }
                    }
                }
                self.written += values.len() * bytes;
            }
            Format::Packed { width } => {
                if self.bytes_after(values.len() as u64) > self.dst.len() as u64 {
                    return Err(Status::DST_IS_SHORT_ERR);
                }
                self.put_packed_values(values, width);
            }
        }
        self.aggregate_values(values);
        self.position += values.len() as u64;
        Ok(())
    }

    /// Writes `values` as nominal output of `width` bits (the caller has checked the room):
    /// single values up to a group boundary (8 elements end on a byte boundary), then whole
    /// groups of 8 with [`LaneKernels::pack`], then the rest singly.
    fn put_packed_values<T: LaneKernels>(&mut self, values: &[T], width: u32) {
        let lead = ((8 - self.position % 8) % 8).min(values.len() as u64) as usize;
        for &v in &values[..lead] {
            self.put_packed(v.into(), width);
        }
        let mut rest = &values[lead..];
        if let (0, Some(w)) = (self.pending_bits, BitWidth::new(width)) {
            let groups = rest.len() / 8;
            let bytes = groups * width as usize;
            let out = &mut self.dst[self.written..self.written + bytes];
            T::pack(
                w,
                self.big_endian,
                self.value_mask,
                &rest[..groups * 8],
                out,
            );
            self.written += bytes;
            rest = &rest[groups * 8..];
        }
        for &v in rest {
            self.put_packed(v.into(), width);
        }
    }

    /// Appends `values` given in narrow lanes (select and expand of sources of up to 16
    /// bits): packed straight from the lanes for nominal output, copied for arrays of the
    /// lane's size, through [`Writer::values`] otherwise.
    pub(crate) fn narrow<T: LaneKernels>(&mut self, values: &[T]) -> Result<(), Status> {
        let lane_bytes = std::mem::size_of::<T>();
        let copy = match self.format {
            // Nominal little-endian elements of the lane's size are its bytes.
            Format::Packed { width } => width == 8 * lane_bytes as u32 && !self.big_endian,
            Format::Array { bytes } if bytes == lane_bytes && bytes <= 2 => true,
            _ => {
                for chunk in values.chunks(64) {
                    let mut wide = [0u32; 64];
                    for (w, &v) in wide.iter_mut().zip(chunk) {
                        *w = v.into();
                    }
                    self.values(&wide[..chunk.len()])?;
                }
                return Ok(());
            }
        };
        if self.bytes_after(values.len() as u64) > self.dst.len() as u64 {
            return Err(Status::DST_IS_SHORT_ERR);
        }
        let mask = self.value_mask;
        if copy {
            let out = &mut self.dst[self.written..self.written + std::mem::size_of_val(values)];
            if lane_bytes == 1 {
                for (o, &v) in out.iter_mut().zip(values) {
                    *o = (v.into() & mask) as u8;
                }
            } else {
                for (o, &v) in out.chunks_exact_mut(2).zip(values) {
                    let x = (v.into() & mask) as u16;
                    let x = if self.big_endian {
                        x.to_be_bytes()
                    } else {
                        x.to_le_bytes()
                    };
                    o.copy_from_slice(&x);
                }
            }
            self.written += out.len();
        } else if let Format::Packed { width } = self.format {
            self.put_packed_values(values, width);
        }
        self.aggregate_values(values);
        self.position += values.len() as u64;
        Ok(())
    }

    /// Appends the `count` (≤ [`BLOCK`](crate::kernels::BLOCK)) elements packed at `width`
    /// bits from the start of `src`: straight into the destination when
    /// [`Writer::array_in_place`] allows, through `scratch` otherwise.
    pub(crate) fn packed(
        &mut self,
        src: &[u8],
        width: BitWidth,
        big_endian: bool,
        count: usize,
        scratch: &mut LazyBlock<u32>,
    ) -> Result<(), Status> {
        if self.packed_in_place(src, width, big_endian, count as u64) {
            return Ok(());
        }
        self.values(scratch.unpack(width, big_endian, src, count))
    }

    /// Appends the `count` elements packed at `width` bits from the start of `src` straight
    /// into the destination, when [`Writer::array_in_place`] allows and there is a kernel for
    /// it; `false` (nothing written) otherwise.
    pub(crate) fn packed_in_place(
        &mut self,
        src: &[u8],
        width: BitWidth,
        big_endian: bool,
        count: u64,
    ) -> bool {
        let Some(to) = self.array_in_place(count, width) else {
            return false;
        };
        let chosen = kernels::kernels();
        let (w, aggregate) = (width.get(), to.aggregate);
        match kernels::unpack_to_le_bytes(chosen, w, big_endian, src, to.out, aggregate) {
            Some(aggregates) => {
                self.wrote_array(count, aggregates);
                true
            }
            None => false,
        }
    }

    /// Appends the first `count` values of the hybrid stream `data` of `width` bits straight
    /// into the destination as far as the stream is well-formed, when
    /// [`Writer::array_in_place`] allows and there is a kernel for it: `Some((values,
    /// bytes))` appended and consumed; `None` (nothing written) otherwise.
    pub(crate) fn hybrid_in_place(
        &mut self,
        data: &[u8],
        width: BitWidth,
        count: u64,
    ) -> Option<(usize, usize)> {
        let to = self.array_in_place(count, width)?;
        let (chosen, w) = (kernels::kernels(), width.get());
        let (done, used, aggregates) =
            kernels::hybrid_to_le_bytes(chosen, w, data, to.mask, to.out, to.aggregate)?;
        self.wrote_array(done as u64, aggregates);
        Some((done, used))
    }

    /// Where the next `count` elements of `width` bits go when the caller may write them
    /// straight into the destination as little-endian `u32`s: a plain little-endian 32-bit
    /// array, with room for them, without aggregates or with value aggregates (not the bit
    /// aggregates of a forced 0/1 array), whose value mask keeps every bit of the width (so
    /// unpacked values need none). Then [`Writer::wrote_array`] accounts for them.
    fn array_in_place(&mut self, count: u64, width: BitWidth) -> Option<InPlace<'_>> {
        let direct = self.format == (Format::Array { bytes: 4 })
            && !self.big_endian
            && self.aggregate != AggregateKind::Bits
            && self.value_mask & width.mask() == width.mask();
        if !direct || self.bytes_after(count) > self.dst.len() as u64 {
            return None;
        }
        let len = 4 * count as usize;
        Some(InPlace {
            out: &mut self.dst[self.written..self.written + len],
            mask: self.value_mask,
            aggregate: self.aggregate == AggregateKind::Values,
        })
    }

    /// Accounts for `count` elements written through [`Writer::array_in_place`], whose value
    /// aggregates are `aggregates` (when it asked for them).
    fn wrote_array(&mut self, count: u64, aggregates: MinMaxSum) {
        if self.aggregate == AggregateKind::Values {
            self.aggregates.add_values(aggregates);
        }
        self.written += 4 * count as usize;
        self.position += count;
    }

    /// Writes the whole output as `count` elements of `width` bits whose bits are already in
    /// output order: bits `start_bit..start_bit + count·width` of `src` (LSB-first bytes for a
    /// little-endian output, MSB-first otherwise). Only for an empty writer whose format
    /// holds elements of exactly `width` bits (nominal packing, or arrays of `width / 8`
    /// bytes) unmasked, without aggregates: extract of a packed array in its own bit order.
    pub(crate) fn copy_bits(
        &mut self,
        src: &[u8],
        start_bit: u64,
        count: u64,
        width: u32,
    ) -> Result<(), Status> {
        if self.position != 0 || self.pending_bits != 0 {
            return Err(Status::LIBRARY_INTERNAL_ERR);
        }
        if self.bytes_after(count) > self.dst.len() as u64 {
            return Err(Status::DST_IS_SHORT_ERR);
        }
        let bits = count * u64::from(width);
        let bytes = bits.div_ceil(8) as usize;
        let shift = (start_bit % 8) as u32;
        let first = (start_bit / 8) as usize;
        // The bytes holding the bits: ⌈(shift + bits)/8⌉ of them, which validation found.
        let held = (u64::from(shift) + bits).div_ceil(8) as usize;
        let src = src
            .get(first..first + held)
            .ok_or(Status::LIBRARY_INTERNAL_ERR)?;
        let out = &mut self.dst[..bytes];
        if shift == 0 {
            out.copy_from_slice(&src[..bytes]);
        } else {
            for (j, o) in out.iter_mut().enumerate() {
                let (a, b) = (src[j], src.get(j + 1).copied().unwrap_or(0));
                *o = if self.big_endian {
                    (a << shift) | (b >> (8 - shift))
                } else {
                    (a >> shift) | (b << (8 - shift))
                };
            }
        }
        // Zero the bits after the last element (the padding of a partial last byte).
        let tail = (bits % 8) as u32;
        if tail != 0 {
            let keep = if self.big_endian {
                0xFFu8 << (8 - tail)
            } else {
                0xFFu8 >> (8 - tail)
            };
            out[bytes - 1] &= keep;
        }
        self.written = bytes;
        self.position = count;
        Ok(())
    }

    /// Appends `count` 1-bit elements given as an LSB-first bit vector (`bits` holds
    /// ⌈count/8⌉ bytes, zero above `count`): the scans' output, without a 0/1 array between.
    pub(crate) fn bits(&mut self, bits: &[u8], count: usize) -> Result<(), Status> {
        let whole = count / 8;
        match self.format {
            Format::Packed { width: 1 } if self.pending_bits == 0 => {
                if self.bytes_after(count as u64) > self.dst.len() as u64 {
                    return Err(Status::DST_IS_SHORT_ERR);
                }
                let out = &mut self.dst[self.written..self.written + whole];
                if self.big_endian {
                    for (o, b) in out.iter_mut().zip(bits) {
                        *o = b.reverse_bits();
                    }
                } else {
                    out.copy_from_slice(&bits[..whole]);
                }
                self.written += whole;
                for j in 0..count % 8 {
                    self.put_packed(u32::from(bits[whole] >> j) & 1, 1);
                }
            }
            Format::Index { bytes, base } => {
                for (i, &byte) in bits.iter().enumerate() {
                    let mut rest = byte;
                    while rest != 0 {
                        let position =
                            self.position + (i * 8) as u64 + u64::from(rest.trailing_zeros());
                        self.put_index(position, bytes, base)?;
                        rest &= rest - 1;
                    }
                }
            }
            _ => {
                // Forced arrays, or a bit vector not on a byte boundary: 64 elements at a
                // time through `values`, which also aggregates and advances.
                let mut block = [0u32; 64];
                let mut done = 0;
                while done < count {
                    let len = (count - done).min(64);
                    for (j, slot) in block[..len].iter_mut().enumerate() {
                        let k = done + j;
                        *slot = u32::from(bits[k / 8] >> (k % 8)) & 1;
                    }
                    self.values(&block[..len])?;
                    done += len;
                }
                return Ok(());
            }
        }
        self.aggregate_bits(bits);
        self.position += count as u64;
        Ok(())
    }

    /// Bit aggregates of a bit vector whose bits above its element count are zero.
    fn aggregate_bits(&mut self, bits: &[u8]) {
        if self.aggregate == AggregateKind::Bits {
            add_bit_aggregates(&mut self.aggregates, self.position, bits);
        }
    }

    /// Where the next `count` elements of a little-endian nominal bit vector go, when the
    /// caller may write them straight into the destination (on a byte boundary, `count` a
    /// multiple of 8, room for them); then [`Writer::wrote_bits`] accounts for them.
    pub(crate) fn bits_in_place(&mut self, count: usize) -> Option<&mut [u8]> {
        let whole = self.format == Format::Packed { width: 1 }
            && !self.big_endian
            && self.pending_bits == 0
            && count.is_multiple_of(8);
        if !whole || self.bytes_after(count as u64) > self.dst.len() as u64 {
            return None;
        }
        Some(&mut self.dst[self.written..self.written + count / 8])
    }

    /// Accounts for `count` elements written through [`Writer::bits_in_place`].
    pub(crate) fn wrote_bits(&mut self, count: usize) {
        let bytes = &self.dst[self.written..self.written + count / 8];
        if self.aggregate == AggregateKind::Bits {
            add_bit_aggregates(&mut self.aggregates, self.position, bytes);
        }
        self.written += count / 8;
        self.position += count as u64;
    }

    /// Appends `count` copies of `value`. Costs O(1) when nothing is written (an index list
    /// of zeros), otherwise O(output), which the destination's size bounds.
    pub(crate) fn run(&mut self, value: u32, count: u64) -> Result<(), Status> {
        match self.format {
            Format::Index { bytes, base } => {
                if value != 0 {
                    for i in 0..count {
                        self.put_index(self.position + i, bytes, base)?;
                    }
                }
            }
            Format::Array { bytes } => {
                if self.bytes_after(count) > self.dst.len() as u64 {
                    return Err(Status::DST_IS_SHORT_ERR);
                }
                let element = int_bytes(value & self.value_mask, bytes, self.big_endian);
                let len = count as usize * bytes;
                let out = &mut self.dst[self.written..self.written + len];
                // One loop per element size, so each is a fixed-size store (not a memcpy call
                // per element).
                match bytes {
                    1 => out.fill(element[0]),
                    2 => {
                        let e = [element[0], element[1]];
                        for o in out.chunks_exact_mut(2) {
                            o.copy_from_slice(&e);
                        }
                    }
                    _ => {
                        if !kernels::fill4(kernels::kernels(), element, out) {
                            for o in out.chunks_exact_mut(4) {
                                o.copy_from_slice(&element);
                            }
                        }
                    }
                }
                self.written += len;
            }
            Format::Packed { width } => {
                if self.bytes_after(count) > self.dst.len() as u64 {
                    return Err(Status::DST_IS_SHORT_ERR);
                }
                let mut left = count;
                if width == 1 {
                    // Bit vectors: up to a byte boundary, then whole bytes.
                    while left > 0 && self.pending_bits != 0 {
                        self.put_packed(value, 1);
                        left -= 1;
                    }
                    let whole = (left / 8) as usize;
                    let byte = if value & self.value_mask != 0 {
                        0xFF
                    } else {
                        0
                    };
                    self.dst[self.written..self.written + whole].fill(byte);
                    self.written += whole;
                    left %= 8;
                }
                for _ in 0..left {
                    self.put_packed(value, width);
                }
            }
        }
        self.aggregate_run(value, count);
        self.position += count;
        Ok(())
    }

    /// Flushes a partial packed byte (zero-padded) and returns (bytes written, aggregates).
    pub(crate) fn finish(mut self) -> (u32, Aggregates) {
        if self.pending_bits > 0 {
            let byte = if self.big_endian {
                self.pending << (8 - self.pending_bits)
            } else {
                self.pending
            };
            self.dst[self.written] = byte as u8;
            self.written += 1;
        }
        (self.written as u32, self.aggregates)
    }
}
