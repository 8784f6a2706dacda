//! A flat column of INT32, INT64, FLOAT or DOUBLE values (and the types they become: dates,
//! timestamps, decimals, small integers), or of FIXED_LEN_BYTE_ARRAY decimals of up to 16
//! bytes read as Decimal128 (pyarrow's decimals), FLOAT16s and FixedSizeBinary(16)s (UUIDs),
//! written straight into arrays of the reader's
//! batches, as arrow-rs's reader does: a dictionary page's indices are decoded into a buffer
//! kept across pages and each selected row's entry gathered once into a batch-sized buffer
//! (widened there for a Decimal128); a PLAIN page's selected values are copied from the page.
//! (Made a page-sized array, then sliced and concatenated into batches, a page's values were
//! written three times where a batch crossed pages, and its page-sized allocations, handed
//! back to the system page after page, faulted in again: a dictionary INT64 column read as
//! Decimal128 took 4x arrow-rs's time.)

use std::sync::Arc;

use arrow_array::types::{
    Decimal128Type, Float16Type, Float32Type, Float64Type, Int32Type, Int64Type,
};
use arrow_array::{ArrayRef, ArrowPrimitiveType, FixedSizeBinaryArray, PrimitiveArray};
use arrow_buffer::{
    ArrowNativeType, BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, ScalarBuffer,
};
use arrow_schema::{ArrowError, DataType};
use half::f16 as F16;
use qpl_fallback::parquet::FixedWidth;

use super::convert::{coerce_i32, coerce_i64, converts, spread_words};
use super::selection::{fragmented, selected_positions};
use super::view::append_validity;
use crate::parquet::{PhysicalType, Values};

fn error(message: impl std::fmt::Display) -> ArrowError {
    ArrowError::ParquetError(message.to_string())
}

/// A page's non-null values, as the page decoder left them.
#[derive(Clone)]
pub(crate) enum Dense<'a> {
    /// Decoded values (DELTA, BYTE_STREAM_SPLIT), of the column's physical type: those in
    /// the range (a page fed a batch at a time).
    Decoded(&'a Values, std::ops::Range<usize>),
    /// PLAIN bytes: exactly the non-null values, little-endian.
    Plain(&'a [u8]),
    /// Dictionary indices (decoded, not checked) into the chunk's dictionary.
    Dictionary(&'a [u32], Option<&'a Values>),
    /// One dictionary index (not checked) repeated this many times: a run of the page.
    Repeated(u32, usize, Option<&'a Values>),
}

/// How a page's bytes become a batch's value where one pair of types has two readings
/// ([`Widen`]'s `H`): as they are (the default), or as a big-endian decimal.
struct AsIs;
/// See [`AsIs`].
struct BigEndian;

/// A page's values of physical type `P`, read as values of `Self`: the same (the batch's
/// type is the page's) or widened (a Decimal128 of INT32 or INT64), as `H` says where the
/// types alone do not (16 bytes as a Decimal128 or as a FixedSizeBinary's value).
trait Widen<P: FixedWidth, H = AsIs>: ArrowNativeType + Default {
    fn widen(value: P) -> Self;

    /// Appends the PLAIN values `bytes` holds (a whole number of them) to `out`, widened.
    fn copy_plain(bytes: &[u8], out: &mut Vec<Self>) {
        out.extend(
            bytes
                .chunks_exact(P::SIZE)
                .map(|b| Self::widen(P::from_le_slice(b))),
        );
    }

    /// Appends `dictionary[i]` for each of `indices` (each checked to be in it) to `out`,
    /// widened. A small dictionary, gathered for at least 4 rows an entry, is widened once
    /// into a table and its entries gathered: one store a row, where widening each row's
    /// value into a Decimal128 takes a sign shift and two.
    fn gather(indices: &[u32], dictionary: &[P], out: &mut Vec<Self>) {
        let len = dictionary.len();
        if len == 0 {
            out.resize(out.len() + indices.len(), Self::default());
            return;
        }
        let last = len - 1;
        if len > WIDE_TABLE || indices.len() < 4 * len {
            // The clamp (no checked index changes) drops the bounds check from the loop.
            out.extend(
                indices
                    .iter()
                    .map(|&i| Self::widen(dictionary[(i as usize).min(last)])),
            );
            return;
        }
        let mut table = [Self::default(); WIDE_TABLE];
        for (entry, &value) in table.iter_mut().zip(dictionary) {
            *entry = Self::widen(value);
        }
        // The indices were checked below `len`; the clamp and the mask (neither changes a
        // checked index) keep every lookup inside the table without a bounds check.
        out.extend(
            indices
                .iter()
                .map(|&i| table[(i as usize).min(last) & (WIDE_TABLE - 1)]),
        );
    }
}

/// Entries of a dictionary widened once into a table on the stack ([`Widen::gather`];
/// TPC-H's decimals have 9 to 50).
const WIDE_TABLE: usize = 64;

macro_rules! same {
    ($($t:ty),*) => {$(
        impl Widen<$t> for $t {
            fn widen(value: $t) -> $t {
                value
            }

            fn copy_plain(bytes: &[u8], out: &mut Vec<$t>) {
                // One copy into the batch's room (a loop of loads and stores took 1.4x
                // arrow-rs's memcpy on a PLAIN INT32 column). `bytes` holds whole values, so
                // the decode cannot fall short.
                let n = bytes.len() / <$t as FixedWidth>::SIZE;
                qpl_fallback::parquet::plain::decode_append(bytes, n, out).ok();
            }

            fn gather(indices: &[u32], dictionary: &[$t], out: &mut Vec<$t>) {
                // The fallback's gather kernels (4- and 8-byte words on AVX2, from registers
                // for dictionaries of up to 16 and 8 entries), into the batch's spare room
                // (zeroing it first was 6 % of a lineitem read); the indices were checked
                // ([`source`]), so they are not checked again.
                qpl_fallback::parquet::dictionary::gather_clamped_append(indices, dictionary, out);
            }
        }
    )*};
}
same!(i32, i64, f32, f64);

impl Widen<i32> for i128 {
    fn widen(value: i32) -> i128 {
        value.into()
    }
}

impl Widen<i64> for i128 {
    fn widen(value: i64) -> i128 {
        value.into()
    }
}

/// A FIXED_LEN_BYTE_ARRAY decimal of `W` bytes (big-endian two's complement, as Parquet stores
/// it) as a Decimal128: its bytes at the top of 16, shifted down with the sign (a byte swap
/// and an arithmetic shift; pyarrow writes its decimals so, 7 bytes for a precision of 15).
impl<const W: usize> Widen<[u8; W], BigEndian> for i128
where
    [u8; W]: FixedWidth,
{
    fn widen(value: [u8; W]) -> i128 {
        let mut bytes = [0u8; 16];
        bytes[..W].copy_from_slice(&value);
        i128::from_be_bytes(bytes) >> (8 * (16 - W))
    }
}

/// A FixedSizeBinary value of 16 bytes (a UUID) held as an `i128` whose memory is the bytes,
/// in their order: the batch's buffer is then the array's values.
impl Widen<[u8; 16]> for i128 {
    fn widen(value: [u8; 16]) -> i128 {
        i128::from_ne_bytes(value)
    }
}

/// A FLOAT16 (FIXED_LEN_BYTE_ARRAY of 2 bytes, little-endian, as Parquet stores it).
impl Widen<[u8; 2]> for F16 {
    fn widen(value: [u8; 2]) -> F16 {
        F16::from_le_bytes(value)
    }
}

/// The physical types of the values a page holds.
trait Physical: FixedWidth {
    /// `values`, if they are of this type.
    fn slice_of(values: &Values) -> Option<&[Self]>;
}

macro_rules! physical {
    ($($t:ty: $variant:ident),*) => {$(
        impl Physical for $t {
            fn slice_of(values: &Values) -> Option<&[$t]> {
                match values {
                    Values::$variant(values) => Some(values),
                    _ => None,
                }
            }
        }
    )*};
}
physical!(i32: Int32, i64: Int64, f32: Float, f64: Double);

/// FIXED_LEN_BYTE_ARRAY values of `W` bytes: decoded ones (their `W`-byte values back to back,
/// as the decoders leave them) viewed as values of `W` bytes.
impl<const W: usize> Physical for [u8; W]
where
    [u8; W]: FixedWidth,
{
    fn slice_of(values: &Values) -> Option<&[[u8; W]]> {
        let Values::Bytes(arrays) = values else {
            return None;
        };
        let (chunks, rest) = arrays.values.as_chunks::<W>();
        (rest.is_empty() && chunks.len() == arrays.len()).then_some(chunks)
    }
}

/// Where an append's values come from.
#[derive(Clone, Copy)]
enum Source<'a, P> {
    Values(&'a [P]),
    Plain(&'a [u8]),
    /// Indices, each checked to be in the dictionary.
    Dictionary(&'a [u32], &'a [P]),
    /// One value, this many times.
    Repeat(P, usize),
}

impl<P: FixedWidth> Source<'_, P> {
    /// Appends values `from..from + n` (in bounds: checked by the caller) to `out`.
    fn copy_to<N: Widen<P, H>, H>(&self, out: &mut Vec<N>, from: usize, n: usize) {
        match self {
            Source::Values(values) => {
                out.extend(values[from..from + n].iter().map(|&v| N::widen(v)))
            }
            Source::Plain(bytes) => {
                N::copy_plain(&bytes[from * P::SIZE..(from + n) * P::SIZE], out)
            }
            Source::Dictionary(indices, dictionary) => {
                N::gather(&indices[from..from + n], dictionary, out)
            }
            Source::Repeat(value, _) => out.resize(out.len() + n, N::widen(*value)),
        }
    }

    /// Value `i`, or the default past the end (the caller checked there is none).
    fn get(&self, i: usize) -> P {
        match self {
            Source::Values(values) => values.get(i).copied(),
            Source::Plain(bytes) => bytes
                .get(i * P::SIZE..(i + 1) * P::SIZE)
                .map(P::from_le_slice),
            Source::Dictionary(indices, dictionary) => indices
                .get(i)
                .and_then(|&d| dictionary.get(d as usize).copied()),
            Source::Repeat(value, count) => (i < *count).then_some(*value),
        }
        .unwrap_or_default()
    }
}

/// A page's selected values, gathered ([`Source::compact`]).
enum Compacted<'a, P> {
    Values(Vec<P>),
    Dictionary(Vec<u32>, &'a [P]),
}

impl<P: FixedWidth> Compacted<'_, P> {
    fn source(&self) -> Source<'_, P> {
        match self {
            Compacted::Values(values) => Source::Values(values),
            Compacted::Dictionary(indices, dictionary) => Source::Dictionary(indices, dictionary),
        }
    }
}

impl<'a, P: FixedWidth> Source<'a, P> {
    /// The values at `positions` (each below the source's length).
    fn compact(&self, positions: &[u32]) -> Compacted<'a, P> {
        match *self {
            Source::Dictionary(indices, dictionary) => Compacted::Dictionary(
                positions
                    .iter()
                    .map(|&p| indices.get(p as usize).copied().unwrap_or_default())
                    .collect(),
                dictionary,
            ),
            _ => Compacted::Values(positions.iter().map(|&p| self.get(p as usize)).collect()),
        }
    }
}

/// Appends `valid.len()` rows to `out`: the rows `valid` sets take the values of `source`
/// from `from` on, in order, the others unspecified values ([`spread_words`]).
fn spread_into<P: FixedWidth, N: Widen<P, H>, H>(
    out: &mut Vec<N>,
    source: Source<'_, P>,
    from: usize,
    valid: &BooleanBuffer,
) {
    let copy = |out: &mut Vec<N>, at: usize, n: usize| source.copy_to::<N, H>(out, at, n);
    spread_words(out, valid, from, copy);
}

/// Where a page's feeding is: the column's rows queued before the batch being filled, and
/// the page's next value.
struct Cut {
    position: usize,
    next: usize,
}

/// A batch's values and validity, as filled.
type Filled<N> = (ScalarBuffer<N>, Option<NullBuffer>);

/// The batch being filled, of values of `N`.
struct Batch<N> {
    values: Vec<N>,
    validity: Option<BooleanBufferBuilder>,
    batch_size: usize,
}

impl<N: ArrowNativeType + Default> Batch<N> {
    fn new(batch_size: usize) -> Batch<N> {
        Batch {
            values: Vec::new(),
            validity: None,
            batch_size,
        }
    }

    /// Appends the selected rows of a page (see [`OpenFixed::feed`]; `source` checked to hold
    /// the page's values); returns the batches filled.
    fn feed<P: FixedWidth, H>(
        &mut self,
        source: Source<'_, P>,
        validity: Option<&BooleanBuffer>,
        rows: usize,
        selected: Option<&BooleanBuffer>,
        queued: usize,
    ) -> Vec<Filled<N>>
    where
        N: Widen<P, H>,
    {
        let mut full = Vec::new();
        let mut at = Cut {
            position: queued,
            next: 0,
        };
        match selected {
            None => self.fill::<P, H>(source, validity, 0..rows, &mut at, &mut full),
            Some(selected) if fragmented(selected) => {
                // Runs of a few rows: the selected rows' values (or indices) gathered first,
                // then appended as one page (a run at a time, the per-run work outweighed the
                // copy: a DataFusion join's filter left runs of one or two rows).
                let (positions, valid) = selected_positions(validity, selected);
                let compacted = source.compact(&positions);
                let n = selected.count_set_bits();
                let source = compacted.source();
                self.fill::<P, H>(source, valid.as_ref(), 0..n, &mut at, &mut full);
            }
            Some(selected) => {
                let mut passed = 0;
                for (from, to) in selected.set_slices() {
                    // The values of the rows passed over are skipped.
                    at.next += validity.map_or(from - passed, |v| {
                        v.slice(passed, from - passed).count_set_bits()
                    });
                    self.fill::<P, H>(source, validity, from..to, &mut at, &mut full);
                    passed = to;
                }
            }
        }
        full
    }

    /// Appends the page's rows `range`, a batch at a time; full batches go to `full`.
    fn fill<P: FixedWidth, H>(
        &mut self,
        source: Source<'_, P>,
        validity: Option<&BooleanBuffer>,
        range: std::ops::Range<usize>,
        at: &mut Cut,
        full: &mut Vec<Filled<N>>,
    ) where
        N: Widen<P, H>,
    {
        let mut row = range.start;
        while row < range.end {
            let before = self.values.len();
            let room = self.batch_size - (at.position + before) % self.batch_size;
            let n = room.min(range.end - row);
            if before == 0 {
                self.values.reserve(self.batch_size);
            }
            let valid = validity.map(|v| v.slice(row, n));
            let present = valid.as_ref().map_or(n, |v| v.count_set_bits());
            let valid = valid.filter(|_| present < n);
            match &valid {
                None => source.copy_to::<N, H>(&mut self.values, at.next, n),
                Some(valid) => spread_into::<P, N, H>(&mut self.values, source, at.next, valid),
            }
            at.next += present;
            append_validity(
                &mut self.validity,
                valid.as_ref(),
                before,
                n,
                self.batch_size,
            );
            row += n;
            if (at.position + self.values.len()).is_multiple_of(self.batch_size) {
                // The next batch's room is taken when its first rows come, not now: held
                // beside every column's finished batch, it added a batch of each column to
                // the read's peak heap. (It was taken early for glibc, which handed a freed
                // batch at the heap's top back to the system; fed a batch at a time, pages
                // no longer leave finished batches behind, and the `reader/` times did not
                // move either way.)
                let filled = self.finish();
                at.position += filled.0.len();
                full.push(filled);
            }
        }
    }

    /// The batch's values and validity; the batch is empty after.
    fn finish(&mut self) -> Filled<N> {
        let nulls = self
            .validity
            .take()
            .map(|mut v| NullBuffer::new(v.finish()))
            .filter(|n| n.null_count() > 0);
        (ScalarBuffer::from(std::mem::take(&mut self.values)), nulls)
    }
}

/// The batch being filled: in the column's physical type (converted to the column's type
/// when full), or as Decimal128 values.
enum Typed {
    Int32(Batch<i32>),
    Int64(Batch<i64>),
    Float(Batch<f32>),
    Double(Batch<f64>),
    Decimal128(Batch<i128>),
    Float16(Batch<F16>),
    /// FixedSizeBinary(16), each value's bytes an `i128`'s memory.
    FixedBinary16(Batch<i128>),
}

/// The batch being filled of a flat fixed-width column, across its pages.
pub(crate) struct OpenFixed {
    batch: Typed,
    physical: PhysicalType,
    data_type: DataType,
}

impl OpenFixed {
    /// For a column of `physical` values read as `data_type`: `Some` for INT32, INT64, FLOAT
    /// and DOUBLE read as a type they convert to, for FIXED_LEN_BYTE_ARRAY decimals of up to
    /// 16 bytes read as Decimal128, for FLOAT16, and for FixedSizeBinary(16) (UUIDs).
    pub fn new(
        physical: PhysicalType,
        data_type: &DataType,
        batch_size: usize,
    ) -> Option<OpenFixed> {
        if !converts(physical, data_type) {
            return None;
        }
        let batch_size = batch_size.max(1);
        let batch = match (physical, data_type) {
            (
                PhysicalType::Int32 | PhysicalType::Int64 | PhysicalType::FixedLenByteArray(1..=16),
                DataType::Decimal128(_, _),
            ) => Typed::Decimal128(Batch::new(batch_size)),
            (PhysicalType::FixedLenByteArray(2), DataType::Float16) => {
                Typed::Float16(Batch::new(batch_size))
            }
            (PhysicalType::FixedLenByteArray(16), DataType::FixedSizeBinary(16)) => {
                Typed::FixedBinary16(Batch::new(batch_size))
            }
            (PhysicalType::Int32, _) => Typed::Int32(Batch::new(batch_size)),
            (PhysicalType::Int64, _) => Typed::Int64(Batch::new(batch_size)),
            (PhysicalType::Float, _) => Typed::Float(Batch::new(batch_size)),
            (PhysicalType::Double, _) => Typed::Double(Batch::new(batch_size)),
            _ => return None,
        };
        Some(OpenFixed {
            batch,
            physical,
            data_type: data_type.clone(),
        })
    }

    /// Rows in the batch being filled.
    pub fn len(&self) -> usize {
        match &self.batch {
            Typed::Int32(b) => b.values.len(),
            Typed::Int64(b) => b.values.len(),
            Typed::Float(b) => b.values.len(),
            Typed::Double(b) => b.values.len(),
            Typed::Decimal128(b) => b.values.len(),
            Typed::Float16(b) => b.values.len(),
            Typed::FixedBinary16(b) => b.values.len(),
        }
    }

    /// Appends the selected rows (`selected`; `None`: all) of a page of `rows` rows whose rows
    /// with a value (`validity`; `None`: all) hold `dense`, in order. `queued` rows of the
    /// column were queued before the batch being filled; returns the batches filled, cut where
    /// the reader's batches end.
    pub fn feed(
        &mut self,
        dense: Dense<'_>,
        validity: Option<&BooleanBuffer>,
        rows: usize,
        selected: Option<&BooleanBuffer>,
        queued: usize,
    ) -> Result<Vec<ArrayRef>, ArrowError> {
        if validity.is_some_and(|v| v.len() != rows) || selected.is_some_and(|s| s.len() != rows) {
            return Err(error(format!(
                "a page of {rows} rows with validity or a selection of another length"
            )));
        }
        let present = validity.map_or(rows, |v| v.count_set_bits());
        let data_type = &self.data_type;
        macro_rules! feed {
            ($batch:expr, $physical:ty, $make:expr) => {
                feed!($batch, $physical, AsIs, $make)
            };
            ($batch:expr, $physical:ty, $how:ty, $make:expr) => {{
                let source: Source<'_, $physical> = source(dense, present)?;
                let filled =
                    $batch.feed::<$physical, $how>(source, validity, rows, selected, queued);
                filled
                    .into_iter()
                    .map(|(values, nulls)| $make(values, nulls, data_type))
                    .collect()
            }};
        }
        match (&mut self.batch, self.physical) {
            (Typed::Int32(batch), _) => feed!(batch, i32, int32_array),
            (Typed::Int64(batch), _) => feed!(batch, i64, int64_array),
            (Typed::Float(batch), _) => feed!(batch, f32, primitive_array::<Float32Type>),
            (Typed::Double(batch), _) => feed!(batch, f64, primitive_array::<Float64Type>),
            (Typed::Float16(batch), _) => feed!(batch, [u8; 2], primitive_array::<Float16Type>),
            (Typed::FixedBinary16(batch), _) => feed!(batch, [u8; 16], fixed_binary16_array),
            (Typed::Decimal128(batch), PhysicalType::Int32) => {
                feed!(batch, i32, decimal128_array)
            }
            (Typed::Decimal128(batch), PhysicalType::FixedLenByteArray(width)) => {
                macro_rules! widths {
                    ($($w:literal),*) => {
                        match width {
                            $($w => feed!(batch, [u8; $w], BigEndian, decimal128_array),)*
                            _ => Err(error(format!(
                                "a decimal of {width} bytes read as Decimal128"
                            ))),
                        }
                    };
                }
                widths!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)
            }
            (Typed::Decimal128(batch), _) => feed!(batch, i64, decimal128_array),
        }
    }

    /// A whole piece of PLAIN values without nulls (`bytes`, a slice of the page) as an
    /// array over the page's memory, no value copied: `None` (the values are then fed) where
    /// the batch being filled already holds rows, the column's values change on the way
    /// (widened, or read as another type), or the bytes are not aligned for their type (an
    /// uncompressed page's values start where its header ends; a decompressed page's
    /// buffer is the allocator's). The array keeps the page's buffer alive while it lives.
    pub fn plain_batch(&self, bytes: &bytes::Bytes) -> Option<Result<ArrayRef, ArrowError>> {
        /// `bytes` as `T`s where they are aligned for them.
        fn values<T: ArrowNativeType>(bytes: &bytes::Bytes) -> Option<ScalarBuffer<T>> {
            let size = std::mem::size_of::<T>();
            let aligned = bytes.as_ptr().align_offset(std::mem::align_of::<T>()) == 0;
            (aligned && bytes.len().is_multiple_of(size))
                .then(|| ScalarBuffer::new(Buffer::from(bytes.clone()), 0, bytes.len() / size))
        }
        if self.len() != 0 {
            return None;
        }
        let data_type = &self.data_type;
        match (&self.batch, self.physical) {
            (Typed::Int32(_), PhysicalType::Int32) => {
                values(bytes).map(|v| int32_array(v, None, data_type))
            }
            (Typed::Int64(_), PhysicalType::Int64) => {
                values(bytes).map(|v| int64_array(v, None, data_type))
            }
            (Typed::Float(_), PhysicalType::Float) => {
                values(bytes).map(|v| primitive_array::<Float32Type>(v, None, data_type))
            }
            (Typed::Double(_), PhysicalType::Double) => {
                values(bytes).map(|v| primitive_array::<Float64Type>(v, None, data_type))
            }
            _ => None,
        }
    }

    /// The batch's rows as an array of the column's type; the batch is empty after.
    pub fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        let data_type = &self.data_type;
        match &mut self.batch {
            Typed::Int32(batch) => finish(batch, data_type, int32_array),
            Typed::Int64(batch) => finish(batch, data_type, int64_array),
            Typed::Float(batch) => finish(batch, data_type, primitive_array::<Float32Type>),
            Typed::Double(batch) => finish(batch, data_type, primitive_array::<Float64Type>),
            Typed::Decimal128(batch) => finish(batch, data_type, decimal128_array),
            Typed::Float16(batch) => finish(batch, data_type, primitive_array::<Float16Type>),
            Typed::FixedBinary16(batch) => finish(batch, data_type, fixed_binary16_array),
        }
    }
}

/// An array's maker: its values, validity and the column's type.
type Make<N> = fn(ScalarBuffer<N>, Option<NullBuffer>, &DataType) -> Result<ArrayRef, ArrowError>;

fn finish<N: ArrowNativeType + Default>(
    batch: &mut Batch<N>,
    data_type: &DataType,
    make: Make<N>,
) -> Result<ArrayRef, ArrowError> {
    let (values, nulls) = batch.finish();
    make(values, nulls, data_type)
}

/// The entries of the chunk's dictionary (`None`: no dictionary page came), which a page
/// uses (or not: none needed).
fn entries<P: Physical>(dictionary: Option<&Values>, used: bool) -> Result<&[P], ArrowError> {
    match dictionary {
        Some(values) => P::slice_of(values)
            .ok_or_else(|| error("the chunk's dictionary holds values of another type")),
        None if !used => Ok(&[]),
        None => Err(error(
            "a dictionary-encoded data page, but the chunk had no dictionary page before it",
        )),
    }
}

/// The page's values of physical type `P` as a source, checked to hold `present` values
/// (dictionary indices checked to be in the dictionary).
fn source<P: Physical>(dense: Dense<'_>, present: usize) -> Result<Source<'_, P>, ArrowError> {
    let (source, len) = match dense {
        Dense::Decoded(values, range) => {
            let values = P::slice_of(values)
                .ok_or_else(|| error("a page decoded to values of another type"))?;
            let values = values
                .get(range)
                .ok_or_else(|| error("fewer decoded values than rows with a value"))?;
            (Source::Values(values), values.len())
        }
        Dense::Plain(bytes) => {
            if bytes.len() % P::SIZE != 0 {
                return Err(error(format!(
                    "{} bytes of PLAIN values of {} bytes each",
                    bytes.len(),
                    P::SIZE
                )));
            }
            (Source::Plain(bytes), bytes.len() / P::SIZE)
        }
        Dense::Dictionary(indices, dictionary) => {
            let entries = entries(dictionary, !indices.is_empty())?;
            let max = qpl_fallback::parquet::dictionary::largest_index(indices);
            if !indices.is_empty() && max as usize >= entries.len() {
                let at = indices.iter().position(|&i| i == max).unwrap_or_default();
                return Err(error(format!(
                    "dictionary index {max} at value {at} is past the dictionary's {} entries",
                    entries.len()
                )));
            }
            (Source::Dictionary(indices, entries), indices.len())
        }
        Dense::Repeated(index, count, dictionary) => {
            let entries = entries(dictionary, count > 0)?;
            let Some(&value) = entries.get(index as usize) else {
                return Err(error(format!(
                    "dictionary index {index} is past the dictionary's {} entries",
                    entries.len()
                )));
            };
            (Source::Repeat(value, count), count)
        }
    };
    if len != present {
        return Err(error(format!(
            "{len} values for {present} rows with a value"
        )));
    }
    Ok(source)
}

fn int32_array(
    values: ScalarBuffer<i32>,
    nulls: Option<NullBuffer>,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    coerce_i32(PrimitiveArray::<Int32Type>::new(values, nulls), data_type)
}

fn int64_array(
    values: ScalarBuffer<i64>,
    nulls: Option<NullBuffer>,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    coerce_i64(PrimitiveArray::<Int64Type>::new(values, nulls), data_type)
}

/// An array of `T`'s values as they are (floats of every width: the column's type is `T`'s).
fn primitive_array<T: ArrowPrimitiveType>(
    values: ScalarBuffer<T::Native>,
    nulls: Option<NullBuffer>,
    _: &DataType,
) -> Result<ArrayRef, ArrowError> {
    Ok(Arc::new(PrimitiveArray::<T>::new(values, nulls)))
}

fn fixed_binary16_array(
    values: ScalarBuffer<i128>,
    nulls: Option<NullBuffer>,
    _: &DataType,
) -> Result<ArrayRef, ArrowError> {
    Ok(Arc::new(FixedSizeBinaryArray::try_new(
        16,
        values.into_inner(),
        nulls,
    )?))
}

fn decimal128_array(
    values: ScalarBuffer<i128>,
    nulls: Option<NullBuffer>,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    let DataType::Decimal128(precision, scale) = data_type else {
        return Err(error(format!("Decimal128 values read as {data_type}")));
    };
    Ok(Arc::new(
        PrimitiveArray::<Decimal128Type>::new(values, nulls)
            .with_precision_and_scale(*precision, *scale)?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Decimal128Array};

    /// A page: its rows' values (`None`: null) and which rows are selected.
    struct Page {
        rows: Vec<Option<i64>>,
        selected: Vec<bool>,
    }

    fn pages() -> Vec<Page> {
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // Pages longer and shorter than a batch, with runs of nulls and of valid rows past 64
        // (whole words), a page with every row selected and one with none.
        [150usize, 5, 200, 64, 3]
            .iter()
            .enumerate()
            .map(|(p, &n)| Page {
                rows: (0..n)
                    .map(|i| {
                        let null = if i % 100 < 70 { next() % 4 == 0 } else { false };
                        (!null).then(|| (next() % 9) as i64 - 4)
                    })
                    .collect(),
                selected: (0..n)
                    .map(|i| match p {
                        1 => true,
                        // Long runs (appended a run at a time), the others short ones
                        // (gathered first).
                        2 => i / 50 % 2 == 0,
                        3 => false,
                        _ => next() % 3 != 0,
                    })
                    .collect(),
            })
            .collect()
    }

    /// Each page fed as the source `make` gives (from its non-null values), with validity and
    /// selection, as Decimal128(18, 2) in batches of 7: the selected rows, in order.
    fn read(make: impl Fn(&[i64]) -> (Option<Values>, Vec<u8>, Vec<u32>, u8)) -> Vec<Option<i128>> {
        let data_type = DataType::Decimal128(18, 2);
        let mut open = OpenFixed::new(PhysicalType::Int64, &data_type, 7).unwrap();
        let mut arrays = Vec::new();
        let mut queued = 0;
        let dictionary = Values::Int64((-4..5).collect());
        for page in pages() {
            let present: Vec<i64> = page.rows.iter().flatten().copied().collect();
            let validity = BooleanBuffer::from_iter(page.rows.iter().map(Option::is_some));
            let selected = BooleanBuffer::from_iter(page.selected.iter().copied());
            let (decoded, plain, indices, kind) = make(&present);
            let dense = match kind {
                0 => {
                    let decoded = decoded.as_ref().unwrap();
                    Dense::Decoded(decoded, 0..decoded.len())
                }
                1 => Dense::Plain(&plain),
                _ => Dense::Dictionary(&indices, Some(&dictionary)),
            };
            let rows = page.rows.len();
            let filled = open
                .feed(dense, Some(&validity), rows, Some(&selected), queued)
                .unwrap();
            for array in filled {
                assert_eq!(array.len(), 7, "full batches are whole");
                queued += array.len();
                arrays.push(array);
            }
        }
        arrays.push(open.finish().unwrap());
        arrays
            .iter()
            .flat_map(|a| {
                let a = a.as_any().downcast_ref::<Decimal128Array>().unwrap();
                assert_eq!(a.data_type(), &data_type);
                a.iter().collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn pages_fill_batches_with_the_selected_rows_from_every_source() {
        let expected: Vec<Option<i128>> = pages()
            .iter()
            .flat_map(|p| {
                p.rows
                    .iter()
                    .zip(&p.selected)
                    .filter(|(_, &s)| s)
                    .map(|(v, _)| v.map(i128::from))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(expected.iter().any(Option::is_none) && expected.len() > 200);
        let decoded = read(|v| (Some(Values::Int64(v.to_vec())), vec![], vec![], 0));
        let plain = read(|v| {
            (
                None,
                v.iter().flat_map(|x| x.to_le_bytes()).collect(),
                vec![],
                1,
            )
        });
        let dictionary = read(|v| (None, vec![], v.iter().map(|&x| (x + 4) as u32).collect(), 2));
        assert_eq!(decoded, expected);
        assert_eq!(plain, expected);
        assert_eq!(dictionary, expected);
    }

    #[test]
    fn an_index_past_the_dictionary_or_a_short_page_is_an_error() {
        let mut open = OpenFixed::new(PhysicalType::Int32, &DataType::Int32, 4).unwrap();
        let dictionary = Values::Int32(vec![10, 20]);
        // Each page refused: its values, its rows, and what the error says.
        let refused: [(Dense<'_>, usize, &str); 7] = [
            (
                Dense::Dictionary(&[0, 1, 2], Some(&dictionary)),
                3,
                "index 2",
            ),
            (Dense::Dictionary(&[0], None), 1, "no dictionary page"),
            (Dense::Plain(&[1, 0, 0, 0]), 2, "1 values for 2 rows"),
            (Dense::Plain(&[1, 0, 0]), 1, "PLAIN"),
            // A run of one index: past the dictionary, or without one, as above.
            (Dense::Repeated(2, 3, Some(&dictionary)), 3, "index 2"),
            (Dense::Repeated(0, 3, None), 3, "no dictionary page"),
            (
                Dense::Repeated(1, 2, Some(&dictionary)),
                3,
                "2 values for 3 rows",
            ),
        ];
        for (dense, rows, says) in refused {
            let error = open.feed(dense, None, rows, None, 0).unwrap_err();
            assert!(error.to_string().contains(says), "{says}: {error}");
        }
        assert_eq!(open.len(), 0, "nothing of a refused page is kept");
        // A run in bounds: its entry, spread over the rows with a value.
        let validity = BooleanBuffer::from(vec![true, false, true, true]);
        let arrays = open
            .feed(
                Dense::Repeated(1, 3, Some(&dictionary)),
                Some(&validity),
                4,
                None,
                0,
            )
            .unwrap();
        let expected: ArrayRef = Arc::new(arrow_array::Int32Array::from(vec![
            Some(20),
            None,
            Some(20),
            Some(20),
        ]));
        assert_eq!(arrays.len(), 1);
        assert_eq!(arrays[0].as_ref(), expected.as_ref());
    }

    #[test]
    fn aligned_plain_values_become_an_array_over_the_page_and_the_rest_are_copied() {
        // A page buffer of i64s (aligned as a Vec<i64> is), its bytes as the page holds them.
        let words: Vec<i64> = vec![7, -1, i64::MAX, 0, 42];
        let page = bytes::Bytes::from(
            words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect::<Vec<u8>>(),
        );
        let page = page.slice(8..); // still aligned: one value in
        let open = OpenFixed::new(PhysicalType::Int64, &DataType::Int64, 4).unwrap();
        let array = open.plain_batch(&page).expect("aligned").unwrap();
        let values = array
            .as_any()
            .downcast_ref::<PrimitiveArray<Int64Type>>()
            .unwrap();
        assert_eq!(values.values().as_ref(), &words[1..]);
        assert_eq!(values.null_count(), 0);
        assert_eq!(
            values.values().inner().as_ptr(),
            page.as_ptr(),
            "the array is the page's memory, not a copy"
        );
        // Dates of INT32 keep the page's memory too; an unaligned start is copied instead.
        let page = bytes::Bytes::from(vec![0u8; 4 * 8]);
        let mut dates = OpenFixed::new(PhysicalType::Int32, &DataType::Date32, 4).unwrap();
        let array = dates.plain_batch(&page).expect("aligned").unwrap();
        assert_eq!(array.data_type(), &DataType::Date32);
        assert_eq!(array.to_data().buffers()[0].as_ptr(), page.as_ptr());
        assert!(dates.plain_batch(&page.slice(1..5)).is_none(), "unaligned");
        assert!(
            dates.plain_batch(&page.slice(0..5)).is_none(),
            "a value cut short"
        );
        // A batch already holding rows is filled by copies, so that it stays one array.
        dates
            .feed(Dense::Plain(&[1, 0, 0, 0]), None, 1, None, 0)
            .unwrap();
        assert!(dates.plain_batch(&page).is_none(), "a batch being filled");
        // Values widened on the way (INT64 as Decimal128) are never the page's.
        let decimals =
            OpenFixed::new(PhysicalType::Int64, &DataType::Decimal128(18, 2), 4).unwrap();
        assert!(decimals.plain_batch(&page).is_none(), "widened");
        assert_eq!(open.len(), 0);
    }
}
