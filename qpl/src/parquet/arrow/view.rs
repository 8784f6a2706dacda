//! BYTE_ARRAY columns as Arrow's view types (Utf8View, BinaryView), made as arrow-rs's
//! `byte_view_array` reader makes them: no string byte is copied for PLAIN and
//! dictionary-encoded pages.
//!
//! - A dictionary page's bytes become one data buffer, and a view is made once per entry
//!   ([`ViewDictionary`]); a data page's indices then gather 16-byte views.
//! - A PLAIN page's bytes become the data buffer; the views point into it (values of at most
//!   12 bytes are inline in their view).
//! - Other encodings (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY) are decoded to byte arrays
//!   first, whose values buffer the views point into ([`byte_arrays_to_views`]).
//!
//! Utf8View's strings are checked to be UTF-8 (whatever the column's annotation: arrow-rs
//! checks only columns annotated UTF8): a dictionary once, a PLAIN page once per page. A null
//! row's view is zero (empty, inline).
//!
//! The arrays of a page are made in pieces that end where the reader's batches end, each with
//! views of its own rows only: a batch holds its views, the validity bits of its page and the
//! data buffer (the dictionary's or the page's), as arrow-rs's batches do, not the views of its
//! whole page.

use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::{Array, ArrayRef, BinaryViewArray, StringViewArray, StructArray};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType};
use bytes::Bytes;

use crate::parquet::ByteArrays;

/// The longest value a view holds inline.
const MAX_INLINE: usize = 12;

/// Whether `data_type` is one of the view types made here.
pub(crate) fn is_view(data_type: &DataType) -> bool {
    matches!(data_type, DataType::Utf8View | DataType::BinaryView)
}

fn error(message: impl std::fmt::Display) -> ArrowError {
    ArrowError::ParquetError(message.to_string())
}

fn not_utf8(e: std::str::Utf8Error) -> ArrowError {
    error(format!("encountered non UTF-8 data: {e}"))
}

/// `bytes` as UTF-8, or the error arrow-rs gives.
fn check_utf8(bytes: &[u8]) -> Result<(), ArrowError> {
    std::str::from_utf8(bytes).map(drop).map_err(not_utf8)
}

/// A view's buffer index moved by `by` (an inline view has none).
#[inline]
fn shift_buffer(view: u128, by: u32) -> u128 {
    if (view as u32) as usize <= MAX_INLINE {
        view
    } else {
        view + (u128::from(by) << 64)
    }
}

/// A chunk's dictionary as views: its page's bytes (the data buffer, buffer 0 of every array
/// gathered through it) and one view per entry.
pub(crate) struct ViewDictionary {
    buffer: Buffer,
    views: Vec<u128>,
}

impl ViewDictionary {
    /// The dictionary page `page` of `entries` PLAIN byte arrays; `utf8`: each must be UTF-8.
    pub fn new(page: Bytes, entries: usize, utf8: bool) -> Result<ViewDictionary, ArrowError> {
        let buffer = Buffer::from(page);
        let mut plain = PlainViews::new(&buffer, 0..buffer.len(), entries, 0, utf8)?;
        let mut views = Vec::with_capacity(entries);
        plain.append(entries, &mut views)?;
        Ok(ViewDictionary { buffer, views })
    }
}

impl ViewDictionary {
    /// The views of `indices` through this dictionary, and the data buffers they name.
    pub fn views<'a>(&'a self, indices: &'a [u32]) -> (DenseViews<'a>, Arc<[Buffer]>) {
        (
            DenseViews::Gather {
                indices,
                dictionary: &self.views,
            },
            Arc::from([self.buffer.clone()]),
        )
    }
}

/// PLAIN byte arrays (each a 4-byte little-endian length, then its bytes) read as views into
/// the buffer that holds them, a run of values at a time.
pub(crate) struct PlainViews<'a> {
    bytes: &'a [u8],
    /// The next value's length prefix.
    at: usize,
    /// The end of the values section.
    end: usize,
    /// Values not read yet.
    left: usize,
    block: u32,
    utf8: bool,
}

impl<'a> PlainViews<'a> {
    /// The `count` values of `bytes[section]`, whose views name buffer `block`.
    pub fn new(
        bytes: &'a [u8],
        section: std::ops::Range<usize>,
        count: usize,
        block: u32,
        utf8: bool,
    ) -> Result<PlainViews<'a>, ArrowError> {
        if u32::try_from(section.end).is_err() || section.end > bytes.len() {
            return Err(error(format!(
                "a PLAIN section ending at byte {} of a {}-byte page",
                section.end,
                bytes.len()
            )));
        }
        // Each value takes its 4-byte length at least: a count the section cannot hold is
        // refused before any memory is taken for it.
        if count > section.len() / 4 {
            return Err(error(format!(
                "{count} PLAIN byte arrays cannot fit in {} bytes",
                section.len()
            )));
        }
        Ok(PlainViews {
            bytes,
            at: section.start,
            end: section.end,
            left: count,
            block,
            utf8,
        })
    }

    /// Appends the views of the next `count` values to `out`.
    pub fn append(&mut self, count: usize, out: &mut Vec<u128>) -> Result<(), ArrowError> {
        if count > self.left {
            return Err(error(format!(
                "{count} more PLAIN byte arrays wanted, {} left",
                self.left
            )));
        }
        out.reserve(count);
        let bytes = &self.bytes[..self.end];
        let mut at = self.at;
        // UTF-8 is checked over runs of the section: a length below 128 is four ASCII bytes,
        // which cannot end or start a character, so a run of values with such lengths between
        // them is valid exactly when each value is. A longer length closes the run.
        let mut checked_to = at;
        for _ in 0..count {
            let Some(prefix) = bytes.get(at..at + 4) else {
                return Err(error("eof decoding byte array"));
            };
            let len = u32::from_le_bytes(prefix.try_into().expect("4 bytes")) as usize;
            let start = at + 4;
            let Some(value) = bytes.get(start..start + len) else {
                return Err(error("eof decoding byte array"));
            };
            if self.utf8 && len >= 128 {
                check_utf8(&bytes[checked_to..at])?;
                checked_to = start;
            }
            // `start` is below `end`, which fits a u32 (checked in `new`).
            out.push(make_view(value, self.block, start as u32));
            at = start + len;
        }
        if self.utf8 {
            check_utf8(&bytes[checked_to..at])?;
        }
        self.at = at;
        self.left -= count;
        Ok(())
    }
}

/// Where a page's non-null views come from, in order.
pub(crate) enum DenseViews<'a> {
    /// PLAIN values in the page.
    Plain(PlainViews<'a>),
    /// Dictionary indices, gathered through the dictionary's views.
    Gather {
        indices: &'a [u32],
        dictionary: &'a [u128],
    },
}

impl DenseViews<'_> {
    /// Appends the next `count` views to `out`.
    fn append(&mut self, count: usize, out: &mut Vec<u128>) -> Result<(), ArrowError> {
        match self {
            DenseViews::Plain(plain) => plain.append(count, out),
            DenseViews::Gather {
                indices,
                dictionary,
            } => {
                let Some((now, rest)) = indices.split_at_checked(count) else {
                    return Err(error(format!(
                        "{count} more dictionary indices wanted, {} left",
                        indices.len()
                    )));
                };
                let entries = dictionary.len();
                // One check of the run's largest index, then a gather without a failing case.
                let max = now.iter().fold(0, |m, &i| m.max(i));
                if !now.is_empty() && max as usize >= entries {
                    let (at, index) = now
                        .iter()
                        .enumerate()
                        .find(|(_, &i)| i as usize >= entries)
                        .expect("an index is past the dictionary");
                    return Err(error(format!(
                        "dictionary index {index} at value {at} of the run is past the \
                         dictionary's {entries} entries"
                    )));
                }
                out.extend(now.iter().map(|&i| dictionary[i as usize]));
                *indices = rest;
                Ok(())
            }
        }
    }
}

/// A page's rows as view arrays of `data_type` (Utf8View or BinaryView), one per piece of
/// `pieces` rows (they add up to the page's rows): each piece's views are its own, the data
/// `buffers` shared. `validity`: the rows with a value (`None`: all), `dense` their views.
pub(crate) fn view_pieces(
    dense: &mut DenseViews<'_>,
    buffers: &Arc<[Buffer]>,
    validity: Option<&BooleanBuffer>,
    pieces: &[usize],
    data_type: &DataType,
) -> Result<Vec<ArrayRef>, ArrowError> {
    let mut arrays = Vec::with_capacity(pieces.len());
    let mut start = 0;
    for &rows in pieces {
        let mut views = Vec::with_capacity(rows);
        let nulls = match validity {
            None => {
                dense.append(rows, &mut views)?;
                None
            }
            Some(validity) => {
                let valid = validity.slice(start, rows);
                for (from, to) in valid.set_slices() {
                    views.resize(from, 0);
                    dense.append(to - from, &mut views)?;
                }
                views.resize(rows, 0);
                Some(NullBuffer::new(valid)).filter(|n| n.null_count() > 0)
            }
        };
        // SAFETY: every view was made by `make_view` from a value inside one of `buffers`
        // (the index it names; the dictionary's views name buffer 0, which `buffers` is then),
        // or is zero (an empty inline value); for Utf8View each value was checked to be UTF-8
        // (PlainViews, ViewDictionary). So `try_new` would succeed.
        arrays.push(unsafe { view_array(views, Arc::clone(buffers), nulls, data_type) }?);
        start += rows;
    }
    Ok(arrays)
}

/// A view array of `data_type` (Utf8View or BinaryView).
///
/// # Safety
///
/// The views must be valid for `buffers` (as `GenericByteViewArray::try_new` checks them),
/// and UTF-8 for Utf8View.
unsafe fn view_array(
    views: Vec<u128>,
    buffers: Arc<[Buffer]>,
    nulls: Option<NullBuffer>,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    let views = ScalarBuffer::from(views);
    Ok(match data_type {
        DataType::Utf8View => {
            // SAFETY: the caller's: valid views, of UTF-8 values.
            let array = unsafe { StringViewArray::new_unchecked(views, buffers, nulls) };
            Arc::new(array)
        }
        DataType::BinaryView => {
            // SAFETY: the caller's: valid views.
            let array = unsafe { BinaryViewArray::new_unchecked(views, buffers, nulls) };
            Arc::new(array)
        }
        other => return Err(error(format!("byte arrays as views of {other}"))),
    })
}

/// Decoded byte arrays (the non-null values of a page) as a view array of `data_type`, placed
/// in the rows `validity` sets: the values buffer is the data buffer, not copied. For Utf8View
/// the values are checked to be UTF-8, each one.
pub(crate) fn byte_arrays_to_views(
    values: ByteArrays,
    validity: Option<&BooleanBuffer>,
    nulls: Option<NullBuffer>,
    data_type: &DataType,
) -> Result<ArrayRef, ArrowError> {
    let ByteArrays { offsets, values } = values;
    if u32::try_from(values.len()).is_err() {
        return Err(error("a page's byte arrays pass 4 GiB"));
    }
    if *data_type == DataType::Utf8View {
        check_utf8(&values)?;
        // Whole-buffer UTF-8, and each value starts on a character: each value is UTF-8.
        let inside = offsets.iter().filter(|&&o| (o as usize) < values.len());
        if inside
            .into_iter()
            .any(|&o| (values[o as usize] as i8) < -0x40)
        {
            return Err(error(
                "encountered non UTF-8 data: a value starts inside a character",
            ));
        }
    }
    let value = |i: usize| -> Result<(usize, &[u8]), ArrowError> {
        let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
        values
            .get(start..end)
            .map(|v| (start, v))
            .ok_or_else(|| error("byte array offsets out of order"))
    };
    let count = offsets.len().saturating_sub(1);
    let rows = validity.map_or(count, |v| v.len());
    let mut views = Vec::with_capacity(rows);
    let mut next = 0;
    let mut push = |views: &mut Vec<u128>, n: usize| -> Result<(), ArrowError> {
        for i in next..next + n {
            let (start, v) = value(i)?;
            views.push(make_view(v, 0, start as u32));
        }
        next += n;
        Ok(())
    };
    match validity {
        None => push(&mut views, count)?,
        Some(validity) => {
            for (from, to) in validity.set_slices() {
                views.resize(from, 0);
                push(&mut views, to - from)?;
            }
            views.resize(rows, 0);
        }
    }
    let buffers: Arc<[Buffer]> = Arc::new([Buffer::from_vec(values)]);
    // SAFETY: each view was made by `make_view` from a value of the one buffer, at its offset
    // there (below 4 GiB, checked above), or is zero; for Utf8View the buffer is UTF-8 and every
    // value starts on a character (checked above), so each value, which ends where the next
    // starts or at the end, is UTF-8.
    unsafe { view_array(views, buffers, nulls, data_type) }
}

/// `array`'s rows in pieces of `pieces` rows (adding up to its length), each with views of its
/// own (copied) where the array is of a view type or a struct of them; other arrays are
/// sliced.
pub(crate) fn split(array: &ArrayRef, pieces: &[usize]) -> Vec<ArrayRef> {
    let mut out = Vec::with_capacity(pieces.len());
    let mut start = 0;
    for &rows in pieces {
        out.push(compact(&array.slice(start, rows)));
        start += rows;
    }
    out
}

/// `array` with views of its own rows only (a slice of a view array holds the views of the
/// whole); structs' fields likewise. Other arrays are as they are.
pub(crate) fn compact(array: &ArrayRef) -> ArrayRef {
    match array.data_type() {
        DataType::Utf8View => {
            let a = array
                .as_any()
                .downcast_ref::<StringViewArray>()
                .expect("Utf8View");
            let (views, buffers, nulls) = a.clone().into_parts();
            let views = ScalarBuffer::from(views.to_vec());
            // SAFETY: the same views, buffers and nulls as a valid array's.
            Arc::new(unsafe { StringViewArray::new_unchecked(views, buffers, nulls) })
        }
        DataType::BinaryView => {
            let a = array
                .as_any()
                .downcast_ref::<BinaryViewArray>()
                .expect("BinaryView");
            let (views, buffers, nulls) = a.clone().into_parts();
            let views = ScalarBuffer::from(views.to_vec());
            // SAFETY: the same views, buffers and nulls as a valid array's.
            Arc::new(unsafe { BinaryViewArray::new_unchecked(views, buffers, nulls) })
        }
        DataType::Struct(_) => {
            let a = array
                .as_any()
                .downcast_ref::<StructArray>()
                .expect("Struct");
            let (fields, columns, nulls) = a.clone().into_parts();
            let columns = columns.iter().map(compact).collect();
            Arc::new(StructArray::new(fields, columns, nulls))
        }
        _ => Arc::clone(array),
    }
}

/// Several view arrays (of one type) as one: the views copied, the data buffers shared, once
/// each where arrays share them (pages of one dictionary).
pub(crate) fn concat_views(arrays: &[ArrayRef]) -> Result<ArrayRef, ArrowError> {
    let data_type = arrays
        .first()
        .map(|a| a.data_type().clone())
        .ok_or_else(|| error("no array to concatenate"))?;
    let rows: usize = arrays.iter().map(|a| a.len()).sum();
    let mut views: Vec<u128> = Vec::with_capacity(rows);
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut validity: Option<arrow_buffer::BooleanBufferBuilder> = None;
    let mut done = 0;
    for array in arrays {
        let (own_views, own_buffers, nulls) = match array.data_type() {
            DataType::Utf8View => {
                let a = array
                    .as_any()
                    .downcast_ref::<StringViewArray>()
                    .expect("Utf8View");
                (a.views(), a.data_buffers(), a.nulls())
            }
            DataType::BinaryView => {
                let a = array
                    .as_any()
                    .downcast_ref::<BinaryViewArray>()
                    .expect("BinaryView");
                (a.views(), a.data_buffers(), a.nulls())
            }
            other => return Err(error(format!("concatenating views of {other}"))),
        };
        if *array.data_type() != data_type {
            return Err(error("concatenating views of two types"));
        }
        // Where each of this array's buffers is in the result.
        let mut places = Vec::with_capacity(own_buffers.len());
        for buffer in own_buffers {
            let place = match buffers.iter().position(|b| b.ptr_eq(buffer)) {
                Some(place) => place,
                None => {
                    buffers.push(buffer.clone());
                    buffers.len() - 1
                }
            };
            places.push(place as u32);
        }
        let identity = places.iter().enumerate().all(|(i, &p)| p as usize == i);
        if identity {
            views.extend_from_slice(own_views);
        } else {
            views.extend(own_views.iter().map(|&v| {
                if (v as u32) as usize <= MAX_INLINE {
                    v
                } else {
                    let index = (v >> 64) as u32 as usize;
                    let moved = places[index];
                    shift_buffer(v & !(u128::from(u32::MAX) << 64), moved)
                }
            }));
        }
        if let Some(nulls) = nulls {
            let builder = validity.get_or_insert_with(|| {
                let mut b = arrow_buffer::BooleanBufferBuilder::new(rows);
                b.append_n(done, true);
                b
            });
            builder.append_buffer(nulls.inner());
        } else if let Some(builder) = validity.as_mut() {
            builder.append_n(array.len(), true);
        }
        done += array.len();
    }
    let nulls = validity
        .map(|mut b| NullBuffer::new(b.finish()))
        .filter(|n| n.null_count() > 0);
    // SAFETY: each view is one of a valid array's, its buffer index moved to where that
    // buffer is in `buffers` (the same bytes); inline views are unchanged. Utf8View's values
    // were valid UTF-8 in their arrays.
    unsafe { view_array(views, buffers.into(), nulls, &data_type) }
}
