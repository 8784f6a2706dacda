//! BYTE_ARRAY columns as Arrow's view types (Utf8View, BinaryView), made as arrow-rs's
//! `byte_view_array` reader makes them: no string byte is copied for PLAIN and
//! dictionary-encoded pages.
//!
//! - A dictionary page's bytes become one data buffer, and a view is made once per entry
//!   ([`ViewDictionary`]); a data page's indices then gather 16-byte views.
//! - A PLAIN page's bytes become the data buffer; the views point into it (values of at most
//!   12 bytes are inline in their view).
//! - Other encodings (DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY) are decoded to byte arrays
//!   first, whose values buffer the views point into ([`dense_views`]).
//!
//! Utf8View's strings are checked to be UTF-8 (whatever the column's annotation: arrow-rs
//! checks only columns annotated UTF8): a dictionary once, PLAIN values over runs of a page
//! (as arrow-rs checks them). A null row's view is zero (empty, inline).
//!
//! A flat column's views are made straight into the batch being filled ([`OpenViews`]), page
//! after page: a batch holds its own views, and the data buffers of the pages or dictionaries
//! its rows come from (as arrow-rs's batches do), never its pages' views. Struct fields and
//! list elements are made a page at a time ([`byte_arrays_to_views`]) and cut where batches
//! end ([`split`]), their views copied.

use std::sync::Arc;

use arrow_array::builder::make_view;
use arrow_array::{Array, ArrayRef, BinaryViewArray, StringViewArray, StructArray};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, ScalarBuffer};
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
    // ASCII (most strings) is checked a word at a time first.
    if bytes.is_ascii() {
        return Ok(());
    }
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

/// A chunk's dictionary as views: its page's bytes (the data buffer) and one view per entry
/// (naming buffer 0; a gather moves them to the buffer's place in its batch).
pub(crate) struct ViewDictionary {
    buffer: Buffer,
    views: Vec<u128>,
}

impl ViewDictionary {
    /// The dictionary page `page` of `entries` PLAIN byte arrays; `utf8`: each must be UTF-8.
    pub fn new(page: Bytes, entries: usize, utf8: bool) -> Result<ViewDictionary, ArrowError> {
        let buffer = Buffer::from(page);
        let mut plain = PlainViews::new(&buffer, 0..buffer.len(), entries, utf8)?;
        let mut views = Vec::with_capacity(entries);
        plain.append(entries, &mut views)?;
        plain.settle()?;
        Ok(ViewDictionary { buffer, views })
    }

    /// The views of `indices` through this dictionary.
    pub fn gather<'a>(&'a self, indices: &'a [u32]) -> CopyViews<'a> {
        CopyViews {
            indices: Some(indices),
            views: &self.views,
            at: 0,
            buffer: &self.buffer,
            block: 0,
        }
    }
}

/// Where a page's non-null views come from, in order: views of values in one data buffer.
pub(crate) trait DenseViews {
    /// The data buffer the views point into.
    fn buffer(&self) -> &Buffer;

    /// Views appended from now on name `block` as their buffer's index.
    fn set_block(&mut self, block: u32);

    /// Appends the next `count` views to `out`.
    fn append(&mut self, count: usize, out: &mut Vec<u128>) -> Result<(), ArrowError>;

    /// Passes over the next `count` values.
    fn skip(&mut self, count: usize) -> Result<(), ArrowError>;

    /// Checks what `append` could not check value by value (UTF-8, over runs of values):
    /// views appended are valid once this returns `Ok`.
    fn settle(&mut self) -> Result<(), ArrowError> {
        Ok(())
    }
}

/// PLAIN byte arrays (each a 4-byte little-endian length, then its bytes) read as views into
/// the buffer that holds them, a run of values at a time. For Utf8View the values read are
/// checked to be UTF-8 by [`DenseViews::settle`].
pub(crate) struct PlainViews<'a> {
    buffer: &'a Buffer,
    /// The next value's length prefix.
    at: usize,
    /// The end of the values section.
    end: usize,
    /// Values not read yet.
    left: usize,
    block: u32,
    /// Check UTF-8 (from `checked_to` on).
    utf8: bool,
    /// Where the values read are not checked to be UTF-8 yet.
    checked_to: usize,
}

impl<'a> PlainViews<'a> {
    /// The `count` values of `buffer[section]`; `utf8`: each must be UTF-8.
    pub fn new(
        buffer: &'a Buffer,
        section: std::ops::Range<usize>,
        count: usize,
        utf8: bool,
    ) -> Result<PlainViews<'a>, ArrowError> {
        if u32::try_from(section.end).is_err() || section.end > buffer.len() {
            return Err(error(format!(
                "a PLAIN section ending at byte {} of a {}-byte page",
                section.end,
                buffer.len()
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
            buffer,
            at: section.start,
            end: section.end,
            left: count,
            block: 0,
            utf8,
            checked_to: section.start,
        })
    }

    /// The byte where the next value's length prefix is (a page fed a batch at a time
    /// resumes there).
    pub fn position(&self) -> usize {
        self.at
    }

    /// Checks `buffer[checked_to..to]` to be UTF-8 (when asked to), then `checked_to = next`.
    #[cold]
    #[inline(never)]
    fn check_run(&mut self, to: usize, next: usize) -> Result<(), ArrowError> {
        if self.utf8 {
            check_utf8(&self.buffer[self.checked_to..to])?;
        }
        self.checked_to = next;
        Ok(())
    }

    #[inline]
    fn wanted(&self, count: usize) -> Result<(), ArrowError> {
        if count > self.left {
            return Err(error(format!(
                "{count} more PLAIN byte arrays wanted, {} left",
                self.left
            )));
        }
        Ok(())
    }
}

impl DenseViews for PlainViews<'_> {
    fn buffer(&self) -> &Buffer {
        self.buffer
    }

    fn set_block(&mut self, block: u32) {
        self.block = block;
    }

    #[inline]
    fn append(&mut self, count: usize, out: &mut Vec<u128>) -> Result<(), ArrowError> {
        self.wanted(count)?;
        out.reserve(count);
        let (bytes, end, block) = (self.buffer.as_slice(), self.end, u128::from(self.block));
        let mut at = self.at;
        for _ in 0..count {
            qpl_fallback::parquet::plain::prefetch_ahead(bytes, at);
            // A value's 16 bytes from its length prefix are its view's first 16 when it is
            // inline (the bytes after it masked off), and its first 8 (length, prefix)
            // otherwise.
            let view = match bytes.get(at..at + 16) {
                Some(head) => {
                    let raw = u128::from_le_bytes(head.try_into().expect("16 bytes"));
                    let len = raw as u32 as usize;
                    let start = at + 4;
                    if len > end - start {
                        return Err(error("eof decoding byte array"));
                    }
                    // UTF-8 is checked over runs of values: a length below 128 is four ASCII
                    // bytes, which cannot end or start a character, so a run of values with
                    // such lengths between them is valid exactly when each value is (as
                    // arrow-rs checks them). A longer length closes the run.
                    if len >= 128 {
                        self.check_run(at, start)?;
                    }
                    at = start + len;
                    if len <= MAX_INLINE {
                        raw & (u128::MAX >> (96 - 8 * len))
                    } else {
                        // `start` is below `end`, which fits a u32 (checked in `new`).
                        u128::from(raw as u64) | block << 64 | (start as u128) << 96
                    }
                }
                None => {
                    let Some(prefix) = bytes.get(at..at + 4).filter(|_| at + 4 <= end) else {
                        return Err(error("eof decoding byte array"));
                    };
                    let len = u32::from_le_bytes(prefix.try_into().expect("4 bytes")) as usize;
                    let start = at + 4;
                    if len > end - start {
                        return Err(error("eof decoding byte array"));
                    }
                    if len >= 128 {
                        self.check_run(at, start)?;
                    }
                    at = start + len;
                    make_view(&bytes[start..at], self.block, start as u32)
                }
            };
            out.push(view);
        }
        self.at = at;
        self.left -= count;
        Ok(())
    }

    fn skip(&mut self, count: usize) -> Result<(), ArrowError> {
        self.wanted(count)?;
        // What was read before is checked now; what is skipped is not read, nor checked.
        self.check_run(self.at, self.at)?;
        let bytes = &self.buffer.as_slice()[..self.end];
        let mut at = self.at;
        for _ in 0..count {
            qpl_fallback::parquet::plain::prefetch_ahead(bytes, at);
            let Some(prefix) = bytes.get(at..at + 4) else {
                return Err(error("eof decoding byte array"));
            };
            let len = u32::from_le_bytes(prefix.try_into().expect("4 bytes")) as usize;
            if len > bytes.len() - (at + 4) {
                return Err(error("eof decoding byte array"));
            }
            at += 4 + len;
        }
        self.at = at;
        self.checked_to = at;
        self.left -= count;
        Ok(())
    }

    fn settle(&mut self) -> Result<(), ArrowError> {
        self.check_run(self.at, self.at)
    }
}

/// Views made already (a dictionary's entries, gathered by `indices`; or a page's values, in
/// order, without), naming buffer 0, which is `buffer`.
pub(crate) struct CopyViews<'a> {
    indices: Option<&'a [u32]>,
    views: &'a [u128],
    /// The next view, without indices.
    at: usize,
    buffer: &'a Buffer,
    block: u32,
}

impl CopyViews<'_> {
    /// No value (an all-null page of a chunk without a dictionary).
    pub fn none() -> CopyViews<'static> {
        static EMPTY: std::sync::OnceLock<Buffer> = std::sync::OnceLock::new();
        CopyViews {
            indices: None,
            views: &[],
            at: 0,
            buffer: EMPTY.get_or_init(|| Buffer::from_vec(Vec::<u8>::new())),
            block: 0,
        }
    }

    /// The next `count` views, checked to exist.
    fn take(&mut self, count: usize) -> Result<Option<&[u32]>, ArrowError> {
        match &mut self.indices {
            Some(indices) => {
                let Some((now, rest)) = indices.split_at_checked(count) else {
                    return Err(error(format!(
                        "{count} more dictionary indices wanted, {} left",
                        indices.len()
                    )));
                };
                *indices = rest;
                Ok(Some(now))
            }
            None if count > self.views.len() - self.at => Err(error(format!(
                "{count} more values wanted, {} left",
                self.views.len() - self.at
            ))),
            None => {
                self.at += count;
                Ok(None)
            }
        }
    }
}

impl DenseViews for CopyViews<'_> {
    fn buffer(&self) -> &Buffer {
        self.buffer
    }

    fn set_block(&mut self, block: u32) {
        self.block = block;
    }

    #[inline]
    fn append(&mut self, count: usize, out: &mut Vec<u128>) -> Result<(), ArrowError> {
        let (views, block) = (self.views, self.block);
        let start = self.at;
        match self.take(count)? {
            None if block == 0 => out.extend_from_slice(&views[start..start + count]),
            None => out.extend(
                views[start..start + count]
                    .iter()
                    .map(|&v| shift_buffer(v, block)),
            ),
            Some(indices) => {
                let past = |index: u32| {
                    error(format!(
                        "dictionary index {index} is past the dictionary's {} entries",
                        views.len()
                    ))
                };
                if indices.len() < 16 {
                    for &index in indices {
                        let view = *views.get(index as usize).ok_or_else(|| past(index))?;
                        out.push(shift_buffer(view, block));
                    }
                } else {
                    // One check of the run's largest index, then a gather without a failing
                    // case.
                    let max = qpl_fallback::parquet::dictionary::largest_index(indices);
                    if max as usize >= views.len() {
                        return Err(past(max));
                    }
                    // The clamp changes no checked index but drops the bounds check and its
                    // branch from the loop (a store a row is all it does).
                    let last = views.len() - 1;
                    let view = |i: u32| views[(i as usize).min(last)];
                    if block == 0 {
                        out.extend(indices.iter().map(|&i| view(i)));
                    } else {
                        out.extend(indices.iter().map(|&i| shift_buffer(view(i), block)));
                    }
                }
            }
        }
        Ok(())
    }

    fn skip(&mut self, count: usize) -> Result<(), ArrowError> {
        self.take(count).map(drop)
    }
}

/// The rows of the batch being filled: views, the data buffers they name (each once), and
/// the validity (`None` while every row has a value).
pub(crate) struct OpenViews {
    views: Vec<u128>,
    buffers: Vec<Buffer>,
    validity: Option<BooleanBufferBuilder>,
    batch_size: usize,
}

impl OpenViews {
    /// An empty batch of at most `batch_size` rows.
    pub fn new(batch_size: usize) -> OpenViews {
        OpenViews {
            views: Vec::new(),
            buffers: Vec::new(),
            validity: None,
            batch_size,
        }
    }

    /// Rows in the batch.
    pub fn len(&self) -> usize {
        self.views.len()
    }

    /// Rows the batch still takes.
    pub fn room(&self) -> usize {
        self.batch_size - self.views.len()
    }

    /// Appends `rows` rows: `valid` says which have a value (`None`: all), taken from
    /// `dense`, which is settled after.
    fn append(
        &mut self,
        dense: &mut impl DenseViews,
        valid: Option<&BooleanBuffer>,
        rows: usize,
    ) -> Result<(), ArrowError> {
        let present = valid.map_or(rows, |v| v.count_set_bits());
        if present > 0 {
            let buffer = dense.buffer();
            let block = match self.buffers.iter().position(|b| b.ptr_eq(buffer)) {
                Some(block) => block,
                None => {
                    self.buffers.push(buffer.clone());
                    self.buffers.len() - 1
                }
            };
            dense.set_block(block as u32);
        }
        if self.views.capacity() == 0 {
            self.views.reserve(self.batch_size);
        }
        let before = self.views.len();
        let valid = valid.filter(|_| present < rows);
        let made = match valid {
            None => dense.append(rows, &mut self.views),
            Some(valid) => {
                // The values first, then moved to their rows from the last one back.
                dense.append(present, &mut self.views).map(|()| {
                    self.views.resize(before + rows, 0);
                    spread(&mut self.views[before..], valid, present);
                })
            }
        };
        if let Err(e) = made.and_then(|()| dense.settle()) {
            // No view that failed its checks stays in the batch.
            self.views.truncate(before);
            return Err(e);
        }
        append_validity(&mut self.validity, valid, before, rows, self.batch_size);
        Ok(())
    }

    /// Appends the rows of a page (`rows` rows, `validity` the ones with a value, `dense`
    /// their values), those `selected` sets (`None`: all); returns the batches filled.
    pub fn feed(
        &mut self,
        dense: &mut impl DenseViews,
        validity: Option<&BooleanBuffer>,
        rows: usize,
        selected: Option<&BooleanBuffer>,
        data_type: &DataType,
    ) -> Result<Vec<ArrayRef>, ArrowError> {
        let mut full = Vec::new();
        match selected {
            None => self.fill(dense, validity, 0..rows, data_type, &mut full)?,
            Some(selected) => {
                // The values of the rows passed over are skipped.
                let mut next = 0;
                for (from, to) in selected.set_slices() {
                    let skipped = match validity {
                        None => from - next,
                        Some(v) => v.slice(next, from - next).count_set_bits(),
                    };
                    if skipped > 0 {
                        dense.skip(skipped)?;
                    }
                    self.fill(dense, validity, from..to, data_type, &mut full)?;
                    next = to;
                }
            }
        }
        Ok(full)
    }

    /// Appends the page's rows `range`, a batch at a time; full batches go to `full`.
    fn fill(
        &mut self,
        dense: &mut impl DenseViews,
        validity: Option<&BooleanBuffer>,
        range: std::ops::Range<usize>,
        data_type: &DataType,
        full: &mut Vec<ArrayRef>,
    ) -> Result<(), ArrowError> {
        let mut row = range.start;
        while row < range.end {
            let n = self.room().min(range.end - row);
            let valid = validity.map(|v| v.slice(row, n));
            self.append(dense, valid.as_ref(), n)?;
            row += n;
            if self.room() == 0 {
                // The next batch's room is taken when its first rows come (see
                // `open_fixed`'s `fill`).
                full.push(self.finish(data_type)?);
            }
        }
        Ok(())
    }

    /// The batch's rows as an array of `data_type` (Utf8View or BinaryView); the batch is
    /// empty after.
    pub fn finish(&mut self, data_type: &DataType) -> Result<ArrayRef, ArrowError> {
        let mut views = std::mem::take(&mut self.views);
        // A last batch of few rows does not keep a whole batch's room.
        if views.len() < views.capacity() / 2 {
            views.shrink_to_fit();
        }
        let buffers: Arc<[Buffer]> = std::mem::take(&mut self.buffers).into();
        let nulls = self
            .validity
            .take()
            .map(|mut v| NullBuffer::new(v.finish()));
        // SAFETY: every view was made by a `DenseViews` from a value inside its buffer, which
        // is at the index the view names in `buffers` (`set_block`), as `make_view` makes it,
        // or is zero (an empty inline value); for Utf8View the values were checked to be
        // UTF-8 (`settle` after each `append`; a dictionary's when it was read). So
        // `try_new` would succeed.
        unsafe { view_array(views, buffers, nulls, data_type) }
    }
}

/// Appends `rows` rows to the validity of a batch of `batch_size` rows that holds `before`
/// rows: `valid` says which have a value (`None`: all). The validity stays `None` while every
/// row has a value.
pub(crate) fn append_validity(
    validity: &mut Option<BooleanBufferBuilder>,
    valid: Option<&BooleanBuffer>,
    before: usize,
    rows: usize,
    batch_size: usize,
) {
    match (valid, validity) {
        (Some(valid), Some(validity)) => validity.append_buffer(valid),
        (Some(valid), validity @ None) => {
            let mut bits = BooleanBufferBuilder::new(batch_size);
            bits.append_n(before, true);
            bits.append_buffer(valid);
            *validity = Some(bits);
        }
        (None, Some(validity)) => validity.append_n(rows, true),
        (None, None) => {}
    }
}

/// Moves the first `present` views of `views` to the rows `valid` sets (as many), from the
/// last back (each moves up, over rows already moved or free), and zeroes the other rows.
fn spread(views: &mut [u128], valid: &BooleanBuffer, present: usize) {
    debug_assert_eq!(views.len(), valid.len());
    debug_assert_eq!(valid.count_set_bits(), present);
    let rows = views.len();
    let words: Vec<u64> = valid.bit_chunks().iter_padded().collect();
    // Values not moved yet: `views[..next]`.
    let mut next = present;
    for (w, &word) in words.iter().enumerate().rev() {
        let low = w * 64;
        let high = (low + 64).min(rows);
        let n = high - low;
        let all = if n == 64 { u64::MAX } else { (1 << n) - 1 };
        if word & all == all {
            next -= n;
            views.copy_within(next..next + n, low);
        } else if word & all == 0 {
            views[low..high].fill(0);
        } else {
            for i in (low..high).rev() {
                let bit = (word >> (i - low)) & 1;
                next -= bit as usize;
                // Where the bit is clear, `next` is at most `i` (the rows below with a value)
                // and the row gets zero.
                views[i] = views[next] & 0u128.wrapping_sub(u128::from(bit));
            }
        }
    }
    debug_assert_eq!(next, 0);
}

/// Decoded byte arrays (a page's non-null values) as views into their values buffer (which
/// is returned, not copied), naming buffer 0. For Utf8View (`utf8`) each value is checked to
/// be UTF-8.
pub(crate) fn dense_views(
    values: ByteArrays,
    utf8: bool,
) -> Result<(Buffer, Vec<u128>), ArrowError> {
    let ByteArrays { offsets, values } = values;
    if u32::try_from(values.len()).is_err() {
        return Err(error("a page's byte arrays pass 4 GiB"));
    }
    if utf8 {
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
    let mut views = Vec::with_capacity(offsets.len().saturating_sub(1));
    for pair in offsets.windows(2) {
        let (start, end) = (pair[0] as usize, pair[1] as usize);
        let value = values
            .get(start..end)
            .ok_or_else(|| error("byte array offsets out of order"))?;
        views.push(make_view(value, 0, start as u32));
    }
    Ok((Buffer::from_vec(values), views))
}

impl<'a> CopyViews<'a> {
    /// The views of [`dense_views`], in order.
    pub fn of(buffer: &'a Buffer, views: &'a [u128]) -> CopyViews<'a> {
        CopyViews {
            indices: None,
            views,
            at: 0,
            buffer,
            block: 0,
        }
    }
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
    let (buffer, dense) = dense_views(values, *data_type == DataType::Utf8View)?;
    let views = match validity {
        None => dense,
        Some(validity) => {
            let mut views = Vec::with_capacity(validity.len());
            let mut at = 0;
            for (from, to) in validity.set_slices() {
                views.resize(from, 0);
                let run = dense
                    .get(at..at + to - from)
                    .ok_or_else(|| error("fewer byte arrays than rows with a value"))?;
                views.extend_from_slice(run);
                at += to - from;
            }
            views.resize(validity.len(), 0);
            views
        }
    };
    // SAFETY: each view was made by `make_view` from a value of the one buffer, at its offset
    // there, or is zero; for Utf8View each value was checked to be UTF-8 (`dense_views`).
    unsafe { view_array(views, Arc::new([buffer]), nulls, data_type) }
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
