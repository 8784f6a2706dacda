//! A column of one leaf read by this project (a top-level leaf, not repeated, or a list of
//! one: [`super::list`]): its chunks' pages decoded by [`ChunkDecoder`] one at a time. A
//! top-level fixed-width, Utf8/Binary (dictionary pages) or view column writes each page's
//! selected rows straight into the batch being filled ([`OpenFixed`], [`OpenBytes`],
//! [`OpenViews`]); the others' pages become Arrow arrays, cut into the reader's batches
//! (slices where a page covers a batch, a concatenation across pages).

use std::collections::VecDeque;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef};
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer};
use arrow_schema::{ArrowError, DataType};
use parquet::column::page::PageReader;
use parquet::file::metadata::ParquetMetaData;

use super::chunk_bytes::{ChunkSource, ChunkWindow, DynSource};
use super::convert::{boolean_array, gather_bytes, is_offset_bytes, plain_array, take_values};
use super::list::{
    check_list_page, check_list_page_end, list_of_ids, list_piece, piece_cut, take_list,
    take_list_selected, ListPlace, ListShape,
};
use super::open_bytes::OpenBytes;
use super::open_fixed::{Dense, OpenFixed};
use super::selection::{fragmented, selected_positions, Cursor, Take};
use super::structs::{struct_nulls, wrap_in_structs, StructParent};
use super::view::{self, CopyViews, OpenViews, PlainViews, ViewDictionary};
use crate::parquet::query::{
    checked_chunk_page_reader, chunk_page_starts, chunk_place, column_of, page_of,
};
use crate::parquet::validity::in_page_width;
use crate::parquet::{
    ArrowPage, Bits, ChunkDecoder, Column, ColumnData, Encoding, IndexStream, ListPageStreams,
    ValuesAt,
};
use crate::Executor;

/// The selected rows of a piece of a page whose dictionary indices are decoded a piece at a
/// time ([`PageIndices`]).
const INDEX_PIECE: usize = 1024;

/// An RLE run of dictionary indices at least this long ends a piece of a fixed-width column
/// (every row selected): the piece is a fill of its entry. Shorter runs are decoded with the
/// indices around them (a piece costs more than gathering a few hundred values).
const RUN_FILL: usize = 256;

/// A page of at least this many bytes is kept until the next page is read
/// ([`FlatColumn::last_page`]); smaller ones are let go at once (kept, the ~100 KB pages of a
/// list of structs' field raised its peak heap to 1.04x arrow-rs's).
const KEEP_LAST_PAGE: usize = 256 * 1024;

/// A page of which fewer than one row in `SPARSE` is selected has only those rows' byte
/// arrays gathered from the dictionary (a 1 % row filter spent most of its read gathering
/// whole pages' strings, then filtering them).
const SPARSE: usize = 4;

/// The byte arrays of the chunk's dictionary, for a data page of `present` dictionary-encoded
/// values: `None` where the chunk has no dictionary and the page no value.
fn byte_dictionary(
    decoder: &ChunkDecoder,
    present: usize,
) -> Result<Option<&crate::parquet::ByteArrays>, ArrowError> {
    match decoder.dictionary() {
        Some(crate::parquet::Values::Bytes(entries)) => Ok(Some(entries)),
        Some(_) => Err(ArrowError::ParquetError(
            "a byte array column's dictionary holds other values".into(),
        )),
        None if present == 0 => Ok(None),
        None => Err(ArrowError::ParquetError(
            "a dictionary-encoded data page, but the chunk had no dictionary page before it".into(),
        )),
    }
}

/// The byte arrays of the dictionary ids it is given, gathered from the chunk's dictionary
/// (`None` allowed while no value is `present`) within the executor's output limit.
fn byte_gather(
    decoder: &ChunkDecoder,
    present: usize,
    encoding: Encoding,
) -> Result<impl Fn(&[u32]) -> Result<crate::parquet::ByteArrays, ArrowError> + '_, ArrowError> {
    static EMPTY: std::sync::LazyLock<crate::parquet::ByteArrays> =
        std::sync::LazyLock::new(crate::parquet::ByteArrays::new);
    let limit = decoder.executor().config().max_output_bytes as u64;
    let dictionary = byte_dictionary(decoder, present)?.unwrap_or(&EMPTY);
    Ok(move |ids: &[u32]| gather_bytes(ids, dictionary, limit, encoding))
}

/// The values of the dictionary ids it is given, for a list page of `present`
/// dictionary-encoded values of the column: byte arrays ([`byte_gather`]), or INT32, INT64,
/// FLOAT or DOUBLE entries, each id checked to be in the dictionary.
fn list_values<'d>(
    decoder: &'d ChunkDecoder,
    present: usize,
    encoding: Encoding,
) -> Result<impl Fn(&[u32]) -> Result<crate::parquet::Values, ArrowError> + 'd, ArrowError> {
    use crate::parquet::Values;
    let bytes = match decoder.column().physical_type {
        crate::parquet::PhysicalType::ByteArray => Some(byte_gather(decoder, present, encoding)?),
        _ => None,
    };
    let physical = decoder.column().physical_type;
    Ok(move |ids: &[u32]| -> Result<Values, ArrowError> {
        if let Some(gather) = &bytes {
            return gather(ids).map(Values::Bytes);
        }
        fn gather<T: qpl_fallback::parquet::FixedWidth>(
            ids: &[u32],
            entries: &[T],
        ) -> Result<Vec<T>, ArrowError> {
            let mut out = vec![T::default(); ids.len()];
            qpl_fallback::parquet::dictionary::gather(ids, entries, &mut out)
                .map_err(|e| ArrowError::ParquetError(e.to_string()))?;
            Ok(out)
        }
        match decoder.dictionary() {
            None if ids.is_empty() => Ok(Values::new(physical)),
            None => Err(ArrowError::ParquetError(
                "a dictionary-encoded data page, but the chunk had no dictionary page before it"
                    .into(),
            )),
            Some(Values::Int32(entries)) => gather(ids, entries).map(Values::Int32),
            Some(Values::Int64(entries)) => gather(ids, entries).map(Values::Int64),
            Some(Values::Float(entries)) => gather(ids, entries).map(Values::Float),
            Some(Values::Double(entries)) => gather(ids, entries).map(Values::Double),
            Some(_) => Err(ArrowError::ParquetError(
                "a list page's dictionary holds values read another way".into(),
            )),
        }
    })
}

/// One flat column's pages, row group after row group, as arrays of the rows selected.
pub(crate) struct FlatColumn {
    /// See [`FlatColumn::weight`].
    weight: i64,
    input: Arc<dyn ChunkSource>,
    metadata: Arc<ParquetMetaData>,
    leaf: usize,
    name: String,
    data_type: DataType,
    /// `Some` for a list column.
    list: Option<ListShape>,
    /// The structs a struct's field is inside (outermost first): its batches are structs of
    /// this one field.
    parents: Vec<StructParent>,
    /// The parents' validity of the selected rows decoded and not yet returned, a page's rows
    /// per entry (where some parent can be null): the rows' count and each parent's bits
    /// (`None` where none of them is null); `struct_row` rows of the first entry are returned.
    struct_pending: VecDeque<(usize, Vec<Option<BooleanBuffer>>)>,
    struct_row: usize,
    column: Column,
    decoder: ChunkDecoder,
    data: ColumnData,
    /// A flat column's page, as the reader wants it.
    arrow_page: ArrowPage,
    /// A page's dictionary indices: a list page of byte arrays read sparsely, a fixed-width
    /// column's page (reused across pages).
    sparse_indices: Vec<u32>,
    row_groups: VecDeque<usize>,
    pages: Option<Box<dyn PageReader>>,
    /// The current chunk's next page's index (the dictionary page counted), for errors.
    page: usize,
    cursor: Cursor,
    /// Arrays of selected rows not yet returned, and their rows.
    pending: VecDeque<ArrayRef>,
    pending_rows: usize,
    /// The reader's batch size: arrays of view types are cut where batches end.
    batch_size: usize,
    /// Selected rows put in `pending` so far (where the next batch boundary is).
    queued: usize,
    /// A top-level Utf8View/BinaryView column: its PLAIN and dictionary pages made views here.
    views: Option<Views>,
    /// A top-level column read as a dictionary array: its dictionary pages kept as they are.
    dictionary: Option<KeptDictionary>,
    /// A top-level Utf8 or Binary column: its dictionary-encoded pages gathered into batches
    /// here.
    bytes: Option<OpenBytes>,
    /// A top-level INT32, INT64, FLOAT or DOUBLE column: its pages copied into batches here.
    fixed: Option<OpenFixed>,
    /// The data page being fed into `fixed`, `bytes` or `views`, a batch at a time.
    feed: Option<PageFeed>,
    /// A list page of dictionary-encoded byte arrays being fed a batch at a time (its levels
    /// in `data`, its indices in `sparse_indices`), with its encoding and rows.
    list_feed: Option<(ListPlace, crate::parquet::Encoding, usize)>,
    /// A list page of dictionary-encoded byte arrays being decoded a batch at a time: levels,
    /// indices and elements of one piece at a time (the levels decoded past the piece wait in
    /// `data`). Where every row is selected; `list_feed` serves selections.
    list_stream: Option<ListStreamFeed>,
    /// A buffer for the levels of `list_stream`.
    level_scratch: Vec<u32>,
    /// The rows of `list_stream`'s last page that did not fill the batch: kept as levels (in
    /// `data`) and dictionary indices (in `sparse_indices`) until the next page fills it, so
    /// that a batch's strings are gathered once, into one array (made per page and joined,
    /// a batch crossing pages was held twice: 1.2-1.4x arrow-rs's peak heap).
    list_carry: Option<ListCarry>,
    /// The last page read, of [`KEEP_LAST_PAGE`] bytes or more, kept until the next one is.
    last_page: Option<bytes::Bytes>,
}

/// Rows of a list page of dictionary-encoded byte arrays carried into the next page's
/// piece ([`FlatColumn::list_carry`]).
struct ListCarry {
    /// Their rows and values present, and the values' encoding.
    rows: usize,
    present: usize,
    encoding: crate::parquet::Encoding,
}

/// Levels a list page's streams decode per step.
const LIST_LEVEL_STEP: usize = 2048;

/// A list page decoded a piece at a time ([`ChunkDecoder::list_page_streams`]).
struct ListStreamFeed {
    page: bytes::Bytes,
    streams: ListPageStreams,
    /// Values present in the levels fed so far; whether the page's first level was checked.
    present: usize,
    started: bool,
}

/// A data page fed into the batch being filled a batch at a time: a column holds the batch
/// being filled and the page, never a page's worth of finished batches (arrow-rs's reader
/// reads a batch's rows at a time too; fed whole, the pages of lineitem's 16 columns held
/// twice arrow-rs's peak heap).
struct PageFeed {
    values: FeedValues,
    /// The page's rows with a value (`None`: all) and the ones selected (`None`: all).
    validity: Option<BooleanBuffer>,
    selected: Option<BooleanBuffer>,
    rows: usize,
    /// Rows with a value.
    present: usize,
    /// The next row to feed, and the values of the rows before it.
    row: usize,
    value: usize,
}

/// Which of a column's buffers holds a page's dictionary indices decoded whole.
#[derive(Clone, Copy)]
enum Kept {
    Fixed,
    Bytes,
    Views,
}

/// Where a page being fed keeps its values.
enum FeedValues {
    /// PLAIN fixed-width values of `width` bytes each: these bytes of the page.
    FixedPlain {
        page: bytes::Bytes,
        range: std::ops::Range<usize>,
        width: usize,
    },
    /// Dictionary indices (in `sparse_indices`, or decoded a batch at a time into it), into
    /// the decoder's dictionary.
    FixedDictionary(Option<PageIndices>),
    /// Decoded values in `arrow_page.values`.
    FixedDecoded,
    /// Dictionary indices (in `OpenBytes::indices`, or decoded a batch at a time into it),
    /// into the decoder's dictionary.
    BytesDictionary(Option<PageIndices>),
    /// Dictionary indices (in `Views::indices`, or decoded a batch at a time into it), into
    /// `Views::dictionary`.
    ViewDictionary(Option<PageIndices>),
    /// PLAIN byte arrays in `buffer`, the next one's length prefix at `at`, up to `end`.
    ViewPlain {
        buffer: Buffer,
        at: usize,
        end: usize,
    },
    /// Views made of decoded byte arrays held in `buffer`.
    ViewDecoded { buffer: Buffer, views: Vec<u128> },
}

/// A page's dictionary indices decoded a batch at a time (the CPU path; a QPL job decodes a
/// page's at once): the page, its values section, and where the decoding is. A column then
/// holds a batch's indices, not a page's (20k rows a page from arrow-rs's writer: 80 KB a
/// column).
struct PageIndices {
    page: bytes::Bytes,
    section: std::ops::Range<usize>,
    stream: IndexStream,
}

/// The dictionary indices of a piece's `values` (the page's values `values`): decoded now
/// into `kept` from `stream`, or where the page's were decoded whole, in `kept`.
fn piece_indices<'k>(
    stream: &mut Option<PageIndices>,
    kept: &'k mut Vec<u32>,
    values: std::ops::Range<usize>,
) -> Result<&'k [u32], ArrowError> {
    match stream {
        Some(indices) => {
            let section = &indices.page[indices.section.clone()];
            indices
                .stream
                .next(section, values.len(), kept)
                .map_err(|e| ArrowError::ParquetError(e.to_string()))?;
            Ok(kept)
        }
        None => kept.get(values).ok_or_else(|| {
            ArrowError::ParquetError("fewer dictionary indices than rows with a value".into())
        }),
    }
}

/// The row of a page of `rows` rows after which, from row `from` on, `room` selected rows
/// (`selected`; `None`: all) were passed: where a piece that fills a batch's `room` ends (the
/// page's end where fewer are left).
fn piece_end(selected: Option<&BooleanBuffer>, from: usize, rows: usize, room: usize) -> usize {
    let Some(selected) = selected else {
        return rows.min(from + room);
    };
    let mut left = room;
    for (start, end) in selected.slice(from, rows - from).set_slices() {
        if end - start >= left {
            return from + start + left;
        }
        left -= end - start;
    }
    rows
}

/// A flat dictionary column's state: the chunk's dictionary as the array's values.
#[derive(Default)]
struct KeptDictionary {
    /// The chunk's dictionary, made an array when its first data page needs it.
    values: Option<ArrayRef>,
    /// A page's indices (kept for its capacity).
    indices: Vec<u32>,
}

/// A flat view column's state: views are made into the batch being filled, across pages.
struct Views {
    /// The chunk's dictionary, once its page was read.
    dictionary: Option<ViewDictionary>,
    /// A page's dictionary indices (kept for its capacity).
    indices: Vec<u32>,
    /// The batch being filled (full ones go to `pending`; the last at the column's end).
    open: OpenViews,
}

impl FlatColumn {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        input: Arc<dyn ChunkSource>,
        metadata: Arc<ParquetMetaData>,
        leaf: usize,
        data_type: DataType,
        list: Option<ListShape>,
        row_groups: &[usize],
        cursor: Cursor,
        executor: Executor,
        batch_size: usize,
        selected: usize,
    ) -> Result<FlatColumn, ArrowError> {
        // The open batch's room: a batch, or the rows to read where fewer (a small file's
        // columns do not each hold a batch of 8 192 rows).
        let room = batch_size.min(selected).max(1);
        let descr = metadata.file_metadata().schema_descr().column(leaf);
        let name = descr.path().string();
        let column = column_of(&descr)
            .map_err(|m| ArrowError::ParquetError(format!("column {name}: {m}")))?;
        let decoder = ChunkDecoder::with_executor(column, executor);
        let views = (list.is_none() && view::is_view(&data_type)).then(|| Views {
            dictionary: None,
            indices: Vec::new(),
            open: OpenViews::new(room),
        });
        let mut arrow_page = ArrowPage::new(column.physical_type);
        arrow_page.byte_array_sections = views.is_some();
        let dictionary = match (&list, &data_type) {
            (None, DataType::Dictionary(key, value))
                if super::convert::is_dictionary_of_bytes(key, value) =>
            {
                Some(KeptDictionary::default())
            }
            _ => None,
        };
        let bytes = list
            .is_none()
            .then(|| OpenBytes::new(&data_type, room))
            .flatten();
        let fixed = list
            .is_none()
            .then(|| OpenFixed::new(column.physical_type, &data_type, room))
            .flatten();
        // FIXED_LEN_BYTE_ARRAY decimals are gathered or copied from the page by `fixed`;
        // FLOAT16 and FixedSizeBinary arrays made of a PLAIN page's bytes.
        arrow_page.fixed_len_byte_arrays_in_page = fixed.is_some()
            || (list.is_none()
                && super::convert::reads_fixed_len_in_page(column.physical_type, &data_type));
        let chunks = metadata.row_groups();
        let weight = row_groups
            .iter()
            .filter_map(|&g| chunks.get(g)?.columns().get(leaf))
            .map(|chunk| chunk.uncompressed_size().max(0))
            .sum();
        let mut flat = FlatColumn {
            weight,
            input,
            metadata,
            leaf,
            name,
            data_type,
            list,
            parents: Vec::new(),
            struct_pending: VecDeque::new(),
            struct_row: 0,
            column,
            decoder,
            data: ColumnData::new(&column),
            arrow_page,
            sparse_indices: Vec::new(),
            row_groups: row_groups.iter().copied().collect(),
            pages: None,
            page: 0,
            cursor,
            pending: VecDeque::new(),
            pending_rows: 0,
            batch_size: batch_size.max(1),
            queued: 0,
            views,
            dictionary,
            bytes,
            fixed,
            feed: None,
            list_feed: None,
            list_stream: None,
            last_page: None,
            level_scratch: Vec::new(),
            list_carry: None,
        };
        flat.arrow_page.dictionary_sections = flat.keeps_dictionary_sections();
        Ok(flat)
    }

    /// Whether a page's dictionary indices are left undecoded for this column's own gather
    /// (a dictionary array, Utf8/Binary or fixed-width batches being filled).
    fn keeps_dictionary_sections(&self) -> bool {
        self.dictionary.is_some() || self.bytes.is_some() || self.fixed.is_some()
    }

    /// Makes this leaf a field of structs (`parents`, outermost first): its batches are read
    /// as a flat column's, wrapped in the structs, whose validity comes from the page's
    /// definition levels (kept where a struct can be null).
    pub fn in_struct(mut self, parents: Vec<StructParent>) -> FlatColumn {
        self.arrow_page.keep_def_levels = parents.iter().any(|p| p.defined > 0);
        self.parents = parents;
        self
    }

    /// The bytes of the column's chunks the read takes, decompressed, as their metadata says:
    /// the share of the read's work the column is likely to take (threads take the largest
    /// first).
    pub fn weight(&self) -> i64 {
        self.weight
    }

    /// Selected rows decoded and not yet returned.
    pub fn pending_rows(&self) -> usize {
        self.pending_rows
    }

    /// Decodes pages until `rows` selected rows are pending or the column ends.
    pub fn fill(&mut self, rows: usize) -> Result<(), ArrowError> {
        while self.pending_rows < rows {
            if !self.advance()? {
                break;
            }
        }
        Ok(())
    }

    /// The next `n` selected rows as one array.
    pub fn next_batch(&mut self, n: usize) -> Result<ArrayRef, ArrowError> {
        let array = self.next_leaf_batch(n)?;
        if self.parents.is_empty() {
            return Ok(array);
        }
        let nulls = self.next_struct_nulls(n)?;
        wrap_in_structs(array, &self.parents, nulls)
    }

    /// The parents' validity of the next `n` selected rows (from `struct_pending`).
    fn next_struct_nulls(&mut self, n: usize) -> Result<Vec<Option<NullBuffer>>, ArrowError> {
        if !self.arrow_page.keep_def_levels {
            return Ok(vec![None; self.parents.len()]);
        }
        let mut builders: Vec<Option<BooleanBufferBuilder>> =
            self.parents.iter().map(|_| None).collect();
        let mut done = 0;
        while done < n {
            let Some((rows, nulls)) = self.struct_pending.front() else {
                return Err(self.error("the structs' validity ends before the batch's rows"));
            };
            let from = self.struct_row;
            let count = (rows - from).min(n - done);
            for (builder, bits) in builders.iter_mut().zip(nulls) {
                match (builder, bits) {
                    (builder, Some(bits)) => {
                        let builder = builder.get_or_insert_with(|| {
                            let mut builder = BooleanBufferBuilder::new(n);
                            builder.append_n(done, true);
                            builder
                        });
                        builder.append_buffer(&bits.slice(from, count));
                    }
                    (Some(builder), None) => builder.append_n(count, true),
                    (None, None) => {}
                }
            }
            done += count;
            if from + count == *rows {
                self.struct_pending.pop_front();
                self.struct_row = 0;
            } else {
                self.struct_row = from + count;
            }
        }
        Ok(builders
            .into_iter()
            .map(|b| b.map(|mut b| NullBuffer::new(b.finish())))
            .collect())
    }

    /// The parents' validity of a data page's selected rows (`take` of its `rows`), from the
    /// definition levels `arrow_page` kept, queued for [`FlatColumn::next_struct_nulls`].
    fn queue_struct_nulls(&mut self, rows: usize, take: &Take) -> Result<(), ArrowError> {
        if !self.arrow_page.keep_def_levels {
            return Ok(());
        }
        let levels = &self.arrow_page.def_levels;
        if levels.len() != rows {
            return Err(self.page_error(format!(
                "{} definition levels for {rows} rows",
                levels.len()
            )));
        }
        let (mask, selected) = match take {
            Take::None => return Ok(()),
            Take::All => (None, rows),
            Take::Some(mask) => (Some(mask), mask.count_set_bits()),
        };
        if selected == 0 {
            return Ok(());
        }
        let nulls = struct_nulls(&self.parents, levels, rows)
            .into_iter()
            .map(|nulls| {
                let bits = nulls?.into_inner();
                let bits = match mask {
                    None => bits,
                    Some(mask) => mask.set_indices().map(|row| bits.value(row)).collect(),
                };
                (bits.count_set_bits() < bits.len()).then_some(bits)
            })
            .collect();
        self.struct_pending.push_back((selected, nulls));
        Ok(())
    }

    /// The leaf's next `n` selected rows as one array.
    fn next_leaf_batch(&mut self, n: usize) -> Result<ArrayRef, ArrowError> {
        while self.pending_rows < n {
            if !self.advance()? {
                return Err(self.error(format!(
                    "the column's pages end {} rows before the batch's {n}",
                    n - self.pending_rows
                )));
            }
        }
        self.pending_rows -= n;
        let first = self.pending.front().expect("pending rows are in arrays");
        if first.len() >= n {
            let array = first.slice(0, n);
            if first.len() == n {
                self.pending.pop_front();
            } else {
                let rest = first.slice(n, first.len() - n);
                self.pending[0] = rest;
            }
            return Ok(array);
        }
        let mut parts = Vec::new();
        let mut left = n;
        while left > 0 {
            let array = self
                .pending
                .pop_front()
                .expect("pending rows are in arrays");
            if array.len() <= left {
                left -= array.len();
                parts.push(array);
            } else {
                parts.push(array.slice(0, left));
                self.pending
                    .push_front(array.slice(left, array.len() - left));
                left = 0;
            }
        }
        let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
        arrow_select::concat::concat(&refs)
    }

    /// Feeds the page being fed, or reads the next page; `false` at the end of the last chunk.
    fn advance(&mut self) -> Result<bool, ArrowError> {
        if self.feed.is_some() {
            self.feed_piece()?;
            return Ok(true);
        }
        if self.list_feed.is_some() {
            self.feed_list_piece()?;
            return Ok(true);
        }
        if self.list_stream.is_some() {
            self.feed_list_stream()?;
            return Ok(true);
        }
        self.read_page()
    }

    fn error(&self, message: impl std::fmt::Display) -> ArrowError {
        ArrowError::ParquetError(format!("column {}: {message}", self.name))
    }

    fn page_error(&self, message: impl std::fmt::Display) -> ArrowError {
        ArrowError::ParquetError(format!(
            "column {}, page {}: {message}",
            self.name, self.page
        ))
    }

    /// Reads the next data page that holds a selected row (pages with none are skipped
    /// unread) into `pending`; `false` at the end of the last chunk.
    fn read_page(&mut self) -> Result<bool, ArrowError> {
        loop {
            let Some(pages) = self.pages.as_mut() else {
                // The chunk has ended: the rows carried from its last list page are queued
                // while its dictionary is held.
                if self.flush_list_carry()? {
                    return Ok(true);
                }
                let Some(row_group) = self.row_groups.pop_front() else {
                    // A view column's last batch, not full.
                    if let Some(views) = self.views.as_mut().filter(|v| v.open.len() > 0) {
                        let array = views.open.finish(&self.data_type)?;
                        self.queue(array);
                        return Ok(true);
                    }
                    return self.flush_open();
                };
                // Page by page: the memory of a window or a page, not of the chunk, where
                // the input is a file (a `Bytes` input is sliced either way).
                // The page headers are checked first, each with a read of a few KiB, and
                // where the pages start kept: each page is then read with its header. The
                // walk's last read stays in the window: a small chunk is read once.
                let input = &self.input;
                let place = chunk_place(&self.metadata, row_group, self.leaf, input.file_len())
                    .map_err(|e| self.error(e))?;
                let mut last = (0, bytes::Bytes::new());
                let pages = chunk_page_starts(&place, |at, n| {
                    let bytes = input.bytes(at, n)?;
                    last = (at, bytes.clone());
                    Ok(bytes)
                })
                .map_err(|e| self.error(e))?;
                let window = ChunkWindow::with_pages(Arc::clone(&self.input), pages, last);
                let source = Arc::new(DynSource(Arc::new(window)));
                let reader = checked_chunk_page_reader(source, place).map_err(|e| self.error(e))?;
                self.pages = Some(reader);
                self.decoder.reset();
                if let Some(views) = &mut self.views {
                    views.dictionary = None;
                }
                if let Some(dictionary) = &mut self.dictionary {
                    dictionary.values = None;
                }
                if let Some(bytes) = &mut self.bytes {
                    bytes.forget_dictionary();
                }
                self.page = 0;
                continue;
            };
            // With a selection, a page's rows are looked up before it is read, to skip it
            // unread. Without one, no peek: the parquet crate's peek unwraps a v2 page type
            // whose v2 header is missing (its get_next_page says so as an error).
            let mut take = None;
            let mut known_rows = None;
            if !self.cursor.selects_all() {
                let Some(meta) = pages.peek_next_page().map_err(|e| self.page_error(e))? else {
                    self.pages = None;
                    continue;
                };
                // Rows known before the page is read: a flat column's levels, a v2 header's.
                known_rows = match (&self.list, meta.is_dict) {
                    (_, true) => None,
                    (None, false) => meta.num_rows.or(meta.num_levels),
                    (Some(_), false) => meta.num_rows,
                };
                take = known_rows.map(|rows| self.cursor.take(rows));
                let pages = self.pages.as_mut().expect("checked above");
                if matches!(take, Some(Take::None)) {
                    pages.skip_next_page().map_err(|e| self.page_error(e))?;
                    self.page += 1;
                    continue;
                }
            }
            let pages = self.pages.as_mut().expect("checked above");
            let next = pages.get_next_page().map_err(|e| self.page_error(e))?;
            // The last large page is let go once the next one is made: let go first, its
            // memory at the heap's top went back to the system, and the next page's came
            // back page fault by page fault (a PLAIN string column of 1 MB snappy pages,
            // TPC-H's p_name: twice arrow-rs's faults, 0.88x its speed, 0.98x so).
            self.last_page = next
                .as_ref()
                .filter(|p| !matches!(p, parquet::column::page::Page::DictionaryPage { .. }))
                .map(|p| p.buffer())
                .filter(|b| b.len() >= KEEP_LAST_PAGE)
                .cloned();
            let Some(page) = next else {
                if take.is_some() {
                    return Err(self.page_error("the page reader lost a page it had announced"));
                }
                self.pages = None;
                continue;
            };
            let is_dict = matches!(page, parquet::column::page::Page::DictionaryPage { .. });
            if let (true, Some(views)) = (is_dict, &self.views) {
                // A view column's dictionary: its page's bytes and a view per entry, here;
                // the decoder never needs it (its data pages' indices are gathered here).
                let parquet::column::page::Page::DictionaryPage {
                    buf,
                    num_values,
                    encoding,
                    ..
                } = &page
                else {
                    unreachable!("a dictionary page");
                };
                let result = if views.dictionary.is_some() {
                    Err(ArrowError::ParquetError(
                        "a second dictionary page in the column chunk".into(),
                    ))
                } else if !matches!(
                    encoding,
                    parquet::basic::Encoding::PLAIN | parquet::basic::Encoding::PLAIN_DICTIONARY
                ) {
                    Err(ArrowError::ParquetError(format!(
                        "a dictionary page in {encoding} (PLAIN or PLAIN_DICTIONARY)"
                    )))
                } else {
                    let utf8 = self.data_type == DataType::Utf8View;
                    ViewDictionary::new(buf.clone(), *num_values as usize, utf8)
                };
                let dictionary = result.map_err(|e| self.page_error(e))?;
                self.views.as_mut().expect("a view column").dictionary = Some(dictionary);
                self.page += 1;
                continue;
            }
            let view = page_of(&page).map_err(|m| self.page_error(m))?;
            // A list of byte arrays or of fixed-width values read whole: a dictionary-encoded
            // page's levels and indices are decoded a batch at a time, its elements gathered
            // per batch (whole, a page's levels, values and list were held across batches:
            // a list of structs' INT32 field took 1.2x arrow-rs's peak heap).
            let physical = self.column.physical_type;
            let streamed = self.cursor.selects_all()
                && self
                    .list
                    .as_ref()
                    .is_some_and(|shape| shape.streams_pieces(physical));
            if streamed {
                let streams = self
                    .decoder
                    .list_page_streams(&view)
                    .map_err(|e| self.page_error(e))?;
                if let Some(streams) = streams {
                    self.page += 1;
                    self.list_stream = Some(ListStreamFeed {
                        page: page.buffer().clone(),
                        streams,
                        present: 0,
                        started: false,
                    });
                    self.feed_list_stream()?;
                    return Ok(true);
                }
            }
            // A page read another way: the rows carried from the last one go first.
            self.flush_list_carry()?;
            // A column that is not repeated: its levels go straight to validity bits.
            let plain_flat = self.list.is_none();
            // Strings of a page of which few rows are selected: a dictionary page's indices
            // are decoded, and only the selected rows' strings gathered.
            let sparse = match &take {
                Some(Take::Some(mask))
                    if plain_flat
                        && self.views.is_none()
                        && self.dictionary.is_none()
                        && is_offset_bytes(&self.data_type)
                        && mask.count_set_bits() * SPARSE < mask.len() =>
                {
                    Some(mask.clone())
                }
                _ => None,
            };
            // A list of byte arrays: a dictionary-encoded page's indices are kept, and its
            // elements gathered a batch at a time (`feed_list_piece`) or, under a selection,
            // only the selected rows' ones (`list_page_indexed`).
            let keep_indices = self
                .list
                .as_ref()
                .is_some_and(|shape| shape.holds_offset_bytes());
            let mut kept = false;
            let (report, values_at) = if plain_flat {
                self.arrow_page.validity.clear();
                self.arrow_page.booleans.clear();
                self.arrow_page.values.clear();
                self.arrow_page.dictionary_sections =
                    sparse.is_some() || self.bytes.is_some() || self.fixed.is_some();
                let decoded = self
                    .decoder
                    .decode_page_for_arrow(&view, &mut self.arrow_page);
                self.arrow_page.dictionary_sections = self.keeps_dictionary_sections();
                decoded
            } else if keep_indices {
                let indices = &mut self.sparse_indices;
                self.decoder
                    .decode_page_keeping_indices(&view, &mut self.data, indices)
                    .map(|(report, indices_kept)| {
                        kept = indices_kept;
                        (report, ValuesAt::Values)
                    })
            } else {
                self.decoder
                    .decode_page(&view, &mut self.data)
                    .map(|report| (report, ValuesAt::Values))
            }
            .map_err(|e| self.page_error(e))?;
            self.page += 1;
            if is_dict {
                if let Some(bytes) = &mut self.bytes {
                    bytes.forget_dictionary();
                }
                continue;
            }
            if plain_flat && !self.parents.is_empty() {
                // A struct's field: its structs' validity, of the rows selected.
                let page_take = self.page_take(known_rows, report.levels, take.take())?;
                self.queue_struct_nulls(report.levels, &page_take)?;
                take = Some(page_take);
            }
            if let (Some(_), ValuesAt::Section(range)) = (&self.bytes, &values_at) {
                let rows = report.levels;
                let take = self.page_take(known_rows, rows, take.take())?;
                self.bytes_page(page.buffer(), range.clone(), view.encoding(), report, take)
                    .map_err(|e| self.page_error(e))?;
                return Ok(true);
            }
            if let (Some(_), ValuesAt::Values | ValuesAt::Page(_) | ValuesAt::Section(_)) =
                (&self.fixed, &values_at)
            {
                let rows = report.levels;
                let take = self.page_take(known_rows, rows, take.take())?;
                self.fixed_page(page.buffer(), view.encoding(), values_at, report, take)
                    .map_err(|e| self.page_error(e))?;
                return Ok(true);
            }
            // Any other page's rows go after the batch being filled from dictionary pages.
            self.flush_open()?;
            if self.views.is_some() && !matches!(values_at, ValuesAt::Bits | ValuesAt::Page(_)) {
                let rows = report.levels;
                let take = self.page_take(known_rows, rows, take.take())?;
                let values = match values_at {
                    ValuesAt::Section(range) => ViewValues::Section(range, view.encoding()),
                    _ => ViewValues::Decoded,
                };
                let present = report.values;
                self.view_page(page.buffer(), values, present, rows, take)
                    .map_err(|e| self.page_error(e))?;
                return Ok(true);
            }
            // Whether the array holds the selected rows only (made from them).
            let mut taken = false;
            let (array, rows) = match &self.list {
                None => {
                    let rows = report.levels;
                    let validity = (self.column.max_def_level > 0)
                        .then(|| into_buffer(std::mem::take(&mut self.arrow_page.validity)));
                    let array = match values_at {
                        ValuesAt::Values => take_values(
                            &mut self.arrow_page.values,
                            validity,
                            rows,
                            &self.data_type,
                        ),
                        ValuesAt::Bits => {
                            let bits = std::mem::take(&mut self.arrow_page.booleans);
                            boolean_array(into_buffer(bits), validity, rows)
                        }
                        ValuesAt::Page(range) => {
                            let bytes = page.buffer().slice(range);
                            let physical = self.column.physical_type;
                            plain_array(bytes, physical, validity, rows, &self.data_type)
                        }
                        ValuesAt::Section(range) => match &sparse {
                            Some(mask) => {
                                taken = true;
                                self.sparse_dictionary_bytes(
                                    &page.buffer()[range],
                                    view.encoding(),
                                    report.values,
                                    validity,
                                    mask,
                                )
                            }
                            None => self.dictionary_array(
                                &page.buffer()[range],
                                view.encoding(),
                                report.values,
                                validity,
                                rows,
                            ),
                        },
                    }
                    .map_err(|e| self.page_error(e))?;
                    (array, rows)
                }
                Some(shape) if kept => {
                    let rows = check_list_page(&self.data.def_levels, &self.data.rep_levels)
                        .map_err(|e| self.page_error(e))?;
                    let page_take = self.page_take(known_rows, rows, take.take())?;
                    if matches!(page_take, Take::All) {
                        // Fed a batch at a time: the page's elements are never gathered whole.
                        self.list_feed = Some((ListPlace::default(), view.encoding(), rows));
                        self.feed_list_piece()?;
                        return Ok(true);
                    }
                    let Some(array) = self
                        .list_page_indexed(&page_take, view.encoding())
                        .map_err(|e| self.page_error(e))?
                    else {
                        continue;
                    };
                    taken = matches!(page_take, Take::Some(_));
                    take = Some(page_take);
                    (array, rows)
                }
                Some(shape) => take_list(&mut self.data, shape).map_err(|e| self.page_error(e))?,
            };
            let take = self.page_take(known_rows, rows, take.take())?;
            let array = match take {
                Take::None => continue,
                Take::All => array,
                Take::Some(_) if taken => array,
                Take::Some(mask) => {
                    let mask = arrow_array::BooleanArray::new(mask, None);
                    arrow_select::filter::filter(&array, &mask)?
                }
            };
            if holds_views(array.data_type()) {
                let pieces = self.pieces(array.len());
                for piece in view::split(&array, &pieces) {
                    self.queue(piece);
                }
            } else {
                self.queue(array);
            }
            return Ok(true);
        }
    }

    /// The selected rows of a page read of `rows` rows: `take`, looked up before the page was
    /// read (its header said `known_rows`, checked here), or taken from the cursor now.
    fn page_take(
        &mut self,
        known_rows: Option<usize>,
        rows: usize,
        take: Option<Take>,
    ) -> Result<Take, ArrowError> {
        if let Some(known) = known_rows.filter(|&known| known != rows) {
            return Err(self.page_error(format!(
                "the header says {known} rows, the page holds {rows}"
            )));
        }
        Ok(match take {
            Some(take) => take,
            None => self.cursor.take(rows),
        })
    }

    /// A list page of dictionary-encoded byte arrays (`encoding`), its levels in `data` and
    /// its indices in `sparse_indices`, as the rows `take` selects: `None` for no row (the page
    /// dropped); for some rows, only theirs made and gathered; for every row, every element
    /// gathered.
    fn list_page_indexed(
        &mut self,
        take: &Take,
        encoding: crate::parquet::Encoding,
    ) -> Result<Option<ArrayRef>, ArrowError> {
        let shape = self.list.as_ref().expect("a list column");
        let gather = byte_gather(&self.decoder, self.sparse_indices.len(), encoding)?;
        match take {
            Take::None => {
                self.data.clear();
                Ok(None)
            }
            Take::Some(mask) => {
                take_list_selected(&mut self.data, &self.sparse_indices, gather, mask, shape)
                    .map(Some)
            }
            Take::All => {
                let gathered = gather(&self.sparse_indices)?;
                self.data.values = crate::parquet::Values::Bytes(gathered);
                take_list(&mut self.data, shape).map(|(array, _)| Some(array))
            }
        }
    }

    /// Feeds the list page being fed into batches: its rows up to the end of the batch being
    /// filled, their elements gathered now.
    fn feed_list_piece(&mut self) -> Result<(), ArrowError> {
        let (mut place, encoding, rows) = self.list_feed.take().expect("a list page being fed");
        let room = self.batch_size - self.queued % self.batch_size;
        let shape = self.list.as_ref().expect("a list column");
        let gather = byte_gather(&self.decoder, self.sparse_indices.len(), encoding)?;
        let (def, rep) = (&self.data.def_levels, &self.data.rep_levels);
        let indices = &self.sparse_indices;
        let array = list_piece(def, rep, indices, &mut place, room, gather, shape)
            .map_err(|e| self.page_error(e))?;
        self.queue(array);
        if place.row < rows {
            self.list_feed = Some((place, encoding, rows));
        } else {
            self.data.clear();
            check_list_page_end(&place, self.sparse_indices.len())
                .map_err(|e| self.page_error(e))?;
        }
        Ok(())
    }

    /// Feeds the list page being decoded a piece at a time into batches: its rows up to the end
    /// of the batch being filled.
    fn feed_list_stream(&mut self) -> Result<(), ArrowError> {
        let mut feed = self.list_stream.take().expect("a list page being decoded");
        let more = self
            .list_stream_piece(&mut feed)
            .map_err(|e| self.page_error(e))?;
        if more {
            self.list_stream = Some(feed);
        }
        Ok(())
    }

    /// The next piece of `feed` queued; whether the page has levels left.
    fn list_stream_piece(&mut self, feed: &mut ListStreamFeed) -> Result<bool, ArrowError> {
        let error = |e: crate::parquet::PageError| ArrowError::ParquetError(e.to_string());
        let shape = self.list.as_ref().expect("a list column");
        let room = self.batch_size - self.queued % self.batch_size;
        let (page, streams) = (&feed.page, &mut feed.streams);
        let (def, rep) = (&mut self.data.def_levels, &mut self.data.rep_levels);
        // Levels until the row after the piece starts, or the page's end: the levels waiting
        // from the last piece first (they start a row).
        let mut starts = rep.iter().filter(|&&r| r == 0).count();
        let carried = self.list_carry.take().map_or(0, |carry| carry.present);
        while starts <= room && streams.rep.0.remaining() > 0 {
            let from = rep.len();
            // Exact room: doubling would keep twice a batch's levels for the whole read.
            let step = LIST_LEVEL_STEP.min(streams.rep.0.remaining());
            rep.reserve_exact(step);
            def.reserve_exact(step);
            let scratch = &mut self.level_scratch;
            let (stream, range) = &mut streams.rep;
            stream
                .next(&page[range.clone()], LIST_LEVEL_STEP, scratch, rep)
                .map_err(error)?;
            let (stream, range) = &mut streams.def;
            stream
                .next(&page[range.clone()], LIST_LEVEL_STEP, scratch, def)
                .map_err(error)?;
            if !feed.started {
                feed.started = true;
                // The page's first level (after the rows carried from the last page).
                if rep.get(from).is_some_and(|&r| r != 0) {
                    return Err(ArrowError::NotYetImplemented(
                        "a page that continues the previous page's row".into(),
                    ));
                }
            }
            starts += rep[from..].iter().filter(|&&r| r == 0).count();
        }
        // The cut holds the carried rows (fewer than the room) and their values.
        let cut = piece_cut(def, rep, room, shape);
        let page_present = cut.present - carried;
        let ids: &[u32] = match (&mut streams.indices, page_present) {
            (_, 0) => &self.sparse_indices[..carried],
            (None, _) => {
                return Err(ArrowError::ParquetError(
                    "values present, but the page has no values section".into(),
                ))
            }
            (Some((stream, range)), present) => {
                let indices = &mut self.sparse_indices;
                indices.reserve_exact((carried + present).saturating_sub(indices.len()));
                stream
                    .next_after(&page[range.clone()], carried, present, indices)
                    .map_err(error)?;
                indices
            }
        };
        feed.present += page_present;
        let more = cut.levels < rep.len() || streams.rep.0.remaining() > 0;
        if !more {
            streams.check_end(feed.present).map_err(error)?;
            if cut.rows < room {
                // The page ends before the batch does: its rows wait for the next page's.
                let encoding = streams.encoding;
                self.list_carry = (cut.rows > 0).then_some(ListCarry {
                    rows: cut.rows,
                    present: cut.present,
                    encoding,
                });
                if cut.rows == 0 {
                    def.clear();
                    rep.clear();
                }
                return Ok(false);
            }
        }
        let gather = list_values(&self.decoder, cut.present, streams.encoding)?;
        let (piece_def, piece_rep) = (&def[..cut.levels], &rep[..cut.levels]);
        let array = list_of_ids(piece_def, piece_rep, cut.rows, ids, gather, shape)?;
        def.drain(..cut.levels);
        rep.drain(..cut.levels);
        if cut.rows > 0 {
            self.queue(array);
        }
        Ok(more)
    }

    /// Queues the rows carried from the last list page ([`FlatColumn::list_carry`]), if any
    /// (before the chunk's dictionary goes, or a page read another way); whether there were.
    fn flush_list_carry(&mut self) -> Result<bool, ArrowError> {
        let Some(carry) = self.list_carry.take() else {
            return Ok(false);
        };
        let shape = self.list.as_ref().expect("a list column");
        let gather = list_values(&self.decoder, carry.present, carry.encoding)?;
        let (def, rep) = (&self.data.def_levels, &self.data.rep_levels);
        let ids = &self.sparse_indices[..carry.present];
        let array = list_of_ids(def, rep, carry.rows, ids, gather, shape)
            .map_err(|e| self.page_error(e))?;
        self.data.def_levels.clear();
        self.data.rep_levels.clear();
        self.queue(array);
        Ok(true)
    }

    /// The decoded page's validity (taken from `arrow_page`), `None` where every row has a
    /// value or the column has no nulls.
    fn take_page_validity(&mut self) -> Option<BooleanBuffer> {
        (self.column.max_def_level > 0)
            .then(|| into_buffer(std::mem::take(&mut self.arrow_page.validity)))
            .filter(|v| v.count_set_bits() < v.len())
    }

    /// Queues the batch being filled from a Utf8 or Binary column's dictionary pages or a
    /// fixed-width column's pages, if it has rows; whether it had.
    fn flush_open(&mut self) -> Result<bool, ArrowError> {
        if let Some(bytes) = self.bytes.as_mut().filter(|b| b.len() > 0) {
            let array = bytes.finish();
            self.queue(array);
            return Ok(true);
        }
        if let Some(fixed) = self.fixed.as_mut().filter(|f| f.len() > 0) {
            let array = fixed.finish().map_err(|e| self.error(e))?;
            self.queue(array);
            return Ok(true);
        }
        Ok(false)
    }

    /// A fixed-width column's data page (its values where `values_at` says, its validity in
    /// `self.arrow_page`): its selected rows (`take` of the page's `report.levels`) to be fed
    /// into batches ([`FlatColumn::feed_piece`]).
    fn fixed_page(
        &mut self,
        page: &bytes::Bytes,
        encoding: crate::parquet::Encoding,
        values_at: ValuesAt,
        report: crate::parquet::PageReport,
        take: Take,
    ) -> Result<(), ArrowError> {
        let Some(selected) = take.selected() else {
            return Ok(());
        };
        let validity = self.take_page_validity();
        let present = validity
            .as_ref()
            .map_or(report.levels, |v| v.count_set_bits());
        let (values, held) = match values_at {
            ValuesAt::Page(range) => {
                let width = in_page_width(self.column.physical_type, true).ok_or_else(|| {
                    ArrowError::ParquetError(
                        "PLAIN values left in a page of a type without a fixed width".into(),
                    )
                })?;
                let held = range.len() / width;
                let page = page.clone();
                (FeedValues::FixedPlain { page, range, width }, held)
            }
            ValuesAt::Section(range) => {
                let indices =
                    self.page_indices(encoding, page, range, report.values, Kept::Fixed)?;
                let held = match &indices {
                    Some(_) => report.values,
                    None => self.sparse_indices.len(),
                };
                (FeedValues::FixedDictionary(indices), held)
            }
            _ => (FeedValues::FixedDecoded, self.arrow_page.values.len()),
        };
        if held != present {
            return Err(ArrowError::ParquetError(format!(
                "{held} values for {present} rows with a value"
            )));
        }
        self.start_feed(values, validity, selected, report.levels, present);
        Ok(())
    }

    /// A Utf8 or Binary column's dictionary-encoded page (its indices in `section`, its
    /// validity in `self.arrow_page`): its selected rows (`take`) to be fed into batches.
    fn bytes_page(
        &mut self,
        page: &bytes::Bytes,
        section: std::ops::Range<usize>,
        encoding: Encoding,
        report: crate::parquet::PageReport,
        take: Take,
    ) -> Result<(), ArrowError> {
        let Some(selected) = take.selected() else {
            return Ok(());
        };
        let validity = self.take_page_validity();
        let present = validity
            .as_ref()
            .map_or(report.levels, |v| v.count_set_bits());
        let indices = self.page_indices(encoding, page, section, report.values, Kept::Bytes)?;
        let held = match &indices {
            Some(_) => report.values,
            None => self.bytes.as_ref().map_or(0, |b| b.indices.len()),
        };
        if held != present {
            return Err(ArrowError::ParquetError(format!(
                "{held} dictionary indices for {present} rows with a value"
            )));
        }
        byte_dictionary(&self.decoder, present)?;
        let values = FeedValues::BytesDictionary(indices);
        self.start_feed(values, validity, selected, report.levels, present);
        Ok(())
    }

    /// A dictionary-encoded page's `n` indices (its values section `section` of `page`): a
    /// stream to decode them a batch at a time where the decoder runs on the CPU; elsewhere
    /// decoded whole now into the buffer `kept` names (`None` returned).
    fn page_indices(
        &mut self,
        encoding: Encoding,
        page: &bytes::Bytes,
        section: std::ops::Range<usize>,
        n: usize,
        kept: Kept,
    ) -> Result<Option<PageIndices>, ArrowError> {
        let to_arrow = |e: crate::parquet::PageError| ArrowError::ParquetError(e.to_string());
        let values = &page[section.clone()];
        if let Some(stream) = self
            .decoder
            .dictionary_index_stream(encoding, values, n)
            .map_err(to_arrow)?
        {
            return Ok(Some(PageIndices {
                page: page.clone(),
                section,
                stream,
            }));
        }
        let out = match kept {
            Kept::Fixed => &mut self.sparse_indices,
            Kept::Bytes => {
                &mut self
                    .bytes
                    .as_mut()
                    .expect("a Utf8 or Binary column")
                    .indices
            }
            Kept::Views => &mut self.views.as_mut().expect("a view column").indices,
        };
        self.decoder
            .decode_dictionary_indices_only(encoding, values, n, out)
            .map_err(to_arrow)?;
        Ok(None)
    }

    /// Makes a data page of `rows` rows (`present` of them with a value: `validity`; the
    /// selected ones: `selected`, `None` for all) the page being fed.
    fn start_feed(
        &mut self,
        values: FeedValues,
        validity: Option<BooleanBuffer>,
        selected: Option<BooleanBuffer>,
        rows: usize,
        present: usize,
    ) {
        self.feed = (rows > 0).then_some(PageFeed {
            values,
            validity,
            selected,
            rows,
            present,
            row: 0,
            value: 0,
        });
    }

    /// Feeds the page being fed into the batch being filled, up to that batch's end or the
    /// page's; a batch filled is queued.
    fn feed_piece(&mut self) -> Result<(), ArrowError> {
        let mut feed = self.feed.take().expect("a page being fed");
        self.feed_rows(&mut feed).map_err(|e| self.page_error(e))?;
        if feed.row < feed.rows {
            self.feed = Some(feed);
        }
        Ok(())
    }

    fn feed_rows(&mut self, feed: &mut PageFeed) -> Result<(), ArrowError> {
        // Fixed-width and Utf8/Binary batches end where the column's queued rows and the
        // batch being filled reach a multiple of the batch size; a view batch when full.
        let open = match (&self.views, &self.fixed, &self.bytes) {
            (Some(views), _, _) => views.open.len(),
            (_, Some(fixed), _) => self.queued + fixed.len(),
            (_, _, Some(bytes)) => self.queued + bytes.len(),
            _ => unreachable!("a page is fed into a fixed-width, Utf8/Binary or view batch"),
        };
        let room = self.batch_size - open % self.batch_size;
        let from = feed.row;
        let piece = |room| {
            let to = piece_end(feed.selected.as_ref(), from, feed.rows, room);
            let n = to - from;
            let validity = feed.validity.as_ref().map(|v| v.slice(from, n));
            let selected = feed.selected.as_ref().map(|s| s.slice(from, n));
            let present = validity.as_ref().map_or(n, |v| v.count_set_bits());
            (to, n, validity, selected, present)
        };
        // Dictionary indices decoded a piece at a time: pieces of `INDEX_PIECE` selected rows
        // at most, so that the indices held stay small (as arrow-rs decodes 1024 at a time).
        let streamed = matches!(
            &feed.values,
            FeedValues::FixedDictionary(Some(_))
                | FeedValues::BytesDictionary(Some(_))
                | FeedValues::ViewDictionary(Some(_))
        );
        let capped = match streamed {
            true => room.min(INDEX_PIECE),
            false => room,
        };
        // A fixed-width piece inside one RLE run of indices, up to the batch's end or (every
        // row selected) the end of a run of `RUN_FILL` values or more: a fill of its entry.
        // Where the next index opens no RLE run, the piece is cut as any other.
        let mut repeated = None;
        let error = |e: crate::parquet::PageError| ArrowError::ParquetError(e.to_string());
        let run = match &mut feed.values {
            FeedValues::FixedDictionary(Some(indices)) => {
                let section = &indices.page[indices.section.clone()];
                indices.stream.rle_left(section).map_err(error)?
            }
            _ => None,
        };
        let (mut to, mut n, mut validity, mut selected, mut present) =
            piece(run.map_or(capped, |_| room));
        if let (Some(left), FeedValues::FixedDictionary(Some(indices))) = (run, &mut feed.values) {
            if left >= present.min(RUN_FILL) {
                if left < present && feed.selected.is_none() {
                    let rows = match &feed.validity {
                        None => left,
                        Some(valid) => piece_end(Some(valid), from, feed.rows, left) - from,
                    };
                    (to, n, validity, selected, present) = piece(rows);
                }
                if left >= present {
                    let section = &indices.page[indices.section.clone()];
                    repeated = indices
                        .stream
                        .next_repeated(section, present)
                        .map_err(error)?;
                }
            }
            if repeated.is_none() && room > capped {
                (to, n, validity, selected, present) = piece(capped);
            }
        }
        let (validity, selected) = (validity.as_ref(), selected.as_ref());
        let first = feed.value;
        let values = first..first + present;
        let short = || ArrowError::ParquetError("fewer values than rows with a value".into());
        let queued = self.queued;
        let data_type = &self.data_type;
        let arrays = match &mut feed.values {
            FeedValues::FixedPlain { page, range, width } => {
                let width = *width;
                let at = range.start + values.start * width..range.start + values.end * width;
                let bytes = page.get(at.clone()).ok_or_else(short)?;
                let fixed = self.fixed.as_mut().expect("a fixed-width column");
                // The rest of a batch, every row selected and with a value, into an empty
                // batch: an array over the page's bytes where they allow it (no copy).
                let whole =
                    n == room && present == n && selected.is_none_or(|s| s.count_set_bits() == n);
                match whole.then(|| fixed.plain_batch(&page.slice(at))).flatten() {
                    Some(array) => vec![array?],
                    None => fixed.feed(Dense::Plain(bytes), validity, n, selected, queued)?,
                }
            }
            FeedValues::FixedDictionary(stream) => {
                // A piece inside one RLE run is a fill of its entry (a constant or sorted
                // column: arrow-rs fills such runs too).
                let dense = match repeated {
                    Some(index) => Dense::Repeated(index, present, self.decoder.dictionary()),
                    None => {
                        let indices = piece_indices(stream, &mut self.sparse_indices, values)?;
                        Dense::Dictionary(indices, self.decoder.dictionary())
                    }
                };
                let fixed = self.fixed.as_mut().expect("a fixed-width column");
                fixed.feed(dense, validity, n, selected, queued)?
            }
            FeedValues::FixedDecoded => {
                let dense = Dense::Decoded(&self.arrow_page.values, values);
                let fixed = self.fixed.as_mut().expect("a fixed-width column");
                fixed.feed(dense, validity, n, selected, queued)?
            }
            FeedValues::BytesDictionary(stream) => {
                let dictionary = byte_dictionary(&self.decoder, feed.present)?;
                let bytes = self.bytes.as_mut().expect("a Utf8 or Binary column");
                // Decoded now: the piece's indices are the buffer's from 0.
                let first = if stream.is_some() { 0 } else { first };
                piece_indices(stream, &mut bytes.indices, values)?;
                bytes.feed(dictionary, validity, n, selected, queued, first)?
            }
            FeedValues::ViewDictionary(stream) => {
                let views = self.views.as_mut().expect("a view column");
                let indices = piece_indices(stream, &mut views.indices, values)?;
                match &views.dictionary {
                    Some(dictionary) => match selected.filter(|s| fragmented(s)) {
                        // Runs of a few rows: the selected rows' indices gathered first, then
                        // their views made as one page's (as `open_fixed` does).
                        Some(selected) => {
                            let (positions, valid) = selected_positions(validity, selected);
                            let indices: Vec<u32> = positions
                                .iter()
                                .map(|&p| indices.get(p as usize).copied())
                                .collect::<Option<_>>()
                                .ok_or_else(short)?;
                            let mut dense = dictionary.gather(&indices);
                            let n = selected.count_set_bits();
                            views
                                .open
                                .feed(&mut dense, valid.as_ref(), n, None, data_type)?
                        }
                        None => {
                            let mut dense = dictionary.gather(indices);
                            views
                                .open
                                .feed(&mut dense, validity, n, selected, data_type)?
                        }
                    },
                    // A page without values (checked when it was read).
                    None => {
                        let mut dense = CopyViews::none();
                        views
                            .open
                            .feed(&mut dense, validity, n, selected, data_type)?
                    }
                }
            }
            FeedValues::ViewPlain { buffer, at, end } => {
                let views = self.views.as_mut().expect("a view column");
                let utf8 = *data_type == DataType::Utf8View;
                let left = feed.present - first;
                let mut dense = PlainViews::new(buffer, *at..*end, left, utf8)?;
                let full = views
                    .open
                    .feed(&mut dense, validity, n, selected, data_type)?;
                *at = dense.position();
                full
            }
            FeedValues::ViewDecoded {
                buffer,
                views: made,
            } => {
                let views = self.views.as_mut().expect("a view column");
                let mut dense = CopyViews::of(buffer, made.get(values).ok_or_else(short)?);
                views
                    .open
                    .feed(&mut dense, validity, n, selected, data_type)?
            }
        };
        feed.row = to;
        feed.value += present;
        for array in arrays {
            self.queue(array);
        }
        Ok(())
    }

    /// Puts `array` (selected rows) after the pending ones.
    fn queue(&mut self, array: ArrayRef) {
        self.pending_rows += array.len();
        self.queued += array.len();
        self.pending.push_back(array);
    }

    /// `rows` rows to queue, cut where the reader's batches end: the rows that complete the
    /// batch being filled, then whole batches, then the rest.
    fn pieces(&self, rows: usize) -> Vec<usize> {
        pieces(self.queued, self.batch_size, rows)
    }

    /// A view column's data page (`values`: where its `present` values are; its validity is
    /// in `self.arrow_page`): its selected rows (`take` of `rows`) to be fed into batches.
    fn view_page(
        &mut self,
        page: &bytes::Bytes,
        values: ViewValues,
        present: usize,
        rows: usize,
        take: Take,
    ) -> Result<(), ArrowError> {
        let limit = self.decoder.executor().config().max_output_bytes as u64;
        let bytes = (rows as u64).saturating_mul(16);
        if bytes > limit {
            return Err(ArrowError::ParquetError(format!(
                "{rows} views would take {bytes} bytes, above this executor's limit of \
                 {limit} (Config::max_output_bytes)"
            )));
        }
        let validity = self.take_page_validity();
        let mut decoded = None;
        if let ViewValues::Decoded = values {
            // Taken whatever is selected: the next page's values go after nothing.
            let empty = crate::parquet::Values::new(self.column.physical_type);
            decoded = Some(std::mem::replace(&mut self.arrow_page.values, empty));
        }
        let Some(selected) = take.selected() else {
            return Ok(());
        };
        let utf8 = self.data_type == DataType::Utf8View;
        let views = self.views.as_mut().expect("a view column");
        let with_values = validity.as_ref().map_or(rows, |v| v.count_set_bits());
        if with_values != present {
            return Err(ArrowError::ParquetError(format!(
                "{present} values for {with_values} rows with a value"
            )));
        }
        let values = match values {
            ViewValues::Section(range, encoding) if encoding.is_dictionary() => {
                if views.dictionary.is_none() && present > 0 {
                    return Err(ArrowError::ParquetError(
                        "a dictionary-encoded data page, but the chunk had no dictionary page \
                         before it"
                            .into(),
                    ));
                }
                let indices = self.page_indices(encoding, page, range, present, Kept::Views)?;
                FeedValues::ViewDictionary(indices)
            }
            ViewValues::Section(range, _) => {
                let buffer = Buffer::from(page.clone());
                // The section and its count checked now, as a page's are when it is read.
                PlainViews::new(&buffer, range.clone(), present, utf8)?;
                FeedValues::ViewPlain {
                    buffer,
                    at: range.start,
                    end: range.end,
                }
            }
            ViewValues::Decoded => {
                let Some(crate::parquet::Values::Bytes(arrays)) = decoded else {
                    return Err(ArrowError::ParquetError(
                        "a byte array column decoded to other values".into(),
                    ));
                };
                if arrays.len() != present {
                    return Err(ArrowError::ParquetError(format!(
                        "{} values for {present} rows with a value",
                        arrays.len()
                    )));
                }
                let (buffer, views) = view::dense_views(arrays, utf8)?;
                FeedValues::ViewDecoded { buffer, views }
            }
        };
        self.start_feed(values, validity, selected, rows, present);
        Ok(())
    }
}

impl FlatColumn {
    /// The rows `mask` selects of a dictionary-encoded page of byte arrays (its `present`
    /// indices in `section`; `validity`: the page's rows with a value, `None` when all are),
    /// as the column's type: the indices are decoded, and only the selected rows' values
    /// looked up and copied.
    fn sparse_dictionary_bytes(
        &mut self,
        section: &[u8],
        encoding: crate::parquet::Encoding,
        present: usize,
        validity: Option<BooleanBuffer>,
        mask: &BooleanBuffer,
    ) -> Result<ArrayRef, ArrowError> {
        let error = |m: String| ArrowError::ParquetError(m);
        if let Some(v) = &validity {
            if v.len() != mask.len() {
                return Err(error(format!(
                    "{} validity bits for {} rows",
                    v.len(),
                    mask.len()
                )));
            }
        }
        let mut indices = std::mem::take(&mut self.sparse_indices);
        let decoded = self
            .decoder
            .decode_dictionary_indices_only(encoding, section, present, &mut indices)
            .map_err(|e| error(e.to_string()));
        let result = decoded.and_then(|_| {
            let empty = crate::parquet::ByteArrays::new();
            let dictionary = byte_dictionary(&self.decoder, present)?.unwrap_or(&empty);
            let selected = mask.count_set_bits();
            let mut ids = Vec::with_capacity(selected);
            let mut add = |at: usize| -> Result<(), ArrowError> {
                let id = *indices
                    .get(at)
                    .ok_or_else(|| error(format!("{present} indices, value {at} wanted")))?;
                ids.push(id);
                Ok(())
            };
            let validity = match &validity {
                None => {
                    for row in mask.set_indices() {
                        add(row)?;
                    }
                    None
                }
                Some(valid) => {
                    // A row's value is the one after those of the valid rows before it.
                    let mut bits = arrow_buffer::BooleanBufferBuilder::new(selected);
                    let (mut counted_to, mut before) = (0, 0);
                    for row in mask.set_indices() {
                        before += valid.slice(counted_to, row - counted_to).count_set_bits();
                        counted_to = row;
                        let has_value = valid.value(row);
                        if has_value {
                            add(before)?;
                        }
                        bits.append(has_value);
                    }
                    Some(bits.finish())
                }
            };
            let limit = self.decoder.executor().config().max_output_bytes as u64;
            let values = gather_bytes(&ids, dictionary, limit, encoding)?;
            take_values(
                &mut crate::parquet::Values::Bytes(values),
                validity,
                selected,
                &self.data_type,
            )
        });
        self.sparse_indices = indices;
        result
    }

    /// A dictionary column's dictionary-encoded data page (its values section `section` of
    /// `present` indices in `encoding`): `rows` rows, `validity` the ones with a value, as
    /// keys into the chunk's dictionary.
    fn dictionary_array(
        &mut self,
        section: &[u8],
        encoding: crate::parquet::Encoding,
        present: usize,
        validity: Option<BooleanBuffer>,
        rows: usize,
    ) -> Result<ArrayRef, ArrowError> {
        let DataType::Dictionary(_, value_type) = &self.data_type else {
            return Err(ArrowError::ParquetError(
                "an undecoded values section outside a view or dictionary column".into(),
            ));
        };
        let kept = self.dictionary.as_mut().expect("a dictionary column");
        let values = match &kept.values {
            Some(values) => Arc::clone(values),
            None => {
                let entries = byte_dictionary(&self.decoder, present)?
                    .cloned()
                    .unwrap_or_default();
                // Checked once per dictionary (UTF-8 for strings), as arrow-rs does.
                let values = super::convert::byte_arrays_array(entries, value_type)?;
                kept.values = Some(Arc::clone(&values));
                values
            }
        };
        self.decoder
            .decode_dictionary_indices_only(encoding, section, present, &mut kept.indices)
            .map_err(|e| ArrowError::ParquetError(e.to_string()))?;
        let keys: Vec<i32> = match &validity {
            None => kept.indices.iter().map(|&i| i as i32).collect(),
            Some(validity) => {
                let mut keys = Vec::with_capacity(rows);
                let mut at = 0;
                for (from, to) in validity.set_slices() {
                    keys.resize(from, 0);
                    let run = kept.indices.get(at..at + to - from).ok_or_else(|| {
                        ArrowError::ParquetError("fewer indices than rows with a value".into())
                    })?;
                    keys.extend(run.iter().map(|&i| i as i32));
                    at += to - from;
                }
                keys.resize(rows, 0);
                keys
            }
        };
        let nulls = validity.map(NullBuffer::new).filter(|n| n.null_count() > 0);
        let keys = arrow_array::Int32Array::new(keys.into(), nulls);
        // Checks every key against the dictionary (an index past it, or past i32, is an
        // error here).
        Ok(Arc::new(arrow_array::DictionaryArray::<
            arrow_array::types::Int32Type,
        >::try_new(keys, values)?))
    }
}

/// Where a view column's page's values are.
enum ViewValues {
    /// Its values section, undecoded: PLAIN, or dictionary indices.
    Section(std::ops::Range<usize>, crate::parquet::Encoding),
    /// Decoded, in `arrow_page.values`.
    Decoded,
}

/// `rows` rows queued after `queued`, cut where batches of `batch_size` rows end.
fn pieces(queued: usize, batch_size: usize, rows: usize) -> Vec<usize> {
    let mut pieces = Vec::with_capacity(rows / batch_size + 2);
    let mut left = rows;
    let mut room = batch_size - queued % batch_size;
    while left > 0 {
        let piece = left.min(room);
        pieces.push(piece);
        left -= piece;
        room = batch_size;
    }
    pieces
}

/// Whether arrays of `data_type` hold views (directly or in a struct's fields): they are cut
/// into pieces with views of their own.
fn holds_views(data_type: &DataType) -> bool {
    match data_type {
        DataType::Struct(fields) => fields.iter().any(|f| holds_views(f.data_type())),
        other => view::is_view(other),
    }
}

/// Bits as arrow-rs's buffer, without a copy.
fn into_buffer(bits: Bits) -> BooleanBuffer {
    BooleanBuffer::new(Buffer::from_vec(bits.bytes), 0, bits.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list page's fixed-width elements gathered from the chunk's dictionary: every index
    /// checked, none past it; no dictionary is an error unless no element is present.
    #[test]
    fn list_elements_are_gathered_from_a_fixed_width_dictionary_and_checked() {
        use crate::parquet::{Column, ColumnData, Page, Path, PhysicalType, Values};
        let column = Column {
            physical_type: PhysicalType::Int64,
            max_def_level: 2,
            max_rep_level: 1,
        };
        let mut decoder = ChunkDecoder::new(column, Path::Fallback);
        let none = list_values(&decoder, 0, Encoding::RleDictionary).unwrap()(&[]);
        assert_eq!(none.unwrap(), Values::Int64(vec![]));
        let error = list_values(&decoder, 1, Encoding::RleDictionary).unwrap()(&[0]).unwrap_err();
        assert!(error.to_string().contains("no dictionary page"), "{error}");
        let entries: Vec<u8> = [10i64, -20, 30]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let page = Page::Dictionary {
            buf: &entries,
            num_values: 3,
            encoding: Encoding::PlainDictionary,
        };
        decoder
            .decode_page(&page, &mut ColumnData::new(&column))
            .unwrap();
        let gather = list_values(&decoder, 4, Encoding::RleDictionary).unwrap();
        assert_eq!(
            gather(&[2, 0, 1, 2]).unwrap(),
            Values::Int64(vec![30, 10, -20, 30])
        );
        let error = gather(&[1, 3]).unwrap_err();
        assert!(error.to_string().contains("index 3"), "{error}");
    }

    /// `piece_end` against counting the selected rows one at a time.
    #[test]
    fn a_piece_ends_after_the_rows_that_fill_the_batch() {
        let bits: Vec<bool> = (0..300).map(|i| (i * 7 + i / 13) % 5 < 2).collect();
        let selected = BooleanBuffer::from_iter(bits.iter().copied());
        let rows = bits.len();
        for from in [0, 1, 63, 64, 130, 299, 300] {
            for room in [1, 2, 5, 64, 100, 1000] {
                let mut left = room;
                let mut expected = rows;
                for (i, &bit) in bits.iter().enumerate().skip(from) {
                    if bit {
                        left -= 1;
                        if left == 0 {
                            expected = i + 1;
                            break;
                        }
                    }
                }
                assert_eq!(
                    piece_end(Some(&selected), from, rows, room),
                    expected,
                    "from {from}, room {room}"
                );
                assert_eq!(piece_end(None, from, rows, room), rows.min(from + room));
            }
        }
    }
}
