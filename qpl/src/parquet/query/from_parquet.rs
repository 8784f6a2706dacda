//! Pages from the `parquet` crate's readers (feature `parquet`): a column chunk read by name
//! from a row group, as the [`ColumnChunk`] [`filter`](super::filter) and
//! [`gather`](super::gather) take.

use std::io::Read;
use std::sync::Arc;

use bytes::Bytes;
use parquet::basic::{Compression, Type as PqType};
use parquet::column::page::{Page as CratePage, PageReader};
use parquet::errors::ParquetError;
use parquet::file::metadata::{ColumnChunkMetaData, ParquetMetaData};
use parquet::file::reader::{ChunkReader, Length, RowGroupReader};
use parquet::file::serialized_reader::SerializedPageReader;
use parquet::schema::types::{ColumnDescriptor, SchemaDescriptor};

use super::{ColumnChunk, QueryError, QueryErrorKind};
use crate::parquet::{Codec, Column, Encoding, Page, PageCompression, PhysicalType};

/// The footer metadata of a Parquet file, as the `parquet` crate decodes it, from footers the
/// crate refuses but pyarrow reads too: a known field written with another type than the
/// format's is skipped, as Arrow C++ skips it (Dremio's `ColumnMetaData` field 15, a list of
/// structs where the format has an i32: "Expected list element type of I64 but got I16" from
/// the crate, read here). `qpl-parquet verify` opens files with it; the Arrow reader's builder
/// decodes the same repair with its own options and page-index policy (`arrow::`'s
/// `try_new_with_options`).
pub fn read_metadata<R: ChunkReader>(reader: &R) -> Result<ParquetMetaData, ParquetError> {
    use crate::parquet::thrift::{repair_footer, Footer};
    use parquet::file::metadata::ParquetMetaDataReader;
    match repair_footer(reader)? {
        Footer::AsIs(bytes) => ParquetMetaDataReader::decode_metadata(&bytes),
        Footer::Repaired(bytes) => ParquetMetaDataReader::decode_metadata(&bytes),
        Footer::Unread => ParquetMetaDataReader::new().parse_and_finish(reader),
    }
}

/// A column chunk's pages as the `parquet` crate read them (decompressed), with the column's
/// name and [`Column`].
#[derive(Clone)]
pub struct ChunkPages {
    /// The column's dotted path.
    pub name: String,
    /// The column.
    pub column: Column,
    /// The pages in order.
    pub pages: Vec<CratePage>,
    /// How each page is stored (empty: all decompressed, as [`ChunkPages::read`] gives them;
    /// [`ChunkPages::read_stored`] keeps GZIP pages compressed).
    pub compression: Vec<PageCompression>,
}

impl ChunkPages {
    /// Reads the chunk of the column called `name` (its dotted path, or a top-level field
    /// with one leaf) from `row_group`.
    pub fn read(row_group: &dyn RowGroupReader, name: &str) -> Result<ChunkPages, QueryError> {
        let error = |page, message: String| QueryError {
            column: name.to_string(),
            page,
            kind: QueryErrorKind::Invalid(message),
        };
        let schema = row_group.metadata().schema_descr();
        let index = leaf_index(schema, name).map_err(|m| error(None, m))?;
        let descr = schema.column(index);
        let column = column_of(&descr).map_err(|m| error(None, m))?;
        let mut reader = row_group
            .get_column_page_reader(index)
            .map_err(|e| error(None, e.to_string()))?;
        let pages = read_pages(reader.as_mut(), |_| {}).map_err(|(at, m)| error(Some(at), m))?;
        Ok(ChunkPages {
            name: descr.path().string(),
            column,
            pages,
            compression: Vec::new(),
        })
    }

    /// Reads the chunk of the column called `name` from row group `row_group` of the file
    /// `reader` holds (whose footer is `metadata`), keeping GZIP pages as they are stored
    /// (see [`stored_page_reader`]): [`filter`](super::filter) then scans them in
    /// decompress-enabled jobs. A chunk of another codec is decompressed by the `parquet`
    /// crate's reader, as [`ChunkPages::read`] does.
    pub fn read_stored<R: ChunkReader + 'static>(
        reader: Arc<R>,
        metadata: &ParquetMetaData,
        row_group: usize,
        name: &str,
    ) -> Result<ChunkPages, QueryError> {
        let error = |page, message: String| QueryError {
            column: name.to_string(),
            page,
            kind: QueryErrorKind::Invalid(message),
        };
        let group = metadata
            .row_groups()
            .get(row_group)
            .ok_or_else(|| error(None, format!("the file has no row group {row_group}")))?;
        let schema = group.schema_descr();
        let index = leaf_index(schema, name).map_err(|m| error(None, m))?;
        let descr = schema.column(index);
        let column = column_of(&descr).map_err(|m| error(None, m))?;
        let (mut pages_reader, codec) =
            stored_page_reader(reader, metadata, row_group, index).map_err(|m| error(None, m))?;
        let mut compression = Vec::new();
        let pages = read_pages(pages_reader.as_mut(), |page| {
            compression.push(compression_of(page, codec))
        })
        .map_err(|(at, m)| error(Some(at), m))?;
        Ok(ChunkPages {
            name: descr.path().string(),
            column,
            pages,
            compression,
        })
    }

    /// The chunk as [`filter`](super::filter) and [`gather`](super::gather) take it
    /// (borrowing the pages' bytes).
    pub fn chunk(&self) -> Result<ColumnChunk<'_>, QueryError> {
        let pages = self
            .pages
            .iter()
            .enumerate()
            .map(|(i, page)| {
                page_of(page).map_err(|m| QueryError {
                    column: self.name.clone(),
                    page: Some(i),
                    kind: QueryErrorKind::Unsupported(m),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(ColumnChunk::new(self.name.clone(), self.column, pages)
            .with_compression(self.compression.clone()))
    }
}

/// The leaf of `schema` called `name`: its dotted path, or a top-level field with one leaf;
/// else a message naming the leaves.
pub(crate) fn leaf_index(schema: &SchemaDescriptor, name: &str) -> Result<usize, String> {
    let leaves = 0..schema.num_columns();
    let by_path: Vec<usize> = leaves
        .clone()
        .filter(|&i| schema.column(i).path().string() == name)
        .collect();
    let found: Vec<usize> = if by_path.is_empty() {
        leaves
            .clone()
            .filter(|&i| schema.column(i).path().parts()[0] == name)
            .collect()
    } else {
        by_path
    };
    let [index] = found[..] else {
        let names: Vec<String> = leaves.map(|i| schema.column(i).path().string()).collect();
        return Err(match found.len() {
            0 => format!("no such column (the row group has: {})", names.join(", ")),
            n => format!("the name fits {n} leaves: {}", names.join(", ")),
        });
    };
    Ok(index)
}

/// Every page `reader` gives, in order, each shown to `each` as it comes; an error with the
/// number of pages read before it.
fn read_pages(
    reader: &mut dyn PageReader,
    mut each: impl FnMut(&CratePage),
) -> Result<Vec<CratePage>, (usize, String)> {
    let mut pages = Vec::new();
    loop {
        match reader.get_next_page() {
            Ok(Some(page)) => {
                each(&page);
                pages.push(page);
            }
            Ok(None) => return Ok(pages),
            Err(e) => return Err((pages.len(), e.to_string())),
        }
    }
}

/// The page layer's [`Column`] for a schema leaf.
pub fn column_of(descr: &ColumnDescriptor) -> Result<Column, String> {
    let physical_type = match descr.physical_type() {
        PqType::BOOLEAN => PhysicalType::Boolean,
        PqType::INT32 => PhysicalType::Int32,
        PqType::INT64 => PhysicalType::Int64,
        PqType::INT96 => PhysicalType::Int96,
        PqType::FLOAT => PhysicalType::Float,
        PqType::DOUBLE => PhysicalType::Double,
        PqType::BYTE_ARRAY => PhysicalType::ByteArray,
        PqType::FIXED_LEN_BYTE_ARRAY => match usize::try_from(descr.type_length()) {
            Ok(len) if len > 0 => PhysicalType::FixedLenByteArray(len),
            _ => {
                return Err(format!(
                    "FIXED_LEN_BYTE_ARRAY with type_length {}",
                    descr.type_length()
                ))
            }
        },
    };
    Ok(Column {
        physical_type,
        max_def_level: descr.max_def_level(),
        max_rep_level: descr.max_rep_level(),
    })
}

fn encoding(encoding: parquet::basic::Encoding) -> Result<Encoding, String> {
    // The crate's variants are numbered as in Parquet's Thrift definition; by number, not by
    // name, since naming one formats a string (three a page).
    Encoding::from_i32(encoding as i32)
        .ok_or_else(|| format!("encoding {encoding} is not supported"))
}

/// The page layer's view of a page the `parquet` crate read (and decompressed).
pub fn page_of(page: &CratePage) -> Result<Page<'_>, String> {
    Ok(match page {
        CratePage::DictionaryPage {
            buf,
            num_values,
            encoding: e,
            ..
        } => Page::Dictionary {
            buf,
            num_values: *num_values,
            encoding: encoding(*e)?,
        },
        CratePage::DataPage {
            buf,
            num_values,
            encoding: e,
            def_level_encoding,
            rep_level_encoding,
            ..
        } => Page::V1 {
            buf,
            num_values: *num_values,
            encoding: encoding(*e)?,
            def_level_encoding: encoding(*def_level_encoding)?,
            rep_level_encoding: encoding(*rep_level_encoding)?,
        },
        CratePage::DataPageV2 {
            buf,
            num_values,
            encoding: e,
            num_nulls,
            def_levels_byte_len,
            rep_levels_byte_len,
            ..
        } => Page::V2 {
            buf,
            num_values: *num_values,
            num_nulls: *num_nulls,
            encoding: encoding(*e)?,
            def_levels_byte_len: *def_levels_byte_len,
            rep_levels_byte_len: *rep_levels_byte_len,
        },
    })
}

/// A page reader over column `column` of row group `row_group` that yields GZIP pages as they
/// are stored (not inflated), with the chunk's [`Codec`]; other codecs are decompressed by the
/// `parquet` crate (their pages come out uncompressed: [`Codec::Uncompressed`]).
///
/// The `parquet` crate (60) decompresses in its page reader and keeps its page header type
/// private; its reader decompresses only when the chunk's metadata names a codec, so the
/// chunk is read with the same metadata marked UNCOMPRESSED: the pages and their header fields
/// come out as stored (a v2 page's `is_compressed` too). What is lost is the header's
/// `uncompressed_page_size` (not in the crate's `Page`): [`PageCompression::uncompressed_size`]
/// stays `None`, and the inflation is bounded by `max_output_bytes`. Encrypted chunks are not
/// read this way (an error of the crate's reader). Reads are bounded by the chunk's byte
/// range, as [`chunk_page_reader`]'s are.
pub fn stored_page_reader<R: ChunkReader + 'static>(
    reader: Arc<R>,
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> Result<(Box<dyn PageReader>, Codec), String> {
    let (chunk, rows) = chunk_meta(metadata, row_group, column).map_err(|e| e.to_string())?;
    let (meta, codec) = match chunk.compression() {
        Compression::GZIP(_) => (
            chunk
                .clone()
                .into_builder()
                .set_compression(Compression::UNCOMPRESSED)
                .build()
                .map_err(|e| e.to_string())?,
            Codec::Gzip,
        ),
        _ => (chunk.clone(), Codec::Uncompressed),
    };
    let pages = bounded_page_reader(reader.as_ref(), meta, rows).map_err(|e| e.to_string())?;
    Ok((pages, codec))
}

/// The pages of column `column` of row group `row_group` of the file `reader` holds (whose
/// footer is `metadata`), decompressed, as the `parquet` crate's page reader gives them, but
/// with every read bounded by the column chunk's byte range: the chunk
/// (`dictionary_page_offset`, else `data_page_offset`, and `total_compressed_size` bytes) is
/// read into memory once, and a page header or page that runs past its end is an error.
///
/// Why: the `parquet` crate (59, 60) reads page headers from a `Read` and skips unknown
/// fields; skipping a `double` (or a UUID) at the end of the input reads nothing and is no
/// error, so a damaged header whose fields nest lists and maps of doubles with counts in the
/// billions keeps "skipping" at the end of the input forever
/// (`examples/tests/data/regressions/hang-page-header-skip.parquet`). The reader given here
/// answers a read past the chunk's end with an `UnexpectedEof` error, which ends the skip.
///
/// Also: a chunk whose byte range lies outside the file, or whose offsets or size are
/// negative, is an error (not the crate's panic), and a `dictionary_page_offset` below 4 (no
/// page can start inside the magic; Dremio's parquet-mr writes 0 for "no dictionary page")
/// is taken as absent, as Arrow C++ (PARQUET-1402) and parquet-mr do. The offset index is not
/// used: pages are found by walking their headers, each read through the bounded reader.
///
/// And: the chunk's page headers are walked first as the crate reads them, and one it would
/// loop on (a skipped list of billions of booleans, which its skip reads no byte for; found
/// by the `reader` fuzz target) is an error (`thrift::page_sizes`).
///
/// Encrypted chunks: an error of the crate's reader, as with [`stored_page_reader`].
pub fn chunk_page_reader<R: ChunkReader>(
    reader: &R,
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> Result<Box<dyn PageReader>, ParquetError> {
    let (chunk, rows) = chunk_meta(metadata, row_group, column)?;
    bounded_page_reader(reader, chunk.clone(), rows)
}

/// Column `column` of row group `row_group`, with the row group's row count.
fn chunk_meta(
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> Result<(&ColumnChunkMetaData, usize), ParquetError> {
    let group = metadata
        .row_groups()
        .get(row_group)
        .ok_or_else(|| ParquetError::General(format!("the file has no row group {row_group}")))?;
    let chunk = group.columns().get(column).ok_or_else(|| {
        ParquetError::General(format!("row group {row_group} has no column {column}"))
    })?;
    let rows = usize::try_from(group.num_rows()).map_err(|_| {
        ParquetError::General(format!(
            "row group {row_group} has {} rows",
            group.num_rows()
        ))
    })?;
    Ok((chunk, rows))
}

/// A page reader over `meta`'s chunk, read from `reader` into memory (see
/// [`chunk_page_reader`]).
fn bounded_page_reader<R: ChunkReader>(
    reader: &R,
    meta: ColumnChunkMetaData,
    rows: usize,
) -> Result<Box<dyn PageReader>, ParquetError> {
    let (meta, start, end) = checked_chunk(reader.len(), meta)?;
    let len = usize::try_from(end - start)
        .map_err(|_| ParquetError::General(format!("a column chunk of {} bytes", end - start)))?;
    let bytes = reader.get_bytes(start, len)?;
    if bytes.len() != len {
        return Err(ParquetError::EOF(format!(
            "read {} of the column chunk's {len} bytes",
            bytes.len()
        )));
    }
    crate::parquet::thrift::page_sizes(bytes.len() as u64, |at, n| {
        let at = (at as usize).min(bytes.len());
        Ok(bytes.slice(at..(at + n).min(bytes.len())))
    })?;
    let chunk = Arc::new(ChunkBytes { start, bytes });
    let pages = SerializedPageReader::new(chunk, &meta, rows, None)?;
    Ok(Box::new(pages))
}

/// [`chunk_page_reader`], reading the chunk page by page instead of whole (a reader's memory
/// is then a page, not a chunk, where `reader` is a file): every read is checked to lie inside
/// the chunk, and a page header that runs past its end is an error, as there.
pub fn chunk_page_reader_shared<R: ChunkReader + 'static>(
    reader: Arc<R>,
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
) -> Result<Box<dyn PageReader>, ParquetError> {
    let place = chunk_place(metadata, row_group, column, reader.len())?;
    chunk_page_starts(&place, |at, n| reader.get_bytes(at, n))?;
    checked_chunk_page_reader(reader, place)
}

/// A column chunk whose byte range was checked to lie inside its file ([`checked_chunk`]),
/// with its row group's row count.
pub(crate) struct ChunkPlace {
    meta: ColumnChunkMetaData,
    rows: usize,
    /// The chunk's bytes in the file: `start..end`.
    pub start: u64,
    pub end: u64,
}

/// Column `column` of row group `row_group` of a file of `file_len` bytes, its range checked.
pub(crate) fn chunk_place(
    metadata: &ParquetMetaData,
    row_group: usize,
    column: usize,
    file_len: u64,
) -> Result<ChunkPlace, ParquetError> {
    let (chunk, rows) = chunk_meta(metadata, row_group, column)?;
    let (meta, start, end) = checked_chunk(file_len, chunk.clone())?;
    Ok(ChunkPlace {
        meta,
        rows,
        start,
        end,
    })
}

/// Where the pages of the column chunk at `place` start in its file, then where the chunk
/// ends: each page header checked as [`chunk_page_reader_shared`] checks them, read through
/// `read(offset, n)` (up to `n` bytes of the file at `offset`).
pub(crate) fn chunk_page_starts(
    place: &ChunkPlace,
    read: impl FnMut(u64, usize) -> Result<bytes::Bytes, ParquetError>,
) -> Result<Vec<u64>, ParquetError> {
    let (start, end, mut read) = (place.start, place.end, read);
    let mut starts = crate::parquet::thrift::page_starts(end - start, |at, n| read(start + at, n))?;
    for page in &mut starts {
        *page += start;
    }
    starts.push(end);
    Ok(starts)
}

/// [`chunk_page_reader_shared`] of a chunk whose page headers were checked
/// ([`chunk_page_starts`]).
pub(crate) fn checked_chunk_page_reader<R: ChunkReader + 'static>(
    reader: Arc<R>,
    place: ChunkPlace,
) -> Result<Box<dyn PageReader>, ParquetError> {
    let ChunkPlace {
        meta,
        rows,
        start,
        end,
    } = place;
    let range = Arc::new(ChunkRange { reader, start, end });
    Ok(Box::new(SerializedPageReader::new(
        range, &meta, rows, None,
    )?))
}

/// `meta` with a `dictionary_page_offset` below 4 taken as absent, and the chunk's byte range,
/// checked to lie inside a file of `file_len` bytes.
pub(crate) fn checked_chunk(
    file_len: u64,
    mut meta: ColumnChunkMetaData,
) -> Result<(ColumnChunkMetaData, u64, u64), ParquetError> {
    if meta
        .dictionary_page_offset()
        .is_some_and(|o| (0..4).contains(&o))
    {
        meta = meta
            .into_builder()
            .set_dictionary_page_offset(None)
            .build()?;
    }
    let start = meta
        .dictionary_page_offset()
        .unwrap_or(meta.data_page_offset());
    let len = meta.compressed_size();
    let end = u64::try_from(start)
        .ok()
        .zip(u64::try_from(len).ok())
        .and_then(|(s, l)| s.checked_add(l).map(|e| (s, e)))
        .filter(|&(_, e)| e <= file_len);
    let Some((start, end)) = end else {
        return Err(ParquetError::General(format!(
            "the column chunk's {len} bytes at offset {start} are not inside the file's \
             {file_len} bytes"
        )));
    };
    Ok((meta, start, end))
}

/// A column chunk of a file, read where it lies: reads outside it are errors.
struct ChunkRange<R> {
    reader: Arc<R>,
    start: u64,
    end: u64,
}

impl<R: ChunkReader> Length for ChunkRange<R> {
    fn len(&self) -> u64 {
        self.end
    }
}

impl<R: ChunkReader> ChunkReader for ChunkRange<R> {
    type T = Strict<std::io::Take<R::T>>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        if !(self.start..=self.end).contains(&start) {
            return Err(ParquetError::EOF(format!(
                "a read at offset {start} outside the column chunk (bytes {} to {})",
                self.start, self.end
            )));
        }
        Ok(Strict(self.reader.get_read(start)?.take(self.end - start)))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        match start.checked_add(length as u64) {
            Some(stop) if start >= self.start && stop <= self.end => {
                self.reader.get_bytes(start, length)
            }
            _ => Err(ParquetError::EOF(format!(
                "{length} bytes at offset {start} pass the column chunk (bytes {} to {})",
                self.start, self.end
            ))),
        }
    }
}

/// A reader that fails, rather than give 0 bytes, at the end of its input: the `parquet`
/// crate's page-header reader skips some fields with a copy that stops at 0 bytes without an
/// error, and a damaged header then spins at the end of the input forever (see
/// [`chunk_page_reader`]).
pub struct Strict<Rd>(pub Rd);

impl<Rd: Read> Read for Strict<Rd> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.read(buf)?;
        if n == 0 && !buf.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "a page header runs past the end of the column chunk",
            ));
        }
        Ok(n)
    }
}

/// One column chunk's bytes, at their offset in the file: a [`ChunkReader`] that reads
/// nothing outside them, and whose readers fail (rather than return 0) at the chunk's end.
struct ChunkBytes {
    start: u64,
    bytes: Bytes,
}

impl ChunkBytes {
    fn range(&self, start: u64, length: u64) -> Result<std::ops::Range<usize>, ParquetError> {
        let end = self.start + self.bytes.len() as u64;
        match start.checked_add(length) {
            Some(stop) if start >= self.start && stop <= end => {
                Ok((start - self.start) as usize..(stop - self.start) as usize)
            }
            _ => Err(ParquetError::EOF(format!(
                "{length} bytes at offset {start} pass the column chunk (bytes {} to {end})",
                self.start
            ))),
        }
    }
}

impl Length for ChunkBytes {
    fn len(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }
}

impl ChunkReader for ChunkBytes {
    type T = Strict<bytes::buf::Reader<Bytes>>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        let range = self.range(start, 0)?;
        Ok(Strict(bytes::Buf::reader(self.bytes.slice(range.start..))))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        let range = self.range(start, length as u64)?;
        Ok(self.bytes.slice(range))
    }
}

/// How a page from [`stored_page_reader`] of a chunk of `codec` is stored: a v2 page whose
/// header says `is_compressed = false` is not compressed.
pub fn compression_of(page: &CratePage, codec: Codec) -> PageCompression {
    match page {
        CratePage::DataPageV2 {
            is_compressed: false,
            ..
        } => PageCompression::NONE,
        _ => PageCompression {
            codec,
            uncompressed_size: None,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parquet::data_type::Int32Type;
    use parquet::file::properties::WriterProperties;
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::file::writer::SerializedFileWriter;
    use parquet::schema::parser::parse_message_type;

    /// Two row groups of one optional INT32 column, small pages.
    fn file() -> Bytes {
        let schema = Arc::new(parse_message_type("message m { optional int32 v; }").unwrap());
        let props = Arc::new(
            WriterProperties::builder()
                .set_data_page_row_count_limit(100)
                .set_write_batch_size(50)
                .build(),
        );
        let mut out = Vec::new();
        let mut writer = SerializedFileWriter::new(&mut out, schema, props).unwrap();
        for group in 0..2 {
            let values: Vec<i32> = (0..500).map(|i| i * 7 + group).collect();
            let defs: Vec<i16> = (0..600).map(|i| i16::from(i % 6 != 5)).collect();
            let mut rg = writer.next_row_group().unwrap();
            let mut col = rg.next_column().unwrap().unwrap();
            col.typed::<Int32Type>()
                .write_batch(&values, Some(&defs), None)
                .unwrap();
            col.close().unwrap();
            rg.close().unwrap();
        }
        writer.close().unwrap();
        Bytes::from(out)
    }

    fn pages(mut reader: Box<dyn PageReader>) -> Vec<(u32, Bytes)> {
        let mut out = Vec::new();
        while let Some(page) = reader.get_next_page().unwrap() {
            out.push((page.num_values(), page.buffer().clone()));
        }
        out
    }

    #[test]
    fn chunk_page_reader_gives_the_crates_pages() {
        let file = file();
        let reader = SerializedFileReader::new(file.clone()).unwrap();
        let metadata = reader.metadata();
        for rg in 0..2 {
            let expected = pages(
                reader
                    .get_row_group(rg)
                    .unwrap()
                    .get_column_page_reader(0)
                    .unwrap(),
            );
            assert!(expected.len() > 2);
            let got = pages(chunk_page_reader(&file, metadata, rg, 0).unwrap());
            assert_eq!(got, expected, "row group {rg}");
        }
        assert!(chunk_page_reader(&file, metadata, 2, 0).is_err());
        assert!(chunk_page_reader(&file, metadata, 0, 1).is_err());
    }

    /// A chunk that passes the end of the input is an error before any page is read (the
    /// footer says more than the bytes hold), not a panic or a read past the end.
    #[test]
    fn chunk_outside_the_input_is_an_error() {
        let file = file();
        let metadata = SerializedFileReader::new(file.clone())
            .unwrap()
            .metadata()
            .clone();
        let (start, len) = metadata.row_group(1).column(0).byte_range();
        let cut = file.slice(..(start + len - 1) as usize);
        let error = chunk_page_reader(&cut, &metadata, 1, 0).err().unwrap();
        assert!(error.to_string().contains("not inside the file"), "{error}");
        // The first row group's chunk is whole in the cut file.
        assert!(chunk_page_reader(&cut, &metadata, 0, 0).is_ok());
    }

    /// The chunk's readers fail at its end instead of answering 0 bytes, and read nothing
    /// outside it.
    #[test]
    fn chunk_readers_fail_at_the_chunk_end() {
        let chunk = ChunkBytes {
            start: 10,
            bytes: Bytes::from_static(b"abcdef"),
        };
        assert_eq!(chunk.len(), 16);
        let mut read = chunk.get_read(13).unwrap();
        let mut buf = [0u8; 8];
        assert_eq!(read.read(&mut buf).unwrap(), 3);
        assert_eq!(&buf[..3], b"def");
        assert_eq!(read.read(&mut []).unwrap(), 0);
        let e = read.read(&mut buf).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
        assert!(chunk.get_read(9).is_err());
        assert!(chunk.get_read(17).is_err());
        assert_eq!(chunk.get_bytes(11, 2).unwrap(), Bytes::from_static(b"bc"));
        assert!(chunk.get_bytes(15, 2).is_err());
        assert!(chunk.get_bytes(u64::MAX, 2).is_err());
    }
}
