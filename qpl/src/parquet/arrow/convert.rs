//! A flat column's decoded levels and values ([`ColumnData`]) as an Arrow array of the type
//! arrow-rs gives the column: validity from the definition levels, the non-null values spread
//! over the row slots (once), and the physical type coerced to the Arrow type as arrow-rs's
//! `coerce_i32`/`coerce_i64` do (narrowing casts wrap, unsigned types reinterpret the bits).

use std::sync::Arc;

use arrow_array::types::*;
use arrow_array::{
    Array, ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, DictionaryArray,
    FixedSizeBinaryArray, Int32Array, LargeBinaryArray, LargeStringArray, PrimitiveArray,
    StringArray,
};
use arrow_buffer::{
    i256, BooleanBuffer, BooleanBufferBuilder, Buffer, IntervalDayTime, NullBuffer, OffsetBuffer,
    ScalarBuffer,
};
use arrow_schema::{ArrowError, DataType, IntervalUnit, TimeUnit};
use bytes::Bytes;

use crate::parquet::values::check_gather_bytes;
use crate::parquet::{ByteArrays, ColumnData, Encoding, PhysicalType, Values};

/// Whether a flat column of `physical` values read as `data_type` is converted here (the
/// others are read by arrow-rs's reader for this project's reader: see the module docs).
pub(crate) fn converts(physical: PhysicalType, data_type: &DataType) -> bool {
    use DataType as D;
    match physical {
        PhysicalType::Boolean => matches!(data_type, D::Boolean),
        PhysicalType::Int32 => matches!(
            data_type,
            D::Int8
                | D::Int16
                | D::Int32
                | D::UInt8
                | D::UInt16
                | D::UInt32
                | D::Date32
                | D::Date64
                | D::Time32(_)
                | D::Timestamp(_, _)
                | D::Decimal32(_, _)
                | D::Decimal64(_, _)
                | D::Decimal128(_, _)
                | D::Null
        ),
        PhysicalType::Int64 => matches!(
            data_type,
            D::Int64
                | D::UInt64
                | D::Date64
                | D::Time64(TimeUnit::Microsecond | TimeUnit::Nanosecond)
                | D::Duration(_)
                | D::Timestamp(_, _)
                | D::Decimal64(_, _)
                | D::Decimal128(_, _)
        ),
        PhysicalType::Float => matches!(data_type, D::Float32),
        PhysicalType::Double => matches!(data_type, D::Float64),
        PhysicalType::ByteArray => match data_type {
            D::Dictionary(key, value) => is_dictionary_of_bytes(key, value),
            other => matches!(
                other,
                D::Utf8
                    | D::LargeUtf8
                    | D::Binary
                    | D::LargeBinary
                    | D::Utf8View
                    | D::BinaryView
                    | D::Decimal128(_, _)
                    | D::Decimal256(_, _)
            ),
        },
        PhysicalType::FixedLenByteArray(len) => match data_type {
            D::FixedSizeBinary(n) => *n >= 0 && *n as usize == len,
            D::Decimal32(_, _) | D::Decimal64(_, _) | D::Decimal128(_, _) | D::Decimal256(_, _) => {
                len > 0
            }
            D::Float16 => len == 2,
            D::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => len == 12,
            _ => false,
        },
        PhysicalType::Int96 => matches!(data_type, D::Timestamp(_, _)),
    }
}

/// Whether FIXED_LEN_BYTE_ARRAY values of `width` bytes read as `data_type` are Arrow's
/// FixedSizeBinary of that width.
fn is_fixed_size_binary(data_type: &DataType, width: usize) -> bool {
    matches!(data_type, DataType::FixedSizeBinary(n) if usize::try_from(*n) == Ok(width))
}

/// Whether a flat column of `physical` values read as `data_type` is made from PLAIN pages'
/// bytes left in the page ([`plain_array`]): FixedSizeBinary of FIXED_LEN_BYTE_ARRAY (the
/// reader's fixed-width batches take its decimals, FLOAT16s and FixedSizeBinary(16)s first).
pub(crate) fn reads_fixed_len_in_page(physical: PhysicalType, data_type: &DataType) -> bool {
    match physical {
        PhysicalType::FixedLenByteArray(width) => is_fixed_size_binary(data_type, width),
        _ => false,
    }
}

/// Whether `Dictionary(key, value)` is a dictionary type read here: Int32 keys (pyarrow's
/// dictionary columns), values of a byte array type.
pub(crate) fn is_dictionary_of_bytes(key: &DataType, value: &DataType) -> bool {
    *key == DataType::Int32
        && matches!(
            value,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary
        )
}

/// Types whose arrays hold byte arrays behind offsets (what a gather of selected byte arrays
/// makes).
pub(crate) fn is_offset_bytes(data_type: &DataType) -> bool {
    matches!(
        data_type,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Binary | DataType::LargeBinary
    )
}

/// The byte arrays `dictionary[id]` for each of `ids`, gathered (a reader's selected values
/// of a page in the dictionary encoding `encoding`): values whose bytes would pass `limit`
/// (the executor's `max_output_bytes`), or an id past the dictionary, are an error.
pub(crate) fn gather_bytes(
    ids: &[u32],
    dictionary: &ByteArrays,
    limit: u64,
    encoding: Encoding,
) -> Result<ByteArrays, ArrowError> {
    let error = |m: String| ArrowError::ParquetError(m);
    check_gather_bytes(dictionary, ids, limit, encoding).map_err(|e| error(e.to_string()))?;
    // The gather reserves the values' bytes and offsets itself.
    let mut values = ByteArrays::new();
    qpl_fallback::parquet::dictionary::gather_byte_arrays(ids, dictionary, &mut values)
        .map_err(|e| error(e.to_string()))?;
    Ok(values)
}

/// Takes the rows of `data` (its levels and values are emptied) as an array of `data_type`
/// ([`converts`] must hold): a row is valid where its definition level is `max_def_level`
/// (every row when that is 0).
pub(crate) fn take_array(
    data: &mut ColumnData,
    max_def_level: i16,
    rows: usize,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    let levels = std::mem::take(&mut data.def_levels);
    data.rep_levels.clear();
    let validity = (max_def_level > 0)
        .then(|| BooleanBuffer::collect_bool(levels.len(), |i| levels[i] == max_def_level));
    take_values(&mut data.values, validity, rows, data_type)
}

/// Takes `values` (the non-null values of `rows` rows; emptied) as an array of `data_type`
/// ([`converts`] must hold), placed in the rows `validity` sets (`None`: every row).
pub(crate) fn take_values(
    values: &mut Values,
    validity: Option<BooleanBuffer>,
    rows: usize,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    let empty = Values::new(physical_of(values));
    let values = std::mem::replace(values, empty);
    let validity = validity.filter(|v| v.count_set_bits() < v.len());
    if let Some(v) = &validity {
        if v.len() != rows {
            return Err(ArrowError::ParquetError(format!(
                "{} validity bits for {rows} rows",
                v.len()
            )));
        }
    }
    let present = validity.as_ref().map_or(rows, |v| v.count_set_bits());
    if values.len() != present {
        return Err(ArrowError::ParquetError(format!(
            "{} values for {present} rows with a value",
            values.len()
        )));
    }
    let nulls = validity.clone().map(NullBuffer::new);
    let array: ArrayRef = match values {
        Values::Boolean(values) => {
            let bits = match &validity {
                None => BooleanBuffer::from(values.as_slice()),
                Some(v) => {
                    let mut spread = vec![false; rows];
                    let mut at = 0;
                    for (start, end) in v.set_slices() {
                        spread[start..end].copy_from_slice(&values[at..at + end - start]);
                        at += end - start;
                    }
                    BooleanBuffer::from(spread.as_slice())
                }
            };
            Arc::new(BooleanArray::new(bits, nulls))
        }
        Values::Int32(values) => {
            let values = spread(values, validity.as_ref());
            coerce_i32(PrimitiveArray::<Int32Type>::new(values, nulls), data_type)?
        }
        Values::Int64(values) => {
            let values = spread(values, validity.as_ref());
            coerce_i64(PrimitiveArray::<Int64Type>::new(values, nulls), data_type)?
        }
        Values::Float(values) => Arc::new(PrimitiveArray::<Float32Type>::new(
            spread(values, validity.as_ref()),
            nulls,
        )),
        Values::Double(values) => Arc::new(PrimitiveArray::<Float64Type>::new(
            spread(values, validity.as_ref()),
            nulls,
        )),
        Values::Bytes(values) => bytes_array(values, validity.as_ref(), nulls, data_type)?,
        Values::Int96(values) => {
            let DataType::Timestamp(unit, tz) = data_type else {
                return Err(ArrowError::ParquetError(format!(
                    "INT96 values read as {data_type}"
                )));
            };
            // The parquet crate's own conversion (Julian day and nanoseconds of the day),
            // so that every value, out-of-range ones included, is the one arrow-rs gives.
            let as_unit = |v: &crate::parquet::Int96| {
                let mut x = parquet::data_type::Int96::new();
                x.set_data(v.0[0], v.0[1], v.0[2]);
                match unit {
                    TimeUnit::Second => x.to_seconds(),
                    TimeUnit::Millisecond => x.to_millis(),
                    TimeUnit::Microsecond => x.to_micros(),
                    TimeUnit::Nanosecond => x.to_nanos(),
                }
            };
            let wide: Vec<i64> = values.iter().map(as_unit).collect();
            let values = spread(wide, validity.as_ref());
            timestamp(
                PrimitiveArray::<Int64Type>::new(values, nulls),
                *unit,
                tz.clone(),
            )
        }
    };
    debug_assert_eq!(array.len(), rows);
    Ok(array)
}

fn physical_of(values: &Values) -> PhysicalType {
    match values {
        Values::Boolean(_) => PhysicalType::Boolean,
        Values::Int32(_) => PhysicalType::Int32,
        Values::Int64(_) => PhysicalType::Int64,
        Values::Int96(_) => PhysicalType::Int96,
        Values::Float(_) => PhysicalType::Float,
        Values::Double(_) => PhysicalType::Double,
        // The variant is what matters to `Values::new`; the length is not kept.
        Values::Bytes(_) => PhysicalType::ByteArray,
    }
}

/// The non-null `values` placed in their rows (null rows hold the type's default), or the
/// values as they are when every row is valid: without a copy. Runs of valid rows are copied
/// whole.
fn spread<T: Copy + Default + arrow_buffer::ArrowNativeType>(
    values: Vec<T>,
    validity: Option<&BooleanBuffer>,
) -> ScalarBuffer<T> {
    match validity {
        None => ScalarBuffer::from(values),
        Some(validity) => {
            let present = values.len();
            spread_buffer(Buffer::from_vec(values), present, validity)
        }
    }
}

/// [`spread_slice`] of the `present` values at the start of `dense`; 4-byte types (INT32,
/// FLOAT and what they become) by the CPU's expand kernel where it has one
/// (`qpl_fallback::parquet::validity::spread_u32`: eight rows a step with AVX2; 1.0x -> 1.2x
/// arrow-rs on a nullable INT32 column with 10 % nulls).
fn spread_buffer<T: Copy + Default + arrow_buffer::ArrowNativeType>(
    dense: Buffer,
    present: usize,
    validity: &BooleanBuffer,
) -> ScalarBuffer<T> {
    let four_aligned = dense.as_ptr().align_offset(4) == 0 && dense.len() >= 4 * present;
    if std::mem::size_of::<T>() == 4 && four_aligned {
        // The values' bits as u32 (every 4-byte native type is plain bits), placed, and
        // taken back as `T`.
        let values = &dense.typed_data::<u32>()[..present];
        let words: Vec<u64> = validity.bit_chunks().iter_padded().collect();
        let rows = validity.len();
        if let Some(placed) = qpl_fallback::parquet::validity::spread_u32(values, &words, rows) {
            return ScalarBuffer::new(Buffer::from_vec(placed), 0, rows);
        }
    }
    spread_slice(&ScalarBuffer::<T>::new(dense, 0, present), validity)
}

/// The non-null `values` placed in the rows `validity` sets (a null row holds a value of the
/// column or the default), by [`spread_words`].
fn spread_slice<T: Copy + Default + arrow_buffer::ArrowNativeType>(
    values: &[T],
    validity: &BooleanBuffer,
) -> ScalarBuffer<T> {
    let mut out = Vec::with_capacity(validity.len());
    let value = |at: usize| values.get(at).copied().unwrap_or_default();
    let copy = |out: &mut Vec<T>, at: usize, n: usize| match values.get(at..at + n) {
        Some(run) => out.extend_from_slice(run),
        None => out.extend((at..at + n).map(value)),
    };
    spread_words(&mut out, validity, 0, copy);
    ScalarBuffer::from(out)
}

/// Appends `valid.len()` rows to `out`: the rows `valid` sets take the values from `at =
/// from` on, in order (`copy(out, at, n)` appends values `at..at + n`), the others some value
/// of the column or the type's default (a null slot's value is unspecified in Arrow). 64 rows
/// at a time: a word of valid rows is one copy of 64 values, a word of null rows one fill, and
/// a mixed word one copy of its values, moved to their rows in place from the last one back
/// without a branch (a column with a tenth of its rows null has nearly every word mixed: a
/// value fetched a set bit through the source took 30 % of its read).
pub(crate) fn spread_words<T: Copy + Default>(
    out: &mut Vec<T>,
    valid: &BooleanBuffer,
    from: usize,
    mut copy: impl FnMut(&mut Vec<T>, usize, usize),
) {
    let mut at = from;
    let chunks = valid.bit_chunks();
    let mut step = |word: u64, rows: usize| {
        let present = word.count_ones() as usize;
        if present == rows {
            copy(out, at, rows);
        } else if present == 0 {
            out.resize(out.len() + rows, T::default());
        } else {
            let base = out.len();
            copy(out, at, present);
            out.resize(base + rows, T::default());
            let slots = &mut out[base..];
            // Row `row` takes dense value `below` (the set rows under it): `below` ≤ `row`,
            // so the value is read before any store reaches it. A null row takes it too (a
            // value of the column, or a default) instead of a branch on the bit: Arrow leaves
            // a null slot's value unspecified, as arrow-rs's reader leaves it.
            let mut below = present;
            for row in (0..rows).rev() {
                below -= ((word >> row) & 1) as usize;
                slots[row] = slots[below.min(row)];
            }
        }
        at += present;
    };
    for word in chunks.iter() {
        step(word, 64);
    }
    if chunks.remainder_len() > 0 {
        step(chunks.remainder_bits(), chunks.remainder_len());
    }
}

/// PLAIN values of a fixed-width type left in their page (`bytes`, little-endian, exactly the
/// non-null values) as an array of `data_type`: the page's memory itself where every row is
/// valid and the bytes are aligned for the type, else one copy.
pub(crate) fn plain_array(
    bytes: Bytes,
    physical: PhysicalType,
    validity: Option<BooleanBuffer>,
    rows: usize,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    let validity = validity.filter(|v| v.count_set_bits() < v.len());
    let present = validity.as_ref().map_or(rows, |v| v.count_set_bits());
    let nulls = validity.clone().map(NullBuffer::new);
    fn values<T: arrow_buffer::ArrowNativeType + Default>(
        bytes: Bytes,
        present: usize,
        validity: Option<&BooleanBuffer>,
    ) -> Result<ScalarBuffer<T>, ArrowError> {
        if bytes.len() != present * std::mem::size_of::<T>() {
            return Err(ArrowError::ParquetError(format!(
                "{} bytes of PLAIN values for {present} values",
                bytes.len()
            )));
        }
        let aligned = bytes.as_ptr().align_offset(std::mem::align_of::<T>()) == 0;
        let buffer = if aligned {
            Buffer::from(bytes)
        } else {
            Buffer::from_slice_ref(&bytes[..])
        };
        Ok(match validity {
            None => ScalarBuffer::<T>::new(buffer, 0, present),
            Some(validity) => spread_buffer(buffer, present, validity),
        })
    }
    let v = validity.as_ref();
    Ok(match physical {
        PhysicalType::Int32 => coerce_i32(
            PrimitiveArray::<Int32Type>::new(values(bytes, present, v)?, nulls),
            data_type,
        )?,
        PhysicalType::Int64 => coerce_i64(
            PrimitiveArray::<Int64Type>::new(values(bytes, present, v)?, nulls),
            data_type,
        )?,
        PhysicalType::Float => Arc::new(PrimitiveArray::<Float32Type>::new(
            values(bytes, present, v)?,
            nulls,
        )),
        PhysicalType::Double => Arc::new(PrimitiveArray::<Float64Type>::new(
            values(bytes, present, v)?,
            nulls,
        )),
        PhysicalType::FixedLenByteArray(width) if is_fixed_size_binary(data_type, width) => {
            if bytes.len() != present * width {
                return Err(ArrowError::ParquetError(format!(
                    "{} bytes of PLAIN values for {present} values of {width} bytes",
                    bytes.len()
                )));
            }
            // Without nulls the page's bytes are the array's (no copy; a copy measured
            // slower). The array is a page's (1 MB, pyarrow's), sliced into batches.
            let buffer = match v {
                None => Buffer::from(bytes),
                Some(validity) => Buffer::from_vec(spread_fixed(&bytes, width, validity)),
            };
            let size = i32::try_from(width)
                .map_err(|_| ArrowError::ParquetError(format!("values of {width} bytes")))?;
            Arc::new(FixedSizeBinaryArray::try_new(size, buffer, nulls)?)
        }
        other => {
            return Err(ArrowError::ParquetError(format!(
                "PLAIN {} values are not left in their page",
                other.name()
            )))
        }
    })
}

/// BOOLEAN values as bits (`bits`: the non-null values, in order) placed in the rows
/// `validity` sets.
pub(crate) fn boolean_array(
    bits: BooleanBuffer,
    validity: Option<BooleanBuffer>,
    rows: usize,
) -> Result<ArrayRef, ArrowError> {
    let validity = validity.filter(|v| v.count_set_bits() < v.len());
    let present = validity.as_ref().map_or(rows, |v| v.count_set_bits());
    if bits.len() != present {
        return Err(ArrowError::ParquetError(format!(
            "{} booleans for {present} rows with a value",
            bits.len()
        )));
    }
    let Some(validity) = validity else {
        return Ok(Arc::new(BooleanArray::new(bits, None)));
    };
    let mut out = BooleanBufferBuilder::new(rows);
    let mut at = 0;
    for (start, end) in validity.set_slices() {
        out.append_n(start - out.len(), false);
        out.append_buffer(&bits.slice(at, end - start));
        at += end - start;
    }
    out.append_n(rows - out.len(), false);
    Ok(Arc::new(BooleanArray::new(
        out.finish(),
        Some(NullBuffer::new(validity)),
    )))
}

/// `values` (every one valid) as an array of `data_type`, a byte array type (a dictionary's
/// entries as its values array).
pub(crate) fn byte_arrays_array(
    values: ByteArrays,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    bytes_array(values, None, None, data_type)
}

/// Byte arrays as Utf8/LargeUtf8/Binary/LargeBinary/FixedSizeBinary: the values buffer is
/// kept, the offsets spread over the rows (a null row is empty); as Utf8View/BinaryView: views
/// into the values buffer ([`super::view::byte_arrays_to_views`]).
fn bytes_array(
    values: ByteArrays,
    validity: Option<&BooleanBuffer>,
    nulls: Option<NullBuffer>,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    if let DataType::FixedSizeBinary(size) = data_type {
        return fixed_size_binary(values, validity, nulls, *size);
    }
    if let Some(array) = bytes_as_numbers(&values, validity, nulls.clone(), data_type)? {
        return Ok(array);
    }
    if super::view::is_view(data_type) {
        return super::view::byte_arrays_to_views(values, validity, nulls, data_type);
    }
    if let DataType::Dictionary(_, value_type) = data_type {
        // Values not dictionary-encoded in the file (PLAIN pages, a struct's or a list's
        // values): each row its own entry.
        let rows = validity.map_or(values.len(), |v| v.len());
        let rows = i32::try_from(rows)
            .map_err(|_| ArrowError::ParquetError(format!("{rows} rows pass i32 keys")))?;
        let values = bytes_array(values, validity, nulls.clone(), value_type)?;
        let keys = Int32Array::new((0..rows).collect(), nulls);
        return Ok(Arc::new(DictionaryArray::<Int32Type>::try_new(
            keys, values,
        )?));
    }
    let offsets: Vec<i32> = match validity {
        None => values.offsets,
        Some(validity) => {
            let mut out = Vec::with_capacity(validity.len() + 1);
            let mut at = 0;
            for (start, end) in validity.set_slices() {
                out.resize(start + 1, values.offsets[at]);
                out.extend_from_slice(&values.offsets[at + 1..at + 1 + end - start]);
                at += end - start;
            }
            out.resize(validity.len() + 1, values.offsets[at]);
            out
        }
    };
    let bytes = Buffer::from_vec(values.values);
    let array: ArrayRef = match data_type {
        DataType::Utf8 => Arc::new(StringArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            bytes,
            nulls,
        )?),
        DataType::Binary => Arc::new(BinaryArray::try_new(
            OffsetBuffer::new(ScalarBuffer::from(offsets)),
            bytes,
            nulls,
        )?),
        DataType::LargeUtf8 => Arc::new(LargeStringArray::try_new(
            large_offsets(&offsets),
            bytes,
            nulls,
        )?),
        DataType::LargeBinary => Arc::new(LargeBinaryArray::try_new(
            large_offsets(&offsets),
            bytes,
            nulls,
        )?),
        other => {
            return Err(ArrowError::NotYetImplemented(format!(
                "byte arrays as {other}"
            )))
        }
    };
    Ok(array)
}

/// Byte arrays (BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY) as numbers, value by value, as arrow-rs's
/// reader converts them: decimals are big-endian two's complement, sign-extended (an empty
/// value is 0; one wider than the type is an error, where arrow-rs panics); FLOAT16 is two
/// little-endian bytes; an INTERVAL is three little-endian u32s (months, days, milliseconds),
/// of which YearMonth keeps the months and DayTime the days and milliseconds. `None` for the
/// other types.
fn bytes_as_numbers(
    values: &ByteArrays,
    validity: Option<&BooleanBuffer>,
    nulls: Option<NullBuffer>,
    data_type: &DataType,
) -> Result<Option<ArrayRef>, ArrowError> {
    fn each<T: arrow_buffer::ArrowNativeType + Default>(
        values: &ByteArrays,
        validity: Option<&BooleanBuffer>,
        convert: impl Fn(&[u8]) -> Result<T, ArrowError>,
    ) -> Result<ScalarBuffer<T>, ArrowError> {
        let dense = values
            .offsets
            .windows(2)
            .map(|w| {
                let value = usize::try_from(w[0])
                    .ok()
                    .zip(usize::try_from(w[1]).ok())
                    .and_then(|(start, end)| values.values.get(start..end));
                value
                    .ok_or_else(|| {
                        ArrowError::ParquetError("byte array offsets out of order".into())
                    })
                    .and_then(&convert)
            })
            .collect::<Result<Vec<T>, ArrowError>>()?;
        Ok(spread(dense, validity))
    }
    fn sign_extended<const N: usize>(bytes: &[u8]) -> Result<[u8; N], ArrowError> {
        if bytes.len() > N {
            return Err(ArrowError::ParquetError(format!(
                "a decimal of {} bytes does not fit {N} bytes",
                bytes.len()
            )));
        }
        let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
        let mut out = [if negative { 0xff } else { 0 }; N];
        out[N - bytes.len()..].copy_from_slice(bytes);
        Ok(out)
    }
    fn le_u32(bytes: &[u8], at: usize) -> Result<i32, ArrowError> {
        bytes
            .get(at..at + 4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| ArrowError::ParquetError("an INTERVAL of fewer than 12 bytes".into()))
    }
    /// Decimals of `N` bytes: each value sign-extended to `N` bytes, read big-endian.
    fn decimal<T: DecimalType, const N: usize>(
        values: &ByteArrays,
        validity: Option<&BooleanBuffer>,
        nulls: Option<NullBuffer>,
        from_be: fn([u8; N]) -> T::Native,
        precision: u8,
        scale: i8,
    ) -> Result<ArrayRef, ArrowError> {
        let numbers = each(values, validity, |b| Ok(from_be(sign_extended::<N>(b)?)))?;
        Ok(Arc::new(
            PrimitiveArray::<T>::new(numbers, nulls).with_precision_and_scale(precision, scale)?,
        ))
    }
    type F16 = <Float16Type as ArrowPrimitiveType>::Native;
    let array: ArrayRef = match data_type {
        DataType::Decimal32(p, s) => {
            decimal::<Decimal32Type, 4>(values, validity, nulls, i32::from_be_bytes, *p, *s)?
        }
        DataType::Decimal64(p, s) => {
            decimal::<Decimal64Type, 8>(values, validity, nulls, i64::from_be_bytes, *p, *s)?
        }
        DataType::Decimal128(p, s) => {
            decimal::<Decimal128Type, 16>(values, validity, nulls, i128::from_be_bytes, *p, *s)?
        }
        DataType::Decimal256(p, s) => {
            decimal::<Decimal256Type, 32>(values, validity, nulls, i256::from_be_bytes, *p, *s)?
        }
        DataType::Float16 => Arc::new(PrimitiveArray::<Float16Type>::new(
            each(values, validity, |b| match b {
                [lo, hi] => Ok(F16::from_le_bytes([*lo, *hi])),
                _ => Err(ArrowError::ParquetError(format!(
                    "a FLOAT16 of {} bytes",
                    b.len()
                ))),
            })?,
            nulls,
        )),
        DataType::Interval(IntervalUnit::YearMonth) => {
            Arc::new(PrimitiveArray::<IntervalYearMonthType>::new(
                each(values, validity, |b| le_u32(b, 0))?,
                nulls,
            ))
        }
        DataType::Interval(IntervalUnit::DayTime) => {
            Arc::new(PrimitiveArray::<IntervalDayTimeType>::new(
                each(values, validity, |b| {
                    Ok(IntervalDayTime::new(le_u32(b, 4)?, le_u32(b, 8)?))
                })?,
                nulls,
            ))
        }
        _ => return Ok(None),
    };
    Ok(Some(array))
}

fn large_offsets(offsets: &[i32]) -> OffsetBuffer<i64> {
    OffsetBuffer::new(offsets.iter().map(|&o| i64::from(o)).collect())
}

fn fixed_size_binary(
    values: ByteArrays,
    validity: Option<&BooleanBuffer>,
    nulls: Option<NullBuffer>,
    size: i32,
) -> Result<ArrayRef, ArrowError> {
    let bytes = match validity {
        None => values.values,
        Some(validity) => spread_fixed(&values.values, size as usize, validity),
    };
    Ok(Arc::new(FixedSizeBinaryArray::try_new(
        size,
        Buffer::from_vec(bytes),
        nulls,
    )?))
}

/// Values of `width` bytes each (`dense`, back to back) placed in the rows `validity` sets,
/// the other rows' bytes zero: a copy a run of valid rows.
fn spread_fixed(dense: &[u8], width: usize, validity: &BooleanBuffer) -> Vec<u8> {
    let mut out = Vec::with_capacity(validity.len() * width);
    let mut at = 0;
    for (start, end) in validity.set_slices() {
        out.resize(start * width, 0);
        out.extend_from_slice(&dense[at * width..(at + end - start) * width]);
        at += end - start;
    }
    out.resize(validity.len() * width, 0);
    out
}

fn reinterpret<T: ArrowPrimitiveType, U: ArrowPrimitiveType<Native = T::Native>>(
    array: PrimitiveArray<T>,
) -> PrimitiveArray<U> {
    array.reinterpret_cast::<U>()
}

/// INT32 values as `target`, as arrow-rs's reader converts them.
pub(crate) fn coerce_i32(
    array: PrimitiveArray<Int32Type>,
    target: &DataType,
) -> Result<ArrayRef, ArrowError> {
    Ok(match target {
        DataType::Int32 => Arc::new(array),
        // Arrow's Null type (INT32 of the UNKNOWN logical type, every value null): a slot
        // per row, whatever the levels say (as arrow-rs's reader gives it).
        DataType::Null => Arc::new(arrow_array::NullArray::new(array.len())),
        DataType::Int8 => Arc::new(array.unary::<_, Int8Type>(|v| v as i8)),
        DataType::Int16 => Arc::new(array.unary::<_, Int16Type>(|v| v as i16)),
        DataType::UInt8 => Arc::new(array.unary::<_, UInt8Type>(|v| v as u8)),
        DataType::UInt16 => Arc::new(array.unary::<_, UInt16Type>(|v| v as u16)),
        DataType::UInt32 => Arc::new(PrimitiveArray::<UInt32Type>::new(
            array.values().inner().clone().into(),
            array.nulls().cloned(),
        )),
        DataType::Date32 => Arc::new(reinterpret::<_, Date32Type>(array)),
        DataType::Date64 => Arc::new(array.unary::<_, Date64Type>(|v| v as i64 * 86_400_000)),
        DataType::Time32(TimeUnit::Second) => Arc::new(reinterpret::<_, Time32SecondType>(array)),
        DataType::Time32(TimeUnit::Millisecond) => {
            Arc::new(reinterpret::<_, Time32MillisecondType>(array))
        }
        DataType::Timestamp(unit, tz) => {
            let wide = array.unary::<_, Int64Type>(i64::from);
            timestamp(wide, *unit, tz.clone())
        }
        DataType::Decimal32(p, s) => {
            Arc::new(reinterpret::<_, Decimal32Type>(array).with_precision_and_scale(*p, *s)?)
        }
        DataType::Decimal64(p, s) => Arc::new(
            array
                .unary::<_, Decimal64Type>(i64::from)
                .with_precision_and_scale(*p, *s)?,
        ),
        DataType::Decimal128(p, s) => Arc::new(
            array
                .unary::<_, Decimal128Type>(i128::from)
                .with_precision_and_scale(*p, *s)?,
        ),
        other => return Err(ArrowError::NotYetImplemented(format!("INT32 as {other}"))),
    })
}

/// INT64 values as `target`, as arrow-rs's reader converts them.
pub(crate) fn coerce_i64(
    array: PrimitiveArray<Int64Type>,
    target: &DataType,
) -> Result<ArrayRef, ArrowError> {
    Ok(match target {
        DataType::Int64 => Arc::new(array),
        DataType::UInt64 => Arc::new(PrimitiveArray::<UInt64Type>::new(
            array.values().inner().clone().into(),
            array.nulls().cloned(),
        )),
        DataType::Date64 => Arc::new(reinterpret::<_, Date64Type>(array)),
        DataType::Time64(TimeUnit::Microsecond) => {
            Arc::new(reinterpret::<_, Time64MicrosecondType>(array))
        }
        DataType::Time64(TimeUnit::Nanosecond) => {
            Arc::new(reinterpret::<_, Time64NanosecondType>(array))
        }
        DataType::Duration(TimeUnit::Second) => {
            Arc::new(reinterpret::<_, DurationSecondType>(array))
        }
        DataType::Duration(TimeUnit::Millisecond) => {
            Arc::new(reinterpret::<_, DurationMillisecondType>(array))
        }
        DataType::Duration(TimeUnit::Microsecond) => {
            Arc::new(reinterpret::<_, DurationMicrosecondType>(array))
        }
        DataType::Duration(TimeUnit::Nanosecond) => {
            Arc::new(reinterpret::<_, DurationNanosecondType>(array))
        }
        DataType::Timestamp(unit, tz) => timestamp(array, *unit, tz.clone()),
        DataType::Decimal64(p, s) => {
            Arc::new(reinterpret::<_, Decimal64Type>(array).with_precision_and_scale(*p, *s)?)
        }
        DataType::Decimal128(p, s) => Arc::new(
            array
                .unary::<_, Decimal128Type>(i128::from)
                .with_precision_and_scale(*p, *s)?,
        ),
        other => return Err(ArrowError::NotYetImplemented(format!("INT64 as {other}"))),
    })
}

fn timestamp(array: PrimitiveArray<Int64Type>, unit: TimeUnit, tz: Option<Arc<str>>) -> ArrayRef {
    match unit {
        TimeUnit::Second => {
            Arc::new(reinterpret::<_, TimestampSecondType>(array).with_timezone_opt(tz))
        }
        TimeUnit::Millisecond => {
            Arc::new(reinterpret::<_, TimestampMillisecondType>(array).with_timezone_opt(tz))
        }
        TimeUnit::Microsecond => {
            Arc::new(reinterpret::<_, TimestampMicrosecondType>(array).with_timezone_opt(tz))
        }
        TimeUnit::Nanosecond => {
            Arc::new(reinterpret::<_, TimestampNanosecondType>(array).with_timezone_opt(tz))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `spread_words` against placing the values one row at a time: words all valid, all
    /// null and mixed (nulls first, last, alone), a partial last word, values taken from an
    /// offset, after rows already in `out`.
    #[test]
    fn spread_words_places_each_value_in_its_row() {
        let patterns: [fn(usize) -> bool; 5] = [
            |i| i % 10 != 3,
            |i| i % 2 == 0,
            |i| !(64..128).contains(&i),
            |i| i % 64 == 63,
            |i| i % 64 != 0,
        ];
        for pattern in patterns {
            for rows in [1usize, 63, 64, 65, 200] {
                let bits: Vec<bool> = (0..rows).map(pattern).collect();
                let valid = BooleanBuffer::from_iter(bits.iter().copied());
                let from = 5;
                let values: Vec<i64> = (0..from + rows).map(|v| 1000 + v as i64).collect();
                let mut out = vec![-7i64; 3];
                spread_words(&mut out, &valid, from, |out, at, n| {
                    out.extend_from_slice(&values[at..at + n])
                });
                assert_eq!(out.len(), 3 + rows);
                assert_eq!(out[..3], [-7; 3]);
                let mut next = from;
                for (row, &set) in bits.iter().enumerate() {
                    if set {
                        assert_eq!(out[3 + row], values[next], "row {row} of {rows}");
                        next += 1;
                    }
                }
            }
        }
    }
}
