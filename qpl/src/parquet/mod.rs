//! Parquet pages: a column chunk's dictionary page and data pages (v1 and v2), given as their
//! uncompressed bytes, decoded into definition levels, repetition levels and values.
//!
//! This module reads no file structure: a caller (the `parquet` crate's page reader, or its
//! own) hands it each page's body and the few header fields that say how to read it
//! ([`Page`]). It depends on no Parquet library.
//!
//! Which part of a page runs where:
//!
//! | page part | encodings | where |
//! |---|---|---|
//! | definition and repetition levels | RLE (hybrid) | the [`Path`]: a `parquet_rle` job on QPL/IAA, or the hybrid codec on the CPU |
//! | definition and repetition levels | BIT_PACKED | the [`Path`]: a `be_packed` job, or the bit-packed codec |
//! | dictionary indices | PLAIN_DICTIONARY, RLE_DICTIONARY | the [`Path`]: indices from a `parquet_rle` job, gathered on the CPU; or the fused decode-and-gather codec |
//! | booleans | RLE | the [`Path`]: a `parquet_rle` job of width 1, or the boolean hybrid codec |
//! | everything else | PLAIN, DELTA_*, BYTE_STREAM_SPLIT, dictionary pages | the CPU codecs ([`codecs`]) |
//!
//! On [`Path::Fallback`], and on [`Path::Auto`] where no accelerator is usable, the codecs run
//! directly (they are faster than a job's copy-and-widen). A section a job refuses as bad data
//! is decoded by the codec instead: QPL's parser refuses some valid Parquet (run headers of 5
//! bytes, its step-boundary 232), and for data that is really bad the codec's error is
//! reported, the same on every path. QPL's 225 on short bit-packed tails (D8 of
//! `docs/semantics.md`) is avoided by asking the job for a multiple of 8 values. Every
//! [`PageReport`] says which path really decoded each part.
//!
//! Memory: nothing is allocated from a header's count before it is checked — levels and
//! values against [`crate::Config::max_output_bytes`] (and against the bytes present, by the
//! codecs and jobs), byte arrays that can outgrow their page (repeated dictionary entries,
//! DELTA_BYTE_ARRAY prefixes) in batches that stop at that limit.
//!
//! ```
//! use qpl_rs::parquet::{ChunkDecoder, Column, ColumnData, Encoding, Page, PhysicalType, Values};
//! use qpl_rs::Path;
//!
//! // An OPTIONAL INT32 column: definition levels 0 (null) or 1.
//! let column = Column { physical_type: PhysicalType::Int32, max_def_level: 1, max_rep_level: 0 };
//! // A v2 page of 3 rows: levels [1, 0, 1] (a bit-packed run of 8), then PLAIN 7 and -1.
//! let mut body = vec![0x03, 0b101];
//! body.extend(7i32.to_le_bytes());
//! body.extend((-1i32).to_le_bytes());
//! let page = Page::V2 {
//!     buf: &body,
//!     num_values: 3,
//!     num_nulls: 1,
//!     encoding: Encoding::Plain,
//!     def_levels_byte_len: 2,
//!     rep_levels_byte_len: 0,
//! };
//! let mut decoder = ChunkDecoder::new(column, Path::Auto);
//! let mut data = ColumnData::new(&column);
//! let report = decoder.decode_page(&page, &mut data).unwrap();
//! assert_eq!((report.levels, report.values), (3, 2));
//! assert_eq!(data.def_levels, [1, 0, 1]);
//! assert_eq!(data.values, Values::Int32(vec![7, -1]));
//! ```

use std::fmt;

use crate::api::Stream;
use crate::error::{Error, Stage};
use crate::executor::{Executor, Route};
use crate::path::Path;
use compressed::Section;
pub use compressed::{Codec, CompressedPage, InflateRoute, PageCompression};
use qpl_fallback::{Operation, StatusKind};

#[cfg(all(feature = "parquet", feature = "arrow"))]
pub mod arrow;
pub mod compressed;
pub mod query;
#[cfg(test)]
mod tests;
#[cfg(feature = "parquet")]
mod thrift;
pub(crate) mod validity;
mod values;

/// The project's Parquet codecs (`qpl_fallback::parquet`): one module per encoding.
pub use qpl_fallback::parquet as codecs;
pub use qpl_fallback::parquet::{ByteArrays, ErrorKind, Int96, ParquetError, PhysicalType};
pub use validity::{ArrowPage, Bits, ValuesAt};
pub use values::{IndexStream, LevelStream};

/// Parquet's encodings, with the numbers of Parquet's Thrift `Encoding` enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// PLAIN (0).
    Plain,
    /// PLAIN_DICTIONARY (2): the dictionary encoding of Parquet 1 files.
    PlainDictionary,
    /// RLE (3): the RLE/bit-packing hybrid (levels, booleans).
    Rle,
    /// BIT_PACKED (4, deprecated): levels packed MSB first.
    BitPacked,
    /// DELTA_BINARY_PACKED (5).
    DeltaBinaryPacked,
    /// DELTA_LENGTH_BYTE_ARRAY (6).
    DeltaLengthByteArray,
    /// DELTA_BYTE_ARRAY (7).
    DeltaByteArray,
    /// RLE_DICTIONARY (8).
    RleDictionary,
    /// BYTE_STREAM_SPLIT (9).
    ByteStreamSplit,
}

impl Encoding {
    /// Every encoding, in the order of their numbers.
    pub const ALL: [Encoding; 9] = [
        Encoding::Plain,
        Encoding::PlainDictionary,
        Encoding::Rle,
        Encoding::BitPacked,
        Encoding::DeltaBinaryPacked,
        Encoding::DeltaLengthByteArray,
        Encoding::DeltaByteArray,
        Encoding::RleDictionary,
        Encoding::ByteStreamSplit,
    ];

    /// The encoding's number in Parquet's Thrift definition.
    pub fn number(self) -> i32 {
        match self {
            Encoding::Plain => 0,
            Encoding::PlainDictionary => 2,
            Encoding::Rle => 3,
            Encoding::BitPacked => 4,
            Encoding::DeltaBinaryPacked => 5,
            Encoding::DeltaLengthByteArray => 6,
            Encoding::DeltaByteArray => 7,
            Encoding::RleDictionary => 8,
            Encoding::ByteStreamSplit => 9,
        }
    }

    /// The encoding numbered `number`, if Parquet defines one (1, the long-gone GROUP_VAR_INT,
    /// is not one).
    pub fn from_i32(number: i32) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.number() == number)
    }

    /// The name as Parquet spells it (`"RLE_DICTIONARY"`).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Plain => "PLAIN",
            Encoding::PlainDictionary => "PLAIN_DICTIONARY",
            Encoding::Rle => "RLE",
            Encoding::BitPacked => "BIT_PACKED",
            Encoding::DeltaBinaryPacked => "DELTA_BINARY_PACKED",
            Encoding::DeltaLengthByteArray => "DELTA_LENGTH_BYTE_ARRAY",
            Encoding::DeltaByteArray => "DELTA_BYTE_ARRAY",
            Encoding::RleDictionary => "RLE_DICTIONARY",
            Encoding::ByteStreamSplit => "BYTE_STREAM_SPLIT",
        }
    }

    /// The encoding named `name` (see [`Encoding::name`]).
    pub fn from_name(name: &str) -> Option<Encoding> {
        Encoding::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether data pages of this encoding hold dictionary indices.
    pub fn is_dictionary(self) -> bool {
        matches!(self, Encoding::PlainDictionary | Encoding::RleDictionary)
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the decoder needs to know of a column (a leaf of the schema).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Column {
    /// The physical type (with FIXED_LEN_BYTE_ARRAY's length).
    pub physical_type: PhysicalType,
    /// The highest definition level (0: a required column, whose pages hold no definition
    /// levels).
    pub max_def_level: i16,
    /// The highest repetition level (0: not inside a list, no repetition levels).
    pub max_rep_level: i16,
}

/// One page of a column chunk: its uncompressed body and the header fields that say how to
/// read it (the names are those of Parquet's page headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page<'a> {
    /// The chunk's dictionary: `num_values` entries, PLAIN-encoded (`encoding` is PLAIN, or
    /// PLAIN_DICTIONARY as Parquet 1 writers label it).
    Dictionary {
        /// The page body.
        buf: &'a [u8],
        /// Dictionary entries.
        num_values: u32,
        /// The header's encoding.
        encoding: Encoding,
    },
    /// A data page v1: repetition levels, definition levels (each with a 4-byte length when
    /// RLE-encoded), then the values.
    V1 {
        /// The page body.
        buf: &'a [u8],
        /// Levels in the page (values, nulls included).
        num_values: u32,
        /// The values' encoding.
        encoding: Encoding,
        /// RLE or BIT_PACKED.
        def_level_encoding: Encoding,
        /// RLE or BIT_PACKED.
        rep_level_encoding: Encoding,
    },
    /// A data page v2: repetition levels, then definition levels (both RLE without a length
    /// prefix: the header gives their byte lengths), then the values.
    V2 {
        /// The page body (levels, then values; the values section decompressed).
        buf: &'a [u8],
        /// Levels in the page (values, nulls included).
        num_values: u32,
        /// Nulls in the page.
        num_nulls: u32,
        /// The values' encoding.
        encoding: Encoding,
        /// Bytes of definition levels.
        def_levels_byte_len: u32,
        /// Bytes of repetition levels (they come first).
        rep_levels_byte_len: u32,
    },
}

impl Page<'_> {
    /// `num_values` of the header.
    pub fn num_values(&self) -> u32 {
        match *self {
            Page::Dictionary { num_values, .. }
            | Page::V1 { num_values, .. }
            | Page::V2 { num_values, .. } => num_values,
        }
    }

    /// The encoding of the values (or of the dictionary).
    pub fn encoding(&self) -> Encoding {
        match *self {
            Page::Dictionary { encoding, .. }
            | Page::V1 { encoding, .. }
            | Page::V2 { encoding, .. } => encoding,
        }
    }
}

/// Decoded values of one physical type, appended to page after page.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// BOOLEAN.
    Boolean(Vec<bool>),
    /// INT32.
    Int32(Vec<i32>),
    /// INT64.
    Int64(Vec<i64>),
    /// INT96.
    Int96(Vec<Int96>),
    /// FLOAT.
    Float(Vec<f32>),
    /// DOUBLE.
    Double(Vec<f64>),
    /// BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY (every value of the latter has the type's length).
    Bytes(ByteArrays),
}

impl Values {
    /// No values, in the variant that holds `physical_type`.
    pub fn new(physical_type: PhysicalType) -> Values {
        match physical_type {
            PhysicalType::Boolean => Values::Boolean(Vec::new()),
            PhysicalType::Int32 => Values::Int32(Vec::new()),
            PhysicalType::Int64 => Values::Int64(Vec::new()),
            PhysicalType::Int96 => Values::Int96(Vec::new()),
            PhysicalType::Float => Values::Float(Vec::new()),
            PhysicalType::Double => Values::Double(Vec::new()),
            PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_) => {
                Values::Bytes(ByteArrays::new())
            }
        }
    }

    /// How many values.
    pub fn len(&self) -> usize {
        match self {
            Values::Boolean(v) => v.len(),
            Values::Int32(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Int96(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Double(v) => v.len(),
            Values::Bytes(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every value, keeping the capacity.
    pub fn clear(&mut self) {
        match self {
            Values::Boolean(v) => v.clear(),
            Values::Int32(v) => v.clear(),
            Values::Int64(v) => v.clear(),
            Values::Int96(v) => v.clear(),
            Values::Float(v) => v.clear(),
            Values::Double(v) => v.clear(),
            Values::Bytes(v) => v.clear(),
        }
    }

    /// Keeps the first `len` values (all when there are fewer).
    pub fn truncate(&mut self, len: usize) {
        match self {
            Values::Boolean(v) => v.truncate(len),
            Values::Int32(v) => v.truncate(len),
            Values::Int64(v) => v.truncate(len),
            Values::Int96(v) => v.truncate(len),
            Values::Float(v) => v.truncate(len),
            Values::Double(v) => v.truncate(len),
            Values::Bytes(v) if len < v.len() => {
                v.values.truncate(v.offsets[len] as usize);
                v.offsets.truncate(len + 1);
            }
            Values::Bytes(_) => {}
        }
    }

    /// Whether this variant holds `physical_type`.
    pub fn holds(&self, physical_type: PhysicalType) -> bool {
        matches!(
            (self, physical_type),
            (Values::Boolean(_), PhysicalType::Boolean)
                | (Values::Int32(_), PhysicalType::Int32)
                | (Values::Int64(_), PhysicalType::Int64)
                | (Values::Int96(_), PhysicalType::Int96)
                | (Values::Float(_), PhysicalType::Float)
                | (Values::Double(_), PhysicalType::Double)
                | (
                    Values::Bytes(_),
                    PhysicalType::ByteArray | PhysicalType::FixedLenByteArray(_)
                )
        )
    }
}

/// A column's decoded levels and values, appended to by each page (reuse one across pages and
/// chunks; [`ColumnData::clear`] keeps the buffers).
///
/// Levels are stored only for a column that has them: `def_levels` stays empty when
/// `max_def_level` is 0 (every value is present), `rep_levels` when `max_rep_level` is 0 (as
/// the `parquet` crate's readers do). Otherwise there is one level per page value, nulls
/// included, and `values` holds the non-null values only.
#[derive(Clone, Debug, PartialEq)]
pub struct ColumnData {
    /// Definition levels.
    pub def_levels: Vec<i16>,
    /// Repetition levels.
    pub rep_levels: Vec<i16>,
    /// Non-null values.
    pub values: Values,
}

impl ColumnData {
    /// Empty data for `column`.
    pub fn new(column: &Column) -> ColumnData {
        ColumnData {
            def_levels: Vec::new(),
            rep_levels: Vec::new(),
            values: Values::new(column.physical_type),
        }
    }

    /// Removes everything, keeping the capacity.
    pub fn clear(&mut self) {
        self.def_levels.clear();
        self.rep_levels.clear();
        self.values.clear();
    }
}

/// What one page gave, and where each part was decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageReport {
    /// Levels the page held (its `num_values`; for a dictionary page, its entries).
    pub levels: usize,
    /// Values decoded (non-null values; for a dictionary page, its entries).
    pub values: usize,
    /// The path that decoded the definition levels (`None`: the page has none).
    pub def_levels_path: Option<Path>,
    /// The path that decoded the repetition levels (`None`: the page has none).
    pub rep_levels_path: Option<Path>,
    /// The path that decoded the dictionary indices or RLE booleans of the values (the job's
    /// path, or [`Path::Fallback`] for the codecs); `None` when the values need no path (PLAIN,
    /// DELTA_*, BYTE_STREAM_SPLIT, a dictionary page: the CPU codecs decode them) or there are
    /// none.
    pub values_path: Option<Path>,
    /// For a compressed page ([`ChunkDecoder::decode_compressed_page`]): where it was
    /// inflated (in the values' job, or on the CPU first); `None` for an uncompressed page.
    pub inflate: Option<InflateRoute>,
}

impl PageReport {
    /// The path of the page as a whole: the accelerator (or QPL's software path) when any
    /// part ran there, else [`Path::Fallback`].
    pub fn path(&self) -> Path {
        self.routed_path().unwrap_or(Path::Fallback)
    }

    /// Like [`PageReport::path`], but `None` when the page had no part a path runs (no
    /// levels, no dictionary indices, no RLE booleans): everything ran on the CPU codecs.
    pub fn routed_path(&self) -> Option<Path> {
        let parts = [self.rep_levels_path, self.def_levels_path, self.values_path];
        let mut ran = parts.into_iter().flatten();
        let first = ran.next()?;
        Some(
            ran.chain([first])
                .find(|&p| p != Path::Fallback)
                .unwrap_or(Path::Fallback),
        )
    }
}

/// The part of a page an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PagePart {
    /// The page as a whole (its header fields, its layout).
    Page,
    /// The definition levels.
    DefLevels,
    /// The repetition levels.
    RepLevels,
    /// The values (or dictionary indices) of a data page.
    Values,
    /// The dictionary page.
    Dictionary,
}

impl PagePart {
    /// `page`, `definition levels`, `repetition levels`, `values` or `dictionary`.
    pub fn name(self) -> &'static str {
        match self {
            PagePart::Page => "page",
            PagePart::DefLevels => "definition levels",
            PagePart::RepLevels => "repetition levels",
            PagePart::Values => "values",
            PagePart::Dictionary => "dictionary",
        }
    }
}

impl fmt::Display for PagePart {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a page part could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PageErrorKind {
    /// A codec rejected the data.
    Codec(ParquetError),
    /// A QPL job (or its pure-Rust model) rejected the data or could not run.
    Job(Error),
    /// The combination is not one Parquet defines (an encoding for a type it does not
    /// support, a dictionary page of booleans...).
    Unsupported(String),
    /// The page contradicts itself or its column (counts that disagree, a level above the
    /// column's maximum, a length past the page, a dictionary-encoded page with no
    /// dictionary...).
    Invalid(String),
}

/// An error decoding a page: which part, in which encoding, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageError {
    /// The page part.
    pub part: PagePart,
    /// Its encoding, when the error is about one.
    pub encoding: Option<Encoding>,
    /// What went wrong.
    pub kind: PageErrorKind,
}

impl PageError {
    fn invalid(part: PagePart, encoding: Option<Encoding>, message: impl Into<String>) -> Self {
        PageError {
            part,
            encoding,
            kind: PageErrorKind::Invalid(message.into()),
        }
    }

    fn unsupported(part: PagePart, encoding: Encoding, message: impl Into<String>) -> Self {
        PageError {
            part,
            encoding: Some(encoding),
            kind: PageErrorKind::Unsupported(message.into()),
        }
    }

    fn codec(part: PagePart, encoding: Encoding, error: ParquetError) -> Self {
        PageError {
            part,
            encoding: Some(encoding),
            kind: PageErrorKind::Codec(error),
        }
    }

    fn job(part: PagePart, encoding: Encoding, error: Error) -> Self {
        PageError {
            part,
            encoding: Some(encoding),
            kind: PageErrorKind::Job(error),
        }
    }
}

impl fmt::Display for PageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.part.name())?;
        if let Some(encoding) = self.encoding {
            write!(f, " ({encoding})")?;
        }
        match &self.kind {
            PageErrorKind::Codec(e) => write!(f, ": {e}"),
            PageErrorKind::Job(e) => write!(f, ": {e}"),
            PageErrorKind::Unsupported(m) => write!(f, ": not supported: {m}"),
            PageErrorKind::Invalid(m) => write!(f, ": {m}"),
        }
    }
}

impl std::error::Error for PageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            PageErrorKind::Codec(e) => Some(e),
            PageErrorKind::Job(e) => Some(e),
            _ => None,
        }
    }
}

/// A data page's levels as split from it: repetition and definition levels (encoding and
/// bytes; `None` where the column has none), their count, a v2 header's null count.
type DataPageLevels<'a> = (
    Option<(Encoding, &'a [u8])>,
    Option<(Encoding, &'a [u8])>,
    u32,
    Option<u32>,
);

/// Levels decoded per batch on the CPU path: the scratch stays small and in L1.
const LEVEL_BATCH: usize = 4096;

/// Decodes the pages of one column chunk, in order: the dictionary page (if any) first, then
/// the data pages. Keeps the dictionary and scratch buffers between pages; create one per
/// column (and [`ChunkDecoder::reset`] it between chunks, or make a new one).
#[derive(Debug)]
pub struct ChunkDecoder {
    column: Column,
    executor: Executor,
    /// Run the level/index/boolean parts as jobs through the executor (QPL paths), rather than
    /// on the codecs directly.
    use_jobs: bool,
    /// The chunk's dictionary, once its page was decoded.
    dictionary: Option<Values>,
    /// The longest entry of a byte-array dictionary: what one value may add to a page.
    dictionary_max_len: usize,
    /// A stream with its width byte put in front (levels and booleans carry none).
    stream: Vec<u8>,
    /// Levels, indices or booleans as the codecs produce them, one batch at a time.
    scratch: Vec<u32>,
    /// GZIP pages: decode in one decompress-enabled job where the encoding allows it (by
    /// default where jobs run on the accelerator; see [`ChunkDecoder::with_one_job`]).
    one_job: bool,
}

impl ChunkDecoder {
    /// A decoder for `column` whose levels, indices and booleans run on `path` (default
    /// settings; see [`ChunkDecoder::with_executor`]).
    pub fn new(column: Column, path: Path) -> ChunkDecoder {
        ChunkDecoder::with_executor(column, Executor::new(path))
    }

    /// A decoder whose jobs run on `executor` (its path, and its `max_output_bytes`, which
    /// also bounds what one page may decode on the CPU path).
    pub fn with_executor(column: Column, executor: Executor) -> ChunkDecoder {
        // A route that fails (a path not available here) is a job route: the first page then
        // reports the executor's error, which says why.
        let route = executor.route(Operation::Extract);
        let use_jobs = !matches!(route, Ok(Route::Fallback));
        // Inflate-and-decode in one job is the accelerator's strength; on the CPU (the fallback,
        // and QPL's software path, which runs the fallback first, DZ10) inflating first and
        // decoding with the fused codecs is faster (docs/decompress.md, DZP7).
        let one_job = matches!(route, Ok(Route::Hardware));
        ChunkDecoder {
            column,
            executor,
            use_jobs,
            dictionary: None,
            dictionary_max_len: 0,
            stream: Vec::new(),
            scratch: Vec::new(),
            one_job,
        }
    }

    /// Runs the level, index and boolean parts as jobs through the executor even where the
    /// codecs would run them directly (the fallback path: then `qpl_fallback`'s model of QPL
    /// runs the jobs). For tests of the job code on hosts without an accelerator.
    #[doc(hidden)]
    pub fn force_jobs(mut self) -> ChunkDecoder {
        self.use_jobs = true;
        self
    }

    /// The column.
    pub fn column(&self) -> &Column {
        &self.column
    }

    /// The executor.
    pub fn executor(&self) -> &Executor {
        &self.executor
    }

    /// The dictionary decoded from this chunk's dictionary page, if one was.
    pub fn dictionary(&self) -> Option<&Values> {
        self.dictionary.as_ref()
    }

    /// Forgets the dictionary, for the next column chunk.
    pub fn reset(&mut self) {
        self.dictionary = None;
        self.dictionary_max_len = 0;
    }

    /// Decodes `page`, appending its levels and values to `out` (whose values must be of the
    /// column's type, as [`ColumnData::new`] makes them). On error, `out` is left as it was.
    pub fn decode_page(
        &mut self,
        page: &Page<'_>,
        out: &mut ColumnData,
    ) -> Result<PageReport, PageError> {
        self.decode_page_into(page, out, None)
    }

    /// [`ChunkDecoder::decode_page`], except that a dictionary-encoded data page's values are
    /// not looked up: its indices (one per value present) replace what `indices` held and
    /// `out.values` is left as it was, for a reader that gathers only some of them (the rows a
    /// filter selected). The indices are not checked against the dictionary: the reader checks
    /// those it gathers. Returns whether the page's indices were kept (`false`: a dictionary
    /// page, or a data page of another encoding, decoded as `decode_page` decodes it). On
    /// error, `out` is left as it was and `indices` is emptied.
    pub fn decode_page_keeping_indices(
        &mut self,
        page: &Page<'_>,
        out: &mut ColumnData,
        indices: &mut Vec<u32>,
    ) -> Result<(PageReport, bool), PageError> {
        let kept = !matches!(page, Page::Dictionary { .. }) && page.encoding().is_dictionary();
        self.decode_page_into(page, out, Some(&mut *indices))
            .inspect_err(|_| indices.clear())
            .map(|report| (report, kept))
    }

    /// The checks before a page, then the page (`indices`: see
    /// [`ChunkDecoder::decode_page_parts`]); on error, `out` is left as it was.
    fn decode_page_into(
        &mut self,
        page: &Page<'_>,
        out: &mut ColumnData,
        indices: Option<&mut Vec<u32>>,
    ) -> Result<PageReport, PageError> {
        self.check_page_prelude(out)?;
        let before = (out.def_levels.len(), out.rep_levels.len(), out.values.len());
        let result = self.decode_page_parts(page, out, indices);
        if result.is_err() {
            out.def_levels.truncate(before.0);
            out.rep_levels.truncate(before.1);
            out.values.truncate(before.2);
        }
        result
    }

    /// The checks before any page: the output fits the column, and the kernel tier can run.
    fn check_page_prelude(&self, out: &ColumnData) -> Result<(), PageError> {
        self.check_column(out)?;
        // The codecs run this process's kernel tier; one forced by QPL_FALLBACK_KERNELS that
        // cannot run here fails every page, as it fails every job, instead of the page being
        // decoded quietly by another tier.
        if let Err(tier) = qpl_fallback::kernel_tier() {
            return Err(PageError {
                part: PagePart::Page,
                encoding: None,
                kind: PageErrorKind::Job(Error {
                    operation: Operation::Extract,
                    status: tier.status(),
                    path: Path::Fallback,
                    requested: self.executor.config().path,
                    stage: Stage::Route,
                    message: tier.to_string(),
                }),
            });
        }
        Ok(())
    }

    /// `indices`: where a dictionary-encoded data page's indices go instead of being looked up
    /// ([`ChunkDecoder::decode_page_keeping_indices`]).
    fn decode_page_parts(
        &mut self,
        page: &Page<'_>,
        out: &mut ColumnData,
        indices: Option<&mut Vec<u32>>,
    ) -> Result<PageReport, PageError> {
        match *page {
            Page::Dictionary {
                buf,
                num_values,
                encoding,
            } => self.decode_dictionary_page(buf, num_values, encoding),
            Page::V1 {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
            } => {
                let mut rest = buf;
                let rep = self.split_v1_levels(
                    &mut rest,
                    PagePart::RepLevels,
                    self.column.max_rep_level,
                    rep_level_encoding,
                    num_values,
                )?;
                let def = self.split_v1_levels(
                    &mut rest,
                    PagePart::DefLevels,
                    self.column.max_def_level,
                    def_level_encoding,
                    num_values,
                )?;
                let values = Section::Plain(rest);
                let levels = (rep, def, num_values, None);
                self.decode_data_page(levels, values, encoding, out, indices)
            }
            Page::V2 {
                buf,
                num_values,
                num_nulls,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
            } => self.decode_v2(
                buf,
                num_values,
                num_nulls,
                encoding,
                (def_levels_byte_len, rep_levels_byte_len),
                None,
                out,
                indices,
            ),
        }
    }

    /// A list page's parts (a column of one repetition level) to be decoded a piece at a time
    /// where this decoder decodes on the CPU: `None` where a QPL job decodes, for a dictionary
    /// page, and for a data page whose values are not dictionary-encoded or whose levels are
    /// BIT_PACKED (decode those with [`ChunkDecoder::decode_page`]). The sections' bounds and
    /// widths are checked now; the levels and indices as they are decoded.
    pub fn list_page_streams(&self, page: &Page<'_>) -> Result<Option<ListPageStreams>, PageError> {
        let column = self.column;
        if self.use_jobs || column.max_rep_level != 1 || column.max_def_level < 1 {
            return Ok(None);
        }
        let (buf, num_values, encoding, num_nulls, rep, def) = match *page {
            Page::Dictionary { .. } => return Ok(None),
            Page::V1 {
                buf,
                num_values,
                encoding,
                def_level_encoding,
                rep_level_encoding,
            } => {
                if (rep_level_encoding, def_level_encoding) != (Encoding::Rle, Encoding::Rle) {
                    return Ok(None);
                }
                let mut rest = buf;
                let mut section = |part, max_level| {
                    let levels = self.split_v1_levels(
                        &mut rest,
                        part,
                        max_level,
                        Encoding::Rle,
                        num_values,
                    )?;
                    let len = levels.map_or(0, |(_, bytes)| bytes.len());
                    let end = buf.len() - rest.len();
                    Ok::<_, PageError>(end - len..end)
                };
                let rep = section(PagePart::RepLevels, column.max_rep_level)?;
                let def = section(PagePart::DefLevels, column.max_def_level)?;
                (buf, num_values, encoding, None, rep, def)
            }
            Page::V2 {
                buf,
                num_values,
                num_nulls,
                encoding,
                def_levels_byte_len,
                rep_levels_byte_len,
            } => {
                let (rep, def) =
                    v2_level_ranges(buf.len(), rep_levels_byte_len, def_levels_byte_len)?;
                (buf, num_values, encoding, Some(num_nulls), rep, def)
            }
        };
        if !encoding.is_dictionary() {
            return Ok(None);
        }
        let n = num_values as usize;
        let values = def.end..buf.len();
        let rep_levels = LevelStream::new(
            PagePart::RepLevels,
            &buf[rep.clone()],
            column.max_rep_level,
            n,
        )?;
        let def_levels = LevelStream::new(
            PagePart::DefLevels,
            &buf[def.clone()],
            column.max_def_level,
            n,
        )?;
        // The values present are not known before the levels are decoded: the page's levels
        // bound them. A page without values may have no values section at all.
        let indices = match values.is_empty() {
            true => None,
            false => self.dictionary_index_stream(encoding, &buf[values.clone()], n)?,
        };
        Ok(Some(ListPageStreams {
            rep: (rep_levels, rep),
            def: (def_levels, def),
            indices: indices.map(|stream| (stream, values)),
            levels: n,
            num_nulls,
            encoding,
        }))
    }

    /// A v2 page: its levels, then its values section, uncompressed (`gzip` `None`) or a
    /// gzip stream (`Some(expected inflated size)`).
    #[allow(clippy::too_many_arguments)]
    fn decode_v2(
        &mut self,
        buf: &[u8],
        num_values: u32,
        num_nulls: u32,
        encoding: Encoding,
        (def_levels_byte_len, rep_levels_byte_len): (u32, u32),
        gzip: Option<Option<u32>>,
        out: &mut ColumnData,
        indices: Option<&mut Vec<u32>>,
    ) -> Result<PageReport, PageError> {
        let (rep, def) = v2_level_ranges(buf.len(), rep_levels_byte_len, def_levels_byte_len)?;
        let values = &buf[def.end..];
        let (rep, def) = (&buf[rep], &buf[def]);
        let rep = v2_levels(rep, self.column.max_rep_level);
        let def = v2_levels(def, self.column.max_def_level);
        let values = match gzip {
            None => Section::Plain(values),
            Some(expected) => Section::Gzip(values, expected),
        };
        let levels = (rep, def, num_values, Some(num_nulls));
        self.decode_data_page(levels, values, encoding, out, indices)
    }

    fn check_column(&self, out: &ColumnData) -> Result<(), PageError> {
        let column = &self.column;
        if column.max_def_level < 0 || column.max_rep_level < 0 {
            return Err(PageError::invalid(
                PagePart::Page,
                None,
                format!(
                    "the column's max_def_level {} and max_rep_level {} must not be negative",
                    column.max_def_level, column.max_rep_level
                ),
            ));
        }
        if let PhysicalType::FixedLenByteArray(0) = column.physical_type {
            return Err(PageError::invalid(
                PagePart::Page,
                None,
                "a FIXED_LEN_BYTE_ARRAY column needs a type length above 0",
            ));
        }
        if !out.values.holds(column.physical_type) {
            return Err(PageError::invalid(
                PagePart::Values,
                None,
                format!(
                    "the output holds other values than the column's {} (make it with \
                     ColumnData::new)",
                    column.physical_type.name()
                ),
            ));
        }
        Ok(())
    }

    /// Takes a v1 page's levels of one kind off the front of `rest`: `None` when the column
    /// has none.
    fn split_v1_levels<'a>(
        &self,
        rest: &mut &'a [u8],
        part: PagePart,
        max_level: i16,
        encoding: Encoding,
        num_values: u32,
    ) -> Result<Option<(Encoding, &'a [u8])>, PageError> {
        if max_level == 0 {
            return Ok(None);
        }
        let len = match encoding {
            Encoding::Rle => {
                let Some((prefix, body)) = rest.split_first_chunk::<4>() else {
                    return Err(PageError::invalid(
                        part,
                        Some(encoding),
                        format!(
                            "the 4-byte length is missing: {} bytes left in the page",
                            rest.len()
                        ),
                    ));
                };
                let len = u32::from_le_bytes(*prefix) as usize;
                if len > body.len() {
                    return Err(PageError::invalid(
                        part,
                        Some(encoding),
                        format!(
                            "the length prefix says {len} bytes, but {} are left in the page",
                            body.len()
                        ),
                    ));
                }
                *rest = body;
                len
            }
            Encoding::BitPacked => {
                let bits = u64::from(num_values) * u64::from(level_width(max_level));
                let len = bits.div_ceil(8);
                if len > rest.len() as u64 {
                    return Err(PageError::invalid(
                        part,
                        Some(encoding),
                        format!(
                            "{num_values} levels of {} bits take {len} bytes, but {} are left \
                             in the page",
                            level_width(max_level),
                            rest.len()
                        ),
                    ));
                }
                len as usize
            }
            other => {
                return Err(PageError::unsupported(
                    part,
                    other,
                    "levels are RLE or BIT_PACKED",
                ))
            }
        };
        let (levels, after) = rest.split_at(len);
        *rest = after;
        Ok(Some((encoding, levels)))
    }

    /// A data page: its levels (repetition, definition, how many, a v2 header's null count),
    /// then its values section (`indices`: see [`ChunkDecoder::decode_page_parts`]).
    fn decode_data_page(
        &mut self,
        (rep, def, num_values, num_nulls): DataPageLevels<'_>,
        values: Section<'_>,
        encoding: Encoding,
        out: &mut ColumnData,
        indices: Option<&mut Vec<u32>>,
    ) -> Result<PageReport, PageError> {
        let n = num_values as usize;
        let limit = self.executor.config().max_output_bytes as u64;
        if u64::from(num_values) * 2 > limit {
            return Err(PageError::invalid(
                PagePart::Page,
                None,
                format!(
                    "num_values {num_values}: its levels would take more than this executor's \
                     limit of {limit} bytes (Config::max_output_bytes)"
                ),
            ));
        }
        let rep_levels_path = match rep {
            Some((level_encoding, bytes)) => Some(self.decode_levels(
                PagePart::RepLevels,
                level_encoding,
                bytes,
                self.column.max_rep_level,
                n,
                &mut out.rep_levels,
            )?),
            None => None,
        };
        let (def_levels_path, present) = match def {
            Some((level_encoding, bytes)) => {
                let (path, present) = self.decode_levels_counted(
                    PagePart::DefLevels,
                    level_encoding,
                    bytes,
                    self.column.max_def_level,
                    n,
                    &mut out.def_levels,
                )?;
                (Some(path), present)
            }
            None => (None, n),
        };
        validity::check_num_nulls(num_values, num_nulls, present)?;
        let (values_path, inflate) = match (indices, values) {
            (Some(indices), Section::Plain(section)) if encoding.is_dictionary() => {
                let path =
                    self.decode_dictionary_indices_only(encoding, section, present, indices)?;
                (Some(path).filter(|_| present > 0), None)
            }
            (_, values) => self.decode_section(encoding, values, present, &mut out.values)?,
        };
        Ok(PageReport {
            levels: n,
            values: present,
            def_levels_path,
            rep_levels_path,
            values_path,
            inflate,
        })
    }

    /// Appends `n` levels (0..=`max_level`) decoded from `bytes` to `out`.
    fn decode_levels(
        &mut self,
        part: PagePart,
        encoding: Encoding,
        bytes: &[u8],
        max_level: i16,
        n: usize,
        out: &mut Vec<i16>,
    ) -> Result<Path, PageError> {
        self.decode_levels_counted(part, encoding, bytes, max_level, n, out)
            .map(|(path, _)| path)
    }

    /// [`ChunkDecoder::decode_levels`], and how many of the levels are `max_level` (for
    /// definition levels: the values present), counted as they are appended.
    fn decode_levels_counted(
        &mut self,
        part: PagePart,
        encoding: Encoding,
        bytes: &[u8],
        max_level: i16,
        n: usize,
        out: &mut Vec<i16>,
    ) -> Result<(Path, usize), PageError> {
        if n == 0 {
            return Ok((Path::Fallback, 0));
        }
        let width = level_width(max_level);
        if self.use_jobs {
            let stream = match encoding {
                Encoding::Rle => {
                    self.stream.clear();
                    self.stream.push(width as u8);
                    self.stream.extend_from_slice(bytes);
                    Stream::parquet_rle(&self.stream)
                }
                _ => Stream::be_packed(bytes, width),
            };
            match decode_job::<u16>(&self.executor, &stream, n as u32) {
                Ok((levels, output)) => {
                    let at_max = append_levels(part, encoding, &levels, 0, max_level, out)?;
                    return Ok((output.path, at_max));
                }
                // Data the job refused: the codec decides (see `codec_decides`).
                Err(e) if codec_decides(&e) => {}
                Err(e) => return Err(PageError::job(part, encoding, e)),
            }
        }
        let at_max = values::decode_levels_on_cpu(self, part, encoding, bytes, max_level, n, out)?;
        Ok((Path::Fallback, at_max))
    }

    fn decode_dictionary_page(
        &mut self,
        buf: &[u8],
        num_values: u32,
        encoding: Encoding,
    ) -> Result<PageReport, PageError> {
        if !matches!(encoding, Encoding::Plain | Encoding::PlainDictionary) {
            return Err(PageError::unsupported(
                PagePart::Dictionary,
                encoding,
                "a dictionary page is PLAIN (or PLAIN_DICTIONARY)",
            ));
        }
        if self.dictionary.is_some() {
            return Err(PageError::invalid(
                PagePart::Dictionary,
                Some(encoding),
                "a second dictionary page in the column chunk",
            ));
        }
        if self.column.physical_type == PhysicalType::Boolean {
            return Err(PageError::unsupported(
                PagePart::Dictionary,
                encoding,
                "BOOLEAN columns have no dictionary",
            ));
        }
        let mut dictionary = Values::new(self.column.physical_type);
        values::decode_plain(
            &self.column,
            PagePart::Dictionary,
            encoding,
            buf,
            num_values as usize,
            &mut dictionary,
        )?;
        let entries = dictionary.len();
        if let Values::Bytes(arrays) = &dictionary {
            self.dictionary_max_len = arrays
                .offsets
                .windows(2)
                .map(|w| (w[1] - w[0]) as usize)
                .max()
                .unwrap_or(0);
        }
        self.dictionary = Some(dictionary);
        Ok(PageReport {
            levels: entries,
            values: entries,
            def_levels_path: None,
            rep_levels_path: None,
            values_path: None,
            inflate: None,
        })
    }
}

/// A v2 page's levels of one kind: `None` when the column has none. The header's byte length
/// places the section whatever the column, and the bytes of a kind of level the column does
/// not have (its maximum level 0) are skipped unread, as arrow-rs
/// (`parquet/src/column/reader.rs`) and parquet-mr do: some writers put an RLE run of zeros
/// there (`docs/parquet-encodings.md`, "Levels and nulls").
fn v2_levels(bytes: &[u8], max_level: i16) -> Option<(Encoding, &[u8])> {
    (max_level > 0).then_some((Encoding::Rle, bytes))
}

/// [`Executor::decode`], with a way around QPL's D8 (`docs/semantics.md`): QPL answers 225 when
/// it meets a bit-packed run with fewer than 8 values still wanted in one of its internal
/// steps (a page of fewer than 8 values, or the tail of a longer one), although the stream is
/// valid. Steps are multiples of 8 values, so asking for `n` rounded up to a multiple of 8
/// never leaves fewer than 8 wanted; bit-packed runs hold whole groups of 8, so the stream
/// usually has them. The first `n` values are kept; when the stream does not hold the extra
/// values, the first error is returned (and the codec decodes the section).
fn decode_job<T: crate::Element>(
    executor: &Executor,
    stream: &Stream<'_>,
    n: u32,
) -> Result<(Vec<T>, crate::Output), Error> {
    match executor.decode::<T>(stream, n) {
        Err(e)
            if e.status == crate::Status::DST_IS_SHORT_ERR
                && stream.parser == crate::Parser::PARQUET_RLE =>
        {
            let Some(wide) = n.checked_next_multiple_of(8).filter(|&w| w != n) else {
                return Err(e);
            };
            match executor.decode::<T>(stream, wide) {
                Ok((mut values, output)) => {
                    values.truncate(n as usize);
                    Ok((values, output))
                }
                Err(_) => Err(e),
            }
        }
        other => other,
    }
}

/// Whether a job's error is about the data, so that the codec decodes the section instead:
/// QPL's parser refuses some valid Parquet (run headers of 5 bytes; a bit-packed run met with
/// fewer than 8 values wanted at one of its internal step boundaries, 225 — D8 in
/// `docs/semantics.md`), and where the data really is bad the codec's error is the one
/// reported, the same on every path. Errors that are not about the data (a path that cannot
/// run, a device fault) are reported as they are.
fn codec_decides(error: &Error) -> bool {
    matches!(
        error.status.kind(),
        StatusKind::InvalidInput | StatusKind::OutputOverflow
    )
}

/// Where a v2 page's repetition and definition levels are in its `len` bytes (its values
/// section follows them), checked to be within them.
fn v2_level_ranges(
    len: usize,
    rep_levels_byte_len: u32,
    def_levels_byte_len: u32,
) -> Result<(std::ops::Range<usize>, std::ops::Range<usize>), PageError> {
    let (rep_len, def_len) = (rep_levels_byte_len as usize, def_levels_byte_len as usize);
    if rep_len.saturating_add(def_len) > len {
        return Err(PageError::invalid(
            PagePart::Page,
            None,
            format!(
                "rep_levels_byte_len {rep_len} + def_levels_byte_len {def_len} pass the \
                 page's {len} bytes"
            ),
        ));
    }
    Ok((0..rep_len, rep_len..rep_len + def_len))
}

/// A list page's repetition and definition levels and dictionary indices, each decoded a
/// piece at a time from its bytes, which are the page buffer's at the range beside it
/// ([`ChunkDecoder::list_page_streams`]).
#[derive(Debug)]
pub struct ListPageStreams {
    /// The repetition levels.
    pub rep: (LevelStream, std::ops::Range<usize>),
    /// The definition levels.
    pub def: (LevelStream, std::ops::Range<usize>),
    /// The dictionary indices (`None`: the page has no values section, so no value may be
    /// present).
    pub indices: Option<(IndexStream, std::ops::Range<usize>)>,
    /// The page's levels.
    pub levels: usize,
    /// A v2 header's null count.
    pub num_nulls: Option<u32>,
    /// The values' encoding.
    pub encoding: Encoding,
}

impl ListPageStreams {
    /// The checks once every level is decoded: the values present (`present`) agree with a
    /// v2 header's null count.
    pub fn check_end(&self, present: usize) -> Result<(), PageError> {
        // The page's levels came from a u32.
        validity::check_num_nulls(self.levels as u32, self.num_nulls, present)
    }
}

/// Bits a level of at most `max_level` (≥ 0) takes: 0 for 0, 1 for 1, 2 for 2..=3...
pub fn level_width(max_level: i16) -> u32 {
    16 - (max_level.max(0) as u16).leading_zeros()
}

/// Appends `levels` to `out` after checking them against `max_level` (a level above it is
/// corrupt data; arrow-rs would read past its nesting); returns how many are `max_level`.
fn append_levels<L: Copy + Into<u32>>(
    part: PagePart,
    encoding: Encoding,
    levels: &[L],
    first: usize,
    max_level: i16,
    out: &mut Vec<i16>,
) -> Result<usize, PageError> {
    // One pass for the maximum and the count of `max_level` (vectorised; 32-bit lanes, which
    // a batch cannot overflow: LEVEL_BATCH levels, or a job's at most u32::MAX), then the
    // conversion.
    let max = max_level.max(0) as u32;
    let (highest, at_max) = levels.iter().fold((0u32, 0u32), |(high, count), &l| {
        let l = l.into();
        (high.max(l), count + u32::from(l == max))
    });
    if highest > max {
        let at = levels.iter().position(|&l| l.into() > max).unwrap_or(0);
        return Err(PageError::invalid(
            part,
            Some(encoding),
            format!(
                "level {} of the page is {}, above the column's maximum {max_level}",
                first + at,
                levels[at].into()
            ),
        ));
    }
    out.extend(levels.iter().map(|&l| l.into() as i16));
    Ok(at_max as usize)
}
