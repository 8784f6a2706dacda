//! Predicate then gather across the columns of a row group: `SELECT b WHERE a = 42`.
//!
//! [`filter`] evaluates a [`Predicate`] on one column chunk and gives the matching rows as a
//! [`Bitmap`] over the row group's rows; [`gather`] gives another chunk's values in those rows.
//!
//! ```
//! use qpl_rs::parquet::query::{filter, gather, ColumnChunk, Predicate, Scalar};
//! use qpl_rs::parquet::{Column, Encoding, Page, PhysicalType, Values};
//! use qpl_rs::{encode_parquet_rle, Executor, Path};
//!
//! let int32 = Column { physical_type: PhysicalType::Int32, max_def_level: 0, max_rep_level: 0 };
//! // Column a: dictionary [7, 42], rows [42, 7, 42, 42] (ids 1, 0, 1, 1).
//! let dictionary: Vec<u8> = [7i32, 42].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let indices = encode_parquet_rle(&[1, 0, 1, 1], 1).unwrap();
//! let a = ColumnChunk::new("a", int32, vec![
//!     Page::Dictionary { buf: &dictionary, num_values: 2, encoding: Encoding::Plain },
//!     Page::V2 { buf: &indices, num_values: 4, num_nulls: 0, encoding: Encoding::RleDictionary,
//!                def_levels_byte_len: 0, rep_levels_byte_len: 0 },
//! ]);
//! // Column b: PLAIN [10, 11, 12, 13].
//! let plain: Vec<u8> = [10i32, 11, 12, 13].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let b = ColumnChunk::new("b", int32, vec![Page::V2 { buf: &plain, num_values: 4,
//!     num_nulls: 0, encoding: Encoding::Plain, def_levels_byte_len: 0, rep_levels_byte_len: 0 }]);
//!
//! let executor = Executor::new(Path::Auto);
//! let rows = filter(&a, &Predicate::Eq(Scalar::Int32(42)), &executor).unwrap().rows;
//! assert_eq!(rows.iter_ones().collect::<Vec<_>>(), [0, 2, 3]);
//! let selected = gather(&b, rows.view(), &executor).unwrap();
//! assert_eq!(selected.values, Values::Int32(vec![10, 12, 13]));
//! ```
//!
//! ## How a predicate runs
//!
//! - **Dictionary-encoded pages** are answered from their indices, never decoding a value: the
//!   predicate is evaluated once per chunk on the dictionary, giving the set of matching ids;
//!   each data page's indices stream (exactly QPL's `parquet_rle` stream) is then scanned on
//!   the executor's path (the accelerator when there is one) with one scan per contiguous run
//!   of matching ids (`Eq(id)` or `Range(low, high)`), OR'ed. When the ids that do *not* match
//!   form a single run and the matching ones several, one inverted scan (`Ne(id)` or
//!   `NotRange(low, high)`) does it. A set that needs more than [`MAX_SCANS`] scans, and a page
//!   a scan refuses (QPL's parser refuses some valid streams), is decoded and compared
//!   instead. No matching id: the page is not scanned; every id: every non-null row matches.
//!   Example: dictionary `[10, 42, 7, 42, 99]` — `Eq(42)` matches ids {1, 3}: scans `Eq(1)`
//!   and `Eq(3)`; `Ne(42)` matches {0, 2, 4}, whose complement {1, 3} is two runs: three
//!   scans; `Range(7, 42)` matches {0, 1, 2, 3}: one scan `Range(0, 3)`; `Ne(99)` matches
//!   {0, 1, 2, 3}: one scan `Range(0, 3)`; `Ne(10)` matches {1, 2, 3, 4}: one scan
//!   `Range(1, 4)`; `Ne(7)` matches {0, 1, 3, 4} (two runs), complement {2}: one scan `Ne(2)`.
//!   A scan reads indices without looking them up, so an index past the dictionary is checked
//!   for first, and is an error naming the column and the page, never a silent match or
//!   no-match: the page's run headers are walked on the CPU (one step per run, no value
//!   unpacked), which checks the stream holds the page's values and the values of its RLE
//!   runs; then a page whose bit width can hold a bit-packed index past the dictionary (a
//!   dictionary of 5 entries and 3-bit indices: 5, 6 and 7 would be) gets one more scan,
//!   `Ge(len)`, which must match nothing ([`Filtered::checks`] counts them). A dictionary
//!   whose length is a power of two (with the usual minimal bit width) needs no scan. An RLE
//!   run whose value is wider than the bit width (D5 in `docs/semantics.md`: jobs take such
//!   values as they are) is corrupt for the page layer's codec, which reports it: such a page
//!   is decoded (and fails), in `filter` and in `gather` alike. `gather` also looks every
//!   selected index up and reports one past the dictionary as an error.
//! - **Other pages** are decoded (on the page layer) and compared.
//! - **Nulls never match** (also for `Ne`: SQL's `NULL <> 42` is not true). The definition
//!   levels say which rows have a value; a row's bit is the value's answer, or 0 for a null.
//! - Comparisons are the physical type's: integers as signed numbers, floats as IEEE numbers
//!   (`NaN` equals nothing, `-0.0 == 0.0`), byte arrays as unsigned bytes, lexicographically
//!   (Parquet's order for BYTE_ARRAY strings), booleans with `false < true`. `Range` includes
//!   both ends.
//!
//! ## How a gather runs
//!
//! Page by page, the page's slice of the row bitmap (at any bit offset: pages rarely start on
//! a byte boundary) says which rows to take; a page with no selected row is skipped without
//! being decoded at all. Otherwise:
//! - dictionary pages: the selected indices only, by a `select` job on the executor's path
//!   (the accelerator when there is one) with the page's value mask, then looked up;
//! - PLAIN and BYTE_STREAM_SPLIT of INT32, INT64, FLOAT, DOUBLE (and PLAIN INT96): the
//!   selected values are read straight from the page;
//! - everything else (DELTA_*, byte arrays in PLAIN, booleans): the page is decoded, then the
//!   selected values picked.
//!
//! The result is a [`ColumnData`] of the selected rows: their definition levels (when the
//! column has them) and their non-null values.
//!
//! ## GZIP pages
//!
//! A chunk given with its pages as stored ([`ColumnChunk::with_compression`]): a predicate on a
//! dictionary-encoded GZIP page whose values section is the whole compressed stream (a v2
//! page; a v1 page of a required column) runs its check and its scans as decompress-enabled
//! scan jobs (inflate and scan in one pass, on the accelerator when there is one); other
//! pages are decoded by [`ChunkDecoder::decode_compressed_page`]. A gather inflates the
//! compressed pages on the CPU first, then gathers as above.
//!
//! ## Repeated columns
//!
//! Not supported, for predicates nor gathers: a row of a list column has several values, so
//! a row selection is not a value selection and "equals" would need a rule (any? all?). Such
//! a column is an error naming it. Flat columns (required or optional, at any nesting depth
//! of non-repeated groups) are supported: there, rows are value slots.

use std::fmt;

use qpl_fallback::parquet::{dictionary, FixedWidth, Int96};

use super::{
    codec_decides, compressed, ChunkDecoder, Codec, Column, ColumnData, CompressedPage, Encoding,
    Page, PageCompression, PageError, PagePart, PhysicalType, Values,
};
use crate::api::{Comparison, Stream};
use crate::bitmap::{Bitmap, BitmapRef};
use crate::error::{Error, Stage};
use crate::executor::Executor;
use crate::path::Path;

#[cfg(feature = "parquet")]
mod from_parquet;
#[cfg(feature = "parquet")]
pub(crate) use from_parquet::{
    checked_chunk, checked_chunk_page_reader, chunk_page_starts, chunk_place, leaf_index,
};
#[cfg(feature = "parquet")]
pub use from_parquet::{
    chunk_page_reader, chunk_page_reader_shared, column_of, compression_of, page_of, read_metadata,
    stored_page_reader, ChunkPages, Strict,
};

/// Scans per dictionary page at most; a set of matching ids that needs more (scattered ids)
/// is answered by decoding the page and comparing (one decode costs less than many scans).
pub const MAX_SCANS: usize = 8;

/// A value to compare with, of the column's physical type.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    /// BOOLEAN.
    Boolean(bool),
    /// INT32.
    Int32(i32),
    /// INT64.
    Int64(i64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY.
    Bytes(Vec<u8>),
}

impl Scalar {
    fn type_name(&self) -> &'static str {
        match self {
            Scalar::Boolean(_) => "BOOLEAN",
            Scalar::Int32(_) => "INT32",
            Scalar::Int64(_) => "INT64",
            Scalar::Float(_) => "FLOAT",
            Scalar::Double(_) => "DOUBLE",
            Scalar::Bytes(_) => "BYTE_ARRAY",
        }
    }
}

/// A condition on a column's values (nulls never match).
#[derive(Clone, Debug, PartialEq)]
pub enum Predicate {
    /// `x == v`.
    Eq(Scalar),
    /// `x != v`.
    Ne(Scalar),
    /// `x` is one of the values.
    In(Vec<Scalar>),
    /// `low <= x <= high`.
    Range(Scalar, Scalar),
}

impl Predicate {
    fn scalars(&self) -> Vec<&Scalar> {
        match self {
            Predicate::Eq(v) | Predicate::Ne(v) => vec![v],
            Predicate::In(vs) => vs.iter().collect(),
            Predicate::Range(l, h) => vec![l, h],
        }
    }

    /// For each of `values`, whether it matches; `None` when a scalar is not of their type.
    pub fn matches(&self, values: &Values) -> Option<Bitmap> {
        fn typed<'s, T>(
            predicate: &'s Predicate,
            get: impl Fn(&'s Scalar) -> Option<T>,
        ) -> Option<Typed<T>> {
            Some(match predicate {
                Predicate::Eq(v) => Typed::Eq(get(v)?),
                Predicate::Ne(v) => Typed::Ne(get(v)?),
                Predicate::In(vs) => Typed::In(vs.iter().map(&get).collect::<Option<_>>()?),
                Predicate::Range(l, h) => Typed::Range(get(l)?, get(h)?),
            })
        }
        // `searchable`: for totally ordered types, a long `In` list is searched, not scanned.
        macro_rules! by_value {
            ($v:expr, $variant:ident $(, $then:ident)?) => {{
                let t = typed(self, |s| match s {
                    Scalar::$variant(x) => Some(*x),
                    _ => None,
                })?$(.$then())?;
                $v.iter().map(|x| t.test(x)).collect()
            }};
        }
        Some(match values {
            Values::Boolean(v) => by_value!(v, Boolean),
            Values::Int32(v) => by_value!(v, Int32, searchable),
            Values::Int64(v) => by_value!(v, Int64, searchable),
            Values::Float(v) => by_value!(v, Float),
            Values::Double(v) => by_value!(v, Double),
            Values::Bytes(v) => {
                let t = typed(self, |s| match s {
                    Scalar::Bytes(x) => Some(x.as_slice()),
                    _ => None,
                })?
                .searchable();
                v.iter().map(|x| t.test(&x)).collect()
            }
            Values::Int96(_) => return None,
        })
    }
}

/// A predicate with its scalars of one type.
enum Typed<T> {
    Eq(T),
    Ne(T),
    In(Vec<T>),
    /// `In` with its values sorted and deduplicated, searched by halving.
    InSorted(Vec<T>),
    Range(T, T),
}

/// `In` lists longer than this are sorted and searched: a join's key list pushed into a scan
/// holds up to hundreds of values, and a scan of each would cost a comparison per value a row.
const SEARCHED_IN: usize = 8;

impl<T: Ord> Typed<T> {
    /// The same predicate, its `In` values sorted for search when there are many.
    fn searchable(self) -> Typed<T> {
        match self {
            Typed::In(mut vs) if vs.len() > SEARCHED_IN => {
                vs.sort_unstable();
                vs.dedup();
                Typed::InSorted(vs)
            }
            t => t,
        }
    }
}

impl<T: PartialOrd> Typed<T> {
    #[inline]
    fn test(&self, x: &T) -> bool {
        match self {
            Typed::Eq(v) => x == v,
            Typed::Ne(v) => x != v,
            Typed::In(vs) => vs.iter().any(|v| x == v),
            Typed::InSorted(vs) => {
                // The first value not below `x`, found without a total-order bound on `T`.
                let at = vs.partition_point(|v| v < x);
                vs.get(at).is_some_and(|v| v == x)
            }
            Typed::Range(l, h) => l <= x && x <= h,
        }
    }
}

/// One column chunk: its name (for errors), its [`Column`] and its pages in order (the
/// dictionary page first, if any), uncompressed, or as stored with their [`PageCompression`]
/// ([`ColumnChunk::with_compression`]: GZIP pages are filtered in one decompress job where the
/// encoding allows it).
#[derive(Clone, Debug)]
pub struct ColumnChunk<'a> {
    /// The column's name (its dotted path), named in errors.
    pub name: String,
    /// The column.
    pub column: Column,
    /// The pages.
    pub pages: Vec<Page<'a>>,
    /// How each page is compressed (one per page; empty: none is).
    pub compression: Vec<PageCompression>,
}

impl<'a> ColumnChunk<'a> {
    /// A chunk of `column`, called `name`, made of `pages`.
    pub fn new(name: impl Into<String>, column: Column, pages: Vec<Page<'a>>) -> ColumnChunk<'a> {
        ColumnChunk {
            name: name.into(),
            column,
            pages,
            compression: Vec::new(),
        }
    }

    /// The same chunk whose pages are stored as `compression` says (one per page).
    pub fn with_compression(mut self, compression: Vec<PageCompression>) -> ColumnChunk<'a> {
        self.compression = compression;
        self
    }

    /// Page `i` as stored.
    fn stored(&self, i: usize) -> CompressedPage<'a> {
        CompressedPage {
            page: self.pages[i],
            compression: self.compression.get(i).copied().unwrap_or_default(),
        }
    }

    /// Whether a page is compressed.
    fn is_compressed(&self) -> bool {
        self.compression
            .iter()
            .any(|c| c.codec != Codec::Uncompressed)
    }

    fn error(&self, page: Option<usize>, kind: QueryErrorKind) -> QueryError {
        QueryError {
            column: self.name.clone(),
            page,
            kind,
        }
    }

    /// Refuses what this module does not take: repeated columns, bad level maxima.
    fn check_flat(&self) -> Result<(), QueryError> {
        let c = &self.column;
        if c.max_rep_level != 0 {
            return Err(self.error(
                None,
                QueryErrorKind::Unsupported(format!(
                    "the column is repeated (max_rep_level {}): predicates and gathers take \
                     flat columns, one value slot per row",
                    c.max_rep_level
                )),
            ));
        }
        if c.max_def_level < 0 {
            return Err(self.error(
                None,
                QueryErrorKind::Invalid(format!("max_def_level {} is negative", c.max_def_level)),
            ));
        }
        Ok(())
    }
}

/// Why a query failed, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryError {
    /// The column chunk's name.
    pub column: String,
    /// The page (its index in the chunk's pages, the dictionary page counted), when the
    /// error is about one.
    pub page: Option<usize>,
    /// What went wrong.
    pub kind: QueryErrorKind,
}

/// What went wrong in a query.
#[derive(Clone, Debug, PartialEq)]
pub enum QueryErrorKind {
    /// The page layer could not decode the page.
    Page(PageError),
    /// A scan or select job failed (not about the data: a path that cannot run...).
    Job(Error),
    /// The query does not fit the column (a scalar of another type, a repeated column...).
    Unsupported(String),
    /// The pages contradict the query or each other (rows that do not add up...).
    Invalid(String),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}", self.column)?;
        if let Some(page) = self.page {
            write!(f, ", page {page}")?;
        }
        match &self.kind {
            QueryErrorKind::Page(e) => write!(f, ": {e}"),
            QueryErrorKind::Job(e) => write!(f, ": {e}"),
            QueryErrorKind::Unsupported(m) => write!(f, ": not supported: {m}"),
            QueryErrorKind::Invalid(m) => write!(f, ": {m}"),
        }
    }
}

impl std::error::Error for QueryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            QueryErrorKind::Page(e) => Some(e),
            QueryErrorKind::Job(e) => Some(e),
            _ => None,
        }
    }
}

/// The rows a predicate selected, and how the pages were answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Filtered {
    /// One bit per row of the chunk: whether it matches.
    pub rows: Bitmap,
    /// Data pages answered from their dictionary indices (scanned, or not even scanned
    /// because no id or every id matches).
    pub index_pages: usize,
    /// Of those, the pages scanned for the predicate (at least one scan of [`Filtered::scans`]).
    pub scanned_pages: usize,
    /// Scan jobs run on those pages for the predicate.
    pub scans: usize,
    /// Scan jobs run on those pages to check their indices against the dictionary's length
    /// (one per page whose bit width can hold an index past the dictionary).
    pub checks: usize,
    /// Data pages decoded and compared.
    pub decoded_pages: usize,
    /// The path of the scans: the accelerator (or QPL's software path) when any scan ran
    /// there, [`Path::Fallback`] otherwise (also when nothing was scanned).
    pub path: Path,
}

/// How a chunk's dictionary ids answer the predicate.
#[derive(Clone, Debug, PartialEq)]
enum IdPlan {
    /// No id matches.
    None,
    /// Every id matches.
    All,
    /// The OR of these scans.
    Scans(Vec<Comparison>),
    /// Too scattered: decode and compare.
    Decode,
}

/// How a dictionary-encoded page was answered from its indices.
enum IndexAnswer {
    /// One bit per value of the page.
    Values(Bitmap),
    /// A job refused the data, or the stream is short: the page is decoded instead (and the
    /// codec reports data that really is bad).
    Decode,
    /// Indices past the dictionary (what is known of them, for the error when decoding the
    /// page does not report them).
    PastDictionary(String),
}

/// Contiguous runs of 1 bits, as (first, last).
fn runs(bits: BitmapRef<'_>, value: bool) -> Vec<(u32, u32)> {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for (i, bit) in bits.iter().enumerate() {
        if bit != value {
            continue;
        }
        let i = i as u32;
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == i => *last = i,
            _ => runs.push((i, i)),
        }
    }
    runs
}

fn plan_ids(matching: &Bitmap) -> IdPlan {
    let ones = runs(matching.view(), true);
    if ones.is_empty() {
        return IdPlan::None;
    }
    let zeros = runs(matching.view(), false);
    if zeros.is_empty() {
        return IdPlan::All;
    }
    let scans: Vec<Comparison> = if zeros.len() == 1 && ones.len() > 1 {
        let (low, high) = zeros[0];
        vec![if low == high {
            Comparison::Ne(low)
        } else {
            Comparison::NotRange(low, high)
        }]
    } else {
        ones.iter()
            .map(|&(low, high)| {
                if low == high {
                    Comparison::Eq(low)
                } else {
                    Comparison::Range(low, high)
                }
            })
            .collect()
    };
    if scans.len() > MAX_SCANS {
        IdPlan::Decode
    } else {
        IdPlan::Scans(scans)
    }
}

/// A data page taken apart: its definition levels (appended to a buffer), values section and
/// count of non-null values.
struct Split<'p> {
    present: usize,
    encoding: Encoding,
    values: &'p [u8],
}

/// Takes a data page of a flat column apart, decoding its definition levels (on the
/// decoder's path) into `levels` (cleared first; left empty for a required column).
fn split_page<'p>(
    decoder: &mut ChunkDecoder,
    page: &Page<'p>,
    levels: &mut Vec<i16>,
) -> Result<Split<'p>, PageError> {
    levels.clear();
    let max_def = decoder.column.max_def_level;
    let Some(parts) = decoder.split_flat_page(page)? else {
        return Err(PageError::invalid(
            PagePart::Page,
            None,
            "a dictionary page where a data page was expected",
        ));
    };
    let (def, values, num_values, num_nulls, encoding) = (
        parts.def,
        parts.section,
        parts.num_values,
        parts.num_nulls,
        parts.encoding,
    );
    let rows = num_values as usize;
    let present = match def {
        Some((level_encoding, bytes)) => {
            decoder.decode_levels(
                PagePart::DefLevels,
                level_encoding,
                bytes,
                max_def,
                rows,
                levels,
            )?;
            levels.iter().filter(|&&d| d == max_def).count()
        }
        None => rows,
    };
    super::validity::check_num_nulls(num_values, num_nulls, present)?;
    Ok(Split {
        present,
        encoding,
        values,
    })
}

/// Appends one bit per row: the value's bit where the row has a value (level `max_def`), 0
/// for a null. `levels` empty: every row has a value.
fn spread(rows: &mut Bitmap, levels: &[i16], max_def: i16, values: BitmapRef<'_>) {
    if levels.is_empty() {
        rows.extend_from_bitmap(values);
        return;
    }
    if values.count_ones() == 0 {
        rows.push_n(false, levels.len());
        return;
    }
    let mut next = values.iter();
    for &level in levels {
        rows.push(level == max_def && next.next().unwrap_or(false));
    }
}

/// The value mask of a page: bit j is the row bit of the page's j-th non-null row.
fn value_mask(rows: BitmapRef<'_>, levels: &[i16], max_def: i16) -> Bitmap {
    if levels.is_empty() {
        return rows.to_bitmap();
    }
    levels
        .iter()
        .zip(rows.iter())
        .filter(|(&level, _)| level == max_def)
        .map(|(_, bit)| bit)
        .collect()
}

/// Evaluates `predicate` on `chunk` (see the module docs): one bit per row of the chunk.
/// GZIP pages are scanned in decompress-enabled jobs where the executor's jobs run on the
/// accelerator, else inflated on the CPU first (as [`ChunkDecoder::with_one_job`] decides);
/// [`filter_with_one_job`] chooses.
pub fn filter(
    chunk: &ColumnChunk<'_>,
    predicate: &Predicate,
    executor: &Executor,
) -> Result<Filtered, QueryError> {
    filter_with_one_job(chunk, predicate, executor, None)
}

/// [`filter`], with GZIP dictionary pages scanned in decompress-enabled jobs (`Some(true)`),
/// inflated on the CPU first (`Some(false)`), or as [`filter`] decides (`None`).
pub fn filter_with_one_job(
    chunk: &ColumnChunk<'_>,
    predicate: &Predicate,
    executor: &Executor,
    one_job: Option<bool>,
) -> Result<Filtered, QueryError> {
    chunk.check_flat()?;
    let Some(expected) = scalar_type(chunk.column.physical_type) else {
        return Err(chunk.error(
            None,
            QueryErrorKind::Unsupported("INT96 values have no comparison".into()),
        ));
    };
    if let Some(wrong) = predicate
        .scalars()
        .into_iter()
        .find(|s| s.type_name() != expected)
    {
        return Err(chunk.error(
            None,
            QueryErrorKind::Unsupported(format!(
                "a {} value compared with a {} column",
                wrong.type_name(),
                chunk.column.physical_type.name()
            )),
        ));
    }
    let column = chunk.column;
    let max_def = column.max_def_level;
    let mut decoder = ChunkDecoder::with_executor(column, executor.clone());
    if let Some(one_job) = one_job {
        decoder = decoder.with_one_job(one_job);
    }
    let one_job = decoder.one_job;
    let mut data = ColumnData::new(&column);
    let mut levels = Vec::new();
    // The plan for the chunk's dictionary ids, and the dictionary's length.
    let mut plan: Option<(IdPlan, u32)> = None;
    // For ids too scattered to scan: one byte an id, 1 where it matches (a page's ids are
    // decoded and looked up, not its values decoded and compared).
    let mut lookup: Vec<u8> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    let mut out = Filtered {
        rows: Bitmap::new(),
        index_pages: 0,
        scanned_pages: 0,
        scans: 0,
        checks: 0,
        decoded_pages: 0,
        path: Path::Fallback,
    };
    let limit = executor.config().max_output_bytes as u64;
    for (i, page) in chunk.pages.iter().enumerate() {
        let page_error = |e| chunk.error(Some(i), QueryErrorKind::Page(e));
        let mut stored = chunk.stored(i);
        // A GZIP data page whose values section is the whole compressed stream (v2; v1 of a
        // required column) is scanned in one decompress job (`one_job`); a v1 page with levels
        // in front, or any page when not `one_job`, is inflated here, then answered as an
        // uncompressed page.
        let inflated;
        let page = if stored.compression.codec == Codec::Gzip
            && page.encoding().is_dictionary()
            && (!one_job || (matches!(page, Page::V1 { .. }) && max_def > 0))
        {
            inflated = stored
                .inflate(limit)
                .map_err(page_error)?
                .unwrap_or_default();
            stored = CompressedPage {
                page: page.with_buf(&inflated),
                compression: PageCompression::NONE,
            };
            &stored.page
        } else {
            page
        };
        let gzip = stored.compression.codec == Codec::Gzip;
        if let Page::Dictionary { .. } = page {
            data.clear();
            decoder
                .decode_compressed_page(&stored, &mut data)
                .map_err(page_error)?;
            let dictionary = decoder.dictionary().ok_or_else(|| {
                chunk.error(
                    Some(i),
                    QueryErrorKind::Invalid("the dictionary page gave no dictionary".into()),
                )
            })?;
            // The scalar types were checked above: `matches` answers.
            let len = u32::try_from(dictionary.len()).unwrap_or(u32::MAX);
            let matching = predicate.matches(dictionary);
            plan = matching.as_ref().map(|matching| (plan_ids(matching), len));
            lookup.clear();
            if let (Some((IdPlan::Decode, _)), Some(matching)) = (&plan, &matching) {
                lookup.extend(matching.iter().map(u8::from));
            }
            continue;
        }
        if page.encoding().is_dictionary() && !gzip && !lookup.is_empty() {
            let split = split_page(&mut decoder, page, &mut levels).map_err(page_error)?;
            decoder
                .decode_dictionary_indices_only(
                    split.encoding,
                    split.values,
                    split.present,
                    &mut ids,
                )
                .map_err(page_error)?;
            let answer = look_up(&ids, &lookup).map_err(|(id, at)| {
                chunk.error(
                    Some(i),
                    QueryErrorKind::Invalid(format!(
                        "dictionary index {id} at position {at}, past the dictionary's {} entries",
                        lookup.len()
                    )),
                )
            })?;
            out.decoded_pages += 1;
            spread(&mut out.rows, &levels, max_def, answer.view());
            continue;
        }
        if page.encoding().is_dictionary() {
            if let Some((plan, len)) = plan.as_ref().filter(|(p, _)| *p != IdPlan::Decode) {
                let split = split_page(&mut decoder, page, &mut levels).map_err(page_error)?;
                let answer = if gzip {
                    answer_from_gzip_indices(executor, &split, plan, *len, &mut out)
                } else {
                    answer_from_indices(executor, &split, plan, *len, &mut out)
                }
                .map_err(|e| chunk.error(Some(i), QueryErrorKind::Job(e)))?;
                match answer {
                    IndexAnswer::Values(answer) => {
                        out.index_pages += 1;
                        spread(&mut out.rows, &levels, max_def, answer.view());
                        continue;
                    }
                    IndexAnswer::Decode => {}
                    IndexAnswer::PastDictionary(what) => {
                        // The codec names the index; decoding the page reports it.
                        data.clear();
                        let past = QueryErrorKind::Invalid(what);
                        return Err(match decoder.decode_compressed_page(&stored, &mut data) {
                            Err(e) => page_error(e),
                            Ok(_) => chunk.error(Some(i), past),
                        });
                    }
                }
            }
        }
        data.clear();
        decoder
            .decode_compressed_page(&stored, &mut data)
            .map_err(page_error)?;
        out.decoded_pages += 1;
        let answer = predicate.matches(&data.values).unwrap_or_default();
        spread(&mut out.rows, &data.def_levels, max_def, answer.view());
    }
    Ok(out)
}

/// One bit per id: `lookup[id]` (0 or 1), eight ids a byte; `Err((id, position))` for the
/// first id past it.
fn look_up(ids: &[u32], lookup: &[u8]) -> Result<Bitmap, (u32, usize)> {
    let mut bytes = Vec::with_capacity(ids.len().div_ceil(8));
    for (k, eight) in ids.chunks(8).enumerate() {
        let mut byte = 0u8;
        for (j, &id) in eight.iter().enumerate() {
            let bit = *lookup.get(id as usize).ok_or((id, k * 8 + j))?;
            byte |= bit << j;
        }
        bytes.push(byte);
    }
    Ok(Bitmap::from_bytes(bytes, ids.len()))
}

/// Answers a dictionary-encoded page from its indices by `plan` (not [`IdPlan::Decode`]),
/// first checking, from the run headers, that the indices stream holds the page's values
/// (before anything of their number is allocated) and that no RLE run's value passes the
/// dictionary's `len` entries, then, when the bit width can hold a bit-packed index past the
/// dictionary, that none does (one scan `Ge(len)`): a scan reads indices without looking them
/// up, and an index past the dictionary must not silently match or not.
fn answer_from_indices(
    executor: &Executor,
    split: &Split<'_>,
    plan: &IdPlan,
    len: u32,
    out: &mut Filtered,
) -> Result<IndexAnswer, Error> {
    if split.present == 0 {
        return Ok(IndexAnswer::Values(Bitmap::new()));
    }
    let n = u32::try_from(split.present).unwrap_or(u32::MAX);
    let stream = Stream::parquet_rle(split.values);
    let Some((width, rle_max)) = rle_runs_max(split.values, n) else {
        return Ok(IndexAnswer::Decode);
    };
    if rle_max >= len {
        return Ok(IndexAnswer::PastDictionary(format!(
            "an RLE run of index {rle_max}, past the dictionary's {len} entries"
        )));
    }
    if width < 32 && rle_max >> width != 0 {
        // An RLE value wider than the bit width that still falls inside the dictionary (D5:
        // a scan compares it as it is, but its parameters are masked to the width): the page
        // is decoded, and the codec reports the run.
        return Ok(IndexAnswer::Decode);
    }
    // Bit-packed values are below 2^width: checked when that passes the dictionary.
    if width >= 32 || 1u64 << width > u64::from(len) {
        let output = match executor.scan(&stream, n, Comparison::Ge(len)) {
            Ok((_, output)) => output,
            Err(e) if codec_decides(&e) => return Ok(IndexAnswer::Decode),
            Err(e) => return Err(e),
        };
        out.checks += 1;
        if output.path != Path::Fallback {
            out.path = output.path;
        }
        let count = output.completion.sum_value;
        if count > 0 {
            let position = output.completion.first_index_min_value;
            return Ok(past_dictionary(count, position, len));
        }
    }
    answer_by_plan(plan, split.present, out, |comparison, out| {
        match executor.scan_bitmap(&stream, n, comparison) {
            Ok((bits, output)) => {
                if output.path != Path::Fallback {
                    out.path = output.path;
                }
                Ok(Some(bits))
            }
            Err(e) if codec_decides(&e) => Ok(None),
            Err(e) => Err(e),
        }
    })
}

/// [`answer_from_indices`] for a GZIP-compressed indices stream, in decompress-enabled scan
/// jobs (inflate and scan in one pass): the bit width is the stream's first inflated byte;
/// one check `Ge(len)` runs on every page (it also shows that the stream holds the page's
/// values, which the run headers show for an uncompressed stream), then the plan's scans.
/// What the check cannot see: an RLE run whose value is wider than the bit width but inside
/// the dictionary is compared as it is (D5), where the codec refuses it.
fn answer_from_gzip_indices(
    executor: &Executor,
    split: &Split<'_>,
    plan: &IdPlan,
    len: u32,
    out: &mut Filtered,
) -> Result<IndexAnswer, Error> {
    if split.present == 0 {
        return Ok(IndexAnswer::Values(Bitmap::new()));
    }
    let Ok(n) = u32::try_from(split.present) else {
        return Ok(IndexAnswer::Decode);
    };
    let Some(width) = compressed::indices_width(split.values) else {
        return Ok(IndexAnswer::Decode);
    };
    let scan = |comparison, out: &mut Filtered| match compressed::scan_job(
        executor,
        split.values,
        width,
        n,
        comparison,
    ) {
        Ok((bits, output)) => {
            if output.path != Path::Fallback {
                out.path = output.path;
            }
            Ok(Some(bits))
        }
        // Data the job refused, or a valid stream past QPL's documented 4 KB inflate history
        // (DZ13): the page is decoded instead.
        Err(e) if codec_decides(&e) || e.stage == Stage::Run => Ok(None),
        Err(e) => Err(e),
    };
    let Some(past) = scan(Comparison::Ge(len), out)? else {
        return Ok(IndexAnswer::Decode);
    };
    out.checks += 1;
    // From the bits (a D8 retry's aggregates count the values past the page's).
    let count = past.count_ones();
    if count > 0 {
        let position = past.iter().position(|b| b).unwrap_or(0);
        return Ok(past_dictionary(count, position, len));
    }
    answer_by_plan(plan, split.present, out, scan)
}

/// The answer for a page with `count` indices past the dictionary's `len` entries, the first
/// at value `position`.
fn past_dictionary(count: impl fmt::Display, position: impl fmt::Display, len: u32) -> IndexAnswer {
    IndexAnswer::PastDictionary(format!(
        "{count} dictionary indices are past the dictionary's {len} entries, the first at \
         value {position} of the page"
    ))
}

/// The answer of `plan` for a page of `present` indices: for [`IdPlan::Scans`], the OR of the
/// bitmaps `scan` gives for each comparison (which also records the path it ran on), or
/// [`IndexAnswer::Decode`] when a scan refused the data (`None`: QPL's parser refuses some
/// valid streams; the page is decoded instead, and the codec reports data that really is bad).
fn answer_by_plan(
    plan: &IdPlan,
    present: usize,
    out: &mut Filtered,
    mut scan: impl FnMut(Comparison, &mut Filtered) -> Result<Option<Bitmap>, Error>,
) -> Result<IndexAnswer, Error> {
    let scans = match plan {
        IdPlan::None => return Ok(IndexAnswer::Values(Bitmap::repeat(false, present))),
        IdPlan::All => return Ok(IndexAnswer::Values(Bitmap::repeat(true, present))),
        IdPlan::Decode => return Ok(IndexAnswer::Decode),
        IdPlan::Scans(scans) => scans,
    };
    let mut answer: Option<Bitmap> = None;
    for &comparison in scans {
        let Some(bits) = scan(comparison, out)? else {
            return Ok(IndexAnswer::Decode);
        };
        out.scans += 1;
        match answer.as_mut() {
            None => answer = Some(bits),
            Some(answer) => answer.or_assign(bits.view()),
        }
    }
    Ok(match answer {
        Some(bits) => {
            out.scanned_pages += 1;
            IndexAnswer::Values(bits)
        }
        None => IndexAnswer::Decode,
    })
}

/// Walks the run headers of a dictionary page's indices stream (the bit-width byte, then the
/// RLE/bit-packed hybrid runs) over its first `n` values without unpacking a bit-packed value
/// (one step per run): the bit width and the largest value of its RLE runs (0 when none), or
/// `None` when the stream does not hold `n` values or is malformed (the codec then decides).
/// Nothing is sized by `n`.
fn rle_runs_max(values: &[u8], n: u32) -> Option<(u32, u32)> {
    let (&width, data) = values.split_first()?;
    let width = u32::from(width);
    if width > 32 {
        return None;
    }
    let value_bytes = width.div_ceil(8) as usize;
    let (mut pos, mut left, mut max) = (0usize, u64::from(n), 0u32);
    while left > 0 {
        let header = qpl_fallback::read_run_header(data, &mut pos).ok()?;
        let run = u64::from(header >> 1);
        if header & 1 == 0 {
            let bytes = data.get(pos..pos + value_bytes)?;
            pos += value_bytes;
            if run > 0 {
                // Not masked to the width (D5).
                let value = bytes
                    .iter()
                    .rev()
                    .fold(0u32, |acc, &b| (acc << 8) | u32::from(b));
                max = max.max(value);
            }
            left -= run.min(left);
        } else {
            // Every group holding a wanted value must be whole.
            let take = (run * 8).min(left);
            let needed = usize::try_from(take.div_ceil(8) * u64::from(width)).ok()?;
            pos = pos.checked_add(needed).filter(|&end| end <= data.len())?;
            left -= take;
        }
    }
    Some((width, max))
}

/// The [`Scalar`] type name of a physical type's values (`None`: INT96, not comparable).
fn scalar_type(physical_type: PhysicalType) -> Option<&'static str> {
    Some(match physical_type {
        PhysicalType::Boolean => "BOOLEAN",
        PhysicalType::Int32 => "INT32",
        PhysicalType::Int64 => "INT64",
        PhysicalType::Float => "FLOAT",
        PhysicalType::Double => "DOUBLE",
        PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_) => "BYTE_ARRAY",
        PhysicalType::Int96 => return None,
    })
}

/// The values of `chunk` in the rows whose bit is 1 in `rows` (one bit per row of the chunk,
/// at any bit offset): their definition levels (when the column has them) and non-null
/// values. See the module docs for which pages are decoded only where selected.
pub fn gather(
    chunk: &ColumnChunk<'_>,
    rows: BitmapRef<'_>,
    executor: &Executor,
) -> Result<ColumnData, QueryError> {
    chunk.check_flat()?;
    if chunk.is_compressed() {
        // Pages inflated on the CPU, then gathered as uncompressed pages.
        let limit = executor.config().max_output_bytes as u64;
        let bodies = (0..chunk.pages.len())
            .map(|i| {
                chunk
                    .stored(i)
                    .inflate(limit)
                    .map_err(|e| chunk.error(Some(i), QueryErrorKind::Page(e)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let pages = chunk
            .pages
            .iter()
            .zip(&bodies)
            .map(|(page, body)| body.as_deref().map_or(*page, |b| page.with_buf(b)))
            .collect();
        let plain = ColumnChunk::new(chunk.name.clone(), chunk.column, pages);
        return gather(&plain, rows, executor);
    }
    let column = chunk.column;
    let max_def = column.max_def_level;
    let mut decoder = ChunkDecoder::with_executor(column, executor.clone());
    let mut out = ColumnData::new(&column);
    let mut scratch = ColumnData::new(&column);
    let mut levels = Vec::new();
    let mut start = 0usize;
    for (i, page) in chunk.pages.iter().enumerate() {
        let page_error = |e| chunk.error(Some(i), QueryErrorKind::Page(e));
        if let Page::Dictionary { .. } = page {
            scratch.clear();
            decoder
                .decode_page(page, &mut scratch)
                .map_err(page_error)?;
            continue;
        }
        let n = page.num_values() as usize;
        if n > rows.len() - start {
            return Err(chunk.error(
                Some(i),
                QueryErrorKind::Invalid(format!(
                    "the page's {n} rows pass the selection's {} rows ({} before the page)",
                    rows.len(),
                    start
                )),
            ));
        }
        let page_rows = rows.slice(start, n);
        start += n;
        if page_rows.count_ones() == 0 {
            continue;
        }
        if direct_pick(column.physical_type, page.encoding()) {
            let split = split_page(&mut decoder, page, &mut levels).map_err(page_error)?;
            let mask = value_mask(page_rows, &levels, max_def);
            let picked = if page.encoding().is_dictionary() {
                pick_dictionary(&decoder, &split, &mask, &mut out.values)
            } else {
                pick_fixed(&split, &mask, &mut out.values).map(|()| true)
            };
            match picked {
                Ok(true) => {
                    push_levels(&mut out.def_levels, &levels, page_rows);
                    continue;
                }
                Ok(false) => {}
                Err(e) => return Err(chunk.error(Some(i), e)),
            }
        }
        scratch.clear();
        decoder
            .decode_page(page, &mut scratch)
            .map_err(page_error)?;
        let mask = value_mask(page_rows, &scratch.def_levels, max_def);
        pick_values(&scratch.values, &mask, &mut out.values)
            .map_err(|e| chunk.error(Some(i), QueryErrorKind::Invalid(e)))?;
        push_levels(&mut out.def_levels, &scratch.def_levels, page_rows);
    }
    if start != rows.len() {
        return Err(chunk.error(
            None,
            QueryErrorKind::Invalid(format!(
                "the chunk's pages hold {start} rows, the selection {}",
                rows.len()
            )),
        ));
    }
    Ok(out)
}

/// Whether a page's selected values are taken without decoding the rest.
fn direct_pick(physical_type: PhysicalType, encoding: Encoding) -> bool {
    use PhysicalType as T;
    match encoding {
        Encoding::PlainDictionary | Encoding::RleDictionary => true,
        Encoding::Plain => matches!(
            physical_type,
            T::Int32 | T::Int64 | T::Int96 | T::Float | T::Double
        ),
        Encoding::ByteStreamSplit => {
            matches!(physical_type, T::Int32 | T::Int64 | T::Float | T::Double)
        }
        _ => false,
    }
}

/// Appends the selected rows' definition levels (none for a required column).
fn push_levels(out: &mut Vec<i16>, levels: &[i16], rows: BitmapRef<'_>) {
    if !levels.is_empty() {
        out.extend(rows.iter_ones().map(|r| levels[r]));
    }
}

/// A dictionary page's selected values: a `select` job gives the selected indices only, then
/// they are looked up. `Ok(false)` when the job refused the data (the caller decodes the page
/// instead, and the codec reports data that really is bad).
fn pick_dictionary(
    decoder: &ChunkDecoder,
    split: &Split<'_>,
    mask: &Bitmap,
    out: &mut Values,
) -> Result<bool, QueryErrorKind> {
    let Some(dict) = decoder.dictionary() else {
        return Err(QueryErrorKind::Invalid(
            "a dictionary-encoded data page, but the chunk had no dictionary page before it".into(),
        ));
    };
    if mask.count_ones() == 0 {
        return Ok(true);
    }
    // An RLE run whose value is wider than the bit width (D5: a select job reads it as it is)
    // or past the dictionary: the page is decoded, and its codec reports the run.
    let n = u32::try_from(split.present).unwrap_or(u32::MAX);
    match rle_runs_max(split.values, n) {
        Some((width, max)) if (width >= 32 || max >> width == 0) && (max as usize) < dict.len() => {
        }
        _ => return Ok(false),
    }
    let stream = Stream::parquet_rle(split.values);
    let indices = match decoder.executor().select_bitmap(&stream, mask.view()) {
        Ok((indices, _)) => indices,
        Err(e) if codec_decides(&e) => return Ok(false),
        Err(e) => return Err(QueryErrorKind::Job(e)),
    };
    let lookup = |e| QueryErrorKind::Page(PageError::codec(PagePart::Values, split.encoding, e));
    fn fixed<T: FixedWidth>(
        d: &[T],
        indices: &[u32],
        out: &mut Vec<T>,
    ) -> Result<(), qpl_fallback::parquet::ParquetError> {
        let start = out.len();
        out.resize(start + indices.len(), T::default());
        dictionary::gather(indices, d, &mut out[start..]).inspect_err(|_| out.truncate(start))
    }
    match (dict, out) {
        (Values::Int32(d), Values::Int32(o)) => fixed(d, &indices, o),
        (Values::Int64(d), Values::Int64(o)) => fixed(d, &indices, o),
        (Values::Int96(d), Values::Int96(o)) => fixed(d, &indices, o),
        (Values::Float(d), Values::Float(o)) => fixed(d, &indices, o),
        (Values::Double(d), Values::Double(o)) => fixed(d, &indices, o),
        (Values::Bytes(d), Values::Bytes(o)) => dictionary::gather_byte_arrays(&indices, d, o),
        _ => {
            return Err(QueryErrorKind::Unsupported(
                "the dictionary holds another type than the page's values".into(),
            ))
        }
    }
    .map_err(lookup)?;
    Ok(true)
}

/// PLAIN or BYTE_STREAM_SPLIT fixed-width values: the selected ones read from the page.
fn pick_fixed(split: &Split<'_>, mask: &Bitmap, out: &mut Values) -> Result<(), QueryErrorKind> {
    fn pick<T: FixedWidth>(
        split: &Split<'_>,
        mask: &Bitmap,
        out: &mut Vec<T>,
    ) -> Result<(), QueryErrorKind> {
        let (n, data) = (split.present, split.values);
        let needed = n.saturating_mul(T::SIZE);
        let exact = split.encoding == Encoding::ByteStreamSplit;
        if data.len() < needed || (exact && data.len() != needed) {
            return Err(QueryErrorKind::Page(PageError::invalid(
                PagePart::Values,
                Some(split.encoding),
                format!(
                    "{n} values of {} bytes take {needed} bytes, but the values section has {}",
                    T::SIZE,
                    data.len()
                ),
            )));
        }
        out.reserve(mask.count_ones());
        if exact {
            let mut bytes = [0u8; 16];
            out.extend(mask.iter_ones().map(|j| {
                for (k, byte) in bytes[..T::SIZE].iter_mut().enumerate() {
                    *byte = data[k * n + j];
                }
                T::from_le_slice(&bytes)
            }));
        } else {
            out.extend(
                mask.iter_ones()
                    .map(|j| T::from_le_slice(&data[j * T::SIZE..])),
            );
        }
        Ok(())
    }
    match out {
        Values::Int32(o) => pick::<i32>(split, mask, o),
        Values::Int64(o) => pick::<i64>(split, mask, o),
        Values::Int96(o) => pick::<Int96>(split, mask, o),
        Values::Float(o) => pick::<f32>(split, mask, o),
        Values::Double(o) => pick::<f64>(split, mask, o),
        _ => Err(QueryErrorKind::Unsupported(
            "no direct pick for this type".into(),
        )),
    }
}

/// Appends the values of `values` whose `mask` bit is 1.
fn pick_values(values: &Values, mask: &Bitmap, out: &mut Values) -> Result<(), String> {
    fn pick<T: Copy>(v: &[T], mask: &Bitmap, out: &mut Vec<T>) {
        out.extend(mask.iter_ones().map(|j| v[j]));
    }
    if mask.len() != values.len() {
        return Err(format!(
            "{} values decoded where the levels say {}",
            values.len(),
            mask.len()
        ));
    }
    match (values, out) {
        (Values::Boolean(v), Values::Boolean(o)) => pick(v, mask, o),
        (Values::Int32(v), Values::Int32(o)) => pick(v, mask, o),
        (Values::Int64(v), Values::Int64(o)) => pick(v, mask, o),
        (Values::Int96(v), Values::Int96(o)) => pick(v, mask, o),
        (Values::Float(v), Values::Float(o)) => pick(v, mask, o),
        (Values::Double(v), Values::Double(o)) => pick(v, mask, o),
        (Values::Bytes(v), Values::Bytes(o)) => {
            for j in mask.iter_ones() {
                o.push(v.get(j)).map_err(|e| e.to_string())?;
            }
        }
        _ => return Err("the decoded values are of another type".into()),
    }
    Ok(())
}

/// Value `i` of `values` as text: numbers as Rust prints them, UTF-8 byte arrays as the
/// string, other bytes in hex.
pub fn value_text(values: &Values, i: usize) -> Option<String> {
    if i >= values.len() {
        return None;
    }
    Some(match values {
        Values::Boolean(v) => v[i].to_string(),
        Values::Int32(v) => v[i].to_string(),
        Values::Int64(v) => v[i].to_string(),
        Values::Int96(v) => format!("{:?}", v[i].0),
        Values::Float(v) => v[i].to_string(),
        Values::Double(v) => v[i].to_string(),
        Values::Bytes(v) => match std::str::from_utf8(v.get(i)) {
            Ok(s) => s.to_string(),
            Err(_) => v.get(i).iter().map(|b| format!("{b:02x}")).collect(),
        },
    })
}

/// The rows of `data` (as [`gather`] gives them) as text, `None` for a null.
pub fn rows_text(column: &Column, data: &ColumnData) -> Vec<Option<String>> {
    if column.max_def_level == 0 {
        return (0..data.values.len())
            .map(|i| value_text(&data.values, i))
            .collect();
    }
    let mut next = 0;
    data.def_levels
        .iter()
        .map(|&level| {
            (level == column.max_def_level).then(|| {
                next += 1;
                value_text(&data.values, next - 1).unwrap_or_default()
            })
        })
        .collect()
}
